#!/usr/bin/env bash
# Notarises a signed disk image with Apple and staples the ticket to it, so that Gatekeeper opens
# it offline. Needs APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD (an app-specific password);
# without them it says so and does nothing (the image stays unnotarised).
#   packaging/macos/notarize.sh backprop-studio-0.1.0-macos-arm64.dmg
set -euo pipefail
dmg=$1
if [ -z "${APPLE_ID:-}" ] || [ -z "${APPLE_TEAM_ID:-}" ] || [ -z "${APPLE_APP_PASSWORD:-}" ]; then
  echo "Not notarising $dmg: APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD are not all set"
  exit 0
fi
if [ -z "${MACOS_SIGNING_IDENTITY:-}" ]; then
  echo "Not notarising $dmg: it was not signed (MACOS_SIGNING_IDENTITY is not set)"
  exit 0
fi
codesign --force --timestamp --sign "$MACOS_SIGNING_IDENTITY" "$dmg"
xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
  --password "$APPLE_APP_PASSWORD" --wait --timeout 30m
xcrun stapler staple "$dmg"
xcrun stapler validate "$dmg"
spctl --assess --type open --context context:primary-signature --verbose "$dmg"
