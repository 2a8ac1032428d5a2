"""Shared by the end-to-end tests: the games to play (the 1994 game, random games from the rules core with
a seeded RNG), simulated hands playing them on a SimRunner, and the check that the store holds exactly the
played games (0 moves lost, 0 duplicated), in the database, the transcripts and the event logs."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import core, notation
from bao_host.boards.sim import SimRunner
from bao_host.record.state import DECISION
from bao_host.record.store import Store

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
MAX_PLIES = 400  # a random game longer than this is left unfinished (none of the seeds used gets there)


@dataclass
class Played:
    """A game as the hands played it on the board."""

    ruleset: str
    moves: list[tuple[core.Position, int]] = field(default_factory=list)  # (position before, move)
    final: core.Position | None = None

    @property
    def plies(self) -> list[str]:
        return [notation.format_move(m, p.to_move, notation.DONKERS) for p, m in self.moves]


def game_1994() -> Played:
    ps = notation.replay(T1994)
    g = Played(core.ZANZIBAR)
    for i, text in enumerate(T1994.plies):
        g.moves.append((ps[i], notation.parse_move(ps[i], text)[0]))
    g.final = ps[-1]
    return g


def random_game(rng: random.Random, ruleset: str) -> Played:
    p = core.initial(ruleset)
    g = Played(ruleset)
    while len(g.moves) < MAX_PLIES:
        moves = core.legal_moves(p)
        if not moves:
            break
        m, child = rng.choice(moves)
        g.moves.append((p, m))
        p = child
    g.final = p
    return g


def wait_for(cond: Callable[[], Any], timeout: float, step: Callable[[], object] | None = None, what: str = "") -> Any:
    """cond()'s first true value (calling step() meanwhile, or sleeping a little): bounded in time."""
    end = time.monotonic() + timeout
    while not (got := cond()):
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or cond}")
        if step is not None:
            step()
        else:
            time.sleep(0.01)
    return got


def play(
    runner: SimRunner,
    g: Played,
    step: Callable[[], object] | None = None,
    timeout: float = 60.0,
    stop: Callable[[], object] | None = None,
) -> None:
    """The hands perform every move of g (step() runs while they do: the logger's poll, faults...); a last
    move that waits for a house decision is ended by stop() (the host's STOP)."""
    for p, m in g.moves:
        job = runner.perform(p, m)
        wait_for(job.done.is_set, timeout, step, "the hands")
        assert job.wait(), "the board lost its power during a move"
    if runner.phase == DECISION and stop is not None:
        stop()


def tally(root: Path, played: list[Played], board_id: str) -> dict[str, int]:
    """What the store holds against what the hands played, counted (the soak's report): moves lost (played,
    not stored), doubled (a MOVE stored twice, or more moves than played), reordered (a stored move at
    another ply than it was played, or MOVE events stored out of their board order), games mixed up
    (games or events of another board, a game stored under another game). Read only."""
    st = Store(root, readonly=True)
    try:
        n = {"games": 0, "moves": 0, "lost": 0, "doubled": 0, "reordered": 0, "games mixed up": 0, "flagged": 0}
        games = [g for g in st.games() if g.board_id == board_id]
        n["games mixed up"] += len(st.games()) - len(games)
        n["games mixed up"] += st.db.execute("SELECT COUNT(*) FROM events WHERE board_id<>?", (board_id,)).fetchone()[0]
        n["games mixed up"] += abs(len(games) - len(played))
        n["games"] = len(games)
        for g, want in zip(games, played):
            if g.ruleset != want.ruleset:
                n["games mixed up"] += 1
            have = g.plies
            n["moves"] += len(have)
            common = min(len(have), len(want.plies))
            n["reordered"] += sum(1 for i in range(common) if have[i] != want.plies[i])
            n["lost"] += max(0, len(want.plies) - len(have))
            n["doubled"] += max(0, len(have) - len(want.plies))
            seqs = [
                r[0]
                for r in st.db.execute(
                    "SELECT seq FROM events WHERE game=? AND type='MOVE' AND flag='' ORDER BY id", (g.id,)
                )
            ]
            n["doubled"] += len(seqs) - len(set(seqs))
            n["reordered"] += sum(1 for a, b in zip(seqs, seqs[1:]) if b < a)
            plies = [r[0] for r in st.db.execute("SELECT seq FROM moves WHERE game=? ORDER BY ply", (g.id,))]
            n["reordered"] += sum(1 for a, b in zip(plies, plies[1:]) if a is not None and b is not None and b < a)
        n["flagged"] = st.db.execute("SELECT COUNT(*) FROM events WHERE flag<>''").fetchone()[0]
        return n
    finally:
        st.close()


def check_store(root: Path, played: list[Played], board_id: str | None = None) -> dict[str, int]:
    """The store in root holds exactly the played games, in order: database, transcripts, event logs."""
    st = Store(root, readonly=True)  # a running logger may have it open
    try:
        games = [g for g in st.games() if board_id is None or g.board_id == board_id]
        assert [g.ruleset for g in games] == [p.ruleset for p in played], "games stored vs played"
        moves = 0
        for i, (g, want) in enumerate(zip(games, played)):
            assert g.plies == want.plies, f"game {i + 1}: stored {len(g.plies)} plies, played {len(want.plies)}"
            assert want.final is not None and st.current_position(g.id).d == want.final.d
            t = notation.parse_transcript((root / "games" / (g.key + ".txt")).read_text())
            assert t.plies == want.plies, f"game {i + 1}: the transcript differs"
            assert notation.replay(t)[-1].d == want.final.d
            seqs = [json.loads(x)["seq"] for x in (root / "games" / (g.key + ".jsonl")).read_text().splitlines()]
            assert len(seqs) == len(set(seqs)), f"game {i + 1}: an event logged twice"
            n_move_events = st.db.execute(
                "SELECT COUNT(*) FROM events WHERE game=? AND type='MOVE' AND flag=''", (g.id,)
            ).fetchone()[0]
            assert n_move_events == len(want.plies), f"game {i + 1}: {n_move_events} MOVE events stored"
            moves += len(g.plies)
        n = st.db.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
        assert n == moves == sum(len(p.moves) for p in played), "moves in the database"
        flagged = st.db.execute("SELECT COUNT(*) FROM events WHERE flag<>''").fetchone()[0]
        return {"games": len(games), "moves": moves, "flagged": flagged}
    finally:
        st.close()
