"""The two-level family (2.1) = (A.48)-(A.49) shared by Theorems A.2 (dead), A.3 (smooth), A.4 (gd).

Base point: u(0) = v(0) = epsilon/2, u(j) = v(j) = -B, w(0) = -A, w(j) = 0 (j != 0).
All three theorems end at a state reached from a point of the sup-norm box of radius r
around it by moving u(0), v(0) and w only, with the output weights driven by (A.7):
dw = m (p/(p-1) e_0 - 1/(p-1) 1) - m sum_j delta_j e_j, where m = h (1 - q_0)/p^2 >= 0,
h <= smax the activation, and q_j = (1 - q_0)(1/(p-1) + delta_j).
"""

from __future__ import annotations

from flint import arb, fmpq

from ..errors import NotCertified
from .balls import ball, certainly_positive
from .basepoint import BasePoint, TwoLevel
from .claims import POSITIVE_LOWER, Claim, ClaimSpec
from .exact import format_rational
from .fourier import PerturbedBlock, purity_gap_lower


def family_base_point(epsilon: fmpq, A: fmpq, B: fmpq) -> BasePoint:
    """The base point (2.1) = (A.48)-(A.49) as exact two-level blocks."""
    half = epsilon / 2
    return BasePoint(u=TwoLevel(half, -B), v=TwoLevel(half, -B), w=TwoLevel(-A, fmpq(0)))


def family_gaussian_centres(p: int, epsilon: fmpq, A: fmpq, B: fmpq) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of (2.1) as (value, multiplicity): O(1) entries for any p."""
    return [(epsilon / 2, 2), (-B, 2 * (p - 1)), (-A, 1), (fmpq(0), p - 1)]


def single_active_gate_margin(epsilon: fmpq, B: fmpq, radius: fmpq) -> fmpq:
    """m > 0 with central gate >= m and every other gate <= -m on the box; NotCertified names a failure.

    On the sup-norm box of radius r around (2.1): central gate >= epsilon - 2r, cross gates
    u(0)+v(j), u(j)+v(0) <= epsilon/2 - B + 2r, off-cross gates <= -2B + 2r (exact).
    """
    r = fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    gates = {
        "central gate epsilon - 2r > 0": epsilon - 2 * r,
        "cross gates B - epsilon/2 - 2r > 0": B - epsilon / 2 - 2 * r,
        "off-cross gates 2B - 2r > 0": 2 * B - 2 * r,
    }
    for inequality, value in gates.items():
        if not value > 0:
            raise NotCertified(f"single active gate on the box: {inequality} fails by {format_rational(-value)}",
                               "single_active_gate")
    return min(gates.values())


def family_box(p: int, epsilon: fmpq, A: fmpq, B: fmpq, radius, condition: str, claim_id: str):
    """(gate margin, gmin, smax) on the sup-norm box of radius r around (2.1); NotCertified names a failure.

    The gate margin is :func:`single_active_gate_margin`; gamma_in = mu - w(0) >= gmin =
    (p-1)(A - 2r)/p, which must be positive (``condition`` and ``claim_id`` name the theorem's
    inequality that needs it), and s0 = u(0) + v(0) <= smax = epsilon + 2r.
    """
    r = fmpq(radius)
    gate_margin = single_active_gate_margin(epsilon, B, r)
    if not A - 2 * r > 0:
        raise NotCertified(f"{condition} on the box: A - 2r > 0 fails by {format_rational(2 * r - A)}", claim_id)
    return gate_margin, fmpq(p - 1, p) * (A - 2 * r), epsilon + 2 * r


def single_active_gate_spec(source: str) -> ClaimSpec:
    """The ``single_active_gate`` claim of the family (``source``: where the theorem states it): the central
    gate is >= lo and every other gate <= -lo on the box, lo > 0, as one quantity."""
    return ClaimSpec(
        "single_active_gate", "box",
        "for every point of the box, min(u(0)+v(0), min over (a, b) != (0, 0) of -(u(a)+v(b)))",
        POSITIVE_LOWER, note="so the central gate u(0)+v(0) is the only active one", source=source)


def single_active_gate_claim(spec: ClaimSpec, margin: fmpq) -> Claim:
    """The ``single_active_gate`` claim with the exact margin of :func:`single_active_gate_margin`."""
    return spec.claim(lower=margin)


def terminal_purity_gap(p: int, radius: fmpq, uv_contrast_lower: arb, uv_contrast_upper: arb,
                        A: fmpq, smax: fmpq, transfer_max: arb, transfer_min: arb | None = None) -> arb:
    """A ball whose every point bounds 1 - max_zeta F_zeta below at every terminal state of the box.

    Requires terminal states of this form (each theorem proves it for its dynamics):
      u = beta 1 + c_u e_0 + e_u with |e_u(i)| <= r and c_u in [lower, upper] (the same for v);
      w = beta' 1 + c_w e_0 + e_w with c_w = -A + M p/(p-1), ``transfer_min`` (default 0)
      <= M <= ``transfer_max``, and
      ||e_w||_2 <= r sqrt(p) + M (e^{2 r smax} - 1)/sqrt(p-1): the spread of the wrong-class
      weights w(j) starts <= 2r and never grows (the argument of Lemma A.13), and the
      activation is at most smax, so |delta_j| <= (e^{2 r smax} - 1)/(p-1).
    Then c_w lies in [-A + Mmin p/(p-1), -A + Mmax p/(p-1)] and the purity-gap lemma
    (:func:`purity_gap_lower`) applies. Computed at the current precision; NotCertified (naming each
    block's shortfall) if the bound is not certainly positive.
    """
    r = fmpq(radius)
    perturbation = ball(r) * ball(p).sqrt()
    spread = transfer_max * (ball(2 * r * smax).exp() - 1) / ball(p - 1).sqrt()
    transfer_min = arb(0) if transfer_min is None else transfer_min
    w_lower, w_upper = (ball(-A) + ball(fmpq(p, p - 1)) * m for m in (transfer_min, transfer_max))
    uv_block = PerturbedBlock(*_abs_range(uv_contrast_lower, uv_contrast_upper), perturbation)
    w_block = PerturbedBlock(*_abs_range(w_lower, w_upper), perturbation + spread)
    gap = purity_gap_lower(p, [uv_block, uv_block, w_block])
    if not certainly_positive(gap):
        outside = ball(fmpq(p - 3, p)).sqrt()
        margins = [(block.contrast_abs_lower * outside - block.error_norm_upper).str(6)
                   for block in (uv_block, w_block)]
        raise NotCertified("purity gap on the box: not positive, every block's margin |c| sqrt((p-3)/p) - ||e|| is "
                           f"<= 0 (u and v: {margins[0]}, w: {margins[1]}); shrink the radius", "purity_gap_box")
    return gap


def _abs_range(lower: arb, upper: arb) -> tuple[arb, arb]:
    """Balls below and above |c| for every c in [lower, upper] (the lower one is 0 if 0 may lie inside)."""
    return _abs_lower(lower, upper), abs(lower).max(abs(upper))


def _abs_lower(lower: arb, upper: arb) -> arb:
    """A ball below |c| for every c in [lower, upper]: 0 when the interval may contain 0."""
    if lower > 0:
        return lower
    if upper < 0:
        return -upper
    return arb(0)
