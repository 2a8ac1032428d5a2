"""`bao engine`: the line protocol (docs/engine.md), its answers and its error cases, in process and as a
real process whose stdin is read while it searches."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

from bao import core, notation, position_json
from bao_host.engine.protocol import EngineSession, format_score

ROOT = Path(__file__).resolve().parent.parent.parent
WAIT = 60.0  # a generous bound for an answer on a loaded machine (the 50 ms figure is measured in make bench)


class Lines:
    """An EngineSession whose output lines are collected, with waits bounded by events, not sleeps."""

    def __init__(self) -> None:
        self.q: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.session = EngineSession(self.q.put, tt_bits=12)

    def send(self, line: str) -> bool:
        return self.session.handle(line)

    def until(self, prefix: str) -> list[str]:
        """Lines up to and including the first that starts with prefix."""
        got = []
        while True:
            line = self.q.get(timeout=WAIT)
            got.append(line)
            self.seen.append(line)
            if line.startswith(prefix):
                return got

    def drain(self) -> list[str]:
        out = []
        while not self.q.empty():
            out.append(self.q.get_nowait())
        return out


def legal_texts(p: core.Position) -> list[str]:
    return [notation.format_move(m, p.to_move) for m, _ in core.legal_moves(p)]


def test_go_depth_answers_info_lines_and_a_legal_bestmove() -> None:
    e = Lines()
    e.send("position initial moves 7L* 5R")
    e.send("go depth 3")
    lines = e.until("bestmove")
    infos = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == [1, 2, 3]
    for line in infos:
        words = line.split()
        assert words[3] == "score" and words[words.index("nodes") + 1].isdigit() and "pv" in words
    p = notation.parse_move(notation.parse_move(core.initial(), "7L*")[1], "5R")[1]
    best = lines[-1].split()[1]
    assert best in legal_texts(p)
    assert infos[-1].split(" pv ")[1].split()[0] == best  # the last line's variation starts with it


def test_position_json_and_malawi_and_nodes_limit() -> None:
    e = Lines()
    p = core.initial("malawi")
    e.send("position json " + position_json.dumps(p))
    e.send("go nodes 500")
    best = e.until("bestmove")[-1].split()[1]
    assert best in legal_texts(p)
    e.send("position initial ruleset malawi moves " + best)
    e.send("go depth 1")
    q = notation.parse_move(p, best)[1]
    assert e.until("bestmove")[-1].split()[1] in legal_texts(q)


def test_forced_win_is_reported_as_mate() -> None:
    obj = {
        "ruleset": "zanzibar",
        "to_move": "S",
        "A": [1, 0, 6, 0, 0, 2, 2, 1],
        "B": [2, 2, 2, 2, 2, 4, 0, 1],
        "a": [1, 2, 1, 0, 1, 2, 12, 1],
        "b": [0, 1, 1, 0, 0, 0, 0, 1],
        "store": {"S": 7, "N": 7},
        "house": {"S": False, "N": False},
        "takasia": None,
    }
    e = Lines()
    e.send("position json " + json.dumps(obj))
    e.send("go depth 2")
    lines = e.until("bestmove")
    assert " score mate 1 " in lines[-2]
    assert lines[-1] == "bestmove 3R"


def test_error_cases_answer_one_line_and_the_engine_keeps_running() -> None:
    e = Lines()
    bad = {
        "fly": "unknown command 'fly'",
        "position": "position needs",
        "position start": "expected 'initial' or 'json'",
        "position initial ruleset chess": "ruleset must be one of zanzibar, malawi",
        "position json {not json": "not JSON",
        'position json {"ruleset": "zanzibar", "to_move": "S"}': "illegal position: row A",
        "position initial moves 7L* 9Q": "move 9Q:",
        "position initial moves A1L": "move A1L:",
        "position initial extra": "unexpected 'extra'",
        "go sideways 3": "expected movetime MS, depth D, nodes N or infinite",
        "go depth": "go depth needs a whole number",
        "go depth -1": "go depth needs a whole number",
        "go depth 999": "go depth: at most",
    }
    for command, message in bad.items():
        assert e.send(command)
        got = e.until("info string error")
        assert len(got) == 1 and message in got[0], (command, got)
    # an impossible position leaves the last good one in place
    e.send("position initial moves 7L*")
    e.send('position json {"bad": 1}')
    e.until("info string error")
    e.send("go depth 1")
    assert e.until("bestmove")[-1].split()[1] in legal_texts(notation.parse_move(core.initial(), "7L*")[1])
    e.send("isready")
    assert e.until("readyok") == ["readyok"]


def test_finished_game_and_go_while_searching() -> None:
    e = Lines()
    obj = {
        "ruleset": "zanzibar",
        "to_move": "S",
        "A": [1, 0, 6, 0, 0, 2, 2, 1],
        "B": [2, 2, 2, 2, 2, 4, 0, 1],
        "a": [1, 2, 1, 0, 1, 2, 12, 1],
        "b": [0, 1, 1, 0, 0, 0, 0, 1],
        "store": {"S": 7, "N": 7},
        "house": {"S": False, "N": False},
        "takasia": None,
    }
    e.send("position json " + json.dumps(obj) + " moves 3R")
    e.send("go depth 2")
    lines = e.until("bestmove")
    assert lines == ["info string error the game is over: South won (1.2)", "bestmove (none)"]
    e.send("position json " + json.dumps(obj) + " moves 3R 1L")
    assert "the game is already over" in e.until("info string error")[0]
    errors = len([line for line in e.seen if line.startswith("info string error")])
    e.send("position initial")
    e.send("go infinite")
    e.until("info depth 1")  # it is searching
    e.send("go depth 1")  # UCI: a new go ends the running search (its bestmove first), then searches
    assert e.until("bestmove")[-1].split()[1] in legal_texts(core.initial())
    assert e.until("bestmove")[-1].split()[1] in legal_texts(core.initial())
    e.send("go infinite")
    e.until("info depth 1")
    e.send("position initial moves 7L*")  # ... and so does a new position
    assert e.until("bestmove")[-1].split()[1] in legal_texts(core.initial())
    e.send("go depth 1")
    after = notation.parse_move(core.initial(), "7L*")[1]
    assert e.until("bestmove")[-1].split()[1] in legal_texts(after)
    assert len([line for line in e.seen if line.startswith("info string error")]) == errors  # none since
    assert not e.session.searching()


def test_piped_script_with_two_searches_answers_both() -> None:
    script = "position initial\ngo depth 2\nposition initial moves 7L*\ngo depth 2\n"
    proc = subprocess.run(
        [sys.executable, "-m", "bao_host.cli", "engine", "--hash-bits", "12"],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=WAIT,
    )
    assert proc.returncode == 0 and "error" not in proc.stdout, proc.stdout
    best = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("bestmove")]
    assert len(best) == 2, proc.stdout
    assert best[0] in legal_texts(core.initial())
    assert best[1] in legal_texts(notation.parse_move(core.initial(), "7L*")[1])


def test_stop_ends_an_infinite_search_in_process() -> None:
    e = Lines()
    e.send("position initial")
    e.send("go infinite")
    e.until("info depth 2")  # it is searching
    e.send("stop")  # returns once the bestmove line is written
    lines = e.drain()
    assert lines[-1].split()[1] in legal_texts(core.initial())
    assert not e.session.searching()
    assert e.send("quit") is False


def test_bao_engine_process_reads_stop_while_it_searches() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bao_host.cli", "engine", "--hash-bits", "14"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [out.put(line.rstrip("\n")) for line in proc.stdout], daemon=True).start()

    def until(prefix: str) -> str:
        while True:
            line = out.get(timeout=WAIT)
            if line.startswith(prefix):
                return line

    try:
        proc.stdin.write("position initial moves 7L* 5R\ngo infinite\n")
        until("info depth 2")
        proc.stdin.write("stop\n")
        best = until("bestmove").split()[1]
        p = notation.parse_move(notation.parse_move(core.initial(), "7L*")[1], "5R")[1]
        assert best in legal_texts(p)
        proc.stdin.write("go nodes 10 10\nisready\n")
        assert "info string error" in until("info string error")
        until("readyok")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_score_text() -> None:
    assert format_score(250) == "2.50"
    assert format_score(-5) == "-0.05"
    assert format_score(29997) == "mate 3"
    assert format_score(-29996) == "mate -4"
