"""certify sweep says what a long run costs before it starts (issue 26, item 3).

The cost table (certify/sweep_costs.json, measured by ``python -m certify.sweep_costs``) is untrusted input:
a malformed one gives no estimate and changes nothing else. The expected estimates below are computed by
hand from small hand-written tables, not by the code under test.
"""

import json
import math
import os

import pytest

from certify import sweep
from certify.cli import main
from certify.sweep import estimate_sweep, load_sweep_costs, primes_between, run_sweep


def table(costs, task=0.5, **more):
    return {"machine": "a test table", "seconds_per_certificate": costs, "task_seconds": task, **more}


def write(path, document):
    path.write_text(json.dumps(document) if not isinstance(document, str) else document, encoding="ascii")
    return path


GOOD = table({"dead": {"5": 0.002, "500": 0.2}, "slide": {"11": 0.03}})


def test_a_well_formed_table_is_read(tmp_path):
    assert load_sweep_costs(write(tmp_path / "c.json", GOOD)) == GOOD


def test_the_committed_table_is_well_formed_and_names_its_machine():
    costs = load_sweep_costs(sweep.COSTS_PATH)
    assert costs is not None
    assert "cores" in costs["machine"] and "load" in costs["machine"]
    from certify.theorems.registry import THEOREMS

    assert set(costs["seconds_per_certificate"]) == set(THEOREMS)


@pytest.mark.parametrize("document", [
    "not json",
    "[1, 2]",
    json.dumps({"seconds_per_certificate": {"dead": {"5": 0.1}}}),  # no task_seconds
    table({"dead": {"5": -0.1}}),
    table({"dead": {"5": 0}}),
    table({"dead": {"5": True}}),
    table({"dead": {"5": "0.1"}}),
    table({"dead": {"5": 0.1}}, task=-1),
    table({"dead": {"5": 0.1}}, task=0),
    table({"dead": {}}),
    table({}),
    table({"dead": [0.1]}),
    table({"dead": {"5": 0.1}}, machine=7),
    table({"dead": {"4": 0.1}}),  # p below 5
    table({"dead": {"05": 0.1}}),  # not canonical
    table({"dead": {"-7": 0.1}}),
    table({"dead": {"7.0": 0.1}}),
    table({"dead": {"1e3": 0.1}}),
    table({"dead": {"": 0.1}}),
    table({"dead": {"seven": 0.1}}),
    table({"dead": {"1" + "0" * 18: 0.1}}),  # beyond 18 digits
], ids=lambda document: str(document)[:60])
def test_a_malformed_table_gives_none(tmp_path, document):
    assert load_sweep_costs(write(tmp_path / "c.json", document)) is None


@pytest.mark.parametrize("cost", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400])
def test_nan_infinite_and_huge_costs_give_none(tmp_path, cost):
    # "1" + 400 zeros is a whole number json reads as an int too large for a float (it raised OverflowError)
    text = '{"machine": "m", "seconds_per_certificate": {"dead": {"5": %s}}, "task_seconds": 0.5}' % cost
    assert load_sweep_costs(write(tmp_path / "c.json", text)) is None
    text = '{"machine": "m", "seconds_per_certificate": {"dead": {"5": 0.1}}, "task_seconds": %s}' % cost
    assert load_sweep_costs(write(tmp_path / "c.json", text)) is None


def test_a_fifo_a_folder_and_a_huge_file_give_none_without_hanging(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would block: it must be refused by stat first
    assert load_sweep_costs(fifo) is None
    assert load_sweep_costs(tmp_path) is None
    assert load_sweep_costs(tmp_path / "absent.json") is None
    huge = json.dumps(GOOD) + " " * (64 * 1024)  # well-formed, but beyond the 64 KiB cap
    assert load_sweep_costs(write(tmp_path / "huge.json", huge)) is None
    deep = "[" * 100000 + "]" * 100000  # recursion in the parser
    assert load_sweep_costs(write(tmp_path / "deep.json", deep[:60000])) is None


def test_the_estimate_interpolates_between_measured_primes():
    # dead: c(5) = 0.002, c(500) = 0.2, a line of slope log(100)/log(100) = 1 in (log p, log c): c(p) = 0.0004 p
    # one worker, 2 certificates: chunks of ceil(2 / 4) = 1 prime, so 2 tasks of 0.5 s
    estimate = estimate_sweep({"dead": [7, 53]}, 1, GOOD)
    assert estimate.seconds == pytest.approx(0.0028 + 0.0212 + 2 * 0.5, rel=1e-12)  # float rounding only
    assert "2 certificates at 12 ms each on average, interpolated in p" in estimate.basis
    assert "a test table" in estimate.basis


def test_the_estimate_with_a_slope_of_one_half_and_beyond_the_measured_primes():
    # gd: c(10) = 0.01, c(1000) = 0.1: slope log(10)/log(100) = 1/2, c(p) = 0.01 sqrt(p / 10); beyond 1000 the same
    # line; slide has one measured prime: its value everywhere. dead at 5000 along its line: 0.0004 * 5000 = 2.
    costs = table({"gd": {"10": 0.01, "1000": 0.1}, "slide": {"11": 0.03}, "dead": {"5": 0.002, "500": 0.2}},
                  task=0.25)
    work = {"gd": [41, 100003], "slide": [5, 13], "dead": [5000]}
    by_hand = 0.01 * math.sqrt(4.1) + 0.01 * math.sqrt(10000.3) + 2 * 0.03 + 2.0
    # 5 certificates on 2 workers: chunks of ceil(5 / 8) = 1 prime, 5 tasks; the workers share the total
    estimate = estimate_sweep(work, 2, costs)
    assert estimate.seconds == pytest.approx((by_hand + 5 * 0.25) / 2, rel=1e-12)
    assert "extrapolated beyond the measured primes" in estimate.basis


def test_chunks_of_many_primes_count_one_task_each():
    # 400 certificates on 2 workers: chunks of min(48, ceil(400 / 8)) = 48 primes; 200 primes a theorem make
    # ceil(200 / 48) = 5 tasks each, 10 in all; every certificate measured: 200 * (0.1 + 0.2)
    costs = table({"dead": {"5": 0.1}, "slide": {"5": 0.2}}, task=1.0)
    primes = list(range(5, 205))
    estimate = estimate_sweep({"dead": primes, "slide": primes}, 2, costs)
    assert estimate.seconds == pytest.approx((200 * 0.3 + 10 * 1.0) / 2, rel=1e-12)


def test_no_estimate_without_a_table_or_for_a_theorem_it_does_not_measure(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "COSTS_PATH", tmp_path / "absent.json")
    assert estimate_sweep({"dead": [5, 7]}, 2) is None
    assert estimate_sweep({"gd": [5, 7]}, 2, GOOD) is None
    assert estimate_sweep({"dead": []}, 2, GOOD) is None


def costs_at(monkeypatch, path):
    monkeypatch.setattr(sweep, "COSTS_PATH", path)


def test_the_cli_prints_the_estimate_first_for_a_sweep_over_a_minute(tmp_path, monkeypatch, capsys):
    # sensitivity at 100 s a certificate (3 ms really): 4 primes of 5..13, one worker, chunks of ceil(4 / 4) = 1
    # prime, 4 tasks of 1 s: (4 * 100 + 4 * 1) / 1 = 404 s = 6m44s
    costs_at(monkeypatch, write(tmp_path / "c.json", table({"sensitivity": {"5": 100.0}}, task=1.0)))
    code = main(["sweep", "--primes", "5..13", "--theorems", "sensitivity", "--jobs", "1", "--out",
                 str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.err.splitlines()
    assert lines[0].startswith("note: 4 certificates to make or compare on 1 worker(s): about 6m44s (4 certificates "
                               "at 100000 ms each on average, extrapolated beyond the measured primes, from "), lines
    assert lines[0].endswith("measured on a test table)")
    assert "sensitivity: 4 certified" in captured.out


def test_the_estimate_comes_before_any_certificate_is_made(tmp_path, monkeypatch):
    costs_at(monkeypatch, write(tmp_path / "c.json", table({"sensitivity": {"5": 100.0}}, task=1.0)))
    out, seen = tmp_path / "out", []
    run_sweep(primes_between(5, 13), ["sensitivity"], 1, out,
              warn=lambda line: seen.append((line, sorted(p.name for p in out.rglob("*-*.json")))))
    assert len(seen) == 1 and seen[0][0].startswith("note: ") and seen[0][1] == []
    assert len(list(out.rglob("sensitivity-*.json"))) == 4


@pytest.mark.parametrize("document", [None, "absent", table({"sensitivity": {"5": -1.0}}),
                                      table({"sensitivity": {"5": 0.001}}, task=0.001)],
                         ids=["fifo", "absent", "malformed", "under a minute"])
def test_no_estimate_and_no_crash_without_a_usable_table_or_under_a_minute(tmp_path, monkeypatch, capsys,
                                                                           document):
    if document is None:
        os.mkfifo(tmp_path / "c.json")
    elif document != "absent":
        write(tmp_path / "c.json", document)
    costs_at(monkeypatch, tmp_path / "c.json")
    code = main(["sweep", "--primes", "5..13", "--theorems", "sensitivity", "--jobs", "1", "--out",
                 str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "note:" not in captured.err and "Traceback" not in captured.err
    assert "sensitivity: 4 certified, 0 already there and kept, 0 redone, 0 failed" in captured.out


def test_the_measuring_script_never_measures_a_prime_twice():
    from certify.sweep_costs import _next_primes

    # the primes from 47 on are 47, 53, 59, 61, 67: a theorem measured at 47 and 53 goes on from 59
    assert _next_primes(47, 3) == [47, 53, 59]
    assert _next_primes(47, 3, {47, 53}) == [59, 61, 67]
