"""A fake RPi.GPIO module driving the chip models of tests/firmware/fakes_chips.py (the same 74HC165 and
APA102/SK9822 models the Pico driver tests use), wired to the Raspberry Pi pins of hardware/board.json."""

from __future__ import annotations

from typing import Any

from fakes_board import FakeBoard


class FakeGPIO:
    """The RPi.GPIO calls RpiHardware makes, on the nets of a FakeBoard. Misuse raises, as RPi.GPIO does."""

    BCM = 11
    BOARD = 10
    OUT = 0
    IN = 1
    LOW = 0
    HIGH = 1
    PUD_OFF = 20

    def __init__(self, board: FakeBoard) -> None:
        self.board = board
        self.mode: int | None = None
        self.dirs: dict[int, int] = {}
        self.cleaned: list[int] = []
        self.outputs = 0

    def setwarnings(self, flag: bool) -> None:
        pass

    def setmode(self, mode: int) -> None:
        self.mode = mode

    def setup(self, ch: int, direction: int, pull_up_down: int = PUD_OFF, initial: int = -1) -> None:
        if self.mode != self.BCM:
            raise RuntimeError("setmode(BCM) first")
        self.dirs[ch] = direction
        if direction == self.OUT and initial != -1:
            self.board.wires.set(ch, initial)

    def output(self, ch: int, value: int) -> None:
        if self.dirs.get(ch) != self.OUT:
            raise RuntimeError(f"GPIO{ch} is not set up as an output")
        self.outputs += 1
        self.board.wires.instant += 1  # each call is a moment of its own: a Pi cannot change two pins at once
        self.board.wires.set(ch, value)

    def input(self, ch: int) -> int:
        if ch not in self.dirs:
            raise RuntimeError(f"GPIO{ch} is not set up")
        return int(self.board.wires.get(ch))

    def cleanup(self, channels: Any = None) -> None:
        self.cleaned.extend(channels or list(self.dirs))


def make(kind: str = "sk9822", **kw: Any) -> tuple[FakeBoard, FakeGPIO]:
    board = FakeBoard(kind, controller="rpi", **kw)
    return board, FakeGPIO(board)
