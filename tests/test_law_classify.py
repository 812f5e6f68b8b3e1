"""The classifier on constructed trajectory records of known outcome, one per rule of certify.law.classify.

The records are built by hand (states whose gates and Fourier fractions are known exactly), not by a
simulator, so each test names the state the rule must recognise; the simulated base points of the paper are
in tests/test_law_flow.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify.law.classify import ALIGNED, BALANCE_TOLERANCE, OUTCOMES, classify
from certify.law.record import Trajectory, checkpoint_times, gate_pattern, max_fourier_fraction

P = 5
T = 1e4


def _record(early, late, *, death_time=None, dynamics="flow", **fields) -> Trajectory:
    """A record whose checkpoints up to T/10 hold ``early`` and after it ``late``."""
    times = checkpoint_times(T)
    states = np.array([early if t <= T / 10 else late for t in times], dtype=np.float64)
    defaults = dict(kink_band=1e-9, max_loss_increase=0.0, balance_drift=0.0)
    defaults.update(fields)
    return Trajectory(p=P, dynamics=dynamics, horizon=T, times=times, states=states,
                      losses=np.linspace(2.0, 1.0, times.size), death_time=death_time, **defaults)


def _theta(u, v, w):
    return np.concatenate([np.asarray(u, float), np.asarray(v, float), np.asarray(w, float)])


def _pure(zeta: int, scale: float, shift: float):
    a = np.arange(P)
    return scale * np.cos(2 * np.pi * zeta * a / P) + shift


def test_dead():
    theta = _theta([-1, -2, -3, -1, -2], [0.5, -0.5, 0.2, 0.1, 0.0], [1, 2, 3, 4, 5])
    theta[5] = 1.0  # z_00 = 0 exactly: a dead neuron's last gate sits on its kink
    out = classify(_record(theta, theta, death_time=7.5))
    assert out.outcome == "dead" and out.pattern.count("+") == 0


def test_memorises_one_entry():
    theta = _theta([2, -6, -6, -6, -6], [2, -6, -6, -6, -6], [10, 0, 0, 0, 0])
    assert classify(_record(theta, theta)).outcome == "memorises_one_entry"
    grown = theta.copy()
    grown[0] += 0.5
    assert classify(_record(theta, grown)).outcome == "memorises_one_entry"
    shrunk = theta.copy()
    shrunk[0] -= 0.5  # the single gate falls over the last decade: it may be dying
    assert "falling" in classify(_record(theta, shrunk)).reason


def test_one_gate_with_a_captured_cross_gate():
    theta = _theta([2, -6, -6, -6, -6], [2, -2, -6, -6, -6], [10, 0, 0, 0, 0])
    assert gate_pattern(theta, P, 1e-9)[1] == "0"  # (0, 1) on its kink: a cross gate of (0, 0)
    assert classify(_record(theta, theta)).outcome == "memorises_one_entry"


def test_single_frequency():
    # u, v, w all in the class zeta = 2 (plus constants, which F ignores): F_2 = 1 exactly
    theta = _theta(_pure(2, 1.0, 0.3), _pure(2, 1.0, 0.4), _pure(2, 2.0, 0.0))
    assert max_fourier_fraction(theta, P) == pytest.approx(1.0, abs=1e-12)
    assert theta[:P, None].__add__(theta[None, P:2 * P]).max() > 0
    assert classify(_record(theta, theta)).outcome == "single_frequency"


def test_aligned_but_decreasing_is_undecided():
    pure = _theta(_pure(2, 1.0, 0.3), _pure(2, 1.0, 0.4), _pure(2, 2.0, 0.0))
    impure = pure.copy()
    impure[2 * P:] += 0.02 * _pure(1, 1.0, 0.0)  # a little energy in zeta = 1: F drops below 1 but stays >= 0.99
    f = max_fourier_fraction(impure, P)
    assert ALIGNED <= f < 1
    out = classify(_record(pure, impure))
    assert out.outcome == "undecided" and "decreasing" in out.reason


def _two_gates():
    # gates (0, 0) and (1, 1) active, the rest negative; w spread over two classes: F well below 0.99
    return _theta([1, 1, -9, -9, -9], [1, 1, -9, -9, -9], [3, -1, 2, 0.5, -2])


def test_multi_gate_not_aligned():
    theta = _two_gates()
    pattern = gate_pattern(theta, P, 1e-9)
    assert pattern.count("+") == 4 and max_fourier_fraction(theta, P) < ALIGNED
    moved = theta.copy()
    moved[2 * P:] *= 1.5  # w grows, the pattern stays
    assert classify(_record(theta, moved)).outcome == "multi_gate_not_aligned"


def test_multi_gate_with_a_changed_pattern_is_undecided():
    theta = _two_gates()
    later = theta.copy()
    later[2] = 8.5  # u(2) rises: gates (2, 0), (2, 1) switch on
    out = classify(_record(theta, later))
    assert out.outcome == "undecided" and "pattern changed" in out.reason


@pytest.mark.parametrize("fields, reason", [
    (dict(failure="50 successive zero-length modes at t = 3 (Zeno)"), "Zeno"),
    (dict(max_loss_increase=1e-3), "loss rose"),
    (dict(balance_drift=10 * BALANCE_TOLERANCE), "balance quantity"),
])
def test_an_invalid_run_is_undecided_whatever_its_state(fields, reason):
    theta = _two_gates()
    out = classify(_record(theta, theta, **fields))
    assert out.outcome == "undecided" and reason in out.reason


def test_gd_loss_rises_are_gds_behaviour_not_defects():
    theta = _two_gates()
    rising = _record(theta, theta, dynamics="gd", max_loss_increase=1e-3,
                     extra={"loss_rises": 12, "balance_tolerance": 1e-6})
    assert classify(rising).outcome == "multi_gate_not_aligned"
    drifting = _record(theta, theta, dynamics="gd", balance_drift=1e-5, extra={"balance_tolerance": 1e-6})
    assert "balance quantity" in classify(drifting).reason


def test_a_run_that_stopped_early_is_undecided():
    theta = _two_gates()
    rec = _record(theta, theta)
    short = Trajectory(p=P, dynamics="flow", horizon=T, times=rec.times[:3], states=rec.states[:3],
                       losses=rec.losses[:3], death_time=None, kink_band=1e-9, max_loss_increase=0.0,
                       balance_drift=0.0)
    assert "before the horizon" in classify(short).reason
    empty = Trajectory(p=P, dynamics="flow", horizon=T, times=rec.times[:0], states=rec.states[:0],
                       losses=rec.losses[:0], death_time=None, kink_band=1e-9, max_loss_increase=0.0,
                       balance_drift=0.0, failure="solver error: x")
    out = classify(empty)
    assert out.outcome == "undecided" and out.reason == "solver error: x" and math.isnan(out.loss)


def test_the_outcomes_are_the_issues_five():
    assert OUTCOMES == ("dead", "memorises_one_entry", "single_frequency", "multi_gate_not_aligned", "undecided")


def test_per_gate_kink_band():
    theta = _two_gates()
    band = np.zeros(P * P)
    z = (theta[:P, None] + theta[None, P:2 * P]).ravel()
    band[0] = 2 * abs(z[0])  # gate (0, 0) within its own band: on its kink
    assert gate_pattern(theta, P, band)[0] == "0" and gate_pattern(theta, P, 0.0)[0] == "+"


def test_a_non_finite_state_is_undecided():
    theta = _two_gates()
    bad = theta.copy()
    bad[0] = math.nan  # a NaN gate would print as '0' (neither above nor below its band)
    out = classify(_record(theta, bad, death_time=5.0))
    assert out.outcome == "undecided" and "not finite" in out.reason
