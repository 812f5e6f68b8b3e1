"""Benchmark for certify.law.gd.simulate_gd (run: python tests/bench_law_gd.py [HORIZON [P ...]]).

Prints figures; asserts nothing (timings on shared machines are noisy). For p = 5, 7, 11, 13 at eta = 1 it
runs batches of 100, 300 and 1000 draws (sigma = 1) to the horizon (default 10^4 steps) and prints samples
per second, microseconds per sample-step, the dead fraction, and the extrapolation to the default horizon
t = 10^6 (linear in steps: the per-step cost is set by the active gates, which at sigma = 1 neither die nor
thin out much after t ~ 10^3, so the extrapolation is a fair estimate, not a bound).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

PRIMES = (5, 7, 11, 13)
BATCHES = (100, 300, 1000)
FULL_HORIZON = 1e6


def bench(p: int, n: int, horizon: float) -> tuple[float, float]:
    """(wall seconds for n samples to the horizon at eta = 1, dead fraction)."""
    from certify.law.gd import simulate_gd
    from certify.law.sampling import draw_initial

    thetas = np.array([draw_initial(p, 1.0, 0, i).theta for i in range(n)])
    start = time.perf_counter()
    trajectories = simulate_gd(thetas, p, 1.0, horizon)
    seconds = time.perf_counter() - start
    return seconds, float(np.mean([tr.death_time is not None for tr in trajectories]))


def main(argv: list[str]) -> None:
    horizon = float(argv[0]) if argv else 1e4
    primes = [int(a) for a in argv[1:]] or list(PRIMES)
    bench(5, 10, 10)  # warm-up
    print(f"eta = 1, horizon {horizon:g} ({horizon:g} steps), sigma = 1")
    print(f"{'p':>3} {'batch':>6} {'seconds':>8} {'samples/s':>10} {'us/sample-step':>15} {'dead':>5}"
          f"  {'s/sample at t = 1e6':>20}")
    for p in primes:
        for n in BATCHES:
            seconds, dead = bench(p, n, horizon)
            per_step = seconds / n / horizon
            print(f"{p:>3} {n:>6} {seconds:>8.2f} {n / seconds:>10.1f} {per_step * 1e6:>15.3f} {dead:>5.2f}"
                  f"  {per_step * FULL_HORIZON:>20.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
