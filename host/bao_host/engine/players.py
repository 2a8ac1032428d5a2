"""Players for `bao match` and the engine benchmarks: the engine at a level, and the baseline players the
issue names (random; greedy; a fixed depth-2 search with a material evaluation).

A player is asked `choose(position, moves)` with the position's legal moves (core.legal_moves) and answers
one of those (move, child) entries. Baselines break ties at random with their own seeded generator, so a
match is reproducible. They live here, not in the test tree, because `bao match` plays against them; the
tests use them from here.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import Protocol

from bao import core, engine, evaluate

Entry = tuple[int, core.Position]


class Player(Protocol):
    name: str

    def choose(self, p: core.Position, moves: list[Entry]) -> Entry: ...

    def new_game(self, seed: int = 0) -> None:
        """A game starts: forget the last one; tie breaks (if any) from `seed` on."""


class SeededPlayer:
    """A baseline player whose ties (or moves) are drawn at random: each game from its own seed, so that a
    game of a match is the same whichever games are played before it."""

    def __init__(self, name: str, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, seed: int = 0) -> None:
        self.rng = random.Random(f"{self.seed}:{seed}")


class RandomPlayer(SeededPlayer):
    def __init__(self, seed: int = 0) -> None:
        super().__init__("random", seed)

    def choose(self, p: core.Position, moves: list[Entry]) -> Entry:
        return self.rng.choice(moves)


def seeds_of(p: core.Position, side: int) -> int:
    """Seeds on a side's 16 pits."""
    base = side << 4
    return sum(p.counts()[base : base + 16])


def material(p: core.Position, side: int) -> int:
    """Seeds a side holds (pits and store) minus the opponent's; a finished game is +-1000."""
    w = p.d[core.WINNER]
    if w != core.NONE:
        return 1000 if w == side else -1000
    d = p.d
    return seeds_of(p, side) + int(d[core.STORE + side]) - seeds_of(p, side ^ 1) - int(d[core.STORE + (side ^ 1)])


class GreedyPlayer(SeededPlayer):
    """The move that leaves the most seeds on the mover's side; among equals, one at random."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__("greedy", seed)

    def choose(self, p: core.Position, moves: list[Entry]) -> Entry:
        side = p.to_move
        best = max(seeds_of(c, side) for _, c in moves)
        return self.rng.choice([e for e in moves if seeds_of(e[1], side) == best])


class MaterialSearchPlayer(SeededPlayer):
    """A fixed-depth negamax search (no pruning needed at depth 2) with a material evaluation; among equal
    moves, one at random. A side without a legal move has lost (1.2)."""

    def __init__(self, depth: int = 2, seed: int = 0) -> None:
        super().__init__(f"material{depth}", seed)
        self.depth = depth

    def _value(self, p: core.Position, depth: int) -> int:
        side = p.to_move
        if p.d[core.WINNER] != core.NONE or depth == 0:
            return material(p, side)
        moves = core.legal_moves(p)
        if not moves:
            return -1000
        return max(-self._value(c, depth - 1) for _, c in moves)

    def choose(self, p: core.Position, moves: list[Entry]) -> Entry:
        values = [-self._value(c, self.depth - 1) for _, c in moves]
        best = max(values)
        return self.rng.choice([e for e, v in zip(moves, values) if v == best])


class EnginePlayer:
    """bao.engine at a level: a time per move (ms), a depth or a number of nodes."""

    def __init__(
        self,
        movetime: int = 0,
        depth: int = 0,
        nodes: int = 0,
        tt_bits: int = 18,
        weights: tuple[int, ...] | None = None,
        name: str = "",
    ) -> None:
        self.movetime, self.depth, self.nodes = movetime, depth, nodes
        self.engine = engine.Engine(tt_bits=tt_bits, weights=weights)
        level = f"{movetime}ms" if movetime else f"d{depth}" if depth else f"n{nodes}"
        self.name = name or f"engine:{level}"

    def choose(self, p: core.Position, moves: list[Entry]) -> Entry:
        r = self.engine.search(p, depth=self.depth, nodes=self.nodes, movetime=self.movetime)
        for e in moves:
            if e[0] == r.move:
                return e
        raise AssertionError(f"the engine answered a move that is not legal here: {r.move}")

    def new_game(self, seed: int = 0) -> None:
        self.engine.clear()


class PlayerSpecError(ValueError):
    """A player named on the command line that does not exist."""


SPEC_HELP = (
    "engine (at --movetime), engine:250ms, engine:d4 (depth), engine:n20000 (nodes), an engine with "
    "the weights of a file: engine:n20000@FILE.py, random, greedy, material2 (depth-2 material search; "
    "materialN for depth N)"
)


def load_weights(path: str) -> tuple[int, ...]:
    """The WEIGHTS tuple of a weights file (the format of bao/engine_weights.py, which tools/tune_engine.py
    writes), read as data: nothing in the file is run."""
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError, ValueError) as e:
        raise PlayerSpecError(f"cannot read the weights {path}: {e}") from e
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "WEIGHTS" for t in node.targets):
            try:
                w = ast.literal_eval(node.value)
            except ValueError:
                break
            if isinstance(w, tuple) and len(w) == 2 * evaluate.COUNT and all(type(v) is int for v in w):
                return w
    raise PlayerSpecError(f"{path} has no WEIGHTS = ({2 * evaluate.COUNT} integers)")


def make_player(spec: str, movetime: int = 1000, seed: int = 0) -> Player:
    """A player from its name (SPEC_HELP)."""
    spec, at, weights_file = spec.partition("@")
    if at:
        player = make_player(spec, movetime, seed)
        if not isinstance(player, EnginePlayer):
            raise PlayerSpecError(f"only an engine takes weights: {spec}@{weights_file}")
        player.engine.weights = load_weights(weights_file)
        player.name += "@" + Path(weights_file).stem
        return player
    s = spec.strip().lower()
    if s == "random":
        return RandomPlayer(seed)
    if s == "greedy":
        return GreedyPlayer(seed)
    m = re.fullmatch(r"material(\d)?", s)
    if m:
        return MaterialSearchPlayer(int(m.group(1) or 2), seed)
    if s == "engine":
        return EnginePlayer(movetime=movetime)
    m = re.fullmatch(r"engine:(?:(\d+)ms|d(\d+)|n(\d+))", s)
    if m:
        ms, depth, nodes = (int(g) if g else 0 for g in m.groups())
        if ms or depth or nodes:
            return EnginePlayer(movetime=ms, depth=depth, nodes=nodes)
    raise PlayerSpecError(f"unknown player {spec!r}: one of {SPEC_HELP}")
