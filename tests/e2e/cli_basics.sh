#!/bin/sh
# cli_basics.sh D4R_KERNEL: the d4r-kernel binary without a daemon: exit statuses, stdout/stderr
# separation, and that every --json run prints exactly one valid JSON document on stdout.
set -u
cli=$1
. "$(dirname "$0")/cli_lib.sh" # $work, fail, expect_status, expect_json_stdout, finish

socket="$work/no-daemon.sock"

expect_status 0 --help
grep -q '^exit status:' "$work/out" || fail "--help lists no exit statuses"
expect_status 0 resolve --help
grep -q -- '--module-hash HEX' "$work/out" || fail "resolve --help lacks --module-hash"
expect_status 0 --version
grep -q '^d4r-kernel [0-9]' "$work/out" || fail "--version printed: $(cat "$work/out")"

expect_status 2
expect_status 2 frobnicate
expect_status 2 resolve --module-hash 123 --kernel k
grep -q "is not 16 hex digits" "$work/err" || fail "bad hash message: $(cat "$work/err")"
[ -s "$work/out" ] && fail "a usage error printed on stdout without --json"
expect_status 2 --json resolve --module-hash 8baeb925f177af87 --kernel 'a/b'
expect_json_stdout

expect_status 5 --socket "$socket" status
grep -q "cannot reach d4r-kerneld at $socket: .*systemctl --user start d4r-kerneld.socket" \
  "$work/err" || fail "unreachable message: $(cat "$work/err")"
D4R_KERNELD_SOCKET="$socket" expect_status 5 list --json
expect_json_stdout
grep -q "$socket" "$work/out" || fail "D4R_KERNELD_SOCKET was not used: $(cat "$work/out")"
expect_status 5 --socket "$socket" resolve --module-hash 8baeb925f177af87 --kernel k --out "$work/o"
[ -e "$work/o" ] && fail "resolve wrote --out without a daemon"

# purge without a terminal needs --yes, before any connection is tried.
expect_status 2 --socket "$socket" purge
grep -q -- "--yes" "$work/err" || fail "purge message: $(cat "$work/err")"
expect_status 5 --socket "$socket" purge --yes

finish cli_basics
