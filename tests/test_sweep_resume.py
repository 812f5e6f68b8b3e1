"""A resumed sweep trusts nothing it reads back: not the certificates, not an earlier summary, not its run record.

Every hostile file here is written by hand: an edited summary.json, a forged theorem entry with no
certificates, true certificates made with other parameters, a FIFO or a link to /dev/zero where the
summary or the run record belongs, malformed run records. Expected values are written out or read
from the certificates with fractions.Fraction, never computed by certify.sweep.
"""

import csv
import json
import os
from fractions import Fraction

import pytest
from flint import fmpq

from certify.certificate import dumps
from certify.check import check_file
from certify.sweep import certificate_file, run_sweep
from conftest import run_certify

RECORD_FORMAT = "certify-sweep-run/1"
DEAD_PARAMETERS = {"epsilon": "1", "A": "2", "B": "1", "sigma": "1", "purity_margin": "0.01"}
GD_EPSILON_RULE = "default: min(1, half the (A.71) threshold 2 eta (p-1)A/p^3)"


def read(path):
    return json.loads(path.read_text())


def rows(path):
    return list(csv.DictReader(path.open()))


def stored(path, claim, key):
    return read(path)["claims"][claim][key]


def lines(text):
    return [line for line in text.splitlines() if line.strip()]


def assert_refused(result, *words):
    """Exit 2, one line on stderr naming ``words``, no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and len(lines(result.stderr)) == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


# --- an earlier summary is never copied --------------------------------------------------------------------

def test_an_edited_summary_entry_of_a_theorem_not_swept_is_recomputed_from_its_certificates(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..13", "--theorems", "dead,gd", "--jobs", 2, "--out", out).returncode == 0
    summary = read(out / "summary.json")
    summary["gd"]["extremes"]["log10 P"]["value"] = "-1"  # forged: far above the true minimum (about -80)
    summary["gd"]["certified"] = 999
    (out / "summary.json").write_text(json.dumps(summary))

    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    gd = read(out / "summary.json")["gd"]
    true_minimum = min((Fraction(stored(certificate_file(out, "gd", p), "gaussian_probability", "log10_lo")), p)
                       for p in (5, 7, 11, 13))
    assert gd["carried_over"] is True and gd["certified"] == 4
    assert Fraction(gd["extremes"]["log10 P"]["value"]) == true_minimum[0]
    assert gd["extremes"]["log10 P"]["p"] == true_minimum[1]
    csv_row = next(row for row in rows(out / "summary.csv") if row["theorem"] == "gd" and row["quantity"] == "log10 P")
    assert Fraction(csv_row["value"]) <= true_minimum[0] < Fraction(csv_row["value"]) + Fraction(1, 10**9)
    assert csv_row["certified"] == "4" and csv_row["this_run"] == "no"
    assert "gd: carried over (5..13" in result.stdout and "4 of 4 primes counted, 0 files not counted" in result.stdout


def test_a_forged_theorem_entry_without_certificates_is_dropped_with_a_line(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 2, "--out", out).returncode == 0
    summary = read(out / "summary.json")
    summary["slide"] = {"primes": 100000, "certified": 100000, "changed": [], "failed": [],
                        "extremes": {"log10 P": {"extreme": "min", "value": "-1", "p": 4}}}
    (out / "summary.json").write_text(json.dumps(summary))

    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    assert set(read(out / "summary.json")) == {"dead"}
    assert {row["theorem"] for row in rows(out / "summary.csv")} == {"dead"}
    assert not (out / "primes-slide.csv").exists()
    [line] = [line for line in lines(result.stderr) if "slide" in line]
    assert "summary.json: the earlier entries of slide are dropped" in line and "run.json records no sweep" in line


def test_a_record_naming_a_theorem_with_no_certificates_counts_none(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 1, "--out", out).returncode == 0
    record = read(out / "run.json")
    record["theorems"]["slide"] = {"parameters": {"gamma_star": "1", "X": "default: (p-1)/(2 gamma_*)", "sigma": "1"},
                                   "radius": "auto", "precision_bits": 128, "primes": "5..13"}
    (out / "run.json").write_text(json.dumps(record))
    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 1, "--out", out)
    assert result.returncode == 0, result.stderr
    slide = read(out / "summary.json")["slide"]
    assert slide["certified"] == 0 and slide["extremes"] == {} and slide["primes"] == 4
    assert slide["failed"] == [] and slide["missing"] == 4
    assert rows(out / "primes-slide.csv") == []


def test_a_bad_file_of_a_carried_theorem_is_reported_and_not_counted_and_not_touched(tmp_path):
    from certify.theorems.gd import certify_gd

    out = tmp_path / "s"
    run_sweep([5, 7, 11, 13], ["dead", "gd"], 2, out)
    tampered = read(certificate_file(out, "gd", 7))
    tampered["claims"]["purity_gap_box"]["lo"] = "0.99"
    certificate_file(out, "gd", 7).write_text(dumps(tampered))
    other_eta = dumps(certify_gd(11, fmpq(2)).certificate)  # true, but made with eta = 2
    certificate_file(out, "gd", 11).write_text(other_eta)
    assert check_file(certificate_file(out, "gd", 11)).status == "verified"
    before = {p: certificate_file(out, "gd", p).read_bytes() for p in (5, 7, 11, 13)}

    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead", "--jobs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    reported = [line for line in lines(result.stderr) if line.startswith("not counted")]
    assert len(reported) == 2
    assert reported[0].startswith(f"not counted {certificate_file(out, 'gd', 7)} (carried over): it was rejected: "
                                  "purity_gap_box")
    assert reported[1] == (f"not counted {certificate_file(out, 'gd', 11)} (carried over): it was made with other "
                           "parameters: the file holds gd at p = 11 with eta = 2 but the sweep's eta is 1")
    assert {p: certificate_file(out, "gd", p).read_bytes() for p in (5, 7, 11, 13)} == before
    gd = read(out / "summary.json")["gd"]
    assert gd["certified"] == 2 and all(entry["p"] in (5, 13) for entry in gd["extremes"].values())
    assert [p for p, _ in gd["failed"]] == [7, 11]
    assert [row["p"] for row in rows(out / "primes-gd.csv")] == ["5", "13"]


# --- certificates made with other parameters ---------------------------------------------------------------

def test_a_verified_certificate_made_with_other_parameters_is_redone_and_the_summary_is_a_fresh_sweeps(tmp_path):
    from certify.theorems.dead import certify_dead

    out, fresh = tmp_path / "resumed", tmp_path / "fresh"
    primes = [5, 7, 11, 13, 17, 19]
    run_sweep(primes, ["dead"], 2, out)
    radius = {p: read(certificate_file(out, "dead", p))["radius"] for p in primes}
    assert radius[13] == "0.247"  # the radius certify chooses at p = 13 (README: 99% of the largest, 3 digits)
    planted = {
        7: (certify_dead(7, epsilon=fmpq(1, 2)), "epsilon = 0.5 but the sweep's epsilon is 1"),
        11: (certify_dead(11, sigma=fmpq(2)), "sigma = 2 but the sweep's sigma is 1"),
        13: (certify_dead(13, radius=fmpq(1, 10)), "radius = 0.1 but the sweep's radius at p = 13 is 0.247"),
        17: (certify_dead(17, prec=192), "precision_bits = 192 but the sweep's precision_bits at p = 17 is 128"),
        19: (certify_dead(19, purity_margin=fmpq(1, 50)), "purity_margin = 0.02 but the sweep's purity_margin is 0.01"),
    }
    for p, (instance, _) in planted.items():
        certificate_file(out, "dead", p).write_text(dumps(instance.certificate))
        assert check_file(certificate_file(out, "dead", p)).status == "verified"  # each is a true certificate

    result = run_certify("sweep", "--primes", "5..19", "--theorems", "dead", "--jobs", 1, "--out", out)
    assert result.returncode == 0, result.stderr
    assert "dead: 0 certified, 1 already there and kept, 5 redone, 0 failed" in result.stdout
    assert lines(result.stderr) == [
        f"redone {certificate_file(out, 'dead', p)}: it was made with other parameters: the file holds dead at p = {p} "
        f"with {words}" for p, (_, words) in planted.items()]
    for row in rows(out / "primes-dead.csv"):
        assert {name: row[name] for name in DEAD_PARAMETERS} == DEAD_PARAMETERS
        assert row["precision_bits"] == "128" and row["radius"] == radius[int(row["p"])]
    assert [int(row["p"]) for row in rows(out / "primes-dead.csv")] == primes

    # byte for byte what a fresh sweep of the same command writes (one worker did everything above)
    assert run_certify("sweep", "--primes", "5..19", "--theorems", "dead", "--jobs", 2, "--out", fresh).returncode == 0
    for name in ("summary.json", "summary.csv", "primes-dead.csv", "run.json", "failures.json"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name
    for p in primes:
        assert certificate_file(out, "dead", p).read_bytes() == certificate_file(fresh, "dead", p).read_bytes(), p


def test_the_run_record_and_the_prime_tables_say_what_each_certificate_was_made_with(tmp_path):
    out = tmp_path / "s"
    result = run_certify("sweep", "--primes", "5..13", "--theorems", "dead,gd", "--eta", "1/2", "--jobs", 2,
                         "--out", out)
    assert result.returncode == 0, result.stderr
    assert read(out / "run.json") == {"format": RECORD_FORMAT, "theorems": {
        "dead": {"parameters": DEAD_PARAMETERS, "radius": "auto", "precision_bits": 128, "primes": "5..13"},
        "gd": {"parameters": {"eta": "0.5", "epsilon": GD_EPSILON_RULE, "A": "2", "B": "1", "sigma": "1"},
               "radius": "auto", "precision_bits": 128, "primes": "5..13"}}}
    assert read(out / "summary.json")["gd"]["run"]["parameters"]["eta"] == "0.5"
    for theorem, names in (("dead", list(DEAD_PARAMETERS)), ("gd", ["eta", "epsilon", "A", "B", "sigma"])):
        table = rows(out / f"primes-{theorem}.csv")
        assert list(table[0])[:3 + len(names)] == ["p", "precision_bits", "radius", *names]
        for row in table:
            document = read(certificate_file(out, theorem, int(row["p"])))
            assert row["radius"] == document["radius"] and row["precision_bits"] == str(document["precision_bits"])
            assert {name: row[name] for name in names} == document["parameters"]
            assert theorem != "gd" or (row["eta"] == "0.5" and Fraction(row["epsilon"]) <= 1)


# --- the run record ----------------------------------------------------------------------------------------

def test_a_sweep_with_other_parameters_than_the_folders_record_is_refused(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..11", "--theorems", "gd", "--jobs", 2, "--out", out).returncode == 0
    files = [*(out / "gd").iterdir(), out / "run.json", out / "summary.json"]
    before = {path.name: path.read_bytes() for path in files}
    result = run_certify("sweep", "--primes", "5..11", "--theorems", "gd", "--eta", "2", "--jobs", 2, "--out", out)
    assert_refused(result, f"{out / 'run.json'}: the gd certificates of this folder were made with eta = 1 but this "
                           "command's eta is 2", "another folder")
    assert {path.name: path.read_bytes() for path in files} == before
    assert sorted(path.name for path in (out / "gd").iterdir()) == sorted(path.name for path in files[:-2])


def test_a_valid_record_that_differs_is_refused_too(tmp_path):
    out = tmp_path / "s"
    assert run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", out).returncode == 0
    record = read(out / "run.json")
    record["theorems"]["dead"]["parameters"]["sigma"] = "2"
    (out / "run.json").write_text(json.dumps(record))
    assert_refused(run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", out),
                   "made with sigma = 2 but this command's sigma is 1")


def valid_record():
    return {"format": RECORD_FORMAT, "theorems": {"dead": {"parameters": dict(DEAD_PARAMETERS), "radius": "auto",
                                                           "precision_bits": 128, "primes": "5..7"}}}


def edited(change):
    record = valid_record()
    change(record["theorems"]["dead"])
    return json.dumps(record)


MALFORMED_RECORDS = {
    "not JSON": ("{", "invalid JSON"),
    "not an object": ("[]", "expected exactly the keys format and theorems"),
    "another format": (json.dumps({**valid_record(), "format": "certify-sweep-run/0"}), "format is not"),
    "a float precision": (edited(lambda e: None).replace('"precision_bits": 128', '"precision_bits": 128.0'),
                          "is not an integer"),
    "a duplicate key": (edited(lambda e: None).replace('"radius": "auto"', '"radius": "auto", "radius": "0.1"'),
                        "duplicate key"),
    "NaN": (edited(lambda e: None).replace('"precision_bits": 128', '"precision_bits": NaN'), "NaN"),
    "an unknown theorem": (json.dumps({"format": RECORD_FORMAT, "theorems": {"toy": {}}}), "theorems/toy"),
    "an extra key": (edited(lambda e: e.update(note="x")), "expected exactly the keys"),
    "a missing parameter": (edited(lambda e: e["parameters"].pop("sigma")), "theorems/dead/parameters"),
    "a rule for a number": (edited(lambda e: e["parameters"].update(sigma="default: 1")), "parameters/sigma"),
    "a non-canonical number": (edited(lambda e: e["parameters"].update(epsilon="2/2")), "parameters/epsilon"),
    "a huge number": (edited(lambda e: e["parameters"].update(epsilon="1." + "1" * 100 + "e100")),
                      "parameters/epsilon"),
    "a number as a number": (edited(lambda e: e["parameters"].update(A=2)), "parameters/A: not a string"),
    "precision 4096": (edited(lambda e: e.update(precision_bits=4096)), "precision_bits"),
    "precision true": (edited(lambda e: e.update(precision_bits=True)), "precision_bits"),
    "a negative radius": (edited(lambda e: e.update(radius="-1")), "radius: negative"),
    "primes from 1": (edited(lambda e: e.update(primes="1..10")), "primes"),
    "primes to 10^9": (edited(lambda e: e.update(primes="5..1000000000")), "primes"),
    "not UTF-8": ('{"format": "\udcff"}', "not UTF-8"),
    "over 64 KiB": (json.dumps({**valid_record(), "padding": "x" * (1 << 16)}), "over 65536 bytes"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_RECORDS))
def test_a_malformed_run_record_is_refused_in_one_line_and_nothing_is_written(tmp_path, case):
    text, words = MALFORMED_RECORDS[case]
    out = tmp_path / "s"
    out.mkdir()
    (out / "run.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    result = run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", out, timeout=60)
    assert_refused(result, f"{out / 'run.json'}: not a sweep's run record", words, "delete it")
    assert sorted(os.listdir(out)) == ["run.json"]


@pytest.mark.parametrize("kind", ["FIFO", "link to /dev/zero", "folder"])
def test_a_run_record_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path, kind):
    out = tmp_path / "s"
    out.mkdir()
    record = out / "run.json"
    if kind == "FIFO":
        os.mkfifo(record)  # opening it for reading would block for ever
    elif kind == "folder":
        record.mkdir()
    else:
        record.symlink_to("/dev/zero")  # reading it would never end
    result = run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", out, timeout=60)
    described = {"FIFO": "a FIFO", "link to /dev/zero": "a character device", "folder": "a folder"}[kind]
    assert_refused(result, "not a sweep's run record", f"not a regular file ({described})")
    assert not (out / "dead").exists()


@pytest.mark.parametrize("kind", ["FIFO", "link to /dev/zero"])
def test_a_summary_that_is_not_a_regular_file_is_not_read_and_is_written_anew(tmp_path, kind):
    out = tmp_path / "s"
    out.mkdir()
    if kind == "FIFO":
        os.mkfifo(out / "summary.json")
    else:
        (out / "summary.json").symlink_to("/dev/zero")
    result = run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", out, timeout=60)
    assert result.returncode == 0, result.stderr
    described = "a FIFO" if kind == "FIFO" else "a character device"
    assert lines(result.stderr) == [f"{out / 'summary.json'}: the earlier summary was not read (not a regular file "
                                    f"({described})); it is written anew"]
    assert not (out / "summary.json").is_symlink() and read(out / "summary.json")["dead"]["certified"] == 2
    assert os.path.exists("/dev/zero") and not os.path.isfile("/dev/zero")  # the link was replaced, not its target
