"""The reference board's schematic as code (SKiDL), built from hardware/board.json.

    python hardware/schematic.py          # ERC report and the KiCad netlist on stdout

No KiCad symbol library is needed (none is installed here, and a maker should not need one to check the
wiring): every part is defined inline below with its package pin numbers and electrical pin types, so the
SKiDL electrical rules check (ERC) sees real inputs, outputs and power pins. The netlist (KiCad format,
hardware/bao_board.net) can be imported into KiCad's PCB editor; footprints are KiCad library names.

Sheet (one net per line of board.json):
  Pico (socketed) / J1 controller header -> SENS_PL, SENS_CLK to all four 74HC165; U1.QH -> SENS_QH
  U1..U4 74HC165, one per row: D0..D7 <- the row's TTP223 touch modules (100k pull-down network RN1..RN4
  keeps an unplugged module at 0), SER <- next chip's QH, the last SER and every CE at GND, 3.3 V supply
  U5 74AHCT125 at 5 V: LED_CLK, LED_DAT (3.3 V from the controller) -> 5 V clock and data for LED 0
  D1..D32 SK9822 LEDs: CKO/SDO of LED k -> CKI/SDI of LED k+1, in board.json's LED order
  C1..C5 100 nF next to each logic chip, C6 1000 uF where 5 V enters the LED chain
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from skidl import KICAD8, POWER, SKIDL, TEMPLATE, Circuit, Net, Part, Pin, erc_logger

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

T = Pin.types


def _template(name: str, prefix: str, footprint: str, pins: list[tuple[int, str, Any]], circuit: Circuit) -> Part:
    return Part(
        tool=SKIDL,
        name=name,
        ref_prefix=prefix,
        footprint=footprint,
        dest=TEMPLATE,
        circuit=circuit,
        pins=[Pin(num=n, name=nm, func=f) for n, nm, f in pins],
    )


def _pico_pins() -> list[tuple[int, str, Any]]:
    pins: list[tuple[int, str, Any]] = []
    gp = 0
    for n in range(1, 41):
        if n in (3, 8, 13, 18, 23, 28, 33, 38):
            pins.append((n, "GND", T.PWRIN))
        elif n == 30:
            pins.append((n, "RUN", T.INPUT))
        elif n in (35, 37):
            pins.append((n, {35: "ADC_VREF", 37: "3V3_EN"}[n], T.PASSIVE))
        elif n == 36:
            pins.append((n, "3V3_OUT", T.PWROUT))
        elif n == 39:
            pins.append((n, "VSYS", T.PWRIN))
        elif n == 40:
            pins.append((n, "VBUS", T.PWROUT))
        else:
            pins.append((n, "GP%d" % gp, T.BIDIR))
            gp += 1 if gp != 22 else 4  # after GP22 come GP26, GP27, GP28
    return pins


HC165 = [
    (1, "~PL", T.INPUT), (2, "CP", T.INPUT), (3, "D4", T.INPUT), (4, "D5", T.INPUT), (5, "D6", T.INPUT),
    (6, "D7", T.INPUT), (7, "~Q7", T.OUTPUT), (8, "GND", T.PWRIN), (9, "Q7", T.OUTPUT), (10, "DS", T.INPUT),
    (11, "D0", T.INPUT), (12, "D1", T.INPUT), (13, "D2", T.INPUT), (14, "D3", T.INPUT), (15, "~CE", T.INPUT),
    (16, "VCC", T.PWRIN),
]
AHCT125 = [
    (1, "~1OE", T.INPUT), (2, "1A", T.INPUT), (3, "1Y", T.TRISTATE), (4, "~2OE", T.INPUT), (5, "2A", T.INPUT),
    (6, "2Y", T.TRISTATE), (7, "GND", T.PWRIN), (8, "3Y", T.TRISTATE), (9, "3A", T.INPUT), (10, "~3OE", T.INPUT),
    (11, "4Y", T.TRISTATE), (12, "4A", T.INPUT), (13, "~4OE", T.INPUT), (14, "VCC", T.PWRIN),
]
SK9822 = [
    (1, "SDI", T.INPUT), (2, "CKI", T.INPUT), (3, "GND", T.PWRIN), (4, "VDD", T.PWRIN), (5, "CKO", T.OUTPUT),
    (6, "SDO", T.OUTPUT),
]
TTP223 = [(1, "VCC", T.PWRIN), (2, "OUT", T.OUTPUT), (3, "GND", T.PWRIN)]
RNET = [(1, "COM", T.PASSIVE)] + [(n, "R%d" % (n - 1), T.PASSIVE) for n in range(2, 10)]
CAP = [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)]


def build(board: dict[str, Any]) -> Circuit:
    """The whole board as a SKiDL circuit."""
    c = Circuit()
    c.no_files = True  # no .erc/.log files next to the caller
    NC = c.NC  # noqa: N806  (the circuit's no-connect net)
    pico_t = _template("RaspberryPi_Pico", "A", "Module:RaspberryPi_Pico_Common_THT", _pico_pins(), c)
    hc165_t = _template("74HC165", "U", "Package_DIP:DIP-16_W7.62mm", HC165, c)
    ahct_t = _template("74AHCT125", "U", "Package_DIP:DIP-14_W7.62mm", AHCT125, c)
    led_t = _template("SK9822", "D", "LED_SMD:LED_RGB_5050-6", SK9822, c)
    touch_t = _template("TTP223_module", "M", "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical",
                        TTP223, c)
    rn_t = _template("R_Network08_100k", "RN", "Resistor_THT:R_Array_SIP9", RNET, c)
    cap_t = _template("C", "C", "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm", CAP, c)
    elko_t = _template("CP", "C", "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm", CAP, c)
    hdr_t = _template("Conn_01x08", "J", "Connector_PinHeader_2.54mm:PinHeader_1x08_P2.54mm_Vertical",
                      [(n, "P%d" % n, T.PASSIVE) for n in range(1, 9)], c)

    def part(t: Part, ref: str, value: str) -> Part:
        p = t(ref=ref, value=value, circuit=c)
        p.tag = ref  # stable netlist time stamps
        return p

    nets = {name: Net(name, circuit=c) for name in
            ("+5V", "+3V3", "GND", "SENS_PL", "SENS_CLK", "SENS_QH", "LED_CLK", "LED_DAT", "LED_CLK5", "LED_DAT5")}
    for name in ("+5V", "+3V3", "GND"):
        nets[name].drive = POWER  # the supplies come from the USB host through the controller

    # The controller: the Pico, and J1 for a Raspberry Pi instead (same nets).
    pico = part(pico_t, "A1", "Raspberry Pi Pico")
    used = set()
    for p in board["pico"]["pins"]:
        pin = pico[p["pin"]]
        used.add(p["pin"])
        if p["net"].startswith("NC_"):
            pin += NC
        else:
            nets[p["net"]] += pin
    for p in board["pico"]["power_pins"]:
        used.add(p["pin"])
        nets[p["net"]] += pico[p["pin"]]
    for n in (3, 8, 13, 18, 23, 28, 33):
        used.add(n)
        nets["GND"] += pico[n]
    for n in range(1, 41):
        if n not in used:
            pico[n] += NC
    j1 = part(hdr_t, "J1", "controller")
    for k, name in enumerate(board["controller_header"]["pins"]):
        nets[name] += j1[k + 1]

    # Sensors: one 74HC165 per row, the row's touch modules on D0..D7, pull-downs on every input.
    chips = board["sensor_chain"]["chips"]
    hc = [part(hc165_t, ch["ref"], "74HC165") for ch in chips]
    for k, (u, ch) in enumerate(zip(hc, chips)):
        nets["SENS_PL"] += u["~PL"]
        nets["SENS_CLK"] += u["CP"]
        nets["GND"] += u["GND"], u["~CE"]
        nets["+3V3"] += u["VCC"]
        u["~Q7"] += NC
        if k == 0:
            nets["SENS_QH"] += u["Q7"]
        if k + 1 < len(hc):
            Net("SER_%s" % ch["ref"], circuit=c).connect(u["DS"], hc[k + 1]["Q7"])
        else:
            nets["GND"] += u["DS"]
        rn = part(rn_t, "RN%d" % (k + 1), "100k")
        nets["GND"] += rn["COM"]
        for n, pit in enumerate(ch["inputs"]):
            m = part(touch_t, "M%d" % (generate.pit_index(pit) + 1), "TTP223 " + pit)
            nets["+3V3"] += m["VCC"]
            nets["GND"] += m["GND"]
            Net("S_" + pit, circuit=c).connect(m["OUT"], u["D%d" % n], rn[n + 2])
        cap = part(cap_t, "C%d" % (k + 1), "100n")
        nets["+3V3"] += cap[1]
        nets["GND"] += cap[2]

    # LEDs: 3.3 V clock and data buffered to 5 V, then the chain in board.json's order.
    u5 = part(ahct_t, "U5", "74AHCT125")
    nets["+5V"] += u5["VCC"], u5["~3OE"], u5["~4OE"]
    nets["GND"] += u5["GND"], u5["~1OE"], u5["~2OE"], u5["3A"], u5["4A"]
    u5["3Y"] += NC
    u5["4Y"] += NC
    nets["LED_CLK"] += u5["1A"]
    nets["LED_DAT"] += u5["2A"]
    nets["LED_CLK5"] += u5["1Y"]
    nets["LED_DAT5"] += u5["2Y"]
    c5 = part(cap_t, "C5", "100n")
    nets["+5V"] += c5[1]
    nets["GND"] += c5[2]
    c6 = part(elko_t, "C6", "1000u 10V")
    nets["+5V"] += c6[1]
    nets["GND"] += c6[2]
    clk, dat = nets["LED_CLK5"], nets["LED_DAT5"]
    order = board["led_chain"]["order"]
    for k, pit in enumerate(order):
        d = part(led_t, "D%d" % (k + 1), "SK9822 " + pit)
        nets["+5V"] += d["VDD"]
        nets["GND"] += d["GND"]
        clk += d["CKI"]
        dat += d["SDI"]
        if k + 1 < len(order):
            clk = Net("CK_%d" % (k + 1), circuit=c)
            dat = Net("SD_%d" % (k + 1), circuit=c)
            clk += d["CKO"]
            dat += d["SDO"]
        else:
            d["CKO"] += NC
            d["SDO"] += NC
    return c


def erc(circuit: Circuit) -> tuple[int, int]:
    """Run SKiDL's ERC; (errors, warnings)."""
    circuit.ERC()
    return erc_logger.error.count, erc_logger.warning.count


def netlist_text(board: dict[str, Any]) -> str:
    """The KiCad netlist, with the date and the source path made stable (so it can be compared in a test)."""
    text = str(build(board).generate_netlist(tool=KICAD8, do_backup=False))
    text = re.sub(r'\(date "[^"]*"\)', '(date "generated")', text)
    text = re.sub(r'\(source "[^"]*"\)', '(source "hardware/schematic.py")', text)
    text = re.sub(r'"[^"]*schematic\.py:(\d+)"', r'"hardware/schematic.py:\1"', text)
    return text if text.endswith("\n") else text + "\n"


if __name__ == "__main__":
    b = generate.load()
    errors, warnings = erc(build(b))
    print("ERC: %d errors, %d warnings" % (errors, warnings), file=sys.stderr)
    sys.stdout.write(netlist_text(b))
