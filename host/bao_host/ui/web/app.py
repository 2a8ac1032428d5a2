"""The web application of `bao serve` (Starlette): the live boards, play in the browser, the game library.

    app = create_app(Settings(data=Path(...), sims=1, ports=[...], token=None))
    uvicorn.run(app, host="127.0.0.1", port=8000)

Pages: `/` the boards and the library; `/board/<name>` a board (pits can be clicked on a simulated one),
`/board/<name>/watch` the spectator's view (read only), `/board/<name>/events` its live state as
server-sent events; `/games` the library's search, `/games/<n>` a game's replay, `/games/<n>/export/<notation>`;
`/puzzles` the puzzles (bao_host.ui.web.puzzles).

Security (issue #11): every page is a Jinja2 template with autoescaping, so a text from the library (a
player named `<script>`) is shown, never run, and the Content-Security-Policy runs only this server's own
script files besides. Requests name boards by their name in the server's table and games by their number
in the database: no part of a request is ever a file path (static files are served from a table read at
start). A request that changes a board or the library (POST, JSON) needs the token when the server has
one (`bao serve` makes one whenever it listens on other addresses than the loopback) and, always, comes
from the server's own pages (a JSON body, the same Origin): another web site cannot make a browser play.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from bao import core
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from bao_host import lessons
from bao_host.online.server import Online
from bao_host.puzzles.sets import SET_DIR
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store, StoreError
from bao_host.ui.adapter import SimBoard, make_board
from bao_host.ui.web import library
from bao_host.ui.web.live import Hub, LiveBoard
from bao_host.ui.web.online_pages import OnlinePages
from bao_host.ui.web.puzzles import PuzzlePages
from bao_host.ui.web.svg import board_svg

HERE = Path(__file__).resolve().parent
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # a player's address carries the token: never sent on
}
KEEPALIVE = 15.0  # seconds between two comments on an idle event stream


@dataclass
class Settings:
    data: Path
    sims: int = 1  # simulated boards, played in the browser
    ports: list[str] = field(default_factory=list)  # real boards: pyserial URLs followed by the logger
    token: str | None = None  # needed to change a board or the library; None: on the loopback only
    allowed_hosts: list[str] = field(default_factory=lambda: ["*"])
    tick: float = 0.01  # seconds between two looks at the boards
    south: str | None = None
    north: str | None = None
    puzzles: Path | None = None  # the folder of the puzzle sets (None: the shipped ones, puzzles/)
    online_rate: float = 10.0  # online play: requests a second per client (docs/online.md, "Bad input and limits")
    db: str | None = None  # online play's games: None in the library's SQLite, or a postgresql:// address


def load_static() -> dict[str, tuple[bytes, str]]:
    """The static files, read once: a request names one of these, never a path."""
    out = {}
    for path in sorted((HERE / "static").iterdir()):
        if path.suffix in STATIC_TYPES:
            out[path.name] = (path.read_bytes(), STATIC_TYPES[path.suffix])
    return out


class Server:
    """The boards, the store and the pages; everything runs on the server's event loop thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.hub = Hub()
        self.store: Store | None = None
        self.sims: list[SimBoard] = []
        self.sessions: list[LinkSession] = []
        self.static_files = load_static()
        self.env = Environment(
            loader=FileSystemLoader(str(HERE / "templates")),
            autoescape=select_autoescape(default=True, default_for_string=True),
        )
        self.env.filters["json"] = _json_for_script
        self.env.filters["iso_date"] = library.iso_date
        self._task: asyncio.Task[None] | None = None
        self.online = Online(settings.data, lambda: self.store, settings.online_rate, settings.db)  # (docs/online.md)
        # puzzles (docs/puzzles.md)
        self.puzzles = PuzzlePages(self.page, lambda: self.st, self.refuse, settings.puzzles or SET_DIR)

    # -- start and stop -------------------------------------------------------------------------------
    def start(self) -> None:
        s = self.settings
        self.store = Store(s.data, repair=False)
        self.online.start()
        for i in range(s.sims):
            n = i + 1
            logger = Logger(self.store, south=s.south, north=s.north)
            # Each its own flash and board id, none of them `make run`'s: the two may run at once on one
            # library, and two runtimes on one flash would each overwrite the other's journal.
            flash = self.store.root / f"web-board-{n}"
            board, pump, _ = make_board(logger, flash, board_id=f"web-{n:04d}")
            self.sims.append(board)
            self.hub.add(
                LiveBoard(
                    f"sim-{n}", logger, board=board, session=board.session, pump=pump, title=f"simulated board {n}"
                )
            )
        for i, url in enumerate(s.ports):
            logger = Logger(self.store, south=s.south, north=s.north)
            session = LinkSession(url, logger)
            self.sessions.append(session)
            self.hub.add(LiveBoard(f"board-{i + 1}", logger, session=session, title=f"board on {url}"))
        self._task = asyncio.get_running_loop().create_task(self.hub.run(s.tick))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for board in self.sims:
            board.session.close()
            board.close()
        for session in self.sessions:
            session.close()
        self.online.close()
        if self.store is not None:
            self.store.close()

    # -- helpers --------------------------------------------------------------------------------------
    def page(self, name: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        values.setdefault("token", self.token_of(request))
        values.setdefault("open_server", self.settings.token is None)
        html = self.env.get_template(name).render(**values)
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def token_of(self, request: Request) -> str:
        """The request's token if it is the right one ('' otherwise, or when none is needed)."""
        want = self.settings.token
        if want is None:
            return ""
        given = request.query_params.get("token") or request.headers.get("x-bao-token") or ""
        return given if secrets.compare_digest(given.encode(), want.encode()) else ""

    def may_change(self, request: Request) -> bool:
        return self.settings.token is None or bool(self.token_of(request))

    def board_of(self, request: Request) -> LiveBoard:
        board = self.hub.boards.get(request.path_params["name"])
        if board is None:
            raise LookupError(f"no board {request.path_params['name']!r}")
        return board

    @property
    def st(self) -> Store:
        assert self.store is not None, "the server has not started"
        return self.store

    # -- pages ----------------------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        return self.page("index.html", request, boards=list(self.hub.boards.values()))

    async def board_page(self, request: Request) -> Response:
        return await self._board(request, spectator=False)

    async def watch_page(self, request: Request) -> Response:
        return await self._board(request, spectator=True)

    async def _board(self, request: Request, spectator: bool) -> Response:
        try:
            board = self.board_of(request)
        except LookupError as e:
            return self.page("error.html", request, 404, message=str(e))
        playing = not spectator and board.playable and self.may_change(request)
        state = board.current()
        svg = board_svg(state["counts"], (state["stores"][0], state["stores"][1]), clickable=playing)
        return self.page(
            "board.html",
            request,
            board=board,
            svg=svg,
            spectator=spectator,
            playing=playing,
            rulesets=core.RULESETS,
            lessons=self.lessons(),
            lesson=request.query_params.get("lesson"),
        )

    def lessons(self) -> list[dict[str, str]]:
        """The lessons a page may start (name and title), with the learner's progress from the library."""
        try:
            found = lessons.load_all()
        except lessons.LessonError:  # a lesson file that cannot be read: no lessons offered (`bao lessons` says why)
            return []
        kept = self.st.lessons_progress()
        return [
            {"name": x.name, "title": x.title, "done": "done" if x.name in kept and kept[x.name].done else ""}
            for x in found
        ]

    async def events(self, request: Request) -> Response:
        try:
            board = self.board_of(request)
        except LookupError as e:
            return PlainTextResponse(str(e), status_code=404)
        q = board.subscribe()

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 500\n\n"
                while True:
                    try:
                        state = await asyncio.wait_for(q.get(), KEEPALIVE)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    if state is None:  # the server is stopping
                        return
                    yield "data: " + json.dumps(state, separators=(",", ":")) + "\n\n"
            finally:
                board.unsubscribe(q)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", **SECURITY_HEADERS}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def state(self, request: Request) -> Response:
        try:
            return JSONResponse(self.board_of(request).current(), headers=SECURITY_HEADERS)
        except LookupError as e:
            return JSONResponse({"error": str(e)}, status_code=404)

    async def command(self, request: Request) -> Response:
        """POST /board/<name>/<what> with a JSON body: touch {pit}, new {ruleset}, undo, mode {mode},
        computer {level} (0 two players, 1..4 the board's engine, 5 the host's), hint, lesson {lesson} (a
        lesson's name, `bao lessons`)."""
        refused = self.refuse(request)
        if refused is not None:
            return refused
        try:
            board = self.board_of(request)
        except LookupError as e:
            return JSONResponse({"error": str(e)}, status_code=404)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body is not a JSON object"}, status_code=400)
        what = request.path_params["what"]
        try:
            if what == "touch":
                pit = body.get("pit")
                if not isinstance(pit, int) or isinstance(pit, bool):
                    raise ValueError("pit must be a number 0..31")
                board.touch(pit)
            elif what == "new":
                board.new_game(str(body.get("ruleset", core.ZANZIBAR)))
            elif what == "undo":
                board.undo()
            elif what == "mode":
                board.set_mode(str(body.get("mode", "")))
            elif what == "computer":
                level = body.get("level")
                if not isinstance(level, int) or isinstance(level, bool):
                    raise ValueError("level must be a number 0..5")
                board.computer(level)
            elif what == "hint":
                board.hint()
            elif what == "lesson":
                board.start_lesson(str(body.get("lesson", "")))
            else:
                return JSONResponse(
                    {"error": f"unknown command {what!r} (touch, new, undo, mode, computer, hint, lesson)"},
                    status_code=404,
                )
        except PermissionError as e:
            return JSONResponse({"error": str(e)}, status_code=403)
        except ValueError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        return JSONResponse({"ok": True})

    def refuse(self, request: Request) -> Response | None:
        """Why a request that would change something is refused (None: it may go on)."""
        if not self.may_change(request):
            return JSONResponse(
                {"error": "this server needs its token to change a board (printed by `bao serve` at start)"},
                status_code=403,
            )
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"error": "send JSON (Content-Type: application/json)"}, status_code=415)
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
            return JSONResponse({"error": "a request from another site"}, status_code=403)
        return None

    async def games(self, request: Request) -> Response:
        q = request.query_params
        search = library.Search(
            player=q.get("player", "").strip(),
            date=q.get("date", "").strip(),
            ruleset=q.get("ruleset", "").strip(),
            result=q.get("result", "").strip(),
        )
        found = search.games(self.st)
        return self.page(
            "games.html",
            request,
            search=search,
            games=found.games,
            practice=found.practice,
            empty=found.empty,
            rulesets=core.RULESETS,
        )

    async def game(self, request: Request) -> Response:
        try:
            g = self.st.game(int(request.path_params["id"]))
            replay = library.replay(self.st, g)
        except (StoreError, core.BaoError) as e:
            return self.page("error.html", request, 404, message=str(e))
        a = library.analysis(self.st, g)
        points = library.eval_points(a.get("evals", [])) if a else ""
        marks = {int(p.get("ply", 0)): p for p in a["plies"] if isinstance(p, dict)} if a else {}
        svg = board_svg(replay["start"][:32], (replay["start"][32], replay["start"][33]))
        return self.page(
            "game.html", request, game=g, replay=replay, analysis=a, marks=marks, eval_points=points, svg=svg
        )

    async def export(self, request: Request) -> Response:
        dialect = request.path_params["dialect"]
        try:
            g = self.st.game(int(request.path_params["id"]))
            text = library.export(self.st, g, dialect)
        except (StoreError, core.BaoError, ValueError) as e:
            return PlainTextResponse(str(e), status_code=404)
        name = library.export_name(g, dialect)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{name}"', **SECURITY_HEADERS}
        )

    async def favicon(self, request: Request) -> Response:
        found = self.static_files["favicon.svg"]
        return Response(found[0], media_type=found[1], headers={"Cache-Control": "max-age=86400", **SECURITY_HEADERS})

    async def static(self, request: Request) -> Response:
        found = self.static_files.get(request.path_params["name"])
        if found is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(found[0], media_type=found[1], headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})


def _json_for_script(value: Any) -> Any:
    """JSON inside a <script type="application/json">: <, > and & escaped so no text can close the tag."""
    from markupsafe import Markup

    text = json.dumps(value, separators=(",", ":"))
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


class WebServer(uvicorn.Server):
    """uvicorn for `bao serve`: when it stops it first ends the pages' event streams, which would otherwise
    hold it up until its graceful-shutdown timeout (and be cancelled with a traceback)."""

    def __init__(self, app: Starlette, on_listening: Callable[[], None] | None = None, **config: Any) -> None:
        super().__init__(uvicorn.Config(app, **config))
        self.web: Server = app.state.server
        self.on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.on_listening is not None:  # (the app starts before its socket listens)
            self.on_listening()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.web.hub.close()
        self.web.online.end_streams()
        await super().shutdown(sockets=sockets)


def create_app(settings: Settings, on_start: Callable[[Server], None] | None = None) -> Starlette:
    server = Server(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.start()
        if on_start is not None:
            on_start(server)
        try:
            yield
        finally:
            await server.stop()

    routes = [
        *OnlinePages(server.online, server.page).routes(),  # (before the protocol's catch-all under /online/)
        *server.online.routes(),
        *server.puzzles.routes(),
        Route("/", server.index),
        Route("/board/{name}", server.board_page),
        Route("/board/{name}/watch", server.watch_page),
        Route("/board/{name}/events", server.events),
        Route("/board/{name}/state", server.state),
        Route("/board/{name}/{what}", server.command, methods=["POST"]),
        Route("/games", server.games),
        Route("/games/{id:int}", server.game),
        Route("/games/{id:int}/export/{dialect}", server.export),
        Route("/static/{name}", server.static),
        Route("/favicon.ico", server.favicon),  # (browsers ask for it whatever the page's <link> says)
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=settings.allowed_hosts)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    return app
