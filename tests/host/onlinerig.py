"""Online play's test rig: a `bao serve` that can be stopped and started again, and players, each a
simulated board (the unchanged firmware, bao_host.boards.sim) with its own host client
(bao_host.online.client.Bridge on a LinkSession) and its own local library.

    server = Server(tmp / "server").start()
    a, b = pair(server.url, tmp)           # a: South (created the game), b: North (joined it)
    play_remote(g, [a, b], server)         # every move on the mover's board, then lit and sown on the other
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bao import core
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.online.client import Api, Bridge, OnlineError, Seat
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.state import IDLE
from bao_host.record.store import Store
from bao_host.ui.web.app import Settings, WebServer, create_app
from bao_testkit import simrig
from baoboard.recogniser import DECISION, PIT, activations


@dataclass
class Player:
    name: str
    runner: SimRunner
    store: Store
    session: LinkSession
    bridge: Bridge
    said: list[str] = field(default_factory=list)

    def pump(self) -> None:
        self.session.poll(0.002)
        self.bridge.tick()

    def close(self) -> None:
        self.leave()
        self.runner.close()
        self.store.close()

    def leave(self) -> None:
        """The host client stops (killed: its board and library stay)."""
        self.bridge.close()
        self.session.close()

    def come_back(self) -> None:
        """A new host client on the same board and library, for the same seat."""
        assert self.runner.link is not None
        self.session = LinkSession(self.runner.link.path, Logger(self.store))
        self.bridge = Bridge(self.bridge.api, self.bridge.seat, self.session, say=self.said.append, retry=0.2)

    def follows_only(self, ply: int, p: core.Position, m: int) -> bool:
        """The board was told to light this move (SHOW) and follows only it (the remote player's move, as
        the computer's): a player waits for the light before sowing. As the board says it on its line (its
        STATE, docs/protocol.md): between moves at `p`, the move's start lit as a move shown."""
        if self.bridge.shown != ply:
            return False
        s = self.session.logger.view.state
        first = activations(p, m)[0] & PIT
        return s is not None and s.stage == IDLE and s.pos == bytes(p.d) and s.shown == first


class SimClock:
    """Simulated time for a client: its clock, and its pauses (each advances the clock at once; a real
    millisecond passes, for the other threads)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.t

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.t += seconds

    def pause(self, seconds: float) -> None:
        self.advance(seconds)
        time.sleep(0.001)


class Unplugged(Api):
    """The server's API through a network that can go down: while `down`, every request and every new event
    stream fails as an unreachable server does, and an event in flight on a stream is lost with it."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.down = threading.Event()
        self.refused = 0  # requests and streams that found the network down

    def _check(self) -> None:
        if self.down.is_set():
            self.refused += 1
            raise OnlineError(f"the server at {self.base} does not answer (the network is down)")

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
        self._check()
        return super().request(method, path, body, token)

    def stream(self, game: str, after: int, timeout: float = 40.0) -> Iterator[tuple[str, dict[str, Any]]]:
        self._check()
        for item in super().stream(game, after, timeout):
            self._check()
            yield item


def player(name: str, api: Api, seat: Seat, root: Path, clock: SimClock | None = None) -> Player:
    (root / "flash").mkdir(parents=True, exist_ok=True)
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(root / "flash"), board_id=f"sim-{name}"), link).start()
    store = Store(root / "library")
    logger = Logger(store)
    session = LinkSession(link.path, logger)
    said: list[str] = []
    if clock is None:
        bridge = Bridge(api, seat, session, say=said.append, retry=0.2)
    else:
        bridge = Bridge(api, seat, session, say=said.append, retry=0.2, clock=clock, pause=clock.pause)
    return Player(name, runner, store, session, bridge, said)


def pair(
    url: str,
    tmp: Path,
    ruleset: str = core.ZANZIBAR,
    clock: tuple[float, float] | None = None,
    url_b: str | None = None,
) -> tuple[Player, Player]:
    """Alice makes a game on url, Bob joins it on url_b (another server process on a shared database), or
    on url too."""
    api = Api(url)
    api_b = Api(url_b) if url_b is not None else api
    seat_a = api.create(ruleset, "S", "Alice", clock)
    seat_b = api_b.join(seat_a.invite, "Bob")
    return player("alice", api, seat_a, tmp / "alice"), player("bob", api_b, seat_b, tmp / "bob")


def pump_all(players: list[Player]) -> None:
    for p in players:
        p.pump()


class Server:
    """`bao serve` (no simulated board of its own) on one loopback port, stopped and started again at will."""

    def __init__(self, data: Path) -> None:
        self.data = data
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.api = Api(self.url)
        self._run: tuple[WebServer, threading.Thread, socket.socket] | None = None

    def start(self) -> Server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        started: list[object] = []
        app = create_app(Settings(data=self.data, sims=0, allowed_hosts=["127.0.0.1"]), on_start=started.append)
        server = WebServer(app, log_level="warning", timeout_graceful_shutdown=5, lifespan="on")
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="bao-serve", daemon=True)
        thread.start()
        simrig.wait_for(lambda: started and server.started, 30, what="the server to start")
        self._run = (server, thread, sock)
        return self

    def stop(self) -> None:
        assert self._run is not None
        server, thread, sock = self._run
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"
        self._run = None

    def moves(self, game: str) -> list[str]:
        try:
            return list(self.api.state(game)["moves"])
        except OnlineError:
            return []


class Moves(Protocol):
    def moves(self, game: str) -> list[str]: ...


class Process:
    """The game's moves as a `bao serve` process of its own answers them (bao_testkit.pgrig.Serve's url)."""

    def __init__(self, url: str) -> None:
        self.api = Api(url)

    def moves(self, game: str) -> list[str]:
        try:
            return list(self.api.state(game)["moves"])
        except OnlineError:
            return []


def play_remote(
    g: simrig.Played,
    players: list[Player],
    server: Moves,
    timeout: float = 60.0,
    before: dict[int, Callable[[], object]] | None = None,
    after: dict[int, Callable[[], object]] | None = None,
    start: int = 0,
) -> None:
    """Each move made on its mover's board, sent to the server, lit on the other board and sown there
    (from ply start + 1). before[n]() and after[n](): faults, before ply n is made on its mover's board and
    after."""
    try:
        _play_remote(g, players, server, timeout, before or {}, after or {}, start)
    except AssertionError as e:  # (what each client saw, to tell a lost event from slow hands)
        raise AssertionError(f"{e}\n" + "\n".join(_client_said(pl) for pl in players)) from None


def _client_said(pl: Player) -> str:
    b = pl.bridge
    return (
        f"{pl.name}: server moves held {len(b.moves)} (events {b.follower.held}, connections {b.follower.attempts}),"
        f" shown ply {b.shown}, status {b.status}; last said: {pl.said[-8:]}"
    )


def _play_remote(
    g: simrig.Played,
    players: list[Player],
    server: Moves,
    timeout: float,
    before: dict[int, Callable[[], object]],
    after: dict[int, Callable[[], object]],
    start: int,
) -> None:
    step = lambda: pump_all(players)  # noqa: E731
    by_side = {pl.bridge.seat.side: pl for pl in players}
    game = players[0].bridge.seat.game
    simrig.wait_for(
        lambda: all(pl.bridge.local is not None for pl in players),
        timeout,
        step,
        "both boards to start the online game",
    )
    for i, (p, m) in enumerate(g.moves[start:], start):
        mover, other = by_side["SN"[p.to_move]], by_side["NS"[p.to_move]]
        # (a lit move that may stop in the house waits for the decision: this player's next touch stops it)
        simrig.wait_for(
            lambda pl=mover, p=p: pl.runner.phase == DECISION or pl.runner.position.d == p.d,
            timeout,
            step,
            f"{mover.name}'s board at ply {i + 1}",
        )
        if i + 1 in before:
            before[i + 1]()
        job = mover.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, timeout, step, f"{mover.name}'s hands, ply {i + 1}")
        if mover.runner.phase == DECISION:  # 2.5b with the opponent far away: the player says stop
            mover.session.command("STOP")
        if i + 1 in after:
            after[i + 1]()
        simrig.wait_for(lambda n=i + 1: len(server.moves(game)) >= n, timeout, step, f"the server's ply {i + 1}")
        simrig.wait_for(
            lambda pl=other, n=i + 1, p=p, m=m: pl.follows_only(n, p, m),
            timeout,
            step,
            f"{other.name}'s board lighting ply {i + 1}",
        )
        job = other.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, timeout, step, f"{other.name}'s hands, ply {i + 1}")
    for pl in players:
        if pl.runner.phase == DECISION:
            pl.session.command("STOP")
    simrig.wait_for(  # each library has the last move sown on its board (a logger closed sooner leaves it on the
        lambda: all(pl.bridge.base + len(pl.session.logger.view.plies) >= len(g.moves) for pl in players),  # board)
        timeout,
        step,
        "every logger to have the last move",
    )


def wait_end(players: list[Player], timeout: float = 60.0) -> None:
    simrig.wait_for(
        lambda: all(pl.bridge.done for pl in players), timeout, lambda: pump_all(players), "both clients to see the end"
    )
