"""certify sweep and certify check DIR: parallel, resumable, failures recorded, summaries that add up."""

import io
import json
from fractions import Fraction

import pytest

from certify.check import check_file
from certify.sweep import (KEY_NUMBERS, certificate_file, certificate_files, certify_chunk, parse_prime_range,
                           primes_between, progress_bar, run_sweep)
from conftest import run_certify


def test_primes_between_is_a_correct_sieve():
    from flint import fmpz

    primes = primes_between(1, 2000)
    assert primes[:4] == [5, 7, 11, 13]
    assert primes == [n for n in range(5, 2001) if fmpz(n).is_prime()]
    assert primes_between(90, 96) == [] and primes_between(97, 97) == [97]


@pytest.mark.parametrize("text", ["abc", "10..5", "5-10", "..7", "5..", "-5..7"])
def test_bad_ranges(text):
    with pytest.raises(ValueError):
        parse_prime_range(text)


def independent_extreme(out, theorem, primes, claim, component, key, extreme):
    values = []
    for p in primes:
        stored = json.loads(certificate_file(out, theorem, p).read_text())["claims"][claim]
        values.append((Fraction((stored["components"][component] if component else stored)[key]), p))
    best = (min if extreme == "min" else max)(value for value, _ in values)
    return best, min(p for value, p in values if value == best)  # ties: the first prime attaining it


def test_sweep_certifies_summarises_and_resumes(tmp_path):
    out = tmp_path / "sweep"
    result = run_certify("sweep", "--primes", "5..60", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    primes = primes_between(5, 60)
    for theorem in ("dead", "slide", "smooth", "gd"):
        for p in primes:
            assert check_file(certificate_file(out, theorem, p)).status == "verified"
    summary = json.loads((out / "summary.json").read_text())
    for theorem, rows in KEY_NUMBERS.items():
        assert summary[theorem]["certified"] == len(primes) and summary[theorem]["failed"] == []
        for claim, component, key, extreme, label in rows:
            value, p = independent_extreme(out, theorem, primes, claim, component, key, extreme)
            assert Fraction(summary[theorem]["extremes"][label]["value"]) == value
            assert summary[theorem]["extremes"][label]["p"] == p
    csv_lines = (out / "summary.csv").read_text().splitlines()
    assert csv_lines[0].startswith("theorem,primes,certified") and len(csv_lines) == 1 + sum(map(len, KEY_NUMBERS.values()))

    # an interrupted sweep: some certificates missing, one cut short mid-write
    certificate_file(out, "dead", 13).unlink()
    certificate_file(out, "gd", 59).unlink()
    truncated = certificate_file(out, "slide", 31)
    truncated.write_text(truncated.read_text()[:100])
    again = run_certify("sweep", "--primes", "5..60", "--jobs", 2, "--out", out)
    assert again.returncode == 0
    assert f"dead: 1 certified, {len(primes) - 1} already there" in again.stdout
    assert "slide: 1 certified" in again.stdout and "gd: 1 certified" in again.stdout
    assert check_file(truncated).status == "verified"


def test_a_failure_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    from certify.errors import NotCertified
    from certify.theorems import dead

    real = dead.certify_dead

    def flaky(p, **kwargs):
        if p == 11:
            raise NotCertified("injected failure at p = 11")
        return real(p, **kwargs)

    monkeypatch.setattr(dead, "certify_dead", flaky)
    assert certify_chunk("dead", [7, 11, 13], str(tmp_path), "1") == [(7, ""), (11, "injected failure at p = 11"),
                                                                     (13, "")]
    report = run_sweep([5, 7, 11, 13], ["dead"], 2, tmp_path)  # workers fork from this patched process
    assert report.failed["dead"] == {11: "injected failure at p = 11"} and report.certified["dead"] == 1
    assert json.loads((tmp_path / "failures.json").read_text()) == {"dead-11": "injected failure at p = 11"}
    assert json.loads((tmp_path / "summary.json").read_text())["dead"]["failed"] == [[11, "injected failure at p = 11"]]


def test_check_a_folder_in_parallel_names_the_bad_file(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..30", "--theorems", "dead,gd", "--jobs", 2, "--out", out).returncode == 0
    ok = run_certify("check", out, "--jobs", 2)
    assert ok.returncode == 0 and "16 certificates: 16 verified, 0 rejected, 0 malformed" in ok.stdout
    bad = certificate_file(out, "gd", 23)
    document = json.loads(bad.read_text())
    document["claims"]["purity_gap_box"]["lo"] = "0.99"
    bad.write_text(json.dumps(document))
    result = run_certify("check", out, "--jobs", 2)
    assert result.returncode == 1 and "gd-23.json: rejected: purity_gap_box" in result.stderr
    assert "15 verified, 1 rejected" in result.stdout
    assert [f.name for f in certificate_files([out])][:3] == ["dead-5.json", "dead-7.json", "dead-11.json"]


def test_progress_bar_draws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    draw = progress_bar(stream)
    draw(3, 12, 1.5)
    draw(12, 12, 3.0)
    assert "\r[#######" in stream.getvalue() and "3/12 (2/s)" in stream.getvalue() and stream.getvalue().endswith("\n")
    assert progress_bar(io.StringIO()) is None


@pytest.mark.parametrize("args, words", [
    (["--primes", "abc"], "range"), (["--primes", "10..5"], "empty range"), (["--primes", "1..4"], "no primes"),
    (["--primes", "5..10", "--theorems", "dead,bogus"], "bogus"), (["--primes", "5..10", "--jobs", "0"], "jobs"),
    (["--primes", "5..1000000000"], "10^8"),
])
def test_sweep_bad_input_is_one_line(tmp_path, args, words):
    result = run_certify("sweep", *args, "--out", tmp_path / "x")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr
