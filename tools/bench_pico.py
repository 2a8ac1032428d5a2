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
import ast
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import Table, replace_section

ROOT = Path(__file__).resolve().parent.parent


PICO_RUN = ROOT / "tools" / "pico" / "pico-run.mjs"


def ms(x: float) -> str:
    return f"{x:.1f} ms"


IMAGES = ("image", "stock")  # the Bao-board image (make image), the stock MicroPython with the .mpy (make deploy)
IMAGE_NAMES = {"image": "Bao-board image", "stock": "stock image"}


def run_on_pico(*args: str, code: str, image: str = "image") -> tuple[str, str]:
    """Run code over the emulated Pico's raw REPL. image: the Bao-board image (its frozen modules; an empty
    repl.txt on the flash leaves its main.py at the REPL, baoboard.install), or "stock": the stock MicroPython
    with the firmware's .mpy on its flash, main.py left out."""
    from bao_host.boards.pico import default_image

    with tempfile.TemporaryDirectory() as tmp:
        if image == "image":
            (Path(tmp) / "repl.txt").write_text("")
            where = ["--uf2", str(default_image()), "--dir", f"{tmp}:/"]
        else:
            where = ["--dir", str(ROOT / "build" / "firmware"), "--exclude", "main.py"]
        cmd = ["node", str(PICO_RUN), "--stats", "--timeout", "3600", *where, *args, "-c", code]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"pico-run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout, proc.stderr


def keyvals(out: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def board_game(image: str = "image", moves: int = 0, xip: bool = False) -> dict[str, object]:
    """The board on the pins: booted on a new flash (the first boot after flashing: it prepares the journal's
    sectors), reset (a board with its journal), the 1994 game played (its first `moves` moves if given), reset
    again (its journal holding the game). Boot times are Pico time from power on to HELLO. xip: the misses of
    a model of the XIP cache (board.mjs --xip-cache) in each touch's latency, too."""
    from bao import core
    from bao_host.boards.pico import STOCK, PicoBoard
    from bao_testkit.simrig import game_1994
    from baoboard.recogniser import activations

    kind = STOCK if image == "stock" else None
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        board = PicoBoard(tmp, latches=True, image=kind)
        first = board.hello_ms
        board.close()
        board = PicoBoard(tmp, latches=True, image=kind, xip_cache=xip)
        boot = board.hello_ms
        board.stats()  # (resets the scan statistics: the boot is not the scan loop)
        board.keep_frames = True
        touch: list[float] = []  # latency of each activation inside a move
        last: list[float] = []  # of the activation that completes a move
        scans: list[float] = []  # of a touch inside a move: to the last sensor read before its frame
        step: list[float] = []  # and from that read to the frame
        touch_misses: list[int] = []  # with xip: the XIP cache model's misses in each touch's latency
        last_misses: list[int] = []
        g = game_1994()
        plies = g.moves[:moves] if moves else g.moves
        for p, m in plies:
            acts = list(activations(p, m))
            for i, pit in enumerate(acts):
                board.frames.clear()
                board.frame_misses.clear()
                board.latches.clear()
                t = board.pico_ms
                m0 = board.xip_misses
                board.set_pit(pit, True)
                board.run(10, 5)
                board.set_pit(pit, False)
                board.run(10, 5)
                if i == len(acts) - 1:
                    board.run(120, 5)  # the players' pause after a move: the frame may come late
                if board.frames:
                    f = board.frames[0][0]
                    (last if i == len(acts) - 1 else touch).append(f - t)
                    if board.frame_misses:
                        (last_misses if i == len(acts) - 1 else touch_misses).append(board.frame_misses[0] - m0)
                    read = max((x for x in board.latches if x < f), default=t)
                    if i < len(acts) - 1:
                        scans.append(read - t)
                        step.append(f - read)
        st = board.stats()
        done = sum(1 for v in board.events.values() if v[0] == "MOVE")
        final_ok = board.position.d == g.final.d if g.final else False
        board.close()
        board = PicoBoard(tmp, image=kind)
        after = board.hello_ms
        board.close()
        wall = time.monotonic() - t0
    assert done == len(plies) and (final_ok or moves), f"the emulated board reported {done} moves"
    return {
        "first_boot": first,
        "boot": boot,
        "boot_after_game": after,
        "touch": touch,
        "last": last,
        "scans": scans,
        "step": step,
        "stats": st,
        "wall": wall,
        "moves": done,
        "ruleset": core.ZANZIBAR,
        "touch_misses": touch_misses,
        "last_misses": last_misses,
    }


def board_table(g: dict[str, object]) -> Table:
    """The board's rows of a game played through the pins (board_game())."""
    st = g["stats"]
    assert isinstance(st, dict)
    scan = st["scan"]
    touch, last, scans, step = g["touch"], g["last"], g["scans"], g["step"]
    assert isinstance(touch, list) and isinstance(last, list) and isinstance(scans, list) and isinstance(step, list)
    board = Table([f"the board (1994 game, {g['moves']} moves, through the pins)", "median", "p99", "worst", "target"])
    board.add("reset (power on) to HELLO, the board with its journal", ms(float(g["boot"])), "", "", "")  # type: ignore[arg-type]
    board.add(
        "scan loop period (74HC165 latch to latch)", ms(scan["medianMs"]), ms(scan["p99Ms"]), ms(scan["maxMs"]), ""
    )
    board.add(
        f"pit touched -> LED frame latched, inside a move ({len(touch)})",
        ms(statistics.median(touch)),
        ms(pct(touch, 0.99)),
        ms(max(touch)),
        "median < 8 ms, worst < 20 ms",
    )
    board.add(
        "... touch -> the sensor read that confirms it (3 agreeing scans)",
        ms(statistics.median(scans)),
        ms(pct(scans, 0.99)),
        ms(max(scans)),
        "",
    )
    board.add(
        "... that read -> LED frame latched (the step: recogniser, guide, LEDs)",
        ms(statistics.median(step)),
        ms(pct(step, 0.99)),
        ms(max(step)),
        "",
    )
    board.add(
        f"the touch that completes a move -> LED frame ({len(last)})",
        ms(statistics.median(last)),
        ms(pct(last, 0.99)),
        ms(max(last)),
        "worst < 50 ms",
    )
    return board


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


RULES_NOTE = (
    "The rules core's rows (`python tools/bench_pico.py --rules-only` prints them alone, in about 25 minutes "
    'of wall time on a shared machine): "list all legal moves with their accounts" is '
    "`core.legal_moves(p, True)`: every legal move with its child position and its account, each candidate "
    "played once with its account recorded (4 bytes a step into one scratch bytearray, copied once per move; "
    "no object per step), best of 3 with a collection before each. The board does less, in two steps (the "
    "next two rows): the legal move codes in the step that completes a move, then, when a start pit is "
    "lifted, the sequences of that pit's candidates only (`baoboard.recogniser`, from their accounts taken "
    "relay by relay); its worst lift is the advanced game's first placement drop, whose 48 candidates all "
    "start by lifting the same pit. The sowing's plain stretch (seeds, relays, captures and their steps of "
    'the account) runs in a native kernel (`bao.core._advance`, docs/rules.md "Speed on the board"): in '
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


PIECES_NOTE = (
    "What each row is. game: `bao sim --runtime pico`'s board (`bao_host.boards.pico.PicoBoard`, its flash "
    "kept in a file between boots) on a new flash: its first boot, then a reset (power on to HELLO: its "
    "journal's sectors found and the log mounted, no game in it), the 1994 game through the pins (a pit held "
    "10 scans of 5 ms, released 10; 0.6 s after a move) and a reset with the game in the journal; a touch's "
    "latency is from the pin's change to the SK9822 chain's latch of the frame that shows it. steps: "
    "tools/pico/onpico/board_steps.py over the raw REPL (the image: an empty repl.txt on the flash leaves its "
    "main.py at the REPL; imports come from the frozen modules), the board application on simulated hardware "
    "with its journal on flash sectors of its own, each App.step() timed with the Pico's microsecond clock; "
    "its heap rows are gc.mem_free() after a gc.collect(): of a bare interpreter (a REPL that imported "
    "nothing), and in the harness before it imports the firmware (its own script compiled: not the board's), "
    "after the board's boot and after the game (the harness's lists of timings, its summary and the game's "
    "last position dropped first). tail: the rules core's listing "
    "(`core.legal_moves(p, True)`, every legal move with its child and account; best of 3) of the 40 "
    "slowest of the first 20,000 random positions, ranked on the 64-bit unix port "
    "(build/slowest-positions.txt). engine: tools/pico/onpico/engine_nodes.py, the board's engine "
    "(`bao.engine.Engine` with `baoboard.opponent`'s quiescence depth and check interval and the table "
    "`opponent.table_bits` gives for the heap free at the search's start) searching plies 0, 10, 20, 30 and "
    "40 of the 1994 game with the board's time limit, 3 s of Pico time (after half of it the engine begins "
    "no depth it cannot finish; a search that ends before, at a forced end, is left out), the board "
    "application not loaded (in play it holds what the heap rows say; the table is sized from what is free "
    "then), no scan loop (the "
    "Board engine section has what the scan "
    "loop takes off it). match: that median, at most level 4's node limit, as the node budget of matches "
    "played on CPython (tools/bench_board_engine.py, board_matches: the same search code, which at a node "
    "limit plays the same moves up to the table's hash; pairs from 4-ply random openings, colours swapped): "
    "the board's engine (quiescence 3, the table the engine piece used) against the greedy player and against "
    "the host's engine (`bao_host.engine.players.EnginePlayer`: table 2^18, quiescence 6) at the same nodes. "
    "stand: the scan loop's longest stand-still (below)."
)

XIP_NOTE = (
    "What the emulator does not model: the XIP cache. On an RP2040 code and read-only data in flash (the "
    "MicroPython interpreter on both images; the frozen modules' bytecode, constants and names on the "
    "Bao-board image) are read through a 16 KB two-way set-associative cache of 8-byte lines with a 1-cycle "
    "hit (RP2040 datasheet, 2.6.3.1 XIP Cache). rp2040js serves every such read at once, as a hit. A miss "
    "makes the SSI read the line from the W25Q16JV: the Pico's second-stage boot (pico-sdk boot2_w25q080.S, "
    "the pinned sources) sets quad I/O continuous read (EBh, mode A0h: no command byte after the first) with "
    "4 dummy clocks at clk_sys / PICO_FLASH_SPI_CLKDIV = 125 / 2 = 62.5 MHz (boards/pico.h), so a miss is "
    "6 address + 2 mode + 4 dummy + 16 data clocks = 28 SPI clocks = 56 clk_sys cycles, about 0.45 us "
    "plus a few cycles of the bus. A Cortex-M0+ fetches an 8-byte line (four 16-bit Thumb instructions) "
    "in about 4-6 cycles when it hits, so code that missed on every line would run about 10 times slower: "
    "that is the loose upper bound. What misses depends on the working set: the interpreter's code on both "
    "images, and on the Bao-board image also the bytecode being run (on the stock image it is in RAM). "
    "XIP_MEASURE"
)

STEP_NOTE = (
    "The step that completes a move: the rules core (the next position's legal moves), the journal append, "
    "the event and a collection; the journal's compaction and sector erases wait for the board to be idle "
    "(no hand on it for 0.15 s between moves: one piece per pause), and so does the outbox's retransmission "
    "timer (App.step): they are the idle steps of the steps tables' last rows. A new event still goes out at "
    "once, and a NAK or an ack is answered at once."
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
        rules.add(
            f"list all legal moves with their accounts, {what} ({mv[key + 'positions']})",
            f"median {int(mv[key + 'median_us']) / 1000:.1f} ms, worst {int(mv[key + 'worst_us']) / 1000:.1f} ms",
            "worst < 20 ms",
        )
    rules.add(
        f"... both, {mv['positions']} positions",
        f"median {int(mv['median_us']) / 1000:.1f} ms, p99 "
        f"{int(mv['p99_us']) / 1000:.1f} ms, worst {int(mv['worst_us']) / 1000:.1f} ms",
        "worst < 20 ms",
    )
    # The fixed sample's worst is one position: the slowest of a wider one, ranked on the unix port, say how
    # far the tail goes beyond it
    wide = positions_on_pico(slowest_positions(WIDE_SLOWEST, ROOT / "build" / "slowest-positions.txt", WIDE_AMONG))
    rules.add(
        f"... the {WIDE_SLOWEST} slowest of {WIDE_AMONG:,} random positions (ranked on the 64-bit unix port)",
        f"worst {max(wide) / 1000:.1f} ms, {sum(t > 20000 for t in wide)} over 20 ms",
        "worst < 20 ms",
    )
    rules.add(
        "the board at a move boundary, both sets: the legal move codes (in the step completing a move)",
        f"median {int(mv['board_codes_median_us']) / 1000:.1f} ms, "
        f"worst {int(mv['board_codes_worst_us']) / 1000:.1f} ms",
        "",
    )
    rules.add(
        "... then a start pit lifted: its candidates' sequences from their accounts (baoboard.recogniser)",
        f"median {int(mv['board_pit_median_us']) / 1000:.1f} ms, worst {int(mv['board_pit_worst_us']) / 1000:.1f} ms",
        "",
    )
    names = ("Malawi, A4L* repeats after 3.3 million relays", "Zanzibar INF_TAKASA, A6L* loops every 174,848")
    for i, name in enumerate(names):
        rules.add(
            f"slowest known: {name}: legal move codes (each move boundary)",
            f"{int(slow[f'slow{i}_codes_us']) / 1e6:.2f} s",
            "well inside the 8.3 s watchdog",
        )
        rules.add(
            f"slowest known: {name}: every candidate's account (as if each start were lifted)",
            f"{int(slow[f'slow{i}_accounts_us']) / 1e6:.2f} s",
            "",
        )
        rules.add(
            f"slowest known: {name}: the board's worst start pit lifted (its candidates' sequences)",
            f"{int(slow[f'slow{i}_pit_us']) / 1e6:.2f} s",
            "well inside the 8.3 s watchdog",
        )
    perft = pf["perft"].split()
    rules.add(
        f"perft(6) = {int(perft[1]):,}",
        f"{int(perft[2]) / 1e6:.1f} s ({int(perft[1]) * 1e6 / int(perft[2]):,.0f} leaves/s)",
        "",
    )

    return rules


def slowest_positions(n: int, out: Path, among: int = 1000) -> Path:
    """The n slowest of the first `among` random positions (the first 1,000 are the rules table's), ranked once
    on the 64-bit unix port (whose per-position costs rank roughly like the Pico's; build/mpy-host must hold its
    firmware .mpy: make test-mp) into out."""
    proc = subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "micropython"),
            "-X",
            "heapsize=1m",
            "tools/bench_rules_mp.py",
            "random",
            str(among),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    timed = sorted((line.split(" ", 1) for line in proc.stdout.splitlines()), key=lambda x: -int(x[0]))
    out.write_text("".join(text + "\n" for _, text in timed[:n]))
    return out


def positions_on_pico(path: Path, image: str = "image") -> list[int]:
    """Each position of a file (one JSON a line) listed with its accounts on the Pico: its time in us."""
    code = (
        "exec(open('/bench_rules_mp.py').read(), {'ARGV': ['b', 'positions', '/positions.txt'], '__name__': 'bench'})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "positions.txt").write_text(path.read_text())
        out, _ = run_on_pico(
            "--dir", f"{tmp}:/", "--dir", f"{ROOT / 'tools' / 'bench_rules_mp.py'}:/", code=code, image=image
        )
    kv = keyvals(out)
    return [int(kv[f"position{i}_us"]) for i in range(int(kv["positions"]))]


def time_positions(path: Path, image: str = "image") -> None:
    """Each position of a file listed with its accounts on the Pico, printed: fast feedback."""
    times = positions_on_pico(path, image)
    print(" ".join(f"{t / 1000:.1f}" for t in times))
    print(f"{len(times)} positions: worst {max(times) / 1000:.1f} ms, total {sum(times) / 1000:.1f} ms")


STAND_SLOWEST, STAND_FIRST = 20, 20  # the stand-still's random positions: the slowest of 1,000, the first


def stand_positions(out: Path) -> Path:
    """The stand-still's positions (tools/pico/onpico/stand_still.py): the slowest known (Malawi, A4L*) first,
    then the STAND_SLOWEST slowest of the rules table's 1,000 random positions (ranked on the 64-bit unix
    port, whose per-position costs rank roughly like the Pico's) and the first STAND_FIRST of them."""
    # (bench_rules_mp.SLOW's first, read from its source: the module runs its command line when imported)
    tree = ast.parse((ROOT / "tools" / "bench_rules_mp.py").read_text())
    slow = next(
        ast.literal_eval(n.value)[0]
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "SLOW"
    )
    proc = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "micropython"), "-X", "heapsize=1m", "tools/bench_rules_mp.py", "random", "1000"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    lines = [line.split(" ", 1) for line in proc.stdout.splitlines()]
    slowest = sorted(lines, key=lambda x: -int(x[0]))[:STAND_SLOWEST]
    texts = [slow] + [t for _, t in slowest] + [t for _, t in lines[:STAND_FIRST] if [_, t] not in slowest]
    out.write_text("".join(t + "\n" for t in texts))
    return out


def stand_still(unix: bool, image: str = "image") -> dict[str, object]:
    """The scan loop's longest stand-still in play (tools/pico/onpico/stand_still.py): on the emulated Pico
    (the journal on its flash), or with unix on the 64-bit MicroPython unix port (build/mpy-host: make
    test-mp builds it; the journal in RAM)."""
    script = (ROOT / "tools" / "pico" / "onpico" / "stand_still.py").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        stand_positions(Path(tmp) / "positions.txt")
        if unix:
            code = (
                f"import sys\nsys.path[:0] = [{str(ROOT / 'build' / 'mpy-host')!r}]\n"
                f"POSITIONS = {tmp + '/positions.txt'!r}\nGAME = {str(ROOT / 'games' / 'zanzibar-1994.txt')!r}\n"
                f"JOURNAL_ROOT = ''\n" + script
            )
            proc = subprocess.run(
                [str(ROOT / ".venv" / "bin" / "micropython"), "-X", "heapsize=320k", "-c", code],
                capture_output=True,
                text=True,
                check=True,
                timeout=3600,
            )
            out = proc.stdout
        else:
            code = "POSITIONS = '/positions.txt'\nGAME = '/games/zanzibar-1994.txt'\nJOURNAL_ROOT = '/benchflash'\n"
            out, _ = run_on_pico(
                "--dir", f"{tmp}:/", "--dir", f"{ROOT / 'games'}:/games", code=code + script, image=image
            )
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


STAND_NOTE = (
    "The scan loop's longest stand-still in play (`python tools/bench_pico.py --piece stand`, about 15 minutes of"
    " wall time; `--stand-still --unix` prints it for the unix port in seconds): "
    "tools/pico/onpico/stand_still.py, the board application on simulated hardware whose sensor read notes the "
    "time since the one before, in Pico time. Long work (a never-ending candidate's listing, play and "
    'activations: M4) serves the scan loop as it goes (App.serve, docs/architecture.md "Timing budgets"), so a '
    "step may be long while no gap is: the gap is what a touch, the LEDs and the watchdog wait for. The steps "
    "doing a quiet moment's work (the journal's compaction or a sector erased ahead, the outbox's timer: no hand "
    "on the board between moves) are counted apart. A long move's middle activations are fed straight to the "
    "application, not timed. The C stack column is micropython.stack_use() at each sensor read, the deepest call "
    'long work makes (App.serve); MicroPython on an RP2040 stops a call with "maximum recursion depth" past '
    "7,936 bytes (an 8 KB stack less its 256-byte margin: the pinned rp2 port's PICO_STACK_SIZE and "
    "MICROPY_STACK_CHECK_MARGIN). The harness adds a few frames a real board's main.py does not have."
)


def stand_table(r: dict[str, object], where: str) -> Table:
    t = Table(
        [
            f"the scan loop in play, {where}",
            "longest time between two scans",
            "longest step",
            "... in a quiet moment's work (between, step)",
            "... in a host command (between, step)",
            "C stack in use at a scan, most",
            "target",
        ]
    )
    for key, what in (
        ("game", "the 1994 game through the hands"),
        ("slow", "Malawi, A4L*'s position: SETPOS, each start pit lifted, A4L* performed"),
        (
            "random",
            f"{r['positions'] - 1} random positions: SETPOS, each start pit lifted, "  # type: ignore[operator]
            "the longest move performed",
        ),
    ):
        s = r[key]
        assert isinstance(s, dict)
        t.add(
            f"{what} ({s['steps']:,} steps; the longest gap ended at {s['where']})",
            ms(s["gap_ms"]),
            ms(s["step_ms"]),
            f"{ms(s['quiet_gap_ms'])}, {ms(s['quiet_step_ms'])}",
            f"{ms(s['command_gap_ms'])}, {ms(s['command_step_ms'])}",
            f"{s['stack']:,} B" if s.get("stack") else "not measured",
            "under 50 ms",
        )
    return t


# each piece's figures for each image, one JSON each, kept with the section they make (any checkout can write it
# again, and a run of one piece changes its own rows only)
SAVED = ROOT / "docs" / "bench-pico"
PIECES = ("game", "steps", "tail", "engine", "match", "xip", "touchxip", "stand", "rare", "rules")
SECTION_PIECES = ("game", "steps", "tail", "engine", "match", "xip", "touchxip", "stand")  # (the section's runs)
TAIL_FILE = ROOT / "build" / "slowest-positions.txt"


def saved(piece: str, image: str) -> dict[str, Any] | None:
    f = SAVED / f"{piece}-{image}.json"
    return json.loads(f.read_text()) if f.exists() else None


def unsaved_runs(doc: str) -> list[str]:
    """The runs the section in doc names (its "Runs:" line) that are not saved here: "piece-image" each."""
    names = next((line for line in doc.splitlines() if line.startswith("Runs: game on the ")), "")
    missing = [
        f"{piece}-{image}"
        for piece in SECTION_PIECES
        for image in IMAGES
        if f"{piece} on the {IMAGE_NAMES[image]}: " in names and saved(piece, image) is None
    ]
    tables = {"rare": "| a rare job's module (and the modules it brings) |", "rules": "\nThe rules core on the "}
    for piece, shown in tables.items():  # (each table shown when one image's run is saved: their own notes)
        if shown in doc and not any(saved(piece, image) for image in IMAGES):
            missing.append(piece)
    return missing


def measure(piece: str, image: str, args: argparse.Namespace) -> None:
    """Measure one piece on one image and save its figures (SAVED)."""
    t0 = time.monotonic()
    r: dict[str, Any]
    if piece == "game":
        r = board_game(image, args.moves)
    elif piece == "steps":
        out, _ = run_on_pico(
            "--dir",
            f"{ROOT / 'games'}:/games",
            code=f"MOVES = {args.moves}\n" + (ROOT / "tools" / "pico" / "onpico" / "board_steps.py").read_text(),
            image=image,
        )
        lines = out.strip().splitlines()  # the summary, then the heap after the game (board_steps.py)
        r = {**json.loads(lines[-2]), **json.loads(lines[-1])}
        bare, _ = run_on_pico(code="import gc\ngc.collect()\nprint(gc.mem_free())", image=image)
        r["bare_free"] = int(bare.strip().splitlines()[-1])
    elif piece == "tail":
        if not TAIL_FILE.exists() or len(TAIL_FILE.read_text().splitlines()) != WIDE_SLOWEST:
            slowest_positions(WIDE_SLOWEST, TAIL_FILE, WIDE_AMONG)
        r = {"us": positions_on_pico(TAIL_FILE, image)}
    elif piece == "engine":
        bits = "[None]" if not args.bits else "[" + ", ".join(str(int(b)) for b in args.bits.split(",")) + "]"
        out, _ = run_on_pico(
            "--dir",
            f"{ROOT / 'games'}:/games",
            code=f"BITS = {bits}\n" + (ROOT / "tools" / "pico" / "onpico" / "engine_nodes.py").read_text(),
            image=image,
        )
        r = json.loads(out.strip().splitlines()[-1])
    elif piece == "match":
        r = board_match(image, args.games)
    elif piece == "xip":
        r = xip_sample(image)
    elif piece == "touchxip":
        r = board_game(image, args.moves, xip=True)
    elif piece == "stand":
        r = stand_still(False, image)
    elif piece == "rare":
        out, _ = run_on_pico(code=(ROOT / "tools" / "pico" / "onpico" / "rare_jobs.py").read_text(), image=image)
        r = {"modules": json.loads(out.strip().splitlines()[-1])}
    else:
        r = {"table": rules_table(args.quick).render(), "quick": args.quick}
    r["wall_s"] = round(time.monotonic() - t0)
    r["when"] = time.strftime("%Y-%m-%d")
    r["commit"] = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    r["args"] = " ".join(a for a in sys.argv[1:])
    SAVED.mkdir(parents=True, exist_ok=True)
    (SAVED / f"{piece}-{image}.json").write_text(json.dumps(r))
    if piece == "touchxip":  # (a game too: the model changes no time)
        (SAVED / f"game-{image}.json").write_text(json.dumps(r))
    print(f"bench_pico: {piece} on the {image}: {r['wall_s']} s wall", flush=True)


def engine_nodes(r: dict[str, Any] | None) -> str:
    if not r:
        return ""
    run = r["runs"][-1]
    full = [n for n, t in zip(run["nodes"], run["ms"]) if t >= 1500]  # (the engine stops after half its time if
    # the next depth cannot finish; before that only at a forced end, left out)
    return (
        f"{statistics.median(full):,.0f} (table 2^{max(run['bits'])}; {len(full)} searches, "
        f"{min(full):,}-{max(full):,}; free heap at their start {min(run['free']):,} bytes)"
    )


def xip_share(r: dict[str, Any]) -> float:
    """The time the XIP cache model's misses add to a sample, as a share of its emulated time."""
    return float(r["misses"] * XIP_MISS_CYCLES / 125 / 1000 / r["ms"])


def with_misses(times: list[float], misses: list[int]) -> list[float]:
    """Latencies (ms) with the XIP cache model's misses (XIP_MISS_CYCLES each at 125 MHz) added."""
    return [t + m * XIP_MISS_CYCLES / 125_000 for t, m in zip(times, misses)]


def compare_table() -> Table:
    """Each figure for the Bao-board image beside the stock image's (SAVED; empty where not measured)."""
    t = Table(
        ["figure (emulated Pico, Pico time)", "Bao-board image (frozen)", "stock image + .mpy (make deploy)", "target"]
    )
    g = {i: saved("game", i) for i in IMAGES}
    st = {i: saved("steps", i) for i in IMAGES}
    tail = {i: saved("tail", i) for i in IMAGES}
    eng = {i: saved("engine", i) for i in IMAGES}

    def row(label: str, f: Any, src: dict[str, dict[str, Any] | None], target: str = "") -> None:
        def cell(r: dict[str, Any] | None) -> str:
            try:
                return str(f(r)) if r else "not measured"
            except KeyError:  # (saved by an earlier version of the piece)
                return "not measured"

        t.add(label, *(cell(src[i]) for i in IMAGES), target)

    row("reset (power on) to HELLO, a board with its journal (no game yet)", lambda r: ms(r["boot"]), g, "< 500 ms")
    row(
        "... with the 1994 game (all of it or its first moves) in its journal",
        lambda r: f"{ms(r['boot_after_game'])} ({r['moves']} moves)",
        g,
        "< 500 ms",
    )
    row("first boot after flashing (prepares the journal's sectors)", lambda r: ms(r["first_boot"]), g)
    row(
        "pit touched -> LED frame latched, inside a move: median",
        lambda r: ms(statistics.median(r["touch"])),
        g,
        "< 8 ms",
    )
    row("... worst", lambda r: f"{ms(max(r['touch']))} ({len(r['touch'])} touches)", g, "< 20 ms")
    tx = {i: saved("touchxip", i) for i in IMAGES}
    row(
        "... with the XIP cache model's misses added (median, worst)",
        lambda r: (
            f"{ms(statistics.median(with_misses(r['touch'], r['touch_misses'])))}, "
            f"{ms(max(with_misses(r['touch'], r['touch_misses'])))} ({len(r['touch'])} touches)"
        ),
        tx,
        "< 8 ms, < 20 ms",
    )
    row(
        "the touch completing a move -> LED frame latched: worst",
        lambda r: f"{ms(max(r['last']))} ({len(r['last'])} moves)",
        g,
    )
    row(
        "... with the XIP cache model's misses added",
        lambda r: f"{ms(max(with_misses(r['last'], r['last_misses'])))} ({len(r['last'])} moves)",
        tx,
    )
    row(
        "the step completing a move (rules, journal, event, next legal moves): worst",
        lambda r: f"{ms(r['move']['max_ms'])} (median {ms(r['move']['median_ms'])}, {r['move']['n']} moves)",
        st,
        "< 50 ms",
    )
    row(
        f"legal-move listing with accounts: worst of the {WIDE_SLOWEST} slowest of {WIDE_AMONG:,} random positions",
        lambda r: f"{max(r['us']) / 1000:.1f} ms, {sum(x > 20000 for x in r['us'])} over 20 ms",
        tail,
        "< 20 ms",
    )
    both = {i: (dict(tail[i], xip=saved("xip", i)) if tail[i] and saved("xip", i) else None) for i in IMAGES}
    row(
        "... with the XIP cache model's share of the same listings added (the xip piece: an estimate)",
        lambda r: f"{max(r['us']) / 1000 * (1 + xip_share(r['xip'])):.1f} ms (+{100 * xip_share(r['xip']):.0f} %)",
        both,
        "< 20 ms",
    )
    row(
        "heap used by a running board: free heap before the firmware is imported - free after the board's boot "
        "(collected)",
        lambda r: f"{(r['free_at_start'] - r['free_after_boot']) / 1024:.1f} KB",
        st,
        "<= 24 KB",
    )
    row(
        "... after the 1994 game, or its first moves (collected)",
        lambda r: (
            f"{(r['free_at_start'] - r['free_at_end']) / 1024:.1f} KB"
            if r.get("harness_apart")
            else "not measured (the harness's lists were counted)"
        ),
        st,
        "<= 24 KB",
    )
    row("free heap of the bare interpreter (collected)", lambda r: f"{r['bare_free']:,} bytes", st)
    row(
        "lowest gc.mem_free() in the 1994 game (garbage included)",
        lambda r: f"{r['lowest_free']:,} bytes ({r['plies']} moves)",
        st,
    )
    row("the board's engine, top level: nodes in 3 s of Pico time (median; a forced end left out)", engine_nodes, eng)
    mt = {i: saved("match", i) for i in IMAGES}
    for i in IMAGES:  # an image whose engine searches the same nodes with the same table plays the same games
        done = [m for m in mt.values() if m]
        if not mt[i] and eng[i] and done and engine_budget(eng[i]) == (done[0]["budget"], done[0]["bits"]):
            mt[i] = dict(done[0], rows=[(a, "the same games: " + b) for a, b in done[0]["rows"]])
    for k, rival in enumerate(("greedy", "the host's engine, same nodes (table 2^18, quiescence 6)")):
        row(
            f"... its score at those nodes (at most level 4's) vs {rival}",
            lambda r, k=k: f"{r['budget']:,} nodes: {r['rows'][k][1]}",
            mt,
        )
    row(
        "the scan loop's longest stand-still in play (the 1994 game, A4L*'s position, random positions; "
        "a quiet moment's work and host commands apart: below)",
        lambda r: ms(max(r[k]["gap_ms"] for k in ("game", "slow", "random"))),
        {i: saved("stand", i) for i in IMAGES},
        "< 50 ms",
    )
    return t


def engine_budget(r: dict[str, Any]) -> tuple[int, int]:
    """The board's top level as an engine piece measured it: (its nodes: the median of its full 3 s searches,
    at most level 4's node limit; its table's bits)."""
    from baoboard.opponent import NODES

    run = r["runs"][-1]
    full = [n for n, t in zip(run["nodes"], run["ms"]) if t >= 1500]  # (a forced end left out: engine_nodes)
    return min(NODES[-1], int(statistics.median(full))), max(run["bits"])


def board_match(image: str, games: int) -> dict[str, Any]:
    """The board's engine at its top level as the image runs it (the engine piece's nodes in 3 s, at most
    level 4's node limit; its table size) against greedy and the host's engine at equal nodes, on CPython
    (tools/bench_board_engine.py's board_matches)."""
    from baoboard.opponent import NODES
    from bench_board_engine import board_matches

    eng = saved("engine", image)
    assert eng, "the engine piece first: python tools/bench_pico.py --piece engine --image " + image
    budget, bits = engine_budget(eng)
    rows = board_matches(
        ((budget, "level 4: its nodes in 3 s of Pico time, at most " + f"{NODES[-1]:,}"),), bits, games
    )
    return {"rows": rows, "budget": budget, "bits": bits, "games": games}


def xip_sample(image: str) -> dict[str, Any]:
    """The tail's positions listed once each with the XIP cache modelled (pico-run --xip-cache): the code's
    reads of flash, the model's misses and the Pico time they ran in."""
    if not TAIL_FILE.exists():
        slowest_positions(WIDE_SLOWEST, TAIL_FILE, WIDE_AMONG)
    code = (
        "exec(open('/bench_rules_mp.py').read(), {'ARGV': ['b', 'positions', '/positions.txt'], '__name__': 'bench'})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "positions.txt").write_text(TAIL_FILE.read_text())
        _, err = run_on_pico(
            "--xip-cache",
            "--dir",
            f"{tmp}:/",
            "--dir",
            f"{ROOT / 'tools' / 'bench_rules_mp.py'}:/",
            code=code,
            image=image,
        )
    m = re.search(r"code ran ([0-9.]+) ms.*xip: (\d+) reads, (\d+) misses", err)
    assert m, err
    return {
        "what": f"the rules core listing the tail's {WIDE_SLOWEST} positions (best of 3 each)",
        "ms": float(m[1]),
        "reads": int(m[2]),
        "misses": int(m[3]),
        "command": f"python tools/bench_pico.py --piece xip --image {image}",
    }


def xip_text() -> str:
    """The XIP cache modelled on a sample (pico-run --xip-cache, saved as xip-IMAGE.json), if measured."""
    out = []
    for image in IMAGES:
        r = saved("xip", image)
        if r:
            miss_us = r["misses"] * XIP_MISS_CYCLES / 125
            out.append(
                f"{image}: {r['what']}: {r['reads']:,} XIP reads, {r['misses']:,} misses "
                f"({100 * r['misses'] / max(1, r['reads']):.2f} %) in {r['ms']:.0f} ms of Pico time: "
                f"{miss_us / 1000:.1f} ms more, {100 * miss_us / 1000 / r['ms']:.0f} % (`{r['command']}`)"
            )
    if not out:
        return ""
    return (
        "Measured with a model of that cache in the emulator (tools/pico/xipcache.mjs: 16 KB, two ways, "
        f"8-byte lines, least recently used, flushed after each flash write; each miss costing "
        f"{XIP_MISS_CYCLES} cycles): " + "; ".join(out) + ". A real Pico's figures are the emulated ones "
        "plus the misses' time: the sample's share is an estimate for work like it (the rules core), not a "
        "bound for all of it."
    )


XIP_MISS_CYCLES = 60  # a miss: 28 SPI clocks at clk_sys / 2 (XIP_NOTE), rounded up for the bus


def section(quick: bool) -> str:
    """The "Emulated Pico" section from the saved figures."""
    parts = [
        "`python tools/bench_pico.py` (`make bench` runs it): each figure on the emulated Pico (tools/pico: "
        "rp2040js at 125 MHz, the board's chips on its pins, flash writes taking the W25Q16JV's typical times: "
        "page program 0.7 ms, 4 KB sector erase 45 ms; Pico time, repeatable) for the Bao-board image (`make "
        "image`: MicroPython v1.29 preview for RPI_PICO with firmware/ frozen in) and for the stock MicroPython "
        "image with the firmware's armv6m `.mpy` on its flash (`make deploy`). Each piece is saved in "
        "docs/bench-pico/ and can be run alone: `python tools/bench_pico.py --piece game|steps|tail|engine|rules "
        "--image image|stock` (then `--render` writes this section from what is saved; where a run the section "
        "names is not saved, the tool prints the section and leaves this file as it is).",
        compare_table().render(),
    ]
    runs = []
    for piece in SECTION_PIECES:
        for image in IMAGES:
            r = saved(piece, image)
            if r:
                runs.append(
                    f"{piece} on the {IMAGE_NAMES[image]}: {r['when']}, commit {r['commit']}, "
                    f"{r['wall_s']} s wall" + (f" (`{r['args']}`)" if r["args"] else "")
                )
    parts.append("Runs: " + "; ".join(runs) + ".")
    short = [
        f"`python tools/bench_pico.py --piece {piece} --image {image}` (saved: {r['moves']} of the 52 moves)"
        for piece in ("game", "touchxip")
        for image in IMAGES
        if (r := saved(piece, image)) and r["moves"] < 52
    ]
    if short:
        parts.append(
            "Rows from the game's first moves only (a shorter run, `--moves`); the whole game: "
            + "; ".join(short)
            + "."
        )
    parts.append(PIECES_NOTE)
    parts.append(XIP_NOTE.replace("XIP_MEASURE", xip_text()))
    g = saved("game", "image")
    if g:
        parts.append(
            f"The Bao-board image in detail, the 1994 game through the pins ({g['moves']} moves; the boot "
            "times are to the 10 ms steps the harness runs the Pico in):"
        )
        parts.append(board_table(g).render())
        flash = g["stats"]["flash"]
        parts.append(
            f"Flash during the game: {flash['erases']} sector erases, {flash['programs']} page programs "
            f"({flash['bytes']:,} bytes), {flash['busyMs'] / 1000:.1f} s busy. "
            f"{float(g['stats']['ms']) / 1000:.0f} s of Pico time in {float(g['wall']):.0f} s wall "
            "(three boots included)."
        )
    for image in IMAGES:
        steps = saved("steps", image)
        if steps:
            parts.append(steps_table(steps, image).render())
    for image in IMAGES:
        stand = saved("stand", image)
        if stand:
            parts += [stand_table(stand, f"the {IMAGE_NAMES[image]} (journal on its flash)").render(), STAND_NOTE]
    rare = {image: saved("rare", image) for image in IMAGES}
    if any(rare.values()):
        parts += [rare_table(rare).render(), RARE_NOTE]
    for image in IMAGES:  # (the image's when measured; the stock image's: the table before the image)
        rules = saved("rules", image)
        if rules:
            command = rules.get("command") or (
                f"`python tools/bench_pico.py --piece rules --image {image}{' --quick' if rules['quick'] else ''}`"
            )
            parts += [
                f"The rules core on the {IMAGE_NAMES[image]} ({command}, {rules['when']}, commit {rules['commit']}):",
                rules["table"],
                RULES_NOTE,
            ]
            break
    parts.append(STEP_NOTE)
    return "\n\n".join(parts)


RARE_NOTE = (
    "A rare job's module (`python tools/bench_pico.py --piece rare`: tools/pico/onpico/rare_jobs.py, after "
    "`import baoboard.app`): the heap it keeps while loaded (collected) and its import's Pico time. With the "
    "firmware frozen in, a module's code and names stay in flash and it keeps little: the board imports rare jobs "
    "once and keeps them (baoboard.compat.modules_now). Loaded as `.mpy` files its bytecode is in the heap: there "
    "the board drops it after each job."
)


def rare_table(rare: dict[str, Any]) -> Table:
    images = [i for i in IMAGES if rare.get(i)]
    t = Table(
        ["a rare job's module (and the modules it brings)"] + [f"{IMAGE_NAMES[i]}: heap kept, import" for i in images]
    )
    first = rare[images[0]]["modules"]
    for k, (name, _, _, brought) in enumerate(first):
        row = [f"{name}" + (f" (+ {', '.join(b for b in brought if b != name)})" if len(brought) > 1 else "")]
        for i in images:
            _, heap, us, _ = rare[i]["modules"][k]
            row.append(f"{heap:,} B, {us / 1000:.1f} ms")
        t.add(*row)
    return t


def steps_table(steps: dict[str, Any], image: str) -> Table:
    where = "its own flash sectors" if steps["storage"] == "FlashLog" else "its LittleFS"
    app = Table(
        [
            f"{image}: board application, steps timed on the Pico (journal on {where})",
            "median",
            "p99",
            "worst",
            "target",
        ]
    )
    for key, label, target in (
        ("idle", "scan-loop step, nothing happening", ""),
        ("activation", "step with an activation", ""),
        ("move", "step completing a move (rules, journal, event, next legal moves)", "worst < 50 ms"),
        ("append", "of which a journal append (durable when it returns)", ""),
        ("ahead", "idle step doing the journal's work ahead (a compaction or a sector erase)", ""),
    ):
        s = steps[key]
        if s:
            app.add(f"{label} ({s['n']})", ms(s["median_ms"]), ms(s["p99_ms"]), ms(s["max_ms"]), target)
    pause = steps["pause"]
    app.add(
        f"scan-loop step in the players' pause after a move, the others ({pause['n']})", "", "", ms(pause["max_ms"]), ""
    )
    return app


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="rules: 100 random positions instead of 1000")
    ap.add_argument(
        "--rules-only",
        action="store_true",
        help="only the rules core's table on the image (a few minutes): printed, docs/benchmarks.md unchanged",
    )
    ap.add_argument(
        "--board-only",
        action="store_true",
        help="only the board's table (the 1994 game through the pins on the image): printed, "
        "docs/benchmarks.md unchanged",
    )
    ap.add_argument(
        "--piece",
        action="append",
        choices=PIECES,
        help="measure only this piece (repeatable), save it, and rewrite the section",
    )
    ap.add_argument("--image", action="append", choices=IMAGES, help="only this image (repeatable; default both)")
    ap.add_argument(
        "--moves",
        type=int,
        default=0,
        help="game, steps: only the 1994 game's first N moves (a shorter run; the rows say so)",
    )
    ap.add_argument(
        "--bits",
        help="engine: these table sizes (e.g. 11,12); the section shows the last; default: "
        "the one baoboard.opponent picks on that image",
    )
    ap.add_argument("--games", type=int, default=200, help="match: games of each match (default 200)")
    ap.add_argument("--render", action="store_true", help="only rewrite the section from the saved figures")
    ap.add_argument(
        "--stand-still",
        action="store_true",
        help="only print the scan loop's longest stand-still in play (tools/pico/onpico/stand_still.py)",
    )
    ap.add_argument(
        "--unix",
        action="store_true",
        help="with --stand-still: on the 64-bit MicroPython unix port (build/mpy-host), not the Pico",
    )
    ap.add_argument("--positions", type=Path, help="time only these positions (one JSON a line) on the Pico")
    ap.add_argument(
        "--slowest",
        type=int,
        metavar="N",
        help="time only the N slowest of the random positions (ranked on the 64-bit unix port)",
    )
    ap.add_argument(
        "--among",
        type=int,
        default=1000,
        metavar="M",
        help="with --slowest: rank the first M random positions (default 1,000, the rules table's)",
    )
    args = ap.parse_args()
    if args.stand_still and args.unix:
        print(stand_table(stand_still(True), "MicroPython unix port (64-bit), journal in RAM").render())
        return 0
    from bao_host.boards.pico import STOCK, PicoUnavailable, check_available

    images = args.image or list(IMAGES)
    if not args.render:
        try:
            for image in images:
                check_available(STOCK if image == "stock" else None)
        except PicoUnavailable as e:
            print(f"bench_pico: skipped: {e}")
            return 0
        if "stock" in images:  # (the .mpy of this tree: make rebuilds what changed, a stale build measured old code)
            subprocess.run(["make", "-C", str(ROOT), "firmware"], check=True, capture_output=True)
    if args.slowest:
        args.positions = slowest_positions(args.slowest, ROOT / "build" / "slowest-positions-dev.txt", args.among)
    if args.positions:
        for image in images:
            print(image, end=": ")
            time_positions(args.positions, image)
        return 0
    if args.stand_still:
        print(stand_table(stand_still(False, images[0]), f"{images[0]} (journal on its flash)").render())
        return 0
    if args.rules_only:
        print(rules_table(args.quick).render())
        return 0
    if args.board_only:
        print(board_table(board_game(images[0], args.moves)).render())
        return 0
    if not args.render:
        for piece in args.piece or PIECES:
            for image in images:
                if piece != "rules" or image == "image" or args.image:  # (the rules core's long table: the image's)
                    measure(piece, image, args)
    body = section(args.quick)
    print(body)
    missing = unsaved_runs((ROOT / "docs" / "benchmarks.md").read_text())
    if missing:  # (the section would say "not measured" where it showed a run before)
        print(
            f"bench_pico: no saved run of {', '.join(missing)} in {SAVED.relative_to(ROOT)}: docs/benchmarks.md "
            "left as it is; the rows measured now are in the section printed above",
            file=sys.stderr,
        )
        return 0
    replace_section(ROOT / "docs" / "benchmarks.md", "Emulated Pico", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
