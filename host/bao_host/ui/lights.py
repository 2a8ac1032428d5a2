"""What the board's LEDs look like on a screen, read from its LED frame (the same 96 bytes the LEDs get), for
the terminal UI; the web board's static/board.js does the same in the browser.

The board scales every colour of its grammar (docs/leds.md) by its brightness, a quarter by default. The
screen undoes that one scale for the whole frame, never pit by pit: a pit at full brightness in the grammar
is drawn at full brightness, a dim one (the pit just lifted, the loser's pits, the "not recorded" corners)
stays dim. Scaled pit by pit, the start's green and the computer's bright green, or the dim white of the
corners and the white of the next pit, came out as the same colour.

Colour alone is not enough (a colour-blind player; a dim terminal): the lights that a person could take for
another get a mark as well (`MARKS`), and the words that name them say the mark too.
"""

from __future__ import annotations

DEFAULT_BRIGHTNESS = 64  # the board's brightness (0..255) unless a host changes it (baoboard.guide)
FULL = 255 * DEFAULT_BRIGHTNESS >> 8  # a full channel of the grammar, as the board sends it by default
CORNERS = (8, 15, 24, 31)  # B1, B8, b1, b8: where the board shows "no host" and "not recorded"

# A mark for each light a person could take for another (the words name it: "bright green ★")
HINT = "hint"  # bright green 0x00FF40: the start of the computer's move, the host's SHOW, a hint
REFUSED = "refused"  # red-pink 0xFF0040, blinking: a touch not part of a legal move
NOHOST = "nohost"  # dim blue 0x000030 on the four corners: no host connected
UNRECORDED = "unrecorded"  # dim white 0x303030 there instead: this game is not recorded
SIDE = "side"  # violet 0x6000FF: who plays a side just chosen (the computer's level, the host), not a move
MARKS = {HINT: "★", REFUSED: "✕", NOHOST: "⊘", UNRECORDED: "!", SIDE: "◆"}


def scale(frame: bytes) -> float:
    """The factor that brings the frame back to the grammar's colours: the board's default brightness, or
    the brightest channel lit when a host made the board brighter."""
    return 255 / max(FULL, max(frame[:96], default=0))


def colour(rgb: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    """A pit's colour on the screen for its LED's value (k: scale(frame)); a dark LED is dark grey."""
    if rgb == (0, 0, 0):
        return (0x20, 0x20, 0x20)
    r, g, b = (min(255, int(c * k + 0.5)) for c in rgb)  # (as the page's Math.round)
    return (r, g, b)


def meanings(frame: bytes) -> list[str]:
    """Each pit's light that needs a mark (MARKS), or "": read by hue, since the board scales every colour
    by its brightness."""
    out = [""] * 32
    if len(frame) < 96:
        return out
    px = [(frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]) for i in range(32)]
    grey = [px[i] for i in CORNERS if px[i][0] == px[i][1] == px[i][2] > 0]
    # the dim white corners: the same grey on (nearly) all four at once; a white next pit is one pit
    unrecorded = len(grey) >= 3 and grey.count(grey[0]) == len(grey)
    for i, (r, g, b) in enumerate(px):
        m = max(r, g, b)
        if m == 0:
            continue
        if i in CORNERS and r == g == 0:
            out[i] = NOHOST
        elif i in CORNERS and unrecorded and r == g == b:
            out[i] = UNRECORDED
        elif r == 0 and g == m and 0 < b * 2 <= m:
            out[i] = HINT
        elif r == m and g * 8 <= m and b * 6 >= m and b * 2 <= m:
            out[i] = REFUSED
        elif b == m and g == 0 and 0 < r * 2 < m:  # (the takasia's purple 0xA000FF has more red)
            out[i] = SIDE
    return out
