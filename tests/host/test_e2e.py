"""End to end: the board application (the unchanged firmware) on simulated hardware, on its own thread, its
serial side on a pseudo-terminal; the logger (bao_host.record.session over bao_host.record.link) opens it with pyserial.
Simulated hands play the 1994 game and 16 random games (Zanzibar and Malawi, a seeded RNG); the stored
transcripts, event logs and database must equal the played games. The MicroPython runtime plays the 1994
game through the command line: `bao sim --runtime micropython` and `bao log --port <its pty>`."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bao import core, notation
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from bao_host.ui.adapter import make_board
from bao_host.ui.tui import BaoApp
from bao_testkit.simrig import ROOT, T1994, Played, check_store, game_1994, play, random_game, wait_for
from baoboard.recogniser import PIT, activations

RANDOM_GAMES = 16  # (the soak, tools/bench_soak.py, plays hundreds more through a faulty link)


def test_1994_game_and_16_random_games_over_a_pty(tmp_path: Path) -> None:
    (tmp_path / "flash").mkdir()
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(tmp_path / "flash"), board_id="sim-e2e"), link).start()
    store = Store(tmp_path / "data")
    lg = Logger(store, south="Ramadhan", north="Kijumbe", place="Zanzibar")
    s = LinkSession(link.path, lg)
    played: list[Played] = []
    rng = random.Random(1994)
    t0 = time.monotonic()

    def poll() -> None:
        s.poll(0.002)

    def synced() -> None:
        wait_for(lambda: runner.idle and runner.wire.synced and s.connected, 120, poll, "the logger's acks")

    try:
        wait_for(lambda: s.connected and lg.view.game_id is not None, 60, poll, "the handshake")
        games = [game_1994()] + [random_game(rng, core.ZANZIBAR if i % 2 else core.MALAWI) for i in range(RANDOM_GAMES)]
        for i, g in enumerate(games):
            if i:
                assert s.new_game(g.ruleset) is not None
                lg.south = lg.north = None  # (the players' names went with the 1994 game)
            play(runner, g, poll, stop=s.stop)
            played.append(g)
            synced()
            if i == 0:
                first = store.games()[0]
                assert (first.south, first.north, first.place, first.board_id) == (
                    "Ramadhan",
                    "Kijumbe",
                    "Zanzibar",
                    "sim-e2e",
                )
                assert notation.parse_transcript(store.transcript_path(first).read_text()).plies == T1994.plies
        elapsed = time.monotonic() - t0
        counts = check_store(tmp_path / "data", played, "sim-e2e")
        assert counts["flagged"] == 0
        assert runner.board.errors == []
        plies = sum(len(g.moves) for g in played)
        print(
            f"\ne2e cpython over a pty: {len(played)} games ({sum(g.ruleset == core.MALAWI for g in played)}"
            f" Malawi), {plies} plies stored in {elapsed:.1f} s; link {s.link.stats}"
        )
    finally:
        s.close()
        runner.close()
        store.close()


def _bao(*args: str) -> list[str]:
    return [sys.executable, "-m", "bao_host.cli", *args]


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_1994_game_bao_sim_and_bao_log(tmp_path: Path, runtime: str) -> None:
    """The command line: `bao sim --runtime R --port pty --play-transcript` and `bao log --port <pty>`."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    sim = subprocess.Popen(
        _bao(
            "sim",
            "--runtime",
            runtime,
            "--port",
            "pty",
            "--play-transcript",
            str(ROOT / "games/zanzibar-1994.txt"),
            "--wait-host",
            "60",
            "--report",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    log: subprocess.Popen[str] | None = None
    try:
        assert sim.stderr is not None
        first = sim.stderr.readline()
        assert first.startswith("board serial: /dev/"), first
        pty = first.split(": ", 1)[1].strip()
        log = subprocess.Popen(
            _bao("log", "--port", pty, "--data", str(tmp_path), "--quiet", "--south", "Ramadhan", "--north", "Kijumbe"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        out, err = sim.communicate(timeout=240)
        assert sim.returncode == 0, err
        log.send_signal(signal.SIGTERM)
        _, log_err = log.communicate(timeout=30)
        assert log.returncode == 0, log_err
    finally:
        for p in (sim, log):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(10)
    assert out.split() == game_1994().plies
    counts = check_store(tmp_path, [game_1994()])
    assert counts == {"games": 1, "moves": len(T1994.plies), "flagged": 0}
    st = Store(tmp_path, repair=False)
    try:
        g = st.games()[0]
        assert (g.south, g.north, g.board_id) == ("Ramadhan", "Kijumbe", "sim")
    finally:
        st.close()
    assert "board sim (firmware" in log_err


def test_tui_on_the_simulated_board(tmp_path: Path) -> None:
    """`make run`'s pieces: clicking pits plays the 1994 game's first moves on the simulated board; the LEDs
    show, the seed counts follow pit by pit, the moves are stored; undo and new game go through the link."""
    plies = 6
    positions = notation.replay(T1994)
    g1994 = game_1994()

    async def run() -> None:
        with Store(tmp_path / "data") as st:
            lg = Logger(st)
            board, pump, connection = make_board(lg, tmp_path / "flash")  # what `make run` does
            s, runner = board.session, board.runner
            try:
                app = BaoApp(board, lg, pump=pump, tick=0.02, connection=connection)
                async with app.run_test(size=(160, 50)) as pilot:
                    for _ in range(200):
                        await pilot.pause(0.02)
                        if s.connected and lg.view.game_id is not None:
                            break
                    assert s.connected
                    for i in range(plies):
                        seq = [b & PIT for b in activations(positions[i], g1994.moves[i][1])]
                        await _until(pilot, lambda p=seq[0]: board.leds()[3 * p + 1] > 0)  # the start pit lit green
                        for k, pit in enumerate(seq):
                            await pilot.click(f"#pit-{pit}")
                            if k == 0 and not positions[i].store(positions[i].to_move):
                                # mtaji: the lifted pit shows 0 at once (the board's count, pit by pit)
                                await _until(pilot, lambda p=pit: runner.idle and board.counts()[p] == 0)
                                await pilot.pause(0.05)
                                btn = app.query_one(f"#pit-{pit}")
                                assert str(btn.label).split("\n")[1].strip() == "0"
                        await _until(pilot, lambda n=i + 1: len(lg.view.plies) == n)
                    assert lg.view.plies == T1994.plies[:plies]
                    # the counts come with the board's STATE notice, which follows its MOVE event by a scan
                    want = positions[plies].counts()[:32]
                    await _until(pilot, lambda: board.counts() == want, what=f"the counts {want}")
                    await pilot.press("u")  # undo: the UNDO command over the link, the board's UNDO event
                    await _until(pilot, lambda: len(lg.view.plies) == plies - 1)
                    await pilot.press("r")  # ruleset: Malawi
                    await pilot.press("n")  # new game: the NEW command
                    await _until(pilot, lambda: lg.view.game_id is not None and lg.view.game_id > 1)
                    await pilot.press("q")
            finally:  # the board's thread and the port go whatever happened
                s.close()
                board.close()
            games = st.games()
            assert [g.plies for g in games] == [T1994.plies[: plies - 1], []]
            assert [g.ruleset for g in games] == [core.ZANZIBAR, core.MALAWI]

    asyncio.run(asyncio.wait_for(run(), 180))  # a UI that stops answering fails the test


async def _until(pilot: object, cond: object, timeout: float = 60.0, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < end, f"timed out waiting for {what or cond}"
        await pilot.pause(0.02)  # type: ignore[attr-defined]
