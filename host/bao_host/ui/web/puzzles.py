"""Puzzles in the browser: `/puzzles` the sets by ruleset, `/puzzles/<id>` one puzzle (its position drawn as
the live board is, the move typed), `POST /puzzles/<id>/answer` {move, solver} checks it and answers the
result with the solver's new Glicko-2 rating (kept in the library: bao_host.puzzles.session)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bao import core, position_json
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bao_host.puzzles import model
from bao_host.puzzles.session import Solving
from bao_host.puzzles.sets import SET_DIR, load_sets
from bao_host.record.store import Store, StoreError
from bao_host.ui.web.svg import board_svg

SIDES = ("South", "North")
LISTED = 60  # puzzles listed per ruleset on /puzzles (the solver's next ones first)


class PuzzlePages:
    """page(name, request, status, **values) renders a template (Server.page); store() is the library;
    refuse(request) is the server's check of a request that changes something."""

    def __init__(
        self,
        page: Callable[..., HTMLResponse],
        store: Callable[[], Store],
        refuse: Callable[[Request], Response | None],
        folder: Path = SET_DIR,
    ) -> None:
        self.page = page
        self.store = store
        self.refuse = refuse
        self.folder = folder
        self._puzzles: list[model.Puzzle] | None = None
        self.problem = ""

    def puzzles(self) -> list[model.Puzzle]:
        """The shipped sets, read once (a damaged set is said on the page, and no puzzle is shown from it)."""
        if self._puzzles is None:
            try:
                self._puzzles = load_sets(self.folder)
            except model.PuzzleFormatError as e:
                self.problem = str(e)
                self._puzzles = []
        return self._puzzles

    def routes(self) -> list[Route]:
        return [
            Route("/puzzles", self.index),
            Route("/puzzles/{id}", self.one),
            Route("/puzzles/{id}/answer", self.answer, methods=["POST"]),
        ]

    async def index(self, request: Request) -> Response:
        solver = request.query_params.get("solver", "you")[:40]
        solving = Solving(self.store(), self.puzzles(), solver)
        groups: list[dict[str, Any]] = []
        for rs in core.RULESETS:
            mine = [pz for pz in solving.puzzles if pz.ruleset == rs]
            if mine:
                nxt = solving.next_puzzle(rs)
                groups.append({"ruleset": rs, "count": len(mine), "next": nxt, "some": mine[:LISTED]})
        return self.page(
            "puzzles.html", request, groups=groups, solver=solving.solver, rating=solving.rating(), problem=self.problem
        )

    async def one(self, request: Request) -> Response:
        try:
            pz = model.find(self.puzzles(), request.path_params["id"])
        except model.UnknownPuzzleError as e:
            return self.page("error.html", request, 404, message=str(e))
        p = pz.start()
        counts = _counts(p)
        solver = request.query_params.get("solver", "you")[:40]
        solving = Solving(self.store(), self.puzzles(), solver)
        return self.page(
            "puzzle.html",
            request,
            puzzle=pz,
            side=SIDES[p.to_move],
            guide=model.task(pz, 0),
            counts=counts,
            svg=board_svg(counts[:32], (counts[32], counts[33])),
            solver=solving.solver,
            rating=solving.rating(),
            puzzle_rating=solving.puzzle_rating(pz),
            stage=position_json.to_dict(p, False).get("takasia"),
        )

    async def answer(self, request: Request) -> Response:
        refused = self.refuse(request)
        if refused is not None:
            return refused
        try:
            pz = model.find(self.puzzles(), request.path_params["id"])
        except model.UnknownPuzzleError as e:
            return JSONResponse({"error": str(e)}, status_code=404)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        before = body.get("before", []) if isinstance(body, dict) else None
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("move"), str)
            or not isinstance(before, list)
            or not all(isinstance(m, str) for m in before)
        ):
            return JSONResponse(
                {"error": 'send {"move": "A5R", "solver": "name", "before": [the line\'s moves found so far]}'},
                status_code=400,
            )
        step = len(before)
        if step >= pz.moves or any(not model.check_answer(pz, m, k).correct for k, m in enumerate(before)):
            return JSONResponse({"error": "the moves before this one are not the puzzle's line"}, status_code=400)
        solving = Solving(self.store(), self.puzzles(), str(body.get("solver", "you"))[:40])
        try:
            result = solving.answer(pz, body["move"][:40], step)
        except core.BaoError as e:
            return JSONResponse({"error": f"{body['move'][:40]}: {e}"}, status_code=400)
        except StoreError as e:
            return JSONResponse({"error": str(e)}, status_code=503)
        out: dict[str, Any] = {"correct": result.answer.correct, "final": result.final, "lines": result.lines()}
        if not result.final:  # a line goes on: the position after the reply, and what to find there
            out.update(
                counts=_counts(pz.position_at(step + 1)), guide=model.task(pz, step + 1), move=result.answer.move
            )
            return JSONResponse(out)
        nxt = solving.next_puzzle(pz.ruleset)
        shown = pz.line[: 2 * pz.moves - 1] if pz.moves > 1 else pz.line
        out.update(
            line=shown,
            themes=pz.themes,
            rating=round(result.after),
            rating_shown=result.shown()[1],  # ("1441?" while provisional)
            before=round(result.before),
            puzzle_rating=round(result.puzzle_rating),
            next=nxt.id if nxt is not None else None,
        )
        return JSONResponse(out)


def _counts(p: core.Position) -> list[int]:
    d = p.d
    return [d[i] for i in range(32)] + [d[core.STORE], d[core.STORE + 1]]
