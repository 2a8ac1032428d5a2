# The Malawi kuu games' own rules (M5-M25), plugged into the rules core as a ruleset's Game when this
# module is imported (by bao.core and bao.position_json; bao.position, bao.sowing and bao.rules never import
# it): their options (M7, M18, M21), the opening (M7), the advanced placement one ply per seed (M20-M22) and
# the threatened pit (M18). The nemo stage and the kuu's status (M9-M17) share the Zanzibar namua code of
# bao.sowing and bao.rules.
from bao.errors import InvalidPositionError
from bao.layout import (
    DROP,
    HOUSE,
    IN_HAND,
    MARK_M20,
    MARK_M21,
    MARK_M22,
    MUST,
    NONE,
    PLACING,
    RIGHT,
    RING,
    STEP_LIFT,
    STEP_SOW,
    STEP_STORE,
    STORE,
    TAKASIA,
    TAKE_SHIFT,
    TO_MOVE,
    WINNER,
    front_empty,
    write_step,
)
from bao.position import MALAWI_ADVANCED, MALAWI_INTERMEDIATE, Position, Rules, plug
from bao.rules import capture_starts, ends, finite_captures

try:  # for the annotations only: bao.protocols is a stub, no module at run time (this import always fails)
    from bao.protocols import Account
except ImportError:
    pass

NEMO = 20  # M7: nemo in each store at the start
_DEFAULTS = {"kuu_twos": (6, 7), "threat_start": "front", "placement_capture": True}


def _take_ring(d: bytearray, me: int, k: int) -> int:
    """M21: the opponent's ring facing the mover's k-th occupied front pit (k = 1..3), or NONE for k = 0."""
    if not k:
        return NONE
    for r in range(8):
        if d[me + r]:
            k -= 1
            if not k:
                return 7 - r
    return NONE


def drop(p: Position, move: int, rec: "Account | None") -> None:
    """One ply of the advanced placement (M20-M22) on p.d in place. The first drop lifts the mover's seeds
    outside the kuu, takes the pit chosen (M21, second player), and places the nemo; each later drop
    places one seed in hand. The turn passes when none is left."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    r = move & RING
    if d[PLACING]:
        d[me + r] += 1
        d[PLACING] -= 1
        if rec is not None:
            write_step(rec, STEP_SOW | MARK_M22, me + r, 1, 1)
    else:
        # M21: the pit taken faces an occupied pit before the lift
        t = _take_ring(d, me, (move >> 4) & 3) if move & 48 else NONE
        n = 0
        kuu = me + 4
        for i in range(me, me + 16):
            k = d[i]
            if k and i != kuu:
                if rec is not None:
                    write_step(rec, STEP_LIFT | MARK_M20, i, k, 0)
                n += k
                d[i] = 0
        if t != NONE:
            k = d[op + t]
            if rec is not None:
                write_step(rec, STEP_LIFT | MARK_M21, op + t, k, 0)
            n += k
            d[op + t] = 0
            if t == 4:
                d[HOUSE] &= ~(1 << (op >> 4))  # M16: the opponent's kuu is emptied
            if front_empty(d, op):  # M23: never from M7's opening, only from a position set so
                d[WINNER] = s
                d[IN_HAND] = n
                return
        d[STORE + s] -= 1
        d[me + r] += 1
        if rec is not None:
            write_step(rec, STEP_STORE | MARK_M20, me + r, 0, 0)
        d[PLACING] = n
    if not d[PLACING]:
        d[TO_MOVE] = s ^ 1


def drops(p: Position, keep: "bool | bytearray") -> list:
    """M20-M22: the placement's plies: a drop into any of the mover's 16 pits, and before the second
    player's first drop, optionally the take of one opponent pit facing an occupied front pit (M21)."""
    d = p.d
    s = d[TO_MOVE]
    me = s << 4
    op = me ^ 16
    takes = [0]
    kuu = p.rules.kuu  # (this game's: never None here)
    if not d[PLACING] and kuu is not None and kuu.placement_capture and d[STORE + (s ^ 1)] != NEMO:
        k = 0
        for r in range(8):
            if d[me + r]:
                k += 1
                if d[op + 7 - r] and k < 4:
                    takes.append((k << 4) | ((8 - r) << TAKE_SHIFT))
    out = []  # type: list
    rec = None if keep is True or keep is False else keep  # with their accounts: the scratch they go in
    for t in takes:
        if keep is False:
            for r in range(16):
                out.append(r | t | DROP)
            continue
        # The drop into ring 0 played once; the other 15 drops of this take differ from it only in the pit
        # the last seed goes into, the pit of the account's last step (the first drop's lift and take are
        # the same): each is a copy of it with that seed moved (a first drop that ends the game at its
        # take, M23, places nothing: its 16 drops lead to the same position)
        first = Position(bytearray(d), p.rules)
        if rec is not None:
            rec[:] = b""
        drop(first, t | DROP, rec)
        fd = first.d
        placed = fd[WINNER] == NONE
        for r in range(16):
            cd = bytearray(fd)
            if placed:
                cd[me] -= 1
                cd[me + r] += 1
                if rec is not None:
                    rec[len(rec) - 3] = me + r
            child = Position(cd, p.rules)
            out.append((r | t | DROP, child) if rec is None else (r | t | DROP, child, bytes(rec)))
    return out


def threatened(child: Position) -> int:
    """M18: after X's second-stage takata, Y (to move in child) has no capture and every capture move
    X could make captures first in one and the same front pit of Y: that pit is threatened (no exception,
    unlike R8). Returns Y's ring or NONE."""
    d = child.d
    if d[STORE] or d[STORE + 1] or finite_captures(child, True):
        return NONE
    y = d[TO_MOVE]
    must = d[MUST]
    threat = d[TAKASIA]
    # X's captures: child seen with X to move, no pit of Y's to capture first and no threat, for a moment
    # (no copy: a new position costs more than a put-back, docs/benchmarks.md)
    d[TO_MOVE] = y ^ 1
    d[MUST] = NONE
    d[TAKASIA] = NONE
    xme = (y ^ 1) << 4
    check = child.rules.infinite != "sleep"  # a sleeping move is legal (M24): nothing to check
    target = NONE
    for m in capture_starts(child):
        r = m & RING
        n = d[xme + r] if r < 8 else -d[xme + r]  # G6 (core.ring_direction, inlined)
        t = 7 - ((r + n if m & RIGHT else r - n) & 15)
        if t == target:
            continue
        if check and not ends(child, m):  # (played on d, then put back)
            continue
        if target != NONE:
            target = NONE  # two pits or more: no threat
            break
        target = t
    d[TO_MOVE] = y
    d[MUST] = must
    d[TAKASIA] = threat
    return target


class Game:
    """The kuu games' rules for one Rules object (rules.kuu): its options, checked, as attributes.
    advanced: malawi-advanced (the placement, M20-M22). twos: M7's front pits of the two 2s of the lost
    Figure 2 (ruling: 6 and 7, as Zanzibar R1; any pair that leaves no capture at the start: not pit 4,
    which faces the other kuu, nor a pair whose pits face each other). threat_any: M18's threatened pit may
    start a takata only when no pit of either row could ("any"), not when it is the only start the basic
    rules allow front row first ("front", ruling). placement_capture: M21, the second player may take one
    pit before placing (ruling: optional, "can also")."""

    def __init__(self, rules: Rules, more: dict) -> None:
        for key in more:
            if key not in _DEFAULTS:
                raise TypeError("unknown rule option %r" % (key,))
        twos = more.get("kuu_twos", (6, 7))
        if (
            not isinstance(twos, (list, tuple))
            or len(twos) != 2
            or twos[0] == twos[1]
            or [k for k in twos if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 8 or k == 5]
        ):
            raise InvalidPositionError("option kuu_twos must be two different front pits 1..8 other than the kuu (5)")
        if 4 in twos or twos[0] + twos[1] == 9:  # pit k faces pit 9 - k
            raise InvalidPositionError(
                "M7: option kuu_twos may not hold pit 4 (it faces the other kuu) nor two pits"
                " that face each other: the first move is a takata, no capture at the start"
            )
        threat = more.get("threat_start", "front")
        if threat not in ("front", "any"):
            raise InvalidPositionError("option threat_start must be 'front' or 'any'")
        self.advanced = rules.ruleset == MALAWI_ADVANCED
        self.twos = (min(twos), max(twos))
        self.threat_any = threat == "any"
        self.placement_capture = bool(more.get("placement_capture", True))

    def check_position(self, p: Position, obj: dict) -> None:
        """bao.position_json's checks of a position of this game read from `obj`: its stores and placement
        (M7, M8, M22) and its must_capture (M19)."""
        d = p.d
        check_stores(d, self, d[PLACING], obj["to_move"])
        must = obj.get("must_capture")
        if must is not None:
            set_must_capture(p, must, obj.get("winner") is not None)

    def options(self, out: dict) -> None:
        """Adds to out the kuu options that differ from the defaults (as JSON values)."""
        if self.twos != (6, 7):
            out["kuu_twos"] = list(self.twos)
        if self.threat_any:
            out["threat_start"] = "any"
        if not self.placement_capture:
            out["placement_capture"] = False

    def opening(self, d: bytearray) -> None:
        """M6, M7: the kuu (front pit 5) with 8, the two 2s, 20 nemo each, both kuus with status."""
        for base in (0, 16):
            d[base + 4] = 8
            d[base + self.twos[0] - 1] = 2
            d[base + self.twos[1] - 1] = 2
            d[STORE + (base >> 4)] = NEMO
        d[HOUSE] = 3

    def placing(self, d: bytearray) -> bool:
        """M22: the side to move is placing: it has seeds left to place, or (advanced game) all 20 nemo."""
        return self.advanced and bool(d[PLACING] or d[STORE + d[TO_MOVE]] == NEMO)

    # the placement's ply and its plies as bao.rules lists moves (M20-M22), M18's threatened pit (above)
    drop = staticmethod(drop)
    drops = staticmethod(drops)
    threatened = staticmethod(threatened)


def check_stores(d: bytearray, game: Game, placing: int, tm: str) -> None:
    """Stores and placement of a kuu game (M7, M8, M22): each side has 20 nemo and moves alternate, the
    first player chosen by lot, so the side to move holds as many nemo as the other or one more; while
    placing, it has taken its nemo already. A malawi-advanced side with all 20 has not placed yet."""
    s = d[TO_MOVE]
    mine, other = d[STORE + s], d[STORE + (s ^ 1)]
    if placing:
        if not game.advanced or mine != NEMO - 1 or other not in (NEMO - 1, NEMO):
            raise InvalidPositionError(
                "placing %d cannot occur here: only a malawi-advanced player places, "
                "right after taking his first nemo (M20, M22)" % placing
            )
    elif mine not in (other, other + 1):
        raise InvalidPositionError(
            "stores S=%d N=%d cannot occur with %s to move (M8: one nemo a move, "
            "moves alternate)" % (d[STORE], d[STORE + 1], tm)
        )
    if game.advanced:
        for side in (0, 1):
            if d[STORE + side] == NEMO:
                base = side << 4
                for ring in range(16):
                    want = 8 if ring == 4 else (2 if ring < 8 and ring + 1 in game.twos else 0)
                    if d[base + ring] != want or not d[HOUSE] & (1 << side):
                        raise InvalidPositionError(
                            "%s has not placed yet (20 nemo), so its pits must be the "
                            "opening's (M7, M22)" % ("South", "North")[side]
                        )


def set_must_capture(p: Position, m: object, over: bool) -> None:
    """M19: the opponent's front pit (threatened at his last move) that the side to move must capture first."""
    d = p.d
    op = "a" if d[TO_MOVE] == 0 else "A"
    if not isinstance(m, str) or len(m) != 2 or m[0] != op or m[1] not in "12345678":
        raise InvalidPositionError(
            "must_capture must be null or a front pit of the side not to move, not %s" % (_short(m),)
        )
    if not p.rules.kuu:
        raise InvalidPositionError("must_capture is set but only the kuu games have it (M19)")
    if d[TAKASIA] != NONE:
        raise InvalidPositionError(
            "impossible position: a side with a threatened pit has no capture to make (M18, M19)"
        )
    ring = int(m[1]) - 1
    if not d[(d[TO_MOVE] ^ 1) * 16 + ring]:
        raise InvalidPositionError("must_capture pit %s is empty (M19: the rule lapses)" % m)
    d[MUST] = ring
    if not over and not capture_starts(p):
        raise InvalidPositionError("impossible position: no capture takes %s first (M18, M19)" % m)


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


# M5: the kuu games, intermediate (the kuu and the nemo stage) and advanced (after a free placement)
plug(MALAWI_INTERMEDIATE, Game)
plug(MALAWI_ADVANCED, Game)
