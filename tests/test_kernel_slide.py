"""certify.kernel.slide: Theorem A.1 obligations against independent routes."""

from fractions import Fraction

import mpmath
import pytest
from flint import arb, fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.slide import (SlideParameters, admissibility_upper, capture_invariants,
                                  capture_time_log_enclosure, kappa_enclosure, limit_direction_enclosures,
                                  require_slide_hypotheses, slide_base_point, slide_box_margins, slide_claims,
                                  slide_gaussian_centres)
from oracles import capture_time_ode


def params(p, gamma_star=Fraction(1), X=None):
    X = Fraction(p - 1, 2) / gamma_star if X is None else Fraction(X)
    return SlideParameters(p, fmpq(gamma_star.numerator, gamma_star.denominator), fmpq(X.numerator, X.denominator))


def mp(x) -> mpmath.mpf:
    return mpmath.mpf(int(x.p)) / int(x.q)


def encloses(ball_, value, slack=0) -> bool:
    return mp(lower_endpoint(ball_)) - slack <= value <= mp(upper_endpoint(ball_)) + slack


CASES = [(5, Fraction(1), None), (13, Fraction(1), None), (7, Fraction(2), Fraction(3, 2)),
         (11, Fraction(1, 2), Fraction(8))]


@pytest.mark.parametrize("p, gamma_star, X", CASES)
def test_capture_time_contains_the_ode_route(p, gamma_star, X):
    P = params(p, gamma_star, X)
    log_time = capture_time_log_enclosure(P, 128)
    with mpmath.workdps(30):
        expected, _ = capture_time_ode(p, Fraction(int(P.gamma_star.p), int(P.gamma_star.q)),
                                       Fraction(int(P.X.p), int(P.X.q)))
        # the oracle is good to ~1e-27: containment up to that
        assert encloses(log_time, expected, slack=mpmath.mpf(10) ** -25 * abs(expected))
        assert log_time.rel_accuracy_bits() > 100


def test_capture_time_for_p_13_is_about_10_to_the_561():
    with working_precision(128):
        log10 = capture_time_log_enclosure(params(13), 128) / arb(10).log()
    assert 561 < lower_endpoint(log10) and upper_endpoint(log10) < 562


@pytest.mark.parametrize("p, gamma_star, X", CASES)
def test_capture_invariants_match_the_ode(p, gamma_star, X):
    P = params(p, gamma_star, X)
    before, after = capture_invariants(P)
    with mpmath.workdps(30):
        _, d_end = capture_time_ode(p, Fraction(int(P.gamma_star.p), int(P.gamma_star.q)),
                                    Fraction(int(P.X.p), int(P.X.q)))
        x_end = 6 * mp(P.X)
        c = mpmath.mpf(p) / (2 * (p - 1))
        # mpmath.odefun at 30 digits: allow 5 digits for the accumulation over its steps,
        # relative to the cancelling terms d^2 (the invariants are differences of two such)
        assert abs(d_end**2 - c * x_end**2 - mp(before)) < mpmath.mpf(10) ** -25 * d_end**2
        assert abs(d_end**2 - c * p * x_end**2 - mp(after)) < mpmath.mpf(10) ** -25 * d_end**2


@pytest.mark.parametrize("p", [5, 13, 101, 1000003])
def test_kappa_direction_and_limit_loss_match_their_exact_forms(p):
    P = params(p)
    with working_precision(128):
        kappa = kappa_enclosure(P)
        direction = limit_direction_enclosures(P)
        norm_squared = sum((direction[f"{b}_at_0"] ** 2 + (p - 1) * direction[f"{b}_elsewhere"] ** 2
                            for b in "uvw"), arb(0))
    with mpmath.workdps(50):
        k = p / mpmath.sqrt(2 * (p - 1))
        assert encloses(kappa, k)
        root = mpmath.sqrt(p)
        expected = {"u_at_0": 1 / (2 * root), "u_elsewhere": -1 / (2 * root), "v_at_0": 1 / (2 * root),
                    "v_elsewhere": -1 / (2 * root), "w_at_0": k * (p - 1) / (p * root), "w_elsewhere": -k / (p * root)}
        for name, value in expected.items():
            assert encloses(direction[name], value), name
    assert lower_endpoint(norm_squared) <= 1 <= upper_endpoint(norm_squared)  # (A.45) is a unit vector


def test_limit_loss_and_fraction_claims():
    p = 7
    claims = {c.id: c for c in slide_claims(params(p), fmpq(1, 10), 128)}
    with mpmath.workdps(50):
        assert encloses(claims["limit_loss"].quantity.lower, mpmath.mpf(p * p - 1) / (p * p) * mpmath.log(p))
    assert claims["limit_fourier_fraction"].quantity.exact == fmpq(2, p - 1)


@pytest.mark.parametrize("p", [5, 13])
def test_admissibility_is_lemma_a9_bound(p):
    P = params(p)
    with working_precision(128):
        bound = admissibility_upper(P)
    with mpmath.workdps(50):
        assert encloses(bound, (p - 1) / (mpmath.e * mp(P.X) * mp(P.gamma_star)))


def test_a14_is_decided_with_balls_on_both_sides_of_e():
    p, g = 13, Fraction(1)
    with mpmath.workdps(60):
        threshold = mpmath.mpf(12) / mpmath.e  # (p-1)/(e gamma_*)
        just_above = Fraction(int(mpmath.floor(threshold * 10**40)) + 1, 10**40)
        just_below = Fraction(int(mpmath.floor(threshold * 10**40)), 10**40)
    require_slide_hypotheses(params(p, g, just_above))
    with pytest.raises(HypothesisError, match=r"\(A\.14\)"):
        require_slide_hypotheses(params(p, g, just_below))


@pytest.mark.parametrize("gamma_star, X, words", [(Fraction(0), Fraction(1), "gamma_* > 0"),
                                                  (Fraction(-1), Fraction(1), "gamma_* > 0"),
                                                  (Fraction(1), Fraction(0), "X > 0"),
                                                  (Fraction(1), Fraction(4), "(A.14)")])
def test_hypotheses_are_named(gamma_star, X, words):
    with pytest.raises(HypothesisError) as info:
        require_slide_hypotheses(params(13, gamma_star, X))
    assert words in str(info.value)


@pytest.mark.parametrize("radius, words", [(fmpq(3), "(A.15)"), (fmpq(13, 24), "(A.17)"), (fmpq(0), "positive")])
def test_box_margins_are_named(radius, words):
    with pytest.raises(NotCertified) as info:
        slide_box_margins(params(13), radius)
    assert words in str(info.value)


def test_box_margins_are_the_a15_a17_bounds():
    P = params(13)
    margins = slide_box_margins(P, fmpq(1, 2))
    assert margins == {"x_minus_X": fmpq(5), "cross_gates": fmpq(11), "off_cross_gates": fmpq(35),
                       "gamma_minus_gamma_star": fmpq(1) - fmpq(12, 13)}


def test_base_point_and_centres():
    P = params(7)
    base = slide_base_point(P)
    assert (base.u.at_0, base.u.elsewhere, base.w.at_0, base.w.elsewhere) == (3, -9, 14, 0)
    assert sum(k for _, k in slide_gaussian_centres(P)) == 21
