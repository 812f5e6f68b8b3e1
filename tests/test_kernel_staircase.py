"""certify.kernel.staircase: Theorem S's obligations on the box against independent routes.

The oracle evaluates, at 40 digits with mpmath, the quantities of docs/staircase.md at points of the box (its
corners and random interior points), written out from the definitions: the gates z_ab = u(a) + v(b), the
loss Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10) with ell_y(z) = log sum_c e^{z w(c)} - z w(y) (A.2), rho,
and delta of (S.15) at the point's own rho_0, L_0 and C_+; every certified lower end must lie below them.
"""

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.gaussian import box_log_mass
from certify.kernel.staircase import (StaircaseParameters, loss_upper, pattern_margins, relabelled_copies,
                                      require_staircase_hypotheses, staircase_base_point, staircase_claims,
                                      staircase_gaussian_centres)
from certify.theorems.staircase import certify_staircase


def q(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def mp(x) -> mpmath.mpf:
    """An exact rational (fmpq or Fraction) as an mpf at the current mpmath precision."""
    x = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


DPS = 40


def params(p, X=None, s=None, D=Fraction(1, 4), E=None, k=2):
    X = Fraction(p) if X is None else Fraction(X)
    s = Fraction(321, 1000) if s is None else Fraction(s)  # ln(5)/5 = 0.3218...: feasible at p = 5 and 13
    E = Fraction(5 * p, 2) if E is None else Fraction(E)
    f = lambda x: fmpq(Fraction(x).numerator, Fraction(x).denominator)
    return StaircaseParameters(p, f(k), f(X), f(s), f(D), f(E))


def base_vector(P) -> list[Fraction]:
    point = staircase_base_point(P)
    out = []
    for block in (point.u, point.v, point.w):
        out += [q(block.at_0), q(block.at_1)] + [q(block.elsewhere)] * (P.p - 2)
    return out


def box_points(P, radius, count, seed=0):
    """Corners-heavy points of the sup-norm box: each coordinate at -r, +r or uniform in between."""
    rng = random.Random(seed)
    base = base_vector(P)
    for _ in range(count):
        yield [x + radius * rng.choice([-1, 1, Fraction(rng.randint(-1000, 1000), 1000)]) for x in base]


def exact_gates(theta, p):
    """The gates z_ab = u(a) + v(b) and gamma_j = mean(w) - w(j) (j >= 2), exactly."""
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    mu = sum(w) / p
    return [[u[a] + v[b] for b in range(p)] for a in range(p)], [mu - w[j] for j in range(2, p)]


def oracle(theta, p):
    """(gates matrix, Lambda, threshold 2 log 2 + 2/((p-1) rho), delta of (S.15)) at 40 digits."""
    with mpmath.workdps(DPS):
        x = [mp(t) for t in theta]
        u, v, w = x[:p], x[p:2 * p], x[2 * p:]
        z = [[u[a] + v[b] for b in range(p)] for a in range(p)]

        def ell(zv, y):
            return mpmath.log(mpmath.fsum(mpmath.exp(zv * (w[c] - w[y])) for c in range(p)))

        mu = mpmath.fsum(w) / p
        gamma = [mu - w[j] for j in range(2, p)]
        rho = max(gamma) / min(gamma)
        lam = ell(z[0][0], 0) + ell(z[0][1], 1) + ell(z[1][0], 1)
        threshold = 2 * mpmath.log(2) + 2 / ((p - 1) * rho)
        F0 = 2 * (1 + mpmath.cos(2 * mpmath.pi / p)) / (p - 2)
        S = mpmath.fsum(gamma)
        L0 = S**2 / 2 + mpmath.fsum(g**2 for g in gamma)
        C = max(0, p * mu**2 + mpmath.fsum(t**2 for t in u) + mpmath.fsum(t**2 for t in v) - mpmath.fsum(t**2 for t in w))
        delta = (1 - (mpmath.sqrt(F0) + rho - 1) ** 2) * L0 / (2 * L0 + C)
        return z, lam, threshold, delta, gamma


@pytest.mark.parametrize("p", [5, 13, 31])
def test_every_claim_holds_at_points_of_the_box(p):
    """At p = 31 the balance term C_+ of (S.11) is positive on the box (|u|^2 + |v|^2 > |w|^2): its bound is
    tested too."""
    P = params(p, s=Fraction(11, 100) if p == 31 else None)
    certificate = certify_staircase(p, X=P.X, s=P.s, D=P.D, E=P.E)
    radius = q(certificate.radius)
    claims = {claim.id: claim for claim in staircase_claims(P, certificate.radius, 128)}
    mpmath.mp.dps = DPS
    margins = {name: q(part.lower) for name, part in claims["pattern_box"].components.items()}
    loss_lo = mp(lower_endpoint(claims["loss_margin_box"].quantity.lower))
    delta_lo = mp(lower_endpoint(claims["purity_margin_box"].quantity.lower))
    smallest = {"loss": mpmath.inf, "delta": mpmath.inf}
    for theta in box_points(P, radius, 200):
        _, lam, threshold, delta, _ = oracle(theta, p)
        z, gamma = exact_gates(theta, p)  # rational: the pattern margins are exact, compared exactly
        assert min(z[0][0], z[0][1], z[1][0]) >= margins["active_gates"]
        assert -z[1][1] >= margins["gate_11"]
        assert min(-z[0][j] for j in range(2, p)) >= margins["boundary_gates"]
        assert min(-z[j][0] for j in range(2, p)) >= margins["boundary_gates"]
        others = [z[a][b] for a in range(p) for b in range(p)
                  if (a, b) not in {(0, 0), (0, 1), (1, 0), (1, 1)} and not (a == 0 or b == 0)]
        assert min(-t for t in others) >= margins["other_gates"]
        assert min(gamma) >= margins["gamma_min"]
        smallest["loss"] = min(smallest["loss"], threshold - lam)
        smallest["delta"] = min(smallest["delta"], delta)
    assert smallest["loss"] >= loss_lo > 0
    assert smallest["delta"] >= delta_lo > 0
    mpmath.mp.dps = 15


def test_the_loss_enclosure_contains_the_base_point_value():
    for p in (5, 7, 13, 31):
        P = params(p)
        _, lam, _, _, _ = oracle(base_vector(P), p)
        with working_precision(128):
            ball_ = loss_upper(P, fmpq(0))
        with mpmath.workdps(DPS):
            assert mp(lower_endpoint(ball_)) <= lam <= mp(upper_endpoint(ball_))


def test_the_pattern_margins_are_the_gates_at_the_base_point():
    P = params(5)
    z, gamma = exact_gates(base_vector(P), 5)
    margins = {name: q(value) for name, value in pattern_margins(P, fmpq(0)).items()}
    assert margins == {"active_gates": Fraction(321, 1000), "gate_11": Fraction(5) - Fraction(642, 1000),
                       "boundary_gates": Fraction(321, 1000), "other_gates": Fraction(5),
                       "gamma_min": Fraction(2 * 25 // 2 + Fraction(1, 4), 5)}
    assert (z[0][0], z[0][1], z[1][0], z[1][1], z[0][2], z[2][0]) == (5, Fraction(321, 1000), Fraction(321, 1000),
                                                                      Fraction(642, 1000) - 5, Fraction(-321, 1000),
                                                                      Fraction(-321, 1000))
    assert gamma == [Fraction(101, 20)] * 3 and sum(base_vector(P)[10:]) == 0


def test_the_gaussian_box_mass_against_erf():
    P = params(5)
    r = fmpq(1, 50)
    with working_precision(128):
        log_mass = box_log_mass(staircase_gaussian_centres(P), r)
    with mpmath.workdps(80):  # ncdf(m + r) - ncdf(m - r) cancels about 15 digits at m = 7.7: 80 leave 65
        total = mpmath.mpf(0)
        for x in base_vector(P):
            m = mp(x)
            total += mpmath.log(mpmath.ncdf(m + mpmath.mpf(1) / 50) - mpmath.ncdf(m - mpmath.mpf(1) / 50))
        assert mp(lower_endpoint(log_mass)) <= total <= mp(upper_endpoint(log_mass))


@pytest.mark.parametrize("p", [5, 7])
def test_the_relabelled_copies_have_distinct_active_sets(p):
    """Brute force over every affine relabelling (r0, c0, step): the images of the three active gates."""
    sets = {frozenset({(r0 % p, c0 % p), (r0 % p, (c0 + step) % p), ((r0 + step) % p, c0 % p)})
            for r0, c0, step in itertools.product(range(p), range(p), range(1, p))}
    assert len(sets) == relabelled_copies(p) == p * p * (p - 1)


def test_the_region_claim_is_the_widened_box_times_the_copies():
    """region - box (log10) is log10(p^2 (p - 1)) plus what the 2(p - 2) tails u(i), v(i), i >= 2 (at -X/2 - s)
    gain from [c - r, c + r] to [c - r - 4, c + r] (docs/staircase.md section 11.14), by mpmath's ncdf, plus log10 of
    the translates' factor pi sigma^2/(2 sqrt(2) p r^2) of (S.40) (section 11.15)."""
    P, r = params(7), fmpq(1, 100)
    claims = {claim.id: claim for claim in staircase_claims(P, r, 128)}
    box = q(lower_endpoint(claims["gaussian_probability"].quantity.log10_lower))
    region = q(lower_endpoint(claims["region_probability"].quantity.log10_lower))
    c, radius = -mpmath.mpf(7) / 2 - mpmath.mpf(321) / 1000, mpmath.mpf(1) / 100
    tails = 2 * 5 * (mpmath.log10(mpmath.ncdf(c + radius) - mpmath.ncdf(c - radius - 4))
                     - mpmath.log10(mpmath.ncdf(c + radius) - mpmath.ncdf(c - radius)))
    # the translates along the two invariant lines (docs/staircase.md 11.15, (S.40)): pi/(2 sqrt 2 p r^2), sigma = 1
    translates = mpmath.log10(mpmath.pi / (2 * mpmath.sqrt(2) * 7 * radius**2))
    assert tails > 1 and translates > 3
    assert abs(float(region - box) - float(mpmath.log10(7 * 7 * 6) + tails + translates)) < 1e-9


@pytest.mark.parametrize("k, words", [(1, "certify memorise"), (3, "k >= 3 is open"), (Fraction(5, 2), "k = 2.5")])
def test_only_k_two_has_a_theorem(k, words):
    with pytest.raises(HypothesisError, match="is not Theorem S's") as info:
        require_staircase_hypotheses(params(5, k=k))
    assert words in str(info.value)


def test_hypotheses_are_named():
    with pytest.raises(HypothesisError, match="X > 2s"):
        require_staircase_hypotheses(params(5, X=Fraction(1, 2)))
    with pytest.raises(HypothesisError, match="D > 0"):
        require_staircase_hypotheses(params(5, D=0))
    # s D = 1: far outside S_stair, (S.10) decided false
    with pytest.raises(HypothesisError, match=r"\(S.10\) fails at the base point"):
        require_staircase_hypotheses(params(5, s=1, D=1))


def test_a_box_too_large_is_not_certified():
    P = params(5)
    with pytest.raises(NotCertified, match="the gates \\(0, 0\\), \\(0, 1\\), \\(1, 0\\) > 0 fails"):
        staircase_claims(P, P.s / 2, 128)
    with pytest.raises(NotCertified, match=r"\(S.10\) on the box"):
        staircase_claims(P, P.s / 4, 128)  # gates positive, but s - 2r = s/2 leaves (p - 2) e^{-sE/2} too large
