"""certify.kernel.region: the probability of the whole dead region R_dead, each claim two ways.

The derivation is docs/mathematics.md, section 'Region probability of the dead theorem'. The
oracles here do not import the kernel: exhaustive enumeration of orderings, seeded Monte Carlo of
theta(0) ~ N(0, sigma^2 I_{3p}) tested against the region's defining inequalities on the 3p
coordinates, and mpmath quadrature (one-dimensional for E[S], a tensor Gauss-Legendre rule over the
joint density of the two middle order statistics for E[Phibar(c_p S)]).

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
from flint import arb

from certify.errors import InputError
from certify.kernel.region import (dead_region_log10_probability_lower, dead_region_log_probability_lower,
                                   expected_spacing_upper, log_central_binomial, log_one_active_gate_probability,
                                   spacing_integral_tail_bound)
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
    # the claim's log10_lo is the kernel's natural-log bound over ln 10; that bound's last ~64 bits depend on
    # the precision it is computed at (the certificate's 128 bits against this call's default), so compare
    # to 2^-50 relative, and below the exact value from an independent quadrature
    point = dead_region_log_probability_lower(13, 128)
    with mpmath.workdps(60):
        bound = mpmath.mpf(point.mid().str(60, radius=False)) / mpmath.log(10)
        assert abs(mpmath.mpf(claim["log10_lo"]) / bound - 1) < mpmath.mpf(2) ** -50
    assert float(claim["log10_lo"]) < -7.3430  # the exact value is -7.343070 (quadrature above)
    assert check_bytes(json.dumps(document).encode(), "dead-13").status == "verified"
    raised = Fraction(claim["lo"]) * (1 + Fraction(1, 10 ** 30))  # past the truth: lo is ~1e-37 below it
    forged = json.loads(json.dumps(document))
    forged["claims"]["region_probability"]["lo"] = format_rational(fmpq(raised.numerator, raised.denominator))
    assert check_bytes(json.dumps(forged).encode(), "forged").status == "rejected"
