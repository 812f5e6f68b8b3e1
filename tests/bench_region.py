"""Benchmark for the dead region's probability (run: python tests/bench_region.py).

Prints, for each p, log10 of the certified Jensen lower bound of P(theta(0) in R_dead | initially
active), the enclosure of the expected middle spacing E[S], and the median time per call. Asserts
nothing (timings on shared machines are noisy). Target from issue 13: under 50 ms per call for any p.
p = 1000003 stands for 10^6 (the smallest prime above it; the kernel requires a prime p >= 5).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify.kernel.region import dead_region_log10_probability_lower, expected_spacing_upper  # noqa: E402

PRIMES = (5, 13, 101, 1009, 1_000_003, 999_999_999_999_999_989)
PREC = 64


def median_seconds(function, *args, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'p':>20}  {'log10 P(R_dead | active) >=':>28}  {'E[S] enclosure':>44}  {'ms/call':>8}")
    for p in PRIMES:
        bound = dead_region_log10_probability_lower(p, PREC)
        spacing = expected_spacing_upper(p, PREC)
        seconds = median_seconds(dead_region_log10_probability_lower, p, PREC)
        print(f"{p:>20}  {bound.mid().str(12, radius=False):>28}  {spacing.str(15):>44}  {1000 * seconds:8.2f}")


if __name__ == "__main__":
    main()
