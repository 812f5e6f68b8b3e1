"""certify.theorems.staircase_search: the base points `certify staircase` starts from below p = 55.

The table certify/theorems/staircase_search.json is data made by the search; these tests check that it is what the
search makes now, that a damaged table is refused in one line, that the builder starts from it (and searches at
another sigma), and that the search's choice is the best of what it tried (checked against candidates evaluated
here, not by the search's own bookkeeping).
"""

from __future__ import annotations

import json
import math

import pytest
from flint import fmpq

from certify.errors import CertifyError
from certify.theorems import staircase, staircase_search
from certify.theorems.staircase_search import (LARGE_P, candidate_log_region, grid_parameters, load_searched_table,
                                              refined_parameters, table_primes)


def test_table_is_what_the_search_writes(tmp_path):
    """The committed table is byte for byte what `python -m certify.theorems.staircase_search` writes now (so the
    data beside the script is the script's, not a hand edit)."""
    out = tmp_path / "table.json"
    assert staircase_search.main(["--out", str(out)]) == 0
    assert out.read_bytes() == staircase_search.TABLE_PATH.read_bytes()


def test_check_compares_with_the_file(tmp_path, monkeypatch):
    """--check exits 0 on the search's own table and 1 on a table one digit off (the search itself replaced by the
    committed table, which the test above compares with a real search)."""
    committed = json.loads(staircase_search.TABLE_PATH.read_text())
    monkeypatch.setattr(staircase_search, "searched_table", lambda primes: committed)
    out = tmp_path / "table.json"
    out.write_bytes(staircase_search.TABLE_PATH.read_bytes())
    assert staircase_search.main(["--out", str(out), "--check"]) == 0
    out.write_text(out.read_text().replace('"4.28"', '"4.29"'))
    assert staircase_search.main(["--out", str(out), "--check"]) == 1
    assert staircase_search.main(["--out", str(tmp_path / "absent.json"), "--check"]) == 1


def test_table_rows_are_the_primes_below_55():
    """One row per prime 5 <= p < 55 (every grid finds a certified box there), each an exact positive (X, s, D, E)
    with X > 2s, the hypothesis z11 < 0 of the record."""
    table = load_searched_table()
    assert sorted(table) == [5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53] == table_primes()
    for p, (X, s, D, E) in table.items():
        assert p < LARGE_P
        assert all(isinstance(x, fmpq) and x > 0 for x in (X, s, D, E))
        assert X > 2 * s


@pytest.mark.parametrize("p", [5, 7])
def test_refined_is_no_worse_than_grid_and_locally_best(p):
    """The refined box's bound is at least the grid's best, and no single move of the finest factor improves it
    (each neighbour evaluated here, by candidate_log_region)."""
    grid_point, grid_value = grid_parameters(p, fmpq(1))
    point, value = refined_parameters(p, fmpq(1))
    assert value >= grid_value
    assert point == load_searched_table()[p]
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


def test_builder_starts_from_the_table():
    """certify staircase --p 7 (no X, s, D, E) certifies at the table's row; with --X given it uses the formulas."""
    made = staircase.certify_staircase(7)
    X, s, D, E = load_searched_table()[7]
    assert (made.params.X, made.params.s, made.params.D, made.params.E) == (X, s, D, E)
    given = staircase.certify_staircase(7, X=7)
    assert (given.params.s, given.params.D, given.params.E) == (staircase.formula_s(7), staircase.DEFAULT_D,
                                                                 staircase.formula_E(7))


def test_builder_searches_the_grid_at_another_sigma():
    """At sigma = 1/2 the builder starts from the grid's best box at that sigma, not from the table's row."""
    sigma = fmpq(1, 2)
    expected = grid_parameters(5, sigma)[0]
    made = staircase.certify_staircase(5, sigma=sigma)
    assert (made.params.X, made.params.s, made.params.D, made.params.E) == expected


@pytest.mark.parametrize("damage", [
    lambda t: "{not json",
    lambda t: json.dumps({**t, "sigma": "2"}),
    lambda t: json.dumps({**t, "parameters": []}),
    lambda t: json.dumps({**t, "parameters": {"5": {"X": "4.28", "s": "0.537", "D": "0.441"}}}),
    lambda t: json.dumps({**t, "parameters": {"5": {"X": "abc", "s": "0.537", "D": "0.441", "E": "6.56"}}}),
    lambda t: json.dumps({**t, "parameters": {"five": {"X": "4.28", "s": "0.537", "D": "0.441", "E": "6.56"}}}),
    lambda t: json.dumps({**t, "parameters": {"5": {"X": 4.28, "s": "0.537", "D": "0.441", "E": "6.56"}}}),
    lambda t: json.dumps({**t, "parameters": {"5": {"X": "1e999999", "s": "0.537", "D": "0.441", "E": "6.56"}}}),
])
def test_damaged_table_is_refused_in_one_line(tmp_path, damage):
    """A table that is not the search's is refused with one line naming the file, never a traceback or a guess."""
    good = json.loads(staircase_search.TABLE_PATH.read_text())
    path = tmp_path / "table.json"
    path.write_text(damage(good))
    load_searched_table.cache_clear()
    try:
        with pytest.raises(CertifyError) as caught:
            load_searched_table(path)
    finally:
        load_searched_table.cache_clear()
    message = str(caught.value)
    assert "\n" not in message and "staircase search table" in message and str(path) in message


def test_missing_table_is_refused_in_one_line(tmp_path):
    load_searched_table.cache_clear()
    try:
        with pytest.raises(CertifyError, match="staircase search table .* is damaged"):
            load_searched_table(tmp_path / "absent.json")
    finally:
        load_searched_table.cache_clear()
