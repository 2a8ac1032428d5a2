"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): a rating, its deviation and its
volatility, updated after a rating period of games. A solver and a puzzle each have one; an attempt is a
game the solver wins by finding the solution (docs/puzzles.md, "Ratings").

Written here from the paper's steps, not taken from pypi's `glicko2` 2.1.0: that package computes the
volatility's f(x) with the rating where the paper has the deviation (it agrees with the paper's worked
example only because that example's player is rated 1500, where the two coincide), has no type hints and
keeps tau on the class. tests/host/test_puzzles.py checks this one against the paper's example.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2's scale: (r - 1500) / SCALE
TAU = 0.5  # the system constant: how much the volatility may change (the paper suggests 0.3 to 1.2)
EPSILON = 0.000001  # the convergence tolerance of step 5
DEFAULT = (1500.0, 350.0, 0.06)  # an unrated solver: rating, deviation, volatility
# A rating is provisional while its deviation is this or more (lichess's threshold): it still moves by hundreds
# after one attempt, so it is shown with a "?" (as lichess shows one), the maths unchanged.
PROVISIONAL_RD = 110.0


@dataclass(frozen=True)
class Rating:
    rating: float = DEFAULT[0]
    rd: float = DEFAULT[1]
    vol: float = DEFAULT[2]

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD

    def shown(self) -> str:
        """The rating as a person reads it: "1441", or "1441?" while provisional."""
        return f"{self.rating:.0f}{'?' if self.provisional else ''}"


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    return math.exp(big_a / 2)


def update(player: Rating, games: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after a rating period: games are (opponent, score 1, 0.5 or 0). With no game
    only the deviation grows (step 6 alone)."""
    mu = (player.rating - 1500) / SCALE
    phi = player.rd / SCALE
    if not games:
        return Rating(player.rating, min(DEFAULT[1], math.sqrt(phi * phi + player.vol**2) * SCALE), player.vol)
    opp = [((o.rating - 1500) / SCALE, o.rd / SCALE, s) for o, s in games]
    v = 1 / sum(_g(pj) ** 2 * _e(mu, mj, pj) * (1 - _e(mu, mj, pj)) for mj, pj, _s in opp)
    delta = v * sum(_g(pj) * (s - _e(mu, mj, pj)) for mj, pj, s in opp)
    sigma = _volatility(phi, player.vol, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * sum(_g(pj) * (s - _e(mu, mj, pj)) for mj, pj, s in opp)
    return Rating(SCALE * mu_new + 1500, SCALE * phi_new, sigma)


def attempt(solver: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """One attempt as its own rating period for both: the solver wins when it finds the solution."""
    s = 1.0 if solved else 0.0
    return update(solver, [(puzzle, s)]), update(puzzle, [(solver, 1.0 - s)])
