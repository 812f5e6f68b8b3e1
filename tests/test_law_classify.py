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
    # the staircase of size 1: gate (3, 4), label 3 + 4 = 2 mod 5
    one = _theta([-6, -6, -6, 2, -6], [-6, -6, -6, -6, 2], [10, 0, 0, 0, 0])
    out = classify(_record(one, one))
    assert out.outcome == "memorises_one_entry"
    shape = out.shape
    assert (shape.k, shape.rows, shape.columns, shape.labels, shape.delta) == (1, (3,), (4,), (2,), None)
    assert (out.high_rows, out.high_columns) == (1, 1) and math.isnan(out.max_fourier_limit)
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


def test_multi_gate_other():
    theta = _two_gates()  # rows 0, 1 x columns 0, 1: the Young diagram (2, 2), not a staircase
    pattern = gate_pattern(theta, P, 1e-9)
    assert pattern.count("+") == 4 and max_fourier_fraction(theta, P) < ALIGNED
    moved = theta.copy()
    moved[2 * P:] *= 1.5  # w grows, the pattern stays
    out = classify(_record(theta, moved))
    assert out.outcome == "multi_gate_other" and out.shape.row_lengths == (2, 2) and out.shape.young
    assert out.shape.labels == (0, 1, 2) and math.isnan(out.max_fourier_limit)


def test_multi_gate_with_a_changed_pattern_is_undecided():
    theta = _two_gates()
    later = theta.copy()
    later[2] = 8.5  # u(2) rises: gates (2, 0), (2, 1) switch on
    out = classify(_record(theta, later))
    assert out.outcome == "undecided" and out.reason == "the active set changed over the last decade"


def test_a_kink_gate_leaving_its_kink_changes_no_outcome():
    # gate (2, 0) on its kink at T/10 (z = u(2) + v(0) = 0 exactly), below it at T: the active set (rows 0, 1 x
    # columns 0, 1) is the same at every checkpoint, so the outcome is the shape's, as with no change at all
    theta = _two_gates()
    theta[2] = -1.0
    assert gate_pattern(theta, P, 1e-9)[2 * P] == "0"
    released = theta.copy()
    released[2] = -1.5
    assert gate_pattern(released, P, 1e-9)[2 * P] == "-"
    out = classify(_record(theta, released))
    assert out.outcome == "multi_gate_other" and out.shape.row_lengths == (2, 2)


def test_an_active_set_changed_inside_the_last_decade_is_undecided():
    # the same state at T/10 and at T, but at one checkpoint between them gates (2, 0), (2, 1) are active:
    # comparing the decade's two ends alone would miss it
    theta = _two_gates()
    later = theta.copy()
    later[2] = 8.5
    record = _record(theta, theta)
    inside = np.flatnonzero((record.times > T / 10) & (record.times < T))
    assert inside.size >= 1
    record.states[inside[0]] = later
    out = classify(record)
    assert out.outcome == "undecided" and out.reason == "the active set changed over the last decade"


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
    assert classify(rising).outcome == "multi_gate_other"
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


def test_the_outcomes():
    assert OUTCOMES == ("dead", "memorises_one_entry", "single_frequency", "staircase", "multi_gate_other",
                        "undecided")


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


# --- the shape of the active set: staircases, other Young diagrams, ties ---------------------------------------

def _staircase_state(p, n, k, delta, r0, c0, X=10.0, eps=0.3):
    """The state of the lead engineer's notes for a staircase of size k with a high block of n rows and columns,
    rows r_i = r0 + i delta, columns c_j = c0 + j delta (mod p), every row and column placed (delta generates C_p):
    U_i = X - eps i - H [i >= n], V_j likewise, H = 2X - k eps, so z_ij = eps (k - i - j) off the big block
    (the gate with i + j = k exactly on its kink), 2X - eps (i + j) on it, about -2X off both;
    w = X (alpha on the k labels r0 + c0 + m delta, m < k, -beta on the others)."""
    H = 2 * X - k * eps
    u, v, w = np.zeros(p), np.zeros(p), np.zeros(p)
    for i in range(p):
        u[(r0 + i * delta) % p] = X - eps * i - H * (i >= n)
        v[(c0 + i * delta) % p] = X - eps * i - H * (i >= n)
    alpha = math.sqrt(2 * (p - k) / k)
    beta = alpha * k / (p - k)
    for m in range(p):
        w[(r0 + c0 + m * delta) % p] = X * (alpha if m < k else -beta)
    return _theta(u, v, w)


def _record_p(theta, p, **fields):
    times = checkpoint_times(T)
    states = np.array([theta for _ in times], dtype=np.float64)
    defaults = dict(kink_band=1e-9, max_loss_increase=0.0, balance_drift=0.0)
    defaults.update(fields)
    return Trajectory(p=p, dynamics="flow", horizon=T, times=times, states=states,
                      losses=np.linspace(2.0, 1.0, times.size), death_time=None, **defaults)


# (p, n, k, delta, r0, c0): k = 2..6, n with k in {2n - 1, 2n}, steps other than 1, shifted rows and columns
STAIRCASES = [(5, 1, 2, 1, 0, 0), (5, 2, 3, 2, 1, 3), (5, 2, 4, 4, 4, 2), (7, 3, 5, 3, 6, 1), (7, 3, 6, 2, 0, 5),
              (11, 2, 4, 5, 7, 9), (13, 3, 6, 12, 2, 11), (13, 3, 5, 7, 0, 0)]


@pytest.mark.parametrize("p, n, k, delta, r0, c0", STAIRCASES)
def test_a_staircase_is_recognised_with_its_rows_columns_step_labels_and_block(p, n, k, delta, r0, c0):
    theta = _staircase_state(p, n, k, delta, r0, c0)
    out = classify(_record_p(theta, p))
    assert out.outcome == "staircase", out
    shape = out.shape
    assert shape.k == k and shape.delta == delta and shape.gates == k * (k + 1) // 2
    assert shape.rows == tuple((r0 + i * delta) % p for i in range(k))
    assert shape.columns == tuple((c0 + j * delta) % p for j in range(k))
    assert shape.labels == tuple((r0 + c0 + m * delta) % p for m in range(k)) and len(set(shape.labels)) == k
    assert shape.row_lengths == tuple(range(k, 0, -1)) and shape.young
    assert (out.high_rows, out.high_columns) == (n, n)
    # the sliding mixed gates (i + j = k, exactly one of i, j < n) are on their kinks, the rest off the staircase '-'
    for i in range(p):
        for j in range(p):
            c = out.pattern[((r0 + i * delta) % p) * p + (c0 + j * delta) % p]
            expected = "+" if i + j < k else "0" if i + j == k and (i < n) != (j < n) else "-"
            assert c == expected, (i, j)


def test_the_limit_formula_is_the_fourier_fraction_of_the_limit_direction():
    """The closed formula against max F of the limit direction itself (an FFT of the state, not the formula),
    with the step delta != 1 and shifted rows, columns and labels."""
    from certify.law.classify import limit_max_fourier

    for p, n, k, delta, r0, c0 in STAIRCASES:
        theta = _staircase_state(p, n, k, delta, r0, c0, X=1.0, eps=0.0)  # the direction: eps / X -> 0
        assert limit_max_fourier(p, n, k) == pytest.approx(max_fourier_fraction(theta, p), rel=1e-12)


def test_the_limit_formula_at_p5_by_hand():
    """p = 5, zeta = 1: |D_2|^2 = |D_3|^2 = phi^2 (sin(2 pi/5) / sin(pi/5) = 2 cos(pi/5) = phi), |D_4|^2 = 1,
    so (n, k) = (2, 3): F = (8 + 50/6) phi^2 / 49 = phi^2 / 3, and (2, 4): (8 phi^2 + 50/4) / 49; the notes
    measured 0.87270 and 0.68255 at t = 1e10 (their 0.87270 for the formula is phi^2/3 = 0.872678 rounded up)."""
    from certify.law.classify import limit_max_fourier

    phi2 = ((1 + math.sqrt(5)) / 2) ** 2
    assert limit_max_fourier(5, 2, 3) == pytest.approx(phi2 / 3, rel=1e-14)
    assert limit_max_fourier(5, 2, 4) == pytest.approx((8 * phi2 + 12.5) / 49, rel=1e-14)
    assert abs(limit_max_fourier(5, 2, 3) - 0.87270) < 3e-5 and abs(limit_max_fourier(5, 2, 4) - 0.68255) < 2e-5
    for bad in ((5, 0, 3), (5, 2, 5), (5, 5, 1)):
        with pytest.raises(ValueError):
            limit_max_fourier(*bad)


def _z_state(p, u, v, w=None):
    w = np.arange(p, dtype=float) * 0.7 - 1.3 if w is None else w  # a w spread over classes: max F < 0.99
    return _theta(u, v, w)


def test_a_staircase_without_one_common_step_is_a_staircase_without_delta_or_limit():
    """p = 5, rows 0, 1, 4 and columns 0, 4, 1 (u, v descending in that order): the staircase shape of size 3,
    whose six gates carry exactly three labels (0, 1, 4), but with steps 1, 3 and 4, 2. The outcome is the
    shape (most staircases at p = 11, 13 have no common step, docs/outcome-law.md section 2a); delta and the
    limit formula (derived for a common step) are undefined."""
    p = 5
    u, v = np.full(p, -20.0), np.full(p, -20.0)
    for i, row in enumerate((0, 1, 4)):
        u[row] = 2.5 - i
    for j, column in enumerate((0, 4, 1)):
        v[column] = -j * 1.0
    theta = _z_state(p, u, v)
    labels = {(a + b) % p for a in range(p) for b in range(p) if u[a] + v[b] > 0}
    assert labels == {0, 1, 4}  # exactly k = 3 labels, computed here from the state
    out = classify(_record_p(theta, p))
    assert out.outcome == "staircase"
    assert out.shape.k == 3 and out.shape.delta is None and out.shape.row_lengths == (3, 2, 1)
    assert out.shape.labels == (0, 1, 4) and math.isnan(out.max_fourier_limit)


@pytest.mark.parametrize("lengths", [(3, 1), (2, 2), (3, 3, 1), (4, 2, 1), (2, 1, 1), (5, 4, 2, 1)])
def test_young_diagrams_that_are_not_staircases(lengths):
    """Rows 0.. with the given lengths (columns 0.. in order): the threshold set u(a) + v(b) > 0 with
    v(b) = -b - 0.5 and u(a) = lengths[a] is exactly that Young diagram."""
    p = 7
    u = np.full(p, -30.0)
    u[:len(lengths)] = lengths
    v = -np.arange(p) - 0.5
    out = classify(_record_p(_z_state(p, u, v), p))
    assert out.outcome == "multi_gate_other" and out.shape.young and out.shape.k is None
    assert out.shape.row_lengths == lengths and out.shape.rows == tuple(range(len(lengths)))


def test_ties_are_by_index_and_do_not_change_the_shape():
    """Rows 3 and 1 with the same u (so the same active set), and tied inactive rows: rows in the order of u
    descending, ties by index; the shape (2, 2, 1) is a Young diagram, not a staircase."""
    p = 5
    u = np.array([-9.0, 1.0, 0.2, 1.0, -9.0])
    v = np.array([-0.5, 0.5, -9.0, -9.0, -9.0])  # columns 1 then 0
    out = classify(_record_p(_z_state(p, u, v), p))
    assert out.outcome == "multi_gate_other"
    assert out.shape.rows == (1, 3, 2) and out.shape.columns == (1, 0) and out.shape.row_lengths == (2, 2, 1)
    # a staircase among ties: rows 2, 0 and columns 1, 4 active (step 3 = 0 - 2 = 4 - 1 mod 5), rows 1, 3, 4
    # and columns 0, 2, 3 tied far below; labels 2 + 1 = 3, then 2 + 4 = 0 + 1 = 1 mod 5
    u = np.array([0.2, -9.0, 1.0, -9.0, -9.0])
    v = np.array([-9.0, 0.5, -9.0, -9.0, -0.5])
    out = classify(_record_p(_z_state(p, u, v), p))
    assert out.outcome == "staircase" and out.shape.rows == (2, 0) and out.shape.columns == (1, 4)
    assert out.shape.delta == 3 and out.shape.labels == (3, 1)
    # the same rows with the other column order is not one step: columns 1, 0 (step 4 against the rows' 3):
    # still the staircase shape, without delta
    v = np.array([-0.5, 0.5, -9.0, -9.0, -9.0])
    out = classify(_record_p(_z_state(p, u, v), p))
    assert out.outcome == "staircase" and out.shape.delta is None


def test_an_active_set_that_is_not_a_young_diagram():
    """Possible only with a kink band per gate (gd): rows 0 and 1 active in columns {0} and {1}, not nested."""
    p = 5
    u, v = np.array([1.0, 1.0, -9, -9, -9]), np.array([1.0, 1.0, -9, -9, -9])
    band = np.zeros(p * p)
    band[1] = band[5] = 10.0  # gates (0, 1) and (1, 0) within their bands: on their kinks
    out = classify(_record_p(_z_state(p, u, v), p, kink_band=band))
    assert out.pattern[:2] == "+0" and out.pattern[5:7] == "0+"
    assert out.outcome == "multi_gate_other" and not out.shape.young and out.shape.row_lengths == (1, 1)


def test_active_shape_reads_the_pattern_alone():
    from certify.law.classify import active_shape

    shape = active_shape("-----" + "-+--+" + "-----" + "----+" + "-----", 5)  # rows 1: {1, 4}, 3: {4}
    assert (shape.rows, shape.columns, shape.row_lengths, shape.k, shape.delta) == ((1, 3), (4, 1), (2, 1), 2, 2)
    assert shape.labels == (0, 2) and shape.is_staircase  # 1 + 4 = 0, then 1 + 1 = 3 + 4 = 2 mod 5
    other = active_shape("-----" + "--+-+" + "-----" + "----+" + "-----", 5)  # columns 4, 2: step 3, rows' 2
    assert other.k == 2 and other.delta is None and other.is_staircase and other.labels == (0, 2, 3)
    assert active_shape("-" * 25, 5).gates == 0
    with pytest.raises(ValueError):
        active_shape("+" * 24, 5)


def test_high_block_is_the_largest_gap_of_the_active_levels():
    from certify.law.classify import high_block

    levels = np.array([9.7, -9.6, 10.0, -9.3, 0.0])
    assert high_block(levels, [0, 1, 2, 3]) == 2      # 10.0, 9.7 | -9.3, -9.6
    assert high_block(levels, [0, 1, 2, 3, 4]) == 2   # 10.0, 9.7 | 0.0 | -9.3, -9.6: the first of two gaps
    assert high_block(1e6 * levels, [0, 1, 2, 3]) == 2  # scale-free
    assert high_block(levels, [2, 0]) == 1 and high_block(levels, [3]) == 1 and high_block(levels, []) == 1
    assert high_block(np.array([1.0, 1.0, 1.0]), [0, 1, 2]) == 1  # no gap at all: the first
    # the notes' state: a high block of n rows spaced by eps, a gap of about 2X, a low block spaced by eps
    for n, k in ((1, 2), (2, 3), (2, 4), (3, 5), (3, 6)):
        u = np.array([10 - 0.3 * i - (20 - 0.3 * k) * (i >= n) for i in range(k)])
        assert high_block(u, range(k)) == n
