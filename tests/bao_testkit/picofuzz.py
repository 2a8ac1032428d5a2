"""Fuzzers against the Bao-board image on the emulated Pico (bao_host.boards.pico.PicoBoard), deterministic
for a seed: tests/host/test_pico_fuzz.py runs them short, tools/bench_pico_fuzz.py long.

protocol_fuzz: a host handshakes, the hands play moves; between moves and in the middle of one (a hand
sowing), the host sends malformed frames (random bytes, a frame cut short, a flipped character under its
CRC, a line longer than any frame, a frame of an unknown kind), unknown commands, and known commands with
bad or harmless arguments. The board must answer each with exactly one line (`R<id> ...` for a command it
read, `N0 BADFRAME ...` for a line it could not), never restart (no second HELLO), and at the end hold
every move played, each reported once, in order.

journal_fuzz: moves played and journaled, the board switched off (its flash saved), then one of the
journal's flash sectors damaged (a byte of a record, a page of data, a sector's header, a commit word,
a whole sector erased or zeroed) and the board switched on. It must boot, keep every move whose record the
damage left whole (a prefix of the game played, nothing changed), and report damage that lost a move
(a new epoch in its HELLO: the host then takes its events as a new series)."""

from __future__ import annotations

import json
import random
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bao import notation, position_json
from bao_host.boards.pico import PicoBoard
from baoboard.recogniser import activations
from baoproto.frames import MAX_BOARD_LINE, MAX_HOST_LINE, LineAssembler, decode, encode

from bao_testkit.simrig import game_1994

HOLD = 10  # scans of 5 ms a touch lasts (and the pause after it)
THINK = 120  # scans after a move (the board writes it to flash then)
HELLO = "4,3,2,1"

# known commands whose arguments the board must refuse (ERR, nothing changed) or take without changing the
# game (UNDO, NEW, SETPOS, SETUP and CPU with good arguments change the game by design: not sent)
COMMANDS: list[tuple[str, str]] = [
    ("PING", ""),
    ("SNAP", ""),
    ("SNAPSHOT", ""),
    ("MODE", "teach"),
    ("MODE", "play"),
    ("MODE", "loud"),
    ("BRIGHT", "40"),
    ("BRIGHT", "-3"),
    ("BRIGHT", "1e9"),
    ("SHOW", "9Z"),
    ("SHOW", ""),
    ("STOP", ""),
    ("NEW", "chess"),
    ("NEW", '{"ruleset":"zanzibar","options":{"sow_bound":-1}}'),
    ("NEW", "{"),
    ("SETPOS", "[1,2,3]"),
    ("SETPOS", ""),
    ("SETUP", "check Z9"),
    ("SETUP", "off"),
    ("CPU", "X 9"),
    ("HELLO", "99"),
    ("SELFTEST", "5"),
    ("FROB", "x"),
    ("hello", ""),
    ("NEW\u00e9", ""),
]


class Host:
    """The host's end of the board's serial line, in lockstep with the emulated Pico: every line the
    board says, decoded, in order."""

    def __init__(self, board: PicoBoard) -> None:
        self.board = board
        self.lines: list[tuple[Any, ...]] = []
        self.bad_lines = 0
        self.n = 1000
        self._in = LineAssembler(MAX_BOARD_LINE, self._line, self._overlong)
        board.on_serial = self._in.feed

    def _overlong(self, code: int) -> None:
        self.bad_lines += 1

    def _line(self, line: bytes) -> None:
        f = decode(bytes(line).rstrip(b"\r"))
        if isinstance(f, int):
            self.bad_lines += 1
        else:
            self.lines.append(f)

    def answers(self, since: int) -> list[tuple[Any, ...]]:
        """The answers among the lines said since line `since`: replies and BADFRAME notices."""
        return [f for f in self.lines[since:] if f[0] == "R" or (f[0] == "N" and f[2] == "BADFRAME")]

    def send(self, data: bytes, until: Callable[[], bool], scans: int = 400) -> None:
        self.board.write_serial(data)
        for _ in range(scans):
            self.board.run(1, 5)
            if until():
                return

    def command(self, typ: str, payload: str = "") -> str:
        self.n += 1
        n = self.n
        self.send(encode("C", n, typ, payload), lambda: n in self.board.replies)
        return self.board.replies.get(n, "")

    def ack(self) -> None:
        last = max((f[1] for f in self.lines if f[0] == "E"), default=0)
        epoch = self.epoch()
        if last and epoch:
            self.board.write_serial(encode("A", last, "ACK", epoch))
            self.board.run(4, 5)

    def epoch(self) -> str:
        for f in reversed(self.lines):
            if f[0] in "HR" and "epoch=" in f[3]:
                return str(f[3].split("epoch=", 1)[1].split()[0])
        return ""

    def snap(self) -> dict[str, Any]:
        r = self.command("SNAP")
        assert r.startswith("OK "), r
        d: dict[str, Any] = json.loads(r[3:])
        return d


def touch(board: PicoBoard, pits: list[int]) -> None:
    for pit in pits:
        board.set_pit(pit, True)
        board.run(HOLD, 5)
        board.set_pit(pit, False)
        board.run(HOLD, 5)


def frame(kind: str, num: int, typ: str, payload: str) -> bytes:
    """A line with a good CRC, whatever its kind and type (encode() refuses what a host must not send)."""
    b = f"{kind}{num} {typ} {payload}".rstrip().encode()
    return b + b" *%08X\n" % zlib.crc32(b)


def bad_input(rng: random.Random, n: int) -> tuple[str, bytes]:
    """One malformed line, or one command: (what it is, the bytes)."""
    kind = rng.randrange(7)
    if kind == 0:  # line noise (no line end inside: one line)
        noise = bytes(rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randrange(1, 120)))
        return "noise", noise + b"\n"
    if kind == 1:  # a frame cut short, then the line's end
        line = encode("C", n, "PING")
        return "cut", line[: rng.randrange(1, len(line) - 1)] + b"\n"
    if kind == 2:  # a character changed under the CRC
        line = bytearray(encode("C", n, "MODE", "teach"))
        i = rng.randrange(1, len(line) - 10)
        line[i] = 0x41 + (line[i] - 0x41 + 1 + rng.randrange(20)) % 26
        return "crc", bytes(line)
    if kind == 3:  # longer than any frame
        return "overlong", b"C" + b"9" * rng.randrange(MAX_HOST_LINE, 2 * MAX_HOST_LINE) + b"\n"
    if kind == 4:  # a frame of a kind the host never sends
        return "kind", frame(rng.choice("EHRNZ"), n, "HELLO", "1")
    typ, payload = rng.choice(COMMANDS)
    return "command " + typ, frame("C", n, typ, payload)


def fuzz_once(host: Host, rng: random.Random, stage: str, found: list[str]) -> None:
    """One bad input; exactly one answer expected, and no restart."""
    host.n += 1
    what, data = bad_input(rng, host.n)
    since = len(host.lines)
    hellos = host.board.hellos
    host.send(data, lambda: bool(host.answers(since)))
    host.board.run(6, 5)  # (a second answer would come within a few scans)
    got = host.answers(since)
    if len(got) != 1 or host.board.hellos != hellos:
        found.append(f"{stage}: {what} {data[:60]!r}: answers {got}, restarts {host.board.hellos - hellos}")


@dataclass
class ProtocolReport:
    inputs: int = 0
    stages: dict[str, int] = field(default_factory=dict)
    found: list[str] = field(default_factory=list)
    moves: int = 0


def protocol_fuzz(data_dir: Path, seed: int, plies: int, per_stage: int) -> ProtocolReport:
    """`plies` moves of the 1994 game; before each, `per_stage` bad inputs at a move boundary and as many
    after its first activation (a hand sowing)."""
    rng = random.Random(seed)
    rep = ProtocolReport()
    board = PicoBoard(str(data_dir), seed=seed, flash_timing=False)
    host = Host(board)
    try:
        r = host.command("HELLO", HELLO)
        assert r.startswith("OK "), r
        g = game_1994()
        for i in range(plies):
            p, m = g.moves[i]
            acts = list(activations(p, m))
            for stage, pits in (("between moves", []), ("in a move", acts[:1])):
                touch(board, pits)
                for _ in range(per_stage):
                    fuzz_once(host, rng, stage, rep.found)
                    rep.inputs += 1
                    rep.stages[stage] = rep.stages.get(stage, 0) + 1
            touch(board, acts[1:])
            board.run(THINK, 5)
            host.ack()
        snap = host.snap()
        want = [notation.format_move(m, p.to_move) for p, m in g.moves[:plies]]
        said = [board.events[k][1].split(" ", 1)[0] for k in sorted(board.events) if board.events[k][0] == "MOVE"]
        rep.moves = snap["moves"]
        if snap["moves"] != plies or said != want:
            rep.found.append(f"moves: the board holds {snap['moves']}, said {said}, played {want}")
        if board.errors:
            rep.found.append(f"emulator errors: {board.errors}")
    finally:
        board.close()
    return rep


# ---- the journal on the emulated flash
SECTOR = 4096
PAGE = 256


def journal_blocks(image: Path) -> list[int]:
    """The flash sectors (blocks of the file system's region) baoboard.flashres reserved for the journal,
    as its map file on the Pico's LittleFS names them."""
    from littlefs import LittleFS

    raw = image.read_bytes()
    fs = LittleFS(block_size=SECTOR, block_count=len(raw) // SECTOR, mount=False)
    fs.context.buffer = bytearray(raw)
    fs.mount()
    with fs.open("/jflash/map", "r") as f:
        words = f.read().split()
    return [int(w) for w in words[1:]]


@dataclass
class Sector:
    block: int
    generation: int
    index: int
    end: int  # data bytes committed
    commits: list[int]  # offsets of its valid commit words


def sectors(raw: bytes, blocks: list[int]) -> list[Sector]:
    """The journal's sectors with a whole header, and what their commits say (baoboard.flashlog's layout)."""
    out = []
    for b in blocks:
        s = raw[b * SECTOR : (b + 1) * SECTOR]
        if s[:4] != b"BAOJ" or int.from_bytes(s[16:20], "little") != zlib.crc32(s[:16]):
            continue
        gen = int.from_bytes(s[8:12], "little")
        idx = int.from_bytes(s[12:16], "little")
        end = 0
        commits = []
        for k in range(56):  # up to the first erased or invalid one
            w = s[32 + 4 * k : 36 + 4 * k]
            v = int.from_bytes(w[:2], "little")
            c = int.from_bytes(w[2:], "little")
            if v ^ c != 0xFFFF or v > 3840 or v < end:
                break
            end = v
            commits.append(32 + 4 * k)
        out.append(Sector(b, gen, idx, end, commits))
    return out


def journal_file(raw: bytes, blocks: list[int]) -> list[tuple[Sector, int]]:
    """The file's sectors in order (newest complete generation), each with its file offset."""
    secs = sectors(raw, blocks)
    complete = [
        s.generation for s in secs if s.index == 0 and raw[s.block * SECTOR + 20 : s.block * SECTOR + 24] == bytes(4)
    ]
    if not complete:
        return []
    gen = max(complete)
    chain = sorted((s for s in secs if s.generation == gen), key=lambda s: s.index)
    out = []
    at = 0
    for k, s in enumerate(chain):
        if s.index != k:
            break
        out.append((s, at))
        at += s.end
    return out


def move_records(raw: bytes, chain: list[tuple[Sector, int]]) -> list[tuple[int, int]]:
    """(start, end) file offsets of the file's MOVE records, in order (records: B7 kind len16 body crc32)."""
    data = b"".join(raw[s.block * SECTOR + PAGE : s.block * SECTOR + PAGE + s.end] for s, _ in chain)
    out = []
    at = 0
    while at + 8 <= len(data) and data[at] == 0xB7:
        n = data[at + 2] | (data[at + 3] << 8)
        body = data[at + 4 : at + 4 + n]
        if b" MOVE " in body[:24]:
            out.append((at, at + 8 + n))
        at += 8 + n
    return out


DAMAGES = ("byte", "page", "header", "commit", "erased", "zeroed")


def damage(raw: bytearray, chain: list[tuple[Sector, int]], kind: str, rng: random.Random) -> int:
    """Damage one of the file's sectors; returns the file offset from which its data may be lost."""
    s, at = rng.choice(chain)
    base = s.block * SECTOR
    if kind == "byte":  # one committed byte of data
        i = rng.randrange(s.end)
        raw[base + PAGE + i] ^= 1 << rng.randrange(8)
        return at + i
    if kind == "page":  # one data page read back as noise
        pages = max(1, (s.end + PAGE - 1) // PAGE)
        k = rng.randrange(pages)
        raw[base + PAGE * (1 + k) : base + PAGE * (2 + k)] = bytes(rng.randrange(256) for _ in range(PAGE))
        return at + PAGE * k
    if kind == "header":  # the sector's header: the sector is no longer the file's
        raw[base + rng.randrange(20)] ^= 1 << rng.randrange(8)
        return at
    if kind == "commit":  # one of its commit words: the sector's data seems to end at the one before
        k = rng.randrange(len(s.commits)) if s.commits else 0
        if s.commits:
            raw[base + s.commits[k] + rng.randrange(4)] ^= 1 << rng.randrange(8)
        prev = int.from_bytes(raw[base + s.commits[k - 1] : base + s.commits[k - 1] + 2], "little") if k else 0
        return at + prev
    raw[base : base + SECTOR] = (b"\xff" if kind == "erased" else b"\x00") * SECTOR
    return at


@dataclass
class JournalCase:
    kind: str
    played: int
    intact: int  # moves whose record lies wholly before the damage
    kept: int = -1  # moves the board holds after booting
    new_epoch: bool = False
    booted: bool = False
    found: str = ""


def play_and_save(data_dir: Path, plies: int, seed: int) -> tuple[str, list[str]]:
    """The first `plies` moves of the 1994 game journaled on a new board (its flash saved at power-off):
    the board's epoch, and the moves it said."""
    board = PicoBoard(str(data_dir), seed=seed, flash_timing=False)
    host = Host(board)
    try:
        r = host.command("HELLO", HELLO)
        assert r.startswith("OK "), r
        g = game_1994()
        for p, m in g.moves[:plies]:
            touch(board, list(activations(p, m)))
            board.run(THINK, 5)
        assert host.snap()["moves"] == plies
        epoch = host.epoch()
    finally:
        board.close()
    return epoch, [notation.format_move(m, p.to_move) for p, m in game_1994().moves[:plies]]


def journal_case(pristine: Path, work: Path, kind: str, rng: random.Random, epoch: str, plies: int) -> JournalCase:
    """One damage of the journal's flash, then a boot: what the board keeps and says."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    image = work / "pico-flash.img"
    shutil.copyfile(pristine / "pico-flash.img", image)
    raw = bytearray(image.read_bytes())
    blocks = journal_blocks(image)
    chain = journal_file(bytes(raw), blocks)
    recs = move_records(bytes(raw), chain)
    assert len(recs) == plies, f"{len(recs)} MOVE records on flash for {plies} moves"
    at = damage(raw, chain, kind, rng)
    image.write_bytes(bytes(raw))
    case = JournalCase(kind, plies, sum(1 for _, end in recs if end <= at))
    try:
        board = PicoBoard(str(work), seed=1, flash_timing=False)
    except RuntimeError as e:
        case.found = f"{kind}: the board did not boot: {e}"
        return case
    host = Host(board)
    try:
        case.booted = True
        r = host.command("HELLO", HELLO)
        snap = host.snap()
        case.kept = snap["moves"]
        case.new_epoch = host.epoch() != epoch
        g = game_1994()
        want = g.moves[case.kept][0] if case.kept < len(g.moves) else None
        pos = position_json.from_dict(snap["position"])
        if not r.startswith("OK "):
            case.found = f"{kind}: HELLO answered {r}"
        elif case.kept < case.intact or case.kept > plies:
            case.found = f"{kind}: kept {case.kept} of {plies} moves, {case.intact} intact"
        elif want is None or pos.d != want.d or pos.to_move != want.to_move:
            case.found = f"{kind}: the board stands at a position of no prefix of the game"
        elif case.kept < plies and not case.new_epoch:
            case.found = f"{kind}: {plies - case.kept} moves lost and the epoch unchanged: the damage not reported"
        elif board.errors:
            case.found = f"{kind}: emulator errors {board.errors}"
    finally:
        board.close()
    return case


def journal_fuzz(tmp: Path, seed: int, plies: int, cases: int, kinds: tuple[str, ...] = DAMAGES) -> list[JournalCase]:
    """`cases` damages (each kind of `kinds` in turn) of a flash holding `plies` journaled moves."""
    rng = random.Random(seed)
    pristine = tmp / "pristine"
    epoch, _ = play_and_save(pristine, plies, seed)
    out = []
    for k in range(cases):
        out.append(journal_case(pristine, tmp / "case", kinds[k % len(kinds)], rng, epoch, plies))
    return out


def summary(cases: list[JournalCase]) -> dict[str, Any]:
    by: dict[str, dict[str, int]] = {}
    for c in cases:
        d = by.setdefault(c.kind, {"cases": 0, "booted": 0, "moves lost": 0, "new epoch": 0, "found": 0})
        d["cases"] += 1
        d["booted"] += c.booted
        d["moves lost"] += max(0, c.played - c.kept) if c.booted else c.played
        d["new epoch"] += c.new_epoch
        d["found"] += bool(c.found)
    return by
