# The Malawi kuu games' host-side rules, loaded only when needed (the board's heap is small): their
# options' checks, the derived stage, the position checks (M7, M8, M19, M22) and the drop notation (M25).
# The placement's plies are in bao.placement; the rules of every move stay in bao.core.
from bao.core import (
    HOUSE,
    MUST,
    NEMO,
    NONE,
    PLACING,
    RING,
    STORE,
    TAKASIA,
    TAKE_MASK,
    TAKE_SHIFT,
    TO_MOVE,
    IllegalMoveError,
    InvalidPositionError,
    NotationError,
    Position,
    Rules,
    _capture_starts,
    _placing,
    legal_move_codes,
    pit_index,
    play,
)


def set_options(rules: Rules, kuu_twos: "list | tuple", threat_start: str, placement_capture: bool) -> None:
    """The kuu games' options, checked. M7: the front pits of the two 2s of the lost Figure 2 (ruling: 6
    and 7, as Zanzibar R1). M18: a threatened pit may start a takata when it is the only start the basic
    rules allow, front row first ("front", ruling), or only when no pit of either row could ("any").
    M21: the second player may take one pit before placing (ruling: optional, "can also")."""
    if (not isinstance(kuu_twos, (list, tuple)) or len(kuu_twos) != 2 or kuu_twos[0] == kuu_twos[1]
            or [k for k in kuu_twos if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 8 or k == 5]):
        raise InvalidPositionError("option kuu_twos must be two different front pits 1..8 other than the kuu (5)")
    rules.kuu_twos = (min(kuu_twos), max(kuu_twos))
    if threat_start not in ("front", "any"):
        raise InvalidPositionError("option threat_start must be 'front' or 'any'")
    rules.threat_start = threat_start
    rules.placement_capture = bool(placement_capture)


def stage(p: Position) -> str:
    """The side to move's stage, derived (M8, M22): "placement", "nemo" / "namua", or "mtaji"."""
    d = p.d
    if _placing(p):
        return "placement"
    if d[STORE + d[TO_MOVE]]:
        return "nemo" if p.rules.kuu else "namua"
    return "mtaji"


def split_plies(word: str) -> list:
    """A transcript token as plies: a placement token ("@A4@A3", "xA3@a4@a4") holds one ply per drop."""
    if "@" not in word:
        return [word]
    out = []
    i = 0
    while i < len(word):
        j = word.find("@", i + 1)
        if word[i] in "xX" and j >= 0:
            j = word.find("@", j + 1)  # "xA3@a4": the take and the first drop are one ply
        if j < 0:
            j = len(word)
        out.append(word[i:j])
        i = j
    return out


def _drop_side(ply: str) -> str:
    """"S" or "N" for a drop (the case of the pit it places in), "" for any other ply."""
    k = ply.rfind("@")
    if k < 0 or k + 1 >= len(ply):
        return ""
    return "S" if ply[k + 1] in "AB" else "N"


def join_turns(plies: list) -> list:
    """Plies as transcript tokens: a side's consecutive drops make one token (M22)."""
    out = []  # type: list
    last = ""
    for ply in plies:
        side = _drop_side(ply)
        if side and side == last:
            out[-1] += ply
        else:
            out.append(ply)
        last = side
    return out


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def check_game(d: bytearray, rules: Rules, placing: int, tm: str) -> None:
    """Stores and placement of a kuu game (M7, M8, M22): each side has 20 nemo and moves alternate, the
    first player chosen by lot, so the side to move holds as many nemo as the other or one more; while
    placing, it has taken its nemo already. A malawi-advanced side with all 20 has not placed yet."""
    s = d[TO_MOVE]
    mine, other = d[STORE + s], d[STORE + (s ^ 1)]
    if placing:
        if not rules.placement or mine != NEMO - 1 or other not in (NEMO - 1, NEMO):
            raise InvalidPositionError("placing %d cannot occur here: only a malawi-advanced player places, "
                                       "right after taking his first nemo (M20, M22)" % placing)
    elif mine not in (other, other + 1):
        raise InvalidPositionError("stores S=%d N=%d cannot occur with %s to move (M8: one nemo a move, "
                                   "moves alternate)" % (d[STORE], d[STORE + 1], tm))
    if rules.placement:
        for side in (0, 1):
            if d[STORE + side] == NEMO:
                base = side << 4
                for ring in range(16):
                    want = 8 if ring == 4 else (2 if ring < 8 and ring + 1 in rules.kuu_twos else 0)
                    if d[base + ring] != want or not d[HOUSE] & (1 << side):
                        raise InvalidPositionError("%s has not placed yet (20 nemo), so its pits must be the "
                                                   "opening's (M7, M22)" % ("South", "North")[side])


def set_must_capture(p: Position, m: object, over: bool) -> None:
    """M19: the opponent's front pit (threatened at his last move) that the side to move must capture first."""
    d = p.d
    op = "a" if d[TO_MOVE] == 0 else "A"
    if not isinstance(m, str) or len(m) != 2 or m[0] != op or m[1] not in "12345678":
        raise InvalidPositionError("must_capture must be null or a front pit of the side not to move, not %s"
                                   % (_short(m),))
    if not p.rules.kuu:
        raise InvalidPositionError("must_capture is set but only the kuu games have it (M19)")
    if d[TAKASIA] != NONE:
        raise InvalidPositionError("impossible position: a side with a threatened pit has no capture to make "
                                   "(M18, M19)")
    ring = int(m[1]) - 1
    if not d[(d[TO_MOVE] ^ 1) * 16 + ring]:
        raise InvalidPositionError("must_capture pit %s is empty (M19: the rule lapses)" % m)
    d[MUST] = ring
    if not over and not _capture_starts(p):
        raise InvalidPositionError("impossible position: no capture takes %s first (M18, M19)" % m)


def parse_drop(text: str) -> "tuple[int, int]":
    """Syntax of a placement drop (M25): "@A4" -> (-1, pit), "xA3@a4" -> (taken pit, pit), global indices."""
    s = text.strip()
    taken = -1
    if s[:1] in ("x", "X"):
        taken = pit_index(s[1:3])
        s = s[3:]
    if s[:1] != "@" or len(s) != 3:
        raise NotationError("%r: a drop is @pit, or xpit@pit for the second player's first (M25)" % (_short(text),))
    return taken, pit_index(s[1:])


def find_drop(p: Position, text: str) -> "tuple[int, Position]":
    taken, pit = parse_drop(text)
    d = p.d
    side = d[TO_MOVE]
    if not _placing(p):
        raise IllegalMoveError("M22: %s is not placing: only the advanced game's placement drops seeds" % (
            "South" if side == 0 else "North"), "M22")
    if pit >> 4 != side:
        raise IllegalMoveError("M20: %s places in his own 16 pits, not in %s" % (
            "South" if side == 0 else "North", text.strip()[-2:]), "M20")
    want_take = 0 if taken < 0 else (taken & 15) + 1
    for m in legal_move_codes(p):
        if m & RING == pit & 15 and (m >> TAKE_SHIFT) & TAKE_MASK == want_take:
            return m, play(p, m)
    if d[PLACING]:
        raise IllegalMoveError("M21: a pit is taken only before the first seed is placed", "M21")
    raise IllegalMoveError("M21: %s cannot be taken: the second player takes one opponent front pit facing an "
                           "occupied front pit of his own, before placing" % (text.strip()[1:3],), "M21")
