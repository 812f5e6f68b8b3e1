"""What a new user tripped over on the command line (issue 21, section 4): `certify` alone, arguments no
option takes, abbreviated options, and theorem lists of plot and simulate that named what they refuse."""

import re

import pytest

from certify.cli import build_parser
from certify.theorems.registry import THEOREMS
from conftest import run_certify


def one_line_error(result):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_certify_alone_prints_the_help_and_exits_2():
    """Like git, which prints its usage when run alone (exit 1 there; 1 means 'rejected' here, so 2: usage)."""
    alone, asked = run_certify(), run_certify("--help")
    assert alone.returncode == 2 and asked.returncode == 0
    assert alone.stdout == asked.stdout and alone.stderr == ""
    assert alone.stdout.startswith("usage: certify") and "COMMAND" in alone.stdout
    assert "exits 2" in " ".join(asked.stdout.split())  # the help says so


@pytest.mark.parametrize("args, expected", [
    (["dead", "13"], "certify dead: error: unrecognised argument '13' (did you mean --p 13?)"),
    (["dead", "--prime", "13"], "certify dead: error: unknown option --prime (did you mean --p?)"),
    (["dead", "--p", "5", "--eps", "1"], "certify dead: error: unknown option --eps (did you mean --epsilon?)"),
    (["smooth", "--p", "5", "--eps", "1"],
     "certify smooth: error: unknown option --eps (did you mean --eps-smooth or --epsilon?)"),
    (["gd", "--p", "5", "1/10"], "certify gd: error: unrecognised argument '1/10' (did you mean --eta 1/10?)"),
    (["simulate", "dead", "13"], "certify simulate: error: unrecognised argument '13' (did you mean --p 13?)"),
    (["plot", "dead", "13", "--out", "x.png"], "certify plot: error: unexpected argument(s) 13 (did you mean --p 13?)"),
    (["dead", "--p", "5", "--radious", "1"], "certify dead: error: unknown option --radious (did you mean --radius?)"),
    (["dead", "--p", "5", "--a", "1"], "certify dead: error: unknown option --a (did you mean --A?)"),
    (["dead", "--p", "5", "--out=x.json", "--sigam", "1"],
     "certify dead: error: unknown option --sigam (did you mean --sigma?)"),
    (["check", "--bogus", "x.json"], "certify check: error: unknown option --bogus"),
    (["chek", "x.json"], "certify: error: argument COMMAND: invalid choice: 'chek' (choose from 'dead', "),
])
def test_an_argument_no_option_takes_is_named(args, expected):
    line = one_line_error(run_certify(*args))
    assert line.startswith(expected), line
    if args[0] == "chek":
        assert line.endswith("(did you mean check?) (see 'certify --help')"), line


def test_no_option_is_ever_abbreviated():
    """--eps meant --epsilon in dead (the only match) and was ambiguous in smooth: a prefix is a guess."""
    parser = build_parser()
    commands = next(action for action in parser._actions if action.choices and "dead" in action.choices)
    assert parser.allow_abbrev is False
    assert [name for name, command in commands.choices.items() if command.allow_abbrev] == []
    assert run_certify("dead", "--p", "5", "--rad", "0.01").returncode == 2


def test_nearest_flags():
    from certify.cli.common import nearest_flags

    options = ["-h", "--help", "-p", "--p", "--epsilon", "--eps-smooth", "--A", "--radius", "--prec", "--out"]
    assert nearest_flags("--prime", options) == ["--p"]
    assert nearest_flags("--eps", options) == ["--eps-smooth", "--epsilon"]
    assert nearest_flags("--epsilons", options) == ["--epsilon"]
    assert nearest_flags("--radious", options) == ["--radius"]
    assert nearest_flags("--a", options) == ["--A"]
    assert nearest_flags("--bogus", options) == [] and nearest_flags("-x", options) == []


# --- plot and simulate take exactly the theorems they list ----------------------------------------------

def listed_theorems(command):
    """The theorem names the THEOREM line of ``certify COMMAND --help`` lists."""
    text = " ".join(run_certify(command, "--help").stdout.split("positional arguments:")[1].split())
    line = re.match(r"THEOREM (.*?) \(certified now", text).group(1)
    return [name for name in re.split(r", | or ", line)]


def test_simulate_lists_only_what_it_simulates():
    import certify.simulate

    listed = listed_theorems("simulate")
    assert "sensitivity" not in listed  # listed, then refused as "unknown theorem"
    assert listed == [name for name in THEOREMS if name in certify.simulate._THEOREMS]  # the simulator's own table
    line = one_line_error(run_certify("simulate", "sensitivity", "--p", "5"))
    assert "sensitivity has no trajectory to simulate" in line and "certify plot sensitivity" in line
    assert "unknown theorem 'deed'" in one_line_error(run_certify("simulate", "deed", "--p", "5"))


def test_plot_draws_every_theorem_it_lists(tmp_path):
    listed = listed_theorems("plot")
    assert listed == list(THEOREMS)  # every theorem has a figure: a trajectory's, or sensitivity's experiment
    picture = tmp_path / "sensitivity-5.png"
    result = run_certify("plot", "sensitivity", "--p", 5, "--out", picture, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{picture}\n" and picture.stat().st_size > 10_000
    assert "certified |Psi' - J_reg|_F >=" in result.stderr and f"figure: {picture}" in result.stderr
    assert "unknown theorem" not in result.stderr and not [p for p in tmp_path.iterdir() if p != picture]
    line = one_line_error(run_certify("plot", "sensitivity", "--p", 5, "--from", "box", "--out", picture))
    assert "no box" in line


def test_plot_a_sensitivity_certificate_file(tmp_path):
    certificate = tmp_path / "sensitivity-5.json"
    assert run_certify("sensitivity", "--p", 5, "--out", certificate).returncode == 0
    picture = tmp_path / "s.pdf"
    result = run_certify("plot", "--certificate", certificate, "--out", picture, timeout=300)
    assert result.returncode == 0 and picture.read_bytes().startswith(b"%PDF"), result.stderr
    line = one_line_error(run_certify("simulate", "--certificate", certificate))
    assert "sensitivity has no trajectory to simulate" in line


def test_a_figure_suffix_is_refused_before_anything_is_computed(tmp_path):
    line = one_line_error(run_certify("plot", "sensitivity", "--p", 5, "--out", tmp_path / "s.gif", timeout=30))
    assert "unsupported plot file suffix '.gif'" in line
    out = tmp_path / "s.json"
    line = one_line_error(run_certify("sensitivity", "--p", 5, "--out", out, "--plot", tmp_path / "s.gif", timeout=30))
    assert "unsupported plot file suffix '.gif'" in line
    assert list(tmp_path.iterdir()) == []  # neither the figure nor the certificate


@pytest.mark.parametrize("args, expected", [
    # an empty path would mean the current folder: check walked it, sweep and coq wrote into it (review)
    (["check", ""], "certify check: error: argument FILE: the path is empty (see 'certify check --help')"),
    (["coq", "x.json", "--out", ""], "certify coq: error: argument --out: the path is empty (see 'certify coq --help')"),
    (["sweep", "--primes", "5..7", "--theorems", "dead", "--out", ""],
     "certify sweep: error: argument --out: the path is empty (see 'certify sweep --help')"),
    (["dead", "--p", "5", "--out", ""], "certify dead: error: argument --out: the path is empty (see 'certify dead --help')"),
    # int() takes full-width digits; the review saw --p '\uff11\uff13' accepted while --epsilon refused them
    (["dead", "--p", "\uff11\uff13"],
     "certify dead: error: argument -p/--p: p must be an integer in the digits 0-9, got '\uff11\uff13' "
     "(see 'certify dead --help')"),
    # options that were silently ignored
    (["sweep", "--primes", "5..7", "--theorems", "dead", "--eta", "1/2", "--out", "never"],
     "certify sweep: error: --eta is gd's step size: it goes with --theorems ...gd..."),
    (["simulate", "dead", "--p", "5", "--seed", "3"],
     "certify simulate: error: --seed chooses the random box point: it goes with --from box"),
])
def test_paths_digits_and_ignored_options(args, expected):
    from conftest import ROOT

    assert one_line_error(run_certify(*args)) == expected
    assert not (ROOT / "never").exists()
