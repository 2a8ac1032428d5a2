"""`bao serve`: the web board (bao_host.ui.web): the live boards, play in the browser, the game library.

It listens on 127.0.0.1 unless --host says otherwise; on any other address it makes a token, prints it
with the players' address, and every request that changes a board or the library must carry it
(spectators and the library's pages need none).
"""

from __future__ import annotations

import argparse
import gc
import ipaddress
import logging
import re
import secrets
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

from bao_host.cli.common import add_data_arg
from bao_host.record.store import DB_NAME, default_data_dir

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def reachable(host: str) -> list[str]:
    """The addresses a player's browser can open for a server listening on host: a wildcard (0.0.0.0, ::)
    is no address to open; it stands for this machine's addresses, which are listed (loopback last)."""
    if host not in ("0.0.0.0", "::", ""):
        return [f"[{host}]" if ":" in host else host]
    found: list[str] = []
    family = socket.AF_INET6 if host == "::" else socket.AF_INET
    names = [socket.gethostname()]
    try:  # the address the machine would reach the network from (no packet is sent: UDP connect)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): never a real peer
            found.append(s.getsockname()[0])
    except OSError:
        pass
    for name in names:
        try:
            for info in socket.getaddrinfo(name, None, family, socket.SOCK_STREAM):
                addr = str(info[4][0])
                if addr not in found:
                    found.append(addr)
        except OSError:
            pass
    ordered = [a for a in found if not is_loopback(a)] + ["127.0.0.1"]
    return [f"[{a}]" if ":" in a else a for a in ordered]


def allowed_hosts(host: str, public: list[str] | None = None) -> list[str]:
    """The Host headers a loopback server answers (a web page elsewhere cannot reach it by another name:
    DNS rebinding), and the names a reverse proxy in front of it passes on (`public`: club.example); a
    server on other addresses answers any."""
    if is_loopback(host):
        return ["127.0.0.1", "localhost", "::1", "[::1]", host, *(public or [])]
    return ["*"]


def _online_store_refused(data: Path, db: str | None) -> str:
    """Why the online games' database cannot be used ('' when it can): PostgreSQL not there, or tables of a
    newer bao. Opened once here (an older library's tables are brought up to date) so that it is said in
    one line before the server starts."""
    if db is None and not (data / DB_NAME).exists():
        return ""  # (a new library: made as the server starts)
    from bao_host.online.store import SchemaError
    from bao_host.online.store_pg import PgError
    from bao_host.online.stores import open_store

    try:
        open_store(data, db).close()
    except (PgError, SchemaError) as e:
        return str(e)
    except sqlite3.Error as e:
        return f"the library's database {data / DB_NAME}: {e}"
    return ""


def cmd_serve(args: argparse.Namespace) -> int:
    from bao_host.ui.web.app import Settings, WebServer, create_app

    if not 0 <= args.port <= 65535:
        print(f"bao serve: error: no port {args.port} (0..65535)", file=sys.stderr)
        return 2
    if not 0.1 <= args.online_rate <= 100000:
        print("bao serve: error: --online-rate takes 0.1..100000 requests a second", file=sys.stderr)
        return 2
    if args.sim < 0 or args.sim > 8:
        print("bao serve: error: --sim takes 0..8 simulated boards", file=sys.stderr)
        return 2
    if args.db is not None and not args.db.startswith(("postgresql://", "postgres://")):
        print(f"bao serve: error: --db takes a postgresql:// address, not {args.db[:60]!r}", file=sys.stderr)
        return 2
    data = Path(args.data) if args.data else default_data_dir()
    if data.exists() and not data.is_dir():
        print(f"bao serve: {data} is a file, not a game library folder", file=sys.stderr)
        return 1
    why = _online_store_refused(data, args.db)
    if why:
        print(f"bao serve: {why}", file=sys.stderr)
        return 1
    public = list(args.public_host or [])
    bad = next((n for n in public if not re.fullmatch(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?", n)), None)
    if bad is not None:
        print(f"bao serve: error: --public-host takes a host name (club.example), not {bad[:60]!r}", file=sys.stderr)
        return 2
    # (reached from elsewhere through a proxy, a loopback server is as public as one off the loopback: a token)
    token = None if is_loopback(args.host) and not public else (args.token or secrets.token_urlsafe(18))
    settings = Settings(
        data=data,
        sims=args.sim,
        ports=list(args.port_url or []),
        token=token,
        allowed_hosts=allowed_hosts(args.host, public),
        south=args.south,
        north=args.north,
        online_rate=args.online_rate,
        db=args.db,
    )
    shown = f"[{args.host}]" if ":" in args.host else args.host

    def started() -> None:  # (once the socket listens: a client told the address may connect at once)
        bases = [f"http://{h}:{args.port}" for h in reachable(args.host)]
        print(f"bao serve: the boards and the library on {bases[0]}/ (library in {data})", flush=True)
        for more in bases[1:]:
            print(f"bao serve: also on {more}/", flush=True)
        if token is not None:
            for base in [f"https://{name}" for name in public] + bases:
                print(f"bao serve: players open {base}/?token={token} (spectators need no token)", flush=True)
        print("bao serve: Ctrl-C to stop", flush=True)
        # Everything loaded so far lives as long as the server: out of the collector's sight, so that a full
        # collection (which stops the event loop) walks only what came since (docs/benchmarks.md, "Online play").
        gc.freeze()

    app = create_app(settings)
    server = WebServer(
        app, on_listening=started, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=2
    )
    # (a port in use is said once, in bao serve's words below: uvicorn's own line for it is dropped)
    logging.getLogger("uvicorn.error").addFilter(lambda r: "while attempting to bind" not in r.getMessage())
    try:
        server.run()
    except (KeyboardInterrupt, SystemExit):  # (uvicorn exits when it cannot listen)
        pass
    if not server.started:
        print(f"bao serve: could not listen on {shown}:{args.port} (in use, or not an address here)", file=sys.stderr)
        return 1
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="the web board: live boards, play in the browser, the game library")
    add_data_arg(p)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other needs the printed token to play)",
    )
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument(
        "--sim",
        type=int,
        default=1,
        metavar="N",
        help="simulated boards to play in the browser (default 1; 0 for none)",
    )
    p.add_argument(
        "--board",
        dest="port_url",
        action="append",
        metavar="URL",
        help="a real board to follow: serial device, pseudo-terminal or socket://host:port (repeatable)",
    )
    p.add_argument(
        "--public-host",
        action="append",
        metavar="NAME",
        help="a name a reverse proxy in front of this server is reached by (club.example, for TLS: docs/online.md);"
        " its requests are answered, and the boards and the library need the printed token (repeatable)",
    )
    p.add_argument("--token", default=None, help="the token to use instead of a new random one (off the loopback)")
    p.add_argument("--south", metavar="NAME", help="South's player in the games logged")
    p.add_argument("--north", metavar="NAME", help="North's player in the games logged")
    p.add_argument(
        "--online-rate",
        type=float,
        default=10.0,
        metavar="N",
        help="online play: requests a second one client may send on average (default 10; docs/online.md)",
    )
    p.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="online play's games on PostgreSQL (postgresql://USER@HOST/DB), shared by every `bao serve` "
        "given the same URL (default: in the library's SQLite file; docs/online.md)",
    )
    p.set_defaults(func=cmd_serve)
