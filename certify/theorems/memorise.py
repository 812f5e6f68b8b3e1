"""Builder for ``certify memorise`` (Theorem S1 of docs/staircase.md, section 10: the one-gate staircase by the
loss): choose X, s, E and the radius; the kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.staircase` proves (or refuses), and
``certify check`` recomputes.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..kernel import staircase as kernel
from ..kernel.balls import ball, working_precision
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_X = fmpq(1)
DEFAULT_S = fmpq(1, 4)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64


def default_E(p: int) -> fmpq:
    """E = 3 ln p, rounded down to 3 digits: X E ~ 3 ln p beats the ln(p (p - 1)/2) that (S1.1) needs at rho = 1,
    at every p. Chosen with X = 1 and s = 1/4 by a float search for a large certified box mass (within about two
    decades of the search's optimum at the library's primes; docs/staircase.md, section 10.6): a choice, not a
    hypothesis, the kernel decides."""
    with working_precision(64):
        return round_down((3 * ball(p).log()).lower().mid().fmpq())


def certify_memorise(p, X=None, s=None, E=None, sigma=None, radius=None, prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Theorem S1 (the one-gate staircase by the loss) for the prime p (InputError,
    HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    params = kernel.MemoriseParameters(
        p, DEFAULT_X if X is None else fmpq(X), DEFAULT_S if s is None else fmpq(s),
        default_E(p) if E is None else fmpq(E), DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_memorise_hypotheses(params)

    # the (S1.1) budget is 2/(p rho): resolve it with about log2(p) more bits
    search_bits = max(SEARCH_PRECISION, p.bit_length() + 32)

    def box(radius):
        kernel.memorise_box_bounds(params, radius, search_bits)

    radius, claims = certify_with_radius(lambda r: kernel.memorise_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, min(params.s, params.X) / 2))
    certificate = build_certificate(
        theorem="memorise", paper=kernel.MEMORISE_PAPER, p=p,
        parameters={"X": params.X, "s": params.s, "E": params.E, "sigma": params.sigma},
        base_point=kernel.memorise_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
