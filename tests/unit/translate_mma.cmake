# compiler/translate/lower_mma.cpp (mma.sync m16n8k16, stage 6). The lane maps against a host model
# of the PTX and WMMA layouts (no code generation, quick to build); then the corpus kernels for the
# host and the six AMDGPU targets (native WMMA and portable), unsupported forms, and host runs
# against exact references and the NVIDIA goldens.
d4r_test(test_compiler_translate_mma_layout
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mma_layout.cpp
  LIBS d4r_translate d4r_util d4r_llvm)
if(EXISTS ${PROJECT_SOURCE_DIR}/compiler/cpu/simt_block.cpp)
  d4r_test(test_compiler_translate_mma
    TIMEOUT 900
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mma.cpp
            ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mma_run.cpp
    LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
  target_compile_definitions(test_compiler_translate_mma PRIVATE
    D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
    D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
  # The forms beyond m16n8k16 (wmma, other mma shapes and types, movmatrix, stmatrix): the
  # matrix_more.cu kernels on the CPU executor against references computed in the test, and built
  # for gfx1100 and gfx1201.
  d4r_test(test_compiler_translate_mma_forms
    TIMEOUT 900
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mma_forms.cpp
    LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
  # mma.sp (mma_sparse.cu) on the CPU executor against the ISA's sparse layout, built for gfx11/12.
  d4r_test(test_compiler_translate_mma_sparse
    TIMEOUT 900
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compiler_translate_mma_sparse.cpp
    LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
endif()
# The native twins of the MMA corpus kernels (tests/ptx/wmma_twins.cuh, what
# d4r-bench-code-quality measures the translator against) run on 32 host threads with a WMMA
# model and must give the PTX's results bit for bit.
if(EXISTS ${PROJECT_SOURCE_DIR}/compiler/cpu/simt_block.cpp)
  d4r_test(test_native_mma_twins
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_mma_twins.cpp
    LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
  target_compile_definitions(test_native_mma_twins PRIVATE
    D4R_LLVM_OBJDUMP="${D4R_LLVM_OBJDUMP}"
    D4R_PTX_DIR="${PROJECT_SOURCE_DIR}/tests/ptx")
endif()
