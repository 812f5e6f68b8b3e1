"""The outcome of one trajectory at the horizon T: exactly one of :data:`OUTCOMES`.

Read from the checkpoints of the last decade of time, [T/10, T], in this order:

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
  any horizon: at the slide base point for p = 5 the last capture is at t ~ 10^68). It is the staircase
  of size k = 1 (below);
- ``single_frequency``: max_zeta F_zeta(T) >= :data:`ALIGNED` (1.5) and not below its value at T/10;
- ``staircase``: at least two strictly active gates, the strictly active set the same at every checkpoint
  of [T/10, T] (gates on kinks may leave them: that changes neither the name nor the shape),
  max_zeta F_zeta(T) < :data:`ALIGNED`, and the strictly active set a staircase of size k >= 2 whose rows
  and columns are arithmetic progressions with one common step (:func:`active_shape`);
- ``multi_gate_other``: the same, with any other strictly active set (its row lengths are recorded);
- ``undecided`` otherwise, with the reason.

**The shape of the active set** (:func:`active_shape`; docs/outcome-law.md section 4). Order the rows with an
active gate by their number of active gates, most first (ties: by index), and the columns likewise. With one
kink band for every gate (the flow) the strictly active set {u(a) + v(b) > band} is a *Young diagram* in the
order of u and v descending (if (a, b) is active and u(a') >= u(a), v(b') >= v(b), then (a', b') is active),
so its row sets are nested and that order is the order of u and v on the active rows (rows with equal u
have equal sets); the count order is the same shape read off the pattern alone, which is what lets the
runner's row check recompute it. It is a *staircase of size k* if it is exactly {(r_i, c_j): i + j <= k - 1};
its gates carry labels r_i + c_j mod p that depend on i + j only iff r_i = r_0 + i delta and
c_j = c_0 + j delta with one common step delta (then the k labels are r_0 + c_0 + m delta, m < k). "Exactly
k distinct labels" is implied by that but, for k >= 3, does not imply it (p = 5, rows 0, 1, 4 and columns
0, 4, 1 carry the three labels 0, 1, 4): a staircase-shaped set without the progression is
``multi_gate_other``.

A finite-horizon observation in floats: it says what the trajectory looks like at T, not what it does as
t -> infinity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from certify.law.record import Trajectory, gate_pattern, max_fourier_fraction, split

__all__ = ["ALIGNED", "BALANCE_TOLERANCE", "OUTCOMES", "Outcome", "Shape", "active_shape", "classify",
           "high_block", "limit_max_fourier"]

OUTCOMES = ("dead", "memorises_one_entry", "single_frequency", "staircase", "multi_gate_other", "undecided")

#: max_zeta F_zeta at or above which a state counts as single-frequency (the issue's 0.99).
ALIGNED = 0.99

#: Allowed |B(t) - B(0)| / max(1, |theta(t)|^2) for the balance quantity (A.10), exactly conserved by every
#: Clarke trajectory (Lemma A.8). The flow integrates at rtol 1e-10: over the ~10^3 steps of a run the
#: accumulated relative error of the squared norms is ~10^3 x 1e-10 x a factor of 10 (the three blocks and
#: the error constants of the method) = 1e-6. GD changes B by eta^2 (|grad_uv|^2 - |grad_w|^2) per step, not
#: zero: gd states its own allowance in Trajectory.extra["balance_tolerance"].
BALANCE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Shape:
    """The strictly active set ('+') of a gate pattern, read off the pattern alone (:func:`active_shape`).

    rows, columns  the rows (columns) with an active gate, most active gates first, ties by index;
    young          whether it is a Young diagram in that order (every active row's set is the first
                   columns of ``columns``; always true for one kink band, see the module docstring);
    row_lengths    the active gates of each row of ``rows``, in that order (nonincreasing when young);
    k              its size if it is the staircase {(rows[i], columns[j]): i + j <= k - 1}, else None;
    delta          for a staircase with k >= 2 whose rows and columns are progressions with one common step
                   mod p: that step, in 1 .. p - 1; else None;
    labels         a staircase with its step (or k = 1): the labels rows[0] + columns[0] + m delta mod p of
                   the gates with i + j = m, for m = 0 .. k - 1; otherwise the distinct labels (a + b mod p)
                   of the active gates, ascending."""

    gates: int
    rows: tuple
    columns: tuple
    young: bool
    row_lengths: tuple
    k: int | None
    delta: int | None
    labels: tuple

    @property
    def is_staircase(self) -> bool:
        """A staircase of size k >= 2 (the ``staircase`` outcome's shape), with or without one common step:
        at p = 11, 13 most measured staircases have none (docs/outcome-law.md section 4)."""
        return self.k is not None and self.k >= 2


def active_shape(pattern: str, p: int) -> Shape:
    """The :class:`Shape` of the '+' gates of ``pattern`` (p^2 characters, row-major, as
    :func:`certify.law.record.gate_pattern` writes), a function of the pattern alone."""
    if len(pattern) != p * p:
        raise ValueError(f"a pattern of p^2 = {p * p} characters is needed, got {len(pattern)}")
    plus = [divmod(i, p) for i, c in enumerate(pattern) if c == "+"]
    row_sets: dict[int, set[int]] = {}
    column_counts: dict[int, int] = {}
    for a, b in plus:
        row_sets.setdefault(a, set()).add(b)
        column_counts[b] = column_counts.get(b, 0) + 1
    rows = tuple(sorted(row_sets, key=lambda a: (-len(row_sets[a]), a)))
    columns = tuple(sorted(column_counts, key=lambda b: (-column_counts[b], b)))
    first = {b: j for j, b in enumerate(columns)}
    young = all(max(first[b] for b in row_sets[a]) == len(row_sets[a]) - 1 for a in rows)
    row_lengths = tuple(len(row_sets[a]) for a in rows)
    k = len(rows) if rows and young and row_lengths == tuple(range(len(rows), 0, -1)) else None
    delta = None
    if k is not None and k >= 2:
        step = (rows[1] - rows[0]) % p
        if all(rows[i] == (rows[0] + i * step) % p for i in range(k)) and \
                all(columns[j] == (columns[0] + j * step) % p for j in range(k)):
            delta = step
    if k == 1 or delta is not None:
        labels = tuple((rows[0] + columns[0] + m * (delta or 0)) % p for m in range(k))
    else:
        labels = tuple(sorted({(a + b) % p for a, b in plus}))
    return Shape(len(plus), rows, columns, young, row_lengths, k, delta, labels)


def high_block(levels, members) -> int:
    """The size n of the high block of ``levels`` (u or v) over ``members`` (the active rows or columns):
    with L_0 >= L_1 >= ... the levels of the members sorted descending (ties: by index), n = 1 + the first i
    maximising L_i - L_{i+1}; 1 for fewer than two members. So 1 <= n <= max(1, len(members) - 1).

    Why the largest gap (docs/outcome-law.md section 4): in the staircases measured at p = 5 the active levels
    are a high block near +X and a low block near -X, each spaced by eps, with eps -> 0 and X -> infinity;
    the gap between the blocks is 2X - (k - 1) eps, so it is the largest once 2X > k eps, at no threshold of
    ours."""
    members = sorted(members, key=lambda i: (-float(levels[i]), i))
    if len(members) < 2:
        return 1
    sorted_levels = np.array([float(levels[i]) for i in members])
    return int(np.argmax(sorted_levels[:-1] - sorted_levels[1:])) + 1


def limit_max_fourier(p: int, n: int, k: int) -> float:
    """max over zeta = 1 .. (p - 1)/2 of the Fourier fraction of the staircase's limit direction (the lead
    engineer's notes, docs/outcome-law.md section 4), for a high block of n rows and columns and size k:

        F_zeta = [8 |D_n(zeta)|^2 + 2 p^2 |D_k(zeta)|^2 / (k (p - k))] / [4 n (p - n) + p^2],
        |D_m(zeta)|^2 = sin^2(pi m zeta / p) / sin^2(pi zeta / p).

    The direction is u/X = v/X = 1 on the high block, -1 off it, w/X = alpha on the k labels, -beta off
    them (alpha^2 = 2 (p - k)/k, beta = alpha k/(p - k)), in the coordinates where the step delta is 1 (an
    affine relabelling of C_p, which permutes the classes zeta: the maximum is unchanged). Floats, a formula
    to compare the measured max F with; requires 1 <= n < p and 1 <= k < p."""
    if not (1 <= n < p and 1 <= k < p):
        raise ValueError(f"need 1 <= n < p and 1 <= k < p, got p = {p}, n = {n}, k = {k}")

    def dirichlet(m: int, zeta: int) -> float:
        return math.sin(math.pi * m * zeta / p) ** 2 / math.sin(math.pi * zeta / p) ** 2

    return max((8 * dirichlet(n, zeta) + 2 * p * p * dirichlet(k, zeta) / (k * (p - k))) / (4 * n * (p - n) + p * p)
               for zeta in range(1, (p - 1) // 2 + 1))


def regime_two_max_fourier(p: int) -> float:
    """max_zeta F_zeta of the limit direction of regime II, the degenerate twin of the k = 2 staircase (the gate
    (rows[1], columns[1]) on its kink, w(0) = w(1)): (S.19) of docs/staircase.md,

        2 [(5 + 4c)(p - 2) + p (p - 1)(1 + c)] / ((p - 2)(p^2 + 4p - 9)),   c = cos(2 pi/p),

    0.8313 at p = 5. Floats, a formula to compare the measured max F with (conjectured, not proved); p >= 5."""
    if p < 5:
        raise ValueError(f"need p >= 5, got {p}")
    c = math.cos(2 * math.pi / p)
    return 2 * ((5 + 4 * c) * (p - 2) + p * (p - 1) * (1 + c)) / ((p - 2) * (p * p + 4 * p - 9))


@dataclass(frozen=True)
class Outcome:
    """``outcome`` (one of OUTCOMES), ``reason`` (why undecided, else ''), and what was read at T:
    ``max_fourier`` (max_zeta F_zeta), ``loss``, ``pattern`` (p^2 characters, see gate_pattern); for
    memorises_one_entry, staircase and multi_gate_other also ``shape`` (:func:`active_shape` of the pattern),
    ``high_rows`` and ``high_columns`` (:func:`high_block` of u over the active rows, of v over the active
    columns) and, for a staircase with k < p, ``max_fourier_limit`` (:func:`limit_max_fourier` (p,
    high_rows, k)); NaN or None elsewhere."""

    outcome: str
    reason: str
    max_fourier: float
    loss: float
    pattern: str
    shape: Shape | None = None
    high_rows: int | None = None
    high_columns: int | None = None
    max_fourier_limit: float = math.nan


def _cross_gates(p: int, a: int, b: int) -> set[int]:
    """Flat indices a*p + b' of the gates sharing row a or column b with (a, b), itself excluded."""
    return {a * p + j for j in range(p) if j != b} | {i * p + b for i in range(p) if i != a}


def _active_set_kept(tr: Trajectory, T: float, band, active: list[int]) -> bool:
    """True iff the strictly active set is ``active`` at every checkpoint of the last decade [T/10, T].

    Only the active set decides a multi-gate outcome: a gate on its kink that leaves it downwards (or an
    inactive gate that reaches its kink) changes no outcome's name or shape. Such slow releases are what still
    changes after 10^7 at p >= 17 (docs/outcome-law.md section 2a), long after the active set has settled."""
    for t, state in zip(tr.times, tr.states):
        if T / 10 <= t <= T and [i for i, c in enumerate(gate_pattern(state, tr.p, band)) if c == "+"] != active:
            return False
    return True


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

    def shaped(name: str | None = None) -> Outcome:
        """The outcome ``name`` (staircase or multi_gate_other by the shape when None) with its shape."""
        shape = active_shape(pattern, p)
        name = name or ("staircase" if shape.is_staircase else "multi_gate_other")
        n = high_block(u, shape.rows)
        # the limit formula is derived for rows and columns with one common step (docs/staircase.md)
        limit = limit_max_fourier(p, n, shape.k) if name == "staircase" and shape.delta is not None \
            and shape.k < p else math.nan
        return Outcome(name, "", max_f, loss, pattern, shape, n, high_block(v, shape.columns), limit)

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
        return shaped("memorises_one_entry")
    if math.isnan(max_f):
        return undecided("the centred norm is 0: F_zeta is undefined", pattern)
    if max_f >= ALIGNED:
        if max_f >= max_fourier_fraction(decade, p):
            return Outcome("single_frequency", "", max_f, loss, pattern)
        return undecided(f"max F = {max_f:.4f} >= {ALIGNED} but decreasing over the last decade", pattern)
    if len(active) >= 2 and _active_set_kept(tr, T, band, active):
        return shaped()
    if len(active) >= 2:
        return undecided("the active set changed over the last decade", pattern)
    if len(active) == 1:
        return undecided("the single active gate changed over the last decade", pattern)
    return undecided("no active gate at the horizon but no death recorded", pattern)
