"""certify.kernel.region: the probability of the whole dead region R_dead and of the one-gate regions of the
gd and smooth theorems, each claim two ways.

The derivation is docs/mathematics.md, section 'Region probability of the dead theorem'. The
oracles here do not import the kernel: exhaustive enumeration of orderings, seeded Monte Carlo of
theta(0) ~ N(0, sigma^2 I_{3p}) tested against the region's defining inequalities on the 3p
coordinates, and mpmath quadrature (one-dimensional for E[S], a tensor Gauss-Legendre rule over the
joint density of the two middle order statistics for E[Phibar(c_p S)] and E[psi(S)], a fixed
Gauss-Legendre rule in x for the bin probabilities P(a < S <= b)), and for the one-gate regions a
conditional Monte Carlo that draws the one-active-gate pattern directly.

Monte Carlo tolerances are K_SE = 5 binomial (or sample) standard errors: for a normal estimate
the chance of a false failure is 6e-7 per comparison (and the seeds are fixed, so a run is
reproducible).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpq

from certify.errors import HypothesisError, InputError, NotCertified
from certify.kernel.balls import ball
from certify.kernel.region import (dead_region_binned_log_probability_lower, dead_region_claim_log_lower,
                                   dead_region_log10_probability_lower,
                                   dead_region_log_probability_lower, dead_region_z_upper, expected_spacing_upper,
                                   gd_region_log_probability_lower, gd_region_z_upper, log_central_binomial,
                                   log_one_active_gate_probability, one_gate_region_grid,
                                   one_gate_region_log_probability_lower, smooth_region_log_probability_lower,
                                   smooth_region_z_upper, spacing_bin_probability_lower, spacing_integral_tail_bound)
from tolerances import relative_rounding

K_SE = 5  # standard errors allowed in a Monte Carlo comparison (see the module docstring)
PREC = 64


# ---------------------------------------------------------------- oracles (no kernel imports)

def active_gate_count(u, v):
    """Number of active gates u(a) + v(b) > 0 of each row (u, v: arrays of shape (n, p))."""
    return (u[:, :, None] + v[:, None, :] > 0).sum(axis=(1, 2))


def sample_dead_region(p: int, sigma: float, n: int, seed: int, chunk: int = 200_000):
    """Seeded Monte Carlo of theta(0) ~ N(0, sigma^2 I_{3p}), tested against R_dead's definition.

    Returns (initially active count, one-active-gate count, R_dead count, s and gamma_y of the
    one-active-gate samples). Every inequality is tested on the coordinates themselves: the gates
    u(a) + v(b), the unique active one (a*, b*) (the largest gate), y = a* + b* mod p,
    s = u(a*) + v(b*), gamma_y = mean(w) - w(y), and s > 0, gamma_y > 0, gamma_y^2 > s^2/2.
    """
    rng = np.random.default_rng(seed)
    active = one = dead = 0
    s_all, gamma_all = [], []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        theta = sigma * rng.standard_normal((m, 3 * p))
        u, v, w = theta[:, :p], theta[:, p:2 * p], theta[:, 2 * p:]
        gates = u[:, :, None] + v[:, None, :]
        count = (gates > 0).sum(axis=(1, 2))
        single = count == 1
        flat = gates[single].reshape(-1, p * p).argmax(axis=1)
        a_star, b_star = np.divmod(flat, p)
        y = (a_star + b_star) % p
        s = gates[single].reshape(-1, p * p)[np.arange(flat.size), flat]
        ws = w[single]
        gamma = ws.mean(axis=1) - ws[np.arange(flat.size), y]
        in_region = (s > 0) & (gamma > 0) & (gamma * gamma > s * s / 2)
        active += int((count >= 1).sum())
        one += int(single.sum())
        dead += int(in_region.sum())
        s_all.append(s)
        gamma_all.append(gamma)
    return active, one, dead, np.concatenate(s_all), np.concatenate(gamma_all)


@lru_cache(maxsize=None)
def dead_region_sample(p: int, sigma: float, n: int, seed: int):
    return sample_dead_region(p, sigma, n, seed)


def binomial_se(q: float, n: int) -> float:
    return math.sqrt(q * (1 - q) / n)


def mp_phibar(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def mp_phi_cdf(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


@lru_cache(maxsize=None)
def mp_expected_spacing(p: int, dps: int = 40):
    """E[S] = C(2p, p) int_R Phi^p (1 - Phi)^p dx by mpmath (tanh-sinh), with its error estimate."""
    with mpmath.workdps(dps):
        r = mpmath.sqrt(p)
        points = [0] + [mpmath.mpf(2) ** k / r for k in range(-1, 5)] + [mpmath.inf]
        # (4 Phi (1 - Phi))^p <= 1 keeps the integrand of size 1 near its peak, where mpmath's error
        # estimate (partly absolute) is meaningful; the factor 4^-p goes into the prefactor
        value, error = mpmath.quad(lambda x: (4 * mp_phi_cdf(x) * mp_phibar(x)) ** p, points, error=True)
        factor = 2 * mpmath.binomial(2 * p, p) / mpmath.mpf(4) ** p
        return factor * value, factor * error


@lru_cache(maxsize=None)
def _gauss_legendre(degree: int, dps: int):
    from mpmath.calculus.quadrature import GaussLegendre
    with mpmath.workdps(dps):
        return GaussLegendre(mpmath.mp).calc_nodes(degree, mpmath.mp.prec)


def _panels(points, degree, dps):
    nodes = []
    for a, b in zip(points, points[1:]):
        half, mid = (b - a) / 2, (a + b) / 2
        nodes += [(mid + half * x, half * w) for x, w in _gauss_legendre(degree, dps)]
    return nodes


@lru_cache(maxsize=None)
def mp_spacing_moments(p: int, degree: int = 4, dps: int = 20):
    """(E[S], E[S^2], E[Phibar(c_p S)]) over the joint density of (X_(p), X_(p+1)), X = 2p iid N(0, 1).

    The density of (X_(p), X_(p) + s) is K Phi(x)^(p-1) phi(x) (1 - Phi(x+s))^(p-1) phi(x+s),
    K = (2p)!/((p-1)!)^2, on s > 0. Tensor Gauss-Legendre (3 * 2^(degree-1) nodes per panel) on
    panels geometric around the peak: x in [-8, 8] (the neglected mass is below Phi(-8)^4 ~ 1e-60),
    s in [0, 12] (P(S > 12) <= 2 C(2p, p) Phibar(6)^p < 1e-40).
    """
    with mpmath.workdps(dps):
        c = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1)))
        r = mpmath.sqrt(p)
        right = sorted({min(mpmath.mpf(8), mpmath.mpf(2) ** k / r) for k in range(-1, 8)})
        x_points = [-x for x in reversed(right)] + [mpmath.mpf(0)] + right
        s_points = [mpmath.mpf(0)] + sorted({min(mpmath.mpf(12), mpmath.mpf(2) ** k / p) for k in range(-1, 9)})
        x_nodes, s_nodes = _panels(x_points, degree, dps), _panels(s_points, degree, dps)
        left = [(x, w * mp_phi_cdf(x) ** (p - 1) * mpmath.npdf(x)) for x, w in x_nodes]
        m1 = m2 = mg = mpmath.mpf(0)
        for s, ws in s_nodes:
            inner = mpmath.fsum(wx * mp_phibar(x + s) ** (p - 1) * mpmath.npdf(x + s) for x, wx in left)
            m1 += ws * inner * s
            m2 += ws * inner * s * s
            mg += ws * inner * mp_phibar(c * s)
        k = mpmath.factorial(2 * p) / mpmath.factorial(p - 1) ** 2
        return k * m1, k * m2, k * mg


def mp_exact_log10(p: int):
    """log10 P(R_dead | active) = log10(E[Phibar(c_p S)] / (C(2p, p) - 1)), and its quadrature error
    estimate (the difference from the rule with half the nodes per panel, a pessimistic estimate)."""
    fine, coarse = mp_spacing_moments(p, 4)[2], mp_spacing_moments(p, 3)[2]
    value = mpmath.log10(fine / (mpmath.binomial(2 * p, p) - 1))
    return value, abs(fine - coarse) / fine / mpmath.log(10)


def ball_interval(x: arb):
    """The ends mid -/+ rad of a ball, exactly, as mpmath numbers (from the binary mantissas and exponents)."""
    (mid_m, mid_e), (rad_m, rad_e) = x.mid().man_exp(), x.rad().man_exp()
    with mpmath.workprec(max(int(mid_m).bit_length(), 1) + abs(int(mid_e) - int(rad_e)) + 64):
        mid = mpmath.ldexp(mpmath.mpf(int(mid_m)), int(mid_e))
        rad = mpmath.ldexp(mpmath.mpf(int(rad_m)), int(rad_e))
        return +(mid - rad), +(mid + rad)


def ball_point(x: arb):
    """The single point of an exact ball, exactly, as an mpmath number."""
    assert x.rad() == 0
    return ball_interval(x)[0]


# ---------------------------------------------------------------- (a) the ordering identity

def pattern_gate_counts(p: int):
    """For every one of the C(2p, p) block patterns of the ascending ordering of {u(a)} and {-v(b)}
    (which of the 2p ranks are u's), the number of active gates, with the values set to the ranks."""
    counts = {}
    for u_ranks in itertools.combinations(range(2 * p), p):
        minus_v = [k for k in range(2 * p) if k not in u_ranks]
        counts[u_ranks] = sum(1 for a in u_ranks for b in minus_v if a > b)  # u(a) + v(b) > 0 iff u(a) > -v(b)
    return counts


@pytest.mark.parametrize("p", [3, 4, 5])
def test_exactly_one_pattern_has_one_active_gate_and_one_is_inactive(p):
    counts = pattern_gate_counts(p)
    assert len(counts) == math.comb(2 * p, p)
    one = [pattern for pattern, n in counts.items() if n == 1]
    none = [pattern for pattern, n in counts.items() if n == 0]
    # ascending: p - 1 u's, then one -v, then one u, then p - 1 -v's: U^(p-1) V U V^(p-1)
    assert one == [tuple(range(p - 1)) + (p,)]
    assert none == [tuple(range(p))]  # U^p V^p: every u below every -v, the inactive neuron
    # the active gate pairs the u of rank p + 1 with the -v of rank p (1-based): s = X_(p+1) - X_(p)


@pytest.mark.parametrize("p", [3, 4])
def test_rank_assignments_give_one_over_binomial_minus_one(p):
    # all (2p)! equally likely rank assignments to the labelled values u(0..p-1), -v(0..p-1)
    one = none = 0
    for ranks in itertools.permutations(range(2 * p)):
        u, minus_v = ranks[:p], ranks[p:]
        n = sum(1 for a in u for b in minus_v if a > b)
        one += n == 1
        none += n == 0
    assert one == none == math.factorial(p) ** 2
    total = math.factorial(2 * p)
    assert math.isclose(one / (total - none), 1 / (math.comb(2 * p, p) - 1), rel_tol=relative_rounding(4))


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_log_one_active_gate_probability_against_exact_binomial(p):
    with mpmath.workdps(50):
        exact = -mpmath.log(math.comb(2 * p, p) - 1)
        lo, hi = ball_interval(log_one_active_gate_probability(p, PREC))
        assert lo <= exact <= hi
        lo, hi = ball_interval(log_central_binomial(p, PREC))
        assert lo <= mpmath.log(math.comb(2 * p, p)) <= hi


@pytest.mark.parametrize("p, n, seed", [(5, 1_000_000, 11), (7, 2_000_000, 12)])
def test_one_active_gate_probability_by_monte_carlo(p, n, seed):
    rng = np.random.default_rng(seed)
    active = one = 0
    for start in range(0, n, 250_000):
        m = min(250_000, n - start)
        count = active_gate_count(rng.standard_normal((m, p)), rng.standard_normal((m, p)))
        active += int((count >= 1).sum())
        one += int((count == 1).sum())
    q = 1 / (math.comb(2 * p, p) - 1)
    assert abs(one / active - q) <= K_SE * binomial_se(q, active)  # binomial error of one / active


# ---------------------------------------------------------------- (b) the spacing law, independence

@pytest.mark.parametrize("p", [5, 13, 31, 101])
def test_expected_spacing_contains_mpmath_quadrature(p):
    value, error = mp_expected_spacing(p)
    lo, hi = ball_interval(expected_spacing_upper(p, PREC))
    with mpmath.workdps(40):
        # mpmath at 40 digits; its (pessimistic) error estimate vouches for at least 25 of them
        assert error < mpmath.mpf(10) ** -25 * value
        assert lo - error <= value <= hi + error
        assert hi - lo < mpmath.mpf(10) ** -15 * value  # and the ball is tight


@pytest.mark.parametrize("p", [5, 13, 31])
def test_spacing_formula_against_joint_density_of_middle_order_statistics(p):
    # E[S] = C(2p, p) int Phi^p (1 - Phi)^p (Tonelli on S = int 1{X_(p) <= x < X_(p+1)} dx) against the
    # mean of X_(p+1) - X_(p) under their joint density; error: the Gauss-Legendre rule against the
    # one with half the nodes per panel (pessimistic), plus the 20-digit working precision
    one_dim, _ = mp_expected_spacing(p)
    fine, coarse = mp_spacing_moments(p, 4)[0], mp_spacing_moments(p, 3)[0]
    assert abs(fine - one_dim) <= abs(fine - coarse) + mpmath.mpf(10) ** -17


@pytest.mark.parametrize("p, n, seed", [(5, 400_000, 21), (13, 200_000, 22)])
def test_expected_spacing_against_monte_carlo_of_the_spacing(p, n, seed):
    x = np.random.default_rng(seed).standard_normal((n, 2 * p))
    middle = np.partition(x, (p - 1, p), axis=1)
    spacing = middle[:, p] - middle[:, p - 1]
    se = spacing.std(ddof=1) / math.sqrt(n)
    assert abs(spacing.mean() - float(expected_spacing_upper(p, PREC).mid())) <= K_SE * se


def test_s_and_gamma_given_one_active_gate_follow_the_spacing_and_normal_laws():
    # one-active-gate samples at p = 5: s has mean E[S], gamma_y has variance (p-1)/p and is
    # uncorrelated with s (a sample correlation of n independent pairs has standard error 1/sqrt(n))
    p = 5
    _, one, _, s, gamma = dead_region_sample(p, 1.0, 2_000_000, 31)
    assert one == s.size > 5000
    assert abs(s.mean() - float(expected_spacing_upper(p, PREC).mid())) <= K_SE * s.std(ddof=1) / math.sqrt(one)
    assert abs(gamma.mean()) <= K_SE * math.sqrt((p - 1) / p / one)
    # the sample variance of n normals has standard error sigma^2 sqrt(2/(n-1))
    assert abs(gamma.var(ddof=1) - (p - 1) / p) <= K_SE * (p - 1) / p * math.sqrt(2 / (one - 1))
    assert abs(np.corrcoef(s, gamma)[0, 1]) <= K_SE / math.sqrt(one)


# ---------------------------------------------------------------- (c), (d): the probability and Jensen

@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_jensen_bound_is_below_the_exact_probability_and_close_to_it(p):
    exact, error = mp_exact_log10(p)
    bound = ball_point(dead_region_log10_probability_lower(p, PREC))
    assert bound < exact - error
    # the gap is at most the second-order Jensen bound: 0 <= E[g(S)] - g(E S) <= sup g''/2 Var(S) with
    # g = Phibar(c_p .), sup_{x >= 0} g'' = c_p^2 sup x phi(x) = c_p^2 phi(1); plus the quadrature error
    e1, e2, _ = mp_spacing_moments(p, 4)
    c = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1)))
    jensen = mp_phibar(c * e1)
    second_order = mpmath.log10(1 + c * c * mpmath.npdf(1) / 2 * (e2 - e1 * e1) / jensen)
    assert exact - bound <= second_order + error
    # the issue's independent evaluation: the Jensen bound is within 0.4% of the exact log10
    assert (exact - bound) / abs(exact) < 0.004


@pytest.mark.parametrize("p, reference", [(5, "-2.7715"), (13, "-7.3431")])
def test_exact_probability_matches_the_issue_reference_values(p, reference):
    exact, error = mp_exact_log10(p)
    assert abs(exact - mpmath.mpf(reference)) <= mpmath.mpf("0.00005") + error  # given to 4 decimals


@pytest.mark.parametrize("p", [5, 13, 101, 1009])
def test_lower_bound_equals_the_jensen_value_by_mpmath(p):
    # log Phibar(c_p E[S]) - log(C(2p, p) - 1) with E[S] from mpmath: the kernel's exact point is at or
    # below it, by no more than its ball's radius (~2^-PREC relative) plus the 40-digit quadrature
    if p <= 101:
        spacing, _ = mp_expected_spacing(p)
    else:
        spacing = None
    with mpmath.workdps(40):
        if spacing is None:
            lo, hi = ball_interval(expected_spacing_upper(p, PREC))  # (checked against mpmath at p <= 101)
            spacing = (lo + hi) / 2
        c = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1)))
        value = mpmath.log(mp_phibar(c * spacing)) - mpmath.log(mpmath.binomial(2 * p, p) - 1)
        bound = dead_region_log_probability_lower(p, PREC)
        point = ball_point(bound)
        assert value - abs(value) * mpmath.mpf(2) ** -(PREC - 8) <= point <= value + mpmath.mpf(10) ** -30 * abs(value)


@pytest.mark.parametrize("p, n, seed", [(5, 2_000_000, 31), (7, 3_000_000, 32)])
def test_dead_region_probability_by_monte_carlo(p, n, seed):
    active, _, dead, _, _ = dead_region_sample(p, 1.0, n, seed)
    exact = float(mpmath.mpf(10) ** mp_exact_log10(p)[0])
    assert abs(dead / active - exact) <= K_SE * binomial_se(exact, active)
    # and the certified bound is below the exact value
    assert float(dead_region_log10_probability_lower(p, PREC).mid()) < math.log10(exact)


def test_dead_region_probability_does_not_depend_on_sigma():
    p, n = 5, 2_000_000
    active_1, _, dead_1, _, _ = dead_region_sample(p, 1.0, n, 31)
    active_3, _, dead_3, _, _ = dead_region_sample(p, 3.0, n, 41)
    q1, q3 = dead_1 / active_1, dead_3 / active_3
    assert abs(q1 - q3) <= K_SE * math.hypot(binomial_se(q1, active_1), binomial_se(q3, active_3))


def test_region_is_a_cone():
    # the defining inequalities are homogeneous: scaling one sample by 3 keeps every verdict
    a1 = sample_dead_region(5, 1.0, 100_000, 51)
    a3 = sample_dead_region(5, 3.0, 100_000, 51)
    assert a1[:3] == a3[:3]


# ---------------------------------------------------------------- tail bound, input, large p

@pytest.mark.parametrize("p, cutoff", [(5, 2), (5, 4), (13, 3), (101, 5)])
def test_tail_bound_is_above_the_tail(p, cutoff):
    with mpmath.workdps(30):
        f = lambda t: (1 - mpmath.erf(t / mpmath.sqrt(2 * p)) ** 2) ** p
        tail = mpmath.quad(f, [cutoff, 2 * cutoff, 4 * cutoff, mpmath.inf])
        lo, hi = ball_interval(spacing_integral_tail_bound(p, cutoff, PREC))
        assert tail <= lo  # the bound lies above the tail at every point of its ball


@pytest.mark.parametrize("p", [1, 2, 3, 4, 9, 15, 25, -7, 10**6])
def test_bad_p_is_refused(p):
    for function in (expected_spacing_upper, dead_region_log_probability_lower, dead_region_log10_probability_lower):
        with pytest.raises(InputError, match="p = |prime"):
            function(p, PREC)


@pytest.mark.parametrize("value", [5.0, "5", True, None])
def test_p_of_the_wrong_type_is_refused(value):
    with pytest.raises(InputError, match="integer"):
        dead_region_log_probability_lower(value, PREC)


@pytest.mark.parametrize("prec", [0, 8, 64.0, None])
def test_bad_precision_is_refused(prec):
    with pytest.raises(InputError, match="precision"):
        expected_spacing_upper(5, prec)


@pytest.mark.parametrize("p", [1_000_003, 999_999_999_999_999_989])
def test_huge_p_matches_the_asymptotics(p):
    """Huge p works (its time per call is a benchmark figure: tests/bench_region.py, not a timed test)."""
    bound = dead_region_log10_probability_lower(p, PREC)
    # p E[S] = sqrt(pi/2) (1 + (pi/8 - 1/2)/p + O(p^-2)): the 1/p term from C(2p,p) 4^-p sqrt(pi p) =
    # 1 - 1/(8p) + ... and p log h(t/sqrt p) = -2t^2/pi + (2/(3 pi) - 2/pi^2) t^4/p + ...;
    # the remainder is allowed 10/p^2 (model error)
    with mpmath.workdps(40):
        lo, hi = ball_interval(expected_spacing_upper(p, PREC))
        predicted = mpmath.sqrt(mpmath.pi / 2) * (1 + (mpmath.pi / 8 - mpmath.mpf(1) / 2) / p)
        assert abs(p * lo / predicted - 1) <= mpmath.mpf(10) / p ** 2 + mpmath.mpf(2) ** -(PREC - 4)
        # log10 P -> log10(1/2) - log10 C(2p, p) as c_p E[S] -> 0 (Phibar(x) >= 1/2 - x phi(0))
        log10_c = (mpmath.loggamma(2 * p + 1) - 2 * mpmath.loggamma(p + 1)) / mpmath.log(10)
        upper = mpmath.log10(mpmath.mpf(1) / 2) - log10_c
        lower = mpmath.log10(mpmath.mpf(1) / 2 - mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * hi * mpmath.npdf(0)) \
            - log10_c
        point = ball_point(bound)
        assert lower - abs(lower) * mpmath.mpf(2) ** -(PREC - 8) <= point <= upper


def test_the_dead_certificate_states_the_region_bound_and_the_checker_rechecks_it():
    """The claim region_probability of a dead certificate: its log10_lo is at most the kernel's bound (written
    rounded down), and a lo moved just above the bound is rejected by certify check."""
    import json
    from fractions import Fraction

    from flint import fmpq

    from certify.check import check_bytes
    from certify.kernel.exact import format_rational
    from certify.theorems.dead import certify_dead

    document = certify_dead(13).certificate
    claim = document["claims"]["region_probability"]
    assert claim["scope"] == "region" and "R_dead" in claim["statement"] and "sigma" in claim["statement"]
    # the claim states the kernel's natural-log bound at the fixed REGION_PRECISION rounded down to a multiple
    # of 2^-40 (the same point at every certificate precision); its log10_lo is that point over ln 10, written
    # rounded down: within 2^-40 (+ the rounding of 36 digits) below the bound computed at 128 bits
    point = dead_region_claim_log_lower(13)
    assert point.rad() == 0 and (point.mid().fmpq() * 2**40).q == 1
    full = dead_region_log_probability_lower(13, 128)
    with mpmath.workdps(60):
        stated, bound = (mpmath.mpf(x.mid().str(60, radius=False)) for x in (point, full))
        assert 0 <= bound - stated < mpmath.mpf(2) ** -40
        log10_lo = mpmath.mpf(claim["log10_lo"])
        assert 0 <= stated / mpmath.log(10) - log10_lo < mpmath.mpf(10) ** -30
    assert float(claim["log10_lo"]) < -7.3430  # the exact value is -7.343070 (quadrature above)
    assert check_bytes(json.dumps(document).encode(), "dead-13").status == "verified"
    raised = Fraction(claim["lo"]) * (1 + Fraction(1, 10 ** 30))  # past the truth: lo is ~1e-37 below it
    forged = json.loads(json.dumps(document))
    forged["claims"]["region_probability"]["lo"] = format_rational(fmpq(raised.numerator, raised.denominator))
    assert check_bytes(json.dumps(forged).encode(), "forged").status == "rejected"


# ---------------------------------------------------------------- (e)-(k) one-gate regions: the lower sum
# "docs, (g)" is paragraph (g) of docs/mathematics.md, section 'Region probability of the dead theorem'.

#: The chord rule loses at most a factor exp(K d^2/8) on a cell of width d, K = 2 a bound on -(log g)'' in
#: xi = sqrt(p) x (docs, (g)); the widest cell is d = 1/4, so every bin keeps at least this fraction of its
#: integral over the nodes' range [-6, 6].
CHORD_FACTOR = math.exp(-2 * 0.25 ** 2 / 8)
XI_END = 6  # the kernel's x-range in xi (docs, (g))


def mp_rational(value: fmpq):
    return mpmath.mpf(int(value.p)) / int(value.q)


@lru_cache(maxsize=None)
def mp_bin_probabilities(p: int, edges: tuple, xi_end=None, degree: int = 3, dps: int = 20):
    """P(e_{i-1} < S <= e_i) = p C(2p,p) int Phi^(p-1) phi [Phibar(x + e_{i-1})^p - Phibar(x + e_i)^p] dx for every
    bin, by one fixed Gauss-Legendre rule (3 * 2^(degree-1) nodes per panel) on panels geometric around 0 out to
    |x| = 8 (what lies beyond is below Phi(-8)^4 ~ 1e-60), or out to |x| = xi_end/sqrt(p) (the kernel's range)."""
    with mpmath.workdps(dps):
        r = mpmath.sqrt(p)
        end = mpmath.mpf(8) if xi_end is None else mpmath.mpf(xi_end) / r
        right = sorted({min(end, mpmath.mpf(2) ** k / r) for k in range(-2, 8)})
        nodes = _panels([-x for x in reversed(right)] + [mpmath.mpf(0)] + right, degree, dps)
        shifts = [mp_rational(fmpq(e)) for e in edges]
        sums = [mpmath.mpf(0)] * (len(edges) - 1)
        for x, w in nodes:
            left = w * mp_phi_cdf(x) ** (p - 1) * mpmath.npdf(x)
            tails = [mp_phibar(x + e) ** p for e in shifts]
            for i in range(len(sums)):
                sums[i] += left * (tails[i] - tails[i + 1])
        k = p * mpmath.binomial(2 * p, p)  # (2p)!/((p-1)! p!), from K/p with K = (2p)!/((p-1)!)^2
        return tuple(k * value for value in sums)


def mp_bins_with_error(p: int, edges: tuple, xi_end=None):
    """The bin probabilities and an error estimate for each: the difference from the rule with half the nodes
    per panel (pessimistic), plus the 20-digit working precision."""
    fine, coarse = mp_bin_probabilities(p, edges, xi_end, 3), mp_bin_probabilities(p, edges, xi_end, 2)
    return fine, tuple(abs(a - b) + mpmath.mpf(10) ** -17 for a, b in zip(fine, coarse))


def mp_tau(p: int):
    return mpmath.sqrt(mpmath.mpf(p - 1) / p)


def mp_smooth_ratio(s, eps):
    """sigma_eps(s)/sigma_eps'(s) from the definition sigma_eps(z) = z psi(z/eps), psi = f(t)/(f(t) + f(1-t)),
    f(t) = exp(-1/t): psi is the logistic function of g(t) = 1/(1-t) - 1/t, so psi' = psi (1 - psi) g' and
    sigma/sigma' = s psi/(psi + t psi') = s/(1 + t (1 - psi) g'), g' = 1/t^2 + 1/(1-t)^2 (t = s/eps in (0, 1));
    s for s >= eps."""
    t = s / eps
    if t >= 1:
        return s
    g = 1 / (1 - t) - 1 / t
    one_minus_psi = 1 / (1 + mpmath.exp(g))
    return s / (1 + t * one_minus_psi * (1 / t ** 2 + 1 / (1 - t) ** 2))


@lru_cache(maxsize=None)
def mp_dead_zone_integral(eps: fmpq, dps: int = 30):
    """J(eps) = int_0^eps sigma_eps/sigma_eps' by mpmath (tanh-sinh handles the flat ends)."""
    with mpmath.workdps(dps):
        e = mp_rational(eps)
        return mpmath.quad(lambda s: mp_smooth_ratio(s, e), [0, e / 2, e])


def mp_z(theorem: str, p: int, params: tuple):
    """z(t) = theta(sigma t)/(sigma tau_p) of the region as the kernel bounds it (for smooth with the upper bound
    J_hi(s) = min(s^2/2, J(eps)) (s <= eps), J(eps) + (s^2 - eps^2)/2 (s > eps) of J, J(eps) by mpmath), and the
    kinks of z."""
    tau = mp_tau(p)
    if theorem == "dead":
        return (lambda t: t / (mpmath.sqrt(2) * tau)), []
    if theorem == "gd":
        (eta,) = params
        return (lambda t: p * p * t / (2 * mp_rational(fmpq(eta)) * tau)), []
    sigma, eps = (mp_rational(fmpq(x)) for x in params)
    j_eps = mp_dead_zone_integral(fmpq(params[1]))

    def z(t):
        s = sigma * t
        j = min(s * s / 2, j_eps) if s <= eps else j_eps + (s * s - eps * eps) / 2
        return mpmath.sqrt(j) / (sigma * tau)

    return z, [mpmath.sqrt(2 * j_eps) / sigma, eps / sigma]


def mp_psi(theorem: str, p: int, params: tuple):
    """psi(t) = Phibar(z(t)) (see mp_z), and the kinks of psi."""
    z, kinks = mp_z(theorem, p, params)
    return (lambda t: mp_phibar(z(t))), kinks


@lru_cache(maxsize=None)
def mp_expected_psi(theorem: str, p: int, params: tuple, degree: int = 3, dps: int = 20):
    """E[psi(S)] by a tensor Gauss-Legendre rule over the joint density of (X_(p), X_(p) + s) (as in
    mp_spacing_moments), with s-panels geometric on the smaller of the scales 1/p of S and 1/z'(0) of psi and
    breaks at the kinks of psi; s up to 12 (P(S > 12) < 1e-40)."""
    psi, kinks = mp_psi(theorem, p, params)
    with mpmath.workdps(dps):
        r = mpmath.sqrt(p)
        scale = mpmath.mpf(1) / p
        if theorem == "gd":
            scale = min(scale, 2 * mp_rational(fmpq(params[0])) / p ** 2)
        right = sorted({min(mpmath.mpf(8), mpmath.mpf(2) ** k / r) for k in range(-1, 8)})
        x_nodes = _panels([-x for x in reversed(right)] + [mpmath.mpf(0)] + right, degree, dps)
        s_points = sorted({mpmath.mpf(0), *[k for k in kinks if k < 12],
                           *[min(mpmath.mpf(12), scale * 2 ** k) for k in range(-3, 14)]})
        left = [(x, w * mp_phi_cdf(x) ** (p - 1) * mpmath.npdf(x)) for x, w in x_nodes]
        total = mpmath.mpf(0)
        for s, ws in _panels(s_points, degree, dps):
            inner = mpmath.fsum(wx * mp_phibar(x + s) ** (p - 1) * mpmath.npdf(x + s) for x, wx in left)
            total += ws * inner * psi(s)
        return mpmath.factorial(2 * p) / mpmath.factorial(p - 1) ** 2 * total


def mp_expected_psi_with_error(theorem: str, p: int, params: tuple):
    fine, coarse = mp_expected_psi(theorem, p, params, 3), mp_expected_psi(theorem, p, params, 2)
    return fine, abs(fine - coarse) + mpmath.mpf(10) ** -17


def kernel_z_upper(theorem: str, p: int, params: tuple):
    if theorem == "dead":
        return dead_region_z_upper(p)
    if theorem == "gd":
        return gd_region_z_upper(p, *params)
    sigma, eps = params
    return smooth_region_z_upper(p, sigma, eps, kernel_dead_zone_upper(eps))


def kernel_dead_zone_upper(eps):
    """J(eps)'s upper ball as a caller passes it (certify.kernel.smooth, docs 'Smooth dead zone')."""
    from certify.kernel.smooth import dead_zone_integral
    return dead_zone_integral(fmpq(eps), fmpq(eps), PREC)[1]


def kernel_region_bound(theorem: str, p: int, params: tuple, prec: int = PREC):
    if theorem == "dead":
        return dead_region_binned_log_probability_lower(p, prec)
    if theorem == "gd":
        return gd_region_log_probability_lower(p, *params, prec)
    sigma, eps = params
    return smooth_region_log_probability_lower(p, sigma, eps, kernel_dead_zone_upper(eps), prec)


def kernel_expectation_lower(theorem: str, p: int, params: tuple):
    """The kernel's bound of E[psi(S)] = P(R | one active gate): exp(log lo + log(C(2p,p) - 1)), exactly."""
    with mpmath.workdps(40):
        return mpmath.exp(ball_point(kernel_region_bound(theorem, p, params)) + mpmath.log(math.comb(2 * p, p) - 1))


@lru_cache(maxsize=None)
def grid_sums(theorem: str, p: int, params: tuple):
    """For the kernel's grid 0 = t_0 < t_1 < ... < t_m: the lower sum L = sum psi(t_i) P_i, the upper sum
    U = sum psi(t_{i-1}) P_i + psi(t_m) P(S > t_m) >= E[psi(S)] (psi decreases), and the lower sum L6 of the
    bins restricted to |xi| <= 6, each lowered by its quadrature error."""
    grid = one_gate_region_grid(p, kernel_z_upper(theorem, p, params))
    edges = (fmpq(0), *grid)
    psi, _ = mp_psi(theorem, p, params)
    values = [psi(mp_rational(t)) for t in edges]
    full, full_error = mp_bins_with_error(p, edges)
    cut, cut_error = mp_bins_with_error(p, edges, XI_END)
    lower = mpmath.fsum((q - e) * v for q, e, v in zip(full, full_error, values[1:]))
    lower_6 = mpmath.fsum((q - e) * v for q, e, v in zip(cut, cut_error, values[1:]))
    tail = 1 - mpmath.fsum(full) + mpmath.fsum(full_error)
    upper = mpmath.fsum((q + e) * v for q, e, v in zip(full, full_error, values[:-1])) + tail * values[-1]
    return lower, upper, lower_6, len(grid)


REGION_CASES = [("dead", 5, ()), ("dead", 13, ()), ("dead", 31, ()),
                ("gd", 5, (1,)), ("gd", 13, (1,)), ("gd", 31, (fmpq(1, 2),)),
                ("smooth", 5, (1, fmpq(1, 2))), ("smooth", 13, (1, fmpq(5, 26))), ("smooth", 31, (2, fmpq(5, 31)))]


@pytest.mark.parametrize("p, a, b", [(5, 0, fmpq(1, 4)), (5, fmpq(1, 4), fmpq(3, 10)), (5, 1, 3),
                                     (7, 0, fmpq(1, 1000)), (7, fmpq(1, 7), fmpq(2, 7)), (13, fmpq(1, 13), 1)])
def test_bin_probability_against_mpmath_quadrature(p, a, b):
    (value,), (error,) = mp_bins_with_error(p, (fmpq(a), fmpq(b)))
    (cut,), (cut_error,) = mp_bins_with_error(p, (fmpq(a), fmpq(b)), XI_END)
    bound = spacing_bin_probability_lower(p, a, b, PREC)
    point = ball_point(bound)
    assert point <= value + error  # a lower bound of the whole probability
    assert point >= CHORD_FACTOR * (cut - cut_error)  # and no looser than the chord rule allows (docs, (g))


def test_bin_probability_formula_against_the_joint_density():
    # p C(2p,p) int Phi^(p-1) phi [Phibar(x+a)^p - Phibar(x+b)^p] against the integral of the joint density of
    # (X_(p), X_(p+1)) over a < y - x <= b (the s-integral of mp_spacing_moments' inner sum), p = 5, (0, 1/4]
    p = 5
    (value,), _ = mp_bins_with_error(p, (fmpq(0), fmpq(1, 4)))
    with mpmath.workdps(20):
        x_nodes = _panels([mpmath.mpf(k) / 2 for k in range(-10, 11)], 3, 20)  # beyond |x| = 5: < Phi(-5)^5
        s_nodes = _panels([mpmath.mpf(k) / 16 for k in range(5)], 3, 20)
        k = mpmath.factorial(2 * p) / mpmath.factorial(p - 1) ** 2
        density = mpmath.fsum(ws * wx * mp_phi_cdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.npdf(x + s)
                              * mp_phibar(x + s) ** (p - 1) for s, ws in s_nodes for x, wx in x_nodes)
        assert abs(k * density - value) < mpmath.mpf(10) ** -12  # 12-point rules on panels of an entire integrand


@pytest.mark.parametrize("p, n, seed", [(5, 400_000, 61)])
def test_bin_probability_against_monte_carlo_of_the_spacing(p, n, seed):
    x = np.random.default_rng(seed).standard_normal((n, 2 * p))
    middle = np.partition(x, (p - 1, p), axis=1)
    spacing = middle[:, p] - middle[:, p - 1]
    for a, b in [(0, fmpq(1, 8)), (fmpq(1, 8), fmpq(1, 4)), (fmpq(1, 4), fmpq(1, 2)), (fmpq(1, 2), 2)]:
        frequency = float(((spacing > float(a)) & (spacing <= float(b))).mean())
        bound = float(spacing_bin_probability_lower(p, a, b, PREC))
        assert bound <= frequency + K_SE * binomial_se(frequency, n)
        assert bound >= CHORD_FACTOR * (frequency - K_SE * binomial_se(frequency, n)) - 1e-8  # [-6, 6] keeps all
        # but ~1e-8 of the mass at p = 5 (the tails of X_(p) beyond |x| = 6/sqrt 5, by the quadrature above)


def test_bin_probability_refuses_bad_input():
    with pytest.raises(InputError, match="a < b"):
        spacing_bin_probability_lower(5, fmpq(1, 2), fmpq(1, 2), PREC)
    with pytest.raises(InputError, match="a >= 0"):
        spacing_bin_probability_lower(5, -1, 1, PREC)
    with pytest.raises(InputError, match="exact rational"):
        spacing_bin_probability_lower(5, 0, 0.5, PREC)
    with pytest.raises(InputError, match="prime"):
        spacing_bin_probability_lower(9, 0, 1, PREC)


@pytest.mark.parametrize("theorem, p, params", REGION_CASES)
def test_z_upper_bounds_the_threshold(theorem, p, params):
    # the contract of z_upper: its upper end is >= z(t) of the oracle at every t tried, and close to it (the
    # smooth oracle's J(eps) is mpmath's, the kernel's the upper end of a 64-bit ball: 1e-15 apart at most)
    z_upper = kernel_z_upper(theorem, p, params)
    for t in [fmpq(k, 16 * p) for k in (1, 3, 8, 16, 40, 100)] + one_gate_region_grid(p, z_upper)[::7]:
        with mpmath.workdps(30):  # the oracle's constant tau_p too: computed at 13 digits it alone is 3e-15 off
            z, _ = mp_z(theorem, p, params)
            value = z(mp_rational(t))
            upper = ball_interval(z_upper(t))[1]
            assert value - mpmath.mpf(10) ** -25 * value <= upper <= value * (1 + mpmath.mpf(10) ** -15)


@pytest.mark.parametrize("theorem, p, params", REGION_CASES)
def test_region_bound_is_the_lower_sum_of_its_grid(theorem, p, params):
    # the kernel's E[psi(S)] bound lies between the chord-rule value of the lower sum and the lower sum itself
    lower, _, lower_6, _ = grid_sums(theorem, p, params)
    bound = kernel_expectation_lower(theorem, p, params)
    assert CHORD_FACTOR * lower_6 <= bound <= lower


@pytest.mark.parametrize("theorem, p, params", REGION_CASES)
def test_region_bound_against_mpmath_quadrature(theorem, p, params):
    # below E[psi(S)] and within the slack of its grid: E <= U, so bound >= CHORD L6 >= (CHORD L6/U) E
    exact, error = mp_expected_psi_with_error(theorem, p, params)
    lower, upper, lower_6, bins = grid_sums(theorem, p, params)
    assert lower - error <= exact <= upper + error  # the oracle agrees with the grid's sums
    bound = kernel_expectation_lower(theorem, p, params)
    assert bound <= exact + error
    slack = 1 - CHORD_FACTOR * lower_6 / upper
    assert bound >= (1 - slack) * (exact - error)
    # the slack of the grid is first order, ~ 1/bins (docs, (h)): at most 5/bins + the chord's 1.6%
    assert slack <= 5 / bins + (1 - CHORD_FACTOR)


@pytest.mark.parametrize("p", [5, 13, 31])
def test_dead_lower_sum_is_valid_but_jensen_is_tighter(p):
    # the comparison behind keeping Jensen for R_dead (docs, (i)): both are below the exact value, Jensen higher
    exact, error = mp_exact_log10(p)
    jensen = ball_point(dead_region_log10_probability_lower(p, PREC))
    with mpmath.workdps(40):
        binned = ball_point(dead_region_binned_log_probability_lower(p, PREC)) / mpmath.log(10)
    assert binned < jensen < exact - error


@pytest.mark.parametrize("p", [101, 1009, 1_000_003])
def test_dead_lower_sum_is_below_jensen_at_large_p(p):
    # at large p the Jensen gap is O(1/p^2) while the lower sum keeps the chord rule's loss (docs, (i))
    binned = ball_point(dead_region_binned_log_probability_lower(p, PREC))
    jensen = ball_point(dead_region_log_probability_lower(p, PREC))
    assert binned < jensen
    assert jensen - binned < 1 - CHORD_FACTOR + 10 / p  # the chord bound plus the grid's O(1/p) slack


def sample_one_gate_points(p: int, sigma: float, n: int, seed: int):
    """theta(0) ~ N(0, sigma^2 I_{3p}) conditioned on exactly one active gate, drawn directly: given that event the
    ascending block pattern of {u(a)} and {-v(b)} is U^(p-1) V U V^(p-1) ((a)), the ordered values are the order
    statistics of 2p iid N(0, sigma^2) whatever the pattern ((b)), and the labels are a uniform assignment
    consistent with the pattern; w is independent."""
    rng = np.random.default_rng(seed)
    x = sigma * np.sort(rng.standard_normal((n, 2 * p)), axis=1)
    u = rng.permuted(np.concatenate([x[:, :p - 1], x[:, p:p + 1]], axis=1), axis=1)
    v = -rng.permuted(np.concatenate([x[:, p - 1:p], x[:, p + 1:]], axis=1), axis=1)
    w = sigma * rng.standard_normal((n, p))
    return u, v, w


def one_gate_coordinates(u, v, w):
    """(active gate count, a*, b*, s, gamma_y) of each row, from the 3p coordinates."""
    n, p = u.shape
    gates = (u[:, :, None] + v[:, None, :]).reshape(n, p * p)
    flat = gates.argmax(axis=1)
    a_star, b_star = np.divmod(flat, p)
    rows = np.arange(n)
    y = (a_star + b_star) % p
    return (gates > 0).sum(axis=1), a_star, b_star, gates[rows, flat], w.mean(axis=1) - w[rows, y]


def smooth_dead_zone_table(eps: float, points: int = 200_001):
    """J(s) on a uniform grid of [0, eps] by the trapezoid rule on sigma/sigma' = s/(1 + t(1 - psi) g')
    (mp_smooth_ratio's formula in numpy; the integrand is smooth with |f''| <= 10/eps, so the error is below
    eps^3 10/(12 (points-1)^2) ~ 2e-11 eps^2, far below any gap the Monte Carlo resolves)."""
    s = np.linspace(0.0, eps, points)
    t = np.clip(s / eps, 1e-150, 1 - 1e-16)  # 1/t^2 stays finite; the ratio there is ~ s t
    with np.errstate(over="ignore"):
        one_minus_psi = 1 / (1 + np.exp(1 / (1 - t) - 1 / t))
    ratio = s / (1 + t * one_minus_psi * (1 / t ** 2 + 1 / (1 - t) ** 2))
    ratio[0] = 0.0
    table = np.concatenate([[0.0], np.cumsum((ratio[1:] + ratio[:-1]) / 2 * (s[1] - s[0]))])
    return s, table


def region_memberships(theorem: str, p: int, params: tuple, s, gamma):
    """{name: boolean array} of the region's defining inequalities at each point (and, for smooth, the relaxed
    region gamma^2 > J_hi(s) that the kernel bounds)."""
    if theorem == "dead":
        return {"region": (gamma > 0) & (gamma ** 2 > s ** 2 / 2)}
    if theorem == "gd":
        eta = float(params[0])
        return {"region": s < 2 * eta * gamma / p ** 2}
    sigma, eps = (float(x) for x in params)
    grid, table = smooth_dead_zone_table(eps)
    j_eps = table[-1]
    j = np.where(s <= eps, np.interp(np.minimum(s, eps), grid, table), j_eps + (s ** 2 - eps ** 2) / 2)
    j_hi = np.where(s <= eps, np.minimum(s ** 2 / 2, j_eps), j_eps + (s ** 2 - eps ** 2) / 2)
    return {"region": (gamma > 0) & (gamma ** 2 > j), "relaxed": (gamma > 0) & (gamma ** 2 > j_hi)}


@lru_cache(maxsize=None)
def one_gate_region_frequencies(theorem: str, p: int, params: tuple, sigma: float, n: int, seed: int):
    counts, chunk = {}, 100_000
    for start in range(0, n, chunk):
        u, v, w = sample_one_gate_points(p, sigma, min(chunk, n - start), seed + start)
        active, _, _, s, gamma = one_gate_coordinates(u, v, w)
        assert (active == 1).all() and (s > 0).all()  # the sampler draws exactly the one-active-gate event
        for name, member in region_memberships(theorem, p, params, s, gamma).items():
            counts[name] = counts.get(name, 0) + int(member.sum())
    return {name: count / n for name, count in counts.items()}


MC_CASES = [("dead", 5, (), 400_000, 71), ("gd", 5, (1,), 400_000, 72), ("gd", 7, (2,), 400_000, 73),
            ("smooth", 5, (1, fmpq(1, 2)), 400_000, 74), ("smooth", 7, (1, fmpq(5, 14)), 400_000, 75)]


@pytest.mark.parametrize("theorem, p, params, n, seed", MC_CASES)
def test_region_bound_against_monte_carlo_on_the_coordinates(theorem, p, params, n, seed):
    sigma = float(params[0]) if theorem == "smooth" else 1.0
    frequencies = one_gate_region_frequencies(theorem, p, params, sigma, n, seed)
    bound = float(kernel_expectation_lower(theorem, p, params))
    lower, upper, lower_6, _ = grid_sums(theorem, p, params)
    keep = float(CHORD_FACTOR * lower_6 / upper)  # the fraction of E[psi(S)] the grid and the chord rule keep
    q = frequencies["region"]
    assert bound <= q + K_SE * binomial_se(q, n)
    bounded = frequencies.get("relaxed", q)  # for smooth the kernel bounds the relaxed region, a subset
    assert bounded <= q
    assert bound >= keep * (bounded - K_SE * binomial_se(bounded, n))


def test_gd_region_dies_in_one_step_at_every_sampled_point():
    # (A.70), (A.53) at general points: one full-batch step (only the active example has a gradient, ReLU'(0) = 0)
    # from each sampled point of R_gd leaves every gate strictly negative
    p, eta = 5, 1.0
    u, v, w = sample_one_gate_points(p, 1.0, 50_000, 81)
    _, a_star, b_star, s, gamma = one_gate_coordinates(u, v, w)
    inside = s < 2 * eta * gamma / p ** 2
    assert inside.sum() > 2000
    rows = np.arange(len(s))[inside]
    logits = s[inside, None] * w[inside]
    q = np.exp(logits - logits.max(axis=1, keepdims=True))
    q /= q.sum(axis=1, keepdims=True)
    y = (a_star[inside] + b_star[inside]) % p
    d = (q * w[inside]).sum(axis=1) - w[inside][np.arange(len(rows)), y]  # D(s, w) = sum_c q_c w(c) - w(y)
    assert (d >= gamma[inside]).all()  # (A.53)
    u1, v1 = u[inside].copy(), v[inside].copy()
    u1[np.arange(len(rows)), a_star[inside]] -= eta * d / p ** 2
    v1[np.arange(len(rows)), b_star[inside]] -= eta * d / p ** 2
    assert ((u1[:, :, None] + v1[:, None, :]) < 0).all()


def test_gd_region_is_a_cone_and_its_bound_does_not_depend_on_sigma():
    # (A.71) is homogeneous: scaling every coordinate by 3 keeps every verdict, so P(R_gd) is the same for all
    # sigma, and the kernel's bound takes no sigma
    u, v, w = sample_one_gate_points(5, 1.0, 20_000, 82)
    verdicts = []
    for scale in (1.0, 3.0):
        _, _, _, s, gamma = one_gate_coordinates(scale * u, scale * v, scale * w)
        verdicts.append(region_memberships("gd", 5, (1,), s, gamma)["region"])
    assert (verdicts[0] == verdicts[1]).all()
    assert "sigma" not in gd_region_log_probability_lower.__code__.co_varnames


def test_smooth_bound_equals_the_dead_lower_sum_when_eps_is_large():
    # two ways: for sigma t_m <= sqrt(2 J(eps)) the bound min(s^2/2, J(eps)) is s^2/2 at every grid point, the
    # threshold of R_dead, so the smooth bound is the dead lower sum (to the last bits of the balls)
    eps = 64
    j_upper = kernel_dead_zone_upper(eps)
    grid = one_gate_region_grid(5, dead_region_z_upper(5))
    assert 2 * ball_interval(j_upper)[0] > mp_rational(grid[-1]) ** 2
    smooth = ball_point(smooth_region_log_probability_lower(5, 1, eps, j_upper, PREC))
    dead = ball_point(dead_region_binned_log_probability_lower(5, PREC))
    assert abs(smooth - dead) <= abs(dead) * mpmath.mpf(2) ** -(PREC - 8)


def test_smooth_bound_depends_on_sigma_through_the_dead_zone():
    # the smooth region is no cone: with eps = 1/2 a larger sigma moves s past the dead zone, where J grows
    # like s^2/2 again; the bound must stay below the Monte Carlo estimate in each case (above) and change
    j_upper = kernel_dead_zone_upper(fmpq(1, 2))
    values = {sigma: ball_point(smooth_region_log_probability_lower(5, sigma, fmpq(1, 2), j_upper, PREC))
              for sigma in (fmpq(1, 10), 1, 4)}
    assert len(set(values.values())) == 3


def test_region_bounds_do_not_depend_on_the_ambient_precision():
    reference = gd_region_log_probability_lower(13, 1, PREC)
    grid = one_gate_region_grid(13, gd_region_z_upper(13, 1))
    saved = ctx.prec
    try:
        for ambient in (20, 53, 300):
            ctx.prec = ambient
            assert gd_region_log_probability_lower(13, 1, PREC).mid().man_exp() == reference.mid().man_exp()
            assert one_gate_region_grid(13, gd_region_z_upper(13, 1)) == grid
    finally:
        ctx.prec = saved


def test_grid_is_dyadic_increasing_and_deterministic():
    for p, z_upper in [(5, gd_region_z_upper(5, 1)), (1_000_003, gd_region_z_upper(1_000_003, fmpq(1, 10**9))),
                       (13, dead_region_z_upper(13))]:
        grid = one_gate_region_grid(p, z_upper)
        assert grid == one_gate_region_grid(p, z_upper)
        assert 1 < len(grid) <= 64 and all(0 < a < b for a, b in zip(grid, grid[1:]))
        assert all(int(t.q) & (int(t.q) - 1) == 0 for t in grid)  # denominators are powers of 2


@pytest.mark.parametrize("p", [1_000_003, 999_999_999_999_999_989])
def test_gd_bound_at_huge_p_matches_the_small_spacing_asymptotics(p):
    # z(t) = p^2 t/(2 eta tau) lives on t ~ 1/p^2 where the density of S is f_S(0) ~ p sqrt(2/pi), so
    # E[psi(S)] ~ f_S(0) 2 eta tau phi(0)/p^2 ~ 2 eta/(pi p); the bound keeps at least CHORD (5/64 + 0) of it
    # (the slack of test_region_bound_against_mpmath_quadrature) and the model error is O(1/p)
    with mpmath.workdps(40):
        expectation = mpmath.exp(ball_point(gd_region_log_probability_lower(p, 1, PREC))
                                 + mpmath.log(mpmath.binomial(2 * p, p) - 1))
        ratio = expectation / (2 / (mpmath.pi * p))
        assert CHORD_FACTOR * (1 - mpmath.mpf(5) / 64) - mpmath.mpf(10) / p <= ratio <= 1 + mpmath.mpf(10) / p


@pytest.mark.parametrize("call, error, match", [
    (lambda: gd_region_log_probability_lower(5, 0, PREC), HypothesisError, "eta > 0"),
    (lambda: gd_region_log_probability_lower(5, fmpq(-1, 2), PREC), HypothesisError, "eta > 0"),
    (lambda: gd_region_log_probability_lower(5, 0.5, PREC), InputError, "exact rational"),
    (lambda: gd_region_log_probability_lower(9, 1, PREC), InputError, "not prime"),
    (lambda: gd_region_log_probability_lower(3, 1, PREC), InputError, "p >= 5"),
    (lambda: gd_region_log_probability_lower(5, 1, 8), InputError, "precision"),
    (lambda: gd_region_log_probability_lower(5, 1, PREC, bins=0), InputError, "bins"),
    (lambda: smooth_region_log_probability_lower(5, 0, 1, ball(1), PREC), HypothesisError, "sigma > 0"),
    (lambda: smooth_region_log_probability_lower(5, 1, 0, ball(1), PREC), HypothesisError, "eps_smooth > 0"),
    (lambda: smooth_region_log_probability_lower(5, 1, -1, ball(1), PREC), HypothesisError, "eps_smooth > 0"),
    (lambda: smooth_region_log_probability_lower(5, 1, 1, ball(0), PREC), InputError, "J_eps_upper"),
    (lambda: smooth_region_log_probability_lower(5, 1, 1, 0.1, PREC), InputError, "J_eps_upper"),
    (lambda: smooth_region_log_probability_lower(15, 1, 1, ball(1), PREC), InputError, "not prime"),
    (lambda: dead_region_binned_log_probability_lower(4, PREC), InputError, "p = 4"),
    (lambda: one_gate_region_log_probability_lower(5, lambda t: arb("nan"), PREC), NotCertified, "z_upper"),
])
def test_one_gate_region_bounds_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_dead_and_smooth_bounds_do_not_depend_on_the_ambient_precision():
    """dead_region_log_probability_lower and smooth_region_log_probability_lower round upper ends inside
    their own precision: the exact points they return are the same at ambient precision 20, 53 and 300."""
    from flint import ctx

    from certify.kernel.balls import ball
    from certify.kernel.region import dead_region_log_probability_lower, smooth_region_log_probability_lower

    saved = ctx.prec
    results = []
    try:
        for ambient in (20, 53, 300):
            ctx.prec = ambient
            J = ball(fmpq(3, 2)) + arb(0, 1) * ball(fmpq(1, 10**40))  # a ball whose upper end needs > 20 bits
            results.append((dead_region_log_probability_lower(7, 64), smooth_region_log_probability_lower(5, 1, 2, J, 64)))
    finally:
        ctx.prec = saved
    for dead, smooth in results:
        assert dead.rad() == 0 and smooth.rad() == 0
    points = [(dead.man_exp(), smooth.man_exp()) for dead, smooth in results]  # exact (mantissa, exponent)
    assert points[0] == points[1] == points[2]


# ---------------------------------------------------------------- issue 26: what the claims state, and the memo


def test_the_checker_meets_the_generators_region_bounds_in_the_memo(monkeypatch):
    """The region claims are computed at REGION_PRECISION whatever the certificate's precision, so checking a
    certificate in the process that made it recomputes no region bound (the memo is keyed by the exact
    inputs). Before issue 26 the checker computed each at 128 + 64 bits, a memo key of its own."""
    import json

    import certify.kernel.region as region
    from certify.check import check_bytes
    from certify.theorems.registry import THEOREMS

    p = 10007  # a prime no other test certifies, so the memo starts empty for it
    calls = []
    for name in ("dead_region_log_probability_lower", "gd_region_log_probability_lower",
                 "smooth_region_log_probability_lower"):
        real = getattr(region, name)
        monkeypatch.setattr(region, name, lambda *args, real=real, name=name: calls.append(name) or real(*args))
    documents = [THEOREMS[theorem].build(p, **options).certificate
                 for theorem, options in (("dead", {}), ("gd", {"eta": "1"}), ("smooth", {}))]
    made = sorted(calls)  # dead's also from the purity claim, when region_purity was imported after the patch
    assert set(made) == {"dead_region_log_probability_lower", "gd_region_log_probability_lower",
                         "smooth_region_log_probability_lower"}
    for document in documents:
        assert check_bytes(json.dumps(document).encode(), "x").status == "verified"
    assert sorted(calls) == made  # the checker (at 128 + 64 bits) recomputed none of them


@pytest.mark.parametrize("prec", [128, 192, 512])
def test_a_region_claim_states_the_same_point_at_every_precision(prec):
    """dead_region_claim and gd_region_claim state exp of the 2^-40 grid point below the bound at REGION_PRECISION,
    at every certificate precision from 128 bits (region_probability_claim also rounds to prec - 32 significant
    bits, which at 64 bits is coarser than the grid): the claim's log10 bound is that point over ln 10."""
    from flint import fmpq as q

    from certify.kernel.dead import DeadParameters, dead_region_claim
    from certify.kernel.gd import GDParameters, gd_region_claim
    from certify.kernel.region import REGION_LOG_BITS, gd_region_claim_log_lower

    for claim, point in ((dead_region_claim(DeadParameters(13, q(1), q(2), q(1)), prec), dead_region_claim_log_lower(13)),
                         (gd_region_claim(GDParameters(13, q(1), q(1, 10**9), q(2), q(1)), prec),
                          gd_region_claim_log_lower(13, q(1)))):
        value = point.mid().fmpq()
        assert point.rad() == 0 and (value * 2**REGION_LOG_BITS).q == 1
        assert claim.quantity.log10_lower.overlaps(point / arb_log10())


def arb_log10():
    from flint import arb

    return arb(10).log()
