"""Coq terms for the certificate's exact numbers, and Coq identifiers.

Every number a Coq file states comes from the certificate's text through :func:`number` (which
admits only the canonical spelling, as ``certify check`` does) and is written by :func:`real` as an
exact rational term of Coq's reals: ``13``, ``(-3)``, ``(42757 / 2494)``. No rounding happens here;
an exporter that states a weaker bound rounds outward explicitly (:func:`round_down`, :func:`round_up`).
"""

from __future__ import annotations

import re

from flint import arb, fmpq, fmpz

from ..errors import MalformedCertificate
from ..kernel.exact import ExactNumber, parse_exact

#: Above this many digits a literal is unwieldy for Coq's parser and for interval; exporters list such claims.
MAX_LITERAL_DIGITS = 2000

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
#: Words an emitted file must never contain outside comments (tests scan for them too).
ESCAPE_HATCHES = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis",
                  "Hypotheses", "Conjecture", "Variable", "Variables", "Context")


def exact_number(text: str, what: str = "number") -> ExactNumber:
    """A canonical certificate number as numerator / denominator * 10^exp10 (any exponent), for log
    forms of numbers too long to write out; MalformedCertificate if it is not canonical."""
    try:
        return parse_exact(text)
    except ValueError as exc:
        raise MalformedCertificate(f"{what}: {exc}") from None


def number(text: str, what: str = "number") -> fmpq:
    """The exact value of a canonical certificate number; ValueError if its literal would exceed
    :data:`MAX_LITERAL_DIGITS` digits (use :func:`exact_number` for a log form)."""
    value = exact_number(text, what)
    if abs(value.exp10) > MAX_LITERAL_DIGITS:
        raise ValueError(f"{what} {text[:40]} has more than {MAX_LITERAL_DIGITS} digits written out")
    return value.fmpq()


def integer_literal(value) -> str:
    """A Coq integer literal (in R scope: IZR of it), negative ones parenthesised."""
    value = int(value)
    return f"({value})" if value < 0 else str(value)


def rational(value) -> fmpq:
    """An exact rational (int, fmpz, fmpq or fractions.Fraction) as fmpq; TypeError for anything else."""
    if isinstance(value, (int, fmpz, fmpq)) and not isinstance(value, bool):
        return fmpq(value)
    numerator, denominator = getattr(value, "numerator", None), getattr(value, "denominator", None)
    if isinstance(numerator, int) and isinstance(denominator, int):
        return fmpq(numerator, denominator)
    raise TypeError(f"not an exact rational: {type(value).__name__}")


def real(value) -> str:
    """The exact rational ``value`` as a Coq real term: ``n`` or ``(n / d)``, ``(-n / d)``.

    Requires at most :data:`MAX_LITERAL_DIGITS` digits in numerator and denominator (ValueError
    otherwise: the caller lists the claim as not exported).
    """
    q = rational(value)
    n, d = int(q.p), int(q.q)
    if max(len(str(abs(n))), len(str(d))) > MAX_LITERAL_DIGITS:
        raise ValueError(f"a number of more than {MAX_LITERAL_DIGITS} digits")
    if d == 1:
        return integer_literal(n)
    return f"({n} / {d})" if n >= 0 else f"(- ({-n} / {d}))"


def rational_below(x, bits: int) -> fmpq:
    """A rational <= every point of the ball ``x`` (an arb, or anything arb() takes exactly), at most
    2^-bits below its lower end: for choosing proof ends, never for a certificate's own numbers."""
    return fmpq(fmpz((arb(x).lower() * 2 ** bits).floor().unique_fmpz()), 2 ** bits)


def rational_above(x, bits: int) -> fmpq:
    """A rational >= every point of the ball ``x``, at most 2^-bits above its upper end."""
    return fmpq(fmpz((arb(x).upper() * 2 ** bits).ceil().unique_fmpz()), 2 ** bits)


def rmin(a: str, b: str) -> str:
    """min(a, b) as a term interval can evaluate (Rmin is not in its language): (a + b - |a - b|)/2.
    Each argument is parenthesised: ``b`` may be a sum such as ``x - e``."""
    return f"((({a}) + ({b}) - Rabs (({a}) - ({b}))) / 2)"


def rmax(a: str, b: str) -> str:
    """max(a, b) = (a + b + |a - b|)/2 (exact identity)."""
    return f"((({a}) + ({b}) + Rabs (({a}) - ({b}))) / 2)"


def _round(value, digits: int, upward: bool) -> fmpq:
    q = rational(value)
    if q == 0:
        return q
    magnitude = abs(q)
    # the exact exponent: 10^exponent <= |q| < 10^(exponent + 1), from a digit-count estimate fixed up exactly
    exponent = len(str(int(magnitude.p))) - len(str(int(magnitude.q)))
    while fmpq(10) ** exponent > magnitude:
        exponent -= 1
    while fmpq(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    scale = fmpq(10) ** (digits - 1 - exponent)  # one unit of the last of ``digits`` significant digits
    scaled = q * scale
    rounded = fmpz(scaled.ceil() if upward else scaled.floor())
    return fmpq(rounded) / scale


def round_down(value, digits: int) -> fmpq:
    """The largest decimal <= ``value`` with at most ``digits`` significant digits (exact; ``value`` itself
    if it is that short); within a relative 10^(1 - digits) of it."""
    return _round(value, digits, upward=False)


def round_up(value, digits: int) -> fmpq:
    """The smallest decimal >= ``value`` with at most ``digits`` significant digits (see :func:`round_down`)."""
    return _round(value, digits, upward=True)


def weakened_end(value, ball: arb, upward: bool) -> tuple[int, fmpq] | None:
    """(k, end) of a weakened lemma whose quantity Coq encloses through an enclosure the exporter chose
    (smooth's J, sensitivity's I), not through the certificate's numbers.

    ``ball`` encloses the quantity over that enclosure, as interval will meet it; its width U
    (doubled, for interval's own overestimate) is how far Coq's bound may sit from the truth. The
    digit count k depends only on U and the magnitude of ``value`` (U <= |value| 10^-(k+1)), never on
    whether ``value`` is right, and the end is ``value`` moved outward by U and rounded outward to k
    digits: true for an honest certificate, refused by coqc when ``value`` is past the truth by more
    than about 10^-(k-1) relatively. None when U leaves fewer than 3 digits. Call it inside a working
    precision of at least 256 bits (the exporters' ``ctx.workprec(256)``).
    """
    import math

    value = rational(value)
    U = 2 * (ball.upper() - ball.lower()) + 2 * ball.rad()
    if not (U > 0 and value != 0):
        return None
    k = min(45, int(math.floor(float((abs(arb(value.p) / arb(value.q)) / U).log().mid()) / math.log(10))) - 1)
    if k < 3:
        return None
    slack = fmpq(int((U * 10**60).upper().ceil().unique_fmpz()) + 1, 10**60)
    return k, (round_up(value + slack, k) if upward else round_down(value - slack, k))


def ident(*parts: str) -> str:
    """A Coq identifier from a claim id and components: ``ident("limit_direction", "u_at_0", "lo")``."""
    name = "_".join(re.sub(r"[^A-Za-z0-9_]", "_", str(part)) for part in parts if part)
    if not _IDENT.fullmatch(name):
        name = "c_" + name
    return name


def check_term(term: str) -> str:
    """``term`` unchanged if it holds no comment delimiter and no escape hatch word (ValueError otherwise)."""
    if "(*" in term or "*)" in term:
        raise ValueError(f"a Coq term may not contain a comment delimiter: {term[:80]}")
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", term))
    bad = words.intersection(ESCAPE_HATCHES)
    if bad:
        raise ValueError(f"a Coq term may not contain {sorted(bad)[0]}")
    return term


def comment(text: str) -> str:
    """A Coq comment holding ``text``: comment delimiters are defused, and so are double quotes, because
    Coq lexes strings inside comments (a quote in one comment and one in a later comment would hide the
    code between them)."""
    text = text.replace("(*", "( *").replace("*)", "* )").replace('"', "''")
    return f"(* {text} *)"
