"""Builder for ``certify staircase`` (Theorem S of docs/staircase.md): choose X, s, D, E and the radius; the
kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.staircase` proves (or refuses), and
``certify check`` recomputes.
"""

from __future__ import annotations

from functools import lru_cache

from flint import fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError
from ..kernel import staircase as kernel
from ..kernel.balls import working_precision, ball
from ..kernel.primes import require_prime
from .memorise import certify_memorise
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down
from .staircase_search import LARGE_P, SEARCH_PRECISION, refined_parameters

DEFAULT_K = fmpq(2)
DEFAULT_D = fmpq(1, 4)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128


def formula_X(p: int) -> fmpq:
    """X = p: X D = p/4 keeps ell_0(X) ~ e^{-p/4} within the budget 2/(p - 1) of (S.10)."""
    return fmpq(p)


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


@lru_cache(maxsize=64)
def searched_parameters(p: int, sigma) -> tuple | None:
    """(X, s, D, E) the builder starts from below LARGE_P when none of them is given (docs/staircase.md 9.1, 11.15):
    the best box of :func:`certify.theorems.staircase_search.refined_parameters` (a grid, then a pattern search) at p
    and sigma, or None when no grid box certifies. Untrusted: the kernel decides every candidate and the final
    certificate."""
    found = refined_parameters(p, fmpq(sigma))
    return None if found is None else found[0]


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
