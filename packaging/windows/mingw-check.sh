#!/usr/bin/env bash
# Compiles the engine, the datasets and the command line for Windows with Debian's mingw-w64
# cross compiler, so code that only compiles on Linux is caught here rather than on the Windows
# build (packaging/windows/windows.cmake).
#
#   packaging/windows/mingw-check.sh SOURCE_DIR BUILD_DIR
#
# Debian ships none of our libraries for mingw (OpenCL, CLBlast, HDF5, curl, OpenSSL, libarchive,
# protobuf, ONNX), so nothing is linked: every translation unit is checked for syntax and types (-fsyntax-only)
# against Debian's headers of those libraries, which are the same for every platform. The
# compiler's own headers (the C and C++ libraries, windows.h) are mingw's. The flags are the
# project's: C++20, every warning an error. Exit 77 (ctest's skip) when the compiler is missing.
set -euo pipefail

source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
# The posix thread model: std::thread and std::mutex, as MSVC has them (GCC 12's win32 model has neither).
compiler=x86_64-w64-mingw32-g++-posix
command -v "$compiler" >/dev/null || { echo "SKIPPED: $compiler is missing (Debian package g++-mingw-w64-x86-64-posix)"; exit 77; }

# Only the libraries' headers, never /usr/include itself: its C library headers are glibc's and
# would hide mingw's.
headers=$(mktemp -d "${TMPDIR:-/tmp}/mingw-headers-XXXXXX")
trap 'rm -rf "$headers"' EXIT
multiarch=/usr/include/x86_64-linux-gnu
link_all() {  # link_all FOLDER TARGET...: every file of the TARGET folders into headers/FOLDER
  mkdir -p "$headers/$1"
  local folder=$1
  shift
  for target in "$@"; do
    [ -d "$target" ] || continue
    for file in "$target"/*; do ln -sf "$file" "$headers/$folder/"; done
  done
}
for header in clblast.h clblast_half.h zlib.h zconf.h archive.h archive_entry.h; do
  [ -f "/usr/include/$header" ] || { echo "FAILED: /usr/include/$header is missing"; exit 1; }
  ln -s "/usr/include/$header" "$headers/$header"
done
ln -s /usr/include/CL "$headers/CL"
ln -s /usr/include/nlohmann "$headers/nlohmann"
# The ONNX export's schema classes (protobuf-generated, built with ONNX_ML as the library was).
ln -s /usr/include/onnx "$headers/onnx"
ln -s /usr/include/google "$headers/google"
link_all . /usr/include/hdf5/serial
# Debian's HDF5 headers were configured on glibc and include its <features.h>, which only sets
# feature macros; mingw has none, and an empty one stands in.
echo "/* features.h: glibc's feature macros; none are needed for mingw (packaging/windows/mingw-check.sh) */" > "$headers/features.h"
link_all stb /usr/include/stb
link_all openssl /usr/include/openssl "$multiarch/openssl"
link_all curl /usr/include/curl "$multiarch/curl"

# What the project's CMake files define for these targets on Windows.
flags=(-std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror
       -DCL_TARGET_OPENCL_VERSION=120 -DBACKPROP_OPENCL_DELAY_LOADED -DBACKPROP_COMPILE_STB
       '-DBACKPROP_VERSION="0.0.0"' -DH5_BUILT_AS_DYNAMIC_LIB -DONNX_NAMESPACE=onnx -DONNX_ML=1
       -I "$source_dir" -isystem "$headers" -isystem "$headers/stb")

mapfile -t sources < <(cd "$source_dir" && find engine datasets app/cli -name '*.cpp' | sort)
sources+=(packaging/windows/opencl_loader_windows.cpp)
# The sources CMake generates (embedded kernels and examples), when this build made them.
for generated in kernels/embedded_kernel_files.cpp engine/embedded_examples.cpp engine/git_revision.cpp; do
  [ -f "$build_dir/$generated" ] && sources+=("$build_dir/$generated")
done

# A unity build (BACKPROP_UNITY_BUILD) compiles these targets' sources in the batches CMake wrote,
# and the Windows build compiles the same batches: they are checked as they are, which takes a
# third of the time of checking every source alone. The sources no batch includes (those CMake
# compiles alone, and the Windows-only loader) are checked alone. A build configured with
# -DBACKPROP_UNITY_BUILD=OFF is checked file by file, which also catches a source that leans on
# the includes of another in its batch.
if grep -q '^BACKPROP_UNITY_BUILD:BOOL=ON$' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  batches=()
  for target in engine/CMakeFiles/engine.dir datasets/CMakeFiles/datasets.dir app/CMakeFiles/backprop.dir \
                kernels/CMakeFiles/embedded_kernels.dir; do
    for batch in "$build_dir/$target"/Unity/unity_*_cxx.cxx; do [ -f "$batch" ] && batches+=("$batch"); done
  done
  [ ${#batches[@]} -gt 0 ] || { echo "FAILED: $build_dir is a unity build, but has no unity files for the engine"; exit 1; }
  batched=$(sed -n 's/^#include "\(.*\)"$/\1/p' "${batches[@]}" | sort -u)
  alone=()
  for source in "${sources[@]}"; do
    absolute=$source
    [ "${source#/}" = "$source" ] && absolute=$source_dir/$source
    grep -qxF "$absolute" <<<"$batched" || alone+=("$source")
  done
  echo "unity build: $(wc -l <<<"$batched") sources in ${#batches[@]} batches, ${#alone[@]} alone"
  sources=("${batches[@]}" "${alone[@]}")
fi

echo "checking ${#sources[@]} translation units with $compiler ($("$compiler" -dumpversion))"
log=$(mktemp "${TMPDIR:-/tmp}/mingw-check-XXXXXX.log")
cd "$source_dir"
status=0
printf '%s\0' "${sources[@]}" |
  xargs -0 -P "$(nproc)" -I{} sh -c '"$0" "$@" {} 2>&1 || echo "MINGW-FAILED: {}"' "$compiler" "${flags[@]}" > "$log" || status=$?
failed=$(grep -c '^MINGW-FAILED: ' "$log" || true)
cat "$log"
rm -f "$log"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
  echo "FAILED: $failed of ${#sources[@]} translation units do not compile for Windows (mingw-w64)"
  exit 1
fi
echo "PASSED: ${#sources[@]} translation units compile for Windows (mingw-w64, syntax and types)"
