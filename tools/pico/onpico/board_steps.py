# Runs ON the emulated Pico (tools/bench_pico.py sends it through the raw REPL): the board application
# with its journal where firmware/main.py puts it (its own flash sectors, baoboard.flashres; LittleFS
# with JOURNAL = "littlefs"), the 1994 game played through simulated hands (one scan every 5 ms of
# simulated board time, a pause of 0.4 s after each move), and each scan-loop step timed with the
# Pico's microsecond clock. Prints one JSON line: step times (idle, activation, move-completing activation,
# the idle steps that did the journal's work ahead), the free heap before the board is imported, after its
# boot and after the game (each collected), the lowest gc.mem_free() seen, flash use.
import gc
import json
import os
import time

gc.collect()
free_at_start = gc.mem_free()

# (the layers the board imports, not bao.core's facade: what the harness adds to the heap is not the board's)
from bao.layout import TO_MOVE  # noqa: E402
from bao.movetext import format_move  # noqa: E402
from bao.position import initial  # noqa: E402
from bao.rules import legal_move_codes, play  # noqa: E402
from baoboard.app import App  # noqa: E402
from baoboard.flashres import journal_storage  # noqa: E402
from baoboard.recogniser import activations  # noqa: E402
from baoboard.simhw import SimHardware  # noqa: E402
from baoboard.storage import FileStorage  # noqa: E402

ROOT = "/benchflash"


def clear(d):
    try:
        for name in os.listdir(d):
            if name == "jflash":
                clear(d + "/jflash")
                os.rmdir(d + "/jflash")
            else:
                os.remove(d + "/" + name)
    except OSError:
        os.mkdir(d)


clear(ROOT)
try:
    JOURNAL  # noqa: B018  (set by whoever sends this code)
except NameError:
    JOURNAL = "flash"
try:
    MOVES  # noqa: B018  (set by whoever sends this code: only the game's first MOVES moves; 0: all)
except NameError:
    MOVES = 0


class TimedStorage:
    """The board's journal storage, each append (a journal record, durable) timed: the flash's share of a
    move."""

    def __init__(self, inner):
        self.inner = inner
        self.appends = []
        if hasattr(inner, "maintain"):
            self.maintain = inner.maintain

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def append(self, name, data):
        t0 = time.ticks_us()
        self.inner.append(name, data)
        self.appends.append(time.ticks_diff(time.ticks_us(), t0))


hw = SimHardware()
hw.on_write = lambda data: None  # no host: events stay in the journal (as with the board unplugged)
storage = TimedStorage(FileStorage(ROOT) if JOURNAL == "littlefs" else journal_storage(ROOT))
kind = type(storage.inner).__name__
app = App(hw, storage, board_id="bench")
app.boot()
gc.collect()
free_after_boot = gc.mem_free()
low = free_after_boot

idle = []
act = []
done = []
pause = [0, 0]  # idle steps during the players' pause after a move: how many, the slowest (µs)
ahead = []  # idle steps in which the journal did its work for a quiet moment (App.step: Journal.maintain)


def step():
    global low
    hw.t += 5
    moves = app.moves_done
    behind = app.behind  # the journal may have work for a quiet moment
    t0 = time.ticks_us()
    app.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    f = gc.mem_free()
    if f < low:
        low = f
    if behind and not app.behind and app.moves_done == moves:
        ahead.append(dt)
        return None, False
    return dt, app.moves_done != moves


def tap(pit):
    hw.set_pit(pit, True)
    for k in range(4):
        dt, moved = step()
        if dt is None:
            continue
        if moved:
            done.append(dt)
        elif k == 2:  # the third scan with the hand on it: the debounced activation
            act.append(dt)
        else:
            idle.append(dt)
    hw.set_pit(pit, False)
    for _ in range(4):
        dt, moved = step()
        if dt is not None:
            (done if moved else idle).append(dt)


def plies():
    p = initial()
    with open("/games/zanzibar-1994.txt") as f:
        for line in f:
            colon = line.find(":")
            if colon < 0 or not line[:colon].strip().isdigit():
                continue
            for text in line[colon + 1 :].split(";")[0].split():
                side = p.d[TO_MOVE]
                m = [c for c in legal_move_codes(p) if format_move(c, side) == text][0]
                yield p, m
                p = play(p, m)


def play_game():
    """The game's first MOVES moves (0: all) through the hands, each followed by the players' pause: the plies
    played. (A function: the game's position and its loop's names are gone once it returns, not the board's.)"""
    n = 0
    for p, m in plies():
        if MOVES and n == MOVES:
            break
        for pit in activations(p, m):
            tap(pit)
        n += 1
        for _ in range(80):  # the players' pause after a move: 0.4 s (bao sim --runtime pico waits 0.6 s)
            dt, moved = step()
            if dt is not None:  # (a count and the worst: 6,000 of them in a list would not fit the heap)
                pause[0] += 1
                pause[1] = max(pause[1], dt)
    return n


n = play_game()


def summary(xs):
    xs = sorted(xs)
    if not xs:
        return None
    return {
        "n": len(xs),
        "median_ms": xs[len(xs) // 2] / 1000,
        "p99_ms": xs[(len(xs) * 99) // 100] / 1000,
        "max_ms": xs[-1] / 1000,
    }


def report():
    """Print the summary (one JSON line). (A function: its objects are gone once it returns, not the board's.)"""
    print(
        json.dumps(
            {
                "plies": n,
                "moves_done": app.moves_done,
                "idle": summary(idle),
                "activation": summary(act),
                "move": summary(done),
                "append": summary(storage.appends),
                "ahead": summary(ahead),
                "storage": kind,
                "pause": {"n": pause[0], "max_ms": pause[1] / 1000},
                "free_at_start": free_at_start,
                "free_after_boot": free_after_boot,
                "lowest_free": low,
                "journal_bytes": storage.size("journal"),
                "harness_apart": True,
            }
        )
    )


report()
# The board after the game, collected: what it holds while it runs, measured once the harness's lists and its
# summary are gone; bench_pico.py reads both lines
idle = act = done = ahead = None
storage.appends = []
gc.collect()
print(json.dumps({"free_at_end": gc.mem_free()}))
