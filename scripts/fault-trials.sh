#!/usr/bin/env bash
# The long kill -9 run (CI runs 6 trials): kills the daemon N times (default 1000) at random
# moments of its builds and cache writes and checks every object served after each restart
# (tests/integration/test_integration_faults.cpp). Needs a build (./scripts/build.sh).
#   scripts/fault-trials.sh [N]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
D4R_FAULT_TRIALS="${1:-1000}" exec "$root/build/tests/test_integration_faults"
