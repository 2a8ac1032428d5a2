# The board and a position as bytes, a move as bits, an account step as 4 bytes: declared here once, public,
# and read by every other module of the rules core (rulings G1-G6; shared/rulings.md).
#
# A position is one bytearray of SIZE bytes plus its Rules (bao.position). The Malawi kuu games (M5-M25)
# reuse the Zanzibar fields: store = nemo left, house = kuu status, takasia = the threatened pit of M18; they
# add MUST (M19) and PLACING (M22).
# Pits: index = side * 16 + ring, side 0 = South, 1 = North; ring 0..7 = front pits 1..8, ring 8..15 = back
# pits 8..1, so ring + 1 is one step clockwise (G5). A_i faces a_(9-i): ring r faces ring 7 - r (G3).
from bao.errors import NotationError

try:  # for the annotations only: bao.protocols is a stub, no module at run time (this import always fails)
    from bao.protocols import Account
except ImportError:
    pass

SOUTH = 0
NORTH = 1

# Position.d
STORE = 32  # 32: South's store, 33: North's (R2: a side is in the namua stage while its store holds seeds)
HOUSE = 34  # bit 0: South owns its house, bit 1: North (2.5; the kuu's status in the kuu games, M16)
TO_MOVE = 35
TAKASIA = 36  # ring of the side to move's takasia-ed front pit (4.1; M18's threatened pit), or NONE
WINNER = 37  # SOUTH, NORTH or NONE
IN_HAND = 38  # seeds still in hand when a move ended the game half-way (1.2, R9)
MUST = 39  # M19: ring of the opponent's front pit the side to move must capture first, or NONE
PLACING = 40  # M22: seeds the side to move still has to place (advanced placement)
SIZE = 41
NONE = 255
HOUSE_RING = 4  # the nyumba (G4) and the kuu (M6): front pit 5

# A move is a small int: ring | RIGHT (the direction letter is R) | PLAY (plays the house, 2.5b). legal_moves
# adds descriptive bits: TAKASA, MAKES_TAKASIA, NAMUA (played in the namua stage). A drop of the advanced
# placement (M22) is ring | take << 4 (take: 0, or 1..3 = which of the mover's occupied front pits faces the
# pit he takes, M21) with the descriptive bits DROP and the taken pit's ring + 1 above TAKE_SHIFT: only one
# kind of move is legal in a position, so identities stay within 6 bits (the engine's tables).
RING = 15
RIGHT = 16
PLAY = 32
IDENTITY = 63
TAKASA = 64  # not a capture move
MAKES_TAKASIA = 128
NAMUA = 256  # played in the namua stage (store seed first)
DROP = 512  # a placement drop (M22)
TAKE_SHIFT = 10  # drops: (taken ring + 1) << TAKE_SHIFT when the drop takes a pit first (M21)

# Account steps. A move's account is recorded compactly, 4 bytes a step, in a bytearray the caller passes
# (nothing allocated per step): kind | mark, pit, a, b (a & 255: a direction -1 is 255). bao.explain.steps
# expands it into the tuples below (pits are global indices).
STEP_STORE = 1  # (STEP_STORE, pit): a seed from the store into pit (2.2)
STEP_LIFT = 2  # (STEP_LIFT, pit, n): the move lifts n seeds from pit
STEP_TAX = 3  # (STEP_TAX, pit, 2): two seeds taken out of the lone house (2.4b)
STEP_SOW = 4  # (STEP_SOW, first_pit, direction, n): n seeds, one per pit from first_pit on
STEP_CAPTURE = 5  # (STEP_CAPTURE, captured_pit, n, kichwa_pit, direction) (1.4); the bytes omit the
# direction: it is +1 from the left kichwa (ring 0), -1 from the right one (ring 7)
STEP_RELAY = 6  # (STEP_RELAY, pit, n): endelea, lift n seeds and sow on (1.6)
STEP_HOUSE = 7  # (STEP_HOUSE, pit, played): the house decision (2.5b)
STEP_END = 8  # (STEP_END, pit, reason)
# In the kuu games a step may carry a mark in the high nibble of its kind byte (as a tuple, one more item):
# MARK_KUU, a step of the kuu rules (bao.explain names the ruling), or the Malawi rule it follows; the
# board's recogniser reads the same kinds. The placement (M20-M22) is told with the same kinds: STEP_LIFT
# of the pits gathered (and of the pit taken), STEP_STORE of the nemo as the first seed placed, STEP_SOW
# of one seed per later drop.
MARK_KUU = 16
MARK_M20 = 32
MARK_M21 = 48
MARK_M22 = 64
MARKS = ("", "kuu", "M20", "M21", "M22")  # a mark's name, by mark >> 4

# Why a move ended (STEP_END reasons, and the low bits of a move's status)
END_EMPTY = 0  # last seed into an empty pit (1.5)
END_HOUSE = 1  # namua takasa ends in the owned house with 6+ seeds (2.5b(1))
END_HOUSE_STOP = 2  # capture move stops in the owned house: the player's choice (2.5b(2), R5)
END_TAKASIA = 3  # sowing ended in the takasia-ed pit (4.1b)
END_OWN_FRONT_EMPTY = 4  # the mover's front row emptied half-way: the mover loses (1.2, R9)
END_OPP_FRONT_EMPTY = 5  # a capture emptied the opponent's front row: the mover wins (1.2, R9)
END_SLEEP = 6  # a never-ending move sleeps (M4)
END_INFINITE = 7  # a never-ending move: illegal (1.5a, R10)
END_MASK = 15
CAPTURING = 16  # status: a capture move
DECISION = 32  # status: the move reached a house decision and stopped
BOUNDED = 64  # status: never-ending by the bound on seeds sown (R10, M4), not by a repeated state


def pit_name(pit: int) -> str:
    """Global pit index -> "A1".."B8" (South) / "a1".."b8" (North) (G1, G2)."""
    side, ring = pit >> 4, pit & 15
    if ring < 8:
        return ("A" if side == SOUTH else "a") + str(ring + 1)
    return ("B" if side == SOUTH else "b") + str(16 - ring)


def pit_index(name: str) -> int:
    """ "A1".."b8" -> global pit index; raises NotationError."""
    if len(name) != 2 or name[0] not in "ABab" or name[1] not in "12345678":
        raise NotationError("not a pit name: %r (A1..A8, B1..B8, a1..a8, b1..b8)" % (name,))
    side = SOUTH if name[0] in "AB" else NORTH
    k = int(name[1])
    ring = k - 1 if name[0] in "Aa" else 16 - k
    return (side << 4) + ring


def ring_direction(ring: int, right: int) -> int:
    """G6: the letter R moves towards pit 8 on either row: +1 (clockwise) on the front row, -1 behind."""
    if ring < 8:
        return 1 if right else -1
    return -1 if right else 1


def front_empty(d: bytearray, base: int) -> bool:
    """Whether the front row of the side whose pits start at base is empty (1.2, R9)."""
    for i in range(base, base + 8):
        if d[i]:
            return False
    return True


def write_step(rec: "Account", kind: int, pit: int, a: int, b: int) -> None:
    """One step of an account (4 bytes: no object allocated; the bytearray grows in place)."""
    rec.append(kind)
    rec.append(pit)
    rec.append(a & 255)
    rec.append(b)
