"""Puzzles (issue #28): positions where one move is clearly best, made from the game library and from engine
self-play (generate), kept as a documented JSON set (model, docs/puzzles.md), solved in the terminal, the
browser and on the board with a Glicko-2 rating per solver (glicko2, session)."""
