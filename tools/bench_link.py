"""Link benchmark (issues #14, #26): goodput against the byte error rate. A backlog of 50 MOVE events (the 1994
game's, 263-267 bytes a frame) waits on the board; a host connects and drains it: the time from the host
opening the port to the board holding no pending event, for each rate of damaged bytes (each byte, both
directions, one bit flipped with that probability: tests/bao_testkit/faultproxy.py's damage()). Writes the "Link"
section of docs/benchmarks.md (`make bench`; alone: `python tools/bench_link.py [--seeds N] [--no-write]`).

Everything runs in simulated time (tests/bao_testkit/simline.py): the firmware's Outbox and Journal on an in-memory
flash scanned every millisecond, the host's bao_host.record.link.Link over a simulated 115200-baud line (8N1, 1 ms
latency each way, the board reading at most 64 bytes a scan), the host taking 10 ms to store each event
before acknowledging it. The figures depend on the protocol and the seeds only, not on the machine."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bao_host.record.link import QUIET
from bao_testkit.simline import SimLine
from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parents[1]

RATES = (0.0, 0.0005, 0.001, 0.002, 0.0035, 0.005, 0.007, 0.01)
EVENTS = 50
STORE_MS = 10.0


LIMIT_S = 3600.0  # simulated seconds a drain may take


def check(rate: float, seed: int, got: list[bytes], want: list[bytes], pending: int, took_s: float) -> None:
    """SystemExit with what went wrong: the drain timed out (events still pending after LIMIT_S), or the
    events that arrived are not the backlog in order."""
    if got != want[: len(got)]:
        raise SystemExit(
            f"rate {rate} seed {seed}: the events did not arrive in order (event {len(got)} of {len(want)} differs)"
        )
    if len(got) < len(want) or pending:
        raise SystemExit(
            f"rate {rate} seed {seed}: timeout: {len(got)} of {len(want)} events arrived and "
            f"{pending} were still pending after {took_s:.0f} s of simulated time"
        )


def one(rate: float, seed: int, proto: int = 3) -> dict[str, float]:
    """One drain; proto: the host's protocol version (an older host talks to this board: 2 sends NAKs for
    events that come out of order only, 1 none)."""
    sim = SimLine(error_rate=rate, seed=seed)
    want = sim.post_backlog(EVENTS)
    ob = sim.outbox
    timeouts, naks, sent = ob.timeouts, ob.naks, sim.up.sent
    link = sim.link(proto=proto, quiet=QUIET if proto >= 3 else None)  # (nor does an older host ask for
    # what it lacks when the line goes quiet)
    t0 = sim.now
    got = sim.drain(link, EVENTS, store_ms=STORE_MS, limit_s=LIMIT_S)
    check(rate, seed, [e.payload.encode() for e in got], want, ob.journal.npending, (sim.now - t0) / 1000)
    return {
        "s": (sim.now - t0) / 1000,
        "timeouts": ob.timeouts - timeouts,
        "naks": ob.naks - naks,
        "bytes": (sim.up.sent - sent) / EVENTS,
    }


def older(rate: float, seed: int, proto: int) -> float:
    """The drain's seconds with a host of an older protocol; inf when it did not end within LIMIT_S."""
    try:
        return one(rate, seed, proto)["s"]
    except SystemExit as e:
        if "timeout" not in str(e):
            raise
        return float("inf")


def secs(values: list[float]) -> tuple[str, str]:
    """Median and worst, as the table writes them."""
    med, worst = statistics.median(values), max(values)
    return tuple(f"{v:.2f} s" if v < float("inf") else f"over {LIMIT_S:.0f} s" for v in (med, worst))  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="runs per rate (default 20)")
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)
    t_start = time.monotonic()
    tab = Table(
        [
            "damaged bytes",
            "MOVE frames damaged",
            "drain: median",
            "worst",
            "goodput (median)",
            "bytes sent / event",
            "NAKs acted on",
            "timer expiries",
            "protocol 2 host: median",
            "worst",
            "protocol 1 host: median",
            "worst",
        ]
    )
    seeds = range(1, args.seeds + 1)
    for rate in RATES:
        runs = [one(rate, seed) for seed in seeds]
        med = statistics.median(r["s"] for r in runs)
        tab.add(
            f"{rate * 100:.2f} %",
            f"{(1 - (1 - rate) ** 265) * 100:.0f} %",
            *secs([r["s"] for r in runs]),
            f"{EVENTS / med:.1f} events/s",
            f"{statistics.median(r['bytes'] for r in runs):.0f}",
            f"{statistics.median(r['naks'] for r in runs):.0f}",
            f"{statistics.median(r['timeouts'] for r in runs):.0f}",
            *secs([older(rate, seed, 2) for seed in seeds]),
            *secs([older(rate, seed, 1) for seed in seeds]),
        )
        print(tab.rows[-1], flush=True)
    text = tab.render()
    print(text)
    note = (
        f"`python tools/bench_link.py --seeds {args.seeds}` (run by `make bench`), {time.strftime('%Y-%m-%d')}: "
        f"{args.seeds} seeds a rate; drain = from the host opening the port (handshake included) to the board "
        f"holding no pending event, {EVENTS} events of 263-267 bytes, simulated time (bao_testkit/simline.py: "
        "115200 baud 8N1, 1 ms latency each way, the host storing an event in 10 ms), so the figures do not "
        "depend on the machine. Damaged bytes hit both directions (acks and NAKs too). Targets (issue #14): "
        "under 5 s clean, under 30 s at 0.35 %. Before protocol 2 a clean line drained 8 events a second "
        "(50 in about 6 s) and at 0.35 % 47 of 53 events arrived in 4 minutes (the soak of issue #14); before "
        "protocol 3 (issue #26: damaged events reported at once, only what is missing sent again) 10.54 s "
        "median at 0.35 % and 221.49 s at 1 %. 'Protocol 2 host', 'protocol 1 host': this board with a host "
        "of that version (`Link(proto=...)`, no quiet-line NAK; version 1 sends no NAK at all). "
        f"The bench took {time.monotonic() - t_start:.0f} s of real time.\n"
    )
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Link", text + "\n\n" + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
