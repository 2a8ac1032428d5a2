"""`bao match` without the host's dependencies, for PyPy (Python 3.9+): it imports only the rules core and
bao_host.engine's match and players, so `pypy3 tools/run_match.py A B --games N --seed S --record F.jsonl`
plays the same match as `bao match A B ...` (players named the same way) about twice as fast (the engine
is the same code at the same node budget; docs/benchmarks.md, Engine). With --record a stopped run
continues where it stopped. Prints one line a game and the score with its Elo interval.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bao_host.engine import match, players

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("a", help=players.SPEC_HELP)
    ap.add_argument("b")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--ruleset", default="zanzibar")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--record", metavar="FILE.jsonl")
    ap.add_argument("--part", metavar="K/N", default="1/1")
    args = ap.parse_args(argv)
    try:
        a = players.make_player(args.a, args.movetime, seed=args.seed)
        b = players.make_player(args.b, args.movetime, seed=args.seed + 1)
        part = match.parse_part(args.part)
        if a.name == b.name:
            b.name += "'"

        def report(r: match.MatchResult, g: match.GameRecord) -> None:
            print(
                f"game {g.game + 1}: {g.first} (South) vs {g.second} (North): {g.winner or 'draw'} in {g.plies} "
                f"plies; {r.a} {r.score:g}/{r.played}",
                flush=True,
            )

        r = match.run_match(a, b, args.games, args.ruleset, args.seed, args.opening_plies, report, args.record, part)
    except (players.PlayerSpecError, match.MatchRecordError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(r.summary(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
