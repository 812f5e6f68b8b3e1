"""The Clarke gradient flow (1.6) of the loss (1.1) from any initial point, as a Filippov sliding solution.

What is implemented (docs/outcome-law.md section 2 says the same with the reasons and references):

- **Modes.** Every gate z_ab = u(a) + v(b) is *active* (+1: ReLU' = 1, logit h = z), *on its face* (0: held
  at z_ab = 0) or *inactive* (-1: contributes nothing). Between mode changes the field is smooth.
- **The velocity is minus the minimal-norm element of the Clarke subdifferential.** A gate on its kink
  contributes x_k = c_k gamma_y(w), c_k in [0, 1] (gamma_y = mean(w) - w(y), (A.8), Lemma A.6), to the
  p^2-scaled forces on u(a) and v(b), and nothing to w. With G the active gates' forces on the 2p rows and
  columns and E_K the incidence of the kink gates K, the velocity of every Clarke trajectory is, for almost
  every t, -(G + E_K^T x*, G_w) / p^2 with x* minimising |G + E_K^T x|^2 over the box
  x_k in [min(0, gamma_k), max(0, gamma_k)] (the chain rule of Davis-Drusvyatskiy-Kakade-Lee 2020: the
  derivative of the loss along the trajectory is <v, theta'> for every v of the subdifferential, so -theta'
  is the point of the subdifferential nearest 0). The residual r = G + E_K^T x* is unique (the objective is
  strictly convex in r) even where x* is not (gates in cycles, clone gates).
- **Kink decisions** (:func:`_decide`): at a mode change all kink gates are decided at once by that
  problem, solved by bounded-variable least squares (BVLS, Stark & Parker 1995, a finite active-set
  method; scipy.optimize.lsq_linear) and accepted only after its KKT conditions are verified
  (:func:`minimal_norm_element`). A gate with x* strictly inside its box has dz/dt = 0 and slides; at a
  bound it leaves to the side its velocity says (the KKT sign conditions make that side consistent with the
  bound: x* = 0 means dz/dt <= 0, x* = gamma means dz/dt >= 0). A kink gate with gamma_y <= 0 repels from
  both sides (its face is not semiconvex and trajectories branch): it takes ReLU'(0) = 0, x = 0, and turns
  active only if the field with it inactive moves it up (the gate then crosses its kink, the generic case);
  a repelling gate stays on its face only when the attractive faces hold it there (a cycle closes on it).
- **Faces** (:class:`_Faces`): the gates held on faces form *blocks*, complete bipartite sets R x B of rows
  and columns joined by face gates (within a block u = s on R, v = -s on B, so every gate of R x B is 0).
  Inside a mode the velocity is the projection of -G / p^2 onto the faces' tangent space (one mean per
  block: unique, no spanning forest, no choice of coefficients); the mode stays a Clarke solution while
  some coefficients in their boxes produce it, which :meth:`_Faces.margin` decides exactly by the
  supply-demand theorem for bounded transportation problems (Gale 1957, Hoffman 1960).
- **Events** end a mode: an active gate reaches 0 from above, an inactive gate reaches 0 from below, or the
  admissibility margin of the faces reaches 0; in the last case the gates of the binding cut leave their
  faces, each to the side of the bound it reached. The faces are put back exactly on z = 0 after every
  decision (the least-norm correction of (u, v): one mean per block).
- **Clock.** tau = log(1 + t), d theta/d tau = (1 + t) d theta/dt: on a log time scale the fast directions
  make the system stiff (relaxation rates O(1) in t are O(t) in tau), so LSODA is used (rtol 1e-10): it
  switches to BDF where stiff. Where it does not (a mode that reaches STIFF_SWITCH_EVALUATIONS), the mode goes
  on with Radau IIA.
- **Death.** When no gate is active every term of the gradient vanishes (the minimal-norm element is 0):
  the state is final, the death time the time of that event.
- **Validation.** At every solver step the loss (1.1) must not rise beyond an error allowance, every gate
  must be on the side of its mode, and the balance quantity (A.10), conserved by every Clarke trajectory
  (Lemma A.8), is tracked.
- **Zeno.** A run with more than :data:`MAX_SWITCHES` mode changes, :data:`MAX_ZERO_LENGTH` successive
  modes of no length, or :data:`MAX_EVALUATIONS` field evaluations stops with a failure that the classifier
  reports as undecided.

Floats only: an observation, never a bound.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np
from scipy.integrate import LSODA, Radau
from scipy.optimize import brentq, lsq_linear

from certify.law.record import Trajectory, checkpoint_times

__all__ = ["MAX_SWITCHES", "MAX_ZERO_LENGTH", "RTOL", "minimal_norm_element", "simulate_flow", "velocity"]

#: Relative and absolute tolerances of the LSODA integration in tau = log(1 + t).
RTOL, ATOL = 1e-10, 1e-12
#: Mode changes after which a run stops as undecided (Zeno behaviour or a pathological face structure).
MAX_SWITCHES = 2000
#: Successive modes of zero length after which a run stops as undecided (a Zeno loop at a tangential exit).
MAX_ZERO_LENGTH = 50
#: Field evaluations after which a run stops as undecided (a typical p = 5-13 run needs 10^3-10^4; a mode
#: that drives the solver to ever smaller steps would otherwise run for hours). A count, not a clock, so
#: the outcome does not depend on the machine.
MAX_EVALUATIONS = 400_000
#: Field evaluations in one mode after which its integration goes on with Radau IIA (scipy's Radau, order 5,
#: L-stable) from the last accepted step. LSODA starts every mode with Adams and can fail to switch to BDF
#: although the mode is stiff: at p = 17, seed 1, sample 110 it spent 385,000 evaluations from t = 1.15e6 to
#: 1.17e6 at Adams order 1 with a constant step of 7.7e-8 in tau (h |lambda| = 0.91, lambda = -1.2e7 in tau, the
#: relaxation of nearly tied w(c) under active gates with z ~ 28: -10.3 per unit of t), without one Jacobian;
#: Radau went on to 10^8 in 3,754 steps. The modes LSODA handles took a few thousand evaluations at most (a whole
#: p <= 13 run 10^3-10^4), so a mode that reaches this count is a stall, and runs that never do are unchanged.
STIFF_SWITCH_EVALUATIONS = 20_000
#: Offset of the gate-crossing events, relative to max(1, max |u|, |v|): far below the kink test of an event
#: state (KINK_TOLERANCE) and far above the rounding of a gate (~1e-16).
EVENT_OFFSET = 1e-12
#: A gate with |z| <= KINK_TOLERANCE max(1, max |u|, |v|) at an event is on its kink and decided with the
#: others: a face gate drifts from 0 only by rounding (the flow keeps z = 0 on the faces, a linear invariant
#: that LSODA's linear multistep formulas keep exactly), an event gate is at the offset 1e-12.
KINK_TOLERANCE = 1e-9
#: Relative tolerance of the kink decisions: |dz/dt| <= DECISION_TOLERANCE x (force scale) counts as 0
#: (the gate slides). The residual of the minimal-norm problem carries a rounding error of about
#: cond(E) eps (force scale), cond(E) <= 2 x 2p for the incidence of a graph on 2p nodes: 3e-14 at p = 31.
DECISION_TOLERANCE = 1e-10
#: The KKT conditions of the minimal-norm problem must hold to this, relative to the force scale (a tenth of
#: the decision tolerance, so that a verified solution decides every gate the same way as the exact one).
KKT_TOLERANCE = 1e-11
#: Blocks of faces with at most this many rows plus columns have their margin computed from all 2^n cuts
#: (4096 x 36 at the most); larger ones (clone rows and columns, seen at p = 31) by a linear program.
MAX_CUT_NODES = 12
_EPS = float(np.finfo(float).eps)


class _EvaluationBudget(Exception):
    """The run used MAX_EVALUATIONS field evaluations."""


class _NoDecision(Exception):
    """The kink decision failed: the minimal-norm problem was not solved, or its mode was inconsistent.
    ``gate`` is the kink gate that moved against its decided side, when that was the failure (else None)."""

    def __init__(self, message: str, gate: int | None = None):
        super().__init__(message)
        self.gate = gate


def _gate_gammas(w: np.ndarray, gates: np.ndarray, p: int) -> np.ndarray:
    """gamma_y(w) = mean(w) - w(y) (A.8) of the gates (flat indices a*p + b, label y = a + b mod p)."""
    return w.sum() / p - w[(gates // p + gates % p) % p]


def _boxes(gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Clarke boxes of x = c gamma, c in [0, 1]: [min(0, gamma), max(0, gamma)]."""
    return np.minimum(gamma, 0.0), np.maximum(gamma, 0.0)


def minimal_norm_element(forces: np.ndarray, p: int, gates: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """(x, r): x minimising |forces + E^T x|^2 over lo <= x <= hi, and r = forces + E^T x.

    forces: shape (2p,), the forces on u (0..p-1) and v (p..2p-1); gates: flat indices a*p + b, E^T x adding
    x_k to entries a and p + b. Only the rows and columns the gates touch enter the problem (the others add
    a constant). Solved by BVLS (scipy.optimize.lsq_linear, method 'bvls': Stark & Parker's finite
    active-set method) and returned only after the KKT conditions of this convex problem, which are
    sufficient, are verified: with g_k = r_a + r_b, g_k = 0 where x_k is strictly inside its box, g_k >= 0 at
    lo, g_k <= 0 at hi, each to KKT_TOLERANCE x the force scale (max |forces|, |lo|, |hi|). r is then the
    unique optimal residual to that accuracy (the objective is strictly convex in r), even where x is not
    unique. Raises _NoDecision otherwise.
    """
    gates = np.asarray(gates, dtype=int)
    r = np.array(forces, dtype=np.float64)
    x = np.zeros(gates.size)
    if gates.size == 0:
        return x, r
    a, b = np.divmod(gates, p)
    scale = max(float(np.abs(forces).max(initial=0.0)), float(np.abs(lo).max()), float(np.abs(hi).max()),
                1e-300)
    free = hi > lo
    coords = m = None
    if free.any():
        coords = np.unique(np.concatenate([a[free], p + b[free]]))
        m = np.zeros((coords.size, int(free.sum())))
        cols = np.arange(m.shape[1])
        m[np.searchsorted(coords, a[free]), cols] = 1.0
        m[np.searchsorted(coords, p + b[free]), cols] = 1.0
    tol = KKT_TOLERANCE * scale
    # BVLS's own stopping rule (the relative change of the cost below ``tol``) can stop it short of the optimum
    # when the gates form cycles (a rank-deficient E: at p = 11, 20 gates of rank 14 stopped after 16 of the
    # ~20 iterations it needed, KKT violated by 2e-9). The KKT check below is what decides; on a failure BVLS
    # is run again with the cost rule as tight as doubles allow (1e-16), then on the target projected onto the
    # range of E: the part of the residual orthogonal to that range is the same for every x, and removing it
    # makes the cost small near the optimum, so that its relative changes are visible in doubles (at p = 11 a
    # cost of O(1) hid the last improvements of 1e-19: KKT violated by 1.5e-10 whatever the iterations), then
    # with the rule off (0: it stops only at the optimum or at max_iter).
    target = None if m is None else -np.asarray(forces, dtype=np.float64)[coords]
    projected_target = None
    attempts = ((False, 0.01 * KKT_TOLERANCE * scale, 10), (False, 1e-16, 40), (True, 1e-16, 40), (True, 0.0, 200))
    for projected, cost_tol, iterations in attempts:
        r = np.array(forces, dtype=np.float64)
        x = np.zeros(gates.size)
        if m is not None:
            if projected and projected_target is None:  # once, for both attempts that use it
                projected_target = m @ np.linalg.lstsq(m, target, rcond=None)[0]
            aim = projected_target if projected else target
            solution = lsq_linear(m, aim, bounds=(lo[free], hi[free]), method="bvls",
                                  tol=cost_tol, max_iter=iterations * m.shape[1] + 20)
            x[free] = np.clip(solution.x, lo[free], hi[free])
        x[~free] = lo[~free]
        np.add.at(r, a, x)
        np.add.at(r, p + b, x)
        g = r[a] + r[p + b]
        at_lo = x <= lo + tol
        at_hi = x >= hi - tol
        bad = (~at_lo & ~at_hi & (np.abs(g) > tol)) | (at_lo & ~at_hi & (g < -tol)) | (at_hi & ~at_lo & (g > tol))
        if not bad.any() or m is None:
            break
    if bad.any():
        raise _NoDecision(f"the minimal-norm problem of {gates.size} kink gates was not solved "
                          f"(KKT violated by {float(np.abs(g[bad]).max()) / scale:.2g} of the force scale)")
    return x, r


def _components(p: int, gates: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The connected components (rows, columns) of the bipartite graph of ``gates`` on the 2p rows and
    columns (u(a) is node a, v(b) node p + b), each with at least one gate; sorted, deterministic."""
    parent = list(range(2 * p))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for k in gates:
        a, b = divmod(int(k), p)
        ra, rb = root(a), root(p + b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = {}
    for k in gates:
        a, b = divmod(int(k), p)
        members.setdefault(root(a), []).extend((a, p + b))
    out = []
    for key in sorted(members):
        nodes = np.unique(members[key])
        out.append((nodes[nodes < p], nodes[nodes >= p] - p))
    return out


def _closure(p: int, status: np.ndarray) -> np.ndarray:
    """status with every gate of each block R x B of the face gates (status 0) set to 0: its z is an alternating
    sum of face gates, so it is on its kink for as long as they are."""
    out = status.copy()
    for rows, cols in _components(p, np.flatnonzero(status == 0)):
        out[(rows[:, None] * p + cols[None, :]).ravel()] = 0
    return out


def _softmax_rows(z: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q, lse): q_i = softmax(z_i w) for each z_i (one row each) and lse_i = log sum_c exp(z_i w(c)). The
    largest logit z_i max(w) (z_i >= 0) or z_i min(w) is factored out, which is exactly the row maximum
    (multiplication by z_i is monotone and correctly rounded), without an axis reduction."""
    top = np.where(z >= 0, z * w.max(), z * w.min())
    e = np.multiply.outer(z, w)
    e -= top[:, None]
    np.exp(e, out=e)
    total = e @ np.ones(w.size)
    e /= total[:, None]
    return e, top + np.log(total)


class _Faces:
    """The gates held on their faces (a closed set: a union of blocks R x B), their tangent projection and the
    admissibility of the mode's velocity.

    Within a block every u(a), a in R, equals s and every v(b), b in B, equals -s; the tangent space of the
    faces is {du(a) = ds, dv(b) = -ds on each block}, so the projection of a force vector G replaces G on a
    block by sign x mu, mu = (sum_R G_u - sum_B G_v) / (|R| + |B|). The required kink forces are
    target = r - G: the coefficients x of the block's gates must have row sums target_u(a) and column sums
    target_v(b), each x_k in its Clarke box.
    """

    def __init__(self, p: int, gates: np.ndarray):
        self.p = p
        self.gates = np.sort(np.asarray(gates, dtype=int))
        self.blocks = _components(p, self.gates)
        self.coord_block = np.full(2 * p, -1)
        self.coord_sign = np.zeros(2 * p)
        sizes = []
        star_gates, star_leaf = [], []
        self.cut_blocks = []
        for i, (rows, cols) in enumerate(self.blocks):
            block_gates = (rows[:, None] * p + cols[None, :]).ravel()
            if not np.array_equal(np.sort(block_gates), np.intersect1d(block_gates, self.gates)):
                raise ValueError("the face gates are not closed (a block R x B is not all on faces)")
            self.coord_block[rows], self.coord_block[p + cols] = i, i
            self.coord_sign[rows], self.coord_sign[p + cols] = 1.0, -1.0
            sizes.append(rows.size + cols.size)
            if rows.size == 1 or cols.size == 1:
                # a star: each gate's coefficient is fixed by its leaf (the column of a one-row block)
                star_gates.extend(block_gates.tolist())
                star_leaf.extend((p + cols).tolist() if rows.size == 1 else rows.tolist())
            elif rows.size + cols.size <= MAX_CUT_NODES:
                self.cut_blocks.append(_CutBlock(p, rows, cols, self.gates))
            else:
                self.cut_blocks.append(_LPBlock(p, rows, cols, self.gates))
        self.block_size = np.array(sizes, dtype=float)
        self.in_block = self.coord_block >= 0
        self.star_gates = np.array(star_gates, dtype=int)
        self.star_leaf = np.array(star_leaf, dtype=int)
        self.star_index = np.searchsorted(self.gates, self.star_gates)
        self.star_y = (self.star_gates // p + self.star_gates % p) % p

    def projection_matrix(self) -> np.ndarray:
        """P (2p x 2p), the orthogonal projection onto the faces' tangent space: on a block C,
        P_ij = sign_i sign_j / |C|; the identity on the rows and columns of no block."""
        p = self.p
        same = (self.coord_block[:, None] == self.coord_block[None, :]) & self.in_block[:, None]
        size = np.where(self.in_block, self.block_size[np.maximum(self.coord_block, 0)], 1.0)
        out = same * np.outer(self.coord_sign, self.coord_sign) / size[:, None]
        out[~self.in_block, ~self.in_block] = 1.0
        return out

    def margin(self, target: np.ndarray, w: np.ndarray, detail: bool = False, tie_tolerance: float = 0.0):
        """The admissibility margin: the largest t such that coefficients with every x_k at least t inside its
        box [lo_k, hi_k] produce the kink forces r - forces (negative: none exist in the box; the mode's
        velocity is then not a Clarke element). With ``detail``: (margin, leaving), leaving the gates of the
        binding constraints (every constraint within ``tie_tolerance`` of the minimum) mapped to the side
        (+1 active, -1 inactive) of the bound they are at.

        A star block (one row or one column) has unique coefficients, x_k = the target of its leaf, and the
        margin is min_k min(x_k - lo_k, hi_k - x_k). A block with >= 2 rows and columns is a bounded
        transportation problem; by the supply-demand theorem (Gale 1957; Hoffman's circulation theorem) it is
        feasible iff for every set A of its rows and B' of its columns
            sum_A target_u - sum_B' target_v <= sum_{A x B'^c} hi - sum_{A^c x B'} lo,
        and shrinking every box by t lowers the right side by t (|A x B'^c| + |A^c x B'|), so the margin is
        the minimum over the cuts of slack / count, and over the gates of (hi - lo) / 2.
        """
        if not detail and not self.cut_blocks:
            # the distance of x to the nearer end of [min(0, gamma), max(0, gamma)], signed
            half = 0.5 * (w.sum() / self.p - w[self.star_y])
            return float(np.min(np.abs(half) - np.abs(target[self.star_leaf] - half)))
        gamma = _gate_gammas(w, self.gates, self.p)
        lo, hi = _boxes(gamma)
        best, leaving = math.inf, {}
        if self.star_gates.size:
            x = target[self.star_leaf]
            g_star = gamma[self.star_index]
            slo, shi = x - lo[self.star_index], hi[self.star_index] - x
            best = float(min(slo.min(), shi.min()))
            if detail:
                # every gate at a bound within the tie tolerance leaves (clone gates of one star with equal
                # forces reach their bounds at the same instant: releasing one would re-hold the other)
                tie = best + tie_tolerance
                for i in np.flatnonzero(np.minimum(slo, shi) <= tie):
                    leaving[int(self.star_gates[i])] = _side_at_bound(float(g_star[i]), bool(shi[i] <= slo[i]))
        for block in self.cut_blocks:
            value, cut_leaving = block.margin(target, gamma, lo, hi, detail, tie_tolerance)
            if value < best - tie_tolerance:
                best, leaving = value, cut_leaving
            elif value <= best + tie_tolerance:
                best = min(best, value)
                leaving.update(cut_leaving)
        return (best, leaving) if detail else best


def _side_at_bound(gamma: float, at_hi: bool) -> int:
    """The side a face gate leaves to when its coefficient is held at the upper (``at_hi``) or lower bound of its
    box and a moment later would have to go beyond it: beyond the upper bound the field lifts the gate more than
    any admissible x can hold it (x adds to the force that lowers z), so it turns active (+1); below the lower
    bound it turns inactive (-1). For an attractive gate (gamma > 0) that is c = 1 and c = 0; for a repelling
    one (its box [gamma, 0]) the upper bound is x = 0 and it leaves into z > 0, where its own force gamma lifts
    it further, and from x = gamma into z < 0. (gamma does not enter; kept for the callers' symmetry.)"""
    return 1 if at_hi else -1


@functools.lru_cache(maxsize=None)
def _cuts(m: int, n: int):
    """The cuts (A, B') of a complete m x n block, A a set of rows and B' of columns, as matrices: over the gates
    (row-major), A x B'^c (their upper bounds enter) and A^c x B' (lower bounds); the count of both; and over
    the m + n rows and columns, +1 on A and -1 on B'. Cuts crossing no gate (A = B' = all or none) are left
    out. Read-only arrays, shared by every block of that shape."""
    masks = (np.arange(2 ** (m + n))[:, None] >> np.arange(m + n)[None, :]) & 1
    in_a, in_b = masks[:, :m].astype(bool), masks[:, m:].astype(bool)
    hi_ind = (in_a[:, :, None] & ~in_b[:, None, :]).reshape(len(masks), m * n)
    lo_ind = (~in_a[:, :, None] & in_b[:, None, :]).reshape(len(masks), m * n)
    count = hi_ind.sum(axis=1) + lo_ind.sum(axis=1)
    keep = count > 0
    out = (hi_ind[keep].astype(float), lo_ind[keep].astype(float), count[keep].astype(float),
           np.concatenate([in_a[keep].astype(float), -in_b[keep].astype(float)], axis=1))
    for array in out:
        array.setflags(write=False)
    return out


class _CutBlock:
    """The cuts (A, B') of a block with >= 2 rows and columns, as matrices over its gates (see _Faces.margin)."""

    def __init__(self, p: int, rows: np.ndarray, cols: np.ndarray, face_gates: np.ndarray):
        m, n = rows.size, cols.size
        gates = (rows[:, None] * p + cols[None, :]).ravel()
        self.index = np.searchsorted(face_gates, gates)  # positions among the face gates (row-major i, j)
        self.gates = gates
        self.hi_ind, self.lo_ind, self.count, self.coord_coef = _cuts(m, n)
        self.coords = np.concatenate([rows, p + cols])

    def margin(self, target, gamma, lo, hi, detail, tie_tolerance=0.0):
        g_lo, g_hi, g_gamma = lo[self.index], hi[self.index], gamma[self.index]
        slack = (self.hi_ind @ g_hi - self.lo_ind @ g_lo - self.coord_coef @ target[self.coords]) / self.count
        cap = (g_hi - g_lo) / 2
        best = float(min(slack.min(), cap.min()))
        leaving = {}
        if detail:
            # the gates of every binding cut leave (a gate whose box shrinks to a point, its gamma passing 0,
            # is not known to leave)
            for i in np.flatnonzero(slack <= best + tie_tolerance):
                for k in np.flatnonzero(self.hi_ind[i]):
                    leaving[int(self.gates[k])] = _side_at_bound(float(g_gamma[k]), True)
                for k in np.flatnonzero(self.lo_ind[i]):
                    leaving[int(self.gates[k])] = _side_at_bound(float(g_gamma[k]), False)
        return best, leaving


class _LPBlock:
    """A large block's margin as the linear program it is: maximise t subject to the row and column sums of x
    equal to the targets and lo + t <= x <= hi - t (HiGHS through scipy.optimize.linprog, feasibility
    tolerances 1e-10, the smallest HiGHS takes). The binding constraints are read off the dual: a gate whose
    lower or upper shrunk bound has a nonzero multiplier is at that bound in every optimal solution.

    An LP costs milliseconds and the margin is evaluated at every solver step, so the value is first bounded
    from below: the last LP's optimal x, moved by the least-norm change that gives the new row and column sums
    (x_ij += dr_i / n + dc_j / m - dS / (m n) on a complete m x n block), is an admissible choice, and its
    smallest slack is a lower bound on the margin. While that bound exceeds half the last LP's margin it is
    returned (positive, like the margin); closer to 0 the LP is solved. The value can differ from the margin
    but never its sign, and it is the margin itself near a root, where the event is located.
    """

    def __init__(self, p: int, rows: np.ndarray, cols: np.ndarray, face_gates: np.ndarray):
        m, n = rows.size, cols.size
        self.m, self.n = m, n
        gates = (rows[:, None] * p + cols[None, :]).ravel()
        self.index = np.searchsorted(face_gates, gates)
        self.gates = gates
        k = m * n
        # the row sums and all column sums but the last (the totals agree: the last one is implied)
        eq = np.zeros((m + n - 1, k + 1))
        for i in range(m):
            eq[i, i * n:(i + 1) * n] = 1.0
        for j in range(n - 1):
            eq[m + j, j:k:n] = 1.0
        self.eq = eq
        self.eq_coords = np.concatenate([rows, p + cols[:-1]])
        self.row_coords, self.col_coords = rows, p + cols
        ub = np.zeros((2 * k, k + 1))
        ub[:k, :k] = -np.eye(k)
        ub[k:, :k] = np.eye(k)
        ub[:, k] = 1.0
        self.ub = ub
        self.cost = np.zeros(k + 1)
        self.cost[k] = -1.0
        self.reference = None  # (x, row sums, column sums, margin) of the last LP with a positive margin

    def _lower_bound(self, target, g_lo, g_hi):
        x, rows, cols, value = self.reference
        dr, dc = target[self.row_coords] - rows, target[self.col_coords] - cols
        moved = x + (dr[:, None] / self.n + dc[None, :] / self.m - dr.sum() / (self.m * self.n)).ravel()
        return float(min(np.min(moved - g_lo), np.min(g_hi - moved))), value

    def margin(self, target, gamma, lo, hi, detail, tie_tolerance=0.0):
        from scipy.optimize import linprog

        g_lo, g_hi, g_gamma = lo[self.index], hi[self.index], gamma[self.index]
        if not detail and self.reference is not None:
            bound, last = self._lower_bound(target, g_lo, g_hi)
            if bound > 0.5 * last:
                return bound, {}
        result = linprog(self.cost, A_ub=self.ub, b_ub=np.concatenate([-g_lo, g_hi]), A_eq=self.eq,
                         b_eq=target[self.eq_coords], bounds=(None, None), method="highs",
                         options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if result.status != 0:
            raise _NoDecision(f"the margin of a block of {self.gates.size} faces: {result.message}")
        value = float(-result.fun)
        k = self.gates.size
        if value > 0:
            self.reference = (result.x[:k].copy(), target[self.row_coords].copy(), target[self.col_coords].copy(),
                              value)
        leaving = {}
        if detail:
            duals = np.abs(result.ineqlin.marginals)
            for i in np.flatnonzero(duals[:k] > 1e-9):
                leaving[int(self.gates[i])] = _side_at_bound(float(g_gamma[i]), False)
            for i in np.flatnonzero(duals[k:] > 1e-9):
                leaving[int(self.gates[i])] = _side_at_bound(float(g_gamma[i]), True)
        return value, leaving


class _Mode:
    """The smooth field of one mode: which gates are active (+1), on their faces (0), inactive (-1).

    Everything that depends on the mode alone is built once: the active gates' incidence M on the 2p rows and
    columns, its projection P M onto the faces' tangent space (P = I without faces), (P - I) M (the kink
    forces the faces must supply) and the labels' incidence, so that a field evaluation is a softmax over the
    active gates and three small matrix products.
    """

    def __init__(self, p: int, status: np.ndarray):
        self.p = p
        self.status = np.asarray(status).copy()
        flat = np.arange(p * p)
        act = flat[self.status == 1]
        self.act_a, self.act_b = np.divmod(act, p)
        self.act_bp = p + self.act_b
        self.act_y = (self.act_a + self.act_b) % p
        self.inactive = flat[self.status == -1]
        self.ina_a, self.ina_bp = np.divmod(self.inactive, p)
        self.ina_bp = self.ina_bp + p
        face = flat[self.status == 0]
        self.faces = _Faces(p, face) if face.size else None
        other = flat[self.status != 1]
        self.other_a, self.other_bp = np.divmod(other, p)
        self.other_y = (self.other_a + self.other_bp) % p
        self.other_bp = self.other_bp + p
        self._last_state, self._last_active = None, None
        n = act.size
        columns = np.arange(n)
        self.incidence = np.zeros((2 * p, n))
        self.incidence[self.act_a, columns] = 1.0
        self.incidence[self.act_bp, columns] = 1.0
        self.labels = np.zeros((p, n))
        self.labels[self.act_y, columns] = 1.0
        if self.faces is None:
            self.projected, self.kink_forces = self.incidence, None
        else:
            projection = self.faces.projection_matrix()
            self.projected = projection @ self.incidence
            self.kink_forces = self.projected - self.incidence

    def _active(self, theta: np.ndarray):
        """(z, q, g): the active gates' z = u(a) + v(b), softmax q = softmax(z w) (one row per gate) and
        g_y(z, w) = sum_c q_c w(c) - w(y) (A.4). The last state's values are kept (by identity of the array:
        a solver step's state is read by the events, the margin and the loss)."""
        if theta is self._last_state:
            return self._last_active[:3]
        w = theta[2 * self.p:]
        z = theta[self.act_a] + theta[self.act_bp]
        q, lse = _softmax_rows(z, w)
        self._last_state, self._last_active = theta, (z, q, q @ w - w[self.act_y], lse)
        return self._last_active[:3]

    def loss(self, theta: np.ndarray) -> float:
        """The loss (1.1) at theta (mode-independent: h = ReLU(z) for every gate), from this mode's softmax
        rows where a gate is active and positive; the few gates whose sign differs from the mode (within the
        event offset of 0) are computed on their own."""
        p = self.p
        if self.act_a.size == 0:
            return _loss(theta, p)
        self._active(theta)
        z, _, _, lse = self._last_active
        w = theta[2 * p:]
        positive = z > 0
        total = float(np.sum(lse[positive] - z[positive] * w[self.act_y[positive]]))
        count = int(positive.sum())
        others = theta[self.other_a] + theta[self.other_bp]
        up = others > 0
        if up.any():
            h = others[up]
            _, lse_up = _softmax_rows(h, w)
            total += float(np.sum(lse_up - h * w[self.other_y[up]]))
            count += int(up.sum())
        return (total + (p * p - count) * math.log(p)) / p ** 2

    def forces(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(G, gw): the active gates' forces on (u, v) (sum of g_y(z, w) per row / column, (A.3)-(A.6)), shape
        (2p,), and the gradient in w (A.7), both times p^2. Face and inactive gates contribute nothing here."""
        if self.act_a.size == 0:
            return np.zeros(2 * self.p), np.zeros(self.p)
        z, q, g = self._active(theta)
        return self.incidence @ g, z @ q - self.labels @ z

    def time_derivative(self, theta: np.ndarray) -> np.ndarray:
        """d theta/dt = -(P G, gw) / p^2, P the projection onto the faces' tangent space."""
        if self.act_a.size == 0:
            return np.zeros(3 * self.p)
        z, q, g = self._active(theta)
        return np.concatenate([self.projected @ g, z @ q - self.labels @ z]) * (-1.0 / self.p ** 2)

    def jacobian(self, theta: np.ndarray) -> np.ndarray:
        """d/d theta of time_derivative, shape (3p, 3p), in closed form: with V_i = Var_{q_i}(w) (= dg_i/dz_i),
        D_ic = q_ic (1 + z_i (w(c) - q_i . w)) - [c = y_i] (= dg_i/dw(c) = d gw(c)/dz_i) and
        H_ww = sum_i z_i^2 (diag q_i - q_i q_i^T), the Hessian of the mode's loss times p^2 is
        [[M diag(V) M^T, M D], [D^T M^T, H_ww]]; the field is -(P on the (u, v) rows) of it over p^2."""
        p = self.p
        out = np.zeros((3 * p, 3 * p))
        if self.act_a.size == 0:
            return out
        w = theta[2 * p:]
        z, q, g = self._active(theta)
        mean = q @ w
        var = q @ (w * w) - mean * mean
        d = q * (1.0 + z[:, None] * (w[None, :] - mean[:, None]))
        d[np.arange(z.size), self.act_y] -= 1.0
        zq = z[:, None] * q
        out[:2 * p, :2 * p] = (self.projected * var) @ self.incidence.T
        out[:2 * p, 2 * p:] = self.projected @ d
        out[2 * p:, :2 * p] = d.T @ self.incidence.T
        out[2 * p:, 2 * p:] = np.diag(z @ zq) - zq.T @ zq
        out *= -1.0 / p ** 2
        return out

    def margin(self, theta: np.ndarray, detail: bool = False):
        """The faces' admissibility margin at theta (_Faces.margin); +inf without faces. With ``detail``, the
        gates within DECISION_TOLERANCE x the force scale of the binding constraint count as binding."""
        if self.faces is None:
            return (math.inf, {}) if detail else math.inf
        w = theta[2 * self.p:]
        if self.act_a.size == 0:
            target = np.zeros(2 * self.p)
            tie = DECISION_TOLERANCE * _force_scale(target, w) if detail else 0.0
        else:
            _, _, g = self._active(theta)
            target = self.kink_forces @ g
            tie = DECISION_TOLERANCE * _force_scale(self.incidence @ g, w) if detail else 0.0
        return self.faces.margin(target, w, detail, tie)


def velocity(theta: np.ndarray, p: int, status: np.ndarray) -> np.ndarray:
    """d theta/dt of the flow in the mode ``status`` (p^2 entries of +1 active, 0 on the face, -1 inactive; the
    face gates must form blocks R x B, see _Faces)."""
    return _Mode(p, np.asarray(status)).time_derivative(np.asarray(theta, dtype=np.float64))


def _force_scale(forces: np.ndarray, w: np.ndarray) -> float:
    """The size of the forces at a decision: max |G| and the largest |gamma| (<= 2 max |w|)."""
    return max(float(np.abs(forces).max(initial=0.0)), 2 * float(np.abs(w).max()), 1e-300)


def _active_forces(theta: np.ndarray, p: int, gates: np.ndarray) -> np.ndarray:
    """G: the forces of the active ``gates`` on the 2p rows and columns (sum of g_y(z, w), (A.3)-(A.6))."""
    a, b = np.divmod(gates, p)
    w = theta[2 * p:]
    q, _ = _softmax_rows(theta[a] + theta[p + b], w)
    g = q @ w - w[(a + b) % p]
    return np.bincount(np.concatenate([a, p + b]), weights=np.concatenate([g, g]), minlength=2 * p)


def _held(p: int, faces: np.ndarray, gates: np.ndarray) -> np.ndarray:
    """The gates among ``gates`` that lie in a block R x B of ``faces`` (their z is an alternating sum of face gates,
    so they are on their kinks for as long as those are)."""
    held = np.zeros(gates.size, dtype=bool)
    for rows, cols in _components(p, faces):
        held |= np.isin(gates // p, rows) & np.isin(gates % p, cols)
    return held


def _decide(theta: np.ndarray, p: int, status: np.ndarray, kinks: np.ndarray, leaving: dict):
    """(status, mode) after an event: every gate of ``kinks`` (on its kink) decided at once, and its _Mode.

    ``leaving`` maps gates whose side is known (they leave a face at a bound of their coefficient) to it.
    The minimal-norm problem (module docstring) is solved over the attractive kink gates (gamma_y > 0, box
    [0, gamma]) and the repelling ones (gamma_y <= 0, box [gamma, 0]) that the attractive faces hold (inside a
    block of theirs: a cycle closes on them). An attractive gate takes the side dz/dt = -(r_a + r_b) / p^2 of
    the unique optimal residual r says: 0 (to DECISION_TOLERANCE) -> on its face, > 0 -> active, < 0 ->
    inactive. A repelling gate nothing holds would only stay on its face by an unstable balance: it takes
    ReLU'(0) = 0 (inactive, x = 0) and turns active when the field moves it up; each turns at most once, so
    the loop ends. Face gates are closed into blocks. The resulting mode is checked: every kink gate must move
    to its side and the faces' coefficients must be admissible; raises _NoDecision if not.
    """
    w = theta[2 * p:]
    new = status.copy()
    for k, side in leaving.items():
        new[k] = side
    free = np.array([k for k in kinks if k not in leaving], dtype=int)
    gamma = _gate_gammas(w, free, p)
    attract, repel = free[gamma > 0], free[gamma <= 0]
    g_attract, g_repel = gamma[gamma > 0], gamma[gamma <= 0]
    new[free] = -1
    ka, kb = np.divmod(kinks, p)
    held = np.ones(repel.size, dtype=bool)  # repelling gates kept in the problem (with their boxes)
    for _ in range(2 * repel.size + 2):
        forces = _active_forces(theta, p, np.flatnonzero(new == 1))
        gates = np.concatenate([attract, repel[held]])
        lo = np.concatenate([np.zeros(attract.size), g_repel[held]])
        hi = np.concatenate([g_attract, np.zeros(int(held.sum()))])
        _, r = minimal_norm_element(forces, p, gates, lo, hi)
        tol = DECISION_TOLERANCE * _force_scale(forces, w)
        dz = -(r[attract // p] + r[p + attract % p])
        # repelling gates in the problem that the attractive faces do not hold leave it (x = 0)
        still = held & _held(p, attract[np.abs(dz) <= tol], repel)
        if np.any(still != held):
            held = still
            continue
        rising = -(r[repel // p] + r[p + repel % p]) > tol
        turn = repel[rising & ~held & (new[repel] == -1)]
        if turn.size == 0:
            break
        new[turn] = 1
    new[attract] = np.where(dz > tol, 1, np.where(dz < -tol, -1, 0))
    new = _closure(p, new)
    # the mode this defines must be consistent: every kink gate off its face moves to its side, and the face
    # coefficients are admissible (both follow from the KKT conditions; checked, not assumed)
    mode = _Mode(p, new)
    vel = mode.time_derivative(theta)
    zdot = (vel[ka] + vel[p + kb]) * p ** 2
    side = new[kinks]
    wrong = ((side == 1) & (zdot < -tol)) | ((side == -1) & (zdot > tol))
    if wrong.any():
        k = int(kinks[np.flatnonzero(wrong)[0]])
        raise _NoDecision(f"kink gate {divmod(k, p)} decided {'active' if new[k] == 1 else 'inactive'} "
                          f"moves the other way (dz/dt = {zdot[np.flatnonzero(wrong)[0]] / p ** 2:.3g})", gate=k)
    if mode.faces is not None and mode.margin(theta) < -tol:
        raise _NoDecision("the faces decided by the minimal-norm element have no admissible coefficients")
    return new, mode


def _decide_at_event(theta: np.ndarray, p: int, status: np.ndarray, kinks: np.ndarray, leaving: dict):
    """:func:`_decide`, with the gates sent off their faces by a face-margin event (``leaving``) given back to
    the minimal-norm decision one by one when the mode they make is inconsistent.

    At a face-margin event every gate of the binding constraint is at a bound of its coefficient, where its
    dz/dt is 0 to first order: that it leaves to the bound's side is a tie broken by a rule, not forced by the
    field. When the others' decisions turn the field so that such a gate would move against the side it was
    sent to (seen at p = 11: four gates of one constraint released at once, one of them then pushed back), the
    gate is decided like every other kink gate instead, and the whole decision is tried again. The mode
    returned passes _decide's checks (every kink gate moves to its side, the faces' coefficients are
    admissible) whichever way it was found. If every released gate is given back and the decision still fails,
    the failure is raised; if they all return to their faces, the next face-margin event comes at once and the
    run's zero-length-mode limit stops it as undecided (no loop)."""
    leaving = dict(leaving)
    while True:
        try:
            return _decide(theta, p, status, kinks, leaving)
        except _NoDecision as exc:
            if exc.gate is None or exc.gate not in leaving:
                raise
            del leaving[exc.gate]


def _loss(theta: np.ndarray, p: int) -> float:
    """The loss (1.1) with h = ReLU(z) (independent of the mode)."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    z = (u[:, None] + v[None, :]).ravel()
    positive = np.flatnonzero(z > 0)
    h = z[positive]
    y = (positive // p + positive % p) % p
    # log-sum-exp by hand (scipy's took 3/4 of a run's time): stable, the largest term factored out. A gate
    # with h = 0 has every logit 0 and contributes log p exactly (the same float the general formula gives).
    _, lse = _softmax_rows(h, w)
    return float((np.sum(lse - h * w[y]) + (p * p - positive.size) * math.log(p)) / p ** 2)


def _balance(theta: np.ndarray, p: int) -> float:
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    return float(u @ u + v @ v - w @ w)


def _snap_faces(theta: np.ndarray, p: int, faces: "_Faces | None") -> np.ndarray:
    """theta with every block exactly on its faces by the least-norm correction of (u, v): u(a) = s on R,
    v(b) = -s on B, s = (sum_R u - sum_B v) / (|R| + |B|)."""
    if faces is None:
        return theta
    out = theta.copy()
    sign = faces.coord_sign[faces.in_block]
    blk = faces.coord_block[faces.in_block]
    s = np.bincount(blk, weights=sign * theta[:2 * p][faces.in_block], minlength=len(faces.blocks)) \
        / faces.block_size
    out[:2 * p][faces.in_block] = sign * s[blk]
    return out


class _RunStop(Exception):
    """The run cannot go on; the message is the trajectory's failure."""


def _first_root(f, lo: float, hi: float) -> float:
    """The root of f on [lo, hi] for f(lo) > 0 >= f(hi) (brentq to 4 eps, as solve_ivp locates events); lo if f
    is not positive there, hi if f(hi) is (the dense output and the step's end can differ by rounding)."""
    f_lo, f_hi = f(lo), f(hi)
    if f_lo <= 0:
        return lo
    if f_hi > 0:
        return hi
    return brentq(f, lo, hi, xtol=4 * _EPS, rtol=4 * _EPS)


class _Run:
    """The record of one run while it is integrated: the checkpoints filled so far and the validation of every
    accepted solver step (the loss not rising beyond its allowance, the balance drift)."""

    def __init__(self, p: int, grid: np.ndarray, theta: np.ndarray):
        self.p = p
        self.grid = grid
        self.taus = np.log1p(grid)
        self.states = np.empty((grid.size, 3 * p))
        self.losses = np.empty(grid.size)
        self.balance0 = _balance(theta, p)
        self.drift = 0.0
        self.loss_excess = 0.0
        self.last_loss = _loss(theta, p)
        self.states[0], self.losses[0] = theta, self.last_loss
        self.checkpoint_evaluations = np.zeros(grid.size, dtype=np.int64)
        self.filled = 1
        self.evaluations = 0
        self.reached = 0.0  # the largest tau the field was evaluated at
        self.snap_allowance = 0.0  # the loss change the last projection onto the faces may cause

    def check(self, y: np.ndarray, mode: "_Mode") -> None:
        """Validate an accepted state: the loss against the previous one, the balance quantity (A.10)."""
        p = self.p
        loss = mode.loss(y)
        if loss > self.last_loss:
            # the state carries an error <= rtol |y| + atol per component, which moves the loss by at most
            # |grad L|_1 times it; a factor 10 for the accumulation of local errors; plus the rounding of the
            # p^2 log-sum-exp terms of size <= |L| + log p (computed only for a rise: a descent needs none)
            grad = mode.time_derivative(y)
            allowance = (10 * (RTOL * np.abs(y).max() + ATOL) * np.abs(grad).sum()
                         + 8 * p * p * _EPS * (abs(loss) + math.log(p)) + self.snap_allowance)
            self.loss_excess = max(self.loss_excess, loss - self.last_loss - allowance)
        self.last_loss = loss
        self.snap_allowance = 0.0
        self.drift = max(self.drift, abs(_balance(y, p) - self.balance0) / max(1.0, float(y @ y)))

    def fill(self, dense, tau: float, y: np.ndarray, wrong_side) -> None:
        """Record the checkpoints up to tau (y there) from the dense output of the step that reached it."""
        while self.filled < self.grid.size and self.taus[self.filled] <= tau:
            state = dense(self.taus[self.filled]) if self.taus[self.filled] < tau else y
            if wrong_side(state).size:
                # between solver steps too: a gate that dipped across its kink and back within one step
                raise _RunStop(f"a gate is on the wrong side of its kink at the checkpoint "
                               f"t = {self.grid[self.filled]:.4g}")
            self.states[self.filled], self.losses[self.filled] = state, _loss(state, self.p)
            self.checkpoint_evaluations[self.filled] = self.evaluations
            self.filled += 1

    def fill_constant(self, theta: np.ndarray) -> None:
        """Record every remaining checkpoint at theta (a dead neuron's final state)."""
        while self.filled < self.grid.size:
            self.states[self.filled], self.losses[self.filled] = theta, _loss(theta, self.p)
            self.checkpoint_evaluations[self.filled] = self.evaluations
            self.filled += 1

    def integrate_mode(self, mode: "_Mode", tau0: float, theta: np.ndarray, tau_end: float):
        """Integrate one mode from (tau0, theta) step by step with LSODA until an event or tau_end; a mode whose
        LSODA integration has used STIFF_SWITCH_EVALUATIONS field evaluations goes on with Radau from its last
        accepted step (LSODA can stay with Adams in a stiff mode: see the constant).

        Returns (tau, theta, fired): fired None at tau_end, else the event: "active_min" (an active gate reached
        0), "inactive_max" (an inactive gate reached 0), "face_margin" (the faces' margin reached 0) or
        ("side", gate) (a gate found across its kink at a step, located on the dense output: a tangential
        return the offset events cannot see). Every accepted step is validated and the checkpoints it passes
        are recorded, so a run stopped by the budget keeps what it reached. Raises _RunStop."""
        p = self.p
        status = mode.status

        def rhs(s, y):
            self.evaluations += 1
            self.reached = max(self.reached, s)
            if self.evaluations > MAX_EVALUATIONS:
                raise _EvaluationBudget
            return math.exp(s) * mode.time_derivative(y)

        def jac(s, y):
            # counted as one evaluation: it replaces the 3p + 1 evaluations of a finite-difference Jacobian
            self.evaluations += 1
            return math.exp(s) * mode.jacobian(y)

        # The crossing events are offset by a hair (EVENT_OFFSET x scale): a gate that has just left a face starts
        # at z = 0 exactly, where a zero-offset event would fire at once; offset, it can only fire once the gate
        # has come back to within the hair of 0. The faces' margin likewise fires a hair below 0 (a face decided
        # at a tie starts at margin 0). Each event function is written to go from > 0 to <= 0.
        hair = EVENT_OFFSET * max(1.0, float(np.abs(theta[:2 * p]).max()))
        margin_hair = EVENT_OFFSET * _force_scale(mode.forces(theta)[0], theta[2 * p:])
        events = {"active_min": lambda y: float(np.min(y[mode.act_a] + y[mode.act_bp])) - hair}
        if mode.inactive.size:
            events["inactive_max"] = lambda y: -float(np.max(y[mode.ina_a] + y[mode.ina_bp])) - hair
        if mode.faces is not None:
            # a mode decided at a tie can start a rounding error below 0 (within the decision's tolerance): the
            # event then fires a hair below its starting value
            offset = margin_hair - min(0.0, mode.margin(theta))
            events["face_margin"] = lambda y: mode.margin(y) + offset

        def wrong_side(y):
            z = (y[:p, None] + y[None, p:2 * p]).ravel()
            return np.flatnonzero(((status == -1) & (z > 1e3 * hair)) | ((status == 1) & (z < -1e3 * hair)))

        if wrong_side(theta).size:
            raise _RunStop(f"a gate starts a mode on the wrong side of its kink at t = {math.expm1(tau0):.4g}")
        previous = {name: f(theta) for name, f in events.items()}
        solver = LSODA(rhs, tau0, theta, tau_end, rtol=RTOL, atol=ATOL, jac=jac)
        switch_at = self.evaluations + STIFF_SWITCH_EVALUATIONS
        t_old = tau0
        while True:
            try:
                message = solver.step()
            except _EvaluationBudget:
                # the time the solver had reached, not the mode's start (a mode can last from t ~ 10^3 to 10^11,
                # where the stiffness stalls the solver: reported as "by t ~ 700" before)
                raise _RunStop(f"more than {MAX_EVALUATIONS} field evaluations by t = {math.expm1(self.reached):.4g} "
                               f"(in a mode from t = {math.expm1(tau0):.4g})") from None
            if solver.status == "failed":
                raise _RunStop(f"solver failure at t = {math.expm1(solver.t):.4g}: {message}")
            t_new, y_new = float(solver.t), solver.y
            dense = solver.dense_output()
            fired, t_event = None, None
            current = {}
            for name, f in events.items():
                current[name] = f(y_new)
                if previous[name] > 0 >= current[name]:
                    root = _first_root(lambda s, f=f: f(dense(s)), t_old, t_new)
                    if t_event is None or root < t_event:
                        fired, t_event = name, root
            wrong = wrong_side(y_new)
            if wrong.size:
                gate = int(wrong[0])
                a, b = divmod(gate, p)
                sign = float(status[gate])
                root = _first_root(lambda s: sign * float(dense(s)[a] + dense(s)[p + b]), t_old, t_new)
                if t_event is None or root < t_event:
                    fired, t_event = ("side", gate), root
            if fired is not None:
                y_event = dense(t_event)
                # A gate can cross its kink and come back within one step, unseen at the step's end (p = 29, seed
                # 1, sample 55: active gate 390 at z = -3.7e-5 when another gate's event fired at t = 197.7). One
                # on the wrong side at the event crossed first: its crossing is the event (each pass moves the
                # event earlier; runs without such a gate are unchanged to the bit).
                for _ in range(p * p):
                    wrong = wrong_side(y_event)
                    if not wrong.size:
                        break
                    gate = int(wrong[0])
                    a, b = divmod(gate, p)
                    sign = float(status[gate])
                    t_event = _first_root(lambda s: sign * float(dense(s)[a] + dense(s)[p + b]), t_old, t_event)
                    fired, y_event = ("side", gate), dense(t_event)
                self.check(y_event, mode)
                self.fill(dense, t_event, y_event, wrong_side)
                return t_event, np.array(y_event, dtype=np.float64), fired
            self.check(y_new, mode)
            self.fill(dense, t_new, y_new, wrong_side)
            if solver.status == "finished":
                return t_new, np.array(y_new, dtype=np.float64), None
            previous, t_old = current, t_new
            if self.evaluations >= switch_at and isinstance(solver, LSODA):
                # a stall (see STIFF_SWITCH_EVALUATIONS): an L-stable implicit Runge-Kutta method from here on. Its
                # Newton corrections keep the faces' linear invariants like LSODA's (the rows of the projected
                # field and of its Jacobian on the faces' normals are 0)
                solver = Radau(rhs, t_new, np.array(y_new, dtype=np.float64), tau_end, rtol=RTOL, atol=ATOL, jac=jac)


def simulate_flow(theta0: np.ndarray, p: int, horizon: float = 1e6) -> Trajectory:
    """The Filippov trajectory of (1.6) from theta0 up to the horizon, kept at ``checkpoint_times(horizon)``.

    theta0: shape (3p,), no gate exactly 0 (true with probability 1 for a Gaussian draw). Returns a
    Trajectory (certify.law.record) with dynamics "flow"; a run that cannot reach the horizon (Zeno, solver
    failure or budget, too many mode changes, a kink decision that failed its checks) has ``failure`` set and
    the checkpoints it reached. ``extra["evaluations"]``: the field evaluations (Jacobians count one);
    ``extra["checkpoint_evaluations"]``: how many had been made by each checkpoint. Floats only.
    """
    started = time.perf_counter()
    theta = np.array(theta0, dtype=np.float64)
    if theta.shape != (3 * p,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta0 must be a finite vector of length 3p = {3 * p}, got shape {theta.shape}")
    grid = checkpoint_times(horizon)
    tau_end = float(np.log1p(grid[-1]))
    z0 = theta[:p, None] + theta[None, p:2 * p]
    if np.any(z0 == 0):
        raise ValueError("theta0 has a gate exactly on its kink; the flow starts from a point off every kink")
    status = np.where(z0.ravel() > 0, 1, -1)
    run = _Run(p, grid, theta)
    switches = zero_length = 0
    death_time = None
    failure = None
    tau = 0.0
    mode = None  # the mode of ``status``, once built
    try:
        while tau < tau_end:
            mode = _Mode(p, status) if mode is None else mode
            if mode.act_a.size == 0:
                death_time = math.expm1(tau)
                break
            tau_new, theta, fired = run.integrate_mode(mode, tau, theta, tau_end)
            if fired is None:  # reached the horizon
                tau = tau_new
                break
            zero_length = zero_length + 1 if tau_new <= tau * (1 + 4 * _EPS) + 1e-300 else 0
            tau = tau_new
            switches += 1
            if switches > MAX_SWITCHES:
                raise _RunStop(f"more than {MAX_SWITCHES} mode changes by t = {math.expm1(tau):.4g} (Zeno?)")
            if zero_length > MAX_ZERO_LENGTH:
                raise _RunStop(f"{MAX_ZERO_LENGTH} successive zero-length modes at t = {math.expm1(tau):.4g} (Zeno)")
            # the gates the event concerns, and every gate numerically on its kink at the same instant
            zflat = (theta[:p, None] + theta[None, p:2 * p]).ravel()
            kinks = set(np.flatnonzero(status == 0).tolist())
            leaving: dict = {}
            if fired == "active_min":
                act = np.flatnonzero(status == 1)
                kinks.add(int(act[np.argmin(zflat[act])]))
            elif fired == "inactive_max":
                ina = np.flatnonzero(status == -1)
                kinks.add(int(ina[np.argmax(zflat[ina])]))
            elif fired == "face_margin":
                # the gates of the binding constraint leave their faces, each to the side of the bound it reached
                # (at the event every admissible choice has them at that bound; a moment later none exists)
                _, leaving = mode.margin(theta, detail=True)
                kinks |= set(leaving)
            else:
                kinks.add(fired[1])
            scale = max(1.0, float(np.abs(theta[:2 * p]).max()))
            kinks |= set(np.flatnonzero(np.abs(zflat) <= KINK_TOLERANCE * scale).tolist())
            status, mode = _decide_at_event(theta, p, status, np.array(sorted(kinks), dtype=int), leaving)
            # the faces of the new mode, exactly on z = 0: a projection of (u, v) by at most KINK_TOLERANCE x
            # scale. The loss moves by at most 4 max|w| |d(u, v)|_inf (each of the 2p partial derivatives in u, v
            # is at most 2 max|w| / p: p gates of |g_y| <= 2 max|w|, over p^2), which the next check allows
            snapped = _snap_faces(theta, p, mode.faces)
            run.snap_allowance = 4 * float(np.abs(theta[2 * p:]).max()) * float(np.abs(snapped - theta).max())
            theta = snapped
    except _RunStop as exc:
        failure = str(exc)
    except _NoDecision as exc:  # a kink decision or a face margin that failed its checks
        failure = f"{exc} at t = {math.expm1(tau):.4g}"
    except (ValueError, np.linalg.LinAlgError, FloatingPointError) as exc:
        failure = f"solver error at t = {math.expm1(tau):.4g}: {exc}"
    if death_time is None and failure is None and not np.any(status == 1):
        death_time = math.expm1(tau)
    if death_time is not None and failure is None:
        run.fill_constant(theta)
    # a gate is "on a kink" if within the snapping tolerance of 0 (the faces are restored at every event and
    # the integration keeps them to rounding)
    band = 1e-7 * max(1.0, float(np.abs(theta[:2 * p]).max()))
    filled = run.filled
    return Trajectory(p=p, dynamics="flow", horizon=float(horizon), times=grid[:filled],
                      states=run.states[:filled], losses=run.losses[:filled], death_time=death_time,
                      kink_band=band, max_loss_increase=max(0.0, run.loss_excess), balance_drift=run.drift,
                      failure=failure, switches=switches, seconds=time.perf_counter() - started,
                      extra={"evaluations": run.evaluations,
                             "checkpoint_evaluations": run.checkpoint_evaluations[:filled].tolist()})
