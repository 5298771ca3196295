#!/usr/bin/env bash
# Runs generated programs on the NVIDIA GPU of this machine (CUDA driver + headers):
#   [VERSION=N] [MODULE_TIMEOUT=S] tests/random/run_gpu.sh OUTDIR FIRST COUNT [PER_MODULE [JOBS [PARTS]]]
# Builds the runner (gpu_runner.cpp and the generator, plain g++ -lcuda), runs the seed range in
# modules of PER_MODULE programs (default 250), JOBS processes at a time (default 8), each module
# in its own process with a time limit, and packs the results files into PARTS gzipped tars
# OUTDIR/results_N.tgz (default 8: the device tool returns at most 8 files of 16 MiB); the
# first holds gpu_log.txt, every runner's output.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: run_gpu.sh OUTDIR FIRST COUNT [PER_MODULE [JOBS [PARTS]]]}"
first="${2:?}"
count="${3:?}"
per="${4:-250}"
jobs="${5:-8}"
parts="${6:-8}"
version="${VERSION:-1}"
# A module's time limit: ptxas has hung on generated PTX, and a hung module then costs this long
# before its programs are run again in modules of 10.
module_timeout="${MODULE_TIMEOUT:-300}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d)"
src="$root/tests/random"
# Every generator file (ptxgen*.cpp but the d4r-ptxgen tool's main).
generator=()
for f in "$src"/ptxgen*.cpp; do
  [ "$(basename "$f")" = ptxgen_main.cpp ] || generator+=("$f")
done
"${CXX:-g++}" -std=c++2b -O2 -I"$root" -I"$cuda/include" "$src/gpu_runner.cpp" "${generator[@]}" \
  "$src/results.cpp" -L"$cuda/lib64/stubs" -lcuda -o "$work/ptxgen-gpu" || exit 1
mkdir -p "$out"
starts=()
for ((s = first; s < first + count; s += per)); do
  starts+=("$s")
done
printf '%s\n' "${starts[@]}" | xargs -P "$jobs" -I{} sh -c \
  "n=\$(( $first + $count - {} )); [ \$n -gt $per ] && n=$per; timeout $module_timeout '$work/ptxgen-gpu' --version $version --first {} --count \$n --out '$work/results_{}.bin' > '$work/log_{}.txt' 2>&1; echo \"exit \$? for {}\" >> '$work/log_{}.txt'"
# A module whose JIT crashed (ptxas has segfaulted on generated PTX) is run again in modules of
# 10 programs, so that only the module holding the bad program is lost.
for s in "${starts[@]}"; do
  if [ ! -f "$work/results_$s.bin" ]; then
    n=$((first + count - s)); [ "$n" -gt "$per" ] && n=$per
    for ((t = s; t < s + n; t += 10)); do
      m=$((s + n - t)); [ "$m" -gt 10 ] && m=10
      echo "$s $t $m"
    done
  fi
done | xargs -r -P "$jobs" -L1 sh -c "timeout $module_timeout '$work/ptxgen-gpu' --version $version --first \$2 --count \$3 --out '$work/results_'\$2.bin > '$work/log_'\$2.txt 2>&1; echo \"exit \$? for \$2 (retry)\" >> '$work/log_'\$2.txt" retry
starts_found=()
for f in "$work"/results_*.bin; do
  starts_found+=("$(basename "$f" .bin | sed 's/results_//')")
done
starts=("${starts_found[@]}")
cat "$work"/log_*.txt > "$work/gpu_log.txt"
grep -v "^exit 0 for" "$work/gpu_log.txt" | head -50
# Round-robin the results files over the parts; the log goes with the first.
echo gpu_log.txt > "$work/part_0.list"
i=0
for s in "${starts[@]}"; do
  part=$((i % parts))
  echo "results_$s.bin" >> "$work/part_$part.list"
  i=$((i + 1))
done
for list in "$work"/part_*.list; do
  name="$(basename "$list" .list)"
  tar -C "$work" -czf "$out/results_${name#part_}.tgz" -T "$list"
done
ls -la "$out"
