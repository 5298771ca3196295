# `d4r-kernel ptx rewrite` with the example recipe (tests/fixtures/recipes/tex_rewrite.recipe) on the
# surface-store fixture.
add_test(NAME ptx_rewrite
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/ptx_rewrite.sh $<TARGET_FILE:d4r-kernel>
          ${PROJECT_SOURCE_DIR}/tests/ptx ${PROJECT_SOURCE_DIR}/tests/fixtures/recipes/tex_rewrite.recipe)
set_tests_properties(ptx_rewrite PROPERTIES TIMEOUT 60)

# `ptx translate` and `ptx run`: our translator and the CPU executor from the command line.
add_test(NAME e2e_ptx_translate
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/ptx_translate.sh $<TARGET_FILE:d4r-kernel>
          ${D4R_LLVM_OBJDUMP} ${PROJECT_SOURCE_DIR})
set_tests_properties(e2e_ptx_translate PROPERTIES TIMEOUT 120)
