"""Probability of the whole region U_stair of Theorem S (docs/staircase.md, section 11.16): Proposition S.25's lower
sum (S.45) with Lemma S.26's cells of w, evaluated with balls and exact integers on committed grids.

At sigma = 1 (kappa = 1), with n = p - 2, the proposition gives

    P(R_stair | active) >= p^2 (p - 1) sum_{d, m} P_D(d) P_E(d, m) sum_q (H_dmq - H_dm,q+1) P(spread(e) <= s_q)  (S.45)

over cells [D_d, D_{d+1}) x [E_m, E_{m+1}) of (D, E) and spreads s_q of e: H_dmq is the running minimum over the
cell's spreads of G_dmq = sum_{k, l} T_kl(t_kl), T_kl(t) = sum_{i + j >= t} Q_ik Q_jl the gates' mass (Lemma S.24)
at or above the index t_kl, where (S.44) is proved with Lemma S.26's V_n.

What is computed how:

* The grids are the exact rationals of :data:`GRIDS`. Which cells of (D, E), which spreads in each and which pairs
  (k, l) of cells of r to sum were chosen by floats and one run of this module over every pair
  (``examples/staircase/region_stair_proved.py --select``) and are read from :data:`CELLS_PATH`: a choice, not a
  bound. Any choice gives a lower sum (a dropped cell, spread or pair contributes 0; the Abel step of the proof runs
  inside each cell of (D, E), over that cell's own spreads).
* The gates: Q_ik as integers below their balls (:func:`scaled_floor`); T_kl(t) as exact sums of their products
  (FLINT's fmpz_poly), stored as 52-bit mantissas rounded down and exponents (:func:`gate_tails`).
* w: F_0(X_t; D) and F_1(r_k; D) of (S.43) with V_n as integers above 2^40 times their balls, b_+ as one below, so
  that the exact integer comparison F_0 + F_1 + F_1 < b_+ proves (S.44) (:func:`first_proved`). Both F's increase
  in the spread s and decrease in E, so each is evaluated where it is larger and shared: F_0 at the grid's least E
  and largest spread, once per node of D; F_1 at the cell's E_m and at the cell's largest spread rounded up to a
  lattice. t_kl is the largest of the least index where (S.44) is proved at D_d, the least where it is proved at
  D_{d+1} (F_0 decreases in X: a proof at a smaller X covers X_t) and the exact least index with
  r_{k+1} + r_{l+1} <= X_t and X_t > 0.
* The laws: P_D and P_E as balls of Phi; P(spread <= s) by a lower Riemann sum (:func:`spread_law_lower`).

docs/staircase.md, section 11.16, "The lower sum in balls", states why each step holds. Only choices are read from
the file, so no file can make the bound false; the sum is the same in every process (fixed grids, precision and
integers).
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

__all__ = ["GRIDS", "CELLS_PATH", "grid_nodes", "committed_cells", "committed_pairs", "validated_cells", "all_pairs",
           "validated_pairs", "pair_rows", "gate_tails", "proved_ranges", "tail_sum", "int64_upper", "first_proved",
           "spread_law_lower", "spread_laws_lower", "spread_law_nodes", "stair_lower_sum",
           "stair_whole_region_log_lower"]

#: bits of every ball
PREC = 96
#: F_0, F_1 and b_+ are integers at the scale 2^LOG_BITS
LOG_BITS = 40
#: the largest Q_ik is an integer of about MASS_BITS bits: Q_ik falls (Psi and pi_k together), so that at p = 7 the
#: least ones (464 of the 11160 the committed pairs use, all at the largest a) are floored to 0 and at p = 5 the least
#: keeps 49 bits; the tails the sums read stay within 1e-8 of exact (tests), and the committed bounds move by under
#: 10^-9 decades against 200 bits, where the products cost a third more
MASS_BITS = 144
#: an integer no comparison accepts (every F bound is clamped to it; all integers stay below 2^61 in magnitude, so
#: numpy's int64 arithmetic on them is exact)
NOT_PROVED = 1 << 60
#: finite F bounds lie in [-LIMIT, LIMIT] (else NOT_PROVED): b_+ - F_1 - F_1 stays far inside int64
LIMIT = 1 << 52
#: F_1 is evaluated at spreads on a lattice of S_LATTICE steps, the least at or above the cell's (F_1 increases in s)
S_LATTICE = 4

Q = fmpq
#: p -> the exact grids: steps h of a (and b; X_t = 2 a_0 + t h), hr of r (and c), hD of D, hE of E and hs of the
#: spread s; the windows of a, r, D and E; the largest s; the step of spread_law_lower's cells, a multiple of hs so that
#: the spreads share their values of Phi (docs/staircase.md, section 11.16, the proved sum)
GRIDS = {
    5: dict(h=Q(1, 40), hr=Q(1, 40), hD=Q(1, 40), hE=Q(1, 20), hs=Q(1, 80), a=(Q(0), Q(5)), r=(Q(1, 10), Q(8, 5)),
            D=(Q(1, 20), Q(9, 10)), E=(Q(4), Q(9)), s_max=Q(8, 5), spread_step=Q(1, 80)),
    7: dict(h=Q(1, 80), hr=Q(1, 80), hD=Q(1, 80), hE=Q(1, 40), hs=Q(1, 500), a=(Q(1), Q(11, 2)),
            r=(Q(3, 20), Q(1)), D=(Q(1, 5), Q(3, 5)), E=(Q(17, 2), Q(11)), s_max=Q(4, 25),
            spread_step=Q(7, 500)),
}
#: the choice of cells, spreads and pairs (package data)
CELLS_PATH = Path(__file__).with_name("region_stair_cells.json")
CELLS_FORMAT = "certify-region-stair-cells/2"
#: the lower Riemann sum of the spread's law: cells of the grid's spread_step on [-RANGE_FINE, RANGE_FINE], of
#: 1/RANGE_COARSE_STEPS out to +-RANGE_X
RANGE_X, RANGE_FINE, RANGE_COARSE_STEPS = 6, 3, 8


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


def committed_cells(p: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """The cells of :data:`CELLS_PATH` at p: [(d, m, (q, ...)), ...], each index checked against p's grids
    (see :func:`validated_cells`); NotCertified if p has no grids, or the file has no well-formed cells and pairs
    at p or is not in its format (a packaging error: the bound is then not attempted)."""
    _require_grids(p)
    return _committed_choice(p)[0]


def committed_pairs(p: int) -> tuple[tuple[int, int], ...]:
    """The pairs (k, l), k <= l, of cells of r that :data:`CELLS_PATH` keeps at p (see :func:`validated_pairs`);
    NotCertified as for :func:`committed_cells`."""
    _require_grids(p)
    return _committed_choice(p)[1]


@memoized
def _committed_choice(p: int):
    try:
        data = json.loads(CELLS_PATH.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != CELLS_FORMAT:
            raise ValueError(f"not in the format {CELLS_FORMAT}")
        choice = data[str(p)]
        if not isinstance(choice, dict) or set(choice) != {"cells", "pairs"}:
            raise ValueError("not {cells, pairs}")
        return validated_cells(p, choice["cells"]), validated_pairs(p, choice["pairs"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as error:
        raise NotCertified(f"{CELLS_PATH.name} has no well-formed cells and pairs at p = {p} "
                           f"({type(error).__name__}: {error})") from None


def validated_cells(p: int, cells) -> list[tuple[int, int, tuple[int, ...]]]:
    """``cells`` = [[d, m, [q, ...]], ...] as tuples, each index checked against p's grids: integers with 0 <= d < the
    cells of D, 0 <= m < those of E, the spreads' indices q strictly increasing below their number, and no cell
    (d, m) listed twice (the sum would count it twice). ValueError otherwise (also for an empty list)."""
    nodes = grid_nodes(p)
    sizes = (len(nodes["D_nodes"]) - 1, len(nodes["E_nodes"]) - 1, len(nodes["spreads"]))
    out = []
    for cell in cells:
        if not (isinstance(cell, (list, tuple)) and len(cell) == 3 and isinstance(cell[2], (list, tuple))):
            raise ValueError("a cell is not [d, m, [q, ...]]")
        d, m, qs = cell[0], cell[1], tuple(cell[2])
        if not all(type(x) is int for x in (d, m, *qs)):
            raise ValueError("an index is not an integer")
        if not (0 <= d < sizes[0] and 0 <= m < sizes[1] and qs and list(qs) == sorted(set(qs))
                and 0 <= qs[0] and qs[-1] < sizes[2]):
            raise ValueError("an index lies outside the grids, or the spreads are not increasing")
        out.append((d, m, qs))
    if not out:
        raise ValueError("no cells")
    if len({(d, m) for d, m, _ in out}) != len(out):  # a repeated cell would count its mass twice
        raise ValueError("a cell of (D, E) is listed twice")
    return out


# -- the gates ---------------------------------------------------------------------------------------------------


def all_pairs(p: int) -> tuple[tuple[int, int], ...]:
    """Every pair (k, l), k <= l, of cells of r on p's grids."""
    K = len(grid_nodes(p)["r_nodes"]) - 1
    return tuple((k, l) for k in range(K) for l in range(k, K))


def validated_pairs(p: int, pairs) -> tuple[tuple[int, int], ...]:
    """``pairs`` = [[k, l], ...] as a tuple of tuples, checked against p's grids: integers with 0 <= k <= l < K (the
    cells of r), in strictly increasing order (so none twice: its mass would count twice), at least one. ValueError
    otherwise."""
    K = len(grid_nodes(p)["r_nodes"]) - 1
    out = tuple(tuple(pair) if isinstance(pair, (list, tuple)) else () for pair in pairs)
    if not out or any(len(pair) != 2 or not all(type(x) is int for x in pair) for pair in out):
        raise ValueError("a pair is not [k, l] with integers k, l")
    if not all(0 <= k <= l < K for k, l in out):
        raise ValueError("a pair lies outside the grids (0 <= k <= l < K)")
    if any(x >= y for x, y in zip(out, out[1:])):
        raise ValueError("the pairs are not in strictly increasing order")
    return out


def pair_rows(p: int, pairs: tuple[tuple[int, int], ...]):
    """(k, l, t_gates): int64 arrays with one row per pair (k, l), k <= l, of ``pairs`` (from
    :func:`validated_pairs`); t_gates is the least index t with r_{k+1} + r_{l+1} <= X_t and X_t > 0, in exact
    rationals (2N - 1, the sentinel, if none). Both are symmetric in (k, l), so a row with k < l stands for its
    mirror (l, k) too. Read-only."""
    nodes = grid_nodes(p)
    a, r, h = nodes["a_nodes"], nodes["r_nodes"], GRIDS[p]["h"]
    sentinel = len(nodes["X"])
    X0 = 2 * a[0]
    gates = []
    for k, l in pairs:
        t = math.ceil(max((r[k + 1] + r[l + 1] - X0) / h, -X0 / h))
        if X0 + t * h <= 0:
            t += 1
        gates.append(min(max(t, 0), sentinel))
    out = tuple(np.array(column, dtype=np.int64) for column in ([k for k, _ in pairs], [l for _, l in pairs], gates))
    for array in out:
        array.setflags(write=False)
    return out


def gate_tails(p: int, pairs: tuple[tuple[int, int], ...], lows: tuple[int, ...], highs: tuple[int, ...]):
    """(Tman, Texp): int64 arrays, one row per row of :func:`pair_rows` (p's grids, ``pairs`` from
    :func:`validated_pairs`) and one column per index t = 0..2N - 1 (Proposition S.25 with Lemma S.24), at
    :data:`PREC` bits.

    Tman[i, t] 2^Texp[i, t] (Tman < 2^52) is <= T_kl(t) + T_lk(t) for the row's (k, l), k < l, and <= T_kk(t) for
    k = l, where T_kl(t) = sum_{u + v >= t} Q_uk Q_vl = T_lk(t), for max(t_gates[i], lows[i]) <= t <= highs[i] (0
    elsewhere, and at the sentinel t = 2N - 1), with Q_uk = Psi(a_u, a_{u+1}) min(pi_k(a_u), pi_k(a_{u+1})) of
    Lemma S.24: each Q_uk is replaced by the integer below 2^e times its ball (0 if that is negative), the tails are
    exact integer sums of their products, each tail is rounded down to 52 bits, and a row with k < l has its
    exponent raised by 1 (the pair and its mirror). Memoised; the arrays are read-only."""
    _require_grids(p)
    if not len(lows) == len(highs) == len(pairs):
        raise ValueError("one range of t per pair")
    return _gate_tails(p, pairs, lows, highs)


@memoized(maxsize=8)
def _gate_tails(p: int, pairs: tuple[tuple[int, int], ...], lows: tuple[int, ...], highs: tuple[int, ...]):
    n = p - 2
    nodes = grid_nodes(p)
    a, r = nodes["a_nodes"], nodes["r_nodes"]
    N = len(a) - 1
    _, _, t_gates = pair_rows(p, pairs)
    if len(t_gates) > 1 << 13:
        raise ValueError("too many pairs (k, l) for the int64 sums of tail_sum")
    cells = sorted({k for pair in pairs for k in pair})
    ends = sorted({*cells, *(k + 1 for k in cells)})  # the nodes of r the cells' pi_k read
    with working_precision(PREC):
        ab = [ball(x) for x in a]
        upper = [normal_cdf(-x) ** (n + 1) for x in ab]  # Phi(-a_i)^(n+1)
        psi = [(upper[i] - upper[i + 1]) / (n + 1) for i in range(N)]
        # Phi at r_k - a_i = (R0 + k HR - i H)/L, by its integer numerator (r and a share their step at p = 5 and
        # 7, so there are few values)
        L = math.lcm(int((r[0] - a[0]).q), int(GRIDS[p]["hr"].q), int(GRIDS[p]["h"].q))
        R0, HR, H = (int(x * L) for x in (r[0] - a[0], GRIDS[p]["hr"], GRIDS[p]["h"]))
        phi = {}
        for u in {R0 + k * HR - i * H for k in ends for i in range(N + 1)}:
            phi[u] = normal_cdf(ball(fmpq(u, L)))
        cdf = {k: [phi[R0 + k * HR - i * H] for i in range(N + 1)] for k in ends}
        pi = {k: [up - down for up, down in zip(cdf[k + 1], cdf[k])] for k in cells}  # pi_k(a_i)
        masses = {k: [psi[i] * pi[k][i].min(pi[k][i + 1]) for i in range(N)] for k in cells}
        top = max(_exponent(x) for row in masses.values() for x in row)
        scale = MASS_BITS - top  # the largest Q_ik is about 2^MASS_BITS after scaling
        polys = {k: fmpz_poly([max(scaled_floor(x, scale) or 0, 0) for x in row]) for k, row in masses.items()}
    Tman = np.zeros((len(t_gates), 2 * N), dtype=np.int64)
    Texp = np.zeros((len(t_gates), 2 * N), dtype=np.int64)
    for i, (k, l) in enumerate(pairs):
        t0, t1 = max(int(t_gates[i]), lows[i]), min(highs[i], 2 * N - 2)  # T_kl is not read outside: left 0
        if t0 > t1:
            continue
        product = polys[k] * polys[l]  # 2^(2 scale) sum_{u + v = t} Q_uk Q_vl, exactly
        beyond = int(product.right_shift(t1 + 1)(1))  # the sum of the coefficients above t1
        window = [int(x) for x in product.right_shift(t0).truncate(t1 + 1 - t0).coeffs()]
        window += [0] * (t1 + 1 - t0 - len(window))
        tail = list(accumulate(reversed(window), initial=beyond))[:0:-1]  # 2^(2 scale) T_kl(t), t = t0..t1
        shifts = [max(x.bit_length() - 52, 0) for x in tail]
        Tman[i, t0:t1 + 1] = [x >> s for x, s in zip(tail, shifts)]
        Texp[i, t0:t1 + 1] = [s - 2 * scale + (k < l) for s in shifts]  # k < l: the mirror's tail too
    for array in (Tman, Texp):
        array.setflags(write=False)
    return Tman, Texp


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


def int64_upper(values: list) -> np.ndarray:
    """Integer upper bounds as int64: None (not finite) and anything outside [-LIMIT, LIMIT] become NOT_PROVED, which
    no comparison accepts (a larger upper bound is still one)."""
    return np.array([NOT_PROVED if x is None or not -LIMIT <= x <= LIMIT else x for x in values], dtype=np.int64)


def proved_ranges(indices, count: int, sentinel: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(lows, highs): for each of ``count`` pairs, the least and the largest of its proved indices over the arrays of
    ``indices`` (one index per pair each, ``sentinel`` where none is proved), where :func:`gate_tails` must compute
    its tails; an empty range (sentinel, -1) for a pair never proved."""
    used = np.stack(list(indices)) if indices else np.full((1, count), sentinel)
    return tuple(used.min(axis=0).tolist()), tuple(np.where(used < sentinel, used, -1).max(axis=0).tolist())


def first_proved(values: np.ndarray, thresholds: np.ndarray, none: int) -> np.ndarray:
    """For each integer threshold, the least index i with values[i] < threshold (int64 upper bounds, exact integer
    comparisons; NOT_PROVED is never below a threshold), or ``none`` where no value is."""
    running = np.minimum.accumulate(values)  # nonincreasing: the first index below a threshold is the same
    index = np.searchsorted(-running, -thresholds, side="right")
    return np.where(index < len(values), index, none)


# -- w -----------------------------------------------------------------------------------------------------------


_MISSING = object()


class _W:
    """Integer bounds of F_0, F_1 (S.43) with Lemma S.26's V_n, and of b_+, at kappa = 1, with cached exponentials.
    Current precision."""

    def __init__(self, p: int, nodes: dict, r_needed: list[int]):
        """r_needed: the nodes of r where F_1 is wanted (the ends of the pairs' cells)."""
        self.p, self.n, self.nodes, self.r_needed = p, p - 2, nodes, r_needed
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

    def F1_upper(self, d: int, m: int, q: int) -> np.ndarray:
        """int64 upper bounds of 2^LOG_BITS F_1(r_k; D_d), F_1 = log(1 + e^{r_k D_d} + e^{-r_k E_m} V_n(r_k s)), at
        k = 0..K, with s = s_q' >= s_q the least spread at or above s_q on the lattice of S_LATTICE steps (F_1
        increases in s, so this is an upper bound at s_q, and cells share it): balls at the nodes of r_needed,
        NOT_PROVED at the others (see :func:`int64_upper`)."""
        q = min(-(-(q + 1) // S_LATTICE) * S_LATTICE - 1, len(self.s) - 1)  # s_q = (q + 1) h_s
        return self._cached(("F1", d, m, q), lambda: self._F1_upper(d, m, q))  # cells (d - 1, m), (d, m): end d

    def _F1_upper(self, d: int, m: int, q: int) -> np.ndarray:
        z = [self.r[k] for k in self.r_needed]
        up = self._cached(("zD", d), lambda: [(x * self.D[d]).exp() for x in z])
        down = self._cached(("zE", m), lambda: [(-x * self.E[m]).exp() for x in z])
        V = self._cached(("zs", q), lambda: [self.vertex_sum(x * self.s[q]) for x in z])
        out = np.full(len(self.r), NOT_PROVED, dtype=np.int64)
        out[self.r_needed] = int64_upper([scaled_ceil((1 + u + e * v).log(), LOG_BITS) for u, e, v in zip(up, down, V)])
        return out

    def F0_upper(self, d: int) -> np.ndarray:
        """int64 upper bounds of 2^LOG_BITS F_0(X_t; D_d) at t = 0..2N - 2 for every cell (d, m) and spread s_q:
        F_0 = log(1 + e^{-X D_d} + e^{-X (D_d + E_0)} V_n(X s_max)) at the grid's least E and largest spread (F_0
        decreases in E and increases in s for X >= 0, so this bounds it at every E_m >= E_0 and s_q <= s_max)."""
        return self._cached(("F0", d), lambda: self._F0_upper(d))

    def _F0_upper(self, d: int) -> np.ndarray:
        D, E, s = self.D[d], self.E[0], self.s[-1]
        V = self._cached("Xs", lambda: [self.vertex_sum(X * s) for X in self.X])  # shared by every node of D
        return int64_upper([scaled_ceil((1 + (-X * D).exp() + (-X * (D + E)).exp() * v).log(), LOG_BITS)
                            for X, v in zip(self.X, V)])

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


def spread_law_lower(n: int, s, step) -> arb:
    """A ball whose lower end is <= P(max - min of n iid N(0, 1) <= s) = n int phi(x) (Phi(x + s) - Phi(x))^(n - 1) dx
    (Lemma S.26, item 2), for an integer n >= 2, an exact s > 0 and an exact step in (0, 1]: the integral over the
    cells of :func:`spread_law_nodes`, bounded below on each by its width times the smaller end value of phi
    (unimodal) times that of Phi(x + s) - Phi(x) (log-concave, as the convolution of phi with an indicator) to the
    power n - 1. At :data:`PREC` bits. See :func:`spread_laws_lower`."""
    return spread_laws_lower(n, (fmpq(s),), fmpq(step))[0]


def spread_law_nodes(step: fmpq) -> list[fmpq]:
    """The nodes of spread_law_lower's sum: the multiples of ``step`` in [-RANGE_FINE, RANGE_FINE], where the
    integrand's mass lies, and those of 1/RANGE_COARSE_STEPS beyond, out to +-RANGE_X (any partition gives a lower
    sum). ValueError unless 0 < step <= 1."""
    step = fmpq(step)
    if not 0 < step <= 1:
        raise ValueError("the step must lie in (0, 1]")
    reach = int((RANGE_FINE / step).floor())
    fine = {i * step for i in range(-reach, reach + 1)}
    far = RANGE_X * RANGE_COARSE_STEPS
    coarse = {fmpq(j, RANGE_COARSE_STEPS) for j in range(-far, far + 1)
              if abs(fmpq(j, RANGE_COARSE_STEPS)) > RANGE_FINE}
    return sorted(fine | coarse)


@memoized(maxsize=64)
def spread_laws_lower(n: int, spreads: tuple[fmpq, ...], step: fmpq) -> tuple[arb, ...]:
    """:func:`spread_law_lower` for each exact spread of ``spreads`` (a tuple), sharing the values of Phi: the nodes
    and the spreads are integers in units of 1/L, L the least common denominator, and Phi is evaluated once per
    integer. Memoised."""
    nodes = spread_law_nodes(step)
    if not all(x > 0 for x in spreads):
        raise ValueError("a spread is not positive")
    L = math.lcm(int(step.q), RANGE_COARSE_STEPS, *(int(x.q) for x in spreads))
    units = [int(x.p) * (L // int(x.q)) for x in nodes]
    with working_precision(PREC):
        cdf = {}

        def Phi(u: int) -> arb:
            if u not in cdf:
                cdf[u] = normal_cdf(ball(fmpq(u, L)))
            return cdf[u]

        density = [(-ball(fmpq(u * u, 2 * L * L))).exp() for u in units]
        low_density = [x.min(y) for x, y in zip(density, density[1:])]
        widths = [ball(fmpq(v - u, L)) for u, v in zip(units, units[1:])]
        base = [Phi(u) for u in units]
        out = []
        for s in spreads:
            shift = int(s.p) * (L // int(s.q))
            gap = [Phi(u + shift) - c for u, c in zip(units, base)]  # Phi(x + s) - Phi(x)
            total = arb(0)
            for i, (width, low) in enumerate(zip(widths, low_density)):
                total += width * low * gap[i].min(gap[i + 1]) ** (n - 1)
            out.append(n * total / (2 * arb.pi()).sqrt())
        return tuple(out)


# -- the sum -----------------------------------------------------------------------------------------------------


def stair_whole_region_log_lower(p: int, sigma) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_stair | initially active), theta(0) ~ N(0, sigma^2 I_{3p}):
    Proposition S.25 with Lemma S.26's cells (docs/staircase.md, section 11.16) on p's committed grids, cells and pairs,
    stated on the grid of :func:`certify.kernel.region.stated_log_lower`. NotCertified where it is not attempted
    (sigma != 1, or a p without grids) or not proved positive. Memoised."""
    if fmpq(sigma) != 1:
        raise NotCertified("Proposition S.25's committed cells were chosen at sigma = 1 only")
    return _whole_region_log_lower(p)


@memoized
def _whole_region_log_lower(p: int) -> arb:
    with working_precision(PREC):
        bound = stair_lower_sum(p, committed_cells(p), committed_pairs(p))
        if not certainly_positive(bound):
            raise NotCertified(f"Proposition S.25's lower sum is not proved positive at p = {p}")
        return stated_log_lower(bound.log())


def stair_lower_sum(p: int, cells, pairs=None, indices: dict | None = None) -> arb:
    """A ball whose lower end is <= P(theta(0) in R_stair | initially active) at sigma = 1: the right side of (S.45)
    with Lemma S.26's cells on p's grids, over ``cells`` (see :func:`validated_cells`) and the pairs (k, l) of cells
    of r in ``pairs`` and their mirrors (see :func:`validated_pairs`; None: every pair); ValueError if either is
    not well formed, KeyError for a p without grids. A pair left out contributes 0. Computed at :data:`PREC` bits;
    the result is returned at that precision's accuracy. If ``indices`` is a dict, it receives, for each (d, m, q)
    whose hypotheses hold, the proved index t_kl of each pair of :func:`pair_rows` (2N - 1 where none is proved):
    what the selection of pairs reads (``examples/staircase/region_stair_proved.py``)."""
    n = p - 2
    nodes = grid_nodes(p)
    cells = validated_cells(p, cells)
    pairs = all_pairs(p) if pairs is None else validated_pairs(p, pairs)
    k, l, t_gates = pair_rows(p, pairs)
    sentinel = len(nodes["X"])
    with working_precision(PREC):
        w = _W(p, nodes, sorted({x + end for x in (*k.tolist(), *l.tolist()) for end in (0, 1)}))
        proved = {}  # (d, m, q) -> t_kl per row: the least index where (S.44) is proved at both ends of the D cell
        for d, m, qs in cells:
            budgets = {q: w.budget_lower(d, m, q) for q in qs}
            live = [q for q in qs if budgets[q] is not None]  # the others' hypotheses fail: G_dmq = 0
            if not live:
                continue
            budget = np.array([budgets[q] for q in live], dtype=np.int64)[:, None]
            t = np.broadcast_to(t_gates, (len(live), len(t_gates)))
            for end in (d, d + 1):
                f1 = w.F1_upper(end, m, qs[-1])  # at the cell's largest spread: F_1 increases in s
                worst = np.maximum(f1[:-1], f1[1:])  # F_1 is convex in z: its max on a cell is at an end
                thresholds = (budget - (worst[k] + worst[l])[None, :]).ravel()
                t = np.maximum(t, first_proved(w.F0_upper(end), thresholds, sentinel).reshape(t.shape))
            proved.update(zip(((d, m, q) for q in live), t))
        if indices is not None:
            indices.update(proved)
        Tman, Texp = gate_tails(p, pairs, *proved_ranges(list(proved.values()), len(k), sentinel))
        rows = np.arange(len(k))
        spread_qs = sorted({q for _, _, qs in cells for q in qs})
        spread_mass = dict(zip(spread_qs, spread_laws_lower(n, tuple(nodes["spreads"][q] for q in spread_qs),
                                                            GRIDS[p]["spread_step"])))
        root2 = ball(2).sqrt()
        sE = (ball(fmpq(1, 2)) + ball(fmpq(1, n))).sqrt()  # the law of E given D: N(-D/2, 1/2 + 1/n) (S.42)

        def upper_D(d: int) -> arb:  # Phi(-D_d/sqrt 2), shared by neighbouring cells
            return w._cached(("Phi D", d), lambda: normal_cdf(-w.D[d] / root2))

        def upper_E(m: int, d: int) -> arb:  # Phi(-(E_m + D_d/2)/s_E), shared by neighbouring cells
            return w._cached(("Phi E", m, d), lambda: normal_cdf(-(w.E[m] + w.D[d] / 2) / sE))

        total = arb(0)
        for d, m, qs in cells:
            levels = [tail_sum(Tman[rows, proved[(d, m, q)]], Texp[rows, proved[(d, m, q)]])
                      if (d, m, q) in proved else fmpq(0) for q in qs]
            H = list(accumulate(levels, min)) + [fmpq(0)]
            inner = arb(0)
            for i, q in enumerate(qs):
                if H[i] > H[i + 1]:  # exact rationals; Abel's coefficients are >= 0
                    inner += ball(H[i] - H[i + 1]) * spread_mass[q]
            PD = upper_D(d) - upper_D(d + 1)  # D ~ N(0, 2)
            PE = None
            for end in (d, d + 1):  # log-concave in D: at least the smaller end value on the cell
                e = upper_E(m, end) - upper_E(m + 1, end)
                PE = e if PE is None else PE.min(e)
            total += PD * PE * inner
        return total * (p * p * (p - 1))
