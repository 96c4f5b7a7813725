#!/usr/bin/env bash
# The disk image as a user meets it: mount it, copy the app out (as dragging it to Applications
# does), check its Info.plist, licence and signature, check that nothing in the bundle points
# outside it or macOS, run the installed programs (version, devices, a few batches of the mlp
# example, the studio's window), then remove it all. The programs run in an environment of their
# own (env -i) with only macOS's folders on PATH: no Homebrew, no Qt variables. Run by
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

# The bundle's own Info.plist (packaging/macos/MacOSXBundleInfo.plist.in).
plist="$app/Contents/Info.plist"
for key_value in "CFBundleIdentifier=io.github.backpropstudio.BackpropStudio" "CFBundleExecutable=Backprop Studio" \
                 "NSHighResolutionCapable=true"; do
  key=${key_value%%=*}
  value=$(plutil -extract "$key" raw -o - "$plist") || { echo "FAILED: Info.plist has no $key"; exit 1; }
  [ "$value" = "${key_value#*=}" ] || { echo "FAILED: Info.plist's $key is '$value', not '${key_value#*=}'"; exit 1; }
done
plutil -extract LSMinimumSystemVersion raw -o - "$plist" || { echo "FAILED: Info.plist has no LSMinimumSystemVersion"; exit 1; }
# The licence text, and a signature that still matches after the install rules rewrote the
# libraries' paths (on Apple silicon a mismatch kills the program).
grep -q "GNU GENERAL PUBLIC LICENSE" "$app/Contents/Resources/LICENSE" || { echo "FAILED: the licence text is not in the bundle"; exit 1; }
codesign --verify --deep --strict --verbose=2 "$app" || { echo "FAILED: the bundle's signature does not verify"; exit 1; }

# Every library the programs load is macOS's or the bundle's own.
for binary in "$app/Contents/MacOS/Backprop Studio" "$backprop" "$app"/Contents/Frameworks/*.dylib; do
  [ -e "$binary" ] || continue
  outside=$(otool -L "$binary" | tail -n +2 | awk '{print $1}' |
            grep -v -E '^(/System/Library/|/usr/lib/|@rpath/|@executable_path/|@loader_path/)' || true)
  if [ -n "$outside" ]; then echo "FAILED: $binary loads libraries outside the bundle:"; echo "$outside"; exit 1; fi
done

# A clean environment: macOS's folders only, a home and cache of the test's own.
mkdir -p "$work/home"
clean=(env -i "HOME=$work/home" "PATH=/usr/bin:/bin:/usr/sbin:/sbin" "TMPDIR=${TMPDIR:-/tmp}" "BACKPROP_CACHE_DIR=$work/cache")
echo "== backprop --version"; "${clean[@]}" "$backprop" --version
echo "== backprop devices"; "${clean[@]}" "$backprop" devices
echo "== backprop datasets download fashion-mnist"; "${clean[@]}" "$backprop" datasets download fashion-mnist
echo "== backprop train mlp (5 batches)"
"${clean[@]}" "$backprop" train "$app/Contents/Resources/examples/mlp.json" --batches 5 | tee "$work/train.log"
grep -q "stopped after 5 batches" "$work/train.log" || { echo "FAILED: training did not stop after 5 batches"; exit 1; }

# The studio: a missing library or Qt plugin ends it at once; it must still run 10 s later.
echo "== the studio stays up"
"${clean[@]}" "$app/Contents/MacOS/Backprop Studio" > "$work/studio.log" 2>&1 &
studio=$!
for _ in $(seq 1 20); do
  kill -0 "$studio" 2>/dev/null || { cat "$work/studio.log"; echo "FAILED: the studio exited within 10 s"; exit 1; }
  sleep 0.5
done
kill -TERM "$studio"
wait "$studio" || true

echo "== removing the app"
rm -rf "$app"
[ ! -e "$app" ] || { echo "FAILED: the app could not be removed"; exit 1; }
echo "PASSED: mounted, copied, ran, removed"
