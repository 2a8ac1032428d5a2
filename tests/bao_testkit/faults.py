"""Faults between the simulated board and the logger. The board (the unchanged firmware on simulated
hardware, its flash in memory so that a power cut can tear a write) runs on its own thread with its serial
side on 127.0.0.1; a test proxy (bao_testkit.faultproxy) relays to `bao log --port socket://127.0.0.1:<port>`, a real
process, and injects flipped, dropped and duplicated bytes, line noise and disconnects with a seeded RNG.
Meanwhile the test kills the logger (SIGKILL) and starts it again, cuts the board's power at random
instants (now, or inside a later flash write), and puts a second board on the logger's path for a while (the
proxy's upstream switched to another simulated board with its own game and events waiting: a pseudo-terminal
path reused, USB renumbering); the logger, bound to its board, must refuse it and acknowledge none of it.
Simulated hands play the 1994 game and random Zanzibar and Malawi games; a move whose activations a power
cut interrupted is played again from where the board stands, after the guided set-up of the pits the cut left
uncertain (the board boots into it: docs/protocol.md, "A power cut in the middle of a move"), which the hands
follow as a person follows the words on a host's screen (SetupWatch: the board's SETUP notices). After each
game the line is quiet until the logger has everything; at the end the tally (simrig.tally) counts moves lost,
doubled, reordered and games mixed up, which must all be 0. `run_faults()` is what
tests/host/test_e2e_faults.py checks and tools/bench_host.py and tools/bench_soak.py (the long form) report.

The board is pluggable (`rig=`): CPythonRig (the default: the firmware in this process, its flash in memory,
a cut now or torn inside a later flash write) or PicoRig (the Bao-board image on the emulated Pico,
bao_host.boards.pico: its flash a file kept across power cuts, so a cut is a real reboot of the image at a
random instant, inside a move, a flash write or an idle scan; its board id the flash chip's). The second
board on the path is always a CPython one: one emulator at a time."""

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

from bao import core, layout, notation, position_json
from bao_host.boards.sim import Board, CPythonBoard, Job, SimRunner, SocketLink
from bao_host.record.logger import same_position
from bao_host.record.state import DECISION
from bao_host.ui.setup_words import SetupStep
from bao_host.ui.setup_words import parse as parse_setup
from baoboard.memstorage import FakeStorage
from baoboard.recogniser import activations
from baoproto.frames import MAX_BOARD_LINE, LineAssembler, decode, encode

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

    def __init__(self, url: str, data: Path, err: Path, board_id: str = BOARD) -> None:
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
            board_id,
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


class CPythonRig:
    """The firmware in this process (CPythonBoard) on a FakeStorage: a power cut now, between two taps, or
    armed to tear a later flash write; the board's own commands go straight to its application."""

    hold = 4  # scans a touch lasts, and the pause after it
    think = 0  # scans the hands wait after a move
    patience = 1.0  # wall-time limits are multiplied by this (an emulated Pico runs slower than real time)
    move_seconds = 0.0  # a game's wall-time limit: this a move, 300 s at least
    p_cut = P_CUT  # per move: the board's power is cut
    cut_window = 0.03  # wall seconds after a move's start within which its power cut comes

    def __init__(self, tmp: Path, seed: int) -> None:
        self.storage = FakeStorage()
        self.board: Board = CPythonBoard(storage=self.storage, board_id=BOARD)
        self.board_id = BOARD

    def order(self, runner: SimRunner, typ: str, payload: str) -> None:
        """A command from the board's own side (a button), not from the logger, which takes no orders."""
        board = self.board
        assert isinstance(board, CPythonBoard)
        runner.call(lambda: board.app.command(900001, typ, payload)).wait()

    def cut(self, rng: random.Random) -> None:
        """Cut the power (runner.lock held): now, or armed for a flash write to come."""
        self.board.power_cut(None if rng.random() < 0.3 else rng.randrange(0, 600))

    def disarm(self) -> None:
        self.storage.budget = -1  # no cut left armed


class PicoRig:
    """The Bao-board image on the emulated Pico (PicoBoard): its flash a file (tmp/pico/pico-flash.img) kept
    across power cuts, so a cut reboots the image from what its flash holds; the instant is wherever the
    Pico is when the cut comes (inside a move, a flash write, an idle scan). No emulated buttons: the board's
    own commands are injected into its serial side as a host's would be, and retried until answered."""

    hold = 10  # as tests/host/test_pico.py's hands: 50 ms a touch
    think = 120
    patience = 12.0
    move_seconds = 90.0
    p_cut = 0.2  # (a campaign of a few dozen moves: a reboot every five moves)
    cut_window = 12.0  # a move takes the emulated Pico several wall seconds: the cut falls inside or after it

    def __init__(self, tmp: Path, seed: int, image: str | None = None) -> None:
        from bao_host.boards.pico import PicoBoard

        self.board = PicoBoard(str(tmp / "pico"), seed=seed, image=image)
        self.board_id = self.board.board_id
        self.n = 900000

    def order(self, runner: SimRunner, typ: str, payload: str) -> None:
        from bao_host.boards.pico import PicoBoard

        board = self.board
        assert isinstance(board, PicoBoard)
        for _ in range(5):
            self.n += 1
            n = self.n
            # (a newline first ends whatever part of a logger's line the board holds: that line is lost,
            # as on a noisy link, and sent again)
            line = b"\n" + encode("C", n, typ, payload)
            runner.call(lambda line=line: board.write_serial(line)).wait()
            end = time.monotonic() + 30 * self.patience
            while n not in board.replies and time.monotonic() < end:
                time.sleep(0.05)
            if n in board.replies:
                return
        raise AssertionError(f"the emulated Pico never answered {typ}")

    def cut(self, rng: random.Random) -> None:
        self.board.power_cut()

    def disarm(self) -> None:
        pass


class SetupWatch:
    """The set-up step the board said last (its N0 SETUP notices, read where it writes them, before any fault
    on the line), as a host's screen shows it to the person: None when no set-up is under way. A board that
    restarts (its H0 HELLO) has none until it says one."""

    def __init__(self) -> None:
        self.step: SetupStep | None = None
        self.said = 0  # SETUP notices heard
        self.boots = 0  # HELLOs heard (the board started)
        self._lines = LineAssembler(MAX_BOARD_LINE, self._line, lambda code: None)

    def feed(self, data: bytes) -> None:
        self._lines.feed(data)

    def _line(self, line: bytes) -> None:
        f = decode(bytes(line).rstrip(b"\r"))
        if isinstance(f, int):
            return
        if f[0] == "H":
            self.boots += 1
            self.step = None
        elif f[0] == "N" and f[2] == "SETUP":
            said = parse_setup(f[3])
            self.step = said if isinstance(said, SetupStep) else None
            self.said += 1


def place_pit(step: SetupStep) -> int:
    """The pit a person touches to confirm a set-up step: the one its words name (a store, or a pit whose
    sensor is faulty, at another pit), else the place itself."""
    if step.touch:
        return layout.pit_index(step.touch.split(",")[0])
    return 15 if step.at == "store-S" else 31 if step.at == "store-N" else layout.pit_index(step.at)


def set_up_again(runner: SimRunner, watch: SetupWatch, patience: float, boots: int = 0) -> int:
    """After a power cut: the hands do the set-up the board asks for, if any (a move was cut half made: the pits
    it may have changed are checked one at a time), as a person reading the host's words: the place said is put
    right and touched (a store, or a pit whose sensor is faulty, at the pit the words name). Then the hand stays
    away long enough that the move's first touch is not taken for the set-up's last. boots: the board's starts
    heard before the cut (watch.boots). Returns the touches."""
    board = runner.board
    wait_for(lambda: runner.idle and watch.boots > boots, 30 * patience, None, "the board's start")
    runner.scans(40).wait()  # (an emulated Pico says its set-up a moment after its HELLO)
    touches = 0
    while (s := watch.step) is not None:
        assert touches < 80, f"the set-up after a power cut never ends: {s}"
        pit = place_pit(s)
        said = watch.said
        cuts = board.power_cuts
        runner.tap(pit).wait()
        touches += 1
        wait_for(
            lambda said=said, cuts=cuts: watch.said != said or board.power_cuts != cuts,
            30 * patience,
            lambda: runner.scans(4).wait(),
            f"the board's next set-up step after {s}",
        )
    if touches:
        runner.scans(500).wait()  # (docs/leds.md: more touches of the place set up last are absorbed a while)
    return touches


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


def said(board: Board, typ: str) -> list[str]:
    """The payloads of the board's events of type `typ` seen on its serial side so far (an emulated Pico's;
    none from a board that does not keep them)."""
    events: dict[int, tuple[str, str]] = getattr(board, "events", {})
    return [events[k][1] for k in sorted(events) if events[k][0] == typ]


def refused_in_move(board: Board, before: int, what: str, p: core.Position, m: int) -> None:
    """Hands that make no slip had a touch of a legal move refused (no power cut came): the board missed a
    touch (or took one twice) and the hands went on, as in an early run of the campaign on the image (a
    Malawi game, issue #26: the board stayed at the 21st of 32 steps of A8L while the hands played the next
    moves, 50 touches refused). A person would stop and look: the campaign stops here, with what the board
    said of the move."""
    refused = said(board, "ILLEGAL")[before:]
    if not refused:
        return
    s = board.state
    at = f"its STATE: stage {s.stage}, {s.steps} steps accepted, next drop {s.drop}" if s is not None else "no STATE"
    pits = ", ".join(str(json.loads(r).get("pit")) for r in refused)
    raise AssertionError(
        f"the board refused {len(refused)} touches of {what} ({notation.format_move(m, p.to_move)}, "
        f"{len(list(activations(p, m)))} steps) with no slip and no power cut: {pits}; {at}"
    )


def first_moves(g: Played, plies: int | None) -> Played:
    """The game's first `plies` moves (all of them with None): a game left unfinished, as a board's next
    game leaves it."""
    if plies is None or plies >= len(g.moves):
        return g
    return Played(g.ruleset, g.moves[:plies], g.moves[plies][0])


def run_faults(  # noqa: C901, PLR0915
    tmp: Path,
    seed: int = SEED,
    random_games: int = 3,
    rates: Rates | None = None,
    mistakes: float = 0.0,
    rig: CPythonRig | PicoRig | None = None,
    plies: int | None = None,
) -> dict[str, Any]:
    """The campaign on `rig`'s board (default: CPythonRig); `plies`: each game's first moves only (an
    emulated Pico's campaign in bounded wall time), None: whole games."""
    rng = random.Random(seed)
    games = [game_1994()] + [
        random_game(rng, core.MALAWI if i % 2 == 0 else core.ZANZIBAR) for i in range(random_games)
    ]
    games = [first_moves(g, plies) for g in games]
    rig = rig or CPythonRig(tmp, seed)
    board = rig.board
    board_id = rig.board_id
    side = SocketLink("127.0.0.1", 0)
    watch = SetupWatch()
    runner = SimRunner(  # (mistakes: the hands' slips)
        board, side, mistakes=mistakes, seed=seed, hold=rig.hold, gap=rig.hold, think=rig.think, on_serial=watch.feed
    ).start()
    proxy = FaultProxy(side.server.getsockname(), seed, rates).start()
    # the second board: its own game begun, a move played, its events waiting for a host that takes them
    intruder = CPythonBoard(storage=FakeStorage(), board_id=INTRUDER)
    side2 = SocketLink("127.0.0.1", 0)
    runner2 = SimRunner(intruder, side2).start()
    first = game_1994().moves[0]
    runner2.perform(*first).wait()
    swaps = 0
    logger = LoggerProcess(proxy.url, tmp / "data", tmp / "logger.err", board_id)
    logger.start()
    kills = 0
    redone = 0
    set_ups = 0  # set-ups after a power cut in the middle of a move
    played: list[Played] = []
    t0 = time.monotonic()

    def err_text() -> str:
        return (tmp / "logger.err").read_text(errors="replace") if (tmp / "logger.err").exists() else ""

    def fast_forward() -> None:
        """The board's clock runs on while the test waits (its resend timer goes up to 8 s)."""
        if runner.idle:
            runner.scans(40)
        time.sleep(0.01)

    slow = rig.patience

    def quiet_and_synced(what: str) -> None:
        proxy.enabled = False
        with runner.lock:
            rig.disarm()  # no cut left armed
        if not logger.alive:
            logger.start()
        wait_for(lambda: runner.idle and runner.wire.synced and logger.alive, 90 * slow, fast_forward, what)

    def where(i: int, g: Played) -> int:
        """After a power cut: the move the board waits for (its journal's last move + 1)."""
        wait_for(lambda: runner.idle, 30 * slow, None, "the hands")
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
        wait_for(lambda: runner.wire.synced and runner.wire.hellos > 0, 30 * slow, None, "the first handshake")
        for gi, g in enumerate(games):
            if gi:
                info = json.dumps({"ruleset": g.ruleset})
                # (the board's own NEW: the logger here is another process that takes no orders)
                rig.order(runner, "NEW", info)
            proxy.enabled = True
            cuts = board.power_cuts
            i = 0
            deadline = time.monotonic() + max(300, rig.move_seconds * len(g.moves))
            attempts = 0
            while i < len(g.moves):
                attempts += 1  # bounded in count as in time: a power cut costs a move or two again
                assert attempts <= 3 * len(g.moves) + 20 and time.monotonic() < deadline, "the game stalled"
                p, m = g.moves[i]
                boots = watch.boots  # (the board's starts so far: after a cut, the next one's words count)
                illegal = len(said(board, "ILLEGAL"))  # (the board's refusals so far)
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
                        60 * slow,
                        fast_forward,
                        "the logger's refusal of the second board",
                    )
                    proxy.switch(side.server.getsockname())
                at = time.monotonic() + rng.uniform(0.0, rig.cut_window)
                while not job.done.wait(0.001) or r is not None:  # (the instant may come after the hands)
                    if r is not None and time.monotonic() >= at:
                        if r < P_KILL:
                            logger.kill()
                            kills += 1
                        elif r < P_KILL + rig.p_cut:
                            with runner.lock:  # between two taps; or armed for a later flash write
                                rig.cut(rng)
                        r = None
                    if not logger.alive and rng.random() < 0.05:
                        logger.start()
                job.wait()
                if not logger.alive:
                    logger.start()
                # at a person's pace: the next move once the logger has this one (or a while has passed)
                end = time.monotonic() + 5 * slow
                while not (runner.idle and runner.wire.synced) and time.monotonic() < end:
                    fast_forward()
                if board.power_cuts != cuts:  # the power went meanwhile: where does the board stand?
                    set_ups += set_up_again(runner, watch, slow, boots) > 0  # (a move cut half made: its pits first)
                    cuts = board.power_cuts
                    j = where(i, g)
                    redone += i + 1 - j
                    i = j
                    continue
                if not mistakes:
                    refused_in_move(board, illegal, f"move {i + 1} of game {gi + 1}", p, m)
                i += 1
            if runner.phase == DECISION:  # the last move waits for a house decision: stop there
                rig.order(runner, "STOP", "")
            played.append(g)
            quiet_and_synced(f"the logger's acknowledgement of game {gi + 1}")
        counts = tally(tmp / "data", played, board_id)
        counts["games mixed up"] += runner2.wire.acked  # the second board heard an ack for its events
        if not any(counts[k] for k in ("lost", "doubled", "reordered", "games mixed up")):
            check_store(tmp / "data", played, board_id)  # and the transcripts and event logs say the same
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
        "set-ups after a power cut": set_ups,
        "logger starts": logger.starts,
        "seconds": round(time.monotonic() - t0, 1),
        "relayed bytes": proxy.relayed,
        "flagged": counts["flagged"],
        "bad lines reported": err.count("a bad line from the board"),
        "logger errors": [x for x in err.splitlines() if "error:" in x],
    }
