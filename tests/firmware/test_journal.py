# The journal: recovery after a power cut at every byte of every write, torn and corrupt tails, compaction.
# Runs on CPython (pytest) and on the MicroPython unix port (tests/mprun.py).
import baoboard.journal_io  # noqa: F401  (kept loaded: Journal.open would load and drop it at every recovery)
from baoboard.compat import crc32
from baoboard.journal import Journal, record
from baoboard.memstorage import FakeStorage
from baoboard.storage import FileStorage, PowerCut
from baoproto.frames import encode, move_payload, split_move
from fwtest_util import Lcg, cut_points, temp_path
from jscript import EPOCH, LIMIT, check_pending, do, fingerprint, new_journal, pos, reference, script, state


def test_reference_run_compacts_and_replays():
    fs, states, pendings, events = reference()
    assert fs.replaces >= 3  # fresh checkpoint + compactions
    j = new_journal(fs)
    assert j.open() == 0
    assert state(j) == states[-1]
    check_pending(j, events, pendings[-1])
    assert split_move(j.moves[-1]) == ("b2<", pos(99))
    assert j.game == '{"ruleset":"malawi","options":{}}' and j.ended is None
    assert j.cpu == "S 0"  # the last CPU event, through the compactions and into the next game


def test_power_cut_at_every_byte_of_every_write():
    print("power cuts tested:", _power_cuts(None))


def test_power_cut_at_every_byte_with_a_game_not_recorded():
    # the first game's events (more than 400 bytes) wait for a host: the second game is not recorded
    fs0, states, pendings, events = reference(400)
    j = new_journal(fs0, 400)
    j.open()
    assert not j.recording and j.nmoves == 1 and j.acked == 9 and j.npending == j.last - 9
    print("power cuts tested:", _power_cuts(400))


def _power_cuts(pending_budget):
    fs0, states, pendings, events = reference(pending_budget)
    ops = script()
    total = fs0.written
    tested = 0
    for budget in cut_points(total):
        fs = FakeStorage()
        fs.budget = budget
        j = new_journal(fs, pending_budget)
        done = 0
        try:
            j.open()
            for op in ops:
                do(j, op)
                done += 1
            cut = False
        except PowerCut:
            cut = True
        fs.budget = -1
        j = new_journal(fs, pending_budget)
        j.open()
        s = state(j)
        # exactly a prefix of the completed operations, with every completed one in it
        if s == states[done]:
            k = done
        else:
            assert cut and done + 1 < len(states) and s == states[done + 1], (budget, done, s)
            k = done + 1
        check_pending(j, events, pendings[k])
        assert fs.size("journal") <= LIMIT + 2 * 400
        # the board carries on: the rest of the game yields the same events, byte for byte
        for op in ops[k:]:
            do(j, op)
        assert state(j) == states[-1]
        check_pending(j, events, pendings[-1])
        tested += 1
    assert tested > total // 8  # (every byte, or a stride's share of them: tools/run_mp_tests.py)
    return tested


def test_cut_during_recovery_then_recover():
    fs0, states, pendings, events = reference()
    # a torn last record, then the recovery's own compaction cut at every byte
    torn = fs0.files["journal"] + [record(0x45, b"%d 0 MOVE a1> {}" % states[-1][1])[:-3]]
    for budget in cut_points(fs0.size("journal") + 1):
        fs = FakeStorage()
        fs.files["journal"] = list(torn)
        fs.budget = budget
        try:
            new_journal(fs).open()
        except PowerCut:
            pass
        fs.budget = -1
        j = new_journal(fs)
        j.open()
        assert state(j) == states[-1] and not j.corrupt
        check_pending(j, events, pendings[-1])


def test_corruption_anywhere_yields_a_prefix():
    fs0, states, pendings, events = reference()
    chunks = fs0.files["journal"]  # one chunk a record: corrupt one byte of one record
    games = [s[1:] for s in states]
    r = Lcg(9)
    corrupt = 0
    for _ in range(80):
        k = r.below(len(chunks))
        b = bytearray(chunks[k])
        i = r.below(len(b))
        b[i] ^= 1 + r.below(255)
        fs = FakeStorage()
        fs.files["journal"] = chunks[:k] + [bytes(b)] + chunks[k + 1 :]
        j = Journal(fs, limit=LIMIT, epoch_fn=lambda: "feedf00d")
        j.open()  # never raises
        seqs = [p[0] for p in j.pending]
        assert seqs == list(range(j.next_seq - len(seqs), j.next_seq))
        if j.corrupt or j.epoch == "feedf00d":
            corrupt += 1
            assert j.epoch == "feedf00d" and j.acked == j.next_seq - 1 - len(seqs)
        else:  # looked like a torn tail: a prefix of the same history
            assert state(j)[1:] in games
            for seq, typ, payload in j.pending:
                assert fingerprint(encode("E", seq, typ, payload)) == events[seq]
        j.append("MOVE", move_payload("a1>", "{}"))  # and the board carries on
    assert corrupt > 40


def test_garbage_and_empty_files():
    for junk in (b"", b"\x00" * 50, b"\xff" * 300, Lcg(1).bytes(500), record(0x45, b"1 0 MOVE x")):
        fs = FakeStorage()
        fs.put("journal", junk)
        j = new_journal(fs)
        j.open()
        assert state(j) == (EPOCH, 1, crc32(b"None|None|"), 0)
        assert j.append("GAME", "{}") == 1
        j2 = new_journal(fs)
        j2.open()
        assert j2.game == "{}" and j2.dropped == 0


def test_fresh_journal_gets_a_random_epoch():
    a = Journal(FakeStorage())
    a.open()
    b = Journal(FakeStorage())
    b.open()
    assert len(a.epoch) == 8 and a.epoch != b.epoch


def test_failed_write_is_repaired_before_the_next():
    fs = FakeStorage()
    j = new_journal(fs)
    j.open()
    j.append("GAME", "{}")
    fs.budget = 5
    try:
        j.append("MOVE", move_payload("a1>", pos(1)))
    except PowerCut:
        pass
    fs.budget = -1  # the write failed, the board did not reboot: the next append must not follow torn bytes
    assert j.append("MOVE", move_payload("a2>", pos(2))) == 2
    j2 = new_journal(fs)
    j2.open()
    assert j2.moves == [move_payload("a2>", pos(2))] and j2.dropped == 0


def test_bad_event_rejected():
    j = new_journal(FakeStorage())
    j.open()
    for typ, payload in (("move", ""), ("", ""), ("MO VE", ""), ("MOVE", "a\nb")):
        try:
            j.append(typ, payload)
        except ValueError:
            pass
        else:
            raise AssertionError()
    try:
        move_payload("a 1", "{}")
    except ValueError:
        pass
    else:
        raise AssertionError()


def test_flash_bytes_per_move_record():
    j = new_journal(FakeStorage())
    j.open()
    j.append("GAME", "{}")
    before = j.storage.written
    p = move_payload("a6>", '{"pits":' + str([2] * 32).replace(" ", "") + ',"turn":"S"}')
    j.append("MOVE", p)
    n = j.storage.written - before
    assert n == 8 + len("2 0 MOVE ") + len(p)
    print("flash bytes per move record:", n, "for a payload of", len(p))


def test_file_storage_roundtrip():
    import os

    root = temp_path("bao-journal-test-")  # its own folder: another run at the same time has another one
    os.mkdir(root)
    fs = FileStorage(root)
    fs.remove("journal")
    j = Journal(fs, limit=300, epoch_fn=lambda: EPOCH)
    j.open()
    for op in script():
        do(j, op)
    with_torn = fs.size("journal")
    want = state(j)  # before j2 rewrites the file (a journal reads its moves back from the file)
    fs.append("journal", b"\xb7E\x40")  # a torn record
    j2 = Journal(fs, limit=300, epoch_fn=lambda: EPOCH)
    assert j2.open() == 3
    assert state(j2) == want
    assert fs.size("journal") <= with_torn
    fs.remove("journal")
    fs.remove("journal.tmp")
    os.rmdir(root)


def test_a_move_begun_survives_a_restart_and_a_compaction_until_a_move_ends_it():
    fs = FakeStorage()
    j = new_journal(fs)
    j.open()
    j.append("GAME", "{}")
    assert j.begin(5) and j.begun == 5
    j2 = new_journal(fs)
    j2.open()
    assert j2.begun == 5 and j2.dropped == 0  # after a power cut: the move was begun from pit 5
    assert j2.compact()
    j3 = new_journal(fs)
    j3.open()
    assert j3.begun == 5 and j3.nmoves == 0  # the checkpoint keeps it
    j3.append("MOVE", move_payload("a6>", pos(1)))  # the move made: none begun
    j4 = new_journal(fs)
    j4.open()
    assert j4.begun == -1 and j4.nmoves == 1
    j4.begin(7)
    j4.begin(-1)  # the seeds put back
    j5 = new_journal(fs)
    j5.open()
    assert j5.begun == -1
    j5.begin(3)
    j5.append("UNDO", "x")
    j6 = new_journal(fs)
    j6.open()
    assert j6.begun == -1 and j6.nmoves == 0
