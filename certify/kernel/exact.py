"""Exact numbers as certify/1 writes them: strict parsing and canonical printing.

Every number in a certificate that is not a small integer is a string that
Python's ``fractions.Fraction`` parses to the exact value. We accept a strict
subset of what ``Fraction`` accepts, so that a checker never guesses:

* an integer ``-12``, a fraction ``-3/4`` (positive denominator, no sign), or
* a decimal ``-0.125``, optionally with an exponent: ``1.25e-7`` (a power of ten,
  the exponent at most 60 digits long: probabilities for p near 10^18 reach 10^-(10^54)).

Decimals with huge exponents (Gaussian probabilities for large p are below
10^-1000000) stay O(1) in size as text and as :class:`ExactNumber`; they are
only turned into a rational (:meth:`ExactNumber.fmpq`) when that is cheap.

This module builds no balls; :mod:`certify.kernel.balls` does that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flint import fmpq, fmpz

#: The longest exact-number string certify/1 accepts (schema ``maxLength`` too).
MAX_NUMBER_LENGTH = 200

#: Decimal exponents beyond this are kept symbolic (never expanded to integers).
MAX_EXPANDED_EXP10 = 10_000

_FRACTION = re.compile(r"(0|-?[1-9][0-9]*)(?:/([1-9][0-9]*))?")
_DECIMAL = re.compile(r"(-?)(0|[1-9][0-9]*)\.([0-9]+)(?:e(-?(?:0|[1-9][0-9]{0,59})))?"
                      r"|(-?)(0|[1-9][0-9]*)e(-?(?:0|[1-9][0-9]{0,59}))")

#: The same grammar as a JSON Schema pattern (kept beside the regexes it mirrors).
JSON_PATTERN = (r"^(0|-?[1-9][0-9]*)(/[1-9][0-9]*)?$"
                r"|^-?(0|[1-9][0-9]*)\.[0-9]+(e-?(0|[1-9][0-9]{0,59}))?$"
                r"|^-?(0|[1-9][0-9]*)e-?(0|[1-9][0-9]{0,59})$")


@dataclass(frozen=True)
class ExactNumber:
    """The exact value ``numerator / denominator * 10**exp10`` (denominator > 0).

    Kept in this form so that ``1e-4000000`` costs a few bytes, not a
    13-million-bit integer.
    """

    numerator: int
    denominator: int = 1
    exp10: int = 0

    def sign(self) -> int:
        """-1, 0 or 1: the sign of the value (exact)."""
        return (self.numerator > 0) - (self.numerator < 0)

    def __neg__(self) -> "ExactNumber":
        return ExactNumber(-self.numerator, self.denominator, self.exp10)

    def is_expandable(self) -> bool:
        """True when :meth:`fmpq` is cheap (|exp10| <= MAX_EXPANDED_EXP10)."""
        return abs(self.exp10) <= MAX_EXPANDED_EXP10

    def fmpq(self) -> fmpq:
        """The value as an exact rational. Requires :meth:`is_expandable`."""
        if not self.is_expandable():
            raise ValueError(f"exponent 10^{self.exp10} is too large to expand exactly")
        value = fmpq(self.numerator, self.denominator)
        if self.exp10 >= 0:
            return value * fmpz(10) ** self.exp10
        return value / fmpz(10) ** (-self.exp10)


def parse_exact(text: str) -> ExactNumber:
    """Parse a certify/1 exact-number string; ValueError (one line) if it is not one.

    Guarantee: the result equals ``fractions.Fraction(text)`` exactly whenever
    this function accepts ``text``.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected an exact number as a string, got {type(text).__name__}")
    if len(text) > MAX_NUMBER_LENGTH:
        raise ValueError(f"number string longer than {MAX_NUMBER_LENGTH} characters")
    match = _FRACTION.fullmatch(text)
    if match:
        return ExactNumber(int(match.group(1)), int(match.group(2) or 1), 0)
    match = _DECIMAL.fullmatch(text)
    if match:
        if match.group(2) is not None:
            sign, whole, frac, exp = match.group(1), match.group(2), match.group(3), match.group(4)
        else:
            sign, whole, frac, exp = match.group(5), match.group(6), "", match.group(7)
        mantissa = int(whole + frac)
        return ExactNumber(-mantissa if sign else mantissa, 1, int(exp or 0) - len(frac))
    raise ValueError(f"{text[:40]!r} is not an exact number (integer, p/q, or decimal like 1.25e-7)")


def parse_rational(text: str) -> fmpq:
    """Parse an exact-number string that must be a modest rational (parameters, radii)."""
    number = parse_exact(text)
    if not number.is_expandable():
        raise ValueError(f"{text[:40]!r}: exponent out of range for a parameter")
    return number.fmpq()


def _decimal_places(den: int) -> int | None:
    """Digits after the point of n/den if it terminates, else None."""
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else None


def format_rational(value) -> str:
    """Canonical text of an exact rational: ``"3"``, ``"0.125"`` (terminating, short) or ``"1/3"``."""
    value = fmpq(value)
    num, den = int(value.p), int(value.q)
    if den == 1:
        return str(num)
    places = _decimal_places(den)
    if places is not None and places <= 30:
        return format_decimal(num * 10**places // den, -places)
    return f"{num}/{den}"


def format_decimal(mantissa: int, exp10: int) -> str:
    """Canonical text of ``mantissa * 10**exp10``: plain when short, else ``d.ddde-k``."""
    if mantissa == 0:
        return "0"
    while mantissa % 10 == 0:
        mantissa //= 10
        exp10 += 1
    sign = "-" if mantissa < 0 else ""
    digits = str(abs(mantissa))
    leading = len(digits) - 1 + exp10  # decimal exponent of the leading digit
    if -7 <= leading <= 21:
        if exp10 >= 0:
            return sign + digits + "0" * exp10
        point = len(digits) + exp10
        if point > 0:
            return f"{sign}{digits[:point]}.{digits[point:]}"
        return f"{sign}0.{'0' * -point}{digits}"
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{leading}"


def exceeds(number: ExactNumber, threshold) -> bool:
    """Exactly decide ``number > threshold`` for a modest rational ``threshold`` (kernel constants).

    Needs no expansion when the threshold is 0 or when ``number`` is astronomically
    large or small (|exp10| > MAX_EXPANDED_EXP10, while |numerator| < 10^200).
    """
    threshold = fmpq(threshold)
    if threshold == 0:
        return number.sign() > 0
    if number.is_expandable():
        return number.fmpq() > threshold
    if number.exp10 > 0:  # |number| >= 10^9999 dwarfs any kernel threshold
        return number.sign() > 0
    return threshold < 0  # |number| < 10^-9800: above a negative threshold, below a positive one


def round_decimal(number: ExactNumber, digits: int, upward: bool) -> ExactNumber:
    """``number`` rounded to ``digits`` significant decimal digits, toward +inf if ``upward`` else -inf.

    Exact integer arithmetic; the result is a decimal (denominator 1). Used to show
    short, still-valid bounds (a lower end rounded down, an upper end rounded up).
    """
    if number.denominator != 1:
        # scale a fraction to a decimal with enough digits first
        scale = digits + len(str(number.denominator)) + 1
        numerator = number.numerator * 10**scale
        quotient = -((-numerator) // number.denominator) if upward else numerator // number.denominator
        number = ExactNumber(quotient, 1, number.exp10 - scale)
    mantissa, exp10 = number.numerator, number.exp10
    excess = len(str(abs(mantissa))) - digits
    if excess <= 0:
        return ExactNumber(mantissa, 1, exp10)
    unit = 10**excess
    rounded = -((-mantissa) // unit) if upward else mantissa // unit
    return ExactNumber(rounded, 1, exp10 + excess)
