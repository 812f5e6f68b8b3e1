"""The records a figure draws (issue 24, item 4): dense paths from the solvers' dense output (dead, smooth),
the solver's own steps kept among them, and smooth's O(p) loss along the path equal to the full table's."""

from __future__ import annotations

import numpy as np
import pytest

from certify.numeric.flow import simulate_until_death
from certify.numeric.points import two_level
from certify.numeric.smooth import active_loss, loss, simulate_smooth


def dead_start(p: int):
    """The base point (2.1) with epsilon = 1, A = 2, B = 1."""
    return two_level(p, 0.5, -1.0), two_level(p, 0.5, -1.0), two_level(p, -2.0, 0.0)


def test_dead_path_holds_the_steps_and_the_equally_spaced_times():
    u, v, w = dead_start(101)
    steps = simulate_until_death(u, v, w, dense=True)
    dense = simulate_until_death(u, v, w, dense=True, samples=50)
    grid = np.linspace(0.0, dense.t_death, 50)
    assert dense.t_death == steps.t_death and np.all(np.diff(dense.times) > 0)
    assert set(steps.times) <= set(dense.times) and set(grid) <= set(dense.times)
    assert len(dense.times) == len(set(steps.times) | set(grid))
    at_steps = np.isin(dense.times, steps.times)
    assert np.array_equal(dense.states[at_steps], steps.states)  # the solver's own states, not interpolated
    assert dense.times[-1] == dense.t_death and np.array_equal(dense.states[-1], np.r_[dense.u, dense.v, dense.w])
    s = dense.states[:, 0] + dense.states[:, 101]
    assert np.all(np.diff(s) < 0) and abs(s[-1]) < 1e-12  # the central gate falls to its death


def test_smooth_path_holds_the_steps_and_the_equally_spaced_clock_values():
    u, v, w = dead_start(13)
    steps = simulate_smooth(u, v, w, 2.0, dense=True)
    dense = simulate_smooth(u, v, w, 2.0, dense=True, samples=40)
    grid = np.linspace(1.0, dense.s_path[-1], 40)
    assert np.all(np.diff(dense.s_path) < 0) and set(grid) <= set(dense.s_path)
    assert set(steps.s_path) <= set(dense.s_path)
    at_steps = np.isin(dense.s_path, steps.s_path)
    assert np.array_equal(dense.w_path[at_steps], steps.w_path)
    # the clock is s = u(0) + v(0) itself (to the solver's tolerance, rtol 1e-10)
    assert np.allclose(dense.u_path[:, 0] + dense.v_path[:, 0], dense.s_path, rtol=0, atol=1e-8)


@pytest.mark.parametrize("samples", [-1, True, 2.5, "3"])
def test_samples_must_be_a_whole_number(samples):
    u, v, w = dead_start(5)
    with pytest.raises(ValueError, match="samples"):
        simulate_until_death(u, v, w, dense=True, samples=samples)
    with pytest.raises(ValueError, match="samples"):
        simulate_smooth(u, v, w, 2.0, dense=True, samples=samples)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_smooth_active_loss_is_the_full_tables(p):
    rng = np.random.default_rng(p)
    points = [dead_start(p)] + [tuple(rng.normal(scale=scale, size=(3, p))) for scale in (0.3, 1.0, 3.0)
                                for _ in range(3)]
    for u, v, w in points:
        for eps in (0.5, 2.0):
            # Both are sums of p^2 terms of size at most L = log p + 2 max|h w| (log-sum-exp minus a logit), over
            # p^2: a float sum of n terms is off by at most n eps sum |terms|, so each by p^2 eps L, both by twice.
            size = np.log(p) + 2 * np.max(np.abs(u[:, None] + v[None, :])) * np.max(np.abs(w))
            assert abs(active_loss(u, v, w, eps) - loss(u, v, w, eps)) <= 2 * p**2 * np.finfo(float).eps * size


def test_slide_samples_are_equally_spaced_along_the_curve_a_figure_draws():
    """sampling="curve": consecutive samples equally far apart along (log x, d/x), each scaled to its range (up
    to the 1/20 resolution of the length's measurement); the clock's spacing puts seven times the mean step
    right after the capture, where d/x turns."""
    from certify.numeric.slide import simulate_slide, slide_base_point

    u, v, w = slide_base_point(5, 1.0, 2.0)
    ratios = {}
    for sampling in ("clock", "curve"):
        samples = simulate_slide(u, v, w, sampling=sampling).samples
        for part, rows in (("capture", samples.n_captured == 0), ("face", samples.n_captured == 8)):
            log_x, height = np.log(samples.x[rows]), samples.d_over_x[rows]
            steps = np.hypot(np.diff(log_x) / np.ptp(log_x), np.diff(height) / np.ptp(height))
            ratios[sampling, part] = steps.max() / steps.mean()
    assert ratios["curve", "capture"] <= 1.1 and ratios["curve", "face"] <= 1.1
    assert ratios["clock", "face"] > 3
    with pytest.raises(ValueError, match="sampling"):
        simulate_slide(u, v, w, sampling="arc")
