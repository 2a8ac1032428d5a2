"""Online play's test rig: a `bao serve` (webrig) and players, each a simulated board (the unchanged
firmware, bao_host.boards.sim) with its own host client (bao_host.online.client.Bridge on a LinkSession)
and its own local library.

    with serving(tmp / "server", sims=0) as web:
        a, b = pair(web.url, tmp)          # a: South (created the game), b: North (joined it)
        play_remote(g, [a, b], web)        # every move on the mover's board, then lit and sown on the other
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import simrig
from bao import core
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.online.client import Api, Bridge, Seat
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from baoboard.recogniser import DECISION, IDLE
from webrig import Web


@dataclass
class Player:
    name: str
    runner: SimRunner
    store: Store
    session: LinkSession
    bridge: Bridge
    said: list[str] = field(default_factory=list)

    def pump(self) -> None:
        self.session.poll(0)
        self.bridge.tick()

    def close(self) -> None:
        self.bridge.close()
        self.session.close()
        self.runner.close()
        self.store.close()

    def follows_only(self, p: core.Position, m: int) -> bool:
        """The board lights this move and follows only it (the remote player's move, as the computer's)."""
        with self.runner.lock:
            app = self.runner.board.app
            return app is not None and app.p.d == p.d and list(app.rec.codes) == [m] and app.rec.phase == IDLE


def player(name: str, api: Api, seat: Seat, root: Path) -> Player:
    (root / "flash").mkdir(parents=True, exist_ok=True)
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(root / "flash"), board_id=f"sim-{name}"), link).start()
    store = Store(root / "library")
    logger = Logger(store)
    session = LinkSession(link.path, logger)
    said: list[str] = []
    bridge = Bridge(api, seat, session, say=said.append, retry=0.2)
    return Player(name, runner, store, session, bridge, said)


def pair(url: str, tmp: Path, ruleset: str = core.ZANZIBAR) -> tuple[Player, Player]:
    api = Api(url)
    seat_a = api.create(ruleset, "S", "Alice")
    seat_b = api.join(seat_a.invite, "Bob")
    return player("alice", api, seat_a, tmp / "alice"), player("bob", api, seat_b, tmp / "bob")


def pump_all(players: list[Player]) -> None:
    for p in players:
        p.pump()


def server_moves(web: Web, game: str) -> list[str]:
    g = web.server.online.games.get(game)
    return list(g.moves) if g is not None else []


def play_remote(g: simrig.Played, players: list[Player], web: Web, timeout: float = 60.0) -> None:
    """Each move made on its mover's board, sent to the server, lit on the other board and sown there."""
    step = lambda: pump_all(players)  # noqa: E731
    by_side = {pl.bridge.seat.side: pl for pl in players}
    game = players[0].bridge.seat.game
    simrig.wait_for(lambda: all(pl.bridge.local is not None for pl in players), timeout, step,
                    "both boards to start the online game")
    for i, (p, m) in enumerate(g.moves):
        mover, other = by_side["SN"[p.to_move]], by_side["NS"[p.to_move]]
        # (a lit move that may stop in the house waits for the decision: this player's next touch stops it)
        simrig.wait_for(lambda pl=mover, p=p: pl.runner.phase == DECISION or pl.runner.position.d == p.d,
                        timeout, step, f"{mover.name}'s board at ply {i + 1}")
        job = mover.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, timeout, step, f"{mover.name}'s hands, ply {i + 1}")
        if mover.runner.phase == DECISION:  # 2.5b with the opponent far away: the player says stop
            mover.session.command("STOP")
        simrig.wait_for(lambda n=i + 1: len(server_moves(web, game)) >= n, timeout, step, f"the server's ply {i + 1}")
        simrig.wait_for(lambda pl=other, p=p, m=m: pl.follows_only(p, m), timeout, step,
                        f"{other.name}'s board lighting ply {i + 1}")
        job = other.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, timeout, step, f"{other.name}'s hands, ply {i + 1}")
    for pl in players:
        if pl.runner.phase == DECISION:
            pl.session.command("STOP")


def wait_end(players: list[Player], timeout: float = 60.0) -> None:
    simrig.wait_for(lambda: all(pl.bridge.done for pl in players), timeout, lambda: pump_all(players),
                    "both clients to see the end")
