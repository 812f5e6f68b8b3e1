"""Fourier fractions (1.5) of two-level triples and the purity-gap lemma.

Notation: q = e_0 - (1/p) 1, the centred point mass. Its unitary DFT is
q^(0) = 0 and q^(zeta) = 1/sqrt(p) for zeta != 0, so ||q||^2 = (p-1)/p and each
real class [rho_zeta] = {zeta, -zeta} holds ||Pi_zeta q||^2 = 2/p (section 2.1, (A.46)).
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, fmpq

from ..errors import NotCertified
from .balls import ball, certainly_positive


def two_level_fourier_fraction(p: int, contrasts_squared) -> fmpq:
    """F_zeta, exactly, of a triple whose blocks are two-level with contrasts c_k.

    Each centred block is c_k q, so by ||Pi_zeta q||^2 = 2/p and ||q||^2 = (p-1)/p
    F_zeta = sum c_k^2 (2/p) / sum c_k^2 (p-1)/p = 2/(p-1), the same for every zeta != 0
    (section 2.1, (A.60)). ``contrasts_squared`` are the c_k^2, exact (fmpq) or as balls
    (for contrasts like s_1/2 + B after a gradient step); the fraction is defined only if
    sum c_k^2 > 0, which is proved (exactly, or with balls) or NotCertified is raised.
    """
    if all(isinstance(c, (int, fmpq)) for c in contrasts_squared):
        positive = sum((fmpq(c) for c in contrasts_squared), fmpq(0)) > 0
    else:
        positive = certainly_positive(sum((ball(c) for c in contrasts_squared), arb(0)))
    if not positive:
        raise NotCertified("Fourier fraction (1.5) undefined: the centred blocks are not certainly nonzero")
    return fmpq(2, p) / fmpq(p - 1, p)


@dataclass(frozen=True)
class PerturbedBlock:
    """A block x = beta 1 + c e_0 + e with lo <= |c| <= hi and ||e||_2 <= error (all balls)."""

    contrast_abs_lower: arb
    contrast_abs_upper: arb
    error_norm_upper: arb


def purity_gap_lower(p: int, blocks) -> arb:
    """A ball every point of which is a lower bound on 1 - F_zeta for every zeta != 0.

    Valid for every triple whose blocks have the form of :class:`PerturbedBlock`:
    outside any one class the centred energy of a block is at least
    max(0, |c| sqrt((p-3)/p) - E)^2 and in total at most (|c| sqrt((p-1)/p) + E)^2
    (triangle inequality with ||(1 - Pi_zeta) q||^2 = (p-3)/p). Hence

        1 - F_zeta >= sum max(0, |c|_lo sqrt((p-3)/p) - E)^2 / sum (|c|_hi sqrt((p-1)/p) + E)^2.

    For p = 3 the bound is 0, as Remark 1.6 says it must be. Computed at the
    current precision; raises NotCertified if the denominator is not certainly positive.
    """
    outside = ball(fmpq(p - 3, p)).sqrt()
    total = ball(fmpq(p - 1, p)).sqrt()
    numerator = arb(0)
    denominator = arb(0)
    for block in blocks:
        numerator += (block.contrast_abs_lower * outside - block.error_norm_upper).max(arb(0)) ** 2
        denominator += (block.contrast_abs_upper * total + block.error_norm_upper) ** 2
    if not certainly_positive(denominator):
        raise NotCertified("purity gap: the centred energy bound is not certainly positive")
    return numerator / denominator
