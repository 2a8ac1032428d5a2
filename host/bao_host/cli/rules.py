"""`bao moves`, `bao apply`, `bao replay`, `bao show`, `bao perft`: the rules core from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bao import core, explain, kuu, notation, position_json, query
from rich.console import Console

from bao_host.cli import inputs
from bao_host.ui import diagram

POS_HELP = f"a position: JSON text, @FILE, 'initial' or 'initial:RULESET' ({', '.join(core.RULESETS)})"


class UsageError(Exception):
    """A command-line argument that cannot be used; printed as one line."""


def read_position(text: str) -> core.Position:
    """POS as given on the command line."""
    if text == "initial" or text.startswith("initial:"):
        ruleset = text.partition(":")[2] or core.ZANZIBAR
        if ruleset not in core.RULESETS:
            raise UsageError(f"unknown ruleset {ruleset!r} in {text!r} (rulesets: {', '.join(core.RULESETS)})")
        return core.initial(ruleset)
    where = ""
    if text.startswith("@"):
        where = f"{text[1:]}: "
        try:
            text = inputs.read_text(text[1:])
        except inputs.InputError as e:
            raise UsageError(str(e)) from None
    try:
        return position_json.loads(text)
    except core.InvalidPositionError as e:
        raise UsageError(f"{where}invalid position: {e}") from None
    except RecursionError:  # json.loads of deeply nested brackets
        raise UsageError(f"{where}invalid position: not a position object (nested too deeply)") from None


def _fail(message: str) -> int:
    print(f"bao: {message}", file=sys.stderr)
    return 1


def cmd_moves(args: argparse.Namespace) -> int:
    try:
        p = read_position(args.position)
    except UsageError as e:
        return _fail(str(e))
    moves = core.legal_moves(p)
    w = core.outcome(p, moves)
    if args.json:
        out = [
            {"move": notation.format_move(m, p.to_move, args.dialect), "position": position_json.to_dict(c)}
            for m, c in moves
        ]
        print(json.dumps({"moves": out, **({"winner": "SN"[w]} if w is not None else {})}))
        return 0
    if w is not None:
        print(diagram.status_line(p))
        return 0
    side = diagram.SIDE_NAMES[p.to_move]
    texts = [notation.format_move(m, p.to_move, args.dialect) for m, _ in moves]
    kind = (
        "placement drops" if moves[0][0] & kuu.DROP else "captures" if not moves[0][0] & core.TAKASA else "takasa moves"
    )
    print(f"{side} has {len(texts)} legal {kind}: {' '.join(texts)}")
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    try:
        p = read_position(args.position)
        move, child = notation.parse_move(p, args.move, args.dialect)
    except UsageError as e:
        return _fail(str(e))
    except core.BaoError as e:
        return _fail(f"{args.move}: {e}")
    if args.trace:
        for i, sentence in enumerate(explain.describe(query.account(p, move), p.rules.ruleset), start=1):
            print(f"{i:3d}. {sentence}")
    print(position_json.dumps(child))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        t, dialect = inputs.read_transcript(args.file, args.dialect)
        positions = notation.replay(t, None, dialect)
    except inputs.InputError as e:
        return _fail(str(e))
    except notation.ReplayError as e:
        return _fail(f"{args.file}: {e}")
    except core.BaoError as e:
        return _fail(f"{args.file}: {e}")
    console = Console()
    if args.boards:
        for i, ply in enumerate(t.plies):  # a placement is several plies of one side (M22)
            console.print(f"[bold]{i // 2 + 1}. {diagram.SIDE_NAMES[positions[i].to_move]} {ply}[/bold]")
            console.print(diagram.render(positions[i + 1]))
    print(f"{len(t.plies)} plies replayed")
    print(position_json.dumps(positions[-1]))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    if not args.position.startswith(("{", "@", "initial")):
        # a game number or key: that is `bao game`'s job; say so rather than guess
        return _fail(
            f"show: {args.position!r} is not a position (JSON, @FILE, initial or initial:RULESET); "
            f"a stored game is shown by `bao game {args.position}`"
        )
    try:
        p = read_position(args.position)
    except UsageError as e:
        return _fail(str(e))
    if args.plain:
        print(diagram.render_text(p))
    else:
        Console().print(diagram.render(p))
    return 0


# The deepest perft that finishes in a person's patience: the tree grows several times with each ply, and
# Malawi's (more moves a position) faster than Zanzibar's.
PERFT_MAX = {core.ZANZIBAR: 10}
PERFT_MAX_OTHER = 8


def cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 1:
        return _fail(f"perft: the depth is a number of plies, 1 or more, not {args.depth}")
    most = PERFT_MAX.get(args.ruleset, PERFT_MAX_OTHER)
    if args.depth > most:
        return _fail(f"perft: depth {args.depth} would not finish: at most {most} plies for {args.ruleset}")
    p = core.initial(args.ruleset)
    for depth in range(1, args.depth + 1):
        print(depth, query.perft(p, depth))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dialect: dict[str, Any] = {"choices": notation.DIALECTS, "default": notation.DONKERS, "help": "move notation"}
    p = sub.add_parser("moves", help="list the legal moves of a position")
    p.add_argument("position", help=POS_HELP)
    p.add_argument("--json", action="store_true", help="one JSON object with every move and its position")
    p.add_argument("--dialect", **dialect)
    p.set_defaults(func=cmd_moves)
    p = sub.add_parser("apply", help="play a move and print the resulting position")
    p.add_argument("position", help=POS_HELP)
    p.add_argument("move", help="the move, e.g. 7L* or A3R")
    p.add_argument("--trace", action="store_true", help="explain the move step by step, citing the rules")
    p.add_argument("--dialect", **dialect)
    p.set_defaults(func=cmd_apply)
    p = sub.add_parser("replay", help="replay a transcript and check every move")
    p.add_argument("file")
    p.add_argument("--boards", action="store_true", help="print the board after every move")
    p.add_argument(
        "--dialect",
        choices=notation.DIALECTS,
        default=None,
        help="move notation (default: the transcript's 'notation:' header, else donkers)",
    )
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("show", help="draw a position (a stored game: `bao game GAME`)")
    p.add_argument("position", metavar="POS", help=POS_HELP)
    p.add_argument("--plain", action="store_true", help="plain text, no colours")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("perft", help="count the leaves of the move tree from the start")
    p.add_argument("depth", type=int)
    p.add_argument("--ruleset", choices=core.RULESETS, default=core.ZANZIBAR)
    p.set_defaults(func=cmd_perft)
