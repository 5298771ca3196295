# compiler/translate/: the PTX -> LLVM IR translator. Corpus modules for the host and all six AMDGPU
# targets (code objects, kernarg layout), per-instruction lowering (IR verifies; folded results),
# and errors. Code generation through compiler/backends/llvm_codegen.hpp.
set(d4r_translate_test_definitions
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
  D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
d4r_test(test_compiler_translate_instructions
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_instructions.cpp
          ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_errors.cpp
          ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_store_source.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 300)
target_compile_definitions(test_compiler_translate_instructions PRIVATE
  ${d4r_translate_test_definitions})
d4r_test(test_compiler_translate_corpus
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_corpus.cpp
  LIBS d4r_translate d4r_compiler d4r_util d4r_llvm
  TIMEOUT 900)
target_compile_definitions(test_compiler_translate_corpus PRIVATE ${d4r_translate_test_definitions})
