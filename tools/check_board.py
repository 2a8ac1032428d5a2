"""`make deploy`'s first step: is there a MicroPython board on USB, and is its MicroPython recent enough for the
firmware? Asks the board through mpremote, before anything is copied. Exit status 0 when it is, 1 with one
line saying what to do when it is not.

    python tools/check_board.py [--mpremote PATH] [--device auto]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

# The rules core and the board application run on MicroPython 1.22 and later (bao/core.py); the .mpy files
# make deploy copies are bytecode of format 6, which every MicroPython from 1.19 on loads.
MIN_VERSION = (1, 22, 0)
MPY_MAJOR = 6
NEEDED = ".".join(str(v) for v in MIN_VERSION[:2])
HOW = (f"put MicroPython on the Pico first: hold BOOTSEL while plugging it in, copy the RPI_PICO .uf2 of "
       f"MicroPython {NEEDED} or later onto the RPI-RP2 drive (hardware/README.md, 'MicroPython on the Pico')")
ASK = ("import sys; i = sys.implementation; "
       "print('BAO-CHECK', i.name, '.'.join(str(v) for v in i.version[:3]), getattr(i, '_mpy', 0), "
       "getattr(i, '_machine', '?'))")


def verdict(reply: str) -> tuple[bool, str]:
    """What the board answered to ASK, judged: (ok, one line for the person deploying)."""
    line = next((x for x in reply.splitlines() if x.startswith("BAO-CHECK ")), "")
    parts = line.split(" ", 4)
    if len(parts) < 5:
        return False, f"the board did not answer as MicroPython does ({reply.strip()[:80]!r}): {HOW}"
    _, name, version, mpy, machine = parts
    if name != "micropython":
        return False, f"the board runs {name}, not MicroPython: {HOW}"
    try:
        numbers = tuple(int(v) for v in version.split("."))
        mpy_major = int(mpy) & 0xFF
    except ValueError:
        return False, f"cannot read the board's MicroPython version {version!r}: {HOW}"
    if numbers < MIN_VERSION:
        return False, f"the board runs MicroPython {version}; the firmware needs {NEEDED} or later: {HOW}"
    if mpy_major and mpy_major != MPY_MAJOR:
        return False, f"the board loads .mpy format {mpy_major}, the firmware is format {MPY_MAJOR}: {HOW}"
    pico = "RP2040" in machine or "Pico" in machine
    where = "" if pico else " (not a Pico? the pins in hardware/board.json are a Pico's)"
    return True, f"board: MicroPython {version} on {machine}{where}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpremote", default="mpremote")
    ap.add_argument("--device", default="auto", help="mpremote's connect argument (auto: the first board found)")
    args = ap.parse_args(argv)
    try:
        out = subprocess.run([args.mpremote, "connect", args.device, "exec", ASK], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"make deploy: cannot ask the board through mpremote ({e}): {HOW}", file=sys.stderr)
        return 1
    if out.returncode != 0:
        said = (out.stderr.strip().splitlines() or ["no answer"])[-1]
        print(f"make deploy: no MicroPython board answered on USB ({said}): {HOW}", file=sys.stderr)
        return 1
    ok, message = verdict(out.stdout)
    print(("make deploy: " if not ok else "") + message, file=sys.stderr if not ok else sys.stdout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
