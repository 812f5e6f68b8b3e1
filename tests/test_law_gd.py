"""certify.law.gd: vectorised full-batch gradient descent with ReLU'(0) = 0 (Theorem A.4's setting).

Every tolerance below is an error estimate written beside it (scale x eps x steps x factor), not a figure
read off a run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify.law import gd
from certify.law.classify import classify
from certify.law.gd import batch_gradient_and_loss, checkpoint_steps, simulate_gd
from certify.law.record import checkpoint_times
from certify.law.sampling import draw_initial
from certify.numeric import model

EPS = np.finfo(np.float64).eps


def draws(p: int, n: int, sigma: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.array([draw_initial(p, sigma, seed, i).theta for i in range(n)])


def loop_gradient(theta: np.ndarray, p: int) -> np.ndarray:
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    return np.concatenate(model.gradient(u, v, w, relu_prime_at_zero=0))


def gradient_discrepancy(theta: np.ndarray, p: int) -> float:
    """Bound on |batch gradient - model.gradient| per component at theta (see batch_gradient_and_loss):
    each of the two is within (p^2 + 2p + 10) eps (max|w| + max z) of the exact gradient (p^2 summed terms
    of size <= max z / p^2 in gw, p terms of size <= 2 max|w| / p^2 in gu, gv, softmax errors ~ p eps)."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    zmax = max(0.0, float(np.max(u[:, None] + v[None, :])))
    return 2 * (p * p + 2 * p + 10) * EPS * (float(np.max(np.abs(w))) + zmax)


def gradient_lipschitz(theta: np.ndarray, p: int) -> float:
    """Bound on the Hessian norm of L (1.1) near theta, on one smooth piece (no gate changes sign).

    Per active example, with l(z, w) = lse(z w) - z w_y: d2l/dz2 = Var_q(w) <= W^2 (W = max|w|),
    d2l/dw2 = z^2 (diag q - q q^T) with norm <= z^2 / 2, d2l/dz dw_c = q_c - [c = y] + z q_c (w_c - q.w) with
    2-norm <= sqrt 2 + 2 z W. With z = u(a) + v(b), x_ab = e_a + e_{p+b}, the n active examples and the 1/p^2
    of (1.1): the (u, v) block has norm <= W^2 / p^2 |sum x x^T| <= W^2 / p^2 |[[p I, J], [J, p I]]| = 2 W^2 / p,
    the w block <= n zmax^2 / (2 p^2), the cross block <= (1/p^2) sqrt(2p) sqrt(n) (sqrt 2 + 2 zmax W)
    (|X R^T| <= |X| |R|_F). The Hessian <= the diagonal blocks' norms plus twice the cross block's; 0 with no
    active example. The 1.1 covers a neighbour within the test's tolerance."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    z = u[:, None] + v[None, :]
    n = int(np.count_nonzero(z > 0))
    if n == 0:
        return 0.0
    zmax, W = 1.1 * float(np.max(z)), 1.1 * float(np.max(np.abs(w)))
    return (n * zmax**2 / (2 * p * p) + 2 * W**2 / p
            + 2 * math.sqrt(2 * p * n) / p**2 * (math.sqrt(2) + 2 * zmax * W))


def loop_run(theta0: np.ndarray, p: int, eta: float, steps: int):
    """The plain loop theta_{k+1} = theta_k - eta model.gradient(theta_k), with the bound on how far the
    vectorised run may be from it: d_{k+1} <= (1 + eta Lip_k) d_k + eta sqrt(3p) delta_k + 4 eps |theta_{k+1}|
    (delta_k the per-component gradient discrepancy, 4 eps |theta| the two runs' rounding of the update),
    valid while both runs stay on the same smooth piece (checked: every gate farther than the bound from 0)."""
    states, bounds, gaps = [theta0.copy()], [0.0], []
    theta, d = theta0.copy(), 0.0
    for _ in range(steps):
        z = theta[:p, None] + theta[None, p:2 * p]
        gaps.append(float(np.min(np.abs(z))))
        step = eta * loop_gradient(theta, p)
        d = ((1 + eta * gradient_lipschitz(theta, p)) * d
             + eta * math.sqrt(3 * p) * gradient_discrepancy(theta, p)
             + 4 * EPS * float(np.linalg.norm(theta - step)))
        theta = theta - step
        states.append(theta.copy())
        bounds.append(d)
    return np.array(states), np.array(bounds), np.array(gaps)


def base_point(p: int, eta: float) -> np.ndarray:
    """The base point (2.1) = (A.48)-(A.49) of Theorem A.4's certificate, in floats: u(0) = v(0) = eps/2,
    u(j) = v(j) = -B, w(0) = -A, w(j) = 0, with the builder's defaults (epsilon half the (A.71) threshold)."""
    from certify.theorems.gd import DEFAULT_A, DEFAULT_B, default_epsilon
    from fractions import Fraction

    from flint import fmpq

    exact = Fraction(eta)                            # eta is a float: its exact binary value
    epsilon = float(default_epsilon(p, fmpq(exact.numerator, exact.denominator), DEFAULT_A))
    A, B = float(DEFAULT_A), float(DEFAULT_B)
    u = np.full(p, -B)
    u[0] = epsilon / 2
    w = np.zeros(p)
    w[0] = -A
    return np.concatenate([u, u, w])


# (1) the vectorised gradient and loss are those of certify.numeric.model, per state.

@pytest.mark.parametrize("p", [5, 7, 13])
def test_batch_gradient_equals_model_gradient(p):
    thetas = draws(p, 40)
    # include states along trajectories, where several gates sit near their kinks
    thetas = np.vstack([thetas, np.concatenate([t.states for t in simulate_gd(thetas[:5], p, 1.0, 100)])])
    grad, loss = batch_gradient_and_loss(thetas, p)
    for theta, g, L in zip(thetas, grad, loss):
        u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
        np.testing.assert_allclose(g, loop_gradient(theta, p), rtol=0, atol=gradient_discrepancy(theta, p))
        # two losses, each within p^2 eps (L + log p) + (p + 6) eps of the exact one (gd.loss_allowance)
        assert abs(L - model.loss(u, v, w)) <= 2 * (p * p * EPS * (L + math.log(p)) + (p + 6) * EPS)


def test_batch_gradient_of_inactive_state_is_exactly_zero():
    p = 5
    theta = draws(p, 1)[0]
    theta[:2 * p] = -np.abs(theta[:2 * p]) - 0.1
    theta[0] = -theta[p:2 * p].max()                 # the gate (0, argmax v) is exactly 0, the rest < 0
    grad, loss = batch_gradient_and_loss(theta[None], p)
    assert np.all(grad == 0)                         # ReLU'(0) = 0: the kink gate contributes nothing
    assert abs(loss[0] - math.log(p)) <= 2 * EPS * math.log(p)


# (1) and (5): the vectorised run against the plain loop, at the checkpoints' steps.

@pytest.mark.parametrize("p,eta", [(5, 0.7), (7, 1.0)])
def test_checkpoints_equal_the_plain_loop(p, eta):
    horizon = 10.0
    thetas = np.vstack([draws(p, 6, sigma=0.1), base_point(p, eta)[None]])   # one dies at step 1
    trajectories = simulate_gd(thetas, p, eta, horizon)
    times = checkpoint_times(horizon)
    steps = checkpoint_steps(times, eta)
    K = math.ceil(horizon / eta)
    assert steps[-1] == K and steps[0] == 0
    for j, t in enumerate(times):                   # the first step with k eta >= t
        assert steps[j] * eta >= t and (steps[j] == 0 or (steps[j] - 1) * eta < t)
    for theta0, tr in zip(thetas, trajectories):
        states, bounds, gaps = loop_run(theta0, p, eta, K)
        assert np.all(gaps > 2 * bounds[:-1])        # both runs on the same smooth pieces
        moves = np.linalg.norm(np.diff(states, axis=0), axis=1)
        assert bounds[-1] < 1e-3 * max(moves.max(), 1e-9)  # informative: a step off moves the state ~ moves
        np.testing.assert_array_equal(tr.times, times)
        for j, k in enumerate(steps):
            assert np.linalg.norm(tr.states[j] - states[k]) <= bounds[k]
        np.testing.assert_array_equal(tr.state_at(horizon), tr.states[-1])
        assert tr.state_at(horizon / 10) is not None
        assert tr.dynamics == "gd" and tr.extra["eta"] == eta and tr.switches == 0 and tr.failure is None
        assert tr.extra["steps"] == (1 if tr.death_time is not None else K)
        u, v, w = tr.states[-1][:p], tr.states[-1][p:2 * p], tr.states[-1][2 * p:]
        assert abs(tr.losses[-1] - model.loss(u, v, w)) <= 2 * (p * p * EPS * (1 + math.log(p)) * 4)
        # the band: one step's reach from either side of each kink, gate by gate (gd.kink_band_per_gate)
        gu, gv, _ = model.gradient(u, v, w, relu_prime_at_zero=0.0)
        for a in range(p):
            for b in range(p):
                reach = eta * (abs(gu[a] + gv[b]) + 2 * abs(w.mean() - w[(a + b) % p]) / p ** 2)
                assert tr.kink_band[a * p + b] == pytest.approx(reach, rel=8 * EPS, abs=1e-300)


# (2) Theorem A.4's one-step death.

@pytest.mark.parametrize("p,eta", [(5, 1.0), (7, 0.5), (11, 2.0)])
def test_base_point_dies_in_one_step(p, eta):
    theta0 = base_point(p, eta)
    [tr] = simulate_gd(theta0[None], p, eta, 100.0)
    assert tr.death_time == eta
    assert tr.extra["steps"] == 1
    theta1 = theta0 - eta * loop_gradient(theta0, p)
    np.testing.assert_allclose(tr.states[-1], theta1, rtol=0, atol=4 * EPS * np.max(np.abs(theta0)))
    assert np.all(tr.states[1:] == tr.states[-1])   # later checkpoints hold the final state
    assert np.all(tr.losses[1:] == tr.losses[-1])
    assert tr.max_loss_increase == 0                # L_0 > log p (the central label's logit is lowest)
    outcome = classify(tr)
    assert outcome.outcome == "dead", outcome


def test_dead_initial_point_and_dead_member_of_a_batch():
    p, eta = 5, 1.0
    dead = -np.abs(draws(p, 1)[0]) - 0.01           # every gate < 0 at step 0
    alive = draws(p, 3)
    trajectories = simulate_gd(np.vstack([alive[:1], dead[None], base_point(p, eta)[None], alive[1:]]), p, eta, 50)
    assert trajectories[1].death_time == 0.0 and np.all(trajectories[1].states == dead)
    assert trajectories[2].death_time == eta
    alone = simulate_gd(alive, p, eta, 50)          # dropping the dead rows leaves the others as they were
    for a, b in zip([trajectories[0], trajectories[3], trajectories[4]], alone):
        # same arithmetic per sample; allow the rounding of ~50 steps at scale |theta| ~ 3 if a summation
        # order ever depends on the batch: 50 steps x 4 eps x 3 x a factor 10 (amplification over 50 steps
        # of gradients ~1/p is ~(1 + Lip)^50, but equal floats are what the code does)
        np.testing.assert_allclose(a.states, b.states, rtol=0, atol=1e-9)
        assert a.death_time == b.death_time


# (3) the balance accounting of (A.10).

@pytest.mark.parametrize("p", [5, 7])
def test_balance_drift_within_its_stated_tolerance(p):
    trajectories = simulate_gd(draws(p, 30), p, 1.0, 1000)
    for tr in trajectories:
        assert tr.balance_drift <= tr.extra["balance_tolerance"] < 1e-6
        assert tr.extra["smooth_loss_increase"] == 0   # the loss only rises when a gate changes sign


def test_balance_check_has_teeth(monkeypatch):
    """A gradient 0.1% off in its w block breaks u.gu + v.gv = w.gw: the drift leaves its tolerance."""
    p = 5
    real = gd._gradient_and_loss

    def wrong(theta, p, batch):
        grad, loss, counts = real(theta, p, batch)
        grad[:, 2 * p:] *= 1.001
        return grad, loss, counts

    monkeypatch.setattr(gd, "_gradient_and_loss", wrong)
    trajectories = simulate_gd(draws(p, 5), p, 1.0, 100)
    assert all(tr.balance_drift > tr.extra["balance_tolerance"] for tr in trajectories)


def test_balance_tolerance_formula():
    p, eta = 7, 1.0
    [tr] = simulate_gd(draws(p, 1), p, eta, 10)
    # the tolerance is at least the last step's (K C + 6p + 2) U (M_K / size_K >= 1)
    K = tr.extra["steps"]
    assert tr.extra["balance_tolerance"] >= (K * gd.balance_step_constant(p, eta) + 6 * p + 2) * EPS / 2


# (4) bad inputs.

@pytest.mark.parametrize("thetas,eta,horizon,match", [
    (np.zeros(15), 1.0, 100, "shape"),
    (np.zeros((2, 14)), 1.0, 100, "shape"),
    (np.zeros((0, 15)), 1.0, 100, "at least one"),
    (np.full((1, 15), np.nan), 1.0, 100, "finite"),
    (np.ones((1, 15)), 0.0, 100, "eta"),
    (np.ones((1, 15)), -1.0, 100, "eta"),
    (np.ones((1, 15)), math.nan, 100, "eta"),
    (np.ones((1, 15)), math.inf, 100, "eta"),
    (np.ones((1, 15)), True, 100, "eta"),
    (np.ones((1, 15)), "1", 100, "eta"),
    (np.ones((1, 15)), 1.0, 5, "horizon"),
    (np.ones((1, 15)), 1.0, math.nan, "horizon"),
    (np.ones((1, 15)), 1.0, math.inf, "horizon"),
])
def test_bad_inputs(thetas, eta, horizon, match):
    with pytest.raises(ValueError, match=match):
        simulate_gd(thetas, 5, eta, horizon)


def test_bad_p():
    with pytest.raises(ValueError, match="p must"):
        simulate_gd(np.ones((1, 15)), 5.0, 1.0, 100)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # classify's Fourier fractions of a 1e200 state
def test_non_finite_state_is_a_failure():
    p = 5
    thetas = np.vstack([1e200 * draws(p, 1), draws(p, 1)])   # |theta|^2 overflows at step 0
    bad, good = simulate_gd(thetas, p, 1.0, 100)
    assert bad.failure == "non-finite state at step 0" and list(bad.times) == [0.0] and bad.death_time is None
    np.testing.assert_array_equal(bad.states[0], thetas[0])
    assert classify(bad).outcome == "undecided"
    assert good.failure is None and len(good.times) == len(checkpoint_times(100))


def test_seconds_is_the_batch_time_per_sample():
    trajectories = simulate_gd(draws(5, 4), 5, 1.0, 10)
    assert len({tr.seconds for tr in trajectories}) == 1 and trajectories[0].seconds > 0


def test_a_sample_does_not_depend_on_its_batch():
    """The runner splits samples into batches by the number of workers: each sample's record must be the same
    bits alone and in a batch (no BLAS product whose rounding depends on the batch size)."""
    p, eta, horizon = 5, 1.0, 100.0
    thetas = np.stack([draw_initial(p, 1.0, 1, i).theta for i in range(6)])
    together = simulate_gd(thetas, p, eta, horizon)
    for i in range(6):
        alone = simulate_gd(thetas[i:i + 1], p, eta, horizon)[0]
        np.testing.assert_array_equal(alone.states, together[i].states)
        np.testing.assert_array_equal(alone.losses, together[i].losses)
        assert alone.balance_drift == together[i].balance_drift
        assert alone.extra["balance_tolerance"] == together[i].extra["balance_tolerance"]
