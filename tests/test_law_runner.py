"""certify.law.runner: rows, resume, the summary, Wilson intervals, the certified floor, Dask = in-process.

Real simulators with short horizons (p = 5, T = 10 or 100, a handful of samples)."""

import json
import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binomtest

from certify.law import runner
from certify.law.classify import OUTCOMES, classify
from certify.law.runner import (SAMPLE_FIELDS, LawError, LawParameters, certified_dead_region, progress_bar,
                                read_samples, run_law, wilson_interval)
from certify.law.sampling import draw_initial, in_dead_region, initially_active_gates

FLOW10 = LawParameters(5, horizon="10")


def _lines(path):
    return path.read_text().splitlines()


def _without_seconds(path):
    """The rows of samples.csv as {index: row without the seconds column}."""
    rows, rejected = read_samples(path, FLOW10)
    assert rejected == []
    return {i: {k: v for k, v in row.items() if k != "seconds"} for i, row in rows.items()}


# --- Wilson --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("count, n", [(0, 1), (1, 1), (0, 10), (3, 10), (5, 10), (10, 10), (4, 436), (0, 436),
                                      (431, 436), (1, 300), (150, 300)])
def test_wilson_agrees_with_scipy(count, n):
    reference = binomtest(count, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(count, n)
    assert low == pytest.approx(reference.low, abs=1e-12) and high == pytest.approx(reference.high, abs=1e-12)
    assert 0.0 <= low <= count / n <= high <= 1.0


def test_wilson_at_hand_computed_values():
    # k = 0, n = 10: the upper end is z^2 / (n + z^2) = 3.841458820694124 / 13.841458820694124 = 0.2775328...
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.27753279, abs=1e-8))
    # k = n = 10: the mirror image, exactly 1 at the top
    assert wilson_interval(10, 10) == (pytest.approx(1 - 0.27753279, abs=1e-8), 1.0)
    # k = 5, n = 10: centre 1/2, half-width z/(n+z^2) sqrt(2.5 + z^2/4) = 0.1416008 * 1.8602053 = 0.2634068
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.5 - 0.2634068, abs=1e-6), pytest.approx(0.5 + 0.2634068, abs=1e-6))
    for bad in ((-1, 10), (11, 10), (0, 0)):
        with pytest.raises(ValueError):
            wilson_interval(*bad)


# --- the certified floor --------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [5, 13])
def test_certified_floor_is_rounded_down_from_the_kernel_bound(p):
    from certify.kernel.region import dead_region_log_probability_lower

    log_lower = dead_region_log_probability_lower(p, 128)  # an exact ball: its one point is the proved bound
    assert log_lower.rad() == 0
    exact = log_lower.mid().fmpq()  # the exact rational value of the proved log bound
    got = certified_dead_region(p)
    with mpmath.workdps(60):  # exp and log10 recomputed independently at 60 digits
        log_bound = mpmath.mpf(int(exact.p)) / int(exact.q)
        bound, bound10 = mpmath.exp(log_bound), log_bound / mpmath.log(10)
        value = mpmath.mpf(got["dead_region_lower_bound"])
        value10 = mpmath.mpf(got["dead_region_log10_lower_bound"])
        assert value <= bound and value > bound * (1 - mpmath.mpf(10) ** -10)  # below, by a rounding only
        assert value10 <= bound10 and value10 > bound10 - mpmath.mpf(10) ** -9
    digits = got["dead_region_lower_bound"].split("e")[0].replace(".", "").lstrip("0")
    assert len(digits) <= 12


def test_certified_floor_at_p5_is_in_the_kernel_doctests_window():
    got = float(certified_dead_region(5)["dead_region_lower_bound"])
    assert math.exp(-6.39) < got < math.exp(-6.38)  # region.py's doctest: -6.39 < log P_lower < -6.38


@pytest.mark.parametrize("p, sigma", [(5, "1"), (7, "1/2")])
def test_certified_staircase_floor_is_the_staircase_certificate_rounded_down(p, sigma):
    """The law's staircase floor is the larger region claim of `certify staircase --p P --sigma S` (at p = 5,
    sigma = 1, whole_region_probability, Proposition S.25; at p = 7, sigma = 1/2, where no cells were chosen, both
    claims state region_probability's bound), checked by the checker, its log10 rounded down to 12 digits (so still
    a proved lower bound)."""
    from fractions import Fraction

    from certify.certificate import dumps
    from certify.check import check_bytes
    from certify.law.runner import certified_staircase_region
    from certify.theorems.staircase import certify_staircase

    from flint import fmpq

    document = certify_staircase(p, sigma=fmpq(Fraction(sigma).numerator, Fraction(sigma).denominator)).certificate
    assert check_bytes(dumps(document).encode())
    claims = document["claims"]
    stored = max(Fraction(claims[name]["log10_lo"]) for name in ("region_probability", "whole_region_probability"))
    assert (stored > Fraction(claims["region_probability"]["log10_lo"]) + 11) == (p == 5)
    floors = certified_staircase_region(p, sigma)
    got = Fraction(floors["staircase_region_log10_lower_bound"])
    assert stored - Fraction(1, 10**9) < got <= stored
    assert len(str(got.numerator).lstrip("-")) <= 12
    from certify.theorems.memorise import certify_memorise  # and Theorem S1's, the k = 1 floor: the larger claim

    document = certify_memorise(p, sigma=fmpq(Fraction(sigma).numerator, Fraction(sigma).denominator)).certificate
    assert check_bytes(dumps(document).encode())
    box = Fraction(document["claims"]["region_probability"]["log10_lo"])
    stored = Fraction(document["claims"]["whole_region_probability"]["log10_lo"])
    assert stored > box  # Proposition S1.8 beats the box copies at these p and sigma
    got = Fraction(floors["memorise_region_log10_lower_bound"])
    assert stored - Fraction(1, 10**9) < got <= stored
    from certify.theorems.twin import certify_twin  # and Proposition S2.2's, regime II of k = 2

    document = certify_twin(p, sigma=fmpq(Fraction(sigma).numerator, Fraction(sigma).denominator)).certificate
    assert check_bytes(dumps(document).encode())
    stored = Fraction(document["claims"]["region_probability"]["log10_lo"])
    got = Fraction(floors["twin_region_log10_lower_bound"])
    assert stored - Fraction(1, 10**9) < got <= stored
    from certify.theorems.twin_plus import certify_twin_plus  # and Proposition S3.2's, captured from D > 0

    document = certify_twin_plus(p, sigma=fmpq(Fraction(sigma).numerator, Fraction(sigma).denominator)).certificate
    assert check_bytes(dumps(document).encode())
    stored = Fraction(document["claims"]["region_probability"]["log10_lo"])
    got = Fraction(floors["twin_plus_region_log10_lower_bound"])
    assert stored - Fraction(1, 10**9) < got <= stored
    from certify.theorems.twin_above import certify_twin_above  # and Proposition S3.4's, captured from above

    document = certify_twin_above(p, sigma=fmpq(Fraction(sigma).numerator, Fraction(sigma).denominator)).certificate
    assert check_bytes(dumps(document).encode())
    stored = Fraction(document["claims"]["region_probability"]["log10_lo"])
    got = Fraction(floors["twin_above_region_log10_lower_bound"])
    assert stored - Fraction(1, 10**9) < got <= stored


def test_the_summary_text_shows_the_staircase_floor_only_when_it_has_one():
    from certify.law.runner import summary_text

    summary = {"p": 5, "samples": 1, "sigma": "1", "seed": 1, "dynamics": "flow", "horizon": "1e4",
               "rejected_inactive": 0, "outcomes": {}, "staircases": {"k": {}, "n_k": {}, "k2_degenerate_twin": 0},
               "multi_gate_other": {"count": 0}, "undecided_reasons": {}, "in_dead_region": 0,
               "dead_given_in_dead_region": 0,
               "certified": {"dead_region_lower_bound": "0.001", "dead_region_log10_lower_bound": "-3"}}
    summary["outcomes"]["dead"] = {"count": 0, "fraction": 0.0, "ci_low": 0.0, "ci_high": 1.0}
    assert "staircase region" not in summary_text(summary)  # a summary written before the floor existed
    summary["certified"]["staircase_region_log10_lower_bound"] = "-80.25"
    assert "P(staircase region R_stair, k = 2 | active) >= 10^-80.25" in summary_text(summary)
    assert "one-gate region" not in summary_text(summary)
    summary["certified"]["memorise_region_log10_lower_bound"] = "-19.39"
    assert "P(one-gate region R_1, k = 1 | active) >= 10^-19.39" in summary_text(summary)
    assert "twin region" not in summary_text(summary)
    summary["certified"]["twin_region_log10_lower_bound"] = "-78.07"
    summary["staircases"]["k2_degenerate_twin"] = 1
    assert ("P(twin region R_II, k = 2 regime II | active) >= 10^-78.07 (Proposition S2.2, docs/staircase.md "
            "section 11.9), sigma 1; measured twins 100.00% of the samples") in summary_text(summary)
    assert "R_II^+" not in summary_text(summary)
    summary["certified"]["twin_plus_region_log10_lower_bound"] = "-51.92"
    assert ("P(twin region R_II^+, k = 2 regime II captured with D >= 0 | active) >= 10^-51.92 (Proposition S3.2, "
            "docs/staircase.md section 11.11), sigma 1; measured twins 100.00% of the samples") in summary_text(summary)
    assert "R_II^above" not in summary_text(summary)
    summary["certified"]["twin_above_region_log10_lower_bound"] = "-38.46"
    assert ("P(twin region R_II^above, k = 2 regime II captured from above | active) >= 10^-38.46 (Proposition S3.4, "
            "docs/staircase.md section 11.13), sigma 1; measured twins 100.00% of the samples") in summary_text(summary)


# --- parameters ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, words", [
    ({"p": 9}, "not prime"), ({"p": 3}, "Remark 1.6"), ({"p": 5, "sigma": "0"}, "sigma"),
    ({"p": 5, "sigma": "-1"}, "sigma"), ({"p": 5, "horizon": "5"}, ">= 10"), ({"p": 5, "horizon": "inf"}, "horizon"),
    ({"p": 5, "dynamics": "gd"}, "--eta is required"), ({"p": 5, "eta": "0.1"}, "gd only"),
    ({"p": 5, "dynamics": "gd", "eta": "0"}, "eta"), ({"p": 5, "seed": -1}, "seed"),
])
def test_bad_parameters_are_refused(kwargs, words):
    from certify.errors import InputError

    with pytest.raises(InputError, match=words):
        LawParameters(**kwargs)


# --- rows, resume, summary -----------------------------------------------------------------------------------

def test_rows_are_the_simulated_and_classified_samples(tmp_path):
    from certify.law.flow import simulate_flow

    result = run_law(FLOW10, 3, tmp_path)
    lines = _lines(tmp_path / "samples.csv")
    assert lines[0] == ",".join(SAMPLE_FIELDS) and len(lines) == 4
    rows, rejected = read_samples(tmp_path / "samples.csv", FLOW10)
    assert rejected == [] and sorted(rows) == [0, 1, 2] and result.computed == 3 and result.kept == 0
    for index in range(3):
        draw = draw_initial(5, 1.0, 1, index)
        expected = classify(simulate_flow(draw.theta, 5, 10.0))
        row = rows[index]
        assert row["outcome"] == expected.outcome and row["reason"] == expected.reason
        assert row["pattern"] == expected.pattern and float(row["max_fourier"]) == expected.max_fourier
        assert float(row["loss"]) == expected.loss
        assert int(row["rejected"]) == draw.rejected
        assert int(row["initially_active_gates"]) == initially_active_gates(draw.theta, 5)
        assert row["in_dead_region"] == ("1" if in_dead_region(draw.theta, 5) else "0")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert list(summary) == ["p", "samples", "sigma", "dynamics", "horizon", "seed", "rejected_inactive", "outcomes",
                             "staircases", "multi_gate_other", "certified", "undecided_reasons", "in_dead_region",
                             "dead_given_in_dead_region"]
    assert (summary["p"], summary["samples"], summary["sigma"], summary["horizon"]) == (5, 3, "1", "10")
    assert list(summary["outcomes"]) == list(OUTCOMES)
    for name in OUTCOMES:
        count = sum(row["outcome"] == name for row in rows.values())
        entry = summary["outcomes"][name]
        reference = binomtest(count, 3).proportion_ci(method="wilson")
        assert entry["count"] == count and entry["fraction"] == count / 3
        assert entry["ci_low"] == pytest.approx(reference.low, abs=1e-12)
        assert entry["ci_high"] == pytest.approx(reference.high, abs=1e-12)
    assert sum(summary["undecided_reasons"].values()) == summary["outcomes"]["undecided"]["count"]
    assert json.loads((tmp_path / "run.json").read_text())["p"] == 5


def test_resume_keeps_rows_grows_and_recomputes_a_truncated_line(tmp_path):
    run_law(FLOW10, 3, tmp_path)
    csv_path = tmp_path / "samples.csv"
    # a kept row is never recomputed: mark one (its seconds) and see the mark survive
    lines = _lines(csv_path)
    marked = lines[1].rsplit(",", 1)[0] + ",999.0000"
    csv_path.write_text("\n".join([lines[0], marked, *lines[2:]]) + "\n")
    grown = run_law(FLOW10, 5, tmp_path)
    assert (grown.computed, grown.kept, grown.dropped) == (2, 3, 0)
    assert _lines(csv_path)[1] == marked and len(_lines(csv_path)) == 6
    complete = (tmp_path / "summary.json").read_bytes()
    assert json.loads(complete)["samples"] == 5
    # killed mid-write: the last line lost its end
    text = csv_path.read_text()
    csv_path.write_text(text[: len(text) - 9])
    last_index = int(text.splitlines()[-1].split(",")[0])
    resumed = run_law(FLOW10, 5, tmp_path, warn=lambda line: None)
    assert (resumed.computed, resumed.kept, resumed.dropped) == (1, 4, 1)
    rows, rejected = read_samples(csv_path, FLOW10)
    assert rejected == [] and sorted(rows) == list(range(5)) and int(_lines(csv_path)[-1].split(",")[0]) == last_index
    assert (tmp_path / "summary.json").read_bytes() == complete
    # nothing missing: nothing computed, same summary; fewer samples summarise a prefix
    assert run_law(FLOW10, 5, tmp_path).computed == 0
    assert (tmp_path / "summary.json").read_bytes() == complete
    assert json.loads(json.dumps(run_law(FLOW10, 2, tmp_path).summary))["samples"] == 2
    assert len(_lines(csv_path)) == 6  # the rows beyond stay in the file


def test_unreadable_rows_are_rejected_and_a_foreign_header_refused(tmp_path):
    run_law(FLOW10, 2, tmp_path)
    csv_path = tmp_path / "samples.csv"
    lines = _lines(csv_path)
    csv_path.write_text("\n".join([lines[0], lines[1], "garbage,1,2", lines[1], lines[2]]) + "\n")
    rows, rejected = read_samples(csv_path, FLOW10)
    # the garbage line, and both lines of the repeated index (which of them is right cannot be told)
    assert sorted(rows) == [int(lines[2].split(",")[0])]
    assert [note.split(" rejected")[0] for note in rejected] == [
        "line 2 (sample %s)" % lines[1].split(",")[0], "line 3", "line 4 (sample %s)" % lines[1].split(",")[0]]
    csv_path.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(LawError, match="columns"):
        run_law(FLOW10, 2, tmp_path)


@pytest.mark.parametrize("other, words", [
    (LawParameters(7, horizon="10"), "p = 5"), (LawParameters(5, sigma="2", horizon="10"), "sigma = 1"),
    (LawParameters(5, seed=2, horizon="10"), "seed = 1"), (LawParameters(5, horizon="100"), "horizon = 10"),
    (LawParameters(5, horizon="10", dynamics="gd", eta="0.1"), "dynamics = flow"),
])
def test_another_run_in_the_folder_is_refused(tmp_path, other, words):
    run_law(FLOW10, 1, tmp_path)
    with pytest.raises(LawError, match=words) as caught:
        run_law(other, 1, tmp_path)
    assert "\n" not in str(caught.value)


def test_the_same_numbers_spelt_otherwise_resume_the_run(tmp_path):
    run_law(FLOW10, 1, tmp_path)
    again = run_law(LawParameters(5, sigma="1.0", horizon="1e1"), 1, tmp_path)
    assert again.computed == 0 and again.summary["sigma"] == "1" and again.summary["horizon"] == "10"


def test_gd_eta_mismatch_and_folder_errors(tmp_path):
    gd = LawParameters(5, horizon="10", dynamics="gd", eta="0.1")
    summary = run_law(gd, 3, tmp_path / "gd").summary
    assert summary["eta"] == "0.1" and list(summary)[6] == "eta" and summary["dynamics"] == "gd"
    with pytest.raises(LawError, match="eta = 0.1"):
        run_law(LawParameters(5, horizon="10", dynamics="gd", eta="0.2"), 3, tmp_path / "gd")
    (tmp_path / "file").write_text("x")
    with pytest.raises(LawError, match="not a folder"):
        run_law(FLOW10, 1, tmp_path / "file")
    (tmp_path / "orphan").mkdir()
    (tmp_path / "orphan" / "samples.csv").write_text("x\n")
    with pytest.raises(LawError, match="no run.json"):
        run_law(FLOW10, 1, tmp_path / "orphan")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_text("{")
    with pytest.raises(LawError, match="not the record"):
        run_law(FLOW10, 1, tmp_path / "broken")
    with pytest.raises(LawError, match="samples"):
        run_law(FLOW10, 0, tmp_path / "zero")


def test_a_simulator_exception_is_that_samples_undecided_reason(tmp_path, monkeypatch):
    import certify.law.flow as flow

    def broken(theta, p, horizon):
        raise FloatingPointError("synthetic")

    monkeypatch.setattr(flow, "simulate_flow", broken)
    summary = run_law(FLOW10, 2, tmp_path).summary
    assert summary["outcomes"]["undecided"]["count"] == 2
    assert summary["undecided_reasons"] == {"the simulation raised FloatingPointError: synthetic": 2}


def test_reason_kinds_group_numbers_but_keep_equation_labels():
    kind = runner._reason_kind("balance quantity (A.10) drifted by 1.2e-05 > 1e-06")
    assert kind == "balance quantity (A.10) drifted by # > #"
    assert runner._reason_kind("50 successive zero-length modes at t = 68.75 (Zeno)") == \
        "# successive zero-length modes at t = # (Zeno)"


def test_a_local_dask_cluster_gives_the_same_rows_and_summary_bytes(tmp_path):
    pytest.importorskip("distributed")
    here = run_law(FLOW10, 4, tmp_path / "here", jobs=1)
    there = run_law(FLOW10, 4, tmp_path / "cluster", jobs=2)
    assert there.computed == 4
    assert (tmp_path / "here" / "summary.json").read_bytes() == (tmp_path / "cluster" / "summary.json").read_bytes()
    rows_here = _without_seconds(tmp_path / "here" / "samples.csv")
    rows_there = _without_seconds(tmp_path / "cluster" / "samples.csv")
    assert rows_here.keys() == rows_there.keys() == set(range(4))
    for index, row in rows_here.items():  # this process may run BLAS multi-threaded: last bits may differ
        other = rows_there[index]
        for name, value in row.items():
            if name in ("max_fourier", "loss", "death_time") and value:
                assert float(other[name]) == pytest.approx(float(value), rel=1e-9), name
            elif name == "balance_drift":  # itself rounding noise, ~1e-12: equal to well within its tolerance
                assert float(other[name]) == pytest.approx(float(value), abs=1e-10), name
            else:
                assert other[name] == value, name
    assert here.summary == there.summary


def test_batches_are_by_worker_not_by_sample():
    """gd: one big contiguous batch per worker (batches of 3 per task made --jobs 2 seven times slower than
    --jobs 1), or a few of at most GD_BATCH each, the same number for every worker."""
    assert runner._batches([3, 4, 7], "flow", 2) == [[3], [4], [7]]
    assert runner._batches(list(range(40)), "gd", 2) == [list(range(20)), list(range(20, 40))]
    assert runner._batches(list(range(10)), "gd", 2) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert runner._batches([2, 5, 6, 9, 11], "gd", 2) == [[2, 5, 6], [9, 11]]  # a resume's gaps: still in order
    missing = list(range(1000))
    batches = runner._batches(missing, "gd", 1)
    assert [len(b) for b in batches] == [250, 250, 250, 250] and sum(batches, []) == missing
    assert [len(b) for b in runner._batches(list(range(600)), "gd", 2)] == [150] * 4  # 2 per worker, not 256 + 88
    big = runner._batches(list(range(10_000)), "gd", 3)
    assert max(map(len, big)) <= runner.GD_BATCH and len(big) % 3 == 0 and sum(big, []) == list(range(10_000))
    assert runner._batches([7], "gd", 4) == [[7]] and runner._batches([], "gd", 2) == []


def test_a_gd_row_does_not_depend_on_its_batch():
    """The same samples in one batch, in two and one by one: the same rows, bit for bit (but the seconds)."""
    parameters = {"p": 5, "sigma": "1", "seed": 1, "horizon": "100", "dynamics": "gd", "eta": "1"}
    indices = list(range(6))

    def rows(batches):
        found = {}
        for batch in batches:
            for row in runner.compute_samples(parameters, batch):
                found[row["index"]] = {k: v for k, v in row.items() if k != "seconds"}
        return found

    together = rows([indices])
    assert rows([indices[:2], indices[2:]]) == together == rows([[i] for i in indices])
    assert sorted(together) == [str(i) for i in indices]


def test_progress_bar_only_on_a_terminal_and_with_the_time_left():
    import io

    assert progress_bar(io.StringIO()) is None

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    draw = progress_bar(stream)
    draw(0, 10, 0.0)
    draw(4, 10, 8.0, 4)  # 0.5 samples/s: 6 left -> 12 s
    assert "4/10" in stream.getvalue() and "~12s left" in stream.getvalue()
    draw(10, 10, 20.0, 10)
    assert stream.getvalue().endswith("\n")


# --- the staircase summary, the cost estimate ---------------------------------------------------------------

def _summary_row(outcome, k="", n="", n_columns=None, max_f="0.5", lengths="", dead_region="0", delta=None):
    return {"outcome": outcome, "reason": "why" if outcome == "undecided" else "", "rejected": "0",
            "in_dead_region": dead_region, "k": k, "high_rows": n,
            "high_columns": n if n_columns is None else n_columns,
            "max_fourier": max_f, "row_lengths": lengths,
            "delta": ("1" if outcome == "staircase" else "") if delta is None else delta}


def test_the_summary_reports_k_by_p_max_f_by_k_and_n_k_against_the_formula():
    rows = [_summary_row("staircase", "3", "2", max_f="0.87"), _summary_row("staircase", "3", "2", max_f="0.86"),
            _summary_row("staircase", "4", "2", "1", max_f="0.7"), _summary_row("memorises_one_entry", "1", "1"),
            _summary_row("staircase", "3", "2", max_f="0.8", delta=""),
            _summary_row("multi_gate_other", lengths="2 2"),
            _summary_row("multi_gate_other", lengths="2 2"), _summary_row("multi_gate_other"),
            _summary_row("dead"), _summary_row("undecided")]
    summary = runner.summary_document(LawParameters(5), 10, dict(enumerate(rows)), {"x": "1"})
    stairs = summary["staircases"]
    assert list(stairs["k"]) == ["1", "3", "4"]
    assert stairs["k"]["3"]["count"] == 3 and stairs["k"]["3"]["fraction"] == 0.3
    assert stairs["k"]["3"]["with_common_step"] == 2 and stairs["k"]["1"]["with_common_step"] is None
    assert (stairs["k"]["3"]["ci_low"], stairs["k"]["3"]["ci_high"]) == wilson_interval(3, 10)
    assert stairs["k"]["3"]["max_fourier"] == {"mean": 0.843333, "min": 0.8, "max": 0.87}
    assert stairs["k"]["1"]["count"] == 1 and stairs["k"]["4"]["max_fourier"]["mean"] == 0.7
    phi2 = ((1 + 5 ** 0.5) / 2) ** 2  # the formula at p = 5 by hand (tests/test_law_classify.py)
    assert list(stairs["n_k"]) == ["2,3", "2,4"]
    assert stairs["n_k"]["2,3"]["count"] == 2 and stairs["n_k"]["2,3"]["max_fourier_limit"] == round(phi2 / 3, 6)
    assert stairs["n_k"]["2,4"]["max_fourier_limit"] == round((8 * phi2 + 12.5) / 49, 6)
    assert stairs["high_rows_not_high_columns"] == 1
    other = summary["multi_gate_other"]
    assert other == {"count": 3, "young": 2, "not_young": 1, "row_lengths": {"2 2": 2}, "row_lengths_not_listed": 0}
    text = runner.summary_text({**summary, "certified": {"dead_region_lower_bound": "1",
                                                         "dead_region_log10_lower_bound": "0"}})
    assert "k = 3" in text and "(n, k) = (2,3)" in text and f"formula {phi2 / 3:.4f}" in text
    assert "1 staircase(s) with high_rows != high_columns" in text and "(2 2) 2" in text
    assert "(2 with one common step)" in text  # k = 3: the (n, k) table counts only those


def test_the_summary_lists_the_most_frequent_shapes_and_counts_the_rest(monkeypatch):
    monkeypatch.setattr(runner, "LISTED_SHAPES", 2)
    rows = [_summary_row("multi_gate_other", lengths=lengths) for lengths in ("2 2", "3 1", "2 2", "4 1", "3 1", "2 2")]
    other = runner.summary_document(LawParameters(5), 6, dict(enumerate(rows)), {})["multi_gate_other"]
    assert other["row_lengths"] == {"2 2": 3, "3 1": 2} and other["row_lengths_not_listed"] == 1


COSTS = {"machine": "test", "flow": {"horizon": 1e6, "seconds_per_sample": {"5": 1.0, "13": 8.0}},
         "gd": {"seconds_per_step": {"5": {"fixed": 1e-4, "per_sample": 1e-6},
                                     "7": {"fixed": 2e-4, "per_sample": 4e-6}}}}


def test_the_estimate_follows_the_cost_model():
    flow = runner.estimate_run(LawParameters(5, horizon="1e6"), [[i] for i in range(10)], 2, COSTS)
    assert flow.seconds == pytest.approx(5 * 1.0) and "measured there" in flow.basis
    # p = 13 measured; between 5 and 13 log-log: p = 7 costs 1.0 * (7/5)^(log 8 / log 2.6)
    mid = runner.estimate_run(LawParameters(7, horizon="1e6"), [[0], [1]], 1, COSTS)
    assert mid.seconds == pytest.approx(2 * (7 / 5) ** (math.log(8) / math.log(13 / 5)))
    assert "interpolated" in mid.basis
    far = runner.estimate_run(LawParameters(31, horizon="1e6"), [[0]], 1, COSTS)
    assert far.seconds == pytest.approx((31 / 5) ** (math.log(8) / math.log(13 / 5))) and "extrapolated" in far.basis
    # the flow at another horizon scales with log(1 + T)
    short = runner.estimate_run(LawParameters(5, horizon="1e3"), [[0]], 1, COSTS)
    assert short.seconds == pytest.approx(math.log1p(1e3) / math.log1p(1e6))
    # gd: S (a + b B) per task, S = ceil(T / eta); two tasks of 150 on two workers take one task's time
    gd = LawParameters(5, dynamics="gd", eta="1", horizon="1e6")
    two = runner.estimate_run(gd, [list(range(150)), list(range(150, 300))], 2, COSTS)
    assert two.seconds == pytest.approx(1e6 * (1e-4 + 150e-6))
    one = runner.estimate_run(gd, [list(range(300))], 2, COSTS)  # one task: the longest task, not half of it
    assert one.seconds == pytest.approx(1e6 * (1e-4 + 300e-6))
    assert runner.estimate_run(LawParameters(5), [], 1, COSTS) is None


def test_a_long_run_gets_its_estimate_first_and_a_short_one_none(tmp_path, monkeypatch):
    notes = []
    slow = {**COSTS, "flow": {"horizon": 10, "seconds_per_sample": {"5": 100.0}}}
    monkeypatch.setattr(runner, "load_costs", lambda path=None: slow)
    run_law(FLOW10, 1, tmp_path / "slow", warn=notes.append)
    assert len(notes) == 1 and "1 samples to compute on 1 worker(s): about 1m40s" in notes[0] and "\n" not in notes[0]
    notes.clear()
    monkeypatch.setattr(runner, "load_costs", lambda path=None: COSTS)
    run_law(FLOW10, 1, tmp_path / "fast", warn=notes.append)
    assert notes == []


@pytest.mark.parametrize("text", [
    "", "[]", "{", json.dumps({"flow": {}, "gd": {}}),
    json.dumps({**COSTS, "flow": {"horizon": 1e6, "seconds_per_sample": {"5": -1.0}}}),
    json.dumps({**COSTS, "flow": {"horizon": 1e6, "seconds_per_sample": {"x": 1.0}}}),
    json.dumps({**COSTS, "gd": {"seconds_per_step": {"5": {"fixed": 1e-4}}}}),
    json.dumps({**COSTS, "machine": 5}),
    json.dumps({**COSTS, "flow": {"horizon": 1e6, "seconds_per_sample": {"5": 1}}}).replace(": 1}", ": " + "9" * 400 + "}"),
])
def test_a_cost_table_that_is_not_one_gives_no_estimate(tmp_path, text):
    path = tmp_path / "costs.json"
    path.write_text(text)
    assert runner.load_costs(path) is None
    path.write_text(json.dumps(COSTS))
    assert runner.load_costs(path) == COSTS
    assert runner.load_costs(tmp_path) is None  # a folder


def test_the_shipped_cost_table_is_one():
    costs = runner.load_costs()
    assert costs is not None and "5" in costs["flow"]["seconds_per_sample"] and "5" in costs["gd"]["seconds_per_step"]


def test_the_degenerate_twin_is_the_gate_of_the_second_row_and_second_column():
    """k2_degenerate_twin counts k = 2 staircases whose gate (rows[1], columns[1]) is on its kink (regime II of
    docs/staircase.md, section 6). Rows 2, 3 and columns 0, 4 at p = 5: the twin gate is (3, 4); the gate
    (columns[0], columns[1]) = (0, 4), which the summary read before, is inactive in both rows here."""
    p = 5

    def row(twin_char):
        pattern = ["-"] * (p * p)
        for a, b in ((2, 0), (2, 4), (3, 0)):
            pattern[a * p + b] = "+"
        pattern[3 * p + 4] = twin_char
        return {**_summary_row("staircase", "2", "1", max_f="0.83", delta=""), "rows": "2 3",
                "columns": "0 4", "pattern": "".join(pattern)}

    def stepped_row(twin_char, max_f):
        # rows 0, 1 and columns 0, 1: one common step, so the row also enters the (n, k) table unless a twin
        pattern = ["-"] * (p * p)
        for a, b in ((0, 0), (0, 1), (1, 0)):
            pattern[a * p + b] = "+"
        pattern[1 * p + 1] = twin_char
        return {**_summary_row("staircase", "2", "1", max_f=max_f, delta="1"), "rows": "0 1", "columns": "0 1",
                "pattern": "".join(pattern)}

    rows = [row("0"), row("0"), row("-"), stepped_row("0", "0.8"), stepped_row("-", "0.75")]
    summary = runner.summary_document(LawParameters(p), 5, dict(enumerate(rows)), {"x": "1"})
    stairs = summary["staircases"]
    assert stairs["k2_degenerate_twin"] == 3
    assert stairs["k2_twin_max_fourier"] == {"mean": 0.82, "min": 0.8, "max": 0.83}
    assert stairs["k2_twin_max_fourier_limit"] == 0.831269  # (S.19) at p = 5, below by FFT of the limit vector
    assert stairs["n_k"]["1,2"]["count"] == 1 and stairs["n_k"]["1,2"]["max_fourier"]["mean"] == 0.75
    text = runner.summary_text({**summary, "certified": {"dead_region_lower_bound": "1",
                                                         "dead_region_log10_lower_bound": "0"}})
    assert "3 degenerate twin(s)" in text and "regime II's formula 0.8313" in text


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_regime_two_formula_is_the_fourier_fraction_of_its_limit_vector(p):
    """(S.19) against an independent route: numpy's FFT of the limit direction u = v = (1, 0, -1, ..., -1),
    w - mu = sqrt(p (p - 1)/(p - 2)) (e_0 + e_1 - 2/p) (|w|^2 = |u|^2 + |v|^2, the balance at infinity).
    Sums of 3p terms of size <= p: double rounding below 1e-13 relative; checked to 1e-12."""
    from certify.law.classify import regime_two_max_fourier

    u = np.array([1.0, 0.0] + [-1.0] * (p - 2))
    e = np.zeros(p)
    e[:2] = 1.0
    w = math.sqrt(p * (p - 1) / (p - 2)) * (e - 2 / p)
    energy, total = np.zeros(p), 0.0
    for x in (u, u, w):
        x0 = x - x.mean()
        energy += np.abs(np.fft.fft(x0)) ** 2 / p
        total += x0 @ x0
    measured = max((energy[z] + energy[p - z]) / total for z in range(1, (p + 1) // 2))
    assert regime_two_max_fourier(p) == pytest.approx(measured, rel=1e-12)
