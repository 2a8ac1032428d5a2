"""docs/online.md's examples are what the server answers: each request on the page is sent to a real `bao serve`,
in the page's order, and its answer compared with the page's (the server's random ids and tokens captured
where the page first shows them); the event stream's example is read from the server's stream. Then the hostile
inputs the page does not show: a flood, a foreign page's Origin, a spectator's streams."""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.parse
from pathlib import Path
from typing import Any

from bao_host.online.client import Api, Follower
from bao_host.record.store import Store
from bao_testkit.webrig import serving, wait_for

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "online.md").read_text()
REQUEST = re.compile(r"^(GET|POST) (\S+)(?: Bearer (\S+))?(?: (.*))?$")
ANSWER = re.compile(r"^(\d{3}) (\{.*\})$")
BIG = "x" * 3000


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC, re.S)


def send(
    url: str, method: str, path: str, token: str = "", body: str | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=10)
    h = dict(headers or {})
    if body is not None:
        h["Content-Type"] = "application/json"
    if token:
        h["Authorization"] = "Bearer " + token
    conn.request(method, path, body=None if body is None else body.encode(), headers=h)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data)


def fill(text: str, values: dict[str, str]) -> str:
    text = text.replace("$BIG", BIG)
    return re.sub(r"\$([A-Z]+)", lambda m: values.get(m.group(1), m.group(0)), text)


def check(want: Any, got: Any, values: dict[str, str], where: str) -> None:
    """got is want, where "$NAME" is a value the server chose (captured the first time it is seen)."""
    if isinstance(want, str) and want.startswith("$"):
        name = want[1:]
        if name in values:
            assert got == values[name], where
        else:
            assert isinstance(got, str) and len(got) >= 8, where
            values[name] = got
    elif want == "...":
        pass
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), f"{where}: {got}"
        for k in want:
            check(want[k], got[k], values, f"{where}: {k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got}"
        for i, w in enumerate(want):
            check(w, got[i], values, f"{where}: [{i}]")
    else:
        assert got == want, f"{where}: {got!r}, not {want!r}"


def test_the_pages_examples_are_the_servers_answers(tmp_path: Path) -> None:
    values: dict[str, str] = {}
    exchanges = 0
    with serving(tmp_path / "server", sims=0) as web:
        parts = re.split(r"```(online|sse)\n(.*?)```", DOC, flags=re.S)
        for kind, text in zip(parts[1::3], parts[2::3]):
            lines = text.strip("\n").split("\n")
            if kind == "sse":
                check_stream(web.url, lines, values)
                continue
            for req, ans in zip(lines[::2], lines[1::2]):
                m, a = REQUEST.match(req), ANSWER.match(ans)
                assert m and a, (req, ans)
                token = fill(m.group(3), values) if m.group(3) else ""
                status, got = send(
                    web.url,
                    m.group(1),
                    fill(m.group(2), values),
                    token,
                    None if m.group(4) is None else fill(m.group(4), values),
                )
                assert status == int(a.group(1)), (req, status, got)
                check(json.loads(a.group(2)), got, values, req)
                exchanges += 1
        assert exchanges >= 20 and {"GAME", "SOUTH", "NORTH", "INVITE"} <= set(values)
    # the server's library holds the resigned game as an ordinary game
    with Store(tmp_path / "server", readonly=True) as st:
        lib = st.game(f"online-{values['GAME']}")
        assert (lib.plies, lib.result, lib.headers()["termination"]) == (["7L*", "5R"], "North wins", "South resigned")


def check_stream(url: str, lines: list[str], values: dict[str, str]) -> None:
    path = fill(lines[0].split(" ", 1)[1], values)
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    assert r.status == 200 and r.headers["content-type"].startswith("text/event-stream")
    want = lines[1:]
    got: list[str] = []
    while len(got) < len(want):
        got.append(r.readline().decode().rstrip("\n"))
    conn.close()
    for w, g in zip(want, got):
        if w.startswith("data: "):
            check(json.loads(fill(w[6:], values)), json.loads(g[6:]), values, w[:40])
        else:
            assert g == fill(w, values)


def _game(url: str) -> dict[str, str]:
    """A game with both seats taken: its id, the two tokens."""
    status, made = send(url, "POST", "/online/v1/games", body=json.dumps({"ruleset": "zanzibar", "name": "A"}))
    assert status == 201
    status, joined = send(url, "POST", "/online/v1/join", body=json.dumps({"invite": made["invite"], "name": "B"}))
    assert status == 200
    return {"game": made["game"], "S": made["token"], "N": joined["token"], "invite": made["invite"]}


def _state(url: str, game: str) -> Any:
    status, state = send(url, "GET", f"/online/v1/games/{game}")
    assert status == 200
    return state


def test_hostile_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"
        assert send(web.url, "POST", move, g["S"], json.dumps({"ply": 1, "move": "7L*"}))[0] == 200
        before = _state(web.url, g["game"])
        tries = [  # (token, body, extra headers, status)
            (g["S"], json.dumps({"ply": 2, "move": "5R"}), {}, 403),  # the wrong seat
            (g["S"][:-1] + ("A" if g["S"][-1] != "A" else "B"), json.dumps({"ply": 2, "move": "5R"}), {}, 403),
            (g["N"], json.dumps({"ply": 2, "move": "6L"}), {}, 422),  # illegal (2.3b)
            (g["N"], json.dumps({"ply": 2, "move": "9Q"}), {}, 400),
            (g["N"], json.dumps({"ply": "2", "move": "5R"}), {}, 400),
            (g["N"], json.dumps({"ply": 2, "move": ["5R"]}), {}, 400),
            (g["N"], json.dumps({"ply": 2, "move": "5R", "pad": "x" * 4000}), {}, 413),
            (g["N"], "\x00\xff{", {}, 400),
            (g["N"], "[" * 100000, {}, 413),
            (g["N"], json.dumps({"ply": 2, "move": "5R"}), {"Origin": "http://evil.example"}, 403),
        ]
        for token, body, headers, want in tries:
            status, got = send(web.url, "POST", move, token, body, headers)
            assert status == want and list(got) in (["error"], ["error", "rule"]), (body[:60], status, got)
            assert "\n" not in got["error"] and len(got["error"]) < 200
        # an invitation used up, guessed or forged: nobody else sits down
        for code in (g["invite"], "A" * 22, "x"):
            status, _ = send(web.url, "POST", "/online/v1/join", body=json.dumps({"invite": code}))
            assert status in (400, 404)
        assert _state(web.url, g["game"]) == before
        # what the server keeps of a token is its digest: a copy of its database seats nobody
        db = (tmp_path / "server" / "index.sqlite3").read_bytes()
        assert g["S"].encode() not in db and g["N"].encode() not in db and g["invite"].encode() not in db


def test_a_flood_is_refused_and_the_game_goes_on_after_it(tmp_path: Path) -> None:
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"
        before = _state(web.url, g["game"])
        statuses = [send(web.url, "POST", move, g["N"], json.dumps({"ply": 1, "move": "7L*"}))[0] for _ in range(120)]
        assert statuses.count(403) >= 20 and statuses.count(429) >= 60, statuses  # (North's turn it is not)
        assert _state(web.url, g["game"]) == before  # reading is not limited; nothing changed
        # the bucket fills again: South's move goes through, in a bounded time
        deadline = time.monotonic() + 10
        while (status := send(web.url, "POST", move, g["S"], json.dumps({"ply": 1, "move": "7L*"}))[0]) == 429:
            assert time.monotonic() < deadline, "still refused"
            time.sleep(0.05)  # (the refill's pace: polled, bounded above)
        assert status == 200 and _state(web.url, g["game"])["moves"] == ["7L*"]


def test_reordered_and_repeated_moves_are_harmless(tmp_path: Path) -> None:
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"

        def post(side: str, ply: int, text: str) -> int:
            return send(web.url, "POST", move, g[side], json.dumps({"ply": ply, "move": text}))[0]

        assert post("S", 3, "6R*") == 409  # ply 3 overtook plies 1 and 2: refused, sent again later
        assert post("S", 1, "7L*") == 200
        assert post("N", 2, "5R") == 200
        assert post("S", 1, "7L*") == 200  # a late repeat of ply 1: a duplicate
        assert post("S", 3, "6R*") == 200
        assert post("N", 2, "5R") == 200 and post("S", 3, "6R*") == 200
        assert _state(web.url, g["game"])["moves"] == ["7L*", "5R", "6R*"]


def test_a_move_the_store_failed_to_keep_leaves_no_follower_deaf(tmp_path: Path) -> None:
    """A move the database did not take (503: send it again) drops the game from the server's memory; a
    follower's event stream on it ends and reconnects, and hears the moves made after (ply 1 sent again,
    ply 2): none waits on the dropped game for moves that never come."""
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"
        follower = Follower(Api(web.url), g["game"]).start()
        heard: list[tuple[str, dict[str, Any]]] = []

        def hear() -> list[str]:
            """The moves heard so far."""
            while not follower.events.empty():
                heard.append(follower.events.get_nowait())
            return [str(d["move"]) for kind, d in heard if kind == "move"]

        try:
            wait_for(lambda: hear() == [] and any(kind == "state" for kind, _ in heard), "the stream's first state")
            st = web.server.online.st
            failed: list[bool] = []

            def add_moves_once_failing(rows: Any, real: Any = st.add_moves) -> Any:
                if not failed:
                    failed.append(True)
                    raise OSError(5, "Input/output error")
                return real(rows)

            web.call(lambda: setattr(st, "add_moves", add_moves_once_failing))
            status, got = send(web.url, "POST", move, g["S"], json.dumps({"ply": 1, "move": "7L*"}))
            assert (status, got["error"]) == (503, "ply 1 could not be stored: send it again")
            assert send(web.url, "POST", move, g["S"], json.dumps({"ply": 1, "move": "7L*"}))[0] == 200
            assert send(web.url, "POST", move, g["N"], json.dumps({"ply": 2, "move": "5R"}))[0] == 200
            assert wait_for(lambda: hear() == ["7L*", "5R"], "the follower to hear both moves")
        finally:
            follower.stop()
        assert any(kind == "down" for kind, _ in heard), heard  # (its stream on the dropped game ended)


def test_a_spectator_reads_every_move_without_a_token_and_cannot_move(tmp_path: Path) -> None:
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"
        u = urllib.parse.urlsplit(web.url)
        conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=10)
        conn.request("GET", f"/online/v1/games/{g['game']}/events")
        r = conn.getresponse()
        for side, ply, text in (("S", 1, "7L*"), ("N", 2, "5R"), ("S", 3, "6R*")):
            assert send(web.url, "POST", move, g[side], json.dumps({"ply": ply, "move": text}))[0] == 200
        seen = []
        while len(seen) < 3:
            line = r.readline().decode()
            if line.startswith("data: ") and '"ply"' in line and '"move"' in line:
                seen.append(json.loads(line[6:])["move"])
        conn.close()
        assert seen == ["7L*", "5R", "6R*"]
        assert send(web.url, "POST", move, "", json.dumps({"ply": 4, "move": "6R*"}))[0] == 401


def test_the_server_keeps_the_clocks_and_decides_a_flag(tmp_path: Path) -> None:
    with serving(tmp_path / "server", sims=0) as web:
        body = {"ruleset": "zanzibar", "name": "A", "clock": {"base": 1, "increment": 0.5}}
        status, made = send(web.url, "POST", "/online/v1/games", body=json.dumps(body))
        assert status == 201
        status, joined = send(web.url, "POST", "/online/v1/join", body=json.dumps({"invite": made["invite"]}))
        move = f"/online/v1/games/{made['game']}/move"
        assert send(web.url, "POST", move, made["token"], json.dumps({"ply": 1, "move": "7L*"}))[0] == 200
        clock = _state(web.url, made["game"])["clock"]
        assert clock["running"] == "N" and 1000 < clock["S"] <= 1500 and clock["N"] <= 1000  # + the increment
        # North does not move: its second runs out, and the server ends the game without anyone asking
        deadline = time.monotonic() + 10
        while (state := _state(web.url, made["game"]))["status"] == "playing":
            assert time.monotonic() < deadline, "no flag"
            time.sleep(0.05)  # (polled, bounded above)
        assert (state["result"], state["reason"], state["clock"]["N"]) == ("South wins", "North's time ran out", 0)
        status, got = send(web.url, "POST", move, joined["token"], json.dumps({"ply": 2, "move": "5R"}))
        assert (status, got["error"]) == (409, "the game is over")
    with Store(tmp_path / "server", readonly=True) as st:
        g = st.game(f"online-{made['game']}")
        assert (g.plies, g.result, g.headers()["termination"]) == (["7L*"], "South wins", "North's time ran out")


def test_the_moves_offered_in_the_browser_say_each_sowing_once(tmp_path: Path) -> None:
    """The words beside each move a page offers (two directions from one pit, ply 4 of 1994): each sowing
    said once, as a player reads it, not once per seed ("sow 3 seeds: a7 a8 b8" three times before)."""
    with serving(tmp_path / "server", sims=0) as web:
        g = _game(web.url)
        move = f"/online/v1/games/{g['game']}/move"
        for side, ply, text in (("S", 1, "7L*"), ("N", 2, "5R"), ("S", 3, "6R*")):
            assert send(web.url, "POST", move, g[side], json.dumps({"ply": ply, "move": text}))[0] == 200
        status, view = send(web.url, "GET", f"/online/game/{g['game']}/ply/3")
        assert status == 200
        words = {x["move"]: x["words"] for x in view["legal"]}
        assert words["6L*"] == "sow 3 seeds: a5 a4 a3; the last seed fell into an empty pit: the move ends", words
        for w in words.values():
            said = w.split("; ")
            assert len(said) == len(set(said)), w


def test_behind_a_tls_proxy_the_public_name_is_answered(tmp_path: Path) -> None:
    """docs/online.md, "Behind TLS": a proxy (Caddy) passes the public name on (Host: club.example) with the
    scheme it was reached by (X-Forwarded-Proto) to a loopback `bao serve`. Without --public-host the loopback
    server refused it (400, DNS rebinding), so the documented set-up answered nothing; with it the pages and
    online play work, a browser's request from the public page's Origin included, another site's still not."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    args = [sys.executable, "-m", "bao_host.cli", "serve", "--sim", "0", "--port", str(port), "--data", str(tmp_path)]
    proc = subprocess.Popen([*args, "--public-host", "club.example"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines = []
        while not any("Ctrl-C to stop" in x for x in lines):
            line = proc.stdout.readline()
            assert line, lines
            lines.append(line)
        assert any(x.startswith("bao serve: players open https://club.example/?token=") for x in lines), lines
        url = f"http://127.0.0.1:{port}"
        proxied = {"Host": "club.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}
        body = json.dumps({"ruleset": "zanzibar", "name": "Asha"})
        status, made = send(
            url, "POST", "/online/v1/games", body=body, headers={**proxied, "Origin": "https://club.example"}
        )
        assert status == 201, made
        status, _ = send(
            url, "POST", "/online/v1/games", body=body, headers={**proxied, "Origin": "https://evil.example"}
        )
        assert status == 403
        status, got = send(url, "GET", f"/online/v1/games/{made['game']}", headers=proxied)
        assert status == 200 and got["seats"]["S"] == "Asha"
    finally:
        proc.terminate()
        proc.wait(20)
    # the same proxy in front of a loopback server that was not told the name: refused
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        while "Ctrl-C to stop" not in (line := proc.stdout.readline()):
            assert line
        u = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        u.request("GET", "/online/v1/games", headers={"Host": "club.example"})
        assert u.getresponse().status == 400
        u.close()
    finally:
        proc.terminate()
        proc.wait(20)


def test_a_players_name_is_text_on_every_online_page(tmp_path: Path) -> None:
    """A name is data: the lobby, the game's page and the spectator's show it escaped, never as markup."""
    evil = "<img src=x onerror=alert(1)>&amp;"
    with serving(tmp_path / "server", sims=0) as web:
        status, made = send(web.url, "POST", "/online/v1/games", body=json.dumps({"name": evil}))
        assert status == 201
        for path in ("/online", f"/online/game/{made['game']}", f"/online/game/{made['game']}/watch"):
            u = urllib.parse.urlsplit(web.url)
            conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=10)
            conn.request("GET", path)
            html = conn.getresponse().read().decode()
            conn.close()
            assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;&amp;amp;" in html, path
