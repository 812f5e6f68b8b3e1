"""certify.kernel.smooth: the dead-zone integral J against mpmath, and the Theorem A.3 obligations."""

from fractions import Fraction

import mpmath
import pytest
from flint import acb, arb, fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.smooth import (SmoothParameters, _one_tail_deficit, _phi_integrand, dead_zone_integral,
                                   require_smooth_hypotheses, smooth_base_point, smooth_box_bounds, smooth_claims)


def f(t):
    return mpmath.exp(-1 / t) if t > 0 else mpmath.mpf(0)


def psi(t):
    if t <= 0:
        return mpmath.mpf(0)
    if t >= 1:
        return mpmath.mpf(1)
    return f(t) / (f(t) + f(1 - t))


def psi_prime(t):
    """From the definition: f'(t) = f(t)/t^2, quotient rule (not the kernel's closed form)."""
    if t <= 0 or t >= 1:
        return mpmath.mpf(0)
    a, b = f(t), f(1 - t)
    da, db = a / t**2, -b / (1 - t) ** 2
    return (da * (a + b) - a * (da + db)) / (a + b) ** 2


def ratio(s, eps):
    """sigma_eps(s)/sigma_eps'(s) straight from sigma_eps(z) = z psi(z/eps) (A.1)."""
    t = s / eps
    return s * psi(t) / (psi(t) + t * psi_prime(t))


def J_mpmath(s0, eps):
    s0, eps = mpmath.mpf(s0.numerator) / s0.denominator, mpmath.mpf(eps.numerator) / eps.denominator
    points = [0, min(s0, eps) / 2, min(s0, eps)] + ([s0] if s0 > eps else [])
    return mpmath.quad(lambda s: ratio(s, eps), points)


def mp(x):
    return mpmath.mpf(int(x.p)) / int(x.q)


@pytest.mark.parametrize("s0, eps", [(Fraction(1), Fraction(2)), (Fraction(7, 5), Fraction(2)), (Fraction(1), Fraction(1)),
                                     (Fraction(3), Fraction(2)), (Fraction(1, 3), Fraction(5, 2)),
                                     (Fraction(3, 4), Fraction(1, 2))])
def test_J_encloses_the_mpmath_quadrature(s0, eps):
    lower, upper = dead_zone_integral(fmpq(s0.numerator, s0.denominator), fmpq(eps.numerator, eps.denominator), 128)
    with mpmath.workdps(50):
        expected = J_mpmath(s0, eps)
        assert mp(lower_endpoint(lower)) <= expected <= mp(upper_endpoint(upper))
        # sharpness, not a tolerance: 128 bits ~ 38 digits, 8 of them allowed for acb.integral
        assert mp(upper_endpoint(upper)) - mp(lower_endpoint(lower)) < mpmath.mpf(10) ** -30
        assert expected < mpmath.mpf(s0.numerator) ** 2 / s0.denominator**2 / 2  # (A.61): strictly below s0^2/2


def test_J_of_a_tiny_s0_is_bounded_by_the_proved_tail():
    lower, upper = dead_zone_integral(fmpq(1, 10**15), fmpq(1), 128)
    assert lower.is_zero() and 0 < upper_endpoint(upper) <= fmpq(2, 3) * fmpq(1, 10**45) * (1 + fmpq(1, 10**30))


@pytest.mark.parametrize("t", ["0.001", "0.1", "0.37", "0.5", "0.8", "0.97", "0.995"])
def test_closed_form_equals_the_direct_quotient(t):
    with working_precision(160):
        value = _phi_integrand(acb(arb(t)), False).real
    with mpmath.workdps(45):
        tt = mpmath.mpf(t)
        # both at ~45 digits (160-bit ball printed to 45 digits, mpmath at 45): 5 digits for the
        # printing and mpmath's evaluation of an O(1) quantity
        assert abs(mpmath.mpf(value.mid().str(45, radius=False)) - ratio(tt, 1)) < mpmath.mpf(10) ** -40


def test_tail_bounds_hold():
    with mpmath.workdps(40):
        for k in range(1, 60):
            t = mpmath.mpf(2) ** -k / 2 * 1.3
            assert ratio(t, 1) <= 2 * t * t  # t phi(t) <= 2 t^2 for t <= 1/2
        deficit = mp(upper_endpoint(_one_tail_deficit()))
        assert deficit < mpmath.mpf(10) ** -50
        for u in (128, 129, 200, 1000):
            t = 1 - mpmath.mpf(1) / u
            assert ratio(t, 1) / t >= 1 - deficit


def params(p=13, eps_smooth=fmpq(2), epsilon=fmpq(1), A=fmpq(2), B=fmpq(1)):
    return SmoothParameters(p, eps_smooth, epsilon, A, B)


@pytest.mark.parametrize("overrides, words", [(dict(eps_smooth=fmpq(0)), "eps_smooth > 0"),
                                              (dict(B=fmpq(1, 2)), "B > epsilon/2"),
                                              (dict(A=fmpq(1, 3)), "(A.67)")])
def test_hypotheses_are_named(overrides, words):
    with pytest.raises(HypothesisError) as info:
        require_smooth_hypotheses(params(**overrides), 128)
    assert words in str(info.value)


def test_a67_is_weaker_than_a58():
    """(A.58) fails for A = 1/2 ((12/13 * 1/2)^2 < 1/2) but (A.67) holds since J(1) < 0.13 with eps = 2."""
    require_smooth_hypotheses(params(A=fmpq(1, 2)), 128)


@pytest.mark.parametrize("radius, claim_id", [(fmpq(1, 2), "single_active_gate"), (fmpq(26, 100), "single_active_gate")])
def test_box_conditions_are_named(radius, claim_id):
    with pytest.raises(NotCertified) as info:
        smooth_box_bounds(params(), radius, 128)
    assert info.value.claim_id == claim_id


def test_g_condition_on_the_box_is_named():
    with pytest.raises(NotCertified) as info:
        smooth_box_bounds(params(A=fmpq(1, 2)), fmpq(1, 10), 128)
    assert info.value.claim_id == "g_condition"


def test_box_bounds_follow_a67_a69():
    P, r = params(), fmpq(1, 10)
    box = smooth_box_bounds(P, r, 128)
    lower, upper = dead_zone_integral(P.epsilon + 2 * r, P.eps_smooth, 128)
    gmin = fmpq(12, 13) * (P.A - 2 * r)
    with working_precision(128):
        assert lower_endpoint(box.g_condition) <= gmin**2 - lower_endpoint(upper)
        g_star = box.g_star
        assert upper_endpoint(box.displacement_upper) <= upper_endpoint(upper / g_star) + fmpq(1, 10**30)


def test_claims_and_base_point():
    ids = {c.id for c in smooth_claims(params(), fmpq(1, 10), 128)}
    assert {"single_active_gate", "g_condition", "terminal_displacement_box", "purity_gap_box",
            "terminal_fourier_fraction", "gaussian_probability"} <= ids
    assert smooth_base_point(params()).w.at_0 == -2
