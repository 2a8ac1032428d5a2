# Move and transcript notation (rulings G7, G8), in two explicit dialects:
#   "donkers": [row] pit [L|R] [* | **] [>]     e.g. 7L*  5R>  B2L  a6L
#   "kiba":    [row] pit [<|>] [* | **] [+]     the revised edition: < > for L R and + plays the house
# In the namua stage the row letter is omitted (and accepted); a namua capture's letter names the kichwa
# the captured seeds go in from (L = pit 1, R = pit 8) and is omitted where the kichwa is forced (1.4b).
# Writing a move (format_move, the dialects) is in bao.movetext, below the core, for the board, which reads
# a move only for a SHOW; re-exported here, the notation's one place.
# The kuu games (M25): nemo moves are written as namua moves; a placement drop is "@A4", the second player's
# first drop "xA3@a4" (takes A3 first, M21); a transcript writes a player's placement as one token, its
# plies concatenated ("@A4@A3@A3@B1@A5"), and Transcript.plies holds them one ply each.
from bao import kuu
from bao.core import (
    DROP,
    IDENTITY,
    MAKES_TAKASIA,
    NONE,
    PLAY,
    RIGHT,
    STORE,
    TAKASA,
    TO_MOVE,
    WINNER,
    BaoError,
    IllegalMoveError,
    NotationError,
    Position,
    Rules,
    initial,
    legal_moves,
    outcome,
)
from bao.movetext import DIALECTS as DIALECTS
from bao.movetext import DONKERS as DONKERS
from bao.movetext import KIBA as KIBA
from bao.movetext import format_move as format_move
from bao.movetext import marks
from bao.reasons import why_illegal


def _short(text: str) -> str:
    """Text quoted in an error message: a whole line of a binary or huge file would not fit on one line."""
    return text if len(text) <= 40 else text[:37] + "..."


class ParsedMove:
    """What a move text says, before it is checked against a position."""

    def __init__(self, row: str, pit: int, letter: str, takasa: int, play: bool) -> None:
        self.row = row  # "" when omitted
        self.pit = pit  # 1..8
        self.letter = letter  # "L", "R" or "" when omitted
        self.takasa = takasa  # 0: no mark, 1: "*", 2: "**"
        self.play = play


def parse_text(text: str, dialect: str = DONKERS) -> ParsedMove:
    """Syntax only: NotationError for text that is not a move."""
    left, right, house = marks(dialect)
    s = text.strip()
    i = 0
    row = ""
    if i < len(s) and s[i] in "ABab":
        row = s[i]
        i += 1
    if i >= len(s) or s[i] not in "12345678":
        where = "" if row else " (after an optional row A, B, a, b)"
        raise NotationError("%r: expected a pit number 1..8%s" % (_short(text), where))
    pit = int(s[i])
    i += 1
    letter = ""
    if i < len(s) and s[i] in (left, right):
        # In the kiba dialect ">" is R; it cannot also mean "plays the house" here.
        letter = "L" if s[i] == left else "R"
        i += 1
    takasa = 0
    while i < len(s) and s[i] == "*" and takasa < 2:
        takasa += 1
        i += 1
    play = False
    if i < len(s) and s[i] == house:
        play = True
        i += 1
    if i != len(s):
        form = "[row]pit[%s|%s][*|**][%s]" % (left, right, house)
        raise NotationError("%r: unexpected %r (a move is %s)" % (_short(text), _short(s[i:]), form))
    return ParsedMove(row, pit, letter, takasa, play)


def find_move(p: Position, move: int) -> "tuple[int, Position]":
    """The legal (move, child) whose identity (ring, letter, house play) is `move`; IllegalMoveError
    with the reason and rule otherwise."""
    want = move & IDENTITY
    for entry in legal_moves(p):
        if entry[0] & IDENTITY == want:
            return entry
    rule, reason = why_illegal(p, want)
    raise IllegalMoveError(rule + ": " + reason, rule)


def parse_move(p: Position, text: str, dialect: str = DONKERS) -> "tuple[int, Position]":
    """Read a move in position p: returns the legal (move, child). NotationError for unreadable text,
    IllegalMoveError (citing the rule) for a move the rules do not allow here."""
    d = p.d
    if "@" in text:
        if d[WINNER] != NONE:
            raise IllegalMoveError("1.2: the game is over", "1.2")
        return kuu.find_drop(p, text)
    pm = parse_text(text, dialect)
    if d[WINNER] != NONE:
        raise IllegalMoveError("1.2: the game is over", "1.2")
    if p.rules.kuu and kuu.is_placing(p):
        raise IllegalMoveError(
            "M22: %s is placing: each ply drops one seed, written @pit" % ("South" if d[TO_MOVE] == 0 else "North"),
            "M22",
        )
    side = d[TO_MOVE]
    namua = d[STORE + side] > 0
    front = "A" if side == 0 else "a"
    back = "B" if side == 0 else "b"
    if pm.row and pm.row not in (front, back):
        raise IllegalMoveError(
            "G1: %s is not a row of %s (its rows are %s and %s)"
            % (pm.row, "South" if side == 0 else "North", front, back),
            "G1",
        )
    if namua and pm.row == back:
        if outcome(p) is not None:  # a side with no legal move has lost: that comes first (1.2)
            raise IllegalMoveError("1.2: the game is over", "1.2")
        if p.rules.kuu:
            raise IllegalMoveError("M9: a nemo goes into an occupied front pit, not into the back row", "M9")
        raise IllegalMoveError("2.4: in the namua stage every move starts on the front row", "2.4")
    if not namua and not pm.row:
        raise NotationError("%r: a mtaji-stage move needs its row letter (%s or %s)" % (text, front, back))
    ring = pm.pit - 1 if pm.row != back else 16 - pm.pit
    letter = pm.letter
    if not letter:
        # Only a namua capture at a kichwa or kimbi leaves the letter out: its kichwa is forced (1.4b,
        # G7). A takasa from the same pits may go either way, so it names its direction.
        if not namua or pm.takasa or 1 < ring < 6:
            why = " (a takasa names its direction, G7)" if pm.takasa else ""
            raise NotationError("%r: the direction (L or R) is missing%s" % (text, why))
        letter = "L" if ring < 2 else "R"
    move = ring | (RIGHT if letter == "R" else 0) | (PLAY if pm.play else 0)
    entry = find_move(p, move)
    m = entry[0]
    if pm.takasa and not m & TAKASA:
        raise IllegalMoveError("1.7: %s is a capture move, not a takasa: write it without '*'" % (text.strip(),), "1.7")
    if not pm.takasa and m & TAKASA:
        raise IllegalMoveError("1.7: %s is a takasa (no capture): write it with '*'" % (text.strip(),), "1.7")
    if pm.takasa == 2 and not m & MAKES_TAKASIA:
        rule = "M18" if p.rules.kuu else "4.1"
        raise IllegalMoveError(
            "%s: %s makes no %s: write it with one '*'"
            % (rule, text.strip(), "threatened pit" if p.rules.kuu else "takasia"),
            rule,
        )
    return entry


def same_move(a: int, b: int) -> bool:
    return a & IDENTITY == b & IDENTITY and a & DROP == b & DROP


# Transcripts (G8)
class Transcript:
    """A game record: header fields and the moves as written, ply by ply (South first)."""

    def __init__(self) -> None:
        self.headers = {}  # type: dict
        self.plies = []  # type: list  # move texts, ply order
        self.comments = {}  # type: dict  # move number -> comment text
        self.lines = {}  # type: dict  # move number -> line number in the file

    def header(self, key: str, default: str = "") -> str:
        return self.headers.get(key.lower(), default)


def parse_transcript(text: str) -> Transcript:
    """Header lines `key: value`, then `N: south north;` per move number with an optional comment."""
    t = Transcript()
    expect = 1
    half = False
    lineno = 0
    start = 0
    while start < len(text):  # line by line, not split(): the board's heap is small
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        line = text[start:end].strip()
        start = end + 1
        lineno += 1
        if not line:
            continue
        colon = line.find(":")
        if colon < 0:
            raise NotationError("line %d: %r is neither 'key: value' nor 'N: south north;'" % (lineno, _short(line)))
        key = line[:colon].strip()
        rest = line[colon + 1 :]
        if not key.isdigit():
            if t.plies:
                raise NotationError("line %d: header %r after the moves" % (lineno, _short(key)))
            t.headers[key.lower()] = rest.strip()
            continue
        num = int(key)
        if num != expect:
            raise NotationError("line %d: move number %d, expected %d" % (lineno, num, expect))
        if half:
            raise NotationError("line %d: move %d follows a line with South's move only" % (lineno, num))
        semi = rest.find(";")
        comment = ""
        if semi >= 0:
            comment = rest[semi + 1 :].strip()
            rest = rest[:semi]
        words = rest.split()
        if not 1 <= len(words) <= 2:
            raise NotationError("line %d: move %d must give South's move and North's move" % (lineno, num))
        for w in words:
            if "@" in w:  # a placement (M22): one ply per drop
                t.plies.extend(kuu.split_plies(w))
            else:
                t.plies.append(w)
        half = len(words) == 1
        if comment:
            t.comments[num] = comment
        t.lines[num] = lineno
        expect += 1
    return t


def format_transcript(headers: dict, plies: list, comments: "dict | None" = None) -> str:
    """The inverse of parse_transcript (header keys are written as given)."""
    out = []
    for k in headers:
        out.append("%s: %s" % (k, headers[k]))
    for ply in plies:
        if "@" in ply:  # a placement (M22): a side's drops are one token
            plies = kuu.join_turns(plies)
            break
    for i in range(0, len(plies), 2):
        num = i // 2 + 1
        line = "%d: %s" % (num, " ".join(plies[i : i + 2]))
        line += ";"
        if comments and num in comments:
            line += " " + comments[num]
        out.append(line)
    return "\n".join(out) + "\n"


def rules_from_headers(headers: dict) -> Rules:
    """Rules named by a transcript header: `ruleset: zanzibar|malawi|malawi-intermediate|malawi-advanced`,
    `takasia: yes|no`."""
    ruleset = headers.get("ruleset", "zanzibar").strip().lower() or "zanzibar"
    tk = headers.get("takasia", "").strip().lower()
    if tk not in ("", "yes", "no"):
        raise NotationError("header takasia: %r, expected yes or no" % (_short(tk),))
    return Rules(ruleset, takasia=None if not tk else tk == "yes")


def transcript_dialect(t: Transcript, override: "str | None" = None) -> str:
    """The dialect to read t's moves in: `override` (a command line's --dialect) if given, else the
    transcript's own `notation:` header, else Donkers."""
    if override:
        return override
    named = t.header("notation").lower() or DONKERS
    if named not in DIALECTS:
        raise NotationError("header notation: %r, expected %s" % (_short(named), " or ".join(DIALECTS)))
    return named


class ReplayError(Exception):
    """A transcript move that cannot be played: names the move number, the side and the text."""

    def __init__(self, number: int, side: int, text: str, reason: str) -> None:
        super().__init__("move %d %s %s: %s" % (number, "South" if side == 0 else "North", text, reason))
        self.number = number
        self.side = side
        self.text = text
        self.reason = reason


def replay(t: Transcript, start: "Position | None" = None, dialect: str = DONKERS) -> "list[Position]":
    """Play a transcript from the start (or `start`); returns the positions after each ply, the start
    first. ReplayError at the first move that cannot be played."""
    if start is None:
        rules = rules_from_headers(t.headers)
        first = 1 if t.header("first").lower() in ("north", "n") else 0
        start = initial(rules.ruleset, rules, first)
    positions = [start]
    p = start
    turn = 0  # a placement is several plies of one turn (M22)
    for i in range(len(t.plies)):
        text = t.plies[i]
        side = p.d[TO_MOVE]
        if i and side != positions[-2].d[TO_MOVE]:
            turn += 1
        try:
            if p.d[WINNER] != NONE:
                raise IllegalMoveError("1.2: the game is already over", "1.2")
            _, p = parse_move(p, text, dialect)
        except BaoError as e:
            raise ReplayError(turn // 2 + 1, side, text, str(e))
        positions.append(p)
    return positions
