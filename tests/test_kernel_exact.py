"""certify.kernel.exact: the strict exact-number grammar, canonical printing, outward rounding."""

from fractions import Fraction

import pytest
from flint import fmpq
from hypothesis import given, strategies as st

from certify.kernel.exact import (ExactNumber, exceeds, format_decimal, format_rational, parse_exact,
                                  parse_rational, round_decimal)


def value(number: ExactNumber) -> Fraction:
    return Fraction(number.numerator, number.denominator) * Fraction(10) ** number.exp10


@pytest.mark.parametrize("text", ["0", "-3", "17", "1/3", "-22/7", "0.5", "-0.125", "1.25e-7", "3e5",
                                  "2.5e0", "1e-4000", "-7.0"])
def test_parse_agrees_with_fraction(text):
    assert value(parse_exact(text)) == Fraction(text)


@pytest.mark.parametrize("text", ["", " 1", "1 ", "+1", "1.", ".5", "1e", "1e+5", "1/0", "1/-3", "-1/-3", "01",
                                  "1/03", "abc", "nan", "inf", "0x10", "1_000", "1.5/2", "--1", "1e" + "1" * 61, "1e0000000000000001",
                                  "9" * 201, "١"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_exact(text)


def test_parse_rejects_non_strings():
    for bad in (1, 0.5, None, [1]):
        with pytest.raises(ValueError):
            parse_exact(bad)


def test_parse_rational_refuses_huge_exponent():
    assert parse_rational("1e-5") == fmpq(1, 100000)
    with pytest.raises(ValueError):
        parse_rational("1e-999999999")


@given(st.fractions(max_denominator=10**12).filter(lambda f: abs(f.numerator) < 10**30))
def test_format_rational_round_trips(fraction):
    text = format_rational(fmpq(fraction.numerator, fraction.denominator))
    assert Fraction(text) == fraction
    assert value(parse_exact(text)) == fraction


def test_format_rational_prefers_short_decimals():
    assert format_rational(fmpq(1, 8)) == "0.125"
    assert format_rational(fmpq(-5, 2)) == "-2.5"
    assert format_rational(fmpq(1, 3)) == "1/3"
    assert format_rational(fmpq(7)) == "7"


@given(st.integers(-10**40, 10**40), st.integers(-60, 60))
def test_format_decimal_round_trips(mantissa, exp10):
    text = format_decimal(mantissa, exp10)
    assert Fraction(text) == Fraction(mantissa) * Fraction(10) ** exp10
    assert value(parse_exact(text)) == Fraction(text)


def test_format_decimal_scientific_for_extreme_exponents():
    assert format_decimal(123, -4000003) == "1.23e-4000001"
    assert value(parse_exact("1.23e-4000001")) == Fraction(123) * Fraction(10) ** -4000003


@given(st.integers(-10**30, 10**30).filter(bool), st.integers(-20, 20), st.integers(1, 12))
def test_round_decimal_is_outward(mantissa, exp10, digits):
    number = ExactNumber(mantissa, 1, exp10)
    down, up = round_decimal(number, digits, False), round_decimal(number, digits, True)
    assert value(down) <= value(number) <= value(up)
    assert len(str(abs(down.numerator))) <= digits + 1 and len(str(abs(up.numerator))) <= digits + 1


def test_round_decimal_of_fraction():
    third = ExactNumber(1, 3, 0)
    assert value(round_decimal(third, 5, False)) == Fraction(33333, 100000)
    assert value(round_decimal(third, 5, True)) == Fraction(33334, 100000)


def test_exceeds_is_exact_and_cheap_for_huge_exponents():
    assert exceeds(parse_exact("1e-9999999"), 0)
    assert not exceeds(parse_exact("-1e-9999999"), 0)
    assert not exceeds(parse_exact("1e-9999999"), fmpq(1, 10**6))
    assert exceeds(parse_exact("1e-9999999"), fmpq(-1, 10**6))
    assert exceeds(parse_exact("1e9999999"), fmpq(10**6))
    assert exceeds(parse_exact("1/3"), fmpq(333, 1000)) and not exceeds(parse_exact("1/3"), fmpq(1, 3))
