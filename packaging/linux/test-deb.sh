#!/usr/bin/env bash
# The .deb's whole life, as a user meets it: build it with CPack, install it with apt, run the
# installed programs (version, devices, a few batches of the mlp example, the studio under Xvfb),
# remove it, and check that nothing of it is left in /usr.
#
#   packaging/linux/test-deb.sh BUILD_DIR CPACK
#
# Exit 77 (ctest's skip) when this machine cannot install packages, with the reason; any other
# non-zero exit is a failure. It installs into the real /usr, so ctest runs it alone (RUN_SERIAL).
set -euo pipefail

build=$(cd "$1" && pwd)
cpack=$2
app_id=io.github.backpropstudio.BackpropStudio
package=backprop-studio

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
step() { echo "== $*"; }

# ---- can this machine install packages? ------------------------------------------------------
command -v apt-get >/dev/null && command -v dpkg >/dev/null || skip "no apt-get and dpkg: not a Debian or Ubuntu machine"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  skip "installing a package needs root or sudo without a password, and this user has neither"
fi
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
  skip "$package is already installed on this machine; the test would replace it and then remove it"
fi
for tool in xvfb-run xwininfo desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null || fail "$tool is missing (packaging/setup-debian.sh installs it)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/backprop-deb-test-XXXXXX")
installed=false
cleanup() {
  if $installed; then
    echo "== removing $package after a failure"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y --autoremove "$package" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# ---- build -------------------------------------------------------------------------------------
step "building the .deb"
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/package" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" "$work"/package/_CPack_Packages/*/DEB/PreinstallOutput.log 2>/dev/null; fail "cpack -G DEB failed"; }
debs=("$work"/package/${package}_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no ${package}_*.deb in $work/package"
deb=${debs[0]}
echo "$deb"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"
for needed in ocl-icd-libopencl1 libqt6widgets6 libclblast1 libhdf5 libonnx1 libprotobuf32; do
  grep -q "$needed" <<< "$depends" || fail "the package does not depend on $needed"
done
grep -q "pocl-opencl-icd | opencl-icd" <<< "$(dpkg-deb -f "$deb" Recommends)" || fail "pocl-opencl-icd | opencl-icd is not recommended"
[ "$(dpkg-deb -f "$deb" Suggests)" = dataset-fashion-mnist ] || fail "dataset-fashion-mnist is not suggested"
contents=$(dpkg-deb -c "$deb")
if grep -q -E "libQt6|/qt6/plugins|OpenCL\.so" <<< "$contents"; then
  fail "the package carries its own Qt or OpenCL loader; it must use Debian's"
fi

# ---- install -----------------------------------------------------------------------------------
# /usr as it was, to compare with after the removal.
find /usr -xdev 2>/dev/null | sort > "$work/usr-before"
step "apt-get install $deb"
# No recommended packages: the test checks this package and must not download others (the
# recommended CPU driver is installed already, by packaging/setup-debian.sh).
installed=true
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install of the .deb failed"; }
dpkg -L "$package" | sort > "$work/package-files"
for file in /usr/bin/backprop /usr/bin/backprop-studio /usr/share/applications/$app_id.desktop \
            /usr/share/metainfo/$app_id.metainfo.xml /usr/share/icons/hicolor/scalable/apps/$app_id.svg \
            /usr/share/icons/hicolor/256x256/apps/$app_id.png /usr/share/backprop-studio/examples/mlp.json \
            /usr/share/backprop-studio/examples/cnn.json /usr/share/backprop-studio/examples/cifar.json; do
  [ -f "$file" ] || fail "$file was not installed"
done
# The licence, where Debian policy puts it, naming the project's licence and the system's GPL text.
copyright=/usr/share/doc/$package/copyright
[ -f "$copyright" ] || fail "$copyright was not installed"
grep -q "^Comment: SPDX-License-Identifier: GPL-3.0-or-later$" "$copyright" || fail "$copyright does not name GPL-3.0-or-later"
grep -q "^License: GPL-3+$" "$copyright" || fail "$copyright has no GPL-3+ licence paragraph"
grep -q "/usr/share/common-licenses/GPL-3" "$copyright" || fail "$copyright does not point at /usr/share/common-licenses/GPL-3"
grep -q "<project_license>GPL-3.0-or-later</project_license>" "/usr/share/metainfo/$app_id.metainfo.xml" ||
  fail "the AppStream metadata does not give the project licence GPL-3.0-or-later"
desktop-file-validate "/usr/share/applications/$app_id.desktop" || fail "the desktop entry is not valid"
appstreamcli validate --no-net "/usr/share/metainfo/$app_id.metainfo.xml" || fail "the AppStream metadata is not valid"

# ---- run what was installed --------------------------------------------------------------------
# A home and caches of the test's own, so nothing of the user's is read or written.
export HOME="$work/home" XDG_RUNTIME_DIR="$work/runtime" BACKPROP_CACHE_DIR="$work/cache"
unset POCL_CACHE_DIR
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
cd "$work"

step "backprop --version"
version=$(/usr/bin/backprop --version) || fail "backprop --version failed"
echo "$version"
expected="Backprop Studio $(dpkg-deb -f "$deb" Version) (git "
[[ "$version" == "$expected"* ]] || fail "backprop --version does not start with '$expected'"
for line in "Qt: " "CLBlast: " "HDF5: " "OpenCL loader: " "Kernel cache: $BACKPROP_CACHE_DIR/kernels"; do
  grep -q -F "$line" <<< "$version" || fail "backprop --version has no line '$line'"
done

step "backprop devices"
devices=$(/usr/bin/backprop devices) || fail "backprop devices failed"
echo "$devices"
grep -q '\*' <<< "$devices" || fail "backprop devices marks no device for training"

step "backprop train (the installed mlp example, 5 batches)"
/usr/bin/backprop train /usr/share/backprop-studio/examples/mlp.json --batches 5 --save-weights "$work/mlp.h5" \
  > "$work/train.log" 2>&1 || { cat "$work/train.log"; fail "training the mlp example failed"; }
cat "$work/train.log"
grep -q "stopped after 5 batches (--batches)" "$work/train.log" || fail "training did not stop after 5 batches"
grep -q "^test accuracy " "$work/train.log" || fail "training reported no test accuracy"
[ -s "$work/mlp.h5" ] || fail "the trained weights were not saved"

step "backprop-studio under xvfb-run"
# The window must appear (its title names the studio) and the program must still be running a few
# seconds later; every wait is bounded.
cat > "$work/studio.sh" <<'STUDIO'
set -u
# On the X server, whatever platform the tests around it use (they run offscreen).
QT_QPA_PLATFORM=xcb /usr/bin/backprop-studio > "$1/studio.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  xwininfo -root -tree 2>/dev/null | grep -q "Backprop Studio" && break
  kill -0 "$pid" 2>/dev/null || { echo "backprop-studio exited before its window appeared"; exit 1; }
  sleep 0.5
done
if ! xwininfo -root -tree | grep "Backprop Studio"; then echo "no Backprop Studio window within 120 s"; kill "$pid"; exit 1; fi
# tail --pid returns when the process ends: it must not end within 5 s (timeout's 124).
timeout 5 tail --pid="$pid" -f /dev/null
if [ $? -ne 124 ]; then echo "backprop-studio exited within 5 s of opening its window"; exit 1; fi
kill -TERM "$pid"
timeout 30 tail --pid="$pid" -f /dev/null || { echo "backprop-studio did not end within 30 s of SIGTERM"; kill -KILL "$pid"; exit 1; }
echo "backprop-studio stayed up, and ended on SIGTERM"
STUDIO
xvfb-run -a -s "-screen 0 1280x800x24" bash "$work/studio.sh" "$work" ||
  { cat "$work/studio.log"; fail "backprop-studio did not stay up under xvfb-run"; }

# ---- remove ------------------------------------------------------------------------------------
step "apt-get purge $package"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y --autoremove "$package" > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get purge failed"; }
installed=false
dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && fail "$package is still installed"
while read -r file; do
  [ -d "$file" ] && continue  # shared folders (/usr/share/icons, ...) stay
  [ -e "$file" ] && fail "$file is still there after the removal"
done < "$work/package-files"
find /usr -xdev 2>/dev/null | sort > "$work/usr-after"
# The caches that the desktop's package triggers rebuild are the system's, not the package's.
left=$(comm -13 "$work/usr-before" "$work/usr-after" | grep -v -E '/(mimeinfo\.cache|icon-theme\.cache)$' || true)
[ -z "$left" ] || fail "left in /usr after the removal:
$left"
echo "PASSED: built, installed, ran, removed; nothing left in /usr"
