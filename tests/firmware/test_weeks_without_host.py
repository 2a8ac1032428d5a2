# The journal's bounds (issue #14, a board that lives for weeks without a host): RAM does not grow with
# events waiting for a host, flash stays bounded (a game past the budget is played, not recorded), a full
# flash still boots and plays, a stale journal.tmp goes. CPython (pytest) and the MicroPython unix port.
import baoboard.journal_io  # noqa: F401  (kept loaded: Journal.open would load and drop it at every recovery)
from baoboard.journal import Journal, record
from baoboard.memstorage import FakeStorage
from baoboard.storage import FileStorage
from baoproto.frames import move_payload
from fwtest_util import temp_path
from jscript import EPOCH, LIMIT, check_pending, new_journal, pos, reference, state


def _heap_in_use():
    """Bytes of heap in use after a collection: gc on MicroPython; on CPython what tracemalloc traces to the
    firmware's own code (another test's thread left in the same process allocates too)."""
    import gc

    gc.collect()
    if hasattr(gc, "mem_alloc"):
        return gc.mem_alloc()
    import tracemalloc

    mine = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*/firmware/*")])
    return sum(t.size for t in mine.traces)


def test_ram_does_not_grow_with_events_waiting_for_a_host():
    # issue #14: with no host acknowledging, the board ran out of RAM after ~560 events (a list of offsets)
    import os

    tracing = False
    try:
        import tracemalloc

        tracemalloc.start()
        tracing = True
    except ImportError:  # MicroPython: gc.mem_alloc
        pass
    root = temp_path("bao-journal-ram-")
    os.mkdir(root)
    fs = FileStorage(root)
    j = Journal(fs, limit=4096, epoch_fn=lambda: EPOCH, budget=1 << 29)  # (every game recorded)
    j.open()
    p = move_payload("a6>", pos(6))
    used = []
    for n in range(1, 401):
        j.append("GAME" if n % 40 == 1 else "MOVE", "{}" if n % 40 == 1 else p)
        if n in (120, 400):  # the same point of a game (its moves are in RAM: an int each)
            used.append(_heap_in_use())
    if tracing:
        tracemalloc.stop()
    assert j.npending == 400 and j.event(399)[0] == 400 and j.event(0) == (1, "GAME", "{}")
    assert used[1] - used[0] < 256, used  # 280 more events waiting: no more RAM
    assert j.ack(390) and j.pending == [(391 + k, "MOVE", p) for k in range(10)]
    for name in ("journal", "journal.tmp"):
        fs.remove(name)
    os.rmdir(root)


def test_a_stale_tmp_file_is_removed_at_boot():
    # issue #14: a compaction cut short left journal.tmp for ever, and a full flash then stopped the board
    fs0, states, pendings, events = reference()
    fs = FakeStorage()
    fs.files["journal"] = list(fs0.files["journal"])
    fs.put("journal.tmp", b"\xb7K" + b"x" * 300)  # a checkpoint half written
    j = new_journal(fs)
    assert j.open() == 0
    assert "journal.tmp" not in fs.files and fs.replaces == 0  # removed, and the journal not rewritten
    assert state(j) == states[-1]
    check_pending(j, events, pendings[-1])


def _game(j, moves, tag):
    j.append("GAME", '{"ruleset":"zanzibar","n":%d}' % tag)
    for i in range(moves):
        j.append("MOVE", move_payload("a%d>" % (i % 8 + 1), pos(i)))
    j.append("END", '{"winner":"S"}')


def test_past_the_budget_a_game_is_played_but_not_recorded():
    # issue #14: with no host for weeks, the games waiting are kept and play goes on
    fs = FakeStorage()
    j = Journal(fs, limit=LIMIT, epoch_fn=lambda: EPOCH, budget=1200)
    j.open()
    _game(j, 12, 1)  # about 750 bytes of events: room for the next game
    _game(j, 12, 2)
    last = j.last
    assert j.recording and last == 28
    assert j.append("GAME", '{"n":3}') == 0 and not j.recording  # 1,505 bytes wait: not recorded
    assert j.append("MOVE", move_payload("a1>", pos(1))) == 0 and j.append("ILLEGAL", "{}") == 0
    assert j.append("MOVE", move_payload("a2>", pos(2))) == 0 and j.append("UNDO", "{}") == 0
    assert j.game == '{"n":3}' and j.moves == [move_payload("a1>", pos(1))]  # the game goes on
    assert j.last == last and [p[0] for p in j.pending] == list(range(1, last + 1))  # the old ones kept
    for _ in range(2):  # after a power cut, and after a compaction: the same
        j = Journal(fs, limit=LIMIT, epoch_fn=lambda: EPOCH, budget=1200)
        assert j.open() == 0
        assert not j.recording and j.game == '{"n":3}' and j.moves == [move_payload("a1>", pos(1))]
        assert j.last == last and j.pending[0] == (1, "GAME", '{"ruleset":"zanzibar","n":1}')
        j.compact()
    assert j.ack(2) and j.append("GAME", '{"n":4}') == 0 and j.pending_bytes > 1200  # still over
    assert j.ack(last) and j.pending_bytes == 0
    assert j.append("GAME", '{"n":5}') == last + 1 and j.recording  # room again: recorded


def test_flash_stays_bounded_without_a_host():
    fs = FakeStorage()
    j = Journal(fs, limit=LIMIT, epoch_fn=lambda: EPOCH, budget=1200)
    j.open()
    most = 0
    for g in range(30):  # 30 games of 12 moves, none acknowledged
        _game(j, 12, g)
        most = max(most, fs.size("journal"), j.pending_bytes)
    assert j.last == 28  # the first two games are kept, the others played and not recorded
    # the events waiting (the budget and one game), the game's moves, the growth before a compaction
    assert most < 1200 + 1200 + 1200 + LIMIT + 400, most


class _NoTruncate(FakeStorage):
    def truncate(self, name, size):
        raise OSError(95)


def test_a_full_flash_still_boots_and_plays():
    # issue #14: recovery's compaction needed free space as large as the whole journal, so a board with a
    # full flash and a torn record could not start
    fs0, states, pendings, events = reference()
    nxt = states[-1][1]
    torn = record(0x45, b"%d 0 MOVE a1> {}" % nxt)[:-3]
    for kind in (FakeStorage, _NoTruncate):
        fs = kind()
        fs.files["journal"] = list(fs0.files["journal"]) + [torn]
        fs.put("journal.tmp", b"\xb7K" + b"x" * 200)  # a compaction cut short, long ago
        fs.capacity = fs.used() - 202 + 150  # once journal.tmp is gone, 150 bytes free: the journal is larger
        assert fs.size("journal") > 300
        j = new_journal(fs)
        j.open()  # starts
        assert state(j) == states[-1]
        check_pending(j, events, pendings[-1])
        if kind is FakeStorage:  # the torn record cut in place: it plays on at once
            assert j.append("MOVE", move_payload("a3>", pos(3))) == nxt
        else:  # no room to drop it: the next write tries again (refused, nothing written, while it is full)
            assert j.append("MOVE", move_payload("a3>", pos(3))) == -1 and j.full
            fs.capacity = -1  # room again (a host took events, a file removed)
            assert j.append("MOVE", move_payload("a3>", pos(3))) == nxt
        j2 = new_journal(fs)
        assert j2.open() == 0 and j2.moves[-1] == move_payload("a3>", pos(3))
