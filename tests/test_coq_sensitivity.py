"""certify.coq.sensitivity: the Coq lemmas of sensitivity certificates (the death event's rank-one gap)
compile, a forged end of each claim is refused by coqc in its own lemma, every claim is exported (nothing
listed as not exported), the lemmas built on the integral I keep at least 12 digits, and no escape hatch
is written.

A forged certificate keeps only the forged claim, so that its file fails in the forged lemma or in none.
coqc is required: these tests fail when it is missing.
"""

import re
from fractions import Fraction

import pytest

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.sensitivity import sensitivity_obligations
from certify.kernel.exact import canonical_text
from conftest import ROOT
from coqtext import admit_unchanged, compile_texts, escape_hatches, failing_lemma, lemma_names

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "sensitivity").glob("sensitivity-*.json")}


def library(p: int, keep=None) -> dict:
    """The library certificate of p (or with only the claims in ``keep``)."""
    document = parse_certificate(LIBRARY[p].read_bytes())
    if keep is not None:
        document["claims"] = {claim: document["claims"][claim] for claim in keep}
    return document


def shift(text: str, factor) -> str:
    """The canonical text of the certificate number ``text`` times ``factor`` (exact)."""
    return canonical_text(Fraction(text) * Fraction(factor))


#: A relative move far beyond the full-digit ends' distance to the truth (balls computed at 128 bits: their
#: ends lie within about 10^-38 of it relatively).
TINY = Fraction(1, 10**30)
#: A relative move beyond the rounding of the lemmas built on I (17-18 digits: at most 10^-16 relatively).
PAST_ROUNDING = Fraction(1, 10**15)

#: {the lemma coqc must stop in: (claim, component, field, new text from the old)}: one forgery per claim,
#: each end moved past the truth (a lower end up, an upper end down, an exact value changed). Each file
#: costs coqc 2-5 s (those built on I prove I's enclosure by integral first).
FORGERIES = {
    "hitting_time_gradient_a_lo_17_digits": ("hitting_time_gradient", "a", "lo", lambda x: shift(x, 1 + PAST_ROUNDING)),
    "event_speed_hi": ("event_speed", None, "hi", lambda x: shift(x, 1 + TINY)),  # hi < 0: more negative
    "regional_derivative_s_s_hi_18_digits": ("regional_derivative", "s_s", "hi",
                                             lambda x: shift(x, 1 - PAST_ROUNDING)),
    "terminal_map_derivative_b_a_lo": ("terminal_map_derivative", "b_a", "lo",
                                       lambda x: shift(x, 1 - TINY)),  # lo < 0: less negative
    "saltation_matrix_s_s": ("saltation_matrix", "s_s", "exact", lambda x: "1"),
    "sensitivity_gap_lo_18_digits": ("sensitivity_gap", None, "lo", lambda x: shift(x, 1 + PAST_ROUNDING)),
    "gap_rank": ("gap_rank", None, "exact", lambda x: "2"),
}


def forged(lemma: str) -> dict:
    claim, component, field, change = FORGERIES[lemma]
    document = library(5, keep=[claim])
    node = document["claims"][claim] if component is None else document["claims"][claim]["components"][component]
    node[field] = change(node[field])
    return document


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{name: (text, TextResult)}: every forgery's file, batched (coqtext.compile_texts), with the lemmas the
    forgery left unchanged admitted (coqtext.admit_unchanged): the library files themselves are compiled once, by
    tests/test_coq_library.py."""
    folder = tmp_path_factory.mktemp("coq_sensitivity")
    texts = {f"forged_{lemma}": admit_unchanged(coq_file(forged(lemma)).text,
                                                coq_file(library(5, keep=[FORGERIES[lemma][0]])).text)
             for lemma in FORGERIES}
    results = compile_texts(folder, texts, timeout=300)
    return {name: (texts[name], results[name]) for name in texts}


def test_library_file_states_primality_and_the_enclosure_of_I():
    text = coq_file(library(5)).text
    assert "Lemma p_is_prime : prime 5." in text and "Lemma sensitivity_I_enclosure :" in text


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_forged_end_is_rejected_in_its_lemma(compiled, lemma):
    text, result = compiled[f"forged_{lemma}"]
    assert lemma in lemma_names(text), "the forged lemma is not in the file: the forgery tests nothing"
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma][:3]}"
    assert failing_lemma(text, result) == lemma, result.message


def test_every_claim_is_forged_once():
    assert sorted({claim for claim, *_ in FORGERIES.values()}) == sorted(library(5)["claims"])


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_every_claim_is_exported_with_at_least_12_digits(p):
    document = library(p)
    items = sensitivity_obligations(document)
    assert not [item for item in items if isinstance(item, NotExported)]
    coq = coq_file(document)
    assert coq.not_exported == ()
    assert escape_hatches(coq.text) == []
    names = [item.name for item in items if isinstance(item, Lemma)]
    assert len(names) == len(set(names))
    for claim in document["claims"]:
        assert any(name == claim or name.startswith(claim + "_") for name in names), claim
    # only the quantities built on I are weakened, each to at least 12 digits (17-18 measured)
    weakened = {item.name: item.digits for item in items if isinstance(item, Lemma) and item.digits is not None}
    assert weakened and min(weakened.values()) >= 12
    assert {name.split("_")[0] for name in weakened} == {"hitting", "regional", "sensitivity"}
    assert not [name for name in weakened if re.match(r"regional_derivative_[ab]_", name)]
    # every sign a claim states is a lemma of its own, about the real quantity, in full
    for name in ("event_speed_negative", "event_speed_hi_negative", "sensitivity_gap_positive",
                 "sensitivity_gap_lo_positive", "gap_rank_speed_negative", "gap_rank_gradient_s_positive"):
        assert name in names and name not in weakened


def test_statements_use_the_certificate_numbers():
    """Full-digit ends are the certificate's texts, written exactly; a weakened end lies outside the
    certificate's own, within 10^-(k-1) relatively (rounded outward at k digits)."""
    document = library(13)
    text = coq_file(document).text
    claims = document["claims"]
    q = Fraction(claims["event_speed"]["lo"])
    assert f"Lemma event_speed_lo :\n  (- ({-q.numerator} / {q.denominator})) <= " in text
    q = Fraction(claims["terminal_map_derivative"]["components"]["a_s"]["hi"])
    assert re.search(rf"Lemma terminal_map_derivative_a_s_hi :\n  .* <= \({q.numerator} / {q.denominator}\)\.\n", text)
    match = re.search(r"Lemma hitting_time_gradient_s_lo_(\d+)_digits :\n  \((\d+) / (\d+)\) <=", text)
    k, lo = int(match.group(1)), Fraction(int(match.group(2)), int(match.group(3)))
    stored = Fraction(claims["hitting_time_gradient"]["components"]["s"]["lo"])
    assert lo <= stored and (stored - lo) / stored < Fraction(1, 10 ** (k - 1))
