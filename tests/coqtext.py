"""Reading Coq source in tests: comments stripped (Coq comments nest), lemma names, escape hatches."""

import re

ESCAPE_HATCHES = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis", "Hypotheses",
                  "Conjecture", "Variable", "Variables", "Context", "Abort")


def strip_comments(text: str) -> str:
    """The text without its (nested) comments; strings are not special in what certify writes."""
    out, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i) and depth:
            depth -= 1
            i += 2
        else:
            if not depth:
                out.append(text[i])
            i += 1
    assert depth == 0, "unbalanced comment"
    return "".join(out)


def escape_hatches(text: str) -> list[str]:
    """Every escape-hatch word in the code (comments excluded)."""
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_']*", strip_comments(text))
    return [word for word in words if word in ESCAPE_HATCHES]


def lemma_names(text: str) -> list[str]:
    return re.findall(r"^Lemma ([A-Za-z0-9_']+) :", strip_comments(text), flags=re.M)


def not_exported(text: str) -> str:
    """The file's closing comment listing the claims it does not prove ('' if none)."""
    match = re.search(r"\(\* Not exported \(claims this file does not prove\): (.*?) \*\)\s*$", text, flags=re.S)
    return match.group(1) if match else ""
