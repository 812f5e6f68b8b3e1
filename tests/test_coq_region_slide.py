"""certify.coq.region_slide: the Coq lemmas of a slide certificate's ``region_probability`` claim (docs/coq.md,
'The slide region in Coq').

The library files compile (tests/test_coq_library.py). Here: the numbers the exporter chooses checked against
independent oracles (mpmath's erf, erfc and quad at 40-60 digits, and the kernel's lower sum), the digits the
claim's lemmas keep at every library prime, and a forged lo or log10_lo (past the exact right-hand side the
lemmas state, computed here with mpmath) refused by coqc in its own lemma (the other lemmas admitted,
coqtext.with_admitted: the library compilation proves them).
"""

import re
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.region_slide import (END_GAP, MANTISSA_SLACK, WINDOW_MARGIN, SlideRegionProof, slide_region_lemmas,
                                      slide_region_proof)
from conftest import ROOT
from coqtext import failing_lemma, region_forgeries_past, region_only

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "slide").glob("slide-*.json")}
CHECKED = (5, 13, 101)
ONE = fmpq(1)


def _mp(q) -> mpmath.mpf:
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _sci(pair) -> mpmath.mpf:
    return mpmath.mpf(pair[0]) / mpmath.mpf(10) ** pair[1]


def _tail(y, B):
    """int_y^B phi by erfc differences (erfc(B/sqrt 2) < 10^-20 relatively: B is b + 8)."""
    return (mpmath.erfc(y / mpmath.sqrt(2)) - mpmath.erfc(B / mpmath.sqrt(2))) / 2


def _lower(proof: SlideRegionProof):
    """L(y) = phi(y) Q(y), with Q in s = (y - t/2)/W, at the working precision of the call."""
    c = [_mp(q) for q in proof.coefficients]
    m, W = _mp(proof.m), _mp(proof.W)

    def Q(y):
        return mpmath.polyval(c[::-1], (y - m) / W)

    def dQ(y):
        return mpmath.polyval([j * c[j] for j in range(len(c) - 1, 0, -1)], (y - m) / W) / W
    return Q, dQ


@pytest.mark.parametrize("p", CHECKED)
def test_L_is_below_the_tail_integral_and_close_to_it(p):
    """L <= int_y^B phi on 300 points of [a, b] (what region_slide_L_below_phibar proves) and within a relative
    10^-4 of it (the route's accuracy: RESIDUAL_TARGET 10^-6, Q shrunk by ten times the residual); the residual y Q - Q' - 1 is <= 0 on 2000 points (what interval proves
    on the interval, for negative y too); B = b + 8, and the window's arguments -x and x + t stay in [a, b]."""
    proof = slide_region_proof(p, ONE)
    Q, dQ = _lower(proof)
    a, b, B = _mp(proof.a), _mp(proof.b), _mp(proof.B)
    assert proof.B == proof.b + 8
    assert proof.a + proof.b == proof.t  # x in [-t/2 - W, -t/2 + W]: -x and x + t both in [a, b]
    with mpmath.workdps(60):
        for y in mpmath.linspace(a, b, 300):
            L, tail = mpmath.npdf(y) * Q(y), _tail(y, B)
            assert 0 <= L <= tail
            assert tail - L <= mpmath.mpf(10) ** -4 * tail
        for y in mpmath.linspace(a, b, 2000):
            assert y * Q(y) - dQ(y) - 1 <= 0


@pytest.mark.parametrize("p", CHECKED)
def test_the_integral_ends_sit_on_their_sides(p):
    """anchor_lo <= int_b^B phi, spread_lo <= erf(r / (2 sqrt 2)), tail_lo <= int_z^B2 phi, each within 2 END_GAP;
    survival_lo <= the window's integral of the closed form (mpmath quad) and above WINDOW_MARGIN times the
    kernel's lower sum of P(S > t) / C(2p, p)."""
    from certify.kernel.region_slide import spacing_survival_log_lower

    proof = slide_region_proof(p, ONE)
    Q, _ = _lower(proof)
    close = 2 * END_GAP
    with mpmath.workdps(60):
        anchor = _tail(_mp(proof.b), _mp(proof.B))
        assert anchor * (1 - close) <= _mp(proof.anchor_lo) <= anchor
        r = (p - 1) * _mp(proof.delta_g) / (p - 2)
        spread = mpmath.erf(r / (2 * mpmath.sqrt(2)))
        assert spread * (1 - close) <= _mp(proof.spread_lo) <= spread
        z = mpmath.sqrt(p * (p - 1)) * (_mp(proof.g) + _mp(proof.delta_g))
        tail = _tail(z, _mp(proof.B2))
        assert tail * (1 - close) <= _sci(proof.tail_lo) <= tail
        t, m, W = _mp(proof.t), _mp(proof.m), _mp(proof.W)
        L = lambda y: mpmath.npdf(y) * Q(y)  # noqa: E731
        closed = mpmath.quad(lambda x: p * L(-x) ** (p - 1) * mpmath.npdf(x) * L(x + t) ** p, [-m - W, -m, -m + W])
        assert _sci(proof.survival_lo) <= closed
        kernel = spacing_survival_log_lower(p, proof.t, 128)
        kernel_s = mpmath.exp(mpmath.mpf(kernel.str(30, radius=False)) - mpmath.log(mpmath.binomial(2 * p, p)))
        assert _sci(proof.survival_lo) >= WINDOW_MARGIN * kernel_s


def _right_hand_side(proof: SlideRegionProof) -> mpmath.mpf:
    """The exact quantity the claim lemmas bound lo by: C/(C - 1) S (2 G(r/2))^n int_z^B2 phi, S the window's
    integral of p Phibar_B(-x)^(p-1) phi(x) Phibar_B(x + t)^p, Phibar_B(y) = int_y^B phi (mpmath, 40 digits)."""
    p = proof.p
    with mpmath.workdps(40):
        t, m, W, B = _mp(proof.t), _mp(proof.m), _mp(proof.W), _mp(proof.B)
        S = mpmath.quad(lambda x: p * _tail(-x, B) ** (p - 1) * mpmath.npdf(x) * _tail(x + t, B) ** p,
                        [-m - W, -m, -m + W])
        r = (p - 1) * _mp(proof.delta_g) / (p - 2)
        z = mpmath.sqrt(p * (p - 1)) * (_mp(proof.g) + _mp(proof.delta_g))
        C = mpmath.binomial(2 * p, p)
        return C / (C - 1) * S * mpmath.erf(r / (2 * mpmath.sqrt(2))) ** (p - 1) * _tail(z, _mp(proof.B2))


@pytest.mark.parametrize("p", CHECKED)
def test_the_route_reaches_the_certificate_and_the_right_hand_side_exceeds_it(p):
    """What the lemmas prove, C/(C-1) S_lo E_lo^n T_lo, is at least the certificate's lo, and the exact right-hand
    side is at least that (mpmath): the route is complete for the honest lo and sound."""
    proof = slide_region_proof(p, ONE)
    document = parse_certificate(LIBRARY[p].read_bytes())
    lo = mpmath.mpf(Fraction(document["claims"]["region_probability"]["lo"]).numerator) / \
        Fraction(document["claims"]["region_probability"]["lo"]).denominator
    with mpmath.workdps(40):
        C = mpmath.binomial(2 * p, p)
        proved = C / (C - 1) * _sci(proof.survival_lo) * _mp(proof.spread_lo) ** (p - 1) * _sci(proof.tail_lo)
        assert lo <= proved <= _right_hand_side(proof)


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_the_claim_keeps_at_least_15_digits_at_every_library_prime(p):
    """lo and log10_lo are stated lowered by 4 s, s = MANTISSA_SLACK (10^-15), then rounded down: at least 15
    digits, the stated lo within a relative 10^-13 below the certificate's, the log10 within 10^-13; the claim
    lemmas name the window's integral (a Definition of real quantities), never the exporter's numbers."""
    document = parse_certificate(LIBRARY[p].read_bytes())
    lemmas = {item.name: item for item in slide_region_lemmas(document) if isinstance(item, Lemma)}
    lo = next(item for name, item in lemmas.items() if name.startswith("region_probability_lo_") and item.digits)
    log10 = next(item for name, item in lemmas.items() if name.startswith("region_probability_log10_lo_") and item.digits)
    assert lo.digits >= 15 and log10.digits >= 15
    mantissa, exponent = lo.statement.split(" <= ")[0].removeprefix("ln ").split(" - ")
    stated = Fraction(int(mantissa), 10 ** int(exponent.split(" * ")[0]))
    certified = Fraction(document["claims"]["region_probability"]["lo"])
    assert certified * (1 - Fraction(1, 10**13)) <= stated <= certified
    numerator, denominator = log10.statement.split(" <= ")[0].replace("(", "").replace(")", "").replace("- ", "-") \
        .split(" / ")
    stated_log10 = Fraction(int(numerator), int(denominator))
    certified_log10 = Fraction(document["claims"]["region_probability"]["log10_lo"])
    assert certified_log10 - Fraction(1, 10**13) <= stated_log10 <= certified_log10
    proof = slide_region_proof(p, ONE)
    for lemma in (lo, log10):
        assert "region_slide_survival" in lemma.statement
        assert str(proof.survival_lo[0]) not in lemma.statement and str(proof.tail_lo[0]) not in lemma.statement
    assert MANTISSA_SLACK == fmpq(1, 10**15)


def test_the_numbers_are_deterministic():
    assert vars(SlideRegionProof(7, ONE)) == vars(SlideRegionProof(7, ONE))
    document = parse_certificate(LIBRARY[7].read_bytes())
    assert coq_file(document).text == coq_file(document).text


def test_a_claim_without_its_log10_twin_is_refused_not_half_stated():
    """slide_region_lemmas raises ValueError (the file then lists the claim as not exported)."""
    document = parse_certificate(LIBRARY[5].read_bytes())
    del document["claims"]["region_probability"]["log10_lo"]
    with pytest.raises(ValueError, match="log10 twin"):
        slide_region_lemmas(document)


def _coq(q) -> str:
    """An exact rational as the exporter's Coq spelling (certify.coq.terms.real), rebuilt here."""
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    body = f"{abs(q.numerator)}" if q.denominator == 1 else f"({abs(q.numerator)} / {q.denominator})"
    return f"(- {body})" if q < 0 else body


@pytest.mark.parametrize("p", [5, 101])
def test_the_statements_transcribe_the_paper_formula(p):
    """The Definitions and the claim's right-hand side, as emitted, are the formula of docs/coq.md written out
    here from the paper (not from the exporter's strings): the window [-t/2 - W, -t/2 + W], the powers p - 1 and
    p, the arguments -x and x + t, B = t/2 + W + 8, r/2 = n delta / (2 (n - 1)), z = sqrt(p n) (g + delta),
    C/(C - 1), and (A.14) with the certificate's sigma. A forged lo cannot catch an overstated right-hand side
    (coqc refuses anything above what it proves); this test can."""
    from certify.kernel.region_slide import slide_region_claim_bound

    document = parse_certificate(LIBRARY[p].read_bytes())
    sigma = fmpq(Fraction(document["parameters"]["sigma"]).numerator, Fraction(document["parameters"]["sigma"]).denominator)
    kernel = slide_region_claim_bound(p, sigma)  # t = X/sigma, g, delta: the kernel's, not the exporter's copies
    t_q, g_q, delta_q = kernel.X / sigma, kernel.gamma_star / sigma, kernel.delta
    proof = slide_region_proof(p, sigma)
    assert (proof.t, proof.g, proof.delta_g) == (t_q, g_q, delta_q)
    text = coq_file(document).text
    n, t, W, m = p - 1, _coq(t_q), _coq(proof.W), _coq(t_q / 2)
    B = _coq(t_q / 2 + proof.W + 8)
    assert (f"Definition region_slide_phibar : R -> R := fun y => RInt region_phi y {B}.") in text
    assert (f"Definition region_slide_survival : R := RInt (fun x => {p} * region_slide_phibar (- x) ^ {n} * "
            f"region_phi x * region_slide_phibar (x + {t}) ^ {p}) (- {m} - {W}) (- {m} + {W}).") in text
    r_half = _coq(fmpq(n) * delta_q / (2 * (n - 1)))
    z = f"(sqrt ({p} * {n}) * ({_coq(g_q)} + {_coq(delta_q)}))"
    B2 = _coq(fmpq(int(mpmath.floor(mpmath.sqrt(p * n) * (_mp(g_q) + _mp(delta_q)))) + 9))
    rhs = (f"(region_central_binomial / (region_central_binomial - 1) * region_slide_survival * "
           f"(2 * RInt region_phi 0 {r_half}) ^ {n} * RInt region_phi {z} {B2})")
    lo_lemma = next(line for line in text.splitlines() if line.strip().startswith("ln ") and "<= ln (region_central" in line)
    assert lo_lemma.rstrip(".").endswith(f"<= ln {rhs}")
    assert f"<= ln {rhs} / ln 10." in text
    assert f"({p} - 1) / exp 1 < {_coq(sigma)} ^ 2 * {_coq(g_q)} * {t}." in text
    assert "Definition region_phi : R -> R := fun x => exp (- x ^ 2 / 2) / sqrt (2 * PI)." in text
    assert f"Definition region_central_binomial : R := IZR (Z.div (region_zfact {2 * p}) (region_zfact {p} * region_zfact {p}))." in text


def test_another_sigma_gives_a_route_that_reaches_the_claim():
    """sigma = 3 at p = 5 (t, g, delta all move with sigma): the numbers the exporter chooses satisfy what the
    lemmas state, against mpmath, and (A.14) sigma^2 g t > (p-1)/e holds; the emitted claim lemmas use sigma = 3."""
    from certify.theorems.slide import certify_slide

    sigma = fmpq(3)
    document = certify_slide(5, sigma=sigma).certificate
    proof = slide_region_proof(5, sigma)
    with mpmath.workdps(40):
        assert 9 * _mp(proof.g) * _mp(proof.t) > 4 / mpmath.e
        anchor = _tail(_mp(proof.b), _mp(proof.B))
        assert _mp(proof.anchor_lo) <= anchor
        lo = Fraction(document["claims"]["region_probability"]["lo"])
        C = mpmath.binomial(10, 5)
        proved = C / (C - 1) * _sci(proof.survival_lo) * _mp(proof.spread_lo) ** 4 * _sci(proof.tail_lo)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= proved <= _right_hand_side(proof)
    assert "(5 - 1) / exp 1 < 3 ^ 2 * " in coq_file(document).text


def test_a_window_that_cannot_be_placed_lists_the_claim_as_not_exported(monkeypatch):
    """When the window width WINDOW_WIDTH/sqrt(p) rounds down to no step of 1/64 (here: forced to 0), the claim is listed as not
    exported with the reason, never half-stated."""
    import certify.coq.region_slide as module

    monkeypatch.setattr(module, "WINDOW_WIDTH", 0.0)
    module.slide_region_proof.cache_clear()
    try:
        document = parse_certificate(LIBRARY[5].read_bytes())
        items = coq_file(document).not_exported
        assert [item.claim for item in items] == ["region_probability"]
        assert "window" in items[0].reason
        with pytest.raises(ValueError, match="window"):
            SlideRegionProof(5, ONE)
    finally:
        module.slide_region_proof.cache_clear()
    assert isinstance(items[0], NotExported)


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{field: (text, TextResult)}: the library certificate of p = 5 with only region_probability, the field
    moved past the exact right-hand side of the lemmas by a relative 10^-10 (lo) or by 10^-10 (log10_lo)
    (coqtext.region_forgeries_past)."""
    document = region_only(LIBRARY[5])
    with mpmath.workdps(40):
        truth = _right_hand_side(slide_region_proof(5, ONE))
    return region_forgeries_past(tmp_path_factory.mktemp("coq_region_slide"), document, truth)


@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_end_is_refused_in_its_lemma(forged, field):
    text, result = forged[field]
    assert not result.ok, f"coqc accepted a forged region_probability.{field}"
    assert re.fullmatch(rf"region_probability_{field}(_\d+_digits)?", failing_lemma(text, result) or ""), \
        result.message
