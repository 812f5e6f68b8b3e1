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
import inspect
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
from tolerances import (
    assert_close,
    cancellation_tolerance,
    fourier_fraction_tolerance,
    integration_tolerance,
    log_integral_tolerance,
    relative_rounding,
    rounding,
)

GAMMA_STAR = 1.0
PRIMES = (5, 7)

_DEFAULTS = inspect.signature(simulate_slide).parameters
RTOL, ATOL, CAPTURE_TOL = (_DEFAULTS[name].default for name in ("rtol", "atol", "capture_tol"))


def _theta(s):
    """Sampled states as rows (u, v, w)."""
    return np.concatenate([s.u, s.v, s.w], axis=1)


def _state_error(tr, rows, factor=1.0):
    """Global-error estimate of each component of sampled states (rows theta), see tests/tolerances.py:
    at most nfev steps (every Radau step costs several evaluations), each with local error
    rtol |theta_i| + atol, |theta_i| its running maximum along the path (the states grow)."""
    return integration_tolerance(np.maximum.accumulate(np.abs(rows), axis=0), tr.nfev, RTOL, ATOL, factor)


def _exact_rate_rounding(tr, x, extra=0):
    """u(0), v(0), the captured gates and u(0) - v(0) on the face move at rates that are constant
    between impacts (exact in floats: the field's constant part), so every Runge-Kutta step
    and its dense output reproduce them up to rounding: one rounding of size x per step,
    at most nfev steps, 10 more for the dense-output polynomial and ``extra`` for the test's
    own arithmetic."""
    return rounding(x, tr.nfev + 10 + extra)


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
    # Before the impact u(0) = x/2 exactly (constant rate) and v(j) = -3X does not move, so the
    # gate x/2 - 3X reaches 0 at x = 6X up to the rounding of u(0) and the event's root
    # finder (brentq to 4 EPS relative on the dense output).
    rel = relative_rounding(tr.nfev + 10 + 4)
    assert event.x == pytest.approx(6 * _X(p), rel=rel, abs=0)
    assert tr.fully_captured and tr.x_full_capture == event.x
    assert tr.rows == tuple(range(1, p)) and tr.columns == tuple(range(1, p))
    # x_end = 200 * x_full_capture: one more rounding.
    assert tr.x_end == pytest.approx(200 * 6 * _X(p), rel=rel + relative_rounding(1), abs=0)


def test_base_point_balance_invariants(base_run):
    p, _, tr = base_run
    s = tr.samples
    X, g = _X(p), GAMMA_STAR
    d, x = _d(s.w), s.x
    before = x < tr.events[0].x  # the impact sample itself starts the face
    after = ~before
    assert before.sum() >= 10 and after.sum() >= 10
    # Error of d = w(0) - mean_j w(j): the integration error of w(0) plus that of the mean
    # (each at most the largest component error), plus the rounding of the mean (p terms).
    w_abs = np.maximum.accumulate(np.abs(s.w), axis=0).max(axis=1)
    d_err = 2 * _state_error(tr, s.w).max(axis=1) + rounding(w_abs, p + 2)
    inv1 = d[before] ** 2 - p * x[before] ** 2 / (2 * (p - 1))
    c1 = (2 * p * g) ** 2 - p * (2 * X) ** 2 / (2 * (p - 1))
    # inv1 moves by 2 |d| d_err (+ d_err^2) through d; the two cancelling terms d^2 and
    # p x^2/(2(p-1)) round with a few operations each, and so does c1.
    tol1 = (2 * np.abs(d[before]) * d_err[before] + d_err[before] ** 2
            + rounding(d[before] ** 2 + p * x[before] ** 2 / (2 * (p - 1)), 6)
            + cancellation_tolerance((2 * p * g) ** 2, p * (2 * X) ** 2 / (2 * (p - 1)), ops=6))
    assert np.all(np.abs(inv1 - c1) <= tol1)
    # After capture: ||u||^2 + ||v||^2 = p x^2/2 (A.38) gives the second invariant; its value
    # is fixed at the capture point x = 6X, d = d(6X) by the first one.
    c2 = c1 + p * (6 * X) ** 2 / (2 * (p - 1)) - p**2 * (6 * X) ** 2 / (2 * (p - 1))
    inv2 = d[after] ** 2 - p**2 * x[after] ** 2 / (2 * (p - 1))
    # The same estimate, now relative to the cancelling terms d^2 (up to ~1e8 at x_end).
    tol2 = (2 * np.abs(d[after]) * d_err[after] + d_err[after] ** 2
            + rounding(d[after] ** 2 + p**2 * x[after] ** 2 / (2 * (p - 1)), 6)
            + cancellation_tolerance(c1, p * (6 * X) ** 2 / (2 * (p - 1)), p**2 * (6 * X) ** 2 / (2 * (p - 1)), ops=8))
    assert np.all(np.abs(inv2 - c2) <= tol2)
    assert np.all(tol2 < abs(c2) / 4)  # the estimate is informative: it pins down the constant c2
    # Consequently |d/x - kappa| decreases on the face and matches the closed form at the end:
    # d/x errs by d_err/x, and d/x - kappa cancels two terms of size kappa (a few roundings).
    dev = np.abs(d[after] / x[after] - _kappa(p))
    assert np.all(np.diff(dev) < 0)
    expected = abs(math.sqrt(_kappa(p) ** 2 + c2 / tr.x_end**2) - _kappa(p))
    dev_tol = d_err[-1] / tr.x_end + rounding(2 * _kappa(p), 8)
    assert dev[-1] == pytest.approx(expected, rel=0, abs=dev_tol)
    assert dev_tol < expected / 2  # and the estimate resolves the O(1/x^2) deviation itself


def _log10_time_tolerance(tr, x_end):
    """Error estimate of log10 t(x_end): tests/tolerances.py log_integral_tolerance with the
    integration error and size of w on [x0, x_end]."""
    s = tr.samples
    upto = s.x <= x_end
    w_err = float(_state_error(tr, s.w)[upto].max())
    w_abs = float(np.abs(s.w[upto]).max())
    log_t = (tr.events[0].log10_t if tr.events else tr.log10_t_end) * math.log(10)
    return log_integral_tolerance(x_end, w_err, w_abs, log_t) / math.log(10)


def test_base_point_capture_time_matches_closed_form(base_run):
    p, _, tr = base_run
    with mpmath.workdps(30):
        p_, X, g = mpmath.mpf(p), mpmath.mpf(_X(p)), mpmath.mpf(GAMMA_STAR)
        d = lambda x: mpmath.sqrt((2 * p_ * g) ** 2 + p_ * (x**2 - 4 * X**2) / (2 * (p_ - 1)))
        M = 6 * X * d(6 * X)  # factor out e^{6X d(6X)}
        f = lambda x: (mpmath.exp(x * d(x) - M) + (p_ - 1) * mpmath.exp(-M)) / d(x)
        integral = mpmath.quad(f, [2 * X, 6 * X - 1, 6 * X - mpmath.mpf("0.1"), 6 * X])
        log10_t = float((mpmath.log(p_**2 / (2 * (p_ - 1))) + M + mpmath.log(integral)) / mpmath.log(10))
    assert tr.events[0].log10_t == pytest.approx(log10_t, rel=0, abs=_log10_time_tolerance(tr, 6 * _X(p)))
    assert log10_t > 60  # the time is astronomically large: hence the clock x
    s = tr.samples
    assert s.log10_t[0] == -math.inf
    assert np.all(np.diff(s.log10_t[1:]) > 0)
    assert tr.log10_t_end > tr.events[0].log10_t


def test_base_point_stays_symmetric(base_run):
    p, _, tr = base_run
    s = tr.samples
    # u and v (and the wrong-class w(j)) follow the same true solution, each within its
    # integration error: they differ by at most twice that.
    err = _state_error(tr, _theta(s))
    assert_close(s.u, s.v, err[:, :p] + err[:, p:2 * p])
    w_err = err[:, 2 * p + 1:]
    assert_close(s.w[:, 1:], s.w[:, 1:2], w_err + w_err[:, :1])
    # u(0) = x/2 exactly in exact arithmetic: du(0)/dx = (1/(k+1))/S = 1/2 before and after capture.
    assert_close(s.u[:, 0], s.x / 2, _exact_rate_rounding(tr, s.x, extra=1))


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
    for n, e in enumerate(tr.events, 1):
        S = 1 / (k + 1) + 1 / (l + 1)
        a += (1 / (k + 1)) / S * (e.x - x_prev)
        b += (1 / (l + 1)) / S * (e.x - x_prev)
        x_prev = e.x
        # The simulator captures exactly the gates within capture_tol * max(1, x) of 0 at an
        # impact; the predicted a, b differ from its u(0), v(0) by their rounding (constant
        # rates between impacts, 8 operations per impact here).
        capture = CAPTURE_TOL * max(1.0, e.x)
        slack = _exact_rate_rounding(tr, e.x, extra=8 * n)
        for j in range(1, p):
            r, s = a + v[j], u[j] + b  # uncaptured coordinates never move
            if j in e.rows:
                assert abs(r) <= capture + slack
            elif j not in R:
                assert r < -capture + slack
            if j in e.columns:
                assert abs(s) <= capture + slack
            elif j not in C:
                assert s < -capture + slack
        R |= set(e.rows)
        C |= set(e.columns)
        k, l = len(R), len(C)
    # On the full face both rates are 1/2: u(0) - v(0) keeps its value at the last impact.
    assert tr.u[0] - tr.v[0] == pytest.approx(
        a - b, rel=0, abs=2 * _exact_rate_rounding(tr, tr.x_end, extra=8 * len(tr.events)))
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
        assert ui == pytest.approx(a_pred, rel=0, abs=_exact_rate_rounding(tr, xi, extra=8 * (len(tr.events) + 1)))


def test_sliding_invariants_along_box_trajectories(box_run):
    p, (u, v, w), tr = box_run
    s = tr.samples
    X = _X(p)
    assert np.all(np.diff(s.x) > 0)
    # x is the clock and du(0)/dx + dv(0)/dx = 1 between impacts: rounding of two coordinates.
    assert_close(s.u[:, 0] + s.v[:, 0], s.x, 2 * _exact_rate_rounding(tr, s.x, extra=1))
    assert s.x[0] > X
    for i in range(len(s.x)):
        x, ui, vi, wi = s.x[i], s.u[i], s.v[i], s.w[i]
        R, C = _captured_masks(p, tr.events, x)
        r, c = ui[0] + vi, ui + vi[0]
        # captured gates stay on the kink (snapped to 0 at the impact, then moved by rates that
        # cancel exactly: rounding of two coordinates), uncaptured cross gates stay negative
        gate_tol = 2 * _exact_rate_rounding(tr, x)
        assert np.all(np.abs(r[R]) <= gate_tol) and np.all(np.abs(c[C]) <= gate_tol)
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
            # Same state, two routes (shifted log-sum-exps here, _log_A there): each adds and
            # cancels terms of size x |w| (the logits) and |log A| in about 2p + 10 operations.
            log_tol = rounding(x * np.abs(wi).max() + abs(max(logs)), 2 * (2 * p + 10))
            assert s.max_log_kink[i] == pytest.approx(max(logs), rel=0, abs=log_tol)
        assert s.n_captured[i] == k + l
    # gamma_j = mean(w) - w(j) increases along the true flow; the computed minimum can step
    # back by at most twice its error: the integration error of w(j) and of the mean, and
    # the rounding of the mean (p + 1 operations on terms of size max |w|).
    w_err = _state_error(tr, s.w).max(axis=1)
    gamma_err = 2 * w_err + rounding(np.abs(s.w).max(axis=1), p + 1)
    assert np.all(np.diff(s.min_gamma) >= -(gamma_err[1:] + gamma_err[:-1]))
    assert np.all(np.diff(s.log10_t[1:]) > 0)
    assert [e.log10_t for e in tr.events] == sorted(e.log10_t for e in tr.events)


# ---------------------------------------------------------------------------
# Conservation laws and the full sliding face (A.31)-(A.46), base and box starts


def test_balance_quantity_conserved(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    B0 = u @ u + v @ v - w @ w
    theta = _theta(s)
    B = (s.u**2).sum(1) + (s.v**2).sum(1) - (s.w**2).sum(1)
    # Rounding: B is a sum of 3p squares that cancel (||theta||^2 reaches ~1e8 at x_end while
    # B stays ~200): at most 3p roundings of terms of total size ||theta||^2, so two
    # evaluations of it in different orders differ by 3p EPS ||theta||^2.
    rounding_B = rounding((theta**2).sum(1), 3 * p)
    # The simulator's balance column (dot products) against the sums here: rounding only.
    assert_close(s.balance, B, rounding_B, "balance column")
    # Conservation (A.10): B moves by 2 sum_i |theta_i| delta theta_i (+ delta theta_i^2)
    # through the integration error delta theta of each component, plus the rounding of B and B0.
    err = _state_error(tr, theta)
    tol = (2 * np.abs(theta) * err + err**2).sum(1) + rounding_B + rounding(np.concatenate([u, v, w]) @ np.concatenate([u, v, w]), 3 * p)
    assert_close(B, B0, tol, "balance")
    # The estimate is informative while theta is still of moderate size (before full capture).
    early = s.n_captured < 2 * (p - 1)
    assert np.all(tol[early] < abs(B0) / 100)


def test_mean_and_wrong_class_spread(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    # (A.22): the w-rates sum to 0, a linear invariant that every Runge-Kutta step (Radau's
    # Newton iterates included: 1^T J = 0) keeps in exact arithmetic, so mean(w) moves by
    # rounding only: per step about (p + 2) roundings of size max|w| (the p updates, the
    # rates x om_j / Den against x sum om / Den), at most nfev steps.
    w_abs = np.maximum.accumulate(np.abs(s.w), axis=0).max(axis=1)
    assert_close(s.w.mean(axis=1), w.mean(), rounding(w_abs, (p + 2) * (tr.nfev + 10)), "mean(w)")
    # Lemma A.13: the spread of the wrong-class weights never grows.  It is a contracting
    # direction of the flow, so its integration error does not accumulate: allow the local
    # errors of the last few steps (factor 10) of the two extreme components, per sample.
    spread = s.w[:, 1:].max(axis=1) - s.w[:, 1:].min(axis=1)
    local = 10 * 2 * (RTOL * w_abs + ATOL)
    assert np.all(np.diff(spread) <= local[1:] + local[:-1])
    # ... and on the face it dies out (it decays like exp(-c x^2)): down to that local error.
    assert spread[-1] <= local[-1]


def test_full_face_asymptotics(any_run):
    p, (u, v, w), tr = any_run
    s = tr.samples
    face = s.n_captured == 2 * (p - 1)
    assert face.sum() > 50 and tr.fully_captured
    x = s.x[face]
    # (A.31)-(A.32): u(0) - v(0) constant, u = (a, -b, ..., -b), v = (b, -a, ..., -a): on the
    # face every one of these moves at a constant rate (1/2, or minus the partner's), so
    # they hold up to the rounding of two coordinates.
    gate_tol = 2 * _exact_rate_rounding(tr, x)[:, None]
    delta = s.u[face, 0] - s.v[face, 0]
    assert_close(delta, delta[0], gate_tol[:, 0] + gate_tol[0, 0], "u(0) - v(0)")
    assert_close(s.u[face, 1:], -s.v[face, :1], gate_tol, "column gates")
    assert_close(s.v[face, 1:], -s.u[face, :1], gate_tol, "row gates")
    # (A.40): d/x -> kappa_p, monotonically, at the rate 1/x^2 of the invariant d^2 - kappa^2 x^2
    # = const: from a face sample already in that regime (|d/x - kappa| < kappa/10) the
    # deviation falls at least like (x_ref/x)^2, up to a factor 2 for the higher-order terms.
    dev = np.abs(_d(s.w[face]) / x - _kappa(p))
    assert np.all(np.diff(dev) < 0)
    ref = np.flatnonzero(dev < _kappa(p) / 10)[0]
    assert ref < len(x) // 2 and dev[-1] <= 2 * dev[ref] * (x[ref] / x[-1]) ** 2
    # (A.46): every F_zeta -> 2/(p-1).  On the face u and v are two-level (flat spectrum) up to
    # gate_tol, and w up to its wrong-class spread (a contracting direction: within the last
    # local errors, see test_mean_and_wrong_class_spread); fourier_fraction_tolerance turns
    # that distance into a bound on the fractions and adds their rounding.
    w_abs = float(np.abs(tr.w).max())
    off = math.sqrt(2 * (p - 1)) * gate_tol[-1, 0] + math.sqrt(p) * 10 * 2 * (RTOL * w_abs + ATOL)
    F_end = fourier_fractions(tr.u, tr.v, tr.w)
    assert_close(F_end, 2 / (p - 1), fourier_fraction_tolerance(tr.u, tr.v, tr.w, off), "F_zeta")
    # The last sample is the final state before snapping (captured gates off by gate_tol).
    snap = fourier_fraction_tolerance(tr.u, tr.v, tr.w, math.sqrt(2 * (p - 1)) * gate_tol[-1, 0])
    assert s.max_fourier_fraction[-1] == pytest.approx(max(F_end), rel=0, abs=2 * snap)
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
    # x err -> sqrt(mu^2 + Delta^2/2) with a relative remainder O(1/x^2) (the bounded parts
    # of theta and the c/x correction of d/x, both against x): from a face sample in that
    # regime (remainder < 0.1) it falls like (x_ref/x)^2, up to a factor 2.
    remainder = np.abs(err * x / math.sqrt(mu**2 + delta[0] ** 2 / 2) - 1)
    ref = np.flatnonzero(remainder < 0.1)[0]
    assert ref < len(x) // 2 and remainder[-1] <= 2 * remainder[ref] * (x[ref] / x[-1]) ** 2
    # (A.33): the loss tends to (p^2 - 1)/p^2 log p; the central example's loss is the rest
    dj = tr.w[0] - tr.w[1:]
    central = math.log1p(float(np.sum(np.exp(-tr.x_end * dj))))
    # Rounding of loss (1.1): p^2 log-sum-exps of size ~log p summed (p^2 operations), and the
    # central example's log-sum-exp of logits x w cancelling against x w(0) (terms of size
    # x max|w|, 2p + 10 operations); divided by p^2.
    loss_tol = (rounding(p**2 * math.log(p), p**2 + 2 * p) + rounding(tr.x_end * np.abs(tr.w).max(), 2 * p + 10)) / p**2
    assert tr.loss_end == pytest.approx((p**2 - 1) / p**2 * math.log(p) + central / p**2, rel=0, abs=loss_tol)
    assert tr.loss_end == loss(tr.u, tr.v, tr.w)  # the same function of the same state
    # The final state is snapped: captured gates exactly 0, the state equals the last sample
    # up to the snap (gate_tol).
    assert np.all(tr.u[0] + tr.v[1:] == 0) and np.all(tr.u[1:] + tr.v[0] == 0)
    assert_close(s.u[-1], tr.u, gate_tol[-1, 0], "last sample")
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
    # Rounding: every gradient entry is a sum of at most p per-example terms
    # slope * g_y / p^2 with |g_y| = |q @ w - w(y)| <= 2 max|w| (a softmax and a dot product,
    # ~2p + 10 operations each); g1 - g0 cancels two such sums.
    term = 2 * np.abs(w).max() / p**2
    grad_tol = 2 * rounding(p * term, 3 * p + 10)
    assert_close(g1 - g0, kink, grad_tol, "kink terms")
    qs = np.exp(x * w) / np.exp(x * w).sum()
    A = w[0] - qs @ w
    expected = -g0.copy()
    for j in rows:
        expected[[0, p + j]] -= A / ((k + 1) * gamma[j]) * gamma[j] / p**2
    for j in cols:
        expected[[j, p]] -= A / ((l + 1) * gamma[j]) * gamma[j] / p**2
    got = np.concatenate(selected_velocity(u, v, w, rows, cols))
    # Two routes to the same field: the gradient's per-example sums (grad_tol) against the
    # closed forms; A here cancels w(0) against q @ w (terms <= max|w|, p + 10 operations,
    # the exp and the sum included), and enters divided by (k + 1) p^2.
    A_tol = rounding(2 * np.abs(w).max(), 2 * p + 10)
    field_tol = grad_tol + A_tol / p**2 + rounding(x * 2 * np.abs(w).max() / p**2, 2 * p + 10)
    assert_close(got, expected, field_tol, "selected field")
    # Captured gates do not move: their two rates are the same expression with opposite signs.
    assert all(got[0] + got[p + j] == 0 for j in rows)
    assert all(got[j] + got[p] == 0 for j in cols)
    # dx/dt is (A.30): A from two routes (A_tol each), times S / p^2.
    S = 1 / (k + 1) + 1 / (l + 1)
    assert got[0] + got[p] == pytest.approx(A / p**2 * S, rel=0, abs=2 * A_tol * S / p**2 + rounding(A * S / p**2, 6))
    # The x-clock field is the same field divided by dx/dt: exp(-log dt/dx) has the relative
    # error of its exponent's rounding, whose terms (2 log p, log S, x dmin, log sum d om,
    # the log1p-sum-exp) are each below |log dt/dx| + 2 log p + 10 (4p + 20 operations).
    per_x = np.concatenate(x_clock_velocity(u, v, w, rows, cols))
    G = log_dt_dx(x, w, k, l)
    rel = rounding(abs(G) + 2 * math.log(p) + 10, 4 * p + 20)
    assert_close(per_x * math.exp(-G), expected, rel * np.abs(expected) + 2 * field_tol, "x-clock field")
    # du(0)/dx + dv(0)/dx = (1/(k+1))/S + (1/(l+1))/S = 1: five roundings.
    assert per_x[0] + per_x[p] == pytest.approx(1.0, rel=0, abs=relative_rounding(5))


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
    assert early.log10_t_end == pytest.approx(log10_t, rel=0, abs=_log10_time_tolerance(early, 4 * X))
    # Past the impact, the explicit DOP853 and the default Radau give the same trajectory:
    # each within its own integration error of the true one.
    radau = simulate_slide(*start, x_end=8 * X)
    dop = simulate_slide(*start, x_end=8 * X, method="DOP853")
    final = lambda tr: np.concatenate([tr.u, tr.v, tr.w])
    state_err = lambda tr: _state_error(tr, _theta(tr.samples))[-1]
    assert_close(final(radau), final(dop), state_err(radau) + state_err(dop), "Radau against DOP853")
    assert radau.log10_t_end == pytest.approx(
        dop.log10_t_end, rel=0, abs=_log10_time_tolerance(radau, 8 * X) + _log10_time_tolerance(dop, 8 * X))
    # The impact at x = 6X is exact up to rounding for either method (see the base-point test).
    for tr in (radau, dop):
        assert tr.events[0].x == pytest.approx(6 * X, rel=relative_rounding(tr.nfev + 10 + 4), abs=0)


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
    # u(0) = x/2 moves at the constant rate 1/2, so the row gate x/2 - 0.051 hits 0 at x = 0.102
    # up to rounding: the run from x = 0.1 takes a few steps; allow 100 roundings of size x.
    assert info.value.x == pytest.approx(0.102, rel=relative_rounding(100), abs=0)
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
