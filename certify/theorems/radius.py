"""Choosing the radius of a certified box (untrusted search; the kernel certifies the result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from flint import fmpq

from ..errors import NotCertified
from ..kernel.exact import ExactNumber, require_bounded_input, show_number

#: Bisection steps inside [r, 2r]: the supremum is located to 2^-16 relative (we keep 3 digits).
SEARCH_STEPS = 16
#: Halvings of the upper bound before the search gives up (2^-400: far below any useful radius).
MAX_HALVINGS = 400
#: The chosen radius stays this far below the supremum of certifiable radii, so
#: that every strict inequality of the box keeps a visible margin.
RADIUS_SAFETY = fmpq(99, 100)
#: How often the full-precision kernel may refuse before we give up (each time the radius shrinks by 10%).
RETRIES = 5


@dataclass(frozen=True)
class CertifiedInstance:
    """What a builder returns: the certificate (a dict), and the parameters and radius behind it."""

    certificate: dict
    params: object
    radius: fmpq


def round_down(value: fmpq, significant: int = 3) -> fmpq:
    """The largest decimal with ``significant`` digits that is <= value (value > 0; ValueError otherwise, where
    the search for the leading digit would never end)."""
    if not value > 0:
        raise ValueError(f"round_down needs a positive value, got {value}")
    exponent = 0
    while value * fmpq(10) ** exponent < 10 ** (significant - 1):
        exponent += 1
    while value * fmpq(10) ** exponent >= 10**significant:
        exponent -= 1
    scale = fmpq(10) ** exponent
    return fmpq(int((value * scale).floor()), 1) / scale


def largest_certifiable_radius(box_bounds: Callable[[fmpq], object], upper: fmpq, steps: int = None) -> fmpq:
    """The radius that maximises a box's Gaussian probability, to 1% and 3 digits.

    P(theta(0) in box) is a product of P(|X - m| <= r) over the coordinates, each
    increasing in r, and every box condition only gets harder as r grows, so the
    maximiser is the supremum of the radii r < ``upper`` for which ``box_bounds(r)``
    (a kernel function, usually at low precision) does not raise NotCertified.
    The search halves r from ``upper`` until a box certifies (radii span 30 orders of
    magnitude across primes and step sizes), then bisects between r and 2r to 2^-16 (to 2^-``steps`` when given:
    a coarser search, for a builder comparing candidate parameters); we return 0.99 of the supremum rounded down
    to three significant digits.
    """

    def certifiable(radius: fmpq) -> bool:
        try:
            box_bounds(radius)
            return True
        except NotCertified:
            return False

    low = fmpq(upper) / 2
    for _ in range(MAX_HALVINGS):
        if certifiable(low):
            break
        low /= 2
    else:
        raise NotCertified("no certifiable radius found for these parameters")
    high = min(2 * low, fmpq(upper))
    for _ in range(SEARCH_STEPS if steps is None else steps):
        middle = (low + high) / 2
        if certifiable(middle):
            low = middle
        else:
            high = middle
    return round_down(low * RADIUS_SAFETY)


def certify_with_radius(claims_for: Callable[[fmpq], list], radius: fmpq | None,
                        choose: Callable[[], fmpq]) -> tuple[fmpq, list]:
    """Claims at the given radius, or at a chosen one, backing off 10% while the kernel refuses.

    The search may run at lower precision than the certificate, so the kernel can still
    refuse the chosen radius; an explicit ``radius`` is never changed. A chosen radius too small
    for a certificate to state (three digits below about 1e-99 need more than the 100-digit
    denominator of an input) is NotCertified, before any claim is computed.
    """
    if radius is not None:
        return fmpq(radius), claims_for(fmpq(radius))
    radius = _writable(choose())
    for _ in range(RETRIES):
        try:
            return radius, claims_for(radius)
        except NotCertified:
            radius = _writable(round_down(radius * fmpq(9, 10)))
    return radius, claims_for(radius)


def _writable(radius: fmpq) -> fmpq:
    """``radius`` if a certificate can state it as an input, else NotCertified (one line)."""
    try:
        require_bounded_input(ExactNumber.from_rational(radius))
    except ValueError:
        raise NotCertified(f"the largest radius certify finds, about {show_number(radius)}, is too small for "
                           f"a certificate to state (inputs have at most 100 digits in numerator and denominator)",
                           "radius") from None
    return radius
