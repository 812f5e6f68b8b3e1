"""Obligations of Theorem A.4 (section A.8): one full-batch gradient-descent step kills the neuron.

Base point (A.48)-(A.49) = (2.1): u(0) = v(0) = epsilon/2, u(j) = v(j) = -B, w(0) = -A,
w(j) = 0. One step theta_1 = theta_0 - eta grad L(theta_0) with ReLU'(0) = 0. At theta_0
only the central gate is active, so the step moves u(0), v(0) by -eta D/p^2 each, where
D = D(s0, w0) = sum_c q_c w(c) - w(0) (A.52), and w by -eta (s0/p^2)(q - e_0) (A.7); so
s_1 = s0 - 2 eta D/p^2 (A.70). If every gate of theta_1 is strictly negative, the gradient
vanishes there and theta_n = theta_1 for all n >= 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, working_precision
from .basepoint import BasePoint
from .claims import EXACT, NEGATIVE_UPPER, POSITIVE_LOWER, UPPER, Claim, ClaimSpec, Component
from .exact import format_rational
from .fourier import two_level_fourier_fraction
from .gaussian import (box_log_mass, gaussian_probability_claim, gaussian_probability_spec, region_probability_claim,
                       region_probability_spec, require_positive_sigma)
from .region import gd_region_claim_log_lower
from .family import (family_base_point, family_gaussian_centres, family_box, single_active_gate_claim,
                     single_active_gate_spec, terminal_purity_gap)

PAPER = ("Theorem A.4: one full-batch gradient-descent step with ReLU'(0) = 0 from the base point "
         "(A.48)-(A.49) = (2.1); step (A.70), condition (A.71), convexity (A.53), purity (1.5)")


@dataclass(frozen=True)
class GDParameters:
    """The prime p, the step size eta and the exact constants epsilon (= s0), A, B of (2.1)."""

    p: int
    eta: fmpq
    epsilon: fmpq
    A: fmpq
    B: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def gamma_in(self) -> fmpq:
        """gamma_in = mu - w(0) = (p-1)A/p at the base point (the g_0 of section A.8)."""
        return fmpq(self.p - 1, self.p) * self.A

    @property
    def death_threshold(self) -> fmpq:
        """2 eta g_0 / p^2: (A.71) asks s0 below it."""
        return 2 * self.eta * self.gamma_in / self.p**2




def require_gd_hypotheses(params: GDParameters) -> None:
    """Raise HypothesisError naming the first broken inequality (exact).

    eta, epsilon, A, B > 0; B > epsilon/2 (only the central gate is active at the base point);
    and (A.71) 0 < s0 < 2 eta g_0/p^2 with s0 = epsilon and g_0 = (p-1)A/p.
    """
    for name in ("eta", "epsilon", "A", "B"):
        value = getattr(params, name)
        if not value > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(value)}")
    require_positive_sigma(params.sigma)
    if not params.B > params.epsilon / 2:
        raise HypothesisError(f"B > epsilon/2 (section 2: cross gates epsilon/2 - B < 0) fails: "
                              f"B = {format_rational(params.B)}, epsilon/2 = {format_rational(params.epsilon / 2)}")
    if not params.epsilon < params.death_threshold:
        raise HypothesisError(f"(A.71) s0 < 2 eta g_0/p^2 (s0 = epsilon, g_0 = (p-1)A/p) fails: "
                              f"s0 = {format_rational(params.epsilon)} but 2 eta g_0/p^2 = "
                              f"{format_rational(params.death_threshold)}")


def gd_base_point(params: GDParameters) -> BasePoint:
    """The base point (2.1) = (A.48)-(A.49) as exact two-level blocks."""
    return family_base_point(params.epsilon, params.A, params.B)


@dataclass(frozen=True)
class GDBoxBounds:
    """Bounds valid for every initial point of the sup-norm box of radius r around (2.1)."""

    gate_margin: fmpq            # central gate >= this, every other gate <= -this, before the step
    central_after: fmpq          # s_1 <= smax - 2 eta gmin/p^2 < 0
    cross_after: fmpq            # cross gates after the step <= epsilon/2 - B + 2r < 0
    off_cross_after: fmpq        # off-cross gates after the step <= -2B + 2r < 0
    w_step_upper: fmpq           # ||w_1 - w_0||_1 <= 2 eta smax/p^2
    purity_gap_lower: arb        # <= 1 - max_zeta F_zeta(theta_1)


def gd_box_bounds(params: GDParameters, radius, prec: int) -> GDBoxBounds:
    """Certify one-step death on the box of sup-radius ``radius``; NotCertified names a failure.

    For every point of the box (r = radius, smax = epsilon + 2r, gmin = (p-1)(A - 2r)/p):
      before the step: central gate >= epsilon - 2r, cross <= epsilon/2 - B + 2r, off-cross <= -2B + 2r;
      D >= gamma_in >= gmin by convexity (A.53) and D <= max_c w(c) - w(0) <= A + 2r;
      s_1 = s0 - 2 eta D/p^2 <= smax - 2 eta gmin/p^2 (A.70), which (A.71) on the box makes < 0;
      the cross gates only decrease (u_1(0) < u_0(0), v_1(0) < v_0(0)); off-cross gates do not move.
    Terminal state theta_1: u_1 = -B 1 + c_u e_0 + e, |e_i| <= r, c_u = epsilon/2 + B - eta D/p^2
    (likewise v); w_1 - w_0 = M (p/(p-1) e_0 - 1/(p-1) 1) - M sum_j delta_j e_j with
    M = eta s0 (1 - q_0)/p^2 in [eta (epsilon - 2r)(p-1)/p^3, eta smax/p^2] (w(0) is the
    smallest output weight, so q_0 < 1/p), and the wrong-class spread is <= 2r: the
    terminal-state lemma :func:`terminal_purity_gap` applies, and ||w_1 - w_0||_1 = 2M.
    """
    require_gd_hypotheses(params)
    p, eta, eps, A, B = params.p, params.eta, params.epsilon, params.A, params.B
    r = fmpq(radius)
    gate_margin, gmin, smax = family_box(p, eps, A, B, r, "convexity bound", "one_step_death_box")
    central_after = smax - 2 * eta * gmin / p**2
    if not central_after < 0:
        raise NotCertified("(A.71) on the box: epsilon + 2r < 2 eta (p-1)(A - 2r)/p^3 fails by "
                           f"{format_rational(central_after)}", "one_step_death_box")
    d_max = A + 2 * r
    with working_precision(prec):
        gap = terminal_purity_gap(
            p, r, ball(eps / 2 + B - eta * d_max / p**2), ball(eps / 2 + B - eta * gmin / p**2), A, smax,
            transfer_max=ball(eta * smax / p**2), transfer_min=ball(eta * (eps - 2 * r) * (p - 1) / p**3))
    return GDBoxBounds(
        gate_margin=gate_margin,
        central_after=central_after,
        cross_after=eps / 2 - B + 2 * r,
        off_cross_after=-2 * B + 2 * r,
        w_step_upper=2 * eta * smax / p**2,
        purity_gap_lower=gap,
    )


def gd_base_step_contrasts_squared(params: GDParameters) -> list[arb]:
    """c_u^2, c_v^2, c_w^2 of theta_1 from the base point (two-level, so (A.60) applies), as balls.

    At the base point D = (1 - q_0) A with q_0 = 1/(1 + (p-1) e^{epsilon A}); u_1(0) = epsilon/2 - eta D/p^2,
    so c_u = epsilon/2 + B - eta D/p^2; M = eta epsilon (1 - q_0)/p^2 and c_w = -A + M p/(p-1).
    Current precision.
    """
    p, eta, eps, A, B = params.p, params.eta, params.epsilon, params.A, params.B
    wrong = (p - 1) * ball(eps * A).exp()
    one_minus_q0 = wrong / (1 + wrong)
    c_u = ball(eps / 2 + B) - ball(eta / p**2) * one_minus_q0 * ball(A)
    c_w = ball(-A) + ball(eta * eps / (p * (p - 1))) * one_minus_q0
    return [c_u**2, c_u**2, c_w**2]


def gd_gaussian_centres(params: GDParameters) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of (2.1) as (value, multiplicity)."""
    return family_gaussian_centres(params.p, params.epsilon, params.A, params.B)


#: The claims of a ``gd`` certificate, in schema order: what each states (certify.kernel.claims).
SINGLE_ACTIVE_GATE = single_active_gate_spec("before the step, (A.48)-(A.49)")
ONE_STEP_DEATH_BOX = ClaimSpec(
    "one_step_death_box", "box",
    "from every point of the box, after one step theta_1 = theta_0 - eta grad L(theta_0) (ReLU'(0) = 0)",
    components=(Component("central_gate", "the central gate u_1(0)+v_1(0)", NEGATIVE_UPPER),
                Component("cross_gates", "every cross gate u_1(0)+v_1(j), u_1(j)+v_1(0), j != 0,", NEGATIVE_UPPER),
                Component("off_cross_gates", "every other gate u_1(a)+v_1(b), a, b != 0,", NEGATIVE_UPPER)),
    note="so every gate of theta_1 is negative, grad L(theta_1) = 0 and theta_n = theta_1 for n >= 1",
    source="(A.70)-(A.71), (A.53)")
W_STEP_BOX = ClaimSpec(
    "w_step_box", "box", "from every point of the box, the step's ||w_1 - w_0||_1", UPPER,
    bound="2 eta (epsilon + 2r)/p^2", source="(A.7)")
PURITY_GAP_BOX = ClaimSpec(
    "purity_gap_box", "box", "from every point of the box, 1 - max_zeta F_zeta(theta_1)", POSITIVE_LOWER,
    source="Theorem A.4; purity-gap lemma on (1.5)")
TERMINAL_FOURIER_FRACTION = ClaimSpec(
    "terminal_fourier_fraction", "base_point",
    "from the base point theta_1 is two-level and F_zeta(theta_1) (every zeta != 0)", EXACT, source="Theorem A.4")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("is initially active (Theorem A.4)")
REGION_PROBABILITY = region_probability_spec(
    "R = R_gd: exactly one active gate (a*, b*), s = u(a*) + v(b*) > 0 and (A.71) s < 2 eta gamma_y/p^2, "
    "gamma_y = mu - w(y), y = a* + b*; from every point of it one gradient-descent step with "
    "ReLU'(0) = 0 makes every gate strictly negative, so theta_n = theta_1 ((A.70), (A.53)); R_gd is a "
    "cone, so the bound holds for every sigma")
CLAIMS = (SINGLE_ACTIVE_GATE, ONE_STEP_DEATH_BOX, W_STEP_BOX, PURITY_GAP_BOX, TERMINAL_FOURIER_FRACTION,
          GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def gd_claims(params: GDParameters, radius, prec: int) -> list[Claim]:
    """Every claim of a ``gd`` certificate, computed at ``prec`` bits."""
    require_gd_hypotheses(params)
    p = params.p
    box = gd_box_bounds(params, radius, prec)
    with working_precision(prec):
        log_mass = box_log_mass(gd_gaussian_centres(params), radius, params.sigma)
        fraction = two_level_fourier_fraction(p, gd_base_step_contrasts_squared(params))
        return [
            single_active_gate_claim(SINGLE_ACTIVE_GATE, box.gate_margin),
            ONE_STEP_DEATH_BOX.claim(components={"central_gate": {"upper": box.central_after},
                                                 "cross_gates": {"upper": box.cross_after},
                                                 "off_cross_gates": {"upper": box.off_cross_after}}),
            W_STEP_BOX.claim(upper=box.w_step_upper),
            PURITY_GAP_BOX.claim(lower=box.purity_gap_lower),
            TERMINAL_FOURIER_FRACTION.claim(exact=fraction),
            gaussian_probability_claim(GAUSSIAN_PROBABILITY, log_mass, params.sigma),
            gd_region_claim(params, prec),
        ]


def gd_region_claim(params: GDParameters, prec: int) -> Claim:
    """The ``region_probability`` claim of Theorem A.4: P(theta(0) in R_gd | initially active) >= lo.

    R_gd (one active gate (a*, b*), s = u(a*) + v(b*) > 0 and (A.71) s < 2 eta gamma_y/p^2, gamma_y =
    mu - w(y), y = a* + b*) dies in one step of full-batch gradient descent with ReLU'(0) = 0 ((A.70),
    (A.53) at a general point); the bound is :func:`certify.kernel.region.gd_region_log_probability_lower`,
    the same for every sigma (R_gd is a cone). Its ball is one exact point; lo is its exponential.
    """
    log_lower = gd_region_claim_log_lower(params.p, params.eta)  # fixed precision, memoised
    with working_precision(prec):
        return region_probability_claim(REGION_PROBABILITY, log_lower, params.sigma)

