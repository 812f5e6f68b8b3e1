"""The certify/1 number grammar, production by production, and an oracle for its canonical spelling.

Two halves, neither of which imports certify:

* **Generators** of number strings: :func:`small_grammar` enumerates every string of a
  few productions built from small pieces (zero spellings, integers, fractions reduced
  or not, decimals with and without exponents, the 60-digit exponent extremes, trailing
  and leading zeros, ``0.1e1``, ``2/2``) plus a fixed list of near misses (whitespace,
  newline suffixes, unicode digits, ``+1``, ``1E5``, ...); :func:`random_spelling` and
  the hypothesis strategies draw from the same productions with pieces of any size, up
  to the 200-character limit; :func:`spellings` lists other spellings of one value.
* **The oracle**: :func:`parse_syntax` reads the grammar with a hand-written scanner
  into a :class:`Num` (sign, numerator, denominator, power of ten), :func:`canonical`
  returns the one spelling the rules admit for a value, :func:`compare` orders two
  values exactly with integer arithmetic on digits and exponents (10**(10**59) is never
  expanded), :func:`log10_compare` decides ``log10(x)`` against a decimal with Arb balls
  whose endpoints are read exactly, never through Arb's own comparisons.

The rules (issue 10, "one number, one spelling"): 0 is ``"0"``; a terminating value
(reduced denominator 2^a 5^b, integers included) is a decimal: |v| = m * 10^e with m
not divisible by 10, L = len(str(m)) - 1 + e; plain positional notation when
-7 <= L <= 21, else ``d.ddde<L>``; any other value is a reduced ``n/d``, sign on n.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import gcd

MAX_LENGTH = 200
MAX_EXPONENT_DIGITS = 60
DIGITS = "0123456789"

#: Values with |exponent| up to this are turned into Fractions when a test wants one.
EXPANDABLE = 20_000


# ---------------------------------------------------------------------------------------------
# exact values


def _int_str(n: int) -> str:
    """Decimal digits of a non-negative int of any size (Python's str() refuses > 4300 digits)."""
    if n.bit_length() < 12_000:
        return str(n)
    half = int(n.bit_length() * 0.30103) // 2
    high, low = divmod(n, 10**half)
    return _int_str(high) + _int_str(low).zfill(half)


def ilog10(n: int, d: int = 1) -> int:
    """floor(log10(n / d)) for positive ints, exactly (bit lengths give a guess, integers settle it)."""
    k = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    while not _ge_pow10(n, d, k):
        k -= 1
    while _ge_pow10(n, d, k + 1):
        k += 1
    return k


def _ge_pow10(n: int, d: int, k: int) -> bool:
    """n / d >= 10**k."""
    return n >= d * 10**k if k >= 0 else n * 10**-k >= d


@dataclass(frozen=True)
class Num:
    """The exact value sign * n / d * 10**e (n, d > 0 coprime; zero is sign 0, n 0)."""

    sign: int
    n: int
    d: int = 1
    e: int = 0

    @staticmethod
    def make(numerator: int, denominator: int = 1, exp10: int = 0) -> "Num":
        if denominator <= 0:
            raise ValueError("denominator must be positive")
        if numerator == 0:
            return Num(0, 0, 1, 0)
        sign, n = (1, numerator) if numerator > 0 else (-1, -numerator)
        g = gcd(n, denominator)
        n, d = n // g, denominator // g
        if d == 1:  # a decimal: pull the trailing zeros of the mantissa into the exponent
            while n % 10 == 0:
                n //= 10
                exp10 += 1
        return Num(sign, n, d, exp10)

    @staticmethod
    def of(value) -> "Num":
        """From an int or Fraction (or anything Fraction() takes exactly)."""
        value = Fraction(value)
        return Num.make(value.numerator, value.denominator)

    def is_zero(self) -> bool:
        return self.sign == 0

    def magnitude(self) -> int:
        """floor(log10 |self|) (self != 0)."""
        return ilog10(self.n, self.d) + self.e

    def expandable(self, limit: int = EXPANDABLE) -> bool:
        return self.is_zero() or abs(self.e) <= limit

    def fraction(self) -> Fraction:
        if not self.expandable():
            raise OverflowError(f"10^{self.e} is not expanded")
        return self.sign * Fraction(self.n, self.d) * Fraction(10) ** self.e

    def __neg__(self) -> "Num":
        return Num(-self.sign, self.n, self.d, self.e)

    def terminating(self) -> bool:
        return _strip25(self.d) == 1


def _strip25(d: int) -> int:
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    return d


def compare(a: Num, b: Num) -> int:
    """-1, 0 or 1 as a <, =, > b: sign first, then floor(log10) of the magnitudes, then exact digits."""
    if a.sign != b.sign:
        return (a.sign > b.sign) - (a.sign < b.sign)
    if a.sign == 0:
        return 0
    ka, kb = a.magnitude(), b.magnitude()
    if ka != kb:
        return a.sign * ((ka > kb) - (ka < kb))
    # same decade: both scaled by 10^-k are in [1, 10) and their exponents are small
    fa = Fraction(a.n, a.d) * Fraction(10) ** (a.e - ka)
    fb = Fraction(b.n, b.d) * Fraction(10) ** (b.e - kb)
    return a.sign * ((fa > fb) - (fa < fb))


def add(a: Num, b: Num) -> Num:
    """a + b, exactly, for values whose exponents are within 100,000 of each other (else OverflowError)."""
    if a.is_zero():
        return b
    if b.is_zero():
        return a
    low = min(a.e, b.e)
    if max(a.e, b.e) - low > 100_000:
        raise OverflowError("exponents too far apart to add exactly")
    num = (a.sign * a.n * 10 ** (a.e - low) * b.d + b.sign * b.n * 10 ** (b.e - low) * a.d)
    return Num.make(num, a.d * b.d, low)


# ---------------------------------------------------------------------------------------------
# syntax


def _is_unsigned_int(text: str) -> bool:
    """Digits with no leading zero (``0`` itself allowed)."""
    return bool(text) and all(ch in DIGITS for ch in text) and (text == "0" or text[0] != "0")


def raw_syntax(text) -> tuple[int, int, int] | None:
    """(numerator, denominator, exp10) exactly as written (not reduced), or None if ``text`` is not in the grammar.

    Grammar: ``-?W`` (integer), ``-?W/P`` (fraction; W digits without leading zeros,
    P likewise and not 0), ``-?W.F``, ``-?W.FeX``, ``-?WeX`` (F one or more digits, X
    ``-?`` then digits without leading zeros, at most 60). ASCII only, no whitespace,
    at most 200 characters. ``-0``, ``0e5``, ``2/6``, ``1.50`` are in the grammar
    (not canonical): the checker must call them malformed, not mis-read them.
    ``"0e10001"`` is (0, 1, 10001), ``"2/6"`` is (2, 6, 0), ``"1.50e3"`` is (150, 1, 1).
    """
    if not isinstance(text, str) or not text or len(text) > MAX_LENGTH:
        return None
    if any(ch not in "0123456789-./e" for ch in text):
        return None
    body, sign = (text[1:], -1) if text.startswith("-") else (text, 1)
    if "/" in body:
        numerator, _, denominator = body.partition("/")
        if not _is_unsigned_int(numerator) or not _is_unsigned_int(denominator) or denominator == "0":
            return None
        return sign * int(numerator), int(denominator), 0
    mantissa, has_e, exponent = body.partition("e")
    exp10 = 0
    if has_e:
        negative = exponent.startswith("-")
        digits = exponent[1:] if negative else exponent
        if not _is_unsigned_int(digits) or len(digits) > MAX_EXPONENT_DIGITS:
            return None
        exp10 = -int(digits) if negative else int(digits)
    whole, has_point, fraction = mantissa.partition(".")
    if not _is_unsigned_int(whole):
        return None
    if has_point and (not fraction or any(ch not in DIGITS for ch in fraction)):
        return None
    return sign * int(whole + fraction), 1, exp10 - len(fraction)


def parse_syntax(text) -> Num | None:
    """The value of ``text`` if it is in the grammar (canonical or not; see :func:`raw_syntax`), else None."""
    if isinstance(text, str):
        return _parse_cached(text)
    return None


@lru_cache(maxsize=1 << 16)
def _parse_cached(text: str) -> Num | None:
    raw = raw_syntax(text)
    return None if raw is None else Num.make(*raw)


def fraction_is_cheap(text: str, limit: int = 400) -> bool:
    """True when ``Fraction(text)`` is cheap: in the grammar with a written exponent of at most ``limit``.

    (Fraction("0e999999999999999999") computes 10**999999999999999999 before multiplying by 0.)
    """
    raw = raw_syntax(text)
    return raw is not None and abs(raw[2]) <= limit


def value(text: str) -> Num:
    """parse_syntax that insists."""
    number = parse_syntax(text)
    if number is None:
        raise ValueError(f"{text!r} is not in the grammar")
    return number


def canonical_text(number: Num) -> str:
    """The one spelling of ``number`` the rules admit (whatever its length; the caller checks 200)."""
    if number.is_zero():
        return "0"
    sign = "-" if number.sign < 0 else ""
    if not number.terminating():
        if abs(number.e) > EXPANDABLE:
            raise OverflowError("a non-terminating value with a huge exponent has no short spelling")
        f = Fraction(number.n, number.d) * Fraction(10) ** number.e
        return f"{sign}{_int_str(f.numerator)}/{_int_str(f.denominator)}"
    # terminating: n / (2^a 5^b) = n 2^(k-a) 5^(k-b) / 10^k
    d, a, b = number.d, 0, 0
    while d % 2 == 0:
        d //= 2
        a += 1
    while d % 5 == 0:
        d //= 5
        b += 1
    k = max(a, b)
    m, e = number.n * 2 ** (k - a) * 5 ** (k - b), number.e - k
    while m % 10 == 0:
        m //= 10
        e += 1
    digits = _int_str(m)
    leading = len(digits) - 1 + e
    if -7 <= leading <= 21:
        if e >= 0:
            return sign + digits + "0" * e
        point = len(digits) + e
        if point > 0:
            return f"{sign}{digits[:point]}.{digits[point:]}"
        return f"{sign}0.{'0' * -point}{digits}"
    rest = "." + digits[1:] if len(digits) > 1 else ""
    return f"{sign}{digits[0]}{rest}e{leading}"


def canonical(text) -> str | None:
    """The canonical spelling of the value of ``text``, or None if ``text`` is not in the grammar."""
    return _canonical_cached(text) if isinstance(text, str) else None


@lru_cache(maxsize=1 << 16)
def _canonical_cached(text: str) -> str | None:
    number = parse_syntax(text)
    return None if number is None else canonical_text(number)


def is_canonical(text) -> bool:
    """True iff a certificate may contain ``text``: in the grammar and the canonical spelling of its value."""
    return canonical(text) == text


def is_decimal_text(text: str) -> bool:
    """A canonical decimal (no ``/``): what a log10 field must be."""
    return is_canonical(text) and "/" not in text


def unit_form(text: str) -> tuple[int, int]:
    """(m, k) with the canonical decimal ``text`` = m * 10^k and m not divisible by 10 (0 -> (0, 0)).

    k is the exponent of the last *nonzero* written digit: "-33.7448" -> (-337448, -4), "-34" -> (-34, 0),
    "-9.5e54" -> (-95, 53), "-560" -> (-56, 1) (a canonical integer's trailing zeros are not digits it states).
    """
    mantissa, _, exponent = text.partition("e")
    whole, _, places = mantissa.partition(".")
    m, k = int(whole + places), (int(exponent) if exponent else 0) - len(places)
    while m and m % 10 == 0:
        m //= 10
        k += 1
    return m, k


def twin_agrees(end: Num, log_text: str, upper: bool) -> bool | None:
    """The pair rule (docs/numbers-and-checking.md, "Twin fields"), decided by the oracle.

    With log_text = m * 10^k (:func:`unit_form`) and u = 10^k: |m| >= 2 (2u <= |field|), and
    log10_lo <= log10(lo) < log10_lo + u for a lower pair, log10_hi - u < log10(hi) <= log10_hi for an
    upper one; the end must be positive. None if Arb cannot decide by 2^16 bits.
    """
    if end.sign <= 0 or not is_decimal_text(log_text):
        return False
    m, k = unit_form(log_text)
    if abs(m) < 2:
        return False
    field_value, other = Num.make(m, 1, k), Num.make(m - 1 if upper else m + 1, 1, k)
    first, second = log10_compare(end, field_value), log10_compare(end, other)
    if first is None or second is None:
        return None
    return (first <= 0 and second > 0) if upper else (first >= 0 and second < 0)


def decimal_text(m: int, e: int) -> str:
    """Canonical text of the decimal m * 10^e."""
    return canonical_text(Num.make(m, 1, e))


# ---------------------------------------------------------------------------------------------
# log10 comparisons (for the twin fields), with Arb balls read exactly


def _ball_fractions(x) -> tuple[Fraction, Fraction]:
    """The exact endpoints (mid - rad, mid + rad) of an Arb ball, from man_exp."""
    mid_m, mid_e = (int(v) for v in x.mid().man_exp())
    rad_m, rad_e = (int(v) for v in x.rad().man_exp())
    mid = Fraction(mid_m) * Fraction(2) ** mid_e
    rad = Fraction(rad_m) * Fraction(2) ** rad_e
    return mid - rad, mid + rad


def log10_compare(x: Num, t: Num) -> int | None:
    """The sign of log10(x) - t for x > 0 and a decimal t (None if Arb cannot tell by 2^16 bits).

    Reduced by integers first: K = floor(log10 x) is exact, so unless K <= t < K + 1 the
    answer is known. If x = 10^K, log10 x = K exactly. Otherwise log10(y), y = x / 10^K in
    (1, 10), is irrational (10^(a/b) is rational only for integer a/b) and is compared with
    f = t - K in [0, 1) using Arb balls at rising precision, whose endpoints are read exactly.
    """
    from flint import arb, ctx, fmpq

    if x.sign <= 0:
        raise ValueError("log10 of a non-positive number")
    k = x.magnitude()
    if compare(t, Num.make(k)) < 0:
        return 1
    if compare(t, Num.make(k + 1)) >= 0:
        return -1
    y = Fraction(x.n, x.d) * Fraction(10) ** (x.e - k)
    if y == 1:
        return -compare(t, Num.make(k))
    if t.is_zero() or t.magnitude() > -5_000:
        f_lo = f_hi = add(t, Num.make(-k)).fraction()
    elif t.sign > 0:  # 0 < t < 10^-5000 and K = 0
        f_lo, f_hi = Fraction(0), Fraction(1, 10**5000)
    else:  # -10^-5000 < t < 0 and K = -1: f = 1 + t
        f_lo, f_hi = 1 - Fraction(1, 10**5000), Fraction(1)
    prec = 256
    while prec <= 1 << 16:
        with ctx.workprec(prec):
            lo, hi = _ball_fractions(arb(fmpq(y.numerator, y.denominator)).log() / arb(10).log())
        if lo > f_hi:
            return 1
        if hi < f_lo:
            return -1
        prec *= 4
    return None


# ---------------------------------------------------------------------------------------------
# the small grammar, enumerated

SIGNS = ("", "-")
WHOLES = ("0", "1", "7", "10", "12", "100", "00", "01")
FRACTION_DIGITS = (None, "0", "5", "50", "05", "25", "125", "000")
EXPONENTS = (None, "0", "-0", "1", "-1", "2", "-2", "7", "-7", "8", "-8", "21", "-21", "22", "-22", "01",
             "10001", "-10001", "999999999999999999", "9" * 60, "-" + "9" * 60, "1" + "0" * 59,
             "-1" + "0" * 59, "9" * 61, "+1")
NUMERATORS = ("0", "1", "2", "3", "10", "125", "01", "-0", "-1", "-2", "-10", "4" * 99)
DENOMINATORS = ("1", "2", "3", "4", "5", "6", "7", "8", "10", "12", "125", "0", "01", "-3", "3" * 99, "2" * 100)

#: Near misses and strings from the issue: in the grammar's alphabet or just outside it.
JUNK = (
    "", " ", "-", ".", "e", "/", "1 ", " 1", "1\n", "0.247\n", "\n1", "1\t", "1\r\n", "\u00a01", "1\u2009",
    "+1", "+0", "1E5", "1e+5", "1.e5", "1.", ".5", "-.5", "1e", "1e-", "1e--5", "1ee5", "1e5e5", "1e5.5",
    "1.2.3", "0..1", "1/", "/2", "1//2", "1/-3", "-1/-3", "1/+3", "1.5/2", "1/2.5", "1e5/2", "1/2e3",
    "--1", "-+1", "0x10", "0b1", "0o7", "1_000", "1_0/3", "inf", "-inf", "Infinity", "nan", "NaN",
    "\u0661", "1\u0662", "\uff11", "\u00b2", "\u2155", "1\u00bd", "\U0001d7d9", "١/٢", "٠", "e5",
    "1e" + "1" * 61, "1e0000000000000001", "9" * 201, "1" + "0" * 200, "0" * 201, "1/" + "3" * 199,
    "0.0e0", "00", "007", "-00", "1.0", "0.10", "10.0", "1e01", "1e-01", "0e0", "0e-0", "1/1", "2/2",
    "0.1e1", "10e-1", "-0.0", "-0e0", "0/-1", "true", "null", "1,5", "1'000", "\x00", "1\x00",
)


def small_grammar() -> list[str]:
    """Every string of the decimal and fraction productions built from the small pieces, then JUNK.

    The decimal production is sign + whole + (. digits)? + (e exponent)?, the fraction
    production is numerator / denominator; pieces include invalid ones (leading zeros,
    ``-0`` numerators, ``+1`` exponents, 61-digit exponents, zero denominators) so that
    both acceptance and refusal are exercised. Deterministic order, duplicates removed.
    """
    out = []
    for sign in SIGNS:
        for whole in WHOLES:
            for digits in FRACTION_DIGITS:
                for exponent in EXPONENTS:
                    text = sign + whole + ("" if digits is None else "." + digits) + \
                        ("" if exponent is None else "e" + exponent)
                    out.append(text)
    for numerator in NUMERATORS:
        for denominator in DENOMINATORS:
            out.append(f"{numerator}/{denominator}")
    out.extend(JUNK)
    out.extend(ZERO_SPELLINGS)
    out.extend(LONG_NUMBERS)
    seen, unique = set(), []
    for text in out:
        if text not in seen:
            seen.add(text)
            unique.append(text)
    return unique


ZERO_SPELLINGS = ("0", "-0", "0e10001", "-0e10001", "0e999999999999999999", "-0e999999999999999999",
                  "0e" + "9" * 60, "0e-" + "9" * 60, "0.0", "-0.0", "0.000e5", "0/5", "-0/5", "0/1", "0e0",
                  "0.0e-7", "00", "0e")

#: Numbers near the 200-character limit, canonical and not (the oracle decides which; nothing is assumed).
LONG_NUMBERS = (
    "1/" + "3" * 198,
    "-1/" + "3" * 197,
    "1/" + "3" * 199,
    "7" * 100 + "/" + "3" * 99,
    "6" * 99 + "/" + "3" * 100,
    "9" * 200,
    "9" * 199 + "/7",
    "9." + "9" * 188 + "e199",
    "1." + "2" * 190 + "e-" + "9" * 6,
    "0." + "0" * 196 + "1",
    "1e-" + "9" * 60,
    "-9." + "9" * 130 + "e" + "9" * 60,
    "1" + "0" * 138 + "e-" + "9" * 60,
    "1/" + "2" * 99 + "0",
    "1/" + str(2**600),
    "1/" + str(2**300),
    str(5**280) + "e-280",
    str(5**270) + "e-270",
)


def comparison_set() -> list[str]:
    """Grammar strings whose values span every case of an exact comparison (zeros, signs, decades, ties)."""
    out = []
    for sign in SIGNS:
        for whole in ("0", "1", "7", "12", "100"):
            for digits in (None, "5", "05", "125"):
                for exponent in (None, "1", "-1", "22", "-8", "10001", "-10001", "10002", "9" * 60,
                                 "-" + "9" * 60, "9" * 59 + "8"):
                    out.append(sign + whole + ("" if digits is None else "." + digits) +
                               ("" if exponent is None else "e" + exponent))
        for fraction in ("1/3", "2/6", "1/7", "10/3", "125/1000", "1/" + "3" * 99, "3" * 99 + "/1" + "0" * 98,
                         "0/5", "22/7", "355/113"):
            out.append(sign + fraction)
    out.extend(["0e" + "9" * 60, "-0e" + "9" * 60, "0e-" + "9" * 60, "1.25e-7", "0.000000125", "125e-9",
                "9.99e10001", "1e10002", "99.9e10000"])
    return sorted(set(t for t in out if parse_syntax(t) is not None))


# ---------------------------------------------------------------------------------------------
# other spellings of one value


def _decimal_parts(number: Num) -> tuple[str, int]:
    """(digits of m, e) with |number| = m * 10^e, m not divisible by 10 (number terminating, not 0)."""
    d, a, b = number.d, 0, 0
    while d % 2 == 0:
        d //= 2
        a += 1
    while d % 5 == 0:
        d //= 5
        b += 1
    k = max(a, b)
    m, e = number.n * 2 ** (k - a) * 5 ** (k - b), number.e - k
    while m % 10 == 0:
        m //= 10
        e += 1
    return _int_str(m), e


def _positional(digits: str, e: int) -> str:
    if e >= 0:
        return digits + "0" * e
    point = len(digits) + e
    return f"{digits[:point]}.{digits[point:]}" if point > 0 else f"0.{'0' * -point}{digits}"


def spellings(text: str) -> list[str]:
    """Spellings in the grammar of the value of ``text`` other than the canonical one (some may exceed 200)."""
    number = value(text)
    canon = canonical_text(number)
    out = set()
    if number.is_zero():
        out.update(ZERO_SPELLINGS)
    elif number.terminating():
        sign = "-" if number.sign < 0 else ""
        digits, e = _decimal_parts(number)
        if len(digits) < 200:
            lead = len(digits) - 1 + e
            head, tail = digits[0], digits[1:]
            out.add(f"{sign}{digits}e{e}")                       # integer mantissa and an exponent
            out.add(f"{sign}{digits}0e{e - 1}")                  # a trailing zero in the mantissa
            out.add(f"{sign}0.{digits}e{lead + 1}")              # 0.1e1
            out.add(f"{sign}{head}.{tail}0e{lead}")              # d.ddd0eL
            out.add(f"{sign}{head}.{tail or '0'}e{lead}")        # scientific (canonical only outside -7..21)
            out.add(f"{sign}{head}{'.' + tail if tail else ''}e-0" if lead == 0 else f"{sign}{digits}e{e}")
            if abs(lead) < 150:
                plain = sign + _positional(digits, e)
                out.add(plain)                                   # positional (canonical only inside -7..21)
                out.add(plain + ("0" if "." in plain else ".0"))  # a trailing zero after the point
                out.add(plain + "e0")
                out.add(sign + "0" + _positional(digits, e))     # a leading zero (not in the grammar)
            if abs(e) < 400:
                f = abs(number.fraction())
                out.add(f"{sign}{f.numerator}/{f.denominator}")  # terminating as a fraction (n/1 for integers)
                out.add(f"{sign}{2 * f.numerator}/{2 * f.denominator}")
    else:
        f = abs(number.fraction())
        sign = "-" if number.sign < 0 else ""
        for factor in (2, 3, 1000):
            out.add(f"{sign}{factor * f.numerator}/{factor * f.denominator}")
    return sorted(t for t in out if t != canon and parse_syntax(t) is not None and compare(value(t), number) == 0)


# ---------------------------------------------------------------------------------------------
# random productions (a seeded random.Random; the hypothesis strategies below draw the same)


def _random_digits(rng: random.Random, count: int, leading_zero_ok: bool = True) -> str:
    first = rng.choice(DIGITS if leading_zero_ok else DIGITS[1:])
    return first + "".join(rng.choice(DIGITS) for _ in range(count - 1))


def _random_length(rng: random.Random) -> int:
    return rng.choice((1, 1, 2, 3, rng.randint(1, 20), rng.randint(1, 60), rng.randint(60, 190)))


def random_exponent(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.4:
        return rng.randint(-25, 25)
    if kind < 0.6:
        return rng.randint(-400, 400)
    if kind < 0.75:
        return rng.choice((1, -1)) * rng.randint(9_990, 10_010)
    if kind < 0.9:
        return rng.choice((1, -1)) * rng.randint(0, 10**rng.randint(1, 60) - 1)
    return rng.choice((1, -1)) * (10**60 - rng.randint(1, 1000))


def random_canonical(rng: random.Random) -> str:
    """A canonical number: zero, a decimal of any size or a reduced non-terminating fraction."""
    while True:
        kind = rng.random()
        if kind < 0.05:
            return "0"
        sign = rng.choice((1, -1))
        if kind < 0.75:
            m = int(_random_digits(rng, _random_length(rng), leading_zero_ok=False))
            while m % 10 == 0:
                m //= 10
            text = canonical_text(Num.make(sign * m, 1, random_exponent(rng)))
        else:
            n = int(_random_digits(rng, _random_length(rng) // 2 + 1, leading_zero_ok=False))
            d = int(_random_digits(rng, _random_length(rng) // 2 + 1, leading_zero_ok=False))
            number = Num.make(sign * n, d)
            if number.terminating():
                number = Num.make(sign * n, d * rng.choice((3, 7, 11, 13)))
            text = canonical_text(number)
        if len(text) <= MAX_LENGTH and is_canonical(text):
            return text


def random_spelling(rng: random.Random) -> str:
    """A string from the productions with random pieces: often non-canonical, sometimes not in the grammar."""
    kind = rng.random()
    if kind < 0.3:
        return random_canonical(rng)
    if kind < 0.4:
        text = random_canonical(rng)
        others = spellings(text) if len(text) < 120 else []
        return rng.choice(others) if others else text
    if kind < 0.5:
        return rng.choice(ZERO_SPELLINGS + JUNK)
    sign = rng.choice(("", "", "-"))
    if kind < 0.65:
        numerator = _random_digits(rng, _random_length(rng) // 2 + 1, leading_zero_ok=rng.random() < 0.1)
        denominator = _random_digits(rng, _random_length(rng) // 2 + 1, leading_zero_ok=rng.random() < 0.1)
        text = f"{sign}{numerator}/{denominator}"
    else:
        whole = _random_digits(rng, rng.choice((1, 1, 2, _random_length(rng))), leading_zero_ok=rng.random() < 0.2)
        if rng.random() < 0.3:
            whole = "0"
        fraction = "" if rng.random() < 0.3 else "." + _random_digits(rng, _random_length(rng))
        exponent = "" if rng.random() < 0.3 else "e" + str(random_exponent(rng))
        text = sign + whole + fraction + exponent
    if rng.random() < 0.05:  # a near miss: one character inserted, replaced or appended
        position = rng.randrange(len(text) + 1)
        text = text[:position] + rng.choice((" ", "\n", "+", "E", "_", "\u0661", ".", "-", "/", "0", "e")) + \
            text[position:]
    return text[:MAX_LENGTH + rng.choice((0, 0, 0, 5))]


# ---------------------------------------------------------------------------------------------
# hypothesis strategies


def strategies():
    """(canonical_numbers, spellings_of_numbers, near_pairs) as hypothesis strategies."""
    from hypothesis import strategies as st

    exponents = st.one_of(st.integers(-25, 25), st.integers(-400, 400), st.integers(9_990, 10_010),
                          st.integers(-10_010, -9_990), st.integers(-10**60 + 1, 10**60 - 1),
                          st.integers(10**60 - 1000, 10**60 - 1), st.integers(-10**60 + 1, -10**60 + 1000))
    mantissas = st.one_of(st.integers(1, 10**3), st.integers(1, 10**20), st.integers(1, 10**150))

    @st.composite
    def decimal(draw):
        m = draw(mantissas)
        sign = draw(st.sampled_from((1, -1)))
        return canonical_text(Num.make(sign * m, 1, draw(exponents)))

    @st.composite
    def fraction(draw):
        n = draw(st.integers(1, 10**90))
        d = draw(st.integers(2, 10**90))
        number = Num.make(draw(st.sampled_from((1, -1))) * n, d)
        if number.terminating():
            number = Num.make(number.sign * number.n, number.d * 3)
        return canonical_text(number)

    canonical_numbers = st.one_of(st.just("0"), decimal(), fraction()).filter(
        lambda t: len(t) <= MAX_LENGTH and is_canonical(t))

    @st.composite
    def spelled(draw):
        sign = draw(st.sampled_from(("", "-")))
        whole = draw(st.sampled_from(("0", "00", "1", "01"))) if draw(st.booleans()) else \
            str(draw(st.integers(0, 10**40)))
        fraction_part = draw(st.one_of(st.just(""), st.text(DIGITS, min_size=1, max_size=60).map(lambda s: "." + s)))
        exponent = draw(st.one_of(st.just(""), exponents.map(lambda e: f"e{e}")))
        text = sign + whole + fraction_part + exponent
        if draw(st.integers(0, 9)) == 0:
            text = f"{sign}{draw(st.integers(0, 10**60))}/{draw(st.integers(0, 10**60))}"
        return text

    @st.composite
    def near_pair(draw):
        """Two decimals in the same decade that differ in their last digits (the hard comparisons)."""
        m = draw(st.integers(10**5, 10**60))
        delta = draw(st.integers(-3, 3))
        shift = draw(st.integers(0, 3))
        e = draw(exponents)
        sign = draw(st.sampled_from((1, -1)))
        a = Num.make(sign * m, 1, e)
        b = Num.make(sign * (m * 10**shift + delta), 1, e - shift)
        return canonical_text(a), canonical_text(b)

    near_pairs = near_pair().filter(lambda pair: all(len(t) <= MAX_LENGTH and is_canonical(t) for t in pair))
    return canonical_numbers, st.one_of(spelled(), canonical_numbers), near_pairs
