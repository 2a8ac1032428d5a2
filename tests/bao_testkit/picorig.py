"""The emulated Pico's tests' common mark: skipped, with the reason, where rp2040js (make pico-deps) or the
Bao-board image (make image) is missing."""

from __future__ import annotations

import pytest
from bao_host.boards.pico import PicoUnavailable, check_available


def unavailable() -> str:
    """Why the emulated Pico cannot run here, or "" when it can."""
    try:
        check_available()
    except PicoUnavailable as e:
        return str(e)
    return ""


UNAVAILABLE = unavailable()
NEEDS_PICO = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no emulated Pico: {UNAVAILABLE}")
