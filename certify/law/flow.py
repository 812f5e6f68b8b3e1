"""The Clarke gradient flow (1.6) of the loss (1.1) from any initial point, as a Filippov sliding solution.

What is implemented (docs/outcome-law.md says the same with the reasons):

- **Modes.** Every gate z_ab = u(a) + v(b) is *active* (+1: ReLU' = 1, logit h = z), *sliding* (0: held on
  its kink face z_ab = 0) or *inactive* (-1: contributes nothing). Between mode changes the field is smooth.
- **Sliding gates.** A gate on its kink contributes c_ab gamma_y(w) / p^2 to -du(a)/dt and -dv(b)/dt
  ((A.8), Lemma A.6), c_ab in [0, 1] (the Clarke interval of ReLU'(0)), and nothing to w. The sliding
  coefficients are the ones that keep every sliding gate on its face, dz_S/dt = 0: with x = c gamma,
  N x = -E G, N = E E^T, E the gate-to-(row, column) incidence of S and G the active gates' (u, v) forces
  (the unique solution when the sliding gates form no cycle, the generic case; the least-squares one
  otherwise, which gives the same velocity).
- **Which kink gates slide.** At a mode change, the kink gates K are re-decided together by the
  *minimal-norm element* of the Clarke subdifferential: x = argmin |G + E_K^T x|^2 over
  x_k in [0, gamma_k] for the gates with gamma_y > 0 (bounded least squares). Along any Clarke trajectory
  of a path-differentiable function the velocity is minus the minimal-norm element for almost every t
  (the chain rule of Davis-Drusvyatskiy-Kakade-Lee), and near a kink with gamma_y > 0 the loss is
  semiconvex (Lemma A.7), where the Clarke trajectory is unique (Proposition A.16, Lemma A.15); this is
  the sliding solution of Lemma A.9. Its KKT conditions say: c interior -> the gate slides (dz/dt = 0);
  c = 0 -> dz/dt <= 0, the gate leaves into z < 0; c = 1 -> dz/dt >= 0, it leaves into z > 0.
  A kink gate with gamma_y <= 0 is never attractive (the face is not semiconvex there and trajectories
  branch); it takes **ReLU'(0) = 0** (c = 0) and goes the way the rest of the field moves it.
- **Events** end a mode: an active gate reaches 0 from above, an inactive gate reaches 0 from below, a
  sliding coefficient reaches 0 (the gate leaves into z < 0) or 1 (into z > 0). The state is put back
  exactly on the faces (a least-squares correction of (u, v) of the size of the event's residual).
- **Clock.** tau = log(1 + t), d theta/d tau = (1 + t) d theta/dt: on a log time scale the fast directions
  make the system stiff (relaxation rates O(1) in t are O(t) in tau), so LSODA is used (rtol 1e-10): it
  switches to BDF where stiff. Measured from one settled p = 5 state, t = 1e4 -> 1e6: Radau at rtol 1e-10
  stalls at its rounding floor (16,800 steps, 56 s), BDF 13,300 steps, LSODA 210 steps (0.08 s).
- **Death.** When no gate is active every term of the gradient vanishes under ReLU'(0) = 0 (and the
  minimal-norm element is 0): the state is final, the death time the time of that event.
- **Validation.** At every solver step the loss (1.1) must not rise beyond an error allowance (below), and
  the balance quantity (A.10), conserved by every Clarke trajectory (Lemma A.8), is tracked.
- **Zeno.** Tangential exits can cause endless zero-length modes; a run with more than
  :data:`MAX_SWITCHES` mode changes, :data:`MAX_ZERO_LENGTH` successive modes of no length, or
  :data:`MAX_EVALUATIONS` field evaluations stops with a failure that the classifier reports as undecided.

Floats only: an observation, never a bound.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, lsq_linear

from certify.law.record import Trajectory, checkpoint_times

__all__ = ["MAX_SWITCHES", "MAX_ZERO_LENGTH", "RTOL", "simulate_flow", "velocity"]

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


class _EvaluationBudget(Exception):
    """The run used MAX_EVALUATIONS field evaluations."""
#: Relative inadmissibility (see _Mode.inadmissibility) beyond which a sliding mode must end.
INADMISSIBLE = 1e-9
#: Offset of the gate-crossing events, relative to max(1, max |u|, |v|): far below the kink test of an event
#: state (1e-9) and far above the rounding of a gate (~1e-16).
EVENT_OFFSET = 1e-12
_EPS = float(np.finfo(float).eps)


class _Mode:
    """The smooth field of one mode: which gates are active, which slide (flat indices a*p + b)."""

    def __init__(self, p: int, status: np.ndarray, theta: np.ndarray | None = None, last=()):
        self.p = p
        self.status = status.copy()
        flat = np.arange(p * p)
        act = flat[status == 1]
        sl = flat[status == 0]
        if theta is not None and sl.size:
            # attractive faces (largest gamma_y) first, so that a gate closing a cycle is the least attractive
            w = theta[2 * p:]
            # gates in ``last`` (held back on a face they were leaving) go last: they close the cycle
            key = -(w.mean() - w[(sl // p + sl % p) % p]) + np.isin(sl, list(last)) * 1e300
            sl = sl[np.argsort(key, kind="stable")]
        tree, self.forced = _spanning_forest(p, sl)
        self.act_a, self.act_b = np.divmod(act, p)
        self.act_y = (self.act_a + self.act_b) % p
        self.sl_a, self.sl_b = np.divmod(tree, p)
        self.sl_y = (self.sl_a + self.sl_b) % p
        self.inactive = flat[status == -1]
        if tree.size:
            n = ((self.sl_a[:, None] == self.sl_a[None, :]).astype(float)
                 + (self.sl_b[:, None] == self.sl_b[None, :]))
            # N = E E^T of a forest is invertible; a sliding gate closing a cycle (``forced``) is held at 0
            # by the others (its gate is their alternating sum), and takes c = 0 (ReLU'(0) = 0)
            self.n_pinv = np.linalg.inv(n)
        else:
            self.n_pinv = None

    def forces(self, theta: np.ndarray):
        """(G_u, G_v, gw, x): the active gates' forces on u, v (sum of g_y(z, w) per row / column, (A.3)-(A.6)),
        the gradient in w (A.7) (both times p^2), and the sliding x = c gamma (zeros when nothing slides)."""
        p = self.p
        u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
        z = u[self.act_a] + v[self.act_b]
        logits = z[:, None] * w[None, :]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        q = e / e.sum(axis=1, keepdims=True)
        g = q @ w - w[self.act_y]
        gu = np.bincount(self.act_a, weights=g, minlength=p)
        gv = np.bincount(self.act_b, weights=g, minlength=p)
        gw = z @ q - np.bincount(self.act_y, weights=z, minlength=p)
        if self.n_pinv is None:
            return gu, gv, gw, np.zeros(0)
        x = self.n_pinv @ (-(gu[self.sl_a] + gv[self.sl_b]))
        gu = gu + np.bincount(self.sl_a, weights=x, minlength=p)
        gv = gv + np.bincount(self.sl_b, weights=x, minlength=p)
        return gu, gv, gw, x

    def time_derivative(self, theta: np.ndarray) -> np.ndarray:
        """d theta/dt = -(G_u, G_v, gw) / p^2 in this mode."""
        gu, gv, gw, _ = self.forces(theta)
        return -np.concatenate([gu, gv, gw]) / self.p ** 2

    def inadmissibility(self, theta: np.ndarray) -> float:
        """How far the mode's velocity is from a Clarke element (0 when it is one), relative.

        Without cycles the sliding coefficients are unique: max(0, -min(c), max(c) - 1). With gates closing
        cycles (``forced``) the coefficients are not unique and the forest's are not the test: the velocity
        is a Clarke element iff some x with x_k = c_k gamma_k, c_k in [0, 1], over all sliding gates gives
        the same forces E^T x; the bounded least-squares residual |E^T x - b| / |b| measures it."""
        if self.n_pinv is None:
            return 0.0
        if self.forced.size == 0:
            c = self.coefficients(theta)
            return float(max(0.0, -c.min(), c.max() - 1))
        _, e, x, target = self.admissible_fit(theta)
        return float(np.linalg.norm(e @ x - target) / max(np.linalg.norm(target), 1e-300))

    def admissible_fit(self, theta: np.ndarray):
        """(gates, E, x, target) over every sliding gate (forest, then forced): E their incidence on the 2p rows
        and columns, target = E^T x of the forest's coefficients (the mode's forces), and x the closest fit
        to it with x_k = c_k gamma_k, c_k in [0, 1] (bounded least squares)."""
        p = self.p
        _, _, _, x_tree = self.forces(theta)
        gates = np.concatenate([self.sl_a * p + self.sl_b, self.forced])
        e = _incidence(p, gates)
        target = np.zeros(2 * p)
        np.add.at(target, self.sl_a, x_tree)
        np.add.at(target, p + self.sl_b, x_tree)
        w = theta[2 * p:]
        gamma = w.mean() - w[(gates // p + gates % p) % p]
        lo, hi = np.minimum(0.0, gamma), np.maximum(0.0, gamma)
        hi = np.where(hi > lo, hi, lo + 1e-300)  # lsq_linear needs lo < hi; a gamma of exactly 0 pins x at 0
        x = lsq_linear(e, target, bounds=(lo, hi), method="bvls", tol=1e-15).x
        return gates, e, x, target

    def coefficients(self, theta: np.ndarray) -> np.ndarray:
        """The sliding coefficients c = x / gamma_y (one per sliding gate)."""
        _, _, _, x = self.forces(theta)
        w = theta[2 * self.p:]
        return x / (w.mean() - w[self.sl_y])


def _incidence(p: int, gates: np.ndarray) -> np.ndarray:
    """E of shape (2p, len(gates)): gate a*p + b's column has 1 in row a (its u) and in row p + b (its v)."""
    a, b = np.divmod(np.asarray(gates, dtype=int), p)
    e = np.zeros((2 * p, a.size))
    e[a, np.arange(a.size)] = 1.0
    e[p + b, np.arange(a.size)] = 1.0
    return e


def _union_find(p: int):
    """(root, parent) over the 2p rows and columns (u(a) is node a, v(b) node p + b), all apart."""
    parent = list(range(2 * p))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    return root, parent


def _sliding_roots(p: int, status: np.ndarray):
    """root of :func:`_union_find` with the rows and columns joined by every sliding gate (status 0)."""
    root, parent = _union_find(p)
    for k in np.flatnonzero(status == 0):
        a, b = divmod(int(k), p)
        parent[root(a)] = root(p + b)
    return root


def _spanning_forest(p: int, gates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split sliding gates (in the given order) into a forest of the bipartite row/column graph and the
    gates that close a cycle (their z is then the alternating sum of the forest's gates around it)."""
    root, parent = _union_find(p)
    tree, forced = [], []
    for k in gates:
        a, b = divmod(int(k), p)
        ra, rb = root(a), root(p + b)
        if ra == rb:
            forced.append(int(k))
        else:
            parent[ra] = rb
            tree.append(int(k))
    return np.array(tree, dtype=int), np.array(forced, dtype=int)


def _connected_closure(p: int, status: np.ndarray) -> np.ndarray:
    """status with every gate whose row and column are joined by sliding gates set to 0 (it is held on its
    kink by them: its z is an alternating sum of theirs)."""
    root = _sliding_roots(p, status)
    out = status.copy()
    for k in range(p * p):
        a, b = divmod(k, p)
        if out[k] != 0 and root(a) == root(p + b):
            out[k] = 0
    return out


def velocity(theta: np.ndarray, p: int, status: np.ndarray) -> np.ndarray:
    """d theta/dt of the flow in the mode ``status`` (p^2 entries of +1 active, 0 sliding, -1 inactive)."""
    return _Mode(p, np.asarray(status)).time_derivative(np.asarray(theta, dtype=np.float64))


def _loss(theta: np.ndarray, p: int) -> float:
    """The loss (1.1) with h = ReLU(z) (independent of the mode)."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    h = np.maximum(u[:, None] + v[None, :], 0.0).ravel()
    y = (np.arange(p)[:, None] + np.arange(p)[None, :]).ravel() % p
    logits = h[:, None] * w[None, :]
    top = logits.max(axis=1)
    # log-sum-exp by hand (scipy's took 3/4 of a run's time): stable, the largest term factored out
    lse = top + np.log(np.exp(logits - top[:, None]).sum(axis=1))
    return float(np.sum(lse - h * w[y]) / p ** 2)


def _balance(theta: np.ndarray, p: int) -> float:
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    return float(u @ u + v @ v - w @ w)


def _snap(theta: np.ndarray, p: int, kinks: np.ndarray) -> np.ndarray:
    """theta with (u, v) moved by the least-norm correction that puts every gate of ``kinks`` exactly on 0."""
    if kinks.size == 0:
        return theta
    a, b = np.divmod(kinks, p)
    e = _incidence(p, kinks).T
    z = theta[a] + theta[p + b]
    delta = -np.linalg.lstsq(e, z, rcond=None)[0]
    out = theta.copy()
    out[:2 * p] += delta
    return out


def _resolve(theta: np.ndarray, p: int, status: np.ndarray, kinks: np.ndarray, leaving: dict) -> np.ndarray:
    """The new status after an event: the kink gates ``kinks`` decided by the minimal-norm Clarke element.

    ``leaving`` maps a sliding gate whose coefficient reached a bound to the side it leaves to (+1 / -1);
    at that instant its dz/dt is 0, so the side comes from the event, not from a sign of ~0.
    Returns the status array; raises nothing (ambiguous tangential gates take ReLU'(0) = 0, i.e. -1).
    """
    new = status.copy()
    for k, side in leaving.items():
        new[k] = side
    decide = np.array([k for k in kinks if k not in leaving], dtype=int)
    new[decide] = -1  # provisional: not active while the active forces are summed
    forces = _Mode(p, np.where(new == 1, 1, -1))
    gu, gv, _, _ = forces.forces(theta)
    base = np.concatenate([gu, gv])
    w = theta[2 * p:]
    if decide.size == 0:
        return new
    a, b = np.divmod(decide, p)
    gamma = w.mean() - w[(a + b) % p]
    e = _incidence(p, decide).T
    attract = gamma > 0
    x = np.zeros(decide.size)
    if attract.any():
        # min |base + E_K^T x|^2 over 0 <= x_k <= gamma_k: the minimal-norm Clarke element (module docstring)
        sol = lsq_linear(e[attract].T, -base, bounds=(np.zeros(attract.sum()), gamma[attract]),
                         method="bvls", tol=1e-15)
        x[attract] = sol.x
    zdot = -(e @ (base + e.T @ x)) / p ** 2
    # the scale of the kink velocities: one active force of size max|w|, over p^2
    vscale = (np.abs(base).max(initial=0.0) + np.abs(gamma).max(initial=0.0)) / p ** 2
    vtol = 1e3 * _EPS * max(vscale, 1e-300)
    for i, k in enumerate(decide):
        c = x[i] / gamma[i] if attract[i] else 0.0
        if attract[i] and 1e-9 < c < 1 - 1e-9:
            new[k] = 0
        elif zdot[i] > vtol:
            new[k] = 1
        elif zdot[i] < -vtol:
            new[k] = -1
        else:
            new[k] = 1 if (attract[i] and c >= 1 - 1e-9) else -1
    new = _connected_closure(p, new)
    new = _agreeing_clones(theta, p, new, kinks, vtol)
    return _consistent(theta, p, new, kinks, vtol)


class InconsistentMode(Exception):
    """No assignment of the kink gates was found whose field moves each gate to the side it was given."""


def _consistent(theta: np.ndarray, p: int, status: np.ndarray, kinks: np.ndarray, vtol: float) -> np.ndarray:
    """status after making every kink gate's side agree with the field of the mode it defines.

    A kink gate declared inactive must not be moved up (dz/dt <= 0), one declared active not down
    (dz/dt >= 0): the minimal-norm decision satisfies this (its KKT conditions) except where the face
    structure couples gates (cycles, clones). A gate found moving the wrong way is re-decided: with
    gamma_y > 0 it slides (an attractive face), else it takes the side it is moved to. At most 3 p^2 rounds;
    raises InconsistentMode if none is consistent (the run is then reported undecided, never silently kept).
    """
    out = status.copy()
    w = theta[2 * p:]
    for _ in range(3 * p * p):
        v = _Mode(p, out, theta).time_derivative(theta)
        wrong = None
        for k in kinks:
            if out[k] == 0:
                continue
            a, b = divmod(int(k), p)
            zdot = v[a] + v[p + b]
            if (out[k] == -1 and zdot > vtol) or (out[k] == 1 and zdot < -vtol):
                wrong = (int(k), zdot)
                break
        if wrong is None:
            # the sliding gates' coefficients must be admissible too (a neighbour decided after them may have
            # changed what holding them takes): beyond 1 the gate turns active, below 0 inactive
            mode = _Mode(p, out, theta)
            if mode.forced.size == 0 and mode.sl_a.size:
                c = mode.coefficients(theta)
                worst = int(np.argmax(np.maximum(c - 1, -c)))
                if c[worst] > 1 + INADMISSIBLE or c[worst] < -INADMISSIBLE:
                    out[int(mode.sl_a[worst] * p + mode.sl_b[worst])] = 1 if c[worst] > 1 else -1
                    out = _connected_closure(p, out)
                    continue
            elif mode.forced.size and mode.inadmissibility(theta) > INADMISSIBLE:
                released = _release_blocking_gate(theta, p, out, mode)
                if released is not None:
                    out = released
                    continue
            return out
        k, zdot = wrong
        a, b = divmod(k, p)
        gamma = w.mean() - w[(a + b) % p]
        out[k] = 0 if (gamma > 0 and out[k] == -1) else (1 if zdot > 0 else -1)
        if out[k] == 0:
            # an attractive face holds the gate only with a coefficient in [0, 1]: beyond 1 both sides push
            # it up (it turns active), below 0 both push it down
            mode = _Mode(p, out, theta)
            tree = list(mode.sl_a * p + mode.sl_b)
            if k in tree:
                c = mode.coefficients(theta)[tree.index(k)]
                out[k] = 1 if c > 1 else (-1 if c < 0 else 0)
        out = _connected_closure(p, out)
    raise InconsistentMode(f"no consistent assignment of the kink gates {sorted(int(k) for k in kinks)}")


def _release_blocking_gate(theta: np.ndarray, p: int, status: np.ndarray, mode: "_Mode"):
    """With cycles among the sliding gates and no admissible coefficients: the status with one sliding gate
    released, the one whose bound blocks the forces most (the largest |E_k . r| over the gates at a bound of
    the bounded least squares, r its residual), to the side of that bound (c = 1: active; c = 0: inactive),
    among those whose release the closure does not undo; None if there is none."""
    gates, e, x, target = mode.admissible_fit(theta)
    w = theta[2 * p:]
    gamma = w.mean() - w[(gates // p + gates % p) % p]
    residual = e @ x - target
    pressure = np.abs(e.T @ residual)
    for i in np.argsort(-pressure, kind="stable"):
        c = x[i] / gamma[i] if gamma[i] != 0 else 0.0
        at_one, at_zero = abs(c - 1) <= 1e-9, abs(c) <= 1e-9
        if not (at_one or at_zero) or pressure[i] == 0:
            continue
        trial = status.copy()
        trial[int(gates[i])] = 1 if at_one else -1
        trial = _connected_closure(p, trial)
        if trial[int(gates[i])] != 0:
            return trial
    return None


def _agreeing_clones(theta: np.ndarray, p: int, status: np.ndarray, kinks: np.ndarray, vtol: float) -> np.ndarray:
    """status with clone gates made to agree. Gates (a, b), (a', b') whose rows a ~ a' and columns b ~ b' are
    joined by sliding gates have z_ab - z_a'b' = an alternating sum of sliding gates = 0 for as long as those
    slide: they are one gate. If such kink gates were decided differently (one to each side), all of them take
    the side the field moves them to with every one inactive (ReLU'(0) = 0): active if dz/dt > 0, else inactive.
    """
    root = _sliding_roots(p, status)
    classes: dict = {}
    for k in kinks:
        if status[k] != 0:
            a, b = divmod(int(k), p)
            classes.setdefault((root(a), root(p + b)), []).append(int(k))
    out = status.copy()
    for members in classes.values():
        if len({int(out[k]) for k in members}) > 1:
            trial = out.copy()
            trial[members] = -1
            v = _Mode(p, trial, theta).time_derivative(theta)
            a, b = divmod(members[0], p)
            out[members] = 1 if v[a] + v[p + b] > vtol else -1
    return out


def simulate_flow(theta0: np.ndarray, p: int, horizon: float = 1e6) -> Trajectory:
    """The Filippov trajectory of (1.6) from theta0 up to the horizon, kept at ``checkpoint_times(horizon)``.

    theta0: shape (3p,), no gate exactly 0 (true with probability 1 for a Gaussian draw). Returns a
    Trajectory (certify.law.record) with dynamics "flow"; a run that cannot reach the horizon (Zeno, solver
    failure, too many mode changes) has ``failure`` set and the checkpoints it reached. Floats only.
    """
    started = time.perf_counter()
    theta = np.array(theta0, dtype=np.float64)
    if theta.shape != (3 * p,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta0 must be a finite vector of length 3p = {3 * p}, got shape {theta.shape}")
    grid = checkpoint_times(horizon)
    taus = np.log1p(grid)
    tau_end = float(taus[-1])
    z0 = theta[:p, None] + theta[None, p:2 * p]
    if np.any(z0 == 0):
        raise ValueError("theta0 has a gate exactly on its kink; the flow starts from a point off every kink")
    status = np.where(z0.ravel() > 0, 1, -1)

    states = np.empty((grid.size, 3 * p))
    losses = np.empty(grid.size)
    filled = 0
    balance0 = _balance(theta, p)
    drift = 0.0
    loss_excess = 0.0
    last_loss = _loss(theta, p)
    switches = zero_length = 0
    death_time = None
    failure = None
    tau = 0.0
    evaluations = [0]
    held_back = ()
    states[0], losses[0] = theta, last_loss
    filled = 1
    while tau < tau_end:
        mode = _Mode(p, status, theta, held_back)
        if mode.act_a.size == 0:
            death_time = math.expm1(tau)
            break

        def rhs(s, y, mode=mode):
            evaluations[0] += 1
            if evaluations[0] > MAX_EVALUATIONS:
                raise _EvaluationBudget
            return math.exp(s) * mode.time_derivative(y)

        # The crossing events are offset by a hair (EVENT_OFFSET x scale): a gate that has just left a face
        # starts at z = 0 exactly, where a zero-offset event would fire at once or meet a root bracket of
        # one sign; offset, it can only fire once the gate has come back to within the hair of 0.
        hair = EVENT_OFFSET * max(1.0, float(np.abs(theta[:2 * p]).max()))

        def active_min(s, y, mode=mode, hair=hair):
            return float(np.min(y[mode.act_a] + y[p + mode.act_b])) - hair

        events = [active_min]
        if mode.inactive.size:
            ia, ib = np.divmod(mode.inactive, p)

            def inactive_max(s, y, ia=ia, ib=ib, hair=hair):
                return float(np.max(y[ia] + y[p + ib])) + hair

            inactive_max.direction = 1
            inactive_max.terminal = True
            events.append(inactive_max)
        if mode.sl_a.size and mode.forced.size == 0:
            def coefficient_margin(s, y, mode=mode):
                c = mode.coefficients(y)
                return float(np.min(np.minimum(c, 1 - c)))

            coefficient_margin.direction = -1
            coefficient_margin.terminal = True
            events.append(coefficient_margin)
        active_min.direction = -1
        active_min.terminal = True
        try:
            try:
                sol = solve_ivp(rhs, (tau, tau_end), theta, method="LSODA", rtol=RTOL, atol=ATOL, events=events,
                                dense_output=True)
            except ValueError as exc:
                if "different signs" not in str(exc):
                    raise
                # An event function within rounding of 0 at a step (a gate hovering at the offset after a
                # tangential exit) met a root bracket of one sign on the dense output. Integrate the mode
                # again without the gate events: the step-by-step side check below locates the crossing.
                # Integrate the mode again without events: the step-by-step checks below locate the
                # crossing (a gate's side, a sliding coefficient's bounds) on the dense output.
                events = []
                sol = solve_ivp(rhs, (tau, tau_end), theta, method="LSODA", rtol=RTOL, atol=ATOL,
                                dense_output=True)
                sol.t_events = []
        except _EvaluationBudget:
            failure = (f"more than {MAX_EVALUATIONS} field evaluations by t = {math.expm1(tau):.4g} "
                       "(the solver could not get through one mode)")
            break
        except (ValueError, np.linalg.LinAlgError, FloatingPointError) as exc:
            failure = f"solver error: {exc}"
            break
        if sol.status == -1:
            failure = f"solver failure at t = {math.expm1(tau):.4g}: {sol.message}"
            break
        crossed = None
        # validation at every step of this mode (the loss must not rise beyond its error allowance)
        for k in range(sol.y.shape[1]):
            y = sol.y[:, k]
            zs = (y[:p, None] + y[None, p:2 * p]).ravel()
            wrong = np.flatnonzero(((status == -1) & (zs > 1e3 * hair)) | ((status == 1) & (zs < -1e3 * hair)))
            if wrong.size and k == 0:
                failure = "a gate starts a mode on the wrong side of its kink"
                break
            if wrong.size and k > 0:
                # a gate that left a face tangentially (so its offset event could not see it) came back
                # across: locate the crossing on the dense output and treat it as an event there
                gate = int(wrong[0])
                a, b = divmod(gate, p)

                def side(s_, a=a, b=b, sign=float(status[gate])):
                    yy = sol.sol(s_)
                    return sign * (yy[a] + yy[p + b])

                lo, hi = float(sol.t[k - 1]), float(sol.t[k])
                tau_cross = brentq(side, lo, hi, xtol=1e-15) if side(lo) > 0 else lo
                crossed = (gate, tau_cross)
                break
            if mode.sl_a.size:
                # the velocity must stay a Clarke element: coefficients in [0, 1] (with cycles: some
                # admissible coefficients giving the same forces). The event sees the crossing without
                # cycles; this check covers cycles, gates held back at a bound and dropped events.
                gap = mode.inadmissibility(y)
                if gap > INADMISSIBLE and k == 0:
                    failure = "a mode starts with an inadmissible Clarke coefficient"
                    break
                if gap > INADMISSIBLE:
                    def margin(s_, mode=mode):
                        return INADMISSIBLE / 2 - mode.inadmissibility(sol.sol(s_))

                    lo, hi = float(sol.t[k - 1]), float(sol.t[k])
                    crossed = ("coefficient", brentq(margin, lo, hi, xtol=1e-15) if margin(lo) > 0 else lo)
                    break
            loss = _loss(y, p)
            grad = mode.time_derivative(y)
            # the state carries an error <= rtol |y| + atol per component, which moves the loss by at most
            # |grad L|_1 times it; a factor 10 for the accumulation of local errors; plus the rounding of
            # the p^2 log-sum-exp terms of size <= |L| + log p
            allowance = (10 * (RTOL * np.abs(y).max() + ATOL) * np.abs(grad).sum()
                         + 8 * p * p * _EPS * (abs(loss) + math.log(p)))
            loss_excess = max(loss_excess, loss - last_loss - allowance)
            last_loss = loss
            drift = max(drift, abs(_balance(y, p) - balance0) / max(1.0, float(y @ y)))
        if failure is not None:
            break
        if crossed is not None:
            tau_new = crossed[1]
            end_state = sol.sol(tau_new)
        else:
            tau_new = float(sol.t[-1])
            end_state = sol.y[:, -1]
        # checkpoints passed in this mode, from the dense output
        while filled < grid.size and taus[filled] <= tau_new:
            states[filled] = sol.sol(taus[filled]) if taus[filled] < tau_new else end_state
            losses[filled] = _loss(states[filled], p)
            # between solver steps too: a gate that dipped across its kink and back within one step
            zc = (states[filled][:p, None] + states[filled][None, p:2 * p]).ravel()
            if np.any(((status == -1) & (zc > 1e3 * hair)) | ((status == 1) & (zc < -1e3 * hair))):
                failure = f"a gate is on the wrong side of its kink at the checkpoint t = {grid[filled]:.4g}"
            filled += 1
        if failure is not None:
            break
        theta = np.array(end_state, dtype=np.float64)
        if sol.status == 0 and crossed is None:  # reached the horizon
            tau = tau_new
            break
        zero_length = zero_length + 1 if tau_new <= tau * (1 + 4 * _EPS) + 1e-300 else 0
        tau = tau_new
        switches += 1
        if switches > MAX_SWITCHES:
            failure = f"more than {MAX_SWITCHES} mode changes by t = {math.expm1(tau):.4g} (Zeno?)"
            break
        if zero_length > MAX_ZERO_LENGTH:
            failure = f"{MAX_ZERO_LENGTH} successive zero-length modes at t = {math.expm1(tau):.4g} (Zeno)"
            break
        # which event fired, and the gates it concerns
        z = theta[:p, None] + theta[None, p:2 * p]
        zflat = z.ravel()
        kinks = set(np.flatnonzero(status == 0).tolist())
        leaving = {}
        fired = [i for i, te in enumerate(sol.t_events) if te.size]
        name = [] if crossed is not None else [events[i].__name__ for i in fired]
        if crossed is not None and crossed[0] == "coefficient":
            name = ["coefficient_margin"]
        elif crossed is not None:
            kinks.add(crossed[0])
        if "active_min" in name:
            act = np.flatnonzero(status == 1)
            kinks.add(int(act[np.argmin(zflat[act])]))
        if "inactive_max" in name:
            ina = np.flatnonzero(status == -1)
            kinks.add(int(ina[np.argmax(zflat[ina])]))
        if "coefficient_margin" in name and mode.forced.size:
            pass  # with cycles no single gate is known to leave: every kink gate is decided afresh below
        elif "coefficient_margin" in name:
            c = mode.coefficients(theta)
            sl = mode.sl_a * p + mode.sl_b  # the forest's gates, in the order of c
            i = int(np.argmin(np.minimum(c, 1 - c)))
            leaving[int(sl[i])] = -1 if c[i] < 0.5 else 1
        # any other gate that is numerically on its kink at the same instant
        scale = max(1.0, float(np.abs(theta[:2 * p]).max()))
        kinks |= set(np.flatnonzero(np.abs(zflat) <= 1e-9 * scale).tolist())
        kinks_arr = np.array(sorted(kinks), dtype=int)
        theta = _snap(theta, p, kinks_arr)
        try:
            status = _resolve(theta, p, status, kinks_arr, leaving)
            held_back = tuple(k for k in leaving if status[k] == 0)
        except InconsistentMode as exc:
            failure = f"{exc} at t = {math.expm1(tau):.4g}"
            break
        # the gates now held on faces, exactly on them
        theta = _snap(theta, p, np.flatnonzero(status == 0))
    if death_time is None and failure is None and status is not None and not np.any(status == 1):
        death_time = math.expm1(tau)
    if death_time is not None or failure is not None:
        while filled < grid.size and (failure is None):
            states[filled], losses[filled] = theta, _loss(theta, p)
            filled += 1
    # a gate is "on a kink" if within the snapping tolerance of 0 (the faces are restored at every event
    # and Radau keeps linear invariants up to rounding)
    band = 1e-7 * max(1.0, float(np.abs(theta[:2 * p]).max()))
    return Trajectory(p=p, dynamics="flow", horizon=float(horizon), times=grid[:filled], states=states[:filled],
                      losses=losses[:filled], death_time=death_time, kink_band=band,
                      max_loss_increase=max(0.0, loss_excess), balance_drift=drift, failure=failure,
                      switches=switches, seconds=time.perf_counter() - started)
