"""Puzzle benchmark (issue #28): the shipped sets (puzzles/RULESET.json) counted by theme and difficulty, and
the uniqueness of a seeded sample of each checked again as the generator's final check does (generate.final_check,
two plies deeper than its deeper check; a set made before the final check is put through it by `bao puzzles
--recheck`): every legal move's reply searched DEPTH plies, the solution must still be the best move, no other
move equal in seeds (`unique` when it leads by generate.GAP seeds, `narrower` by less). Writes the "Puzzles" section
of docs/benchmarks.md (`python tools/bench_puzzles.py [--sample N] [--depth D] [--no-write]`)."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host"), str(ROOT / "tools")]

from bao import core, engine  # noqa: E402
from bao_host.puzzles import generate, model  # noqa: E402
from bao_host.puzzles.sets import SET_DIR, set_path  # noqa: E402
from bench_common import Table, replace_section  # noqa: E402


def recheck(pz: model.Puzzle, depth: int, nodes: int, eng: engine.Engine) -> tuple[str, float]:
    """('unique' | 'narrower' | 'other best' | 'not finished', the lead in seeds) at the deeper search: the
    generator's final check (generate.final_check; `other best` also when another move is equal in seeds)."""
    return generate.final_check(eng, pz.start(), pz.solution, depth, nodes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sample", type=int, default=10, help="puzzles re-checked per ruleset")
    ap.add_argument("--depth", type=int, default=0, help="plies below each move (default: the final check's)")
    ap.add_argument("--nodes", type=int, default=1_000_000, help="node cap per move")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    counts = Table(["ruleset", "puzzles", "easy / medium / hard", "themes (most common)"])
    checks = Table(
        [
            "ruleset",
            "sampled",
            "plies below each move",
            "unique",
            "narrower",
            "other best",
            "not finished",
            "median lead (seeds)",
            "s per puzzle",
        ]
    )
    for rs in core.RULESETS:
        path = set_path(rs)
        puzzles = model.load(path) if path.exists() else []
        diff = Counter(pz.difficulty for pz in puzzles)
        themes = Counter(t for pz in puzzles for t in pz.themes)
        counts.add(
            rs,
            str(len(puzzles)),
            f"{diff['easy']} / {diff['medium']} / {diff['hard']}",
            ", ".join(f"{t} {n}" for t, n in themes.most_common(5)),
        )
        if not puzzles:
            continue
        depth = args.depth or generate.DEPTHS[rs].final
        sample = random.Random(f"bench:{rs}").sample(puzzles, min(args.sample, len(puzzles)))
        eng = engine.Engine(tt_bits=18)
        verdicts: Counter[str] = Counter()
        leads: list[float] = []
        start = time.process_time()
        for pz in sample:
            verdict, lead = recheck(pz, depth, args.nodes, eng)
            verdicts[verdict] += 1
            leads.append(lead)
            print(f"{rs} {pz.id} {pz.solution}: {verdict}, lead {lead:.2f}", flush=True)
        per = (time.process_time() - start) / len(sample)
        checks.add(
            rs,
            str(len(sample)),
            str(depth),
            str(verdicts["unique"]),
            str(verdicts["narrower"]),
            str(verdicts["other best"]),
            str(verdicts["not finished"]),
            f"{statistics.median(leads):.1f}",
            f"{per:.1f}",
        )
    body = (
        f"`python tools/bench_puzzles.py --sample {args.sample}` (run by `make bench`): the shipped sets "
        f"({SET_DIR.name}/RULESET.json, docs/puzzles.md), and a seeded sample of each re-checked by a deeper "
        "search than the generator's: the solution must still be the best move and lead the next by "
        f"{generate.GAP:g} seeds (`narrower`: still best, by less; `not finished`: a move's search hit the "
        f"node cap of {args.nodes}). CPU seconds per puzzle (process time) on x86_64, Python "
        f"{sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}.\n\n"
        + counts.render()
        + "\n\n"
        + checks.render()
        + "\n"
    )
    print(body)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "Puzzles", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
