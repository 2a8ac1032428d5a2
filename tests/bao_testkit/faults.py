"""Faults between the simulated board and the logger. The board (the unchanged firmware on simulated
hardware, its flash in memory so that a power cut can tear a write) runs on its own thread with its serial
side on 127.0.0.1; a test proxy (bao_testkit.faultproxy) relays to `bao log --port socket://127.0.0.1:<port>`, a real
process, and injects flipped, dropped and duplicated bytes, line noise and disconnects with a seeded RNG.
Meanwhile the test kills the logger (SIGKILL) and starts it again, cuts the board's power at random
instants (now, or inside a later flash write), and puts a second board on the logger's path for a while (the
proxy's upstream switched to another simulated board with its own game and events waiting: a pseudo-terminal
path reused, USB renumbering); the logger, bound to its board, must refuse it and acknowledge none of it.
Simulated hands play the 1994 game and random Zanzibar and Malawi games; a move whose activations a power
cut interrupted is played again from where the board stands. After each game the line is quiet until the
logger has everything; at the end the tally (simrig.tally) counts moves lost, doubled, reordered and games mixed
up, which must all be 0. `run_faults()` is what tests/host/test_e2e_faults.py checks and tools/bench_host.py and
tools/bench_soak.py (the long form) report."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

from bao import core, position_json
from bao_host.boards.sim import CPythonBoard, Job, SimRunner, SocketLink
from bao_host.record.logger import same_position
from bao_host.record.state import DECISION
from baoboard.memstorage import FakeStorage

from bao_testkit.faultproxy import FaultProxy, Rates
from bao_testkit.simrig import ROOT, Played, check_store, game_1994, random_game, tally, wait_for

SEED = int(os.environ.get("BAO_FAULT_SEED", "4"))
BOARD = "sim-faults"
INTRUDER = "sim-intruder"  # the second board that appears on the logger's path
P_KILL = 0.05  # per move: the logger is killed (and started again)
P_CUT = 0.06  # per move: the board's power is cut
P_SWAP = 0.04  # per move: the second board takes the logger's path for a while


class LoggerProcess:
    """`bao log --quiet` in its own process; its messages go to a file."""

    def __init__(self, url: str, data: Path, err: Path) -> None:
        self.cmd = [
            sys.executable,
            "-m",
            "bao_host.cli",
            "log",
            "--port",
            url,
            "--data",
            str(data),
            "--quiet",
            "--board",
            BOARD,
        ]
        self.err_path = err
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._err: IO[bytes] | None = None

    def start(self) -> None:
        self._err = open(self.err_path, "ab")  # noqa: SIM115 (kept open while the process runs)
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=self._err, cwd=ROOT)
        self.starts += 1

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()  # SIGKILL: no clean-up at all
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> int:
        rc = 0
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            rc = self.proc.wait(20)
            self.proc = None
        if self._err is not None:
            self._err.close()
        return rc


def perform(runner: SimRunner, p: core.Position, move: int) -> Job:
    """The hands perform a move and stop when the board goes dark under them (a person does: the board
    comes back at its journal's last move, and the move is played again from there). Hands that went on
    tapping would play the rest of the move's taps on the restarted board, which may make them another
    move (seen in the long soak: the board then stood at a position of no game played)."""

    def steps() -> Generator[Any, None, bool]:
        cuts = runner.board.power_cuts
        for step in runner.hands.steps(p, move):
            if runner.board.power_cuts != cuts:
                return False
            yield step
        return runner.board.power_cuts == cuts

    return runner.submit(steps())


def run_faults(  # noqa: C901, PLR0915
    tmp: Path, seed: int = SEED, random_games: int = 3, rates: Rates | None = None, mistakes: float = 0.0
) -> dict[str, Any]:
    rng = random.Random(seed)
    games = [game_1994()] + [
        random_game(rng, core.MALAWI if i % 2 == 0 else core.ZANZIBAR) for i in range(random_games)
    ]
    storage = FakeStorage()
    board = CPythonBoard(storage=storage, board_id=BOARD)
    side = SocketLink("127.0.0.1", 0)
    runner = SimRunner(board, side, mistakes=mistakes, seed=seed).start()  # (mistakes: the hands' slips)
    proxy = FaultProxy(side.server.getsockname(), seed, rates).start()
    # the second board: its own game begun, a move played, its events waiting for a host that takes them
    intruder = CPythonBoard(storage=FakeStorage(), board_id=INTRUDER)
    side2 = SocketLink("127.0.0.1", 0)
    runner2 = SimRunner(intruder, side2).start()
    first = game_1994().moves[0]
    runner2.perform(*first).wait()
    swaps = 0
    logger = LoggerProcess(proxy.url, tmp / "data", tmp / "logger.err")
    logger.start()
    kills = 0
    redone = 0
    played: list[Played] = []
    t0 = time.monotonic()

    def err_text() -> str:
        return (tmp / "logger.err").read_text(errors="replace") if (tmp / "logger.err").exists() else ""

    def fast_forward() -> None:
        """The board's clock runs on while the test waits (its resend timer goes up to 8 s)."""
        if runner.idle:
            runner.scans(40)
        time.sleep(0.01)

    def quiet_and_synced(what: str) -> None:
        proxy.enabled = False
        with runner.lock:
            storage.budget = -1  # no cut left armed
        if not logger.alive:
            logger.start()
        wait_for(lambda: runner.idle and runner.wire.synced and logger.alive, 90, fast_forward, what)

    def where(i: int, g: Played) -> int:
        """After a power cut: the move the board waits for (its journal's last move + 1)."""
        wait_for(lambda: runner.idle, 30, None, "the hands")
        positions = [p for p, _ in g.moves] + [g.final]
        with runner.lock:  # (a copy: the board's thread moves on)
            now = position_json.loads(position_json.dumps(board.position, False))
        d = now.d
        # (compared as the logger does: a game's last position from the rules core leaves its winner to
        # core.outcome(), the board restarted on it says who won)
        for j in (i + 1, i, i - 1, i - 2):
            if 0 <= j < len(positions) and positions[j] is not None and same_position(now, positions[j]):
                return j
        at = [j for j, q in enumerate(positions) if q is not None and q.d == d]
        raise AssertionError(
            f"after a power cut the board is at none of moves {i - 2}..{i + 1} of game "
            f"{len(played) + 1} (it is at move {at or 'none of this game'}; board errors "
            f"{board.errors})"
        )

    try:
        wait_for(lambda: runner.wire.synced and runner.wire.hellos > 0, 30, None, "the first handshake")
        for gi, g in enumerate(games):
            if gi:
                info = json.dumps({"ruleset": g.ruleset})
                # (the board's own NEW: the logger here is another process that takes no orders)
                runner.call(lambda info=info: board.app.command(0, "NEW", info)).wait()
            proxy.enabled = True
            cuts = board.power_cuts
            i = 0
            deadline = time.monotonic() + 300
            attempts = 0
            while i < len(g.moves):
                attempts += 1  # bounded in count as in time: a power cut costs a move or two again
                assert attempts <= 3 * len(g.moves) + 20 and time.monotonic() < deadline, "the game stalled"
                p, m = g.moves[i]
                job = perform(runner, p, m)
                r = rng.random()
                if r > 1 - P_SWAP:  # between two moves: the other board on the path until it is refused
                    swaps += 1
                    refused = err_text().count("refused board")
                    proxy.switch(side2.server.getsockname())
                    if not logger.alive:
                        logger.start()
                    wait_for(
                        lambda before=refused: err_text().count("refused board") > before,
                        60,
                        fast_forward,
                        "the logger's refusal of the second board",
                    )
                    proxy.switch(side.server.getsockname())
                at = time.monotonic() + rng.uniform(0.0, 0.03)
                while not job.done.wait(0.001) or r is not None:  # (the instant may come after the hands)
                    if r is not None and time.monotonic() >= at:
                        if r < P_KILL:
                            logger.kill()
                            kills += 1
                        elif r < P_KILL + P_CUT:
                            with runner.lock:  # between two taps; or armed for a later flash write
                                board.power_cut(None if rng.random() < 0.3 else rng.randrange(0, 600))
                        r = None
                    if not logger.alive and rng.random() < 0.05:
                        logger.start()
                job.wait()
                if not logger.alive:
                    logger.start()
                # at a person's pace: the next move once the logger has this one (or a while has passed)
                end = time.monotonic() + 5
                while not (runner.idle and runner.wire.synced) and time.monotonic() < end:
                    fast_forward()
                if board.power_cuts != cuts:  # the power went meanwhile: where does the board stand?
                    cuts = board.power_cuts
                    j = where(i, g)
                    redone += i + 1 - j
                    i = j
                    continue
                i += 1
            if runner.phase == DECISION:  # the last move waits for a house decision: stop there
                runner.call(lambda: board.app.command(900001, "STOP", "")).wait()
            played.append(g)
            quiet_and_synced(f"the logger's acknowledgement of game {gi + 1}")
        counts = tally(tmp / "data", played, BOARD)
        counts["games mixed up"] += runner2.wire.acked  # the second board heard an ack for its events
        if not any(counts[k] for k in ("lost", "doubled", "reordered", "games mixed up")):
            check_store(tmp / "data", played, BOARD)  # and the transcripts and event logs say the same
        rc = logger.stop()
        assert rc == 0, "bao log did not stop cleanly"
        assert proxy.error is None and runner.error is None and board.errors == []
    finally:
        if logger.alive:
            logger.kill()
        proxy.stop()
        runner.close()
        runner2.close()
    faults = Counter(proxy.counts)
    faults["logger killed"] = kills
    faults["power cuts"] = board.power_cuts
    faults["second board on the path"] = swaps
    err = (tmp / "logger.err").read_text(errors="replace")
    return {
        "faults": dict(faults),
        "games": len(played),
        "moves": counts["moves"],
        "tally": counts,
        "moves redone after a power cut": redone,
        "logger starts": logger.starts,
        "seconds": round(time.monotonic() - t0, 1),
        "relayed bytes": proxy.relayed,
        "flagged": counts["flagged"],
        "bad lines reported": err.count("a bad line from the board"),
        "logger errors": [x for x in err.splitlines() if "error:" in x],
    }
