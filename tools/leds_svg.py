"""Draw docs/leds.svg: the LED grammar of the board (baoboard.guide colours) on example boards."""

from __future__ import annotations

from pathlib import Path

from baoboard import guide as G

ROOT = Path(__file__).resolve().parent.parent


# (title, {pit: colour, or the two colours of a pit that blinks between them}) — pits by global index:
# South 0..15 (A1..A8 = 0..7, B8..B1 = 8..15), North 16..31
SCENES = [
    (
        "teach, between moves: legal starts (green), takasia-ed pit (purple)",
        {3: G.START, 5: G.START, 6: G.START, 1: G.TAKASIA_C},
    ),
    ("a pit lifted (dim yellow): two directions (blue)", {5: G.LIFTED, 4: G.CHOICE, 6: G.CHOICE}),
    ("sowing: the next pit (white)", {7: G.NEXT}),
    ("capture: empty the opponent's pit (red)", {16 + 2: G.CAPTURE}),
    ("namua capture: choose the kichwa (cyan)", {0: G.KICHWA_C, 7: G.KICHWA_C}),
    ("relay: lift this pit (yellow)", {9: G.RELAY}),
    ("2.5b house: amber and yellow, blinking; lift = play on, opponent moves = stop", {4: (G.HOUSE, G.RELAY)}),
    ("wrong pit (pink, blinking) and the legal pits again", {12: G.WRONG, 5: G.START, 6: G.START}),
    ("after an undo: restore these pits (orange, blinking)", {3: G.RESTORE, 4: G.RESTORE, 21: G.RESTORE}),
    ("game over: winner gold, loser dim red", {**{i: G.WIN for i in range(16)}, **{i: G.LOSE for i in range(16, 32)}}),
    ("no host connected: back-row corners dim blue, slow blink", {c: G.NOHOST for c in G.CORNERS}),
    (
        "kuu game placement (M20-M22): 3 seeds left to place, gold on the far back row; drops green",
        {**{i: G.START for i in range(16)}, 24: G.WIN, 25: G.WIN, 26: G.WIN},
    ),
    ("M18 threatened pit (purple); M19 blinking: the capture must take it first", {16 + 1: G.TAKASIA_C, 8: G.START}),
    # (the guide's constants are private: a public name would be one more qstr in the Pico's RAM)
    ("a faulty sensor, ignored (magenta): drops into it are taken as made", {4: G._FAULT, 5: G.START}),
    (
        "the computer chosen for North, level 3: three of its front pits blink violet (no move)",
        {16: G._SIDE, 17: G._SIDE, 18: G._SIDE},
    ),
]


def cell(pit: int) -> tuple[int, int]:
    """(column, row) on the drawing: North's back row on top, South's back row at the bottom."""
    side, ring = pit >> 4, pit & 15
    if side == 0:
        return (ring, 2) if ring < 8 else (15 - ring, 3)
    return (7 - ring, 1) if ring < 8 else (ring - 8, 0)


def colour(c: int) -> str:
    r, g, b = (c >> 16) & 255, (c >> 8) & 255, c & 255
    return f"#{r:02x}{g:02x}{b:02x}"


def wrap(title: str, width: int = 44) -> list[str]:
    """The caption in lines that fit one drawing's width."""
    lines: list[str] = []
    for word in title.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def main() -> None:
    w, h = 250, 150
    cols = 3
    rows = (len(SCENES) + cols - 1) // cols
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * w}" height="{rows * h}" '
        f'font-family="sans-serif" font-size="9">',
        '<rect width="100%" height="100%" fill="#2b1d0e"/>',
    ]
    for k, (title, lit) in enumerate(SCENES):
        x0, y0 = (k % cols) * w + 10, (k // cols) * h + 10
        for i, line in enumerate(wrap(title)):
            out.append(f'<text x="{x0}" y="{y0 + 4 + 11 * i}" fill="#fff">{line}</text>')
        y0 += 14
        for pit in range(32):
            c, r = cell(pit)
            x, y = x0 + 14 + c * 28, y0 + 22 + r * 24 + (8 if r >= 2 else 0)
            shown = lit.get(pit, 0x5A3D1E)
            if isinstance(shown, tuple):  # blinking between two colours: one in each half
                first, second = (colour(x) for x in shown)
                out.append(f'<path d="M {x} {y - 10} A 10 10 0 0 0 {x} {y + 10} Z" fill="{first}"/>')
                out.append(f'<path d="M {x} {y - 10} A 10 10 0 0 1 {x} {y + 10} Z" fill="{second}"/>')
                out.append(f'<circle cx="{x}" cy="{y}" r="10" fill="none" stroke="#000"/>')
            else:
                out.append(f'<circle cx="{x}" cy="{y}" r="10" fill="{colour(shown)}" stroke="#000"/>')
        out.append(f'<text x="{x0}" y="{y0 + 124}" fill="#aaa">North (a, b) top, South (A, B) bottom</text>')
    out.append("</svg>")
    (ROOT / "docs/leds.svg").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
