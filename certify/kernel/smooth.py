"""Obligations of Theorem A.3 (section A.7): a smooth dead-zone activation.

The activation is sigma_eps(z) = z psi(z/eps) (A.1) with the fixed choice

    psi(t) = f(t) / (f(t) + f(1 - t)),   f(t) = exp(-1/t) for t > 0, f(t) = 0 for t <= 0,

which is C-infinity, nondecreasing, 0 on t <= 0, 1 on t >= 1 and positive on t > 0, as
Theorem A.3 requires. Base point (A.48)-(A.49) = (2.1): u(0) = v(0) = epsilon/2, u(j) = v(j) =
-B, w(0) = -A, w(j) = 0 (s0 = epsilon). ``eps_smooth`` is the eps of sigma_eps.

Closed form used by the kernel (derived from the definition; tests check it against the
direct quotient): with t = s/eps in (0, 1) and R = f(t)/f(1-t) = exp(1/(1-t) - 1/t),

    sigma_eps(s)/sigma_eps'(s) = s phi(t),   phi(t) = (R + 1)/(R + 1 + 1/t + t/(1-t)^2),

and sigma/sigma' = s for s >= eps (sigma is the identity there).
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import acb, arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_positive, rounded_down, upper_endpoint, working_precision
from .basepoint import BasePoint
from .memo import memoized
from .claims import ENCLOSURE, EXACT, POSITIVE_LOWER, UPPER, Claim, ClaimSpec
from .exact import format_rational
from .fourier import two_level_fourier_fraction
from .gaussian import (box_log_mass, gaussian_probability_claim, gaussian_probability_spec, region_probability_claim,
                       region_probability_spec, require_positive_sigma)
from .region import REGION_PRECISION, smooth_region_claim_log_lower
from .family import (family_base_point, family_gaussian_centres, family_box, single_active_gate_claim, single_active_gate_spec,
                     terminal_purity_gap)

PSI = "psi(t) = f(t)/(f(t) + f(1-t)), f(t) = exp(-1/t) (t > 0), 0 (t <= 0)"
PAPER = (f"Theorem A.3 with sigma_eps(z) = z psi(z/eps), {PSI}: base point (A.48)-(A.49) = (2.1), "
         "(A.61)-(A.69), purity (1.5)")

#: J on [0, eps * 2^-40] is bounded, not integrated (psi has an essential singularity at 0).
_NEAR_ZERO = fmpq(1, 2**40)
#: Near t = 1 the closed form has an essential singularity too; above 1 - 2^-7 phi is 1 to within 1e-51.
_NEAR_ONE = 1 - fmpq(1, 2**7)


@dataclass(frozen=True)
class SmoothParameters:
    """The prime p, the smoothing eps (``eps_smooth``) and epsilon (= s0), A, B of (2.1)."""

    p: int
    eps_smooth: fmpq
    epsilon: fmpq
    A: fmpq
    B: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def gamma_in(self) -> fmpq:
        """g(0) = mu - w(0) = (p-1)A/p at the base point (section A.7 writes g for it)."""
        return fmpq(self.p - 1, self.p) * self.A


def _phi_integrand(t, analytic):
    """t phi(t) on (0, 1): the integrand of J in the variable t = s/eps (meromorphic there)."""
    R = (1 / (1 - t) - 1 / t).exp()
    return t * (R + 1) / (R + 1 + 1 / t + t / (1 - t) ** 2)


def _one_tail_deficit() -> arb:
    """Bound eta_1 with 1 - eta_1 <= phi(t) <= 1 for t in [1 - 2^-7, 1).

    phi = 1 - (1/t + t/(1-t)^2)/(R + 1 + ...) >= 1 - (1/t + u^2) e^{1/t - u} with u = 1/(1-t) >= 128,
    and (c + u^2) e^{-u} decreases for u > 2, so eta_1 = (1/T1 + 128^2) e^{1/T1 - 128}, T1 = 1 - 2^-7.
    """
    u1 = ball(2**7)
    inverse_t1 = ball(1 / _NEAR_ONE)
    return (inverse_t1 + u1**2) * (inverse_t1 - u1).exp()


#: Bits below the precision at which J's ends are rounded outward before they are memoised (see dead_zone_integral):
#: the ends agree to the last bit across the histories tried (fresh, after 64..1000-bit work), so 24 bits are margin.
_J_GRID_BITS = 24


@memoized(maxsize=4096)
def dead_zone_integral(s0, eps_smooth, prec: int) -> tuple[arb, arb]:
    """Lower and upper balls for J(s0) = int_0^{s0} sigma_eps/sigma_eps' ds (A.66).

    In t = s/eps: J = eps^2 int_0^{min(s0/eps, 1)} t phi(t) dt + max(0, s0^2 - eps^2)/2, and
      * on (0, 2^-40]: 0 <= t phi <= 2 t^2, since for t <= 1/2 R <= 1 and phi <= 2/(2 + 1/t) <= 2t;
      * on [2^-40, min(s0/eps, 1 - 2^-7)]: one rigorous ``acb.integral`` of the closed form
        (meromorphic on a neighbourhood of the segment; no branch cuts);
      * on [1 - 2^-7, min(s0/eps, 1)]: t (1 - eta_1) <= t phi <= t (:func:`_one_tail_deficit`).
    The bounds are proved, not only J <= s0^2/2 of (A.61). Requires s0 > 0, eps > 0.
    Memoised (certify.kernel.memo; it survives :func:`certify.kernel.state.fresh_state`): J depends on
    neither p nor the box, and sweeps meet the same (s0, eps, prec) again and again (radii keep 3 digits).
    For that the lower end is rounded down and the upper end up to prec - 24 significant bits (at least 53):
    the bits below depend on Arb's cached constants, so the stated ends are then the same in every process
    whichever certificate computed J first, and they are still proved bounds.
    """
    s0, eps = fmpq(s0), fmpq(eps_smooth)
    if not (s0 > 0 and eps > 0):
        raise NotCertified("J(s0) needs s0 > 0 and eps > 0")
    t_end = min(s0 / eps, fmpq(1))
    with working_precision(prec):
        lower, upper = arb(0), arb(0)
        start = min(t_end, _NEAR_ZERO)
        upper += ball(2 * start**3 / 3)
        middle_end = min(t_end, _NEAR_ONE)
        if middle_end > start:
            integral = acb.integral(_phi_integrand, acb(ball(start)), acb(ball(middle_end)))
            if not (integral.real.is_finite() and integral.imag.contains(0)):
                raise NotCertified("J(s0): the integral of sigma/sigma' did not converge", "dead_zone_integral")
            lower += integral.real
            upper += integral.real
        if t_end > middle_end:
            squares = ball((t_end**2 - middle_end**2) / 2)
            lower += squares * (1 - _one_tail_deficit())
            upper += squares
        scale = ball(eps**2)
        identity_part = ball(max(fmpq(0), s0**2 - eps**2) / 2)  # sigma = identity on [eps, s0]
        bits = max(53, prec - _J_GRID_BITS)
        return (rounded_down(scale * lower + identity_part, bits),
                -rounded_down(-(scale * upper + identity_part), bits))


def _fails(inequality: str, lhs, rhs) -> HypothesisError:
    return HypothesisError(f"{inequality} fails: {format_rational(lhs)} <= {format_rational(rhs)}")


def require_smooth_hypotheses(params: SmoothParameters, prec: int) -> None:
    """Raise HypothesisError naming the broken inequality.

    eps_smooth, epsilon, A, B > 0; B > epsilon/2; and (A.67) g(0)^2 > J(s0) at the base point,
    decided with the upper ball of J computed at ``prec`` bits (so a pass is proved; J <= s0^2/2
    makes (A.58) sufficient). There is no default precision: the builder passes the certificate's
    precision_bits and the checker the precision it recomputes the claims at, so a certificate
    at 512 bits is never judged by a coarser J than its claims.
    """
    for name in ("eps_smooth", "epsilon", "A", "B"):
        value = getattr(params, name)
        if not value > 0:
            raise _fails(f"{name} > 0", value, 0)
    require_positive_sigma(params.sigma)
    if not params.B > params.epsilon / 2:
        raise _fails("B > epsilon/2 (section 2: cross gates epsilon/2 - B < 0)", params.B, params.epsilon / 2)
    _, J_upper = dead_zone_integral(params.epsilon, params.eps_smooth, prec)
    with working_precision(prec):
        if not certainly_positive(ball(params.gamma_in**2) - J_upper):
            raise HypothesisError(f"(A.67) g(0)^2 > J(s0) fails: g(0)^2 = {format_rational(params.gamma_in**2)}, "
                                  f"J(s0) <= {J_upper.str(10)}")


def smooth_base_point(params: SmoothParameters) -> BasePoint:
    """The base point (2.1) = (A.48)-(A.49) as exact two-level blocks."""
    return family_base_point(params.epsilon, params.A, params.B)


@dataclass(frozen=True)
class SmoothBoxBounds:
    gate_margin: fmpq
    J_lower: arb               # J(smax), lower ball
    J_upper: arb               # J(smax), upper ball
    g_condition: arb           # gmin^2 - J(smax) > 0 ((A.67) on the box)
    g_star: arb                # sqrt(gmin^2 - J(smax)) <= g(t) for all t ((A.68))
    displacement_upper: arb    # ||w_inf - w_0||_1 <= 2 Mmax
    purity_gap_lower: arb


def smooth_box_bounds(params: SmoothParameters, radius, prec: int, dead_zone=None) -> SmoothBoxBounds:
    """Certify the box of sup-radius ``radius`` around (2.1) for the smooth flow; NotCertified names a failure.

    For every point of the box (r, smax = epsilon + 2r, gmin = (p-1)(A - 2r)/p):
      gates as in Theorem A.2: central >= epsilon - 2r > 0, others <= -min(B - epsilon/2, 2B) + 2r < 0,
      and the central-only region is invariant (u(0), v(0) decrease together, section A.7);
      J(s0) <= J(smax) (J increases), so gmin^2 > J(smax) gives (A.67) and g(t) >= g_* (A.68);
      the limit exists and u_inf(0) = (u(0) - v(0))/2 (s -> 0, u(0) - v(0) constant);
      w: the total increase M of w(0) satisfies M = g(0) - g_inf <= (p-1)(A+2r)/p - g_* and, by (A.69)
      with 1 - q_0 <= 1, M <= int sigma(s) dt/p^2 <= J(smax)/(2 g_*); ||w_inf - w_0||_1 = 2M;
      the activation is sigma(s) <= s <= smax. So :func:`terminal_purity_gap` applies with c_u = B.
    ``dead_zone(smax)`` returns a lower and an upper ball for J(smax) (default: :func:`dead_zone_integral`
    at ``prec``); any rigorous bounds keep the result valid (the radius search passes coarser, cached ones).
    """
    p, eps, A, B = params.p, params.epsilon, params.A, params.B
    r = fmpq(radius)
    gate_margin, gmin, smax = family_box(p, eps, A, B, r, "(A.67)", "g_condition")
    J_lower, J_upper = (dead_zone or (lambda x: dead_zone_integral(x, params.eps_smooth, prec)))(smax)
    with working_precision(prec):
        condition = ball(gmin**2) - J_upper
        if not certainly_positive(condition):
            raise NotCertified(f"(A.67) on the box: ((p-1)(A-2r)/p)^2 - J(epsilon+2r) > 0 fails: {condition.str(10)}",
                               "g_condition")
        g_star = condition.sqrt()
        transfer = (J_upper / (2 * g_star)).min(ball(fmpq(p - 1, p) * (A + 2 * r)) - g_star)
        gap = terminal_purity_gap(p, r, ball(B), ball(B), A, smax, transfer)
        return SmoothBoxBounds(gate_margin, J_lower, J_upper, condition, g_star, 2 * transfer, gap)


def smooth_gaussian_centres(params: SmoothParameters) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of (2.1) as (value, multiplicity)."""
    return family_gaussian_centres(params.p, params.epsilon, params.A, params.B)


#: The claims of a ``smooth`` certificate, in schema order: what each states (certify.kernel.claims).
SINGLE_ACTIVE_GATE = single_active_gate_spec("(A.48)-(A.49)")
DEAD_ZONE_INTEGRAL = ClaimSpec(
    "dead_zone_integral", "box", "J(epsilon + 2r) = int_0^(epsilon+2r) sigma_eps/sigma_eps' ds", ENCLOSURE,
    note=PSI, source="(A.66)")
G_CONDITION = ClaimSpec(
    "g_condition", "box", "for every point of the box, g(0)^2 - J(s0)", POSITIVE_LOWER,
    bound="((p-1)(A-2r)/p)^2 - J(epsilon+2r)", note="g = mu - w(0)", source="(A.67)")
TERMINAL_DISPLACEMENT_BOX = ClaimSpec(
    "terminal_displacement_box", "box", "from every point of the box the flow converges and ||w_inf - w_0||_1",
    UPPER, source="(A.68)-(A.69)")
PURITY_GAP_BOX = ClaimSpec(
    "purity_gap_box", "box", "at every limit from the box, 1 - max_zeta F_zeta", POSITIVE_LOWER,
    source="Theorem A.3; purity-gap lemma")
TERMINAL_FOURIER_FRACTION = ClaimSpec(
    "terminal_fourier_fraction", "base_point",
    "from the base point the limit is two-level and its F_zeta (every zeta != 0)", EXACT, source="Theorem A.3")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("is initially active (Theorem A.3)")
REGION_PROBABILITY = region_probability_spec(
    "R = R_smooth: exactly one active gate (a*, b*), g(0) = gamma_y = mu - w(y) > 0 with y = a* + b*, and "
    "(A.67) gamma_y^2 > J(s), s = u(a*) + v(b*), J(s) = int_0^s sigma_eps/sigma_eps' ((A.66)); from every "
    "point of it the gradient flow converges to a finite limit ((A.62)-(A.69))")
CLAIMS = (SINGLE_ACTIVE_GATE, DEAD_ZONE_INTEGRAL, G_CONDITION, TERMINAL_DISPLACEMENT_BOX, PURITY_GAP_BOX,
          TERMINAL_FOURIER_FRACTION, GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def smooth_claims(params: SmoothParameters, radius, prec: int) -> list[Claim]:
    """Every claim of a ``smooth`` certificate, computed at ``prec`` bits."""
    require_smooth_hypotheses(params, prec)
    p = params.p
    box = smooth_box_bounds(params, radius, prec)
    with working_precision(prec):
        log_mass = box_log_mass(smooth_gaussian_centres(params), radius, params.sigma)
        return [
            single_active_gate_claim(SINGLE_ACTIVE_GATE, box.gate_margin),
            DEAD_ZONE_INTEGRAL.claim(lower=box.J_lower, upper=box.J_upper),
            G_CONDITION.claim(lower=box.g_condition),
            TERMINAL_DISPLACEMENT_BOX.claim(upper=box.displacement_upper),
            PURITY_GAP_BOX.claim(lower=box.purity_gap_lower),
            TERMINAL_FOURIER_FRACTION.claim(exact=two_level_fourier_fraction(p, [params.B**2, params.B**2])),
            gaussian_probability_claim(GAUSSIAN_PROBABILITY, log_mass, params.sigma),
            smooth_region_claim(params, prec),
        ]


def smooth_region_claim(params: SmoothParameters, prec: int) -> Claim:
    """The ``region_probability`` claim of Theorem A.3: P(theta(0) in R_smooth | initially active) >= lo.

    R_smooth (one active gate (a*, b*), g(0) = gamma_y = mu - w(y) > 0 and (A.67) gamma_y^2 > J(s),
    s = u(a*) + v(b*)): the smooth gradient flow converges from every point of it ((A.62)-(A.69) at a
    general point). The bound is :func:`certify.kernel.region.smooth_region_claim_log_lower` (the lower sum
    at a fixed precision, memoised) with the upper end of J(eps) (:func:`dead_zone_integral` at s0 = eps at
    that precision); it depends on sigma/eps.
    """
    _, J_eps_upper = dead_zone_integral(params.eps_smooth, params.eps_smooth, REGION_PRECISION)
    log_lower = smooth_region_claim_log_lower(params.p, params.sigma, params.eps_smooth, upper_endpoint(J_eps_upper))
    with working_precision(prec):
        return region_probability_claim(REGION_PROBABILITY, log_lower, params.sigma)
