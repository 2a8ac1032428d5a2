"""A game's analysis by the engine (`bao analyse`): every position searched, each ply's evaluation loss
against the engine's best move, mistakes marked, a summary per player, and an evaluation graph in the
terminal and as SVG.

Evaluations are given from South's point of view, in seeds (the engine's centiseeds / 100); a forced end of
the game within the search counts as +-MATE_SEEDS. A ply's loss is what the engine's best move would have
kept minus what the move played keeps: the search of the position before (side to move's view) minus the
negated search of the position after. The move the engine would have played loses nothing by definition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bao import core, engine, notation

from bao_host.engine.protocol import format_score

MATE_SEEDS = 32.0  # a forced win counts as this many seeds in losses and in the graph (half of all 64)
# Marks by loss in seeds: `?!` an inaccuracy, `?` a mistake, `??` a blunder. A forced win counts as
# MATE_SEEDS, so giving one away from a level position, or walking into a forced loss, is a blunder.
MARKS = ((12.0, "??"), (6.0, "?"), (3.0, "?!"))
SIDES = ("South", "North")


@dataclass
class PlyAnalysis:
    ply: int  # 1-based
    side: str
    played: str
    best: str
    eval_before: float  # South's view, seeds, the position before the move
    eval_after: float  # South's view, seeds, after it
    loss: float  # seeds, >= 0
    mark: str
    score_text: str  # the engine's score of the position before, as the protocol writes it
    pv: list[str] = field(default_factory=list)


@dataclass
class PlayerSummary:
    side: str
    name: str
    moves: int = 0
    total_loss: float = 0.0
    marks: dict[str, int] = field(default_factory=lambda: {"?!": 0, "?": 0, "??": 0})

    @property
    def average_loss(self) -> float:
        return self.total_loss / self.moves if self.moves else 0.0


@dataclass
class GameAnalysis:
    title: str
    limits: dict[str, int]
    plies: list[PlyAnalysis]
    players: list[PlayerSummary]
    evals: list[float]  # South's view for every position, the start first

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for p, s in zip(out["players"], self.players):
            p["average_loss"] = round(s.average_loss, 3)
        return out


def seeds(score: int) -> float:
    """An engine score in seeds, a forced result as +-MATE_SEEDS."""
    mate = engine.mate_plies(score)
    if mate is not None:
        return MATE_SEEDS if mate > 0 else -MATE_SEEDS
    return max(-MATE_SEEDS, min(MATE_SEEDS, score / 100))


def mark_for(loss: float) -> str:
    for bound, mark in MARKS:
        if loss >= bound:
            return mark
    return ""


def analyse(
    positions: list[core.Position],
    plies: list[str],
    names: tuple[str, str],
    title: str,
    limits: dict[str, int],
    progress: Callable[[int], None] | None = None,
    eng: engine.Engine | None = None,
) -> GameAnalysis:
    """Search every position of a replayed game (positions[0] the start, positions[i + 1] after plies[i])."""
    eng = eng or engine.Engine(tt_bits=18)
    scores: list[int] = []
    results: list[engine.SearchResult | None] = []
    for i, p in enumerate(positions):
        if core.outcome(p) is not None:
            r = eng.search(p)  # a finished game: its score, no move
            results.append(None)
        else:
            r = eng.search(
                p, depth=limits.get("depth", 0), nodes=limits.get("nodes", 0), movetime=limits.get("movetime", 0)
            )
            results.append(r)
        scores.append(r.score)
        if progress is not None:
            progress(i + 1)
    south_view = [seeds(s) if p.to_move == core.SOUTH else -seeds(s) for s, p in zip(scores, positions)]
    out: list[PlyAnalysis] = []
    summaries = [PlayerSummary(SIDES[0], names[0]), PlayerSummary(SIDES[1], names[1])]
    for i, text in enumerate(plies):
        p = positions[i]
        side = p.to_move
        found = results[i]
        assert found is not None and found.move is not None  # a replayed game goes on after every ply but the last
        r = found
        best = found.move
        played_move, _ = notation.parse_move(p, text)
        best_score = scores[i]
        played_score = -scores[i + 1]
        if played_move & core.IDENTITY == best & core.IDENTITY:
            loss = 0.0
            mark = ""
        else:
            loss = max(0.0, seeds(best_score) - seeds(played_score))
            mark = mark_for(loss)
        pv = [notation.format_move(m, side ^ (k & 1)) for k, m in enumerate(r.pv)]
        out.append(
            PlyAnalysis(
                i + 1,
                SIDES[side],
                text,
                notation.format_move(best, side),
                south_view[i],
                south_view[i + 1],
                round(loss, 2),
                mark,
                format_score(best_score),
                pv,
            )
        )
        s = summaries[side]
        s.moves += 1
        s.total_loss += loss
        if mark:
            s.marks[mark] += 1
    return GameAnalysis(title, limits, out, summaries, south_view)


def chart_rows(evals: list[float], height: int = 8, limit: float = 16.0) -> list[str]:
    """The evaluation graph as text: one column per position, South's advantage above the middle line,
    North's below; each row is limit/height seeds."""
    rows: list[str] = []
    step = limit / height
    for level in range(height, 0, -1):
        rows.append("".join("█" if v >= (level - 0.5) * step else " " for v in evals))
    rows.append("─" * len(evals))
    for level in range(1, height + 1):
        rows.append("".join("█" if -v >= (level - 0.5) * step else " " for v in evals))
    return rows


def svg(a: GameAnalysis, width: int = 800, height: int = 320, limit: float = 16.0) -> str:
    """The evaluation graph as an SVG document: South's view by position, mistakes marked."""
    left, right, top, bottom = 50, 20, 30, 30
    n = max(1, len(a.evals) - 1)
    plot_w = width - left - right
    plot_h = height - top - bottom

    def x(i: int) -> float:
        return left + plot_w * i / n

    def y(v: float) -> float:
        v = max(-limit, min(limit, v))
        return top + plot_h * (limit - v) / (2 * limit)

    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(a.evals))
    area = f"{x(0):.1f},{y(0):.1f} {points} {x(len(a.evals) - 1):.1f},{y(0):.1f}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f"<title>{_esc(a.title)}: evaluation by the engine (South's view, seeds)</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="13">{_esc(a.title)}</text>',
    ]
    for v in (limit, limit / 2, 0.0, -limit / 2, -limit):
        parts.append(
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - right}" y2="{y(v):.1f}" '
            f'stroke="{"#444" if v == 0 else "#ddd"}"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:+g}</text>')
    parts.append(f'<polygon points="{area}" fill="#8ab4f8" fill-opacity="0.35"/>')
    parts.append(f'<polyline points="{points}" fill="none" stroke="#1a56c4" stroke-width="1.5"/>')
    colours = {"?!": "#e0a800", "?": "#e06000", "??": "#c00000"}
    for pa in a.plies:
        if pa.mark:
            parts.append(
                f'<circle cx="{x(pa.ply):.1f}" cy="{y(pa.eval_after):.1f}" r="4" '
                f'fill="{colours[pa.mark]}"><title>{pa.ply}. {pa.side} {_esc(pa.played)}{pa.mark} '
                f"(best {_esc(pa.best)}, loss {pa.loss:g})</title></circle>"
            )
    parts.append(f'<text x="{left}" y="{height - 8}">ply 0</text>')
    parts.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end">ply {n}</text>')
    parts.append(f'<text x="{width - right}" y="{top - 4}" text-anchor="end">South better above, North below</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
