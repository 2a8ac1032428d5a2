"""The notation's marks in words (bao_host.ui.notation_words): each said once, with its rule, for the ruleset."""

from __future__ import annotations

from bao_host.ui import notation_words as nw


def test_the_marks_of_a_move() -> None:
    assert nw.marks("7L*") == ["LR", "*"]
    assert nw.marks("B2L") == ["LR"]
    assert nw.marks("a6R**>") == ["LR", "**", ">"]
    assert nw.marks("5") == [] and nw.marks("@A4") == [] and nw.marks("xA3@a4") == []


def test_each_mark_is_said_once_in_the_rulesets_words() -> None:
    said: set[str] = set()
    first = nw.explain("7L*", "zanzibar", said)
    assert first is not None and first.startswith("7L*: L means pit 1's end") and "(G7)" in first
    assert first.endswith("* a takasa, a move that captures nothing (1.7).")
    assert nw.explain("5R", "zanzibar", said) is None  # L/R said already
    later = nw.explain("A4R**>", "zanzibar", said)
    assert later == (
        "A4R**>: ** a takasa that makes a takasia: the opponent may not start a takasa from that pit (4.1); "
        "> the house played: its seeds sown on, not stopping there (2.5b)."
    )
    malawi: set[str] = set()
    words = nw.explain("a7L*", "malawi-intermediate", malawi)
    assert words is not None and "(M25)" in words and "takata" in words and "takasa" not in words
    assert nw.explain("@A4", "malawi-advanced", malawi) is None
