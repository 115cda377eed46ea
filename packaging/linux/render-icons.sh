#!/usr/bin/env bash
# Renders resources/icons/io.github.parley.Parley.svg into the PNG sizes desktops look for
# (resources/icons/hicolor/NxN/apps/). The PNGs are committed; run this after changing the SVG.
# Needs rsvg-convert (Debian: librsvg2-bin).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
svg="$here/resources/icons/io.github.parley.Parley.svg"
for size in 16 22 24 32 48 64 128 256 512; do
  out="$here/resources/icons/hicolor/${size}x${size}/apps"
  mkdir -p "$out"
  rsvg-convert -w "$size" -h "$size" "$svg" -o "$out/io.github.parley.Parley.png"
done
echo "rendered $svg"
