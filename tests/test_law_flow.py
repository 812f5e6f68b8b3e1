"""The Filippov flow of certify.law.flow against independent oracles.

- the field off every kink against the full-table gradient of certify.numeric.model (another code path), and
  its Jacobian against central differences;
- the minimal-norm element (BVLS) against a brute-force enumeration of the KKT active sets, and the faces'
  admissibility margin (the supply-demand cuts, and the LP for large blocks) against scipy's linprog;
- kink decisions on constructed faces whose sliding solution is known in closed form: the paper's (A.26)
  alpha_j = A / ((k+1) gamma_j), a cycle of four gates (two clone rows), a star of clone rows, a face a gate
  must leave (to either side, alone or with its clone), repelling faces;
- the death time from the dead theorem's base point against the certified hitting-time enclosure (Arb);
- the slide base point stays the state of Theorem A.1, one gate memorised;
- random runs: valid, descending, the balance (A.10) kept; p = 13 samples the spanning-forest engine stopped
  with 'inadmissible Clarke coefficient' now reach their horizon;
- bad input.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

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
    return np.where(z > 0, 1, np.where(z < 0, -1, 0))


def _oracle_forces(theta, p):
    """p^2 grad_{u,v} L with ReLU'(0) = 0 from certify.numeric.model: the forces of the strictly active gates."""
    gu, gv, _ = model.gradient(theta[:p], theta[p:2 * p], theta[2 * p:], relu_prime_at_zero=0.0)
    return p * p * np.concatenate([gu, gv])


def _softmax_force(z, w, y):
    """g_y(z, w) = sum_c softmax(z w)_c w(c) - w(y) (A.4), directly."""
    q = np.exp(z * w - np.max(z * w))
    q /= q.sum()
    return float(q @ w - w[y])


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


@pytest.mark.parametrize("with_face", [False, True])
def test_jacobian_against_central_differences(with_face):
    p = 7
    theta = draw_initial(p, 1.0, 5, 2).theta
    status = _status_from_signs(theta, p)
    if with_face:
        # put the gate (0, 0) on its face (a star block) by moving v(0)
        theta[p] = -theta[0]
        status[0] = 0
    mode = flow._Mode(p, status)
    jac = mode.jacobian(theta)
    h = 1e-5
    numeric = np.empty_like(jac)
    for i in range(3 * p):
        step = np.zeros(3 * p)
        step[i] = h
        numeric[:, i] = (mode.time_derivative(theta + step) - mode.time_derivative(theta - step)) / (2 * h)
    # central differences: truncation h^2 |f'''| / 6 (|f'''| <= ~ max|w|^3 max|z| / p^2 ~ 10) plus rounding
    # eps |f| / h: both below 1e-8 here
    np.testing.assert_allclose(jac, numeric, rtol=0, atol=1e-8)


def _brute_force_minimal_norm(forces, p, gates, lo, hi):
    """The optimal residual by enumeration: every assignment of each x_k to lo, hi or free, the free ones by
    least squares; the feasible candidate of smallest |r| (the optimum is one of them)."""
    a, b = np.divmod(gates, p)
    e = np.zeros((2 * p, gates.size))
    e[a, np.arange(gates.size)] = 1
    e[p + b, np.arange(gates.size)] = 1
    best = None
    for choice in itertools.product((0, 1, 2), repeat=gates.size):
        choice = np.array(choice)
        x = np.where(choice == 0, lo, hi).astype(float)
        free = choice == 2
        if free.any():
            rhs = -(forces + e[:, ~free] @ x[~free])
            x[free] = np.linalg.lstsq(e[:, free], rhs, rcond=None)[0]
            if np.any(x[free] < lo[free] - 1e-12) or np.any(x[free] > hi[free] + 1e-12):
                continue
        r = forces + e @ x
        if best is None or r @ r < best @ best:
            best = r
    return best


@pytest.mark.parametrize("seed", range(6))
def test_minimal_norm_element_against_brute_force(seed):
    """Gates forming cycles (a 2 x 2 block and a gate closing a cycle through another row) and a clone pair, random
    forces and boxes of both signs: BVLS's residual equals the enumerated optimum."""
    p = 5
    rng = np.random.default_rng(seed)
    gates = np.array([0 * p + 0, 0 * p + 1, 1 * p + 0, 1 * p + 1, 2 * p + 1, 2 * p + 3])
    gamma = rng.normal(0, 1, gates.size)
    lo, hi = np.minimum(gamma, 0), np.maximum(gamma, 0)
    forces = rng.normal(0, 1.5, 2 * p)
    x, r = flow.minimal_norm_element(forces, p, gates, lo, hi)
    assert np.all(x >= lo) and np.all(x <= hi)
    want = _brute_force_minimal_norm(forces, p, gates, lo, hi)
    # both are least-squares solutions of 10 x 6 systems of entries <= 4: a few hundred eps
    np.testing.assert_allclose(r, want, rtol=0, atol=1e-12)


def _linprog_margin(rows, cols, target, lo, hi):
    """max t: x with row sums target[rows], column sums target[p + cols], lo + t <= x <= hi - t (linprog)."""
    m, n = rows.size, cols.size
    k = m * n
    eq = np.zeros((m + n, k + 1))
    for i in range(m):
        eq[i, i * n:(i + 1) * n] = 1
    for j in range(n):
        eq[m + j, j:k:n] = 1
    ub = np.zeros((2 * k, k + 1))
    ub[:k, :k], ub[k:, :k], ub[:, k] = -np.eye(k), np.eye(k), 1
    c = np.zeros(k + 1)
    c[k] = -1
    res = linprog(c, A_ub=ub, b_ub=np.concatenate([-lo, hi]), A_eq=eq, b_eq=target, bounds=(None, None),
                  method="highs-ds")
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("shape, seed", [((2, 2), 0), ((2, 3), 1), ((3, 3), 2), ((3, 4), 3), ((2, 2), 4),
                                         ((7, 6), 5)])
def test_face_margin_against_linprog(shape, seed):
    """The supply-demand cut formula (and, for a 7 x 6 block, the LP with its own formulation) against an LP
    written independently here (linprog's dual simplex), on feasible and infeasible targets alike."""
    p = 13
    m, n = shape
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(p, m, replace=False))
    cols = np.sort(rng.choice(p, n, replace=False))
    gates = np.sort((rows[:, None] * p + cols[None, :]).ravel())
    faces = flow._Faces(p, gates)
    w = rng.normal(0, 2, p)
    gamma = flow._gate_gammas(w, (rows[:, None] * p + cols[None, :]).ravel(), p)
    lo, hi = np.minimum(gamma, 0), np.maximum(gamma, 0)
    x = rng.uniform(lo, hi).reshape(m, n) + rng.normal(0, 0.3, (m, n))  # sometimes outside its box
    target = np.zeros(2 * p)
    target[rows], target[p + cols] = x.sum(axis=1), x.sum(axis=0)
    got = faces.margin(target, w)
    want = _linprog_margin(rows, cols, np.concatenate([target[rows], target[p + cols]]), lo, hi)
    # both are vertex values of LPs with O(1) data: rounding and HiGHS's tolerances, far below 1e-8
    assert got == pytest.approx(want, abs=1e-8)


def _cycle_state(w=(-1.0, -1.0, -1.0, 2.0, 2.0)):
    """p = 5: rows 0, 1 (clones, u = 0) and columns 0, 1 (v = 0): the four gates (0,0), (0,1), (1,0), (1,1) on their
    kinks (labels 0, 1, 1, 2), a cycle. Column 3 (v = 1/2) makes (0, 3) (label 3) and (1, 3) (label 4) active,
    each pushing its row up with the force R = -g(1/2, w) > 0 (w(3) = w(4) = 2 the largest); nothing else is
    active. Everything else far below 0."""
    p = 5
    u = np.array([0.0, 0.0, -9, -9, -9])
    v = np.array([0.0, 0.0, -9, 0.5, -9])
    return p, np.concatenate([u, v, np.asarray(w, dtype=float)])


def test_cycle_of_four_faces_slides_with_the_closed_form_velocity():
    """Rows pushed up by R each, columns free: the tangent projection gives mu = -R/2, so du(0) = du(1) = R/(2p^2),
    dv(0) = dv(1) = -R/(2p^2) and every row and column needs kink forces summing to R/2; x = [[a, R/2 - a],
    [R/2 - a, a]] for any a (not unique: a cycle), and the largest margin is at a = R/4: R/4."""
    p, theta = _cycle_state()
    w = theta[2 * p:]
    r_force = -_softmax_force(0.5, w, 3)
    assert r_force == pytest.approx(-_softmax_force(0.5, w, 4), rel=1e-15) and r_force > 0
    status = _status_from_signs(theta, p)
    kinks = np.flatnonzero(status == 0)
    assert kinks.tolist() == [0, 1, 5, 6]
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), kinks, {})
    assert new[kinks].tolist() == [0, 0, 0, 0]
    vel = flow.velocity(theta, p, new)
    # a handful of operations on O(1) numbers: 16 eps R / p^2
    tol = 16 * EPS * r_force / p ** 2
    np.testing.assert_allclose(vel[[0, 1]], r_force / (2 * p * p), rtol=0, atol=tol)
    np.testing.assert_allclose(vel[[p, p + 1]], -r_force / (2 * p * p), rtol=0, atol=tol)
    np.testing.assert_allclose(vel[[2, 3, 4, p + 2, p + 4]], 0.0, atol=0)
    # the faces are kept: z_ab' = u' + v' = 0 on the block
    assert abs(vel[0] + vel[p]) <= tol
    assert flow._Mode(p, new).margin(theta) == pytest.approx(r_force / 4, rel=64 * EPS)
    # the minimal-norm element over the four gates has the same (unique) residual, whatever x BVLS picked
    forces = _oracle_forces(theta, p)
    gamma = flow._gate_gammas(w, kinks, p)
    x, r = flow.minimal_norm_element(forces, p, kinks, np.zeros(4), gamma)
    np.testing.assert_allclose(-r / p ** 2, vel[:2 * p], rtol=0, atol=tol + 1e-14)
    np.testing.assert_allclose([x[0] + x[1], x[2] + x[3], x[0] + x[2], x[1] + x[3]], r_force / 2, atol=1e-14)


def test_a_row_of_the_cycle_leaves_when_its_force_turns():
    """The same block with row 0 pulled down (w(3) = -3 the smallest: the force of (0, 3) is g_0 > 0) and row 1
    pushed up (g_1 < 0): mu = (g_0 + g_1) / 4 and row 0 needs kink forces summing to (g_1 - 3 g_0) / 4 < 0,
    which no admissible coefficient gives. Row 0's pair of gates leaves into z < 0 (c = 0); row 1's pair slides
    (a star: its columns need -g_1 / 3 each, inside [0, gamma] = [0, 0.6]), and row 0 moves down."""
    p, theta = _cycle_state(w=(-2.0, -2.0, -2.0, -3.0, 2.0))
    w = theta[2 * p:]
    g0, g1 = _softmax_force(0.5, w, 3), _softmax_force(0.5, w, 4)
    assert g0 > 0 > g1 and g1 - 3 * g0 < 0 and 0 < -g1 / 3 < 0.6
    assert np.all(flow._gate_gammas(w, np.array([0, 1, 5, 6]), p) == pytest.approx(0.6))
    status = _status_from_signs(theta, p)
    kinks = np.flatnonzero(status == 0)
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), kinks, {})
    assert new[[0, 1]].tolist() == [-1, -1] and new[[5, 6]].tolist() == [0, 0]
    vel = flow.velocity(theta, p, new)
    assert vel[0] + vel[p] < 0 and vel[0] + vel[p + 1] < 0
    # the margin of the full block says the same: row 0's two gates are the binding cut, both at c = 0
    block = np.where(np.isin(np.arange(p * p), kinks), 0, status)
    value, leaving = flow._Mode(p, block).margin(theta, detail=True)
    assert value < 0 and leaving == {0: -1, 1: -1}


def test_clone_rows_in_a_star():
    """Rows 0 and 1 equal, column 0 on both their kinks (a star of two rows): x_a0 = mu - G_a with
    mu = (G_u0 + G_u1 - G_v0) / 3 = -2R/3, so x_00 = x_10 = R/3, and the two rows move together (clones)."""
    p, theta = _cycle_state()
    theta[p + 1] = -9.0  # column 1 far below: only (0, 0) and (1, 0) on their kinks
    w = theta[2 * p:]
    r_force = -_softmax_force(0.5, w, 3)
    status = _status_from_signs(theta, p)
    kinks = np.flatnonzero(status == 0)
    assert kinks.tolist() == [0, 5]
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), kinks, {})
    assert new[[0, 5]].tolist() == [0, 0]
    vel = flow.velocity(theta, p, new)
    assert vel[0] == vel[1]
    tol = 16 * EPS * r_force / p ** 2
    assert vel[0] == pytest.approx(2 * r_force / (3 * p * p), abs=tol)
    assert vel[p] == pytest.approx(-2 * r_force / (3 * p * p), abs=tol)
    x, _ = flow.minimal_norm_element(_oracle_forces(theta, p), p, kinks, np.zeros(2),
                                     flow._gate_gammas(w, kinks, p))
    np.testing.assert_allclose(x, r_force / 3, rtol=1e-14)


def test_sliding_coefficients_are_the_papers_alpha():
    """(A.26): with the central gate active and row gates (0, j), j in R, on their faces, the kink coefficients
    are alpha_j = A / ((k+1) gamma_j), A = sum_{j != 0} q_j d_j (A.19), q = softmax(x w), d_j = w(0) - w(j),
    and (A.28) du(0)/dt = A / ((k+1) p^2), dv(j)/dt = -A / ((k+1) p^2)."""
    p = 5
    u = np.array([1.0, -5, -5, -5, -5])
    v = np.array([1.0, -1, -1, -3, -3])
    w = np.array([2.0, -1, -0.5, 0.3, 0.1])
    theta = np.concatenate([u, v, w])
    status = _status_from_signs(theta, p)
    kinks = np.flatnonzero(status == 0)
    assert kinks.tolist() == [1, 2]
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), kinks, {})
    assert new[[1, 2]].tolist() == [0, 0]
    x = u[0] + v[0]
    q = np.exp(x * w - (x * w).max())
    q /= q.sum()
    d = w[0] - w
    A = float(q[1:] @ d[1:])
    gamma = w.mean() - w
    k = 2
    coefficients, _ = flow.minimal_norm_element(_oracle_forces(theta, p), p, kinks, np.zeros(2), gamma[[1, 2]])
    for j, xj in zip((1, 2), coefficients):
        # a handful of operations on numbers of size <= 1 / gamma: 64 eps relative
        assert xj / gamma[j] == pytest.approx(A / ((k + 1) * gamma[j]), rel=64 * EPS)
    vel = flow.velocity(theta, p, new)
    assert vel[0] == pytest.approx(A / ((k + 1) * p * p), rel=64 * EPS)
    for j in (1, 2):
        assert vel[p + j] == pytest.approx(-A / ((k + 1) * p * p), rel=64 * EPS)
    assert flow._Mode(p, new).margin(theta) > 0


def _single_face_state(w):
    """p = 5: gate (0, 0) exactly on its kink (label 0), gate (0, 3) active (label 3, z = 1/2), all else far below."""
    p = 5
    u = np.array([0.0, -9, -9, -9, -9])
    v = np.array([0.0, -9, -9, 0.5, -9])
    return p, np.concatenate([u, v, np.asarray(w, dtype=float)])


@pytest.mark.parametrize("w, side", [([-1.0, -1, -1, 2, 2], 0),     # needs x = R/2 inside [0, gamma]: slides
                                     ([0.45, -1, -1, 2, 2], 1),     # needs x = R/2 > gamma: leaves up (c = 1)
                                     ([-1.0, -1, -1, -2, 2], -1)])  # needs x < 0: leaves down (c = 0)
def test_one_face_slides_or_leaves_as_its_required_coefficient_says(w, side):
    """One gate on its face with one active gate in its row pushing the row by -g: holding it takes x = -g/2
    (mu = g/2), so it slides iff 0 <= -g/2 <= gamma_0, else it leaves to the side of the violated bound."""
    p, theta = _single_face_state(w)
    w = theta[2 * p:]
    g = _softmax_force(0.5, w, 3)
    gamma0 = w.mean() - w[0]
    assert gamma0 > 0
    need = -g / 2
    assert side == (0 if 0 < need < gamma0 else (1 if need > gamma0 else -1))
    status = _status_from_signs(theta, p)
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), np.array([0]), {})
    assert new[0] == side
    vel = flow.velocity(theta, p, new)
    zdot = vel[0] + vel[p]
    if side == 0:
        assert abs(zdot) <= 16 * EPS * abs(g) / p ** 2
    else:
        assert side * zdot > 0


def test_a_repelling_face_takes_relu_prime_zero():
    """gamma_0 < 0: the face repels from both sides. With c = 0 the row's active gate (label 3, g < 0) moves the
    gate up, so it turns active; with the force reversed (g > 0) it goes down and stays inactive."""
    p, theta = _single_face_state([2.5, -1, -1, 2, 2])
    w = theta[2 * p:]
    assert w.mean() - w[0] < 0 and _softmax_force(0.5, w, 3) < 0
    status = _status_from_signs(theta, p)
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), np.array([0]), {})
    assert new[0] == 1
    vel = flow.velocity(theta, p, new)
    assert vel[0] + vel[p] > 0
    p, theta = _single_face_state([2.5, -1, -1, -2, 2])
    w = theta[2 * p:]
    assert w.mean() - w[0] < 0 and _softmax_force(0.5, w, 3) > 0
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), np.array([0]), {})
    assert new[0] == -1
    vel = flow.velocity(theta, p, new)
    assert vel[0] + vel[p] < 0


def test_a_repelling_gate_closing_a_cycle_is_held():
    """In the cycle state with gamma_2 < 0 (w(2) raised above the mean), gate (1, 1) (label 2) repels, but the
    three attractive gates slide and hold it: its z is u(1) + v(1) = z_10 + z_01 - z_00 = 0."""
    p, theta = _cycle_state()
    theta[2 * p + 2] = 1.0
    w = theta[2 * p:]
    assert flow._gate_gammas(w, np.array([6]), p)[0] < 0 < flow._gate_gammas(w, np.array([0, 1, 5]), p).min()
    status = _status_from_signs(theta, p)
    kinks = np.flatnonzero(status == 0)
    new, _ = flow._decide(theta, p, np.where(status == 0, -1, status), kinks, {})
    assert new[kinks].tolist() == [0, 0, 0, 0]
    assert flow._Mode(p, new).margin(theta) >= 0


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


def _check_valid_run(tr, theta, p, horizon):
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


def test_random_runs_are_valid_and_descend():
    """Every checkpoint loss is at most the previous one, the balance quantity (A.10) is kept, and a run
    records its checkpoints at the grid times."""
    p, horizon = 5, 1e4
    for index in range(4):
        theta = draw_initial(p, 1.0, 3, index).theta
        _check_valid_run(flow.simulate_flow(theta, p, horizon), theta, p, horizon)


@pytest.mark.parametrize("index", [0, 1, 5])
def test_p13_runs_the_forest_engine_could_not_decide(index):
    """p = 13, seed 1: samples 0, 1 and 5 stopped with 'a mode starts with an inadmissible Clarke coefficient'
    before t = 10^3 under the spanning-forest decisions; decided as one problem they run to the horizon, valid."""
    p, horizon = 13, 1e3
    theta = draw_initial(p, 1.0, 1, index).theta
    _check_valid_run(flow.simulate_flow(theta, p, horizon), theta, p, horizon)


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


def test_large_block_margin_bound_keeps_the_sign():
    """A 7 x 6 block (solved as an LP): after one LP, nearby targets are answered by the moved optimum's slack, a
    lower bound; every answer has the sign of the LP margin written here, and equals it where small."""
    p = 13
    rng = np.random.default_rng(11)
    rows, cols = np.arange(7), np.arange(7, 13)
    gates = (rows[:, None] * p + cols[None, :]).ravel()
    faces = flow._Faces(p, np.sort(gates))
    w = rng.normal(0, 2, p)  # boxes of both signs
    gamma = flow._gate_gammas(w, gates, p)
    lo, hi = np.minimum(gamma, 0), np.maximum(gamma, 0)
    x = (0.5 * gamma).reshape(7, 6)  # the middle of every box: margin |gamma| / 2 at the start
    drift = rng.normal(0, 1, (7, 6)) * gamma.reshape(7, 6)
    for step in np.linspace(0, 1.2, 25):
        y = x + step * drift
        target = np.zeros(2 * p)
        target[rows], target[p + cols] = y.sum(axis=1), y.sum(axis=0)
        got = faces.margin(target, w)
        want = _linprog_margin(rows, cols, np.concatenate([target[rows], target[p + cols]]), lo, hi)
        assert got <= want + 1e-8
        assert (got > 0) == (want > 0)


def test_mode_loss_is_the_loss():
    """The loss from a mode's softmax rows (with the gates whose sign differs from the mode computed apart) equals
    the loss (1.1) of certify.numeric.model, a separate code path, in a mode whose statuses disagree with two
    gates' signs."""
    p = 7
    theta = draw_initial(p, 1.0, 2, 4).theta
    status = _status_from_signs(theta, p)
    z = (theta[:p, None] + theta[None, p:2 * p]).ravel()
    status[int(np.argmax(np.where(z < 0, z, -np.inf)))] = 1   # an active gate with z < 0 (h = 0)
    status[int(np.argmin(np.where(z > 0, z, np.inf)))] = -1   # an inactive gate with z > 0
    want = model.loss(theta[:p], theta[p:2 * p], theta[2 * p:])
    # p^2 terms of size <= |L| + log p summed in different orders
    assert flow._Mode(p, status).loss(theta) == pytest.approx(want, abs=8 * p * p * EPS * (abs(want) + math.log(p)))


@pytest.mark.parametrize("gamma_sign, need, side", [(1, 2.0, 1), (1, -0.5, -1), (-1, 0.5, 1), (-1, -2.0, -1)])
def test_a_face_leaves_the_way_its_required_coefficient_goes(gamma_sign, need, side):
    """A single face (a 1 x 1 block) whose required coefficient x has just passed a bound of its box
    [min(0, gamma), max(0, gamma)], |gamma| = 1: above the upper bound the field lifts the gate more than any
    admissible x holds it, so it leaves into z > 0; below the lower bound into z < 0. For a repelling gate
    (gamma = -1, box [-1, 0]) the upper bound is x = 0: it turns active, where its own force lifts it further
    (before, the side was taken from the bound's coefficient, c = 0, and the gate was sent the wrong way)."""
    p = 5
    w = np.zeros(p)
    w[0] = -gamma_sign * 1.25  # gamma_0 = mean(w) - w(0) = gamma_sign
    faces = flow._Faces(p, np.array([0]))
    target = np.zeros(2 * p)
    target[0] = target[p] = need
    value, leaving = faces.margin(target, w, detail=True)
    assert value < 0 and leaving == {0: side}


def test_p13_sample_whose_cycle_held_a_repelling_gate():
    """p = 13, seed 1, sample 18: at t = 2427 a face margin released two gates of a block of clone rows 1 and 7, in
    which repelling gates were held by the cycle; re-deciding them from x = 0 split the rows and the released
    gate (7, 4) moved the wrong way ('decided active moves the other way'). Held repelling gates now keep their
    boxes in the minimal-norm problem, and the run is valid to 10^4."""
    p, horizon = 13, 1e4
    theta = draw_initial(p, 1.0, 1, 18).theta
    _check_valid_run(flow.simulate_flow(theta, p, horizon), theta, p, horizon)


# p = 11, seed 1, sample 16 at t = 878: the minimal-norm problem of 20 kink gates (a graph with cycles: E has
# rank 14) on which BVLS stopped by its cost-change rule after 16 iterations, short of the optimum (KKT violated
# by 2e-9 of the force scale). Recorded bit for bit (hex floats).
_STALLED_FORCES = [float.fromhex(x) for x in [
    "-0x1.0f6d29875bc00p-11", "0x0.0p+0", "0x0.0p+0", "-0x1.ca50496da4e50p-6", "-0x1.69bdeb6379f06p-3",
    "-0x1.55186af5a9948p-4", "0x0.0p+0", "0x0.0p+0", "-0x1.16785c0630c82p-3", "-0x1.c4301a068adcap-3",
    "-0x1.69bdedad62e64p-3", "0x0.0p+0", "0x0.0p+0", "-0x1.142677d2e5efap-3", "-0x1.c659dde3599aap-3",
    "-0x1.6c267743f0cf0p-3", "-0x1.b13f0f31161c0p-6", "0x0.0p+0", "0x0.0p+0", "-0x1.5648887e47f8cp-4",
    "-0x1.6c2674fa07d92p-3", "0x1.0f6d29d5b4400p-11",
]]
_STALLED_GATES = [15, 20, 31, 41, 45, 50, 51, 60, 70, 81, 86, 91, 101, 110, 111, 116, 26, 44, 75, 117]
_STALLED_LO = [float.fromhex(x) for x in [
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "-0x1.248187e78873ep-1",
    "-0x1.2481887a02b15p-1", "-0x1.2481887a02b15p-1", "-0x1.248187e78873ep-1",
]]
_STALLED_HI = [float.fromhex(x) for x in [
    "0x1.2234752434c42p+1", "0x1.66457e4d4198ep+1", "0x1.5303edc9f0e98p+1", "0x1.5303edc9f0e98p+1",
    "0x1.2234752434c42p+1", "0x1.66457e4d4198ep+1", "0x1.5303edc9f0e98p+1", "0x1.66457e4d4198ep+1",
    "0x1.66457e4d4198ep+1", "0x1.5303edc9f0e98p+1", "0x1.2234752434c42p+1", "0x1.5303edc9f0e98p+1",
    "0x1.5303edc9f0e98p+1", "0x1.66457e4d4198ep+1", "0x1.5303edc9f0e98p+1", "0x1.2234752434c42p+1", "0x0.0p+0",
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
]]


# p = 11, seed 1, sample 91 at t = 1060: a problem on which BVLS stalls whatever its iterations (the cost is O(1)
# and its last improvements, about 1e-19, are below the resolution of its relative cost-change test; KKT violated
# by 1.5e-10): solved on the target projected onto the range of E.
_FLAT_FORCES = [float.fromhex(x) for x in [
    "-0x1.4ae7544615a04p-3", "-0x1.fcf50167ebe80p-4", "-0x1.aa9757260b200p-10", "-0x1.7b4f13edbdd00p-6", "0x0.0p+0",
    "-0x1.3dc088165bde0p-4", "0x0.0p+0", "-0x1.9f80baba8f994p-3", "0x0.0p+0", "-0x1.4ae7546f47438p-3", "0x0.0p+0",
    "-0x1.a4271894c6548p-3", "0x0.0p+0", "-0x1.4ee1a78b76c50p-3", "0x0.0p+0", "-0x1.4ee1a76245224p-3",
    "-0x1.f65bff6efbc20p-4", "0x1.aa97574a97e00p-10", "-0x1.4e1f72829d8e0p-6", "0x0.0p+0", "-0x1.43c424feab230p-4",
    "0x0.0p+0",
]]
_FLAT_GATES = [1, 8, 10, 11, 42, 48, 62, 68, 70, 82, 90, 92, 100, 102, 109, 112, 3, 46, 107, 114]
_FLAT_LO = [float.fromhex(x) for x in [
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "-0x1.13487ee7d2b2bp-1",
    "-0x1.13487edd864a0p-1", "-0x1.13487edd864a0p-1", "-0x1.13487ee7d2b2bp-1",
]]
_FLAT_HI = [float.fromhex(x) for x in [
    "0x1.11dd3cc1323f8p+1", "0x1.314965c06991ap+1", "0x1.581cb58988971p+1", "0x1.11dd3cc1323f8p+1",
    "0x1.11dd3cc1323f8p+1", "0x1.314965c06991ap+1", "0x1.11dd3cc1323f8p+1", "0x1.314965c06991ap+1",
    "0x1.581cb58988971p+1", "0x1.11dd3cc1323f8p+1", "0x1.581cb58988971p+1", "0x1.11dd3cc1323f8p+1",
    "0x1.581cb58988971p+1", "0x1.11dd3cc1323f8p+1", "0x1.314965c06991ap+1", "0x1.11dd3cc1323f8p+1", "0x0.0p+0",
    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
]]

def _incidence(gates, p):
    """(coords, E): the rows and columns (u(a) is a, v(b) is p + b) the gates touch, and the 0/1 incidence of
    the gates on them, written here from the definition (not flow's own matrix)."""
    a, b = np.divmod(np.asarray(gates), p)
    coords = np.unique(np.concatenate([a, p + b]))
    m = np.zeros((coords.size, a.size))
    m[np.searchsorted(coords, a), np.arange(a.size)] = 1.0
    m[np.searchsorted(coords, p + b), np.arange(a.size)] = 1.0
    return coords, m

def _kkt_violation(forces, gates, lo, hi, x, p):
    """The largest violation of the KKT conditions of min |forces + E^T x|^2 over the box, over the force scale
    (written here from the definitions, independently of flow.minimal_norm_element's own check)."""
    a, b = np.divmod(np.asarray(gates), p)
    r = np.array(forces, dtype=float)
    np.add.at(r, a, x)
    np.add.at(r, p + b, x)
    g = r[a] + r[p + b]
    scale = max(np.abs(forces).max(), np.abs(lo).max(), np.abs(hi).max())
    tol = 1e-11 * scale
    inside = (x > lo + tol) & (x < hi - tol)
    at_lo = (x <= lo + tol) & (x < hi - tol)
    at_hi = (x >= hi - tol) & (x > lo + tol)
    worst = max(np.abs(g[inside]).max(initial=0.0), (-g[at_lo]).max(initial=0.0), g[at_hi].max(initial=0.0))
    return worst / scale


def test_minimal_norm_element_finishes_where_bvls_stopped_short():
    """flow.minimal_norm_element meets KKT to 1e-11 on the recorded problem; one BVLS pass with the cost rule
    of before (tol 1e-13 x the scale) does not (so this fails on the code before the retry)."""
    from scipy.optimize import lsq_linear

    p = 11
    forces, lo, hi = (np.array(v) for v in (_STALLED_FORCES, _STALLED_LO, _STALLED_HI))
    x, r = flow.minimal_norm_element(forces, p, np.array(_STALLED_GATES), lo, hi)
    assert _kkt_violation(forces, _STALLED_GATES, lo, hi, x, p) <= 1e-11
    coords, m = _incidence(_STALLED_GATES, p)
    scale = max(np.abs(forces).max(), np.abs(lo).max(), np.abs(hi).max())
    once = lsq_linear(m, -forces[coords], bounds=(lo, hi), method="bvls", tol=1e-13 * scale,
                      max_iter=10 * m.shape[1] + 20)
    assert _kkt_violation(forces, _STALLED_GATES, lo, hi, np.clip(once.x, lo, hi), p) > 1e-10


@pytest.mark.parametrize("index, horizon", [(63, 1e3), (22, 1e5), (16, 1e3)])
def test_p11_samples_a_face_margin_event_or_a_stalled_solver_stopped(index, horizon):
    """p = 11, seed 1: sample 63 at t = 434 (a face-margin event released four gates of one constraint, and one
    of them, sent active, was then pushed back: 'decided active moves the other way'), sample 22 at t = 4.0e4
    (likewise, by 2.4e-11), sample 16 at t = 878 (BVLS stopped short). The released gate is now decided like the
    other kink gates (flow._decide_at_event) and BVLS is run again when KKT fails; the runs are valid."""
    p = 11
    theta = draw_initial(p, 1.0, 1, index).theta
    _check_valid_run(flow.simulate_flow(theta, p, horizon), theta, p, horizon)


def test_minimal_norm_element_solves_the_problem_bvls_cannot_resolve_in_doubles():
    """flow.minimal_norm_element meets KKT to 1e-11 on the recorded problem of sample 91; BVLS on the raw target
    with its cost rule off (tol 0) and 200 iterations per variable does not (fails on the code before)."""
    from scipy.optimize import lsq_linear

    p = 11
    forces, lo, hi = (np.array(v) for v in (_FLAT_FORCES, _FLAT_LO, _FLAT_HI))
    x, _ = flow.minimal_norm_element(forces, p, np.array(_FLAT_GATES), lo, hi)
    assert _kkt_violation(forces, _FLAT_GATES, lo, hi, x, p) <= 1e-11
    coords, m = _incidence(_FLAT_GATES, p)
    raw = lsq_linear(m, -forces[coords], bounds=(lo, hi), method="bvls", tol=0.0, max_iter=200 * m.shape[1] + 20)
    assert _kkt_violation(forces, _FLAT_GATES, lo, hi, np.clip(raw.x, lo, hi), p) > 1e-10



# p = 17, seed 1, sample 110 at t = 1.1486e6 (horizon 1e8): the start of the mode in which LSODA stalled (state and
# mode recorded bit for bit after the face-margin event that began it; hex floats; status rows a = 0..16, + active,
# 0 on its face, - inactive). The mode is stiff (w relaxes at -10.3 per unit of t: -1.2e7 in tau); LSODA stayed with
# Adams at order 1 and a constant step of 7.7e-8 in tau, used 385,000 evaluations to reach t = 1.167e6, and the run
# stopped on MAX_EVALUATIONS ('more than 400000 field evaluations by t = 1.167e+06').
_STIFF_TAU0 = float.fromhex("0x1.be874c919a616p+3")
_STIFF_STATUS = (
    "-+-+0++++++-+-+-+"
    "----------+------"
    "0+0++++++++0+0+0+"
    "----------0------"
    "-+-+-++++-+-+-+-+"
    "----------0------"
    "-+-+-+----+-+-+-+"
    "----------0------"
    "-+-+------+-+-+-+"
    "----------0------"
    "-+--------+-+-+-+"
    "----------0------"
    "----------+-+-+-+"
    "-+-+-+-+0-+-+-+-+"
    "----------+-+-+--"
    "-+-+-+0++-+-+-+-+"
    "----------+-+----")
_STIFF_THETA = [float.fromhex(x) for x in [
    "0x1.c241e65a33c14p+3", "-0x1.c903bfb06c455p+3", "0x1.c52774fbbad43p+3", "-0x1.cbe944e52fdb0p+3",
    "0x1.82d1b5d36fc03p+3", "-0x1.cbe944e52fdb0p+3", "0x1.08de23897af06p+2", "-0x1.cbe944e52fdb0p+3",
    "-0x1.d46666bdddd13p+1", "-0x1.cbe944e52fdb0p+3", "-0x1.23dd6081625d6p+3", "-0x1.cbe944e52fdb0p+3",
    "-0x1.7e40432e01df4p+3", "0x1.7ca208c42ceb6p+3", "-0x1.b18657c922c59p+3", "0x1.7fcaae9ce30bbp+3",
    "-0x1.c61bbbf176c92p+3", "-0x1.c52774fbbad43p+3", "0x1.26b67b2155083p+3", "-0x1.c52774fbbad43p+3",
    "0x1.dfbbabd6d779cp+1", "-0x1.c241e65a33c14p+3", "-0x1.0333e51a71132p+2", "-0x1.7fcaae9ce30bbp+3",
    "-0x1.79997aacfbc21p+3", "-0x1.7ca208c42ceb6p+3", "-0x1.bf59e6c1488e5p+3", "0x1.cbe944e52fdb0p+3",
    "-0x1.c52774fbbad43p+3", "0x1.c903bfb06c456p+3", "-0x1.c52774fbbad43p+3", "0x1.b46af854efab3p+3",
    "-0x1.c52774fbbad43p+3", "0x1.811fd9456d095p+3", "-0x1.b53d832340688p+4", "0x1.794bdeea38618p+3",
    "-0x1.b521e10c4ebb7p+4", "0x1.79097942978d5p+3", "-0x1.b51a88eb384aep+4", "0x1.78a9bc8d0e5d8p+3",
    "0x1.76ecc6ebcf168p+3", "0x1.781946359d7abp+3", "0x1.781418bcda7dap+3", "0x1.76fb2acb01ab6p+3",
    "0x1.78a72f149ce22p+3", "0x1.681d85d08a948p+3", "0x1.790834f624261p+3", "-0x1.b3e59f7fefe42p+4",
    "0x1.794b5c248308ap+3", "-0x1.b4a35f425f8e3p+4", "0x1.796165e0588b4p+3",]]


def test_a_stiff_mode_where_lsoda_stays_with_adams_is_finished_by_radau():
    """The recorded mode (above) is integrated to t = 10^8 or to its event within the evaluation budget: after
    STIFF_SWITCH_EVALUATIONS the integration goes on with Radau. Before, it stopped with 'more than 400000 field
    evaluations by t = 1.167e+06'. Every accepted step is validated as in a run (the loss does not rise, the balance
    is kept, every gate stays on its side)."""
    p = 17
    status = np.array([{"+": 1, "0": 0, "-": -1}[c] for c in _STIFF_STATUS])
    theta = np.array(_STIFF_THETA)
    mode = flow._Mode(p, status)
    t0 = math.expm1(_STIFF_TAU0)
    run = flow._Run(p, np.array([t0, 1e8]), theta)
    tau_end = math.log1p(1e8)
    tau, _, fired = run.integrate_mode(mode, _STIFF_TAU0, theta, tau_end)
    assert fired is not None or tau == tau_end
    assert math.expm1(tau) > 1e7
    assert run.evaluations < flow.MAX_EVALUATIONS
    assert run.loss_excess <= 0
    assert run.drift < 1e-6


def test_a_gate_that_crossed_and_came_back_within_a_step_fires_its_own_event():
    """p = 29, seed 1, sample 55: active gate 390 dipped below its kink inside one solver step and was below it
    (z = -3.7e-5) when another gate's event fired at t = 197.7; the next mode then started with it on the wrong
    side and the run stopped ('a gate starts a mode on the wrong side of its kink'). Its own crossing, earlier,
    is now the event (flow._Run.integrate_mode), and the run is valid past it."""
    p, horizon = 29, 250.0
    theta = draw_initial(p, 1.0, 1, 55).theta
    _check_valid_run(flow.simulate_flow(theta, p, horizon), theta, p, horizon)
