# LED frames at each phase of a move (the grammar of docs/leds.md).
from bao import core
from baoboard import guide as G
from baoboard import recogniser as R
from board_util import plies


def _rgb(g, pit):
    f = g.frame
    return (f[3 * pit] << 16) | (f[3 * pit + 1] << 8) | f[3 * pit + 2]


def _scaled(g, c):
    b = g.brightness
    return ((((c >> 16) & 255) * b >> 8) << 16) | ((((c >> 8) & 255) * b >> 8) << 8) | ((c & 255) * b >> 8)


def _lit(g):
    return [i for i in range(32) if _rgb(g, i)]


def _setup(p):
    g = G.Guide()
    g.host = True
    g.brightness = 255
    rec = R.Recogniser()
    rec.start(p, core.legal_moves(p))
    return g, rec


def test_boundary_shows_legal_starts_only_in_teach():
    p = core.initial()
    g, rec = _setup(p)
    g.render(rec, 256)
    starts = sorted(set(rec.first_pit(m) for m, _ in core.legal_moves(p)))
    assert _lit(g) == starts
    for s in starts:
        assert _rgb(g, s) == _scaled(g, G.START)
    g.mode = G.PLAY
    g.render(rec, 256)
    assert _lit(g) == []
    g.request_show(256)
    g.render(rec, 512)
    assert _lit(g) == starts
    g.mode = G.SILENT
    g.render(rec, 512)
    assert _lit(g) == []


def test_phases_of_a_mtaji_move():
    # follow one mtaji capture move pit by pit: lifted pit, direction choices, next pit, capture, kichwa
    for p, m, text in plies():
        if p.in_namua() or m & core.TAKASA:
            continue
        g, rec = _setup(p)
        acts = R.activations(p, m)
        rec.feed(acts[0])
        g.render(rec, 256)
        assert _rgb(g, acts[0]) == _scaled(g, G.LIFTED), text
        lit = [i for i in _lit(g) if i != acts[0]]
        for i in lit:
            assert _rgb(g, i) in (_scaled(g, G.CHOICE), _scaled(g, G.NEXT))
        assert acts[1] in lit
        seq = None
        for k in range(1, len(acts)):
            rec.feed(acts[k])
            if rec.phase != R.MOVING:
                break
            g.render(rec, 256)
            e = rec.expected(0)
            want = G.NEXT
            if e & R.LIFT:
                want = G.CAPTURE if (e & 31) >> 4 != p.d[core.TO_MOVE] else G.RELAY
            elif e & R.KICHWA:
                want = G.KICHWA_C
            if rec.n == 1:
                assert _rgb(g, e & 31) == _scaled(g, want), (text, k)
                seq = True
        assert seq, text
        return


def test_wrong_pit_blinks_and_capture_colours():
    p = core.initial()
    g, rec = _setup(p)
    rec.feed(31)
    g.render(rec, 0)  # blink phase 0: the wrong pit lit
    assert _rgb(g, 31) == _scaled(g, G.WRONG)
    g.render(rec, 256)
    assert _rgb(g, 31) == 0


def test_namua_capture_shows_pit_to_empty_then_kichwa_choice():
    for p, m, text in plies():
        if not (p.in_namua() and not m & core.TAKASA and 1 < (m & 15) < 6):
            continue
        g, rec = _setup(p)
        acts = R.activations(p, m)
        rec.feed(acts[0])
        g.render(rec, 256)
        assert _rgb(g, acts[1]) == _scaled(g, G.CAPTURE), text
        rec.feed(acts[1])
        g.render(rec, 256)
        side = p.d[core.TO_MOVE] << 4
        assert _rgb(g, side) == _scaled(g, G.KICHWA_C) and _rgb(g, side + 7) == _scaled(g, G.KICHWA_C), text
        return
    raise AssertionError("no namua capture with a kichwa choice in the game")


def test_house_decision_and_game_over_and_no_host():
    for p, m, _text in plies():
        if m & core.PLAY:
            g, rec = _setup(p)
            for pit in R.activations(p, m & ~core.PLAY):
                rec.feed(pit)
            assert rec.phase == R.DECISION
            house = (p.d[core.TO_MOVE] << 4) + 4
            g.render(rec, 256)
            assert _rgb(g, house) == _scaled(g, G.HOUSE)
            break
    g, rec = _setup(core.initial())
    rec.start(core.initial(), [])
    g.winner = 1
    g.render(rec, 256)
    assert _rgb(g, 20) == _scaled(g, G.WIN) and _rgb(g, 3) == _scaled(g, G.LOSE)
    g.host = False
    rec.start(core.initial(), core.legal_moves(core.initial()))
    g.render(rec, 0)
    assert _rgb(g, 8) == _scaled(g, G.NOHOST)
