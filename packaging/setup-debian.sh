#!/usr/bin/env bash
# Set-up on Debian 12 / Ubuntu, from nothing: installs the packages that are missing,
# configures and builds, then starts Backprop Studio ("run") or runs every test ("test").
# Idempotent: when everything is installed and built it only rebuilds what changed.
#   packaging/setup-debian.sh run     build and start the GUI
#   packaging/setup-debian.sh test    build and run the whole test suite (what CI runs)
set -euo pipefail

mode=${1:-run}
case "$mode" in run|test) ;; *) echo "usage: $0 run|test" >&2; exit 2;; esac
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$project/build"

packages=(
  build-essential cmake pkg-config                   # compiler and build
  qt6-base-dev libqcustomplot-dev                    # GUI and its plots
  ocl-icd-opencl-dev opencl-headers libclblast-dev   # OpenCL and GEMM
  pocl-opencl-icd clinfo                             # an OpenCL device on any CPU
  libhdf5-dev nlohmann-json3-dev zlib1g-dev catch2   # files, JSON, gzip, tests
  libcurl4-openssl-dev libssl-dev libarchive-dev     # dataset downloads: HTTP, SHA-256, tar.gz
  libstb-dev                                         # PNG/JPEG decoding for image folders
  dataset-fashion-mnist                              # the default dataset, offline
  python3-h5py python3-numpy python3-pil python3-torch  # tests: exported weights and scripts, read independently
  xvfb xauth x11-utils desktop-file-utils appstream  # tests: the installed .deb, its studio window and metadata
  xdotool                                            # tests: the scripted walkthrough clicks the real window
  g++-mingw-w64-x86-64-posix                         # tests: the engine and CLI compile for Windows
  clang-14 libclang-rt-14-dev llvm-14                # tests: libFuzzer, ASan and UBSan (tests/sanitize/ci.sh); llvm-symbolizer names lines
  oclgrind                                           # tests: every kernel under a second OpenCL implementation (tests/sanitize/oclgrind.sh)
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  "${as_root[@]}" apt-get update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

echo "== building in $build"
[ -f "$build/CMakeCache.txt" ] || cmake -S "$project" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --parallel "$(nproc)"

if [ "$mode" = run ]; then
  exec "$build/app/backprop-studio"
fi

# Tests run headless, with the kernel cache and PoCL's cache in a temporary folder that all
# test processes share (PoCL's first compile of a kernel is the slow part).
export QT_QPA_PLATFORM=offscreen
caches=$(mktemp -d "${TMPDIR:-/tmp}/backprop-test-caches-XXXXXX")
trap 'rm -rf "$caches"' EXIT
export BACKPROP_CACHE_DIR="$caches/backprop" POCL_CACHE_DIR="$caches/pocl"
echo "== testing (caches in $caches)"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600
# Reached only when every test passed (set -e ends the script at a failing ctest): the readers
# fuzzed and the engine and dataset tests under ASan + UBSan, in their own build (build-sanitize).
"$project/tests/sanitize/ci.sh"
