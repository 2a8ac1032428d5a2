"""Making puzzles (docs/puzzles.md, "How the set is made"): every position of a game (from the library, a
transcript or engine self-play) goes through three searches of every legal move, each deeper and dearer
than the last, and only a position that passes one goes on to the next:

1. the cheap filter: each move's child searched shallow; the best move must lead the next best by
   CHEAP_GAP seeds (most positions stop here; its search follows captures CHEAP_QDEPTH plies only);
2. the deep check: the same at the ruleset's deep depth, the lead at least GAP seeds, the best move not
   losing by more than WORST seeds;
3. the deeper check: again two plies deeper; the same move must still lead by GAP seeds;
4. the final check: two plies deeper again, with a larger node cap; the same move must still be the best
   (by any lead: a solution that another move equals or beats deeper is not unique) and every move's
   search must finish. `bao puzzles --recheck` applies it to a set made before it existed.

A puzzle kept is then lengthened into a line while it can (up to MAX_MOVES of the solver's moves): after the
solution, the opponent's best reply (the deeper check's line) is played, and the position that follows goes
through the deep and the deeper check like a new one; if one move is again clearly best, it is the solver's
next move.

A kept puzzle gets themes from the solution's account (bao.query.account) and a rating from how many of
the engine levels in SOLVERS, weak to strong, play the solution.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from bao import core, engine, explain, position_json, query

from bao_host.engine import analysis, players
from bao_host.puzzles.model import Puzzle, puzzle_id

CHEAP_GAP = 2.0  # seeds
GAP = 3.0  # seeds: "every other move clearly worse"
WORST = -2.0  # seeds: a puzzle's solution may not lose by more than this
CHEAP_QDEPTH = 1  # plies of capture sequences the cheap filter follows
ENDGAME_SEEDS = 12  # a side with this many seeds or fewer on its pits (and an empty store): the endgame
MAX_MOVES = 3  # the solver's moves in a puzzle's line at most


@dataclass(frozen=True)
class Depths:
    """Plies searched below each move (the root move is one more ply) at each stage, with a node cap per
    move so that one wild position cannot hold the generator."""

    cheap: int
    deep: int
    deeper: int
    cheap_nodes: int = 3_000
    deep_nodes: int = 30_000
    deeper_nodes: int = 100_000
    final_nodes: int = 1_000_000

    @property
    def final(self) -> int:
        return self.deeper + 2


# A move whose search hits its node cap is not scored completely and the position is dropped: a long
# capture chain in the quiescence search can cost a thousand times a quiet one.
DEPTHS = {rs: Depths(1, 2, 4) for rs in core.RULESETS}


@dataclass
class Scored:
    move: int
    child: core.Position
    score: int  # centiseeds for the side to move at the root
    complete: bool  # the search reached the depth asked
    pv: list[int]


def score_moves(
    eng: engine.Engine, p: core.Position, moves: list[tuple[int, core.Position]], depth: int, nodes: int
) -> list[Scored]:
    """Every move's score (the side to move's view), best first: each child searched `depth` plies."""
    out: list[Scored] = []
    for m, child in moves:
        if child.d[core.WINNER] != core.NONE or not core.legal_move_codes(child):
            r = eng.search(child)  # a finished game: its score, no search
            out.append(Scored(m, child, -r.score, True, [m]))
            continue
        r = eng.search(child, depth=depth, nodes=nodes)
        done = r.depth >= depth or (r.mate is not None and abs(r.mate) <= r.depth)
        out.append(Scored(m, child, -r.score, done, [m] + list(r.pv)))
    out.sort(key=lambda s: s.score, reverse=True)
    return out


def lead(scored: list[Scored]) -> float:
    """Seeds by which the best move leads the next best (a forced win counts as analysis.MATE_SEEDS)."""
    return analysis.seeds(scored[0].score) - analysis.seeds(scored[1].score)


def passes(scored: list[Scored], gap: float) -> bool:
    return (
        len(scored) >= 2
        and all(s.complete for s in scored)
        and lead(scored) >= gap
        and analysis.seeds(scored[0].score) >= WORST
    )


def final_check(eng: engine.Engine, p: core.Position, move: str, depth: int, nodes: int) -> tuple[str, float]:
    """The final check of a solution (its notation) in p: ('unique' | 'narrower' | 'other best' | 'not
    finished', the best move's lead in seeds) with every move's reply searched `depth` plies. The engine's
    table is cleared first: the verdict on a position does not depend on what was searched before it."""
    eng.clear()
    scored = score_moves(eng, p, core.legal_moves(p), depth, nodes)
    gap = lead(scored) if len(scored) >= 2 else float(analysis.MATE_SEEDS)
    if not all(s.complete for s in scored):
        return "not finished", gap
    if core.format_move(scored[0].move, p.to_move) != move or (len(scored) >= 2 and gap <= 0):
        return "other best", gap
    return ("unique" if gap >= GAP else "narrower"), gap


KEPT = ("unique", "narrower")  # the final check's verdicts that keep a puzzle


def themes(p: core.Position, move: int, best: Scored) -> list[str]:
    """What the solution is about, from its account: a capture or a chain of them, a takasa and the
    takasia it makes (4.1, M18), the house played or kept (2.5, M15), a namua move, the forced capture of
    the kuu games (M19), the endgame, and whether it wins or holds."""
    steps = query.account(p, move)
    kinds = [s[0] for s in steps]
    out: list[str] = []
    captures = kinds.count(core.STEP_CAPTURE)
    if captures >= 2:
        out.append("capture-chain")
    elif captures == 1:
        out.append("capture")
    if move & core.TAKASA:
        out.append("takasa")
    if move & core.MAKES_TAKASIA:
        out.append("takasia")
    if core.STEP_HOUSE in kinds or move & core.PLAY:
        out.append("house")
    if move & core.NAMUA:
        out.append("namua")
    if p.d[core.MUST] != core.NONE:
        out.append("forced-capture")
    d = p.d
    for side in (core.SOUTH, core.NORTH):
        base = side << 4
        if not d[core.STORE + side] and sum(d[base : base + 16]) <= ENDGAME_SEEDS:
            out.append("endgame")
            break
    out.append("winning" if analysis.seeds(best.score) > 0 else "defence")
    return out


SOLVERS: tuple[tuple[str, Callable[[], players.Player]], ...] = (
    ("greedy", lambda: players.GreedyPlayer(seed=1)),
    ("material2", lambda: players.MaterialSearchPlayer(2, seed=1)),
    ("engine:d1", lambda: players.EnginePlayer(depth=1, tt_bits=14)),
    ("engine:d2", lambda: players.EnginePlayer(depth=2, tt_bits=14)),
    ("engine:d3", lambda: players.EnginePlayer(depth=3, tt_bits=14)),
)
BASE_RATING = 700
STEP_RATING = 200  # each engine level that misses the solution makes the puzzle this much harder


def difficulty(p: core.Position, move: int) -> tuple[dict[str, bool], int]:
    """Which engine levels, weak to strong, play the solution, and the puzzle's rating from that."""
    moves = core.legal_moves(p)
    found: dict[str, bool] = {}
    for name, make in SOLVERS:
        player = make()
        player.new_game(0)
        found[name] = core.format_move(player.choose(p, moves)[0], p.to_move) == core.format_move(move, p.to_move)
    misses = sum(not f for f in found.values())
    return found, BASE_RATING + STEP_RATING * misses


class Generator:
    """Checks positions one by one; `examine` answers a Puzzle or None. Counters say how far positions got."""

    def __init__(self, ruleset: str, tt_bits: int = 18) -> None:
        self.ruleset = ruleset
        self.depths = DEPTHS[ruleset]
        self.engine = engine.Engine(tt_bits=tt_bits)
        # The cheap filter's engine follows a capture sequence one ply only: the long sequences that the
        # deep checks follow (qdepth 6) cost most of a search's nodes.
        self.quick = engine.Engine(tt_bits=16, qdepth=CHEAP_QDEPTH)
        self.examined = 0
        self.candidates = 0
        self.deep_passed = 0
        self.kept = 0

    def cheap(self, p: core.Position, moves: list[tuple[int, core.Position]]) -> list[Scored]:
        return score_moves(self.quick, p, moves, self.depths.cheap, self.depths.cheap_nodes)

    def examine(self, p: core.Position, source: str, cheap: list[Scored] | None = None) -> Puzzle | None:
        if p.d[core.PLACING] or p.d[core.WINNER] != core.NONE:
            return None  # the placement (M22) is not a puzzle: every drop is nearly as good
        moves = core.legal_moves(p)
        if len(moves) < 2:
            return None
        self.examined += 1
        scored = cheap if cheap is not None else self.cheap(p, moves)
        if not passes(scored, CHEAP_GAP):
            return None
        self.candidates += 1
        d = self.depths
        deep = score_moves(self.engine, p, moves, d.deep, d.deep_nodes)
        if not passes(deep, GAP):
            return None
        self.deep_passed += 1
        deeper = score_moves(self.engine, p, moves, d.deeper, d.deeper_nodes)
        if not passes(deeper, GAP) or deeper[0].move != deep[0].move or not self.confirmed(p, deeper[0]):
            return None
        self.kept += 1
        return self.puzzle(p, deeper, source)

    def confirmed(self, p: core.Position, best: Scored) -> bool:
        """The final check: the deeper check's best move is still the best two plies deeper."""
        d = self.depths
        move = core.format_move(best.move, p.to_move)
        return final_check(self.engine, p, move, d.final, d.final_nodes)[0] in KEPT

    def recheck(self, pz: Puzzle) -> tuple[Puzzle | None, list[str]]:
        """A puzzle made before the final check, put through it: each of the solver's moves in turn. None
        when the solution fails it; a line whose later move fails is cut to the moves before it (its
        `line` stays the engine's line). Also answers each checked move's verdict in words."""
        d = self.depths
        said: list[str] = []
        for step in range(pz.moves):
            p = pz.position_at(step)
            verdict, gap = final_check(self.engine, p, pz.expected(step), d.final, d.final_nodes)
            said.append(f"{pz.expected(step)} {verdict}, lead {gap:.2f}")
            if verdict not in KEPT:
                if step == 0:
                    return None, said
                return dataclasses.replace(pz, moves=step), said
        return pz, said

    def clearly_best(self, p: core.Position) -> Scored | None:
        """The move of p that both deep checks find clearly best (the deep and the deeper check), or None."""
        moves = core.legal_moves(p)
        if len(moves) < 2 or p.d[core.WINNER] != core.NONE:
            return None
        d = self.depths
        deep = score_moves(self.engine, p, moves, d.deep, d.deep_nodes)
        if not passes(deep, GAP):
            return None
        deeper = score_moves(self.engine, p, moves, d.deeper, d.deeper_nodes)
        if not passes(deeper, GAP) or deeper[0].move != deep[0].move or not self.confirmed(p, deeper[0]):
            return None
        return deeper[0]

    def lengthen(self, p: core.Position, best: Scored) -> tuple[int, list[str]]:
        """The solver's moves the puzzle asks (1..MAX_MOVES) and its line: after each of the solver's moves the
        opponent's best reply (the search's line), then the next position checked like a new puzzle's."""
        side = p.to_move
        line = [core.format_move(best.move, side)]
        moves = 1
        last = best
        while moves < MAX_MOVES and len(last.pv) >= 2:
            q = last.child
            reply = next((c for m, c in core.legal_moves(q) if m == last.pv[1]), None)
            if reply is None or reply.to_move != side:
                break
            nxt = self.clearly_best(reply)
            if nxt is None:
                break
            line += [core.format_move(last.pv[1], side ^ 1), core.format_move(nxt.move, side)]
            moves += 1
            last = nxt
        line += [core.format_move(m, side ^ ((k + 1) & 1)) for k, m in enumerate(last.pv[1:8])]
        return moves, line

    def puzzle(self, p: core.Position, scored: list[Scored], source: str) -> Puzzle:
        best = scored[0]
        side = p.to_move
        moves, line = self.lengthen(p, best)
        found, rating = difficulty(p, best.move)
        return Puzzle(
            puzzle_id(p),
            self.ruleset,
            position_json.to_dict(p),
            core.format_move(best.move, side),
            line,
            themes(p, best.move, best),
            rating,
            found,
            round(analysis.seeds(best.score), 2),
            round(analysis.seeds(scored[1].score), 2),
            self.depths.deeper + 1,
            source,
            explain.describe(query.account(p, best.move), p.rules.ruleset),
            moves,
        )


def self_play(gen: Generator, seed: int, explore: float = 0.3, max_plies: int = 200) -> Iterator[Puzzle]:
    """One game of the engine against itself from the ruleset's start, a move at random now and then (the
    mistakes that make puzzles); every position is examined, the cheap filter's scores choosing the move."""
    rng = random.Random(f"{gen.ruleset}:{seed}")
    p = core.initial(gen.ruleset, first=rng.choice((core.SOUTH, core.NORTH)))
    for ply in range(max_plies):
        moves = core.legal_moves(p)
        if not moves or p.d[core.WINNER] != core.NONE:
            return
        if p.d[core.PLACING] or len(moves) == 1:
            p = rng.choice(moves)[1]
            continue
        scored = gen.cheap(p, moves)
        pz = gen.examine(p, f"self-play {seed} ply {ply + 1}", scored)
        if pz is not None:
            yield pz
        p = rng.choice(moves)[1] if rng.random() < explore else scored[0].child


def from_games(gen: Generator, games: Iterable[tuple[str, list[core.Position]]]) -> Iterator[Puzzle]:
    """Every position of recorded games (the library's, transcripts): (a name, its positions)."""
    for name, positions in games:
        for i, p in enumerate(positions):
            if p.rules.ruleset != gen.ruleset:
                break
            pz = gen.examine(p, f"{name} ply {i + 1}")
            if pz is not None:
                yield pz


def run(
    gen: Generator,
    known: dict[str, Puzzle],
    target: int,
    deadline: float,
    first_seed: int,
    games: Iterable[tuple[str, list[core.Position]]],
    keep: Callable[[Puzzle], None],
) -> int:
    """Puzzles until `target` are known or time.monotonic() passes `deadline`: recorded games first,
    then self-play games from first_seed on. keep(puzzle) is called for each new one. Answers the next
    self-play seed (to continue from)."""

    def new(pz: Puzzle) -> bool:
        return pz.id not in known

    for pz in from_games(gen, games):
        if new(pz):
            known[pz.id] = pz
            keep(pz)
        if len(known) >= target or time.monotonic() > deadline:
            return first_seed
    seed = first_seed
    while len(known) < target and time.monotonic() < deadline:
        for pz in self_play(gen, seed):
            if new(pz):
                known[pz.id] = pz
                keep(pz)
            if len(known) >= target or time.monotonic() > deadline:
                break
        seed += 1
    return seed
