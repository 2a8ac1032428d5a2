"""The guidance line: what the player does next, read from the board's recogniser (baoboard.recogniser) the
way the LED guide reads it (baoboard.guide: the same candidates, the same colours), so the words name the
pits the LEDs light: lift a start pit, choose a direction, drop the next seed, capture, choose the kichwa,
relay, decide in the house. The colours are named as in the teach mode (docs/leds.md); in the play and
silent modes the LEDs stay dark but the words are the same.
"""

from __future__ import annotations

from typing import Any

from bao import core, kuu
from baoboard import recogniser as R


def _side(side: int) -> str:
    return "South" if side == core.SOUTH else "North"


def _names(pits: list[int]) -> str:
    names = [core.pit_name(p) for p in pits]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def seeds_to_place(p: core.Position) -> int:
    """M20-M22: the seeds the side to move still places, as the LEDs count them in gold (baoboard.guide):
    before the first drop, the nemo and the seeds it lifts (a take, M21, adds to them once chosen)."""
    left = kuu.placing(p)
    if left or not kuu.is_placing(p):
        return left
    me = p.to_move * 16
    return 1 + sum(p.d[me + i] for i in range(16) if i != 4)


def _next_pits(rec: Any) -> list[int]:
    """The activation bytes the alive candidates expect next (an optional lift: also the byte after it),
    in order of first appearance, one per pit."""
    out: list[int] = []
    seen: set[int] = set()
    for i in range(rec.n):
        e = rec.expected(i)
        if e < 0:
            continue
        for b in (e, rec.after_optional(i) if e & R.OPT else -1):
            if b >= 0 and b & R.PIT not in seen:
                seen.add(b & R.PIT)
                out.append(b)
    return out


def _choice(rec: Any) -> bool:
    """The candidates want different pits next (an optional lift counted by the pit after it): the guide
    then lights them blue (a choice), else the one pit white (baoboard.guide._next)."""
    pits: set[int] = set()
    for i in range(rec.n):
        e = rec.expected(i)
        if e >= 0:
            pits.add((rec.after_optional(i) if e & R.OPT else e) & R.PIT)
    return len(pits) > 1


def step_guidance(rec: Any) -> str:
    """One sentence for the step the board waits for (rec: the board's Recogniser)."""
    p = rec.p
    if p is None:
        return "the board is starting"
    if rec.phase == R.OVER:
        w = core.outcome(p)
        return (f"{_side(w)} wins: " if w is not None else "") + "the game is over: new game (n) starts another"
    refused = ""
    if rec.wrong_pit >= 0:
        refused = _refusal(rec, p)
    return refused + _step(rec, p)


def _refusal(rec: Any, p: Any) -> str:
    """The refused touch and the rule it breaks: the board's own rule when it names one (an attempted
    start: bao.reasons), else the rule of the step the move is at (a sowing goes on pit by pit, 1.3; a
    capture is lifted before the sowing goes on, 1.4)."""
    name = core.pit_name(rec.wrong_pit)
    rule = getattr(rec, "wrong_rule", "") or ""
    reason = getattr(rec, "wrong_reason", "") or ""
    if rule:
        why = reason if reason.startswith(rule) else f"{rule}: {reason}" if reason else rule
    elif rec.phase == R.IDLE:
        why = "1.1: not a pit this move can start from"
    elif rec.phase == R.DECISION:
        why = "2.5b: stop in the house or play it"
    else:
        nxt = _next_pits(rec)
        side = p.to_move
        if any(b & R.LIFT and (b & R.PIT) >> 4 != side for b in nxt):
            why = "1.4: the capture is lifted first"
        elif any(b & R.KICHWA for b in nxt):
            why = "1.4a: the captured seeds go in from a kichwa"
        else:
            why = "1.3: the seeds go one by one into the next pits"
    return f"{name} refused (pink ✕), {why}; "


def _step(rec: Any, p: Any) -> str:
    side = p.to_move
    if rec.phase == R.IDLE:
        if kuu.is_placing(p):
            left = seeds_to_place(p)
            how = ("drop one seed into a green pit" if kuu.placing(p) else
                   "lift the green pit and the others to empty (M20), then drop a seed into one of yours")
            return f"{_side(side)} places, {left} seed{'s' if left != 1 else ''} left (gold, M22): {how}"
        how = "put a seed from the store into" if p.store(side) else "lift the seeds of"
        marks = ""
        must = kuu.must_capture(p) if p.rules.kuu else None
        if must is not None:
            marks = f"; {core.pit_name(must)} (purple, blinking) must be captured first (M19)"
        elif p.rules.kuu and p.takasia is not None:
            marks = f"; {core.pit_name(p.takasia)} is threatened (purple, M18)"
        return f"{_side(side)} to move: {how} a green pit{marks}"
    nxt = _next_pits(rec)
    lifts_own = [b & R.PIT for b in nxt if b & R.LIFT and (b & R.PIT) >> 4 == side]
    captures = [b & R.PIT for b in nxt if b & R.LIFT and (b & R.PIT) >> 4 != side]
    kichwas = [b & R.PIT for b in nxt if b & R.KICHWA]
    drops = [b & R.PIT for b in nxt if not b & (R.LIFT | R.KICHWA)]
    if rec.phase == R.DECISION:
        other = _side(1 - side)  # (against the computer too: it waits for the decision, so a touch makes it)
        return (f"2.5b house decision: stop in the house (touch any of {other}'s pits: {other} plays on) or "
                f"lift {_names(lifts_own) if lifts_own else 'the house'} (amber) to play it")
    lifted = ""
    if rec.steps == 1 and rec.start_pit >= 0 and not p.store(side):
        lifted = f"{core.pit_name(rec.start_pit)} lifted: "
    said: list[str] = []
    if captures:
        said.append(f"1.4 capture: lift the seeds of {_names(captures)} (red)")
    if len(kichwas) > 1:
        said.append(f"choose the kichwa: the first captured seed into {_names(kichwas)} (cyan)")
    elif kichwas:
        said.append(f"the captured seeds go in from the kichwa {_names(kichwas)} (cyan)")
    if lifts_own:
        said.append(f"lift the seeds of {_names(lifts_own)} (yellow) and sow on")
    if len(drops) > 1:
        said.append(f"choose the direction: drop one seed into {_names(drops)} (blue)")
    elif drops:
        said.append(f"drop one seed into {_names(drops)} ({'blue' if _choice(rec) else 'white'})")
    return lifted + ("; or ".join(said) or "go on with the move")
