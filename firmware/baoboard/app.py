# The board application: scan -> debounce -> recogniser -> rules core -> journal -> outbox -> serial,
# and the LED guide. It is handed a hardware object (baoboard.hal.Hardware) and a Storage; it imports no
# hardware module, so the same code runs on the Pico, in the simulated board and in the tests.
#   app = App(hw, storage, board_id="e661...", fw="0.1.0"); app.boot(); while True: app.step()
# step() is one scan-loop iteration; when nothing happens it allocates nothing (tools/bench_board.py).
# Host commands (docs/protocol.md): NEW, SETPOS, UNDO, MODE, BRIGHT, SNAPSHOT, SHOW, STOP, PING.
import json

from bao import core, notation, position_json

from baoboard import recogniser as R
from baoboard.compat import const
from baoboard.debounce import Debouncer
from baoboard.guide import MODES, Guide
from baoboard.journal import Journal, split_move
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
_SIDES = "SN"


class App:
    def __init__(self, hw: object, storage: object, board_id: str = "board", fw: str = FW_VERSION,
                 stable: int = 3) -> None:
        self.hw = hw
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
        self.start = self.p
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
        j = self.journal
        j.open()
        self.last_rx = self.hw.ticks_ms()  # type: ignore[attr-defined]
        self.outbox.start()  # HELLO, then every event the host has not acknowledged
        if j.game is None:
            self._post_game(core.initial(), None)
        else:
            self._restore()

    def _restore(self) -> None:
        info = json.loads(self.journal.game or "{}")
        self.start = self._start_of(info)
        self.p = self._position_after(len(self.journal.moves))
        self._boundary(self.hw.ticks_ms())  # type: ignore[attr-defined]
        if self.guide.winner >= 0 and self.journal.ended is None:
            self._post_end()  # the power went between the last move and its END event

    def _start_of(self, info: dict) -> "core.Position":
        pos = info.get("position")
        if pos is not None:
            return position_json.from_dict(pos)
        rules = core.Rules(info.get("ruleset", core.ZANZIBAR), **(info.get("options") or {}))
        first = core.NORTH if str(info.get("first", "S"))[:1] == "N" else core.SOUTH
        return core.initial(rules.ruleset, rules, first)

    def _position_after(self, n: int) -> "core.Position":
        if n == 0:
            return self.start
        return position_json.loads(split_move(self.journal.moves[n - 1])[1])

    def _post_game(self, start: "core.Position", position: "dict | None") -> None:
        rules = start.rules  # type: ignore[attr-defined]
        info = {"ruleset": rules.ruleset, "options": rules.options(),
                "first": _SIDES[start.d[core.TO_MOVE]]}  # type: ignore[attr-defined]
        if position is not None:
            info["position"] = position
        self.outbox.post("GAME", json.dumps(info))
        self.start = start
        self.p = start
        self.rec.hint = -1
        self._boundary(self.hw.ticks_ms())  # type: ignore[attr-defined]

    def _boundary(self, now: int) -> None:
        moves = core.legal_moves(self.p)  # type: ignore[arg-type]
        self.rec.start(self.p, moves)
        w = core.outcome(self.p, moves)  # type: ignore[arg-type]
        self.guide.winner = -1 if w is None else w
        self.dirty = True

    def _post_end(self) -> None:
        self.outbox.post("END", f'{{"winner":"{_SIDES[self.guide.winner]}"}}')

    # ---- the scan loop
    def step(self) -> None:
        hw = self.hw
        now = hw.ticks_ms()  # type: ignore[attr-defined]
        hw.read_pits(self.bitmap)  # type: ignore[attr-defined]
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
                self._post_game(core.initial(self.p.rules.ruleset, self.p.rules), None)  # type: ignore[attr-defined]
        ph = self.guide.phase(now)
        if self.dirty or ph != self.last_phase:
            self.last_phase = ph
            self.dirty = False
            hw.show(self.guide.render(self.rec, now))  # type: ignore[attr-defined]
        self.loops += 1
        if not self.fault:
            hw.feed_watchdog()  # type: ignore[attr-defined]

    def activation(self, pit: int, now: int) -> None:
        rec = self.rec
        r = rec.feed(pit, now)
        self.dirty = True
        if r == R.R_DONE:
            again = rec.refeed
            self._commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]
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

    def _commit(self, move: int, child: "core.Position", now: int) -> None:
        p = self.p
        text = notation.format_move(move, p.d[core.TO_MOVE])  # type: ignore[attr-defined]
        self.outbox.move(text, position_json.dumps(child))  # type: ignore[arg-type]
        self.p = child
        self.moves_done += 1
        self.rec.hint = -1
        self._boundary(now)
        if self.guide.winner >= 0:
            self._post_end()

    def undo(self, now: int) -> bool:
        j = self.journal
        if not j.moves:
            self.outbox.notice("NOUNDO", "no move to take back")
            return False
        last = split_move(j.moves[-1])[0]
        before = self._position_after(len(j.moves) - 1)
        marks = bytearray(32)
        for i in range(32):
            marks[i] = before.d[i] != self.p.d[i]  # type: ignore[attr-defined]
        self.outbox.post("UNDO", json.dumps({"undone": last, "position": position_json.to_dict(before)}))  # type: ignore[arg-type]
        self.p = before
        self._boundary(now)
        self.guide.set_restore(marks, now)
        return True

    # ---- host commands
    def command(self, num: int, typ: str, payload: str) -> "tuple[bool, str]":
        now = self.hw.ticks_ms()  # type: ignore[attr-defined]
        self.dirty = True
        if typ == "PING":
            return True, ""
        if typ == "NEW":
            info = json.loads(payload) if payload.startswith("{") else {"ruleset": payload or core.ZANZIBAR}
            try:
                start = self._start_of(info)
            except (ValueError, TypeError) as e:
                return False, "badarg " + str(e)
            self._post_game(start, info.get("position"))  # type: ignore[arg-type]
            return True, ""
        if typ == "SETPOS":
            try:
                start = position_json.loads(payload)
            except ValueError as e:
                return False, "badarg " + str(e)
            self._post_game(start, position_json.to_dict(start))
            return True, ""
        if typ == "UNDO":
            return (True, "") if self.undo(now) else (False, "state no move to take back")
        if typ == "MODE":
            if payload not in MODES:
                return False, "badarg mode is teach, play or silent"
            self.guide.mode = MODES.index(payload)
            return True, ""
        if typ == "BRIGHT":
            try:
                v = int(payload)
            except ValueError:
                v = -1
            if not 0 <= v <= 100:
                return False, "badarg brightness is 0..100 (percent)"
            self.guide.brightness = v * 255 // 100
            return True, ""
        if typ == "SHOW":
            try:
                m, _ = notation.parse_move(self.p, payload)  # type: ignore[arg-type]
            except core.BaoError as e:
                return False, "badarg " + str(e)
            self.rec.hint = m & core.IDENTITY
            return True, notation.format_move(m, self.p.d[core.TO_MOVE])  # type: ignore[attr-defined]
        if typ == "STOP":
            r = self.rec.decide_stop()
            if r != R.R_DONE:
                return False, "state 2.5b: no house decision is pending"
            self._commit(self.rec.done_move, self.rec.done_child, now)  # type: ignore[arg-type]
            return True, ""
        if typ == "SNAP" or typ == "SNAPSHOT":
            return True, self.snapshot()
        return False, "unknown " + typ

    def snapshot(self) -> str:
        rec = self.rec
        nxt = []
        for i in range(rec.n):
            e = rec.expected(i)
            if e >= 0:
                nxt.append(core.pit_name(e & R.PIT))
        return json.dumps({
            "position": position_json.to_dict(self.p),  # type: ignore[arg-type]
            "moves": len(self.journal.moves),
            "phase": ("idle", "moving", "decision", "over")[rec.phase],
            "mode": MODES[self.guide.mode],
            "brightness": self.guide.brightness,
            "next": nxt,
            "wrong": core.pit_name(rec.wrong_pit) if rec.wrong_pit >= 0 else None,
            "leds": "".join(f"{b:02x}" for b in self.guide.frame),
            "last": self.journal.last,
            "acked": self.journal.acked,
        })
