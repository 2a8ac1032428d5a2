# The search engine (bao.engine): forced wins found, legal answers under every limit, stopping, bounded
# memory. Runs under pytest and under the MicroPython unix ports at a Pico's heap (make test-mp).
import gc

from bao import core, engine, evaluate, position_json

# Positions found by search over random games (both rulesets) and checked below by brute force with the
# rules core alone, not with the engine: the winning moves are the only ones among several legal moves.
_ROWS = ("A", "B", "a", "b")


def _pos(ruleset, to_move, a, b, a2, b2, store=(0, 0)):
    obj = {
        "ruleset": ruleset,
        "to_move": to_move,
        "A": a,
        "B": b,
        "a": a2,
        "b": b2,
        "store": {"S": store[0], "N": store[1]},
        "house": {"S": False, "N": False},
        "takasia": None,
    }
    return position_json.from_dict(obj)


def _win_in_one():
    """(position, the winning moves' texts): a capture that empties the opponent's front row (1.2)."""
    return [
        (
            _pos(
                "zanzibar",
                "S",
                [1, 0, 6, 0, 0, 2, 2, 1],
                [2, 2, 2, 2, 2, 4, 0, 1],
                [1, 2, 1, 0, 1, 2, 12, 1],
                [0, 1, 1, 0, 0, 0, 0, 1],
                (7, 7),
            ),
            ["3R"],
        ),
        (
            _pos(
                "zanzibar",
                "N",
                [4, 1, 1, 2, 3, 2, 4, 1],
                [2, 1, 4, 1, 1, 2, 1, 0],
                [0, 3, 4, 0, 1, 1, 0, 4],
                [1, 7, 1, 2, 5, 2, 2, 1],
            ),
            ["b7R"],
        ),
        (
            _pos(
                "malawi",
                "S",
                [0, 1, 4, 7, 0, 6, 1, 2],
                [0, 1, 0, 5, 1, 2, 4, 0],
                [2, 2, 2, 3, 3, 1, 3, 1],
                [0, 1, 3, 3, 0, 1, 3, 2],
            ),
            ["B4R"],
        ),
    ]


def _win_in_three():
    """(position, the moves after which every reply leaves a winning move): forced two-move wins."""
    return [
        (
            _pos(
                "zanzibar",
                "S",
                [0, 5, 0, 0, 3, 0, 2, 0],
                [1, 2, 5, 2, 2, 0, 3, 2],
                [1, 4, 2, 3, 0, 1, 3, 1],
                [1, 2, 3, 0, 7, 0, 5, 4],
            ),
            ["A2R"],
        ),
        (
            _pos(
                "zanzibar",
                "S",
                [1, 8, 2, 4, 3, 6, 0, 0],
                [0, 3, 0, 3, 3, 1, 4, 3],
                [0, 3, 1, 1, 0, 0, 0, 0],
                [0, 0, 4, 1, 8, 1, 0, 4],
            ),
            ["A3R"],
        ),
        (
            _pos(
                "malawi",
                "S",
                [2, 4, 1, 10, 3, 1, 0, 2],
                [0, 6, 6, 0, 1, 6, 1, 0],
                [3, 0, 1, 1, 1, 1, 0, 0],
                [4, 0, 3, 0, 3, 3, 1, 0],
            ),
            ["B2L"],
        ),
    ]


def _won_by(p, side):
    return core.outcome(p) == side


def _winning_now(p):
    side = p.d[core.TO_MOVE]
    return [m for m, c in core.legal_moves(p) if _won_by(c, side)]


def test_win_in_one_positions_are_what_they_say():
    for p, want in _win_in_one():
        side = p.d[core.TO_MOVE]
        wins = [core.format_move(m, side) for m in _winning_now(p)]
        assert wins == want, wins
        for m, c in core.legal_moves(p):
            if core.format_move(m, side) in want:
                assert c.d[core.WINNER] == side  # won half-way through the capture: the front row emptied
        assert len(core.legal_moves(p)) > len(want)


def test_engine_finds_the_capture_that_empties_the_front_row():
    e = engine.Engine(tt_bits=8)
    for p, want in _win_in_one():
        e.clear()
        r = e.search(p, depth=3)
        side = p.d[core.TO_MOVE]
        assert core.format_move(r.move, side) in want
        assert r.mate == 1
        assert r.score == engine.MATE - 1


def test_engine_finds_forced_two_move_wins():
    e = engine.Engine(tt_bits=9)  # one table, allocated first: a fragmented Pico heap has no 4 KB piece later
    for p, want in _win_in_three():
        side = p.d[core.TO_MOVE]
        assert not _winning_now(p)  # no win at once: the engine must see three plies ahead
        e.clear()
        r = e.search(p, depth=5)
        text = core.format_move(r.move, side)
        assert text in want, text
        assert r.mate == 3, r.score
        # checked with the rules alone: whatever the reply, a winning move is there
        child = core.play(p, r.move)
        for _, reply in core.legal_moves(child):
            assert _won_by(reply, side) or _winning_now(reply)


class _Lcg:
    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _random_positions(count, seed):
    rnd = _Lcg(seed)
    out = []
    for ruleset in (core.ZANZIBAR, core.MALAWI):
        p = core.initial(ruleset)
        while len(out) < count:
            moves = core.legal_move_codes(p)
            if not moves or core.outcome(p) is not None:
                p = core.initial(ruleset)
                continue
            if rnd.below(3) == 0:
                out.append(p)
            p = core.play(p, moves[rnd.below(len(moves))])
        count *= 2
    return out


def test_answers_are_legal_under_every_limit():
    e = engine.Engine(tt_bits=6)
    for i, p in enumerate(_random_positions(6, 7)):
        legal = core.legal_move_codes(p)
        for limits in ({"nodes": 40 + i}, {"depth": 1}, {"depth": 2}):
            r = e.search(p, **limits)
            assert r.move in legal, (limits, r.move, legal)
            assert r.pv[0] == r.move


def test_should_stop_ends_the_search_with_a_legal_move():
    p = core.initial()
    calls = [0]

    def should_stop():
        calls[0] += 1
        return calls[0] >= 3

    e = engine.Engine(tt_bits=8, check_every=16)
    r = e.search(p, should_stop=should_stop)
    assert r.move in core.legal_move_codes(p)
    assert calls[0] == 3
    assert r.nodes <= 3 * 16 + 8  # stopped at the third check: nodes past it are the root's own count


def test_stopped_before_depth_one_still_answers_a_move():
    p = core.initial()
    e = engine.Engine(tt_bits=8, check_every=1)
    r = e.search(p, should_stop=lambda: True)
    assert r.depth == 0
    assert r.move in core.legal_move_codes(p)


def test_movetime_follows_the_clock_it_is_given():
    now = [0]

    def clock():  # a simulated clock: 1 ms passes each time the engine looks
        now[0] += 1
        return now[0]

    p = core.initial()
    e = engine.Engine(tt_bits=8, check_every=8, clock=clock)
    r = e.search(p, movetime=30)
    assert r.move in core.legal_move_codes(p)
    assert 15 <= r.time_ms <= 40
    assert r.nodes <= 40 * 8 + 8


def test_node_limit():
    e = engine.Engine(tt_bits=8, check_every=16)
    r = e.search(core.initial(), nodes=300)
    assert 300 <= r.nodes <= 300 + 16 + 8


def test_finished_game_has_no_move():
    p, _ = _win_in_one()[0]
    m = _winning_now(p)[0]
    child = core.play(p, m)
    r = engine.Engine(tt_bits=4).search(child, depth=3)
    assert r.move is None
    assert r.score == -engine.MATE  # the side to move has lost, now


def test_memory_is_fixed_by_the_table_size():
    # the table is allocated once; searching keeps nothing that grows with the nodes searched
    e = engine.Engine(tt_bits=7)
    assert len(e._tt_key) == len(e._tt_val) == 128
    p = _random_positions(1, 3)[0]
    e.search(p, nodes=300)
    if hasattr(gc, "mem_free"):  # MicroPython: the live heap after a search does not grow with more
        gc.collect()
        free = gc.mem_free()
        e.search(p, nodes=3000)
        gc.collect()
        assert gc.mem_free() >= free - 512, (free, gc.mem_free())
    assert len(e._tt_key) == len(e._tt_val) == 128


def _mirror(p):
    """The same position with the sides' roles swapped."""
    q = p.copy()
    d, s = q.d, p.d
    for i in range(16):
        d[i], d[16 + i] = s[16 + i], s[i]
    d[core.STORE], d[core.STORE + 1] = s[core.STORE + 1], s[core.STORE]
    h = s[core.HOUSE]
    d[core.HOUSE] = ((h & 1) << 1) | (h >> 1)
    d[core.TO_MOVE] = s[core.TO_MOVE] ^ 1
    return q


def test_evaluation_is_the_same_for_either_colour():
    for p in _random_positions(8, 11):
        w = engine.Engine(tt_bits=2).weights
        assert evaluate.evaluate(p.d, w) == evaluate.evaluate(_mirror(p).d, w)
        f = evaluate.features(p.d)
        assert len(f) == evaluate.COUNT + 1 and f[evaluate.COUNT] in (0, 1)


def test_evaluation_counts_material_in_centiseeds():
    # South (to move) holds 34 seeds, North 30: the material term alone (weights zero elsewhere) gives
    # 4 seeds = 400 centiseeds
    w = tuple([100] + [0] * (evaluate.COUNT - 1)) * 2
    p = _pos("malawi", "S", [2] * 8, [3, 2, 2, 2, 2, 2, 2, 3], [2] * 8, [2, 2, 2, 2, 2, 2, 2, 0])
    assert evaluate.evaluate(p.d, w) == 400


def _minimax(p, depth, ply, w):
    """A plain negamax over every move, the engine's evaluation at the horizon: what alpha-beta, the
    transposition table and the move ordering must not change."""
    d = p.d
    if d[core.WINNER] != core.NONE:
        return engine.MATE - ply if d[core.WINNER] == d[core.TO_MOVE] else -engine.MATE + ply
    if depth == 0:
        return evaluate.evaluate(d, w)
    moves = core.legal_moves(p)
    if not moves:
        return -engine.MATE + ply
    return max(-_minimax(c, depth - 1, ply + 1, w) for _, c in moves)


def test_pruning_keeps_the_minimax_score():
    e = engine.Engine(tt_bits=9, qdepth=0)  # no quiescence: the horizon is the evaluation itself
    for p in _random_positions(3, 5)[:5]:
        for depth in (1, 2, 3):
            e.clear()
            r = e.search(p, depth=depth)
            assert r.score == _minimax(p, depth, 0, e.weights), (depth, position_json.dumps(p))
            # and the move it answers is worth that score
            assert -_minimax(core.play(p, r.move), depth - 1, 1, e.weights) == r.score
