"""Probability of the whole region U_stair of Theorem S (docs/staircase.md, section 11.16): Proposition S.25's lower
sum (S.45) with Lemma S.26's cells of w, evaluated with balls and exact integers on committed grids.

At sigma = 1 (kappa = 1), with n = p - 2, the proposition gives

    P(R_stair | active) >= p^2 (p - 1) sum_{d, m} P_D(d) P_E(d, m) sum_q (H_dmq - H_dm,q+1) P(spread(e) <= s_q)  (S.45)

over cells [D_d, D_{d+1}) x [E_m, E_{m+1}) of (D, E) and spreads s_q of e: H_dmq is the running minimum over the
cell's spreads of G_dmq = sum_{k, l} T_kl(t_kl), T_kl(t) = sum_{i + j >= t} Q_ik Q_jl the gates' mass (Lemma S.24)
at or above the index t_kl, where (S.44) is proved with Lemma S.26's V_n.

What is computed how:

* The grids are the exact rationals of :data:`GRIDS`. Which cells of (D, E), which spreads in each and which window
  of indices t to search were chosen by floats (``examples/staircase/region_stair_proved.py --select``) and are
  read from :data:`CELLS_PATH`: a choice, not a bound. Any choice gives a lower sum (a dropped cell, spread or pair
  contributes 0; the Abel step of the proof runs inside each cell of (D, E), over that cell's own spreads).
* The gates: Q_ik as integers below their balls (:func:`scaled_floor`); T_kl(t) as exact sums of their products
  (FLINT's fmpz_poly), stored as 52-bit mantissas rounded down and exponents (:func:`gate_tails`).
* w: F_0(X_t; D) and F_1(r_k; D) of (S.43) with V_n, as integers above 2^40 times their balls, b_+ as one below, so
  that the exact integer comparison F_0 + F_1 + F_1 < b_+ proves (S.44) (:func:`first_proved`); t_kl is the least
  window index where it is proved at both ends of the D cell, and at least the exact least index with
  r_{k+1} + r_{l+1} <= X_t and X_t > 0 (F_0 decreases in X: a proof at a smaller X covers X_t).
* The laws: P_D and P_E as balls of Phi; P(spread <= s) by a lower Riemann sum (:func:`spread_law_lower`).

Only floats' choices are read from the file, so no file can make the bound false; the sum is the same in every
process (fixed grids, precision and integers).
"""

from __future__ import annotations

import json
import math
from itertools import accumulate
from pathlib import Path

import numpy as np
from flint import arb, fmpq, fmpz_poly

from ..errors import NotCertified
from .balls import ball, certainly_positive, scaled_ceil, scaled_floor, working_precision
from .memo import memoized
from .region import stated_log_lower
from .region_memorise import normal_cdf

__all__ = ["GRIDS", "CELLS_PATH", "grid_nodes", "committed_cells", "validated_cells", "gate_tails", "tail_sum",
           "first_proved", "spread_law_lower", "stair_lower_sum", "stair_whole_region_log_lower"]

#: bits of every ball
PREC = 96
#: F_0, F_1 and b_+ are integers at the scale 2^LOG_BITS
LOG_BITS = 40
#: the largest Q_ik is an integer of about MASS_BITS bits: Q_ik falls (Psi and pi_k together) so that the least
#: nonzero one keeps 103 bits at p = 5 and 44 at p = 7 (a relative loss of about 2^-44 there)
MASS_BITS = 200
#: an integer no comparison accepts (every F bound is clamped to it; all integers stay below 2^61 in magnitude, so
#: numpy's int64 arithmetic on them is exact)
NOT_PROVED = 1 << 60

Q = fmpq
#: p -> the exact grids: steps h of a (and b; X_t = 2 a_0 + t h), hr of r (and c), hD of D, hE of E and hs of the
#: spread s; the windows of a, r, D and E; the largest s (docs/staircase.md, section 11.16, the proved sum)
GRIDS = {
    5: dict(h=Q(1, 40), hr=Q(1, 40), hD=Q(1, 40), hE=Q(1, 20), hs=Q(1, 80), a=(Q(0), Q(5)), r=(Q(1, 10), Q(8, 5)),
            D=(Q(1, 20), Q(9, 10)), E=(Q(4), Q(9)), s_max=Q(8, 5)),
    7: dict(h=Q(1, 80), hr=Q(1, 80), hD=Q(1, 80), hE=Q(1, 40), hs=Q(1, 500), a=(Q(1), Q(11, 2)),
            r=(Q(3, 20), Q(1)), D=(Q(1, 5), Q(3, 5)), E=(Q(17, 2), Q(11)), s_max=Q(4, 25)),
}
#: the floats' choice of cells, spreads and windows (package data)
CELLS_PATH = Path(__file__).with_name("region_stair_cells.json")
CELLS_FORMAT = "certify-region-stair-cells/1"
#: the lower Riemann sum of the spread's law: cells of 1/RANGE_STEPS on [-RANGE_X, RANGE_X]
RANGE_X, RANGE_STEPS = 8, 64


def _count(lo: fmpq, hi: fmpq, step: fmpq) -> int:
    n = (hi - lo) / step
    if n.q != 1:
        raise ValueError("a grid's window is not a whole number of steps")
    return int(n.p) + 1


def grid_nodes(p: int) -> dict:
    """The exact nodes of p's grids: a_nodes, r_nodes, D_nodes, E_nodes, spreads (s_1 < s_2 < ...), X (X_t for
    t = 0..2N - 2, N the cells of a). KeyError for a p without grids."""
    g = GRIDS[p]
    out = {"a_nodes": [g["a"][0] + i * g["h"] for i in range(_count(*g["a"], g["h"]))],
           "r_nodes": [g["r"][0] + k * g["hr"] for k in range(_count(*g["r"], g["hr"]))],
           "D_nodes": [g["D"][0] + d * g["hD"] for d in range(_count(*g["D"], g["hD"]))],
           "E_nodes": [g["E"][0] + m * g["hE"] for m in range(_count(*g["E"], g["hE"]))],
           "spreads": [q * g["hs"] for q in range(1, _count(Q(0), g["s_max"], g["hs"]))]}
    N = len(out["a_nodes"]) - 1
    out["X"] = [2 * g["a"][0] + t * g["h"] for t in range(2 * N - 1)]
    return out


def _require_grids(p: int) -> None:
    """NotCertified unless p has committed grids: the bound is not attempted at other primes."""
    if p not in GRIDS:
        raise NotCertified(f"Proposition S.25 has no committed grids at p = {p} (only at {sorted(GRIDS)})")


def committed_cells(p: int) -> list[tuple[int, int, list[tuple[int, int, int]]]]:
    """The cells of :data:`CELLS_PATH` at p: [(d, m, [(q, lo, hi), ...]), ...], each index checked against p's grids
    (q strictly increasing, 0 <= lo <= hi <= 2N - 2); NotCertified if p has no grids or no cells, or the file is not
    in its format (a packaging error: the bound is then not attempted)."""
    _require_grids(p)
    return _committed_cells(p)


@memoized
def _committed_cells(p: int):
    try:
        data = json.loads(CELLS_PATH.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != CELLS_FORMAT:
            raise ValueError(f"not in the format {CELLS_FORMAT}")
        return validated_cells(p, data[str(p)])
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as error:
        raise NotCertified(f"{CELLS_PATH.name} has no well-formed cells at p = {p} ({type(error).__name__}: "
                           f"{error})") from None


def validated_cells(p: int, cells) -> list[tuple[int, int, list[tuple[int, int, int]]]]:
    """``cells`` = [[d, m, [[q, lo, hi], ...]], ...] as tuples, each index checked against p's grids: integers with
    0 <= d < the cells of D, 0 <= m < those of E, q strictly increasing below the number of spreads, 0 <= lo <= hi <=
    2N - 2, and no cell (d, m) listed twice (the sum would count it twice). ValueError otherwise (also for an empty
    list)."""
    nodes = grid_nodes(p)
    sizes = (len(nodes["D_nodes"]) - 1, len(nodes["E_nodes"]) - 1, len(nodes["spreads"]), len(nodes["X"]))
    out = []
    for cell in cells:
        if not (isinstance(cell, (list, tuple)) and len(cell) == 3 and isinstance(cell[2], (list, tuple))):
            raise ValueError("a cell is not [d, m, [[q, lo, hi], ...]]")
        d, m, spreads = cell
        rows = [tuple(row) if isinstance(row, (list, tuple)) else () for row in spreads]
        if any(len(row) != 3 for row in rows) or not all(
                type(x) is int for x in (d, m, *(x for row in rows for x in row))):
            raise ValueError("an index is not an integer")
        qs = [q for q, _, _ in rows]
        if not (0 <= d < sizes[0] and 0 <= m < sizes[1] and qs == sorted(set(qs))
                and all(0 <= q < sizes[2] and 0 <= lo <= hi < sizes[3] for q, lo, hi in rows)):
            raise ValueError("an index lies outside the grids")
        out.append((d, m, rows))
    if not out:
        raise ValueError("no cells")
    if len({(d, m) for d, m, _ in out}) != len(out):  # a repeated cell would count its mass twice
        raise ValueError("a cell of (D, E) is listed twice")
    return out


# -- the gates ---------------------------------------------------------------------------------------------------


def gate_tails(p: int):
    """(Tman, Texp, t_gates) for p's grids (Proposition S.25 with Lemma S.24), at :data:`PREC` bits.

    Tman[k, l, t] 2^Texp[k, l, t] (int64 arrays, Tman < 2^52) is <= T_kl(t) = sum_{i + j >= t} Q_ik Q_jl for
    t >= t_gates[k, l] (0 below it and at the sentinel t = 2N - 1), with Q_ik = Psi(a_i, a_{i+1})
    min(pi_k(a_i), pi_k(a_{i+1})) of Lemma S.24: each Q_ik is replaced by the integer below 2^e times its ball
    (0 if that is negative), the tails are exact integer sums of their products, and each tail is rounded down to
    52 bits. t_gates[k, l] is the least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0, in exact rationals (2N - 1 if
    none). Memoised."""
    _require_grids(p)
    return _gate_tails(p)


@memoized
def _gate_tails(p: int):
    n = p - 2
    nodes = grid_nodes(p)
    a, r, h = nodes["a_nodes"], nodes["r_nodes"], GRIDS[p]["h"]
    N, K = len(a) - 1, len(r) - 1
    if K * K > 1 << 13:
        raise ValueError("too many pairs (k, l) for the int64 sums of tail_sum")
    with working_precision(PREC):
        ab, rb = [ball(x) for x in a], [ball(x) for x in r]
        upper = [normal_cdf(-x) ** (n + 1) for x in ab]  # Phi(-a_i)^(n+1)
        psi = [(upper[i] - upper[i + 1]) / (n + 1) for i in range(N)]
        cdf = [[normal_cdf(rk - ai) for rk in rb] for ai in ab]  # Phi(r_k - a_i)
        masses = [[psi[i] * (cdf[i][k + 1] - cdf[i][k]).min(cdf[i + 1][k + 1] - cdf[i + 1][k]) for k in range(K)]
                  for i in range(N)]
        top = max(_exponent(x) for row in masses for x in row)
        scale = MASS_BITS - top  # the largest Q_ik is about 2^MASS_BITS after scaling
        ints = [[max(scaled_floor(x, scale) or 0, 0) for x in row] for row in masses]
    X0 = 2 * a[0]
    t_gates = np.full((K, K), 2 * N - 1, dtype=np.int64)
    for k in range(K):
        for l in range(K):
            t = math.ceil(max((r[k + 1] + r[l + 1] - X0) / h, -X0 / h))
            if X0 + t * h <= 0:
                t += 1
            t_gates[k, l] = min(max(t, 0), 2 * N - 1)
    polys = [fmpz_poly([ints[i][k] for i in range(N)]) for k in range(K)]
    Tman = np.zeros((K, K, 2 * N), dtype=np.int64)
    Texp = np.zeros((K, K, 2 * N), dtype=np.int64)
    for k in range(K):
        for l in range(k, K):
            tail = list(accumulate(reversed((polys[k] * polys[l]).coeffs())))[::-1]  # 2^(2 scale) T_kl, exactly
            t0 = int(t_gates[k, l])  # T_kl is never read below t_gates: left 0
            shifts = [max(x.bit_length() - 52, 0) for x in tail[t0:]]
            Tman[k, l, t0:len(tail)] = [x >> s for x, s in zip(tail[t0:], shifts)]
            Texp[k, l, t0:len(tail)] = shifts
    Texp -= 2 * scale
    below = np.tril_indices(K, -1)
    Tman[below] = Tman.transpose(1, 0, 2)[below]  # T_lk = T_kl
    Texp[below] = Texp.transpose(1, 0, 2)[below]
    return Tman, Texp, t_gates


def _exponent(x: arb) -> int:
    """e with 2^(e-1) <= |mid(x)| < 2^e (0 for a zero midpoint): the scale of a ball, exactly."""
    mantissa, exponent = x.mid().man_exp()
    return int(mantissa).bit_length() + int(exponent) if mantissa else -(1 << 30)


def tail_sum(man: np.ndarray, exp: np.ndarray) -> fmpq:
    """An exact rational <= sum_i man_i 2^exp_i (0 <= man_i < 2^52, at most 2^13 terms): each term rounded down to a
    multiple of 2^e0, e0 = 13 + the largest exponent, so that the int64 sum of terms below 2^39 is exact."""
    live = man > 0
    if not live.any():
        return fmpq(0)
    e0 = int(exp[live].max()) + 13
    total = int((man[live] >> np.minimum(e0 - exp[live], 63)).sum())
    return fmpq(total) * fmpq(2) ** e0 if e0 >= 0 else fmpq(total, 2 ** -e0)


def _int64_upper(values: list) -> np.ndarray:
    """Integer upper bounds as int64: None (not finite) and anything above NOT_PROVED become NOT_PROVED, which no
    comparison accepts (a larger upper bound is still one)."""
    return np.array([NOT_PROVED if x is None else min(x, NOT_PROVED) for x in values], dtype=np.int64)


def first_proved(values: list, start: int, thresholds: np.ndarray, none: int) -> np.ndarray:
    """For each integer threshold, start + the least i with values[i] < threshold (exact integer comparisons; a
    value None is never below), or ``none`` where no value is."""
    v = _int64_upper(values)
    running = np.minimum.accumulate(v)  # nonincreasing: the first index below a threshold is the same
    index = np.searchsorted(-running, -thresholds, side="right")
    return np.where(index < len(v), start + index, none)


# -- w -----------------------------------------------------------------------------------------------------------


_MISSING = object()


class _W:
    """Integer bounds of F_0, F_1 (S.43) with Lemma S.26's V_n, and of b_+, at kappa = 1, with cached exponentials.
    Current precision."""

    def __init__(self, p: int, nodes: dict):
        self.p, self.n, self.nodes = p, p - 2, nodes
        self.X = [ball(x) for x in nodes["X"]]
        self.r = [ball(x) for x in nodes["r_nodes"]]
        self.D = [ball(x) for x in nodes["D_nodes"]]
        self.E = [ball(x) for x in nodes["E_nodes"]]
        self.s = [ball(x) for x in nodes["spreads"]]
        self.log4 = ball(4).log()
        self.cache = {}

    def _cached(self, key, make):
        value = self.cache.get(key, _MISSING)
        if value is _MISSING:
            value = self.cache[key] = make()
        return value

    def vertex_sum(self, y: arb) -> arb:
        """A ball containing V_n(y) = max_{j = 1..n-1} [j e^{y (n - j)/n} + (n - j) e^{-y j/n}] (Lemma S.26)."""
        n = self.n
        u = (y / n).exp()
        out = None
        for j in range(1, n):
            term = j * u ** (n - j) + (n - j) / u**j
            out = term if out is None else out.max(term)
        return out

    def F1_upper(self, d: int, m: int, q: int) -> list:
        """Integers >= 2^LOG_BITS F_1(r_k; D_d) = 2^LOG_BITS log(1 + e^{r_k D_d} + e^{-r_k E_m} V_n(r_k s_q)) for
        k = 0..K (None where a ball is not finite)."""
        return self._cached(("F1", d, m, q), lambda: self._F1_upper(d, m, q))  # cells (d - 1, m), (d, m): end d

    def _F1_upper(self, d: int, m: int, q: int) -> list:
        D, E, s = self.D[d], self.E[m], self.s[q]
        out = []
        for k, z in enumerate(self.r):
            up = self._cached(("zD", k, d), lambda: (z * D).exp())
            down = self._cached(("zE", k, m), lambda: (-z * E).exp())
            V = self._cached(("zs", k, q), lambda: self.vertex_sum(z * s))
            out.append(scaled_ceil((1 + up + down * V).log(), LOG_BITS))
        return out

    def F0_upper(self, d: int, m: int, q: int, ts) -> list:
        """Integers >= 2^LOG_BITS F_0(X_t; D_d) = 2^LOG_BITS log(1 + e^{-X_t D_d} + e^{-X_t (D_d + E_m)}
        V_n(X_t s_q)) for t in ``ts`` (None where a ball is not finite)."""
        return [self._cached(("F0", d, m, q, t), lambda: self._F0_upper(d, m, q, t)) for t in ts]  # by end d

    def _F0_upper(self, d: int, m: int, q: int, t: int) -> int | None:
        X, D, s = self.X[t], self.D[d], self.s[q]
        DE = D + self.E[m]  # exact: D_d + E_m lies on D's grid (hE = 2 hD), index d + 2m
        a = self._cached(("XD", t, d), lambda: (-X * D).exp())
        b = self._cached(("XDE", t, d + 2 * m), lambda: (-X * DE).exp())
        V = self._cached(("Xs", t, q), lambda: self.vertex_sum(X * s))
        return scaled_ceil((1 + a + b * V).log(), LOG_BITS)

    def budget_lower(self, d: int, m: int, q: int) -> int | None:
        """An integer <= 2^LOG_BITS b_+, b_+ = 2 log 2 + 2/((p - 1) rho_+), rho_+ = 1 + s/(g - (n - 1) s/n),
        g = (D_d + 2 E_m)/p (Lemma S.26); None where the cell's hypotheses E_m > s and g > (n - 1) s/n fail
        (decided exactly)."""
        nodes, n = self.nodes, self.n
        D, E, s = nodes["D_nodes"][d], nodes["E_nodes"][m], nodes["spreads"][q]
        g, s1 = (D + 2 * E) / self.p, (n - 1) * s / n
        if not (E > s and g > s1):
            return None
        rho = 1 + s / (g - s1)
        return scaled_floor(self.log4 + ball(2 / ((self.p - 1) * rho)), LOG_BITS)


# -- the laws ----------------------------------------------------------------------------------------------------


def spread_law_lower(n: int, s) -> arb:
    """A ball whose lower end is <= P(max - min of n iid N(0, 1) <= s) = n int phi(x) (Phi(x + s) - Phi(x))^(n - 1) dx
    (Lemma S.26, item 2), for an integer n >= 2 and an exact s > 0: the integral over [-RANGE_X, RANGE_X], bounded
    below on each cell of 1/RANGE_STEPS by its width times the smaller end value of phi (unimodal) times that of
    Phi(x + s) - Phi(x) (log-concave, as the convolution of phi with an indicator) to the power n - 1. At
    :data:`PREC` bits; memoised."""
    return _spread_law_lower(n, fmpq(s))


@memoized(maxsize=4096)
def _spread_law_lower(n: int, s: fmpq) -> arb:
    nodes, density, cdf = _range_nodes()
    with working_precision(PREC):
        sb = ball(s)
        width = [normal_cdf(x + sb) - c for x, c in zip(nodes, cdf)]
        total = arb(0)
        for i in range(len(nodes) - 1):
            total += density[i].min(density[i + 1]) * width[i].min(width[i + 1]) ** (n - 1)
        return n * total / (RANGE_STEPS * (2 * arb.pi()).sqrt())


@memoized
def _range_nodes():
    """The nodes of spread_law_lower's sum, e^{-x^2/2} and Phi at them (PREC bits)."""
    with working_precision(PREC):
        nodes = [ball(fmpq(i, RANGE_STEPS)) for i in range(-RANGE_X * RANGE_STEPS, RANGE_X * RANGE_STEPS + 1)]
        return nodes, [(-x * x / 2).exp() for x in nodes], [normal_cdf(x) for x in nodes]


# -- the sum -----------------------------------------------------------------------------------------------------


def stair_whole_region_log_lower(p: int, sigma) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_stair | initially active), theta(0) ~ N(0, sigma^2 I_{3p}):
    Proposition S.25 with Lemma S.26's cells (docs/staircase.md, section 11.16) on p's committed grids and cells,
    stated on the grid of :func:`certify.kernel.region.stated_log_lower`. NotCertified where it is not attempted
    (sigma != 1, or a p without grids) or not proved positive. Memoised."""
    if fmpq(sigma) != 1:
        raise NotCertified("Proposition S.25's committed cells were chosen at sigma = 1 only")
    return _whole_region_log_lower(p)


@memoized
def _whole_region_log_lower(p: int) -> arb:
    with working_precision(PREC):
        bound = stair_lower_sum(p, committed_cells(p))
        if not certainly_positive(bound):
            raise NotCertified(f"Proposition S.25's lower sum is not proved positive at p = {p}")
        return stated_log_lower(bound.log())


def stair_lower_sum(p: int, cells) -> arb:
    """A ball whose lower end is <= P(theta(0) in R_stair | initially active) at sigma = 1: the right side of (S.45)
    with Lemma S.26's cells on p's grids, over ``cells`` (see :func:`validated_cells`; ValueError if they are not
    well formed; KeyError for a p without grids). Computed at :data:`PREC` bits; the result is returned at that
    precision's accuracy."""
    n = p - 2
    nodes = grid_nodes(p)
    Tman, Texp, t_gates = gate_tails(p)
    K, sentinel = Tman.shape[0], Tman.shape[2] - 1
    kk, ll = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
    with working_precision(PREC):
        w = _W(p, nodes)
        root2 = ball(2).sqrt()
        sE = (ball(fmpq(1, 2)) + ball(fmpq(1, n))).sqrt()  # the law of E given D: N(-D/2, 1/2 + 1/n) (S.42)
        spread_mass = {}
        total = arb(0)
        for d, m, spreads in validated_cells(p, cells):
            levels = []
            for q, lo, hi in spreads:
                budget = w.budget_lower(d, m, q)
                if budget is None:
                    levels.append(fmpq(0))
                    continue
                t = t_gates.copy()
                for end in (d, d + 1):
                    f1 = _int64_upper(w.F1_upper(end, m, q))
                    worst = np.maximum(f1[:-1], f1[1:])  # F_1 is convex in z: its max on a cell is at an end
                    thresholds = budget - worst[:, None] - worst[None, :]
                    f0 = w.F0_upper(end, m, q, range(lo, hi + 1))
                    t = np.maximum(t, first_proved(f0, lo, thresholds.ravel(), sentinel).reshape(K, K))
                levels.append(tail_sum(Tman[kk, ll, t], Texp[kk, ll, t]))
            H = list(accumulate(levels, min)) + [fmpq(0)]
            inner = arb(0)
            for i, (q, _, _) in enumerate(spreads):
                if H[i] > H[i + 1]:  # exact rationals; Abel's coefficients are >= 0
                    if q not in spread_mass:
                        spread_mass[q] = spread_law_lower(n, nodes["spreads"][q])
                    inner += ball(H[i] - H[i + 1]) * spread_mass[q]
            D0, D1 = ball(nodes["D_nodes"][d]), ball(nodes["D_nodes"][d + 1])
            E0, E1 = ball(nodes["E_nodes"][m]), ball(nodes["E_nodes"][m + 1])
            PD = normal_cdf(-D0 / root2) - normal_cdf(-D1 / root2)  # D ~ N(0, 2)
            PE = None
            for D in (D0, D1):  # log-concave in D: at least the smaller end value on the cell
                e = normal_cdf(-(E0 + D / 2) / sE) - normal_cdf(-(E1 + D / 2) / sE)
                PE = e if PE is None else PE.min(e)
            total += PD * PE * inner
        return total * (p * p * (p - 1))
