"""Files named on the command line, read for the `bao` commands: text or a one-line InputError.

A transcript or a position is a small UTF-8 text file. Anything else (a binary file, another encoding, a
device that never ends, a folder) is refused with a message that names the file and what is wrong with it,
never a traceback.
"""

from __future__ import annotations

from pathlib import Path

from bao import core, notation

# The longest real transcript is a few KB; a position is one line. A file larger than this is not one.
MAX_BYTES = 1 << 20


class InputError(Exception):
    """A file or argument that cannot be used; its message is one line and names it."""


def read_text(path: str) -> str:
    """The text of a UTF-8 file (a leading byte order mark is dropped)."""
    shown = path if path.isprintable() else repr(path)  # the message stays one line ("@\n" typed as a path)
    try:
        with Path(path).open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read {shown}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{shown}: larger than {MAX_BYTES // 1024} KB: not a transcript or a position")
    if b"\0" in data:
        raise InputError(f"{shown}: a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{shown}: not UTF-8 text (byte {e.start})") from None


def read_transcript(path: str, dialect: str | None = None) -> tuple[notation.Transcript, str]:
    """A transcript file (G8) with at least one move, and the dialect its moves are written in: `dialect`
    (the --dialect flag) if given, else its `notation:` header, else Donkers."""
    text = read_text(path)
    try:
        t = notation.parse_transcript(text)
        chosen = notation.transcript_dialect(t, dialect)
    except core.BaoError as e:
        raise InputError(f"{path}: not a transcript: {e}") from None
    if not t.plies:
        raise InputError(f"{path}: no moves: a transcript has a line 'N: south north;' per move (G8)")
    return t, chosen
