"""`bao log`: find the board, follow it over serial, store every game, show it live (rich).

The serial side is bao_host.record.session.LinkSession over bao_host.record.link.Link (docs/protocol.md: handshake,
acknowledgements after storage, duplicates dropped by sequence number, reconnects with backoff, the
resume point of a restarted logger). `--port` takes any pyserial URL: a device path, the simulator's
pseudo-terminal, socket://host:port. Without it the board is found by its USB vendor id (RP2040) or by a
board id seen before, and found again when it comes back on another device path (its stable
/dev/serial/by-id/ name when there is one).

A logger is bound to one board (`--board ID`, else the first it meets) and one library: the library's lock
(record/lock.py) refuses a second `bao log` on the same data folder, naming the first. A data folder that
cannot be written at start (read-only, full disk) is said once and waited for: nothing is acknowledged to the
board meanwhile, so nothing is lost.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from serial.tools import list_ports

from bao_host.cli.common import add_data_arg
from bao_host.record.lock import LOGGERS, LibraryLock, LockHeld
from bao_host.record.logger import Logger, Message
from bao_host.record.session import LinkSession
from bao_host.record.store import Store, StoreError, classify, default_data_dir
from bao_host.record.textcheck import TextError, check_name
from bao_host.ui.live import live_view
from bao_host.ui.safe import plain

RP2040_VID = 0x2E8A


BY_ID = Path("/dev/serial/by-id")


def stable_path(device: str, by_id: Path | None = None) -> str:
    """The /dev/serial/by-id/ name of a device (it names the USB device, so renumbering does not move it),
    else the device itself."""
    try:
        real = os.path.realpath(device)
        for link in sorted((BY_ID if by_id is None else by_id).iterdir()):
            if os.path.realpath(link) == real:
                return str(link)
    except OSError:
        pass
    return device


def find_board(known_ids: list[str] | None = None, bound: str | None = None) -> str | None:
    """The serial device of a plugged-in board: one whose USB serial number is a board id seen before
    (MicroPython reports the RP2040's unique id there), else any RP2040 (USB vendor id 0x2E8A). A logger
    bound to a board looks for that one only (another RP2040 is another board). By-id paths preferred."""
    known = {k.lower() for k in known_ids or [] if k}
    ports = list(list_ports.comports())
    if bound:
        known = {bound.lower()}
    for p in ports:
        if p.serial_number and p.serial_number.lower() in known:
            return stable_path(str(p.device))
    for p in ports:
        if p.vid == RP2040_VID and not (bound and p.serial_number):
            return stable_path(str(p.device))
    return None


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _print_message(m: Message) -> None:
    prefix = {"info": "", "warn": "warning: ", "error": "error: "}.get(m.level, "")
    print(plain(f"bao log: {prefix}{m.text}"), file=sys.stderr, flush=True)


def _say(text: str) -> None:
    print(plain(f"bao log: {text}"), file=sys.stderr, flush=True)


def open_library(
    root: Path,
    lock: LibraryLock,
    until: Callable[[], bool] | None,
    retry: float = 1.0,
    what: str = "bao log",
    say: Callable[[str], None] = _say,
) -> Store | None:
    """The store in root, with its lock held (as `what`) for the whole run. LockHeld when another logger
    (`bao log`, `bao board --log`) has it. A folder that cannot be written yet (read-only, full, busy, an I/O
    error) is said once and tried again every `retry` seconds; None when `until` came first."""
    said = ""
    patience = time.monotonic() + 10.0
    while True:
        try:
            root.mkdir(parents=True, exist_ok=True)
            lock.acquire(what)
            if lock.stale:
                say(f"a stale lock was left in {root} ({lock.stale}): taken over")
            return Store(root, report=say, lock=lock)
        except LockHeld as e:
            if e.what in LOGGERS or time.monotonic() > patience:
                raise
            # (another library command holds it while it opens the store: a moment)
        except (OSError, StoreError) as e:
            why = str(classify(e, root))
            if why != said:
                said = why
                say(
                    f"{why}: waiting until it can be written (nothing is acknowledged to the board until "
                    "then, so nothing is lost); Ctrl-C to stop"
                )
        if until is not None and until():
            return None
        time.sleep(retry)


ONE_LOGGER = "one logger per library (stop it first, or give this one another {flag} folder)"


def _checked(args: argparse.Namespace) -> tuple[dict[str, str | None], Path] | int:
    """The players' names and the library folder the command line gives, or the exit status of an error
    (said at once)."""
    try:
        names = {
            k: None if getattr(args, k) is None else check_name(f"--{k}", getattr(args, k))
            for k in ("south", "north", "place")
        }
    except TextError as e:
        _say(str(e))
        return 2
    why = _impossible_url(args.port) if args.port is not None else ""
    if why:  # an error at once: retrying an address that cannot exist would wait for ever
        _say(f"{args.port}: {why}")
        return 2
    root = Path(args.data) if args.data is not None else default_data_dir()
    if root.exists() and not root.is_dir():
        _say(f"{root} is a file, not a game library folder")
        return 1
    return names, root


def cmd_log(args: argparse.Namespace) -> int:
    checked = _checked(args)
    if isinstance(checked, int):
        return checked
    names, root = checked
    until = _deadline(args.duration)
    lock = LibraryLock(root)
    try:
        opened = open_library(root, lock, until)
    except LockHeld as e:
        _say(f"{e}: " + ONE_LOGGER.format(flag="--data"))
        return 1
    except KeyboardInterrupt:
        lock.release()
        return 0
    if opened is None:
        lock.release()
        return 0
    store = opened
    logger = Logger(
        store,
        south=names["south"],
        north=names["north"],
        place=names["place"],
        on_message=_print_message if args.quiet else None,
    )
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # stops as Ctrl-C does (what is stored is on disk anyway)
    session: LinkSession | None = None
    try:
        url = args.port
        locate: Callable[[], str | None] | None = None
        if url is None:
            known = [r["board_id"] for r in store.known_boards()]

            def locate() -> str | None:
                return find_board(known, bound=session.board if session is not None else args.board)

            print("bao log: looking for a Bao board (Ctrl-C to stop)...", file=sys.stderr, flush=True)
            url = locate()
            while url is None:
                if until is not None and until():
                    return 0
                time.sleep(1.0)
                url = locate()
        elif _missing_device(url):
            print(
                f"bao log: {url} does not exist: waiting for it to appear (the board plugged in), "
                "retrying with backoff; Ctrl-C to stop",
                file=sys.stderr,
                flush=True,
            )
        session = LinkSession(
            url, logger, locate=locate, board=args.board, library_boards=[r["board_id"] for r in store.known_boards()]
        )
        if args.quiet:
            session.run(until=until)
        else:
            from rich.live import Live

            with Live(live_view(logger), refresh_per_second=8, transient=False) as live:
                session.run(until=until, on_tick=lambda: live.update(live_view(logger)))
    except KeyboardInterrupt:
        pass
    finally:
        if session is not None:
            session.close()
        store.close()
        lock.release()
    if session is not None and session.fatal:
        print("bao log: " + session.fatal, file=sys.stderr)
        return 2
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bao log")
    _args(ap)
    return cmd_log(ap.parse_args(argv))


def _args(p: argparse.ArgumentParser) -> None:
    add_data_arg(p)
    p.add_argument(
        "--port", metavar="URL", help="serial device, pseudo-terminal or socket://host:port (default: find the board)"
    )
    p.add_argument(
        "--board",
        metavar="ID",
        default=None,
        help="log this board only (default: a board whose games the library holds, else the first board "
        "met; another board is refused)",
    )
    p.add_argument("--south", metavar="NAME", help="South's player")
    p.add_argument("--north", metavar="NAME", help="North's player")
    p.add_argument("--place", metavar="PLACE")
    p.add_argument("--quiet", action="store_true", help="no live view: each message on stderr, one a line")
    p.add_argument("--duration", type=float, default=None, help="stop after SECONDS (tests)")
    p.set_defaults(func=cmd_log)


def register(sub: Any) -> None:
    p = sub.add_parser("log", help="log the games a board reports (finds the board, or --port URL)")
    _args(p)


def _impossible_url(url: str) -> str:
    """Why a network URL (socket://, rfc2217://) can never be opened (a port past 65535, an IPv4 address with a
    number past 255), or "" when it might: waiting for it would wait for ever."""
    parts = urlsplit(url)
    if parts.scheme not in ("socket", "rfc2217"):
        return ""
    try:
        port = parts.port
    except ValueError:
        return "the port is a number from 1 to 65535"
    if port is None or port < 1:
        return "the port is a number from 1 to 65535"
    host = parts.hostname or ""
    if not host:
        return "no host address (socket://HOST:PORT)"
    if all(c.isdigit() or c == "." for c in host):
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return f"{host} is not an address (four numbers from 0 to 255)"
    return ""


def _missing_device(url: str) -> bool:
    """A device path (not a pyserial URL such as socket://) that is not there (yet)."""
    return "://" not in url and not os.path.exists(url)


def _deadline(seconds: float | None) -> Callable[[], bool] | None:
    if seconds is None:
        return None
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end
