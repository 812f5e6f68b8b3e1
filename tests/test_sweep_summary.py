"""The sweep's summaries: kept across runs (recomputed, never copied), decimals in the CSV (rounded outward),
a per-prime table.

Expected values come from the certificates themselves, read with fractions.Fraction.
"""

import csv
import json
from fractions import Fraction

from certify.sweep import _outward_decimal, certificate_file, primes_between
from conftest import run_certify


def read_csv(path):
    return list(csv.DictReader(path.open()))


def stored(path, claim, component, key):
    document = json.loads(path.read_text())
    entry = document["claims"][claim]
    return (entry["components"][component] if component else entry)[key]


def test_a_later_sweep_of_one_theorem_keeps_the_others(tmp_path):
    out = tmp_path / "sweep"
    assert run_certify("sweep", "--primes", "5..13", "--theorems", "dead,gd", "--out", out).returncode == 0
    first = json.loads((out / "summary.json").read_text())
    assert run_certify("sweep", "--primes", "5..17", "--theorems", "dead", "--out", out).returncode == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {"dead", "gd"}
    assert summary["gd"]["carried_over"] is True and "carried_over" not in summary["dead"]
    # recomputed from gd's untouched files and its recorded parameters: what the first sweep wrote
    assert {key: value for key, value in summary["gd"].items() if key != "carried_over"} == first["gd"]
    assert summary["dead"]["certified"] == len(primes_between(5, 17))
    rows = read_csv(out / "summary.csv")
    assert {row["theorem"] for row in rows} == {"dead", "gd"}
    assert {row["this_run"] for row in rows if row["theorem"] == "gd"} == {"no"}
    assert {row["this_run"] for row in rows if row["theorem"] == "dead"} == {"yes"}


def test_csv_values_are_outward_decimals_and_the_prime_table_has_every_prime(tmp_path):
    out = tmp_path / "sweep"
    assert run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--out", out).returncode == 0
    for row in read_csv(out / "summary.csv"):
        assert "/" not in row["value"]
    table = read_csv(out / "primes-dead.csv")
    assert [int(row["p"]) for row in table] == primes_between(5, 13)
    for row in table:
        path = certificate_file(out, "dead", int(row["p"]))
        assert Fraction(row["radius"]) <= Fraction(json.loads(path.read_text())["radius"])
        exact = Fraction(stored(path, "single_active_gate", None, "lo"))
        shown = Fraction(row["gate margin"])
        assert shown <= exact and "/" not in row["gate margin"]  # a lower end rounded down
        assert exact - shown <= abs(exact) * Fraction(1, 10 ** 11)  # 12 significant digits
        log10 = Fraction(stored(path, "gaussian_probability", None, "log10_lo"))
        assert Fraction(row["log10 P"]) <= log10


def test_outward_decimal_rounds_each_way_without_expanding():
    assert _outward_decimal("1/3", upward=False) == "0.333333333333"
    assert _outward_decimal("1/3", upward=True) == "0.333333333334"
    assert _outward_decimal("-750017/102689500000", upward=False) == "-0.00000730373601975"  # 7.30373601974885...e-6
    assert _outward_decimal("-1e-977168779520925842", upward=True) == "-1e-977168779520925842"
    assert _outward_decimal("0", upward=True) == "0"
    assert _outward_decimal("not a number", upward=True) == "not a number"
    for text in ("1/7", "-22/7", "123456789012345678/99999999977"):
        assert Fraction(_outward_decimal(text, upward=False)) <= Fraction(text) <= Fraction(_outward_decimal(text, upward=True))
