"""Broken sensors on the Bao-board image in the emulated Pico (bao_testkit.picosensors; issue #26): the image's
own judgement of its sensors, as a person sees it, its events and its LEDs. Marked pico (`make test-pico`);
the long form: `python tools/bench_soak.py --runtime pico --sensors N`, docs/benchmarks.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from bao_testkit.picorig import NEEDS_PICO
from bao_testkit.picosensors import idle_faults, silent_in_play
from bao_testkit.simrig import game_1994

pytestmark = [pytest.mark.pico, NEEDS_PICO]


def test_a_stuck_chip_a_stuck_pit_and_a_flickering_pit_are_reported_lit_and_start_no_computer(tmp_path: Path) -> None:
    # U1 (row B: B1 and B8 held are the computer's gesture) reads all 8 inputs active, a5 (U3) is stuck, b5
    # (U4) flickers at 30 % of the reads: three ERROR events (the chip once, not 8 pits), ten pits magenta,
    # no CPU event; mended, the stuck ones read idle for 2 s and go dark, the flickering one stays magenta
    rep = idle_faults(tmp_path, seed=1, chip=0, stuck=20, flicker=27, rate=30)
    assert rep.found == []
    assert [e["fault"] for e in rep.errors] == ["flicker", "chip", "stuck"]
    assert rep.lit == ["B8", "B7", "B6", "B5", "B4", "B3", "B2", "B1", "a5", "b5"] and rep.mended == ["b5"]


def test_a_silent_chip_in_play_is_found_lit_and_every_move_is_recorded(tmp_path: Path) -> None:
    # the 1994 game's 7th move (8R*: A8, A8, then row B on U1, which senses nothing) and North's answer:
    # North's first touch is refused, made again after a look, and shows U1 silent; 8R* is taken as made
    rep = silent_in_play(tmp_path, seed=1, game=game_1994(), ply=6, plies=2, chip=0)
    assert rep.found == []
    assert rep.moves == ["8R*", "6R*"]
    assert rep.lit == ["B8", "B7", "B6", "B5", "B4", "B3", "B2", "B1"]
