"""certify.coq.terms, .lemma and .export: exact terms, names, coverage. The oracle for terms is Python's
fractions (the certificate text read by Fraction, the Coq term evaluated with Fraction arithmetic)."""

import json
import re
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from certify.coq import export, terms
from certify.coq.lemma import Definition, Lemma, NotExported
from conftest import ROOT


def coq_value(term: str) -> Fraction:
    """Evaluate a Coq real term made of integers, + - * /, Rabs and parentheses with exact fractions."""
    python = re.sub(r"\bRabs\b", "abs", term)
    assert re.fullmatch(r"[0-9+\-*/() absa-z]*", python), term
    python = re.sub(r"(\d+)", r"Fraction(\1)", python)
    return eval(python, {"Fraction": Fraction, "abs": abs})  # noqa: S307 - only digits and operators


rationals = st.fractions(max_denominator=10**30).filter(lambda q: abs(q.numerator) < 10**60)


@given(rationals)
def test_real_writes_the_exact_rational(q):
    assert coq_value(terms.real(q)) == q


@pytest.mark.parametrize("text", ["0", "0.5", "-3", "1.79932090977349313326311672434873302927010754e-34",
                                  "42757/2494", "-12179/109850000", "1.82005604039853182262528077309204796277913e561"])
def test_number_reads_certificate_text_exactly(text):
    assert coq_value(terms.real(terms.number(text))) == Fraction(text)


def test_number_refuses_noncanonical_and_overlong_text():
    from certify.errors import MalformedCertificate

    with pytest.raises(MalformedCertificate):
        terms.number("0.50")
    with pytest.raises(ValueError):
        terms.number("4.49355740747785335943835301729732278435133825e-981117")
    tiny = terms.exact_number("4.49355740747785335943835301729732278435133825e-981117")
    assert tiny.exp10 == -981117 - 44 and tiny.numerator == 449355740747785335943835301729732278435133825


@given(rationals.filter(lambda q: q != 0), st.integers(1, 30))
def test_rounding_is_outward_close_and_decimal(q, digits):
    down, up = Fraction(str(terms.round_down(q, digits))), Fraction(str(terms.round_up(q, digits)))
    assert down <= q <= up
    # the unit is 10^(e - digits + 1) with 10^e <= |q|: within a relative 10^(1 - digits)
    assert (q - down) < abs(q) * Fraction(10) ** (1 - digits) and (up - q) < abs(q) * Fraction(10) ** (1 - digits)
    # at most ``digits`` significant digits, and the closest such decimal on its side (oracle: Decimal)
    from decimal import ROUND_CEILING, ROUND_FLOOR, Context

    for value, rounding in ((down, ROUND_FLOOR), (up, ROUND_CEILING)):
        context = Context(prec=digits, rounding=rounding, Emin=-10**6, Emax=10**6)
        exact = context.divide(q.numerator, q.denominator)  # the operands are exact; only the quotient rounds
        assert value == Fraction(exact), (q, digits, value, exact)
    for value in (down, up):
        denominator = value.denominator
        for prime in (2, 5):
            while denominator % prime == 0:
                denominator //= prime
        assert denominator == 1, value  # a terminating decimal


@given(rationals, rationals, rationals)
def test_rmin_rmax_are_min_and_max(a, b, c):
    assert coq_value(terms.rmin(terms.real(a), terms.real(b))) == min(a, b)
    assert coq_value(terms.rmax(terms.real(a), terms.real(b))) == max(a, b)
    # arguments that are sums: max(0, b - c) must not become (b - c + |-b - c|)/2 (found by review)
    difference = f"{terms.real(b)} - {terms.real(c)}"
    assert coq_value(terms.rmax("0", difference)) == max(0, b - c)
    assert coq_value(terms.rmin(difference, f"{terms.real(a)} + {terms.real(c)}")) == min(b - c, a + c)


def test_identifiers_and_comments():
    assert terms.ident("limit_direction", "u_at_0", "lo") == "limit_direction_u_at_0_lo"
    assert terms.ident("one-step", "a.b") == "one_step_a_b"
    assert terms.ident("0gate") == "c_0gate"
    assert terms.comment("a *) b (* c") == "(* a * ) b ( * c *)"
    assert '"' not in terms.comment('component u_at_0" (* x')


@pytest.mark.parametrize("bad", ["Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Conjecture", "(* x *)"])
def test_escape_hatches_cannot_enter_a_lemma(bad):
    with pytest.raises(ValueError):
        Lemma("x", "c", f"0 < 1 /\\ {bad}", "lra.", "paper")
    with pytest.raises(ValueError):
        Lemma("x", "c", "0 < 1", f"{bad}.", "paper")
    with pytest.raises(ValueError):
        Definition("x", bad)


def test_a_weakened_lemma_says_so_in_its_name():
    with pytest.raises(ValueError):
        Lemma("hitting_time_lo", "hitting_time", "0 < 1", "lra.", "paper", digits=12)
    lemma = Lemma("hitting_time_lo_12_digits", "hitting_time", "0 < 1", "lra.", "paper", digits=12)
    assert "WEAKER than the certificate" in lemma.text() and "12 significant digits" in lemma.text()


def _dead13():
    return json.loads((ROOT / "proofs" / "dead" / "dead-13.json").read_text())


def test_every_claim_must_be_covered(monkeypatch):
    document = _dead13()
    claims = [claim for claim in document["claims"] if claim != "terminal_loss"]
    monkeypatch.setattr(export, "obligations",
                        lambda doc: [NotExported(claim, "test") for claim in claims])
    with pytest.raises(ValueError, match="terminal_loss"):
        export.coq_file(document)


def test_names_must_be_unique(monkeypatch):
    document = _dead13()
    twice = [Lemma("same", claim, "0 < 1", "lra.", "paper") for claim in document["claims"]]
    monkeypatch.setattr(export, "obligations", lambda doc: twice)
    with pytest.raises(ValueError, match="repeats a name"):
        export.coq_file(document)


def test_module_names():
    document = _dead13()
    assert export.module_name(document) == "dead_13"
    gd = json.loads((ROOT / "proofs" / "gd" / "gd-13.json").read_text())
    assert export.module_name(gd) == "gd_13_eta_1"
    # eta = 1/3 and 1.3 were both gd_13_eta_1_3; a parameter other than its default is named (the default
    # epsilon at eta = 1/3 is half the (A.71) threshold 2 eta (p-1) A / p^3 = 0.00728..., rounded down)
    # these edited certificates keep the library's radius, which is not what the builder chooses for the
    # edited parameters: the radius is named too (two radii of one instance wrote one file, review of issue 21)
    r = "_r_" + gd["radius"].replace(".", "p")
    assert export.module_name(dict(gd, parameters=dict(gd["parameters"], eta="1/3", epsilon="0.00364"))) == \
        "gd_13_eta_1o3" + r
    assert export.module_name(dict(gd, parameters=dict(gd["parameters"], eta="1/3"))) == \
        "gd_13_eta_1o3_epsilon_0p0109" + r
    assert export.module_name(dict(gd, parameters=dict(gd["parameters"], eta="1.3"))) == \
        "gd_13_eta_1p3_epsilon_0p0109" + r
    # (the builder's radius at epsilon = 1/2 is the library's 0.247 too: not named)
    assert export.module_name(dict(document, parameters=dict(document["parameters"], epsilon="1/2"))) == \
        "dead_13_epsilon_1o2"
    assert export.module_name(dict(document, precision_bits=192)) == "dead_13_prec_192"


def test_a_field_no_lemma_states_is_listed_not_dropped():
    """Fields and components the exporter does not know (a forged hi on a lower bound, an extra
    component) are listed as not exported, in the summary and the file (found by review)."""
    document = _dead13()
    document["claims"]["gamma_condition"]["hi"] = "0.0001"
    document["claims"]["hitting_time_box"]["components"] = {"extra": {"hi": "1"}}
    coq = export.coq_file(document)
    listed = {(item.claim, item.reason.split(" ")[0]) for item in coq.not_exported
              if item.claim not in export.REGION_CLAIMS}  # listed whole by certify.coq.export
    assert listed == {("gamma_condition", "hi"), ("hitting_time_box", "extra.hi")}
    assert "gamma_condition (hi is stated by no lemma" in coq.summary()
    assert "Not exported" in coq.text
    assert export.coq_file(_dead13()).not_exported == ()


def test_the_file_ties_radius_and_base_point_to_the_certificate(tmp_path):
    """0 < r is proved (every box lemma is vacuous for r < 0), and the base point is the construction of
    the parameters: a base point moved alone, or a negative radius, is refused by coqc in that lemma."""
    from coqtext import compile_texts, failing_lemma

    honest = export.coq_file(_dead13()).text
    assert "Lemma radius_positive :\n  0 < (247 / 1000)." in honest
    assert "Lemma base_point_w_at_0 :\n  (-2) = - 2." in honest
    moved = _dead13()
    moved["base_point"]["w"]["at_0"] = "-2.1"
    negative = _dead13()
    negative["radius"] = "-0.247"
    texts = {"moved": export.coq_file(moved).text, "negative": export.coq_file(negative).text}
    results = compile_texts(tmp_path, texts, timeout=300)
    assert not results["moved"].ok and failing_lemma(texts["moved"], results["moved"]) == "base_point_w_at_0"
    assert not results["negative"].ok
    assert failing_lemma(texts["negative"], results["negative"]) == "radius_positive"


@given(rationals, st.integers(1, 200))
def test_rationals_below_and_above_a_ball(q, bits):
    """rational_below/above bracket every point of a ball within 2^-bits of its ends (Fraction oracle)."""
    from flint import arb

    x = arb(q.numerator) / q.denominator + arb(0, Fraction(1, 2 ** 70).numerator) / 2 ** 70  # q +/- 2^-70
    below, above = (Fraction(str(f(x, bits))) for f in (terms.rational_below, terms.rational_above))
    def exact(end):  # an exact arb m 2^e as a Fraction
        mantissa, exponent = (int(part) for part in end.man_exp())
        return Fraction(mantissa) * Fraction(2) ** exponent

    lower, upper = exact(x.lower()), exact(x.upper())
    assert below <= lower and upper <= above
    assert lower - below <= Fraction(1, 2 ** bits) and above - upper <= Fraction(1, 2 ** bits)
