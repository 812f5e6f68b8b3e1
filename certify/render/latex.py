"""A certificate as a standalone LaTeX document: statement, derivations, every claim with its numbers."""

from __future__ import annotations

from ..errors import InputError
from ..theorems.registry import RegistryView
from .derivations import derivation_latex, latex_escape
from .numbers import DISPLAY_DIGITS, display_parts, latex_exact
from .statements import statement_latex

#: Steps (and comparisons) of one derivation printed in a document; `certify derive` prints them all.
DOCUMENT_STEPS = 14

def _section(record) -> dict:
    return {"title": record.latex.title, "parameters": [(q.name, q.symbol) for q in record.parameters],
            "base_point": record.latex.base_point, "statement": record.latex.statement, "box": record.latex.box}


#: theorem -> {"title", "parameters": [(name, LaTeX symbol)], "base_point", "statement"}: a live view of the
#: records of certify.theorems.registry (their ``latex`` and ``parameters``).
THEOREMS = RegistryView(_section)


class RenderError(InputError):
    """A certificate the renderer cannot typeset faithfully (a field missing or of the wrong kind)."""


def claim_latex(theorem: str, claim_id: str, stored: dict) -> str:
    """One \\item: the claim id, its scope and its statement as mathematics
    (:func:`certify.render.statements.statement_latex`: the claim's relation with the certificate's numbers),
    and a matrix claim's entries as a matrix."""
    if not isinstance(stored, dict):
        raise RenderError(f"claims/{claim_id} is not an object")
    try:
        statement = statement_latex(theorem, claim_id, stored)
    except InputError as exc:
        raise RenderError(str(exc)) from None
    lines = [rf"\item \texttt{{{latex_escape(claim_id)}}} ({latex_escape(_text(stored, 'scope').replace('_', ' '))}): "
             rf"{statement}."]
    components = stored.get("components", {})
    matrix = _matrix(components, claim_id) if isinstance(components, dict) else ""
    if matrix:
        lines.append(matrix)
    return "\n".join(lines)


#: Components named i_j for i, j in these coordinates are a matrix's entries (rows i, columns d/dj).
_MATRIX_COORDINATES = ("s", "a", "b")


def _matrix(components: dict, claim_id: str = "") -> str:
    """The components as a 3 x 3 matrix (rows s, a, b; columns d/ds0, d/da0, d/db0) when they are exactly the
    entries i_j of one (a sensitivity certificate's derivatives), else ''. Each entry is shown as the lines
    above show it (:func:`certify.render.numbers.display`: an exact value, certified digits or an interval)."""
    names = [f"{i}_{j}" for i in _MATRIX_COORDINATES for j in _MATRIX_COORDINATES]
    if sorted(components) != sorted(names):
        return ""
    cells = []
    for i in _MATRIX_COORDINATES:
        row = []
        for j in _MATRIX_COORDINATES:
            try:
                (relation, body), = display_parts(components[f"{i}_{j}"], "latex")
            except (ValueError, TypeError):
                return ""
            if relation not in ("=", r"\in"):
                return ""
            row.append(body)
        cells.append(" & ".join(row))
    body = r" \\ ".join(cells)
    columns = "s,a,b" if claim_id == "saltation_matrix" else "s_0,a_0,b_0"  # S acts at the event
    return (rf"\\ \quad as a matrix, rows $s,a,b$, columns ${columns}$: \[\begin{{pmatrix}}" + body
            + r"\end{pmatrix}\]")


def _text(node: dict, key: str) -> str:
    value = node.get(key) if isinstance(node, dict) else None
    if not isinstance(value, str):
        raise RenderError(f"{key} is missing or not a string")
    return value


def _integer(value, where: str) -> int:
    if type(value) is not int:
        raise RenderError(f"{where} is not an integer")
    return value


def _exact(text, where: str) -> str:
    try:
        return latex_exact(text)
    except ValueError as exc:
        raise RenderError(f"{where}: {exc}") from None


def certificate_document(certificate: dict, derivations) -> str:
    """A standalone LaTeX document for the certificate, with the given derivations (Derivation objects).

    Guarantee: every number of the certificate appears as the module :mod:`certify.render.numbers`
    prints it (parameters and radius with every digit), every string is escaped by ``latex_escape``
    (no certificate string can inject LaTeX), and the reproduce commands hold only validated numbers
    and names. A certificate it cannot typeset raises RenderError (one line).
    """
    if not isinstance(certificate, dict) or certificate.get("theorem") not in THEOREMS:
        raise RenderError("the certificate names no theorem this renderer knows")
    theorem = THEOREMS[certificate["theorem"]]
    p = _integer(certificate.get("p"), "p")
    bits = _integer(certificate.get("precision_bits"), "precision_bits")
    values = certificate.get("parameters")
    if not isinstance(values, dict):
        raise RenderError("parameters is not an object")
    parameters = ", ".join(rf"{symbol} = {_exact(values.get(name), f'parameters/{name}')}"
                           for name, symbol in theorem["parameters"])
    radius = _exact(certificate.get("radius"), "radius")
    software = certificate.get("software")
    claims = certificate.get("claims")
    if not isinstance(claims, dict):
        raise RenderError("claims is not an object")
    body = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[margin=2cm]{geometry}",
        r"\usepackage{amsmath,amssymb}",
        r"\allowdisplaybreaks",
        r"\sloppy",
        rf"\title{{{theorem['title']}: a certified instance for $p = {p}$}}",
        r"\author{certify " + latex_escape(_text(software, "certify")) + "}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"\section*{Statement}",
        rf"Let $p = {p}$ and ${parameters}$. Let $\theta_* = (u, v, w)$ be the base point",
        rf"\[ {theorem['base_point']} \]",
        "and let $U$ be " + theorem["box"].format(radius=radius) + ". "
        rf"Then {theorem['statement']}",
        "",
        r"Every number below is an exact bound obtained with Arb ball arithmetic (at "
        + rf"{bits} bits; the software versions the certificate records, python-flint "
        + latex_escape(_text(software, "python-flint"))
        + rf", are not part of what is checked). An enclosure is printed as its certified digits (at most {DISPLAY_DIGITS}; the "
          r"certificate holds them all), $d.ddd\ldots$ meaning that "
          r"the value lies in $[d.ddd, d.ddd + u)$ for $u$ one unit of the last digit shown (its magnitude, "
          r"for $-d.ddd\ldots$), or as an interval with its ends rounded outward; one-sided bounds are rounded "
          r"outward. The certificate behind it is re-checked by \texttt{certify check}.",
        r"\section*{Certified claims}",
        r"\begin{itemize}",
        *(claim_latex(certificate["theorem"], claim_id, claims[claim_id]) for claim_id in claim_order(certificate)),
        r"\end{itemize}",
        r"\section*{Derivations}",
        r"Each derivation starts from the definitions (the loss (1.1), the gate, the softmax, the recentering "
        r"(1.2), the projections (1.3)); sympy checks that its result equals the paper's printed form.",
        *(derivation_latex(derivation, limit=DOCUMENT_STEPS) for derivation in derivations),
        r"\section*{Reproduce}",
        r"\begin{verbatim}",
        reproduce_command(certificate),
        r"\end{verbatim}",
        r"\end{document}",
    ]
    return "\n".join(body) + "\n"


def claim_order(certificate: dict) -> list[str]:
    """The claim ids in the order the theorem's record lists them (the certify/1 schema's order, which
    tests/test_registry.py ties to the record), not dict order."""
    from ..theorems.registry import THEOREMS as records

    listed = records[certificate["theorem"]].claim_ids
    return [claim_id for claim_id in listed if claim_id in certificate["claims"]]


def reproduce_command(certificate: dict) -> str:
    """The commands that regenerate and re-check this certificate.

    Only the theorem's own parameter names, numbers that pass the number grammar and integers are
    written (the text goes into a verbatim block, where nothing may be escaped); RenderError otherwise.
    """
    theorem = certificate["theorem"]
    if theorem not in THEOREMS:
        raise RenderError("the certificate names no theorem this renderer knows")
    p, bits = _integer(certificate["p"], "p"), _integer(certificate["precision_bits"], "precision_bits")
    from ..theorems.registry import THEOREMS as records

    flags = {parameter.name: parameter.flag for parameter in records[theorem].parameters}
    names = sorted(flags)
    for name in names:
        _exact(certificate["parameters"].get(name), f"parameters/{name}")
    _exact(certificate["radius"], "radius")
    name = f"{theorem}-{p}.json"
    words = [f"certify {theorem}", f"--p {p}", *(f"{flags[name]} {certificate['parameters'][name]}" for name in names),
             f"--radius {certificate['radius']}", f"--prec {bits}", f"--out {name}"]
    return shell_lines(words) + f"\ncertify check {name}"


#: Characters of a verbatim line in a document (500 pt of text at the 5.75 pt of 11 pt typewriter is 87).
VERBATIM_WIDTH = 78


def shell_lines(words: list[str], width: int = VERBATIM_WIDTH) -> str:
    """The shell command made of ``words`` (each an option with its value, kept together), broken into
    lines of at most ``width`` characters, each line but the last ending in " \\"
    (a shell line continuation), further lines indented by four spaces; a word longer than a line is cut
    inside, each part but the last ending in a backslash and the next starting at the margin (the shell
    removes a backslash-newline wherever it stands, so the parts join into the word again)."""
    lines, current = [], ""
    for word in words:
        if current and len(current) + 1 + len(word) + 2 > width:
            lines.append(current + " \\")
            current = "    " + word
        else:
            current = f"{current} {word}" if current else word
        while len(current) > width - 2:  # leaves room for the " \\" a further word puts after it
            lines.append(current[:width - 1] + "\\")
            current = current[width - 1:]
    lines.append(current)
    return "\n".join(lines)
