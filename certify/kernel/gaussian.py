"""Gaussian mass of a sup-norm box under independent standard normals."""

from __future__ import annotations

from flint import arb, fmpq

from ..errors import NotCertified
from .balls import ball, certainly_positive


def coordinate_mass(centre, radius) -> arb:
    """Encloses P(|X - m| <= r) for X ~ N(0, 1), m = ``centre``, r = ``radius`` > 0 (exact).

    Uses (erf((m+r)/sqrt2) - erf((m-r)/sqrt2))/2 when |m| <= r and the far-side
    form (erfc((|m|-r)/sqrt2) - erfc((|m|+r)/sqrt2))/2 when |m| > r, which keeps
    relative accuracy far in the tail where a difference of erfs would cancel.
    Computed at the current precision.
    """
    m = abs(fmpq(centre))
    r = fmpq(radius)
    if r <= 0:
        raise NotCertified("Gaussian box mass needs a positive radius")
    root2 = arb(2).sqrt()
    near, far = (ball(m - r) / root2, ball(m + r) / root2)
    if m > r:
        return (near.erfc() - far.erfc()) / 2
    return (far.erf() - near.erf()) / 2


def box_log_mass(centres_with_counts, radius) -> arb:
    """Encloses log P(theta in box), the box being the product over coordinates of [m - r, m + r].

    ``centres_with_counts`` is a list of (m, k): k coordinates centred at m. The
    mass is a product of independent one-dimensional masses, so a two-level base
    point costs O(1) however large p is. Raises NotCertified if a factor is not
    certainly positive.
    """
    total = arb(0)
    for centre, count in centres_with_counts:
        mass = coordinate_mass(centre, radius)
        if not certainly_positive(mass):
            raise NotCertified(f"Gaussian mass of a coordinate at {centre} is not certainly positive")
        total += count * mass.log()
    return total
