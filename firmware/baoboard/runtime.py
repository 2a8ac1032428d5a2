# The board's one run loop, wherever the board runs: firmware/main.py on the Pico, `bao board` on a
# Raspberry Pi (host/bao_host/board_commands.py), and every simulated board (baoboard.simhw, simrun,
# host/bao_host/sim.py; the emulated Pico runs main.py itself).
#   sup = Supervisor(hw, storage, board_id="e661..."); sup.run(time.sleep_ms)   # for ever (main.py)
#   sup.step()                          one scan: the application's step, or its (re)start when due
#   sup.run(sleep_ms, scan_ms, scans, running)   step, then sleep_ms(scan_ms), `scans` times (-1: for ever)
#                                       while running() (None: always)
# It builds the application (baoboard.app.App), boots it from the journal and steps it. Whatever escapes
# is reported on the serial link (`N0 ERROR <repr>`, docs/protocol.md), then the application is started
# again from the journal after a pause (200 ms; 2 s from the 5th restart on), so the game comes back at
# its last completed move. KeyboardInterrupt (and any BaseException that is no Exception, such as a
# simulated power cut) passes through. The watchdog is fed by the application's step only (App.step):
# a loop that keeps failing, or hangs, starves it and the hardware resets.
# The clock is the hardware's (hw.ticks_ms(): the Pico's, a Pi's, or a simulated one) and the pacing is the
# caller's sleep_ms, so simulated clocks work. Nothing is built at import; a healthy step allocates nothing.
try:
    from typing import TYPE_CHECKING, Any, Callable
except ImportError:  # MicroPython
    TYPE_CHECKING = False
if TYPE_CHECKING:
    from baoboard.app import App
    from baoboard.hal import Hardware

from baoboard.compat import const, ticks_diff

SCAN_MS = const(1)  # the pause between two scans on the Pico (firmware/main.py: ~2 ms a scan)
RETRY_MS = const(200)  # the pause before a restart...
RETRY_SLOW_MS = const(2000)  # ... and from the SLOW_AFTER-th restart on
SLOW_AFTER = const(5)


class Supervisor:
    def __init__(self, hw: "Hardware", storage: object, board_id: str = "board", stable: int = 3,
                 on_fault: "Callable[[Exception], object] | None" = None) -> None:
        """on_fault(exception): called after each fault is reported (a log, a traceback)."""
        self.hw = hw
        self.storage = storage
        self.board_id = board_id
        self.stable = stable
        self.on_fault = on_fault
        self.app = None  # type: App | None  # the running application, None while it is down
        self.restarts = 0
        self.steps = 0  # healthy steps
        self.error = ""  # the last fault, as reported
        self._down_at = 0  # hw tick of the last fault
        self._pause = 0  # ms from then to the next start

    def step(self) -> bool:
        """One scan; False if the application is down (waiting to start again, or just failed)."""
        app = self.app
        try:
            if app is None:
                if self.restarts and ticks_diff(self.hw.ticks_ms(), self._down_at) < self._pause:
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
        return app

    def fault(self, e: Exception) -> None:
        import gc

        self.app = None
        gc.collect()  # (the fault may be a MemoryError: give the report room)
        self.restarts += 1
        self.error = repr(e).replace("\n", " ")[:200]
        try:
            from baoboard.frames import encode

            self.hw.serial_write(encode("N", 0, "ERROR", self.error))
        except Exception:  # the link itself may be what failed
            pass
        self._down_at = self.hw.ticks_ms()
        self._pause = RETRY_MS if self.restarts < SLOW_AFTER else RETRY_SLOW_MS
        if self.on_fault is not None:
            try:
                self.on_fault(e)
            except Exception:  # (a traceback to a port that is gone)
                pass

    def run(self, sleep_ms: "Callable[[Any], object]", scan_ms: float = SCAN_MS, scans: int = -1,
            running: "Callable[[], bool] | None" = None) -> None:
        while scans and (running is None or running()):
            self.step()  # (a call, not a bound method kept in a variable: nothing allocated)
            sleep_ms(scan_ms)  # the debouncer counts scans: pace them
            if scans > 0:
                scans -= 1
