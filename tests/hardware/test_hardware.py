"""The reference design (hardware/): board description consistent, generated files fresh, schematic ERC
clean and equal to board.json, BOM readable and its total the one the README states."""

from __future__ import annotations

import copy
import csv
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import generate
import pytest

ROOT = Path(__file__).resolve().parents[2]


BOARD = generate.load()


def test_board_description_is_consistent() -> None:
    assert generate.validate(BOARD) == []
    bits, leds = generate.sensor_bits(BOARD), generate.led_indices(BOARD)
    assert sorted(bits) == list(range(32)) and sorted(bits.values()) == list(range(32))
    assert sorted(leds) == list(range(32)) and sorted(leds.values()) == list(range(32))


def test_pit_names_follow_the_global_index_contract() -> None:
    expected = [f"A{n}" for n in range(1, 9)] + [f"B{n}" for n in range(8, 0, -1)]
    expected += [n.lower() for n in expected]
    assert [generate.pit_name(i) for i in range(32)] == expected
    assert all(generate.pit_index(generate.pit_name(i)) == i for i in range(32))
    rows = BOARD["layout"]["row_left_to_right"]
    assert rows["A"] == [f"A{n}" for n in range(1, 9)] and rows["B"] == [f"B{n}" for n in range(1, 9)]
    assert rows["a"] == [f"a{n}" for n in range(8, 0, -1)] and rows["b"] == [f"b{n}" for n in range(8, 0, -1)]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda b: b["pico"]["pins"][1].update(gp=16), "GPIO 16 used 2 times"),
        (lambda b: b["rpi"]["pins"][0].update(pin=22), "header pin 22 used 2 times"),
        (lambda b: b["sensor_chain"]["chips"][0]["inputs"].__setitem__(0, "A1"), "pit A1 is on 2 sensor inputs"),
        (lambda b: b["led_chain"]["order"].__setitem__(0, "A1"), "pit A1 has 2 LEDs"),
        (lambda b: b["led_chain"].update(brightness_cap=12), "power budget"),
        (lambda b: b["led_chain"].update(end_frame_zero_bytes=4), "end frame"),
    ],
)
def test_validation_catches_mistakes(mutate: object, message: str) -> None:
    b = copy.deepcopy(BOARD)
    mutate(b)  # type: ignore[operator]
    assert any(message in e for e in generate.validate(b)), generate.validate(b)


def test_generated_files_are_fresh() -> None:
    for path, text in generate.outputs(BOARD).items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python hardware/generate.py"


def test_firmware_config_matches_the_description() -> None:
    from baoboard.drivers import board_config as cfg

    bits, leds = generate.sensor_bits(BOARD), generate.led_indices(BOARD)
    assert [cfg.PIT_SENSOR_BIT[i] for i in range(32)] == [bits[i] for i in range(32)]
    assert all(cfg.LED_PIT[leds[i]] == i for i in range(32))
    assert cfg.LED_BRIGHTNESS_CAP == BOARD["led_chain"]["brightness_cap"]
    assert cfg.SENS_PL == generate.pico_gp(BOARD, "SENS_PL") and cfg.RPI_LED_DAT == generate.rpi_bcm(BOARD, "LED_DAT")


def test_schematic_passes_erc() -> None:
    import schematic

    assert schematic.erc(schematic.build(BOARD)) == (0, 0)


def _nets(netlist: str) -> dict[str, set[tuple[str, str]]]:
    nets: dict[str, set[tuple[str, str]]] = {}
    for block in netlist.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block)
        assert name
        nets[name.group(1)] = set(re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block))
    return nets


def test_netlist_wires_every_pit_as_the_description_says() -> None:
    nets = _nets((ROOT / "hardware" / "bao_board.net").read_text(encoding="utf-8"))
    for c, chip in enumerate(BOARD["sensor_chain"]["chips"]):
        for n, pit in enumerate(chip["inputs"]):
            node = (chip["ref"], str(generate.HC165_INPUT_PINS[n]))
            assert node in nets["S_" + pit] and (f"M{generate.pit_index(pit) + 1}", "2") in nets["S_" + pit]
        if c == 0:
            assert (chip["ref"], "9") in nets["SENS_QH"]
    order = BOARD["led_chain"]["order"]
    assert ("D1", "2") in nets["LED_CLK5"] and ("D1", "1") in nets["LED_DAT5"]
    for k in range(1, len(order)):
        assert nets[f"CK_{k}"] == {(f"D{k}", "5"), (f"D{k + 1}", "2")}
        assert nets[f"SD_{k}"] == {(f"D{k}", "6"), (f"D{k + 1}", "1")}
    for p in BOARD["pico"]["pins"]:
        if not p["net"].startswith("NC_"):
            assert ("A1", str(p["pin"])) in nets[p["net"]]
    for k, net in enumerate(BOARD["controller_header"]["pins"]):
        assert ("J1", str(k + 1)) in nets[net]


def test_diagrams_show_every_pit() -> None:
    for name in ("board.svg", "chains.svg"):
        root = ET.parse(ROOT / "hardware" / name).getroot()
        texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
        assert all(generate.pit_name(i) in texts for i in range(32)), name
    texts = [t.text or "" for t in ET.parse(ROOT / "hardware" / "board.svg").getroot().iter()]
    assert sum(t.startswith("sensor bit ") for t in texts) == 32 and sum(t.startswith("LED ") for t in texts) == 32


def _bom() -> list[dict[str, str]]:
    with open(ROOT / "hardware" / "bom.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_bom_is_readable_and_the_readme_total_matches() -> None:
    rows = _bom()
    assert rows and set(rows[0]) == {"refs", "part", "manufacturer", "mpn", "quantity", "purpose", "unit_cost_usd"}
    for r in rows:
        assert r["part"] and r["mpn"] and r["purpose"] and int(r["quantity"]) > 0 and float(r["unit_cost_usd"]) >= 0
    total = sum(int(r["quantity"]) * float(r["unit_cost_usd"]) for r in rows)
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert f"**Total: about ${total:.2f}**" in readme
    qty = {r["mpn"]: int(r["quantity"]) for r in rows}
    assert qty["SN74HC165N"] == len(BOARD["sensor_chain"]["chips"]) and qty["SK9822"] == 32 and qty["TTP223-BA6"] == 32


def test_readme_states_the_power_budget() -> None:
    pb = generate.power_budget(BOARD)
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    for key in ("led_colour_ma", "total_ma", "total_with_margin_ma", "uncapped_total_ma"):
        assert f"{pb[key]:.1f} mA" in readme, key
    assert f"brightness cap {BOARD['led_chain']['brightness_cap']}/31" in readme


def test_readme_states_the_builders_figures() -> None:
    """Board size, pit spacing, LEDs and wire to buy: hardware/README.md says what board.json makes them."""
    fig, dim = generate.build_figures(BOARD), BOARD["layout"]["dimensions_mm"]
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    for text in (
        f"{fig['board_width']} x {fig['board_depth']} mm",
        f"{dim['pit_diameter']} mm across",
        f"centres {dim['pit_pitch']} mm apart",
        f"**LEDs: {fig['leds']}**",
        f"at least {fig['strip_m']} m",
        f"**Sensor ribbons: {fig['ribbon_m']} m**",
        f"is {fig['longest_ribbon']} mm",
        f"**LED wiring: {fig['led_wire_m']} m**",
        f"the longest {fig['longest_led_link']} mm",
    ):
        assert text in readme, text
    pb = generate.power_budget(BOARD)
    idle = pb["total_ma"] - pb["led_colour_ma"]  # LEDs dark: what the first power-up should draw
    assert f"about {idle:.1f} mA" in readme and f"at most {pb['total_ma']:.1f} mA" in readme


def test_readme_wires_every_pin_of_the_level_shifter_as_the_netlist() -> None:
    nets = _nets((ROOT / "hardware" / "bao_board.net").read_text(encoding="utf-8"))
    u5 = {int(pin): net for net, nodes in nets.items() for ref, pin in nodes if ref == "U5"}
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    table = readme.split("U5, the 74AHCT125", 1)[1].split("\n\n", 2)[1]  # the paragraph, then the table
    rows = dict(re.findall(r"^\| (\d+) \| [^|]+ \| ([^|]+) \|", table, re.M))
    assert sorted(int(k) for k in rows) == list(range(1, 15))  # every pin of the DIP-14
    said = {int(k): v.strip() for k, v in rows.items()}
    for pin in range(1, 15):
        net = u5.get(pin)
        if net is None:
            assert said[pin] == "nothing", pin
        elif net in ("GND", "+5V"):
            assert said[pin].startswith(net), (pin, said[pin])
        elif net in ("LED_CLK", "LED_DAT"):
            assert said[pin].startswith(net), (pin, said[pin])
        else:  # the 5 V side: LED 0's clock and data inputs
            assert said[pin] == ("CI" if net == "LED_CLK5" else "DI") + " of LED 0 (at B1)", (pin, said[pin])


def test_chains_svg_puts_the_controller_under_b1() -> None:
    """The drawing agrees with the text (and board.json): the controller is at the bottom left, under B1."""
    assert "under pit B1" in BOARD["layout"]["controller_corner"]
    root = ET.parse(ROOT / "hardware" / "chains.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    [box] = [r for r in root.iter(ns + "rect") if r.get("id") == "controller"]
    x = float(box.get("x", 0)) + float(box.get("width", 0)) / 2
    y = float(box.get("y", 0))
    pits: dict[str, tuple[float, float]] = {}
    for t in root.iter(ns + "text"):  # the first panel's labels (the LED chain)
        if t.text in ("B1", "B8"):
            pits.setdefault(t.text, (float(t.get("x", 0)), float(t.get("y", 0))))
    (b1x, b1y), (b8x, _) = pits["B1"], pits["B8"]
    assert abs(x - b1x) < abs(x - b8x) and abs(x - b1x) < generate.CELL / 2 and y > b1y


def test_dimensions_are_checked() -> None:
    b = copy.deepcopy(BOARD)
    b["layout"]["dimensions_mm"]["controller"]["x"] = 500
    assert any("does not fit" in e for e in generate.validate(b))
