# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's
# twelve, then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file
# (docs/engine.md, Tuning).
# Fitted on 7845 quiet positions of 416 self-play games (depth 3, 10% random moves, seed 11),
# L2 0.0001 towards the hand-set weights, on 2026-11-24; log loss 0.4543 (hand-set 0.5010),
# results predicted right: 74.8%; held-out fifth of the games: log loss 0.4614 fitted, 0.5159 hand-set.
WEIGHTS = (
    44, -35, -1, -13, -19, 60, -40, 5, -5, 29, 13, -20,
    100, -70, -38, -7, -16, 60, 16, 5, 14, 0, -13, -8,
)
