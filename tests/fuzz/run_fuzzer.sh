#!/bin/sh
# Runs one libFuzzer target for a bounded time on a copy of its seed corpus (the checked-in corpus
# stays untouched). The copy is deleted afterwards unless the fuzzer failed: then its reproducers
# are printed and kept. Exit status: the fuzzer's (0 when it found nothing), 77 (skip) with
# --skip REASON.
#   run_fuzzer.sh FUZZER SEED_CORPUS_DIR [DICTIONARY]
#   run_fuzzer.sh --skip REASON
set -eu

if [ "$1" = "--skip" ]; then
  echo "fuzz: skipped: $2"
  exit 77
fi
fuzzer=$1
seeds=$2
dict_option=
if [ $# -ge 3 ]; then
  dict_option="-dict=$3"
fi
if [ ! -x "$fuzzer" ]; then
  echo "fuzz: $fuzzer: not built" >&2
  exit 1
fi
if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds")" ]; then
  echo "fuzz: $seeds: no seed corpus" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/d4r-fuzz.XXXXXX")
mkdir "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/"

status=0
# A fixed seed makes CI explore the same inputs on every run (a red build then means a change broke
# something, not that a new random input turned up); longer random runs are for people:
# tests/fuzz/README.md.
"$fuzzer" -seed=1 -max_total_time=20 -rss_limit_mb=2048 -timeout=10 -error_exitcode=1 -timeout_exitcode=1 \
  -print_final_stats=1 $dict_option \
  -artifact_prefix="$work/artifacts/" "$work/corpus" || status=$?
if [ "$status" -ne 0 ]; then
  echo "fuzz: $(basename "$fuzzer") failed with status $status; reproducers:" >&2
  for artifact in "$work/artifacts"/*; do
    [ -e "$artifact" ] || continue
    echo "--- $artifact" >&2
    od -A d -c "$artifact" | head -40 >&2
  done
  echo "fuzz: kept $work" >&2
  exit "$status"
fi
rm -rf "$work"
