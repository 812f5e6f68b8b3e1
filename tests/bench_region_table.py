"""The box against the whole region, for every theorem (run: python tests/bench_region_table.py [--quick]).

Prints one table: for each theorem and p = 5, 13, 101, 1009, 1000003 (the smallest prime above 10^6; the
kernel needs a prime), log10 of the certified box probability (claim gaussian_probability, the box
around the paper's point) and of the certified region probability (claim region_probability, the
theorem's whole region, conditioned on initial activity), both under N(0, I_3p) (sigma = 1, gd at
eta = 1, smooth at eps = 2), and the median time of the region claim alone (issue 13's target: under
50 ms for any p). Then dead's purity claim (delta = 1/100, uncached) and the wall time of the whole
process `certify THEOREM --p P` (target for dead: under 1 s). Asserts nothing: timings on shared
machines are noisy, so they are figures, not tests. ``--quick`` stops at p = 101.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PRIMES = (5, 13, 101, 1009, 1_000_003)
PREC = 128


def forget_region_bounds() -> None:
    """Empty the kernel's memos of the region bounds (certify.kernel.memo), so a call is timed in full."""
    from certify.kernel import dead, region, region_slide, smooth

    for memo in (region.dead_region_claim_log_lower, dead._purity_log_lowers, region_slide.slide_region_claim_bound,
                 region.smooth_region_claim_log_lower, region.gd_region_claim_log_lower,
                 region.expected_spacing_upper_point):
        memo.forget()
    smooth.dead_zone_integral.forget()  # J(eps) too: the smooth claim's cold cost includes it


def median_seconds(function, repeats: int = 5) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls after one warm-up call, each with the
    region memos emptied first (outside the timed part)."""
    function()
    times = []
    for _ in range(repeats):
        forget_region_bounds()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def region_claims():
    """theorem -> (p -> the region_probability claim), the kernel's own claim functions."""
    from flint import fmpq

    from certify.kernel import dead, gd, slide, smooth

    return {
        "dead": lambda p: dead.dead_region_claim(dead.DeadParameters(p, fmpq(1), fmpq(2), fmpq(1)), PREC),
        "slide": lambda p: slide.slide_region_claim(slide.SlideParameters(p, fmpq(1), fmpq(p - 1, 2)), PREC),
        "smooth": lambda p: smooth.smooth_region_claim(
            smooth.SmoothParameters(p, fmpq(2), fmpq(1), fmpq(2), fmpq(1)), PREC),
        "gd": lambda p: gd.gd_region_claim(gd.GDParameters(p, fmpq(1), fmpq(1, 10**9), fmpq(2), fmpq(1)), PREC),
    }


def main(quick: bool) -> None:
    from certify.theorems.registry import THEOREMS

    primes = [p for p in PRIMES if not quick or p <= 101]
    claims = region_claims()
    print(f"{'theorem':>7} {'p':>8} {'log10 P(box)':>16} {'log10 P(region | active)':>26} {'region ms':>10}")
    for name, record in THEOREMS.items():
        if name not in claims:  # no region claim (sensitivity: one trajectory, no probability claims)
            continue
        options = {"eta": "1"} if name == "gd" else {}
        for p in primes:
            certificate = record.build(p, **options).certificate
            box = certificate["claims"]["gaussian_probability"]["log10_lo"]
            region = certificate["claims"]["region_probability"]["log10_lo"]
            seconds = median_seconds(lambda: claims[name](p))
            print(f"{name:>7} {p:>8} {float(box):16.6g} {float(region):26.8g} {1000 * seconds:10.2f}")

    from flint import fmpq

    from certify.kernel.region_purity import dead_region_purity_log10_probability_lower

    print(f"\n{'p':>8} {'log10 P(R_dead, max F <= 0.99 | active)':>40} {'ms (uncached)':>14}")
    for p in primes:
        start = time.perf_counter()
        value = dead_region_purity_log10_probability_lower(p, fmpq(1, 100), 64)
        print(f"{p:>8} {float(value.lower()):40.8g} {1000 * (time.perf_counter() - start):14.1f}")

    print(f"\n{'command':>34} {'wall s (median of 3)':>22}")
    for name in THEOREMS:
        for p in (13, 101):
            command = [sys.executable, "-m", "certify", name, "--p", str(p), *(["--eta", "1"] if name == "gd" else [])]
            seconds = median_seconds(lambda: subprocess.run(command, capture_output=True, check=True, cwd=ROOT),
                                     repeats=3)
            print(f"{' '.join(['certify', *command[3:]]):>34} {seconds:22.2f}")


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
