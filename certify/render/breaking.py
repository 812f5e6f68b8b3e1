"""Long expressions laid out in lines that fit a page: sums broken at their terms, the rest named.

A derivation at p = 13 holds sums of thirteen exponentials inside fractions inside tuples; set on one line
they run metres off the page. :func:`expression_lines` lays an expression out for a column of a given width:

* an expression that fits is one line;
* a sum is broken between its terms, as many terms to a line as fit, each further line starting with its
  sign (the way a person breaks a long sum);
* a tuple or list is broken between its entries;
* anything else too wide (a fraction of two long sums, a function of one) has its widest part replaced by
  a named intermediate symbol Xi_k, defined in a line of its own ("where Xi_1 = ..."), which is laid out
  the same way.

Widths are *estimates* in units of one ordinary math character at the document's size
(:func:`latex_width`), deliberately a little high: a layout that fits by the estimate fits on the page,
which tests/test_documents.py checks by compiling every document of the proof library and reading
pdflatex's log for overfull boxes. Only the layout depends on the estimate, never what is shown: the
lines, read in order with the definitions substituted back, are the expression (tested with sympy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

#: Widths, in ordinary math characters (about 5.5 pt at 11 pt), of the pieces of sympy's LaTeX.
_SPACE_WIDTHS = {r"\ ": 0.7, r"\,": 0.2, r"\;": 0.3, r"\:": 0.25, r"\!": -0.2, r"\quad": 2.0, r"\qquad": 4.0}
_BINARY = set("+-=<>")
_NAMED_FUNCTIONS = re.compile(r"\\(log|ln|exp|max|min|sin|cos|tan|sinh|cosh|tanh|det|arg|sup|inf|lim)(?![A-Za-z])")
_FONT_COMMANDS = ("mathcal", "mathbf", "mathbb", "mathrm", "mathsf", "operatorname", "boldsymbol")
_TEXT_COMMANDS = ("text", "textrm", "textit", "texttt")
#: Scale of a sub- or superscript, and of the numerator and denominator of a fraction inside a fraction.
_SCRIPT, _NESTED_FRACTION = 0.72, 0.8
#: The smallest size counted: TeX sets math in three sizes (11, 8, 6 pt), so a script of a script of a script
#: is no smaller than a script of a script (counted as two script steps, 0.52; TeX: 6/10.95 = 0.55).
_SMALLEST = _SCRIPT ** 2


def _smaller(scale: float, factor: float) -> float:
    """The factor by which a part one size smaller than math at ``scale`` is set: ``factor``, but never to
    below _SMALLEST of the text size (TeX's third size is its last)."""
    return max(scale * factor, _SMALLEST) / scale


#: A LaTeX command: a backslash and a word, or a backslash and one character.
LATEX_COMMAND = re.compile(r"\\([A-Za-z]+|.)")


def latex_group(text: str, i: int) -> tuple[str, int]:
    """The argument at ``text[i:]`` (after spaces) and the index after it: a braced group's inside (escaped
    braces ``\\{``, ``\\}`` do not count), a command, or one character; an unclosed group runs to the end."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return "", i
    if text[i] == "{":
        depth = 0
        for end in range(i, len(text)):
            if text[end] == "\\":
                continue
            if text[end] == "{" and text[end - 1:end] != "\\":
                depth += 1
            elif text[end] == "}" and text[end - 1:end] != "\\":
                depth -= 1
                if depth == 0:
                    return text[i + 1:end], end + 1
        return text[i + 1:], len(text)
    if text[i] == "\\":
        match = LATEX_COMMAND.match(text, i)
        return match.group(0), match.end()
    return text[i], i + 1


def latex_width(latex: str, *, in_fraction: bool = False, scale: float = 1.0) -> float:
    """An estimate of the width of math-mode ``latex`` (sympy's output) in ordinary math characters.

    Guarantee (of an estimate, not a bound): about 5-20% above what TeX sets for the formulas sympy prints
    (calibrated on the derivations' expressions against pdflatex's own widths, docs/numbers-and-checking.md
    has no part in it); a fraction is as wide as the wider of its numerator and denominator, scripts are
    scaled by 0.72, ``\\left``/``\\right`` delimiters count half a character, binary operators and
    relations two (their spacing included); ``scale`` is the size of the surrounding math (a script's),
    so that a script of a script of a script is not counted smaller than TeX's smallest size.
    """
    width, i, n = 0.0, 0, len(latex)
    inner = _smaller(scale, _NESTED_FRACTION) if in_fraction else 1.0
    while i < n:
        ch = latex[i]
        if ch == "\\":
            match = LATEX_COMMAND.match(latex, i)
            command, i = match.group(1), match.end()
            token = "\\" + command
            if command == "frac" or command == "dfrac" or command == "tfrac":
                top, i = latex_group(latex, i)
                bottom, i = latex_group(latex, i)
                width += 0.4 + inner * max(latex_width(top, in_fraction=True, scale=scale * inner),
                                           latex_width(bottom, in_fraction=True, scale=scale * inner))
            elif command in ("left", "right", "bigl", "bigr", "Bigl", "Bigr"):
                delimiter, i = latex_group(latex, i)
                width += 0.0 if delimiter == "." else 1.0
            elif command == "sqrt":
                if i < n and latex[i] == "[":
                    i = latex.index("]", i) + 1
                argument, i = latex_group(latex, i)
                width += 1.2 + latex_width(argument, in_fraction=in_fraction, scale=scale)
            elif command in _FONT_COMMANDS:
                argument, i = latex_group(latex, i)
                width += (latex_width(argument, in_fraction=in_fraction, scale=scale)
                          + (0.3 if command == "operatorname" else 0))
            elif command in _TEXT_COMMANDS:
                argument, i = latex_group(latex, i)
                width += 0.95 * len(re.sub(r"\\[A-Za-z]+\{\}|\\.", "x", argument))
            elif token in _SPACE_WIDTHS:
                width += _SPACE_WIDTHS[token]
            elif _NAMED_FUNCTIONS.fullmatch(token):
                width += 0.95 * len(command) + 0.3
            elif command in ("cdot", "times", "to", "le", "ge", "leq", "geq", "neq", "in", "approx"):
                width += 2.0
            elif command in ("displaystyle", "textstyle", "limits", "nolimits"):
                pass
            else:  # a Greek letter or another one-glyph command
                width += 1.1
        elif ch in "^_":
            argument, i = latex_group(latex, i + 1)
            factor = _smaller(scale, _SCRIPT)
            width += factor * latex_width(argument, in_fraction=in_fraction, scale=scale * factor)
        elif ch == "{":
            argument, i = latex_group(latex, i)
            width += latex_width(argument, in_fraction=in_fraction, scale=scale)
        elif ch in _BINARY:
            width += 2.3
            i += 1
        elif ch == ",":
            width += 0.9
            i += 1
        elif ch in " }":
            i += 1
        elif ch in "()[]|":
            width += 0.7
            i += 1
        else:
            width += 1.15 if ch.isalpha() else 1.0
            i += 1
    return width


@dataclass(frozen=True)
class Layout:
    """An expression laid out.

    ``lines``: LaTeX, the first without and every further one with its leading sign (a sum) or its entries
    (a tuple); ``definitions``: (symbol LaTeX, lines) for each named intermediate, in the order they are
    introduced (a definition may use a later one); ``shown``: the sympy form of what the lines show (the
    expression with the intermediates' symbols in it) and ``named``: (symbol, expression) pairs, so that
    ``shown`` with the names replaced back is the expression (:meth:`restored`)."""

    lines: tuple[str, ...]
    definitions: tuple[tuple[str, tuple[str, ...]], ...]
    shown: object
    named: tuple[tuple[sp.Symbol, sp.Basic], ...]

    def restored(self):
        """``shown`` with every named intermediate replaced by what it stands for (latest name first)."""
        value = self.shown
        for symbol, expression in reversed(self.named):
            value = _replace(value, {symbol: expression})
        return value


def _replace(value, mapping):
    if isinstance(value, (tuple, list)):
        return type(value)(_replace(entry, mapping) for entry in value)
    return value.xreplace(mapping) if isinstance(value, sp.Basic) else value


class _Namer:
    """Names intermediates Xi_1, Xi_2, ... and remembers which expression each stands for."""

    def __init__(self, taken: set[str], to_latex, first: int = 1):
        self.to_latex, self.first = to_latex, first
        self.names: dict[sp.Basic, sp.Symbol] = {}
        self.order: list[tuple[sp.Symbol, sp.Basic]] = []
        self.base = r"\Xi" if not any("Xi" in name for name in taken) else r"\Upsilon"

    def name(self, expression: sp.Basic) -> sp.Symbol:
        if expression not in self.names:
            symbol = sp.Symbol(f"{self.base}_{{{len(self.order) + self.first}}}")
            self.names[expression] = symbol
            self.order.append((symbol, expression))
        return self.names[expression]


def _width(expression, to_latex) -> float:
    return latex_width(to_latex(expression))


def _entries(expression):
    """The entries of a tuple or list (or None): what a line break may separate."""
    if isinstance(expression, (tuple, list)):
        return list(expression)
    if isinstance(expression, sp.Tuple):
        return list(expression.args)
    return None


def _shrink(expression: sp.Basic, width: float, namer: _Namer) -> sp.Basic:
    """``expression`` with parts replaced by named intermediates until it is at most ``width`` wide.

    The widest part that is not a plain symbol or number is named first; its definition is laid out later,
    broken the same way, so every definition fits too."""
    to_latex = namer.to_latex
    while _width(expression, to_latex) > width:
        parts = [(part, rebuild) for part, rebuild in _operands(expression)
                 if not (part.is_Symbol or part.is_Number)]
        if not parts:
            return expression  # nothing left to name (one very long symbol): set as it is
        widest, rebuild = max(parts, key=lambda item: (_width(item[0], to_latex), sp.default_sort_key(item[0])))
        expression = rebuild(namer.name(widest))
    return expression


def _operands(expression: sp.Basic) -> list[tuple[sp.Basic, object]]:
    """The parts a name may stand for, each with the function that puts a symbol in its place: a
    quotient's numerator and denominator, otherwise the arguments."""
    if isinstance(expression, sp.Mul):
        numerator, denominator = sp.fraction(expression, exact=True)
        if denominator != 1:
            return [(numerator, lambda name: sp.Mul(name, sp.Pow(denominator, -1, evaluate=False), evaluate=False)),
                    (denominator, lambda name: sp.Mul(numerator, sp.Pow(name, -1, evaluate=False), evaluate=False))]
    args = expression.args

    def rebuild_at(k):
        def rebuild(name):
            new = (*args[:k], name, *args[k + 1:])
            try:
                return expression.func(*new, evaluate=False)
            except TypeError:  # a class without the switch (Integral, Derivative): it does not evaluate
                return expression.func(*new)
        return rebuild

    # Only a value may be named: not an integral's limits or a derivative's variables (d/dXi would be another
    # expression), nor a piecewise branch or a matrix's shape; a function's tuple argument may be.
    return [(arg, rebuild_at(k)) for k, arg in enumerate(args)
            if isinstance(arg, sp.Expr) or (type(arg) is sp.Tuple and isinstance(expression, sp.Function)
                                             and not isinstance(expression, sp.Piecewise))]


def _lay(expression, width: float, namer: _Namer) -> tuple[list[str], object]:
    """The lines of one expression and the sympy form they show (definitions go to ``namer``)."""
    to_latex = namer.to_latex
    entries = _entries(expression)
    if entries is not None:
        lines, current, shown = [], "(", []
        for k, entry in enumerate(entries):
            piece_lines, piece_shown = _lay(entry, width - 2, namer)
            shown.append(piece_shown)
            closing = ")" if k == len(entries) - 1 else ","
            for j, piece in enumerate(piece_lines):
                text = piece + (closing if j == len(piece_lines) - 1 else "")
                if current == "(":
                    current += text
                elif latex_width(current + " " + text) <= width:
                    current = f"{current} {text}"
                else:
                    lines.append(current)
                    current = text
        lines.append(current if entries else "()")
        return lines, (sp.Tuple(*shown) if isinstance(expression, sp.Tuple) else type(expression)(shown))
    if not isinstance(expression, sp.Basic) or _width(expression, to_latex) <= width:
        return [to_latex(expression)], expression
    if isinstance(expression, sp.Add):
        lines: list[str] = []
        current, shown = "", []
        for term in expression.as_ordered_terms():  # the order sympy's LaTeX printer sets them in
            negative = term.could_extract_minus_sign()
            body = _shrink(-term if negative else term, width - 2, namer)
            shown.append(-body if negative else body)
            body_latex = to_latex(body)
            if isinstance(body, sp.Add):
                body_latex = rf"\left({body_latex}\right)"
            sign = "-" if negative else ("+" if lines or current else "")
            text = f"{sign} {body_latex}".strip()
            if current and latex_width(current + " " + text) > width:
                lines.append(current)
                current = text
            else:
                current = f"{current} {text}".strip()
        lines.append(current)
        return lines, sp.Add(*shown, evaluate=False)
    shrunk = _shrink(expression, width, namer)
    return [to_latex(shrunk)], shrunk


def expression_lines(expression, width: float, to_latex=sp.latex, taken: set[str] | None = None,
                     first: int = 1) -> Layout:
    """The layout of ``expression`` (sympy, tuple or list) in lines about ``width`` characters wide at most.

    Guarantee: the lines show ``Layout.shown`` term by term (a sum's terms in the order sympy prints them,
    each with its sign) and ``Layout.restored()`` is ``expression`` (tests/test_breaking.py). ``taken``:
    symbol names already used in the document, so the intermediates' letter (Xi, else Upsilon) is new;
    ``first``: the number of the first intermediate (one display laying out several expressions numbers
    them on, so no name is defined twice). The width is an estimate (:func:`latex_width`); one symbol or number wider than ``width`` is set as it
    is, and so is a part that may not be named (a piecewise branch, a matrix, an integral's limits).
    """
    namer = _Namer(taken or set(), to_latex, first)
    lines, shown = _lay(expression, width, namer)
    definitions, k = [], 0
    while k < len(namer.order):  # a definition may introduce further names
        symbol, part = namer.order[k]
        definitions.append((to_latex(symbol), tuple(_lay(part, width, namer)[0])))
        k += 1
    return Layout(tuple(lines), tuple(definitions), shown, tuple(namer.order))
