"""The `bao` command. Each sub-command lives in its own module, which registers itself here."""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that provide `register(subparsers)`; each adds its sub-commands with a `func` default that
# takes the parsed arguments and returns the exit status.
COMMAND_MODULES = [
    "bao_host.rules_commands",  # moves, apply, replay, show, perft
    "bao_host.library_commands",  # games, game, export, import, name
    "bao_host.log_commands",  # log
    "bao_host.sim_commands",  # sim
    "bao_host.board_commands",  # board, selftest
    "bao_host.engine_commands",  # engine, analyse, match
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bao", description="The Bao board's host program.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
