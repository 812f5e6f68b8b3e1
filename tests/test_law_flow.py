"""The Filippov flow of certify.law.flow against independent oracles.

- the field off every kink against the full-table gradient of certify.numeric.model (another code path);
- the sliding coefficients against the paper's closed form (A.26)-(A.27), alpha_j = A / ((k+1) gamma_j);
- the death time from the dead theorem's base point against the certified hitting-time enclosure (Arb);
- the slide base point stays the state of Theorem A.1, one gate memorised;
- the validations (loss, balance (A.10)) and the kink decisions on constructed faces;
- bad input.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from certify import api
from certify.law import flow
from certify.law.classify import classify
from certify.law.record import checkpoint_times
from certify.law.sampling import draw_initial
from certify.numeric import model
from certify.numeric.points import base_point_from_certificate

EPS = float(np.finfo(float).eps)


def _status_from_signs(theta, p):
    z = (theta[:p, None] + theta[None, p:2 * p]).ravel()
    return np.where(z > 0, 1, -1)


@pytest.mark.parametrize("p, index", [(5, 0), (7, 3), (11, 5)])
def test_field_off_the_kinks_is_minus_the_gradient(p, index):
    theta = draw_initial(p, 1.0, 7, index).theta
    got = flow.velocity(theta, p, _status_from_signs(theta, p))
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    gu, gv, gw = model.gradient(u, v, w, relu_prime_at_zero=0.0)
    want = -np.concatenate([gu, gv, gw])
    # each component is a sum of <= p^2 terms of size <= 2 max|w| (|g_y| <= 2 max|w|) or |z| max|w|, over p^2,
    # summed in different orders: 4 p^2 eps (max|w| (2 + max|z|)) / p^2 bounds the difference
    z = np.abs(u[:, None] + v[None, :]).max()
    tol = 4 * p * p * EPS * np.abs(w).max() * (2 + z) / p ** 2
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def test_sliding_coefficients_are_the_papers_alpha():
    """(A.26): with the central gate active and row gates (0, j), j in R, on their faces, the kink coefficients
    are alpha_j = A / ((k+1) gamma_j), A = sum_{j != 0} q_j d_j (A.19), q = softmax(x w), d_j = w(0) - w(j)."""
    p = 5
    u = np.array([1.0, -5, -5, -5, -5])
    v = np.array([1.0, -1, -1, -3, -3])
    w = np.array([2.0, -1, -0.5, 0.3, 0.1])
    theta = np.concatenate([u, v, w])
    status = -np.ones(p * p, dtype=int)
    status[0], status[1], status[2] = 1, 0, 0  # central active; (0, 1), (0, 2) slide
    mode = flow._Mode(p, status, theta)
    c = mode.coefficients(theta)
    x = u[0] + v[0]
    q = np.exp(x * w - (x * w).max())
    q /= q.sum()
    d = w[0] - w
    A = float(q[1:] @ d[1:])
    gamma = w.mean() - w
    k = 2
    alpha = {int(j): A / ((k + 1) * gamma[j]) for j in (1, 2)}
    for gate, cj in zip(mode.sl_a * p + mode.sl_b, c):
        # a handful of operations on numbers of size <= 1 / gamma: 64 eps relative
        assert cj == pytest.approx(alpha[int(gate) % p], rel=64 * EPS)
    vel = mode.time_derivative(theta)
    for j in (1, 2):  # the faces are kept: dz_0j/dt = 0 to the rounding of the two O(A / p^2) terms
        assert abs(vel[0] + vel[p + j]) <= 16 * EPS * A / p ** 2


@pytest.mark.parametrize("p", [5, 7, 13])
def test_death_time_from_the_dead_base_point_lies_in_the_certified_enclosure(p):
    certificate = json.loads(api.dead(p).to_json())
    theta = np.concatenate(base_point_from_certificate(certificate))
    trajectory = flow.simulate_flow(theta, p, 1e3)
    claim = certificate["claims"]["hitting_time"]
    lo, hi = float(Fraction(claim["lo"])), float(Fraction(claim["hi"]))
    # the base point is rounded to doubles (relative 1e-16) and the flow integrated at rtol 1e-10 over ~10^2
    # steps, then the event located to 4 eps in tau: 1e-7 relative is a wide margin for both
    assert lo * (1 - 1e-7) <= trajectory.death_time <= hi * (1 + 1e-7)
    assert classify(trajectory).outcome == "dead"
    assert trajectory.failure is None and trajectory.max_loss_increase == 0


@pytest.mark.parametrize("p", [5, 7])
def test_slide_base_point_memorises_one_entry(p):
    certificate = json.loads(api.slide(p).to_json())
    theta = np.concatenate(base_point_from_certificate(certificate))
    outcome = classify(flow.simulate_flow(theta, p, 1e4))
    assert outcome.outcome == "memorises_one_entry"
    assert outcome.pattern == "+" + "-" * (p * p - 1)


def test_random_runs_are_valid_and_descend():
    """Every checkpoint loss is at most the previous one, the balance quantity (A.10) is kept, and a run
    records its checkpoints at the grid times."""
    p, horizon = 5, 1e4
    for index in range(4):
        theta = draw_initial(p, 1.0, 3, index).theta
        tr = flow.simulate_flow(theta, p, horizon)
        assert tr.failure is None, tr.failure
        np.testing.assert_array_equal(tr.times, checkpoint_times(horizon))
        assert tr.max_loss_increase == 0
        assert tr.balance_drift < 1e-6
        assert np.all(np.diff(tr.losses) <= 1e-9 * np.abs(tr.losses[:-1]))
        # the balance quantity at each checkpoint against t = 0, computed by model (another code path)
        b0 = model.balance_quantity(theta[:p], theta[p:2 * p], theta[2 * p:])
        for s in tr.states:
            bt = model.balance_quantity(s[:p], s[p:2 * p], s[2 * p:])
            assert abs(bt - b0) <= 1e-6 * max(1.0, float(s @ s))


def _face_state(gamma_sign: float):
    """p = 5, gate (0, 1) exactly on its kink with label 1, gamma_1 of the given sign, central gate active."""
    p = 5
    w = np.array([2.0, -1.0, 0.5, 0.3, 0.1]) if gamma_sign > 0 else np.array([2.0, 1.5, -0.5, 0.3, 0.1])
    u = np.array([1.0, -5, -5, -5, -5])
    v = np.array([1.0, -1.0, -3, -3, -3])
    return p, np.concatenate([u, v, w])


def test_an_attractive_face_holds_its_gate():
    p, theta = _face_state(+1)
    status = -np.ones(p * p, dtype=int)
    status[0], status[1] = 1, -1
    # (0, 1) arrives: the central gate pushes u(0) up, so with c = 0 z_01 would rise; gamma_1 > 0 pulls it back
    new = flow._resolve(theta, p, status, np.array([1]), {})
    assert new[1] == 0
    c = flow._Mode(p, new, theta).coefficients(theta)
    assert 0 < c[0] < 1


def test_a_non_attractive_face_takes_relu_prime_zero():
    p, theta = _face_state(-1)
    w = theta[2 * p:]
    assert w.mean() - w[1] < 0
    status = -np.ones(p * p, dtype=int)
    status[0], status[1] = 1, -1
    new = flow._resolve(theta, p, status, np.array([1]), {})
    # gamma_1 < 0: never sliding; the field with c = 0 moves z_01 up (u(0) rises), so it turns active
    assert new[1] == 1
    vel = flow.velocity(theta, p, new)
    assert vel[0] + vel[p + 1] > 0


def test_bad_input():
    with pytest.raises(ValueError, match="length 3p"):
        flow.simulate_flow(np.zeros(7), 5, 100)
    theta = draw_initial(5, 1.0, 1, 0).theta.copy()
    theta[5] = -theta[0]  # gate (0, 0) exactly on its kink
    with pytest.raises(ValueError, match="kink"):
        flow.simulate_flow(theta, 5, 100)
    with pytest.raises(ValueError, match="horizon"):
        flow.simulate_flow(draw_initial(5, 1.0, 1, 0).theta, 5, 5)
    bad = draw_initial(5, 1.0, 1, 0).theta.copy()
    bad[3] = math.nan
    with pytest.raises(ValueError, match="finite"):
        flow.simulate_flow(bad, 5, 100)
