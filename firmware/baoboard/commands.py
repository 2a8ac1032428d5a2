# The board application's rare jobs, loaded by App.rare() for one job and dropped after it on MicroPython:
# their code stays out of the board's RAM during play.
#   restore(app)                     at boot: the game the journal holds (or a new one), the computer's mode
#   cut(app, now)                    at boot after a power cut mid-move: the set-up of the pits it left uncertain
#   undo(app, now) -> bool           take the last move back
#   run(app, typ, payload, now) -> (ok, reply payload)   a host command (docs/protocol.md)
#   selftest(app, now)               the self-test (LED walk, touch each lit pit), then back to the game
# Jobs and commands whose code is larger or rarer still are in modules of their own, loaded only for them:
# baoboard.checks (NEW, SETPOS, CPU, HINT, SHOW); the computer's jobs (think, choose) are baoboard.opponent's,
# and a faulty sensor's (fault) baoboard.sensors', which App.rare loads alone.
# They read the application's state and change it through its methods (baoboard.app, the list at its top).
try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Any  # noqa: F401

    from bao.position import Position

    from baoboard.app import App
except ImportError:
    pass

import json
from binascii import hexlify

from bao import position_json, sowing
from bao.layout import pit_name
from baoproto.frames import split_move

from baoboard import recogniser as R
from baoboard.gameinfo import start_of
from baoboard.guide import MODES


def position_after(app: "App", n: int) -> "Position":
    """The position after the first n moves of the journal's game (read back from flash)."""
    j = app.journal
    if n == 0:
        return start_of(json.loads(j.game or "{}"))
    return position_json.loads(split_move(j.move(n - 1))[1])


def restore(a: "App") -> "Position | None":
    """The position of the game the journal holds (None: it holds none), and the computer's mode; App.boot
    takes the game up once this module is dropped (its legal moves need the room)."""
    j = a.journal
    m = j.cpu  # the computer's side and level, journalled ("S 2", "off"; baoboard.opponent.setup)
    a.cpu = "SN".find(m[:1]) if m else -1
    if a.cpu >= 0:
        a.level = int(m[2:])
    return None if j.game is None else position_after(a, j.nmoves)


def cut(a: "App", now: int) -> None:
    """At boot, after a power cut in the middle of a move (the journal's move begun): the set-up mode
    re-checks the pits that move may have touched (baoboard.setup_mode.after_cut)."""
    from baoboard import setup_mode

    setup_mode.after_cut(a, now)


def undo(a: "App", now: int) -> bool:
    j = a.journal
    n = j.nmoves
    if a.setup is not None and a.setup.current() >= 0:  # (the button: no undo while the board is set up)
        a.outbox.notice("NOUNDO", "a set-up is under way")
        return False
    if not n:
        a.outbox.notice("NOUNDO", "no move to take back")
        return False
    last = split_move(j.move(n - 1))[0]
    before = position_after(a, n - 1)
    p = a.p
    marks = bytearray(32)
    for i in range(32):
        marks[i] = before.d[i] != p.d[i]
    if a.outbox.post("UNDO", json.dumps({"undone": last, "position": position_json.to_dict(before)})) < 0:
        a.recording(True)  # no room on the flash to record it: the move stays
        return False
    a.boundary(before, now)
    a.guide.set_restore(marks, now)
    return True


def run(a: "App", typ: str, payload: str, now: int) -> "tuple[bool, str]":  # noqa: PLR0911
    if typ == "SETUP":  # the set-up mode: its code is loaded for it only (it stays while the set-up runs)
        from baoboard import setup_mode

        return setup_mode.command(a, payload, now)
    if a.setup is not None and typ in ("NEW", "SETPOS", "UNDO", "STOP", "SHOW", "HINT"):
        if a.setup.current() >= 0:
            return False, "state a set-up is under way (SETUP off leaves it)"
        a.setup.ready(a)  # a set-up done, waiting for the hand to leave its last place: a game command ends it
    if typ in ("NEW", "SETPOS", "CPU", "HINT", "SHOW"):  # checked and run by code loaded for them only
        from baoboard import checks

        if sowing.serve is not None:  # in a step: a scan before the command, if the code's loading took long
            sowing.serve()
        return checks.command(a, typ, payload, now)
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
    if typ == "STOP":
        rec = a.rec
        if rec.decide_stop() != R.R_DONE:
            return False, "state 2.5b: no house decision is pending"
        a.commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]  # (R_DONE: the child is set)
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


def selftest(a: "App", now: int) -> None:
    """Run the self-test the hardware comes with (baoboard.hal: it uses the mapping it recorded), report it
    as a SELFTEST event (journalled like every event; it changes nothing in the game) and take the game up
    again."""
    hw = a.hw
    result = hw.self_test(getattr(a.storage, "root", "") + "/selftest.json", a.selftest_ms)
    if result is not None:
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
            nxt.append(pit_name(e & R.PIT))
    return json.dumps(
        {
            "position": position_json.to_dict(a.p),
            "moves": j.nmoves,
            "phase": ("idle", "moving", "decision", "over")[rec.phase],
            "mode": MODES[g.mode],
            "brightness": g.brightness,
            "next": nxt,
            "wrong": pit_name(rec.wrong_pit) if rec.wrong_pit >= 0 else None,
            "leds": hexlify(bytes(g.frame)).decode(),  # (in C: a loop of formats here kept the board from its sensors)
            "last": j.last,
            "acked": j.acked,
            "cpu": ("SN"[a.cpu] + " " + str(a.level)) if a.cpu >= 0 else "off",  # as the CPU event says it
            "setup": a.setup.state() if a.setup is not None else None,  # the set-up's step (baoboard.setup_mode)
        }
    )
