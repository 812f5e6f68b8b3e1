"""Benchmark: the death event's sensitivity table (issue 15), floats: cross-checks, never bounds.

For p = 5 and 13 and eta = 1e-1 ... 1e-4 (nudged only if resonant): GD on the full 3p-parameter
network from (2.1) for K = round(1.5 T* / eta) steps, differentiated exactly (complex step through
the executed branch sequence), compared with the closed-form J_reg and Psi'.  Prints the table
(|J_AD - J_reg|_F, its Euler part after removing the grid-phase term, |J_AD - Psi'|_F,
|J_restored - Psi'|_F, the gap |Psi' - J_reg|_F) and the time.  Run: .venv/bin/python tests/bench_sensitivity.py
"""

from __future__ import annotations

import sys
import time

from certify.numeric.sensitivity import ETAS, format_table, sensitivity_table


def main(primes=(5, 13), etas=ETAS) -> None:
    total = time.perf_counter()
    for p in primes:
        t0 = time.perf_counter()
        rows = sensitivity_table(p, etas=etas)
        print(f"p = {p}  (floats: cross-checks, never bounds; horizon 1.5 T*, T* = {rows[0]['T_star']:.6f})")
        print(format_table(rows))
        print(f"p = {p}: {time.perf_counter() - t0:.1f} s\n", flush=True)
    print(f"total {time.perf_counter() - total:.1f} s")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (5, 13))
