#!/bin/sh
# Compiler launcher of fuzz_handlers (fuzz_handlers.cmake): CMake writes the target's compile and
# link commands for the project's C++ compiler, with every flag, include, define and library the
# daemon's own targets carry; this runs the same command with clang-19 and libFuzzer's and the
# sanitizers' flags instead, so that the daemon sources are instrumented without a second build
# system. The static libraries it links (protobuf code, util, compiler_base) stay g++'s: the same
# libstdc++ ABI, only uninstrumented.
#   fuzz_handlers.clang.sh CLANG compile|link COMMAND...
set -eu
clang=$1
mode=$2
shift 2
# Drop the launcher (ccache) and the compiler CMake put first.
while [ $# -gt 0 ]; do
  case "${1##*/}" in
    ccache|c++|g++|g++-*|cc|gcc|gcc-*|clang++*) shift ;;
    *) break ;;
  esac
done
if [ "$mode" = compile ]; then
  exec "$clang" "$@" -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
    -fno-omit-frame-pointer -Wno-unknown-warning-option
fi
exec "$clang" "$@" -fsanitize=fuzzer,address,undefined
