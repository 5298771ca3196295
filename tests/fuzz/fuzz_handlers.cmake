# fuzz_handlers: the daemon's gRPC handlers under libFuzzer (fuzz_handlers.cpp). Unlike the other
# targets (CMakeLists.txt beside this file) it needs gRPC, protobuf, SQLite and spdlog, so it is a
# normal CMake executable whose compile and link commands fuzz_handlers.clang.sh runs with clang-19
# and the fuzzer's flags; the daemon, cache and release sources are compiled into it instrumented.
# CTest runs it for 20 s on its seed corpus with its dictionary (run_fuzzer.sh), skipped when
# clang-19's fuzzer runtime is missing. Included from tests/unit/fuzz.cmake.
set(d4r_fuzz_handlers_clang ${D4R_LLVM_ROOT}/bin/clang++)
set(d4r_fuzz_handlers_runtime
  ${D4R_LLVM_ROOT}/lib/clang/${LLVM_VERSION_MAJOR}/lib/linux/libclang_rt.fuzzer-x86_64.a)
set(d4r_fuzz_handlers_run ${CMAKE_CURRENT_LIST_DIR}/run_fuzzer.sh)

if(NOT EXISTS ${d4r_fuzz_handlers_clang} OR NOT EXISTS ${d4r_fuzz_handlers_runtime})
  add_test(NAME fuzz_handlers COMMAND sh ${d4r_fuzz_handlers_run} --skip "clang-19 fuzzer runtime missing")
  set_tests_properties(fuzz_handlers PROPERTIES SKIP_RETURN_CODE 77)
  return()
endif()

# The daemon, release and cache sources are those of their libraries, so a new file there is
# compiled in here too.
set(d4r_fuzz_handlers_sources ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_handlers.cpp)
foreach(pair "d4r_daemon_core;daemon" "d4r_release;daemon/release" "d4r_cache;cache")
  list(GET pair 0 library)
  list(GET pair 1 folder)
  get_target_property(library_sources ${library} SOURCES)
  foreach(source ${library_sources})
    if(source MATCHES "\\.cpp$")
      list(APPEND d4r_fuzz_handlers_sources ${PROJECT_SOURCE_DIR}/${folder}/${source})
    endif()
  endforeach()
endforeach()
add_executable(fuzz_handlers EXCLUDE_FROM_ALL ${d4r_fuzz_handlers_sources})
target_include_directories(fuzz_handlers PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(fuzz_handlers PRIVATE
  D4R_BINARY_DIR="${PROJECT_BINARY_DIR}" D4R_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  D4R_DEFAULT_RECIPES_DIR="${PROJECT_SOURCE_DIR}/kernels/recipes")
target_link_libraries(fuzz_handlers PRIVATE d4r_cache_redis d4r_compiler_base d4r_proto d4r_trust d4r_util SQLite::SQLite3
  spdlog::spdlog PkgConfig::SYSTEMD Threads::Threads)
set_target_properties(fuzz_handlers PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz
  RULE_LAUNCH_COMPILE "sh ${CMAKE_CURRENT_LIST_DIR}/fuzz_handlers.clang.sh ${d4r_fuzz_handlers_clang} compile"
  RULE_LAUNCH_LINK "sh ${CMAKE_CURRENT_LIST_DIR}/fuzz_handlers.clang.sh ${d4r_fuzz_handlers_clang} link")
add_dependencies(fuzz_handlers d4r_release_fixture)
add_dependencies(d4r_fuzz_targets fuzz_handlers)
add_test(NAME fuzz_handlers
  COMMAND sh ${d4r_fuzz_handlers_run} ${CMAKE_BINARY_DIR}/fuzz/fuzz_handlers
          ${CMAKE_CURRENT_LIST_DIR}/corpus/fuzz_handlers ${CMAKE_CURRENT_LIST_DIR}/fuzz_handlers.dict)
set_tests_properties(fuzz_handlers PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)
