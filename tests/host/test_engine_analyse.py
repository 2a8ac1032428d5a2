"""`bao analyse` on the 1994 game (a transcript file and the same game stored in the library)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from bao import core, notation
from bao_host.cli import main
from bao_host.engine import analysis
from bao_host.record.store import Store

ROOT = Path(__file__).resolve().parent.parent.parent
GAME = ROOT / "games" / "zanzibar-1994.txt"


def test_analyse_the_1994_game_from_its_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "graph.svg"
    data = tmp_path / "analysis.json"
    assert main(["analyse", str(GAME), "--depth", "2", "--svg", str(svg), "--json", str(data), "--quiet"]) == 0
    out = capsys.readouterr().out
    t = notation.parse_transcript(GAME.read_text())
    positions = notation.replay(t)
    a = json.loads(data.read_text())
    assert len(a["plies"]) == 52 and len(a["evals"]) == 53
    for i, pa in enumerate(a["plies"]):
        p = positions[i]
        assert pa["played"] == t.plies[i]
        assert pa["side"] == ("South", "North")[p.to_move]
        notation.parse_move(p, pa["best"])  # the engine's best move is legal there
        assert pa["loss"] >= 0
        assert pa["mark"] == analysis.mark_for(pa["loss"]) or pa["best"] == pa["played"]
        if pa["best"] == pa["played"]:
            assert pa["loss"] == 0 and pa["mark"] == ""
    # every row of the table shows the move as played with its mark; the summary counts those marks
    for pa in a["plies"]:
        assert re.search(rf"(^|\s){pa['ply']} │ {pa['side']}\s*│ {re.escape(pa['played'] + pa['mark'])}\s", out), pa
    for side, name in (("South", "Ramadhan"), ("North", "Kijumbe")):
        marks = [pa["mark"] for pa in a["plies"] if pa["side"] == side]
        line = next(line for line in out.splitlines() if line.startswith(f"{side} ({name}): 26 moves"))
        for m in ("?!", "?", "??"):
            assert f"{m} {marks.count(m)}" in line
    # the game ends in North's favour (the record's winner): the last evaluation says so
    assert a["evals"][-1] < 0
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    line = root.find(f"{ns}polyline")
    assert line is not None and len(line.attrib["points"].split()) == 53
    assert len(root.findall(f"{ns}circle")) == sum(1 for pa in a["plies"] if pa["mark"])
    assert "graph written to" in out


def test_analyse_a_file_writes_its_graph_next_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp_path / "games" / "g.txt"
    game.parent.mkdir()
    game.write_text(GAME.read_text())
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["analyse", str(game), "--nodes", "50", "--quiet"]) == 0
    assert (game.parent / "g.analysis.svg").exists()
    assert list(elsewhere.iterdir()) == []  # nothing in the current folder


def test_analyse_a_stored_game_keeps_the_analysis_in_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "library"
    assert main(["import", str(GAME), "--data", str(data)]) == 0
    assert main(["game", "1", "--data", str(data)]) == 0
    assert "engine analysis" not in capsys.readouterr().out
    assert (
        main(["analyse", "1", "--data", str(data), "--nodes", "300", "--quiet", "--json", str(tmp_path / "a.json")])
        == 0
    )
    out = capsys.readouterr().out
    assert "analysis kept in the library with game 1 (`bao game 1`)" in out
    assert list((data / "games").glob("*.analysis.json")) == []  # in the database, not beside the game
    assert len(list((data / "games").glob("*.analysis.svg"))) == 1  # the graph, for a browser
    with Store(data, readonly=True) as st:
        kept = st.analysis(st.game(1))
    assert kept is not None
    plies, a = kept
    assert plies == 52 and len(a["plies"]) == 52 and a["limits"] == {"nodes": 300}
    assert a == json.loads((tmp_path / "a.json").read_text())
    assert main(["game", "1", "--data", str(data), "--no-boards"]) == 0
    shown = capsys.readouterr().out
    first = a["plies"][0]
    assert f"1. South {first['played']}   [{first['eval_after']:+.2f}" in shown
    assert "engine analysis (nodes 300; South's view in seeds):" in shown
    south = a["players"][0]
    assert f"South ({south['name']}): {south['moves']} moves, average loss {south['average_loss']:.2f}" in shown
    marked = [p for p in a["plies"] if p["mark"]]
    for p in marked[:3]:
        assert f"{p['played']}   [{p['eval_after']:+.2f} {p['mark']}, best {p['best']}" in shown
    assert main(["games", "--data", str(data)]) == 0  # the library still reads cleanly
    assert "not in the database" not in capsys.readouterr().err


def test_analyse_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(GAME.read_text().replace("23: B2L b7R;", "23: B2L b7L;"))
    assert main(["analyse", str(bad), "--depth", "1", "--quiet"]) == 1
    assert "move 23 North b7L" in capsys.readouterr().err
    assert main(["analyse", "99", "--data", str(tmp_path / "empty"), "--quiet"]) == 1
    assert capsys.readouterr().err.startswith("bao: ")


def test_losses_and_marks() -> None:
    assert analysis.mark_for(0.0) == "" and analysis.mark_for(2.9) == ""
    assert analysis.mark_for(3.0) == "?!" and analysis.mark_for(6.0) == "?" and analysis.mark_for(12.0) == "??"
    assert analysis.seeds(29990) == analysis.MATE_SEEDS and analysis.seeds(-29990) == -analysis.MATE_SEEDS
    assert analysis.seeds(-250) == -2.5
    rows = analysis.chart_rows([0.0, 16.0, -16.0, 4.0], height=4, limit=16.0)
    assert rows[0] == " █  " and rows[4] == "────" and rows[-1] == "  █ "
    assert core.SOUTH == 0
