"""`bao sim`: run the simulated board (the unchanged firmware) with its serial side on a pseudo-terminal
or a socket, optionally with simulated hands playing a transcript."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from bao import notation


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sim", help="run the simulated board (firmware on a simulated Hardware)")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                   help="run the firmware in-process (cpython) or in the MicroPython unix port")
    p.add_argument("--port", default="pty",
                   help="serial side: 'pty' (a pseudo-terminal, path printed), socket://HOST:PORT, or 'none'")
    p.add_argument("--play-transcript", metavar="FILE", help="simulated hands perform every move of FILE")
    p.add_argument("--speed", type=float, default=0.0, metavar="SECONDS",
                   help="pause between two activations of the hands (0: as fast as possible)")
    p.add_argument("--mistakes", type=float, default=0.0, metavar="RATE",
                   help="probability that a hand first touches a wrong pit (flagged, then taken back)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--report", action="store_true", help="print each move the board reports, in notation")
    p.add_argument("--data", metavar="DIR", help="the board's flash (a directory); default: a fresh temporary one")
    p.add_argument("--heap", default="192k", help="MicroPython heap (micropython runtime)")
    p.add_argument("--scan-ms", type=int, default=5, help="scan-loop period in ms")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bao_host.sim import Board, CPythonBoard, Hands, MicroPythonBoard, PtyLink, Reporter, SocketLink

    tmp = None
    data = args.data
    if not data:
        tmp = tempfile.TemporaryDirectory(prefix="bao-sim-")
        data = tmp.name
    link: PtyLink | SocketLink | None = None
    if args.port == "pty":
        link = PtyLink()
    elif args.port.startswith("socket://"):
        host, _, port = args.port[len("socket://"):].rpartition(":")
        link = SocketLink(host or "127.0.0.1", int(port))
    if link is not None:
        print(f"board serial: {link.path}", file=sys.stderr, flush=True)
    reporter = Reporter(echo=args.report)

    def out(data: bytes) -> None:
        reporter.feed(data)
        if link is not None:
            link.write(data)

    def pump() -> None:
        if link is not None:
            data = link.read()
            if data:
                board.write_serial(data)

    board: Board
    if args.runtime == "micropython":
        board = MicroPythonBoard(data, heap=args.heap, on_serial=out)
    else:
        board = CPythonBoard(data, on_serial=out)
    board.run(1, args.scan_ms)
    try:
        if not args.play_transcript:
            while True:  # a board for a host or the terminal UI: scan in real time
                pump()
                board.run(1, args.scan_ms)
                time.sleep(args.scan_ms / 1000)
        with open(args.play_transcript) as f:
            t = notation.parse_transcript(f.read())
        positions = notation.replay(t)
        hands = Hands(board, scan_ms=args.scan_ms, pause=args.speed, mistakes=args.mistakes, seed=args.seed,
                      between=pump)
        want = []
        for i, text in enumerate(t.plies):
            p = positions[i]
            m, _ = notation.parse_move(p, text)
            want.append(notation.format_move(m, p.to_move))
            hands.perform(p, m)
        if board.phase == 2:  # the last move waits for a house decision: the host says stop
            from baoboard.frames import encode

            board.write_serial(encode("C", 1, "STOP"))
        board.run(20, args.scan_ms)
        pump()
        ok = reporter.moves == want and board.position.d == positions[-1].d
        if not ok:
            print(f"bao sim: the board reported {len(reporter.moves)} moves; they differ from the transcript"
                  f" ({reporter.moves} vs {want})", file=sys.stderr)
        if args.mistakes:
            flagged = sum(1 for typ, _ in reporter.events.values() if typ == "ILLEGAL")
            print(f"bao sim: {hands.made} mistakes made, {flagged} flagged by the board", file=sys.stderr)
            ok = ok and flagged == hands.made
        if board.errors:
            print("bao sim: firmware errors: " + "; ".join(board.errors), file=sys.stderr)
            ok = False
        if board.mem_free >= 0:
            print(f"bao sim: MicroPython heap free at the end: {board.mem_free}", file=sys.stderr)
        return 0 if ok else 1
    except KeyboardInterrupt:
        return 130
    finally:
        board.close()
        if link is not None:
            link.close()
        if tmp is not None:
            tmp.cleanup()

