# The MicroPython side of `bao sim --runtime micropython`: the unchanged board application in its run loop
# (baoboard.runtime) on a simulated Hardware, driven in lockstep over stdin/stdout by the host (bao_host.boards.sim).
# One line per message:
#   host -> board   P <pit> <0|1>   set a pit sensor       R <n> <ms>   run n scans, ms of board time apart
#                   S <hex>         serial bytes in        Q            quit
#   board -> host   S <hex>         serial bytes out       L <hex>      the LED frame (after each R)
#                   D <p> <free>    end of an R: position bytes (hex, "-" while the application is down
#                                   after a fault), gc.mem_free() (the stage: the board's STATE notice)
#                   X <text>        an exception (reported and restarted by the run loop, as on the Pico)
import sys
from binascii import hexlify, unhexlify


def main(root: str, board_id: str = "sim") -> None:
    import gc

    from baoboard.simhw import SimHardware, SimulatedBoard
    from baoboard.storage import FileStorage

    out = sys.stdout

    def emit(data: bytes) -> None:
        out.write("S " + hexlify(data).decode() + "\n")

    def fault(e: Exception) -> None:
        out.write("X " + repr(e).replace("\n", " ") + "\n")

    hw = SimHardware()
    hw.on_write = emit
    board = SimulatedBoard(FileStorage(root), board_id, on_error=fault, hw=hw)
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        w = line.split()
        if not w:
            continue
        if w[0] == "P":
            hw.set_pit(int(w[1]), w[2] == "1")
        elif w[0] == "S":
            hw.rx.extend(unhexlify(w[1]))
        elif w[0] == "R":
            board.run(int(w[1]), int(w[2]))
            gc.collect()
            out.write("L " + hexlify(bytes(hw.frame)).decode() + "\n")
            app = board.app
            pos = "-" if app is None else hexlify(bytes(app.p.d)).decode()
            out.write("D %s %d\n" % (pos, gc.mem_free()))
        elif w[0] == "Q":  # the host quits: switched off on purpose, not a power cut
            board.switch_off()
            return
