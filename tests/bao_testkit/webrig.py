"""`bao serve`'s application under a real uvicorn on the loopback, for the web tests and tools/bench_web.py.

with serving(data_dir, sims=1, token=None) as web:     # web.url, web.server (bao_host.ui.web.app.Server)
    web.board("sim-1")        the simulated board (SimBoard): its runner performs moves as hands do
    web.call(fn)              fn() run on the server's loop, its value returned: a board's link and state are the
                              loop's alone (a command sent from the test's thread would race the loop's polls)
browser(): a headless Chromium (Debian's package) through Playwright, or None with the reason why not
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bao_host.ui import lights
from bao_host.ui.adapter import SimBoard
from bao_host.ui.web.app import Server, Settings, WebServer, create_app

from bao_testkit import simrig

CHROMIUM_NAMES = ("chromium", "chromium-browser")


@dataclass
class Web:
    url: str
    server: Server
    loop: asyncio.AbstractEventLoop

    def call(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """fn() on the server's event loop (between two of its steps), its value here."""

        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def board(self, name: str = "sim-1") -> SimBoard:
        b = self.server.hub.boards[name].board
        assert isinstance(b, SimBoard)
        return b


def wait_for(cond: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """cond()'s first true value, bounded in time (simrig.wait_for, with the web tests' argument order)."""
    return simrig.wait_for(cond, timeout, what=what)


@contextlib.contextmanager
def serving(
    data: Path,
    sims: int = 1,
    token: str | None = None,
    ports: list[str] | None = None,
    south: str | None = None,
    north: str | None = None,
    puzzles: Path | None = None,
) -> Iterator[Web]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    started: list[Server] = []
    loops: list[asyncio.AbstractEventLoop] = []

    def on_start(server: Server) -> None:
        loops.append(asyncio.get_running_loop())
        started.append(server)

    app = create_app(
        Settings(
            data=data,
            sims=sims,
            token=token,
            ports=ports or [],
            south=south,
            north=north,
            puzzles=puzzles,
            allowed_hosts=["127.0.0.1", "localhost"],
        ),
        on_start=on_start,
    )
    server = WebServer(app, log_level="warning", timeout_graceful_shutdown=5, lifespan="on")
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="web-server", daemon=True)
    thread.start()
    try:
        wait_for(lambda: started and server.started, "the web server to start")
        web = Web(f"http://127.0.0.1:{port}", started[0], loops[0])
        for name in list(web.server.hub.boards)[:sims]:  # the simulated boards' handshakes (asked over
            # HTTP: the boards' state is the server loop's alone)
            wait_for(lambda n=name: state(web, n)["game"] is not None, f"{name}'s first game")
        yield web
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "the web server did not stop"


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_unavailable() -> str:
    """Why the browser tests cannot run here ('' when they can)."""
    if chromium_path() is None:
        return "no headless Chromium here (Debian: apt-get install chromium): browser tests skipped"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright): browser tests skipped"
    return ""


def led_colour(r: int, g: int, b: int, frame: bytes = b"") -> tuple[int, int, int]:
    """The colour a pit is drawn in for an LED value of `frame` (the mapping static/board.js and the terminal
    UI use, bao_host.ui.lights): dark stays #202020, the frame brought back from the board's brightness by
    one factor (a dim colour stays dim)."""
    return lights.colour((r, g, b), lights.scale(frame))


def state(web: Web, name: str = "sim-1") -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(f"{web.url}/board/{name}/state", timeout=10) as r:
        return dict(json.loads(r.read()))


def compare_screenshot(shots: Path, name: str, png: bytes) -> None:
    """The screenshot against the one kept as shots/NAME.png (compare_png)."""
    compare_png(shots / f"{name}.png", png)


def compare_png(path: Path, png: bytes, tolerance: float = 0.005) -> None:
    """A screenshot against the one kept at path: the same size, and at most `tolerance` of its pixels visibly
    different (font hinting may move an edge by a pixel between two Chromium builds). BAO_UPDATE_SCREENSHOTS=1
    writes it anew; a failing one is left beside it as NAME.new.png to look at."""
    import io
    import os

    from PIL import Image, ImageChops

    if os.environ.get("BAO_UPDATE_SCREENSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(png)
        return
    assert path.exists(), f"no kept screenshot {path.name}: BAO_UPDATE_SCREENSHOTS=1 makes it"
    got = Image.open(io.BytesIO(png)).convert("RGB")
    want = Image.open(path).convert("RGB")
    assert got.size == want.size, (path.name, got.size, want.size)
    diff = ImageChops.difference(got, want).convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = diff.histogram()[255] / (got.width * got.height)
    if changed > tolerance:
        path.with_suffix(".new.png").write_bytes(png)
    assert changed <= tolerance, f"{path.name}: {changed:.2%} of the pixels differ (see {path.stem}.new.png)"
