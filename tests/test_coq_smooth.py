"""certify.coq.smooth: the Coq lemmas of smooth certificates (Theorem A.3) compile, forged bounds are
refused by coqc, every claim but gaussian_probability is covered, and no escape hatch is written.

The files compiled here come from :func:`certify.coq.export.coq_file` on library certificates with the
claim ``gaussian_probability`` removed (certify.coq.gaussian covers it and its tests compile it). A forged
certificate keeps the forged claim only (and dead_zone_integral, which the claims computed from J need),
so that its file fails in the forged lemma or in none. coqc is required: these tests fail when it is missing.

J(smax) = int_0^smax sigma_eps/sigma_eps' ds (sigma_eps defined from f and psi, sigma_eps' by Derive) is
proved to about 13 significant digits only (CoqInterval's ``integral``) in an enclosure whose ends the
exporter chooses, and the claims computed from J to 10-12 through that enclosure; a forgery of those moves
an end by 10^-6 relatively, far past what is proved. Widening the certificate's own J changes nothing downstream
(the reviewer's forgery: J widened to 5 digits and g_condition.lo raised by 2e-4 relatively). The base
point is tied to the parameters: moving w.at_0 alone is refused.
"""

import re
from decimal import Decimal
from fractions import Fraction

import pytest

from certify.coq.export import SHARED_CLAIMS
from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.smooth import J_DIGITS, smooth_obligations
from certify.coq.terms import real
from certify.kernel.exact import canonical_text
from conftest import ROOT
from coqtext import compile_texts, escape_hatches, failing_lemma, strip_comments, with_admitted

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "smooth").glob("smooth-*.json")}


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


J_TERM = "(smooth_J 2 (1 + 2 * (247 / 1000)))"
TINY, SMALL = Fraction(1, 10**30), Fraction(1, 10**6)
#: (claim, end, new text from the old, the lemma coqc must stop in). Every new end lies past the truth.
FORGERIES = {
    f"dead_zone_integral_{J_DIGITS}_digits": ("dead_zone_integral", "lo", lambda x: shift(x, 1 + Fraction(1, 10**8))),
    "purity_gap_box_lo_13_digits": ("purity_gap_box", "lo", lambda x: shift(x, 1 + SMALL)),
    "single_active_gate_lo_positive": ("single_active_gate", "lo", lambda x: shift(x, -1)),
    "terminal_fourier_fraction_value": ("terminal_fourier_fraction", "exact", lambda x: shift(x, 1 + TINY)),
}


#: The reviewer's widened (still true) J at p = 13: 5 digits instead of 45.
WIDE_J = {"lo": "0.372887011592", "hi": "0.372894469408"}


def forged(lemma: str) -> dict:
    claim, end, change = FORGERIES[lemma]
    document = library(13, keep=sorted({claim, "dead_zone_integral"} if claim in (
        "g_condition", "purity_gap_box", "terminal_displacement_box") else {claim}))
    document["claims"][claim][end] = change(document["claims"][claim][end])
    return document


def wide_J_forgery() -> dict:
    """The reviewer's forgery: J widened (still true) and g_condition.lo raised by 2e-4 relatively."""
    document = library(13, keep=["dead_zone_integral", "g_condition"])
    document["claims"]["dead_zone_integral"].update(WIDE_J)
    document["claims"]["g_condition"]["lo"] = shift(document["claims"]["g_condition"]["lo"], 1 + Fraction(2, 10**4))
    return document


def base_point_forgery() -> dict:
    """w.at_0 moved (and nothing else): the box lemmas would speak of another point than the parameters'."""
    document = library(13, keep=["single_active_gate", "terminal_fourier_fraction"])
    document["base_point"]["w"]["at_0"] = shift(document["base_point"]["w"]["at_0"], Fraction(101, 100))
    return document


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{name: (text, TextResult)}: every forgery's file (batched: coqtext.compile_texts). The library files themselves
    are compiled by tests/test_coq_library.py (and checked there to be the exports of the certificates)."""
    folder = tmp_path_factory.mktemp("coq_smooth")
    # the slowest first (a refused integral runs out of fuel: about 30 s), so the two workers end together
    texts = {f"forged_{lemma}": coq_file(forged(lemma)).text for lemma in FORGERIES}
    texts["forged_wide_J"] = coq_file(wide_J_forgery()).text
    texts["forged_base_point"] = coq_file(base_point_forgery()).text
    # J's enclosure (the same lemma as the library's, proved there) admitted: each file its own claim's refusal
    honest = coq_file(library(13)).text
    texts = {name: with_admitted(text, honest) for name, text in texts.items()}
    results = compile_texts(folder, texts, timeout=180)
    return {name: (texts[name], results[name]) for name in texts}


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_forged_bound_is_rejected_in_its_lemma(compiled, lemma):
    text, result = compiled[f"forged_{lemma}"]
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma][0]}.{FORGERIES[lemma][1]}"
    assert failing_lemma(text, result) == lemma, result.message


def test_wide_J_and_raised_g_condition_is_rejected(compiled):
    """Widening the certificate's J does not weaken g_condition: its lemma has the honest file's digits
    (it goes through smooth_J_enclosure, not the certificate's J), and coqc refuses the raised lo."""
    text, result = compiled["forged_wide_J"]
    honest = {item.name for item in smooth_obligations(library(13)) if isinstance(item, Lemma)}
    names = [item.name for item in smooth_obligations(wide_J_forgery()) if isinstance(item, Lemma)]
    g_lemma = [name for name in names if name.startswith("g_condition_lo_") and name.endswith("_digits")]
    assert len(g_lemma) == 1 and g_lemma[0] in honest, names
    assert int(g_lemma[0].split("_")[3]) >= 12
    # the certificate's own (short) J ends lie outside the enclosure: stated as they are, in full
    assert "dead_zone_integral_lo_hi" in names and f"dead_zone_integral_{J_DIGITS}_digits" not in names
    assert not result.ok, "coqc accepted g_condition.lo raised by 2e-4 behind a widened J"
    assert failing_lemma(text, result) == g_lemma[0], result.message


def test_moved_base_point_is_rejected(compiled):
    text, result = compiled["forged_base_point"]
    assert not result.ok, "coqc accepted a base point that is not (A.48)-(A.49) of the parameters"
    assert failing_lemma(text, result) == "base_point_w_at_0", result.message


def test_J_claims_do_not_depend_on_the_certificate_J():
    """The statements of g_condition, purity_gap_box and terminal_displacement_box, and the enclosure they
    use, are the same whatever the certificate says about J (honest, widened, or absent)."""
    def downstream(document):
        return {item.name: item.statement for item in smooth_obligations(document) if isinstance(item, Lemma)
                and (item.claim in ("g_condition", "purity_gap_box", "terminal_displacement_box")
                     or item.name == "smooth_J_enclosure")}

    honest = library(13)
    wide = library(13)
    wide["claims"]["dead_zone_integral"].update(WIDE_J)
    absent = library(13)
    del absent["claims"]["dead_zone_integral"]
    assert downstream(honest) == downstream(wide) == downstream(absent)
    assert len(downstream(honest)) == 8


def test_dead_zone_digits_in_the_name_are_true():
    """dead_zone_integral's lemma says J_DIGITS_digits only when an end is rounded (to exactly J_DIGITS significant
    digits); ends outside the enclosure are stated as the certificate writes them."""
    def lemma(lo, hi):
        document = library(13, keep=["dead_zone_integral"])
        document["claims"]["dead_zone_integral"].update(lo=lo, hi=hi)
        found = [item for item in smooth_obligations(document)
                 if isinstance(item, Lemma) and item.claim == "dead_zone_integral" and item.fields]
        assert len(found) == 1
        return found[0]

    short = lemma("0.3728", "0.373")
    assert short.name == "dead_zone_integral_lo_hi" and short.digits is None
    assert short.statement == f"{real(Fraction('0.3728'))} <= {J_TERM} <= {real(Fraction('0.373'))}"
    mixed = lemma("0.3728", library(13)["claims"]["dead_zone_integral"]["hi"])
    assert mixed.name == f"dead_zone_integral_{J_DIGITS}_digits" and mixed.digits == J_DIGITS == 15
    n, d = map(int, re.search(r"<= \((\d+) / (\d+)\)$", mixed.statement).groups())
    hi = Decimal(n) / Decimal(d)
    assert Decimal(n) / hi == d and len(hi.normalize().as_tuple().digits) <= J_DIGITS


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_every_claim_but_gaussian_is_covered(p):
    document = parse_certificate(LIBRARY[p].read_bytes())
    items = smooth_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))}
    # region_probability is the smooth exporter's own (certify.coq.region.smooth_region_lemmas); gaussian is shared
    assert covered == set(document["claims"]) - set(SHARED_CLAIMS) | {"base_point", "region_probability"}
    assert not [item for item in items if isinstance(item, NotExported)]
    lemmas = [item for item in items if isinstance(item, Lemma)]
    names = [item.name for item in lemmas]
    assert len(names) == len(set(names))
    # J and what is computed from it are weakened (and say so); everything else is in full
    weakened = {item.claim for item in lemmas if item.digits is not None}
    assert weakened == {"dead_zone_integral", "g_condition", "terminal_displacement_box", "purity_gap_box"}
    assert all(item.digits >= 12 for item in lemmas if item.digits is not None)
    # every sign the theorem rests on is a lemma of its own, in full, about the real quantity
    for name in ("base_point_u_at_0", "base_point_w_at_0", "base_point_w_elsewhere", "smooth_J_enclosure",
                 "single_active_gate_lo_positive", "g_condition_positive", "g_condition_lo_positive",
                 "purity_gap_box_positive", "purity_gap_box_lo_positive"):
        assert name in names and lemmas[names.index(name)].digits is None
    assert not any("gaussian" in item.claim for item in lemmas)


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_no_escape_hatch_and_every_claim_named(p):
    text = coq_file(library(p)).text
    assert not escape_hatches(text)
    code = strip_comments(text)
    for claim in library(p)["claims"]:
        assert re.search(rf"^Lemma {claim}_\w+ :", code, flags=re.M), claim
    assert "Not exported" not in text  # region_probability too (certify.coq.region.smooth_region_lemmas)


def test_statements_use_the_certificate_numbers():
    """The ends stated are the certificate's, rounded outward where weakened; J is the integral from 0 of
    sigma/sigma' at smax = epsilon + 2r, written from the parameters."""
    document = library(13)
    text = coq_file(document).text
    claims = document["claims"]
    match = re.search(r"Lemma dead_zone_integral_15_digits :\n  \((\d+) / (\d+)\) <= \(smooth_J 2 \(1 \+ 2 \* "
                      r"\(247 / 1000\)\)\) <= \((\d+) / (\d+)\)\.\n", text)
    assert match, "the J lemma"
    lo, hi = Fraction(int(match.group(1)), int(match.group(2))), Fraction(int(match.group(3)), int(match.group(4)))
    J_lo, J_hi = Fraction(claims["dead_zone_integral"]["lo"]), Fraction(claims["dead_zone_integral"]["hi"])
    assert lo <= J_lo < J_hi <= hi and hi - lo < J_lo / 10**12
    # the enclosure the claims computed from J use: the exporter's, proved by integral, about as narrow
    match = re.search(r"Lemma smooth_J_enclosure :\n  \((\d+) / (\d+)\) <= \(smooth_J 2 \(1 \+ 2 \* "
                      r"\(247 / 1000\)\)\) <= \((\d+) / (\d+)\)\.\nProof\.\n  unfold smooth_J\.", text)
    assert match, "the enclosure lemma"
    E_lo, E_hi = Fraction(int(match.group(1)), int(match.group(2))), Fraction(int(match.group(3)), int(match.group(4)))
    assert lo <= E_lo < J_lo < J_hi < E_hi <= hi and E_hi - E_lo < J_lo / 10**12
    assert "pose proof smooth_J_enclosure. lra." in text and "pose proof dead_zone_integral" not in text
    # the base point is (A.48)-(A.49) of the parameters
    assert "Lemma base_point_w_at_0 :\n  (-2) = - 2." in text
    assert "Definition smooth_J : R -> R -> R := fun e s0 => RInt (smooth_ratio e) 0 s0." in text
    # sigma/sigma' is written from the paper's f, psi and sigma_eps (A.1), with Coquelicot's Derive
    assert "Definition smooth_f : R -> R := fun t => if Rlt_dec 0 t then exp (- (1 / t)) else 0." in text
    assert "Definition smooth_sigma : R -> R -> R := fun e z => z * smooth_psi (z / e)." in text
    assert "fun e s => smooth_sigma e s / Derive (smooth_sigma e) s." in text
    lo = Fraction(claims["g_condition"]["lo"])
    assert f"Lemma g_condition_lo_positive :\n  0 < ({lo.numerator} / {lo.denominator})." in text
    q = Fraction(claims["single_active_gate"]["lo"])
    assert f"0 < ({q.numerator} / {q.denominator})" in text
