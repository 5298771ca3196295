#!/usr/bin/env bash
# The full load run of issue 12 (CI runs 8 threads x 500): 64 client threads x 10 000 resolves
# through the C client against the real daemon, a second process purging, building and uploading
# meanwhile; prints errors, p50/p99, throughput and the daemon's RSS over time. Needs a build
# (./scripts/build.sh). Extra arguments go to d4r-load (see tests/integration/load_run.cpp).
#   scripts/load.sh [--threads 64] [--resolves 10000] [--period-ms 3000] [--sample-ms 1000]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
exec "$root/build/tests/d4r-load" --threads 64 --resolves 10000 "$@"
