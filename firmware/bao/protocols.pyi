# The interfaces the rules core's annotations name: what it reads of a plugged-in ruleset's own rules
# (position.plug; rules.kuu; the Malawi kuu games' bao.malawi.Game is one) and what it writes a move's account
# into. A stub with no module behind it: imported only in `try:` blocks that serve the annotations, where the
# import fails on MicroPython and on CPython alike and is passed over, so it takes nothing on the board, and
# the core still imports no ruleset (issue #24). mypy checks bao.malawi.Game against Game where plug() is
# handed the class.
from typing import Callable, Protocol, TypeAlias

from bao.position import Position, Rules

class Game(Protocol):
    advanced: bool  # M20-M22: the free placement (malawi-advanced)
    twos: tuple[int, int]  # M7: the front pits of the opening's two 2s
    threat_any: bool  # M18: the threatened pit may start a takata only when no other pit could
    placement_capture: bool  # M21: the second player may take one pit before placing

    def check_position(self, p: Position, obj: dict) -> None: ...
    def options(self, out: dict) -> None: ...
    def opening(self, d: bytearray) -> None: ...
    def placing(self, d: bytearray) -> bool: ...
    # bao.malawi's functions, kept on its Game as staticmethod(f): read through the instance, no self
    @property
    def drop(self) -> Callable[[Position, int, Account | None], None]: ...  # M22: a placement's drop
    @property
    def drops(self) -> Callable[[Position, bool | bytearray], list]: ...  # M20-M22: the placement's plies
    @property
    def threatened(self) -> Callable[[Position], int]: ...  # M18: a child's threatened pit

class GameClass(Protocol):
    """What plug() is handed: a class made from a Rules object and the options only it names."""

    def __call__(self, rules: Rules, more: dict) -> Game: ...

class Recorder(Protocol):
    """A move's account taken step by step (baoboard.recogniser.Sequence): the bytes appended one by one,
    `rec[:] = b""` to start it again, and an optional flush() the core calls at each relay."""

    def append(self, b: int, /) -> None: ...
    def __setitem__(self, key: slice, value: bytes, /) -> None: ...

# What the core writes a move's account into (bao.layout's steps): a bytearray, or a recorder.
Account: TypeAlias = bytearray | Recorder
