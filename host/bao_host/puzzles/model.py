"""A puzzle and a set of puzzles as data: the JSON format of docs/puzzles.md, read back with every field
checked (a damaged file is one clear line, PuzzleFormatError), and the check of a solver's answer."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import core, explain, notation, position_json, query

FORMAT = "bao-puzzles"
VERSION = 1
RULESET_CODES = {core.ZANZIBAR: "z", core.MALAWI: "m", core.MALAWI_INTERMEDIATE: "mi", core.MALAWI_ADVANCED: "ma"}
THEMES = (
    "capture",
    "capture-chain",
    "takasa",
    "takasia",
    "house",
    "namua",
    "forced-capture",
    "endgame",
    "winning",
    "defence",
)


class PuzzleFormatError(ValueError):
    """A puzzle set that cannot be read: what is wrong, in one line."""


class UnknownPuzzleError(LookupError):
    """No puzzle of that id in the set."""


@dataclass
class Puzzle:
    id: str
    ruleset: str
    position: dict[str, Any]  # bao.position_json
    solution: str  # the move to find (Donkers notation, rulings G7)
    line: list[str]  # the engine's line from the solution on (the solution first)
    themes: list[str]
    rating: int  # the puzzle's starting Glicko-2 rating, from how many engines find it (generate.difficulty)
    found_by: dict[str, bool]  # engine level -> whether it plays the solution
    best: float  # seeds, the solution's score for the side to move at the deeper check
    second: float  # seeds, the next best move's score there
    depth: int  # plies of the deeper check
    source: str
    account: list[str] = field(default_factory=list)  # the solution's account in words (bao.explain)
    # the solver's moves to find: 1, or a line (my move, the reply, my move...: line[0], line[2], ... each
    # clearly best by the deep checks, line[1], line[3], ... the opponent's best replies)
    moves: int = 1

    @property
    def difficulty(self) -> str:
        return "easy" if self.rating < 1100 else "medium" if self.rating < 1500 else "hard"

    def start(self) -> core.Position:
        return position_json.from_dict(self.position)

    def position_at(self, step: int) -> core.Position:
        """The position where the solver's move number `step` (0: the first) is to be found: the start, then
        each of the solver's moves and its reply of the line played."""
        p = self.start()
        for text in self.line[: 2 * step]:
            p = notation.parse_move(p, text)[1]
        return p

    def expected(self, step: int) -> str:
        """The solver's move number `step` (0: the solution)."""
        return self.solution if step == 0 else self.line[2 * step]

    def reply(self, step: int) -> str | None:
        """The opponent's reply to the solver's move number `step`, None after the last."""
        return self.line[2 * step + 1] if step + 1 < self.moves else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ruleset": self.ruleset,
            "position": self.position,
            "solution": self.solution,
            "line": self.line,
            "themes": self.themes,
            "rating": self.rating,
            "difficulty": self.difficulty,
            "found_by": self.found_by,
            "best": self.best,
            "second": self.second,
            "depth": self.depth,
            "source": self.source,
            "account": self.account,
            **({"moves": self.moves} if self.moves > 1 else {}),
        }


SIDE_NAMES = ("South", "North")


def task(pz: Puzzle, step: int) -> str:
    """What the solver is asked at the solver's move number `step`, as the terminal and the web page say it."""
    p = pz.position_at(step)
    me = SIDE_NAMES[p.to_move]
    if pz.moves == 1:
        return f"{me} to move: find the one move that is clearly best."
    other = SIDE_NAMES[p.to_move ^ 1]
    pairs = [f"{pz.line[2 * k]}, {other} {pz.line[2 * k + 1]}" for k in range(step)]
    return (
        f"{me} to move: a line of {pz.moves} moves, each clearly best. "
        + (f"So far: {'; '.join(pairs)}. " if pairs else "")
        + f"Find move {step + 1} of {pz.moves}."
    )


@dataclass
class Answer:
    correct: bool
    move: str  # the answer as the rules core writes it
    solution: str
    account: list[str]  # the answer's account in words
    solution_account: list[str] = field(default_factory=list)  # the solution's, when the answer is not it


def check_answer(pz: Puzzle, text: str, step: int = 0) -> Answer:
    """A solver's move number `step` (0: the first; a line's later moves: Puzzle.position_at) against the
    puzzle. bao.core.BaoError (NotationError, IllegalMoveError citing the rule) for a move that cannot be read
    or is not legal here."""
    p = pz.position_at(step)
    move, _child = notation.parse_move(p, text.strip())
    words = explain.describe(query.account(p, move), p.rules.ruleset)
    want = pz.expected(step)
    sol, _ = notation.parse_move(p, want)
    right = notation.same_move(move, sol)
    theirs = [] if right else explain.describe(query.account(p, sol), p.rules.ruleset)
    return Answer(right, core.format_move(move, p.to_move), want, words, theirs)


def check_move(pz: Puzzle, move: int, step: int = 0) -> Answer:
    """As check_answer, for a move code (a touch on the board, a click in the browser)."""
    p = pz.position_at(step)
    return check_answer(pz, core.format_move(notation.find_move(p, move)[0], p.to_move), step)


def puzzle_id(p: core.Position) -> str:
    """A stable id from the position: its ruleset's code and a hash of its bytes (the same position found
    twice is one puzzle)."""
    h = 2166136261
    for b in p.key():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF  # FNV-1a: the same on every run (hash() is salted)
    return f"{RULESET_CODES[p.rules.ruleset]}-{h:08x}"


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "ruleset": str,
    "position": dict,
    "solution": str,
    "line": list,
    "themes": list,
    "rating": int,
    "found_by": dict,
    "best": (int, float),
    "second": (int, float),
    "depth": int,
    "source": str,
}


def from_json(obj: object, where: str = "puzzle") -> Puzzle:
    if not isinstance(obj, dict):
        raise PuzzleFormatError(f"{where}: not a JSON object")
    for key, kind in _FIELDS.items():
        if key not in obj:
            raise PuzzleFormatError(f"{where}: the field {key!r} is missing")
        if not isinstance(obj[key], kind) or isinstance(obj[key], bool) and kind is int:
            raise PuzzleFormatError(f"{where}: the field {key!r} has the wrong type")
    where = f"puzzle {obj['id'][:40]}"
    if obj["ruleset"] not in RULESET_CODES:
        raise PuzzleFormatError(f"{where}: unknown ruleset {obj['ruleset'][:40]!r}")
    unknown = [t for t in obj["themes"] if t not in THEMES]
    if unknown:
        raise PuzzleFormatError(f"{where}: unknown theme {str(unknown[0])[:40]!r}")
    pz = Puzzle(
        obj["id"],
        obj["ruleset"],
        obj["position"],
        obj["solution"],
        [str(m) for m in obj["line"]],
        list(obj["themes"]),
        obj["rating"],
        {str(k): bool(v) for k, v in obj["found_by"].items()},
        float(obj["best"]),
        float(obj["second"]),
        obj["depth"],
        obj["source"],
        [str(s) for s in obj.get("account", [])],
    )
    moves = obj.get("moves", 1)
    if not isinstance(moves, int) or isinstance(moves, bool) or moves < 1 or len(pz.line) < 2 * moves - 1:
        raise PuzzleFormatError(f"{where}: the field 'moves' is not a count of the solver's moves in its line")
    pz.moves = moves
    try:
        p = pz.start()
        if p.rules.ruleset != pz.ruleset:
            raise PuzzleFormatError(f"{where}: the position's ruleset is not the puzzle's")
        notation.parse_move(p, pz.solution)
        if moves > 1:  # the line's moves are legal, one after the other, and it starts with the solution
            q = p
            for text in pz.line[: 2 * moves - 1]:
                q = notation.parse_move(q, text)[1]
            if not notation.same_move(notation.parse_move(p, pz.line[0])[0], notation.parse_move(p, pz.solution)[0]):
                raise PuzzleFormatError(f"{where}: the line does not start with the solution")
    except core.BaoError as e:
        raise PuzzleFormatError(f"{where}: {e}") from e
    return pz


def load(path: str | Path) -> list[Puzzle]:
    """A puzzle set written by dump (docs/puzzles.md). PuzzleFormatError for anything else."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PuzzleFormatError(f"{path}: not a text file (UTF-8 JSON expected)") from None
    except OSError as e:
        raise PuzzleFormatError(f"cannot read {path}: {e.strerror or e}") from None
    return loads(text, str(path))


def loads(text: str, name: str = "puzzle set") -> list[Puzzle]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise PuzzleFormatError(f"{name}: not valid JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise PuzzleFormatError(f'{name}: not a puzzle set ("format": "{FORMAT}" expected)')
    if doc.get("version") != VERSION:
        raise PuzzleFormatError(
            f"{name}: version {str(doc.get('version'))[:20]} is not {VERSION}, the one this program reads"
        )
    items = doc.get("puzzles")
    if not isinstance(items, list):
        raise PuzzleFormatError(f"{name}: the field 'puzzles' is missing or not a list")
    out = [from_json(o, f"{name}: puzzle {i + 1}") for i, o in enumerate(items)]
    seen: set[str] = set()
    for pz in out:
        if pz.id in seen:
            raise PuzzleFormatError(f"{name}: the id {pz.id} is there twice")
        seen.add(pz.id)
    return out


def about(path: str | Path) -> dict[str, Any]:
    """The set's `about` object (free: the runs that made it), {} when it has none; the set itself is read
    with load (a damaged file is refused there)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = doc.get("about") if isinstance(doc, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def dumps(puzzles: list[Puzzle], about: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if about:
        doc["about"] = about
    head = json.dumps(doc, indent=1, ensure_ascii=False)[:-2]  # without the closing "\n}"
    rows = ",\n".join("  " + json.dumps(pz.to_json(), ensure_ascii=False) for pz in puzzles)
    return head + ',\n "puzzles": [\n' + rows + ("\n ]\n}\n" if rows else " ]\n}\n")


def dump(path: str | Path, puzzles: list[Puzzle], about: dict[str, Any] | None = None) -> None:
    """Written whole to a temporary file and renamed: a reader never sees half a set."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(dumps(puzzles, about))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def find(puzzles: list[Puzzle], pid: str) -> Puzzle:
    for pz in puzzles:
        if pz.id == pid:
            return pz
    raise UnknownPuzzleError(f"no puzzle {pid[:40]!r} in the set ({len(puzzles)} puzzles; `bao puzzles list`)")
