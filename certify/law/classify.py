"""The outcome of one trajectory at the horizon T: exactly one of :data:`OUTCOMES`.

Read from the checkpoints at T/10 and T (the last decade of time), in this order:

- ``undecided`` first if the run is not valid: it failed before T, the flow's loss rose beyond the
  integration error allowance, or the balance quantity (A.10) drifted by more than
  :data:`BALANCE_TOLERANCE` (gd: from its eta^2 accounting, by more than its stated rounding allowance).
  GD's own loss rises (GD at a fixed step is not a descent method) are counted, not held against the run;
- ``dead``: every gate <= 0 (then the gradient is 0 under ReLU'(0) = 0 and the state is final), reached
  at a finite death time;
- ``memorises_one_entry``: at T/10 and at T the same single gate (a, b) is strictly active, not smaller at
  T than at T/10 (at the slide base point it is frozen to all 16 digits: its entry's loss is ~e^-40), and
  every other gate is <= 0, the ones on their kinks (if any) all cross gates (a, j),
  (j, b) (the state of Theorem A.1 (i); its cross gates are captured one by one, on time scales far beyond
  any horizon: at the slide base point for p = 5 the last capture is at t ~ 10^68);
- ``single_frequency``: max_zeta F_zeta(T) >= :data:`ALIGNED` (1.5) and not below its value at T/10;
- ``multi_gate_not_aligned``: at least two strictly active gates, the active/kink pattern the same at
  T/10 and at T, and max_zeta F_zeta(T) < :data:`ALIGNED`;
- ``undecided`` otherwise, with the reason.

A finite-horizon observation in floats: it says what the trajectory looks like at T, not what it does as
t -> infinity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from certify.law.record import Trajectory, gate_pattern, max_fourier_fraction, split

__all__ = ["ALIGNED", "BALANCE_TOLERANCE", "OUTCOMES", "Outcome", "classify"]

OUTCOMES = ("dead", "memorises_one_entry", "single_frequency", "multi_gate_not_aligned", "undecided")

#: max_zeta F_zeta at or above which a state counts as single-frequency (the issue's 0.99).
ALIGNED = 0.99

#: Allowed |B(t) - B(0)| / max(1, |theta(t)|^2) for the balance quantity (A.10), exactly conserved by every
#: Clarke trajectory (Lemma A.8). The flow integrates at rtol 1e-10: over the ~10^3 steps of a run the
#: accumulated relative error of the squared norms is ~10^3 x 1e-10 x a factor of 10 (the three blocks and
#: the error constants of the method) = 1e-6. GD changes B by eta^2 (|grad_uv|^2 - |grad_w|^2) per step, not
#: zero: gd states its own allowance in Trajectory.extra["balance_tolerance"].
BALANCE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Outcome:
    """``outcome`` (one of OUTCOMES), ``reason`` (why undecided, else ''), and what was read at T:
    ``max_fourier`` (max_zeta F_zeta), ``loss``, ``pattern`` (p^2 characters, see gate_pattern)."""

    outcome: str
    reason: str
    max_fourier: float
    loss: float
    pattern: str


def _cross_gates(p: int, a: int, b: int) -> set[int]:
    """Flat indices a*p + b' of the gates sharing row a or column b with (a, b), itself excluded."""
    return {a * p + j for j in range(p) if j != b} | {i * p + b for i in range(p) if i != a}


def classify(trajectory: Trajectory) -> Outcome:
    """The outcome of ``trajectory`` at its horizon, by the rules of this module's docstring."""
    tr = trajectory
    p, T = tr.p, tr.horizon
    if len(tr.states) == 0:
        return Outcome("undecided", tr.failure or "the record holds no state", math.nan, math.nan, "")
    last = tr.states[-1]
    loss = float(tr.losses[-1])
    max_f = max_fourier_fraction(last, p)
    band = tr.kink_band

    def undecided(reason: str, pattern: str = "") -> Outcome:
        return Outcome("undecided", reason, max_f, loss, pattern)

    if tr.failure is not None:
        return undecided(tr.failure)
    if not (np.all(np.isfinite(tr.states)) and np.all(np.isfinite(tr.losses))):
        return undecided("a checkpoint state or loss is not finite")
    # The flow's loss never rises (every Clarke trajectory descends): a rise is a defect of the run. GD at a
    # fixed step is not a descent method (a gate chattering across its kink raises the loss at crossings, and
    # a step can exceed 2 / the local curvature): its rises are GD's behaviour, counted in extra["loss_rises"],
    # and a GD run is validated by finiteness and its balance accounting instead.
    if tr.dynamics != "gd" and tr.max_loss_increase > 0:
        return undecided(f"the loss rose by {tr.max_loss_increase:.3g} beyond the integration error allowance")
    balance_tolerance = tr.extra.get("balance_tolerance", BALANCE_TOLERANCE)
    if not tr.balance_drift <= balance_tolerance:
        return undecided(f"balance quantity (A.10) drifted by {tr.balance_drift:.3g} > {balance_tolerance:.3g}")
    end, decade = tr.state_at(T), tr.state_at(T / 10)
    if end is None or decade is None:
        return undecided("the run ended before the horizon")
    pattern = gate_pattern(end, p, band)
    u, v, _ = split(end, p)
    if tr.death_time is not None and "+" not in pattern:  # every gate <= 0 (or on its kink, to rounding)
        return Outcome("dead", "", max_f, loss, pattern)
    if tr.death_time is not None:
        return undecided("a death time was reported but a gate is positive at the horizon", pattern)
    earlier = gate_pattern(decade, p, band)
    active = [i for i, c in enumerate(pattern) if c == "+"]
    if len(active) == 1 and [i for i, c in enumerate(earlier) if c == "+"] == active:
        a, b = divmod(active[0], p)
        kinks = {i for i, c in enumerate(pattern) if c == "0"}
        gate = lambda theta: float(theta[a] + theta[p + b])  # noqa: E731 - z_ab of a state
        # (exactly, a kink gate (i, j) off the row and column is impossible with one active gate:
        # z_ij + z_ab = z_ib + z_aj > 0 puts one of the cross gates above 0; kept for states read with a band)
        if not kinks <= _cross_gates(p, a, b):
            return undecided("one active gate with a kink gate outside its row and column", pattern)
        if not gate(end) >= gate(decade):
            return undecided("one active gate, falling over the last decade", pattern)
        return Outcome("memorises_one_entry", "", max_f, loss, pattern)
    if math.isnan(max_f):
        return undecided("the centred norm is 0: F_zeta is undefined", pattern)
    if max_f >= ALIGNED:
        if max_f >= max_fourier_fraction(decade, p):
            return Outcome("single_frequency", "", max_f, loss, pattern)
        return undecided(f"max F = {max_f:.4f} >= {ALIGNED} but decreasing over the last decade", pattern)
    if len(active) >= 2 and pattern == earlier:
        return Outcome("multi_gate_not_aligned", "", max_f, loss, pattern)
    if len(active) >= 2:
        return undecided("the active/kink pattern changed over the last decade", pattern)
    if len(active) == 1:
        return undecided("the single active gate changed over the last decade", pattern)
    return undecided("no active gate at the horizon but no death recorded", pattern)
