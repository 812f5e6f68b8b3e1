"""certify latex: standalone documents that pdflatex compiles without errors (CI installs pdflatex)."""

import shutil
from pathlib import Path

import pytest

from certify.render.document import compile_pdf, document_for
from conftest import run_certify

ROOT = Path(__file__).resolve().parent.parent

CASES = [("dead", 5, ()), ("dead", 13, ()), ("slide", 5, ()), ("slide", 13, ()), ("smooth", 5, ()),
         ("smooth", 13, ()), ("gd", 5, ("--eta", "1")), ("gd", 13, ("--eta", "1/10"))]


def test_pdflatex_is_installed():
    assert shutil.which("pdflatex"), "pdflatex is needed (Debian: texlive-latex-base; .ci/run installs it)"


@pytest.mark.parametrize("theorem, p, extra", CASES)
def test_documents_compile_for_p_5_and_13(tmp_path, theorem, p, extra):
    result = run_certify("latex", theorem, "--p", p, *extra, "--out", tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    stem = f"{theorem}-{p}" + ("-eta-0p1" if extra == ("--eta", "1/10") else "")  # eta != 1 is in gd's name
    tex, pdf = tmp_path / f"{stem}.tex", tmp_path / f"{stem}.pdf"
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


# ---------------------------------------------------------------- every printed number is implied by its claim

def _power(statement: str) -> str | None:
    """``= 10^{t}`` -> ``= t``, ``\\in [10^{a}, 10^{b}]`` -> ``\\in [a, b]``, ``\\ge 10^{a}`` -> ``\\ge a``; else None."""
    import re

    match = re.fullmatch(r"(= |\\ge |\\le )10\^\{(.*)\}", statement)
    if match:
        return match.group(1) + match.group(2)
    match = re.fullmatch(r"\\in \[10\^\{(.*)\}, 10\^\{(.*)\}\]", statement)
    return rf"\in [{match.group(1)}, {match.group(2)}]" if match else None


#: The LaTeX relation each kind of stored end must be shown with (independent of the renderer's code).
_SHOWN_AS = {"exact": {"="}, "enclosure": {"=", r"\in"}, "lower": {r"\ge"}, "upper": {r"\le"}}


def check_document_numbers(certificate: dict, source: str) -> int:
    """Every statement printed about a claim's numbers is implied by its stored fields, in the direction the
    claim's relation (its spec in the kernel) gives, with the relation's landmarks and compared bound, and
    every stored quantity is printed. Returns the number of statements checked."""
    import re

    from certify.kernel.registry import relation_of, KERNELS
    from certify.render.derivations import latex_escape
    from certify.render.statements import FORMS
    from render_oracle import implied, value

    theorem = certificate["theorem"]
    specs = {spec.id: spec for spec in KERNELS[theorem].claim_specs()}
    checked = 0
    for claim_id, stored in certificate["claims"].items():
        start = source.index(rf"\item \texttt{{{latex_escape(claim_id)}}}")
        end = min(i for i in (source.find(r"\item ", start + 1), source.find(r"\end{itemize}", start)) if i > 0)
        item = source[start:end]
        form = FORMS[theorem][claim_id]
        for words in (form.prose, form.note, *(text for part in form.components.values()
                                               for text in (part.prose, part.note))):
            item = item.replace(words, "") if words else item  # prose and notes may use the symbol (T = ...)
        if specs[claim_id].relation is not None:
            quantities = {None: (FORMS[theorem][claim_id], stored)}
        else:
            quantities = {name: (FORMS[theorem][claim_id].components[name], fields)
                          for name, fields in stored["components"].items()}
        for name, (form, fields) in quantities.items():
            relation = relation_of(theorem, claim_id, name)
            found = re.findall(re.escape(form.quantity) + r" (=|\\ge|\\le|\\in) ([^$]*?)"
                               r"(?:( > 0| < 0| < 1| \\subset \([^)]*\)))?(?=\$|,\\quad )", item)
            assert len(found) == 1 + relation.log10, (claim_id, name, found)
            ends = {key: value(fields[key]) if key in fields else None
                    for key in ("lo", "hi", "log10_lo", "log10_hi")}
            if "exact" in fields:
                ends["lo"] = ends["hi"] = value(fields["exact"])
            for k, (rel, body, landmark) in enumerate(found):
                assert rel in _SHOWN_AS[relation.kind], (claim_id, name, rel)
                statement = f"{rel} {body}"
                logarithm = _power(statement)
                if k == 1:
                    assert logarithm is not None and implied(logarithm, ends["log10_lo"], ends["log10_hi"])
                else:
                    assert logarithm is None and implied(statement, ends["lo"], ends["hi"]), (claim_id, name, body)
                    if rel == r"\in":  # an interval's ends beat the landmarks: it lies inside them
                        expected = "" if relation.lo_above is None and relation.hi_below is None else (
                            rf" \subset ({'-' + chr(92) + 'infty' if relation.lo_above is None else relation.lo_above}, "
                            rf"{chr(92) + 'infty' if relation.hi_below is None else relation.hi_below})")
                    else:
                        expected = (f" > {relation.lo_above}" if relation.lo_above is not None else "") + \
                                   (f" < {relation.hi_below}" if relation.hi_below is not None else "")
                    assert landmark == expected, (claim_id, name, landmark)
                checked += 1
        spec = specs[claim_id]
        if spec.bound is not None:
            compared = r"\le" if spec.relation.kind == "lower" else r"\ge"
            assert f", where $" in item and f" {compared} {FORMS[theorem][claim_id].bound}$" in item, claim_id
    return checked


def test_every_number_in_every_document_is_implied_by_its_claim(dead_certificates, slide_certificates,
                                                                 smooth_certificates, gd_certificates):
    from certify.render.latex import certificate_document

    certificates = [*dead_certificates.values(), *slide_certificates.values(), *smooth_certificates.values(),
                    *gd_certificates.values()]
    checked = sum(check_document_numbers(c, certificate_document(c, [])) for c in certificates)
    assert checked > 200, checked


def test_the_box_hitting_time_of_dead_13_is_its_two_ends(dead_certificates):
    """proofs/dead/dead-13.tex printed [17.14, 139.71] as "value = 1..." (i.e. in [1, 2): false)."""
    import re

    from certify.render.latex import certificate_document
    from render_oracle import implied, value

    source = certificate_document(dead_certificates[13], [])
    line = re.search(r"\\texttt\{hitting\\_time\\_box\}.*?T (\\in \[[^]]*\])", source).group(1)
    stored = dead_certificates[13]["claims"]["hitting_time_box"]
    assert line.startswith(r"\in [") and implied(line, value(stored["lo"]), value(stored["hi"]))


# ---------------------------------------------------------------- file names and stale PDFs (issue 11, section 3)

def test_gd_document_names_carry_eta_except_the_librarys_reference(gd_certificates):
    from flint import fmpq

    from certify.proofs import REFERENCE_ETA
    from certify.render.document import document_name
    from certify.theorems.gd import certify_gd

    names = {eta: document_name(certify_gd(5, eta=fmpq(*eta)).certificate) for eta in ((1, 10), (1, 3), (2, 1))}
    # spelled as certify.coq.export.module_name spells numbers (certify.theorems.naming): 1/3 -> 1o3, 0.1 -> 0p1
    assert names == {(1, 10): "gd-5-eta-0p1", (1, 3): "gd-5-eta-1o3", (2, 1): "gd-5-eta-2"}
    assert REFERENCE_ETA == 1 and document_name(certify_gd(5, eta=fmpq(1)).certificate) == "gd-5"
    # the proof library keeps gd/gd-P.tex beside gd-P.json, at the reference eta
    for path in (ROOT / "proofs" / "gd").glob("gd-*.json"):
        import json

        assert document_name(json.loads(path.read_text())) == path.stem and path.with_suffix(".tex").exists()


def test_two_etas_do_not_overwrite_each_other(tmp_path):
    from flint import fmpq

    from certify.render.document import write_document
    from certify.theorems.gd import certify_gd

    first = write_document(certify_gd(5, eta=fmpq(1, 10)).certificate, tmp_path, pdf=False)
    second = write_document(certify_gd(5, eta=fmpq(1, 3)).certificate, tmp_path, pdf=False)
    assert [p.name for p in first + second] == ["gd-5-eta-0p1.tex", "gd-5-eta-1o3.tex"]
    assert "1/10" in first[0].read_text() or "0.1" in first[0].read_text()
    assert first[0].read_text() != second[0].read_text()


def test_no_pdf_removes_a_stale_pdf(tmp_path, dead_certificates):
    from certify.render.document import write_document

    stale = tmp_path / "dead-5.pdf"
    stale.write_bytes(b"%PDF-1.5 an older document")
    other = tmp_path / "dead-7.pdf"
    other.write_bytes(b"%PDF-1.5 another prime's document")
    assert write_document(dead_certificates[5], tmp_path, pdf=False) == [tmp_path / "dead-5.tex"]
    assert not stale.exists() and other.exists()  # only the PDF of the document just rewritten


def test_no_pdf_from_the_command_line_removes_a_stale_pdf(tmp_path):
    stale = tmp_path / "dead-5.pdf"
    stale.write_bytes(b"%PDF-1.5 an older document")
    result = run_certify("latex", "dead", "--p", 5, "--out", tmp_path, "--no-pdf")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dead-5.tex").exists() and not stale.exists()


def test_a_failed_pdflatex_says_what_it_replaced_and_removed(tmp_path, monkeypatch):
    """The review: with a pdflatex that exits 1, `certify latex` replaced dead-5.tex and removed the older
    dead-5.pdf, saying only 'pdflatex failed'."""
    import os

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "pdflatex").write_text("#!/bin/sh\necho '! LaTeX Error: a fake failure.'\nexit 1\n")
    (fake / "pdflatex").chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    (out / "dead-5.tex").write_text("an older document")
    (out / "dead-5.pdf").write_bytes(b"%PDF-1.5 the older document's PDF")
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    result = run_certify("latex", "dead", "--p", 5, "--out", out)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert f"replaced {out / 'dead-5.tex'}" in lines
    assert f"removed {out / 'dead-5.pdf'} (it showed the replaced .tex)" in lines
    assert (out / "dead-5.tex").read_text() != "an older document" and not (out / "dead-5.pdf").exists()


# ---------------------------------------------------------------- nothing overflows (issue 24, item 2)

def _overfull_boxes(log: str) -> list[str]:
    """The "Overfull \\hbox (X pt too wide)" lines of a pdflatex log with X > 1 pt."""
    import re

    return [line for line in log.splitlines()
            if (match := re.match(r"Overfull \\hbox \(([0-9.]+)pt too wide\)", line)) and float(match.group(1)) > 1]


def test_every_document_of_the_library_is_its_rendering_and_has_no_overfull_box(tmp_path):
    """Each committed LaTeX document of the proof library (the .tex beside each certificate) is the rendering of its certificate, and pdflatex sets it
    with no line wider than the text by more than 1 pt (before issue 24 the derivations' sums of
    exponentials ran up to 5579 pt past the margin, and the Reproduce command was cut at --prec)."""
    import json
    import subprocess

    if not shutil.which("pdflatex"):
        pytest.fail("pdflatex is needed (Debian: texlive-latex-base; .ci/run installs it)")
    paths = sorted((ROOT / "proofs").glob("*/*.json"))
    assert len(paths) >= 55
    overfull = {}
    for path in paths:
        source = path.with_suffix(".tex").read_text()
        assert document_for(json.loads(path.read_text())) == source, path
        tex = tmp_path / path.with_suffix(".tex").name
        tex.write_text(source)
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
                       cwd=tmp_path, capture_output=True, timeout=120, check=True)
        boxes = _overfull_boxes(tex.with_suffix(".log").read_text(errors="replace"))
        if boxes:
            overfull[tex.name] = boxes[:3]
    assert not overfull, overfull


def test_the_overfull_box_reader_sees_a_wide_line(tmp_path):
    """The reader above is not blind: a line of 200 unbreakable characters is reported."""
    import subprocess

    tex = tmp_path / "wide.tex"
    tex.write_text("\\documentclass{article}\\begin{document}\\noindent\\texttt{" + "x" * 200 + "}\\end{document}\n")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=tmp_path, capture_output=True, timeout=60)
    assert len(_overfull_boxes(tex.with_suffix(".log").read_text(errors="replace"))) == 1


def test_a_long_reproduce_command_is_wrapped_as_shell_lines(dead_certificates):
    from certify.render.latex import VERBATIM_WIDTH, reproduce_command

    command = reproduce_command(dead_certificates[13])
    lines = command.splitlines()
    assert len(lines) >= 3 and all(len(line) <= VERBATIM_WIDTH for line in lines)
    assert all(line.endswith(" \\") for line in lines[:-2]) and not lines[-2].endswith("\\")
    joined = " ".join(line.removesuffix(" \\").strip() for line in lines[:-1])
    assert joined.split() == ["certify", "dead", "--p", "13", "--A", "2", "--B", "1", "--epsilon", "1",
                              "--purity-margin", "0.01", "--sigma", "1", "--radius", "0.247", "--prec", "128",
                              "--out", "dead-13.json"]
