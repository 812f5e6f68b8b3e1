"""Does the loss window of regime II bound the boundary gates' force? (docs/staircase.md, section 11.2)

    python examples/staircase/regime2_window.py P [P ...]

On a grid of states of the (1, 2) pattern with rho = 1 (w = (W1 + D, W1, 0, ..., 0)), D > 0 and the gate (1, 1)
at z11 = -30, it keeps those with W1 > mu and Lambda < 3 log 2 + 2/(p - 1), and prints the largest ratio
(A - g_1(r)) / (2 gamma_min) among them with its state. A ratio above 1 is a state of the window where the force
bound of Lemma S.5 fails. Floats over a grid: evidence, not a bound.
"""

from __future__ import annotations

import sys

import numpy as np


def worst_state(p: int):
    """(ratio, W1, D, X, r, c, Lambda) with the largest ratio on the grid, or None if no state is in the window."""
    best = None
    budget = 3 * np.log(2) + 2 / (p - 1)
    for w1 in np.geomspace(0.1, 100, 40):
        for d in np.geomspace(0.01, 10, 30):
            w = np.zeros(p)
            w[0], w[1] = w1 + d, w1
            mu = w.mean()
            if not w1 > mu:
                continue
            for r in np.geomspace(0.01, 10, 30):
                for c in np.geomspace(0.1, 30, 20):
                    x = r + c + 30
                    ell = [np.log(np.exp(z * (w - w[y])).sum()) for z, y in ((x, 0), (r, 1), (c, 1))]
                    if not sum(ell) < budget:
                        continue
                    q = [np.exp(z * (w - w.max())) / np.exp(z * (w - w.max())).sum() for z in (x, r)]
                    force = (w[0] - q[0] @ w) + (w[1] - q[1] @ w)
                    ratio = force / (2 * mu)
                    if best is None or ratio > best[0]:
                        best = (ratio, w1, d, x, r, c, sum(ell))
    return best


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or not all(a.isdigit() and int(a) >= 5 for a in argv):
        print("regime2_window: give one or more primes P >= 5", file=sys.stderr)
        return 2
    for p in map(int, argv):
        best = worst_state(p)
        if best is None:
            print(f"p = {p}: no grid state in the window")
            continue
        ratio, w1, d, x, r, c, lam = best
        print(f"p = {p}: largest (A - g_1(r))/(2 gamma_min) = {ratio:.3f} at W1 = {w1:.4g}, D = {d:.4g}, "
              f"X = {x:.4g}, r = {r:.4g}, c = {c:.4g} (Lambda - 3 log 2 = {lam - 3 * np.log(2):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
