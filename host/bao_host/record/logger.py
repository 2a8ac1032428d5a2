"""The logger: what the host does with each frame the board sends (independent of the transport).

    lg = Logger(store, south="Ali", north="Bibi")
    lg.hello(fields, port)                       after the handshake (fields of the board's HELLO)
    res = lg.event(seq, typ, payload, raw)       one sequenced event; durable when it returns -> ack it
    lg.notice(typ, payload, raw) / lg.bad_input(msg, raw) / lg.connection(state)
    lg.on_message = fn(Message)                  each message as it is said (`bao log --quiet` prints them)

The serial side is bao_host.record.session.LinkSession (bao_host.record.link underneath): it acknowledges an event only
after event() has returned, i.e. once the event is on disk.

Events (docs/protocol.md): GAME <info json> starts a game; MOVE "<notation> <position json>"; UNDO;
END; ILLEGAL/ERROR/... are logged only. Every event is kept in the event log (store) exactly once, keyed
by (board id, epoch, sequence number). Every MOVE is checked again with the rules core from the stored
position: a move that does not follow (illegal there, or another resulting position than the board
says) is flagged: kept in the event log with the reason and shown, never stored as a move.

After a gap (events acknowledged once that the store does not hold: `gap()`), the logger no longer assumes
it knows the board's game: the gap is recorded as a GAP event, and the first MOVE that does not follow from
the stored position re-anchors on the full position the MOVE carries: a game continued from there (its
start is that position, its `board game` the board's with "+<seq>"), the later moves checked against it.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bao import core, notation, position_json
from baoproto.frames import split_move
from baoproto.state import STATE

from bao_host.record.citation import cite, cite_words
from bao_host.record.state import BoardState
from bao_host.record.state import parse as parse_state
from bao_host.record.store import PRACTICE, Op, Store

SUPPORTED_PROTOCOLS = ("1", "2", "3", "4", "5")  # docs/protocol.md: 2 adds the NAK, 3 its bad= form, 4 the STATE
# notice, 5 the set-up's phase in STATE and SNAP


def side_name(side: int) -> str:
    return "South" if side == core.SOUTH else "North"


def same_position(reported: core.Position, computed: core.Position) -> bool:
    """The board's position is the rules core's: every byte but the winner, which a position from the rules
    core leaves to core.outcome() and a position read from JSON may carry."""
    a, b = bytearray(reported.d), bytearray(computed.d)
    if len(a) != len(b) or reported.rules.ruleset != computed.rules.ruleset:
        return False
    won, known = a[core.WINNER], b[core.WINNER]
    a[core.WINNER] = b[core.WINNER] = 0
    return a == b and (won in (core.NONE, known) or won == core.outcome(computed))


def _illegal_text(payload: str, ruleset: str) -> str:
    """The board's ILLEGAL event as a sentence: refused a1: 1.1: it is South's turn (the rule in the numbers
    of the game's ruleset: a Malawi game's "M2 (1.4)", bao_host.record.citation)."""
    try:
        obj = json.loads(payload)
    except ValueError:
        return f"refused: {payload}"
    if not isinstance(obj, dict):
        return f"refused: {payload}"
    rule, reason = str(obj.get("rule") or ""), str(obj.get("reason") or "")
    return (
        f"refused {obj.get('pit', '?')}: {cite_words(ruleset, rule, reason) if reason else cite(ruleset, rule) or '?'}"
    )


@dataclass
class Result:
    """What became of one event."""

    duplicate: bool = False
    stored: bool = False
    flag: str = ""
    message: str = ""


@dataclass
class Message:
    t: float
    # "info", "warn", "error"; "detail": the link's workings (protocol, events, device paths), for the logger's
    # own output (`bao log`) and `make run --verbose`, not for a player
    level: str
    text: str


@dataclass
class Counters:
    events: int = 0
    duplicates: int = 0
    moves: int = 0
    flagged: int = 0
    notices: int = 0
    bad_frames: int = 0
    reconnects: int = 0


@dataclass
class View:
    """What a live view shows: kept up to date by the logger."""

    connection: str = "searching"
    port: str = ""
    board_id: str = ""
    firmware: str = ""
    game_id: int | None = None
    position: core.Position | None = None
    plies: list[str] = field(default_factory=list)
    result: str = ""
    south: str = ""
    north: str = ""
    state: BoardState | None = None  # what the board guides now, as its last STATE notice said it
    setup: str = ""  # the set-up step the board waits for, as its last SETUP notice said it ("": none), or
    # its done notice while it waits for the hand to leave the last place (wait=, until ready)


# The names a UI gives the sides of a game nobody named (Logger.name_sides): replaced when the side's player
# changes during the game; any other name is a person's and stays.
SIDE_NAMES = re.compile(r"a person|computer [1-4]|host engine")


def _waiting(now: str, pit: str) -> str:
    """The set-up's done notice (its wait for the hand to leave `pit`) as the view keeps it: the one heard,
    or, when it was lost, one that says the wait (its counts unknown)."""
    if now.startswith("done ") and f" wait={pit}" in now:
        return now
    return f"done steps=0 touches=0 refused=0 wait={pit}"


class ProtocolError(Exception):
    """The board speaks a protocol this host does not: one-line message."""


class Logger:
    def __init__(
        self,
        store: Store,
        south: str | None = None,
        north: str | None = None,
        place: str | None = None,
        on_change: Callable[[], None] | None = None,
        max_messages: int = 200,
        on_message: Callable[[Message], None] | None = None,
    ) -> None:
        self.store = store
        self.south = south
        self.north = north
        self.place = place
        self.on_change = on_change
        self.on_message = on_message
        self.messages: deque[Message] = deque(maxlen=max_messages)
        self.said = 0  # messages said so far (the deque keeps the last max_messages)
        self.counters = Counters()
        self.view = View()
        self.board_id = ""
        self.epoch = ""
        self.firmware = ""
        self.proto = 0  # the protocol version the board's handshake settled on (5: it says the set-up's phase)
        self.reanchor = False  # after a gap: the next MOVE that does not follow starts a continued game
        self.leaving: int | None = None  # the game a GAME event being stored leaves 'playing' (abandoned)
        # what a position the host lays out is for: "lesson" or "puzzle" while one runs (its GAME is then
        # kept as that kind, store.PRACTICE, not a game of the library), "" otherwise
        self.practice: Callable[[], str] = lambda: ""
        for p in store.problems:
            self.say("warn", p)

    # -- messages -------------------------------------------------------------------------------------
    def say(self, level: str, text: str) -> None:
        m = Message(time.time(), level, text)
        self.messages.append(m)
        self.said += 1
        if self.on_message is not None:
            self.on_message(m)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def connection(self, state: str, port: str = "") -> None:
        if state == "connected" and self.view.connection not in ("connected", "searching", "connecting"):
            self.counters.reconnects += 1
        self.view.connection = state
        if port:
            self.view.port = port
        self._changed()

    # -- frames ---------------------------------------------------------------------------------------
    def hello(self, fields: dict[str, str], port: str = "") -> None:
        """The board's handshake fields: proto, fw, rules, board, epoch, last, acked."""
        proto = fields.get("proto", "")
        if proto not in SUPPORTED_PROTOCOLS:
            msg = (
                f"board speaks protocol {proto or '?'}, this host speaks "
                f"{', '.join(SUPPORTED_PROTOCOLS)}: update the host or the firmware"
            )
            self.say("error", msg)
            raise ProtocolError(msg)
        self.board_id = fields.get("board", "") or "unknown"
        self.epoch = fields.get("epoch", "")
        self.firmware = fields.get("fw", "")
        speaks = [int(v) for v in fields.get("speaks", "").split(",") if v in SUPPORTED_PROTOCOLS]
        self.proto = max([int(proto), *speaks])  # (a restarted board's H0 HELLO says proto=1 speaks=5,...:
        # the link says HELLO again, and the board speaks the newest both do: bao_host.record.link._greet)
        self.store.board_seen(self.board_id, self.firmware, port)
        self.view.board_id = self.board_id
        self.view.firmware = self.firmware
        self.view.setup = ""  # (a set-up under way is said again after the handshake: docs/protocol.md)
        self.say("info", f"the board ({self.board_id}) is connected")
        self.say(
            "detail",
            f"board {self.board_id} (firmware {self.firmware or '?'}, protocol {proto}) on "
            f"{port or '?'}: last event {fields.get('last', '?')}, acknowledged "
            f"{fields.get('acked', '?')}",
        )
        g = self._current_game()
        if g is not None:
            self._show_game(g)

    def gap(self, board_id: str, epoch: str, first: int, last: int) -> None:
        """Events first..last of (board, epoch) were acknowledged once and cannot be had: record the gap as an
        event of the current game and re-anchor on the board's next position."""
        self.reanchor = True
        game = self.store.last_board_game(board_id)
        text = f"events {first}..{last} were acknowledged before and are not in the store: they cannot be had"
        self.store.ingest(board_id, epoch + "/gap", first, "GAP", f"GAP {first}..{last}", self.store.op_flag(game, ""))
        self.say("error", f"board {board_id}: {text}; the next move re-anchors on the position the board sends")

    def _current_game(self) -> int | None:
        return self.store.last_board_game(self.board_id)

    def event(self, seq: int, typ: str, payload: str, raw: str, epoch: str | None = None) -> Result:
        """Record and apply one sequenced event. Durable on return (the caller may acknowledge it)."""
        stream = self.epoch if epoch is None else epoch
        self.counters.events += 1
        if self.store.seen(self.board_id, stream, seq):
            self.counters.duplicates += 1
            return Result(duplicate=True)
        op: Op
        message = ""
        stored = False
        game = self._current_game()
        try:
            if typ == "GAME":
                op = self._op_game(seq, stream, payload)
                stored = True
            elif typ == "MOVE":
                op, message, stored = self._op_move(game, seq, payload)
            elif typ == "UNDO":
                if game is None or not self.store.game(game).plies:
                    message = "UNDO with no move to take back: kept in the event log, not applied"
                    op = self.store.op_flag(game, message)
                else:
                    op, stored = self.store.op_undo(game), True
            elif typ == "END":
                if game is None:
                    op = self.store.op_flag(None, "game end with no game")
                    message = "END with no game: ignored"
                else:
                    op, stored = self.store.op_end(game, self._result(game, payload)), True
            else:
                op = self.store.op_flag(game, "")
                if typ == "ILLEGAL":
                    p = self.view.position
                    message = _illegal_text(payload, p.rules.ruleset if p is not None else core.ZANZIBAR)
                elif typ == "ERROR":
                    message = f"board error: {payload}"
        except Exception as e:  # whatever the payload holds, it never stops the logger
            message = f"{typ} {seq}: unreadable payload ({type(e).__name__}: {e}): kept in the event log, not applied"
            op = self.store.op_flag(game, message)
            stored = False
        res = self.store.ingest(self.board_id, stream, seq, typ, raw, op)
        if res.duplicate:
            self.counters.duplicates += 1
            return Result(duplicate=True)
        if res.flag:
            self.counters.flagged += 1
            message = message or res.flag
            self.say("error", f"event {seq} {typ} flagged: {message}")
        elif message:
            self.say("warn", message)
        if stored and not res.flag and typ == "MOVE":
            self.counters.moves += 1
        if typ == "GAME" and self.leaving is not None and res.game not in (None, self.leaving) and not res.flag:
            self.say("info", f"game {self.leaving} marked abandoned in the library (a new game before it ended)")
        self.leaving = None
        if res.game is not None:
            self._show_game(res.game)
        return Result(stored=stored and not res.flag, flag=res.flag, message=message)

    def _op_game(self, seq: int, stream: str, payload: str) -> Op:
        info: dict[str, Any] = json.loads(payload) if payload.strip().startswith("{") else {}
        ruleset = str(info.get("ruleset", core.ZANZIBAR))
        opts = info.get("options") or {}
        if not isinstance(opts, dict):
            raise ValueError("options must be an object")
        rules = core.Rules(ruleset, **opts)
        pos = info.get("position")
        if pos is not None:
            start = position_json.from_dict(pos)
        else:
            first = core.NORTH if str(info.get("first", "S"))[:1].upper() == "N" else core.SOUTH
            start = core.initial(ruleset, rules, first)
        board_game = str(info.get("game", info.get("id", f"{stream}.{seq}")))
        headers = {
            "south": self.south or "",
            "north": self.north or "",
            "place": self.place or "",
            "date": time.strftime("%Y-%m-%d"),
        }
        kind = self.practice() if pos is not None else ""  # (a NEW game is never a lesson's or a puzzle's)
        kind = kind if kind in PRACTICE else ""
        prev = self._current_game()
        left = self.store.game(prev) if prev is not None else None
        if left is not None and left.source in PRACTICE:
            prev = None  # a lesson's task or a puzzle left for the next is not a game abandoned
        elif left is not None and left.status == "playing" and (left.plies or not kind):
            self.leaving = prev  # said once the new game is stored (event); not a game with no move that a
            # lesson or a puzzle replaces (the board's new game when `make run --lesson` starts)
        self.say("info", f"{kind or 'new game'} ({ruleset}) on board {self.board_id}")
        return self.store.op_start_game(
            self.board_id, board_game, start, headers, self.firmware, leaves=prev, source=kind or "board"
        )

    def _op_move(self, game: int | None, seq: int, payload: str) -> tuple[Op, str, bool]:
        op, message, stored = self._check_move(game, seq, payload)
        if self.reanchor and stored:
            self.reanchor = False  # it follows: the gap held nothing of this game's moves
        elif self.reanchor:
            op, message = self._reanchored(game, seq, payload, message)
            self.reanchor = False
        return op, message, stored

    def _reanchored(self, game: int | None, seq: int, payload: str, why: str) -> tuple[Op, str]:
        """A game continued from the position this MOVE carries (the first move after a gap)."""
        text, pos_text = split_move(payload)
        try:
            start = position_json.loads(pos_text)
        except (ValueError, core.BaoError) as e:
            msg = f"move {text} after a gap: no position to re-anchor on ({e}): kept in the event log"
            self.reanchor = True
            return self.store.op_flag(game, msg), msg
        old = self.store.game(game).board_game if game is not None else "?"
        headers = {
            "south": self.south or "",
            "north": self.north or "",
            "place": self.place or "",
            "date": time.strftime("%Y-%m-%d"),
            "continues": f"board game {old} after a gap",
        }
        msg = (
            f"move {text} does not follow the stored game after a gap ({why or 'no game'}): "
            "re-anchored on the board's position, the game continues as a new record"
        )
        return self.store.op_start_game(self.board_id, f"{old}+{self.epoch}.{seq}", start, headers, self.firmware), msg

    def _check_move(self, game: int | None, seq: int, payload: str) -> tuple[Op, str, bool]:
        text, pos_text = split_move(payload)
        if game is None:
            msg = f"move {text} before any game start: kept in the event log, not stored"
            return self.store.op_flag(None, msg), msg, False
        g = self.store.game(game)
        if g.status == "over":
            msg = f"move {text} after the end of game {game}: kept in the event log, not stored"
            return self.store.op_flag(game, msg), msg, False
        before = self.store.current_position(game)
        side = side_name(before.to_move)
        ply = len(g.plies) + 1
        try:
            move, child = notation.parse_move(before, text, notation.DONKERS)
        except core.BaoError as e:
            msg = f"move {(ply + 1) // 2} {side} {text} does not follow from the stored position: {e}"
            return self.store.op_flag(game, msg), msg, False
        if pos_text:
            try:
                reported = position_json.loads(pos_text)
            except (ValueError, core.BaoError) as e:
                msg = f"move {(ply + 1) // 2} {side} {text}: unreadable position ({e})"
                return self.store.op_flag(game, msg), msg, False
            if not same_position(reported, child):
                msg = (
                    f"move {(ply + 1) // 2} {side} {text}: the board reports another position than "
                    "the rules core computes"
                )
                return self.store.op_flag(game, msg), msg, False
        canon = notation.format_move(move, before.to_move, notation.DONKERS)
        w = core.outcome(child)
        result = "" if w is None else f"{side_name(w)} wins"
        return self.store.op_move(game, ply, canon, child, seq, result), "", True

    def _result(self, game: int, payload: str) -> str:
        w = core.outcome(self.store.current_position(game))
        if w is not None:
            return f"{side_name(w)} wins"
        words = payload.strip()
        if words.startswith("{"):
            try:
                obj = json.loads(words)
                if isinstance(obj, dict) and obj.get("winner"):
                    return {"S": "South", "N": "North"}.get(str(obj["winner"]), str(obj["winner"])) + " wins"
                if isinstance(obj, dict):
                    for k in ("result", "reason"):
                        if obj.get(k):
                            return str(obj[k])
                    return "ended"
            except ValueError:
                pass
        return words or "ended"

    def notice(self, typ: str, payload: str, raw: str) -> None:
        if typ == STATE:  # what the board guides now (protocol 3): the views say it; not stored (it is no event)
            said = parse_state(payload)
            if said is None:
                self.say("warn", f"an unreadable STATE notice from the board: {payload[:60]!r}")
            elif said != self.view.state:
                self.view.state = said
                self._changed()
                if self.proto >= 5:  # (an older board's STATE says nothing of a set-up)
                    self._setup_phase(said.setup)
            return
        self.counters.notices += 1
        self.store.log_unsequenced(self.board_id, raw)
        if typ == "BADFRAME":
            self.say("warn", f"the board dropped a bad frame from the host ({payload})")
        elif typ == "SETUP":  # the set-up's steps: the UIs say them in words (bao_host.ui.setup_words)
            first = payload.split(" ", 1)[0]  # (done with wait=: the game's lights come on at ready)
            step = "" if first in ("off", "ready") or (first == "done" and " wait=" not in payload) else payload
            if step != self.view.setup:
                self.view.setup = step
                self._changed()
        elif typ in ("CPU", "HINT") and payload.split():  # <move> <nodes> <depth> [<score>] (docs/protocol.md):
            # said once, in words (the UIs' guidance line says the move step by step while it is lit)
            move = payload.split()[0]
            self.say("info", f"the computer chose {move}" if typ == "CPU" else f"hint: {move}")
        elif typ == "IGNORED":  # (docs/protocol.md: touches while the board could not read them)
            self.say(
                "warn",
                "the board was touched before it was ready (it was preparing its flash): those touches made no move",
            )
        else:
            self._said_notice(typ, payload)

    def _setup_phase(self, phase: str) -> None:
        """The set-up's phase as the board's STATE says it (protocol 5: "", "steps:<n>", "wait:<pit>"): a
        SETUP notice lost on the line (ready, done) or said before this host came is made good (#28)."""
        now = self.view.setup
        if not phase:
            new = ""
        elif phase.startswith("wait:"):
            new = _waiting(now, phase[5:])
        else:
            new = now  # (the step itself: its notice, said again at the HELLO, or SNAP's, setup_polled)
        if new != now:
            self.view.setup = new
            self._changed()

    def setup_polled(self, setup: object) -> None:
        """The set-up's phase as the board's SNAP says it ("setup": null, or a step or the wait: protocol 5),
        read at each poll of the board (bao_host.ui.ledfeed): a lost SETUP notice is made good by the next."""
        if self.proto < 5:  # (an older board's SNAP says null during the wait too)
            return
        now = self.view.setup
        if not isinstance(setup, dict):
            new = ""
        elif setup.get("phase") == "wait":
            new = _waiting(now, str(setup.get("wait", "")))
        else:
            try:
                have = setup.get("have")
                held = "?" if have is None else str(int(have))
                why = f" why={setup['why']}" if setup.get("why") in ("cut", "stop") else ""
                rules = f" rules={setup['rules']}" if setup.get("rules") in core.RULESETS else ""
                new = (
                    f"step={int(setup['step'])} of={int(setup['of'])} at={setup['at']} have={held} "
                    f"want={int(setup['want'])}{rules}{why}"
                )
            except (KeyError, TypeError, ValueError):
                return
            if now.startswith(new.split(" why=")[0]):  # (the notice said it, maybe with wrong=: keep it)
                return
        if new != now:
            self.view.setup = new
            self._changed()

    def _said_notice(self, typ: str, payload: str) -> None:
        """A notice of the board (docs/protocol.md) in a player's words; one the host has no words for is the
        link's detail."""
        words = payload.split()
        pending = next((w[len("pending=") :] for w in words if w.startswith("pending=")), "?")
        if typ == "CANCEL":
            self.say("info", f"the move under way was abandoned (the undo gesture on {payload}): play it again")
        elif typ == "NOUNDO":
            self.say("info", f"nothing to undo: {payload}")
        elif typ == "UNRECORDED":
            self.say("warn", f"the board is not recording this game: {pending} events wait for a host to take them")
        elif typ == "FULL":
            self.say("warn", "the board's flash has no room for that move: it was not taken (put the orange pits back)")
        else:
            self.say("detail", f"board notice {typ} {payload}".rstrip())

    def bad_input(self, message: str, raw: str = "") -> None:
        """A line from the board that is not a valid frame (checksum, syntax, ...): reported, not stored."""
        self.counters.bad_frames += 1
        self.store.log_unsequenced(self.board_id, raw, note=message)
        self.say("warn", message)

    def name_sides(self, south: str, north: str) -> None:
        """Who plays each side of the current game as the UI knows it ("a person", "computer 2", "host
        engine"), recorded in the library while the game runs, so that a list of games says who played it.
        Players named on the command line or by `bao name` keep their names."""
        v = self.view
        if v.game_id is None or self.south or self.north or v.result or (v.south, v.north) == (south, north):
            return
        if any(n and not SIDE_NAMES.fullmatch(n) for n in (v.south, v.north)):
            return
        g = self.store.name_players(v.game_id, south=south, north=north)
        v.south, v.north = g.south, g.north
        self._changed()

    # -- view -----------------------------------------------------------------------------------------
    def _show_game(self, game_id: int) -> None:
        g = self.store.game(game_id)
        if g.id != self.view.game_id and (self.south or self.north) and not (g.south or g.north):
            g = self.store.name_players(g.id, south=self.south, north=self.north)
        v = self.view
        v.game_id = g.id
        v.plies = list(g.plies)
        v.result = g.result
        v.south, v.north = g.south, g.north
        v.position = self.store.current_position(g.id)
        self._changed()
