"""The Pico's filesystem as MicroPython's rp2 port formats it (LittleFS v2, 4096-byte blocks, 352 blocks =
1408 KiB at flash offset 0xA0000 on RPI_PICO, prog size 256 as in ports/rp2/modules/_boot.py), built from
folders on the PC: what `make deploy` would copy onto a real Pico.

    python tools/pico/mkfs.py OUT.img SRC[:DEST] [SRC[:DEST] ...] [--exclude NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BLOCK_SIZE = 4096
BLOCK_COUNT = 352
EXTS = (".py", ".mpy", ".json", ".txt", ".csv", ".bin")


def build(out: Path, sources: list[tuple[Path, str]], exclude: tuple[str, ...] = ()) -> tuple[int, int]:
    from littlefs import LittleFS  # type: ignore[import-untyped]

    fs = LittleFS(
        block_size=BLOCK_SIZE, block_count=BLOCK_COUNT, read_size=32, prog_size=256, lookahead_size=32, name_max=255
    )
    made: set[str] = set()

    def mkdirs(path: str) -> None:
        cur = ""
        for part in path.strip("/").split("/"):
            if part:
                cur += "/" + part
                if cur not in made:
                    made.add(cur)
                    try:
                        fs.mkdir(cur)
                    except FileExistsError:
                        pass

    files = total = 0
    for src, dest in sources:
        root = "/" + dest.strip("/") if dest.strip("/") else ""
        paths = [src] if src.is_file() else sorted(src.rglob("*"))
        for p in paths:
            rel = p.relative_to(src.parent if src.is_file() else src)
            if any(part in exclude or part == "__pycache__" for part in rel.parts):
                continue
            if not p.is_file() or p.suffix not in EXTS:
                continue
            target = root + "/" + rel.as_posix()
            mkdirs(target.rsplit("/", 1)[0])
            data = p.read_bytes()
            with fs.open(target, "wb") as fh:
                fh.write(data)
            files += 1
            total += len(data)
    out.write_bytes(bytes(fs.context.buffer))
    return files, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("sources", nargs="+", metavar="SRC[:DEST]")
    ap.add_argument("--exclude", action="append", default=[])
    args = ap.parse_args()
    sources = []
    for spec in args.sources:
        src, _, dest = spec.partition(":")
        if not Path(src).exists():
            print(f"mkfs: no such file or folder: {src}", file=sys.stderr)
            return 2
        sources.append((Path(src), dest or "/"))
    files, total = build(Path(args.out), sources, tuple(args.exclude))
    print(f"mkfs: {files} files, {total} bytes -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
