"""certify sweep and certify check DIR: parallel, resumable, failures recorded, summaries that add up.

A resumed sweep trusts nothing on disk: every file already there is checked in full, tied to its
name (and gd to the sweep's eta), and redone if it does not pass.
"""

import hashlib
import io
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from certify.certificate import dumps
from certify.check import check_file
from certify.sweep import (certificate_file, certificate_files, certify_chunk, parse_prime_range,
                           primes_between, progress_bar, run_sweep, summarize)
from conftest import ROOT, run_certify
from certify.theorems.registry import THEOREMS as RECORDS, swept_by_default

#: The theorems a sweep certifies when none are named (every record but twin_plus and twin_above, whose defaults
#: stop at 31).
THEOREMS = swept_by_default()
KEY_NUMBERS = {name: list(RECORDS[name].key_numbers) for name in THEOREMS}

#: A 60-digit exponent, the longest the grammar admits: 10^(10^60) can be neither expanded nor stored.
HUGE = "9" * 60


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


def read(path):
    return json.loads(path.read_text())


def write(path, document):
    path.write_text(dumps(document))


def test_sweep_certifies_summarises_and_resumes(tmp_path):
    out = tmp_path / "sweep"
    result = run_certify("sweep", "--primes", "5..60", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    primes = primes_between(5, 60)
    for theorem in THEOREMS:
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
    assert again.returncode == 0, again.stderr
    n = len(primes)
    assert f"dead: 1 certified, {n - 1} already there and kept, 0 redone, 0 failed" in again.stdout
    assert f"slide: 0 certified, {n - 1} already there and kept, 1 redone, 0 failed" in again.stdout
    assert f"gd: 1 certified, {n - 1} already there and kept" in again.stdout
    assert f"3 certificates made and {len(THEOREMS) * n - 2} already there checked" in again.stdout
    assert again.stderr.count("redone") == 1 and "slide-31.json: it was malformed: invalid JSON" in again.stderr
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
    rows = certify_chunk("dead", [7, 11, 13], str(tmp_path), "1")
    assert [row[:2] for row in rows] == [(7, ""), (11, "injected failure at p = 11"), (13, "")]
    for p, _, digest in (rows[0], rows[2]):  # the digest is of the bytes written
        assert digest == hashlib.sha256(certificate_file(tmp_path, "dead", p).read_bytes()).hexdigest()
    assert rows[1][2] == ""
    report = run_sweep([5, 7, 11, 13], ["dead"], 2, tmp_path)  # workers fork from this patched process
    # 7 and 13 were written above, and are checked now, not trusted
    assert report.failed["dead"] == {11: "injected failure at p = 11"} and report.certified["dead"] == 1
    assert report.skipped["dead"] == 2 and report.checked["dead"] == 2 and report.redone["dead"] == {}
    assert json.loads((tmp_path / "failures.json").read_text()) == {"dead-11": "injected failure at p = 11"}
    assert json.loads((tmp_path / "summary.json").read_text())["dead"]["failed"] == [[11, "injected failure at p = 11"]]


def plant_bad_files(out):
    """Four bad files in a sweep of dead and gd over 5..40 at eta = 1; returns {(theorem, p): words of the reason}."""
    from flint import fmpq

    from certify.theorems.gd import certify_gd

    tampered = read(certificate_file(out, "dead", 13))  # a changed end: the hitting time below its true value
    tampered["claims"]["hitting_time"]["hi"] = "45.99"
    write(certificate_file(out, "dead", 13), tampered)
    truncated = certificate_file(out, "dead", 17)
    truncated.write_bytes(truncated.read_bytes()[:700])
    certificate_file(out, "dead", 23).write_bytes(certificate_file(out, "dead", 19).read_bytes())
    write(certificate_file(out, "gd", 11), certify_gd(11, fmpq(2)).certificate)  # genuine, but eta = 2
    return {("dead", 13): "rejected: hitting_time: ", ("dead", 17): "malformed: invalid JSON",
            ("dead", 23): "rejected: the name dead-23.json promises dead at p = 23 but the file holds dead at p = 19",
            ("gd", 11): "made with other parameters: the file holds gd at p = 11 with eta = 2 but the sweep's eta is 1"}


def untouched_files(out, bad):
    return {path: os.stat(path).st_ino for theorem in ("dead", "gd") for path in (out / theorem).iterdir()
            if (theorem, int(path.stem.split("-")[1])) not in bad}


def test_a_resumed_sweep_checks_every_file_and_redoes_exactly_the_bad_ones(tmp_path):
    out, primes = tmp_path / "s", primes_between(5, 40)
    first = run_sweep(primes, ["dead", "gd"], 2, out)
    assert first.certified == {"dead": len(primes), "gd": len(primes)}
    for path in certificate_files([out]):  # the genuine files pass the folder check (named as they hold)
        assert check_file(path).status == "verified"
    bad = plant_bad_files(out)
    assert check_file(certificate_file(out, "dead", 13)).status == "rejected"
    assert check_file(certificate_file(out, "dead", 17)).status == "malformed"
    # true certificates on their own: only the name (dead-23 holds p = 19) or the eta (2, not 1) is wrong
    assert check_file(certificate_file(out, "dead", 23)).status == check_file(certificate_file(out, "gd", 11)).status \
        == "verified"
    keep = untouched_files(out, bad)

    report = run_sweep(primes, ["dead", "gd"], 2, out, eta="1")
    assert {(theorem, p) for theorem in report.redone for p in report.redone[theorem]} == set(bad)
    for (theorem, p), words in bad.items():
        assert report.redone[theorem][p].startswith(words), report.redone[theorem][p]
    assert report.skipped == {"dead": len(primes) - 3, "gd": len(primes) - 1}
    assert report.certified == {"dead": 0, "gd": 0} and report.failed == {"dead": {}, "gd": {}}
    assert report.checked == {"dead": len(primes), "gd": len(primes)}
    assert untouched_files(out, bad) == keep  # the genuine files were checked, not rewritten
    for (theorem, p) in bad:
        path = certificate_file(out, theorem, p)
        assert check_file(path).status == "verified"
        document = read(path)
        assert (document["theorem"], document["p"]) == (theorem, p)
        assert theorem != "gd" or document["parameters"]["eta"] == "1"
    summary = read(out / "summary.json")
    assert summary["dead"]["certified"] == summary["gd"]["certified"] == len(primes)


def test_the_cli_reports_each_redone_file(tmp_path):
    out, primes = tmp_path / "s", primes_between(5, 40)
    run_sweep(primes, ["dead", "gd"], 2, out)
    bad = plant_bad_files(out)
    result = run_certify("sweep", "--primes", "5..40", "--theorems", "dead,gd", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    n = len(primes)
    assert f"dead: 0 certified, {n - 3} already there and kept, 3 redone, 0 failed" in result.stdout
    assert f"gd: 0 certified, {n - 1} already there and kept, 1 redone, 0 failed" in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == len(bad)
    for (theorem, p), words in bad.items():
        assert any(line.startswith(f"redone {certificate_file(out, theorem, p)}: it was {words}") for line in lines)


def test_a_redo_that_fails_is_recorded_and_the_bad_file_set_aside(tmp_path, monkeypatch):
    from certify.errors import NotCertified
    from certify.theorems import dead

    out, primes = tmp_path / "s", [5, 7, 11, 13]
    run_sweep(primes, ["dead"], 2, out)
    tampered = read(certificate_file(out, "dead", 13))
    tampered["claims"]["hitting_time"]["hi"] = "45.99"
    write(certificate_file(out, "dead", 13), tampered)
    real = dead.certify_dead
    monkeypatch.setattr(dead, "certify_dead",
                        lambda p, **kw: (_ for _ in ()).throw(NotCertified("injected")) if p == 13 else real(p, **kw))
    report = run_sweep(primes, ["dead"], 2, out)
    assert report.redone["dead"] == {} and list(report.failed["dead"]) == [13]
    message = report.failed["dead"][13]
    assert message.startswith("the certificate there was rejected: hitting_time: ") and \
        message.endswith("; certifying again failed: injected")
    assert json.loads((out / "failures.json").read_text()) == {"dead-13": message}
    assert not certificate_file(out, "dead", 13).exists()
    assert read(certificate_file(out, "dead", 13).with_name("dead-13.json.rejected")) == tampered
    summary = read(out / "summary.json")["dead"]
    assert summary["certified"] == 3 and summary["failed"] == [[13, message]]
    assert all(entry["p"] != 13 for entry in summary["extremes"].values())


def test_a_worker_dying_during_a_sweep_fails_only_its_prime(tmp_path, monkeypatch):
    import certify.check
    from certify.theorems import dead

    out, primes = tmp_path / "s", [5, 7, 11, 13, 17, 19]
    run_sweep(primes, ["dead"], 2, out)
    certificate_file(out, "dead", 17).unlink()
    certificate_file(out, "dead", 19).unlink()
    parent, real_read, real_certify = os.getpid(), certify.check.read_certificate_file, dead.certify_dead

    def dying_read(path):
        if str(path).endswith("dead-7.json") and os.getpid() != parent:
            os._exit(3)  # a worker process killed mid-comparison (the OOM killer, a segfault in a library)
        return real_read(path)

    def dying_certify(p, **kwargs):
        if p == 19 and os.getpid() != parent:
            os._exit(4)
        return real_certify(p, **kwargs)

    monkeypatch.setattr(certify.check, "read_certificate_file", dying_read)
    monkeypatch.setattr(dead, "certify_dead", dying_certify)
    report = run_sweep(primes, ["dead"], 2, out)
    # a comparison that kills its worker is no pass: that file is certified again; a certifying that does fails
    assert report.redone["dead"] == {7: "error: checking it failed: the worker process died (exit code 3)"}
    assert report.failed["dead"] == {19: "certifying failed: the worker process died (exit code 4)"}
    assert report.skipped["dead"] == 3 and report.certified["dead"] == 1  # 5, 11, 13 kept; 17 made
    assert json.loads((out / "failures.json").read_text()) == {"dead-19": report.failed["dead"][19]}
    assert read(out / "summary.json")["dead"]["certified"] == 5
    monkeypatch.setattr(certify.check, "read_certificate_file", real_read)
    monkeypatch.setattr(dead, "certify_dead", real_certify)
    again = run_sweep(primes, ["dead"], 2, out)
    assert again.skipped["dead"] == 5 and again.certified["dead"] == 1 and again.failed["dead"] == {}
    assert json.loads((out / "failures.json").read_text()) == {}


def test_a_fifo_in_a_sweep_folder_is_redone_without_hanging(tmp_path):
    out = tmp_path / "s"
    run_sweep([5, 7, 11], ["dead"], 1, out)
    fifo = certificate_file(out, "dead", 7)
    fifo.unlink()
    os.mkfifo(fifo)
    result = run_certify("sweep", "--primes", "5..11", "--theorems", "dead", "--jobs", 2, "--out", out, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "dead: 0 certified, 2 already there and kept, 1 redone, 0 failed" in result.stdout
    assert f"redone {fifo}: it was malformed: not a regular file (a FIFO)" in result.stderr
    assert check_file(fifo).status == "verified"


SUMMARIZE = """
import hashlib, json, sys
from pathlib import Path
from certify.sweep import certificate_file, summarize
out, primes = Path(sys.argv[1]), [5, 7, 11, 13]
counted = {"dead": {p: hashlib.sha256(certificate_file(out, "dead", p).read_bytes()).hexdigest() for p in primes}}
print(json.dumps(summarize(out, ["dead"], primes, counted)))
"""


def plant_huge_exponents(out):
    """log10 P = -10^(10^60 - 1) at p = 7 and a purity gap of 10^-(10^60 - 1) at p = 11 (canonical numbers)."""
    seven = read(certificate_file(out, "dead", 7))
    seven["claims"]["gaussian_probability"]["log10_lo"] = f"-1e{HUGE}"
    write(certificate_file(out, "dead", 7), seven)
    eleven = read(certificate_file(out, "dead", 11))
    eleven["claims"]["purity_gap_box"]["lo"] = f"1e-{HUGE}"
    write(certificate_file(out, "dead", 11), eleven)


def test_summarize_never_expands_a_huge_exponent(tmp_path):
    out = tmp_path / "s"
    run_sweep([5, 7, 11, 13], ["dead"], 1, out)
    plant_huge_exponents(out)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", SUMMARIZE, str(out)], capture_output=True, text=True,
                            timeout=60, env=env, cwd=ROOT)  # expanding 10^(10^60) would never finish
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["dead"]
    assert summary["certified"] == 4 and summary["changed"] == []
    # both planted numbers are below every genuine value (negative of size 10^(10^60); positive below 10^-1000)
    assert summary["extremes"]["log10 P"] == {"extreme": "min", "value": f"-1e{HUGE}", "p": 7}
    assert summary["extremes"]["purity gap delta_p"] == {"extreme": "min", "value": f"1e-{HUGE}", "p": 11}
    # the other extremes are the genuine ones, found independently with Fraction
    for claim, component, key, extreme, label in KEY_NUMBERS["dead"][:2]:
        value, p = independent_extreme(out, "dead", [5, 7, 11, 13], claim, component, key, extreme)
        assert Fraction(summary["extremes"][label]["value"]) == value and summary["extremes"][label]["p"] == p


def test_summarize_reads_only_the_bytes_that_were_checked(tmp_path):
    out = tmp_path / "s"
    run_sweep([5, 7], ["dead"], 1, out)
    counted = {"dead": {p: hashlib.sha256(certificate_file(out, "dead", p).read_bytes()).hexdigest() for p in (5, 7)}}
    assert summarize(out, ["dead"], [5, 7], counted)["dead"]["certified"] == 2
    changed = read(certificate_file(out, "dead", 7))
    changed["claims"]["purity_gap_box"]["lo"] = "0.0001"  # a weaker, still true, bound: but not what was checked
    write(certificate_file(out, "dead", 7), changed)
    summary = summarize(out, ["dead"], [5, 7], counted)["dead"]
    assert summary["certified"] == 1 and summary["changed"] == [7]
    assert all(entry["p"] == 5 for entry in summary["extremes"].values())
    assert summarize(out, ["dead"], [5, 7], {})["dead"]["certified"] == 0  # nothing counted, nothing read


def test_a_resumed_sweep_with_huge_exponents_finishes(tmp_path):
    out = tmp_path / "s"
    run_sweep([5, 7, 11, 13], ["dead"], 1, out)
    plant_huge_exponents(out)
    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 2, "--out", out, timeout=120)
    assert result.returncode == 0, result.stderr
    summary = read(out / "summary.json")["dead"]
    assert summary["certified"] == 4
    # whatever the checker decides about each planted file, the summary is of the files as they now are
    for p, label, planted in ((7, "log10 P", f"-1e{HUGE}"), (11, "purity gap delta_p", f"1e-{HUGE}")):
        kept = planted in certificate_file(out, "dead", p).read_text()
        assert kept == (f"redone {certificate_file(out, 'dead', p)}" not in result.stderr)
        assert (summary["extremes"][label]["value"] == planted) == kept


def test_an_earlier_failures_json_is_never_copied(tmp_path):
    """failures.json is written anew from this run's verdicts: a forged entry of another theorem
    ("gd-11": it made gd look failed at 11 while its certificate counted) is not carried along."""
    out = tmp_path / "s"
    (out).mkdir()
    (out / "failures.json").write_text(json.dumps({"dead-x": "?", "dead-" + "9" * 5000: "huge", "dead-7": 3,
                                                   "gd-11": "forged failure", "slide-5": "y", "note": "?"}))
    report = run_sweep([5], ["dead"], 1, out)
    assert report.certified["dead"] == 1
    assert json.loads((out / "failures.json").read_text()) == {}
    os.unlink(out / "failures.json")
    os.mkfifo(out / "failures.json")  # never opened for reading, so never a hang
    assert run_sweep([5], ["dead"], 1, out).skipped["dead"] == 1


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


def test_a_sweep_folder_that_cannot_be_used_is_one_line(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "dead").write_text("a file where the theorem's folder goes")
    result = run_certify("sweep", "--primes", "5..10", "--theorems", "dead", "--out", tmp_path / "x")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "cannot use" in result.stderr


def test_the_progress_bar_draws_on_stderr_as_it_is_when_called(monkeypatch):
    """progress_bar() bound sys.stderr when certify.sweep was imported; a stream replaced since (pytest's
    capture, an embedding program) and closed made the sweep command fail with 'I/O operation on closed
    file' (seen when tests/test_api_reads.py ran after test_imports and test_registry)."""
    import io
    import sys

    from certify.sweep import progress_bar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    draw = progress_bar()
    draw(1, 2, 1.0)
    assert terminal.getvalue().startswith("\r[") and "1/2" in terminal.getvalue()


def test_a_default_sweep_leaves_out_twin_plus_and_an_asked_one_records_where_its_defaults_fail(tmp_path):
    """twin_plus's defaults certify up to p = 31 only (its record's largest_default_prime): a sweep takes it only
    when named, and then p = 37 is a recorded failure with the kernel's one-line reason, exit 1."""
    assert "twin_plus" not in THEOREMS and set(RECORDS) - set(THEOREMS) == {"twin_plus", "twin_above"}
    out = tmp_path / "sweep"
    result = run_certify("sweep", "--primes", "31..37", "--theorems", "twin_plus", "--jobs", 1, "--out", out)
    assert result.returncode == 1, result.stderr
    summary = read(out / "summary.json")["twin_plus"]
    assert summary["certified"] == 1 and [p for p, _ in summary["failed"]] == [37]
    assert "the base point is not in U_II^+" in summary["failed"][0][1]
    assert check_file(certificate_file(out, "twin_plus", 31)).status == "verified"
    usage = run_certify("sweep", "--help").stdout
    assert "all but twin_plus, twin_above" in " ".join(usage.split())
