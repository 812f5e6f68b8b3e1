"""Derivations as text a terminal shows and as LaTeX a person pastes into a paper."""

from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp

from ..symbolic.core import Derivation

RELATIONS_LATEX = {"=": "=", "<=": r"\le", ">=": r"\ge", "<": "<", ">": ">", "->": r"\to"}


#: LaTeX macros in symbol names, as plain text for the terminal.
_TEXT_MACROS = [(r"\frac{d}{dt}", "d/dt "), (r"\lim_", "lim_"), (r"\to", "->"), (r"\dot ", "d/dt "),
                (r"\left", ""), (r"\right", ""), (r"\mathcal{L}", "L"), (r"\mathrm", ""), (r"\ ", " "), ("\\", "")]
_PLAIN_NAME = re.compile(r"[A-Za-z]+(_[A-Za-z0-9]+)?")


def _text(expression) -> str:
    if isinstance(expression, sp.Symbol):
        name = expression.name
        for macro, plain in _TEXT_MACROS:
            name = name.replace(macro, plain)
        return name
    return sp.sstr(expression) if isinstance(expression, sp.Basic) else str(expression)


def _latex(expression) -> str:
    """LaTeX of an expression; a symbol whose name is LaTeX (has a backslash) is used as it is,
    one whose name is free text (like "||Pi_zeta q||^2") is set as text."""
    if isinstance(expression, sp.Symbol) and not _PLAIN_NAME.fullmatch(expression.name):
        name = expression.name
        return name if "\\" in name else r"\text{" + latex_escape(name) + "}"
    if isinstance(expression, sp.Basic):
        return sp.latex(expression)
    return r"\text{" + latex_escape(str(expression)) + "}"


#: Running-text replacements of LaTeX's special characters (and of the three OT1 sets as other glyphs).
_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
            # ligatures (!` and ?` are inverted marks, `` and '' quotes, -- dashes): set each character alone
            "`": r"{`}", "'": r"{'}", "-": r"{-}", "!": r"{!}", "?": r"{?}"}


def latex_escape(text: str) -> str:
    """Running text that LaTeX sets literally, whatever ``text`` holds.

    Guarantee: the result contains no LaTeX command except the fixed ones of _ESCAPES, every brace it
    has is balanced and comes from _ESCAPES, and it has only printable ASCII: any other character
    (newline, tab, control, non-ASCII) is shown as ``<U+XXXX>``. So no string can end a group, start
    a comment, a parameter, a superscript, a paragraph or math, or run a command (``\\input``,
    ``\\write18``).
    """
    out = []
    for ch in str(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(rf"\textless{{}}U+{ord(ch):04X}\textgreater{{}}")
    return "".join(out)


def derivation_text(derivation: Derivation) -> str:
    """A plain-text rendering: title, numbered steps with reasons, and the comparisons' verdicts."""
    scope = "symbolic p" if derivation.p is None else f"p = {derivation.p}"
    lines = [f"{derivation.title}  [{derivation.name}; {scope}; establishes {', '.join(derivation.equations)}]", ""]
    for number, step in enumerate(derivation.steps, 1):
        lines.append(f"({number}) {_text(step.lhs)} {step.relation} {_text(step.rhs)}")
        lines.append(f"      because {step.reason}")
    lines.append("")
    for comparison in derivation.comparisons:
        verdict = "equals the paper's form" if comparison.holds() else "DOES NOT MATCH the paper's form"
        lines.append(f"{comparison.label}: derived {_text(comparison.derived)}  {verdict}  {_text(comparison.paper)}")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=256)
def derivation_latex(derivation: Derivation, heading: str = "subsection", limit: int | None = None) -> str:
    """A LaTeX fragment: a heading, the steps in an align* with reasons, the comparisons with their verdicts.

    With ``limit``, at most that many steps and comparisons are printed and the rest is summarised
    (every comparison is still checked and the count of those that hold is stated).
    """
    scope = "symbolic $p$" if derivation.p is None else f"$p = {derivation.p}$"
    holding = sum(comparison.holds() for comparison in derivation.comparisons)
    out = [rf"\{heading}*{{{latex_escape(derivation.title)}}}",
           rf"Establishes {latex_escape(', '.join(derivation.equations))} ({scope}); "
           rf"{holding} of {len(derivation.comparisons)} comparisons with the paper hold.",
           r"\begin{align*}"]
    steps = derivation.steps if limit is None else derivation.steps[:limit]
    comparisons = derivation.comparisons if limit is None else derivation.comparisons[:limit]
    rows = []
    for step in steps:
        relation = RELATIONS_LATEX[step.relation]
        rows.append(rf"{_latex(step.lhs)} &{relation} {_latex(step.rhs)} \\"
                    rf" &\quad\text{{\small {latex_escape(step.reason)}}}")
    out.append(r" \\[2pt]".join(rows) if rows else "")
    out.append(r"\end{align*}")
    omitted = len(derivation.steps) - len(steps), len(derivation.comparisons) - len(comparisons)
    if any(omitted):
        prime = "" if derivation.p is None else f" --p {derivation.p}"
        out.append(rf"\emph{{{omitted[0]} more steps and {omitted[1]} more comparisons are not printed here; "
                   rf"\texttt{{certify derive {latex_escape(derivation.name.rsplit('-p', 1)[0])}{prime}}} "
                   r"prints them all.}")
    out.append(r"\begin{itemize}")
    for comparison in comparisons:
        mark = r"$\checkmark$ equals the paper's form" if comparison.holds() else r"\textbf{does not match}"
        out.append(rf"\item {latex_escape(comparison.label)}: ${_latex(comparison.derived)}$ -- {mark} "
                   rf"${_latex(comparison.paper)}$")
    out.append(r"\end{itemize}")
    return "\n".join(out) + "\n"
