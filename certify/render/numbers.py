"""Certified numbers as a person reads them: only the digits an enclosure proves.

For an enclosure [lo, hi] every number in it shares the digits printed; the next digit
is not known (shown as an ellipsis). One-sided bounds are rounded outward to a few
digits, exact values printed exactly.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

from ..kernel.exact import format_decimal, parse_exact, round_decimal

_PRECISION = 90


def _decimal(text: str) -> Decimal:
    number = parse_exact(text)
    with localcontext() as context:
        context.prec = _PRECISION
        value = Decimal(number.numerator) / Decimal(number.denominator)
        return value.scaleb(number.exp10)


def _mantissa_digits(value: Decimal, exponent: int, places: int) -> str:
    """value / 10^exponent written with ``places`` digits after the point (truncated toward zero)."""
    with localcontext() as context:
        context.prec = _PRECISION
        scaled = abs(value).scaleb(-exponent)
        text = f"{scaled:.{places + 2}f}"
    return text[: len(text) - 2]


def certified_digits(lo: str, hi: str) -> tuple[str, int]:
    """(digits, exponent): the longest common digit string of lo and hi in the scale 10^exponent.

    The returned mantissa (with sign) is a prefix shared by every number in [lo, hi]; if lo and
    hi differ in sign or leading digit, digits is "" (nothing is certified beyond the interval).
    """
    low, high = _decimal(lo), _decimal(hi)
    if low.is_zero() and high.is_zero():
        return "0", 0
    if (low < 0) != (high < 0) or low.is_zero() or high.is_zero():
        return "", 0
    exponent = max(low.adjusted(), high.adjusted())
    exponent = 0 if -4 <= exponent <= 6 else exponent
    places = 60
    a, b = _mantissa_digits(low, exponent, places), _mantissa_digits(high, exponent, places)
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    if low == high:  # an exact value: all its digits are certified, trailing zeros say nothing
        return ("-" if low < 0 else "") + a.rstrip("0").rstrip("."), exponent
    prefix = a[:common].rstrip(".")
    if not any(ch.isdigit() for ch in prefix):
        return "", 0
    return ("-" if low < 0 else "") + prefix, exponent


def latex_enclosure(lo: str, hi: str) -> str:
    """LaTeX for an enclosure: certified digits with an ellipsis, or [lo, hi] when none are shared."""
    digits, exponent = certified_digits(lo, hi)
    if not digits:
        return rf"\in [{latex_bound(lo, False)}, {latex_bound(hi, True)}]"
    mantissa = digits + ("" if _decimal(lo) == _decimal(hi) else r"\ldots")
    return f"= {mantissa}" + (rf"\times 10^{{{exponent}}}" if exponent else "")


def latex_bound(text: str, upward: bool, digits: int = 6) -> str:
    """A one-sided bound rounded outward to ``digits`` significant digits, in LaTeX."""
    rounded = round_decimal(parse_exact(text), digits, upward)
    plain = format_decimal(rounded.numerator, rounded.exp10)
    if "e" in plain:
        mantissa, exponent = plain.split("e")
        return rf"{mantissa}\times 10^{{{int(exponent)}}}"
    return plain


def latex_exact(text: str) -> str:
    """An exact number in LaTeX: a fraction as \\frac, a decimal as it is."""
    value = Fraction(text)
    if value.denominator == 1 or "." in text or "e" in text:
        return latex_bound(text, False, 30) if "e" in text else text
    sign = "-" if value < 0 else ""
    return rf"{sign}\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"
