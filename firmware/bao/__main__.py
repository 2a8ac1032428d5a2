# Command line of the rules core; runs under CPython (python -m bao) and MicroPython (micropython -m bao).
#   moves                one position per line on stdin -> one JSON line of legal moves per position
#   replay [--dialect donkers|kiba] FILE   replay a transcript (dialect: the flag, else its `notation:`
#                        header, else donkers); last line: the final position
#   perft N              leaf counts from the start for depths 1..N
import json
import sys

try:
    from os import O_WRONLY, devnull, dup2  # type: ignore[attr-defined]  # (not on MicroPython)
    from os import open as os_open
except ImportError:
    dup2 = None  # type: ignore[assignment]  # (None: no descriptors to redirect)

from bao import core, notation, position_json, query

USAGE = "usage: bao moves | replay [--dialect donkers|kiba] FILE | perft N [--ruleset %s]" % "|".join(core.RULESETS)


def _moves(dialect: str) -> int:
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        line = line.strip()
        if not line:
            continue
        try:
            p = position_json.loads(line)
        except core.BaoError as e:
            print(json.dumps({"error": str(e)}))
            continue
        moves = core.legal_moves(p)
        w = core.outcome(p, moves)
        if w is not None:
            print(json.dumps({"moves": [], "winner": "SN"[w]}))
            continue
        # one move at a time: a position's whole answer as one string needs more than a Pico's heap
        side = p.d[core.TO_MOVE]
        out = sys.stdout
        out.write('{"moves": [')
        for i in range(len(moves)):
            m, child = moves[i]
            moves[i] = None  # each child goes once written
            if i:
                out.write(", ")
            out.write(
                json.dumps({"move": notation.format_move(m, side, dialect), "position": position_json.to_dict(child)})
            )
        out.write("]}\n")


def _replay(path: str, dialect: "str | None") -> int:
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeError) as e:  # UnicodeError: CPython reading a binary file
        print("cannot read %s: %s" % (path, e), file=sys.stderr)
        return 2
    try:
        t = notation.parse_transcript(text)
        positions = notation.replay(t, None, notation.transcript_dialect(t, dialect))
    except notation.ReplayError as e:
        print(str(e), file=sys.stderr)
        return 1
    except core.BaoError as e:
        print("%s: %s" % (path, e), file=sys.stderr)
        return 1
    if not t.plies:
        print("%s: no moves: a transcript has a line 'N: south north;' per move (G8)" % path, file=sys.stderr)
        return 1
    print("%d plies replayed" % (len(positions) - 1))
    print(position_json.dumps(positions[-1]))
    return 0


def _perft(depth: int, ruleset: str) -> int:
    p = core.initial(ruleset)
    for n in range(1, depth + 1):
        print(n, query.perft(p, n))
    return 0


def main(argv: list) -> int:
    dialect = None  # moves: Donkers; replay: the transcript's `notation:` header, else Donkers
    ruleset = core.ZANZIBAR
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--dialect", "--ruleset") and i + 1 < len(argv):
            if a == "--dialect":
                dialect = argv[i + 1]
            else:
                ruleset = argv[i + 1]
            i += 2
            continue
        args.append(a)
        i += 1
    if (dialect is not None and dialect not in notation.DIALECTS) or ruleset not in core.RULESETS:
        print(USAGE, file=sys.stderr)
        return 2
    if args == ["moves"]:
        return _moves(dialect or notation.DONKERS)
    if len(args) == 2 and args[0] == "replay":
        return _replay(args[1], dialect)
    if len(args) == 2 and args[0] == "perft" and args[1].isdigit() and int(args[1]) > 0:
        return _perft(int(args[1]), ruleset)
    print(USAGE, file=sys.stderr)
    return 2


def _run() -> int:
    try:
        return main(sys.argv[1:])
    except OSError as e:  # EPIPE: stdout closed by its reader (`... | head -1`): stop quietly
        if e.errno != 32:
            raise
    if dup2 is not None:  # CPython would report the closed pipe again when it flushes stdout at exit
        try:
            dup2(os_open(devnull, O_WRONLY), 1)
        except OSError:
            pass
    return 141


sys.exit(_run())
