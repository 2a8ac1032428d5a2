"""Online play in the browser (issue #27, docs/online.md "In the browser"): the pages of `bao serve` that let a
player without a board make, join and play an online game, and let anybody watch one, drop by drop.

    /online                       make a game (the answer's seat token stays in the browser), or join one
    /online/join#CODE             an invitation link: join the game (the code is in the fragment: never sent
                                  in an address, never logged)
    /online/game/<game>           the game: played when this browser holds a seat, else watched
    /online/game/<game>/watch     the game, watched (read only)
    /online/game/<game>/ply/<n>   (JSON) the position after n moves as the pages draw it: the counts, the
                                  n-th move drop by drop (the rules core's account, as the replay's) and the
                                  legal moves of the side to move, each with its start pit

The pages speak the client protocol themselves (the game's event stream, a POST per move with the seat
token): the server's pages add only what a browser cannot compute without the rules core (the drops of a
move, the legal moves). A seat token never leaves the browser but in the protocol's Authorization header.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bao import core, notation
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bao_host.online import protocol as P
from bao_host.online.server import Online
from bao_host.ui.web.library import ply_frames
from bao_host.ui.web.svg import board_svg

JSON_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}

Page = Callable[..., HTMLResponse]


def turn_text(p: core.Position, status: str, result: str, reason: str) -> str:
    """The line over the board: who is to move, or how the game ended."""
    if status == "waiting":
        return "waiting for the other player to join"
    if status in ("over", "aborted"):
        return (result or "no result") + (f" ({reason})" if reason else "")
    w = core.outcome(p)
    if w is not None:
        return f"{P.side_name('SN'[w])} wins"
    return f"{P.side_name('SN'[p.to_move])} to move"


def legal_choices(p: core.Position) -> list[dict[str, Any]]:
    """The legal moves of the side to move, each with its start pit and a sentence for a player choosing
    between the moves of one pit (its direction, a capture's kichwa, the house)."""
    out = []
    for m, _ in core.legal_moves(p):
        text = notation.format_move(m, p.to_move)
        said: list[str] = []
        for f in ply_frames(p, m):  # (each drop's sentence ends with its count, "(2 of 3)": one said per sowing)
            step = str(f["text"]).split(" (")[0]
            if not step.startswith(("a seed from the store", "lift")) and (not said or said[-1] != step):
                said.append(step)
        words = "; ".join(said)
        out.append({"move": text, "pit": p.to_move * 16 + (m & core.RING), "words": words[:200]})
    return out


def ply_view(online: Online, gid: str, n: int) -> dict[str, Any] | None:
    """The position after n moves of an online game, for its pages (None: no such game or ply)."""
    g = online.game(gid)
    if g is None or not 0 <= n <= len(g.moves):
        return None
    p = g.positions[n]
    view: dict[str, Any] = {
        "game": gid,
        "ply": n,
        "counts": p.counts(),
        "to_move": "SN"[p.to_move],
        "turn": turn_text(p, g.status, g.result, g.reason)
        if n == len(g.moves)
        else f"{P.side_name('SN'[p.to_move])} to move",
        "frames": [],
        "move": "",
        "side": "",
        "legal": [],
    }
    if n > 0:
        before = g.positions[n - 1]
        move, _ = notation.parse_move(before, g.moves[n - 1])
        view["move"], view["side"] = g.moves[n - 1], "SN"[before.to_move]
        view["frames"] = [{"counts": f["counts"], "pit": f["pit"], "text": f["text"]} for f in ply_frames(before, move)]
    if g.status == "playing" and n == len(g.moves) and core.outcome(p) is None:
        view["legal"] = legal_choices(p)
    return view


class OnlinePages:
    def __init__(self, online: Online, page: Page) -> None:
        self.online = online
        self.page = page

    async def lobby(self, request: Request) -> Response:
        games = [
            {
                "id": g["game"],
                "south": g["seats"]["S"],
                "north": g["seats"]["N"],
                "status": g["status"],
                "plies": g["plies"],
            }
            for g in self.online.lobby()
        ]  # (from the store: every server process on a shared database lists the same games)
        return self.page("online.html", request, rulesets=core.RULESETS, games=games)

    async def join(self, request: Request) -> Response:
        return self.page("online_join.html", request)

    async def game(self, request: Request) -> Response:
        return self._game(request, spectator=False)

    async def watch(self, request: Request) -> Response:
        return self._game(request, spectator=True)

    def _game(self, request: Request, spectator: bool) -> Response:
        gid = str(request.path_params["game"])
        g = self.online.game(gid)
        if g is None:
            return self.page("error.html", request, 404, message=f"no online game {gid[:40]!r} on this server")
        p = g.positions[-1]
        svg = board_svg(p.counts()[:32], (p.store(0), p.store(1)), clickable=not spectator)
        names = {s: (g.seats[s][1] if s in g.seats else "") for s in P.SIDES}
        return self.page(
            "online_game.html",
            request,
            game=g.id,
            svg=svg,
            spectator=spectator,
            names=names,
            plies=len(g.moves),
            turn=turn_text(p, g.status, g.result, g.reason),
        )

    async def ply(self, request: Request) -> Response:
        try:
            n = int(request.path_params["n"])
        except ValueError:
            n = -1
        view = ply_view(self.online, str(request.path_params["game"]), n)
        if view is None:
            return JSONResponse({"error": "no such game or move"}, status_code=404, headers=JSON_HEADERS)
        return JSONResponse(view, headers=JSON_HEADERS)

    def routes(self) -> list[Route]:
        return [
            Route("/online", self.lobby),
            Route("/online/join", self.join),
            Route("/online/game/{game}", self.game),
            Route("/online/game/{game}/watch", self.watch),
            Route("/online/game/{game}/ply/{n}", self.ply),
        ]
