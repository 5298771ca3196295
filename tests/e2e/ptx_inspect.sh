#!/bin/sh
# ptx_inspect.sh D4R_KERNEL PTX_DIR FATBIN_DIR: `d4r-kernel ptx inspect` on the sr fixture, as JSON
# and as text (module hash and its five entries), on fatbins nvcc wrote (ZSTD, the 1 527-byte kernel
# name, cubins listed as skipped), and its exit statuses on bad input.
set -u
cli=$1
ptx_dir=$2
fatbin_dir=$3
. "$(dirname "$0")/cli_lib.sh" # $work, fail, expect_status, expect_json_stdout, finish

expect_status 0 ptx inspect "$ptx_dir/sr_module.ptx" --json
python3 - "$work/out" <<'PY' || fail "ptx inspect --json: $(cat "$work/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
modules = doc["modules"]
assert len(modules) == 1, modules
m = modules[0]
assert m["fnv1a64"] == "8baeb925f177af87", m["fnv1a64"]
assert m["sha256"] == "2494466885b810b12c616b284b338d101fcbe14bca06ef004d21052650471410", m
assert m["entries"] == ["d4r_test_layer", "d4r_test_simple", "rrlite_enc1_4x4",
                        "rrlite_enc2_4x4", "dl4rt_input_kernel"], m["entries"]
assert m["fatbin_offset"] is None and m["entry_offset"] is None and m["compressed"] is False, m
PY

expect_status 0 ptx inspect "$ptx_dir/rr_module.ptx"
grep -q '^fnv1a64 *26332c9543501ce9$' "$work/out" || fail "text output: $(cat "$work/out")"
grep -q '^  cuda_dldn_engine_test_kernel$' "$work/out" || fail "text entries: $(cat "$work/out")"

# nvcc's default (ZSTD) fatbin: the module, its three entries with the long template name whole.
expect_status 0 ptx inspect "$fatbin_dir/fatbin_kernels.default.fatbin" --json
python3 - "$work/out" <<'PY' || fail "ptx inspect a ZSTD fatbin --json: $(head -c 800 "$work/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
(m,) = doc["modules"]
assert m["fnv1a64"] == "82ae23aab5d00154", m["fnv1a64"]
assert m["compression"] == "zstd" and m["compressed"] is True and m["arch"] == "sm_86", m
assert m["fatbin_offset"] == 0 and m["entry_offset"] == 16 and m["size"] == 8182, m
names = m["entries"]
assert names[:2] == ["fatbin_scale", "fatbin_prefix_sum"], names
assert len(names) == 3 and len(names[2]) == 1527 and names[2].startswith("_Z16fatbin_long_nameIJLi1000000E"), names
assert doc["skipped"] == [], doc["skipped"]
PY
expect_status 0 ptx inspect "$fatbin_dir/fatbin_kernels.default.fatbin"
grep -q '^compressed *yes (zstd)$' "$work/out" || fail "text compression: $(cat "$work/out")"
grep -q '^  _Z16fatbin_long_nameIJLi1000000E.*Li1000149EEEvPi$' "$work/out" ||
  fail "text long name: $(cat "$work/out")"

# Several architectures: two PTX modules, four cubins listed and skipped.
expect_status 0 ptx inspect "$fatbin_dir/multi_arch_all.fatbin"
grep -q 'multi_arch_all.fatbin: 2 PTX modules, 4 other entries skipped$' "$work/out" ||
  fail "multi-arch summary: $(cat "$work/out")"
grep -q '^  entry offset 16: elf (kind 2) sm_80, 1424 B, zstd$' "$work/out" ||
  fail "multi-arch skipped cubin: $(cat "$work/out")"
grep -q '^arch *sm_90$' "$work/out" || fail "multi-arch arch: $(cat "$work/out")"
expect_status 2 ptx inspect "$fatbin_dir/multi_arch.fatbin" --max-decompressed 12X
grep -q "max-decompressed: '12X' is not a size" "$work/err" || fail "bad size: $(cat "$work/err")"
expect_status 6 ptx inspect "$fatbin_dir/multi_arch.fatbin" --max-decompressed 4K
grep -q 'limit on decompressed PTX in all' "$work/err" || fail "small limit: $(cat "$work/err")"

expect_status 0 ptx --help
grep -q 'ptx inspect FILE' "$work/out" || fail "ptx --help: $(cat "$work/out")"
expect_status 2 ptx
expect_status 2 ptx frobnicate "$ptx_dir/sr_module.ptx"
expect_status 2 ptx inspect
expect_status 6 ptx inspect "$work/missing.ptx"
# A fatbin header that claims more than the file holds: a clear error naming the offset.
printf '\120\355\125\272\001\000\020\000\377\000\000\000\000\000\000\000' >"$work/short.fatbin"
expect_status 6 --json ptx inspect "$work/short.fatbin"
grep -q 'fatbin at offset 0: files size 255 runs past the end' "$work/err" ||
  fail "truncated fatbin message: $(cat "$work/err")"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))["error"]' "$work/out" 2>/dev/null ||
  fail "the error is not one JSON document: $(cat "$work/out")"

finish ptx_inspect
