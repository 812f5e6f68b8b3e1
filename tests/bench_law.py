"""Benchmark of `certify law` (run: python tests/bench_law.py [--quick] [--jobs J] [--horizon T] [--only flow]).

Prints figures, asserts nothing (timings on shared machines are noisy). For each configuration it runs the
law through the library (certify.law.runner.run_law, the code behind the command) in a fresh folder, on a
local Dask cluster of J worker processes (default 2), and prints the wall time, samples per second, the
seconds per sample per worker, the mean and largest simulation time of one sample (samples.csv's own
`seconds`, the flow's cost alone), the outcome counts, and the undecided samples by cause (the engine's
failures -- budget, solver, Zeno, a kink decision that failed its checks -- and the classifier's reasons,
numbers replaced by #).

The issue's targets (issue 22): flow, p = 13, 200 samples under 15 minutes and p = 31, 100 samples under 60
minutes with 2 workers; undecided under 2% for p <= 13 and under 5% up to 31; gd at least 10 times faster
per sample than the flow at the same p. --quick runs a tenth of the samples (at least 10).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: (dynamics, p, samples, eta)
CONFIGURATIONS = (
    ("flow", 5, 1000, None),
    ("gd", 5, 1000, "1"),
    ("flow", 13, 200, None),
    ("gd", 13, 200, "1"),
    ("flow", 23, 100, None),
    ("flow", 31, 100, None),
)


def _causes(folder: Path) -> tuple[Counter, list[float]]:
    """The undecided reasons of samples.csv (numbers replaced by #) and every sample's simulation seconds."""
    causes: Counter = Counter()
    seconds = []
    with open(folder / "samples.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if row.get("seconds"):
                seconds.append(float(row["seconds"]))
            if row["outcome"] == "undecided":
                causes[re.sub(r"[-+]?\d[\d.]*(e[-+]?\d+)?", "#", row["reason"])] += 1
    return causes, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the samples")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--horizon", default="1e6")
    parser.add_argument("--only", choices=("flow", "gd"), help="only this dynamics")
    parser.add_argument("--primes", help="only these p, comma-separated")
    args = parser.parse_args(argv)

    from certify.law.classify import OUTCOMES
    from certify.law.runner import LawParameters, run_law

    primes = {int(x) for x in args.primes.split(",")} if args.primes else None
    print(f"certify law, horizon {args.horizon}, {args.jobs} worker processes"
          + (" (quick: a tenth of the samples)" if args.quick else ""))
    print(f"{'dynamics':9} {'p':>3} {'n':>5} {'wall s':>8} {'samples/s':>10} {'s/sample':>9} {'sim mean':>9} "
          f"{'sim max':>8} {'undecided':>10}  counts")
    for dynamics, p, samples, eta in CONFIGURATIONS:
        if (args.only and dynamics != args.only) or (primes and p not in primes):
            continue
        n = max(10, samples // 10) if args.quick else samples
        run = LawParameters(p=p, horizon=args.horizon, dynamics=dynamics, eta=eta)
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            result = run_law(run, n, folder, jobs=args.jobs, warn=lambda line: None)
            wall = time.perf_counter() - start
            causes, seconds = _causes(Path(folder))
        outcomes = result.summary["outcomes"]
        counts = " ".join(f"{name}={outcomes[name]['count']}" for name in OUTCOMES if name in outcomes)
        undecided = outcomes["undecided"]["count"] / n
        label = dynamics + (f" eta={eta}" if eta else "")
        mean = sum(seconds) / len(seconds) if seconds else float("nan")
        print(f"{label:9} {p:>3} {n:>5} {wall:8.1f} {n / wall:10.3f} {args.jobs * wall / n:9.3f} {mean:9.2f} "
              f"{max(seconds, default=float('nan')):8.1f} {100 * undecided:9.1f}%  {counts}", flush=True)
        for reason, count in causes.most_common():
            print(f"{'':14}undecided {count:4}: {reason}", flush=True)
    print("s/sample is per worker (wall x workers / samples), the cluster's start-up (~3 s) included; sim mean and "
          "max are one sample's simulation time (samples.csv 'seconds').")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
