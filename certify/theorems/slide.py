"""Builder for ``certify slide`` (Theorem A.1): choose gamma_*, X and the radius; the kernel certifies."""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..kernel import slide as kernel
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius

DEFAULT_GAMMA_STAR = fmpq(1)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128


def default_X(p: int, gamma_star: fmpq) -> fmpq:
    """X = (p-1)/(2 gamma_*): rational and > (p-1)/(e gamma_*) because e > 2 (section A.3)."""
    return fmpq(p - 1) / (2 * gamma_star)



def choose_radius(params: kernel.SlideParameters) -> fmpq:
    """99% of the largest radius whose box lies in U_slide (all margins are exact rationals)."""
    return largest_certifiable_radius(lambda radius: kernel.slide_box_margins(params, radius), params.X)


def certify_slide(p, gamma_star=None, X=None, sigma=None, radius=None, prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem A.1 for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    gamma_star = DEFAULT_GAMMA_STAR if gamma_star is None else fmpq(gamma_star)
    if not gamma_star > 0:  # named before default_X divides by it
        kernel.require_slide_hypotheses(kernel.SlideParameters(p, gamma_star, fmpq(1)))
    params = kernel.SlideParameters(p, gamma_star, default_X(p, gamma_star) if X is None else fmpq(X),
                                    DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_slide_hypotheses(params)
    radius, claims = certify_with_radius(lambda r: kernel.slide_claims(params, r, prec), radius,
                                         lambda: choose_radius(params))
    certificate = build_certificate(
        theorem="slide", paper=kernel.PAPER, p=p,
        parameters={"gamma_star": params.gamma_star, "X": params.X, "sigma": params.sigma},
        base_point=kernel.slide_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
