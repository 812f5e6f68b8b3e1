"""Tests for certify.numeric.flow: simulated death of the neuron and one GD step.

The simulated full 3p-dimensional flow is compared with the paper's closed
forms for the symmetric base point (2.1): the death time
T = (p^2/2) int_0^eps (1 + e^{-s g(s)}/(p-1)) / g(s) ds (from (2.2) and (2.6)),
evaluated with mpmath at 30 digits, and the terminal state of section 2.1.
"""

import inspect
import math

import mpmath
import numpy as np
import pytest

from certify.numeric.flow import (
    DeathResult,
    OtherGateActivated,
    default_t_max,
    is_stationary,
    simulate_gd_step,
    simulate_until_death,
)
from certify.numeric.fourier import fourier_fractions
from certify.numeric.points import two_level
from certify.numeric import flow
from certify.numeric.model import balance_quantity, gradient
from tolerances import (
    assert_close,
    event_residual,
    fourier_fraction_tolerance,
    integration_tolerance,
    relative_rounding,
    rounding,
)

EPS, A, B = 1.0, 2.0, 1.0
_DEFAULTS = inspect.signature(simulate_until_death).parameters
RTOL, ATOL = _DEFAULTS["rtol"].default, _DEFAULTS["atol"].default


def _state_error(theta_rows, nfev):
    """Global-error estimate of each component (tests/tolerances.py): nfev (>= the number of
    DOP853 steps) local errors rtol |theta_i| + atol, |theta_i| its running maximum."""
    rows = np.atleast_2d(np.abs(theta_rows))
    return integration_tolerance(np.maximum.accumulate(rows, axis=0), nfev, RTOL, ATOL)


def _balance_tolerance(theta, err, theta0):
    """|B(theta) - B(theta0)|: B moves by 2 sum |theta_i| err_i + err_i^2 through the state error,
    and each B rounds 3p squares that cancel (3p roundings of ||theta||^2)."""
    p3 = theta.shape[-1]
    return ((2 * np.abs(theta) * err + err**2).sum(-1) + rounding((theta**2).sum(-1), p3)
            + rounding(theta0 @ theta0, p3))



def _base_point(p, eps=EPS, A=A, B=B):
    """Base point (2.1): u(0)=v(0)=eps/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0."""
    return two_level(p, eps / 2, -B), two_level(p, eps / 2, -B), two_level(p, -A, 0.0)


def _reduced_time(p, s_from, s_to, w0, eps):
    """Time for s to go from s_from to s_to under (2.2), with g(s) from the invariant (2.6).

    (2.6) with g(0) = -w0 gives g(s)^2 = w0^2 + p (s^2 - eps^2) / (2(p-1)); g keeps the
    sign of -w0.  From (2.2), dt = -p^2 / (2 (1 - pi0) g) ds with 1/(1-pi0) = 1 + e^{-sg}/(p-1).
    """
    with mpmath.workdps(30):
        p_ = mpmath.mpf(p)
        sign = -1 if w0 > 0 else 1

        def g(s):
            return sign * mpmath.sqrt(mpmath.mpf(w0) ** 2 + p_ * (s**2 - mpmath.mpf(eps) ** 2) / (2 * (p_ - 1)))

        integrand = lambda s: -(p_**2) / 2 * (1 + mpmath.exp(-s * g(s)) / (p_ - 1)) / g(s)
        return float(mpmath.quad(integrand, [mpmath.mpf(s_from), mpmath.mpf(s_to)]))


@pytest.fixture(scope="module", params=[5, 7])
def base_death(request):
    p = request.param
    u, v, w = _base_point(p)
    return p, (u, v, w), simulate_until_death(u, v, w, dense=True)


def test_death_time_matches_closed_form(base_death):
    p, _, result = base_death
    assert isinstance(result, DeathResult)
    T = _reduced_time(p, EPS, 0.0, -A, EPS)
    # The brief's form: (p^2/2) int_0^eps (1 + e^{-s g}/(p-1))/g ds, Gamma = A^2 - p eps^2/(2(p-1)).
    with mpmath.workdps(30):
        Gamma = mpmath.mpf(A) ** 2 - p * mpmath.mpf(EPS) ** 2 / (2 * (p - 1))
        gs = lambda s: mpmath.sqrt(Gamma + p * s**2 / (2 * (p - 1)))
        T2 = float(p**2 / mpmath.mpf(2) * mpmath.quad(lambda s: (1 + mpmath.exp(-s * gs(s)) / (p - 1)) / gs(s), [0, EPS]))
    # Two 30-digit quadratures, each rounded once to a double (and accurate far beyond it).
    assert T == pytest.approx(T2, rel=relative_rounding(2), abs=0)
    # The event time is off by the integration error of s = u(0) + v(0) (two components) at
    # death divided by the speed -ds/dt there, (2.7): 2 (p - 1) sqrt(Gamma) / p^3.
    theta = np.concatenate([result.u, result.v, result.w])
    s_err = 2 * _state_error(result.states, result.nfev)[:, [0, p]].max()
    margin = 2 * (p - 1) * math.sqrt(float(Gamma)) / p**3
    assert result.t_death == pytest.approx(T, rel=0, abs=s_err / margin + event_residual(1.0, T, 1.0) / margin)
    # Upper bound of section 2: T <= p^3 eps / (2 (p-1) sqrt(Gamma)).
    assert result.t_death <= p**3 * EPS / (2 * (p - 1) * math.sqrt(float(Gamma)))


def test_terminal_state_matches_section_2_1(base_death):
    p, (u0, v0, w0), result = base_death
    Gamma = A**2 - p * EPS**2 / (2 * (p - 1))
    mu = -A / p  # sum(w) is conserved: the w-gradient of each example sums to 0
    expected_w = np.full(p, mu + math.sqrt(Gamma) / p)
    expected_w[0] = mu - (p - 1) * math.sqrt(Gamma) / p
    err = _state_error(result.states, result.nfev)[-1]
    # w: its integration error, plus the closed form's rounding (a few operations on terms <= A).
    assert_close(result.w, expected_w, err[2 * p:] + rounding(A + math.sqrt(Gamma), 8), "w(T)")
    # The death event: s = u(0) + v(0) vanishes up to the event residual (-ds/dt <= 4 max|w| / p^2
    # by (2.2)); u(0) - v(0) = 0 is a linear invariant (gu[0] = gv[0] while only (0, 0) is
    # active), kept by every Runge-Kutta step up to one rounding of size |u(0)| <= EPS/2 per step.
    s_tol = event_residual(4 * A / p**2, result.t_death, EPS)
    assert abs(result.s_at_death) <= s_tol
    half_tol = s_tol / 2 + rounding(EPS / 2, result.nfev + 10)
    assert abs(result.u[0]) <= half_tol and abs(result.v[0]) <= half_tol  # (2.8)
    # Coordinates with only inactive gates never move, not even by rounding.
    np.testing.assert_array_equal(result.u[1:], u0[1:])
    np.testing.assert_array_equal(result.v[1:], v0[1:])


def test_balance_quantity_conserved(base_death):
    p, (u0, v0, w0), result = base_death
    theta0 = np.concatenate([u0, v0, w0])
    err = _state_error(np.vstack([result.states, np.concatenate([result.u, result.v, result.w])]), result.nfev)
    final = np.concatenate([result.u, result.v, result.w])
    assert balance_quantity(result.u, result.v, result.w) == pytest.approx(
        balance_quantity(u0, v0, w0), rel=0, abs=_balance_tolerance(final, err[-1], theta0))
    for row, row_err in zip(result.states, err):
        assert balance_quantity(row[:p], row[p : 2 * p], row[2 * p :]) == pytest.approx(
            balance_quantity(u0, v0, w0), rel=0, abs=_balance_tolerance(row, row_err, theta0)
        )


def test_terminal_fourier_fractions_are_flat(base_death):
    p, _, result = base_death
    # The true terminal state is two-level (u(j), v(j) never move; the w(j), j != 0, follow the
    # same equation), flat by section 2.1: the integrated one is within the integration
    # error of the w(j) (the u(0), v(0) entries are free in a two-level block).
    err = _state_error(result.states, result.nfev)[-1]
    off = float(np.linalg.norm(err[2 * p + 1:]))
    tol = fourier_fraction_tolerance(result.u, result.v, result.w, off)
    assert_close(fourier_fractions(result.u, result.v, result.w), 2.0 / (p - 1), tol, "F_zeta")


def test_terminal_state_is_stationary_only_under_zero_convention(base_death):
    p, _, result = base_death
    assert is_stationary(result.u, result.v, result.w)
    # Under ReLU'(0) = 1 the kink pushes u(0), v(0) by gamma/p^2 = (mu - w(0))/p^2 > 0.
    u, v = result.u.copy(), result.v.copy()
    m = (u[0] - v[0]) / 2
    u[0], v[0] = m, -m
    gu, gv, gw = gradient(u, v, result.w, relu_prime_at_zero=1.0)
    gamma = result.w.mean() - result.w[0]
    # gamma = mean(w) - w(0) from two routes (uniform softmax against mean): each cancels
    # terms of size max|w| in about p + 5 operations.
    gamma_tol = 2 * rounding(np.abs(result.w).max(), p + 5) / p**2
    assert gu[0] == pytest.approx(gamma / p**2, rel=0, abs=gamma_tol) and gamma > 0
    np.testing.assert_array_equal(gw, 0.0)


def test_max_other_gate_and_dense_series(base_death):
    p, _, result = base_death
    # Cross gates s/2 - B only decrease and off-cross gates stay at -2B: the max is at t = 0.
    # ... so it is the start's 0.5 - 1, exact in floats.
    assert result.max_other_gate == EPS / 2 - B
    assert result.max_other_gate < 0
    assert np.all(np.diff(result.times) > 0)
    assert result.times[-1] == result.t_death  # solve_ivp ends a terminal event at the event time
    assert np.all(np.diff(result.central_gate) < 0)  # (2.2): s strictly decreases
    assert result.states.shape == (len(result.times), 3 * p)
    assert result.nfev > 0


def test_not_dense_has_no_series():
    result = simulate_until_death(*_base_point(5))
    assert result.times is None and result.central_gate is None and result.states is None


def test_perturbed_start_dies_within_a6_bound_and_is_not_pure():
    # Theorem A.2 near the base point: generic (asymmetric) start, bound T <= p^2 s0/(2 gamma_*).
    rng = np.random.default_rng(3)
    p = 7
    u, v, w = (x + 0.05 * rng.normal(size=p) for x in _base_point(p))
    result = simulate_until_death(u, v, w, dense=True)
    s0 = u[0] + v[0]
    gamma_in = w.mean() - w[0]
    gamma_star = math.sqrt(gamma_in**2 - s0**2 / 2)
    assert 0 < result.t_death <= p**2 * s0 / (2 * gamma_star)
    theta0, final = np.concatenate([u, v, w]), np.concatenate([result.u, result.v, result.w])
    err = _state_error(np.vstack([result.states, final]), result.nfev)[-1]
    assert balance_quantity(result.u, result.v, result.w) == pytest.approx(
        balance_quantity(u, v, w), rel=0, abs=_balance_tolerance(final, err, theta0))
    # u(0) - v(0): a linear invariant (gu[0] = gv[0] while only (0, 0) is active), kept up to
    # one rounding of each coordinate per step.
    assert result.u[0] - result.v[0] == pytest.approx(
        u[0] - v[0], rel=0, abs=2 * rounding(max(abs(u[0]), abs(v[0])), result.nfev + 10))
    assert max(fourier_fractions(result.u, result.v, result.w)) < 1 - 0.1
    assert is_stationary(result.u, result.v, result.w)


def test_second_active_gate_rejected():
    p = 5
    u, v, w = _base_point(p)
    u[3] = 0.6  # gate (3, 0) = 0.6 + 0.5 > 0
    with pytest.raises(ValueError, match=r"\(3, 0\)"):
        simulate_until_death(u, v, w)
    u, v, w = _base_point(p)
    v[2] = -0.5  # gate (0, 2) exactly at the kink is not strictly inactive
    with pytest.raises(ValueError, match=r"\(0, 2\)"):
        simulate_until_death(u, v, w)
    u, v, w = _base_point(p)
    u[0] = v[0] = -0.1
    with pytest.raises(ValueError, match=r"\(0, 0\)"):
        simulate_until_death(u, v, w)


def test_cross_gate_activates_when_correct_logit_is_largest(monkeypatch):
    # With w(0) = +A the correct class already wins, g = w(j) - w(0) < 0, and (2.2) makes
    # s grow, so u(0) = v(0) = s/2 rise and the cross gate (0, 2) = s/2 + v(2) reaches 0
    # at s = -2 v(2).  Its time follows from (2.2) and (2.6) with negative g.
    p = 5
    u, v, w = _base_point(p, eps=1.0, A=-1.0, B=0.55)
    v[2] = -0.52  # makes (0, 2) the first cross gate to open
    # t_max well past the expected ~0.84 but short: should the event ever be missed, the
    # integration would run on into the multi-gate sliding regime, where DOP853 chatters
    # for minutes; this way the failure is a quick RuntimeError instead.
    calls = []  # the exception carries no nfev: count the vector-field evaluations here
    field = flow._active_gradient
    monkeypatch.setattr(flow, "_active_gradient", lambda *a, **k: calls.append(1) or field(*a, **k))
    with pytest.raises(OtherGateActivated, match=r"\(0, 2\)") as info:
        simulate_until_death(u, v, w, t_max=1.5)
    assert info.value.gate == (0, 2)
    # The true flow has u(0) = v(0) = s/2 (equal rates from equal starts) and v(2) = -0.52 (its
    # gates are inactive), so the event u(0) + v(2) = 0 means s = 1.04.  The integrated state
    # is off by the integration error of u(0), v(0), v(2) (the step that crosses the event
    # already feels the opening gate, whose error it controls like any other), plus the
    # event residual (the gate moves at |ds/dt|/2 <= 2 max|w|/p^2).
    t = info.value.t
    theta = np.concatenate([info.value.u, info.value.v, info.value.w])
    err = _state_error(np.maximum(np.abs(theta), np.abs(np.concatenate([u, v, w]))), len(calls))[0]
    residual = event_residual(2 * abs(w).max() / p**2, t, 1.0)
    assert info.value.u[0] + info.value.v[0] == pytest.approx(
        1.04, rel=0, abs=err[0] + err[p] + 2 * err[p + 2] + 2 * residual)
    # The event time is off by the integration error of the gate (u(0) and v(2)) over its speed.
    expected_t = _reduced_time(p, 1.0, 1.04, 1.0, 1.0)
    g = info.value.w
    pi0 = 1 / (1 + (p - 1) * math.exp(1.04 * (g[1] - g[0])))
    speed = (1 - pi0) * abs(g[1] - g[0]) / p**2  # d u(0)/dt = -(ds/dt)/2, (2.2)
    gate_err = err[0] + err[p + 2]
    assert t == pytest.approx(expected_t, rel=0, abs=(gate_err + residual) / speed)


def test_t_max_exhausted_raises():
    u, v, w = _base_point(5)
    with pytest.raises(RuntimeError, match="no death"):
        simulate_until_death(u, v, w, t_max=1.0)


def test_default_t_max_covers_death():
    p = 5
    u, v, w = _base_point(p)
    gamma_in = w.mean() - w[0]
    gamma_star = math.sqrt(gamma_in**2 - EPS**2 / 2)
    # The same expression (2 p^2 s0 / (2 gamma_*)) up to exact factors of 2: a few roundings.
    assert default_t_max(u, v, w) == pytest.approx(p**2 * EPS / gamma_star, rel=relative_rounding(4), abs=0)
    assert default_t_max(u, v, w) > _reduced_time(p, EPS, 0.0, -A, EPS)


def test_is_stationary_preconditions():
    u, v, w = _base_point(5)
    with pytest.raises(ValueError, match="kink"):
        is_stationary(u, v, w)  # central gate still active


def test_gd_step_is_theta_minus_eta_gradient():
    rng = np.random.default_rng(11)
    p = 7
    u, v, w = rng.normal(size=(3, p))
    copies = (u.copy(), v.copy(), w.copy())
    eta = 0.37
    gu, gv, gw = gradient(u, v, w)
    u1, v1, w1 = simulate_gd_step(u, v, w, eta)
    np.testing.assert_array_equal(u1, u - eta * gu)
    np.testing.assert_array_equal(v1, v - eta * gv)
    np.testing.assert_array_equal(w1, w - eta * gw)
    for x, c in zip((u, v, w), copies):
        np.testing.assert_array_equal(x, c)  # inputs untouched
    with pytest.raises(ValueError):
        simulate_gd_step(u, v, w, -1.0)


@pytest.mark.parametrize("p", [5, 7])
def test_gd_one_step_death(p):
    # Section A.8: s1 = s0 - (2 eta/p^2) D(s0, w0) (A.70); with s0 < 2 eta g0/p^2 (A.71)
    # every gate is negative after one step and the next step changes nothing.
    eta = 50.0
    u, v, w = _base_point(p, eps=0.5)
    s0 = u[0] + v[0]
    g0 = w.mean() - w[0]
    assert s0 < 2 * eta * g0 / p**2
    logits = s0 * w
    q = np.exp(logits - logits.max())
    q /= q.sum()
    D = float(q @ w - w[0])  # (A.52)
    u1, v1, w1 = simulate_gd_step(u, v, w, eta)
    # s1 = s0 - eta (gu[0] + gv[0]): D cancels terms of size max|w| (softmax and dot product,
    # 2p + 10 operations, in both routes), then is scaled by 2 eta / p^2 and subtracted from s0.
    D_tol = 2 * rounding(np.abs(w).max(), 2 * p + 10)
    s1_tol = 2 * eta / p**2 * D_tol + rounding(abs(s0) + 2 * eta * abs(D) / p**2, 6)
    assert u1[0] + v1[0] == pytest.approx(s0 - 2 * eta * D / p**2, rel=0, abs=s1_tol)
    assert np.all(u1[:, None] + v1[None, :] < 0)
    u2, v2, w2 = simulate_gd_step(u1, v1, w1, eta)
    for a, b in ((u1, u2), (v1, v2), (w1, w2)):
        np.testing.assert_array_equal(a, b)
    # theta_1 is two-level (every j != 0 gets the same update from the same numbers): flat,
    # up to the rounding of the fractions.
    assert_close(fourier_fractions(u1, v1, w1), 2.0 / (p - 1), fourier_fraction_tolerance(u1, v1, w1), "F_zeta")


# ----------------------------------------------------------------------------------------------
# The O(p) vector field, loss and other-gate maximum against the full-table ones
# ----------------------------------------------------------------------------------------------


def _mixed_states():
    """States with one active gate (the chamber), several, none, and gates exactly at 0."""
    rng = np.random.default_rng(17)
    p = 7
    chamber = _base_point(p)
    several = tuple(rng.normal(size=(3, p)))
    none = (-np.ones(p), -np.ones(p), rng.normal(size=p))
    kink = (np.array([0.5, -0.5, 1.0, -2.0, 0.25, -1.0, 0.0]),
            np.array([-0.5, 0.5, -1.0, 0.0, -0.25, 1.5, -3.0]), rng.normal(size=p))
    return [chamber, several, none, kink]


@pytest.mark.parametrize("index", range(4))
def test_active_gradient_is_the_zero_convention_gradient(index):
    from certify.numeric.model import active_gradient

    u, v, w = _mixed_states()[index]
    p = len(u)
    full = gradient(u, v, w, relu_prime_at_zero=0.0)
    fast = active_gradient(u, v, w)
    # Both sum the same nonzero terms (inactive examples give exact zeros) in different orders.
    # gu[a], gv[b]: at most p terms g = q.w - w(y), |g| <= 2 max|w|, each from a softmax and a dot
    # product of p terms (~3p + 10 roundings); gw[c]: p^2 terms h (q_c - 1{c=y}), |.| <= 2 h.
    W = np.abs(w).max()
    h = np.maximum(np.add.outer(u, v), 0.0)
    tol_uv = rounding(2 * W * p, 3 * p + 10) / p**2
    tol_w = rounding(2 * h.sum() * (1 + W), p**2 + 3 * p + 10) / p**2
    for a, b, tol in zip(full, fast, (tol_uv, tol_uv, tol_w)):
        np.testing.assert_allclose(b, a, rtol=0, atol=float(tol))


@pytest.mark.parametrize("index", range(4))
def test_active_loss_is_the_loss(index):
    from certify.numeric.model import active_loss, loss

    u, v, w = _mixed_states()[index]
    p = len(u)
    h = np.maximum(np.add.outer(u, v), 0.0)
    # p^2 terms of size <= log p + 2 h max|w|, each a log-sum-exp of p terms (~2p + 10 roundings).
    terms = p**2 * math.log(p) + 2 * h.sum() * np.abs(w).max()
    assert active_loss(u, v, w) == pytest.approx(loss(u, v, w), rel=0,
                                                 abs=float(rounding(terms, p**2 + 2 * p + 10)) / p**2)


def test_max_other_gate_equals_the_table_maximum_exactly():
    from certify.numeric.model import max_other_gate

    rng = np.random.default_rng(5)
    U, V = rng.normal(size=(2, 40, 9))
    U[3, 0] = 50.0  # the central gate largest: it must be left out
    V[3, 0] = 50.0
    z = U[:, :, None] + V[:, None, :]
    z[:, 0, 0] = -np.inf
    expected = z.reshape(40, -1).max(axis=1)
    np.testing.assert_array_equal(max_other_gate(U, V), expected)  # float addition is monotone
    assert max_other_gate(U[3], V[3]) == expected[3]


def test_fast_flow_matches_a_full_table_integration():
    """The flow with the full p^3 gradient (as before the O(p) field) ends where the fast one does."""
    from scipy.integrate import solve_ivp

    rng = np.random.default_rng(8)
    p = 13
    u, v, w = (x + 0.05 * rng.uniform(-1, 1, p) for x in _base_point(p))
    fast = simulate_until_death(u, v, w)

    def rhs(_t, theta):
        return -np.concatenate(gradient(theta[:p], theta[p:2 * p], theta[2 * p:], relu_prime_at_zero=0.0))

    def death(_t, theta):
        return theta[0] + theta[p]

    death.terminal, death.direction = True, -1
    sol = solve_ivp(rhs, (0, default_t_max(u, v, w)), np.concatenate([u, v, w]), method="DOP853",
                    rtol=RTOL, atol=ATOL, events=death)
    full = sol.y_events[0][0]
    # Both runs are off the true flow by their integration errors (nfev local errors each); the
    # death times by the error of s over its speed at death (-ds/dt = 2 |g_0| / p^2 there).
    err = _state_error(np.vstack([np.concatenate([u, v, w]), full]), max(fast.nfev, sol.nfev))[-1]
    assert np.all(np.abs(np.concatenate([fast.u, fast.v, fast.w]) - full) <= 2 * err)
    gu, gv, _ = gradient(fast.u, fast.v, fast.w, relu_prime_at_zero=1.0)
    speed = abs(gu[0] + gv[0])
    assert fast.t_death == pytest.approx(float(sol.t_events[0][0]), rel=0, abs=2 * (err[0] + err[p]) / speed)


def test_progress_is_increasing_ends_at_one_and_changes_nothing():
    u, v, w = _base_point(7)
    seen = []
    with_progress = simulate_until_death(u, v, w, dense=True, progress=seen.append)
    plain = simulate_until_death(u, v, w, dense=True)
    assert len(seen) >= 3 and seen[-1] == 1.0
    assert all(0 < x <= 1 for x in seen) and np.all(np.diff(seen) > 0)
    assert with_progress.t_death == plain.t_death
    np.testing.assert_array_equal(with_progress.states, plain.states)
