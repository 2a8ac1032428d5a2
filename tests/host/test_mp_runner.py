"""The MicroPython test runner's heaps (tools/run_mp_tests.py, `make test-mp`): which heap each port gives a
module, and what it says of a build it cannot find."""

from __future__ import annotations

from pathlib import Path

import pytest
import run_mp_tests as runner

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_runs_at_its_boards_heap_with_no_exception() -> None:
    for mod in runner.modules([]):
        assert runner.heap_of(mod, 64, runner.FROZEN) == 64  # the image: the firmware's code in flash
        assert runner.heap_of(mod, 64, "64-bit") == runner.HEAP_MPY  # .mpy in the heap, word-scaled: 160wk
        assert runner.heap_of(mod, 64, "32-bit") == runner.HEAP_MPY == 160  # .mpy on a stock MicroPython
    assert runner.heap_of("test_board_app", 64, "32-bit", heap_mpy=100) == 100


def test_a_heap_is_read_as_micropython_reads_it() -> None:
    assert runner.words("64wk") == runner.words("64k") == 64
    with pytest.raises(Exception, match="NNk or NNwk"):
        runner.words("64 KB")


def test_a_missing_frozen_build_is_named_with_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="tools/frozen_unix32.sh") as e:
        runner.ports("micropython", "", str(tmp_path / "nothing"))
    assert str(tmp_path / "nothing") in str(e.value)
    names = [name for name, _, _ in runner.ports("micropython", str(tmp_path / "absent32"))]
    assert names == ["64-bit"]  # an absent 32-bit build is skipped with one line
