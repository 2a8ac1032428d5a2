# The Pico's entry point (copied as source; everything else is .mpy). Thin on purpose: build the hardware,
# run the board application, and when anything escapes, report it on the serial link and start again.
# The watchdog is fed only by a healthy scan loop, so a hang resets the board; the journal brings the game
# back at its last completed move.
import sys
import time

# A scan every ~2 ms on the emulated Pico; 3 agreeing scans make an activation, so a touch reaches the
# LEDs in 9.8 ms (median; 17.6 ms when this was 4). tools/bench_pico.py measures it.
SCAN_MS = 1


def _report(e):
    try:
        from baoboard.frames import encode

        sys.stdout.write(encode("N", 0, "ERROR", repr(e).replace("\n", " ")[:200]).decode())
        sys.print_exception(e)  # type: ignore[attr-defined]
    except Exception:
        pass


def main():
    from baoboard.app import App
    from baoboard.storage import FileStorage

    hw = None
    try:
        from baoboard.drivers import selftest
        from baoboard.drivers.pico import PicoHardware

        hw = PicoHardware(pit_sensor_bit=selftest.load_mapping(), raw_serial=True)
    except ImportError:  # no drivers on this build: nothing to run
        return
    board_id = "pico"
    try:
        from binascii import hexlify

        import machine

        board_id = hexlify(machine.unique_id()).decode()
    except Exception:
        pass
    restarts = 0
    while True:
        try:
            app = App(hw, FileStorage("/"), board_id=board_id)
            app.boot()
            while True:
                app.step()
                time.sleep_ms(SCAN_MS)  # type: ignore[attr-defined]  # the debouncer counts scans: pace them
        except KeyboardInterrupt:  # only with raw_serial off: leave to the REPL
            raise
        except Exception as e:
            _report(e)
            restarts += 1
            time.sleep_ms(200 if restarts < 5 else 2000)  # type: ignore[attr-defined]


main()
