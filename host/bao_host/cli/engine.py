"""`bao engine` (the line protocol), `bao analyse GAME|FILE` and `bao match A B`: the search engine from the
shell (docs/engine.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bao import core, notation
from rich.console import Console, JustifyMethod
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from bao_host.cli.inputs import InputError, read_text
from bao_host.engine import analysis, match, players
from bao_host.engine.protocol import EngineSession
from bao_host.record.store import StoreError


def _err(msg: str) -> int:
    print("bao: " + msg, file=sys.stderr)
    return 1


def cmd_engine(args: argparse.Namespace) -> int:
    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return EngineSession(write, tt_bits=args.hash_bits).run(sys.stdin)


def _limits(args: argparse.Namespace) -> dict[str, int]:
    if args.depth:
        return {"depth": args.depth}
    if args.nodes:
        return {"nodes": args.nodes}
    return {"movetime": args.movetime}


def _load_game(
    args: argparse.Namespace,
) -> tuple[list[core.Position], list[str], tuple[str, str], str, Path | None, int | None]:
    """(positions, plies, player names, title, the graph's path in the library without its suffix, and the
    game's number) of GAME|FILE; the last two None for a file."""
    path = Path(args.game)
    if path.is_file():
        try:
            t = notation.parse_transcript(read_text(str(path)))
        except InputError as e:  # a binary file, another encoding: one line, as the other commands say it
            raise StoreError(str(e)) from e
        positions = notation.replay(t)
        names = (t.header("south", "South"), t.header("north", "North"))
        title = f"{path.name}: {names[0]} (South) vs {names[1]} (North)"
        return positions, t.plies, names, title, None, None
    from bao_host.cli.common import open_store

    with open_store(args) as st:
        g = st.game(args.game)
        positions = st.positions(g.id)
        folder = st.transcript_path(g).parent / g.key
        names = (g.south or "South", g.north or "North")
        return (positions, list(g.plies), names, f"game {g.id}: {names[0]} (South) vs {names[1]} (North)", folder, g.id)


def cmd_analyse(args: argparse.Namespace) -> int:
    try:
        positions, plies, names, title, sidecar, game_id = _load_game(args)
    except (StoreError, core.BaoError, notation.ReplayError) as e:
        return _err(str(e))
    limits = _limits(args)
    err = Console(stderr=True)
    with Progress(
        TextColumn("analysing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=args.quiet,
    ) as bar:
        task = bar.add_task("positions", total=len(positions))
        result = analysis.analyse(
            positions, plies, names, title, limits, progress=lambda n: bar.update(task, completed=n)
        )
    out = Console(highlight=False)
    out.print(f"[bold]{title}[/bold]  engine: {' '.join(f'{k} {v}' for k, v in limits.items())}")
    table = Table(show_edge=False)
    columns: list[tuple[str, JustifyMethod]] = [
        ("ply", "right"),
        ("side", "left"),
        ("played", "left"),
        ("eval", "right"),
        ("best", "left"),
        ("loss", "right"),
        ("engine line", "left"),
    ]
    for col, justify in columns:
        table.add_column(col, justify=justify)
    styles = {"?!": "yellow", "?": "dark_orange", "??": "bold red"}
    for pa in result.plies:
        table.add_row(
            str(pa.ply),
            pa.side,
            Text(pa.played + pa.mark, style=styles.get(pa.mark, "")),
            f"{pa.eval_after:+.2f}",
            pa.best,
            f"{pa.loss:.2f}" if pa.loss else "",
            f"{pa.score_text}  {' '.join(pa.pv[:6])}",
        )
    out.print(table)
    out.print("evaluation by ply (South's view in seeds; above the line South is better):")
    for row in analysis.chart_rows(result.evals):
        out.print("  " + row)
    for s in result.players:
        out.print(
            f"{s.side} ({s.name}): {s.moves} moves, average loss {s.average_loss:.2f} seeds, "
            f"?! {s.marks['?!']}, ? {s.marks['?']}, ?? {s.marks['??']}",
            soft_wrap=True,
        )
    game = Path(args.game)  # a file's graph goes next to the file, not into the current folder
    svg_path = (
        Path(args.svg)
        if args.svg
        else (Path(str(sidecar) + ".analysis.svg") if sidecar else game.with_name(game.stem + ".analysis.svg"))
    )
    try:
        svg_path.write_text(analysis.svg(result), encoding="utf-8")
        out.print(f"graph written to {svg_path}", soft_wrap=True)
        data: dict[str, Any] = result.to_json()
        if args.json:
            Path(args.json).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        return _err(f"cannot write the analysis: {e}")
    if game_id is not None:  # the library keeps the analysis with the game, in its database
        from bao_host.cli.common import open_store

        try:
            with open_store(args) as st:
                st.save_analysis(game_id, len(plies), data)
        except StoreError as e:
            return _err(f"cannot keep the analysis in the library: {e}")
        out.print(f"analysis kept in the library with game {game_id} (`bao game {game_id}`)", soft_wrap=True)
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    if args.games < 1:
        return _err(f"match: --games is a number of games, 1 or more, not {args.games}")
    try:
        a = players.make_player(args.a, args.movetime, seed=args.seed)
        b = players.make_player(args.b, args.movetime, seed=args.seed + 1)
    except players.PlayerSpecError as e:
        return _err(str(e))
    if a.name == b.name:
        b.name += "'"
    out = Console(highlight=False)

    def report(r: match.MatchResult, g: match.GameRecord) -> None:
        if not args.quiet:
            winner = g.winner or "draw"
            out.print(
                f"game {g.game + 1}: {g.first} (South) vs {g.second} (North): {winner} in {g.plies} plies; "
                f"{r.a} {r.score:g}/{r.played}",
                soft_wrap=True,
            )

    try:
        part = match.parse_part(args.part) if args.part else (0, 1)
    except ValueError as e:
        return _err(str(e))
    try:
        r = match.run_match(a, b, args.games, args.ruleset, args.seed, args.opening_plies, report, args.record, part)
    except match.MatchRecordError as e:
        return _err(str(e))
    out.print(r.summary(), soft_wrap=True)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("engine", help="the search engine on a UCI-like line protocol (docs/engine.md)")
    p.add_argument("--hash-bits", type=int, default=20, help="transposition table of 2**N slots (default 20)")
    p.set_defaults(func=cmd_engine)

    def add_limits(p: argparse.ArgumentParser, movetime: int) -> None:
        p.add_argument("--movetime", type=int, default=movetime, metavar="MS", help=f"ms per move ({movetime})")
        p.add_argument("--depth", type=int, default=0, help="a fixed depth instead of a time")
        p.add_argument("--nodes", type=int, default=0, help="a number of nodes instead of a time")

    p = sub.add_parser("analyse", aliases=["analyze"], help="the engine's judgement of every move of a game")
    p.add_argument("game", metavar="GAME|FILE", help="a transcript file, or a stored game's number or key")
    add_limits(p, 300)
    p.add_argument(
        "--svg",
        metavar="FILE",
        help="write the graph here (default: next to a stored game in the "
        "library, or NAME.analysis.svg next to a file NAME.txt)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the analysis as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--data", metavar="DIR", default=None, help="data directory of the game store")
    p.set_defaults(func=cmd_analyse)

    p = sub.add_parser("match", help="two players over N games, colours swapped: score and Elo difference")
    p.add_argument("a", help=players.SPEC_HELP)
    p.add_argument("b", help="the opponent, named the same way")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--movetime", type=int, default=1000, metavar="MS", help="ms per move for 'engine' (1000)")
    p.add_argument("--ruleset", choices=core.RULESETS, default=core.ZANZIBAR)
    p.add_argument("--seed", type=int, default=1, help="openings and baselines' ties")
    p.add_argument("--opening-plies", type=int, default=4, help="random plies that vary the openings (4)")
    p.add_argument("--quiet", action="store_true", help="the result only, not each game")
    p.add_argument(
        "--record",
        metavar="FILE.jsonl",
        help="append each game here; a rerun plays only the games the file lacks (continue a stopped match)",
    )
    p.add_argument(
        "--part",
        metavar="K/N",
        help="play only part K of N (every Nth pair of games), e.g. in N processes sharing one --record file",
    )
    p.set_defaults(func=cmd_match)
