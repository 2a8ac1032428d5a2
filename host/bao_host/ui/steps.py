"""The guidance line: what the player does next, in words, from what the board says (its STATE notice,
docs/protocol.md; bao_host.record.state): the pits the board expects next are those its LED guide lights (the
same colours), so the words name them: lift a start pit, choose a direction, drop the next seed, capture,
choose the kichwa, relay, decide in the house. The colours are named as in the teach mode (docs/leds.md); in
the play and silent modes the LEDs stay dark but the words are the same. Every UI says it with these words:
the terminal UI, the web board, `bao log`'s view.
"""

from __future__ import annotations

from bao import core, kuu

from bao_host.record.citation import cite, cite_words
from bao_host.record.state import DECISION, IDLE, OVER, BoardState


def _side(side: int) -> str:
    return "South" if side == core.SOUTH else "North"


def _names(pits: list[int] | tuple[int, ...]) -> str:
    names = [core.pit_name(p) for p in pits]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def seeds_to_place(p: core.Position) -> int:
    """M20-M22: the seeds the side to move still places, as the LEDs count them in gold (docs/leds.md):
    before the first drop, the nemo and the seeds it lifts (a take, M21, adds to them once chosen)."""
    left = kuu.placing(p)
    if left or not kuu.is_placing(p):
        return left
    me = p.to_move * 16
    return 1 + sum(p.d[me + i] for i in range(16) if i != 4)


def step_guidance(state: BoardState | None, rules: core.Rules | None = None, opponent: str = "") -> str:
    """One sentence for the step the board waits for, from its STATE (None: it has said none yet); `rules`:
    the game's (its position's bytes say the rest); `opponent`: who plays the other side when it is not a
    person ("the computer", "the host's engine"), named in the house decision."""
    p = state.position(rules) if state is not None else None
    if state is None or p is None:
        return "the board is starting"
    if state.stage == OVER:
        w = core.outcome(p)
        return (f"{_side(w)} wins: " if w is not None else "") + "the game is over: new game (n) starts another"
    refused = _refusal(state, p) if state.wrong >= 0 else ""
    return refused + _step(state, p, opponent)


def _refusal(s: BoardState, p: core.Position) -> str:
    """The refused touch and the rule it breaks: the board's own rule when it names one (an attempted
    start: bao.reasons), else the rule of the step the move is at (a sowing goes on pit by pit, 1.3; a
    capture is lifted before the sowing goes on, 1.4)."""
    name = core.pit_name(s.wrong)
    rule, reason = s.rule, s.why
    if not rule:
        rule, reason = _step_rule(s, p)
    why = reason if reason.startswith(rule) else f"{rule}: {reason}" if reason else rule
    why = cite_words(p.rules.ruleset, rule, why)  # (the Malawi games' numbers, and their kuu for the house)
    return f"{name} refused (pink ✕), {why}; "


def _step_rule(s: BoardState, p: core.Position) -> tuple[str, str]:
    """The rule and reason of the step the move is at, when the board names none."""
    if s.stage == IDLE:
        return "1.1", "not a pit this move can start from"
    if s.stage == DECISION:
        return "2.5b", "stop in the house or play it"
    if any(b >> 4 != p.to_move for b in s.lift):
        return "1.4", "the capture is lifted first"
    if s.kichwa:
        return "1.4a", "the captured seeds go in from a kichwa"
    return "1.3", "the seeds go one by one into the next pits"


def _house(p: core.Position) -> str:
    return "house" if p.rules.ruleset == core.ZANZIBAR else "kuu"


def _start(p: core.Position) -> str:
    side = p.to_move
    if kuu.is_placing(p):
        left = seeds_to_place(p)
        how = (
            "drop one seed into a green pit"
            if kuu.placing(p)
            else "lift the green pit and the others to empty (M20), then drop a seed into one of yours"
        )
        return f"{_side(side)} places, {left} seed{'s' if left != 1 else ''} left (gold, M22): {how}"
    how = "put a seed from the store into" if p.store(side) else "lift the seeds of"
    marks = ""
    must = kuu.must_capture(p) if p.rules.kuu else None
    if must is not None:
        marks = f"; {core.pit_name(must)} (purple, blinking) must be captured first (M19)"
    elif p.rules.kuu and p.takasia is not None:
        marks = f"; {core.pit_name(p.takasia)} is threatened (purple, M18)"
    return f"{_side(side)} to move: {how} a green pit{marks}"


def _step(s: BoardState, p: core.Position, opponent: str = "") -> str:
    side = p.to_move
    if s.stage == IDLE:
        return _start(p)
    lifts_own = [b for b in s.lift if b >> 4 == side]
    captures = [b for b in s.lift if b >> 4 != side]
    if s.stage == DECISION:
        other = _side(1 - side)  # (against the computer too: it waits for the decision, so a touch makes it)
        # (a touch of the other side's pits stops the move and is that side's first: a pit it cannot start from
        # is then refused, so the words ask for the start of its move; against the computer, its move is lit)
        stop = (
            f"touch any of {other}'s pits: then {opponent} plays"
            if opponent
            else (f"begin {other}'s move: its first touch stops this one")
        )
        house = _house(p)
        return (
            f"{cite(p.rules.ruleset, '2.5b')} {house} decision: stop in the {house} ({stop}) or "
            f"lift {_names(lifts_own) if lifts_own else 'the ' + house} (amber and yellow, blinking) to play it"
        )
    lifted = f"{core.pit_name(s.lifted)} lifted: " if s.lifted >= 0 and not p.store(side) else ""
    said: list[str] = []
    if captures:
        said.append(f"{cite(p.rules.ruleset, '1.4')} capture: lift the seeds of {_names(captures)} (red)")
    if len(s.kichwa) > 1:
        said.append(f"choose the kichwa: the first captured seed into {_names(s.kichwa)} (cyan)")
    elif s.kichwa:
        said.append(f"the captured seeds go in from the kichwa {_names(s.kichwa)} (cyan)")
    if lifts_own:
        said.append(f"lift the seeds of {_names(lifts_own)} (yellow) and sow on")
    if len(s.drop) > 1:
        said.append(f"choose the direction: drop one seed into {_names(s.drop)} (blue)")
    elif s.drop:
        said.append(f"drop one seed into {_names(s.drop)} ({'blue' if s.choice else 'white'})")
    return lifted + ("; or ".join(said) or "go on with the move")
