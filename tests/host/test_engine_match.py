"""`bao match`, the baseline players and the Elo arithmetic."""

from __future__ import annotations

import math
from pathlib import Path

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
    assert round(low) == round(match.elo_of(20 / (20 + 1.96**2)))  # 20 of 20: at least +285 Elo
    assert "Elo +inf (95 % interval +287 to +inf)" in perfect.summary()
    assert "score 20/20 (100.0 %)" in perfect.summary()


def _position(rows: dict[str, list[int]], to_move: str = "S") -> core.Position:
    obj = {
        "ruleset": "malawi",
        "to_move": to_move,
        "store": {"S": 0, "N": 0},
        "house": {"S": False, "N": False},
        "takasia": None,
        **rows,
    }
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
    worst_reply = {
        m: min(players.material(cc, side) for _, cc in core.legal_moves(c))
        if core.legal_moves(c)
        else players.material(c, side)
        for m, c in moves
    }
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


def test_a_recorded_match_continues_where_it_stopped_and_parts_add_up(tmp_path: Path) -> None:
    def pair() -> tuple[players.Player, players.Player]:
        return players.EnginePlayer(depth=1, tt_bits=10), players.GreedyPlayer(seed=7)

    whole = match.run_match(*pair(), games=6, seed=3)
    record = tmp_path / "m.jsonl"
    first = match.run_match(*pair(), games=6, seed=3, record=record, part=(1, 2))  # pair 1 only: games 2 and 3
    assert [g.game for g in first.games] == [2, 3]
    lines = record.read_text().splitlines()
    assert len(lines) == 2
    record.write_text(lines[0] + "\n" + lines[1][:30])  # killed while writing game 3
    rest = match.run_match(*pair(), games=6, seed=3, record=record)
    assert [g.game for g in rest.games] == [0, 1, 2, 3, 4, 5]
    assert len(record.read_text().splitlines()) == 6
    # each game depends on the seed and its number only: the same games as one uninterrupted run
    assert [(g.first, g.winner, g.plies, g.opening) for g in rest.games] == [
        (g.first, g.winner, g.plies, g.opening) for g in whole.games
    ]
    again = match.run_match(*pair(), games=6, seed=3, record=record)  # nothing left to play
    assert (again.wins, again.losses, again.draws) == (rest.wins, rest.losses, rest.draws)
    with pytest.raises(match.MatchRecordError, match="another match"):
        match.run_match(*pair(), games=6, seed=4, record=record)
    a, b = pair()
    assert isinstance(a, players.EnginePlayer)
    a.engine.weights = tuple(2 * w for w in a.engine.weights)  # the same names, other weights: another match
    with pytest.raises(match.MatchRecordError, match="another match"):
        match.run_match(a, b, games=6, seed=3, record=record)


def test_an_engine_plays_with_the_weights_of_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bao.engine_weights import WEIGHTS

    doubled = tuple(2 * w for w in WEIGHTS)
    f = tmp_path / "tuned.py"
    f.write_text(f"# a candidate\nWEIGHTS = {doubled!r}\n")
    p = players.make_player(f"engine:d2@{f}")
    assert isinstance(p, players.EnginePlayer)
    assert p.engine.weights == doubled and p.name == "engine:d2@tuned"
    f.write_text("WEIGHTS = (1, 2)\n")
    with pytest.raises(players.PlayerSpecError, match="24 integers"):
        players.make_player(f"engine:d2@{f}")
    with pytest.raises(players.PlayerSpecError, match="only an engine"):
        players.make_player(f"greedy@{f}")
    assert main(["match", "engine:d1", f"engine:d1@{tmp_path / 'missing.py'}"]) == 1
    assert "cannot read the weights" in capsys.readouterr().err


def test_bao_match_record_and_part_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "r.jsonl"
    assert main(["match", "engine:d1", "random", "--games", "4", "--record", str(record), "--part", "2/2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [s.split(":")[0] for s in out[:-1]] == ["game 3", "game 4"]
    assert out[-1].startswith("engine:d1 vs random: 2 games")
    assert main(["match", "engine:d1", "random", "--games", "4", "--record", str(record), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("engine:d1 vs random: 4 games")
    assert main(["match", "engine:d1", "random", "--part", "3/2"]) == 1
    assert "--part takes K/N" in capsys.readouterr().err
    record.write_text("not json\n")
    assert main(["match", "engine:d1", "random", "--games", "4", "--record", str(record)]) == 1
    assert "r.jsonl:1 is not a game record" in capsys.readouterr().err


def test_run_match_tool_plays_a_recorded_match_without_the_host_dependencies(tmp_path: Path) -> None:
    # tools/run_match.py is what PyPy runs: the same match as `bao match`, importing only the rules core and
    # bao_host.engine (no rich, no textual)
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    record = tmp_path / "r.jsonl"
    code = (
        "import sys, runpy; sys.argv = ['run_match.py', *sys.argv[1:]]; "
        "runpy.run_path('tools/run_match.py', run_name='__main__')"
    )
    args = ["engine:d1", "random", "--games", "2", "--ruleset", "malawi", "--record", str(record)]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("engine:d1 vs random: 2 games, +")
    assert len(record.read_text().splitlines()) == 2
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "bao_host.engine.match" in imported and not {"rich", "textual", "serial"} & imported
