# The position format used wherever a position leaves a process (issue #2):
# {"ruleset": "zanzibar", "to_move": "S", "A": [8 ints], "B": [...], "a": [...], "b": [...],
#  "store": {"S": 22, "N": 22}, "house": {"S": true, "N": true}, "takasia": null}
# List index k of a row is pit k+1. Optional: "winner": "S"|"N", "in_hand": n (a game that ended
# half-way through a move), "options": {...} (rule options that differ from the ruleset's defaults).
# The kuu games (M25): "store" = nemo left, "house" = kuu status, "takasia" = the threatened pit (M18),
# "must_capture": the opponent's pit the side to move must capture first (M19; absent = null),
# "placing": seeds the side to move still has to place (M22; absent = 0).
import json

try:
    from micropython import const
except ImportError:  # CPython

    def const(x: int) -> int:  # type: ignore[misc]
        return x


from bao.core import (
    HOUSE,
    IN_HAND,
    NONE,
    STORE,
    TAKASIA,
    TO_MOVE,
    WINNER,
    InvalidPositionError,
    Position,
    outcome,
    pit_name,
)

_MUST = const(39)  # bao.core's private layout (bao.kuu names it for the host): M19
_PLACING = const(40)  # M22
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
    if d[_MUST] != NONE:
        out["must_capture"] = pit_name(((d[TO_MOVE] ^ 1) << 4) + d[_MUST])
    if d[_PLACING]:
        out["placing"] = d[_PLACING]
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


def from_dict(obj: object) -> Position:
    """Validate and build a position; InvalidPositionError says what is wrong (bao.position_read: the
    checks are loaded only when a position is read, so the board's play keeps only the writer in RAM)."""
    from bao.position_read import from_dict as read

    return read(obj)


def loads(text: str) -> Position:
    try:
        obj = json.loads(text)
    except ValueError:
        raise InvalidPositionError("not JSON: a position is one JSON object per line")
    return from_dict(obj)
