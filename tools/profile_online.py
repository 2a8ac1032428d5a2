"""Where a move's time goes on the online server (issue #27; docs/benchmarks.md, "Online play: where a move's
time went"). One `bao serve` (SQLite, or PostgreSQL with --db) runs in a process of its own with timers
wrapped around its parts, and tools/bench_online.py's scripted clients play paced games against it; at the end
the server writes, for every move, the time of each part, and this prints their p50, p99 and max:

    request   the move's handler, from its start to its answer (the parts below but the stream's)
    body      reading and checking the request's JSON
    parse     the rules core reading the move in its position
    queued    from the move handed to the commit to the commit's transaction starting
    commit    the transaction (INSERT, COMMIT: the fsync) on the commit thread
    back      from the commit's end to the handler running again (the hand-off back to the loop)
    broadcast putting the move event on every follower's queue
    to stream from the event on a queue to its text made for the follower's stream (the loop's turn)
    loop lag  how late a 20 ms timer on the server's loop fires (every 20 ms during the games)
    gc0..gc2  each collection's pause (gc.callbacks), by the generation it collected

    python tools/profile_online.py [--games 200] [--think 2] [--db pg | postgresql://...]

Only a measurement: nothing here changes the server (the wrappers time the functions they call)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

PARTS = (
    "request",
    "body",
    "parse",
    "queued",
    "commit",
    "back",
    "broadcast",
    "to stream",
    "loop lag",
    "gc0",
    "gc1",
    "gc2",
)


class Timers:
    """Timers around the server's parts, installed in the server's process; written to `out` when it stops."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.t: dict[str, list[float]] = {k: [] for k in PARTS}
        self.commit_at: dict[int, tuple[float, float]] = {}  # hash((game, ply)) -> (commit start, commit end)
        self.put_at: dict[int, float] = {}  # id(a move event) -> when it went on the followers' queues

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.t[name].append(time.perf_counter() - t0)

        return run

    def atimed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        async def run(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await fn(*a, **k)
            finally:
                self.t[name].append(time.perf_counter() - t0)

        return run

    def install(self) -> None:
        from bao_host.online import server

        online = server.Online
        online.move = self.atimed("request", online.move)  # type: ignore[method-assign]
        online._body = self.atimed("body", online._body)  # type: ignore[method-assign]
        online._parsed = staticmethod(self.timed("parse", online._parsed))  # type: ignore[method-assign]
        self._commits()
        self._stream()
        self._loop()

    def _commits(self) -> None:
        from bao_host.online import server, store

        add_moves, commit, t = store.GameStore.add_moves, server.Online._commit, self.t

        def add_moves_timed(st: Any, rows: list[Any]) -> list[bool]:
            t0 = time.perf_counter()
            try:
                return add_moves(st, rows)  # type: ignore[no-any-return]
            finally:
                t1 = time.perf_counter()
                t["commit"].append(t1 - t0)
                for r in rows:
                    self.commit_at[hash((r[0], r[1]))] = (t0, t1)

        def commit_timed(online: Any, row: tuple[Any, ...], *more: Any) -> asyncio.Future[None]:
            t0 = time.perf_counter()
            fut: asyncio.Future[None] = commit(online, row, *more)
            key = hash((row[0], row[1]))

            def done(_: object) -> None:
                c = self.commit_at.pop(key, None)
                if c is not None:
                    t["queued"].append(c[0] - t0)
                    t["back"].append(time.perf_counter() - c[1])

            fut.add_done_callback(done)
            return fut

        store.GameStore.add_moves = add_moves_timed  # type: ignore[method-assign]
        server.Online._commit = commit_timed  # type: ignore[method-assign]

    def _stream(self) -> None:
        from bao_host.online import server

        broadcast, sse = self.timed("broadcast", server.Online._broadcast), server._sse

        def broadcast_marked(online: Any, g: Any, kind: str, eid: str, data: dict[str, Any]) -> None:
            if kind == "move":
                self.put_at[id(data)] = time.perf_counter()
            broadcast(online, g, kind, eid, data)

        def sse_timed(kind: str, eid: str, data: dict[str, Any]) -> str:
            t0 = self.put_at.get(id(data))
            if t0 is not None:
                self.t["to stream"].append(time.perf_counter() - t0)
                if len(self.put_at) > 10000:
                    self.put_at.clear()
            return str(sse(kind, eid, data))

        server.Online._broadcast = broadcast_marked  # type: ignore[method-assign]
        server._sse = sse_timed

    def _loop(self) -> None:
        from bao_host.online import server

        start, close, t, gc_at = server.Online.start, server.Online.close, self.t, [0.0]

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                gc_at[0] = time.perf_counter()
            else:
                t[f"gc{info['generation']}"].append(time.perf_counter() - gc_at[0])

        async def lag() -> None:
            while True:
                t0 = time.perf_counter()
                await asyncio.sleep(0.02)
                t["loop lag"].append(time.perf_counter() - t0 - 0.02)

        def start_with_lag(online: Any) -> None:
            start(online)
            online.lag_task = asyncio.get_running_loop().create_task(lag())

        def close_and_write(online: Any) -> None:
            close(online)
            self.out.write_text(json.dumps(t))

        gc.callbacks.append(on_gc)
        server.Online.start = start_with_lag  # type: ignore[method-assign]
        server.Online.close = close_and_write  # type: ignore[method-assign]


def serve(args: list[str], out: Path) -> int:
    Timers(out).install()
    from bao_host.cli import main

    return int(main(["serve", *args]) or 0)


def _summary(t: dict[str, list[float]]) -> str:
    lines = [f"{'part':<10} {'n':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'sum s':>7}"]
    for k in PARTS:
        v = sorted(x * 1000 for x in t.get(k, []))
        if not v:
            continue
        p99 = v[min(len(v) - 1, int(len(v) * 0.99))]
        lines.append(
            f"{k:<10} {len(v):>7} {statistics.median(v):>8.2f} {p99:>8.2f} {v[-1]:>8.1f} {sum(v) / 1000:>7.2f}"
        )
    return "\n".join(lines)


def _profile(args: argparse.Namespace, db: str | None) -> None:
    import bench_online
    from bao_testkit import pgrig

    with tempfile.TemporaryDirectory(prefix="bao-profile-online-") as tmp:
        out, log = Path(tmp) / "timers.json", Path(tmp) / "serve.log"
        port = pgrig.free_port()
        cmd = [sys.executable, __file__, "--serve-with-timers", str(out), "--sim", "0", "--port", str(port)]
        cmd += ["--data", str(Path(tmp) / "data"), "--online-rate", "100000"]
        if db:
            cmd += ["--db", db]
        with log.open("w") as said:
            proc = subprocess.Popen(
                cmd, stdout=said, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT / "tests")}
            )
        try:
            end = time.monotonic() + 60
            while "Ctrl-C to stop" not in log.read_text():
                assert time.monotonic() < end and proc.poll() is None, log.read_text()
                time.sleep(0.05)
            time.sleep(0.5)
            r = asyncio.run(
                asyncio.wait_for(bench_online.play([port], [proc.pid], args.games, args.think), args.timeout)
            )
        finally:
            proc.send_signal(2)
            proc.wait(60)
        ms = r["late"]
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        load = Path("/proc/loadavg").read_text().split()[:3]
        print(
            f"{args.games} games, thinking {args.think:g} s, {'PostgreSQL' if db else 'SQLite'}: a move sent ->"
            f" the opponent's stream: p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms;"
            f" {len(ms) / r['took']:.0f} moves/s; server CPU {r['cpu'] * 1000 / len(ms):.2f} ms/move; lost or doubled"
            f" {r['lost']}; load average {' '.join(load)}"
        )
        print(_summary(json.loads(out.read_text())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--think", type=float, default=2.0)
    ap.add_argument(
        "--db",
        default=None,
        help="pg: a throwaway PostgreSQL (tests/bao_testkit/pgrig.py), or a postgresql:// address (default: SQLite)",
    )
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--serve-with-timers", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_with_timers is not None:  # (the server's process)
        out, rest = Path(args.serve_with_timers[0]), args.serve_with_timers[1:]
        return serve(rest, out)
    if args.db != "pg":
        _profile(args, args.db)
        return 0
    from bao_testkit import pgrig

    with pgrig.cluster() as pg:
        _profile(args, pg.database("profile"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
