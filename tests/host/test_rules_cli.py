"""The rules core's command lines: `python -m bao` (and MicroPython's) and `bao moves/apply/replay/show/perft`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bao_host.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
GAME = ROOT / "games" / "zanzibar-1994.txt"


def run_bao_module(*args: str, interpreter: str = sys.executable, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [interpreter, "-m", "bao", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT / "firmware",
        timeout=300,
    )


def test_python_m_bao_replay_success_and_failure(tmp_path: Path) -> None:
    ok = run_bao_module("replay", str(GAME))
    assert ok.returncode == 0
    last = json.loads(ok.stdout.splitlines()[-1])
    assert last["A"] == [0, 0, 0, 0, 2, 0, 0, 0] and last["to_move"] == "S"
    bad = tmp_path / "bad.txt"
    bad.write_text(GAME.read_text().replace("23: B2L b7R;", "23: B2L b7L;"))
    out = run_bao_module("replay", str(bad))
    assert out.returncode == 1
    assert out.stderr.startswith("move 23 North b7L: "), out.stderr
    kiba = tmp_path / "kiba.txt"
    kiba.write_text("1: 7<* 5>;\n2: 6>* 6>*;\n")
    assert run_bao_module("replay", "--dialect", "kiba", str(kiba)).returncode == 0
    assert run_bao_module("replay", str(kiba)).returncode == 1  # not Donkers notation


def test_python_m_bao_perft_and_usage() -> None:
    out = run_bao_module("perft", "4")
    assert out.stdout.split("\n")[:4] == ["1 4", "2 14", "3 38", "4 124"]
    assert run_bao_module("frobnicate").returncode == 2
    for depth in ("0", "-1"):  # a depth of no plies is a mistake, not an empty answer
        out = run_bao_module("perft", depth)
        assert out.returncode == 2 and out.stdout == "" and out.stderr.startswith("usage:")


def test_python_m_bao_moves_finished_game_and_errors() -> None:
    over = {
        "ruleset": "zanzibar",
        "to_move": "S",
        "A": [1] * 8,
        "B": [1] * 8,
        "a": [0, 0, 0, 0, 0, 0, 0, 3],
        "b": [0, 0, 0, 0, 0, 0, 0, 45],
        "store": {"S": 0, "N": 0},
        "house": {"S": False, "N": False},
        "takasia": None,
    }
    out = run_bao_module("moves", stdin=json.dumps(over) + "\n{}\n")
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert lines[0] == {"moves": [], "winner": "N"}
    assert "error" in lines[1]


def test_bao_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["moves", "initial"]) == 0
    assert "6L* 6R* 7L* 7R*" in capsys.readouterr().out
    assert main(["apply", "initial", "7L*", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "a seed from the store goes into A7 (2.2)" in out
    assert json.loads(out.splitlines()[-1])["A"] == [0, 0, 0, 1, 7, 3, 0, 0]
    assert main(["apply", "initial", "5L*"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2.4b:" in err
    assert main(["replay", str(GAME)]) == 0
    assert "52 plies replayed" in capsys.readouterr().out
    assert main(["show", "initial", "--plain"]) == 0
    assert "South to move (namua stage, zanzibar)." in capsys.readouterr().out
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"to_move": "Q"}))
    assert main(["show", f"@{pos}"]) == 1
    assert "to_move" in capsys.readouterr().err
    assert main(["show", "12"]) == 1  # a game number: `bao game` shows games
    assert "`bao game 12`" in capsys.readouterr().err
    assert main(["moves", "@/nonexistent/x.json"]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert main(["perft", "3", "--ruleset", "malawi"]) == 0
    assert main(["moves", "initial", "--json", "--dialect", "kiba"]) == 0
    assert [m["move"] for m in json.loads(capsys.readouterr().out.splitlines()[-1])["moves"]][:2] == ["6<*", "6>*"]
