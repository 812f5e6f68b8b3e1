"""Probability of the whole region U_1 of Theorem S1 (docs/staircase.md, section 10.7, Proposition S1.8).

With kappa = sigma^2, n = p - 1, Delta = w(0) - mean(w(1..n)) ~ N(0, p/n) and e the centred w(1..n), independent
of Delta (S1.5), the proposition gives

    P(R | active) >= p^2 sum_i P(delta_i <= Delta < delta_{i+1}) sum_k (h_ik - h_i,k+1) Sid(alpha_ik)     (S1.7)

R = U_1 relabelled, h_ik a lower bound of H(x_ik) (the mass (S1.3) of one active gate above x_ik with its
boundary gates negative), x_ik a grid point where (S1.6) is proved for (delta_i, alpha_ik), and Sid the lower bound
of P(e in [-alpha, alpha]^n) of Lemma S1.10 (the larger of Sidak's product and the section bound). Every number is a ball at a fixed precision; the grids are fixed
rationals, so the bound is the same in every process. Floats only guess where to start the search for x_ik;
the x_ik used are the ones proved in Arb.
"""

from __future__ import annotations

import math

from flint import arb, arb_poly, fmpq

from ..errors import InputError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, working_precision
from .gaussian import require_positive_sigma
from .memo import memoized
from .primes import require_prime
from .region import stated_log_lower

__all__ = ["STEP", "X_POINTS", "DELTA_CELLS", "ALPHA_STEPS", "normal_cdf", "single_gate_mass_lower",
           "centred_box_lower", "threshold_holds", "memorise_whole_region_log_lower"]

#: The common step of the x grid (x_m = m STEP) and of the lower sum (S1.4) (a_j = A_0 + j STEP).
STEP = fmpq(1, 100)
#: x_m for m = 0..X_POINTS: thresholds above x = 12 contribute h = 0 (a valid lower bound).
X_POINTS = 1200
#: The lower sum (S1.4) runs over a in [A_0, U_UPPER]; outside it the integrand is dropped (>= 0).
U_UPPER = 8
#: I: cells [delta_i, delta_{i+1}) of Delta, delta_i = i (3 isqrt(p) + 7)/I, the last one unbounded.
DELTA_CELLS = 256
#: K: alpha_ik = (delta_i/p) k/(K + 1), k = 1..K.
ALPHA_STEPS = 32


def _precision(p: int) -> int:
    """Phi^p multiplies the relative error of Phi by p: carry 2 log2(p) bits more than a fixed 96."""
    return 96 + 2 * p.bit_length()


def normal_cdf(x: arb) -> arb:
    """Encloses Phi(x) = erfc(-x/sqrt 2)/2 (relative accuracy also in the far left tail). Current precision."""
    return (-x / ball(2).sqrt()).erfc() / 2


def _lowest_node(p: int) -> int:
    """A_0/STEP: the lower sum starts 8 + isqrt(2 log2 p) below 0, at least 8 below -sqrt(2 ln p), near which the
    law of u(0) given the pattern sits for large p."""
    return -100 * (8 + math.isqrt(2 * p.bit_length()))


def single_gate_mass_lower(p: int) -> list[arb]:
    """Exact balls (radius 0) h_m <= H(x_m), x_m = m STEP for m = 0..X_POINTS, nonincreasing in m
    (docs/staircase.md, (S1.3)-(S1.4)).

    H(x) = P(u(0) + v(0) > x, u(i) < -v(0) and v(j) < -u(0) for i, j >= 1) under N(0, I_{3p}). By (S1.4),
    H(x_m) >= (1/p^2) sum_j c_j Phi(a_j - x_m)^p with c_j = Phi(-a_j)^p - Phi(-a_{j+1})^p >= 0; the sums over j
    for all m are the coefficients of one product of polynomials in Arb (a_j - x_m = A_0 + (j - m) STEP), whose
    balls enclose them. h_m is the running minimum of their lower bounds (arb_get_lbound, rounded towards
    -infinity; 0 for a ball that is not finite or reaches below 0): still a lower bound, because H decreases.
    Computed at a fixed precision from exact inputs, so the memoised values are the same in every process.
    Requires a prime p >= 5.
    """
    require_prime(p)
    return _single_gate_mass_lower(p)


@memoized
def _single_gate_mass_lower(p: int) -> list[arb]:
    low = _lowest_node(p)
    cells = U_UPPER * 100 - low  # a_j = (low + j)/100, j = 0..cells
    with working_precision(_precision(p)):
        step = ball(STEP)
        # Phi(-a_j)^p for j = 0..cells, then the cell weights c_j
        upper_tail = [normal_cdf(-(ball(low + j) * step)) ** p for j in range(cells + 1)]
        weights = arb_poly([upper_tail[j] - upper_tail[j + 1] for j in range(cells)])
        # f_d = Phi(A_0 + d STEP)^p for d = -X_POINTS..cells-1, as the coefficient of X^(cells-1-d)
        powers = arb_poly([normal_cdf(ball(low + d) * step) ** p
                           for d in range(cells - 1, -X_POINTS - 1, -1)])
        product = weights * powers
        scale = ball(p) ** 2
        bounds, running = [], None
        for m in range(X_POINTS + 1):
            value = product[cells - 1 + m] / scale
            lower = value.lower() if value.is_finite() and certainly_positive(value) else arb(0)
            running = lower if running is None else running.min(lower)  # exact balls: an exact minimum
            bounds.append(running)
    return bounds


def centred_box_lower(n: int, alpha) -> arb:
    """A ball enclosing a lower bound of P(e in [-alpha, alpha]^n), e = the centred vector of n iid N(0, 1)
    (Lemma S1.10): the larger of Sidak's product (2 Phi(alpha sqrt(n/(n-1))) - 1)^n and the section bound
    m^n sqrt(pi/(6 v)), with m = erf(alpha/sqrt 2) = P(|N(0, 1)| <= alpha) and v = 1 - 2 alpha phi(alpha)/m the variance
    of N(0, 1) truncated to [-alpha, alpha] (Sidak's alone where v is not proved positive). So its lower end is a
    proved lower bound; its upper end need not be. ``alpha`` > 0 exact and an integer n >= 2, else InputError.
    Current precision."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise InputError(f"the dimension n must be an integer >= 2, got {n!r}")
    if not fmpq(alpha) > 0:
        raise InputError(f"the half-width alpha must be positive, got {alpha}")
    a = ball(fmpq(alpha))
    sidak = (a * ball(fmpq(n, 2 * (n - 1))).sqrt()).erf() ** n
    mass = (a / ball(2).sqrt()).erf()
    density = (-a * a / 2).exp() / (2 * arb.pi()).sqrt()
    variance = 1 - 2 * a * density / mass
    if not (certainly_positive(mass) and certainly_positive(variance)):
        return sidak
    section = mass**n * (arb.pi() / (6 * variance)).sqrt()
    return sidak.max(section)


def threshold_holds(p: int, kappa, delta, alpha, x) -> bool:
    """True only if (S1.6) is proved with balls: n e^{-y delta} cosh(y alpha) < e^b - 1 at y = kappa x, with n = p - 1,
    b = 2/(p rho+), rho+ = 1 + 2 alpha/(delta/p - alpha) (Lemma S1.9; needs 0 < alpha < delta/p). Then every w
    with Delta >= delta and e in [-alpha, alpha]^n lies in W and has X* <= x. Current precision."""
    delta, alpha = fmpq(delta), fmpq(alpha)
    if not 0 < alpha < delta / p:
        return False
    rho = 1 + 2 * alpha / (delta / p - alpha)
    y = ball(fmpq(kappa) * fmpq(x))
    left = (p - 1) * (-y * ball(delta)).exp() * (y * ball(alpha)).cosh()
    return certainly_lt(left, ball(2 / (p * rho)).exp() - 1)


def _first_grid_point(p: int, kappa: fmpq, delta: fmpq, alpha: fmpq, budget: float) -> int | None:
    """The smallest m <= X_POINTS with (S1.6) proved at x_m (assuming, as holds up to the last bits, that proofs
    do not fail above a proved point), or None.

    A float solution only chooses where to start: three steps of the decreasing map
    y -> log(n (1 + e^{-2 y alpha})/(2 budget))/(delta - alpha) from its value at 0 (>= the root) stay at or below
    the root, so the walk starts at or below the answer and ends at the same m on every platform. The start is
    the exact ceiling of y/(kappa STEP), clamped to [0, X_POINTS] (no float of kappa: sigma may be 10^-100)."""
    d, a = float(delta), float(alpha)
    y = math.log(max((p - 1) / budget, 1.0)) / (d - a)
    for _ in range(3):
        y = max(math.log((p - 1) * (1 + math.exp(-2 * y * a)) / (2 * budget)) / (d - a), 0.0)
    m = min(max(int((fmpq(*y.as_integer_ratio()) / (kappa * STEP)).ceil()), 0), X_POINTS)
    if threshold_holds(p, kappa, delta, alpha, m * STEP):
        while m > 0 and threshold_holds(p, kappa, delta, alpha, (m - 1) * STEP):
            m -= 1
        return m
    while m < X_POINTS:
        m += 1
        if threshold_holds(p, kappa, delta, alpha, m * STEP):
            return m
    return None


def memorise_whole_region_log_lower(p: int, sigma) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R | initially active), R = U_1 relabelled, theta(0) ~
    N(0, sigma^2 I_{3p}): Proposition S1.8, (S1.7), on the fixed grids of this module, stated on the grid of
    :func:`certify.kernel.region.stated_log_lower`. Requires a prime p >= 5 (InputError) and an exact sigma > 0
    (HypothesisError); NotCertified if the sum is not proved positive."""
    require_prime(p)
    require_positive_sigma(sigma)
    return _whole_region_log_lower(p, fmpq(sigma))


@memoized
def _whole_region_log_lower(p: int, sigma: fmpq) -> arb:
    n, kappa = p - 1, sigma * sigma
    masses = single_gate_mass_lower(p)
    width = fmpq(3 * math.isqrt(p) + 7, DELTA_CELLS)
    with working_precision(_precision(p)):
        scale = (ball(fmpq(n, p)) / 2).sqrt()  # Phibar(delta/sd) = erfc(delta sqrt(n/p)/sqrt 2)/2
        tails = [(ball(i * width) * scale).erfc() / 2 for i in range(1, DELTA_CELLS + 1)] + [arb(0)]
        budgets = [2 / (p * (1 + fmpq(2 * k, ALPHA_STEPS + 1 - k))) for k in range(1, ALPHA_STEPS + 1)]
        total = arb(0)
        for i in range(1, DELTA_CELLS + 1):
            delta = i * width
            levels, boxes = [], []
            for k, budget in enumerate(budgets, start=1):
                alpha = delta * fmpq(k, p * (ALPHA_STEPS + 1))
                m = _first_grid_point(p, kappa, delta, alpha, math.expm1(float(budget)))
                if m is None:
                    break
                levels.append(masses[m] if not levels else levels[-1].min(masses[m]))
                boxes.append(centred_box_lower(n, alpha))
            if not levels or not certainly_positive(levels[0]):
                continue
            levels.append(arb(0))
            # the coefficients are differences of exact, nonincreasing h: their true values are >= 0 (Abel), so
            # a ball of the difference times a lower bound of P(e in B_k) encloses a lower bound of its term
            inner = sum(((levels[k] - levels[k + 1]) * boxes[k] for k in range(len(boxes))), arb(0))
            cell = tails[i - 1] - tails[i]
            if cell.is_finite() and inner.is_finite():
                total += cell * inner
        if not certainly_positive(total):
            raise NotCertified(f"the whole-region bound of U_1 is not proved positive at p = {p}")
        return stated_log_lower((total * p * p).log())
