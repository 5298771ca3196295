#!/bin/sh
# ptx_rewrite.sh D4R_KERNEL PTX_DIR RECIPE: `d4r-kernel ptx rewrite` with the example recipe on the
# surface-store fixture: every sust. becomes a call of a d4r_sust_ helper, the counts go to stderr,
# -o writes the same text, and the output parses again (ptx inspect). Bad invocations fail.
set -u
kernel=$1
ptx_dir=$2
recipe=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/d4r-ptx-rewrite.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
  echo "ptx_rewrite: $*" >&2
  exit 1
}

expect_status() {
  want=$1
  shift
  "$kernel" "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "d4r-kernel $*: exit $got, want $want; stderr: $(cat "$work/err")"
}

input=$ptx_dir/surface_store.sm_86.ptx
grep -q 'sust\.' "$input" || fail "$input has no sust. to rewrite"

expect_status 0 ptx rewrite --recipe "$recipe" "$input"
cp "$work/out" "$work/stdout.ptx"
if grep -q 'sust\.' "$work/stdout.ptx"; then
  fail "sust. left after the rewrite: $(grep 'sust\.' "$work/stdout.ptx")"
fi
grep -q 'call.*d4r_sust_' "$work/stdout.ptx" || fail "no call of a d4r_sust_ helper"
grep -q '\.extern \.func.*d4r_sust_' "$work/stdout.ptx" || fail "no .extern .func d4r_sust_ declaration"
grep -Eq '^sust: [1-9][0-9]* rewrites?$' "$work/err" || fail "no sust count: $(cat "$work/err")"
grep -q '^roundf: unchanged$' "$work/err" || fail "no roundf report: $(cat "$work/err")"
grep -q '^fp8-cvt: unchanged$' "$work/err" || fail "no fp8-cvt report: $(cat "$work/err")"
# Every entry survives, and the printed module is PTX the reader takes again.
for entry in store_rgba16f store_rg16f store_rgba32f_formatted store_r32_packed; do
  grep -q "\.entry $entry(" "$work/stdout.ptx" || fail "entry $entry lost"
done
expect_status 0 ptx inspect "$work/stdout.ptx"
grep -q 'entries        4' "$work/out" || fail "rewritten module: $(cat "$work/out")"

expect_status 0 ptx rewrite --recipe "$recipe" "$input" -o "$work/o.ptx"
[ ! -s "$work/out" ] || fail "-o also printed to stdout"
cmp -s "$work/o.ptx" "$work/stdout.ptx" || fail "-o wrote other text than stdout"

expect_status 2 ptx rewrite "$input"
grep -q -- '--recipe R is required' "$work/err" || fail "missing --recipe: $(cat "$work/err")"
expect_status 2 ptx rewrite --recipe "$recipe" "$input" --module xyz
expect_status 6 ptx rewrite --recipe "$recipe" "$input" --module 0000000000000001
expect_status 6 ptx rewrite --recipe "$recipe" "$input" --target gfx1100
grep -q 'does not build for target gfx1100' "$work/err" || fail "target: $(cat "$work/err")"
expect_status 6 ptx rewrite --recipe "$recipe" "$ptx_dir/rr_module.ptx"
grep -q 'serves none of its entries' "$work/err" || fail "unserved: $(cat "$work/err")"
echo "ptx_rewrite: ok"
