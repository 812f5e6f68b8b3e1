"""Proposition S.25 with Lemma S.26's cells of w, proved in balls on the cells that carry its float value
(docs/staircase.md, section 11.16, "The lower sum in balls"). A computer-assisted proof outside the certificates: no
certificate states this bound, and the Coq library does not re-prove it. It prints a proved lower bound of
log10 P(R_stair | active) at sigma = 1 and the time it took.

    python examples/staircase/region_stair_proved.py [--p 5 7] [--top N] [--select]

What is proved and how (section 11.16 gives each step's lemma):

* The grids are region_stair_whole.GRIDS and SPREAD as exact rationals (GRIDS below, the same node counts).
* Floats only choose: which cells of (D, E) to keep and which spreads s_q in each (CELLS_FILE, written by
  --select from the float sum: the cells that carry 99% of it and, in each, the 4 spreads that the float sum
  prefers), and, per cell and spread, the window of indices t where the balls evaluate F_0. Any choice gives a lower
  sum: a dropped cell, spread or pair contributes 0 (Proposition S.25 allows any subset of cells; its Abel step runs
  per cell of (D, E) over whatever spreads that cell keeps).
* Every number that enters the bound is a ball (python-flint, PREC bits) or an exact integer: the cell masses Q_ik of
  Lemma S.24 as integers below their balls' lower ends; the convolution tails T_kl(t) as exact integer polynomial
  products (FLINT's fmpz_poly), rounded down; F_0 and F_1 of (S.43) with Lemma S.26's V_n as integers above their
  balls' upper ends and b_+ as one below, so that an integer comparison F_0 + F_1 + F_1 < b_+ proves (S.44); the laws'
  masses P_D, P_E and a lower Riemann sum of P(spread <= s) (Lemma S.26, item 2) as balls.
* The index t_kl of each pair (k, l) is the least t in the window where (S.44) is proved at both ends of the D cell,
  and at least the exact least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0 (F_0 decreases in X, so a proof at a
  smaller X covers X_t).

--select recomputes CELLS_FILE from the float sum (about 2 and 3 minutes at p = 5 and 7). --top N proves only the N
cells of CELLS_FILE that carry most (a smaller lower sum; the tests use it).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
from fractions import Fraction as Q
from itertools import accumulate

import numpy as np
from flint import arb, fmpq, fmpz_poly

import region_stair_whole as whole
from certify.kernel.balls import ball, certainly_positive, working_precision
from certify.kernel.region_memorise import normal_cdf

#: bits of every ball
PREC = 96
#: the scale of the integers: F values carry LOG_BITS bits after the point; the largest cell mass Q_ik MASS_BITS bits
#: (Psi falls by about 2^-87 over a's window at p = 5 and 2^-140 at p = 7: the least carry 60 bits or more)
LOG_BITS, MASS_BITS = 40, 200
#: p -> exact grids: the steps of a (and b), r (and c), D, E and the spread s; the windows of a, r, D, E; the largest s.
#: The same nodes as region_stair_whole.GRIDS and SPREAD (checked in ``grids``).
GRIDS = {
    5: dict(h=Q(1, 40), hr=Q(1, 40), hD=Q(1, 40), hE=Q(1, 20), hs=Q(1, 80), a=(Q(0), Q(5)), r=(Q(1, 10), Q(8, 5)),
            D=(Q(1, 20), Q(9, 10)), E=(Q(4), Q(9)), s_max=Q(8, 5)),
    7: dict(h=Q(1, 160), hr=Q(1, 80), hD=Q(1, 80), hE=Q(1, 40), hs=Q(1, 500), a=(Q(1), Q(11, 2)),
            r=(Q(3, 20), Q(1)), D=(Q(1, 5), Q(3, 5)), E=(Q(17, 2), Q(11)), s_max=Q(4, 25)),
}
#: the cells of (D, E) and the spreads kept in each, chosen by --select (floats)
CELLS_FILE = pathlib.Path(__file__).with_name("region_stair_cells.json")
#: the window of t per cell and spread spans the float indices of the pairs whose float share of the cell's sum
#: exceeds this fraction of the largest pair's (the others are proved only if their index falls inside it)
WINDOW_SHARE = 1e-9
#: the spreads kept per cell, and the share of the float sum the kept cells carry
SPREADS_PER_CELL, CARRIED = 4, 0.99
#: the lower Riemann sum of P(spread <= s): nodes x = -RANGE_X + i/RANGE_STEPS_PER_UNIT on [-RANGE_X, RANGE_X]
RANGE_X, RANGE_STEPS_PER_UNIT = 8, 64


def fq(x: Q) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def grids(p: int) -> dict:
    """The exact nodes of p's grids, and their counts checked against region_stair_whole's float grids."""
    g = GRIDS[p]
    count = lambda lo, hi, step: int((hi - lo) / step) + 1  # noqa: E731  (the windows are whole multiples)
    out = dict(g)
    out["a_nodes"] = [g["a"][0] + i * g["h"] for i in range(count(*g["a"], g["h"]))]
    out["r_nodes"] = [g["r"][0] + k * g["hr"] for k in range(count(*g["r"], g["hr"]))]
    out["D_nodes"] = [g["D"][0] + d * g["hD"] for d in range(count(*g["D"], g["hD"]))]
    out["E_nodes"] = [g["E"][0] + m * g["hE"] for m in range(count(*g["E"], g["hE"]))]
    out["spreads"] = [q * g["hs"] for q in range(1, int(g["s_max"] / g["hs"]) + 1)]
    h, hr, hD, hE, _, awin, rwin, Dwin, Ewin, _ = whole.GRIDS[p]
    assert len(out["a_nodes"]) == len(np.arange(awin[0], awin[1] + h / 2, h))
    assert len(out["r_nodes"]) == len(np.arange(rwin[0], rwin[1] + hr / 2, hr))
    assert len(out["D_nodes"]) == len(np.arange(Dwin[0], Dwin[1] + hD / 2, hD))
    assert len(out["E_nodes"]) == len(np.arange(Ewin[0], Ewin[1] + hE / 2, hE))
    assert g["hE"] == 2 * g["hD"]  # D + E then lies on the grid of D's step (the cache of e^{-X (D + E)})
    return out


def ceil_scaled(x: arb, bits: int) -> int | None:
    """The least integer >= 2^bits times every point of the ball x, or None if x is not finite."""
    if not x.is_finite():
        return None
    m, e = x.upper().man_exp()
    s = int(e) + bits
    return int(m) << s if s >= 0 else -((-int(m)) >> -s)


def floor_scaled(x: arb, bits: int) -> int | None:
    """The greatest integer <= 2^bits times every point of the ball x, or None if x is not finite."""
    if not x.is_finite():
        return None
    m, e = x.lower().man_exp()
    s = int(e) + bits
    return int(m) << s if s >= 0 else int(m) >> -s


def upper_tail(x: arb) -> arb:
    """Phi(-x) = erfc(x/sqrt 2)/2, accurate in relative terms far out."""
    return normal_cdf(-x)


# ---------------------------------------------------------------------------------------------------- the gates


def gate_tails(p: int, G: dict):
    """The gates' side of (S.45), proved: (Tman, Texp, t_gates). Tman[k, l, t] 2^Texp[k, l, t] (int64 arrays, the
    mantissa below 2^52) is at most T_kl(t) = sum_{i + j >= t} Q_ik Q_jl (Tman[..., 2N - 1] = 0, "no index"), the tails
    being exact integer sums of the integers below the balls of Q_ik; t_gates[k, l] is the least t with
    r_{k+1} + r_{l+1} <= X_t and X_t > 0, exactly (2N - 1 if none)."""
    n = p - 2
    a, r = G["a_nodes"], G["r_nodes"]
    N, K = len(a) - 1, len(r) - 1
    ab = [ball(fq(x)) for x in a]
    rb = [ball(fq(x)) for x in r]
    tail = [upper_tail(x) ** (n + 1) for x in ab]  # Phi(-a_i)^(n+1)
    psi = [(tail[i] - tail[i + 1]) / (n + 1) for i in range(N)]  # Lemma S.24's Psi(a_i, a_{i+1})
    cdf = [[normal_cdf(rk - ai) for rk in rb] for ai in ab]  # Phi(r_k - a_i)
    Qb = [[psi[i] * (cdf[i][k + 1] - cdf[i][k]).min(cdf[i + 1][k + 1] - cdf[i + 1][k]) for k in range(K)]
          for i in range(N)]
    top = max(float(x.mid()) for row in Qb for x in row)
    exponent = MASS_BITS - math.frexp(top)[1]  # the largest Q_ik ~ 2^MASS_BITS: the least keep about 30 bits
    Qint = [[max(floor_scaled(x, exponent) or 0, 0) for x in row] for row in Qb]
    polys = [fmpz_poly([Qint[i][k] for i in range(N)]) for k in range(K)]
    X0, h = 2 * a[0], G["h"]
    t_gates = np.full((K, K), 2 * N - 1, dtype=np.int64)
    for k in range(K):
        for l in range(K):
            t = math.ceil(max((r[k + 1] + r[l + 1] - X0) / h, (-X0) / h))
            if X0 + t * h <= 0:
                t += 1
            t_gates[k, l] = min(max(t, 0), 2 * N - 1)
    Tman = np.zeros((K, K, 2 * N), dtype=np.int64)
    Texp = np.zeros((K, K, 2 * N), dtype=np.int64)
    for k in range(K):
        for l in range(k, K):
            c = (polys[k] * polys[l]).coeffs()
            tail = list(accumulate(reversed(c)))[::-1]  # 2^(2 exponent) T_kl(t), exactly
            t0 = int(t_gates[k, l])  # below it T_kl is never read (t_kl >= t_gates): left 0
            sh = [max(x.bit_length() - 52, 0) for x in tail[t0:]]
            Tman[k, l, t0:len(tail)] = [x >> s for x, s in zip(tail[t0:], sh)]  # man 2^(s - 2 exponent) <= T_kl
            Texp[k, l, t0:len(tail)] = sh
    Texp -= 2 * exponent
    lower = np.tril_indices(K, -1)
    Tman[lower] = Tman.transpose(1, 0, 2)[lower]  # T_lk = T_kl
    Texp[lower] = Texp.transpose(1, 0, 2)[lower]
    return Tman, Texp, t_gates


# ---------------------------------------------------------------------------------------------------- w's side


class WSide:
    """Balls of F_0, F_1 and b_+ for Lemma S.26's cells (sigma = 1), with caches of the exponentials."""

    def __init__(self, p: int, G: dict):
        self.p, self.n, self.G = p, p - 2, G
        self.X = [2 * G["a"][0] + t * G["h"] for t in range(2 * (len(G["a_nodes"]) - 1) - 1)]
        self.Xb = [ball(fq(x)) for x in self.X]
        self.rb = [ball(fq(x)) for x in G["r_nodes"]]
        self.Db = [ball(fq(x)) for x in G["D_nodes"]]
        self.Eb = [ball(fq(x)) for x in G["E_nodes"]]
        self.sb = [ball(fq(x)) for x in G["spreads"]]
        self.cache = {}
        self.log2 = ball(2).log()

    def vertex_sum(self, y: arb) -> arb:
        """V_n(y) of Lemma S.26: max over j = 1..n-1 of j e^{y (n - j)/n} + (n - j) e^{-y j/n}."""
        n = self.n
        u = (y / n).exp()
        iu = 1 / u
        return max_ball([j * u ** (n - j) + (n - j) * iu**j for j in range(1, n)])

    def _exp(self, key, make):
        v = self.cache.get(key)
        if v is None:
            v = self.cache[key] = make()
        return v

    def F1_upper(self, d: int, m: int, q: int) -> list[int | None]:
        """Integers >= 2^LOG_BITS F_1(r_k; D_d) at the E_lo = E_m, s = s_q cell, k = 0..K (Lemma S.26's V_n)."""
        D, E, s = self.Db[d], self.Eb[m], self.sb[q]
        out = []
        for k, z in enumerate(self.rb):
            up = self._exp(("zD", k, d), lambda: (z * D).exp())
            down = self._exp(("zE", k, m), lambda: (-z * E).exp())
            V = self._exp(("zs", k, q), lambda: self.vertex_sum(z * s))
            out.append(ceil_scaled((1 + up + down * V).log(), LOG_BITS))
        return out

    def F0_upper(self, d: int, m: int, q: int, ts) -> list[int | None]:
        """Integers >= 2^LOG_BITS F_0(X_t; D_d) at the E_lo = E_m, s = s_q cell, for t in ts."""
        D, s = self.Db[d], self.sb[q]
        DE = self.Db[d] + self.Eb[m]  # exact: D_d + E_m = D_0 + E_0 + (d + 2 m) hD
        out = []
        for t in ts:
            X = self.Xb[t]
            a = self._exp(("XD", t, d), lambda: (-X * D).exp())
            b = self._exp(("XDE", t, d + 2 * m), lambda: (-X * DE).exp())
            V = self._exp(("Xs", t, q), lambda: self.vertex_sum(X * s))
            out.append(ceil_scaled((1 + a + b * V).log(), LOG_BITS))
        return out

    def budget_lower(self, d: int, m: int, q: int) -> int | None:
        """An integer <= 2^LOG_BITS b_+ (Lemma S.26: rho_+ = 1 + s/(g - (n - 1) s/n)), or None when the cell's
        hypotheses fail (exactly: E_m > s and g = (D_d + 2 E_m)/p > (n - 1) s/n)."""
        G, n = self.G, self.n
        D, E, s = G["D_nodes"][d], G["E_nodes"][m], G["spreads"][q]
        g, s1 = (D + 2 * E) / self.p, (n - 1) * s / n
        if not (E > s and g > s1):
            return None
        rho = 1 + s / (g - s1)
        b = 2 * self.log2 + ball(fq(2 / ((self.p - 1) * rho)))
        return floor_scaled(b, LOG_BITS)


def max_ball(xs: list[arb]) -> arb:
    """A ball containing the maximum of the points of the balls xs (Arb's max)."""
    out = xs[0]
    for x in xs[1:]:
        out = out.max(x)
    return out


def tail_sum(man: np.ndarray, exp: np.ndarray) -> Q:
    """An exact rational <= sum man_i 2^exp_i (man_i >= 0 below 2^52): each term floored to a multiple of 2^E0,
    E0 = 13 + the largest exponent, so that the int64 sum of up to 2^13 terms below 2^39 is exact."""
    live = man > 0
    if not live.any():
        return Q(0)
    e0 = int(exp[live].max()) + 13
    terms = man[live] >> np.minimum(e0 - exp[live], 63)
    return Q(int(terms.sum())) * Q(2) ** e0


BIG = 1 << 62  # "not proved": an upper bound no comparison accepts


def first_proved(values: list[int | None], start: int, thresholds: np.ndarray, none: int) -> np.ndarray:
    """For each threshold, start + the least i with values[i] < threshold (an exact integer comparison), or ``none``
    if no value is below it."""
    v = np.array([BIG if x is None else x for x in values], dtype=np.int64)
    running = np.minimum.accumulate(v)  # first index below a threshold = first index where the running min is
    idx = np.searchsorted(-running, -thresholds, side="right")
    return np.where(idx < len(v), start + idx, none)


# ---------------------------------------------------------------------------------------------------- the laws


def spread_lower(n: int, s: arb, nodes: list[arb], cdf: list[arb], density: list[arb], step: arb) -> arb:
    """A ball whose lower end is <= P(max - min of n iid N(0, 1) <= s) = n int phi(x) (Phi(x + s) - Phi(x))^(n-1) dx
    (Lemma S.26, item 2): the integral over the nodes' range, bounded below cell by cell by the step times the smaller
    end value of phi (unimodal) times that of Phi(x + s) - Phi(x) (log-concave) to the power n - 1."""
    g = [normal_cdf(x + s) - c for x, c in zip(nodes, cdf)]
    total = arb(0)
    for i in range(len(nodes) - 1):
        total += density[i].min(density[i + 1]) * g[i].min(g[i + 1]) ** (n - 1)
    return n * step * total


def prove(p: int, cells: list, verbose: bool = True) -> dict:
    """The right side of (S.45) with Lemma S.26's cells, on ``cells`` = [(d, m, [q, ...]), ...] (q ascending), as a
    ball whose lower end is a proved lower bound of P(R_stair | active) at sigma = 1; with counts and times."""
    start = time.process_time()
    G = grids(p)
    n = p - 2
    with working_precision(PREC):
        Tman, Texp, t_gates = gate_tails(p, G)
        gates_seconds = time.process_time() - start
        K, twoN = Tman.shape[0], Tman.shape[2]
        w = WSide(p, G)
        # the floats: X, r and t_gates for region_stair_whole.first_indices (a window of t per cell and spread)
        Xf = np.array([float(x) for x in w.X])
        rf = np.array([float(x) for x in G["r_nodes"]])
        kk, ll = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
        sE = (ball(fmpq(1, 2)) + ball(fmpq(1, n))).sqrt()
        rt2 = ball(2).sqrt()
        # the spread's law, by a lower Riemann sum
        step = fmpq(1, RANGE_STEPS_PER_UNIT)
        xs = [ball(fmpq(i - RANGE_X * RANGE_STEPS_PER_UNIT, RANGE_STEPS_PER_UNIT))
              for i in range(2 * RANGE_X * RANGE_STEPS_PER_UNIT + 1)]
        cdf = [normal_cdf(x) for x in xs]
        density = [(-x * x / 2).exp() / (2 * arb.pi()).sqrt() for x in xs]
        spread_mass = {}
        total, proved_pairs, evaluations = arb(0), 0, 0
        for d, m, qs in cells:
            D0, D1 = G["D_nodes"][d], G["D_nodes"][d + 1]
            E0, E1 = G["E_nodes"][m], G["E_nodes"][m + 1]
            levels = []
            for q in qs:
                b = w.budget_lower(d, m, q)
                if b is None:
                    levels.append(Q(0))
                    continue
                tf = whole.first_indices(p, Xf, rf, t_gates, float(D0), float(D1), float(E0),
                                         float(G["spreads"][q]), spread=True)
                at = np.minimum(tf, twoN - 1)
                share = np.where(tf < twoN - 1, Tman[kk, ll, at] * np.exp2(Texp[kk, ll, at].astype(float)), 0.0)
                useful = share > WINDOW_SHARE * share.max()  # floats choose the window only
                if not useful.any():
                    levels.append(Q(0))
                    continue
                lo = max(int(tf[useful].min()) - 2, 0)
                hi = min(int(tf[useful].max()) + 2, twoN - 2)
                t = t_gates.copy()
                for dd in (d, d + 1):
                    f1 = np.array([BIG if x is None else x for x in w.F1_upper(dd, m, q)], dtype=np.int64)
                    f1max = np.maximum(f1[:-1], f1[1:])
                    thresholds = b - f1max[:, None] - f1max[None, :]
                    f0 = w.F0_upper(dd, m, q, range(lo, hi + 1))
                    evaluations += len(f0) + len(f1)
                    t = np.maximum(t, first_proved(f0, lo, thresholds.ravel(), twoN - 1).reshape(K, K))
                t = np.minimum(t, twoN - 1)
                proved_pairs += int((t < twoN - 1).sum())
                levels.append(tail_sum(Tman[kk, ll, t], Texp[kk, ll, t]))
            H = list(accumulate(levels, min)) + [0]
            inner = arb(0)
            for i, q in enumerate(qs):
                if H[i] > H[i + 1]:
                    if q not in spread_mass:
                        spread_mass[q] = spread_lower(n, w.sb[q], xs, cdf, density, ball(step))
                    inner += ball(fq(H[i] - H[i + 1])) * spread_mass[q]
            PD = upper_tail(ball(fq(D0)) / rt2) - upper_tail(ball(fq(D1)) / rt2)
            PE = None
            for D in (D0, D1):
                e = upper_tail((ball(fq(E0)) + ball(fq(D / 2))) / sE) - upper_tail((ball(fq(E1)) + ball(fq(D / 2))) / sE)
                PE = e if PE is None else PE.min(e)
            total += PD * PE * inner
        bound = total * p * p * (p - 1)
        if not certainly_positive(bound):
            raise RuntimeError(f"the lower sum is not proved positive at p = {p}")
        log10 = bound.log() / ball(10).log()
    return {"bound": bound, "log10_lower": float(log10.lower()), "cells": len(cells),
            "spreads": sum(len(c[2]) for c in cells), "pairs": proved_pairs, "evaluations": evaluations,
            "seconds": time.process_time() - start, "gate_seconds": gates_seconds}


# ---------------------------------------------------------------------------------------------------- selection


def best_spreads(G: np.ndarray, mass: np.ndarray, size: int) -> list[int]:
    """The ``size`` indices q (ascending) that maximise the float Abel sum sum (H_q - H_next) mass_q, H the running
    minimum of G over the chosen indices (by dynamic programming on G's running minimum, which the chosen indices'
    own running minimum can only exceed)."""
    Gm = np.minimum.accumulate(G)
    Qn = len(G)
    value = {1: Gm * mass}
    choice = {}
    for j in range(2, size + 1):
        v = np.full(Qn, -np.inf)
        c = np.zeros(Qn, dtype=int)
        for i in range(Qn - 1):
            cand = (Gm[i] - Gm[i + 1:]) * mass[i] + value[j - 1][i + 1:]
            c[i] = i + 1 + int(np.argmax(cand))
            v[i] = cand[c[i] - i - 1]
        value[j], choice[j] = v, c
    j = max(k for k in value if np.isfinite(value[k]).any())
    i = int(np.argmax(value[j]))
    out = [i]
    while j > 1:
        i = int(choice[j][i])
        out.append(i)
        j -= 1
    return [q for q in out if G[q] > 0]


def select(p: int) -> list:
    """The cells of (D, E) that carry CARRIED of the float sum (region_stair_whole's, Lemma S.26's cells), largest
    first, each with its SPREADS_PER_CELL best spreads (floats: a choice, not a bound)."""
    h, hr, hD, hE, ha, awin, rwin, Dwin, Ewin, _ = whole.GRIDS[p]
    X, r, T, tg = whole.gate_tails(p, h, hr, awin, rwin)
    N = T.shape[2] // 2
    hs, smax = whole.SPREAD[p]
    spreads = hs * np.arange(1, int(round(smax / hs)) + 1)
    n = p - 2
    mass = np.array([whole.range_cdf(x, n) for x in spreads])
    sE = math.sqrt(0.5 + 1 / n)
    Dg = np.arange(Dwin[0], Dwin[1] + hD / 2, hD)
    Eg = np.arange(Ewin[0], Ewin[1] + hE / 2, hE)
    rows = []
    for d, (d0, d1) in enumerate(zip(Dg[:-1], Dg[1:])):
        PD = float(whole.interval_mass(np.array(d0 / math.sqrt(2)), np.array(d1 / math.sqrt(2))))
        for m, (e0, e1) in enumerate(zip(Eg[:-1], Eg[1:])):
            PE = min(whole.upper((e0 + D / 2) / sE) - whole.upper((e1 + D / 2) / sE) for D in (d0, d1))
            Gq = np.zeros(len(spreads))
            for q, s in enumerate(spreads):
                t = whole.first_indices(p, X, r, tg, d0, d1, e0, s, spread=True)
                if t is not None:
                    Gq[q] = np.take_along_axis(T, np.minimum(t, 2 * N - 1)[:, :, None], axis=2).sum()
            if Gq.max() <= 0:
                continue
            qs = sorted(best_spreads(Gq, mass, SPREADS_PER_CELL))
            H = np.append(np.minimum.accumulate(Gq[qs]), 0)
            rows.append((PD * PE * float(np.sum((H[:-1] - H[1:]) * mass[qs])), d, m, qs))
    rows.sort(key=lambda x: -x[0])
    weights = np.cumsum([x[0] for x in rows])
    keep = int(np.searchsorted(weights, CARRIED * weights[-1]) + 1)
    return [[d, m, qs] for _, d, m, qs in rows[:keep]]


def load_cells(p: int) -> list:
    data = json.loads(CELLS_FILE.read_text())
    return [(int(d), int(m), [int(q) for q in qs]) for d, m, qs in data[str(p)]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, nargs="+", default=[5, 7], choices=sorted(GRIDS))
    parser.add_argument("--top", type=int, default=None, help="prove only the N cells that carry most")
    parser.add_argument("--select", action="store_true", help=f"recompute {CELLS_FILE.name} from the float sum")
    args = parser.parse_args()
    if args.top is not None and args.top < 1:
        parser.error("--top must be >= 1")
    if args.select:
        data = json.loads(CELLS_FILE.read_text()) if CELLS_FILE.exists() else {}
        for p in args.p:
            data[str(p)] = select(p)
            print(f"p = {p}: {len(data[str(p)])} cells of (D, E) kept")
        CELLS_FILE.write_text(json.dumps(data, separators=(",", ":")) + "\n")
        return
    for p in args.p:
        cells = load_cells(p)[: args.top]
        out = prove(p, cells)
        print(f"p = {p}: log10 P(R_stair | active) >= {out['log10_lower']:.2f} (proved in balls; estimate "
              f"{whole.ESTIMATE[p]:.2f}, a factor {10 ** (whole.ESTIMATE[p] - out['log10_lower']):.1f}); "
              f"{out['cells']} cells of (D, E), {out['spreads']} with a spread, {out['pairs']} pairs (k, l) admitted, "
              f"{out['evaluations']} ball values of F_0 and F_1; {out['seconds']:.1f} s CPU "
              f"({out['gate_seconds']:.1f} s the gates' tails)")


if __name__ == "__main__":
    main()
