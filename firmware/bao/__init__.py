# The Bao rules core (Zanzibar after Donkers, Malawi basic game). Import the modules you need:
#   bao.core (positions, legal moves, the sowing engine), bao.notation (moves and transcripts),
#   bao.position_json (the JSON position format), bao.explain (accounts in words), bao.reasons.
# Nothing is imported here so that the board only loads what it uses.
RULES_VERSION = "1"
