"""Dead AND impure: the dead region R_dead of Theorem A.2 with a purity margin at the terminal state.

Two results on R_dead (certify.kernel.region; paper section A.6, (1.5) for F_zeta), under
theta(0) ~ N(0, sigma^2 I_{3p}) for every sigma > 0, conditioned on initial activity:

* Lemma (null set): the points of R_dead whose terminal state theta_inf is single-frequency
  (max_zeta F_zeta(theta_inf) = 1, or F undefined) form a Lebesgue-null set, so
  P(dies in finite time and is not single-frequency | active) >= P(R_dead | active):
  :func:`dead_not_single_frequency_log_probability_lower`.
* The delta-margin bound: P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | active)
  >= lo(delta), by bounding the measure of the tube lost near purity:
  :func:`dead_region_purity_log_probability_lower`.

Sketch (docs/purity-tube.md has every inequality with its proof). On R_dead, with S the middle
spacing of the 2p values {u(a)} u {-v(b)}, Q their sum of squares, W = ||w(0)_0||^2,
O_zeta = dist(w(0), span(1, E_zeta))^2 and d >= ||w_inf - w(0)||_2,

    1 - F_zeta(theta_inf) >= (sqrt(O_zeta) - d)_+^2 / (Q + (sqrt(W) + d)^2),

d <= sqrt(2) M with M = gamma_y(0) - gamma_y(T) <= gamma - sqrt(gamma^2 - S^2/2) <= S / sqrt 2, and
d <= (lambda - sqrt(lambda^2 - 1)) S on {gamma_y >= lambda S / sqrt 2}. With Z = S / sqrt(Q) (independent of
Q: X / ||X|| is independent of ||X||), rho = O_zeta / W ~ Beta((p-3)/2, 1) and B = W / (Q + W) ~
Beta((p-1)/2, p), all independent, the lost event for one class lies in {rho < kappa(mu Z)^2 / B},
kappa(e) = e + sqrt(delta)(1 + e), whose probability given Z is a closed form.

Each function takes the precision ``prec`` (bits) it computes at (guard bits are added) and raises
NotCertified rather than return an unproved value. Floats never enter: the free constants (the
ratios lambda, the grid in Z, the radii r) are exact rationals fixed by the code, and the best of a
fixed finite list of rigorous bounds is returned, so the result is deterministic.
"""

from __future__ import annotations

import math
from functools import lru_cache

from flint import acb, arb, ctx, fmpq

from ..errors import InputError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, upper_endpoint, working_precision
from .exact import ExactNumber
from .primes import require_prime
from .region import (dead_region_log_probability_lower, expected_spacing_upper_point, log_central_binomial)

__all__ = [
    "DEFAULT_PURITY_MARGIN", "chi_square_cdf_upper", "spacing_tail_probability",
    "spacing_tail_probability_upper", "scaled_spacing_tail_probability_upper", "class_fraction_deficit_probability",
    "purity_tube_probability_upper", "dead_not_single_frequency_log_probability_lower",
    "dead_region_purity_log_probability_lower", "dead_region_purity_log10_probability_lower",
]

#: The default purity margin delta: P(dies and max_zeta F_zeta(theta_inf) <= 1 - delta | active) is
#: certified for it at every prime tried, p = 5 included (there it keeps ~28% of the R_dead bound, ~85%
#: at p = 7, all of it to 4 digits from p = 31 on); 1/20 fails at p = 5 (docs/purity-tube.md, the table).
DEFAULT_PURITY_MARGIN = fmpq(1, 100)

#: Ratios lambda > 1 tried for the cut gamma_y >= lambda S / sqrt 2 (None: no cut, the whole R_dead, d <= S).
GAMMA_RATIOS = (None, fmpq(9, 8), fmpq(5, 4), fmpq(3, 2), fmpq(2), fmpq(3))
#: The tube's grid in Z is z_i = m_i E[Z]_hi for these exact m_i: 2^(i/2) / 16 for i <= 24 (181/128 standing for
#: sqrt 2), then 2^(i - 12) / 16 up to 2^44 / 16 (:func:`_tube_setup`; certify.coq.region_purity uses the same)
TUBE_MULTIPLES = tuple([fmpq(2 ** (j // 2) * (1 if j % 2 == 0 else 181), 16 * (1 if j % 2 == 0 else 128))
                        for j in range(25)] + [fmpq(2 ** j, 16) for j in range(13, 45)])
#: Half-width W, in xi = sqrt(p) x, of the window of the spacing-tail integral, centred on its peak (the tails
#: outside are bounded in closed form). The integrand is a log-concave peak of width O(1) in xi whose log falls
#: at least like xi^2/2 away from it, so the closed-form tails are below 10^-15 of the result for every s that
#: matters (p <= 47); integrating [-8, 8] in x instead cost about twice the evaluations.
_SPACING_WINDOW = 8
#: Primes above this use only Markov's bound E[Z]/z for P(Z > z): there the tube is exponentially small
#: until z is ~1e12 E[Z] or more, so the Markov tail at the end of the grid (2^40 / 16 E[Z]) is ~4e-12.
#: Measured (delta = 1/100, 64 bits): the spacing integrals cost 0.6 s at p = 97, 2.6 s at 1009, 31 s at
#: 99991, Markov alone 0.01-0.4 s, and loses 0.005 in ln P at p = 97, 0.0015 at 211, 0.0002 at 1009;
#: below ~30 Markov alone is too weak (p = 5: not certified). Hence 50.
_SPACING_INTEGRAL_MAX_P = 50


def _guarded(p, prec) -> tuple[int, int]:
    """Validate (p, prec) and return (p, the internal precision): guard bits as in certify.kernel.region
    (log C(2p, p) ~ 2p log 2 and log-gamma of numbers ~p must keep a small absolute error)."""
    p = require_prime(p)
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise InputError(f"the precision must be an integer number of bits >= 16, got {prec!r}")
    return p, prec + 2 * p.bit_length() + 20


def _region_call(function, p: int, prec: int, work: int) -> arb:
    """Call a certify.kernel.region function with the ambient precision fixed at ``work``: region.py
    rounds some endpoints (``.upper()``) at the ambient precision, so this keeps our results independent of it."""
    with working_precision(work):
        return function(p, prec)


def _exact_rational(value, what: str) -> fmpq:
    """An int, fmpz, fmpq, Fraction or ExactNumber as an fmpq; floats and anything else refused."""
    if isinstance(value, float):
        raise InputError(f"{what} must be an exact rational (fmpq, Fraction, ExactNumber), not a float: {value!r}")
    try:
        number = ExactNumber.from_rational(value)
    except TypeError:
        raise InputError(f"{what} must be an exact rational, got {value!r}") from None
    if not number.is_expandable():
        raise InputError(f"{what} has an exponent too large to use: {value!r}")
    return number.fmpq()


def _require_margin(delta) -> fmpq:
    delta = _exact_rational(delta, "the purity margin delta")
    if not 0 < delta < 1:
        raise InputError(f"the purity margin delta must lie in (0, 1), got {delta}")
    return delta


# ---------------------------------------------------------------- chi-square lower tails


def _chi_square_cdf_upper(n: int, x: fmpq) -> arb:
    """Exact point >= P(chi^2_n <= x) (x > 0): the smaller of Arb's regularized lower incomplete gamma
    P(n/2, x/2) (when its ball is finite) and the Chernoff bound (x/n)^(n/2) e^((n-x)/2) for x < n."""
    bounds = []
    value = (ball(x) / 2).gamma_lower(ball(n) / 2, regularized=1)
    if value.is_finite():
        bounds.append(value.upper())
    if x < n:
        ratio = ball(x) / n
        bounds.append(((ball(n) / 2) * (ratio.log() + 1 - ratio)).exp().upper())
    best = arb(1)
    for bound in bounds:
        if certainly_lt(bound, best):
            best = bound
    return best


def chi_square_cdf_upper(n: int, x, prec: int) -> arb:
    """An exact ball (radius 0) >= P(X <= x), X ~ chi^2_n (a sum of n squared standard normals).

    Requires an integer n >= 1 and an exact rational x > 0. The bound is the smaller of Arb's regularized
    lower incomplete gamma P(n/2, x/2) (used only when Arb returns a finite ball; its upper end) and,
    for x < n, Chernoff's E[e^(-lam X)] e^(lam x) at lam = (n/x - 1)/2, i.e. (x/n)^(n/2) e^((n - x)/2); 1 if
    neither is smaller. docs/purity-tube.md, step (T).

    >>> float(chi_square_cdf_upper(2, fmpq(1), 64)) - (1 - math.exp(-0.5)) < 1e-15
    True
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"the degrees of freedom must be a positive integer, got {n!r}")
    x = _exact_rational(x, "the chi-square argument")
    if not x > 0:
        raise InputError(f"the chi-square argument must be positive, got {x}")
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise InputError(f"the precision must be an integer number of bits >= 16, got {prec!r}")
    with working_precision(prec + 2 * n.bit_length() + 20):
        return _chi_square_cdf_upper(n, x)


# ---------------------------------------------------------------- the middle spacing's upper tail


def _log_central_binomial_ball(p: int) -> arb:
    return arb.lgamma(ball(2 * p + 1)) - 2 * arb.lgamma(ball(p + 1))


def _window_centre(p: int, spacing: fmpq) -> fmpq:
    """A dyadic near -sqrt(p) s/2, the peak of the spacing-tail integrand in xi = sqrt(p) x (the factors
    Phi(x)^p and Phibar(x + s)^p mirror each other about x = -s/2); exact integer arithmetic."""
    sixteenths = (int(spacing.p) * math.isqrt(p << 32)) // (int(spacing.q) << 13)  # 16 sqrt(p) s/2, rounded down
    return -fmpq(sixteenths, 16)


def _spacing_tail(p: int, spacing: fmpq) -> arb:
    """Encloses P(S > s) by its integral over a window of half-width W around its peak (in xi = sqrt(p) x)
    plus the two closed-form tails (see the public doc)."""
    s = ball(spacing)
    root2, root_p = ball(2).sqrt(), ball(p).sqrt()
    centre = _window_centre(p, spacing)
    low, high = centre - _SPACING_WINDOW, centre + _SPACING_WINDOW

    def integrand(xi, analytic):
        # x = xi / sqrt p; erfc(-x/sqrt2) = 2 Phi(x), erfc((x+s)/sqrt2) = 2 Phibar(x+s): entire, integer powers
        x = xi / root_p
        return (-x / root2).erfc() ** (p - 1) * ((x + s) / root2).erfc() ** p * (-x * x / 2).exp()

    body = acb.integral(integrand, acb(ball(low)), acb(ball(high)))
    if not (body.real.is_finite() and body.imag.contains(0)):
        raise NotCertified(f"p = {p}: the spacing-tail integral did not converge")
    log_c = _log_central_binomial_ball(p)
    # p C(2p,p) Phi^(p-1) phi Phibar^p = p C 2^-(2p-1) (2Phi)^(p-1) (2Phibar)^p e^(-x^2/2) / sqrt(2 pi), dx = dxi/sqrt p
    factor = root_p * (log_c - (2 * p - 1) * ball(2).log()).exp() / (2 * arb.pi()).sqrt()
    a, b = ball(low) / root_p, ball(high) / root_p  # the window's ends in x
    # x < a: Phibar(x+s) <= 1 and int_-inf^a Phi^(p-1) phi = Phi(a)^p / p; x > b: Phi <= 1, Phibar(x+s) <= Phibar(b+s),
    # int_b^inf phi = Phibar(b); times p C(2p, p)
    phi_a = (-a / root2).erfc() / 2
    phibar_b, phibar_bs = (b / root2).erfc() / 2, ((b + s) / root2).erfc() / 2
    tails = (log_c + p * phi_a.log()).exp() + ball(p) * (log_c + p * phibar_bs.log() + phibar_b.log()).exp()
    tails_hi = tails.upper()
    value = factor * body.real + tails_hi / 2 + arb(0, 1) * (tails_hi / 2)
    if not value.is_finite():
        raise NotCertified(f"p = {p}: the spacing-tail probability is not finite")
    return value


def _require_spacing(spacing) -> fmpq:
    spacing = _exact_rational(spacing, "the spacing cut-off")
    if not spacing > 0:
        raise InputError(f"the spacing cut-off must be positive, got {spacing}")
    return spacing


def spacing_tail_probability(p: int, spacing, prec: int) -> arb:
    """Encloses P(S > s), S = X_(p+1) - X_(p) the middle spacing of 2p iid N(0, 1), s = ``spacing`` > 0.

    The joint density of (X_(p), X_(p+1)) integrated over {y > x + s} gives

        P(S > s) = p C(2p, p) int_R Phi(x)^(p-1) phi(x) Phibar(x + s)^p dx,

    enclosed by ``acb.integral`` in xi = sqrt(p) x over [c - 8, c + 8], c a dyadic near the peak -sqrt(p) s/2
    (the integrand is entire: erfc and integer powers), plus [0, C Phi(a)^p + p C Phibar(b + s)^p Phibar(b)]
    for the two tails beyond the window's ends a < b in x (docs/purity-tube.md, step (S)). Given the
    one-gate pattern, s = u(a*) + v(b*) has this law (order statistics are independent of the pattern).

    >>> x = spacing_tail_probability(5, fmpq(1, 4), 64)
    >>> x.str(6, radius=False), x.rad() < 1e-15
    ('0.377084', True)
    """
    p, work = _guarded(p, prec)
    spacing = _require_spacing(spacing)
    with working_precision(work):
        return _spacing_tail(p, spacing)


def _spacing_tail_upper(p: int, spacing: fmpq, spacing_mean_hi: arb) -> arb:
    """Exact point >= P(S > s): min(1, Markov E[S]_hi / s, the integral's upper end when affordable)."""
    best = arb(1)
    markov = (spacing_mean_hi / ball(spacing)).upper()
    if certainly_lt(markov, best):
        best = markov
    if p <= _SPACING_INTEGRAL_MAX_P:
        try:
            integral = _spacing_tail(p, spacing).upper()
        except NotCertified:
            integral = None
        if integral is not None and certainly_lt(integral, best):
            best = integral
    return best


def spacing_tail_probability_upper(p: int, spacing, prec: int) -> arb:
    """An exact ball (radius 0) >= P(S > s), S the middle spacing of 2p iid N(0, 1), s = ``spacing`` > 0.

    The smallest of 1, Markov's E[S]_hi / s (E[S]_hi from certify.kernel.region.expected_spacing_upper_point)
    and, for p <= _SPACING_INTEGRAL_MAX_P (50), the upper end of :func:`spacing_tail_probability`. Valid for every
    prime p >= 5.

    >>> 0.3770 < float(spacing_tail_probability_upper(5, fmpq(1, 4), 64)) < 0.3771
    True
    """
    p, work = _guarded(p, prec)
    spacing = _require_spacing(spacing)
    with working_precision(work):
        mean_hi = ball(expected_spacing_upper_point(p, prec))
        return _spacing_tail_upper(p, spacing, mean_hi)


# ---------------------------------------------------------------- the out-of-class fraction of w


@lru_cache(maxsize=16)
def _beta_constants(p: int, prec: int) -> tuple[arb, arb, arb]:
    """(a, k, log B(a, p)) with a = (p-1)/2, k = (p-3)/2 at the precision ``prec`` (the ambient one of the caller):
    the same for every c, so a tube bound, which needs ~200 values of c, computes the log-gammas once. A
    functools cache: fresh_state empties it."""
    with working_precision(prec):
        a = ball(p - 1) / 2
        return a, ball(p - 3) / 2, arb.lgamma(a) + arb.lgamma(ball(p)) - arb.lgamma(a + p)


def _class_fraction_deficit(p: int, c: arb) -> arb:
    """Upper end (exact point) of E[min(1, c/B)^k] for an exact point 0 < c < 1 (see the public doc)."""
    a, k, log_beta = _beta_constants(p, ctx.prec)
    # P(B <= c): Arb's regularized incomplete beta, or int_0^c x^(a-1) dx / B(a, p) = c^a / (a B(a, p))
    head = c.beta_lower(a, ball(p), regularized=1)
    crude = (a * c.log() - a.log() - log_beta).exp()
    head_hi = crude.upper()
    if head.is_finite() and certainly_lt(head.upper(), head_hi):
        head_hi = head.upper()
    # c^k E[B^-k; B > c] = c^k int_c^1 (1-x)^(p-1) dx / B(a, p) = c^k (1-c)^p / (p B(a, p))  (a - 1 - k = 0)
    body = (k * c.log() + p * (-c).log1p() - ball(p).log() - log_beta).exp()
    value = head_hi + body
    if not value.is_finite():
        raise NotCertified(f"p = {p}: the class-fraction deficit probability is not finite")
    return value.upper()


def class_fraction_deficit_probability(p: int, c, prec: int) -> arb:
    """Encloses P(rho < c / B) = E[min(1, c/B)^k] for independent rho ~ Beta(k, 1), k = (p-3)/2, and
    B ~ Beta((p-1)/2, p), for an exact rational 0 < c < 1; the ball's upper end is a proved upper bound.

    rho = O_zeta / W is the out-of-class share of the centred w(0) (O_zeta = dist(w(0), span(1, E_zeta))^2 ~
    chi^2_{p-3}, W = ||w(0)_0||^2 ~ chi^2_{p-1}, (1.3)) and B = W / (Q + W) with Q ~ chi^2_{2p} the sum of
    squares of the 2p gate values; docs/purity-tube.md, step (B). With a = (p-1)/2 (so a - 1 = k)

        P(rho < c/B) = I_c(a, p) + c^k (1 - c)^p / (p B(a, p)),

    I_c the regularized incomplete beta (Arb's, or its bound c^a / (a B(a, p)) when that is smaller or
    Arb's ball is not finite). The returned ball is [upper bound - 0, upper bound]: radius 0.

    >>> x = class_fraction_deficit_probability(5, fmpq(1, 100), 64)
    >>> 0.058519 < float(x) < 0.058520
    True
    """
    p, work = _guarded(p, prec)
    c = _exact_rational(c, "the class-fraction threshold c")
    if not 0 < c < 1:
        raise InputError(f"the class-fraction threshold c must lie in (0, 1), got {c}")
    with working_precision(work):
        return _class_fraction_deficit(p, ball(c))


# ---------------------------------------------------------------- the scale-free spacing Z = S / sqrt(Q)


def _log_mean_root_chi_square(n: int) -> arb:
    """log E[sqrt(chi^2_n)] = log(sqrt 2 Gamma((n+1)/2) / Gamma(n/2))."""
    return ball(2).log() / 2 + arb.lgamma(ball(n + 1) / 2) - arb.lgamma(ball(n) / 2)


def _scaled_spacing_tail_upper(p: int, z: fmpq, spacing_mean_hi: arb, radii: list[fmpq],
                               cdf_hi: list[arb], candidates=None) -> tuple[arb, int | None]:
    """(exact point >= P(Z > z), Z = S / sqrt(Q), the index of the radius that gave it or None for Markov)
    (see :func:`scaled_spacing_tail_probability_upper`); only the radii of ``candidates`` (indices; None: all)
    are tried, each one an integral."""
    # Markov with E[Z] = E[S] / E[sqrt Q] (Z and Q independent)
    best, winner = (spacing_mean_hi / (ball(z) * _log_mean_root_chi_square(2 * p).exp())).upper(), None
    if certainly_lt(arb(1), best):
        best = arb(1)
    if p <= _SPACING_INTEGRAL_MAX_P:
        for j in (range(len(radii)) if candidates is None else candidates):
            denominator = 1 - cdf_hi[j]  # <= P(Q >= r^2)
            if not certainly_positive(denominator):
                continue
            try:
                tail = _spacing_tail(p, z * radii[j]).upper()
            except NotCertified:
                continue
            bound = (tail / denominator).upper()
            if certainly_lt(bound, best):
                best, winner = bound, j
    return best, winner


def _radius_grid(p: int) -> list[fmpq]:
    """Radii r (exact, r^2 near 2p - j sqrt(4p), j = 0, 1, 2, 3): P(Q >= r^2) is near 1/2 ... 1."""
    n = 2 * p
    radii = []
    for j in range(4):
        target = max(n - j * math.isqrt(2 * n), 1)  # chi^2_n has sd sqrt(2n)
        radii.append(fmpq(math.isqrt(target * 4096), 64))
    return sorted(set(r for r in radii if r > 0))


def scaled_spacing_tail_probability_upper(p: int, z, prec: int) -> arb:
    """An exact ball (radius 0) >= P(Z > z), Z = S / sqrt(Q): the middle spacing S of 2p iid N(0, 1) over
    the root of their sum of squares Q, for an exact rational z > 0.

    X / ||X|| is independent of ||X|| for X ~ N(0, I_2p), so Z is independent of Q, and
    {Z > z} n {Q >= r^2} is inside {S > z r}: P(Z > z) <= P(S > z r) / P(Q >= r^2) for every r > 0 (a few
    exact r are tried, P(Q >= r^2) >= 1 - :func:`chi_square_cdf_upper`); also Markov's E[Z] / z with
    E[Z] = E[S] / E[sqrt Q], E[sqrt Q] = sqrt2 Gamma(p + 1/2) / Gamma(p). docs/purity-tube.md, step (Z).

    >>> 0.4717 < float(scaled_spacing_tail_probability_upper(5, fmpq(1, 10), 64)) < 0.4718
    True
    """
    p, work = _guarded(p, prec)
    z = _require_spacing(z)
    with working_precision(work):
        mean_hi = ball(expected_spacing_upper_point(p, prec))
        radii = _radius_grid(p)
        cdf_hi = [_chi_square_cdf_upper(2 * p, r * r) for r in radii]
        return _scaled_spacing_tail_upper(p, z, mean_hi, radii, cdf_hi)[0]


# ---------------------------------------------------------------- the tube


def _deficit_bound(p: int, delta: fmpq, z: arb) -> arb:
    """Exact point >= min(1, P(rho < kappa^2 / B)), kappa = z + sqrt(delta) (1 + z), for a ball z >= 0."""
    kappa = z + ball(delta).sqrt() * (1 + z)
    c = (kappa * kappa).upper()
    if certainly_lt(c, arb(1)):
        deficit = _class_fraction_deficit(p, c)
        if certainly_lt(deficit, arb(1)):
            return deficit
    return arb(1)


def _tube_upper(p: int, delta: fmpq, factor: arb, grid: list[fmpq], tail) -> arb:
    """Exact point >= E[min(1, (p-1)/2 P(rho < kappa(mu Z)^2 / B | Z))], mu = ``factor``,
    kappa(e) = e + sqrt(delta)(1+e).

    H(z) = min(1, (p-1)/2 x that probability) is non-decreasing in z (the union over the (p-1)/2 classes
    is taken given Z). For Z in (z_{i-1}, z_i] use H(z_i), for Z <= z_0 H(z_0), beyond the grid 1; Abel
    summation gives H(z_0) + sum_i P(Z > z_{i-1}) (H(z_i) - H(z_{i-1})) + P(Z > z_I) (1 - H(z_I)), every
    difference >= 0 (exact points, made monotone), P(Z > z_i) <= tail(i). The grid stops where H = 1.
    """
    classes = ball(p - 1) / 2
    values = []
    saturated = False
    for z in grid:
        current = (classes * _deficit_bound(p, delta, factor * ball(z))).upper()
        if not certainly_lt(current, arb(1)):
            current, saturated = arb(1), True
        if values and certainly_lt(current, values[-1]):
            current = values[-1]  # H is non-decreasing, so the larger upper bound is still one
        values.append(current)
        if saturated:  # H = 1 from here on: nothing further to gain
            break
    total = values[0]
    for i in range(1, len(values)):
        total += tail(i - 1) * (values[i] - values[i - 1])
    if not saturated:
        total += tail(len(values) - 1) * (1 - values[-1])
    return total.upper()


#: A tail bound below this is not improved further: every later grid point takes it (P(Z > z) decreases), which
#: changes the lost mass by less than 2^-64 absolute, far below the stated grid (the kept mass is above 1/10).
_NEGLIGIBLE_TAIL = arb(2) ** -64


def _log_erfc_float(z: float) -> float:
    """log erfc(z) in floats, for choosing only: math.erfc below 25, the asymptotic -z^2 - log(z sqrt(pi)) above."""
    return math.log(math.erfc(z)) if z < 25 else -z * z - math.log(z * math.sqrt(math.pi))


def _spacing_tail_estimate(p: int, spacing: float) -> float:
    """log P(S > s) in floats (a trapezoid rule on the window of :func:`_spacing_tail`, in log form): an
    estimate that only chooses which radius bound to prove (:func:`_tube_setup`), never a number stated."""
    root_p, root_2 = math.sqrt(p), math.sqrt(2)
    centre = -root_p * spacing / 2
    logs = []
    for k in range(-8, 9):  # step 1 in xi: the peak has width ~1 there; enough to rank bounds that differ
        x = (centre + k) / root_p
        logs.append((p - 1) * _log_erfc_float(-x / root_2) + p * _log_erfc_float((x + spacing) / root_2) - x * x / 2)
    top = max(logs)
    log_sum = top + math.log(sum(math.exp(value - top) for value in logs) / root_p)
    return (math.log(p) + math.lgamma(2 * p + 1) - 2 * math.lgamma(p + 1) - (2 * p - 1) * math.log(2)
            - math.log(2 * math.pi) / 2 + log_sum)


def _tube_setup(p: int, spacing_mean_hi: arb) -> tuple[list[fmpq], object]:
    """The grid z_i = m_i E[Z]_hi (m_i = 2^(i/2) / 16 for i <= 24, then 2^(i - 12) / 16 up to 2^44 / 16) and a
    cached i -> exact point >= P(Z > z_i), kept non-increasing in i (P(Z > z) is).

    For p <= 47 each point is the lesser of Markov's bound and one radius bound P(S > z r) / P(Q >= r^2)
    (an integral, docs/purity-tube.md, step (Z)): the radius whose bound a float estimate of the four
    (:func:`_spacing_tail_estimate`) says is least. Any radius gives a valid bound, and this one the bound of
    the best of the four (or one within float noise of it) for a quarter of the integrals. Once a point is
    below :data:`_NEGLIGIBLE_TAIL` the later ones take it without an integral. The radii's chi-square
    bounds are computed only where integrals are used (p <= 47; at p = 99991 they cost 0.6 s)."""
    mean_z = upper_endpoint(spacing_mean_hi / _log_mean_root_chi_square(2 * p).exp())
    grid = [mean_z * m for m in TUBE_MULTIPLES]
    integrals = p <= _SPACING_INTEGRAL_MAX_P
    radii = _radius_grid(p) if integrals else []
    cdf_hi = [_chi_square_cdf_upper(2 * p, r * r) for r in radii]
    log_keep = [math.log1p(-float(cdf)) if float(cdf) < 1 else -math.inf for cdf in cdf_hi]
    cache: dict[int, arb] = {}

    def chosen(z: fmpq) -> list[int]:
        """The radius whose float estimate of P(S > z r) / P(Q >= r^2) is least (none if every one is infinite)."""
        estimates = [(_spacing_tail_estimate(p, float(z * r)) - keep, j)
                     for j, (r, keep) in enumerate(zip(radii, log_keep)) if keep > -math.inf]
        return [min(estimates)[1]] if estimates else []

    def tail(i: int) -> arb:
        if i not in cache:
            if i > 0 and certainly_lt(tail(i - 1), _NEGLIGIBLE_TAIL):
                cache[i] = tail(i - 1)
                return cache[i]
            candidates = chosen(grid[i]) if integrals else []
            bound, _ = _scaled_spacing_tail_upper(p, grid[i], spacing_mean_hi, radii, cdf_hi, candidates)
            if i > 0 and certainly_lt(tail(i - 1), bound):
                bound = tail(i - 1)
            cache[i] = bound
        return cache[i]

    return grid, tail


def purity_tube_probability_upper(p: int, delta, factor, prec: int) -> arb:
    """An exact ball (radius 0) >= P(exists zeta != 0: sqrt(O_zeta) < d + sqrt(delta (Q + (sqrt(W) + d)^2)))
    with d = mu S, mu = ``factor`` >= 0.

    Here the 2p gate values X ~ N(0, I_2p) (S their middle spacing, Q their sum of squares) and
    w ~ N(0, I_p) are independent, O_zeta = dist(w, span(1, E_zeta))^2 (E_zeta of (1.3)), W = ||w_0||^2
    ((1.2)), and 0 < delta < 1 is an exact rational. Outside this event every terminal state of R_dead
    with ||w_inf - w(0)||_2 <= mu S has 1 - F_zeta >= delta for every zeta (docs/purity-tube.md, (P1)-(P3)).
    The event for one zeta lies in {rho < kappa(mu Z)^2 / B} (step (B)), with Z = S / sqrt(Q) independent of
    (rho, B); the bound is the union over the (p-1)/2 classes of the grid-in-Z bound (step (Z)) with the
    closed form of :func:`class_fraction_deficit_probability`. It may exceed 1 (then it says nothing).

    >>> x = purity_tube_probability_upper(13, fmpq(1, 100), 0, 64)
    >>> 0 < float(x) < 0.007
    True
    """
    p, work = _guarded(p, prec)
    delta = _require_margin(delta)
    factor = _exact_rational(factor, "the displacement factor mu")
    if factor < 0:
        raise InputError(f"the displacement factor mu must be >= 0, got {factor}")
    with working_precision(work):
        mean_hi = ball(expected_spacing_upper_point(p, prec))
        grid, tail = _tube_setup(p, mean_hi)
        return _tube_upper(p, delta, ball(factor), grid, tail)


# ---------------------------------------------------------------- the two region probabilities


def dead_not_single_frequency_log_probability_lower(p: int, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_dead and theta_inf is not single-frequency | active).

    For every sigma > 0 under theta(0) ~ N(0, sigma^2 I_{3p}). "Single-frequency" means max_zeta
    F_zeta(theta_inf) = 1 ((1.5); or F undefined). Lemma (docs/purity-tube.md, section 'The null-set lemma'): on
    R_dead the terminal u_inf differs from u(0) only at a*, so F_zeta(theta_inf) = 1 forces u(0) into
    span(1, E_zeta) + R e_{a*} (dimension 4 < p) and v(0) into span(1, E_zeta) + R e_{b*}; the union over the
    finitely many (a*, b*, zeta) is a null set, and the law of theta(0) given activity has a density. So
    the probability equals P(R_dead | active), bounded by
    certify.kernel.region.dead_region_log_probability_lower, which this returns.

    >>> -6.39 < float(dead_not_single_frequency_log_probability_lower(5, 64)) < -6.38
    True
    """
    p, work = _guarded(p, prec)
    return _region_call(dead_region_log_probability_lower, p, prec, work)


def _phibar(x: arb) -> arb:
    return (x / ball(2).sqrt()).erfc() / 2


def _pattern_purity_lower(p: int, delta: fmpq, prec: int, work: int) -> tuple[arb, arb]:
    """(lower bound of P(R_dead and purity gap >= delta | one-gate pattern), log(C(2p, p) - 1)): exact points."""
    with working_precision(work):
        log_dead = _region_call(dead_region_log_probability_lower, p, prec, work)
        mean_hi = ball(expected_spacing_upper_point(p, prec))
        log_c = _region_call(log_central_binomial, p, prec, work)
        log_c_minus_one = log_c + (-(-log_c).exp()).log1p()
        c_p = (ball(p) / (2 * ball(p - 1))).sqrt()
        grid, tail = _tube_setup(p, mean_hi)
        best = None
        for ratio in GAMMA_RATIOS:
            if ratio is None:
                # the whole R_dead: E[Phibar(c_p S)] >= exp(log P_lower + log(C - 1)) (region.py); d <= S
                kept = (log_dead + log_c_minus_one).exp().lower()
                factor = arb(1)
            else:
                # R_dead n {gamma_y >= lambda S / sqrt 2}: E[Phibar(lambda c_p S)] >= Phibar(lambda c_p E[S]_hi)
                # (Jensen); d <= sqrt2 (gamma - sqrt(gamma^2 - S^2/2)) <= (lambda - sqrt(lambda^2 - 1)) S
                lam = ball(ratio)
                kept = _phibar(lam * c_p * mean_hi).lower()
                factor = (lam - (lam * lam - 1).sqrt()).upper()
            if best is not None and not certainly_lt(best, kept):
                continue  # kept - lost <= kept <= best: this bracket cannot win, so its tube is not computed
            lost = _tube_upper(p, delta, factor, grid, tail)
            value = (kept - lost).lower()
            if value.is_finite() and (best is None or certainly_lt(best, value)):
                best = value
        return best, log_c_minus_one


def dead_region_purity_log_probability_lower(p: int, delta, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | active).

    For every sigma > 0 under theta(0) ~ N(0, sigma^2 I_{3p}); theta_inf is the terminal state of the
    Clarke flow from a point of R_dead (it dies in finite time, section A.6, Lemma A.17), F_zeta is (1.5),
    delta in (0, 1) an exact rational (:data:`DEFAULT_PURITY_MARGIN` = 1/100 is the suggested default).
    With one-gate pattern probability 1/(C(2p, p) - 1) (certify.kernel.region),

        P >= max_lambda [kept(lambda) - lost(lambda)] / (C(2p, p) - 1),

    kept = E[Phibar(c_p S)]_lo (the kernel's R_dead bound; no gamma cut, ||w_inf - w(0)|| <= S) or
    Phibar(lambda c_p E[S]_hi) (Jensen; the cut gamma_y >= lambda S / sqrt 2, ||w_inf - w(0)|| <= mu S with
    mu = lambda - sqrt(lambda^2 - 1)), lost = :func:`purity_tube_probability_upper` (delta, mu), lambda in a
    fixed list (docs/purity-tube.md, section 'The delta-margin bound'). Raises NotCertified when no bracket
    is certainly positive (p = 5 with delta >= 1/50, p = 7 with delta >= 1/10, p = 31 with delta = 1/5: the
    bound is worthless there, it never returns a wrong value).

    >>> x = dead_region_purity_log_probability_lower(13, fmpq(1, 20), 64)
    >>> x.rad() == 0, -16.971 < float(x) < -16.970
    (True, True)
    """
    p, work = _guarded(p, prec)
    delta = _require_margin(delta)
    best, log_c_minus_one = _pattern_purity_lower(p, delta, prec, work)
    with working_precision(work):
        if best is None or not certainly_positive(best):
            raise NotCertified(
                f"p = {p}, delta = {delta}: the tube near purity is not certainly smaller than the dead-region "
                "mass (the bound says nothing for this margin)")
        bound = best.log() - log_c_minus_one
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the purity bound is not finite")
        return bound.lower()


def dead_region_purity_log10_probability_lower(p: int, delta, prec: int) -> arb:
    """An exact ball (radius 0) <= log10 P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta | active):
    :func:`dead_region_purity_log_probability_lower` divided by log 10, rounded down.

    >>> -7.3703 < float(dead_region_purity_log10_probability_lower(13, fmpq(1, 20), 64)) < -7.3702
    True
    """
    p, work = _guarded(p, prec)
    log_lower = dead_region_purity_log_probability_lower(p, delta, prec)
    with working_precision(work):
        return (log_lower / ball(10).log()).lower()
