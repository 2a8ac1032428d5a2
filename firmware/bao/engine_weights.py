# The evaluation's weights (bao.evaluate), in centiseeds per unit of each feature: the namua stage's
# twelve, then the mtaji stage's. Data, not code: tools/tune_engine.py rewrites this file
# (docs/engine.md, Tuning).
# Fitted on 7845 quiet positions of 416 self-play games (depth 3, 10% random moves, seed 11),
# L2 0.0001 towards the hand-set weights, on 2026-11-24; log loss 0.4543 (hand-set 0.5010),
# results predicted right: 74.8%; held-out fifth of the games: log loss 0.4614 fitted, 0.5159 hand-set.
# Adopted after a match against the hand-set weights (docs/engine-matches/handset.py), both at 12,500
# nodes a move, 200 games from 4-ply random openings, colours swapped: +108 -92 =0, 54.0 %, Elo +28
# (95 % interval -20 to +76); docs/engine-matches/tuned-vs-handset-n12500.jsonl.
WEIGHTS = (
    44,
    -35,
    -1,
    -13,
    -19,
    60,
    -40,
    5,
    -5,
    29,
    13,
    -20,
    100,
    -70,
    -38,
    -7,
    -16,
    60,
    16,
    5,
    14,
    0,
    -13,
    -8,
)
