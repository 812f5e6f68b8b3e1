"""Measure what a sweep worker spends per certificate, and write the table certify sweep estimates from.

Run: python -m certify.sweep_costs [--primes 5,13,...] [--per-point 5] [--theorems LIST] [--out FILE]

For each theorem of the registry and each measured prime p, a warm worker process (one that has made
certificates before, as a sweep's has) makes the certificates of the ``--per-point`` primes from p on, each
as a sweep makes it (:func:`certify.sweep.make_certificate`, from a fresh numerical state), and the median
of their seconds is the cost at p. Never a prime this theorem was already measured at (a sweep meets every p
once, and the kernel memoises region bounds by p: 53 measured again after 47's run cost 3 ms, not 30), and
the warm-up is at a prime beyond every measured one. Then the overhead of a task: the seconds a Dask LocalCluster of two workers
takes per task beyond the work, from 64 tasks of about 50 ms (the larger of the pool's and Dask's, so the
estimate is an upper one for the pool). Writes ``sweep_costs.json`` beside this script (package data:
:func:`certify.sweep.load_sweep_costs` reads it); the numbers are of the machine it ran on, named in the table.
A theorem whose defaults hold only up to a prime (its record's ``largest_default_prime``: twin_plus, 31; twin_above, 173) is
measured at the primes up to it, warmed at that prime, which it then leaves out. ``--theorems`` measures those
theorems only and keeps the rest of the table at ``--out`` (the machine note says which were measured when).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

#: The primes measured by default: small p (the purity tube's integrals up to 47), the range of the README's
#: sweeps and beyond (the estimate extrapolates along the last two).
DEFAULT_PRIMES = (5, 13, 47, 53, 101, 1009, 10007, 100003, 1000003)


#: The warm-up's prime (the largest below 10^18): beyond every measured one, so no measured prime meets its memo entries.
WARM_PRIME = 999_999_999_999_999_989


def _next_primes(p: int, count: int, skip=frozenset(), largest: int | None = None) -> list[int]:
    """The ``count`` primes from p on that are not in ``skip`` (fewer if ``largest`` comes first)."""
    from certify.kernel.primes import require_prime

    found, n = [], p
    while len(found) < count and (largest is None or n <= largest):
        if n not in skip:
            try:
                found.append(require_prime(n))
            except Exception:  # noqa: BLE001 - not a prime: the next number
                pass
        n += 1
    return found


def certificate_seconds(theorem: str, p: int, per_point: int, made: set | None = None) -> float:
    """The median seconds of making the certificates of ``theorem`` at the ``per_point`` primes from p on that
    are not in ``made`` (the primes this theorem was measured at before; the ones made now are added), and not
    above the theorem's ``largest_default_prime``."""
    from certify.sweep import make_certificate, run_spec
    from certify.theorems.registry import THEOREMS

    made = set() if made is None else made
    spec = run_spec(theorem)
    seconds = []
    for q in _next_primes(p, per_point, made, THEOREMS[theorem].largest_default_prime):
        start = time.perf_counter()
        make_certificate(theorem, q, spec)
        seconds.append(time.perf_counter() - start)
        made.add(q)
    return statistics.median(seconds)


def _busy(seconds: float) -> float:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return seconds


def task_overhead_seconds(tasks: int = 64, work: float = 0.05) -> float:
    """Seconds per task that a LocalCluster of two workers adds to ``tasks`` tasks of ``work`` seconds each,
    sent one a worker as certify sweep sends them: (wall x 2 - the work) / tasks."""
    from certify.cluster import connect
    from certify.sweep import DaskPool

    client, cluster = connect(None, 2, 30.0)
    try:
        pool = DaskPool(client, 2)
        for i in range(2):  # the workers start their interpreters first
            pool.submit(i, lambda: (_busy, (0.01,)))
        list(pool.results())
        for i in range(tasks):
            pool.submit(i, lambda: (_busy, (work,)))
        start = time.perf_counter()
        list(pool.results())
        wall = time.perf_counter() - start
    finally:
        client.close()
        cluster.close()
    return max(1e-4, (2 * wall - tasks * work) / tasks)


def measure(primes, per_point: int, theorems=None) -> dict:
    from certify.theorems.registry import THEOREMS

    theorems = tuple(THEOREMS) if theorems is None else theorems
    largest = {theorem: THEOREMS[theorem].largest_default_prime for theorem in theorems}
    for theorem in theorems:  # warm: imports, Arb's first constants, what a worker computes once (smooth's J)
        certificate_seconds(theorem, largest[theorem] or WARM_PRIME, 1)
    table: dict = {}
    for theorem in theorems:
        table[theorem], made = {}, {largest[theorem]} - {None}
        for p in (p for p in primes if largest[theorem] is None or p < largest[theorem]):
            table[theorem][str(p)] = round(certificate_seconds(theorem, p, per_point, made), 6)
            print(f"{theorem:>11} p = {p:>8}: {1000 * table[theorem][str(p)]:8.1f} ms a certificate", flush=True)
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--primes", default=",".join(map(str, DEFAULT_PRIMES)),
                        help="comma-separated primes to measure at")
    parser.add_argument("--per-point", type=int, default=5, help="certificates per measured prime (their median)")
    parser.add_argument("--out", default=str(Path(__file__).with_name("sweep_costs.json")))
    parser.add_argument("--load-note", default="", help="what else ran on the machine (recorded with the load)")
    parser.add_argument("--theorems", default=None, help="comma-separated: measure these only, keep the rest of --out")
    args = parser.parse_args(argv)
    primes = [int(text) for text in args.primes.split(",")]
    started = time.strftime("%Y-%m-%d")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    note = f"load averages {load} at the start{f' ({args.load_note})' if args.load_note else ''}, {started}"
    if args.theorems:
        theorems = tuple(args.theorems.split(","))
        document = json.loads(Path(args.out).read_text())
        document["seconds_per_certificate"].update(measure(primes, args.per_point, theorems))
        document["machine"] += f"; {', '.join(theorems)} measured alone, {note}"
    else:
        table = measure(primes, args.per_point)
        overhead = task_overhead_seconds()
        print(f"task overhead: {1000 * overhead:.1f} ms a task (Dask LocalCluster, 2 workers)")
        document = {
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {note}",
            "measured_by": "python -m certify.sweep_costs",
            "seconds_per_certificate": table,
            "task_seconds": round(overhead, 6),
        }
    Path(args.out).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="ascii")
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
