"""The API reads well (issue 24, item 6): print(certificate) is the command's summary, claims have an exact
midpoint, a float and rich reprs, a Verdict says what was checked, simulate/plot/sweep/law have real
signatures, and sweep/law return the tables their commands write.

Expected values come from elsewhere than the code under test: the command line's own output (stderr of
``certify dead``, the table of ``certify law``, summary.csv of ``certify sweep``), the certificate's text read
with json and fractions.Fraction, and mpmath's correctly rounded rational-to-float conversion.
"""

from __future__ import annotations

import contextlib
import csv
import inspect
import io
import json
import math
import re
import sys
import types
from fractions import Fraction

import pytest

import certify
from certify.api import Claim, NumberTooLarge
from certify.errors import CertifyError, InputError


def _main(*argv) -> tuple[int, str, str]:
    from certify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def dead5():
    return certify.dead(p=5)


# --- print(certificate) is the command's summary ----------------------------------------------------------

@pytest.mark.parametrize("argv, make", [
    (["dead", "--p", "5"], lambda: certify.dead(p=5)),
    (["gd", "--p", "5", "--eta", "1/2"], lambda: certify.gd(p=5, eta="1/2")),
    (["slide", "--p", "7"], lambda: certify.slide(p=7)),
])
def test_print_and_summary_are_what_the_command_prints(argv, make, tmp_path, capsys):
    code, _, err = _main(*argv, "--out", tmp_path / "c.json")
    assert code == 0
    c = make()
    assert c.summary() == err.rstrip("\n") and str(c) == c.summary()
    print(c)
    assert capsys.readouterr().out == err


# --- claims: mid, float, rich reprs -----------------------------------------------------------------------

def _nearest_float(value: Fraction) -> float:
    """mpmath's correctly rounded (to nearest) conversion of a rational to 53 bits, then to a float."""
    from mpmath import libmp

    # 53 bits rounded to nearest: to_float then changes nothing (+-inf beyond the largest float; no value here
    # is below 2^-1022, where a float has fewer bits)
    return libmp.to_float(libmp.from_rational(value.numerator, value.denominator, 53, "n"))


def _stored_quantities(certificate):
    """(where, stored dict) for every claim and component, read from the certificate's text by json."""
    for claim_id, stored in json.loads(certificate.to_json())["claims"].items():
        yield claim_id, stored, certificate.claims[claim_id]
        for name, part in stored.get("components", {}).items():
            yield f"{claim_id}/{name}", part, certificate.claims[claim_id].components[name]


@pytest.mark.parametrize("make", [lambda: certify.dead(p=5), lambda: certify.slide(p=5),
                                  lambda: certify.gd(p=5, eta=1)], ids=["dead", "slide", "gd"])
def test_mid_is_the_exact_midpoint_and_float_its_nearest_float(make):
    checked = 0
    for where, stored, quantity in _stored_quantities(make()):
        if "exact" in stored:
            expected = Fraction(stored["exact"])
        elif "lo" in stored and "hi" in stored:
            expected = (Fraction(stored["lo"]) + Fraction(stored["hi"])) / 2
            assert Fraction(stored["lo"]) <= quantity.mid <= Fraction(stored["hi"]), where
        else:
            assert quantity.mid is None, where
            continue
        assert type(quantity.mid) is Fraction and quantity.mid == expected, where
        assert float(quantity) == _nearest_float(expected), where
        checked += 1
    assert checked >= 1  # gd at p = 5 states one two-sided or exact number; dead and slide several


def test_float_of_huge_tiny_and_one_sided_quantities():
    def claim(**numbers):
        return Claim("x", {"statement": "s", "scope": "box", **numbers})

    tiny = claim(lo="1e-977168779520925842", hi="2e-977168779520925842")
    assert float(tiny) == 0.0 and math.copysign(1, float(tiny)) == 1
    assert math.copysign(1, float(claim(lo="-2e-977168779520925842", hi="-1e-977168779520925842"))) == -1
    with pytest.raises(NumberTooLarge):
        tiny.mid
    assert float(claim(lo="1e400000", hi="2e400000")) == math.inf
    assert float(claim(lo="-3e400000", hi="5")) == -math.inf
    for lo, hi in (("-2e400000", "1e400000"), ("-1e-400000", "0.5")):  # (a tiny end could decide a tie)
        with pytest.raises(NumberTooLarge):
            float(claim(lo=lo, hi=hi))
    assert float(claim(lo="0", hi="1e-400000")) == 0.0
    assert float(claim(lo="1e400", hi="3e400")) == math.inf  # a Fraction, beyond the largest float
    assert float(claim(exact="1/3")) == 1 / 3 and claim(exact="1/3").mid == Fraction(1, 3)
    one_sided = claim(lo="0.5")
    assert one_sided.mid is None
    with pytest.raises(InputError, match="no midpoint"):
        float(one_sided)


def _interval(text: str) -> tuple[Fraction, Fraction]:
    low, high = re.search(r"\[([-0-9.e]+), ([-0-9.e]+)\]", text).groups()
    return Fraction(low), Fraction(high)


def test_claim_reprs_show_what_the_summary_shows(dead5, tmp_path):
    """The box's hitting time as the command prints it ("T in [2.53, 32.3] on the box"), in Markdown and LaTeX,
    with ends that contain the stored ones; every claim's reprs name it and are one line."""
    _, _, err = _main("dead", "--p", "5", "--out", tmp_path / "c.json")
    shown = re.search(r"T (in \[[^]]*\]) on the box", err).group(1)
    claim = dead5.claims["hitting_time_box"]
    markdown, latex = claim._repr_markdown_(), claim._repr_latex_()
    assert f"`{shown}`" in markdown and "hitting_time_box" in markdown and "(box)" in markdown
    assert latex.startswith("$") and latex.endswith("$") and shown.replace("in", r"\in") in latex
    low, high = _interval(latex)
    stored = json.loads(dead5.to_json())["claims"]["hitting_time_box"]
    assert low <= Fraction(stored["lo"]) and Fraction(stored["hi"]) <= high
    for claim_id, claim in dead5.claims.items():
        for text in (claim._repr_markdown_(), claim._repr_latex_()):
            assert "\n" not in text and claim_id.split("_")[0] in text, (claim_id, text)
    exact = dead5.claims["terminal_fourier_fraction"]
    assert "`= 0.5`" in exact._repr_markdown_() and "= 0.5" in exact._repr_latex_()


# --- Verdict ----------------------------------------------------------------------------------------------

def test_a_verdict_says_what_was_checked(dead5, tmp_path):
    path = tmp_path / "dead-5.json"
    dead5.save(path)
    verdict = certify.load(path).check()
    count = len(json.loads(dead5.to_json())["claims"])
    assert verdict.claims_verified == count
    assert repr(verdict).startswith(f"<Verdict verified: {path}: dead, p = 5, {count} claims verified")

    document = json.loads(dead5.to_json())
    document["claims"]["hitting_time"]["hi"] = document["claims"]["hitting_time"]["lo"]  # tighter than proved
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    verdict = certify.load(bad).check()
    assert verdict.status == "rejected" and verdict.claims_verified == 0
    assert repr(verdict).startswith(f"<Verdict rejected: {bad}: no claim verified; first reason: hitting_time: ")


# --- real signatures --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, keywords", [
    ("simulate", {"eta": None, "certificate": None, "start": "base", "seed": 0, "parameters": None}),
    ("plot", {"eta": None, "certificate": None, "start": "base", "seed": 0, "parameters": None}),
    ("sweep", {"out": inspect.Parameter.empty, "theorems": None, "jobs": None, "eta": None, "scheduler": None,
               "connect_timeout": 5.0, "progress": False}),
    ("law", {"out": inspect.Parameter.empty, "sigma": "1", "seed": 1, "horizon": "1e8", "dynamics": "flow",
             "eta": None, "jobs": None, "scheduler": None, "connect_timeout": 5.0, "progress": False}),
])
def test_the_api_functions_have_real_signatures(name, keywords):
    function = getattr(certify, name)
    parameters = inspect.signature(function).parameters
    kinds = {parameter.kind for parameter in parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds and inspect.Parameter.VAR_KEYWORD not in kinds
    assert {key: parameters[key].default for key in keywords} == keywords
    assert all(parameters[key].kind is inspect.Parameter.KEYWORD_ONLY for key in keywords)
    documented = function.__doc__ if name != "plot" else certify.simulate.__doc__
    assert all(f":param {key}:" in documented for key in keywords), name


def test_simulate_takes_parameters_and_eta_by_name():
    import numpy as np

    by_name = certify.simulate("dead", p=5, parameters={"epsilon": "1/2"})
    made = certify.simulate(certificate=certify.dead(p=5, epsilon="1/2"))
    assert np.array_equal(by_name["t"], made["t"]) and by_name["epsilon"] == made["epsilon"] != \
        certify.simulate("dead", p=5)["epsilon"]
    assert certify.simulate("gd", p=5, eta="1/2")["theorem"] == "gd"


def test_the_submodules_stay_reachable_through_the_functions(monkeypatch):
    import certify.law.runner  # noqa: F401 - binds the package attribute the proxy reads
    import certify.sweep as sweep_module

    assert callable(certify.sweep) and callable(certify.law) and callable(certify.simulate)
    assert certify.sweep.run_sweep is sys.modules["certify.sweep"].run_sweep
    assert certify.law.runner.run_law is sys.modules["certify.law.runner"].run_law
    monkeypatch.setattr(sweep_module, "CHUNK", 7)  # set on the module itself
    assert sys.modules["certify.sweep"].CHUNK == 7


# --- sweep and law return their summaries -----------------------------------------------------------------

def test_sweep_returns_the_rows_of_the_command_s_summary_csv(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # the records form, whether pandas is installed or not
    table = certify.sweep("5..7", theorems="dead", jobs=1, out=tmp_path / "api")
    assert _main("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", tmp_path / "cli")[0] == 0
    with open(tmp_path / "cli" / "summary.csv", newline="") as handle:
        expected = list(csv.DictReader(handle))
    assert isinstance(table, certify.api.Records) and len(table) == len(expected) >= 3
    as_text = [{key: "" if value is None else str(value) for key, value in row.items()} for row in table]
    assert as_text == expected
    assert {(row["theorem"], row["primes"], row["certified"], row["failed"]) for row in table} == {("dead", 2, 2, 0)}
    assert table.summary == json.loads((tmp_path / "api" / "summary.json").read_text())
    assert sorted(path.name for path in (tmp_path / "api" / "dead").iterdir()) == ["dead-5.json", "dead-7.json"]


def test_sweep_and_law_give_a_dataframe_when_pandas_is_there(tmp_path, monkeypatch):
    class DataFrame:
        def __init__(self, rows):
            self.rows, self.attrs = list(rows), {}

    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=DataFrame))
    frame = certify.sweep("5..5", theorems="dead", jobs=1, out=tmp_path / "s")
    assert isinstance(frame, DataFrame) and frame.rows[0]["theorem"] == "dead" and frame.rows[0]["certified"] == 1
    assert frame.attrs["summary"]["dead"]["certified"] == 1
    frame = certify.law(5, 1, horizon=100, jobs=1, out=tmp_path / "l")
    assert isinstance(frame, DataFrame) and sum(row["count"] for row in frame.rows) == 1
    assert frame.attrs["summary"]["samples"] == 1


def test_law_returns_the_table_the_command_prints(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    table = certify.law(5, 2, horizon=100, jobs=1, out=tmp_path / "api")
    code, out, _ = _main("law", "--p", 5, "--samples", 2, "--horizon", 100, "--jobs", 1, "--out", tmp_path / "cli")
    assert code == 0
    printed = {match[0]: int(match[1]) for match in re.findall(r"^(\w+) +(\d+) +[0-9.]+%  \[", out, re.M)}
    assert isinstance(table, certify.api.Records) and {row["outcome"]: row["count"] for row in table} == printed
    assert sum(printed.values()) == 2 and len(printed) == 6
    for row in table:
        assert 0 <= row["ci_low"] <= row["fraction"] <= row["ci_high"] <= 1 and row["fraction"] == row["count"] / 2
    assert table.summary == json.loads((tmp_path / "api" / "summary.json").read_text())
    assert table.summary["horizon"] == "100"


BAD_INPUT = {
    "sweep('x..y')": lambda d: certify.sweep("x..y", out=d),
    "sweep(5)": lambda d: certify.sweep(5, out=d),
    "sweep('8..10')": lambda d: certify.sweep("8..10", out=d),
    "sweep(theorems='nope')": lambda d: certify.sweep("5..7", theorems="nope", out=d),
    "sweep(theorems=3)": lambda d: certify.sweep("5..7", theorems=3, out=d),
    "sweep(eta without gd)": lambda d: certify.sweep("5..7", theorems="dead", eta="1/2", out=d),
    "sweep(eta=0.1)": lambda d: certify.sweep("5..7", theorems="gd", eta=0.1, out=d),
    "sweep(jobs=0)": lambda d: certify.sweep("5..7", theorems="dead", jobs=0, out=d),
    "sweep(connect_timeout=-1)": lambda d: certify.sweep("5..7", theorems="dead", connect_timeout=-1, out=d),
    "sweep(out=None)": lambda d: certify.sweep("5..7", theorems="dead", jobs=1, out=None),
    "sweep(out='')": lambda d: certify.sweep("5..7", theorems="dead", jobs=1, out=""),
    "sweep(out=a file)": lambda d: certify.sweep("5..7", theorems="dead", jobs=1, out=d / "file"),
    "sweep(scheduler='nonsense')": lambda d: certify.sweep("5..7", theorems="dead", scheduler="nonsense", out=d),
    "law(4)": lambda d: certify.law(4, 2, out=d),
    "law('x')": lambda d: certify.law("x", 2, out=d),
    "law(samples=0)": lambda d: certify.law(5, 0, out=d),
    "law(samples='2')": lambda d: certify.law(5, "2", out=d),
    "law(gd without eta)": lambda d: certify.law(5, 2, dynamics="gd", out=d),
    "law(eta with flow)": lambda d: certify.law(5, 2, eta="0.1", out=d),
    "law(sigma='-1')": lambda d: certify.law(5, 2, sigma="-1", out=d),
    "law(sigma=nan)": lambda d: certify.law(5, 2, sigma=math.nan, out=d),
    "law(sigma=Fraction)": lambda d: certify.law(5, 2, sigma=Fraction(1, 2), out=d),
    "law(horizon=5)": lambda d: certify.law(5, 2, horizon=5, out=d),
    "law(seed=1.5)": lambda d: certify.law(5, 2, seed=1.5, out=d),
    "law(dynamics='sgd')": lambda d: certify.law(5, 2, dynamics="sgd", out=d),
    "law(jobs=0)": lambda d: certify.law(5, 2, jobs=0, out=d),
    "law(out=None)": lambda d: certify.law(5, 2, jobs=1, horizon=100, out=None),
    "law(out=a file)": lambda d: certify.law(5, 2, jobs=1, horizon=100, out=d / "file"),
    "simulate(parameters=5)": lambda d: certify.simulate("dead", p=5, parameters=5),
    "simulate(dead, eta=1)": lambda d: certify.simulate("dead", p=5, eta=1),
    "simulate(eta twice)": lambda d: certify.simulate("gd", p=5, eta=1, parameters={"eta": 1}),
}


@pytest.mark.parametrize("call", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_to_sweep_law_and_simulate_is_a_certify_error(call, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(CertifyError) as caught:
        call(tmp_path)
    assert "\n" not in str(caught.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]  # nothing made
