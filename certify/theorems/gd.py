"""Builder for ``certify gd`` (Theorem A.4): defaults that adapt to eta, then the kernel certifies."""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..kernel import gd as kernel
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_A = fmpq(2)
DEFAULT_B = fmpq(1)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128


def default_epsilon(p: int, eta: fmpq, A: fmpq) -> fmpq:
    """s0 = epsilon: 1, or half of the (A.71) threshold 2 eta (p-1)A/p^3 when that is smaller.

    Small eta needs a small s0 (A.71); half the threshold leaves room for the box.
    """
    threshold = 2 * eta * fmpq(p - 1, p) * A / p**2
    return min(fmpq(1), round_down(threshold / 2))



def choose_radius(params: kernel.GDParameters, prec: int = 64) -> fmpq:
    """99% of the largest radius on which one step provably kills the neuron (central gate caps it at epsilon/2)."""
    return largest_certifiable_radius(lambda radius: kernel.gd_box_bounds(params, radius, prec),
                                      params.epsilon / 2)


def certify_gd(p, eta, epsilon=None, A=None, B=None, sigma=None, radius=None, prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem A.4 for the prime p and step size eta."""
    p = require_prime(p)
    eta = fmpq(eta)
    A = DEFAULT_A if A is None else fmpq(A)
    if not eta > 0 or not A > 0:  # named before the default epsilon is derived from them
        kernel.require_gd_hypotheses(kernel.GDParameters(p, eta, fmpq(1), A, DEFAULT_B))
    epsilon = default_epsilon(p, eta, A) if epsilon is None else fmpq(epsilon)
    params = kernel.GDParameters(p, eta, epsilon, A, DEFAULT_B if B is None else fmpq(B),
                                 DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_gd_hypotheses(params)
    radius, claims = certify_with_radius(lambda r: kernel.gd_claims(params, r, prec), radius,
                                         lambda: choose_radius(params))
    certificate = build_certificate(
        theorem="gd", paper=kernel.PAPER, p=p,
        parameters={"eta": params.eta, "epsilon": params.epsilon, "A": params.A, "B": params.B, "sigma": params.sigma},
        base_point=kernel.gd_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
