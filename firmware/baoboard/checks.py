# Rare checks, loaded by baoboard.commands only when needed and dropped after (their code is not in RAM
# during play, nor while the other rare jobs run; a faulty sensor's report is baoboard.sensors):
#   command(app, typ, payload, now) -> (ok, reply)   the NEW, SETPOS, CPU, HINT and SHOW commands: checked,
#                                    then run (the computer and the moves shown: baoboard.opponent)
#   check_new(obj, keys) -> str      what is wrong with NEW's JSON, or a rules options object ("" if nothing)
try:  # for the annotations only
    from typing import Any  # noqa: F401

    from baoboard.app import App
except ImportError:
    pass

import json

from bao import position_json, sowing
from bao.errors import BaoError
from bao.layout import TO_MOVE
from bao.movetext import format_move
from bao.position import RULESETS, ZANZIBAR
from bao.rules import legal_move_codes

from baoboard import recogniser as R
from baoboard.gameinfo import short, start_of


def command(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    if typ == "NEW" or typ == "SETPOS":
        return new_game(a, typ, payload)
    return computer(a, typ, payload, now)


def new_game(a: "App", typ: str, payload: str) -> "tuple[bool, str]":
    if typ == "NEW":
        try:
            info = json.loads(payload) if payload[:1] in ("{", "[") else {"ruleset": payload or ZANZIBAR}  # type: Any
        except ValueError:
            return False, "badarg NEW's JSON is unreadable"
        why = check_new(info, ("ruleset", "options", "first", "position"))
        if not why and isinstance(info.get("position"), dict):
            why = check_new(info["position"].get("options") or {}, None)
        if why:
            return False, "badarg " + why
        try:
            start = start_of(info)
        except (ValueError, TypeError) as e:
            return False, "badarg " + str(e)
        a.post_game(start, info.get("position"))
        return True, ""
    start, why = read_position(payload)  # SETPOS
    if start is None:
        return False, why
    if sowing.serve is not None:  # in a step: a scan between the reading and the listing
        sowing.serve()
    moves = legal_move_codes(start)  # (once: for the GAME event's winner and the game's first boundary)
    a.post_game(start, position_json.to_dict(start, True, moves), moves)
    return True, ""


def read_position(payload: str) -> "tuple[Any, str]":
    """A position's JSON from the host (SETPOS, SETUP): (the position, "") or (None, "badarg <what is wrong>"),
    its options checked for their types as NEW's are."""
    try:
        obj = json.loads(payload)
    except ValueError:
        obj = None  # position_json.loads says what is wrong
    why = check_new(obj.get("options") or {}, None) if isinstance(obj, dict) else ""
    if why:
        return None, "badarg " + why
    try:
        return (position_json.from_dict(obj) if obj is not None else position_json.loads(payload)), ""
    except ValueError as e:
        return None, "badarg " + str(e)


def computer(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    """The host commands CPU (who the computer plays, at which level), HINT and SHOW (light a move)."""
    if typ == "SHOW":
        if a.rec.phase != R.IDLE:  # a hand is sowing: lighting a move now would restart the recogniser and
            # drop the move half made; the host shows it once this move is made (or taken back)
            return False, "state a move is being made: SHOW is for a move between moves"
        from baoboard.opponent import light

        p = a.p
        side = p.d[TO_MOVE]
        lead = side == a.cpu  # the host's engine plays for the computer: only its move is followed
        for m in legal_move_codes(p):  # a move written as the board writes it: no parser loaded
            if format_move(m, side) == payload:
                light(a, m, lead)
                return True, payload
        from bao import notation

        try:
            m, _ = notation.parse_move(p, payload)
        except BaoError as e:
            return False, "badarg " + str(e)
        light(a, m, lead)
        return True, notation.format_move(m, side)
    if typ == "CPU":
        from baoboard.opponent import LEVELS, setup

        words = payload.split()
        if words == ["off"]:
            setup(a, -1, a.level, now, keep_move=True)
            return True, "off"
        side = "SN".find(words[0]) if len(words) in (1, 2) and len(words[0]) == 1 else -1
        level = int(words[1]) if len(words) == 2 and words[1].isdigit() else (1 if len(words) == 1 else -1)
        if side < 0 or not 0 <= level <= LEVELS:
            return False, "badarg CPU off | CPU S|N [level 0..%d] (0: the host's engine, through SHOW)" % LEVELS
        setup(a, side, level, now, keep_move=True)
        return True, "%s %d" % ("SN"[side], level)
    # HINT
    if a.rec.phase != R.IDLE or a.p.d[TO_MOVE] == a.cpu:
        return False, "state a hint is for the player to move, between moves"
    a.think_due = 2  # the search runs at the end of this step, after this reply
    return True, ""


def check_new(obj: object, keys: "tuple | None") -> str:
    """What is wrong ("" when nothing) with NEW's JSON (keys: the keys it may have), or with a rules options
    object (keys None): known options, each of the type it must have. (bao.position.Rules reads bool(x) and would
    take 5 or "no" for a takasia option: the board checks the types first.)"""
    if keys is not None:
        if not isinstance(obj, dict):
            return "NEW takes a ruleset name or a JSON object, not " + short(obj)
        for k in obj:
            if k not in keys:
                return "unknown key %s in NEW (%s)" % (short(k), ", ".join(keys))
        if obj.get("ruleset", ZANZIBAR) not in RULESETS:
            return "unknown ruleset %s (%s)" % (short(obj.get("ruleset")), " or ".join(RULESETS))
        if obj.get("first", "S") not in ("S", "N"):
            return 'first must be "S" or "N", not ' + short(obj.get("first"))
        obj = obj.get("options") or {}
    if not isinstance(obj, dict):
        return "options must be a JSON object, not " + short(obj)
    yes_no = (True, False)
    values = {
        "takasia": (True, False, None),
        "house_stop_any_count": yes_no,
        "mtaji_takasa_house_stop": yes_no,
        "infinite": ("illegal", "sleep", None),
        "lone_kichwa": ("forbidden", "loses", None),
    }
    for k in obj:
        v = obj[k]
        if k == "sow_bound" or k == "relay_limit":
            if not (type(v) is int and v >= 0) and not (v is None and k == "relay_limit"):
                return "option %s must be a whole number >= 0, not %s" % (k, short(v))
            continue
        allowed = values.get(k)
        if allowed is None:
            return "unknown option %s (%s)" % (short(k), ", ".join(values) + ", sow_bound")
        # `is`, not `in`: 1 == True and 0 == False in Python, and a 1 is not a yes
        if not any(v is x or (type(v) is str and v == x) for x in allowed):
            return "option %s must be one of %s, not %s" % (k, ", ".join(map(json.dumps, allowed)), short(v))
    return ""
