"""An oracle for printed numbers, independent of certify.render.numbers.

A number is a pair (m, e) meaning m * 10**e with m a fractions.Fraction (never normalised, e of any
size, 10**e never expanded for large e); comparisons align the two exponents when they are close and
decide by the exponent when they are far apart. Printed LaTeX is read back by its own small parser.
"""

from __future__ import annotations

import re
from fractions import Fraction

# ---------------------------------------------------------------- the oracle: (Fraction, exponent) pairs

ALIGN = 3000  # exponents closer than this are aligned exactly; farther apart, the exponent decides
BOUND = Fraction(10) ** 1200  # every mantissa the tests build is within [1/BOUND, BOUND] in magnitude


def value(text: str) -> tuple[Fraction, int]:
    """(m, e) with m * 10**e == Fraction(text), without expanding a large exponent."""
    if "e" in text:
        mantissa, exponent = text.split("e")
        return Fraction(mantissa), int(exponent)
    return Fraction(text), 0


def sign(a) -> int:
    return (a[0] > 0) - (a[0] < 0)


def cmp(a, b) -> int:
    if sign(a) != sign(b) or sign(a) == 0:
        return (sign(a) > sign(b)) - (sign(a) < sign(b))
    shift = a[1] - b[1]
    if abs(shift) <= ALIGN:
        x, y = (a[0] * Fraction(10) ** shift, b[0]) if shift >= 0 else (a[0], b[0] * Fraction(10) ** -shift)
        return (x > y) - (x < y)
    assert all(1 / BOUND < abs(n[0]) < BOUND for n in (a, b))
    return sign(a) if shift > 0 else -sign(a)


def sub(a, b):
    """a - b; only for close exponents (the tests never subtract far-apart numbers)."""
    if sign(b) == 0:
        return a
    if sign(a) == 0:
        return -b[0], b[1]
    base = min(a[1], b[1])
    assert abs(a[1] - b[1]) <= ALIGN
    return a[0] * Fraction(10) ** (a[1] - base) - b[0] * Fraction(10) ** (b[1] - base), base


def add(a, b):
    return sub(a, (-b[0], b[1]))


def scale(a, factor: Fraction):
    return a[0] * factor, a[1]


def lead(a) -> int:
    """floor(log10 |a|) for a != 0."""
    m, e = abs(a[0]), a[1]
    t = len(str(m.numerator)) - len(str(m.denominator))
    while m >= Fraction(10) ** (t + 1):
        t += 1
    while m < Fraction(10) ** t:
        t -= 1
    return t + e


def first_digits(a, count: int) -> int:
    """The first ``count`` significant digits of |a| as an integer (truncated)."""
    m, e = abs(a[0]), a[1]
    shift = count - 1 - (lead(a) - e)
    scaled = m * Fraction(10) ** shift
    return scaled.numerator // scaled.denominator


def oracle_shared(lo, hi) -> int:
    """Significant digits lo and hi share (0 unless same sign and leading exponent); lo != hi."""
    if sign(lo) == 0 or sign(lo) != sign(hi) or lead(lo) != lead(hi):
        return 0
    k = 0
    while first_digits(lo, k + 1) == first_digits(hi, k + 1):
        k += 1
    return k


def oracle_position(lo, hi) -> int | None:
    """m = E - floor(log10(hi - lo)) + 1, E the larger leading exponent; None if too far apart to subtract."""
    nonzero = [lead(n) for n in (lo, hi) if sign(n)]
    if len(nonzero) == 2 and abs(nonzero[0] - nonzero[1]) > ALIGN // 2:
        return None
    return max(nonzero) - lead(sub(hi, lo)) + 1


# ---------------------------------------------------------------- parsing what was printed

NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:\\times 10\^\{-?[0-9]+\})?"


def clean(latex: str) -> str:
    return latex.replace(r"\allowbreak ", "")


def printed_number(latex: str):
    match = re.fullmatch(r"(-?[0-9]+(?:\.[0-9]+)?)(?:\\times 10\^\{(-?[0-9]+)\})?", latex)
    assert match, latex
    return Fraction(match.group(1)), int(match.group(2) or 0)


def undo_exact(latex: str) -> str:
    """The text an exact rendering stands for: \\frac{a}{b} -> a/b, \\times 10^{k} -> ek."""
    text = clean(latex)
    text = re.sub(r"\\frac\{([0-9]+)\}\{([0-9]+)\}", r"\1/\2", text)
    return re.sub(r"\\times 10\^\{(-?[0-9]+)\}", r"e\1", text)


# ---------------------------------------------------------------- is a printed statement implied?

_DIGITS = re.compile(r"(-?)([0-9]+(?:\.[0-9]*)?)\\ldots(?:\\times 10\^\{(-?[0-9]+)\})?")
_INTERVAL = re.compile(rf"\\in \[({NUMBER}), ({NUMBER})\]")


def implied(statement: str, lo, hi) -> bool:
    """Whether ``value <relation> ...`` (``= x``, ``= d.ddd\\ldots``, ``\\in [a, b]``, ``\\ge a``, ``\\le b``)
    holds for every value in [lo, hi] (lo or hi None: unbounded on that side)."""
    statement = clean(statement)
    if statement.startswith("= ") and r"\ldots" not in statement:
        x = value(undo_exact(statement[2:]))
        return lo is not None and hi is not None and cmp(lo, x) == 0 and cmp(hi, x) == 0
    if statement.startswith("= "):
        match = _DIGITS.fullmatch(statement[2:])
        assert match, statement
        if lo is None or hi is None:
            return False
        body, exponent = match.group(2), int(match.group(3) or 0)
        places = len(body.split(".")[1]) if "." in body else 0
        d, u = (Fraction(body), exponent), (Fraction(1), exponent - places)
        low, high = ((-hi[0], hi[1]), (-lo[0], lo[1])) if match.group(1) else (lo, hi)
        return cmp(d, low) <= 0 and cmp(high, add(d, u)) < 0
    match = _INTERVAL.fullmatch(statement)
    if match:
        return (lo is not None and hi is not None and cmp(printed_number(match.group(1)), lo) <= 0
                and cmp(printed_number(match.group(2)), hi) >= 0)
    if statement.startswith(r"\ge "):
        return lo is not None and cmp(printed_number(statement[4:]), lo) <= 0
    if statement.startswith(r"\le "):
        return hi is not None and cmp(printed_number(statement[4:]), hi) >= 0
    raise AssertionError(f"unknown statement {statement!r}")


# ---------------------------------------------------------------- the plain-text form of the same statements

_TEXT_EXPONENT = re.compile(r"(?<=[0-9.])e(-?[0-9]+)")


def text_to_latex(statement: str) -> str:
    """A text statement (``= 45.99...``, ``in [17.1, 140]``, ``>= 1.2e-7``, ``= 1/6``) in the LaTeX form
    :func:`implied` reads: ``...`` -> ``\\ldots``, ``eK`` -> ``\\times 10^{K}``, ``a/b`` -> ``\\frac{a}{b}``."""
    for plain, latex in (("in [", r"\in ["), (">= ", r"\ge "), ("<= ", r"\le ")):
        if statement.startswith(plain):
            statement = latex + statement[len(plain):]
    statement = _TEXT_EXPONENT.sub(r"\\times 10^{\1}", statement)  # before "..." -> \ldots: "1.2...e5"
    statement = statement.replace("...", r"\ldots")
    return re.sub(r"([0-9]+)/([0-9]+)", r"\\frac{\1}{\2}", statement)


def power_statement(statement: str, style: str = "latex") -> str | None:
    """A statement about 10^x as the same statement about x (10^x is increasing), or None if it is not one:
    ``= 10^{t}`` / ``= 10^t`` / ``= 10^(t)`` -> ``= t``, ``\\in [10^{a}, 10^{b}]`` -> ``\\in [a, b]``, ..."""
    if style == "latex":
        match = re.fullmatch(r"(= |\\ge |\\le )10\^\{(.*)\}", statement)
        if match:
            return match.group(1) + match.group(2)
        match = re.fullmatch(r"\\in \[10\^\{(.*)\}, 10\^\{(.*)\}\]", statement)
        return rf"\in [{match.group(1)}, {match.group(2)}]" if match else None
    power = r"10\^(?:\(([^()]*)\)|([^(), \]]*))"
    match = re.fullmatch(rf"(= |>= |<= ){power}", statement)
    if match:
        return match.group(1) + (match.group(2) or match.group(3))
    match = re.fullmatch(rf"in \[{power}, {power}\]", statement)
    if match:
        return f"in [{match.group(1) or match.group(2)}, {match.group(3) or match.group(4)}]"
    return None


def implied_text(statement: str, lo, hi) -> bool:
    """:func:`implied` for a plain-text statement."""
    return implied(text_to_latex(statement), lo, hi)
