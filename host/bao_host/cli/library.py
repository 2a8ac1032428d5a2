"""The game library: `bao games`, `bao game GAME`, `bao export`, `bao import`, `bao name`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bao import core, notation, position_json
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bao_host.cli import inputs
from bao_host.cli.common import add_data_arg, open_store
from bao_host.record.store import PRACTICE, Game, StoreError
from bao_host.ui.diagram import render_text
from bao_host.ui.safe import markup, plain
from bao_host.ui.web.library import iso_date


def _err(msg: str) -> int:
    print("bao: " + plain(msg), file=sys.stderr)
    return 1


def _result_text(g: Game) -> str:
    if g.source in PRACTICE:  # a lesson's task or a puzzle: left for the next, never "playing" on
        return g.result
    return g.result or (f"({g.status})" if g.status in ("playing", "abandoned") else "")


def cmd_games(args: argparse.Namespace) -> int:
    try:
        st = open_store(args, create=False, readonly=True)
    except StoreError as e:
        return _err(str(e))
    with st:
        try:
            filters = {"player": args.player, "date": args.date, "result": args.result, "board": args.board}
            games = st.games(**filters, practice=args.practice, empty=args.empty)
            hidden, empty = st.left_out(**filters)
            hidden, empty = (0 if args.practice else hidden), (0 if args.empty else empty)
        except StoreError as e:
            return _err(str(e))
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "id": g.id,
                            "key": g.key,
                            "south": g.south,
                            "north": g.north,
                            "date": g.date,
                            "place": g.place,
                            "ruleset": g.ruleset,
                            "result": g.result,
                            "status": g.status,
                            "moves": len(g.plies),
                            "board": g.board_id,
                            "source": g.source,
                        }
                        for g in games
                    ],
                    indent=1,
                )
            )
            return 0
        if not games:
            print(f"no games in {st.root}")
            _say_left_out(hidden, empty)
            return 0
        console = Console()
        # Under 100 columns the two sides share one column, South's name over North's: two names side by
        # side ("computer 2", "host engine", a person's) left the source a few letters at 80 columns.
        stacked = console.width < 100
        sides = ("South\nNorth",) if stacked else ("South", "North")
        t = Table(title=markup(f"Games in {st.root}"))
        for col in ("#", "date", *sides, "ruleset", "plies", "result", "source"):
            # at 80 columns the names and the source fold; a date, a number or a result is never cut
            whole = col in ("#", "date", "ruleset", "plies", "result")
            t.add_column(col, no_wrap=whole, overflow="fold", min_width=10 if col == "date" else None)
        for g in games:  # every stored text is data: no markup, no control characters reach the terminal
            names = [plain(g.south or "?"), plain(g.north or "?")]
            cells = ["\n".join(names)] if stacked else names
            t.add_row(
                *(
                    Text(x)
                    for x in (
                        str(g.id),
                        iso_date(g.date),
                        *cells,
                        g.ruleset,
                        str(len(g.plies)),
                        _result_text(g),
                        _source(g),
                    )
                )
            )
        Console().print(t)
        _say_left_out(hidden, empty)
    return 0


def _source(g: Game) -> str:
    if g.source in PRACTICE:
        return plain(f"{g.source} on {g.board_id}" if g.board_id else g.source)
    return plain(g.board_id or g.source)


def _say_left_out(hidden: int, empty: int) -> None:
    """The lessons' tasks and puzzles played on the board, and the games abandoned before their first move,
    are kept but not listed: say how many, and how to list them."""
    if hidden:
        print(
            f"(and {hidden} lesson task{'s' * (hidden != 1)} and puzzles played on the board: not listed, "
            "--practice lists them; `bao lessons` shows the lessons done)"
        )
    if empty:
        print(
            f"(and {empty} game{'s' * (empty != 1)} abandoned before {'their' if empty != 1 else 'its'} first move:"
            f" not listed, --empty lists {'them' if empty != 1 else 'it'})"
        )


def show_game(args: argparse.Namespace) -> int:
    """Print a stored game: header, then each move with the board after it. args: game, data, boards."""
    try:
        with open_store(args, create=False, readonly=True) as st:
            g = st.game(args.game)
            positions = st.positions(g.id)
            flagged = [e for e in st.events(g.id) if e["flag"]]
            kept = st.analysis(g)
    except StoreError as e:
        return _err(str(e))
    out = Console()
    marks = _analysis_marks(kept[1]) if kept else {}
    for k, v in g.headers().items():
        out.print(markup(f"{k}: {v}"), highlight=False)
    comments = g.comments()
    with_boards = getattr(args, "boards", True)
    if with_boards:
        out.print(render_text(positions[0]), highlight=False)
    for i, text in enumerate(g.plies):
        num = i // 2 + 1
        side = "South" if positions[i].to_move == core.SOUTH else "North"
        line = f"{num}. {side} {text}"
        if i + 1 in marks:
            line += marks[i + 1]
        if i % 2 == 1 and num in comments:
            line += "   ; " + comments[num]
        out.print(markup(line), highlight=False)
        if with_boards:
            out.print(render_text(positions[i + 1]), highlight=False)
    if kept:
        _print_analysis_summary(out, kept[0], kept[1], len(g.plies))
    for ev in flagged:
        what = markup(f"flagged event {ev['stream']}#{ev['seq']}: {ev['flag']}")
        out.print(f"[red]{what}[/red]  " + markup(ev["raw"]), highlight=False)
    return 0


def _analysis_marks(data: dict[str, Any]) -> dict[int, str]:
    """Ply number -> what `bao game` writes after the move: the engine's evaluation after it (South's view,
    seeds), its mark and the best move when the move lost something."""
    out = {}
    for p in data.get("plies", []):
        if not isinstance(p, dict) or not isinstance(p.get("ply"), int):
            continue
        text = f"   [{float(p.get('eval_after', 0.0)):+.2f}"
        if p.get("mark"):
            text += f" {p['mark']}"
        if p.get("best") and p.get("best") != p.get("played") and float(p.get("loss", 0.0)) > 0:
            text += f", best {p['best']}, loses {float(p['loss']):.2f}"
        out[p["ply"]] = text + "]"
    return out


def _print_analysis_summary(out: Console, plies: int, data: dict[str, Any], played: int) -> None:
    limits: dict[str, Any] = data["limits"] if isinstance(data.get("limits"), dict) else {}
    engine = " ".join(f"{k} {v}" for k, v in limits.items())
    covers = "" if plies >= played else f" (its first {plies} of {played} plies: analyse again for the rest)"
    out.print(markup(f"engine analysis ({engine}; South's view in seeds){covers}:"), highlight=False)
    for s in data.get("players", []):
        if isinstance(s, dict):
            m: dict[str, Any] = s["marks"] if isinstance(s.get("marks"), dict) else {}
            out.print(
                markup(
                    f"  {s.get('side')} ({s.get('name')}): {s.get('moves')} moves, average loss "
                    f"{float(s.get('average_loss', 0.0)):.2f} seeds, ?! {m.get('?!', 0)}, ? {m.get('?', 0)}, "
                    f"?? {m.get('??', 0)}"
                ),
                highlight=False,
            )


def export_text(g: Game, positions: list[core.Position], fmt: str) -> str:
    if fmt == "donkers":
        return g.transcript()
    if fmt == "kiba":
        plies = []
        for i, text in enumerate(g.plies):
            move, _ = notation.parse_move(positions[i], text, notation.DONKERS)
            plies.append(notation.format_move(move, positions[i].to_move, notation.KIBA))
        h = g.headers()
        h["notation"] = "kiba"
        return notation.format_transcript(h, plies, g.comments())
    obj: dict[str, Any] = {
        "id": g.id,
        "key": g.key,
        "headers": g.headers(),
        "plies": g.plies,
        "positions": [position_json.to_dict(p, False) for p in positions],
    }
    return json.dumps(obj, indent=1) + "\n"


def cmd_export(args: argparse.Namespace) -> int:
    try:
        with open_store(args, create=False, readonly=True) as st:
            g = st.game(args.game)
            text = export_text(g, st.positions(g.id), args.format)
    except (StoreError, core.BaoError) as e:
        return _err(str(e))
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            return _err(f"cannot write {args.output}: {e.strerror or e}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    try:
        t, dialect = inputs.read_transcript(args.file, args.dialect)
        text = _to_donkers(t) if dialect == notation.KIBA else inputs.read_text(args.file)
    except inputs.InputError as e:
        return _err(str(e))
    except (core.BaoError, notation.ReplayError) as e:
        return _err(f"{args.file}: {e}")
    names = {}
    if args.south:
        names["south"] = args.south
    if args.north:
        names["north"] = args.north
    try:
        with open_store(args) as st:
            g = st.import_text(text, names=names)
    except (StoreError, core.BaoError, notation.ReplayError) as e:
        return _err(f"{args.file}: {e}")
    print(plain(f"imported {args.file} as game {g.id} ({len(g.plies)} plies, {g.result or 'unfinished'})"))
    return 0


def _to_donkers(t: notation.Transcript) -> str:
    """A KIBA transcript rewritten in Donkers notation, the library's (its `notation:` header dropped)."""
    positions = notation.replay(t, dialect=notation.KIBA)
    plies = []
    for i, ply in enumerate(t.plies):
        move, _ = notation.parse_move(positions[i], ply, notation.KIBA)
        plies.append(notation.format_move(move, positions[i].to_move, notation.DONKERS))
    h = {k: v for k, v in t.headers.items() if k != "notation"}
    return notation.format_transcript(h, plies, t.comments)


def cmd_name(args: argparse.Namespace) -> int:
    try:
        with open_store(args, create=False) as st:
            g = st.name_players(args.game, south=args.south, north=args.north, place=args.place)
    except StoreError as e:
        return _err(str(e))
    print(plain(f"game {g.id}: South {g.south or '?'}, North {g.north or '?'}"))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("games", help="list the stored games (filter by player, date, result)")
    add_data_arg(p)
    p.add_argument("--player", help="games where South or North matches NAME (substring)")
    p.add_argument("--date", help="games whose date starts with DATE")
    p.add_argument("--result", help="games whose result contains TEXT (e.g. South, North)")
    p.add_argument("--board", help="games logged from this board id")
    p.add_argument(
        "--practice", action="store_true", help="list the lessons' tasks and the puzzles played on the board too"
    )
    p.add_argument("--empty", action="store_true", help="list the games abandoned before their first move too")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("game", help="show a stored game: its transcript with a board after each move")
    add_data_arg(p)
    p.add_argument("game", help="game number (from `bao games`) or key")
    p.add_argument("--no-boards", dest="boards", action="store_false", help="the transcript only")
    p.set_defaults(func=show_game)

    p = sub.add_parser("export", help="write a stored game in Donkers or Kiba notation, or JSON")
    add_data_arg(p)
    p.add_argument("game", help="game number or key")
    p.add_argument("--format", choices=("donkers", "kiba", "json"), default="donkers")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="add a transcript to the library (checked by replaying it)")
    add_data_arg(p)
    p.add_argument("file", help="transcript file")
    p.add_argument(
        "--dialect",
        choices=notation.DIALECTS,
        default=None,
        help="move notation (default: the transcript's 'notation:' header, else donkers)",
    )
    p.add_argument("--south", help="name South's player")
    p.add_argument("--north", help="name North's player")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("name", help="name the players (and place) of a stored game")
    add_data_arg(p)
    p.add_argument("game", help="game number or key")
    p.add_argument("--south")
    p.add_argument("--north")
    p.add_argument("--place")
    p.set_defaults(func=cmd_name)
