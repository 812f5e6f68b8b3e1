"""certify.coq.gd: the Coq lemmas of gd certificates (Theorem A.4) compile, forged bounds are refused by
coqc, every claim but gaussian_probability is covered, and no escape hatch is written.

The files compiled here hold only this exporter's lemmas (export.HEADER, then each item's text), so the
tests do not depend on certify.coq.gaussian. coqc is required: these tests fail when it is missing.
"""

import json
import re
from fractions import Fraction

import pytest
from flint import fmpq

from certify.coq.export import SHARED_CLAIMS
from certify.coq.export import HEADER, module_name
from certify.coq.gd import gd_obligations
from certify.coq.lemma import Definition, Lemma, NotExported
from certify.kernel.exact import format_rational
from conftest import ROOT
from coqtext import compile_texts, strip_comments

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "gd").glob("gd-*.json")}
WORDS = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis", "Hypotheses",
         "Conjecture", "Variable", "Variables", "Context", "Abort")


def library(p: int) -> dict:
    return json.loads(LIBRARY[p].read_text())


def coq_text(items) -> str:
    return HEADER + "Local Open Scope R_scope.\n\n" + "\n".join(
        item.text() for item in items if isinstance(item, (Lemma, Definition)))


def scaled(text: str, factor: Fraction) -> str:
    """The canonical certificate text of text * factor (the oracle is Fraction, the spelling the kernel's)."""
    value = Fraction(text) * factor
    return format_rational(fmpq(value.numerator, value.denominator))


def forged(document: dict, path: tuple, value: str) -> dict:
    document = json.loads(json.dumps(document))
    node = document["claims"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def test_other_steps_compile(tmp_path, gd_certificates):
    """Steps the library (eta = 1, compiled by tests/test_coq_library.py) does not have."""
    documents = {"p101_eta_tenth": gd_certificates[(101, (1, 10))], "p13_eta_1000": gd_certificates[(13, (1000, 1))]}
    assert documents["p101_eta_tenth"]["parameters"]["eta"] == "0.1"
    results = compile_texts(tmp_path, {name: coq_text(gd_obligations(doc)) for name, doc in documents.items()})
    for name, result in results.items():
        assert result.ok, f"{name}: {result.message}"


SMALLER, LARGER = 1 - Fraction(1, 10**30), 1 + Fraction(1, 10**30)
FORGERIES = {
    # (claim, path in claims, factor moving the number past the truth: a negative hi * LARGER is lower)
    "central_gate_lower": ("one_step_death_box", ("one_step_death_box", "components", "central_gate", "hi"), LARGER),
    "central_gate_sign": ("one_step_death_box", ("one_step_death_box", "components", "central_gate", "hi"), -1),
    # the cross gates' hi = epsilon/2 - B + 2r ignores the step's own decrease of u(0) by eta D/p^2 >=
    # eta gmin/p^2 (about 0.011 at p = 13), so the truth lies that far below it: move hi by 2%
    "cross_gates_lower": ("one_step_death_box", ("one_step_death_box", "components", "cross_gates", "hi"),
                          1 + Fraction(1, 50)),
    "off_cross_lower": ("one_step_death_box", ("one_step_death_box", "components", "off_cross_gates", "hi"), LARGER),
    "w_step_lower": ("w_step_box", ("w_step_box", "hi"), SMALLER),
    "purity_higher": ("purity_gap_box", ("purity_gap_box", "lo"), LARGER),
    "purity_sign": ("purity_gap_box", ("purity_gap_box", "lo"), -1),
    "gate_margin_higher": ("single_active_gate", ("single_active_gate", "lo"), LARGER),
    "fraction_moved": ("terminal_fourier_fraction", ("terminal_fourier_fraction", "exact"), LARGER),
}


def test_forged_bounds_are_rejected_by_coqc(tmp_path):
    """Each forgery's claim compiled alone (its lemmas and the definitions), so that the refusal is its own."""
    document = library(13)
    texts = {}
    for name, (claim, path, factor) in FORGERIES.items():
        node = document["claims"]
        for key in path:
            node = node[key]
        items = gd_obligations(forged(document, path, scaled(node, Fraction(factor))))
        texts[name] = coq_text([item for item in items if isinstance(item, Definition) or item.claim == claim])
    results = compile_texts(tmp_path, texts)
    accepted = [name for name, result in results.items() if result.ok]
    assert not accepted, f"coqc accepted forged certificates: {accepted}"


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_every_claim_but_the_gaussian_one_is_exported_in_full(p):
    document = library(p)
    items = gd_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))} - {"base_point"}
    assert covered == set(document["claims"]) - {"gaussian_probability"}  # region_probability: certify.coq.region_gd
    assert not [item for item in items if isinstance(item, NotExported)]
    assert all(item.digits is None for item in items if isinstance(item, Lemma))


def test_coverage_of_other_step_sizes(gd_certificates):
    """Every claim but the box mass has lemmas at every step size, the region's too except at eta = 1000, where the
    chord route's t = u/k runs past its domain (docs/coq.md, 'The gd region in Coq'): listed, with the reason."""
    for (p, eta), document in gd_certificates.items():
        items = gd_obligations(document)
        proved = {item.claim for item in items if isinstance(item, Lemma)} - {"base_point"}
        listed = {item.claim: item.reason for item in items if isinstance(item, NotExported)}
        if eta == (1000, 1):
            assert proved == set(document["claims"]) - set(SHARED_CLAIMS)
            assert list(listed) == ["region_probability"] and "eta too large" in listed["region_probability"]
        else:
            assert proved == set(document["claims"]) - {"gaussian_probability"} and not listed, (p, eta)


def test_statements_carry_the_certificate_numbers():
    document = library(13)
    items = [item for item in gd_obligations(document) if isinstance(item, Lemma)]
    by_name = {item.name: item for item in items}
    for component in ("central_gate", "cross_gates", "off_cross_gates"):
        hi = document["claims"]["one_step_death_box"]["components"][component]["hi"]
        name = f"one_step_death_box_{component}_hi_negative"
        # the oracle for the term: the certificate's text read by Fraction
        numerator, denominator = Fraction(hi).numerator, Fraction(hi).denominator
        assert by_name[name].statement == f"(- ({-numerator} / {denominator})) < 0"
        bound = [item for item in items if item.name.startswith(f"one_step_death_box_{component}_hi")
                 and item.name != name]
        assert bound and all(item.statement.endswith(f"<= (- ({-numerator} / {denominator}))") for item in bound)
    lo = Fraction(document["claims"]["purity_gap_box"]["lo"])
    assert by_name["purity_gap_box_lo"].statement.startswith(f"({lo.numerator} / {lo.denominator}) <= ")
    assert by_name["w_step_box_hi"].statement.endswith("<= (1081 / 4225000)")
    assert "eta" in module_name(document)


def evaluate(term: str) -> Fraction:
    """A Coq real term of integers, + - * / ^, Rabs, sqrt, exp and parentheses, evaluated by mpmath at 80
    digits (the result to 70 digits)."""
    import mpmath

    python = term.replace("^", "**").replace("Rabs", "abs")
    assert re.fullmatch(r"[0-9+\-*/() .a-z]*", python), term
    python = re.sub(r"\b(sqrt|exp) (\d+)", r"\1(\2)", python)
    python = re.sub(r"(\d+)", r"mpf(\1)", python)
    with mpmath.workdps(80):
        value = eval(python, {"mpf": mpmath.mpf, "abs": abs, "sqrt": mpmath.sqrt, "exp": mpmath.exp})  # noqa: S307
        return Fraction(mpmath.nstr(value, 70, min_fixed=-1, max_fixed=1))


@pytest.mark.parametrize("p", [5, 13, 101])
def test_purity_gap_term_is_the_kernel_bound(p):
    """The Definition's value lies just above the certificate's lo (the kernel's ball at 128 bits is within
    10^-36 of it), so the lemma lo <= it states the kernel's bound and not a looser one."""
    from certify.coq.gd import purity_gap_term

    document = library(p)
    lo = Fraction(document["claims"]["purity_gap_box"]["lo"])
    value = evaluate(purity_gap_term(document))
    assert 0 < value - lo < lo * Fraction(1, 10**36)


@pytest.mark.parametrize("p", [5, 101])
def test_no_escape_hatch_outside_comments(p, gd_certificates):
    for document in (library(p), gd_certificates[(7, (1, 1000))]):
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_']*", strip_comments(coq_text(gd_obligations(document))))
        assert not set(words).intersection(WORDS)
