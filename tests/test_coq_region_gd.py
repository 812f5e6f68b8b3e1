"""certify.coq.region_gd: the Coq lemmas of a gd certificate's ``region_probability`` claim (docs/coq.md, 'The gd
region in Coq').

The library files compile (tests/test_coq_library.py). Here: the paper-level steps checked numerically by an
independent route (mpmath's ncdf and quad: the density of the middle spacing nonincreasing on t > 0, so F_S concave;
the Hermite-Hadamard bracket below the exact F_S); the route's proved number between the certificate's lo and the
exact right-hand side the claim lemmas state (mpmath at 30 digits, the weights in closed form); the lemmas stating lo
and log10_lo in full; the claim listed as not exported when eta is too large for the route; and a forged lo or
log10_lo (past the exact right-hand side by 10^-10) refused by coqc in its own claim lemma.
"""

import functools
import re
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.coq.export import coq_file
from certify.coq.lemma import Lemma
from certify.coq.region_gd import GD_MARGIN, gd_region_lemmas, gd_region_proof
from certify.coq.terms import number, real
from certify.kernel.exact import parse_exact
from conftest import ROOT
from coqtext import failing_lemma, region_forgeries_past, region_only

LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "gd").glob("gd-*.json")}
#: The x-integrals over the line, split every 1/4 on [-5, 5] so that mpmath's quadrature resolves the peak of width
#: about 1/sqrt(p) (a quarter is 1.4 widths at p = 31)
PIECES = [-mpmath.inf] + [mpmath.mpf(i) / 4 for i in range(-20, 21)] + [mpmath.inf]


def _mp(q) -> mpmath.mpf:
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _region_only(p: int) -> dict:
    return region_only(LIBRARY[p])


def _spacing_cdf(p: int, t) -> mpmath.mpf:
    """F_S(t) = C(2p, p) int p Phi^(p-1) phi (Phibar(x)^p - Phibar(x + t)^p) dx (mpmath.ncdf and quad)."""
    C = mpmath.binomial(2 * p, p)
    pieces = PIECES
    return C * p * mpmath.quad(lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x)
                               * (mpmath.ncdf(-x) ** p - mpmath.ncdf(-x - t) ** p), pieces)


@functools.lru_cache(maxsize=None)
def _right_hand_side(p: int) -> mpmath.mpf:
    """sum_j w_j F(t_j) / (C(2p, p) - 1), the exact number the claim lemmas bound lo by: w_j in closed form
    (int_l^r phi(u) (u - l) du = phi(l) - phi(r) - l (Phi(r) - Phi(l))), F(t) = C p^2 t (1 - t^2/24) int_(-a)^(a-t)
    Phi^(p-1) phi(x) phi(x + t/2) M^(p-1) dx with mpmath.ncdf and quad, at 40 digits
    (cached: the route test and the forgery fixture both need p = 13)."""
    with mpmath.workdps(40):
        proof = gd_region_proof(p, fmpq(1))
        C, a = mpmath.binomial(2 * p, p), _mp(proof.a)
        phi, Phi = mpmath.npdf, mpmath.ncdf

        def rising(l, r):
            return (phi(l) - phi(r) - l * (Phi(r) - Phi(l))) / (r - l)

        def falling(l, r):
            return (r * (Phi(r) - Phi(l)) - (phi(l) - phi(r))) / (r - l)

        total = mpmath.mpf(0)
        for j in range(1, len(proof.u)):
            w = sum((rising if up else falling)(_mp(l), _mp(r)) for l, r, up in proof.hats(j))
            t = _mp(proof.t[j])
            integral = mpmath.quad(lambda x: Phi(x) ** (p - 1) * phi(x) * phi(x + t / 2)
                                   * ((Phi(-x) + Phi(-x - t)) / 2) ** (p - 1), mpmath.linspace(-a, a - t, 17))
            total += w * C * p * p * t * (1 - t ** 2 / 24) * integral
        return total / (C - 1)


@pytest.mark.parametrize("p", [5, 13])
def test_the_spacing_density_decreases_so_its_cdf_is_concave(p):
    """Step 2 of docs/coq.md 'The gd region in Coq': f_S(t) = (2p)!/((p-1)!)^2 int Phi(x)^(p-1) phi(x) phi(x + t)
    Phibar(x + t)^(p-1) dx is nonincreasing on t >= 0 (mpmath at 20 digits, t on a grid), so F_S is concave there."""
    with mpmath.workdps(20):
        c = mpmath.factorial(2 * p) / mpmath.factorial(p - 1) ** 2
        pieces = PIECES

        def density(t):
            return c * mpmath.quad(lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.npdf(x + t)
                                   * mpmath.ncdf(-x - t) ** (p - 1), pieces)
        # the route's t lie in [0, 0.5] (0.08 at p = 13): the grid is finest there
        values = [density(mpmath.mpf(t)) for t in (0, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.5, 1)]
        assert all(later < earlier for earlier, later in zip(values, values[1:]))


@pytest.mark.parametrize("p", [5, 31])
def test_the_bracket_is_below_the_exact_spacing_cdf(p):
    """Step 4: C p^2 t (1 - t^2/24) int Phi^(p-1) phi(x) phi(x + t/2) M^(p-1) dx <= F_S(t) at the route's node t_j
    (both by mpmath, the bracket over the whole line): the Hermite-Hadamard and midpoint steps."""
    proof = gd_region_proof(p, fmpq(1))
    with mpmath.workdps(20):
        C = mpmath.binomial(2 * p, p)
        pieces = PIECES
        for t in (_mp(value) for value in proof.t[1:]):
            bracket = C * p * p * t * (1 - t ** 2 / 24) * mpmath.quad(
                lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.npdf(x + t / 2)
                * ((mpmath.ncdf(-x) + mpmath.ncdf(-x - t)) / 2) ** (p - 1), pieces)
            exact = _spacing_cdf(p, t)
            assert 0 < bracket < exact
            # both steps lose O(t^2): e^z >= 1 + z drops (1 + m^2) t^2/24 of int_x^(x+t) phi (m = x + t/2, m^2 <= 9 where
            # the integrand weighs), Hermite-Hadamard about (p - 1)(p - 2) (D/M)^2/24 with D/M ~ t phi/Phibar, whose
            # square is under 2 where the integrand weighs; so (10 + 2 p^2) t^2/24 bounds the loss (measured: 0.37 t^2
            # at p = 5, t = 0.034; 24 t^2 at p = 31, t = 0.0018)
            assert bracket > exact * (1 - (10 + 2 * p ** 2) * t ** 2 / 24)


@pytest.mark.parametrize("p", [5, 7, 13, 31, 101])  # the exporter requires the margin at every p (its ValueError)
def test_the_route_lies_between_the_certificate_and_the_exact_right_hand_side(p):
    """lo (the kernel's bound) < sum of the proved terms / (C - 1) (the route's number) < the exact right-hand side,
    with the margin GD_MARGIN the exporter requires, at five library primes (the exporter refuses a route without it
    at any p); and the route loses under 0.2% against that right-hand side (the fit's loss 4 (p - 1) a eta <= 2 10^-4,
    the integrals' gap 10^-3, the weights' 10^-9 and the roundings to 20 digits)."""
    document = _region_only(p)
    proof = gd_region_proof(p, fmpq(1))
    with mpmath.workdps(30):
        lo = _mp(Fraction(document["claims"]["region_probability"]["lo"]))
        proved = _mp(proof.total) / (proof.binomial - 1)
        exact = _right_hand_side(p)
        assert lo * (1 + GD_MARGIN) < proved < exact
        assert proved > exact * (1 - mpmath.mpf("0.002"))


@pytest.mark.parametrize("p", [5, 101])
def test_the_claim_lemmas_state_the_certificate_in_full_and_name_the_chain(p):
    document = _region_only(p)
    lemmas = {item.name: item for item in gd_region_lemmas(document) if isinstance(item, Lemma)}
    node = document["claims"]["region_probability"]
    lo, log10 = lemmas["region_probability_lo"], lemmas["region_probability_log10_lo"]
    assert lo.digits is None and log10.digits is None
    value = parse_exact(node["lo"])
    assert lo.statement == (f"{value.numerator} / 10 ^ {-value.exp10} <= "
                            "(region_gd_expectation_lower / (region_central_binomial - 1))")
    assert log10.statement.startswith(f"{real(number(node['log10_lo']))} <= ln ")
    for words in ("F_S concave", "chords", "E[Phibar(k S)]", "ordering identity"):
        assert words in lo.paper
    proof = gd_region_proof(p, fmpq(1))
    assert real(proof.total) not in lo.statement  # the exporter's numbers stay inside the proof
    within = [lemmas[f"region_gd_node_{j}_within"].statement for j in range(1, len(proof.u))]
    assert all(f"sqrt (({p} - 1) / {p})" in text for text in within)


def test_every_node_t_is_below_u_over_k_and_the_hats_tile_the_nodes():
    """t_j <= u_j/k (mpmath, 40 digits), the nodes increasing from 0, and each node's pieces the two intervals
    around it (the last node only its rising half)."""
    proof = gd_region_proof(13, fmpq(1))
    with mpmath.workdps(40):
        k = mpmath.mpf(13) ** 2 / (2 * mpmath.sqrt(mpmath.mpf(12) / 13))
        assert all(0 < _mp(t) <= _mp(u) / k for t, u in zip(proof.t[1:], proof.u[1:]))
    assert proof.u[0] == 0 and all(a < b for a, b in zip(proof.u, proof.u[1:]))
    n = len(proof.u) - 1
    assert proof.hats(n) == [(proof.u[n - 1], proof.u[n], True)]
    assert proof.hats(1) == [(proof.u[0], proof.u[1], True), (proof.u[1], proof.u[2], False)]


def test_a_large_eta_lists_the_claim_as_not_exported():
    """At eta = 1000 (p = 5) k = p^2/(2 eta tau_p) is about 0.014, so the nodes' t = u/k run far past a: the route
    does not apply, and the claim is listed with the reason, never half-stated."""
    document = _region_only(5)
    document["parameters"]["eta"] = "1000"
    with pytest.raises(ValueError, match="eta too large"):
        gd_region_lemmas(document)
    items = coq_file(document).not_exported
    assert [item.claim for item in items] == ["region_probability"] and "eta too large" in items[0].reason


def test_a_route_that_cannot_clear_the_kernel_says_so(monkeypatch):
    """The other refusal: nodes added up to MAX_NODES without the route clearing the kernel's bound by GD_MARGIN (here
    a margin of 50% and at most 4 nodes at p = 101, where the route reaches 1.022): ValueError with the ratio reached."""
    import certify.coq.region_gd as route

    monkeypatch.setattr(route, "GD_MARGIN", mpmath.mpf("0.5"))
    monkeypatch.setattr(route, "MAX_NODES", 4)
    with pytest.raises(ValueError, match=r"reaches 1\.02\d* of the kernel's bound with 4 nodes, under 1 \+ 0\.5$"):
        route.GdRegionProof(101, fmpq(1), mpmath.log(mpmath.mpf("1.67203126522657950864550784130360614531750989e-62")))


def test_a_claim_that_is_not_a_lower_bound_with_its_twin_is_refused():
    document = _region_only(13)
    del document["claims"]["region_probability"]["log10_lo"]
    with pytest.raises(ValueError, match="log10 twin"):
        gd_region_lemmas(document)


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{field: (text, TextResult)}: the library certificate of p = 13 with only region_probability, the field moved
    past the exact right-hand side by a relative 10^-10 (lo) or by 10^-10 (log10_lo)
    (coqtext.region_forgeries_past)."""
    return region_forgeries_past(tmp_path_factory.mktemp("coq_region_gd"), _region_only(13), _right_hand_side(13))


@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_end_is_refused_in_its_lemma(forged, field):
    text, result = forged[field]
    assert not result.ok, f"coqc accepted a forged region_probability.{field}"
    assert re.fullmatch(rf"region_probability_{field}", failing_lemma(text, result) or ""), result.message


def test_the_definitions_transcribe_the_paper_formulas():
    """The Coq text of what the claim lemmas bound lo by, at p = 13 (a = 2, nodes u_j = 7 (j/5)^1.5 rounded down to
    sixty-fourths: 5/8, 113/64, 13/4, 5, 7), written here from docs/coq.md 'The gd region in Coq', steps 3-4: the
    integrand (2 Phi)^(p-1) phi(x) phi(x + t/2) (2 M)^(p-1) with Phi = 1/2 + G, 2 M = 1 - G(x) - G(x + t); F's factor
    C(2p, p) p^2/4^(p-1) t (1 - t^2/24) over [-a, a - t]; the hats rising from the node before and falling to the node
    after (the last only rising); the expectation sum_j w_j F(t_j). A forgery test cannot see a transcription that
    makes the right-hand side larger; this one does."""
    items = {item.name: item for item in gd_region_lemmas(_region_only(13)) if hasattr(item, "body")}
    assert items["region_phi"].body == "fun x => exp (- x ^ 2 / 2) / sqrt (2 * PI)"
    assert items["region_G"].body == "fun x => RInt region_phi 0 x"
    assert items["region_gd_integrand"].body == (
        "fun t x => (1 + 2 * region_G x) ^ 12 * region_phi x * region_phi (x + t / 2) * "
        "(1 - region_G x - region_G (x + t)) ^ 12")
    assert items["region_gd_cdf_lower"].body == (
        "fun t => region_central_binomial * 13 ^ 2 / 4 ^ 12 * t * (1 - t ^ 2 / 24) * "
        "RInt (region_gd_integrand t) (- 2) (2 - t)")
    assert items["region_gd_weight_1"].body == (
        "RInt (fun u => region_phi u * ((u - 0) / ((5 / 8) - 0))) 0 (5 / 8) + "
        "RInt (fun u => region_phi u * (((113 / 64) - u) / ((113 / 64) - (5 / 8)))) (5 / 8) (113 / 64)")
    assert items["region_gd_weight_4"].body == (
        "RInt (fun u => region_phi u * ((u - (13 / 4)) / (5 - (13 / 4)))) (13 / 4) 5 + "
        "RInt (fun u => region_phi u * ((7 - u) / (7 - 5))) 5 7")
    assert items["region_gd_weight_5"].body == "RInt (fun u => region_phi u * ((u - 5) / (7 - 5))) 5 7"
    proof = gd_region_proof(13, fmpq(1))
    assert items["region_gd_expectation_lower"].body == " + ".join(
        f"region_gd_weight_{j} * region_gd_cdf_lower {real(proof.t[j])}" for j in range(1, 6))
    binomial = {item.name: item for item in gd_region_lemmas(_region_only(13))}["region_central_binomial_value"]
    assert binomial.statement.startswith("region_central_binomial = 10400600 ")  # C(26, 13), written here
