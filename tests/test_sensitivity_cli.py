"""`certify sensitivity` end to end: the certificate, its check, tampering, bad input, --plot."""

from __future__ import annotations

import json

import pytest

from certify.cli import main


def test_certify_check_and_tamper(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["sensitivity", "--p", "7", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "rank 1" in err and "J_reg" in err
    assert main(["check", str(out)]) == 0
    document = json.loads(out.read_text())
    # claim a larger gap than proved: the checker must refuse
    gap = document["claims"]["sensitivity_gap"]
    gap["lo"] = gap["hi"] = str(float(gap["hi"]) * 1.001)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    assert main(["check", str(bad)]) == 1
    # a nonzero s row of the terminal map's derivative is false (Psi stays on s = 0)
    document = json.loads(out.read_text())
    document["claims"]["terminal_map_derivative"]["components"]["s_s"]["exact"] = "0.001"
    bad.write_text(json.dumps(document))
    assert main(["check", str(bad)]) == 1
    # rank 2 is false
    document = json.loads(out.read_text())
    document["claims"]["gap_rank"]["exact"] = "2"
    bad.write_text(json.dumps(document))
    assert main(["check", str(bad)]) == 1
    # a box: the claims are about the base point only
    document = json.loads(out.read_text())
    document["radius"] = "0.1"
    bad.write_text(json.dumps(document))
    assert main(["check", str(bad)]) == 1
    assert "radius" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--p", "9"], "prime"),
    (["--p", "3"], "Remark 1.6"),
    (["--p", "5", "--A", "1/2"], "Gamma"),
    (["--p", "5", "--B", "1/4"], "B > epsilon/2"),
    (["--p", "5", "--radius", "1/100"], "no box"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(["sensitivity", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_plot_runs_the_float_experiment(tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the test extra installs it; a bare install has no plots
    png = tmp_path / "s.png"
    assert main(["sensitivity", "--p", "5", "--out", str(tmp_path / "s.json"), "--plot", str(png)]) == 0
    err = capsys.readouterr().err
    assert png.stat().st_size > 10_000 and "floats" in err and "|J_AD-J_reg|" in err
