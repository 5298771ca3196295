# The PTX corpus (tests/ptx/, our own CUDA compiled by regenerate.sh) and the container fixtures built
# from it at build time by our own writers: fatbins in the contract's layout (d4r-make-fatbin) and a
# PE-shaped file with fatbins inside (d4r-make-pe). tests/ptx/README.md documents both.

add_executable(d4r-make-fatbin ${PROJECT_SOURCE_DIR}/tests/tools/make_fatbin.cpp)
target_include_directories(d4r-make-fatbin PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(d4r-make-fatbin PRIVATE d4r_util PkgConfig::LZ4)
d4r_warnings(d4r-make-fatbin)

add_executable(d4r-make-pe ${PROJECT_SOURCE_DIR}/tests/tools/make_pe.cpp)
target_include_directories(d4r-make-pe PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(d4r-make-pe PRIVATE d4r_util)
d4r_warnings(d4r-make-pe)

set(d4r_ptx_dir ${PROJECT_SOURCE_DIR}/tests/ptx)
set(d4r_ptx_fixture_dir ${CMAKE_BINARY_DIR}/fixtures/ptx)

# What each fatbin holds; test_ptx_corpus.cpp states the same lists and checks the files against them.
set(d4r_fatbin_plain_args
  ${d4r_ptx_dir}/tex_filter.sm_86.ptx ${d4r_ptx_dir}/surface_store.sm_86.ptx
  ${d4r_ptx_dir}/mma_tile.sm_86.ptx ${d4r_ptx_dir}/sr_module.ptx)
set(d4r_fatbin_lz4_args --lz4
  ${d4r_ptx_dir}/fp8_decode.sm_89.ptx ${d4r_ptx_dir}/mma_tile.sm_89.ptx
  ${d4r_ptx_dir}/tex_filter.sm_89.ptx ${d4r_ptx_dir}/texture_layers.sm_89.ptx)
set(d4r_fatbin_mixed_args
  --cubin 200 ${d4r_ptx_dir}/surface_store.sm_90.ptx
  --lz4 ${d4r_ptx_dir}/mma_tile.sm_90.ptx
  --plain ${d4r_ptx_dir}/rr_module.ptx --cubin 37
  --lz4 ${d4r_ptx_dir}/fp8_decode.sm_90.ptx ${d4r_ptx_dir}/tex_filter.sm_90.ptx)

set(d4r_ptx_fixtures)
foreach(kind plain lz4 mixed)
  set(out ${d4r_ptx_fixture_dir}/${kind}.fatbin)
  set(inputs ${d4r_fatbin_${kind}_args})
  list(FILTER inputs INCLUDE REGEX "\\.ptx$")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${d4r_ptx_fixture_dir}
    COMMAND d4r-make-fatbin ${out} ${d4r_fatbin_${kind}_args}
    DEPENDS d4r-make-fatbin ${inputs}
    COMMENT "Writing fixture fatbin ${kind}.fatbin"
    VERBATIM)
  list(APPEND d4r_ptx_fixtures ${out})
endforeach()

add_custom_command(
  OUTPUT ${d4r_ptx_fixture_dir}/game.dll ${d4r_ptx_fixture_dir}/game.dll.map
  COMMAND d4r-make-pe ${d4r_ptx_fixture_dir}/game.dll ${d4r_ptx_fixtures}
  DEPENDS d4r-make-pe ${d4r_ptx_fixtures}
  COMMENT "Writing fixture game.dll"
  VERBATIM)
add_custom_target(d4r_ptx_fixtures ALL
  DEPENDS ${d4r_ptx_fixtures} ${d4r_ptx_fixture_dir}/game.dll ${d4r_ptx_fixture_dir}/game.dll.map)

d4r_test(test_ptx_corpus
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ptx_corpus.cpp
  LIBS d4r_util PkgConfig::LZ4)
add_dependencies(test_ptx_corpus d4r_ptx_fixtures)
