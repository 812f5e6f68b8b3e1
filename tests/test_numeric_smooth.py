"""Tests for certify.numeric.smooth: the smooth dead-zone network of Theorem A.3 (appendix A.7).

Expected values come from a second route: the definitions psi = f(t)/(f(t) + f(1-t)),
f(t) = exp(-1/t), evaluated and differentiated (quotient rule with f' = f/t^2, or
mpmath.diff) with mpmath at 30 digits; finite differences of the loss; the ReLU model;
and, at the symmetric base point, the closed form of the reduced dynamics:

  with w two-level (w(0) = a, w(j) = b), g = mean(w) - w(0) = (p-1)(b-a)/p and
  D = (1 - q_0)(b - a), so (A.62)-(A.63) give dg/ds = (sigma/sigma') (p-1)/(2 p g), i.e.
      g(s)^2 = g(0)^2 - ((p-1)/p) (J(s0) - J(s)),     J(s) = int_0^s sigma/sigma'  (A.66),
  while mean(w) is conserved; hence w_inf(0) = mu - g_inf, w_inf(j) = mu + g_inf/(p-1).
"""

import inspect
import math

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad

from certify.numeric import smooth
from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import gradient as relu_gradient
from certify.numeric.model import loss as relu_loss
from certify.numeric.points import two_level
from certify.numeric.smooth import (
    OtherGateActivated,
    SmoothResult,
    gradient,
    loss,
    psi,
    psi_prime,
    ratio_integral,
    sigma,
    sigma_prime,
    sigma_ratio,
    simulate_smooth,
)
from tolerances import EPS as MACHINE_EPS
from tolerances import (
    assert_close,
    dead_zone_integral_tolerance,
    fourier_fraction_tolerance,
    integration_tolerance,
    relative_rounding,
    rounding,
    smooth_activation_errors,
)

# overflow / underflow / invalid-value warnings are failures (the functions must be quiet)
pytestmark = pytest.mark.filterwarnings("error")

S0, A, B, EPS = 1.0, 2.0, 1.0, 2.0
DPS = 30
_DEFAULTS = inspect.signature(simulate_smooth).parameters
RTOL, ATOL = _DEFAULTS["rtol"].default, _DEFAULTS["atol"].default


# ---------------------------------------------------------------------------------------------
# error estimates of the float activation (tests/tolerances.py for the rules)
# ---------------------------------------------------------------------------------------------


# An mpmath reference at DPS digits, rounded once to a double: half an ulp (one EPS allowed).
MP_REL = relative_rounding(1)


# ---------------------------------------------------------------------------------------------
# mpmath reference (straight from the definitions)
# ---------------------------------------------------------------------------------------------


def _mp_f(t):
    return mpmath.exp(-1 / t) if t > 0 else mpmath.mpf(0)


def _mp_f_prime(t):
    return _mp_f(t) / t**2 if t > 0 else mpmath.mpf(0)


def _mp_psi(t):
    t = mpmath.mpf(t)
    return _mp_f(t) / (_mp_f(t) + _mp_f(1 - t))


def _mp_psi_prime(t):
    """Quotient rule on f(t)/(f(t) + f(1-t)) with f' = f/t^2.

    The numerator da (a + b) - a (da + db) is written as da b - a db: near t = 1 the first
    form cancels terms of size da a ~ 0.1 down to ~1e-40, below 30 digits (it gave 0).
    """
    t = mpmath.mpf(t)
    a, b = _mp_f(t), _mp_f(1 - t)
    da, db = _mp_f_prime(t), -_mp_f_prime(1 - t)
    return (da * b - a * db) / (a + b) ** 2


def _mp_sigma(z, eps):
    z, eps = mpmath.mpf(z), mpmath.mpf(eps)
    return z * _mp_psi(z / eps)


def _mp_sigma_prime(z, eps):
    z, eps = mpmath.mpf(z), mpmath.mpf(eps)
    return _mp_psi(z / eps) + z / eps * _mp_psi_prime(z / eps)


def _mp_ratio(s, eps):
    """The direct quotient sigma/sigma' (for 0 < s < eps)."""
    return _mp_sigma(s, eps) / _mp_sigma_prime(s, eps)


def _mp_J(s, eps, lower=0):
    """int_lower^s sigma/sigma', the part above eps in closed form (sigma = ReLU there)."""
    with mpmath.workdps(DPS):
        s, eps, lower = mpmath.mpf(s), mpmath.mpf(eps), mpmath.mpf(lower)
        top = min(s, eps)
        value = mpmath.quad(lambda r: _mp_ratio(r, eps), [lower, top]) if top > lower else mpmath.mpf(0)
        if s > eps:
            value += (s**2 - max(eps, lower) ** 2) / 2
        return value


# ---------------------------------------------------------------------------------------------
# psi and sigma
# ---------------------------------------------------------------------------------------------


def test_psi_is_0_below_0_and_1_above_1():
    below = np.array([-np.inf, -1e300, -3.0, -1e-300, -0.0, 0.0])
    above = np.array([1.0, 1.0 + 2**-52, 1.5, 1e300, np.inf])
    assert np.all(psi(below) == 0.0) and np.all(psi(above) == 1.0)
    assert np.all(psi_prime(below) == 0.0) and np.all(psi_prime(above) == 0.0)
    # tiny positive t: psi = exp(-1/t)-ish underflows to 0 quietly (no warnings: filterwarnings below)
    assert psi(5e-324) == 0.0 and psi_prime(5e-324) == 0.0 and psi_prime(1e-200) == 0.0
    assert isinstance(psi(0.3), float) and psi(np.array([0.3])).shape == (1,)


def test_psi_symmetry():
    # dyadic t, so that 1 - t is exact
    t = np.arange(1, 1024) / 1024.0
    # psi(t) + psi(1 - t) = 1 exactly; each value carries its relative error (psi <= 1), the
    # sum and the comparison with 1 two roundings more.
    err = smooth_activation_errors(t)
    assert_close(psi(t) + psi(1.0 - t), 1.0, err["psi"] + err["psi"][::-1] + relative_rounding(2))
    assert psi(0.5) == 0.5
    assert_close(psi_prime(t), psi_prime(1.0 - t), (err["psi_prime"] + err["psi_prime"][::-1]) * psi_prime(t))


def test_psi_monotone_and_positive():
    t = np.linspace(-0.5, 1.5, 200_001)
    values = psi(t)
    assert np.all(np.diff(values) >= 0)
    inside = (t >= 1 / 700) & (t < 1)
    assert np.all(values[inside] > 0) and np.all(psi_prime(t[inside]) >= 0)


def test_psi_and_psi_prime_match_mpmath():
    points = [0.002, 0.01, 0.1, 0.25, 0.3, 0.5, 0.61, 0.77, 0.9, 0.99, 0.998]
    with mpmath.workdps(DPS):
        for t in points:
            err = smooth_activation_errors(t)
            assert psi(t) == pytest.approx(float(_mp_psi(t)), rel=float(err["psi"]) + MP_REL, abs=0)
            expected = _mp_psi_prime(t)
            assert psi_prime(t) == pytest.approx(float(expected), rel=float(err["psi_prime"]) + MP_REL, abs=0)
            # the quotient-rule reference against numerical differentiation of psi itself, in
            # mpmath: diff raises its working precision to absorb the step's cancellation, so
            # both are DPS-digit values; allow 5 of the 30 digits.  Above t = 1/2 psi = 1 - (tiny)
            # cannot carry psi' in 30 digits (at t = 0.99, 1 - psi ~ 1e-44): differentiate
            # 1 - psi(t) = psi(1 - t) there.
            tm = mpmath.mpf(t)
            numeric = mpmath.diff(_mp_psi, tm) if t <= 0.5 else -mpmath.diff(lambda r: _mp_psi(1 - r), tm)
            assert abs(numeric - expected) <= mpmath.mpf(10) ** (5 - DPS) * abs(expected)


def test_psi_prime_finite_differences():
    t = np.linspace(0.01, 0.99, 99)
    h = 1e-6
    fd = (psi(t + h) - psi(t - h)) / (2 * h)
    # Truncation h^2 |psi^(3)| / 6 (psi^(3) by mpmath at t, times 2 for its change over [t - h, t + h]),
    # rounding of the two psi values (relative error <= err["psi"], psi <= 1, and t +- h
    # rounds by EPS, moving psi by EPS psi') over 2h, and psi' itself.
    with mpmath.workdps(DPS):
        third = np.array([abs(float(mpmath.diff(_mp_psi, mpmath.mpf(x), 3))) for x in t])
    err = smooth_activation_errors(t)
    tol = (2 * third * h**2 / 6 + 2 * (err["psi"] + MACHINE_EPS * psi_prime(t)) / (2 * h)
           + err["psi_prime"] * psi_prime(t))
    assert_close(psi_prime(t), fd, tol)


def test_sigma_is_relu_outside_dead_zone():
    for eps in (0.5, 2.0):
        z = np.array([-np.inf, -7.0, -1e-300, 0.0, eps, eps * (1 + 2**-50), 3.0 * eps, 1e300])
        relu = np.maximum(z, 0.0)
        assert np.array_equal(sigma(z, eps), relu)
        assert np.array_equal(sigma_prime(z, eps), (z >= eps).astype(float))
        # (psi(t) rounds to 1 for t > ~0.97: 1 - psi ~ exp(-1/(1-t)))
        inside = np.linspace(eps / 100, eps * 0.9, 50)
        assert np.all(sigma(inside, eps) < inside) and np.all(sigma(inside, eps) > 0)


def test_sigma_and_sigma_prime_match_mpmath():
    eps = 2.0
    with mpmath.workdps(DPS):
        for s in (eps / 300, 0.01, 0.3, 1.0, 1.7, 1.99):
            err = smooth_activation_errors(s / eps)
            assert sigma(s, eps) == pytest.approx(
                float(_mp_sigma(s, eps)), rel=float(err["sigma"]) + MP_REL, abs=0)
            assert sigma_prime(s, eps) == pytest.approx(
                float(_mp_sigma_prime(s, eps)), rel=float(err["sigma_prime"]) + MP_REL, abs=0)


def test_sigma_ratio_bounds_A61():
    eps = 2.0
    s = np.concatenate([np.geomspace(eps / 600, eps, 2000, endpoint=False), [eps, 2.5, 10.0]])
    r = sigma_ratio(s, eps)
    assert np.all(r > 0) and np.all(r <= s)
    assert np.all(r[s >= eps] == s[s >= eps])
    assert np.all(r[s < 0.9 * eps] < s[s < 0.9 * eps])  # phi rounds to 1 just below eps
    assert sigma_ratio(0.0, eps) == 0.0
    # where sigma' is representable, (A.61) sigma' > 0
    assert np.all(sigma_prime(s, eps) > 0)


def test_sigma_ratio_equals_direct_quotient_in_floats():
    """The identity s phi(s/eps) = sigma/sigma' where both are normal doubles."""
    for eps in (0.5, 2.0):
        s = np.geomspace(eps / 500, eps * (1 - 1e-9), 3000)
        direct = sigma(s, eps) / sigma_prime(s, eps)
        assert np.all(sigma(s, eps) > 1e-250)
        err = smooth_activation_errors(s / eps)
        rel = err["ratio"] + err["sigma"] + err["sigma_prime"] + relative_rounding(1)
        assert_close(sigma_ratio(s, eps), direct, rel * direct)


def test_sigma_ratio_matches_mpmath():
    eps = 2.0
    with mpmath.workdps(DPS):
        # eps/5000: sigma and sigma' underflow in doubles, their quotient must not
        for s in (eps / 5000, eps / 300, 0.05, 0.5, 1.0, 1.5, 1.9, eps * (1 - 1e-3)):
            rel = float(smooth_activation_errors(s / eps)["ratio"]) + relative_rounding(1) + MP_REL
            assert sigma_ratio(s, eps) == pytest.approx(float(_mp_ratio(s, eps)), rel=rel, abs=0)
    assert sigma(eps / 5000, eps) == 0.0 and sigma_ratio(eps / 5000, eps) > 0


@pytest.mark.parametrize("s0, eps", [(1.0, 2.0), (3.0, 2.0), (0.005, 2.0)])
def test_J_matches_mpmath(s0, eps):
    expected = _mp_J(s0, eps)
    top = min(s0, eps)
    by_quad, _ = quad(lambda r: sigma_ratio(r, eps), 0.0, top, epsabs=0.0, epsrel=1e-13, limit=200)
    by_quad += max(s0 * s0 - eps * eps, 0.0) / 2
    # quad's target epsrel = 1e-13 (its error estimate; allow a factor 10 for its optimism),
    # the integrand's relative error (largest over the interval, sampled densely), and the
    # closed-form part: three roundings of terms of size s0^2.
    tol = dead_zone_integral_tolerance(s0, eps, expected)
    assert by_quad == pytest.approx(float(expected), rel=0, abs=tol)
    assert ratio_integral(s0, eps) == pytest.approx(float(expected), rel=0, abs=tol)
    assert float(expected) <= s0**2 / 2


def test_J_small_s_asymptotics():
    """J(s) ~ s^3/(3 eps) as s -> 0 (phi(t) ~ t): the size of the tail below s_min."""
    eps = 2.0
    for s in (eps / 400, eps / 4000):
        # Model error: phi(t) = t + O(t^2) (t phi(t) <= 2 t^2 and t phi / t -> 1), so
        # J(s) = s^3/(3 eps) (1 + O(s/eps)); the tolerance 3 s/eps states the O() constant
        # (the next term of phi is -t^2 + ..., giving -(3/4) s/eps relative).
        assert ratio_integral(s, eps) == pytest.approx(s**3 / (3 * eps), rel=3 * s / eps, abs=0)


# ---------------------------------------------------------------------------------------------
# loss and gradient
# ---------------------------------------------------------------------------------------------


def _loss_rounding(u, v, w, eps):
    """Rounding of the smooth loss: p^2 log-sum-exps of logits h w(c) (h = sigma_eps(z) <= |z|),
    each cancelling against the correct logit (terms log p + 2 h max|w|, 2p + 10 operations
    and the activation's own relative error, below 1e-12 here), summed: 2p + 10 + p^2
    roundings of the total, / p^2."""
    p = len(u)
    h = np.abs(u[:, None] + v[None, :])
    return float(rounding((np.log(p) + 2 * h * np.abs(w).max()).sum(), 2 * p + 10 + p**2)) / p**2


def _random_smooth_point(rng, p, eps, margin=0.02):
    """Random (u, v, w) with several gates inside (0, eps), every gate `margin` from 0 and eps."""
    while True:
        u, v = rng.uniform(-1.0, 1.5, p), rng.uniform(-1.0, 1.5, p)
        w = 2.0 * rng.normal(size=p)
        z = u[:, None] + v[None, :]
        if min(np.min(np.abs(z)), np.min(np.abs(z - eps))) > margin and np.sum((z > 0) & (z < eps)) >= 3:
            return u, v, w


@pytest.mark.parametrize("p", [5, 7])
def test_gradient_matches_finite_differences(p):
    rng = np.random.default_rng(100 + p)
    eps, h = 1.0, 1e-6
    for _ in range(3):
        u, v, w = _random_smooth_point(rng, p, eps)
        theta = np.concatenate([u, v, w])
        fd = np.empty(3 * p)
        for i in range(3 * p):
            e = np.zeros(3 * p)
            e[i] = h
            lp = loss(*np.split(theta + e, 3), eps)
            lm = loss(*np.split(theta - e, 3), eps)
            fd[i] = (lp - lm) / (2 * h)
        got = np.concatenate(gradient(u, v, w, eps))
        # Central differences: rounding 2 delta_L / (2h), delta_L the loss's rounding
        # (_loss_rounding), and truncation h^2 |L^(3)| / 6.  Along u(a) (or v(b)) each of the
        # 2p - 1 touched examples contributes l(z) = f(sigma(z)), f(h) = lse(h w) - h w(y), with
        # |f^(1)| <= 2 W, |f^(2)| <= W^2, |f^(3)| <= 8 W^3 (W = max|w|; cumulants of w under q)
        # and, from psi^(1) <= 2, psi^(2) <= 10, psi^(3) <= 111 on (0, 1) (mpmath), sigma^(1) <= 3,
        # sigma^(2) <= 14/eps, sigma^(3) <= 141/eps^2, so by the chain rule
        # |l^(3)| <= 27 |f^(3)| + 9 |f^(2)| sigma^(2) + |f^(1)| sigma^(3).
        # Along w(c) all p^2 examples are touched, each with |d^3 / dw(c)^3| <= |z|^3.
        z = np.abs(u[:, None] + v[None, :])
        W = np.abs(w).max()
        per_example = 27 * 8 * W**3 + 9 * W**2 * 14 / eps + 2 * W * 141 / eps**2
        third = max((2 * p - 1) * per_example, p**2 * z.max() ** 3) / p**2
        fd_tol = h**2 / 6 * third + 2 * _loss_rounding(u, v, w, eps) / (2 * h)
        assert_close(got, fd, fd_tol)
        assert np.max(np.abs(got)) > 1e-3  # not a vacuous comparison


@pytest.mark.parametrize("p", [5, 7])
def test_gradient_is_relu_gradient_outside_dead_zone(p):
    rng = np.random.default_rng(200 + p)
    eps = 1.0
    for _ in range(3):
        # rows a >= 2: gates ~ +-3 (far outside (0, eps)); row 0: gates v(b) <= 0 with
        # z[0, 0] = 0 exactly; row 1: gates eps + (v(b) + 1/2) >= eps with z[1, 1] = eps exactly
        u = rng.choice([-3.0, 3.0], p) + rng.uniform(-0.2, 0.2, p)
        v = -rng.uniform(0.0, 0.5, p)
        u[0], v[0] = 0.0, 0.0
        u[1], v[1] = eps + 0.5, -0.5
        w = 2.0 * rng.normal(size=p)
        z = u[:, None] + v[None, :]
        assert z[0, 0] == 0.0 and z[1, 1] == eps and not np.any((z > 0) & (z < eps))
        # Outside (0, eps) sigma = ReLU and sigma' = 1{z >= eps} exactly in floats, so both
        # routes evaluate the same formulas on the same numbers, up to the order of the
        # sums: per entry, sums of at most p^2 per-example terms of size (|z| + 2 max|w|)/p^2.
        entry = (z.max() + 2 * np.abs(w).max()) / p**2
        assert_close(np.concatenate(gradient(u, v, w, eps)),
                     np.concatenate(relu_gradient(u, v, w, relu_prime_at_zero=0.0)),
                     2 * rounding(entry * p**2, 2 * p + 10 + p**2))
        assert loss(u, v, w, eps) == pytest.approx(relu_loss(u, v, w), rel=0, abs=2 * _loss_rounding(u, v, w, eps))


def test_factored_rates_match_full_gradient():
    """The factored d theta/ds (sigma/sigma' in front) against the full-table gradient quotient."""
    rng = np.random.default_rng(3)
    eps = 2.0
    for p in (5, 7):
        for s in (3.0, 1.9, 1.0, 0.3, 0.05, eps / 390):
            u, v = two_level(p, s / 2, -1.0 - s), two_level(p, s / 2, -1.0 - s)
            u[0] += 0.1
            v[0] -= 0.1
            u[1:] += rng.uniform(-0.05, 0.05, p - 1)
            w = two_level(p, -2.0, 0.0) + rng.uniform(-0.3, 0.3, p)
            theta = np.concatenate([u, v, w])
            full = smooth._rates_full(theta, p, eps)
            factored = smooth._rates_factored(theta, p, eps)
            # The full route divides gradient entries (sums of p^2 per-example terms, which
            # cancel to the central example's: relative error (2p + 10 + p^2) EPS times the
            # sum of |terms| over the result, here ~1 as only the central example is active)
            # by gu(0) + gv(0) (sigma'(s) D / p^2, relative error of sigma' plus the sums); the
            # factored route multiplies sigma/sigma' (its relative error) by (q - e_0)/(2 D).
            err = smooth_activation_errors(s / eps) if s < eps else None
            rel_act = 0.0 if err is None else float(err["ratio"] + err["sigma"] + err["sigma_prime"])
            rel = rel_act + 2 * relative_rounding(2 * p + 10 + p**2)
            assert_close(factored, full, rel * np.abs(full))
            # and directly from gradient: d theta/ds = grad/(gu0 + gv0)
            gu, gv, gw = gradient(u, v, w, eps)
            assert_close(factored[2 * p:], gw / (gu[0] + gv[0]), rel * np.abs(full[2 * p:]))


# ---------------------------------------------------------------------------------------------
# the flow
# ---------------------------------------------------------------------------------------------


def _w_error(r, rows=None):
    """Integration-error estimate of w (tests/tolerances.py): nfev (>= DOP853's steps) local
    errors rtol |w_i| + atol, |w_i| the largest along the path."""
    top = np.abs(r.w_path).max() if r.w_path is not None else max(np.abs(r.w).max(), np.abs(r.w_limit).max())
    return float(integration_tolerance(top, r.nfev, RTOL, ATOL))


def _clock_rounding(r, size):
    """u(0), v(0) move at the rate 1/2 in the clock s (exactly 1/2 in the factored form, and
    gu(0)/(gu(0) + gv(0)) with gu(0) = gv(0) in the full one): every Runge-Kutta step keeps
    them on their lines up to one rounding of ``size`` per step (nfev steps at most, 10 more
    for the last step and the test's arithmetic)."""
    return float(rounding(size, r.nfev + 10))


def _mean_rounding(r, w_abs):
    """mean(w) is a linear invariant (the w-rates sum to 0): kept by every Runge-Kutta step up
    to rounding, (p + 2) roundings of size max|w| per step, plus the p^2-term sums inside
    the gradient that make the rates cancel."""
    p = len(r.w)
    return float(rounding(w_abs, (p + 2) * (r.nfev + 10) + p**2))


def _base_point(p):
    """(A.48)-(A.49) with s0 = 1, w(0) = -A = -2, u(j) = v(j) = -B = -1."""
    return two_level(p, S0 / 2, -B), two_level(p, S0 / 2, -B), two_level(p, -A, 0.0)


@pytest.fixture(scope="module", params=[5, 7])
def base_run(request):
    p = request.param
    u, v, w = _base_point(p)
    return p, (u, v, w), simulate_smooth(u, v, w, EPS, dense=True)


def _closed_form_w(p, w0, J_drop):
    """Two-level w after g^2 has dropped by ((p-1)/p) J_drop (module docstring)."""
    mu = w0.mean()
    g = math.sqrt((mu - w0[0]) ** 2 - (p - 1) / p * J_drop)
    out = np.full(p, mu + g / (p - 1))
    out[0] = mu - g
    return out


def test_base_run_invariants(base_run):
    p, (u0, v0, w0), r = base_run
    assert isinstance(r, SmoothResult)
    s = r.s_path
    # u(0) - v(0) constant and u(0) + v(0) = s (the clock) with du(0)/ds = dv(0)/ds = 1/2
    one = _clock_rounding(r, S0)
    assert s[0] == S0 and r.s_end == pytest.approx(r.s_min, rel=0, abs=2 * one) and r.s_min == EPS / 400
    assert np.all(np.diff(s) < 0)
    assert_close(r.u_path[:, 0] - r.v_path[:, 0], u0[0] - v0[0], 2 * one)
    assert_close(r.u_path[:, 0], u0[0] - (S0 - s) / 2, one + float(rounding(S0, 3)))
    assert_close(r.u_path[:, 0] + r.v_path[:, 0], s, 2 * one)
    # u(j), v(j) never move (their examples are dead), mean(w) conserved (A.22 analog)
    assert np.all(r.u_path[:, 1:] == u0[1:]) and np.all(r.v_path[:, 1:] == v0[1:])
    assert_close(r.w_path.mean(axis=1), w0.mean(), _mean_rounding(r, np.abs(r.w_path).max()))
    # the other gates only decrease, so their maximum is the start's s0/2 - B = -0.5, exact in floats
    assert r.max_other_gate == S0 / 2 - B and r.max_other_gate < 0


def test_base_run_two_level_and_flat_spectrum(base_run):
    p, _, r = base_run
    # The w(j), j != 0, obey the same equation from the same start, so they can differ only by
    # rounding (each step's rates are computed from equal numbers; the flow does not amplify
    # the difference, the wrong-class spread being a non-expanding direction): two roundings
    # of size max|w| per step.  u(j), v(j) never move.
    spread = float(rounding(np.abs(r.w_path).max(), 2 * (r.nfev + 10)))
    for x in (r.u, r.v):
        assert np.ptp(x[1:]) == 0
    for x in (r.w, r.w_limit):
        assert np.ptp(x[1:]) <= spread
    # A two-level state has flat fractions: off by at most sqrt(p) * spread (Euclidean).
    for state in ((r.u, r.v, r.w), (r.u_limit, r.v_limit, r.w_limit)):
        tol = fourier_fraction_tolerance(*state, perturbation=math.sqrt(p) * spread)
        assert_close(fourier_fractions(*state), 2 / (p - 1), tol)
    assert r.u_limit[0] + r.v_limit[0] == 0.0


def test_base_run_matches_closed_form(base_run):
    p, (_, _, w0), r = base_run
    J_s0 = _mp_J(S0, EPS)
    # the whole limit, from the reduced dynamics (solver error only)
    w_inf = _closed_form_w(p, w0, float(J_s0))
    # The limit estimate: the integration error of w, plus the error of freezing q and D below
    # s_end (relative O(sigma(s_end) max|w|) and O(J(s_end)/g_*^2) of the tail, itself <= tail_bound),
    # plus the closed form's rounding (a square root and a few operations on terms <= mu^2 + g^2).
    frozen = r.tail_bound * (4 * float(sigma(r.s_end, EPS)) * np.abs(r.w).max() + 2 * r.J_end / r.g_star**2)
    closed = float(rounding(w0.mean() ** 2 + (w0.mean() - w0[0]) ** 2 + 1, 8))
    assert_close(r.w_limit, w_inf, _w_error(r) + frozen + closed)
    assert np.sum(np.abs(r.w - w_inf)) <= r.tail_bound
    # samples along the path: g(s)^2 = g(0)^2 - ((p-1)/p)(J(s0) - J(s))
    for k in np.linspace(1, len(r.s_path) - 1, 4).astype(int):
        drop = float(_mp_J(S0, EPS, lower=r.s_path[k]))
        assert_close(r.w_path[k], _closed_form_w(p, w0, drop), _w_error(r) + closed)


def test_base_run_paper_bounds(base_run):
    p, (_, _, w0), r = base_run
    J_s0 = float(_mp_J(S0, EPS))
    g0 = w0.mean() - w0[0]
    g_star = math.sqrt(g0**2 - J_s0)
    J_tol = dead_zone_integral_tolerance(S0, EPS, J_s0)
    # g_* = sqrt(g0^2 - J): d g_* = (dJ + rounding of g0^2 - J) / (2 g_*), then the square root.
    g_tol = (J_tol + float(rounding(g0**2 + J_s0, 3))) / (2 * g_star) + float(rounding(g_star, 1))
    assert r.J_s0 == pytest.approx(J_s0, rel=0, abs=J_tol) and r.g_star == pytest.approx(g_star, rel=0, abs=g_tol)
    # (A.68) along the run
    g = r.w_path.mean(axis=1) - r.w_path[:, 0]
    assert np.all(g**2 >= g_star**2)
    # (A.69): total displacement of w, through s_min and in the limit
    assert np.sum(np.abs(r.w - w0)) <= J_s0 / g_star
    assert np.sum(np.abs(r.w_limit - w0)) <= J_s0 / g_star
    # the tail bound is J(s_min)/g_*, with J(s_min) ~ s_min^3/(3 eps) (1 + O(s/eps), as in
    # test_J_small_s_asymptotics)
    J_end = float(_mp_J(r.s_end, EPS))
    rel = dead_zone_integral_tolerance(r.s_end, EPS, J_end) / J_end + g_tol / g_star + relative_rounding(1)
    assert r.tail_bound == pytest.approx(J_end / g_star, rel=rel, abs=0)
    assert r.tail_bound == pytest.approx(r.s_end**3 / (3 * EPS * g_star), rel=3 * r.s_end / EPS, abs=0)


def test_smaller_s_min_moves_w_by_less_than_tail_bound(base_run):
    p, (u, v, w), r = base_run
    lower = simulate_smooth(u, v, w, EPS, s_min=r.s_min / 2)
    moved = np.sum(np.abs(lower.w - r.w))
    assert moved <= r.tail_bound
    assert moved > 0.3 * r.tail_bound  # the tail is real and the bound is not vacuous
    # the limit estimate hardly depends on where the run stops: both are within their
    # integration errors (and the frozen-tail error, far below) of the same limit
    assert_close(lower.w_limit, r.w_limit, _w_error(lower) + _w_error(r))
    # below eps/400 the factored rates take over; a run to 1e-5 still lands on the limit,
    # within its tail bound
    deep = simulate_smooth(u, v, w, EPS, s_min=1e-5)
    assert_close(deep.w, r.w_limit, _w_error(deep) + _w_error(r) + deep.tail_bound)
    assert deep.tail_bound == pytest.approx(deep.s_end**3 / (3 * EPS * deep.g_star), rel=3 * deep.s_end / EPS, abs=0)


def _box_point(rng, p, radius=0.05, corner=False):
    base = np.concatenate(_base_point(p))
    offset = radius * (rng.choice([-1.0, 1.0], 3 * p) if corner else rng.uniform(-1.0, 1.0, 3 * p))
    return np.split(base + offset, 3)


@pytest.mark.parametrize("p", [5, 7])
def test_box_points(p):
    rng = np.random.default_rng(7 * p)
    for k in range(3):
        u, v, w = _box_point(rng, p, corner=(k == 1))
        r = simulate_smooth(u, v, w, EPS, dense=True)
        s0 = u[0] + v[0]
        # no other gate turns on (they cannot: u(j), v(j) are frozen, u(0), v(0) decrease)
        assert r.max_other_gate < 0 and np.all(r.u_path[:, 1:] == u[1:]) and np.all(r.v_path[:, 1:] == v[1:])
        assert_close(r.w_path.mean(axis=1), w.mean(), _mean_rounding(r, np.abs(r.w_path).max()))
        J_s0 = float(_mp_J(s0, EPS))
        g0 = w.mean() - w[0]
        g_star = math.sqrt(g0**2 - J_s0)
        # as in test_base_run_paper_bounds, g0 = mean(w) - w(0) rounding p + 2 times on terms <= max|w|
        g0_tol = float(rounding(np.abs(w).max(), p + 2))
        g_tol = (dead_zone_integral_tolerance(s0, EPS, J_s0) + 2 * abs(g0) * g0_tol + float(rounding(g0**2 + J_s0, 3))) / (2 * g_star)
        assert r.g_star == pytest.approx(g_star, rel=0, abs=g_tol + float(rounding(g_star, 1)))
        assert np.sum(np.abs(r.w - w)) <= (J_s0 - float(_mp_J(r.s_end, EPS))) / g_star
        assert np.sum(np.abs(r.w_limit - w)) <= J_s0 / g_star
        assert np.max(fourier_fractions(r.u_limit, r.v_limit, r.w_limit)) < 1


def test_other_gate_event_raises(monkeypatch):
    """The event fails loudly; the true flow never triggers it, so the rates are perturbed."""
    p = 5
    u, v, w = _base_point(p)
    true_rates = smooth._rates
    calls = []

    def pushed(theta, p_, eps):
        calls.append(1)
        out = true_rates(theta, p_, eps).copy()
        out[1] = -10.0  # as s decreases, u(1) increases
        return out

    monkeypatch.setattr(smooth, "_rates", pushed)
    with pytest.raises(OtherGateActivated) as info:
        simulate_smooth(u, v, w, EPS)
    assert info.value.gate == (1, 0)
    # The gate u(1) + v(0) moves at the constant rate -10 + 1/2 in s: at the located event it is
    # within brentq's 4 EPS (1 + s) of the root times that rate, plus the dense output's
    # rounding (~40 operations of size <= 1).
    residual = 9.5 * 8 * MACHINE_EPS * (1 + info.value.s) + float(rounding(1.0, 40))
    assert info.value.u[1] + info.value.v[0] == pytest.approx(0.0, rel=0, abs=residual)
    # gate (1, 0) = -1 + 10 (1 - s) + s/2 reaches 0 at s = 18/19: constant rates, so the state
    # is exact up to one rounding per step (len(calls) evaluations >= steps), the residual
    # and the rate 9.5 converting gate error into s error.
    gate_err = residual + float(rounding(1.0, len(calls) + 10)) * 2
    assert info.value.s == pytest.approx(18 / 19, rel=0, abs=gate_err / 9.5)


def test_clock_failure_without_A67():
    """g(0) small and J(s0) large: D -> 0, s would turn around; the run fails loudly."""
    u = two_level(5, 1.5, -2.0)
    with pytest.raises(RuntimeError, match="D"):
        simulate_smooth(u, u, two_level(5, -0.2, 0.0), EPS)


# ---------------------------------------------------------------------------------------------
# bad inputs
# ---------------------------------------------------------------------------------------------


def test_bad_inputs_raise():
    u, v, w = _base_point(5)
    for bad_eps in (0.0, -1.0, math.nan, math.inf, "x", None):
        with pytest.raises(ValueError):
            sigma(0.5, bad_eps)
        with pytest.raises(ValueError):
            simulate_smooth(u, v, w, bad_eps)
    for f in (psi, psi_prime):
        with pytest.raises(ValueError):
            f(np.array([0.1, math.nan]))
    with pytest.raises(ValueError):
        sigma_prime(math.nan, 1.0)
    with pytest.raises(ValueError):
        sigma_ratio(np.array([0.5, -1e-9]), 1.0)
    with pytest.raises(ValueError):
        ratio_integral(-1.0, 1.0)
    with pytest.raises(ValueError, match="central gate"):
        simulate_smooth(two_level(5, -0.5, -1), v, w, EPS)
    hot = u.copy()
    hot[2] = 0.6  # gate (2, 0) = 1.1 > 0
    with pytest.raises(ValueError, match=r"gate \(2, 0\)"):
        simulate_smooth(hot, v, w, EPS)
    for s_min in (0.0, -0.1, S0, 2.0, math.nan):
        with pytest.raises(ValueError, match="s_min"):
            simulate_smooth(u, v, w, EPS, s_min=s_min)
    with pytest.raises(ValueError, match="not decreasing"):
        simulate_smooth(u, v, two_level(5, 2.0, 0.0), EPS)
    with pytest.raises(ValueError):
        simulate_smooth(u[:4], v, w, EPS)
    with pytest.raises(ValueError):
        simulate_smooth(u, v, np.array([-2.0, 0, 0, 0, math.inf]), EPS)
    with pytest.raises(ValueError):
        gradient(u, v, w[:3], EPS)
    with pytest.raises(ValueError):
        loss(u, v, w, 0.0)

