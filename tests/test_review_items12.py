"""An outside review of issue 24 items 1-2 (commit 73fbe94): statements typeset as mathematics, long
expressions broken to the text width, the Reproduce command wrapped. Each test is a defect the review found.
"""

import json
import re
import shutil
import subprocess

import pytest
import sympy as sp

from certify.errors import InputError
from certify.render.breaking import expression_lines, latex_width
from certify.render.statements import statement_latex
from conftest import ROOT

x, y, s = sp.symbols("x y s")
w = sp.symbols("w0:13")
LONG_SUM = sum(w[k] * sp.exp(s * w[k]) for k in range(13))


def _claim(theorem, p, claim_id):
    return json.loads((ROOT / "proofs" / theorem / f"{theorem}-{p}.json").read_text())["claims"][claim_id]


# ------------------------------------------------------------------------------- breaking.py: what is shown

def _read_back(expression, width):
    """The expression that the lines and definitions of a layout *show*, read back independently of the
    layout's own ``shown``/``named``: the layout is printed with sympy's str printer (a language sympy
    parses), every line is parsed, and each name is replaced by what its definition's lines say."""
    layout = expression_lines(expression, width, to_latex=sp.sstr)

    def parsed(lines, names):
        text = " ".join(lines).replace(r"\left(", "(").replace(r"\right)", ")")
        text = re.sub(r"\\(Xi|Upsilon)_\{(\d+)\}", r"\1_\2", text)
        value = sp.sympify(text, locals={**{str(v): v for v in (x, y, s, *w)}, **names, "F": sp.Function("F")})
        return sp.Tuple(*value) if isinstance(value, tuple) else value

    names = {re.sub(r"\\(Xi|Upsilon)_\{(\d+)\}", r"\1_\2", symbol): sp.Symbol(f"name{k}")
             for k, (symbol, _) in enumerate(layout.definitions)}
    meaning = {names[re.sub(r"\\(Xi|Upsilon)_\{(\d+)\}", r"\1_\2", symbol)]: parsed(lines, names)
               for symbol, lines in layout.definitions}
    value = parsed(layout.lines, names)
    for _ in meaning:  # a definition may use a later name
        value = value.xreplace(meaning)
    return value


READ_BACK_CASES = [
    LONG_SUM,
    LONG_SUM / sum(sp.exp(s * w[k]) for k in range(13)),
    -sp.Rational(3, 7) * LONG_SUM / (1 + sum(sp.exp(w[k]) for k in range(10))),
    LONG_SUM ** -2 + (1 + LONG_SUM ** -3) ** -sp.Rational(1, 2),
    sp.Max(LONG_SUM, x + y + sum(w)),
    x - 2 * y * LONG_SUM,
    -(x + y) * LONG_SUM + sp.Mul(-1, x + y + LONG_SUM, evaluate=False),
    sp.Function("F")(sp.Tuple(LONG_SUM, LONG_SUM + x)) / (1 + LONG_SUM),
    sp.Tuple(*[LONG_SUM / (1 + w[k]) - w[k] for k in range(4)]),
]


@pytest.mark.parametrize("expression", READ_BACK_CASES, ids=range(len(READ_BACK_CASES)))
def test_the_printed_lines_and_definitions_read_back_to_the_expression(expression):
    """tests/test_breaking.py compares ``Layout.restored()`` with the expression, but restored() is made
    from ``shown`` and from the *unlaid* expressions each name stands for: neither the lines nor the
    definitions' lines a reader sees take part. Here the printed text itself is read back."""
    value = _read_back(expression, 30)
    if isinstance(expression, sp.Tuple):
        assert len(value) == len(expression) and all(sp.simplify(a - b) == 0 for a, b in zip(value, expression))
    else:
        assert sp.simplify(value - expression) == 0


def test_parts_that_may_not_be_named_are_kept_not_a_traceback():
    """Naming an integral's limits as Xi made \\int ... d\\Xi_1 (another integral); a piecewise or an
    integral raised TypeError (Piecewise(Xi), Integral(..., evaluate=False))."""
    integral = sp.Integral(LONG_SUM, (s, 0, sum(w)))
    layout = expression_lines(integral, 40)
    assert layout.shown.limits == integral.limits and layout.restored() == integral
    for expression in (sp.Piecewise((LONG_SUM, x > 0), (-LONG_SUM, True)),
                       sp.ImmutableMatrix([[LONG_SUM, x], [y, LONG_SUM]]),
                       sp.Derivative(LONG_SUM * sp.Function("f")(s), s)):
        layout = expression_lines(expression, 40)
        assert layout.restored() == expression


def test_a_script_of_a_script_of_a_script_is_not_estimated_below_what_tex_sets(tmp_path):
    """TeX has three math sizes: a script of a script of a script is set at scriptscript size, not
    smaller; the estimate shrank by 0.72 at every level, so nested exponents ran 516 pt past the margin."""
    if not shutil.which("pdflatex"):
        pytest.fail("pdflatex is needed")
    nested = x
    for k in range(8):
        nested = sp.exp(nested + w[k] * x + w[k + 1] * x + w[k + 2])
    formula = sp.latex(nested)
    tex = tmp_path / "widths.tex"
    tex.write_text("\\documentclass[11pt]{article}\\usepackage{amsmath}\\newlength\\W\\begin{document}\n"
                   rf"\settowidth{{\W}}{{$\displaystyle {formula}$}}\typeout{{W0 \the\W}}" + "\nx\\end{document}\n")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=tmp_path, capture_output=True,
                   timeout=60, check=True)
    points = float(tex.with_suffix(".log").read_text().split("W0 ")[1].split("pt")[0])
    assert points <= 7.1 * latex_width(formula), (points, latex_width(formula))


def test_a_bare_symbol_on_a_broken_line_is_set_as_inside_the_expression():
    """derivations._latex sets a lone symbol whose name is not 'letters_subscript' as text, so when the
    layout prints a term or an entry on its own, w0 (w_{0} inside the expression) becomes upright "w0":
    proofs/gd/gd-13.tex shows "- \\text{w0} + \\frac{w_{0} e^{s w_{0}}}{...}"."""
    from certify.render.derivations import _latex

    layout = expression_lines(-w[0] + LONG_SUM / sum(sp.exp(s * w[k]) for k in range(13)), 70, _latex)
    shown = " ".join((*layout.lines, *(line for _, lines in layout.definitions for line in lines)))
    assert r"\text{w0}" not in shown, shown[:200]


def test_one_display_defines_each_intermediate_once():
    """A comparison's derived and paper rows are laid out separately, both numbering from Xi_1, in one
    align*: dead-13.tex's "Phi'' = sum q_c w(c)^2 - Phi'^2" defines Xi_1 twice, as two different sums."""
    from certify.render.derivations import derivation_latex
    from certify.symbolic import derivation

    source = derivation_latex(derivation("convexity", 5))
    for block in re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", source, re.S):
        defined = re.findall(r"\\text\{(?:where|and) \}(\\[A-Za-z]+_\{\d+\})", block)
        assert len(defined) == len(set(defined)), defined


# -------------------------------------------------------------------------------- latex.py: Reproduce

def test_a_reproduce_command_with_a_long_exact_parameter_fits_and_the_shell_reads_it_back():
    """certify gd --A with 100 digits (the CLI's limit) gave a verbatim line of 110 characters, 132 pt past
    the margin. The command as printed, run by bash, must give the same arguments."""
    from certify.render.latex import VERBATIM_WIDTH, reproduce_command

    if not shutil.which("bash"):
        pytest.fail("bash is needed")
    certificate = json.loads((ROOT / "proofs" / "gd" / "gd-13.json").read_text())
    digits = "2." + "0" * 97 + "1"
    certificate["parameters"]["A"] = digits
    command = reproduce_command(certificate)
    assert all(len(line) <= VERBATIM_WIDTH for line in command.splitlines()), command
    first = command.split("\ncertify check")[0]
    argv = subprocess.run(["bash", "-c", first.replace("certify gd", "printf '%s\\n'", 1)],
                          capture_output=True, text=True, check=True).stdout.split("\n")[:-1]
    parameters = certificate["parameters"]
    assert argv == ["--p", "13", "--A", digits, "--B", parameters["B"], "--epsilon", parameters["epsilon"],
                    "--eta", parameters["eta"], "--sigma", parameters["sigma"], "--radius", certificate["radius"],
                    "--prec", "128", "--out", "gd-13.json"]


# ----------------------------------------------------------------------------- statements.py: the words

def test_a_stored_end_that_misses_its_landmark_is_refused_not_printed():
    """Given a certificate directly, the renderer printed '\\ge -5 > 0' (gamma_condition's lo > 0) and
    '\\le 1 < 1' (admissibility's hi < 1): a landmark stated as a fact of an end that does not meet it."""
    for theorem, claim_id, change in (("dead", "gamma_condition", {"lo": "-5"}),
                                      ("slide", "admissibility", {"hi": "1"}),
                                      ("gd", "one_step_death_box", None)):
        stored = dict(_claim(theorem, 13, claim_id))
        if change is None:
            stored["components"] = dict(stored["components"], central_gate={"hi": "0"})
        else:
            stored.update(change)
        with pytest.raises(InputError, match="does not satisfy"):
            statement_latex(theorem, claim_id, stored)


def test_no_statement_has_a_stray_comma_before_its_colon():
    """sensitivity's hitting_time_gradient read 'the gradient of the hitting time $T$,: ...'."""
    stored = _claim("sensitivity", 13, "hitting_time_gradient")
    assert ",:" not in statement_latex("sensitivity", "hitting_time_gradient", stored)


def test_the_saltation_matrix_is_not_indexed_by_the_initial_coordinates():
    """S maps a perturbation at the event (s, a, b at T) to one after it; the plain statement indexes it
    S_ss, S_sa, ...; the typeset one used the columns s_0, a_0, b_0 of J_reg and Psi' (derivatives with
    respect to y(0)), a different matrix's indices."""
    text = statement_latex("sensitivity", "saltation_matrix", _claim("sensitivity", 13, "saltation_matrix"))
    assert "S_{s, s_0}" not in text and "S_{a, a_0}" not in text


def test_smooths_fourier_fraction_says_it_is_the_limits():
    """The plain statement says 'the limit is two-level and ITS F_zeta = 2/(p-1)'; the typeset one says
    'the limit is two-level and, for every zeta != 0, F_zeta = 1/6', which reads as F_zeta of the base point
    (the document's only state named before it)."""
    text = statement_latex("smooth", "terminal_fourier_fraction", _claim("smooth", 13, "terminal_fourier_fraction"))
    assert r"F_\zeta(\theta_\infty)" in text or "its $F_\\zeta" in text, text
