"""`bao board` and `bao selftest`: the board application on a Raspberry Pi wired to the reference hardware,
and the self-test of an assembled board, from `bao`.

    bao board --hal rpi [--port pty|socket://HOST:PORT|DEVICE|none] [--data DIR] [--log [--store DIR]]
    bao board --hal sim ...                 the same, on simulated sensors and LEDs (no hardware)
    bao selftest --hal rpi [--data DIR]     LED walk, touch each lit pit, store the mapping (on the Pi)
    bao selftest --port URL                 ask a board over its serial link to run its self-test

`bao board` runs the very same application as the Pico (firmware/baoboard/app.py, unchanged) in the same
run loop as firmware/main.py (baoboard.runtime): App(hw, FileStorage(data)) stepped in a paced loop; whatever
escapes is reported on the serial link (N0 ERROR) and the application starts again from its journal. The hardware is
bao_host.boards.rpi.RpiHardware (RPi.GPIO, imported only then) or a simulated one. The serial side is served here:
a pseudo-terminal (its path is printed), a TCP socket a logger on another machine connects to
(`bao log --port socket://PI:PORT`), any pyserial device (a USB gadget /dev/ttyGS0, a UART), or with
`--log` the logger of `bao log` in the same process, over a private local socket. Like `bao log` it holds the
library's lock (record/lock.py) for its whole run: one logger per library, whichever command it is.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baoproto.frames import split_move

from bao_host.boards.runner import (
    SCAN_MS,
    SELFTEST_FILE,
    BoardError,
    Runner,
    SideStream,
    default_data_dir,
    make_rpi_hardware,
    make_sim_hardware,
    open_serial,
    rpi_board_id,
    rpi_selftest,
)

if TYPE_CHECKING:  # (the store is imported only with --log)
    from bao_host.record.lock import LibraryLock
    from bao_host.record.store import Store

# ------------------------------------------------------------------------------------------ the logger


def open_store(store_dir: str | None, stop: threading.Event) -> tuple[Store | None, LibraryLock]:
    """The library `--log` writes, with its lock held as `bao log` holds it (one logger per library: a
    `bao log` on the same folder is refused while this runs, and this is refused while one runs). Returns
    (store, lock), or (None, lock) when stopped while the folder could not be written yet."""
    from bao_host.cli.log import ONE_LOGGER, open_library
    from bao_host.record.lock import LibraryLock, LockHeld
    from bao_host.record.store import default_data_dir as library_dir

    root = Path(store_dir) if store_dir is not None else library_dir()
    if root.exists() and not root.is_dir():
        raise BoardError(f"{root} is a file, not a game library folder")
    lock = LibraryLock(root)
    try:
        return open_library(root, lock, stop.is_set, what="bao board --log", say=_say), lock
    except LockHeld as e:
        raise BoardError(f"{e}: " + ONE_LOGGER.format(flag="--store")) from e


def follow(
    url: str,
    store: Store,
    stop: threading.Event,
    south: str | None = None,
    north: str | None = None,
    place: str | None = None,
    live: bool = False,
    out: Any = None,
    err: Any = None,
    drain: float = 0.5,
) -> int:
    """The logger of `bao log` (bao_host.record.session.LinkSession: each event stored, then acknowledged) on the
    board's serial side, into `store` (open_store: its lock held by the caller). live: its rich live view;
    otherwise each stored move is printed to `out`, one per line, and the logger's messages to `err`. Once
    `stop` is set it goes on until nothing has arrived for `drain` seconds, so that what the board sent last
    is stored too."""
    from bao_host.record.logger import Logger, Message
    from bao_host.record.session import LinkSession
    from bao_host.ui.live import live_view

    out = out or sys.stdout
    err = err or sys.stderr

    def say(m: Message) -> None:
        prefix = {"warn": "warning: ", "error": "error: "}.get(m.level, "")
        print(f"bao board: logger: {prefix}{m.text}", file=err, flush=True)

    logger = Logger(store, south=south, north=north, place=place, on_message=None if live else say)
    session = LinkSession(url, logger, backoff=(0.05, 1.0))
    if not live:

        def stored(ev: Any, res: Any) -> None:
            if ev.type == "MOVE" and res.stored:
                print(split_move(ev.payload)[0], file=out, flush=True)

        session.on_stored = stored
    last = [0, 0.0]  # events stored, when that count last changed

    def until() -> bool:
        if not stop.is_set():
            return False
        now = time.monotonic()
        if session.stored != last[0] or not last[1]:
            last[0], last[1] = session.stored, now
        return now - last[1] > drain

    try:
        if live:
            from rich.live import Live

            with Live(live_view(logger), refresh_per_second=8, transient=False) as view:
                session.run(until=until, on_tick=lambda: view.update(live_view(logger)), tick=0.05)
        else:
            session.run(until=until, tick=0.05)
    finally:
        session.close()
    if session.fatal:
        print(f"bao board: {session.fatal}", file=err)
        return 2
    return 0


# -------------------------------------------------------------------------------------------- bao board


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "board",
        help="run the board application on a Raspberry Pi wired to the board",
        description="Run the board application (the Pico's, unchanged) on a Raspberry Pi wired "
        "to the reference hardware (hardware/README.md), or on simulated hardware.",
    )
    p.add_argument(
        "--hal",
        choices=("rpi", "sim"),
        default="rpi",
        help="rpi: RPi.GPIO on the board's header J1; sim: simulated sensors and LEDs",
    )
    p.add_argument(
        "--port",
        default="pty",
        metavar="URL",
        help="serial side: 'pty' (a pseudo-terminal, path printed), socket://HOST:PORT (served "
        "here; port 0 picks one), a device or pyserial URL (/dev/ttyGS0), or 'none'",
    )
    p.add_argument(
        "--data",
        metavar="DIR",
        help="the board's flash: journal and self-test mapping (default: board-HAL in the user data folder)",
    )
    p.add_argument(
        "--log", action="store_true", help="run the logger (bao log) in this process; --port is then not used"
    )
    p.add_argument("--store", metavar="DIR", help="with --log: the game store (default: the one bao log uses)")
    p.add_argument("--south", metavar="NAME", help="with --log: South's player")
    p.add_argument("--north", metavar="NAME", help="with --log: North's player")
    p.add_argument("--place", metavar="PLACE", help="with --log: where the game is played")
    p.add_argument(
        "--quiet", action="store_true", help="with --log: no live view; each stored move on stdout, messages on stderr"
    )
    p.add_argument("--board-id", help="the board's id in the handshake (default: from the Pi's serial number)")
    p.add_argument("--scan-ms", type=float, default=SCAN_MS, help="pause between two scans, in ms")
    p.add_argument(
        "--half-period-us",
        type=float,
        default=0.0,
        help="rpi: extra time per clock half period for long wires (default 0: as fast as Python toggles the pins)",
    )
    p.add_argument(
        "--brightness",
        type=int,
        default=None,
        metavar="0..31",
        help="rpi: the LEDs' global brightness (never above the board's cap)",
    )
    p.add_argument("--duration", type=float, default=None, metavar="SECONDS", help="stop after SECONDS")
    p.set_defaults(func=run)
    _register_selftest(sub)


def _register_selftest(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser(
        "selftest",
        help="self-test of the assembled board: LED walk, touch each lit pit",
        description="LED walk, then 'touch each lit pit': records which sensor bit answers for "
        "each pit and stores the mapping (hardware/README.md, Self-test).",
    )
    where = s.add_mutually_exclusive_group(required=True)
    where.add_argument("--hal", choices=("rpi",), help="run it here, on a Raspberry Pi wired to the board")
    where.add_argument(
        "--port", metavar="URL", help="ask a board over its serial link (a Pico's USB port, a `bao board` socket)"
    )
    s.add_argument("--data", metavar="DIR", help="rpi: where the mapping is stored (the `bao board --data`)")
    s.add_argument("--walk-ms", type=int, default=150, help="rpi: how long each pit lights in the LED walk")
    s.add_argument(
        "--pit-timeout",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="rpi: a pit that does not answer within SECONDS is skipped",
    )
    s.add_argument(
        "--verdict-s",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="rpi: how long the verdict stays lit (green, failed pits red)",
    )
    s.add_argument("--half-period-us", type=float, default=0.0, help="rpi: as for bao board")
    s.add_argument(
        "--wait", type=float, default=1800.0, metavar="SECONDS", help="--port: how long to wait for the board's result"
    )
    s.set_defaults(func=run_selftest)


def _say(msg: str) -> None:
    print(f"bao board: {msg}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _sigterm_stops(stop: threading.Event) -> Iterator[None]:
    """SIGTERM (systemctl stop) ends the loop like Ctrl-C, so the LEDs go dark and the pins are released."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run(args: argparse.Namespace, *, gpio: Any = None, stop: threading.Event | None = None) -> int:
    """`bao board`. gpio: a module with the RPi.GPIO API instead of RPi.GPIO (tests); stop: ends the run."""
    stop = stop or threading.Event()
    try:
        return _run(args, gpio, stop)
    except BoardError as e:
        print(f"bao board: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, gpio: Any, stop: threading.Event) -> int:
    data = Path(args.data) if args.data else default_data_dir(args.hal)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BoardError(f"cannot use {data} as the board's flash: {e.strerror or e}") from e
    store: Store | None = None
    lock: LibraryLock | None = None
    if args.log:  # the library and its lock first: refused (the board not started) when another logger has it
        store, lock = open_store(args.store, stop)
        if store is None:
            lock.release()
            return 0
    try:
        return _serve(args, gpio, stop, data, store)
    finally:
        if store is not None:
            store.close()
        if lock is not None:
            lock.release()


def _serve(args: argparse.Namespace, gpio: Any, stop: threading.Event, data: Path, store: Store | None) -> int:
    from bao_host.boards.sim import SocketLink

    local: SocketLink | None = None
    if args.log:  # the logger talks to the board over a private local socket, as it would over USB
        local = SocketLink("127.0.0.1", 0)
        link: Any = SideStream(local)
        where = local.path
    else:
        link, where = open_serial(args.port)
    hw: Any = None
    try:
        if args.hal == "rpi":
            hw = make_rpi_hardware(link, data, gpio, args.half_period_us, args.brightness, _say)
            board_id = args.board_id or rpi_board_id()
        else:
            hw = make_sim_hardware(link)
            board_id = args.board_id or "sim-board"
        runner = Runner(hw, data, board_id, args.scan_ms, _say)
        if not args.log:
            print(f"board serial: {where}", file=sys.stderr, flush=True)
            if where.startswith("socket://0.0.0.0:"):
                print(
                    f"  (a logger elsewhere: bao log --port socket://<this machine>:{where.rsplit(':', 1)[1]})",
                    file=sys.stderr,
                    flush=True,
                )
        _say(f"{board_id} on {args.hal}, flash in {data}")
        until = time.monotonic() + args.duration if args.duration is not None else None
        with _sigterm_stops(stop):
            if store is None:
                runner.run(stop, until)
                return 1 if runner.steps == 0 and runner.errors else 0
            board_done = threading.Event()

            def board() -> None:
                try:
                    runner.run(stop, until)
                finally:
                    board_done.set()

            t = threading.Thread(target=board, name="bao-board", daemon=True)
            t.start()
            try:  # the logger stops when the board does (stop, --duration)
                live = not args.quiet and sys.stdout.isatty()
                status = follow(where, store, board_done, args.south, args.north, args.place, live)
            finally:
                stop.set()
                t.join(10)
            return status
    finally:
        if hw is not None and hasattr(hw, "close"):
            with contextlib.suppress(Exception):
                hw.close()
        elif link is not None:
            with contextlib.suppress(Exception):
                link.close()


# ------------------------------------------------------------------------------------------ bao selftest


def summary(result: dict[str, Any]) -> tuple[int, list[str]]:
    """The self-test's result in words, and the exit status: 0 when every pit answered on a bit of its own
    (the recorded mapping is usable, mismatches included), 1 when pits are missing or share a bit."""
    lines: list[str] = []
    mism, missing, dups = result.get("mismatches") or [], result.get("missing") or [], result.get("duplicates") or []
    if result.get("ok"):
        lines.append("all 32 pits answer at the sensor bits of the board description")
    if mism:
        lines.append(
            f"{len(mism)} pit(s) answer at another sensor bit than hardware/board.json says: "
            f"{', '.join(mism)} (the recorded mapping reads them right; or fix the wires)"
        )
    if missing:
        lines.append(
            f"{len(missing)} pit(s) never answered: {', '.join(missing)} (check the touch module, its "
            "wire to the 74HC165 and the pit's LED position)"
        )
    if dups:
        lines.append(f"sensor bit(s) {', '.join(str(b) for b in dups)} answered for more than one pit")
    if not lines:
        lines.append("no result")
    return (1 if missing or dups or "pit_sensor_bit" not in result else 0), lines


def run_selftest(args: argparse.Namespace, *, gpio: Any = None) -> int:
    """`bao selftest`. gpio: a module with the RPi.GPIO API instead of RPi.GPIO (tests)."""
    try:
        if args.port:
            return _selftest_remote(args.port, args.wait)
        return _selftest_rpi(args, gpio)
    except BoardError as e:
        print(f"bao selftest: {e}", file=sys.stderr)
        return 2


def _selftest_rpi(args: argparse.Namespace, gpio: Any) -> int:
    data = Path(args.data) if args.data else default_data_dir("rpi")
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BoardError(f"cannot use {data}: {e.strerror or e}") from e
    path = data / SELFTEST_FILE
    hw = make_rpi_hardware(None, data, gpio, args.half_period_us)  # the test reads raw bits, no mapping
    err = sys.stderr
    try:
        result = rpi_selftest(hw, path, args.walk_ms, args.pit_timeout, err)
        status, lines = summary(result)
        for line in lines:
            print(f"selftest: {line}", flush=True)
        print(
            f"selftest: stored in {path}" + (" (bao board reads the pits with it)" if status == 0 else ""), flush=True
        )
        time.sleep(max(0.0, args.verdict_s))  # the verdict on the board: green, failed pits red
    finally:
        hw.close()  # lights off, pins released
    return status


def _selftest_remote(url: str, wait: float) -> int:
    """SELFTEST over the serial link: the board answers OK, runs the self-test, and reports the result as a
    SELFTEST event. Events are not acknowledged here: they stay with the board for the logger."""
    from bao_host.record.link import Link, LinkError

    link = Link(url)
    try:
        try:
            info = link.connect()
        except LinkError as e:
            raise BoardError(str(e)) from e
        try:
            r = link.command("SELFTEST")
        except LinkError as e:
            raise BoardError(f"no answer to SELFTEST: {e}") from e
        if not r.ok:
            if r.payload.startswith("unknown"):
                raise BoardError(
                    f"the board ({info.board}, firmware {info.fw}) has no SELFTEST command yet "
                    "(ERR unknown): see hardware/README.md, Self-test, for the other ways"
                )
            raise BoardError(f"the board refused SELFTEST: {r.payload}")
        print(
            "selftest: the board runs its self-test: watch the LED walk, then touch each pit when it lights green",
            file=sys.stderr,
            flush=True,
        )
        end = time.monotonic() + wait
        while time.monotonic() < end:
            for ev in link.poll(0.2):
                if ev.type == "SELFTEST" and ev.seq > info.last:
                    try:
                        result = ev.json()
                    except ValueError as e:
                        raise BoardError(f"unreadable SELFTEST result: {ev.payload[:80]!r}") from e
                    if not isinstance(result, dict):
                        raise BoardError(f"unreadable SELFTEST result: {ev.payload[:80]!r}")
                    status, lines = summary(result)
                    for line in lines:
                        print(f"selftest: {line}", flush=True)
                    print("selftest: " + json.dumps(result.get("pit_sensor_bit")), flush=True)
                    return status
        raise BoardError(f"no SELFTEST result from the board within {wait:g} s")
    finally:
        link.close()
