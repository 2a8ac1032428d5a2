"""The board as SVG, drawn as a Bao board looks: four rows of eight pits in the wood, North's on top, as a
person sees the board from South's chair (rows b8..b1, a8..a1, A1..A8, B1..B8, as in the terminal UI), the
house pits (nyumba, front pit 5 of each side: bao.layout.HOUSE_RING) square as a real board's, the stores
as heaps of seeds above and below.

Only numbers and pit names go into this markup (nothing from a request or the library). Each pit is a
`<g class="pit-group">` holding the pit's shape (`class="pit" id="pit-N"`, N: the rules core's pit index
0..31; a circle, the house a rounded square), its seeds (`<g id="seeds-N">`), its name, its count in small
type (`<text id="count-N">`) and a marker (`<text id="mark-N">`) for the lights that are not guidance (a
refused touch, no host). The page's scripts (static/seeds.js with board.js or replay.js) fill each pit
in its LED's colour and draw the seeds; the pit's fill is the LED frame's truth, the seeds sit on it.
"""

from __future__ import annotations

from bao import core
from bao.layout import HOUSE_RING
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
HOUSE_HALF = 32  # half the side of a house's square
LEFT = 50  # room for the row labels
TOP = 64  # room for North's store
STORE_ROOM = 64  # room for South's store below the pits
OFF = "#202020"  # a dark LED
HOUSES = (core.SOUTH * 16 + HOUSE_RING, core.NORTH * 16 + HOUSE_RING)


def pit_centre(pit: int) -> tuple[int, int]:
    for row, (_, side, rings) in enumerate(ROWS):
        for col, ring in enumerate(rings):
            if side * 16 + ring == pit:
                gap = 16 if row >= 2 else 0  # the line between North's rows and South's
                return LEFT + col * PITCH + PITCH // 2, TOP + row * PITCH + PITCH // 2 + gap
    raise ValueError(f"no pit {pit}")


def _shape(pit: int, x: int, y: int) -> str:
    common = f'class="pit" id="pit-{pit}" fill="{OFF}" data-rgb="000000"'
    if pit in HOUSES:
        h = HOUSE_HALF
        return f'<rect {common} x="{x - h}" y="{y - h}" width="{2 * h}" height="{2 * h}" rx="9"/>'
    return f'<circle {common} cx="{x}" cy="{y}" r="{RADIUS}"/>'


def board_svg(counts: list[int] | None = None, stores: tuple[int, int] = (0, 0), clickable: bool = False) -> Markup:
    """The board with the given seed counts (32 pits) and stores; every pit dark (the scripts draw the seeds
    and the colours)."""
    counts = counts if counts is not None else [0] * 32
    width = LEFT + 8 * PITCH + 20
    height = TOP + 4 * PITCH + 16 + STORE_ROOM
    cls = "board clickable" if clickable else "board"
    mid = TOP + 2 * PITCH + 8
    heap_x = LEFT + 3 * PITCH  # the heaps' left end, right of the store's words
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" id="board" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="the Bao board">',
        f'<rect x="0" y="0" width="{width}" height="{height}" rx="18" class="wood"/>',
        f'<text x="{LEFT}" y="38" class="store" id="store-n">North\'s store: {stores[1]}</text>',
        f'<g class="heap" id="heap-n" data-x="{heap_x}" data-y="50"></g>',
        f'<text x="{LEFT}" y="{height - 24}" class="store" id="store-s">South\'s store: {stores[0]}</text>',
        f'<g class="heap" id="heap-s" data-x="{heap_x}" data-y="{height - 12}"></g>',
        f'<line x1="{LEFT}" x2="{LEFT + 8 * PITCH}" y1="{mid}" y2="{mid}" class="middle"/>',
    ]
    for label, side, rings in ROWS:
        _, y = pit_centre(side * 16 + rings[0])
        out.append(f'<text x="18" y="{y + 6}" class="row">{label}</text>')
        for ring in rings:
            pit = side * 16 + ring
            x, y = pit_centre(pit)
            name = core.pit_name(pit)
            house = ' data-house="yes"' if pit in HOUSES else ""
            out.append(
                f'<g class="pit-group" data-pit="{pit}" data-name="{name}" data-x="{x}" data-y="{y}"'
                f"{house}>{_shape(pit, x, y)}"
                f'<g class="seeds" id="seeds-{pit}"></g>'
                f'<text x="{x}" y="{y - 23}" class="name" id="name-{pit}" fill="#ffffff">{name}</text>'
                f'<text x="{x}" y="{y + 31}" class="count" id="count-{pit}" fill="#ffffff">'
                f"{counts[pit]}</text>"
                f'<text x="{x}" y="{y + 9}" class="mark" id="mark-{pit}"></text></g>'
            )
    out.append("</svg>")
    return Markup("".join(out))
