"""Matches between two players (`bao match`, tools/bench_engine.py): games in pairs from the same opening
with colours swapped, openings varied by a few random plies, and the score as an Elo difference with its
95 % confidence interval (Wilson's interval of the mean score, finite even for a clean sweep).

Each game is a function of the match's seed and its number alone (its pair's opening and the baselines' tie
breaks are seeded by both; the engine's table is cleared between games), so a long match can be split into
parts played apart (`part`) and continued after a stop: with a record file every finished game is appended
as a JSON line and a rerun plays only the games the file lacks. Runs on PyPy too (no dependency but the rules
core), which plays the same engine about twice as fast as CPython (docs/benchmarks.md, Engine)."""

from __future__ import annotations

import json
import math
import os
import platform
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bao import core

from bao_host.engine.players import Player

MAX_PLIES = 400  # a game still running after this many plies is scored a draw (Bao can cycle in mtaji)


@dataclass
class GameRecord:
    first: str  # the player who had South
    second: str
    winner: str | None  # a player's name, None: a draw by the ply limit
    plies: int
    opening: list[int]
    game: int = 0  # its number in the match, from 0: game 2k and 2k + 1 share an opening
    python: str = ""  # the interpreter that played it ("PyPy 3.9.16"): its hash() keys the engine's table
    finished: str = ""  # when, UTC ("YYYY-MM-DD HH:MM")
    load: float = -1.0  # the machine's load average then (a shared machine: what the games ran beside)


@dataclass
class MatchResult:
    a: str
    b: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    games: list[GameRecord] = field(default_factory=list)

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """A's points: 1 a win, 1/2 a draw."""
        return self.wins + 0.5 * self.draws

    def elo(self) -> tuple[float, float, float]:
        """(Elo difference of A over B, low and high end of its 95 % interval). The interval is Wilson's for
        the mean score (draws count half), which stays finite at 100 % or 0 %, unlike the plain normal one;
        the difference itself is +-inf there."""
        n = self.played
        if not n:
            return 0.0, -math.inf, math.inf
        s = self.score / n
        z = 1.96
        centre = (s + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low = -math.inf if s <= 0 else elo_of(centre - half)  # the clean sweeps' open ends, not float noise
        high = math.inf if s >= 1 else elo_of(centre + half)
        return elo_of(s), low, high

    def summary(self) -> str:
        n = self.played
        diff, low, high = self.elo()
        pct = 100.0 * self.score / n if n else 0.0
        return (
            f"{self.a} vs {self.b}: {n} games, +{self.wins} -{self.losses} ={self.draws}, "
            f"score {self.score:g}/{n} ({pct:.1f} %), Elo {fmt_elo(diff)} "
            f"(95 % interval {fmt_elo(low)} to {fmt_elo(high)})"
        )


def elo_of(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def fmt_elo(v: float) -> str:
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:+.0f}"


class MatchRecordError(ValueError):
    """A record file that belongs to another match or cannot be read."""


def parse_part(text: str) -> tuple[int, int]:
    """`--part K/N` as run_match's part (K - 1, N); ValueError for anything but 1 <= K <= N."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 0 < int(k) <= int(n)):
        raise ValueError(f"--part takes K/N with 1 <= K <= N, not {text!r}")
    return int(k) - 1, int(n)


def opening(rng: random.Random, ruleset: str, plies: int) -> list[int]:
    """A few random legal plies from the start after which the game is not over and the side to move cannot
    win at once (random plies can throw a game away before a player has moved)."""
    while True:
        p = core.initial(ruleset)
        line = []
        for _ in range(plies):
            moves = core.legal_moves(p)
            if not moves:
                break
            m, p = rng.choice(moves)
            line.append(m)
        moves = core.legal_moves(p)
        if core.outcome(p, moves) is None and all(core.outcome(c) is None for _, c in moves):
            return line


def play_game(
    south: Player, north: Player, ruleset: str, line: list[int], game_seed: int = 0
) -> tuple[int | None, int]:
    """(winner side or None for a draw by MAX_PLIES, plies played) from the opening `line`; the players'
    tie breaks are seeded by game_seed."""
    p = core.initial(ruleset)
    for m in line:
        p = core.play(p, m)
    south.new_game(game_seed)
    north.new_game(game_seed)
    plies = len(line)
    while plies < MAX_PLIES:
        moves = core.legal_moves(p)
        w = core.outcome(p, moves)
        if w is not None:
            return w, plies
        player = south if p.to_move == core.SOUTH else north
        _, p = player.choose(p, moves)
        plies += 1
    return None, plies


def run_match(
    a: Player,
    b: Player,
    games: int,
    ruleset: str = core.ZANZIBAR,
    seed: int = 1,
    opening_plies: int = 4,
    report: Callable[[MatchResult, GameRecord], None] | None = None,
    record: str | Path | None = None,
    part: tuple[int, int] = (0, 1),
) -> MatchResult:
    """`games` games (rounded up to pairs): each opening twice, A as South then as North. With `record`, the
    games already in that file are counted and not played again, and each new one is appended. part=(k, n)
    plays only the pairs whose number is k modulo n (the rest are left to other parts)."""
    key = match_key(identity(a), identity(b), ruleset, seed, opening_plies)
    result = MatchResult(a.name, b.name)
    done = {}
    if record is not None:
        _drop_unfinished_line(record)
        done = read_record(record, key)
    for g in range(games + games % 2):
        rec = done.get(g)
        if rec is None and (g // 2) % part[1] == part[0]:
            rec = _play(a, b, ruleset, seed, opening_plies, g)
            if record is not None:
                with open(record, "a") as f:  # one short write per line: parts may share the file
                    f.write(json.dumps({"match": key, **asdict(rec)}) + "\n")
        if rec is not None:
            count(result, rec)
            if report is not None:
                report(result, rec)
    return result


def identity(player: Player) -> str:
    """A player's name, and for an engine which weights it evaluates with: a record of games played with
    other weights is another match."""
    weights = getattr(getattr(player, "engine", None), "weights", None)
    if weights is None:
        return player.name
    return f"{player.name} (weights {zlib.crc32(repr(tuple(weights)).encode()):08x})"


def match_key(a: str, b: str, ruleset: str, seed: int, opening_plies: int) -> str:
    """What a record file's games must share to be one match."""
    return f"{a} vs {b}, {ruleset}, seed {seed}, {opening_plies}-ply openings"


def count(result: MatchResult, rec: GameRecord) -> None:
    """Add a game to the score (A is result.a)."""
    if rec.winner is None:
        result.draws += 1
    elif rec.winner == result.a:
        result.wins += 1
    else:
        result.losses += 1
    result.games.append(rec)


def _play(a: Player, b: Player, ruleset: str, seed: int, opening_plies: int, g: int) -> GameRecord:
    line = opening(random.Random(f"{seed}:{g // 2}"), ruleset, opening_plies)
    south, north = (a, b) if g % 2 == 0 else (b, a)
    winner, plies = play_game(south, north, ruleset, line, seed * 100_003 + g)
    name = None if winner is None else (south if winner == core.SOUTH else north).name
    return GameRecord(
        south.name,
        north.name,
        name,
        plies,
        line,
        g,
        f"{platform.python_implementation()} {platform.python_version()}",
        time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else -1.0,
    )


def _drop_unfinished_line(path: str | Path) -> None:
    """A run killed while writing a game leaves a line without its newline: that game is played again."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return
    if text and not text.endswith("\n"):
        Path(path).write_text(text[: text.rfind("\n") + 1])


def read_record(path: str | Path, key: str) -> dict[int, GameRecord]:
    """The games of the match `key` in a record file (none if the file does not exist yet)."""
    games: dict[int, GameRecord] = {}
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return games
    except OSError as e:
        raise MatchRecordError(f"cannot read the record {path}: {e}") from e
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if obj.pop("match") != key:
                raise MatchRecordError(f"{path}:{n} is a game of another match, not of {key}")
            rec = GameRecord(**obj)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            if isinstance(e, MatchRecordError):
                raise
            raise MatchRecordError(f"{path}:{n} is not a game record: {e}") from e
        games[rec.game] = rec
    return games
