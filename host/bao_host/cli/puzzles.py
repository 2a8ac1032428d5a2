"""`bao puzzles`: make puzzles (from the library, transcripts and engine self-play), list them, export a set,
answer one (with the solver's Glicko-2 rating kept in the library) and solve them in the terminal
(docs/puzzles.md)."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from bao import core, explain, notation, query

from bao_host.cli.inputs import InputError, read_text
from bao_host.puzzles import generate, model
from bao_host.puzzles.sets import SET_DIR, load_sets, set_path


def _err(msg: str) -> int:
    print("bao puzzles: " + msg, file=sys.stderr)
    return 1


def _transcripts(paths: list[str]) -> list[tuple[str, list[core.Position]]]:
    out = []
    for path in paths:
        t = notation.parse_transcript(read_text(path))
        out.append((Path(path).name, notation.replay(t)))
    return out


def _library_games(args: argparse.Namespace, ruleset: str) -> list[tuple[str, list[core.Position]]]:
    from bao_host.cli.common import open_store

    out = []
    with open_store(args, create=False, readonly=True) as st:
        for g in st.games():
            positions = st.positions(g.id)
            if positions and positions[0].rules.ruleset == ruleset:
                out.append((f"library game {g.id}", positions))
    return out


class _Stop:
    """SIGTERM ends a run as its time limit does: what was made is already on disk."""

    def __init__(self) -> None:
        self.asked = False
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, _sig: int, _frame: FrameType | None) -> None:
        self.asked = True
        raise KeyboardInterrupt


def cmd_make(args: argparse.Namespace) -> int:
    ruleset = args.ruleset
    out = Path(args.out) if args.out else set_path(ruleset)
    known: dict[str, model.Puzzle] = {}
    if out.exists():
        try:
            known = {pz.id: pz for pz in model.load(out)}
        except model.PuzzleFormatError as e:
            return _err(f"{e} (the run would overwrite it: move it away first)")
    try:
        games = _transcripts(args.transcript)
        if args.library:
            games += _library_games(args, ruleset)
    except (InputError, core.BaoError, notation.ReplayError) as e:
        return _err(str(e))
    gen = generate.Generator(ruleset)
    this = " ".join(["bao", "puzzles"] + sys.argv[2:]) if args.command_line is None else args.command_line
    about = model.about(out) if out.exists() else {}  # a run adds to the set: the runs before it stay named
    runs = about.get("made_by", [])
    about["made_by"] = ([runs] if isinstance(runs, str) else list(runs)) + [this]
    about["ruleset"] = ruleset
    start = time.monotonic()
    deadline = start + args.minutes * 60 if args.minutes else float("inf")
    before = len(known)

    def keep(pz: model.Puzzle) -> None:
        about["count"] = len(known)
        model.dump(out, sorted(known.values(), key=lambda q: q.id), about)
        if not args.quiet:
            print(
                f"{len(known)} {pz.id} {pz.solution} {' '.join(pz.themes)} rating {pz.rating} "
                f"({time.monotonic() - start:.0f} s; {gen.examined} positions, {gen.candidates} candidates)",
                flush=True,
            )

    _Stop()
    try:
        seed = generate.run(gen, known, args.target, deadline, args.seed, games, keep)
    except KeyboardInterrupt:
        seed = -1
    print(
        f"{ruleset}: {len(known) - before} new puzzles, {len(known)} in {out}; {gen.examined} positions examined, "
        f"{gen.candidates} passed the cheap filter, {gen.deep_passed} the deep check, {gen.kept} the deeper one"
        + (f"; next seed {seed}" if seed >= 0 else "; stopped"),
        flush=True,
    )
    return 0


def cmd_recheck(args: argparse.Namespace) -> int:
    """The final check (generate.final_check) on a set made before it: puzzles it rejects are dropped, a line
    whose later move it rejects is cut. Resumable: the set's `about` keeps the last id checked, so a run
    stopped by --minutes, SIGTERM or Ctrl+C goes on from there the next time."""
    ruleset = args.ruleset
    out = Path(args.out) if args.out else set_path(ruleset)
    puzzles = sorted(model.load(out), key=lambda q: q.id)
    about = model.about(out)
    gen = generate.Generator(ruleset)
    done = about.get("rechecked", {})
    if done.get("depth") != gen.depths.final:
        done = {"depth": gen.depths.final, "through": "", "dropped": [], "cut": []}
    about["rechecked"] = done
    runs = about.get("made_by", [])  # the run is named with the runs that made the set
    this = " ".join(["bao", "puzzles"] + sys.argv[2:]) if args.command_line is None else args.command_line
    about["made_by"] = ([runs] if isinstance(runs, str) else list(runs)) + [this]
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else float("inf")
    kept = {pz.id: _reworded(pz) for pz in puzzles}  # (the solution's words as the rules core says them today)
    checked = 0
    _Stop()
    try:
        for pz in puzzles:
            if pz.id <= done["through"]:
                continue
            if time.monotonic() > deadline:
                break
            new, said = gen.recheck(kept[pz.id])
            if new is None:
                del kept[pz.id]
                done["dropped"].append(pz.id)
            elif new.moves != pz.moves:
                kept[pz.id] = new
                done["cut"].append(pz.id)
            done["through"] = pz.id
            checked += 1
            about["count"] = len(kept)
            model.dump(out, list(kept.values()), about)
            if not args.quiet:
                print(f"{pz.id}: {'; '.join(said)}{'' if new else ' - dropped'}", flush=True)
    except KeyboardInterrupt:
        pass
    about["count"] = len(kept)
    model.dump(out, list(kept.values()), about)  # (the words reworded even when nothing was left to check)
    left = sum(1 for pz in kept.values() if pz.id > done["through"])
    print(
        f"{ruleset}: {checked} puzzles checked at {done['depth']} plies below each move; {len(done['dropped'])} "
        f"dropped, {len(done['cut'])} lines cut so far; {len(kept)} in {out}; {left} left to check",
        flush=True,
    )
    return 0


def _reworded(pz: model.Puzzle) -> model.Puzzle:
    """The puzzle with its solution's account in today's words (a Malawi move cites the Malawi rulings)."""
    p = pz.start()
    move, _ = notation.parse_move(p, pz.solution)
    return dataclasses.replace(pz, account=explain.describe(query.account(p, move), pz.ruleset))


def _sets(args: argparse.Namespace) -> list[model.Puzzle]:
    """The puzzles of --from (a set file), or else of the shipped sets; of --ruleset when it is given."""
    found = model.load(args.source) if args.source else load_sets()
    return [pz for pz in found if args.ruleset is None or pz.ruleset == args.ruleset]


def cmd_export(args: argparse.Namespace) -> int:
    puzzles = _sets(args)
    about = {"rulesets": sorted({pz.ruleset for pz in puzzles}), "count": len(puzzles)}
    try:
        if args.export == "-":
            sys.stdout.write(model.dumps(puzzles, about))
        else:
            model.dump(args.export, puzzles, about)
    except OSError as e:
        return _err(f"cannot write {args.export}: {e.strerror or e}")
    if args.export != "-":
        print(f"{len(puzzles)} puzzles written to {args.export}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    for pz in _sets(args):
        line = f"  ({pz.moves} moves)" if pz.moves > 1 else ""
        print(f"{pz.id}  {pz.ruleset:<19} {pz.rating:>5}  {pz.difficulty:<6} {' '.join(pz.themes)}{line}")
    return 0


def cmd_answer(args: argparse.Namespace) -> int:
    from bao_host.cli.common import open_store
    from bao_host.puzzles.session import Solving

    pid, moves = args.answer
    pz = model.find(_sets(args), pid)
    with open_store(args) as st:
        solving = Solving(st, [pz], args.solver)
        for step, move in enumerate(moves.split()[: pz.moves] or [""]):  # a line: the solver's moves in turn
            try:
                result = solving.answer(pz, move, step)
            except core.BaoError as e:
                return _err(f"{move[:40]}: {e}")
            for line in result.lines():
                print(line)
            if result.final:
                return 0 if result.answer.correct else 3
    return 4  # a line whose next move was not given: nothing rated yet


def cmd_solve(args: argparse.Namespace) -> int:
    from bao_host.cli.common import open_store
    from bao_host.puzzles.session import Solving
    from bao_host.ui.puzzles_tui import PuzzleApp

    puzzles = _sets(args)
    first = model.find(puzzles, args.solve) if args.solve != "next" else None
    with open_store(args) as st:
        PuzzleApp(Solving(st, puzzles, args.solver), first, args.ruleset).run()
    return 0


def cmd_puzzles(args: argparse.Namespace) -> int:
    from bao_host.record.store import StoreError

    try:
        if args.export:
            return cmd_export(args)
        if args.list:
            return cmd_list(args)
        if args.answer:
            return cmd_answer(args)
        if args.solve:
            return cmd_solve(args)
        if args.ruleset is None:
            args.ruleset = core.ZANZIBAR
        return cmd_recheck(args) if args.recheck else cmd_make(args)
    except (model.PuzzleFormatError, model.UnknownPuzzleError, StoreError) as e:
        return _err(str(e).strip("'\""))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from bao_host.cli.common import add_data_arg

    p = sub.add_parser(
        "puzzles",
        help="make, list, export and solve puzzles (docs/puzzles.md)",
        description="Puzzles: positions where one move is clearly best (docs/puzzles.md). "
        "Without an action, makes puzzles.",
    )
    add_data_arg(p)
    act = p.add_mutually_exclusive_group()
    act.add_argument(
        "--export", metavar="FILE", help="write the puzzles as one JSON set (docs/puzzles.md; - for stdout)"
    )
    act.add_argument("--list", action="store_true", help="list the puzzles: id, ruleset, rating, themes")
    act.add_argument(
        "--solve",
        metavar="ID",
        nargs="?",
        const="next",
        help="solve puzzles in the terminal (from puzzle ID, or the next for your rating)",
    )
    act.add_argument(
        "--answer",
        metavar=("ID", "MOVE"),
        nargs=2,
        help="answer one puzzle with a move (a line: its moves in one argument, '4L 3L 5R'; status 0 solved, 3 "
        "not, 4 the line goes on)",
    )
    act.add_argument(
        "--recheck",
        action="store_true",
        help="put a set (--ruleset's, or --out) through the final check: drop what it rejects (resumable)",
    )
    p.add_argument("--solver", default="you", help="whose rating an answer changes (default: you)")
    p.add_argument(
        "--from", dest="source", metavar="FILE", help="the puzzles of this set (an export) instead of the shipped ones"
    )
    p.add_argument(
        "--ruleset",
        choices=core.RULESETS,
        default=None,
        help="the ruleset to make puzzles for (default zanzibar), or to list, export, solve",
    )
    p.add_argument("--target", type=int, default=500, help="stop when the set holds this many (default 500)")
    p.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (default: no limit)")
    p.add_argument("--seed", type=int, default=0, help="first self-play game's seed")
    p.add_argument("--out", metavar="FILE", help=f"making: the set to add to (default {SET_DIR.name}/RULESET.json)")
    p.add_argument(
        "--transcript",
        metavar="FILE",
        action="append",
        default=[],
        help="examine the positions of this game transcript first (repeatable)",
    )
    p.add_argument("--library", action="store_true", help="examine the library's games first")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_puzzles, command_line=None)
