# Helpers of the board tests (test_board_*.py); plain Python for CPython and the MicroPython unix port.
from bao import core, notation


def game_path():
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    return here + "/../../games/zanzibar-1994.txt"


def transcript():
    with open(game_path()) as f:
        return notation.parse_transcript(f.read())


def plies():
    """Yields (position before, legal move, text) for each ply of the 1994 game (a generator: the
    positions are not all kept, the MicroPython heap is small)."""
    t = transcript()
    p = core.initial(core.ZANZIBAR, notation.rules_from_headers(t.headers))
    for text in t.plies:
        m, child = notation.parse_move(p, text)
        yield (p, m, text)
        p = child


class Host:
    """The host end of the link in tests: reads the board's lines, acknowledges events."""

    def __init__(self, hw):
        self.hw = hw
        self.events = []  # (seq, typ, payload), each once, in order
        self.replies = []
        self.notices = []
        self.epoch = ""
        self.seen = {}
        self.dups = 0
        self.buf = b""

    def poll(self, ack=True):
        import gc

        from baoboard.compat import crc32
        from baoboard.frames import decode, encode

        gc.collect()  # the lines are long and the MicroPython heap small

        data = self.buf + bytes(self.hw.tx)
        self.hw.tx = bytearray()
        lines = data.split(b"\n")
        self.buf = lines.pop()
        top = 0
        for line in lines:
            f = decode(line)
            assert not isinstance(f, int), line
            kind, num, typ, payload = f
            if kind == "H":
                for w in payload.split(" "):
                    if w.startswith("epoch="):
                        self.epoch = w[6:]
            elif kind == "E":
                # kept small (the MicroPython heap): the move's notation, and a CRC of the whole payload
                digest = crc32(payload.encode())
                if num in self.seen:
                    self.dups += 1
                    assert self.seen[num] == digest, ("event reported differently", num)
                else:
                    self.seen[num] = digest
                    self.events.append((num, typ, payload.split(" ", 1)[0] if typ == "MOVE" else payload[:120]))
                top = max(top, num)
            elif kind == "R":
                self.replies.append((num, typ, payload))
            else:
                self.notices.append((typ, payload))
        if ack and top:
            self.send(encode("A", top, "ACK", self.epoch))

    def send(self, line):
        self.hw.rx.extend(line)

    def command(self, num, typ, payload=""):
        from baoboard.frames import encode

        self.send(encode("C", num, typ, payload))

    def moves(self):
        out = []
        for _, typ, payload in self.events:
            if typ == "MOVE":
                out.append(payload.split(" ", 1)[0])
            elif typ == "UNDO":
                out.pop()
            elif typ == "GAME":
                out = []
        return out


def board(storage=None, stable=3):
    from baoboard.app import App
    from baoboard.simhw import Hands, SimHardware
    from baoboard.storage import FakeStorage

    hw = SimHardware()
    st = storage if storage is not None else FakeStorage()
    app = App(hw, st, board_id="test", stable=stable)
    app.boot()
    return app, hw, Hands(app, hw, hold=stable + 1, gap=stable + 1), Host(hw), st


def fits():
    """False on a MicroPython heap too small to load the whole board application (see docs/benchmarks.md,
    Board): the test then says so and returns; tests/host/test_sim_mp.py runs it with a larger heap."""
    import sys

    if sys.implementation.name != "micropython":
        return True
    import gc

    gc.collect()
    if gc.mem_free() < 80000:
        print("SKIP: the board application needs a larger heap than", gc.mem_free(), "free bytes here")
        return False
    return True
