# Hand-made positions for the Malawi intermediate and advanced games (rulings M5-M25); each test names
# its ruling. Pits: A South front, B South back, a North front, b North back, pit 1..8 left to right.
from bao import core, explain, notation, position_json, query
from bao import kuu as kuu_state
from bao.kuu import stage
from baotest import names, play, position, raises, reason, row, steps_of

INT = "malawi-intermediate"
ADV = "malawi-advanced"


def kuu(rows, to_move="S", store=(10, 10), house=(True, True), fill="b8", ruleset=INT, **fields):
    """A kuu-game position; `fields` adds JSON keys (must_capture, placing) to what baotest builds."""
    p = position(rows, to_move, store, house, ruleset, None, fill)
    if not fields:
        return p
    obj = position_json.to_dict(p, False)
    obj.update(fields)
    return position_json.from_dict(obj)


def test_m5_m6_m7_the_opening():
    for ruleset in (INT, ADV):
        p = core.initial(ruleset)
        assert p.rules.ruleset == ruleset and p.rules.kuu
        assert row(p, "A") == [0, 0, 0, 0, 8, 2, 2, 0] and row(p, "a") == [0, 0, 0, 0, 8, 2, 2, 0]
        assert row(p, "B") == [0] * 8 and row(p, "b") == [0] * 8
        assert p.store(core.SOUTH) == p.store(core.NORTH) == 20
        assert p.owns_house(core.SOUTH) and p.owns_house(core.NORTH)  # M5: "house" is the kuu's status
        assert query.seed_total(p) == 64 and p.to_move == core.SOUTH
    # M6: the kuus do not face each other: A5 faces a4 (G3), empty at the start, so no capture (M7).
    assert names(core.initial(INT)) == ["6L*", "6R*", "7L*", "7R*"]
    # M7: the first player by lot, and the pits of the two 2s as an option (kuu_twos)
    assert core.initial(INT, first=core.NORTH).to_move == core.NORTH
    rules = core.Rules(INT, kuu_twos=[3, 2])
    q = core.initial(INT, rules)
    assert row(q, "A") == [0, 2, 2, 0, 8, 0, 0, 0]
    assert rules.options() == {"kuu_twos": [2, 3]}
    assert position_json.loads(position_json.dumps(q)).rules == rules
    err = raises(core.InvalidPositionError, lambda: core.Rules(INT, kuu_twos=[5, 6]))
    assert "kuu_twos" in err


def test_m8_the_stage_follows_the_movers_store():
    # North's last nemo (South has none left): still a first-stage move with its privileges (M8).
    p = kuu({"A": "0 0 1 0 3 2 0 0", "a": "0 0 0 0 4 0 0 0"}, to_move="N", store=(0, 1))
    assert stage(p) == "nemo"
    after = play(p, "5L*")  # M13: North's lone kuu is taxed, a first-stage move
    assert stage(after) == "mtaji" and after.store(core.NORTH) == 0
    assert stage(position_json.loads(position_json.dumps(after))) == "mtaji"


def test_m9_the_nemo_goes_into_an_occupied_front_pit():
    p = kuu({"A": "0 0 0 0 6 3 0 0", "a": "2 0 0 0 5 0 0 0"})
    assert names(p) == ["6L*", "6R*"]
    assert reason(p, "3L*").startswith("M9:")  # empty
    assert reason(p, "B3L*").startswith("M9:")  # back row
    after = play(p, "6R*")  # the nemo joins A6's three, all four sown: A7 A8 B8 B7
    assert row(after, "A") == [0, 0, 0, 0, 6, 0, 1, 1] and row(after, "B")[6:] == [1, 1]
    assert after.store(core.SOUTH) == 9
    assert steps_of(p, "6R*", core.STEP_STORE) == [(core.STEP_STORE, 5, "kuu")]


def test_m10_the_nemo_must_capture_and_the_kichwa_is_chosen():
    # A3 faces a6: the nemo must go there and capture; from pit 3 either kichwa may be chosen.
    p = kuu({"A": "0 0 2 0 6 0 0 0", "a": "0 0 0 0 5 3 0 0"})
    assert names(p) == ["3L", "3R"]
    assert reason(p, "5L*").startswith("M10:")
    # 3L: A3 = 3, a6's 3 seeds sown in from A1: A1 A2 A3, ending in A3 (4, facing the emptied a6): relay
    # A4 A5 A6 A7, ending empty.
    after = play(p, "3L")
    assert row(after, "A") == [1, 1, 0, 1, 7, 1, 1, 0] and row(after, "a")[5] == 0
    assert explain.describe(query.account(p, notation.parse_move(p, "3L")[0]))[1].endswith("(M10)")
    # At pits 1, 2, 7, 8 the kichwa is the nearest one: A2 facing a7 is written "2", its L forced. (a7's
    # two go in at A1 and A2; A2's three are relayed to A3 A4 A5, ending in the kuu: M15's choice, "2>".)
    q = kuu({"A": "0 1 0 0 6 0 0 0", "a": "0 0 0 0 5 0 2 0"})
    assert names(q) == ["2", "2>"]
    # The kuu may be the capturing pit (M10): A5 faces a4.
    k = kuu({"A": "0 0 0 0 6 0 0 0", "a": "0 0 0 2 5 0 0 0"})
    assert names(k) == ["5L", "5R"]


def test_m11_no_direct_capture_of_the_kuu_while_ones_own_kuu_is_threatened():
    # A4 faces North's kuu a5; South's kuu A5 faces a4, which holds a seed: A4 may not capture a5 first.
    rows = {"A": "0 0 0 2 6 0 0 0", "a": "0 0 0 1 7 0 0 0"}
    p = kuu(rows)
    assert names(p) == ["5L", "5R"]  # the ban leaves the kuu's own capture
    assert reason(p, "4L").startswith("M11:")
    # Not banned once South's kuu has lost its status, nor when a4 is empty.
    assert "4L" in names(kuu(rows, house=(False, True)))
    assert "4L" in names(kuu({"A": "0 0 0 2 6 0 0 0", "a": "0 0 0 0 8 0 0 0"}))


def test_m12_first_stage_takata_not_from_the_kuu_singletons_last_and_sleep_in_the_kuu():
    p = kuu({"A": "0 0 1 0 3 2 0 0", "a": "0 0 0 0 4 0 0 2"})
    assert names(p) == ["6L*", "6R*"]
    assert reason(p, "5L*").startswith("M12:")  # the kuu with status
    assert reason(p, "3L*").startswith("M12:")  # a singleton while A6 holds 2
    # Only singletons besides the kuu: they may be used (the kuu does not count).
    assert names(kuu({"A": "0 0 1 0 5 1 0 0", "a": "0 0 0 0 4 0 0 2"})) == ["3L*", "3R*", "6L*", "6R*"]
    # A lap ending in the kuu with status sleeps there, whatever it holds: A7 + nemo = 2 sown A6 A5.
    s = kuu({"A": "0 0 0 0 3 0 1 0", "a": "0 0 0 0 4 0 0 2"})
    after = play(s, "7L*")
    assert row(after, "A") == [0, 0, 0, 0, 4, 1, 0, 0] and after.owns_house(core.SOUTH)
    assert steps_of(s, "7L*", core.STEP_END) == [(core.STEP_END, 4, core.END_HOUSE, "kuu")]
    # M3 in the first stage: a lone kichwa (the kuu ordinary) sown back across the back row loses at once.
    m3 = kuu({"A": "2 0 0 0 0 0 0 0", "a": "0 0 0 0 5 0 0 0"}, house=(False, True))
    assert names(m3) == ["1L*", "1R*"]
    assert play(m3, "1L*").winner == core.NORTH


def test_m13_the_lone_kuu_is_taxed_two_seeds_whatever_it_holds():
    p = kuu({"A": "0 0 0 0 5 0 0 0", "a": "0 0 0 0 5 0 0 0"})
    assert names(p) == ["5L*", "5R*"]
    after = play(p, "5L*")  # 5 + nemo = 6, two out, sown A4 A3
    assert row(after, "A") == [0, 0, 1, 1, 4, 0, 0, 0] and after.owns_house(core.SOUTH)
    assert steps_of(p, "5L*", core.STEP_TAX) == [(core.STEP_TAX, 4, 2, "kuu")]
    # No six-or-more threshold: a kuu of one is taxed too, and that tax empties it (M16).
    one = kuu({"A": "0 0 0 0 1 0 0 0", "a": "0 0 0 0 5 0 0 0"})
    emptied = play(one, "5R*")
    assert row(emptied, "A") == [0, 0, 0, 0, 0, 1, 1, 0] and not emptied.owns_house(core.SOUTH)


def test_m14_a_lone_kuu_of_exactly_eight_is_sown_whole():
    p = kuu({"A": "0 0 0 0 8 0 0 0", "a": "0 0 0 0 5 0 0 0"})
    after = play(p, "5L*")  # nine seeds: A4 A3 A2 A1 B1 B2 B3 B4 B5
    assert row(after, "A") == [1, 1, 1, 1, 0, 0, 0, 0] and row(after, "B") == [1, 1, 1, 1, 1, 0, 0, 0]
    assert not after.owns_house(core.SOUTH)  # M16: emptied
    assert steps_of(p, "5L*", core.STEP_LIFT) == [(core.STEP_LIFT, 4, 9, "kuu")]
    # With seven (or nine) it is the tax of M13.
    assert steps_of(kuu({"A": "0 0 0 0 7 0 0 0", "a": "0 0 0 0 5 0 0 0"}), "5L*", core.STEP_TAX)


def test_m15_a_capture_move_ending_in_the_kuu_may_sleep_or_relay():
    # 8: nemo into A8 (2), a1's 4 seeds sown in from A8 towards pit 1: A8 A7 A6 A5, the kuu (3, facing an
    # empty a4): the player sleeps there or relays the kuu, whatever it holds (no six-or-more).
    p = kuu({"A": "0 0 0 0 3 0 0 1", "a": "4 0 0 0 6 0 0 0"})
    assert names(p) == ["8", "8>"]
    sleep = play(p, "8")
    assert row(sleep, "A") == [0, 0, 0, 0, 4, 1, 1, 3] and sleep.owns_house(core.SOUTH)
    relay = play(p, "8>")  # the kuu's 4 sown on towards pit 1: A4 A3 A2 A1
    assert row(relay, "A") == [1, 1, 1, 1, 0, 1, 1, 3] and not relay.owns_house(core.SOUTH)  # M16
    words = explain.describe(query.account(p, notation.parse_move(p, "8>")[0]))
    assert "relay the kuu A5: its seeds are sown on and it loses its status (M15, M16)" in words
    # A facing pit that holds seeds is captured instead (the basic rules): no choice is offered.
    q = kuu({"A": "0 0 0 0 3 0 0 1", "a": "4 0 0 1 6 0 0 0"})
    assert "8>" not in names(q)
    assert reason(p, "5L>").startswith("M1")  # a kuu relay only ends a capture move's sowing


def test_m16_an_emptied_kuu_is_an_ordinary_pit():
    # South's kuu is not threatened (a4 empty): A4 may capture North's kuu, which loses its status.
    p = kuu({"A": "0 0 0 2 3 0 0 0", "a": "0 0 0 0 5 0 0 0"})
    after = play(p, "4L")
    assert row(after, "a")[4] == 0 and not after.owns_house(core.NORTH)
    # Ordinary: a takata may start from it, and it counts in the singleton rule of M12.
    rows = {"A": "0 0 1 0 3 0 0 0", "a": "0 0 0 0 5 0 0 0"}
    assert names(kuu(rows, house=(False, True))) == ["5L*", "5R*"]
    assert names(kuu(rows)) == ["3L*", "3R*"]
    assert raises(core.InvalidPositionError, kuu, {"A": "0 0 0 0 0 2 0 0"}, "S", (10, 10), (True, True))


def test_m17_the_first_second_stage_takata_starts_from_the_kuu():
    p = kuu({"A": "0 0 2 0 4 0 0 0", "a": "3 0 0 0 0 0 0 0"}, store=(0, 0), house=(True, False))
    assert stage(p) == "mtaji"
    assert names(p) == ["A5L*", "A5R*"]  # either way: the player's choice
    assert reason(p, "A3L*").startswith("M17:")
    assert not play(p, "A5R*").owns_house(core.SOUTH)
    # A kuu of one seed cannot be lifted: the rule lapses, and the takata ends the status.
    one = kuu({"A": "0 0 2 0 1 0 0 0", "a": "3 0 0 0 0 0 0 0"}, store=(0, 0), house=(True, False))
    assert names(one) == ["A3L*", "A3R*"]
    assert not play(one, "A3L*").owns_house(core.SOUTH)
    # A capture before it keeps the status: A3R ends in A5 facing a4, a4's seed sown in at A1.
    cap = kuu({"A": "0 0 2 0 4 0 0 0", "a": "2 0 0 1 0 0 0 0"}, store=(0, 0), house=(True, False))
    assert names(cap) == ["A3R"]
    after = play(cap, "A3R")
    assert row(after, "A") == [1, 0, 0, 1, 5, 0, 0, 0] and after.owns_house(core.SOUTH)


# M18: South's A4R* leaves North without a capture, and South's only capture (B8R, ending in A7) takes
# a2 first: a2 is threatened. B3 and b4 hold seeds that can never start a capture (more than 15).
THREAT = {"A": "0 0 0 3 0 0 0 0", "B": "0 0 20 0 0 0 0 2", "a": "0 2 0 0 2 0 2 0", "b": "0 0 0 33 0 0 0 0"}


def test_m18_a_takata_that_leaves_one_target_threatens_it():
    p = kuu(THREAT, store=(0, 0), house=(False, False), fill=None)
    assert names(p) == ["A4L*", "A4R**"]
    after = play(p, "A4R**")
    assert after.takasia == 16 + 1  # a2
    assert position_json.to_dict(after)["takasia"] == "a2"
    assert reason(p, "A4L**").startswith("M18:")  # A4L threatens nothing: one '*'
    # North may not start from a2 while a5 and a7 can start, and a sowing ending in a2 ends the move:
    # a7L* sows a6 a5, relays a5's 3 to a4 a3 a2 and stops there (otherwise it would relay a2).
    assert names(after) == ["a5L*", "a5R*", "a7L*", "a7R*"]
    assert reason(after, "a2R*").startswith("M18:")
    assert steps_of(after, "a7L*", core.STEP_END) == [(core.STEP_END, 16 + 1, core.END_TAKASIA, "kuu")]


def test_m18_the_threatened_pit_may_start_when_it_is_the_only_start():
    rows = dict(THREAT, a="0 2 0 0 0 0 0 0", b="0 0 0 37 0 0 0 0")
    after = play(kuu(rows, store=(0, 0), house=(False, False), fill=None), "A4R**")
    assert names(after) == ["a2L*", "a2R*"]  # the only front start (threat_start "front", the ruling)
    assert not after.rules.kuu.threat_any  # threat_start "front"
    # M19 lapses: a2 was emptied by North's own move.
    assert kuu_state.must_capture(play(after, "a2R*")) is None
    # Option threat_start "any": a2 only if no pit of either row could start; b4 can.
    anyrow = position(rows, "S", (0, 0), (False, False), INT, None, None, threat_start="any")
    assert names(play(anyrow, "A4R**")) == ["b4L*", "b4R*"]


def test_m19_the_threatened_capture_must_be_made():
    after = play(play(kuu(THREAT, store=(0, 0), house=(False, False), fill=None), "A4R**"), "a7L*")
    assert kuu_state.must_capture(after) == 16 + 1 and position_json.to_dict(after)["must_capture"] == "a2"
    assert names(after) == ["B8R"]
    # Even when the threatened side's move opened another capture (A1R takes a6 first): only a2's.
    rows = {"A": "2 0 1 0 1 1 1 0", "B": "0 0 20 0 0 0 0 2", "a": "0 3 0 1 0 2 0 0"}
    free = kuu(rows, store=(0, 0), house=(False, False))
    assert names(free) == ["A1R", "B8R"]
    forced = kuu(rows, store=(0, 0), house=(False, False), must_capture="a2")
    assert names(forced) == ["B8R"]
    assert reason(forced, "A1R").startswith("M19:")
    assert kuu_state.must_capture(play(forced, "B8R")) is None
    assert names(kuu(rows, store=(0, 0), house=(False, False), must_capture="a6")) == ["A1R"]
    err = raises(core.InvalidPositionError, lambda: kuu(rows, store=(0, 0), house=(False, False), must_capture="a4"))
    assert "M19" in err  # a4 holds a seed, but no capture takes it first


def test_m20_m22_the_placement_is_one_ply_per_seed():
    p = core.initial(ADV)
    assert stage(p) == "placement" and len(core.legal_moves(p)) == 16
    assert reason(p, "6L*").startswith("M22:")
    assert reason(p, "@a4").startswith("M20:")  # his own 16 pits
    first = play(p, "@A5")  # lifts A6 and A7, takes a nemo: it goes into the kuu
    assert row(first, "A") == [0, 0, 0, 0, 9, 0, 0, 0] and first.store(core.SOUTH) == 19
    assert kuu_state.placing(first) == 4 and first.to_move == core.SOUTH
    assert position_json.to_dict(first)["placing"] == 4
    assert position_json.loads(position_json.dumps(first)) == first
    q = first
    for text in ("@B1", "@B1", "@A1", "@A8"):
        q = play(q, text)
    assert q.to_move == core.NORTH and kuu_state.placing(q) == 0 and row(q, "B")[0] == 2
    assert query.seed_total(q) == 64


def test_m21_the_second_player_may_take_a_pit_facing_his_own_seeds():
    # South puts all five in A3, which faces a6 (a 2-seed pit of North): North may take them first.
    p = core.initial(ADV)
    for _ in range(5):
        p = play(p, "@A3")
    assert row(p, "A")[2] == 5 and len(core.legal_moves(p)) == 32  # 16 drops, and 16 after taking A3
    assert reason(p, "xA4@a1").startswith("M21:")  # A4 is empty
    taken = play(p, "xA3@a1")
    assert row(taken, "A")[2] == 0 and kuu_state.placing(taken) == 4 + 5
    assert reason(taken, "xA3@a1").startswith("M21:")  # only before the first seed is placed
    # The option placement_capture switches the take off.
    off = core.initial(ADV, core.Rules(ADV, placement_capture=False))
    for _ in range(5):
        off = play(off, "@A3")
    assert len(core.legal_moves(off)) == 16


def test_m22_a_placement_token_in_a_transcript():
    text = "ruleset: malawi-advanced\n1: @A4@A3@A3@B1@A5 xA3@a6@a6@a6@a2@b8@b8@b8;\n2: 4L;\n"
    t = notation.parse_transcript(text)
    assert t.plies[:6] == ["@A4", "@A3", "@A3", "@B1", "@A5", "xA3@a6"] and len(t.plies) == 13
    positions = notation.replay(t)
    placed = positions[12]
    assert row(placed, "A") == [0, 0, 0, 1, 9, 0, 0, 0] and row(placed, "B")[0] == 1
    assert row(placed, "a") == [0, 1, 0, 0, 8, 3, 0, 0] and row(placed, "b")[7] == 3
    assert placed.store(core.SOUTH) == placed.store(core.NORTH) == 19 and stage(placed) == "nemo"
    assert notation.format_transcript(t.headers, t.plies) == text
    assert query.perft(core.initial(ADV), 2) == 256


def test_m23_the_front_row_emptied_by_a_nemo_capture_ends_the_game():
    # North's only front seeds are in a4, facing South's kuu: the kuu's capture empties North's front row.
    p = kuu({"A": "0 0 0 0 3 0 0 0", "a": "0 0 0 2 0 0 0 0"}, house=(True, False))
    after = play(p, "5L")
    assert after.winner == core.SOUTH and after.in_hand == 2
    # Second stage: a side with only singletons has no move and has lost.
    single = kuu({"A": "1 1 0 0 1 0 0 0", "a": "0 0 0 0 3 0 0 0"}, store=(0, 0), house=(False, False))
    assert names(single) == [] and core.outcome(single) == core.NORTH


def test_m24_a_never_ending_move_sleeps_in_both_stages():
    # A Zanzibar position with a never-ending takasa (tests/firmware/test_rules_positions.py INF_TAKASA),
    # played in the kuu game's second stage: the move is legal and sleeps (M4), as in the basic game.
    rows = {"A": "4 2 3 0 5 3 4 2", "B": "3 2 3 0 1 2 4 3", "a": "0 1 0 0 0 0 0 0", "b": "4 1 6 1 3 3 2 2"}
    p = kuu(rows, store=(0, 0), house=(False, False), fill=None)
    assert "A6L*" in names(p)
    child, status = core.play_raw(p, 5)
    assert status & 15 == core.END_SLEEP and query.seed_total(child) == 64
