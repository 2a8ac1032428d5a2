# The reference board for the driver tests: the chip models of fakes_chips wired per hardware/board.json
# (read with the fakes' own code, not through the generated board_config, so a wrong table shows).
from fakes_chips import CURRENT, APA102Chain, HC165Chain, Wires, load_board, pit_index, pit_names


class FakeBoard:
    """Sensor modules on the 74HC165 inputs and the LED chain, on the Pico (or "rpi") pins of board.json.
    chips: ["B1B2..." pit names on D0..D7 per chip, in chain order] to model a board wired differently."""

    def __init__(self, kind="sk9822", swap_chips=False, chips=None, controller="pico"):
        w = load_board()
        self.wiring = w
        self.wires = Wires()
        self.spis = {}
        self.wdt = None
        CURRENT[0] = self
        pins = w[controller]
        self.chip_inputs = chips if chips is not None else w["chips"]
        if swap_chips:  # a chain soldered in the wrong order
            self.chip_inputs = list(reversed(self.chip_inputs))
        self.wires.levels[pins["SENS_PL"]] = 1
        self.chain = HC165Chain(self.wires, pins["SENS_PL"], pins["SENS_CLK"], pins["SENS_QH"], len(w["chips"]))
        self.leds = APA102Chain(self.wires, pins["LED_CLK"], pins["LED_DAT"], len(w["leds"]) // 2, kind)
        self.led_order = bytes(pit_index(n) for n in pit_names(w["leds"]))

    def touch(self, pits):
        """Set every sensor output: high for the named pits, low for the rest."""
        for c, inputs in enumerate(self.chip_inputs):
            for k, name in enumerate(pit_names(inputs)):
                self.chain.set_input(c, k, name in pits)

    def lit_pits(self):
        """Global indices of the pits whose LED shows any colour at a non-zero brightness."""
        out = []
        for k, pit in enumerate(self.led_order):
            c = self.leds.colour(k)
            if c is not None and c[0] and (c[1] or c[2] or c[3]):
                out.append(pit)
        return out

    def pit_colour(self, pit):
        """(brightness, r, g, b) shown at global pit index `pit`."""
        return self.leds.colour(self.led_order.index(pit))
