"""Builder for ``certify twin_plus`` (Proposition S3.2 of docs/staircase.md, section 11.11: regime II of the (1, 2)
staircase captured from the side D > 0, on a box): choose X, e, t, d, E, h and the radius; the kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.twin_plus` proves (or refuses), and
``certify check`` recomputes. The defaults come from a float search for a large certified box mass at
p = 5 to 47 with X = 2 and t = 1/2 fixed (docs/staircase.md, section 11.11): there the best boxes have
e and d about twice the radius, the radius about 0.03/p^2, E about 1.5 log p + 1 and h a fraction of the
largest rate (S.34) allows at the base point.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError
from ..kernel import twin_plus as kernel
from ..kernel.balls import ball, working_precision
from ..kernel.exact import format_rational
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_X = fmpq(2)
DEFAULT_T = fmpq(1, 2)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64
#: e = d = OFFSET_SCALE/p^2: the search's best boxes have e and d about twice their radius, about 0.03/p^2.
OFFSET_SCALE = fmpq(6, 100)
#: h as a share of the base point's largest rate h_max (:func:`default_h`): the search's choice (0.15 to 0.35).
RATE_SHARE = fmpq(3, 20)


def default_e(p: int) -> fmpq:
    """The builder's e = -z11 at the base point: OFFSET_SCALE/p^2."""
    return OFFSET_SCALE / (p * p)


def default_d(p: int) -> fmpq:
    """The builder's d = D at the base point: OFFSET_SCALE/p^2."""
    return OFFSET_SCALE / (p * p)


def default_E(p: int) -> fmpq:
    """The builder's E: 1.5 log p + 1, rounded down to 3 digits (the float search's fit)."""
    with working_precision(64):
        return round_down((3 * ball(p).log() / 2 + 1).lower().mid().fmpq())


def default_h(p: int, X: fmpq, e: fmpq, d: fmpq, E: fmpq) -> fmpq:
    """The builder's h: RATE_SHARE h_max, rounded down to 3 digits, with h_max = (2/p)((p - 2) mu_0 e^{-s (E + d)}
    - d) the left side of (S.34)'s rate condition at the base point with delta_c = 0 (mu_0 = (2E + d)/p,
    s = (X - e)/2). HypothesisError if h_max is not positive (then no h satisfies (S.34): lower d, or E)."""
    with working_precision(64):
        mu0, s = (2 * E + d) / p, (X - e) / 2
        h_max = 2 * (ball((p - 2) * mu0) * (-ball(s) * ball(E + d)).exp() - ball(d)) / p
        value = (RATE_SHARE * h_max).lower().mid().fmpq()
    if not value > 0:
        raise HypothesisError(f"no default h at p = {p}: the base point's rate bound (2/p)((p - 2) mu_0 e^(-s (E + d)) "
                              f"- d) is not positive (lower d or E, or give --h)")
    return round_down(value)


def certify_twin_plus(p, X=None, e=None, t=None, d=None, E=None, h=None, sigma=None, radius=None,
                      prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Proposition S3.2 (regime II of the (1, 2) staircase, captured with D >= 0 and kept) on a box
    for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    X = DEFAULT_X if X is None else fmpq(X)
    e = default_e(p) if e is None else fmpq(e)
    d = default_d(p) if d is None else fmpq(d)
    E = default_E(p) if E is None else fmpq(E)
    t = DEFAULT_T if t is None else fmpq(t)
    if h is None:
        for name, value in (("X", X), ("e", e), ("d", d), ("E", E)):
            if not value > 0:  # the default h is a formula in them
                raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(value)}")
        h = default_h(p, X, e, d, E)
    params = kernel.TwinPlusParameters(p, X, e, t, d, E, fmpq(h), DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_twin_plus_hypotheses(params)

    def box(radius):
        kernel.twin_plus_box_bounds(params, radius, SEARCH_PRECISION)

    upper = min(params.e, params.d, params.s, params.t) / 2
    radius, claims = certify_with_radius(lambda r: kernel.twin_plus_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, upper))
    certificate = build_certificate(
        theorem="twin_plus", paper=kernel.PAPER, p=p,
        parameters={"X": params.X, "e": params.e, "t": params.t, "d": params.d, "E": params.E, "h": params.h,
                    "sigma": params.sigma},
        base_point=kernel.twin_plus_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
