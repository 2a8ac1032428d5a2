"""The live view of `bao log` and `bao board`: the logger's state as one rich panel, redrawn as events come."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from bao_host.record.logger import Logger, side_name
from bao_host.ui import steps
from bao_host.ui.diagram import render_text
from bao_host.ui.safe import plain


def live_view(logger: Logger) -> Any:
    v = logger.view
    parts: list[Any] = []
    head = f"board {v.board_id or '?'} fw {v.firmware or '?'}  [{v.connection}] {v.port}"
    parts.append(Text(plain(head), style="bold"))
    if v.position is not None:
        parts.append(Text(render_text(v.position)))
        turn = v.result or side_name(v.position.to_move) + " to move"
        parts.append(Text(plain(f"game {v.game_id}: {v.south or '?'} (South) - {v.north or '?'} (North): {turn}")))
        last = v.plies[-8:]
        first = len(v.plies) - len(last)
        shown = "  ".join(f"{(first + i) // 2 + 1}.{t}" for i, t in enumerate(last))
        parts.append(Text("last moves: " + shown))
        if v.state is not None:  # the step the board waits for, as it says it (protocol 4: its STATE)
            parts.append(Text(plain(steps.step_guidance(v.state, v.position.rules)), style="cyan"))
    else:
        parts.append(Text("waiting for a game"))
    c = logger.counters
    parts.append(
        Text(
            f"moves stored {c.moves}, events {c.events}, duplicates dropped {c.duplicates}, "
            f"flagged {c.flagged}, bad frames {c.bad_frames}"
        )
    )
    for m in list(logger.messages)[-6:]:
        style = {"info": "", "detail": "dim", "warn": "yellow", "error": "bold red"}[m.level]
        parts.append(Text(plain(m.text), style=style))
    return Panel(Group(*parts), title="bao log")
