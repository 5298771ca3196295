# compiler/ptx/container: fatbins as nvcc 13 writes them (tests/fixtures/fatbin/, every compression
# mode, several architectures, and the same fatbins inside our synthetic PE), fatbins from a small
# writer inside the test (plain, LZ4, ZSTD, padded, every header size), PTX text, fatbins inside
# binaries, every malformed-container case and the decompression limits.
set(d4r_nvcc_fatbin_dir ${PROJECT_SOURCE_DIR}/tests/fixtures/fatbin)
set(d4r_nvcc_fatbins
  ${d4r_nvcc_fatbin_dir}/fatbin_kernels.none.fatbin
  ${d4r_nvcc_fatbin_dir}/fatbin_kernels.default.fatbin
  ${d4r_nvcc_fatbin_dir}/fatbin_kernels.size.fatbin
  ${d4r_nvcc_fatbin_dir}/fatbin_kernels.balance.fatbin
  ${d4r_nvcc_fatbin_dir}/fatbin_kernels.speed.fatbin
  ${d4r_nvcc_fatbin_dir}/multi_arch.fatbin
  ${d4r_nvcc_fatbin_dir}/multi_arch_all.fatbin)
set(d4r_nvcc_pe ${CMAKE_BINARY_DIR}/fixtures/fatbin/nvcc_fatbins.dll)
add_custom_command(
  OUTPUT ${d4r_nvcc_pe} ${d4r_nvcc_pe}.map
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/fixtures/fatbin
  COMMAND d4r-make-pe ${d4r_nvcc_pe} ${d4r_nvcc_fatbins}
  DEPENDS d4r-make-pe ${d4r_nvcc_fatbins}
  COMMENT "Writing fixture nvcc_fatbins.dll (the nvcc fatbins in a synthetic PE)"
  VERBATIM)
add_custom_target(d4r_nvcc_fatbin_fixtures ALL DEPENDS ${d4r_nvcc_pe} ${d4r_nvcc_pe}.map)

d4r_test(test_compiler_ptx_container
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_ptx_container.cpp
  LIBS d4r_compiler d4r_util PkgConfig::LZ4 PkgConfig::ZSTD)
add_dependencies(test_compiler_ptx_container d4r_ptx_fixtures d4r_nvcc_fatbin_fixtures)

# `d4r-kernel ptx inspect` on fixtures: module hashes and entries, as text and as JSON, on PTX text
# and on nvcc's fatbins (the skipped cubins, the 1 527-byte kernel name).
add_test(NAME ptx_inspect
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/ptx_inspect.sh $<TARGET_FILE:d4r-kernel>
          ${PROJECT_SOURCE_DIR}/tests/ptx ${d4r_nvcc_fatbin_dir})
set_tests_properties(ptx_inspect PROPERTIES TIMEOUT 60)

# `ptx inspect` under a 1.5 GiB address-space limit on entries that really expand to 255 MiB each:
# the limit in all stops it cleanly, and with a higher limit it reads them one at a time.
add_test(NAME ptx_inspect_limits
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/ptx_inspect_limits.sh $<TARGET_FILE:d4r-kernel>
          $<TARGET_FILE:d4r-make-fatbin>)
set_tests_properties(ptx_inspect_limits PROPERTIES TIMEOUT 180)
