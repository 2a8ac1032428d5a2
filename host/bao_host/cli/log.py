"""`bao log`: find the board, follow it over serial, store every game, show it live (rich).

The serial side is bao_host.record.session.LinkSession over bao_host.record.link.Link (docs/protocol.md: handshake,
acknowledgements after storage, duplicates dropped by sequence number, reconnects with backoff, the
resume point of a restarted logger). `--port` takes any pyserial URL: a device path, the simulator's
pseudo-terminal, socket://host:port. Without it the board is found by its USB vendor id (RP2040) or by a
board id seen before, and found again when it comes back on another device path.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from serial.tools import list_ports

from bao_host.cli.common import add_data_arg, open_store
from bao_host.record.logger import Logger, Message
from bao_host.record.session import LinkSession
from bao_host.record.store import StoreError
from bao_host.ui.live import live_view

RP2040_VID = 0x2E8A


def find_board(known_ids: list[str] | None = None) -> str | None:
    """The serial device of a plugged-in board: one whose USB serial number is a board id seen before
    (MicroPython reports the RP2040's unique id there), else any RP2040 (USB vendor id 0x2E8A)."""
    known = {k.lower() for k in known_ids or [] if k}
    ports = list(list_ports.comports())
    for p in ports:
        if p.serial_number and p.serial_number.lower() in known:
            return str(p.device)
    for p in ports:
        if p.vid == RP2040_VID:
            return str(p.device)
    return None


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _print_message(m: Message) -> None:
    prefix = {"info": "", "warn": "warning: ", "error": "error: "}.get(m.level, "")
    print(f"bao log: {prefix}{m.text}", file=sys.stderr, flush=True)


def cmd_log(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
    except StoreError as e:
        print(f"bao log: {e}", file=sys.stderr)
        return 1
    logger = Logger(store, south=args.south, north=args.north, place=args.place,
                    on_message=_print_message if args.quiet else None)
    until = _deadline(args.duration)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # stops as Ctrl-C does (what is stored is on disk anyway)
    session: LinkSession | None = None
    try:
        url = args.port
        locate: Callable[[], str | None] | None = None
        if url is None:
            known = [r["board_id"] for r in store.known_boards()]

            def locate() -> str | None:
                return find_board(known)

            print("bao log: looking for a Bao board (Ctrl-C to stop)...", file=sys.stderr, flush=True)
            url = locate()
            while url is None:
                if until is not None and until():
                    return 0
                time.sleep(1.0)
                url = locate()
        elif _missing_device(url):
            print(f"bao log: {url} does not exist: waiting for it to appear (the board plugged in), "
                  "retrying with backoff; Ctrl-C to stop", file=sys.stderr, flush=True)
        session = LinkSession(url, logger, locate=locate)
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
    p.add_argument("--port", metavar="URL", help="serial device, pseudo-terminal or socket://host:port "
                   "(default: find the board)")
    p.add_argument("--south", metavar="NAME", help="South's player")
    p.add_argument("--north", metavar="NAME", help="North's player")
    p.add_argument("--place", metavar="PLACE")
    p.add_argument("--quiet", action="store_true", help="no live view: each message on stderr, one a line")
    p.add_argument("--duration", type=float, default=None, help="stop after SECONDS (tests)")
    p.set_defaults(func=cmd_log)


def register(sub: Any) -> None:
    p = sub.add_parser("log", help="log the games a board reports (finds the board, or --port URL)")
    _args(p)


def _missing_device(url: str) -> bool:
    """A device path (not a pyserial URL such as socket://) that is not there (yet)."""
    return "://" not in url and not os.path.exists(url)


def _deadline(seconds: float | None) -> Callable[[], bool] | None:
    if seconds is None:
        return None
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end
