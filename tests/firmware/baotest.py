# Helpers shared by the rules tests; runs on CPython and on the MicroPython unix port.
import sys

from bao import core, notation, position_json, query

ROOT = __file__.rsplit("/tests/", 1)[0] if "/tests/" in __file__ else "."


def read(path):
    with open(ROOT + "/" + path) as f:
        return f.read()


def position(
    rows, to_move="S", store=(0, 0), house=(False, False), ruleset="zanzibar", takasia=None, fill=None, **options
):
    """Build a position from rows given pit 1..8 as text, e.g. {"A": "0 0 0 0 2 0 0 0"}; missing rows are
    empty. `fill` names a pit that takes whatever the 64 seeds leave over."""
    obj = {
        "ruleset": ruleset,
        "to_move": to_move,
        "store": {"S": store[0], "N": store[1]},
        "house": {"S": house[0], "N": house[1]},
        "takasia": takasia,
    }
    total = store[0] + store[1]
    for name in ("A", "B", "a", "b"):
        row = [int(x) for x in rows.get(name, "0 0 0 0 0 0 0 0").split()]
        assert len(row) == 8, name
        obj[name] = row
        total += sum(row)
    if fill:
        obj[fill[0]][int(fill[1]) - 1] += 64 - total
    if options:
        obj["options"] = options
    return position_json.from_dict(obj)


def names(p):
    """The legal moves of p as Donkers text, sorted."""
    side = p.d[core.TO_MOVE]
    return sorted(notation.format_move(m, side) for m, _ in core.legal_moves(p))


def play(p, text):
    return notation.parse_move(p, text)[1]


def row(p, name):
    return position_json.to_dict(p, False)[name]


def reason(p, text):
    """The IllegalMoveError message of a move text, or None when it is legal."""
    try:
        notation.parse_move(p, text)
    except core.IllegalMoveError as e:
        return str(e)
    return None


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError("%s not raised" % exc.__name__)


def steps_of(p, text, kind):
    m = notation.parse_move(p, text)[0]
    return [s for s in query.account(p, m) if s[0] == kind]


if sys.implementation.name == "micropython":  # nothing more to set up
    pass
