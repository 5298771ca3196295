#!/usr/bin/env bash
# Installs every Debian bookworm package d4r-kerneld needs to build, test and run.
# Idempotent: packages already present are left alone, and apt is not touched at all
# when nothing is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev         # the Abseil gRPC is built on (daemon/main.cpp sets its mutex mode)
  libsqlite3-dev sqlite3 libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev
  llvm-19 llvm-19-dev clang-19 lld-19 liblld-19-dev zlib1g-dev
  libzstd-dev         # lld, and compiler/ptx: ZSTD-compressed fatbin entries (nvcc 13's default)
  liblz4-dev libsystemd-dev systemd python3
  libamd-comgr-dev libamd-comgr2
  libclang-rt-19-dev  # tests/fuzz: libFuzzer and the sanitizer runtimes of clang-19
  llvm-19-tools       # tests/compiler: lit and FileCheck
  libhiredis-dev      # cache/remote/redis: the Redis tier's client
  redis-server        # tests: each starts its own server in a temp dir (never the system one)
  python3-prometheus-client  # tests: the metrics text read by Prometheus's own parser
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
