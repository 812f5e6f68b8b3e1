"""Obligations of Theorem A.1 (sections A.3-A.4): the persistent sliding trajectory.

Base point (section A.3), with constants gamma_* > 0 and X > (p-1)/(e gamma_*) (A.14):

    u(0) = v(0) = X,  u(j) = v(j) = -3X,  w(0) = 2p gamma_*,  w(j) = 0   (j != 0).

Notation: x = u(0) + v(0) (A.11), cross gates u(0)+v(j), u(j)+v(0), gamma_j = mu - w(j)
(A.13), d = w(0) - w_- (A.34) (at the symmetric point d = w(0) - w(j) = d_j). Every
function works with exact rationals and Arb balls, takes its precision, and raises
NotCertified (or HypothesisError for the inputs) rather than return an unproved bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import acb, arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, working_precision
from .basepoint import BasePoint, TwoLevel
from .claims import (ENCLOSURE, EXACT, POSITIVE_ENCLOSURE, POSITIVE_LOWER, Claim, ClaimSpec, Component,
                     Relation)
from .exact import format_rational
from .fourier import two_level_fourier_fraction
from .gaussian import (box_log_mass, gaussian_probability_claim, gaussian_probability_spec, region_probability_claim,
                       region_probability_spec, require_positive_sigma)
from .region_slide import slide_region_claim_bound

PAPER = ("Theorem A.1: region (A.14)-(A.17), sliding selection (A.26)-(A.30), Lemmas A.9-A.11, "
         "full face (A.31)-(A.33), limits (A.39)-(A.46)")

#: Precisions tried, in turn, to decide (A.14) X > (p-1)/(e gamma_*) (e is irrational).
_DECISION_PRECISIONS = (64, 256, 1024, 4096)


@dataclass(frozen=True)
class SlideParameters:
    """The prime p and the exact constants gamma_* and X of (A.14)-(A.17)."""

    p: int
    gamma_star: fmpq
    X: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def c(self) -> fmpq:
        """p / (2(p-1)): before capture d^2 - c x^2 is constant."""
        return fmpq(self.p, 2 * (self.p - 1))

    @property
    def kappa_squared(self) -> fmpq:
        """kappa_p^2 = p^2 / (2(p-1)) (A.40): after capture d^2 - kappa_p^2 x^2 is constant."""
        return fmpq(self.p**2, 2 * (self.p - 1))

    @property
    def d0(self) -> fmpq:
        """d = w(0) - w(j) at the base point: 2 p gamma_*."""
        return 2 * self.p * self.gamma_star


def admissibility_upper(params: SlideParameters) -> arb:
    """Encloses (p-1)/(e X gamma_*), the bound of Lemma A.9 on every kink coefficient alpha_j, beta_j.

    By (A.25) A <= (p-1)/(e x) <= (p-1)/(e X) and gamma_j > gamma_*, so
    alpha_j = A/((k+1) gamma_j) <= (p-1)/(e X gamma_*). Computed at the current precision.
    """
    return ball(params.p - 1) / (arb.const_e() * ball(params.X) * ball(params.gamma_star))


def require_slide_hypotheses(params: SlideParameters) -> None:
    """Raise HypothesisError naming the broken inequality: gamma_* > 0, X > 0 and (A.14).

    (A.14) X > (p-1)/(e gamma_*) is decided with balls at increasing precision; e is
    irrational, so a rational X is never equal to the bound and some precision decides.
    """
    if not params.gamma_star > 0:
        raise HypothesisError(f"gamma_* > 0 fails: gamma_* = {format_rational(params.gamma_star)}")
    if not params.X > 0:
        raise HypothesisError(f"X > 0 fails: X = {format_rational(params.X)}")
    require_positive_sigma(params.sigma)
    for prec in _DECISION_PRECISIONS:
        with working_precision(prec):
            bound = admissibility_upper(params)
            if certainly_lt(bound, arb(1)):
                return
            if certainly_lt(arb(1), bound):
                break
    with working_precision(64):
        threshold = ball(params.p - 1) / (arb.const_e() * ball(params.gamma_star))
    raise HypothesisError(f"(A.14) X > (p-1)/(e gamma_*) fails: X = {format_rational(params.X)}, "
                          f"(p-1)/(e gamma_*) = {threshold.str(10)}")


def slide_base_point(params: SlideParameters) -> BasePoint:
    """The base point of section A.3 as exact two-level blocks."""
    X = params.X
    return BasePoint(u=TwoLevel(X, -3 * X), v=TwoLevel(X, -3 * X), w=TwoLevel(params.d0, fmpq(0)))


def capture_invariants(params: SlideParameters) -> tuple[fmpq, fmpq]:
    """The two conserved values along the base trajectory, exactly.

    Before capture d^2 - c x^2 = d0^2 - 4 c X^2 (x starts at 2X); all cross gates are
    captured together at x = 6X; after capture d^2 - kappa_p^2 x^2 equals its value there,
    d0^2 + 32 c X^2 - 36 kappa_p^2 X^2 ((A.39) at the symmetric point).
    """
    X, c = params.X, params.c
    before = params.d0**2 - 4 * c * X**2
    at_capture = before + 36 * c * X**2  # d^2 at x = 6X
    return before, at_capture - 36 * params.kappa_squared * X**2


def capture_time_log_enclosure(params: SlideParameters, prec: int) -> arb:
    """Encloses log of the capture time at the base point (natural logarithm).

    Before capture only u(0), v(0) move among the inputs, each at rate A/p^2 (A.28)-(A.29)
    with k = l = 0, so the cross gates u(0) - 3X all reach 0 when x = 6X. At the symmetric
    point d_j = d, A = (1 - q_0) d with 1/(1 - q_0) = (e^{x d} + p - 1)/(p - 1), dx/dt = 2A/p^2
    and d d/dx = p x/(2(p-1) d), so d(x) = sqrt(d0^2 + c(x^2 - 4X^2)) and

        T_cap = p^2/(2(p-1)) int_{2X}^{6X} (e^{x d(x)} + p - 1)/d(x) dx.

    The factor e^{M} with M ~ 6X d(6X) (a rational chosen near the maximum of the exponent)
    is taken out so that the integrand is O(1): one rigorous ``acb.integral`` with the
    analytic flag forwarded to sqrt. Requires the hypotheses.
    """
    require_slide_hypotheses(params)
    p, X = params.p, params.X
    with working_precision(prec):
        d_end_squared = params.d0**2 + 32 * params.c * X**2
        M = (ball(6 * X) * ball(d_end_squared).sqrt()).mid().fmpq()  # any constant is exact; this one scales
        d0_sq, c = acb(ball(params.d0**2 - 4 * params.c * X**2)), acb(ball(params.c))
        shift, wrong = acb(ball(M)), acb(ball(p - 1))

        def integrand(x, analytic):
            d = (d0_sq + c * x * x).sqrt(analytic=analytic)
            return ((x * d - shift).exp() + wrong * (-shift).exp()) / d

        integral = acb.integral(integrand, acb(ball(2 * X)), acb(ball(6 * X)))
        if not (integral.real.is_finite() and integral.imag.contains(0) and certainly_positive(integral.real)):
            raise NotCertified("capture-time integral did not converge to a positive real ball", "capture_time")
        return ball(fmpq(p * p, 2 * (p - 1))).log() + ball(M) + integral.real.log()


def kappa_enclosure(params: SlideParameters) -> arb:
    """kappa_p = p / sqrt(2(p-1)) (A.40), at the current precision."""
    return ball(params.kappa_squared).sqrt()


def limit_direction_enclosures(params: SlideParameters) -> dict[str, arb]:
    """The limit of theta/||theta|| (A.45): (1/sqrt p)(V, V, kappa_p q) with V = (1/2, -1/2, ...), q = e_0 - 1/p.

    Returned by block and level: u_at_0 = 1/(2 sqrt p), u_elsewhere = -1/(2 sqrt p) (v alike),
    w_at_0 = kappa_p (p-1)/(p sqrt p), w_elsewhere = -kappa_p/(p sqrt p). Current precision.
    """
    p = params.p
    root_p = ball(p).sqrt()
    half = 1 / (2 * root_p)
    kappa = kappa_enclosure(params)
    w_at_0 = kappa * (p - 1) / (p * root_p)
    w_elsewhere = -kappa / (p * root_p)
    return {"u_at_0": half, "u_elsewhere": -half, "v_at_0": half, "v_elsewhere": -half,
            "w_at_0": w_at_0, "w_elsewhere": w_elsewhere}


def slide_box_margins(params: SlideParameters, radius) -> dict[str, fmpq]:
    """Exact margins of (A.15)-(A.17) on the sup-norm box of radius r; NotCertified names a failure.

    On the box: x >= 2X - 2r, so x - X >= X - 2r; cross gates <= -2X + 2r; off-cross gates
    <= -6X + 2r; gamma_j = w(0)/p + (1/p) sum_{k != 0, j} w(k) - ((p-1)/p) w(j)
    >= 2 gamma_* - 2(p-1) r / p, so gamma_j - gamma_* >= gamma_* - 2(p-1) r/p.
    """
    p, X, r = params.p, params.X, fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    margins = {
        "x_minus_X": X - 2 * r,
        "cross_gates": 2 * X - 2 * r,
        "off_cross_gates": 6 * X - 2 * r,
        "gamma_minus_gamma_star": params.gamma_star - fmpq(2 * (p - 1), p) * r,
    }
    names = {"x_minus_X": "(A.15) X - 2r > 0", "cross_gates": "(A.16) cross gates 2X - 2r > 0",
             "off_cross_gates": "(A.16) off-cross gates 6X - 2r > 0",
             "gamma_minus_gamma_star": "(A.17) gamma_* - 2(p-1)r/p > 0"}
    for name, value in margins.items():
        if not value > 0:
            raise NotCertified(f"box inside U_slide: {names[name]} fails by {format_rational(-value)}",
                               "region_box")
    return margins


def slide_gaussian_centres(params: SlideParameters) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of the base point as (value, multiplicity)."""
    p = params.p
    return [(params.X, 2), (-3 * params.X, 2 * (p - 1)), (params.d0, 1), (fmpq(0), p - 1)]


#: The claims of a ``slide`` certificate, in schema order: what each states (certify.kernel.claims).
REGION_BOX = ClaimSpec(
    "region_box", "box", "for every point of the box",
    components=(Component("x_minus_X", "x - X, x = u(0)+v(0),", POSITIVE_LOWER),
                Component("cross_gates", "-(every cross gate u(0)+v(j), u(j)+v(0), j != 0)", POSITIVE_LOWER),
                Component("off_cross_gates", "-(every other gate u(a)+v(b), a, b != 0)", POSITIVE_LOWER),
                Component("gamma_minus_gamma_star", "gamma_j - gamma_* (every j != 0)", POSITIVE_LOWER)),
    note="so the box lies in U_slide", source="(A.15)-(A.17)")
ADMISSIBILITY = ClaimSpec(
    "admissibility", "box", "for every point of the box, every kink coefficient alpha_j, beta_j of (A.26)-(A.27)",
    Relation("upper", hi_below=1), bound="(p-1)/(e X gamma_*)",
    note="by Lemma A.9 every kink coefficient is at most (p-1)/(e X gamma_*)", source="Lemma A.9, (A.14), (A.25)")
CAPTURE_TIME = ClaimSpec(
    "capture_time", "base_point",
    "from the base point, the time T at which all 2(p-1) cross gates are captured together, at x = 6X,",
    Relation("enclosure", lo_above=0, log10=True),
    note="T = p^2/(2(p-1)) int_{2X}^{6X} (e^{x d} + p - 1)/d dx", source="(A.19)-(A.30)")
CAPTURE_INVARIANTS = ClaimSpec(
    "capture_invariants", "base_point", "along the base trajectory",
    components=(Component("before_capture", "d^2 - p x^2/(2(p-1)) before capture", EXACT),
                Component("after_capture", "d^2 - p^2 x^2/(2(p-1)) after capture", EXACT)),
    note="both are constant", source="(A.39) at the symmetric point")
KAPPA = ClaimSpec(
    "kappa", "box", "along every trajectory from the box, lim d/x = kappa_p = p/sqrt(2(p-1))", POSITIVE_ENCLOSURE,
    source="(A.40)")
LIMIT_DIRECTION = ClaimSpec(
    "limit_direction", "box",
    "along every trajectory from the box theta/||theta|| -> (1/sqrt p)(V, V, kappa_p q), V = (1/2, -1/2, ..., -1/2), "
    "q = e_0 - 1/p, whose coordinates are",
    components=tuple(Component(f"{block}_{level}", subject.format(block), ENCLOSURE)
                     for block in "uvw" for level, subject in (("at_0", "{}(0)"), ("elsewhere", "{}(j), j != 0,"))),
    source="(A.45)")
LIMIT_FOURIER_FRACTION = ClaimSpec(
    "limit_fourier_fraction", "box", "along every trajectory from the box, lim F_zeta (every zeta != 0)", EXACT,
    source="(A.44), (A.46)")
LIMIT_LOSS = ClaimSpec(
    "limit_loss", "box", "along every trajectory from the box, the limit of the loss (1.1), (p^2-1)/p^2 log p,",
    ENCLOSURE, source="(A.33)")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("is initially active and slides (Theorem A.1)")
REGION_PROBABILITY = region_probability_spec(
    "R = R_slide: exactly one active gate (a*, b*), x = u(a*) + v(b*), gamma_j = mu - w(j) for "
    "j != y = a* + b*, m = min_j gamma_j > 0 and x m > (p-1)/e; the union over (A.14) of U_slide(gamma_*, X) "
    "of (A.15)-(A.17) relabelled, from every point of which Theorem A.1 holds (the bound measures one of them, "
    "U_slide at the region's own constants {gamma_star} in place of gamma_* and {X} in place of X, not the box's)")
CLAIMS = (REGION_BOX, ADMISSIBILITY, CAPTURE_TIME, CAPTURE_INVARIANTS, KAPPA, LIMIT_DIRECTION,
          LIMIT_FOURIER_FRACTION, LIMIT_LOSS, GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def slide_claims(params: SlideParameters, radius, prec: int) -> list[Claim]:
    """Every claim of a ``slide`` certificate (docs/mathematics.md, section 'Claims by theorem'), at ``prec`` bits."""
    require_slide_hypotheses(params)
    p = params.p
    margins = slide_box_margins(params, radius)
    log_capture = capture_time_log_enclosure(params, prec)
    before, after = capture_invariants(params)
    with working_precision(prec):
        ln10 = arb(10).log()
        admissibility = admissibility_upper(params)
        log_mass = box_log_mass(slide_gaussian_centres(params), radius, params.sigma)
        direction = limit_direction_enclosures(params)
        kappa = kappa_enclosure(params)
        limit_loss = ball(fmpq(p * p - 1, p * p)) * ball(p).log()
        return [
            REGION_BOX.claim(components={name: {"lower": value} for name, value in margins.items()}),
            ADMISSIBILITY.claim(upper=admissibility),
            CAPTURE_TIME.claim(lower=log_capture.exp(), upper=log_capture.exp(), log10_lower=log_capture / ln10,
                               log10_upper=log_capture / ln10),
            CAPTURE_INVARIANTS.claim(components={"before_capture": {"exact": before}, "after_capture": {"exact": after}}),
            KAPPA.claim(lower=kappa, upper=kappa),
            LIMIT_DIRECTION.claim(components={name: {"lower": value, "upper": value} for name, value in direction.items()}),
            LIMIT_FOURIER_FRACTION.claim(exact=two_level_fourier_fraction(p, [fmpq(1), fmpq(1), params.kappa_squared])),
            LIMIT_LOSS.claim(lower=limit_loss, upper=limit_loss),
            gaussian_probability_claim(GAUSSIAN_PROBABILITY, log_mass, params.sigma),
            slide_region_claim(params, prec),
        ]


def slide_region_claim(params: SlideParameters, prec: int) -> Claim:
    """The ``region_probability`` claim of Theorem A.1: P(theta(0) in R_slide | initially active) >= lo.

    R_slide (one active gate (a*, b*), x = u(a*) + v(b*), m = min_{j != y} gamma_j > 0, x m > (p-1)/e) is
    the union over (A.14) of the relabelled U_slide(gamma_*, X) of (A.15)-(A.17); the bound of
    :func:`certify.kernel.region_slide.slide_region_log_probability_lower` measures one of them, with the
    (gamma_*, X) it names (chosen for the scale sigma, independent of the box's parameters). Its ball is
    one exact point; the claim's lo is its exponential at ``prec`` bits.
    """
    bound = slide_region_claim_bound(params.p, params.sigma)  # fixed precision, memoised
    with working_precision(prec):
        return region_probability_claim(REGION_PROBABILITY, bound.log_lower, params.sigma,
                                        gamma_star=bound.gamma_star, X=bound.X)

