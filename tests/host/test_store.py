"""The game store: import, library commands, crash repair, corrupt files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from bao import core, notation, position_json
from bao_host.cli import library as library_commands
from bao_host.record.store import SCHEMA_VERSION, Store, StoreError

ROOT = Path(__file__).resolve().parents[2]
GAME_1994 = (ROOT / "games" / "zanzibar-1994.txt").read_text()


def run(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    library_commands.register(sub)
    args = p.parse_args(argv)
    return int(args.func(args))


def test_import_replays_and_indexes(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        g = st.import_text(GAME_1994)
        t = notation.parse_transcript(GAME_1994)
        assert g.plies == t.plies
        assert g.south == "Ramadhan" and g.north == "Kijumbe" and g.result == "North wins"
        positions = st.positions(g.id)
        assert [p.d for p in positions] == [p.d for p in notation.replay(t)]
        # positions are indexed: the start of move 2 arose in this game at ply 2
        assert (g.id, 2) in st.games_with_position(positions[2])
        stored = (tmp_path / "games" / (g.key + ".txt")).read_text()
        assert notation.parse_transcript(stored).plies == t.plies
        assert st.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with pytest.raises(StoreError, match="already in the library"):
            st.import_text(GAME_1994)


def test_import_rejects_bad_move(tmp_path: Path) -> None:
    bad = GAME_1994.replace("3: 7R* 8L*;", "3: 7R* b2L;")
    with Store(tmp_path) as st, pytest.raises(StoreError, match="move 3 North b2L"):
        st.import_text(bad)
    assert run(["import", str(tmp_path / "nothing.txt"), "--data", str(tmp_path)]) == 1


def test_library_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "g.txt"
    f.write_text(GAME_1994)
    data = ["--data", str(tmp_path / "d")]
    assert run(["import", str(f), *data]) == 0
    assert run(["name", "1", "--south", "Ali", *data]) == 0
    capsys.readouterr()
    assert run(["games", "--player", "Ali", "--json", *data]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["south"], r["north"], r["moves"]) for r in rows] == [(1, "Ali", "Kijumbe", 52)]
    assert run(["games", "--player", "Nobody", "--json", *data]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert run(["games", "--result", "North", *data]) == 0
    assert "Kijumbe" in capsys.readouterr().out
    assert run(["game", "1", *data]) == 0
    out = capsys.readouterr().out
    assert "26. North" in out and out.count(" to move") == 53
    assert run(["game", "99", *data]) == 1
    assert "no game 99" in capsys.readouterr().err
    for fmt in ("donkers", "kiba", "json"):
        assert run(["export", "1", "--format", fmt, "-o", str(tmp_path / fmt), *data]) == 0
    t = notation.parse_transcript((tmp_path / "kiba").read_text())
    assert len(notation.replay(t, dialect=notation.KIBA)) == 53
    obj = json.loads((tmp_path / "json").read_text())
    assert (
        position_json.from_dict(obj["positions"][-1]).d == notation.replay(notation.parse_transcript(GAME_1994))[-1].d
    )
    # a kiba transcript imports too, converted to Donkers notation
    assert run(["import", str(tmp_path / "kiba"), "--dialect", "kiba", *data]) == 0
    with Store(tmp_path / "d") as st:
        assert st.game(2).plies == st.game(1).plies


def _play_events(st: Store, n: int) -> int:
    """Store a board game through ingest, n plies of the 1994 game; returns the game id."""
    t = notation.parse_transcript(GAME_1994)
    start = core.initial()
    gid = st.ingest("B1", "e1", 1, "GAME", "E1 GAME {}", st.op_start_game("B1", "g1", start, {})).game
    assert gid is not None
    positions = notation.replay(t)
    for i in range(n):
        st.ingest(
            "B1",
            "e1",
            i + 2,
            "MOVE",
            f"E{i + 2} MOVE {t.plies[i]}",
            st.op_move(gid, i + 1, t.plies[i], positions[i + 1], i + 2),
        )
    return gid


def test_ingest_is_idempotent_and_repairs_derived_files(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        gid = _play_events(st, 10)
        again = st.ingest("B1", "e1", 5, "MOVE", "dup", st.op_flag(gid, "x"))
        assert again.duplicate
        g = st.game(gid)
        assert len(g.plies) == 10
        key = g.key
    # a crash after the commit, before the files: the files are made again from the database
    (tmp_path / "games" / (key + ".txt")).unlink()
    jl = tmp_path / "games" / (key + ".jsonl")
    lines = jl.read_text().splitlines()
    jl.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # a half-written line
    con = sqlite3.connect(tmp_path / "index.sqlite3")
    con.execute("UPDATE events SET logged=0 WHERE seq > 3")
    con.commit()
    con.close()
    with Store(tmp_path) as st:
        assert any("half-written line" in p for p in st.problems)
        seqs = [json.loads(x)["seq"] for x in jl.read_text().splitlines()]
        assert sorted(seqs) == list(range(1, 12)) and len(set(seqs)) == 11
        assert (
            notation.parse_transcript((tmp_path / "games" / (key + ".txt")).read_text()).plies
            == notation.parse_transcript(GAME_1994).plies[:10]
        )


def test_corrupt_files_are_reported_not_fatal(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        g = st.import_text(GAME_1994)
        key = g.key
    (tmp_path / "games" / (key + ".txt")).write_text("garbage\x00")
    (tmp_path / "games" / "stray.txt").write_text("not a transcript")
    (tmp_path / "games" / "x.txt.tmp").write_text("half")
    (tmp_path / "boards" / "B9.jsonl").write_text('{"ok": 1}\nnot json\n')
    with Store(tmp_path) as st:
        text = "\n".join(st.problems)
        assert "transcript differs" in text and "stray.txt" in text and "half-written file" in text
        assert "not JSON" in text
        assert st.game(1).plies == notation.parse_transcript(GAME_1994).plies
    # a corrupt database is set aside and rebuilt from the transcripts
    (tmp_path / "index.sqlite3").write_bytes(b"this is not a database" * 100)
    for s in ("-wal", "-shm"):
        p = tmp_path / ("index.sqlite3" + s)
        if p.exists():
            p.unlink()
    with Store(tmp_path) as st:
        assert any("corrupt database" in p for p in st.problems)
        assert [len(g.plies) for g in st.games()] == [52]


def _schema_1(root: Path) -> None:
    """Make the library at root as schema 1 left it: no analyses table, schema 1 in meta."""
    db = sqlite3.connect(root / "index.sqlite3")
    db.execute("DROP TABLE analyses")
    db.execute("UPDATE meta SET value='1' WHERE key='schema'")
    db.commit()
    db.close()


def test_a_library_of_schema_1_keeps_working_and_its_analyses_move_into_the_database(tmp_path: Path) -> None:
    root = tmp_path / "d"
    data = {
        "title": "t",
        "limits": {"nodes": 9},
        "plies": [{"ply": 1, "played": "x", "eval_after": 1.5}],
        "players": [],
        "evals": [0.0, 1.5],
    }
    with Store(root) as st:
        g = st.import_text(GAME_1994)
        bad = st.import_text(GAME_1994, key="../../outside")  # a key that is not a plain name: never a path
    _schema_1(root)
    (root / "games" / (g.key + ".analysis.json")).write_text(json.dumps(data))  # where schema 1 kept it
    (tmp_path / "outside.analysis.json").write_text(json.dumps(data))
    with Store(root, readonly=True) as st:  # read only: nothing changes, the old file is read
        assert st.analysis(st.game(g.id)) == (1, data)
        assert st.analysis(st.game(bad.id)) is None
    db = sqlite3.connect(root / "index.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("1",)
    db.close()
    with Store(root) as st:  # a writer migrates it
        assert st.analysis(st.game(g.id)) == (1, data)
        assert st.analysis(st.game(bad.id)) is None
        assert st.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert len(st.games()) == 2
        data["limits"] = {"depth": 2}
        st.save_analysis(g.id, 52, data)  # a new analysis replaces the old one
        with pytest.raises(StoreError):
            st.save_analysis(999, 1, data)
    (root / "games" / (g.key + ".analysis.json")).unlink()  # the database holds it now
    with Store(root, readonly=True) as st:
        assert st.analysis(st.game(g.id)) == (52, data)
        with pytest.raises(StoreError):
            st.save_analysis(g.id, 1, data)


def test_a_damaged_analysis_is_a_one_line_error(tmp_path: Path) -> None:
    with Store(tmp_path) as st:
        g = st.import_text(GAME_1994)
        st.db.execute("INSERT INTO analyses VALUES (?, 3, '[1, 2', 0)", (g.id,))
        with pytest.raises(StoreError, match="cannot be read"):
            st.analysis(g)
        assert run(["game", str(g.id), "--data", str(tmp_path)]) == 1


def _schema_2(root: Path) -> None:
    """Make the library at root as schema 2 left it: no lessons table, schema 2 in meta."""
    db = sqlite3.connect(root / "index.sqlite3")
    db.execute("DROP TABLE lessons")
    db.execute("UPDATE meta SET value='2' WHERE key='schema'")
    db.commit()
    db.close()


def test_a_learners_progress_is_kept_and_a_library_of_schema_2_gets_the_lessons_table(tmp_path: Path) -> None:
    root = tmp_path / "d"
    with Store(root) as st:
        g = st.import_text(GAME_1994)
    _schema_2(root)
    with Store(root, readonly=True) as st:  # read only: no table yet, no progress, nothing changed
        assert st.lessons_progress() == {}
    with Store(root) as st:  # a writer migrates it: its games stay, the progress is kept from now on
        assert st.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert [x.id for x in st.games()] == [g.id]
        st.save_lesson("zanzibar-01-namua-capture", 2, 1, 1)
        st.save_lesson("zanzibar-02-house", 2, 2, 0)
        st.save_lesson("zanzibar-02-house", 2, 0, 0)  # taken again and left at once: still done
    with Store(root, readonly=True) as st:
        kept = st.lessons_progress()
        with pytest.raises(StoreError):
            st.save_lesson("x", 1, 1, 0)
    assert [(p.name, p.tasks_done, p.wrong, p.done) for p in sorted(kept.values(), key=lambda p: p.name)] == [
        ("zanzibar-01-namua-capture", 1, 1, False),
        ("zanzibar-02-house", 0, 0, True),
    ]
