#!/usr/bin/env bash
# The MicroPython unix port built 32-bit (a Pico's object sizes), as ../shared/pico/micropython-unix32 is, with
# the board's firmware frozen in (firmware/manifest.py): the firmware's bytecode and names are then in the
# binary, not in the heap, as on a Pico whose MicroPython image has the firmware frozen. It measures what the
# board needs of the heap then (docs/architecture.md, "Memory on the board"):
#   python tools/bench_board.py --no-write --frozen OUT        the board alone, the 1994 game
#   python tools/run_mp_tests.py --frozen32 OUT                every firmware test module at 64k
# Usage: tools/frozen_unix32.sh MICROPYTHON_SOURCE [OUT]   (OUT: build/micropython-frozen32)
# MICROPYTHON_SOURCE: a MicroPython source tree with lib/micropython-lib (the unix variant's manifest needs it),
# at the commit of ../shared/pico (3fff03367a, its BUILD.md). Needs gcc-multilib (Debian) for -m32.
set -euo pipefail
src=$(cd "${1:?usage: tools/frozen_unix32.sh MICROPYTHON_SOURCE [OUT]}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/build/micropython-frozen32}
[ -f "$src/ports/unix/Makefile" ] || { echo "frozen_unix32: no MicroPython source at $src" >&2; exit 2; }
[ -d "$src/lib/micropython-lib/python-stdlib" ] || { echo "frozen_unix32: $src/lib/micropython-lib is empty" >&2; exit 2; }
manifest=$(mktemp --suffix=.py)
trap 'rm -f "$manifest"' EXIT
cat > "$manifest" <<MANIFEST
include("\$(PORT_DIR)/variants/standard/manifest.py")
include("$root/firmware/manifest.py")
MANIFEST
make -C "$src/mpy-cross" -j2 >/dev/null
# bao.core's native code (the sowing kernel) is made for the machine that runs it: x86 here
make -C "$src/ports/unix" -j2 VARIANT=standard BUILD=build-bao-frozen-32 MICROPY_FORCE_32BIT=1 \
  MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_SSL_MBEDTLS=0 LDFLAGS_EXTRA=-static \
  FROZEN_MANIFEST="$manifest" MPY_CROSS_FLAGS=-march=x86 >/dev/null
mkdir -p "$(dirname "$out")"
cp "$src/ports/unix/build-bao-frozen-32/micropython" "$out"
echo "frozen_unix32: $out"
