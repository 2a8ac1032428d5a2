"""The puzzles the puzzle tests use: the example set of docs/puzzles.md (a Zanzibar and a Malawi puzzle), as
a list or written as sets in a folder (puzzles/RULESET.json's layout)."""

from __future__ import annotations

import re
from pathlib import Path

from bao_host.puzzles import model
from bao_host.puzzles.sets import set_path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "puzzles.md"
ZANZIBAR_ID = "z-8523ac46"  # North's namua capture 8 (from a8); 6L and 6R are clearly worse
MALAWI_ID = "m-577a93e3"
LINE_ID = "z-01c59969"  # a line: North's 4L, South's 8, North's 3L, South's 3L, North's 5R (three moves to find)


def example_text() -> str:
    """The JSON block under "### Example" in docs/puzzles.md."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"### Example\n.*?```json\n(.*?)```", text, re.S)
    assert found, "docs/puzzles.md has no JSON example under '### Example'"
    return found.group(1)


def example() -> list[model.Puzzle]:
    return model.loads(example_text(), "docs/puzzles.md")


def write_sets(folder: Path) -> Path:
    """The example's puzzles as one set per ruleset in folder."""
    puzzles = example()
    for rs in {pz.ruleset for pz in puzzles}:
        model.dump(set_path(rs, folder), [pz for pz in puzzles if pz.ruleset == rs])
    return folder
