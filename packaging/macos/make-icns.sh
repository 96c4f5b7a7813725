#!/usr/bin/env bash
# Makes packaging/macos/BackpropStudio.icns, the bundle's icon, from the SVG in packaging/icons.
# iconutil accepts an iconset only when every file has one of its ten names (icon_16x16.png,
# icon_16x16@2x.png, ... icon_512x512@2x.png), each image exactly the size its name says; any
# other name (icon_64x64.png, say) makes it refuse the whole set. Needs rsvg-convert (Homebrew's
# librsvg) to render the sizes, and iconutil (macOS) to pack them.
#
#   packaging/macos/make-icns.sh [ICONSET_FOLDER]
#
# With ICONSET_FOLDER it keeps the iconset there (for a look); without iconutil (not macOS) it
# stops after making the iconset, so the names can be checked anywhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
svg="$here/../icons/io.github.backpropstudio.BackpropStudio.svg"
command -v rsvg-convert >/dev/null || { echo "rsvg-convert is missing (brew install librsvg)" >&2; exit 1; }

if [ $# -ge 1 ]; then
  iconset=$1
  mkdir -p "$iconset"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  iconset="$work/BackpropStudio.iconset"
  mkdir "$iconset"
fi
for points in 16 32 128 256 512; do
  rsvg-convert -w "$points" -h "$points" "$svg" -o "$iconset/icon_${points}x${points}.png"
  rsvg-convert -w $((points * 2)) -h $((points * 2)) "$svg" -o "$iconset/icon_${points}x${points}@2x.png"
done
if ! command -v iconutil >/dev/null; then
  echo "made $iconset; iconutil is missing (not macOS), so no .icns"
  exit 0
fi
iconutil -c icns "$iconset" -o "$here/BackpropStudio.icns"
echo "made $here/BackpropStudio.icns"
