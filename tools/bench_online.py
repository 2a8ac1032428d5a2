"""Online play benchmark (issue #27, docs/online.md): many games at once on one `bao serve` (SQLite), played by
scripted clients on the loopback. Each game is the 1994 game's 52 moves between two clients, each with its
own event stream; a client posts its move as soon as its stream shows the opponent's. Measured: a move's
POST sent -> the opponent's stream shows it (p50, p99, max: the server's check by the rules core, its
SQLite commit with synchronous=FULL, the fan-out), the server's memory per game (its resident set before the
games and after them, divided), and that nothing was lost (every game's moves on the server are the
transcript's). Writes the "Online play" section of docs/benchmarks.md (`make bench`; alone: `python
tools/bench_online.py --games 100 [--no-write]`; bounded: --timeout seconds).

The server is its own process (`bao serve --sim 0`, --online-rate raised: every client here is one
loopback address); the clients are asyncio tasks in this process (httpx2, the web tests' client)."""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from bao import notation  # noqa: E402
from bench_common import Table, replace_section  # noqa: E402

T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
PLIES = [notation.format_move(notation.parse_move(p, t)[0], p.to_move)  # as the server writes them
         for p, t in zip(notation.replay(T1994), T1994.plies)]
PREFIX = "/online/v1"


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system), seconds."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def player(c: httpx.AsyncClient, game: str, side: str, token: str, sent: dict[tuple[str, int], float],
                 late: list[float], ready: asyncio.Event, go: asyncio.Event) -> None:
    async def post(ply: int) -> None:
        sent[(game, ply)] = time.perf_counter()
        r = await c.post(f"{PREFIX}/games/{game}/move", json={"ply": ply, "move": PLIES[ply - 1]},
                         headers={"Authorization": "Bearer " + token})
        if r.status_code != 200:
            raise RuntimeError(f"ply {ply} of {game}: {r.status_code} {r.text}")

    async with c.stream("GET", f"{PREFIX}/games/{game}/events") as r:
        ready.set()
        if side == "S":
            await go.wait()
            await post(1)
        async for line in r.aiter_lines():
            if not line.startswith("data: ") or '"side"' not in line:
                continue
            d: dict[str, Any] = json.loads(line[6:])
            ply = int(d["ply"])
            if d["side"] != side:
                late.append(time.perf_counter() - sent[(game, ply)])
            if ply >= len(PLIES):
                return
            if (ply % 2 == 0) == (side == "S"):  # the next ply is this side's (South plays the odd ones)
                await post(ply + 1)


async def run(base: str, games: int) -> tuple[list[float], list[str], float]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as c:
        seats = []
        for _ in range(games):
            made = (await c.post(f"{PREFIX}/games", json={"ruleset": "zanzibar", "name": "S"})).json()
            joined = (await c.post(f"{PREFIX}/join", json={"invite": made["invite"], "name": "N"})).json()
            seats.append((made["game"], made["token"], joined["token"]))
        sent: dict[tuple[str, int], float] = {}
        late: list[float] = []
        go = asyncio.Event()
        tasks, readies = [], []
        for game, s_token, n_token in seats:
            for side, token in (("S", s_token), ("N", n_token)):
                ready = asyncio.Event()
                readies.append(ready)
                tasks.append(asyncio.create_task(player(c, game, side, token, sent, late, ready, go)))
        await asyncio.gather(*(e.wait() for e in readies))
        t0 = time.perf_counter()
        go.set()
        await asyncio.gather(*tasks)
        took = time.perf_counter() - t0
        ids = [g for g, _, _ in seats]
        lost = []
        for g in ids:
            moves = (await c.get(f"{PREFIX}/games/{g}")).json()["moves"]
            if moves != PLIES:
                lost.append(g)
        return late, lost, took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=600.0, help="the whole run's bound, seconds")
    ap.add_argument("--no-write", action="store_true", help="print only (default: also write the \"Online play\" "
                    "section of docs/benchmarks.md)")
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="bao-bench-online-") as tmp:
        server = subprocess.Popen([sys.executable, "-m", "bao_host.cli", "serve", "--sim", "0", "--port", str(port),
                                   "--data", tmp, "--online-rate", "100000"], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            for line in server.stdout:
                if "Ctrl-C to stop" in line:
                    break
            before, cpu0 = rss_kb(server.pid), cpu_s(server.pid)
            late, lost, took = asyncio.run(asyncio.wait_for(run(f"http://127.0.0.1:{port}", args.games),
                                                            args.timeout))
            after, cpu = rss_kb(server.pid), cpu_s(server.pid) - cpu0
        finally:
            server.terminate()
            server.wait(30)
    ms = sorted(x * 1000 for x in late)
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    t = Table(["games at once", "moves", "p50 ms", "p99 ms", "max ms", "moves/s", "server CPU ms/move",
               "server KB/game", "lost", "load average"])
    t.add(str(args.games), str(len(ms)), f"{p50:.1f}", f"{p99:.1f}", f"{ms[-1]:.1f}", f"{len(ms) / took:.0f}",
          f"{cpu * 1000 / len(ms):.1f}", f"{(after - before) / args.games:.0f}", str(len(lost)),
          Path("/proc/loadavg").read_text().split()[0])
    body = (f"`python tools/bench_online.py --games {args.games}` on {platform.machine()}, {platform.python_version()},"
            f" {time.strftime('%Y-%m-%d')}"
            " (one SQLite server process, the scripted clients in another, loopback): a move's POST sent -> the"
            " opponent's event stream shows it; the server's CPU time per move; its memory per game. The load"
            " average is the machine's at the end (other work on it lengthens every figure but the CPU time)."
            "\n\n" + t.render())
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Online play", body)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
