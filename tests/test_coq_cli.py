"""certify coq: checks first and refuses a rejected certificate; --no-check lets Coq refuse it; one-line
errors and exit codes; without coqc on the PATH it writes the files and says so."""

import json
import os
import shutil
import subprocess
import sys

from conftest import ROOT, run_certify

GD5 = ROOT / "proofs" / "gd" / "gd-5.json"


def _forged(tmp_path):
    """gd at p = 5 with the gate margin moved past the truth (the box's central gate is eps - 2r)."""
    document = json.loads(GD5.read_text())
    document["claims"]["single_active_gate"]["lo"] = "0.5"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return path


def test_a_checked_certificate_is_written_and_compiled(tmp_path):
    result = run_certify("coq", GD5, "--out", tmp_path / "coq", timeout=300)
    assert result.returncode == 0, result.stderr
    written = tmp_path / "coq" / "gd_5_eta_1.v"
    assert written.exists() and "coqc accepted it in" in result.stdout
    assert sorted(p.name for p in (tmp_path / "coq").iterdir()) == ["gd_5_eta_1.v"]  # coqc's outputs stay away


def test_a_rejected_certificate_is_refused_unless_no_check(tmp_path):
    forged = _forged(tmp_path)
    refused = run_certify("coq", forged, "--out", tmp_path / "a", "--no-compile")
    assert refused.returncode == 1 and "refused (not verified)" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "a").exists()
    written = run_certify("coq", forged, "--out", tmp_path / "b", "--no-check", "--no-compile")
    assert written.returncode == 0 and (tmp_path / "b" / "gd_5_eta_1.v").exists()
    compiled = run_certify("coq", forged, "--out", tmp_path / "c", "--no-check", timeout=300)
    assert compiled.returncode == 1 and "coqc REJECTED it" in compiled.stdout, compiled.stdout + compiled.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    for args in ([garbage], [tmp_path / "missing.json"], [tmp_path]):
        result = run_certify("coq", *args, "--out", tmp_path / "out", "--no-compile")
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_certify("coq", GD5, "--out", blocker, "--no-compile")
    assert result.returncode == 2 and "cannot write" in result.stderr and "Traceback" not in result.stderr
    usage = run_certify("coq", GD5)
    assert usage.returncode == 2 and "--out" in usage.stderr


def test_every_file_gets_its_verdict(tmp_path):
    garbage = tmp_path / "garbage.json"
    garbage.write_text("[]")
    result = run_certify("coq", garbage, GD5, "--out", tmp_path / "out", "--no-compile")
    assert result.returncode == 2 and (tmp_path / "out" / "gd_5_eta_1.v").exists()


def test_without_coqc_the_file_is_written_and_the_user_told(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python")  # a PATH holding python but no coqc
    assert shutil.which("coqc", path=str(bin_dir)) is None
    env = dict(os.environ, PATH=str(bin_dir), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "certify", "coq", str(GD5), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert result.returncode == 0 and "coqc is not on the PATH" in result.stderr
    assert (tmp_path / "out" / "gd_5_eta_1.v").exists()


def test_help_says_what_coq_proves():
    result = run_certify("coq", "--help")
    assert result.returncode == 0
    for words in ("numerical content", "not formalised", "--no-check", "rounded outward", "Pocklington"):
        assert words in " ".join(result.stdout.split()), words
