#!/bin/sh
# ptx_inspect_limits.sh D4R_KERNEL D4R_MAKE_FATBIN: `d4r-kernel ptx inspect` under a 1.5 GiB
# address-space limit (ulimit -v) on a 6 MiB fatbin of six LZ4 entries that each really expand to
# 255 MiB, laid out as nvcc writes LZ4 (80-byte headers, padded blocks):
# - with the default limit in all (1 GiB) it stops at the fifth entry with a clear error and exit
#   status 6, not an abort (std::bad_alloc) and not a crash;
# - with --max-decompressed 2G it lists all six: 1 530 MiB in all, which with the program itself
#   (about 230 MiB of address space) does not fit in 1.5 GiB, so this passes only if the entries are
#   decompressed and dropped one at a time (measured: 0.49 GiB at the peak);
# - with --max-decompressed 100M the first entry is over the limit and nothing is decompressed.
set -u
cli=$1
make_fatbin=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

entry=267386880 # 255 MiB
"$make_fatbin" "$work/huge.fatbin" --huge $entry --huge $entry --huge $entry --huge $entry \
  --huge $entry --huge $entry || exit 1

# limited STATUS ARGS...: the tool under the address-space limit, stdin from /dev/null.
limited() {
  want=$1
  shift
  (ulimit -v 1572864 && exec "$cli" "$@") </dev/null >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "d4r-kernel $* exited $got, expected $want: $(tail -c 600 "$work/err")"
}

limited 6 ptx inspect "$work/huge.fatbin"
grep -q 'entry at offset [0-9]*: its 267386880 bytes of PTX would take the input past the 1024 MiB limit on decompressed PTX in all (1069547520 bytes so far) (--max-decompressed SIZE raises the limit in all)' "$work/err" ||
  fail "limit in all: $(cat "$work/err")"

limited 0 ptx inspect "$work/huge.fatbin" --max-decompressed 2G --json
python3 - "$work/out" <<'PY' || fail "--max-decompressed 2G: $(head -c 600 "$work/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
modules = doc["modules"]
assert len(modules) == 6, len(modules)
for i, m in enumerate(modules):
    assert m["size"] == 267386879, m["size"]  # the declared size less the terminating NUL
    assert m["compression"] == "lz4" and m["arch"] == "sm_86", m
    assert m["entries"] == ["huge_%d" % (i + 1)], m["entries"]
assert len({m["sha256"] for m in modules}) == 6
PY

limited 6 ptx inspect "$work/huge.fatbin" --max-decompressed 100M
grep -q 'entry at offset 16: 267386880 bytes of PTX (lz4) are over the 100 MiB limit for one entry' "$work/err" ||
  fail "limit for one entry: $(cat "$work/err")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "ptx_inspect_limits: ok"
