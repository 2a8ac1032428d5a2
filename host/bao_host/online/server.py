"""The game server's online play (docs/online.md): routes under /online/v1 on `bao serve`'s Starlette app.

The server is the referee: every move is read in the game's position by the rules core
(bao.notation.parse_move) and refused with its rule number when it is not legal; an accepted move is
stored (bao_host.online.store) before any client is told of it. Everything runs on the server's event loop
thread (one writer of the online tables per process). On PostgreSQL several processes share the games: each
hears the others' changes (GameStore.listen) and brings the games it holds up to date (_refresh).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import core, notation, position_json
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bao_host.online import protocol as P
from bao_host.online.store import ANY_GAME, MOVE, GameStore, Moved
from bao_host.online.stores import open_store
from bao_host.record.store import Store, StoreError
from bao_host.record.textcheck import TextError, check_name

KEEPALIVE = 15.0
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class Refused(Exception):
    """A request refused: HTTP status and one line (and the rule, for an illegal move)."""

    def __init__(self, status: int, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule


@dataclass
class Clock:
    """A Fischer clock: each side has `base` seconds for the game and gains `increment` after each of its
    moves; the side to move's time runs from the last move (from the game's start, for the first)."""

    base: float
    increment: float
    started: float | None = None

    def left(self, g: Game, now: float) -> dict[str, float]:
        left = {"S": self.base, "N": self.base}
        if self.started is None:
            return left
        prev = self.started
        for i, t in enumerate(g.times):
            side = "SN"[g.positions[i].to_move]
            left[side] += self.increment - (t - prev)
            prev = t
        end = now if g.status == "playing" else g.ended  # (an ended game's clocks stop when it ended)
        if end is not None:
            left["SN"[g.positions[-1].to_move]] -= end - prev
        return left


@dataclass
class Game:
    id: str
    start: core.Position
    status: str
    result: str
    reason: str
    seats: dict[str, tuple[str, str]]  # side -> (token digest, name)
    moves: list[str] = field(default_factory=list)
    positions: list[core.Position] = field(default_factory=list)
    watchers: list[asyncio.Queue[tuple[str, str, dict[str, Any]] | None]] = field(default_factory=list)
    pending: dict[int, asyncio.Future[None]] = field(default_factory=dict)  # plies being stored
    clock: Clock | None = None
    ended: float | None = None
    rematch: str | None = None  # the game the players asked for after this one
    times: list[float] = field(default_factory=list)  # when each move came (the clock's)
    takeback: tuple[str, int] | None = None  # (the side asking, the moves to go back to), until answered

    def state(self) -> dict[str, Any]:
        names = {s: (self.seats[s][1] if s in self.seats else None) for s in P.SIDES}
        return {
            "v": P.VERSION,
            "game": self.id,
            "ruleset": self.start.rules.ruleset,
            "options": self.start.rules.options(),
            "start": position_json.to_dict(self.start, False),
            "seats": names,
            "plies": len(self.moves),
            "status": self.status,
            "result": self.result,
            "reason": self.reason,
            "clock": self.clock_state(),
            "rematch": self.rematch,
            "takeback": None if self.takeback is None else {"by": self.takeback[0], "plies": self.takeback[1]},
        }

    def clock_state(self) -> dict[str, Any] | None:
        if self.clock is None:
            return None
        left = self.clock.left(self, time.time())
        running = "SN"[self.positions[-1].to_move] if self.status == "playing" and self.clock.started else None
        return {
            "base": self.clock.base,
            "increment": self.clock.increment,
            "running": running,
            **{s: max(0, round(left[s] * 1000)) for s in P.SIDES},
        }

    def move_event(self, ply: int) -> dict[str, Any]:
        return {"ply": ply, "move": self.moves[ply - 1], "side": "SN"[self.positions[ply - 1].to_move]}


class Bucket:
    """A token bucket: `rate` requests a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.t = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.t) * self.rate)
        self.t = now
        if self.level < 1.0:
            return False
        self.level -= 1.0
        return True


class Conflict(Exception):
    """A ply stored meanwhile by another server process (on a shared database)."""


class Online:
    def __init__(
        self, root: Path, library: Callable[[], Store | None], rate: float = P.RATE, db: str | None = None
    ) -> None:
        self.root = root
        self.db = db  # None: SQLite in root; or a postgresql:// address shared with other server processes
        self.rate = rate  # requests a second per address and token (4 times that per address)
        self.library = library  # the server's library (a game that ends is stored there)
        self.store: GameStore | None = None
        self._listener: asyncio.Task[None] | None = None
        self.games: dict[str, Game] = {}
        self.buckets: dict[str, Bucket] = {}
        self._batch: list[tuple[tuple[str, int, str, str, float], asyncio.Future[None], Game]] = []
        self._flusher: asyncio.Task[None] | None = None

    # -- start and stop -------------------------------------------------------------------------------
    def start(self) -> None:
        self.store = open_store(self.root, self.db)
        if self.store.shared:
            self._listener = asyncio.get_running_loop().create_task(self.store.listen(self._changed))
        for gid in self.store.unfiled():  # ended while the server stopped before storing it in the library
            g = self.game(gid)
            if g is not None:
                self._file(g)

    def end_streams(self) -> None:
        """Every event stream ended (the server is stopping: they would hold it up)."""
        for g in self.games.values():
            for q in g.watchers:
                q.put_nowait(None)

    def close(self) -> None:
        self.end_streams()
        if self._listener is not None:
            self._listener.cancel()
        if self.store is not None:
            self.store.close()

    @property
    def st(self) -> GameStore:
        assert self.store is not None, "the online store is not open"
        return self.store

    # -- the games ------------------------------------------------------------------------------------
    def game(self, gid: str) -> Game | None:
        g = self.games.get(gid)
        if g is not None:
            return g
        row = self.st.load(gid) if len(gid) < 40 else None
        if row is None:
            return None
        start = position_json.loads(str(row["start"]))
        g = Game(
            gid,
            start,
            str(row["status"]),
            str(row["result"]),
            str(row["reason"]),
            self.st.seats(gid),
            positions=[start],
        )
        if g.status in ("over", "aborted"):
            g.ended = float(row["updated"])
        for text in self.st.moves(gid):  # stored moves were legal: replayed, not trusted blindly
            _, child = notation.parse_move(g.positions[-1], text)
            g.moves.append(text)
            g.positions.append(child)
        g.rematch = self.st.rematch(gid)
        g.takeback = self.st.takeback(gid) if g.status == "playing" else None
        c = self.st.clock(gid)
        if c is not None:
            g.clock = Clock(*c)
            g.times = self.st.move_times(gid)
        self.games[gid] = g
        self._watch_clock(g)
        return g

    def _changed(self, gid: str, kind: str, ply: int, moved: Moved) -> None:
        """Another server process changed a game (on a shared database): the one held here follows."""
        if gid == ANY_GAME:
            for g in list(self.games.values()):
                self._refresh(g)
            return
        held = self.games.get(gid)
        if held is not None and not (kind == MOVE and ply <= len(held.moves)):
            self._refresh(held, moves_only=kind == MOVE, moved=moved)

    def _refresh(self, g: Game, moves_only: bool = False, moved: Moved | None = None) -> None:
        """The game as the database has it now: the moves and the state another process stored, told to
        this process's followers. While a move of this process's is being stored, after it is told (the
        followers see the moves in their order)."""
        if g.pending:
            waiting = asyncio.gather(*g.pending.values(), return_exceptions=True)
            loop = asyncio.get_running_loop()
            waiting.add_done_callback(lambda _: loop.call_soon(self._refresh, g, moves_only, moved))
            return
        n = len(g.moves)
        told = [(text, t) for ply, text, t in moved or [] if ply > n]
        if not told or len(told) != told_plies(moved or [], n):  # (not the next moves: read them)
            told = []
            new = self.st.moves(g.id, n)
        else:
            new = [text for text, _ in told]
        for text in new:
            _, child = notation.parse_move(g.positions[-1], text)  # (stored moves are legal)
            g.moves.append(text)
            g.positions.append(child)
        if new:
            g.takeback = None  # (a move answers a takeback asked for: no; the store's is gone with it)
        if told:
            g.times += [t for _, t in told]
        elif new and g.clock is not None:
            g.times = self.st.move_times(g.id)
        for ply in range(len(g.moves) - len(new) + 1, len(g.moves) + 1):
            live = g.move_event(ply)
            if g.clock is not None and ply == len(g.moves):
                live["clock"] = g.clock_state()
            self._broadcast(g, "move", str(ply), live)
        if not moves_only:
            self._refresh_state(g)
        self._watch_clock(g)

    def _refresh_state(self, g: Game) -> None:
        row = self.st.load(g.id)
        if row is None:
            return
        before = (
            g.status,
            g.result,
            g.reason,
            dict(g.seats),
            g.rematch,
            g.clock and g.clock.started,
            len(g.moves),
            g.takeback,
        )
        kept = self.st.plies(g.id)
        if kept < len(g.moves):  # (a takeback accepted on another process)
            del g.moves[kept:], g.positions[kept + 1 :], g.times[kept:]
        g.status, g.result, g.reason = str(row["status"]), str(row["result"]), str(row["reason"])
        g.seats = self.st.seats(g.id)
        g.rematch = self.st.rematch(g.id)
        g.takeback = self.st.takeback(g.id) if g.status == "playing" else None
        if g.clock is not None:
            c = self.st.clock(g.id)
            g.clock.started = None if c is None else c[2]
        after = (
            g.status,
            g.result,
            g.reason,
            g.seats,
            g.rematch,
            g.clock and g.clock.started,
            len(g.moves),
            g.takeback,
        )
        if before != after:
            if g.status in ("over", "aborted") and g.ended is None:
                g.ended = float(row["updated"])
            self._broadcast(g, "state", str(len(g.moves)), g.state())
            self._forget(g)

    def _watch_clock(self, g: Game) -> None:
        """The server decides a flag: when the side to move's time is up, the game ends (checked again then)."""
        if g.clock is None or g.clock.started is None or g.status != "playing":
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        side = "SN"[g.positions[-1].to_move]
        left = g.clock.left(g, time.time())[side]
        loop.call_later(max(0.0, left) + 0.01, self._flag, g.id, len(g.moves))

    def _flag(self, gid: str, plies: int) -> None:
        g = self.games.get(gid)
        if g is None or g.status != "playing" or len(g.moves) != plies or g.pending or g.clock is None:
            return
        side = "SN"[g.positions[-1].to_move]
        if g.clock.left(g, time.time())[side] > 0:
            self._watch_clock(g)
            return
        self._end(g, "over", P.side_name(P.other(side)) + " wins", f"{P.side_name(side)}'s time ran out")

    def _game_of(self, request: Request) -> Game:
        g = self.game(str(request.path_params["game"]))
        if g is None:
            raise Refused(404, f"no game {str(request.path_params['game'])[:40]!r} on this server")
        return g

    def _seat_of(self, g: Game, request: Request) -> str:
        """The side whose seat token the request carries; Refused otherwise."""
        token = _bearer(request)
        if not token:
            raise Refused(401, "this needs a seat token (Authorization: Bearer <token>); spectators only read")
        d = P.digest(token)
        for side, (held, _) in g.seats.items():
            if secrets.compare_digest(held, d):
                return side
        raise Refused(403, "this token holds no seat in this game")

    def _broadcast(self, g: Game, kind: str, eid: str, data: dict[str, Any]) -> None:
        for q in list(g.watchers):
            if q.qsize() > 1000:  # a watcher that reads nothing: dropped, it resumes when it comes back
                g.watchers.remove(q)
                q.put_nowait(None)
            else:
                q.put_nowait((kind, eid, data))

    def _commit(self, row: tuple[str, int, str, str, float], g: Game) -> asyncio.Future[None]:
        """The move stored with every other that comes in the same turn of the loop, or while a commit runs:
        one transaction for them all (on a store whose commit waits, on a thread: the moves of many games
        share the wait). Once it is committed the game's followers are told of it (_told) and the future is
        done."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._batch.append((row, done, g))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        return done

    async def _flush(self) -> None:
        while self._batch:
            batch, self._batch = self._batch, []
            try:
                rows = [row for row, _, _ in batch]
                stored = await asyncio.to_thread(self.st.add_moves, rows) if self.st.waits else self.st.add_moves(rows)
            except Exception as e:
                for _, done, _ in batch:
                    if not done.done():
                        done.set_exception(e)
            else:
                for (row, done, g), ok in zip(batch, stored):
                    if done.done():
                        continue
                    if ok:
                        self._told(g, row[1], done)
                        done.set_result(None)
                    else:
                        done.set_exception(Conflict())

    def _told(self, g: Game, ply: int, done: asyncio.Future[None]) -> None:
        """A move of this process's committed: its followers told at once, as the commit's answer comes (not a
        turn of the loop later, when its request goes on), with the clock as the move was made (a move sent
        again on a reconnect carries none)."""
        if g.pending.get(ply) is not done:
            return
        del g.pending[ply]  # (told from now on: a stream opened after this has it in the game so far)
        live = g.move_event(ply)
        if g.clock is not None:
            live["clock"] = g.clock_state()
        self._broadcast(g, "move", str(ply), live)

    def _end(self, g: Game, status: str, result: str, reason: str) -> None:
        self.st.finish(g.id, status, result, reason)
        g.ended = time.time()
        g.status, g.result, g.reason = status, result, reason
        self._broadcast(g, "state", str(len(g.moves)), g.state())
        self._file(g)
        self._forget(g)

    def _drop(self, g: Game) -> None:
        """The game's memory is not the database's: dropped, read again when next asked for. Its event streams
        end, and their clients reconnect to the game read again: a stream left on the dropped game would
        hear no move again."""
        if self.games.get(g.id) is g:
            del self.games[g.id]
        for q in g.watchers:
            q.put_nowait(None)

    def _forget(self, g: Game) -> None:
        """An ended game nobody watches leaves the memory (read again from the database when asked for)."""
        if g.status in ("over", "aborted") and not g.watchers:
            self.games.pop(g.id, None)

    def _file(self, g: Game) -> None:
        """The ended game into the library, as an ordinary game (the same moves, key online-<id>)."""
        lib = self.library()
        if lib is None:
            return
        key = f"online-{g.id}"
        headers = {
            "South": g.seats.get("S", ("", "?"))[1] or "?",
            "North": g.seats.get("N", ("", "?"))[1] or "?",
            "date": time.strftime("%Y-%m-%d"),
            "ruleset": g.start.rules.ruleset,
            "takasia": "yes" if g.start.rules.options().get("takasia", True) else "no",
            "result": g.result or "*",
            "online game": g.id,
        }
        if g.reason:
            headers["termination"] = g.reason
        opts = {k: v for k, v in g.start.rules.options().items() if k != "takasia"}
        if opts:
            headers["options"] = json.dumps(opts, sort_keys=True)
        if g.start.to_move != core.SOUTH:
            headers["first"] = "North"
        try:
            try:
                lib.game(key)
            except StoreError:
                text = notation.format_transcript(headers, g.moves)
                have = lib.import_text(text, key=key, source="online")
                if g.status == "aborted":
                    lib.mark_abandoned(have.id)
            self.st.stored_in_library(g.id, key)
        except StoreError:
            pass  # stored at the server's next start (unfiled)

    # -- requests -------------------------------------------------------------------------------------
    async def _body(self, request: Request) -> dict[str, Any]:
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
            raise Refused(403, "a request from another site's page")
        # one bucket per address and token, and one per address (many forged tokens are one flood)
        address = request.client.host if request.client else "?"
        keys = (P.digest(address + " " + request.headers.get("authorization", "")), address)
        burst = self.rate * P.BURST / P.RATE
        for key, scale in zip(keys, (1, 4)):
            if not self.buckets.setdefault(key, Bucket(self.rate * scale, burst * scale)).take():
                raise Refused(429, f"too many requests: at most {self.rate:g} a second (burst {burst:g})")
        if len(self.buckets) > 10000:
            self.buckets.clear()
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > P.MAX_BODY):
            raise Refused(413, f"a message is at most {P.MAX_BODY} bytes")
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > P.MAX_BODY:
                raise Refused(413, f"a message is at most {P.MAX_BODY} bytes")
        if not data.strip():
            return {}
        try:
            body = json.loads(data)
        except (ValueError, RecursionError):
            raise Refused(400, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise Refused(400, "the body is not a JSON object")
        return body

    @staticmethod
    def _name(body: dict[str, Any]) -> str:
        name = body.get("name", "")
        if not isinstance(name, str):
            raise Refused(400, "name must be text")
        try:
            return check_name("the name", name)[: P.MAX_NAME]
        except TextError as e:
            raise Refused(400, str(e)) from None

    async def create(self, request: Request) -> dict[str, Any]:
        body = await self._body(request)
        ruleset = body.get("ruleset", core.ZANZIBAR)
        if ruleset not in core.RULESETS:
            raise Refused(400, f"no ruleset {str(ruleset)[:40]!r} ({', '.join(core.RULESETS)})")
        side = body.get("side", "S")
        if side not in P.SIDES:
            raise Refused(400, "side is S or N")
        name = self._name(body)
        clock = body.get("clock")
        if clock is not None:
            if not isinstance(clock, dict) or not all(
                isinstance(clock.get(k, 0), (int, float)) and not isinstance(clock.get(k, 0), bool)
                for k in ("base", "increment")
            ):
                raise Refused(400, 'clock is {"base": seconds, "increment": seconds}')
            base, inc = float(clock.get("base", 0)), float(clock.get("increment", 0))
            if not (1 <= base <= 86400 and 0 <= inc <= 3600):
                raise Refused(400, "a clock's base is 1..86400 seconds, its increment 0..3600")
        start = core.initial(str(ruleset), core.Rules(str(ruleset)), core.SOUTH)
        gid = secrets.token_urlsafe(P.GAME_BYTES)
        invite = secrets.token_urlsafe(P.INVITE_BYTES)
        token = secrets.token_urlsafe(P.TOKEN_BYTES)
        self.st.create(
            gid,
            start.rules.ruleset,
            json.dumps(start.rules.options(), sort_keys=True),
            position_json.dumps(start, False),
            P.digest(invite),
        )
        if clock is not None:
            self.st.set_clock(gid, base, inc)
        self.st.seat(gid, str(side), P.digest(token), name)
        g = self.game(gid)
        assert g is not None
        return {"v": P.VERSION, "game": gid, "seat": side, "token": token, "invite": invite}

    async def join(self, request: Request) -> dict[str, Any]:
        body = await self._body(request)
        invite = body.get("invite")
        if not isinstance(invite, str) or not 8 <= len(invite) <= 64:
            raise Refused(400, "invite is the invitation code")
        name = self._name(body)
        row = self.st.by_invite(P.digest(invite))
        if row is None:
            raise Refused(404, "no game waits for this invitation (a wrong code, or used already)")
        g = self.game(str(row["id"]))
        assert g is not None
        side = P.other(next(iter(g.seats)))
        token = secrets.token_urlsafe(P.TOKEN_BYTES)
        return self._seat_second(g, side, token, name)

    @staticmethod
    def _parsed(g: Any, body: dict[str, Any]) -> tuple[int, core.Position, int, core.Position, str]:
        """The move a request carries, read at the ply it names: (ply, position before, move, position
        after, the move as the server writes it); refused when it says nothing playable there."""
        ply, text = body.get("ply"), body.get("move")
        if not isinstance(ply, int) or isinstance(ply, bool) or ply < 1:
            raise Refused(400, "ply must be a whole number from 1 (the move's number in the game)")
        if not isinstance(text, str) or not 1 <= len(text) <= 64:
            raise Refused(400, "move must be a move in notation, e.g. 5R>")
        n = len(g.moves)
        if ply > n + 1:
            raise Refused(409, f"ply {ply} is ahead of the game: {n} moves are played (resume from {n})")
        p = g.positions[ply - 1]
        try:
            m, child = notation.parse_move(p, text)
        except core.IllegalMoveError as e:
            if ply <= n:
                raise Refused(
                    409, f"ply {ply} is played already ({g.moves[ply - 1]}); the game has {n} moves"
                ) from None
            raise Refused(422, f"illegal move {text}: {e}", e.rule) from None
        except core.BaoError as e:
            raise Refused(400, f"not a move: {e}") from None
        return ply, p, m, child, notation.format_move(m, p.to_move)

    @staticmethod
    async def _again(g: Any, ply: int, p: core.Position, canonical: str, side: str) -> dict[str, Any]:
        """A ply already played, sent again (a lost answer, a reconnect): harmless when it is the same move."""
        n = len(g.moves)
        if g.moves[ply - 1] == canonical and "SN"[p.to_move] == side:
            pending = g.pending.get(ply)
            if pending is not None:  # answered once it is stored, as the first one is
                try:
                    await asyncio.shield(pending)
                except Exception:
                    raise Refused(503, f"ply {ply} could not be stored: send it again") from None
            return {"ok": True, "ply": ply, "move": canonical, "duplicate": True}
        raise Refused(409, f"ply {ply} is played already ({g.moves[ply - 1]}); the game has {n} moves")

    async def move(self, request: Request) -> dict[str, Any]:
        g = self._game_of(request)
        body = await self._body(request)
        if self.st.shared and (body.get("ply") != len(g.moves) + 1 or g.status != "playing" or len(g.seats) < 2):
            self._refresh(g)  # (another process may be ahead of this one's memory)
        side = self._seat_of(g, request)
        ply, p, m, child, canonical = self._parsed(g, body)
        if ply <= len(g.moves):
            return await self._again(g, ply, p, canonical, side)
        if g.status != "playing":
            raise Refused(
                409, "the game is over" if g.status in ("over", "aborted") else "the opponent has not joined yet"
            )
        if "SN"[p.to_move] != side:
            raise Refused(403, f"it is {P.side_name('SN'[p.to_move])}'s turn, this seat is {P.side_name(side)}'s")
        now = time.time()
        if g.clock is not None and g.clock.left(g, now)[side] <= 0:
            self._end(g, "over", P.side_name(P.other(side)) + " wins", f"{P.side_name(side)}'s time ran out")
            raise Refused(409, "the game is over: your time ran out")
        g.takeback = None  # (a move answers a takeback asked for: no)
        g.moves.append(canonical)  # (taken now: a request for the same ply meanwhile is a duplicate)
        g.positions.append(child)
        g.times.append(now)
        done = self._commit((g.id, ply, canonical, side, now), g)
        g.pending[ply] = done
        try:
            await done
        except Conflict:  # the same ply stored by another process: this one's is a duplicate, or too late
            g.pending.pop(ply, None)
            del g.moves[ply - 1 :], g.positions[ply:], g.times[ply - 1 :]
            self._refresh(g)
            return await self._again(g, ply, p, canonical, side)
        except Exception:
            self._drop(g)  # memory ahead of the disk: read again from the database
            raise Refused(503, f"ply {ply} could not be stored: send it again") from None
        finally:
            g.pending.pop(ply, None)
        w = core.outcome(child)  # (the move is told already: _told)
        if w is not None:
            self._end(g, "over", P.side_name("SN"[w]) + " wins", "no legal move")
        elif g.clock is not None:
            self._watch_clock(g)
        return {"ok": True, "ply": ply, "move": canonical}

    async def resign(self, request: Request) -> dict[str, Any]:
        g = self._game_of(request)
        await self._body(request)
        side = self._seat_of(g, request)
        if g.status in ("over", "aborted"):
            raise Refused(409, "the game is over")
        self._end(g, "over", P.side_name(P.other(side)) + " wins", f"{P.side_name(side)} resigned")
        return {"ok": True, "result": g.result}

    async def abort(self, request: Request) -> dict[str, Any]:
        g = self._game_of(request)
        await self._body(request)
        side = self._seat_of(g, request)
        if g.status in ("over", "aborted"):
            raise Refused(409, "the game is over")
        if len(g.moves) >= 2:
            raise Refused(409, "both sides have moved: resign instead of aborting")
        self._end(g, "aborted", "", f"aborted by {P.side_name(side)}")
        return {"ok": True}

    async def takeback(self, request: Request) -> dict[str, Any]:
        """{"plies": n}: ask to take the game back to n moves played (to before the asker's last move: the
        one or two last moves); the other seat accepts (accept_takeback) or declines ({"plies": null}, which
        also withdraws it). Asking again is harmless; a move made meanwhile answers no."""
        g = self._game_of(request)
        body = await self._body(request)
        side = self._seat_of(g, request)
        self._fresh(g)
        plies, n = body.get("plies"), len(g.moves)
        if plies is not None and (not isinstance(plies, int) or isinstance(plies, bool)):
            raise Refused(400, "plies is the number of moves to go back to, or null to decline")
        if g.status != "playing":
            raise Refused(409, "a takeback is asked for while the game is played")
        if plies is None:
            if g.takeback is None:
                raise Refused(409, "no takeback is asked for")
            self.st.ask_takeback(g.id, None)
            g.takeback = None
            self._broadcast(g, "state", str(n), g.state())
            return {"ok": True, "takeback": None}
        if plies == n and g.takeback is None:
            return {"ok": True, "plies": n, "done": True, "duplicate": True}  # (accepted already)
        if not max(0, n - 2) <= plies < n or "SN"[g.positions[plies].to_move] != side:
            raise Refused(409, f"a takeback goes back to before one of your own last moves (the game has {n} moves)")
        if g.takeback is None or g.takeback[0] == side:
            if g.pending:  # (a move of the asker's being stored: the takeback is asked after it)
                raise Refused(409, "a move is being stored: ask again")
            self.st.ask_takeback(g.id, side, plies)
            g.takeback = (side, plies)
            self._broadcast(g, "state", str(n), g.state())
            return {"ok": True, "takeback": {"by": side, "plies": plies}}
        raise Refused(
            409,
            f"{P.side_name(g.takeback[0])} asks to go back to {g.takeback[1]} moves: accept "
            "that, or decline it (plies null)",
        )

    async def accept_takeback(self, request: Request) -> dict[str, Any]:
        """{"plies": n}: the other seat's takeback to n moves accepted (n as asked: a stale answer changes
        nothing); the moves after n are gone, on disk first, and every follower gets the state."""
        g = self._game_of(request)
        body = await self._body(request)
        side = self._seat_of(g, request)
        self._fresh(g)
        plies = body.get("plies")
        if plies == len(g.moves) and g.takeback is None and g.status == "playing":
            return {"ok": True, "plies": plies, "duplicate": True}  # (accepted already)
        if g.takeback is None or g.takeback[0] == side or g.takeback[1] != plies or g.pending:
            raise Refused(409, "no takeback to that many moves is asked of you")
        if not self.st.take_back(g.id, g.takeback[0], plies):  # (answered meanwhile on another process)
            self._refresh(g)
            raise Refused(409, "no takeback to that many moves is asked of you")
        del g.moves[plies:]
        del g.positions[plies + 1 :]
        del g.times[plies:]
        g.takeback = None
        self._broadcast(g, "state", str(plies), g.state())
        self._watch_clock(g)
        return {"ok": True, "plies": plies}

    def _fresh(self, g: Game) -> None:
        """On a shared database, the game as it is stored now (another process may have changed it and its
        announcement not be here yet): for the rarer requests, whose answer depends on all of it."""
        if self.st.shared and not g.pending:
            self._refresh(g)

    async def rematch(self, request: Request) -> dict[str, Any]:
        """After a game: the same rules and clock, the sides swapped. The first seat holder to ask makes the
        game (and waits in it), the other's asking seats them and starts it. Asking again answers the same
        seat and token (an answer lost on the way is asked for again): the new seat's token is derived from
        the asker's token in this game, which only its holder has, so the server still keeps digests only."""
        g = self._game_of(request)
        await self._body(request)
        side = self._seat_of(g, request)
        if g.status not in ("over", "aborted"):
            raise Refused(409, "a rematch is asked for after the game")
        mine = P.other(side)  # (the sides are swapped)
        name = g.seats[side][1]
        if g.rematch is None:
            nxt = secrets.token_urlsafe(P.GAME_BYTES)
            token = P.derived_token(_bearer(request), nxt)
            start = core.initial(g.start.rules.ruleset, g.start.rules, core.SOUTH)
            self.st.create(
                nxt,
                start.rules.ruleset,
                json.dumps(start.rules.options(), sort_keys=True),
                position_json.dumps(start, False),
                "",
            )
            if g.clock is not None:
                self.st.set_clock(nxt, g.clock.base, g.clock.increment)
            self.st.seat(nxt, mine, P.digest(token), name)
            self.st.set_rematch(g.id, nxt)
            g.rematch = nxt
            self._broadcast(g, "state", str(len(g.moves)), g.state())
            return {"v": P.VERSION, "game": nxt, "seat": mine, "token": token}
        r = self.game(g.rematch)
        assert r is not None
        token = P.derived_token(_bearer(request), r.id)
        if mine in r.seats:  # asked again: the same answer, if this is the seat's own token
            if not secrets.compare_digest(r.seats[mine][0], P.digest(token)):
                raise Refused(409, "this seat of the rematch is taken")
            return {"v": P.VERSION, "game": r.id, "seat": mine, "token": token}
        return self._seat_second(r, mine, token, name)

    def _seat_second(self, g: Any, side: str, token: str, name: str) -> dict[str, Any]:
        """The second player seated (an invitation taken, a rematch asked by both): the game starts, its
        clock with it, and every follower is told."""
        self.st.seat(g.id, side, P.digest(token), name, used_invite=True)
        g.seats[side] = (P.digest(token), name)
        g.status = "playing"
        if g.clock is not None:
            g.clock.started = time.time()
            self.st.start_clock(g.id, g.clock.started)
            self._watch_clock(g)
        self._broadcast(g, "state", str(len(g.moves)), g.state())
        return {"v": P.VERSION, "game": g.id, "seat": side, "token": token}

    def lobby(self, limit: int = P.LOBBY) -> list[dict[str, Any]]:
        """The games waiting for a player or being played, the newest first, from the store: every server
        process on a shared database lists the same ones."""
        return [
            {
                "game": str(r["id"]),
                "ruleset": str(r["ruleset"]),
                "seats": {"S": str(r["south"]), "N": str(r["north"])},
                "status": str(r["status"]),
                "plies": int(r["plies"]),
            }
            for r in self.st.live(limit)
        ]

    async def open_games(self, request: Request) -> dict[str, Any]:
        return {"v": P.VERSION, "games": self.lobby()}

    async def state(self, request: Request) -> dict[str, Any]:
        g = self._game_of(request)
        return {**g.state(), "moves": g.moves}

    async def events(self, request: Request) -> Response:
        try:
            g = self._game_of(request)
            after = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
            if not after.isdigit() or len(after) > 6:
                raise Refused(400, "after (or Last-Event-ID) is the number of moves the client holds")
            if len(g.watchers) >= P.MAX_WATCHERS:
                raise Refused(503, f"this game has {P.MAX_WATCHERS} watchers already")
        except Refused as e:
            return _refusal(e)
        held = int(after)
        q: asyncio.Queue[tuple[str, str, dict[str, Any]] | None] = asyncio.Queue()
        g.watchers.append(q)
        # What the stream starts with, taken as it joins the watchers: the moves told already. A move told from
        # now on (one being stored, too) comes through its queue only; else it came twice.
        told = min(g.pending, default=len(g.moves) + 1) - 1
        first = [
            "retry: 1000\n\n",
            _sse("state", str(len(g.moves)), g.state()),
            *(_sse("move", str(ply), g.move_event(ply)) for ply in range(min(held, told) + 1, told + 1)),
        ]

        async def stream() -> AsyncIterator[str]:
            try:
                for chunk in first:
                    yield chunk
                while True:
                    try:
                        item = await asyncio.wait_for(q.get(), KEEPALIVE)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    if item is None:
                        return
                    yield _sse(*item)
            finally:
                if q in g.watchers:
                    g.watchers.remove(q)
                self._forget(g)

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={**HEADERS, "X-Accel-Buffering": "no"}
        )

    def routes(self) -> list[Route]:
        def json_route(fn: Callable[[Request], Any], status: int = 200) -> Callable[[Request], Any]:
            async def run(request: Request) -> Response:
                try:
                    return JSONResponse(await fn(request), status_code=status, headers=HEADERS)
                except Refused as e:
                    return _refusal(e)

            return run

        return [
            Route(f"{P.PREFIX}/games", json_route(self.create, 201), methods=["POST"]),
            Route(f"{P.PREFIX}/games", json_route(self.open_games)),
            Route(f"{P.PREFIX}/join", json_route(self.join), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}", json_route(self.state)),
            Route(P.PREFIX + "/games/{game}/events", self.events),
            Route(P.PREFIX + "/games/{game}/move", json_route(self.move), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}/resign", json_route(self.resign), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}/abort", json_route(self.abort), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}/rematch", json_route(self.rematch), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}/takeback", json_route(self.takeback), methods=["POST"]),
            Route(P.PREFIX + "/games/{game}/takeback/accept", json_route(self.accept_takeback), methods=["POST"]),
            Route("/online/{rest:path}", _unknown_version, methods=["GET", "POST"]),
        ]


def _bearer(request: Request) -> str:
    """The seat token a request carries ('' without one)."""
    auth = request.headers.get("authorization", "")
    return auth[7:].strip() if auth[:7].lower() == "bearer " else ""


def told_plies(moved: Moved, held: int) -> int:
    """How many of the moves announced follow on from the `held` moves without a gap."""
    n = held
    for ply, _, _ in moved:
        if ply == n + 1:
            n += 1
    return n - held


def _sse(kind: str, eid: str, data: dict[str, Any]) -> str:
    return f"id: {eid}\nevent: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _refusal(e: Refused) -> JSONResponse:
    body: dict[str, Any] = {"error": str(e)}
    if e.rule:
        body["rule"] = e.rule
    return JSONResponse(body, status_code=e.status, headers=HEADERS)


async def _unknown_version(request: Request) -> Response:
    return JSONResponse(
        {"error": f"no such request: this server speaks the online protocol {P.VERSION} ({P.PREFIX}/...)"},
        status_code=404,
        headers=HEADERS,
    )
