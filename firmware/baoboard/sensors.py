# The board living with its broken sensors (issue #14; docs/leds.md, "Broken sensors"): a rare job, loaded by
# App.rare("fault", ...) only when there is work and dropped after (not in RAM during play). The debouncer
# (baoboard.debounce) judges each pit as it reads it; this module reports what it found, finds a 74HC165 that
# senses nothing at all (its byte of the chain stuck at 0, from power-up or from the middle of a game: only
# moves show it), and plays on without them:
#   fault(app, now, pit=-1) -> bool   report the new faults (ERROR events), take the steps in ignored pits as
#                                     made; pit: a touch refused mid-move or at a move's first touch, evidence of
#                                     a silent chip or a dead input (mid-sowing, start or last pit) and where
#                                     the move went on
try:  # for the annotations only
    from typing import Any  # noqa: F401

    from baoboard.app import App
except ImportError:
    pass

import json

from bao.layout import TO_MOVE, pit_name

from baoboard import recogniser as R
from baoboard.compat import const

# as in baoboard.debounce: kind[pit]
_STUCK = const(1)
_SAID = const(4)
_SILENT = const(8)
_SEEN = const(64)  # kind[64 + b]: pits that made an activation (since their chip's last evidence, below)
_EVIDENCE = const(68)  # kind[68 + chip]: touches of this move where it went on past the chip's pits, none sensed
_SILENT_AFTER = const(2)  # ... this many: the chip senses nothing (one is a player's slip; time alone is none)
_LAST = const(72)  # kind[72]: the chip + 1 the last refused touch gave evidence against (Debouncer.taken_back)
_ONE = const(255)  # ... a dead input's (kind[73])
_DEAD = const(73)  # kind[73]: the pit + 1 suspected of a dead input, kind[74]: its evidence in this move
_PAIR = const(75)  # kind[75]: the other pit + 1 when two explain the evidence alike, kind[76]: the touch + 1
_AT = const(76)  # ... that gave it between moves (its move is taken again from it: _resolve)
_DEAD_MARK = const(64)  # kind[32 + pit] of a dead input: this + the pit (a silent chip's pits: the chip + 1)


def fault(a: "App", now: int, pit: int = -1, began: bool = False) -> bool:
    """Report each pit the debouncer found faulty (an ERROR event naming the pit and its chip; one event for
    a whole chip stuck or silent), then go on without the faulty pits: drops into them, and lifts the rules
    require there, are taken as made (the rules know where each seed goes; a move from an ignored
    start pit is taken from its first sensed touch: Recogniser._first, _restart). pit: a touch the
    recogniser refused in the middle of a move or at its first touch (baoboard.app): evidence of a silent
    chip or a dead input (where the move goes on after steps at them); True when it is where one candidate
    goes on after steps in ignored pits (those taken as made, then it), or a move from a dead start pit.
    began: pit was taken as a move's start while two start pits were suspect (_resolve)."""
    wiring = getattr(a.hw, "pit_sensor_bit", None)  # type: Any
    if wiring is None:  # (the simulated board: the reference wiring)
        from baoboard.drivers.board_config import PIT_SENSOR_BIT as wiring
    at = -1
    if began:
        at = _resolve(a, pit)
        if at < 0:
            return False
    elif pit >= 0:
        _weigh(a, wiring, pit)
    for i in range(32):
        _report(a, wiring, i)
    a.dirty = True
    if at >= 0:  # the move taken from the working one of two start pits: taken again from the refused touch
        a.boundary(a.p, now)
        a.activation(at, now)
        a.activation(pit, now)
    elif pit >= 0 and not (_skip_to(a, pit, now) or _restart(a, pit, now) or _stop_for(a, pit, now)):
        return False
    _follow(a, now)
    return pit >= 0


def _weigh(a: "App", wiring: "Any", pit: int) -> None:
    """A touch refused mid-move. A silent chip? A candidate of the move waits for steps in the pits of a chip
    that sensed no touch in this move, and pit is where that move goes on after them (the next move's side,
    when they end it): evidence, unless another chip would explain the touch as well. The second evidence
    for a chip with no activation of its pits since the first marks its pits _SILENT. A slow player makes
    no such touch; a slip makes one, and the touch that mends it is an activation (a touch taken back at
    once, the seed out of the pit again, withdraws its evidence: Debouncer.taken_back)."""
    kind = a.deb.kind
    kind[_LAST] = 0
    f = a.deb.faulty
    rec = a.rec
    side = a.p.d[TO_MOVE]
    suspect = -1
    for i in range(rec.n):
        seq = rec.c_seq[i]
        j = start = rec.c_pos[i]
        if j >= len(seq):
            continue
        chip = wiring[seq[j] & R.PIT] >> 3
        while j < len(seq) and wiring[seq[j] & R.PIT] >> 3 == chip:
            j += 1
        if (
            not ((seq[j] & R.PIT == pit) if j < len(seq) else (pit >> 4 != side))
            or _steps_at(seq, start, j, seq[start] & R.PIT)  # (one pit: one dead input explains it)
            or wiring[pit] >> 3 == chip
            or _chip_stepped(wiring, seq, start, chip)
        ):
            continue  # (no evidence; or the chip sensed a touch: this one, or one in this very move)
        if suspect >= 0 and suspect != chip:
            suspect = -2  # two chips would explain it: no evidence for either
            break
        suspect = chip
        first = seq[start] & R.PIT
    same = [x for x in range(32) if wiring[x] >> 3 == suspect]
    # (a pit of it found dead may be the first the silent chip showed: no bar to the chip's evidence)
    if suspect < 0 or any(kind[x] and not (kind[x] & _SILENT and kind[32 + x] >= _DEAD_MARK) for x in same):
        _weigh_pit(a, pit)  # (no chip to blame: one input of a working chip?)
        return
    if _start_too(a, pit, first):
        return
    if any(kind[_SEEN + (x >> 3)] & (1 << (x & 7)) for x in same):  # it sensed a touch since
        kind[_EVIDENCE + suspect] = 0
        for x in same:
            kind[_SEEN + (x >> 3)] &= ~(1 << (x & 7))
    kind[_EVIDENCE + suspect] += 1
    kind[_LAST] = suspect + 1
    if kind[_EVIDENCE + suspect] >= _SILENT_AFTER:
        for x in same:
            kind[x] = _SILENT
            kind[32 + x] = suspect + 1
            f[x >> 3] |= 1 << (x & 7)


def _start_too(a: "App", pit: int, first: int) -> bool:
    """A chip's evidence that a dead start pit X explains as well (its move's touches, X's own left out):
    no evidence for the chip; one against X or the chip's first pit, `first` (named in the refusal when it
    stays two: _suspect). False when no start pit fits."""
    n, x, y = _fit(a, pit, False)
    if n < 0 or x == -1:
        return False
    if x >= 0 and y < 0 and not a.deb.kind[x] and not a.deb.kind[first]:
        _suspect(a, x, first, -1)
    return True


def _weigh_pit(a: "App", pit: int) -> None:
    """A touch refused mid-move, no chip to blame. A dead input (one pit of a working chip that senses
    nothing)? Each candidate of the move that pit fits waits for a step at the same pit X, untouched in this
    move, and pit is where it goes on right after X: evidence against X. Else, at a move's end, the other
    side's touch while the move waits only for steps at X (_last_fit); at its start, a touch only a move from
    X explains, X's own steps left out (_start_fit).
    The second in one move, with no activation of X since the first and the first not taken back, marks X
    dead: a slip onto the next pit is mended by touching X (an activation) or taken back (at once; between
    moves however late; a take-back after a look mid-move says nothing: Recogniser._wrong), and the evidence
    of a move made to its end is forgotten (Debouncer.new_move): clumsy play does not add up."""
    kind = a.deb.kind
    rec = a.rec
    x = -1
    for i in range(rec.n):
        seq = rec.c_seq[i]
        j = rec.c_pos[i]
        if j >= len(seq):
            continue
        e = seq[j] & R.PIT
        k = j + 1
        while k < len(seq) and seq[k] & R.PIT == e:  # (X's steps: a drop and a relay's lift there, 1.3)
            k += 1
        if k >= len(seq) or seq[k] & R.PIT != pit or e == pit:
            continue
        if (x >= 0 and x != e) or _a_step_at(seq, j, e):
            return  # (two pits would explain it, or X sensed a touch in this very move)
        x = e
    if x < 0:
        x = _last_fit(a, pit)
    y = -1
    n = s = t = -1
    if x != -2:  # (a dead start pit may explain the touches too: two pits would, each a suspect)
        n, s, t = _fit(a, pit, False)
    if n >= 0:
        if x == -1:
            x = s
            y = t
        elif s == -2 or t >= 0:
            y = -2  # (three pits would explain it)
        elif s >= 0 and s != x:
            y = s
    if x < 0 or y == -2 or kind[x] or y >= 0 and kind[y]:
        return
    _suspect(a, x, y, pit if n == 0 else -1)


def _suspect(a: "App", x: int, y: int, at: int) -> None:
    """Evidence against pit X (y < 0), or against one of X and Y, two pits that explain the touch alike (a
    touch between two start pits; the touches of a whole move from a dead start pit, or the last drop of
    another in a dead pit). Evidence adds up only for a pit that every touch of it explains, and that sensed
    no touch since the first: of two, the one that sensed a touch works and the other is left. The second
    in one move marks a single suspect dead; two left after two are named in the refusal (the board cannot
    tell which: the player's next touch may, _resolve). at: the touch, when it came between moves."""
    kind = a.deb.kind
    s1 = kind[_DEAD] - 1
    s2 = kind[_PAIR] - 1
    s1 = -1 if s1 < 0 or _seen(kind, s1) else s1
    s2 = -1 if s2 < 0 or _seen(kind, s2) else s2
    k1 = x if x == s1 or x == s2 else -1
    k2 = y if y >= 0 and (y == s1 or y == s2) else -1
    if k1 < 0 and k2 < 0:  # a new suspect, or two
        kind[_DEAD + 1] = 0
        k1 = x
        k2 = y
        for z in (x, y):
            if z >= 0:
                kind[_SEEN + (z >> 3)] &= ~(1 << (z & 7))
    elif k1 < 0:
        k1 = k2
        k2 = -1
    kind[_DEAD] = k1 + 1
    kind[_PAIR] = k2 + 1
    kind[_AT] = at + 1 if k2 >= 0 else 0
    kind[_DEAD + 1] += 1
    kind[_LAST] = _ONE
    if kind[_DEAD + 1] < _SILENT_AFTER:
        return
    if k2 < 0:
        _mark_dead(a, k1)
        return
    rec = a.rec  # (said: the player sees why the touch is refused, and which pits to look at)
    rec.wrong_rule = ""
    rec.wrong_reason = "%s or %s senses nothing, or a slip: the board cannot tell which" % (
        pit_name(k1),
        pit_name(k2),
    )


def _seen(kind: "Any", z: int) -> int:
    """Pit z made an activation since it became a suspect."""
    return kind[_SEEN + (z >> 3)] & (1 << (z & 7))


def _resolve(a: "App", pit: int) -> int:
    """pit, taken as a move's first touch, is one of two start pits that explained a touch refused between
    moves twice (_suspect), or once right before pit (Recogniser._kept: a person sowing on from the pink pit
    makes no second refused touch there): it works, so the other is dead; it is marked, and the refused touch
    returned (the move is taken again from it: fault). -1 when there is no such pair."""
    kind = a.deb.kind
    x = kind[_DEAD] - 1
    y = kind[_PAIR] - 1
    at = kind[_AT] - 1
    if at < 0 or y < 0 or a.rec.steps != 1 or pit != x and pit != y:
        return -1
    n = kind[_DEAD + 1]
    if a.rec.touched[1] == at:  # (pit at a hand's pace after the refused touch: the second of its move)
        n += 1
    if n < _SILENT_AFTER:
        return -1
    dead = y if pit == x else x
    if _seen(kind, dead) or kind[dead] or not _goes(a, dead, at, pit):
        return -1
    _mark_dead(a, dead)
    return at


def _goes(a: "App", x: int, at: int, pit: int) -> bool:
    """A legal move from x shows first at `at`, then at pit, x's own steps left out: the player's touches
    are a move from a dead x, not a slip and then a move of pit's."""
    rec = a.rec
    seq = R.Sequence()
    for m in rec.codes:
        if rec.first_pit(m) != x:
            continue
        b = R.sequence(rec.p, m, seq)
        j = 0
        while j < len(b) and b[j] & R.PIT == x:
            j += 1
        if j + 1 < len(b) and b[j] & R.PIT == at and b[j + 1] & R.PIT == pit:
            return True
    return False


def _mark_dead(a: "App", x: int) -> None:
    """Pit x is dead: ignored from now on (reported by fault)."""
    kind = a.deb.kind
    kind[x] = _SILENT
    kind[32 + x] = _DEAD_MARK + x
    a.deb.faulty[x >> 3] |= 1 << (x & 7)
    kind[_DEAD] = kind[_DEAD + 1] = kind[_PAIR] = kind[_AT] = 0


def _history(a: "App") -> int:
    """How many touches this move has taken (Recogniser.touched holds them): a dead start pit's move is taken
    for the move of the pit sown next when that pit starts one too, and goes on while their paths agree.
    Between moves, 1 when the touch refused before this one was not taken back (Recogniser._wrong keeps it:
    a person whose start pit is dead sows on past the pink pit), else 0. -1 when the recogniser kept too few
    of them or in a house decision."""
    rec = a.rec
    if rec.phase == R.IDLE:
        return 1 if rec.touched[0] < 32 else 0
    n = rec.steps
    return n if rec.phase == R.MOVING and n <= len(rec.touched) else -1


def _fit(a: "App", pit: int, dead: bool) -> "tuple":
    """_start_fit of the move's touches (_history) and pit: (n, X, Y), n the touches it read (-1: none kept).
    Between moves, when the touch refused before and pit fit no move, pit alone: that touch was a slip."""
    n = _history(a)
    if n < 0:
        return n, -1, -1
    x, y = _start_fit(a, n, pit, dead)
    if x == -1 and n == 1 and a.rec.phase == R.IDLE:
        n = 0
        x, y = _start_fit(a, 0, pit, dead)
    return n, x, y


def _start_fit(a: "App", n: int, pit: int, dead: bool) -> "tuple":
    """The start pits X of the legal moves whose touches, those at X at their start left out, begin with the
    move's n touches (Recogniser.touched, read by index), then pit; or are those touches alone, the whole
    move, and pit is the other side's (the next move's): the touches a move from X makes when X senses
    nothing. (X, -1); (X, Y) when two pits fit; (-1, -1) if none, (-2, -1) if more.
    dead: X among the pits found dead (a move from one: App's restart), else among the sound ones (evidence).
    Between moves only a touch of the mover's own side: the other side's says nothing of a start (a slip,
    an early hand)."""
    rec = a.rec
    kind = a.deb.kind
    hist = rec.touched
    side = a.p.d[TO_MOVE]
    if not n and pit >> 4 != side:
        return -1, -1
    x = y = -1
    seq = None  # type: Any
    first = hist[0] if n else pit  # the first touch after X's own steps: a neighbour of X on the ring (a
    cap = first >> 4 != side  # sowing), or the other side's pit (a capture, 1.4a); no other X is built (a
    for m in rec.codes:  # never-ending move's sequence is long)
        s = rec.first_pit(m)
        if s == x or s == y or s == pit or _in(hist, n, s) or (kind[s] & _SILENT != 0) != dead:
            continue
        if not dead and kind[s] or not cap and (first - s) & 15 not in (1, 15):
            continue
        if seq is None:
            seq = R.Sequence()
        b = R.sequence(rec.p, m, seq)
        j = 0
        while j < len(b) and b[j] & R.PIT == s:
            j += 1
        if j + n > len(b) or not _agrees(b, j, hist, n):
            continue
        if (b[j + n] & R.PIT != pit) if j + n < len(b) else (not n or pit >> 4 == side):
            continue
        if y >= 0:
            return -2, -1  # (three pits would explain it: no evidence for any)
        if x >= 0:
            y = s
        else:
            x = s
    return x, y


def _in(hist: "Any", n: int, e: int) -> bool:
    """e is among the first n touches."""
    for k in range(n):
        if hist[k] == e:
            return True
    return False


def _agrees(b: "Any", j: int, hist: "Any", n: int) -> bool:
    """The steps of b from j on are the n touches."""
    for k in range(n):
        if b[j + k] & R.PIT != hist[k]:
            return False
    return True


# A candidate's steps are read by index, never sliced: a never-ending move's steps are many, and these run
# on a touch in play (a slice would be a copy of them on the heap).
def _steps_at(seq: "Any", lo: int, hi: int, e: int) -> bool:
    """Every step of seq[lo:hi] is at pit e."""
    for k in range(lo, hi):
        if seq[k] & R.PIT != e:
            return False
    return True


def _a_step_at(seq: "Any", hi: int, e: int) -> bool:
    """A step of seq[:hi] is at pit e."""
    for k in range(hi):
        if seq[k] & R.PIT == e:
            return True
    return False


def _chip_stepped(wiring: "Any", seq: "Any", hi: int, chip: int) -> bool:
    """A step of seq[:hi] is at a pit of chip."""
    for k in range(hi):
        if wiring[seq[k] & R.PIT] >> 3 == chip:
            return True
    return False


def _last_fit(a: "App", pit: int) -> int:
    """The other side's touch while the move waits only for steps at one pit X (its last drop, or a lift
    there), untouched in this move: a dead X would leave the move there (the next move's hand goes on).
    X, or -1 (-2: two pits)."""
    rec = a.rec
    if rec.phase != R.MOVING or pit >> 4 == a.p.d[TO_MOVE]:
        return -1
    seen = a.deb.kind
    x = -1
    for i in range(rec.n):
        seq = rec.c_seq[i]
        j = rec.c_pos[i]
        if j >= len(seq):
            continue
        e = seq[j] & R.PIT
        if not _steps_at(seq, j, len(seq), e) or _a_step_at(seq, j, e):
            continue
        if x >= 0 and x != e:  # two moves that end at different pits (a kichwa's two sides, 1.4a): a pit
            # that sensed a touch since its last evidence works; the other, if it never did, is the suspect
            ux = not seen[_SEEN + (x >> 3)] & (1 << (x & 7))
            if ux == (not seen[_SEEN + (e >> 3)] & (1 << (e & 7))):
                return -2
            x = x if ux else e
            continue
        x = e
    return x


def _restart(a: "App", pit: int, now: int) -> bool:
    """A move from a pit found dead, its first sensed touches the move's (Recogniser.touched) + pit: the move
    they began is dropped and they are taken again, the dead start pit's moves among their candidates
    (Recogniser._first); when they were its whole move, pit (the other side's) begins the next."""
    n, x, _ = _fit(a, pit, True)
    if n < 0 or x < 0:
        return False
    hist = a.rec.touched[:n]  # (a copy: the first is taken with the touch kept before it, Recogniser._kept)
    a.boundary(a.p, now)
    for k in range(n):
        a.activation(hist[k], now)
    a.activation(pit, now)
    return True


def _stop_for(a: "App", pit: int, now: int) -> bool:
    """A house decision (2.5b) and a touch of the mover's side: the stop, when pit is the first sensed touch
    of a move of the other side from its ignored start pit (a namua capture from it lifts the mover's pit
    first, 1.4a); then that move goes on from pit (Recogniser._first). False: nothing done."""
    rec = a.rec
    if rec.phase != R.DECISION or pit >> 4 != a.p.d[TO_MOVE]:
        return False
    f = a.deb.faulty
    done = -1
    for i in range(rec.n):
        if rec.c_pos[i] == len(rec.c_seq[i]):
            done = i
    if done < 0 or not f[2 * (1 - a.p.d[TO_MOVE])] | f[3 - 2 * a.p.d[TO_MOVE]]:
        return False
    from bao.rules import legal_move_codes, play

    child = play(rec.p, rec.c_move[done])
    seq = R.Sequence()
    for m in legal_move_codes(child):
        b = R.sequence(child, m, seq)
        s = b[0] & R.PIT
        if not f[s >> 3] & (1 << (s & 7)):
            continue
        j = 0
        while j < len(b) and b[j] & R.PIT == s:
            j += 1
        if j < len(b) and b[j] & R.PIT == pit:
            rec.decide_stop()
            a.commit(rec.done_move, rec.done_child, now)  # type: ignore[arg-type]  # (R_DONE: the child is set)
            a.activation(pit, now)
            return True
    return False


def _report(a: "App", wiring: "Any", i: int) -> None:
    """An ERROR event for pit i's new fault (one for a whole chip stuck or silent), once."""
    kind = a.deb.kind
    k = kind[i]
    if not k or k & _SAID:
        return
    bit = wiring[i]
    same = [j for j in range(32) if wiring[j] >> 3 == bit >> 3]
    if k & _SILENT and kind[32 + i] < _DEAD_MARK or all(kind[j] & _STUCK for j in same):  # the whole chip: one
        # report for its eight pits
        for j in same:
            kind[j] |= _SAID
        names = json.dumps([pit_name(j) for j in same])
        text = (
            '{"code": "sensor", "fault": "%s", "chip": "U%d", "pits": %s, "msg": "74HC165 U%d %s: the '
            'chip, its ribbon or its supply; its pits are ignored, steps in them taken as made"}'
            % (
                "silent" if k & _SILENT else "chip",
                (bit >> 3) + 1,
                names,
                (bit >> 3) + 1,
                "has sensed no touch while a move went on past its pits, twice"
                if k & _SILENT
                else "reads all 8 inputs active for 20 s",
            )
        )
    else:
        kind[i] |= _SAID
        name = pit_name(i)
        text = (
            '{"code": "sensor", "fault": "%s", "pit": "%s", "chip": "U%d", "input": "D%d", "msg": "%s '
            '(74HC165 U%d input D%d) %s; drops into it are taken as made"}'
            % (
                "stuck" if k & _STUCK else "dead" if k & _SILENT else "flicker",
                name,
                (bit >> 3) + 1,
                bit & 7,
                name,
                (bit >> 3) + 1,
                bit & 7,
                "has sensed a hand for 20 s: a stuck sensor, or one touched at power-up "
                "(hardware/README.md); ignored until it reads idle for 2 s"
                if k & _STUCK
                else "has sensed no touch while a move went on past it, twice: a dead sensor or input; "
                "ignored until it senses a touch"
                if k & _SILENT
                else "switches far faster than a hand can: a loose wire or a failing sensor; ignored until a restart",
            )
        )
    a.outbox.post("ERROR", text)


def _skip_to(a: "App", pit: int, now: int) -> bool:
    """The steps in ignored pits that one candidate takes before pit (or before the next move, pit being the
    other side's touch): taken as made, then pit; False (nothing done) when no candidate, or two, would."""
    f = a.deb.faulty
    rec = a.rec
    side = a.p.d[TO_MOVE]
    skip = None  # type: Any  # the candidate's steps skip[lo:hi], read by index (no copy of them)
    lo = hi = 0
    for i in range(rec.n):
        seq = rec.c_seq[i]
        j = start = rec.c_pos[i]
        while j < len(seq) and f[(seq[j] & R.PIT) >> 3] & (1 << (seq[j] & 7)):
            j += 1
        if j > start and ((seq[j] & R.PIT == pit) if j < len(seq) else (pit >> 4 != side)):
            if skip is not None and not _same_steps(skip, lo, hi, seq, start, j):
                return False
            skip = seq
            lo = start
            hi = j
    if skip is None:
        return False
    for k in range(lo, hi):  # (the candidate's bytes stay as they are while the steps are taken)
        a.activation(skip[k] & R.PIT, now)
    a.activation(pit, now)
    return True


def _same_steps(a: "Any", lo: int, hi: int, b: "Any", start: int, end: int) -> bool:
    """a[lo:hi] and b[start:end] are the same steps."""
    if hi - lo != end - start:
        return False
    for k in range(hi - lo):
        if a[lo + k] != b[start + k]:
            return False
    return True


def _follow(a: "App", now: int) -> None:
    """The steps in ignored pits, taken while every candidate agrees on them."""
    f = a.deb.faulty
    rec = a.rec
    while rec.phase == R.MOVING and rec.n:  # the steps in ignored pits, while every candidate agrees
        step = -1
        for i in range(rec.n):
            e = rec.expected(i)
            if e < 0 or not f[(e & R.PIT) >> 3] & (1 << (e & 7)) or step >= 0 and e & (R.PIT | R.LIFT) != step:
                return  # (a drop or a lift the rules require: every candidate takes it)
            step = e & (R.PIT | R.LIFT)
        a.activation(step & R.PIT, now)
