# A full flash (issue #26): a move whose record finds no room is refused (the board goes back to the position
# before it, the pits it changed blink orange, the corners dim white, and a host hears N0 FULL), never an
# OSError inside the application and its restarts; once there is room, the move is taken. A first boot on a
# full flash starts. On the file-backed storage (the flash-sector journal: test_flashlog.py). CPython and the
# MicroPython unix port.
from baoboard.simhw import Hands, SimulatedBoard
from board_util import Host, TempFiles, plies


class SmallDisk(TempFiles):
    """The board's flash as files in a folder that holds `room` bytes (-1: no limit): a write that does not
    fit raises OSError(28) and writes nothing (LittleFS's copy-on-write leaves the file as it was)."""

    def __init__(self, room):
        super().__init__()
        self.room = room

    def used(self):
        n = 0
        for name in ("journal", "journal.tmp"):
            n += max(0, self.size(name))
        return n

    def append(self, name, data):
        if self.room >= 0 and self.used() + len(data) > self.room:
            raise OSError(28)
        TempFiles.append(self, name, data)

    def replace(self, name, chunks):
        TempFiles.replace(self, name, self._fit(max(0, self.size(name)), chunks))

    def _fit(self, n, chunks):
        for c in chunks:
            n += len(c)
            if self.room >= 0 and n > self.room:
                raise OSError(28)
            yield c


def _board(st):
    import random

    random.seed(9)
    b = SimulatedBoard(st, "test")
    b.app.guide.brightness = 255
    full = []
    host = Host(b.hw)  # listens, never acknowledges: a board alone
    take = b.hw.on_write

    def write(data):
        if b"N0 FULL" in data:
            full.append(data)
        take(data)

    b.hw.on_write = write
    return b, host, Hands(b), full


def test_a_full_flash_refuses_the_move_clearly_and_takes_it_once_there_is_room():
    st = SmallDisk(-1)
    b, host, hands, full = _board(st)
    gen = plies()
    for _ in range(4):
        p, m, _ = next(gen)
        hands.perform(p, m)
    st.room = st.used() + 300  # room for one more move's record, not two
    for _ in range(2):
        p, m, _ = next(gen)
        hands.perform(p, m)
    j = b.app.journal
    assert b.runtime.restarts == 0 and j.nmoves == 5 and len(full) == 1, (b.runtime.restarts, j.nmoves, full)
    assert b.app.p.d == p.d  # the board is back at the position before the refused move
    corners = 0
    for _ in range(2100 // hands.scan_ms):  # the corners blink dim white (with a host too)
        hands.scan()
        c = b.hw.rgb(24)
        corners += c >> 16 == (c >> 8) & 255 == c & 255 > 0  # (a white)
    assert corners and b.app.guide.unrecorded == 2
    hands.perform(p, m)  # made again: refused again, nothing breaks
    assert b.runtime.restarts == 0 and j.nmoves == 5 and len(full) == 2
    st.room = -1  # room again (a host took the events waiting, a file removed)
    hands.perform(p, m)
    assert j.nmoves == 6 and b.app.guide.unrecorded == 0 and b.runtime.restarts == 0
    b2 = SimulatedBoard(st, "test")  # after a power cut: the six moves
    assert b2.app.journal.nmoves == 6 and b2.app.p.d != p.d
    st.close()


def test_a_first_boot_on_a_full_flash_starts_and_records_once_there_is_room():
    st = SmallDisk(0)
    b, host, hands, full = _board(st)  # (raised OSError(28) out of the boot)
    p, m, _ = next(plies())
    hands.perform(p, m)
    assert b.runtime.restarts == 0 and b.app.journal.nmoves == 0 and b.app.p.d == p.d and full
    st.room = -1
    hands.perform(p, m)
    j = b.app.journal
    assert j.game is not None and j.nmoves == 1 and b.runtime.restarts == 0
    b2 = SimulatedBoard(st, "test")
    assert b2.app.journal.nmoves == 1 and b2.app.journal.game is not None
    st.close()
