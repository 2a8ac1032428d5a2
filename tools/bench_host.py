"""Host benchmark: the time from the pit activation that completes a move to the move stored on disk, over a
pseudo-terminal with pyserial, for every move of the 1994 game; median and worst. Writes the "Host" section
of docs/benchmarks.md (`make bench`; alone: `python tools/bench_host.py [--games N] [--no-write]`).

The board is the firmware application on simulated hardware on its own thread (bao_host.boards.sim.SimRunner),
scanning every 5 ms in real time, touched by simulated hands in real time (a pit held for 4 scans,
released for 4): the activation's time is the moment the hand reaches the pit, so the board's debounce
(3 stable scans) is included. The logger is `bao log`'s: bao_host.record.session.LinkSession over bao_host.record.link,
pyserial on the pty; "stored" is when the logger has committed the event to SQLite (WAL, synchronous=FULL),
rewritten and fsynced the transcript and appended and fsynced the event log, just before it acknowledges
the event. The host's own share (event written by the board -> stored) is given too.

Then the fault run of tests/host/test_e2e_faults.py (`run_faults`: a proxy injecting flipped, dropped and
duplicated bytes, line noise and disconnects, the logger killed, the board's power cut) and its counts."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bao import notation
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.record.link import Event
from bao_host.record.logger import Logger, Result
from bao_host.record.session import LinkSession
from bao_host.record.state import DECISION
from bao_host.record.store import Store
from baoboard.recogniser import activations
from baoproto.frames import decode
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]

SCAN_MS = 5


def play_once(tmp: Path) -> tuple[list[float], list[float]]:
    """One 1994 game; returns (touch -> stored, sent -> stored) in ms for every move."""
    t = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
    positions = notation.replay(t)
    link = PtyLink()
    board = CPythonBoard(str(tmp / "flash"), board_id="bench")
    touch: list[float | None] = [None]  # the activation under way (board thread)
    touched: dict[int, float] = {}  # MOVE event seq -> the activation that completed the move
    sent: dict[int, float] = {}
    stored: dict[int, float] = {}

    def on_serial(data: bytes) -> None:  # the board's thread, as the board writes a frame
        now = time.perf_counter()
        for line in data.split(b"\n"):
            f = decode(line)
            if not isinstance(f, int) and f[0] == "E" and f[2] == "MOVE" and f[1] not in sent:
                sent[f[1]] = now
                if touch[0] is not None:
                    touched[f[1]] = touch[0]

    runner = SimRunner(board, link, scan_ms=SCAN_MS, pause=SCAN_MS / 1000, on_serial=on_serial)

    def tap(pit: int) -> Iterator[None]:  # one scan per step; the runner waits SCAN_MS between steps
        board.set_pit(pit, True)
        touch[0] = time.perf_counter()
        for _ in range(runner.hands.hold):
            board.run(1, SCAN_MS)
            yield
        board.set_pit(pit, False)
        for _ in range(runner.hands.gap):
            board.run(1, SCAN_MS)
            yield
        touch[0] = None

    def on_stored(ev: Event, res: Result) -> None:
        if ev.type == "MOVE":
            stored[ev.seq] = time.perf_counter()

    runner.start()
    with Store(tmp / "data") as st:
        lg = Logger(st)
        s = LinkSession(link.path, lg)
        s.on_stored = on_stored
        try:
            end = time.monotonic() + 10
            while not (s.connected and lg.view.game_id is not None):
                assert time.monotonic() < end, "no handshake"
                s.poll(0.01)
            for i, text in enumerate(t.plies):
                move, _ = notation.parse_move(positions[i], text)
                for pit in activations(positions[i], move):
                    job = runner.submit(tap(pit))
                    while not job.done.is_set():
                        s.poll(0.001)
                    job.wait()
            if runner.phase == DECISION:
                s.stop()
            end = time.monotonic() + 30
            while not (runner.wire.synced and len(stored) >= len(t.plies)):
                assert time.monotonic() < end, "the logger did not store every move"
                s.poll(0.01)
            assert st.games()[0].plies == t.plies
        finally:
            s.close()
            runner.close()
    full = [(stored[k] - touched[k]) * 1000 for k in stored if k in touched]
    host = [(stored[k] - sent[k]) * 1000 for k in stored]
    return full, host


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3, help="games played (default 3)")
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    ap.add_argument("--no-faults", action="store_true", help="leave out the fault run")
    args = ap.parse_args(argv)
    full: list[float] = []
    host: list[float] = []
    medians = []
    for _ in range(args.games):
        with tempfile.TemporaryDirectory(dir=os.environ.get("BAO_BENCH_DIR")) as d:
            (Path(d) / "flash").mkdir()
            f, h = play_once(Path(d))
        full += f
        host += h
        medians.append(statistics.median(f))

    def pct(xs: list[float], q: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(len(xs) * q))]

    tab = Table(["measure (1994 game over a pty, pyserial)", "median", "90th pct", "worst", "best"])
    tab.add(
        f"pit activation -> move stored on disk ({len(full)} moves, {args.games} games)",
        f"{statistics.median(full):.1f} ms",
        f"{pct(full, 0.9):.1f} ms",
        f"{max(full):.1f} ms",
        f"{min(full):.1f} ms",
    )
    tab.add(
        "of which the host: event written by the board -> stored",
        f"{statistics.median(host):.1f} ms",
        f"{pct(host, 0.9):.1f} ms",
        f"{max(host):.1f} ms",
        f"{min(host):.1f} ms",
    )
    text = tab.render()
    print(text)
    note = (
        f"`python tools/bench_host.py --games {args.games}` (run by `make bench`): the board application "
        "on simulated hardware on its own thread, scanning every 5 ms, touched by simulated hands in "
        "real time (a pit held 4 scans, released 4: the board's 3-scan debounce is in the figure); the "
        "logger of `bao log` (bao_host.record.session over bao_host.record.link) on the other end of a "
        "pseudo-terminal with pyserial. Stored = SQLite (WAL, synchronous=FULL) committed, transcript "
        "rewritten and fsynced, event log appended and fsynced: the moment the logger acknowledges the "
        "event. Medians per game: " + ", ".join(f"{m:.1f}" for m in medians) + " ms. "
        f"Measured on {platform.machine()} ({os.cpu_count()} cores), Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}; fsync dominates the host's share and varies with the disk.\n"
    )
    if not args.no_faults:
        from bao_testkit.faults import SEED, run_faults

        with tempfile.TemporaryDirectory() as d:
            rep = run_faults(Path(d))
        ft = Table([f"fault injected (test_e2e_faults.py, seed {SEED})", "count"])
        for kind, n in sorted(rep["faults"].items()):
            ft.add(kind, str(n))
        ftext = ft.render()
        print(ftext)
        note += (
            f"\n{ftext}\n\nDuring those faults: {rep['games']} games (the 1994 game, random Zanzibar and "
            f"Malawi games), {rep['moves']} moves stored, 0 lost, 0 duplicated, {rep['flagged']} flagged; "
            f"{rep['moves redone after a power cut']} moves played again by the hands after a power cut "
            f"took them; {rep['relayed bytes']} bytes relayed; the logger started {rep['logger starts']} "
            f"times; {rep['seconds']} s. `pytest tests/host/test_e2e_faults.py -s` prints the same line "
            "(BAO_FAULT_SEED=n for another seed).\n"
        )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Host", text + "\n\n" + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
