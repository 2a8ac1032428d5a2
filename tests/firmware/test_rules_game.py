# The real game of Zanzibar, 17-10-94 (Donkers document), and perft counts from the start.
from bao import core, notation, position_json, query
from baotest import names, read, row


def _game():
    return notation.parse_transcript(read("games/zanzibar-1994.txt"))


def test_1994_game_replays_all_52_plies():
    t = _game()
    assert len(t.plies) == 52
    positions = notation.replay(t)
    assert len(positions) == 53
    last = positions[-1]
    assert row(last, "A") == [0, 0, 0, 0, 2, 0, 0, 0]
    assert names(last) == ["A5L*", "A5R*"]
    assert query.seed_total(last) == 64


def test_1994_game_notation_round_trips():
    # Every ply, formatted back from the legal move list, is written exactly as Donkers wrote it.
    t = _game()
    p = notation.replay(t)[0]
    for text in t.plies:
        m, child = notation.parse_move(p, text)
        assert notation.format_move(m, p.d[core.TO_MOVE]) == text, text
        p = child


def test_1994_game_house_rules():
    t = _game()
    positions = notation.replay(t)
    # 12: North 7R* "END IN THE HOUSE": a namua takasa stops in the owned house with 6+ seeds (2.5b(1))
    before = positions[23]
    m = notation.parse_move(before, "7R*")[0]
    steps = query.account(before, m)
    assert steps[-1][0] == core.STEP_END and steps[-1][2] == core.END_HOUSE
    assert steps[-1][1] == 16 + 4  # a5
    # 15: North 5R> plays the house (2.5b(2)); the house is then lost (2.5a)
    before = positions[29]
    assert before.owns_house(core.NORTH)
    assert "5R>" in names(before) and "5R" in names(before)
    after = positions[30]
    assert not after.owns_house(core.NORTH)


def test_start_position_r1():
    p = core.initial()
    assert position_json.to_dict(p) == {
        "ruleset": "zanzibar",
        "to_move": "S",
        "A": [0, 0, 0, 0, 6, 2, 2, 0],
        "B": [0] * 8,
        "a": [0, 0, 0, 0, 6, 2, 2, 0],
        "b": [0] * 8,
        "store": {"S": 22, "N": 22},
        "house": {"S": True, "N": True},
        "takasia": None,
    }
    assert names(p) == ["6L*", "6R*", "7L*", "7R*"]


def test_perft_from_the_start():
    p = core.initial()
    assert [query.perft(p, n) for n in range(1, 7)] == [4, 14, 38, 124, 405, 1432]


# The Malawi basic game's leaf counts from the start (M1: 2 seeds in every pit, South first). Depth 1 is
# 16 captures (M2): every sowing of two that ends on the front row lands in a full pit facing a full pit
# (A1R..A8L, 12 of them) and four from the back row's ends reach the front row (B1L B2L B7R B8R).
MALAWI_PERFT = [16, 108, 500, 1918, 6590, 23738]


def test_perft_malawi_basic_game():
    # All six depths: 0.4 s and under 64 KB of heap on the 32-bit MicroPython build (measured).
    p = core.initial("malawi")
    first = sorted(notation.format_move(m, core.SOUTH) for m, _ in core.legal_moves(p))
    assert first == sorted("A1R A2R A3L A3R A4L A4R A5L A5R A6L A6R A7L A8L B1L B2L B7R B8R".split())
    assert [query.perft(p, n) for n in range(1, 7)] == MALAWI_PERFT
    for _, child in core.legal_moves(p):
        assert query.seed_total(child) == 64


# The kuu games' leaf counts from their opening (M7; issue #12). Intermediate: four takata at first (A6,
# A7 either way; no capture, the kuu is barred, M12). Advanced: the placement's first plies are single
# drops into any of South's 16 pits (M22); deeper counts are in make bench (tools/bench_rules.py).
INTERMEDIATE_PERFT = [4, 14, 30, 84, 291, 996]


def test_m7_kuu_twos_leaves_no_capture_at_the_start():
    # M7: the first move is a takata, so the 2s may not face the other kuu (pit 4 faces a5) nor each other
    # (pit k faces pit 9 - k); every other pair is a layout the text allows, and none starts with a capture.
    allowed = 0
    for i in range(1, 9):
        for j in range(i + 1, 9):
            if i == 5 or j == 5:
                continue
            try:
                rules = core.Rules("malawi-intermediate", kuu_twos=[i, j])
            except core.InvalidPositionError as e:
                assert str(e).startswith("M7:") and (i == 4 or j == 4 or i + j == 9), (i, j)
                continue
            allowed += 1
            for m in core.legal_move_codes(core.initial("malawi-intermediate", rules)):
                assert m & core.TAKASA, (i, j)  # a takata: no capture at the start
    assert allowed == 12


def test_perft_malawi_intermediate_game():
    p = core.initial("malawi-intermediate")
    assert [query.perft(p, n) for n in range(1, 7)] == INTERMEDIATE_PERFT


def test_perft_malawi_advanced_placement():
    p = core.initial("malawi-advanced")
    assert [query.perft(p, n) for n in range(1, 4)] == [16, 256, 4096]


def test_1994_game_listed_with_accounts_in_one_pass():
    # legal_moves(p, True) plays each candidate once and keeps its account (4 bytes a step): the same
    # moves and positions as legal_moves(p), and accounts that read back as query.account's steps.
    from bao import explain

    for p in notation.replay(_game()):
        listed = core.legal_moves(p, True)
        assert [(m, c.d) for m, c in core.legal_moves(p)] == [(m, c.d) for m, c, _ in listed]
        for m, _, acc in listed:
            assert len(acc) % 4 == 0
            steps = explain.steps(acc)
            assert steps == query.account(p, m)
            assert steps[-1][0] == core.STEP_END  # every legal move's account ends with its end


class _RelayByRelay:
    """An account recorder with a flush, as baoboard.recogniser's: _sow's bytecode records into it alone, where
    a bytearray's account comes from the native kernel on MicroPython (bao.sowing._advance)."""

    def __init__(self):
        self.b = bytearray()
        self.append = self.b.append

    def __setitem__(self, key, value):  # rec[:] = b"" (M4: played again from its start)
        self.b[:] = b""

    def flush(self):
        pass


def test_sowing_kernel_plays_as_the_bytecode_does():
    # On MicroPython the same moves through both engines: children, statuses and accounts equal, in random
    # games of every ruleset
    # games (captures, relays, houses, takasia, sleeping and never-ending moves included), and with a bound
    # of 30 seeds, which many moves pass (R10, M4)
    x = 1994
    compared = 0
    for ruleset in core.RULESETS:
        p = core.initial(ruleset)
        small = core.Rules(ruleset, sow_bound=30)
        for _ in range(60):
            moves = core.legal_move_codes(p)
            if not moves:
                break
            for m in moves:
                for q in (p, core.Position(p.d, small)):
                    fast = bytearray()
                    child, status = core.play_raw(q, m & core.IDENTITY, fast)
                    slow = _RelayByRelay()
                    child2, status2 = core.play_raw(q, m & core.IDENTITY, slow)
                    assert (child.d, status, bytes(fast)) == (child2.d, status2, bytes(slow.b)), (ruleset, m)
                    compared += 1
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            p = core.play(p, moves[(x >> 8) % len(moves)])
    assert compared > 500
