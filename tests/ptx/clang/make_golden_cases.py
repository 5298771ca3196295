#!/usr/bin/env python3
"""Writes tests/golden/cases/clang_*.case: a copy of every nvcc golden case pointed at the clang build
of the same source (tests/ptx/regenerate_clang.sh), same kernel and inputs, and
clang_nocudainc_*.case for the sr_module/rr_module cases on the -nocudainc build. The outputs were
recorded from these files on the H200 (tests/golden/expected/clang_*); if an nvcc case changes its
inputs, run this again and record the clang copies again. clang_llc_*.case are written by hand.

Where the clang build computes something the PTX leaves open, the copy says so on a compare line
(OVERRIDES).
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
CASES = os.path.join(ROOT, 'tests', 'golden', 'cases')

SQRT = ('compare = out0 ulp 1   # clang writes sqrtf (o[31]) as sqrt.approx.f32 (nvcc: sqrt.rn): '
        "the GPU's approximation")
TWO_NANS = ('compare = out0 ulp 0   # x + y etc. of two NaNs: which one comes out follows ptxas\'s operand '
            "order, not the PTX's (this build: y, nvcc's: x); any NaN against any NaN, the rest exact")
COPYSIGN = ('compare = out0 ulp 0   # LLVM writes copysignf as abs, neg, selp: ptxas folds that into bit '
            "operations that keep x's NaN payload, the executor's abs makes it canonical (nan_bits.cu: "
            'bits by context); the rest exact')
AS_FLOAT = '   # the u32 bits, read as f32 so that a NaN compares with any NaN'

# case -> (output, compare line, whether that output's u32 buffer is read as f32)
OVERRIDES = {
    'float_arith_edges': ('out0', SQRT, False),
    'float_arith_random': ('out0', SQRT, False),
    'float_arith_ftz_edges': ('out0', SQRT, False),
    'float_arith_ftz_random': ('out0', SQRT, False),
    'double_arith_edges': ('out0', TWO_NANS, False),
    'double_arith_random': ('out0', TWO_NANS, False),
    'float_minmax_edges': ('out0', COPYSIGN, True),
    'float_minmax_random': ('out0', COPYSIGN, True),
}

MMA_NOTE = (
    '# clang writes mma_tile for sm_89/sm_90 as PTX ISA 8.5 with an e4m3 mma.sync that needs 8.7, which\n'
    '# the driver refuses; this case runs the sm_80 build (the e4m3 kernel is its C++ fallback there).\n')


def clang_path(ptx):
    rel = ptx[len('tests/ptx/'):]
    folder, name = os.path.split(rel)
    if name in ('sr_module.ptx', 'rr_module.ptx'):
        name = name.replace('.ptx', '.sm_86.ptx')
    note = ''
    if name == 'mma_tile.sm_90.ptx':
        name, note = 'mma_tile.sm_80.ptx', MMA_NOTE
    return os.path.join('tests/ptx/clang', folder, name), note


def override(text, output, compare, as_float):
    lines = [line for line in text.splitlines() if not re.match(r'compare\s*=\s*' + output + r'\s', line)]
    if as_float:
        assert output == 'out0', 'the u32 buffer read as f32 is the first out buffer'
        lines = [re.sub(r'^(param\s*=\s*buffer out )u32 (\d+)\s*$', r'\1f32 \2' + AS_FLOAT, line, count=1)
                 for line in lines]
    return '\n'.join(lines) + '\n' + compare + '\n'


def write(name, text):
    with open(os.path.join(CASES, name), 'w') as out:
        out.write(text)


def main():
    skipped = []
    written = 0
    for file in sorted(os.listdir(CASES)):
        if not file.endswith('.case') or file.startswith('clang_'):
            continue
        case = file[:-5]
        text = open(os.path.join(CASES, file)).read()
        ptx = re.search(r'^ptx\s*=\s*(\S+)', text, re.M).group(1)
        kernel = re.search(r'^kernel\s*=\s*(\S+)', text, re.M).group(1)
        target, note = clang_path(ptx)
        body = open(os.path.join(ROOT, target)).read() if os.path.exists(os.path.join(ROOT, target)) else ''
        if not re.search(r'\.entry\s+' + re.escape(kernel) + r'\(', body):
            skipped.append('%s: %s has no entry %s' % (case, target, kernel))
            continue
        missing = [g for g in re.findall(r'^global\s*=\s*(\S+)', text, re.M)
                   if not re.search(r'\s' + re.escape(g) + r'[\[;\s]', body)]
        if missing:
            # clang folds static __device__ variables that only the host writes (internal linkage).
            skipped.append('%s: %s has no module variable %s' % (case, target, ', '.join(missing)))
            continue
        expected = os.path.join(ROOT, 'tests', 'golden', 'expected', 'clang_' + case)
        if not (os.path.exists(expected + '.out0.bin') or os.path.exists(expected + '.trap')):
            skipped.append('%s: not recorded yet (tools/golden/record.sh, then copy expected/clang_%s.*)'
                           % (case, case))
            continue
        copy = text.replace('ptx    = ' + ptx, 'ptx    = ' + target)
        assert target in copy, case
        if case in OVERRIDES:
            copy = override(copy, *OVERRIDES[case])
        head = '# clang-19 build (tests/ptx/regenerate_clang.sh) of the case %s: the same kernel, source and inputs.\n' % case
        write('clang_%s.case' % case, head + note + copy)
        written += 1
        recorded = os.path.join(ROOT, 'tests', 'golden', 'expected', 'clang_nocudainc_' + case[len('corpus_'):])
        if (case.startswith('corpus_sr_') or case.startswith('corpus_rr_')) and os.path.exists(recorded + '.out0.bin'):
            module = 'sr_module' if case.startswith('corpus_sr_') else 'rr_module'
            nocudainc = re.sub(r'^ptx\s*=.*$', 'ptx    = tests/ptx/clang/nocudainc/%s.sm_80.ptx' % module, text,
                               count=1, flags=re.M)
            write('clang_nocudainc_%s.case' % case[len('corpus_'):],
                  '# clang-19 -nocudainc -nocudalib build (tests/ptx/regenerate_clang.sh, shim/d4r_nocudainc.h) '
                  'of the case %s: the same kernel, source and inputs.\n' % case + nocudainc)
            written += 1
    print('make_golden_cases.py: %d written' % written)
    for line in skipped:
        print('make_golden_cases.py: skipped ' + line)


if __name__ == '__main__':
    sys.exit(main())
