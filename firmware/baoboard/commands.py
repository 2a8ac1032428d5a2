# The board application's rare jobs, loaded by App.rare() for one job and dropped after it on MicroPython:
# their code (and bao.notation, which SHOW needs) stays out of the board's RAM during play.
#   restore(app)                     at boot: the game the journal holds (or a new one)
#   undo(app, now) -> bool           take the last move back
#   run(app, typ, payload, now) -> (ok, reply payload)   a host command (docs/protocol.md)
#   selftest(app, now)               the self-test (LED walk, touch each lit pit), then back to the game
# They read the application's state and change it through its methods (baoboard.app, the list at its top).
try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Any  # noqa: F401

    from baoboard.app import App
except ImportError:
    pass

import json

from bao import core, position_json

from baoboard import recogniser as R
from baoboard.guide import MODES
from baoboard.journal import split_move

# NEW's JSON (docs/protocol.md): its keys, and each rule option with the values it may take (bao.core.Rules;
# core.Rules reads `bool(x)` and would take 5 or "no" for takasia, so the board checks the types first).
_NEW_KEYS = ("ruleset", "options", "first", "position")
_BOOL = (True, False)
_OPTION_VALUES = {
    "takasia": (True, False, None),
    "house_stop_any_count": _BOOL,
    "mtaji_takasa_house_stop": _BOOL,
    "infinite": ("illegal", "sleep", None),
    "lone_kichwa": ("forbidden", "loses", None),
}


def _short(v: object) -> str:
    return repr(v)[:40]


def check_options(options: object) -> str:
    """What is wrong with a rules options object ("" when nothing): a JSON object of known options, each of
    the type it must have."""
    if not isinstance(options, dict):
        return "options must be a JSON object, not " + _short(options)
    for k in options:
        v = options[k]
        if k == "sow_bound" or k == "relay_limit":
            if not (type(v) is int and v >= 0) and not (v is None and k == "relay_limit"):
                return "option %s must be a whole number >= 0, not %s" % (k, _short(v))
            continue
        allowed = _OPTION_VALUES.get(k)
        if allowed is None:
            return "unknown option %s (%s)" % (_short(k), ", ".join(_OPTION_VALUES) + ", sow_bound")
        # `is`, not `in`: 1 == True and 0 == False in Python, and a 1 is not a yes
        if not any(v is a or (type(v) is str and v == a) for a in allowed):
            return "option %s must be one of %s, not %s" % (k, ", ".join(map(json.dumps, allowed)), _short(v))
    return ""


def check_new(info: object) -> str:
    """What is wrong with NEW's JSON ("" when nothing)."""
    if not isinstance(info, dict):
        return "NEW takes a ruleset name or a JSON object, not " + _short(info)
    for k in info:
        if k not in _NEW_KEYS:
            return "unknown key %s in NEW (%s)" % (_short(k), ", ".join(_NEW_KEYS))
    ruleset = info.get("ruleset", core.ZANZIBAR)
    if ruleset not in core.RULESETS:
        return "unknown ruleset %s (%s)" % (_short(ruleset), " or ".join(core.RULESETS))
    if info.get("first", "S") not in ("S", "N"):
        return "first must be \"S\" or \"N\", not " + _short(info.get("first"))
    return check_options(info.get("options") or {})


def start_of(info: dict) -> "core.Position":
    """The start position a GAME event's info describes."""
    pos = info.get("position")
    if pos is not None:
        return position_json.from_dict(pos)
    rules = core.Rules(info.get("ruleset", core.ZANZIBAR), **(info.get("options") or {}))
    first = core.NORTH if str(info.get("first", "S"))[:1] == "N" else core.SOUTH
    return core.initial(rules.ruleset, rules, first)


def position_after(app: "App", n: int) -> "core.Position":
    """The position after the first n moves of the journal's game (read back from flash)."""
    j = app.journal
    if n == 0:
        return start_of(json.loads(j.game or "{}"))
    return position_json.loads(split_move(j.move(n - 1))[1])


def restore(a: "App") -> None:
    j = a.journal
    if j.game is None:
        a.post_game(core.initial(), None)
        return
    a.boundary(position_after(a, j.nmoves), a.hw.ticks_ms())
    if a.guide.winner >= 0 and j.ended is None:
        a.post_end()  # the power went between the last move and its END event


def undo(a: "App", now: int) -> bool:
    j = a.journal
    n = j.nmoves
    if not n:
        a.outbox.notice("NOUNDO", "no move to take back")
        return False
    last = split_move(j.move(n - 1))[0]
    before = position_after(a, n - 1)
    p = a.p
    marks = bytearray(32)
    for i in range(32):
        marks[i] = before.d[i] != p.d[i]
    a.outbox.post("UNDO", json.dumps({"undone": last, "position": position_json.to_dict(before)}))
    a.boundary(before, now)
    a.guide.set_restore(marks, now)
    return True


def run(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    if typ == "PING":
        return True, ""
    if typ == "NEW":
        try:
            info = json.loads(payload) if payload[:1] in ("{", "[") else {"ruleset": payload or core.ZANZIBAR}  # type: Any
        except ValueError:
            return False, "badarg NEW's JSON is unreadable"
        why = check_new(info)
        if not why and isinstance(info.get("position"), dict):
            why = check_options(info["position"].get("options") or {})
        if why:
            return False, "badarg " + why
        try:
            start = start_of(info)
        except (ValueError, TypeError) as e:
            return False, "badarg " + str(e)
        a.post_game(start, info.get("position"))
        return True, ""
    if typ == "SETPOS":
        try:
            obj = json.loads(payload)
        except ValueError:
            obj = None  # position_json.loads says what is wrong
        why = check_options(obj.get("options") or {}) if isinstance(obj, dict) else ""
        if why:
            return False, "badarg " + why
        try:
            start = position_json.loads(payload)
        except ValueError as e:
            return False, "badarg " + str(e)
        a.post_game(start, position_json.to_dict(start))
        return True, ""
    if typ == "UNDO":
        return (True, "") if undo(a, now) else (False, "state no move to take back")
    if typ == "MODE":
        if payload not in MODES:
            return False, "badarg mode is teach, play or silent"
        a.guide.mode = MODES.index(payload)
        return True, ""
    if typ == "BRIGHT":
        try:
            v = int(payload)
        except ValueError:
            v = -1
        if not 0 <= v <= 100:
            return False, "badarg brightness is 0..100 (percent)"
        a.guide.brightness = v * 255 // 100
        return True, ""
    if typ == "SHOW":
        p = a.p
        side = p.d[core.TO_MOVE]
        for m in core.legal_move_codes(p):  # a move written as the board writes it: no parser loaded
            if core.format_move(m, side) == payload:
                a.rec.hint = m & core.IDENTITY
                return True, payload
        from bao import notation

        try:
            m, _ = notation.parse_move(p, payload)
        except core.BaoError as e:
            return False, "badarg " + str(e)
        a.rec.hint = m & core.IDENTITY
        return True, notation.format_move(m, p.d[core.TO_MOVE])
    if typ == "STOP":
        rec = a.rec
        if rec.decide_stop() != R.R_DONE:
            return False, "state 2.5b: no house decision is pending"
        a.commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]
        return True, ""
    if typ == "SELFTEST":
        if a.hw.read_raw() is None:
            return False, "state no self-test on this hardware"
        ms = 20000  # how long each pit waits for its touch: a person's pace
        if payload:
            try:
                ms = int(payload)
            except ValueError:
                ms = -1
            if not 100 <= ms <= 60000:
                return False, "badarg the wait for each touch is 100..60000 ms"
        a.request_selftest(ms)  # after this reply: the test takes minutes
        return True, ""
    if typ == "SNAP" or typ == "SNAPSHOT":
        return True, snapshot(a)
    return False, "unknown " + typ


def fault(a: "App", now: int) -> None:
    """Report each pit baoboard.health found faulty and has not reported (an ERROR event naming the pit and
    its chip; one event for a whole chip stuck), then go on without the faulty pits."""
    from baoboard.drivers import board_config as cfg
    from baoboard.health import STUCK

    h = a.health
    wiring = getattr(a.hw, "pit_sensor_bit", None) or cfg.PIT_SENSOR_BIT  # (the self-test's, if recorded)
    while True:
        pit = h.pop()
        if pit < 0:
            break
        bit = wiring[pit]
        chip = "U%d" % ((bit >> 3) + 1)
        same = [i for i in range(32) if wiring[i] >> 3 == bit >> 3]
        if h.kind[pit] == STUCK and all(h.kind[i] == STUCK for i in same):
            for i in same:  # the whole chip: one report for its eight pits
                h.unsaid[i >> 3] &= ~(1 << (i & 7))
            names = [core.pit_name(i) for i in same]
            info = {"code": "sensor", "fault": "chip", "chip": chip, "pits": names,
                    "msg": "74HC165 %s reads all 8 inputs active for 20 s: the chip, its ribbon or its supply; "
                           "%s are ignored, drops into them taken as made" % (chip, " ".join(names))}
        else:
            name = core.pit_name(pit)
            where = "%s (74HC165 %s input D%d)" % (name, chip, bit & 7)
            if h.kind[pit] == STUCK:
                what = ("stuck", where + " has sensed a hand for 20 s: a stuck sensor, or one touched at power-up "
                        "(hardware/README.md); ignored until it reads idle for 2 s")
            else:
                what = ("flicker", where + " switches far faster than a hand can: a loose wire or a faulty "
                        "sensor; ignored until the board restarts")
            info = {"code": "sensor", "fault": what[0], "pit": name, "chip": chip, "input": "D%d" % (bit & 7),
                    "msg": what[1] + "; drops into it are taken as made"}
        a.outbox.post("ERROR", json.dumps(info))
    a.dirty = True
    skip(a, now)


def skip(a: "App", now: int) -> None:
    """Drops into a pit whose sensor is ignored are taken as made: the rules know where the seed goes, so
    the move goes on without the pit (a lift from it cannot be guessed: the host's SHOW and STOP remain)."""
    rec = a.rec
    f = a.health.faulty
    while rec.phase == R.MOVING and rec.n:
        pit = -1
        for i in range(rec.n):
            e = rec.expected(i)
            if e < 0 or e & R.LIFT or not f[(e & R.PIT) >> 3] & (1 << (e & 7)) or (pit >= 0 and e & R.PIT != pit):
                return
            pit = e & R.PIT
        a.activation(pit, now)


def selftest(a: "App", now: int) -> None:
    """Run the self-test on the board's own hardware, use the mapping it recorded, report it as a SELFTEST
    event (journalled like every event; it changes nothing in the game) and take the game up again."""
    from baoboard.drivers import selftest as st

    hw = a.hw
    path = getattr(a.storage, "root", "") + "/selftest.json"
    result = st.run(hw, path, timeout_ms=a.selftest_ms)
    mapping = st.load_mapping(path)
    if mapping is not None:
        hw.use_mapping(mapping)
    a.outbox.post("SELFTEST", json.dumps(result))
    a.resume(hw.ticks_ms())


def snapshot(a: "App") -> str:
    """The whole state as JSON (the SNAP command)."""
    rec = a.rec
    j = a.journal
    g = a.guide
    nxt = []
    for i in range(rec.n):
        e = rec.expected(i)
        if e >= 0:
            nxt.append(core.pit_name(e & R.PIT))
    return json.dumps({
        "position": position_json.to_dict(a.p),
        "moves": j.nmoves,
        "phase": ("idle", "moving", "decision", "over")[rec.phase],
        "mode": MODES[g.mode],
        "brightness": g.brightness,
        "next": nxt,
        "wrong": core.pit_name(rec.wrong_pit) if rec.wrong_pit >= 0 else None,
        "leds": "".join("%02x" % b for b in g.frame),
        "last": j.last,
        "acked": j.acked,
    })
