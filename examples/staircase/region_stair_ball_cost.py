"""What would a certified evaluation of Proposition S.25's lower sum (S.45) cost? A benchmark that prints figures
(docs/staircase.md, section 11.16). Not a certificate and not a proof of anything: it measures, on a sample of the cells
of w that carry the float sum, how long python-flint takes to prove (S.44) in balls at every index t_kl the floats
chose, and how many of those choices the balls confirm.

    python examples/staircase/region_stair_ball_cost.py [--p 5] [--cells 40] [--carrying] [--prec 64]

For each sampled cell (D cell, E_lo, alpha) of the p's grid in region_stair_whole.GRIDS (exact rationals: a_0, h and the
r grid as given, rounded to fractions of denominator 10^6), the floats choose t_kl as region_stair_whole.lower_sum does;
the balls then evaluate, at both ends of the D cell, 1 + e^{-kappa X D} + n e^{-kappa X (D + E_lo)} cosh(kappa X alpha)
at the chosen nodes X_t and 1 + e^{kappa z D} + n e^{-kappa z E_lo} cosh(kappa z alpha) at the r nodes (exp of (S.43)),
and prove the product form of (S.44), exp(F_0) exp(F_1(r)) exp(F_1(c)) < exp(b_+), with the larger of the two ends of
each r and c cell taken by four products. It prints the time per cell and per comparison, the share confirmed, and the
time the whole sum would take (cells x alphas x this cost), at sigma = 1. With --carrying it proves only the pairs
that carry 99% of each sampled cell's float sum (any subset of cells is still a lower sum); the cells' fixed cost
(the r nodes' balls) stays. Times depend on the machine's load: run it more than once.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq

import region_stair_whole as whole


def ball(x: Fraction) -> arb:
    """An exact ball of a rational."""
    return arb(fmpq(x.numerator, x.denominator))


def rational(x: float) -> Fraction:
    return Fraction(round(x * 10**6), 10**6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, default=5, choices=sorted(whole.GRIDS))
    parser.add_argument("--cells", type=int, default=40, help="cells of (D, E, alpha) sampled (default 40)")
    parser.add_argument("--carrying", action="store_true",
                        help="prove only the pairs (k, l) that carry 99%% of each cell's float sum")
    parser.add_argument("--prec", type=int, default=64, help="bits of the balls (default 64)")
    args = parser.parse_args()
    if args.cells < 1:
        parser.error("--cells must be >= 1")
    if args.prec < 2:
        parser.error("--prec must be >= 2")
    ctx.prec = args.prec
    p = args.p
    n = p - 2
    h, hr, hD, hE, ha, awin, rwin, Dwin, Ewin, alpha_max = whole.GRIDS[p]
    a0, H, R0, HR = (rational(x) for x in (awin[0], h, rwin[0], hr))
    N = int(round((awin[1] - awin[0]) / h))  # cells of a (and b); X_t for t < 2N - 1
    K = int(round((rwin[1] - rwin[0]) / hr)) + 1  # nodes of r (and c)
    Xq = [2 * a0 + t * H for t in range(2 * N - 1)]
    rq = [R0 + k * HR for k in range(K)]
    X, r, T, t_gates = whole.gate_tails(p, float(H), float(HR), (float(a0), float(a0 + N * H)),
                                        (float(R0), float(R0 + (K - 1) * HR)))
    assert len(X) == len(Xq) and len(r) == len(rq)
    rng = np.random.default_rng(1)
    Dg = np.arange(Dwin[0], Dwin[1] + hD / 2, hD)
    Eg = np.arange(Ewin[0], Ewin[1] + hE / 2, hE)
    alphas = ha * np.arange(1, int(round(alpha_max / ha)) + 1)
    # sample cells near the weight of section 11.15 (where the float sum is carried)
    centre = {5: (0.35, 6.2), 7: (0.375, 9.65)}[p]
    done, comparisons, confirmed, seconds, carrying = 0, 0, 0, 0.0, []
    log2 = arb(2).log()
    while done < args.cells:
        d = int(np.clip(np.searchsorted(Dg, centre[0] + rng.normal(0, 0.05)), 1, len(Dg) - 1)) - 1
        m = int(np.clip(np.searchsorted(Eg, centre[1] + rng.normal(0, 0.3)), 1, len(Eg) - 1)) - 1
        q = int(rng.integers(0, max(1, len(alphas) // 4)))
        d0, d1, e0, alpha = Dg[d], Dg[d + 1], Eg[m], alphas[q]
        t = whole.first_indices(p, X, r, t_gates, d0, d1, e0, alpha)
        if t is None:
            continue
        chosen = [(k, l, int(t[k, l])) for k in range(K - 1) for l in range(K - 1) if t[k, l] < 2 * N - 1]
        if not chosen:
            continue
        # how many pairs carry 99% of this cell's sum G (a certificate could keep only those)
        shares = np.array([T[k, l, tt] for k, l, tt in chosen])
        order = np.argsort(shares)[::-1]
        keep = int(np.searchsorted(np.cumsum(shares[order]), 0.99 * shares.sum()) + 1)
        carrying.append(keep)
        if args.carrying:
            chosen = [chosen[i] for i in sorted(order[:keep])]
        start = time.process_time()
        D0, D1, E, A = (ball(rational(x)) for x in (d0, d1, e0, alpha))
        G = (D0 + 2 * E) / p
        bound = (2 * log2 + 2 / ((p - 1) * (G + A) / (G - A))).exp()
        ok_all = {(k, l): True for k, l, _ in chosen}
        needed = {tt for _, _, tt in chosen}
        for Dend in (D0, D1):
            s1 = [1 + (ball(z) * Dend).exp() + n * (-(ball(z)) * E).exp() * (ball(z) * A).cosh() for z in rq]
            s0 = {tt: 1 + (-(ball(Xq[tt])) * Dend).exp() + n * (-(ball(Xq[tt])) * (Dend + E)).exp()
                  * (ball(Xq[tt]) * A).cosh() for tt in needed}
            for k, l, tt in chosen:
                if not ok_all[(k, l)]:
                    continue
                for sr in (s1[k], s1[k + 1]):
                    for sc in (s1[l], s1[l + 1]):
                        if not (s0[tt] * sr * sc < bound):  # a ball comparison: True only when proved
                            ok_all[(k, l)] = False
        seconds += time.process_time() - start
        comparisons += 8 * len(chosen)
        confirmed += sum(ok_all.values())
        done += 1
    total_cells = (len(Dg) - 1) * (len(Eg) - 1) * len(alphas)
    per_cell = seconds / done
    print(f"p = {p}, {args.prec} bits: {done} cells of (D, E, alpha), {comparisons} ball comparisons in {seconds:.2f} s "
          f"({1e6 * seconds / comparisons:.2f} us each, {per_cell * 1e3:.1f} ms a cell); the balls confirmed "
          f"{confirmed} of {comparisons // 8} float choices of t_kl; the grid's {total_cells} cells would take "
          f"{per_cell * total_cells / 60:.0f} min at this rate; 99% of a cell's sum sits on {int(np.median(carrying))} "
          f"of its pairs (median; {min(carrying)}-{max(carrying)})")


if __name__ == "__main__":
    main()
