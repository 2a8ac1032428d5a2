"""The logger's handling of board events: storage, dedupe, re-checking moves, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bao import notation, position_json, query
from bao_host.record.logger import Logger, ProtocolError
from bao_host.record.store import Store

ROOT = Path(__file__).resolve().parents[2]
T1994 = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
POS1994 = notation.replay(T1994)
HELLO = {"proto": "1", "fw": "0.1.0", "board": "e6614103", "epoch": "ab12cd34", "last": "0", "acked": "0"}


def events_1994() -> list[tuple[int, str, str]]:
    out = [(1, "GAME", json.dumps({"ruleset": "zanzibar"}))]
    for i, text in enumerate(T1994.plies):
        out.append((i + 2, "MOVE", text + " " + position_json.dumps(POS1994[i + 1], False)))
    out.append((len(out) + 1, "END", '{"winner": "N"}'))
    return out


def feed(lg: Logger, evs: list[tuple[int, str, str]]) -> None:
    for seq, typ, payload in evs:
        lg.event(seq, typ, payload, f"E{seq} {typ} {payload}")


def test_1994_game_is_stored(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        lg = Logger(st, south="Ramadhan", north="Kijumbe", place="Zanzibar")
        lg.hello(HELLO, "/dev/pts/9")
        feed(lg, events_1994())
        [g] = st.games()
        assert g.plies == T1994.plies
        assert g.result == "North wins" and g.status == "over"
        assert (g.south, g.north, g.board_id, g.firmware) == ("Ramadhan", "Kijumbe", "e6614103", "0.1.0")
        text = (tmp_path / "games" / (g.key + ".txt")).read_text()
        t = notation.parse_transcript(text)
        assert t.plies == T1994.plies and t.header("board") == "e6614103" and t.header("south") == "Ramadhan"
        assert notation.replay(t)[-1].d == POS1994[-1].d
        lines = (tmp_path / "games" / (g.key + ".jsonl")).read_text().splitlines()
        assert [json.loads(x)["seq"] for x in lines] == list(range(1, 55))
        assert lg.counters.moves == 52 and lg.counters.flagged == 0
        assert lg.view.position is not None and lg.view.position.d == POS1994[-1].d


def test_duplicates_and_restart_store_nothing_twice(tmp_path: Path) -> None:
    evs = events_1994()
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(HELLO)
        feed(lg, evs[:20])
        feed(lg, evs[10:25])  # resent after a lost ack
        assert lg.counters.duplicates == 10
    with Store(tmp_path) as st:  # the logger killed and started again: the board resends the unacked
        lg = Logger(st)
        lg.hello(HELLO)
        feed(lg, evs[15:])
        [g] = st.games()
        assert g.plies == T1994.plies
        n = st.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        assert n == len(evs)


def test_a_move_that_does_not_follow_is_flagged_not_stored(tmp_path: Path) -> None:
    evs = events_1994()
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(HELLO)
        feed(lg, evs[:5])
        # move 3 South: "B2L" is not a move here (namua stage)
        r = lg.event(100, "MOVE", "B2L " + position_json.dumps(POS1994[5], False), "E100 MOVE b2L ...")
        assert r.flag and not r.stored and "does not follow" in r.flag and "2.4" in r.flag
        # the right text but another position than the rules core computes
        wrong = POS1994[5].copy()
        moved = [i for i in range(32) if wrong.d[i]][0]
        wrong.d[moved] -= 1
        wrong.d[(moved + 1) % 32] += 1
        r = lg.event(101, "MOVE", T1994.plies[4] + " " + position_json.dumps(wrong, False), "E101")
        assert r.flag and "another position" in r.flag
        r = lg.event(102, "MOVE", T1994.plies[4] + " {bad json", "E102")
        assert r.flag and "unreadable position" in r.flag
        feed(lg, [(103 + i, typ, p) for i, (_, typ, p) in enumerate(evs[5:])])
        [g] = st.games()
        assert g.plies == T1994.plies
        flagged = [e for e in st.events(g.id) if e["flag"]]
        assert [e["seq"] for e in flagged] == [100, 101, 102]
        assert any("does not follow" in m.text for m in lg.messages)
        assert lg.counters.flagged == 3


def test_bad_input_is_reported_never_stored(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        lg = Logger(st)
        with pytest.raises(ProtocolError, match="protocol 7"):
            lg.hello(dict(HELLO, proto="7"))
        lg.hello(HELLO)
        r = lg.event(1, "MOVE", "7L* {}", "E1 MOVE")
        assert r.flag and "before any game" in r.flag
        r = lg.event(2, "GAME", "{not json", "E2 GAME {not json")
        assert r.flag and "unreadable payload" in r.flag
        r = lg.event(3, "GAME", '{"ruleset": "chess"}', "E3")
        assert r.flag and "unreadable payload" in r.flag
        assert st.games() == []
        lg.bad_input("line with a wrong checksum dropped", "E4 MOVE 7L* *DEADBEEF")
        lg.event(4, "UNDO", "", "E4 UNDO")
        lg.event(5, "ILLEGAL", "reason=2.4 back row", "E5")
        assert lg.counters.bad_frames == 1
        assert st.db.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0


def test_undo_takes_back_the_last_move(tmp_path: Path) -> None:
    evs = events_1994()
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(HELLO)
        feed(lg, evs[:4])
        lg.event(5, "UNDO", "", "E5 UNDO")
        feed(lg, [(6, "MOVE", evs[3][2]), (7, "MOVE", evs[4][2])])
        [g] = st.games()
        assert g.plies == T1994.plies[:4]
        assert st.current_position(g.id).d == POS1994[4].d
        assert query.seed_total(st.current_position(g.id)) == 64


def test_a_new_game_leaves_the_previous_one_abandoned_not_playing(tmp_path: Path) -> None:
    """Issue #26: after a host's NEW (the board's next GAME event), the game left before its end, empty or
    not, was kept as '(playing)'; it is 'abandoned', said once. A game that ended stays over."""
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello({"proto": "1", "board": "B1", "epoch": "e1"})
        lg.event(1, "GAME", '{"ruleset": "zanzibar"}', "E1 GAME")
        lg.event(2, "GAME", '{"ruleset": "zanzibar"}', "E2 GAME")  # NEW before any move
        lg.event(3, "END", '{"winner":"S"}', "E3 END")
        lg.event(4, "GAME", '{"ruleset": "zanzibar"}', "E4 GAME")
        assert [g.status for g in st.games()] == ["abandoned", "over", "playing"]
        said = [m.text for m in lg.messages if "abandoned" in m.text]
        assert said == ["game 1 marked abandoned in the library (a new game before it ended)"], said


def test_touches_the_board_could_not_read_are_said_in_words(tmp_path: Path) -> None:
    """Issue #26 item 8: a board touched while its first boot prepared the flash says so once ready
    (N0 IGNORED reason=preparing); the player reads that those touches made no move."""
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(HELLO)
        lg.notice("IGNORED", "reason=preparing steps=4", "N0 IGNORED reason=preparing steps=4 *00000000")
        last = lg.messages[-1]
        assert last.level == "warn" and "before it was ready" in last.text and "no move" in last.text


def test_the_boards_notices_are_said_in_a_players_words(tmp_path: Path) -> None:
    """Issue #25: a notice was said raw ("board notice CANCEL A5", "board notice UNRECORDED pending=40"); the
    ones a player meets are said in words, and only one the host has no words for stays the link's detail."""
    with Store(tmp_path) as st:
        lg = Logger(st)
        lg.hello(HELLO)
        said = {}
        for typ, payload in (
            ("CANCEL", "A5"),
            ("NOUNDO", "no move to take back"),
            ("UNRECORDED", "pending=40"),
            ("FULL", "pending=40"),
            ("NEWTHING", "x=1"),
        ):
            lg.notice(typ, payload, f"N0 {typ} {payload} *00000000")
            said[typ] = (lg.messages[-1].level, lg.messages[-1].text)
        assert said["CANCEL"] == ("info", "the move under way was abandoned (the undo gesture on A5): play it again")
        assert said["NOUNDO"] == ("info", "nothing to undo: no move to take back")
        assert said["UNRECORDED"][0] == "warn" and "not recording this game: 40 events wait" in said["UNRECORDED"][1]
        assert said["FULL"][0] == "warn" and "it was not taken" in said["FULL"][1]
        assert said["NEWTHING"] == ("detail", "board notice NEWTHING x=1")
        assert not [t for typ, (_, t) in said.items() if typ != "NEWTHING" and "notice" in t]
