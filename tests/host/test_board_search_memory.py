"""The board's own search (baoboard.opponent) when the heap has no room for it: the board goes on scanning,
reporting and following the player; it is not restarted by its supervisor, and it thinks again."""

from __future__ import annotations

from typing import Any

import pytest
from bao import core
from bao.engine import Engine
from board_util import board


def test_a_search_without_room_neither_restarts_the_board_nor_loses_the_computers_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, hw, hands, host, st = board()
    try:
        search = Engine.search
        tries: list[int] = []

        def no_room(self: Engine, *args: Any, **kwargs: Any) -> Any:
            tries.append(1)
            raise MemoryError("no room for the search")

        monkeypatch.setattr(Engine, "search", no_room)
        host.command(1, "CPU", "S 1")  # the computer plays South, whose turn it is
        hands.scan(3)
        host.poll()
        assert (1, "OK", "S 1") in host.replies
        assert len(tries) >= 4, tries  # the search, its smaller fallback, and again at a later step
        assert hands.board.app is app and hands.board.runtime.restarts == 0  # not a fault: no restart
        assert app.rec.hint < 0 and app.p.d[core.TO_MOVE] == core.SOUTH  # nothing lit yet
        monkeypatch.setattr(Engine, "search", search)  # room again
        hands.scan(3)
        assert app.rec.hint >= 0  # the computer's move is lit
        assert hands.board.runtime.restarts == 0
    finally:
        st.close()


def test_the_board_searches_with_a_larger_table_where_the_heap_has_the_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a Pico (4-byte words) the table takes at most a quarter of the free heap: the Bao-board image's room
    at a search's start gives more than the 2,048 slots a stock image's heap held, a small heap no more."""
    from baoboard import opponent

    monkeypatch.setattr(opponent, "_wide", lambda: False)  # a Pico's word
    for free in (24_000, 64_000, 140_000, 200_000):
        bits = opponent.table_bits(free)
        assert 2 * 4 << bits <= free // 4, (free, bits)  # the two lists of slots within a quarter
    assert opponent.table_bits(200_000) > 11  # the image's room: a larger table
    assert opponent.table_bits(24_000) <= 9  # a small heap: as small as before
