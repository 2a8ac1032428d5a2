# The recogniser: the 1994 game performed through activations, wrong drops, house decisions, gestures.
from bao import core, notation
from baoboard import recogniser as R
from board_util import plies


def _play(rec, p, pits, now=0):
    r = R.R_IGNORED
    for pit in pits:
        r = rec.feed(pit, now)
        now += 300
    return r


def test_1994_game_through_activations():
    rec = R.Recogniser()
    for merge in (False, True):
        for p, m, text in plies():
            rec.start(p, core.legal_moves(p))
            r = _play(rec, p, R.activations(p, m, merge))
            if r == R.R_DECISION:  # a stop in the house: the opponent's first activation decides
                r = rec.decide_stop()
            assert r == R.R_DONE, (text, r)
            assert rec.done_move & 63 == m & 63, text
            assert rec.done_child.d == notation.find_move(p, m)[1].d, text


def test_wrong_drop_is_flagged_and_changes_nothing():
    p = core.initial()
    rec = R.Recogniser()
    rec.start(p, core.legal_moves(p))
    m = next(plies())[1]  # 7L*: store seed into A7, lift, sow left
    acts = R.activations(p, m)
    assert rec.feed(acts[0]) == R.R_PROGRESS
    wrong = 12  # A... not a neighbour of A7
    assert rec.feed(wrong, 100) == R.R_WRONG
    assert rec.wrong_pit == wrong
    assert rec.feed(wrong, 200) == R.R_IGNORED  # the seed taken back out
    r = R.R_IGNORED
    for pit in acts[1:]:
        r = rec.feed(pit, 1000)
    assert r == R.R_DONE and rec.done_move & 63 == m & 63


def test_illegal_start_cites_rule():
    p = core.initial()
    rec = R.Recogniser()
    rec.start(p, core.legal_moves(p))
    assert rec.feed(16 + 4) == R.R_WRONG  # North's pit: not North's turn
    assert rec.wrong_rule == "1.1"
    assert rec.feed(8) == R.R_WRONG  # B8: namua moves start on the front row
    assert rec.wrong_reason


def test_triple_tap_undo_and_cancel():
    p = core.initial()
    rec = R.Recogniser()
    rec.start(p, core.legal_moves(p))
    assert rec.feed(20, 0) == R.R_WRONG
    assert rec.feed(20, 300) == R.R_IGNORED
    assert rec.feed(20, 600) == R.R_UNDO
    acts = R.activations(p, next(plies())[1])
    rec.feed(acts[0], 1000)
    rec.feed(acts[1], 1100)
    assert rec.feed(30, 1200) == R.R_WRONG
    rec.feed(30, 1300)
    assert rec.feed(30, 1400) == R.R_CANCEL
    assert rec.phase == R.IDLE


def test_house_played_by_lifting_it():
    # 15: South 3R*, North 5R> (plays the house): the play candidate needs the lift of the house
    for p, m, _text in plies():
        if m & core.PLAY:
            rec = R.Recogniser()
            moves = core.legal_moves(p)
            rec.start(p, moves)
            acts = R.activations(p, m)
            house = (p.d[core.TO_MOVE] << 4) + 4
            seen_decision = False
            for pit in acts:
                r = rec.feed(pit)
                if r == R.R_DECISION:
                    seen_decision = True
                    assert rec.phase == R.DECISION
            assert seen_decision and r == R.R_DONE and rec.done_move & core.PLAY
            # the same moves, stopping: the opponent's first activation ends the move
            stop = m & ~core.PLAY
            rec.start(p, moves)
            acts = R.activations(p, stop)
            for pit in acts:
                r = rec.feed(pit)
            assert r == R.R_DECISION
            opp = 16 - (p.d[core.TO_MOVE] << 4)
            assert rec.feed(opp) == R.R_DONE and rec.refeed == opp
            assert rec.done_move & 63 == stop & 63
            assert house >= 0
            return
    raise AssertionError("the game has a house play")


def test_put_back_before_any_drop():
    for p, m, _text in plies():
        if not p.in_namua():
            rec = R.Recogniser()
            rec.start(p, core.legal_moves(p))
            acts = R.activations(p, m)
            assert rec.feed(acts[0]) == R.R_PROGRESS
            assert rec.feed(acts[0]) == R.R_PUTBACK and rec.phase == R.IDLE
            return


def _follow(p, m):
    """Lift m's start pit and perform m by reading the recogniser's own sequence of it (no copy)."""
    rec = R.Recogniser()
    rec.start(p, core.legal_move_codes(p))
    r = rec.feed(rec.first_pit(m))
    steps = 1
    while r == R.R_PROGRESS:
        i = [k for k in range(rec.n) if rec.c_move[k] & 63 == m][0]
        r = rec.feed(rec.expected(i) & R.PIT)
        steps += 1
    assert r == R.R_DONE
    assert rec.done_move & 63 == m
    assert rec.done_child.d == core.play(p, m).d
    return steps


# The slowest Malawi position known (test_rules_positions' SLOW_MALAWI; that module is not imported here: its
# code would fill a 64 KB heap): A4L* sleeps at the bound on seeds sown (M4).
SLOW_MALAWI = (
    '{"to_move":"S","A":[2,1,0,11,3,6,11,0],"B":[1,2,1,0,6,1,0,1],"a":[1,1,0,1,1,0,0,0],'
    '"b":[3,2,0,5,2,2,0,0],"store":{"S":0,"N":0},"house":{"S":false,"N":false},"takasia":null,'
    '"ruleset":"malawi"}'
)


class Watched(R.Sequence):
    """A Sequence that notes the most account bytes it held at a relay."""

    def __init__(self):
        super().__init__()
        self.most = 0

    def flush(self):
        self.most = max(self.most, len(self.rec))
        super().flush()


def test_a_move_sleeping_at_the_bound_is_followed_pit_by_pit_its_account_never_held_whole():
    # A4L* of SLOW_MALAWI: its sequence is built from its account a few hundred bytes at a time (counted,
    # then the move played again and written into the sequence, allocated once at its size). With a
    # bound of 1,000 seeds here; the default's 12,404 activations below.
    from bao import position_json

    p = position_json.loads(SLOW_MALAWI)
    p = core.Position(p.d, core.Rules(core.MALAWI, sow_bound=1000))
    m = 3  # A4, L
    seq = Watched()
    acts = R.sequence(p, m, seq)
    assert 512 <= seq.most < 512 + 64  # taken in pieces: never more than a relay past _KEEP
    assert len(acts) > 1000
    acts = None  # (a 64 KB heap in pieces: the recogniser builds it again)
    assert _follow(p, m) > 1000  # each activation fed, the move recognised at the last


def test_the_sleeping_malawi_move_is_followed_through_its_12404_activations():
    # at a Pico's 64 KB heap on the 32-bit build too: the sequence is one 12 KB piece, its 19 KB account
    # never held whole
    from bao import position_json

    p = position_json.loads(SLOW_MALAWI)
    assert _follow(p, 3) == 12404  # each activation fed, the move recognised at the last


def test_a_lone_kichwa_sown_towards_the_back_row_is_refused_citing_its_rule():
    # The lone kichwa (lessons/zanzibar-07): the store seed into A1, its lift, then the first drop into B1 (the
    # back row): refused, citing 2.4a in the namua stage, 3.5b in the mtaji stage (A8, then B8); the drop the
    # rules allow goes on.
    from bao import position_json

    namua = position_json.loads(
        '{"ruleset": "zanzibar", "to_move": "S", "A": [3, 0, 0, 0, 0, 0, 0, 0], "B": [1, 2, 2, 1, 0, 0, 2, 3],'
        ' "a": [0, 0, 1, 0, 6, 2, 0, 0], "b": [2, 2, 1, 1, 1, 2, 1, 1], "store": {"S": 15, "N": 15},'
        ' "house": {"S": false, "N": true}, "takasia": null}'
    )
    mtaji = position_json.loads(
        '{"ruleset": "zanzibar", "to_move": "S", "A": [0, 0, 0, 0, 0, 0, 0, 3], "B": [1, 2, 2, 1, 3, 4, 2, 3],'
        ' "a": [0, 1, 1, 2, 2, 2, 0, 2], "b": [5, 3, 4, 3, 6, 5, 3, 4], "store": {"S": 0, "N": 0},'
        ' "house": {"S": false, "N": false}, "takasia": null}'
    )
    for p, back, rule, text in ((namua, "B1", "2.4a", "1R*"), (mtaji, "B8", "3.5b", "A8L*")):
        rec = R.Recogniser()
        rec.start(p, core.legal_moves(p))
        m = notation.parse_move(p, text)[0]
        acts = R.activations(p, m)
        lead = 2 if p.d[core.STORE] else 1  # (the store seed, then the lift; in the mtaji stage the lift)
        assert _play(rec, p, acts[:lead]) == R.R_PROGRESS
        assert rec.feed(core.pit_index(back), 5000) == R.R_WRONG
        assert rec.wrong_rule == rule and "front row would be empty" in rec.wrong_reason, (rec.wrong_rule, text)
        rec.feed(core.pit_index(back), 5100)  # the seed taken back out (absorbed)
        assert _play(rec, p, acts[lead:], 9000) == R.R_DONE and rec.done_move & 63 == m & 63


def test_every_refused_touch_cites_a_rule():
    # issue #25: a touch refused during a move said "b4 is not the pit to play now" with no rule, where the
    # guidance line cited one; the board names the rule of the step the move waits for (docs/rules.md): a
    # drop into the next pits 1.3, a capture 1.4, a kichwa 1.4a, a relay 1.6, the house decision 2.5b
    rec = R.Recogniser()
    seen = {}
    for n, (p, m, _text) in enumerate(plies()):
        if n >= 40:
            break
        rec.start(p, core.legal_moves(p))
        side = p.d[core.TO_MOVE] << 4
        now = 0
        for pit in R.activations(p, m):
            if rec.phase != R.IDLE:
                wanted = set()
                for i in range(rec.n):
                    e = rec.expected(i)
                    if e >= 0:
                        wanted.add(e & R.PIT)
                        if e & R.OPT and rec.after_optional(i) >= 0:
                            wanted.add(rec.after_optional(i) & R.PIT)
                wanted.add(rec.start_pit)  # (the seeds put back)
                wrong = [side + i for i in range(16) if side + i not in wanted][0]
                assert rec.feed(wrong, now) == R.R_WRONG, (n, wrong)
                assert rec.wrong_rule and rec.wrong_reason, (n, wrong, rec.wrong_reason)
                seen[rec.wrong_rule] = rec.wrong_reason
            now += 3000
            r = rec.feed(pit, now)
        if r == R.R_DECISION:
            rec.decide_stop()
    for rule in ("1.3", "1.4", "1.4a", "2.5b"):
        assert rule in seen, (rule, seen)
    assert seen["1.3"] == "the seeds go one by one into the next pits", seen  # (the guidance line's words)
