"""Builder for ``certify staircase`` (Theorem S of docs/staircase.md): choose X, s, D, E and the radius; the
kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.staircase` proves (or refuses), and
``certify check`` recomputes.
"""

from __future__ import annotations

from functools import lru_cache

from flint import fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError, NotCertified
from ..kernel import staircase as kernel
from ..kernel.balls import working_precision, ball
from ..kernel.primes import require_prime
from .memorise import certify_memorise
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_K = fmpq(2)
DEFAULT_D = fmpq(1, 4)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64


def formula_X(p: int) -> fmpq:
    """X = p: X D = p/4 keeps ell_0(X) ~ e^{-p/4} within the budget 2/(p - 1) of (S.10)."""
    return fmpq(p)


#: Beyond this p the defaults switch from s = ln(p)/p, E = 5p/2 to s = 4/p, E = 5p ln(p)/8 (ln p > 4 there).
LARGE_P = 55


def formula_s(p: int) -> fmpq:
    """s = min(ln p, 4)/p, rounded down to 3 digits: s D <= 1/p stays below the budget 2/(p - 1) of (S.10) at
    every p, and with formula_E, s E >= (5/2) ln p makes (p - 2) e^{-s E} <~ p^{-3/2} (a choice, not a
    hypothesis: the kernel decides)."""
    with working_precision(64):
        c = ball(p).log() if p < LARGE_P else ball(4)
        return round_down((c / p).lower().mid().fmpq())


def formula_E(p: int) -> fmpq:
    """E = 5p/2 for p < LARGE_P, else 5p ln(p)/8 rounded down to 3 digits (so s E = (5/2) ln p as below it);
    chosen with s and X for a large certified Gaussian box mass (docs/staircase.md, section 9.1)."""
    if p < LARGE_P:
        return fmpq(5 * p, 2)
    with working_precision(64):
        return round_down((5 * p * ball(p).log() / 8).lower().mid().fmpq())


#: The builder's search for p < LARGE_P when none of X, s, D, E is given (docs/staircase.md, section 11.15): X = a p,
#: s = b ln(p)/p (3 digits), D and E = c p, for a, b, c, D in these grids (81 boxes), the one with the largest
#: region bound. They bracket the best points of a wider grid at p = 5, 7, 13 and 31, where importance sampling
#: puts U_stair's weight (X = 4.4, s = 0.61, D = 0.39, E = 6.2 at p = 5), far from the old defaults X = p, E = 5p/2.
SEARCH_A = (fmpq(1, 2), fmpq(7, 10), fmpq(9, 10))
SEARCH_B = (fmpq(6, 5), fmpq(3, 2), fmpq(9, 5))
SEARCH_C = (fmpq(5, 4), fmpq(8, 5), fmpq(2))
SEARCH_D = (fmpq(3, 10), fmpq(2, 5), fmpq(1, 2))
#: How finely each candidate's radius is searched (2^-5, as twin_above's g; the final radius to 2^-16).
CANDIDATE_STEPS = 5


@lru_cache(maxsize=64)
def searched_parameters(p: int, sigma) -> tuple | None:
    """(X, s, D, E) of the candidate box with the largest region bound (the mass of its widened box, its translates and
    its copies, :func:`certify.kernel.staircase.widened_region_log_lower`, at SEARCH_PRECISION), or None when
    no candidate certifies. Untrusted: the kernel decides every candidate and the final certificate."""
    best, best_log = None, None
    with working_precision(64):
        log_p = ball(p).log()
    for a, b, c, D in ((a, b, c, D) for a in SEARCH_A for b in SEARCH_B for c in SEARCH_C for D in SEARCH_D):
        X, E = a * p, c * p
        with working_precision(64):
            s = round_down((b * log_p / p).lower().mid().fmpq())
        params = kernel.StaircaseParameters(p, DEFAULT_K, X, s, D, E, sigma)
        try:
            kernel.require_staircase_hypotheses(params)
            radius = largest_certifiable_radius(
                lambda r: kernel.staircase_box_bounds(params, r, SEARCH_PRECISION), min(s, X) / 2,
                steps=CANDIDATE_STEPS)
            with working_precision(SEARCH_PRECISION):
                log_region = kernel.widened_region_log_lower(params, radius).mid()
        except (HypothesisError, NotCertified):
            continue
        if best_log is None or log_region > best_log:
            best, best_log = (X, s, D, E), log_region
    return best


def _default(p: int, index: int, formula) -> fmpq:
    """The builder's default of one of X, s, D, E when none of them is given (sigma = 1): the searched value below
    LARGE_P when the search certifies a box, else the formula's (also what certificate names compare with,
    certify.theorems.naming)."""
    searched = searched_parameters(p, DEFAULT_SIGMA) if p < LARGE_P else None
    return searched[index] if searched is not None else formula(p)


def default_X(p: int) -> fmpq:
    """X when none of X, s, D, E is given (:func:`searched_parameters` below LARGE_P, else :func:`formula_X`)."""
    return _default(p, 0, formula_X)


def default_s(p: int) -> fmpq:
    """s when none of X, s, D, E is given (:func:`searched_parameters` below LARGE_P, else :func:`formula_s`)."""
    return _default(p, 1, formula_s)


def default_D(p: int) -> fmpq:
    """D when none of X, s, D, E is given (:func:`searched_parameters` below LARGE_P, else DEFAULT_D)."""
    return _default(p, 2, lambda _: DEFAULT_D)


def default_E(p: int) -> fmpq:
    """E when none of X, s, D, E is given (:func:`searched_parameters` below LARGE_P, else :func:`formula_E`)."""
    return _default(p, 3, formula_E)


def certify_staircase(p, k=None, X=None, s=None, D=None, E=None, sigma=None, radius=None,
                      prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem S (the (1, 2) staircase) for the prime p; with k = 1, the ``memorise`` certificate
    of Theorem S1 (the one-gate staircase, :func:`certify.theorems.memorise.certify_memorise`, its own defaults
    for X, s, E), which has no D. InputError, HypothesisError or NotCertified otherwise."""
    if k is not None and fmpq(k) == 1:
        if D is not None:
            raise HypothesisError("D is a parameter of k = 2 only: the one-gate staircase (k = 1, Theorem S1) has "
                                  "one high label")
        return certify_memorise(p, X=X, s=s, E=E, sigma=sigma, radius=radius, prec=prec)
    p = require_prime(p)
    sigma = DEFAULT_SIGMA if sigma is None else fmpq(sigma)
    searched = (searched_parameters(p, sigma) if p < LARGE_P and (k is None or fmpq(k) == DEFAULT_K)
                and X is None and s is None and D is None and E is None else None)
    if searched is not None:
        X, s, D, E = searched
    params = kernel.StaircaseParameters(
        p, DEFAULT_K if k is None else fmpq(k), formula_X(p) if X is None else fmpq(X),
        formula_s(p) if s is None else fmpq(s), DEFAULT_D if D is None else fmpq(D),
        formula_E(p) if E is None else fmpq(E), sigma)
    kernel.require_staircase_hypotheses(params)

    # the (S.10) budget is 2/(p - 1) beside terms of size log 2: resolve it with about 2 log2(p) more bits
    search_bits = max(SEARCH_PRECISION, 2 * p.bit_length() + 32)

    def box(radius):
        kernel.staircase_box_bounds(params, radius, search_bits)

    radius, claims = certify_with_radius(lambda r: kernel.staircase_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, min(params.s, params.X) / 2))
    certificate = build_certificate(
        theorem="staircase", paper=kernel.PAPER, p=p,
        parameters={"k": params.k, "X": params.X, "s": params.s, "D": params.D, "E": params.E,
                    "sigma": params.sigma},
        base_point=kernel.staircase_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
