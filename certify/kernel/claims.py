"""A claim of a certificate, as the kernel computes it (before it is written as text)."""

from __future__ import annotations

from dataclasses import dataclass, field

from flint import arb, fmpq

SCOPES = ("base_point", "box", "region")


@dataclass(frozen=True)
class Quantity:
    """What is claimed about one number.

    * ``exact``: the claimed value, exactly (e.g. F_zeta = 2/(p-1)); or
    * ``lower`` / ``upper``: balls, or exact rationals (fmpq) for bounds that are
      rational functions of the inputs; a stored ``lo`` must be <= every point
      of ``lower`` and a stored ``hi`` >= every point of ``upper``. For an
      enclosure of one quantity both are the same ball; for a box the two ends
      may come from different bounds (e.g. the hitting time over the box).
    * ``lower_must_exceed`` / ``upper_must_be_below``: the statement asserts
      lo > this (a positive margin) or hi < this (an admissible coefficient), so
      the stored end must satisfy it too.
    * ``log10_lower`` / ``log10_upper``: balls for log10 of the bounds, for
      numbers like 1e-9000000 or 1e561 that a person reads by their exponent.
    """

    exact: fmpq | None = None
    lower: arb | fmpq | None = None
    upper: arb | fmpq | None = None
    lower_must_exceed: fmpq | None = None
    upper_must_be_below: fmpq | None = None
    log10_lower: arb | None = None
    log10_upper: arb | None = None

    def __post_init__(self):
        if (self.exact is None) == (self.lower is None and self.upper is None):
            raise ValueError("give either an exact value or bounds")

    def keys(self) -> set[str]:
        """The certificate keys this quantity is written under."""
        if self.exact is not None:
            return {"exact"}
        return {key for key, part in (("lo", self.lower), ("hi", self.upper), ("log10_lo", self.log10_lower),
                                      ("log10_hi", self.log10_upper)) if part is not None}


@dataclass(frozen=True)
class Claim:
    """One verified statement of a theorem instance: a quantity, named components, or both."""

    id: str
    statement: str
    scope: str
    quantity: Quantity | None = None
    components: dict[str, Quantity] = field(default_factory=dict)

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"unknown scope {self.scope!r}")
        if self.quantity is None and not self.components:
            raise ValueError(f"claim {self.id} claims nothing")


def claim(claim_id: str, statement: str, scope: str, **quantity) -> Claim:
    """A claim about one quantity (keyword arguments as in :class:`Quantity`)."""
    return Claim(claim_id, statement, scope, Quantity(**quantity))


def enclosure(claim_id: str, statement: str, scope: str, x: arb, **extra) -> Claim:
    """A claim that the quantity lies in the ball ``x`` (both ends from the same ball)."""
    return claim(claim_id, statement, scope, lower=x, upper=x, **extra)
