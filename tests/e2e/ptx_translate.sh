#!/bin/sh
# ptx_translate.sh D4R_KERNEL OBJDUMP REPO: `d4r-kernel ptx translate` and `ptx run` on our PTX.
# translate: the recipe's passes, then our translator, make a gfx1201 code object that holds the
# asked kernel and only it; --emit-llvm shows host IR; an unknown instruction is exit 6 with
# "unsupported:". run: a golden case on the CPU executor equals what the H200 computed (exit 0),
# and a changed expected file is a mismatch (exit 1); a case that traps on the GPU traps here too
# (exit 0), and the same launch made to stay inside the surface is a mismatch (exit 1).
set -u
kernel=$1
objdump=$2
repo=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/d4r-ptx-translate.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
  echo "ptx_translate: $*" >&2
  exit 1
}

expect_status() {
  want=$1
  shift
  "$kernel" "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "d4r-kernel $*: exit $got, want $want; stderr: $(cat "$work/err")"
}

input=$repo/tests/ptx/surface_store.sm_86.ptx
recipe=$repo/tests/fixtures/recipes/tex_rewrite.recipe
expect_status 0 ptx translate "$input" --recipe "$recipe" --kernel store_rgba16f --target gfx1201 \
  -o "$work/k.hsaco"
grep -Eq '^sust: 1 rewrite$' "$work/err" || fail "no sust count: $(cat "$work/err")"
grep -q 'remark' "$work/err" && fail "LLVM remarks leaked: $(cat "$work/err")"
"$objdump" -d --mcpu=gfx1201 "$work/k.hsaco" >"$work/dis" 2>&1 || fail "objdump: $(cat "$work/dis")"
grep -q '<store_rgba16f>:' "$work/dis" || fail "no store_rgba16f in the code object"
grep -q '<store_rg16f>:' "$work/dis" && fail "store_rg16f built though only store_rgba16f was asked"
grep -q 'image_store' "$work/dis" || fail "the rewritten surface store is no image_store"

expect_status 0 ptx translate "$input" --kernel store_rg16f --target host --emit-llvm
grep -q 'define .*@store_rg16f(ptr' "$work/out" || fail "no host kernel in the IR"
grep -q 'd4r_rt_sust_b' "$work/out" || fail "the host IR does not call the surface runtime"

printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}\n' \
  >"$work/unknown.ptx"
expect_status 6 ptx translate "$work/unknown.ptx" --target gfx1100 -o "$work/u.hsaco"
grep -q 'unsupported: tcgen05.fence::before_thread_sync at line 6' "$work/err" || fail "no unsupported error: $(cat "$work/err")"
[ -e "$work/u.hsaco" ] && fail "an output was written for a failed translation"

case_file=$repo/tests/golden/cases/vote.case
ptx=$repo/$(sed -n 's/^ptx *= *//p' "$case_file")
name=$(sed -n 's/^kernel *= *//p' "$case_file")
expect_status 0 ptx run "$ptx" --kernel "$name" --inputs "$case_file" --out "$work"
grep -q 'equals the expected output' "$work/out" || fail "no match reported: $(cat "$work/out")"
cmp -s "$work/out0.bin" "$repo/tests/golden/expected/vote.out0.bin" || fail "out0.bin is not the golden"
# The same case beside a changed expected file: a mismatch, exit 1.
mkdir "$work/changed"
cp "$case_file" "$work/changed/vote.case"
cp "$repo/tests/golden/expected/vote.out0.bin" "$work/changed/vote.out0.bin"
printf '\377' | dd of="$work/changed/vote.out0.bin" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_status 1 ptx run "$ptx" --kernel "$name" --inputs "$work/changed"
grep -q 'differ' "$work/out" || fail "no difference reported: $(cat "$work/out")"
# A .trap surface store one texel left of the image: the H200 failed the launch, so must we.
trap_ptx="$repo/tests/ptx/isa/surface_modes.sm_90.ptx"
trap_case="$repo/tests/golden/cases/surface_trap_store_outside.case"
expect_status 0 ptx run "$trap_ptx" --kernel surface_trap --inputs "$trap_case"
grep -q 'trapped as the case expects: .*sust.b out of range: x -4' "$work/out" || fail "no trap reported: $(cat "$work/out")"
mkdir "$work/inside"
sed 's/^param  = s32 -1$/param  = s32 1/' "$trap_case" > "$work/inside/surface_trap_store_outside.case"
expect_status 1 ptx run "$trap_ptx" --kernel surface_trap --inputs "$work/inside"
grep -q 'completed, but the case expects a trap' "$work/out" || fail "no missing trap reported: $(cat "$work/out")"
echo "ptx_translate: ok"
