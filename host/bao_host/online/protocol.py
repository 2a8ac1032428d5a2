"""What the server and its clients share (docs/online.md): the version, the limits, the paths."""

from __future__ import annotations

import base64
import hashlib
import hmac

VERSION = 1
PREFIX = f"/online/v{VERSION}"
MAX_BODY = 2048  # bytes of a request's JSON body: a move, a name and a token fit many times over
MAX_NAME = 40  # characters of a player's name
RATE = 10.0  # requests a second a client may send, on average ...
BURST = 30  # ... and at once (a token bucket per seat token, or per address without one)
MAX_WATCHERS = 64  # event streams open on one game at once
TOKEN_BYTES = 24  # a seat token: 192 random bits (secrets.token_urlsafe)
INVITE_BYTES = 16  # an invitation code: 128 random bits
GAME_BYTES = 6  # a game's public id
SIDES = ("S", "N")
LOBBY = 100  # games the lobby lists at most (the newest)


def digest(secret: str) -> str:
    """What the server keeps of a token or an invitation: its SHA-256 (a stolen database seats nobody)."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def derived_token(token: str, game: str) -> str:
    """A seat token derived from another one (a rematch's seat, from the asker's seat in the game before):
    as long and as unguessable as a drawn one to whoever lacks `token`, and the same each time it is asked
    for, so that an answer lost on the way can be asked for again."""
    mac = hmac.new(token.encode("utf-8", "replace"), b"rematch " + game.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:TOKEN_BYTES]).decode().rstrip("=")


def side_name(side: str) -> str:
    return "South" if side == "S" else "North"


def other(side: str) -> str:
    return "N" if side == "S" else "S"
