"""certify.coq.region.smooth_region_lemmas: the Coq lemmas of a smooth certificate's ``region_probability`` claim,
through R_dead in R_smooth and the dead route at COARSE accuracy (docs/coq.md, 'The smooth region in Coq').

The library files compile (tests/test_coq_library.py). Here: the paper-level inclusion's inequality J(s) <= s^2/2
checked on both sides of eps against mpmath's own quadrature of sigma_eps/sigma_eps' (A.66); the route's number
between the certificate's lo and the exact right-hand side the lemmas state (mpmath's erf, erfc and quad at 40
digits); the digits at every library prime; the claim listed as not exported when sigma/eps makes the kernel's
bound exceed the route's; and a forged lo or log10_lo (past the exact right-hand side by 10^-10) refused by coqc in
its own claim lemma (for log10_lo, the twin lemma that ties it to the honest lo admitted so that coqc reaches it).
"""

import re
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.coq.export import coq_file
from certify.coq.terms import real
from certify.coq.region import COARSE, SMOOTH_MARGIN, region_proof, smooth_region_lemmas
from certify.coq.lemma import Lemma
from certify.coq.terms import number
from certify.kernel.exact import parse_exact
from conftest import ROOT
from coqtext import failing_lemma, region_forgeries_past, region_only

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "smooth").glob("smooth-*.json")}


def _mp(q) -> mpmath.mpf:
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _region_only(p: int) -> dict:
    return region_only(LIBRARY[p])


def _right_hand_side(p: int) -> mpmath.mpf:
    """(1/2 - G(c_p E)) / (C(2p, p) - 1) with E the Definition region_spacing_bound at the route's A:
    2 C(2p, p) 4^-p (int_0^A (1 - erf(x/sqrt 2)^2)^p dx + 4 phi(A) (1 - erf(A/sqrt 2)^2)^(p-1)), by mpmath."""
    A = _mp(region_proof(p, COARSE).A)
    C = mpmath.binomial(2 * p, p)
    K = lambda x: (1 - mpmath.erf(x / mpmath.sqrt(2)) ** 2) ** p  # noqa: E731
    E = 2 * C / mpmath.mpf(4) ** p * (mpmath.quad(K, [0, min(A, 1), A])
                                       + 4 * mpmath.npdf(A) * (1 - mpmath.erf(A / mpmath.sqrt(2)) ** 2) ** (p - 1))
    z = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * E
    return mpmath.erfc(z / mpmath.sqrt(2)) / 2 / (C - 1)


@pytest.mark.parametrize("eps", [mpmath.mpf(2), mpmath.mpf(1) / 2])
def test_J_is_at_most_half_s_squared_on_both_sides_of_eps(eps):
    """The inclusion's inequality J(s) = int_0^s sigma_eps/sigma_eps' <= s^2/2 ((A.61) for s <= eps, J(eps) +
    (s^2 - eps^2)/2 beyond), with sigma_eps(z) = z psi(z/eps) (A.1) and its derivative by mpmath.diff, J by
    mpmath.quad at 30 digits: an independent route to the paper-level step."""
    with mpmath.workdps(30):
        f = lambda t: mpmath.exp(-1 / t) if t > 0 else mpmath.mpf(0)  # noqa: E731
        psi = lambda t: f(t) / (f(t) + f(1 - t))  # noqa: E731
        sigma = lambda z: z * psi(z / eps) if z < eps else z  # noqa: E731
        ratio = lambda s: sigma(s) / mpmath.diff(sigma, s)  # noqa: E731
        for fraction in ("0.05", "0.3", "0.7", "1", "1.5", "3"):
            s = eps * mpmath.mpf(fraction)
            pieces = [0, s] if s <= eps else [0, eps, s]
            J = mpmath.quad(ratio, pieces)
            assert 0 < J < s**2 / 2


@pytest.mark.parametrize("p", sorted(LIBRARY))
def test_the_route_lies_between_the_certificate_and_the_exact_right_hand_side(p):
    """lo (the kernel's bound of R_smooth) < Phb / (C - 1) (the route's proved number) < the exact right-hand side,
    with the margin SMOOTH_MARGIN the exporter requires below, at every library prime; the claim lemmas state lo
    and log10_lo in full (the certificate's own numbers)."""
    document = _region_only(p)
    proof = region_proof(p, COARSE)
    with mpmath.workdps(40):
        lo = _mp(Fraction(document["claims"]["region_probability"]["lo"]))
        proved = _mp(proof.phibar_lo) / (proof.binomial - 1)
        assert lo * (1 + SMOOTH_MARGIN) < proved < _right_hand_side(p)
        assert proved / _right_hand_side(p) > 1 - mpmath.mpf(10) ** -5  # the coarse route loses about 10^-6
    lemmas = {item.name: item for item in smooth_region_lemmas(document) if isinstance(item, Lemma)}
    node = document["claims"]["region_probability"]
    lo, log10 = lemmas["region_probability_lo"], lemmas["region_probability_log10_lo"]
    assert lo.digits is None and log10.digits is None
    value = parse_exact(node["lo"])
    assert lo.statement.startswith(f"{value.numerator} / 10 ^ {-value.exp10} <= ")
    assert log10.statement.startswith(f"{real(number(node['log10_lo']))} <= ln ")


def test_the_lemma_names_the_inclusion_and_states_real_quantities():
    lemmas = {item.name: item for item in smooth_region_lemmas(_region_only(13)) if hasattr(item, "statement")}
    lo = lemmas["region_probability_lo"]
    assert "region_spacing_bound" in lo.statement and "RInt region_phi 0" in lo.statement
    assert "R_dead is contained in R_smooth" in lo.paper and "(A.61)" in lo.paper
    assert real(region_proof(13, COARSE).phibar_lo) not in lo.statement


def test_a_forged_whole_number_lo_is_stated_as_it_is():
    """A lo of 2 (no honest probability is) is written as the number it is, 2 * 10 ^ 0 <= ..., a false lemma coqc
    refuses (the right-hand side is below 1), never dropped or rewritten."""
    document = _region_only(13)
    document["claims"]["region_probability"] = dict(document["claims"]["region_probability"], lo="2")
    lemmas = {item.name: item for item in smooth_region_lemmas(document) if isinstance(item, Lemma)}
    assert lemmas["region_probability_lo"].statement.startswith("2 * 10 ^ 0 <= ((1 / 2 - RInt region_phi 0 ")


def test_a_large_sigma_over_eps_lists_the_claim_as_not_exported():
    """At eps = 1/2, sigma = 1, p = 5 the kernel's bound of R_smooth (log -6.3768) exceeds the dead region's Jensen
    bound (log -6.3856): the route cannot reach it, so the claim is listed with the reason, never half-stated."""
    document = _region_only(5)
    document["parameters"]["eps_smooth"] = "0.5"
    with pytest.raises(ValueError, match="Jensen bound"):
        smooth_region_lemmas(document)
    items = coq_file(document).not_exported
    assert [item.claim for item in items] == ["region_probability"] and "Jensen bound" in items[0].reason


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{field: (text, TextResult)}: the library certificate of p = 5 with only region_probability, the field
    moved past the exact right-hand side by a relative 10^-10 (lo) or by 10^-10 (log10_lo)
    (coqtext.region_forgeries_past)."""
    with mpmath.workdps(40):
        truth = _right_hand_side(5)
    return region_forgeries_past(tmp_path_factory.mktemp("coq_region_smooth"), _region_only(5), truth)


@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_end_is_refused_in_its_lemma(forged, field):
    text, result = forged[field]
    assert not result.ok, f"coqc accepted a forged region_probability.{field}"
    assert re.fullmatch(rf"region_probability_{field}(_\d+_digits)?", failing_lemma(text, result) or ""), \
        result.message
