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
