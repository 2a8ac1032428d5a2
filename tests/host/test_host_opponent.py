"""The host's engine playing the computer's side through SHOW (bao_host.engine.opponent) on the firmware's
simulated board: the board searches nothing itself (CPU N 0), lights the host's move and follows only it."""

from __future__ import annotations

from bao import core, notation
from bao_host.engine.opponent import HostOpponent
from baoboard.recogniser import activations
from board_util import board


def test_host_engine_plays_north_through_show_and_answers_again_after_an_undo() -> None:
    app, hw, hands, host, st = board()
    try:
        opp = HostOpponent(core.NORTH, movetime=0, nodes=2000, tt_bits=12)  # nodes: the same moves on any machine
        host.command(1, "CPU", opp.cpu_command())
        hands.scan(3)
        host.poll()
        assert (1, "OK", "N 0") in host.replies
        assert opp.answer(app.p, app.rec.phase) is None  # South to move: nothing to answer
        n = 10
        for _ in range(3):
            p = app.p
            hands.perform(p, core.legal_move_codes(p)[0])
            if app.rec.phase == 2:  # a house decision: South stops
                n += 1
                host.command(n, "STOP")
            hands.scan(3)
            host.poll()
            assert app.p.d[core.TO_MOVE] == core.NORTH and app.rec.hint < 0  # the board has not searched
            text = _answer(opp, app)
            n += 1
            host.command(n, "SHOW", text)
            hands.scan(3)
            host.poll()
            assert host.replies[-1][:2] == (n, "OK")
            assert len(app.rec.codes) == 1  # only the host's move is followed
            assert opp.answer(app.p, app.rec.phase) is None  # the same position: answered once
            q = app.p
            for pit in activations(q, notation.parse_move(q, text)[0]):
                hands.tap(pit)
            hands.scan(3)
            host.poll()
            assert host.moves()[-1] == text
            assert opp.answer(app.p, app.rec.phase) is None  # polled: South to move
        n += 1
        host.command(n, "UNDO")  # North's last move taken back: North to move again
        hands.scan(3)
        host.poll()
        assert app.p.d[core.TO_MOVE] == core.NORTH
        assert _answer(opp, app) in [notation.format_move(m, core.NORTH) for m in core.legal_move_codes(app.p)]
    finally:
        st.close()


def _answer(opp: HostOpponent, app: object) -> str:
    text = opp.answer(app.p, app.rec.phase)  # type: ignore[attr-defined]
    assert text is not None
    return text
