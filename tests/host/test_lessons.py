"""Lessons as data (issue #28; bao_host.lessons): every lesson file loads, each task has a right answer and a
wrong one in its position (by the rules core), a scripted learner completes a lesson on the simulated board (the
set-up mode lays the position out, a wrong answer is explained and the position laid out again), and the
coverage of docs/rules.md's Zanzibar rules by the lessons."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import serial
from bao import core, notation
from bao_host import lessons
from bao_host.record.state import DECISION, IDLE
from baoboard import recogniser as R
from tui_rig import Rig


def test_every_lesson_loads_and_each_task_has_a_right_and_a_wrong_answer() -> None:
    found = lessons.load_all()
    assert len(found) >= 3
    for lesson in found:
        for i, task in enumerate(lesson.tasks, 1):
            p = lesson.position_of(task)
            moves = core.legal_move_codes(p)
            right = [m for m in moves if task.right(p, m)]
            # something to explain when wrong: a legal move that is not the answer, or a move the board refuses
            # for the rule the task teaches (a lone kichwa has one legal move: 2.4a)
            assert right and (len(right) < len(moves) or task.refused), (lesson.name, i)
            for r in task.refused:
                assert r.rule in lesson.rules and r.reason.startswith(r.rule + ": "), (lesson.name, i, r)
                with pytest.raises(core.IllegalMoveError):
                    notation.parse_move(p, r.move)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("title = 'x'", "no ruleset"),
        (
            "title = 'x'\nruleset = 'zanzibar'\nrules = ['9.9']\ntext = ''\nposition = '{}'\n[[task]]\nprompt='p'\n",
            "position",
        ),
        ("title = [", "x.toml: "),
    ],
)
def test_a_bad_lesson_file_is_one_clear_line(tmp_path: Path, text: str, said: str) -> None:
    f = tmp_path / "x.toml"
    f.write_text(text)
    with pytest.raises(lessons.LessonError) as e:
        lessons.load(f)
    assert said in str(e.value) and "\n" not in str(e.value)


def test_a_rule_not_explained_in_docs_is_refused(tmp_path: Path) -> None:
    good = (lessons.LESSONS / "zanzibar-01-namua-capture.toml").read_text()
    f = tmp_path / "y.toml"
    f.write_text(good.replace('"R3"]', '"R3", "4.9"]'))
    with pytest.raises(lessons.LessonError, match=r"rule 4\.9 is not explained"):
        lessons.load(f)


# A person reads the task before playing. Long enough for the set-up to hand the pit it filled last over to
# play (setup_mode._LINGER_MS): many answers start from that pit (a retry after a wrong answer from the same pit).
READ_MS = 3000


def _has_wrong(lesson: lessons.Lesson, task: lessons.Task) -> bool:
    p = lesson.position_of(task)
    return any(not task.right(p, m) for m in core.legal_move_codes(p))


def _learner(rig: Rig, run: lessons.LessonRun, wrong_first: bool, limit: int = 400) -> list[str]:
    """A scripted learner on the simulated board: does what the set-up's words say (touches the lit place), and
    answers each task with a move played pit by pit: first a wrong one (when wrong_first), then a right one."""
    said: list[str] = []
    tried: set[int] = set()
    for _ in range(limit):
        rig.runner.pump()
        said += run.poll()
        said += rig.sim.poll()
        if run.state == "done":
            return said
        step = rig.sim.setup_step
        if step is not None:
            at = step.at
            rig.runner.tap(31 if at == "store-N" else 15 if at == "store-S" else core.pit_index(at))
            continue
        if run.state != "task" or rig.board.phase != IDLE:
            if rig.board.phase == DECISION:  # 2.5b: stop in the house, as the board's host may (STOP)
                r = rig.session.command("STOP")
                assert r is not None and r.ok, r
            continue
        p = run.position
        if rig.board.position.d != p.d:
            continue
        task = run.lesson.tasks[run.task]
        moves = core.legal_move_codes(p)
        wrong = [m for m in moves if not task.right(p, m)]
        if wrong_first and run.task not in tried:
            tried.add(run.task)
            said += _refused_touches(rig, p, task)
            if wrong:
                move = wrong[0]
            else:
                continue
        else:
            move = [m for m in moves if task.right(p, m)][0]
        rig.board.run(READ_MS // 5, 5)  # the learner reads the task (the board's clock: no wall-clock sleep)
        for pit in R.activations(p, move):
            rig.runner.tap(pit & R.PIT)
    raise AssertionError(f"the lesson did not end: {run.state}, said {said[-6:]}")


def _refused_touches(rig: Rig, p: core.Position, task: lessons.Task) -> list[str]:
    """The learner tries each refused move that the board refuses at its first touch (a start from a pit no
    direction allows): the board says why, naming the rule (its ILLEGAL event, as the logger says it)."""
    said: list[str] = []
    legal_starts = {m & core.RING for m in core.legal_move_codes(p)}
    for r in task.refused:
        parsed = notation.parse_text(r.move)
        ring = 15 - (parsed.pit - 1) if parsed.row in ("B", "b") else parsed.pit - 1
        if ring in legal_starts:
            continue  # refused by its direction only: checked by the rules core (the loader)
        legal_starts.add(ring)  # a pit once (the same pit again is the seed taken back out)
        before = rig.logger.said
        rig.runner.tap((p.to_move << 4) + ring)
        rig.runner.pump()
        new = (
            [m.text for m in list(rig.logger.messages)[before - rig.logger.said :]] if rig.logger.said > before else []
        )
        assert any(t.startswith("refused ") and r.rule in t for t in new), (r, new)
        said += new
    return said


@pytest.mark.parametrize("name", [f.stem for f in sorted(lessons.LESSONS.glob("*.toml"))])
def test_a_scripted_learner_completes_the_lesson_on_the_simulated_board(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    try:
        rig.connect()
        lesson = lessons.load(lessons.LESSONS / f"{name}.toml")
        store = rig.logger.store  # the learner's progress, kept in the library as `make run` keeps it

        def progress(done: int, wrong: int) -> None:
            store.save_lesson(lesson.name, len(lesson.tasks), done, wrong)

        run = lessons.LessonRun(lesson, rig.session.command, rig.logger.view, progress)
        rig.logger.practice = run.kind  # as `make run --lesson` and the web board tell the logger
        said = _learner(rig, run, wrong_first=True)
        text = "\n".join(said)
        assert said[0] == f"Lesson: {lesson.title}"
        assert all(f"{r} (docs/rules.md):" in text for r in lesson.rules)
        # each task answered wrongly once: explained with what the move did (its rules) and the hint
        # (a task whose only legal move is the answer has its refused moves instead: the board refuses them)
        answerable = [t for t in lesson.tasks if _has_wrong(lesson, t)]
        wrongs = [s for s in said if s.startswith("Not this one, ")]
        assert len(wrongs) == len(answerable), said
        for s, task in zip(wrongs, answerable):
            assert task.wrong in s and task.hint in s and re.search(r"\(\d\.\d|\([GRM]\d", s), s
        assert sum(s.startswith("Right, ") for s in said) == len(lesson.tasks)
        n = len(answerable)
        assert f"Lesson done: {lesson.title} ({n} wrong answer{'' if n == 1 else 's'})." in said
        for task in lesson.tasks:  # each prompt said, with the moves the board refuses and their rules
            assert any(s.endswith(task.said()) for s in said)
        # laid out at the start, and again after each answer but the last
        assert sum(s.startswith("The board is set up:") for s in said) == len(lesson.tasks) + n
        kept = store.lessons_progress()[lesson.name]
        assert (kept.done, kept.tasks_done, kept.wrong) == (True, len(lesson.tasks), n)
        _library_after_a_lesson(rig, tmp_path / "data", len(lesson.tasks) + n, capsys)
    finally:
        rig.close()


def _library_after_a_lesson(rig: Rig, data: Path, laid_out: int, capsys: pytest.CaptureFixture[str]) -> None:
    """A lesson leaves no games in the club's library list, and no game "abandoned" on the way: each position
    laid out (every task and retry) is kept as a lesson's, listed by `bao games --practice` (#28, used). The
    board's new game that the lesson replaced before a move was played in it is not listed either: counted,
    listed by `--empty`."""
    from bao_host.cli import main

    said = [m.text for m in rig.logger.messages]
    assert not any("abandoned" in s for s in said), said
    capsys.readouterr()
    assert main(["games", "--data", str(data)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3:] == [
        f"no games in {data}",
        f"(and {laid_out} lesson task{'s' * (laid_out != 1)} and puzzles played on the board: not listed, "
        "--practice lists them; `bao lessons` shows the lessons done)",
        "(and 1 game abandoned before its first move: not listed, --empty lists it)",
    ]
    assert main(["games", "--data", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["games", "--data", str(data), "--empty", "--json"]) == 0
    # the board's new game before the lesson (no move played)
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["moves"], r["status"]) for r in rows] == [(1, 0, "abandoned")]
    assert main(["games", "--data", str(data), "--practice", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["source"] for r in rows] == ["lesson"] * laid_out
    assert "abandoned" not in {r["status"] for r in rows}


RULE_NUMBER = re.compile(r"(?<![\w.])(\d\.\d[a-c]?(?:\(\d\))?|[GRM]\d{1,2})(?![\w.])")
SECTIONS = {  # the sections of docs/rules.md ("What the numbers mean") whose numbers each ruleset's words cite
    core.ZANZIBAR: ("Donkers", "geometry and notation", "rulings: Zanzibar"),
    core.MALAWI: ("geometry and notation", "the Malawi basic game"),
    core.MALAWI_INTERMEDIATE: ("geometry and notation", "the Malawi basic game", "intermediate and advanced"),
    core.MALAWI_ADVANCED: ("geometry and notation", "the Malawi basic game", "intermediate and advanced"),
}


def _numbers_explained(ruleset: str) -> set[str]:
    """The rule numbers docs/rules.md explains for a ruleset: those of its sections, each a rule's bullet or named
    in the section's words (the basic game names M23, its end, written with the kuu games' rulings)."""
    text = lessons.RULES_MD.read_text(encoding="utf-8").split("## What the numbers mean", 1)[1]
    out: set[str] = set()
    for part in text.split("\n### ")[1:]:
        head = part.split("\n", 1)[0]
        if any(name in head for name in SECTIONS[ruleset]):
            out |= set(RULE_NUMBER.findall(part))
    return out


@pytest.mark.parametrize("name", [f.stem for f in sorted(lessons.LESSONS.glob("*.toml"))])
def test_every_number_a_lesson_cites_is_its_rulesets(name: str) -> None:
    """Every rule number a lesson says (its rules, words, prompts, hints, the wrong answers' words, and what each
    legal answer did in the rules core's words) is one docs/rules.md explains for the lesson's ruleset: a Malawi
    lesson cites M-numbers, not Zanzibar's "(1.2, R9)" (#28, used)."""
    lesson = lessons.load(lessons.LESSONS / f"{name}.toml")
    said = [lesson.text, *lesson.rules, *lessons.introduction(lesson)]
    for task in lesson.tasks:
        p = lesson.position_of(task)
        said += [task.said(), task.hint, task.wrong]
        said += [lessons.judge(task, p, m)[1] for m in core.legal_move_codes(p)]
    cited = {n for s in said for n in RULE_NUMBER.findall(s)}
    known = _numbers_explained(lesson.ruleset)
    assert cited and cited <= known, f"{lesson.ruleset}: {sorted(cited - known)} not explained for it"


# Every rule docs/rules.md explains for the Zanzibar game (Donkers' parts 1-4, the geometry and notation
# rulings, the Zanzibar rulings) is taught by some lesson (issue #28).
def test_every_zanzibar_rule_is_taught_by_a_lesson() -> None:
    text = lessons.RULES_MD.read_text()
    zanzibar = ""
    for part in re.split(r"^### ", text[text.index("## What the numbers mean") :], flags=re.M)[1:]:
        if not part.startswith("The project's rulings: the Malawi"):
            zanzibar += part
    numbers = set(re.findall(r"^- \*\*([^*]+)\*\*", zanzibar, re.M))
    taught = {r for lesson in lessons.load_all() if lesson.ruleset == core.ZANZIBAR for r in lesson.rules}
    assert numbers - taught == set(), f"{len(numbers & taught)} of {len(numbers)} taught"


# The Malawi games have their own lessons (issue #28: the kuu stage, nemo, the placement): every ruling of the
# basic, intermediate and advanced games (M1-M25) is taught by a Malawi lesson.
def test_every_malawi_rule_is_taught_by_a_malawi_lesson() -> None:
    text = lessons.RULES_MD.read_text()
    malawi = ""
    for part in re.split(r"^### ", text[text.index("## What the numbers mean") :], flags=re.M)[1:]:
        if part.startswith("The project's rulings: the Malawi"):
            malawi += part
    numbers = set(re.findall(r"^- \*\*([^*]+)\*\*", malawi, re.M))
    assert len(numbers) == 25
    found = lessons.load_all()
    taught = {r for lesson in found if lesson.ruleset != core.ZANZIBAR for r in lesson.rules}
    assert numbers - taught == set(), f"{len(numbers & taught)} of {len(numbers)} taught"
    # each of the three Malawi games has a lesson of its own
    assert {lesson.ruleset for lesson in found} >= {core.MALAWI, core.MALAWI_INTERMEDIATE, core.MALAWI_ADVANCED}


def test_the_terminal_ui_says_a_wrong_answer_and_why(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The first lesson beside the terminal UI: laid out, then 5R (the right kichwa) played for a task that
    wanted the left one: the message panel says what the move did, the rule and the hint (a snapshot)."""
    from bao_host.ui.tui import BaoApp
    from textual.pilot import Pilot

    rig = Rig(tmp_path / "data")
    monkeypatch.setattr(serial, "serial_for_url", rig.open_url)
    lesson = lessons.load(lessons.LESSONS / "zanzibar-01-namua-capture.toml")
    run = lessons.LessonRun(lesson, rig.session.command, rig.logger.view)

    async def answer(pilot: Pilot[int]) -> None:
        app = pilot.app
        assert isinstance(app, BaoApp)
        await pilot.pause()
        rig.connect()
        app.lesson = run.poll
        for _ in range(60):  # the set-up, touched as the guidance line says
            app.step()
            step = rig.sim.setup_step
            if run.state == "task" and step is None:
                break
            if step is not None:
                at = step.at
                app.touch(31 if at == "store-N" else 15 if at == "store-S" else core.pit_index(at))
        p = lesson.position
        move = next(m for m in core.legal_move_codes(p) if core.format_move(m, 0) == "5R")
        for pit in R.activations(p, move):
            app.touch(pit & R.PIT)
        app.touch(core.pit_index("a2"))  # the opponent's touch: the move stops in the house (2.5b)
        for _ in range(5):
            app.step()
        await pilot.pause()

    try:
        assert snap_compare(
            BaoApp(
                rig.sim,
                rig.logger,
                pump=rig.runner.pump,
                tick=0.02,
                connection=lambda: "connected (simulated board)",
                data_folder="/srv/bao/library",
            ),
            terminal_size=(100, 40),
            run_before=answer,
        )
    finally:
        rig.close()


def test_bao_lessons_lists_every_lesson_done_or_not(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`bao lessons`: each lesson with its progress as the library keeps it (done, half-way, not started)."""
    from bao_host.cli import main
    from bao_host.record.store import Store

    with Store(tmp_path) as st:
        st.save_lesson("zanzibar-02-house", 2, 2, 1)
        st.save_lesson("zanzibar-06-namua-takasa", 4, 1, 0)
    assert main(["lessons", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    found = lessons.load_all()
    assert f"Lessons: 1 of {len(found)} done" in out
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("│ ") and "-" in line.split()[1]}
    assert "│ done" in rows["zanzibar-02-house"] and "1 of 4 tasks" in rows["zanzibar-06-namua-takasa"]
    assert all(
        "not started" in rows[x.name] for x in found if x.name not in ("zanzibar-02-house", "zanzibar-06-namua-takasa")
    ), out
    # at 80 columns (this capture's width) each title is under its lesson's name, word for word (its own
    # column was squeezed to nothing)
    lines = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│ ")]
    assert all(
        x.title.split() == " ".join(lines[lines.index(x.name) + 1 :]).split()[: len(x.title.split())] for x in found
    ), out
    assert main(["lessons", "--data", str(tmp_path / "none"), "--json"]) == 0  # no library: none started
    assert {r["state"] for r in json.loads(capsys.readouterr().out)} == {"not started"}
    assert not (tmp_path / "none").exists()  # reading made no library


def test_make_run_with_a_lesson_that_is_not_one_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bao_host.cli import run

    assert run.main(["--sim", "--data", str(tmp_path / "d"), "--lesson", "zanzibar-99-nothing"]) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("title = [")
    assert run.main(["--sim", "--data", str(tmp_path / "d"), "--lesson", str(bad)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said[0] == (
        "--lesson zanzibar-99-nothing: no such file, nor a lesson of that name (`bao lessons` lists them)"
    )
    assert len(said) == 2 and said[1].startswith("--lesson: bad.toml: ")
    assert not (tmp_path / "d").exists()  # nothing started, no library made


def test_a_wrong_capture_is_explained_with_what_it_took() -> None:
    # issue #28, used as a user would: a wrong capture was explained by its start and end only ("lift the 3
    # seeds of a1; sow 3 seeds: a2 a3 a4; …; sow 4 seeds ..."): the learner told "that capture takes another
    # pit" could not see which. Every capture of the move is said now, the rest shortened
    lesson = lessons.load(lessons.LESSONS / "zanzibar-03-mtaji-capture.toml")
    task = lesson.tasks[0]
    p = lesson.position_of(task)
    move, _ = notation.parse_move(p, "a1R")
    right, said = lessons.judge(task, p, move)
    assert not right
    assert said.startswith(
        "Not this one, a1R: lift the 3 seeds of a1 (1.3); sow 3 seeds: a2 a3 a4; capture the 2 seeds of A5 and "
        "sow them in from the kichwa a1 towards pit 8 (1.4); …; capture the 1 seed of A7"
    ), said
    assert "capture the 2 seeds of A8" in said and said.count("…") == 3, said
