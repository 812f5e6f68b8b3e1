"""Exact numbers as certify/1 writes them: strict, canonical parsing; exact comparison; canonical printing.

Every number in a certificate that is not a small integer is a string whose
value is what Python's ``fractions.Fraction`` makes of it. The grammar is a
strict subset of what ``Fraction`` accepts:

* an integer ``-12``, a fraction ``-3/4`` (positive denominator, no sign), or
* a decimal ``-0.125``, optionally with an exponent: ``1.25e-7`` (a power of ten,
  the exponent at most 60 digits long: probabilities for p near 10^18 reach 10^-(10^54)).

**One number, one spelling.** A certificate admits only the canonical spelling
of each value (:func:`canonical_text`): ``0`` for zero; a terminating value
(integers included) as a decimal, positional when its leading digit is at
10^-7 .. 10^21 and ``d.ddde<k>`` otherwise, never with leading or trailing zeros;
any other value as a reduced fraction ``n/d``. So ``-0``, ``0e5``, ``0.10``,
``1e2``, ``2/2``, ``1/2`` and ``0.1e1`` are all malformed.

**Comparisons are exact.** :func:`compare` decides the order of any two
numbers the grammar admits, and of kernel rationals, with sign first and then
integer arithmetic on digit counts and exponents: ``10^(10^59)`` is never
expanded and no threshold stands in for a comparison.

This module builds no balls; :mod:`certify.kernel.balls` does that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flint import fmpq, fmpz

#: The longest exact-number string certify/1 accepts (schema ``maxLength`` too).
MAX_NUMBER_LENGTH = 200

#: The most digits an exponent may have (``e-`` then at most 60 digits): the largest exponent certify/1
#: can write is 10^60 - 1, so no number it writes is below 10^-(10^60 - 1) in magnitude, except 0.
MAX_EXPONENT_DIGITS = 60
MAX_WRITTEN_EXPONENT = 10**MAX_EXPONENT_DIGITS - 1

#: Significant digits of a bound that has to be rounded outward to be written (an exact rational bound
#: whose canonical text is over MAX_NUMBER_LENGTH characters, say); the ball writers use as many.
WRITTEN_DIGITS = 80

#: Exact *inputs* (parameters, radius, base-point levels) are bounded: as reduced
#: fractions their numerator and denominator have at most this many digits. A bound
#: on the size of inputs bounds the bits every kernel computation carries, and so
#: the time of every check (issue "No false acceptance", bounded work); values like
#: epsilon = 1e9999 describe no experiment anyway.
MAX_INPUT_DIGITS = 100

#: :meth:`ExactNumber.fmpq` expands at most this many decimal exponent digits'
#: worth of 10^e (a work bound only: nothing is decided by it, see :func:`compare`).
MAX_EXPANDED_EXP10 = 100_000

_FRACTION = re.compile(r"(0|-?[1-9][0-9]*)(?:/([1-9][0-9]*))?")
_DECIMAL = re.compile(r"(-?)(0|[1-9][0-9]*)\.([0-9]+)(?:e(-?(?:0|[1-9][0-9]{0,59})))?"
                      r"|(-?)(0|[1-9][0-9]*)e(-?(?:0|[1-9][0-9]{0,59}))")

@dataclass(frozen=True)
class ExactNumber:
    """The exact value ``numerator / denominator * 10**exp10`` (denominator > 0).

    Kept in this form so that ``1e-4000000`` costs a few bytes, not a
    13-million-bit integer. Parsed numbers have ``denominator == 1`` (decimals)
    or ``exp10 == 0`` (fractions).

    >>> ExactNumber(125, 1, -3).fmpq()
    1/8
    >>> tiny = ExactNumber(1, 1, -4000000)  # a few bytes, not a 13-million-bit integer
    >>> tiny.sign(), tiny.is_expandable()
    (1, False)
    """

    numerator: int
    denominator: int = 1
    exp10: int = 0

    def __post_init__(self):
        if self.denominator <= 0:
            raise ValueError("the denominator of an ExactNumber is positive")

    def sign(self) -> int:
        """-1, 0 or 1: the sign of the value (exact)."""
        return (self.numerator > 0) - (self.numerator < 0)

    def __neg__(self) -> "ExactNumber":
        return ExactNumber(-self.numerator, self.denominator, self.exp10)

    def is_expandable(self) -> bool:
        """True when :meth:`fmpq` is affordable (|exp10| <= MAX_EXPANDED_EXP10): a work bound, not a test."""
        return abs(self.exp10) <= MAX_EXPANDED_EXP10

    def fmpq(self) -> fmpq:
        """The value as an exact rational. Requires :meth:`is_expandable` (ValueError otherwise)."""
        if not self.is_expandable():
            raise ValueError(f"exponent 10^{self.exp10} is too large to expand exactly")
        value = fmpq(self.numerator, self.denominator)
        if self.exp10 >= 0:
            return value * fmpz(10) ** self.exp10
        return value / fmpz(10) ** (-self.exp10)

    @classmethod
    def from_rational(cls, value) -> "ExactNumber":
        """The ExactNumber of an int, fmpz, fmpq or ``fractions.Fraction`` (exact).

        >>> from fractions import Fraction
        >>> ExactNumber.from_rational(Fraction(-3, 4))
        ExactNumber(numerator=-3, denominator=4, exp10=0)
        >>> ExactNumber.from_rational(0.5)
        Traceback (most recent call last):
        ...
        TypeError: not an exact rational: float
        """
        if isinstance(value, ExactNumber):
            return value
        if isinstance(value, (int, fmpz)) and not isinstance(value, bool):
            return cls(int(value))
        if isinstance(value, fmpq):
            return cls(int(value.p), int(value.q))
        numerator, denominator = getattr(value, "numerator", None), getattr(value, "denominator", None)
        if isinstance(numerator, int) and isinstance(denominator, int) and not isinstance(value, bool):
            return cls(numerator, denominator) if denominator > 0 else cls(-numerator, -denominator)
        raise TypeError(f"not an exact rational: {type(value).__name__}")


# --- exact comparison ------------------------------------------------------------------------------------

def decimal_digits(n: int) -> int:
    """The number of decimal digits of |n| (0 for 0), exactly: an estimate from the bit length, corrected.

    >>> decimal_digits(10**30), decimal_digits(-999), decimal_digits(0)
    (31, 3, 0)
    """
    n = abs(int(n))
    if n == 0:
        return 0
    digits = max(1, (n.bit_length() - 1) * 30103 // 100000)  # a guess; the loops below make it exact
    while digits > 1 and fmpz(10) ** (digits - 1) > n:
        digits -= 1
    while fmpz(10) ** digits <= n:
        digits += 1
    return digits


def compare(a, b) -> int:
    """-1, 0 or 1 as ``a < b``, ``a == b``, ``a > b``; exact for ExactNumber, int, fmpz, fmpq, Fraction.

    Sign first (zero is zero whatever its exponent); then |a| = X 10^k / D and
    |b| = Y / D with integers X, Y (the denominators cross-multiplied): when the
    digit counts of X 10^k and Y differ the order follows from them, and only
    when they are equal -- so |k| is at most the digits of the operands -- is
    10^|k| expanded. Work is polynomial in the length of the operands' digits,
    whatever their exponents.

    >>> compare(parse_exact("1e-4000000"), 0)  # 10^4000000 is never expanded
    1
    >>> compare(fmpq(1, 3), parse_exact("0.333")), compare(parse_syntax("0.50"), fmpq(1, 2))
    (1, 0)
    >>> compare(parse_exact("-1e-977168779520925842"), parse_exact("-1e-977168779520925843"))
    -1
    """
    a, b = ExactNumber.from_rational(a), ExactNumber.from_rational(b)
    sa, sb = a.sign(), b.sign()
    if sa != sb:
        return (sa > sb) - (sa < sb)
    if sa == 0:
        return 0
    x = abs(a.numerator) * b.denominator
    y = abs(b.numerator) * a.denominator
    k = a.exp10 - b.exp10
    dx, dy = decimal_digits(x), decimal_digits(y)
    # 10^(dx-1) <= x < 10^dx, so x 10^k lies in [10^(dx-1+k), 10^(dx+k)); likewise y in [10^(dy-1), 10^dy)
    if dx + k > dy:
        order = 1
    elif dx + k < dy:
        order = -1
    else:  # dx + k == dy: |k| < max(dx, dy), so the expansion is as long as the operands
        left, right = (x * 10 ** k, y) if k >= 0 else (x, y * 10 ** (-k))
        order = (left > right) - (left < right)
    return order * sa


def exceeds(number, threshold) -> bool:
    """Exactly decide ``number > threshold`` (both exact: ExactNumber, int, fmpz, fmpq).

    >>> exceeds(parse_exact("0.125"), fmpq(1, 8)), exceeds(parse_exact("0.126"), fmpq(1, 8))
    (False, True)
    """
    return compare(number, threshold) > 0


# --- parsing ---------------------------------------------------------------------------------------------

def parse_syntax(text: str) -> ExactNumber:
    """The exact value of ``text`` in the certify/1 grammar, canonical or not; ValueError (one line) if not one.

    Guarantee: the result equals ``fractions.Fraction(text)``. Certificates use
    :func:`parse_exact`, which also demands the canonical spelling; the command
    line uses this one, so that a person may type ``1/2`` or ``0.50``.

    >>> parse_syntax("0.50"), parse_syntax("2/4")
    (ExactNumber(numerator=50, denominator=1, exp10=-2), ExactNumber(numerator=2, denominator=4, exp10=0))
    >>> parse_syntax("0.1f")
    Traceback (most recent call last):
    ...
    ValueError: '0.1f' is not an exact number (integer, p/q, or decimal like 1.25e-7)
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
    raise ValueError(f"{_clip(text)} is not an exact number (integer, p/q, or decimal like 1.25e-7)")


def parse_exact(text: str) -> ExactNumber:
    """Parse a certify/1 exact number, which must be spelled canonically; ValueError (one line) otherwise.

    Guarantee: the result equals ``fractions.Fraction(text)`` exactly, and
    ``canonical_text(result) == text``.

    >>> parse_exact("1.25e-8")
    ExactNumber(numerator=125, denominator=1, exp10=-10)
    >>> parse_exact("0.50")
    Traceback (most recent call last):
    ...
    ValueError: '0.50' is not canonical: certify/1 spells this number '0.5'
    """
    number = parse_syntax(text)
    canonical = canonical_text(number)
    if canonical != text:
        raise ValueError(f"{_clip(text)} is not canonical: certify/1 spells this number {_clip(canonical)}")
    return number


def require_bounded_input(number: ExactNumber, what: str = "input") -> fmpq:
    """The exact rational of an input (parameter, radius, base-point level), if it is of bounded size.

    ValueError (one line) unless, as a reduced fraction, its numerator and
    denominator have at most MAX_INPUT_DIGITS digits each, and its canonical
    spelling (what a certificate writes, :func:`canonical_text`) is at most
    MAX_NUMBER_LENGTH characters, so that a certificate can state it and the
    checker read it back: ``1/2^332`` has a 100-digit denominator, but it
    terminates and is written as a decimal of 232 digits.

    >>> require_bounded_input(parse_syntax("2/4"))
    1/2
    >>> require_bounded_input(parse_syntax("1e-999"), "epsilon")
    Traceback (most recent call last):
    ...
    ValueError: epsilon has too many digits: exact inputs have at most 100 digits ...
    >>> require_bounded_input(ExactNumber(1, 2**332), "epsilon")
    Traceback (most recent call last):
    ...
    ValueError: epsilon is written with 239 characters (~1.14298739128e-100): certify/1 numbers have at most 200
    """
    if number.numerator == 0:
        return fmpq(0)
    # digits of the reduced value, bounded before anything is expanded: a decimal m 10^e with
    # |e| > MAX_INPUT_DIGITS has a numerator or denominator of more than that many digits
    if abs(number.exp10) > MAX_INPUT_DIGITS + MAX_NUMBER_LENGTH:
        raise ValueError(_input_size_message(what))
    value = number.fmpq()
    if max(decimal_digits(int(value.p)), decimal_digits(int(value.q))) > MAX_INPUT_DIGITS:
        raise ValueError(_input_size_message(what))
    text = canonical_text(value)
    if len(text) > MAX_NUMBER_LENGTH:  # a terminating 1/2^k is written as a decimal of about 1.7 k digits
        raise ValueError(f"{what} is written with {len(text)} characters ({show_number(value)}): certify/1 "
                         f"numbers have at most {MAX_NUMBER_LENGTH}")
    return value


def _input_size_message(what: str) -> str:
    return (f"{what} has too many digits: exact inputs have at most {MAX_INPUT_DIGITS} digits "
            f"in numerator and denominator (as a reduced fraction), which bounds the work of every check")


#: What ``fractions.Fraction`` reads from a string, in ASCII: surrounding whitespace, a sign ``+`` or ``-``,
#: ``_`` between digits, ``.5`` and ``5.``, ``E`` or ``e`` with a signed exponent, or ``n/d``. Exponents are
#: limited to MAX_EXPONENT_DIGITS digits here (Fraction would expand 10^999999999 first and ask later).
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_LENIENT = re.compile(rf"([-+]?)(?:({_DIGITS})/({_DIGITS})"
                      rf"|(?=[0-9]|\.[0-9])({_DIGITS})?(?:\.({_DIGITS})?)?(?:[eE]([-+]?{_DIGITS}))?)")
_ASCII_SPACE = " \t\n\r\f\v"


def parse_lenient(text: str) -> ExactNumber:
    """The exact value of ``text`` in any spelling ``fractions.Fraction`` reads (ASCII only); ValueError otherwise.

    For people (the command line, the Python API's strings), never for certificates: ``.5``, ``5.``,
    ``+1/2``, ``1_000``, ``1E-3``, `` 0.50 `` are all accepted, and the result equals
    ``Fraction(text)``. Refused, in one line: anything Fraction refuses (``nan``, ``inf``, ``0x10``),
    a zero denominator, non-ASCII digits and spaces (Arabic-Indic digits, say), more than MAX_NUMBER_LENGTH
    characters and exponents of more than MAX_EXPONENT_DIGITS digits. Size is bounded afterwards by
    :func:`require_bounded_input` (``1e999999`` parses, and is refused there without being expanded).

    >>> parse_lenient(" .5 "), parse_lenient("5.E-1")
    (ExactNumber(numerator=5, denominator=1, exp10=-1), ExactNumber(numerator=5, denominator=1, exp10=-1))
    >>> parse_lenient("+1_000/4")
    ExactNumber(numerator=1000, denominator=4, exp10=0)
    >>> parse_lenient("nan")
    Traceback (most recent call last):
    ...
    ValueError: 'nan' is not an exact number (integer, p/q, or decimal like 1.25e-7 or .5)
    """
    if not isinstance(text, str):
        raise ValueError(f"expected an exact number as a string, got {type(text).__name__}")
    body = text.strip(_ASCII_SPACE)
    if len(body) > MAX_NUMBER_LENGTH:
        raise ValueError(f"number string longer than {MAX_NUMBER_LENGTH} characters")
    match = _LENIENT.fullmatch(body)
    exponent = match and match.group(6)
    if not match or (exponent and len(exponent.lstrip("+-").replace("_", "").lstrip("0")) > MAX_EXPONENT_DIGITS):
        raise ValueError(f"{_clip(text)} is not an exact number (integer, p/q, or decimal like 1.25e-7 or .5)")
    sign = -1 if match.group(1) == "-" else 1
    if match.group(2) is not None:
        denominator = int(match.group(3).replace("_", ""))
        if denominator == 0:
            raise ValueError(f"{_clip(text)} has the denominator 0")
        return ExactNumber(sign * int(match.group(2).replace("_", "")), denominator, 0)
    whole, places = (match.group(4) or "").replace("_", ""), (match.group(5) or "").replace("_", "")
    mantissa = int((whole + places) or "0")
    return ExactNumber(sign * mantissa, 1, int((exponent or "0").replace("_", "")) - len(places))


def parse_rational(text: str, what: str = "input", canonical: bool = True) -> fmpq:
    """Parse an exact input (parameters, radii): canonical unless ``canonical=False``, and bounded in size.

    ``canonical=True`` (a certificate's or a saved file's inputs): :func:`parse_exact`, and every ValueError's
    one line starts with ``what`` (the field a reader of the file must find); ``canonical=False`` (a person's, whose
    option the command line names): :func:`parse_lenient`, any spelling ``fractions.Fraction`` reads. Both then
    :func:`require_bounded_input`.

    >>> parse_rational("0.50", "epsilon", canonical=False), parse_rational("0.5", "epsilon")
    (1/2, 1/2)
    >>> parse_rational(".5", "epsilon", canonical=False)
    1/2
    >>> parse_rational("0.50", "parameters/epsilon")
    Traceback (most recent call last):
    ...
    ValueError: parameters/epsilon: '0.50' is not canonical: certify/1 spells this number '0.5'
    """
    if canonical:
        try:
            number = parse_exact(text)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    else:
        number = parse_lenient(text)
    return require_bounded_input(number, f"{what} {_clip(text)}")


def _clip(text: str, limit: int = 40) -> str:
    """``repr`` of at most ``limit`` characters of ``text`` (for one-line messages)."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


# --- canonical printing ----------------------------------------------------------------------------------

def _strip_power(n: int, factor: int) -> tuple[int, int]:
    count = 0
    while n % factor == 0:
        n //= factor
        count += 1
    return n, count


def canonical_text(number) -> str:
    """The canonical certify/1 spelling of the exact value of ``number`` (ExactNumber, int, fmpz, fmpq).

    Zero is ``0``; a terminating value is a decimal (:func:`format_decimal`); any
    other value is the reduced fraction ``n/d``. No exponent is expanded for
    decimals; a non-terminating value with an exponent must be expandable.

    >>> [canonical_text(x) for x in (fmpq(1, 8), fmpq(1, 3), 1000, 10**22, ExactNumber(125, 1, -30))]
    ['0.125', '1/3', '1000', '1e22', '1.25e-28']
    """
    number = ExactNumber.from_rational(number)
    if number.numerator == 0:
        return "0"
    numerator, denominator, exp10 = number.numerator, number.denominator, number.exp10
    if denominator != 1:
        from math import gcd

        common = gcd(numerator, denominator)
        numerator, denominator = numerator // common, denominator // common
        rest, twos = _strip_power(denominator, 2)
        rest, fives = _strip_power(rest, 5)
        if rest == 1:  # terminating: n / (2^a 5^b) = n 2^(c-a) 5^(c-b) / 10^c
            places = max(twos, fives)
            return format_decimal(numerator * 2 ** (places - twos) * 5 ** (places - fives), exp10 - places)
        if exp10 != 0:
            value = number.fmpq()
            numerator, denominator = int(value.p), int(value.q)
        return f"{_digits(numerator)}/{_digits(denominator)}"
    return format_decimal(numerator, exp10)


def _digits(n: int) -> str:
    """Decimal text of an integer of any size (python-flint's conversion has no 4300-digit limit)."""
    return str(fmpz(n))


def format_rational(value) -> str:
    """Canonical text of an exact rational: ``"3"``, ``"0.125"``, ``"1.25e-40"`` or ``"1/3"``.

    >>> format_rational(fmpq(5, 2)), format_rational(fmpq(-2, 3))
    ('2.5', '-2/3')
    """
    return canonical_text(fmpq(value))


def format_decimal(mantissa: int, exp10: int) -> str:
    """Canonical text of ``mantissa * 10**exp10``: positional when the leading digit is at 10^-7..10^21, else ``d.ddde-k``.

    >>> format_decimal(1250, -3), format_decimal(-25, -10), format_decimal(3, 21)
    ('1.25', '-2.5e-9', '3000000000000000000000')
    """
    mantissa = int(mantissa)
    if mantissa == 0:
        return "0"
    sign = "-" if mantissa < 0 else ""
    full = _digits(abs(mantissa))
    digits = full.rstrip("0")
    exp10 += len(full) - len(digits)
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


def written_text(number) -> str | None:
    """The canonical text of ``number`` if a certificate can state it, else None (never expands a huge exponent).

    A certificate can state exactly the numbers :func:`parse_exact` reads back: at most
    MAX_NUMBER_LENGTH characters, an exponent of at most MAX_EXPONENT_DIGITS digits. So the writer's
    limits are the reader's, by construction.

    >>> written_text(fmpq(1, 3)), written_text(ExactNumber(5, 1, -10**60 + 1)), written_text(ExactNumber(5, 1, -10**60))
    ('1/3', '5e-999999999999999999999999999999999999999999999999999999999999', None)
    >>> written_text(fmpq(1, 3**200)) is None, written_text(fmpq(1, 3**500)) is None  # 98 and 241 characters
    (False, True)
    """
    number = ExactNumber.from_rational(number)
    if number.numerator == 0:
        return "0"
    if number.denominator != 1 and number.exp10 != 0 and not number.is_expandable():
        rest, _ = _strip_power(_strip_power(number.denominator, 2)[0], 5)
        if rest != 1:  # a non-terminating value times a huge power of ten has no short spelling
            return None
    if number.denominator == 1 and abs(_leading_exponent(number.numerator, number.exp10)) > MAX_WRITTEN_EXPONENT:
        return None  # (its text would be short to build, but a parse of it is refused: spare the work)
    text = canonical_text(number)
    try:
        parse_exact(text)
    except ValueError:
        return None
    return text


def _leading_exponent(mantissa: int, exp10: int) -> int:
    """The decimal exponent of the leading digit of mantissa 10^exp10 (mantissa != 0)."""
    return decimal_digits(mantissa) - 1 + exp10


def writable_bound(number, upward: bool) -> ExactNumber | None:
    """A number a certificate can state on the outer side of ``number`` (>= it if ``upward``, else <= it).

    ``number`` itself when :func:`written_text` can write it; otherwise ``number`` rounded toward +inf
    (``upward``) or -inf to WRITTEN_DIGITS significant digits (a weaker bound, still true); and when
    even that needs an exponent beyond MAX_WRITTEN_EXPONENT, the nearest writable number beyond it:
    0 or +-10^-MAX_WRITTEN_EXPONENT for a magnitude below 10^-MAX_WRITTEN_EXPONENT, +-10^MAX_WRITTEN_EXPONENT
    for a lower bound of a value above 10^(MAX_WRITTEN_EXPONENT + 1) (an upper bound of a value below
    its negative). None when no writable number lies on that side: an upper bound of a value above
    10^(MAX_WRITTEN_EXPONENT + 1), a lower bound of a value below its negative.

    >>> writable_bound(fmpq(1, 3), upward=False)  # writable as it is
    ExactNumber(numerator=1, denominator=3, exp10=0)
    >>> canonical_text(writable_bound(fmpq(1, 3**500), upward=True))  # 241 characters: rounded up
    '2.7502529562031380179554990801120409685204058213870305600421949970898351910966983e-239'
    >>> tiny = ExactNumber(-31177, 1, -10**79)  # below every writable magnitude
    >>> canonical_text(writable_bound(tiny, upward=True)), canonical_text(writable_bound(tiny, upward=False))[:8]
    ('0', '-1e-9999')
    >>> writable_bound(ExactNumber(3, 1, 10**70), upward=True) is None
    True
    """
    number = ExactNumber.from_rational(number)
    if written_text(number) is not None:
        return number
    rounded = round_decimal(number, WRITTEN_DIGITS, upward)
    leading = _leading_exponent(rounded.numerator, rounded.exp10)
    sign = number.sign()
    if leading < -MAX_WRITTEN_EXPONENT:  # |number| < 10^-MAX_WRITTEN_EXPONENT: 0 or the smallest magnitude
        toward_zero = upward == (sign < 0)
        return ExactNumber(0) if toward_zero else ExactNumber(sign, 1, -MAX_WRITTEN_EXPONENT)
    if leading > MAX_WRITTEN_EXPONENT:  # |number| >= 10^(MAX_WRITTEN_EXPONENT + 1)
        toward_zero = upward == (sign < 0)
        return ExactNumber(sign, 1, MAX_WRITTEN_EXPONENT) if toward_zero else None
    return rounded


def show_number(value, digits: int = 12) -> str:
    """A short, human-readable approximation of an exact value for messages (never expands huge exponents).

    >>> show_number(fmpq(1, 3)), show_number(parse_exact("1e-977168779520925842"))
    ('1/3', '1e-977168779520925842')
    >>> show_number(fmpq(10**40 + 1, 3))
    '~3.33333333333e39'
    """
    number = ExactNumber.from_rational(value) if not isinstance(value, ExactNumber) else value
    text = canonical_text(number) if number.denominator == 1 or number.exp10 == 0 else None
    if text is not None and len(text) <= 2 * digits + 8:
        return text
    rounded = round_decimal(number, digits, upward=False)
    return "~" + format_decimal(rounded.numerator, rounded.exp10)


def round_decimal(number: ExactNumber, digits: int, upward: bool) -> ExactNumber:
    """``number`` rounded to ``digits`` significant decimal digits, toward +inf if ``upward`` else -inf.

    Exact integer arithmetic; the result is a decimal (denominator 1). Used to show
    short, still-valid bounds (a lower end rounded down, an upper end rounded up).

    >>> round_decimal(ExactNumber(1, 3), 3, upward=False), round_decimal(ExactNumber(1, 3), 3, upward=True)
    (ExactNumber(numerator=333, denominator=1, exp10=-3), ExactNumber(numerator=334, denominator=1, exp10=-3))
    >>> round_decimal(ExactNumber(-123456), 2, upward=True)  # toward +inf
    ExactNumber(numerator=-12, denominator=1, exp10=4)
    """
    if number.denominator != 1:
        # scale a fraction to a decimal with enough digits first
        scale = digits + decimal_digits(number.denominator) + 1
        numerator = number.numerator * 10**scale
        quotient = -((-numerator) // number.denominator) if upward else numerator // number.denominator
        number = ExactNumber(quotient, 1, number.exp10 - scale)
    mantissa, exp10 = number.numerator, number.exp10
    excess = decimal_digits(mantissa) - digits
    if excess <= 0:
        return ExactNumber(mantissa, 1, exp10)
    unit = 10**excess
    rounded = -((-mantissa) // unit) if upward else mantissa // unit
    return ExactNumber(rounded, 1, exp10 + excess)
