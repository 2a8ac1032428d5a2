# Power cuts at random instants (random bytes into a flash write) over many games: after each restart the
# board resumes at its last completed move, and the games reported equal the uninterrupted one.
from bao import core, notation
from baoboard.storage import PowerCut
from board_util import Host, board, fits, plies
from fwtest_util import Lcg


def _limit():
    import sys

    # the 64-bit unix port holds the game, the journal and its in-RAM flash twice over: half a game there
    return 26 if sys.implementation.name == "micropython" else 1000


def _want():
    out = []
    for p, m, _ in plies():
        out.append(notation.format_move(m, p.d[core.TO_MOVE]))
    return out[:_limit()]


def _play(seed, cuts):
    app, hw, hands, host, st = board()
    rng = Lcg(seed)
    cut_count = 0
    moves = [(p, m) for p, m, _ in plies()][:_limit()]
    k = 0
    while k < len(moves):
        if cut_count < cuts and rng.below(3) == 0:
            st.budget = rng.below(400)  # the power goes during one of the next writes
        try:
            p, m = moves[k]
            if app.rec.phase == 2 or app.p.d != p.d:
                # waiting for a house decision, or the last move was lost in a cut: find our place again
                n = len(app.journal.moves)
                if app.rec.phase != 2:
                    k = n
                    continue
            hands.perform(p, m)
            host.poll()
            k += 1
        except PowerCut:
            cut_count += 1
            st.budget = -1
            from baoboard.app import App
            from baoboard.simhw import Hands, SimHardware

            hw = SimHardware()
            app = App(hw, st, board_id="test", stable=3)
            app.boot()
            hands = Hands(app, hw, hold=4, gap=4)
            old = host
            host = Host(hw)
            host.seen = old.seen
            host.events = old.events
            host.dups = old.dups
            host.poll()
            k = len(app.journal.moves)
    hands.scan(10)
    host.poll()
    return host, cut_count


def test_power_cuts_at_random_instants():
    if not fits():
        return
    want = _want()
    total = 0
    import sys

    games = 2 if sys.implementation.name == "micropython" else 6
    for seed in range(1, games + 1):
        host, cuts = _play(seed, 4)
        total += cuts
        assert host.moves() == want, seed
    assert total >= games
