#!/usr/bin/env bash
# Configures (once) and builds the sanitized tree that tests/sanitize/ci.sh and
# tests/fuzz/run-long.sh use: clang-14, ASan + UBSan, libFuzzer, no GUI; only the named targets.
#   tests/sanitize/build.sh <build folder> <target>...
set -euo pipefail
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1
shift
for tool in clang-14 clang++-14 cmake ninja; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (packaging/setup-debian.sh installs it)" >&2; exit 2; }
done
if [ ! -f "$build/CMakeCache.txt" ]; then
    mkdir -p "$build"
    # -O1 and line tables only: sanitized code builds fast on two cores and reports still name lines
    # (the tests' own sources at -O0: tests/CMakeLists.txt).
    cmake -S "$project" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang-14 \
        -DCMAKE_CXX_COMPILER=clang++-14 "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" \
        "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" -DBACKPROP_BUILD_GUI=OFF -DBACKPROP_SANITIZE=ON \
        -DBACKPROP_FUZZ=ON >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
fi
cmake --build "$build" --parallel "$(nproc)" --target "$@"
