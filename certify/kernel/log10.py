"""An end and its log10: the pair ``lo`` / ``log10_lo`` states one number to the written digits.

Probabilities near 10^-(10^54) and capture times near 10^561 are read by their
exponent, so such claims carry both an end and its log10. Each is checked
against the recomputation on its own; this module makes the *pair* a true
statement too: the log10 field is log10 of the end, rounded outward at the
field's last nonzero digit. With u = 10^k, k the exponent of that digit
(``"-33.7448"`` -> 10^-4, ``"-34"`` -> 1, ``"-9.5e54"`` -> 10^53, ``"-560"`` -> 10:
a canonical integer's trailing zeros are not digits it states):

* a lower pair states  ``log10_lo <= log10(lo) < log10_lo + u``;
* an upper pair states ``log10_hi - u < log10(hi) <= log10_hi``;
* and in both, ``2u <= |field|``: the field has a significant digit besides a
  leading 1, so that it locates log10 of the end within a factor of two. (Without
  it, ``log10_lo = "-1e999999999"`` would "agree" with every lo < 1: rounding down
  at that unit takes any small negative number there.)

So ``lo = "1e-999999999"`` beside ``log10_lo = "-33.74"`` is a false statement,
though each number alone is a valid (weak) lower bound. The checker decides the
pair exactly for powers of ten and otherwise with proved enclosures
(:func:`pair_agrees`); the writer (:func:`log10_lower_twin`,
:func:`log10_upper_twin`) picks the finest unit at which the rounding is certain
and checks the result.
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


def twin_unit_form(field: ExactNumber) -> ExactNumber:
    """The decimal ``field`` as m 10^k with m not divisible by 10 (0 stays 0 10^0): u = 10^k is one unit of
    its last nonzero digit, the unit of the pair rule (and |field| >= 2u iff |m| >= 2). The checker, the
    statement text (certify.kernel.claims) and the Coq exporter (certify/coq/relations.py) all use it."""
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
    it. False if ``end`` is not positive, if the field's unit is more than half
    its magnitude, or if the enclosures cannot decide (never True unless the
    relation holds).
    """
    if log10_field.denominator != 1 or end.sign() <= 0:
        return False
    log10_field = twin_unit_form(log10_field)
    if abs(log10_field.numerator) < 2:  # |field| = |m| u with |m| >= 2 is the condition 2u <= |field|
        return False
    one_unit = ExactNumber(log10_field.numerator + (-1 if upper else 1), 1, log10_field.exp10)
    exact = exact_log10(end)
    if exact is not None:  # a power of ten: log10 is an integer, so decide exactly (a ball could not)
        if upper:
            return compare(one_unit, exact) < 0 <= compare(log10_field, exact)
        return compare(log10_field, exact) <= 0 < compare(one_unit, exact)
    # otherwise log10(end) is irrational (log10 of a rational is rational only for powers of ten),
    # so it never equals a decimal, and balls of growing precision separate the two; stop as soon as
    # the relation is proved or refuted, and at the bits that resolve the field's last digit
    needed = _precision_for(end, log10_field)
    bits = 64
    while True:
        bits = min(2 * bits, needed, MAX_PAIR_BITS)
        value = log10_enclosure(end, bits)
        with ctx.workprec(bits):
            if upper:  # log10_hi - u < log10(hi) <= log10_hi
                if exact_lt_ball(one_unit, value) and ball_le_exact(value, log10_field):
                    return True
                if ball_le_exact(value, one_unit) or exact_lt_ball(log10_field, value):
                    return False
            else:  # log10_lo <= log10(lo) < log10_lo + u
                if exact_le_ball(log10_field, value) and ball_lt_exact(value, one_unit):
                    return True
                if ball_lt_exact(value, log10_field) or exact_le_ball(one_unit, value):
                    return False
        if bits >= min(needed, MAX_PAIR_BITS):
            return False  # undecided at the finest precision the field can mean: not proved


def _first_exponent(reference: fmpq) -> int:
    """The finest unit exponent tried: MAX_LOG10_DIGITS significant digits of ``reference``."""
    magnitude = abs(reference)
    if magnitude == 0:
        return -MAX_LOG10_DIGITS
    return decimal_digits(int(magnitude.p)) - decimal_digits(int(magnitude.q)) + 1 - MAX_LOG10_DIGITS


def _multiple(value: fmpq, k: int, upward: bool) -> int:
    """floor(value / 10^k), or the ceiling if ``upward``, exactly."""
    scaled = value / fmpz(10) ** k if k >= 0 else value * fmpz(10) ** (-k)
    return int(-((-scaled.p) // scaled.q) if upward else scaled.p // scaled.q)


def _round_pair(inner: fmpq, outer: fmpq, upward: bool) -> ExactNumber:
    """The field: ``outer`` rounded outward at the finest unit 10^k that rounds ``inner`` to the same multiple.

    For a lower pair ``outer <= inner`` are the ends of what must lie at or above
    the field (the kernel's log10 lower end, widened, and log10 of the written end);
    rounding both down to the same multiple m 10^k gives field = m 10^k <= outer
    and log10(end) <= inner < field + 10^k. Mirror for an upper pair. Raises
    NotCertified if no unit works or the result would be a lone leading 1.
    """
    from ..errors import NotCertified

    k = _first_exponent(outer)
    for _ in range(400):
        multiple = _multiple(outer, k, upward)
        if multiple == _multiple(inner, k, upward) and multiple != 0:
            field = twin_unit_form(ExactNumber(multiple, 1, k))
            if abs(field.numerator) >= 2:
                return field
        k += 1
    raise NotCertified("no decimal states log10 of this end to a significant digit")


def log10_lower_twin(lo: ExactNumber, log10_lower: arb, bits: int) -> ExactNumber:
    """The log10_lo written beside ``lo``: <= log10(lo) and <= every point of ``log10_lower``, and agreeing with lo.

    Requires lo > 0. ``log10_lower`` is the kernel's enclosure of log10 of the
    quantity; its width is subtracted once more so that a checker's recomputation
    (a different, tighter ball) still lies above. The caller verifies the result
    with :func:`pair_agrees` before writing it.
    """
    own = log10_enclosure(lo, bits)
    outer = min(lower_endpoint(own), lower_endpoint(log10_lower) - 2 * log10_lower.rad().fmpq())
    return _round_pair(upper_endpoint(own), outer, upward=False)


def log10_upper_twin(hi: ExactNumber, log10_upper: arb, bits: int) -> ExactNumber:
    """The log10_hi written beside ``hi``: >= log10(hi) and >= every point of ``log10_upper`` (mirror of the lower twin)."""
    own = log10_enclosure(hi, bits)
    outer = max(upper_endpoint(own), upper_endpoint(log10_upper) + 2 * log10_upper.rad().fmpq())
    return _round_pair(lower_endpoint(own), outer, upward=True)
