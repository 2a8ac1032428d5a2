# The board notices its own broken sensors (issue #14; baoboard.debounce, docs/leds.md "Broken sensors"):
# a pit stuck active, a pit flickering far faster than a hand, a whole 74HC165 byte stuck. Each is
# reported once as an ERROR event naming the pit and its chip, lit, and ignored; a drop into an ignored
# pit is taken as made, so play goes on; noise never makes the undo gesture. On the simulated board (its
# sensors faulted as below) and on the chip models of tests/firmware/fakes_chips.py (a stuck chip).
from bao import core
from bao.core import format_move
from baoboard.simhw import Hands, SimHardware, SimulatedBoard
from board_util import Host, TempFiles, find_move, plies
from fwtest_util import Lcg


def _magenta(hw, pit):
    c = hw.rgb(pit)
    return c >> 16 > 200 and (c >> 8) & 255 == 0 and c & 255 > 200


class Faulty(SimHardware):
    """Sensors with faults: `stuck` bits always read active, `dead` bits never (a 74HC165 whose byte of the
    chain reads 0: its row's ribbon or supply off); pit `flicker` also reads active, at random, at `rate`
    percent of the scans (noise on its line: a hand on it is still seen)."""

    def __init__(self):
        super().__init__()
        self.stuck = bytearray(4)
        self.dead = bytearray(4)
        self.flicker = -1
        self.rate = 0
        self.rng = Lcg(5)

    def read_pits(self, bitmap):
        SimHardware.read_pits(self, bitmap)
        for b in range(4):
            bitmap[b] = (bitmap[b] | self.stuck[b]) & ~self.dead[b]
        f = self.flicker
        if f >= 0:
            if self.rng.below(100) < self.rate:
                bitmap[f >> 3] |= 1 << (f & 7)


def _board():
    import random

    random.seed(9)
    hw = Faulty()
    st = TempFiles()
    b = SimulatedBoard(st, "test", hw=hw)
    b.app.guide.brightness = 255  # colours as they are
    return b, hw, Host(hw), Hands(b), st


def _blinks_magenta(hw, hands, pit):
    """pit lights magenta at some moment of a second (a blink shows at one phase)."""
    for _ in range(1000 // hands.scan_ms):
        if _magenta(hw, pit):
            return True
        hands.scan(1)
    return False


def _errors(host):
    return [e for e in host.events if e[1] == "ERROR"]


def _play(b, hands, host, n):
    """The 1994 game's first n plies, performed by the hands; returns the moves as the board writes them."""
    want = []
    for p, m, _ in plies():
        if len(want) == n:
            break
        want.append(format_move(m, p.d[core.TO_MOVE]))
        hands.perform(p, m)
        host.poll()
    return want


def test_a_stuck_pit_is_reported_lit_and_ignored_and_play_goes_on():
    b, hw, host, hands, st = _board()
    hw.stuck[0] = 1 << 4  # A5 reads active for good
    hands.scan(21000 // hands.scan_ms)  # 21 s
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1, errs
    e = errs[0][2]
    for word in ('"stuck"', '"A5"', '"U2"', '"D4"'):
        assert word in e, (word, e)
    assert _magenta(hw, 4)
    # the first 8 plies sow through A5 three times: those drops are taken as made (the 9th starts at A5:
    # a start cannot be guessed, the host's SHOW and a working sensor remain)
    want = _play(b, hands, host, 8)
    assert host.moves() == want
    ill = [x for x in host.events if x[1] == "ILLEGAL"]  # (about 300 for 60 moves before)
    assert len(ill) <= 1 and all(x[0] < errs[0][0] for x in ill), ill  # the touch that stuck, only
    hw.stuck[0] = 0  # the sensor works again: after 2 s idle it is read again
    hands.scan(2500 // hands.scan_ms)
    assert bytes(b.app.deb.faulty) == bytes(4) and not _magenta(hw, 4)
    st.close()


def test_a_chip_stuck_active_starts_no_computer():
    """Issue #26: U1 (row B, B8..B1) reads every input active (its supply, ribbon or chip): B1 and B8 among them
    look held, as a player holds them to let the computer play. The fault explains every input of the chip
    together: no computer, no self-test, no hint; the chip is reported after 20 s."""
    b, hw, host, hands, st = _board()
    hw.stuck[1] = 0xFF
    hands.scan(21000 // hands.scan_ms)
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1 and '"chip"' in errs[0][2] and '"U1"' in errs[0][2], errs
    assert b.app.cpu == -1 and not [e for e in host.events if e[1] == "CPU"], host.events
    hw.stuck[1] = 0
    hands.scan(3000 // hands.scan_ms)
    assert b.app.cpu == -1 and b.app.think_due == 0 and not b.app.selftest_due
    st.close()


def test_a_flickering_pit_is_reported_and_never_makes_the_undo_gesture():
    b, hw, host, hands, st = _board()
    want = _play(b, hands, host, 2)
    hw.flicker = 27  # b5, North's back row: flickering at 30 % of the scans while the board sits idle
    hw.rate = 30
    hands.scan(20000 // hands.scan_ms)
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1 and '"flicker"' in errs[0][2] and '"b5"' in errs[0][2], errs
    assert not [x for x in host.events if x[1] == "UNDO"]  # (the triple touch was made by noise before)
    assert len([x for x in host.events if x[1] == "ILLEGAL"]) <= 3  # (was 824)
    assert host.moves() == want and b.app.journal.nmoves == 2
    assert _magenta(hw, 27)
    st.close()


def test_a_slow_flicker_during_play_changes_no_move():
    b, hw, host, hands, st = _board()
    hw.flicker = 22  # a7: sown through by North six times, never a start
    hw.rate = 5
    want = _play(b, hands, host, 14)
    assert host.moves() == want
    errs = _errors(host)
    assert len(errs) == 1 and '"a7"' in errs[0][2], errs
    st.close()


def _illegal(host):
    return len([e for e in host.events if e[1] == "ILLEGAL"])


def _play_as_a_person(b, hands, host, n, before=None):
    """The 1994 game's first n plies, performed as a person does: after a touch the board flags (an ILLEGAL
    event, the pit blinking pink) in the middle of a move, a look at the board (3 s), the seed taken back out
    of the pink pit (a touch) and put there again (a touch at a hand's pace: the person's seed into the pit
    before, if it senses nothing, is no touch), at most twice. One flagged between moves (no move begun: the
    move's start pit is dead, the pink pit the one sown next) the person sows on from, at a hand's pace:
    touching it again would take the seed back out (docs/leds.md). before(k): called before ply k."""
    from baoboard.recogniser import activations

    want = []
    for p, m, _ in plies():
        if len(want) == n:
            break
        if before is not None:
            before(len(want))
        want.append(format_move(m, p.d[core.TO_MOVE]))
        for pit in activations(p, m):
            _touch_as_a_person(b, hands, host, pit)
    return want


def _touch_as_a_person(b, hands, host, pit):
    """One activation of a move as _play_as_a_person makes it: when flagged in the middle of a move, a look,
    the seed taken back, and the touch again; at most twice."""
    from baoboard.recogniser import IDLE

    for _ in range(3):
        flagged = _illegal(host)
        hands.tap(pit)
        host.poll()
        if _illegal(host) == flagged or b.app.rec.phase == IDLE:
            break
        hands.scan(3000 // hands.scan_ms)
        hands.tap(pit)  # the seed taken back out of the pink pit


def test_a_silent_chip_is_found_in_play_reported_lit_and_play_goes_on():
    """U1 (row B) goes silent in the middle of the game (its ribbon pulled out: all 8 inputs read 0), which nothing
    shows at rest. South's 7th move sows through row B only after its first drop; North's first touch is where play goes
    on after those steps (refused, once), and again after a look and a take-back: the second time, with no touch sensed
    on U1 in between, U1 is silent. One ERROR names the chip and its pits, they light magenta, the move is taken as made
    (its direction from North's touch) and North's touch starts North's move; then every drop and relay lift in row B is
    taken as made, to the 16th ply."""
    b, hw, host, hands, st = _board()

    def ribbon_out(ply):
        if ply == 5:  # row B was sown into in plies 2 and 4: U1 worked
            hw.dead[1] = 0xFF  # pits 8..15: B8..B1, all on U1

    want = _play_as_a_person(b, hands, host, 16, ribbon_out)
    assert host.moves() == want
    errs = _errors(host)
    assert len(errs) == 1, errs
    e = errs[0][2]
    for word in ('"silent"', '"U1"', '"B8"', '"B1"'):
        assert word in e, (word, e)
    assert _illegal(host) == 1  # North's first touch, before the second showed the chip silent
    assert errs[0][0] > [e for e in host.events if e[1] == "ILLEGAL"][0][0]
    for pit in range(8, 16):
        assert _magenta(hw, pit), pit
    assert bytes(b.app.deb.faulty) == b"\x00\xff\x00\x00"
    hw.dead[1] = 0  # the ribbon plugged back in: the first touch it senses takes the chip back
    hw.set_pit(12, True)
    hands.scan(40)
    hw.set_pit(12, False)
    hands.scan(40)
    assert bytes(b.app.deb.faulty) == bytes(4) and not _magenta(hw, 12)
    st.close()


def test_a_slow_player_and_a_slip_never_make_a_chip_silent():
    """The bounded rule: time is no evidence, and one touch past a chip's pits is a slip, mended by touching
    them. South waits 10 minutes in the middle of its third move, with B8 (row B: U1, never touched yet) to sow
    next; North then touches too early (refused); South finishes the move, and the game goes on: no ERROR."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    want = _play(b, hands, host, 2)
    gen = plies()
    for _ in range(2):
        next(gen)
    p, m, _ = next(gen)
    acts = activations(p, m)
    assert [core.pit_name(x) for x in acts[-2:]] == ["B8", "B7"]
    for pit in acts[:-2]:
        hands.tap(pit)
    hands.scan(600000 // hands.scan_ms)  # ten minutes' thought
    hands.tap(21)  # a6: North's start, too early
    host.poll()
    assert _illegal(host) == 1
    hands.scan(3000 // hands.scan_ms)
    for pit in acts[-2:]:
        hands.tap(pit)
    want.append(format_move(m, p.d[core.TO_MOVE]))
    host.poll()
    assert host.moves() == want
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    st.close()


# A random Zanzibar game's first 16 plies (seed 54 of tests/host/simrig.random_game): row b (U4) is sown
# into in plies 1-9, then not again until ply 15 is under way
_CLUMSY_GAME = "6R* 7R* 8L* 8R* 7R* 6R* 6R* 8R* 7R* 7R* 8L* 8L* 6L* 5R 7R* 8L*".split()


def test_slips_in_two_moves_never_add_up_to_a_silent_chip():
    """Evidence of a silent chip is one move's: a chip that senses nothing stops the move that sows through
    it, so both refused touches come in that move. North twice starts 8L* (a8 lifted, a seed put back) and
    slips onto a1, refused each time: a1 is where 8R* would go on after sowing row b, which no touch of
    these moves reached. Those slips, four plies apart, are not a silent U4: no ERROR, nothing ignored, the
    moves as played."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    p = core.initial(core.ZANZIBAR)
    want = []
    for ply, text in enumerate(_CLUMSY_GAME):
        m = find_move(p, text)
        acts = activations(p, m)
        for i, pit in enumerate(acts):
            if ply in (11, 15) and i == 2:
                hands.tap(16)  # a1: the slip...
                hands.tap(16)  # ... and the seed taken back out
            hands.tap(pit)
        want.append(format_move(m, p.d[core.TO_MOVE]))
        p = core.play(p, m)
        host.poll()
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert _illegal(host) == 2
    assert host.moves() == want
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    st.close()


def test_slips_taken_back_in_one_move_never_make_a_chip_silent():
    """Issue #26: evidence of a silent chip must not come from clumsy play within one move either. In the
    12th ply (8L*: a8 lifted, a seed put back) North slips onto a1 (where 8R* would go on after sowing row b,
    U4, untouched in this move) and takes the seed back out; looks at the board for 2.5 s; slips onto a1
    again and takes it back; then sows 8L* on. A touch the player takes back at once is a slip, no evidence
    (before: U4 declared silent at the second slip, and 8R* recorded for the 8L* played)."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    p = core.initial(core.ZANZIBAR)
    want = []
    for ply, text in enumerate(_CLUMSY_GAME[:12]):
        m = find_move(p, text)
        acts = activations(p, m)
        for i, pit in enumerate(acts):
            if ply == 11 and i == 2:
                for _ in range(2):
                    hands.tap(16)  # a1: the slip...
                    hands.tap(16)  # ... and the seed taken back out
                    hands.scan(2500 // hands.scan_ms)  # a look at the board
            hands.tap(pit)
        want.append(format_move(m, p.d[core.TO_MOVE]))
        p = core.play(p, m)
        host.poll()
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert _illegal(host) == 2
    assert host.moves() == want
    st.close()


def test_a_dead_input_is_found_in_play_reported_lit_and_play_goes_on():
    """One input of a working chip goes dead (B5's sensor or its wire: the rest of U1 senses). The next move that sows
    through B5 stops there: the drop into B5 is not sensed, and the touch at the pit after it is refused, once, and
    again after a look and a take-back: with no touch sensed at B5 in between, B5 is dead. One ERROR names the pit and
    its chip, B5 lights magenta, the drop is taken as made and play goes on with every move as played; the first touch
    B5 senses again takes it back."""
    b, hw, host, hands, st = _board()
    b5 = 11  # (B5: byte 1, bit 3, on U1)

    def wire_off(ply):
        if ply == 3:
            hw.dead[1] = 1 << (b5 & 7)

    want = _play_as_a_person(b, hands, host, 12, wire_off)
    assert host.moves() == want
    errs = _errors(host)
    assert len(errs) == 1, errs
    for word in ('"dead"', '"B5"', '"U1"'):
        assert word in errs[0][2], (word, errs[0][2])
    assert _illegal(host) == 1
    assert _magenta(hw, b5) and bytes(b.app.deb.faulty) == b"\x00\x08\x00\x00"
    hw.dead[1] = 0  # mended: its first touch takes it back
    hw.set_pit(b5, True)
    hands.scan(40)
    hw.set_pit(b5, False)
    hands.scan(40)
    assert bytes(b.app.deb.faulty) == bytes(4) and not _magenta(hw, b5)
    st.close()


def test_slips_onto_the_next_pit_never_make_a_healthy_input_dead():
    """The signature of a dead input is a touch at the pit right after the one the move waits for: a
    player's commonest slip too. In every move of 12 plies the player slips onto the pit after the third
    step's (or a later one's) and takes the seed back out, twice in every other move, with a look at the
    board between; then sows on.
    Each slip is refused; no input is found dead, nothing is ignored, every move is as played."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    p = core.initial(core.ZANZIBAR)
    want = []
    slips = 0
    for ply, text in enumerate(_CLUMSY_GAME[:12]):
        m = find_move(p, text)
        acts = activations(p, m)
        slip = [i for i in range(2, len(acts) - 1) if acts[i + 1] != acts[i]][:1]
        for i, pit in enumerate(acts):
            if i in slip:
                for _ in range(2 if ply % 2 else 1):
                    hands.tap(acts[i + 1])  # the slip onto the next pit...
                    hands.tap(acts[i + 1])  # ... and the seed taken back out
                    hands.scan(2500 // hands.scan_ms)  # a look at the board
                    slips += 1
            hands.tap(pit)
        want.append(format_move(m, p.d[core.TO_MOVE]))
        p = core.play(p, m)
        host.poll()
    assert slips >= 12 and _illegal(host) == slips, (slips, _illegal(host))
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert host.moves() == want
    st.close()


def _dead_from(pit, ply, n=12, lit=()):
    """A game of n plies played as a person does, pit's input dead from ply `ply` on: (board's moves, the
    moves played, the hardware, the host, the board); and then whether each pit of `lit` blinks magenta (a
    list appended to the tuple when lit is given)."""
    b, hw, host, hands, st = _board()

    def wire_off(k):
        if k == ply:
            hw.dead[pit >> 3] = 1 << (pit & 7)

    want = _play_as_a_person(b, hands, host, n, wire_off)
    blinks = [_blinks_magenta(hw, hands, x) for x in lit]
    st.close()
    return (host.moves(), want, hw, host, b) + ((blinks,) if lit else ())


def _dead_found(pit, ply, name, chip, n=12, refused=1):
    """pit's input dies at ply `ply` of the 1994 game (n plies), played as a person does (_play_as_a_person: a flagged
    touch made again after a look and a take-back mid-move, sown on from between moves): every move is as played,
    `refused` touches are refused, and one ERROR names the pit dead and its chip (no chip called silent); the pit lights
    magenta and alone is ignored. The host."""
    got, want, hw, host, b = _dead_from(pit, ply, n)
    assert got == want
    errs = _errors(host)
    assert len(errs) == 1, errs
    for word in ('"dead"', '"%s"' % name, '"%s"' % chip):
        assert word in errs[0][2], (word, errs[0][2])
    assert _illegal(host) == refused
    bits = bytearray(4)
    bits[pit >> 3] = 1 << (pit & 7)
    assert _magenta(hw, pit) and bytes(b.app.deb.faulty) == bytes(bits)
    return host


def test_a_dead_start_pit_is_found_from_the_touch_after_it():
    """Issue #26: A5's input dies at ply 2; South's 9th move starts there (5R*: the store seed into A5, its
    seeds lifted, then A6, A7). A5 senses nothing, so the move shows first at A6, which starts no move: it is
    refused; the person sows on, and A7, the next drop at a hand's pace, starts no move either. Only a move
    from the untouched A5 explains those touches: A5 is dead, and 5R* is taken from its first sensed touch (before:
    never recognised; then: found when A6 was touched again after a look, now the seed taken back)."""
    _dead_found(4, 2, "A5", "U2")


def test_a_dead_start_pit_is_found_when_the_pit_sown_next_starts_a_move_of_its_own():
    """A7's input dies at ply 3; South's 5th move starts there (7R*: A7, A7, then A8, B8, B8...). Its first sensed
    touch, A8, starts moves of its own and is taken as one; the next, B8, is taken too (the paths agree); the second
    B8 is refused, and again after a look and a take-back: only a move from the untouched A7 explains the touches of
    the move, so A7 is dead, the move taken from A8 is dropped and its touches are taken again as 7R*'s. Every later
    move from A7 is taken from its first sensed touch (before: B5 was found dead, and moves recorded that were not
    played)."""
    _dead_found(6, 3, "A7", "U2")


def test_a_dead_pit_with_a_drop_and_a_relay_s_lift_is_found():
    """B6's input dies at ply 6, the move that sows into B6 and lifts its seeds there to sow on (8R*: ...
    B7, B6, B6, B5, B4): the touch at B5 after both steps at B6 is refused twice: B6 is dead."""
    _dead_found(10, 6, "B6", "U1")


def test_one_dead_input_never_makes_its_chip_silent():
    """Issue #26: A7's input dies at ply 2 (found in the middle of a sowing, then every move from A7 taken
    from its first sensed touch); and b8's at ply 2, the last drop of North's 4th move (6R*: ... a8, b8):
    South's next touch is refused twice while the move waits only for b8, untouched, so b8 is dead, the drop
    taken as made. One input is never its whole chip (before: U4 declared silent both times)."""
    _dead_found(6, 2, "A7", "U2")
    _dead_found(24, 2, "b8", "U4")


def test_early_touches_at_a_move_s_start_and_end_never_make_a_healthy_pit_dead():
    """The signatures of a dead start pit and a dead last pit are a player's and an opponent's commonest
    slips too. In every move of 12 plies the player first touches the pit the move sows next (before its
    start) and takes the seed back out, twice, with a look between; and before the last step the other side
    touches its next start pit and puts the seeds back, twice. Each slip is refused; no input is dead,
    nothing is ignored, every move is as played."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    p = core.initial(core.ZANZIBAR)
    want = []
    games = _CLUMSY_GAME[:12]
    slips = 0
    for ply, text in enumerate(games):
        m = find_move(p, text)
        acts = activations(p, m)
        child = core.play(p, m)
        nxt = activations(child, find_move(child, games[ply + 1]))[0] if ply + 1 < len(games) else acts[0] ^ 16
        after = [x for x in acts if x != acts[0]][0]
        if after in [activations(p, x)[0] for x in core.legal_move_codes(p)]:
            after = -1  # (a touch there would start a move of its own, no slip)
        for i, pit in enumerate(acts):
            for slip in (after,) if i == 0 and after >= 0 else (nxt,) if i == len(acts) - 1 else ():
                slips += 2
                for _ in range(2):
                    hands.tap(slip)
                    hands.tap(slip)  # ... taken back at once
                    hands.scan(2500 // hands.scan_ms)  # a look at the board
            hands.tap(pit)
        want.append(format_move(m, p.d[core.TO_MOVE]))
        p = child
        host.poll()
    assert slips >= 30 and _illegal(host) == slips, (slips, _illegal(host))
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert host.moves() == want
    st.close()


def test_a_dead_start_pit_whose_touches_are_a_whole_move_of_the_pit_sown_next_is_found():
    """Issue #26: a8's input dies at ply 9, North's 8L* (a8 a8 a7 a6): its sensed touches a7 a6 start a move
    from a7 (7L*), which waits for more; South's next touch is refused, and again after a look and a take-back. Those
    touches are the whole of 8L* from the untouched a8, and South's touch the next move: a8 is dead, 8L* is
    recorded and South's move goes on (before: never found, the game stuck)."""
    _dead_found(23, 9, "a8", "U3")


def test_a_touch_between_two_start_pits_is_settled_by_the_next_touch():
    """Issue #26: A6's input dies at ply 9; South's 6R* at ply 12 (A6 A6 A7 A8 A8 B8...) shows first at A7,
    which starts no move, between A6 and A8: a move from either would show there. It is refused; the person
    sows on, and the next touch, A8, made at a hand's pace after it, shows A8 works and is where 6R* goes on
    after A7: A6 is dead and 6R* is recorded (before: the touches after A7 were taken as 8R*, a move never
    played; then: found only when A7 was touched again after a look, now the seed taken back)."""
    host = _dead_found(5, 9, "A6", "U2", 13, 1)
    reasons = [e[2] for e in host.events if e[1] == "ILLEGAL"]
    assert len(reasons) == 1 and '"A7"' in reasons[0], reasons


def test_a_namua_capture_from_a_dead_pit_ends_a_house_decision():
    """Issue #26: a2's input dies at ply 2 (found dead at ply 21); South's 8 at ply 26 ends in its house
    (2.5b: stop there or play on); North's 2 (a2 A7 a1, a namua capture from a2) shows first at A7, South's
    pit. It is where the move from the ignored a2 goes on: South stopped, North's move goes on from A7
    (before: refused as South's, a1 and A3 then found dead, and South's 3R* recorded as 3L*)."""
    _dead_found(17, 2, "a2", "U3", 29)


def test_a_dead_start_pit_or_a_dead_last_pit_the_board_cannot_tell_records_neither():
    """Issue #26: a6's input dies at ply 2; North's 6R* (a6 a6 a7 a8 b8) shows as a7 a8 b8, which is also
    7R* (its drop and lift at a7 in one touch) up to its last drop, b7. South's touch is refused, and again
    after a look: a dead a6 (6R* made) or a dead b7 (7R*'s last drop) explain it alike. The board records
    neither move, calls no pit dead and no chip silent, and its refusal names both pits (before: b7 found
    dead, 7R* recorded, later U4 called silent)."""
    got, want, hw, host, b, blinks = _dead_from(21, 2, 5, (21, 25))
    assert got == want[:3] and b.app.rec.steps == 3, (got, want)
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    reasons = [e[2] for e in host.events if e[1] == "ILLEGAL"]
    assert len(reasons) >= 2 and all("b7 or a6 senses nothing" in r for r in reasons[1:]), reasons
    assert blinks == [True, True]  # the board asks: a6 or b7, blinking magenta


def test_a_dead_start_pit_s_move_that_another_takes_into_a_chip_makes_no_chip_silent():
    """Issue #26: a6's input dies at ply 6; North's 6R* at ply 7 (a6 a6 a7 a8) shows as a7 a8, which is also 7R* up to
    its steps in row b (U4: b8, b7, ...). South's touch is refused, and again after a look and a take-back: a dead a6
    (6R* made) explains it as well as a silent U4. No chip is called silent, no pit dead, no move recorded for North's,
    and the refusal names a6 and b8 (before: U4 called silent, its pits ignored)."""
    got, want, hw, host, b, blinks = _dead_from(21, 6, 9, (21, 24))
    assert got == want[:7], (got, want)
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    reasons = [e[2] for e in host.events if e[1] == "ILLEGAL"]
    assert len(reasons) >= 2 and all("a6 or b8 senses nothing" in r for r in reasons[1:]), reasons
    assert blinks == [True, True]


def test_slips_between_two_start_pits_taken_back_make_no_pit_dead():
    """The touch between two start pits (A7, between A6 and A8 at ply 12 of the 1994 game: a move from either
    would show first there) is a player's slip too. South slips onto A7 and takes the seed back out, looks,
    does it again, then plays 8R* from A8: no pit is dead, 8R* is recorded as played."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    want = _play(b, hands, host, 12)
    gen = plies()
    for _ in range(12):
        next(gen)
    p, _, _ = next(gen)
    m = find_move(p, "8R*")
    for _ in range(2):
        hands.tap(6)  # A7: the slip...
        hands.tap(6)  # ... and the seed taken back out
        hands.scan(2500 // hands.scan_ms)  # a look at the board
    for pit in activations(p, m):
        hands.tap(pit)
    host.poll()
    want.append("8R*")
    assert _illegal(host) == 2
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert host.moves() == want
    st.close()


# A random Zanzibar game's 61st position (seed 78 of tests/bao_testkit/simrig.random_game): South's A3R* sows
# A4..A8, B8..B4 and relays from B4; A4R*, from the pit sown next, sows the same pits up to B4
_LONG_AGREE = (
    '{"ruleset": "zanzibar", "to_move": "S", "A": [0, 1, 10, 11, 1, 0, 1, 1], "B": [0, 2, 1, 3, 0, 2, 4, 0], '
    '"a": [0, 0, 1, 2, 1, 1, 2, 0], "b": [2, 3, 2, 4, 2, 0, 0, 7], "store": {"S": 0, "N": 0}, '
    '"house": {"S": false, "N": false}, "takasia": null}'
)


def test_a_dead_start_pit_whose_move_agrees_long_with_another_is_found():
    """Issue #26: A3's input is dead; South plays A3R* (A3 lifted, A4..A8, B8..B4, B4 lifted: a relay, B3..).
    Its first sensed touch, A4, starts A4R*, whose path agrees for 10 touches; the relay's lift at B4 is
    refused, and again after a look and a take-back. The evidence reads the move's touches so far (before:
    only the first 8 were kept, so A3 was never found and the move never recorded)."""
    from bao import position_json
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    host.command(1, "SETPOS", _LONG_AGREE)
    hands.scan(3)
    host.poll()
    p = position_json.loads(_LONG_AGREE)
    m = find_move(p, "A3R*")
    hw.dead[0] = 1 << 2  # A3
    for pit in activations(p, m):
        _touch_as_a_person(b, hands, host, pit)
    hands.scan(10)
    host.poll()
    errs = _errors(host)
    assert len(errs) == 1 and '"dead"' in errs[0][2] and '"A3"' in errs[0][2], errs
    assert _illegal(host) == 1
    assert host.moves() == ["A3R*"]
    st.close()


# A Malawi lesson's position (issue #26's user walk-through), South to move: A8 holds 1 seed (M2: no start)
# and is the first drop of B8R; A7 starts no move either (1.7a: South must capture)
_LESSON = (
    '{"ruleset": "malawi", "to_move": "S", "A": [7, 0, 3, 6, 0, 6, 2, 1], "B": [2, 2, 2, 2, 2, 2, 2, 2], '
    '"a": [1, 1, 1, 5, 0, 0, 0, 0], "b": [3, 0, 2, 2, 2, 2, 2, 2], "store": {"S": 0, "N": 0}, '
    '"house": {"S": false, "N": false}, "takasia": null}'
)


def _lesson():
    """The board set to _LESSON, settled; (board, hands, host, storage, the position)."""
    from bao import position_json

    b, hw, host, hands, st = _board()
    host.command(1, "SETPOS", _LESSON)
    hands.scan(3)
    host.poll()
    hands.scan(2500 // hands.scan_ms)
    host.poll()
    p = position_json.loads(_LESSON)
    assert bytes(b.app.p.d) == bytes(p.d)
    return b, hands, host, st, p


def _slips_then_a_move(taps):
    """On _LESSON, South touches the pits named in `taps` (each then a 3 s look at the board), then plays A1R:
    asserts that nothing was found faulty, that no move was begun or recorded by the touches, and that A1R is
    recorded as played. The host."""
    from baoboard.recogniser import IDLE, activations

    b, hands, host, st, p = _lesson()
    for name in taps:
        hands.tap(core.pit_index(name))
        hands.scan(3000 // hands.scan_ms)
    host.poll()
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert b.app.rec.phase == IDLE and bytes(b.app.p.d) == bytes(p.d) and host.moves() == []
    for pit in activations(p, find_move(p, "A1R")):
        hands.tap(pit)
    host.poll()
    assert host.moves() == ["A1R"]
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    st.close()
    return host


def test_a_slip_between_moves_taken_back_after_a_look_makes_no_pit_dead():
    """Issue #26's walk-through: between moves a beginner touches A8 (1 seed: refused, blinking pink), reads
    the board for 3 s, then puts the seed back (touches A8 again). The touch again is the slip taken back,
    however late: absorbed, its evidence withdrawn (before: it was a second refused touch at B8R's first
    drop, B8 was called dead and B8R begun, a move never played). The position stays; A1R is then recorded."""
    host = _slips_then_a_move(["A8", "A8"])
    assert _illegal(host) == 1


def test_two_slips_between_moves_taken_back_in_reverse_order_make_no_pit_dead():
    """The beginner touches A7 (refused), then A8 (refused), each with a look; then puts back A8's seed and
    A7's, each after a look. A8's touch again is its take-back; A7's comes after another pit's touch, so it
    is refused afresh (nothing to take back in the board's eyes), and says nothing of a dead pit either
    (before: B8 called dead, B8R begun)."""
    host = _slips_then_a_move(["A7", "A8", "A8", "A7"])
    assert _illegal(host) == 3


def test_a_late_take_back_is_never_part_of_the_undo_gesture():
    """The undo gesture is three taps on one pit, each at once after the last. A slip between moves taken
    back after a look, then two quick taps of that pit: no undo (the late take-back is no tap of a gesture;
    before, it was the gesture's first tap and the last move was taken back); the first of them is a fresh
    refusal. A third quick tap makes the gesture."""
    b, hw, host, hands, st = _board()
    want = _play(b, hands, host, 2)
    a8 = 7  # (South's A8 holds no seed after 2 plies of the 1994 game: never a start)
    assert b.app.p.d[a8] == 0
    hands.tap(a8)
    hands.scan(3000 // hands.scan_ms)
    hands.tap(a8)  # the seed put back, after a look
    host.poll()
    assert _illegal(host) == 1
    hands.tap(a8)
    hands.tap(a8)
    host.poll()
    assert _illegal(host) == 2 and not [e for e in host.events if e[1] == "UNDO"]
    assert host.moves() == want
    hands.tap(a8)
    host.poll()
    assert [e for e in host.events if e[1] == "UNDO"] and host.moves() == want[:1]
    assert _errors(host) == []
    st.close()


def _dead_b8_sown(look):
    """On _LESSON, B8's input dead: South plays B8R (B8 lifted, unsensed; A8, A7...). look(hands): what the
    person does after the refused first drop into A8, before sowing on. The host and the board."""
    from baoboard.recogniser import activations

    b, hands, host, st, p = _lesson()
    b.app.hw.dead[1] = 1  # B8: byte 1, bit 0 (U1)
    acts = activations(p, find_move(p, "B8R"))
    assert [core.pit_name(x) for x in acts[:3]] == ["B8", "A8", "A7"]
    hands.tap(acts[0])  # (unsensed)
    hands.tap(acts[1])  # refused: no move starts at A8
    host.poll()
    assert _illegal(host) == 1
    look(hands)
    for pit in acts[2:]:
        hands.tap(pit)
    host.poll()
    st.close()
    return host, b


def test_a_dead_start_pit_is_found_when_the_person_sows_on_past_the_pink_pit():
    """Between moves a refused touch touched again is a take-back, so a dead start pit is found as the person
    goes on with the move: B8 dead, B8R's first sensed touch A8 refused (it alone fits a move from B8: one
    evidence), then A7 at a hand's pace, the move's next drop (A8 then A7: B8R's first touches, a second):
    B8 is dead, B8R taken from A8 and recorded as played."""
    host, b = _dead_b8_sown(lambda hands: None)
    assert host.moves() == ["B8R"]
    errs = _errors(host)
    assert len(errs) == 1 and '"dead"' in errs[0][2] and '"B8"' in errs[0][2], errs
    assert bytes(b.app.deb.faulty) == b"\x00\x01\x00\x00" and _illegal(host) == 1


def test_a_dead_start_pit_is_found_when_the_seed_taken_back_is_sown_again():
    """B8 dead: the person, seeing A8 pink, looks, takes the seed back out of A8 (its evidence withdrawn),
    then sows B8R again from A8 (refused afresh) and on to A7: B8 is found, B8R recorded as played."""

    def take_back_then_sow_again(hands):
        hands.scan(3000 // hands.scan_ms)
        hands.tap(7)  # A8: the seed taken back out, after a look
        hands.scan(1000 // hands.scan_ms)
        hands.tap(7)  # ... and dropped in again

    host, b = _dead_b8_sown(take_back_then_sow_again)
    assert host.moves() == ["B8R"]
    errs = _errors(host)
    assert len(errs) == 1 and '"dead"' in errs[0][2] and '"B8"' in errs[0][2], errs
    assert bytes(b.app.deb.faulty) == b"\x00\x01\x00\x00" and _illegal(host) == 2


def _slip_in_the_first_move(then, a5_dead=False):
    """The 1994 game's first move, 7L* (A7 twice, A6, A5, A4): after A6, the hand slips onto A4 (refused), the
    person looks at the board (3 s), takes the seed back out of A4 (touches it again), then makes the touches
    `then` (pit names). a5_dead: A5's input senses nothing. The board and the host."""
    from baoboard.recogniser import activations

    b, hw, host, hands, st = _board()
    if a5_dead:
        hw.dead[0] = 1 << 4
    hands.scan(2500 // hands.scan_ms)
    host.poll()
    p, m, _ = next(iter(plies()))
    acts = activations(p, m)
    assert [core.pit_name(x) for x in acts] == ["A7", "A7", "A6", "A5", "A4"]
    for pit in acts[:3]:
        hands.tap(pit)
    hands.tap(core.pit_index("A4"))  # the slip: refused (A5 is the next pit)
    hands.scan(3000 // hands.scan_ms)
    hands.tap(core.pit_index("A4"))  # the seed taken back out of A4
    for name in then:
        hands.tap(core.pit_index(name))
    hands.scan(10)
    host.poll()
    st.close()
    return b, host


def test_a_slip_in_a_move_taken_back_after_a_look_makes_no_pit_dead():
    """Issue #26 (found in use): in the middle of a move a slip onto the pit after the next one, refused; a
    3 s look at the board; the seed taken back; then the move's last two drops, A5 and A4. The take-back
    after a look says nothing either way (before, it was the refused touch made again: A5 was called dead,
    7L* recorded at the take-back and its last two drops refused as North's turn, 1.1). A5 senses its drop:
    it works. 7L* is recorded once, as played, with one refusal."""
    b, host = _slip_in_the_first_move(["A5", "A4"])
    assert _errors(host) == [] and bytes(b.app.deb.faulty) == bytes(4)
    assert host.moves() == ["7L*"] and _illegal(host) == 1


def test_a_dead_pit_is_found_when_the_seed_taken_back_is_put_there_again():
    """The same slip when A5's input is dead: the person's drop into A5 after the take-back is no touch, then
    A4 again (the seed put there, as the person believes A5 done): a second refused touch right after A5
    with no touch of A5 between. A5 is dead, its drop taken as made, 7L* recorded as played. (A healthy A5
    left out, A4 touched again: the same touches, the same verdict; the person who slipped touches A5.)"""
    b, host = _slip_in_the_first_move(["A5", "A4"], a5_dead=True)
    errs = _errors(host)
    assert len(errs) == 1 and '"dead"' in errs[0][2] and '"A5"' in errs[0][2], errs
    assert host.moves() == ["7L*"] and _illegal(host) == 1
