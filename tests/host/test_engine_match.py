"""`bao match`, the baseline players and the Elo arithmetic."""

from __future__ import annotations

import math

import pytest
from bao import core, position_json
from bao_host.cli import main
from bao_host.engine import match, players


def test_elo_of_scores() -> None:
    assert match.elo_of(0.5) == 0
    assert round(match.elo_of(0.75)) == 191
    assert round(match.elo_of(0.25)) == -191
    assert match.elo_of(1.0) == math.inf and match.elo_of(0.0) == -math.inf
    r = match.MatchResult("a", "b", wins=15, losses=5)
    diff, low, high = r.elo()
    assert round(diff) == 191 and low < diff < high
    # Wilson's 95 % interval of the score 0.75 over 20 games: 0.5313 to 0.8881
    assert low == pytest.approx(match.elo_of(0.531295), abs=0.1)
    assert high == pytest.approx(match.elo_of(0.888140), abs=0.1)
    perfect = match.MatchResult("a", "b", wins=20)
    diff, low, high = perfect.elo()
    assert diff == math.inf and high == math.inf
    assert round(low) == round(match.elo_of(20 / (20 + 1.96 ** 2)))  # 20 of 20: at least +285 Elo
    assert "Elo +inf (95 % interval +287 to +inf)" in perfect.summary()
    assert "score 20/20 (100.0 %)" in perfect.summary()


def _position(rows: dict[str, list[int]], to_move: str = "S") -> core.Position:
    obj = {"ruleset": "malawi", "to_move": to_move, "store": {"S": 0, "N": 0}, "house": {"S": False, "N": False},
           "takasia": None, **rows}
    return position_json.from_dict(obj)


def test_greedy_takes_the_move_that_keeps_most_seeds_on_its_side() -> None:
    p = core.initial("malawi")
    for _ in range(6):
        moves = core.legal_moves(p)
        p = moves[len(moves) // 2][1]
    moves = core.legal_moves(p)
    side = p.to_move
    best = max(players.seeds_of(c, side) for _, c in moves)
    g = players.GreedyPlayer(seed=3)
    for _ in range(10):
        _, child = g.choose(p, moves)
        assert players.seeds_of(child, side) == best


def test_material_search_sees_a_reply() -> None:
    # depth 2: a move whose capture is answered by a bigger capture is avoided when a safe one exists
    p = core.initial("malawi")
    for _ in range(8):
        p = core.legal_moves(p)[0][1]
    moves = core.legal_moves(p)
    side = p.to_move
    chosen = players.MaterialSearchPlayer(2, seed=1).choose(p, moves)
    worst_reply = {m: min(players.material(cc, side) for _, cc in core.legal_moves(c)) if core.legal_moves(c)
                   else players.material(c, side) for m, c in moves}
    assert worst_reply[chosen[0]] == max(worst_reply.values())


def test_make_player_names() -> None:
    assert players.make_player("engine:250ms").name == "engine:250ms"
    assert players.make_player("engine:d3").name == "engine:d3"
    assert players.make_player("engine", movetime=500).name == "engine:500ms"
    assert players.make_player("material2").name == "material2"
    with pytest.raises(players.PlayerSpecError):
        players.make_player("stockfish")


def test_match_swaps_colours_and_varies_openings() -> None:
    a = players.EnginePlayer(depth=2, tt_bits=12)
    b = players.RandomPlayer(seed=2)
    r = match.run_match(a, b, games=4, seed=5, opening_plies=3)
    assert r.played == 4 and len(r.games) == 4
    assert [g.first for g in r.games] == [a.name, b.name, a.name, b.name]
    assert r.games[0].opening == r.games[1].opening and r.games[0].opening != r.games[2].opening
    assert r.wins + r.losses + r.draws == 4 and r.wins >= 3  # a depth-2 search against random moves


def test_bao_match_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "engine:d1", "random", "--games", "2", "--ruleset", "malawi"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("game 1: engine:d1 (South) vs random (North)")
    assert out[-1].startswith("engine:d1 vs random: 2 games, +")
    assert main(["match", "engine:d1", "chess"]) == 1
    assert "unknown player 'chess'" in capsys.readouterr().err
