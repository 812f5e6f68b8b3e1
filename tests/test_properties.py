"""Property tests (hypothesis) on the kernel: exact input and output, certainly_* predicates,
the purity-gap lemma and the Gaussian box mass, each against an independent computation."""

from fractions import Fraction

import mpmath
from flint import arb, fmpq
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from certify.kernel.balls import (ball, certainly_le, certainly_lt, certainly_negative, certainly_positive,
                                  exact_ge, exact_le, lower_decimal, lower_endpoint, upper_decimal, upper_endpoint,
                                  working_precision)
from certify.kernel.exact import ExactNumber, format_decimal, format_rational, parse_exact
from certify.kernel.fourier import PerturbedBlock, purity_gap_lower
from certify.kernel.gaussian import box_log_mass
from oracles import gaussian_coordinate_mass

exact_numbers = st.builds(ExactNumber, st.integers(-10**40, 10**40), st.integers(1, 10**20), st.integers(-300, 300))
precisions = st.sampled_from([64, 96, 128, 200, 256])


def value(number: ExactNumber) -> Fraction:
    return Fraction(number.numerator, number.denominator) * Fraction(10) ** number.exp10


@given(exact_numbers, precisions)
def test_exact_input_and_output_round_trip(number, prec):
    """A ball built from an exact number contains it, and its written ends enclose it, exactly."""
    with working_precision(prec):
        x = ball(number)
    lo, hi = lower_decimal(x), upper_decimal(x)
    assert value(lo) <= value(number) <= value(hi)
    assert exact_le(lo, x) and exact_ge(hi, x)
    for end in (lo, hi):
        text = format_decimal(end.numerator, end.exp10)
        assert value(parse_exact(text)) == value(end) == Fraction(text)


@given(st.fractions(max_denominator=10**12).filter(lambda f: abs(f) < 10**15))
def test_rational_text_round_trips(fraction):
    text = format_rational(fmpq(fraction.numerator, fraction.denominator))
    assert Fraction(text) == fraction and value(parse_exact(text)) == fraction


def random_ball(mid: Fraction, rad: Fraction, prec: int) -> arb:
    with working_precision(prec):
        return ball(fmpq(mid.numerator, mid.denominator)) + arb(0, 1) * ball(fmpq(rad.numerator, rad.denominator))


centres = st.fractions(min_value=-10, max_value=10, max_denominator=10**6)
radii = st.fractions(min_value=0, max_value=3, max_denominator=10**6)


@given(centres, radii, centres, radii, precisions)
def test_certainly_predicates_never_assert_a_false_relation(m1, r1, m2, r2, prec):
    x, y = random_ball(m1, r1, prec), random_ball(m2, r2, prec)
    if certainly_lt(x, y):
        assert upper_endpoint(x) < lower_endpoint(y)
    if certainly_le(x, y):
        assert upper_endpoint(x) <= lower_endpoint(y)
    if certainly_positive(x):
        assert lower_endpoint(x) > 0
    if certainly_negative(x):
        assert upper_endpoint(x) < 0
    # and they are not vacuous: well-separated balls are decided
    if m1 + r1 + Fraction(1, 1000) < m2 - r2:
        assert certainly_lt(x, y)


def class_energies_mpmath(x, p):
    """||Pi_zeta x_0||^2 for zeta = 1..(p-1)/2 by the unitary DFT, at the current mpmath precision."""
    mean = sum(x) / p
    centred = [xi - mean for xi in x]
    energies = []
    for zeta in range(1, (p - 1) // 2 + 1):
        total = 0
        for sign in (1, -1):
            coefficient = sum(c * mpmath.expjpi(-2 * sign * zeta * a / mpmath.mpf(p)) for a, c in enumerate(centred))
            total += abs(coefficient) ** 2 / p
        energies.append(total)
    return energies, sum(c * c for c in centred)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([5, 7, 11]), st.data())
def test_purity_gap_holds_for_random_perturbations(p, data):
    fractions = st.fractions(min_value=-2, max_value=2, max_denominator=100)
    blocks, described = [], []
    for _ in range(3):
        beta, c = data.draw(fractions), data.draw(st.fractions(min_value=Fraction(1, 10), max_value=3,
                                                               max_denominator=100))
        c *= data.draw(st.sampled_from([-1, 1]))
        e = [data.draw(st.fractions(min_value=-Fraction(1, 4), max_value=Fraction(1, 4), max_denominator=1000))
             for _ in range(p)]
        E2 = sum(ei * ei for ei in e)
        x = [beta + ei + (c if a == 0 else 0) for a, ei in enumerate(e)]
        blocks.append(x)
        with working_precision(128):
            E = ball(fmpq(E2.numerator, E2.denominator)).sqrt()
            described.append(PerturbedBlock(ball(fmpq(abs(c).numerator, abs(c).denominator)),
                                            ball(fmpq(abs(c).numerator, abs(c).denominator)), E))
    with working_precision(128):
        bound = purity_gap_lower(p, described)
    with mpmath.workdps(40):
        energies, total = [0] * ((p - 1) // 2), 0
        for x in blocks:
            block_energies, block_total = class_energies_mpmath([mpmath.mpf(xi.numerator) / xi.denominator for xi in x], p)
            energies = [a + b for a, b in zip(energies, block_energies)]
            total += block_total
        assume(total > 0)
        gap = 1 - max(energies) / total
        assert mpmath.mpf(int(lower_endpoint(bound).p)) / int(lower_endpoint(bound).q) <= gap + mpmath.mpf(10) ** -30


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fractions(min_value=-60, max_value=60, max_denominator=1000),
       st.fractions(min_value=Fraction(1, 10**6), max_value=3, max_denominator=10**6))
def test_gaussian_box_mass_contains_mpmath(m, r):
    with working_precision(160):
        log_mass = box_log_mass([(fmpq(m.numerator, m.denominator), 1)], fmpq(r.numerator, r.denominator))
    with mpmath.workdps(50):
        expected = mpmath.log(gaussian_coordinate_mass(m, r, dps=60))
        lo = mpmath.mpf(int(lower_endpoint(log_mass).p)) / int(lower_endpoint(log_mass).q)
        hi = mpmath.mpf(int(upper_endpoint(log_mass).p)) / int(upper_endpoint(log_mass).q)
        slack = abs(expected) * mpmath.mpf(10) ** -45
        assert lo - slack <= expected <= hi + slack
        assert hi - lo < abs(expected) * mpmath.mpf(10) ** -20 + mpmath.mpf(10) ** -20  # and it is informative
