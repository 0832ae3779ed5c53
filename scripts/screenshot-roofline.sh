#!/usr/bin/env bash
# Renders a roofline chart the way a user sees it: headless Chromium (Debian's package
# `chromium`) opens the SVG and takes a screenshot.
#   usage: scripts/screenshot-roofline.sh PROFILE.csv OUT.png [GPULINT]
set -euo pipefail
profile=${1:?PROFILE.csv}; png=${2:?OUT.png}; gl=${3:-target/release/gpulint}
svg=$(mktemp --suffix=.svg); profile_dir=$(mktemp -d)
trap 'rm -rf "$svg" "$profile_dir"' EXIT
"$gl" roofline "$profile" --svg "$svg" > /dev/null
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile_dir" --hide-scrollbars --window-size=900,560 \
  --screenshot="$(realpath -m "$png")" "file://$svg" 2>/dev/null
echo "wrote $png"
