; Our own LLVM IR in the shape Triton's NVPTX lowering produces (opaque pointers in addrspace(1)
; kernel parameters, NVVM intrinsics for the special registers, shuffles and barriers, predicated
; inline-asm vector loads and stores, shared memory in addrspace(3), !nvvm.annotations marking the
; kernels and maxntid), compiled by llc-19 (tests/ptx/regenerate_clang.sh). It exists so that the
; corpus has PTX written by a front-end that is neither nvcc nor clang's CUDA mode.
;
; row_softmax: one 128-thread block per row of n (<= 512) floats; each thread keeps four columns,
; max and sum are reduced over the warp with shfl.sync.bfly and over the four warps through shared
; memory; out = exp2((x - max) * log2e) / sum.
; scaled_add: out[i] = x[i] * alpha + y[i] for i < n, four elements per thread, predicated.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@partial = internal addrspace(3) global [4 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.maxnum.f32(float, float)

define void @row_softmax(ptr addrspace(1) %x, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %row = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %rowbase = mul i32 %row, %n
  %lane = and i32 %tid, 31
  %warp = lshr i32 %tid, 5
  br label %load

load:
  %k = phi i32 [ 0, %entry ], [ %k.next, %load ]
  %m = phi float [ 0xFFF0000000000000, %entry ], [ %m.next, %load ]
  %kcol = mul i32 %k, 128
  %col = add i32 %kcol, %tid
  %inside = icmp slt i32 %col, %n
  %idx = add i32 %rowbase, %col
  %idx64 = sext i32 %idx to i64
  %p = getelementptr float, ptr addrspace(1) %x, i64 %idx64
  %v = call float asm sideeffect "mov.b32 $0, 0xff800000;\0A\09@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %p, i1 %inside)
  %m.next = call float @llvm.maxnum.f32(float %m, float %v)
  %k.next = add i32 %k, 1
  %again = icmp ult i32 %k.next, 4
  br i1 %again, label %load, label %reduce_max

reduce_max:
  %m1 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %m.next, i32 16, i32 31)
  %m1x = call float @llvm.maxnum.f32(float %m.next, float %m1)
  %m2 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %m1x, i32 8, i32 31)
  %m2x = call float @llvm.maxnum.f32(float %m1x, float %m2)
  %m3 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %m2x, i32 4, i32 31)
  %m3x = call float @llvm.maxnum.f32(float %m2x, float %m3)
  %m4 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %m3x, i32 2, i32 31)
  %m4x = call float @llvm.maxnum.f32(float %m3x, float %m4)
  %m5 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %m4x, i32 1, i32 31)
  %m5x = call float @llvm.maxnum.f32(float %m4x, float %m5)
  %first = icmp eq i32 %lane, 0
  %slot = getelementptr [4 x float], ptr addrspace(3) @partial, i32 0, i32 %warp
  br i1 %first, label %store_max, label %join_max

store_max:
  store float %m5x, ptr addrspace(3) %slot, align 4
  br label %join_max

join_max:
  call void @llvm.nvvm.barrier0()
  %w0 = load float, ptr addrspace(3) @partial, align 4
  %s1 = getelementptr [4 x float], ptr addrspace(3) @partial, i32 0, i32 1
  %w1 = load float, ptr addrspace(3) %s1, align 4
  %s2 = getelementptr [4 x float], ptr addrspace(3) @partial, i32 0, i32 2
  %w2 = load float, ptr addrspace(3) %s2, align 4
  %s3 = getelementptr [4 x float], ptr addrspace(3) @partial, i32 0, i32 3
  %w3 = load float, ptr addrspace(3) %s3, align 4
  %w01 = call float @llvm.maxnum.f32(float %w0, float %w1)
  %w23 = call float @llvm.maxnum.f32(float %w2, float %w3)
  %rowmax = call float @llvm.maxnum.f32(float %w01, float %w23)
  call void @llvm.nvvm.barrier0()
  br label %exp

exp:
  %j = phi i32 [ 0, %join_max ], [ %j.next, %exp ]
  %s = phi float [ 0.0, %join_max ], [ %s.next, %exp ]
  %jcol0 = mul i32 %j, 128
  %jcol = add i32 %jcol0, %tid
  %jin = icmp slt i32 %jcol, %n
  %jidx = add i32 %rowbase, %jcol
  %jidx64 = sext i32 %jidx to i64
  %jp = getelementptr float, ptr addrspace(1) %x, i64 %jidx64
  %jv = call float asm sideeffect "mov.b32 $0, 0xff800000;\0A\09@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %jp, i1 %jin)
  %d = fsub float %jv, %rowmax
  %dl = fmul float %d, 0x3FF7154760000000
  %e = call float @llvm.nvvm.ex2.approx.f(float %dl)
  %s.next = fadd float %s, %e
  %j.next = add i32 %j, 1
  %jagain = icmp ult i32 %j.next, 4
  br i1 %jagain, label %exp, label %reduce_sum

reduce_sum:
  %t1 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s.next, i32 16, i32 31)
  %t1x = fadd float %s.next, %t1
  %t2 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %t1x, i32 8, i32 31)
  %t2x = fadd float %t1x, %t2
  %t3 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %t2x, i32 4, i32 31)
  %t3x = fadd float %t2x, %t3
  %t4 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %t3x, i32 2, i32 31)
  %t4x = fadd float %t3x, %t4
  %t5 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %t4x, i32 1, i32 31)
  %t5x = fadd float %t4x, %t5
  br i1 %first, label %store_sum, label %join_sum

store_sum:
  store float %t5x, ptr addrspace(3) %slot, align 4
  br label %join_sum

join_sum:
  call void @llvm.nvvm.barrier0()
  %u0 = load float, ptr addrspace(3) @partial, align 4
  %u1 = load float, ptr addrspace(3) %s1, align 4
  %u2 = load float, ptr addrspace(3) %s2, align 4
  %u3 = load float, ptr addrspace(3) %s3, align 4
  %u01 = fadd float %u0, %u1
  %u23 = fadd float %u2, %u3
  %rowsum = fadd float %u01, %u23
  br label %write

write:
  %i = phi i32 [ 0, %join_sum ], [ %i.next, %write ]
  %icol0 = mul i32 %i, 128
  %icol = add i32 %icol0, %tid
  %iin = icmp slt i32 %icol, %n
  %iidx = add i32 %rowbase, %icol
  %iidx64 = sext i32 %iidx to i64
  %ip = getelementptr float, ptr addrspace(1) %x, i64 %iidx64
  %iv = call float asm sideeffect "mov.b32 $0, 0xff800000;\0A\09@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %ip, i1 %iin)
  %id = fsub float %iv, %rowmax
  %idl = fmul float %id, 0x3FF7154760000000
  %ie = call float @llvm.nvvm.ex2.approx.f(float %idl)
  %q = fdiv float %ie, %rowsum
  %op = getelementptr float, ptr addrspace(1) %out, i64 %iidx64
  call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], $0;", "r,l,b"(float %q, ptr addrspace(1) %op, i1 %iin)
  %i.next = add i32 %i, 1
  %iagain = icmp ult i32 %i.next, 4
  br i1 %iagain, label %write, label %done

done:
  ret void
}

define void @scaled_add(ptr addrspace(1) noalias %x, ptr addrspace(1) noalias %y, ptr addrspace(1) noalias %out, float %alpha, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base0 = shl i32 %block, 9
  %t4 = shl i32 %tid, 2
  %base = add i32 %base0, %t4
  %last = add i32 %base, 3
  %full = icmp slt i32 %last, %n
  br i1 %full, label %vector, label %tail

vector:
  %b64 = sext i32 %base to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %b64
  %py = getelementptr float, ptr addrspace(1) %y, i64 %b64
  %po = getelementptr float, ptr addrspace(1) %out, i64 %b64
  %vx = load <4 x float>, ptr addrspace(1) %px, align 16
  %vy = load <4 x float>, ptr addrspace(1) %py, align 16
  %ins = insertelement <4 x float> poison, float %alpha, i32 0
  %va = shufflevector <4 x float> %ins, <4 x float> poison, <4 x i32> zeroinitializer
  %vm = fmul <4 x float> %vx, %va
  %vs = fadd <4 x float> %vm, %vy
  store <4 x float> %vs, ptr addrspace(1) %po, align 16
  ret void

tail:
  %k = phi i32 [ 0, %entry ], [ %k.next, %tail_next ]
  %i = add i32 %base, %k
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %tail_body, label %tail_next

tail_body:
  %i64 = sext i32 %i to i64
  %qx = getelementptr float, ptr addrspace(1) %x, i64 %i64
  %qy = getelementptr float, ptr addrspace(1) %y, i64 %i64
  %qo = getelementptr float, ptr addrspace(1) %out, i64 %i64
  %ex = load float, ptr addrspace(1) %qx, align 4
  %ey = load float, ptr addrspace(1) %qy, align 4
  %em = fmul float %ex, %alpha
  %es = fadd float %em, %ey
  store float %es, ptr addrspace(1) %qo, align 4
  br label %tail_next

tail_next:
  %k.next = add i32 %k, 1
  %more = icmp ult i32 %k.next, 4
  br i1 %more, label %tail, label %done

done:
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @row_softmax, !"kernel", i32 1}
!1 = !{ptr @row_softmax, !"maxntidx", i32 128}
!2 = !{ptr @scaled_add, !"kernel", i32 1}
!3 = !{ptr @scaled_add, !"maxntidx", i32 128}
