"""certify.coq.region: the Coq lemmas of a dead certificate's ``region_probability`` claim (docs/coq.md, 'The dead
region in Coq').

The library files compile (tests/test_coq_library.py). Here: the numbers the exporter chooses checked against
independent oracles (the kernel's Arb enclosure of E[S], mpmath's erf and erfc at 60 digits), the digits the
claim's lemmas keep at every library prime, and a forged lo or log10_lo refused by coqc in its own lemma (the
slow honest lemmas admitted, coqtext.with_admitted: the library compilation proves them).
"""

from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma
from certify.coq.region import X0, RegionProof, dead_region_lemmas, region_proof
from certify.kernel.exact import canonical_text
from certify.kernel.region import expected_spacing_upper
from conftest import ROOT
from coqtext import compile_texts, failing_lemma, with_admitted

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "dead").glob("dead-*.json")}
CHECKED = (5, 13, 101)


def _mp(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def _polynomial(proof: RegionProof):
    """P + delta and P' at the working precision of the call (the coefficients converted there, exactly)."""
    def value(x):
        return mpmath.polyval([_mp(q) for q in proof.coefficients[::-1]], x) + _mp(proof.delta)

    def derivative(x):
        c = [_mp(q) for q in proof.coefficients]
        return mpmath.polyval([j * c[j] for j in range(len(c) - 1, 0, -1)], x)
    return value, derivative


def _lower(proof: RegionProof):
    P, _ = _polynomial(proof)
    return lambda x: mpmath.mpf(1) / 2 - mpmath.npdf(x) * P(x) - _mp(proof.eps) * x


@pytest.mark.parametrize("p", CHECKED)
def test_spacing_upper_bound_is_above_the_kernel_enclosure_and_within_1e_14(p):
    """U >= E[S] and U <= E[S] (1 + 10^-14), E[S] enclosed by the kernel's other route (acb.integral of
    (1 - erf(t / sqrt(2p))^2)^p, with its own tail bound): the Coq route loses at most 10^-14."""
    proof = region_proof(p)
    spacing = expected_spacing_upper(p, 128)
    U = proof.spacing_hi
    assert spacing.upper() <= U
    assert U <= spacing.lower() * (1 + fmpq(1, 10**14))


@pytest.mark.parametrize("p", CHECKED)
def test_the_lower_function_is_below_G_and_close_to_it(p):
    """Lo <= G = erf(x / sqrt 2) / 2 on [0, A] (what region_Lo_below_G proves), within 10^-16; P + delta within
    10^-16 of the Mills ratio erfc(x / sqrt 2) / (2 phi(x)); mpmath at 60 digits, 200 points."""
    proof = region_proof(p)
    Lo, (P, _) = _lower(proof), _polynomial(proof)
    with mpmath.workdps(60):
        for x in mpmath.linspace(0, _mp(proof.A), 200):
            G = mpmath.erf(x / mpmath.sqrt(2)) / 2
            assert Lo(x) <= G
            assert G - Lo(x) <= mpmath.mpf(10) ** -16
            assert abs(P(x) - mpmath.erfc(x / mpmath.sqrt(2)) / 2 / mpmath.npdf(x)) <= mpmath.mpf(10) ** -16


@pytest.mark.parametrize("p", CHECKED)
def test_the_residual_and_the_start_are_what_the_lemmas_state(p):
    """Lo(0) <= 0 and x (P + delta) - P' - 1 <= eta on 2000 points of [0, A] (interval proves it on the
    interval); eps = eta / 2."""
    proof = region_proof(p)
    P, dP = _polynomial(proof)
    with mpmath.workdps(60):
        assert _lower(proof)(0) <= 0
        assert max(x * P(x) - dP(x) - 1 for x in mpmath.linspace(0, _mp(proof.A), 2000)) <= _mp(proof.eta)
    assert proof.eps == proof.eta / 2


@pytest.mark.parametrize("p", CHECKED)
def test_tail_and_phibar_ends_sit_on_their_sides(p):
    """tail_hi >= 4 phi(A) (1 - 4 G(A)^2)^(p-1), at most 10^-14 of the integral; Phb <= Phibar(c_p U) within
    10^-14 (mpmath erfc)."""
    proof = region_proof(p)
    A = _mp(proof.A)
    with mpmath.workdps(60):
        k = 1 - mpmath.erf(A / mpmath.sqrt(2)) ** 2
        assert 4 * mpmath.npdf(A) * k ** (p - 1) <= _mp(proof.tail_hi)
        assert _mp(proof.tail_hi) <= mpmath.mpf(10) ** -14 * _mp(proof.integral_hi)
        z = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * _mp(proof.spacing_hi)
        phibar = mpmath.erfc(z / mpmath.sqrt(2)) / 2
        assert _mp(proof.phibar_lo) <= phibar <= _mp(proof.phibar_lo) * (1 + mpmath.mpf(10) ** -14)
    assert X0 == fmpq(1, 10**6)


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_the_claim_keeps_at_least_14_digits_at_every_library_prime(p):
    """lo and log10_lo are stated lowered by 4 s, s the route's loss: at least 14 digits, the stated lo within a
    relative 10^-13 below the certificate's, the log10 within 10^-13 below."""
    document = parse_certificate(LIBRARY[p].read_bytes())
    lemmas = {item.name: item for item in dead_region_lemmas(document) if isinstance(item, Lemma)}
    lo = next(item for name, item in lemmas.items() if name.startswith("region_probability_lo_") and item.digits)
    log10 = next(item for name, item in lemmas.items() if name.startswith("region_probability_log10_lo_") and item.digits)
    assert lo.digits >= 14 and log10.digits >= 14
    mantissa, exponent = lo.statement.split(" <= ")[0].split(" / 10 ^ ")
    stated = Fraction(int(mantissa), 10 ** int(exponent))
    certified = Fraction(document["claims"]["region_probability"]["lo"])
    assert certified * (1 - Fraction(1, 10**13)) <= stated <= certified


def test_the_file_is_deterministic():
    """The numbers are chosen once per process (memoised) and the same when chosen again."""
    first, second = RegionProof(7), RegionProof(7)
    assert vars(first) == vars(second)
    document = parse_certificate(LIBRARY[7].read_bytes())
    assert coq_file(document).text == coq_file(document).text


def test_a_claim_without_its_log10_twin_is_refused_not_half_stated():
    """A region_probability without log10_lo (not what the relation stores) raises, never states lo alone."""
    document = parse_certificate(LIBRARY[5].read_bytes())
    del document["claims"]["region_probability"]["log10_lo"]
    with pytest.raises(KeyError):
        dead_region_lemmas(document)


#: {forgery: (field, new text from the old, the lemma coqc must stop in)}: each moved past the truth by more
#: than the lemma's rounding (a relative 10^-10: the lemmas keep 14 digits or more).
FORGERIES = {
    "lo": lambda node: dict(node, lo=canonical_text(Fraction(node["lo"]) * (1 + Fraction(1, 10**10)))),
    "log10_lo": lambda node: dict(node, log10_lo=canonical_text(Fraction(node["log10_lo"]) + Fraction(1, 10**10))),
}


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{field: (text, CompileResult)}: the library certificate of p = 5 with only region_probability, the field
    forged, its twin kept consistent (a forged lo with a log10_lo that still pairs with it), compiled."""
    from certify.kernel.exact import parse_exact
    from certify.kernel.log10 import log10_enclosure, log10_lower_twin

    folder = tmp_path_factory.mktemp("coq_region")
    honest_document = parse_certificate(LIBRARY[5].read_bytes())
    honest_document["claims"] = {"region_probability": honest_document["claims"]["region_probability"]}
    honest = coq_file(honest_document).text
    texts = {}
    for field, change in FORGERIES.items():
        document = parse_certificate(LIBRARY[5].read_bytes())
        node = change(document["claims"]["region_probability"])
        if field == "lo":  # the twin of the forged lo, so that the pair lemma holds and the lo lemma is reached
            lo = parse_exact(node["lo"])
            node["log10_lo"] = canonical_text(log10_lower_twin(lo, log10_enclosure(lo, 200), 200))
        document["claims"] = {"region_probability": node}
        texts[field] = with_admitted(coq_file(document).text, honest)
    results = compile_texts(folder, texts, timeout=300)
    return {field: (texts[field], results[field]) for field in texts}


@pytest.mark.parametrize("field", sorted(FORGERIES))
def test_a_forged_end_is_refused_in_its_lemma(forged, field):
    text, result = forged[field]
    assert not result.ok, f"coqc accepted a forged region_probability.{field}"
    assert failing_lemma(text, result.message).startswith(f"region_probability_{field}_"), result.message
