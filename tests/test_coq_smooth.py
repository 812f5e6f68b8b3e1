"""certify.coq.smooth: the Coq lemmas of smooth certificates (Theorem A.3) compile, forged bounds are
refused by coqc, every claim but gaussian_probability is covered, and no escape hatch is written.

The files compiled here come from :func:`certify.coq.export.coq_file` on library certificates with the
claim ``gaussian_probability`` removed (certify.coq.gaussian covers it and its tests compile it). A forged
certificate keeps the forged claim only (and dead_zone_integral, which the claims computed from J need),
so that its file fails in the forged lemma or in none. coqc is required: these tests fail when it is missing.

J(smax) = int_0^smax sigma_eps/sigma_eps' ds (sigma_eps defined from f and psi, sigma_eps' by Derive) is
proved to 11 significant digits only (CoqInterval's ``integral``), and the claims computed
from J to fewer; a forgery of those moves an end by 10^-6 relatively, far past what is proved.
"""

import re
from fractions import Fraction

import pytest

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.smooth import smooth_obligations
from certify.kernel.exact import canonical_text
from conftest import ROOT
from coqtext import compile_texts, escape_hatches, failing_lemma, strip_comments

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "smooth").glob("smooth-*.json")}
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


TINY, SMALL = Fraction(1, 10**30), Fraction(1, 10**6)
#: (claim, end, new text from the old, the lemma coqc must stop in). Every new end lies past the truth.
FORGERIES = {
    "dead_zone_integral_11_digits": ("dead_zone_integral", "lo", lambda x: shift(x, 1 + Fraction(1, 10**8))),
    "purity_gap_box_lo_10_digits": ("purity_gap_box", "lo", lambda x: shift(x, 1 + SMALL)),
    "single_active_gate_lo_positive": ("single_active_gate", "lo", lambda x: shift(x, -1)),
    "terminal_fourier_fraction_value": ("terminal_fourier_fraction", "exact", lambda x: shift(x, 1 + TINY)),
}


def forged(lemma: str) -> dict:
    claim, end, change = FORGERIES[lemma]
    document = library(13, keep=sorted({claim, "dead_zone_integral"} if claim in (
        "g_condition", "purity_gap_box", "terminal_displacement_box") else {claim}))
    document["claims"][claim][end] = change(document["claims"][claim][end])
    return document


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{name: (text, CompileResult)}: the library files of COMPILED and every forgery's file (two coqc at a time)."""
    folder = tmp_path_factory.mktemp("coq_smooth")
    # the slowest first (a refused integral runs out of fuel: about 30 s), so the two workers end together
    texts = {f"forged_{lemma}": coq_file(forged(lemma)).text for lemma in FORGERIES}
    texts.update({f"library_{p}": coq_file(library(p)).text for p in COMPILED})
    results = compile_texts(folder, texts, timeout=180)
    return {name: (texts[name], results[name]) for name in texts}


@pytest.mark.parametrize("p", COMPILED)
def test_library_files_compile(compiled, p):
    text, result = compiled[f"library_{p}"]
    assert result.ok, result.message
    assert f"Lemma p_is_prime : prime {p}." in text


@pytest.mark.parametrize("lemma", sorted(FORGERIES))
def test_forged_bound_is_rejected_in_its_lemma(compiled, lemma):
    text, result = compiled[f"forged_{lemma}"]
    assert not result.ok, f"coqc accepted a forged {FORGERIES[lemma][0]}.{FORGERIES[lemma][1]}"
    assert failing_lemma(text, result.message) == lemma, result.message


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_every_claim_but_gaussian_is_covered(p):
    document = parse_certificate(LIBRARY[p].read_bytes())
    items = smooth_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))}
    assert covered == set(document["claims"]) - {"gaussian_probability"}
    assert not [item for item in items if isinstance(item, NotExported)]
    lemmas = [item for item in items if isinstance(item, Lemma)]
    names = [item.name for item in lemmas]
    assert len(names) == len(set(names))
    # J and what is computed from it are weakened (and say so); everything else is in full
    weakened = {item.claim for item in lemmas if item.digits is not None}
    assert weakened == {"dead_zone_integral", "g_condition", "terminal_displacement_box", "purity_gap_box"}
    assert all(item.digits >= 7 for item in lemmas if item.digits is not None)
    # every sign the theorem rests on is a lemma of its own, in full, about the real quantity
    for name in ("single_active_gate_lo_positive", "g_condition_positive", "g_condition_lo_positive",
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


def test_statements_use_the_certificate_numbers():
    """The ends stated are the certificate's, rounded outward where weakened; J is the integral from 0 of
    sigma/sigma' at smax = epsilon + 2r, written from the parameters."""
    document = library(13)
    text = coq_file(document).text
    claims = document["claims"]
    match = re.search(r"Lemma dead_zone_integral_11_digits :\n  \((\d+) / (\d+)\) <= \(smooth_J 2 \(1 \+ 2 \* "
                      r"\(247 / 1000\)\)\) <= \((\d+) / (\d+)\)\.\n", text)
    assert match, "the J lemma"
    lo, hi = Fraction(int(match.group(1)), int(match.group(2))), Fraction(int(match.group(3)), int(match.group(4)))
    J_lo, J_hi = Fraction(claims["dead_zone_integral"]["lo"]), Fraction(claims["dead_zone_integral"]["hi"])
    assert lo <= J_lo < J_hi <= hi and hi - lo < J_lo / 10**9
    assert "Definition smooth_J : R -> R -> R := fun e s0 => RInt (smooth_ratio e) 0 s0." in text
    # sigma/sigma' is written from the paper's f, psi and sigma_eps (A.1), with Coquelicot's Derive
    assert "Definition smooth_f : R -> R := fun t => if Rlt_dec 0 t then exp (- (1 / t)) else 0." in text
    assert "Definition smooth_sigma : R -> R -> R := fun e z => z * smooth_psi (z / e)." in text
    assert "fun e s => smooth_sigma e s / Derive (smooth_sigma e) s." in text
    lo = Fraction(claims["g_condition"]["lo"])
    assert f"Lemma g_condition_lo_positive :\n  0 < ({lo.numerator} / {lo.denominator})." in text
    q = Fraction(claims["single_active_gate"]["lo"])
    assert f"0 < ({q.numerator} / {q.denominator})" in text
