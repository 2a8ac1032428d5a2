# The board application playing the Malawi kuu games (issue #12) through pit activations, chosen by the
# host's NEW: a nemo is a touch on the pit that receives it, a placement one touch per seed after the lifts
# of the pits it empties (docs/leds.md). Runs on the MicroPython unix ports like test_board_app.
from bao import core
from board_util import board


class Lcg:
    """The same moves on both interpreters."""

    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _play(ruleset, plies, seed):
    app, hw, hands, host, st = board()
    host.command(1, "NEW", ruleset)
    hands.scan(10)
    host.poll()
    assert host.events[-1][1] == "GAME" and ruleset in host.events[-1][2]
    rnd = Lcg(seed)
    want = []
    p = app.p
    for _ in range(plies):
        codes = core.legal_move_codes(p)
        if not codes:
            break  # (a move that waits for the kuu decision, M15, is ended by the opponent's next touch)
        m = codes[rnd.below(len(codes))]
        want.append(core.format_move(m, p.d[core.TO_MOVE]))
        hands.perform(p, m)
        host.poll()
        p = core.play(p, m)
        if app.rec.phase != 2:
            assert app.p.d == p.d, want
    if app.rec.phase == 2:
        host.command(2, "STOP")  # the last move waits for the kuu decision: the host says sleep
    hands.scan(10)
    host.poll()
    assert host.moves() == want and host.dups == 0 and host.gaps == 0
    st.close()
    return want


def test_an_intermediate_game_of_nemo_moves():
    want = _play("malawi-intermediate", 60, 12)
    assert len(want) > 40 and want[0][-1] == "*"  # the first nemo move is a takata (M7); then the second stage
    assert want[40][0] in "AaBb"  # a second-stage move names its row (M25)


def test_an_advanced_game_starts_with_the_placement_drop_by_drop():
    want = _play("malawi-advanced", 60, 20)
    assert [w.count("@") for w in want[:10]] == [1] * 10  # five drops each (M20-M22)
    assert "@" not in want[10]


# What a player sees of the kuu games' state the seeds do not show (docs/leds.md): the seeds still to place
# (M20-M22), gold pits on the opponent's back row from pit 8 on (its ring order), and the threatened pit
# (M18) purple, blinking when the move must capture it (M19). The guide's colours at brightness 255 (each
# channel * 255 >> 8): gold 0xFFC000, purple 0xA000FF, green 0x00A000.
_GOLD = 0xFEBF00
_PURPLE = 0x9F00FE


def _looks(hands, hw):
    """The frame in two successive blink phases (250 ms each): two lists of 32 colours."""
    out = []
    for _ in range(2):
        ph = (hw.ticks_ms() >> 8) & 1
        while (hw.ticks_ms() >> 8) & 1 == ph:
            hands.scan(1)
        hands.scan(2)  # the board draws the new phase
        out.append([hw.rgb(i) for i in range(32)])
    return out


def _pits(hands, hw, colour):
    """The pits lit `colour` in both phases, and those lit so in one only (blinking)."""
    a, b = _looks(hands, hw)
    return (
        [i for i in range(32) if a[i] == b[i] == colour],
        [i for i in range(32) if (a[i] == colour) != (b[i] == colour)],
    )


def _drop(app, hands, host, text):
    from board_util import find_move

    hands.perform(app.p, find_move(app.p, text))
    hands.scan(10)
    host.poll()
    assert host.moves()[-1] == text


def test_the_seeds_left_to_place_are_gold_pits_on_the_far_back_row():
    app, hw, hands, host, st = board()
    host.command(1, "NEW", "malawi-advanced")
    hands.scan(10)
    host.poll()
    app.guide.brightness = 255
    # South places first: 5 seeds (the 2s of A6 and A7 and a nemo, M20): b8..b4 gold (indices 24..28)
    assert _pits(hands, hw, _GOLD) == ([24, 25, 26, 27, 28], [])
    for left in (4, 3, 2, 1):
        _drop(app, hands, host, "@A4")
        assert _pits(hands, hw, _GOLD) == (list(range(24, 24 + left)), []), left
    assert _pits(hands, hw, 0x009F00)[0] == list(range(16))  # the legal drops: green, the mover's 16 pits
    _drop(app, hands, host, "@A4")  # the last seed: North places 5 seeds, shown on South's back row B8..B4
    assert app.p.d[core.TO_MOVE] == core.NORTH and _pits(hands, hw, _GOLD)[0] == [8, 9, 10, 11, 12]
    app.guide.mode = 1  # play mode: only on request, as the legal pits
    assert _pits(hands, hw, _GOLD)[0] == []
    app.guide.mode = 0
    # North takes A4's five (M21) with its first drop: 9 left, the back row B8..B1 and then A1 (the ring goes on)
    _drop(app, hands, host, "xA4@a1")
    assert _pits(hands, hw, _GOLD)[0] == [0] + list(range(8, 16))
    for _ in range(9):
        _drop(app, hands, host, "@b1")
    assert app.p.d[core.TO_MOVE] == core.SOUTH and _pits(hands, hw, _GOLD)[0] == []  # the nemo stage: no count
    hw.button_mask = 2  # button 2, a new game: the same ruleset, chosen on the board as in the other games
    hands.scan(3)
    hw.button_mask = 0
    hands.scan(10)
    host.poll()
    assert host.events[-1][1] == "GAME" and "malawi-advanced" in host.events[-1][2]
    assert _pits(hands, hw, _GOLD)[0] == [24, 25, 26, 27, 28]
    assert host.dups == 0 and host.gaps == 0
    st.close()


def test_the_threatened_pit_is_purple_and_blinks_when_it_must_be_captured():
    # A game of random nemo moves (the board's own choice of seed 93): ply 41, South's A5L**, threatens a5
    # (M18); North's a5L* must start there (the only front start) and sows it full again; South must then
    # capture a5 first (M19): A1R or A7L, the only starts lit.
    app, hw, hands, host, st = board()
    host.command(1, "NEW", "malawi-intermediate")
    hands.scan(10)
    host.poll()
    app.guide.brightness = 255
    rnd = Lcg(93)
    p = app.p
    for ply in range(43):
        if ply == 0:
            assert _pits(hands, hw, _PURPLE) == ([], []) and _pits(hands, hw, _GOLD) == ([], [])  # no placement
            assert _pits(hands, hw, 0x009F00)[0] == [5, 6]  # the nemo may go into A6 or A7 only (M7, M12)
        elif ply == 41:
            assert host.moves()[-1] == "A5L**" and _pits(hands, hw, _PURPLE) == ([20], [])  # a5 steady (M18)
        elif ply == 42:
            assert host.moves()[-1] == "a5L*" and _pits(hands, hw, _PURPLE) == ([], [20])  # a5 blinks (M19)
            assert _pits(hands, hw, 0x009F00)[0] == [0, 6]  # A1 and A7: the captures of a5
        codes = core.legal_move_codes(p)
        m = codes[rnd.below(len(codes))]
        hands.perform(p, m)
        host.poll()
        p = core.play(p, m)
    hands.scan(10)
    assert host.moves()[-1] in ("A1R", "A7L") and app.p.d == p.d and _pits(hands, hw, _PURPLE) == ([], [])
    assert host.dups == 0 and host.gaps == 0
    st.close()
