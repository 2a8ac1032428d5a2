# The board application on the simulated hardware: the 1994 game played through pit activations.
# make test-mp runs this module on the MicroPython unix ports with the firmware as .mpy, at a Pico's 64 KB
# (64k on the 32-bit build, 64wk on the 64-bit port: tools/run_mp_tests.py).
from bao.core import TO_MOVE, format_move
from board_util import board, plies


def test_1994_game_reported_as_played():
    app, hw, hands, host, st = board()
    want = []
    for p, m, _ in plies():
        if app.rec.phase != 2:  # not waiting for a house decision (the opponent's activation stops it)
            assert app.p.d == p.d, len(want)
        want.append(format_move(m, p.d[TO_MOVE]))  # the transcript's move, canonical
        hands.perform(p, m)
        host.poll()
    # the last move may wait for a house decision: none in this game
    hands.scan(10)
    host.poll()
    assert len(want) == 52 and app.moves_done == 52
    assert host.moves() == want
    assert host.dups == 0 and host.gaps == 0
    assert hw.feeds > 0
    st.close()


def test_idle_steps_and_frames():
    app, hw, hands, host, st = board()
    hands.scan(5)
    host.poll()
    assert host.events[0][1] == "GAME"
    assert hw.shows >= 1
    # teach mode: South's legal namua starts are lit
    starts = set(app.rec.first_pit(m) for m in app.rec.codes)
    lit = set(i for i in range(32) if hw.rgb(i) and i not in (8, 15, 24, 31))
    assert lit == starts
    st.close()


def test_wrong_lift_reported_with_rule_and_state_unchanged():
    app, hw, hands, host, st = board()
    before = bytes(app.p.d)
    hands.tap(20)  # a North pit while South is to move
    host.poll()
    ill = [e for e in host.events if e[1] == "ILLEGAL"]
    assert ill and '"rule": "1.1"' in ill[0][2], ill  # (json.dumps' separators on every port)
    assert bytes(app.p.d) == before
    st.close()


def test_a_game_past_the_journal_budget_is_played_and_the_player_told():
    # issue #14: with events piling up for a host, a new game is played but not recorded, and the four
    # corner pits blink dim white instead of the "no host" blue

    app, hw, hands, host, st = board()
    hands.scan(5)
    host.poll(ack=False)  # the GAME stays pending
    app.journal.budget = 0
    last = app.journal.last
    hw.button_mask = 2  # button 2: a new game
    hands.scan(2)
    hw.button_mask = 0
    hands.scan(2)
    host.poll(ack=False)
    assert app.journal.last == last and not app.journal.recording and app.guide.unrecorded
    assert host.notices >= 1 and host.count == last  # told, and no event sent for the new game
    for p, m, _ in plies():  # the game is played all the same
        hands.perform(p, m)
        if app.moves_done == 3:
            break
    assert app.journal.nmoves == 3 and app.journal.last == last
    app.guide.host = False
    frame = app.guide.render(app.rec, 0)
    b = app.guide.brightness
    assert frame[3 * 8 : 3 * 8 + 3] == bytes((0x30 * b >> 8,) * 3)  # dim white #303030 (guide._UNRECORDED)
    st.close()
