"""Do the (1, 2) staircases of `certify law` enter the region of Theorem S? (docs/staircase.md, section 7)

    python examples/staircase/entrance.py LAW_DIR [LAW_DIR ...] [--limit N]

For every sample of a `certify law` folder classified as a staircase with k = 2 and one common step, this
re-simulates the trajectory (the same draw and simulator as the law), relabels each checkpoint state to the
canonical form of docs/staircase.md section 1.3 (rows a0, a0 + delta, columns b0, b0 + delta, labels
a0 + b0 + m delta), and tests the hypotheses of Theorem S in floats: the pattern P (section 3.1; a boundary gate
within the simulator's kink band of 0 counts as on its kink), and Lambda < 2 log 2 + 2/((p - 1) rho) (S.10). It
prints, per sample, the first checkpoint time from which every later checkpoint satisfies them, and the purity
margin delta of (S.15) there when rho < 2 - sqrt(F_0); for a sample never inside, Lambda - 3 log 2, z11 and
D = w(0) - w(1) at the horizon (regime II of section 6 has Lambda -> 3 log 2, z11 -> 0, D -> 0).

This is evidence, not proof: the state is a float simulation and the test is made in floats. It answers how
much of the measured (1, 2) share Theorem S would cover from some finite time on, if the simulation is
accurate: the link docs/staircase.md section 7 proposes (a validated enclosure up to an entrance time, then
Theorem S) for a certificate.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np


def canonical(state: np.ndarray, p: int, rows: list[int], columns: list[int], delta: int):
    """(u, v, w) relabelled so the staircase's gates are (0, 0), (0, 1), (1, 0) (section 1.1)."""
    u, v, w = state[:p], state[p:2 * p], state[2 * p:]
    a0, b0 = rows[0], columns[0]
    index = np.arange(p)
    return u[(a0 + index * delta) % p], v[(b0 + index * delta) % p], w[(a0 + b0 + index * delta) % p]


def ell(z: float, w: np.ndarray, y: int) -> float:
    """(A.2): log sum_c e^{z w(c)} - z w(y), computed stably."""
    a = z * w
    top = a.max()
    return top + math.log(np.exp(a - top).sum()) - a[y]


def theorem_s_test(u, v, w, p: int, band: float):
    """(in_region, Lambda - threshold, rho, delta or None) for a canonical state, in floats (section 3.1, (S.15))."""
    z = u[:, None] + v[None, :]
    X, r, c = z[0, 0], z[0, 1], z[1, 0]
    boundary = np.zeros((p, p), dtype=bool)
    boundary[0, 2:] = boundary[2:, 0] = True
    active = np.zeros((p, p), dtype=bool)
    active[0, 0] = active[0, 1] = active[1, 0] = True
    gamma = w.mean() - w[2:]
    ok = X > 0 and r > 0 and c > 0 and np.all(z[boundary] <= band) and np.all(z[~boundary & ~active] < -band) \
        and np.all(gamma > 0)
    if not np.all(gamma > 0):
        return False, math.inf, math.inf, None
    rho = gamma.max() / gamma.min()
    lam = ell(X, w, 0) + ell(r, w, 1) + ell(c, w, 1)
    excess = lam - (2 * math.log(2) + 2 / ((p - 1) * rho))
    f0 = 2 * (1 + math.cos(2 * math.pi / p)) / (p - 2)
    delta = None
    if ok and excess < 0 and math.sqrt(f0) + rho - 1 < 1:
        S = gamma.sum()
        L = S * S / 2 + gamma @ gamma
        c_plus = max(0.0, p * w.mean() ** 2 + (u @ u + v @ v - w @ w))
        delta = (1 - (math.sqrt(f0) + rho - 1) ** 2) * L / (2 * L + c_plus)
    return bool(ok and excess < 0), excess, rho, delta


def staircase_runs(folder: Path, limit: int | None):
    """(p, its k = 2 staircase rows with one common step, at most ``limit``, and a function re-simulating a row's
    trajectory with the law's draw and simulator) of a `certify law` folder."""
    from certify.law.flow import simulate_flow
    from certify.law.sampling import draw_initial

    run = json.loads((folder / "run.json").read_text())
    p, horizon, seed, sigma = int(run["p"]), float(run["horizon"]), int(run["seed"]), float(run["sigma"])
    with open(folder / "samples.csv") as handle:
        rows = [row for row in csv.DictReader(handle)
                if row["outcome"] == "staircase" and row["k"] == "2" and row["delta"]]
    rows = rows[:limit] if limit else rows

    def trajectory_of(row):
        trajectory = simulate_flow(draw_initial(p, sigma, seed, int(row["index"])).theta, p, horizon)
        if trajectory.failure:
            print(f"p = {p}, sample {row['index']}: simulation failed ({trajectory.failure})", file=sys.stderr)
            return None
        return trajectory
    return p, rows, trajectory_of


def command_line(argv):
    """The folders and --limit of this script and of regime2_candidate.py."""
    parser = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--limit", type=int, default=None, help="at most N staircases per folder")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = command_line(argv)
    for folder in map(Path, args.folders):
        p, rows, trajectory_of = staircase_runs(folder, args.limit)
        entered, deltas, never, regime_two = [], [], 0, 0
        for row in rows:
            trajectory = trajectory_of(row)
            if trajectory is None:
                continue
            rws = [int(x) for x in row["rows"].split()]
            cols = [int(x) for x in row["columns"].split()]
            step = int(row["delta"])
            band = float(np.max(trajectory.kink_band))
            inside = []
            for state in trajectory.states:
                inside.append(theorem_s_test(*canonical(state, p, rws, cols, step), p, band))
            # the first checkpoint from which every later one is inside
            first = None
            for i in range(len(inside) - 1, -1, -1):
                if not inside[i][0]:
                    break
                first = i
            if first is None:
                never += 1
                last = inside[-1]
                cu, cv, cw = canonical(trajectory.states[-1], p, rws, cols, step)
                z11, lam = cu[1] + cv[1], ell(cu[0] + cv[0], cw, 0) + ell(cu[0] + cv[1], cw, 1) \
                    + ell(cu[1] + cv[0], cw, 1)
                regime_two += abs(lam - 3 * math.log(2)) < 0.01
                print(f"p = {p}, sample {row['index']}: not in S_stair at the horizon "
                      f"(Lambda - threshold = {last[1]:.3g}, rho = {last[2]:.4g}; Lambda - 3 log 2 = "
                      f"{lam - 3 * math.log(2):.2g}, z11 = {z11:.2g}, D = {cw[0] - cw[1]:.2g})")
                continue
            entered.append(float(trajectory.times[first]))
            deltas.append(inside[first][3])
            print(f"p = {p}, sample {row['index']}: in S_stair from t = {trajectory.times[first]:.3g} on, "
                  f"rho = {inside[first][2]:.4g}, delta = "
                  f"{'n/a (rho too large)' if inside[first][3] is None else f'{inside[first][3]:.3g}'}")
        n = len(entered) + never
        print(f"p = {p}: {len(entered)} of {n} (1, 2) staircases with a common step are in S_stair from some "
              f"checkpoint on (median entrance t = {np.median(entered) if entered else float('nan'):.3g}); "
              f"{sum(d is not None for d in deltas)} of them with rho < 2 - sqrt(F_0) (a margin delta); of the "
              f"{never} others, {regime_two} have |Lambda - 3 log 2| < 0.01 at the horizon (regime II, section 6)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
