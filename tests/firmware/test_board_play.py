# Playing the computer on the simulated board (issue #10; docs/leds.md, "Playing the computer"): the board's
# engine answers the player's move, lights its move pit by pit as the player sows it, flags a wrong touch;
# the gestures choose side and level and ask for a hint; the host's engine may play instead through SHOW.
# Runs under pytest and on the MicroPython unix ports at a Pico-sized heap (make test-mp), where the engine
# is loaded beside the whole board application for each search and dropped after it.
import gc

from bao.core import TO_MOVE, format_move, legal_move_codes, play
from baoboard.recogniser import Recogniser, activations
from board_util import board

_BRIGHT_GREEN = 0x003F10  # guide._HINT at the default brightness (64/256)
_VIOLET = 0x18003F  # guide._SIDE at the default brightness: the side the computer or the host plays
_B8, _B1, _b8, _b1 = 8, 15, 24, 31  # the back-row ends: South's B8, B1, North's b8, b1


def _lit(hw):
    return [i for i in range(32) if hw.rgb(i)]


def _sow_for_computer(app, hw, hands):
    """Carry out the move the board lights for the computer, checking before each touch that the pit to
    touch is lit; returns the move."""
    p = app.p
    assert app.rec.codes and len(app.rec.codes) == 1  # only the computer's move is followed
    m = app.rec.codes[0]
    for k, pit in enumerate(activations(p, m)):
        if k == 0:
            assert hw.rgb(pit) == _BRIGHT_GREEN, (pit, hex(hw.rgb(pit)))
        else:
            assert hw.rgb(pit), (k, pit, _lit(hw))
        hands.tap(pit)
    return m


def _play(app, hands, host, num, open_reply=False):
    """South plays its first legal move (a house decision answered by the host's STOP); with open_reply, the
    first after which North has more than one move (a search with one move to choose from ends at once)."""
    p = app.p
    codes = legal_move_codes(p)
    m = codes[0]
    if open_reply:
        m = [c for c in codes if len(legal_move_codes(play(p, c))) > 1][0]
    hands.perform(p, m)
    if app.rec.phase == 2:
        host.command(num, "STOP")
    hands.scan(2)
    host.poll()


def _hold(hands, host, pits, ms):
    """Hold `pits` together for ms, then let go; the host acknowledges what the board reported."""
    b = hands.board
    for pit in pits:
        b.set_pit(pit, True)
    b.run(ms // hands.scan_ms, hands.scan_ms)
    for pit in pits:
        b.set_pit(pit, False)
    b.run(4, hands.scan_ms)
    host.poll()


def test_computer_answers_and_is_sown_pit_by_pit():
    app, hw, hands, host, st = board()
    hands.scan(3)
    host.command(1, "CPU", "N 1")
    hands.scan(3)
    host.poll()
    assert host.replies[-1] == (1, "OK", "N 1") and app.cpu == 1
    assert len(app.rec.codes) > 1  # South to move: every legal move is followed
    free = 0
    for ply in range(6):  # three moves each: South plays its first legal move, the computer answers
        _play(app, hands, host, 10 + ply)
        assert app.p.d[TO_MOVE] == 1 and app.rec.hint >= 0, app.rec.phase
        mine = _sow_for_computer(app, hw, hands)
        hands.scan(2)
        host.poll()
        assert app.p.d[TO_MOVE] == 0
        assert host.moves()[-1] == format_move(mine, 1)  # reported as the move the board lit
        if ply == 0 and hasattr(gc, "mem_free"):  # (the first search interned the engine's names for good)
            gc.collect()
            free = gc.mem_free()
    moves = host.moves()
    assert len(moves) == 12 and app.moves_done == 12, moves
    if free:  # MicroPython: the engine is dropped after each search, the heap is back where it was
        gc.collect()
        assert gc.mem_free() >= free - 1024, (free, gc.mem_free())
    st.close()


def test_wrong_touch_during_the_computers_move_is_flagged():
    app, hw, hands, host, st = board()
    host.command(1, "CPU", "N 1")
    hands.scan(3)
    p = app.p
    hands.perform(p, legal_move_codes(p)[0])
    hands.scan(2)
    host.poll()
    m = app.rec.codes[0]
    start = activations(app.p, m)[0]
    other = [app.rec.first_pit(c) for c in legal_move_codes(app.p) if app.rec.first_pit(c) != start]
    assert other  # another legal start for North: not the computer's move
    before = bytes(app.p.d)
    hands.tap(other[0])
    host.poll()
    ill = [e for e in host.events if e[1] == "ILLEGAL"]
    assert ill and "the computer plays" in ill[-1][2], ill
    assert '"rule": "1.1"' in ill[-1][2] and '"reason": "1.1: the computer plays' in ill[-1][2], ill  # its turn
    assert app.rec.wrong_pit == other[0] and bytes(app.p.d) == before
    assert app.rec.codes == [m]  # still only the computer's move
    _sow_for_computer(app, hw, hands)
    hands.scan(2)
    host.poll()
    assert len(host.moves()) == 2
    st.close()


def test_gesture_chooses_side_and_level_then_off():
    app, hw, hands, host, st = board()
    hands.scan(3)
    _hold(hands, host, (_B8, _B1), 3100)  # South's back-row ends: the player plays South
    assert (app.cpu, app.level) == (1, 1)
    assert app.rec.phase == 0 and app.rec.wrong_pit < 0  # the hold's touches were no move
    _hold(hands, host, (_B8, _B1), 3100)
    assert (app.cpu, app.level) == (1, 2)
    lit = _lit(hw)
    hands.scan(40)  # the level blinks: two front pits of the computer's side
    assert 16 in _lit(hw) + lit and 17 in _lit(hw) + lit
    for _ in range(3):
        _hold(hands, host, (_B8, _B1), 3100)
    assert app.cpu == -1  # after level 4: nobody
    _hold(hands, host, (_b8, _b1), 3100)  # North's ends: the player plays North, the computer South, to move
    assert (app.cpu, app.level) == (0, 1)
    assert host.events[-1][1:] == ("CPU", "S 1")  # each choice is a CPU event (journalled)
    hands.scan(2)
    assert app.rec.codes and len(app.rec.codes) == 1 and app.rec.hint >= 0  # it has answered at once
    host.poll()
    assert host.count >= 1
    st.close()


def test_hint_gesture_lights_a_legal_start():
    app, hw, hands, host, st = board()
    hands.scan(3)
    host.command(1, "MODE", "play")  # nothing lit between moves...
    hands.scan(700)  # (past the 3 s the legal pits show after the mode change's flagged touches)
    assert not [i for i in _lit(hw) if i not in (8, 15, 24, 31)]
    _hold(hands, host, (_B8, _B1), 1500)  # ... until the hint
    hands.scan(2)
    hint = app.rec.hint
    assert hint >= 0 and app.cpu == -1
    starts = [m for m in legal_move_codes(app.p) if m & 63 == hint]
    assert starts
    start = app.rec.first_pit(starts[0])
    assert hw.rgb(start) == _BRIGHT_GREEN
    assert len(app.rec.codes) > 1  # a hint: the player may still play any legal move
    p = app.p
    hands.perform(p, starts[0])
    hands.scan(2)
    host.poll()
    assert app.rec.hint < 0 and len(host.moves()) == 1
    st.close()


def test_host_engine_plays_through_show_and_hint_command():
    app, hw, hands, host, st = board()
    host.command(1, "CPU", "N 0")  # the host's engine: the board does not search
    hands.scan(3)
    p = app.p
    hands.perform(p, legal_move_codes(p)[0])
    hands.scan(2)
    assert app.rec.hint < 0 and len(app.rec.codes) > 1
    host.command(2, "SHOW", "5R")
    host.command(3, "HINT")  # North is the computer's: no hint
    hands.scan(4)  # (a line a scan, each command in a scan of its own)
    host.poll()
    assert (2, "OK", "5R") in host.replies
    assert host.replies[-1][:2] == (3, "ERR")
    assert len(app.rec.codes) == 1  # the host's move only
    start = activations(app.p, app.rec.codes[0])[0]
    other = [app.rec.first_pit(c) for c in legal_move_codes(app.p) if app.rec.first_pit(c) != start]
    hands.tap(other[0])  # a touch off it: refused naming the host's engine (issue #25), not "the computer"
    host.poll()
    ill = [e for e in host.events if e[1] == "ILLEGAL"]
    assert ill and '"reason": "1.1: the host\'s engine plays 5R: ' in ill[-1][2], ill
    _sow_for_computer(app, hw, hands)
    hands.scan(2)
    host.command(4, "HINT")
    host.command(5, "CPU", "X 9")
    hands.scan(3)
    host.poll()
    assert host.moves()[-1] == "5R"
    assert (4, "OK", "") in host.replies and app.rec.hint >= 0
    assert host.replies[-1][:2] == (5, "ERR")
    st.close()


def test_show_during_a_move_is_refused_and_the_move_goes_on():
    """A SHOW that comes while a hand is sowing (the remote player's move arriving just as the player starts
    sowing one for that side) is answered ERR state: the move half made is kept, and ends as made."""
    app, hw, hands, host, st = board()
    host.command(1, "CPU", "N 0")
    hands.scan(3)
    _play(app, hands, host, 2)
    p = app.p
    assert p.d[TO_MOVE] == 1 and len(app.rec.codes) > 1  # North's turn: any legal move until a SHOW
    m, other = legal_move_codes(p)[:2]
    pits = activations(p, m)
    for pit in pits[:2]:
        hands.tap(pit)
    steps = app.rec.steps
    host.command(3, "SHOW", format_move(other, 1))
    hands.scan(2)
    host.poll()
    assert host.replies[-1][:2] == (3, "ERR") and host.replies[-1][2].startswith("state"), host.replies[-1]
    assert app.rec.phase != 0 and app.rec.steps == steps  # the half-made move is still followed
    for pit in pits[2:]:
        hands.tap(pit)
    if app.rec.phase == 2:
        host.command(4, "STOP")
    hands.scan(2)
    host.poll()
    assert host.moves()[-1] == format_move(m, 1) and len(host.moves()) == 2
    st.close()


def test_the_other_side_given_to_the_computer_mid_move_keeps_the_move():
    """`bao online` takes the board's game (CPU N 0: the remote player plays North) while South's hand is
    sowing: who moves now does not change, so the move half made is kept and ends as made."""
    app, hw, hands, host, st = board()
    p = app.p
    m = legal_move_codes(p)[0]
    pits = activations(p, m)
    for pit in pits[:2]:
        hands.tap(pit)
    host.command(1, "CPU", "N 0")
    hands.scan(2)
    host.poll()
    assert host.replies[-1][:2] == (1, "OK"), host.replies[-1]
    for pit in pits[2:]:
        hands.tap(pit)
    if app.rec.phase == 2:
        host.command(2, "STOP")
    hands.scan(2)
    host.poll()
    assert host.moves() == [format_move(m, 0)]
    st.close()


def test_the_remote_sides_level_shows_apart_from_a_lit_move():
    """CPU N 0 (the host's engine, or a player far away) shows apart from the bright green of a lit move:
    one front pit of that side at a time, walking along the row, never the move's green."""
    app, hw, hands, host, st = board()
    hands.scan(3)
    host.command(1, "CPU", "N 0")
    seen = []
    for _ in range(12):  # (within the 6 s the level shows; a step of the walk each 256 ticks)
        hands.scan(13)
        seen.append([i for i in range(16, 24) if hw.rgb(i)])
    assert all(hw.rgb(i) != _BRIGHT_GREEN for i in range(32))
    assert all(len(lit) <= 1 for lit in seen), seen
    assert len({lit[0] for lit in seen if lit}) >= 3, seen  # it walks
    st.close()


def test_the_computers_level_blinks_violet_not_a_moves_green():
    """The level just chosen (CPU N 3) blinks on that many of the computer's front pits in violet, the host's
    side's colour: not the bright green of a lit move, which a player would take for a move to sow (#25)."""
    app, hw, hands, host, st = board()
    hands.scan(3)
    host.command(1, "CPU", "N 3")
    seen = set()
    for _ in range(12):  # (within the 6 s the level shows: a blink phase each 256 ticks)
        hands.scan(13)
        lit = [i for i in range(32) if hw.rgb(i)]
        if [i for i in lit if i >= 16]:
            seen.add(tuple(i for i in lit if i >= 16))
            assert [hw.rgb(i) for i in range(16, 19)] == [_VIOLET] * 3, [hex(hw.rgb(i)) for i in lit]
    assert seen == {(16, 17, 18)}, seen  # three pits for level 3, blinking together
    assert all(hw.rgb(i) != _BRIGHT_GREEN for i in range(32))
    st.close()


def test_the_scan_loop_goes_on_while_the_computer_thinks():
    app, hw, hands, host, st = board()
    host.command(1, "CPU", "N 4")
    hands.scan(3)
    host.poll()
    seen = []  # at each scan while the board thinks: (watchdog feeds, replies, events acknowledged)
    hand = []  # armed: the player starts North's first legal move at the 3rd scan of the search: (move, pits)
    scan = hw.read_pits

    def scan_while_thinking(bitmap):
        if app.p.d[TO_MOVE] == 1 and app.rec.hint < 0 and app.rec.phase == 0:  # North's, not lit: thinking
            if not seen:
                host.poll()  # the host acknowledges South's move and pings while the board thinks
                host.command(len(host.replies) + 10, "PING")
                if hand:
                    m = legal_move_codes(app.p)[0]
                    hand.append((m, activations(app.p, m)))
            seen.append((hw.feeds, len(host.replies), app.journal.acked))
            if hand and len(seen) == 3:
                hw.set_pit(hand[1][1][0], True)
        scan(bitmap)

    hw.read_pits = scan_while_thinking
    _play(app, hands, host, 2)
    assert len(seen) > 10 and app.rec.hint >= 0  # it searched while the loop went on, then lit its move
    assert seen[-1][0] - seen[0][0] >= len(seen) - 1  # the watchdog fed at each scan
    assert seen[-1][1] > seen[0][1] and host.replies[-1][1:] == ("OK", "")  # the PING answered meanwhile
    assert seen[-1][2] > seen[0][2]  # South's move acknowledged meanwhile
    _sow_for_computer(app, hw, hands)
    hands.scan(2)
    del seen[:]
    hand.append(True)
    _play(app, hands, host, 4, open_reply=True)
    pits = hand[1][1]
    n = len(seen)
    assert 3 < n < 10 and app.rec.phase == 1 and app.rec.hint < 0, (n, app.rec.phase)  # stopped, nothing lit
    hw.set_pit(pits[0], False)
    for pit in pits[1:]:
        hands.tap(pit)
    if app.rec.phase == 2:  # a house decision (2.5b): the host answers it
        host.command(30, "STOP")
    hands.scan(2)
    host.poll()
    assert len(seen) == n and len(host.moves()) == 4 and app.p.d[TO_MOVE] == 0  # the player's move for North
    st.close()


def test_a_command_during_the_computers_search_stops_it_runs_then_the_search_goes_on():
    """A host's command that arrives while the board's engine searches is run at the top of a step, not in the
    search's own steps (Outbox.defer): the search stops for it, the command is answered, and the computer
    still answers the player's move."""
    app, hw, hands, host, st = board()
    host.command(1, "CPU", "N 4")
    hands.scan(3)
    host.poll()
    sent = []  # (the scan at which SNAP was sent while the board thought)
    scan = hw.read_pits

    def scan_while_thinking(bitmap):
        thinking = app.p.d[TO_MOVE] == 1 and app.rec.hint < 0 and app.rec.phase == 0
        if thinking and not sent:
            host.command(7, "SNAP")
            sent.append(True)
        scan(bitmap)

    hw.read_pits = scan_while_thinking
    _play(app, hands, host, 2, open_reply=True)
    for _ in range(400):
        if app.rec.hint >= 0:
            break
        hands.scan(1)
    host.poll()
    snap = [r for r in host.replies if r[0] == 7]
    assert sent and snap and snap[0][1] == "OK" and '"position"' in snap[0][2], snap
    assert app.rec.hint >= 0 and len(app.rec.codes) == 1  # the computer's move lit after the command
    mine = _sow_for_computer(app, hw, hands)
    hands.scan(2)
    host.poll()
    assert host.moves()[-1] == format_move(mine, 1)
    st.close()


def test_the_touch_that_stops_in_the_house_is_no_touch_of_the_computers_move():
    """2.5b against the computer: the player's move may stop in the house, and the player says so by touching
    any of the computer's pits (the opponent's hand moves). That touch only says "stop": the computer has not
    chosen its move yet, so it is neither refused (pink) nor taken as the start of a move sown by hand; the
    computer then lights its own move."""
    from bao import position_json
    from bao.core import PLAY
    from board_util import plies

    # ply 15 of the 1994 game: North 5R> plays its house (5R* stops there)
    p, m = next((p, m) for p, m, _text in plies() if m & PLAY)
    side = p.d[TO_MOVE]
    app, hw, hands, host, st = board()
    host.command(1, "SETPOS", position_json.dumps(p, False))
    hands.scan(3)
    host.command(2, "CPU", "SN"[1 - side] + " 1")  # the computer plays the other side
    hands.scan(3)
    host.poll()
    hands.perform(app.p, m & ~PLAY)
    assert app.rec.phase == 2  # the house decision
    after = Recogniser()  # (the pits the computer's move may start from, after the stop)
    after.start(play(p, m & ~PLAY), legal_move_codes(play(p, m & ~PLAY)))
    starts = [after.first_pit(c) for c in after.codes]
    del after
    theirs = [(1 - side) * 16 + i for i in range(16)]
    touch = [i for i in theirs if i not in starts][0]  # a pit the computer's move cannot start from
    hands.tap(touch)
    hands.scan(2)
    host.poll()
    assert not [e for e in host.events if e[1] == "ILLEGAL"], host.events[-2:]
    assert host.moves()[-1] == format_move(m & ~PLAY, side)  # stopped in the house
    assert app.rec.wrong_pit < 0 and app.rec.phase == 0
    assert app.rec.hint >= 0 and len(app.rec.codes) == 1  # the computer's move is lit
    _sow_for_computer(app, hw, hands)
    hands.scan(2)
    host.poll()
    assert app.p.d[TO_MOVE] == side and len(host.moves()) == 2
    st.close()
