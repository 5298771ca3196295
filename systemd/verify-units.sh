#!/bin/sh
# verify-units.sh [--needs FILE] UNIT_FILE...: checks unit files with `systemd-analyze verify --user`.
# verify exits 0 on unknown keys and unparsable values (it only warns), so any line of its output
# that names one of the units fails the check as well. It needs a runtime directory for %t even
# where no user manager runs (CI, containers): a fresh one is made for it.
# verify also fails when ExecStart does not exist; --needs names that binary, so that a tree where
# it is not built yet skips the check instead of failing it.
# Exit status: 0 clean, 1 a problem was reported, 77 skipped (no systemd-analyze, or FILE missing).
set -u

if [ "${1:-}" = "--needs" ]; then
  if [ ! -x "${2:-}" ]; then
    echo "verify-units: ${2:-} is not built, skipping"
    exit 77
  fi
  shift 2
fi

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "verify-units: systemd-analyze not found, skipping"
  exit 77
fi

runtime_dir=$(mktemp -d) || exit 1
trap 'rm -rf "$runtime_dir"' EXIT
chmod 700 "$runtime_dir"

output=$(XDG_RUNTIME_DIR="$runtime_dir" systemd-analyze verify --user --man=no "$@" 2>&1)
status=$?
[ -n "$output" ] && printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "verify-units: systemd-analyze verify failed (exit $status)"
  exit 1
fi
for unit in "$@"; do
  name=$(basename "$unit")
  if printf '%s\n' "$output" | grep -F -q "$name"; then
    echo "verify-units: systemd-analyze reported a problem in $name"
    exit 1
  fi
done
echo "verify-units: $# unit(s) verified"
exit 0
