"""The simulated hands (bao_host.boards.sim.Hands) stay honest with the board through its power cuts."""

from __future__ import annotations

from bao import core
from bao_host.boards.sim import CPythonBoard, Hands
from bao_host.record.state import IDLE
from baoboard.memstorage import FakeStorage


def test_a_power_cut_in_a_slip_stops_the_hand() -> None:
    """The power goes between the slip's two touches (the wrong pit, then the seed taken back out). The
    restarted board has forgotten the move under way; the hand stops there, as a person's does when the
    board goes dark: neither the seed taken back nor the move's next pit reaches the restarted board, which
    stands at the same position with no move begun (no move started from a pit the player did not mean)."""
    from baoproto.frames import encode

    board = CPythonBoard(storage=FakeStorage(), board_id="b")
    board.write_serial(encode("C", 1, "HELLO", "4"))  # a host that reads the board's STATE
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
    assert board.state is None  # the restarted board said HELLO: what it said before holds no longer
    board.write_serial(encode("C", 2, "HELLO", "4"))  # the host answers it
    board.run(20, 5)
    assert board.power_cuts == 1 and board.state is not None and board.phase == IDLE
    assert board.state.pos == bytes(p.d) and board.state.lifted < 0 and board.state.wrong < 0
    assert board.position.d == p.d


def test_the_hands_wait_for_the_board_to_answer_the_host_not_for_the_host_to_speak() -> None:
    """Issue #26 item 8: `bao sim --wait-host` began playing once a host had sent its HELLO, while the board
    (an emulated Pico preparing its flash) had not read it: the first touches went to a board that read no
    sensor. The hands wait until the board has answered a host's handshake and the host holds every event."""
    from bao_host.boards.sim import WireWatch
    from baoproto.frames import encode

    wire = WireWatch()
    board = CPythonBoard(storage=FakeStorage(), board_id="b", on_serial=wire.board_out)
    hello = encode("C", 7, "HELLO", "3,2,1")
    wire.host_in(hello)  # the host has spoken; the board has not read it yet
    assert wire.hellos == 1 and wire.answered == 0  # (and synced: the board sent no event yet)
    wire.board_out(encode("R", 8, "OK", "pong"))  # a reply to something else
    assert wire.answered == 0
    board.write_serial(hello)
    board.run(5, 5)
    assert wire.answered == 1
