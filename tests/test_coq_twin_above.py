"""certify.coq.staircase (twin_above): the Coq lemmas of ``twin_above`` certificates (Proposition S3.4 on a box,
docs/staircase.md sections 11.12-11.13) cover every claim, state the 12-digit weakenings the module documents (the
window, the five capture margins that read b_+, and delta_-; g_- and the capture time exactly), and coqc refuses
forged ends, each in its own lemma.

A forged certificate keeps only the forged claim (and loss_excess_box), so that its file fails in the forged lemma
or in none. The library files themselves are compiled by tests/test_coq_library.py. coqc is required: these tests
fail when it is missing.
"""

from fractions import Fraction

import pytest

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.staircase import TWIN_DIGITS, twin_above_obligations
from certify.kernel.exact import canonical_text
from certify.proofs import library_primes
from conftest import ROOT
from coqtext import admit_unchanged, compile_texts, failing_lemma

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "twin_above").glob("twin_above-*.json")}


def library(p: int, keep=None) -> dict:
    document = parse_certificate(LIBRARY[p].read_bytes())
    if keep is not None:
        document["claims"] = {claim: document["claims"][claim] for claim in keep}
    return document


def test_the_library_has_every_library_prime():
    assert tuple(sorted(LIBRARY)) == library_primes("twin_above") == (5, 7, 11, 13, 17, 19, 23, 29, 31, 97, 101)


@pytest.mark.parametrize("p", [5, 31])
def test_every_claim_is_stated_and_only_the_three_read_from_b_plus_are_weakened(p):
    document = library(p)
    items = twin_above_obligations(document)
    assert [item for item in items if isinstance(item, NotExported)] == []
    covered = {item.claim for item in items} - {"base_point"}
    assert covered == set(document["claims"]) - {"gaussian_probability"}  # certify.coq.gaussian states it
    weakened = {item.name for item in items if isinstance(item, Lemma) and item.digits == TWIN_DIGITS}
    assert weakened == {f"{name}_{TWIN_DIGITS}_digits" for name in (
        "window_box_lo_log", "window_box_lo_rho", "capture_box_reach_lo", "capture_box_rate_lo",
        "capture_box_difference_floor_lo", "capture_box_cone_lo", "capture_box_race_lo", "purity_margin_box_lo")}
    assert {item.claim for item in items if isinstance(item, Lemma) and item.digits == TWIN_DIGITS} \
        == {"window_box", "capture_box", "purity_margin_box"}
    # the exact ones: g_- (lra), the capture time (lra), the eight ends of b_+ and the pattern
    exact = {item.name for item in items if isinstance(item, Lemma) and item.digits is None and "hi" in item.fields}
    assert {"capture_time_box_hi"} | {f"loss_excess_box_hi_{a}_{b}_{z}" for a in ("a_low", "a_high")
                                      for b in ("b_low", "b_high") for z in ("z_low", "z_high")} == exact
    assert any(item.name == "capture_box_gamma_floor_lo" and item.digits is None for item in items)


def scaled(text: str, factor) -> str:
    return canonical_text(Fraction(text) * Fraction(factor))


#: {the lemma coqc must stop in: (claim, component or None, end, factor)}: each end moved past the truth by a
#: relative 10^-9, beyond the 12-digit weakening (10^-11) and far beyond the ends' own rounding (10^-38); the ends
#: stated exactly (g_-, the capture time: rationals, whose stored ends are within 10^-38 of them) by a relative
#: 10^-30.
FORGERIES = {
    # b_+ at p = 5 is the end a = b = -r, z01 = s - 2r (0.179482539...); the next largest end, a = +r, b = -r,
    # z01 = s - 2r, is 0.23% below it, so a hi lowered by 10^-9 fails there alone
    "loss_excess_box_hi_a_low_b_low_z_low": ("loss_excess_box", None, "hi", 1 - Fraction(1, 10**9)),
    # at p = 5 the window is log(p/4) - b_+ = 0.0437 (log(5/4) < 2/((p - 1) rho_+)): a forged end fails there
    f"window_box_lo_log_{TWIN_DIGITS}_digits": ("window_box", None, "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_race_lo_{TWIN_DIGITS}_digits": ("capture_box", "race", "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_rate_lo_{TWIN_DIGITS}_digits": ("capture_box", "rate", "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_reach_lo_{TWIN_DIGITS}_digits": ("capture_box", "reach", "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_cone_lo_{TWIN_DIGITS}_digits": ("capture_box", "cone", "lo", 1 + Fraction(1, 10**9)),
    f"capture_box_difference_floor_lo_{TWIN_DIGITS}_digits": ("capture_box", "difference_floor", "lo",
                                                              1 + Fraction(1, 10**9)),
    "capture_box_gamma_floor_lo": ("capture_box", "gamma_floor", "lo", 1 + Fraction(1, 10**30)),
    "capture_time_box_hi": ("capture_time_box", None, "hi", 1 - Fraction(1, 10**30)),
    f"purity_margin_box_lo_{TWIN_DIGITS}_digits": ("purity_margin_box", None, "lo", 1 + Fraction(1, 10**9)),
    "pattern_box_gate_order_lo": ("pattern_box", "gate_order", "lo", 1 + Fraction(1, 10**9)),
    "pattern_box_gate_11_lo": ("pattern_box", "gate_11", "lo", 1 + Fraction(1, 10**9)),
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coq_twin_above")
    texts = {}
    for lemma, (claim, component, end, factor) in FORGERIES.items():
        document = library(5, keep=sorted({claim, "loss_excess_box"}))
        node = document["claims"][claim]
        node = node["components"][component] if component else node
        node[end] = scaled(node[end], factor)
        texts[lemma] = admit_unchanged(coq_file(document).text,
                                       coq_file(library(5, keep=sorted({claim, "loss_excess_box"}))).text)
    results = compile_texts(folder, texts, timeout=180)
    return {name: (texts[name], results[name]) for name in texts}


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_a_forged_end_is_refused_in_its_lemma(compiled, lemma):
    text, result = compiled[lemma]
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma]}"
    assert failing_lemma(text, result) == lemma, result.message
