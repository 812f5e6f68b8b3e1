"""certify latex: standalone documents that pdflatex compiles without errors (CI installs pdflatex)."""

import shutil

import pytest

from certify.render.document import compile_pdf, document_for
from conftest import run_certify

CASES = [("dead", 5, ()), ("dead", 13, ()), ("slide", 5, ()), ("slide", 13, ()), ("smooth", 5, ()),
         ("smooth", 13, ()), ("gd", 5, ("--eta", "1")), ("gd", 13, ("--eta", "1/10"))]


def test_pdflatex_is_installed():
    assert shutil.which("pdflatex"), "pdflatex is needed (Debian: texlive-latex-base; .ci/run installs it)"


@pytest.mark.parametrize("theorem, p, extra", CASES)
def test_documents_compile_for_p_5_and_13(tmp_path, theorem, p, extra):
    result = run_certify("latex", theorem, "--p", p, *extra, "--out", tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    tex, pdf = tmp_path / f"{theorem}-{p}.tex", tmp_path / f"{theorem}-{p}.pdf"
    assert tex.exists() and pdf.exists() and pdf.stat().st_size > 10000
    source = tex.read_text()
    assert rf"$p = {p}$" in source and r"\section*{Certified claims}" in source and r"\section*{Derivations}" in source


def test_document_shows_certified_digits_and_claims(dead_certificates):
    source = document_for(dead_certificates[13])
    for claim_id in dead_certificates[13]["claims"]:
        assert claim_id.replace("_", r"\_") in source
    assert r"\ldots" in source and "(2.7)" in source and "certify check dead-13.json" in source


def test_a_broken_document_reports_the_latex_error(tmp_path):
    tex = tmp_path / "broken.tex"
    tex.write_text(r"\documentclass{article}\begin{document}\undefinedmacro\end{document}")
    from certify.errors import InputError

    with pytest.raises(InputError, match="Undefined control sequence"):
        compile_pdf(tex)


def test_latex_from_a_certificate_file_checks_it_first(tmp_path, dead_certificates):
    import json

    good = tmp_path / "good.json"
    good.write_text(json.dumps(dead_certificates[5]))
    result = run_certify("latex", "--certificate", good, "--out", tmp_path / "out", "--no-pdf")
    assert result.returncode == 0 and (tmp_path / "out" / "dead-5.tex").exists()
    bad = json.loads(json.dumps(dead_certificates[5]))
    bad["claims"]["hitting_time"]["lo"] = bad["claims"]["hitting_time"]["hi"]
    tampered = tmp_path / "bad.json"
    tampered.write_text(json.dumps(bad))
    result = run_certify("latex", "--certificate", tampered, "--out", tmp_path / "out2")
    assert result.returncode == 2 and "unverified" in result.stderr and "Traceback" not in result.stderr
