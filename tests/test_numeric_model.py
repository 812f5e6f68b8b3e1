"""Tests for certify.numeric.model: loss (1.1), its gradient, the ReLU'(0) convention, (A.10).

Every check computes its expected value by an independent route (finite
differences of the loss, the paper's reduced ODE (2.2)-(2.5), explicit
per-example formulas), never from numbers produced by the code under test.
"""

import math

import numpy as np
import pytest

from certify.numeric.points import two_level
from certify.numeric.model import balance_quantity, gates, gradient, labels, loss
from tolerances import assert_close, cancellation_tolerance, rounding


def _loss_rounding(u, v, w, extra=1.0):
    """Rounding of loss (1.1): each example's log-sum-exp (p exps of a few ulps, p additions,
    a log) minus its correct logit cancels terms of size log p + extra h max|w| (h = ReLU(z));
    then p^2 examples are summed: 2p + 10 + p^2 roundings of the total, / p^2."""
    p = len(u)
    h = np.maximum(u[:, None] + v[None, :], 0.0)
    return float(rounding((np.log(p) + extra * h * np.abs(w).max()).sum(), 2 * p + 10 + p**2)) / p**2


def _random_point(rng, p, margin=0.05):
    """Random (u, v, w) whose gates all stay at least `margin` away from the kink."""
    while True:
        u, v = rng.normal(size=p), rng.normal(size=p)
        w = 2.0 * rng.normal(size=p)
        if np.min(np.abs(u[:, None] + v[None, :])) > margin:
            return u, v, w


EPS, A, B = 1.0, 2.0, 1.0


def _base_point(p, eps=EPS, A=A, B=B):
    """Base point (2.1): u(0)=v(0)=eps/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0."""
    return two_level(p, eps / 2, -B), two_level(p, eps / 2, -B), two_level(p, -A, 0.0)


def test_gates_and_labels_tables():
    u = np.array([0.0, 1.0, 2.0])
    v = np.array([10.0, 20.0, 30.0])
    z = gates(u, v)
    assert z.shape == (3, 3)
    assert z[2, 1] == 22.0 and z[0, 2] == 30.0
    y = labels(5)
    for a in range(5):
        for b in range(5):
            assert y[a, b] == (a + b) % 5


def test_loss_matches_per_example_sum():
    # Second route: a plain double loop over the table with math.log/exp.
    rng = np.random.default_rng(0)
    p = 5
    u, v, w = _random_point(rng, p)
    total = 0.0
    for a in range(p):
        for b in range(p):
            h = max(u[a] + v[b], 0.0)
            total += math.log(sum(math.exp(h * w[c]) for c in range(p))) - h * w[(a + b) % p]
    # Two evaluations, each within _loss_rounding (the logits h w(c) are at most h max|w|,
    # the correct one cancels against the log-sum-exp: factor 2).
    assert loss(u, v, w) == pytest.approx(total / p**2, rel=0, abs=2 * _loss_rounding(u, v, w, extra=2))


def test_loss_is_stable_for_large_logits():
    # Logits of size ~2e3 overflow a naive exp (e^2000 = inf); the loss must stay finite.
    p = 5
    u = np.full(p, -1.0)
    v = np.full(p, -1.0)
    u[0] = v[0] = 500.0
    w = np.array([0.0, 2.0, 0.0, 0.0, 0.0])
    # Second route: per-example log-sum-exp with the maximum subtracted by hand.
    expected = 0.0
    for a in range(p):
        for b in range(p):
            h = max(u[a] + v[b], 0.0)
            logits = [h * wc for wc in w]
            m = max(logits)
            expected += m + math.log(sum(math.exp(x - m) for x in logits)) - h * w[(a + b) % p]
    value = loss(u, v, w)
    assert math.isfinite(value)
    # As above; logits up to h max|w| = 2000 cancel against the shift and the correct logit.
    assert value == pytest.approx(expected / p**2, rel=0, abs=2 * _loss_rounding(u, v, w, extra=3))


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gradient_matches_central_differences(p, seed):
    rng = np.random.default_rng(seed)
    u, v, w = _random_point(rng, p)
    assert np.any(gates(u, v) > 0) and np.any(gates(u, v) < 0)  # both branches exercised
    gu, gv, gw = gradient(u, v, w)
    h = 1e-6
    # Central differences: truncation h^2 |L^(3)| / 6 and rounding 2 delta_L / (2h), delta_L
    # = _loss_rounding.  Along a coordinate each example's loss is a log-sum-exp whose
    # arguments move with slopes |z| or |w| <= m = 2 max(1, max|w|, max|z|); its third
    # derivative is at most m^3 / (6 sqrt 3) < m^3 / 10, summed over the examples the
    # coordinate touches (2p - 1 for u, v; p^2 for w) and divided by p^2.
    z = np.abs(u[:, None] + v[None, :])
    m = 2 * max(1.0, np.abs(w).max(), z.max())
    touched = {0: 2 * p - 1, 1: 2 * p - 1, 2: p**2}
    for analytic, which in ((gu, 0), (gv, 1), (gw, 2)):
        fd_tol = h**2 / 6 * touched[which] * m**3 / 10 / p**2 + 2 * _loss_rounding(u, v, w) / (2 * h)
        for i in range(p):
            plus = [u.copy(), v.copy(), w.copy()]
            minus = [u.copy(), v.copy(), w.copy()]
            plus[which][i] += h
            minus[which][i] -= h
            fd = (loss(*plus) - loss(*minus)) / (2 * h)
            assert analytic[i] == pytest.approx(fd, rel=0, abs=fd_tol), (which, i)


@pytest.mark.parametrize("p", [5, 7, 11])
@pytest.mark.parametrize("s_scale", [1.0, 0.3, 2.5])
def test_gradient_matches_reduced_ode(p, s_scale):
    # Reduced ODE (2.2)-(2.5) for a symmetric state with only (0,0) active:
    # s = u(0)+v(0), a = w(0), b = w(j), g = b - a, pi0 = 1/(1+(p-1)e^{s g}).
    eps, A, B = 1.0 * s_scale, 2.0, 1.0 + s_scale
    u, v, w = _base_point(p, eps=eps, A=A, B=B)
    # Move w off (2.1) but keep the two-level form, so the check is not only at t=0.
    w = w + 0.3
    s, a, b = eps, w[0], w[1]
    g = b - a
    pi0 = 1.0 / (1.0 + (p - 1) * math.exp(s * g))
    s_dot = -(2.0 / p**2) * (1 - pi0) * g
    a_dot = (s / p**2) * (1 - pi0)
    b_dot = -(s / p**2) * (1 - pi0) / (p - 1)
    g_dot = -(s / (p * (p - 1))) * (1 - pi0)

    gu, gv, gw = gradient(u, v, w)
    # Both sides are short expressions in s, a, b (an exp, a softmax of p terms, a few
    # products, 2p + 10 operations), but the gradient forms g_y = q @ w - w(y) and
    # q_c - 1{c = y} by cancelling terms of size max|w| and 1, and the closed forms carry
    # 1 - pi0: errors relative to (max|w| + 1)(s + 1) / p^2, not to the result; both sides.
    tol = 2 * rounding((np.abs(w).max() + 1) * (s + 1) / p**2, 2 * p + 10)
    assert -(gu[0] + gv[0]) == pytest.approx(s_dot, rel=0, abs=2 * tol)
    assert -gw[0] == pytest.approx(a_dot, rel=0, abs=tol)
    for j in range(1, p):
        assert -gw[j] == pytest.approx(b_dot, rel=0, abs=tol)
        # Coordinates whose gates are all inactive do not move.
        assert gu[j] == 0.0 and gv[j] == 0.0
    assert -(gw[1] - gw[0]) == pytest.approx(g_dot, rel=0, abs=2 * tol)
    # u(0) - v(0) is conserved (used for (2.8)).
    assert gu[0] == gv[0]


def _point_with_one_kink(rng, p, a, b):
    """Random point with gate (a, b) exactly 0 and every other gate at least 0.05 from 0."""
    while True:
        u, v, w = _random_point(rng, p, margin=0.0)
        v[b] = -u[a]
        z = u[:, None] + v[None, :]
        others = np.abs(z)
        others[a, b] = np.inf
        gamma = w.mean() - w[(a + b) % p]
        if z[a, b] == 0.0 and others.min() > 0.05 and abs(gamma) > 0.2:
            return u, v, w


@pytest.mark.parametrize("p,a,b", [(5, 1, 3), (7, 0, 0), (7, 4, 6)])
def test_relu_prime_at_zero_convention(p, a, b):
    rng = np.random.default_rng(100 + 10 * a + b)
    u, v, w = _point_with_one_kink(rng, p, a, b)
    gamma = w.mean() - w[(a + b) % p]  # (A.8)
    base = gradient(u, v, w, relu_prime_at_zero=0.0)
    for alpha in (0.25, 1.0):
        gu, gv, gw = gradient(u, v, w, relu_prime_at_zero=alpha)
        np.testing.assert_array_equal(gw, base[2])  # h = 0 at the kink: w unaffected
        shift_u = np.zeros(p)
        shift_u[a] = alpha * gamma / p**2
        shift_v = np.zeros(p)
        shift_v[b] = alpha * gamma / p**2
        # Row/column sums of p per-example terms |g_y| / p^2 <= 2 max|w| / p^2, with and without
        # the kink term: each sum rounds p additions, g_y itself ~2p + 10 operations.
        tol = 2 * rounding(p * 2 * np.abs(w).max() / p**2, 3 * p + 10)
        assert_close(gu - base[0], shift_u, tol)
        assert_close(gv - base[1], shift_v, tol)
        assert abs(gu[a] - base[0][a]) > 1e-3  # the convention genuinely matters here

    # Second route: one-sided differences in u[a].  Increasing u[a] opens the kink
    # example (slope 1), decreasing it keeps it shut (slope 0) -- Lemma A.6.
    h = 1e-7
    up = u.copy()
    up[a] += h
    down = u.copy()
    down[a] -= h
    right = (loss(up, v, w) - loss(u, v, w)) / h
    left = (loss(u, v, w) - loss(down, v, w)) / h
    # One-sided differences on the smooth side of the kink: truncation h |L^(2)| / 2, each
    # touched example's log-sum-exp having curvature <= m^2 / 4 (m as in the central-difference
    # test; 2p - 1 examples, / p^2), and rounding 2 delta_L / h.
    z = np.abs(u[:, None] + v[None, :])
    m = 2 * max(1.0, np.abs(w).max(), z.max())
    one_sided = h / 2 * (2 * p - 1) * m**2 / 4 / p**2 + 2 * _loss_rounding(u, v, w) / h
    assert gradient(u, v, w, relu_prime_at_zero=1.0)[0][a] == pytest.approx(right, rel=0, abs=one_sided)
    assert gradient(u, v, w, relu_prime_at_zero=0.0)[0][a] == pytest.approx(left, rel=0, abs=one_sided)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf"), "x", None])
def test_bad_convention_rejected(bad):
    u, v, w = _base_point(5)
    with pytest.raises(ValueError):
        gradient(u, v, w, relu_prime_at_zero=bad)


def test_bad_shapes_rejected():
    with pytest.raises(ValueError):
        loss(np.zeros(5), np.zeros(4), np.zeros(5))
    with pytest.raises(ValueError):
        gradient(np.zeros((5, 1)), np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError):
        loss(np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(ValueError):
        loss(np.array([0.0, np.nan]), np.zeros(2), np.zeros(2))


def test_balance_quantity_value():
    u, v, w = np.array([1.0, 2.0]), np.array([3.0, 0.0]), np.array([1.0, 1.0])
    assert balance_quantity(u, v, w) == 1 + 4 + 9 - 2


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("seed", range(5))
def test_balance_quantity_is_conserved_by_the_flow(p, seed):
    # d/dt(||u||^2+||v||^2-||w||^2) = -2(<u,gu> + <v,gv> - <w,gw>) = 0  (proof of A.10).
    rng = np.random.default_rng(seed)
    u, v, w = _random_point(rng, p)
    gu, gv, gw = gradient(u, v, w)
    terms = np.array([u @ gu, v @ gv, w @ gw])
    assert np.max(np.abs(terms)) > 1e-3  # not trivially zero
    assert u @ gu + v @ gv - w @ gw == pytest.approx(0.0, rel=0, abs=_balance_identity_tolerance(u, v, w, gu, gv, gw))


def _balance_identity_tolerance(u, v, w, gu, gv, gw):
    """<u, gu> + <v, gv> - <w, gw> = 0 exactly; in floats it cancels the 3p products (3p + 2
    operations), and each gradient entry is itself a sum of at most p^2 per-example terms of
    size <= (max ReLU(z) + 2 max|w|) / p^2 (~2p + 10 operations each), weighted by |theta_i|."""
    p = len(u)
    z = u[:, None] + v[None, :]
    entry = (np.maximum(z, 0).max() + 2 * np.abs(w).max()) / p**2
    products = cancellation_tolerance(u * gu, v * gv, w * gw)
    weight = np.abs(u).sum() + np.abs(v).sum() + np.abs(w).sum()
    return float(products + rounding(entry * p**2 * weight, 3 * p + 10 + p**2))


def test_balance_identity_holds_at_a_kink_for_any_convention():
    # At z = 0 the kink contribution alpha*gamma*(e_a + e_b) pairs with (u, v) to alpha*gamma*z = 0.
    rng = np.random.default_rng(7)
    u, v, w = _point_with_one_kink(rng, 7, 2, 3)
    for alpha in (0.0, 0.5, 1.0):
        gu, gv, gw = gradient(u, v, w, relu_prime_at_zero=alpha)
        assert u @ gu + v @ gv - w @ gw == pytest.approx(
            0.0, rel=0, abs=_balance_identity_tolerance(u, v, w, gu, gv, gw))
