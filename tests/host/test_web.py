"""`bao serve` without a browser: the library's pages and search, replays that end where the rules core
does, both notations and export, the engine's analysis, the security rules (token, spectators, escaping,
no path from a request to the file system) and the live board over a real event stream."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from bao import core, notation
from bao_host.cli import main as bao_main
from bao_host.cli.serve import allowed_hosts, is_loopback
from bao_host.record.store import Store
from bao_host.ui.web import library
from bao_host.ui.web.app import Settings, create_app
from bao_testkit.webrig import serving, state, wait_for
from baoboard.recogniser import PIT, activations
from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
T1994_TEXT = (ROOT / "games" / "zanzibar-1994.txt").read_text()
T1994 = notation.parse_transcript(T1994_TEXT)
EVIL = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


def _short_game(plies: int, south: str, north: str, date: str, ruleset: str = "zanzibar") -> str:
    head = f"South: {south}\nNorth: {north}\ndate: {date}\nruleset: {ruleset}\n"
    if ruleset == core.MALAWI:
        p = core.initial(core.MALAWI)
        moves = []
        for _ in range(plies):
            m, child = core.legal_moves(p)[0]
            moves.append(core.format_move(m, p.to_move))
            p = child
    else:
        moves = T1994.plies[:plies]
    return head + notation.format_transcript({}, moves)


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    """A library: the 1994 game, a short one of Ali's with an evil name for North, a Malawi game."""
    d = tmp_path / "data"
    with Store(d) as st:
        st.import_text(T1994_TEXT)
        st.import_text(_short_game(6, "Ali", EVIL, "2026-11-20"))
        st.import_text(_short_game(4, "Bibi", "Ali", "2025-03-01", core.MALAWI))
    return d


@pytest.fixture
def client(library_dir: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data=library_dir, sims=0, allowed_hosts=["testserver"]))
    with TestClient(app) as c:
        yield c


def _ids(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'<a href="/games/(\d+)"', html)]


def test_the_library_searches_by_player_date_ruleset_and_result(client: TestClient) -> None:
    assert sorted(_ids(client.get("/games").text)) == [1, 2, 3]
    assert sorted(_ids(client.get("/games", params={"player": "ali"}).text)) == [2, 3]
    assert _ids(client.get("/games", params={"date": "2025"}).text) == [3]
    assert _ids(client.get("/games", params={"ruleset": "malawi"}).text) == [3]
    assert sorted(_ids(client.get("/games", params={"ruleset": "zanzibar"}).text)) == [1, 2]
    page = client.get("/games", params={"result": "wins"}).text
    assert _ids(page) == [1] and "1 game<" in page


def test_the_library_says_what_it_leaves_out(library_dir: Path) -> None:
    """A board's new game left before its first move (a lesson laid out on it) and the lesson's task are not
    games to read: the library leaves them out and says how many, as `bao games` does."""
    start = core.initial(core.ZANZIBAR)
    with Store(library_dir) as st:
        empty = st.ingest("b1", "e1", 1, "GAME", "{}", st.op_start_game("b1", "g1", start, {})).game
        st.ingest("b1", "e1", 2, "GAME", "{}", st.op_start_game("b1", "g2", start, {}, leaves=empty, source="lesson"))
    app = create_app(Settings(data=library_dir, sims=0, allowed_hosts=["testserver"]))
    with TestClient(app) as c:
        page = c.get("/games").text
        assert sorted(_ids(page)) == [1, 2, 3]
        found = re.search(r'<p class="found" id="found">(.*?)</p>', page)
        assert found is not None and found.group(1) == (
            "3 games; not listed: 1 lesson task and puzzles played on the board, 1 game abandoned before its first move"
        )
        assert "not listed" not in c.get("/games", params={"ruleset": "malawi"}).text  # (both are Zanzibar's)


def test_library_texts_are_escaped_never_markup(client: TestClient) -> None:
    for url in ("/games", "/games/2", "/games?player=" + EVIL):
        html = client.get(url).text
        assert "<script>window" not in html and "<img src=x" not in html, url
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html or url.startswith("/games?"), url
    # the JSON a replay page embeds cannot close its <script> either
    html = client.get("/games/2").text
    data = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert data is not None and json.loads(data.group(1))["plies"][0]["donkers"] == T1994.plies[0]


def test_a_replay_goes_drop_by_drop_and_ends_where_the_rules_core_does(library_dir: Path) -> None:
    with Store(library_dir) as st:
        g = st.game(1)
        positions = st.positions(1)
        r = library.replay(st, g)
    assert len(r["plies"]) == len(T1994.plies)
    for i, ply in enumerate(r["plies"]):
        move, _ = notation.parse_move(positions[i], ply["donkers"])
        # every pit a hand touches, in the order the board expects the touches, is one frame
        touched = [f["pit"] for f in ply["frames"] if f["kind"] not in ("house", "end")]
        assert touched == [a & PIT for a in activations(positions[i], move)], i
        # the account's last frame is the stored position: no frame was added to make it so
        assert ply["frames"][-1]["counts"] == positions[i + 1].counts(), i
        assert all(f["text"] != "the position after the move" for f in ply["frames"]), i
    first = r["plies"][0]["frames"]
    assert first[0]["text"].startswith("a seed from the store goes into") and "(2.2)" in first[0]["text"]
    with Store(library_dir) as st:  # a Malawi game too
        malawi = st.game(3)
        r = library.replay(st, malawi)
        assert [p["frames"][-1]["counts"] for p in r["plies"]] == [q.counts() for q in st.positions(3)[1:]]
        assert r["plies"][0]["frames"][0]["kind"] == "lift"


def test_the_kuu_games_replay_drop_by_drop_in_the_library(tmp_path: Path) -> None:
    """A game of each kuu ruleset imported and replayed on the web (issue #12): each ply's frames are the
    touches the board expects, the advanced placement one drop per ply (M22), and end on the stored position."""
    import random

    from bao_testkit.simrig import random_game

    rng = random.Random(5)
    with Store(tmp_path / "d") as st:
        for ruleset in ("malawi-intermediate", "malawi-advanced"):
            g = random_game(rng, ruleset)
            gid = st.import_text(notation.format_transcript({"ruleset": ruleset}, g.plies)).id
            positions = st.positions(gid)
            r = library.replay(st, st.game(gid))
            assert [p["donkers"] for p in r["plies"]] == g.plies and len(g.plies) > 10
            for i, ply in enumerate(r["plies"]):
                move, _ = notation.parse_move(positions[i], ply["donkers"])
                touched = [f["pit"] for f in ply["frames"] if f["kind"] not in ("house", "end")]
                assert touched == [a & PIT for a in activations(positions[i], move)], (ruleset, i)
                assert ply["frames"][-1]["counts"] == positions[i + 1].counts(), (ruleset, i)
            if ruleset == "malawi-advanced":
                assert all(p.count("@") == 1 for p in g.plies[:10])


def test_both_notations_and_the_export_round_trip(client: TestClient, library_dir: Path) -> None:
    page = client.get("/games/1").text
    with Store(library_dir) as st:
        kiba = library.kiba_plies(st.positions(1), st.game(1).plies)
    for d, k in list(zip(T1994.plies, kiba))[:10]:
        assert f'<td class="mv">{d}</td><td class="mv">{k}</td>' in page.replace("&gt;", ">").replace("&lt;", "<")
    for dialect in ("donkers", "kiba"):
        r = client.get(f"/games/1/export/{dialect}")
        assert r.status_code == 200
        assert r.headers["content-disposition"] == f'attachment; filename="bao-game-1-{dialect}.txt"'
        t = notation.parse_transcript(r.text)
        assert notation.replay(t, dialect=notation.transcript_dialect(t))[-1] == notation.replay(T1994)[-1]
    assert client.get("/games/1/export/pdf").status_code == 404


def test_the_engines_analysis_is_shown_when_there_is_one(client: TestClient, library_dir: Path) -> None:
    assert "Engine analysis" not in client.get("/games/2").text
    assert bao_main(["analyse", "2", "--data", str(library_dir), "--depth", "1", "--quiet"]) == 0
    assert list((library_dir / "games").glob("*.analysis.json")) == []  # kept in the library's database
    page = client.get("/games/2").text
    assert "Engine analysis" in page and '<polyline points="' in page
    assert "average loss" in page and "&lt;script&gt;" in page  # North's name, escaped, in the summary


def test_no_path_from_a_request_reaches_the_file_system(client: TestClient) -> None:
    secret = "[build-system]"  # pyproject.toml's first line, two folders up from the static files
    for url in (
        "/static/../../../../pyproject.toml",
        "/static/..%2f..%2f..%2f..%2fpyproject.toml",
        "/static/%2e%2e/app.py",
        "/static/app.py",
        "/static/",
        "/games/1/export/..%2f..%2findex.sqlite3",
        "/games/..%2findex.sqlite3",
        "/board/..%2f..%2fpyproject.toml",
        "/board/%2e%2e/watch",
    ):
        r = client.get(url)
        assert r.status_code == 404, url
        assert secret not in r.text and "import " not in r.text, url
    assert client.get("/static/board.js").status_code == 200


def test_a_game_key_that_is_not_a_plain_name_is_never_a_path(tmp_path: Path) -> None:
    with Store(tmp_path / "d") as st:
        g = st.import_text(T1994_TEXT, key="../../outside")
        (tmp_path / "outside.analysis.json").write_text(json.dumps({"plies": [], "evals": [1, 2]}))
        assert library.analysis(st, g) is None
        assert library.analysis(st, st.import_text(_short_game(2, "A", "B", "2026-01-01"))) is None


def test_changes_need_the_token_and_come_from_the_servers_own_pages(tmp_path: Path) -> None:
    app = create_app(Settings(data=tmp_path / "d", sims=1, token="s3cret", allowed_hosts=["testserver"]))
    with TestClient(app) as c:
        wait_for(lambda: c.get("/board/sim-1/state").json()["game"] is not None, "the board's game")
        before = c.get("/board/sim-1/state").json()
        assert c.post("/board/sim-1/touch", json={"pit": 4}).status_code == 403
        assert c.post("/board/sim-1/new", json={"ruleset": "malawi"}).status_code == 403
        assert c.post("/board/sim-1/touch?token=wrong", json={"pit": 4}).status_code == 403
        # the spectator's page has no controls and no clickable pits, with the token or not
        watch = c.get("/board/sim-1/watch?token=s3cret").text
        assert 'data-playing="no"' in watch and "new-game" not in watch and "clickable" not in watch
        player = c.get("/board/sim-1").text  # without the token: watching only
        assert 'data-playing="no"' in player and "token" in player
        assert 'data-playing="yes"' in c.get("/board/sim-1?token=s3cret").text
        # with the token, from a form of another site (not JSON) or with another Origin: refused
        hdr = {"X-Bao-Token": "s3cret"}
        assert c.post("/board/sim-1/touch", data={"pit": "4"}, headers=hdr).status_code == 415
        assert (
            c.post("/board/sim-1/touch", json={"pit": 4}, headers={**hdr, "Origin": "http://evil.example"}).status_code
            == 403
        )
        assert c.get("/board/sim-1/state").json()["counts"] == before["counts"]
        assert c.post("/board/sim-1/touch", json={"pit": 99}, headers=hdr).status_code == 400
        assert c.post("/board/sim-1/touch", json={"pit": "4"}, headers=hdr).status_code == 400
        assert c.post("/board/sim-1/launch", json={}, headers=hdr).status_code == 404
        p0 = core.initial()
        first = activations(p0, notation.parse_move(p0, T1994.plies[0])[0])[0] & PIT
        r = c.post("/board/sim-1/touch", json={"pit": first}, headers={**hdr, "Origin": "http://testserver"})
        assert r.status_code == 200
        wait_for(lambda: c.get("/board/sim-1/state").json()["counts"] != before["counts"], "the touch")


def test_a_loopback_server_answers_only_its_own_names() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7")
    assert "evil.example" not in allowed_hosts("127.0.0.1") and allowed_hosts("0.0.0.0") == ["*"]


def test_loopback_pages_refuse_a_foreign_host_name(tmp_path: Path) -> None:
    app = create_app(Settings(data=tmp_path / "d", sims=0, allowed_hosts=allowed_hosts("127.0.0.1")))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/").status_code == 200
        assert c.get("/", headers={"Host": "evil.example"}).status_code == 400


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_bao_serve_off_the_loopback_prints_a_token_and_needs_it(tmp_path: Path) -> None:
    port = _free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bao_host.cli",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "d"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        lines = []
        while not any("Ctrl-C" in ln for ln in lines):
            line = proc.stdout.readline()
            assert line, "bao serve stopped: " + "".join(lines)
            lines.append(line)
        token = re.search(r"token=([\w-]+)", "".join(lines)).group(1)  # type: ignore[union-attr]
        # issue #25: the addresses printed are ones a player can open, never the wildcard 0.0.0.0
        assert "0.0.0.0" not in "".join(lines), lines
        assert f"http://127.0.0.1:{port}/?token={token}" in "".join(lines), lines
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: httpx.get(base + "/board/sim-1/state").json()["game"] is not None, "the board")
        assert httpx.post(base + "/board/sim-1/touch", json={"pit": 4}).status_code == 403
        assert httpx.get(base + "/board/sim-1/watch").status_code == 200  # spectators need none
        icon = httpx.get(base + "/favicon.ico")  # (it was the page's only console error: a 404)
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
        assert (
            httpx.post(base + "/board/sim-1/touch", json={"pit": 4}, headers={"X-Bao-Token": token}).status_code == 200
        )
    finally:
        proc.terminate()
        proc.wait(20)


def test_bao_serve_listens_on_the_loopback_by_default() -> None:
    from bao_host.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.sim == 1


def _events(url: str, until: int, timeout: float = 30.0) -> Iterator[dict[str, object]]:
    with httpx.stream("GET", url, timeout=timeout) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data: "):
                s = json.loads(line[6:])
                yield s
                if len(s["plies"]) >= until:  # type: ignore[arg-type]
                    return


def test_the_event_stream_follows_a_game_played_on_the_simulated_board(tmp_path: Path) -> None:
    positions = notation.replay(T1994)
    with serving(tmp_path / "d") as web:
        board = web.board()
        got: list[dict[str, object]] = []
        import threading

        reader = threading.Thread(target=lambda: got.extend(_events(web.url + "/board/sim-1/events", 3)))
        reader.start()
        wait_for(lambda: got, "the first snapshot")
        for i in range(3):
            move, _ = notation.parse_move(positions[i], T1994.plies[i])
            assert board.runner.perform(positions[i], move).wait(30)
        reader.join(30)
        assert not reader.is_alive()
        last = got[-1]
        assert last["plies"] == T1994.plies[:3]
        said = board.feed.leds.hex()  # (the frame the board said last: read on the server's thread only)
        assert last["leds"] == said or state(web)["leds"] == board.feed.leds.hex()
        seqs = [s["stored_seq"] for s in got]
        assert seqs == sorted(seqs) and time.time() - float(last["stored"]) < 60  # type: ignore[arg-type]


def test_the_page_says_a_new_game_left_the_old_one_abandoned(tmp_path: Path) -> None:
    # the library marks a game left before its end abandoned (#26 item 9) and the logger says so; the terminal
    # UI showed it, the page did not (it passes only the logger's "new game" info lines)
    positions = notation.replay(T1994)
    app = create_app(Settings(data=tmp_path / "d", sims=1, token="s3cret", allowed_hosts=["testserver"]))
    with TestClient(app) as c:
        wait_for(lambda: c.get("/board/sim-1/state").json()["game"] is not None, "the board's game")
        hdr = {"X-Bao-Token": "s3cret", "Origin": "http://testserver"}
        old = c.get("/board/sim-1/state").json()["game"]
        move, _ = notation.parse_move(positions[0], T1994.plies[0])
        for pit in activations(positions[0], move):
            assert c.post("/board/sim-1/touch", json={"pit": pit & PIT}, headers=hdr).status_code == 200
        wait_for(lambda: c.get("/board/sim-1/state").json()["plies"] == T1994.plies[:1], "the first move")
        assert c.post("/board/sim-1/new", json={"ruleset": "zanzibar"}, headers=hdr).status_code == 200
        said = f"game {old} marked abandoned in the library (a new game before it ended)"
        wait_for(lambda: said in c.get("/board/sim-1/state").json()["messages"], "the old game said abandoned")


def test_a_page_for_each_board(tmp_path: Path) -> None:
    with serving(tmp_path / "d", sims=2) as web:
        s1, s2 = state(web, "sim-1"), state(web, "sim-2")
        assert (s1["board_id"], s2["board_id"]) == ("web-0001", "web-0002") and s1["game"] != s2["game"]
        index = httpx.get(web.url + "/").text
        assert "/board/sim-1/watch" in index and "/board/sim-2/watch" in index
        assert httpx.get(web.url + "/board/sim-3").status_code == 404
        try:
            urllib.request.urlopen(web.url + "/board/sim-3/state")
            raise AssertionError("no sim-3")
        except urllib.error.HTTPError as e:
            assert e.code == 404


def test_a_board_on_a_serial_line_is_followed_with_its_leds(tmp_path: Path) -> None:
    """A board the server does not run (here the simulated board on a pseudo-terminal, as a real one on
    USB): its games through the logger, its LED frame read with SNAP; its page cannot be played."""
    from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner

    (tmp_path / "flash").mkdir()
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(tmp_path / "flash"), board_id="club-7"), link).start()
    positions = notation.replay(T1994)
    try:
        with serving(tmp_path / "d", sims=0, ports=[link.path]) as web:
            wait_for(lambda: state(web, "board-1")["game"] is not None, "the board's game")
            assert state(web, "board-1")["board_id"] == "club-7"
            for i in range(2):
                move, _ = notation.parse_move(positions[i], T1994.plies[i])
                assert runner.perform(positions[i], move).wait(30)
            wait_for(lambda: state(web, "board-1")["plies"] == T1994.plies[:2], "the moves logged")
            wait_for(lambda: state(web, "board-1")["leds"] == runner.leds().hex(), "the board's LEDs")
            assert state(web, "board-1")["counts"] == positions[2].counts()[:32]
            r = httpx.post(web.url + "/board/board-1/touch", json={"pit": 4})
            assert r.status_code == 403 and "played on the board itself" in r.json()["error"]
            assert 'data-playing="no"' in httpx.get(web.url + "/board/board-1").text
    finally:
        runner.close()


def test_the_web_board_shows_the_seeds_left_to_place(tmp_path: Path) -> None:
    """The page colours each pit from the board's LED frame (static/board.js): the advanced game's
    placement count is there as the board draws it, gold pits on the far back row (docs/leds.md, M22)."""
    app = create_app(Settings(data=tmp_path / "d", sims=1, token="s3cret", allowed_hosts=["testserver"]))
    gold = f"{0xFF * 64 >> 8:02x}{0xC0 * 64 >> 8:02x}00"  # at the board's default brightness

    def golden() -> list[int]:
        leds = c.get("/board/sim-1/state").json()["leds"]
        return [i for i in range(32) if leds[6 * i : 6 * i + 6] == gold]

    with TestClient(app) as c:
        wait_for(lambda: c.get("/board/sim-1/state").json()["game"] is not None, "the board's game")
        hdr = {"X-Bao-Token": "s3cret", "Origin": "http://testserver"}
        assert golden() == []  # Zanzibar: no placement
        assert c.post("/board/sim-1/new", json={"ruleset": "malawi-advanced"}, headers=hdr).status_code == 200
        wait_for(lambda: golden() == [24, 25, 26, 27, 28], "five seeds to place: b8..b4 gold")
        p = core.initial("malawi-advanced")
        for pit in activations(p, notation.parse_move(p, "@A4")[0]):  # lift A6, A7, a seed into A4
            assert c.post("/board/sim-1/touch", json={"pit": pit & PIT}, headers=hdr).status_code == 200
        wait_for(lambda: golden() == [24, 25, 26, 27], "four left")
        wait_for(lambda: c.get("/board/sim-1/state").json()["plies"] == ["@A4"], "the drop logged")


def test_bao_serve_on_a_port_in_use_says_so_in_one_line(tmp_path: Path) -> None:
    """Another program holds the port: one line of bao serve's, nothing claiming it serves there."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "bao_host.cli", "serve", "--sim", "0", "--port", str(port), "--data", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr.splitlines() == [
        f"bao serve: could not listen on 127.0.0.1:{port} (in use, or not an address here)"
    ]


def test_the_puzzle_page_says_how_a_move_is_written(tmp_path: Path) -> None:
    # issue #28, used as a user would: the puzzle page asks for a move in notation ("your move", placeholder
    # "e.g. A5R or b3L*", gone once typing) and said nowhere what L, R, a lone number or * mean: a beginner did
    # not know what to type. The page says it under the field, with the rule numbers of docs/rules.md
    from bao_testkit import puzzlerig

    sets = puzzlerig.write_sets(tmp_path / "sets")
    app = create_app(Settings(data=tmp_path / "data", sims=0, allowed_hosts=["testserver"], puzzles=sets))
    with TestClient(app) as c:
        html = c.get(f"/puzzles/{puzzlerig.ZANZIBAR_ID}").text
    said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    for words in (
        "the pit you start from, then L or R",
        "towards pit 1 (L) or pit 8 (R)",
        "while the store holds seeds, the pit's number only",
        "G6, G7",
        "a takasa",
    ):
        assert words in said, words
