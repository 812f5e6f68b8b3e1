"""Benchmark for `certify simulate dead --from box` (run: python tests/bench_simulate.py [P ...]).

Prints figures; asserts nothing (timings on shared machines are noisy, so speed targets
live here, not in the tests).  Target from issue 11: p = 499 under a minute (before the
O(p) vector field of certify.numeric.model.active_gradient: 26 s at p = 101, 67 s at
p = 199, over 11 minutes at p = 499).  For each p it times, in process, the certificate
(certify_dead(p)) and the trajectory record simulate_instance(certificate, "box", seed=0),
and prints the simulated death time beside the certified box interval.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PRIMES = (101, 199, 499)


def bench(p: int) -> tuple[float, float, dict]:
    """(seconds for the certificate, seconds for the box trajectory record, the record)."""
    from certify.simulate import simulate_instance
    from certify.theorems.dead import certify_dead

    start = time.perf_counter()
    certificate = certify_dead(p).certificate
    built = time.perf_counter()
    record = simulate_instance(certificate, source="box", seed=0)
    return built - start, time.perf_counter() - built, record


def main(argv: list[str]) -> None:
    primes = [int(a) for a in argv] or list(PRIMES)
    bench(5)  # warm-up: imports of numpy, scipy, flint
    print(f"{'p':>5}  {'certificate':>11}  {'simulate':>9}  {'steps':>5}  death time T  (certified box interval)")
    for p in primes:
        certify_s, simulate_s, rec = bench(p)
        print(f"{p:>5}  {certify_s:>10.3f}s  {simulate_s:>8.3f}s  {len(rec['t']) - 1:>5}  "
              f"{rec['t_death']:.6g}  ([{rec['hitting_time_box_lo']:.6g}, {rec['hitting_time_box_hi']:.6g}])")


if __name__ == "__main__":
    main(sys.argv[1:])
