"""The command line: certificates on stdout, one-line errors, exit codes, help texts."""

import json
import sys
from pathlib import Path

import pytest

from conftest import run_certify


def assert_one_line_error(result, *words):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_dead_writes_certificate_and_summary(tmp_path):
    result = run_certify("dead", "--p", 13)
    assert result.returncode == 0, result.stderr
    certificate = json.loads(result.stdout)
    assert certificate["theorem"] == "dead" and certificate["p"] == 13
    summary = result.stderr
    for words in ("T in [", "margin", "radius = ", "delta_p >= ", "P(theta(0) in box) >= 10^"):
        assert words in summary
    path = tmp_path / "dead-13.json"
    path.write_text(result.stdout)
    checked = run_certify("check", path)
    assert checked.returncode == 0 and "verified" in checked.stdout and checked.stderr == ""


def test_same_command_gives_identical_bytes(tmp_path):
    first = run_certify("dead", "--p", 7, "--out", tmp_path / "a.json")
    second = run_certify("dead", "--p", 7, "--out", tmp_path / "b.json")
    assert first.returncode == second.returncode == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert first.stdout == ""  # with --out the certificate does not also go to stdout


def test_parameters_and_radius_are_honoured(tmp_path):
    result = run_certify("dead", "--p", 5, "--epsilon", "1/2", "--A", "1.5", "--B", "0.75", "--radius", "0.01",
                         "--prec", 96)
    assert result.returncode == 0, result.stderr
    certificate = json.loads(result.stdout)
    assert certificate["parameters"] == {"epsilon": "0.5", "A": "1.5", "B": "0.75", "sigma": "1",
                                         "purity_margin": "0.01"}
    assert certificate["radius"] == "0.01" and certificate["precision_bits"] == 96


def test_sigma_is_a_parameter_of_every_theorem():
    """--sigma (default 1) is stored, named in the probability statements, and a non-positive one is refused."""
    for theorem, extra in (("dead", []), ("slide", []), ("smooth", []), ("gd", ["--eta", "1"])):
        result = run_certify(theorem, "--p", 5, *extra, "--sigma", "5/2")
        assert result.returncode == 0, result.stderr
        certificate = json.loads(result.stdout)
        assert certificate["parameters"]["sigma"] == "2.5"
        assert "sigma = 2.5" in certificate["claims"]["gaussian_probability"]["statement"]
        assert "sigma = 2.5" in result.stderr
        for bad in ("0", "-1"):
            assert_one_line_error(run_certify(theorem, "--p", 5, *extra, "--sigma", bad), "sigma > 0")


@pytest.mark.parametrize("p, words", [("4", "not a prime >= 5"), ("9", "not prime"), ("3", "Remark 1.6"),
                                      ("2", "Remark 1.6"), ("-7", "not a prime >= 5"), ("abc", "integer"),
                                      ("1e3", "integer"), ("13.0", "integer")])
def test_bad_p_is_one_line(p, words):
    assert_one_line_error(run_certify("dead", "--p", p), words)


@pytest.mark.parametrize("args, words", [
    (["--B", "0.5"], "B > epsilon/2"),
    (["--epsilon", "3", "--B", "2"], "(A.58)"),
    (["--A", "0.5"], "(A.58)"),
    (["--A", "-1"], "A > 0"),
    (["--epsilon", "0.1x"], "not an exact number"),
    (["--radius", "0.3"], "single active gate"),
    (["--radius", "0"], "radius must be positive"),
    (["--radius", "0.249", "--A", "1.7"], "purity gap"),
    (["--prec", "10"], "precision"),
    (["--A", "1e-99999"], "too many digits"),
])
def test_broken_hypotheses_are_one_line(args, words):
    assert_one_line_error(run_certify("dead", "--p", 13, *args), words)


def test_usage_errors_are_one_line():
    assert_one_line_error(run_certify("dead"), "--p")
    assert_one_line_error(run_certify("frobnicate"), "invalid choice")


def test_check_exit_codes(tmp_path, dead_certificates):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(dead_certificates[5]))
    bad = json.loads(json.dumps(dead_certificates[5]))
    bad["claims"]["hitting_time"]["hi"] = bad["claims"]["hitting_time"]["lo"]
    rejected = tmp_path / "rejected.json"
    rejected.write_text(json.dumps(bad))
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\x00\x01 not json")
    result = run_certify("check", good)
    assert result.returncode == 0
    result = run_certify("check", good, rejected)
    assert result.returncode == 1 and "rejected: hitting_time:" in result.stderr and "Traceback" not in result.stderr
    result = run_certify("check", good, rejected, junk, tmp_path / "missing.json")
    assert result.returncode == 2 and result.stderr.count("\n") == 3  # one line per failed file


def test_check_reads_one_certificate_from_standard_input(dead_certificates):
    """FILE "-" reads standard input, capped at MAX_CERTIFICATE_BYTES: a verified certificate (exit 0, one line on
    stdout, and the same under --json), a rejected one (1), junk, an empty input and one over the cap (2, one line
    on stderr each); "-" beside another FILE is a usage error."""
    from certify.certificate import MAX_CERTIFICATE_BYTES

    text = json.dumps(dead_certificates[5])
    result = run_certify("check", "-", input=text)
    assert result.returncode == 0 and result.stdout.startswith("<stdin>: verified: dead, p = 5"), result.stderr
    result = run_certify("check", "--json", "-", input=text)
    assert result.returncode == 0 and json.loads(result.stdout)["status"] == "verified"
    bad = json.loads(text)
    bad["claims"]["hitting_time"]["hi"] = bad["claims"]["hitting_time"]["lo"]
    result = run_certify("check", "-", input=json.dumps(bad))
    assert result.returncode == 1 and "rejected: hitting_time:" in result.stderr and "Traceback" not in result.stderr
    for junk, words in (("not json", ("<stdin>: malformed", "invalid JSON")), ("", ("<stdin>: malformed",)),
                        (" " * (MAX_CERTIFICATE_BYTES + 1), ("over 1048576 bytes",))):
        assert_one_line_error(run_certify("check", "-", input=junk), *words)
    assert_one_line_error(run_certify("check", "-", "-"), "checked alone")


def test_help_describes_the_commands():
    top = run_certify("--help")
    assert top.returncode == 0 and "dead" in top.stdout and "check" in top.stdout
    dead = run_certify("dead", "--help")
    assert "(A.58)" in dead.stdout and "--radius" in dead.stdout and "Gaussian" in dead.stdout
    check = run_certify("check", "--help")
    assert "Exit 0" in check.stdout


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "certify"
    if not script.exists():
        pytest.fail(f"the console script is not installed next to {sys.executable}; install the package first")
    import subprocess

    result = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("certify ")


def test_slide_writes_certificate_and_summary(tmp_path):
    result = run_certify("slide", "--p", 13, "--out", tmp_path / "slide-13.json")
    assert result.returncode == 0, result.stderr
    for words in ("capture time from the base point = 10^561.260084760...", "kappa_p", "Lemma A.9", "P(theta(0) in box)"):
        assert words in result.stderr
    assert run_certify("check", tmp_path / "slide-13.json").returncode == 0


@pytest.mark.parametrize("args, words", [
    (["--gamma-star", "0"], "gamma_* > 0"),
    (["--gamma-star=-1/2"], "gamma_* > 0"),
    (["--X", "4"], "(A.14) X > (p-1)/(e gamma_*)"),
    (["--X", "0"], "X > 0"),
    (["--radius", "0.6"], "(A.17) gamma_* - 2(p-1)r/p > 0 fails by"),
    (["--radius", "4", "--gamma-star", "100"], "(A.15) X - 2r > 0 fails by"),
    (["--p", "9"], "not prime"),
])
def test_slide_bad_parameters_are_one_line(args, words):
    arguments = ["slide", "--p", 13, *args] if "--p" not in args else ["slide", *args]
    assert_one_line_error(run_certify(*arguments), words)


def test_gd_and_smooth_write_verified_certificates(tmp_path):
    for args, words in ((["gd", "--p", 13, "--eta", "1/2"], "after one step"),
                        (["smooth", "--p", 7], "J(epsilon + 2r) = ")):
        out = tmp_path / f"{args[0]}.json"
        result = run_certify(*args, "--out", out)
        assert result.returncode == 0 and words in result.stderr, result.stderr
        assert run_certify("check", out).returncode == 0


@pytest.mark.parametrize("args, words", [
    (["gd", "--p", 13], "--eta"),
    (["gd", "--p", 13, "--eta", "0"], "eta > 0"),
    (["gd", "--p", 13, "--eta", "1/1000", "--epsilon", "1"], "(A.71)"),
    (["gd", "--p", 13, "--eta", "1", "--radius", "0.1"], "single active gate"),
    (["gd", "--p", 13, "--eta", "1", "--epsilon", "0.02", "--radius", "0.002"], "(A.71) on the box"),
    (["smooth", "--p", 13, "--A", "1/3"], "(A.67)"),
    (["smooth", "--p", 13, "--eps-smooth", "0"], "eps_smooth > 0"),
    (["smooth", "--p", 13, "--radius", "0.26"], "single active gate"),
])
def test_gd_and_smooth_bad_parameters_are_one_line(args, words):
    assert_one_line_error(run_certify(*args), words)


def test_derive_lists_and_prints_derivations():
    listing = run_certify("derive", "--list")
    assert listing.returncode == 0
    for name in ("flow", "flow-full", "conserved", "fourier", "fourier-exact", "balance", "convexity",
                 "sliding-selection", "sliding-limits", "gd-one-step"):
        assert any(line.startswith(name + " ") for line in listing.stdout.splitlines()), name
    text = run_certify("derive", "conserved")
    assert text.returncode == 0 and "(2.6)" in text.stdout and "equals the paper's form" in text.stdout
    latex = run_certify("derive", "fourier-exact", "--p", 7, "--latex")
    assert latex.returncode == 0 and r"\begin{align*}" in latex.stdout and "p = 7" in latex.stdout


@pytest.mark.parametrize("args, words", [
    (["derive", "nonsense"], "unknown derivation"),
    (["derive"], "--list"),
    (["derive", "flow", "--p", "9"], "not prime"),
    (["derive", "flow", "--p", "3"], "Remark 1.6"),
    (["latex", "dead"], "--out"),
    (["latex", "dead", "--out", "x"], "--p is required"),
    (["latex", "gd", "--p", "5", "--out", "x"], "--eta is required"),
    (["latex", "--out", "x"], "either THEOREM"),
])
def test_derive_and_latex_usage_errors_are_one_line(args, words):
    assert_one_line_error(run_certify(*args), words)


def test_simulate_and_plot_commands(tmp_path):
    out = tmp_path / "dead-7.npz"
    result = run_certify("simulate", "dead", "--p", 7, "--from", "box", "--seed", 3, "--out", out)
    assert result.returncode == 0 and out.exists(), result.stderr
    from certify.simulate import load_trajectory

    record = load_trajectory(out)
    assert record["theorem"] == "dead" and record["source"] == "box" and record["seed"] == 3
    assert record["hitting_time_box_lo"] <= record["t_death"] <= record["hitting_time_box_hi"]
    picture = tmp_path / "slide-5.png"
    result = run_certify("plot", "slide", "--p", 5, "--out", picture)
    assert result.returncode == 0 and picture.stat().st_size > 20000


@pytest.mark.parametrize("args, words", [
    (["simulate", "gd", "--p", "5"], "--eta is required"),
    (["simulate", "dead", "--p", "5", "--eta", "1"], "gd only"),
    (["simulate", "dead", "--p", "5", "--out", "x.csv"], "suffix"),
    (["plot", "dead", "--p", "5", "--out", "x.gif"], "suffix"),
    (["plot", "dead", "--p", "5"], "--out"),
    (["simulate", "dead", "--p", "9"], "not prime"),
    (["simulate", "dead", "--p", "5", "--from", "middle"], "invalid choice"),
])
def test_simulate_and_plot_bad_input_is_one_line(tmp_path, args, words):
    assert_one_line_error(run_certify(*args), words)


@pytest.mark.parametrize("args, words", [
    (["twin", "--p", "10007", "--plot", "{tmp}/x.png"], "too large to simulate"),
    (["staircase", "--p", "1009", "--plot", "{tmp}/missing/x.png"], "does not exist"),
    (["plot", "twin", "--p", "1013", "--out", "{tmp}/x.png"], "too large to simulate"),
])
def test_a_plot_that_cannot_be_drawn_is_refused_before_anything_is_written(tmp_path, args, words):
    """The figure's target (its folder, and p within the float experiment's reach) is checked before the
    certificate is made or written: a one-line error, exit 2, and no certificate left behind."""
    out = tmp_path / "certificate.json"
    result = run_certify(*[arg.format(tmp=tmp_path) for arg in args], *(["--out", out] if args[0] != "plot" else []))
    assert_one_line_error(result, words)
    assert sorted(path.name for path in tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, words", [
    (["twin_plus", "--p", "37"], "the base point is not in U_II^+"),    # past the defaults' reach (docs 11.11)
    (["twin_plus", "--p", "5", "--e", "2"], "e < X fails"),
    (["twin_plus", "--p", "5", "--h", "0"], "h > 0 fails"),
    (["twin_plus", "--p", "5", "--d=-1/100"], "d > 0 fails"),
    (["twin_plus", "--p", "5", "--h", "abc"], "--h"),
    (["twin_plus", "--p", "5", "--radius", "1/100"], "not certified"),
    (["twin_above", "--p", "179"], "the base point is not in U_II^above"),  # past the defaults' reach (docs 11.13)
    (["twin_above", "--p", "5", "--e", "3"], "e < X fails"),
    (["twin_above", "--p", "5", "--h", "0"], "h > 0 fails"),
    (["twin_above", "--p", "5", "--h", "3"], "rate"),  # above 2 gamma_2: the base point fails (S.36)'s rate
    (["twin_above", "--p", "5", "--d=-1/100"], "d > 0 fails"),
    (["twin_above", "--p", "5", "--E", "x"], "--E"),
    (["twin_above", "--p", "5", "--radius", "1/100"], "not certified"),
])
def test_regime_two_bad_input_is_one_line(args, words):
    assert_one_line_error(run_certify(*args), words)


@pytest.mark.parametrize("theorem, words", [("twin_plus", "captured with D >= 0"),
                                            ("twin_above", "captured from above with D > 0")])
def test_regime_two_writes_a_certificate_the_checker_verifies(tmp_path, theorem, words):
    out = tmp_path / f"{theorem}-7.json"
    result = run_certify(theorem, "--p", 7, "--out", out)
    assert result.returncode == 0, result.stderr
    assert words in result.stderr
    checked = run_certify("check", out)
    assert checked.returncode == 0 and f"verified: {theorem}, p = 7" in checked.stdout
