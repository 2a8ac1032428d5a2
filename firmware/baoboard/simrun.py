# The MicroPython side of `bao sim --runtime micropython`: the unchanged board application on a simulated
# Hardware, driven in lockstep over stdin/stdout by the host (bao_host.sim). One line per message:
#   host -> board   P <pit> <0|1>   set a pit sensor       R <n> <ms>   run n scan-loop steps, ms apart
#                   S <hex>         serial bytes in        Q            quit
#   board -> host   S <hex>         serial bytes out       L <hex>      the LED frame (after each R)
#                   D <p> <phase> <free>   end of an R: position bytes (hex), recogniser phase, gc.mem_free()
#                   X <text>        an exception (the application is then restarted, as main.py does)
import sys
from binascii import hexlify, unhexlify


def main(root: str, board_id: str = "sim") -> None:
    import gc

    from baoboard.app import App
    from baoboard.simhw import SimHardware
    from baoboard.storage import FileStorage

    out = sys.stdout

    def emit(data: bytes) -> None:
        out.write("S " + hexlify(data).decode() + "\n")

    hw = SimHardware()
    hw.on_write = emit
    app = App(hw, FileStorage(root), board_id=board_id)
    app.boot()
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        w = line.split()
        if not w:
            continue
        try:
            if w[0] == "P":
                hw.set_pit(int(w[1]), w[2] == "1")
            elif w[0] == "S":
                hw.rx.extend(unhexlify(w[1]))
            elif w[0] == "R":
                dt = int(w[2])
                for _ in range(int(w[1])):
                    hw.t += dt
                    app.step()
                gc.collect()
                out.write("L " + hexlify(bytes(hw.frame)).decode() + "\n")
                out.write("D %s %d %d\n" % (hexlify(bytes(app.p.d)).decode(), app.rec.phase, gc.mem_free()))  # type: ignore[attr-defined]
            elif w[0] == "Q":
                return
        except Exception as e:  # report and restart the application, as firmware/main.py does
            out.write("X " + repr(e).replace("\n", " ") + "\n")
            app = App(hw, FileStorage(root), board_id=board_id)
            app.boot()
            out.write("D %s %d %d\n" % (hexlify(bytes(app.p.d)).decode(), app.rec.phase, gc.mem_free()))  # type: ignore[attr-defined]
