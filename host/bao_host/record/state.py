"""The board's STATE notice read (docs/protocol.md, "State"; its names: baoproto.state): what the board guides
now, as the board says it to a host of protocol 4. Every UI builds its words (bao_host.ui.steps) and the seed
counts it shows pit by pit from it, whatever runs the board: the simulated board, the emulated Pico, a board
on USB.

    state = parse(payload)          # a BoardState, or None for a payload that is not one (never raises)
    state.position(rules)           # the position the board guides from (the rules: the game's)
    state.counts(rules)             # 32 pits and 2 stores as a person sees them, pit by pit during a move
"""

from __future__ import annotations

from dataclasses import dataclass

from bao import core, query
from baoproto import state as S

STAGES = tuple(s.decode() for s in S.STAGES)
IDLE, MOVING, DECISION, OVER = range(4)  # the stages' numbers (STAGES' order)


def _key(k: bytes) -> str:
    return k.decode().strip().rstrip("=")


_PITS = {_key(S.DROP): "drop", _key(S.LIFT): "lift", _key(S.KICHWA): "kichwa"}
_PIT = {_key(S.LIFTED): "lifted", _key(S.WRONG): "wrong", _key(S.SHOWN): "shown", _key(S.TO): "to"}
_INT = {_key(S.STEPS): "steps", _key(S.MOVE): "move", _key(S.AT): "at"}


@dataclass(frozen=True)
class BoardState:
    stage: int  # IDLE, MOVING, DECISION or OVER
    side: int = core.SOUTH  # the side to move
    pos: bytes = b""  # the position's bytes (bao.layout), b"" when the board has none yet
    steps: int = 0  # activations of the move under way accepted so far
    lifted: int = -1  # the start pit the hand sows from (its first activation only), or -1
    drop: tuple[int, ...] = ()  # the pits the next seed may go into
    lift: tuple[int, ...] = ()  # the pits the next activation may empty (the side to move's: a relay)
    kichwa: tuple[int, ...] = ()  # the kichwas the captured seeds may go in from
    choice: bool = False  # the next pits are a choice (lit blue)
    move: int = -1  # the legal move followed (bao.layout's move code), or -1
    at: int = 0  # ... and how many of its activations are made
    wrong: int = -1  # a refused touch's pit, or -1
    rule: str = ""  # ... the rule it breaks
    why: str = ""  # ... and why, in words
    shown: int = -1  # a move lit for the player: its start pit, or -1
    to: int = -1  # ... and the pit its first seed goes to
    leds: bytes = b""  # the LED frame as drawn when the state changed
    setup: str = ""  # (protocol 5) a set-up under way: "steps:<places left>", "wait:<pit>"; "" none (or older)

    def position(self, rules: core.Rules | None = None) -> core.Position | None:
        """The position the board guides from, under `rules` (the game's; the default ruleset's if None)."""
        if len(self.pos) != core.SIZE:
            return None
        return core.Position(bytearray(self.pos), rules)

    def counts(self, rules: core.Rules | None = None) -> list[int]:
        """The seed counts (32 pits, then South's and North's store) as a person sees them: during a move,
        after the activations the board has accepted (`at` of the move it follows)."""
        p = self.position(rules)
        if p is None:
            return [0] * 34
        if self.stage in (MOVING, DECISION) and self.move >= 0:
            try:
                return expected_counts(p, self.move, self.at)
            except (core.BaoError, IndexError, ValueError):  # (a move of other rules than those given)
                pass
        return p.counts()


def _pits(text: str) -> tuple[int, ...]:
    return tuple(core.pit_index(n) for n in text.split(",") if n)


def parse(payload: str) -> BoardState | None:
    """A STATE notice's payload read; None when it is not one (a field unreadable, no stage)."""
    head, _, why = payload.partition(S.WHY.decode())
    values: dict[str, object] = {"why": why}
    try:
        for word in head.split():
            k, eq, v = word.partition("=")
            if not eq:
                continue
            if k == "stage":
                values["stage"] = STAGES.index(v)
            elif k == "side":
                values["side"] = core.NORTH if v == "N" else core.SOUTH
            elif k in ("pos", "leds"):
                values[k] = bytes.fromhex(v)
            elif k == "choice":
                values["choice"] = v == "1"
            elif k in ("rule", "setup"):
                values[k] = v
            elif k in _PITS:
                values[_PITS[k]] = _pits(v)
            elif k in _PIT:
                values[_PIT[k]] = core.pit_index(v)
            elif k in _INT:
                values[_INT[k]] = int(v)
    except (ValueError, core.BaoError):
        return None
    if "stage" not in values:
        return None
    return BoardState(**values)  # type: ignore[arg-type]


def expected_counts(p: core.Position, move: int, done: int) -> list[int]:
    """The seed counts (32 pits, then the two stores) a person sees after the first `done` activations of
    a legal move from p (one activation per seed put in, per pit emptied, per seed from the store; two
    seeds taken out of the house for the tax)."""
    d = p.counts()
    store = core.STORE + p.to_move
    n = 0
    for st in query.account(p, move):
        if n >= done:
            break
        k = st[0]
        if k == core.STEP_STORE:
            d[st[1]] += 1
            d[store] -= 1
            n += 1
        elif k in (core.STEP_LIFT, core.STEP_TAX, core.STEP_CAPTURE, core.STEP_RELAY):
            d[st[1]] -= st[2]
            n += 1
        elif k == core.STEP_SOW:
            base, ring, dirn = st[1] & 16, st[1] & 15, st[2]
            for j in range(st[3]):
                if n >= done:
                    break
                d[base + ((ring + j * dirn) & 15)] += 1
                n += 1
    return d
