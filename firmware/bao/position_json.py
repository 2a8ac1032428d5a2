# The position format used wherever a position leaves a process (issue #2):
# {"ruleset": "zanzibar", "to_move": "S", "A": [8 ints], "B": [...], "a": [...], "b": [...],
#  "store": {"S": 22, "N": 22}, "house": {"S": true, "N": true}, "takasia": null}
# List index k of a row is pit k+1. Optional: "winner": "S"|"N", "in_hand": n (a game that ended
# half-way through a move), "options": {...} (rule options that differ from the ruleset's defaults).
# The kuu games (M25): "store" = nemo left, "house" = kuu status, "takasia" = the threatened pit (M18),
# "must_capture": the opponent's pit the side to move must capture first (M19; absent = null),
# "placing": seeds the side to move still has to place (M22; absent = 0).
import json

# (from the layers, not bao.core's facade: the board imports this module, and a module's names take heap)
from bao import malawi  # noqa: F401  (M5: plugs the kuu games in, which a position of theirs needs)
from bao.errors import InvalidPositionError
from bao.layout import HOUSE, IN_HAND, MUST, NONE, PLACING, STORE, TAKASIA, TO_MOVE, WINNER, pit_name
from bao.position import MALAWI, Position, Rules
from bao.rules import finite_captures, outcome

_SIDES = ("S", "N")
_ROWS = (("A", 0, True), ("B", 0, False), ("a", 1, True), ("b", 1, False))


def _ring(front: bool, k: int) -> int:
    return k if front else 15 - k  # list index k = pit k + 1; back pit k + 1 is ring 15 - k


def to_dict(p: Position, with_outcome: bool = True, moves: "list | None" = None) -> dict:
    """The JSON object of p. With with_outcome, a position whose side to move has no legal move also
    carries its winner (that costs a move generation, unless p's legal `moves` are passed in)."""
    d = p.d
    out = {"ruleset": p.rules.ruleset, "to_move": _SIDES[d[TO_MOVE]]}  # type: dict
    for name, side, front in _ROWS:
        base = side << 4
        out[name] = [d[base + _ring(front, k)] for k in range(8)]
    out["store"] = {"S": d[STORE], "N": d[STORE + 1]}
    out["house"] = {"S": bool(d[HOUSE] & 1), "N": bool(d[HOUSE] & 2)}
    t = d[TAKASIA]
    out["takasia"] = None if t == NONE else pit_name((d[TO_MOVE] << 4) + t)
    if d[MUST] != NONE:
        out["must_capture"] = pit_name(((d[TO_MOVE] ^ 1) << 4) + d[MUST])
    if d[PLACING]:
        out["placing"] = d[PLACING]
    w = outcome(p, moves) if with_outcome else (None if d[WINNER] == NONE else d[WINNER])
    if w is not None:
        out["winner"] = _SIDES[w]
    if d[IN_HAND]:
        out["in_hand"] = d[IN_HAND]
    opts = p.rules.options()
    if opts:
        out["options"] = opts
    return out


def dumps(p: Position, with_outcome: bool = True, moves: "list | None" = None) -> str:
    return json.dumps(to_dict(p, with_outcome, moves))


_KEYS = (
    "ruleset",
    "to_move",
    "A",
    "B",
    "a",
    "b",
    "store",
    "house",
    "takasia",
    "must_capture",
    "placing",
    "winner",
    "in_hand",
    "options",
)


def _short(v: object) -> str:
    """A value quoted in an error: a huge one from a hostile file must not make a huge message."""
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _int(v: object, what: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InvalidPositionError("%s must be a whole number from %d to %d, not %s" % (what, lo, hi, _short(v)))
    return v


def from_dict(obj: object) -> Position:
    """Validate and build a position; InvalidPositionError says what is wrong."""
    if not isinstance(obj, dict):
        raise InvalidPositionError("a position is a JSON object")
    for k in obj:
        if k not in _KEYS:
            raise InvalidPositionError("unknown key %s in position" % (_short(k),))
    ruleset = obj.get("ruleset", "zanzibar")
    if not isinstance(ruleset, str):
        raise InvalidPositionError("ruleset must be a string")
    options = obj.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidPositionError("options must be an object")
    try:
        rules = Rules(ruleset, **options)
    except TypeError:
        raise InvalidPositionError("unknown rule option in %r" % (sorted(options),))
    p = Position(None, rules)
    d = p.d
    tm = obj.get("to_move")
    if tm not in _SIDES:
        raise InvalidPositionError('to_move must be "S" or "N", not %s' % (_short(tm),))
    d[TO_MOVE] = _SIDES.index(tm)
    total = 0
    for name, side, front in _ROWS:
        row = obj.get(name)
        if not isinstance(row, list) or len(row) != 8:
            raise InvalidPositionError("row %s must be a list of 8 seed counts" % name)
        for k in range(8):
            n = _int(row[k], "%s%d" % (name, k + 1), 0, 64)
            d[(side << 4) + _ring(front, k)] = n
            total += n
    total += _stores(obj, p, tm)
    w = obj.get("winner")
    if w is not None:
        if w not in _SIDES:
            raise InvalidPositionError('winner must be "S", "N" or absent')
        d[WINNER] = _SIDES.index(w)
    in_hand = _int(obj.get("in_hand", 0), "in_hand", 0, 64)
    if in_hand and w is None:
        raise InvalidPositionError("in_hand is only given for a game that ended half-way through a move")
    d[IN_HAND] = in_hand
    total += in_hand
    if total != 64:
        raise InvalidPositionError("the position holds %d seeds; Bao is played with 64" % total)
    if w is None:
        for i in (0, 1):
            if not any(d[(i << 4) + r] for r in range(8)):
                raise InvalidPositionError(
                    '%s\'s front row is empty: the game is over (1.2), so "winner" '
                    "must say who won" % ("South", "North")[i]
                )
    _takasia(obj, p, tm, w)
    if rules.kuu is not None:
        rules.kuu.check_position(p, obj)  # stores, placement (M7, M8, M22), M19
    elif obj.get("must_capture") is not None:
        raise InvalidPositionError("must_capture is set but only the kuu games have it (M19)")
    _derived_winner(p)
    return p


def _derived_winner(p: Position) -> None:
    """A winner the rules derive (the side to move has no legal move, 1.2, M23) is no mark of the position's:
    to_dict writes it, and the position read back must be the one written."""
    d = p.d
    w = d[WINNER]
    if w == NONE or d[IN_HAND]:
        return  # (no winner given; or a move ended the game half-way: the position keeps its winner)
    for i in (0, 1):
        if not any(d[(i << 4) + r] for r in range(8)):
            return  # (a front row emptied: a move ended the game, and the position keeps its winner)
    d[WINNER] = NONE
    if outcome(p) != w:
        d[WINNER] = w


def _stores(obj: dict, p: Position, tm: str) -> int:
    """The stores, houses and seeds still to place of p from obj; the seeds they hold (part of from_dict)."""
    rules = p.rules
    d = p.d
    total = 0
    store = obj.get("store", {"S": 0, "N": 0})
    house = obj.get("house", {"S": False, "N": False})
    if not isinstance(store, dict) or not isinstance(house, dict):
        raise InvalidPositionError("store and house must be objects with keys S and N")
    for i in (0, 1):
        n = _int(store.get(_SIDES[i], 0), "store " + _SIDES[i], 0, 20 if rules.kuu else 22)
        d[STORE + i] = n
        total += n
        h = house.get(_SIDES[i], False)
        if not isinstance(h, bool):
            raise InvalidPositionError("house %s must be true or false" % _SIDES[i])
        if h:
            if not d[(i << 4) + 4]:
                raise InvalidPositionError("house %s is owned but empty (2.5a: an emptied house is lost)" % _SIDES[i])
            d[HOUSE] |= 1 << i
    if rules.ruleset == MALAWI and (d[STORE] or d[STORE + 1] or d[HOUSE]):
        raise InvalidPositionError("Malawi positions have empty stores and no houses (M1)")
    s_store, n_store = d[STORE], d[STORE + 1]
    placing = _int(obj.get("placing", 0), "placing", 0, 64)
    if placing and not rules.kuu:
        raise InvalidPositionError("placing is only given in the malawi-advanced placement (M22)")
    if not rules.kuu and (
        (tm == "S" and s_store != n_store) or (tm == "N" and n_store != s_store + 1 and not (s_store == n_store == 0))
    ):
        raise InvalidPositionError(
            "stores S=%d N=%d cannot occur with %s to move (South moves first; 2.2: one seed a move)"
            % (s_store, n_store, tm)
        )
    d[PLACING] = placing
    total += placing
    return total


def _takasia(obj: dict, p: Position, tm: str, w: object) -> None:
    """The takasia-ed pit of p from obj (R8, 4.1; part of from_dict)."""
    rules = p.rules
    d = p.d
    t = obj.get("takasia")
    if t is not None:
        if not isinstance(t, str) or len(t) != 2 or t[0] != ("A" if tm == "S" else "a") or t[1] not in "12345678":
            raise InvalidPositionError("takasia must be null or a front pit of the side to move, not %s" % (_short(t),))
        if rules.ruleset == MALAWI or not rules.takasia:
            raise InvalidPositionError("takasia is set but the rules have no takasia (R8)")
        if d[STORE] or d[STORE + 1]:
            raise InvalidPositionError("takasia only happens in the mtaji stage (4.1)")
        ring = int(t[1]) - 1
        if not d[(d[TO_MOVE] << 4) + ring]:
            raise InvalidPositionError("takasia-ed pit %s is empty" % t)
        if w is None and finite_captures(p, True):
            raise InvalidPositionError(
                "impossible position: %s is takasia-ed but %s has a capture (R8: a pit "
                "is takasia-ed only when its side cannot capture)" % (t, ("South", "North")[d[TO_MOVE]])
            )
        d[TAKASIA] = ring


def loads(text: str) -> Position:
    try:
        obj = json.loads(text)
    except ValueError:
        raise InvalidPositionError("not JSON: a position is one JSON object per line")
    return from_dict(obj)
