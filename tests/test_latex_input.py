"""What reaches a LaTeX document: the bytes that were checked, every digit of a parameter, and no
certificate string that can change the document (escaping)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from certify.certificate import dumps
from certify.render.derivations import latex_escape
from certify.render.latex import RenderError, certificate_document
from conftest import ROOT


@pytest.fixture(scope="module")
def dead13():
    from certify.theorems.dead import certify_dead

    return certify_dead(13).certificate


def copy(document):
    return json.loads(json.dumps(document))


# ---------------------------------------------------------------- the bytes checked are the bytes rendered

def test_latex_renders_the_bytes_it_checked_and_reads_the_file_once(tmp_path, monkeypatch, dead13):
    """A source that serves a genuine certificate first and a forged one afterwards (as a FIFO could):
    the document holds the genuine numbers, and the file is read exactly once."""
    import certify.check
    import certify.symbolic
    from certify.cli import main

    genuine = dumps(dead13).encode()
    forged_document = copy(dead13)
    forged_document["claims"]["hitting_time"]["lo"] = "12.5"
    forged_document["claims"]["hitting_time"]["hi"] = "12.75"
    forged_document["parameters"]["B"] = "0.75"
    forged = dumps(forged_document).encode()
    assert forged != genuine
    reads = []

    def serve(path):
        reads.append(path)
        return genuine if len(reads) == 1 else forged

    monkeypatch.setattr(certify.check, "read_certificate_file", serve)
    monkeypatch.setattr(certify.symbolic, "derivations_for", lambda theorem, p: [])  # sympy is not the point
    target = tmp_path / "dead-13.json"
    target.write_bytes(forged)  # a second, uncapped read of the path would see the forgery
    assert main(["latex", "--certificate", str(target), "--out", str(tmp_path / "out"), "--no-pdf"]) == 0
    source = (tmp_path / "out" / "dead-13.tex").read_text()
    assert len(reads) == 1
    assert "12.75" not in source and "B = 0.75" not in source
    assert f"B = {dead13['parameters']['B']}" in source
    expected = certificate_document(dead13, [])
    assert source == expected


def test_a_fifo_is_refused_in_one_line_without_hanging(tmp_path):
    fifo = tmp_path / "dead-13.json"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "certify", "latex", "--certificate", str(fifo), "--out",
                             str(tmp_path / "out"), "--no-pdf"], capture_output=True, text=True, timeout=60,
                            env=env, cwd=ROOT)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "FIFO" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "dead-13.tex").exists()


def test_a_malformed_or_rejected_certificate_is_not_rendered(tmp_path, dead13):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rejected = copy(dead13)
    rejected["claims"]["hitting_time_box"]["hi"] = "20"  # the box's hitting time reaches 139.7
    cases = {"rejected.json": dumps(rejected), "malformed.json": "{", "folder": None}
    for name, text in cases.items():
        path = tmp_path / name
        if text is None:
            path.mkdir()
        else:
            path.write_text(text)
        result = subprocess.run([sys.executable, "-m", "certify", "latex", "--certificate", str(path), "--out",
                                 str(tmp_path / "out"), "--no-pdf"], capture_output=True, text=True, timeout=120,
                                env=env, cwd=ROOT)
        assert result.returncode == 2, (name, result.stderr)
        assert result.stderr.count("\n") == 1 and "unverified" in result.stderr, (name, result.stderr)
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- parameters: every digit

def undo(latex: str) -> str:
    text = latex.replace(r"\allowbreak ", "")
    text = re.sub(r"\\frac\{([0-9]+)\}\{([0-9]+)\}", r"\1/\2", text)
    return re.sub(r"\\times 10\^\{(-?[0-9]+)\}", r"e\1", text)


def printed_parameters(source: str) -> dict[str, str]:
    sentence = re.search(r"Let \$p = [0-9]+\$ and \$(.*?)\$\. Let", source).group(1)
    pairs = dict(part.split(" = ", 1) for part in sentence.split(", "))
    radius = re.search(r"radius \$r = (.*?)\$", source).group(1)
    return {**{symbol: undo(value) for symbol, value in pairs.items()}, "r": undo(radius)}


@st.composite
def parameter_texts(draw):
    """Canonical exact numbers of the kinds certify writes: long decimals, fractions, d.ddde<k>, integers."""
    kind = draw(st.sampled_from(["decimal", "fraction", "scientific", "integer", "near-half"]))
    if kind == "near-half":  # 0.5 + 10^-k: "B = 0.5" would be false-looking (B > epsilon/2 fails at 0.5)
        return "0.5" + "0" * draw(st.integers(0, 95)) + "1"
    if kind == "integer":
        return str(draw(st.integers(1, 10 ** 100)))
    if kind == "fraction":
        x = Fraction(draw(st.integers(1, 10 ** 60)), draw(st.integers(3, 10 ** 40)) * 3)
        return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)
    digits = str(draw(st.integers(1, 10 ** 90))).rstrip("0") or "1"
    if kind == "scientific":
        exponent = draw(st.one_of(st.integers(-400, -8), st.integers(22, 400)))
        return digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{exponent}"
    point = draw(st.integers(0, len(digits)))
    whole, frac = digits[:point] or "0", digits[point:]
    return whole + ("." + frac if frac else "")


@settings(max_examples=300, deadline=None)
@given(st.lists(parameter_texts(), min_size=6, max_size=6))
def test_parameters_and_radius_are_printed_with_every_digit(dead13, texts):
    document = copy(dead13)
    document["parameters"] = {"epsilon": texts[0], "A": texts[1], "B": texts[2], "sigma": texts[4],
                              "purity_margin": texts[5]}
    document["radius"] = texts[3]
    shown = printed_parameters(certificate_document(document, []))
    assert shown == {r"\varepsilon": texts[0], "A": texts[1], "B": texts[2], r"\sigma": texts[4],
                     r"\delta": texts[5], "r": texts[3]}


def test_a_verified_certificate_with_b_just_above_one_half_prints_b_exactly(tmp_path):
    """B = 0.5 + 10^-40 (epsilon = 1) satisfies B > epsilon/2; it used to be at risk of printing as 0.5."""
    from certify.check import check_bytes
    from certify.theorems.dead import certify_dead

    from flint import fmpq

    b = "0.5" + "0" * 39 + "1"
    certificate = certify_dead(13, B=fmpq(5 * 10 ** 40 + 1, 10 ** 41)).certificate
    assert certificate["parameters"]["B"] == b
    assert check_bytes(dumps(certificate).encode()).status == "verified"
    assert printed_parameters(certificate_document(certificate, []))["B"] == b


# ---------------------------------------------------------------- strings cannot inject LaTeX

_SPECIAL = set("\\{}$%#&^_~")


def decode(escaped: str) -> str:
    """Read an escaped string back token by token; fail on anything that is not a token latex_escape makes."""
    from certify.render.derivations import _ESCAPES

    tokens = sorted(((value, key) for key, value in _ESCAPES.items()), key=lambda item: -len(item[0]))
    out, i = [], 0
    while i < len(escaped):
        code = re.match(r"\\textless\{\}U\+([0-9A-F]{4,6})\\textgreater\{\}", escaped[i:])
        if code:
            out.append(f"<U+{code.group(1)}>")
            i += code.end()
            continue
        for value, key in tokens:
            if escaped.startswith(value, i):
                out.append(key)
                i += len(value)
                break
        else:
            ch = escaped[i]
            assert " " <= ch <= "~" and ch not in _SPECIAL and ch not in "<>|`'-!?", (escaped, i)
            out.append(ch)
            i += 1
    return "".join(out)


def visible(text: str) -> str:
    return "".join(ch if " " <= ch <= "~" else f"<U+{ord(ch):04X}>" for ch in text)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(), st.sampled_from(list("\\{}$%#&^_~\n\r\t\x00<>|`'-!?"))),
               max_size=60))
def test_escaped_text_is_only_safe_tokens(text):
    escaped = latex_escape(text)
    assert all(" " <= ch <= "~" for ch in escaped)
    assert decode(escaped) == visible(text)
    depth = 0
    for ch, before in zip(escaped, " " + escaped):
        if before != "\\":
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0
    assert depth == 0


HOSTILE = [r"\input{secret}", r"\immediate\write18{touch pwned}", "}\\end{document}", "%", "#1", "^^5cinput",
           "~", "a\n\nb", "\\par}}{{", "$x$", "\u00e9\u2028\x00\x1b", "\\\\[", r"\catcode`\{=12", "--- !` ?`"]


def hostile_certificate(dead13):
    document = copy(dead13)
    document["software"] = {"certify": " ".join(HOSTILE), "python-flint": "".join(HOSTILE), "python": "\\input"}
    claim = document["claims"]["hitting_time"]
    claim["scope"] = HOSTILE[0]
    document["claims"]["limit"] = {"statement": "\\input{secret}"}  # not a claim of dead: not printed
    return document


def test_no_certificate_string_reaches_the_document_unescaped(dead13):
    source = certificate_document(hostile_certificate(dead13), [])
    assert r"\input" not in source and r"\write18" not in source and r"\immediate" not in source
    assert "^^5c" not in source and "\n\n\\par" not in source and r"\catcode" not in source
    author = re.search(r"\\author\{(.*)\}\n", source).group(1)
    assert decode(author) == "certify " + visible(" ".join(HOSTILE))


def test_a_statement_that_is_not_the_claims_is_refused_not_printed(dead13):
    """The document typesets the claim's relation from its spec (certify/render/statements.py), never the
    stored statement text; a stored statement other than the one the spec generates is refused."""
    for statement in ("".join(HOSTILE), dead13["claims"]["hitting_time"]["statement"] + " ", 5):
        document = copy(dead13)
        document["claims"]["hitting_time"]["statement"] = statement
        with pytest.raises(RenderError) as info:
            certificate_document(document, [])
        assert "\n" not in str(info.value) and "hitting_time" in str(info.value)


def test_the_hostile_document_compiles_and_runs_nothing(tmp_path, dead13):
    import shutil

    from certify.render.document import compile_pdf

    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex is not installed (tests/test_documents.py fails for that)")
    (tmp_path / "secret.tex").write_text("\\newwrite\\leak\\immediate\\openout\\leak=pwned.txt"
                                         "\\immediate\\write\\leak{owned}\\immediate\\closeout\\leak\n")
    tex = tmp_path / "hostile.tex"
    tex.write_text(certificate_document(hostile_certificate(dead13), []))
    pdf = compile_pdf(tex)
    assert pdf.exists() and not (tmp_path / "pwned.txt").exists() and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("where, value", [
    ("theorem", "\\input"), ("p", "13"), ("p", True), ("precision_bits", "128"), ("radius", "0.1}"),
    ("radius", 0.25), ("parameters", {"epsilon": "1\\relax", "A": "2", "B": "1"}), ("software", "x"),
    ("parameters", {"epsilon": "1", "A": "2"}),
])
def test_fields_that_cannot_be_typeset_faithfully_raise_one_line(dead13, where, value):
    document = copy(dead13)
    document[where] = value
    with pytest.raises(RenderError) as info:
        certificate_document(document, [])
    assert "\n" not in str(info.value)


def test_a_number_field_that_is_not_a_number_raises(dead13):
    document = copy(dead13)
    document["claims"]["hitting_time"]["lo"] = "1}\\input{x}"
    with pytest.raises(RenderError, match="hitting_time"):
        certificate_document(document, [])


def test_unwritable_output_and_odd_file_names_give_one_line(tmp_path, dead13):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    good = tmp_path / "dead-13.json"
    good.write_text(dumps(dead13))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    odd = tmp_path / "two\nlines.json"
    odd.write_text("{")
    for certificate, out in ((good, blocker / "out"), (odd, tmp_path / "out")):
        result = subprocess.run([sys.executable, "-m", "certify", "latex", "--certificate", str(certificate), "--out",
                                 str(out), "--no-pdf"], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.stderr
