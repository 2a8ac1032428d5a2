"""Online play (issue #27, docs/online.md): two simulated boards (the unchanged firmware), each with its own
host client and local library, play through `bao serve`; the server referees and keeps the game. Faults: a
client killed and started again, the server stopped and started again mid-game."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import onlinerig
from bao import core
from bao_host.record.store import Store
from bao_testkit import simrig


def _online_game(root: Path, game: str) -> tuple[list[str], dict[str, str]]:
    with Store(root, readonly=True) as st:
        found = [g for g in st.games() if st.game(g.id).headers().get("online game") == game]
        assert len(found) == 1, f"{root}: {len(found)} games of online game {game}"
        g = st.game(found[0].id)
        return g.plies, g.headers()


Faults = dict[int, Callable[[], object]]


def _play_1994(
    tmp_path: Path,
    faults: Callable[[onlinerig.Server, onlinerig.Player, onlinerig.Player], tuple[Faults, Faults]] | None = None,
) -> None:
    """The 1994 game, South (Alice) on one board and North (Bob) on the other, South resigning at the end
    as in the transcript; then the server's library and both local libraries hold the same game."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    began = time.monotonic()
    a, b = onlinerig.pair(server.url, tmp_path, clock=(3600, 5))
    try:
        before, after = faults(server, a, b) if faults else ({}, {})
        onlinerig.play_remote(g, [a, b], server, before=before, after=after)
        a.bridge.api.resign(a.bridge.seat)  # "A resigns" (the transcript's last words)
        onlinerig.wait_end([a, b])
        game = a.bridge.seat.game
        state = server.api.state(game)
        played = time.monotonic() - began
    except AssertionError:
        for pl in (a, b):
            print(pl.name, pl.runner.phase, pl.session.logger.view.plies[-3:], *pl.said[-10:], sep="\n  ")
            print(*[m.text for m in pl.session.logger.messages if "refused" not in m.text][-10:], sep="\n  ")
            print("lit:", sum("lights" in x for x in pl.said), "plies", len(pl.session.logger.view.plies))
            with pl.runner.lock:
                app = pl.runner.board.app
                print(pl.name, "codes", list(app.rec.codes), app.rec.phase, app.cpu, pl.runner.board.errors)
        raise
    finally:
        a.close()
        b.close()
        server.stop()
    assert (state["status"], state["result"], state["reason"], state["moves"]) == (
        "over",
        "North wins",
        "South resigned",
        g.plies,
    )
    server_plies, server_headers = _online_game(tmp_path / "server", game)
    alice_plies, alice_headers = _online_game(tmp_path / "alice" / "library", game)
    bob_plies, bob_headers = _online_game(tmp_path / "bob" / "library", game)
    assert server_plies == alice_plies == bob_plies == g.plies
    for h in (server_headers, alice_headers, bob_headers):
        assert (h["South"], h["North"], h["result"]) == ("Alice", "Bob", "North wins")
    # Alice read the clocks after every move of Bob's (an hour each, 5 s more a move, the time used off it:
    # at most the game's length, however slow this machine is today)
    clocks = [x for x in a.said if x.startswith("clock: ")]
    assert len(clocks) == len(g.plies) // 2, clocks[-3:]
    for moves, c in enumerate(clocks, 1):  # (each side has made `moves` moves)
        most = 3600 + 5 * moves
        shown = re.fullmatch(r"clock: South (\d):(\d\d):(\d\d), North (\d):(\d\d):(\d\d)", c)
        assert shown is not None, c
        h1, m1, s1, h2, m2, s2 = map(int, shown.groups())
        for left in (3600 * h1 + 60 * m1 + s1, 3600 * h2 + 60 * m2 + s2):
            assert most - played <= left <= most, (c, played)


def test_two_boards_play_the_1994_game_through_the_server(tmp_path: Path) -> None:
    _play_1994(tmp_path)


def test_a_client_killed_comes_back_and_the_game_goes_on(tmp_path: Path) -> None:
    def faults(server: onlinerig.Server, a: onlinerig.Player, b: onlinerig.Player) -> tuple[Faults, Faults]:
        def alice_back() -> None:  # ply 11 was made on Alice's board while no client ran
            assert len(server.moves(a.bridge.seat.game)) == 10
            a.come_back()

        return {11: a.leave, 20: b.leave}, {11: alice_back, 20: b.come_back}

    _play_1994(tmp_path, faults)


def test_the_server_stopped_and_started_again_mid_game_loses_nothing(tmp_path: Path) -> None:
    def faults(server: onlinerig.Server, a: onlinerig.Player, b: onlinerig.Player) -> tuple[Faults, Faults]:
        def restart() -> None:  # ply 15 waits on Alice's board while the server is away
            simrig.wait_for(
                lambda: any("does not answer" in s for s in a.said),
                30,
                lambda: a.pump(),
                "Alice's client to find the server gone",
            )
            server.start()

        return {15: server.stop}, {15: restart}

    _play_1994(tmp_path, faults)


def test_an_aborted_game_and_one_the_server_stopped_before_filing_are_in_the_library(tmp_path: Path) -> None:
    server = onlinerig.Server(tmp_path / "server").start()
    try:
        api = server.api
        aborted = api.create("zanzibar", "S", "Alice")
        joined = api.join(aborted.invite, "Bob")
        api.move(aborted, 1, "7L*")
        api.abort(joined)  # North has not moved yet: it may abort
        unfiled = api.create("malawi", "N", "Carol")
        api.join(unfiled.invite, "Dan")
    finally:
        server.stop()
    # a game that ended while its filing did not happen (the server stopped in between): filed at the next start
    from bao_host.online.store import OnlineStore

    st = OnlineStore(tmp_path / "server")
    st.finish(unfiled.game, "over", "South wins", "North resigned")
    st.close()
    server.start()
    server.stop()
    with Store(tmp_path / "server", readonly=True) as lib:
        a = lib.game(f"online-{aborted.game}")
        u = lib.game(f"online-{unfiled.game}")
        assert (a.plies, a.status, a.headers()["termination"]) == (["7L*"], "abandoned", "aborted by North")
        assert (u.plies, u.result, u.ruleset, u.headers()["termination"]) == (
            [],
            "South wins",
            "malawi",
            "North resigned",
        )


def test_a_takeback_asked_and_accepted_is_undone_on_both_boards(tmp_path: Path) -> None:
    """Alice (South) asks to take back her last move after Bob's answer; Bob accepts: both boards take the two
    moves back (UNDO: the board shows the seeds to put back), the server drops them, and the game goes on."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    a, b = onlinerig.pair(server.url, tmp_path)
    game = a.bridge.seat.game
    step = lambda: onlinerig.pump_all([a, b])  # noqa: E731
    try:
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:4]), [a, b], server)
        a.bridge.ask_takeback()  # asked once, and Bob says no: Alice is told
        simrig.wait_for(lambda: server.api.state(game)["takeback"] is not None, 30, step, "the takeback asked")
        b.bridge.api.takeback(b.bridge.seat, None)  # (Bob types no)
        simrig.wait_for(lambda: "North declined the takeback" in a.said, 30, step, "Alice told of the no")
        a.bridge.ask_takeback()  # her last move is ply 3: back to 2 moves
        simrig.wait_for(
            lambda: sum("South asks to take back to 2 moves" in x for x in b.said) == 2,
            30,
            step,
            "Bob told of the takeback asked again",
        )
        assert server.api.state(game)["takeback"] == {"by": "S", "plies": 2} and server.moves(game) == g.plies[:4]
        b.bridge.ask_takeback()  # (asked of him: he accepts)
        simrig.wait_for(
            lambda: all(pl.session.logger.view.plies == g.plies[:2] for pl in (a, b)),
            30,
            step,
            "both boards back at 2 moves",
        )
        assert server.moves(game) == g.plies[:2] and server.api.state(game)["takeback"] is None
        for pl in (a, b):
            assert [e for e in pl.said if e.startswith("takeback: ")] == [
                "takeback: the game goes back to 2 moves; the board shows the seeds to put back"
            ]
            assert pl.runner.position.d == g.moves[2][0].d
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:8]), [a, b], server, start=2)
        simrig.wait_for(
            lambda: all(pl.session.logger.view.plies == g.plies[:8] for pl in (a, b)),
            30,
            step,
            "both boards at 8 moves",
        )
        assert server.moves(game) == g.plies[:8]
    finally:
        a.close()
        b.close()
        server.stop()


def test_a_board_that_lost_its_record_is_set_up_to_the_servers_position(tmp_path: Path) -> None:
    """Bob's board loses its power and its record (a wiped flash: it comes back with a new game at the start)
    while his client is down. Coming back, the client does not make him sow the six moves again nor overwrite
    the board's position: the board guides the set-up of the places that differ from the server's position
    (SETUP), place by place, and the game goes on from there."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    a, b = onlinerig.pair(server.url, tmp_path)
    game = a.bridge.seat.game
    step = lambda: onlinerig.pump_all([a, b])  # noqa: E731
    try:
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:6]), [a, b], server)
        b.leave()
        flash = tmp_path / "bob" / "flash"
        with b.runner.lock:
            for f in flash.iterdir():
                f.unlink()
            b.runner.board.power_cut()
        simrig.wait_for(lambda: b.runner.position.d == core.initial(g.ruleset).d, 30, what="Bob's board afresh")
        b.come_back()
        simrig.wait_for(lambda: b.bridge.setup_step is not None, 30, step, "the set-up's first place")
        initial, target = core.initial(g.ruleset), g.moves[6][0]
        differ = {core.pit_name(i) for i in range(32) if initial.d[i] != target.d[i]}
        lit: list[str] = []
        while b.bridge.local is None:
            at = b.bridge.setup_step.at if b.bridge.setup_step is not None else ""
            if at and (not lit or lit[-1] != at):
                lit.append(at)
                pit = core.pit_index({"store-S": "B1", "store-N": "b1"}.get(at, at))
                job = b.runner.tap(pit)
                simrig.wait_for(job.done.is_set, 30, step, f"the touch of {at}")
            step()
            assert len(lit) <= 34, lit
        assert differ <= set(lit) and set(lit) - differ <= {"store-S", "store-N"}, (sorted(differ), lit)
        assert any(x.startswith("Set-up, step 1 of ") for x in b.said)
        assert b.runner.position.d == target.d and b.bridge.base == 6
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:10]), [a, b], server, start=6)
        simrig.wait_for(
            lambda: a.session.logger.view.plies == g.plies[:10] and b.session.logger.view.plies == g.plies[6:10],
            30,
            step,
            "both boards at 10 moves",
        )
        assert server.moves(game) == g.plies[:10]
    finally:
        a.close()
        b.close()
        server.stop()


def test_a_client_offline_for_ten_minutes_loses_nothing(tmp_path: Path) -> None:
    """Bob's network goes down for ten minutes (simulated time: his client's clock and its pauses), twice: once
    while Alice moves (her move, made meanwhile, reaches his board when he is back), once just after his own
    move on his board (sent once he is back, once). His client tries again without flooding the server (at
    most every few seconds); nothing is lost, nothing doubled, and the game goes on."""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    api = onlinerig.Api(server.url)
    seat_a = api.create(g.ruleset, "S", "Alice")
    clock = onlinerig.SimClock()
    net = onlinerig.Unplugged(server.url)
    a = onlinerig.player("alice", api, seat_a, tmp_path / "alice")
    b = onlinerig.player("bob", net, net.join(seat_a.invite, "Bob"), tmp_path / "bob", clock)
    game = seat_a.game
    step = lambda: onlinerig.pump_all([a, b])  # noqa: E731

    def ten_minutes_offline() -> None:
        start, tries = clock(), b.bridge.follower.attempts
        while clock() < start + 600:  # (the client's own pauses and tries advance its clock; so do we)
            step()
            clock.advance(0.5)
        assert b.bridge.follower.attempts - tries <= 600 / 5 + 10  # at most one a few seconds apart
        net.down.clear()

    try:
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:6]), [a, b], server)
        net.down.set()  # Alice's ply 7 is made while Bob is offline
        job = a.runner.perform(*g.moves[6])
        simrig.wait_for(lambda: len(server.moves(game)) == 7 and job.done.is_set(), 30, step, "Alice's ply 7")
        ten_minutes_offline()
        simrig.wait_for(lambda: b.follows_only(7, *g.moves[6]), 30, step, "Bob's board lighting ply 7")
        job = b.runner.perform(*g.moves[6])
        simrig.wait_for(job.done.is_set, 30, step, "Bob sowing ply 7")
        refused = net.refused
        net.down.set()  # Bob's ply 8 is made on his board just as his network goes down
        job = b.runner.perform(*g.moves[7])
        simrig.wait_for(lambda: job.done.is_set() and len(b.session.logger.view.plies) == 8, 30, step, "Bob's ply 8")
        ten_minutes_offline()
        assert net.refused > refused and len(server.moves(game)) == 7  # (tried while down, not taken)
        simrig.wait_for(lambda: len(server.moves(game)) == 8, 30, step, "Bob's ply 8 on the server")
        assert sum(x.startswith("sent ply 8:") for x in b.said) == 1
        simrig.wait_for(lambda: a.follows_only(8, *g.moves[7]), 30, step, "Alice's board lighting ply 8")
        job = a.runner.perform(*g.moves[7])
        simrig.wait_for(job.done.is_set, 30, step, "Alice sowing ply 8")
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:10]), [a, b], server, start=8)
        simrig.wait_for(
            lambda: all(pl.session.logger.view.plies == g.plies[:10] for pl in (a, b)),
            30,
            step,
            "both boards at 10 moves",
        )
        assert server.moves(game) == g.plies[:10]
    finally:
        a.close()
        b.close()
        server.stop()


def test_a_move_made_before_the_client_first_connects_is_sent_not_dropped(tmp_path: Path) -> None:
    """Bob has joined; Alice makes her first move on her board before her client has ever connected to it
    (a library that does not know the board's game yet). The client waits until it has the board's events
    before it decides what the board's game is (Link.caught_up): it takes that game and sends its move, never
    a NEW over it. (A NEW sent before the board's events came in dropped the move and left both players
    waiting for each other; that needs the client's first look to fall between the board's HELLO and its
    events, which this test does not force.)"""
    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    a, b = onlinerig.pair(server.url, tmp_path)
    game = a.bridge.seat.game
    step = lambda: onlinerig.pump_all([a, b])  # noqa: E731
    try:
        (p, m) = g.moves[0]
        job = a.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, 30, what="Alice's hands, ply 1 (no client yet)")
        simrig.wait_for(lambda: server.moves(game) == g.plies[:1], 30, step, "the server's ply 1")
        simrig.wait_for(lambda: b.follows_only(1, p, m), 30, step, "Bob's board lighting ply 1")
        job = b.runner.perform(p, m)
        simrig.wait_for(job.done.is_set, 30, step, "Bob's hands, ply 1")
        onlinerig.play_remote(simrig.Played(g.ruleset, g.moves[:4]), [a, b], server, start=1)
        assert server.moves(game) == g.plies[:4]
        assert a.session.logger.view.plies == g.plies[:4], a.said  # one game on Alice's board, her first move in it
    finally:
        a.close()
        b.close()
        server.stop()


def test_a_move_half_made_when_the_game_starts_is_not_dropped(tmp_path: Path) -> None:
    """Alice starts her first move on her board while Bob is joining: the client takes the board's game
    (and hands North to the host, CPU) only once the move is made. A CPU in the middle of the move drops
    it (the board starts the move over): the rest of the sowing was flagged, and both players waited."""
    from itertools import islice

    g = simrig.game_1994()
    server = onlinerig.Server(tmp_path / "server").start()
    api = onlinerig.Api(server.url)
    seat_a = api.create(core.ZANZIBAR, "S", "Alice")
    a = onlinerig.player("alice", api, seat_a, tmp_path / "alice")
    b: onlinerig.Player | None = None
    try:
        simrig.wait_for(lambda: a.bridge.status == "waiting", 30, a.pump, "Alice's client to wait for North")
        (p, m) = g.moves[0]
        hands = a.runner.hands.steps(p, m)
        job = a.runner.submit(islice(hands, 3))  # the lift and two drops: the move under way
        simrig.wait_for(job.done.is_set, 30, what="Alice's first touches")
        b = onlinerig.player("bob", api, api.join(seat_a.invite, "Bob"), tmp_path / "bob")
        step = lambda: onlinerig.pump_all([a, b] if b else [a])  # noqa: E731
        simrig.wait_for(
            lambda: a.bridge.local is not None or any("a move is under way" in x for x in a.said),
            30,
            step,
            "Alice's client to look at her board once the game starts",
        )
        job = a.runner.submit(hands)  # the rest of the move
        simrig.wait_for(job.done.is_set, 30, step, "Alice's hands, the rest of ply 1")
        simrig.wait_for(lambda: server.moves(seat_a.game) == g.plies[:1], 30, step, "the server's ply 1")
        assert a.session.logger.view.plies == g.plies[:1], a.said
    finally:
        a.close()
        if b is not None:
            b.close()
        server.stop()
