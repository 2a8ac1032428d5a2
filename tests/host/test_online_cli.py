"""Online play as a user runs it (docs/online.md, "A board in an online game"): `bao serve`, two `bao sim`
boards whose hands make one side's moves of the 1994 game and sow the other side's once lit (`--side`), and
two `bao online` clients, each its own process and library; the players type `stop` (2.5b) when asked and
South resigns at the end, as in the transcript. And `bao online`'s one-line refusals."""

from __future__ import annotations

import http.server
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import IO

from bao_host.record.store import Store
from bao_testkit import simrig

ROOT = Path(__file__).resolve().parents[2]
BAO = [sys.executable, "-m", "bao_host.cli"]
T1994 = str(ROOT / "games" / "zanzibar-1994.txt")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A `bao` process whose output lines are read on a thread (and answered: `answers`)."""

    def __init__(self, args: list[str], cwd: Path, answers: dict[str, str] | None = None) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.p = subprocess.Popen(
            [*BAO, *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self.q: queue.Queue[str] = queue.Queue()
        self.answers = answers or {}
        threading.Thread(target=self._read, args=(self.p.stdout,), daemon=True).start()

    def _read(self, out: IO[str] | None) -> None:
        assert out is not None
        for line in out:
            self.lines.append(line.rstrip("\n"))
            for said, answer in self.answers.items():
                if said in line:
                    self.type(answer)

    def type(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def wait_line(self, part: str, timeout: float) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                if part in line:
                    return line
            if self.p.poll() is not None and not any(part in x for x in self.lines):
                break
            time.sleep(0.02)
        raise AssertionError(f"no line with {part!r} within {timeout:g} s: {self.lines[-8:]}")

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()


NAMES = ("server", "board A", "board B", "Alice", "Bob")


def test_two_boards_and_two_clients_play_the_1994_game_to_the_end(tmp_path: Path) -> None:
    port, pa, pb = free_port(), free_port(), free_port()
    url = f"http://127.0.0.1:{port}/"
    procs: list[Proc] = []
    try:
        server = Proc(["serve", "--sim", "0", "--port", str(port), "--data", "club"], tmp_path)
        procs.append(server)
        server.wait_line("Ctrl-C to stop", 60)
        for side, p in (("S", pa), ("N", pb)):
            procs.append(
                Proc(
                    [
                        "sim",
                        "--port",
                        f"socket://127.0.0.1:{p}",
                        "--play-transcript",
                        T1994,
                        "--side",
                        side,
                        "--wait-host",
                        "120",
                        "--report",
                    ],
                    tmp_path,
                )
            )
            procs[-1].wait_line("board serial", 60)
        sim_a, sim_b = procs[1], procs[2]
        stop = {"2.5b": "stop"}  # the player answers the house decision
        alice = Proc(
            [
                "online",
                url,
                "--new",
                "zanzibar",
                "--name",
                "Alice",
                "--board",
                f"socket://127.0.0.1:{pa}",
                "--data",
                "alice",
            ],
            tmp_path,
            stop,
        )
        procs.append(alice)
        code = alice.wait_line("invitation code:", 60).rsplit(" ", 1)[1]
        assert len(code) >= 22  # 128 random bits
        bob = Proc(
            ["online", url, "--join", code, "--name", "Bob", "--board", f"socket://127.0.0.1:{pb}", "--data", "bob"],
            tmp_path,
            stop,
        )
        procs.append(bob)
        for sim in (sim_a, sim_b):  # each board's hands played the whole game, the board reported every move
            assert sim.p.wait(600) == 0, {name: p.lines[-6:] for name, p in zip(NAMES, procs)}
        alice.wait_line("sent ply 51: A7L", 60)
        bob.wait_line("the board lights South's move A7L (ply 51)", 60)
        alice.type("resign")
        for client in (alice, bob):
            client.wait_line("bao online: the game is over: North wins (South resigned)", 60)
            client.wait_line("bao online: the game is in the library as game ", 60)
            client.wait_line("type rematch for another game (the sides swapped), or quit", 60)
            client.type("quit")
            assert client.p.wait(60) == 0, client.lines[-5:]
        assert sum("the board lights North's move" in x for x in alice.lines) == 26
        assert sum("the board lights South's move" in x for x in bob.lines) == 26
    finally:
        for p in reversed(procs):
            p.stop()
    want = simrig.game_1994().plies
    for lib in ("club", "alice", "bob"):
        with Store(tmp_path / lib, readonly=True) as st:
            found = [st.game(g.id) for g in st.games() if "online game" in st.game(g.id).headers()]
            assert [(g.plies, g.result, g.south, g.north) for g in found] == [(want, "North wins", "Alice", "Bob")]


def test_bao_online_refuses_in_one_line(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/"
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=other.serve_forever, daemon=True).start()  # a web server that is not bao's
    not_bao = f"http://127.0.0.1:{other.server_address[1]}/some/page"
    for args, status, said in (
        (["online", not_bao, "--new", "zanzibar", "--board", "socket://127.0.0.1:1"], 1, "is no bao server"),
        (["online", "notaurl", "--new", "zanzibar", "--board", "socket://127.0.0.1:1"], 2, "is no server address"),
        (["online", dead, "--join", "ABCDEFGHIJKLMNOPQRSTUV", "--board", "socket://127.0.0.1:1"], 1, "does not answer"),
        (["online", dead, "--resume", "../../etc", "--board", "socket://127.0.0.1:1"], 1, "a game id is letters"),
        (["online", dead, "--resume", "nosuchgame", "--board", "socket://127.0.0.1:1"], 1, "no seat of game"),
        (
            ["online", dead, "--new", "zanzibar", "--clock", "5 min", "--board", "socket://127.0.0.1:1"],
            1,
            "--clock '5 min': seconds for the game",
        ),
    ):
        r = subprocess.run([*BAO, *args, "--data", str(tmp_path / "lib")], capture_output=True, text=True, timeout=60)
        assert r.returncode == status and said in r.stderr and len(r.stderr.splitlines()) == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr
    other.shutdown()


def test_a_rematch_from_bao_online_on_the_same_boards(tmp_path: Path) -> None:
    """After a game, Alice types rematch: her client makes the rematch (the sides swapped) and waits in it; Bob's
    says that Alice asks for one, he types rematch too, and both boards start the new game, Bob's now South.
    Bob aborts it; both leave with quit. Each local library holds both games, each tagged with its own id."""
    port, pa, pb = free_port(), free_port(), free_port()
    url = f"http://127.0.0.1:{port}/"
    procs: list[Proc] = []
    try:
        server = Proc(["serve", "--sim", "0", "--port", str(port), "--data", "club"], tmp_path)
        procs.append(server)
        server.wait_line("Ctrl-C to stop", 60)
        for p in (pa, pb):
            procs.append(Proc(["sim", "--port", f"socket://127.0.0.1:{p}"], tmp_path))
            procs[-1].wait_line("board serial", 60)
        board = ["--board"]
        alice = Proc(
            [
                "online",
                url,
                "--new",
                "zanzibar",
                "--name",
                "Alice",
                *board,
                f"socket://127.0.0.1:{pa}",
                "--data",
                "alice",
            ],
            tmp_path,
        )
        procs.append(alice)
        code = alice.wait_line("invitation code:", 60).rsplit(" ", 1)[1]
        first = alice.wait_line("bao online: game ", 60).split()[3].rstrip(":")
        bob = Proc(
            ["online", url, "--join", code, "--name", "Bob", *board, f"socket://127.0.0.1:{pb}", "--data", "bob"],
            tmp_path,
        )
        procs.append(bob)
        for client in (alice, bob):
            client.wait_line("the board plays this game (local game", 60)
        assert f"bao online: spectators watch the game at {url}online/game/{first}/watch" in alice.lines
        alice.type("resign")
        for client in (alice, bob):
            client.wait_line("type rematch for another game (the sides swapped), or quit", 60)
            assert sum("the game is over" in x for x in client.lines) == 1, client.lines[-4:]  # (said once)
        alice.type("rematch")
        second = alice.wait_line("bao online: rematch: game ", 60).split()[4].rstrip(",")
        assert second != first and "you play North" in alice.lines[-1]
        alice.wait_line("waiting for South to join", 60)
        bob.wait_line("bao online: South asks for a rematch (the sides swapped): type rematch to play it", 60)
        bob.type("rematch")
        assert "you play South" in bob.wait_line(f"bao online: rematch: game {second}", 60)
        for client in (alice, bob):
            client.wait_line("playing zanzibar: South Bob, North Alice", 60)
        for client in (alice, bob):  # (the rematch on the same board: a new game on it)
            simrig.wait_for(lambda c=client: sum("the board plays this game" in x for x in c.lines) == 2, 60)
        bob.type("abort")
        for client in (alice, bob):
            client.wait_line("the game is over: no result (aborted by South)", 60)
            client.type("quit")
            assert client.p.wait(60) == 0, client.lines[-5:]
    finally:
        for p in reversed(procs):
            p.stop()
    for lib in ("alice", "bob"):
        with Store(tmp_path / lib, readonly=True) as st:
            tagged = [st.game(g.id) for g in st.games() if "online game" in st.game(g.id).headers()]
            assert [(g.headers().get("online game"), g.south, g.north) for g in tagged] == [
                (first, "Alice", "Bob"),
                (second, "Bob", "Alice"),
            ], lib
            assert [g.status for g in tagged] == ["over", "abandoned"]
            assert [g.headers().get("termination") for g in tagged] == ["South resigned", "aborted by South"], lib


def test_bao_online_makes_its_game_once_the_board_is_there(tmp_path: Path) -> None:
    """A client started before its board says it waits and makes no game on the server; it makes the game when
    the board (started late) answers."""
    port, pa = free_port(), free_port()
    url = f"http://127.0.0.1:{port}/"
    args = ["online", url, "--new", "zanzibar", "--name", "Alice", "--board", f"socket://127.0.0.1:{pa}"]
    procs: list[Proc] = []
    try:
        server = Proc(["serve", "--sim", "0", "--port", str(port), "--data", "club"], tmp_path)
        procs.append(server)
        server.wait_line("Ctrl-C to stop", 60)
        client = Proc([*args, "--data", "alice"], tmp_path)
        procs.append(client)
        client.wait_line(f"waiting for the board at socket://127.0.0.1:{pa}", 60)
        assert not any("invitation code" in x for x in client.lines)
        with urllib.request.urlopen(f"{url}online/v1/games", timeout=10) as r:
            assert json.loads(r.read())["games"] == [], "a game was made on the server with no board to play it"
        procs.append(Proc(["sim", "--port", f"socket://127.0.0.1:{pa}"], tmp_path))
        client.wait_line("invitation code:", 60)
        with urllib.request.urlopen(f"{url}online/v1/games", timeout=10) as r:
            assert len(json.loads(r.read())["games"]) == 1
    finally:
        for p in reversed(procs):
            p.stop()
