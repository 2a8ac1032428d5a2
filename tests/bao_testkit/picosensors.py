"""Broken sensors on the Bao-board image in the emulated Pico (bao_host.boards.pico.PicoBoard.sensor_fault: the
fault is on the emulated 74HC165 chain, tools/pico/chips.mjs), judged by what a person sees: the board's
events (one ERROR naming the pit or the chip, no computer chosen, every move recorded as played) and its
LED frames (the faulty pits magenta, docs/leds.md "Broken sensors"). tests/host/test_pico_sensors.py runs
them short, tools/bench_soak.py --runtime pico --sensors N long.

idle_faults: with the board idle at the start of a game, a whole chip stuck active (its eight inputs), one
pit stuck, one pit flickering; after 21 s each is reported once and lit, the stuck chip chose no computer
(its row's two ends are the computer's gesture); then the stuck sensors are mended and read idle again:
their pits go back to the game's colours.

silent_in_play: a chip that senses nothing (its byte of the chain at 0: a dead input on each of its eight
pits), from a position the host sets; a person plays the game's next moves through it, touching again
after a look (3 s) whatever the board flags. The board must find the chip silent, report and light it, and
record every move as played."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import core, notation, position_json
from bao_host.boards.pico import PicoBoard
from baoboard.drivers.board_config import PIT_SENSOR_BIT
from baoboard.recogniser import activations

from bao_testkit.picofuzz import HELLO, THINK, Host, touch
from bao_testkit.simrig import Played

SCAN_MS = 5
LOOK_MS = 3000  # a person's look at the board after a flagged touch (as tests/firmware/test_board_health.py)


def chip_pits(chip: int) -> list[int]:
    """The pits on 74HC165 U<chip + 1> (hardware/board.json, the firmware's wiring)."""
    return [p for p in range(32) if PIT_SENSOR_BIT[p] >> 3 == chip]


def magenta(board: PicoBoard, pit: int) -> bool:
    """The pit's LED shows the broken sensor's magenta (red and blue alike, no green)."""
    r, g, b = board.frame[3 * pit : 3 * pit + 3]
    return r == b > 0 and g == 0


def errors(board: PicoBoard) -> list[dict[str, Any]]:
    """The board's ERROR events about its sensors, in order."""
    out = []
    for k in sorted(board.events):
        typ, payload = board.events[k]
        if typ == "ERROR":
            d = json.loads(payload)
            if d.get("code") == "sensor":
                out.append(d)
    return out


def said(board: PicoBoard, typ: str) -> list[str]:
    return [board.events[k][1] for k in sorted(board.events) if board.events[k][0] == typ]


@dataclass
class SensorReport:
    """What the board said and showed: `found` lists what differs from what a person must see."""

    errors: list[dict[str, Any]] = field(default_factory=list)
    lit: list[str] = field(default_factory=list)  # pits magenta when the faults were judged
    mended: list[str] = field(default_factory=list)  # pits still magenta after the mend
    moves: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)


def _run(board: PicoBoard, host: Host, ms: int) -> None:
    """Pico time, in slices, each ended by the host's acknowledgement (a host keeps the board's outbox
    empty, as bao log does)."""
    for _ in range(ms // 1000):
        board.run(1000 // SCAN_MS, SCAN_MS)
        host.ack()
    board.run((ms % 1000) // SCAN_MS, SCAN_MS)


def start(data_dir: Path, seed: int) -> tuple[PicoBoard, Host]:
    board = PicoBoard(str(data_dir), seed=seed, flash_timing=False)
    host = Host(board)
    r = host.command("HELLO", HELLO)
    assert r.startswith("OK "), r
    return board, host


def idle_faults(data_dir: Path, seed: int, chip: int, stuck: int, flicker: int, rate: int) -> SensorReport:
    """Chip `chip` stuck active, pit `stuck` stuck, pit `flicker` flickering at `rate` % of the reads
    (each on another chip), on a board idle at a new game's start."""
    rep = SensorReport()
    board, host = start(data_dir, seed)
    try:
        pits = chip_pits(chip)
        for p in pits:
            board.sensor_fault(p, "stuck")
        board.sensor_fault(stuck, "stuck")
        board.sensor_fault(flicker, "flicker", rate)
        _run(board, host, 21000)  # (a stuck sensor: active at every check for 20 s)
        rep.errors = errors(board)
        rep.lit = [core.pit_name(p) for p in range(32) if magenta(board, p)]
        want = {
            ("chip", f"U{chip + 1}"),
            ("stuck", core.pit_name(stuck)),
            ("flicker", core.pit_name(flicker)),
        }
        got = [(e["fault"], e["chip"] if e["fault"] == "chip" else e["pit"]) for e in rep.errors]
        if sorted(got) != sorted(want):
            rep.found.append(f"reported {got}, not {sorted(want)}")
        lit_want = sorted(core.pit_name(p) for p in [*pits, stuck, flicker])
        if sorted(rep.lit) != lit_want:
            rep.found.append(f"magenta {sorted(rep.lit)}, not {lit_want}")
        if said(board, "CPU"):
            rep.found.append(f"a stuck chip chose the computer: {said(board, 'CPU')}")
        for p in [*pits, stuck]:  # mended: idle for 2 s, the pits are taken back
            board.sensor_fault(p, "ok")
        _run(board, host, 2500)
        rep.mended = [core.pit_name(p) for p in range(32) if magenta(board, p)]
        if rep.mended != [core.pit_name(flicker)]:  # (a flickering pit stays ignored until a restart)
            rep.found.append(f"after the mend magenta {rep.mended}, not [{core.pit_name(flicker)}]")
        if board.errors:
            rep.found.append(f"emulator errors: {board.errors}")
    finally:
        board.close()
    return rep


def person_plays(board: PicoBoard, host: Host, p: core.Position, m: int) -> None:
    """A move's activations as a person makes them: after a touch the board flags (an ILLEGAL event), a look,
    the seed taken back out of the pink pit (a touch) and put there again, at most twice (as
    tests/firmware/test_board_health.py's person)."""
    for pit in activations(p, m):
        for _ in range(3):
            flagged = len(said(board, "ILLEGAL"))
            touch(board, [pit])
            if len(said(board, "ILLEGAL")) == flagged:
                break
            _run(board, host, LOOK_MS)
            touch(board, [pit])  # the seed taken back out of the pink pit
    board.run(THINK, SCAN_MS)
    host.ack()


def silent_in_play(data_dir: Path, seed: int, game: Played, ply: int, plies: int, chip: int) -> SensorReport:
    """From the position before `game`'s move `ply` (SETPOS), chip `chip` senses nothing; a person plays
    `plies` moves."""
    rep = SensorReport()
    board, host = start(data_dir, seed)
    try:
        for p in chip_pits(chip):
            board.sensor_fault(p, "dead")
        r = host.command("SETPOS", position_json.dumps(game.moves[ply][0], False))
        assert r == "OK", r
        board.run(THINK, SCAN_MS)
        want = []
        for p, m in game.moves[ply : ply + plies]:
            want.append(notation.format_move(m, p.to_move))
            person_plays(board, host, p, m)
        rep.moves = [s.split(" ", 1)[0] for s in said(board, "MOVE")]
        rep.errors = errors(board)
        rep.lit = [core.pit_name(p) for p in range(32) if magenta(board, p)]
        if rep.moves != want:
            rep.found.append(f"moves recorded {rep.moves}, played {want}")
        got = [(e["fault"], e["chip"]) for e in rep.errors]
        if got != [("silent", f"U{chip + 1}")]:
            rep.found.append(f"reported {got}, not the silent chip U{chip + 1}")
        lit_want = sorted(core.pit_name(p) for p in chip_pits(chip))
        if sorted(rep.lit) != lit_want:
            rep.found.append(f"magenta {sorted(rep.lit)}, not {lit_want}")
        if board.errors:
            rep.found.append(f"emulator errors: {board.errors}")
    finally:
        board.close()
    return rep


def silent_cases(game: Played) -> list[tuple[int, int]]:
    """(ply, chip): the moves of `game` that go through a chip's pits without starting there, the next move
    not starting there either (a move cannot start from an ignored pit: the host's SHOW remains)."""
    out = []
    for k in range(len(game.moves) - 1):
        p, m = game.moves[k]
        acts = list(activations(p, m))
        nxt = list(activations(*game.moves[k + 1]))
        for c in range(4):
            pits = set(chip_pits(c))
            if acts[0] not in pits and nxt[0] not in pits and any(a in pits for a in acts):
                out.append((k, c))
    return out


def campaign(tmp: Path, seed: int, scenarios: int, game: Played) -> list[tuple[str, SensorReport, float]]:
    """`scenarios` random ones, idle faults and silent chips in turn (deterministic for the seed): (what,
    report, wall seconds) each."""
    import random
    import shutil
    import time

    rng = random.Random(seed)
    cases = silent_cases(game)
    out = []
    for k in range(scenarios):
        work = tmp / f"sensors-{k}"
        t0 = time.monotonic()
        if k % 2 == 0:
            chip, stuck_chip, flicker_chip = rng.sample(range(4), 3)
            stuck = rng.choice(chip_pits(stuck_chip))
            flicker = rng.choice(chip_pits(flicker_chip))
            rate = rng.randrange(10, 60)
            what = f"idle: U{chip + 1} stuck, {core.pit_name(stuck)} stuck, {core.pit_name(flicker)} flicker {rate} %"
            rep = idle_faults(work, seed + k, chip, stuck, flicker, rate)
        else:
            ply, chip = rng.choice(cases)
            what = f"in play: U{chip + 1} silent from move {ply + 1}"
            rep = silent_in_play(work, seed + k, game, ply, 2, chip)
        shutil.rmtree(work, ignore_errors=True)
        out.append((what, rep, time.monotonic() - t0))
    return out
