"""Benchmark for the sliding region's probability (run: python tests/bench_region_slide.py).

Prints, for each p and sigma, log10 of the certified lower bound of P(theta(0) in R_slide | initially
active) (certify.kernel.region_slide), the chosen g = gamma_*/sigma and delta, the threshold X of x
and the median time per call: cold (the cache of e_{p-1} cleared first, the cost of a new p) and
warm. Asserts nothing (timings on shared machines are noisy). Target: under 50 ms per call for any p.
p = 1000003 stands for 10^6 (the smallest prime above it).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flint import arb, ctx  # noqa: E402

from certify.kernel import region_slide  # noqa: E402
from certify.kernel.region_slide import slide_region_log_probability_lower  # noqa: E402

PRIMES = (5, 13, 101, 1009, 1_000_003)
SIGMAS = (1, 3)
PREC = 64


def median_seconds(function, *args, cold: bool, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        if cold:
            region_slide._expected_maximum.cache_clear()
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'p':>8} {'sigma':>5}  {'log10 P(R_slide | active) >=':>30}  {'g':>10}  {'delta':>14}  {'X':>12}  "
          f"{'ms cold':>8}  {'ms warm':>8}")
    for p in PRIMES:
        for sigma in SIGMAS:
            bound = slide_region_log_probability_lower(p, sigma, PREC)
            with ctx.workprec(128):
                log10 = (bound.log_lower / arb(10).log()).mid().str(12, radius=False)
            cold = median_seconds(slide_region_log_probability_lower, p, sigma, PREC, cold=True)
            warm = median_seconds(slide_region_log_probability_lower, p, sigma, PREC, cold=False)
            X = float(bound.X.p) / float(bound.X.q)
            print(f"{p:>8} {sigma:>5}  {log10:>30}  {str(bound.g):>10}  {str(bound.delta):>14}  {X:12.6g}  "
                  f"{1000 * cold:8.2f}  {1000 * warm:8.2f}")


if __name__ == "__main__":
    main()
