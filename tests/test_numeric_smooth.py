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

# overflow / underflow / invalid-value warnings are failures (the functions must be quiet)
pytestmark = pytest.mark.filterwarnings("error")

S0, A, B, EPS = 1.0, 2.0, 1.0, 2.0
DPS = 30


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
    """Quotient rule on f(t)/(f(t) + f(1-t)) with f' = f/t^2."""
    t = mpmath.mpf(t)
    a, b = _mp_f(t), _mp_f(1 - t)
    da, db = _mp_f_prime(t), -_mp_f_prime(1 - t)
    return (da * (a + b) - a * (da + db)) / (a + b) ** 2


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
    assert np.max(np.abs(psi(t) + psi(1.0 - t) - 1.0)) <= 2**-52
    assert psi(0.5) == 0.5
    np.testing.assert_allclose(psi_prime(t), psi_prime(1.0 - t), rtol=1e-13, atol=0)


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
            assert psi(t) == pytest.approx(float(_mp_psi(t)), rel=1e-13)
            expected = float(_mp_psi_prime(t))
            assert psi_prime(t) == pytest.approx(expected, rel=1e-12)
            # the quotient-rule reference against numerical differentiation of psi itself
            assert float(mpmath.diff(_mp_psi, mpmath.mpf(t))) == pytest.approx(expected, rel=1e-20)


def test_psi_prime_finite_differences():
    t = np.linspace(0.01, 0.99, 99)
    h = 1e-6
    fd = (psi(t + h) - psi(t - h)) / (2 * h)
    np.testing.assert_allclose(psi_prime(t), fd, rtol=0, atol=1e-8)


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
            assert sigma(s, eps) == pytest.approx(float(_mp_sigma(s, eps)), rel=1e-13)
            assert sigma_prime(s, eps) == pytest.approx(float(_mp_sigma_prime(s, eps)), rel=1e-12)


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
        np.testing.assert_allclose(sigma_ratio(s, eps), direct, rtol=1e-12, atol=0)


def test_sigma_ratio_matches_mpmath():
    eps = 2.0
    with mpmath.workdps(DPS):
        # eps/5000: sigma and sigma' underflow in doubles, their quotient must not
        for s in (eps / 5000, eps / 300, 0.05, 0.5, 1.0, 1.5, 1.9, eps * (1 - 1e-3)):
            assert sigma_ratio(s, eps) == pytest.approx(float(_mp_ratio(s, eps)), rel=1e-12)
    assert sigma(eps / 5000, eps) == 0.0 and sigma_ratio(eps / 5000, eps) > 0


@pytest.mark.parametrize("s0, eps", [(1.0, 2.0), (3.0, 2.0), (0.005, 2.0)])
def test_J_matches_mpmath(s0, eps):
    expected = _mp_J(s0, eps)
    top = min(s0, eps)
    by_quad, _ = quad(lambda r: sigma_ratio(r, eps), 0.0, top, epsabs=0.0, epsrel=1e-13, limit=200)
    by_quad += max(s0 * s0 - eps * eps, 0.0) / 2
    assert by_quad == pytest.approx(float(expected), rel=1e-11)
    assert ratio_integral(s0, eps) == pytest.approx(float(expected), rel=1e-11)
    assert float(expected) <= s0**2 / 2


def test_J_small_s_asymptotics():
    """J(s) ~ s^3/(3 eps) as s -> 0 (phi(t) ~ t): the size of the tail below s_min."""
    eps = 2.0
    for s in (eps / 400, eps / 4000):
        assert ratio_integral(s, eps) == pytest.approx(s**3 / (3 * eps), rel=3 * s / eps)


# ---------------------------------------------------------------------------------------------
# loss and gradient
# ---------------------------------------------------------------------------------------------


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
        np.testing.assert_allclose(got, fd, rtol=0, atol=2e-8)
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
        np.testing.assert_allclose(np.concatenate(gradient(u, v, w, eps)),
                                   np.concatenate(relu_gradient(u, v, w, relu_prime_at_zero=0.0)),
                                   rtol=1e-14, atol=1e-16)
        assert loss(u, v, w, eps) == pytest.approx(relu_loss(u, v, w), rel=1e-15)


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
            np.testing.assert_allclose(factored, full, rtol=1e-13, atol=1e-300)
            # and directly from gradient: d theta/ds = grad/(gu0 + gv0)
            gu, gv, gw = gradient(u, v, w, eps)
            np.testing.assert_allclose(factored[2 * p:], gw / (gu[0] + gv[0]), rtol=1e-13)


# ---------------------------------------------------------------------------------------------
# the flow
# ---------------------------------------------------------------------------------------------


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
    assert s[0] == S0 and r.s_end == pytest.approx(r.s_min, abs=1e-14) and r.s_min == EPS / 400
    assert np.all(np.diff(s) < 0)
    # u(0) - v(0) constant and u(0) + v(0) = s (the clock) with du(0)/ds = dv(0)/ds = 1/2
    np.testing.assert_allclose(r.u_path[:, 0] - r.v_path[:, 0], u0[0] - v0[0], atol=1e-14)
    np.testing.assert_allclose(r.u_path[:, 0], u0[0] - (S0 - s) / 2, atol=1e-13)
    np.testing.assert_allclose(r.u_path[:, 0] + r.v_path[:, 0], s, atol=1e-13)
    # u(j), v(j) never move (their examples are dead), mean(w) conserved (A.22 analog)
    assert np.all(r.u_path[:, 1:] == u0[1:]) and np.all(r.v_path[:, 1:] == v0[1:])
    np.testing.assert_allclose(r.w_path.mean(axis=1), w0.mean(), rtol=0, atol=1e-14)
    assert r.max_other_gate == pytest.approx(S0 / 2 - B) and r.max_other_gate < 0


def test_base_run_two_level_and_flat_spectrum(base_run):
    p, _, r = base_run
    for x in (r.u, r.v, r.w, r.w_limit):
        assert np.ptp(x[1:]) <= 1e-13
    for state in ((r.u, r.v, r.w), (r.u_limit, r.v_limit, r.w_limit)):
        np.testing.assert_allclose(fourier_fractions(*state), 2 / (p - 1), rtol=0, atol=1e-12)
    assert r.u_limit[0] + r.v_limit[0] == 0.0


def test_base_run_matches_closed_form(base_run):
    p, (_, _, w0), r = base_run
    J_s0 = _mp_J(S0, EPS)
    # the whole limit, from the reduced dynamics (solver error only)
    w_inf = _closed_form_w(p, w0, float(J_s0))
    np.testing.assert_allclose(r.w_limit, w_inf, rtol=0, atol=1e-10)
    assert np.sum(np.abs(r.w - w_inf)) <= r.tail_bound
    # samples along the path: g(s)^2 = g(0)^2 - ((p-1)/p)(J(s0) - J(s))
    for k in np.linspace(1, len(r.s_path) - 1, 4).astype(int):
        drop = float(_mp_J(S0, EPS, lower=r.s_path[k]))
        np.testing.assert_allclose(r.w_path[k], _closed_form_w(p, w0, drop), rtol=0, atol=1e-10)


def test_base_run_paper_bounds(base_run):
    p, (_, _, w0), r = base_run
    J_s0 = float(_mp_J(S0, EPS))
    g0 = w0.mean() - w0[0]
    g_star = math.sqrt(g0**2 - J_s0)
    assert r.J_s0 == pytest.approx(J_s0, rel=1e-11) and r.g_star == pytest.approx(g_star, rel=1e-12)
    # (A.68) along the run
    g = r.w_path.mean(axis=1) - r.w_path[:, 0]
    assert np.all(g**2 >= g_star**2)
    # (A.69): total displacement of w, through s_min and in the limit
    assert np.sum(np.abs(r.w - w0)) <= J_s0 / g_star
    assert np.sum(np.abs(r.w_limit - w0)) <= J_s0 / g_star
    # the tail bound is J(s_min)/g_*, with J(s_min) ~ s_min^3/(3 eps)
    assert r.tail_bound == pytest.approx(float(_mp_J(r.s_end, EPS)) / g_star, rel=1e-9)
    assert 1e-9 < r.tail_bound < 1e-7


def test_smaller_s_min_moves_w_by_less_than_tail_bound(base_run):
    p, (u, v, w), r = base_run
    lower = simulate_smooth(u, v, w, EPS, s_min=r.s_min / 2)
    moved = np.sum(np.abs(lower.w - r.w))
    assert moved <= r.tail_bound
    assert moved > 0.3 * r.tail_bound  # the tail is real and the bound is not vacuous
    # the limit estimate hardly depends on where the run stops
    np.testing.assert_allclose(lower.w_limit, r.w_limit, rtol=0, atol=1e-10)
    # below eps/400 the factored rates take over; a run to 1e-5 still lands on the limit
    deep = simulate_smooth(u, v, w, EPS, s_min=1e-5)
    np.testing.assert_allclose(deep.w, r.w_limit, rtol=0, atol=1e-10)
    assert deep.tail_bound < 1e-15


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
        np.testing.assert_allclose(r.w_path.mean(axis=1), w.mean(), rtol=0, atol=1e-14)
        J_s0 = float(_mp_J(s0, EPS))
        g_star = math.sqrt((w.mean() - w[0]) ** 2 - J_s0)
        assert r.g_star == pytest.approx(g_star, rel=1e-12)
        assert np.sum(np.abs(r.w - w)) <= (J_s0 - float(_mp_J(r.s_end, EPS))) / g_star
        assert np.sum(np.abs(r.w_limit - w)) <= J_s0 / g_star
        assert np.max(fourier_fractions(r.u_limit, r.v_limit, r.w_limit)) < 1


def test_other_gate_event_raises(monkeypatch):
    """The event fails loudly; the true flow never triggers it, so the rates are perturbed."""
    p = 5
    u, v, w = _base_point(p)
    true_rates = smooth._rates

    def pushed(theta, p_, eps):
        out = true_rates(theta, p_, eps).copy()
        out[1] = -10.0  # as s decreases, u(1) increases
        return out

    monkeypatch.setattr(smooth, "_rates", pushed)
    with pytest.raises(OtherGateActivated) as info:
        simulate_smooth(u, v, w, EPS)
    assert info.value.gate == (1, 0)
    assert info.value.u[1] + info.value.v[0] == pytest.approx(0.0, abs=1e-9)
    # gate (1, 0) = -1 + 10 (1 - s) + s/2 reaches 0 at s = 18/19
    assert info.value.s == pytest.approx(18 / 19, rel=1e-8)


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

