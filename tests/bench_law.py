"""Benchmark of `certify law` (run: python tests/bench_law.py [--quick] [--jobs J]).

Prints figures, asserts nothing (timings on shared machines are noisy). For each configuration it runs the
law through the library (certify.law.runner.run_law, the code behind the command) in a fresh folder, on a
local Dask cluster of J worker processes (default 2), and prints the wall time, samples per second, the
seconds per sample and the outcome counts with the undecided fraction.

The issue's targets: flow, p = 5, 1000 samples, horizon 10^6, under 10 minutes; flow, p = 13, 200 samples,
under 15 minutes; gd at least 10 times faster per sample than the flow at the same p; undecided under 1%.
--quick runs a tenth of the samples.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: (dynamics, p, samples, eta)
CONFIGURATIONS = (
    ("flow", 5, 1000, None),
    ("gd", 5, 1000, "1"),
    ("flow", 13, 200, None),
    ("gd", 13, 200, "1"),
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the samples")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--horizon", default="1e6")
    args = parser.parse_args(argv)

    from certify.law.classify import OUTCOMES
    from certify.law.runner import LawParameters, run_law

    print(f"certify law, horizon {args.horizon}, {args.jobs} worker processes"
          + (" (quick: a tenth of the samples)" if args.quick else ""))
    print(f"{'dynamics':9} {'p':>3} {'n':>5} {'wall s':>8} {'samples/s':>10} {'s/sample':>9} {'undecided':>10}  counts")
    for dynamics, p, samples, eta in CONFIGURATIONS:
        n = max(10, samples // 10) if args.quick else samples
        run = LawParameters(p=p, horizon=args.horizon, dynamics=dynamics, eta=eta)
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            result = run_law(run, n, folder, jobs=args.jobs, warn=lambda line: None)
            wall = time.perf_counter() - start
        outcomes = result.summary["outcomes"]
        counts = " ".join(f"{name}={outcomes[name]['count']}" for name in OUTCOMES)
        undecided = outcomes["undecided"]["count"] / n
        label = dynamics + (f" eta={eta}" if eta else "")
        print(f"{label:9} {p:>3} {n:>5} {wall:8.1f} {n / wall:10.3f} {args.jobs * wall / n:9.3f} "
              f"{100 * undecided:9.1f}%  {counts}", flush=True)
    print("s/sample is per worker (wall x workers / samples); the cluster's start-up (~3 s) is included.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
