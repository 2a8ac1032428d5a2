"""Matches between two players (`bao match`, tools/bench_engine.py): games in pairs from the same opening
with colours swapped, openings varied by a few random plies, and the score as an Elo difference with its
95 % confidence interval (Wilson's interval of the mean score, finite even for a clean sweep)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

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
        return elo_of(s), elo_of(centre - half), elo_of(centre + half)

    def summary(self) -> str:
        n = self.played
        diff, low, high = self.elo()
        pct = 100.0 * self.score / n if n else 0.0
        return (f"{self.a} vs {self.b}: {n} games, +{self.wins} -{self.losses} ={self.draws}, "
                f"score {self.score:g}/{n} ({pct:.1f} %), Elo {fmt_elo(diff)} "
                f"(95 % interval {fmt_elo(low)} to {fmt_elo(high)})")


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


def play_game(south: Player, north: Player, ruleset: str, line: list[int]) -> tuple[int | None, int]:
    """(winner side or None for a draw by MAX_PLIES, plies played) from the opening `line`."""
    p = core.initial(ruleset)
    for m in line:
        p = core.play(p, m)
    south.new_game()
    north.new_game()
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


def run_match(a: Player, b: Player, games: int, ruleset: str = core.ZANZIBAR, seed: int = 1,
              opening_plies: int = 4, report: Callable[[MatchResult, GameRecord], None] | None = None
              ) -> MatchResult:
    """`games` games (rounded up to pairs): each opening twice, A as South then as North."""
    rng = random.Random(seed)
    result = MatchResult(a.name, b.name)
    line: list[int] = []
    for g in range(games + games % 2):
        if g % 2 == 0:
            line = opening(rng, ruleset, opening_plies)
        south, north = (a, b) if g % 2 == 0 else (b, a)
        winner, plies = play_game(south, north, ruleset, line)
        name = None if winner is None else (south if winner == core.SOUTH else north).name
        if winner is None:
            result.draws += 1
        elif (winner == core.SOUTH) == (g % 2 == 0):
            result.wins += 1
        else:
            result.losses += 1
        rec = GameRecord(south.name, north.name, name, plies, line)
        result.games.append(rec)
        if report is not None:
            report(result, rec)
    return result
