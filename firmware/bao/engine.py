# The search engine: iterative deepening negamax alpha-beta (principal variation search) with a bounded
# transposition table, move ordering (the table's move, captures by seeds taken, killer moves, history), a
# quiescence search over capture sequences (captures are compulsory, 1.7a, so a position where the side to
# move can capture is not quiet) and the evaluation of bao.evaluate. Limits by depth, nodes or time; a
# search stops at once (checked every few nodes) and still answers its best move so far. The same engine
# for every ruleset the core plays. Runs on CPython and MicroPython: plain data on the hot path, the
# transposition table two preallocated lists whose size is a parameter (no growth while searching).
import sys

from bao.engine_weights import WEIGHTS
from bao.evaluate import captures, evaluate
from bao.layout import IDENTITY, NONE, STORE, TAKASA, TO_MOVE, WINNER
from bao.rules import legal_moves

try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Callable

    from micropython import Const_T  # (a name of the stubs only: this import fails on CPython too)

    from bao.position import Position
except ImportError:
    pass

try:
    from micropython import const
except ImportError:  # CPython

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr


MATE = const(30000)  # a won game at the root; a win in n plies scores MATE - n
MATE_BOUND = const(29000)  # scores beyond this are forced wins or losses
INF = const(32000)
MAX_PLY = const(64)
_EXACT = const(0)
_LOWER = const(1)  # the score is at least this (a beta cut-off)
_UPPER = const(2)  # the score is at most this (no move raised alpha)
_TT_MOVE = const(1 << 20)
_CAPTURE = const(1 << 17)
_KILLER = const(1 << 16)
_MICROPYTHON = sys.implementation.name == "micropython"

try:
    from time import ticks_diff, ticks_ms

    def _now_ms() -> int:
        return ticks_ms()  # type: ignore[return-value]  # (the stubs' tick type: an int on the board)

    def _elapsed(start: int, now: int) -> int:
        return ticks_diff(now, start)

except ImportError:  # CPython
    from time import monotonic  # type: ignore[attr-defined]  # (CPython's: not in the MicroPython stubs)

    def _now_ms() -> int:
        return int(monotonic() * 1000)

    def _elapsed(start: int, now: int) -> int:
        return now - start


def _hash(d: bytearray) -> int:
    """A position hash for the transposition table (index in the low bits, the rest checks the slot)."""
    if _MICROPYTHON:
        # MicroPython hashes bytes to 16 bits; a rotated copy gives 14 more (30 bits: small ints on a Pico).
        return ((hash(bytes(d)) << 14) ^ hash(bytes(d[20:] + d[:20]))) & 0x3FFFFFFF
    return hash(bytes(d))


class _Stop(Exception):
    """Raised inside the search when a limit is reached or the caller asked it to stop."""


class SearchResult:
    """What a search found: the best move (a code of core.legal_moves, with its descriptive bits), its
    score for the side to move in centiseeds (or a forced win/loss, see mate), the depth completed, the
    nodes searched, the time taken and the principal variation (move codes from the root on)."""

    def __init__(self, move: "int | None", score: int, depth: int, nodes: int, time_ms: int, pv: list) -> None:
        self.move = move
        self.score = score
        self.depth = depth
        self.nodes = nodes
        self.time_ms = time_ms
        self.pv = pv

    @property
    def mate(self) -> "int | None":
        """Plies to a forced end of the game: positive when the side to move wins, negative when it loses."""
        return mate_plies(self.score)


def mate_plies(score: int) -> "int | None":
    if score > MATE_BOUND:
        return MATE - score
    if score < -MATE_BOUND:
        return -(MATE + score)
    return None


class Engine:
    """One engine with its transposition table (2 ** tt_bits slots, allocated once; 8 bytes a slot on a
    Pico). weights: bao.engine_weights.WEIGHTS by default. qdepth: the longest capture sequence the
    quiescence search follows. check_every: nodes between checks of the clock and should_stop.
    clock: a function returning milliseconds (tests pass a simulated one)."""

    def __init__(
        self,
        tt_bits: int = 16,
        weights: "tuple | None" = None,
        qdepth: int = 6,
        check_every: int = 32,
        clock: "Callable[[], int] | None" = None,
    ) -> None:
        self.weights = WEIGHTS if weights is None else weights
        self.qdepth = qdepth
        self.check_every = check_every
        self.clock = clock or _now_ms
        self.tt_bits = tt_bits
        self._mask = (1 << tt_bits) - 1
        self._tt_key = [0] * (1 << tt_bits)
        self._tt_val = [0] * (1 << tt_bits)  # 0: empty (no real entry packs to 0: its move field is >= 1)
        self._killers = bytearray(2 * MAX_PLY)  # identity + 1 of two moves per ply that cut off
        self._history = [0] * 128  # side * 64 + move identity: how often it cut off, by depth squared
        self.nodes = 0
        self._node_limit = 0
        self._deadline = 0
        self._start = 0
        self._timed = False
        self._should_stop = None  # type: Callable[[], object] | None
        self._countdown = 0
        self._partial = None  # type: tuple | None

    def clear(self) -> None:
        """Forget what earlier searches learnt (a new game)."""
        for i in range(len(self._tt_key)):
            self._tt_key[i] = 0
            self._tt_val[i] = 0
        for i in range(len(self._history)):
            self._history[i] = 0

    # Limits
    def _tick(self) -> None:
        self._countdown = self.check_every
        if self._node_limit and self.nodes >= self._node_limit:
            raise _Stop()
        if self._timed and _elapsed(self._start, self.clock()) >= self._deadline:
            raise _Stop()
        if self._should_stop is not None and self._should_stop():
            raise _Stop()

    # Transposition table: a value packs (score + 32768) << 14 | depth << 9 | flag << 7 | (move identity + 1)
    def _probe(self, h: int) -> int:
        i = h & self._mask
        if self._tt_key[i] == h:
            return self._tt_val[i]
        return 0

    def _store(self, h: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        if score > MATE_BOUND:
            score += ply  # mate scores are stored relative to this node
        elif score < -MATE_BOUND:
            score -= ply
        i = h & self._mask
        old = self._tt_val[i]
        if old and self._tt_key[i] != h and (old >> 9) & 31 > depth + 2:
            return  # keep a much deeper entry of another position
        self._tt_val[i] = ((score + 32768) << 14) | (depth << 9) | (flag << 7) | ((move & IDENTITY) + 1)
        self._tt_key[i] = h

    # Search
    def search(
        self,
        p: "Position",
        depth: int = 0,
        nodes: int = 0,
        movetime: int = 0,
        should_stop: "Callable[[], object] | None" = None,
        on_info: "Callable[[SearchResult], object] | None" = None,
    ) -> SearchResult:
        """Search position p within the limits given (0: no such limit; with none, depth 6). should_stop()
        is asked every few nodes and ends the search when true. on_info(result) is called after each
        completed depth. Returns the best move found; None as the move when the game is over."""
        self.nodes = 0
        self._node_limit = nodes
        self._timed = movetime > 0
        self._deadline = movetime
        self._start = self.clock()
        self._should_stop = should_stop
        self._countdown = self.check_every
        if not depth:
            depth = MAX_PLY - 8 if (nodes or movetime or should_stop) else 6
        for i in range(len(self._killers)):
            self._killers[i] = 0
        for i in range(len(self._history)):
            self._history[i] >>= 2  # age what earlier searches learnt
        moves = legal_moves(p)
        if not moves or p.d[WINNER] != NONE:
            return SearchResult(None, self._terminal(p.d, 0), 0, 0, 0, [])
        best = SearchResult(moves[0][0], 0, 0, 0, 0, [moves[0][0]])
        for n in range(1, depth + 1):
            try:
                move, score = self._root(p, moves, n, best)
            except _Stop:
                if self._partial is not None:  # a better move proven at this depth before the stop
                    best.move, best.score = self._partial
                    best.pv = [best.move]
                break
            best = SearchResult(move, score, n, self.nodes, self._ms(), self._pv(p, move, n))
            if on_info is not None:
                on_info(best)
            mate = mate_plies(score)
            if mate is not None and abs(mate) <= n:
                break  # a forced result within the horizon: deeper search cannot change it
            if len(moves) == 1 and (movetime or should_stop):
                break
            if self._timed and self._ms() * 2 > movetime:
                break  # the next depth would not finish in the time left
        best.nodes = self.nodes
        best.time_ms = self._ms()
        return best

    def _ms(self) -> int:
        return _elapsed(self._start, self.clock())

    def _terminal(self, d: bytearray, ply: int) -> int:
        """Score of a finished game for the side to move (1.2: the winner is set, or no legal move)."""
        w = d[WINNER]
        if w == NONE or w != d[TO_MOVE]:
            return -MATE + ply
        return MATE - ply

    def _root(self, p: "Position", moves: list, depth: int, prev: SearchResult) -> tuple:
        self._partial = None
        h = _hash(p.d)
        order = self._order(p, moves, prev.move, 0)
        alpha = -INF
        best_move = order[0][0]
        first = True
        for m, child in order:
            self.nodes += 1
            if first:
                v = -self._negamax(child, depth - 1, -INF, -alpha, 1)
                first = False
            else:
                v = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1)
                if v > alpha:
                    v = -self._negamax(child, depth - 1, -INF, -alpha, 1)
            if v > alpha:
                alpha = v
                best_move = m
                self._partial = (m, v)
        self._store(h, depth, _EXACT, alpha, best_move, 0)
        return best_move, alpha

    def _order(self, p: "Position", moves: list, tt_move: "int | None", ply: int) -> list:
        """The moves best first: the table's move, captures by the seeds they take, killers, history."""
        d = p.d
        s = d[TO_MOVE]
        op = (s ^ 1) << 4
        before = sum(d[op : op + 16])  # a slice: C speed on both interpreters, 16 bytes of garbage
        hist = self._history
        hbase = s << 6
        k1 = self._killers[2 * ply] if ply < MAX_PLY else 0
        k2 = self._killers[2 * ply + 1] if ply < MAX_PLY else 0
        want = -1 if tt_move is None else tt_move & IDENTITY
        keyed = []
        for entry in moves:
            m = entry[0]
            ident = m & IDENTITY
            if ident == want:
                key = _TT_MOVE
            elif not m & TAKASA:
                key = _CAPTURE + ((before - sum(entry[1].d[op : op + 16])) << 8)
            elif ident + 1 == k1:
                key = _KILLER + 1
            elif ident + 1 == k2:
                key = _KILLER
            else:
                key = hist[hbase + ident]
                if key >= _KILLER:
                    key = _KILLER - 1
            keyed.append((key, entry))
        keyed.sort(key=_first, reverse=True)
        return [e[1] for e in keyed]

    def _negamax(self, p: "Position", depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        self._countdown -= 1
        if self._countdown <= 0:
            self._tick()
        d = p.d
        if d[WINNER] != NONE:
            return self._terminal(d, ply)
        if depth <= 0 or ply >= MAX_PLY - 8:
            return self._quiesce(p, alpha, beta, ply, self.qdepth)
        h = _hash(d)
        entry = self._probe(h)
        tt_move = None
        if entry:
            tt_move = (entry & 127) - 1
            if (entry >> 9) & 31 >= depth:
                score = (entry >> 14) - 32768
                if score > MATE_BOUND:
                    score -= ply
                elif score < -MATE_BOUND:
                    score += ply
                flag = (entry >> 7) & 3
                if flag == _EXACT:
                    return score
                if flag == _LOWER and score >= beta:
                    return score
                if flag == _UPPER and score <= alpha:
                    return score
        moves = legal_moves(p)
        if not moves:
            return -MATE + ply  # 1.2: no legal move loses
        alpha0 = alpha
        best = -INF
        best_move = moves[0][0]
        first = True
        for m, child in self._order(p, moves, tt_move, ply):
            if first:
                v = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
                first = False
            else:
                v = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < v < beta:
                    v = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        if m & TAKASA:
                            self._reward(d[TO_MOVE], m, depth, ply)
                        break
        flag = _LOWER if best >= beta else (_UPPER if best <= alpha0 else _EXACT)
        self._store(h, depth, flag, best, best_move, ply)
        return best

    def _reward(self, side: int, m: int, depth: int, ply: int) -> None:
        ident = (m & IDENTITY) + 1
        k = 2 * ply
        if ply < MAX_PLY and self._killers[k] != ident:
            self._killers[k + 1] = self._killers[k]
            self._killers[k] = ident
        i = (side << 6) + ident - 1
        v = self._history[i] + depth * depth
        self._history[i] = v if v < _KILLER else _KILLER - 1

    def _quiesce(self, p: "Position", alpha: int, beta: int, ply: int, left: int) -> int:
        """Follow the capture sequences: a side that can capture must (1.7a), so only a position where the
        side to move has no capture (or the sequence is `left` plies long) is scored by the evaluation."""
        self.nodes += 1
        self._countdown -= 1
        if self._countdown <= 0:
            self._tick()
        d = p.d
        if d[WINNER] != NONE:
            return self._terminal(d, ply)
        s = d[TO_MOVE]
        me = s << 4
        if left <= 0 or not captures(d, me, me ^ 16, d[STORE + s] > 0) or ply >= MAX_PLY - 2:
            return evaluate(d, self.weights)
        moves = legal_moves(p)
        if not moves:
            return -MATE + ply
        if moves[0][0] & TAKASA:  # every capture would never end (R10): the position is quiet after all
            return evaluate(d, self.weights)
        best = -INF
        for _m, child in self._order(p, moves, None, ply):
            v = -self._quiesce(child, -beta, -alpha, ply + 1, left - 1)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        return best

    def _pv(self, p: "Position", move: int, depth: int) -> list:
        """The principal variation: the root's move, then each table move while it is legal."""
        out = [move]
        child = None
        for m, c in legal_moves(p):
            if m == move:
                child = c
        q = child
        while q is not None and len(out) < depth:
            e = self._probe(_hash(q.d))
            if not e:
                break
            want = (e & 127) - 1
            nxt = None
            for m, c in legal_moves(q):
                if m & IDENTITY == want:
                    out.append(m)
                    nxt = c
                    break
            q = nxt
        return out


def _first(item: tuple) -> int:
    return item[0]
