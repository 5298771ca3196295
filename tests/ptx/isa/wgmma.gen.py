#!/usr/bin/env python3
# Writes tests/ptx/isa/wgmma.cu and the wgmma_* golden cases (tests/golden/cases) from one table of
# wgmma.mma_async forms: the CUDA needs one inline-asm operand per accumulator register (up to 128),
# and the cases need descriptors whose reads stay inside the kernel's 48 KB shared image, which
# this script checks with the address model lower_wgmma.cpp implements (wgmma_address below).
# Run from anywhere; then build the PTX with the `// d4r-isa-ptx:` line of wgmma.cu.
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
IMAGE_BYTES = 49152


class Op:
    def __init__(self, n, dtype, atype, btype=None, regs=False, sa=1, sb=1, ta=0, tb=0,
                 sat=False, pair=False, sparse=False, sel=0):
        self.n, self.dtype, self.atype = n, dtype, atype
        self.btype = btype or atype
        self.regs, self.sa, self.sb, self.ta, self.tb = regs, sa, sb, ta, tb
        self.sat, self.pair, self.sparse, self.sel = sat, pair, sparse, sel

    @property
    def ebytes(self):  # .b1: the unit is a 32-bit word of 32 K elements (a row's 32 bytes are 8)
        return {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "e4m3": 1, "e5m2": 1, "b1": 4}[self.atype]

    @property
    def k(self):  # B's K in units of ebytes (.b1: words); a sparse A holds k / 2 per row
        return (64 if self.sparse else 32) // self.ebytes

    @property
    def spelled_k(self):
        return 256 if self.atype == "b1" else self.k

    @property
    def a_k(self):
        return self.k // 2 if self.sparse else self.k

    @property
    def words(self):  # D registers per thread
        return self.n // 4 if self.dtype == "f16" else self.n // 2

    @property
    def float_type(self):
        return self.atype in ("f16", "bf16", "tf32", "e4m3", "e5m2")

    def spelling(self):
        sat = ".satfinite" if self.sat else ""
        return "wgmma.mma_async%s.sync.aligned.m64n%dk%d%s.%s.%s.%s%s" % (
            ".sp" if self.sparse else "", self.n, self.spelled_k, sat, self.dtype, self.atype, self.btype,
            ".and.popc" if self.atype == "b1" else "")


KERNELS = {
    "wgmma_f16": [
        Op(8, "f32", "f16", pair=True), Op(16, "f32", "f16", sa=-1),
        Op(64, "f32", "f16", sb=-1, ta=1), Op(128, "f32", "f16", tb=1),
        Op(256, "f32", "f16", ta=1, tb=1), Op(32, "f16", "f16"),
        Op(64, "f16", "f16", sa=-1, sb=-1, ta=1, tb=1), Op(8, "f32", "f16"),
        Op(64, "f32", "f16", regs=True, sb=-1, tb=1), Op(16, "f16", "f16", regs=True, sa=-1),
        Op(24, "f32", "f16"),
    ],
    "wgmma_bf16": [
        Op(8, "f32", "bf16"), Op(64, "f32", "bf16", sa=-1, ta=1), Op(128, "f32", "bf16", tb=1),
        Op(256, "f32", "bf16", sb=-1, ta=1, tb=1), Op(32, "f32", "bf16", regs=True, tb=1),
    ],
    "wgmma_tf32": [
        Op(8, "f32", "tf32"), Op(64, "f32", "tf32", sa=-1), Op(256, "f32", "tf32", sb=-1),
        Op(16, "f32", "tf32", regs=True, sa=-1, sb=-1), Op(40, "f32", "tf32"),
    ],
    "wgmma_int8": [
        Op(8, "s32", "s8"), Op(64, "s32", "u8", "s8", sat=True), Op(128, "s32", "s8", "u8"),
        Op(256, "s32", "u8", sat=True), Op(32, "s32", "s8", regs=True, sat=True),
        Op(16, "s32", "u8", regs=True), Op(8, "s32", "s8"),
    ],
}
# Built into wgmma_more.sm_90a.ptx: FP8 and sparse forms, recorded to learn what the H200 does; both
# translate now (wgmma_fp8_*, wgmma_sp_* bit for bit).
MORE_KERNELS = {
    "wgmma_fp8": [
        Op(8, "f32", "e4m3"), Op(64, "f32", "e5m2", sa=-1), Op(128, "f16", "e4m3", "e5m2"),
        Op(256, "f32", "e5m2", "e4m3", sb=-1), Op(32, "f32", "e4m3", regs=True),
        Op(16, "f16", "e5m2", regs=True),
    ],
    "wgmma_sp": [
        Op(8, "f32", "f16", sparse=True), Op(64, "f32", "f16", sparse=True, sel=1, sa=-1, tb=1),
        Op(32, "f16", "f16", sparse=True, ta=1), Op(16, "f32", "bf16", sparse=True, sel=1),
        Op(8, "s32", "s8", sparse=True), Op(16, "f32", "f16", sparse=True, sel=1),
    ],
}
# wgmma_sparse2.sm_90a.ptx: .sp with .tf32 (1:2) and with A in registers (sp-meta is then the
# word of A's register 0: both come from the metadata list, so every A value is a finite number).
SPARSE2_KERNELS = {
    "wgmma_sp_tf32": [
        Op(8, "f32", "tf32", sparse=True), Op(64, "f32", "tf32", sparse=True, sel=1, sa=-1),
        Op(16, "f32", "tf32", sparse=True, sb=-1),
    ],
    "wgmma_sp_regs": [
        Op(16, "f32", "f16", regs=True, sparse=True), Op(32, "f32", "bf16", regs=True, sparse=True, sel=1, tb=1),
        Op(8, "s32", "s8", regs=True, sparse=True), Op(16, "f16", "f16", regs=True, sparse=True, sel=1, sa=-1),
    ],
}
# wgmma_b1.sm_90a.ptx: .b1 (m64nNk256 .s32.b1.b1.and.popc, the only single-bit form: no .xor, no
# .sp) with A from shared memory or registers; and .sp with FP8 A and B (k64; the selector is 0).
B1_KERNELS = {
    "wgmma_b1": [
        Op(8, "s32", "b1"), Op(64, "s32", "b1"), Op(256, "s32", "b1"), Op(24, "s32", "b1"),
        Op(32, "s32", "b1", regs=True), Op(128, "s32", "b1", regs=True), Op(16, "s32", "b1"),
    ],
    "wgmma_sp_fp8": [
        Op(8, "f32", "e4m3", sparse=True), Op(64, "f32", "e5m2", sparse=True, sa=-1),
        Op(32, "f16", "e4m3", "e5m2", sparse=True), Op(16, "f32", "e5m2", "e4m3", sparse=True, sb=-1),
        Op(16, "f32", "e4m3", regs=True, sparse=True), Op(8, "f16", "e5m2", regs=True, sparse=True),
    ],
}
ALL_KERNELS = dict(KERNELS, **MORE_KERNELS, **SPARSE2_KERNELS, **B1_KERNELS)
# Ops whose scale-d the table gives (the others accumulate): op 7 of wgmma_f16, op 6 of wgmma_int8
# and of wgmma_b1.
SCALE_D_OPS = {("wgmma_f16", 7), ("wgmma_int8", 6), ("wgmma_b1", 6)}


def width_of(mode):
    return {0: 16, 1: 128, 2: 64, 3: 32}[mode]


def wgmma_address(desc, mn, k, ebytes, mn_major):
    """The shared-memory byte address of element (mn, k) of an operand (lower_wgmma.cpp's model)."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    base = (desc >> 49) & 7
    mode = (desc >> 62) & 3
    width = width_of(mode)
    if not mn_major:
        kb = k * ebytes
        if mode == 0:
            off = (mn % 8) * 16 + (mn // 8) * sbo + (kb // 16) * lbo + kb % 16
        else:
            off = (mn % 8) * width + (mn // 8) * sbo + kb
    else:
        mb = mn * ebytes
        if mode == 0:
            off = mb % 16 + (mb // 16) * sbo + (k % 8) * 16 + (k // 8) * lbo
        else:
            off = mb % width + (mb // width) * lbo + (k % 8) * width + (k // 8) * sbo
    addr = (start + off) & 0x3FFFF
    if mode != 0:
        mask = width // 16 - 1
        addr ^= (((addr >> 7) - base) & mask) << 4
    return addr


def encode(start, lbo, sbo, base, mode):
    assert start % 16 == 0 and lbo % 16 == 0 and sbo % 16 == 0
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49 | mode << 62


def extent(desc, rows, op, mn_major, kcount):
    top = 0
    for mn in range(rows):
        for k in range(kcount):
            top = max(top, wgmma_address(desc, mn, k, op.ebytes, mn_major) + op.ebytes)
    return top


def canonical(mode, mn_major, rows, op, kcount):
    """(lbo, sbo) of the layouts CUTLASS builds (tile_to_shape of its GMMA atoms)."""
    width = width_of(mode)
    kbytes = kcount * op.ebytes
    if not mn_major:
        return (128, 128 * kbytes // 16) if mode == 0 else (16, 8 * width)
    if mode == 0:
        return ((rows * op.ebytes // 16) * 128, 128)
    return (kcount // 8 * 8 * width, 8 * width)


def descriptor(rng, policy, rows, op, mn_major, region, kcount=None):
    """A descriptor for one operand under `policy`, reading inside [region, region + 24 KB)."""
    kcount = kcount or op.k
    kbytes = kcount * op.ebytes
    for _ in range(1000):
        if policy in ("none", "sw32", "sw64", "sw128"):
            mode = {"none": 0, "sw128": 1, "sw64": 2, "sw32": 3}[policy]
        else:
            mode = rng.choice([0, 1, 2, 3])
        width = width_of(mode)
        if not mn_major and mode != 0 and width < kbytes:
            continue  # a K-major row narrower than the K extent
        lbo, sbo = canonical(mode, mn_major, rows, op, kcount)
        start = region
        base = 0
        if not mn_major and mode != 0:
            start += kbytes * rng.randrange(width // kbytes)  # a K step inside the swizzle row
        if policy == "mixed":
            lbo = 16 * rng.randrange(1, 160) if rng.random() < 0.5 else lbo
            sbo = 16 * rng.randrange(1, 160) if rng.random() < 0.5 else sbo
            start += 16 * rng.randrange(0, 64) if mode == 0 else 0
        if policy == "base_offset" and mode != 0:
            shift = rng.randrange(1, 8)
            start += 128 * shift
            base = (start >> 7) & 7 if rng.random() < 0.7 else 0
        desc = encode(start, lbo, sbo, base, mode)
        if extent(desc, rows, op, mn_major, kcount) <= region + IMAGE_BYTES // 2:
            return desc
    if policy in ("sw128", "base_offset"):  # 256 K-major rows of 128 bytes exceed the 24 KB half
        return descriptor(rng, "sw64", rows, op, mn_major, region, kcount)
    sys.exit("no descriptor fits for %s %s" % (policy, op.spelling()))


# ---------------------------------------------------------------------------------------------
# CUDA

def op_function(kernel, index, op):
    regs_d = op.words
    is_f32 = op.dtype == "f32"
    ctype = "float" if is_f32 else "unsigned"
    cons = "+f" if is_f32 else "+r"
    load = "__uint_as_float(c[tid * %d + r])" % regs_d if is_f32 else "c[tid * %d + r]" % regs_d
    store = "__float_as_uint(d[r])" if is_f32 else "d[r]"
    d_list = ", ".join("%%%d" % i for i in range(regs_d))
    nxt = regs_d
    if op.regs:
        a_operand = "{%%%d, %%%d, %%%d, %%%d}" % (nxt, nxt + 1, nxt + 2, nxt + 3)
        nxt += 4
    else:
        a_operand = "%%%d" % nxt
        nxt += 1
    b_operand = "%%%d" % nxt
    if op.sparse:
        b_operand += ", %%%d, %d" % (nxt + 1, op.sel)
        nxt += 1
    scale = "%%%d" % (nxt + 1)
    imms = []
    if op.float_type:
        imms += [str(op.sa), str(op.sb)]
        if op.atype in ("f16", "bf16"):
            imms += ([] if op.regs else [str(op.ta)]) + [str(op.tb)]
    tail = "".join(", " + i for i in imms)
    asm = ("{\\n.reg .pred p;\\nsetp.ne.b32 p, %s, 0;\\n%s {%s}, %s, %s, p%s;\\n}\\n"
           % (scale, op.spelling(), d_list, a_operand, b_operand, tail))
    outs = ", ".join('"%s"(d[%d])' % (cons, i) for i in range(regs_d))
    ins = []
    if op.regs:
        ins += ['"r"(a[%d])' % i for i in range(4)]
    else:
        ins.append('"l"(da)')
    ins += ['"l"(db)'] + (['"r"(meta)'] if op.sparse else []) + ['"r"(sd)']
    name = "%s_op%d" % (kernel, index)
    lines = []
    lines.append("// %s%s" % (op.spelling(), " (A in registers)" if op.regs else ""))
    lines.append("__device__ __forceinline__ void %s_issue(%s* d, const Args& x)" % (name, ctype))
    lines.append("{")
    lines.append("    unsigned tid = threadIdx.x;")
    lines.append("    const unsigned* c = x.c%s + x.%s_c;" % ("16" if op.dtype == "f16" else "32", name))
    lines.append("#pragma unroll")
    lines.append("    for (int r = 0; r < %d; ++r) {" % regs_d)
    lines.append("        d[r] = %s;" % load)
    lines.append("    }")
    if op.regs:
        lines.append("    unsigned a[4];")
        lines.append("#pragma unroll")
        lines.append("    for (int r = 0; r < 4; ++r) {")
        lines.append("        a[r] = x.aregs[%d * 512 + tid * 4 + r];" % index)
        lines.append("    }")
    else:
        lines.append("    unsigned long long da = x.table[%d] + x.base;" % (3 * index))
    if op.sparse:
        lines.append("    unsigned meta = x.aregs[%d * 512 + tid * 4];" % index)
    lines.append("    unsigned long long db = x.table[%d] + x.base;" % (3 * index + 1))
    lines.append("    unsigned sd = static_cast<unsigned>(x.table[%d]);" % (3 * index + 2))
    lines.append('    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    lines.append('    asm volatile("%s"' % asm)
    lines.append("                 : %s" % outs)
    lines.append("                 : %s" % ", ".join(ins))
    lines.append('                 : "memory");')
    lines.append("}")
    lines.append("")
    lines.append("__device__ __forceinline__ void %s_store(%s* d, const Args& x)" % (name, ctype))
    lines.append("{")
    lines.append("    unsigned tid = threadIdx.x;")
    lines.append("    unsigned* out = x.out%s + x.%s_c;" % ("16" if op.dtype == "f16" else "32", name))
    lines.append("#pragma unroll")
    lines.append("    for (int r = 0; r < %d; ++r) {" % regs_d)
    lines.append('        asm volatile("" : "%s"(d[r]) :: "memory");' % cons)
    lines.append("        out[tid * %d + r] = %s;" % (regs_d, store))
    lines.append("    }")
    lines.append("}")
    lines.append("")
    return "\n".join(lines)


def c_offsets(ops):
    """Per op, the word offset of its C/D block in c32/out32 or c16/out16, and the totals."""
    offsets, total = [], {"32": 0, "16": 0}
    for op in ops:
        which = "16" if op.dtype == "f16" else "32"
        offsets.append(total[which])
        total[which] += 128 * op.words
    return offsets, total


def kernel_source(kernel, ops):
    offsets, _ = c_offsets(ops)
    out = [op_function(kernel, i, op) for i, op in enumerate(ops)]
    out.append('extern "C" __global__ void __launch_bounds__(128)')
    out.append("%s(const unsigned* image, const unsigned long long* table, const unsigned* c32," % kernel)
    out.append("    const unsigned* c16, const unsigned* aregs, unsigned* out32, unsigned* out16)")
    out.append("{")
    out.append("    __shared__ __align__(1024) unsigned smem[%d];" % (IMAGE_BYTES // 4))
    out.append("    Args x{table, c32, c16, aregs, out32, out16, 0};")
    out.append("    x.base = load_image(smem, image);")
    i = 0
    while i < len(ops):
        op = ops[i]
        ctype = "float" if op.dtype == "f32" else "unsigned"
        if op.pair:
            nxt = ops[i + 1]
            ntype = "float" if nxt.dtype == "f32" else "unsigned"
            out.append("    {")
            out.append("        %s d0[%d];" % (ctype, op.words))
            out.append("        %s d1[%d];" % (ntype, nxt.words))
            out.append("        %s_op%d_issue(d0, x);" % (kernel, i))
            out.append('        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
            out.append("        %s_op%d_issue(d1, x);" % (kernel, i + 1))
            out.append('        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
            out.append('        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");')
            out.append("        %s_op%d_store(d0, x);" % (kernel, i))
            out.append('        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");')
            out.append("        %s_op%d_store(d1, x);" % (kernel, i + 1))
            out.append("    }")
            i += 2
            continue
        out.append("    {")
        out.append("        %s d[%d];" % (ctype, op.words))
        out.append("        %s_op%d_issue(d, x);" % (kernel, i))
        out.append('        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
        out.append('        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");')
        out.append("        %s_op%d_store(d, x);" % (kernel, i))
        out.append("    }")
        i += 1
    out.append("}")
    out.append("")
    return "\n".join(out), offsets


HEADER = """// d4r-isa-ptx: %(ptx)s -arch=sm_90a -O3
%(more)s// Written by wgmma.gen.py (edit that, then run it): wgmma.mma_async (sm_90a), one kernel per input
// type, each a sequence of forms (shapes, accumulator types, imm-scale-a/b = -1, imm-trans-a/b,
// A from shared memory or registers, .satfinite, a scale-d predicate from the table), 128 threads
// (one warpgroup). Every kernel copies its 48 KB input image verbatim into shared memory, so the
// descriptors (the table: per form A, B and scale-d, start addresses relative to the image) decide
// what the H200 reads: every swizzle mode, K-major and MN-major, canonical and odd strides, K steps
// inside a swizzle row, base offsets. C comes per thread in fragment order (c32 for f32/s32, c16
// for f16 pairs) and each thread writes its D registers in the same order, so the outputs check the
// fragment layout, the descriptor layouts and the arithmetic element by element. A in registers:
// aregs[form * 512 + thread * 4 + r]. Between forms: wgmma.fence, commit_group and wait_group 0
// (the first two forms of wgmma_f16 are in flight together: wait_group 1, then 0).
#include "isa_common.cuh"

namespace {

struct Args {
    const unsigned long long* table;
    const unsigned* c32;
    const unsigned* c16;
    const unsigned* aregs;
    unsigned* out32;
    unsigned* out16;
    unsigned long long base; // the image's shared address >> 4 (a descriptor's start field)
%(fields)s
};

__device__ __forceinline__ unsigned long long load_image(unsigned* smem, const unsigned* image)
{
    for (unsigned i = threadIdx.x; i < %(words)d; i += 128) {
        smem[i] = image[i];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    return static_cast<unsigned long long>(__cvta_generic_to_shared(smem) >> 4);
}

} // namespace

"""


MORE_NOTE = """// The FP8 (e4m3/e5m2) and sparse (wgmma.mma_async.sp: sp-meta from aregs[form * 512 + thread * 4],
// sparsity selector an immediate) forms, kept apart from wgmma.cu, recorded to learn the H200's
// FP8 sums and sparse metadata layout (lower_wgmma.cpp: wgmma_fp8_*, wgmma_sp_* bit for bit).
"""


B1_NOTE = """// .b1 (wgmma_b1: D = C + popc(A row AND B column) over 256 bits, a row of A and a column of B
// being 32 bytes, 8 words of 32 K elements, low bits first) and FP8 .sp (wgmma_sp_fp8: sp-meta from
// aregs[form * 512 + thread * 4], selector 0, the only one the 8-bit forms allow).
"""


def write_cuda(name, kernels, more):
    fields, bodies, all_offsets = [], [], {}
    for kernel, ops in kernels.items():
        body, offsets = kernel_source(kernel, ops)
        bodies.append(body)
        all_offsets[kernel] = offsets
        for i in range(len(ops)):
            fields.append("    unsigned %s_op%d_c = %d;" % (kernel, i, offsets[i]))
    text = HEADER % {"fields": "\n".join(fields), "words": IMAGE_BYTES // 4,
                     "ptx": name + ".sm_90a.ptx", "more": more or ""}
    text += "\n".join(bodies)
    with open(os.path.join(HERE, name + ".cu"), "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# Cases

FILLS = {  # image, c32, c16, aregs
    "wgmma_f16": ("f16 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", "f16 %d range -1 1"),
    "wgmma_bf16": ("bf16 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", "bf16 %d range -1 1"),
    "wgmma_tf32": ("f32 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", "f32 %d range -1 1"),
    "wgmma_int8": ("u32 %d random", "u32 %d random", "u32 %d random", "u32 %d random"),
}
EDGE_FILLS = {
    "wgmma_f16": ("f16 %d floats", "f32 %d floats", "f16 %d floats", "f16 %d floats"),
    "wgmma_bf16": ("bf16 %d floats", "f32 %d floats", "f16 %d floats", "bf16 %d floats"),
    "wgmma_tf32": ("f32 %d floats", "f32 %d floats", "f16 %d floats", "f32 %d floats"),
}

INT_FILLS = {  # small integers: every sum is exact, so these cases check layouts alone
    "wgmma_f16": ("f16 %d ints -4 4", "f32 %d ints -8 8", "f16 %d ints -8 8", "f16 %d ints -4 4"),
    "wgmma_bf16": ("bf16 %d ints -4 4", "f32 %d ints -8 8", "f16 %d ints -8 8", "bf16 %d ints -4 4"),
    "wgmma_tf32": ("f32 %d ints -4 4", "f32 %d ints -8 8", "f16 %d ints -8 8", "f32 %d ints -4 4"),
}

CASES = [  # name, kernel, policy, fills, note
    ("wgmma_f16_none", "wgmma_f16", "none", FILLS, "no swizzling, canonical strides"),
    ("wgmma_f16_sw32", "wgmma_f16", "sw32", FILLS, "32-byte swizzling, canonical strides"),
    ("wgmma_f16_sw64", "wgmma_f16", "sw64", FILLS, "64-byte swizzling, K steps inside the row"),
    ("wgmma_f16_sw128", "wgmma_f16", "sw128", FILLS, "128-byte swizzling, K steps inside the row"),
    ("wgmma_f16_mixed", "wgmma_f16", "mixed", FILLS,
     "each operand its own mode, odd LBO/SBO and start offsets"),
    ("wgmma_f16_base_offset", "wgmma_f16", "base_offset", FILLS,
     "swizzle patterns that start off their boundary, with and without the base offset"),
    ("wgmma_f16_edges", "wgmma_f16", "sw128", EDGE_FILLS,
     "edge-heavy values (NaN, infinities, subnormals), 128-byte swizzling"),
    ("wgmma_bf16_sw128", "wgmma_bf16", "sw128", FILLS, "128-byte swizzling"),
    ("wgmma_bf16_mixed", "wgmma_bf16", "mixed", FILLS, "mixed modes and strides"),
    ("wgmma_tf32_none", "wgmma_tf32", "none", FILLS, "no swizzling (tf32 low 13 bits random)"),
    ("wgmma_tf32_sw64", "wgmma_tf32", "sw64", FILLS, "64-byte swizzling"),
    ("wgmma_tf32_mixed", "wgmma_tf32", "mixed", FILLS, "mixed modes and strides"),
    ("wgmma_int8_sw32", "wgmma_int8", "sw32", FILLS, "32-byte swizzling, full-range s32 C"),
    ("wgmma_int8_mixed", "wgmma_int8", "mixed", FILLS, "mixed modes and strides"),
    ("wgmma_f16_ints", "wgmma_f16", "mixed", INT_FILLS, "small integers (exact sums), mixed modes"),
    ("wgmma_bf16_ints", "wgmma_bf16", "mixed", INT_FILLS, "small integers (exact sums), mixed modes"),
    ("wgmma_tf32_ints", "wgmma_tf32", "mixed", INT_FILLS, "small integers (exact sums), mixed modes"),
]


def metadata_list(seed, tf32=False):
    """128 sp-meta words (one per thread, repeat=4 over aregs' words): every nibble two distinct
    ascending 2-bit indices, the only valid kind (.tf32: 0b0100 or 0b1110, element 0 or 1)."""
    rng = random.Random(seed)
    nibbles = [0x4, 0xE] if tf32 else [0x4, 0x8, 0xC, 0x9, 0xD, 0xE]
    words = []
    for _ in range(128):
        w = 0
        for i in range(8):
            w |= rng.choice(nibbles) << (4 * i)
        words.append("0x%x" % w)
    return "u32 %d list " + " ".join(words) + " repeat=4"


FP8_SMALL = ("u32 %d random and=0xbfbfbfbf", "f32 %d range -1 1", "f16 %d range -1 1",
             "u32 %d random and=0xbfbfbfbf")
FP8_ALL = ("u32 %d random", "f32 %d range -1 1", "f16 %d range -1 1", "u32 %d random")
MORE_CASES = [
    ("wgmma_fp8_small", "wgmma_fp8", "mixed", {"wgmma_fp8": FP8_SMALL},
     "FP8 without NaN or infinities (bit 6 of every byte clear), mixed modes"),
    ("wgmma_fp8_random", "wgmma_fp8", "sw64", {"wgmma_fp8": FP8_ALL},
     "FP8 from any bytes (NaN, infinities), 64-byte swizzling"),
    ("wgmma_sp_ints", "wgmma_sp", "mixed",
     {"wgmma_sp": ("f16 %d ints -4 4", "f32 %d ints -8 8", "f16 %d ints -8 8", metadata_list(1))},
     "sparse A, small integers (exact sums): the metadata mapping alone"),
    ("wgmma_sp_range", "wgmma_sp", "sw128",
     {"wgmma_sp": ("f16 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", metadata_list(2))},
     "sparse A, values in [-1, 1): the rounding"),
    ("wgmma_sp_tf32_ints", "wgmma_sp_tf32", "mixed",
     {"wgmma_sp_tf32": ("f32 %d ints -4 4", "f32 %d ints -8 8", "f16 %d ints -8 8", metadata_list(3, True))},
     "sparse .tf32 A (1:2), small integers: the metadata mapping"),
    ("wgmma_sp_tf32_range", "wgmma_sp_tf32", "sw128",
     {"wgmma_sp_tf32": ("f32 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", metadata_list(4, True))},
     "sparse .tf32 A (1:2), values in [-1, 1)"),
    ("wgmma_sp_regs", "wgmma_sp_regs", "mixed",
     {"wgmma_sp_regs": ("f16 %d range -1 1", "f32 %d range -1 1", "f16 %d range -1 1", metadata_list(5))},
     "sparse A in registers (A's words are the metadata words)"),
]

# .b1: random bits, sparse bits (few set, so a wrong pairing of A and B bits shows), all ones, all
# zeros, and single bits at the K boundaries (bit 0 and 31 of a word: K 0, 31, 32, ..., 255).
SINGLE_BITS = ("u32 %d list 0x1 0x80000000 0x0 0x10000 0x8000 0x0 0x0 0x1 0x80000000 0x0 0x0 0x0 "
               "0x80000001 0x0 0x1 0x0 0x0 0x0 0x80000000 repeat=3")
B1_RANDOM = ("u32 %d random", "s32 %d random", "f16 %d range -1 1", "u32 %d random")
B1_SPARSE = ("u32 %d random and=0x11111111", "s32 %d random", "f16 %d range -1 1",
             "u32 %d random and=0x01020408")
B1_ONES = ("u32 %d const 0xffffffff", "s32 %d list 0 -1 2147483647 -2147483648 2147483392 -256 2147483391",
           "f16 %d range -1 1", "u32 %d const 0xffffffff")
B1_ZEROS = ("u32 %d const 0", "s32 %d random", "f16 %d range -1 1", "u32 %d const 0")
B1_SINGLE = (SINGLE_BITS, "s32 %d ints -8 8", "f16 %d range -1 1", SINGLE_BITS.replace("repeat=3", "repeat=5"))
FP8_SP = metadata_list(11)
B1_CASES = [
    ("wgmma_b1_random", "wgmma_b1", "mixed", {"wgmma_b1": B1_RANDOM},
     "random bits, full-range s32 C (wrapping sums), mixed modes and strides"),
    ("wgmma_b1_none", "wgmma_b1", "none", {"wgmma_b1": B1_SPARSE}, "sparse bits, no swizzling"),
    ("wgmma_b1_sw32", "wgmma_b1", "sw32", {"wgmma_b1": B1_SPARSE}, "sparse bits, 32-byte swizzling"),
    ("wgmma_b1_sw64", "wgmma_b1", "sw64", {"wgmma_b1": B1_RANDOM}, "random bits, 64-byte swizzling"),
    ("wgmma_b1_sw128", "wgmma_b1", "sw128", {"wgmma_b1": B1_SPARSE}, "sparse bits, 128-byte swizzling"),
    ("wgmma_b1_base_offset", "wgmma_b1", "base_offset", {"wgmma_b1": B1_SPARSE},
     "sparse bits, swizzle patterns off their boundary"),
    ("wgmma_b1_ones", "wgmma_b1", "mixed", {"wgmma_b1": B1_ONES},
     "every bit set (popc 256 each), C at the s32 edges (wrapping)"),
    ("wgmma_b1_zeros", "wgmma_b1", "sw128", {"wgmma_b1": B1_ZEROS}, "no bit set: D = C"),
    ("wgmma_b1_single", "wgmma_b1", "mixed", {"wgmma_b1": B1_SINGLE},
     "single bits at K boundaries (bits 0 and 31 of words), mixed modes"),
    ("wgmma_sp_fp8_small", "wgmma_sp_fp8", "mixed",
     {"wgmma_sp_fp8": ("u32 %d random and=0xbfbfbfbf", "f32 %d range -1 1", "f16 %d range -1 1", FP8_SP)},
     "sparse FP8 A and B (k64) without NaN or infinities, mixed modes"),
    ("wgmma_sp_fp8_tiny", "wgmma_sp_fp8", "sw128",
     {"wgmma_sp_fp8": ("u32 %d random and=0x3b3b3b3b", "f32 %d ints -8 8", "f16 %d ints -8 8", metadata_list(12))},
     "sparse FP8 of small magnitude (bits 6 and 2 of every byte clear), small-integer C"),
    ("wgmma_sp_fp8_random", "wgmma_sp_fp8", "sw64",
     {"wgmma_sp_fp8": ("u32 %d random", "f32 %d range -1 1", "f16 %d range -1 1", metadata_list(13))},
     "sparse FP8 from any bytes (NaN, infinities), 64-byte swizzling"),
]


def write_case(name, kernel, policy, fills, note, seed):
    ops = ALL_KERNELS[kernel]
    rng = random.Random(seed)
    table = []
    for i, op in enumerate(ops):
        a_desc = 0 if op.regs else descriptor(rng, policy, 64, op, op.ta == 1, 0, op.a_k)
        b_desc = descriptor(rng, policy, op.n, op, op.tb == 1, IMAGE_BYTES // 2)
        scale_d = 1
        if (kernel, i) in SCALE_D_OPS:
            scale_d = 0 if seed % 2 == 0 else 1
        table += [a_desc, b_desc, scale_d]
    _, total = c_offsets(ops)
    image_fill, c32_fill, c16_fill, a_fill = fills[kernel]
    ebits = 16 if image_fill.startswith(("f16", "bf16")) else 32
    image_count = IMAGE_BYTES * 8 // ebits
    a_count = len(ops) * 512 * (2 if a_fill.startswith(("f16", "bf16")) else 1)
    source = ("wgmma_more" if kernel in MORE_KERNELS else "wgmma_sparse2" if kernel in SPARSE2_KERNELS
              else "wgmma_b1" if kernel in B1_KERNELS else "wgmma")
    def with_seed(fill, count, s):
        return fill % count if " list " in fill or " const " in fill else "%s seed=%d" % (fill % count, s)
    lines = ["# %s (tests/ptx/isa/%s.cu, written by wgmma.gen.py): %s." % (kernel, source, note),
             "# The table holds per form the A and B descriptors (start relative to the image) and",
             "# scale-d; out0 is c32's forms' D, out1 c16's, per thread in fragment order." +
             ("" if total["16"] else "\n# No form here has an f16 D: out1 is never written (it stays 0xCD)."),
             "ptx    = tests/ptx/isa/%s.sm_90a.ptx" % source,
             "kernel = %s" % kernel,
             "grid   = 1 1 1",
             "block  = 128 1 1",
             "param  = buffer in %s" % with_seed(image_fill, image_count, seed * 10 + 1),
             "param  = buffer in u64 %d list %s" % (len(table), " ".join("0x%x" % v for v in table)),
             "param  = buffer in %s" % with_seed(c32_fill, max(total["32"], 1), seed * 10 + 2),
             "param  = buffer in %s" % with_seed(c16_fill, max(2 * total["16"], 2), seed * 10 + 3),
             "param  = buffer in %s" % with_seed(a_fill, a_count, seed * 10 + 4)]
    out_type = "s32" if kernel in ("wgmma_int8", "wgmma_b1") else "f32"  # wgmma_sp's s8 form: raw s32 bits
    lines.append("param  = buffer out %s %d" % (out_type, max(total["32"], 1)))
    lines.append("param  = buffer out f16 %d" % max(2 * total["16"], 2))
    path = os.path.join(ROOT, "tests", "golden", "cases", name + ".case.pending")
    if os.path.exists(os.path.join(ROOT, "tests", "golden", "cases", name + ".case")):
        path = os.path.join(ROOT, "tests", "golden", "cases", name + ".case")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    write_cuda("wgmma", KERNELS, None)
    write_cuda("wgmma_more", MORE_KERNELS, MORE_NOTE)
    write_cuda("wgmma_sparse2", SPARSE2_KERNELS, MORE_NOTE)
    write_cuda("wgmma_b1", B1_KERNELS, B1_NOTE)
    for index, (name, kernel, policy, fills, note) in enumerate(CASES):
        write_case(name, kernel, policy, fills, note, 7300 + index)
    for index, (name, kernel, policy, fills, note) in enumerate(MORE_CASES):
        write_case(name, kernel, policy, fills, note, 7400 + index)
    for index, (name, kernel, policy, fills, note) in enumerate(B1_CASES):
        write_case(name, kernel, policy, fills, note, 7500 + index)


if __name__ == "__main__":
    main()
