# The Pico's entry point: frozen into the Bao-board image (tools/image), or copied as source by `make deploy`
# onto a stock MicroPython. Thin on purpose: build the hardware and hand it to the board's run loop
# (baoboard.runtime): it reports whatever escapes on the serial link and starts the application again from
# its journal; the watchdog is fed only by a healthy loop.
import gc
import sys
import time

# The image's modules before any file on the flash (an earlier .mpy install would shadow them), before the
# first import of the board's code.
if ".frozen" in sys.path:
    sys.path.remove(".frozen")
    sys.path.insert(0, ".frozen")

# Boot in a small heap: collect after every KB allocated while the modules load (App.boot() ends it). Loading
# leaves garbage (default-argument tuples, a dict's old table); collected at once, the next module's code fills
# it, so the code lies packed and the heap's untouched end stays whole for the buffers and the moves. Not on a
# Pico (229 KB free): there the collections slow the boot, and packed code slows play, since after a
# collection every allocation of two blocks or more searches from the heap's lowest free block up
# (docs/architecture.md, Memory on the board).
if gc.mem_free() < 131072:
    gc.threshold(1024)


def main():
    from baoboard import install

    if install.repl_requested("/"):  # a developer's REPL (hardware/README.md): the board stays off
        return
    try:
        from baoboard.drivers import selftest
        from baoboard.drivers.pico import PicoHardware
    except ImportError:  # no drivers on this build: nothing to run
        return
    from baoboard.compat import modules_now, unload_new
    from baoboard.runtime import Supervisor

    try:
        import bao_image  # noqa: F401  (frozen into the Bao-board image only: tools/image/build.sh)

        install.retire_deployed("/")
    except ImportError:  # .mpy files on a stock MicroPython (make deploy): they are the code
        pass
    # the self-test comes with the hardware (baoboard.hal): the application imports no driver
    hw = PicoHardware(pit_sensor_bit=selftest.load_mapping(), raw_serial=True, self_test=selftest.self_test)
    board_id = "pico"
    try:
        from binascii import hexlify

        import machine

        board_id = hexlify(machine.unique_id()).decode()
    except Exception:
        pass
    # A scan, then the pause runtime._SCAN_MS: 3 agreeing scans make an activation (the scan loop's period and
    # a touch's latency on the emulated Pico: docs/benchmarks.md). KeyboardInterrupt (raw_serial off) leaves to
    # the REPL.
    # The journal on flash sectors of its own: an append programs pages, never erases. baoboard.flashres
    # runs once, at boot, and is dropped after (its storage's modules stay).
    import baoboard.flashlog  # noqa: F401
    import baoboard.storage  # noqa: F401

    before = modules_now()
    from baoboard.flashres import boot_storage

    storage, notice = boot_storage(hw, "/")  # (a first boot shows the board is not ready meanwhile)
    del boot_storage  # (main() never returns: its locals would keep the module)
    unload_new(before)
    sup = Supervisor(hw, storage, board_id, on_error=sys.print_exception)
    sup.notice = notice
    sup.run(time.sleep_ms)


main()
