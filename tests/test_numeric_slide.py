"""Tests for certify.numeric.slide: the sliding Clarke trajectory of Theorem A.1 (A.3-A.4).

Closed forms are computed here, independently of the code under test:
  * the symmetric base point: capture of all 2(p-1) cross gates at x = 6X; the two
    balance invariants d^2 - p x^2/(2(p-1)) (before capture) and d^2 - p^2 x^2/(2(p-1))
    (after); the capture time (p^2/(2(p-1))) int_{2X}^{6X} (e^{x d(x)} + p - 1)/d(x) dx
    from (A.19), (A.30) and the first invariant, evaluated with mpmath;
  * any start: u(0), v(0) are piecewise linear in the clock x with slopes
    (1/(k+1))/S, (1/(l+1))/S  ((A.28)-(A.30)), which predicts every impact position;
  * the full face: d/x -> kappa_p (A.40), F_zeta -> 2/(p-1) (A.46), the limit direction
    (A.45) with the O(1/x) defect ||theta/|theta| - lim|| * x -> sqrt(mu^2 + Delta^2/2)
    (mu = mean(w), Delta = u(0) - v(0), both conserved), the loss limit (A.33);
  * the selected field equals -(gradient with ReLU'(0) = 0) minus the kink terms
    alpha_j gamma_j (e_u(0) + e_v(j)) / p^2 of Lemma A.6 with alpha_j from (A.26).
Parameters: gamma_* = 1, X = (p-1)/2 > (p-1)/(e gamma_*), box radius
r = 0.9 min(X/2, p gamma_*/(2(p-1))) around the base point.
"""

import functools
import math

import mpmath
import numpy as np
import pytest
from scipy.special import logsumexp

from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import gradient, loss
from certify.numeric.slide import (
    CaptureEvent,
    InadmissibleKink,
    SlideError,
    SlideTrajectory,
    log_dt_dx,
    selected_velocity,
    simulate_slide,
    slide_base_point,
    x_clock_velocity,
)

GAMMA_STAR = 1.0
PRIMES = (5, 7)


def _X(p):
    return (p - 1) / 2


def _kappa(p):
    return p / math.sqrt(2 * (p - 1))


def _radius(p):
    return 0.9 * min(_X(p) / 2, p * GAMMA_STAR / (2 * (p - 1)))


def _box_points(p, count, seed):
    """Uniform draws alternating with corners of the sup-norm box around the base point."""
    rng = np.random.default_rng(seed)
    base = np.concatenate(slide_base_point(p, GAMMA_STAR, _X(p)))
    r = _radius(p)
    for k in range(count):
        offset = rng.uniform(-r, r, 3 * p) if k % 2 == 0 else r * rng.choice([-1.0, 1.0], 3 * p)
        theta = base + offset
        yield theta[:p], theta[p:2 * p], theta[2 * p:]


BOX_PER_P = 3
BASE_CASES = [("base", p, 0) for p in PRIMES]
BOX_CASES = [("box", p, k) for p in PRIMES for k in range(BOX_PER_P)]


@functools.lru_cache(maxsize=None)
def _run(kind, p, k):
    """(p, start, trajectory); each simulation runs once per session."""
    if kind == "base":
        start = slide_base_point(p, GAMMA_STAR, _X(p))
    else:
        start = list(_box_points(p, BOX_PER_P, seed=100 + p))[k]
    return p, start, simulate_slide(*start)


def _ids(case):
    kind, p, k = case
    return f"{kind}-p{p}" + (f"-{k}" if kind == "box" else "")


@pytest.fixture(params=BASE_CASES, ids=_ids)
def base_run(request):
    return _run(*request.param)


@pytest.fixture(params=BOX_CASES, ids=_ids)
def box_run(request):
    return _run(*request.param)


@pytest.fixture(params=BASE_CASES + BOX_CASES, ids=_ids)
def any_run(request):
    return _run(*request.param)


def _d(w):
    """d = w(0) - mean_{j != 0} w(j)  (A.34), row-wise."""
    return w[..., 0] - w[..., 1:].mean(axis=-1)


def _captured_masks(p, events, x):
    """Captured rows/columns at clock x according to the event list."""
    R = np.zeros(p, dtype=bool)
    C = np.zeros(p, dtype=bool)
    for e in events:
        if e.x <= x:
            R[list(e.rows)] = True
            C[list(e.columns)] = True
    return R, C


# ---------------------------------------------------------------------------
# Base point (section A.3)


def test_slide_base_point_values():
    u, v, w = slide_base_point(7, 0.5, 4.0)
    np.testing.assert_array_equal(u, [4.0] + [-12.0] * 6)
    np.testing.assert_array_equal(v, u)
    np.testing.assert_array_equal(w, [7.0] + [0.0] * 6)


def test_base_point_captures_everything_at_once_at_6X(base_run):
    p, _, tr = base_run
    assert isinstance(tr, SlideTrajectory) and tr.p == p
    assert len(tr.events) == 1
    (event,) = tr.events
    assert isinstance(event, CaptureEvent)
    assert event.rows == tuple(range(1, p)) and event.columns == tuple(range(1, p))
    assert event.x == pytest.approx(6 * _X(p), rel=1e-8)
    assert tr.fully_captured and tr.x_full_capture == event.x
    assert tr.rows == tuple(range(1, p)) and tr.columns == tuple(range(1, p))
    assert tr.x_end == pytest.approx(200 * 6 * _X(p), rel=1e-12)


def test_base_point_balance_invariants(base_run):
    p, _, tr = base_run
    s = tr.samples
    X, g = _X(p), GAMMA_STAR
    d, x = _d(s.w), s.x
    before = x < 6 * X * (1 - 1e-12)
    after = ~before
    assert before.sum() >= 10 and after.sum() >= 10
    inv1 = d[before] ** 2 - p * x[before] ** 2 / (2 * (p - 1))
    c1 = (2 * p * g) ** 2 - p * (2 * X) ** 2 / (2 * (p - 1))
    np.testing.assert_allclose(inv1, c1, rtol=1e-8)
    # After capture: ||u||^2 + ||v||^2 = p x^2/2 (A.38) gives the second invariant; its value
    # is fixed at the capture point x = 6X, d = d(6X) by the first one.
    c2 = c1 + p * (6 * X) ** 2 / (2 * (p - 1)) - p**2 * (6 * X) ** 2 / (2 * (p - 1))
    inv2 = d[after] ** 2 - p**2 * x[after] ** 2 / (2 * (p - 1))
    # Relative to the size d^2 of the cancelling terms (up to 1.8e7 at x_end).
    assert np.max(np.abs(inv2 - c2) / d[after] ** 2) < 1e-8
    assert np.max(np.abs(inv2 - c2)) < 1e-5 * abs(c2) + 1e-2  # and absolutely, the constant itself
    # Consequently |d/x - kappa| decreases on the face and matches the closed form at the end.
    dev = np.abs(d[after] / x[after] - _kappa(p))
    assert np.all(np.diff(dev) < 0)
    expected = abs(math.sqrt(_kappa(p) ** 2 + c2 / tr.x_end**2) - _kappa(p))
    assert dev[-1] == pytest.approx(expected, rel=1e-4)
    assert dev[-1] < 1e-4


def test_base_point_capture_time_matches_closed_form(base_run):
    p, _, tr = base_run
    with mpmath.workdps(30):
        p_, X, g = mpmath.mpf(p), mpmath.mpf(_X(p)), mpmath.mpf(GAMMA_STAR)
        d = lambda x: mpmath.sqrt((2 * p_ * g) ** 2 + p_ * (x**2 - 4 * X**2) / (2 * (p_ - 1)))
        M = 6 * X * d(6 * X)  # factor out e^{6X d(6X)}
        f = lambda x: (mpmath.exp(x * d(x) - M) + (p_ - 1) * mpmath.exp(-M)) / d(x)
        integral = mpmath.quad(f, [2 * X, 6 * X - 1, 6 * X - mpmath.mpf("0.1"), 6 * X])
        log10_t = float((mpmath.log(p_**2 / (2 * (p_ - 1))) + M + mpmath.log(integral)) / mpmath.log(10))
    assert tr.events[0].log10_t == pytest.approx(log10_t, rel=1e-8)
    assert log10_t > 60  # the time is astronomically large: hence the clock x
    s = tr.samples
    assert s.log10_t[0] == -math.inf
    assert np.all(np.diff(s.log10_t[1:]) > 0)
    assert tr.log10_t_end > tr.events[0].log10_t


def test_base_point_stays_symmetric(base_run):
    p, _, tr = base_run
    s = tr.samples
    np.testing.assert_allclose(s.u, s.v, rtol=0, atol=1e-9 * s.x.max())
    np.testing.assert_allclose(s.w[:, 1:], s.w[:, 1:2] * np.ones((1, p - 1)), rtol=0, atol=1e-9 * s.x.max())
    np.testing.assert_allclose(s.u[:, 0], s.x / 2, rtol=1e-12)


# ---------------------------------------------------------------------------
# Sequential capture from box points (Lemmas A.9-A.11)


def test_impacts_match_piecewise_linear_central_coordinates(box_run):
    """Between impacts u(0), v(0) are linear in x with slopes (1/(k+1))/S and (1/(l+1))/S."""
    p, (u, v, w), tr = box_run
    total_rows = [j for e in tr.events for j in e.rows]
    total_cols = [j for e in tr.events for j in e.columns]
    assert sorted(total_rows) == list(range(1, p)) and sorted(total_cols) == list(range(1, p))
    assert len(tr.events) >= 2  # generic starts are captured sequentially
    xs = [e.x for e in tr.events]
    assert np.all(np.diff(xs) > 0) and xs[0] > u[0] + v[0]
    a, b, x_prev, k, l = u[0], v[0], u[0] + v[0], 0, 0
    R, C = set(), set()
    for e in tr.events:
        S = 1 / (k + 1) + 1 / (l + 1)
        a += (1 / (k + 1)) / S * (e.x - x_prev)
        b += (1 / (l + 1)) / S * (e.x - x_prev)
        x_prev = e.x
        for j in range(1, p):
            r, s = a + v[j], u[j] + b  # uncaptured coordinates never move
            if j in e.rows:
                assert abs(r) <= 1e-9 * e.x
            elif j not in R:
                assert r < -1e-9 * e.x
            if j in e.columns:
                assert abs(s) <= 1e-9 * e.x
            elif j not in C:
                assert s < -1e-9 * e.x
        R |= set(e.rows)
        C |= set(e.columns)
        k, l = len(R), len(C)
    assert tr.u[0] - tr.v[0] == pytest.approx(a - b, abs=1e-9 * tr.x_end)
    # ... and the samples follow the same piecewise-linear law.
    s = tr.samples
    for xi, ui in zip(s.x[::7], s.u[::7, 0]):
        a_pred, x_prev, k, l = u[0], u[0] + v[0], 0, 0
        for e in tr.events:
            if e.x > xi:
                break
            a_pred += (1 / (k + 1)) / (1 / (k + 1) + 1 / (l + 1)) * (e.x - x_prev)
            x_prev, k, l = e.x, k + len(e.rows), l + len(e.columns)
        a_pred += (1 / (k + 1)) / (1 / (k + 1) + 1 / (l + 1)) * (xi - x_prev)
        assert ui == pytest.approx(a_pred, rel=1e-10, abs=1e-10 * xi)


def test_sliding_invariants_along_box_trajectories(box_run):
    p, (u, v, w), tr = box_run
    s = tr.samples
    X = _X(p)
    assert np.all(np.diff(s.x) > 0)
    np.testing.assert_allclose(s.u[:, 0] + s.v[:, 0], s.x, rtol=1e-10)
    assert s.x[0] > X
    for i in range(len(s.x)):
        x, ui, vi, wi = s.x[i], s.u[i], s.v[i], s.w[i]
        R, C = _captured_masks(p, tr.events, x)
        r, c = ui[0] + vi, ui + vi[0]
        # captured gates stay on the kink, uncaptured cross gates stay negative
        assert np.all(np.abs(r[R]) <= 1e-9 * x) and np.all(np.abs(c[C]) <= 1e-9 * x)
        assert np.all(r[1:][~R[1:]] < 0) and np.all(c[1:][~C[1:]] < 0)
        # off-cross gates stay negative (Lemma A.10)
        assert ui[1:].max() + vi[1:].max() < 0
        # gamma_j > gamma_* (A.17), increasing by (A.23)
        gamma = wi.mean() - wi[1:]
        assert gamma.min() > GAMMA_STAR
        # kink coefficients (A.26)-(A.27) <= (p-1)/(e X gamma_*) < 1, compared in logs
        k, l = int(R.sum()), int(C.sum())
        if k + l:
            log_q = x * wi - logsumexp(x * wi)
            log_A = logsumexp(log_q[1:] + np.log(wi[0] - wi[1:]))
            logs = [log_A - math.log(k + 1) - math.log(wi.mean() - wi[j]) for j in np.flatnonzero(R)]
            logs += [log_A - math.log(l + 1) - math.log(wi.mean() - wi[j]) for j in np.flatnonzero(C)]
            assert max(logs) <= math.log((p - 1) / (math.e * X * GAMMA_STAR)) < 0
            assert s.max_log_kink[i] == pytest.approx(max(logs), rel=1e-9)
        assert s.n_captured[i] == k + l
    assert np.all(np.diff(s.min_gamma) >= -1e-12)
    assert np.all(np.diff(s.log10_t[1:]) > 0)
    assert [e.log10_t for e in tr.events] == sorted(e.log10_t for e in tr.events)


# ---------------------------------------------------------------------------
# Conservation laws and the full sliding face (A.31)-(A.46), base and box starts


def test_balance_quantity_conserved(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    B0 = u @ u + v @ v - w @ w
    B = (s.u**2).sum(1) + (s.v**2).sum(1) - (s.w**2).sum(1)
    scale = (s.u**2).sum(1) + (s.v**2).sum(1) + (s.w**2).sum(1)
    # Relative to the cancelling terms ||theta||^2 (up to ~1e7 at x_end) ...
    assert np.max(np.abs(B - B0) / scale) < 1e-8
    # ... and relative to B0 itself while theta is still of moderate size (before full capture).
    early = s.n_captured < 2 * (p - 1)
    assert np.max(np.abs(B[early] - B0)) < 1e-8 * abs(B0)
    np.testing.assert_allclose(s.balance, B, rtol=1e-12)


def test_mean_and_wrong_class_spread(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    np.testing.assert_allclose(s.w.mean(axis=1), w.mean(), rtol=0, atol=1e-9 * s.x.max())  # (A.22)
    spread = s.w[:, 1:].max(axis=1) - s.w[:, 1:].min(axis=1)
    assert np.all(np.diff(spread) <= 1e-10)  # Lemma A.13
    assert spread[-1] < 1e-8  # and on the face the spread dies out


def test_full_face_asymptotics(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    face = s.n_captured == 2 * (p - 1)
    assert face.sum() > 50 and tr.fully_captured
    x = s.x[face]
    # (A.31)-(A.32): u(0) - v(0) constant, u = (a, -b, ..., -b), v = (b, -a, ..., -a)
    delta = s.u[face, 0] - s.v[face, 0]
    np.testing.assert_allclose(delta, delta[0], rtol=0, atol=1e-9 * x.max())
    np.testing.assert_allclose(s.u[face, 1:], -s.v[face, :1] * np.ones((1, p - 1)), rtol=0, atol=1e-9 * x.max())
    np.testing.assert_allclose(s.v[face, 1:], -s.u[face, :1] * np.ones((1, p - 1)), rtol=0, atol=1e-9 * x.max())
    # (A.40): d/x -> kappa_p, monotonically
    dev = np.abs(_d(s.w[face]) / x - _kappa(p))
    assert np.all(np.diff(dev) < 0) and dev[-1] < 1e-4
    # (A.46): every F_zeta -> 2/(p-1)
    F_end = fourier_fractions(tr.u, tr.v, tr.w)
    np.testing.assert_allclose(F_end, 2 / (p - 1), atol=1e-9)
    assert s.max_fourier_fraction[-1] == pytest.approx(max(F_end), abs=1e-12)
    # (A.45): theta/|theta| -> (V, V, kappa q)/sqrt(p), with defect ~ sqrt(mu^2 + Delta^2/2)/x
    V = np.full(p, -0.5)
    V[0] = 0.5
    q = np.full(p, -1 / p)
    q[0] += 1
    limit = np.concatenate([V, V, _kappa(p) * q]) / math.sqrt(p)
    theta = np.concatenate([s.u[face], s.v[face], s.w[face]], axis=1)
    err = np.linalg.norm(theta / np.linalg.norm(theta, axis=1, keepdims=True) - limit, axis=1)
    assert np.all(np.diff(err) < 0)
    mu = w.mean()
    assert err[-1] * x[-1] == pytest.approx(math.sqrt(mu**2 + delta[0] ** 2 / 2), rel=1e-3)
    # (A.33): the loss tends to (p^2 - 1)/p^2 log p; the central example's loss is the rest
    dj = tr.w[0] - tr.w[1:]
    central = math.log1p(float(np.sum(np.exp(-tr.x_end * dj))))
    assert tr.loss_end == pytest.approx((p**2 - 1) / p**2 * math.log(p) + central / p**2, rel=1e-12)
    assert tr.loss_end == pytest.approx(loss(tr.u, tr.v, tr.w), rel=1e-15)
    # The final state is snapped: captured gates exactly 0, the state equals the last sample.
    assert np.all(tr.u[0] + tr.v[1:] == 0) and np.all(tr.u[1:] + tr.v[0] == 0)
    np.testing.assert_allclose(s.u[-1], tr.u, rtol=0, atol=1e-12 * tr.x_end)
    assert s.x[-1] == tr.x_end


# ---------------------------------------------------------------------------
# The selected vector field against the model's gradient (Lemma A.6, (A.26)-(A.29))


@pytest.mark.parametrize("seed", range(6))
def test_selected_field_is_a_clarke_selection_of_the_model_gradient(seed):
    rng = np.random.default_rng(seed)
    p = (5, 7)[seed % 2]
    u = np.full(p, -2.0) + rng.uniform(-0.2, 0.2, p)
    v = np.full(p, -2.0) + rng.uniform(-0.2, 0.2, p)
    u[0], v[0] = rng.uniform(0.3, 0.7, 2)
    w = rng.uniform(-0.1, 0.1, p)
    w[0] = 1.0 + rng.uniform(-0.1, 0.1)
    rows = sorted(rng.choice(np.arange(1, p), rng.integers(0, p), replace=False).tolist())
    cols = sorted(rng.choice(np.arange(1, p), rng.integers(0, p), replace=False).tolist())
    v[rows] = -u[0]  # captured gates exactly on the kink
    u[cols] = -v[0]
    k, l, x = len(rows), len(cols), u[0] + v[0]
    g0 = np.concatenate(gradient(u, v, w, relu_prime_at_zero=0.0))
    g1 = np.concatenate(gradient(u, v, w, relu_prime_at_zero=1.0))
    gamma = w.mean() - w
    # Lemma A.6: each kink example (0, j) / (j, 0) with label j has slope gamma_j.
    kink = np.zeros(3 * p)
    for j in rows:
        kink[[0, p + j]] += gamma[j] / p**2
    for j in cols:
        kink[[j, p]] += gamma[j] / p**2
    np.testing.assert_allclose(g1 - g0, kink, rtol=1e-12, atol=1e-15)
    qs = np.exp(x * w) / np.exp(x * w).sum()
    A = w[0] - qs @ w
    expected = -g0.copy()
    for j in rows:
        expected[[0, p + j]] -= A / ((k + 1) * gamma[j]) * gamma[j] / p**2
    for j in cols:
        expected[[j, p]] -= A / ((l + 1) * gamma[j]) * gamma[j] / p**2
    got = np.concatenate(selected_velocity(u, v, w, rows, cols))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)
    # Captured gates do not move; dx/dt is (A.30).
    assert all(abs(got[0] + got[p + j]) <= 1e-15 for j in rows)
    assert all(abs(got[j] + got[p]) <= 1e-15 for j in cols)
    assert got[0] + got[p] == pytest.approx(A / p**2 * (1 / (k + 1) + 1 / (l + 1)), rel=1e-10)
    # The x-clock field is the same field divided by dx/dt.
    per_x = np.concatenate(x_clock_velocity(u, v, w, rows, cols))
    np.testing.assert_allclose(per_x * math.exp(-log_dt_dx(x, w, k, l)), expected, rtol=1e-10, atol=1e-14)
    assert per_x[0] + per_x[p] == pytest.approx(1.0, rel=1e-14)


def test_explicit_x_end_and_integrators_agree():
    p = 5
    X = _X(p)
    start = slide_base_point(p, GAMMA_STAR, X)
    # Stopping before the impact: nothing captured, the time is the partial closed-form integral.
    early = simulate_slide(*start, x_end=4 * X)
    assert early.events == () and not early.fully_captured and early.x_full_capture is None
    assert early.x_end == early.samples.x[-1] == 4 * X
    with mpmath.workdps(30):
        p_ = mpmath.mpf(p)
        d = lambda x: mpmath.sqrt((2 * p_) ** 2 + p_ * (x**2 - 4 * mpmath.mpf(X) ** 2) / (2 * (p_ - 1)))
        M = 4 * X * d(4 * X)
        integral = mpmath.quad(lambda x: (mpmath.exp(x * d(x) - M) + (p_ - 1) * mpmath.exp(-M)) / d(x),
                               [2 * X, 4 * X - 1, 4 * X - mpmath.mpf("0.1"), 4 * X])
        log10_t = float((mpmath.log(p_**2 / (2 * (p_ - 1))) + M + mpmath.log(integral)) / mpmath.log(10))
    assert early.log10_t_end == pytest.approx(log10_t, rel=1e-8)
    # Past the impact, the explicit DOP853 and the default Radau give the same trajectory.
    radau = simulate_slide(*start, x_end=8 * X)
    dop = simulate_slide(*start, x_end=8 * X, method="DOP853")
    for a, b in ((radau.u, dop.u), (radau.v, dop.v), (radau.w, dop.w)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8)
    assert radau.log10_t_end == pytest.approx(dop.log10_t_end, rel=1e-10)
    assert radau.events[0].x == pytest.approx(6 * X, rel=1e-12) and dop.events[0].x == pytest.approx(6 * X, rel=1e-12)


# ---------------------------------------------------------------------------
# Failures are loud


def test_inadmissible_kink_raises():
    # gamma_1 = (1 - 4 * 0.249)/5 = 0.0008 and A ~ 0.75: when the row gate (0, 1) hits 0 at
    # x = 0.102 (u(0) = x/2 before), the coefficient A/(2 gamma_1) of (A.26) is far above 1.
    u = np.array([0.05, -1.0, -1.0, -1.0, -1.0])
    v = np.array([0.05, -0.051, -1.0, -1.0, -1.0])
    w = np.array([1.0, 0.249, 0.0, 0.0, 0.0])
    with pytest.raises(InadmissibleKink) as info:
        simulate_slide(u, v, w)
    assert isinstance(info.value, SlideError)
    assert info.value.x == pytest.approx(0.102, rel=1e-9)
    # Already on the kink at the start: rejected before integrating.
    v[1] = -0.05
    with pytest.raises(InadmissibleKink):
        simulate_slide(u, v, w)


def test_invalid_starts_rejected():
    p = 5
    base = slide_base_point(p, GAMMA_STAR, _X(p))
    u, v, w = (x.copy() for x in base)
    v[2] = -1.0  # cross gate (0, 2) = X - 1 > 0
    with pytest.raises(ValueError, match="cross gate"):
        simulate_slide(u, v, w)
    u, v, w = (x.copy() for x in base)
    u[0] = v[0] = -1.0
    with pytest.raises(ValueError, match="central"):
        simulate_slide(u, v, w)
    with pytest.raises(ValueError, match="odd"):
        simulate_slide(np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError):
        selected_velocity(*base, rows=[0], columns=[])
