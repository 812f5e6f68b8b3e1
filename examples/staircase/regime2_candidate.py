"""Is Lambda - D z11/2 nonincreasing along the (1, 2) staircases of `certify law`? (docs/staircase.md, section 11.2)

    python examples/staircase/regime2_candidate.py LAW_DIR [LAW_DIR ...] [--limit N]

Section 11.2 names a candidate second quantity for regime II: Q = Lambda - D z11/2, with Lambda the loss of the
three active examples, D = w(0) - w(1) and z11 the fourth gate (<= 0). By (S.22) a bound Q < 3 log 2 + b bounds the
tails of the three gates by b. For every sample of a law folder classified as a k = 2 staircase with one common
step, this re-simulates the trajectory (the law's draw and simulator), relabels each checkpoint (as
entrance.py does) and, from the first checkpoint where the three gates are the only active ones, prints:

* the largest increase of Q between consecutive checkpoints (a positive value: Q is not monotone there);
* the largest force ratios (A - g_1(r))/(2 gamma_min), (A - g_1(c))/(2 gamma_min) and (-g_1(r) - g_1(c))/(2 gamma_2)
  met (Lemma S.5 needs the first two < 1 while a boundary gate is on its kink, section 11.2 the third);
* Lambda - 3 log 2, z11 and D at the horizon;
* section 11.4: the first checkpoint from which the gate (1, 1) stays on its kink (within the simulator's kink
  band of 0) to the horizon, and after it the largest (q_0(r) + q_0(c)) D / tau and (tau - (q_0(r) + q_0(c)) D) /
  (2 gamma_2), tau = sum_{j >= 2} (q_j(r) + q_j(c)) (W1 - w(j)): Lemma S.9's sliding condition is that both
  stay below 1;
* section 11.6: the sign of D at that checkpoint, and the first later checkpoint where Lambda - 3 log 2 <
  b_II(p, rho) (Theorem S2's window, (S.27), by float bisection).

Checkpoints only (log-spaced), floats only: evidence about a conjecture, never a proof.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entrance import canonical, command_line, ell, staircase_runs  # noqa: E402  (entrance.py's relabelling, loss, runs)


def softmax(z: float, w: np.ndarray) -> np.ndarray:
    """q(z) = softmax(z w) (A.4)."""
    a = z * w
    q = np.exp(a - a.max())
    return q / q.sum()


def force(z: float, w: np.ndarray, y: int) -> float:
    """g_y(z) = sum_c q_c(z) w(c) - w(y) (A.4)."""
    return float(softmax(z, w) @ w - w[y])


def twin_budget(p: int, rho: float) -> float:
    """b_II(p, rho) of docs/staircase.md section 11.5: the supremum of b in [0, log(p/4)/2) with Phi(b; p, rho) < 2
    ((S.27)), by bisection in floats (Phi increases in b)."""
    top = math.log(p / 4)

    def phi(b):
        kappa = 2 * (math.log(2) + b) / (top - 2 * b)
        w1 = (1 + kappa) * (p - 2) * rho / (2 + kappa)
        return b * (w1 + rho) + 2 * math.acosh(math.exp(b)) * w1 / (top - b)
    low, high = 0.0, top / 2 * (1 - 1e-12)
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if phi(middle) < 2 else (low, middle)
    return low


def measures(u, v, w, band: float):
    """(three gates the only active ones, Q, force ratios, Lambda, z11, D, gate (1, 1) on its kink, Lemma S.9's
    two ratios) of a canonical state; a gate within the simulator's kink band of 0 counts as on its kink (as in
    entrance.py)."""
    z = u[:, None] + v[None, :]
    X, r, c, z11 = z[0, 0], z[0, 1], z[1, 0], z[1, 1]
    others = np.ones_like(z, dtype=bool)
    others[0, 0] = others[0, 1] = others[1, 0] = False
    pattern = X > band and r > band and c > band and bool(np.all(z[others] <= band))
    lam = ell(X, w, 0) + ell(r, w, 1) + ell(c, w, 1)
    D = w[0] - w[1]
    gamma = w.mean() - w[2:]
    A = -force(X, w, 0)
    ratios = ((A - force(r, w, 1)) / (2 * gamma.min()), (A - force(c, w, 1)) / (2 * gamma.min()),
              (-force(r, w, 1) - force(c, w, 1)) / (2 * gamma[0]))
    qr, qc = softmax(r, w), softmax(c, w)
    tau = float((qr[2:] + qc[2:]) @ (w[1] - w[2:]))
    push = float((qr[0] + qc[0]) * D)
    sliding = (push / tau, (tau - push) / (2 * gamma[0]))
    rho = float(gamma.max() / gamma.min()) if gamma.min() > 0 else math.inf
    in_window = math.isfinite(rho) and lam - 3 * math.log(2) < twin_budget(len(w), rho)
    return pattern, lam - D * min(z11, 0.0) / 2, ratios, lam, z11, D, abs(z11) <= band, sliding, in_window


def main(argv=None) -> int:
    args = command_line(argv)
    for folder in map(Path, args.folders):
        p, rows, trajectory_of = staircase_runs(folder, args.limit)
        rises, worst, captures = [], [], []
        for row in rows:
            trajectory = trajectory_of(row)
            if trajectory is None:
                continue
            rws, cols = [int(x) for x in row["rows"].split()], [int(x) for x in row["columns"].split()]
            band = float(np.max(trajectory.kink_band))
            states = [measures(*canonical(s, p, rws, cols, int(row["delta"])), band) for s in trajectory.states]
            start = next((i for i, m in enumerate(states) if m[0] and all(n[0] for n in states[i:])), None)
            if start is None:
                print(f"p = {p}, sample {row['index']}: the pattern is not kept to the horizon from any checkpoint")
                continue
            q = [m[1] for m in states[start:]]
            rise = max((b - a for a, b in zip(q, q[1:])), default=0.0)
            ratio = max(max(m[2]) for m in states[start:])
            rises.append(rise)
            worst.append(ratio)
            lam, z11, D = states[-1][3], states[-1][4], states[-1][5]
            captured = next((i for i in range(start, len(states)) if all(m[6] for m in states[i:])), None)
            window = None if captured is None else next(
                (i for i in range(captured, len(states)) if states[i][8]), None)
            face = "the gate (1, 1) is not on its kink at the horizon" if captured is None else (
                f"the gate (1, 1) on its kink from t = {trajectory.times[captured]:.3g} with D = "
                f"{states[captured][5]:+.2g}, then largest push/tau "
                f"{max(m[7][0] for m in states[captured:]):.3g} and (tau - push)/(2 gamma_2) "
                f"{max(m[7][1] for m in states[captured:]):.3g}; Theorem S2's window from t = "
                + ("never" if window is None else f"{trajectory.times[window]:.3g}"))
            captures.append(captured is not None)
            print(f"p = {p}, sample {row['index']}: from t = {trajectory.times[start]:.3g}, largest rise of Q = "
                  f"{rise:.3g}, largest force ratio {ratio:.3g}; at the horizon Lambda - 3 log 2 = "
                  f"{lam - 3 * math.log(2):.2g}, z11 = {z11:.2g}, D = {D:.2g}; {face}")
        if rises:
            print(f"p = {p}: {sum(r <= 0 for r in rises)} of {len(rises)} staircases have Q nonincreasing over the "
                  f"checkpoints; the largest rise is {max(rises):.3g}; the largest force ratio is {max(worst):.3g}; "
                  f"{sum(captures)} end with the gate (1, 1) on its kink")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
