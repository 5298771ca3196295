#!/usr/bin/env bash
# socket_activation.sh BUILD_DIR: d4r-kerneld as systemd starts it. systemd-socket-activate holds
# the socket and execs the daemon on the first connection with LISTEN_FDS; the daemon must serve
# on that socket, report READY=1 to NOTIFY_SOCKET, and STOPPING=1 then exit 0 on SIGTERM.
set -u
build=$1
command -v systemd-socket-activate >/dev/null || { echo "systemd-socket-activate missing"; exit 77; }
work=$(mktemp -d) || exit 1
cleanup() {
  kill "$activator" "$listener" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A stand-in for systemd's notification socket: records every datagram.
python3 "$(dirname "$0")/notify_socket.py" "$work/notify" "$work/notify.log" &
listener=$!
for _ in $(seq 100); do [ -S "$work/notify" ] && break; sleep 0.05; done

mkdir -p "$work/run"
socket=$work/run/socket
systemd-socket-activate -l "$socket" -E NOTIFY_SOCKET="$work/notify" \
  "$build/daemon/d4r-kerneld" --cache-dir "$work/cache" --native-dir "$build/fixtures/release" \
  --gpu-arch gfx1101 --log-level warn >"$work/daemon.log" 2>&1 &
activator=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done

# The first connection starts the daemon; the request must be answered on the passed socket.
"$build/cli/d4r-kernel" --socket "$socket" --timeout-ms 10000 resolve \
  --module-hash 8baeb925f177af87 --kernel d4r_test_layer --target gfx1101 --out "$work/k.hsaco" \
  >"$work/resolve.out" 2>&1 || fail "resolve through the activated socket: $(cat "$work/resolve.out")"
cmp -s "$work/k.hsaco" "$build/fixtures/release/gfx1101/d4r_test_layer.hsaco" ||
  fail "the object written by --out differs from the release object"
grep -q 'READY=1' "$work/notify.log" 2>/dev/null || fail "no READY=1 on NOTIFY_SOCKET"

kill -TERM "$activator"
wait "$activator"
status=$?
[ "$status" -eq 0 ] || fail "daemon exited $status after SIGTERM: $(cat "$work/daemon.log")"
sleep 0.2
grep -q 'STOPPING=1' "$work/notify.log" 2>/dev/null || fail "no STOPPING=1 on NOTIFY_SOCKET"
[ -S "$socket" ] || true # systemd owns the socket file in this mode; the daemon must not care

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "socket activation: ok"
