# Power cuts at random instants (random bytes into a flash write) over many games: after each restart the
# board resumes at its last completed move, and the games reported equal the uninterrupted one.
# The flash is real files whose writes the power can tear (CutFiles): make test-mp runs the whole 1994
# game with its cuts at a Pico's heap (64wk on the 64-bit port; 82k on the 32-bit build, tools/run_mp_tests.py).
from bao import core
from bao.core import format_move
from baoboard.storage import PowerCut
from board_util import Host, TempFiles, board, plies
from fwtest_util import Lcg


def _want():
    """The game's moves as one string: one object, not 52 small ones scattered through the heap by the
    garbage of replaying the game (MicroPython allocates next-fit between collections); scattered, they
    leave no hole for the larger pieces the board allocates when it boots."""
    out = []
    for p, m, _ in plies():
        out.append(format_move(m, p.d[core.TO_MOVE]))
    return " ".join(out)


class CutFiles(TempFiles):
    """TempFiles whose writes the power can cut: budget = bytes that may still be written (-1: no limit);
    a write that exhausts it is torn there and raises PowerCut; a rename costs one unit of budget."""

    def __init__(self):
        super().__init__()
        self.budget = -1

    def _take(self, k):
        if self.budget < 0:
            return k
        if k > self.budget:
            k = self.budget
        self.budget -= k
        return k

    def append(self, name, data):
        k = self._take(len(data))
        with open(self._path(name), "ab") as f:
            f.write(data[:k] if k < len(data) else data)
        if k < len(data):
            raise PowerCut()

    def replace(self, name, chunks):
        import os

        tmp = self._path(name + ".tmp")
        with open(tmp, "wb") as f:
            for c in chunks:
                k = self._take(len(c))
                f.write(c[:k] if k < len(c) else c)
                if k < len(c):
                    raise PowerCut()
        if self._take(1) < 1:
            raise PowerCut()
        os.rename(tmp, self._path(name))


class _Game:
    """The plies of the game by index, from the generator (the positions are not all kept in RAM)."""

    def __init__(self):
        self.g = plies()
        self.i = -1
        self.cur = None

    def at(self, n):
        if n < self.i:
            self.g = plies()
            self.i = -1
        while self.i < n:
            self.cur = next(self.g)
            self.i += 1
        return self.cur


def _play(seed, cuts, n):
    st = CutFiles()
    app, hw, hands, host, _ = board(st)
    rng = Lcg(seed)
    cut_count = 0
    game = _Game()
    k = 0  # plies the board holds
    while k < n:
        if cut_count < cuts and rng.below(3) == 0:
            st.budget = rng.below(400)  # the power goes during one of the next writes
        try:
            p, m, _ = game.at(k)
            assert app.rec.phase == 2 or app.p.d == p.d, k  # (2: the opponent's activation stops the house move)
            hands.perform(p, m)
            host.poll()
            k += 1
        except PowerCut:
            cut_count += 1
            st.budget = -1
            app = hands = hw = None  # the board's RAM goes with the power (the old App would live on
            # through these names while the new one boots: two boards in one heap)
            app, hw, hands, fresh, _ = board(st, seed=None)  # the power comes back: it boots from its journal
            host = Host(hw, host)  # the same host: what it holds survives the board's restart
            host.epoch = fresh.epoch  # (the board's H0 HELLO went to the fresh host board() made)
            fresh = None
            host.poll()
            _set_up(app, hands)
            k = app.journal.nmoves
    hands.scan(10)
    host.poll()
    st.close()
    return host, cut_count


def _set_up(app, hands):
    """A cut in the middle of a move: the board boots into the set-up of the pits the move may have changed
    (#28; tests/firmware/test_board_setup.py models the seeds); a person puts each right and touches it (a
    store: its side's back-row end), then takes the hand away."""
    s = app.setup
    if s is None:
        return
    while s.current() >= 0:
        c = s.current()
        hands.tap(c if c < 32 else 15 if c == 32 else 31)
    hands.scan(450)  # (the hand away from the place set up last: a touch there is then the move's)


def test_power_cuts_at_random_instants():
    want = _want()
    plies_n = want.count(" ") + 1
    total = 0
    import sys

    # seeds 1-3 on each MicroPython port (make test-mp), 4-6 on CPython: six different games, none twice
    seeds = range(1, 4) if sys.implementation.name == "micropython" else range(4, 7)
    games = len(seeds)
    for seed in seeds:
        host, cuts = _play(seed, 4, plies_n)
        total += cuts
        assert host.moves() == want.split(), seed
        assert host.gaps == 0
    assert total >= games


def _restart(st, host):
    """The power comes back (or the watchdog restarts the board): it boots from its journal."""
    app, hw, hands, fresh, _ = board(st, seed=None)
    host = Host(hw, host)
    host.epoch = fresh.epoch
    return app, hw, hands, host


def _cpu(app, hands, host, num, mode):
    host.command(num, "CPU", mode)
    hands.scan(3)
    host.poll()
    assert host.events[-1][1:] == ("CPU", mode)  # journalled, then reported


def test_computer_mode_survives_power_cuts():
    # who the computer plays is a CPU event in the journal: a restart keeps it (no search here: the board's
    # engine is tested beside the application in test_board_play, at a larger heap)
    st = CutFiles()
    app, hw, hands, host, _ = board(st)
    _cpu(app, hands, host, 1, "N 3")
    app = hands = hw = None  # the board's RAM goes with the power
    app, hw, hands, host = _restart(st, host)
    assert (app.cpu, app.level) == (1, 3)
    _cpu(app, hands, host, 2, "N 0")  # the host's engine plays North
    p = app.p
    st.budget = 30  # the power goes while South's move is written: its record is torn
    try:
        hands.perform(p, core.legal_move_codes(p)[0])
    except PowerCut:
        st.budget = -1
    assert st.budget == -1
    app = hands = hw = None
    app, hw, hands, host = _restart(st, host)
    assert (app.cpu, app.level) == (1, 0) and app.journal.nmoves == 0
    _set_up(app, hands)  # (the move was begun: its pits are set up again first)
    hands.perform(app.p, core.legal_move_codes(app.p)[0])  # South's move again
    host.poll()
    assert app.journal.nmoves == 1 and len(app.rec.codes) > 1  # North's: the board waits for the host's SHOW
    _cpu(app, hands, host, 3, "off")
    app = hands = hw = None
    app, hw, hands, host = _restart(st, host)
    assert app.cpu == -1 and app.journal.nmoves == 1
    st.close()


def test_a_hand_on_a_pit_when_the_power_comes_back_is_no_touch():
    """The power goes while a hand is on a pit (a slip onto a pit where another move starts, its ILLEGAL
    being written) and comes back with the hand still there. A TTP223 takes what it senses at power-up as
    its baseline; the board likewise takes a pit active when it boots as no touch (a stuck pit is then
    found by time, as ever). The hand lifts, the move under way is played again from its start, and the
    board records that move, not one started from the held pit."""
    from baoboard.recogniser import activations
    from baoboard.simhw import Hands, SimulatedBoard

    st = TempFiles()
    _, hw, hands, host, _ = board(st)
    want = []
    for p, m, _ in plies():  # the first ply where another move starts from another pit
        acts = activations(p, m)
        others = [activations(p, x)[0] for x in core.legal_move_codes(p) if activations(p, x)[0] != acts[0]]
        if others:
            break
        hands.perform(p, m)
        want.append(format_move(m, p.d[core.TO_MOVE]))
    host.poll()
    held = others[0]
    hands.tap(acts[0])
    hw.set_pit(held, True)  # the slip: the hand is on `held` when the power goes
    hands = None  # (the board's RAM goes with the power: not two boards in one heap)
    b = SimulatedBoard(st, "test", 3, hw=hw)  # the power back, the same hand on the same pit
    host = Host(hw, host)
    hands = Hands(b)
    hands.scan(20)
    s = b.app.setup  # the move was begun: its pits are set up again (#28)
    assert s is not None and s.why == "cut"
    at_boot = s.state()
    hw.set_pit(held, False)  # the hand lifts
    hands.scan(20)
    assert s.state() == at_boot  # the held pit made no touch: none refused, none re-queued
    _set_up(b.app, hands)
    hands.perform(p, m)  # the move again, from its start
    want.append(format_move(m, p.d[core.TO_MOVE]))
    host.poll()
    assert host.moves() == want
    assert b.app.p.d == core.play(p, m).d
    st.close()
