"""`bao sim`: run the simulated board (the unchanged firmware) with its serial side on a pseudo-terminal
or a socket, optionally with simulated hands playing a transcript. The board runs on its own thread
(bao_host.boards.sim.SimRunner), scanning in real time; the hands play as fast as it scans, or `--speed`.
With `--wait-host S` the hands wait for a host (`bao log --port ...`) before the first move and, after the
last one, until the host has acknowledged every event (at most S seconds each)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bao import core, notation, position_json

from bao_host.cli import inputs

if TYPE_CHECKING:
    from bao_host.boards.sim import Board, PtyLink, SimRunner, SocketLink


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("sim", help="run the simulated board (firmware on a simulated Hardware)")
    p.add_argument(
        "--runtime",
        choices=("cpython", "micropython", "pico"),
        default="cpython",
        help="run the firmware in-process (cpython), in the MicroPython unix port, or on an "
        "emulated Pico with the board's chips on its pins, from the Bao-board image (pico)",
    )
    p.add_argument(
        "--image",
        metavar="UF2|stock",
        default=None,
        help="pico runtime: the image to boot (default: make image's build/bao-board-VERSION.uf2); "
        "'stock': a stock MicroPython with the firmware's .mpy on its flash, as make deploy leaves it",
    )
    p.add_argument(
        "--port",
        default="pty",
        help="serial side: 'pty' (a pseudo-terminal, path printed), socket://HOST:PORT, or 'none'",
    )
    p.add_argument("--play-transcript", metavar="FILE", help="simulated hands perform every move of FILE")
    p.add_argument(
        "--speed",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause between two activations of the hands (0: as fast as possible)",
    )
    p.add_argument(
        "--mistakes",
        type=float,
        default=0.0,
        metavar="RATE",
        help="probability that a hand first touches a wrong pit (flagged, then taken back)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--report", action="store_true", help="print each move the board reports, in notation")
    p.add_argument("--data", metavar="DIR", help="the board's flash (a directory); default: a fresh temporary one")
    p.add_argument("--heap", default="192k", help="MicroPython heap (micropython runtime)")
    p.add_argument("--scan-ms", type=int, default=5, help="scan-loop period in ms")
    p.add_argument(
        "--think-ms",
        type=int,
        default=None,
        metavar="MS",
        help="board time the players take between two moves (default: 0; 600 on the pico "
        "runtime, where the board is busy for up to ~0.5 s after a move: docs/benchmarks.md)",
    )
    p.add_argument(
        "--side",
        choices=("S", "N"),
        default=None,
        help="with --play-transcript: the hands make only this side's moves; each of the other "
        "side's is sown once the board lights it (a remote player's or the host engine's: "
        "`bao online`), as a player would",
    )
    p.add_argument(
        "--wait-host",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --play-transcript: wait for a host's handshake before playing, and for its "
        "acknowledgement of every event at the end",
    )
    p.set_defaults(func=run)


def _wait(cond: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


HEAP = re.compile(r"^[1-9][0-9]*[km]?$")


def _fail(message: str, status: int = 2) -> int:
    print(f"bao sim: {message}", file=sys.stderr)
    return status


def _lit(runner: Any, p: core.Position, m: int) -> bool:
    """The board lights move m of position p for the player to sow: its start bright green (docs/leds.md,
    "Playing the computer"), what the player's eyes see."""
    from bao_host.boards.sim import first_touch

    start = first_touch(p, m)
    with runner.lock:
        if runner.board.position.d != p.d:
            return False
        frame = bytes(runner.board.frame[:96])  # (32 pits, 3 bytes each)
    # 0x00FF40 at the board's brightness, on that pit alone
    bright = [
        i
        for i in range(32)
        if frame[3 * i] == 0
        and frame[3 * i + 1] > 0
        and frame[3 * i + 2] > 0
        and abs(frame[3 * i + 2] * 255 - frame[3 * i + 1] * 64) < 2 * 255
    ]
    return bright == [start]


def _socket_address(url: str) -> tuple[str, int]:
    """socket://HOST:PORT as (host, port); InputError for anything else."""
    host, _, port = url[len("socket://") :].rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise inputs.InputError(f"--port {url!r}: socket://HOST:PORT with a port number 0..65535")
    return host or "127.0.0.1", int(port)


def run(args: argparse.Namespace) -> int:
    # Everything the command line names is checked before the board starts, each with a one-line error.
    transcript: notation.Transcript | None = None
    dialect = notation.DONKERS
    positions: list[core.Position] = []
    try:
        if args.play_transcript:
            transcript, dialect = inputs.read_transcript(args.play_transcript)
            positions = notation.replay(transcript, None, dialect)
        address = _socket_address(args.port) if args.port.startswith("socket://") else None
    except inputs.InputError as e:
        return _fail(str(e))
    except (notation.ReplayError, core.BaoError) as e:
        return _fail(f"{args.play_transcript}: {e}")
    if args.port not in ("pty", "none") and address is None:
        return _fail(f"--port is pty, socket://HOST:PORT or none, not {args.port!r}")
    if args.image is not None and args.runtime != "pico":
        return _fail(f"--image is for --runtime pico, not {args.runtime}")
    if args.runtime == "micropython" and not HEAP.match(args.heap.lower()):
        return _fail(f"--heap {args.heap!r}: a size in bytes, KB or MB, e.g. 192k")
    try:
        return _run(args, transcript, dialect, positions, address)
    except (RuntimeError, OSError) as e:  # the board stopped, or its serial side could not be opened
        return _fail(str(e), 1)


def _run(
    args: argparse.Namespace,
    t: notation.Transcript | None,
    dialect: str,
    positions: list[core.Position],
    address: tuple[str, int] | None,
) -> int:
    from bao_host.boards.sim import PtyLink, SocketLink

    with tempfile.TemporaryDirectory(prefix="bao-sim-") as tmp:
        link: PtyLink | SocketLink | None = None
        if args.port == "pty":
            link = PtyLink()
        elif address is not None:
            try:
                link = SocketLink(*address)
            except OSError as e:
                raise OSError(f"cannot listen on {args.port}: {e.strerror or e}") from None
        if link is not None:
            print(f"board serial: {link.path}", file=sys.stderr, flush=True)
        try:
            board = _make_board(args, args.data or tmp)
        except BaseException:
            if link is not None:
                link.close()
            raise
        if board is None:
            if link is not None:
                link.close()
            return 2
        return _play(args, t, dialect, positions, board, link)


def _make_board(args: argparse.Namespace, data: str) -> Board | None:
    from bao_host.boards.sim import CPythonBoard, MicroPythonBoard

    if args.runtime == "pico":
        from bao_host.boards.pico import PicoBoard, PicoUnavailable

        try:
            return PicoBoard(data, seed=args.seed, image=args.image)
        except PicoUnavailable as e:
            print(f"bao sim: {e}", file=sys.stderr)
            return None
    if args.runtime == "micropython":
        return MicroPythonBoard(data, heap=args.heap)
    return CPythonBoard(data)


def _start(runner: SimRunner, board: Board, start: core.Position) -> bool:
    """The transcript's rules (its ruleset: and takasia: headers) and start on the board: the host's NEW, as a
    player's host would ask for them, when the board is not there already. False (said) when it did not."""
    from baoproto.frames import encode

    with runner.lock:
        on_board = board.position
    if (
        on_board.d == start.d
        and on_board.rules.ruleset == start.rules.ruleset
        and on_board.rules.options() == start.rules.options()
    ):
        return True
    info: dict[str, Any] = {
        "ruleset": start.rules.ruleset,
        "options": start.rules.options(),
        "first": "N" if start.to_move == core.NORTH else "S",
    }
    if start.d != core.initial(start.rules.ruleset, start.rules, start.to_move).d:
        info["position"] = position_json.to_dict(start)
    runner.call(lambda: board.write_serial(encode("C", 900002, "NEW", json.dumps(info)))).wait()
    runner.scans(20).wait()
    with runner.lock:
        on_board = board.position
    if on_board.d != start.d or on_board.rules.ruleset != start.rules.ruleset:
        print(f"bao sim: the board did not start the transcript's game ({start.rules.ruleset})", file=sys.stderr)
        return False
    return True


def _play(
    args: argparse.Namespace,
    t: notation.Transcript | None,
    dialect: str,
    positions: list[core.Position],
    board: Board,
    link: PtyLink | SocketLink | None,
) -> int:
    from baoproto.frames import encode

    from bao_host.boards.sim import Reporter, SimRunner

    reporter = Reporter(echo=args.report)
    # On the emulated Pico the scan loop paces itself (main.py), so a touch lasts as long as a hand's:
    # held, and let go, for several of its scans either way.
    hold = 10 if args.runtime == "pico" else 4
    think_ms = args.think_ms if args.think_ms is not None else (600 if args.runtime == "pico" else 0)
    think_scans = max(0, think_ms) // max(1, args.scan_ms)
    runner = SimRunner(
        board,
        link,
        scan_ms=args.scan_ms,
        pause=args.speed,
        mistakes=args.mistakes,
        seed=args.seed,
        on_serial=reporter.feed,
        hold=hold,
        gap=hold,
        think=think_scans,
    )
    runner.start()
    try:
        if t is None:
            while runner.error is None:  # a board for a host or the terminal UI, until Ctrl-C
                time.sleep(0.2)
            print(f"bao sim: the simulated board stopped: {runner.error}", file=sys.stderr)
            return 1
        wire = runner.wire
        # the board answered a host's handshake (issue #26: a board still booting leaves a host's HELLO
        # unanswered; hands that began then touched a board that read no sensor) and the host has all
        if args.wait_host and not _wait(lambda: wire.answered > 0 and wire.synced, args.wait_host):
            print(f"bao sim: no host acknowledged the board's events within {args.wait_host:g} s", file=sys.stderr)
            return 1
        if not _start(runner, board, positions[0]):
            return 1
        want = []
        for i, text in enumerate(t.plies):
            p = positions[i]
            m, _ = notation.parse_move(p, text, dialect)
            want.append(notation.format_move(m, p.to_move))

            def lit(p: core.Position = p, m: int = m) -> bool:
                return _lit(runner, p, m)

            if args.side is not None and "SN"[p.to_move] != args.side and not _wait(lit, args.wait_host or 600):
                print(f"bao sim: the board did not light {want[-1]} (ply {i + 1})", file=sys.stderr)
                return 1
            runner.perform(p, m).wait(600)
        with runner.lock:
            waits = board.position.d != positions[-1].d
        if waits:  # the last move waits for a house decision (2.5b): the host says stop
            runner.call(lambda: board.write_serial(encode("C", 900001, "STOP"))).wait()
        runner.scans(20).wait()
        if args.wait_host and not _wait(lambda: wire.synced, args.wait_host):
            print(f"bao sim: the host acknowledged {wire.acked} of {wire.last} events", file=sys.stderr)
            return 1
        return 0 if _report(args, runner, board, reporter, want, positions[-1]) else 1
    except KeyboardInterrupt:
        return 130
    finally:
        runner.close()


def _report(
    args: argparse.Namespace, runner: SimRunner, board: Board, reporter: Any, want: list[str], last: core.Position
) -> bool:
    """Say how the transcript's play went (the moves the board reported, the mistakes it flagged, its
    errors, the Pico's time and the heap left); True if the board played the transcript."""
    with runner.lock:
        final = board.position
    ok = reporter.moves == want and final.d == last.d
    if not ok:
        print(
            f"bao sim: the board reported {len(reporter.moves)} moves; they differ from the transcript"
            f" ({reporter.moves} vs {want})",
            file=sys.stderr,
        )
    if args.mistakes:
        flagged = sum(1 for typ, _ in reporter.events.values() if typ == "ILLEGAL")
        print(f"bao sim: {runner.hands.made} mistakes made, {flagged} flagged by the board", file=sys.stderr)
        ok = ok and flagged == runner.hands.made
    if board.errors:
        print("bao sim: firmware errors: " + "; ".join(board.errors), file=sys.stderr)
        ok = False
    pico_ms = getattr(board, "pico_ms", None)
    if pico_ms is not None:
        print(
            f"bao sim: the emulated Pico ran {pico_ms / 1000:.1f} s of Pico time since its last boot", file=sys.stderr
        )
    if board.mem_free >= 0:
        print(f"bao sim: MicroPython heap free at the end: {board.mem_free}", file=sys.stderr)
    return ok
