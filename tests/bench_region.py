"""Benchmark for the one-gate region probabilities (run: python tests/bench_region.py).

Prints, for each p, log10 of the certified lower bounds of P(theta(0) in R | initially active) for
R_dead by Jensen (``dead_region_log_probability_lower``) and by the binned lower sum
(``dead_region_binned_log_probability_lower``), for R_gd at eta = 1 and for R_smooth at sigma = 1,
eps = 2 (J(2) from ``certify.kernel.smooth.dead_zone_integral``), with the median time per call of
each; and the enclosure of the expected middle spacing E[S]. Asserts nothing (timings on shared
machines are noisy). Target: under 50 ms per call for any p. p = 1000003 stands for 10^6 (the
smallest prime above it; the kernel requires a prime p >= 5).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flint import arb, ctx, fmpq  # noqa: E402

from certify.kernel.region import (dead_region_binned_log_probability_lower,  # noqa: E402
                                   dead_region_log_probability_lower, expected_spacing_upper,
                                   gd_region_log_probability_lower, smooth_region_log_probability_lower)
from certify.kernel.smooth import dead_zone_integral  # noqa: E402

PRIMES = (5, 13, 101, 1009, 1_000_003, 999_999_999_999_999_989)
PREC = 64
EPS_SMOOTH = fmpq(2)
J_EPS_UPPER = dead_zone_integral(EPS_SMOOTH, EPS_SMOOTH, PREC)[1]


def median_seconds(function, *args, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def log10(x: arb) -> str:
    """log10 of the natural-log bound x, to 6 decimals (the digits that tell the bounds apart at p = 10^18)."""
    with ctx.workprec(160):  # |log P| reaches 1.4e18: the quotient needs more than 53 bits
        value = x / arb(10).log()
    return value.mid().str(max(12, len(str(int(abs(float(value))))) + 6), radius=False)


BOUNDS = {
    "dead Jensen": lambda p: dead_region_log_probability_lower(p, PREC),
    "dead lower sum": lambda p: dead_region_binned_log_probability_lower(p, PREC),
    "gd eta=1": lambda p: gd_region_log_probability_lower(p, 1, PREC),
    "smooth sigma=1 eps=2": lambda p: smooth_region_log_probability_lower(p, 1, EPS_SMOOTH, J_EPS_UPPER, PREC),
}


def main() -> None:
    print("log10 P(R | initially active) >= (ms per call)")
    print(f"{'p':>20}" + "".join(f"  {name:>36}" for name in BOUNDS))
    for p in PRIMES:
        cells = []
        for bound in BOUNDS.values():
            value = bound(p)
            seconds = median_seconds(bound, p)
            cells.append(f"{log10(value):>26} ({1000 * seconds:5.1f} ms)")
        print(f"{p:>20}" + "".join(f"  {cell:>36}" for cell in cells))
    print()
    print(f"{'p':>20}  {'E[S] enclosure':>44}")
    for p in PRIMES:
        print(f"{p:>20}  {expected_spacing_upper(p, PREC).str(15):>44}")


if __name__ == "__main__":
    main()
