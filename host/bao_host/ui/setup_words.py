"""The board's set-up mode in words (docs/protocol.md, "Set-up mode"): its `N0 SETUP` notices read into a step,
and the step said as a person does it ("put three seeds into A7 ..."), for the terminal UI and the web board."""

from __future__ import annotations

from dataclasses import dataclass

from bao import core

_ONES = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
STORE_NAMES = {"store-S": "South's store", "store-N": "North's store"}
STORE_ENDS = {"store-S": "B1 or B8", "store-N": "b1 or b8"}


def number_words(n: int) -> str:
    """0..99 in words ("no" for 0: "no seeds"); larger numbers as digits."""
    if n < 20:
        return _ONES[max(n, 0)]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    return str(n)


def seeds(n: int) -> str:
    return f"{number_words(n)} seed{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class SetupStep:
    """One step of a set-up: the place to put right (a pit's name, store-S, store-N), what it holds (None: the
    board does not know) and what it must hold; `wrong`: the pit whose touch was just refused."""

    step: int
    of: int
    at: str
    have: int | None
    want: int
    wrong: str = ""
    touch: str = ""  # the pits that confirm it when not its own (its sensor is faulty): "B1,B8"
    why: str = ""  # "cut": the board came back from a power cut in the middle of a move (its pits re-checked);
    # "stop": from a switch-off on purpose in the middle of one (a simulated board whose host quit)
    rules: str = ""  # the ruleset of the position laid out ("": a board that does not say it)


@dataclass(frozen=True)
class SetupEnd:
    """The set-up's end: done (the board matches; `steps` places, `touches`, `refused`) or left (SETUP off)."""

    done: bool
    steps: int = 0
    touches: int = 0
    refused: int = 0
    why: str = ""  # "cut": a set-up after a power cut in the middle of a move; "stop": after a switch-off then
    wait: str = ""  # the pit touched last: the game's lights come on once the hand has been away from it (ready)
    rules: str = ""  # the ruleset of the position laid out ("": a board that does not say it)


@dataclass(frozen=True)
class SetupReady:
    """The set-up's wait is over: the hand has been away from the place put right last, the game's lights are
    on and every touch is play's (`N0 SETUP ready`)."""


def parse(payload: str) -> SetupStep | SetupEnd | SetupReady | None:
    """A SETUP notice's payload read; None if it is not one the host understands (a newer board's)."""
    words = payload.split()
    fields = dict(w.split("=", 1) for w in words if "=" in w)
    try:
        if words[:1] == ["off"]:
            return SetupEnd(False)
        if words[:1] == ["ready"]:
            return SetupReady()
        if words[:1] == ["done"]:
            return SetupEnd(
                True,
                int(fields["steps"]),
                int(fields["touches"]),
                int(fields["refused"]),
                fields.get("why", ""),
                fields.get("wait", ""),
                fields.get("rules", ""),
            )
        have = fields["have"]
        return SetupStep(
            int(fields["step"]),
            int(fields["of"]),
            fields["at"],
            None if have == "?" else int(have),
            int(fields["want"]),
            fields.get("wrong", ""),
            fields.get("touch", ""),
            fields.get("why", ""),
            fields.get("rules", ""),
        )
    except (KeyError, ValueError):
        return None


# A set-up's why= for a move left half made at boot: a power cut, or a switch-off on purpose (the host quit)
LEFT = ("cut", "stop")


def ruleset_shown(setup: str, position: core.Position | None) -> str:
    """The ruleset a UI names for the board (its header, the web page's ruleset): while a set-up lays out a
    position, that position's as the board's SETUP notice says it (the game before it is still the board's
    until the GAME event: a Malawi lesson on a board that played Zanzibar, #28); else the game's; "" none."""
    said = parse(setup) if setup else None
    if isinstance(said, (SetupStep, SetupEnd)) and said.rules in core.RULESETS:
        return said.rules
    return position.rules.ruleset if position is not None else ""


def step_words(s: SetupStep) -> str:
    """The step in one or two sentences, as the guidance line says it."""
    store = STORE_NAMES.get(s.at)
    where = store or s.at
    touch = f"touch {STORE_ENDS[s.at]}" if store else f"touch {s.at}"
    if s.touch:  # its sensor is faulty: another pit confirms it
        touch = f"touch {' or '.join(s.touch.split(','))} ({s.at}'s sensor is faulty)"
    before = ", as before the move" if s.why in LEFT else ""  # (the count the board recorded last)
    if s.have is None:
        what = (
            f"make {where} hold {seeds(s.want)}{before} ({s.want}: count them)" if s.want else f"empty {where}{before}"
        )
    elif s.have < s.want:
        what = f"put {seeds(s.want - s.have)} into {where} (it holds {s.have}: make it {s.want})"
    else:
        what = f"take {seeds(s.have - s.want)} out of {where} (it holds {s.have}: leave {s.want})"
    after = {"cut": " after a power cut mid-move", "stop": " after the last session ended mid-move"}.get(s.why, "")
    said = f"Set-up{after}, step {s.step} of {s.of}: {what}, then {touch}."
    if s.wrong:
        said = (
            f"{s.wrong} is not the lit place: put back any seed you moved there (it is checked again at "
            f"the end). " + said
        )
    return said


def end_words(e: SetupEnd) -> str:
    if not e.done:
        return "Set-up left: the game goes on from the position before it."
    if e.wait and not e.steps:  # (the done notice lost, its wait read from the board's STATE or SNAP: no counts)
        return wait_words(e.wait)
    refused = f", {e.refused} refused" if e.refused else ""
    places = f"{e.steps} place{'s' if e.steps != 1 else ''}"
    touches = f"{e.touches} touch{'es' if e.touches != 1 else ''}"
    done = f"{places} put right in {touches}{refused}"
    if e.why in LEFT:
        hands_off = f"{_hands_off(e.wait)}; then" if e.wait else "Then"
        after = "the power cut" if e.why == "cut" else "the last session's end"
        return (
            f"The board is set up again after {after}: {done}. {hands_off} play the move that was cut "
            "short again from its start."
        )
    return f"The board is set up: {done}." + (f" {_hands_off(e.wait)}." if e.wait else "")


def _hands_off(pit: str) -> str:
    """What the board waits for after the last place (docs/leds.md, "Set-up mode"), without a full stop."""
    return (
        f"Take your hand off {pit}: the game's lights come on two seconds after your last touch there (until "
        f"then {pit} glows dim white, and a touch of it is seeds still going in)"
    )


def wait_words(pit: str) -> str:
    """The guidance line while the board waits for the hand to leave the place put right last."""
    return f"The board is set up. {_hands_off(pit)}."


def cut_words(s: SetupStep) -> str:
    """Said once when the board comes back from a power cut in the middle of a move (or from a switch-off on
    purpose then: a simulated board whose host quit, why=stop): what it does and why."""
    places = f"{number_words(s.of)} place{'s' if s.of != 1 else ''}"
    what = "The last session ended in the middle of a move" if s.why == "stop" else "Power cut mid-move"
    return (
        f"{what}: the board keeps the moves it recorded and never guesses how far the hands got. "
        f"It is back before that move: make the {places} it may have changed hold the counts said, one lit at "
        "a time (touch each), then play the move again."
    )


def from_snapshot(d: object) -> SetupStep | None:
    """The set-up step as the board's SNAP says it (its "setup" object), or None."""
    if not isinstance(d, dict):
        return None
    try:
        have = d.get("have")
        return SetupStep(
            int(d["step"]),
            int(d["of"]),
            str(d["at"]),
            None if have is None else int(have),
            int(d["want"]),
            why=str(d.get("why", "")),
            rules=str(d.get("rules", "")),
        )
    except (KeyError, ValueError, TypeError):
        return None
