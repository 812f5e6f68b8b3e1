"""Sweep benchmark, issue 26's targets (run: python tests/bench_sweep.py [--limit N] [--dask]); prints, asserts nothing.

1. `certify sweep --primes 5..LIMIT --theorems dead,slide,smooth,gd --jobs 2` (default LIMIT 10^4) as a whole
   process: certificates per second, and the estimate line the CLI printed first (if it printed one); with
   --dask the same sweep on `--scheduler local` (the cost a Dask task adds is certify/sweep_costs.json's
   task_seconds, measured by python -m certify.sweep_costs);
2. `certify check FOLDER --jobs 2` on that sweep's folder, against the sweep's time;
3. `certify dead --p 13` and `certify check` of its certificate as whole processes, against the process floor
   (the interpreter importing python-flint);
4. what all primes below 10^5, and 10^6 primes on a 32-worker cluster, would take at the measured rate.
"""

from __future__ import annotations

import statistics
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

THEOREMS = ("dead", "slide", "smooth", "gd")


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(*command) -> tuple[float, subprocess.CompletedProcess, float]:
    """(wall seconds, the finished process, CPU seconds of it and of the processes it waited for: its workers)."""
    cpu, start = children_cpu_seconds(), time.perf_counter()
    result = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {result.returncode}: {result.stderr.strip()[-500:]}")
    return seconds, result, children_cpu_seconds() - cpu


def sweep(limit: int, folder: Path, *extra) -> tuple[float, int, str, float]:
    """(wall seconds, certificates made, the first stderr line, CPU seconds) of one sweep into ``folder``."""
    seconds, result, cpu = timed("-m", "certify", "sweep", "--primes", f"5..{limit}", "--theorems",
                                 ",".join(THEOREMS), "--jobs", "2", "--out", str(folder), *extra)
    count = sum(len(list((folder / theorem).glob(f"{theorem}-*.json"))) for theorem in THEOREMS)
    return seconds, count, (result.stderr.splitlines() or [""])[0], cpu


def tasks_of(count_per_theorem: int, workers: int) -> int:
    from certify.sweep import _chunk_size

    size = _chunk_size(count_per_theorem * len(THEOREMS), workers)
    return len(THEOREMS) * -(-count_per_theorem // size)


def main() -> None:
    from certify.sweep import load_sweep_costs, primes_between

    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else 10**4
    primes = len(primes_between(5, limit))
    with tempfile.TemporaryDirectory() as scratch:
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        pool_seconds, count, note, pool_cpu = sweep(limit, Path(scratch) / "pool")
        print(f"sweep 5..{limit}, 4 theorems, 2 jobs (pool)     | {pool_seconds:.1f} s: {count} certificates, "
              f"{count / pool_seconds:.1f}/s; CPU {pool_cpu:.1f} s, {1000 * pool_cpu / count:.1f} ms a certificate "
              f"(load {load} before)")
        print(f"  its first line                              | {note or '(no estimate printed)'}")
        check_seconds, _, check_cpu = timed("-m", "certify", "check", str(Path(scratch) / "pool"), "--jobs", "2")
        print(f"check of that folder, 2 jobs                  | {check_seconds:.1f} s "
              f"(x{check_seconds / pool_seconds:.2f} the sweep); CPU {check_cpu:.1f} s "
              f"(x{check_cpu / pool_cpu:.2f})")
        if "--dask" in sys.argv:
            dask_seconds, dask_count, _, _ = sweep(limit, Path(scratch) / "dask", "--scheduler", "local")
            # the difference includes starting the LocalCluster (about 2 s here): the cost a task adds is
            # measured apart, by python -m certify.sweep_costs (task_seconds of the table)
            print(f"sweep 5..{limit}, --scheduler local, 2 workers | {dask_seconds:.1f} s: {dask_count} "
                  f"certificates, {dask_count / dask_seconds:.1f}/s ({tasks_of(primes, 2)} tasks; "
                  f"{dask_seconds - pool_seconds:+.1f} s against the pool, the cluster's start included)")
    with tempfile.TemporaryDirectory() as scratch:
        certificate = Path(scratch) / "dead-13.json"
        subprocess.run([sys.executable, "-m", "certify", "dead", "--p", "13", "--out", str(certificate)],
                       check=True, capture_output=True, cwd=ROOT)
        times = [[], [], []]
        for _ in range(7):  # interleaved, so drifting load hits the three alike
            for record, command in zip(times, (["-c", "import flint"], ["-m", "certify", "dead", "--p", "13",
                                                                         "--out", "/dev/null"],
                                               ["-m", "certify", "check", str(certificate)])):
                record.append(timed(*command)[0])
        floor, dead, check = (statistics.median(record) for record in times)
    print(f"certify dead --p 13 (process)                 | {dead:.3f} s, x{dead / floor:.1f} the floor "
          f"(python + flint import {floor:.3f} s)")
    print(f"certify check dead-13.json (process)          | {check:.3f} s (x{check / dead:.2f} generation)")
    # CPU seconds a certificate, the sweep's own process and start included: what a worker with a core to itself
    # spends (the wall time on this shared machine depends on what else runs)
    per_certificate = pool_cpu / count
    below = len(primes_between(5, 10**5)) * len(THEOREMS)
    print(f"all primes below 10^5 ({below} certificates) | estimated {below * per_certificate / 2:.0f} s on 2 "
          f"free cores at {1000 * per_certificate:.1f} CPU-ms a certificate, {below * pool_seconds / count:.0f}"
          f" s at this run's wall rate (not run)")
    costs = load_sweep_costs()
    if costs is not None:
        task_seconds = costs["task_seconds"]
        big = 10**6 * len(THEOREMS)
        tasks = tasks_of(10**6, 32)
        seconds = (big * per_certificate + tasks * task_seconds) / 32
        print(f"10^6 primes x 4 on 32 workers                 | ({big} x {per_certificate:.4f} s + {tasks} tasks x "
              f"{task_seconds:.4f} s) / 32 = {seconds:.0f} s ({seconds / 60:.0f} min; scheduling "
              f"{100 * tasks * task_seconds / (big * per_certificate):.1f}%)")


if __name__ == "__main__":
    main()
