"""Where the puzzle sets live: puzzles/RULESET.json at the top of the repository (the shipped first set,
made by `bao puzzles`; docs/puzzles.md)."""

from __future__ import annotations

from pathlib import Path

from bao import core

from bao_host.puzzles import model

SET_DIR = Path(__file__).resolve().parent.parent.parent.parent / "puzzles"


def set_path(ruleset: str, folder: Path = SET_DIR) -> Path:
    return folder / f"{ruleset}.json"


def load_sets(folder: Path = SET_DIR, rulesets: tuple[str, ...] = core.RULESETS) -> list[model.Puzzle]:
    """Every puzzle of the sets in folder (a ruleset without a set has none)."""
    out: list[model.Puzzle] = []
    for rs in rulesets:
        path = set_path(rs, folder)
        if path.exists():
            out.extend(model.load(path))
    return out
