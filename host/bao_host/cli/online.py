"""`bao online URL --new RULESET | --join CODE | --resume GAME --board PORT`: a board in a game on a `bao serve`
server (docs/online.md). The board's moves go to the server; the opponent's moves are lit on the board
(`SHOW`) for the player to sow. Every event is stored in the local library (--data) as `bao log` does.
While it runs, a line `resign` or `abort` on its input ends the game, `takeback` asks to take back one's last
move (or accepts the other's asking), `no` declines it, `stop` answers a house decision
(2.5b) by stopping; after the game, `rematch` asks for another (the sides swapped) or plays the one the other
asked for, on the same board, and `quit` (or the input's end) leaves; Ctrl-C leaves it (`--resume` comes
back to it: the seat is kept in the library folder, online/<game>.json, readable by its owner only)."""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import sys
import threading
import time
from pathlib import Path

from bao import core

from bao_host.cli.common import add_data_arg
from bao_host.online import protocol as P
from bao_host.online.client import Api, Bridge, OnlineError, Seat
from bao_host.record.lock import LibraryLock, LockHeld
from bao_host.record.logger import Logger, Message
from bao_host.record.session import LinkSession
from bao_host.record.store import default_data_dir
from bao_host.ui.safe import plain

_GAME = re.compile(r"[A-Za-z0-9_-]{1,40}\Z")


def _say(text: str) -> None:
    print(plain(f"bao online: {text}"), flush=True)


def _seat_file(root: Path, game: str) -> Path:
    return root / "online" / f"{game}.json"


def _keep_seat(root: Path, base: str, seat: Seat) -> None:
    path = _seat_file(root, seat.game)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # a seat token is a password
    with os.fdopen(fd, "w") as f:
        json.dump({"server": base, "game": seat.game, "seat": seat.side, "token": seat.token}, f)


def _clock(text: str | None) -> tuple[float, float] | None:
    """--clock BASE+INCREMENT in seconds (300+5), or None."""
    if text is None:
        return None
    m = re.fullmatch(r"(\d{1,5})(?:\+(\d{1,4}))?", text.strip())
    if m is None:
        raise OnlineError(f"--clock {text[:20]!r}: seconds for the game and, after +, for each move (300+5)")
    return float(m.group(1)), float(m.group(2) or 0)


def _read_seat(root: Path, game: str) -> Seat:
    if not _GAME.match(game):
        raise OnlineError(f"--resume {game[:40]!r}: a game id is letters, digits, - and _")
    try:
        obj = json.loads(_seat_file(root, game).read_text())
        return Seat(str(obj["game"]), str(obj["seat"]), str(obj["token"]))
    except (OSError, ValueError, KeyError, TypeError):
        raise OnlineError(f"no seat of game {game} kept in {root / 'online'}") from None


def _take_seat(args: argparse.Namespace, api: Api, root: Path) -> Seat:
    """The seat this client plays: a new game's, a joined one's, or the one kept for --resume."""
    if args.new:
        return api.create(args.new, args.side, args.name or "", _clock(args.clock))
    if args.join:
        return api.join(args.join.strip(), args.name or "")
    return _read_seat(root, args.resume)


def _check_request(args: argparse.Namespace, api: Api, root: Path) -> None:
    """OnlineError for what can be refused before the board is waited for: a bad --clock or --resume, a
    server that does not answer or is not bao's (so nothing is made on the server in vain)."""
    if args.new:
        _clock(args.clock)
    elif args.resume:
        _read_seat(root, args.resume)
    api.check()


def _wait_for_board(session: LinkSession) -> bool:
    """True once the board has said HELLO; False when its link failed for good. The game is made on the server
    only then: a client with no board makes no game that waits for it (Ctrl-C gives up, nothing made)."""
    tell_at = time.monotonic() + 1.0  # (a board that is there answers before: nothing said)
    while not session.connected and not session.fatal:
        session.poll(0.1)
        if tell_at and time.monotonic() > tell_at and not session.connected:
            tell_at = 0.0
            _say(f"waiting for the board at {session.url} (plug it in or start it; Ctrl-C gives up)")
    return not session.fatal


def _announce(args: argparse.Namespace, api: Api, seat: Seat) -> None:
    _say(f"game {seat.game}: you play {P.side_name(seat.side)}")
    if seat.invite:
        _say(f"invitation code: {seat.invite}")
        _say(f"the other player runs: bao online {args.url} --join {seat.invite}")
    _say(f"spectators watch the game at {api.base}/online/game/{seat.game}/watch")


def _typed(api: Api, seat: Seat, session: LinkSession, what: str, bridge: Bridge) -> None:
    """A line the player typed: resign, abort, stop (2.5b: stop in the house, as the opponent's touch
    would say it on a board in the room), takeback (ask to take back one's last move, or accept the other's
    asking) or no (decline it)."""
    try:
        if what == "resign":
            api.resign(seat)
        elif what == "abort":
            api.abort(seat)
        elif what == "stop":
            session.stop()
        elif what == "takeback":
            bridge.ask_takeback()
        elif what == "no":
            api.takeback(seat, None)
        elif what:
            _say(
                f"{what[:20]!r}: type stop (2.5b), takeback (ask, or accept the other's), no (decline), resign "
                "or abort (Ctrl-C leaves the game, --resume comes back)"
            )
    except OnlineError as e:
        _say(f"the server refused: {e}")


def _read_lines() -> queue.Queue[str | None]:
    """The player's typed lines, as they come (None: the input ended)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read_input() -> None:
        for line in sys.stdin:
            lines.put(line.strip().lower())
        lines.put(None)

    threading.Thread(target=read_input, name="online-input", daemon=True).start()
    return lines


def _rematch(args: argparse.Namespace, api: Api, bridge: Bridge, root: Path) -> Bridge:
    """The rematch asked for (or the other's accepted): its seat kept, and a bridge to it on the same board."""
    seat = api.rematch(bridge.seat)
    bridge.rematch_asked = True
    _keep_seat(root, args.url, seat)
    _say(f"rematch: game {seat.game}, you play {P.side_name(seat.side)}")
    bridge.close()
    return Bridge(api, seat, bridge.session, say=_say)


def _play(args: argparse.Namespace, api: Api, bridge: Bridge, root: Path) -> Bridge:
    """The board and the server bridged until the player leaves, the link fails, or a game ends and the
    player (or the input's end) says no rematch; the last game's bridge."""
    session = bridge.session
    lines, typing, told = _read_lines(), True, False
    try:
        while not session.fatal:
            session.poll(0.05)
            bridge.tick()
            if bridge.done and not told:
                told = True
                _say(f"the game is in the library as game {bridge.local}")  # (how it ended is said: Bridge)
                if not typing:
                    break
                _say("type rematch for another game (the sides swapped), or quit")
            try:
                what = lines.get_nowait()
            except queue.Empty:
                continue
            if what is None:
                typing = False
                if bridge.done:
                    break
            elif not bridge.done:
                _typed(api, bridge.seat, session, what, bridge)
            elif what == "quit":
                break
            elif what == "rematch":
                try:
                    bridge, told = _rematch(args, api, bridge, root), False
                except OnlineError as e:
                    _say(f"the server refused: {e}")
            elif what:
                _say(f"{what[:20]!r}: the game is over; type rematch, or quit")
    except KeyboardInterrupt:
        if not bridge.done:
            _say(f"left the game; `bao online {args.url} --resume {bridge.seat.game}` comes back to it")
    return bridge


def cmd_online(args: argparse.Namespace) -> int:
    from bao_host.cli.log import open_library

    if not re.match(r"https?://[^\s/]+", args.url):
        print(f"bao online: error: {args.url[:60]!r} is no server address (http://HOST:PORT/)", file=sys.stderr)
        return 2
    root = Path(args.data) if args.data is not None else default_data_dir()
    if root.exists() and not root.is_dir():
        print(f"bao online: {root} is a file, not a game library folder", file=sys.stderr)
        return 1
    api = Api(args.url)
    try:
        _check_request(args, api, root)
    except OnlineError as e:
        print(f"bao online: {e}", file=sys.stderr)
        return 1
    root.mkdir(parents=True, exist_ok=True)
    lock = LibraryLock(root)
    try:
        store = open_library(root, lock, None, what="bao online")
    except LockHeld as e:
        print(f"bao online: {e}: one logger per library (give this one another --data folder)", file=sys.stderr)
        return 1
    assert store is not None

    def show(m: Message) -> None:
        if m.level in ("warn", "error") or "new game" in m.text or "bound to" in m.text:
            _say(f"board: {m.text}")

    session = LinkSession(args.board, Logger(store, on_message=show))
    seat: Seat | str
    try:
        seat = _take_seat(args, api, root) if _wait_for_board(session) else session.fatal
    except OnlineError as e:
        seat = str(e)
    except KeyboardInterrupt:
        seat = "no board came: no game was made"
    if isinstance(seat, str):  # (nothing to play: the reason why)
        session.close()
        store.close()
        lock.release()
        print(f"bao online: {seat}", file=sys.stderr)
        return 1
    _keep_seat(root, args.url, seat)
    _announce(args, api, seat)
    bridge = Bridge(api, seat, session, say=_say)
    try:
        bridge = _play(args, api, bridge, root)
    finally:
        bridge.close()
        session.close()
        store.close()
        lock.release()
    if session.fatal:
        print(f"bao online: {session.fatal}", file=sys.stderr)
        return 2
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("online", help="play a game on a server (bao serve) with a board")
    p.add_argument("url", help="the server, e.g. http://127.0.0.1:8000/")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--new", choices=core.RULESETS, metavar="RULESET", help="start a game and invite a player")
    which.add_argument("--join", metavar="CODE", help="join the game of this invitation code")
    which.add_argument("--resume", metavar="GAME", help="come back to a game this library holds a seat of")
    p.add_argument("--side", choices=P.SIDES, default="S", help="with --new: the side you play (default S)")
    p.add_argument(
        "--clock",
        metavar="BASE+INC",
        default=None,
        help="with --new: Fischer clocks, seconds for the game + seconds added after each move (300+5)",
    )
    p.add_argument("--name", default="", help="your name, shown to the other player")
    p.add_argument(
        "--board",
        required=True,
        metavar="PORT",
        help="the board: a serial device, pseudo-terminal or socket://HOST:PORT (bao sim)",
    )
    add_data_arg(p)
    p.set_defaults(func=cmd_online)
