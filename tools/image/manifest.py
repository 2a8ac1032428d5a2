# ruff: noqa: F821  (freeze, include, module are given by MicroPython's manifest tool)
# The Bao-board image's frozen content (tools/image/build.sh): the rp2 port's own modules (_boot.py mounts the
# flash's file system; rp2.py) and the board's firmware. Not the stock RPI_PICO image's extras (asyncio,
# onewire, ds18x20, dht, neopixel): the board uses none of them.
freeze("$(PORT_DIR)/modules")
include("$(BAO_BOARD_ROOT)/firmware/manifest.py")
# VERSION: the image's own module (tools/image/build.sh writes it), how firmware/main.py knows it runs from an image
module("bao_image.py", base_path="$(BAO_IMAGE_DIR)")
