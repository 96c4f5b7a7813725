#!/usr/bin/env bash
# Puts the stb headers the project uses (stb_image.h and stb_image_resize.h for the image readers
# in datasets/, stb_image_write.h for the engine's PNGs) into FOLDER, from one pinned stb commit,
# for Windows and macOS, where no package has all three: Homebrew has no stb, and vcpkg's stb
# port copies only stb's top folder, while stb_image_resize.h moved to deprecated/ when
# stb_image_resize2.h replaced it. Debian's libstb-dev has them all.
#
#   packaging/fetch-stb.sh FOLDER
#   cmake ... -DSTB_INCLUDE_DIR=FOLDER -DSTB_WRITE_INCLUDE_DIR=FOLDER
#
# Runs in Git Bash on Windows. Headers only: with no stb library found, datasets/ compiles the
# readers itself (BACKPROP_COMPILE_STB), and engine/base/png_file.cpp always compiles the writer.
# STB_REPOSITORY may name another clone of stb (a local mirror) that has the commit.
set -euo pipefail
folder=$1
commit=f75e8d1cad7d90d72ef7a4661f1b994ef78b4e31  # nothings/stb master of 2024-07-29 (vcpkg's stb port pins it too)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$work" init -q
git -C "$work" fetch -q --depth 1 "${STB_REPOSITORY:-https://github.com/nothings/stb.git}" "$commit"
git -C "$work" checkout -q FETCH_HEAD
mkdir -p "$folder"
cp "$work/stb_image.h" "$work/stb_image_write.h" "$folder/"
if [ -f "$work/stb_image_resize.h" ]; then
  cp "$work/stb_image_resize.h" "$folder/"
else
  cp "$work/deprecated/stb_image_resize.h" "$folder/"
fi
echo "stb $commit: stb_image.h, stb_image_resize.h and stb_image_write.h in $folder"
