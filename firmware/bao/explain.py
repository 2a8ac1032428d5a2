# A move's account in words, one sentence per step, each citing its rule: what teaching mode says and
# what the host prints with `bao apply --trace`.
from bao.layout import (
    END_EMPTY,
    END_HOUSE,
    END_HOUSE_STOP,
    END_INFINITE,
    END_OPP_FRONT_EMPTY,
    END_OWN_FRONT_EMPTY,
    END_SLEEP,
    END_TAKASIA,
    MARKS,
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


# The Malawi games cite their own rulings (docs/rules.md): lifting, sowing, capturing, relaying and a move's
# end in an empty pit are the Zanzibar mtaji stage's (M2); the game's end is M23 in all three (its text: "as
# the basic game"), and the lone end pit played back is M3.
_MALAWI_ENDS = {
    END_EMPTY: "the last seed fell into an empty pit: the move ends (M2)",
    END_OWN_FRONT_EMPTY: "the front row is empty: the mover loses at once (M3, M23)",
    END_OPP_FRONT_EMPTY: "the opponent's front row is empty: the mover wins at once (M23)",
}


_LENGTH = (0, 2, 3, 3, 4, 4, 3, 3, 3)  # a step's items by kind, its mark aside


def steps(account: "bytes | bytearray") -> list:
    """A compact account (bao.layout: 4 bytes a step) as the STEP_* tuples that bao.layout documents."""
    out = []
    for i in range(0, len(account), 4):
        kind = account[i] & 15
        mark = account[i] >> 4
        step = (kind, account[i + 1], account[i + 2], account[i + 3])[: _LENGTH[kind]]  # type: tuple
        if kind == STEP_SOW and step[2] == 255:
            step = (kind, step[1], -1, step[3])
        elif kind == STEP_CAPTURE:
            step = step + (1 if step[3] & 15 == 0 else -1,)  # from the left kichwa (ring 0) clockwise
        if mark:
            step = step + (MARKS[mark],)
        out.append(step)
    return out


def sown_pits(step: tuple) -> list:
    """The pits a STEP_SOW step drops one seed each into, in order."""
    first, direction, n = step[1], step[2], step[3]
    base = first & 16
    ring = first & 15
    out = []
    for _ in range(n):
        out.append(base + ring)
        ring = (ring + direction) & 15
    return out


# The kuu games' steps carry a last item (bao.layout): "kuu", or the Malawi rule they follow.
_KUU = {
    (STEP_TAX, "kuu"): "taxing the kuu: take 2 seeds out of %s; the kuu keeps its status unless emptied (M13, M16)",
    (STEP_LIFT, "kuu"): "the kuu held exactly 8: lift all 9 seeds of %s; the kuu loses its status (M14, M16)",
    (STEP_LIFT, "M20"): "placement: lift the %s of %s (M20)",
    (STEP_LIFT, "M21"): "take the %s of %s, to place %s too (M21)",
    (STEP_STORE, "kuu"): "a nemo from the store goes into %s (M9)",
    (STEP_STORE, "M20"): "take a nemo and place it in %s (M20, M22)",
    (STEP_SOW, "M22"): "place one seed in %s (M22)",
    (STEP_HOUSE, "kuu"): "",
    (STEP_END, END_HOUSE): "a takata lap ended in the kuu with its status: the player sleeps (M12)",
    (STEP_END, END_HOUSE_STOP): "the player sleeps in the kuu (M15, player's choice)",
    (STEP_END, END_TAKASIA): "the sowing ended in the threatened pit: the move ends (M18)",
}


def _describe_kuu(step: tuple, text: str) -> str:
    kind = step[0]
    if kind == STEP_LIFT:
        if step[3] == "kuu":
            return text % pit_name(step[1])
        if step[3] == "M21":
            return text % (_seeds(step[2]), pit_name(step[1]), _them(step[2]))
        return text % (_seeds(step[2]), pit_name(step[1]))
    if kind == STEP_HOUSE:
        if step[2]:
            return "relay the kuu %s: its seeds are sown on and it loses its status (M15, M16)" % pit_name(step[1])
        return "sleep in the kuu %s (M15)" % pit_name(step[1])
    if kind == STEP_END:
        return text
    return text % pit_name(step[1])


def _seeds(n: int) -> str:
    """A count of seeds as said: "1 seed", "3 seeds" (the words agree in number with the count)."""
    return "%d seed%s" % (n, "" if n == 1 else "s")


def _them(n: int) -> str:
    return "it" if n == 1 else "them"


def describe_step(step: tuple, malawi: bool = False) -> str:
    """One step in words, citing its rule: a Malawi game's (malawi) its M-number, the Zanzibar game's its
    section of Donkers' rules and the rulings' R-number."""
    kind = step[0]
    mark = step[-1]
    if isinstance(mark, str):
        if kind == STEP_CAPTURE:
            return _describe_capture(step, "M10")
        text = _KUU.get((kind, step[2]) if kind == STEP_END else (kind, mark))
        if text is not None:
            return _describe_kuu(step, text)
    if kind == STEP_STORE:
        return "a seed from the store goes into %s (2.2)" % pit_name(step[1])
    if kind == STEP_LIFT:
        return "lift the %s of %s (%s)" % (_seeds(step[2]), pit_name(step[1]), "M2" if malawi else "1.3")
    if kind == STEP_TAX:
        return "take 2 seeds out of the lone house %s; the house stays owned (2.4b)" % pit_name(step[1])
    if kind == STEP_SOW:
        pits = [pit_name(i) for i in sown_pits(step)]
        return "sow %s: %s" % (_seeds(step[3]), " ".join(pits))
    if kind == STEP_CAPTURE:
        return _describe_capture(step, "M2" if malawi else "1.4")
    if kind == STEP_RELAY:
        return "endelea: lift the %s of %s and sow on in the same direction (%s)" % (
            _seeds(step[2]),
            pit_name(step[1]),
            "M2" if malawi else "1.6",
        )
    if kind == STEP_HOUSE:
        if step[2]:
            return "play the house %s: its seeds are sown on and the house is lost (2.5b, 2.5a)" % pit_name(step[1])
        return "stop in the house %s (2.5b)" % pit_name(step[1])
    if kind == STEP_END:
        return _end_words(step[2], malawi)
    return "step %r" % (step,)


def _end_words(end: int, malawi: bool) -> str:
    if malawi and end in _MALAWI_ENDS:
        return _MALAWI_ENDS[end]
    return _ENDS.get(end, "the move ends")


def _describe_capture(step: tuple, rule: str) -> str:
    taken, n, kichwa, direction = step[1], step[2], step[3], step[4]
    return "capture the %s of %s and sow %s in from the kichwa %s towards %s (%s)" % (
        _seeds(n),
        pit_name(taken),
        _them(n),
        pit_name(kichwa),
        "pit 8" if direction == 1 else "pit 1",
        rule,
    )


def describe(steps: list, ruleset: str = "zanzibar") -> list:
    """The whole account, one sentence per step, each citing the rule of the ruleset the move was played in."""
    malawi = ruleset.startswith("malawi")
    return [describe_step(s, malawi) for s in steps]
