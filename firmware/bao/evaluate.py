# The engine's evaluation of a Bao position: features read straight from Position.d (no move generation,
# no allocation), weighted by data (bao.engine_weights, written by tools/tune_engine.py). Scores are in
# centiseeds (100 = one seed) from the point of view of the side to move. Runs on CPython and MicroPython.
try:  # for the annotations only: a name of the stubs only (this import always fails)
    from micropython import Const_T
except ImportError:
    pass

try:
    from micropython import const
except ImportError:  # CPython

    def const(__expr: "Const_T") -> "Const_T":  # (micropython.const's type: the stubs' Const_T)
        return __expr


from bao.layout import HOUSE, NONE, STORE, TAKASIA, TO_MOVE

# Feature numbers: each is "mine minus the opponent's" unless it names one side. The stage (namua while the
# side to move's store holds seeds, R2; mtaji after) picks one of two weight sets: WEIGHTS[stage * COUNT + k].
F_SEEDS = const(0)  # seeds in pits and store (the material)
F_FRONT = const(1)  # seeds in the front row (what captures can reach, and what keeps a side alive, 1.2)
F_OCCUPIED = const(2)  # occupied front pits
F_DANGER = const(3)  # (3 - occupied front pits)^2 when fewer than 3: close to losing by an empty front row
F_MOBILITY = const(4)  # pits a move can start from (namua: occupied front pits; mtaji: 2+ seeds, 3.3)
F_CAPTURE = const(5)  # the most seeds the side to move can capture first (captures available, 1.7a)
F_THREAT = const(6)  # the most seeds the opponent could capture first were it to move (threatened)
F_CAPTURES = const(7)  # capture moves available to the side to move
F_THREATS = const(8)  # capture moves the opponent would have
FHOUSE = const(9)  # an owned house (2.5), mine minus theirs
FHOUSE_SEEDS = const(10)  # seeds in an owned house, mine minus theirs
FTAKASIA = const(11)  # one of the side to move's pits is takasia-ed (4.1)
COUNT = const(12)
NAMES = (
    "seeds",
    "front",
    "occupied",
    "danger",
    "mobility",
    "capture",
    "threat",
    "captures",
    "threats",
    "house",
    "house_seeds",
    "takasia",
)


def captures(d: bytearray, me: int, op: int, namua: bool) -> int:
    """(number of capture moves) << 8 | (the most seeds one of them takes first), for the side whose pits
    start at `me` as if it were to move (2.3 namua, 3.4 mtaji)."""
    count = 0
    best = 0
    if namua:
        for r in range(8):
            if d[me + r]:
                n = d[op + 7 - r]
                if n:
                    count += 1
                    if n > best:
                        best = n
        return (count << 8) | best
    for r in range(16):
        n = d[me + r]
        if 2 <= n <= 15:
            if r < 8:
                e = r + n  # R on the front row is clockwise (G6)
                f = r - n
            else:
                e = r - n
                f = r + n
            e &= 15
            f &= 15
            if e < 8 and d[me + e]:
                c = d[op + 7 - e]
                if c:
                    count += 1
                    if c > best:
                        best = c
            if f < 8 and d[me + f]:
                c = d[op + 7 - f]
                if c:
                    count += 1
                    if c > best:
                        best = c
    return (count << 8) | best


def _side(d: bytearray, base: int, namua: bool) -> int:
    """front seeds | occupied front pits << 10 | mobility << 15 | all pit seeds << 20 (small ints)."""
    front = occupied = mobile = 0
    for i in range(base, base + 8):
        n = d[i]
        if n:
            front += n
            occupied += 1
            if namua or n > 1:
                mobile += 1
    back = 0
    for i in range(base + 8, base + 16):
        n = d[i]
        if n:
            back += n
            if n > 1 and not namua:
                mobile += 1
    return front | (occupied << 10) | (mobile << 15) | ((front + back) << 20)


def features(d: bytearray, out: "list | None" = None) -> list:
    """The feature values of a position (side to move's view) into `out` (COUNT ints) and the stage
    appended last; for tuning and tests. evaluate() computes the same without a list."""
    if out is None:
        out = [0] * (COUNT + 1)
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    namua_me = d[STORE + s] > 0
    namua_op = d[STORE + (s ^ 1)] > 0
    a = _side(d, me, namua_me)
    b = _side(d, op, namua_op)
    out[F_SEEDS] = (a >> 20) + d[STORE + s] - (b >> 20) - d[STORE + (s ^ 1)]
    out[F_FRONT] = (a & 1023) - (b & 1023)
    oa = (a >> 10) & 31
    ob = (b >> 10) & 31
    out[F_OCCUPIED] = oa - ob
    da = 3 - oa if oa < 3 else 0
    db = 3 - ob if ob < 3 else 0
    out[F_DANGER] = da * da - db * db
    out[F_MOBILITY] = ((a >> 15) & 31) - ((b >> 15) & 31)
    c = captures(d, me, op, namua_me)
    t = captures(d, op, me, namua_op)
    out[F_CAPTURE] = c & 255
    out[F_THREAT] = t & 255
    out[F_CAPTURES] = c >> 8
    out[F_THREATS] = t >> 8
    h = d[HOUSE]
    hm = (h >> s) & 1
    ho = (h >> (s ^ 1)) & 1
    out[FHOUSE] = hm - ho
    out[FHOUSE_SEEDS] = (d[me + 4] if hm else 0) - (d[op + 4] if ho else 0)
    out[FTAKASIA] = 1 if d[TAKASIA] != NONE else 0
    out[COUNT] = 0 if namua_me else 1
    return out


def evaluate(d: bytearray, w: tuple) -> int:
    """The position's value for the side to move, in centiseeds, with weights w (2 * COUNT ints)."""
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    namua_me = d[STORE + s] > 0
    namua_op = d[STORE + (s ^ 1)] > 0
    k = 0 if namua_me else COUNT
    a = _side(d, me, namua_me)
    b = _side(d, op, namua_op)
    v = w[k + F_SEEDS] * ((a >> 20) + d[STORE + s] - (b >> 20) - d[STORE + (s ^ 1)])
    v += w[k + F_FRONT] * ((a & 1023) - (b & 1023))
    oa = (a >> 10) & 31
    ob = (b >> 10) & 31
    v += w[k + F_OCCUPIED] * (oa - ob)
    if oa < 3 or ob < 3:
        da = 3 - oa if oa < 3 else 0
        db = 3 - ob if ob < 3 else 0
        v += w[k + F_DANGER] * (da * da - db * db)
    v += w[k + F_MOBILITY] * (((a >> 15) & 31) - ((b >> 15) & 31))
    c = captures(d, me, op, namua_me)
    t = captures(d, op, me, namua_op)
    v += w[k + F_CAPTURE] * (c & 255) + w[k + F_THREAT] * (t & 255)
    v += w[k + F_CAPTURES] * (c >> 8) + w[k + F_THREATS] * (t >> 8)
    h = d[HOUSE]
    if h:
        hm = (h >> s) & 1
        ho = (h >> (s ^ 1)) & 1
        v += w[k + FHOUSE] * (hm - ho)
        v += w[k + FHOUSE_SEEDS] * ((d[me + 4] if hm else 0) - (d[op + 4] if ho else 0))
    if d[TAKASIA] != NONE:
        v += w[k + FTAKASIA]
    return v
