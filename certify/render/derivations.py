"""Derivations as text a terminal shows and as LaTeX a person pastes into a paper."""

from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp
from sympy.printing.str import StrPrinter

from ..symbolic.core import Derivation
from .breaking import LATEX_COMMAND, expression_lines, latex_group, latex_width

RELATIONS_LATEX = {"=": "=", "<=": r"\le", ">=": r"\ge", "<": "<", ">": ">", "->": r"\to"}


_PLAIN_NAME = re.compile(r"[A-Za-z]+[0-9]*(_[A-Za-z0-9]+)?")

#: LaTeX commands of symbol names as plain text; any other command \name becomes ``name`` (Greek letters).
_TEXT_COMMANDS = {"to": "->", "geq": ">=", "leq": "<=", "ge": ">=", "le": "<=", "neq": "!=", "notin": "not in",
                  "in": "in", "langle": "<", "rangle": ">", "|": "||", "left": "", "right": "", ",": " ", " ": " ",
                  ";": " ", "!": "", "{": "{", "}": "}", "nabla": "grad ", "partial": "partial ", "ell": "l",
                  "cdot": "*", "times": "*", "infty": "oo", "dot": "d/dt "}
#: Commands whose one argument is kept as it is (fonts, text) or marked (accents).
_TEXT_ARGUMENT = {"mathrm": "{}", "mathcal": "{}", "mathbf": "{}", "mathbb": "{}", "text": "{}", "operatorname": "{}",
                  "hat": "{}hat", "bar": "{}bar", "tilde": "{}tilde"}
def _atom(text: str) -> str:
    """``text`` bracketed when it is not one name or number (for the sides of a fraction)."""
    return text if re.fullmatch(r"[A-Za-z0-9_.]+|\(.*\)", text) and text.count("(") <= 1 else f"({text})"


def latex_to_text(name: str) -> str:
    """Plain text for a LaTeX-spelled symbol name, for a terminal: no backslash command is left.

    ``\\frac{A}{B}`` becomes ``A/B`` (each side bracketed unless it is one name or number;
    ``\\frac{d}{dt}`` becomes ``d/dt``), ``\\dot x`` becomes ``d/dt x``, font and text commands
    keep their argument (``\\mathcal{L}`` -> ``L``), accents are marked after it
    (``\\hat q`` -> ``qhat``), relations and delimiters become ASCII (``\\to`` -> ``->``,
    ``\\|`` -> ``||``), any other command loses its backslash (``\\gamma`` -> ``gamma``), and
    braces that only group (``\\mathrm{x}``, ``{family}``) are dropped; sub- and superscript
    braces stay (``L_{xy}``, ``T^-``), as in the derivations' plain-text reasons.
    """
    out, i = [], 0
    while i < len(name):
        ch = name[i]
        if ch == "\\":
            match = LATEX_COMMAND.match(name, i)
            command, i = match.group(1), match.end()
            if command == "frac":
                top, i = latex_group(name, i)
                bottom, i = latex_group(name, i)
                top, bottom = latex_to_text(top), latex_to_text(bottom)
                if (top, bottom) == ("d", "dt"):
                    piece = "d/dt "
                else:
                    piece = f"{_atom(top)}/{_atom(bottom)}"
                    if i < len(name) and (name[i].isalnum() or name[i] in "(\\"):
                        piece = f"({piece})"  # (p/2)x^2, not p/2x^2
            elif command in _TEXT_ARGUMENT:
                argument, i = latex_group(name, i)
                piece = _TEXT_ARGUMENT[command].format(latex_to_text(argument))
            else:
                piece = _TEXT_COMMANDS.get(command, command)
            if command.isalpha() and command != "frac" and command not in _TEXT_ARGUMENT and piece[-1:].isalnum():
                while i < len(name) and name[i] == " ":  # LaTeX ends a command word at the spaces after it
                    i += 1
                if piece[-1:].isalnum() and i < len(name) and name[i].isalnum():
                    piece += " "  # \eta g -> eta g, not etag
            if piece[:1].isalpha() and out and out[-1][-1:].isalnum():
                piece = " " + piece  # e\gamma -> e gamma, not egamma
            out.append(piece)
        elif ch in "_^" and i + 1 < len(name) and name[i + 1] == "{":
            argument, i = latex_group(name, i + 1)
            out.append(f"{ch}{{{latex_to_text(argument)}}}")
        elif ch == "{":
            argument, i = latex_group(name, i)
            out.append(latex_to_text(argument))
        else:
            out.append(ch)
            i += 1
    return re.sub(r" {2,}", " ", "".join(out)).strip()


class _TextPrinter(StrPrinter):
    """sympy's plain-text printer (``sympy.sstr``) with LaTeX-spelled symbol names shown as plain text."""

    def _print_Symbol(self, expr):
        return latex_to_text(expr.name)

    _print_Dummy = _print_Symbol


def _text(expression) -> str:
    """Plain text of an expression: sympy's str printer (as ``sympy.sstr``) with ``latex_to_text`` names."""
    if isinstance(expression, sp.Basic):
        return _TextPrinter().doprint(expression)
    return latex_to_text(str(expression))


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


#: The width of the text block in ordinary math characters (:func:`certify.render.breaking.latex_width`):
#: 500 pt (letter paper, 2 cm margins, 11 pt) at the 7.1 pt the widest-set formulas take per estimated
#: character, so a line the estimate fits is at most the text width (calibrated on the derivations' own
#: expressions; tests/test_documents.py compiles every document and fails on an overfull box).
TEXT_WIDTH = 70
#: What an item of a list loses to its indentation (2.5em of 11 pt is 27.5 pt, about 4 characters).
ITEM_INDENT = 4


def _symbol_names(derivation: Derivation) -> set[str]:
    names = set()
    for item in (*derivation.steps, *derivation.comparisons):
        for value in vars(item).values():
            if isinstance(value, sp.Basic):
                names.update(symbol.name for symbol in value.free_symbols)
    return names


def _laid_out_rows(label: str, relation: str, expression, width: float, taken: set[str], first: int = 1
                   ) -> tuple[list[str], int]:
    """align* rows showing ``label relation expression`` in ``width`` characters, broken by
    :func:`certify.render.breaking.expression_lines`, then a "where" row per named intermediate (numbered
    from ``first``); and how many intermediates were named."""
    lead = max(latex_width(label), latex_width(r"\text{where }\Upsilon_{99}")) + 3  # the widest left column
    alone = lead > 0.4 * width  # a long left side gets a row of its own
    layout = expression_lines(expression, width - (6 if alone else lead), _latex, taken, first)
    if alone:
        rows = [rf"&{label}", rf"&\qquad {relation} {layout.lines[0]}"]
    else:
        rows = [rf"{label} &{relation} {layout.lines[0]}"]
    rows += [rf"&\qquad {line}" for line in layout.lines[1:]]
    for k, (symbol, lines) in enumerate(layout.definitions):
        where = r"\text{where }" if k == 0 else r"\text{and }"
        rows.append(rf"{where}{symbol} &= {lines[0]}")
        rows += [rf"&\qquad {line}" for line in lines[1:]]
    return rows, len(layout.definitions)


def _align(rows: list[str]) -> str:
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


@lru_cache(maxsize=256)
def derivation_latex(derivation: Derivation, heading: str = "subsection", limit: int | None = None) -> str:
    """A LaTeX fragment: a heading, each step as a display with its reason below it, the comparisons with
    their verdicts.

    Every expression is laid out to the text width by :func:`certify.render.breaking.expression_lines`
    (sums broken at their terms, wide parts named and defined below). With ``limit``, at most that many
    steps and comparisons are printed and the rest is summarised (every comparison is still checked and
    the count of those that hold is stated).
    """
    scope = "symbolic $p$" if derivation.p is None else f"$p = {derivation.p}$"
    holding = sum(comparison.holds() for comparison in derivation.comparisons)
    taken = _symbol_names(derivation)
    out = [rf"\{heading}*{{{latex_escape(derivation.title)}}}",
           rf"Establishes {latex_escape(', '.join(derivation.equations))} ({scope}); "
           rf"{holding} of {len(derivation.comparisons)} comparisons with the paper hold."]
    steps = derivation.steps if limit is None else derivation.steps[:limit]
    comparisons = derivation.comparisons if limit is None else derivation.comparisons[:limit]
    for step in steps:
        out.append(_align(_laid_out_rows(_latex(step.lhs), RELATIONS_LATEX[step.relation], step.rhs,
                                         TEXT_WIDTH, taken)[0]))
        out.append(rf"{{\small {latex_escape(step.reason)}}}\par")
    omitted = len(derivation.steps) - len(steps), len(derivation.comparisons) - len(comparisons)
    if any(omitted):
        prime = "" if derivation.p is None else f" --p {derivation.p}"
        out.append(rf"\emph{{{omitted[0]} more steps and {omitted[1]} more comparisons are not printed here; "
                   rf"\texttt{{certify derive {latex_escape(derivation.name.rsplit('-p', 1)[0])}{prime}}} "
                   r"prints them all.}")
    out.append(r"\begin{itemize}")
    width = TEXT_WIDTH - ITEM_INDENT
    for comparison in comparisons:
        mark = r"$\checkmark$ equals the paper's form" if comparison.holds() else r"\textbf{does not match} the paper's form"
        derived, paper = _latex(comparison.derived), _latex(comparison.paper)
        label = latex_escape(comparison.label)
        if latex_width(derived) + latex_width(paper) + 0.5 * len(comparison.label) + 22 <= width:
            out.append(rf"\item {label}: ${derived}$ -- {mark} ${paper}$")
        else:
            derived_rows, named = _laid_out_rows(r"\text{derived}", "=", comparison.derived, width, taken)
            rows = derived_rows + _laid_out_rows(r"\text{paper}", "=", comparison.paper, width, taken, 1 + named)[0]
            out.append(rf"\item {label} -- {mark}:")
            out.append(_align(rows))
    out.append(r"\end{itemize}")
    return "\n".join(out) + "\n"


#: The preamble of a standalone derivation document (the packages derivation_latex's fragments use).
_PREAMBLE = (r"\documentclass[11pt]{article}", r"\usepackage[margin=2cm]{geometry}", r"\usepackage{amsmath,amssymb}",
             r"\allowdisplaybreaks", r"\sloppy")


def derivation_document(derivation: Derivation, limit: int | None = None) -> str:
    """A standalone LaTeX document of one derivation: ``\\documentclass`` ... ``\\end{document}``.

    The body is ``derivation_latex(derivation, heading="section", limit=limit)`` under a
    title naming the derivation, the paper's equations it establishes and its scope; the
    preamble loads only what pdflatex of texlive-latex-base has (article, geometry,
    amsmath, amssymb).  Every free text in it goes through ``latex_escape``, so the
    document compiles with ``pdflatex -halt-on-error`` whatever the derivation's strings
    hold (tested).  ``certify derive NAME --latex --standalone`` is meant to print it.
    """
    scope = "symbolic $p$" if derivation.p is None else f"$p = {derivation.p}$"
    return "\n".join([
        *_PREAMBLE,
        rf"\title{{{latex_escape(derivation.title)}}}",
        rf"\author{{certify derive {latex_escape(derivation.name)}}}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        rf"\noindent Establishes {latex_escape(', '.join(derivation.equations))} of the paper ({scope}).",
        "",
        derivation_latex(derivation, heading="section", limit=limit).rstrip("\n"),
        r"\end{document}",
    ]) + "\n"
