"""certify.kernel.region_stair (docs/staircase.md section 11.16, Proposition S.25 with Lemma S.26 in balls), checked by
independent routes: the gate tails against direct sums in mpmath at 30 digits, the bound of the spread's law against
mpmath's quadrature, the integer search against a loop, and the whole lower sum on a few cells against
examples/staircase/region_stair_whole.py's float evaluation of the same cells (float logs, float tails, quadrature:
another implementation), which it must not exceed and may undercut only by its roundings; with a control that the
comparison can fail. The committed cells' bound against the importance-sampling estimates of section 11.15."""

import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq

from certify.errors import NotCertified
from certify.kernel import region_stair as kernel
from certify.kernel.balls import working_precision

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "staircase"


def _direct_tail(nodes, n, k, l, t):
    """T_kl(t) = sum_{i + j >= t} Q_ik Q_jl from Lemma S.24's Q_ik, summed directly (current mpmath precision)."""
    a = [mpmath.mpf(int(x.p)) / int(x.q) for x in nodes["a_nodes"]]
    r = [mpmath.mpf(int(x.p)) / int(x.q) for x in nodes["r_nodes"]]
    N = len(a) - 1
    psi = [(mpmath.ncdf(-a[i]) ** (n + 1) - mpmath.ncdf(-a[i + 1]) ** (n + 1)) / (n + 1) for i in range(N)]

    def Q(i, c):
        pi = lambda x: mpmath.ncdf(r[c + 1] - x) - mpmath.ncdf(r[c] - x)  # noqa: E731
        return psi[i] * min(pi(a[i]), pi(a[i + 1]))

    qk, ql = [Q(i, k) for i in range(N)], [Q(j, l) for j in range(N)]
    return mpmath.fsum(qk[i] * ql[j] for i in range(N) for j in range(max(0, t - i), N))


@pytest.mark.parametrize("p, entries", [(5, [(10, 12, 180), (3, 30, 140), (25, 25, 230)]), (7, [(20, 30, 400)])])
def test_gate_tails_are_below_direct_sums(p, entries):
    """The proved mantissa-exponent tails lie below the direct sums (twice them for a pair with k < l, which stands
    for its mirror) and within 1e-8 of them (Q_ik floored at 2^-144 of the largest, each tail at 52 bits); 0
    outside each pair's range of t."""
    pairs = tuple(sorted((k, l) for k, l, _ in entries))
    where = {(k, l): t for k, l, t in entries}
    lows = tuple(where[pair] - 3 for pair in pairs)
    highs = tuple(where[pair] + 3 for pair in pairs)
    Tman, Texp = kernel.gate_tails(p, pairs, lows, highs)
    _, _, t_gates = kernel.pair_rows(p, pairs)
    nodes = kernel.grid_nodes(p)
    with mpmath.workdps(30):
        for i, (k, l) in enumerate(pairs):
            t = where[(k, l)]
            assert t >= t_gates[i]
            exact = _direct_tail(nodes, p - 2, k, l, t) * (2 if k < l else 1)
            value = mpmath.mpf(int(Tman[i, t])) * mpmath.mpf(2) ** int(Texp[i, t])
            assert exact * (1 - mpmath.mpf("1e-8")) <= value <= exact, (k, l, t, value, exact)
            assert Tman[i, t - 4] == 0 and Tman[i, t + 4] == 0 and Tman[i, t + 3] > 0


def test_gate_index_is_the_least_exact_one():
    """pair_rows' t_gates is the least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0, in exact rationals."""
    pairs = ((0, 0), (2, 30), (7, 41), (59, 59))
    k, l, t_gates = kernel.pair_rows(5, pairs)
    nodes = kernel.grid_nodes(5)
    X, r = nodes["X"], nodes["r_nodes"]
    assert list(zip(k.tolist(), l.tolist())) == list(pairs)
    for (a, b), t in zip(pairs, t_gates.tolist()):
        ok = lambda s: X[s] > 0 and r[a + 1] + r[b + 1] <= X[s]  # noqa: E731
        assert ok(t) and (t == 0 or not ok(t - 1))


def test_first_proved_against_a_loop():
    """first_proved returns, per threshold, the first index whose value is strictly below it (NOT_PROVED never is),
    or the sentinel."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        values = [None if rng.random() < 0.1 else int(v) for v in rng.integers(-50, 50, rng.integers(1, 12))]
        thresholds = rng.integers(-60, 60, 9)
        got = kernel.first_proved(kernel.int64_upper(values), thresholds, 999)
        for threshold, g in zip(thresholds, got):
            assert g == next((i for i, v in enumerate(values) if v is not None and v < threshold), 999)


def test_proved_ranges_against_a_loop():
    """proved_ranges gives each pair the least and largest of its indices that are not the sentinel (an empty range,
    (sentinel, -1), for a pair never proved or for no arrays at all)."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        count, sentinel = int(rng.integers(1, 6)), 50
        arrays = [np.where(rng.random(count) < 0.3, sentinel, rng.integers(0, sentinel, count))
                  for _ in range(int(rng.integers(0, 5)))]
        lows, highs = kernel.proved_ranges(arrays, count, sentinel)
        for i in range(count):
            seen = [int(a[i]) for a in arrays if a[i] < sentinel]
            assert (lows[i], highs[i]) == ((min(seen), max(seen)) if seen else (sentinel, -1))


def test_int64_upper_never_lowers_a_bound():
    """int64_upper keeps integers in [-2^52, 2^52] and makes None and everything outside NOT_PROVED (larger)."""
    values = [None, 0, -5, 1 << 52, (1 << 52) + 1, -(1 << 52) - 1, 1 << 70]
    assert kernel.int64_upper(values).tolist() == [kernel.NOT_PROVED, 0, -5, 1 << 52] + [kernel.NOT_PROVED] * 3


@pytest.mark.parametrize("p", [5, 7])
def test_F_bounds_lie_above_each_cells_own_F(p):
    """The integers the sum compares lie above 2^40 times each cell's own F_0(X_t; D_d) and F_1(r_k; D_d) of
    (S.43) with Lemma S.26's V_n, computed in mpmath at 30 digits at the cell's E_m and spread s_q (the kernel
    evaluates F_0 at the grid's least E and largest spread, F_1 at a larger spread: docs/staircase.md 11.16)."""
    nodes = kernel.grid_nodes(p)
    rng = np.random.default_rng(p)
    n, cells = p - 2, kernel.committed_cells(p)
    pairs = kernel.committed_pairs(p)
    needed = sorted({x for k, l in pairs for x in (k, k + 1, l, l + 1)})
    mp = lambda x: mpmath.mpf(int(x.p)) / int(x.q)  # noqa: E731

    def V(y):
        return max(j * mpmath.exp(y * (n - j) / n) + (n - j) * mpmath.exp(-y * j / n) for j in range(1, n))

    with working_precision(kernel.PREC), mpmath.workdps(30):
        w = kernel._W(p, nodes, needed)
        for _ in range(25):
            d, m, qs = cells[int(rng.integers(len(cells)))]
            end, q = d + int(rng.integers(2)), qs[int(rng.integers(len(qs)))]
            D, E, s = mp(nodes["D_nodes"][end]), mp(nodes["E_nodes"][m]), mp(nodes["spreads"][q])
            f0 = w.F0_upper(end)
            for t in rng.integers(0, len(nodes["X"]), 20).tolist():
                X = mp(nodes["X"][t])
                true = mpmath.log(1 + mpmath.exp(-X * D) + mpmath.exp(-X * (D + E)) * V(X * s))
                assert true * 2**kernel.LOG_BITS <= f0[t]
            f1 = w.F1_upper(end, m, qs[-1])
            for k in needed:
                z = mp(nodes["r_nodes"][k])
                true = mpmath.log(1 + mpmath.exp(z * D) + mpmath.exp(-z * E) * V(z * s))
                assert true * 2**kernel.LOG_BITS <= f1[k]


def test_tail_sum_is_an_exact_lower_bound():
    """tail_sum against the exact rational sum: below it, and within 2^-26 of its largest term per term."""
    rng = np.random.default_rng(4)
    for _ in range(200):
        size = int(rng.integers(1, 300))
        man = rng.integers(0, 2**52, size, dtype=np.int64) * (rng.random(size) < 0.9)
        exp = rng.integers(-300, 40, size, dtype=np.int64)
        exact = sum((fmpq(int(m)) * fmpq(2) ** int(e) if e >= 0 else fmpq(int(m), 2 ** int(-e)))
                    for m, e in zip(man, exp))
        got = kernel.tail_sum(man, exp)
        top = max([fmpq(2) ** int(e) if e >= 0 else fmpq(1, 2 ** int(-e)) for m, e in zip(man, exp) if m > 0],
                  default=fmpq(0))
        assert got <= exact and exact - got <= size * top * 2**52 / 2**38


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("s", ["1/20", "2/5", "6/5"])
def test_spread_law_lower_bound(n, s):
    """The lower Riemann sum of P(max - min of n iid N(0, 1) <= s) lies below mpmath's quadrature of Lemma S.26's
    integral (30 digits) and within 2% of it (cells of 1/64: the loss is about the step times the largest slope of
    the log integrand over the mass)."""
    sq = fmpq(*map(int, s.split("/")))
    lower = kernel.spread_law_lower(n, sq, fmpq(1, 64))
    with mpmath.workdps(30):
        sv = mpmath.mpf(int(sq.p)) / int(sq.q)
        exact = n * mpmath.quad(lambda x: mpmath.npdf(x) * (mpmath.ncdf(x + sv) - mpmath.ncdf(x)) ** (n - 1),
                                [-mpmath.inf, -3, 0, 3, mpmath.inf])
        low = mpmath.mpf(lower.lower().mid().str(40, radius=False))
        assert 0.98 * exact <= low <= exact, (low, exact)


def test_spread_laws_share_phi_without_changing_a_value():
    """spread_laws_lower on several spreads gives each spread_law_lower's own ball (the shared values of Phi are the
    same balls), with the grid's steps of p = 5 and 7; its nodes are increasing, the step's multiples inside
    [-3, 3] and 1/8's outside; bad steps and spreads are ValueErrors."""
    for p in kernel.GRIDS:
        step, spreads = kernel.GRIDS[p]["spread_step"], kernel.grid_nodes(p)["spreads"][:40:13]
        together = kernel.spread_laws_lower(p - 2, tuple(spreads), step)
        for s, x in zip(spreads, together):
            alone = kernel.spread_law_lower(p - 2, s, step)
            assert x.mid() == alone.mid() and x.rad() == alone.rad()
        nodes = kernel.spread_law_nodes(step)
        assert nodes == sorted(set(nodes)) and nodes[0] == -6 and nodes[-1] == 6
        assert all((x / step).q == 1 if abs(x) <= 3 else (8 * x).q == 1 for x in nodes)
    for step in (fmpq(0), fmpq(-1, 8), fmpq(2)):
        with pytest.raises(ValueError, match="step"):
            kernel.spread_law_nodes(step)
    with pytest.raises(ValueError, match="spread"):
        kernel.spread_laws_lower(3, (fmpq(1, 8), fmpq(0)), fmpq(1, 64))


def _float_sum(stair_whole, p, cells):
    """region_stair_whole.py's float value of log10 (S.45) with Lemma S.26's cells on ``cells`` and the kernel's
    grids (its own tails, logs and quadrature)."""
    nodes, g = kernel.grid_nodes(p), kernel.GRIDS[p]
    a = (float(nodes["a_nodes"][0]), float(nodes["a_nodes"][-1]))
    r = (float(nodes["r_nodes"][0]), float(nodes["r_nodes"][-1]))
    X, rr, T, tg = stair_whole.gate_tails(p, float(g["h"]), float(g["hr"]), a, r)
    n = p - 2
    spreads = [float(x) for x in nodes["spreads"]]
    Dg, Eg = [float(x) for x in nodes["D_nodes"]], [float(x) for x in nodes["E_nodes"]]
    total = 0.0
    for d, m, rows in cells:
        d0, d1, e0, e1 = Dg[d], Dg[d + 1], Eg[m], Eg[m + 1]
        levels = []
        for q in rows:
            t = stair_whole.first_indices(p, X, rr, tg, d0, d1, e0, spreads[q], spread=True)
            levels.append(0.0 if t is None else float(stair_whole.pair_levels(T, t).sum()))
        H = np.append(np.minimum.accumulate(levels), 0.0)
        mass = np.array([stair_whole.range_cdf(spreads[q], n) for q in rows])
        total += float(stair_whole.cell_weight(n, d0, d1, e0, e1)) * float(np.sum((H[:-1] - H[1:]) * mass))
    return math.log10(p * p * (p - 1) * total)


def _log10_lower(bound: arb) -> float:
    return math.log10(float(bound.lower().mid()))


def test_lower_sum_meets_the_float_sum(stair_whole):
    """On the 6 committed cells of p = 5 that carry most, the proved lower sum over every pair is at most the float
    sum of the same cells and spreads (up to the float sum's own rounding, 1e-9 decades) and loses under 0.02 decades
    to it (its Riemann sum of the spread's law, its floors, its F's at a larger spread and a smaller E); the
    committed pairs lose under 10^-5 decades more."""
    cells = kernel.committed_cells(5)[:6]
    got, want = _log10_lower(kernel.stair_lower_sum(5, cells)), _float_sum(stair_whole, 5, cells)
    assert want - 0.02 <= got <= want + 1e-9, (got, want)
    kept = _log10_lower(kernel.stair_lower_sum(5, cells, kernel.committed_pairs(5)))
    assert got - 1e-5 <= kept <= got, (kept, got)


def test_an_understated_F1_is_caught(stair_whole, monkeypatch):
    """The comparison above can fail: with F_1's upper bounds lowered by 1/8, more pairs are admitted and the
    'proved' sum exceeds the float sum."""
    honest = kernel._W.F1_upper
    monkeypatch.setattr(kernel._W, "F1_upper",
                        lambda self, d, m, q: honest(self, d, m, q) - (1 << (kernel.LOG_BITS - 3)))
    cells = kernel.committed_cells(5)[:6]
    assert _log10_lower(kernel.stair_lower_sum(5, cells)) > _float_sum(stair_whole, 5, cells) + 1e-9


@pytest.mark.parametrize("p, estimate", [(5, -30.53), (7, -77.42)])
def test_whole_region_bound_is_below_the_estimate_and_within_the_target(stair_whole, p, estimate):
    """The committed cells' bound (stated, an exact ball) lies below section 11.15's importance-sampling estimate
    (whose standard error is a few hundredths of a decade) and within the issue's factor 10 of it."""
    log10 = float(kernel.stair_whole_region_log_lower(p, 1).mid()) / math.log(10)
    assert estimate - 1 < log10 < estimate - 0.1, log10
    assert stair_whole.ESTIMATE[p] == estimate


def test_not_attempted_where_no_cells_were_chosen():
    """Other sigmas and primes without grids raise NotCertified (the certificate then states the widened box's)."""
    with pytest.raises(NotCertified, match="sigma = 1"):
        kernel.stair_whole_region_log_lower(5, fmpq(1, 2))
    with pytest.raises(NotCertified, match="no committed grids at p = 11"):
        kernel.stair_whole_region_log_lower(11, 1)


@pytest.mark.parametrize("cells, words", [
    ([], "no cells"), ([[0, 0]], "not \\[d, m"), ([[0, 0, 3]], "not \\[d, m"), ([[0, 0, [1.0]]], "not an integer"),
    ([[0, 0, [True]]], "not an integer"), ([[0, "1", [1]]], "not an integer"), ([[34, 0, [1]]], "outside"),
    ([[0, 0, [2, 1]]], "not increasing"), ([[0, 0, [1, 1]]], "not increasing"), ([[0, 0, []]], "outside"),
    ([[0, 0, [128]]], "outside"), ([[-1, 0, [1]]], "outside"), ([[0, 100, [1]]], "outside"),
    ([[3, 4, [1]], [3, 5, [1]], [3, 4, [2]]], "listed twice")])
def test_malformed_cells_are_refused(cells, words):
    """validated_cells refuses every malformed choice (p = 5: 34 cells of D, 100 of E, 128 spreads), and a cell of
    (D, E) listed twice, whose mass the sum would count twice (found by review)."""
    with pytest.raises(ValueError, match=words):
        kernel.validated_cells(5, cells)


@pytest.mark.parametrize("pairs, words", [
    ([], "not \\[k, l\\]"), ([[0]], "not \\[k, l\\]"), ([[0, 1.0]], "not \\[k, l\\]"), ([3], "not \\[k, l\\]"),
    ([[False, 1]], "not \\[k, l\\]"), ([[2, 1]], "outside"), ([[0, 60]], "outside"), ([[-1, 0]], "outside"),
    ([[0, 1], [0, 1]], "increasing"), ([[0, 2], [0, 1]], "increasing")])
def test_malformed_pairs_are_refused(pairs, words):
    """validated_pairs refuses every malformed choice of pairs (p = 5: 60 cells of r), a pair listed twice (its mass
    would count twice) and pairs out of order."""
    with pytest.raises(ValueError, match=words):
        kernel.validated_pairs(5, pairs)


def test_a_pair_left_out_only_lowers_the_sum():
    """The sum over a subset of pairs is at most the sum over all of them, on the committed cells that carry most
    at p = 5 (a dropped pair contributes 0), and the committed pairs keep all but 10^-5 decades of it."""
    cells = kernel.committed_cells(5)[:3]
    every = _log10_lower(kernel.stair_lower_sum(5, cells))
    kept = kernel.committed_pairs(5)
    assert _log10_lower(kernel.stair_lower_sum(5, cells, kept[: len(kept) // 2])) < every
    assert every - 1e-5 <= _log10_lower(kernel.stair_lower_sum(5, cells, kept)) <= every


def test_a_malformed_cells_file_is_not_certified(tmp_path, monkeypatch):
    """A damaged package file makes the bound not attempted (NotCertified), never a traceback."""
    good = {"cells": [[0, 0, [1]]], "pairs": [[0, 0]]}
    for text in ("{", json.dumps({"format": "other", "5": good}), json.dumps({"format": kernel.CELLS_FORMAT}),
                 json.dumps({"format": kernel.CELLS_FORMAT, "5": [[0]]}),
                 json.dumps({"format": kernel.CELLS_FORMAT, "5": {"cells": [[0, 0, [1]]]}}),
                 json.dumps({"format": kernel.CELLS_FORMAT, "5": {**good, "extra": 1}}),
                 json.dumps({"format": kernel.CELLS_FORMAT, "5": {**good, "pairs": [[1, 0]]}}),
                 json.dumps({"format": kernel.CELLS_FORMAT, "5": {**good, "cells": [[0, 0, [[1, 2, 3]]]]}}),
                 "[" * 200000, json.dumps([1, 2])):
        path = tmp_path / "cells.json"
        path.write_text(text)
        monkeypatch.setattr(kernel, "CELLS_PATH", path)
        kernel._committed_choice.forget()
        with pytest.raises(NotCertified, match="no well-formed cells and pairs at p = 5"):
            kernel.committed_cells(5)
        with pytest.raises(NotCertified, match="no well-formed cells and pairs at p = 5"):
            kernel.committed_pairs(5)
    kernel._committed_choice.forget()


def test_committed_choice_is_well_formed():
    """The committed choice names cells and pairs of both primes' grids (the validators accept them)."""
    for p in kernel.GRIDS:
        assert len(kernel.committed_cells(p)) > 100 and len(kernel.committed_pairs(p)) > 100


@pytest.mark.parametrize("args, words", [(["--top", "0"], "--top must be >= 1"),
                                         (["--select", "--pairs"], "--select already chooses the pairs"),
                                         (["--p", "11"], "invalid choice")])
def test_example_bad_arguments_exit_with_one_line(tmp_path, args, words):
    """The example's bad arguments are usage errors (exit 2, no traceback)."""
    out = subprocess.run([sys.executable, str(EXAMPLE / "region_stair_proved.py"), *args],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr


def test_the_committed_pairs_are_what_the_selection_chooses(stair_proved):
    """region_stair_proved.py's select_pairs, rerun on the committed cells, gives the committed pairs (the package
    data is reproducible from the script that made it)."""
    for p in kernel.GRIDS:
        assert [tuple(x) for x in stair_proved.select_pairs(p, kernel.committed_cells(p))] == list(
            kernel.committed_pairs(p))


def test_the_committed_pairs_are_proved_where_every_pair_is():
    """On the committed cells of p = 5, each committed pair gets the same proved index t_kl in every (cell, spread)
    as in the run over every pair (F_1 is wanted at both ends of both of a pair's cells of r; a review found the
    second member's ends missing, which left 94 pairs never proved)."""
    cells, kept = kernel.committed_cells(5), kernel.committed_pairs(5)
    every, some = {}, {}
    kernel.stair_lower_sum(5, cells, None, every)
    kernel.stair_lower_sum(5, cells, kept, some)
    position = {pair: i for i, pair in enumerate(kernel.all_pairs(5))}
    rows = [position[pair] for pair in kept]
    assert every.keys() == some.keys()
    for key, t in some.items():
        assert t.tolist() == every[key][rows].tolist(), key
