"""The host's engine playing the computer's side on a board (issue #10; docs/leds.md, "Playing the computer").

The board is told `CPU <side> 0` (it searches nothing itself); whenever the board's position changes to one
where that side is to move, between moves, the host's engine (bao.engine on CPython: far more nodes than
the board's 3 s buy) searches it and the move goes to the board with `SHOW`, which the board lights and
follows as its own computer's move.

    opp = HostOpponent(core.NORTH, movetime=300)
    session.command("CPU", opp.cpu_command())
    text = opp.answer(position, stage)      # at each poll (the board's STATE): a move to SHOW, or None
"""

from __future__ import annotations

from bao import core, engine, notation

from bao_host.record.state import IDLE


class HostOpponent:
    def __init__(self, side: int, movetime: int = 300, nodes: int = 0, tt_bits: int = 18) -> None:
        self.side = side
        self.movetime = movetime  # ms a move, or
        self.nodes = nodes  # nodes a move (either limit: whichever comes first)
        self.engine = engine.Engine(tt_bits=tt_bits)
        self._seen: bytes | None = None  # the last position looked at (answered when it was the side's turn)

    def cpu_command(self) -> str:
        """The CPU command's payload that hands the side to the host's engine."""
        return f"{'SN'[self.side]} 0"

    def answer(self, p: core.Position, phase: int) -> str | None:
        """The move to SHOW now, in the board's notation: the engine's move when the position is new, the
        side is to move and no move is under way; otherwise None. An undo that comes back to a position
        answers it again (the board forgot the move shown)."""
        key = p.key()
        if phase != IDLE or key == self._seen:
            return None
        self._seen = key
        if p.to_move != self.side or core.outcome(p) is not None:
            return None
        r = self.engine.search(p, movetime=self.movetime, nodes=self.nodes)
        return None if r.move is None else notation.format_move(r.move, self.side)
