"""Online play benchmark (issue #27, docs/online.md): many games at once on `bao serve`, played by scripted
clients on the loopback. Each game is the 1994 game's 52 moves between two clients, each with its own event
stream and its own connection for its moves; a client "thinks" (--think seconds on average, uniform between
half and one and a half times that) after the opponent's move shows on its stream, then posts its own.

Two runs: one `bao serve` on SQLite (the library's file); then two `bao serve --db postgresql://...`
processes sharing a throwaway PostgreSQL (tests/bao_testkit/pgrig.py), South's client on the first and
North's on the second, so every move crosses from one process to the other (LISTEN/NOTIFY). Measured: a
move's POST sent -> the opponent's stream shows it (p50, p99, max), the server's CPU per move and memory per
game (resident set while every game is on, less before the games, summed over the processes), and that
nothing was lost or doubled (every game's moves on the server are the transcript's, every client saw each
ply once and in order). Writes the "Online play" section of docs/benchmarks.md (`make bench`; alone:
`python tools/bench_online.py [--games 500] [--think 2] [--db both|sqlite|postgresql] [--no-write]`;
bounded: --timeout seconds a run).

The clients are asyncio tasks in this process speaking HTTP/1.1 on plain asyncio streams: a general HTTP
client costs more CPU per move than the server does (the first version of this benchmark, with httpx and
no thinking time, measured its own client: every game always had a move in flight, so a move waited for
all the others queued in the one client process)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import notation
from bao_testkit import pgrig
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
PLIES = [
    notation.format_move(notation.parse_move(p, t)[0], p.to_move)  # as the server writes them
    for p, t in zip(notation.replay(T1994), T1994.plies)
]
PREFIX = "/online/v1"


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Http:
    """One keep-alive HTTP/1.1 connection to the server (requests one at a time)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.r: asyncio.StreamReader | None = None
        self.w: asyncio.StreamWriter | None = None

    async def open(self) -> Http:
        self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def head(self, method: str, path: str, body: bytes = b"", token: str = "") -> tuple[int, dict[str, str]]:
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        kind = "Content-Type: application/json\r\n" if body else ""
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}{kind}Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        for _ in range(2):  # (the server closes a connection idle for a while: then once on a new one)
            assert self.r is not None and self.w is not None
            try:
                self.w.write(request)
                if first := await self.r.readline():
                    break
            except ConnectionError:
                pass
            self.close()
            await self.open()
        status = int(first.split()[1])
        headers = {}
        while (line := await self.r.readline()) not in (b"\r\n", b""):
            k, _, v = line.decode().partition(":")
            headers[k.strip().lower()] = v.strip()
        return status, headers

    async def call(self, method: str, path: str, obj: dict[str, Any] | None = None, token: str = "") -> Any:
        status, headers = await self.head(method, path, json.dumps(obj).encode() if obj is not None else b"", token)
        assert self.r is not None
        data = await self.r.readexactly(int(headers.get("content-length", "0")))
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return json.loads(data)

    def close(self) -> None:
        if self.w is not None:
            self.w.close()


@dataclass
class Run:
    think: float
    rng: random.Random
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    late: list[float] = field(default_factory=list)
    seen: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (game, side) -> plies shown, in order


async def seated(port: int, game: str) -> tuple[Http, Http]:
    """A client's two connections: for its moves, and its event stream (open: the server follows it)."""
    moves = await Http(port).open()
    stream = await Http(port).open()
    await stream.head("GET", f"{PREFIX}/games/{game}/events")
    return moves, stream


async def player(run: Run, conns: tuple[Http, Http], game: str, side: str, token: str, go: asyncio.Event) -> None:
    moves, stream = conns
    seen = run.seen.setdefault((game, side), [])

    async def post(ply: int) -> None:
        await asyncio.sleep(run.think * (0.5 + run.rng.random()))
        run.sent[(game, ply)] = time.perf_counter()
        await moves.call("POST", f"{PREFIX}/games/{game}/move", {"ply": ply, "move": PLIES[ply - 1]}, token)

    try:
        await go.wait()
        if side == "S":
            await post(1)
        assert stream.r is not None
        while line := await stream.r.readline():  # (chunk sizes between the events' lines: skipped)
            if not line.startswith(b"data: ") or b'"side"' not in line:
                continue
            d: dict[str, Any] = json.loads(line[6:])
            ply = int(d["ply"])
            seen.append(ply)
            if d["side"] != side:
                run.late.append(time.perf_counter() - run.sent[(game, ply)])
            if ply >= len(PLIES):
                return
            if (ply % 2 == 0) == (side == "S"):  # the next ply is this side's (South plays the odd ones)
                await post(ply + 1)
    finally:
        moves.close()
        stream.close()


async def play(ports: list[int], pids: list[int], games: int, think: float) -> dict[str, Any]:
    """The games, South's client on the first server, North's on the last; figures and what went wrong."""
    run = Run(think, random.Random(1994))
    made = await Http(ports[0]).open()
    joined = await Http(ports[-1]).open()
    before = [rss_kb(p) for p in pids]
    seats = []
    for _ in range(games):
        m = await made.call("POST", f"{PREFIX}/games", {"ruleset": "zanzibar", "name": "S"})
        j = await joined.call("POST", f"{PREFIX}/join", {"invite": m["invite"], "name": "N"})
        seats.append((m["game"], m["token"], j["token"]))
    go = asyncio.Event()
    tasks = []
    for game, s_token, n_token in seats:  # (connections opened one after another: a burst overflows the backlog)
        for side, token, port in (("S", s_token, ports[0]), ("N", n_token, ports[-1])):
            conns = await seated(port, game)
            tasks.append(asyncio.create_task(player(run, conns, game, side, token, go)))
    cpu0, t0 = sum(cpu_s(p) for p in pids), time.perf_counter()
    go.set()
    peak = 0
    pending = set(tasks)
    while pending:  # (the servers' memory looked at while the games go on)
        done, pending = await asyncio.wait(pending, timeout=1.0)
        for t in done:
            t.result()
        if len(run.late) < len(PLIES) * games // 2:
            peak = max(peak, sum(rss_kb(p) for p in pids) - sum(before))
    took, cpu = time.perf_counter() - t0, sum(cpu_s(p) for p in pids) - cpu0
    lost = 0
    for game, _, _ in seats:
        state = await made.call("GET", f"{PREFIX}/games/{game}")
        if state["moves"] != PLIES or any(run.seen[(game, s)] != list(range(1, len(PLIES) + 1)) for s in "SN"):
            lost += 1
    made.close()
    joined.close()
    return {"late": sorted(x * 1000 for x in run.late), "took": took, "cpu": cpu, "kb": peak / games, "lost": lost}


def measure(label: str, servers: list[pgrig.Serve], games: int, think: float, timeout: float) -> list[str]:
    for s in servers:
        s.start()
    try:
        r = asyncio.run(
            asyncio.wait_for(play([s.port for s in servers], [s.pid for s in servers], games, think), timeout)
        )
    finally:
        for s in servers:
            s.stop()
    ms = r["late"]
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{label}: p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, lost {r['lost']}", flush=True)
    return [
        label,
        str(games),
        str(len(ms)),
        f"{statistics.median(ms):.1f}",
        f"{p99:.1f}",
        f"{ms[-1]:.1f}",
        f"{len(ms) / r['took']:.0f}",
        f"{r['cpu'] * 1000 / len(ms):.2f}",
        f"{r['kb']:.0f}",
        str(r["lost"]),
        Path("/proc/loadavg").read_text().split()[0],
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="a client's thinking time before its move, seconds on average (default 2)",
    )
    ap.add_argument("--db", choices=("both", "sqlite", "postgresql"), default="both")
    ap.add_argument("--timeout", type=float, default=900.0, help="each run's bound, seconds")
    ap.add_argument(
        "--no-write",
        action="store_true",
        help='print only (default: also write the "Online play" section of docs/benchmarks.md)',
    )
    args = ap.parse_args()
    t = Table(
        [
            "server",
            "games at once",
            "moves",
            "p50 ms",
            "p99 ms",
            "max ms",
            "moves/s",
            "server CPU ms/move",
            "server KB/game",
            "lost or doubled",
            "load average",
        ]
    )
    with tempfile.TemporaryDirectory(prefix="bao-bench-online-") as tmp:
        if args.db in ("both", "sqlite"):
            t.add(
                *measure(
                    "SQLite, 1 process",
                    [pgrig.Serve(pgrig.free_port(), Path(tmp) / "sqlite")],
                    args.games,
                    args.think,
                    args.timeout,
                )
            )
        why = pgrig.pg_missing()
        if args.db in ("both", "postgresql") and why is not None:
            print(f"PostgreSQL run left out: {why}")
        elif args.db in ("both", "postgresql"):
            with pgrig.cluster() as pg:
                url = pg.database("bench")
                servers = [pgrig.Serve(pgrig.free_port(), Path(tmp) / "pg", db=url) for _ in range(2)]
                t.add(*measure("PostgreSQL, 2 processes", servers, args.games, args.think, args.timeout))
    body = (
        f"`python tools/bench_online.py --games {args.games} --think {args.think:g} --db {args.db}` on"
        f" {platform.machine()} ({os.cpu_count()} cores, shared), Python {platform.python_version()},"
        f" {time.strftime('%Y-%m-%d')}: a move's POST sent -> the opponent's event stream shows it, each"
        f" client thinking {args.think:g} s on average before its move; the servers' CPU time per move and"
        " memory per game (all processes); lost or doubled: games whose moves on the server, or on a client's"
        " stream, are not the transcript's once and in order. The load average is the machine's at the end of"
        " each run (other work on it lengthens every figure but the CPU time).\n\n" + t.render()
    )
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Online play", body)
    return 0 if all(r[9] == "0" for r in t.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
