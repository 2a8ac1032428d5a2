"""The simulated hands (bao_host.boards.sim.Hands) stay honest with the board through its power cuts."""

from __future__ import annotations

from bao import core
from bao_host.boards.sim import CPythonBoard, Hands
from baoboard.memstorage import FakeStorage
from baoboard.recogniser import IDLE


def test_a_power_cut_in_a_slip_stops_the_hand() -> None:
    """The power goes between the slip's two touches (the wrong pit, then the seed taken back out). The
    restarted board has forgotten the move under way; the hand stops there, as a person's does when the
    board goes dark: neither the seed taken back nor the move's next pit reaches the restarted board, which
    stands at the same position with no move begun (no move started from a pit the player did not mean)."""
    board = CPythonBoard(storage=FakeStorage(), board_id="b")
    taps: list[int] = []

    def between() -> None:
        taps.append(board.power_cuts)
        if len(taps) == 1:
            board.power_cut()  # right after the slip's first touch

    hands = Hands(board, mistakes=1.0, seed=3, between=between)
    p = core.initial(core.ZANZIBAR)
    move = core.legal_moves(p)[0][0]
    assert not hands.perform(p, move)  # the power went on the way
    assert hands.made == 1 and taps == [0]  # one touch, before the cut; none after it
    board.run(20, 5)
    assert board.power_cuts == 1 and board.phase == IDLE
    assert board.position.d == p.d
