; LLVM 19 cannot select llvm.amdgcn.cvt.pk.f32.fp8 for gfx11 (gfx12 has v_cvt_pk_f32_fp8): codegen
; for gfx1100 aborts the whole process with "LLVM ERROR: Cannot select", for gfx1201 it works.
; Input of the worker tests (a crashing compile must not take the daemon down); never compile it
; for gfx11 inside a test process.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @d4r_cannot_select(ptr addrspace(1) %out, i32 %packed) {
entry:
  %pair = call <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32 %packed, i1 false)
  store <2 x float> %pair, ptr addrspace(1) %out, align 8
  ret void
}

declare <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32, i1 immarg)
