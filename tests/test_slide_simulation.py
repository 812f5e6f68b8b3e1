"""Theorem A.1 certificates against float simulations of the sliding Clarke trajectory.

From the certified base point: the capture happens at x = 6X at a time inside the
certificate's capture_time; from random points of the certified box: every kink
coefficient stays below the certified admissibility bound, gamma_j stays above gamma_*,
all 2(p-1) cross gates are captured, and at the end d/x, F_zeta, the direction and the
loss approach the certified limits.
"""

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest

from certify.numeric.points import base_point_from_certificate, box_samples
from certify.numeric.slide import simulate_slide
from tolerances import (
    fourier_fraction_tolerance,
    integration_tolerance,
    log_integral_tolerance,
    relative_rounding,
    rounding,
)

_DEFAULTS = inspect.signature(simulate_slide).parameters
RTOL, ATOL = _DEFAULTS["rtol"].default, _DEFAULTS["atol"].default


def theta_rows(samples):
    return np.concatenate([samples.u, samples.v, samples.w], axis=1)


def state_error(run, rows):
    """Integration-error estimate per component (tests/tolerances.py): nfev (>= Radau's steps)
    local errors rtol |theta_i| + atol, |theta_i| its running maximum."""
    return integration_tolerance(np.maximum.accumulate(np.abs(rows), axis=0), run.nfev, RTOL, ATOL)


def number(text: str) -> float:
    return float(Fraction(text))


def enclosure(claim) -> tuple[float, float]:
    return number(claim["lo"]), number(claim["hi"])


@pytest.mark.parametrize("p", [5, 7])
def test_base_trajectory_is_captured_at_the_certified_time(slide_certificates, p):
    certificate = slide_certificates[p]
    claims = certificate["claims"]
    X = number(certificate["parameters"]["X"])
    run = simulate_slide(*base_point_from_certificate(certificate))
    (event,) = run.events
    assert len(event.rows) == len(event.columns) == p - 1
    # u(0) = x/2 and v(j) = -3X move at constant rates (0 for v(j)): the impact x/2 - 3X = 0 is
    # exact up to one rounding per step and brentq's 4 EPS (test_numeric_slide).
    assert event.x == pytest.approx(6 * X, rel=relative_rounding(run.nfev + 14), abs=0)
    # log10 t(6X): tests/tolerances.py log_integral_tolerance, with the integration error and
    # size of w up to the impact; plus the certified enclosure's half-width.
    log10_lo, log10_hi = number(claims["capture_time"]["log10_lo"]), number(claims["capture_time"]["log10_hi"])
    samples = run.samples
    upto = samples.x <= event.x
    w_err = float(state_error(run, samples.w)[upto].max())
    w_abs = float(np.abs(samples.w[upto]).max())
    t_tol = log_integral_tolerance(event.x, w_err, w_abs, event.log10_t * math.log(10)) / math.log(10)
    assert abs(event.log10_t - (log10_lo + log10_hi) / 2) <= t_tol + (log10_hi - log10_lo) / 2
    # d/x -> kappa: on the face d^2 - kappa^2 x^2 = c2 (the second invariant of
    # test_numeric_slide), so |d/x - kappa| <= |c2| / (kappa x^2); c2 from the sample at the
    # impact.  Plus d's integration error over x (w(0) and the mean, twice the largest) and
    # the certified enclosure's half-width.
    kappa_lo, kappa_hi = enclosure(claims["kappa"])
    kappa = (kappa_lo + kappa_hi) / 2
    at = np.flatnonzero(samples.x == event.x)[0]
    d_at = samples.d_over_x[at] * event.x
    c2 = d_at**2 - kappa**2 * event.x**2
    d_err = 2 * float(state_error(run, samples.w)[-1].max())
    x_end = samples.x[-1]
    tol = abs(c2) / (kappa * x_end**2) + d_err / x_end + (kappa_hi - kappa_lo) / 2 + float(rounding(kappa, 8))
    assert abs(samples.d_over_x[-1] - kappa) <= tol


@pytest.mark.parametrize("p", [5, 7])
def test_box_trajectories_obey_the_certificate(slide_certificates, p):
    certificate = slide_certificates[p]
    claims = certificate["claims"]
    gamma_star = number(certificate["parameters"]["gamma_star"])
    log_admissible = np.log(number(claims["admissibility"]["hi"]))
    fraction = number(claims["limit_fourier_fraction"]["exact"])
    kappa_lo, kappa_hi = enclosure(claims["kappa"])
    loss_lo, loss_hi = enclosure(claims["limit_loss"])
    direction = claims["limit_direction"]["components"]
    rng = np.random.default_rng(7 * p)
    for u, v, w in box_samples(certificate, rng, 2):
        run = simulate_slide(u, v, w, x_end_factor=100)
        samples = run.samples
        assert run.fully_captured and len(run.rows) == len(run.columns) == p - 1
        assert np.all(samples.max_log_kink <= log_admissible)
        assert np.all(samples.min_gamma > gamma_star)
        assert np.all(samples.max_off_cross_gate < 0)
        assert np.all(np.diff(samples.x) > 0)
        # d/x -> kappa at the rate 1/x^2: from a face sample already in that regime
        # (|d/x - kappa| < kappa/10) the deviation falls at least like (x_ref/x)^2, a factor 2
        # for higher-order terms (test_numeric_slide); plus the enclosure's half-width.
        kappa = (kappa_lo + kappa_hi) / 2
        face = samples.n_captured == 2 * (p - 1)
        x, dev = samples.x[face], np.abs(samples.d_over_x[face] - kappa)
        ref = np.flatnonzero(dev < kappa / 10)[0]
        assert ref < len(x) // 2 and dev[-1] <= 2 * dev[ref] * (x[ref] / x[-1]) ** 2 + (kappa_hi - kappa_lo) / 2
        # F_zeta -> 2/(p-1): on the face u, v are two-level up to the captured gates' rounding
        # and w up to its wrong-class spread (a contracting direction: the last local errors,
        # factor 10); fourier_fraction_tolerance turns that distance into a bound.
        w_abs = float(np.abs(run.w).max())
        gate = 2 * float(rounding(x[-1], run.nfev + 10))
        off = math.sqrt(2 * (p - 1)) * gate + math.sqrt(p) * 10 * 2 * (RTOL * w_abs + ATOL)
        assert samples.wrong_class_spread[-1] <= 10 * 2 * (RTOL * w_abs + ATOL)
        last = (samples.u[-1], samples.v[-1], samples.w[-1])
        assert abs(samples.max_fourier_fraction[-1] - fraction) <= fourier_fraction_tolerance(*last, off)
        # The loss tends to its limit from above: loss_end = limit + log1p(sum_j e^{-x d_j})/p^2
        # (A.33), the excess at most (p - 1) e^{-x_end min d}/p^2; rounding of the loss as in
        # test_numeric_slide (p^2 log-sum-exps, the central one cancelling terms x max|w|).
        x_end = run.x_end
        dmin = float(np.min(run.w[0] - run.w[1:]))
        excess = (p - 1) * math.exp(-x_end * dmin) / p**2
        loss_tol = (float(rounding(p**2 * math.log(p), p**2 + 2 * p))
                    + float(rounding(x_end * w_abs, 2 * p + 10))) / p**2
        assert loss_lo - loss_tol <= run.loss_end <= loss_hi + excess + loss_tol
        # (A.45): theta/|theta| -> the certified direction with defect sqrt(mu^2 + Delta^2/2)/x
        # (mu = mean(w), Delta = u(0) - v(0), both conserved) up to a relative O(1/x^2)
        # (test_numeric_slide): per component at most twice that defect, plus the enclosure.
        theta = np.concatenate([run.u, run.v, run.w])
        unit = theta / np.linalg.norm(theta)
        defect = math.sqrt(w.mean() ** 2 + (run.u[0] - run.v[0]) ** 2 / 2) / x_end
        for name, index in (("u_at_0", 0), ("u_elsewhere", 1), ("w_at_0", 2 * p), ("w_elsewhere", 2 * p + 1)):
            lo, hi = enclosure(direction[name])
            assert abs(unit[index] - (lo + hi) / 2) <= 2 * defect + (hi - lo) / 2
        # (A.10): the balance moves by 2 sum |theta_i| err_i (+ err_i^2) through the integration
        # error, and each value rounds 3p cancelling squares (3p EPS ||theta||^2).
        rows = theta_rows(samples)
        err = state_error(run, rows)
        tol = (2 * np.abs(rows) * err + err**2).sum(1) + rounding((rows**2).sum(1), 3 * p) + rounding((rows[0] ** 2).sum(), 3 * p)
        assert np.all(np.abs(samples.balance - samples.balance[0]) <= tol)
