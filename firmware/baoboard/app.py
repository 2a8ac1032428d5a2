# The board application: scan -> debounce -> recogniser -> rules core -> journal -> outbox -> serial,
# and the LED guide. It is handed a hardware object (baoboard.hal.Hardware) and a Storage; it imports no
# hardware module, so the same code runs on the Pico, in the simulated board and in the tests.
#   app = App(hw, storage, board_id="e661...", fw="0.1.0"); app.boot(); while True: app.step()
# step() is one scan-loop iteration; when nothing happens it allocates nothing (tools/bench_board.py).
# Host commands (docs/protocol.md): NEW, SETPOS, UNDO, MODE, BRIGHT, SNAP, SHOW, STOP, PING, run by
# baoboard.commands, which is loaded for each command and dropped after it.
# RAM (docs/benchmarks.md, Board): the legal moves are kept as codes, the moves and pending events on
# flash (the journal), and code for rare jobs (commands, reasons of illegal attempts) only while it runs.
try:
    from typing import Any
except ImportError:
    pass

import gc
import json
import sys

from bao import core, position_json
from bao.core import format_move

from baoboard import recogniser as R
from baoboard.compat import const, intern_rare, modules_now, unload_new
from baoboard.debounce import Debouncer
from baoboard.guide import Guide
from baoboard.journal import Journal, move_payload
from baoboard.outbox import Outbox

try:
    from time import ticks_diff
except ImportError:  # CPython

    def ticks_diff(a: int, b: int) -> int:  # type: ignore[misc,no-redef]
        return a - b


FW_VERSION = "0.1.0"
HOST_MS = const(15000)  # no valid frame from the host for this long: "no host connected"
BUTTON_UNDO = const(1)  # optional buttons: take the last move back
BUTTON_NEW = const(2)  # start a new game (same ruleset)
SELFTEST_HOLD_MS = const(2000)  # the four corner pits held this long: the self-test (hardware/README.md)
_SIDES = "SN"
_COLLECT = sys.implementation.name == "micropython"  # collect at each move: a quiet moment, less fragmentation


class App:
    def __init__(self, hw: object, storage: object, board_id: str = "board", fw: str = FW_VERSION,
                 stable: int = 3) -> None:
        if _COLLECT:  # the long-lived buffers below go low in a heap freed of what a previous run left
            gc.collect()
        self.hw = hw
        self.storage = storage
        self.selftest_due = False  # set by the gesture or the SELFTEST command; run at the end of a step
        self.selftest_ms = 20000  # the self-test's wait for each touch (SELFTEST <ms> sets it)
        self.corners_since = -1  # tick since which the four corner pits are all held, or -1
        self.bitmap = bytearray(4)
        self.rx = bytearray(64)
        self.deb = Debouncer(stable)
        self.rec = R.Recogniser()
        self.guide = Guide()
        self.journal = Journal(storage)
        from bao import RULES_VERSION

        hello = f"fw={fw} rules={RULES_VERSION} board={board_id}"
        self.outbox = Outbox(self.journal, hw.serial_write, hw.ticks_ms, hello=hello)  # type: ignore[attr-defined]
        self.outbox.on_command = self.command
        self.p = core.initial()
        self.dirty = True
        self.last_phase = -1
        self.last_rx = 0
        self.rx_frames = -1
        self.buttons = 0
        self.loops = 0
        self.moves_done = 0
        self.fault = ""  # set when something is wrong that a restart should fix: the watchdog is then starved
        self.last_activation = 0  # tick of the last activation handled (latency measurement)

    # ---- boot and game state
    def boot(self) -> None:
        intern_rare()  # the qstr pool at its final size while the heap is young (baoboard.compat)
        self.journal.open()
        self.last_rx = self.hw.ticks_ms()  # type: ignore[attr-defined]
        self.outbox.start()  # HELLO, then every event the host has not acknowledged
        self.rare("restore")  # the game the journal holds, or a new one

    def rare(self, job: str, *args: object) -> "Any":
        """Run baoboard.commands.<job>(self, *args): code for rare jobs (restore, undo, host commands) is
        loaded while it runs and dropped after it on MicroPython, so it is not in RAM during play."""
        before = modules_now()
        try:
            from baoboard import commands

            return getattr(commands, job)(self, *args)
        finally:
            commands = None  # type: ignore[assignment]
            unload_new(before)

    def post_game(self, start: "core.Position", position: "dict | None") -> None:
        rules = start.rules  # type: ignore[attr-defined]
        info = {"ruleset": rules.ruleset, "options": rules.options(),
                "first": _SIDES[start.d[core.TO_MOVE]]}  # type: ignore[attr-defined]
        if position is not None:
            info["position"] = position
        self.outbox.post("GAME", json.dumps(info))
        self.p = start
        self.rec.hint = -1
        self.boundary(self.hw.ticks_ms())  # type: ignore[attr-defined]

    def boundary(self, now: int, moves: "list | None" = None) -> None:
        if moves is None:
            moves = core.legal_move_codes(self.p)  # type: ignore[arg-type]
        self.rec.start(self.p, moves)
        w = core.outcome(self.p, moves)  # type: ignore[arg-type]
        self.guide.winner = -1 if w is None else w
        self.dirty = True

    def post_end(self) -> None:
        self.outbox.post("END", f'{{"winner":"{_SIDES[self.guide.winner]}"}}')

    # ---- the scan loop
    def step(self) -> None:
        hw = self.hw
        now = hw.ticks_ms()  # type: ignore[attr-defined]
        hw.read_pits(self.bitmap)  # type: ignore[attr-defined]
        bm = self.bitmap
        if bm[1] & 0x81 == 0x81 and bm[3] & 0x81 == 0x81:  # B8 (8), B1 (15), b8 (24), b1 (31) all held
            if self.corners_since < 0:
                self.corners_since = now
            elif ticks_diff(now, self.corners_since) >= SELFTEST_HOLD_MS and hw.read_raw() is not None:  # type: ignore[attr-defined]
                self.selftest_due = True
                self.selftest_ms = 20000
                self.corners_since = -1
        else:
            self.corners_since = -1
        if self.deb.scan(self.bitmap, now):
            while True:
                pit = self.deb.pop()
                if pit < 0:
                    break
                self.last_activation = self.deb.last_tick
                self.activation(pit, now)
        n = hw.serial_read(self.rx)  # type: ignore[attr-defined]
        if n:
            self.outbox.feed(self.rx, n)
        self.outbox.poll()
        if self.outbox.rx_frames != self.rx_frames:
            self.rx_frames = self.outbox.rx_frames
            self.last_rx = now
            if not self.guide.host:
                self.guide.host = True
                self.dirty = True
        elif self.guide.host and ticks_diff(now, self.last_rx) > HOST_MS:
            self.guide.host = False
            self.dirty = True
        b = hw.buttons()  # type: ignore[attr-defined]
        if b != self.buttons:
            pressed = b & ~self.buttons
            self.buttons = b
            if pressed & BUTTON_UNDO:
                self.undo(now)
            if pressed & BUTTON_NEW:
                self.post_game(core.initial(self.p.rules.ruleset, self.p.rules), None)  # type: ignore[attr-defined]
        ph = self.guide.phase(now)
        if self.dirty or ph != self.last_phase:
            self.last_phase = ph
            self.dirty = False
            hw.show(self.guide.render(self.rec, now))  # type: ignore[attr-defined]
        if self.selftest_due:
            self.selftest_due = False
            self.rare("selftest", now)
        self.loops += 1
        if not self.fault:
            hw.feed_watchdog()  # type: ignore[attr-defined]

    def activation(self, pit: int, now: int) -> None:
        rec = self.rec
        r = rec.feed(pit, now)
        self.dirty = True
        if r == R.R_DONE:
            again = rec.refeed
            self.commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]
            if again >= 0:
                self.activation(again, now)  # the opponent's activation that ended the move: their first
        elif r == R.R_WRONG:
            self.guide.request_show(now)
            reason = rec.wrong_reason
            if rec.wrong_rule and not reason.startswith(rec.wrong_rule):
                reason = rec.wrong_rule + ": " + reason
            self.outbox.post("ILLEGAL", json.dumps({"pit": core.pit_name(pit), "rule": rec.wrong_rule,
                                                    "reason": reason}))
        elif r == R.R_UNDO:
            self.undo(now)
        elif r == R.R_CANCEL:
            self.outbox.notice("CANCEL", core.pit_name(pit))

    def commit(self, move: int, child: "core.Position", now: int) -> None:
        text = format_move(move, self.p.d[core.TO_MOVE])  # type: ignore[attr-defined]
        moves = core.legal_move_codes(child)  # once: for the position's winner and the next boundary
        self.outbox.post("MOVE", move_payload(text, position_json.dumps(child, True, moves)))  # type: ignore[arg-type]
        self.p = child
        self.moves_done += 1
        self.rec.hint = -1
        self.boundary(now, moves)
        if self.guide.winner >= 0:
            self.post_end()
        if _COLLECT:
            gc.collect()

    def undo(self, now: int) -> bool:
        """Take the last move back (the gesture, a button, the host): False if there is none."""
        return bool(self.rare("undo", now))

    # ---- host commands
    def command(self, num: int, typ: str, payload: str) -> "tuple[bool, str]":
        self.dirty = True
        return self.rare("run", typ, payload, self.hw.ticks_ms())  # type: ignore[attr-defined,no-any-return]
