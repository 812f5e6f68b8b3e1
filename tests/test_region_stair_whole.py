"""docs/staircase.md section 11.16 (Lemmas S.22-S.24, S.26, Proposition S.25), checked through
examples/staircase/region_stair_whole.py's float evaluation by routes that do not use (S.43)-(S.45): the loss
inequality of (S.10) from (A.2) over the whole w at points of admitted cells, a Monte Carlo of a gate cell, the laws
of (S.42) by sampling, Lemma S.26's vertex bound against random centred vectors, and the lower sum below the
importance-sampling estimate of section 11.15. The section is evidence (no certificate states it), so these tests
keep its lemmas true where the example is run; they are not a certificate's tests."""

import math
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("spread", [False, True])
def test_admitted_cells_lie_in_U_stair(stair_whole, p, spread):
    """Lemma S.23 (with Lemma S.26's cells when ``spread``): every sampled point of every cell (S.44) admits satisfies
    the loss inequality of (S.10), computed from (A.2) over the whole w (check_threshold asserts it)."""
    assert stair_whole.check_threshold(p, np.random.default_rng(2), spread=spread, trials=600) >= 20


def test_a_looser_budget_is_caught(stair_whole, monkeypatch):
    """The check can fail: with rho_+ dropped from b_+ (the budget of rho = 1, which the box does not give), admitted
    cells contain points outside U_stair."""
    monkeypatch.setattr(stair_whole, "cell_budget",
                        lambda p, D_lo, E_lo, alpha, spread=False: 2 * math.log(2) + 2 / (p - 1))
    with pytest.raises(AssertionError, match="fails"):
        stair_whole.check_threshold(5, np.random.default_rng(2), trials=4000)


@pytest.mark.parametrize("p", [5, 7])
def test_gate_cell_and_laws(stair_whole, p):
    """Lemma S.24 below a Monte Carlo of the cell (within 4 standard errors, computed from the draws), and (S.42)'s
    laws within 5 standard errors of a sample moment."""
    rng = np.random.default_rng(3)
    stair_whole.check_gate_cell(p, rng, draws=400_000)
    stair_whole.check_laws(p, rng, draws=400_000)


@pytest.mark.parametrize("n", [3, 5, 9])
def test_vertex_bound(stair_whole, n):
    """Lemma S.26, item 1: sum_j e^{y e_j} <= V_n(y s) for centred e of spread <= s, and equality at the two-level
    vertices, enumerated here independently."""
    rng = np.random.default_rng(n)
    for _ in range(200):
        s, y = rng.uniform(0.01, 2.0), rng.uniform(0.0, 10.0)
        e = rng.uniform(0, 1, n)
        e = (e - e.min()) / (e.max() - e.min()) * s * rng.uniform(0, 1)
        e -= e.mean()
        bound = float(np.exp(stair_whole.log_vertex_sum(y, s, n)))
        # float rounding of n exponentials below e^20: relative error under 1e-13
        assert np.exp(y * e).sum() <= bound * (1 + 1e-12)
        vertices = [k * math.exp(y * s * (n - k) / n) + (n - k) * math.exp(-y * s * k / n) for k in range(1, n)]
        assert max(vertices) == pytest.approx(bound, rel=1e-12)


@pytest.mark.parametrize("p", [5, 7])
def test_lower_sum_below_the_estimate(stair_whole, p):
    """Proposition S.25 on coarse grids (four times the table's steps), box and spread cells: positive, and below the
    importance-sampling estimate of section 11.15 (relative standard error 0.004, so 0.01 decades of slack)."""
    h, hr, hD, hE, ha, *windows = stair_whole.GRIDS[p]
    for spread in (False, True):
        bound = stair_whole.lower_sum(p, 4 * h, 4 * hr, 4 * hD, 4 * hE, 4 * ha, *windows, spread=spread)["bound"]
        assert 0 < bound and math.log10(bound) < stair_whole.ESTIMATE[p] + 0.01
