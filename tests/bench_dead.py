"""Benchmark for `certify dead` and `certify check` (run: python tests/bench_dead.py).

Prints figures; asserts nothing (timings on shared machines are noisy, so speed
targets live here, not in the tests). Targets from the issue: `certify dead --p 13`
under 1 s as a whole process with the kernel alone under 20 ms; `--p 1000003`
under 2 s; `certify check` no slower than generation.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def process_seconds(*commands, repeats=15) -> list[float]:
    """Median wall times of `python -m certify ARGS` as fresh processes, one per command.

    The commands are run interleaved, so that drifting machine load hits them alike.
    """
    times = [[] for _ in commands]
    for _ in range(repeats):
        for args, record in zip(commands, times):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "certify", *args], check=True, capture_output=True, cwd=ROOT)
            record.append(time.perf_counter() - start)
    return [statistics.median(record) for record in times]


def call_seconds(function, repeats=30) -> float:
    """Median wall time of an in-process call (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    from flint import fmpq

    from certify.kernel.dead import DeadParameters, dead_claims
    from certify.theorems.dead import choose_radius

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for p in (13, 1000003):
            out = str(Path(folder) / f"dead-{p}.json")
            process_seconds(["dead", "--p", str(p), "--out", out], repeats=1)
            generate, check = process_seconds(["dead", "--p", str(p), "--out", out], ["check", out])
            params = DeadParameters(p, fmpq(1), fmpq(2), fmpq(1))
            radius = choose_radius(params)
            kernel = call_seconds(lambda: dead_claims(params, radius, 128))
            search = call_seconds(lambda: choose_radius(params), repeats=5)
            size = Path(out).stat().st_size
            rows.append((p, generate, check, kernel, search, size))
    (startup,) = process_seconds(["--version"])
    print(f"python -m certify --version (interpreter + argparse): {startup * 1e3:7.1f} ms")
    print(f"{'p':>8} | {'dead (process)':>14} | {'check (process)':>15} | {'kernel claims':>13} | "
          f"{'radius search':>13} | {'certificate':>11}")
    for p, generate, check, kernel, search, size in rows:
        print(f"{p:>8} | {generate * 1e3:11.1f} ms | {check * 1e3:12.1f} ms | {kernel * 1e3:10.2f} ms | "
              f"{search * 1e3:10.1f} ms | {size:>7} B")


if __name__ == "__main__":
    main()
