# compiler/ptx/container: fatbins (plain and LZ4), PTX text and fatbins inside binaries, built by
# a small writer inside the test; every malformed-container case.
d4r_test(test_compiler_ptx_container
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_ptx_container.cpp
  LIBS d4r_compiler d4r_util PkgConfig::LZ4)
add_dependencies(test_compiler_ptx_container d4r_ptx_fixtures)

# `d4r-kernel ptx inspect` on a fixture: the module hash and its entries, as text and as JSON.
add_test(NAME ptx_inspect
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/ptx_inspect.sh $<TARGET_FILE:d4r-kernel>
          ${PROJECT_SOURCE_DIR}/tests/ptx)
set_tests_properties(ptx_inspect PROPERTIES TIMEOUT 60)
