"""Stored text shown on a terminal is data: control characters (ANSI and OSC escape sequences, line
breaks) are shown as escapes instead of being sent raw, and rich markup (`[/bold]`, `[link=...]`) is
escaped wherever the text goes through rich's markup parser."""

from __future__ import annotations

from rich.markup import escape

from bao_host.record.textcheck import control_chars


def plain(s: str) -> str:
    """s with each control character written as a visible escape (\\x1b, \\n, ...)."""
    bad = set(control_chars(s))
    if not bad:
        return s
    return "".join(ascii(c)[1:-1] if c in bad else c for c in s)


def markup(s: str) -> str:
    """s ready for rich's markup parser: plain() and its markup escaped."""
    return escape(plain(s))
