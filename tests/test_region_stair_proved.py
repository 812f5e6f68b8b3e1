"""docs/staircase.md section 11.16, "The lower sum in balls": examples/staircase/region_stair_proved.py's proved
evaluation of Proposition S.25 with Lemma S.26's cells, checked by independent routes: its gate tails against direct
sums in mpmath at 30 digits, its lower bound of the spread's law against mpmath's quadrature, its integer search
against a loop, and its whole lower sum on a few cells against region_stair_whole.py's float evaluation of the same
cells (a different implementation: float logs, float tails, quadrature), which it must not exceed and may undercut
only by its roundings. No certificate states this bound; these tests keep the example's proof sound where it runs."""

import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from flint import fmpq

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "staircase"


@pytest.fixture(scope="module")
def modules():
    sys.path.insert(0, str(EXAMPLE))
    try:
        import region_stair_proved
        import region_stair_whole
    finally:
        sys.path.remove(str(EXAMPLE))
    return region_stair_proved, region_stair_whole


@pytest.fixture(scope="module")
def tails5(modules):
    proved, _ = modules
    from certify.kernel.balls import working_precision
    with working_precision(proved.PREC):
        return proved.gate_tails(5, proved.grids(5))


def _phi(x):
    return mpmath.ncdf(x)


def test_gate_tails_are_below_direct_sums(modules, tails5):
    """T_kl(t) = sum_{i + j >= t} Q_ik Q_jl summed directly in mpmath (30 digits) from Lemma S.24's Q_ik: the proved
    mantissa-exponent values lie below it and within 1e-8 of it (they floor Q_ik at 2^-200 of the largest and each
    tail at 52 bits)."""
    proved, _ = modules
    Tman, Texp, t_gates = tails5
    G = proved.grids(5)
    n = 3
    with mpmath.workdps(30):
        _direct_sums(G, n, Tman, Texp, t_gates)


def _direct_sums(G, n, Tman, Texp, t_gates):
    a = [mpmath.mpf(x.numerator) / x.denominator for x in G["a_nodes"]]
    r = [mpmath.mpf(x.numerator) / x.denominator for x in G["r_nodes"]]
    psi = [(_phi(-a[i]) ** (n + 1) - _phi(-a[i + 1]) ** (n + 1)) / (n + 1) for i in range(len(a) - 1)]

    def Q(i, k):
        pi = lambda x: _phi(r[k + 1] - x) - _phi(r[k] - x)  # noqa: E731
        return psi[i] * min(pi(a[i]), pi(a[i + 1]))

    N = len(a) - 1
    for k, l, t in [(10, 12, 180), (3, 30, 140), (25, 25, 230)]:
        assert t >= t_gates[k, l]
        qk = [Q(i, k) for i in range(N)]
        ql = [Q(j, l) for j in range(N)]
        exact = mpmath.fsum(qk[i] * ql[j] for i in range(N) for j in range(max(0, t - i), N))
        value = mpmath.mpf(int(Tman[k, l, t])) * mpmath.mpf(2) ** int(Texp[k, l, t])
        assert value <= exact and value >= exact * (1 - mpmath.mpf("1e-8")), (k, l, t, value, exact)


def test_gate_index_is_the_least_exact_one(modules, tails5):
    """t_gates[k, l] is the least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0, in exact rationals."""
    proved, _ = modules
    _, _, t_gates = tails5
    G = proved.grids(5)
    X0, h, r = 2 * G["a"][0], G["h"], G["r_nodes"]
    for k, l in [(0, 0), (7, 41), (59, 59), (30, 2)]:
        t = int(t_gates[k, l])
        ok = lambda s: X0 + s * h > 0 and r[k + 1] + r[l + 1] <= X0 + s * h  # noqa: E731
        assert ok(t) and (t == 0 or not ok(t - 1))


def test_first_proved_against_a_loop(modules):
    """first_proved returns, per threshold, the first index whose value is strictly below it (None values never
    are), or the sentinel."""
    proved, _ = modules
    rng = np.random.default_rng(3)
    for _ in range(200):
        values = [None if rng.random() < 0.1 else int(v) for v in rng.integers(-50, 50, rng.integers(1, 12))]
        thresholds = rng.integers(-60, 60, 9)
        got = proved.first_proved(values, 7, thresholds, 999)
        for th, g in zip(thresholds, got):
            want = next((7 + i for i, v in enumerate(values) if v is not None and v < th), 999)
            assert g == want


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("s", ["1/20", "2/5", "6/5"])
def test_spread_law_lower_bound(modules, n, s):
    """The lower Riemann sum of P(max - min of n iid N(0, 1) <= s) lies below mpmath's quadrature of Lemma S.26's
    integral (30 digits) and within 2% of it (cells of 1/64: the relative loss is about the step times the largest
    slope of the log integrand over the mass)."""
    proved, _ = modules
    from certify.kernel.balls import ball, working_precision
    from certify.kernel.region_memorise import normal_cdf
    from flint import arb
    sq = fmpq(*map(int, s.split("/")))
    with working_precision(proved.PREC):
        step = fmpq(1, proved.RANGE_STEPS_PER_UNIT)
        xs = [ball(fmpq(i - proved.RANGE_X * proved.RANGE_STEPS_PER_UNIT, proved.RANGE_STEPS_PER_UNIT))
              for i in range(2 * proved.RANGE_X * proved.RANGE_STEPS_PER_UNIT + 1)]
        cdf = [normal_cdf(x) for x in xs]
        density = [(-x * x / 2).exp() / (2 * arb.pi()).sqrt() for x in xs]
        lower = proved.spread_lower(n, ball(sq), xs, cdf, density, ball(step))
    with mpmath.workdps(30):
        sv = mpmath.mpf(int(sq.p)) / int(sq.q)
        exact = n * mpmath.quad(lambda x: mpmath.npdf(x) * (mpmath.ncdf(x + sv) - mpmath.ncdf(x)) ** (n - 1),
                                [-mpmath.inf, -3, 0, 3, mpmath.inf])
        low = mpmath.mpf(lower.lower().str(30, radius=False))
    assert low <= exact and low >= 0.98 * exact, (low, exact)


def _float_sum(whole, p, cells):
    """region_stair_whole.py's float value of (S.45) with Lemma S.26's cells on ``cells`` (its own tails, logs and
    quadrature)."""
    h, hr, hD, hE, _, awin, rwin, Dwin, Ewin, _ = whole.GRIDS[p]
    X, r, T, tg = whole.gate_tails(p, h, hr, awin, rwin)
    N, n = T.shape[2] // 2, p - 2
    hs, smax = whole.SPREAD[p]
    spreads = hs * np.arange(1, int(round(smax / hs)) + 1)
    Dg = np.arange(Dwin[0], Dwin[1] + hD / 2, hD)
    Eg = np.arange(Ewin[0], Ewin[1] + hE / 2, hE)
    sE = math.sqrt(0.5 + 1 / n)
    total = 0.0
    for d, m, qs in cells:
        d0, d1, e0, e1 = Dg[d], Dg[d + 1], Eg[m], Eg[m + 1]
        PD = float(whole.interval_mass(np.array(d0 / math.sqrt(2)), np.array(d1 / math.sqrt(2))))
        PE = min(whole.upper((e0 + D / 2) / sE) - whole.upper((e1 + D / 2) / sE) for D in (d0, d1))
        levels = []
        for q in qs:
            t = whole.first_indices(p, X, r, tg, d0, d1, e0, spreads[q], spread=True)
            levels.append(0.0 if t is None else
                          float(np.take_along_axis(T, np.minimum(t, 2 * N - 1)[:, :, None], axis=2).sum()))
        H = np.append(np.minimum.accumulate(levels), 0.0)
        mass = np.array([whole.range_cdf(spreads[q], n) for q in qs])
        total += PD * PE * float(np.sum((H[:-1] - H[1:]) * mass))
    return math.log10(p * p * (p - 1) * total)


def test_proved_sum_meets_the_float_sum(modules):
    """On the 6 cells of p = 5 that carry most, the proved lower sum is at most the float sum of the same cells and
    spreads (up to the float sum's own rounding, 1e-9 decades) and loses under 0.02 decades to it (its Riemann sum of
    the spread's law, its floors and its windows of t)."""
    proved, whole = modules
    cells = proved.load_cells(5)[:6]
    got = proved.prove(5, cells)["log10_lower"]
    want = _float_sum(whole, 5, cells)
    assert want - 0.02 <= got <= want + 1e-9, (got, want)


def test_an_understated_F1_is_caught(modules, monkeypatch):
    """The comparison above can fail: with F_1 understated (its upper bounds lowered by 1/8), more pairs are
    admitted and the 'proved' sum exceeds the float sum."""
    proved, whole = modules
    honest = proved.WSide.F1_upper
    monkeypatch.setattr(proved.WSide, "F1_upper",
                        lambda self, d, m, q: [x - (1 << (proved.LOG_BITS - 3)) for x in honest(self, d, m, q)])
    cells = proved.load_cells(5)[:6]
    assert proved.prove(5, cells)["log10_lower"] > _float_sum(whole, 5, cells) + 1e-9


def test_cells_file_is_well_formed(modules):
    """The committed choice of cells names cells and spreads of each prime's grids, spreads ascending."""
    proved, _ = modules
    data = json.loads(proved.CELLS_FILE.read_text())
    for p in (5, 7):
        G = proved.grids(p)
        cells = proved.load_cells(p)
        assert cells and len(cells) == len(data[str(p)])
        for d, m, qs in cells:
            assert 0 <= d < len(G["D_nodes"]) - 1 and 0 <= m < len(G["E_nodes"]) - 1
            assert qs == sorted(set(qs)) and all(0 <= q < len(G["spreads"]) for q in qs)


def test_bad_arguments_exit_with_one_line(tmp_path):
    """--top 0 is a usage error (exit 2, one line, no traceback)."""
    out = subprocess.run([sys.executable, str(EXAMPLE / "region_stair_proved.py"), "--top", "0"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and "--top must be >= 1" in out.stderr and "Traceback" not in out.stderr
