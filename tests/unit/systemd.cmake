# systemd/ units. `systemd-analyze verify` insists that ExecStart exists, so it checks a test copy
# of the service whose ExecStart is the daemon built in this tree (/bin/true while there is no
# d4r-kerneld target yet; the check is skipped while that binary is not built); the installed copy
# is checked for the installed daemon's path.
include(GNUInstallDirs)
set(d4r_unit_test_dir ${CMAKE_BINARY_DIR}/systemd/test)
if(TARGET d4r-kerneld)
  set(D4R_KERNELD_PATH "$<TARGET_FILE:d4r-kerneld>")
else()
  set(D4R_KERNELD_PATH /bin/true)
  message(STATUS "systemd unit test: no d4r-kerneld target, verifying with ExecStart=/bin/true")
endif()
configure_file(${PROJECT_SOURCE_DIR}/systemd/d4r-kerneld.service.in
               ${d4r_unit_test_dir}/d4r-kerneld.service.in @ONLY)
file(GENERATE OUTPUT ${d4r_unit_test_dir}/d4r-kerneld.service
     INPUT ${d4r_unit_test_dir}/d4r-kerneld.service.in)
configure_file(${PROJECT_SOURCE_DIR}/systemd/d4r-kerneld-remote.service.in
               ${d4r_unit_test_dir}/d4r-kerneld-remote.service.in @ONLY)
file(GENERATE OUTPUT ${d4r_unit_test_dir}/d4r-kerneld-remote.service
     INPUT ${d4r_unit_test_dir}/d4r-kerneld-remote.service.in)
configure_file(${PROJECT_SOURCE_DIR}/systemd/d4r-kerneld.socket
               ${d4r_unit_test_dir}/d4r-kerneld.socket COPYONLY)

add_test(NAME systemd_units_verify
  COMMAND sh ${PROJECT_SOURCE_DIR}/systemd/verify-units.sh --needs ${D4R_KERNELD_PATH}
    ${d4r_unit_test_dir}/d4r-kerneld.socket ${d4r_unit_test_dir}/d4r-kerneld.service
    ${d4r_unit_test_dir}/d4r-kerneld-remote.service)
set_tests_properties(systemd_units_verify PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

add_test(NAME systemd_units_installed_exec_start
  COMMAND grep -qx "ExecStart=${CMAKE_INSTALL_FULL_BINDIR}/d4r-kerneld"
    ${CMAKE_BINARY_DIR}/systemd/d4r-kerneld.service)
add_test(NAME systemd_remote_unit_installed_exec_start
  COMMAND grep -q "^ExecStart=${CMAKE_INSTALL_FULL_BINDIR}/d4r-kerneld --listen "
    ${CMAKE_BINARY_DIR}/systemd/d4r-kerneld-remote.service)
