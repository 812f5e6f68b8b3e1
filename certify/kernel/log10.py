"""An end and its log10: the pair ``lo`` / ``log10_lo`` states one number to the written digits.

Probabilities near 10^-(10^54) and capture times near 10^561 are read by their
exponent, so such claims carry both an end and its log10. Each is checked
against the recomputation on its own; this module makes the *pair* a true
statement too. With u = 10^k, k the exponent of the last nonzero written digit of the
log10 field (``"-33.7448"`` -> 10^-4, ``"-34"`` -> 1, ``"-9.5e54"`` -> 10^53,
``"-560"`` -> 10: an integer's trailing zeros are not digits it states):

* a lower pair states  ``log10_lo <= log10(lo) < log10_lo + 2u``;
* an upper pair states ``log10_hi - 2u < log10(hi) <= log10_hi``.

So ``lo = "1e-999999999"`` beside ``log10_lo = "-33.74"`` is a false statement,
though each number alone is a valid (weak) lower bound. The checker decides the
pair with proved enclosures (:func:`pair_agrees`); the writer
(:func:`log10_lower_twin`, :func:`log10_upper_twin`) chooses k so that the pair
agrees with margin and the log10 field is also a valid bound for the kernel's
own log10 enclosure.
"""

from __future__ import annotations

import math

from flint import arb, ctx, fmpq, fmpz

from .balls import ball, ball_lt_exact, exact_le_ball, exact_lt_ball, ball_le_exact, lower_endpoint, upper_endpoint
from .exact import ExactNumber, _digits, compare, decimal_digits

#: Precision at which an undecided pair is given up (not proved). A work bound: a field of at most 200
#: characters needs far fewer bits unless it is a tiny number with a huge negative exponent, whose
#: last digit no enclosure of the end's log10 could mean.
MAX_PAIR_BITS = 8192

#: The log10 field carries at most this many significant digits (certify/1 numbers are at most 200 characters).
MAX_LOG10_DIGITS = 60


def log10_enclosure(number: ExactNumber, bits: int) -> arb:
    """A ball containing log10(``number``) for an exact ``number`` > 0, with about ``bits`` bits of absolute accuracy.

    Requires ``number`` > 0 (ValueError otherwise). The exponent of ``number`` is
    carried exactly (:func:`~certify.kernel.balls.ball` adds the bits it costs).
    """
    if number.sign() <= 0:
        raise ValueError("log10 of a number that is not positive")
    magnitude_bits = max(abs(number.exp10), 1).bit_length() + 8
    with ctx.workprec(bits + magnitude_bits):
        return ball(number).log() / arb(10).log()


def _unit_form(field: ExactNumber) -> ExactNumber:
    """The decimal ``field`` as m 10^k with m not divisible by 10 (0 stays 0 10^0): k fixes u = 10^k."""
    numerator, exp10 = field.numerator, field.exp10
    while numerator and numerator % 10 == 0:
        numerator //= 10
        exp10 += 1
    return ExactNumber(numerator, 1, exp10)


def exact_log10(number: ExactNumber) -> int | None:
    """log10(``number``) if ``number`` is an integral power of ten (then it is that integer), else None."""
    if number.numerator <= 0:
        return None
    from math import gcd

    common = gcd(number.numerator, number.denominator)
    numerator, denominator = number.numerator // common, number.denominator // common

    def power_of_ten(n: int) -> int | None:
        text = _digits(n)
        return len(text) - 1 if text.rstrip("0") == "1" else None

    up, down = power_of_ten(numerator), power_of_ten(denominator)
    if up is None or down is None:
        return None
    return number.exp10 + up - down


def _precision_for(end: ExactNumber, log10_field: ExactNumber) -> int:
    """Bits that resolve one unit of the last digit of ``log10_field`` at its magnitude, plus the end's digits.

    The end's digits count because log10 of an end close to a power of ten
    (10^45 - 2) is that close to an integer: 45 digits of it are needed to see on
    which side of 45 it lies.
    """
    digits = decimal_digits(log10_field.numerator)
    last = max(0, -log10_field.exp10)
    end_digits = decimal_digits(end.numerator) + decimal_digits(end.denominator) + len(str(abs(end.exp10)))
    return int((digits + last + end_digits + 4) * math.log2(10)) + 64


def pair_agrees(end: ExactNumber, log10_field: ExactNumber, upper: bool) -> bool:
    """True only if the pair states one number: see the module docstring (``upper`` for a hi pair).

    Requires ``log10_field`` to be a decimal (denominator 1), as certify/1 writes
    it; its ``exp10`` is then the exponent k of its last written digit. False if
    ``end`` is not positive or if the enclosures cannot decide (never True unless
    the relation holds).
    """
    if log10_field.denominator != 1 or end.sign() <= 0:
        return False
    log10_field = _unit_form(log10_field)
    two_units = ExactNumber(log10_field.numerator + (-2 if upper else 2), 1, log10_field.exp10)
    exact = exact_log10(end)
    if exact is not None:  # a power of ten: log10 is an integer, so decide exactly (a ball could not)
        if upper:
            return compare(two_units, exact) < 0 <= compare(log10_field, exact)
        return compare(log10_field, exact) <= 0 < compare(two_units, exact)
    # otherwise log10(end) is irrational (log10 of a rational is rational only for powers of ten),
    # so it never equals a decimal, and balls of growing precision separate the two; stop as soon as
    # the relation is proved or refuted, and at the bits that resolve the field's last digit
    needed = _precision_for(end, log10_field)
    bits = 64
    while True:
        bits = min(2 * bits, needed, MAX_PAIR_BITS)
        value = log10_enclosure(end, bits)
        with ctx.workprec(bits):
            if upper:  # log10_hi - 2u < log10(hi) <= log10_hi
                if exact_lt_ball(two_units, value) and ball_le_exact(value, log10_field):
                    return True
                if ball_lt_exact(value, two_units) or exact_lt_ball(log10_field, value):
                    return False
            else:
                if exact_le_ball(log10_field, value) and ball_lt_exact(value, two_units):
                    return True
                if ball_lt_exact(value, log10_field) or exact_le_ball(two_units, value):
                    return False
        if bits >= min(needed, MAX_PAIR_BITS):
            return False  # undecided at the finest precision the field can mean: not proved


def _unit_exponent(gap: fmpq, reference: fmpq) -> int:
    """The least k with gap < 10^k, and at least the k that keeps MAX_LOG10_DIGITS digits of ``reference``."""
    magnitude = abs(reference)
    k = (decimal_digits(int(magnitude.p)) - decimal_digits(int(magnitude.q)) + 1 - MAX_LOG10_DIGITS) \
        if magnitude != 0 else -MAX_LOG10_DIGITS
    while compare(gap, ExactNumber(1, 1, k)) >= 0:
        k += 1
    return k


def _floor_to(value: fmpq, k: int, upward: bool) -> ExactNumber:
    """The multiple of 10^k just below (above, if ``upward``) the exact ``value``."""
    scaled = value / fmpz(10) ** k if k >= 0 else value * fmpz(10) ** (-k)
    integer = -((-scaled.p) // scaled.q) if upward else scaled.p // scaled.q
    return ExactNumber(int(integer), 1, k)


def log10_lower_twin(lo: ExactNumber, log10_lower: arb, bits: int) -> ExactNumber:
    """The log10_lo written beside ``lo``: <= log10(lo) and <= every point of ``log10_lower``, and agreeing with lo.

    Requires lo > 0. ``log10_lower`` is the kernel's enclosure of log10 of the
    quantity; its width is subtracted once more so that a checker's recomputation
    (a different, tighter ball) still lies above. Guarantee: ``pair_agrees(lo,
    result, upper=False)`` holds, decided with margin (the gap is below u).
    """
    own = log10_enclosure(lo, bits)
    floor = min(lower_endpoint(own), lower_endpoint(log10_lower) - 2 * log10_lower.rad().fmpq())
    k = _unit_exponent(upper_endpoint(own) - floor, floor)
    return _floor_to(floor, k, upward=False)


def log10_upper_twin(hi: ExactNumber, log10_upper: arb, bits: int) -> ExactNumber:
    """The log10_hi written beside ``hi``: >= log10(hi) and >= every point of ``log10_upper`` (mirror of the lower twin)."""
    own = log10_enclosure(hi, bits)
    ceiling = max(upper_endpoint(own), upper_endpoint(log10_upper) + 2 * log10_upper.rad().fmpq())
    k = _unit_exponent(ceiling - lower_endpoint(own), ceiling)
    return _floor_to(ceiling, k, upward=True)
