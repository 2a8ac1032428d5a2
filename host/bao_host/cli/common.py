"""What every sub-command that uses the game library shares: the --data option and opening the store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bao_host.record.store import DB_NAME, Store, StoreError, default_data_dir


def add_data_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="data directory of the game store (default: the platform's user data folder)",
    )


def open_store(args: argparse.Namespace, repair: bool = True, create: bool = True, readonly: bool = False) -> Store:
    """The game store of --data (or the user data folder). StoreError (one line) when --data is not a
    folder, cannot be made, or, for a command that only reads (`create=False`), holds no library yet:
    reading never leaves an empty library behind. `readonly`: the store is opened for reading only and
    nothing in the folder is changed (no repair, nothing set aside), whatever is found there."""
    given = getattr(args, "data", None)
    root = Path(given) if given is not None else default_data_dir()
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a game library folder")
    if not create and not ((root / DB_NAME).exists() or (root / "games").is_dir()):
        raise StoreError(f"no game library in {root} (`bao import` or `bao log` makes one there)")
    try:
        return Store(root, report=lambda m: print("bao: " + m, file=sys.stderr), repair=repair, readonly=readonly)
    except OSError as e:
        raise StoreError(f"cannot open the game library in {root}: {e.strerror or e}") from None
