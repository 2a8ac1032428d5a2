#!/usr/bin/env bash
# The image is reproducible: the same tree gives the same bytes on any machine with the pinned sources and
# Debian's toolchain. Compare the built image's SHA-256 with the one recorded for this tree.
# Usage: tools/image/check.sh IMAGE RECORD [--update]
set -euo pipefail
image=${1:?usage: check.sh IMAGE RECORD [--update]}
record=${2:?usage: check.sh IMAGE RECORD [--update]}
got=$(sha256sum "$image" | cut -d' ' -f1)
if [ "${3:-}" = "--update" ]; then
  echo "$got  $(basename "$image")" > "$record"
  echo "image-check: recorded $got"
  exit 0
fi
want=$(cut -d' ' -f1 "$record" 2>/dev/null || true)
if [ "$got" = "$want" ]; then
  echo "image-check: $(basename "$image") is the recorded image ($got)"
else
  echo "image-check: $(basename "$image") has SHA-256 $got, $record says ${want:-nothing}:" >&2
  echo "  the firmware or the image's recipe changed without recording it (make image-check UPDATE=1)," >&2
  echo "  or the build is not reproducible here (another toolchain than Debian 12's gcc-arm-none-eabi 12.2)" >&2
  exit 1
fi
