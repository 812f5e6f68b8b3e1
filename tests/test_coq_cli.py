"""certify coq: checks first and refuses a rejected certificate; --no-check lets Coq refuse it; one-line
errors and exit codes; without coqc on the PATH it writes the files and says so."""

import json
import os
import re
import shutil
import subprocess
import sys

from conftest import ROOT, run_certify

GD5 = ROOT / "proofs" / "gd" / "gd-5.json"
SENSITIVITY5 = ROOT / "proofs" / "sensitivity" / "sensitivity-5.json"


def _forged(tmp_path):
    """gd at p = 5 with the gate margin moved past the truth (the box's central gate is eps - 2r)."""
    document = json.loads(GD5.read_text())
    document["claims"]["single_active_gate"]["lo"] = "0.5"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return path


def test_a_checked_certificate_is_written_and_compiled(tmp_path):
    # sensitivity: the library's quickest file to compile (about 7 s; gd's region lemmas make gd_5 about 27 s)
    result = run_certify("coq", SENSITIVITY5, "--out", tmp_path / "coq", timeout=300)
    assert result.returncode == 0, result.stderr
    written = tmp_path / "coq" / "sensitivity_5.v"
    assert written.exists() and "coqc accepted it in" in result.stdout
    assert sorted(p.name for p in (tmp_path / "coq").iterdir()) == ["sensitivity_5.v"]  # coqc's outputs stay away


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


# --- issue 21, section 4: distinct certificates get distinct file names; coqc's refusal replaces nothing -----

SPELLINGS = ("1/3", "1.3", "13/10", "0.13", "1e-3", "1/1000", "1", "2", "1/100", "-1/3", "5.9e-35", "7/2")


def test_distinct_certificates_get_distinct_module_names():
    """eta = 1/3 and eta = 1.3 were both gd_13_eta_1_3.v (the second overwrote the first), and a parameter
    other than eta was not in the name at all. Each parameter of each theorem, in many spellings."""
    from certify.coq.export import module_name
    from certify.kernel.exact import format_rational, parse_rational
    from certify.theorems.registry import THEOREMS

    for theorem, record in THEOREMS.items():
        library = json.loads((ROOT / "proofs" / theorem / f"{theorem}-13.json").read_text())
        names = {}  # module name -> the (parameters, precision) it was given for
        for parameter in record.parameters:
            for text in SPELLINGS:
                value = format_rational(parse_rational(text, canonical=False))
                for bits in (128, 192):
                    document = dict(library, precision_bits=bits,
                                    parameters=dict(library["parameters"], **{parameter.name: value}))
                    names.setdefault(module_name(document), set()).add(
                        (json.dumps(document["parameters"], sort_keys=True), bits))
        assert {name: given for name, given in names.items() if len(given) > 1} == {}, theorem
        assert len(names) > 2 * len(record.parameters) * 6, theorem  # the spellings do give distinct values
        for name in names:  # a Coq identifier, hence a module name coqc accepts, and a short file name
            assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) and len(name) <= 100, name
        assert module_name(library) == (f"{theorem}_13_eta_1" if theorem == "gd" else f"{theorem}_13")  # unchanged


def test_a_long_parameter_gets_a_digest_name():
    from certify.coq.export import module_name

    library = json.loads(GD5.read_text())
    names = {module_name(dict(library, parameters=dict(library["parameters"], eta=f"1/{3 ** k}"))) for k in
             (200, 201)}  # 96 digits: the name would be over 100 characters
    assert len(names) == 2 and all(re.fullmatch(r"gd_5_h[0-9a-f]{16}", name) for name in names)


def test_two_step_sizes_get_two_files(tmp_path):
    made = {}
    for eta in ("1/3", "1.3", "13/10"):
        path = tmp_path / f"gd-{len(made)}.json"
        assert run_certify("gd", "-p", 5, "--eta", eta, "--out", path).returncode == 0
        made[eta] = path
    result = run_certify("coq", *made.values(), "--no-compile", "--out", tmp_path / "coq")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "coq").iterdir()) == ["gd_5_eta_1o3.v", "gd_5_eta_1p3.v"]
    assert result.stderr == f"replaced {tmp_path / 'coq' / 'gd_5_eta_1p3.v'}\n"  # 13/10 is 1.3: the same certificate


def test_a_file_coqc_rejects_never_replaces_one(tmp_path):
    out = tmp_path / "coq"
    assert run_certify("coq", GD5, "--out", out, "--no-compile").returncode == 0
    accepted = (out / "gd_5_eta_1.v").read_bytes()
    forged = run_certify("coq", _forged(tmp_path), "--out", out, "--no-check", timeout=300)
    assert forged.returncode == 1 and "coqc REJECTED it" in forged.stdout, forged.stdout + forged.stderr
    assert "the existing file is kept" in forged.stdout and "replaced" not in forged.stderr
    assert (out / "gd_5_eta_1.v").read_bytes() == accepted and sorted(p.name for p in out.iterdir()) == ["gd_5_eta_1.v"]
