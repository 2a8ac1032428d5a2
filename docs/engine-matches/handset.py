# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's twelve,
# then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file (docs/engine.md, Tuning).
# Source: hand-set (a seed is 100; being close to an empty front row costs seeds; a capture available to the
# side to move is worth most of its seeds, a threatened one less). Two fits by tools/tune_engine.py were tried
# and not adopted (docs/engine.md, Tuning): the first lost 14-26 to these weights at depth 3.
WEIGHTS = (
    100, 10, 15, -150, 5, 60, -40, 5, -5, 50, 5, -20,
    100, 15, 20, -250, 10, 60, -40, 5, -5, 0, 0, -30,
)
