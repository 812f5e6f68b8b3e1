"""Theorem S1 by an independent route: full-network Clarke flows from random points of U_1 (docs/staircase.md,
section 10).

    python examples/staircase/persistence_s1.py [--runs N] [--horizon T] [--seed S] P [P ...]

Draws N random points of U_1 at each prime (one active gate (0, 0), every other gate negative, every gamma_j > 0
and ell_0(X) < 2/(p rho), checked in floats), runs the flow of certify.law.flow (the simulator of `certify law`,
written from the loss (1.1), not from section 10) to the horizon, and reports at the checkpoints: whether
(0, 0) stayed the only active gate (a boundary gate within 1e-9 of its kink counts as on it), whether ell_0 ever
rose (relative 1e-9), the smallest (S1.1) margin, and for the points with sqrt(2/(p - 1)) + rho0 < 2 the largest
max F against 1 - delta_1 of (S1.2) at the point. Floats: evidence, not proof.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def random_point(rng, p: int) -> np.ndarray:
    """A random point of U_1: u(0) + v(0) = X > 0, every other gate < 0, w with gamma_j > 0, and w scaled up
    until ell_0(X) < 2/(p rho) (rho does not change with the scale)."""
    u0, v0 = rng.uniform(0.1, 2, 2)
    u = np.concatenate([[u0], -v0 - rng.uniform(0.05, 2, p - 1)])
    v = np.concatenate([[v0], -u0 - rng.uniform(0.05, 2, p - 1)])
    level = rng.uniform(0.05, 1)
    # every other point with a small spread of gamma (rho < 1.25: Proposition S1.7's hypothesis at p >= 5)
    low = -level * (1 + rng.uniform(0, 0.2 if rng.uniform() < 0.5 else 2, p - 1))
    w = np.concatenate([[-low.sum() + rng.uniform(0.1, 3)], low])  # w(0) above the mean: gamma_j > 0
    x = u0 + v0
    gamma = w.mean() - w[1:]
    rho = gamma.max() / gamma.min()
    while np.log(np.exp(x * (w - w[0])).sum()) >= 2 / (p * rho) / 1.1:
        w = 1.5 * w
    return np.concatenate([u, v, w])


def quantities(theta: np.ndarray, p: int):
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    z = u[:, None] + v[None, :]
    gamma = w.mean() - w[1:]
    rho = gamma.max() / gamma.min() if gamma.min() > 0 else np.inf
    ell = float(np.log(np.exp(z[0, 0] * (w - w[0])).sum()))
    boundary = np.zeros((p, p), dtype=bool)
    boundary[0, 1:] = boundary[1:, 0] = True
    other = ~boundary
    other[0, 0] = False
    kept = z[0, 0] > 0 and z[other].max() < 0 and z[boundary].max() <= 1e-9
    return kept, ell, 2 / (p * rho) - ell, rho, gamma


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("primes", nargs="+", type=int, metavar="P")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--horizon", type=float, default=1e7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.horizon < 10 or any(p < 5 for p in args.primes):
        print("persistence_s1: --runs >= 1, --horizon >= 10 and every P >= 5", file=sys.stderr)
        return 2
    from certify.law.flow import simulate_flow
    from certify.numeric.fourier import fourier_fractions

    rng = np.random.default_rng(args.seed)
    for p in args.primes:
        broken = rose = failed = 0
        smallest, slack = np.inf, np.inf
        with_delta = 0
        for _ in range(args.runs):
            theta0 = random_point(rng, p)
            _, _, _, rho0, gamma0 = quantities(theta0, p)
            u, v, w = theta0[:p], theta0[p:2 * p], theta0[2 * p:]
            S = gamma0.sum()
            L0 = S**2 + gamma0 @ gamma0
            c_plus = max(0.0, p * w.mean() ** 2 + u @ u + v @ v - w @ w)
            spread = np.sqrt(2 / (p - 1)) + rho0 - 1
            delta = (1 - spread**2) * L0 / (2 * L0 + c_plus) if spread < 1 else None
            trajectory = simulate_flow(theta0, p, args.horizon)
            failed += trajectory.failure is not None
            rows = [quantities(state, p) for state in trajectory.states]
            broken += not all(row[0] for row in rows)
            ells = [row[1] for row in rows]
            rose += any(b > a * (1 + 1e-9) + 1e-15 for a, b in zip(ells, ells[1:]))
            smallest = min(smallest, min(row[2] for row in rows))
            if delta is not None:
                with_delta += 1
                top = max(float(fourier_fractions(s[:p], s[p:2 * p], s[2 * p:]).max()) for s in trajectory.states)
                slack = min(slack, (1 - delta) - top)
        print(f"p = {p}: {args.runs} runs to t = {args.horizon:g} ({failed} stopped early); pattern broken in "
              f"{broken}; ell_0 rose in {rose}; smallest (S1.1) margin {smallest:.3g}; "
              f"{with_delta} with a margin delta_1, smallest (1 - delta_1) - max F {slack:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
