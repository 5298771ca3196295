# compiler/recipe: the parser and flag derivation (test_compiler_recipe), and the example kernels
# of kernels/examples built by clang-19 as their recipes say, then checked by metadata and
# disassembly without the daemon (test_compiler_recipe_examples: about 60 small compiles).
set(d4r_recipes_test_definitions
  D4R_RECIPES_DIR="${PROJECT_SOURCE_DIR}/kernels/recipes"
  D4R_CLANG="${D4R_CLANG}"
  D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}")

d4r_test(test_compiler_recipe
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_recipe.cpp
  LIBS d4r_compiler d4r_util)
target_compile_definitions(test_compiler_recipe PRIVATE ${d4r_recipes_test_definitions})

d4r_test(test_compiler_recipe_examples
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_recipe_examples.cpp
  LIBS d4r_compiler d4r_util
  TIMEOUT 300)
target_compile_definitions(test_compiler_recipe_examples PRIVATE ${d4r_recipes_test_definitions})
