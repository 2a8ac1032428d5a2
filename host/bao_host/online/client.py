"""The client side of online play (docs/online.md): the server's API over HTTP (the standard library's
urllib: requests and one event stream, nothing more is needed), and the bridge that connects a board to a
game through the serial protocol only (bao_host.record.session).

    api = Api("http://127.0.0.1:8000")
    seat = api.create("zanzibar", "S", "Alice")        # or api.join(code, "Bob")
    bridge = Bridge(api, seat, session, say=print)     # session: a LinkSession on the board's port
    while not bridge.done: session.poll(0.05); bridge.tick()

The board plays its own side as always; the remote side is handed to the host (`CPU <side> 0`, as for the
host's engine: docs/leds.md, "Playing the computer") and each of its moves, once the server has it, goes
to the board with `SHOW`: the board lights it and follows only it while the player sows it. A move the
board reports for this seat's side goes to the server with its ply number; sent again until the server
has answered (a repeat is harmless: the ply says which move it is).
"""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bao import core, notation, position_json

from bao_host.online import protocol as P
from bao_host.record.session import LinkSession
from bao_host.record.store import Op, StoreError
from bao_host.record.textcheck import loads_object
from bao_host.ui import setup_words


class OnlineError(Exception):
    """A refusal or an unreachable server, in one line; status 0 when no answer came."""

    def __init__(self, message: str, status: int = 0, rule: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule


@dataclass
class Seat:
    game: str
    side: str
    token: str
    invite: str = ""


class Api:
    def __init__(self, base: str, timeout: float = 10.0) -> None:
        self.base = base.rstrip("/")
        self.timeout = timeout

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + P.PREFIX + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.loads(r.read(1 << 20) or b"{}")
        except urllib.error.HTTPError as e:
            try:
                obj = json.loads(e.read(1 << 16))
            except ValueError:
                obj = {}
            if not isinstance(obj, dict) or not obj.get("error"):  # (not a bao server's refusal)
                if e.code < 500 or e.code == 501:  # (no such address, no such method here)
                    raise OnlineError(
                        f"{self.base} is no bao server for online play (it answered {e.code} {e.reason}): give"
                        " the address `bao serve` prints, http://HOST:PORT/",
                        e.code,
                    ) from None
                # (a reverse proxy whose server is away: as an unreachable server, asked again)
                raise OnlineError(f"the server at {self.base} answered {e.code} {e.reason}") from None
            msg = str(obj["error"])
            rule = str(obj.get("rule", "")) if isinstance(obj, dict) else ""
            raise OnlineError(msg, e.code, rule) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            why = getattr(e, "reason", e)
            raise OnlineError(f"the server at {self.base} does not answer ({why})") from None

    def check(self) -> None:
        """OnlineError unless a bao server for online play answers at the address (its list of open games)."""
        r = self.request("GET", "/games")
        if not isinstance(r, dict) or "games" not in r:
            raise OnlineError(f"{self.base} is no bao server for online play: give the address `bao serve` prints")

    def create(self, ruleset: str, side: str = "S", name: str = "", clock: tuple[float, float] | None = None) -> Seat:
        body: dict[str, Any] = {"ruleset": ruleset, "side": side, "name": name}
        if clock is not None:
            body["clock"] = {"base": clock[0], "increment": clock[1]}
        r = self.request("POST", "/games", body)
        return Seat(str(r["game"]), str(r["seat"]), str(r["token"]), str(r["invite"]))

    def join(self, invite: str, name: str = "") -> Seat:
        r = self.request("POST", "/join", {"invite": invite, "name": name})
        return Seat(str(r["game"]), str(r["seat"]), str(r["token"]))

    def move(self, seat: Seat, ply: int, text: str) -> dict[str, Any]:
        r: dict[str, Any] = self.request("POST", f"/games/{seat.game}/move", {"ply": ply, "move": text}, seat.token)
        return r

    def resign(self, seat: Seat) -> None:
        self.request("POST", f"/games/{seat.game}/resign", {}, seat.token)

    def abort(self, seat: Seat) -> None:
        self.request("POST", f"/games/{seat.game}/abort", {}, seat.token)

    def takeback(self, seat: Seat, plies: int | None) -> dict[str, Any]:
        """Ask to take the game back to `plies` moves (None: decline the other's asking, or withdraw)."""
        r: dict[str, Any] = self.request("POST", f"/games/{seat.game}/takeback", {"plies": plies}, seat.token)
        return r

    def accept_takeback(self, seat: Seat, plies: int) -> None:
        self.request("POST", f"/games/{seat.game}/takeback/accept", {"plies": plies}, seat.token)

    def rematch(self, seat: Seat) -> Seat:
        """The rematch's seat (the same answer each time it is asked for)."""
        r = self.request("POST", f"/games/{seat.game}/rematch", {}, seat.token)
        return Seat(str(r["game"]), str(r["seat"]), str(r["token"]))

    def state(self, game: str) -> dict[str, Any]:
        r: dict[str, Any] = self.request("GET", f"/games/{game}")
        return r

    def stream(self, game: str, after: int, timeout: float = 40.0) -> Iterator[tuple[str, dict[str, Any]]]:
        """The game's events from the server (server-sent events) after `after` moves: (kind, data), until
        the stream ends or fails (OnlineError)."""
        req = urllib.request.Request(f"{self.base}{P.PREFIX}/games/{game}/events?after={after}")
        req.add_header("Accept", "text/event-stream")
        try:
            r = urllib.request.urlopen(req, timeout=timeout)  # (the server says something every 15 s)
        except urllib.error.HTTPError as e:
            raise OnlineError(f"the server refused the game's events ({e.code})", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            raise OnlineError(f"the server at {self.base} does not answer ({getattr(e, 'reason', e)})") from None
        kind, data = "message", ""
        try:
            with r:
                for raw in r:
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    if not line:
                        if data:
                            try:
                                obj = json.loads(data)
                            except ValueError:
                                obj = None
                            if isinstance(obj, dict):
                                yield kind, obj
                        kind, data = "message", ""
                    elif line.startswith("event:"):
                        kind = line[6:].strip()
                    elif line.startswith("data:"):
                        data += line[5:].strip()
        except OSError as e:
            raise OnlineError(f"the game's events stopped ({e})") from None


MAX_BACKOFF = 5.0  # seconds between two reconnections at most (the wait doubles at each failure up to it)


class Follower:
    """The game's events on a thread, into a queue; reconnects (with backoff) from the moves it holds."""

    def __init__(self, api: Api, game: str, pause: Callable[[float], object] | None = None) -> None:
        self.api = api
        self.game = game
        self.events: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.held = 0
        self.attempts = 0  # connections tried (a client offline for long tries at most every MAX_BACKOFF s)
        self._stop = threading.Event()
        self._pause = pause if pause is not None else self._stop.wait  # (a test's simulated time)
        self._thread = threading.Thread(target=self._run, name="online-events", daemon=True)

    def start(self) -> Follower:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        wait = 0.1
        while not self._stop.is_set():
            self.attempts += 1
            try:
                for kind, data in self.api.stream(self.game, self.held):
                    if self._stop.is_set():
                        return
                    wait = 0.1
                    plies = data.get("plies")
                    if kind == "state" and isinstance(plies, int) and plies < self.held:
                        self.held = plies  # a takeback: the moves after it come again, other ones
                    if kind == "move" and data.get("ply") == self.held + 1:
                        self.held += 1
                    elif kind == "move":
                        continue  # (already held)
                    self.events.put((kind, data))
                why = "the server closed the game's events"
            except OnlineError as e:
                why = str(e)
            if self._stop.is_set():
                return
            self.events.put(("down", {"why": why}))
            self._pause(wait)
            wait = min(MAX_BACKOFF, wait * 2)


def _clock_text(ms: object) -> str:
    """A side's time left as a player reads it: 4:05, or 1:02:03."""
    if not isinstance(ms, (int, float)):
        return "?"
    sec = int(ms) // 1000
    h, m, s = sec // 3600, sec // 60 % 60, sec % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _tag_op(gid: int, online_id: str, base: int = 0) -> Op:
    """The local game's header `online game: <id>` (the server's game): one game id in every library; a game
    the board was set up for mid-way (a re-synchronisation) also says the ply it starts after."""
    fields = {"online game": online_id}
    if base:
        fields["online from ply"] = str(base)
    return _headers_op(gid, fields)


def _headers_op(gid: int, fields: dict[str, str]) -> Op:
    """Headers added to the local game `gid` (its extra fields), as the server's library writes them."""

    def run(db: Any) -> tuple[int | None, str]:
        row = db.execute("SELECT extra FROM games WHERE id=?", (gid,)).fetchone()
        extra = loads_object(row[0] if row else None)
        extra.update(fields)
        db.execute("UPDATE games SET extra=? WHERE id=?", (json.dumps(extra), gid))
        return gid, ""

    return run


class Bridge:
    """One board in one online game (see the module's docstring)."""

    def __init__(
        self,
        api: Api,
        seat: Seat,
        session: LinkSession,
        say: Callable[[str], None] = print,
        retry: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        pause: Callable[[float], object] | None = None,
    ) -> None:
        self.api = api
        self.seat = seat
        self.session = session
        self.logger = session.logger
        self.say = say
        self.retry = retry
        self.clock = clock  # (clock and pause: a test's simulated time, for hours offline in a moment)
        self.follower = Follower(api, seat.game, pause).start()
        self.state: dict[str, Any] = {}
        self.moves: list[str] = []  # the server's moves, in order
        self.positions: list[core.Position] = []
        self.local: int | None = None  # the local library's game that is this online game
        self.done = False
        self.status = "connecting"
        self._new_sent_from: int | None = -1  # -1: no NEW sent; else the local game the board had before it
        self._shown: tuple[int | None, int] | None = None  # (local game, ply) SHOWn to the board
        self._next_show = 0.0
        self._next_post = 0.0
        self._next_look = 0.0
        self._posted = 0  # plies the server has confirmed from this client
        self._said = ""
        self._was_connected = False
        self._ended_locally = False
        self._undo_to: int | None = None  # a takeback: the board's game goes back to this many moves
        self._undo_from: int | None = None  # the board's moves when its last UNDO was taken
        self._setup: tuple[int | None, int] | None = None  # a SETUP sent: (the board's game then, the ply)
        self.base = 0  # the server's moves before the local game's start (a board set up mid-game)
        self.setup_step: setup_words.SetupStep | None = None  # the set-up step the board waits for
        self._notice = session.link.on_notice  # (given back on close: a rematch's bridge hooks its own)
        self._hook_notices()
        self._asked: dict[str, Any] | None = None  # the takeback the server says is asked for
        self.rematch_asked = False  # this seat asked for a rematch (the other's asking is said)
        self._rematch_said: object = None

    @property
    def shown(self) -> int:
        """The ply of the remote move the board was last told to light (0: none in this game)."""
        return self._shown[1] if self._shown is not None and self._shown[0] == self.local else 0

    @property
    def remote(self) -> str:
        return P.other(self.seat.side)

    def close(self) -> None:
        self.follower.stop()
        self.session.link.on_notice = self._notice

    def _note(self, text: str) -> None:
        if text != self._said:
            self._said = text
            self.say(text)

    # -- the server's events ----------------------------------------------------------------------------
    def _drain(self) -> None:
        while True:
            try:
                kind, data = self.follower.events.get_nowait()
            except queue.Empty:
                return
            if kind == "state":
                first = not self.state
                self.state = data
                if first or not self.positions:
                    self.positions = [position_json.from_dict(data["start"])]
                self._taken_back(int(data.get("plies", len(self.moves))))
                self._on_state(first)
            elif kind == "move":
                ply, text = int(data["ply"]), str(data["move"])
                if ply == len(self.moves) + 1 and self.positions:
                    self._held(ply, text)
                    if data.get("side") != self.seat.side:
                        self.say(f"server: ply {ply}, {P.side_name(self.remote)} played {text}")
                    clock = data.get("clock")
                    if isinstance(clock, dict):
                        self.say(
                            "clock: " + ", ".join(f"{P.side_name(s)} {_clock_text(clock.get(s))}" for s in P.SIDES)
                        )
            elif kind == "down":
                self._note(f"server: {data.get('why')}; reconnecting (nothing is lost: moves carry their ply)")

    def _taken_back(self, plies: int) -> None:
        """The server's game has fewer moves than this client holds: a takeback was accepted. The moves
        after it are dropped here, and taken back on the board (tick: UNDO, the board shows the seeds to
        put back)."""
        asked = self.state.get("takeback")
        if isinstance(asked, dict) and asked.get("by") == self.remote and asked != self._asked:
            self.say(
                f"{P.side_name(self.remote)} asks to take back to {asked.get('plies')} moves: type takeback"
                " to accept, or no"
            )
        was, self._asked = self._asked, asked if isinstance(asked, dict) else None
        if was is not None and was.get("by") == self.seat.side and self._asked is None and plies == len(self.moves):
            self.say(f"{P.side_name(self.remote)} declined the takeback")  # (no move came: the answer is no)
        if plies >= len(self.moves):
            return
        del self.moves[plies:]
        del self.positions[plies + 1 :]
        self._undo_to = plies
        self._shown = None
        self.say(f"takeback: the game goes back to {plies} moves; the board shows the seeds to put back")

    def ask_takeback(self) -> None:
        """Ask to take back this seat's last move (and the other's since), or accept the other's asking."""
        asked = self.state.get("takeback")
        if isinstance(asked, dict) and asked.get("by") == self.remote:
            self.api.accept_takeback(self.seat, int(asked.get("plies", -1)))
            return
        n = len(self.moves)
        mine = [i for i in range(max(0, n - 2), n) if "SN"[self.positions[i].to_move] == self.seat.side]
        if not mine:
            raise OnlineError("no move of yours to take back")
        self.api.takeback(self.seat, mine[-1])
        self.say(f"asked {P.side_name(self.remote)} to take back to {mine[-1]} moves")

    def _undo_on_board(self, board: list[str], now: float) -> bool:
        """A takeback's moves taken back on the board, one UNDO at a time (the next once the board has
        reported the last one: UNDO events come through the logger): True while some are left."""
        if self._undo_to is None:
            return False
        nb = len(board)
        if nb <= self._undo_to:
            self._undo_to = None
            self._undo_from = None
            return False
        if (self._undo_from is None or nb < self._undo_from) and now >= self._next_show:
            r = self.session.command("UNDO")
            if r is not None and r.ok:
                self._undo_from = nb
            else:
                self._next_show = now + self.retry
        return True

    def _on_state(self, first: bool) -> None:
        s = self.state
        names = s.get("seats") or {}
        status = str(s.get("status", ""))
        if status != self.status:
            self.status = status
            if status == "waiting":
                self.say(f"waiting for {P.side_name(self.remote)} to join")
            elif status == "playing":
                self.say(
                    f"playing {s.get('ruleset')}: South {names.get('S') or '?'}, North {names.get('N') or '?'};"
                    f" you play {P.side_name(self.seat.side)}, the board shows {P.side_name(self.remote)}'s"
                    " moves"
                )
            else:
                self.say(f"the game is over: {s.get('result') or 'no result'} ({s.get('reason') or status})")
        nxt = s.get("rematch")
        if nxt and nxt != self._rematch_said and not self.rematch_asked:
            self._rematch_said = nxt
            self.say(f"{P.side_name(self.remote)} asks for a rematch (the sides swapped): type rematch to play it")

    # -- the board ------------------------------------------------------------------------------------
    def _start_board_game(self) -> bool:
        """The board's game is this online game: True once it is (a NEW sent, its GAME stored, tagged; or,
        for a game under way that the board does not hold, a SETUP to the server's position done)."""
        if self.local is not None:
            return True
        if len(self.moves) < int(self.state.get("plies", 0)):
            return False  # (the moves are still coming: nothing is decided on part of them)
        if not self.session.link.caught_up:
            return False  # (nor on part of the board's events: a NEW sent then would drop a game just begun)
        if self._mid_move():
            return False  # (a CPU, or a NEW, now would drop the move under way: the game is taken once it is made)
        view = self.logger.view
        if (
            self._new_sent_from == -1
            and self._setup is None
            and view.game_id is not None
            and self._resumes(view.game_id)
        ):
            return True
        if self._setup is not None:
            return self._set_up_done()
        adopt = self._new_sent_from == -1 and view.game_id is not None and self._adoptable(view.game_id)
        if (
            self._new_sent_from == -1
            and not adopt
            and any("SN"[p.to_move] == self.seat.side for p in self.positions[: len(self.moves)])
        ):
            self._resync()  # the game is under way with moves of this player's: the board is set to the
            return False  # server's position, guided (a new game would have them sown again)
        if self._new_sent_from == -1 and not adopt:
            before = view.game_id  # (the new game's GAME event may come before the NEW's reply)
            r = self.session.command(
                "NEW", json.dumps({"ruleset": self.state["ruleset"], "options": self.state.get("options") or {}})
            )
            if r is None or not r.ok:
                return False
            self._new_sent_from = before
            return False
        if not adopt and (view.game_id is None or view.game_id == self._new_sent_from):
            return False  # (the NEW's game has not begun on the board yet)
        # the new game is taken even if the player has moved on it already: a move that is not the server's
        # is then said (tick: "the board's game differs"), never waited for in silence
        gid = view.game_id
        assert gid is not None
        return self._take_local(gid, 0)

    def _take_local(self, gid: int, base: int) -> bool:
        """The local game `gid` is this online game from the server's ply `base`: tagged, its players named,
        the remote side handed to the host."""
        store = self.logger.store
        names = self.state.get("seats") or {}
        try:
            key = f"online-{self.seat.game}" + (f"-from-{base}" if base else "")
            store.ingest(
                self.logger.board_id or "unknown",
                key,
                1,
                "ONLINE",
                json.dumps({"game": self.seat.game, "seat": self.seat.side, "from": base}),
                _tag_op(gid, self.seat.game, base),
            )
            store.name_players(gid, south=str(names.get("S") or "") or None, north=str(names.get("N") or "") or None)
        except StoreError as e:
            self.say(f"the local library: {e}")
        r = self.session.command("CPU", f"{self.remote} 0")
        if r is None or not r.ok:
            return False
        self.local = gid
        self.base = base
        self.say(f"the board plays this game (local game {gid}); {P.side_name(self.remote)}'s moves are lit on it")
        return True

    def _resync(self) -> None:
        """The board does not hold this game as the server has it (a power cut that lost its record, another
        game on it, a move the server does not have): the board guides the set-up of the server's position,
        the differing places only (SETUP: places already right are skipped), and plays on from it."""
        n = len(self.moves)
        r = self.session.command("SETUP", position_json.dumps(self.positions[n], False))
        if r is None or not r.ok:
            self._note(f"the board refused the set-up of the server's position: {r.payload if r else 'no answer'}")
            return
        self._setup = (self.logger.view.game_id, n)
        self.say(
            f"the board's position is not the server's after {n} moves: the board lights the places that"
            f" differ, one at a time ({r.payload})"
        )

    def _set_up_done(self) -> bool:
        """The set-up asked for is done once the board's new game starts at the server's position."""
        assert self._setup is not None
        before, n = self._setup
        view = self.logger.view
        if view.game_id is None or view.game_id == before or view.plies or n >= len(self.positions):
            return False
        try:
            start = self.logger.store.game(view.game_id).start_position()
        except StoreError:
            return False
        if start.d != self.positions[n].d:
            return False
        self._setup = None
        if before is not None:  # the game the board held is not this game's record any more
            try:
                self.logger.store.mark_abandoned(before)
            except StoreError as e:
                self.say(f"the local library: {e}")
        return self._take_local(view.game_id, n)

    def _hook_notices(self) -> None:
        """The board's SETUP notices said in words (bao_host.ui.setup_words), as the other UIs say them."""
        link = self.session.link
        notice = link.on_notice

        def on_notice(typ: str, payload: str, line: bytes) -> None:
            if typ == "SETUP":
                said = setup_words.parse(payload)
                if isinstance(said, setup_words.SetupStep):
                    self.setup_step = said
                    self.say(setup_words.step_words(said))
                elif isinstance(said, setup_words.SetupEnd):
                    self.setup_step = None
                    self.say(setup_words.end_words(said))
            if notice is not None:
                notice(typ, payload, line)

        link.on_notice = on_notice

    def _resumes(self, gid: int) -> bool:
        """The board's current game is this online game already (a client restarted, the board kept its
        game): carried on where it is, no new game."""
        try:
            g = self.logger.store.game(gid)
        except StoreError:
            return False
        if g.extra.get("online game") != self.seat.game or g.status != "playing":
            return False
        r = self.session.command("CPU", f"{self.remote} 0")  # (the board keeps it; said again, harmless)
        if r is None or not r.ok:
            return False
        self.local = gid
        base = str(g.extra.get("online from ply", "0"))
        self.base = int(base) if base.isdigit() else 0
        self.say(f"the board's game {gid} is this online game: carried on from ply {self.base + len(g.plies)}")
        return True

    def _adoptable(self, gid: int) -> bool:
        """The board's current game can be this online game as it is: not another online game's, the same
        rules and start, its moves so far the server's (a player who set the board up and moved while the
        other was joining; a board that starts after the other's first move)."""
        try:
            g = self.logger.store.game(gid)
        except StoreError:
            return False
        if g.extra.get("online game") or g.status != "playing" or not self.positions:
            return False
        start = self.positions[0]
        if (
            g.start_position().d != start.d
            or g.rules().ruleset != start.rules.ruleset
            or g.rules().options() != start.rules.options()
        ):
            return False
        k, n = len(g.plies), len(self.moves)
        if g.plies[: min(k, n)] != self.moves[: min(k, n)]:
            return False
        # the moves the board lacks, if any, are the remote player's (lit and sown on it as they come); a
        # move of this seat's the board lacks was made by hand already: the board is set up instead
        return all("SN"[self.positions[i].to_move] == self.remote for i in range(k, n))

    def tick(self) -> None:
        self._drain()
        if not self.state or self.done:
            return
        up = self.session.connected
        if up != self._was_connected:
            self._was_connected = up
            self._shown = None  # a board that restarted forgets what it was shown
        if self.status == "waiting":
            return
        ended = self.status in ("over", "aborted")
        if ended and (self.local is None or self.status == "aborted" or not up):
            self._finish()  # (the result goes into the local library: it needs no board)
            return
        if not up:
            return
        if not self._start_board_game():
            return
        board = (
            self.moves[: self.base] + list(self.logger.view.plies) if self.logger.view.game_id == self.local else None
        )
        if board is None:
            self._note("the board started another game: this online game goes on when it is played again")
            if ended:
                self._finish()
            return
        now = self.clock()
        if self._undo_to is not None and self._undo_on_board(board, now):
            return
        nb, ns = len(board), len(self.moves)
        # a game won on the board ends once the board has sown the last move; a resignation at once
        won = self.state.get("reason") == "no legal move"
        if ended and ns >= int(self.state.get("plies", 0)) and (nb >= ns or not won):
            self._finish()
            return
        k = min(nb, ns)
        if board[:k] != self.moves[:k]:
            self._note(
                f"the board's game differs from the server's from ply "
                f"{next(i for i in range(k) if board[i] != self.moves[i]) + 1}: take back on the board"
            )
            return
        if nb > ns and "SN"[self.positions[ns].to_move] != self.seat.side:
            self._note(
                f"the board holds {P.side_name(self.remote)}'s move {board[ns]} (ply {ns + 1}) before the"
                " server: waiting for the server to have it"
            )
        elif nb > ns and now >= self._next_post:
            self._post(ns + 1, board[ns])
        elif nb == ns and "SN"[self.positions[ns].to_move] == self.seat.side and now >= self._next_look:
            self._next_look = now + 2.0
            self._look_for_decision()
        elif ns > nb and now >= self._next_show and self._shown != (self.local, nb + 1):
            text = self.moves[nb]
            if not self._between_moves(nb):
                self._next_show = now + self.retry
                return
            r = self.session.command("SHOW", text)
            if r is not None and r.ok:
                self._shown = (self.local, nb + 1)
                who = P.side_name("SN"[self.positions[nb].to_move])
                self.say(f"the board lights {who}'s move {text} (ply {nb + 1}): sow it")
            else:
                self._next_show = now + self.retry

    def _board_phase(self) -> str | None:
        """The board's phase as its SNAP says it ("idle", "moving", "decision", ...), None when it does not say."""
        r = self.session.command("SNAP")
        try:
            phase = json.loads(r.payload).get("phase") if r is not None and r.ok else None
        except (ValueError, AttributeError):
            return None
        return phase if isinstance(phase, str) else None

    def _mid_move(self) -> bool:
        """A move is under way on the board (a hand sowing it, or its house decision): the board starts a move
        over at a boundary, and CPU makes one, so the game is taken once the move is made (said once)."""
        phase = self._board_phase()
        if phase == "decision":
            self._note("2.5b: your move may stop in the house: lift the house to play on, or type stop")
        elif phase == "moving":
            self._note("a move is under way on the board: the online game takes it once it is made")
        return phase in ("moving", "decision")

    def _look_for_decision(self) -> None:
        """The player's move may stop in the house (2.5b): at a board, the opponent's next touch says stop;
        this opponent is far away, so the player says it (`stop`) or lifts the house to play on."""
        phase = self._board_phase()
        if phase == "decision":
            self._note("2.5b: your move may stop in the house: lift the house to play on, or type stop")

    def _between_moves(self, nb: int) -> bool:
        """The board is between two moves, after the nb moves the library holds: a SHOW now lights the move
        (a SHOW while a hand sows would drop the move half made)."""
        r = self.session.command("SNAP")
        if r is None or not r.ok:
            return False
        try:
            snap = json.loads(r.payload)
        except ValueError:
            return False
        return isinstance(snap, dict) and snap.get("phase") == "idle" and snap.get("moves") == nb - self.base

    def _post(self, ply: int, text: str) -> None:
        try:
            self.api.move(self.seat, ply, text)
        except OnlineError as e:
            self._next_post = self.clock() + self.retry
            if e.status == 0:
                self._note(f"server: {e}; the move {text} is sent again")
            else:
                rule = f" ({e.rule})" if e.rule else ""
                self._note(f"the server refused {text} at ply {ply}{rule}: {e}")
            return
        self.say(f"sent ply {ply}: {text}")
        self._next_post = 0.0
        if ply == len(self.moves) + 1:  # the server has it: not sent again (its event is then skipped)
            self._held(ply, text)

    def _held(self, ply: int, text: str) -> None:
        _, child = notation.parse_move(self.positions[-1], text)
        self.moves.append(text)
        self.positions.append(child)

    def _finish(self) -> None:
        """The game ended on the server: a resignation or an abort is recorded in the local game too."""
        self.done = True
        if self.local is None or self._ended_locally:
            return
        self._ended_locally = True
        reason = str(self.state.get("reason", ""))
        result = str(self.state.get("result", ""))
        store = self.logger.store
        try:
            if self.status == "aborted":
                store.mark_abandoned(self.local)
            elif result and store.game(self.local).status != "over":
                store.ingest(
                    self.logger.board_id or "unknown",
                    f"online-{self.seat.game}",
                    2,
                    "ONLINE",
                    json.dumps({"result": result, "reason": reason}),
                    store.op_end(self.local, result),
                )
            if reason:  # (how it ended, as the server's library says it: termination)
                store.ingest(
                    self.logger.board_id or "unknown",
                    f"online-{self.seat.game}",
                    3,
                    "ONLINE",
                    json.dumps({"termination": reason}),
                    _headers_op(self.local, {"termination": reason}),
                )
        except StoreError as e:
            self.say(f"the local library: {e}")
