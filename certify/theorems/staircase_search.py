"""The base point ``certify staircase`` starts from below LARGE_P when none of X, s, D, E is given
(docs/staircase.md, sections 9.1 and 11.15): a search for the box with the largest region bound.

Untrusted by design: this module only chooses X, s, D, E; :mod:`certify.kernel.staircase` decides every candidate
and the final certificate, and ``certify check`` recomputes. The search, for a prime p and sigma:

1. the grid X = a p, s = b ln(p)/p (3 digits, rounded down), E = c p and D, for a, b, c, D in SEARCH_A..SEARCH_D (81
   boxes), keeping the one with the largest region bound (the mass of its widened box, its translates and its
   copies, :func:`certify.kernel.staircase.widened_region_log_lower`, at the radius found to 2^-CANDIDATE_STEPS);
2. a pattern search from it: each of X, s, D, E in turn multiplied by each of REFINE_FACTORS and its inverse,
   rounded to 3 significant digits, a move kept when the bound grows; each factor until no move helps.

The grid brackets where importance sampling puts U_stair's weight (examples/staircase/region_stair_mc.py; X = 4.4,
s = 0.61, D = 0.39, E = 6.2 at p = 5); the refinement adds 0.57 decades to the library's bound at p = 5, 4.18 at 7
and 58.6 at 13. Both steps together take 0.07-0.23 s a prime (most candidates fail their hypotheses at once), so
the builder runs them for every certificate; the result depends only on p and sigma.
"""

from __future__ import annotations

from flint import fmpq

from ..errors import HypothesisError, NotCertified
from ..kernel import staircase as kernel
from ..kernel.balls import ball, working_precision
from .radius import largest_certifiable_radius, round_down

#: Below this prime the builder searches its base point; from it on it uses the formulas of
#: certify.theorems.staircase (certified to p = 10^18 - 11, docs/staircase.md 9.1), whose s and E also switch here
#: from ln(p)/p and 5p/2 to 4/p and 5p ln(p)/8 (ln p > 4).
LARGE_P = 55
#: The grid of step 1 (81 boxes): X = a p, s = b ln(p)/p, E = c p, and D.
SEARCH_A = (fmpq(1, 2), fmpq(7, 10), fmpq(9, 10))
SEARCH_B = (fmpq(6, 5), fmpq(3, 2), fmpq(9, 5))
SEARCH_C = (fmpq(5, 4), fmpq(8, 5), fmpq(2))
SEARCH_D = (fmpq(3, 10), fmpq(2, 5), fmpq(1, 2))
#: The multiplicative moves of step 2, coarse to fine.
REFINE_FACTORS = (fmpq(11, 10), fmpq(21, 20), fmpq(41, 40))
#: How finely each candidate's radius is searched (2^-5, as twin_above's g; the final radius to 2^-16).
CANDIDATE_STEPS = 5
#: Bits of the candidates' bounds and radius searches (the final certificate uses the full precision).
SEARCH_PRECISION = 64


def candidate_log_region(p: int, X: fmpq, s: fmpq, D: fmpq, E: fmpq, sigma: fmpq) -> float | None:
    """The float value of the region bound (natural log) of the k = 2 box at (X, s, D, E, sigma), at its largest
    radius found to 2^-CANDIDATE_STEPS, or None when the hypotheses or the box do not certify. A ranking only."""
    params = kernel.StaircaseParameters(p, fmpq(2), X, s, D, E, sigma)
    try:
        kernel.require_staircase_hypotheses(params)
        radius = largest_certifiable_radius(lambda r: kernel.staircase_box_bounds(params, r, SEARCH_PRECISION),
                                            min(s, X) / 2, steps=CANDIDATE_STEPS)
        with working_precision(SEARCH_PRECISION):
            return float(kernel.widened_region_log_lower(params, radius).mid())
    except (HypothesisError, NotCertified):
        return None


def grid_parameters(p: int, sigma: fmpq) -> tuple[tuple, float] | None:
    """Step 1: ((X, s, D, E), bound) of the grid's best box, or None when none certifies."""
    best = None
    with working_precision(64):
        log_p = ball(p).log()
    for a in SEARCH_A:
        for b in SEARCH_B:
            with working_precision(64):
                s = round_down((b * log_p / p).lower().mid().fmpq())
            for c in SEARCH_C:
                for D in SEARCH_D:
                    value = candidate_log_region(p, a * p, s, D, c * p, sigma)
                    if value is not None and (best is None or value > best[1]):
                        best = ((a * p, s, D, c * p), value)
    return best


def refined_parameters(p: int, sigma: fmpq) -> tuple[tuple, float] | None:
    """Steps 1 and 2: ((X, s, D, E), bound) of the search's best box, or None when no grid box certifies."""
    best = grid_parameters(p, sigma)
    if best is None:
        return None
    point, value = best
    for factor in REFINE_FACTORS:
        moved = True
        while moved:
            moved = False
            for index in range(4):
                for step in (factor, 1 / factor):
                    trial = list(point)
                    trial[index] = round_down(point[index] * step)
                    if trial[index] == point[index]:
                        continue
                    trial_value = candidate_log_region(p, *trial, sigma)
                    if trial_value is not None and trial_value > value:
                        point, value, moved = tuple(trial), trial_value, True
    return point, value
