"""Builder for ``certify sensitivity``: the death event's sensitivity at the base point (2.1).

Untrusted by design: :mod:`certify.kernel.sensitivity` proves (or refuses) every claim and ``certify check``
recomputes. The certificate is about one trajectory, so its radius is 0.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..errors import InputError
from ..kernel import sensitivity as kernel
from ..kernel.primes import require_prime
from .radius import CertifiedInstance

DEFAULT_EPSILON = fmpq(1)
DEFAULT_A = fmpq(2)
DEFAULT_B = fmpq(1)
DEFAULT_PRECISION = 128


def certify_sensitivity(p, epsilon=None, A=None, B=None, radius=None, prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of the death event's sensitivity for the prime p (InputError, HypothesisError or
    NotCertified otherwise). ``radius`` may only be None or 0 (the claims are about the base point)."""
    p = require_prime(p)
    if radius is not None and fmpq(radius) != 0:
        raise InputError("certify sensitivity certifies the base point's trajectory only: there is no box "
                         "(--radius must be 0 or left out)")
    params = kernel.SensitivityParameters(
        p,
        DEFAULT_EPSILON if epsilon is None else fmpq(epsilon),
        DEFAULT_A if A is None else fmpq(A),
        DEFAULT_B if B is None else fmpq(B),
    )
    kernel.require_sensitivity_hypotheses(params)
    radius = fmpq(0)
    claims = kernel.sensitivity_claims(params, radius, prec)
    certificate = build_certificate(
        theorem="sensitivity", paper=kernel.PAPER, p=p,
        parameters={"epsilon": params.epsilon, "A": params.A, "B": params.B},
        base_point=kernel.sensitivity_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
