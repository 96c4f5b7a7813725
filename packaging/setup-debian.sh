#!/usr/bin/env bash
# Set-up on Debian 12 / Ubuntu, from nothing: installs the packages that are missing,
# configures and builds, then starts Backprop Studio ("run"), runs every test ("test"), or runs
# the sanitizer stage ("sanitize"). Idempotent: when everything is installed and built it only
# rebuilds what changed.
#   packaging/setup-debian.sh run        build and start the GUI
#   packaging/setup-debian.sh test       build and run every test: unit, Qt, end-to-end and the .deb
#   packaging/setup-debian.sh sanitize   fuzz the readers, run the engine and dataset tests under
#                                        ASan + UBSan (its own clang build), every kernel under Oclgrind
# CI (.ci/run) runs test, then sanitize. BACKPROP_TEST_CACHES names a folder for the kernel caches
# that both share (PoCL's first compile of a kernel is the slow part); by default each run has its
# own temporary one.
set -euo pipefail

mode=${1:-run}
case "$mode" in run|test|sanitize) ;; *) echo "usage: $0 run|test|sanitize" >&2; exit 2;; esac
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$project/build"

packages=(
  build-essential cmake ninja-build pkg-config       # compiler and build (Ninja: see the configure below)
  qt6-base-dev libqcustomplot-dev                    # GUI and its plots
  ocl-icd-opencl-dev opencl-headers libclblast-dev   # OpenCL and GEMM
  pocl-opencl-icd clinfo                             # an OpenCL device on any CPU
  libhdf5-dev nlohmann-json3-dev zlib1g-dev catch2   # files, JSON, gzip, tests
  libcurl4-openssl-dev libssl-dev libarchive-dev     # dataset downloads: HTTP, SHA-256, tar.gz
  libstb-dev                                         # PNG/JPEG decoding for image folders
  libonnx-dev libprotobuf-dev                        # ONNX export: the ONNX schema's protobuf classes
  dataset-fashion-mnist                              # the default dataset, offline
)
test_packages=(
  python3-h5py python3-numpy python3-pil python3-torch  # tests: exported weights and scripts, read independently
  python3-onnx                                       # tests: exported ONNX models, checked and evaluated independently
  libopenblas0-pthread                               # tests: Debian's torch on OpenBLAS for the training scripts
  xvfb xauth x11-utils desktop-file-utils appstream  # tests: the installed .deb, its studio window and metadata
  xdotool                                            # tests: the scripted walkthrough clicks the real window
  g++-mingw-w64-x86-64-posix                         # tests: the engine and CLI compile for Windows
)
sanitize_packages=(
  clang-14 libclang-rt-14-dev llvm-14                # libFuzzer, ASan and UBSan (tests/sanitize/ci.sh); llvm-symbolizer names lines
  oclgrind                                           # every kernel under a second OpenCL implementation (tests/sanitize/oclgrind.sh)
)
case "$mode" in
  test) packages+=("${test_packages[@]}") ;;
  sanitize) packages+=("${sanitize_packages[@]}") ;;
esac
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
# Ninja rather than Make: on two cores it starts the studio's long chain (ui, then the app, then
# the Qt tests) as soon as the engine is built, and fills the gaps with the other targets; Make
# built the tests first and finished the chain on one core (444 s against 501 s, a fresh build).
# A folder configured before keeps its generator.
[ -f "$build/CMakeCache.txt" ] || cmake -S "$project" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --parallel "$(nproc)"

if [ "$mode" = run ]; then
  exec "$build/app/backprop-studio"
fi

# Tests run headless, with the kernel cache and PoCL's cache in a folder that all test processes
# share (PoCL's first compile of a kernel is the slow part).
export QT_QPA_PLATFORM=offscreen
if [ -n "${BACKPROP_TEST_CACHES:-}" ]; then
  caches=$BACKPROP_TEST_CACHES
  mkdir -p "$caches"
else
  caches=$(mktemp -d "${TMPDIR:-/tmp}/backprop-test-caches-XXXXXX")
  trap 'rm -rf "$caches"' EXIT
fi
export BACKPROP_CACHE_DIR="$caches/backprop" POCL_CACHE_DIR="$caches/pocl"

if [ "$mode" = test ]; then
  # One warm fills the shared cache with every program's binary, which the tests' processes load
  # rather than compile: a run on PoCL stores none itself (engine/ops/runtime.h, CacheWrites), and
  # without the warm the tests took 66 s longer on two cores. Tests of a cold cache use folders of
  # their own.
  "$build/app/backprop" cache warm > /dev/null 2>&1 || echo "note: backprop cache warm failed; the tests build kernels as they go"
  echo "== testing (caches in $caches)"
  exec ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600
fi
# The readers fuzzed and the engine and dataset tests under ASan + UBSan, in their own build
# (build-sanitize), then every op test's kernels under Oclgrind (on the build above).
echo "== sanitizing (caches in $caches)"
exec "$project/tests/sanitize/ci.sh"
