# The rules core's public face: what the board and the host use of the rules, from the layers below, and
# the rulesets plugged in. Bottom up (each module imports only those above it in this list):
#   errors, layout     the errors; the board and a position as bytes, a move as bits, an account's steps
#   position           Rules (a ruleset and its options; plug) and Position
#   sowing             the sowing engine: one move played in place, with its account (R10/M4's watch)
#   rules              legal moves, play, the takasia a move makes (R8), never-ending moves, the outcome
#   malawi             the Malawi kuu games' own rules, plugged in here (a Game, M5-M25)
#   movetext           writing a move (G7)
#   core               this module
# and on top of it: notation (reading moves, transcripts), position_json (the JSON position format),
# explain (an account in words), kuu (the kuu games' host side), reasons (why a move is illegal), query
# (perft, accounts, the seed count), evaluate and engine (the search).
# Rule numbers: Donkers "Zanzibar Bao rules for the computer" (1.x-4.x), project rulings (G*, R*, M*:
# shared/rulings.md).
from bao import malawi
from bao.errors import BaoError, IllegalMoveError, InvalidPositionError, NotationError
from bao.layout import (
    BOUNDED,
    CAPTURING,
    DECISION,
    DROP,
    END_EMPTY,
    END_HOUSE,
    END_HOUSE_STOP,
    END_INFINITE,
    END_MASK,
    END_OPP_FRONT_EMPTY,
    END_OWN_FRONT_EMPTY,
    END_SLEEP,
    END_TAKASIA,
    HOUSE,
    IDENTITY,
    IN_HAND,
    MAKES_TAKASIA,
    MUST,
    NAMUA,
    NONE,
    NORTH,
    PLACING,
    PLAY,
    RIGHT,
    RING,
    SIZE,
    SOUTH,
    STEP_CAPTURE,
    STEP_END,
    STEP_HOUSE,
    STEP_LIFT,
    STEP_RELAY,
    STEP_SOW,
    STEP_STORE,
    STEP_TAX,
    STORE,
    TAKASA,
    TAKASIA,
    TAKE_SHIFT,
    TO_MOVE,
    WINNER,
    pit_index,
    pit_name,
    ring_direction,
)
from bao.movetext import DIALECTS, DONKERS, KIBA, format_move
from bao.position import (
    MALAWI,
    MALAWI_ADVANCED,
    MALAWI_INTERMEDIATE,
    RULESETS,
    ZANZIBAR,
    Position,
    Rules,
    initial,
    plug,
    rules_for,
)
from bao.rules import is_game_over, legal_move_codes, legal_moves, outcome, play, play_raw

# M5: the kuu games, intermediate (the kuu and the nemo stage) and advanced (after a free placement)
plug(MALAWI_INTERMEDIATE, malawi.Game)
plug(MALAWI_ADVANCED, malawi.Game)

__all__ = [
    "BOUNDED", "CAPTURING", "DECISION", "DIALECTS", "DONKERS", "DROP", "END_EMPTY", "END_HOUSE", "END_HOUSE_STOP",
    "END_INFINITE", "END_MASK", "END_OPP_FRONT_EMPTY", "END_OWN_FRONT_EMPTY", "END_SLEEP", "END_TAKASIA", "HOUSE",
    "IDENTITY", "IN_HAND", "KIBA", "MAKES_TAKASIA", "MALAWI", "MALAWI_ADVANCED", "MALAWI_INTERMEDIATE", "MUST",
    "NAMUA", "NONE", "NORTH", "PLACING", "PLAY", "RIGHT", "RING", "RULESETS", "SIZE", "SOUTH", "STEP_CAPTURE",
    "STEP_END", "STEP_HOUSE", "STEP_LIFT", "STEP_RELAY", "STEP_SOW", "STEP_STORE", "STEP_TAX", "STORE", "TAKASA",
    "TAKASIA", "TAKE_SHIFT", "TO_MOVE", "WINNER", "ZANZIBAR", "BaoError", "IllegalMoveError", "InvalidPositionError",
    "NotationError", "Position", "Rules", "format_move", "initial", "is_game_over", "legal_move_codes",
    "legal_moves", "outcome", "pit_index", "pit_name", "play", "play_raw", "plug", "ring_direction", "rules_for",
]
