"""The board as SVG: four rows of eight pits, North's on top, as a person sees the board from South's
chair (rows b8..b1, a8..a1, A1..A8, B1..B8, as in the terminal UI), the stores above and below.

Only numbers and pit names go into this markup (nothing from a request or the library). Each pit is a
`<circle class="pit" id="pit-N">` (N: the rules core's pit index 0..31) and its count a `<text id="count-N">`;
the page's script (static/board.js) colours each pit from the LED frame and writes the counts.
"""

from __future__ import annotations

from bao import core
from markupsafe import Markup

# (row label, side, ring indices left to right)
ROWS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("b", core.NORTH, tuple(range(8, 16))),  # b8..b1
    ("a", core.NORTH, tuple(range(7, -1, -1))),  # a8..a1
    ("A", core.SOUTH, tuple(range(8))),  # A1..A8
    ("B", core.SOUTH, tuple(range(15, 7, -1))),  # B1..B8
)

PITCH = 80  # distance between two pit centres
RADIUS = 34
LEFT = 50  # room for the row labels
TOP = 56  # room for North's store
OFF = "#202020"  # a dark LED


def pit_centre(pit: int) -> tuple[int, int]:
    for row, (_, side, rings) in enumerate(ROWS):
        for col, ring in enumerate(rings):
            if side * 16 + ring == pit:
                gap = 16 if row >= 2 else 0  # the line between North's rows and South's
                return LEFT + col * PITCH + PITCH // 2, TOP + row * PITCH + PITCH // 2 + gap
    raise ValueError(f"no pit {pit}")


def board_svg(counts: list[int] | None = None, stores: tuple[int, int] = (0, 0), clickable: bool = False) -> Markup:
    """The board with the given seed counts (32 pits) and stores; every pit dark."""
    counts = counts if counts is not None else [0] * 32
    width = LEFT + 8 * PITCH + 20
    height = TOP + 4 * PITCH + 16 + 56
    cls = "board clickable" if clickable else "board"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" id="board" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="the Bao board">',
           f'<rect x="0" y="0" width="{width}" height="{height}" rx="18" class="wood"/>',
           f'<text x="{LEFT}" y="36" class="store" id="store-n">North\'s store: {stores[1]}</text>',
           f'<text x="{LEFT}" y="{height - 22}" class="store" id="store-s">South\'s store: {stores[0]}</text>',
           f'<line x1="{LEFT}" x2="{LEFT + 8 * PITCH}" y1="{TOP + 2 * PITCH + 8}" y2="{TOP + 2 * PITCH + 8}" '
           'class="middle"/>']
    for label, side, rings in ROWS:
        _, y = pit_centre(side * 16 + rings[0])
        out.append(f'<text x="18" y="{y + 6}" class="row">{label}</text>')
        for ring in rings:
            pit = side * 16 + ring
            x, y = pit_centre(pit)
            name = core.pit_name(pit)
            out.append(f'<g class="pit-group" data-pit="{pit}" data-name="{name}">'
                       f'<circle class="pit" id="pit-{pit}" cx="{x}" cy="{y}" r="{RADIUS}" fill="{OFF}" '
                       f'data-rgb="000000"/>'
                       f'<text x="{x}" y="{y - 12}" class="name" id="name-{pit}" fill="#ffffff">{name}</text>'
                       f'<text x="{x}" y="{y + 16}" class="count" id="count-{pit}" fill="#ffffff">'
                       f'{counts[pit]}</text></g>')
    out.append("</svg>")
    return Markup("".join(out))
