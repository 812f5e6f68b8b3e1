"""The Monte Carlo value of P(U_1 relabelled | active) beside Proposition S1.8's proved bound (docs/staircase.md 10.7).

    python examples/staircase/region_s1_whole.py [--samples N] [--seed S] [--sigma SIGMA] P [P ...]

The estimator is the conditional one of (S1.3): P(U_1) = E[1_W(w) H(X*(w))], with w ~ N(0, sigma^2 I_p) drawn,
X*(w) the root of ell_0(X) = 2/(p rho) (bisection in floats, 60 steps) and H by scipy quadrature of its closed
form on nodes 0.05 apart in x/sigma, log-linear between them (an error below 0.1% in H). P(R) = p^2 P(U_1), and
P(active) = 1 - P(max u + max v <= 0) is estimated from the same number of draws of (u, v). The standard error is
the sample's. Evidence beside a proof, never a bound: floats throughout.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from scipy import integrate
from scipy.stats import norm


def gate_mass(p: int, x: float) -> float:
    """H(x) of (S1.3) at sigma = 1."""
    integrand = lambda a: norm.pdf(a) * norm.cdf(-a) ** (p - 1) * norm.cdf(a - x) ** p / p
    return integrate.quad(integrand, -12, x + 12, limit=400)[0]


def estimate(p: int, samples: int, seed: int, sigma: float, chunk: int = 1_000_000):
    """(P(R) estimate, its standard error, P(active) estimate) for R = U_1 relabelled."""
    nodes = np.arange(0, 16.0001, 0.05)
    log_h = np.log([gate_mass(p, x) for x in nodes])
    rng = np.random.default_rng(seed)
    total = total_sq = 0.0
    inactive = 0
    for start in range(0, samples, chunk):
        m = min(chunk, samples - start)
        w = sigma * rng.standard_normal((m, p))
        gamma = w.mean(1, keepdims=True) - w[:, 1:]
        keep = (gamma > 0).all(1)
        w, gamma = w[keep], gamma[keep]
        budget = 2 / (p * gamma.max(1) / gamma.min(1))
        gaps = w[:, :1] - w[:, 1:]
        low, high = np.zeros(len(w)), np.full(len(w), 16.0 * sigma)
        for _ in range(60):
            mid = (low + high) / 2
            above = np.log1p(np.exp(-mid[:, None] * gaps).sum(1)) >= budget
            low, high = np.where(above, mid, low), np.where(above, high, mid)
        values = np.exp(np.interp(high / sigma, nodes, log_h, right=-np.inf))
        total += values.sum()
        total_sq += (values**2).sum()
        u, v = rng.standard_normal((m, p)), rng.standard_normal((m, p))
        inactive += int((u.max(1) + v.max(1) <= 0).sum())
    mean = total / samples
    error = math.sqrt(max(total_sq / samples - mean**2, 0.0) / samples)
    return p * p * mean, p * p * error, 1 - inactive / samples


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("primes", nargs="+", type=int, metavar="P")
    parser.add_argument("--samples", type=int, default=2_000_000, help="draws of w per prime (default 2000000)")
    parser.add_argument("--seed", type=int, default=1, help="the numpy seed (default 1)")
    parser.add_argument("--sigma", type=float, default=1.0, help="the initialisation scale (default 1)")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.sigma <= 0 or any(p < 5 for p in args.primes):
        parser.error("need samples >= 1, sigma > 0 and primes p >= 5")
    from flint import arb, fmpq

    from certify.kernel.region_memorise import memorise_whole_region_log_lower

    sigma = fmpq(*(float(args.sigma).as_integer_ratio()))
    for p in args.primes:
        value, error, active = estimate(p, args.samples, args.seed, args.sigma)
        bound = memorise_whole_region_log_lower(p, sigma) / arb(10).log()
        conditional = value / active
        print(f"p = {p}: Monte Carlo P(R | active) = {conditional:.4g} +- {error / active:.2g} "
              f"(P(R) = {value:.4g}, P(active) = {active:.5f}, {args.samples} draws); proved >= "
              f"10^{float(bound.mid()):.3f} (factor {conditional / 10 ** float(bound.mid()):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
