"""The one place where balls meet exact numbers and where balls are compared.

* :func:`ball` builds an Arb ball from an exact value (int, fmpz, fmpq,
  :class:`~certify.kernel.exact.ExactNumber`). Floats are refused: ``arb(0.1)``
  is the binary float nearest 1/10, not 1/10.
* :func:`lower_decimal` / :func:`upper_decimal` write a ball's endpoints as
  short exact decimals, rounded outward, so a certificate's interval always
  contains the ball it came from.
* ``certainly_*`` predicates are True only when the relation holds for every
  point of the balls involved. False means "not proved", never "disproved".
  Outside this module no code compares balls with ``<``; ``bool(arb)`` is
  always True and ``x == x`` is False for an inexact ball (docs/mathematics.md, section 'Arb balls').
"""

from __future__ import annotations

import math
from contextlib import contextmanager

from flint import arb, ctx, fmpq, fmpz

from .exact import ExactNumber, compare, decimal_digits

__all__ = [
    "ball", "working_precision", "lower_endpoint", "upper_endpoint",
    "lower_decimal", "upper_decimal", "certainly_positive", "certainly_negative",
    "certainly_lt", "certainly_le", "exact_le", "exact_ge", "exact_le_ball", "ball_le_exact",
    "exact_lt_ball", "ball_lt_exact", "scaled_floor", "scaled_ceil",
]

_LOG10_2 = math.log10(2)

#: Significant digits written at most (rounding outward keeps every enclosure valid; certify/1 numbers
#: are at most 200 characters, and 80 digits are more than any reader or checker needs).
MAX_DIGITS = 80


@contextmanager
def working_precision(bits: int):
    """Context manager for the process-wide Arb precision (restored on exit).

    Not for threads: python-flint's precision is one setting per process, so two threads computing with
    balls at once set each other's precision; the balls stay rigorous but lose accuracy, and a bound
    stated on a grid (certify.kernel.memo) would then depend on timing. The kernel runs in one thread per
    process (sweeps and Dask use processes). RuntimeError, never a silent loss, if the precision found on
    exit is not the one set here: the trace such a race leaves.

    >>> from flint import ctx
    >>> before = ctx.prec
    >>> with working_precision(200):
    ...     ctx.prec
    200
    >>> ctx.prec == before
    True
    """
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        changed = ctx.prec != bits
        ctx.prec = saved
    if changed:
        raise RuntimeError("the Arb precision changed inside working_precision: another thread is computing "
                           "with python-flint in this process (run the kernel in one thread per process)")


def ball(value) -> arb:
    """An Arb ball containing the exact ``value`` at the current precision.

    ``value`` is an int, fmpz, fmpq, an exact arb or an ExactNumber. The ball is
    exact (radius 0) for integers and dyadic rationals that fit the precision.
    Floats and strings raise TypeError: build from exact numbers only.

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     ball(fmpq(1, 8)).rad(), ball(fmpq(1, 3)), certainly_positive(ball(parse_exact("1e-4000000")))
    (0, [0.333333333333333333 +/- 3.43e-19], True)
    >>> ball(0.1)
    Traceback (most recent call last):
    ...
    TypeError: balls are built from exact numbers, never from floats
    """
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError("balls are built from exact numbers, never from floats")
    if isinstance(value, (int, fmpz, fmpq)):
        return arb(value)
    if isinstance(value, arb):
        return value
    if isinstance(value, ExactNumber):
        # 10^e loses about log2|e| bits to its exponent: carry them, so that 1e(10^36) keeps
        # the relative accuracy of the current precision
        with ctx.workprec(ctx.prec + abs(value.exp10).bit_length() + 8):
            x = arb(value.numerator)
            if value.denominator != 1:
                x = x / value.denominator
            if value.exp10:
                x = x * arb(10) ** fmpz(value.exp10)
            return x
    raise TypeError(f"cannot build a ball from {type(value).__name__}")


def lower_endpoint(x: arb) -> fmpq:
    """The exact lower endpoint mid - rad of the ball ``x`` (every point of x is >= it).

    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    >>> lower_endpoint(x) < fmpq(1, 3) < upper_endpoint(x)
    True
    """
    _require_finite(x)
    return x.mid().fmpq() - x.rad().fmpq()


def upper_endpoint(x: arb) -> fmpq:
    """The exact upper endpoint mid + rad of the ball ``x`` (every point of x is <= it).

    >>> upper_endpoint(ball(fmpq(1, 8)))  # an exact ball: both endpoints are its value
    1/8
    """
    _require_finite(x)
    return x.mid().fmpq() + x.rad().fmpq()


def _require_finite(x: arb) -> None:
    if not x.is_finite():
        raise ValueError("ball is not finite")


def _decimal_digits(x: arb) -> int:
    """Significant decimal digits worth writing for ``x``: its accuracy plus a guard digit or two.

    Depends only on the ball, not on the ambient precision, so a claim is
    written the same way wherever it is written.
    """
    if x.rad().is_zero():
        mantissa, _ = x.mid().man_exp()
        return min(MAX_DIGITS, max(8, int(int(mantissa).bit_length() * _LOG10_2) + 3))
    return min(MAX_DIGITS, max(8, int(x.rel_accuracy_bits() * _LOG10_2) + 3))


def _decimal_bounds(x: arb) -> tuple[int, int, int, bool]:
    _require_finite(x)
    if x.is_zero():
        return 0, 0, 0, True
    mid, rad, exp10 = x.mid_rad_10exp(_decimal_digits(x))
    return int(mid), int(rad), int(exp10), x.rad().is_zero() and rad == 0


def lower_decimal(x: arb) -> ExactNumber:
    """An exact decimal <= every point of ``x``, strictly below unless ``x`` is an exact decimal.

    The strict gap (one unit in the last written digit) lets a checker decide
    the comparison with balls of moderate precision, even for values like 1e-4000000.

    >>> from certify.kernel.exact import canonical_text
    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    >>> canonical_text(lower_decimal(x)), canonical_text(lower_decimal(ball(fmpq(1, 8))))
    ('0.33333333333333333328815821', '0.125')
    """
    mid, rad, exp10, exact = _decimal_bounds(x)
    return ExactNumber(mid - rad - (0 if exact else 1), 1, exp10)


def upper_decimal(x: arb) -> ExactNumber:
    """An exact decimal >= every point of ``x``, strictly above unless ``x`` is an exact decimal.

    >>> from certify.kernel.exact import canonical_text
    >>> with working_precision(64):
    ...     canonical_text(upper_decimal(ball(fmpq(1, 3))))
    '0.33333333333333333334236837'
    """
    mid, rad, exp10, exact = _decimal_bounds(x)
    return ExactNumber(mid + rad + (0 if exact else 1), 1, exp10)


def exact_le(number: ExactNumber, bound) -> bool:
    """True only if ``number`` <= every point of ``bound`` (an exact fmpq, decided exactly, or a ball).

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    >>> exact_le(parse_exact("0.333"), x), exact_le(parse_exact("0.334"), x), exact_le(parse_exact("0.125"), fmpq(1, 8))
    (True, False, True)
    """
    if isinstance(bound, fmpq):
        return compare(number, bound) <= 0
    return exact_le_ball(number, bound)


def exact_ge(number: ExactNumber, bound) -> bool:
    """True only if ``number`` >= every point of ``bound`` (an exact fmpq, decided exactly, or a ball).

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     exact_ge(parse_exact("0.334"), ball(fmpq(1, 3))), exact_ge(parse_exact("0.3333"), ball(fmpq(1, 3)))
    (True, False)
    """
    if isinstance(bound, fmpq):
        return compare(number, bound) >= 0
    return ball_le_exact(bound, number)


def certainly_positive(x: arb) -> bool:
    """True only if every point of ``x`` is > 0.

    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    ...     certainly_positive(x), certainly_positive(x - fmpq(1, 3))  # the second ball straddles 0
    (True, False)
    """
    return x > 0


def certainly_negative(x: arb) -> bool:
    """True only if every point of ``x`` is < 0.

    >>> certainly_negative(ball(-1)), certainly_negative(ball(0))
    (True, False)
    """
    return x < 0


def certainly_lt(x: arb, y: arb) -> bool:
    """True only if every point of ``x`` is < every point of ``y``.

    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    ...     certainly_lt(x, ball(fmpq(1, 2))), certainly_lt(x, x)
    (True, False)
    """
    return ball(x) < ball(y)


def certainly_le(x: arb, y: arb) -> bool:
    """True only if every point of ``x`` is <= every point of ``y``.

    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    ...     certainly_le(x, x), certainly_le(ball(1), ball(1))  # an inexact ball is not provably <= itself
    (False, True)
    """
    return ball(x) <= ball(y)


def _comparison_precision(number: ExactNumber) -> int:
    """Bits that separate ``number`` from anything one unit away in its last digit."""
    digits = decimal_digits(number.numerator) + decimal_digits(number.denominator)
    return max(ctx.prec, int(digits / _LOG10_2) + 64)


#: Binary exponents of ball endpoints up to which an undecided comparison is settled by exact rationals.
#: A work bound only: beyond it the comparison stays undecided, which the caller treats as "not proved".
MAX_ENDPOINT_EXPONENT_BITS = 1 << 20


def _endpoint_is_affordable(x: arb) -> bool:
    return all(abs(int(part.man_exp()[1])) <= MAX_ENDPOINT_EXPONENT_BITS for part in (x.mid(), x.rad())
               if not part.is_zero())


def exact_le_ball(number: ExactNumber, x: arb) -> bool:
    """True only if the exact ``number`` is <= every point of ``x``.

    Decided with a ball of ``number`` at a precision fine enough to see its last
    digit; when balls cannot separate the two (equal or very close), decided
    exactly by :func:`~certify.kernel.exact.compare` against the exact endpoint
    mid - rad when that endpoint's size is affordable, else False (undecided,
    i.e. not proved). Never True unless the relation holds.

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     exact_le_ball(parse_exact("0.333"), ball(fmpq(1, 3))), exact_le_ball(parse_exact("0.125"), ball(fmpq(1, 8)))
    (True, True)
    """
    _require_finite(x)
    with ctx.workprec(_comparison_precision(number)):
        if ball(number) <= x:
            return True
    return _endpoint_is_affordable(x) and compare(number, lower_endpoint(x)) <= 0


def ball_le_exact(x: arb, number: ExactNumber) -> bool:
    """True only if every point of ``x`` is <= the exact ``number`` (decided as in :func:`exact_le_ball`).

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     ball_le_exact(ball(fmpq(1, 3)), parse_exact("0.334")), ball_le_exact(ball(fmpq(1, 3)), parse_exact("0.333"))
    (True, False)
    """
    _require_finite(x)
    with ctx.workprec(_comparison_precision(number)):
        if x <= ball(number):
            return True
    return _endpoint_is_affordable(x) and compare(upper_endpoint(x), number) <= 0


def exact_lt_ball(number: ExactNumber, x: arb) -> bool:
    """True only if the exact ``number`` is < every point of ``x`` (balls, then exact endpoints; else False).

    >>> from certify.kernel.exact import parse_exact
    >>> exact_lt_ball(parse_exact("0.125"), ball(fmpq(1, 8))), exact_lt_ball(parse_exact("0.124"), ball(fmpq(1, 8)))
    (False, True)
    """
    _require_finite(x)
    with ctx.workprec(_comparison_precision(number)):
        if ball(number) < x:
            return True
    return _endpoint_is_affordable(x) and compare(number, lower_endpoint(x)) < 0


def ball_lt_exact(x: arb, number: ExactNumber) -> bool:
    """True only if every point of ``x`` is < the exact ``number`` (balls, then exact endpoints; else False).

    >>> from certify.kernel.exact import parse_exact
    >>> with working_precision(64):
    ...     ball_lt_exact(ball(fmpq(1, 3)), parse_exact("0.3334")), ball_lt_exact(ball(fmpq(1, 8)), parse_exact("0.125"))
    (True, False)
    """
    _require_finite(x)
    with ctx.workprec(_comparison_precision(number)):
        if x < ball(number):
            return True
    return _endpoint_is_affordable(x) and compare(upper_endpoint(x), number) < 0


def rounded_down(x: arb, bits: int) -> arb:
    """The largest dyadic with ``bits`` significant bits that is <= every point of the ball ``x`` (exact
    integer arithmetic on the lower end's mantissa and exponent), as an exact ball.

    Used to state a proved lower bound on a grid far coarser than its last bits, which depend on the
    state of Arb (its cached constants; certify.kernel.state): then the stated point is the same in
    every process, except with probability about 2^-(the bits dropped)."""
    mantissa, exponent = (x.lower().mid()).man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    shift = mantissa.bit_length() - bits if mantissa else 0
    if shift > 0:
        mantissa, exponent = mantissa >> shift, exponent + shift  # >> floors, also for negative mantissas
    return ball(fmpq(mantissa) * fmpq(2) ** exponent if exponent >= 0 else fmpq(mantissa, 2 ** -exponent))


def scaled_floor(x: arb, bits: int) -> int | None:
    """The greatest integer <= 2^bits y for every point y of the ball ``x`` (exact integer arithmetic on its lower
    end), or None if x is not finite. With :func:`scaled_ceil`, it lets exact integer arithmetic (numpy's int64,
    FLINT's fmpz_poly) carry many proved bounds at once.

    >>> with working_precision(64):
    ...     x = ball(fmpq(1, 3))
    >>> scaled_floor(x, 10), scaled_ceil(x, 10), scaled_floor(-x, 10), scaled_ceil(arb("inf"), 3)
    (341, 342, -342, None)
    """
    if not x.is_finite():
        return None
    mantissa, exponent = x.lower().man_exp()
    shift = int(exponent) + bits
    return int(mantissa) << shift if shift >= 0 else int(mantissa) >> -shift  # >> floors


def scaled_ceil(x: arb, bits: int) -> int | None:
    """The least integer >= 2^bits y for every point y of the ball ``x`` (exact integer arithmetic on its upper
    end), or None if x is not finite. See :func:`scaled_floor`."""
    if not x.is_finite():
        return None
    mantissa, exponent = x.upper().man_exp()
    shift = int(exponent) + bits
    return int(mantissa) << shift if shift >= 0 else -((-int(mantissa)) >> -shift)
