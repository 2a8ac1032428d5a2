"""The marks of a move's notation said in words (rulings G6, G7, M25; docs/rules.md): the direction letters
L and R, `*` and `**`, `>`. The terminal UI says each the first time a recorded move shows it, so a person new
to the notation reads "7L*" as "from pit 7, towards pit 1, capturing nothing"."""

from __future__ import annotations

import re

# [row] pit [L|R] [* | **] [>] (bao.movetext, the Donkers dialect every host view writes)
_MOVE = re.compile(r"^[ABab]?[1-8]([LR]?)(\*{0,2})(>?)$")


def _is_malawi(ruleset: str) -> bool:
    return ruleset.startswith("malawi")


def marks(ply: str) -> list[str]:
    """The marks a move's text shows, in the order they are explained: "LR" (either letter), "*", "**", ">"."""
    m = _MOVE.match(ply)
    if m is None:  # (a Malawi placement, "@A4" or "xA3@a4": no marks)
        return []
    out = []
    if m.group(1):
        out.append("LR")
    if m.group(2):
        out.append(m.group(2))
    if m.group(3):
        out.append(">")
    return out


def mark_words(mark: str, ruleset: str) -> str:
    """One mark in words, with the rule it comes from."""
    malawi = _is_malawi(ruleset)
    if mark == "LR":
        capture = "a capture with a seed from the store: the kichwa the captured seeds go in from"
        return (
            f"L means pit 1's end, R pit 8's: the way the hand sows (G6), or in {capture} ({'M25' if malawi else 'G7'})"
        )
    if mark == "*":
        if malawi:
            return "* a takata, a move that captures nothing (M25)"
        return "* a takasa, a move that captures nothing (1.7)"
    if mark == "**":
        if malawi:
            return "** a takata that threatens one pit, which the opponent may not start from (M18)"
        return "** a takasa that makes a takasia: the opponent may not start a takasa from that pit (4.1)"
    if malawi:
        return "> the kuu relayed: its seeds sown on (M15)"
    return "> the house played: its seeds sown on, not stopping there (2.5b)"


def explain(ply: str, ruleset: str, said: set[str]) -> str | None:
    """The words for the marks of `ply` not in `said` yet (added to it), or None when there are none."""
    new = [k for k in marks(ply) if k not in said]
    if not new:
        return None
    said.update(new)
    return f"{ply}: " + "; ".join(mark_words(k, ruleset) for k in new) + "."
