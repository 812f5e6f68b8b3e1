"""A claim of a certificate, as the kernel computes it (before it is written as text)."""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, fmpq

SCOPES = ("base_point", "box")


@dataclass(frozen=True)
class Claim:
    """One verified statement of a theorem instance.

    * ``exact``: the claimed value, exactly (e.g. F_zeta = 2/(p-1)); or
    * ``lower`` / ``upper``: balls, or exact rationals (fmpq) for bounds that
      are rational functions of the inputs; a stored ``lo`` must be <= every
      point of ``lower`` and a stored ``hi`` >= every point of ``upper``. For an
      enclosure of one quantity both are the same ball; for a box the two ends
      come from different bounds (e.g. the hitting time over the box).
    * ``lower_must_exceed``: the statement asserts lo > this value (e.g. a
      positive margin), so the stored lo must exceed it.
    * ``log10_lower``: for probabilities, a ball for log10 of the bound.
    """

    id: str
    statement: str
    scope: str
    exact: fmpq | None = None
    lower: arb | fmpq | None = None
    upper: arb | fmpq | None = None
    lower_must_exceed: fmpq | None = None
    log10_lower: arb | None = None

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"unknown scope {self.scope!r}")
        if (self.exact is None) == (self.lower is None and self.upper is None):
            raise ValueError(f"claim {self.id}: give either an exact value or bounds")


def enclosure(claim_id: str, statement: str, scope: str, x: arb, **extra) -> Claim:
    """A claim that the quantity lies in the ball ``x`` (both ends from the same ball)."""
    return Claim(claim_id, statement, scope, lower=x, upper=x, **extra)
