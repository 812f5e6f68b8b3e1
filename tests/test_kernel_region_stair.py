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


@pytest.mark.parametrize("p, entries", [(5, [(10, 12, 180), (3, 30, 140), (25, 25, 230)]), (7, [(20, 30, 500)])])
def test_gate_tails_are_below_direct_sums(p, entries):
    """The proved mantissa-exponent tails lie below the direct sums and within 1e-8 of them (Q_ik floored at 2^-200
    of the largest, each tail at 52 bits)."""
    Tman, Texp, t_gates = kernel.gate_tails(p)
    nodes = kernel.grid_nodes(p)
    with mpmath.workdps(30):
        for k, l, t in entries:
            assert t >= t_gates[k, l]
            exact = _direct_tail(nodes, p - 2, k, l, t)
            value = mpmath.mpf(int(Tman[k, l, t])) * mpmath.mpf(2) ** int(Texp[k, l, t])
            assert exact * (1 - mpmath.mpf("1e-8")) <= value <= exact, (k, l, t, value, exact)
            assert Tman[l, k, t] == Tman[k, l, t] and Texp[l, k, t] == Texp[k, l, t]


def test_gate_index_is_the_least_exact_one():
    """t_gates[k, l] is the least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0, in exact rationals."""
    _, _, t_gates = kernel.gate_tails(5)
    nodes = kernel.grid_nodes(5)
    X, r = nodes["X"], nodes["r_nodes"]
    for k, l in [(0, 0), (7, 41), (59, 59), (30, 2)]:
        t = int(t_gates[k, l])
        ok = lambda s: X[s] > 0 and r[k + 1] + r[l + 1] <= X[s]  # noqa: E731
        assert ok(t) and (t == 0 or not ok(t - 1))


def test_first_proved_against_a_loop():
    """first_proved returns, per threshold, start + the first index whose value is strictly below it (None never
    is), or the sentinel."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        values = [None if rng.random() < 0.1 else int(v) for v in rng.integers(-50, 50, rng.integers(1, 12))]
        thresholds = rng.integers(-60, 60, 9)
        got = kernel.first_proved(values, 7, thresholds, 999)
        for threshold, g in zip(thresholds, got):
            assert g == next((7 + i for i, v in enumerate(values) if v is not None and v < threshold), 999)


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
    lower = kernel.spread_law_lower(n, sq)
    with mpmath.workdps(30):
        sv = mpmath.mpf(int(sq.p)) / int(sq.q)
        exact = n * mpmath.quad(lambda x: mpmath.npdf(x) * (mpmath.ncdf(x + sv) - mpmath.ncdf(x)) ** (n - 1),
                                [-mpmath.inf, -3, 0, 3, mpmath.inf])
        low = mpmath.mpf(lower.lower().mid().str(40, radius=False))
        assert 0.98 * exact <= low <= exact, (low, exact)


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
        for q, _, _ in rows:
            t = stair_whole.first_indices(p, X, rr, tg, d0, d1, e0, spreads[q], spread=True)
            levels.append(0.0 if t is None else float(stair_whole.pair_levels(T, t).sum()))
        H = np.append(np.minimum.accumulate(levels), 0.0)
        mass = np.array([stair_whole.range_cdf(spreads[q], n) for q, _, _ in rows])
        total += float(stair_whole.cell_weight(n, d0, d1, e0, e1)) * float(np.sum((H[:-1] - H[1:]) * mass))
    return math.log10(p * p * (p - 1) * total)


def _log10_lower(bound: arb) -> float:
    return math.log10(float(bound.lower().mid()))


def test_lower_sum_meets_the_float_sum(stair_whole):
    """On the 6 committed cells of p = 5 that carry most, the proved lower sum is at most the float sum of the same
    cells and spreads (up to the float sum's own rounding, 1e-9 decades) and loses under 0.02 decades to it (its
    Riemann sum of the spread's law, its floors, its windows of t)."""
    cells = kernel.committed_cells(5)[:6]
    got, want = _log10_lower(kernel.stair_lower_sum(5, cells)), _float_sum(stair_whole, 5, cells)
    assert want - 0.02 <= got <= want + 1e-9, (got, want)


def test_an_understated_F1_is_caught(stair_whole, monkeypatch):
    """The comparison above can fail: with F_1's upper bounds lowered by 1/8, more pairs are admitted and the
    'proved' sum exceeds the float sum."""
    honest = kernel._W.F1_upper
    monkeypatch.setattr(kernel._W, "F1_upper",
                        lambda self, d, m, q: [x - (1 << (kernel.LOG_BITS - 3)) for x in honest(self, d, m, q)])
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
    ([], "no cells"), ([[0, 0]], "not \\[d, m"), ([[0, 0, [[1, 2]]]], "not an integer"),
    ([[0, 0, [[1.0, 2, 3]]]], "not an integer"), ([[0, 0, [[True, 2, 3]]]], "not an integer"),
    ([[34, 0, [[1, 2, 3]]]], "outside"), ([[0, 0, [[2, 2, 3], [1, 2, 3]]]], "outside"),
    ([[0, 0, [[1, 5, 4]]]], "outside"), ([[0, 0, [[1, 2, 399]]]], "outside"), ([[-1, 0, [[1, 2, 3]]]], "outside"),
    ([[3, 4, [[1, 2, 3]]], [3, 5, [[1, 2, 3]]], [3, 4, [[2, 2, 3]]]], "listed twice")])
def test_malformed_cells_are_refused(cells, words):
    """validated_cells refuses every malformed choice (p = 5: 34 cells of D, X_t for t <= 398), and a cell of (D, E)
    listed twice, whose mass the sum would count twice (found by review)."""
    with pytest.raises(ValueError, match=words):
        kernel.validated_cells(5, cells)


def test_a_malformed_cells_file_is_not_certified(tmp_path, monkeypatch):
    """A damaged package file makes the bound not attempted (NotCertified), never a traceback."""
    for text in ("{", json.dumps({"format": "other"}), json.dumps({"format": kernel.CELLS_FORMAT, "5": [[0]]}),
                 "[" * 200000, json.dumps([1, 2])):
        path = tmp_path / "cells.json"
        path.write_text(text)
        monkeypatch.setattr(kernel, "CELLS_PATH", path)
        kernel._committed_cells.forget()
        with pytest.raises(NotCertified, match="no well-formed cells at p = 5"):
            kernel.committed_cells(5)
    kernel._committed_cells.forget()


def test_committed_cells_are_well_formed():
    """The committed choice names cells of both primes' grids (validated_cells accepts them)."""
    for p in kernel.GRIDS:
        assert len(kernel.committed_cells(p)) > 100


def test_example_bad_arguments_exit_with_one_line(tmp_path):
    """The example's --top 0 is a usage error (exit 2, one line, no traceback)."""
    out = subprocess.run([sys.executable, str(EXAMPLE / "region_stair_proved.py"), "--top", "0"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and "--top must be >= 1" in out.stderr and "Traceback" not in out.stderr
