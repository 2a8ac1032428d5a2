"""The Bao-board image as built (make image): what the emulator cannot show before it crashes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ELF = ROOT / "build" / "image" / "RPI_PICO" / "firmware.elf"


@pytest.mark.skipif(
    not ELF.is_file() or shutil.which("arm-none-eabi-nm") is None,
    reason="no image built here (make image) or no arm-none-eabi-nm",
)
def test_every_frozen_native_function_is_word_aligned() -> None:
    """Frozen native code (the sowing kernel and steps, the Pico driver's loops) is read from its start as
    32-bit words: on the RP2040's Cortex-M0+ an unaligned word read faults (tools/image/patches/README.md)."""
    symbols = subprocess.run(["arm-none-eabi-nm", str(ELF)], capture_output=True, text=True, check=True).stdout
    native = [line.split() for line in symbols.splitlines() if " t fun_data_" in line]  # machine code: in .text
    assert any("bao_sowing" in name for _, _, name in native), "no frozen native code found"
    misaligned = [name for addr, _, name in native if int(addr, 16) % 4]
    assert misaligned == []
