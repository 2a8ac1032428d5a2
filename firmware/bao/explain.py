# A move's account in words, one sentence per step, each citing its rule: what teaching mode says and
# what the host prints with `bao apply --trace`.
from bao.core import (
    END_EMPTY,
    END_HOUSE,
    END_HOUSE_STOP,
    END_INFINITE,
    END_OPP_FRONT_EMPTY,
    END_OWN_FRONT_EMPTY,
    END_SLEEP,
    END_TAKASIA,
    STEP_CAPTURE,
    STEP_END,
    STEP_HOUSE,
    STEP_LIFT,
    STEP_RELAY,
    STEP_SOW,
    STEP_STORE,
    STEP_TAX,
    pit_name,
)

_ENDS = {
    END_EMPTY: "the last seed fell into an empty pit: the move ends (1.5)",
    END_HOUSE: "the takasa ends in the owned house with 6 or more seeds: the move ends (2.5b)",
    END_HOUSE_STOP: "the move stops in the owned house (2.5b, player's choice)",
    END_TAKASIA: "the sowing ended in the takasia-ed pit: the move ends (4.1b)",
    END_OWN_FRONT_EMPTY: "the front row is empty: the mover loses at once (1.2, R9)",
    END_OPP_FRONT_EMPTY: "the opponent's front row is empty: the mover wins at once (1.2, R9)",
    END_SLEEP: "the sowing has come back to a state it was in before: the move sleeps here (M4)",
    END_INFINITE: "the sowing would never end: the move is illegal (1.5a, R10)",
}


def sown_pits(step: tuple) -> list:
    """The pits a STEP_SOW step drops one seed each into, in order."""
    _, first, direction, n = step
    base = first & 16
    ring = first & 15
    out = []
    for _ in range(n):
        out.append(base + ring)
        ring = (ring + direction) & 15
    return out


def describe_step(step: tuple) -> str:
    kind = step[0]
    if kind == STEP_STORE:
        return "a seed from the store goes into %s (2.2)" % pit_name(step[1])
    if kind == STEP_LIFT:
        return "lift the %d seeds of %s (1.3)" % (step[2], pit_name(step[1]))
    if kind == STEP_TAX:
        return "take 2 seeds out of the lone house %s; the house stays owned (2.4b)" % pit_name(step[1])
    if kind == STEP_SOW:
        pits = [pit_name(i) for i in sown_pits(step)]
        return "sow %d seed%s: %s" % (step[3], "" if step[3] == 1 else "s", " ".join(pits))
    if kind == STEP_CAPTURE:
        _, taken, n, kichwa, direction = step
        return "capture the %d seed%s of %s and sow them in from the kichwa %s towards %s (1.4)" % (
            n, "" if n == 1 else "s", pit_name(taken), pit_name(kichwa),
            "pit 8" if direction == 1 else "pit 1")
    if kind == STEP_RELAY:
        return "endelea: lift the %d seeds of %s and sow on in the same direction (1.6)" % (step[2], pit_name(step[1]))
    if kind == STEP_HOUSE:
        if step[2]:
            return "play the house %s: its seeds are sown on and the house is lost (2.5b, 2.5a)" % pit_name(step[1])
        return "stop in the house %s (2.5b)" % pit_name(step[1])
    if kind == STEP_END:
        return _ENDS.get(step[2], "the move ends")
    return "step %r" % (step,)


def describe(steps: list) -> list:
    """The whole account, one sentence per step."""
    return [describe_step(s) for s in steps]
