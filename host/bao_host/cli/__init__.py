"""The `bao` command. Each sub-command lives in its own module, which registers itself here."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from typing import NoReturn

# Modules that provide `register(subparsers)`; each adds its sub-commands with a `func` default that
# takes the parsed arguments and returns the exit status.
COMMAND_MODULES = [
    "bao_host.cli.rules",  # moves, apply, replay, show, perft
    "bao_host.cli.library",  # games, game, export, import, name
    "bao_host.cli.log",  # log
    "bao_host.cli.sim",  # sim
    "bao_host.cli.board",  # board, selftest
    "bao_host.cli.engine",  # engine, analyse, match
    "bao_host.cli.serve",  # serve
    "bao_host.cli.online",  # online
    "bao_host.cli.lessons",  # lessons
    "bao_host.cli.puzzles",  # puzzles
]


class Parser(argparse.ArgumentParser):
    """argparse with its errors on one line ("bao perft: error: ..."), status 2 as argparse has."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="bao", description="The Bao board's host program.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _stdout_gone() -> int:
    """stdout was closed by the reader (`bao games --json | head -3`): stop quietly, as a shell tool does.
    Python would otherwise report the broken pipe again when it flushes stdout at exit."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, the status a shell gives a command stopped by a closed pipe


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _stdout_gone()
    except Exception as e:  # a bug, not bad input (that has its own message): one line, never a traceback
        if os.environ.get("BAO_TRACEBACK"):
            raise
        print(
            f"bao {args.command}: internal error: {type(e).__name__}: {e} (BAO_TRACEBACK=1 shows where)",
            file=sys.stderr,
        )
        return 70  # EX_SOFTWARE
    return status
