"""Builder for ``certify smooth`` (Theorem A.3): defaults, radius search, then the kernel certifies."""

from __future__ import annotations

from flint import arb, fmpq

from ..certificate import build_certificate
from ..kernel import smooth as kernel
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius

#: eps of sigma_eps: 2, so that with s0 = 1 the box stays below eps (the dead zone's smooth part).
DEFAULT_EPS_SMOOTH = fmpq(2)
DEFAULT_EPSILON = fmpq(1)
DEFAULT_A = fmpq(2)
DEFAULT_B = fmpq(1)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
SEARCH_PRECISION = 53



#: The search evaluates J only on this grid of s (in units of eps): J increases with s, so J at the
#: grid point above bounds J(smax) above (and the one below, below), and every grid value is computed once.
SEARCH_GRID = 2**10


def search_dead_zone(eps_smooth: fmpq):
    """Rigorous but coarse bounds smax -> (J(floor_grid(smax)) lower, J(ceil_grid(smax)) upper), cached."""
    step = eps_smooth / SEARCH_GRID

    def bounds(smax):
        below, above = (smax / step).floor() * step, (smax / step).ceil() * step
        return (kernel.dead_zone_integral(below, eps_smooth, SEARCH_PRECISION)[0] if below > 0 else arb(0),
                kernel.dead_zone_integral(above, eps_smooth, SEARCH_PRECISION)[1])

    return bounds


def choose_radius(params: kernel.SmoothParameters) -> fmpq:
    """99% of the largest radius the kernel certifies (the central gate caps it at epsilon/2)."""
    dead_zone = search_dead_zone(params.eps_smooth)
    return largest_certifiable_radius(
        lambda radius: kernel.smooth_box_bounds(params, radius, SEARCH_PRECISION, dead_zone), params.epsilon / 2)


def certify_smooth(p, eps_smooth=None, epsilon=None, A=None, B=None, sigma=None, radius=None,
                   prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem A.3 for the prime p."""
    p = require_prime(p)
    params = kernel.SmoothParameters(
        p,
        DEFAULT_EPS_SMOOTH if eps_smooth is None else fmpq(eps_smooth),
        DEFAULT_EPSILON if epsilon is None else fmpq(epsilon),
        DEFAULT_A if A is None else fmpq(A),
        DEFAULT_B if B is None else fmpq(B),
        DEFAULT_SIGMA if sigma is None else fmpq(sigma),
    )
    kernel.require_smooth_hypotheses(params, prec)
    radius, claims = certify_with_radius(lambda r: kernel.smooth_claims(params, r, prec), radius,
                                         lambda: choose_radius(params))
    certificate = build_certificate(
        theorem="smooth", paper=kernel.PAPER, p=p,
        parameters={"eps_smooth": params.eps_smooth, "epsilon": params.epsilon, "A": params.A, "B": params.B,
                    "sigma": params.sigma},
        base_point=kernel.smooth_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
