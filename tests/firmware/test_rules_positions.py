# Hand-made positions for the rules the 1994 game never exercises; each test names its rule.
from bao import core, explain, position_json, query
from baotest import names, play, position, raises, reason, row, steps_of

INF_TAKASA = position({"A": "4 2 3 0 5 3 4 2", "B": "3 2 3 0 1 2 4 3", "a": "0 1 0 0 0 0 0 0", "b": "4 1 6 1 3 3 2 2"})
TAKASIA = position({"A": "4 1 6 1 4 1 1 2", "B": "4 1 2 1 3 2 1 4", "a": "1 3 0 0 0 0 1 0", "b": "3 5 2 0 2 2 4 3"})


def test_2_4b_lone_house_pays_the_tax():
    # Namua, South's only filled front pit is the owned house with 8: one store seed in, 2 out (2.4b, R4).
    p = position({"A": "0 0 0 0 8 0 0 0", "a": "3 0 0 0 6 0 0 0"}, store=(10, 10), house=(True, True), fill="b8")
    assert names(p) == ["5L*", "5R*"]
    after = play(p, "5L*")
    assert row(after, "A") == [0, 0, 1, 1, 7, 0, 0, 0]
    assert after.owns_house(core.SOUTH)  # R6: the tax does not empty the house
    assert steps_of(p, "5L*", core.STEP_TAX) == [(core.STEP_TAX, 4, 2)]


def test_2_4b_owned_house_with_six_is_no_takasa_start():
    p = position({"A": "0 0 0 0 8 0 2 0", "a": "3 0 0 0 6 0 0 0"}, store=(10, 10), house=(True, True), fill="b8")
    assert "5L*" not in names(p)
    assert reason(p, "5L*").startswith("2.4b:")


def test_2_4c_singletons_once_the_house_is_lost():
    rows = {"A": "0 1 0 0 0 0 3 0", "a": "3 0 0 0 0 0 0 0"}
    lost = position(rows, store=(10, 10), house=(False, False), fill="b8")
    assert names(lost) == ["7L*", "7R*"]
    assert reason(lost, "2L*").startswith("2.4c:")
    # R4: while the house is owned a singleton may start a namua takasa (the game needs it at move 3)
    owned = position({"A": "0 1 0 0 1 0 3 0", "a": "3 0 0 0 0 0 0 0"}, store=(10, 10), house=(True, False), fill="b8")
    assert "2L*" in names(owned) and "2R*" in names(owned)


def test_2_4a_lone_kichwa_not_towards_the_back_row():
    p = position({"A": "3 0 0 0 0 0 0 0", "a": "2 0 0 0 0 0 0 0"}, store=(10, 10), fill="b8")
    assert names(p) == ["1R*"]
    assert reason(p, "1L*").startswith("2.4a:")


def test_3_5b_lone_kichwa_in_mtaji_and_m3_in_malawi():
    rows = {"A": "0 0 0 0 0 0 0 4", "B": "2 0 0 0 0 0 0 0", "a": "0 0 0 0 0 0 0 2"}
    p = position(rows, fill="b8")
    assert names(p) == ["A8L*"]
    assert reason(p, "A8R*").startswith("3.5b:")
    # M3: in Malawi the same move is legal and loses at once: the front row empties at the first seed.
    m = position(rows, ruleset="malawi", fill="b8")
    assert "A8R*" in names(m)
    after = play(m, "A8R*")
    assert after.winner == core.NORTH and after.in_hand == 3
    assert position_json.to_dict(after)["winner"] == "N"


def test_3_5a_takasa_from_the_front_row_first():
    p = position({"A": "0 0 2 0 0 0 0 0", "B": "0 0 0 0 0 0 0 5", "a": "0 0 0 0 0 0 0 1"}, fill="b8")
    assert names(p) == ["A3L*", "A3R*"]
    assert reason(p, "B8L*").startswith("3.5a:")
    # With only singletons in front, the back row may start (3.5a "if possible").
    q = position({"A": "0 0 1 0 0 0 0 0", "B": "0 0 0 0 0 0 0 5", "a": "0 0 0 0 0 0 0 1"}, fill="b8")
    assert names(q) == ["B8L*", "B8R*"]


def test_3_3_singletons_cannot_move_and_a_side_of_singletons_loses():
    p = position({"A": "1 1 1 1 1 1 1 1", "B": "1 1 1 1 1 1 1 1", "a": "0 0 0 0 0 0 0 3"}, fill="b8")
    assert names(p) == []
    assert core.outcome(p) == core.NORTH
    assert reason(p, "A1L*").startswith("1.2:")


def test_3_4_capture_moves_lift_at_most_15_seeds():
    # A3 with 15 sown towards pit 8 ends in A2 (ring wraps), opposite a7: a capture (3.4).
    p15 = position({"A": "0 1 15 0 0 0 0 0", "a": "0 0 0 0 0 0 2 0"}, fill="b8")
    assert names(p15) == ["A3R"]
    # With 16 seeds the same start is no capture (3.4.2): only takasa moves remain.
    p16 = position({"A": "0 1 16 0 0 0 0 0", "a": "0 0 0 0 0 0 2 0"}, fill="b8")
    assert all(n.endswith("*") for n in names(p16))
    assert "A3R*" in names(p16)


def test_r3_capture_direction_and_kichwa():
    # Mtaji capture at a middle pit keeps the direction: sowing left-to-right (R) starts at A1 (R3).
    p = position({"A": "0 0 2 0 1 0 0 0", "a": "0 0 0 3 0 0 0 0"}, fill="b8")
    caps = steps_of(p, "A3R", core.STEP_CAPTURE)
    assert caps[0][:4] == (core.STEP_CAPTURE, 16 + 3, 3, 0) and caps[0][4] == 1
    # A capture at the kimbi A7 sows from the nearest kichwa A8, whatever the direction (1.4b).
    q = position({"A": "0 0 0 0 0 0 1 0", "B": "0 0 0 0 0 0 0 0", "a": "0 2 0 0 0 0 0 0"}, fill="b8")
    q = position({"A": "0 0 0 0 2 0 1 0", "a": "0 2 0 0 0 0 0 0"}, fill="b8")
    caps = steps_of(q, "A5R", core.STEP_CAPTURE)
    assert caps[0][3] == 7 and caps[0][4] == -1


def test_r5_capture_move_may_stop_in_the_owned_house_with_six():
    # Namua capture at A3 sown from A1 (L): 5 seeds reach the house A5, which then holds 6 (2.5b, R5).
    rows = {"A": "0 0 1 0 5 0 0 0", "a": "2 0 0 0 0 5 0 0"}
    p = position(rows, store=(10, 10), house=(True, False), fill="b8")
    assert "3L" in names(p) and "3L>" in names(p)
    stop = play(p, "3L")
    assert stop.owns_house(core.SOUTH) and row(stop, "A")[4] == 6
    played = play(p, "3L>")
    assert not played.owns_house(core.SOUTH) and row(played, "A")[4] == 0
    # With 5 in the house after the last seed there is no choice (R5 ruling: 6+ needed) ...
    rows4 = {"A": "0 0 1 0 4 0 0 0", "a": "2 0 0 0 0 5 0 0"}
    p4 = position(rows4, store=(10, 10), house=(True, False), fill="b8")
    assert "3L>" not in names(p4)
    assert reason(p4, "3L>").startswith("2.5b:")
    # ... unless the named option says any count will do.
    p4any = position(rows4, store=(10, 10), house=(True, False), fill="b8", house_stop_any_count=True)
    assert "3L>" in names(p4any)


def test_r6_first_mtaji_capture_ends_both_houses():
    p = position({"A": "0 0 2 0 1 0 0 0", "a": "0 0 0 3 2 0 0 0"}, house=(True, True), fill="b8")
    after = play(p, "A3R")
    assert not after.owns_house(core.SOUTH) and not after.owns_house(core.NORTH)


def test_r9_capture_empties_the_front_row_half_way():
    p = position({"A": "0 0 2 0 1 0 0 0", "a": "0 0 0 3 0 0 0 0"}, fill="b8")
    after = play(p, "A3R")
    assert after.winner == core.SOUTH and after.in_hand == 3
    assert query.seed_total(after) == 64
    obj = position_json.to_dict(after)
    assert obj["winner"] == "S" and obj["in_hand"] == 3
    assert core.legal_moves(after) == []
    assert position_json.from_dict(obj) == after


def test_r8_takasia():
    # South's takasa A8L leaves North without a capture while South could then capture only a1: a1 is
    # takasia-ed for North's next move (4.1), written A8L** and carried in the position.
    assert "A8L**" in names(TAKASIA)
    after = play(TAKASIA, "A8L**")
    assert position_json.to_dict(after)["takasia"] == "a1"
    # The option takasia=no switches the rule off.
    off = position_json.from_dict(dict(position_json.to_dict(TAKASIA), options={"takasia": False}))
    assert "A8L*" in names(off) and "A8L**" not in names(off)


def test_4_1_takasia_ed_pit_cannot_start_and_ends_a_sowing():
    rows = {"A": "2 0 0 0 0 0 0 0", "a": "0 0 2 0 2 0 0 0"}
    p = position(rows, to_move="N", takasia="a3", fill="B8")
    assert reason(p, "a3L*").startswith("4.1:")
    ends = steps_of(p, "a5L*", core.STEP_END)
    assert ends == [(core.STEP_END, 16 + 2, core.END_TAKASIA)]  # 4.1b: the sowing ends in a3
    free = position(rows, to_move="N", fill="B8")
    assert "a3L*" in names(free)
    assert steps_of(free, "a5L*", core.STEP_RELAY) == [(core.STEP_RELAY, 16 + 2, 3)]


def test_r8_a_takasia_ed_pit_beside_a_capture_is_an_impossible_position():
    # North's a3R ends in a5 facing A4: a capture. A pit is takasia-ed only when its side has no capture
    # (R8), so this position cannot arise and is refused, as an empty front row is.
    rows = {"A": "2 0 0 2 0 0 0 0", "a": "0 0 2 0 2 0 0 0"}
    free = position(rows, to_move="N", fill="B8")
    assert "a3R" in names(free)
    err = raises(core.InvalidPositionError, position, rows, "N", (0, 0), (False, False), "zanzibar", "a3", "B8")
    assert err is not None and "impossible" in err and "R8" in err, err
    # Without the capture the same takasia is a possible position (test_4_1 above).
    assert position({"A": "2 0 0 0 0 0 0 0", "a": "0 0 2 0 2 0 0 0"}, to_move="N", takasia="a3", fill="B8")


def test_r10_never_ending_takasa_is_illegal():
    # A6L would sow for ever: its state repeats only after 174,848 relays, so the game's bound on seeds
    # sown (R10, 1.5a: 10,000 by default) decides it long before.
    m = 5  # A6, L
    _, status = core.play_raw(INF_TAKASA, m)
    assert status & 15 == core.END_INFINITE and status & core.BOUNDED
    assert "A6L*" not in names(INF_TAKASA)
    assert reason(INF_TAKASA, "A6L*").startswith("1.5a:")


def test_r10_without_a_bound_the_repeat_itself_is_found():
    # sow_bound 0 (research): exact detection only, Brent's method finds the loop of 174,848 relays.
    import sys

    if sys.implementation.name == "micropython":
        return  # a few seconds of relays on the unix port: run by pytest only
    research = core.Position(bytearray(INF_TAKASA.d), core.Rules(core.ZANZIBAR, sow_bound=0))
    _, status = core.play_raw(research, 5)
    assert status & 15 == core.END_INFINITE and not status & core.BOUNDED


class Tally:
    """A recorder for core.play_raw that counts the seeds dropped (R10, M4: every seed a move drops since
    it began, the store's seed and the sowings of the first lift, of relays and of captured seeds) and keeps
    the last sowing's count and the last step: the account's bytes come one by one (4 a step: kind, pit,
    a, b), as they would into a bytearray."""

    def __init__(self):
        self.dropped = 0
        self.last_sowing = 0
        self.last = bytearray(4)
        self.n = 0

    def append(self, byte):
        self.last[self.n & 3] = byte
        self.n += 1
        if not self.n & 3:
            kind = self.last[0] & 15
            if kind == core.STEP_SOW:
                self.dropped += self.last[3]
                self.last_sowing = self.last[3]
            elif kind == core.STEP_STORE:
                self.dropped += 1

    def __setitem__(self, key, value):  # play_raw starts the account again (M4's second run)
        self.dropped = 0
        self.n = 0


def dropped(steps):
    """Seeds dropped by a move's account (steps as explain.steps reads them), and its last sowing's."""
    sowings = [s[3] for s in steps if s[0] == core.STEP_SOW]
    return sum(sowings) + len([s for s in steps if s[0] == core.STEP_STORE]), sowings[-1]


SLOW_MALAWI = (
    '{"to_move":"S","A":[2,1,0,11,3,6,11,0],"B":[1,2,1,0,6,1,0,1],"a":[1,1,0,1,1,0,0,0],'
    '"b":[3,2,0,5,2,2,0,0],"store":{"S":0,"N":0},"house":{"S":false,"N":false},"takasia":null,'
    '"ruleset":"malawi"}'
)


def test_m4_a_move_that_repeats_only_after_millions_of_relays_sleeps_at_the_bound():
    # From a random Malawi game: A4L* repeats its state only after 3.3 million relays (minutes on a Pico,
    # past its watchdog). M4 with R10's bound: it sleeps at the end of the relay during which it dropped
    # its 10,001st seed, counted from the first seed of the move.
    p = position_json.loads(SLOW_MALAWI)
    rec = Tally()  # thousands of steps: tallied, not kept (a Pico-sized heap)
    child, status = core.play_raw(p, 3, rec)  # A4, L (ring 3, towards pit 1)
    assert status & 15 == core.END_SLEEP
    assert rec.dropped > 10000 >= rec.dropped - rec.last_sowing  # the last sowing passed the bound
    assert rec.last[0] == core.STEP_END and rec.last[2] == core.END_SLEEP
    assert sum(child.d[:34]) == 64
    assert "A4L*" in names(p)


def test_m4_a_finite_move_past_the_bound_sleeps_at_the_end_of_the_relay_that_passed_it():
    # B5L from SLOW_MALAWI ends by itself after 26 relays. With a bound of 40 it has sown more than the
    # bound first: M4 takes it as never-ending, and it sleeps at the end of the sowing that dropped its
    # 41st seed (R10/M4's ruling: the first sowing's seeds count, not only those lifted at relays).
    p = position_json.loads(SLOW_MALAWI)
    unbounded = core.Position(bytearray(p.d), core.Rules(core.MALAWI, sow_bound=0))
    _, status = core.play_raw(unbounded, 11)  # B5, L (ring 11)
    assert status & 15 == core.END_EMPTY
    bounded = core.Position(bytearray(p.d), core.Rules(core.MALAWI, sow_bound=40))
    rec = bytearray()  # the account as the core records it, read back as steps
    child, status = core.play_raw(bounded, 11, rec)
    assert status & 15 == core.END_SLEEP
    steps = explain.steps(rec)
    total, last = dropped(steps)
    assert total > 40 >= total - last, (total, last)  # the bound passed during the last sowing
    assert steps[-1] == (core.STEP_END, steps[-1][1], core.END_SLEEP)
    assert sum(child.d[:34]) == 64


# B7R, a capture move, drops 58 seeds: 42 lifted at its 7 relays, 16 in its first sowing and the sowings
# of the seeds it captures; it ends in an empty pit.
LONG_ZANZIBAR = (
    '{"ruleset": "zanzibar", "to_move": "S", "A": [0, 0, 0, 0, 0, 5, 1, 0], "B": [5, 1, 2, 4, 1, 2,'
    ' 3, 6], "a": [1, 3, 3, 2, 4, 4, 4, 3], "b": [5, 0, 1, 0, 0, 2, 0, 2], "store": {"S": 0, "N": 0},'
    ' "house": {"S": false, "N": false}, "takasia": null}'
)


def test_r10_a_finite_move_that_drops_more_seeds_than_the_bound_is_illegal():
    # R10, 1.5a: a move that has sown more than the game's bound is never-ending, even one that would end;
    # every seed dropped since the move began counts.
    p = position_json.loads(LONG_ZANZIBAR)
    rec = bytearray()
    core.play_raw(p, 9 | core.RIGHT, rec)  # B7 (ring 9), R
    assert dropped(explain.steps(rec))[0] == 58
    at = core.Position(bytearray(p.d), core.Rules(core.ZANZIBAR, sow_bound=58))
    assert "B7R" in names(at)
    over = core.Position(bytearray(p.d), core.Rules(core.ZANZIBAR, sow_bound=57))
    assert "B7R" not in names(over)
    _, status = core.play_raw(over, 9 | core.RIGHT)
    assert status & 15 == core.END_INFINITE and status & core.BOUNDED
    assert reason(over, "B7R").startswith("1.5a:")


def test_r10_the_bound_is_an_option_recorded_with_the_game():
    rules = core.Rules(core.ZANZIBAR, sow_bound=500)
    assert rules.options() == {"sow_bound": 500}
    assert core.Rules(core.ZANZIBAR).options() == {}
    p = core.Position(bytearray(INF_TAKASA.d), rules)
    again = position_json.loads(position_json.dumps(p))
    assert again.rules.sow_bound == 500
    for bad in (-1, "many", 1.5, True):
        try:
            core.Rules(core.ZANZIBAR, sow_bound=bad)
        except core.InvalidPositionError as e:
            assert "sow_bound" in str(e)
        else:
            raise AssertionError("sow_bound=%r accepted" % (bad,))
    assert core.Rules(core.ZANZIBAR, relay_limit=1000000).options() == {}  # older stored options still load


def test_lost_house_with_seeds_is_an_ordinary_pit():
    p = position({"A": "0 0 0 0 8 0 2 0", "a": "3 0 0 0 6 0 0 0"}, store=(10, 10), house=(False, True), fill="b8")
    assert "5L*" in names(p)


def test_counts_are_what_a_board_shows_the_pits_then_the_stores():
    p = position_json.loads(SLOW_MALAWI)
    c = p.counts()
    assert c[:32] == [p.seeds(i) for i in range(32)] and c[32:] == [p.store(0), p.store(1)]
    assert sum(c) == 64
