"""Two- and three-level vectors on Z/pZ and the base points built from them.

Every base point of the paper ((2.1) = (A.48)-(A.49), and the sliding base point
of section A.3) gives each block u, v, w one value at 0 and one common value
elsewhere; the staircase point of docs/staircase.md (section 3.8) one value at 0,
one at 1 and one common value elsewhere. Storing the levels keeps the work and the
certificate O(1) in p.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import fmpq


@dataclass(frozen=True)
class TwoLevel:
    """The vector x with x(0) = ``at_0`` and x(j) = ``elsewhere`` for j != 0 (exact)."""

    at_0: fmpq
    elsewhere: fmpq

    @property
    def contrast(self) -> fmpq:
        """c in x = elsewhere * 1 + c * e_0: the coefficient of the point mass at 0."""
        return self.at_0 - self.elsewhere

    def norm_squared(self, p: int) -> fmpq:
        """||x||^2 = x(0)^2 + (p-1) x(j)^2."""
        return self.at_0**2 + (p - 1) * self.elsewhere**2

    def levels(self) -> dict[str, fmpq]:
        """The stored levels by name, in the order a certificate writes them."""
        return {"at_0": self.at_0, "elsewhere": self.elsewhere}

    def levels_with_counts(self, p: int) -> list[tuple[fmpq, int]]:
        """(value, how many coordinates have it): at_0 once, elsewhere p - 1 times."""
        return [(self.at_0, 1), (self.elsewhere, p - 1)]


@dataclass(frozen=True)
class ThreeLevel:
    """The vector x with x(0) = ``at_0``, x(1) = ``at_1`` and x(j) = ``elsewhere`` for j >= 2 (exact)."""

    at_0: fmpq
    at_1: fmpq
    elsewhere: fmpq

    def levels(self) -> dict[str, fmpq]:
        """The stored levels by name, in the order a certificate writes them."""
        return {"at_0": self.at_0, "at_1": self.at_1, "elsewhere": self.elsewhere}

    def levels_with_counts(self, p: int) -> list[tuple[fmpq, int]]:
        """(value, how many coordinates have it): at_0 and at_1 once, elsewhere p - 2 times."""
        return [(self.at_0, 1), (self.at_1, 1), (self.elsewhere, p - 2)]

    def norm_squared(self, p: int) -> fmpq:
        """||x||^2 = x(0)^2 + x(1)^2 + (p-2) x(j)^2."""
        return sum(count * value**2 for value, count in self.levels_with_counts(p))


@dataclass(frozen=True)
class BasePoint:
    """A base point (u, v, w) of two-level (or, for the staircase, three-level) blocks."""

    u: TwoLevel | ThreeLevel
    v: TwoLevel | ThreeLevel
    w: TwoLevel | ThreeLevel

    def balance_quantity(self, p: int) -> fmpq:
        """||u||^2 + ||v||^2 - ||w||^2, the invariant of (A.10)."""
        return self.u.norm_squared(p) + self.v.norm_squared(p) - self.w.norm_squared(p)

    def blocks(self) -> dict[str, TwoLevel | ThreeLevel]:
        """The blocks by name, in the order u, v, w."""
        return {"u": self.u, "v": self.v, "w": self.w}
