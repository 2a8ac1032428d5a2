"""The suite's order: the tests named in tests/slowest.txt first, slowest first. make test-py hands tests to
pytest-xdist's workers one at a time in this order (--dist load --maxschedchunk 1), so no long test starts
last and runs alone while the other workers idle (longest first: the classic list schedule). The order changes
no result. Refresh the list from a run's report: `make test-order` (tools/slowest_tests.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

SLOWEST = Path(__file__).with_name("slowest.txt")


def slowest_first() -> dict[str, int]:
    """Node id -> its rank in tests/slowest.txt (0 the slowest); a missing or unreadable list orders nothing."""
    try:
        lines = SLOWEST.read_text().splitlines()
    except OSError:
        return {}
    ids = [x.strip() for x in lines if x.strip() and not x.startswith("#")]
    return {node: rank for rank, node in enumerate(ids)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = slowest_first()
    if rank:  # (a stable sort: the rest keep the files' order)
        items.sort(key=lambda item: rank.get(item.nodeid, len(rank)))
