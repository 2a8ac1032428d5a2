# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's twelve,
# then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file (docs/engine.md, Tuning).
# Source: hand-set starting values (not yet tuned).
WEIGHTS = (
    100, 10, 15, -150, 5, 60, -40, 5, -5, 50, 5, -20,
    100, 15, 20, -250, 10, 60, -40, 5, -5, 0, 0, -30,
)
