"""Builder for ``certify dead``: choose the parameters and the radius, then let the kernel certify.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.dead`
proves (or refuses), and ``certify check`` recomputes.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..kernel import dead as kernel
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius

#: Defaults that satisfy every hypothesis for every prime p >= 5:
#: B = 1 > epsilon/2 = 1/2 and ((p-1)A/p)^2 >= (4/5 * 2)^2 = 2.56 > epsilon^2/2 = 1/2.
DEFAULT_EPSILON = fmpq(1)
DEFAULT_A = fmpq(2)
DEFAULT_B = fmpq(1)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128

#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64



def choose_radius(params: kernel.DeadParameters) -> fmpq:
    """99% of the largest radius the kernel certifies (the central gate caps it at epsilon/2)."""
    return largest_certifiable_radius(lambda radius: kernel.dead_box_bounds(params, radius, SEARCH_PRECISION),
                                      params.epsilon / 2)


def certify_dead(p, epsilon=None, A=None, B=None, sigma=None, purity_margin=None, radius=None,
                 prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem 1.5 / A.2 for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    params = kernel.DeadParameters(
        p,
        DEFAULT_EPSILON if epsilon is None else fmpq(epsilon),
        DEFAULT_A if A is None else fmpq(A),
        DEFAULT_B if B is None else fmpq(B),
        DEFAULT_SIGMA if sigma is None else fmpq(sigma),
        kernel.DEFAULT_PURITY_MARGIN if purity_margin is None else fmpq(purity_margin),
    )
    kernel.require_dead_hypotheses(params)
    radius, claims = certify_with_radius(lambda r: kernel.dead_claims(params, r, prec), radius,
                                         lambda: choose_radius(params))
    certificate = build_certificate(
        theorem="dead", paper=kernel.PAPER, p=p,
        parameters={"epsilon": params.epsilon, "A": params.A, "B": params.B, "sigma": params.sigma,
                    "purity_margin": params.purity_margin},
        base_point=kernel.dead_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
