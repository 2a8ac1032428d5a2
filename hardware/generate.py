"""Generate everything that is derived from hardware/board.json, or check that it is fresh.

    python hardware/generate.py          # write the files
    python hardware/generate.py --check  # exit 1 if a committed file differs from a fresh generation

Writes:
    firmware/baoboard/drivers/board_config.py   constants and mapping tables for the Pico drivers (and the Pi driver)
    hardware/board.svg                          the board from above: every pit's name, index, sensor bit, LED index
    hardware/chains.svg                         the LED chain and the 74HC165 sensor chain
    hardware/bao_board.net                      the KiCad netlist of hardware/schematic.py (needs SKiDL)

The board description is validated first (no pin used twice, every pit exactly one sensor bit and one LED,
the brightness cap within the power budget); any error stops the generation.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BOARD_JSON = HERE / "board.json"
CONFIG_PY = ROOT / "firmware" / "baoboard" / "drivers" / "board_config.py"
BOARD_SVG = HERE / "board.svg"
CHAINS_SVG = HERE / "chains.svg"
NETLIST = HERE / "bao_board.net"

PITS = 32
# 74HC165 package pins (DIP-16 / SOIC-16) of the parallel inputs D0 (A) .. D7 (H).
HC165_INPUT_PINS = (11, 12, 13, 14, 3, 4, 5, 6)


def load(path: Path = BOARD_JSON) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def pit_name(i: int) -> str:
    """Name of global pit index i (A1..A8, B8..B1 for South; a1..a8, b8..b1 for North)."""
    side, ring = divmod(i, 16)
    if ring < 8:
        return ("A" if side == 0 else "a") + str(ring + 1)
    return ("B" if side == 0 else "b") + str(16 - ring)


def pit_index(name: str) -> int:
    row, num = name[0], int(name[1:])
    if row not in "ABab" or not 1 <= num <= 8:
        raise ValueError("bad pit name " + repr(name))
    side = 0 if row in "AB" else 1
    ring = num - 1 if row in "Aa" else 16 - num
    return side * 16 + ring


def sensor_bits(board: dict[str, Any]) -> dict[int, int]:
    """pit index -> sensor bit (8 * chip position in the chain + input number)."""
    out: dict[int, int] = {}
    for c, chip in enumerate(board["sensor_chain"]["chips"]):
        for n, name in enumerate(chip["inputs"]):
            out[pit_index(name)] = 8 * c + n
    return out


def led_indices(board: dict[str, Any]) -> dict[int, int]:
    """pit index -> LED index in the chain."""
    return {pit_index(name): k for k, name in enumerate(board["led_chain"]["order"])}


def power_budget(board: dict[str, Any]) -> dict[str, float]:
    """Worst-case current drawn from USB with every LED white at full value under the brightness cap."""
    p, led = board["power"], board["led_chain"]
    n = len(led["order"])
    colour = n * 3 * p["led_channel_ma_full"] * led["brightness_cap"] / led["global_brightness_max"]
    idle = n * p["led_idle_ma"]
    sensors = len(board["sensor_chain"]["chips"]) * 8 * p["sensor_module_ma"]
    total = colour + idle + p["pico_ma"] + sensors + p["logic_ma"]
    uncapped = n * 3 * p["led_channel_ma_full"] + idle + p["pico_ma"] + sensors + p["logic_ma"]
    return {
        "led_colour_ma": round(colour, 1),
        "led_idle_ma": round(idle, 1),
        "pico_ma": float(p["pico_ma"]),
        "sensors_ma": round(sensors, 1),
        "logic_ma": float(p["logic_ma"]),
        "total_ma": round(total, 1),
        "total_with_margin_ma": round(total + p["margin_ma"], 1),
        "limit_ma": float(p["usb_limit_ma"]),
        "uncapped_total_ma": round(uncapped, 1),
    }


def pit_positions_mm(board: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Each pit's centre in mm, seen from above, from the board's bottom-left corner (x right, y up)."""
    dim = board["layout"]["dimensions_mm"]
    pitch, margin, gap = dim["pit_pitch"], dim["margin"], dim["centre_gap"]
    rows = board["layout"]["rows_top_to_bottom"]
    out: dict[str, tuple[float, float]] = {}
    for r, row in enumerate(rows):
        up = len(rows) - 1 - r  # 0 for the bottom row
        y = margin + pitch * (up + 0.5) + (gap if up >= len(rows) // 2 else 0)
        for c, name in enumerate(board["layout"]["row_left_to_right"][row]):
            out[name] = (margin + pitch * (c + 0.5), y)
    return out


def build_figures(board: dict[str, Any]) -> dict[str, float]:
    """What a builder needs to buy and cut, from board.json: board size, LEDs, wire lengths (mm)."""
    dim, led = board["layout"]["dimensions_mm"], board["led_chain"]
    ctl, slack = dim["controller"], dim["wire_slack"]
    xy = pit_positions_mm(board)
    cx, cy = ctl["x"] + ctl["width"] / 2, ctl["y"] + ctl["height"] / 2
    order = led["order"]
    links = [math.dist(xy[a], xy[b]) + slack for a, b in zip(order, order[1:])]
    lead = abs(xy[order[0]][0] - cx) + abs(xy[order[0]][1] - cy) + slack  # U5 to LED 0
    ribbons = []
    for chip in board["sensor_chain"]["chips"]:
        far = max(abs(xy[p][0] - cx) + abs(xy[p][1] - cy) for p in chip["inputs"])
        ribbons.append(far + 2 * slack)
    n = len(order)
    return {
        "board_width": 8 * dim["pit_pitch"] + 2 * dim["margin"],
        "board_depth": 4 * dim["pit_pitch"] + dim["centre_gap"] + 2 * dim["margin"],
        "leds": n,
        "strip_m": round(n / led["strip_leds_per_m"], 2),
        "led_wire_m": round((sum(links) + lead) / 1000, 1),
        "longest_led_link": round(max(links)),
        "ribbon_m": round(sum(ribbons) / 1000, 1),
        "longest_ribbon": round(max(ribbons)),
    }


def validate(board: dict[str, Any]) -> list[str]:
    """Every inconsistency of the board description, as messages (empty when all is well)."""
    errors: list[str] = []
    names = {pit_name(i) for i in range(PITS)}
    # Layout: every pit shown exactly once.
    shown = [n for row in board["layout"]["rows_top_to_bottom"] for n in board["layout"]["row_left_to_right"][row]]
    if sorted(shown) != sorted(names):
        errors.append("layout does not show every pit exactly once")
    # Sensors: 4 chips x 8 inputs, every pit on exactly one input.
    wired = [n for chip in board["sensor_chain"]["chips"] for n in chip["inputs"]]
    for chip in board["sensor_chain"]["chips"]:
        if len(chip["inputs"]) != 8:
            errors.append("chip %s has %d inputs, not 8" % (chip["ref"], len(chip["inputs"])))
    for n in sorted(names):
        if wired.count(n) != 1:
            errors.append("pit %s is on %d sensor inputs" % (n, wired.count(n)))
    for n in wired:
        if n not in names:
            errors.append("unknown pit %r on a sensor input" % n)
    # LEDs: every pit exactly one LED.
    order = board["led_chain"]["order"]
    for n in sorted(names):
        if order.count(n) != 1:
            errors.append("pit %s has %d LEDs" % (n, order.count(n)))
    if len(order) != PITS:
        errors.append("LED chain has %d LEDs, not %d" % (len(order), PITS))
    led = board["led_chain"]
    if led["color_order"] != "BGR":
        errors.append("only the APA102/SK9822 colour order BGR is supported")
    if not 1 <= led["brightness_cap"] <= led["global_brightness_max"] == 31:
        errors.append("brightness cap must be 1..31")
    # End frame: 32 zero bits (SK9822 latch) plus one clock per two LEDs (the chain's half-clock delay).
    need = 4 + (PITS + 15) // 16
    if led["end_frame_zero_bytes"] < need:
        errors.append("end frame of %d bytes is too short, need %d" % (led["end_frame_zero_bytes"], need))
    # Dimensions: the controller under the board, inside its outline.
    dim = board["layout"].get("dimensions_mm")
    if not dim:
        errors.append("layout.dimensions_mm is missing (a builder needs the pit pitch and the board size)")
    else:
        ctl = dim["controller"]
        w, d = 8 * dim["pit_pitch"] + 2 * dim["margin"], 4 * dim["pit_pitch"] + dim["centre_gap"] + 2 * dim["margin"]
        if ctl["x"] < 0 or ctl["y"] < 0 or ctl["x"] + ctl["width"] > w or ctl["y"] + ctl["height"] > d:
            errors.append("the controller (%g x %g mm at %g, %g) does not fit under the %g x %g mm board"
                          % (ctl["width"], ctl["height"], ctl["x"], ctl["y"], w, d))
        if dim["pit_diameter"] >= dim["pit_pitch"]:
            errors.append("pits of %g mm do not fit at a %g mm pitch" % (dim["pit_diameter"], dim["pit_pitch"]))
    # Pins: no GPIO and no header pin used twice, per controller.
    for ctrl, key in (("pico", "gp"), ("rpi", "bcm")):
        pins = board[ctrl]["pins"]
        gpios = [p[key] for p in pins]
        phys = [p["pin"] for p in pins] + [p["pin"] for p in board[ctrl]["power_pins"]]
        nets = [p["net"] for p in pins]
        for what, values in (("GPIO", gpios), ("header pin", phys), ("net", nets)):
            for v in sorted(set(values), key=str):
                if values.count(v) > 1:
                    errors.append("%s: %s %s used %d times" % (ctrl, what, v, values.count(v)))
    pico_nets = {p["net"] for p in board["pico"]["pins"]}
    for net in ("SENS_QH", "SENS_PL", "SENS_CLK", "LED_CLK", "LED_DAT"):
        if net not in pico_nets:
            errors.append("pico: net %s has no pin" % net)
        if net not in {p["net"] for p in board["rpi"]["pins"]}:
            errors.append("rpi: net %s has no pin" % net)
    # Power.
    pb = power_budget(board)
    if pb["total_with_margin_ma"] > pb["limit_ma"]:
        errors.append("power budget %.1f mA exceeds %.0f mA" % (pb["total_with_margin_ma"], pb["limit_ma"]))
    return errors


def pico_gp(board: dict[str, Any], net: str) -> int:
    for p in board["pico"]["pins"]:
        if p["net"] == net:
            return int(p["gp"])
    raise KeyError(net)


def rpi_bcm(board: dict[str, Any], net: str) -> int:
    for p in board["rpi"]["pins"]:
        if p["net"] == net:
            return int(p["bcm"])
    raise KeyError(net)


def _bytes_literal(values: list[int]) -> str:
    return 'b"' + "".join("\\x%02x" % v for v in values) + '"'


def render_config(board: dict[str, Any]) -> str:
    sb, li = sensor_bits(board), led_indices(board)
    pit_bit = [sb[i] for i in range(PITS)]
    led_pit = [0] * PITS
    for pit, k in li.items():
        led_pit[k] = pit
    s, l = board["pico"]["sensor_spi"], board["pico"]["led_spi"]
    led = board["led_chain"]
    names = "".join(pit_name(i) for i in range(PITS))
    lines = [
        "# Generated by hardware/generate.py from hardware/board.json. Do not edit: edit board.json and regenerate.",
        "from baoboard.compat import const  # micropython.const on the board, the identity on CPython",
        "",
        "# Pico: 74HC165 chain on SPI%d (mode %d), /PL latch on a plain GPIO." % (s["bus"], 2 * s["polarity"] + s["phase"]),
        "SENS_SPI = const(%d)" % s["bus"],
        "SENS_BAUD = const(%d)" % s["baudrate"],
        "SENS_POL = const(%d)" % s["polarity"],
        "SENS_PHA = const(%d)" % s["phase"],
        "SENS_SCK = const(%d)" % pico_gp(board, "SENS_CLK"),
        "SENS_MOSI = const(%d)  # claimed by the SPI block, not connected" % pico_gp(board, "NC_SPI0_TX"),
        "SENS_MISO = const(%d)" % pico_gp(board, "SENS_QH"),
        "SENS_PL = const(%d)" % pico_gp(board, "SENS_PL"),
        "SENS_CHIPS = const(%d)" % len(board["sensor_chain"]["chips"]),
        "SENS_ACTIVE_HIGH = const(%d)" % (1 if board["sensor_chain"]["active_high"] else 0),
        "# Pico: APA102/SK9822 chain on SPI%d (mode %d)." % (l["bus"], 2 * l["polarity"] + l["phase"]),
        "LED_SPI = const(%d)" % l["bus"],
        "LED_BAUD = const(%d)" % l["baudrate"],
        "LED_POL = const(%d)" % l["polarity"],
        "LED_PHA = const(%d)" % l["phase"],
        "LED_SCK = const(%d)" % pico_gp(board, "LED_CLK"),
        "LED_MOSI = const(%d)" % pico_gp(board, "LED_DAT"),
        "LED_MISO = const(%d)  # claimed by the SPI block, not connected" % pico_gp(board, "NC_SPI1_RX"),
        "LEDS = const(%d)" % len(led["order"]),
        "LED_BRIGHTNESS_CAP = const(%d)  # of 31: the USB power budget, see hardware/README.md" % led["brightness_cap"],
        "LED_END_BYTES = const(%d)" % led["end_frame_zero_bytes"],
        "WATCHDOG_MS = const(%d)" % board["pico"]["watchdog_ms"],
        "# Raspberry Pi (BCM numbers), bit-banged.",
        "RPI_SENS_PL = const(%d)" % rpi_bcm(board, "SENS_PL"),
        "RPI_SENS_CLK = const(%d)" % rpi_bcm(board, "SENS_CLK"),
        "RPI_SENS_QH = const(%d)" % rpi_bcm(board, "SENS_QH"),
        "RPI_LED_CLK = const(%d)" % rpi_bcm(board, "LED_CLK"),
        "RPI_LED_DAT = const(%d)" % rpi_bcm(board, "LED_DAT"),
        "# PIT_SENSOR_BIT[i]: sensor bit of pit i (bit b&7 of byte b>>3 of the chain read).",
        "PIT_SENSOR_BIT = " + _bytes_literal(pit_bit),
        "# LED_PIT[k]: pit index shown by LED k of the chain.",
        "LED_PIT = " + _bytes_literal(led_pit),
        "# PIT_NAMES[2*i:2*i+2]: name of pit i.",
        'PIT_NAMES = "%s"' % names,
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- SVG


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="DejaVu Sans, Arial, sans-serif">' % (width, height, width, height),
        "<title>%s</title>" % escape(title),
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
        '<rect x="0" y="0" width="%d" height="%d" fill="#fbf6ee"/>' % (width, height),
    ]
    return "\n".join(head + body + ["</svg>", ""])


def _text(x: float, y: float, s: str, size: int = 12, anchor: str = "middle", weight: str = "normal",
          fill: str = "#222") -> str:
    return '<text x="%g" y="%g" font-size="%d" text-anchor="%s" font-weight="%s" fill="%s">%s</text>' % (
        x, y, size, anchor, weight, fill, escape(s))


CELL, LEFT, TOP = 110, 70, 60


def _pit_xy(board: dict[str, Any]) -> dict[str, tuple[float, float]]:
    xy: dict[str, tuple[float, float]] = {}
    for r, row in enumerate(board["layout"]["rows_top_to_bottom"]):
        for c, name in enumerate(board["layout"]["row_left_to_right"][row]):
            xy[name] = (LEFT + CELL * c + CELL / 2, TOP + CELL * r + CELL / 2 + (20 if r >= 2 else 0))
    return xy


def render_board_svg(board: dict[str, Any]) -> str:
    sb, li = sensor_bits(board), led_indices(board)
    chips = board["sensor_chain"]["chips"]
    xy = _pit_xy(board)
    fig, dim = build_figures(board), board["layout"]["dimensions_mm"]
    ctl = dim["controller"]
    w, h = LEFT + 8 * CELL + 30, TOP + 4 * CELL + 20 + 70
    body = [
        _text(w / 2, 30, "North (rows b, a)", 16, weight="bold"),
        _text(w / 2, h - 18, "South (rows A, B) - the controller sits under B1, bottom left", 16, weight="bold"),
        _text(w / 2, 48, "Board %d x %d mm; pits %d mm across, %d mm apart; %d mm more between North and South; "
              "controller %d x %d mm under B1, %d mm from the left edge and %d mm from the bottom"
              % (fig["board_width"], fig["board_depth"], dim["pit_diameter"], dim["pit_pitch"], dim["centre_gap"],
                 ctl["width"], ctl["height"], ctl["x"], ctl["y"]), 12),
        '<line x1="%d" y1="%g" x2="%d" y2="%g" stroke="#8a6d3b" stroke-width="3"/>'
        % (LEFT, TOP + 2 * CELL + 10, LEFT + 8 * CELL, TOP + 2 * CELL + 10),
    ]
    for r, row in enumerate(board["layout"]["rows_top_to_bottom"]):
        y = TOP + CELL * r + CELL / 2 + (20 if r >= 2 else 0)
        body.append(_text(LEFT - 40, y + 5, "row " + row, 14, weight="bold"))
    for name, (x, y) in sorted(xy.items()):
        i = pit_index(name)
        bit = sb[i]
        chip = chips[bit // 8]
        body.append('<circle cx="%g" cy="%g" r="48" fill="#e9d8b4" stroke="#8a6d3b" stroke-width="2"/>' % (x, y))
        body.append(_text(x, y - 22, name, 18, weight="bold"))
        body.append(_text(x, y - 4, "pit %d" % i, 12))
        body.append(_text(x, y + 13, "sensor bit %d" % bit, 12, fill="#1b5e20"))
        body.append(_text(x, y + 27, "%s.D%d" % (chip["ref"], bit % 8), 11, fill="#1b5e20"))
        body.append(_text(x, y + 41, "LED %d" % li[i], 12, fill="#b71c1c"))
    return _svg(w, h, body, "Bao board seen from above: pit name, global index, sensor bit, LED index")


def render_chains_svg(board: dict[str, Any]) -> str:
    xy = _pit_xy(board)
    chips = board["sensor_chain"]["chips"]
    width = LEFT + 8 * CELL + 260
    height = TOP + 4 * CELL + 20 + 100  # room under row B for the controller
    panel2 = height
    height = 2 * height + 40
    body: list[str] = [_text(width / 2, 30, "LED chain (SK9822/APA102): data and clock enter at LED 0", 16, "middle",
                             "bold")]
    # Panel 1: the LED chain as a path through the pits.
    pts = [xy[n] for n in board["led_chain"]["order"]]
    for name, (x, y) in sorted(xy.items()):
        body.append('<circle cx="%g" cy="%g" r="30" fill="#f3e7cf" stroke="#c8b48a"/>' % (x, y))
        body.append(_text(x, y - 10, name, 13, weight="bold"))
    path = " ".join("%g,%g" % (x, y + 20) for x, y in pts)
    body.append('<polyline points="%s" fill="none" stroke="#b71c1c" stroke-width="2.5" '
                'marker-mid="url(#arrow)" marker-end="url(#arrow)"/>' % path)
    for k, (x, y) in enumerate(pts):
        body.append(_text(x, y + 6, "LED %d" % k, 11, fill="#b71c1c"))
    x0, y0 = pts[0]
    # the controller, under B1 at the bottom left (board.json layout.controller_corner), feeding LED 0
    bx, by = max(4.0, x0 - 100), y0 + 48
    body.append('<rect id="controller" x="%g" y="%g" width="200" height="40" fill="#fff" stroke="#333"/>'
                % (bx, by))
    body.append(_text(bx + 100, by + 16, "controller: Pico GP%d (data), GP%d (clock)"
                      % (pico_gp(board, "LED_DAT"), pico_gp(board, "LED_CLK")), 11))
    body.append(_text(bx + 100, by + 32, "via 74AHCT125 (5 V) to LED 0 at B1", 11))
    body.append('<path d="M%g,%g L%g,%g" fill="none" stroke="#333" stroke-width="1.5" '
                'stroke-dasharray="5,4" marker-end="url(#arrow)"/>' % (x0, by, x0, y0 + 30))
    body.append(_text(LEFT + 4 * CELL, panel2 - 8, "Each LED: 5V, GND, CI/DI in from the previous LED, CO/DO out to the "
                      "next. End frame: %d zero bytes." % board["led_chain"]["end_frame_zero_bytes"], 12))
    # Panel 2: the sensor chain, one 74HC165 per row.
    oy = panel2 + 20
    body.append(_text(width / 2, oy + 10, "Sensor chain (74HC165): U1 nearest the controller; SER of each chip <- QH "
                      "of the next", 16, "middle", "bold"))
    bx = LEFT + 8 * CELL + 40
    for c, chip in enumerate(chips):
        row = chip["row"]
        r = board["layout"]["rows_top_to_bottom"].index(row)
        cy = oy + TOP + CELL * r + CELL / 2
        for n, name in enumerate(chip["inputs"]):
            col = board["layout"]["row_left_to_right"][row].index(name)
            x = LEFT + CELL * col + CELL / 2
            body.append('<circle cx="%g" cy="%g" r="30" fill="#f3e7cf" stroke="#c8b48a"/>' % (x, cy))
            body.append(_text(x, cy - 4, name, 13, weight="bold"))
            body.append(_text(x, cy + 14, "D%d bit %d" % (n, 8 * c + n), 11, fill="#1b5e20"))
        body.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#1b5e20" stroke-width="1.5"/>'
                    % (LEFT + CELL / 2, cy + 34, bx, cy + 34))
        body.append('<rect x="%g" y="%g" width="170" height="70" fill="#fff" stroke="#1b5e20" stroke-width="2"/>'
                    % (bx, cy - 35))
        body.append(_text(bx + 85, cy - 14, "%s 74HC165 (row %s)" % (chip["ref"], row), 12, weight="bold"))
        ser = "SER <- %s.QH" % chips[c + 1]["ref"] if c + 1 < len(chips) else "SER <- GND"
        qh = "QH -> Pico GP%d" % pico_gp(board, "SENS_QH") if c == 0 else "QH -> %s.SER" % chips[c - 1]["ref"]
        body.append(_text(bx + 85, cy + 4, qh, 11))
        body.append(_text(bx + 85, cy + 20, ser, 11))
        if c > 0:
            rp = board["layout"]["rows_top_to_bottom"].index(chips[c - 1]["row"])
            py = oy + TOP + CELL * rp + CELL / 2
            body.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#1b5e20" stroke-width="2" '
                        'marker-end="url(#arrow)"/>' % (bx + 200, cy, bx + 200, py))
    body.append(_text(width / 2, height - 14, "All chips share /PL (Pico GP%d) and CP (Pico GP%d); CE tied to GND."
                      % (pico_gp(board, "SENS_PL"), pico_gp(board, "SENS_CLK")), 12))
    return _svg(width, height, body, "Bao board chains: LED order and 74HC165 sensor order")


# ----------------------------------------------------------------------------------------- driver


def outputs(board: dict[str, Any], with_netlist: bool = True) -> dict[Path, str]:
    files = {
        CONFIG_PY: render_config(board),
        BOARD_SVG: render_board_svg(board),
        CHAINS_SVG: render_chains_svg(board),
    }
    if with_netlist:
        sys.path.insert(0, str(HERE))
        import schematic  # noqa: PLC0415  (SKiDL is heavy: imported only when the netlist is wanted)

        files[NETLIST] = schematic.netlist_text(board)
    return files


def main(argv: list[str]) -> int:
    board = load()
    errors = validate(board)
    if errors:
        for e in errors:
            print("board.json:", e, file=sys.stderr)
        return 1
    check = "--check" in argv
    stale = []
    for path, text in outputs(board, with_netlist="--no-netlist" not in argv).items():
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            print("wrote", path.relative_to(ROOT))
    for path in stale:
        print("stale:", path.relative_to(ROOT), "- run python hardware/generate.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
