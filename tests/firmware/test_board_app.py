# The board application on the simulated hardware: the 1994 game played through pit activations.
from bao import core, notation
from board_util import board, fits, plies


def canon(p, text):
    m, _ = notation.parse_move(p, text)
    return notation.format_move(m, p.d[core.TO_MOVE])


def test_1994_game_reported_as_played():
    if not fits():
        return
    app, hw, hands, host, _ = board()
    want = []
    for p, m, text in plies():
        if app.rec.phase != 2:  # not waiting for a house decision (the opponent's activation stops it)
            assert app.p.d == p.d, text
        want.append(canon(p, text))
        hands.perform(p, m)
        host.poll()
    # the last move may wait for a house decision: none in this game
    hands.scan(10)
    host.poll()
    assert host.moves() == want
    assert host.dups == 0
    assert hw.feeds > 0


def test_idle_steps_and_frames():
    if not fits():
        return
    app, hw, hands, host, _ = board()
    hands.scan(5)
    host.poll()
    assert host.events[0][1] == "GAME"
    assert hw.shows >= 1
    # teach mode: South's legal namua starts are lit
    starts = set(app.rec.first_pit(m) for m, _ in app.rec.moves)
    lit = set(i for i in range(32) if hw.rgb(i) and i not in (8, 15, 24, 31))
    assert lit == starts


def test_wrong_lift_reported_with_rule_and_state_unchanged():
    if not fits():
        return
    app, hw, hands, host, _ = board()
    before = bytes(app.p.d)
    hands.tap(20)  # a North pit while South is to move
    host.poll()
    ill = [e for e in host.events if e[1] == "ILLEGAL"]
    assert ill and '"rule": "1.1"' in ill[0][2].replace('":"', '": "'), ill
    assert bytes(app.p.d) == before
