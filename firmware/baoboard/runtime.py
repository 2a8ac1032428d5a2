# The board's one run loop, wherever the board runs: firmware/main.py on the Pico, `bao board` on a
# Raspberry Pi (host/bao_host/boards/runner.py), and every simulated board (baoboard.simhw, simrun,
# host/bao_host/boards/sim.py; the emulated Pico runs main.py itself).
#   sup = Supervisor(hw, storage, board_id="e661..."); sup.run(time.sleep_ms)   # for ever (main.py)
#   sup.step()                  one scan: the application's step, or its (re)start when due
#   sup.run(sleep_ms, scan_ms, steps)   step, then sleep_ms(scan_ms), `steps` times (-1: for ever); a
#                               sleep_ms that returns False ends the loop (a host's stop)
# It builds the application (baoboard.app.App), boots it from the journal and steps it. Whatever escapes
# is reported on the serial link (`N0 ERROR <repr>`, docs/protocol.md), then the application is started
# again from the journal after a pause (_RETRY_MS; _RETRY_SLOW_MS from the _SLOW_AFTER-th restart on), so
# the game comes back at its last completed move. KeyboardInterrupt (and any BaseException that is no
# Exception, such as a simulated power cut) passes through. The watchdog is fed by the application's step
# only (App.step): a loop that keeps failing, or hangs, starves it and the hardware resets.
# The clock is the hardware's (hw.ticks_ms(): the Pico's, a Pi's, or a simulated one) and the pacing is the
# caller's sleep_ms, so simulated clocks work. Nothing is built at import; a healthy step allocates nothing.
# (Every name here is a qstr in a Pico's RAM for good: the constants are private, the names few.)
try:  # for the annotations only (MicroPython has no typing and does not evaluate them)
    from typing import Any, Callable

    from baoboard.app import App
    from baoboard.protocols import Storage  # (a stub: no module at run time)
except ImportError:
    pass

from baoboard.compat import const, ticks_diff

_SCAN_MS = const(1)  # the pause between two scans on the Pico (firmware/main.py; a scan's time: docs/benchmarks.md)
_RETRY_MS = const(200)  # the pause before a restart...
_RETRY_SLOW_MS = const(2000)  # ... and from the _SLOW_AFTER-th restart on
_SLOW_AFTER = const(5)


class Supervisor:
    def __init__(
        self,
        hw: "Any",
        storage: "Storage",
        board_id: str = "board",
        stable: int = 3,
        on_error: "Callable[[Exception], object] | None" = None,
    ) -> None:
        """hw: a baoboard.hal.Hardware; on_error(exception): called after each fault is reported (a log,
        a traceback)."""
        self.hw = hw
        self.storage = storage
        self.board_id = board_id
        self.stable = stable
        self.on_error = on_error
        self.app = None  # type: App | None  # the running application, None while it is down
        self.notice = None  # type: tuple[str, str] | None  # said (N0) once the application has booted
        self.restarts = 0
        self.steps = 0  # healthy steps
        self._at = 0  # hw tick of the last fault

    def step(self) -> bool:
        """One scan; False if the application is down (waiting to start again, or just failed)."""
        app = self.app
        try:
            if app is None:
                if self.restarts and ticks_diff(self.hw.ticks_ms(), self._at) < (
                    _RETRY_MS if self.restarts < _SLOW_AFTER else _RETRY_SLOW_MS
                ):
                    return False
                app = self.start()
            app.step()
            self.steps += 1
            return True
        except Exception as e:
            self.fault(e)
            return False

    def start(self) -> "App":
        """Build the application and boot it from the journal."""
        from baoboard.app import App

        app = App(self.hw, self.storage, board_id=self.board_id, stable=self.stable)
        app.boot()
        self.app = app
        if self.notice is not None:  # (what happened before it could be said: firmware/main.py)
            app.outbox.notice(self.notice[0], self.notice[1])
            self.notice = None
        return app

    def fault(self, e: Exception) -> None:
        """Report e on the serial link (N0 ERROR), then wait before the next start."""
        import gc

        self.app = None
        gc.collect()  # (the fault may be a MemoryError: give the report room)
        self.restarts += 1
        self._at = self.hw.ticks_ms()
        try:
            from baoproto.frames import encode

            self.hw.serial_write(encode("N", 0, "ERROR", repr(e).replace("\n", " ")[:200]))
        except Exception:  # the link itself may be what failed
            pass
        if self.on_error is not None:
            try:
                self.on_error(e)
            except Exception:  # (a traceback to a port that is gone)
                pass

    def run(self, sleep_ms: "Callable[[Any], object]", scan_ms: float = _SCAN_MS, steps: int = -1) -> None:
        while steps:
            self.step()  # (a call, not a bound method kept in a variable: nothing allocated)
            if sleep_ms(scan_ms) is False:  # the debouncer counts scans: pace them
                return
            if steps > 0:
                steps -= 1
