"""certify.kernel.log10: an end and its log10 state one number; decided against mpmath at high precision."""

import mpmath
import pytest
from flint import arb, ctx
from fractions import Fraction

from hypothesis import assume, example, given, settings, strategies as st

from certify.certificate import _twin_bits
from certify.errors import NotCertified
from certify.kernel.balls import ball_le_exact, exact_le_ball
from certify.kernel.exact import ExactNumber, canonical_text, parse_exact
from certify.kernel.log10 import exact_log10, log10_enclosure, log10_lower_twin, log10_upper_twin, pair_agrees


def oracle_log10(number: ExactNumber) -> mpmath.mpf:
    """log10 of m / d * 10^e as e + log10(m) - log10(d), at 120 digits (independent of Arb)."""
    with mpmath.workdps(120):
        return mpmath.mpf(number.exp10) + mpmath.log10(number.numerator) - mpmath.log10(number.denominator)


def oracle_agrees(end: ExactNumber, field: ExactNumber, upper: bool):
    """The pair relation by mpmath; None when the margin is too thin for 120 digits to be sure."""
    with mpmath.workdps(120):
        value = oracle_log10(end)
        low = mpmath.mpf(field.numerator) * mpmath.mpf(10) ** field.exp10
        mantissa, exponent = field.numerator, field.exp10
        while mantissa and mantissa % 10 == 0:  # u is the unit of the last nonzero digit
            mantissa, exponent = mantissa // 10, exponent + 1
        unit = mpmath.mpf(10) ** exponent
        if abs(mantissa) < 2:
            return False
        edges = (low - unit, low) if upper else (low, low + unit)
        if min(abs(value - edge) for edge in edges) < mpmath.mpf(10) ** -100 * max(1, abs(value)):
            return None
        return edges[0] < value <= edges[1] if upper else edges[0] <= value < edges[1]


@pytest.mark.parametrize("text, expected", [("1e-40", -40), ("100", 2), ("1e561", 561), ("0.001", -3), ("3", None),
                                            ("1/3", None), ("1e" + "9" * 60, int("9" * 60))])
def test_exact_log10(text, expected):
    assert exact_log10(parse_exact(text)) == expected


@pytest.mark.parametrize("end, field, upper, expected", [
    ("1e-40", "-40", False, True),           # exact: -40 <= -40 < -30 (u = 10: -40 is 4e1)
    ("1e-40", "-41", False, False),          # -40 is not below -41 + 1
    ("1e-40", "-42", False, False),
    ("1e-40", "-39", False, False),
    ("1e561", "561", True, True),
    ("1e561", "560", True, False),           # u = 10: 561 is above 560
    ("1e559", "560", True, True),            # 550 < 559 <= 560
    ("1e-555", "-560", False, True),          # -560 <= -555 < -550
    ("1e-555", "-56", False, False),
    ("1e-40", "-100", False, False),          # a lone leading 1: u = 100 is more than half of 100
    ("3.8e-19", "-1e" + "9" * 60, False, False),
    ("0.5", "-1", False, False),
    ("1.79932090977349313326311672434873302927010754e-34", "-33.7448913731109342982514193900374421", False, True),
    ("1.79932090977349313326311672434873302927010754e-34", "-33.75", False, True),
    ("1.79932090977349313326311672434873302927010754e-34", "-33.74", False, False),
    ("1.79932090977349313326311672434873302927010754e-34", "-33.8", False, True),   # -33.8 <= -33.7449 < -33.7
    ("1e-999999999", "-33.7448913731109342982514193900374421", False, False),
    ("1.8e561", "-1e-999999999", False, False),   # a tiny field with a huge negative exponent: refuted quickly
    ("0", "-3", False, False),
    ("-1", "0", True, False),
])
def test_pair_agrees_examples(end, field, upper, expected):
    assert pair_agrees(parse_exact(end), parse_exact(field), upper) is expected


mantissas = st.integers(1, 10 ** 45)
exponents = st.one_of(st.integers(-400, 400), st.integers(-10 ** 30, 10 ** 30))


@settings(max_examples=300, deadline=None)
@given(mantissas, exponents, st.integers(0, 44), st.integers(-3, 3), st.booleans())
def test_pair_agrees_matches_mpmath(mantissa, exponent, places, nudge, upper):
    end = ExactNumber(mantissa, 1, exponent)
    with mpmath.workdps(120):
        value = oracle_log10(end)
        field_mantissa = int(mpmath.floor(value * mpmath.mpf(10) ** places)) + nudge
    field = parse_exact(canonical_text(ExactNumber(field_mantissa, 1, -places)))
    expected = oracle_agrees(end, field, upper)
    if expected is not None:
        assert pair_agrees(end, field, upper) is expected


def _a_field_exists(end: ExactNumber, kernel_log: arb, sides=(False, True)) -> bool:
    """True if some log10 field is certainly available beside ``end`` for a lower or for an upper pair (``sides``: the
    directions asked, upper = True; default both) (mpmath, 120
    digits). What the writer needs (certify/kernel/log10.py, _round_pair): at a unit u = 10^k, k from 60 significant
    digits of the widened end on, the multiple F of u next beyond that end (the kernel's ball's end moved out by
    two radii, or log10(end) if that is further out), with log10(end) within u of F (F - u < log10(end) for an upper
    field) and |F| >= 2 units of its last nonzero digit (not +-10^j). A candidate within 10^-20 (relatively) of a
    boundary is not counted: the writer's exact ends and these 60-digit copies may fall on either side of it."""
    with mpmath.workdps(120):
        x = oracle_log10(end)
        mid = mpmath.mpf(kernel_log.mid().str(60, radius=False))
        rad = mpmath.mpf(kernel_log.rad().str(30, radius=False))
        slack = mpmath.mpf(10) ** -20 * (1 + abs(x))
        for upper in sides:
            outer = max(x, mid + 3 * rad) if upper else min(x, mid - 3 * rad)
            first = int(mpmath.floor(mpmath.log10(abs(outer)))) + 1 - 60
            for k in range(first, first + 400):
                unit = mpmath.mpf(10) ** k
                rounded = [mpmath.ceil(y / unit) if upper else mpmath.floor(y / unit) for y in (outer - slack, outer + slack)]
                if rounded[0] != rounded[1] or rounded[0] == 0:
                    continue
                multiple = int(rounded[0])
                while multiple % 10 == 0:
                    multiple //= 10
                field = rounded[0] * unit
                near = field - unit < x - slack if upper else field + unit > x + slack
                if near and abs(multiple) >= 2:
                    return True
    return False


def test_the_field_oracle_finds_fields_and_sees_where_there_is_none():
    """_a_field_exists is not vacuous: a field exists beside 2 10^10 at 128 bits; none beside hypothesis's example
    (the test below), where the writer raises."""
    for mantissa, exponent, prec, expected in ((2, 10, 128, True), (2, 999999999999999999999999998464, 92, False)):
        end = ExactNumber(mantissa, 1, exponent)
        with ctx.workprec(prec):
            kernel_log = log10_enclosure(end, prec) + arb(f"[0 +/- 1e-{prec // 8}]")
            assert _a_field_exists(end, kernel_log) is expected


@settings(max_examples=200, deadline=None)
@given(mantissas, exponents, st.integers(64, 512))
@example(2, 999999999999999999999999998464, 92)
@example(999_999_930_922_449_249_933_029_648_592, 0, 66)  # a lower field exists, no upper one (the ball holds 30)
def test_written_twins_agree_and_bound_the_log(mantissa, exponent, prec):
    """The writer's log10 fields make a pair that agrees and lie outside the kernel's log10 enclosure.

    Ends near 1 are left out: log10 near 0 has no significant digit to state (the writer raises);
    so are powers of ten, whose integer log10 the kernel's wider ball straddles (no decimal at or
    below that ball has log10 of the end within one unit; the writer raises NotCertified, never
    writes a false pair). Written ends are 40-digit decimals, never powers of ten.
    """
    end = ExactNumber(mantissa, 1, exponent)
    assume(exact_log10(end) is None)
    assume(abs(exponent) > 100 or not Fraction(1, 2) <= Fraction(mantissa) * Fraction(10) ** exponent <= 2)
    with ctx.workprec(prec):
        kernel_log = log10_enclosure(end, prec) + arb(f"[0 +/- 1e-{prec // 8}]")  # wider, as a kernel ball may be
        bits = _twin_bits(end)  # the writer's own working bits for this end
        written = {}
        for is_upper, writer in ((False, log10_lower_twin), (True, log10_upper_twin)):
            try:
                written[is_upper] = writer(end, kernel_log, bits)
            except NotCertified:
                # allowed only when no field of that side exists: checked with mpmath, apart from the writer's search
                assert not _a_field_exists(end, kernel_log, (is_upper,)), (mantissa, exponent, prec, is_upper)
                return
        lower, upper = written[False], written[True]
        assert exact_le_ball(lower, kernel_log) and ball_le_exact(kernel_log, upper)
    for field, is_upper in ((lower, False), (upper, True)):
        field = parse_exact(canonical_text(field))
        assert pair_agrees(end, field, is_upper)
        expected = oracle_agrees(end, field, is_upper)
        assert expected in (True, None)
