"""Lessons as data (issue #28): one TOML file per lesson under lessons/, read by the host. The board needs only
its set-up mode and its normal play: a lesson's position is laid out by the set-up mode (SETUP), each task is
answered by a move played on the board, and the rules core checks it.

A lesson file:

    title = "Captures and the kichwa"
    ruleset = "zanzibar"
    rules = ["1.4", "1.4a"]            # the rule numbers it teaches, each explained in docs/rules.md
    text = "A short explanation in words."
    position = '{"ruleset": "zanzibar", ...}'   # the position JSON (docs/protocol.md, SETPOS)

    [[task]]
    prompt = "Capture, and sow the captured seeds in from your left kichwa."
    goal = "kichwa_left"               # a check of the rules core's (GOALS), or answers = ["5L"]
    hint = "..."                       # said after a wrong answer
    wrong = "..."                      # why a wrong answer is wrong: the rule (said with what the move did)
    position = '{...}'                 # optional: this task's own position (the lesson's otherwise)
    refused = ["2L*"]                  # optional: moves the board refuses here, each for one of the lesson's
                                       # rules (the rules core's IllegalMoveError); said with the prompt

`LessonRun` drives one lesson over the board's link (the host's commands and the logger's view of the events):
set up, wait for the move, say right or wrong (what the move did, from the rules core's account), set up the
position again for the next try or the next task.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bao import core, explain, notation, position_json, query
from bao.layout import END_HOUSE, END_MASK, END_TAKASIA, HOUSE_RING, STEP_CAPTURE, STEP_RELAY, STEP_TAX

from bao_host.record.link import Reply
from bao_host.record.logger import View

ROOT = Path(__file__).resolve().parent.parent.parent
LESSONS = ROOT / "lessons"
RULES_MD = ROOT / "docs" / "rules.md"


class LessonError(ValueError):
    """A lesson file that cannot be used: one line saying what is wrong and where."""


def _capture(text: str) -> bool:
    return "*" not in text


def _direction(text: str) -> str:
    t = text.rstrip(">*")
    return t[-1] if t[-1:] in ("L", "R") else ""


def _keeps_house(p: core.Position, move: int) -> bool:
    return core.play(p, move).owns_house(p.to_move)


def _stops_in_house(p: core.Position, move: int, text: str) -> bool:
    """A capture move that ends in the owned house and stops there (2.5b): the same move played on ('>') exists."""
    if ">" in text:
        return False
    side = p.to_move
    return any(core.format_move(m, side) == text + ">" for m in core.legal_move_codes(p))


def _steps(p: core.Position, move: int) -> list[tuple[int, ...]]:
    return list(query.account(p, move))


def _end(p: core.Position, move: int) -> int:
    return int(core.play_raw(p, move & core.IDENTITY)[1]) & END_MASK


def _takes_house(p: core.Position, move: int) -> bool:
    """2.5a: the opponent's house, owned before, is emptied by this move."""
    other = 1 - p.to_move
    return p.owns_house(other) and not core.play(p, move).owns_house(other)


def _relays_house(p: core.Position, move: int) -> bool:
    """3.2, R5: a mtaji takasa whose sowing ends in the still-owned house relays it (does not stop there)."""
    house = (p.to_move << 4) + HOUSE_RING
    return any(s[0] == STEP_RELAY and s[1] == house for s in _steps(p, move))


# The checks a task may name: (position, move, its text as the board writes it) -> right or not
GOALS: dict[str, Callable[[core.Position, int, str], bool]] = {
    "capture": lambda p, m, t: _capture(t),
    "takasa": lambda p, m, t: t.endswith("*") and not t.endswith("**"),
    "takasia": lambda p, m, t: t.endswith("**"),
    "plays_house": lambda p, m, t: ">" in t,
    "stops_in_house": _stops_in_house,
    "keeps_house": lambda p, m, t: _keeps_house(p, m),
    "kichwa_left": lambda p, m, t: _capture(t) and _direction(t) == "L",
    "kichwa_right": lambda p, m, t: _capture(t) and _direction(t) == "R",
    "kichwa_forced": lambda p, m, t: _capture(t) and not _direction(t),
    "from_back_row": lambda p, m, t: t[:1] in ("B", "b"),
    "tax": lambda p, m, t: any(s[0] == STEP_TAX for s in _steps(p, m)),
    "takasa_stops_in_house": lambda p, m, t: t.endswith("*") and _end(p, m) == END_HOUSE,
    "single_seed": lambda p, m, t: t.endswith("*") and p.seeds((p.to_move << 4) + (m & core.RING)) == 1,
    "wins": lambda p, m, t: core.play(p, m).winner == p.to_move,
    "two_captures": lambda p, m, t: sum(s[0] == STEP_CAPTURE for s in _steps(p, m)) >= 2,
    "ends_in_takasia": lambda p, m, t: _end(p, m) == END_TAKASIA,
    "takes_house": lambda p, m, t: _takes_house(p, m),
    "relays_house": lambda p, m, t: _relays_house(p, m),
    "places_back": lambda p, m, t: "@B" in t or "@b" in t,
    "placement_take": lambda p, m, t: t.startswith("x"),
}


@dataclass(frozen=True)
class Refusal:
    """A move the board refuses in a task's position: its text, and the rule and reason the rules core gives."""

    move: str
    rule: str
    reason: str


@dataclass(frozen=True)
class Task:
    prompt: str
    goal: str = ""
    answers: tuple[str, ...] = ()
    hint: str = ""
    wrong: str = ""
    position: core.Position | None = None  # None: the lesson's
    refused: tuple[Refusal, ...] = ()

    def said(self) -> str:
        """The prompt, and what the board refuses here (with the rule: the lesson's point)."""
        if not self.refused:
            return self.prompt
        return self.prompt + " The board refuses " + "; ".join(f"{r.move} ({r.reason})" for r in self.refused) + "."

    def right(self, p: core.Position, move: int) -> bool:
        text = core.format_move(move, p.to_move)
        if self.answers:
            return text in self.answers
        return GOALS[self.goal](p, move, text)


@dataclass(frozen=True)
class Lesson:
    path: Path
    title: str
    ruleset: str
    rules: tuple[str, ...]
    text: str
    position: core.Position
    tasks: tuple[Task, ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        return self.path.stem

    def position_of(self, task: Task) -> core.Position:
        return task.position if task.position is not None else self.position


def explained_rules() -> dict[str, str]:
    """Every rule number docs/rules.md explains, with its one line."""
    text = RULES_MD.read_text(encoding="utf-8")
    section = text[text.index("## What the numbers mean") :]
    return {m.group(1): m.group(2) for m in re.finditer(r"^- \*\*([^*]+)\*\* (.*)$", section, re.M)}


def load(path: Path) -> Lesson:
    """A lesson file read and checked: its rules explained in docs/rules.md, its position legal for its ruleset,
    each task's goal known (or its answers legal moves there)."""
    where = path.name
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise LessonError(f"{where}: {e}") from None
    try:
        title = str(data["title"])
        ruleset = str(data["ruleset"])
        rules = tuple(str(r) for r in data["rules"])
        text = str(data["text"])
        p = position_json.loads(str(data["position"]))
        tasks_data = data["task"]
    except KeyError as e:
        raise LessonError(f"{where}: no {e.args[0]}") from None
    except (ValueError, core.BaoError) as e:
        raise LessonError(f"{where}: position: {e}") from None
    if p.rules.ruleset != ruleset:
        raise LessonError(f"{where}: the position is {p.rules.ruleset}, the lesson {ruleset}")
    known = explained_rules()
    for r in rules:
        if r not in known:
            raise LessonError(f"{where}: rule {r} is not explained in docs/rules.md")
    if not isinstance(tasks_data, list) or not all(isinstance(t, dict) for t in tasks_data):
        raise LessonError(f"{where}: task: a list of [[task]] tables")
    try:
        tasks = [_task(i, t, p, rules) for i, t in enumerate(tasks_data, 1)]
    except LessonError as e:
        raise LessonError(f"{where}: {e}") from None
    return Lesson(path, title, ruleset, rules, text, p, tuple(tasks))


def _refusal(p: core.Position, text: str, rules: tuple[str, ...]) -> Refusal:
    try:
        notation.parse_move(p, text)
    except core.IllegalMoveError as e:
        if e.rule not in rules:
            raise LessonError(f"{text} is refused for {e.rule}, not a rule of this lesson") from None
        return Refusal(text, e.rule, str(e))
    except core.BaoError as e:
        raise LessonError(f"{text}: {e}") from None
    raise LessonError(f"{text} is a legal move here, not a refused one")


def _task(i: int, t: dict[str, object], lesson_position: core.Position, rules: tuple[str, ...]) -> Task:
    """One [[task]] read and checked against the rules core (a LessonError names what is wrong)."""
    n = f"task {i}"
    p = lesson_position
    if "position" in t:
        try:
            p = position_json.loads(str(t["position"]))
        except (ValueError, core.BaoError) as e:
            raise LessonError(f"{n}: position: {e}") from None
        if p.rules.ruleset != lesson_position.rules.ruleset:
            raise LessonError(f"{n}: the position is {p.rules.ruleset}, the lesson {lesson_position.rules.ruleset}")
    answers = t.get("answers", ())
    refused = t.get("refused", ())
    if not isinstance(answers, list | tuple) or not isinstance(refused, list | tuple):
        raise LessonError(f"{n}: answers and refused are lists of moves")
    try:
        refusals = tuple(_refusal(p, str(r), rules) for r in refused)
    except LessonError as e:
        raise LessonError(f"{n}: {e}") from None
    task = Task(
        str(t.get("prompt", "")),
        str(t.get("goal", "")),
        tuple(str(a) for a in answers),
        str(t.get("hint", "")),
        str(t.get("wrong", "")),
        p if "position" in t else None,
        refusals,
    )
    if not task.prompt or (not task.answers and task.goal not in GOALS):
        raise LessonError(f"{n}: a prompt and a goal ({', '.join(GOALS)}) or answers")
    legal = {core.format_move(m, p.to_move) for m in core.legal_move_codes(p)}
    if any(a not in legal for a in task.answers):
        raise LessonError(f"{n}: an answer is not a legal move here ({', '.join(sorted(legal))})")
    return task


def load_all(folder: Path = LESSONS) -> list[Lesson]:
    return [load(f) for f in sorted(folder.glob("*.toml"))]


def introduction(lesson: Lesson) -> list[str]:
    """The lesson's title, its explanation, and each rule it teaches with its line from docs/rules.md."""
    known = explained_rules()
    return [f"Lesson: {lesson.title}", lesson.text] + [f"  {r} (docs/rules.md): {known[r]}" for r in lesson.rules]


def _shortened(did: list[str]) -> list[str]:
    """A move's account, its start and its end (where a task's point usually is) and every capture on the way
    (what a move took is what a wrong capture's learner must see), "…" where steps are left out."""
    n = len(did)
    keep = [i for i in range(n) if i < 2 or i >= n - 2 or did[i].startswith("capture ")]
    out: list[str] = []
    for k, i in enumerate(keep):
        if k and i != keep[k - 1] + 1:
            out.append("…")
        out.append(did[i])
    return out


def judge(task: Task, p: core.Position, move: int) -> tuple[bool, str]:
    """Right or wrong, and the words: what the move did (the rules core's account, with its rules), and for a
    wrong answer why it is wrong and the hint."""
    text = core.format_move(move, p.to_move)
    said = "; ".join(_shortened(explain.describe(query.account(p, move), p.rules.ruleset)))
    if task.right(p, move):
        return True, f"Right, {text}: {said}."
    return False, f"Not this one, {text}: {said}. {task.wrong} Hint: {task.hint}".strip()


class LessonRun:
    """One lesson on a board: `command(type, payload)` sends a host command (LinkSession.command), `view` is the
    logger's view of the board's events. poll() returns the new lines to say."""

    def __init__(
        self,
        lesson: Lesson,
        command: Callable[[str, str], Reply | None],
        view: View,
        progress: Callable[[int, int], None] | None = None,
        lay_out: str = "SETUP",
    ) -> None:
        self.lesson = lesson
        self.command = command
        self.view = view
        self.progress = progress  # told (tasks answered right, wrong answers) after each answer: the library
        # SETUP: the set-up mode guides a person's hands (a board with seeds); SETPOS: the position is simply
        # set (a simulated board played in the browser alone: no seeds to lay out)
        self.lay_out = lay_out
        self.task = 0
        self.state = "start"  # start, setup (waiting for the position), task (waiting for the move), done
        self.wrong = 0  # wrong answers so far
        self._game: int | None = None
        self._plies = 0

    def kind(self) -> str:
        """What a position this run lays out is for (the logger's `practice`): the library keeps a lesson's
        tasks apart from its games."""
        return "lesson" if self.state != "done" else ""

    @property
    def position(self) -> core.Position:
        """The position of the task at hand (laid out by the set-up mode)."""
        return self.lesson.position_of(self.lesson.tasks[min(self.task, len(self.lesson.tasks) - 1)])

    def _set_up(self) -> list[str]:
        r = self.command(self.lay_out, position_json.dumps(self.position, False))
        if r is None or not r.ok:
            self.state = "done"
            return [f"the lesson stops: the board did not take the position ({r.payload if r else 'no answer'})"]
        self._game = self.view.game_id
        self.state = "setup"
        return []

    def poll(self) -> list[str]:
        out: list[str] = []
        v = self.view
        if self.state == "start":
            out += introduction(self.lesson)
            out += self._set_up()
        elif self.state == "setup":
            if v.game_id != self._game and v.position is not None and v.position.d == self.position.d:
                self.state = "task"
                self._plies = len(v.plies)
                out.append(f"Task {self.task + 1} of {len(self.lesson.tasks)}: {self.lesson.tasks[self.task].said()}")
        elif self.state == "task" and len(v.plies) > self._plies:
            p = self.position
            try:
                move, _ = notation.parse_move(p, v.plies[self._plies])
            except core.BaoError as e:
                return [f"the move {v.plies[self._plies]} is not one of this position ({e})"]
            right, words = judge(self.lesson.tasks[self.task], p, move)
            out.append(words)
            self.task += right
            self.wrong += not right
            if self.progress is not None:
                self.progress(self.task, self.wrong)
            if right:
                if self.task == len(self.lesson.tasks):
                    self.state = "done"
                    out.append(
                        f"Lesson done: {self.lesson.title} ({self.wrong} wrong answer{'' if self.wrong == 1 else 's'})."
                    )
                    return out
            if self.lay_out == "SETUP":
                out.append(
                    "The board lays the position out again: follow its lights."
                    if not right
                    else "The board lays the next position out: follow its lights."
                )
            else:  # (SETPOS: a simulated board takes the position at once)
                out.append("The position is set again: try once more." if not right else "The next position is set.")
            out += self._set_up()
        return out

    def page_state(self) -> dict[str, object]:
        """What a page shows of the lesson: its title, words and rules (with their lines from docs/rules.md),
        the task at hand and how far the learner is."""
        known = explained_rules()
        done = self.state == "done"
        task = self.lesson.tasks[min(self.task, len(self.lesson.tasks) - 1)]
        return {
            "name": self.lesson.name,
            "title": self.lesson.title,
            "text": self.lesson.text,
            "rules": [[r, known[r]] for r in self.lesson.rules],
            "task": self.task + (not done),
            "of": len(self.lesson.tasks),
            "prompt": "" if done else task.said(),
            "done": done,
            "wrong": self.wrong,
        }
