"""`bao log`: find the board, follow it over serial, store every game, show it live (rich).

The serial side speaks docs/protocol.md through baoboard.frames: C<id> HELLO handshake, E<seq> events
acknowledged with A<seq> ACK <epoch> only once the logger has made them durable, N0 notices, R replies.
When bao_host.link lands it takes this part over (SerialSession below is the small stand-in).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import serial  # type: ignore[import-untyped,unused-ignore]
from baoboard import frames
from serial.tools import list_ports  # type: ignore[import-untyped,unused-ignore]

from bao_host.library_commands import add_data_arg, board_text, open_store
from bao_host.logger import Logger, ProtocolError, side_name

RP2040_VID = 0x2E8A


def find_board(known_ids: list[str] | None = None) -> str | None:
    """The serial device of a plugged-in board: an RP2040 (USB vendor id), or a serial number seen before."""
    known = set(known_ids or [])
    for p in list_ports.comports():
        if p.vid == RP2040_VID or (p.serial_number and p.serial_number in known):
            return str(p.device)
    return None


class SerialSession:
    """One connection to a board: handshake, events to the logger, acks after storage, reconnects."""

    def __init__(self, url: str, logger: Logger, timeout: float = 0.05,
                 on_idle: Callable[[], None] | None = None) -> None:
        self.url = url
        self.logger = logger
        self.timeout = timeout
        self.on_idle = on_idle
        self.port: Any = None
        self.cmd_id = 0
        self.epoch = ""
        self.ready = False
        self.stop = False
        self.fatal = ""
        self._asm = frames.LineAssembler(frames.MAX_BOARD_LINE, self._line, self._bad)

    def open(self) -> bool:
        try:
            self.port = serial.serial_for_url(self.url, baudrate=115200, timeout=self.timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            self.logger.connection(f"cannot open {self.url}: {e}", self.url)
            return False
        self._asm.reset()
        self.ready = False
        self.logger.connection("handshake", self.url)
        self.send("C", self._next_id(), "HELLO", str(frames.PROTO))
        return True

    def _next_id(self) -> int:
        self.cmd_id += 1
        return self.cmd_id

    def send(self, kind: str, num: int, typ: str, payload: str = "") -> None:
        if self.port is not None:
            self.port.write(frames.encode(kind, num, typ, payload))

    def _bad(self, code: int) -> None:
        self.logger.bad_input(f"overlong line from the board dropped ({frames.ERR_NAMES[code]})")

    def _line(self, line: bytes) -> None:
        f = frames.decode(line)
        raw = line.decode("utf-8", "replace")
        if isinstance(f, int):
            why = frames.ERR_NAMES[f]
            self.logger.bad_input(f"bad frame from the board ({why}): {raw[:60]!r} dropped", raw)
            return
        kind, num, typ, payload = f
        if kind in ("H", "R") and typ in ("HELLO", "OK", "ERR"):
            fields = frames.fields(payload)
            if kind == "R" and typ == "ERR":
                self.logger.say("error", f"the board refused the handshake: {payload}")
                if "proto" in payload:
                    self.fatal = f"the board speaks another protocol ({payload})"
                return
            if "epoch" not in fields:
                return  # a reply to another command
            try:
                self.logger.hello(fields, self.url)
            except ProtocolError as e:
                self.fatal = str(e)
                return
            self.epoch = fields["epoch"]
            self.ready = True
            self.logger.connection("connected", self.url)
            return
        if kind == "E":
            if not self.ready:
                return  # before the handshake: the board sends it again after our HELLO
            res = self.logger.event(num, typ, payload, raw, epoch=self.epoch)
            del res
            self.send("A", num, "ACK", self.epoch)  # durable (or a duplicate): acknowledge
            return
        if kind == "N":
            self.logger.notice(typ, payload, raw)
            return

    def poll_once(self) -> None:
        """Read what has arrived (the port must have been opened with timeout 0) and handle it."""
        if self.fatal:
            return
        if self.port is None and not self.open():
            return
        try:
            data = self.port.read(65536)
            if data:
                self._asm.feed(data)
        except (serial.SerialException, OSError) as e:
            self.logger.connection(f"disconnected ({e}); reconnecting", self.url)
            self.close()

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Follow the board until stop/until(); reconnects by itself after a disconnect."""
        while not self.stop and not self.fatal and not (until is not None and until()):
            if self.port is None and not self.open():
                time.sleep(0.5)
                continue
            try:
                data = self.port.read(4096)
                if data:
                    self._asm.feed(data)
                elif self.on_idle is not None:
                    self.on_idle()
            except (serial.SerialException, OSError) as e:
                self.logger.connection(f"disconnected ({e}); reconnecting", self.url)
                self.close()
                time.sleep(0.2)
        self.close()

    def close(self) -> None:
        if self.port is not None:
            try:
                self.port.close()
            except (serial.SerialException, OSError):
                pass
            self.port = None
        self.ready = False


def live_view(logger: Logger) -> Any:
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    v = logger.view
    parts: list[Any] = []
    head = f"board {v.board_id or '?'} fw {v.firmware or '?'}  [{v.connection}] {v.port}"
    parts.append(Text(head, style="bold"))
    if v.position is not None:
        parts.append(Text(board_text(v.position)))
        turn = v.result or side_name(v.position.to_move) + " to move"
        parts.append(Text(f"game {v.game_id}: {v.south or '?'} (South) - {v.north or '?'} (North): {turn}"))
        last = v.plies[-8:]
        first = len(v.plies) - len(last)
        shown = "  ".join(f"{(first + i) // 2 + 1}.{t}" for i, t in enumerate(last))
        parts.append(Text("last moves: " + shown))
    else:
        parts.append(Text("waiting for a game"))
    c = logger.counters
    parts.append(Text(f"moves stored {c.moves}, events {c.events}, duplicates dropped {c.duplicates}, "
                      f"flagged {c.flagged}, bad frames {c.bad_frames}"))
    for m in list(logger.messages)[-6:]:
        parts.append(Text(m.text, style={"info": "", "warn": "yellow", "error": "bold red"}[m.level]))
    return Panel(Group(*parts), title="bao log")


def cmd_log(args: argparse.Namespace) -> int:
    store = open_store(args)
    logger = Logger(store, south=args.south, north=args.north, place=args.place)
    url = args.port
    if url is None:
        known = [r["board_id"] for r in store.known_boards()]
        print("looking for a Bao board (Ctrl-C to stop)...", file=sys.stderr)
        while url is None:
            url = find_board(known)
            if url is None:
                time.sleep(1.0)
    session = SerialSession(url, logger)
    try:
        if args.quiet:
            logger.on_change = None
            session.run(until=_deadline(args.duration))
        else:
            from rich.live import Live

            with Live(live_view(logger), refresh_per_second=8, transient=False) as live:
                session.on_idle = lambda: live.update(live_view(logger))
                logger.on_change = lambda: live.update(live_view(logger))
                session.run(until=_deadline(args.duration))
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
        store.close()
    if session.fatal:
        print("bao log: " + session.fatal, file=sys.stderr)
        return 2
    return 0


def _deadline(seconds: float | None) -> Callable[[], bool] | None:
    if seconds is None:
        return None
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end


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
    p.add_argument("--quiet", action="store_true", help="no live view")
    p.add_argument("--duration", type=float, default=None, help="stop after SECONDS (tests)")
    p.set_defaults(func=cmd_log)


def register(sub: Any) -> None:
    p = sub.add_parser("log", help="log the games a board reports (finds the board, or --port URL)")
    _args(p)
