# compiler/translate/lower_wgmma.cpp and wgmma_layout.cpp (wgmma.mma_async, sm_90a): the layout
# functions, tests/ptx/isa/wgmma.cu on the CPU executor against exact references, gfx1100/gfx1201
# builds and the rejected forms.
if(EXISTS ${PROJECT_SOURCE_DIR}/compiler/cpu/simt_block.cpp)
  d4r_test(test_compiler_translate_wgmma
    TIMEOUT 900
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_wgmma.cpp
    LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
  target_compile_definitions(test_compiler_translate_wgmma PRIVATE
    D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
    D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
endif()
