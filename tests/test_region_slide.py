"""certify.kernel.region_slide: the probability of the whole sliding region R_slide, each claim two ways.

The derivation is docs/mathematics.md, section 'Region probability of the sliding theorem'. The
oracles do not import the kernel: closed forms (e_1 = 0, e_2 = 1/sqrt(pi), e_3 = 3/(2 sqrt(pi))),
mpmath quadrature at 30 digits, the elementary two-sided bound of P(S > t) written with mpmath, and
seeded Monte Carlo that tests the defining inequalities of R_slide on sampled coordinates.

Monte Carlo tolerances are K_SE = 5 standard errors (binomial sqrt(q(1-q)/n), or the sample
standard deviation / sqrt(n) for a mean): for a normal estimate the chance of a false failure is
6e-7 per comparison, and the seeds are fixed, so a run is reproducible.
"""

from __future__ import annotations

import doctest
import math

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpq

import certify.kernel.region_slide as region_slide
from certify.errors import InputError
from certify.kernel.region_slide import (SlideRegionBound, expected_maximum_upper, gamma_minimum_jensen_log_lower,
                                         gamma_minimum_log_lower, slide_region_log_probability_lower,
                                         slide_region_parameters, spacing_survival_log_lower)

K_SE = 5  # standard errors allowed in a Monte Carlo comparison (see the module docstring)
PREC = 64
#: The kernel returns the lower end of a ball of radius < 1e-12 (64 bits plus guard bits, values
#: below 1e3 in size); mpmath at 30 digits errs by < 1e-25. Two evaluations of the same closed
#: form agree to within this (absolute, in log units).
LOG_AGREEMENT = 1e-9


@pytest.fixture(autouse=True)
def mpmath_digits():
    """Every mpmath value and comparison of this module at 40 digits (restored afterwards)."""
    with mpmath.workdps(40):
        yield


def mp(x: arb) -> mpmath.mpf:
    """The exact point of an exact ball as an mpmath number (no float rounding)."""
    assert x.rad() == 0
    value = x.mid().fmpq()
    return mpmath.mpf(int(value.p)) / int(value.q)


# ---------------------------------------------------------------- oracles (no kernel imports)

def rational(x) -> mpmath.mpf:
    """An exact rational (int or fmpq) as an mpmath number at the current (40-digit) precision."""
    x = fmpq(x)
    return mpmath.mpf(int(x.p)) / int(x.q)


def oracle_ball(value: mpmath.mpf, error: float) -> arb:
    """A ball containing [value - error, value + error] (value written with 40 digits at 240 bits)."""
    with ctx.workprec(240):
        return arb(mpmath.nstr(value, 40)) + arb(0, 1) * arb(mpmath.nstr(mpmath.mpf(error) * 2, 5))

def log_central_binomial(p: int) -> mpmath.mpf:
    """log C(2p, p) by mpmath's log-gamma (exact integers would have 6e5 digits at p = 10^6)."""
    return mpmath.loggamma(2 * p + 1) - 2 * mpmath.loggamma(p + 1)


def log_phibar(z) -> mpmath.mpf:
    return mpmath.log(mpmath.ncdf(-z))


def spacing_survival_exact(p: int, t) -> mpmath.mpf:
    """log P(S > t) = log(p C(2p, p) int Phi^(p-1) phi Phibar(x + t)^p dx), by mpmath quadrature."""
    t = mpmath.mpf(t)

    def integrand(x):
        return mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.ncdf(-x - t) ** p

    c = -t / 2
    points = [-mpmath.inf, c - 4, c - 1, c, c + 1, c + 4, mpmath.inf]
    return mpmath.log(p) + log_central_binomial(p) + mpmath.log(mpmath.quad(integrand, points))


def spacing_survival_two_sided(p: int, t) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Elementary bounds of log P(S > t): the split 'p values below -t/2, p above t/2' from below,
    p C(2p, p) sup_x (Phi(x) Phibar(x + t))^(p-1) = p C(2p, p) Phibar(t/2)^(2(p-1)) from above
    (Phi^(p-1) phi Phibar^p <= (Phi Phibar)^(p-1) phi, and Phi(x) Phibar(x + t) is log-concave
    and symmetric about -t/2)."""
    half = log_phibar(mpmath.mpf(t) / 2)
    log_c = log_central_binomial(p)
    return log_c + 2 * p * half, mpmath.log(p) + log_c + 2 * (p - 1) * half


def expected_maximum_mp(n: int) -> mpmath.mpf:
    """e_n = int_R x n Phi^(n-1) phi dx (the density of the maximum), by mpmath quadrature."""
    return mpmath.quad(lambda x: x * n * mpmath.ncdf(x) ** (n - 1) * mpmath.npdf(x), [-mpmath.inf, 0, 3, mpmath.inf])


def sample_middle_spacing(p: int, n: int, seed: int) -> np.ndarray:
    values = np.sort(np.random.default_rng(seed).standard_normal((n, 2 * p)), axis=1)
    return values[:, p] - values[:, p - 1]


def sample_gamma_minimum(p: int, sigma: float, n: int, rng) -> np.ndarray:
    """min_{j != y} (mean(w) - w(j)) for w ~ N(0, sigma^2 I_p), y = 0 (w is exchangeable)."""
    w = sigma * rng.standard_normal((n, p))
    return (w.mean(axis=1, keepdims=True) - w)[:, 1:].min(axis=1)


def sample_slide_region(p: int, sigma: float, n: int, seed: int, chunk: int = 200_000) -> int:
    """Seeded Monte Carlo of theta(0) given exactly one active gate; returns the count in R_slide.

    The one-gate law is sampled exactly by the ordering identity: sort 2p draws of N(0, sigma^2)
    and read them by the ascending pattern U^(p-1) V U V^(p-1) (u-values and the values -v(b)),
    then assign the u's and the v's to uniformly random indices; w is drawn independently. Each
    sample is tested against R_slide's definition on the coordinates: exactly one gate
    u(a) + v(b) > 0 (asserted), (a*, b*) that gate, y = a* + b* mod p, x its value,
    m = min_{j != y} (mean(w) - w(j)), and m > 0, x m > (p-1)/e.
    """
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        values = np.sort(sigma * rng.standard_normal((m, 2 * p)), axis=1)
        u = rng.permuted(np.concatenate([values[:, :p - 1], values[:, p:p + 1]], axis=1), axis=1)
        v = rng.permuted(-np.concatenate([values[:, p - 1:p], values[:, p + 1:]], axis=1), axis=1)
        gates = (u[:, :, None] + v[:, None, :]).reshape(m, p * p)
        assert ((gates > 0).sum(axis=1) == 1).all()
        flat = gates.argmax(axis=1)
        a, b = np.divmod(flat, p)
        y = (a + b) % p
        x = gates[np.arange(m), flat]
        w = sigma * rng.standard_normal((m, p))
        gamma = w.mean(axis=1, keepdims=True) - w
        gamma[np.arange(m), y] = np.inf
        minimum = gamma.min(axis=1)
        hits += int(((minimum > 0) & (x * minimum > (p - 1) / math.e)).sum())
    return hits


# ---------------------------------------------------------------- spacing_survival_log_lower

@pytest.mark.parametrize("p, t", [(5, 0), (5, 1), (5, fmpq(14, 5)), (7, fmpq(1, 3)), (13, 3), (31, 5)])
def test_spacing_survival_below_exact_and_above_the_split(p, t):
    lo = spacing_survival_log_lower(p, t, PREC)
    assert lo.rad() == 0
    tt = rational(t)
    with mpmath.workdps(30):
        exact = spacing_survival_exact(p, tt)
        split, _ = spacing_survival_two_sided(p, tt)
    assert mp(lo) <= exact + LOG_AGREEMENT
    assert split - LOG_AGREEMENT <= mp(lo)  # the sum contains the split at -t/2 (docs, (b))
    if t != 0:
        # the grid sum recovers most of the integral for small p (measured loss < 0.35 decades
        # at p <= 31; this bounds it loosely at one decade)
        assert mp(lo) >= exact - mpmath.log(10)


def test_spacing_survival_formula_against_monte_carlo():
    # the exact formula (the oracle above) against sampled middle spacings: p = 5, t = 1,
    # q ~ 9e-3, n = 10^6, se = sqrt(q (1 - q) / n) ~ 9.4e-5
    p, t, n = 5, 1, 1_000_000
    q = float((sample_middle_spacing(p, n, seed=11) > t).mean())
    se = math.sqrt(q * (1 - q) / n)
    with mpmath.workdps(30):
        exact = float(mpmath.exp(spacing_survival_exact(p, t)))
    assert abs(q - exact) <= K_SE * se
    assert float(mpmath.exp(mp(spacing_survival_log_lower(p, t, PREC)))) <= q + K_SE * se


@pytest.mark.parametrize("p, t", [(1009, 40), (1_000_003, 1000)])
def test_spacing_survival_huge_p_between_elementary_bounds(p, t):
    # t/2 = 500 uses the asymptotic enclosure of log Phibar (z >= 256) for p = 1000003
    lo = spacing_survival_log_lower(p, t, PREC)
    with mpmath.workdps(40):
        low, high = spacing_survival_two_sided(p, t)
    relative = LOG_AGREEMENT * abs(low)  # the kernel's ball is relatively tight: |log| up to ~1e11
    assert low - relative <= mp(lo) <= high


# ---------------------------------------------------------------- expected_maximum_upper

@pytest.mark.parametrize("n, closed_form", [(1, lambda: mpmath.mpf(0)), (2, lambda: 1 / mpmath.sqrt(mpmath.pi)),
                                            (3, lambda: 3 / (2 * mpmath.sqrt(mpmath.pi)))])
def test_expected_maximum_closed_forms(n, closed_form):
    e = expected_maximum_upper(n, PREC)
    assert e.rad() < 1e-12
    with mpmath.workdps(40):
        assert e.overlaps(oracle_ball(closed_form(), 1e-35))


@pytest.mark.parametrize("n", [4, 10, 100, 1000, 1_000_002])
def test_expected_maximum_against_quadrature(n):
    e = expected_maximum_upper(n, PREC)
    assert e.rad() < 1e-10
    with mpmath.workdps(40):
        value = expected_maximum_mp(n)
        # the oracle's error: at 30 digits this density form and the layer-cake form agree to 2e-31
        # (n = 4; equal at 50 digits), so 1e-30 at 40 digits is generous
        assert e.overlaps(oracle_ball(value, 1e-30))
    assert value <= math.sqrt(2 * math.log(n))  # the classical bound, looser (docs)


# ---------------------------------------------------------------- gamma_minimum_log_lower (and Jensen)

def gamma_minimum_truncated_mp(p: int, g, delta) -> mpmath.mpf:
    """n log erf(kappa delta/(2 sqrt 2)) + log Phibar(sqrt(p n)(g + delta)), n = p - 1, kappa = n/(n-1)."""
    n = p - 1
    r = mpmath.mpf(n) / (n - 1) * rational(delta)
    inside = n * mpmath.log(mpmath.erf(r / (2 * mpmath.sqrt(2))))
    return inside + log_phibar(mpmath.sqrt(p * n) * (rational(g) + rational(delta)))


@pytest.mark.parametrize("p, g, delta", [(5, fmpq(1, 20), fmpq(1, 3)), (5, 1, fmpq(1, 5)), (7, fmpq(1, 4), fmpq(1, 8)),
                                         (101, fmpq(3, 2), fmpq(1, 256)), (1_000_003, 16, fmpq(1, 2**32))])
def test_gamma_minimum_is_the_truncation_closed_form(p, g, delta):
    lo = gamma_minimum_log_lower(p, g, delta, PREC)
    value = gamma_minimum_truncated_mp(p, g, delta)
    # the kernel's ball is relatively tight (< 1e-15 relative, 64 bits plus guard bits); its lower end
    assert value - LOG_AGREEMENT * (1 + abs(value)) <= mp(lo) <= value


@pytest.mark.parametrize("p, g", [(5, fmpq(1, 20)), (5, 1), (7, fmpq(1, 4)), (13, fmpq(3, 4))])
def test_gamma_minimum_jensen_is_its_closed_form(p, g):
    lo = gamma_minimum_jensen_log_lower(p, g, PREC)
    with mpmath.workdps(30):
        value = log_phibar(mpmath.sqrt(p * (p - 1)) * (rational(g) + expected_maximum_mp(p - 1)))
    # e_n's ball has radius < 1e-12; it moves the log by <= z sqrt(p n) 1e-12 < 1e-8 (z < 15, p <= 13)
    assert value - 1e-8 <= mp(lo) <= value


@pytest.mark.parametrize("p, sigma, g, delta, n", [(5, 1.0, fmpq(1, 20), fmpq(1, 3), 400_000),
                                                   (7, 3.0, fmpq(1, 100), fmpq(1, 4), 1_000_000)])
def test_gamma_minimum_derivation_against_monte_carlo(p, sigma, g, delta, n):
    # docs (d): P(min gamma_j > sigma g) = E[Phibar(sqrt(p n) (g + D / sigma))], D = max z - mean z of
    # the other p - 1 w's; P(D <= sigma delta) >= erf(r/(2 sqrt 2))^(p-1), r = (p-1) delta/(p-2); both
    # bounds below the Monte Carlo values (independent samples; q ~ 2e-2 for p = 5, ~ 2.5e-4 for p = 7)
    from scipy.special import ndtr
    rng = np.random.default_rng(7 + p)
    direct = sample_gamma_minimum(p, sigma, n, rng) > sigma * float(g)
    q = float(direct.mean())
    q_se = math.sqrt(q * (1 - q) / n)
    z = sigma * rng.standard_normal((n, p - 1))
    deviation = (z - z.mean(axis=1, keepdims=True)).max(axis=1)
    conditional = ndtr(-math.sqrt(p * (p - 1)) * (float(g) + deviation / sigma))
    c, c_se = float(conditional.mean()), float(conditional.std()) / math.sqrt(n)
    assert q > 100 / n  # the event is seen
    assert abs(q - c) <= K_SE * math.hypot(q_se, c_se)
    small = float((deviation <= sigma * float(delta)).mean())
    inside = float(mpmath.erf((p - 1) / (p - 2) * rational(delta) / (2 * mpmath.sqrt(2)))) ** (p - 1)
    assert inside <= small + K_SE * math.sqrt(small * (1 - small) / n)
    for lo in (gamma_minimum_log_lower(p, g, delta, PREC), gamma_minimum_jensen_log_lower(p, g, PREC)):
        assert float(mpmath.exp(mp(lo))) <= q + K_SE * q_se


# ---------------------------------------------------------------- slide_region_log_probability_lower

@pytest.mark.parametrize("p, sigma, n", [(5, 5, 1_000_000), (7, 20, 1_000_000)])
def test_region_bound_against_monte_carlo(p, sigma, n):
    bound = slide_region_log_probability_lower(p, sigma, PREC)
    hits = sample_slide_region(p, float(sigma), n, seed=100 + p)
    q = hits / n
    se = math.sqrt(q * (1 - q) / n)
    assert hits >= 100  # the region is seen (p = 5, sigma = 5: q ~ 1.2e-3; p = 7, sigma = 20: q ~ 1.5e-4)
    # P(R_slide | active) = P(R_slide | one active gate) / (C(2p, p) - 1) (ordering identity)
    log_mc_high = mpmath.log(q + K_SE * se) - mpmath.log(math.comb(2 * p, p) - 1)
    assert mp(bound.log_lower) <= log_mc_high


def test_region_bound_parts_and_sub_region():
    # the returned sub-region: gamma_* = sigma g, X gamma_* > (p-1)/e (A.14), and log_lower =
    # -log(C(2p,p) - 1) + spacing(t = X / sigma) + the better gamma part (mpmath, kernel parts)
    p, sigma = 7, fmpq(3)
    b = slide_region_log_probability_lower(p, sigma, PREC)
    assert isinstance(b, SlideRegionBound) and (b.g, b.delta) == slide_region_parameters(p, sigma)
    assert b.gamma_star == sigma * b.g
    with mpmath.workdps(40):
        X, gs = (mpmath.mpf(int(v.p)) / int(v.q) for v in (b.X, b.gamma_star))
        assert X * gs >= (p - 1) / mpmath.e
        assert X * gs <= (p - 1) / mpmath.e * (1 + mpmath.mpf(2) ** -28)  # t rounded up to 32 bits only
    truncated = mp(gamma_minimum_log_lower(p, b.g, b.delta, PREC))
    assert truncated > mp(gamma_minimum_jensen_log_lower(p, b.g, PREC))  # the truncation is the better one
    parts = -mpmath.log(math.comb(2 * p, p) - 1) + mp(spacing_survival_log_lower(p, b.X / sigma, PREC)) + truncated
    assert abs(mp(b.log_lower) - parts) <= LOG_AGREEMENT


def test_region_parameters_are_near_the_best():
    # (g, delta) maximise the bound's main part; the proved bound at g (1 +- 1/8), delta (1 +- 1/8) is
    # not better by more than 1e-3 of its size (measured: none better on a +-25% grid, p = 5 ... 10^6)
    for p, sigma in ((5, fmpq(1)), (13, fmpq(3))):
        g, delta = slide_region_parameters(p, sigma)
        for x in (g, delta):  # dyadics with <= 10 significant bits
            assert x.q & (x.q - 1) == 0 and int(x.p).bit_length() <= 10
        best = mp(region_slide._region_bound(p, sigma, g, delta, PREC).log_lower)
        for f, h in ((fmpq(7, 8), 1), (fmpq(9, 8), 1), (1, fmpq(7, 8)), (1, fmpq(9, 8))):
            other = mp(region_slide._region_bound(p, sigma, g * f, delta * h, PREC).log_lower)
            assert other <= best + 1e-3 * abs(best)


def test_region_bound_grows_with_sigma():
    values = [mp(slide_region_log_probability_lower(5, sigma, PREC).log_lower) for sigma in (1, 2, 3, 5)]
    assert values == sorted(values)


def test_region_bound_huge_p_is_its_parts():
    # p = 1000003: the bound equals its three parts written with mpmath (log-gamma for C(2p, p), the
    # elementary lower bound of the spacing part, the truncation closed form) within their sizes
    p, sigma = 1_000_003, fmpq(1)
    b = slide_region_log_probability_lower(p, sigma, PREC)
    split, high = spacing_survival_two_sided(p, rational(b.X / sigma))
    gamma = gamma_minimum_truncated_mp(p, b.g, b.delta)
    one_gate = -log_central_binomial(p)  # log1p(-1/C) is far below the tolerance
    relative = LOG_AGREEMENT * abs(split + gamma)
    assert one_gate + split + gamma - relative <= mp(b.log_lower) <= one_gate + high + gamma + relative


# ---------------------------------------------------------------- determinism, precision, input

def test_precision_independence_and_determinism():
    before = ctx.prec
    try:
        results = []
        for ambient in (20, 53, 300):
            ctx.prec = ambient
            results.append(slide_region_log_probability_lower(13, fmpq(3, 2), PREC))
            results.append(spacing_survival_log_lower(13, fmpq(5, 2), PREC))
            results.append(expected_maximum_upper(12, PREC))
    finally:
        ctx.prec = before
    key = [(r.g, r.delta, r.X, r.log_lower.mid().fmpq()) if isinstance(r, SlideRegionBound) else
           (r.mid().fmpq(), r.rad().fmpq()) for r in results]
    assert key[0:3] == key[3:6] == key[6:9]


@pytest.mark.parametrize("call", [
    lambda: slide_region_log_probability_lower(4, 1, PREC),
    lambda: slide_region_log_probability_lower(9, 1, PREC),
    lambda: slide_region_log_probability_lower(3, 1, PREC),
    lambda: slide_region_log_probability_lower(5.0, 1, PREC),
    lambda: slide_region_log_probability_lower(5, 0, PREC),
    lambda: slide_region_log_probability_lower(5, -1, PREC),
    lambda: slide_region_log_probability_lower(5, 1.0, PREC),
    lambda: slide_region_log_probability_lower(5, 1, 8),
    lambda: spacing_survival_log_lower(5, -1, PREC),
    lambda: spacing_survival_log_lower(5, 0.5, PREC),
    lambda: expected_maximum_upper(0, PREC),
    lambda: expected_maximum_upper(True, PREC),
    lambda: gamma_minimum_log_lower(5, 0, 1, PREC),
    lambda: gamma_minimum_log_lower(5, 1, 0, PREC),
    lambda: gamma_minimum_jensen_log_lower(5, -1, PREC),
    lambda: slide_region_parameters(5, fmpq(-1, 2)),
])
def test_bad_input(call):
    with pytest.raises(InputError):
        call()


def test_docstring_examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner()
    tests = finder.find(region_slide, region_slide.__name__)
    assert sum(len(test.examples) for test in tests) >= 8
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---------------------------------------------------------------- tiny sigma (review finding 1)

def slide_region_crude_log_upper(p: int, sigma) -> mpmath.mpf:
    """A proved upper bound of log P(R_slide | active), independent of the kernel.

    Given one active gate R_slide is {S m > c}, c = (p-1)/(e sigma^2), m = min_{j != y} gamma_j / sigma
    (the ordering identity and the independence of the dead section). For a > 0, {S m > c} lies in
    {S > a} u {m > c/a}; S <= max X - min X <= 2 max |X_i| gives P(S > a) <= 4p Phibar(a/2), and
    m <= gamma_j / sigma ~ N(0, tau^2), tau^2 = (p-1)/p, gives P(m > g) <= Phibar(g/tau). With
    a^2 = 2c/tau both arguments squared over 2 equal c/(4 tau), and Phibar(z) <= exp(-z^2/2)/2 (z >= 0).
    """
    c = (p - 1) / (mpmath.e * rational(sigma) ** 2)
    tau = mpmath.sqrt(mpmath.mpf(p - 1) / p)
    # -log(C - 1) = -log C - log1p(-1/C) <= -log C + 2/C (C >= 252): the upper bound keeps the 2/C
    log_c = log_central_binomial(p)
    return mpmath.log(4 * p + 1) - mpmath.log(2) - c / (4 * tau) - log_c + 2 * mpmath.exp(-log_c)


@pytest.mark.parametrize("p, sigma", [(5, fmpq(1, 10**8)), (5, fmpq(1, 10**12)), (7, fmpq(1, 10**10)),
                                      (1_000_003, fmpq(1, 10**10))])
def test_region_bound_tiny_sigma_is_certified(p, sigma):
    # Found in review: for sigma <= 1e-8 (p = 5) the choice of g failed ('no octave found'): at g = 1 the
    # threshold t ~ 1e16 made phi(t/2)/Phibar(t/2) = exp(-z^2/2 - log Phibar(z) - ...) cancel ~100 bits, the
    # sign at g = 1 was uncertain and the octave search went the wrong way. A valid bound must come out.
    b = slide_region_log_probability_lower(p, sigma, PREC)
    with mpmath.workdps(60):
        X, gs = rational(b.X), rational(b.gamma_star)
        assert X * gs > (p - 1) / mpmath.e  # (A.14) for the measured sub-region
        assert mp(b.log_lower) <= slide_region_crude_log_upper(p, sigma)


def gamma_minimum_exact(p: int, g) -> mpmath.mpf:
    """P(min_{j != y} gamma_j > g) for w ~ N(0, I_p), by quadrature (no kernel, no Monte Carlo).

    (gamma_j)_{j != y} is N(0, I_n - J/p), n = p - 1, the law of Z_j + i xi/sqrt(p) (Z ~ N(0, I_n), xi ~ N(0, 1),
    the covariance I - J/p), so the probability is int phi(xi) Phibar(g - i xi/sqrt p)^n dxi, an entire integrand;
    on the line xi = eta + i beta with beta = n g sqrt(p) (the saddle) it has no cancellation.
    """
    n, root_p = p - 1, mpmath.sqrt(p)
    g = rational(g)
    beta = n * g * root_p

    def integrand(eta):
        xi = eta + 1j * beta
        return mpmath.re(mpmath.exp(-xi**2 / 2) / mpmath.sqrt(2 * mpmath.pi)
                         * (mpmath.erfc((g - 1j * xi / root_p) / mpmath.sqrt(2)) / 2) ** n)

    return mpmath.quad(integrand, [-mpmath.inf, -20, -5, 0, 5, 20, mpmath.inf])


@pytest.mark.parametrize("p, sigma", [(5, fmpq(1, 2)), (5, fmpq(1, 10)), (7, 1), (13, fmpq(1, 2))])
def test_region_bound_small_sigma_below_an_exact_sub_event(p, sigma):
    # small sigma, where Monte Carlo never sees the region: the measured sub-event {S > t, m > sigma g} has
    # probability P(S > t) P(m > sigma g) / (C(2p, p) - 1) exactly, here by two quadratures (the spacing
    # integral of section (c) and gamma_minimum_exact, mpmath at 40 digits); it is <= P(R_slide | active),
    # and the kernel's bound must lie below it (measured margins 7-18 nats)
    b = slide_region_log_probability_lower(p, sigma, PREC)
    low = mp(gamma_minimum_log_lower(p, b.g, b.delta, PREC))
    exact = mpmath.log(gamma_minimum_exact(p, b.g))
    # (at 60 digits the same to the 10 digits compared at these four points; the margins are >= 7 nats)
    assert low <= exact
    t = rational(b.X / sigma)
    spacing = mpmath.log(p * mpmath.binomial(2 * p, p) * mpmath.quad(
        lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.ncdf(-(x + t)) ** p,
        [-mpmath.inf] + mpmath.linspace(-t / 2 - 4, -t / 2 + 4, 33) + [mpmath.inf]))
    sub_event = spacing + exact - mpmath.log(math.comb(2 * p, p) - 1)
    assert mp(b.log_lower) <= sub_event


@pytest.mark.parametrize("p, sigma", [(5, 1), (7, 1), (13, 1), (13, 3), (101, 1)])
def test_the_jensen_bound_is_skipped_only_where_it_loses(monkeypatch, p, sigma):
    """The region bound is the larger of the truncation and Jensen bounds; Jensen's e_n quadrature is skipped
    when its ceiling (e_n >= 1/sqrt(pi)) is below the truncation bound, and the result is the same bound as
    computing both (issue 26)."""
    import certify.kernel.region_slide as rs

    skipped = rs.slide_region_log_probability_lower(p, sigma, 64)
    with monkeypatch.context() as patch:
        patch.setattr(rs, "_jensen_could_win", lambda *args: True)
        both = rs.slide_region_log_probability_lower(p, sigma, 64)
    assert skipped == both and skipped.log_lower.rad() == 0
    g, delta = skipped.g, skipped.delta
    truncated = rs.gamma_minimum_log_lower(p, g, delta, 64)
    jensen = rs.gamma_minimum_jensen_log_lower(p, g, 64)
    if not rs._jensen_could_win(p, g, truncated, 64):
        assert jensen < truncated  # the ceiling was right: Jensen loses


def test_the_slide_claim_states_a_point_of_the_grid_at_every_precision():
    """slide_region_claim_bound: the bound at REGION_PRECISION rounded down to a multiple of 2^-40, memoised; the
    claim of a 128-bit and of a 192-bit certificate states the same point."""
    from certify.kernel.region import REGION_LOG_BITS, REGION_PRECISION
    from certify.kernel.region_slide import slide_region_claim_bound, slide_region_log_probability_lower

    stated = slide_region_claim_bound(13, 1)
    full = slide_region_log_probability_lower(13, 1, REGION_PRECISION)
    point = stated.log_lower.mid().fmpq()
    assert stated.log_lower.rad() == 0 and (point * 2**REGION_LOG_BITS).q == 1
    assert 0 <= float(full.log_lower - stated.log_lower) < 2.0**-REGION_LOG_BITS
    assert slide_region_claim_bound(13, 1) is stated  # memoised: one computation per (p, sigma) in a process
