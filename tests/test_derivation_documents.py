"""certify derive: plain text without LaTeX in text mode, and standalone LaTeX documents that compile."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from certify.render.derivations import derivation_document, derivation_latex, derivation_text, latex_to_text
from certify.symbolic import DERIVATIONS, derivation

#: What LaTeX source looks like in a terminal: a backslash, or a command name that lost its backslash.
_LATEX = re.compile(r"\\|\b(frac|mathrm|mathcal|mathbb|left|right|langle|rangle|dot|hat|cdot|geq|leq|notin)\b")


def built(name: str):
    entry = DERIVATIONS[name]
    return derivation(name, entry.default_prime if entry.per_prime else None)


@pytest.mark.parametrize("name", list(DERIVATIONS))
def test_text_output_has_no_latex(name):
    text = derivation_text(built(name))
    leaks = [line for line in text.splitlines() if _LATEX.search(line.split("      because ")[0])]
    assert not leaks


def test_the_conserved_quantity_reads_as_plain_text():
    text = derivation_text(built("conserved"))
    assert "d/dt (g^2 - p/(2(p-1)) s^2) = 0" in text
    assert "frac" not in text


@pytest.mark.parametrize("latex, plain", [
    (r"\frac{d}{dt}\left(g^2 - \frac{p}{2(p-1)} s^2\right)", "d/dt (g^2 - p/(2(p-1)) s^2)"),
    (r"\frac{p}{2}x^2 - \frac{p-1}{p}d^2", "(p/2)x^2 - ((p-1)/p)d^2"),
    (r"\lim_{t \to T^-} \dot s", "lim_{t -> T^-} d/dt s"),
    (r"(2.1)\ \mathrm{family}", "(2.1) family"),
    (r"\hat q(-\zeta)", "qhat(-zeta)"),
    (r"\sup\{s_0 : s_0 - 2\eta g_0/p^2 < 0\}", "sup{s_0 : s_0 - 2 eta g_0/p^2 < 0}"),
    (r"\alpha\ \mathrm{bound\ at}\ X = (p-1)/(e\gamma_*)", "alpha bound at X = (p-1)/(e gamma_*)"),
    (r"\partial \mathcal{L}_{xy}", "partial L_{xy}"),
    (r"\frac{d}{dt}(\|u\|^2+\|v\|^2-\|w\|^2)", "d/dt (||u||^2+||v||^2-||w||^2)"),
    ("F_zeta", "F_zeta"),
])
def test_latex_to_text(latex, plain):
    assert latex_to_text(latex) == plain


def test_expressions_use_sympys_plain_text_printer():
    import sympy as sp

    from certify.render.derivations import _text

    p, s = sp.symbols("p s")
    gamma = sp.Symbol(r"\Gamma")
    expression = gamma + p * s**2 / (2 * (p - 1))
    assert _text(expression) == sp.sstr(expression).replace("\\Gamma", "Gamma")
    assert "\\" not in _text(expression)


@pytest.mark.parametrize("name", ["conserved", "balance", "fourier-exact"])
def test_standalone_document_compiles_with_pdflatex(tmp_path, name):
    assert shutil.which("pdflatex"), "pdflatex is needed (Debian: texlive-latex-base; tests/setup-and-run installs it)"
    derived = built(name)
    source = derivation_document(derived)
    assert source.startswith(r"\documentclass") and source.rstrip().endswith(r"\end{document}")
    assert source.count(r"\begin{document}") == 1
    assert derivation_latex(derived, heading="section") in source  # the fragment, whole
    tex = tmp_path / f"{name}.tex"
    tex.write_text(source, encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, [line for line in result.stdout.splitlines() if line.startswith("!")][:3]
    assert tex.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


def test_the_fragment_alone_is_not_a_document():
    fragment = derivation_latex(built("conserved"))
    assert r"\documentclass" not in fragment and r"\documentclass" in derivation_document(built("conserved"))
