#!/usr/bin/env bash
# remote_unit.sh BUILD_DIR UNIT: d4r-kerneld-remote.service's command line, as systemd would run it.
# The unit's ExecStart is expanded the way systemd expands it (${NAME}: one word; $NAME: split at
# whitespace; %E: the config folder) from its Environment= defaults overridden by a remote.env in
# the config folder, then run with a NOTIFY_SOCKET: the daemon must report READY=1, serve TLS on
# the address remote.env names (a real TLS handshake with the test CA), answer on its Unix socket,
# stop with STOPPING=1 and exit 0 on SIGTERM. With the defaults' certificate missing it must refuse
# to start, naming the file.
set -u
build=$1
unit=$2
command -v openssl >/dev/null || { echo "openssl missing"; exit 77; }
work=$(mktemp -d) || exit 1
daemon=
listener=
cleanup() {
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  [ -n "$listener" ] && kill "$listener" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

config=$work/config
mkdir -p "$config/d4r-kerneld"
# The unit's ExecStart= and Environment= lines, %E replaced by the config folder.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s|%E|$config|g")
[ -n "$exec_start" ] || { echo "no ExecStart in $unit"; exit 1; }
declare -A env
while IFS= read -r line; do
  env[${line%%=*}]=${line#*=}
done < <(sed -n 's/^Environment=//p' "$unit" | sed "s|%E|$config|g")
# systemd's rules: ${NAME} stays one word, $NAME alone is split at whitespace.
expand() {
  local -a words=()
  local word name
  for word in $exec_start; do
    if [[ $word =~ ^\$\{([A-Z0-9_]+)\}$ ]]; then
      words+=("${env[${BASH_REMATCH[1]}]:-}")
    elif [[ $word =~ ^\$([A-Z0-9_]+)$ ]]; then
      name=${BASH_REMATCH[1]}
      # shellcheck disable=SC2206 # splitting is the rule being followed
      words+=(${env[$name]:-})
    else
      words+=("$word")
    fi
  done
  printf '%s\n' "${words[@]}"
}

# Without the default certificate the daemon refuses to start and names it.
mapfile -t argv < <(expand)
"${argv[@]}" --cache-dir "$work/cache0" --socket "$work/s0" >"$work/refused.log" 2>&1 &
daemon=$!
wait "$daemon"
status=$?
[ "$status" -ne 0 ] || fail "the daemon started without its TLS certificate"
grep -q "server.crt" "$work/refused.log" || fail "the refusal does not name server.crt: $(cat "$work/refused.log")"

# The test CA and the server's certificate (for 127.0.0.1).
(cd "$work" &&
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=test-ca \
    -keyout ca.key -out ca.crt &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
    -keyout server.key -out server.csr &&
  printf 'subjectAltName=IP:127.0.0.1\n' >san.ext &&
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
    -extfile san.ext -out server.crt) >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$config/d4r-kerneld/remote.env" <<EOF
D4R_LISTEN=127.0.0.1:$port
D4R_TLS_CERT=$work/server.crt
D4R_TLS_KEY=$work/server.key
D4R_REMOTE_ARGS=--cache-dir $work/cache --native-dir $build/fixtures/release --gpu-arch gfx1101 --socket $work/socket --token-file $work/tokens --log-level warn
EOF
chmod 600 "$work/server.key"
while IFS= read -r line; do
  case $line in '' | '#'*) continue ;; esac
  env[${line%%=*}]=${line#*=}
done <"$config/d4r-kerneld/remote.env"

python3 "$(dirname "$0")/notify_socket.py" "$work/notify" "$work/notify.log" &
listener=$!
for _ in $(seq 100); do [ -S "$work/notify" ] && break; sleep 0.05; done

mapfile -t argv < <(expand)
NOTIFY_SOCKET=$work/notify "${argv[@]}" >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 200); do grep -q 'READY=1' "$work/notify.log" 2>/dev/null && break; sleep 0.05; done
grep -q 'READY=1' "$work/notify.log" 2>/dev/null || fail "no READY=1: $(cat "$work/daemon.log")"

# The handshake is judged by what s_client reports, not by its exit status: that describes how the
# session ended, and it is 1 whenever the server closes the idle connection before s_client does.
echo | openssl s_client -connect "127.0.0.1:$port" -CAfile "$work/ca.crt" -verify_return_error \
  -alpn h2 >"$work/tls.log" 2>&1
grep -q "ALPN protocol: h2" "$work/tls.log" ||
  fail "no TLS with HTTP/2 on 127.0.0.1:$port: $(tail -5 "$work/tls.log")"
grep -q "Verify return code: 0 (ok)" "$work/tls.log" || fail "the server's certificate did not verify"
"$build/cli/d4r-kernel" --socket "$work/socket" --timeout-ms 10000 resolve \
  --module-hash 8baeb925f177af87 --kernel d4r_test_layer --target gfx1101 --out "$work/k.hsaco" \
  >"$work/resolve.out" 2>&1 || fail "resolve on the Unix socket: $(cat "$work/resolve.out")"

kill -TERM "$daemon"
wait "$daemon"
status=$?
[ "$status" -eq 0 ] || fail "daemon exited $status after SIGTERM: $(cat "$work/daemon.log")"
grep -q 'STOPPING=1' "$work/notify.log" 2>/dev/null || fail "no STOPPING=1 on NOTIFY_SOCKET"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s); the daemon's log:"
  tail -20 "$work/daemon.log"
  exit 1
fi
echo "remote unit: ok"
