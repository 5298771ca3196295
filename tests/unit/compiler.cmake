# compiler/: the launch-metadata reader, tested on the real code objects of the release fixture
# (kernels/CMakeLists.txt) and on the manifests written beside them.
d4r_test(test_compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_launch_meta.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_object_readers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_compiler_release_fixture.cpp
  LIBS d4r_compiler d4r_util)
add_dependencies(test_compiler d4r_release_fixture)
target_compile_definitions(test_compiler PRIVATE
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
  D4R_RELEASE_FIXTURE_DIR="${D4R_RELEASE_FIXTURE_DIR}")
