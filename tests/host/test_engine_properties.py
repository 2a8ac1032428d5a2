"""The engine never answers an illegal move: hypothesis over random positions of every ruleset and
random limits (a property test; the fixed positions of tests/firmware/test_engine.py run on MicroPython)."""

from __future__ import annotations

from bao import core, engine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ENGINE = engine.Engine(tt_bits=12)  # shared: a table full of other positions' entries must not mislead it


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from([core.ZANZIBAR, core.MALAWI]),
    choices=st.lists(st.integers(min_value=0, max_value=63), min_size=0, max_size=80),
    takasia=st.booleans(),
    limit=st.sampled_from(["depth", "nodes", "stop"]),
    amount=st.integers(min_value=1, max_value=300),
)
def test_engine_answers_a_legal_move(ruleset: str, choices: list[int], takasia: bool, limit: str, amount: int) -> None:
    rules = core.Rules(ruleset, takasia=takasia)
    p = core.initial(ruleset, rules)
    for c in choices:
        moves = core.legal_move_codes(p)
        if not moves:
            break
        p = core.play(p, moves[c % len(moves)])
    legal = core.legal_move_codes(p)
    calls = [0]

    def stop_after() -> bool:
        calls[0] += 1
        return calls[0] > amount // 30

    if limit == "depth":
        r = ENGINE.search(p, depth=1 + amount % 3)
    elif limit == "nodes":
        r = ENGINE.search(p, nodes=amount)
    else:
        r = ENGINE.search(p, should_stop=stop_after)
    if not legal or core.outcome(p) is not None:
        assert r.move is None
        return
    assert r.move in legal
    child = p
    for m in r.pv:  # the whole variation is a legal line
        codes = core.legal_move_codes(child)
        assert m in codes
        child = core.play(child, m)
