# Script mode (cmake -DD4R_STRIP_INPUT=a.ll -DD4R_STRIP_OUTPUT=b.ll -P support_library.cmake):
# remove the function attributes that tie the bitcode to a CPU or block inlining.
if(DEFINED D4R_STRIP_INPUT)
  file(READ ${D4R_STRIP_INPUT} text)
  foreach(attribute target-cpu target-features tune-cpu amdgpu-waves-per-eu
          uniform-work-group-size stack-protector-buffer-size)
    string(REGEX REPLACE " \"${attribute}\"=\"[^\"]*\"" "" text "${text}")
  endforeach()
  string(REPLACE " \"no-builtins\"" "" text "${text}")
  file(WRITE ${D4R_STRIP_OUTPUT} "${text}")
  return()
endif()

# The PTX support library (kernels/support/*.c, C11) compiled by clang-19 to LLVM bitcode twice,
# for amdgcn-amd-amdhsa (generic: no -mcpu) and for the host triple, each linked into one module,
# stripped of CPU-specific function attributes (target-cpu, target-features, tune-cpu, and the
# "no-builtins" that -ffreestanding adds, which would block inlining into the translator's code),
# and embedded into d4r_translate by support_library.cpp (.incbin). Nothing is installed.
set(D4R_SUPPORT_DIR ${PROJECT_SOURCE_DIR}/kernels/support)
file(GLOB D4R_SUPPORT_SOURCES CONFIGURE_DEPENDS ${D4R_SUPPORT_DIR}/*.c)
file(GLOB D4R_SUPPORT_HEADERS CONFIGURE_DEPENDS ${D4R_SUPPORT_DIR}/*.h)
# tensor_copy.c reads the tensor-map layout the translator documents.
list(APPEND D4R_SUPPORT_HEADERS ${PROJECT_SOURCE_DIR}/compiler/translate/tensor_map_layout.hpp)
set(D4R_SUPPORT_CLANG ${D4R_LLVM_ROOT}/bin/clang)
set(D4R_SUPPORT_LLVM_LINK ${D4R_LLVM_ROOT}/bin/llvm-link)
set(D4R_SUPPORT_LLVM_AS ${D4R_LLVM_ROOT}/bin/llvm-as)
execute_process(COMMAND ${D4R_SUPPORT_CLANG} -print-target-triple
  OUTPUT_VARIABLE D4R_SUPPORT_HOST_TRIPLE OUTPUT_STRIP_TRAILING_WHITESPACE)
# -ffreestanding: clang's own stdint.h, no libc; -fno-math-errno: __builtin_sqrt/__builtin_fma
# stay intrinsics; -ffp-contract=off: the error-free transformations must not be fused.
set(D4R_SUPPORT_FLAGS -std=c11 -O2 -ffreestanding -fno-math-errno -ffp-contract=off
  -fno-stack-protector -DD4R_PTX_SUPPORT_BITCODE -Wall -Wextra -Werror -emit-llvm -S)
set(D4R_SUPPORT_TARGET_amdgpu --target=amdgcn-amd-amdhsa -nogpulib -Xclang -mcode-object-version=none)
set(D4R_SUPPORT_TARGET_host --target=${D4R_SUPPORT_HOST_TRIPLE})

set(D4R_SUPPORT_BC_FILES)
foreach(kind amdgpu host)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/support/${kind})
  set(pieces)
  foreach(source ${D4R_SUPPORT_SOURCES})
    get_filename_component(stem ${source} NAME_WE)
    set(piece ${out_dir}/${stem}.ll)
    add_custom_command(OUTPUT ${piece}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
      COMMAND ${D4R_SUPPORT_CLANG} ${D4R_SUPPORT_TARGET_${kind}} ${D4R_SUPPORT_FLAGS}
        ${source} -o ${piece}
      DEPENDS ${source} ${D4R_SUPPORT_HEADERS}
      COMMENT "support library: ${stem}.c -> ${kind} IR"
      VERBATIM)
    list(APPEND pieces ${piece})
  endforeach()
  set(linked ${out_dir}/d4r_ptx_support.linked.ll)
  set(stripped ${out_dir}/d4r_ptx_support.ll)
  set(bitcode ${CMAKE_CURRENT_BINARY_DIR}/support/d4r_ptx_support.${kind}.bc)
  add_custom_command(OUTPUT ${bitcode}
    COMMAND ${D4R_SUPPORT_LLVM_LINK} -S ${pieces} -o ${linked}
    COMMAND ${CMAKE_COMMAND} -DD4R_STRIP_INPUT=${linked} -DD4R_STRIP_OUTPUT=${stripped}
      -P ${CMAKE_CURRENT_LIST_FILE}
    COMMAND ${D4R_SUPPORT_LLVM_AS} ${stripped} -o ${bitcode}
    DEPENDS ${pieces} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "support library: ${kind} bitcode"
    VERBATIM)
  set(D4R_SUPPORT_BC_${kind} ${bitcode})
  list(APPEND D4R_SUPPORT_BC_FILES ${bitcode})
endforeach()

add_custom_target(d4r_ptx_support_bitcode DEPENDS ${D4R_SUPPORT_BC_FILES})
add_dependencies(d4r_translate d4r_ptx_support_bitcode)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/support_library.cpp PROPERTIES
  OBJECT_DEPENDS "${D4R_SUPPORT_BC_FILES}"
  COMPILE_DEFINITIONS
    "D4R_SUPPORT_AMDGPU_BC=\"${D4R_SUPPORT_BC_amdgpu}\";D4R_SUPPORT_HOST_BC=\"${D4R_SUPPORT_BC_host}\"")
