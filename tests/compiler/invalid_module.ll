; Not valid LLVM IR (an undefined value): the llvm backend answers rejected with the parser's message.
define amdgpu_kernel void @d4r_invalid(ptr addrspace(1) %out) {
entry:
  store float %missing, ptr addrspace(1) %out, align 4
  ret void
}
