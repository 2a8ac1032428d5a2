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

Usage: python tools/tune_engine.py [--games 400] [--depth 2] [--seed 1] [--save FILE.jsonl] [--write]
       python tools/tune_engine.py --load FILE.jsonl[,FILE2.jsonl] [--l2 0.01] [--write]
Without --write the fitted weights are printed only. The run's figures go into the file's header.
Self-play needs no numpy, so it can run under PyPy (`pypy3 tools/tune_engine.py --games N --save F --no-fit`,
about twice CPython's speed); the fit (numpy) then reads the games back with --load.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from bao import core, engine, evaluate
from bao.engine_weights import WEIGHTS

ROOT = Path(__file__).resolve().parent.parent


K = evaluate.COUNT


def self_play(
    rng: random.Random, eng: engine.Engine, depth: int, ruleset: str, opening: int, noise: float
) -> tuple[list[list[int]], int | None]:
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
    return bool(evaluate.captures(d, s << 4, (s ^ 1) << 4, d[32 + s] > 0))


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
        p = max(moves, key=lambda e: sum(e[1].counts()[(side << 4) : (side << 4) + 16]))[1]
    return None if _capturing(p) or core.outcome(p) is not None else p


def _numpy() -> Any:
    """numpy, an optional extra for the fit only (self-play runs without it, e.g. under PyPy)."""
    try:
        import numpy
    except ImportError:
        sys.exit("the fit needs numpy: .venv/bin/pip install 'bao-board[tune]' (self-play alone: --no-fit)")
    return numpy


def fit(x: np.ndarray, y: np.ndarray, l2: float, prior: np.ndarray, unit: float, iterations: int = 25) -> np.ndarray:
    """Logistic regression by Newton's method (no intercept: the evaluation is antisymmetric, a position and
    its mirror have opposite features and results). The L2 penalty, l2 / 2 per squared seed a weight moves,
    pulls the weights towards `prior` (the weights in use, in logits; `unit` logits are one seed): a
    feature rare in the games (a house, a takasia) keeps its weight unless the results say otherwise."""
    np = _numpy()
    n, k = x.shape
    w = prior.copy()
    ridge = l2 / (unit * unit)
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        grad = x.T @ (pred - y) / n + ridge * (w - prior)
        hess = (x.T * (pred * (1 - pred))) @ x / n + ridge * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return w  # type: ignore[no-any-return]


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    np = _numpy()
    pred = np.clip(1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50))), 1e-9, 1 - 1e-9)
    return float(-(y * np.log(pred) + (1 - y) * np.log(1 - pred)).mean())


def logistic_scale(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Texel's K: the c for which sigmoid(c * evaluation) predicts the results best (centiseeds -> logits)."""
    np = _numpy()
    return float(min(np.geomspace(1e-4, 1e-1, 300), key=lambda c: log_loss(x, y, c * weights)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.1, help="share of random moves")
    ap.add_argument(
        "--l2",
        type=float,
        default=0.0,
        help="the penalty per squared seed a weight moves from the "
        "one in use (default: the one of 1e-4 to 0.1 that best predicts the held-out games)",
    )
    ap.add_argument("--save", metavar="FILE.jsonl", help="append each game's positions and result (a line each)")
    ap.add_argument(
        "--load", metavar="FILE.jsonl", help="fit the games of earlier runs (comma-separated files, plain or .gz)"
    )
    ap.add_argument("--no-prior", action="store_true", help="L2 towards 0, not towards the weights in use")
    ap.add_argument("--no-fit", action="store_true", help="self-play only (with --save; no numpy needed)")
    ap.add_argument("--out", metavar="FILE.py", help="write the fitted weights here (a candidate to match)")
    ap.add_argument("--write", action="store_true", help="rewrite firmware/bao/engine_weights.py")
    args = ap.parse_args()
    if args.load:
        games = [json.loads(line) for name in args.load.split(",") for line in read_text(name).splitlines()]
        how = "; ".join(sorted({g["how"] for g in games}))
    else:
        games = play_games(args)
        how = games[0]["how"] if games else ""
    if not args.no_fit:
        report(games, args, how)
    return 0


def read_text(name: str) -> str:
    """A saved run, gzipped (.gz: how the fits' games are kept in the repository) or not."""
    if name.endswith(".gz"):
        with gzip.open(name, "rt") as f:
            return f.read()
    return Path(name).read_text()


def play_games(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Self-play; each decided game as {"rows": features + [stage, side to move], "winner", "how"}."""
    rng = random.Random(args.seed)
    eng = engine.Engine(tt_bits=14, weights=WEIGHTS)
    how = f"depth {args.depth}, {args.noise:.0%} random moves, seed {args.seed}"
    games = []
    t0 = time.monotonic()
    positions = 0
    for g in range(args.games):
        ruleset = "malawi" if g % 4 == 3 else "zanzibar"
        feats, winner = self_play(rng, eng, args.depth, ruleset, rng.randint(2, 6), args.noise)
        if winner is None:
            continue
        game = {"rows": feats, "winner": winner, "how": how}
        games.append(game)
        positions += len(feats)
        if args.save:
            with open(args.save, "a") as f:
                f.write(json.dumps(game) + "\n")
        if (g + 1) % 25 == 0:
            print(f"{g + 1} games, {positions} positions, {time.monotonic() - t0:.0f} s", flush=True)
    return games


def report(games: list[dict[str, Any]], args: argparse.Namespace, how: str) -> None:
    np = _numpy()
    rows: list[list[float]] = []
    results: list[float] = []
    for game in games:
        for f in game["rows"]:
            stage, side = f[K], f[K + 1]
            row = [0.0] * (2 * K)
            row[stage * K : (stage + 1) * K] = f[:K]
            rows.append(row)
            results.append(1.0 if game["winner"] == side else 0.0)
    x = np.array(rows)
    y = np.array(results)
    current = np.array(WEIGHTS, dtype=float)
    # The same fit on four games in five, judged on the fifth: does it predict games it has not seen? That
    # also picks the penalty, unless --l2 names one.
    game_of = np.array([i for i, game in enumerate(games) for _ in game["rows"]])
    test = game_of % 5 == 4
    c_train = logistic_scale(x[~test], y[~test], current)
    prior_train = np.zeros(2 * K) if args.no_prior else c_train * current
    held_out = {}
    for l2 in [args.l2] if args.l2 else [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1]:
        w_train = fit(x[~test], y[~test], l2, prior_train, 100 * c_train)
        held_out[l2] = log_loss(x[test], y[test], w_train)
    l2 = min(held_out, key=lambda v: held_out[v])
    args.l2 = l2
    held = (
        f"held-out fifth of the games: log loss {held_out[l2]:.4f} fitted, "
        f"{log_loss(x[test], y[test], c_train * current):.4f} the weights in use"
    )
    c = logistic_scale(x, y, current)
    w = fit(x, y, l2, np.zeros(2 * K) if args.no_prior else c * current, 100 * c)
    seed_weight = w[K + evaluate.F_SEEDS]
    # A feature that never varies among quiet positions (a capture for the side to move) keeps its weight in use:
    # the search evaluates such positions only where the quiescence search is cut short.
    constant = x.std(axis=0) == 0
    weights = [WEIGHTS[i] if constant[i] else int(round(w[i] * 100 / seed_weight)) for i in range(2 * K)]
    print("fitted (centiseeds per unit):")
    for stage, name in ((0, "namua"), (1, "mtaji")):
        print(f"  {name}: " + ", ".join(f"{evaluate.NAMES[k]} {weights[stage * K + k]}" for k in range(K)))
    accuracy = float((((x @ w) > 0) == (y > 0.5)).mean())
    loss = log_loss(x, y, w)
    print("held-out log loss by L2: " + ", ".join(f"{v:g} {held_out[v]:.4f}" for v in held_out))
    print(
        f"{len(games)} decided games, {len(y)} quiet positions, log loss {loss:.4f} (the weights in use "
        f"{log_loss(x, y, c * current):.4f}, 0.6931 knows nothing), results predicted right: {accuracy:.1%}; {held}"
    )
    text = (
        "# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's\n"
        "# twelve, then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file\n"
        "# (docs/engine.md, Tuning).\n"
        f"# Fitted on {len(y)} quiet positions of {len(games)} self-play games ({how}),\n"
        f"# L2 {args.l2:g}{'' if args.no_prior else ' towards the weights in use'}, on {time.strftime('%Y-%m-%d')};"
        f" log loss {loss:.4f} (the weights in use {log_loss(x, y, c * current):.4f}),\n"
        f"# results predicted right: {accuracy:.1%}; "
        f"{held}.\n"
        "WEIGHTS = (\n"
        f"    {', '.join(str(v) for v in weights[:K])},\n"
        f"    {', '.join(str(v) for v in weights[K:])},\n"
        ")\n"
    )
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")
    if args.write:
        (ROOT / "firmware/bao/engine_weights.py").write_text(text)
        print("wrote firmware/bao/engine_weights.py")


if __name__ == "__main__":
    sys.exit(main())
