#!/usr/bin/env bash
# daemon_links_no_llvm.sh BINARY_DIR SOURCE_DIR: d4r-kerneld maps no LLVM. libLLVM's resident pages
# were 42 of the idle daemon's 66 MB; everything that needs LLVM (compiles, backend fingerprints)
# runs in d4r-kernel-worker, and launch metadata is read by compiler/elf_image + msgpack_reader.
# Checked three ways: the binary's own DT_NEEDED entries, everything the loader would map (ldd),
# and the daemon's sources, which include no LLVM header and no compiler/ backend.
set -u
daemon="$1/daemon/d4r-kerneld"
cd "$2" || exit 1
failures=0
forbidden='libLLVM|libclang|liblld|libamd_comgr|libMLIR'
[ -x "$daemon" ] || { echo "FAIL: no $daemon"; exit 1; }
needed=$(readelf -d "$daemon" | grep -F '(NEEDED)')
[ -n "$needed" ] || { echo "FAIL: readelf found no NEEDED entry in $daemon"; exit 1; }
if echo "$needed" | grep -E "$forbidden"; then
  echo "FAIL: d4r-kerneld links LLVM directly (DT_NEEDED above)"
  failures=$((failures + 1))
fi
mapped=$(ldd "$daemon")
if echo "$mapped" | grep -E "$forbidden"; then
  echo "FAIL: d4r-kerneld maps LLVM through a library it links (ldd above)"
  failures=$((failures + 1))
fi
sources=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](llvm/|llvm-c/|lld/|clang/|compiler/backends/|compiler/translate/[a-z_]+\.hpp)' \
  daemon 2>/dev/null | grep -v 'compiler/translate/translator_fingerprint.hpp')
if [ -n "$sources" ]; then
  echo "FAIL: daemon/ includes LLVM or the backends:"
  echo "$sources"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "daemon_links_no_llvm: ok ($(echo "$needed" | wc -l) NEEDED entries, none LLVM)"
exit "$failures"
