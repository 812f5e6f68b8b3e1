"""Full-batch gradient descent with ReLU'(0) = 0 (Theorem A.4's setting), vectorised across samples.

theta_{k+1} = theta_k - eta grad L(theta_k), L the loss (1.1), the gradient that of
``certify.numeric.model.gradient(..., relu_prime_at_zero=0)`` ((A.3)-(A.7): a gate with z <= 0 contributes
nothing). Time is t = k eta. A whole batch of initial points advances together, one array operation per step
for the batch; only the active examples (z > 0) are formed, so the softmax costs p exponentials per active
gate. A sample with every gate <= 0 has gradient exactly 0 (slope 0 and h = 0 at every example), so its
state is final: it is recorded as dead and leaves the batch.

Floats, empirical, never a bound: the checks recorded beside each trajectory (loss increase beyond a
rounding allowance, the balance accounting of (A.10)) validate the arithmetic, they certify nothing.
"""

from __future__ import annotations

import math
import time

import numpy as np

from certify.law.record import Trajectory, checkpoint_times
from certify.numeric.model import gradient

__all__ = ["balance_step_constant", "batch_gradient_and_loss", "checkpoint_steps", "loss_allowance", "simulate_gd"]

#: Unit roundoff of float64 (half the machine epsilon): |fl(x op y) - (x op y)| <= U |x op y|.
U = np.finfo(np.float64).eps / 2


def checkpoint_steps(times: np.ndarray, eta: float) -> np.ndarray:
    """For each checkpoint time t, the first step k with k * eta >= t (evaluated in floats, as the time
    t = k eta of the run is): ceil(t / eta), corrected by one where the float quotient rounded across an
    integer. The state recorded at checkpoint t is theta_k for this k."""
    steps = []
    for t in np.asarray(times, dtype=np.float64):
        k = max(0, math.ceil(t / eta))
        while k > 0 and (k - 1) * eta >= t:
            k -= 1
        while k * eta < t:
            k += 1
        steps.append(k)
    return np.array(steps, dtype=np.int64)


class _Batch:
    """Index tables and buffers for a batch of m samples. For the flat index i = (s p + a) p + b of the
    (m, p, p) gate array: the sample s, the flat v-index s p + b and the flat label index s p + (a + b mod p)
    (the flat u-index s p + a is i // p). The exponentials are laid out as (p, K) for K active examples, so
    the sums over c run along the leading axis (p - 1 vectorised adds, in the order c = 0, 1, ...)."""

    def __init__(self, m: int, p: int):
        a = np.arange(p)
        b_of = np.tile(a, p)                          # b for ab = a p + b
        y_of = (np.repeat(a, p) + b_of) % p           # (a + b) mod p
        base = np.repeat(np.arange(m, dtype=np.int64) * p, p * p)
        self.sample = np.repeat(np.arange(m, dtype=np.int64), p * p)
        self.v_index = base + np.tile(b_of, m)
        self.y_index = base + np.tile(y_of, m)
        self.gates = np.empty((m, p, p))
        self.active = np.empty((m, p, p), dtype=bool)
        self.exp = self.aux = np.empty(0)

    def buffers(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Two scratch arrays of at least ``size`` floats (grown by a quarter beyond the need, never shrunk)."""
        if self.exp.size < size:
            self.exp, self.aux = np.empty(size + size // 4), np.empty(size + size // 4)
        return self.exp, self.aux


def _gradient_and_loss(theta: np.ndarray, p: int, batch: _Batch):
    """(p^2 grad L of shape (m, 3p), L of shape (m,), active-gate counts (m,)) at the rows of ``theta``;
    ``batch.active`` holds the pattern z > 0 afterwards.

    The loss (1.1) and the gradient (A.3)-(A.7) with ReLU'(0) = 0 share the softmax. Per active example
    (s, a, b) with gate z > 0 and label y = a + b mod p, with w' = w - max(w) (so z w' <= 0, every
    exponential lies in (0, 1] and S = sum_c e^{z w'_c} lies in [1, p]):
        q_c = e^{z w'_c} / S,   g = sum_c q_c w'_c - w'_y  (= q . w - w_y, the g_y of (A.3)-(A.6)),
        loss term log S - z w'_y  (= lse(z w) - z w_y),
    gu(a), gv(b) collect g, gw(c) collects z q_c minus z at c = y (A.7), each sum in the order of the
    examples (a, then b); the caller divides by p^2. An inactive example contributes log p to the loss and
    nothing else (h = 0, slope 0). A row with no active gate gets gradient exactly 0, loss (p^2 log p)/p^2."""
    m = theta.shape[0]
    pp = p * p
    U3, V3, W = theta[:, :p], theta[:, p:2 * p], theta[:, 2 * p:]
    Z, active = batch.gates, batch.active
    np.add(U3[:, :, None], V3[:, None, :], out=Z)
    np.greater(Z, 0.0, out=active)
    flat = np.flatnonzero(active)                     # ascending, so grouped by sample
    K = flat.size
    z = Z.ravel()[flat]
    s = batch.sample[flat]
    su = flat // p
    sv = batch.v_index[flat]
    sy = batch.y_index[flat]
    counts = np.bincount(s, minlength=m)
    Wc = W - W.max(axis=1)[:, None]                   # w' = w - max w <= 0
    ebuf, abuf = batch.buffers(p * K)
    Gw = abuf[:p * K].reshape(p, K)
    np.take(np.ascontiguousarray(Wc.T), s, axis=1, out=Gw, mode="clip")   # Gw[c, i] = w'_c of example i's sample
    E = ebuf[:p * K].reshape(p, K)
    np.multiply(Gw, z, out=E)
    np.exp(E, out=E)
    S = E.sum(axis=0)
    wy = Wc.ravel()[sy]
    g = np.einsum("ci,ci->i", E, Gw) / S - wy
    terms = np.log(S) - z * wy
    loss = ((pp - counts) * math.log(p) + np.bincount(s, weights=terms, minlength=m)) / pp
    grad = np.empty((m, 3 * p))
    grad[:, :p] = np.bincount(su, weights=g, minlength=m * p).reshape(m, p)
    grad[:, p:2 * p] = np.bincount(sv, weights=g, minlength=m * p).reshape(m, p)
    E *= z / S                                        # z q_c
    gw = grad[:, 2 * p:]
    starts = np.cumsum(counts) - counts
    live = counts > 0
    if K and live.all():
        gw[:] = np.add.reduceat(E, starts, axis=1).T
    else:
        gw[:] = 0.0
        if K:
            gw[live] = np.add.reduceat(E, starts[live], axis=1).T
    gw -= np.bincount(sy, weights=z, minlength=m * p).reshape(m, p)
    return grad, loss, counts


def batch_gradient_and_loss(thetas: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(grad L of shape (n, 3p), L of shape (n,)) at each row of ``thetas`` (shape (n, 3p)): the loss (1.1)
    and its gradient with ReLU'(0) = 0, (A.3)-(A.7), exactly what :func:`simulate_gd` steps with. The same
    vector field as ``certify.numeric.model.gradient(u, v, w, relu_prime_at_zero=0)``, the floats differing
    by the order of summation (at most ~ 2 (p^2 + 2p + 10) eps (max|w| + max z) per component)."""
    thetas = _check_thetas(thetas, p)
    with np.errstate(all="ignore"):
        grad, loss, _ = _gradient_and_loss(thetas, p, _Batch(thetas.shape[0], p))
    return grad / (p * p), loss


def _check_thetas(thetas, p) -> np.ndarray:
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 2:
        raise ValueError(f"p must be an integer >= 2, got {p!r}")
    thetas = np.array(thetas, dtype=np.float64)
    if thetas.ndim != 2 or thetas.shape[1] != 3 * p:
        raise ValueError(f"thetas must have shape (n, 3p) = (n, {3 * p}), got {thetas.shape}")
    if thetas.shape[0] == 0:
        raise ValueError("thetas must hold at least one initial point")
    if not np.all(np.isfinite(thetas)):
        raise ValueError("the initial points must be finite")
    return thetas


def loss_allowance(p: int, loss_before: np.ndarray, loss_after: np.ndarray) -> np.ndarray:
    """Rounding allowance for L_{k+1} - L_k, both losses computed by :func:`_gradient_and_loss`.

    One computed loss: each active term log S - z w'_y is a sum of two non-negative parts (S in [1, p],
    w'_y <= 0), each with error <= (p + 3) U + 2 U |part| (S sums p exponentials, each exact to ~U plus
    U |z w'_c| e^{z w'_c} <= U/e); the <= p^2 terms are added one after another (bincount), error <= p^2 U
    times their sum, which is <= p^2 L; the inactive part (p^2 - n) log p adds ~U p^2 log p. Divided by p^2:
    |delta L| <= p^2 U (L + log p) + (p + 6) U. Two losses, U = eps/2, and a factor of 2 for the
    second-order terms: 2 p^2 eps (|L_k| + |L_{k+1}| + 2 log p) / 2 + 2 (p + 6) eps, bounded above by
        4 p^2 eps (max(|L_k|, |L_{k+1}|) + log p) + 2 (p + 6) eps."""
    eps = np.finfo(np.float64).eps
    return 4 * p * p * eps * (np.maximum(np.abs(loss_before), np.abs(loss_after)) + math.log(p)) + 2 * (p + 6) * eps


def balance_step_constant(p: int, eta: float) -> float:
    """C with |B_{k+1} - pred_{k+1}| <= |B_k - pred_k| + C U M (M = the largest max(1, |theta_j|^2) so far).

    Real arithmetic: B(theta - eta G) - B(theta) = -2 eta <theta, D G> + eta^2 <G, D G>, D = diag(1, 1, -1)
    on the blocks (u, v, w); the first term vanishes for the exact gradient (u.gu + v.gv = w.gw = sum over
    active examples of z g / p^2), the second is what the prediction adds. In floats, per step:
      (a) rounding the update theta - fl(eta G): each coordinate off by <= U (|eta G_i| + |theta'_i|), so B
          off by <= 2 U (|theta'| eta |G| + |theta'|^2); with |G|^2 <= 8 max|w|^2/p + 16 max|theta|^2
          <= 18 |theta|^2 (|g| <= 2 max|w|, |gw|_1 <= 2 max z <= 4 max|theta|): <= 2 U (1 + 5 eta) M;
      (b) the computed gradient is off by <= 2 (p^2 + 2p + 10) U (max|w| + max z) <= 6 (p^2 + 2p + 10) U |theta|
          per component (see batch_gradient_and_loss), so the first-order term is off by
          <= 2 eta |theta| sqrt(3p) 6 (p^2 + 2p + 10) U |theta| = 12 sqrt(3p) (p^2 + 2p + 10) eta U M;
      (c) the predicted increment eta^2 <G, D G> is a sum of 3p squares: off by <= (3p + 3) U 18 eta^2 M;
      (d) adding it to the prediction: <= U |pred| <= U M (+ the drift itself, negligible).
    A factor of 2 covers the second-order terms."""
    return 2 * (2 * (1 + 5 * eta) + 12 * math.sqrt(3 * p) * (p * p + 2 * p + 10) * eta + 18 * (3 * p + 3) * eta**2 + 1)


def kink_band_per_gate(theta: np.ndarray, p: int, eta: float) -> np.ndarray:
    """For each gate (a, b) (row-major, p^2 values): eta (|gu(a) + gv(b)| + 2 |gamma_y(w)| / p^2), gu, gv of
    the gradient with ReLU'(0) = 0 at theta and y = a + b mod p.

    One step moves z_ab by eta |gu(a) + gv(b)| with the gate itself inactive; active, its own term adds at most
    2 |g_y(z, w)| / p^2, which is 2 |gamma_y| / p^2 + O(z) near the kink (g_y(0, w) = gamma_y, (A.8)). A gate
    chattering across its kink (GD's version of sliding) stays within this distance of 0, so the patterns
    count a gate that close as "on its kink". Floats; a description of the state, not a bound."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    gu, gv, _ = gradient(u, v, w, relu_prime_at_zero=0.0)
    y = (np.arange(p)[:, None] + np.arange(p)[None, :]) % p
    gamma = w.mean() - w[y]
    return (eta * (np.abs(gu[:, None] + gv[None, :]) + 2 * np.abs(gamma) / p ** 2)).ravel()


def simulate_gd(thetas: np.ndarray, p: int, eta: float, horizon: float) -> list[Trajectory]:
    """Gradient descent theta_{k+1} = theta_k - eta grad L(theta_k) (ReLU'(0) = 0, Theorem A.4) from each
    row of ``thetas`` (shape (n, 3p)), steps k = 0 .. K with K the first step with K eta >= horizon
    (= ceil(horizon / eta)); one Trajectory per row, in order.

    Guarantees of each record (floats, empirical):
      times, states, losses  the checkpoints of ``checkpoint_times(horizon)``; the state at checkpoint t is
                             theta_k at the first step k with k eta >= t (:func:`checkpoint_steps`), so the
                             horizon's is theta_K, the state after the last step; losses are (1.1) there.
                             A dead sample's later checkpoints hold its final state.
      death_time             k eta at the first step k with every gate u(a) + v(b) <= 0 (then grad L = 0
                             exactly and theta_n = theta_k for n >= k), else None.
      max_loss_increase      max over steps of L_{k+1} - L_k - :func:`loss_allowance` (0 if never positive);
                             GD need not decrease the loss (a step may jump past a kink or overshoot),
                             so a positive value is a property of the run, not only of its arithmetic.
      balance_drift          max_k |B_k - pred_k| / max(1, |theta_k|^2), B = |u|^2 + |v|^2 - |w|^2 of (A.10)
                             and pred_k = B_0 + sum_{j<k} eta^2 (|gu_j|^2 + |gv_j|^2 - |gw_j|^2), which is B_k
                             in real arithmetic (GD does not conserve B; the first-order change cancels).
                             extra["balance_tolerance"] = max_k (k C + 6p + 2) U M_k / max(1, |theta_k|^2)
                             (C of :func:`balance_step_constant`, M_k = max_{j<=k} max(1, |theta_j|^2), 6p + 2
                             for measuring B_0 and B_k): a rounding bound the drift stays below when the
                             arithmetic and the bookkeeping are right.
      kink_band              per gate (p^2 values, row-major): :func:`kink_band_per_gate` at the final state,
                             how far the next step can move the gate from either side of its kink.
      failure                "non-finite state at step k" if the state, |theta|^2 or the loss stopped being
                             finite at step k (the record then ends at the checkpoints before k; it always
                             holds t = 0), else None.
      switches = 0; seconds = wall time of the whole batch divided by n; extra["eta"] = eta,
      extra["steps"] = the last step evaluated, extra["loss_rises"] = the number of steps whose loss rose
      beyond the allowance, extra["smooth_loss_increase"] = max_loss_increase over the steps that changed
      no gate's sign (pattern z > 0 the same before and after), where L is smooth: GD at eta = 1 raises the
      loss at kink crossings in practice (the gradient jumps there), almost never on a smooth piece.
    """
    start = time.perf_counter()
    thetas = _check_thetas(thetas, p)
    if isinstance(eta, bool) or not isinstance(eta, (int, float, np.floating, np.integer)):
        raise ValueError(f"eta must be a positive finite number, got {eta!r}")
    eta = float(eta)
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError(f"eta must be a positive finite number, got {eta!r}")
    times = checkpoint_times(horizon)                 # validates the horizon
    horizon = float(horizon)
    steps = checkpoint_steps(times, eta)
    last = int(steps[-1])
    n, J, dim, pp = thetas.shape[0], len(times), 3 * p, p * p
    step_c = balance_step_constant(p, eta)

    states = np.zeros((n, J, dim))
    losses = np.zeros((n, J))
    recorded = np.full(n, J, dtype=np.int64)          # checkpoints held per sample
    death = [None] * n
    failure = [None] * n
    final_step = np.full(n, last, dtype=np.int64)
    max_inc = np.zeros(n)
    drift = np.zeros(n)
    tolerance = np.zeros(n)

    ids = np.arange(n)
    theta = thetas.copy()
    batch = _Batch(n, p)
    prev_loss = np.zeros(n)
    pred = np.zeros(n)
    top = np.ones(n)                                  # M_k
    run_drift = np.zeros(n)
    run_tol = np.zeros(n)
    run_inc = np.zeros(n)
    prev_active = np.zeros((n, p, p), dtype=bool)   # the pattern z > 0 of the previous step
    run_rises = np.zeros(n, dtype=np.int64)
    run_smooth = np.zeros(n)
    rises = np.zeros(n, dtype=np.int64)
    smooth_inc = np.zeros(n)
    j = 0
    k = 0
    with np.errstate(all="ignore"):
        while True:
            grad, loss, counts = _gradient_and_loss(theta, p, batch)
            # row sums, not a matrix product: BLAS rounds a product differently with the batch size, and a
            # sample's row must not depend on which batch it was in
            sq = np.square(theta)
            uv2, w2 = sq[:, :2 * p].sum(axis=1), sq[:, 2 * p:].sum(axis=1)
            B, norm2 = uv2 - w2, uv2 + w2
            size = np.maximum(1.0, norm2)
            if k == 0:
                pred = B.copy()
            else:
                rise = loss - prev_loss - loss_allowance(p, prev_loss, loss)
                run_inc = np.fmax(run_inc, rise)
                run_rises += rise > 0
                # a step that changed no gate's sign stayed on one smooth piece of L
                smooth = ~np.any(batch.active != prev_active, axis=(1, 2))
                run_smooth = np.fmax(run_smooth, np.where(smooth, rise, 0.0))
            prev_active = batch.active.copy()
            np.maximum(top, size, out=top)
            run_drift = np.fmax(run_drift, np.abs(B - pred) / size)
            run_tol = np.fmax(run_tol, (k * step_c + 6 * p + 2) * U * top / size)
            bad = ~(np.isfinite(loss) & np.isfinite(norm2))
            while j < J and steps[j] == k:
                states[ids, j] = theta
                losses[ids, j] = loss
                j += 1
            dead = counts == 0
            done = bad | dead if k < last else np.ones(len(ids), dtype=bool)
            if done.any():
                for r in np.flatnonzero(done):
                    i = ids[r]
                    max_inc[i], drift[i], tolerance[i], final_step[i] = run_inc[r], run_drift[r], run_tol[r], k
                    rises[i], smooth_inc[i] = run_rises[r], run_smooth[r]
                    if bad[r]:
                        failure[i] = f"non-finite state at step {k}"
                        # the checkpoints before step k, and always t = 0 (the validated, finite input)
                        recorded[i] = max(1, int(np.searchsorted(steps, k, side="left")))
                    elif dead[r]:
                        death[i] = k * eta
                        states[i, j:] = theta[r]
                        losses[i, j:] = loss[r]
                keep = ~done
                if not keep.any():
                    break
                ids, theta, grad, loss, pred = ids[keep], theta[keep], grad[keep], loss[keep], pred[keep]
                top, run_drift, run_tol, run_inc = top[keep], run_drift[keep], run_tol[keep], run_inc[keep]
                run_rises, run_smooth, prev_active = run_rises[keep], run_smooth[keep], prev_active[keep]
                batch = _Batch(len(ids), p)
            grad /= pp                                # grad L, as model.gradient returns it
            g2 = np.square(grad)
            pred += (eta * eta) * (g2[:, :2 * p].sum(axis=1) - g2[:, 2 * p:].sum(axis=1))
            theta -= eta * grad
            prev_loss = loss
            k += 1

    seconds = (time.perf_counter() - start) / n
    out = []
    for i in range(n):
        m = recorded[i]
        final = states[i, m - 1] if m else thetas[i]
        band = kink_band_per_gate(final, p, eta)
        out.append(Trajectory(
            p=p, dynamics="gd", horizon=horizon, times=times[:m].copy(), states=states[i, :m].copy(),
            losses=losses[i, :m].copy(), death_time=death[i], kink_band=band,
            max_loss_increase=float(max(0.0, max_inc[i])), balance_drift=float(drift[i]), failure=failure[i],
            switches=0, seconds=seconds,
            extra={"eta": eta, "balance_tolerance": float(tolerance[i]), "steps": int(final_step[i]),
                   "loss_rises": int(rises[i]), "smooth_loss_increase": float(max(0.0, smooth_inc[i]))}))
    return out
