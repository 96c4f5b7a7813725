#!/usr/bin/env bash
# The disk image as a user meets it: mount it, copy the app out (as dragging it to Applications
# does), run the installed programs (version, devices, a few batches of the mlp example), check
# that nothing in the bundle points outside it or macOS, then remove it all. Run by
# .github/workflows/installers.yml.
#   packaging/macos/smoke-test.sh backprop-studio-0.1.0-macos-arm64.dmg
set -euo pipefail
dmg=$1
work=$(mktemp -d)
mount="$work/mount"
cleanup() {
  hdiutil detach "$mount" -quiet 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== mounting $dmg"
hdiutil attach "$dmg" -nobrowse -readonly -mountpoint "$mount" -quiet
mkdir -p "$work/Applications"
cp -R "$mount/Backprop Studio.app" "$work/Applications/"
hdiutil detach "$mount" -quiet
app="$work/Applications/Backprop Studio.app"
backprop="$app/Contents/MacOS/backprop"
[ -x "$app/Contents/MacOS/Backprop Studio" ] || { echo "FAILED: the studio is not in the bundle"; exit 1; }
[ -x "$backprop" ] || { echo "FAILED: backprop is not in the bundle"; exit 1; }

# Every library the programs load is macOS's or the bundle's own.
for binary in "$app/Contents/MacOS/Backprop Studio" "$backprop" "$app"/Contents/Frameworks/*.dylib; do
  [ -e "$binary" ] || continue
  outside=$(otool -L "$binary" | tail -n +2 | awk '{print $1}' |
            grep -v -E '^(/System/Library/|/usr/lib/|@rpath/|@executable_path/|@loader_path/)' || true)
  if [ -n "$outside" ]; then echo "FAILED: $binary loads libraries outside the bundle:"; echo "$outside"; exit 1; fi
done

export BACKPROP_CACHE_DIR="$work/cache"
echo "== backprop --version"; "$backprop" --version
echo "== backprop devices"; "$backprop" devices
echo "== backprop datasets download fashion-mnist"; "$backprop" datasets download fashion-mnist
echo "== backprop train mlp (5 batches)"
"$backprop" train "$app/Contents/Resources/examples/mlp.json" --batches 5 | tee "$work/train.log"
grep -q "stopped after 5 batches" "$work/train.log" || { echo "FAILED: training did not stop after 5 batches"; exit 1; }

echo "== removing the app"
rm -rf "$app"
[ ! -e "$app" ] || { echo "FAILED: the app could not be removed"; exit 1; }
echo "PASSED: mounted, copied, ran, removed"
