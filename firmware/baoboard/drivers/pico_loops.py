# The Pico driver's two loops that run at every scan or LED frame, as viper code (machine-word loops over
# the buffers themselves): as bytecode, a scan (the chain's bits to the pit bitmap) and a frame (a
# pit-indexed RGB frame into the SK9822 chain's order) took a large share of a touch's way to its LED frame
# on the emulated Pico (docs/benchmarks.md, Emulated Pico). The same arithmetic as the portable
# loops of sr74hc165.to_pits and APA102.show, which PicoHardware uses when this module cannot load: native
# code loads only on the MicroPython whose mpy-cross made it (armv6m, .mpy 6.3: `make firmware`), and an
# older release raises ValueError at import. On CPython (the tests' fakes_machine) the decorators do nothing
# and the buffers are indexed as they are.
import micropython


@micropython.viper
def chain_frame(chain, rgb, order, count: int):  # (viper: the buffers are objects, cast below)
    """APA102.show's copy: LED k of the chain (4 bytes at 4 + 4k: brightness, B, G, R) shows pit
    order[k] of the frame (R, G, B at 3 * pit)."""
    buf = ptr8(chain)  # noqa: F821 (viper's own)
    frame = ptr8(rgb)  # noqa: F821
    led_pit = ptr8(order)  # noqa: F821
    for k in range(count):
        o = 3 * led_pit[k]
        d = 4 * k + 4
        buf[d + 1] = frame[o + 2]
        buf[d + 2] = frame[o + 1]
        buf[d + 3] = frame[o]


@micropython.viper
def chain_pits(chain, table, pits):
    """sr74hc165.to_pits: pit i is set in pits when sensor bit table[i] is set in the chain's bytes."""
    raw = ptr8(chain)  # noqa: F821 (viper's own)
    pit_sensor_bit = ptr8(table)  # noqa: F821
    bitmap = ptr8(pits)  # noqa: F821
    bitmap[0] = 0
    bitmap[1] = 0
    bitmap[2] = 0
    bitmap[3] = 0
    for i in range(32):
        s = pit_sensor_bit[i]
        if raw[s >> 3] & (1 << (s & 7)):
            bitmap[i >> 3] = bitmap[i >> 3] | (1 << (i & 7))
