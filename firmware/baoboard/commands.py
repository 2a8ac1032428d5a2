# The board application's rare jobs, loaded by App.rare() for one job and dropped after it on MicroPython:
# their code (and bao.notation, which SHOW needs) stays out of the board's RAM during play.
#   restore(app)                     at boot: the game the journal holds (or a new one)
#   undo(app, now) -> bool           take the last move back
#   run(app, typ, payload, now) -> (ok, reply payload)   a host command (docs/protocol.md)
#   selftest(app, now)               the self-test (LED walk, touch each lit pit), then back to the game
import json

from bao import core, position_json

from baoboard import recogniser as R
from baoboard.guide import MODES
from baoboard.journal import split_move


def start_of(info: dict) -> "core.Position":
    """The start position a GAME event's info describes."""
    pos = info.get("position")
    if pos is not None:
        return position_json.from_dict(pos)
    rules = core.Rules(info.get("ruleset", core.ZANZIBAR), **(info.get("options") or {}))
    first = core.NORTH if str(info.get("first", "S"))[:1] == "N" else core.SOUTH
    return core.initial(rules.ruleset, rules, first)


def position_after(app: "object", n: int) -> "core.Position":
    """The position after the first n moves of the journal's game (read back from flash)."""
    j = app.journal  # type: ignore[attr-defined]
    if n == 0:
        return start_of(json.loads(j.game or "{}"))
    return position_json.loads(split_move(j.move(n - 1))[1])


def restore(app: "object") -> None:
    a = app  # type: ignore[assignment]
    j = a.journal  # type: ignore[attr-defined]
    if j.game is None:
        a.post_game(core.initial(), None)  # type: ignore[attr-defined]
        return
    a.p = position_after(a, j.nmoves)  # type: ignore[attr-defined]
    a.boundary(a.hw.ticks_ms())  # type: ignore[attr-defined]
    if a.guide.winner >= 0 and j.ended is None:  # type: ignore[attr-defined]
        a.post_end()  # type: ignore[attr-defined]  # the power went between the last move and its END event


def undo(app: "object", now: int) -> bool:
    a = app  # type: ignore[assignment]
    j = a.journal  # type: ignore[attr-defined]
    n = j.nmoves
    if not n:
        a.outbox.notice("NOUNDO", "no move to take back")  # type: ignore[attr-defined]
        return False
    last = split_move(j.move(n - 1))[0]
    before = position_after(a, n - 1)
    p = a.p  # type: ignore[attr-defined]
    marks = bytearray(32)
    for i in range(32):
        marks[i] = before.d[i] != p.d[i]
    a.outbox.post("UNDO", json.dumps({"undone": last, "position": position_json.to_dict(before)}))  # type: ignore[attr-defined]
    a.p = before  # type: ignore[attr-defined]
    a.boundary(now)  # type: ignore[attr-defined]
    a.guide.set_restore(marks, now)  # type: ignore[attr-defined]
    return True


def run(app: "object", typ: str, payload: str, now: int) -> "tuple[bool, str]":
    a = app  # type: ignore[assignment]
    if typ == "PING":
        return True, ""
    if typ == "NEW":
        info = json.loads(payload) if payload.startswith("{") else {"ruleset": payload or core.ZANZIBAR}
        try:
            start = start_of(info)
        except (ValueError, TypeError) as e:
            return False, "badarg " + str(e)
        a.post_game(start, info.get("position"))  # type: ignore[attr-defined]
        return True, ""
    if typ == "SETPOS":
        try:
            start = position_json.loads(payload)
        except ValueError as e:
            return False, "badarg " + str(e)
        a.post_game(start, position_json.to_dict(start))  # type: ignore[attr-defined]
        return True, ""
    if typ == "UNDO":
        return (True, "") if undo(a, now) else (False, "state no move to take back")  # type: ignore[attr-defined]
    if typ == "MODE":
        if payload not in MODES:
            return False, "badarg mode is teach, play or silent"
        a.guide.mode = MODES.index(payload)  # type: ignore[attr-defined]
        return True, ""
    if typ == "BRIGHT":
        try:
            v = int(payload)
        except ValueError:
            v = -1
        if not 0 <= v <= 100:
            return False, "badarg brightness is 0..100 (percent)"
        a.guide.brightness = v * 255 // 100  # type: ignore[attr-defined]
        return True, ""
    if typ == "SHOW":
        p = a.p  # type: ignore[attr-defined]
        side = p.d[core.TO_MOVE]
        for m in core.legal_move_codes(p):  # a move written as the board writes it: no parser loaded
            if core.format_move(m, side) == payload:
                a.rec.hint = m & core.IDENTITY  # type: ignore[attr-defined]
                return True, payload
        from bao import notation

        try:
            m, _ = notation.parse_move(p, payload)
        except core.BaoError as e:
            return False, "badarg " + str(e)
        a.rec.hint = m & core.IDENTITY  # type: ignore[attr-defined]
        return True, notation.format_move(m, p.d[core.TO_MOVE])
    if typ == "STOP":
        rec = a.rec  # type: ignore[attr-defined]
        if rec.decide_stop() != R.R_DONE:
            return False, "state 2.5b: no house decision is pending"
        a.commit(rec.done_move, rec.done_child, now)  # type: ignore[attr-defined]
        return True, ""
    if typ == "SELFTEST":
        if a.hw.read_raw() is None:  # type: ignore[attr-defined]
            return False, "state no self-test on this hardware"
        ms = 20000  # how long each pit waits for its touch: a person's pace
        if payload:
            try:
                ms = int(payload)
            except ValueError:
                ms = -1
            if not 100 <= ms <= 60000:
                return False, "badarg the wait for each touch is 100..60000 ms"
        a.selftest_ms = ms  # type: ignore[attr-defined]
        a.selftest_due = True  # type: ignore[attr-defined]  # after this reply: the test takes minutes
        return True, ""
    if typ == "SNAP" or typ == "SNAPSHOT":
        return True, snapshot(a)
    return False, "unknown " + typ


def selftest(app: "object", now: int) -> None:
    """Run the self-test on the board's own hardware, use the mapping it recorded, report it as a SELFTEST
    event (journalled like every event; it changes nothing in the game) and take the game up again."""
    from baoboard.drivers import selftest as st

    a = app  # type: ignore[assignment]
    hw = a.hw  # type: ignore[attr-defined]
    path = getattr(a.storage, "root", "") + "/selftest.json"  # type: ignore[attr-defined]
    result = st.run(hw, path, timeout_ms=a.selftest_ms)  # type: ignore[attr-defined]
    mapping = st.load_mapping(path)
    if mapping is not None:
        hw.use_mapping(mapping)
    a.outbox.post("SELFTEST", json.dumps(result))  # type: ignore[attr-defined]
    hw.read_pits(a.bitmap)  # type: ignore[attr-defined]
    a.deb.reset(a.bitmap)  # type: ignore[attr-defined]  # the hands on the board now are no activations
    now = hw.ticks_ms()
    a.boundary(now)  # type: ignore[attr-defined]  # a move half made before the test is dropped
    a.last_rx = now  # type: ignore[attr-defined]
    a.dirty = True  # type: ignore[attr-defined]


def snapshot(app: "object") -> str:
    """The whole state as JSON (the SNAP command)."""
    a = app  # type: ignore[assignment]
    rec = a.rec  # type: ignore[attr-defined]
    j = a.journal  # type: ignore[attr-defined]
    g = a.guide  # type: ignore[attr-defined]
    nxt = []
    for i in range(rec.n):
        e = rec.expected(i)
        if e >= 0:
            nxt.append(core.pit_name(e & R.PIT))
    return json.dumps({
        "position": position_json.to_dict(a.p),  # type: ignore[attr-defined]
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
