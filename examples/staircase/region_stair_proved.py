"""The floats' choice behind the staircase's whole-region bound, and a run of it (docs/staircase.md, section 11.16,
"The lower sum in balls"). The bound itself is certify.kernel.region_stair's (Proposition S.25 with Lemma S.26's
cells, in balls and exact integers), stated by `certify staircase` as whole_region_probability at p = 5 and 7.

    python examples/staircase/region_stair_proved.py [--p 5 7] [--top N] [--select]

--select chooses what the kernel then proves, and writes it to certify/kernel/region_stair_cells.json (package
data): in floats, the cells of (D, E) that carry CARRIED of the float lower sum (region_stair_whole.py's evaluation
on the kernel's grids, with Lemma S.26's cells) and in each the SPREADS_PER_CELL spreads that the float sum
prefers; then, from one run of the kernel over every pair (k, l) of cells of r on those cells, the pairs whose
proved tails T_kl(t_kl) + T_lk(t_lk) reach PAIR_SHARE of their (cell, spread)'s sum G somewhere (--pairs redoes only
this step, on the committed cells, in about 6 s for both primes). It takes about 2 minutes at p = 5 and 4 at p = 7. A choice, not
a bound: any cells, spreads and pairs give a lower sum.

Without --select it runs the kernel's proof on the committed cells (all of them, or the --top N that carry most: a
smaller lower sum) and prints the bound, the factor to the importance-sampling estimate of section 11.15 and the
CPU time.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

import region_stair_whole as whole
from certify.kernel import region_stair as kernel

#: the spreads kept per cell, the share of the float sum the kept cells carry, and the share of a (cell, spread)'s sum G
#: that keeps a pair (the pairs left out lose less than their number times PAIR_SHARE of each G)
SPREADS_PER_CELL, CARRIED, PAIR_SHARE = 4, 0.99, 1e-6


def float_grids(p: int):
    """The kernel's grids as floats, and the float gate tails and index bounds of region_stair_whole."""
    nodes = kernel.grid_nodes(p)
    a = np.array([float(x) for x in nodes["a_nodes"]])
    r = np.array([float(x) for x in nodes["r_nodes"]])
    g = kernel.GRIDS[p]
    X, r_, T, t_gates = whole.gate_tails(p, float(g["h"]), float(g["hr"]), (a[0], a[-1]), (r[0], r[-1]))
    assert len(X) == len(nodes["X"]) and len(r_) == len(r)
    return nodes, X, r_, T, t_gates


def best_spreads(G: np.ndarray, mass: np.ndarray, size: int) -> list[int]:
    """The at most ``size`` indices q (ascending, with G > 0) that maximise the float Abel sum sum (H_q - H_next)
    mass_q, H the running minimum of G (by dynamic programming on G's running minimum over all q, which the
    chosen indices' own running minimum can only exceed)."""
    Gm = np.minimum.accumulate(G)
    count = len(G)
    value, choice = {1: Gm * mass}, {}
    for j in range(2, size + 1):
        v, c = np.full(count, -np.inf), np.zeros(count, dtype=int)
        for i in range(count - 1):
            candidates = (Gm[i] - Gm[i + 1:]) * mass[i] + value[j - 1][i + 1:]
            c[i] = i + 1 + int(np.argmax(candidates))
            v[i] = candidates[c[i] - i - 1]
        value[j], choice[j] = v, c
    j = max(k for k in value if np.isfinite(value[k]).any())
    i = int(np.argmax(value[j]))
    out = [i]
    while j > 1:
        i = int(choice[j][i])
        out.append(i)
        j -= 1
    return sorted(q for q in set(out) if G[q] > 0)


def select(p: int) -> list:
    """[d, m, [q, ...]] for the cells of (D, E) that carry CARRIED of the float sum, largest first."""
    nodes, X, r, T, t_gates = float_grids(p)
    n = p - 2
    spreads = np.array([float(s) for s in nodes["spreads"]])
    mass = np.array([whole.range_cdf(s, n) for s in spreads])
    Dg = [float(x) for x in nodes["D_nodes"]]
    Eg = [float(x) for x in nodes["E_nodes"]]
    rows = []
    for d, (d0, d1) in enumerate(zip(Dg[:-1], Dg[1:])):
        for m, (e0, e1) in enumerate(zip(Eg[:-1], Eg[1:])):
            G = np.zeros(len(spreads))
            for q, s in enumerate(spreads):
                t = whole.first_indices(p, X, r, t_gates, d0, d1, e0, s, spread=True)
                if t is not None:
                    G[q] = whole.pair_levels(T, t).sum()
            if G.max() <= 0:
                continue
            qs = best_spreads(G, mass, SPREADS_PER_CELL)
            H = np.append(np.minimum.accumulate(G[qs]), 0)
            rows.append((float(whole.cell_weight(n, d0, d1, e0, e1)) * float(np.sum((H[:-1] - H[1:]) * mass[qs])), d, m,
                         qs))
    rows.sort(key=lambda x: -x[0])
    weights = np.cumsum([x[0] for x in rows])
    keep = int(np.searchsorted(weights, CARRIED * weights[-1]) + 1)
    return [[d, m, qs] for _, d, m, qs in rows[:keep]]


def select_pairs(p: int, cells: list) -> list[list[int]]:
    """[[k, l], ...] (k <= l, increasing): the pairs of cells of r whose proved tails (T_kl(t_kl) + T_lk(t_lk), or
    T_kk(t_kk)) reach PAIR_SHARE of the sum G of their (cell, spread) for some committed (cell, spread), from the
    kernel's run over every pair (its proved indices; the tails' ratios in floats: a choice)."""
    pairs = kernel.all_pairs(p)
    indices: dict = {}
    kernel.stair_lower_sum(p, cells, pairs, indices)
    sentinel = len(kernel.grid_nodes(p)["X"])
    Tman, Texp = kernel.gate_tails(p, pairs, *kernel.proved_ranges(list(indices.values()), len(pairs), sentinel))
    rows, share = np.arange(len(pairs)), np.zeros(len(pairs))
    for t in indices.values():
        tails = Tman[rows, t] * np.exp2(Texp[rows, t].astype(float))
        if tails.sum() > 0:
            share = np.maximum(share, tails / tails.sum())
    return [list(pair) for pair, s in zip(pairs, share) if s >= PAIR_SHARE]


def write_choice(p: int, cells: list, pairs: list) -> None:
    """Write p's cells and pairs into the package file (the other primes' entries kept)."""
    path = kernel.CELLS_PATH
    data = json.loads(path.read_text()) if path.exists() else {}
    if data.get("format") != kernel.CELLS_FORMAT:
        data = {}
    data.update({"format": kernel.CELLS_FORMAT, str(p): {"cells": cells, "pairs": pairs}})
    path.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")


def prove_top(p: int, top: int | None) -> float:
    """log10 of the lower end of the kernel's proved lower sum on the ``top`` committed cells that carry most (all if
    None), as a float for printing."""
    bound = kernel.stair_lower_sum(p, kernel.committed_cells(p)[:top], kernel.committed_pairs(p))
    return math.log10(float(bound.lower().mid()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, nargs="+", default=sorted(kernel.GRIDS), choices=sorted(kernel.GRIDS))
    parser.add_argument("--top", type=int, default=None, help="prove only the N committed cells that carry most")
    parser.add_argument("--select", action="store_true", help=f"recompute {kernel.CELLS_PATH.name}")
    parser.add_argument("--pairs", action="store_true", help="recompute only its pairs, on the committed cells")
    args = parser.parse_args()
    if args.top is not None and args.top < 1:
        parser.error("--top must be >= 1")
    if args.select and args.pairs:
        parser.error("--select already chooses the pairs")
    if args.select or args.pairs:  # one run at a time: the file is read and written again after each prime
        for p in args.p:
            cells = select(p) if args.select else [[d, m, list(qs)] for d, m, qs in kernel.committed_cells(p)]
            pairs = select_pairs(p, cells)
            write_choice(p, cells, pairs)
            print(f"p = {p}: {len(cells)} cells of (D, E) and {len(pairs)} pairs of cells of r kept")
        return
    for p in args.p:
        start = time.process_time()
        log10 = prove_top(p, args.top)
        seconds = time.process_time() - start
        cells = kernel.committed_cells(p)[: args.top]
        print(f"p = {p}: log10 P(R_stair | active) >= {log10:.2f} (proved; estimate {whole.ESTIMATE[p]:.2f}, a factor "
              f"{10 ** (whole.ESTIMATE[p] - log10):.1f}); {len(cells)} cells of (D, E), "
              f"{sum(len(c[2]) for c in cells)} with a spread; {seconds:.1f} s CPU")


if __name__ == "__main__":
    main()
