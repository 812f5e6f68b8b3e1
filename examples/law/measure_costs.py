"""Measure what a sample of `certify law` costs, by p and dynamics, into certify/law/costs.json (the table the
runner's estimate reads: certify.law.runner.estimate_run).

    python examples/law/measure_costs.py [--flow-primes 5,7,11,13] [--flow-samples 4] [--horizon 1e6]
                                         [--gd-primes 5,7,11,13,17,19,23,29,31] [--gd-steps 2000]
                                         [--out certify/law/costs.json]

- flow: samples 0 .. N-1 of seed 1 (sigma 1) simulated to the horizon one after another in this process, as
  a worker computes them (certify.law.runner.compute_samples); the mean wall seconds of a sample. Undecided
  samples count with the time they took (a budget or a Zeno stop is part of the cost).
- gd (eta 1): batches of B = 1 and B = 200 draws run for S steps; per step a batch costs a + b B seconds
  (a fixed overhead of the ~40 array operations of a step, b per sample); a and b from the two timings.

Timings of one machine at one moment (the machine and its load average are written into the table): the
estimate they give is a model, printed as such. Run it again after the simulators change (the flow engine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "certify" / "law" / "costs.json"

for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # as certify law's workers run
    os.environ.setdefault(name, "1")
sys.path.insert(0, str(ROOT))


def primes(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def flow_cost(p: int, samples: int, horizon: str) -> float:
    """Mean wall seconds of one flow sample at p (samples 0 .. samples-1 of seed 1, sigma 1)."""
    from certify.law.runner import compute_samples

    parameters = {"p": p, "sigma": "1", "seed": 1, "horizon": horizon, "dynamics": "flow", "eta": None}
    start = time.perf_counter()
    rows = compute_samples(parameters, list(range(samples)))
    seconds = time.perf_counter() - start
    undecided = sum(row["outcome"] == "undecided" for row in rows)
    print(f"flow p = {p}: {samples} samples in {seconds:.1f} s ({undecided} undecided)", flush=True)
    return seconds / samples


def gd_cost(p: int, steps: int, big: int = 200) -> dict:
    """{"fixed": a, "per_sample": b}: seconds per step of a gd batch of B samples = a + b B (eta 1)."""
    import numpy as np

    from certify.law.gd import simulate_gd
    from certify.law.sampling import draw_initial

    thetas = np.array([draw_initial(p, 1.0, 1, i).theta for i in range(big)])
    timings = {}
    for size in (1, big):
        start = time.perf_counter()
        simulate_gd(thetas[:size], p, 1.0, float(steps))
        timings[size] = (time.perf_counter() - start) / steps
    per_sample = max((timings[big] - timings[1]) / (big - 1), 1e-12)
    fixed = max(timings[1] - per_sample, 1e-12)
    print(f"gd p = {p}: a step costs {1e6 * fixed:.1f} us + {1e6 * per_sample:.2f} us a sample", flush=True)
    return {"fixed": fixed, "per_sample": per_sample}


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flow-primes", type=primes, default=[5, 7, 11, 13])
    parser.add_argument("--flow-samples", type=int, default=4)
    parser.add_argument("--horizon", default="1e6")
    parser.add_argument("--gd-primes", type=primes, default=[5, 7, 11, 13, 17, 19, 23, 29, 31])
    parser.add_argument("--gd-steps", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    gd = {str(p): gd_cost(p, args.gd_steps) for p in args.gd_primes}
    flow = {str(p): flow_cost(p, args.flow_samples, args.horizon) for p in args.flow_primes}
    table = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f} at the start "
                   f"(measured {time.strftime('%Y-%m-%d')})",
        "measured_by": "examples/law/measure_costs.py " + " ".join(argv),
        "flow": {"horizon": float(args.horizon), "samples": args.flow_samples, "seconds_per_sample": flow},
        "gd": {"eta": 1.0, "steps": args.gd_steps, "seconds_per_step": gd},
    }
    args.out.write_text(json.dumps(table, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
