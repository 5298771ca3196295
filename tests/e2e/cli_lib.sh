# Sourced by the e2e scripts that run the d4r-kernel binary (cli_basics.sh, config_command.sh,
# ptx_inspect.sh) after they set `cli`: the preamble each of them had a copy of.
#   $work            a temporary folder, removed on exit
#   fail MESSAGE     says FAIL and counts it; the script goes on, to report every failure at once
#   expect_status STATUS ARGS...   runs "$cli" ARGS with stdin from /dev/null, stdout in
#                    $work/out and stderr in $work/err, and fails unless it exits STATUS
#   expect_json_stdout             fails unless $work/out is one JSON document (python3)
#   finish NAME      prints the result and exits 0, or 1 when anything failed
set -u
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

expect_status() {
  want=$1
  shift
  "$cli" "$@" </dev/null >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "d4r-kernel $* exited $got, expected $want: $(cat "$work/err")"
}

expect_json_stdout() {
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/out" 2>/dev/null ||
    fail "stdout is not one JSON document: $(cat "$work/out")"
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s)"
    exit 1
  fi
  echo "$1: passed"
  exit 0
}
