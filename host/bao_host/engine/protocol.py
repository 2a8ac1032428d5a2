"""`bao engine`: the engine's line protocol on stdin/stdout, modelled on UCI (docs/engine.md).

The search runs on its own thread while the input is read, so `stop` ends it at once (the search checks
its stop flag every few dozen nodes) and its best move so far is answered. Every line written is whole
(one lock). A bad command or an impossible position gets `info string error ...` and the engine carries on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TextIO

from bao import core, engine, notation, position_json

NAME = "bao engine 1"
GO_LIMITS = ("movetime", "depth", "nodes")


class ProtocolError(Exception):
    """A command that cannot be carried out; answered as `info string error <message>`."""


def format_score(score: int) -> str:
    """`mate N` for a forced end in N plies (negative: the side to move loses), else seeds, 2 decimals."""
    mate = engine.mate_plies(score)
    if mate is not None:
        return f"mate {mate}"
    return f"{score / 100:.2f}"


def info_line(r: engine.SearchResult, side: int, dialect: str = notation.DONKERS) -> str:
    nps = r.nodes * 1000 // max(1, r.time_ms)
    pv = " ".join(notation.format_move(m, side ^ (i & 1), dialect) for i, m in enumerate(r.pv))
    return (
        f"info depth {r.depth} score {format_score(r.score)} nodes {r.nodes} nps {nps} time {r.time_ms} pv {pv}"
    ).rstrip()


def parse_position(args: str) -> core.Position:
    """`initial [ruleset R] [moves ...]` or `json {...} [moves ...]`."""
    words = args.split(None, 1)
    if not words:
        raise ProtocolError("position needs 'initial' or 'json {...}'")
    kind, rest = words[0], words[1] if len(words) > 1 else ""
    if kind == "initial":
        parts = rest.split()
        ruleset = core.ZANZIBAR
        if parts[:1] == ["ruleset"]:
            if len(parts) < 2 or parts[1] not in core.RULESETS:
                raise ProtocolError("ruleset must be one of " + ", ".join(core.RULESETS))
            ruleset = parts[1]
            parts = parts[2:]
        p = core.initial(ruleset)
    elif kind == "json":
        try:
            obj, end = json.JSONDecoder().raw_decode(rest.lstrip())
        except ValueError as e:
            raise ProtocolError(f"position json: not JSON ({e})") from e
        try:
            p = position_json.from_dict(obj)
        except core.InvalidPositionError as e:
            raise ProtocolError(f"illegal position: {e}") from e
        parts = rest.lstrip()[end:].split()
    else:
        raise ProtocolError(f"position {kind!r}: expected 'initial' or 'json'")
    if parts and parts[0] != "moves":
        raise ProtocolError(f"unexpected {parts[0]!r} (expected 'moves M1 M2 ...')")
    for text in parts[1:]:
        if p.d[core.WINNER] != core.NONE or core.outcome(p) is not None:
            raise ProtocolError(f"move {text}: the game is already over (1.2)")
        try:
            _, p = notation.parse_move(p, text)
        except core.BaoError as e:
            raise ProtocolError(f"move {text}: {e}") from e
    return p


def parse_go(args: str) -> dict[str, int]:
    """`go movetime MS | depth D | nodes N | infinite` (limits may be combined)."""
    words = args.split()
    limits = {"movetime": 0, "depth": 0, "nodes": 0}
    i = 0
    while i < len(words):
        w = words[i]
        if w == "infinite":
            i += 1
            continue
        if w not in GO_LIMITS:
            raise ProtocolError(f"go {w!r}: expected movetime MS, depth D, nodes N or infinite")
        if i + 1 >= len(words) or not words[i + 1].isdigit() or int(words[i + 1]) <= 0:
            raise ProtocolError(f"go {w} needs a whole number > 0")
        limits[w] = int(words[i + 1])
        i += 2
    if limits["depth"] > engine.MAX_PLY - 8:
        raise ProtocolError(f"go depth: at most {engine.MAX_PLY - 8}")
    return limits


class EngineSession:
    """One protocol session: commands in through `handle(line)`, lines out through `write`."""

    def __init__(self, write: Callable[[str], None], tt_bits: int = 20) -> None:
        self._write_raw = write
        self._lock = threading.Lock()
        self.engine = engine.Engine(tt_bits=tt_bits)
        self.position = core.initial()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._limited = False

    def write(self, line: str) -> None:
        with self._lock:
            self._write_raw(line)

    def searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def handle(self, line: str) -> bool:
        """Carry out one command line; False after `quit`."""
        words = line.strip().split(None, 1)
        if not words:
            return True
        cmd, args = words[0], words[1] if len(words) > 1 else ""
        try:
            if cmd == "quit":
                self.stop()
                return False
            if cmd == "stop":
                self.stop()
            elif cmd == "isready":
                self.write("readyok")
            elif cmd in ("uci", "hello"):
                self.write(f"id name {NAME}")
                self.write("bao ok")
            elif cmd in ("newgame", "ucinewgame"):
                self.stop()
                self.engine.clear()
            elif cmd == "position":
                self.stop()  # UCI: a new position or search ends the running one (its bestmove first)
                self.position = parse_position(args)
            elif cmd == "go":
                self.stop()
                self._go(parse_go(args))
            else:
                raise ProtocolError(f"unknown command {cmd!r} (position, go, stop, isready, newgame, quit)")
        except ProtocolError as e:
            self.write(f"info string error {e}")
        return True

    def _go(self, limits: dict[str, int]) -> None:
        p = self.position
        moves = core.legal_moves(p)
        w = core.outcome(p, moves)
        if w is not None:
            self.write(f"info string error the game is over: {('South', 'North')[w]} won (1.2)")
            self.write("bestmove (none)")
            return
        self._stop.clear()
        self._limited = any(limits.values())
        self._thread = threading.Thread(target=self._search, args=(p, limits), daemon=True)
        self._thread.start()

    def _search(self, p: core.Position, limits: dict[str, int]) -> None:
        side = p.to_move
        try:
            r = self.engine.search(
                p,
                depth=limits["depth"],
                nodes=limits["nodes"],
                movetime=limits["movetime"],
                should_stop=self._stop.is_set,
                on_info=lambda r: self.write(info_line(r, side)),
            )
            if r.depth == 0:  # stopped before the first depth was done: say what is answered
                self.write(f"info depth 0 nodes {r.nodes} time {r.time_ms} string stopped before depth 1")
            self.write("bestmove " + ("(none)" if r.move is None else notation.format_move(r.move, side)))
        except Exception as e:  # the engine keeps running whatever one search does
            self.write(f"info string error search failed: {e!r}")
            self.write("bestmove (none)")

    def stop(self) -> None:
        """End a running search; its bestmove line is written before this returns."""
        self._stop.set()
        t = self._thread
        if t is not None:
            t.join()
        self._thread = None

    def run(self, stdin: TextIO) -> int:
        for line in stdin:
            if not self.handle(line):
                return 0
        # End of input (a script piped in): a search with a limit is let finish, an infinite one stopped.
        t = self._thread
        if t is not None and self._limited:
            t.join()
        self.stop()
        return 0
