"""Board diagrams in the terminal (rich): the board as a player sees it, North's rows on top."""

from __future__ import annotations

from bao import core, kuu, position_json, query
from rich.console import Group
from rich.table import Table
from rich.text import Text

SIDE_NAMES = ("South", "North")


def _row(p: core.Position, name: str) -> list[int]:
    return list(position_json.to_dict(p, False)[name])


def rows_top_down(p: core.Position) -> list[tuple[str, list[int]]]:
    """The four rows as seen from above with South at the bottom: b8..b1, a8..a1, A1..A8, B1..B8."""
    return [
        ("b", _row(p, "b")[::-1]),
        ("a", _row(p, "a")[::-1]),
        ("A", _row(p, "A")),
        ("B", _row(p, "B")),
    ]


def render_text(p: core.Position) -> str:
    """A plain-text diagram (also what `bao show --plain` prints)."""
    lines = []
    store = (p.store(0), p.store(1))
    house = ["house" if p.owns_house(s) else "no house" for s in (0, 1)]
    lines.append(f"North  store {store[1]:2d}  {house[1]}")
    for name, counts in rows_top_down(p):
        cells = " ".join(f"{n:2d}" for n in counts)
        lines.append(f"  {name}  {cells}")
        if name == "a":
            lines.append("     " + "-" * 23)
    lines.append(f"South  store {store[0]:2d}  {house[0]}")
    lines.append(status_line(p))
    return "\n".join(lines)


def status_line(p: core.Position) -> str:
    w = core.outcome(p)
    if w is not None:
        extra = f" ({p.in_hand} seed{'s' if p.in_hand != 1 else ''} still in hand)" if p.in_hand else ""
        return f"Game over: {SIDE_NAMES[w]} wins{extra}."
    stage = kuu.stage(p)  # namua / mtaji; the kuu games: placement / nemo / mtaji (M8, M22)
    t = p.takasia
    tk = f"; {core.pit_name(t)} is {'threatened' if p.rules.kuu else 'takasia-ed'}" if t is not None else ""
    must = kuu.must_capture(p)
    if must is not None:
        tk += f"; must capture {core.pit_name(must)} first"
    left = kuu.placing(p)
    if left:
        tk += f"; {left} seed{'s' if left != 1 else ''} to place"
    return f"{SIDE_NAMES[p.to_move]} to move ({stage} stage, {p.rules.ruleset}){tk}."


def render(p: core.Position, highlight: set[int] | None = None) -> Group:
    """A rich renderable: the 32 pits with their counts; houses and the takasia-ed pit marked."""
    highlight = highlight or set()
    table = Table(show_header=False, box=None, padding=(0, 1))
    table.add_column("row", style="dim")
    for _ in range(8):
        table.add_column(justify="right")
    names = {
        "b": [f"b{k}" for k in range(8, 0, -1)],
        "a": [f"a{k}" for k in range(8, 0, -1)],
        "A": [f"A{k}" for k in range(1, 9)],
        "B": [f"B{k}" for k in range(1, 9)],
    }
    takasia = p.takasia
    # the pits' numbers above North's rows (8..1, as North's pits lie seen from South) and below South's
    table.add_row("", *[Text(str(k), style="dim italic") for k in range(8, 0, -1)])
    for row, counts in rows_top_down(p):
        cells = []
        for pit_name, n in zip(names[row], counts):
            pit = query.pit_index(pit_name)
            style = ""
            if pit & 15 == 4 and p.owns_house(pit >> 4):
                style = "bold yellow"
            if pit == takasia:
                style = "bold red"
            if pit in highlight:
                style = "reverse " + (style or "bold")
            cells.append(Text(f"{n:2d}", style=style or ("bold" if n else "dim")))
        table.add_row(row, *cells)
        if row == "a":
            table.add_row("", *[Text("--", style="dim") for _ in range(8)])
    table.add_row("", *[Text(str(k), style="dim italic") for k in range(1, 9)])
    head = Text(f"North  store {p.store(1)}" + _house(p, 1), style="cyan")
    foot = Text(f"South  store {p.store(0)}" + _house(p, 0), style="cyan")
    return Group(head, table, foot, Text(status_line(p)))


def _house(p: core.Position, side: int) -> str:
    """The house said beside the store (its count is drawn in yellow): 'house A5', or nothing."""
    return f"  house {'Aa'[side]}5" if p.owns_house(side) else ""
