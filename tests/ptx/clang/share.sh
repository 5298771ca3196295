#!/usr/bin/env bash
# The share of the corpus that translates, for both producers (issue 11's figure): runs the disabled
# test ClangCorpusShare.ShareOfKernels, which builds every .entry of tests/ptx/*.ptx, tests/ptx/isa/
# (nvcc) and tests/ptx/clang/** (clang 19, llc 19) alone and translates it for the host and the six
# AMDGPU targets (each AMDGPU build linked into a code object), then prints the counts and the
# reasons. Takes minutes (one core): run it by hand, not in CI.
#   tests/ptx/clang/share.sh [BUILD_DIR]   (default build/; per-kernel lines go to BUILD_DIR/share.log)
set -euo pipefail
build="${1:-$(dirname "$0")/../../../build}"
"$build/tests/test_ptx_corpus_clang" --gtest_also_run_disabled_tests \
  --gtest_filter='ClangCorpusShare.*' >"$build/share.log" 2>&1 || true
grep -E '^share of kernels|^  [0-9]+ x ' "$build/share.log"
