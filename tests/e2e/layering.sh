#!/usr/bin/env bash
# layering.sh SOURCE_DIR: the dependency rules of STYLE.md rule 1, checked over #include lines.
# compiler/ knows no gRPC, protobuf or SQLite; cache/ no gRPC, protobuf or LLVM; util/ includes no
# other folder of the project; client/ and cli/ reach the daemon only through proto/ (cli/ may also
# use compiler/ for local work such as `ptx inspect`, as rule 1 allows, and cli/doctor* the daemon's
# readers, below); only cache/db.cpp includes
# sqlite3.h.
set -u
cd "$1" || exit 1
failures=0
forbid() { # forbid FOLDER REGEX WHY [EXCLUDED FILE GLOB]
  hits=$(grep -rnE --exclude="${4:-/}" "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($2)" "$1" 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "FAIL: $3"
    echo "$hits"
    failures=$((failures + 1))
  fi
}
forbid compiler 'grpc|grpcpp/|google/protobuf|d4r/kernel/v1|sqlite3|cache/|daemon/|client/|cli/' \
  "compiler/ links only LLVM and util/"
forbid cache 'grpc|grpcpp/|google/protobuf|d4r/kernel/v1|llvm/|compiler/|daemon/|client/|cli/' \
  "cache/ links only SQLite and util/"
forbid util 'compiler/|cache/|daemon/|client/|cli/|proto/|d4r/kernel/v1|llvm/|sqlite3|grpc' \
  "util/ includes no other folder"
forbid trust 'compiler/|cache/|daemon/|client/|cli/|proto/|d4r/kernel/v1|llvm/|sqlite3|grpc' \
  "trust/ links only OpenSSL and util/"
forbid client 'compiler/|cache/|daemon/|cli/|llvm/|sqlite3' "client/ uses only proto/ and util/"
forbid cli 'cache/|daemon/|client/|llvm/|sqlite3' \
  "cli/ talks to the daemon over proto/ and uses compiler/ only locally" 'doctor*'
# `doctor` answers with the daemon's own readers, so that it cannot disagree with the daemon: the
# daemon's configuration, KFD detection, toolchain probe and release readers, the cache's read-only
# inspection, the client's reading of the environment; never the cache's writers or SQLite.
forbid cli 'daemon/(server|kernel_core|kernel_service|housekeeping)|cache/(cache|store|db)\.hpp|client/client\.hpp|llvm/|sqlite3' \
  "cli/doctor* reads through the daemon's readers and cache/inspect.hpp only"
# The daemon's core asks its storage tiers through cache/tier.hpp and knows no RPC: the wire
# layer (daemon/wire*, launch_record) converts at the edge.
for core in daemon/kernel_core*.cpp daemon/kernel_core.hpp daemon/build_service.cpp \
  daemon/build_service.hpp daemon/release_import.cpp; do
  forbid "$core" 'grpc|grpcpp/|google/protobuf|d4r/kernel/v1|daemon/wire\.hpp' \
    "the daemon core ($core) includes no gRPC, protobuf or daemon/wire.hpp"
done
sqlite_users=$(grep -rlE '#[[:space:]]*include[[:space:]]*<sqlite3.h>' --include='*.cpp' --include='*.hpp' \
  util proto compiler cache daemon client cli kernels 2>/dev/null | grep -v '^cache/db.cpp$')
if [ -n "$sqlite_users" ]; then
  echo "FAIL: only cache/db.cpp includes sqlite3.h: $sqlite_users"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "layering: ok"
exit "$failures"
