# The rules core's errors: the lowest layer, imported by every module that raises one.


class BaoError(ValueError):
    """Base of the rules core's errors."""


class InvalidPositionError(BaoError):
    """A position that cannot occur (wrong seed count, bad field...)."""


class IllegalMoveError(BaoError):
    """A move that the rules do not allow here; the message cites the rule ("2.4b: ...")."""

    def __init__(self, reason: str, rule: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class NotationError(BaoError):
    """Move or transcript text that cannot be read."""
