"""Builder for ``certify twin_above`` (Proposition S3.4 of docs/staircase.md, section 11.12: regime II of the (1, 2)
staircase captured from above, the gate (1, 1) active and coming down with D > 0, on a box): choose X, e, t, d, E, h
and the radius; the kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.twin_above` proves (or refuses), and
``certify check`` recomputes. The defaults come from a search for the largest certified box mass
(examples/staircase/twin_above_search.py, which runs the kernel at 64 bits on a grid; its table is in
docs/staircase.md, section 11.13): X = 5/2 and t = 1/2 fixed, e and d at 5/2 and 11/5 times a scale r_0 that
the radius then nearly reaches, E a fit in log p and h a share of 2 mu_0 = 2 gamma_2.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError
from ..kernel import twin_above as kernel
from ..kernel.balls import ball, working_precision
from ..kernel.exact import format_rational
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_X = fmpq(5, 2)
DEFAULT_T = fmpq(1, 2)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64
#: e = E_SCALE r_0 and d = D_SCALE r_0: the search's best boxes have e = 2.5 r and d = 2.2 r.
E_SCALE = fmpq(5, 2)
D_SCALE = fmpq(11, 5)
#: h = RATE_SHARE 2 mu_0 (the rate bound of (S.36) is about 2 gamma_2 = 2 mu_0 less the loss excess's share).
RATE_SHARE = fmpq(3, 5)


def default_scale(p: int) -> fmpq:
    """r_0 = 0.06 (p - 2)/p^2, rounded down to 3 digits: the search's best scale, within 0.8 decades of box mass of
    the best on its grid at p = 5 to 31 (docs/staircase.md, section 11.13)."""
    return round_down(fmpq(6 * (p - 2), 100 * p * p))


def default_e(p: int) -> fmpq:
    """The builder's e = z11 at the base point: E_SCALE r_0."""
    return E_SCALE * default_scale(p)


def default_d(p: int) -> fmpq:
    """The builder's d = D at the base point: D_SCALE r_0."""
    return D_SCALE * default_scale(p)


def default_E(p: int) -> fmpq:
    """The builder's E: 1.5 log p, rounded down to 3 digits (the search's fit)."""
    with working_precision(64):
        return round_down((3 * ball(p).log() / 2).lower().mid().fmpq())


def default_h(p: int, E: fmpq, d: fmpq) -> fmpq:
    """The builder's h: RATE_SHARE 2 mu_0, mu_0 = (2E + d)/p, rounded down to 3 digits."""
    return round_down(RATE_SHARE * 2 * (2 * E + d) / p)


def certify_twin_above(p, X=None, e=None, t=None, d=None, E=None, h=None, sigma=None, radius=None,
                       prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Proposition S3.4 (regime II of the (1, 2) staircase, captured from above with D > 0 and kept)
    on a box for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    X = DEFAULT_X if X is None else fmpq(X)
    e = default_e(p) if e is None else fmpq(e)
    d = default_d(p) if d is None else fmpq(d)
    E = default_E(p) if E is None else fmpq(E)
    t = DEFAULT_T if t is None else fmpq(t)
    if h is None:
        for name, value in (("d", d), ("E", E)):
            if not value > 0:  # the default h is a formula in them
                raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(value)}")
        h = default_h(p, E, d)
    params = kernel.TwinAboveParameters(p, X, e, t, d, E, fmpq(h), DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_twin_above_hypotheses(params)

    def box(radius):
        kernel.twin_above_box_bounds(params, radius, SEARCH_PRECISION)

    upper = min(params.e, params.d, params.s, params.t, (params.X - params.e) / 2) / 2
    radius, claims = certify_with_radius(lambda r: kernel.twin_above_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, upper))
    certificate = build_certificate(
        theorem="twin_above", paper=kernel.PAPER, p=p,
        parameters={"X": params.X, "e": params.e, "t": params.t, "d": params.d, "E": params.E, "h": params.h,
                    "sigma": params.sigma},
        base_point=kernel.twin_above_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
