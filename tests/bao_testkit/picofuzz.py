"""Fuzzers against the Bao-board image on the emulated Pico (bao_host.boards.pico.PicoBoard), deterministic
for a seed: tests/host/test_pico_fuzz.py runs them short, tools/bench_soak.py --runtime pico long.

protocol_fuzz: a host handshakes, the hands play moves; between moves and in the middle of one (a hand
sowing), the host sends malformed frames (random bytes, a frame cut short, a flipped character under its
CRC, a line longer than any frame, a frame of an unknown kind), unknown commands, and known commands with
bad or harmless arguments. With `ends`, two more stages follow, each from a position the host sets
(SETPOS): a move that stops in the house waits for the player's decision (Zanzibar 2.5b: the 1994 game's
30th move, played on after the fuzz), and a finished game (a random game's last move played). The board
must answer each input with exactly one line (`R<id> ...` for a command it read, `N0 BADFRAME ...` for a
line it could not), never restart (no second HELLO), and at the end hold every move played, each
reported once, in order; after a power cut at the end it still holds the finished game's move.

journal_fuzz: moves played and journaled (a game under way; or the moves before a house decision, with the
board waiting for the decision; or a finished game), the board switched off (its flash saved), then one of
the journal's flash sectors damaged (a byte of a record, a page of data, a sector's header, a commit word,
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

from bao import core, notation, position_json
from bao_host.boards.pico import PicoBoard
from bao_host.record.state import DECISION, OVER
from baoboard.recogniser import activations
from baoproto.frames import MAX_BOARD_LINE, MAX_HOST_LINE, LineAssembler, decode, encode

from bao_testkit.simrig import Played, game_1994, random_game

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


def bad_input(rng: random.Random, n: int, commands: list[tuple[str, str]] = COMMANDS) -> tuple[str, bytes]:
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
    typ, payload = rng.choice(commands)
    return "command " + typ, frame("C", n, typ, payload)


def fuzz_once(host: Host, rng: random.Random, stage: str, found: list[str], commands: list[tuple[str, str]]) -> None:
    """One bad input; exactly one answer expected, and no restart."""
    host.n += 1
    what, data = bad_input(rng, host.n, commands)
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


class _Fuzz:
    """One protocol fuzzer's run: its board, host, seeded inputs, the moves played (as written) and the
    report."""

    def __init__(self, board: PicoBoard, seed: int, per_stage: int) -> None:
        self.board = board
        self.host = Host(board)
        self.rng = random.Random(seed)
        self.per_stage = per_stage
        self.rep = ProtocolReport()
        self.played: list[str] = []

    def stage(self, stage: str, commands: list[tuple[str, str]] = COMMANDS, phase: int = -1) -> None:
        """`per_stage` bad inputs now; phase: the stage the board must say it is at (its STATE), before and
        after them (-1: not checked)."""
        if phase >= 0 and self.board.phase != phase:
            self.rep.found.append(f"{stage}: the board says stage {self.board.phase}, not {phase}, before the inputs")
        for _ in range(self.per_stage):
            fuzz_once(self.host, self.rng, stage, self.rep.found, commands)
            self.rep.inputs += 1
            self.rep.stages[stage] = self.rep.stages.get(stage, 0) + 1
        if phase >= 0 and self.board.phase != phase:
            self.rep.found.append(f"{stage}: the board left stage {phase} for {self.board.phase} under the inputs")

    def play(self, p: core.Position, m: int) -> None:
        touch(self.board, list(activations(p, m)))
        self.settle(p, m)

    def settle(self, p: core.Position, m: int) -> None:
        self.board.run(THINK, 5)
        self.host.ack()
        self.played.append(notation.format_move(m, p.to_move))

    def set_position(self, p: core.Position) -> None:
        r = self.host.command("SETPOS", position_json.dumps(p, False))
        assert r == "OK", f"SETPOS answered {r!r}"
        self.board.run(THINK, 5)

    def said(self) -> list[str]:
        board = self.board
        return [board.events[k][1].split(" ", 1)[0] for k in sorted(board.events) if board.events[k][0] == "MOVE"]


# in a house decision the host's STOP ends the move in the house (2.5b), by design: not sent there
NO_STOP = [c for c in COMMANDS if c[0] != "STOP"]


def decision_stage(fz: _Fuzz) -> None:
    """The 1994 game's 30th move (5R>, a move that may stop in the house and plays on: Zanzibar 2.5b) from
    its position: its steps up to the house, bad inputs while the board waits for the decision, then the
    rest of it."""
    p, m = game_1994().moves[29]
    assert m & core.PLAY
    fz.set_position(p)
    acts = list(activations(p, m))
    k = len(list(activations(p, m & ~core.PLAY)))  # (the steps up to the house are the same)
    touch(fz.board, acts[:k])
    fz.board.run(THINK // 4, 5)
    fz.stage("house decision", NO_STOP, DECISION)
    touch(fz.board, acts[k:])
    fz.settle(p, m)


def finished_game(seed: int) -> Played:
    """A random Zanzibar game (deterministic for the seed) played to its end."""
    rng = random.Random(seed)
    while True:
        g = random_game(rng, core.ZANZIBAR)
        if g.final is not None and core.outcome(g.final) is not None:
            return g


def over_stage(fz: _Fuzz, seed: int) -> core.Position:
    """A finished game: its last move from the position before it, then bad inputs on the finished game;
    returns the final position."""
    g = finished_game(seed)
    p, m = g.moves[-1]
    fz.set_position(p)
    fz.play(p, m)
    fz.stage("game over", COMMANDS, OVER)
    assert g.final is not None
    return g.final


def protocol_fuzz(data_dir: Path, seed: int, plies: int, per_stage: int, ends: bool = False) -> ProtocolReport:
    """`plies` moves of the 1994 game; before each, `per_stage` bad inputs at a move boundary and as many
    after its first activation (a hand sowing); with `ends`, as many in a house decision and in a finished
    game, then a power cut."""
    board = PicoBoard(str(data_dir), seed=seed, flash_timing=False)
    fz = _Fuzz(board, seed, per_stage)
    rep = fz.rep
    try:
        r = fz.host.command("HELLO", HELLO)
        assert r.startswith("OK "), r
        g = game_1994()
        for i in range(plies):
            p, m = g.moves[i]
            acts = list(activations(p, m))
            fz.stage("between moves")
            touch(board, acts[:1])
            fz.stage("in a move")
            touch(board, acts[1:])
            fz.settle(p, m)
        game_moves = plies
        if ends:
            decision_stage(fz)
            final = over_stage(fz, seed)
            game_moves = 1
        snap = fz.host.snap()
        said = fz.said()
        rep.moves = snap["moves"]
        if snap["moves"] != game_moves or said != fz.played:
            rep.found.append(f"moves: the board holds {snap['moves']}, said {said}, played {fz.played}")
        if ends:  # the finished game's move is journaled: a power cut keeps it
            board.power_cut()
            fz.host.command("HELLO", HELLO)
            snap = fz.host.snap()
            pos = position_json.from_dict(snap["position"])
            if snap["moves"] != 1 or pos.d != final.d:
                rep.found.append(f"after a power cut in the finished game the board holds {snap['moves']} moves")
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
    stage: str = "moves"  # journal_line's: the board's line at the power-off


JOURNAL_STAGES = ("moves", "decision", "over")


@dataclass
class Line:
    """What a journal fuzzer's board played before its power-off: from `start` (None: a new board's game; a
    position: set by the host's SETPOS) the journaled `moves`, then the position `after` them; `decide`:
    the steps made of a move waiting for its house decision at the power-off (not journaled)."""

    start: core.Position | None
    moves: list[tuple[core.Position, int]]
    after: core.Position
    decide: list[int] = field(default_factory=list)


def journal_line(stage: str, plies: int, seed: int) -> Line:
    """The line a journal fuzzer's board plays: "moves", the 1994 game's first `plies` moves; "decision",
    the `plies` moves before its 30th, then that move's steps up to its house decision (Zanzibar 2.5b); "over",
    a random game's last `plies` moves (a finished game)."""
    g = game_1994()
    if stage == "moves":
        return Line(None, g.moves[:plies], g.moves[plies][0])
    if stage == "decision":
        p, m = g.moves[29]
        line = g.moves[29 - plies : 29]
        return Line(line[0][0], line, p, list(activations(p, m & ~core.PLAY)))
    done = finished_game(seed)
    assert done.final is not None
    line = done.moves[-plies:]
    return Line(line[0][0], line, done.final)


def play_and_save(data_dir: Path, line: Line, seed: int) -> str:
    """The line's moves journaled on a new board (its flash saved at power-off): the board's epoch."""
    board = PicoBoard(str(data_dir), seed=seed, flash_timing=False)
    host = Host(board)
    try:
        r = host.command("HELLO", HELLO)
        assert r.startswith("OK "), r
        if line.start is not None:
            r = host.command("SETPOS", position_json.dumps(line.start, False))
            assert r == "OK", r
            board.run(THINK, 5)
        for p, m in line.moves:
            touch(board, list(activations(p, m)))
            board.run(THINK, 5)
        if line.decide:
            touch(board, line.decide)
            board.run(THINK, 5)
            assert board.phase == DECISION, board.phase
        assert host.snap()["moves"] == len(line.moves)
        epoch = host.epoch()
    finally:
        board.close()
    return epoch


def journal_case(pristine: Path, work: Path, kind: str, rng: random.Random, epoch: str, line: Line) -> JournalCase:
    """One damage of the journal's flash, then a boot: what the board keeps and says."""
    plies = len(line.moves)
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
        want = line.moves[case.kept][0] if case.kept < plies else line.after
        pos = position_json.from_dict(snap["position"])
        if not r.startswith("OK "):
            case.found = f"{kind}: HELLO answered {r}"
        elif case.kept < case.intact or case.kept > plies:
            case.found = f"{kind}: kept {case.kept} of {plies} moves, {case.intact} intact"
        elif (pos.d != want.d or pos.to_move != want.to_move) and not _lost_start(line, case, pos):
            case.found = f"{kind}: the board stands at a position of no prefix of the game"
        elif case.kept < plies and not case.new_epoch:
            case.found = f"{kind}: {plies - case.kept} moves lost and the epoch unchanged: the damage not reported"
        elif board.errors:
            case.found = f"{kind}: emulator errors {board.errors}"
    finally:
        board.close()
    return case


def _lost_start(line: Line, case: JournalCase, pos: core.Position) -> bool:
    """The damage took the record of the position the host set (SETPOS) too: the board is back at its first
    game's start, with no move, and says so (a new epoch)."""
    first = core.initial()
    return line.start is not None and case.kept == 0 and case.new_epoch and pos.d == first.d


def journal_fuzz(
    tmp: Path, seed: int, plies: int, cases: int, kinds: tuple[str, ...] = DAMAGES, stage: str = "moves"
) -> list[JournalCase]:
    """`cases` damages (each kind of `kinds` in turn) of a flash holding `plies` journaled moves of the
    stage's line (journal_line: a game under way, a house decision waiting, a finished game)."""
    rng = random.Random(seed)
    pristine = tmp / "pristine"
    line = journal_line(stage, plies, seed)
    epoch = play_and_save(pristine, line, seed)
    out = []
    for k in range(cases):
        case = journal_case(pristine, tmp / "case", kinds[k % len(kinds)], rng, epoch, line)
        case.stage = stage
        out.append(case)
    return out


def summary(cases: list[JournalCase]) -> dict[str, Any]:
    by: dict[str, dict[str, int]] = {}
    for c in cases:
        d = by.setdefault(
            c.kind if c.stage == "moves" else f"{c.kind} ({c.stage})",
            {"cases": 0, "booted": 0, "moves lost": 0, "new epoch": 0, "found": 0},
        )
        d["cases"] += 1
        d["booted"] += c.booted
        d["moves lost"] += max(0, c.played - c.kept) if c.booted else c.played
        d["new epoch"] += c.new_epoch
        d["found"] += bool(c.found)
    return by
