# A life of games, short form (issue #26, item 5; the long form is tools/bench_life.py, 100 games): the board
# alone plays a random game to its end, its NEW button starts the next game, and that game is played too.
# On CPython and on the MicroPython unix ports at a Pico's heap (make test-mp), where a new game once failed
# after the first game ended.
from bao import core
from bao.core import format_move
from baoboard.recogniser import DECISION, sequence
from board_util import board
from fwtest_util import Lcg


def _game(app, hands, rng, plies):
    """Random legal moves from the board's position, tapped, until the game ends (or `plies`); returns
    their notations and whether the game ended."""
    p = app.p
    out = []
    for _ in range(plies):
        codes = core.legal_move_codes(p)
        if not codes:
            return out, True
        m = codes[rng.below(len(codes))]
        for e in sequence(p, m):
            hands.tap(e & 31)
        out.append(format_move(m, p.d[core.TO_MOVE]))
        p = core.play(p, m)
        assert app.p.d == p.d or app.rec.phase == DECISION, len(out)
    return out, not core.legal_move_codes(p)


def test_a_game_to_its_end_then_a_new_game():
    app, hw, hands, host, st = board()
    rng = Lcg(3)
    first, ended = _game(app, hands, rng, 120)
    assert ended, len(first)  # (a seed whose game ends soon enough)
    host.poll()
    assert host.moves() == first
    assert [e[1] for e in host.events].count("END") == 1
    hw.button_mask = 2  # NEW
    hands.scan(4)
    hw.button_mask = 0
    hands.scan(4)
    host.poll()
    assert host.moves() == [] and app.p.d == core.initial().d
    second, _ = _game(app, hands, rng, 12)
    host.poll()
    assert host.moves() == second and len(second) == 12
    assert [e[1] for e in host.events].count("GAME") == 2
    assert [e for e in host.events if e[1] in ("ERROR", "ERR")] == []
    st.close()
