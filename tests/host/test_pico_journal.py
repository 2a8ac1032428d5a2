"""The journal's own flash sectors on the emulated Pico (baoboard.flashres, baoboard.flashlog) under the
Bao-board image (MicroPython with the firmware frozen in) and its LittleFS: carved out at the first boot, found
again at the next ones, and left alone once LittleFS may have given a block away. `make test-pico` (marked
pico)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bao_host.boards.pico import PICO_TOOLS, default_image
from bao_testkit.picorig import NEEDS_PICO

pytestmark = [pytest.mark.pico, NEEDS_PICO]

ON_PICO = """
import json, os, rp2
from baoboard.flashres import journal_storage
from baoboard.journal import Journal
out = {}
st = journal_storage("/")
j = Journal(st)
j.open()
out["first"] = type(st).__name__
for i in range(30):
    j.append("MOVE", "a%d> {}" % (i % 8 + 1) + " " * 200)
m = open("/jflash/map").read().split()
blocks = [int(b) for b in m[1:]]
out["blocks"] = len(blocks)
dev = rp2.Flash()
head = bytearray(4)
dev.readblocks(blocks[0], head, 0)
out["head"] = bytes(head).decode()
st2 = journal_storage("/")  # the next boot
j2 = Journal(st2)
j2.open()
out["second"] = type(st2).__name__
out["pending"] = j2.npending
out["moves"] = j2.nmoves
with open("/jflash/s03", "wb") as f:  # a reserved file written again over USB: LittleFS moves it
    f.write(b"x" * 4096)
raw = bytearray(4096)
dev.readblocks(blocks[5], raw, 0)
st3 = journal_storage("/")
out["third"] = type(st3).__name__
Journal(st3).open()
raw2 = bytearray(4096)
dev.readblocks(blocks[5], raw2, 0)
out["untouched"] = raw == raw2
print(json.dumps(out))
"""


def test_the_journal_sectors_are_reserved_found_again_and_left_alone_when_a_file_moves(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "repl.txt").write_text("")  # the image's main.py leaves the REPL (baoboard.install)
    script = tmp_path / "on_pico.py"
    script.write_text(ON_PICO)
    proc = subprocess.run(
        [
            "node",
            str(PICO_TOOLS / "pico-run.mjs"),
            "--timeout",
            "1800",
            "--uf2",
            str(default_image()),
            "--dir",
            str(flash),
            "--file",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=2000,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["first"] == "FlashLog" and out["blocks"] == 32 and out["head"] == "BAOJ"
    assert out["second"] == "FlashLog" and out["pending"] == 30 and out["moves"] == 30
    assert out["third"] == "FileStorage" and out["untouched"]
