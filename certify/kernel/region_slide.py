"""Probability of the whole sliding region R_slide of Theorem A.1, conditioned on initial activity.

Theorem A.1 holds from every point of U_slide(gamma_*, X), (A.15)-(A.17) with gamma_* > 0 and
X > (p-1)/(e gamma_*) (A.14). Relabelling inputs and classes, the union over admissible (gamma_*, X) is

    R_slide = { exactly one active gate (a*, b*), y = a* + b* mod p, x = u(a*) + v(b*),
                m = min_{j != y} gamma_j > 0 with gamma_j = mu(w) - w(j), and x m > (p-1)/e }.

Under theta(0) ~ N(0, sigma^2 I_{3p}), for every g > 0 and delta > 0 (docs/mathematics.md, section
'Region probability of the sliding theorem'),

    P(R_slide | active) >= P(S > t) P(m > sigma g) / (C(2p, p) - 1),   t >= (p-1)/(e sigma^2 g),
    P(m > sigma g) >= erf(n delta/(2 sqrt 2 (n-1)))^n Phibar(sqrt(p n) (g + delta)),   n = p - 1,

with S the middle spacing of 2p iid N(0, 1) and Phibar = 1 - Phi (a Jensen bound with the expected
maximum e_n of n iid N(0, 1) is the alternative, usually far weaker). P(S > t) is bounded below by a
Riemann-Stieltjes lower sum of its exact integral (:func:`spacing_survival_log_lower`), e_n enclosed
by quadrature (:func:`expected_maximum_upper`). (g, delta) are chosen deterministically (dyadic
bisection on the signs of Arb-evaluated derivatives at a fixed precision), then everything is proved
with balls. All in log form: a call costs about the same for p = 5 and p = 10^6 (log P is then about
-2.6e14 at sigma = 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from flint import acb, arb, fmpq, fmpz

from ..errors import InputError, NotCertified
from .balls import ball, certainly_lt, certainly_negative, certainly_positive, upper_endpoint, working_precision
from .primes import require_prime
from .memo import memoized
from .region import REGION_PRECISION, log_central_binomial, log_one_active_gate_probability, stated_log_lower

__all__ = [
    "spacing_survival_log_lower", "expected_maximum_upper", "gamma_minimum_log_lower",
    "gamma_minimum_jensen_log_lower", "slide_region_parameters", "SlideRegionBound",
    "slide_region_log_probability_lower", "slide_region_claim_bound",
]

#: Grid points on each side of -t/2 in the lower sum of P(S > t); 2K + 1 points in all.
_GRID_HALF_WIDTH = 32
#: The fixed precision at which g is chosen, so that the choice does not depend on ``prec``.
_CHOICE_PREC = 64
#: Bisection steps inside [2^k, 2^(k+1)]: g = 2^k (1 + j / 2^9), 10 significant bits.
_CHOICE_BITS = 9
#: Significant bits of the exact threshold t >= (p-1)/(e sigma^2 g) (rounded up: a short X).
_THRESHOLD_BITS = 32
#: The search for the octave [2^k, 2^(k+1)] of g stops after this many doublings or halvings.
_MAX_OCTAVES = 400


def _require_precision(prec) -> None:
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise InputError(f"the precision must be an integer number of bits >= 16, got {prec!r}")


def _exact_rational(value, name: str) -> fmpq:
    """``value`` (int, fmpz or fmpq) as an fmpq; floats and other types are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, fmpz, fmpq)):
        raise InputError(f"{name} must be an exact rational (int or fmpq), got {value!r}")
    return fmpq(value)


def _work(p: int, prec: int) -> int:
    """Internal precision: log P ~ -p^(5/2) and log C(2p, p) ~ 2p log 2 need their absolute error
    small, and the p-th powers multiply relative errors by p."""
    return prec + 3 * p.bit_length() + 30


#: From here on log Phibar(z) comes from its asymptotic enclosure (Arb's erfc loses digits for huge z).
_ASYMPTOTIC_FROM = 256


def _interval(low: arb, high: arb) -> arb:
    """A ball containing [l, h] for every l in ``low`` and h in ``high`` (with l <= h)."""
    return (low + high) / 2 + arb(0, 1) * ((high - low) / 2)


def _log_phibar(z: arb) -> arb:
    """Encloses log Phibar(z), Phibar = 1 - Phi, for a real ball z; NotCertified if not certainly finite.

    For z >= 256, Phibar(z) = phi(z) int_0^inf e^{-zs} e^{-s^2/2} ds and 1 - s^2/2 <= e^{-s^2/2}
    <= 1 - s^2/2 + s^4/8 give Phibar(z)/phi(z) in [1/z - 1/z^3, 1/z - 1/z^3 + 3/z^5] (relative width
    < 3/z^4 < 1e-9); below that log(erfc(z/sqrt 2)/2).
    """
    if certainly_positive(z - _ASYMPTOTIC_FROM):
        inverse = 1 / z
        low = inverse - inverse**3
        log_density = -z * z / 2 - (2 * arb.pi()).sqrt().log()
        return log_density + _interval(low, low + 3 * inverse**5).log()
    value = (z / ball(2).sqrt()).erfc()
    if not certainly_positive(value):
        raise NotCertified("Phibar(z) is not certainly positive")
    return value.log() - ball(2).log()


def _log_phi_cdf(x: arb) -> arb:
    """Encloses log Phi(x) = log Phibar(-x)."""
    return _log_phibar(-x)


def _log_sum_exp(logs: list[arb]) -> arb:
    """log sum exp(l_i), shifted by an exact constant (the first midpoint) so nothing over- or underflows."""
    shift = logs[0].mid()
    total = sum(((value - shift).exp() for value in logs), arb(0))
    if not certainly_positive(total):
        raise NotCertified("a sum of exponentials is not certainly positive")
    return shift + total.log()


def spacing_survival_log_lower(p: int, t, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(S > t), S = X_(p+1) - X_(p) the middle spacing of 2p iid N(0, 1).

    Requires a prime p >= 5 and an exact rational t >= 0. With G = Phi^p and f(x) = Phibar(x + t)^p,

        P(S > t) = C(2p, p) int f dG            (X_(p) = x, the p values above it all above x + t),

    and f decreases, so on a grid x_{-K} < ... < x_K centred at -t/2 (step h = 2^-k, the largest power of
    2 <= 1/(4 sqrt p))

        int f dG >= f(x_{-K}) G(x_{-K}) + sum_{i > -K} f(x_i) (G(x_i) - G(x_{i-1})) >= f(-t/2) G(-t/2),

    the last being the split 'p values below -t/2, p above t/2', C(2p, p) Phibar(t/2)^(2p). Each term is
    enclosed in log form (G(x_i) - G(x_{i-1}) = G(x_i) (-expm1(log G(x_{i-1}) - log G(x_i)))); a term
    not certainly positive is dropped (all terms are >= 0). Given one active gate, x = sigma S is the x of
    (A.15) (docs/mathematics.md, section 'Region probability of the sliding theorem', (b)-(c)).

    >>> x = spacing_survival_log_lower(5, 1, 64)
    >>> x.rad() == 0, -4.72 < float(x) < -4.71
    (True, True)
    """
    p = require_prime(p)
    _require_precision(prec)
    t = _exact_rational(t, "t")
    if t < 0:
        raise InputError(f"the spacing threshold t must be >= 0, got {t}")
    k = ((16 * p - 1).bit_length() + 1) // 2  # the least k with 2^k >= 4 sqrt(p)
    step, centre = fmpq(1, 2**k), -t / 2
    with working_precision(_work(p, prec)):
        tt = ball(t)
        log_g, log_f = [], []
        for i in range(-_GRID_HALF_WIDTH, _GRID_HALF_WIDTH + 1):
            x = ball(centre + i * step)
            log_g.append(p * _log_phi_cdf(x))
            log_f.append(p * _log_phibar(x + tt))
        terms = [log_f[0] + log_g[0]]
        for i in range(1, len(log_g)):
            difference = log_g[i - 1] - log_g[i]
            if not certainly_negative(difference):
                continue  # a dropped non-negative term keeps the sum a lower bound
            increment = -(difference.expm1())
            if certainly_positive(increment):
                terms.append(log_f[i] + log_g[i] + increment.log())
        bound = log_central_binomial(p, prec) + _log_sum_exp(terms)
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the spacing survival bound is not finite")
        return bound.lower()


def _maximum_cutoff(n: int, prec: int) -> int:
    """End T of [0, T] and [-T, 0]: the tails n (phi(T) - T Phibar(T)) <= n phi(T)/T^2 are then
    below 2^-prec, as T^2 > 1.4 (prec + bitlength(n)) >= 2 (prec log 2 + log n). Integer arithmetic
    only; only tightness depends on T."""
    return math.isqrt(14 * (prec + n.bit_length()) // 10 + 4) + 1


def _integral_upper_tail(cutoff: int) -> arb:
    """int_T^inf Phibar = phi(T) - T Phibar(T) (integration by parts), enclosed."""
    T = ball(cutoff)
    density = (-T * T / 2).exp() / (2 * arb.pi()).sqrt()
    return density - T * (T / ball(2).sqrt()).erfc() / 2


def expected_maximum_upper(n: int, prec: int) -> arb:
    """Encloses e_n = E[max of n iid N(0, 1)]; the upper end is what the region bound uses.

    e_n = int_0^inf (1 - Phi^n) dx - int_-inf^0 Phi^n dx (the layer-cake formula for the positive and
    negative parts). Both integrands are entire in x (integer powers of erfc), so ``acb.integral``
    encloses them on [0, T] and [-T, 0]; the tails are enclosed in [0, n (phi(T) - T Phibar(T))]
    (1 - Phi^n <= n (1 - Phi), then int_T^inf Phibar = phi(T) - T Phibar(T)) and [0, phi(T) - T Phibar(T)]
    (Phi^n <= Phi). Requires an integer n >= 1.

    >>> x = expected_maximum_upper(4, 64)
    >>> x.str(10, radius=False), x.rad() < 1e-15
    ('1.029375373', True)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n must be an integer >= 1, got {n!r}")
    _require_precision(prec)
    return _expected_maximum(n, prec)


@lru_cache(maxsize=64)
def _expected_maximum(n: int, prec: int) -> arb:
    """:func:`expected_maximum_upper` after validation; cached (a region call needs e_n twice; arb balls are
    immutable and the value depends on (n, prec) only)."""
    cutoff = _maximum_cutoff(n, prec)
    with working_precision(prec + 2 * n.bit_length() + 20):
        root_two = acb(ball(2).sqrt())

        def cdf_power(x, analytic):
            return ((-x / root_two).erfc() / 2) ** n

        positive = acb.integral(lambda x, analytic: 1 - cdf_power(x, analytic), acb(0), acb(cutoff))
        negative = acb.integral(cdf_power, acb(-cutoff), acb(0))
        for part in (positive, negative):
            if not (part.real.is_finite() and part.imag.contains(0)):
                raise NotCertified(f"n = {n}: the expected-maximum integral did not converge")
        tail = _integral_upper_tail(cutoff)
        if not tail.is_finite():
            raise NotCertified(f"n = {n}: the expected-maximum tail bound is not finite")
        tail_hi = tail.upper()
        unit = arb(fmpq(1, 2), fmpq(1, 2))  # the interval [0, 1]
        return positive.real - negative.real + unit * (n * tail_hi) - unit * tail_hi


def _gamma_minimum_truncated_log(p: int, g: arb, delta: arb) -> arb:
    """n log erf(kappa delta / (2 sqrt 2)) + log Phibar(sqrt(p n) (g + delta)), n = p - 1, kappa = n/(n-1)."""
    n = p - 1
    inside = (ball(fmpq(n, n - 1)) * delta / (2 * ball(2).sqrt())).erf()
    if not certainly_positive(inside):
        raise NotCertified("erf(kappa delta / (2 sqrt 2)) is not certainly positive")
    return n * inside.log() + _log_phibar((ball(p) * ball(n)).sqrt() * (g + delta))


def gamma_minimum_log_lower(p: int, g, delta, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(min_{j != y} gamma_j > sigma g) for w ~ N(0, sigma^2 I_p), every sigma > 0.

    gamma_j = mu - w(j) (A.13), y any fixed class (w is exchangeable). Requires a prime p >= 5 and exact
    rationals g > 0, delta > 0. With z = (w(j))_{j != y}, n = p - 1, zbar their mean, D = max_j z_j - zbar:
    min gamma_j > sigma g iff w(y) - zbar > p (sigma g + D), and w(y) - zbar ~ N(0, sigma^2 p/n) is
    independent of D, so the probability is E[Phibar(sqrt(p n) (g + D/sigma))] (Phibar decreasing)

        >= Phibar(sqrt(p n) (g + delta)) P(D <= sigma delta) >= Phibar(sqrt(p n) (g + delta)) erf(r/(2 sqrt 2))^n,

    r = n delta/(n-1): if every z_j/sigma lies in [-r/2, r/2] (probability erf(r/(2 sqrt 2))^n), then
    D <= (n-1)(max z - min z)/n <= sigma delta (zbar >= (max z + (n-1) min z)/n).

    >>> x = gamma_minimum_log_lower(5, 1, fmpq(1, 5), 64)
    >>> x.rad() == 0, -26.01 < float(x) < -26.0
    (True, True)
    """
    p = require_prime(p)
    _require_precision(prec)
    g, delta = _require_positive(g, "g"), _require_positive(delta, "delta")
    with working_precision(_work(p, prec)):
        bound = _gamma_minimum_truncated_log(p, ball(g), ball(delta))
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the gamma-minimum bound is not finite")
        return bound.lower()


def _gamma_minimum_jensen_log(p: int, g: arb, maximum_hi: arb) -> arb:
    """log Phibar(sqrt(p (p-1)) (g + e_hi)) at the current precision."""
    return _log_phibar((ball(p) * ball(p - 1)).sqrt() * (g + maximum_hi))


def gamma_minimum_jensen_log_lower(p: int, g, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(min_{j != y} gamma_j > sigma g) for w ~ N(0, sigma^2 I_p), every sigma > 0.

    gamma_j = mu - w(j) (A.13), y any fixed class (w is exchangeable). Requires a prime p >= 5 and an
    exact rational g > 0. With z = (w(j))_{j != y}, n = p - 1, zbar their mean, D = max_j (z_j - zbar):
    min gamma_j > sigma g iff w(y) - zbar > p (sigma g + D); w(y) - zbar ~ N(0, sigma^2 p/n) is
    independent of D, so the probability is E[Phibar(sqrt(p n) (g + D/sigma))], and by Jensen (Phibar
    convex on [0, inf), the argument >= 0) and E[D/sigma] = e_n it is >= Phibar(sqrt(p n) (g + e_n)), with
    e_n's upper end from :func:`expected_maximum_upper`. Usually far below :func:`gamma_minimum_log_lower`.

    >>> x = gamma_minimum_jensen_log_lower(5, 1, 64)
    >>> x.rad() == 0, -44.33 < float(x) < -44.31
    (True, True)
    """
    p = require_prime(p)
    _require_precision(prec)
    g = _require_positive(g, "g")
    maximum = expected_maximum_upper(p - 1, prec)
    with working_precision(_work(p, prec)):  # arb.upper rounds at the ambient precision: set it first
        maximum_hi = maximum.upper()
        bound = _gamma_minimum_jensen_log(p, ball(g), maximum_hi)
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the gamma-minimum bound is not finite")
        return bound.lower()


def _spacing_threshold(p: int, sigma: fmpq, g: fmpq) -> arb:
    """t = (p-1)/(e sigma^2 g), at the current precision."""
    return ball(p - 1) / (arb.const_e() * ball(sigma * sigma * g))


def _mills(z: arb) -> arb:
    """phi(z)/Phibar(z), the derivative of -log Phibar.

    For z >= 256 it is 1 / (Phibar(z)/phi(z)) with the enclosure of :func:`_log_phibar`
    ([1/z - 1/z^3, 1/z - 1/z^3 + 3/z^5]): the form exp(-z^2/2 - log sqrt(2 pi) - log Phibar(z)) would cancel
    about 2 log2(z) bits, so for z ~ 1e16 (t/2 at g = 1 when sigma ~ 1e-8) every sign taken from it was
    uncertain and :func:`_dyadic_root` searched the octave of g in the wrong direction."""
    if certainly_positive(z - _ASYMPTOTIC_FROM):
        inverse = 1 / z
        low = inverse - inverse**3
        return 1 / _interval(low, low + 3 * inverse**5)
    return (-z * z / 2 - (2 * arb.pi()).sqrt().log() - _log_phibar(z)).exp()


def _dyadic_root(rising, what: str) -> fmpq:
    """The dyadic g = 2^k (1 + j/2^9) with rising(g) and not rising(g + 2^(k-9)), for a predicate that
    holds for small g > 0 and fails for large g (assumed to switch once): the octave [2^k, 2^(k+1)] by
    doubling or halving from 1, then 9 bisection steps. Deterministic: ``rising`` decides with balls."""
    k = 0
    if rising(fmpq(1)):
        while rising(fmpq(2) ** (k + 1)):
            k += 1
            if k > _MAX_OCTAVES:
                raise NotCertified(f"no octave found for the region parameter {what}")
    else:
        while not rising(fmpq(2) ** k):
            k -= 1
            if k < -_MAX_OCTAVES:
                raise NotCertified(f"no octave found for the region parameter {what}")
    low, high = fmpq(2) ** k, fmpq(2) ** (k + 1)  # rising(low), not rising(high)
    for _ in range(_CHOICE_BITS):
        middle = (low + high) / 2
        if rising(middle):
            low = middle
        else:
            high = middle
    return low


def slide_region_parameters(p: int, sigma) -> tuple[fmpq, fmpq]:
    """The (g, delta) of the region bound: deterministic dyadics with 10 significant bits, functions of (p, sigma) only.

    They approximately maximise the bound's main part
    Psi(g, delta) = 2p log Phibar(t/2) + n log erf(kappa delta/(2 sqrt 2)) + log Phibar(c (g + delta)),
    t = (p-1)/(e sigma^2 g), n = p - 1, kappa = n/(n-1), c = sqrt(p n). With R = phi/Phibar,

        dPsi/dg = p R(t/2) t/g - c R(c (g + delta)),
        dPsi/ddelta = n kappa phi(kappa delta/2) / erf(kappa delta/(2 sqrt 2)) - c R(c (g + delta)),

    each decreasing from +inf to -inf in its variable. delta(g) is the root of dPsi/ddelta, g the root of
    dPsi/dg at (g, delta(g)) (the derivative of the profile Psi(g, delta(g))), both by
    :func:`_dyadic_root`. Every sign is an Arb predicate at a fixed 64-bit precision, so the choice
    depends on no float and not on ``prec``; any g, delta > 0 give a valid bound, these a good one.
    """
    p = require_prime(p)
    sigma = _require_sigma(sigma)
    n = p - 1
    with working_precision(_work(p, _CHOICE_PREC)):
        c, kappa = (ball(p) * ball(n)).sqrt(), ball(fmpq(n, n - 1))
        root_two_pi = (2 * arb.pi()).sqrt()

        def delta_of(g: fmpq) -> fmpq:
            def rising(delta: fmpq) -> bool:
                x = kappa * ball(delta)
                gain = n * kappa * (-x * x / 8).exp() / root_two_pi / (x / (2 * ball(2).sqrt())).erf()
                return certainly_positive(gain - c * _mills(c * ball(g + delta)))
            return _dyadic_root(rising, "delta")

        def rising(g: fmpq) -> bool:
            t = _spacing_threshold(p, sigma, g)
            gain = p * _mills(t / 2) * t / ball(g)
            return certainly_positive(gain - c * _mills(c * ball(g + delta_of(g))))

        g = _dyadic_root(rising, "g")
        return g, delta_of(g)


def _require_sigma(sigma) -> fmpq:
    sigma = _exact_rational(sigma, "sigma")
    if not sigma > 0:
        raise InputError(f"sigma > 0 fails: sigma = {sigma} (theta(0) ~ N(0, sigma^2 I_3p) needs a positive scale)")
    return sigma


def _require_positive(value, name: str) -> fmpq:
    value = _exact_rational(value, name)
    if not value > 0:
        raise InputError(f"{name} must be > 0, got {value}")
    return value


@dataclass(frozen=True)
class SlideRegionBound:
    """The certified bound and the sub-region it measures.

    log_lower (an exact ball) <= log P(theta(0) in R_slide | initially active). It bounds the probability
    of the smaller event U_slide(gamma_*, X) (relabelled): one active gate, x > X, gamma_j > gamma_* for
    j != y, with X gamma_* = sigma^2 g t > (p-1)/e strictly, since t is a rational upper end of an
    enclosure of the irrational (p-1)/(e sigma^2 g): (A.14) holds. delta is the truncation level of
    :func:`gamma_minimum_log_lower`.
    """

    p: int
    sigma: fmpq
    g: fmpq            # gamma_* / sigma
    delta: fmpq        # D <= sigma delta in the gamma part
    gamma_star: fmpq   # sigma g
    X: fmpq            # sigma t, t > (p-1)/(e sigma^2 g) a 32-bit dyadic
    log_lower: arb


def slide_region_log_probability_lower(p: int, sigma, prec: int) -> SlideRegionBound:
    """An exact ball (radius 0) <= log P(theta(0) in R_slide | initially active), theta(0) ~ N(0, sigma^2 I_{3p}).

    R_slide = {exactly one active gate (a*, b*); y = a* + b* mod p; x = u(a*) + v(b*);
    m = min_{j != y} (mu - w(j)) > 0; x m > (p-1)/e}: the union over gamma_* > 0 and X > (p-1)/(e gamma_*)
    ((A.14)) of the relabelled U_slide(gamma_*, X) of (A.15)-(A.17), from each point of which Theorem A.1
    holds. With (g, delta) = :func:`slide_region_parameters` (p, sigma) and t an exact rational
    > (p-1)/(e sigma^2 g),

        log P >= -log(C(2p, p) - 1) + log P(S > t) + log P(min_{j != y} gamma_j > sigma g)

    by the ordering identity (given one active gate x = sigma S), the independence of w from (u, v); the
    terms from :func:`spacing_survival_log_lower` and the larger of :func:`gamma_minimum_log_lower` and
    :func:`gamma_minimum_jensen_log_lower` (docs/mathematics.md, section 'Region probability of the
    sliding theorem'). Requires a prime p >= 5 and an exact rational sigma > 0.

    >>> b = slide_region_log_probability_lower(5, 3, 64)
    >>> b.log_lower.rad() == 0, b.g, b.delta, -20.79 < float(b.log_lower) < -20.78
    (True, 261/1024, 317/1024, True)
    """
    p = require_prime(p)
    sigma = _require_sigma(sigma)
    _require_precision(prec)
    g, delta = slide_region_parameters(p, sigma)
    return _region_bound(p, sigma, g, delta, prec)


def _jensen_could_win(p: int, g: fmpq, truncated: arb, prec: int) -> bool:
    """False only if the Jensen bound of :func:`gamma_minimum_jensen_log_lower` (p, g, prec) is certainly below
    the exact point ``truncated``, decided without e_n's quadrature: log Phibar decreases and
    e_n >= e_2 = 1/sqrt(pi) for n = p - 1 >= 2 (the maximum of n >= 2 values is at least that of the first
    two, whose mean is 1/sqrt(pi)), so the Jensen bound is <= log Phibar(sqrt(p n) (g + 1/sqrt(pi))). Skipping
    it then leaves the larger of the two bounds, the region bound, exactly as it was."""
    with working_precision(_work(p, prec)):
        ceiling = _gamma_minimum_jensen_log(p, ball(g), 1 / arb.pi().sqrt())
        return not certainly_lt(ceiling, truncated)


def _round_up(value: fmpq, bits: int) -> fmpq:
    """A dyadic >= ``value`` > 0 with about ``bits`` significant bits."""
    shift = bits - (int(value.p).bit_length() - int(value.q).bit_length())
    scale = fmpq(2) ** shift
    return fmpq((value * scale).ceil()) / scale


def _region_bound(p: int, sigma: fmpq, g: fmpq, delta: fmpq, prec: int) -> SlideRegionBound:
    """The bound of :func:`slide_region_log_probability_lower` at given exact g, delta > 0 (valid for all)."""
    with working_precision(_work(p, _CHOICE_PREC)):  # t, like g, does not depend on prec
        t = _round_up(upper_endpoint(_spacing_threshold(p, sigma, g)), _THRESHOLD_BITS)
    spacing = spacing_survival_log_lower(p, t, prec)
    # two valid lower bounds (exact points): the larger, compared exactly. Jensen's needs e_n by quadrature
    # (most of the cost of a call); it is computed only if it could win (see _jensen_could_win)
    truncated = gamma_minimum_log_lower(p, g, delta, prec)
    gamma_part = truncated
    if _jensen_could_win(p, g, truncated, prec):
        gamma_part = max((truncated, gamma_minimum_jensen_log_lower(p, g, prec)), key=lambda bound: bound.mid().fmpq())
    with working_precision(_work(p, prec)):
        bound = log_one_active_gate_probability(p, prec) + spacing + gamma_part
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the sliding-region bound is not finite")
        log_lower = bound.lower()
    return SlideRegionBound(p=p, sigma=sigma, g=g, delta=delta, gamma_star=sigma * g, X=sigma * t,
                            log_lower=log_lower)


@memoized
def slide_region_claim_bound(p: int, sigma) -> SlideRegionBound:
    """What the ``region_probability`` claim of a slide certificate states: :func:`slide_region_log_probability_lower`
    (p, sigma, :data:`certify.kernel.region.REGION_PRECISION`) with its log bound rounded down onto the grid of
    :func:`certify.kernel.region.stated_log_lower`; the same for every certificate precision, memoised by (p, sigma)
    (certify.kernel.memo)."""
    bound = slide_region_log_probability_lower(p, sigma, REGION_PRECISION)
    return replace(bound, log_lower=stated_log_lower(bound.log_lower))
