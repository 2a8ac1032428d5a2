"""The rule numbers a board's words cite, in the numbering of the game's ruleset (docs/rules.md).

The board names the Zanzibar section a step or a refusal follows (its STATE and ILLEGAL say "1.4"). The
Malawi games take the Zanzibar mtaji stage's sowing, capture and relay over through M2, so a Malawi game
cites them as "M2 (1.4)"; the kuu's decision is M15 (as 2.5b's house) and the capture that must be taken,
M23 (as 1.2)."""

from __future__ import annotations

from bao import core


def cite(ruleset: str, rule: str) -> str:
    """`rule` (a Zanzibar section) as a game of `ruleset` cites it."""
    if ruleset == core.ZANZIBAR or not rule.startswith(("1.", "2.5b")):
        return rule
    return "M15" if rule == "2.5b" else "M23" if rule == "1.2" else f"M2 ({rule})"


def cite_words(ruleset: str, rule: str, words: str) -> str:
    """A board's sentence that starts with `rule` ("1.4: ..."), in `ruleset`'s numbers and words (a Malawi
    game's house is its kuu)."""
    if ruleset == core.ZANZIBAR or not words.startswith(rule):
        return words
    return cite(ruleset, rule) + words[len(rule) :].replace("house", "kuu")
