"""certify.kernel.region_memorise: Proposition S1.8 (docs/staircase.md, section 10.7) against independent routes.

Each lemma is checked on its own: the gates' mass H of (S1.3) by mpmath quadrature of its closed form and by a
Monte Carlo of its definition; Lemma S1.10's box bound by a Monte Carlo of the centred vector; Lemma S1.9's
threshold by evaluating the exact conditions of U_1 (gamma > 0, rho, ell_0 at 40 digits) at points of the set
it is about, its worst vertices included; and the whole bound against the Monte Carlo value of P(U_1 relabelled),
the conditional estimator E[1_W H(X*)] of (S1.3) written here with numpy and scipy. Monte Carlo tolerances are
5 standard errors, each estimated from its own sample.
"""

import math

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq
from scipy import integrate
from scipy.stats import norm

from certify.errors import HypothesisError, InputError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.region_memorise import (STEP, X_POINTS, centred_box_lower, memorise_whole_region_log_lower,
                                            single_gate_mass_lower, threshold_holds)

DPS = 40


def mpq(x) -> mpmath.mpf:
    """An fmpq as an mpmath number (exact up to the working precision)."""
    return mpmath.mpf(int(x.p)) / int(x.q)


def gate_mass(p: int, x: float) -> float:
    """H(x) of (S1.3) by scipy quadrature of its closed form (relative error ~1e-10, far below every check)."""
    def integrand(a):
        return norm.pdf(a) * norm.cdf(-a) ** (p - 1) * norm.cdf(a - x) ** p / p
    return integrate.quad(integrand, -12, x + 12, limit=400, epsabs=0, epsrel=1e-11)[0]


@pytest.mark.parametrize("p", [5, 7, 13])
def test_single_gate_mass_lower_is_below_the_quadrature(p):
    balls = single_gate_mass_lower(p)
    assert len(balls) == X_POINTS + 1 and all(h.rad() == 0 for h in balls)  # exact: comparisons are decided
    bounds = [h.mid().fmpq() for h in balls]
    assert all(bounds[m] >= bounds[m + 1] >= 0 for m in range(X_POINTS))
    for m in (0, 37, 100, 250, 600):
        with mpmath.workdps(DPS):
            x = mpq(m * STEP)
            f = lambda a: mpmath.npdf(a) * mpmath.ncdf(-a) ** (p - 1) * mpmath.ncdf(a - x) ** p / p
            exact = mpmath.quad(f, [-14, -4, 0, x / 2, 4, x + 14])
            # below the quadrature (its error is ~1e-30, far under the lower sum's own loss) ...
            assert mpq(bounds[m]) <= exact
            # ... and not far below: the lower sum (S1.4) loses about p STEP phi/Phi ~ 10% where the mass sits
            assert mpq(bounds[m]) >= exact / 2


def test_gate_mass_closed_form_against_its_definition():
    """(S1.3)'s closed form of H is the probability it defines (Monte Carlo, p = 5, x = 0 and 1/2)."""
    p, samples = 5, 2_000_000
    rng = np.random.default_rng(7)
    u, v = rng.standard_normal((samples, p)), rng.standard_normal((samples, p))
    pattern = (u[:, 1:] < -v[:, :1]).all(1) & (v[:, 1:] < -u[:, :1]).all(1)
    for x in (0.0, 0.5):
        hits = (pattern & (u[:, 0] + v[:, 0] > x)).mean()
        error = math.sqrt(hits * (1 - hits) / samples)
        assert abs(hits - gate_mass(p, x)) < 5 * error


@pytest.mark.parametrize("n", [4, 6, 12])
def test_centred_box_lower_is_below_the_box_mass(n):
    samples = 1_000_000
    rng = np.random.default_rng(n)
    w = rng.standard_normal((samples, n))
    largest = np.abs(w - w.mean(1, keepdims=True)).max(1)
    for alpha in (fmpq(1, 20), fmpq(1, 5), fmpq(1, 2), fmpq(1), fmpq(2)):
        with working_precision(100):
            bound = upper_endpoint(centred_box_lower(n, alpha))
        share = (largest <= float(alpha)).mean()
        error = math.sqrt(max(share * (1 - share), 1 / samples) / samples)
        assert float(bound) <= share + 5 * error, (n, alpha)


def test_centred_box_lower_beats_sidak_where_it_matters():
    """The section bound of Lemma S1.10 is the larger one at small alpha (by the factor 1/alpha it gains)."""
    with working_precision(100):
        small = centred_box_lower(6, fmpq(1, 10))
        sidak = (arb(fmpq(1, 10)) * arb(fmpq(6, 10)).sqrt()).erf() ** 6
    assert lower_endpoint(small) > 2 * upper_endpoint(sidak)


def u1_conditions(p, w, X):
    """(gamma_min > 0, ell_0(X) < 2/(p rho)) at 40 digits, from the definitions of section 10.1."""
    with mpmath.workdps(DPS):
        w = [mpmath.mpf(c) for c in w]
        mu = sum(w) / p
        gamma = [mu - c for c in w[1:]]
        if min(gamma) <= 0:
            return False, False
        rho = max(gamma) / min(gamma)
        ell = mpmath.log(sum(mpmath.exp(X * (c - w[0])) for c in w))
        return True, ell < 2 / (p * rho)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_threshold_holds_on_the_set_it_is_about(p):
    rng = np.random.default_rng(p)
    n = p - 1
    delta = fmpq(3)
    for k in (1, 8, 20):
        alpha = delta * fmpq(k, 33 * p)
        m = next(m for m in range(X_POINTS + 1) if threshold_holds(p, 1, delta, alpha, m * STEP))
        assert not threshold_holds(p, 1, delta, alpha, 0)
        x = mpq(m * STEP)
        a, d = float(alpha), float(delta)
        points = [np.array([a] * (n // 2) + [-a] * (n // 2))]  # the chord's worst vertex
        points += [rng.uniform(-a, a, n) for _ in range(30)]
        for e in points:
            e = e - e.mean()
            e = e * min(1.0, a / np.abs(e).max())  # inside [-alpha, alpha]^n, mean 0
            for excess in (0.0, 0.5):
                w = [d + excess] + list(e)  # Delta = w(0) - mean(w') = delta + excess
                positive, inside = u1_conditions(p, w, x)
                assert positive and inside, (p, k, excess)


def test_threshold_refuses_alpha_out_of_range():
    assert not threshold_holds(5, 1, fmpq(1), fmpq(1, 5), 100)  # alpha = delta/p: gamma_min may be 0
    assert not threshold_holds(5, 1, fmpq(1), fmpq(0), 100)


def conditional_monte_carlo(p, samples, seed):
    """(estimate, standard error) of P(U_1 relabelled) = p^2 E[1_W H(X*)] at sigma = 1 (S1.3): X* by bisection of
    ell_0(X) = 2/(p rho) in floats, H by quadrature on a grid of x and interpolation of log H (linear between
    nodes 0.1 apart: an error of about 0.1^2 max|(log H)''|/8 < 0.5% in H, a tenth of the 5 standard errors allowed)."""
    xs = np.linspace(0, 14, 141)
    log_h = np.log([gate_mass(p, x) for x in xs])
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((samples, p))
    gamma = w.mean(1, keepdims=True) - w[:, 1:]
    keep = (gamma > 0).all(1)
    w, gamma = w[keep], gamma[keep]
    budget = 2 / (p * gamma.max(1) / gamma.min(1))
    gaps = w[:, :1] - w[:, 1:]
    low, high = np.zeros(len(w)), np.full(len(w), 14.0)
    for _ in range(60):
        mid = (low + high) / 2
        above = np.log1p(np.exp(-mid[:, None] * gaps).sum(1)) >= budget
        low, high = np.where(above, mid, low), np.where(above, high, mid)
    values = np.zeros(samples)
    values[: len(w)] = np.exp(np.interp(high, xs, log_h))
    return p * p * values.mean(), p * p * values.std() / math.sqrt(samples)


@pytest.mark.parametrize("p, samples", [(5, 400_000), (7, 3_000_000)])
def test_whole_region_bound_is_below_the_monte_carlo_value_and_within_the_target(p, samples):
    estimate, error = conditional_monte_carlo(p, samples, seed=p)
    with working_precision(64):
        bound = math.exp(float(memorise_whole_region_log_lower(p, 1).mid()))
    assert bound <= estimate + 5 * error
    # the target: within a factor 10 of the Monte Carlo value at p = 5 and 7
    assert bound >= (estimate + 5 * error) / 10


def test_whole_region_bound_grows_with_sigma_and_is_deterministic():
    """P(U_1) grows with sigma (ell_0 depends on sigma^2 X (w(0) - w(j))); the same inputs give the same exact ball."""
    small = memorise_whole_region_log_lower(7, fmpq(1, 2))
    large = memorise_whole_region_log_lower(7, 2)
    again = memorise_whole_region_log_lower(7, 2)
    assert small.rad() == 0 and large.rad() == 0 and small < large
    assert again.mid() == large.mid()


def test_bad_input():
    with pytest.raises(InputError):
        memorise_whole_region_log_lower(9, 1)
    with pytest.raises(InputError):
        single_gate_mass_lower(4)
    with pytest.raises(HypothesisError):
        memorise_whole_region_log_lower(5, 0)
    with working_precision(100), pytest.raises(InputError, match="alpha must be positive"):
        centred_box_lower(4, fmpq(-1, 2))  # an empty box has no positive lower bound
    with working_precision(100), pytest.raises(InputError, match="n must be an integer >= 2"):
        centred_box_lower(1, fmpq(1, 2))


@pytest.mark.parametrize("sigma", [fmpq(1, 10**155), fmpq(10**160)])
def test_extreme_sigma_is_not_certified_rather_than_a_float_error(sigma):
    """sigma^2 is never turned into a float (it would overflow or vanish): the bound is refused cleanly."""
    with pytest.raises(NotCertified):
        memorise_whole_region_log_lower(5, sigma)
