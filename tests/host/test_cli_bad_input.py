"""Bad input on every `bao` command line that takes a file or a position: a one-line error on stderr, a
non-zero status, never a traceback (issue #13). A corpus of hostile files for each such command, hypothesis
for the texts typed on the command line, and one test per failure seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bao_host.cli import main
from bao_host.record.store import Store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent.parent
GAME = ROOT / "games" / "zanzibar-1994.txt"
BAO = [sys.executable, "-m", "bao_host.cli"]

KIBA = "1: 7<* 5>;\n2: 6>* 6>*;\n"


def hostile_files(d: Path) -> dict[str, Path]:
    """Files that are not a transcript or a position, each a way a real file goes wrong."""
    game = GAME.read_text()
    files = {
        "binary": bytes(range(256)) * 4,
        "binary-no-nul": bytes(range(1, 256)) * 4,
        "empty": b"",
        "blank-lines": b"\n\n  \n",
        "huge": b"1: 7L* 5R;\n" + b"x" * (2 << 20),
        "truncated": b"1: 7L* 5R;\n2: 6R* 6",
        "latin-1": "South: Jos\xe9\n1: 7L* 5R;\n".encode("latin-1"),
        "utf-16": game.encode("utf-16"),
        "another-dialect": KIBA.encode(),  # KIBA moves without a `notation: kiba` header: read as Donkers
        "json-position": json.dumps({"to_move": "S"}).encode(),
        "json-list": b"[1, 2, 3]",
        "nested-json": b"[" * 100000 + b"]" * 100000,
        "headers-only": b"South: A\nNorth: B\n",
        "illegal-move": game.replace("23: B2L b7R;", "23: B2L b7L;").encode(),
        "unknown-ruleset": b"ruleset: chess\n1: 7L* 5R;\n",
        "unknown-notation": b"notation: pgn\n1: 7L* 5R;\n",
        "huge-values": json.dumps({"ruleset": "x" * 5000, "to_move": "S" * 5000, "k" * 5000: 1}).encode(),
        "huge-row": json.dumps({"to_move": "S", "A": ["9" * 5000] * 8}).encode(),
        "position-not-64": json.dumps(
            {"to_move": "S", "A": [1] * 8, "B": [0] * 8, "a": [1] * 8, "b": [0] * 8}
        ).encode(),
    }
    d.mkdir()
    out = {}
    for name, data in files.items():
        p = d / name
        p.write_bytes(data)
        out[name] = p
    out["missing"] = d / "no-such-file"
    out["directory"] = d
    return out


# Every command line that reads a file or a position, as a function of the file.
COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "moves": lambda f, data: ["moves", f"@{f}"],
    "moves --json": lambda f, data: ["moves", "--json", f"@{f}"],
    "apply": lambda f, data: ["apply", f"@{f}", "7L*"],
    "show": lambda f, data: ["show", f"@{f}", "--plain"],
    "replay": lambda f, data: ["replay", str(f)],
    "import": lambda f, data: ["import", str(f), "--data", str(data)],
    "sim": lambda f, data: ["sim", "--port", "none", "--play-transcript", str(f)],
}


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run `bao argv` in-process; returns its one line on stderr after checking the rules of issue #13."""
    try:
        status = main(argv)
    except SystemExit as e:  # argparse
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    assert status != 0, (argv, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), (argv, err)
    assert err.startswith("bao"), (argv, err)
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    return err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_files_get_a_one_line_error(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = hostile_files(tmp_path / "in")
    data = tmp_path / "library"
    for name, f in files.items():
        if command == "import" and name == "directory":
            continue  # --data below it: the library folder is made inside it
        err = one_line_error(capsys, COMMANDS[command](f, data))
        assert len(err) < 400, err
    # the library was not touched by refused imports
    if data.exists():
        assert main(["games", "--data", str(data), "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_random_bytes_as_transcript_or_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    f = tmp_path / "random"
    f.write_bytes(data)
    for argv in (["replay", str(f)], ["moves", f"@{f}"]):
        one_line_error(capsys, argv)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60), st.text(alphabet="ABab12345678LR<>*+ -", max_size=8))
def test_random_positions_and_moves_typed_on_the_command_line(
    capsys: pytest.CaptureFixture[str], position: str, move: str
) -> None:
    for argv in (["moves", position], ["apply", position, "7L*"], ["apply", "initial", move]):
        try:
            status = main(argv)
        except SystemExit as e:
            status = int(e.code or 0)
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "internal error" not in err, (argv, err)
        if status:
            assert err.count("\n") == 1, (argv, err)
        else:
            assert not err and out, argv


# -- each failure seen in issue #13, as it was seen ------------------------------------------------------


def test_binary_files_for_moves_show_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "photo.jpg"
    f.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)))
    for argv in (["moves", f"@{f}"], ["show", f"@{f}"], ["replay", str(f)]):
        assert "binary file" in one_line_error(capsys, argv)
    f.write_bytes("1: 7L* 5R; caf\xe9\n".encode("latin-1"))
    assert "not UTF-8 text" in one_line_error(capsys, ["replay", str(f)])


def test_sim_bad_transcripts_ports_and_heaps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim = ["sim", "--port", "none", "--play-transcript"]
    assert "cannot read" in one_line_error(capsys, [*sim, str(tmp_path / "missing.txt")])
    bad = tmp_path / "bad.txt"
    bad.write_text(GAME.read_text().replace("23: B2L b7R;", "23: B2L b7L;"))
    assert "move 23 North b7L: " in one_line_error(capsys, [*sim, str(bad)])
    bad.write_bytes(bytes(range(256)))
    assert "binary" in one_line_error(capsys, [*sim, str(bad)])
    assert "--heap 'abc'" in one_line_error(
        capsys, ["sim", "--runtime", "micropython", "--heap", "abc", "--port", "none"]
    )
    assert "cannot listen on socket://999.1.1.1:5" in one_line_error(
        capsys, ["sim", "--port", "socket://999.1.1.1:5", "--play-transcript", str(GAME)]
    )
    assert "port number" in one_line_error(capsys, ["sim", "--port", "socket://localhost:http"])


def test_sim_on_micropython_with_too_small_a_heap_says_why(tmp_path: Path) -> None:
    kiba = tmp_path / "k.txt"
    kiba.write_text("notation: kiba\n" + KIBA)
    out = subprocess.run(
        [
            *BAO,
            "sim",
            "--runtime",
            "micropython",
            "--heap",
            "2k",
            "--port",
            "none",
            "--data",
            str(tmp_path / "flash"),
            "--play-transcript",
            str(kiba),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("bao sim: the MicroPython board stopped: MemoryError"), out.stderr


def test_library_paths_that_are_not_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "a-file"
    f.write_text("x")
    assert "is a file" in one_line_error(capsys, ["games", "--data", str(f)])
    lib = tmp_path / "lib"
    assert main(["import", str(GAME), "--data", str(lib)]) == 0
    capsys.readouterr()
    err = one_line_error(capsys, ["export", "1", "--data", str(lib), "-o", str(tmp_path / "no" / "x.txt")])
    assert "cannot write" in err and "No such file or directory" in err


def test_read_only_commands_do_not_make_a_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing" / "dir"
    for argv in (["games"], ["game", "1"], ["export", "1"], ["name", "1", "--south", "X"]):
        assert "no game library" in one_line_error(capsys, [*argv, "--data", str(missing)])
    assert not (tmp_path / "missing").exists()


def test_games_json_into_a_closed_pipe(tmp_path: Path) -> None:
    # `bao games --json | head -3`: the reader goes away. The pipe's read end is closed before bao
    # starts, so every write meets the closed pipe whatever the machine's speed.
    lib = tmp_path / "lib"
    assert main(["import", str(GAME), "--data", str(lib)]) == 0
    r, w = os.pipe()
    os.close(r)
    try:
        out = subprocess.run(
            [*BAO, "games", "--json", "--data", str(lib)],
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
    finally:
        os.close(w)
    assert out.stderr == "" and out.returncode == 141


def test_games_json_piped_into_head(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    assert main(["import", str(GAME), "--data", str(lib)]) == 0
    out = subprocess.run(
        f"{sys.executable} -m bao_host.cli games --json --data {lib} | head -3",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.stdout.splitlines() == ["[", " {", '  "id": 1,'] and out.stderr == ""


def test_accepted_when_they_should_not_be(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    as_json = tmp_path / "p.json"
    as_json.write_text(json.dumps({"to_move": "S"}))
    assert "no moves" in one_line_error(capsys, ["replay", str(empty)])
    assert "no moves" in one_line_error(capsys, ["replay", str(as_json)])
    assert "no moves" in one_line_error(capsys, ["import", str(empty), "--data", str(tmp_path / "lib")])
    assert "1 or more" in one_line_error(capsys, ["perft", "0"])
    assert "1 or more" in one_line_error(capsys, ["perft", "-1"])
    assert "invalid int value" in one_line_error(capsys, ["perft", "x"])  # argparse's own, on one line
    err = one_line_error(capsys, ["moves", "initial:chess"])
    assert "unknown ruleset 'chess'" in err and "zanzibar, malawi" in err


def test_log_says_what_it_waits_for(tmp_path: Path) -> None:
    out = subprocess.run(
        [*BAO, "log", "--port", "/dev/ttyNOPE", "--quiet", "--duration", "0.5", "--data", str(tmp_path / "lib")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    first = out.stderr.splitlines()[0]
    assert "/dev/ttyNOPE does not exist: waiting for it to appear" in first, out.stderr
    assert "Ctrl-C" in first and "Traceback" not in out.stderr


def test_the_transcript_header_decides_the_dialect_and_the_flag_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kiba = tmp_path / "kiba.txt"
    kiba.write_text("notation: kiba\n" + KIBA)
    assert main(["replay", str(kiba)]) == 0
    assert "4 plies replayed" in capsys.readouterr().out
    assert "'7<*': unexpected" in one_line_error(capsys, ["replay", str(kiba), "--dialect", "donkers"])
    lib = str(tmp_path / "lib")
    assert main(["import", str(kiba), "--data", lib]) == 0
    assert "4 plies" in capsys.readouterr().out
    assert main(["export", "1", "--data", lib]) == 0
    assert "1: 7L* 5R;" in capsys.readouterr().out  # stored in Donkers notation, the library's
    one_line_error(capsys, ["import", str(kiba), "--data", lib, "--dialect", "donkers"])
    plain = tmp_path / "plain.txt"
    plain.write_text(KIBA)  # no header: Donkers, unless the flag says otherwise
    one_line_error(capsys, ["replay", str(plain)])
    assert main(["replay", str(plain), "--dialect", "kiba"]) == 0
    capsys.readouterr()


def test_refused_at_once_with_the_limit_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue #25: a perft that cannot finish, a match of no games, an address that cannot exist, a binary
    # file to analyse: one line at once, saying what is wrong, in the words the other commands use
    out = subprocess.run([*BAO, "perft", "99999"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 1 and out.stdout == ""  # (it ran on for ever, printing depth after depth)
    assert out.stderr == "bao: perft: depth 99999 would not finish: at most 10 plies for zanzibar\n"
    assert "at most 8 plies" in one_line_error(capsys, ["perft", "9", "--ruleset", "malawi"])
    assert "1 or more, not -3" in one_line_error(capsys, ["match", "random", "greedy", "--games", "-3"])
    assert "1 or more, not 0" in one_line_error(capsys, ["match", "random", "greedy", "--games", "0"])
    binary = tmp_path / "noise.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    assert "a binary file, not text" in one_line_error(capsys, ["analyse", str(binary)])
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("1. 7L* caf\xe9".encode("latin-1"))
    assert "not UTF-8 text" in one_line_error(capsys, ["analyse", str(latin)])


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("socket://256.1.1.1:99999", "the port is a number from 1 to 65535"),
        ("socket://256.1.1.1:5000", "256.1.1.1 is not an address (four numbers from 0 to 255)"),
        ("socket://127.0.0.1:0", "the port is a number from 1 to 65535"),
    ],
)
def test_log_refuses_an_impossible_address_at_once(url: str, why: str, tmp_path: Path) -> None:
    # it retried for ever, showing pyserial's internal "'debug|info|warning|error'" (issue #25)
    out = subprocess.run(
        [*BAO, "log", "--port", url, "--quiet", "--data", str(tmp_path / "lib")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"bao log: {url}: {why}\n"
    assert "debug|info" not in out.stderr


def test_games_at_80_columns_keeps_dates_and_results_whole(tmp_path: Path) -> None:
    # issue #25: at 80 columns `bao games` cut dates and results; a transcript's date (17-10-94) is shown
    # as ISO like every other date
    from bao import notation

    lib = tmp_path / "lib"
    assert main(["import", str(GAME), "--data", str(lib)]) == 0
    head = "South: Mwalimu Abdallah bin Salim of Stone Town\nNorth: Kijumbe Mohamed of Pemba Island\ndate: 28.11.2026\n"
    with Store(lib) as st:
        st.import_text(head + notation.format_transcript({}, notation.parse_transcript(GAME.read_text()).plies))
    out = subprocess.run(
        [*BAO, "games", "--data", str(lib)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="80"),
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, out.stdout
    rows = "\n".join(lines)
    assert "1994-10-17" in rows and "2026-11-28" in rows and "17-10-94" not in rows, out.stdout
    assert "North wins" in rows and "(playing)" in rows and "zanzibar" in rows, out.stdout
