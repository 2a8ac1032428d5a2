"""`make run`: play Bao in the terminal on the simulated board, or log the real board when one is plugged in.

With a board on USB (RP2040 vendor id, or a board id seen before): `bao log` on it. Otherwise: the
simulated board and the logger, and the textual UI to play by clicking pits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bao.core import RULESETS

from bao_host.cli.common import add_data_arg, open_store
from bao_host.record.logger import Logger
from bao_host.record.store import Store, StoreError
from bao_host.ui.adapter import SimBoard, make_board
from bao_host.ui.tui import BaoApp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bao_host.cli.run", description=__doc__)
    add_data_arg(ap)
    ap.add_argument("--sim", action="store_true", help="play on the simulated board even if a board is plugged in")
    ap.add_argument(
        "--runtime",
        choices=("cpython", "pico"),
        default="cpython",
        help="the simulated board's firmware: in-process (cpython), or the Bao-board image on the "
        "emulated Pico (pico: make image, make pico-deps; slower)",
    )
    ap.add_argument(
        "--setup",
        metavar="FILE",
        help="a file with a position's JSON (docs/protocol.md, SETPOS): k lays it out on the board",
    )
    ap.add_argument(
        "--lesson",
        metavar="FILE",
        help="a lesson (lessons/*.toml, or its name as `bao lessons` lists it): the board lays out its "
        "position, then its tasks",
    )
    ap.add_argument(
        "--puzzles",
        action="store_true",
        help="solve puzzles on the board: each laid out with the set-up mode (docs/puzzles.md)",
    )
    ap.add_argument("--ruleset", default=None, choices=RULESETS, help="with --puzzles: only this ruleset's")
    ap.add_argument("--solver", default="you", help="with --puzzles: whose rating the answers change")
    ap.add_argument(
        "--verbose",
        action="store_true",
        help="the messages say the link's workings too (the board's protocol, events, device paths)",
    )
    args = ap.parse_args(argv)
    setup, taught = _read_setup(args.setup), _read_lesson(args.lesson)
    if setup is False or taught is False:  # (read before anything starts: a file that cannot be used is one line)
        return 2
    if not args.sim:
        from bao_host.cli import log as log_commands

        with open_store(args, repair=False) as st:
            known = [r["board_id"] for r in st.known_boards()]
        port = log_commands.find_board(known)
        if port is not None:
            print(f"a Bao board is plugged in ({port}): logging it (Ctrl-C to stop)")
            # without --port: `bao log` finds the board again if it comes back on another device path
            return log_commands.main(["--data", args.data] if args.data else [])

    store = open_store(args)
    board: SimBoard | None = None
    try:
        logger = Logger(store)
        from bao_host.boards.pico import PicoUnavailable

        try:
            board, pump, conn = make_board(logger, store.root / "simulated-board", runtime=args.runtime)
        except PicoUnavailable as e:
            print(f"--runtime pico: {e}", file=sys.stderr)
            return 2
        lesson = _lesson(taught, store, board, logger) if taught is not None else None
        if args.puzzles:
            lesson = _puzzles(args, store, board, logger)
        app = BaoApp(
            board,
            logger,
            pump=pump,
            connection=conn,
            data_folder=str(store.root),
            setup=setup,
            lesson=lesson,
            verbose=args.verbose,
        )
        return app.run() or 0
    finally:
        if board is not None:
            board.session.close()
            board.close()
        store.close()


def _read_setup(name: str | None) -> Any:
    """--setup's position, None without it, False when it cannot be used (said in one line)."""
    if not name:
        return None
    from bao import core, position_json

    try:
        with open(name, encoding="utf-8") as f:
            return position_json.loads(f.read())
    except (OSError, ValueError, core.BaoError) as e:
        print(f"--setup {name}: {e}", file=sys.stderr)
        return False


def _read_lesson(name: str | None) -> Any:
    """--lesson's lesson (a file, or a lesson's name as `bao lessons` lists it), None without it, False when it
    cannot be used (said in one line)."""
    if not name:
        return None
    from bao_host import lessons

    path = Path(name)
    if not path.exists() and (lessons.LESSONS / f"{name}.toml").is_file():
        path = lessons.LESSONS / f"{name}.toml"
    elif not path.exists():
        print(f"--lesson {name}: no such file, nor a lesson of that name (`bao lessons` lists them)", file=sys.stderr)
        return False
    try:
        return lessons.load(path)
    except lessons.LessonError as e:
        print(f"--lesson: {e}", file=sys.stderr)
        return False


def _lesson(taught: Any, store: Store, board: SimBoard, logger: Logger) -> Callable[[], list[str]]:
    """The lesson's lines, polled by the UI (once the board's link is up); the learner's progress is kept in
    the library."""
    from bao_host import lessons

    tasks = len(taught.tasks)

    def progress(done: int, wrong: int) -> None:
        try:
            store.save_lesson(taught.name, tasks, done, wrong)
        except StoreError as e:
            logger.say("warn", f"the lesson's progress was not kept: {e}")

    run = lessons.LessonRun(taught, board.session.command, logger.view, progress)
    logger.practice = run.kind  # its tasks are kept apart from the library's games
    session = board.session
    return lambda: run.poll() if session.connected else []


def _puzzles(args: argparse.Namespace, store: Store, board: SimBoard, logger: Logger) -> Callable[[], list[str]]:
    """The puzzle run's lines, polled by the UI as a lesson's are (once the board's link is up)."""
    from bao_host.puzzles.board import PuzzleRun
    from bao_host.puzzles.session import Solving
    from bao_host.puzzles.sets import load_sets

    puzzles = [pz for pz in load_sets() if args.ruleset is None or pz.ruleset == args.ruleset]
    run = PuzzleRun(Solving(store, puzzles, args.solver), board.session.command, logger.view)
    logger.practice = run.kind  # the puzzles played are kept apart from the library's games
    session = board.session
    return lambda: run.poll() if session.connected else []


if __name__ == "__main__":
    sys.exit(main())
