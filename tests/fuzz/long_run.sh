#!/bin/bash
# A long fuzz_handlers run (figures, not a test): PROCS processes side by side, each on its own copy
# of the seeds (written by fuzz_handlers.seeds.py), SECONDS each, seeds SEED_BASE + 1 .. + PROCS,
# with the dictionary. Prints one line per process (its executions, its exit status), the total,
# and every log that reports a crash, timeout or sanitizer finding; reproducers go to WORK/artifacts.
# Exit status 0 when no process found anything.
#   tests/fuzz/long_run.sh [PROCS [SECONDS [SEED_BASE]]]
# FUZZ_HANDLERS names the binary (default build/fuzz/fuzz_handlers); FUZZ_LAUNCH is put before it,
# e.g. "/opt/libs/ld-linux-x86-64.so.2 --library-path /opt/libs" for a copy carried to a machine
# without the build's libraries.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
procs=${1:-$(nproc)}
seconds=${2:-600}
seed_base=${3:-1000}
fuzzer=${FUZZ_HANDLERS:-$root/build/fuzz/fuzz_handlers}
read -r -a launch <<<"${FUZZ_LAUNCH:-}"
[ -x "$fuzzer" ] || { echo "long_run: $fuzzer: not built" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/d4r-fuzz-long.XXXXXX")
mkdir "$work/artifacts"
python3 "$root/tests/fuzz/fuzz_handlers.seeds.py" "$work/seeds" >/dev/null
for i in $(seq 1 "$procs"); do
  mkdir "$work/corpus$i"
  cp "$work/seeds"/* "$work/corpus$i/"
  (
    cd "$work/corpus$i"
    status=0
    "${launch[@]}" "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
      -seed=$((seed_base + i)) -dict="$root/tests/fuzz/fuzz_handlers.dict" \
      -artifact_prefix="$work/artifacts/p$i-" "$work/corpus$i" >"$work/log$i" 2>&1 || status=$?
    echo "exit $status" >>"$work/log$i"
  ) &
done
wait

total=0
found=0
for i in $(seq 1 "$procs"); do
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log$i" | tail -1)
  echo "process $i: ${runs:-no "Done" line} executions, $(tail -1 "$work/log$i")"
  total=$((total + ${runs:-0}))
  if [ "$(tail -1 "$work/log$i")" != "exit 0" ] ||
     grep -q -E "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|SUMMARY:|deadly signal" "$work/log$i"; then
    found=1
    echo "=== log $i"
    tail -60 "$work/log$i"
  fi
done
echo "total: $total executions in $procs processes x $seconds s; logs and artifacts in $work"
exit $found
