"""certify.coq.dead: the Coq lemmas of dead certificates (Theorem 1.5 / A.2) compile, forged bounds are
refused by coqc, every claim but gaussian_probability is covered (region_probability by certify.coq.region,
tests/test_coq_region.py; region_purity_probability by certify.coq.region_purity, tests/test_coq_region_purity.py),
and no escape hatch is written.

The files compiled here come from :func:`certify.coq.export.coq_file` on library certificates with the
claim ``gaussian_probability`` removed (certify.coq.gaussian covers it, and its tests compile it), so they
hold the primality of p and this exporter's lemmas only. A forged certificate keeps only the forged claim,
so that its file fails in the forged lemma or in none. coqc is required: these tests fail when it is missing.
"""

import re
from fractions import Fraction

import pytest

from certify.certificate import parse_certificate
from certify.coq.dead import dead_obligations
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.kernel.exact import canonical_text
from conftest import ROOT
from coqtext import admit_unchanged, compile_texts, failing_lemma, strip_comments

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "dead").glob("dead-*.json")}
WORDS = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis", "Hypotheses",
         "Conjecture", "Variable", "Variables", "Context", "Abort")
COMPILED = (5, 13)


def library(p: int, keep=None) -> dict:
    """The library certificate of p without gaussian_probability (or with only the claims in ``keep``)."""
    document = parse_certificate(LIBRARY[p].read_bytes())
    del document["claims"]["gaussian_probability"]
    if keep is not None:
        document["claims"] = {claim: document["claims"][claim] for claim in keep}
    return document


def shift(text: str, factor) -> str:
    """The canonical text of the certificate number ``text`` times ``factor`` (exact)."""
    return canonical_text(Fraction(text) * Fraction(factor))


def plus(text: str, amount) -> str:
    return canonical_text(Fraction(text) + Fraction(amount))


TINY = Fraction(1, 10**30)
#: {the lemma coqc must stop in: (claim, end, new text from the old)}. Every new end lies past the truth:
#: the ends are within 10^-36 (relative) of it, the rational ends are the exact values. Each file costs
#: coqc a few seconds, so the list keeps about one forgery per kind of proof (interval, integral, lra,
#: field, a flipped sign) and leaves out the lemmas certify.coq.family writes.
FORGERIES = {
    "transversality_margin_lo": ("transversality_margin", "lo", lambda x: shift(x, 1 + TINY)),
    "transversality_margin_box_lo_positive": ("transversality_margin_box", "lo", lambda x: shift(x, -1)),
    "terminal_loss_hi": ("terminal_loss", "hi", lambda x: shift(x, 1 - TINY)),
    "terminal_w_displacement_box_hi": ("terminal_w_displacement_box", "hi", lambda x: shift(x, 1 - TINY)),
    "purity_gap_box_lo": ("purity_gap_box", "lo", lambda x: shift(x, 1 + TINY)),
    "hitting_time_box_hi": ("hitting_time_box", "hi", lambda x: shift(x, 1 - TINY)),
    "gamma_condition_lo": ("gamma_condition", "lo", lambda x: plus(x, Fraction(1, 10**40))),
    "balance_invariant_base_point": ("balance_invariant", "exact", lambda x: plus(x, Fraction(1, 10**40))),
    # the hitting time is proved to 15 digits only: a forgery must move an end by more than that (one
    # forgery only: integral spends all its fuel on a false bound, about 10 s)
    "hitting_time_lo_15_digits": ("hitting_time", "lo", lambda x: shift(x, 1 + Fraction(1, 10**12))),
}


def forged(lemma: str) -> dict:
    claim, end, change = FORGERIES[lemma]
    document = library(5, keep=[claim])
    document["claims"][claim][end] = change(document["claims"][claim][end])
    return document


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{name: (text, TextResult)}: every forgery's file, batched (coqtext.compile_texts), with the lemmas the
    forgery left unchanged admitted (coqtext.admit_unchanged): the library files themselves are compiled once, by
    tests/test_coq_library.py."""
    folder = tmp_path_factory.mktemp("coq_dead")
    texts = {f"forged_{lemma}": admit_unchanged(coq_file(forged(lemma)).text,
                                                coq_file(library(5, keep=[FORGERIES[lemma][0]])).text)
             for lemma in FORGERIES}
    results = compile_texts(folder, texts, timeout=120)
    return {name: (texts[name], results[name]) for name in texts}


@pytest.mark.parametrize("p", COMPILED)
def test_library_files_state_the_primality_of_p(p):
    assert f"Lemma p_is_prime : prime {p}." in coq_file(library(p)).text


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_forged_bound_is_rejected_in_its_lemma(compiled, lemma):
    text, result = compiled[f"forged_{lemma}"]
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma][0]}.{FORGERIES[lemma][1]}"
    assert failing_lemma(text, result) == lemma, result.message


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_every_claim_but_gaussian_is_covered(p):
    document = parse_certificate(LIBRARY[p].read_bytes())
    items = dead_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))} - {"base_point"}
    assert covered == set(document["claims"]) - {"gaussian_probability"}
    # every claim of the dead exporter has lemmas (region_probability certify.coq.region's, the purity claim
    # certify.coq.region_purity's: Markov tails above p = 50, radius tails below)
    assert [item.claim for item in items if isinstance(item, NotExported)] == []
    assert [item.claim for item in coq_file(document).not_exported] == []
    weakened = sorted(re.sub(r"_\d+_digits$", "", item.name) for item in items
                      if isinstance(item, Lemma) and item.digits is not None)
    # not_single_frequency is the dead route's Jensen chain (lowered by its slack); the margin is stated in full where
    # the route with radius tails exceeds the kernel's bound (p <= 23, tests/test_coq_region_purity.py)
    margin = ["purity_margin"] if p > 23 else []
    components = [f"region_purity_probability_{component}_{field}"
                  for component in ("not_single_frequency", *margin) for field in ("lo", "log10_lo")]
    assert weakened == ["hitting_time_hi", "hitting_time_lo", "region_probability_lo", "region_probability_log10_lo",
                        *components]
    names = [item.name for item in items if isinstance(item, Lemma)]
    assert len(names) == len(set(names))
    # every sign the theorem rests on is a lemma of its own, in full
    for name in ("hitting_time_positive", "gamma_condition_lo_positive", "hitting_time_box_lo_positive",
                 "transversality_margin_lo_positive", "transversality_margin_box_lo_positive",
                 "purity_gap_box_lo_positive", "single_active_gate_lo_positive"):
        assert name in names


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_no_escape_hatch_and_every_claim_named(p):
    text = coq_file(library(p)).text
    code = strip_comments(text)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", code))
    assert not words.intersection(WORDS)
    for claim in library(p)["claims"]:
        assert re.search(rf"^Lemma {claim}_\w+ :", code, flags=re.M), claim


def test_statements_use_the_certificate_numbers():
    """The ends stated are the certificate's texts, written exactly (1.25 as 5/4), never recomputed."""
    document = library(13)
    text = coq_file(document).text
    claims = document["claims"]
    q = Fraction(claims["transversality_margin"]["lo"])
    assert f"Lemma transversality_margin_lo :\n  ({q.numerator} / {q.denominator}) <= " in text
    q = Fraction(claims["hitting_time_box"]["lo"])
    assert f"Lemma hitting_time_box_lo :\n  ({q.numerator} / {q.denominator}) <= " in text
    # the weakened hitting-time ends: the certificate's rounded outward to 15 significant digits
    lo = re.search(r"Lemma hitting_time_lo_15_digits :\n  \((\d+) / (\d+)\) <=", text)
    hi = re.search(r"Lemma hitting_time_hi_15_digits :\n  .*<= \((\d+) / (\d+)\)\.\n", text)
    lo, hi = Fraction(int(lo.group(1)), int(lo.group(2))), Fraction(int(hi.group(1)), int(hi.group(2)))
    assert lo <= Fraction(claims["hitting_time"]["lo"]) < Fraction(claims["hitting_time"]["hi"]) <= hi
    assert hi - lo < Fraction(46) / 10**13
