"""The board on the emulated Pico (tools/pico: the real RP2040 MicroPython in rp2040js, 125 MHz, the board's
chips on its pins, flash writes taking the datasheet's typical times), in Pico time. Run by `make bench`;
writes the "Emulated Pico" section of docs/benchmarks.md.

    python tools/bench_pico.py [--quick] [--board-only] [--rules-only] [--positions FILE] [--slowest N]

1. `bao sim --runtime pico`'s board (firmware as `make deploy` leaves it, main.py included) plays the 1994
   game through the pins: boot to HELLO, the scan loop's period (between two latches of the 74HC165s),
   pit activation to LED frame latched by the SK9822 chain, flash use.
2. Code run over the Pico's raw REPL: the board application's step times with its journal where main.py
   puts it, on flash sectors of its own (tools/pico/onpico/board_steps.py; baoboard.flashres), the lowest
   gc.mem_free() in a game, and the rules core
   (tools/bench_rules_mp.py: listing moves with their accounts, the slowest positions known, perft)."""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "host"))

from bench_common import Table, replace_section  # noqa: E402

PICO_RUN = ROOT / "tools" / "pico" / "pico-run.mjs"


def ms(x: float) -> str:
    return f"{x:.1f} ms"


def run_on_pico(*args: str, code: str) -> tuple[str, str]:
    cmd = ["node", str(PICO_RUN), "--stats", "--timeout", "3600", "--dir", str(ROOT / "build" / "firmware"),
           "--exclude", "main.py", *args, "-c", code]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"pico-run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout, proc.stderr


def keyvals(out: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def board_game() -> dict[str, object]:
    from bao import core
    from bao_host.boards.pico import PicoBoard
    from baoboard.recogniser import activations
    from simrig import game_1994

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        board = PicoBoard(tmp, latches=True)
        boot = board.hello_ms
        board.stats()  # (resets the scan statistics: the boot is not the scan loop)
        board.keep_frames = True
        touch: list[float] = []  # latency of each activation inside a move
        last: list[float] = []  # of the activation that completes a move
        scans: list[float] = []  # of a touch inside a move: to the last sensor read before its frame
        step: list[float] = []  # and from that read to the frame
        g = game_1994()
        for p, m in g.moves:
            acts = list(activations(p, m))
            for i, pit in enumerate(acts):
                board.frames.clear()
                board.latches.clear()
                t = board.pico_ms
                board.set_pit(pit, True)
                board.run(10, 5)
                board.set_pit(pit, False)
                board.run(10, 5)
                if i == len(acts) - 1:
                    board.run(120, 5)  # the players' pause after a move: the frame may come late
                if board.frames:
                    f = board.frames[0][0]
                    (last if i == len(acts) - 1 else touch).append(f - t)
                    read = max((x for x in board.latches if x < f), default=t)
                    if i < len(acts) - 1:
                        scans.append(read - t)
                        step.append(f - read)
        st = board.stats()
        moves = sum(1 for v in board.events.values() if v[0] == "MOVE")
        final_ok = board.position.d == g.final.d if g.final else False
        wall = time.monotonic() - t0
        board.close()
    assert moves == 52 and final_ok, f"the emulated board reported {moves} moves"
    return {"boot": boot, "touch": touch, "last": last, "scans": scans, "step": step, "stats": st, "wall": wall,
            "moves": moves,
            "ruleset": core.ZANZIBAR}


def board_table(g: dict[str, object]) -> Table:
    """The board's rows of a game played through the pins (board_game())."""
    st = g["stats"]
    assert isinstance(st, dict)
    scan = st["scan"]
    touch, last, scans, step = g["touch"], g["last"], g["scans"], g["step"]
    assert isinstance(touch, list) and isinstance(last, list) and isinstance(scans, list) and isinstance(step, list)
    board = Table(["the board (1994 game, 52 moves, through the pins)", "median", "p99", "worst", "target"])
    board.add("boot (power on) to HELLO", ms(float(g["boot"])), "", "", "")  # type: ignore[arg-type]
    board.add("scan loop period (74HC165 latch to latch)", ms(scan["medianMs"]), ms(scan["p99Ms"]),
              ms(scan["maxMs"]), "")
    board.add(f"pit touched -> LED frame latched, inside a move ({len(touch)})", ms(statistics.median(touch)),
              ms(pct(touch, 0.99)), ms(max(touch)), "median < 10 ms, worst < 30 ms")
    board.add("... touch -> the sensor read that confirms it (3 agreeing scans)", ms(statistics.median(scans)),
              ms(pct(scans, 0.99)), ms(max(scans)), "")
    board.add("... that read -> LED frame latched (the step: recogniser, guide, LEDs)", ms(statistics.median(step)),
              ms(pct(step, 0.99)), ms(max(step)), "")
    board.add(f"the touch that completes a move -> LED frame ({len(last)})", ms(statistics.median(last)),
              ms(pct(last, 0.99)), ms(max(last)), "worst < 50 ms")
    return board


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


RULES_NOTE = (
    "The rules core's rows (`python tools/bench_pico.py --rules-only` prints them alone, in about 25 minutes "
    "of wall time on a shared machine): \"list all legal moves with their accounts\" is "
    "`core.legal_moves(p, True)`: every legal move with its child position and its account, each candidate "
    "played once with its account recorded (4 bytes a step into one scratch bytearray, copied once per move; "
    "no object per step), best of 3 with a collection before each. The board does less, in two steps (the "
    "next two rows): the legal move codes in the step that completes a move, then, when a start pit is "
    "lifted, the sequences of that pit's candidates only (`baoboard.recogniser`, from their accounts taken "
    "relay by relay); its worst lift is the advanced game's first placement drop, whose 48 candidates all "
    "start by lifting the same pit. The sowing's plain stretch (seeds, relays, captures and their steps of "
    "the account) runs in a native kernel (`bao.sowing._advance`, docs/rules.md \"Speed on the board\"): in "
    "bytecode, where a bytecode costs about 1 us and a bytearray read or write 3-6 us, a seed cost about 11 us "
    "and a relay 60 us more; the kernel does either in a few us, about 20 us a call. What is left is "
    "bytecode: a candidate costs about 0.3-0.4 ms before its first seed (its child position, the sowing "
    "generator, the calls: a Python function with more than 11 words of locals and stack allocates its frame "
    "on the heap at each call, and after a collection each allocation of more than 16 bytes searches the "
    "heap from its start), `_sow` about 60 us around each call of the kernel, and R8's takasia checks list "
    "both sides' captures after each mtaji takasa. The slowest random positions are now Zanzibar mtaji "
    "positions with 8-14 takasa candidates and Malawi captures from 2s everywhere (16 candidates). "
    "`python tools/bench_pico.py --slowest 40` times the 40 slowest of the random positions (ranked on the "
    "64-bit unix port) in about 10 s (`--among 20000`: of the first 20,000, the table's wider row); "
    "`--positions FILE` any positions. The slowest Malawi position's never-ending "
    "candidate sleeps at the bound (M4): it is played once with its account to the end of the relay that "
    "passed the bound, then once more without an account to twice that relay (docs/rules.md); its "
    "accounts row records every candidate's account into one bytearray (A4L*: 4,799 steps, 19 KB)."
)


WIDE_SLOWEST, WIDE_AMONG = 40, 20000  # the rules table's wider sample


def rules_table(quick: bool) -> Table:
    """The rules core on the Pico (tools/bench_rules_mp.py run there)."""
    n = "100" if quick else "1000"
    code_for = "exec(open('/bench_rules_mp.py').read(), {{'ARGV': ['b', '{}', '{}'], '__name__': 'bench'}})"
    extra = ["--dir", f"{ROOT / 'games'}:/games", "--dir", f"{ROOT / 'tools' / 'bench_rules_mp.py'}:/"]
    mv = keyvals(run_on_pico(*extra, code=code_for.format("moves", n))[0])
    slow = keyvals(run_on_pico(*extra, code=code_for.format("slow", "1"))[0])
    pf = keyvals(run_on_pico(*extra, code=code_for.format("perft", "6"))[0])
    rules = Table(["rules core on the Pico", "value", "target"])
    for key, what in (("game_", "the 1994 game"), ("random_", "random positions (mixed rulesets)")):
        rules.add(f"list all legal moves with their accounts, {what} ({mv[key + 'positions']})",
                  f"median {int(mv[key + 'median_us']) / 1000:.1f} ms, "
                  f"worst {int(mv[key + 'worst_us']) / 1000:.1f} ms",
                  "worst < 20 ms")
    rules.add(f"... both, {mv['positions']} positions", f"median {int(mv['median_us']) / 1000:.1f} ms, p99 "
              f"{int(mv['p99_us']) / 1000:.1f} ms, worst {int(mv['worst_us']) / 1000:.1f} ms", "worst < 20 ms")
    # The fixed sample's worst is one position: the slowest of a wider one, ranked on the unix port, say how
    # far the tail goes beyond it
    wide = positions_on_pico(slowest_positions(WIDE_SLOWEST, ROOT / "build" / "slowest-positions.txt", WIDE_AMONG))
    rules.add(f"... the {WIDE_SLOWEST} slowest of {WIDE_AMONG:,} random positions (ranked on the 64-bit unix port)",
              f"worst {max(wide) / 1000:.1f} ms, {sum(t > 20000 for t in wide)} over 20 ms", "worst < 20 ms")
    rules.add("the board at a move boundary, both sets: the legal move codes (in the step completing a move)",
              f"median {int(mv['board_codes_median_us']) / 1000:.1f} ms, "
              f"worst {int(mv['board_codes_worst_us']) / 1000:.1f} ms", "")
    rules.add("... then a start pit lifted: its candidates' sequences from their accounts (baoboard.recogniser)",
              f"median {int(mv['board_pit_median_us']) / 1000:.1f} ms, "
              f"worst {int(mv['board_pit_worst_us']) / 1000:.1f} ms", "")
    names = ("Malawi, A4L* repeats after 3.3 million relays", "Zanzibar INF_TAKASA, A6L* loops every 174,848")
    for i, name in enumerate(names):
        rules.add(f"slowest known: {name}: legal move codes (each move boundary)",
                  f"{int(slow[f'slow{i}_codes_us']) / 1e6:.2f} s", "well inside the 8.3 s watchdog")
        rules.add(f"slowest known: {name}: every candidate's account (as if each start were lifted)",
                  f"{int(slow[f'slow{i}_accounts_us']) / 1e6:.2f} s", "")
        rules.add(f"slowest known: {name}: the board's worst start pit lifted (its candidates' sequences)",
                  f"{int(slow[f'slow{i}_pit_us']) / 1e6:.2f} s", "well inside the 8.3 s watchdog")
    perft = pf["perft"].split()
    rules.add(f"perft(6) = {int(perft[1]):,}", f"{int(perft[2]) / 1e6:.1f} s "
              f"({int(perft[1]) * 1e6 / int(perft[2]):,.0f} leaves/s)", "")

    return rules


def slowest_positions(n: int, out: Path, among: int = 1000) -> Path:
    """The n slowest of the first `among` random positions (the first 1,000 are the rules table's), ranked once
    on the 64-bit unix port (whose per-position costs rank roughly like the Pico's; build/mpy-host must hold its
    firmware .mpy: make test-mp) into out."""
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "micropython"), "-X", "heapsize=1m", "tools/bench_rules_mp.py",
                           "random", str(among)],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    timed = sorted((line.split(" ", 1) for line in proc.stdout.splitlines()), key=lambda x: -int(x[0]))
    out.write_text("".join(text + "\n" for _, text in timed[:n]))
    return out


def positions_on_pico(path: Path) -> list[int]:
    """Each position of a file (one JSON a line) listed with its accounts on the Pico: its time in us."""
    code = "exec(open('/bench_rules_mp.py').read(), {'ARGV': ['b', 'positions', '/positions.txt'], " \
           "'__name__': 'bench'})"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "positions.txt").write_text(path.read_text())
        out, _ = run_on_pico("--dir", f"{tmp}:/", "--dir", f"{ROOT / 'tools' / 'bench_rules_mp.py'}:/", code=code)
    kv = keyvals(out)
    return [int(kv[f"position{i}_us"]) for i in range(int(kv["positions"]))]


def time_positions(path: Path) -> None:
    """Each position of a file listed with its accounts on the Pico, printed: fast feedback."""
    times = positions_on_pico(path)
    print(" ".join(f"{t / 1000:.1f}" for t in times))
    print(f"{len(times)} positions: worst {max(times) / 1000:.1f} ms, total {sum(times) / 1000:.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="100 random positions instead of 1000")
    ap.add_argument("--rules-only", action="store_true",
                    help="only the rules core's table (a few minutes): printed, docs/benchmarks.md unchanged")
    ap.add_argument("--board-only", action="store_true",
                    help="only the board's table (the 1994 game through the pins, about 3 minutes): printed, "
                    "docs/benchmarks.md unchanged")
    ap.add_argument("--positions", type=Path, help="time only these positions (one JSON a line) on the Pico")
    ap.add_argument("--slowest", type=int, metavar="N",
                    help="time only the N slowest of the random positions (ranked on the 64-bit unix port)")
    ap.add_argument("--among", type=int, default=1000, metavar="M",
                    help="with --slowest: rank the first M random positions (default 1,000, the rules table's)")
    args = ap.parse_args()
    from bao_host.boards.pico import PicoUnavailable, check_available

    try:
        check_available()
    except PicoUnavailable as e:
        print(f"bench_pico: skipped: {e}")
        return 0
    if not (ROOT / "build" / "firmware").is_dir():
        subprocess.run(["make", "-C", str(ROOT), "firmware"], check=True, capture_output=True)
    if args.slowest:
        args.positions = slowest_positions(args.slowest, ROOT / "build" / "slowest-positions.txt", args.among)
    if args.positions:
        time_positions(args.positions)
        return 0
    if args.rules_only:
        print(rules_table(args.quick).render())
        return 0

    g = board_game()
    board = board_table(g)
    st = g["stats"]
    assert isinstance(st, dict)
    if args.board_only:
        print(board.render())
        return 0
    flash = st["flash"]
    board_note = (f"Flash during the game: {flash['erases']} sector erases, {flash['programs']} page programs "
                  f"({flash['bytes']:,} bytes), {flash['busyMs'] / 1000:.1f} s busy. "
                  f"{float(st['ms']) / 1000:.0f} s of Pico time in {float(g['wall']):.0f} s wall.")

    out, _ = run_on_pico("--dir", f"{ROOT / 'games'}:/games",
                         code=open(ROOT / "tools" / "pico" / "onpico" / "board_steps.py").read())
    steps = json.loads(out.strip().splitlines()[-1])
    where = "its own flash sectors" if steps["storage"] == "FlashLog" else "its LittleFS"
    app = Table([f"board application, steps timed on the Pico (journal on {where})", "median", "p99",
                 "worst", "target"])
    for key, label, target in (
            ("idle", "scan-loop step, nothing happening", ""), ("activation", "step with an activation", ""),
            ("move", "step completing a move (rules, journal, event, next legal moves)", "worst < 50 ms"),
            ("append", "of which a journal append (durable when it returns)", ""),
            ("ahead", "idle step doing the journal's work ahead (a compaction or a sector erase)", "")):
        s = steps[key]
        if s:
            app.add(f"{label} ({s['n']})", ms(s["median_ms"]), ms(s["p99_ms"]), ms(s["max_ms"]), target)
    pause = steps["pause"]
    app.add(f"scan-loop step in the players' pause after a move, the others ({pause['n']})", "", "",
            ms(pause["max_ms"]), "")
    mem = (f"Heap: {steps['free_at_start']:,} bytes free before the board is imported, "
           f"{steps['free_after_boot']:,} after its boot, lowest gc.mem_free() during the game "
           f"{steps['lowest_free']:,} (uncollected garbage included); journal {steps['journal_bytes']:,} bytes.")

    rules = rules_table(args.quick)

    body = "\n\n".join([
        f"`python tools/bench_pico.py{' --quick' if args.quick else ''}` (`make bench` runs it without --quick): "
        f"the real MicroPython RP2040 image (v1.29 preview, "
        f"RPI_PICO) in rp2040js 1.4.1 at 125 MHz, the firmware's armv6m `.mpy` on its LittleFS, flash writes "
        f"taking the W25Q16JV's typical times (page program 0.7 ms, 4 KB sector erase 45 ms). Pico time, "
        f"repeatable; the emulator does not model XIP cache misses, so a real Pico is somewhat slower. "
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}.",
        board.render(), board_note, app.render(), mem, rules.render(),
        RULES_NOTE,
        "The step that completes a move: the rules core (the next position's legal moves), the journal "
        "append, the event and a collection. The journal is on flash sectors of its own "
        "(`baoboard.flashres`, `baoboard.flashlog`): an append programs its pages (0.7 ms each) into sectors "
        "erased ahead, where on LittleFS it copied the file's last block and erased a sector (45 ms) for most "
        "appends, and compacted for 287 ms inside the step. The compaction and the erases now wait for the "
        "board to be idle (no hand on it for 0.15 s between moves: one piece per pause), in the steps of the "
        "last row but one. So does the outbox's retransmission timer (App.step): with no host acknowledging (as "
        "here), a pass every 8 s read 8 events back from flash, 15-38 ms and 20 KB of garbage in one scan, and "
        "when it fell inside a move the touch waited for it (the 38.8 ms worst before); it now waits for the end "
        "of the move (the pause's slowest steps above are such passes and the journal's work). A new event "
        "still goes out at once, and a NAK or an ack is answered at once. `bao sim --runtime pico` lets its "
        "players wait 0.6 s after a move "
        "(`--think-ms`) and hold a touch 50 ms. Boot to HELLO is the first boot's: it reserves the journal's 32 "
        "sectors (one-block LittleFS files found by their markers) and erases them, once; a later boot checks the "
        "reservation and mounts the log in about 0.23 s of the boot.",
    ])
    print(body)
    replace_section(ROOT / "docs" / "benchmarks.md", "Emulated Pico", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
