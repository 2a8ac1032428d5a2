"""The game library as the web pages show it: search, a game's replay drop by drop, its transcript in both
notations, its export and the engine's analysis.

A replay is a list of plies; each ply is a list of frames, one per thing a hand does on the board (a seed
from the store, a lift, each seed dropped, a capture, the house decision), each with the seed counts after
it (32 pits, then South's and North's store), the pit it happens in and the rules core's sentence for the
step (bao.explain, which cites the rule). The last frame of a ply is the position after the move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bao import core, explain, notation, query

from bao_host.record.store import Game, Store

KINDS = {
    core.STEP_STORE: "store",
    core.STEP_LIFT: "lift",
    core.STEP_TAX: "tax",
    core.STEP_SOW: "sow",
    core.STEP_CAPTURE: "capture",
    core.STEP_RELAY: "relay",
    core.STEP_HOUSE: "house",
    core.STEP_END: "end",
}
SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,120}")


@dataclass
class Search:
    player: str = ""
    date: str = ""
    ruleset: str = ""
    result: str = ""

    def games(self, store: Store, limit: int = 200) -> Found:
        """The games that match, the newest first, and how many matching were left out (as `bao games`
        says it): the lessons' tasks and puzzles played on the board, the games abandoned before their first
        move (no game to read)."""
        player, date, result, ruleset = (
            self.player or None,
            self.date or None,
            self.result or None,
            self.ruleset or None,
        )
        practice, empty = store.left_out(player=player, date=date, result=result, ruleset=ruleset)
        found = store.games(player=player, date=date, result=result, ruleset=ruleset, empty=False)
        return Found(found[-limit:][::-1], practice, empty)  # (the newest first)


@dataclass
class Found:
    games: list[Game]
    practice: int  # lesson tasks and puzzles played on the board: not listed
    empty: int  # games abandoned before their first move: not listed


def ply_frames(p: core.Position, move: int) -> list[dict[str, Any]]:
    """The frames of one move from p (query.account: the rules core's steps), drop by drop."""
    d = p.counts()
    store = core.STORE + p.to_move
    frames: list[dict[str, Any]] = []

    def frame(pit: int, text: str) -> None:
        frames.append({"counts": list(d), "pit": pit, "text": text, "kind": KINDS.get(kind, "end")})

    for st in query.account(p, move):
        kind = st[0]
        text = explain.describe_step(st, p.rules.ruleset.startswith("malawi"))
        if kind == core.STEP_STORE:
            d[st[1]] += 1
            d[store] -= 1
            frame(st[1], text)
        elif kind in (core.STEP_LIFT, core.STEP_TAX, core.STEP_CAPTURE, core.STEP_RELAY):
            d[st[1]] -= st[2]
            frame(st[1], text)
        elif kind == core.STEP_SOW:
            pits = explain.sown_pits(st)
            for i, pit in enumerate(pits):
                d[pit] += 1
                frame(pit, f"{text} ({i + 1} of {len(pits)})" if len(pits) > 1 else text)
        else:  # the house decision, the end of the move: words only
            frame(st[1] if kind == core.STEP_HOUSE else -1, text)
    return frames


def kiba_plies(positions: list[core.Position], plies: list[str]) -> list[str]:
    """The stored plies (Donkers notation) in the kiba notation."""
    out = []
    for p, text in zip(positions, plies):
        move, _ = notation.parse_move(p, text, notation.DONKERS)
        out.append(notation.format_move(move, p.to_move, notation.KIBA))
    return out


def replay(store: Store, game: Game) -> dict[str, Any]:
    """What the game's page animates: the start, then per ply its texts and frames."""
    positions = store.positions(game.id)
    kiba = kiba_plies(positions, game.plies)
    plies = []
    for i, text in enumerate(game.plies):
        p = positions[i]
        move, child = notation.parse_move(p, text, notation.DONKERS)
        frames = ply_frames(p, move)
        # the account's steps end where the rules core's position does: the stored position is the truth
        after = positions[i + 1].counts()
        if not frames or frames[-1]["counts"] != after:
            frames.append({"counts": after, "pit": -1, "text": "the position after the move", "kind": "end"})
        plies.append(
            {
                "n": i + 1,
                "side": "South" if p.to_move == core.SOUTH else "North",
                "donkers": text,
                "kiba": kiba[i],
                "frames": frames,
            }
        )
    return {"start": positions[0].counts(), "plies": plies}


def export(store: Store, game: Game, dialect: str) -> str:
    """The game's transcript in Donkers' or the kiba notation (the kiba one says so in its header)."""
    if dialect == notation.DONKERS:
        return game.transcript()
    if dialect != notation.KIBA:
        raise ValueError(f"unknown notation {dialect!r} (donkers or kiba)")
    h = game.headers()
    h["notation"] = notation.KIBA
    return notation.format_transcript(h, kiba_plies(store.positions(game.id), game.plies), game.comments())


def export_name(game: Game, dialect: str) -> str:
    """A download's file name: made of the game's number, never of its (player-given) texts."""
    return f"bao-game-{game.id}-{dialect}.txt"


def analysis(store: Store, game: Game) -> dict[str, Any] | None:
    """The engine's analysis of the game that `bao analyse` kept in the library, or None."""
    kept = store.analysis(game)
    return None if kept is None else kept[1]


def eval_points(evals: list[Any], width: int = 600, height: int = 120, limit: float = 16.0) -> str:
    """The evaluation graph's polyline points (South's view, clipped to +-limit seeds)."""
    nums = [float(e) for e in evals if isinstance(e, (int, float))]
    if len(nums) < 2:
        return ""
    pts = []
    for i, v in enumerate(nums):
        v = max(-limit, min(limit, v))
        x = i * width / (len(nums) - 1)
        y = height / 2 - v * (height / 2) / limit
        pts.append(f"{x:.1f},{y:.1f}")
    return " ".join(pts)


def iso_date(text: str) -> str:
    """A game's date as every page shows it, ISO (YYYY-MM-DD): a transcript's day-month-year (17-10-94,
    17.10.1994, 17/10/1994) is turned round; a two-digit year is of the 1900s from 70 on, else the 2000s.
    Any other text is shown as it is."""
    m = re.fullmatch(r"\s*(\d{1,2})[-./](\d{1,2})[-./](\d{2}|\d{4})\s*", text or "")
    if m is None:
        return text
    day, month, year = int(m[1]), int(m[2]), int(m[3])
    if len(m[3]) == 2:
        year += 1900 if year >= 70 else 2000
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return text
    return f"{year:04d}-{month:02d}-{day:02d}"
