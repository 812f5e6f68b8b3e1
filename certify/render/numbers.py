"""How a certified number is shown: one rule, :func:`display`, and nothing printed that the stored numbers
do not imply.

Every command summary, simulate's report, the LaTeX documents, the notebook reprs and the checker's
rejections show certified numbers through :func:`display` (or :func:`display_parts`), so the same number
is shown the same way everywhere. All arithmetic here is exact: a number of the certify/1 grammar is held
as ``sign * f * 10**E`` with ``f`` a :class:`fractions.Fraction` in [1, 10) and ``E`` an integer of any
size (``10**E`` is never expanded). The rule, for the fields of a stored quantity:

* **an exact value** (``exact``, or ``lo == hi``) whose text has at most EXACT_CHARS characters is shown
  as written (every digit; ``1/6``, ``499999999999999994``). A longer one is shown by its first
  DISPLAY_DIGITS significant digits followed by an ellipsis (``-4.49999999999...e54``), or by all its
  digits if it terminates within them.
* **an enclosure** ``lo <= value <= hi``: let ``k`` be the number of leading significant digits lo and hi
  share (0 unless they have the same sign and leading power of ten) and ``m`` the position of the width
  ``w = hi - lo`` among the significant digits, ``m = E - floor(log10 w) + 1``. If ``k >= 3`` and
  ``k >= min(m - 2, DISPLAY_DIGITS)`` (the last digit shown is at most 100 w, or all DISPLAY_DIGITS are
  shared) the value is shown by its **certified digits**: the first ``min(k, DISPLAY_DIGITS)`` shared
  digits and an ellipsis (``45.9932965048...``, ``1.82005604039...e561``). Otherwise the two
  ends are shown, ``in [a, b]``, each rounded outward (a <= lo, b >= hi) to
  ``max(3, min(m + 1, DISPLAY_DIGITS))`` significant digits, so each end moves by at most w / 10 when
  ``m + 1 <= DISPLAY_DIGITS``.
* **a one-sided bound** (``lo`` or ``hi`` alone) is rounded outward to BOUND_DIGITS significant digits
  (``>= 0.0106936``, ``<= 1.23507``).
* **a log10 field** is shown as a power of ten by the same rules (``= 10^561.260084760...``,
  ``in [10^a, 10^b]``), except that a one-sided log10 bound is rounded outward to LOG10_PLACES decimal
  places (trailing zeros kept: ``10^-8.40``), at most BOUND_DIGITS significant digits (``>= 10^-7.35`` for
  ``log10_lo = -7.3431...``, ``>= 10^(-9.77163e53)``).

**What the notation means.** ``d.ddd...`` (LaTeX ``d.ddd\\ldots``) states that the value lies in
``[d.ddd, d.ddd + u)``, u one unit of the last digit shown; ``-d.ddd...`` says it of the magnitude. A
number without an ellipsis is exact: an exact value, or an end or bound that the stored one implies
(``in [a, b]``: a <= lo and hi <= b; ``>= a``: a <= lo). Every outward rounding keeps the bound strictly
on its side of 0, 1 and -1 (the landmarks the statements compare with): a lower bound above 1 is never
shown as ``>= 1``; digits are added until it is not. Numbers whose leading digit is at 10^-4 .. 10^6 are
written positionally (with an ellipsis, only when a digit after the point is shown), others as
``d.ddde<E>`` (text) or ``d.ddd \\times 10^{E}`` (LaTeX).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

#: Longest number text the renderer reads (certify/1 allows 200 characters; the checker's balls are longer).
MAX_TEXT_LENGTH = 1000
#: The most significant digits a shown number gets: certified digits, a long exact value, an interval's ends.
DISPLAY_DIGITS = 12
#: An exact value whose text has at most this many characters is shown as written.
EXACT_CHARS = 24
#: Fewest shared significant digits shown as certified digits; fewer and the ends are shown.
MIN_CERTIFIED_DIGITS = 3
#: Certified digits are shown only if they are not far coarser than the width: k >= m - WASTE_DIGITS.
WASTE_DIGITS = 2
#: Fewest significant digits of an end of a shown interval.
MIN_INTERVAL_DIGITS = 3
#: Significant digits of a one-sided bound; decimal places of a one-sided bound on a log10.
BOUND_DIGITS, LOG10_PLACES = 6, 2
#: With ``against`` (a checker's rejection): the most significant digits shown to tell a number from it.
SEPARATING_DIGITS = 60
#: Digit strings longer than this get a LaTeX break point every BREAK_EVERY characters (latex_exact).
LONG_DIGITS, BREAK_EVERY = 30, 10
STYLES = ("text", "latex")
_LANDMARKS = (-1, 0, 1)
_RELATIONS = {"text": {"=": "=", "in": "in", ">=": ">=", "<=": "<="},
              "latex": {"=": "=", "in": r"\in", ">=": r"\ge", "<=": r"\le"}}

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


def _fixed_range(exponent: int) -> bool:
    return -4 <= exponent <= 6


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


def _digits_in_scale(x: Number, digits: str, truncated: bool = True) -> tuple[str, int]:
    """(body, exponent): the leading significant ``digits`` of x with x's sign, positional (exponent 0) when
    x's leading exponent is in -4..6 and, for ``truncated`` digits with a leading exponent >= 0, a digit
    after the point is shown (``123...`` could be read as 123.x); else ``d.ddd`` and the leading exponent."""
    sign = "-" if x.sign < 0 else ""
    if _fixed_range(x.exponent) and (not truncated or x.exponent < 0 or len(digits) >= x.exponent + 2):
        return sign + _fixed(digits, x.exponent), 0
    return sign + digits[0] + ("." + digits[1:] if len(digits) > 1 else ""), x.exponent


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


# ---------------------------------------------------------------------------------------------- the rule

def _written(x: Number, digits: str, truncated: bool, style: str) -> str:
    """x's leading significant ``digits`` as text or LaTeX, with an ellipsis when they are ``truncated``."""
    if x.sign == 0:
        return "0"
    body, exponent = _digits_in_scale(x, digits, truncated)
    mark = ("..." if style == "text" else r"\ldots") if truncated else ""
    if not exponent:
        return body + mark
    return body + mark + (f"e{exponent}" if style == "text" else rf"\times 10^{{{exponent}}}")


def _decimal(x: Number, style: str, places_of: int = 0) -> str:
    """A terminating x with every digit (a rounded end or bound), with trailing zeros up to ``places_of``
    significant digits (``-8.40``: a log10 rounded to two places says so)."""
    digits = _terminating_digits(x)
    if digits is None:
        raise ValueError("not a terminating decimal")
    return _written(x, digits.ljust(places_of, "0") if x.sign else digits, False, style)


def _toward_zero(x: Number, digits: int) -> Number:
    return round_outward(x, digits, upward=x.sign < 0)


def _leading(x: Number, count: int, style: str) -> str:
    """x by its first ``count`` significant digits and an ellipsis, or every digit if it terminates within them."""
    exact = _terminating_digits(x) if x.sign else "0"
    if exact is not None and len(exact) <= count:
        return _written(x, exact, False, style)
    return _written(x, _significant_digits(x, count), True, style)


def _separating(pairs, against: Number, start: int) -> int:
    """The fewest digits n >= start (at most SEPARATING_DIGITS) at which every (rounded, x) pair shows x apart
    from ``against``: ``rounded(x, n)`` differs from ``rounded(against, n)``. Pairs with x == against never
    separate and are skipped."""
    pairs = [(rounded, x) for rounded, x in pairs if compare(x, against) != 0]
    for count in range(start, SEPARATING_DIGITS + 1):
        if all(compare(rounded(x, count), rounded(against, count)) != 0 for rounded, x in pairs):
            return count
    return SEPARATING_DIGITS


def _exact_part(text: str, style: str, digits: int, against: Number | None):
    x = parse_number(text)
    if len(text) <= EXACT_CHARS:
        return "=", [text if style == "text" else latex_exact(text)]
    count = digits if against is None else _separating([(_toward_zero, x)], against, digits)
    return "=", [_leading(x, count, style)]


def _enclosure_part(lo: str, hi: str, style: str, digits: int, against: Number | None):
    low, high = parse_number(lo), parse_number(hi)
    order = compare(low, high)
    if order > 0:
        raise ValueError(f"lower end {lo[:40]} is above upper end {hi[:40]}")
    if order == 0:
        return _exact_part(lo if len(lo) <= len(hi) else hi, style, digits, against)
    shared, position = shared_digits(low, high), width_position(low, high)
    if against is None and shared >= MIN_CERTIFIED_DIGITS and shared >= min(position - WASTE_DIGITS, digits):
        return "=", [_written(low, _significant_digits(low, min(shared, digits)), True, style)]
    count = max(MIN_INTERVAL_DIGITS, min(position + 1, digits))
    if against is not None:
        count = _separating([(lambda x, n: round_keeping_landmarks(x, n, False), low),
                             (lambda x, n: round_keeping_landmarks(x, n, True), high)], against, count)
    return "in", [_decimal(round_keeping_landmarks(low, count, False), style),
                  _decimal(round_keeping_landmarks(high, count, True), style)]


def _bound_part(text: str, upward: bool, style: str, log10: bool):
    x = parse_number(text)
    count = BOUND_DIGITS if not log10 or x.sign == 0 else min(BOUND_DIGITS, max(1, x.exponent + 1 + LOG10_PLACES))
    return ("<=" if upward else ">="), [_decimal(round_keeping_landmarks(x, count, upward), style,
                                                 count if log10 else 0)]


def _part(stored, low_key: str, high_key: str, style: str, digits: int, against, log10: bool):
    low, high = stored.get(low_key), stored.get(high_key)
    if low is not None and high is not None:
        return _enclosure_part(low, high, style, digits, against)
    if low is not None:
        return _bound_part(low, False, style, log10)
    return _bound_part(high, True, style, log10)


def _power(body: str, style: str) -> str:
    """10^body: braces in LaTeX; in text parentheses around a body with its own exponent (``10^(1.2e36)``)."""
    if style == "latex":
        return f"10^{{{body}}}"
    return f"10^({body})" if "e" in body else f"10^{body}"


def display_parts(stored, style: str = "text", *, digits: int = DISPLAY_DIGITS, against: str | None = None
                  ) -> list[tuple[str, str]]:
    """The statements :func:`display` makes about a stored quantity, as (relation, body) pairs in ``style``:
    ``("=", "1/6")``, ``("=", "45.9932965048...")``, ``("in", "[17.1, 140]")``, ``(">=", "0.006")``,
    ``(">=", "10^-7.35")`` (LaTeX: ``\\in``, ``\\ge``, ``\\le``, ``\\ldots``, ``10^{...}``), first the value's
    (``exact``, or ``lo`` and ``hi``), then its log10's (``log10_lo`` and ``log10_hi``). Same rule and
    guarantee as :func:`display`.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}: expected one of {', '.join(STYLES)}")
    if not isinstance(digits, int) or isinstance(digits, bool) or not MIN_CERTIFIED_DIGITS <= digits <= SEPARATING_DIGITS:
        raise ValueError(f"digits must be an integer in {MIN_CERTIFIED_DIGITS}..{SEPARATING_DIGITS}")
    if not hasattr(stored, "get"):
        raise ValueError("a stored quantity is a mapping of its number fields")
    for key in ("exact", "lo", "hi", "log10_lo", "log10_hi"):
        if key in stored and not isinstance(stored[key], str):
            raise ValueError(f"{key} is not a number text")
    target = None if against is None else parse_number(against)
    relations, parts = _RELATIONS[style], []
    if "exact" in stored:
        parts.append(_exact_part(stored["exact"], style, digits, target))
    elif "lo" in stored or "hi" in stored:
        parts.append(_part(stored, "lo", "hi", style, digits, target, log10=False))
    if "log10_lo" in stored or "log10_hi" in stored:
        relation, bodies = _part(stored, "log10_lo", "log10_hi", style, digits, None, log10=True)
        parts.append((relation, [_power(body, style) for body in bodies]))
    return [(relations[relation], bodies[0] if len(bodies) == 1 else f"[{bodies[0]}, {bodies[1]}]")
            for relation, bodies in parts]


def display(stored, style: str = "text", subject: str = "", separator: str = " ", *,
            digits: int = DISPLAY_DIGITS, against: str | None = None) -> str:
    """How a certified number is shown, everywhere: what the stored fields of one quantity imply, by the
    module's rule, as ``subject = 45.9932965048...``, ``subject in [17.1, 140]``, ``subject >= 0.0106936``,
    ``subject >= 10^-7.35`` (text) or the same in LaTeX math mode (``style="latex"``), one statement for
    the value and one for its log10, joined by ``", "`` (LaTeX ``",\\ "``); each statement is ``subject``,
    ``separator``, the relation and the number (just the relation and the number if subject is empty).

    ``stored`` is a mapping with the number texts ``exact`` or ``lo``/``hi`` and optionally
    ``log10_lo``/``log10_hi`` (other keys are ignored). ``digits`` caps the significant digits of
    certified digits, long exact values and interval ends (DISPLAY_DIGITS unless a caller needs more).
    ``against`` (a number text; the checker's rejections) shows a value's enclosure always as its two ends,
    and an end or a long exact value with as many digits as it takes to tell it apart from ``against``
    (at most SEPARATING_DIGITS).

    Guarantee: every statement printed is implied by the stored numbers: an exact value is theirs; certified
    digits ``D...`` (unit u of the last digit) satisfy D <= |v| < D + u for every v in [lo, hi] (and v has
    the sign shown); ``in [a, b]`` has a <= lo and hi <= b; ``>= a`` has a <= lo and ``<= b`` has hi <= b;
    the same for the log10 fields, shown as powers of ten. An outward-rounded bound never reaches 0, 1
    or -1 from its side. ValueError for a text that is not a number, lo > hi, an unknown style or digits
    outside MIN_CERTIFIED_DIGITS..SEPARATING_DIGITS.

    >>> display({"lo": "45.993296504808900519644880784605173562701488",
    ...          "hi": "45.993296504808900519644880784605173574758464"}, subject="T")
    'T = 45.9932965048...'
    >>> display({"lo": "42757/2494", "hi": "139.709721832272680593795780920084615371600182"})
    'in [17.1, 140]'
    >>> print(display({"lo": "4.53771064930808833221223121925538066233784748e-8",
    ...                "log10_lo": "-7.34316320069772453345713809105289873"}, "latex", r"\\text{P}"))
    \\text{P} \\ge 4.53771\\times 10^{-8},\\ \\text{P} \\ge 10^{-7.35}
    """
    glue = ", " if style == "text" else r",\ "
    parts = display_parts(stored, style, digits=digits, against=against)
    return glue.join(f"{subject}{separator}{relation} {body}" if subject else f"{relation} {body}"
                     for relation, body in parts)
