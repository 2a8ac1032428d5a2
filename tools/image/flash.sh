#!/usr/bin/env bash
# Put the image on a Pico: hold BOOTSEL while plugging it in, and the Pico shows a USB drive named RPI-RP2;
# copying the .uf2 onto it flashes it (the Pico restarts into the board by itself). picotool does the same
# without the drive, where it is installed.
# Usage: tools/image/flash.sh IMAGE
set -euo pipefail
image=${1:?usage: flash.sh IMAGE}
for base in /media/"${SUDO_USER:-$USER}" /media /run/media/"${SUDO_USER:-$USER}" /mnt; do
  for d in "$base"/RPI-RP2; do
    if [ -f "$d/INFO_UF2.TXT" ]; then
      cp "$image" "$d/" && sync
      echo "flash: $image copied to $d: the Pico restarts into the board"
      exit 0
    fi
  done
done
if command -v picotool >/dev/null; then
  picotool load -x "$image" -f
  exit 0
fi
echo "flash: no Pico in BOOTSEL mode here. Hold BOOTSEL while plugging the Pico in, let go, and wait for the" >&2
echo "  drive RPI-RP2 to be mounted; then make flash again (or copy $image onto it by hand)." >&2
exit 1
