"""Certified numbers as a person reads them: nothing printed that the certificate does not imply.

All arithmetic here is exact: a number of the certify/1 grammar is held as ``sign * f * 10**E`` with
``f`` a :class:`fractions.Fraction` in [1, 10) and ``E`` an integer of any size (exponents of 60
digits stay integers; ``10**E`` is never expanded). The rules, for a claim ``lo <= value <= hi``:

* **exact values and parameters** (:func:`latex_exact`) are printed with every digit of their text
  (a decimal as written, ``d.ddde-k`` as ``d.ddd \\times 10^{-k}``, a fraction as ``\\frac`` or ``a/b``);
  long digit strings get break points (``\\allowbreak``) but lose no digit.
* **an enclosure** (:func:`latex_enclosure`) with ``lo == hi`` is printed as that exact value. Otherwise
  let ``k`` be the number of leading significant digits shared by lo and hi (0 unless they have the same
  sign and the same leading power of ten), ``E`` the leading exponent of the larger magnitude and ``m``
  the position of the width ``w = hi - lo`` among the significant digits: ``m = E - floor(log10 w) + 1``.
  If ``k >= 3`` and ``k >= m - 2`` (the last certified digit's unit is at most 100 w), the shared digits
  are printed followed by an ellipsis: ``d.ddd\\ldots`` states that the value lies in
  ``[d.ddd, d.ddd + u)``, ``u`` one unit of the last printed digit (``-d.ddd\\ldots``: its magnitude
  does). Otherwise the two ends are printed, ``\\in [a, b]``, each rounded outward (a <= lo, b >= hi)
  to ``max(3, m + 1)`` significant digits, so each end moves by at most w / 10.
* **one-sided bounds** (:func:`latex_bound`) are rounded outward to a few significant digits.

Every outward rounding keeps the bound strictly on its side of 0, 1 and -1 (the landmarks the
statements compare with): a lower bound above 1 is never printed as ``\\ge 1``; digits are added
until it is not. Fixed-point notation is used for leading exponents -4..6 (for certified digits only
when at least one digit after the point is certified), ``d.ddd \\times 10^{E}`` otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

#: Longest number text the renderer reads (certify/1 allows 200 characters).
MAX_TEXT_LENGTH = 1000
#: Fewest shared significant digits printed as certified digits; fewer and the ends are printed.
MIN_CERTIFIED_DIGITS = 3
#: Certified digits are printed only if the unit of the last one is at most 10^WASTE_DIGITS times the width.
WASTE_DIGITS = 2
#: Fewest significant digits of an end of a printed interval.
MIN_INTERVAL_DIGITS = 3
#: Significant digits of a one-sided bound (and of a one-sided bound on a log10).
BOUND_DIGITS, LOG10_BOUND_DIGITS = 6, 8
#: Digit strings longer than this get a LaTeX break point every BREAK_EVERY characters.
LONG_DIGITS, BREAK_EVERY = 30, 10
_LANDMARKS = (-1, 0, 1)

_FRACTION = re.compile(r"(-?)([0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:e(-?[0-9]+))?")


@dataclass(frozen=True)
class Number:
    """The exact value ``sign * f * 10**exponent`` with ``f`` in [1, 10); zero is (0, 0, 0)."""

    sign: int
    exponent: int
    f: Fraction

    def __neg__(self) -> "Number":
        return Number(-self.sign, self.exponent, self.f)


ZERO = Number(0, 0, Fraction(0))


def _normalized(sign: int, magnitude: Fraction, exp10: int) -> Number:
    """``sign * magnitude * 10**exp10`` as a Number (magnitude > 0 of modest size)."""
    candidate = len(str(magnitude.numerator)) - len(str(magnitude.denominator))
    if magnitude < _pow10(candidate):
        candidate -= 1
    return Number(sign, exp10 + candidate, magnitude / _pow10(candidate))


def _pow10(exponent: int) -> Fraction:
    return Fraction(10) ** exponent


def parse_number(text: str) -> Number:
    """The exact value of a number text: ``-12``, ``3/4``, ``-0.125``, ``1.25e-7``, ``1e-977168779520925842``.

    Guarantee: the value equals ``fractions.Fraction(text)``. Anything else (not a string, other
    characters, a zero denominator, over MAX_TEXT_LENGTH characters) raises ValueError, so that text
    passed through this function can only contain digits, ``-``, ``.``, ``e`` and ``/``.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected a number as a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"number text longer than {MAX_TEXT_LENGTH} characters")
    match = _FRACTION.fullmatch(text)
    if match:
        sign, numerator, denominator, exp10 = match.group(1), int(match.group(2)), int(match.group(3)), 0
        if denominator == 0:
            raise ValueError(f"{text[:40]!r} has a zero denominator")
    else:
        match = _DECIMAL.fullmatch(text)
        if not match:
            raise ValueError(f"{text[:40]!r} is not a number")
        sign, whole, fraction, exponent = match.groups()
        numerator, denominator = int(whole + (fraction or "")), 1
        exp10 = int(exponent or 0) - len(fraction or "")
    if numerator == 0:
        return ZERO
    return _normalized(-1 if sign else 1, Fraction(numerator, denominator), exp10)


def compare(a: Number, b: Number) -> int:
    """-1, 0 or 1 as a < b, a == b, a > b (exact)."""
    if a.sign != b.sign:
        return -1 if a.sign < b.sign else 1
    if a.sign == 0:
        return 0
    magnitude = (a.exponent > b.exponent) - (a.exponent < b.exponent) or (a.f > b.f) - (a.f < b.f)
    return magnitude * a.sign


def _landmark(value: int) -> Number:
    return ZERO if value == 0 else Number(1 if value > 0 else -1, 0, Fraction(1))


def shared_digits(a: Number, b: Number) -> int | None:
    """The number of leading significant digits a and b share; None if a == b.

    0 unless both are nonzero with the same sign and the same leading exponent. Guarantee: if k > 0,
    truncating |a| and |b| to k significant digits gives the same D, so both lie in [D, D + u) (in
    magnitude), u the unit of the k-th digit; for k + 1 digits they differ.
    """
    if compare(a, b) == 0:
        return None
    if a.sign == 0 or a.sign != b.sign or a.exponent != b.exponent:
        return 0
    x, y, k = a.f, b.f, 0
    while True:
        dx, dy = x.numerator // x.denominator, y.numerator // y.denominator
        if dx != dy:
            return k
        k += 1
        x, y = (x - dx) * 10, (y - dy) * 10


def width_position(lo: Number, hi: Number) -> int:
    """m = E - floor(log10(hi - lo)) + 1 for lo < hi, E the leading exponent of the larger magnitude.

    The width is at least 10^(E - m + 1). Exact when the leading exponents differ by at most 1. Farther
    apart the result is 1 and the true m is 0, 1 or 2 (the smaller magnitude is below 10^(E - 1), so the
    width is in [0.9 * 10^E, 1.1 * 10^(E + 1))): the same interval digits max(3, m + 1) = 3, and no
    certified digits (the leading exponents differ). Nothing of size 10^E is ever expanded.
    """
    if lo.sign == 0 or hi.sign == 0:
        return 1  # the width is the other end's magnitude
    top = max(lo.exponent, hi.exponent)
    if top - min(lo.exponent, hi.exponent) > 1:
        return 1
    width = hi.sign * hi.f * _pow10(hi.exponent - top) - lo.sign * lo.f * _pow10(lo.exponent - top)
    return top - _normalized(1, width, top).exponent + 1


def round_outward(x: Number, digits: int, upward: bool) -> Number:
    """x rounded to ``digits`` significant digits toward +inf (``upward``) or -inf.

    Guarantee: the result is a terminating decimal, >= x if upward else <= x, within one unit of
    the ``digits``-th significant digit of x.
    """
    if x.sign == 0:
        return x
    scaled = x.f * _pow10(digits - 1)
    away = upward == (x.sign > 0)  # rounding away from zero in magnitude
    mantissa = -((-scaled.numerator) // scaled.denominator) if away else scaled.numerator // scaled.denominator
    return _normalized(x.sign, Fraction(mantissa), x.exponent - digits + 1)


def round_keeping_landmarks(x: Number, digits: int, upward: bool) -> Number:
    """:func:`round_outward` with as many more digits as needed not to reach or cross 0, 1 or -1.

    Guarantee: the result r satisfies r >= x (upward) or r <= x, and for every landmark c in
    {-1, 0, 1}: if x > c (lower bound) then r > c; if x < c (upper bound) then r < c.
    """
    while True:
        rounded = round_outward(x, digits, upward)
        if compare(rounded, x) == 0:
            return rounded
        crossed = False
        for value in _LANDMARKS:
            c = _landmark(value)
            if upward and compare(x, c) < 0 <= compare(rounded, c):
                crossed = True
            if not upward and compare(rounded, c) <= 0 < compare(x, c):
                crossed = True
        if not crossed:
            return rounded
        digits += 1


def _terminating_digits(x: Number) -> str | None:
    """The significant digits of |x| (no trailing zeros) if x terminates, else None."""
    rest, twos, fives = x.f.denominator, 0, 0
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest != 1:
        return None
    return str(x.f.numerator * 10 ** max(twos, fives) // x.f.denominator).rstrip("0") or "0"


def _significant_digits(x: Number, count: int) -> str:
    """The first ``count`` significant digits of |x|, truncated."""
    scaled = x.f * _pow10(count - 1)
    return str(scaled.numerator // scaled.denominator)


def breakable(digits: str) -> str:
    """A long digit string with a LaTeX break point every BREAK_EVERY characters (no digit lost)."""
    if len(digits) <= LONG_DIGITS:
        return digits
    return r"\allowbreak ".join(digits[i:i + BREAK_EVERY] for i in range(0, len(digits), BREAK_EVERY))


def _fixed(digits: str, exponent: int) -> str:
    """Significant digits with the leading one at 10^exponent, written without an exponent."""
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if len(digits) <= exponent + 1:
        return digits + "0" * (exponent + 1 - len(digits))
    return digits[:exponent + 1] + "." + digits[exponent + 1:]


def _scientific(digits: str, exponent: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return breakable(mantissa) + (rf"\times 10^{{{exponent}}}" if exponent else "")


def _fixed_range(exponent: int) -> bool:
    return -4 <= exponent <= 6


def latex_decimal(x: Number) -> str:
    """LaTeX of a terminating decimal (every digit): fixed-point for exponents -4..6, else scientific."""
    if x.sign == 0:
        return "0"
    digits = _terminating_digits(x)
    if digits is None:
        raise ValueError("not a terminating decimal")
    sign = "-" if x.sign < 0 else ""
    if _fixed_range(x.exponent):
        return sign + breakable(_fixed(digits, x.exponent))
    return sign + _scientific(digits, x.exponent)


def text_decimal(x: Number) -> str:
    """Plain text of a terminating decimal (every digit): positional for leading exponents -7..21,
    ``d.ddde<k>`` otherwise (the spelling certify/1 uses)."""
    if x.sign == 0:
        return "0"
    digits = _terminating_digits(x)
    if digits is None:
        raise ValueError("not a terminating decimal")
    sign = "-" if x.sign < 0 else ""
    if -7 <= x.exponent <= 21:
        return sign + _fixed(digits, x.exponent)
    return f"{sign}{digits[0]}{'.' + digits[1:] if len(digits) > 1 else ''}e{x.exponent}"


def certified_digits(lo: str, hi: str) -> tuple[str, int]:
    """(digits, exponent): the significant digits lo and hi share, with the sign, in the scale 10^exponent.

    Guarantee: with D the value of ``digits`` times 10^exponent (digits may contain a point) and u the
    unit of its last digit times 10^exponent, every number in [lo, hi] has magnitude in [|D|, |D| + u).
    exponent is 0 (fixed point) when the leading exponent is in -4..6 and, if it is >= 0, at least one
    digit after the point is shared; otherwise digits is ``d.ddd`` and exponent the leading exponent.
    digits is "" when lo and hi share no significant digit. For lo == hi the digits are all of the value's
    (its first 60 significant digits if it does not terminate).
    """
    low, high = parse_number(lo), parse_number(hi)
    count = shared_digits(low, high)
    if count is None:
        if low.sign == 0:
            return "0", 0
        count = 60
        exact = _terminating_digits(low)
        if exact is not None:
            return _digits_in_scale(low, exact)
    if count == 0:
        return "", 0
    return _digits_in_scale(low, _significant_digits(low, count))


def _digits_in_scale(x: Number, digits: str) -> tuple[str, int]:
    sign = "-" if x.sign < 0 else ""
    if _fixed_range(x.exponent) and (x.exponent < 0 or len(digits) >= x.exponent + 2):
        return sign + _fixed(digits, x.exponent), 0
    return sign + digits[0] + ("." + digits[1:] if len(digits) > 1 else ""), x.exponent


def latex_enclosure(lo: str, hi: str) -> str:
    """LaTeX for ``lo <= value <= hi``: ``= exact``, ``= d.ddd\\ldots`` (certified digits) or ``\\in [a, b]``.

    The choice and its guarantee are the module's rules: certified digits only when at least
    MIN_CERTIFIED_DIGITS are shared and the last one's unit is at most 100 times the width; else the
    ends rounded outward to max(3, m + 1) digits (each moves by at most a tenth of the width) and kept
    strictly on their side of 0 and +-1. ValueError if lo > hi or a text is not a number.
    """
    low, high = parse_number(lo), parse_number(hi)
    order = compare(low, high)
    if order > 0:
        raise ValueError(f"lower end {lo[:40]} is above upper end {hi[:40]}")
    if order == 0:
        return "= " + latex_exact(lo)
    count = shared_digits(low, high)
    position = width_position(low, high)
    if count >= MIN_CERTIFIED_DIGITS and count >= position - WASTE_DIGITS:
        digits, exponent = _digits_in_scale(low, _significant_digits(low, count))
        sign = "-" if digits.startswith("-") else ""
        body = breakable(digits.lstrip("-")) + r"\ldots"
        return "= " + sign + body + (rf"\times 10^{{{exponent}}}" if exponent else "")
    digits = max(MIN_INTERVAL_DIGITS, position + 1)
    return (rf"\in [{latex_decimal(round_keeping_landmarks(low, digits, False))}, "
            rf"{latex_decimal(round_keeping_landmarks(high, digits, True))}]")


def latex_bound(text: str, upward: bool, digits: int = BOUND_DIGITS) -> str:
    """A one-sided bound rounded outward to ``digits`` significant digits (more if needed to stay strictly
    on its side of 0 and +-1), in LaTeX. Guarantee: the printed number is >= text if upward, else <= text."""
    return latex_decimal(round_keeping_landmarks(parse_number(text), digits, upward))


def latex_exact(text: str) -> str:
    """An exact number in LaTeX with every digit of ``text``: a fraction as ``\\frac{a}{b}`` (``a/b`` when
    long), a decimal as written with ``e-k`` as ``\\times 10^{-k}``. ValueError if text is not a number.

    Guarantee: removing the break points, writing ``\\frac{a}{b}`` as ``a/b`` and ``\\times 10^{k}`` as
    ``ek`` gives back ``text`` exactly.
    """
    parse_number(text)  # only digits, '-', '.', 'e' and '/' from here on
    sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
    if "/" in body:
        numerator, denominator = body.split("/")
        if len(numerator) + len(denominator) > LONG_DIGITS:
            return sign + breakable(numerator) + "/" + breakable(denominator)
        return rf"{sign}\frac{{{numerator}}}{{{denominator}}}"
    if "e" in body:
        mantissa, exponent = body.split("e")
        return rf"{sign}{breakable(mantissa)}\times 10^{{{exponent}}}"
    return sign + breakable(body)


def quantity_latex(stored: dict, subject: str = r"\text{value}", separator: str = r"\ ") -> str:
    """Math-mode LaTeX for one stored quantity, about ``subject``: its exact value, its enclosure (certified
    digits or the two ends, see :mod:`certify.render.numbers`) or its one-sided bound, then the same for
    its log10 fields as powers of ten, each part as ``subject + separator + part``. Guarantee: every
    statement printed is implied by the stored numbers. (Here, not in render/latex.py, so that a notebook's
    display needs no sympy.)
    """
    parts = []
    if "exact" in stored:
        parts.append("= " + latex_exact(stored["exact"]))
    elif "lo" in stored and "hi" in stored:
        parts.append(latex_enclosure(stored["lo"], stored["hi"]))
    elif "lo" in stored:
        parts.append(r"\ge " + latex_bound(stored["lo"], False))
    elif "hi" in stored:
        parts.append(r"\le " + latex_bound(stored["hi"], True))
    if "log10_lo" in stored and "log10_hi" in stored:
        parts.append(_power_of_ten(latex_enclosure(stored["log10_lo"], stored["log10_hi"])))
    elif "log10_lo" in stored:
        parts.append(r"\ge 10^{" + latex_bound(stored["log10_lo"], False, LOG10_BOUND_DIGITS) + "}")
    elif "log10_hi" in stored:
        parts.append(r"\le 10^{" + latex_bound(stored["log10_hi"], True, LOG10_BOUND_DIGITS) + "}")
    return ",\\ ".join(f"{subject}{separator}{part}" for part in parts)


def _power_of_ten(enclosure: str) -> str:
    """``= t`` as ``= 10^{t}`` and ``\\in [a, b]`` as ``\\in [10^{a}, 10^{b}]`` (10^x is increasing)."""
    if enclosure.startswith("= "):
        return "= 10^{" + enclosure[2:] + "}"
    low, high = enclosure[len(r"\in ["):-1].split(", ")
    return rf"\in [10^{{{low}}}, 10^{{{high}}}]"
