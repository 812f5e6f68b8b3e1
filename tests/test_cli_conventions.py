"""Command-line conventions (issue 11, section 3): unwritable outputs are one line, -p, --out -,
check --json, simulate/plot --certificate, derive --latex --standalone, readable parameters."""

import json
import os

import pytest

from conftest import run_certify


def assert_one_line(result, *words):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def dead13(tmp_path_factory):
    path = tmp_path_factory.mktemp("cert") / "dead-13.json"
    assert run_certify("dead", "-p", 13, "--out", path).returncode == 0
    return path


def test_sweep_into_an_existing_file_is_one_line(dead13):
    assert_one_line(run_certify("sweep", "--primes", "5..7", "--theorems", "dead", "--jobs", 1, "--out", dead13))


def test_latex_into_dev_null_is_one_line():
    assert_one_line(run_certify("latex", "dead", "-p", 5, "--no-pdf", "--out", os.devnull), "cannot write")


def _places(tmp_path, dead13, name, folder):
    """A file as a folder, a place nobody can write, a read-only folder (unless root), and for a
    file output (a folder output is made with its parents) a missing folder."""
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    places = [dead13 / name, "/proc/certify-test/" + name] + ([] if folder else [tmp_path / "missing" / name])
    if not os.access(readonly, os.W_OK):  # root writes anywhere; /proc stands for a place nobody can write
        places.append(readonly / name)
    return places


@pytest.mark.parametrize("command, name", [
    (["dead", "-p", "5"], "dead-5.json"),
    (["simulate", "dead", "-p", "5"], "dead-5.json"),
    (["plot", "dead", "-p", "5"], "dead-5.png"),
    (["proofs"], "proofs"),
    (["latex", "dead", "-p", "5", "--no-pdf"], "docs"),
])
def test_unwritable_outputs_are_one_line(tmp_path, dead13, command, name):
    for place in _places(tmp_path, dead13, name, folder=command[0] in ("proofs", "latex")):
        assert_one_line(run_certify(*command, "--out", place, timeout=300), "cannot")


def test_short_p_and_out_dash(tmp_path):
    long_form = run_certify("dead", "--p", 7)
    short_form = run_certify("dead", "-p", 7, "--out", "-")
    assert long_form.returncode == short_form.returncode == 0
    assert short_form.stdout == long_form.stdout and json.loads(short_form.stdout)["p"] == 7
    assert not (tmp_path / "-").exists()
    record = run_certify("simulate", "dead", "-p", 5, "--out", "-")
    assert record.returncode == 0, record.stderr
    assert json.loads(record.stdout)["theorem"] == "dead"
    derived = run_certify("derive", "--list")
    name = derived.stdout.split()[0]
    assert run_certify("derive", name, "-p", 5).returncode in (0, 1)


def test_check_json(dead13, tmp_path):
    bad = tmp_path / "dead-5.json"
    bad.write_text("{}")
    result = run_certify("check", "--json", dead13, bad)
    assert result.returncode == 2
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["status"] for row in rows] == ["verified", "malformed"]
    assert [row["exit_code"] for row in rows] == [0, 2]
    assert set(rows[0]) == {"source", "status", "message", "exit_code"}
    assert run_certify("check", "--json", dead13).returncode == 0


def test_simulate_and_plot_a_certificate_file(dead13, tmp_path):
    custom = tmp_path / "dead-5.json"
    assert run_certify("dead", "-p", 5, "--radius", "0.01", "--out", custom).returncode == 0
    result = run_certify("simulate", "--certificate", custom, "--out", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["p"] == 5 and record["radius"] == 0.01
    assert "simulating" not in result.stderr  # progress only on a terminal
    summary = run_certify("simulate", "--certificate", dead13)
    assert summary.returncode == 0, summary.stderr
    assert "lies in the certified" in summary.stdout and "array" not in summary.stdout
    picture = tmp_path / "dead-13.png"
    assert run_certify("plot", "--certificate", dead13, "--out", picture).returncode == 0 and picture.exists()


@pytest.mark.parametrize("args, words", [
    (["simulate", "--certificate", "x.json", "dead"], "either THEOREM"),
    (["simulate"], "either THEOREM"),
    (["simulate", "dead"], "-p/--p is required"),
    (["plot", "--certificate", "x.json", "-p", "5", "--out", "x.png"], "cannot be combined"),
    (["simulate", "--certificate", "nowhere.json"], "nowhere.json"),
    (["derive", "loss", "--standalone"], "--standalone needs --latex"),
])
def test_usage_errors(args, words):
    assert_one_line(run_certify(*args), words)


def test_rejected_certificate_is_not_simulated(dead13, tmp_path):
    data = json.loads(dead13.read_text())
    data["claims"]["hitting_time"]["lo"] = data["claims"]["hitting_time"]["hi"]
    tampered = tmp_path / "dead-13.json"
    tampered.write_text(json.dumps(data))
    assert_one_line(run_certify("simulate", "--certificate", tampered), "dead-13.json")


def test_derive_standalone_document():
    name = run_certify("derive", "--list").stdout.split()[0]
    result = run_certify("derive", name, "--latex", "--standalone")
    assert result.returncode == 0, result.stderr
    assert "\\documentclass" in result.stdout and "\\end{document}" in result.stdout
    fragment = run_certify("derive", name, "--latex")
    assert "\\documentclass" not in fragment.stdout


def test_small_eta_reads_as_a_decimal():
    result = run_certify("gd", "-p", 5, "--eta", "1/3000000000000000000000000000000")
    assert result.returncode == 0, result.stderr
    assert "eta = 3.33333333333...e-31," in result.stderr.splitlines()[0]  # its leading digits, marked so
    assert json.loads(result.stdout)["parameters"]["eta"] == "1/3000000000000000000000000000000"  # still exact
    assert "eta = 1e-30," in run_certify("gd", "-p", 5, "--eta", "1e-30").stderr


def test_help_names_the_new_flags():
    for command, flags in (("simulate", ("--certificate", "-p")), ("plot", ("--certificate", ".[plot]")),
                           ("check", ("--json",)), ("derive", ("--standalone",)), ("dead", ("-p", "stdout"))):
        text = run_certify(command, "--help").stdout
        for flag in flags:
            assert flag in text, (command, flag)
