"""Web board benchmark: the time from the logger storing a board's event to a page showing it, for every move
of the 1994 game played on `bao serve`'s simulated board. Writes the "Web board" section of
docs/benchmarks.md (`make bench`; alone: `python tools/bench_web.py [--no-write]`).

The server is `bao serve`'s application under uvicorn on the loopback (tests/bao_testkit/webrig.py), the board the
simulated one (`make run`'s runtime) played by simulated hands in real time. "Stored" is the moment the
logger's session reports the event stored (SQLite committed, files fsynced, before the acknowledgement);
the server's loop then publishes the board's new state to every page by server-sent events. Two readers:
a headless Chromium on the spectator page (Debian's chromium through Playwright: the time its script has
drawn the new state, Date.now()) and a plain event-stream client (httpx: the time the event is parsed). Both
clocks are this machine's wall clock. The issue's budget is 100 ms."""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
from bao import notation
from bao_host.record.state import DECISION
from bao_testkit.webrig import browser_unavailable, chromium_path, serving, wait_for
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]

BUDGET_MS = 100.0


def _stream(url: str, out: list[tuple[int, float]], stop: threading.Event) -> None:
    """(event number, seconds late) for each stored event the stream shows (events stored within one loop
    tick arrive in one snapshot: the newest counts)."""
    last = -1
    with httpx.stream("GET", url, timeout=60) as r:
        for line in r.iter_lines():
            if stop.is_set():
                return
            if line.startswith("data: "):
                s = json.loads(line[6:])
                if s["stored"] and s["stored_seq"] != last:
                    if last != -1:
                        out.append((int(s["stored_seq"]), time.time() - float(s["stored"])))
                    last = s["stored_seq"]


def measure(plies: int) -> tuple[list[float], list[float], str]:
    t = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
    positions = notation.replay(t)
    plies = min(plies, len(t.plies))
    why_not = browser_unavailable()
    browser_ms: list[float] = []
    stream_s: list[tuple[int, float]] = []
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as d, serving(Path(d) / "data") as web:
        reader = threading.Thread(target=_stream, args=(web.url + "/board/sim-1/events", stream_s, stop), daemon=True)
        reader.start()
        pw = page = browser = None
        if not why_not:
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True)
            page = browser.new_page()
            page.goto(web.url + "/board/sim-1/watch")
            page.wait_for_selector("#board[data-version]")
            page.evaluate("() => { window.baoLatencies.length = 0; }")
        runner = web.board().runner

        def stored() -> int:
            return len(web.server.hub.boards["sim-1"].logger.view.plies)

        try:
            for i in range(plies):
                move, _ = notation.parse_move(positions[i], t.plies[i])
                assert runner.perform(positions[i], move).wait(60)
                # (a move that ends at the house decision, 2.5b, is stored when the opponent's next touch
                # says "stop": with the next move)
                wait_for(
                    lambda n=i + 1: stored() == n or (runner.phase == DECISION and stored() == n - 1),
                    f"ply {i + 1} stored",
                    60,
                )
                if page is not None:
                    page.wait_for_function(
                        "(n) => document.getElementById('moves').innerText.split(/\\s+/).filter(Boolean).length >= n",
                        arg=stored(),
                        timeout=60000,
                    )
            live = web.server.hub.boards["sim-1"]
            wait_for(lambda: stream_s and stream_s[-1][0] == live.stored_seq, "the stream client's last event", 30)
            if page is not None:
                got: list[dict[str, Any]] = page.evaluate("window.baoLatencies")
                browser_ms = [1000 * float(x["seconds"]) for x in got]
        finally:
            stop.set()
            if browser is not None:
                browser.close()
            if pw is not None:
                pw.stop()
    return browser_ms, [1000 * late for _, late in stream_s], why_not


def _row(table: Table, what: str, ms: list[float]) -> None:
    if not ms:
        table.add(what, "0", "-", "-", "-", "-")
        return
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    within = sum(1 for m in ms if m <= BUDGET_MS)
    table.add(what, str(len(ms)), f"{statistics.median(ms):.1f}", f"{p95:.1f}", f"{ms[-1]:.1f}", f"{within}/{len(ms)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--plies", type=int, default=52, help="moves of the 1994 game to play (default: all 52)")
    ap.add_argument("--no-write", action="store_true", help="print the table, do not write docs/benchmarks.md")
    args = ap.parse_args()
    browser_ms, stream_ms, why_not = measure(args.plies)
    table = Table(["reader", "events", "median ms", "95th pct ms", "worst ms", f"within {BUDGET_MS:.0f} ms"])
    _row(table, "headless Chromium, spectator page (drawn)", browser_ms)
    _row(table, "event-stream client (httpx)", stream_ms)
    body = (
        "From the logger storing a board's event (a move of the 1994 game on `bao serve`'s simulated board) "
        "to a page showing it, over server-sent events on the loopback (`python tools/bench_web.py`, "
        f"{platform.machine()}, Python {platform.python_version()}, a shared 2-core machine; "
        "the budget of issue #11 is 100 ms):\n\n" + table.render() + "\n"
    )
    if why_not:
        body += f"\n{why_not}.\n"
    print(table.render())
    if why_not:
        print(why_not)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Web board", body)
    return 0 if browser_ms or stream_ms else 1


if __name__ == "__main__":
    sys.exit(main())
