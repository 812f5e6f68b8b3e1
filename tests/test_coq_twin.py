"""certify.coq.staircase (twin): the Coq lemmas of ``twin`` certificates (Proposition S2.2 on a box,
docs/staircase.md section 11.9) cover every claim, state the 12-digit weakenings the module documents, and coqc
refuses forged ends, each in its own lemma.

A forged certificate keeps only the forged claim (and loss_excess_box, whose stored end the window and capture
lemmas read as b_+), so that its file fails in the forged lemma or in none. The library files themselves are
compiled by tests/test_coq_library.py. coqc is required: these tests fail when it is missing.
"""

from fractions import Fraction

import pytest

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.staircase import TWIN_DIGITS, twin_obligations
from certify.kernel.exact import canonical_text
from conftest import ROOT
from coqtext import admit_unchanged, compile_texts, failing_lemma

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "twin").glob("twin-*.json")}


def library(p: int, keep=None) -> dict:
    document = parse_certificate(LIBRARY[p].read_bytes())
    if keep is not None:
        document["claims"] = {claim: document["claims"][claim] for claim in keep}
    return document


def test_the_library_has_the_eleven_primes():
    assert sorted(LIBRARY) == [5, 7, 11, 13, 17, 19, 23, 29, 31, 97, 101]


@pytest.mark.parametrize("p", [5, 31, 101])
def test_every_claim_is_stated_and_only_the_four_read_from_b_plus_are_weakened(p):
    document = library(p)
    items = twin_obligations(document)
    assert [item for item in items if isinstance(item, NotExported)] == []
    covered = {item.claim for item in items} - {"base_point"}
    assert covered == set(document["claims"]) - {"gaussian_probability"}  # certify.coq.gaussian states it
    weakened = {item.claim for item in items if isinstance(item, Lemma) and item.digits == TWIN_DIGITS}
    assert weakened == {"window_box", "capture_box", "capture_time_box"}


def scaled(text: str, factor) -> str:
    return canonical_text(Fraction(text) * Fraction(factor))


#: {the lemma coqc must stop in: (claim, component or None, end, factor)}: each end moved past the truth by a
#: relative 10^-9, beyond the 12-digit weakening (10^-11) and far beyond the ends' own rounding (10^-38).
FORGERIES = {
    "loss_excess_box_hi_z_high": ("loss_excess_box", None, "hi", 1 - Fraction(1, 10**9)),
    f"window_box_force_budget_lo_{TWIN_DIGITS}_digits": ("window_box", "force_budget", "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_growth_lo_{TWIN_DIGITS}_digits": ("capture_box", "growth", "lo", 1 + Fraction(1, 10**9)),
    f"capture_time_box_hi_{TWIN_DIGITS}_digits": ("capture_time_box", None, "hi", 1 - Fraction(1, 10**9)),
    "pattern_box_twin_difference_lo": ("pattern_box", "twin_difference", "lo", 1 + Fraction(1, 10**9)),
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coq_twin")
    texts = {}
    for lemma, (claim, component, end, factor) in FORGERIES.items():
        document = library(5, keep=sorted({claim, "loss_excess_box"}))
        node = document["claims"][claim]
        node = node["components"][component] if component else node
        node[end] = scaled(node[end], factor)
        texts[lemma] = admit_unchanged(coq_file(document).text,
                                       coq_file(library(5, keep=sorted({claim, "loss_excess_box"}))).text)
    texts["honest"] = coq_file(library(5, keep=["loss_excess_box", "capture_box"])).text
    results = compile_texts(folder, texts, timeout=180, likely_ok={"honest"})
    return {name: (texts[name], results[name]) for name in texts}


def test_the_honest_capture_lemmas_compile(compiled):
    text, result = compiled["honest"]
    assert result.ok, result.message


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_a_forged_end_is_refused_in_its_lemma(compiled, lemma):
    text, result = compiled[lemma]
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma]}"
    assert failing_lemma(text, result) == lemma, result.message
