"""A certificate as a standalone LaTeX document: statement, derivations, every claim with its numbers."""

from __future__ import annotations

from .derivations import derivation_latex, latex_escape
from .numbers import certified_digits, latex_bound, latex_enclosure, latex_exact

#: Steps (and comparisons) of one derivation printed in a document; `certify derive` prints them all.
DOCUMENT_STEPS = 14

THEOREMS = {
    "dead": {
        "title": "Theorem 1.5 with Theorem A.2: the neuron dies",
        "parameters": [("epsilon", r"\varepsilon"), ("A", "A"), ("B", "B")],
        "base_point": r"u(0)=v(0)=\varepsilon/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (2.1)",
        "statement": (r"every initial point of the box is initially active (only the gate $(0,0)$ is positive); "
                      r"every Clarke trajectory from it reaches a completely inactive state at a finite time $T$, "
                      r"transversally, and is constant afterwards; and every terminal state satisfies "
                      r"$\max_{\zeta\ne0}F_\zeta\le1-\delta_p$ with $\delta_p>0$ as certified below, so the "
                      r"limiting direction is not supported on one real Fourier class."),
    },
    "slide": {
        "title": "Theorem A.1: the persistent sliding trajectory",
        "parameters": [("gamma_star", r"\gamma_*"), ("X", "X")],
        "base_point": r"u(0)=v(0)=X,\ u(j)=v(j)=-3X,\ w(0)=2p\gamma_*,\ w(j)=0 \quad (\S A.3)",
        "statement": (r"the box lies in $U_{\mathrm{slide}}$ of (A.15)--(A.17); from every point of it the Clarke "
                      r"trajectory is unique, the gate $(0,0)$ stays active, all $2(p-1)$ cross gates are captured "
                      r"on their kinks, $\theta/\|\theta\|$ converges and $F_\zeta\to 2/(p-1)$ for every "
                      r"$\zeta\ne0$."),
    },
    "smooth": {
        "title": r"Theorem A.3: a smooth dead-zone activation",
        "parameters": [("eps_smooth", r"\epsilon"), ("epsilon", r"s_0"), ("A", "A"), ("B", "B")],
        "base_point": r"u(0)=v(0)=s_0/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (A.48)\text{--}(A.49)",
        "statement": (r"with $\sigma_\epsilon(z)=z\,\psi(z/\epsilon)$, $\psi(t)=f(t)/(f(t)+f(1-t))$, "
                      r"$f(t)=e^{-1/t}$ for $t>0$ and $0$ otherwise, the gradient flow from every point of the box "
                      r"converges to a finite limit $\theta_\infty$ with $\max_{\zeta\ne0}F_\zeta(\theta_\infty)"
                      r"\le1-\delta$, $\delta>0$ as certified below."),
    },
    "gd": {
        "title": "Theorem A.4: one step of gradient descent",
        "parameters": [("eta", r"\eta"), ("epsilon", r"s_0"), ("A", "A"), ("B", "B")],
        "base_point": r"u(0)=v(0)=s_0/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (A.48)\text{--}(A.49)",
        "statement": (r"one full-batch gradient-descent step $\theta_1=\theta_0-\eta\nabla\mathcal L(\theta_0)$ "
                      r"with $\mathrm{ReLU}'(0)=0$ makes every gate strictly negative, so "
                      r"$\theta_n=\theta_1$ for all $n\ge1$, and $\max_{\zeta\ne0}F_\zeta(\theta_1)\le1-\delta$ "
                      r"with $\delta>0$ as certified below."),
    },
}


def quantity_latex(stored: dict) -> str:
    """The LaTeX of one stored quantity: exact value, certified digits of an enclosure, or a bound."""
    if "exact" in stored:
        return "= " + latex_exact(stored["exact"])
    parts = []
    if "lo" in stored and "hi" in stored:
        parts.append(latex_enclosure(stored["lo"], stored["hi"]))
    elif "lo" in stored:
        parts.append(r"\ge " + latex_bound(stored["lo"], False))
    elif "hi" in stored:
        parts.append(r"\le " + latex_bound(stored["hi"], True))
    if "log10_lo" in stored and "log10_hi" in stored:
        digits, exponent = certified_digits(stored["log10_lo"], stored["log10_hi"])
        parts.append(rf"= 10^{{{digits}\ldots}}" if digits and not exponent else "")
    elif "log10_lo" in stored:
        parts.append(rf"\ge 10^{{{latex_bound(stored['log10_lo'], False, 8)}}}")
    return ",\\ ".join(part for part in parts if part)


def claim_latex(claim_id: str, stored: dict) -> str:
    """One \\item: the claim id, its statement (as stored, escaped), and its numbers."""
    lines = [rf"\item \texttt{{{latex_escape(claim_id)}}} ({latex_escape(stored['scope'].replace('_', ' '))}): "
             rf"{latex_escape(stored['statement'])}."]
    quantity = {key: value for key, value in stored.items() if key not in ("statement", "scope", "components")}
    if quantity:
        lines.append(rf"\\ \quad $\text{{value}}\ {quantity_latex(quantity)}$")
    for name, part in stored.get("components", {}).items():
        lines.append(rf"\\ \quad $\text{{{latex_escape(name)}}}\ {quantity_latex(part)}$")
    return "\n".join(lines)


def certificate_document(certificate: dict, derivations) -> str:
    """A standalone LaTeX document for the certificate, with the given derivations (Derivation objects)."""
    theorem = THEOREMS[certificate["theorem"]]
    p = certificate["p"]
    parameters = ", ".join(rf"{symbol} = {latex_exact(certificate['parameters'][name])}"
                           for name, symbol in theorem["parameters"])
    radius = latex_exact(certificate["radius"])
    body = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[margin=2cm]{geometry}",
        r"\usepackage{amsmath,amssymb}",
        r"\allowdisplaybreaks",
        r"\sloppy",
        rf"\title{{{theorem['title']}: a certified instance for $p = {p}$}}",
        r"\author{certify " + latex_escape(certificate["software"]["certify"]) + "}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"\section*{Statement}",
        rf"Let $p = {p}$ and ${parameters}$. Let $\theta_* = (u, v, w)$ be the base point",
        rf"\[ {theorem['base_point']} \]",
        rf"and let $U$ be the sup-norm box of radius $r = {radius}$ around $\theta_*$ in $\mathbb R^{{3p}}$. "
        rf"Then {theorem['statement']}",
        "",
        r"Every number below is an exact bound obtained with Arb ball arithmetic (python-flint "
        + latex_escape(certificate["software"]["python-flint"])
        + rf", {certificate['precision_bits']} bits); only certified digits are printed. "
          r"The certificate behind it is re-checked by \texttt{certify check}.",
        r"\section*{Certified claims}",
        r"\begin{itemize}",
        *(claim_latex(claim_id, certificate["claims"][claim_id]) for claim_id in claim_order(certificate)),
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
    """The claim ids in the order the certify/1 schema lists them for this theorem (not dict order)."""
    from ..certificate import schema

    listed = schema()["$defs"][f"{certificate['theorem']}_claims"]["required"]
    return [claim_id for claim_id in listed if claim_id in certificate["claims"]]


def reproduce_command(certificate: dict) -> str:
    """The commands that regenerate and re-check this certificate."""
    theorem, p = certificate["theorem"], certificate["p"]
    options = " ".join(f"--{name.replace('_', '-')} {value}" for name, value in sorted(certificate["parameters"].items()))
    name = f"{theorem}-{p}.json"
    return (f"certify {theorem} --p {p} {options} --radius {certificate['radius']} "
            f"--prec {certificate['precision_bits']} --out {name}\ncertify check {name}")
