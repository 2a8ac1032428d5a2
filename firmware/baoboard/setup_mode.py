# The set-up mode (issue #28): the board guides a person to lay out a position it did not play to (a lesson's,
# a puzzle's, a game taken up again after the seeds were knocked over), one place at a time. Loaded by the
# host's SETUP command (baoboard.commands); the Setup object then lives in App.setup until the set-up ends, and
# its code with it: nothing of it is in RAM during play.
#   SETUP <position JSON>    lay out that position, then play it (a GAME event, as SETPOS)
#   SETUP check [A5 a3 ...]  re-check the board's own position: every place, or the ones named (the game goes on)
#   SETUP off                leave the set-up: the position before it goes on
# and at boot after a power cut in the middle of a move (the journal's move begun: after_cut), a re-check of the
# places that move may have touched, said with why=cut: the board does not guess what the cut left there.
# A place is a pit (0..31) or a store (32 South's, 33 North's: off the board, no sensor). The board lights the one
# place to put right (docs/leds.md, "Set-up mode"), says it in a notice (docs/protocol.md, N0 SETUP), and the
# first touch of that pit confirms it; a store (no sensor), or a pit whose sensor is faulty, by a touch of either
# back-row end of its side.
# Places already right are skipped. Touches of the place just confirmed (the hand still putting seeds in) are
# absorbed; any other touch is refused (pink), said, and that pit is checked again later (the hand may have
# changed its seeds). After the last place the set-up waits for the hand to leave it: that place glows dim
# white and nothing else is lit, its touches are still seeds going in, until the hand has been away from it
# for _LINGER_MS; then the game's lights come on (N0 SETUP ready) and every touch is play's (a lesson's answer
# often starts from the pit its set-up filled last). The game's lights never show while a touch of that pit
# would be taken for seeds going in: a touch meant as a move's first is not eaten, a seed more is not read as
# a move. A touch of another pit while it waits is play's first at once (no seed of the set-up goes there).
try:  # for the annotations only
    from typing import Any  # noqa: F401

    from bao.position import Position
except ImportError:
    pass


from bao import position_json
from bao.errors import NotationError
from bao.layout import pit_index, pit_name
from bao.rules import legal_move_codes, play

from baoboard.compat import const, ticks_diff

_PLACES = const(34)  # 32 pits, then the two stores
_UNKNOWN = const(255)  # a count the board does not know (a re-check, a pit touched out of turn)
_STEPS = const(68)  # room for every place once, and again for each pit re-checked after a wrong touch
# colours (0xRRGGBB at full brightness; docs/leds.md, "Set-up mode")
PUT = const(0x00C0FF)  # sky blue: put seeds into this pit (or that store)
TAKE = const(0xFF4000)  # orange: take seeds out
CHECK = const(0xFFFFFF)  # white: make it hold the count said (the board does not know what it holds)
_WRONG = const(0xFF0040)  # pink, blinking: that touch was not the lit place
_WAIT = const(0x606060)  # dim white: the set-up is done, wait: take the hand off this place (the last)
_LINGER_MS = const(2000)  # after the set-up, the hand away from the place confirmed last this long: play
# the walk of the hands over the board, as a person at South's side sees it (B1 at the left): the back row
# left to right, the front row back, North's front row left to right, North's back row back; a snake, so the
# hand moves one pit at a time
_SNAKE = (
    b"\x0f\x0e\x0d\x0c\x0b\x0a\x09\x08\x07\x06\x05\x04\x03\x02\x01\x00"
    b"\x17\x16\x15\x14\x13\x12\x11\x10\x1f\x1e\x1d\x1c\x1b\x1a\x19\x18"
)


def place_name(i: int) -> str:
    return pit_name(i) if i < 32 else ("store-S" if i == 32 else "store-N")


class Setup:
    def __init__(self, target: "Position", live: bool) -> None:
        self.target = target
        self.live = live  # True: the target is played at the end (a GAME event); False: a re-check
        self.want = bytearray(_PLACES)
        self.have = bytearray(_PLACES)
        self.order = bytearray(_STEPS)
        self.places = 0  # places in the order
        self.step = 0  # index of the current place in the order
        self.last_pit = -1  # the pit whose touches are absorbed (the place just confirmed, the pit just
        # refused), or -1
        self.last_at = 0  # the time of the last touch of last_pit (confirmed or absorbed)
        self.wrong_pit = -1  # the pit refused last (blinks pink until the next accepted touch), or -1
        self.touches = 0  # touches that confirmed a place
        self.refused = 0  # touches refused
        self.why = ""  # a re-check at boot of a move left half made (after_cut): the notices say why=cut, or
        # why=stop when the board was switched off on purpose (a simulated board's host quit, Journal.stop)
        self.faulty = bytearray(4)  # the debouncer's: pits whose sensor is ignored (App.deb.faulty, set at SETUP)
        d = target.d
        for i in range(_PLACES):
            self.want[i] = d[i]

    def plan(self, have: "Any", lifted: "Any" = None) -> int:
        """Order the places to put right (have: what each holds now, _UNKNOWN where not known): stores that
        give seeds first (into the hand), then the pits along the snake, a pit to put seeds into put off when the
        hand does not hold enough yet (those come on the way back, along the snake the other way), stores that
        take seeds last. lifted (32 bytes, after a power cut): the unknown pits a move may have emptied, put
        after the others (those it only sowed into hold more than before: their seeds fill these). Returns the
        number of places."""
        w = self.want
        h = self.have
        for i in range(_PLACES):
            h[i] = have[i]
        o = self.order
        n = 0
        hand = 0
        for s in (32, 33):
            if h[s] != _UNKNOWN and h[s] > w[s]:
                o[n] = s
                n += 1
                hand += h[s] - w[s]
        late = 0  # pits put off
        for i in _SNAKE:
            if h[i] == w[i] or (lifted is not None and lifted[i] and h[i] == _UNKNOWN):
                continue
            if h[i] == _UNKNOWN or h[i] > w[i] or w[i] - h[i] <= hand:
                if h[i] != _UNKNOWN:
                    hand += h[i] - w[i]
                o[n] = i
                n += 1
            else:
                late += 1
        if lifted is not None:
            for i in _SNAKE:
                if lifted[i] and h[i] == _UNKNOWN:
                    o[n] = i
                    n += 1
        if late:
            for j in range(31, -1, -1):
                i = _SNAKE[j]
                if h[i] != _UNKNOWN and h[i] < w[i] and not self._planned(i, n):
                    o[n] = i
                    n += 1
        for s in (32, 33):
            if h[s] != w[s] and (h[s] == _UNKNOWN or h[s] < w[s]):
                o[n] = s
                n += 1
        self.places = n
        return n

    def _planned(self, place: int, n: int) -> bool:
        o = self.order
        for k in range(n):
            if o[k] == place:
                return True
        return False

    def ends(self, c: int) -> int:
        """The side whose back-row ends (B1, B8 or b1, b8) confirm place c, or -1 (its own pit does): a store
        (no sensor), or a pit whose sensor is faulty (ignored: docs/leds.md, "Broken sensors")."""
        if c >= 32:
            return c - 32
        return c >> 4 if self.faulty[c >> 3] & (1 << (c & 7)) else -1

    def current(self) -> int:
        """The place to put right now, or -1 when the set-up is done."""
        return self.order[self.step] if self.step < self.places else -1

    def say(self, a: "Any", wrong: int = -1) -> None:
        """The current step as a notice: N0 SETUP step=3 of=20 at=A5 have=3 want=7 rules=malawi [wrong=b2]
        (rules: the ruleset of the position laid out, which a host names while the game before it is still
        the board's: a lesson of another ruleset, #28)."""
        c = self.current()
        h = self.have[c]
        text = "step=%d of=%d at=%s have=%s want=%d rules=%s" % (
            self.step + 1,
            self.places,
            place_name(c),
            "?" if h == _UNKNOWN else str(h),
            self.want[c],
            self.target.rules.ruleset,
        )
        e = self.ends(c)
        if c < 32 and e >= 0:
            text += " touch=%s,%s" % (pit_name(15 + 16 * e), pit_name(8 + 16 * e))
        if wrong >= 0:
            text += " wrong=" + pit_name(wrong)
        if self.why:
            text += " why=" + self.why
        a.outbox.notice("SETUP", text)

    def say_done(self, a: "Any") -> None:
        """The set-up's end as a notice: N0 SETUP done steps=30 touches=30 refused=0 rules=malawi [wait=b8]
        [why=cut]; said again to a host whose HELLO comes during the wait (it would not know the game's lights
        wait)."""
        a.outbox.notice(
            "SETUP",
            "done steps=%d touches=%d refused=%d rules=%s%s%s"
            % (
                self.places,
                self.touches,
                self.refused,
                self.target.rules.ruleset,
                " wait=" + pit_name(self.last_pit) if self.last_pit >= 0 else "",
                " why=" + self.why if self.why else "",
            ),
        )

    def state(self) -> "dict":
        """The current step for SNAP, or the wait for the hand to leave the place put right last (phase
        "wait"): a host that lost the ready notice, or came during the wait, reads it (#28)."""
        c = self.current()
        if c < 0:
            return {
                "phase": "wait",
                "wait": pit_name(self.last_pit),
                "why": self.why,
                "rules": self.target.rules.ruleset,
            }
        h = self.have[c]
        return {
            "phase": "step",
            "left": self.places - self.step,
            "step": self.step + 1,
            "of": self.places,
            "at": place_name(c),
            "have": None if h == _UNKNOWN else h,
            "want": self.want[c],
            "why": self.why,
            "rules": self.target.rules.ruleset,
        }

    def touch(self, a: "Any", pit: int, now: int) -> None:
        """One activation during the set-up."""
        c = self.current()
        if c < 0:  # done, waiting: the hand may still be putting seeds into the last place
            if pit != self.last_pit or ticks_diff(now, self.last_at) > _LINGER_MS:
                self.ready(a)  # another pit: play (or the game) goes on, this touch its first
                a.activation(pit, now)
            else:
                self.last_at = now  # (the hand still at work there: the wait begins again)
            return
        e = self.ends(c)
        if c == pit or (e >= 0 and (pit == 15 + 16 * e or pit == 8 + 16 * e)):
            self.have[c] = self.want[c]
            self.last_pit = pit
            self.last_at = now
            self.wrong_pit = -1
            self.touches += 1
            self.step += 1
            if self.step >= self.places:
                self.finish(a, now)
            else:
                self.say(a)
            return
        if pit == self.last_pit:
            self.last_at = now
            return  # the hand still at work in the place just confirmed, or taking back from the pit refused
        # refused: the pit may have had seeds put in or taken out: check it again later
        self.refused += 1
        self.last_pit = pit
        self.wrong_pit = pit
        a.guide.request_show(now)
        queued = False
        for k in range(self.step, self.places):
            if self.order[k] == pit:
                queued = True
        self.have[pit] = _UNKNOWN
        if not queued and self.places < _STEPS:
            self.order[self.places] = pit
            self.places += 1
        self.say(a, pit)

    def tick(self, a: "Any", now: int) -> None:
        """Every scan while a set-up runs (App.scan): the wait after the last place ends when the hand has been
        away from it for _LINGER_MS, whether or not anything is touched then."""
        if self.step >= self.places and ticks_diff(now, self.last_at) > _LINGER_MS:
            self.ready(a)

    def ready(self, a: "Any") -> None:
        """The wait after the last place is over: the game's lights come on, every touch is play's (the
        computer, if it is to move, searches now)."""
        a.setup = None
        a.dirty = True
        a.outbox.notice("SETUP", "ready")

    def finish(self, a: "Any", now: int) -> None:
        """The board matches the target: it becomes live (a GAME event; play once the hand is off the last
        place, `ready`) or, after a re-check, the game goes on where it was."""
        a.setup = None
        wait = self.last_pit >= 0  # a place was touched: wait for the hand to leave it
        self.say_done(a)
        a.journal.begin(-1)  # the seeds match the board's position: no move half made is left uncertain
        if self.live:
            a.post_game(self.target, position_json.to_dict(self.target))
        else:
            a.boundary(a.p, now)
        if wait:  # more touches of the last place (seeds still going in) are absorbed, the game not shown, until
            a.setup = self  # the hand is away (tick) or another pit is touched; the computer searches after it
            self.last_at = now

    def render(self, g: "Any", now: int) -> bytearray:
        """The frame of the set-up: the place to put right in its colour (a store: its side's two back-row
        ends), the pit refused last blinking pink; nothing else. Done, waiting for the hand to leave the place
        put right last: that pit dim white, the game's lights not yet."""
        g.clear()
        if g.mode == 2:  # silent
            return g.frame
        c = self.current()
        if c < 0:
            g._px(self.last_pit, _WAIT)
            return g.frame
        h = self.have[c]
        rgb = CHECK if h == _UNKNOWN else (PUT if h < self.want[c] else TAKE)
        if c < 32:
            g._px(c, rgb)
        e = self.ends(c)
        if e >= 0:
            g._px(15 + 16 * e, rgb)
            g._px(8 + 16 * e, rgb)
        w = self.wrong_pit
        if w >= 0 and not (now >> 8) & 1:  # (the guide's blink phase: App.show runs at its changes)
            g._px(w, _WRONG)
        return g.frame


def command(a: "Any", payload: str, now: int) -> "tuple[bool, str]":
    """The host's SETUP command (docs/protocol.md)."""
    words = payload.split(" ") if payload[:1] not in ("{", "[") else ()
    if a.setup is not None and a.setup.current() < 0:
        a.setup.ready(a)  # (a set-up done, waiting for the hand to leave its last place)
    if words and words[0] == "off":
        if a.setup is None:
            return False, "state no set-up is under way"
        a.setup = None
        a.outbox.notice("SETUP", "off")
        a.journal.begin(-1)  # the person says the seeds are right as they are
        a.boundary(a.p, now)
        return True, ""
    if words and words[0] == "check":
        s = Setup(a.p, False)
        have = bytearray(_PLACES)
        d = a.p.d
        for i in range(_PLACES):
            have[i] = d[i]  # named places only: the others are taken as right
        names = [w for w in words[1:] if w]
        for w in names:
            i = 32 if w == "store-S" else 33 if w == "store-N" else -1
            if i < 0:
                try:
                    i = pit_index(w)
                except NotationError:
                    return False, "badarg not a place: %s (A1..b8, store-S, store-N)" % w[:12]
            have[i] = _UNKNOWN
        if not names:
            for i in range(_PLACES):
                have[i] = _UNKNOWN
    else:
        from baoboard.checks import read_position  # (as SETPOS reads it)

        target, why = read_position(payload)
        if target is None:
            return False, why
        s = Setup(target, True)
        have = a.p.d
    rec = a.rec
    if rec.phase == 1 or rec.phase == 2:  # (recogniser.MOVING, DECISION) a move half made: its seeds moved
        start = rec.start_pit if rec.steps == 1 else -1
        have = bytearray(have)
        for i in range(_PLACES):  # only its start touched (a lift, or a store seed put in): that pit and the
            if start < 0 or i == start or i == 32 + (start >> 4):  # store are checked; else every place
                have[i] = _UNKNOWN
    s.faulty = a.deb.faulty
    n = s.plan(have)
    a.setup = s
    a.boundary(a.p, now)  # a move half made (lifted, nothing dropped) is dropped
    a.think_due = 0
    if n == 0:
        s.finish(a, now)
    else:
        s.say(a)
    return True, "steps=%d" % n


def after_cut(a: "Any", now: int) -> None:
    """At boot (baoboard.commands.cut): the journal says a move was begun from a pit when the power went. The
    pits any legal move from that pit activates, and the stores it changes, may hold anything now: the board
    guides the person to make each hold what the last journalled position says (a re-check of those places
    only); then the move is played again from its start."""
    from baoboard.recogniser import LIFT, PIT, sequence

    p = a.p
    d = p.d
    start = a.journal.begun
    have = bytearray(_PLACES)
    for i in range(_PLACES):
        have[i] = d[i]
    have[start] = _UNKNOWN
    lifted = bytearray(32)
    lifted[start] = 1
    for m in legal_move_codes(p):
        if a.rec.first_pit(m) != start:
            continue
        for e in sequence(p, m):
            have[e & PIT] = _UNKNOWN
            if e & LIFT:
                lifted[e & PIT] = 1
        child = play(p, m)
        for i in (32, 33):
            if child.d[i] != d[i]:  # a store seed put in first (2.2, namua)
                have[i] = _UNKNOWN
    s = Setup(p, False)
    s.why = "stop" if a.journal.stopped else "cut"
    s.faulty = a.deb.faulty
    s.plan(have, lifted)
    a.setup = s
    a.think_due = 0
    s.say(a)
