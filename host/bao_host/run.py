"""`make run`: play Bao in the terminal on the simulated board, or log the real board when one is plugged in.

With a board on USB (RP2040 vendor id, or a board id seen before): `bao log` on it. Otherwise: the
simulated board and the logger, and the textual UI to play by clicking pits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bao_host.library_commands import add_data_arg, open_store
from bao_host.logger import Logger
from bao_host.tui import BaoApp, BoardAdapter, PtyBoard


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bao_host.run", description=__doc__)
    add_data_arg(ap)
    ap.add_argument("--sim", action="store_true",
                    help="play on the simulated board even if a board is plugged in")
    args = ap.parse_args(argv)
    if not args.sim:
        from bao_host import log_commands

        with open_store(args, repair=False) as st:
            known = [r["board_id"] for r in st.known_boards()]
        port = log_commands.find_board(known)
        if port is not None:
            print(f"a Bao board is plugged in ({port}): logging it (Ctrl-C to stop)")
            return log_commands.main(["--port", port] + (["--data", args.data] if args.data else []))

    store = open_store(args)
    try:
        logger = Logger(store)
        board, pump, conn = make_board(logger)
        app = BaoApp(board, logger, pump=pump, connection=conn)
        return app.run() or 0
    finally:
        store.close()


def make_board(logger: Logger) -> tuple[BoardAdapter, Callable[[], None] | None, Callable[[], str] | None]:
    """The simulated board on a pseudo-terminal, and the logger's serial session on the other end."""
    from bao_host.log_commands import SerialSession

    board = PtyBoard()
    session = SerialSession(board.path, logger, timeout=0)
    return board, session.poll_once, lambda: f"{logger.view.connection} (simulated board on {board.path})"


if __name__ == "__main__":
    sys.exit(main())
