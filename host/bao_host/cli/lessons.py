"""`bao lessons`: the lessons (lessons/*.toml, issue #28) and the learner's progress the library keeps."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bao_host import lessons
from bao_host.cli.common import add_data_arg, open_store
from bao_host.record.store import StoreError
from bao_host.record.store.progress import LessonProgress
from bao_host.ui.safe import plain


def _state(p: LessonProgress | None, tasks: int) -> str:
    if p is None:
        return "not started"
    if p.done:
        return "done"
    return f"{p.tasks_done} of {tasks} tasks"


def _progress(args: argparse.Namespace) -> dict[str, LessonProgress]:
    """The progress the library keeps (none when there is no library yet: nothing is made to read it)."""
    try:
        st = open_store(args, create=False, readonly=True)
    except StoreError:
        return {}
    with st:
        return st.lessons_progress()


def cmd_lessons(args: argparse.Namespace) -> int:
    try:
        found = lessons.load_all()
    except lessons.LessonError as e:
        print("bao lessons: " + plain(str(e)), file=sys.stderr)
        return 1
    try:
        kept = _progress(args)
    except StoreError as e:
        print("bao lessons: " + plain(str(e)), file=sys.stderr)
        return 1
    rows: list[dict[str, Any]] = []
    for lesson in found:
        p = kept.get(lesson.name)
        rows.append(
            {
                "name": lesson.name,
                "ruleset": lesson.ruleset,
                "title": lesson.title,
                "rules": list(lesson.rules),
                "tasks": len(lesson.tasks),
                "done": bool(p and p.done),
                "tasks_done": p.tasks_done if p else 0,
                "wrong": p.wrong if p else 0,
                "state": _state(p, len(lesson.tasks)),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    console = Console()
    # Under 110 columns the title goes under the lesson's name: a column of its own was squeezed to nothing
    # at 80 columns, the other columns being whole words that are never cut.
    stacked = console.width < 110
    t = Table(
        title=f"Lessons: {sum(r['done'] for r in rows)} of {len(rows)} done",
        caption="a lesson on the board: python -m bao_host.cli.run --lesson LESSON",
    )
    for col in ("lesson", "ruleset") + (() if stacked else ("title",)) + ("tasks", "progress"):
        t.add_column(col, no_wrap=col not in ("title", "lesson"), overflow="fold")
    for r in rows:
        if stacked:
            name = Text(r["name"])
            name.append("\n" + r["title"], style="dim")
            t.add_row(name, *(Text(x) for x in (r["ruleset"], str(r["tasks"]), r["state"])))
        else:
            t.add_row(*(Text(x) for x in (r["name"], r["ruleset"], r["title"], str(r["tasks"]), r["state"])))
    console.print(t)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("lessons", help="list the lessons, each done or not (the learner's progress in the library)")
    add_data_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_lessons)
