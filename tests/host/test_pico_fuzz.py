"""The fuzzers of bao_testkit.picofuzz, short, against the Bao-board image on the emulated Pico (`make
test-pico`, marked pico; the long form: `python tools/bench_soak.py --runtime pico`, docs/benchmarks.md).
Each is deterministic: the emulated Pico's time runs only when the test says, the inputs come from a seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from bao_testkit.picofuzz import journal_fuzz, protocol_fuzz
from bao_testkit.picorig import NEEDS_PICO

pytestmark = [pytest.mark.pico, NEEDS_PICO]


def test_bad_lines_and_commands_between_moves_and_in_a_move_get_one_answer_each_and_lose_no_move(
    tmp_path: Path,
) -> None:
    rep = protocol_fuzz(tmp_path, seed=3, plies=2, per_stage=6)
    assert rep.found == []
    assert rep.stages == {"between moves": 12, "in a move": 12}
    assert rep.moves == 2


def test_bad_lines_and_commands_in_a_house_decision_and_a_finished_game_get_one_answer_each_and_lose_no_move(
    tmp_path: Path,
) -> None:
    # (issue #26: the fuzzer reached neither stage before) the 1994 game's 30th move waits for the house
    # decision (Zanzibar 2.5b) through the inputs and is played on after them; a random game's last move
    # ends it, the inputs come on the finished game, and a power cut after them keeps that move
    rep = protocol_fuzz(tmp_path, seed=3, plies=0, per_stage=6, ends=True)
    assert rep.found == []
    assert rep.stages == {"house decision": 6, "game over": 6}
    assert rep.moves == 1


def test_a_damaged_journal_sector_at_boot_keeps_every_intact_move_and_reports_a_loss(tmp_path: Path) -> None:
    # (a damaged commit word dropped the moves after it under the same epoch before issue #26's fix; the
    # long form, every kind of damage: tools/bench_soak.py --runtime pico)
    kinds = ("commit", "byte", "erased")
    cases = journal_fuzz(tmp_path, seed=5, plies=6, cases=3, kinds=kinds)
    assert [c.found for c in cases if c.found] == []
    assert [c.kind for c in cases] == list(kinds) and all(c.booted for c in cases)
    assert any(c.kept < c.played for c in cases)  # (damage that lost moves was made, and reported)


def test_a_damaged_journal_with_a_house_decision_waiting_or_a_finished_game_boots_and_keeps_every_intact_move(
    tmp_path: Path,
) -> None:
    # (issue #26: the journal fuzzer's board had only a game under way) switched off while a move waits for
    # its house decision (Zanzibar 2.5b; the move not journaled), and with a finished game on its flash
    # (a zeroed sector also takes the record of the position the host set: the board is back at its first
    # game's start with a new epoch; the long form, every kind: tools/bench_soak.py --runtime pico)
    for stage, kind in (("decision", "zeroed"), ("over", "commit")):
        cases = journal_fuzz(tmp_path / stage, seed=5, plies=3, cases=1, kinds=(kind,), stage=stage)
        assert [c.found for c in cases if c.found] == []
        assert [(c.stage, c.kind, c.booted) for c in cases] == [(stage, kind, True)]


def test_a_power_cut_after_ten_seconds_of_pico_time_boots_the_board_again(tmp_path: Path) -> None:
    # issue #26, found by the campaign on the image: the boot after a cut was bounded by the Pico's clock
    # before the cut (10 s), so a board cut after 10 s of play "did not start" at once, with no error
    from bao_host.boards.pico import PicoBoard

    board = PicoBoard(str(tmp_path), seed=2, flash_timing=False)
    try:
        hellos = board.hellos
        board.run(1, 10500)
        board.power_cut()
        assert board.power_cuts == 1 and board.hellos == hellos + 1 and board.errors == []
        assert board.pico_ms < 10000  # (the restarted board's own clock)
    finally:
        board.close()


def test_a_burst_of_host_lines_in_a_move_loses_no_touch(tmp_path: Path) -> None:
    # The early Malawi stall of the campaign on the image, reproduced (issue #26): a burst of host lines before
    # every other touch (a reconnecting logger's HELLO, line noise, a NAK, a PING, a UI's SNAP, as the fault
    # proxy delivers them). Taken in one or two steps, it kept the board from its sensors past a 50 ms touch:
    # the touch went unseen, the board waited at that step and refused the hands' next touches, and a7L was
    # never recorded. The board takes one piece of the link's work a scan (App.scan: a line, a command, an
    # event sent again), so it reads its sensors often enough through the burst (docs/benchmarks.md).
    import json
    import random

    from bao import core, position_json
    from bao_host.boards.pico import PicoBoard
    from bao_testkit.picofuzz import HELLO, THINK, Host, touch
    from bao_testkit.simrig import random_game
    from baoboard.recogniser import activations
    from baoproto.frames import encode

    rng = random.Random(4)
    games = [random_game(rng, core.MALAWI if i % 2 == 0 else core.ZANZIBAR) for i in range(3)]
    p, m = games[2].moves[1]  # a7L
    board = PicoBoard(str(tmp_path), seed=4, flash_timing=True)
    host = Host(board)
    noise = random.Random(2)
    try:
        assert host.command("HELLO", HELLO).startswith("OK ")
        assert host.command("SETPOS", position_json.dumps(p, False)) == "OK"
        board.run(THINK, 5)
        for k, pit in enumerate(activations(p, m)):
            if k % 2 == 1:
                burst = b"\n" + encode("C", 5000 + k, "HELLO", HELLO)
                for _ in range(4):
                    burst += bytes(noise.randrange(32, 127) for _ in range(noise.randrange(5, 60))) + b"\n"
                board.write_serial(
                    burst + b"A1 NAK bad=2\n" + encode("C", 6000 + k, "PING") + encode("C", 7000 + k, "SNAP")
                )
            touch(board, [pit])
        board.run(THINK, 5)
        events = [board.events[n] for n in sorted(board.events)]
        refused = [json.loads(payload)["pit"] for typ, payload in events if typ == "ILLEGAL"]
        moves = [payload.split(" ", 1)[0] for typ, payload in events if typ == "MOVE"]
        assert (moves, refused) == (["a7L"], [])
    finally:
        board.close()
