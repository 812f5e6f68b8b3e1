"""certify.theorems.staircase_search: the base point `certify staircase` starts from below p = 55.

The search is untrusted (the kernel decides each certificate); these tests check that its choice is the best of what
it tried (against candidates evaluated here, not by the search's own bookkeeping), that the builder starts from it
at any sigma, and that giving any of X, s, D, E switches to the formulas.
"""

from __future__ import annotations

import math

import pytest
from flint import fmpq

from certify.theorems import staircase, staircase_search
from certify.theorems.staircase_search import LARGE_P, candidate_log_region, grid_parameters, refined_parameters


@pytest.mark.parametrize("p", [5, 7])
def test_refined_is_no_worse_than_grid_and_locally_best(p):
    """The refined box's bound is at least the grid's best, and no single move of the finest factor improves it
    (each neighbour evaluated here, by candidate_log_region)."""
    grid_point, grid_value = grid_parameters(p, fmpq(1))
    point, value = refined_parameters(p, fmpq(1))
    assert value >= grid_value
    factor = staircase_search.REFINE_FACTORS[-1]
    for index in range(4):
        for step in (factor, 1 / factor):
            trial = list(point)
            trial[index] = staircase_search.round_down(point[index] * step)
            neighbour = candidate_log_region(p, *trial, fmpq(1))
            assert neighbour is None or neighbour <= value


def test_grid_best_is_the_maximum_over_the_grid():
    """grid_parameters(5) returns the maximum of candidate_log_region over the 81 grid points, recomputed here."""
    values = []
    for a in staircase_search.SEARCH_A:
        for b in staircase_search.SEARCH_B:
            # s = b ln(5)/5 rounded down to 3 digits (s in [0.1, 1)); a float's relative error ~1e-16 cannot move
            # the floor unless 1000 s is within 1e-9 of an integer, which is asserted not to happen
            thousand_s = 1000 * float(b) * math.log(5) / 5
            assert 100 <= thousand_s < 1000 and abs(thousand_s - round(thousand_s)) > 1e-9
            s = fmpq(math.floor(thousand_s), 1000)
            for c in staircase_search.SEARCH_C:
                for D in staircase_search.SEARCH_D:
                    v = candidate_log_region(5, a * 5, s, D, c * 5, fmpq(1))
                    if v is not None:
                        values.append(v)
    assert len(values) > 0
    assert grid_parameters(5, fmpq(1))[1] == max(values)


def test_builder_starts_from_the_search():
    """certify staircase --p 7 (no X, s, D, E) certifies at the refined search's box; with --X given it uses the
    formulas."""
    made = staircase.certify_staircase(7)
    assert (made.params.X, made.params.s, made.params.D, made.params.E) == refined_parameters(7, fmpq(1))[0]
    given = staircase.certify_staircase(7, X=7)
    assert (given.params.s, given.params.D, given.params.E) == (staircase.formula_s(7), staircase.DEFAULT_D,
                                                                 staircase.formula_E(7))


def test_builder_searches_at_another_sigma():
    """At sigma = 1/2 the builder starts from the search's best box at that sigma (not sigma = 1's)."""
    sigma = fmpq(1, 2)
    expected = refined_parameters(5, sigma)[0]
    assert expected != refined_parameters(5, fmpq(1))[0]
    made = staircase.certify_staircase(5, sigma=sigma)
    assert (made.params.X, made.params.s, made.params.D, made.params.E) == expected


def test_from_55_on_the_formulas():
    """At p = 59 the builder's defaults are the formulas of section 9.1 (the search stops below LARGE_P = 55)."""
    assert LARGE_P == 55
    made = staircase.certify_staircase(59)
    assert (made.params.X, made.params.s, made.params.D, made.params.E) == (
        staircase.formula_X(59), staircase.formula_s(59), staircase.DEFAULT_D, staircase.formula_E(59))
