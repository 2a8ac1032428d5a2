#!/usr/bin/env bash
# The MicroPython unix port built 32-bit (a Pico's object sizes), as ../shared/pico/micropython-unix32 is, with
# the board's firmware frozen in (firmware/manifest.py): the firmware's bytecode and names are then in the
# binary, not in the heap, as on a Pico whose MicroPython image has the firmware frozen. It measures what the
# board needs of the heap then (docs/architecture.md, "Memory on the board"):
#   python tools/bench_board.py --no-write --frozen OUT        the board alone, the 1994 game
#   python tools/run_mp_tests.py --frozen32 OUT                every firmware test module at 64k
# Usage: tools/frozen_unix32.sh MICROPYTHON_SOURCE [OUT]   (OUT: build/micropython-frozen32)
# MICROPYTHON_SOURCE: the image's MicroPython source tree (make fills build/pico-src: tools/image/sources.sh), with
# lib/micropython-lib (the unix variant's manifest needs it). Needs gcc-multilib (Debian) for -m32.
set -euo pipefail
# Run from make: its MAKEFLAGS name a jobserver this script does not pass on, and the builds below would fall
# back to one job (make: "jobserver unavailable: using -j1"); they run their own -j instead.
unset MAKEFLAGS MFLAGS MAKELEVEL
src=$(cd "${1:?usage: tools/frozen_unix32.sh MICROPYTHON_SOURCE [OUT]}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${2:-$root/build/micropython-frozen32}")
[ -f "$src/ports/unix/Makefile" ] || { echo "frozen_unix32: no MicroPython source at $src" >&2; exit 2; }
[ -d "$src/lib/micropython-lib/python-stdlib" ] || { echo "frozen_unix32: $src/lib/micropython-lib is empty" >&2; exit 2; }
# the manifest at a fixed path, written only when it changes: an unchanged tree rebuilds nothing
manifest=$out.manifest.py
mkdir -p "$(dirname "$out")"
cat > "$manifest.new" <<MANIFEST
include("\$(PORT_DIR)/variants/standard/manifest.py")
include("$root/firmware/manifest.py")
MANIFEST
cmp -s "$manifest.new" "$manifest" || mv "$manifest.new" "$manifest"
rm -f "$manifest.new"
log=$out.log  # the build's output, shown only when it fails (a static link warns about getaddrinfo)
make -C "$src/mpy-cross" -j"$(nproc)" >"$log" 2>&1 || { cat "$log"; exit 1; }
# bao.sowing's native code (the sowing kernel) is made for the machine that runs it: x86 here
make -C "$src/ports/unix" -j"$(nproc)" VARIANT=standard BUILD=build-bao-frozen-32 MICROPY_FORCE_32BIT=1 \
  MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_SSL_MBEDTLS=0 LDFLAGS_EXTRA=-static \
  FROZEN_MANIFEST="$manifest" MPY_CROSS_FLAGS=-march=x86 >"$log" 2>&1 || { cat "$log"; exit 1; }
cp "$src/ports/unix/build-bao-frozen-32/micropython" "$out.new" && mv -f "$out.new" "$out"  # (a rename: a run of the old one goes on)
echo "frozen_unix32: $out"
