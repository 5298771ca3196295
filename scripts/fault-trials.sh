#!/usr/bin/env bash
# The long kill -9 run (CI runs 6 trials): N trials (default 1000), each purging the cache,
# starting builds and killing the daemon, a worker then the daemon, or a worker alone at random
# moments of the builds and cache writes; checks every object served after each kill
# (tests/integration/test_integration_faults.cpp). Needs a build (./scripts/build.sh).
#   scripts/fault-trials.sh [N]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
D4R_FAULT_TRIALS="${1:-1000}" exec "$root/build/tests/test_integration_faults"
