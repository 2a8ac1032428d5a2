# A position and the rules it is played under. The rulesets the engine plays itself (Zanzibar, the basic
# Malawi game) are options of Rules; a ruleset with rules of its own (the Malawi kuu games, bao.malawi) is
# plugged in from above (plug): this module and the engine below the rulesets never import one.
from bao.errors import InvalidPositionError
from bao.layout import HOUSE, IN_HAND, MUST, NONE, NORTH, SIZE, SOUTH, STORE, TAKASIA, TO_MOVE, WINNER

try:  # for the annotations only (MicroPython has no typing; bao.protocols is a stub, no module at run time)
    from typing import Any

    from bao.protocols import Game, GameClass  # noqa: F401  (Game: read in a type comment)
except ImportError:
    pass

ZANZIBAR = "zanzibar"
MALAWI = "malawi"
MALAWI_INTERMEDIATE = "malawi-intermediate"  # M5: the kuu and the nemo stage
MALAWI_ADVANCED = "malawi-advanced"  # M5: the intermediate game after a free placement (M20-M22)
RULESETS = (ZANZIBAR, MALAWI, MALAWI_INTERMEDIATE, MALAWI_ADVANCED)  # the host's choices come from here
_PLUGGED = {}  # type: dict[str, GameClass]  # ruleset -> the class of its own rules (a Game): plug()


def plug(ruleset: str, game: "GameClass") -> None:
    """Hand a ruleset's own rules to the core: Rules(ruleset, **options) makes game(rules, options), kept
    as rules.kuu (bao.malawi.Game: the kuu games' options, placement and threatened pit)."""
    _PLUGGED[ruleset] = game


class Rules:
    """A ruleset and its named options (every choice the rulings leave open)."""

    def __init__(
        self,
        ruleset: str = ZANZIBAR,
        takasia: "bool | None" = None,
        house_stop_any_count: bool = False,
        mtaji_takasa_house_stop: bool = False,
        infinite: "str | None" = None,
        lone_kichwa: "str | None" = None,
        sow_bound: int = 10000,
        relay_limit: "int | None" = None,
        **more: object,
    ) -> None:
        if ruleset not in RULESETS:
            raise InvalidPositionError("unknown ruleset %r (%s)" % (str(ruleset)[:40], " or ".join(RULESETS)))
        malawi = ruleset != ZANZIBAR  # M1-M4 hold in every Malawi game
        game = _PLUGGED.get(ruleset)
        if game is None and ruleset in (MALAWI_INTERMEDIATE, MALAWI_ADVANCED):
            raise InvalidPositionError("ruleset %s is not plugged in (import bao.malawi)" % ruleset)
        self.ruleset = ruleset
        self.malawi = malawi
        # R8 / 4.1: the takasia rule (transcript header "takasia: yes|no"); the basic Malawi game has none
        # (M1); the kuu games' threatened pit (M18) is their takasia.
        allowed = not malawi or game is not None
        self.takasia = allowed if takasia is None else bool(takasia) and allowed
        # M5-M25: the kuu games' own rules (bao.malawi.Game, made from the options only it names), or None
        self.kuu = None  # type: Game | None
        if game is not None:
            self.kuu = game(self, more)
        elif more:
            raise TypeError("unknown rule option")
        # R5: a capture move may stop in the owned house only with 6+ seeds (ruling); True: any count.
        self.house_stop_any_count = bool(house_stop_any_count)
        # R5: a mtaji-stage takasa does not stop in a still-owned house (ruling, 3.2); True: it does.
        self.mtaji_takasa_house_stop = bool(mtaji_takasa_house_stop)
        # R10: never-ending moves are illegal (Zanzibar); M4: they sleep.
        self.infinite = infinite or ("sleep" if malawi else "illegal")
        # 2.4a/3.5b: a lone kichwa may not be sown towards the back row; M3: it may, and loses at once.
        self.lone_kichwa = lone_kichwa or ("loses" if malawi else "forbidden")
        # R10 (rule 1.5a's designated bound) and M4: a move that has dropped more than this many seeds since
        # it began is never-ending, so every move is decided in bounded time (a Pico's watchdog); 0: no
        # bound, exact cycle detection only (research). relay_limit, the bound's forerunner, is accepted
        # from older stored options and ignored.
        if not isinstance(sow_bound, int) or isinstance(sow_bound, bool) or sow_bound < 0:
            raise InvalidPositionError("option sow_bound must be a whole number of seeds >= 0 (0: no bound)")
        self.sow_bound = sow_bound
        if self.infinite not in ("illegal", "sleep"):
            raise InvalidPositionError("option infinite must be 'illegal' or 'sleep'")
        if self.lone_kichwa not in ("forbidden", "loses"):
            raise InvalidPositionError("option lone_kichwa must be 'forbidden' or 'loses'")

    def options(self) -> "dict[str, Any]":
        """The options that differ from the ruleset's defaults (what a position or header must carry)."""
        base = Rules(self.ruleset)
        out = {}  # type: dict[str, Any]
        for key in (
            "takasia",
            "house_stop_any_count",
            "mtaji_takasa_house_stop",
            "infinite",
            "lone_kichwa",
            "sow_bound",
        ):
            if getattr(self, key) != getattr(base, key):
                out[key] = getattr(self, key)
        if self.kuu is not None:
            self.kuu.options(out)
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self.ruleset == other.ruleset and self.options() == other.options()

    def __repr__(self) -> str:
        return "Rules(%r, %r)" % (self.ruleset, self.options())


_DEFAULT_RULES = {}  # type: dict[str, Rules]


def rules_for(ruleset: str) -> Rules:
    """A shared Rules object with the ruleset's defaults."""
    r = _DEFAULT_RULES.get(ruleset)
    if r is None:
        r = _DEFAULT_RULES[ruleset] = Rules(ruleset)
    return r


class Position:
    """A Bao position. `d` is the raw bytearray (bao.layout); use the accessors outside hot paths."""

    def __init__(self, d: "bytearray | None" = None, rules: "Rules | None" = None) -> None:
        if d is None:
            d = bytearray(SIZE)
            d[TAKASIA] = NONE
            d[WINNER] = NONE
            d[MUST] = NONE
        self.d = d
        self.rules = rules if rules is not None else rules_for(ZANZIBAR)  # (no truth test: Rules is a class)

    def copy(self) -> "Position":
        return Position(bytearray(self.d), self.rules)

    # Readable accessors
    @property
    def to_move(self) -> int:
        return self.d[TO_MOVE]

    @property
    def winner(self) -> "int | None":
        w = self.d[WINNER]
        return None if w == NONE else w

    @property
    def in_hand(self) -> int:
        return self.d[IN_HAND]

    @property
    def takasia(self) -> "int | None":
        """Global index of the side to move's takasia-ed pit, or None."""
        t = self.d[TAKASIA]
        return None if t == NONE else (self.d[TO_MOVE] << 4) + t

    def store(self, side: int) -> int:
        return self.d[STORE + side]

    def owns_house(self, side: int) -> bool:
        return bool(self.d[HOUSE] & (1 << side))

    def seeds(self, pit: int) -> int:
        return self.d[pit]

    def counts(self) -> "list[int]":
        """The seeds of pits 0..31, then South's and North's store: what a board shows."""
        return list(self.d[: STORE + 2])

    def in_namua(self, side: "int | None" = None) -> bool:
        """R2: a side is in the namua stage while its store is not empty."""
        return self.d[STORE + (self.d[TO_MOVE] if side is None else side)] > 0

    def key(self) -> bytes:
        """Hashable identity of the position (for transposition tables and equality)."""
        return bytes(self.d)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.d == other.d and self.rules == other.rules

    def __hash__(self) -> int:
        return hash(bytes(self.d))

    def __repr__(self) -> str:
        return "<Position %s to move>" % ("South" if self.d[TO_MOVE] == SOUTH else "North")


def initial(ruleset: str = ZANZIBAR, rules: "Rules | None" = None, first: int = SOUTH) -> Position:
    """The start position: R1 (Zanzibar), M1 (Malawi: 2 seeds everywhere; `first` chosen by lot) or the
    plugged-in ruleset's (M7: the kuu games; `first` by lot)."""
    rules = rules or rules_for(ruleset)
    p = Position(None, rules)
    d = p.d
    if rules.kuu is not None:
        rules.kuu.opening(d)
        d[TO_MOVE] = first
    elif rules.ruleset == MALAWI:
        for i in range(32):
            d[i] = 2
        d[TO_MOVE] = first
    else:
        for side in (SOUTH, NORTH):
            base = side << 4
            d[base + 4] = 6  # the nyumba, pit 5
            d[base + 5] = 2
            d[base + 6] = 2
            d[STORE + side] = 22
        d[HOUSE] = 3
        d[TO_MOVE] = SOUTH
    return p
