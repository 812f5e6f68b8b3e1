"""certify.kernel.region_purity: dead AND impure (docs/purity-tube.md), each function against an oracle.

Oracles do not import the kernel: mpmath at 30 digits for the chi-square, incomplete-beta and spacing
pieces (the spacing law as a 2-D integral of the joint density of the two middle order statistics, not
the 1-D formula the kernel integrates), and seeded Monte Carlo. The end-to-end Monte Carlo samples the
one-gate pattern directly (sort 2p normals, assign U^{p-1} V U V^{p-1} with random positions, w
independent), follows the terminal map of section A.6 (u_inf, v_inf exactly; w_inf by RK4 on the reduced
flow dw/ds = s (q - e_y) / (2 D), s the clock) and computes F_zeta (1.5) by FFT.

Monte Carlo tolerances are K_SE = 5 standard errors (a false failure has probability ~6e-7 per
comparison; seeds are fixed, so runs are reproducible). One-sided checks (a certified lower bound
below a frequency, an upper bound above one) allow the 5 standard errors on the frequency side only.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import ctx, fmpq

from certify.errors import InputError, NotCertified
from certify.kernel.region import dead_region_log_probability_lower
from certify.kernel.region_purity import (DEFAULT_PURITY_MARGIN, chi_square_cdf_upper,
                                          class_fraction_deficit_probability,
                                          dead_not_single_frequency_log_probability_lower,
                                          dead_region_purity_log10_probability_lower,
                                          dead_region_purity_log_probability_lower, purity_tube_probability_upper,
                                          scaled_spacing_tail_probability_upper, spacing_tail_probability,
                                          spacing_tail_probability_upper)
from oracles import spacing_tail

K_SE = 5
PREC = 64
# mpmath at 30 digits: its quadrature error estimates are ~1e-20 here; 1e-12 leaves room for the ball radii
ORACLE_TOL = 1e-12


@pytest.fixture(autouse=True)
def _oracle_digits():
    with mpmath.workdps(30):
        yield


def _se(freq: float, n: int) -> float:
    return math.sqrt(max(freq * (1 - freq), 1.0 / n) / n)


# ---------------------------------------------------------------- oracles (no kernel imports)

def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def chi2_cdf_oracle(n: int, x) -> float:
    return float(mpmath.gammainc(mpmath.mpf(n) / 2, 0, _mp(x) / 2, regularized=True))


def spacing_tail_oracle(p: int, s) -> float:
    """P(X_(p+1) - X_(p) > s) = p C(2p,p) int Phi^{p-1} phi Phibar(x+s)^p dx by mpmath at 30 digits (oracles.py)."""
    return float(spacing_tail(p, _mp(s)))


def spacing_tail_oracle_2d(p: int, s) -> float:
    """The same from the joint density K Phi(x)^{p-1} phi(x) phi(y) Phibar(y)^{p-1} of (X_(p), X_(p+1)), x < y,
    K = (2p)! / ((p-1)!)^2, integrated over y > x + s in 2-D (15 digits: a check of the 1-D formula)."""
    with mpmath.workdps(15):
        s = _mp(s)
        k = mpmath.factorial(2 * p) / mpmath.factorial(p - 1) ** 2
        f = lambda x, y: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.npdf(y) * (1 - mpmath.ncdf(y)) ** (p - 1)
        return float(k * mpmath.quad(lambda x: mpmath.quad(lambda y: f(x, y), [x + s, 8]), [-8, 8 - s]))


def class_fraction_oracle(p: int, c) -> float:
    """E[min(1, c/B)^k], B ~ Beta((p-1)/2, p), k = (p-3)/2, by mpmath quadrature of the Beta density."""
    a, b, k, c = mpmath.mpf(p - 1) / 2, p, mpmath.mpf(p - 3) / 2, _mp(c)
    dens = lambda x: x ** (a - 1) * (1 - x) ** (b - 1) / mpmath.beta(a, b)
    return float(mpmath.quad(dens, [0, c]) + mpmath.quad(lambda x: dens(x) * (c / x) ** k, [c, 1]))


def sample_gate_values(rng, p: int, n: int) -> np.ndarray:
    """n sorted samples of 2p iid N(0, 1)."""
    return np.sort(rng.standard_normal((n, 2 * p)), axis=1)


def class_energies(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the energy of each real class zeta = 1..(p-1)/2 of the centred x, and the total centred energy."""
    p = x.shape[1]
    f = np.fft.fft(x, axis=1)
    power = np.abs(f) ** 2 / p  # Parseval: ||x_0||^2 = sum_{k != 0} |X_k|^2 / p
    classes = np.stack([power[:, z] + power[:, p - z] for z in range(1, (p - 1) // 2 + 1)], axis=1)
    return classes, power[:, 1:].sum(axis=1)


def out_of_class(w: np.ndarray) -> np.ndarray:
    """O_zeta = dist(w, span(1, E_zeta))^2 for each row and class; shape (n, (p-1)/2)."""
    classes, total = class_energies(w)
    return total[:, None] - classes


def sample_one_gate_pattern(rng, p: int, n: int, sigma: float = 1.0):
    """theta(0) ~ N(0, sigma^2 I_3p) conditioned on the one-gate pattern U^{p-1} V U V^{p-1}."""
    x = sigma * sample_gate_values(rng, p, n)
    u = np.empty((n, p))
    v = np.empty((n, p))
    # positions: a* and b* uniform, the other values in uniformly random order
    perm_u = rng.permuted(np.tile(np.arange(p), (n, 1)), axis=1)
    perm_v = rng.permuted(np.tile(np.arange(p), (n, 1)), axis=1)
    u_vals = np.concatenate([x[:, :p - 1], x[:, p:p + 1]], axis=1)  # last column: the largest u, X_(p+1)
    mv_vals = np.concatenate([x[:, p - 1:p], x[:, p + 1:]], axis=1)  # first column: the smallest -v, X_(p)
    rows = np.arange(n)[:, None]
    u[rows, perm_u] = u_vals
    v[rows, perm_v] = -mv_vals
    w = sigma * rng.standard_normal((n, p))
    return u, v, w


def terminal_state(u, v, w, steps: int = 200):
    """The A.6 terminal map on one-gate points of R_dead: u, v exactly; w by RK4 in tau, s = s0 (1 - tau)."""
    n, p = u.shape
    a = u.argmax(axis=1)
    b = v.argmax(axis=1)
    rows = np.arange(n)
    s0 = u[rows, a] + v[rows, b]
    y = (a + b) % p
    u_inf, v_inf = u.copy(), v.copy()
    u_inf[rows, a] -= s0 / 2
    v_inf[rows, b] -= s0 / 2

    def field(tau, wc):
        s = s0 * (1 - tau)
        z = s[:, None] * wc
        z -= z.max(axis=1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(axis=1, keepdims=True)
        d = (q * wc).sum(axis=1) - wc[rows, y]
        g = q.copy()
        g[rows, y] -= 1
        return (-s0 * s / (2 * d))[:, None] * g

    h = 1.0 / steps
    wc = w.copy()
    for i in range(steps):
        t = i * h
        k1 = field(t, wc)
        k2 = field(t + h / 2, wc + h / 2 * k1)
        k3 = field(t + h / 2, wc + h / 2 * k2)
        k4 = field(t + h, wc + h * k3)
        wc = wc + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return u_inf, v_inf, wc


def max_fraction(u, v, w) -> np.ndarray:
    cu, tu = class_energies(u)
    cv, tv = class_energies(v)
    cw, tw = class_energies(w)
    return ((cu + cv + cw) / (tu + tv + tw)[:, None]).max(axis=1)


def in_dead_region(u, v, w) -> np.ndarray:
    n, p = u.shape
    rows = np.arange(n)
    a, b = u.argmax(axis=1), v.argmax(axis=1)
    s = u[rows, a] + v[rows, b]
    gamma = w.mean(axis=1) - w[rows, (a + b) % p]
    return (s > 0) & (gamma > 0) & (gamma ** 2 > s ** 2 / 2)


# ---------------------------------------------------------------- the pieces

@pytest.mark.parametrize("n, x", [(2, Fraction(1)), (14, Fraction(3)), (14, Fraction(14)), (20, Fraction(5, 2)),
                                  (62, Fraction(30))])
def test_chi_square_cdf_upper_matches_mpmath(n, x):
    bound = float(chi_square_cdf_upper(n, x, PREC))
    exact = chi2_cdf_oracle(n, x)
    assert exact - ORACLE_TOL <= bound <= exact + 1e-12 * max(1.0, exact) + ORACLE_TOL


def test_chi_square_cdf_upper_large_n_is_an_upper_bound():
    # n = 3 * 1009 - 1: Arb's incomplete gamma may give up here; Chernoff must still bound from above
    n, x = 3026, Fraction(2000)
    exact = chi2_cdf_oracle(n, x)
    assert exact <= float(chi_square_cdf_upper(n, x, PREC)) <= max(1e-300, 1e6 * exact)


@pytest.mark.parametrize("p, s", [(5, Fraction(1, 4)), (5, Fraction(1)), (7, Fraction(1, 2)), (13, Fraction(1, 5))])
def test_spacing_tail_probability_matches_two_dimensional_quadrature(p, s):
    value = spacing_tail_probability(p, s, PREC)
    exact = spacing_tail_oracle(p, s)
    assert abs(float(value.mid()) - exact) <= ORACLE_TOL + 1e-10 * exact
    assert float(value.rad()) < 1e-12


def test_spacing_tail_oracle_is_the_joint_density_integral():
    # the window [-8, 8] drops < 1e-14 of the mass; mpmath's 15-digit quadrature is good to ~1e-12
    assert abs(spacing_tail_oracle(5, Fraction(1, 2)) - spacing_tail_oracle_2d(5, Fraction(1, 2))) < 1e-9


def test_spacing_tail_probability_monte_carlo():
    rng = np.random.default_rng(11)
    p, n = 7, 200_000
    x = sample_gate_values(rng, p, n)
    freq = float(np.mean(x[:, p] - x[:, p - 1] > 0.25))
    value = float(spacing_tail_probability(p, Fraction(1, 4), PREC).mid())
    assert abs(freq - value) <= K_SE * _se(freq, n)


def test_spacing_tail_probability_upper_bounds_and_large_p():
    exact = spacing_tail_oracle(5, Fraction(1, 2))
    bound = float(spacing_tail_probability_upper(5, Fraction(1, 2), PREC))
    assert exact <= bound <= exact + 1e-12
    # p > 10^6: Markov E[S]/s; p E[S] -> sqrt(pi/2) (1 + (pi/8 - 1/2)/p), so the bound is ~1.2533 / (p s)
    p = 1000003
    big = float(spacing_tail_probability_upper(p, Fraction(1, 1000), PREC))
    assert 0 < big <= 1.2534 / (p / 1000)


def test_scaled_spacing_tail_probability_upper_monte_carlo():
    rng = np.random.default_rng(12)
    for p in (5, 7):
        n = 200_000
        x = sample_gate_values(rng, p, n)
        z = (x[:, p] - x[:, p - 1]) / np.sqrt((x ** 2).sum(axis=1))
        for zz in (Fraction(1, 20), Fraction(1, 10), Fraction(1, 5)):
            freq = float(np.mean(z > float(zz)))
            bound = float(scaled_spacing_tail_probability_upper(p, zz, PREC))
            assert freq - K_SE * _se(freq, n) <= bound <= 1


@pytest.mark.parametrize("p, c", [(5, Fraction(1, 100)), (7, Fraction(1, 20)), (13, Fraction(1, 10)),
                                  (31, Fraction(1, 5))])
def test_class_fraction_deficit_probability_matches_mpmath(p, c):
    value = float(class_fraction_deficit_probability(p, c, PREC))
    exact = class_fraction_oracle(p, c)
    assert exact - ORACLE_TOL <= value <= exact + 1e-10 * exact + ORACLE_TOL


def test_class_fraction_deficit_probability_monte_carlo():
    """rho = O_zeta / W and B = W / (Q + W) from actual Gaussians (w by FFT classes, Q ~ chi^2_2p)."""
    rng = np.random.default_rng(13)
    p, n, c = 7, 200_000, 0.05
    w = rng.standard_normal((n, p))
    classes, total = class_energies(w)
    rho = (total - classes[:, 0]) / total
    q = (rng.standard_normal((n, 2 * p)) ** 2).sum(axis=1)
    b = total / (q + total)
    freq = float(np.mean(rho < c / b))
    value = float(class_fraction_deficit_probability(p, Fraction(1, 20), PREC))
    assert abs(freq - value) <= K_SE * _se(freq, n)


def test_purity_tube_probability_upper_monte_carlo():
    """The lost event itself: some zeta with sqrt(O_zeta) < mu S + sqrt(delta (Q + (sqrt W + mu S)^2))."""
    rng = np.random.default_rng(14)
    n = 100_000
    for p, delta, mu in ((5, Fraction(1, 100), Fraction(1, 2)), (7, Fraction(1, 20), Fraction(1, 4)),
                         (7, Fraction(1, 100), Fraction(1))):
        x = sample_gate_values(rng, p, n)
        d = float(mu) * (x[:, p] - x[:, p - 1])
        q = (x ** 2).sum(axis=1)
        w = rng.standard_normal((n, p))
        out = out_of_class(w)
        total = class_energies(w)[1]
        rhs = d + np.sqrt(float(delta) * (q + (np.sqrt(total) + d) ** 2))
        freq = float(np.mean((np.sqrt(out) < rhs[:, None]).any(axis=1)))
        bound = float(purity_tube_probability_upper(p, delta, mu, PREC))
        assert freq - K_SE * _se(freq, n) <= bound


def test_purity_tube_probability_upper_grows_with_delta_and_displacement():
    values = [float(purity_tube_probability_upper(7, fmpq(1, k), fmpq(1, 2), PREC)) for k in (1000, 100, 20)]
    assert values[0] < values[1] < values[2]
    assert float(purity_tube_probability_upper(7, fmpq(1, 100), 0, PREC)) < values[1]


# ---------------------------------------------------------------- the two region probabilities

def test_dead_not_single_frequency_is_the_dead_region_bound_and_below_monte_carlo():
    lo = dead_not_single_frequency_log_probability_lower(5, PREC)
    assert lo.rad() == 0 and float(lo) == float(dead_region_log_probability_lower(5, PREC))
    # the lemma's content, checked on samples: on R_dead the terminal state is never single-frequency
    rng = np.random.default_rng(15)
    p, n = 5, 20_000
    u, v, w = sample_one_gate_pattern(rng, p, n)
    dead = in_dead_region(u, v, w)
    ui, vi, wi = terminal_state(u[dead], v[dead], w[dead])
    assert float(max_fraction(ui, vi, wi).max()) < 1 - 1e-6
    freq = float(np.mean(dead))  # P(R_dead | pattern) = (C(10, 5) - 1) P(R_dead | active)
    assert math.exp(float(lo)) * 251 <= freq + K_SE * _se(freq, n)


@pytest.mark.parametrize("p, delta", [(5, Fraction(1, 100)), (5, Fraction(1, 250)), (7, Fraction(1, 20)),
                                      (7, Fraction(1, 100))])
def test_dead_region_purity_below_monte_carlo(p, delta):
    """lo(delta) (C(2p,p) - 1) <= the frequency of {R_dead, max F(theta_inf) <= 1 - delta} given the pattern."""
    rng = np.random.default_rng(100 + p)
    n = 20_000
    u, v, w = sample_one_gate_pattern(rng, p, n)
    dead = in_dead_region(u, v, w)
    ui, vi, wi = terminal_state(u[dead], v[dead], w[dead])
    good = int(np.sum(max_fraction(ui, vi, wi) <= 1 - float(delta)))
    freq = good / n
    lo = dead_region_purity_log_probability_lower(p, delta, PREC)
    assert lo.rad() == 0
    pattern = math.exp(float(lo)) * (math.comb(2 * p, p) - 1)
    assert pattern <= freq + K_SE * _se(freq, n)


def test_dead_region_purity_below_monte_carlo_other_sigma():
    """The bound holds for every sigma (its events are scale-free); the flow is not, so check sigma = 3."""
    rng = np.random.default_rng(7)
    p, n, delta = 7, 20_000, Fraction(1, 20)
    u, v, w = sample_one_gate_pattern(rng, p, n, sigma=3.0)
    dead = in_dead_region(u, v, w)
    ui, vi, wi = terminal_state(u[dead], v[dead], w[dead], steps=400)
    freq = float(np.sum(max_fraction(ui, vi, wi) <= 1 - float(delta))) / n
    pattern = math.exp(float(dead_region_purity_log_probability_lower(p, delta, PREC))) * (math.comb(14, 7) - 1)
    assert pattern <= freq + K_SE * _se(freq, n)


def test_dead_region_purity_monotone_in_delta_and_below_dead_region():
    p = 7
    values = [float(dead_region_purity_log_probability_lower(p, fmpq(1, k), PREC)) for k in (1000, 250, 100, 50, 20)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert values[0] < float(dead_region_log_probability_lower(p, PREC))


def test_dead_region_purity_default_margin_and_large_p():
    assert DEFAULT_PURITY_MARGIN == fmpq(1, 100)
    for p in (5, 11, 31):
        dead_region_purity_log_probability_lower(p, DEFAULT_PURITY_MARGIN, PREC)  # certified (no raise)
    # large p: the tube is exponentially small, the bound equals the R_dead bound to many digits
    p = 1000003
    lo = float(dead_region_purity_log_probability_lower(p, fmpq(1, 10), PREC))
    dead = float(dead_region_log_probability_lower(p, PREC))
    assert dead - 1e-6 < lo <= dead


def test_dead_region_purity_not_certified_when_worthless():
    with pytest.raises(NotCertified):
        dead_region_purity_log_probability_lower(5, fmpq(1, 20), PREC)
    with pytest.raises(NotCertified):
        dead_region_purity_log_probability_lower(31, fmpq(1, 2), PREC)


def test_dead_region_purity_log10_is_log_over_ln10():
    x = float(dead_region_purity_log_probability_lower(13, fmpq(1, 20), PREC))
    y = dead_region_purity_log10_probability_lower(13, fmpq(1, 20), PREC)
    assert y.rad() == 0 and abs(float(y) - x / math.log(10)) < 1e-12 * abs(x)


def test_results_do_not_depend_on_ambient_precision():
    old = ctx.prec
    try:
        ctx.prec = 20
        a = dead_region_purity_log_probability_lower(7, fmpq(1, 100), PREC)
        ctx.prec = 300
        b = dead_region_purity_log_probability_lower(7, fmpq(1, 100), PREC)
    finally:
        ctx.prec = old
    assert a.mid().str() == b.mid().str()


@pytest.mark.parametrize("call", [
    lambda: dead_region_purity_log_probability_lower(7, fmpq(0), PREC),
    lambda: dead_region_purity_log_probability_lower(7, fmpq(1), PREC),
    lambda: dead_region_purity_log_probability_lower(7, fmpq(3, 2), PREC),
    lambda: dead_region_purity_log_probability_lower(7, -fmpq(1, 10), PREC),
    lambda: dead_region_purity_log_probability_lower(7, 0.01, PREC),
    lambda: dead_region_purity_log_probability_lower(7, "0.01", PREC),
    lambda: dead_region_purity_log_probability_lower(9, fmpq(1, 100), PREC),
    lambda: dead_region_purity_log_probability_lower(3, fmpq(1, 100), PREC),
    lambda: dead_region_purity_log_probability_lower(7, fmpq(1, 100), 8),
    lambda: purity_tube_probability_upper(7, fmpq(1, 100), -1, PREC),
    lambda: class_fraction_deficit_probability(7, fmpq(1), PREC),
    lambda: spacing_tail_probability(7, 0, PREC),
    lambda: chi_square_cdf_upper(0, fmpq(1), PREC),
    lambda: dead_not_single_frequency_log_probability_lower(4, PREC),
])
def test_bad_input(call):
    with pytest.raises(InputError):
        call()


# ---------------------------------------------------------------- issue 26: the same bounds, fewer integrals


def _tube_with_every_radius(monkeypatch, p, delta):
    """The purity bound with all four radius bounds tried at every grid point (the rule before issue 26)."""
    import certify.kernel.region_purity as rp

    real = rp._scaled_spacing_tail_upper

    def every_radius(p, z, mean_hi, radii, cdf_hi, candidates=None):
        return real(p, z, mean_hi, radii, cdf_hi, None)

    with monkeypatch.context() as patch:
        patch.setattr(rp, "_scaled_spacing_tail_upper", every_radius)
        return dead_region_purity_log_probability_lower(p, delta, 64)


@pytest.mark.parametrize("p, delta", [(5, Fraction(1, 100)), (7, Fraction(1, 20)), (13, Fraction(1, 100)),
                                      (47, Fraction(1, 20))])
def test_the_tube_with_one_radius_per_point_is_the_bound_with_all_four(monkeypatch, p, delta):
    """The radius chosen by the float estimate is the one whose bound is least: the purity bound equals the
    one computed with all four radius bounds at every grid point, to far below the 40 bits a claim states."""
    chosen = dead_region_purity_log_probability_lower(p, fmpq(delta.numerator, delta.denominator), 64)
    every = _tube_with_every_radius(monkeypatch, p, fmpq(delta.numerator, delta.denominator))
    assert abs(float(chosen - every)) < 1e-18 and chosen.rad() == every.rad() == 0


def test_the_tube_proves_one_integral_per_grid_point(monkeypatch):
    """At p = 13 the bound needs at most one spacing-tail integral per grid point (21 points), not four."""
    import certify.kernel.region_purity as rp

    calls = []
    real = rp._spacing_tail
    monkeypatch.setattr(rp, "_spacing_tail", lambda p, s: calls.append(s) or real(p, s))
    dead_region_purity_log_probability_lower(13, fmpq(1, 100), 64)
    assert 0 < len(calls) <= 21 and len(set(calls)) == len(calls)


def mp_spacing_tail(p: int, s) -> mpmath.mpf:
    """spacing_tail_oracle at 40 digits, as an mpf: Gauss-Legendre on 96 panels of width 1/(3 sqrt p) around the
    peak -s/2 out to 16/sqrt(p) (the integrand is a peak of width ~1/sqrt(p) whose log falls at least like
    p (x + s/2)^2 / 2 away from it, so what lies beyond is below e^-128 of it). tanh-sinh over all of R, as
    spacing_tail_oracle uses, is wrong in the 14th digit at p = 47, s = 1 (measured against this rule; halving
    the panels' width changes it by less than 3e-36 at the four cases tested below)."""
    with mpmath.workdps(40):
        s, r = _mp(s), mpmath.sqrt(p)
        f = lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * (1 - mpmath.ncdf(x + s)) ** p
        points = [-s / 2 + mpmath.mpf(i) / (3 * r) for i in range(-48, 49)]
        return p * mpmath.binomial(2 * p, p) * mpmath.quad(f, points, method="gauss-legendre")


@pytest.mark.parametrize("p, s", [(5, Fraction(1, 4)), (13, Fraction(1)), (47, Fraction(1, 4)), (47, Fraction(1))])
def test_the_windowed_spacing_tail_contains_the_full_quadrature(p, s):
    """The window around the peak with its closed-form tails encloses the oracle's P(S > s) (mpmath over all of
    R), and is tight to 1e-13 relative (the closed-form tails are that small)."""
    value = spacing_tail_probability(p, fmpq(s.numerator, s.denominator), 64)
    exact = mp_spacing_tail(p, s)
    with mpmath.workdps(40):
        low, high = (mpmath.mpf(x.str(40, radius=False)) for x in (value.lower(), value.upper()))
        # the oracle is stable to 40 digits (see mp_spacing_tail); 1e-25 leaves it that margin
        assert low <= exact * (1 + mpmath.mpf(10) ** -25) and exact * (1 - mpmath.mpf(10) ** -25) <= high
        assert (high - low) / exact < 1e-13
