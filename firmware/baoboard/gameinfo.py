# What the rare jobs (baoboard.commands, baoboard.checks) and the host share about a game: the start
# position a GAME event's info describes (docs/protocol.md), and a value quoted short in a refusal.
from bao import position_json
from bao.layout import NORTH, SOUTH
from bao.position import ZANZIBAR, Position, Rules, initial


def short(v: object) -> str:
    """A value as a refusal quotes it: its repr, cut short."""
    return repr(v)[:40]


def start_of(info: dict) -> "Position":
    """The start position a GAME event's info describes."""
    pos = info.get("position")
    if pos is not None:
        return position_json.from_dict(pos)
    rules = Rules(info.get("ruleset", ZANZIBAR), **(info.get("options") or {}))
    first = NORTH if str(info.get("first", "S"))[:1] == "N" else SOUTH
    return initial(rules.ruleset, rules, first)
