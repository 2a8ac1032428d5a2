# The journal on raw NOR flash (baoboard.flashlog): power cuts at every byte programmed and in every erase,
# torn pages, appends that never wait for an erase. Runs on CPython (pytest) and on the MicroPython unix port.
import gc

import baoboard.journal_io  # noqa: F401  (kept loaded: Journal.open would load and drop it at every recovery)
from baoboard.flashlog import FlashLog
from baoboard.journal import Journal
from baoboard.storage import PowerCut
from baoproto.frames import move_payload
from fakes_flash import NorFlash
from fwtest_util import Lcg, cut_points
from jscript import EPOCH, LIMIT, check_pending, do, pos, reference, script, state

NONCE = b"\x5a\x01\x02\x03"
SECTORS = 4  # (a file of two sectors and the two a rewrite of it needs: FlashLog.append)
_DEV = NorFlash(SECTORS)  # made once, while the heap is in one piece (the unix port runs this in 64 KB)


def new_flash(noise=None):
    _DEV.reset(noise)
    return _DEV


def boot(dev):
    """The board starting on this flash: the log mounted, the journal recovered."""
    j = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=LIMIT, epoch_fn=lambda: EPOCH)
    j.open()
    return j


def test_script_on_flash_matches_the_reference():
    fs0, states, pendings, events = reference()
    dev = new_flash()
    j = boot(dev)
    for op in script():
        do(j, op)
    assert state(j) == states[-1]
    j2 = boot(dev)
    assert state(j2) == states[-1] and j2.dropped == 0 and not j2.corrupt
    check_pending(j2, events, pendings[-1])


def _cuts(noise):
    ref = reference()
    states, pendings, events = ref[1], ref[2], ref[3]
    del ref  # (its files: the unix port runs this in a Pico's 64 KB)
    ops = script()
    # the units of work of a whole run (a boot, then the script)
    dev = new_flash()
    j = boot(dev)
    for op in ops:
        do(j, op)
    total = dev.used
    tested = 0
    # (on CPython a wide stride: the flash-sector log runs only on a Pico, whose interpreter sweeps every byte
    # in make test-mp, the other MicroPython ports every 7th; fwtest_util.cut_points)
    for budget in cut_points(total, 1 if noise is None else 7, 29):
        gc.collect()  # (the last run's journal and log: a 64 KB heap in pieces otherwise)
        dev = new_flash(noise)
        dev.budget = budget
        done = 0
        try:
            j = boot(dev)
            for op in ops:
                do(j, op)
                done += 1
            cut = False
        except PowerCut:
            cut = True
        dev.budget = -1
        j = boot(dev)
        s = state(j)
        # exactly a prefix of the completed operations, with every completed one in it; a cut is not
        # corruption (the same epoch)
        if s == states[done]:
            k = done
        else:
            assert cut and done + 1 < len(states) and s == states[done + 1], (budget, done, s)
            k = done + 1
        assert not j.corrupt, budget
        check_pending(j, events, pendings[k])
        for op in ops[k:]:  # the board carries on: the same events, byte for byte
            do(j, op)
        assert state(j) == states[-1]
        check_pending(j, events, pendings[-1])
        tested += 1
    return tested


def test_power_cut_at_every_byte_programmed_and_in_every_erase():
    print("power cuts tested:", _cuts(None))


def test_power_cut_leaving_random_bits_in_the_torn_page():
    print("power cuts tested:", _cuts(Lcg(5)))


def test_appends_program_pages_and_never_erase_once_sectors_are_ready():
    dev = new_flash()
    j = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=8192, epoch_fn=lambda: EPOCH)
    j.open()
    while j.storage.maintain():
        pass
    j.append("GAME", "{}")
    erases = dev.erases
    worst = 0
    for _ in range(60):  # 60 moves of 107-byte records: across two sectors, no compaction (limit 8 KB)
        before = dev.programs
        j.append("MOVE", move_payload("a6>", '{"pits":' + str([2] * 32).replace(" ", "") + ',"turn":"S"}'))
        worst = max(worst, dev.programs - before)
    assert dev.erases == erases  # no erase on the way
    assert worst <= 5  # a record's pages (2-3), its commit, a new sector's header
    assert len(j.storage.chain) >= 2
    j2 = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=8192, epoch_fn=lambda: EPOCH)
    j2.open()
    assert j2.nmoves == 60 and j2.npending == 61 and j2.dropped == 0


def test_a_record_across_two_sectors_reads_back():
    dev = new_flash()
    j = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=8192, epoch_fn=lambda: EPOCH)
    j.open()
    j.append("GAME", "{}")
    j.append("NOTE", "x" * 2000)
    j.append("NOTE", "y" * 2000)  # from sector 0 into sector 1
    j.append("MOVE", move_payload("a1>", pos(1)))
    assert len(j.storage.chain) == 2
    j2 = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=8192, epoch_fn=lambda: EPOCH)
    j2.open()
    assert j2.event(2) == (3, "NOTE", "y" * 2000) and j2.moves == [move_payload("a1>", pos(1))]


def test_other_sectors_and_nonces_are_left_alone():
    dev = new_flash()
    dev.sec[0][0:4] = b"BAOJ"  # someone else's data in sector 0 (not erased, no valid header)
    log = FlashLog(dev, [1, 2], NONCE)  # owns sectors 1 and 2 only
    j = Journal(log, limit=LIMIT, epoch_fn=lambda: EPOCH)
    j.open()
    for op in script():
        do(j, op)
    assert dev.sec[0][0:4] == b"BAOJ"
    for i in range(4, 4096, 4):
        assert dev.sec[0][i : i + 4] == b"\xff\xff\xff\xff"
    other = FlashLog(dev, [1, 2], b"\x00\x00\x00\x01")  # another reservation's nonce: sees no file
    assert other.size("journal") == -1


def test_a_full_flash_refuses_an_event_and_makes_room_once_the_host_took_them():
    # issue #26: with no host, moves fill the sectors; an event the flash has no room for returned OSError(28)
    # to the application (for every later move). It is refused (-1), nothing is written, the journal reads
    # back whole; once a host acknowledges the events, a compaction makes room and the next one is recorded.
    dev = new_flash()
    j = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=LIMIT, epoch_fn=lambda: EPOCH, budget=1 << 20)
    j.open()
    j.append("GAME", "{}")
    n = 0
    while j.append("MOVE", move_payload("a%d>" % (n % 8 + 1), pos(n % 8))) > 0:
        n += 1
        assert n < 500
    assert j.full and j.nmoves == n and j.last == n + 1 and n > 10
    assert j.append("ILLEGAL", "{}") == -1 and j.last == n + 1  # again: refused, no exception
    j2 = boot(dev)
    assert j2.nmoves == n and j2.last == n + 1 and j2.dropped == 0 and not j2.corrupt
    assert j.ack(j.last) and not j.full
    assert j.append("MOVE", move_payload("a1>", pos(1))) == n + 2 and not j.full
    j3 = boot(dev)
    assert j3.nmoves == n + 1 and j3.last == n + 2 and j3.npending == 1


def _words(sector):
    """The commit words programmed in a sector (offsets)."""
    out = []
    for i in range(56):
        o = 32 + 4 * i
        if sector[o : o + 4] != b"\xff\xff\xff\xff":
            out.append(o)
    return out


def test_a_damaged_commit_word_keeps_every_whole_record_or_reports_the_damage():
    # issue #26 (the journal fuzzer on the emulated Pico): a bit of a commit word flipped (flash that lost or
    # gained a charge) made the sector's data end at the commit before, as a power cut does: the moves after
    # it were dropped silently, under the same epoch, and their numbers, already sent, were used again for
    # other events. A damaged word with commits after it is skipped; the last one's end is read from its
    # bits that are still consistent and where the sector's data stops; otherwise the damage is reported.
    dev = new_flash()
    j = Journal(FlashLog(dev, list(range(SECTORS)), NONCE), limit=8192, epoch_fn=lambda: EPOCH)
    j.open()
    while j.storage.maintain():
        pass
    j.append("GAME", "{}")
    big = '{"pits":' + str([2] * 32).replace(" ", "") + ',"turn":"S"}'
    for i in range(60):  # across two sectors, no compaction
        j.append("MOVE", move_payload("a%d>" % (i % 8 + 1), big))
    chain = list(j.storage.chain)
    assert len(chain) == 2
    want = (j.nmoves, j.last)
    r = Lcg(3)
    whole = reported = 0
    for s in chain:
        words = _words(dev.sec[s])
        for o in words[::5] + words[-1:]:
            for _ in range(3):
                at = o + r.below(4)
                bit = 1 << r.below(8)
                dev.sec[s][at] ^= bit
                j2 = boot(dev)
                dev.sec[s][at] ^= bit  # (the next case on the undamaged flash)
                if (j2.nmoves, j2.last) == want and not j2.corrupt:
                    whole += 1
                else:
                    assert j2.corrupt, (s, o, at, bit, j2.nmoves, j2.last)  # lost moves are reported
                    reported += 1
                del j2
                gc.collect()
    assert whole > 0 and whole >= 9 * reported, (whole, reported)
