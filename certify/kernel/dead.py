"""Obligations of Theorem 1.5 (section 2) and Theorem A.2 (section A.6): the dying neuron.

Base point (2.1) = (A.48)-(A.49) with s0 = epsilon and B of (2.1) (M of (A.48)):

    u(0) = v(0) = epsilon/2,  u(j) = v(j) = -B,  w(0) = -A,  w(j) = 0   (j != 0).

Then mu = -A/p, gamma_in = mu - w(0) = (p-1)A/p and section 2's g = b - a equals
p gamma/(p-1). Every function here works with exact rationals and Arb balls,
takes the precision it computes at, and raises NotCertified rather than return
a bound it could not prove. The box is the sup-norm box of radius r around the
base point; the bounds on it follow the A.6 argument, valid for every point of
the box (symmetric or not), as derived in docs/mathematics.md, section 'Box bounds of section A.6'.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import acb, arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_positive, rounded_down, working_precision
from .basepoint import BasePoint
from .memo import memoized
from .claims import (ENCLOSURE, EXACT, POSITIVE_ENCLOSURE, POSITIVE_LOWER, PROBABILITY_LOWER, UPPER, Claim,
                     ClaimSpec, Component)
from .fourier import two_level_fourier_fraction
from .family import (family_base_point, family_gaussian_centres, family_box, single_active_gate_claim,
                     single_active_gate_spec, terminal_purity_gap)
from .gaussian import (box_log_mass, gaussian_probability_claim, gaussian_probability_spec,
                       region_probability_claim, region_probability_spec, require_positive_sigma)
from .region import dead_region_claim_log_lower
from .region_purity import (DEFAULT_PURITY_MARGIN, dead_not_single_frequency_log_probability_lower,
                            dead_region_purity_log_probability_lower)
from .exact import format_rational

PAPER = ("Theorem 1.5 and Theorem A.2: base point (2.1) = (A.48)-(A.49), flow (2.2)-(2.5), "
         "conserved quantity (2.6), transversality (2.7), box bounds (A.53)-(A.58), purity (1.5)")


@dataclass(frozen=True)
class DeadParameters:
    """The construction's constants: prime p and exact rationals epsilon, A, B of (2.1)."""

    p: int
    epsilon: fmpq
    A: fmpq
    B: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)
    #: delta of the region purity claim: P(R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | active)
    purity_margin: fmpq = DEFAULT_PURITY_MARGIN

    @property
    def c(self) -> fmpq:
        """c = p / (2(p-1)), the coefficient of s^2 in (2.6)."""
        return fmpq(self.p, 2 * (self.p - 1))

    @property
    def Gamma(self) -> fmpq:
        """Gamma = A^2 - p epsilon^2 / (2(p-1)), the conserved value of (2.6)."""
        return self.A**2 - self.c * self.epsilon**2

    @property
    def gamma_in(self) -> fmpq:
        """gamma_in = mu - w(0) = (p-1) A / p at the base point ((A.50)-(A.51))."""
        return fmpq(self.p - 1, self.p) * self.A


def _fails(inequality: str, lhs, rhs) -> HypothesisError:
    return HypothesisError(f"{inequality} fails: {format_rational(lhs)} <= {format_rational(rhs)}")


def require_dead_hypotheses(params: DeadParameters) -> None:
    """Raise HypothesisError naming the first inequality the parameters break (exact).

    Requires epsilon, A, B > 0, B > epsilon/2 (section 2: the cross gates
    epsilon/2 - B are negative) and (A.58) gamma_in^2 > epsilon^2/2 at the base
    point, i.e. ((p-1)A/p)^2 > epsilon^2/2. (A.58) implies section 2's
    A^2 > p epsilon^2/(2(p-1)), i.e. Gamma > 0, since p/(p-1) > 1.
    """
    for name in ("epsilon", "A", "B"):
        value = getattr(params, name)
        if not value > 0:
            raise _fails(f"{name} > 0", value, 0)
    require_positive_sigma(params.sigma)
    if not 0 < params.purity_margin < 1:
        raise HypothesisError(f"0 < purity_margin < 1 fails: purity_margin = {format_rational(params.purity_margin)} "
                              "(the margin delta of max_zeta F_zeta <= 1 - delta)")
    if not params.B > params.epsilon / 2:
        raise _fails("B > epsilon/2 (section 2: cross gates epsilon/2 - B < 0)", params.B, params.epsilon / 2)
    if not params.gamma_in**2 > params.epsilon**2 / 2:
        raise _fails("(A.58) gamma_in^2 > epsilon^2/2 with gamma_in = (p-1)A/p",
                     params.gamma_in**2, params.epsilon**2 / 2)


def dead_base_point(params: DeadParameters) -> BasePoint:
    """The base point (2.1) = (A.48)-(A.49) as exact two-level blocks."""
    return family_base_point(params.epsilon, params.A, params.B)


def terminal_balance_quantity(params: DeadParameters) -> fmpq:
    """||u||^2 + ||v||^2 - ||w||^2 at the terminal state of the base point, exactly.

    Terminal state (2.8), (2.6): u = v = (0, -B, ..., -B) and
    w = (mu - (p-1) sqrt(Gamma)/p, mu + sqrt(Gamma)/p, ...), so
    ||w||^2 = p mu^2 + (p-1) Gamma / p ((A.37) with e = 0): rational.
    """
    p = params.p
    mu = -params.A / p
    return 2 * (p - 1) * params.B**2 - (p * mu**2 + fmpq(p - 1, p) * params.Gamma)


def hitting_time_integrand(params: DeadParameters):
    """The integrand f(s, analytic) = (1 + e^{-s g(s)}/(p-1))/g(s), g(s) = sqrt(Gamma + c s^2), for acb.integral.

    T = (p^2/2) int_0^epsilon f(s) ds (see :func:`hitting_time_enclosure`). The analytic flag is
    forwarded to sqrt so that acb.integral is rigorous. Evaluates at the precision current when called.
    """
    p = params.p

    def integrand(s, analytic):
        g = (acb(ball(params.Gamma)) + acb(ball(params.c)) * s * s).sqrt(analytic=analytic)
        return (1 + (-s * g).exp() / (p - 1)) / g

    return integrand


def hitting_time_enclosure(params: DeadParameters, prec: int) -> arb:
    """Encloses T, the time at which s = u(0) + v(0) reaches 0 from the base point (2.1).

    By (2.2) ds/dt = -(2/p^2)(1 - pi_0) g, with 1/(1 - pi_0) = 1 + e^{-sg}/(p-1)
    and, by (2.6), g(s) = sqrt(Gamma + c s^2), c = p/(2(p-1)). So

        T = (p^2/2) * integral_0^epsilon (1 + e^{-s g(s)}/(p-1)) / g(s) ds,

    one rigorous ``acb.integral`` (the analytic flag is forwarded to sqrt, whose
    branch points +-i sqrt(Gamma/c) lie off the path). Requires the hypotheses.
    """
    require_dead_hypotheses(params)
    p = params.p
    with working_precision(prec):
        integral = acb.integral(hitting_time_integrand(params), acb(0), acb(ball(params.epsilon)))
        if not (integral.real.is_finite() and integral.imag.contains(0)):
            raise NotCertified("hitting-time integral did not converge to a finite real ball", "hitting_time")
        T = ball(fmpq(p * p, 2)) * integral.real
    if not certainly_positive(T):
        raise NotCertified("hitting time is not certainly positive", "hitting_time")
    return T


def transversality_margin_enclosure(params: DeadParameters, prec: int) -> arb:
    """Encloses -ds/dt at T-, the limit (2.7): (2/p^2) (1 - 1/p) sqrt(Gamma) = 2(p-1) sqrt(Gamma)/p^3.

    At s = 0, pi_0 = 1/p and g(T) = sqrt(Gamma) by (2.6). Requires the hypotheses.
    """
    require_dead_hypotheses(params)
    p = params.p
    with working_precision(prec):
        return ball(fmpq(2 * (p - 1), p**3)) * ball(params.Gamma).sqrt()


@dataclass(frozen=True)
class DeadBoxBounds:
    """Bounds valid for every initial point of the sup-norm box of radius r (A.6 argument).

    Exact fields are rationals; the rest are balls at the requested precision.
    """

    gate_margin: fmpq          # central gate >= this, every other gate <= -this
    gamma_in_lower: fmpq       # gmin = (p-1)(A - 2r)/p <= gamma_in
    s0_upper: fmpq             # smax = epsilon + 2r >= s0
    gamma_condition: fmpq      # gmin^2 - smax^2/2 > 0, (A.58) on the box
    gamma_star: arb            # sqrt(gamma_condition) <= gamma(t) until T, (A.57)
    hitting_time_lower: fmpq   # p^2 (epsilon - 2r) / (2(A + 2r))
    hitting_time_upper: arb    # p^2 smax / (2 gamma_*)
    margin_lower: arb          # 2 gamma_* / p^2 <= -ds/dt(T-)
    w_displacement_upper: arb  # ||w(T) - w(0)||_1 <= 2 Mmax
    purity_gap_lower: arb      # <= 1 - max_zeta F_zeta at every terminal state


def dead_box_bounds(params: DeadParameters, radius: fmpq, prec: int) -> DeadBoxBounds:
    """Certify the box of sup-radius ``radius`` around (2.1); NotCertified names a failed inequality.

    For every point of the box (A.6; docs/mathematics.md, section 'Box bounds of section A.6'):
      gates: central >= epsilon - 2r, cross <= epsilon/2 - B + 2r, off-cross <= -2B + 2r;
      gamma_in >= gmin = (p-1)(A - 2r)/p, s0 <= smax = epsilon + 2r, and if
      gmin > 0 and gmin^2 > smax^2/2 then gamma(t) >= gamma_* = sqrt(gmin^2 - smax^2/2) (A.57);
      T <= p^2 smax/(2 gamma_*) since ds/dt <= -2 gamma_*/p^2 ((A.54), (A.53));
      T >= p^2 (epsilon - 2r)/(2(A + 2r)) since D <= max_c w(c) - w(0) <= A + 2r never grows;
      -ds/dt(T-) = 2 gamma(T)/p^2 >= 2 gamma_*/p^2;
      ||w(T) - w(0)||_1 = 2M <= 2 Mmax (||dw/dt||_1 = 2m, M below).
    Terminal blocks for the purity gap: u(T) = -B 1 + B e_0 + e with |e_i| <= r
    (u(T)(0) = (u(0) - v(0))/2 by (2.8)), likewise v. For w, write (A.7) as
    dw/dt = m (p/(p-1) e_0 - 1/(p-1)) - m sum_j delta_j e_j with m = s(1-q_0)/p^2 and
    q_j = (1-q_0)(1/(p-1) + delta_j). Integrating, w(T) = beta 1 + c_w e_0 + e with
    c_w = -A + M p/(p-1), where M = int m dt = gamma_in - gamma(T) >= 0 is at most
    Mmax = min(smax^2/(4 gamma_*), (p-1)(A+2r)/p - gamma_*) (the first bound integrates
    m dt <= s ds/(2 gamma_*), the second uses gamma(T) >= gamma_*), so
    A - Mmax p/(p-1) <= |c_w| <= max(A, Mmax p/(p-1) - A), and
    ||e||_2 <= r sqrt(p) + Mmax (e^{2 r smax} - 1)/sqrt(p-1), because the spread of the
    wrong-class weights w(j) never grows (the argument of Lemma A.13) and starts <= 2r,
    so |delta_j| <= (e^{2 r s} - 1)/(p-1).
    """
    require_dead_hypotheses(params)
    p, eps, A, B = params.p, params.epsilon, params.A, params.B
    r = fmpq(radius)
    gate_margin, gmin, smax = family_box(p, eps, A, B, r, "(A.58)", "gamma_condition")
    condition = gmin**2 - smax**2 / 2
    if not condition > 0:
        raise NotCertified("(A.58) on the box: ((p-1)(A-2r)/p)^2 - (epsilon+2r)^2/2 > 0 fails by "
                           f"{format_rational(-condition)}", "gamma_condition")
    with working_precision(prec):
        gamma_star = ball(condition).sqrt()
        # Mmax: the total increase M of w(0) is at most this
        transfer = (ball(smax**2) / (4 * gamma_star)).min(ball(fmpq(p - 1, p) * (A + 2 * r)) - gamma_star)
        gap = terminal_purity_gap(p, r, ball(B), ball(B), A, smax, transfer)
        return DeadBoxBounds(
            gate_margin=gate_margin,
            gamma_in_lower=gmin,
            s0_upper=smax,
            gamma_condition=condition,
            gamma_star=gamma_star,
            hitting_time_lower=fmpq(p * p, 2) * (eps - 2 * r) / (A + 2 * r),
            hitting_time_upper=ball(fmpq(p * p, 2) * smax) / gamma_star,
            margin_lower=ball(fmpq(2, p * p)) * gamma_star,
            w_displacement_upper=2 * transfer,
            purity_gap_lower=gap,
        )


def dead_gaussian_centres(params: DeadParameters) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of (2.1) as (value, multiplicity)."""
    return family_gaussian_centres(params.p, params.epsilon, params.A, params.B)


#: The claims of a ``dead`` certificate, in schema order: what each states (certify.kernel.claims).
SINGLE_ACTIVE_GATE = single_active_gate_spec("(2.1), section 2")
GAMMA_CONDITION = ClaimSpec(
    "gamma_condition", "box", "for every point of the box, gamma_in^2 - s0^2/2", POSITIVE_LOWER,
    note="gamma_in = mu - w(0), s0 = u(0)+v(0)", source="(A.58)")
HITTING_TIME = ClaimSpec(
    "hitting_time", "base_point", "from the base point, the time T at which the central gate reaches 0",
    POSITIVE_ENCLOSURE,
    note="T = (p^2/2) int_0^eps (1 + e^{-s g}/(p-1))/g ds, g^2 = Gamma + p s^2/(2(p-1))", source="(2.2), (2.6)")
HITTING_TIME_BOX = ClaimSpec(
    "hitting_time_box", "box", "from every point of the box, the time T at which the central gate reaches 0",
    POSITIVE_ENCLOSURE, note="no other gate turns on before T", source="(A.53)-(A.57)")
TRANSVERSALITY_MARGIN = ClaimSpec(
    "transversality_margin", "base_point", "from the base point, -ds/dt(T-) = 2(p-1) sqrt(Gamma)/p^3",
    POSITIVE_ENCLOSURE, source="(2.7)")
TRANSVERSALITY_MARGIN_BOX = ClaimSpec(
    "transversality_margin_box", "box", "from every point of the box, -ds/dt(T-) = 2 gamma(T)/p^2", POSITIVE_LOWER,
    source="(A.54), (A.57)")
TERMINAL_W_DISPLACEMENT_BOX = ClaimSpec(
    "terminal_w_displacement_box", "box", "from every point of the box, ||w(T) - w(0)||_1", UPPER,
    source="(A.7) integrated in s with (A.57), (A.55)")
TERMINAL_FOURIER_FRACTION = ClaimSpec(
    "terminal_fourier_fraction", "base_point",
    "at the terminal state of the base point, F_zeta (every zeta != 0)", EXACT, source="section 2.1, (A.60)")
BALANCE_INVARIANT = ClaimSpec(
    "balance_invariant", "base_point",
    "at the base point and at its terminal state alike, ||u||^2 + ||v||^2 - ||w||^2", EXACT,
    source="(A.10)")
PURITY_GAP_BOX = ClaimSpec(
    "purity_gap_box", "box", "at every terminal state from the box, 1 - max_zeta F_zeta", POSITIVE_LOWER,
    source="Theorem A.2(iii); purity-gap lemma on (1.5)")
TERMINAL_LOSS = ClaimSpec(
    "terminal_loss", "box", "at every terminal state from the box, the loss (1.1), which equals log p,", ENCLOSURE,
    note="all activations are 0")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("is initially active (Theorem 1.5)")
REGION_PROBABILITY = region_probability_spec(
    "R = R_dead: exactly one active gate (a*, b*), gamma_y = mu - w(y) > 0 with y = a* + b*, and "
    "gamma_y^2 > s^2/2, s = u(a*) + v(b*) ((A.58)); every trajectory from R_dead dies in finite time "
    "(section A.6, Lemma A.17); R_dead is a cone, so the bound holds for every sigma")
REGION_PURITY_PROBABILITY = ClaimSpec(
    "region_purity_probability", "region", "for theta(0) ~ N(0, sigma^2 I_{3p}), every sigma > 0",
    components=(
        Component("not_single_frequency",
                  "P(theta(0) in R_dead and the trajectory dies in finite time at a state that is not "
                  "single-frequency | initially active)", PROBABILITY_LOWER),
        Component("purity_margin",
                  "P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | initially active), "
                  "delta = {delta},", PROBABILITY_LOWER)),
    note="the first by the null-set lemma, the second with the tube near purity bounded and subtracted "
         "(docs/purity-tube.md); R_dead as in region_probability")
CLAIMS = (SINGLE_ACTIVE_GATE, GAMMA_CONDITION, HITTING_TIME, HITTING_TIME_BOX, TRANSVERSALITY_MARGIN,
          TRANSVERSALITY_MARGIN_BOX, TERMINAL_W_DISPLACEMENT_BOX, TERMINAL_FOURIER_FRACTION, BALANCE_INVARIANT,
          PURITY_GAP_BOX, TERMINAL_LOSS, GAUSSIAN_PROBABILITY, REGION_PROBABILITY, REGION_PURITY_PROBABILITY)


def dead_claims(params: DeadParameters, radius: fmpq, prec: int) -> list[Claim]:
    """Every claim of a ``dead`` certificate (docs/mathematics.md, section 'Claims by theorem'), at ``prec`` bits.

    Raises HypothesisError for parameters that break (A.58) or B > epsilon/2,
    NotCertified if any inequality on the box cannot be proved.
    """
    require_dead_hypotheses(params)
    p = params.p
    base = dead_base_point(params)
    box = dead_box_bounds(params, radius, prec)
    T = hitting_time_enclosure(params, prec)
    margin = transversality_margin_enclosure(params, prec)
    if base.balance_quantity(p) != terminal_balance_quantity(params):
        raise NotCertified("(A.10): the balance quantity differs between the base point and its terminal state",
                           "balance_invariant")
    terminal_contrasts_squared = [params.B**2, params.B**2, params.Gamma]
    with working_precision(prec):
        log_mass = box_log_mass(dead_gaussian_centres(params), radius, params.sigma)
        log_p = ball(p).log()
        return [
            single_active_gate_claim(SINGLE_ACTIVE_GATE, box.gate_margin),
            GAMMA_CONDITION.claim(lower=box.gamma_condition),
            HITTING_TIME.claim(lower=T, upper=T),
            HITTING_TIME_BOX.claim(lower=box.hitting_time_lower, upper=box.hitting_time_upper),
            TRANSVERSALITY_MARGIN.claim(lower=margin, upper=margin),
            TRANSVERSALITY_MARGIN_BOX.claim(lower=box.margin_lower),
            TERMINAL_W_DISPLACEMENT_BOX.claim(upper=box.w_displacement_upper),
            TERMINAL_FOURIER_FRACTION.claim(exact=two_level_fourier_fraction(p, terminal_contrasts_squared)),
            BALANCE_INVARIANT.claim(exact=base.balance_quantity(p)),
            PURITY_GAP_BOX.claim(lower=box.purity_gap_lower),
            TERMINAL_LOSS.claim(lower=log_p, upper=log_p),
            gaussian_probability_claim(GAUSSIAN_PROBABILITY, log_mass, params.sigma),
            dead_region_claim(params, prec),
            dead_region_purity_claim(params, prec),
        ]


def dead_region_claim(params: DeadParameters, prec: int) -> Claim:
    """The ``region_probability`` claim of Theorem A.2: P(theta(0) in R_dead | initially active) >= lo = 10^log10_lo.

    R_dead (every initial point with exactly one active gate (a*, b*), s = u(a*) + v(b*),
    gamma_y = mu(w) - w(y) > 0, y = a* + b*, and gamma_y^2 > s^2/2, (A.58)) dies in finite time along
    every Clarke trajectory (section A.6, (A.53)-(A.57), Lemma A.17). The bound is
    :func:`certify.kernel.region.dead_region_log_probability_lower` (docs/mathematics.md, section
    'Region probability of the dead theorem'), the same for every sigma (R_dead is a cone). Its ball is
    one exact point, a proved lower bound of log P, computed at a fixed precision and memoised
    (:func:`certify.kernel.region.dead_region_claim_log_lower`); the claim's lo is its exponential (a ball at
    ``prec`` bits).
    """
    log_lower = dead_region_claim_log_lower(params.p)
    with working_precision(prec):
        return region_probability_claim(REGION_PROBABILITY, log_lower, params.sigma)


#: The precision of the tube bound. Each bound is an exact point below the probability at any precision;
#: at a fixed 64 bits the point does not depend on the certificate's precision and costs 0.2 s instead of
#: 0.6 s at p = 13 (0.4 s at p = 101; measured, 64 and 128 bits agree to 20 digits).
PURITY_PRECISION = 64
#: ... and the point is then rounded down to this many significant bits: its bits beyond the accuracy of
#: a 64-bit computation depend on Arb's cached constants (certify.kernel.state; they differed between a
#: fresh process and one that had computed other certificates first), and the checker must recompute the
#: very point the certificate states.
PURITY_BITS = 40


@memoized
def _purity_log_lowers(p: int, delta: fmpq) -> tuple[arb, arb]:
    """(not single-frequency, margin delta) log lower bounds at :data:`PURITY_PRECISION`, rounded down
    to :data:`PURITY_BITS`, cached: a checker meets the same (p, delta) again and again."""
    return (rounded_down(dead_not_single_frequency_log_probability_lower(p, PURITY_PRECISION), PURITY_BITS),
            rounded_down(dead_region_purity_log_probability_lower(p, delta, PURITY_PRECISION), PURITY_BITS))


def dead_region_purity_claim(params: DeadParameters, prec: int) -> Claim:
    """The ``region_purity_probability`` claim: what the dying trajectories from R_dead end at.

    Component ``not_single_frequency``: P(theta(0) in R_dead, the flow dies in finite time and its terminal
    state is not single-frequency | active) >= lo (the null-set lemma: F_zeta(theta_inf) = 1 would put u(0)
    in span(1, E_zeta) + R e_a*, of dimension 4 < p; docs/purity-tube.md). Component ``purity_margin``:
    P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | active) >= lo, delta = the
    parameter ``purity_margin``, by :func:`certify.kernel.region_purity.dead_region_purity_log_probability_lower`
    (the measure of the tube near purity bounded and subtracted). Both hold for every sigma (the events
    are cones). Raises NotCertified when the margin is too large for p (the bound would say nothing).
    """
    not_single, margin = _purity_log_lowers(params.p, params.purity_margin)
    with working_precision(prec):
        ln10 = arb(10).log()
        return REGION_PURITY_PROBABILITY.claim(
            {"delta": params.purity_margin},
            components={name: {"lower": value.exp(), "log10_lower": value / ln10}
                        for name, value in (("not_single_frequency", not_single), ("purity_margin", margin))})

