"""What the library accepts as text: names, places and transcript headers are checked before they are
committed (one line, no control characters, bounded length), and what it reads back from the database is
parsed as data that may be wrong (an old or damaged library), never trusted to be well formed."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

MAX_NAME = 100  # a player's name or a place
MAX_HEADER_VALUE = 1000
MAX_HEADERS = 40
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9 _.-]{0,39}\Z")


class TextError(ValueError):
    """A text the library does not store; the message says which and why, on one line."""


def control_chars(s: str) -> list[str]:
    """The control and line-breaking characters in s (C0, DEL, C1, Unicode line/paragraph separators)."""
    return [c for c in s if unicodedata.category(c) in ("Cc", "Zl", "Zp")]


def check_text(what: str, value: str, limit: int) -> str:
    if len(value) > limit:
        raise TextError(f"{what} is {len(value)} characters long, at most {limit} are kept")
    bad = control_chars(value)
    if bad:
        raise TextError(f"{what} holds a control character ({ascii(bad[0])}): one line of plain text please")
    return value.strip()


def check_name(what: str, value: str) -> str:
    return check_text(what, value, MAX_NAME)


def check_headers(headers: dict[str, str]) -> dict[str, str]:
    """A transcript's header, checked: bounded in number and size, keys a word or a few, values one line."""
    if len(headers) > MAX_HEADERS:
        raise TextError(f"{len(headers)} header lines, at most {MAX_HEADERS}")
    for k, v in headers.items():
        if not _KEY.match(k):
            raise TextError(f"header {ascii(k[:40])}: a header name is a few letters, digits or spaces")
        limit = MAX_NAME if k.lower() in ("south", "north", "place") else MAX_HEADER_VALUE
        check_text(f"header {k!r}", v, limit)
    return headers


def loads_object(text: str | None) -> dict[str, Any]:
    """A JSON object stored by the library, or {} when it is not one (never an exception)."""
    if not text:
        return {}
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}
