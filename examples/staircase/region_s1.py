"""How often does a Gaussian initial point lie in the region of Theorem S1? (docs/staircase.md, section 10.5)

    python examples/staircase/region_s1.py [--samples N] [--seed S] P [P ...]

Draws theta(0) ~ N(0, I_{3p}) and tests, in floats, the hypotheses of Theorem S1 relabelled (section 1.1):
exactly one active gate (a*, b*), with label y = a* + b* mod p and value x; gamma_j = mu - w(j) > 0 for every
j != y; and ell_y(x) < 2/(p rho), rho = max gamma_j / min gamma_j. It prints, per prime, the samples with one
active gate, those with also every gamma_j > 0, those in U_1, and the smallest factor ell_y(x) / (2/(p rho))
among the second kind (the region needs a factor below 1).

Evidence, not proof: the test is made in floats. A certified share needs proved bounds (section 7).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def count(p: int, samples: int, seed: int, chunk: int = 200_000):
    """(one active gate, and every gamma_j > 0, in U_1, smallest budget factor) over ``samples`` draws."""
    rng = np.random.default_rng(seed)
    one = positive = inside = 0
    smallest = np.inf
    for start in range(0, samples, chunk):
        m = min(chunk, samples - start)
        u, v, w = (rng.standard_normal((m, p)) for _ in range(3))
        gates = (u[:, :, None] + v[:, None, :]).reshape(m, p * p)
        keep = (gates > 0).sum(1) == 1
        one += int(keep.sum())
        gates, w = gates[keep], w[keep]
        index = gates.argmax(1)
        rows = np.arange(len(index))
        label = (index // p + index % p) % p
        x = gates[rows, index]
        gamma = w.mean(1)[:, None] - w
        others = np.ones_like(gamma, dtype=bool)
        others[rows, label] = False
        gamma_min = np.where(others, gamma, np.inf).min(1)
        gamma_max = np.where(others, gamma, -np.inf).max(1)
        good = gamma_min > 0
        positive += int(good.sum())
        if not good.any():
            continue
        w_y = w[rows, label]
        ell = np.log(np.exp(x[:, None] * (w - w_y[:, None])).sum(1))
        factor = ell[good] * p * (gamma_max[good] / gamma_min[good]) / 2
        inside += int((factor < 1).sum())
        smallest = min(smallest, float(factor.min()))
    return one, positive, inside, smallest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("primes", nargs="+", type=int, metavar="P")
    parser.add_argument("--samples", type=int, default=2_000_000, help="draws per prime (default 2000000)")
    parser.add_argument("--seed", type=int, default=1, help="the numpy seed (default 1)")
    args = parser.parse_args(argv)
    if args.samples < 1 or any(p < 5 for p in args.primes):
        print("region_s1: the samples must be >= 1 and every P >= 5", file=sys.stderr)
        return 2
    for p in args.primes:
        one, positive, inside, smallest = count(p, args.samples, args.seed)
        print(f"p = {p}: {args.samples} samples, one active gate {one}, and every gamma_j > 0 {positive}, "
              f"in U_1 {inside}, smallest budget factor {smallest:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
