"""The store's writes of its files: every write, append and rename of the data folder goes through here."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    """Write text to path so that a crash leaves the old file or the new one, never half of either. The
    temporary file carries the writer's pid: a repair removes it only when that process is gone."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def append_lines(path: Path, lines: list[str]) -> None:
    """Append lines to path and sync them to the disk."""
    with open(path, "a", encoding="utf-8") as f:
        # A half-written last line (crash) would glue onto ours: start on a fresh line.
        if f.tell() > 0:
            with open(path, "rb") as r:
                r.seek(-1, os.SEEK_END)
                if r.read(1) != b"\n":
                    f.write("\n")
        f.write("".join(s + "\n" for s in lines))
        f.flush()
        os.fsync(f.fileno())


def rename(src: Path, dst: Path) -> None:
    """Move a file aside (a damaged database, a transcript that cannot be replayed)."""
    os.replace(src, dst)
