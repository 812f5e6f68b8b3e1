"""certify.coq.region: the Coq lemmas of a dead certificate's ``region_probability`` claim (docs/coq.md, 'The dead
region in Coq').

The library files compile (tests/test_coq_library.py). Here: the numbers the exporter chooses checked against
independent oracles (the kernel's Arb enclosure of E[S], mpmath's erf and erfc at 60 digits), the digits the
claim's lemmas keep at every library prime, and a forged lo or log10_lo refused by coqc in its own lemma (the
slow honest lemmas admitted, coqtext.with_admitted: the library compilation proves them).
"""

import re
from fractions import Fraction

import mpmath
import pytest
from flint import arb, fmpq

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma
from certify.coq.region import X0, RegionProof, dead_region_lemmas, region_proof
from certify.coq.terms import real
from certify.kernel.region import expected_spacing_upper
from conftest import ROOT
from coqtext import compiled_region_forgeries, failing_lemma, region_only

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
    """lo and log10_lo are stated lowered by 4 s, s the route's loss (about 2 10^-15): at least 14 digits, the
    stated lo within a relative 3 10^-14 below the certificate's (4 s plus the rounding), the log10 within
    3 10^-14 below; and the claim lemmas name the bound E of E[S] (a Definition of real quantities), never
    the exporter's U or Phb."""
    document = parse_certificate(LIBRARY[p].read_bytes())
    lemmas = {item.name: item for item in dead_region_lemmas(document) if isinstance(item, Lemma)}
    lo = next(item for name, item in lemmas.items() if name.startswith("region_probability_lo_") and item.digits)
    log10 = next(item for name, item in lemmas.items() if name.startswith("region_probability_log10_lo_") and item.digits)
    assert lo.digits >= 14 and log10.digits >= 14
    mantissa, exponent = lo.statement.split(" <= ")[0].split(" / 10 ^ ")
    stated = Fraction(int(mantissa), 10 ** int(exponent))
    certified = Fraction(document["claims"]["region_probability"]["lo"])
    assert certified * (1 - Fraction(3, 10**14)) <= stated <= certified
    numerator, denominator = log10.statement.split(" <= ")[0].replace("(", "").replace(")", "").replace("- ", "-") \
        .split(" / ")  # "(- (n / d))"
    stated_log10 = Fraction(int(numerator), int(denominator))
    certified_log10 = Fraction(document["claims"]["region_probability"]["log10_lo"])
    assert certified_log10 - Fraction(3, 10**14) <= stated_log10 <= certified_log10
    proof = region_proof(p)
    for lemma in (lo, log10):
        assert "region_spacing_bound" in lemma.statement
        for chosen in (proof.spacing_hi, proof.phibar_lo):
            assert real(chosen) not in lemma.statement

def test_the_file_is_deterministic():
    """The numbers are chosen once per process (memoised) and the same when chosen again."""
    first, second = RegionProof(7), RegionProof(7)
    assert vars(first) == vars(second)
    document = parse_certificate(LIBRARY[7].read_bytes())
    assert coq_file(document).text == coq_file(document).text


def test_a_claim_without_its_log10_twin_is_refused_not_half_stated():
    """A region_probability without log10_lo (not what the relation stores) raises the ValueError that lists the claim
    as not exported (as the slide and gd routes do), never states lo alone."""
    document = parse_certificate(LIBRARY[5].read_bytes())
    del document["claims"]["region_probability"]["log10_lo"]
    with pytest.raises(ValueError, match="log10 twin"):
        dead_region_lemmas(document)


def _kernel_bound_upper(p: int) -> tuple[Fraction, Fraction]:
    """Upper ends of the kernel's bound of P(R_dead | active) and of its log10, before the claim rounds its log
    down onto the 2^-40 grid (certify.kernel.region.stated_log_lower): the certificate's lo lies up to a
    relative 2^-40 ~ 9 10^-13 below this, so a forgery must start from here to be false."""
    from certify.kernel.balls import upper_endpoint, working_precision
    from certify.kernel.region import REGION_PRECISION, dead_region_log_probability_lower

    log_bound = dead_region_log_probability_lower(p, REGION_PRECISION)
    with working_precision(200):
        return tuple(Fraction(str(upper_endpoint(x))) for x in (log_bound.exp(), log_bound / arb(10).log()))


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{field: (text, TextResult)}: the library certificate of p = 5 with only region_probability, the field
    forged (coqtext.compiled_region_forgeries). Each is moved past the truth (the kernel's unrounded bound; the Coq
    route's bound lies below it) by a little more than what the lemma may lose: lo by a relative 10^-13 (the
    lemma's slack is 4 s plus one unit of 15 digits, under 3 10^-14), log10_lo by 10^-13 (its slack is 4 s / ln 10
    plus one unit, under 2 10^-14)."""
    document = region_only(LIBRARY[5])
    lo_bound, log10_bound = _kernel_bound_upper(5)
    return compiled_region_forgeries(tmp_path_factory.mktemp("coq_region"), document,
                                     lo_bound * (1 + Fraction(1, 10**13)), log10_bound + Fraction(1, 10**13))


@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_end_is_refused_in_its_lemma(forged, field):
    text, result = forged[field]
    assert not result.ok, f"coqc accepted a forged region_probability.{field}"
    assert re.fullmatch(rf"region_probability_{field}(_\d+_digits)?", failing_lemma(text, result) or ""), \
        result.message
