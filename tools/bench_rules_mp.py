# Rules-core benchmark run by the MicroPython unix port (and by CPython for comparison). "moves" times the
# listing of every legal move with its child and its account (core.legal_moves(p, True): each candidate played
# once) and the board's two steps at a boundary.
# Usage: micropython tools/bench_rules_mp.py perft N [RULESET] | moves N_RANDOM | game SEED | slow 1
#        | random N (each random position's time and JSON) | positions FILE (one JSON a line: each one's time)
# (also on the emulated Pico: tools/bench_pico.py runs it there with the firmware's armv6m .mpy)
# Prints one "key value" line per figure; tools/bench_rules.py collects them into tables.
import gc
import sys

sys.path.insert(0, "firmware")  # CPython reads the source ...
sys.path.insert(0, "build/mpy-host")  # ... MicroPython the precompiled .mpy, as on the board

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    import time

    def ticks_us():
        return int(time.perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b


class Lcg:
    """The same pseudo-random sequence on both interpreters."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def game_positions(core, rnd, ruleset, plies):
    p = core.initial(ruleset)
    out = [p]
    for _ in range(plies):
        moves = core.legal_moves(p)
        if not moves:
            break
        p = moves[rnd.below(len(moves))][1]
        out.append(p)
    return out


def bench_perft(depth, ruleset="zanzibar"):
    from bao import core, query

    p = core.initial(ruleset)
    t = ticks_us()
    n = query.perft(p, depth)
    print("perft", depth, n, ticks_diff(ticks_us(), t))


def list_with_accounts(core, p):
    """Every legal move with its position and its account, each candidate played once
    (core.legal_moves(p, True): the account compact, 4 bytes a step). Returns the steps."""
    n = 0
    for _, _, acc in core.legal_moves(p, True):
        n += len(acc) >> 2
    return n


def board_boundary(core, recogniser, p):
    """What the board computes at a move boundary, in two steps: the legal move codes (in the step that
    completes the move before), then, when a start pit is lifted, the sequences of the candidate moves
    from that pit, built from their accounts (baoboard.recogniser). Returns (codes_us, worst pit's us)."""
    t = ticks_us()
    codes = core.legal_move_codes(p)
    codes_us = ticks_diff(ticks_us(), t)
    r = recogniser.Recogniser()
    r.start(p, codes)
    pits = []
    for m in codes:
        pit = r.first_pit(m)
        if pit not in pits:
            pits.append(pit)
    worst = 0
    for pit in pits:
        r.start(p, codes)
        gc.collect()
        t = ticks_us()
        r.feed(pit, 0)
        dt = ticks_diff(ticks_us(), t)
        if dt > worst:
            worst = dt
    return codes_us, worst


def _mixed_ruleset(rnd):
    """Mostly Zanzibar, and each Malawi game (basic, intermediate, advanced) one time in eight."""
    k = rnd.below(8)
    return "zanzibar" if k < 5 else ("malawi", "malawi-intermediate", "malawi-advanced")[k - 5]


def listing_us(core, p):
    """core.legal_moves(p, True), best of 3 with a collection before each: the machine's other work (and a
    collection) must not count against the position."""
    dt = None
    for _ in range(3):
        gc.collect()
        t = ticks_us()
        list_with_accounts(core, p)
        one = ticks_diff(ticks_us(), t)
        if dt is None or one < dt:
            dt = one
    return dt


def random_positions(core, count):
    """The random positions of bench_moves, in its order (mixed rulesets, one position in ten of each game)."""
    rnd = Lcg(1994)
    taken = 0
    while taken < count:
        for p in game_positions(core, rnd, _mixed_ruleset(rnd), 1 + rnd.below(120)):
            if rnd.below(10) == 0 and taken < count:
                yield p
                taken += 1


def bench_random(count):
    """Each random position's listing time and its JSON, one line each: ranks them (tools/bench_pico.py
    --slowest finds the slowest once on a unix port, then times those on the Pico)."""
    from bao import core, position_json

    for p in random_positions(core, count):
        print(listing_us(core, p), position_json.dumps(p, False))


def bench_positions(path):
    """The positions of a file (one JSON a line), each listed with its accounts: its time, then the worst."""
    from bao import core, position_json

    worst = total = n = 0
    f = open(path)
    for line in f:
        if line.strip():
            dt = listing_us(core, position_json.loads(line))
            print("position" + str(n) + "_us", dt)
            total += dt
            worst = max(worst, dt)
            n += 1
    f.close()
    print("positions", n)
    print("total_us", total)
    print("worst_us", worst)


def bench_moves(count):
    """Each position measured as soon as it is made and then dropped: a Pico's heap holds no thousand."""
    from bao import core, notation, position_json

    f = open("games/zanzibar-1994.txt")
    game = notation.replay(notation.parse_transcript(f.read()))
    f.close()
    from baoboard import recogniser

    times = []
    worst = [0, ""]
    board = [[], []]  # the board's two steps: legal move codes, the lifted pit's candidates

    def measure(p):
        best = None
        for _ in range(3):
            gc.collect()
            two = board_boundary(core, recogniser, p)
            if best is None or two[0] + two[1] < best[0] + best[1]:
                best = two
        board[0].append(best[0])
        board[1].append(best[1])
        dt = listing_us(core, p)
        times.append(dt)
        if dt > worst[0]:
            worst[0] = dt
            worst[1] = position_json.dumps(p, False)

    for p in game:
        measure(p)
    game = None
    g = sorted(times)  # the 1994 game's positions apart
    print("game_positions", len(g))
    print("game_median_us", g[len(g) // 2])
    print("game_worst_us", g[-1])
    g = None
    for p in random_positions(core, count):
        measure(p)
    r = sorted(times[len(times) - count :])  # the random positions apart
    print("random_positions", len(r))
    print("random_median_us", r[len(r) // 2])
    print("random_worst_us", r[-1])
    r = None
    for i, name in enumerate(("board_codes", "board_pit")):
        b = sorted(board[i])
        print(name + "_median_us", b[len(b) // 2])
        print(name + "_worst_us", b[-1])
    b = sorted([board[0][i] + board[1][i] for i in range(len(times))])
    print("board_both_worst_us", b[-1])
    board = None
    times.sort()
    print("positions", len(times))
    print("median_us", times[len(times) // 2])
    print("p99_us", times[len(times) * 99 // 100])
    print("worst_us", times[-1])
    print("worst_position", worst[1])


# The slowest positions known: each has a candidate move that never ends, decided by R10's bound.
SLOW = (
    # Malawi, from a random game: A4L* repeats only after 3.3 million relays (235 s of Pico time unbounded)
    '{"to_move":"S","A":[2,1,0,11,3,6,11,0],"B":[1,2,1,0,6,1,0,1],"a":[1,1,0,1,1,0,0,0],'
    '"b":[3,2,0,5,2,2,0,0],"store":{"S":0,"N":0},"house":{"S":false,"N":false},"takasia":null,'
    '"ruleset":"malawi"}',
    # Zanzibar (tests' INF_TAKASA): A6L* loops with a period of 174,848 relays
    '{"to_move":"S","A":[4,2,3,0,5,3,4,2],"B":[3,2,3,0,1,2,4,3],"a":[0,1,0,0,0,0,0,0],'
    '"b":[4,1,6,1,3,3,2,2],"store":{"S":0,"N":0},"house":{"S":false,"N":false},"takasia":null,'
    '"ruleset":"zanzibar"}',
)


def bench_slow(_):
    from bao import core, position_json
    from baoboard import recogniser

    for i, text in enumerate(SLOW):
        p = position_json.loads(text)
        gc.collect()
        t = ticks_us()
        codes = core.legal_move_codes(p)  # what the board computes at every move boundary
        t1 = ticks_us()
        rec = bytearray()
        for m in codes:  # and the accounts of every candidate (as if each start pit were lifted)
            rec[:] = b""
            core.play_raw(p, m & core.IDENTITY, rec)  # compact: A4L*'s 4,799 steps in 19 KB
        rec = None
        t2 = ticks_us()
        print("slow" + str(i) + "_codes_us", ticks_diff(t1, t))
        print("slow" + str(i) + "_accounts_us", ticks_diff(t2, t1))
        print("slow" + str(i) + "_pit_us", board_boundary(core, recogniser, p)[1])  # the board's worst lift


def bench_game(seed):
    gc.collect()
    base = gc.mem_alloc()
    from bao import core, notation, position_json

    gc.collect()
    code = gc.mem_alloc() - base
    rnd = Lcg(seed)
    p = core.initial(("malawi", "zanzibar", "malawi-intermediate", "malawi-advanced")[seed % 4])
    moves = core.legal_move_codes(p)
    peak = 0
    plies = 0
    # What the board holds at once: the legal moves of the position, the account of the move being
    # played, the next position and its legal moves, and the report line.
    while moves and plies < 300:
        gc.collect()
        start = gc.mem_alloc()
        m = moves[rnd.below(len(moves))]
        steps = bytearray()
        child = core.play(p, m, steps)
        text = notation.format_move(m, p.to_move)
        next_moves = core.legal_move_codes(child)
        report = text + " " + position_json.dumps(child, True, next_moves)
        used = gc.mem_alloc() - start
        assert report
        if used > peak:
            peak = used
        p, moves = child, next_moves
        steps = report = text = child = next_moves = None
        plies += 1
    gc.collect()
    print("code_bytes", code)
    print("working_peak_bytes", peak)
    print("plies", plies)


USAGE = (
    "usage: micropython tools/bench_rules_mp.py perft N [RULESET] | moves N_RANDOM | game SEED | slow 1"
    " | random N | positions FILE"
)


def main():
    argv = globals().get("ARGV") or sys.argv  # the Pico's sys has no argv: the runner sets ARGV
    what = argv[1] if len(argv) > 2 else ""
    if what == "positions":
        bench_positions(argv[2])
        return
    if what not in ("perft", "moves", "game", "slow", "random") or not argv[2].isdigit():
        print(USAGE)
        sys.exit(2)
    arg = int(argv[2])
    if what == "perft":
        bench_perft(arg, argv[3] if len(argv) > 3 else "zanzibar")
    elif what == "moves":
        bench_moves(arg)
    elif what == "game":
        bench_game(arg)
    elif what == "slow":
        bench_slow(arg)
    elif what == "random":
        bench_random(arg)


main()
