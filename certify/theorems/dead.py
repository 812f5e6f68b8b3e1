"""Builder for ``certify dead``: choose the parameters and the radius, then let the kernel certify.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.dead`
proves (or refuses), and ``certify check`` recomputes.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import fmpq

from ..certificate import build_certificate
from ..errors import NotCertified
from ..kernel import dead as kernel
from ..kernel.primes import require_prime

#: Defaults that satisfy every hypothesis for every prime p >= 5:
#: B = 1 > epsilon/2 = 1/2 and ((p-1)A/p)^2 >= (4/5 * 2)^2 = 2.56 > epsilon^2/2 = 1/2.
DEFAULT_EPSILON = fmpq(1)
DEFAULT_A = fmpq(2)
DEFAULT_B = fmpq(1)
DEFAULT_PRECISION = 128

#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64
SEARCH_STEPS = 40
#: The chosen radius stays this far below the supremum of certifiable radii, so
#: that every strict inequality of the box keeps a visible margin.
RADIUS_SAFETY = fmpq(99, 100)
RETRIES = 5


@dataclass(frozen=True)
class DeadResult:
    """The certificate (a dict) and the kernel's parameters and radius behind it."""

    certificate: dict
    params: kernel.DeadParameters
    radius: fmpq


def _certifiable(params: kernel.DeadParameters, radius: fmpq) -> bool:
    try:
        kernel.dead_box_bounds(params, radius, SEARCH_PRECISION)
        return True
    except NotCertified:
        return False


def _round_down(value: fmpq, significant: int = 3) -> fmpq:
    """The largest decimal with ``significant`` digits that is <= value (value > 0)."""
    exponent = 0
    while value * fmpq(10) ** exponent < 10 ** (significant - 1):
        exponent += 1
    while value * fmpq(10) ** exponent >= 10**significant:
        exponent -= 1
    scale = fmpq(10) ** exponent
    return fmpq(int((value * scale).floor()), 1) / scale


def choose_radius(params: kernel.DeadParameters) -> fmpq:
    """The radius that maximises the certified Gaussian probability, to 1% and 3 digits.

    P(theta(0) in box) is a product of P(|X - m| <= r) over the coordinates, each
    increasing in r, and every box condition only gets harder as r grows, so the
    maximiser is the supremum of certifiable radii. Bisection (kernel at 64 bits,
    heuristic) finds it; we return 0.99 of it rounded down to three significant
    digits, and shrink further if the full-precision kernel still refuses.
    """
    low, high = fmpq(0), params.epsilon / 2  # the central gate needs epsilon - 2r > 0
    for _ in range(SEARCH_STEPS):
        middle = (low + high) / 2
        if _certifiable(params, middle):
            low = middle
        else:
            high = middle
    if low == 0:
        raise NotCertified("no certifiable radius found for these parameters")
    return _round_down(low * RADIUS_SAFETY)


def certify_dead(p, epsilon=None, A=None, B=None, radius=None, prec=DEFAULT_PRECISION) -> DeadResult:
    """Certificate of Theorem 1.5 / A.2 for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    params = kernel.DeadParameters(
        p,
        DEFAULT_EPSILON if epsilon is None else fmpq(epsilon),
        DEFAULT_A if A is None else fmpq(A),
        DEFAULT_B if B is None else fmpq(B),
    )
    kernel.require_dead_hypotheses(params)
    if radius is not None:
        radius = fmpq(radius)
        claims = kernel.dead_claims(params, radius, prec)
    else:
        radius = choose_radius(params)
        for _ in range(RETRIES):
            try:
                claims = kernel.dead_claims(params, radius, prec)
                break
            except NotCertified:  # the search ran at lower precision: back off and retry
                radius = _round_down(radius * fmpq(9, 10))
        else:
            claims = kernel.dead_claims(params, radius, prec)
    certificate = build_certificate(
        theorem="dead", paper=kernel.PAPER, p=p,
        parameters={"epsilon": params.epsilon, "A": params.A, "B": params.B},
        base_point=kernel.dead_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return DeadResult(certificate, params, radius)
