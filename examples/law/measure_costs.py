"""Measure what a sample of `certify law` costs, by p and dynamics, into certify/law/costs.json (the table the
runner's estimate reads: certify.law.runner.estimate_run).

    python examples/law/measure_costs.py [--flow-primes 5,7,11,13] [--flow-samples 4] [--horizon 1e6]
                                         [--gd-primes 5,7,11,13,17,19,23,29,31] [--gd-steps 2000]
                                         [--flow-runs DIR ...] [--out certify/law/costs.json]

- flow: samples 0 .. N-1 of seed 1 (sigma 1) simulated to the horizon one after another in this process, as
  a worker computes them (certify.law.runner.compute_samples); the mean wall seconds of a sample. Undecided
  samples count with the time they took (a budget or a Zeno stop is part of the cost).
- flow, from finished runs (``--flow-runs DIR ...``, instead of simulating): the mean of the ``seconds`` column
  over the rows of DIR/samples.csv that the runner accepts for DIR/run.json (certify.law.runner.read_samples:
  the file is untrusted), at the runs' horizon, which must be one. A run on --jobs W workers of a W-core
  machine times each sample as the estimate counts it (a core per sample), and a run of 10^3 samples sees the
  rare stiff samples that decide the mean (up to 100 times the median) where 3 samples do not.
- gd (eta 1), unless --gd-primes is empty (then the gd table of --out is kept): batches of B = 1 and B = 200
  draws run for S steps; per step a batch costs a + b B seconds
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


def flow_costs_of_runs(folders: list[Path]) -> tuple[float, dict[str, float], dict[str, int]]:
    """(horizon, {p: mean seconds a sample}, {p: samples}) of finished flow runs of `certify law`, read as the
    runner reads a folder it resumes (run.json checked, samples.csv rows checked one by one)."""
    from certify.law.runner import LawParameters, RUN_RECORD_BYTES, _read_limited, read_samples

    horizons, seconds, counts = set(), {}, {}
    for folder in folders:
        run = LawParameters.from_record(json.loads(_read_limited(folder / "run.json", RUN_RECORD_BYTES, "run.json")))
        if run.dynamics != "flow":
            raise SystemExit(f"{folder}: a {run.dynamics} run; --flow-runs takes flow runs")
        rows, rejected = read_samples(folder / "samples.csv", run)
        if rejected or not rows:
            raise SystemExit(f"{folder}: {len(rejected)} rejected rows, {len(rows)} accepted; a finished run is needed")
        if str(run.p) in seconds:
            raise SystemExit(f"{folder}: a second run at p = {run.p}")
        horizons.add(run.horizon_value)
        seconds[str(run.p)] = sum(float(row["seconds"]) for row in rows.values()) / len(rows)
        counts[str(run.p)] = len(rows)
        print(f"flow p = {run.p}: {len(rows)} samples of {folder}, {seconds[str(run.p)]:.2f} s a sample", flush=True)
    if len(horizons) != 1:
        raise SystemExit(f"the runs have {len(horizons)} horizons; give runs of one horizon")
    return horizons.pop(), seconds, counts


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
    parser.add_argument("--flow-runs", type=Path, nargs="+", metavar="DIR",
                        help="take the flow costs from these finished runs instead of simulating")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.gd_primes:
        gd, gd_steps = {str(p): gd_cost(p, args.gd_steps) for p in args.gd_primes}, args.gd_steps
    else:  # --gd-primes '': keep the gd table of --out (the flow alone is measured again)
        kept = json.loads(args.out.read_text())["gd"]
        gd, gd_steps = kept["seconds_per_step"], kept["steps"]
    if args.flow_runs:
        horizon, flow, samples = flow_costs_of_runs(args.flow_runs)
    else:
        horizon, samples = float(args.horizon), args.flow_samples
        flow = {str(p): flow_cost(p, args.flow_samples, args.horizon) for p in args.flow_primes}
    table = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f} at the start "
                   f"(measured {time.strftime('%Y-%m-%d')})",
        "measured_by": "examples/law/measure_costs.py " + " ".join(argv),
        "flow": {"horizon": horizon, "samples": samples, "seconds_per_sample": flow},
        "gd": {"eta": 1.0, "steps": gd_steps, "seconds_per_step": gd},
    }
    args.out.write_text(json.dumps(table, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
