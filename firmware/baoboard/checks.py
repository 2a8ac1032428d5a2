# Rare checks, loaded by baoboard.commands only when needed and dropped after (their code is not in RAM
# during play, nor while the other rare jobs run):
#   command(app, typ, payload, now) -> (ok, reply)   the NEW, SETPOS, CPU, HINT and SHOW commands: checked,
#                                    then run (the computer and the moves shown: baoboard.opponent)
#   check_new(obj, keys) -> str      what is wrong with NEW's JSON, or a rules options object ("" if nothing)
#   fault(app, now, pit=-1) -> bool  report the sensors the debouncer found faulty, go on without them; with
#                                    pit (a touch refused mid-move): find a chip that senses nothing (silent)
try:  # for the annotations only
    from typing import Any  # noqa: F401

    from baoboard.app import App
except ImportError:
    pass

import json

from bao import core, position_json

from baoboard import recogniser as R
from baoboard.commands import _short, start_of
from baoboard.compat import const


def command(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    if typ == "NEW" or typ == "SETPOS":
        return new_game(a, typ, payload)
    return computer(a, typ, payload, now)


def new_game(a: "App", typ: str, payload: str) -> "tuple[bool, str]":
    if typ == "NEW":
        try:
            info = json.loads(payload) if payload[:1] in ("{", "[") else {"ruleset": payload or core.ZANZIBAR}  # type: Any
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
    try:  # SETPOS
        obj = json.loads(payload)
    except ValueError:
        obj = None  # position_json.loads says what is wrong
    why = check_new(obj.get("options") or {}, None) if isinstance(obj, dict) else ""
    if why:
        return False, "badarg " + why
    try:
        start = position_json.loads(payload)
    except ValueError as e:
        return False, "badarg " + str(e)
    a.post_game(start, position_json.to_dict(start))
    return True, ""


def computer(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    """The host commands CPU (who the computer plays, at which level), HINT and SHOW (light a move)."""
    if typ == "SHOW":
        from baoboard.opponent import light

        p = a.p
        side = p.d[core.TO_MOVE]
        lead = side == a.cpu  # the host's engine plays for the computer: only its move is followed
        for m in core.legal_move_codes(p):  # a move written as the board writes it: no parser loaded
            if core.format_move(m, side) == payload:
                light(a, m, lead)
                return True, payload
        from bao import notation

        try:
            m, _ = notation.parse_move(p, payload)
        except core.BaoError as e:
            return False, "badarg " + str(e)
        light(a, m, lead)
        return True, notation.format_move(m, side)
    if typ == "CPU":
        from baoboard.opponent import LEVELS, setup

        words = payload.split()
        if words == ["off"]:
            setup(a, -1, a.level, now)
            return True, "off"
        side = "SN".find(words[0]) if len(words) in (1, 2) and len(words[0]) == 1 else -1
        level = int(words[1]) if len(words) == 2 and words[1].isdigit() else (1 if len(words) == 1 else -1)
        if side < 0 or not 0 <= level <= LEVELS:
            return False, "badarg CPU off | CPU S|N [level 0..%d] (0: the host's engine, through SHOW)" % LEVELS
        setup(a, side, level, now)
        return True, "%s %d" % ("SN"[side], level)
    # HINT
    if a.rec.phase != R.IDLE or a.p.d[core.TO_MOVE] == a.cpu:
        return False, "state a hint is for the player to move, between moves"
    a.think_due = 2  # the search runs at the end of this step, after this reply
    return True, ""


def check_new(obj: object, keys: "tuple | None") -> str:
    """What is wrong ("" when nothing) with NEW's JSON (keys: the keys it may have), or with a rules options
    object (keys None): known options, each of the type it must have. (core.Rules reads bool(x) and would
    take 5 or "no" for a takasia option: the board checks the types first.)"""
    if keys is not None:
        if not isinstance(obj, dict):
            return "NEW takes a ruleset name or a JSON object, not " + _short(obj)
        for k in obj:
            if k not in keys:
                return "unknown key %s in NEW (%s)" % (_short(k), ", ".join(keys))
        if obj.get("ruleset", core.ZANZIBAR) not in core.RULESETS:
            return "unknown ruleset %s (%s)" % (_short(obj.get("ruleset")), " or ".join(core.RULESETS))
        if obj.get("first", "S") not in ("S", "N"):
            return "first must be \"S\" or \"N\", not " + _short(obj.get("first"))
        obj = obj.get("options") or {}
    if not isinstance(obj, dict):
        return "options must be a JSON object, not " + _short(obj)
    yes_no = (True, False)
    values = {"takasia": (True, False, None), "house_stop_any_count": yes_no, "mtaji_takasa_house_stop": yes_no,
              "infinite": ("illegal", "sleep", None), "lone_kichwa": ("forbidden", "loses", None)}
    for k in obj:
        v = obj[k]
        if k == "sow_bound" or k == "relay_limit":
            if not (type(v) is int and v >= 0) and not (v is None and k == "relay_limit"):
                return "option %s must be a whole number >= 0, not %s" % (k, _short(v))
            continue
        allowed = values.get(k)
        if allowed is None:
            return "unknown option %s (%s)" % (_short(k), ", ".join(values) + ", sow_bound")
        # `is`, not `in`: 1 == True and 0 == False in Python, and a 1 is not a yes
        if not any(v is x or (type(v) is str and v == x) for x in allowed):
            return "option %s must be one of %s, not %s" % (k, ", ".join(map(json.dumps, allowed)), _short(v))
    return ""


# as in baoboard.debounce: kind[pit]
_STUCK = const(1)
_SAID = const(4)
_SILENT = const(8)
_SEEN = const(64)  # kind[64 + b]: pits that ever made an activation
_EVIDENCE = const(68)  # kind[68 + chip]: moves that went on past a never-sensed chip's pits
_SILENT_AFTER = const(2)  # ... this many: the chip senses nothing (one is a player's slip; time alone is none)


def fault(a: "App", now: int, pit: int = -1) -> bool:
    """Report each pit the debouncer found faulty (an ERROR event naming the pit and its chip; one event for
    a whole chip stuck or silent), then go on without the faulty pits: drops into them, and lifts the rules
    require there, are taken as made (the rules know where each seed goes; a move's start cannot be guessed:
    the host's SHOW and STOP remain). pit: a touch the recogniser refused in the middle of a move
    (baoboard.app): evidence of a silent chip when it is where the move goes on after the steps in that chip's
    pits; True when it was where a candidate goes on after steps in ignored pits: those taken as made, then it."""
    kind = a.deb.kind
    wiring = getattr(a.hw, "pit_sensor_bit", None)  # type: Any
    if wiring is None:  # (the simulated board: the reference wiring)
        from baoboard.drivers.board_config import PIT_SENSOR_BIT as wiring
    f = a.deb.faulty
    rec = a.rec
    if pit >= 0:  # a touch refused mid-move. A silent chip? Some candidate of the move waits for steps in the
        # pits of a chip that never sensed a touch (no activation since the board started), and pit is where
        # that move goes on after them (the next move's side, when they end it): the second time for a chip,
        # its pits are marked _SILENT. A slow player makes no such touch; a slip makes one.
        side = a.p.d[core.TO_MOVE]
        for i in range(rec.n):
            seq = rec.c_seq[i]
            j = rec.c_pos[i]
            if j >= len(seq):
                continue
            chip = wiring[seq[j] & R.PIT] >> 3
            same = [x for x in range(32) if wiring[x] >> 3 == chip]
            if any(kind[x] or kind[_SEEN + (x >> 3)] & (1 << (x & 7)) for x in same):
                continue  # it has sensed a touch (or is known faulty already)
            while j < len(seq) and wiring[seq[j] & R.PIT] >> 3 == chip:
                j += 1
            if (seq[j] & R.PIT == pit) if j < len(seq) else (pit >> 4 != side):
                kind[_EVIDENCE + chip] += 1
                if kind[_EVIDENCE + chip] < _SILENT_AFTER:
                    return False
                for x in same:
                    kind[x] = _SILENT
                    kind[32 + x] = chip + 1
                    f[x >> 3] |= 1 << (x & 7)
                break
        # the steps in ignored pits that some candidate takes before pit (or before the next move, pit being the
        # other side's touch): taken as made, then pit
        skip = None  # type: Any
        for i in range(rec.n):
            seq = rec.c_seq[i]
            j = start = rec.c_pos[i]
            while j < len(seq) and f[(seq[j] & R.PIT) >> 3] & (1 << (seq[j] & 7)):
                j += 1
            if j > start and ((seq[j] & R.PIT == pit) if j < len(seq) else (pit >> 4 != side)):
                skip = seq[start:j]
                break
        if skip is None:
            return False
    for i in range(32):
        k = kind[i]
        if not k or k & _SAID:
            continue
        bit = wiring[i]
        same = [j for j in range(32) if wiring[j] >> 3 == bit >> 3]
        if k & _SILENT or all(kind[j] & _STUCK for j in same):  # the whole chip: one report for its eight pits
            for j in same:
                kind[j] |= _SAID
            names = json.dumps([core.pit_name(j) for j in same])
            text = ('{"code": "sensor", "fault": "%s", "chip": "U%d", "pits": %s, "msg": "74HC165 U%d %s: the '
                    'chip, its ribbon or its supply; its pits are ignored, steps in them taken as made"}' % (
                        "silent" if k & _SILENT else "chip", (bit >> 3) + 1, names, (bit >> 3) + 1,
                        "has sensed no touch while moves went on past its pits twice" if k & _SILENT else
                        "reads all 8 inputs active for 20 s"))
        else:
            kind[i] |= _SAID
            name = core.pit_name(i)
            text = ('{"code": "sensor", "fault": "%s", "pit": "%s", "chip": "U%d", "input": "D%d", "msg": "%s '
                    '(74HC165 U%d input D%d) %s; drops into it are taken as made"}'
                    % ("stuck" if k & _STUCK else "flicker", name, (bit >> 3) + 1, bit & 7, name, (bit >> 3) + 1,
                       bit & 7, "has sensed a hand for 20 s: a stuck sensor, or one touched at power-up "
                       "(hardware/README.md); ignored until it reads idle for 2 s" if k & _STUCK else
                       "switches far faster than a hand can: a loose wire or a failing sensor; ignored until a "
                       "restart"))
        a.outbox.post("ERROR", text)
    a.dirty = True
    if pit >= 0:
        for e in skip:
            a.activation(e & R.PIT, now)
        a.activation(pit, now)
    while rec.phase == R.MOVING and rec.n:  # the steps in ignored pits, while every candidate agrees
        step = -1
        for i in range(rec.n):
            e = rec.expected(i)
            if e < 0 or not f[(e & R.PIT) >> 3] & (1 << (e & 7)) or step >= 0 and e & (R.PIT | R.LIFT) != step:
                return pit >= 0  # (a drop or a lift the rules require: every candidate takes it)
            step = e & (R.PIT | R.LIFT)
        a.activation(step & R.PIT, now)
    return pit >= 0

