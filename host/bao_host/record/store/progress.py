"""A learner's progress through the lessons (issue #28; bao_host.lessons), kept in the library."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bao_host.record.store.analyses import Analyses
from bao_host.record.store.errors import StoreReadOnly, guarded, missing_table, reading
from bao_host.record.store.rows import now


@dataclass(frozen=True)
class LessonProgress:
    """One lesson as a learner left it: tasks answered right of its tasks, wrong answers, done or not."""

    name: str
    learner: str
    tasks: int
    tasks_done: int
    wrong: int
    done: bool


class Progress(Analyses):
    """Keeping and reading a learner's progress: one row a lesson and learner, the last run's."""

    @guarded
    def save_lesson(self, name: str, tasks: int, tasks_done: int, wrong: int, learner: str = "") -> None:
        """Keep how far the learner got in the lesson `name` (its file's stem). A lesson once done stays done: a
        new run of it that stops half-way keeps its done time."""
        if self.readonly:
            raise StoreReadOnly(f"{self.root}: opened for reading only")
        t = now()
        done = t if tasks_done >= tasks else None
        with self._tx() as db:
            db.execute(
                "INSERT INTO lessons VALUES (?,?,?,?,?,?,?) ON CONFLICT (name, learner) DO UPDATE SET"
                " tasks=excluded.tasks, tasks_done=excluded.tasks_done, wrong=excluded.wrong,"
                " done=COALESCE(excluded.done, lessons.done), updated=excluded.updated",
                (name, learner, tasks, tasks_done, wrong, done, t),
            )

    @reading
    def lessons_progress(self, learner: str = "") -> dict[str, LessonProgress]:
        """The learner's progress by lesson name (a library older than the lessons table: none yet)."""
        try:
            rows = self.db.execute(
                "SELECT name, learner, tasks, tasks_done, wrong, done FROM lessons WHERE learner=?", (learner,)
            ).fetchall()
        except sqlite3.OperationalError as e:
            if not missing_table(e):
                raise
            return {}
        return {
            r["name"]: LessonProgress(
                str(r["name"]),
                str(r["learner"]),
                int(r["tasks"]),
                int(r["tasks_done"]),
                int(r["wrong"]),
                r["done"] is not None,
            )
            for r in rows
        }
