"""certify.kernel.balls: exact construction, outward decimal endpoints, certainly_* predicates."""

import time
from fractions import Fraction

import mpmath
import pytest
from flint import arb, fmpq
from hypothesis import given, strategies as st

from certify.kernel.balls import (ball, certainly_le, certainly_lt, certainly_negative, certainly_positive,
                                  exact_ge, exact_le, lower_decimal, lower_endpoint, upper_decimal,
                                  upper_endpoint, working_precision)
from certify.kernel.exact import ExactNumber, parse_exact

fractions = st.fractions(max_denominator=10**9).filter(lambda f: abs(f) < 10**9)


def as_fraction(number: ExactNumber) -> Fraction:
    return Fraction(number.numerator, number.denominator) * Fraction(10) ** number.exp10


def test_ball_refuses_floats_and_strings():
    for bad in (0.1, 1.0, "0.1", True):
        with pytest.raises(TypeError):
            ball(bad)


@given(fractions)
def test_ball_contains_the_exact_value(f):
    with working_precision(64):
        x = ball(fmpq(f.numerator, f.denominator))
    assert Fraction(str(lower_endpoint(x))) <= f <= Fraction(str(upper_endpoint(x)))


def mpf_of(exact_arb: arb) -> mpmath.mpf:
    mantissa, exponent = exact_arb.man_exp()
    return mpmath.mpf((int(mantissa), int(exponent)))


def test_ball_of_exact_decimal_with_huge_exponent():
    with working_precision(128):
        x = ball(parse_exact("3e-4000000"))
    with mpmath.workdps(60):
        expected = mpmath.mpf(3) * mpmath.mpf(10) ** -4000000
        assert abs(mpf_of(x.mid()) - expected) <= mpf_of(x.rad())
        assert mpf_of(x.rad()) < expected * mpmath.mpf(10) ** -30


@given(fractions, st.integers(1, 40))
def test_decimal_endpoints_enclose_the_ball(f, shift):
    with working_precision(128):
        x = ball(fmpq(f.numerator, f.denominator)).sqrt() if f > 0 else ball(fmpq(f.numerator, f.denominator)) / 7
        x = x * arb(10) ** (shift - 20)
        lo, hi = lower_decimal(x), upper_decimal(x)
    assert as_fraction(lo) <= Fraction(str(lower_endpoint(x)))
    assert Fraction(str(upper_endpoint(x))) <= as_fraction(hi)
    # outward but tight: the written interval is at most a few ulps wider than the ball
    width = as_fraction(hi) - as_fraction(lo)
    assert width <= 4 * Fraction(str(upper_endpoint(x) - lower_endpoint(x))) + Fraction(10) ** (lo.exp10 + 2)


def test_decimal_endpoints_are_strict_for_inexact_balls():
    with working_precision(128):
        third = ball(fmpq(1, 3))
    assert as_fraction(lower_decimal(third)) < Fraction(str(lower_endpoint(third)))
    assert as_fraction(upper_decimal(third)) > Fraction(str(upper_endpoint(third)))


def test_decimal_endpoints_of_exact_balls_are_exact():
    half = ball(fmpq(1, 2))
    assert as_fraction(lower_decimal(half)) == Fraction(1, 2) == as_fraction(upper_decimal(half))


@given(fractions, fractions)
def test_certainly_predicates_never_assert_false_relations(a, b):
    with working_precision(64):
        x, y = ball(fmpq(a.numerator, a.denominator)), ball(fmpq(b.numerator, b.denominator))
    if certainly_lt(x, y):
        assert a < b
    if certainly_le(x, y):
        assert a <= b
    if certainly_positive(x):
        assert a > 0
    if certainly_negative(x):
        assert a < 0


def test_certainly_is_false_when_undecided():
    wide = arb(0, 1)  # the ball [-1, 1]
    assert not certainly_positive(wide) and not certainly_negative(wide)
    assert not certainly_lt(wide, arb(fmpq(1, 2))) and not certainly_lt(arb(fmpq(1, 2)), wide)
    third = ball(fmpq(1, 3))
    assert not certainly_lt(third, third)  # x < x is never proved


def test_exact_comparisons_decide_equality_exactly():
    third = fmpq(1, 3)
    assert exact_le(parse_exact("1/3"), third) and exact_ge(parse_exact("1/3"), third)
    assert not exact_le(parse_exact("0.3333333333333333333333333333334"), third)
    with working_precision(128):
        x = ball(third)
    lo, hi = lower_decimal(x), upper_decimal(x)
    assert exact_le(lo, x) and exact_ge(hi, x)
    assert not exact_ge(lo, x) and not exact_le(hi, x)
    half = ball(fmpq(1, 2))
    assert exact_le(parse_exact("0.5"), half) and exact_ge(parse_exact("0.5"), half)


def test_exact_comparisons_with_astronomical_exponents_are_quick():
    with working_precision(128):
        tiny = ball(parse_exact("4.5e-4000000"))
    start = time.perf_counter()
    assert exact_le(parse_exact("4.4e-4000000"), tiny)
    assert not exact_le(parse_exact("4.6e-4000000"), tiny)
    assert not exact_le(parse_exact("1e999999999999999"), tiny)
    assert exact_le(parse_exact("-1e999999999999999"), tiny)
    assert exact_ge(parse_exact("1e999999999999999"), tiny)
    assert time.perf_counter() - start < 2  # generous: a regression to integer expansion takes minutes


def test_working_precision_sets_and_restores_the_precision():
    from flint import ctx

    before = ctx.prec
    with working_precision(200):
        assert ctx.prec == 200
        with working_precision(80):
            assert ctx.prec == 80
        assert ctx.prec == 200
    assert ctx.prec == before
    with pytest.raises(ZeroDivisionError):
        with working_precision(300):
            1 / 0
    assert ctx.prec == before


def test_working_precision_refuses_a_precision_changed_behind_its_back():
    # what another thread computing with python-flint leaves (tests/conftest.py once built certificates in its
    # coqc pool): the ambient precision set from outside the block; the block restores it and raises
    import threading

    from flint import ctx

    before = ctx.prec
    with pytest.raises(RuntimeError, match="another thread"):
        with working_precision(150):
            other = threading.Thread(target=lambda: setattr(ctx, "prec", 53))
            other.start()
            other.join()
    assert ctx.prec == before


@given(st.fractions(), st.integers(-60, 60), st.integers(0, 40))
def test_scaled_floor_and_ceil_bound_every_point(f, bits, shift):
    """scaled_floor(x, b) <= 2^b y <= scaled_ceil(x, b) for every point y of x: checked with exact rationals (fmpq)
    on the ball's endpoints mid -/+ rad, for exact and inexact balls (1/3 at 20 bits is inexact); and each is within
    one unit plus the endpoint's rounding to the working precision (Arb's lower() and upper() round mid -/+ rad
    outward to that precision) of the tightest integer."""
    from math import ceil, floor

    from certify.kernel.balls import lower_endpoint, scaled_ceil, scaled_floor, upper_endpoint, working_precision
    with working_precision(20 + shift):
        x = ball(fmpq(f.numerator, f.denominator))
        lo, hi = lower_endpoint(x), upper_endpoint(x)
        scale = fmpq(2) ** bits if bits >= 0 else fmpq(1, 2 ** -bits)
        want_lo, want_hi = lo * scale, hi * scale
        want_lo, want_hi = Fraction(int(want_lo.p), int(want_lo.q)), Fraction(int(want_hi.p), int(want_hi.q))
        slack = lambda y: abs(y) * Fraction(1, 2 ** (18 + shift)) + 1  # noqa: E731
        assert want_lo - slack(want_lo) <= scaled_floor(x, bits) <= floor(want_lo)
        assert ceil(want_hi) <= scaled_ceil(x, bits) <= want_hi + slack(want_hi)


def test_scaled_bounds_of_a_ball_that_is_not_finite():
    from certify.kernel.balls import scaled_ceil, scaled_floor
    assert scaled_floor(arb("inf"), 4) is None and scaled_ceil(arb("nan"), 4) is None
