"""The Malawi intermediate and advanced games (issue #12) on the host: the `bao` rules commands, the games
library's import, export and replay, and games played through activations on the simulated board."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from bao import core, kuu, notation, position_json
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner
from bao_host.cli import main
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store, pos_key
from bao_testkit.simrig import Played, check_store, play, random_game, wait_for
from test_store import run

KUU = [kuu.MALAWI_INTERMEDIATE, kuu.MALAWI_ADVANCED]


def test_bao_perft_moves_and_apply_trace(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "4", "--ruleset", "malawi-intermediate"]) == 0
    assert capsys.readouterr().out.split() == "1 4 2 14 3 30 4 84".split()
    assert main(["perft", "4", "--ruleset", "malawi-advanced"]) == 0  # single drops (M22; issue #12's figures)
    assert capsys.readouterr().out.split() == "1 16 2 256 3 4096 4 65536".split()
    assert main(["moves", "initial:malawi-advanced"]) == 0
    assert capsys.readouterr().out.startswith("South has 16 legal placement drops: @A1 @A2")
    assert main(["apply", "initial:malawi-intermediate", "6L*", "--trace"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  1. a nemo from the store goes into A6 (M9)"
    assert json.loads(out[-1])["store"] == {"S": 19, "N": 20}
    assert main(["apply", "initial:malawi-advanced", "@A3", "--trace"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "  1. placement: lift the 2 seeds of A6 (M20)",
        "  2. placement: lift the 2 seeds of A7 (M20)",
        "  3. take a nemo and place it in A3 (M20, M22)",
    ]
    assert json.loads(out[-1])["placing"] == 4
    assert main(["apply", "initial:malawi-advanced", "6L*"]) == 1
    assert capsys.readouterr().err.startswith("bao: 6L*: M22: South is placing")
    assert main(["apply", "initial:malawi-intermediate", "5L*"]) == 1
    assert "M12: no takata from the kuu" in capsys.readouterr().err


def _transcript(g: Played) -> str:
    return notation.format_transcript({"ruleset": g.ruleset}, g.plies)


def test_import_export_and_replay_of_kuu_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(12)
    data = ["--data", str(tmp_path / "d")]
    for i, ruleset in enumerate(KUU, start=1):
        g = random_game(rng, ruleset)
        f = tmp_path / f"{ruleset}.txt"
        f.write_text(_transcript(g))
        if ruleset == kuu.MALAWI_ADVANCED:  # the placement is one token per player (M22)
            assert f.read_text().splitlines()[1].split()[1].count("@") == 5  # "1: @A4@A3@A3@B1@A5 ..."
        assert run(["import", str(f), *data]) == 0
        capsys.readouterr()
        with Store(tmp_path / "d") as st:
            stored = st.game(i)
            assert stored.ruleset == ruleset and stored.plies == g.plies
            assert g.final is not None and st.current_position(i).d == g.final.d
        for fmt in ("donkers", "kiba", "json"):
            assert run(["export", str(i), "--format", fmt, "-o", str(tmp_path / f"{i}.{fmt}"), *data]) == 0
        t = notation.parse_transcript((tmp_path / f"{i}.kiba").read_text())
        assert notation.replay(t, dialect=notation.KIBA)[-1].d == g.final.d
        obj = json.loads((tmp_path / f"{i}.json").read_text())
        assert position_json.from_dict(obj["positions"][-1]).d == g.final.d
        assert notation.parse_transcript((tmp_path / f"{i}.donkers").read_text()).plies == g.plies
        assert main(["replay", str(tmp_path / f"{i}.donkers")]) == 0
        assert f"{len(g.plies)} plies replayed" in capsys.readouterr().out


def test_kuu_games_played_through_activations_on_the_simulated_board(tmp_path: Path) -> None:
    """Both rulesets chosen from the host (NEW), played by simulated hands touching pits one activation at a
    time; the logger stores exactly the games played."""
    (tmp_path / "flash").mkdir()
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(tmp_path / "flash"), board_id="sim-kuu"), link).start()
    store = Store(tmp_path / "data")
    lg = Logger(store)
    s = LinkSession(link.path, lg)
    rng = random.Random(2026)
    played = [Played(core.ZANZIBAR, [], core.initial())]  # the game the board starts with, left unplayed

    def poll() -> None:
        s.poll(0.002)

    try:
        wait_for(lambda: s.connected and lg.view.game_id is not None, 60, poll, "the handshake")
        for ruleset in KUU + KUU:
            g = random_game(rng, ruleset)
            assert s.new_game(ruleset) is not None
            wait_for(lambda: runner.idle, 60, poll, "the new game")
            play(runner, g, poll, stop=s.stop)
            played.append(g)
            wait_for(lambda: runner.idle and runner.wire.synced and s.connected, 120, poll, "the logger's acks")
        check_store(tmp_path / "data", played, "sim-kuu")
        assert runner.board.errors == []
    finally:
        s.close()
        runner.close()
        store.close()


def test_the_trace_names_the_kuu_rulings(capsys: pytest.CaptureFixture[str]) -> None:
    lone = {
        "ruleset": "malawi-intermediate",
        "to_move": "S",
        "A": [0, 0, 0, 0, 8, 0, 0, 0],
        "B": [0] * 8,
        "a": [0, 0, 0, 0, 8, 0, 0, 0],
        "b": [0] * 7 + [8],
        "store": {"S": 20, "N": 20},
        "house": {"S": True, "N": True},
    }
    assert main(["apply", json.dumps(lone), "5L*", "--trace"]) == 0  # exactly eight: all nine sown (M14)
    out = capsys.readouterr().out
    assert "the kuu held exactly 8: lift all 9 seeds of A5; the kuu loses its status (M14, M16)" in out
    lone["A"] = [0, 0, 0, 0, 5, 0, 0, 0]
    lone["b"] = [0] * 7 + [11]
    assert main(["apply", json.dumps(lone), "5L*", "--trace"]) == 0
    assert "taxing the kuu: take 2 seeds out of A5" in capsys.readouterr().out  # M13
    assert main(["show", json.dumps(lone), "--plain"]) == 0
    assert "South to move (nemo stage, malawi-intermediate)." in capsys.readouterr().out


def test_the_librarys_position_key_is_unchanged_outside_the_kuu_games() -> None:
    # The state grew two bytes for M19 and M22; a library indexed before them must still find its positions.
    assert len(pos_key(core.initial())) == 2 * 39
    placing = notation.parse_move(core.initial(kuu.MALAWI_ADVANCED), "@A4")[1]
    assert len(pos_key(placing)) == 2 * 41 and pos_key(placing) != pos_key(core.initial(kuu.MALAWI_ADVANCED))
