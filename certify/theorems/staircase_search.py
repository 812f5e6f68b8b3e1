"""The base points ``certify staircase`` starts from below LARGE_P (docs/staircase.md, sections 9.1 and 11.15): the
search that chooses them, and the table it writes.

Run: python -m certify.theorems.staircase_search [--check] [--out FILE]

Untrusted by design: this module only chooses X, s, D, E; :mod:`certify.kernel.staircase` decides every candidate
and the final certificate, and ``certify check`` recomputes. The search, for a prime p and sigma:

1. the grid X = a p, s = b ln(p)/p (3 digits, rounded down), E = c p and D, for a, b, c, D in SEARCH_A..SEARCH_D (81
   boxes), keeping the one with the largest region bound (the mass of its widened box, its translates and its
   copies, :func:`certify.kernel.staircase.widened_region_log_lower`, at the radius found to 2^-CANDIDATE_STEPS);
2. a pattern search from it: each of X, s, D, E in turn multiplied by each of REFINE_FACTORS and its inverse,
   rounded to 3 significant digits, a move kept when the bound grows; each factor until no move helps.

The grid brackets where importance sampling puts U_stair's weight (examples/staircase/region_stair_mc.py; X = 4.4,
s = 0.61, D = 0.39, E = 6.2 at p = 5); the refinement adds 0.7 decades at p = 5, 4.3 at 7 and 59 at 13.
Searching costs about 0.5-1.5 s a prime, so the results at sigma = 1 for every prime below LARGE_P are kept as
data, ``staircase_search.json`` beside this file (package data), written by this script (``--check`` says
whether the committed table is what the search makes now). ``certify staircase`` reads the table at sigma = 1
and searches (the grid only) at another sigma.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from functools import lru_cache
from pathlib import Path

from flint import fmpq

from ..errors import CertifyError, HypothesisError, NotCertified
from ..kernel import staircase as kernel
from ..kernel.balls import ball, working_precision
from ..kernel.exact import format_rational, parse_rational
from .radius import largest_certifiable_radius, round_down

#: Below this prime the builder searches its base point (beyond it the formulas of certify.theorems.staircase hold
#: to p = 10^18 - 11, docs/staircase.md 9.1).
LARGE_P = 55
#: The grid of step 1 (81 boxes): X = a p, s = b ln(p)/p, E = c p, and D.
SEARCH_A = (fmpq(1, 2), fmpq(7, 10), fmpq(9, 10))
SEARCH_B = (fmpq(6, 5), fmpq(3, 2), fmpq(9, 5))
SEARCH_C = (fmpq(5, 4), fmpq(8, 5), fmpq(2))
SEARCH_D = (fmpq(3, 10), fmpq(2, 5), fmpq(1, 2))
#: The multiplicative moves of step 2, coarse to fine.
REFINE_FACTORS = (fmpq(11, 10), fmpq(21, 20), fmpq(41, 40))
#: How finely each candidate's radius is searched (2^-5, as twin_above's g; the final radius to 2^-16).
CANDIDATE_STEPS = 5
#: Bits of the candidates' bounds (the final certificate uses the full precision).
SEARCH_PRECISION = 64
#: The table of searched base points at sigma = 1 (package data), written by :func:`main`.
TABLE_PATH = Path(__file__).with_name("staircase_search.json")
NAMES = ("X", "s", "D", "E")


def candidate_log_region(p: int, X: fmpq, s: fmpq, D: fmpq, E: fmpq, sigma: fmpq) -> float | None:
    """The float value of the region bound (natural log) of the k = 2 box at (X, s, D, E, sigma), at its largest
    radius found to 2^-CANDIDATE_STEPS, or None when the hypotheses or the box do not certify. A ranking only."""
    params = kernel.StaircaseParameters(p, fmpq(2), X, s, D, E, sigma)
    try:
        kernel.require_staircase_hypotheses(params)
        radius = largest_certifiable_radius(lambda r: kernel.staircase_box_bounds(params, r, SEARCH_PRECISION),
                                            min(s, X) / 2, steps=CANDIDATE_STEPS)
        with working_precision(SEARCH_PRECISION):
            return float(kernel.widened_region_log_lower(params, radius).mid())
    except (HypothesisError, NotCertified):
        return None


def grid_parameters(p: int, sigma: fmpq) -> tuple[tuple, float] | None:
    """Step 1: ((X, s, D, E), bound) of the grid's best box, or None when none certifies."""
    best = None
    with working_precision(64):
        log_p = ball(p).log()
    for a in SEARCH_A:
        for b in SEARCH_B:
            with working_precision(64):
                s = round_down((b * log_p / p).lower().mid().fmpq())
            for c in SEARCH_C:
                for D in SEARCH_D:
                    value = candidate_log_region(p, a * p, s, D, c * p, sigma)
                    if value is not None and (best is None or value > best[1]):
                        best = ((a * p, s, D, c * p), value)
    return best


def refined_parameters(p: int, sigma: fmpq) -> tuple[tuple, float] | None:
    """Steps 1 and 2: ((X, s, D, E), bound) of the search's best box, or None when no grid box certifies."""
    best = grid_parameters(p, sigma)
    if best is None:
        return None
    point, value = best
    for factor in REFINE_FACTORS:
        moved = True
        while moved:
            moved = False
            for index in range(4):
                for step in (factor, 1 / factor):
                    trial = list(point)
                    trial[index] = round_down(point[index] * step)
                    if trial[index] == point[index]:
                        continue
                    trial_value = candidate_log_region(p, *trial, sigma)
                    if trial_value is not None and trial_value > value:
                        point, value, moved = tuple(trial), trial_value, True
    return point, value


def searched_table(primes) -> dict:
    """The table :func:`main` writes: for each prime, its refined (X, s, D, E) at sigma = 1 as exact texts, and the
    log10 of the candidate's region bound (informative: the certificate states the proved one)."""
    entries = {}
    for p in primes:
        found = refined_parameters(p, fmpq(1))
        if found is None:
            continue
        point, value = found
        entries[str(p)] = {**{name: format_rational(x) for name, x in zip(NAMES, point)},
                           "log10_region_candidate": round(value / math.log(10), 2)}
    return {"about": "certify staircase's base points at sigma = 1 below p = 55, written by python -m "
                     "certify.theorems.staircase_search (untrusted: the kernel decides every certificate)",
            "sigma": "1", "parameters": entries}


@lru_cache(maxsize=1)
def load_searched_table(path: Path = TABLE_PATH) -> dict:
    """{p: (X, s, D, E)} from the table at ``path``: each value an exact number of certify's grammar. CertifyError
    (one line) when the file is not the table this module writes."""
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = table["parameters"]
        if table.get("sigma") != "1" or not isinstance(entries, dict):
            raise ValueError("not a table at sigma = 1")
        return {int(p): tuple(parse_rational(entry[name], f"{name} at p = {p}") for name in NAMES)
                for p, entry in entries.items()}
    except (OSError, ValueError, KeyError, TypeError, CertifyError) as error:
        raise CertifyError(f"the staircase search table {path} is damaged ({error}); reinstall certify or "
                           "rewrite it with python -m certify.theorems.staircase_search") from None


def table_primes() -> list[int]:
    """The primes 5 <= p < LARGE_P: the table's rows."""
    return [p for p in range(5, LARGE_P) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m certify.theorems.staircase_search",
                                     description="Search certify staircase's base points at sigma = 1 below "
                                                 "p = 55 and write the table the builder reads.")
    parser.add_argument("--out", type=Path, default=TABLE_PATH, help="where to write the table (default: the "
                                                                      "package's)")
    parser.add_argument("--check", action="store_true", help="compare with the table at --out instead of writing")
    options = parser.parse_args(argv)
    text = json.dumps(searched_table(table_primes()), indent=1) + "\n"
    if options.check:
        same = options.out.is_file() and options.out.read_text(encoding="utf-8") == text
        print(f"{options.out}: {'what the search makes' if same else 'NOT what the search makes now'}")
        return 0 if same else 1
    options.out.write_text(text, encoding="utf-8")
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
