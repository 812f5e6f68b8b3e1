"""certify/render/breaking.py: long expressions in lines that fit, showing the same expression."""

import subprocess
import shutil

import pytest
import sympy as sp

from certify.render.breaking import expression_lines, latex_width

x, y, s = sp.symbols("x y s")
w = sp.symbols("w0:13")


def _sum_of_exponentials(n):
    return sum(w[k] * sp.exp(s * w[k]) for k in range(n))


CASES = [
    _sum_of_exponentials(13),                                              # a long sum: broken at terms
    _sum_of_exponentials(13) / sum(sp.exp(s * w[k]) for k in range(13)),   # a quotient of two long sums
    sp.log(sum(sp.exp(w[k] * sp.Max(0, x + y)) for k in range(13))),       # a function of a long sum
    sp.Tuple(*[_sum_of_exponentials(5) / (1 + w[k]) for k in range(4)]),   # a tuple of long entries
    sp.Tuple(*[sp.Integer(0)] * 40),                                       # a long tuple of zeros
    -x - _sum_of_exponentials(9) + y ** 2,                                 # leading minus signs
    x + y,                                                                 # short: one line
]


@pytest.mark.parametrize("expression", CASES, ids=range(len(CASES)))
def test_the_layout_shows_the_expression_and_fits(expression):
    layout = expression_lines(expression, 40)
    # what the lines show, with the names put back, is the expression (sympy decides)
    restored = layout.restored()
    if isinstance(expression, sp.Tuple):
        assert len(restored) == len(expression)
        assert all(sp.simplify(a - b) == 0 for a, b in zip(restored, expression))
    else:
        assert sp.simplify(restored - expression) == 0
    # every line, of the expression and of each definition, fits by the estimate
    for line in (*layout.lines, *(line for _, lines in layout.definitions for line in lines)):
        assert latex_width(line) <= 40, line
    # every name used is defined, and every definition is used
    used = " ".join((*layout.lines, *(line for _, lines in layout.definitions for line in lines)))
    for symbol, _ in layout.definitions:
        assert symbol in used


def test_a_sum_is_broken_between_its_terms_each_line_with_its_sign():
    layout = expression_lines(-x - _sum_of_exponentials(9), 30)
    assert not layout.definitions and len(layout.lines) > 2
    assert layout.lines[0].startswith("-") and all(line[0] in "+-" for line in layout.lines[1:])


def test_names_avoid_the_documents_symbols():
    expression = _sum_of_exponentials(13) / sum(sp.exp(s * w[k]) for k in range(13))
    assert expression_lines(expression, 40).definitions[0][0].startswith(r"\Xi")
    assert expression_lines(expression, 40, taken={r"\Xi"}).definitions[0][0].startswith(r"\Upsilon")


def test_a_short_expression_is_sympys_one_line():
    assert expression_lines(x + y, 40).lines == (sp.latex(x + y),)


def test_the_width_estimate_is_not_below_what_tex_sets(tmp_path):
    """The estimate in characters times 7.1 pt (derivations.TEXT_WIDTH's calibration) is at least the width
    pdflatex gives the formula, for the kinds of formula the derivations hold."""
    if not shutil.which("pdflatex"):
        pytest.fail("pdflatex is needed")
    formulas = [sp.latex(case) for case in CASES[:4]] + [r"\left( 0, \  0, \  0, \  0, \  0, \  0\right)",
                                                          r"\frac{p^{2} \left(1 + \frac{e^{- s g}}{p - 1}\right)}{2 g}"]
    body = "".join(rf"\settowidth{{\W}}{{$\displaystyle {f}$}}\typeout{{W{k} \the\W}}" + "\n"
                   for k, f in enumerate(formulas))
    tex = tmp_path / "widths.tex"
    tex.write_text("\\documentclass[11pt]{article}\\usepackage{amsmath}\\newlength\\W\\begin{document}\n" + body
                   + "x\\end{document}\n")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=tmp_path, capture_output=True,
                   timeout=60, check=True)
    log = tex.with_suffix(".log").read_text()
    for k, formula in enumerate(formulas):
        points = float(log.split(f"W{k} ")[1].split("pt")[0])
        assert points <= 7.1 * latex_width(formula), (formula[:60], points, latex_width(formula))
