"""Tune the engine's evaluation weights by fitting game results (the "Texel" method), and write them to
firmware/bao/engine_weights.py.

1. Self-play: the engine plays itself at a small fixed depth with the current weights, from openings of a
   few random plies and with a share of random moves, so that the games cover varied positions.
2. Every position of those games is followed through its capture sequence (each side taking the capture
   that wins most) to a quiet position, where the search's quiescence would call the evaluation; that
   position is labelled with the game's result for its side to move (1 won, 0 lost).
3. A logistic regression of the result on the evaluation's features (bao.evaluate.features, one weight
   set per stage) is fitted with numpy by gradient descent, and the weights are scaled so that a seed in
   the mtaji stage is worth 100 (centiseeds), as the search reports them.

Usage: python tools/tune_engine.py [--games 400] [--depth 2] [--seed 1] [--write]
Without --write the fitted weights are printed only. The run's figures go into the file's header.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

try:
    import numpy as np
except ImportError:  # an optional tool: numpy is not among the project's dependencies
    sys.exit("tune_engine needs numpy: .venv/bin/pip install 'bao-board[tune]'")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))

from bao import core, engine, evaluate  # noqa: E402
from bao.engine_weights import WEIGHTS  # noqa: E402

K = evaluate.COUNT


def self_play(rng: random.Random, eng: engine.Engine, depth: int, ruleset: str, opening: int,
              noise: float) -> tuple[list[list[int]], int | None]:
    """One game; returns the features of its quiet positions (stage appended, side to move appended) and
    the winner (None: no result within 300 plies)."""
    p = core.initial(ruleset)
    rows: list[list[int]] = []
    for ply in range(300):
        moves = core.legal_moves(p)
        w = core.outcome(p, moves)
        if w is not None:
            return rows, w
        if ply >= opening:
            leaf = quiet_leaf(p)
            if leaf is not None:
                rows.append(evaluate.features(leaf.d) + [leaf.d[core.TO_MOVE]])
        if ply < opening or rng.random() < noise:
            p = rng.choice(moves)[1]
        else:
            move = eng.search(p, depth=depth).move
            p = next(c for m, c in moves if m == move)
    return rows, None


def _capturing(p: core.Position) -> bool:
    d = p.d
    s = d[core.TO_MOVE]
    return bool(evaluate._captures(d, s << 4, (s ^ 1) << 4, d[32 + s] > 0))


def quiet_leaf(p: core.Position, longest: int = 6) -> core.Position | None:
    """The quiet position the capture sequence from p comes to, each side taking the capture that wins the
    most seeds (where the search's quiescence would call the evaluation); None if the game ends first."""
    for _ in range(longest):
        if core.outcome(p) is not None:
            return None
        if not _capturing(p):
            return p
        side = p.to_move
        moves = core.legal_moves(p)
        p = max(moves, key=lambda e: sum(e[1].d[(side << 4):(side << 4) + 16]))[1]
    return None if _capturing(p) or core.outcome(p) is not None else p


def fit(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 3000, rate: float = 0.5) -> np.ndarray:
    """Logistic regression by full-batch gradient descent on standardised features (no intercept: the
    evaluation is antisymmetric, a position and its mirror have opposite features and results)."""
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = x / scale
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-z @ w))
        w -= rate * (z.T @ (pred - y) / len(y) + l2 * w)
    return w / scale  # type: ignore[no-any-return]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.1, help="share of random moves")
    ap.add_argument("--l2", type=float, default=1e-2, help="ridge penalty on the standardised weights")
    ap.add_argument("--save", metavar="FILE.npz", help="keep the positions and results for later fits")
    ap.add_argument("--load", metavar="FILE.npz", help="fit the positions of an earlier run (no games)")
    ap.add_argument("--write", action="store_true", help="rewrite firmware/bao/engine_weights.py")
    args = ap.parse_args()
    if args.load:
        saved = np.load(args.load)
        report(saved["x"], saved["y"], int(saved["games"]), args, str(saved["how"]))
        return 0
    rng = random.Random(args.seed)
    eng = engine.Engine(tt_bits=14, weights=WEIGHTS)
    rows: list[list[float]] = []
    results: list[float] = []
    decided = 0
    t0 = time.monotonic()
    for g in range(args.games):
        ruleset = "malawi" if g % 4 == 3 else "zanzibar"
        feats, winner = self_play(rng, eng, args.depth, ruleset, rng.randint(2, 6), args.noise)
        if winner is None:
            continue
        decided += 1
        for f in feats:
            stage, side = f[K], f[K + 1]
            row = [0.0] * (2 * K)
            row[stage * K:(stage + 1) * K] = f[:K]
            rows.append(row)
            results.append(1.0 if winner == side else 0.0)
        if (g + 1) % 50 == 0:
            print(f"{g + 1} games, {len(rows)} positions, {time.monotonic() - t0:.0f} s", flush=True)
    x = np.array(rows)
    y = np.array(results)
    how = f"depth {args.depth}, {args.noise:.0%} random moves, seed {args.seed}"
    if args.save:
        np.savez(args.save, x=x, y=y, games=decided, how=how)
    report(x, y, decided, args, how)
    return 0


def report(x: np.ndarray, y: np.ndarray, decided: int, args: argparse.Namespace, how: str) -> None:
    w = fit(x, y, args.l2)
    seed_weight = w[K + evaluate.F_SEEDS]
    # A feature that never varies among quiet positions (a capture for the side to move) keeps its weight:
    # the search evaluates such positions only where the quiescence search is cut short.
    constant = x.std(axis=0) == 0
    weights = [WEIGHTS[i] if constant[i] else int(round(w[i] * 100 / seed_weight)) for i in range(2 * K)]
    print("fitted (centiseeds per unit):")
    for stage, name in ((0, "namua"), (1, "mtaji")):
        print(f"  {name}: " + ", ".join(f"{evaluate.NAMES[k]} {weights[stage * K + k]}" for k in range(K)))
    pred = 1.0 / (1.0 + np.exp(-x @ w))  # the fit's own predictions, before rounding
    accuracy = float(((pred > 0.5) == (y > 0.5)).mean())
    print(f"{decided} decided games, {len(y)} quiet positions, results predicted right: {accuracy:.1%}")
    if args.write:
        text = (
            "# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's\n"
            "# twelve, then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file\n"
            "# (docs/engine.md, Tuning).\n"
            f"# Fitted on {len(y)} quiet positions of {decided} self-play games ({how}),\n"
            f"# L2 {args.l2:g}, on {time.strftime('%Y-%m-%d')}; results predicted right: {accuracy:.1%}.\n"
            "WEIGHTS = (\n"
            f"    {', '.join(str(v) for v in weights[:K])},\n"
            f"    {', '.join(str(v) for v in weights[K:])},\n"
            ")\n")
        (ROOT / "firmware/bao/engine_weights.py").write_text(text)
        print("wrote firmware/bao/engine_weights.py")


if __name__ == "__main__":
    sys.exit(main())
