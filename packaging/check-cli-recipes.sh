#!/usr/bin/env bash
# The Windows and macOS install recipes, configured here on Linux for a build without the studio
# (BACKPROP_BUILD_GUI=OFF): they must not look for Qt. A small project stands in for the real one
# (a `backprop` program and an `engine` library, no Qt anywhere), pretends to be the platform
# (WIN32 or APPLE set before packaging/install.cmake is included) and is configured with Qt made
# unfindable (CMAKE_DISABLE_FIND_PACKAGE_Qt6). The same project with a `backprop-studio` target must
# then fail for want of Qt, which shows that the check would catch a recipe that looks for it.
#
#   packaging/check-cli-recipes.sh SOURCE_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cli-recipes-XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/project"
cat > "$work/project/CMakeLists.txt" <<'PROJECT'
cmake_minimum_required(VERSION 3.25)
project(backprop_studio VERSION 0.1.0 LANGUAGES CXX)
file(WRITE ${PROJECT_BINARY_DIR}/main.cpp "int main() { return 0; }\n")
add_library(engine STATIC ${PROJECT_BINARY_DIR}/main.cpp)
add_executable(backprop ${PROJECT_BINARY_DIR}/main.cpp)
if(WITH_STUDIO)
  add_executable(backprop-studio ${PROJECT_BINARY_DIR}/main.cpp)
endif()
# The recipes read the real project's files (LICENSE, tutorials/, packaging/).
set(PROJECT_SOURCE_DIR ${REAL_SOURCE_DIR})
set(${PRETEND} 1)
include(${REAL_SOURCE_DIR}/packaging/install.cmake)
PROJECT

failed=0
for platform in WIN32 APPLE; do
  build="$work/build-$platform"
  if cmake -S "$work/project" -B "$build" -DREAL_SOURCE_DIR="$source_dir" -DPRETEND=$platform \
       -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON > "$work/$platform.log" 2>&1; then
    echo "ok: the $platform recipe configures a CLI-only build without Qt"
  else
    cat "$work/$platform.log"
    echo "FAILED: the $platform recipe needs Qt for a CLI-only build"
    failed=1
  fi
  if cmake -S "$work/project" -B "$build-studio" -DREAL_SOURCE_DIR="$source_dir" -DPRETEND=$platform -DWITH_STUDIO=ON \
       -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON > "$work/$platform-studio.log" 2>&1; then
    echo "FAILED: the $platform recipe configured a studio build without Qt: this check cannot see Qt being looked for"
    failed=1
  elif grep -q "Qt6" "$work/$platform-studio.log"; then
    echo "ok: with the studio, the $platform recipe looks for Qt"
  else
    cat "$work/$platform-studio.log"
    echo "FAILED: the $platform recipe with the studio failed for another reason than Qt"
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "PASSED: the Windows and macOS recipes need no Qt without the studio"
