; A tiny AMDGPU kernel in LLVM IR for the llvm backend's IR path: out[tid] = out[tid] * value + 1.
; It names no triple and no data layout: the backend sets amdgcn-amd-amdhsa and the target's.
define amdgpu_kernel void @d4r_ir_simple(ptr addrspace(1) %out, float %value) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %idx = zext i32 %tid to i64
  %slot = getelementptr inbounds float, ptr addrspace(1) %out, i64 %idx
  %old = load float, ptr addrspace(1) %slot, align 4
  %scaled = fmul float %old, %value
  %new = fadd float %scaled, 1.0
  store float %new, ptr addrspace(1) %slot, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
