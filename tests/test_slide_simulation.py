"""Theorem A.1 certificates against float simulations of the sliding Clarke trajectory.

From the certified base point: the capture happens at x = 6X at a time inside the
certificate's capture_time; from random points of the certified box: every kink
coefficient stays below the certified admissibility bound, gamma_j stays above gamma_*,
all 2(p-1) cross gates are captured, and at the end d/x, F_zeta, the direction and the
loss approach the certified limits.
"""

from fractions import Fraction

import numpy as np
import pytest

from certify.numeric.points import base_point_from_certificate, box_samples
from certify.numeric.slide import simulate_slide


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
    assert event.x == pytest.approx(6 * X, rel=1e-8)
    log10_lo, log10_hi = number(claims["capture_time"]["log10_lo"]), number(claims["capture_time"]["log10_hi"])
    assert abs(event.log10_t - (log10_lo + log10_hi) / 2) <= 1e-8 * log10_hi
    kappa_lo, kappa_hi = enclosure(claims["kappa"])
    assert abs(run.samples.d_over_x[-1] - (kappa_lo + kappa_hi) / 2) < 1e-4


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
        assert abs(samples.d_over_x[-1] - (kappa_lo + kappa_hi) / 2) < 1e-3
        assert abs(samples.max_fourier_fraction[-1] - fraction) < 1e-9
        assert loss_lo - 1e-6 <= run.loss_end <= loss_hi + 1e-3  # the central example's loss -> 0 from above
        theta = np.concatenate([run.u, run.v, run.w])
        unit = theta / np.linalg.norm(theta)
        for name, index in (("u_at_0", 0), ("u_elsewhere", 1), ("w_at_0", 2 * p), ("w_elsewhere", 2 * p + 1)):
            lo, hi = enclosure(direction[name])
            assert abs(unit[index] - (lo + hi) / 2) < 5e-3  # O(1/x) convergence (A.45)
        balance = samples.balance
        assert np.max(np.abs(balance - balance[0])) < 1e-8 * np.max(samples.x) ** 2 * p
