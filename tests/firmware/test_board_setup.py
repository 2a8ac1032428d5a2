# The set-up mode (issue #28) on the simulated board: the host asks for a position (SETUP), a person does what
# the board's notices say (N0 SETUP step=.. at=.. have=.. want=..) and touches the lit place; the seeds the person
# holds are modelled here, so each test checks that the board's guidance lays out the target for real. Runs on
# CPython and on the MicroPython unix ports at a Pico's heap (make test-mp).
from bao import core, position_json
from board_util import Host, board, find_move, plies
from fwtest_util import Lcg

PUT = 0x00C0FF  # baoboard.setup_mode's colours (docs/leds.md, "Set-up mode")
TAKE = 0xFF4000
CHECK = 0xFFFFFF


class SetupHost(Host):
    """The host that also keeps the board's last SETUP notice (the fields as a dict) and counts them."""

    def __init__(self, hw, old):
        self.said = None  # (first: the board's lines written before this host listened are read at once)
        self.heard = 0
        self.last_at = ""  # the place of the last step said
        self.done = None  # the last done notice's fields
        self.setups = []  # each STATE notice's setup= field (protocol 5), "" when it has none
        super().__init__(hw, old)
        self.epoch = old.epoch

    def _line(self, line):
        if line.startswith(b"N0 SETUP "):
            self.heard += 1
            words = line.decode()[9 : line.rfind(b" *")].split(" ")
            self.said = dict(w.split("=", 1) if "=" in w else (w, "") for w in words)
            if "done" in self.said:
                self.done = self.said
            self.last_at = self.said.get("at", self.last_at)
        elif line.startswith(b"N0 STATE "):
            i = line.find(b" setup=")
            self.setups.append(line[i + 7 : line.find(b" ", i + 7)].decode() if i > 0 else "")
        super()._line(line)


def positions(wanted):
    """The positions of the 1994 game before the plies numbered in `wanted` (52: after the last)."""
    out = []
    last = None
    for i, (p, m, _) in enumerate(plies()):
        if i in wanted:
            out.append(p)
        last = (p, m)
    if 52 in wanted:
        out.append(core.play(last[0], last[1]))
    return out


def place(name):
    return 32 if name == "store-S" else 33 if name == "store-N" else core.pit_index(name)


def touched_last(host):
    """The pit touched last in a set-up followed to its end: its last place, or a store's back-row end."""
    return {"store-S": "B1", "store-N": "b1"}.get(host.last_at, host.last_at)


def corner(i):
    """The pit a person touches to confirm a store: a back-row end of its side (B1, b1)."""
    return 15 if i == 32 else 31


def differing(a, b):
    return sum(1 for i in range(34) if a.d[i] != b.d[i])


def start(app, hands, host, target, num=50, payload=None):
    host.command(num, "SETUP", position_json.dumps(target, False) if payload is None else payload)
    for _ in range(40):  # a position's frame comes in over a few steps (64 bytes a read)
        hands.scan(1)
        if any(r[0] == num for r in host.replies):
            break
    return [r for r in host.replies if r[0] == num][-1]


def follow(app, hw, hands, host, seeds, clumsy=None, limit=200, hand=None):
    """A person doing what the board says: the count said into the place said, then a touch of it (a store: its
    back-row end). clumsy: an Lcg; then now and then a touch of a wrong pit first, whose seeds it changes.
    hand: [seeds in the person's hand], checked never to run dry. Returns (touches, refused touches)."""
    touches = refused = 0
    last = -1  # the pit touched last: more touches there are absorbed
    while host.said is not None and "step" in host.said and limit:
        limit -= 1
        s = host.said
        i = place(s["at"])
        have = s["have"]
        if have != "?":
            assert int(have) == seeds[i], (s, seeds[i])  # the board knows what the place holds
        want = int(s["want"])
        if i < 32 and "touch" not in s:  # the LED of the place: its colour says put, take or check
            colour = CHECK if have == "?" else PUT if int(have) < want else TAKE
            assert hw.rgb(i) and _hue(hw.rgb(i)) == _hue(colour), (s, hex(hw.rgb(i)))
        if clumsy is not None and clumsy.below(4) == 0:
            w = (i + 1 + clumsy.below(31)) % 32
            if w != last:  # (not the pit just touched: its touches are absorbed)
                seeds[w] += 1  # a seed dropped into the wrong pit
                heard = host.heard
                hands.tap(w)
                refused += 1
                assert host.heard == heard + 1 and host.said.get("wrong") == core.pit_name(w), host.said
                assert place(host.said["at"]) == i  # the lit place stays: guided back to it
                assert _pink_shows(hw, hands, w)
                last = w
        if hand is not None:
            hand[0] += seeds[i] - want
            assert hand[0] >= 0, ("the board asks for seeds the hand does not hold", s)
        seeds[i] = want
        via = core.pit_index(s["touch"].split(",")[0]) if "touch" in s else -1  # (its sensor is faulty)
        hands.tap(via if via >= 0 else i if i < 32 else corner(i))
        touches += 1
        if i < 32 and via < 0:
            hands.tap(i)  # more seeds put in the same pit: absorbed
        last = via if via >= 0 else i if i < 32 else corner(i)
    return touches, refused


def _hue(rgb):
    """The colour's direction, whatever the brightness (each channel's share, in eighths)."""
    r, g, b = rgb >> 16, (rgb >> 8) & 255, rgb & 255
    t = r + g + b
    return (r * 8 // t, g * 8 // t, b * 8 // t) if t else (0, 0, 0)


def _pink_shows(hw, hands, pit):
    for _ in range(80):
        if _hue(hw.rgb(pit)) == _hue(0xFF0040):
            return True
        hands.scan(1)
    return False


def test_setup_between_positions_of_the_1994_game():
    ps = positions((0, 20, 44, 52))
    pairs = ((0, 2), (0, 3), (2, 3), (3, 1), (1, 0))
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    for a, b in pairs:
        src, dst = ps[a], ps[b]
        host.command(40 + a * 5 + b, "SETPOS", position_json.dumps(src, False))
        hands.scan(40)
        host.poll()
        assert app.p.d == src.d
        seeds = list(src.d[:34])
        games = sum(1 for e in host.events if e[1] == "GAME")
        r = start(app, hands, host, dst, 60 + a * 5 + b)
        n = differing(src, dst)
        assert r[1:] == ("OK", "steps=%d" % n), r
        touches, refused = follow(app, hw, hands, host, seeds, hand=[0])
        hands.scan(4)
        host.poll()
        assert (touches, refused) == (n, 0), (a, b, touches)
        assert seeds == list(dst.d[:34]), (a, b)  # the person's seeds are the target
        said = {
            "done": "",
            "steps": str(n),
            "touches": str(n),
            "refused": "0",
            "rules": "zanzibar",
            "wait": touched_last(host),
        }
        assert host.said == said, host.said  # (the game once the hand is away from the place set up last)
        assert sum(1 for e in host.events if e[1] == "GAME") == games + 1  # live: a GAME event, as SETPOS
        assert app.p.d == dst.d
    # play goes on from the last position set up: a move of it is reported
    p = ps[0]
    m = find_move(p, "7L*")
    before = len(host.moves())
    hands.perform(p, m)
    host.poll()
    assert host.moves()[before:] == ["7L*"]
    st.close()


def test_a_set_up_names_the_ruleset_of_the_position_it_lays_out():
    """A Malawi lesson's position laid out on a board playing Zanzibar: each step, SNAP during the steps and the
    done notice say rules=malawi, so a host names the ruleset before the GAME event comes (#28, used)."""
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    assert app.p.rules.ruleset == "zanzibar"
    seeds = list(app.p.d[:34])
    target = core.initial("malawi")
    r = start(app, hands, host, target, 60)
    assert r[1] == "OK" and host.said["rules"] == "malawi", host.said
    host.command(61, "SNAP")
    hands.scan(8)
    snap = [x for x in host.replies if x[0] == 61][-1]
    assert '"rules": "malawi"' in snap[2], snap
    rules = set()
    while host.said is not None and "step" in host.said:
        rules.add(host.said["rules"])
        follow(app, hw, hands, host, seeds, limit=1)
    hands.scan(4)
    host.poll()
    assert rules == {"malawi"} and host.done is not None and host.done["rules"] == "malawi", host.done
    assert app.p.rules.ruleset == "malawi"
    st.close()


def test_the_pit_filled_last_is_the_games_first_touch_once_the_hand_is_away():
    # A lesson's retry (issue #28): a move from B2 was played, the set-up lays the position out again and fills
    # B2 last, and the answer starts from B2 again. Touches of B2 right after it was confirmed are the hand
    # still putting seeds in (absorbed); once the hand has been away for setup_mode._LINGER_MS, a touch of B2
    # is the game's first: the move is made and reported (the board took no touch at all before).
    p, m, app, hw, hands, host, st = _set_up_again_after_b2l()
    hands.scan(4)
    host.poll()
    assert "done" in host.said and host.last_at == "B2" and app.p.d == p.d
    moves, illegal = len(host.moves()), sum(1 for e in host.events if e[1] == "ILLEGAL")
    hands.tap(core.pit_index("B2"))  # a seed more into B2, at once: absorbed (no move starts, none refused)
    assert app.rec.phase == 0 and sum(1 for e in host.events if e[1] == "ILLEGAL") == illegal
    hands.scan(2100 // 5)  # the hand away from the board (5 ms scans)
    hands.perform(p, m)
    host.poll()
    assert host.moves()[moves:] == ["B2L"]
    st.close()


LINGER_MS = 2000  # baoboard.setup_mode._LINGER_MS (a const: no name to read on MicroPython)


def _lit(hw):
    return {i: hw.rgb(i) for i in range(32) if hw.rgb(i)}


def _illegal(host):
    return sum(1 for e in host.events if e[1] == "ILLEGAL")


def _set_up_again_after_b2l(cpu=""):
    """The lesson's retry: a move from B2 played, then the set-up lays the position out again and fills B2
    last, the person's last touches at B2 (its confirmation, a seed more). cpu: who the computer plays."""
    p = positions((44,))[0]
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    host.command(40, "SETPOS", position_json.dumps(p, False))
    hands.scan(40)
    m = find_move(p, "B2L")
    hands.perform(p, m)
    if cpu:
        host.command(39, "CPU", cpu)
        hands.scan(4)
    host.poll()
    seeds = list(app.p.d[:34])
    assert start(app, hands, host, p, 41)[1] == "OK"
    follow(app, hw, hands, host, seeds, hand=[0])
    host.poll()
    assert host.last_at == "B2" and app.p.d == p.d
    return p, m, app, hw, hands, host, st


def _wait_shown(hw, hands, host, pit, touch_at=-1):
    """Scans through the wait after the set-up, checking what the LEDs show at each: the pit dim white and
    nothing else, no touch read as play's (touch_at: the scan at which the hand drops a seed more into it).
    Returns the board's time from the hand's last touch there to the board's ready."""
    last = hw.t
    for k in range(2 * LINGER_MS // hands.scan_ms):  # (the notices are read as written: no poll, no collection)
        if "ready" in host.said:
            host.poll()
            return hw.t - last
        lit = _lit(hw)
        assert list(lit) == [pit], {core.pit_name(i): hex(c) for i, c in lit.items()}
        assert _hue(lit[pit]) == _hue(CHECK) and lit[pit] < CHECK * 64 // 255, hex(lit[pit])  # dim white
        if k == touch_at:
            hands.tap(pit)  # a seed more: the hand still at work there, the wait begins again
            last = hw.t - hands.gap * hands.scan_ms
        else:
            hands.scan(1)
    raise AssertionError("the board never said ready: %r" % host.said)


def test_the_games_lights_wait_until_the_hand_has_left_the_place_set_up_last():
    # issue #28: after the last place, the board lit the game at once (B2 green: a start) while it still took
    # a touch of B2 within 2 s for a seed going in: a person who lifted B2 to play, as the lights said, lost that
    # touch, and the next drop was read as a move's first touch. Now it shows the wait (B2 dim white, nothing
    # else lit; the done notice says wait=B2) until the hand has been away from B2 for LINGER_MS, then says
    # ready and lights the game; from then on a touch of B2 is play's
    p, m, app, hw, hands, host, st = _set_up_again_after_b2l()
    b2 = core.pit_index("B2")
    illegal = _illegal(host)
    waited = _wait_shown(hw, hands, host, b2, touch_at=40)
    assert host.done is not None and host.done.get("wait") == "B2", host.done  # (the UIs say it: take the hand off)
    assert LINGER_MS <= waited <= LINGER_MS + 4 * hands.scan_ms, waited
    assert app.rec.phase == 0 and _illegal(host) == illegal  # no touch was play's
    hands.scan(1)
    assert _hue(hw.rgb(b2)) == _hue(0x00A000), hex(hw.rgb(b2))  # the game's lights: B2 a start (green)
    moves = len(host.moves())
    hands.perform(p, m)
    host.poll()
    assert host.moves()[moves:] == ["B2L"] and _illegal(host) == illegal
    st.close()


def test_with_the_computer_to_move_a_seed_more_into_the_last_place_is_not_play():
    # issue #28, the other way round: with the computer to move after the set-up, the board did not wait at
    # all, and a seed more into the place set up last (B2) was read as a touch of play (flagged, or a move
    # begun, the computer's search stopped). Now it is the set-up's, and the computer searches and lights its
    # move once the hand has been away
    p, m, app, hw, hands, host, st = _set_up_again_after_b2l(cpu="SN"[positions((44,))[0].to_move] + " 1")
    b2 = core.pit_index("B2")
    illegal = _illegal(host)
    _wait_shown(hw, hands, host, b2, touch_at=10)
    assert host.done is not None and host.done.get("wait") == "B2", host.done
    assert _illegal(host) == illegal and app.rec.phase == 0
    for _ in range(200):  # the computer's search, a few scans
        if app.rec.hint >= 0:
            break
        hands.scan(1)
    assert app.rec.hint >= 0 and _illegal(host) == illegal  # its move lit, nothing of the set-up taken as play
    st.close()


def _snap_setup(host, hands, num):
    import json

    host.command(num, "SNAP")
    for _ in range(40):
        hands.scan(1)
        got = [r for r in host.replies if r[0] == num]
        if got:
            assert got[-1][1] == "OK", got
            return json.loads(got[-1][2])["setup"]
    raise AssertionError("no reply to SNAP")


def test_a_host_that_comes_during_the_wait_or_loses_ready_reads_the_set_up_phase():
    # issue #28: the wait after the last place was said once (done wait=B2, then ready): a host that came
    # during the wait was not told of it at all, and a ready lost on the line left the host saying "take your
    # hand off B2" until a move began. Now (protocol 5) a HELLO during the wait hears the done notice again,
    # the STATE says the set-up's phase (setup=wait:B2; none once ready), and SNAP's setup says it too
    p, m, app, hw, hands, host, st = _set_up_again_after_b2l()
    late = SetupHost(hw, host)  # a new host, during the wait: it heard nothing of the set-up
    late.said = None
    late.command(7, "HELLO", "5,4,3,2,1")
    hands.scan(3)
    assert [r for r in late.replies if r[0] == 7][-1][2].startswith("proto=5 "), late.replies
    assert late.done is not None and late.done.get("wait") == "B2", late.said  # the wait, said again
    assert late.setups and late.setups[-1] == "wait:B2", late.setups  # the STATE after the HELLO says it
    assert _snap_setup(late, hands, 8) == {"phase": "wait", "wait": "B2", "why": "", "rules": "zanzibar"}
    for _ in range(2 * LINGER_MS // hands.scan_ms):  # the ready notice: ignored here, as if lost on the line
        if app.setup is None:
            break
        hands.scan(1)
    hands.scan(2)
    assert app.setup is None and late.setups[-1] == "", late.setups  # the next STATE: no set-up any more
    assert _snap_setup(late, hands, 9) is None  # and the next poll reads it
    assert late.setups.count("wait:B2") == 1  # (the same state is not said twice)
    st.close()


def test_snap_and_state_say_the_places_left_during_the_set_up():
    # issue #28: a host that polls during the set-up reads the step and the places left (SNAP), and the STATE
    # says how many are left (protocol 5), step by step
    p = positions((10,))[0]
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    host.command(1, "HELLO", "5,4,3,2,1")
    hands.scan(3)
    assert start(app, hands, host, p, 41)[1] == "OK"
    n = int(host.said["of"])
    snap = _snap_setup(host, hands, 42)
    assert snap["phase"] == "step" and snap["left"] == n and snap["step"] == 1 and snap["at"] == host.said["at"]
    assert host.setups[-1] == "steps:%d" % n, host.setups
    seeds = list(app.p.d[:34])
    follow(app, hw, hands, host, seeds, limit=2)
    hands.scan(2)
    assert host.setups[-1] == "steps:%d" % (n - 2), host.setups
    assert _snap_setup(host, hands, 43)["left"] == n - 2
    st.close()


def test_an_older_host_sees_no_setup_field():
    # protocol 4 (an older host): the STATE has no setup= field, as before
    p = positions((10,))[0]
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    host.command(1, "HELLO", "4,3,2,1")
    hands.scan(3)
    assert start(app, hands, host, p, 41)[1] == "OK"
    seeds = list(app.p.d[:34])
    follow(app, hw, hands, host, seeds, limit=2)
    hands.scan(2)
    assert host.setups and set(host.setups) == {""}, host.setups
    st.close()


def test_wrong_touches_are_refused_and_guided_back():
    src, dst = positions((10, 48))
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    host.command(9, "SETPOS", position_json.dumps(src, False))
    hands.scan(40)
    seeds = list(src.d[:34])
    r = start(app, hands, host, dst)
    assert r[1] == "OK"
    touches, refused = follow(app, hw, hands, host, seeds, clumsy=Lcg(3))
    hands.scan(4)
    host.poll()
    assert refused >= 3 and seeds == list(dst.d[:34])  # every pit touched wrongly was checked again
    assert host.said["refused"] == str(refused) and int(host.said["touches"]) == touches
    assert touches <= differing(src, dst) + refused
    assert app.p.d == dst.d
    st.close()


def test_recheck_named_places_keeps_the_game():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    p = app.p
    m = find_move(p, "7L*")
    hands.perform(p, m)
    host.poll()
    games = sum(1 for e in host.events if e[1] == "GAME")
    seeds = list(app.p.d[:34])
    r = start(app, hands, host, None, 70, "check A5 a6 store-N")
    assert r[1:] == ("OK", "steps=3"), r
    assert host.said["have"] == "?" and host.said["at"] == "A5"  # the snake: South's rows first
    # while the board is set up, what would change the game is refused; the LEDs show the one place
    host.command(71, "NEW", "zanzibar")
    hands.scan(8)
    assert [x for x in host.replies if x[0] == 71][-1][1] == "ERR"
    assert sum(1 for i in range(32) if hw.rgb(i)) == 1 and hw.rgb(core.pit_index("A5"))
    host.command(72, "SNAP")  # the host may ask for the step too (a notice lost on the line)
    hands.scan(8)
    snap = [x for x in host.replies if x[0] == 72][-1]
    assert '"setup": {' in snap[2] and '"at": "A5"' in snap[2] and '"have": null' in snap[2], snap
    touches, refused = follow(app, hw, hands, host, seeds)
    host.poll()
    assert (touches, refused) == (3, 0) and host.said.get("done") == ""
    assert sum(1 for e in host.events if e[1] == "GAME") == games  # the same game goes on
    q = app.p
    m = core.legal_move_codes(q)[0]
    hands.perform(q, m)
    host.poll()
    assert len(host.moves()) == 2
    st.close()


def test_setup_refuses_bad_input_and_leaves_on_off():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    for k, payload in enumerate(('{"A": [1, 2]', "check Z9", '{"options": {"takasia": 5}}', "off")):
        r = start(app, hands, host, None, 80 + k, payload)
        assert r[1] == "ERR" and ("badarg" in r[2] or "state" in r[2]) and "internal" not in r[2], r
    target = positions((30,))[0]
    assert start(app, hands, host, target, 90)[1] == "OK" and "step" in host.said
    assert start(app, hands, host, None, 91, "off")[1:] == ("OK", "")
    assert host.said == {"off": ""}
    assert app.p.d == core.initial().d  # the position before the set-up goes on
    st.close()


def test_setup_to_the_same_position_takes_no_touch():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    r = start(app, hands, host, app.p, 95)
    hands.scan(4)
    host.poll()
    assert r[1:] == ("OK", "steps=0") and host.said["steps"] == "0"
    assert host.events[-1][1] == "GAME"
    st.close()


def test_setup_with_a_move_half_made_checks_the_pits_it_touched():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    src = app.p
    seeds = list(src.d[:34])
    a6 = core.pit_index("A6")
    hands.tap(a6)  # South starts 6L*: a store seed into A6 (the move half made)
    seeds[a6] += 1
    seeds[32] -= 1
    assert app.rec.phase == 1
    dst = positions((20,))[0]
    r = start(app, hands, host, dst)
    assert r[1] == "OK"
    unknown = []
    while "step" in host.said:
        if host.said["have"] == "?":
            unknown.append(host.said["at"])
        touches, _ = follow(app, hw, hands, host, seeds, limit=1)
    assert sorted(unknown) == ["A6", "store-S"], unknown  # only the start and the store: the rest is known
    assert seeds == list(dst.d[:34]) and app.p.d == dst.d
    st.close()


def test_setup_across_rulesets():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    seeds = list(app.p.d[:34])
    for k, ruleset in enumerate((core.MALAWI, "malawi-intermediate", core.ZANZIBAR)):
        dst = core.initial(ruleset)
        n = differing(app.p, dst)
        r = start(app, hands, host, dst, 100 + k)
        assert r[1:] == ("OK", "steps=%d" % n), r
        touches, refused = follow(app, hw, hands, host, seeds, hand=[0])
        hands.scan(4)
        host.poll()
        assert (touches, refused) == (n, 0) and seeds == list(dst.d[:34]), ruleset
        assert app.p.d == dst.d and app.p.rules.ruleset == ruleset
        assert host.events[-1][1] == "GAME"  # (and no ILLEGAL after it: the last touches were absorbed)
    st.close()


def test_a_pit_whose_sensor_is_faulty_is_confirmed_from_its_sides_back_row_end():
    app, hw, hands, host, st = board()
    host = SetupHost(hw, host)
    src = app.p
    dst = positions((20,))[0]
    stuck = [i for i in range(32) if src.d[i] != dst.d[i] and i not in (8, 15, 24, 31)][0]
    hw.set_pit(stuck, True)  # its sensor reads a hand for good: found faulty after 20 s, then ignored
    hands.board.run(440, 50)
    host.poll()
    assert any(e[1] == "ERROR" and core.pit_name(stuck) in e[2] for e in host.events), host.events
    seeds = list(src.d[:34])
    assert start(app, hands, host, dst)[1] == "OK"
    via = []
    while "step" in host.said:
        if "touch" in host.said:
            via.append((host.said["at"], host.said["touch"]))
        follow(app, hw, hands, host, seeds, limit=1)
    side = "B" if stuck < 16 else "b"
    assert via == [(core.pit_name(stuck), "%s1,%s8" % (side, side))], via
    assert seeds == list(dst.d[:34]) and app.p.d == dst.d
    st.close()


def _cut_mid_move(ply, done, switched_off=False):
    """The 1994 game played to `ply`, then that ply's move begun, `done` of its activations made, and the power
    cut. Returns (position, move, seeds as the person's hands left them, the seeds in the hand, app, hw, hands,
    host of the board booted again on the same flash)."""
    from baoboard.recogniser import LIFT, sequence
    from baoboard.simhw import Hands, SimHardware, SimulatedBoard

    app, hw, hands, host, st = board()
    for i, (p, m, _) in enumerate(plies()):
        if i == ply:
            break
        hands.perform(p, m)
    host.poll()
    seeds = list(p.d[:34])
    hand = 0
    seq = sequence(p, m)
    if seeds[32 + p.d[core.TO_MOVE]]:  # namua: the first activation puts a seed from the store (2.2)
        seeds[32 + p.d[core.TO_MOVE]] -= 1
        hand = 1
    for e in seq[:done]:  # what the person's hands did before the power went
        pit = e & 31
        if e & LIFT:
            hand += seeds[pit]
            seeds[pit] = 0
        else:
            seeds[pit] += 1
            hand -= 1
        hands.tap(pit)
    assert app.rec.steps == done
    if switched_off:  # not a power cut: the board switched off on purpose (a simulated board's host quits)
        app.switch_off()
    app = hands = hw = None  # the power goes: the board's RAM with it
    hw = SimHardware()
    host = SetupHost(hw, host)
    b = SimulatedBoard(st, "test", 3, hw=hw)  # the power comes back
    return p, m, seeds, hand, b.app, hw, Hands(b, hold=4, gap=4), host, st


def test_a_power_cut_mid_move_sets_up_the_pits_it_left_uncertain():
    from baoboard.recogniser import activations

    for ply, done in ((6, 3), (45, 4)):  # a namua move (its store seed put in first), an mtaji one
        p, m, seeds, hand, app, hw, hands, host, st = _cut_mid_move(ply, done)
        hands.scan(5)
        assert app.journal.nmoves == ply and app.p.d == p.d  # back at the last move recorded
        start = activations(p, m)[0]
        uncertain = set()
        for mm in core.legal_move_codes(p):
            acts = activations(p, mm)
            if acts[0] == start:
                uncertain.update(acts)
                child = core.play(p, mm)
                uncertain.update(i for i in (32, 33) if child.d[i] != p.d[i])
        said = host.said
        assert said is not None and said.get("why") == "cut" and said["have"] == "?", said
        assert int(said["of"]) == len(uncertain) < 34  # those places only: not the whole board
        asked = host.heard
        touches, refused = follow(app, hw, hands, host, seeds, hand=[hand])
        assert (touches, refused) == (len(uncertain), 0)
        assert host.said == {
            "done": "",
            "steps": str(len(uncertain)),
            "touches": str(touches),
            "refused": "0",
            "rules": "zanzibar",
            "wait": touched_last(host),
            "why": "cut",
        }, host.said
        assert host.heard - asked == len(uncertain)  # one step said per place, then done
        assert seeds == list(p.d[:34]), ply  # the seeds are the position the board holds again
        hands.scan(600)  # (the hand away from the place set up last: the game's lights on, its next touch play's)
        host.poll()
        assert app.setup is None and host.said == {"ready": ""} and app.journal.begun == -1
        moves = host.moves()
        hands.perform(p, m)  # the move played again from its start
        host.poll()
        assert host.moves() == moves + [core.format_move(m, p.d[core.TO_MOVE])]
        assert app.p.d == core.play(p, m).d
        st.close()


def test_a_switch_off_mid_move_is_not_said_as_a_power_cut():
    """A simulated board whose host quits in the middle of a move (make run's q) is switched off on purpose: the
    next boot sets up the pits that move may have changed as after a power cut, but says why=stop, not why=cut
    (#28, used: "Power cut mid-move" after a q). The move played again, a real cut in the next one is a cut."""
    from baoboard.recogniser import activations
    from baoboard.simhw import Hands, SimHardware, SimulatedBoard

    p, m, seeds, hand, app, hw, hands, host, st = _cut_mid_move(6, 3, switched_off=True)
    hands.scan(5)
    assert host.said is not None and host.said.get("why") == "stop" and host.said["have"] == "?", host.said
    follow(app, hw, hands, host, seeds, hand=[hand])
    assert host.said.get("done") == "" and host.said.get("why") == "stop", host.said
    hands.scan(600)
    hands.perform(p, m)  # the move played again from its start
    host.poll()
    q = app.p
    assert q.d == core.play(p, m).d and app.journal.begun == -1
    m2 = core.legal_move_codes(q)[0]
    for pit in activations(q, m2)[:2]:  # the next move begun, and the power cut this time
        hands.tap(pit)
    app = hands = hw = None
    hw = SimHardware()
    host = SetupHost(hw, host)
    b = SimulatedBoard(st, "test", 3, hw=hw)
    Hands(b, hold=4, gap=4).scan(5)
    assert host.said is not None and host.said.get("why") == "cut", host.said
    st.close()


def test_a_host_that_comes_after_the_cut_hears_the_set_up_step():
    """A real board's USB goes down with its power: the host comes back after the board booted into the set-up
    and said its first step. Its HELLO gets the step the board waits for said again (the places already put
    right stay done)."""
    p, m, seeds, hand, app, hw, hands, host, st = _cut_mid_move(45, 4)
    hands.scan(5)
    first = dict(host.said)
    follow(app, hw, hands, host, seeds, limit=1)  # one place put right before any host listens
    second = dict(host.said)
    assert second["step"] == "2" and second.get("why") == "cut", second
    late = SetupHost(hw, host)  # a new host: it heard nothing yet
    late.said = None
    late.command(7, "HELLO", "4,3,2,1")
    hands.scan(3)
    assert any(r[0] == 7 for r in late.replies)
    assert late.said == second and first["of"] == second["of"], late.said
    st.close()


def test_a_move_put_back_before_the_cut_leaves_nothing_to_set_up():
    p, m, seeds, hand, app, hw, hands, host, st = _cut_mid_move(45, 0)
    hands.scan(5)
    assert app.setup is None and host.said is None  # no move begun: nothing uncertain
    start = core.pit_name(app.rec.first_pit(m))
    hands.tap(core.pit_index(start))  # lifted ...
    assert app.journal.begun == core.pit_index(start)
    hands.tap(core.pit_index(start))  # ... and put back (the seeds back where they came from)
    assert app.journal.begun == -1
    st.close()


def _journalled(j):
    """Each journalled move's record, as a hash (read one at a time: a Pico's heap holds no game's records)."""
    return [hash(j.move(k)) for k in range(j.nmoves)]


def test_a_move_played_again_over_the_set_up_after_a_cut_is_refused_and_loses_nothing():
    """What the fault campaign's hands did (tests/host/test_e2e_faults.py, before they followed the set-up):
    after a cut in the middle of a move they played it, and the next ones, again at once, over the set-up the
    board had booted into. Each touch that is not the lit place is refused and its pit queued to be checked
    too; no move is made, none journalled is lost or changed, and a cut meanwhile brings the same set-up back.
    Done, the move is played again and recorded."""
    p, m, seeds, hand, app, hw, hands, host, st = _cut_mid_move(45, 4)
    hands.scan(5)
    moves = host.moves()
    journalled = _journalled(app.journal)
    first = dict(host.said)
    assert first.get("why") == "cut", first
    for i, (pp, mm, _) in enumerate(plies()):
        if 45 <= i <= 47:
            hands.perform(pp, mm)  # the hands play this move and two more, as if the board had taken them
    host.poll()
    s = app.setup
    assert s is not None and s.current() >= 0 and s.refused > 0  # still setting up, the touches guided back
    assert "wrong" in host.said and int(host.said["of"]) > int(first["of"]), host.said  # those pits checked too
    assert host.moves() == moves and _journalled(app.journal) == journalled and app.p.d == p.d  # nothing made or lost
    from baoboard.simhw import Hands, SimHardware, SimulatedBoard

    app = hands = hw = None  # a cut again, in the middle of the set-up
    hw = SimHardware()
    host = SetupHost(hw, host)
    b = SimulatedBoard(st, "test", 3, hw=hw)
    app, hands = b.app, Hands(b, hold=4, gap=4)
    hands.scan(5)
    assert _journalled(app.journal) == journalled and host.said is not None and host.said.get("why") == "cut"
    assert host.said["of"] == first["of"]  # the same places as after the first cut: the move's
    touches, wrong = follow(app, hw, hands, host, seeds, hand=[hand])
    assert wrong == 0 and seeds == list(p.d[:34]) and "done" in host.said
    hands.scan(600)  # (the hand away from the place set up last)
    hands.perform(p, m)
    host.poll()
    assert host.moves() == moves + [core.format_move(m, p.d[core.TO_MOVE])]
    assert _journalled(app.journal)[:-1] == journalled  # the moves before it are the ones recorded, unchanged
    st.close()
