"""certify.kernel.staircase, Theorem S1 (the ``memorise`` record, docs/staircase.md section 10): its obligations
on the box against independent routes.

The oracle evaluates, at 40 digits with mpmath, the quantities of section 10 at points of the box (corners and
random interior points), written out from the definitions: the gates z_ab = u(a) + v(b) (exactly, in
rationals), ell_0(z00) = log sum_c e^{z00 (w(c) - w(0))} (A.2), rho over j >= 1, and delta_1 of (S1.2) at the
point's own rho_0, L_0 and C_+; every certified lower end must lie below them.
"""

import random
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.gaussian import box_log_mass
from certify.kernel.staircase import (MemoriseParameters, memorise_base_point, memorise_claims, memorise_loss_upper,
                                      memorise_pattern_margins, require_memorise_hypotheses,
                                      staircase_gaussian_centres, translated_copies)
from certify.theorems.memorise import certify_memorise, default_E

DPS = 40


def q(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def mp(x) -> mpmath.mpf:
    x = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def params(p, X=1, s=Fraction(1, 4), E=None):
    f = lambda x: fmpq(Fraction(x).numerator, Fraction(x).denominator)
    return MemoriseParameters(p, f(X), f(s), default_E(p) if E is None else f(E))


def base_vector(P) -> list[Fraction]:
    point = memorise_base_point(P)
    out = []
    for block in (point.u, point.v, point.w):
        out += [q(block.at_0)] + [q(block.elsewhere)] * (P.p - 1)
    return out


def box_points(P, radius, count, seed=0):
    rng = random.Random(seed)
    base = base_vector(P)
    for _ in range(count):
        yield [x + radius * rng.choice([-1, 1, Fraction(rng.randint(-1000, 1000), 1000)]) for x in base]


def oracle(theta, p):
    """(ell_0(z00), 2/(p rho), delta_1 of (S1.2)) at 40 digits."""
    with mpmath.workdps(DPS):
        x = [mp(t) for t in theta]
        u, v, w = x[:p], x[p:2 * p], x[2 * p:]
        z00 = u[0] + v[0]
        ell = mpmath.log(mpmath.fsum(mpmath.exp(z00 * (w[c] - w[0])) for c in range(p)))
        mu = mpmath.fsum(w) / p
        gamma = [mu - w[j] for j in range(1, p)]
        rho = max(gamma) / min(gamma)
        S = mpmath.fsum(gamma)
        L0 = S**2 + mpmath.fsum(g**2 for g in gamma)
        C = max(0, p * mu**2 + mpmath.fsum(t**2 for t in u) + mpmath.fsum(t**2 for t in v) - mpmath.fsum(t**2 for t in w))
        delta = (1 - (mpmath.sqrt(mpmath.mpf(2) / (p - 1)) + rho - 1) ** 2) * L0 / (2 * L0 + C)
        return ell, 2 / (p * rho), delta


@pytest.mark.parametrize("p", [5, 13, 31])
def test_every_claim_holds_at_points_of_the_box(p):
    P = params(p)
    certificate = certify_memorise(p)
    radius = q(certificate.radius)
    claims = {claim.id: claim for claim in memorise_claims(P, certificate.radius, 128)}
    margins = {name: q(part.lower) for name, part in claims["pattern_box"].components.items()}
    with mpmath.workdps(DPS):  # the certified ends as mpf without rounding them up (at a corner delta is tight)
        loss_lo = mp(lower_endpoint(claims["loss_margin_box"].quantity.lower))
        delta_lo = mp(lower_endpoint(claims["purity_margin_box"].quantity.lower))
    smallest = {"loss": mpmath.inf, "delta": mpmath.inf}
    for theta in box_points(P, radius, 200):
        u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
        z = [[u[a] + v[b] for b in range(p)] for a in range(p)]
        mu = sum(w) / p
        assert z[0][0] >= margins["active_gate"]
        assert min(-z[0][j] for j in range(1, p)) >= margins["boundary_gates"]
        assert min(-z[j][0] for j in range(1, p)) >= margins["boundary_gates"]
        assert min(-z[a][b] for a in range(1, p) for b in range(1, p)) >= margins["other_gates"]
        assert min(mu - w[j] for j in range(1, p)) >= margins["gamma_min"]
        ell, budget, delta = oracle(theta, p)
        smallest["loss"] = min(smallest["loss"], budget - ell)
        smallest["delta"] = min(smallest["delta"], delta)
    with mpmath.workdps(DPS):
        assert smallest["loss"] >= loss_lo > 0
        assert smallest["delta"] >= delta_lo > 0


def test_the_loss_enclosure_contains_the_base_point_value():
    for p in (5, 7, 13, 31, 101):
        P = params(p)
        ell, _, _ = oracle(base_vector(P), p)
        with working_precision(128):
            ball_ = memorise_loss_upper(P, fmpq(0))
        with mpmath.workdps(DPS):
            assert mp(lower_endpoint(ball_)) <= ell <= mp(upper_endpoint(ball_))


def test_the_pattern_margins_are_the_gates_at_the_base_point():
    P = params(5, E=5)
    margins = {name: q(value) for name, value in memorise_pattern_margins(P, fmpq(0)).items()}
    assert margins == {"active_gate": 1, "boundary_gates": Fraction(1, 4), "other_gates": Fraction(3, 2),
                       "gamma_min": 1}
    theta = base_vector(P)
    assert theta[0] + theta[5] == 1 and theta[0] + theta[6] == Fraction(-1, 4) and theta[1] + theta[6] == Fraction(-3, 2)
    assert sum(theta[10:]) == 0 and theta[10] - theta[11] == 5


def test_the_gaussian_box_mass_against_erf():
    P = params(7)
    r = fmpq(1, 20)
    with working_precision(128):
        log_mass = box_log_mass(staircase_gaussian_centres(P), r)
    with mpmath.workdps(60):
        total = mpmath.fsum(mpmath.log(mpmath.ncdf(mp(x) + mpmath.mpf(1) / 20) - mpmath.ncdf(mp(x) - mpmath.mpf(1) / 20))
                            for x in base_vector(P))
        assert mp(lower_endpoint(log_mass)) <= total <= mp(upper_endpoint(log_mass))


@pytest.mark.parametrize("p", [5, 7])
def test_the_translated_copies_have_distinct_active_gates_and_steps_add_none(p):
    """Every affine relabelling (r0, c0, step) sends the one active gate (0, 0) to (r0, c0): p^2 distinct images.
    The base point is invariant under the permutations of the indices != 0, so the steps add no image."""
    assert len({(r0, c0) for r0 in range(p) for c0 in range(p)}) == translated_copies(p) == p * p
    base = base_vector(params(p))
    for step in range(1, p):
        for block in range(3):
            values = base[block * p:(block + 1) * p]
            assert [values[(i * step) % p] for i in range(p)] == values


def test_the_region_claim_is_the_box_times_the_copies():
    P = params(7)
    claims = {claim.id: claim for claim in memorise_claims(P, fmpq(1, 100), 128)}
    box = q(lower_endpoint(claims["gaussian_probability"].quantity.log10_lower))
    region = q(lower_endpoint(claims["region_probability"].quantity.log10_lower))
    assert abs(float(region - box) - float(mpmath.log10(49))) < 1e-9


def test_hypotheses_are_named():
    with pytest.raises(HypothesisError, match="X > 0 fails"):
        require_memorise_hypotheses(params(5, X=0))
    with pytest.raises(HypothesisError, match="E > 0 fails"):
        require_memorise_hypotheses(params(5, E=-1))
    # X E = 1/10: ell_0 ~ log 5, far outside S_1
    with pytest.raises(HypothesisError, match=r"\(S1.1\) fails at the base point"):
        require_memorise_hypotheses(params(5, X=Fraction(1, 10), E=1))


def test_a_box_too_large_is_not_certified():
    P = params(5)
    with pytest.raises(NotCertified, match="the boundary gates"):
        memorise_claims(P, P.s / 2, 128)
    with pytest.raises(NotCertified, match=r"\(S1.2\) needs"):
        memorise_claims(P, fmpq(12, 100), 128)  # pattern holds, but rho_+ leaves sqrt(F_1) + rho - 1 >= 1
