"""Words built from counts agree with them in number, everywhere the guidance says a count (issue #25: "capture
the 1 seed of A4 and sow them in"): the rules core's sentences for every step of every legal move in seeded
random games of each ruleset (what the guidance line, the computer's move, a hint and the replay say), the
diagram's status line, and the set-up's last words."""

from __future__ import annotations

import random
import re

from bao import core, explain, query
from bao_host.ui import diagram, setup_words

# a count of one with a plural word, a plural pronoun for one seed, or a "(s)" left for the reader
SLIPS = re.compile(r"\b1 (seeds|places|touches|plies|moves|pits)\b|\b1 seed\b[^;:]* them\b|\(s\)")


def _sentences(ruleset: str, games: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    said: list[str] = []
    for _ in range(games):
        p = core.initial(ruleset)
        for _ply in range(120):
            moves = core.legal_moves(p)
            if not moves or core.outcome(p) is not None:
                break
            for move, _child in moves:
                said += explain.describe(query.account(p, move))
            said.append(diagram.status_line(p))
            move, p = rng.choice(moves)
    return said


def test_every_step_of_every_move_says_its_counts_in_the_right_number() -> None:
    said = [s for ruleset in core.RULESETS for s in _sentences(ruleset, 3, 25)]
    slips = sorted({SLIPS.sub(lambda m: f"[{m.group(0)}]", s) for s in said if SLIPS.search(s)})
    assert not slips, slips[:10]
    # the counts of one these games do say (so that the slips above could be seen)
    assert any(s.startswith("capture the 1 seed of ") and " sow it in " in s for s in said)
    assert any(s.startswith("sow 1 seed: ") for s in said)


def test_the_set_up_says_one_place_and_one_touch() -> None:
    said = setup_words.end_words(setup_words.SetupEnd(done=True, steps=1, touches=1, refused=0))
    assert said == "The board is set up: 1 place put right in 1 touch."
