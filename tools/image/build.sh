#!/usr/bin/env bash
# Build the Bao-board image: MicroPython for RPI_PICO at the pinned commit (tools/image/SOURCES.txt) with the
# board's firmware frozen in (tools/image/manifest.py). Incremental: the host tools and the CMake configuration
# are made once; after that, make recompiles what changed (a firmware file: its bytecode, the frozen content,
# the link).
# Usage: tools/image/build.sh SRC BUILD OUT.uf2 VERSION
#   SRC      the sources (tools/image/sources.sh fills it)
#   BUILD    a build folder of its own (build/image)
#   VERSION  the board's version (pyproject.toml), frozen in as bao_image.VERSION
set -euo pipefail
# Run from make: its MAKEFLAGS name a jobserver this script does not pass on, and the builds below would fall
# back to one job (make: "jobserver unavailable: using -j1"); they run their own -j instead.
unset MAKEFLAGS MFLAGS MAKELEVEL
usage="usage: build.sh SRC BUILD OUT.uf2 VERSION"
src=$(cd "${1:?$usage}" && pwd)
mkdir -p "${2:?$usage}"
build=$(cd "$2" && pwd)
out=${3:?$usage}
version=${4:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jobs=${JOBS:-$(nproc)}
for tool in cmake arm-none-eabi-gcc; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing (make image-deps installs Debian's toolchain)" >&2; exit 2; }
done
# The version and date the image reports, from the pinned commit (a reproducible image: no clock, no .git)
while IFS='=' read -r key value; do export "$key=$value"; done < <(grep -E '^[A-Z_]+=' "$here/SOURCES.txt")

# bao_image: frozen into the image only, so that firmware/main.py knows it runs from the image (and HELLO says
# which); written only when it changes, so that an unchanged tree rebuilds nothing
mkdir -p "$build/frozen"
printf '# The Bao-board image (tools/image/build.sh): frozen in, never on the flash.\nVERSION = "%s"\nMICROPYTHON = "%s"\n' \
  "$version" "$MICROPY_GIT_TAG" > "$build/frozen/bao_image.py.new"
cmp -s "$build/frozen/bao_image.py.new" "$build/frozen/bao_image.py" || mv "$build/frozen/bao_image.py.new" "$build/frozen/bao_image.py"
rm -f "$build/frozen/bao_image.py.new"

# picotool: the host tool pico-sdk runs to make the .uf2; built once, beside the sources
if [ ! -x "$src/tools/picotool/picotool" ]; then
  cmake -S "$src/picotool" -B "$src/picotool/build" -DPICO_SDK_PATH="$src/micropython/lib/pico-sdk" \
    -DPICOTOOL_NO_LIBUSB=1 -DPICOTOOL_FLAT_INSTALL=1 -DCMAKE_INSTALL_PREFIX="$src/tools" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  make -s -j"$jobs" -C "$src/picotool/build" install >/dev/null
fi

# Paths of the sources and of this checkout are mapped to fixed names in what the compiler writes, so that
# two checkouts in two folders give the same bytes (through CFLAGS: CMake adds them to the SDK toolchain's own)
prefix_map="-ffile-prefix-map=$src=/src -ffile-prefix-map=$root=/bao-board -ffile-prefix-map=$build=/build"
cmake_build="$build/RPI_PICO"
if [ ! -f "$cmake_build/Makefile" ]; then
  CFLAGS="$prefix_map" ASMFLAGS="$prefix_map" cmake -S "$src/micropython/ports/rp2" -B "$cmake_build" -DPICO_BUILD_DOCS=0 -DMICROPY_BOARD=RPI_PICO \
    -DMICROPY_BOARD_DIR="$src/micropython/ports/rp2/boards/RPI_PICO" -Dpicotool_DIR="$src/tools/picotool" \
    -DMICROPY_FROZEN_MANIFEST="$here/manifest.py" -DMICROPY_MANIFEST_BAO_BOARD_ROOT="$root" \
    -DMICROPY_MANIFEST_BAO_IMAGE_DIR="$build/frozen" >/dev/null
fi
make -s -j"$jobs" -C "$cmake_build" >/dev/null
mkdir -p "$(dirname "$out")"
cp "$cmake_build/firmware.uf2" "$out"
echo "image: $out ($(stat -c %s "$out") bytes, sha256 $(sha256sum "$out" | cut -c1-16))"
