# Helpers of the board tests (test_board_*.py); plain Python for CPython and the MicroPython unix port,
# where the whole board application and these helpers share one Pico-sized heap (make test-mp): the game is
# read line by line, the simulated flash is real files in a temporary folder, the host keeps digests.
from bao import core
from bao.core import format_move
from baoboard.storage import FileStorage


def find_move(p, text):
    """The legal move of p written `text`: what the board itself knows (legal move codes and the
    notation writer), so a test needs no notation parser in the board's heap; bao.notation reads a
    text that is not written the canonical way."""
    side = p.d[core.TO_MOVE]
    for m in core.legal_move_codes(p):
        if format_move(m, side) == text:
            return m
    from bao import notation

    return notation.parse_move(p, text)[0]


def plies():
    """Yields (position before, legal move, text) for each ply of the 1994 game (a generator reading the
    file line by line: neither the transcript nor the positions are all kept)."""
    headers = {}
    p = None
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    with open(here + "/../../games/zanzibar-1994.txt") as f:
        for line in f:
            colon = line.find(":")
            if colon < 0:
                continue
            if not line[:colon].strip().isdigit():
                headers[line[:colon].strip().lower()] = line[colon + 1 :].strip().lower()
                continue
            if p is None:  # the rules the headers name (as notation.rules_from_headers reads them)
                tk = headers.get("takasia", "")
                p = core.initial(
                    core.ZANZIBAR,
                    core.Rules(headers.get("ruleset", core.ZANZIBAR), takasia=None if not tk else tk == "yes"),
                )
            for text in line[colon + 1 :].split(";")[0].split():
                m = find_move(p, text)
                yield (p, m, text)
                p = core.play(p, m)


class TempFiles(FileStorage):
    """The board's flash as real files in a fresh temporary folder (not in the test's heap);
    close() removes them."""

    def __init__(self):
        import os

        # 8 random hex digits: no other run (another checkout, a parallel bench) has this folder, and the name
        # is always as long. (fwtest_util.temp_path does the same; not imported here, nor a function of its
        # own: each name costs the board tests' heap, tools/run_mp_tests.py HEAPS.)
        root = "/tmp/bao-board-test-" + "".join("%02x" % b for b in os.urandom(4))
        os.mkdir(root)
        super().__init__(root)

    def close(self):
        import os

        for name in ("journal", "journal.tmp"):
            self.remove(name)
        try:
            os.rmdir(self.root)
        except OSError:
            pass


class Host:
    """The host end of the link in tests: reads the board's lines as the board writes them, acknowledges
    events when polled, and keeps what the tests check in a few bytes an event (the 64 KB heap): a CRC of
    each event by number (an event sent again must be byte for byte the same), the moves of the current
    game, the other events' start. Lines are taken one at a time from the board's writes (hw.on_write),
    so no buffer of everything the board sent grows between polls."""

    def __init__(self, hw, host=None):
        from array import array

        self.hw = hw
        self.digests = host.digests if host else array("I")  # CRC-32 of event n's payload at n - 1
        self.game = host.game if host else ""  # the notations of the current game's moves, space-separated
        self.events = host.events if host else []  # (seq, typ, payload[:120]) of every event but MOVE
        self.dups = host.dups if host else 0  # events received again (resends)
        self.gaps = host.gaps if host else 0  # events received before the one before them (never expected)
        self.replies = []
        self.notices = 0
        self.epoch = ""
        self.buf = b""
        self._take(bytes(hw.tx))  # what the board wrote before this host listened
        hw.tx = bytearray()
        hw.on_write = self._take

    @property
    def count(self):
        return len(self.digests)

    def _take(self, data):
        if self.buf or data[-1:] != b"\n":  # a line in pieces (the board writes whole lines)
            data = self.buf + data
            i = data.rfind(b"\n") + 1
            self.buf = data[i:]
            data = data[:i]
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            self._line(data[start:end])
            start = end + 1

    def _line(self, line):
        from baoboard.compat import crc32
        from baoproto.frames import decode

        f = decode(line)
        assert not isinstance(f, int), f
        kind, num, typ, payload = f
        if kind == "H":
            for w in payload.split(" "):
                if w.startswith("epoch="):
                    self.epoch = w[6:]
        elif kind == "E":
            digest = crc32(payload.encode())
            n = len(self.digests)
            if num <= n:
                self.dups += 1
                assert self.digests[num - 1] == digest, ("event reported differently", num)
            elif num > n + 1:
                self.gaps += 1  # dropped, as the host does: it must come again in order
            else:
                self.digests.append(digest)
                if typ == "MOVE":
                    self.game += " " + payload[: payload.find(" ")]
                else:
                    self.events.append((num, typ, payload[:120]))
                    if typ == "UNDO":
                        self.game = self.game[: self.game.rfind(" ")]
                    elif typ == "GAME":
                        self.game = ""
        elif kind == "R":
            self.replies.append((num, typ, payload))
        else:
            self.notices += 1

    def poll(self, ack=True):
        """Acknowledge every event received so far (unless ack is False)."""
        import gc

        from baoproto.frames import encode

        if hasattr(gc, "mem_free"):  # a quiet moment between moves, as the board's own collection at each move
            gc.collect()  # (MicroPython's: CPython's would scan the whole test process at every poll)
        if ack and self.digests:
            self.send(encode("A", len(self.digests), "ACK", self.epoch))

    def send(self, line):
        self.hw.rx.extend(line)

    def command(self, num, typ, payload=""):
        from baoproto.frames import encode

        self.send(encode("C", num, typ, payload))

    def moves(self):
        return self.game.split()


def board(storage=None, stable=3, seed=9):
    """A booted board on simulated hardware, in the board's run loop (baoboard.runtime); its flash is
    `storage` or a fresh TempFiles (close it). Returns (app, hw, hands, host, storage).
    The epochs the board draws are the same on every run (random seeded with `seed`; None: go on with the
    generator as it is, as after a power cut): the CRC of a line that carries the epoch is a big int or a
    small one depending on its value on a 32-bit MicroPython, and a test's heap layout must not change
    from run to run."""
    if seed is not None:
        import random

        random.seed(seed)
    from baoboard.simhw import Hands, SimulatedBoard

    st = storage if storage is not None else TempFiles()
    b = SimulatedBoard(st, "test", stable)
    return b.app, b.hw, Hands(b, hold=stable + 1, gap=stable + 1), Host(b.hw), st
