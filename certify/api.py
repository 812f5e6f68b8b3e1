"""The Python API: certify a theorem instance, read its claims as exact numbers, check it, save and load it.

Everything here calls the library (the builders of :mod:`certify.theorems`, the checker of
:mod:`certify.check`, the renderers of :mod:`certify.render`); nothing here proves anything. The
numbers a :class:`Certificate` hands out are the certificate's own stored numbers, read exactly.

>>> import certify
>>> from fractions import Fraction
>>> c = certify.dead(p=5, epsilon="1/2")
>>> c.theorem, c.p, c.parameters["epsilon"]
('dead', 5, Fraction(1, 2))
>>> t = c.claims["hitting_time"]
>>> t.lo <= t.hi and t.scope == "base_point"
True
>>> bool(c.check())
True
>>> certify.load(c.to_json()) == c
True

**Numbers.** Every number a claim states (``exact``, ``lo``, ``hi``, ``log10_lo``, ``log10_hi``) is
given as a :class:`fractions.Fraction` equal to the stored text (``Fraction(text)``), or None when
the claim does not state it. A number whose decimal exponent is beyond
:data:`MAX_FRACTION_EXPONENT` (``1e-977168779520925842``, a Gaussian probability at p near
10^18) has no Fraction that fits in memory: reading it raises :class:`NumberTooLarge` (one line,
naming the alternatives), and ``.lo_text`` (the exact canonical text) or ``.number("lo")`` (a
:class:`certify.kernel.exact.ExactNumber`, exact and a few bytes long, comparable with
:func:`certify.kernel.exact.compare`) give it exactly. The ``log10_*`` fields of such a claim are
small and always Fractions.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Mapping
from dataclasses import fields as _dataclass_fields
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from flint import fmpq, fmpz

from .cluster import CONNECT_TIMEOUT
from .errors import InputError, MalformedCertificate
from .kernel.exact import (MAX_EXPANDED_EXP10, ExactNumber, canonical_text, parse_lenient, parse_syntax,
                           require_bounded_input)

__all__ = ["Certificate", "Claim", "Quantity", "NumberTooLarge", "MAX_FRACTION_EXPONENT", "certify_theorem",
           "theorem_function", "dead", "slide", "smooth", "gd", "sensitivity", "staircase", "memorise", "twin",
           "twin_plus", "twin_above", "load", "derivation", "plot", "simulate", "sweep", "law", "Records"]

#: Numbers with a decimal exponent beyond this (in absolute value) are not turned into Fractions: the
#: Fraction would have more than this many digits. The kernel's own bound on expanding 10^e.
MAX_FRACTION_EXPONENT = MAX_EXPANDED_EXP10

#: The number fields a stored quantity may have, in the order they are shown.
NUMBER_KEYS = ("exact", "lo", "hi", "log10_lo", "log10_hi")

def _theorems():
    """The Theorem registry (:data:`certify.theorems.registry.THEOREMS`): name -> Theorem record."""
    from .theorems.registry import THEOREMS

    return THEOREMS


class NumberTooLarge(ValueError):
    """A stored number whose exponent is too large for a Fraction (use ``<key>_text`` or ``number(key)``)."""


# --- numbers ---------------------------------------------------------------------------------------------

def exact_input(value, what: str = "input") -> fmpq:
    """An exact parameter as the builders take it: int, Fraction, fmpz, fmpq, Decimal, a string, or a float
    whose value is the decimal it shows.

    Strings are read by :func:`certify.kernel.exact.parse_lenient`: every spelling ``fractions.Fraction``
    reads (``"0.50"``, ``"1/2"``, ``"5e-1"``, ``".5"``, ``" 1_000 "``), in ASCII; ``"nan"`` and ``"inf"`` are
    not numbers. A **float** is accepted exactly when it *is* the decimal it shows: ``0.5``, ``0.25``,
    ``3.0`` and ``1e22`` are exactly 1/2, 1/4, 3 and 10^22 (``Fraction(x) == Fraction(repr(x))``), so nothing
    is lost; ``0.1`` is refused, because the float 0.1 is the binary fraction 3602879701896397/2^55, not 1/10,
    and the message says so and asks for ``"1/10"`` or ``Fraction(1, 10)``. NaN and infinities are refused;
    so are bools. Every value must be of bounded size (at most 100 digits in numerator and denominator, at
    most 200 characters as a certificate writes it). InputError (one line) otherwise, never another error.

    >>> exact_input("0.50"), exact_input(".5"), exact_input(Fraction(3, 4)), exact_input(2), exact_input(0.5)
    (1/2, 1/2, 3/4, 2, 1/2)
    >>> exact_input(0.1, "epsilon")
    Traceback (most recent call last):
    ...
    certify.errors.InputError: epsilon: the float 0.1 is not 1/10 but 3602879701896397/2^55 = 0.10000000000000000555...
    >>> exact_input(float("nan"), "epsilon")
    Traceback (most recent call last):
    ...
    certify.errors.InputError: epsilon: nan is not a number; pass an int, a Fraction or a string such as '1/2'
    """
    if isinstance(value, bool):
        raise InputError(f"{what}: expected a number, got {value!r}")
    try:
        if isinstance(value, float):
            number = ExactNumber.from_rational(_float_value(value, what))
        elif isinstance(value, Decimal):
            if not value.is_finite():
                raise InputError(f"{what}: Decimal({str(value)!r}) is not a number; pass a finite one")
            number = ExactNumber.from_rational(Fraction(value))
        elif isinstance(value, str):
            number = parse_lenient(value)
        elif isinstance(value, (int, fmpz, fmpq, Fraction)):
            number = ExactNumber.from_rational(value)
        elif isinstance(value, numbers.Rational):  # numpy's integers, other exact rationals
            number = ExactNumber.from_rational(Fraction(int(value.numerator), int(value.denominator)))
        else:
            raise InputError(f"{what}: expected an int, a Fraction, an fmpq, a Decimal or a string, got "
                             f"{type(value).__name__}")
        return require_bounded_input(number, what)
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise InputError(f"{what}: {exc}") from None


def _float_value(value: float, what: str) -> Fraction:
    """The exact value of a float that is the decimal it shows (``repr``); InputError naming its value otherwise."""
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{what}: {value!r} is not a number; pass an int, a Fraction or a string such as '1/2'")
    exact, shown = Fraction(value), Fraction(repr(value))
    if exact == shown:
        return exact
    # what the float looks like (1/10; or a decimal such as 1e23 when the fraction is long) and how to say that
    shown_text = str(shown) if len(str(shown)) <= 40 and shown.denominator > 1 else \
        canonical_text(fmpq(shown.numerator, shown.denominator))
    suggestion = f"Fraction({shown.numerator}, {shown.denominator})" if "/" in shown_text else \
        f"Fraction({shown_text!r})"
    # what it is: an odd integer times a power of two, exactly (a reduced float's denominator is 2^k)
    odd, twos = abs(exact.numerator), -(exact.denominator.bit_length() - 1)
    while twos >= 0 and odd % 2 == 0:
        odd, twos = odd // 2, twos + 1
    if twos < 0:
        binary = f"{odd}/2^{-twos}"
    else:
        binary = f"{odd}*2^{twos}" if odd != 1 and twos else f"2^{twos}" if twos else str(odd)
    binary = ("-" if exact < 0 else "") + binary
    decimal = canonical_text(fmpq(exact.numerator, exact.denominator))
    exactly = f"{binary} = {decimal}" if len(decimal) <= 80 else binary
    raise InputError(f"{what}: the float {value!r} is not {shown_text} but {exactly} exactly; pass "
                     f"{shown_text!r} or {suggestion} (or Fraction({value!r}) for the float's own value)")


def _prime(p) -> int:
    if isinstance(p, str) and p.strip().isdigit():
        return int(p.strip(), 10)
    if isinstance(p, fmpz):
        return int(p)
    return p  # require_prime (in the builder) names anything else


def _fraction(text: str, where: str) -> Fraction:
    number = parse_syntax(text)
    if abs(number.exp10) > MAX_FRACTION_EXPONENT:
        raise NumberTooLarge(f"{where} = {text[:60]} has a decimal exponent of {len(str(abs(number.exp10)))} "
                             f"digits, too large for a Fraction; use {where.rsplit('.', 1)[-1]}_text (its exact "
                             f"text) or number({where.rsplit('.', 1)[-1]!r}) (an exact ExactNumber)")
    value = number.fmpq()
    return Fraction(int(value.p), int(value.q))


# --- views of a stored certificate -----------------------------------------------------------------------

class Quantity:
    """A read-only view of one stored quantity: ``exact``, ``lo``, ``hi``, ``log10_lo``, ``log10_hi``.

    Each is a :class:`fractions.Fraction` equal to the stored text, or None if this quantity does not
    state it; ``<key>_text`` is the stored text itself (None if absent); ``number(key)`` the exact
    :class:`~certify.kernel.exact.ExactNumber`. A Fraction is refused (:class:`NumberTooLarge`) only
    for an exponent beyond :data:`MAX_FRACTION_EXPONENT`. ``lo <= value <= hi`` is what the claim
    states; ``log10_lo``/``log10_hi`` bound log10 of the value and state the same number as the
    end beside them to their written digits.
    """

    __slots__ = ("_stored", "_where")

    def __init__(self, stored: dict, where: str):
        self._stored = stored
        self._where = where

    def keys(self) -> tuple[str, ...]:
        """The number fields this quantity states, in the order exact, lo, hi, log10_lo, log10_hi."""
        return tuple(key for key in NUMBER_KEYS if key in self._stored)

    def text(self, key: str) -> str | None:
        """The stored text of the field ``key`` (one of NUMBER_KEYS), or None if it is not stated."""
        if key not in NUMBER_KEYS:
            raise KeyError(f"{key!r} is not a number field; expected one of {', '.join(NUMBER_KEYS)}")
        return self._stored.get(key)

    def number(self, key: str) -> ExactNumber | None:
        """The exact value of the field ``key`` as an ExactNumber (any exponent), or None if not stated."""
        text = self.text(key)
        return None if text is None else parse_syntax(text)

    def fraction(self, key: str) -> Fraction | None:
        """The exact value of the field ``key`` as a Fraction, or None; NumberTooLarge for a huge exponent."""
        text = self.text(key)
        return None if text is None else _fraction(text, f"{self._where}.{key}")

    exact = property(lambda self: self.fraction("exact"), doc="The exact value (Fraction) or None.")
    lo = property(lambda self: self.fraction("lo"), doc="The certified lower bound (Fraction) or None.")
    hi = property(lambda self: self.fraction("hi"), doc="The certified upper bound (Fraction) or None.")
    log10_lo = property(lambda self: self.fraction("log10_lo"), doc="A lower bound on log10 (Fraction) or None.")
    log10_hi = property(lambda self: self.fraction("log10_hi"), doc="An upper bound on log10 (Fraction) or None.")
    exact_text = property(lambda self: self.text("exact"), doc="The stored text of exact, or None.")
    lo_text = property(lambda self: self.text("lo"), doc="The stored text of lo, or None.")
    hi_text = property(lambda self: self.text("hi"), doc="The stored text of hi, or None.")
    log10_lo_text = property(lambda self: self.text("log10_lo"), doc="The stored text of log10_lo, or None.")
    log10_hi_text = property(lambda self: self.text("log10_hi"), doc="The stored text of log10_hi, or None.")

    def display(self) -> str:
        """The numbers as plain text, printing only what they imply: :func:`certify.render.numbers.display`,
        the rule every command summary and document uses (``= 45.9932965048...``, ``in [17.1, 140]``)."""
        return _quantity_text({key: self._stored[key] for key in self.keys()})

    def _ends(self) -> tuple[str, ...]:
        """The fields whose midpoint :attr:`mid` is: ("exact",), ("lo", "hi"), or () for a one-sided bound."""
        if "exact" in self._stored:
            return ("exact",)
        return ("lo", "hi") if "lo" in self._stored and "hi" in self._stored else ()

    @property
    def mid(self) -> Fraction | None:
        """The midpoint of the certified enclosure as an exact :class:`fractions.Fraction`: ``exact`` when
        the quantity states it, else ``(lo + hi) / 2``; None for a one-sided bound (only ``lo`` or only
        ``hi``) or a quantity with no number of its own (its numbers are in ``components``). The centre
        of [lo, hi], not a better value: the claim says only that the value lies somewhere in [lo, hi].
        NumberTooLarge for an end whose exponent is beyond MAX_FRACTION_EXPONENT (``float()`` still works).

        >>> t = dead(p=5).claims["hitting_time_box"]
        >>> t.lo < t.mid < t.hi and t.mid == (t.lo + t.hi) / 2
        True
        """
        ends = [self.fraction(key) for key in self._ends()]
        return (ends[0] + ends[-1]) / 2 if ends else None

    def __float__(self) -> float:
        """The float nearest to :attr:`mid` (round to nearest, ties to even), for plotting and tables: not a
        bound (it may lie on either side of the value, and rounding may even move it outside [lo, hi]);
        compare ``lo`` and ``hi`` for anything that must hold. Beyond the largest float it is +-inf and below
        the smallest +-0.0, as IEEE rounding gives, also when both ends are beyond MAX_FRACTION_EXPONENT
        (NumberTooLarge when such an end sits beside an ordinary one or a huge one of the other sign).
        InputError for a quantity without a midpoint (a one-sided bound; see :attr:`mid`).

        >>> float(dead(p=5).claims["terminal_fourier_fraction"])  # exact: 1/2
        0.5
        """
        keys = self._ends()
        if not keys:
            stated = ", ".join(self.keys()) or "no number of its own"
            raise InputError(f"{self._where} has no midpoint to convert to a float (it states {stated}); "
                             "read its ends (.lo, .hi) instead")
        ends = [self.number(key) for key in keys]
        if all(end.is_expandable() for end in ends):
            mid = self.mid
            try:
                return float(mid)  # Fraction -> float divides two ints: correctly rounded in CPython
            except OverflowError:
                return math.inf if mid > 0 else -math.inf
        # an end with a decimal exponent beyond MAX_FRACTION_EXPONENT (|end| far below 1e-300 or above 1e300)
        huge = {end.sign() for end in ends if not end.is_expandable() and end.exp10 > 0 and end.sign()}
        if len(huge) == 1:  # the midpoint is at least half that end in size: beyond every float, that sign
            return math.copysign(math.inf, huge.pop())
        moderate = [end for end in ends if end.is_expandable() and end.sign()]
        if not huge and not moderate:  # every end is 0 or tiny: so is the midpoint, whose sign is theirs
            return -0.0 if all(end.sign() <= 0 for end in ends) and any(end.sign() < 0 for end in ends) else 0.0
        # huge ends of both signs, or a tiny end beside an ordinary one (it could decide a tie of the rounding)
        raise NumberTooLarge(f"{self._where}: an end beyond MAX_FRACTION_EXPONENT beside an end of another size or "
                             "sign; its midpoint is not converted (compare lo and hi with certify.kernel.exact.compare)")

    def _math(self, subject: str) -> str:
        """Math-mode LaTeX of the numbers about ``subject`` (the one display rule), components included."""
        parts = [_quantity_math({key: self._stored[key] for key in self.keys()}, subject)] if self.keys() else []
        parts += [_quantity_math({key: part.text(key) for key in part.keys()}, _math_text(name))
                  for name, part in self.components.items()]
        return r",\ ".join(parts) or r"\text{--}"

    def _markdown(self) -> str:
        """Markdown code spans of the numbers (the one display rule), components included, joined by <br>."""
        numbers = [self.display()] if self.keys() else []
        numbers += [f"{name}: {part.display()}" for name, part in self.components.items()]
        return "<br>".join(f"`{text}`" for text in numbers if text) or "(no number)"

    @property
    def components(self) -> Mapping[str, "Quantity"]:
        """name -> Quantity, in sorted order (empty if the quantity has no components)."""
        parts = self._stored.get("components", {})
        return MappingProxyType({name: Quantity(parts[name], f"{self._where}/{name}") for name in sorted(parts)})

    def _repr_markdown_(self) -> str:
        """Markdown for notebooks: the name and what the numbers imply (:func:`certify.render.numbers.display`)."""
        return f"`{self._where}` {self._markdown()}"

    def _repr_latex_(self) -> str:
        """Inline math for notebooks: what the numbers imply about the quantity, by the one display rule."""
        return f"${self._math(_math_text(self._where, texttt=True))}$"

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}={self._stored[key]!r}" for key in self.keys())
        return f"{type(self).__name__}({self._where}: {inner})"


class Claim(Quantity):
    """One claim of a certificate: its numbers (see :class:`Quantity`), ``id``, ``statement``, ``scope``
    (``"box"``: for every point of the certified box; ``"base_point"``: at the base point) and
    ``components`` (a read-only mapping name -> :class:`Quantity`, empty for most claims)."""

    __slots__ = ("id",)

    def __init__(self, claim_id: str, stored: dict):
        super().__init__(stored, claim_id)
        self.id = claim_id

    @property
    def statement(self) -> str:
        """The claim's statement, as the kernel states it (the checker demands it verbatim)."""
        return self._stored["statement"]

    @property
    def scope(self) -> str:
        """``"box"`` or ``"base_point"``."""
        return self._stored["scope"]

    def _repr_markdown_(self) -> str:
        """Markdown for notebooks: the id, the scope, what the numbers imply (the one display rule:
        :func:`certify.render.numbers.display`) and the statement.

        >>> dead(p=5).claims["hitting_time_box"]._repr_markdown_().split(" -- ")[0]
        '**`hitting_time_box`** (box): `in [2.53, 32.3]`'
        """
        return f"**`{self.id}`** ({self.scope.replace('_', ' ')}): {self._markdown()} -- {_md(self.statement)}"

    def _repr_latex_(self) -> str:
        r"""Inline math for notebooks: what the numbers imply about the claim (its id as the subject), by the
        one display rule, then its scope.

        >>> print(dead(p=5).claims["hitting_time_box"]._repr_latex_())
        $\texttt{hitting}\_\texttt{time}\_\texttt{box} \in [2.53, 32.3]\quad\text{(box)}$
        """
        return rf"${self._math(_math_text(self.id, texttt=True))}\quad\text{{({self.scope.replace('_', ' ')})}}$"


def _claim_order(theorem: str, claims: dict) -> list[str]:
    """The claim ids in the order the certify/1 schema lists them for ``theorem``."""
    from .certificate import schema

    listed = schema()["$defs"][f"{theorem}_claims"]["required"]
    return [claim_id for claim_id in listed if claim_id in claims] + sorted(set(claims) - set(listed))


class Certificate:
    """A certify/1 certificate: a validated, read-only view of its JSON document.

    ``theorem`` (``"dead"``, ``"slide"``, ``"smooth"``, ``"gd"``), ``p``, ``parameters`` (name ->
    Fraction), ``radius`` (Fraction), ``precision_bits``, ``paper`` and ``claims`` (claim id ->
    :class:`Claim`, in the schema's order). The numbers are the stored ones: nothing is recomputed
    until :meth:`check`, which runs the independent checker on the exact bytes :meth:`to_json` writes.
    A Certificate is made by a theorem function (:func:`dead`, ...), by :func:`load`, or from a
    document (a dict), which is validated against the certify/1 schema first (MalformedCertificate).

    >>> c = load(dead(p=7).to_json())
    >>> c.p, sorted(c.claims)[:2]
    (7, ['balance_invariant', 'gamma_condition'])
    >>> c.claims["terminal_fourier_fraction"].exact  # 2/(p-1)
    Fraction(1, 3)
    """

    def __init__(self, document: dict, source: str | None = None):
        from .certificate import dumps, parse_certificate

        # a private copy, validated exactly as a file would be (the canonical text parsed back)
        try:
            text = dumps(document)
        except (TypeError, ValueError) as exc:
            raise MalformedCertificate(f"not a certify/1 document: {str(exc).splitlines()[0][:200]}") from None
        self._document = parse_certificate(text)
        self._text = text
        self.source = source or f"{self._document['theorem']}-{self._document['p']}"

    # -- the stored fields
    @property
    def document(self) -> dict:
        """A copy of the certify/1 document (a dict of strings and integers)."""
        import copy

        return copy.deepcopy(self._document)

    theorem = property(lambda self: self._document["theorem"], doc="The theorem's name.")
    p = property(lambda self: self._document["p"], doc="The prime p.")
    paper = property(lambda self: self._document["paper"], doc="The paper's statements instantiated.")
    precision_bits = property(lambda self: self._document["precision_bits"], doc="Arb precision used.")

    @property
    def parameters(self) -> dict[str, Fraction]:
        """The theorem's parameters as Fractions (name -> value; a fresh dict)."""
        return {name: _fraction(text, f"parameters.{name}") for name, text in self._document["parameters"].items()}

    @property
    def radius(self) -> Fraction:
        """The sup-norm radius of the certified box around the base point."""
        return _fraction(self._document["radius"], "radius")

    @property
    def claims(self) -> Mapping[str, Claim]:
        """claim id -> Claim (read-only), in the order the certify/1 schema lists the theorem's claims."""
        stored = self._document["claims"]
        return MappingProxyType({cid: Claim(cid, stored[cid]) for cid in _claim_order(self.theorem, stored)})

    # -- checking and text
    def check(self):
        """The independent checker's :class:`certify.check.Verdict` on the bytes of :meth:`to_json`.

        Truthy exactly when verified; ``.status`` is verified, rejected, malformed or error and
        ``.message`` says why (the rejected claim and the reason). Never raises for a bad certificate.
        """
        from .check import check_bytes

        return check_bytes(self._text.encode("ascii"), self.source)

    def to_json(self) -> str:
        """The canonical text certify writes (:func:`certify.certificate.dumps`): sorted keys, two-space
        indent, ASCII, one trailing newline. ``load(c.to_json()) == c``."""
        return self._text

    def save(self, path) -> str:
        """Write :meth:`to_json` to ``path`` (ASCII, ``\\n`` line ends); returns the path as a string."""
        with open(path, "w", encoding="ascii", newline="\n") as handle:
            handle.write(self._text)
        return os.fspath(path)

    def __eq__(self, other) -> bool:
        return isinstance(other, Certificate) and other._text == self._text

    __hash__ = None

    def summary(self) -> str:
        """The summary ``certify THEOREM`` prints (the same function, :func:`certify.render.summary.summary`):
        the parameters, then what the claims imply, each number by the one display rule
        (:func:`certify.render.numbers.display`). The stored numbers, not checked: see :meth:`check`.
        ``print(certificate)`` prints it.

        >>> print(dead(p=5).summary().splitlines()[0])
        certify dead: p = 5, epsilon = 1, A = 2, B = 1, radius = 0.247 (128 bits)
        """
        from .render.summary import summary

        return "\n".join(summary(self._document))

    def __str__(self) -> str:
        """:meth:`summary`: what ``certify THEOREM`` prints."""
        return self.summary()

    def __repr__(self) -> str:
        return (f"<Certificate {self.theorem} p={self.p}: {len(self._document['claims'])} claims, "
                f"radius {self._document['radius']} ({self.source})>")

    # -- rich display
    def _repr_markdown_(self) -> str:
        """A Markdown table: claim id, scope, what the claim's numbers imply (plain text), statement."""
        from .render.summary import parameter, parameters_text

        rows = [f"**certify/1 certificate: {self.theorem}, p = {self.p}** ({_md(parameters_text(self._document))}; "
                f"radius {_md(parameter(self._document['radius']))}; {self.precision_bits} bits; "
                "not checked until `.check()`)", "",
                "| claim | scope | certified | statement |", "| --- | --- | --- | --- |"]
        for claim_id, claim in self.claims.items():
            rows.append(f"| `{claim_id}` | {claim.scope} | {claim._markdown()} | {_md(claim.statement)} |")
        return "\n".join(rows) + "\n"

    def _repr_latex_(self) -> str:
        """Display math: one row per claim (id, scope, its numbers in LaTeX as the documents print them)."""
        rows = []
        for claim_id, claim in self.claims.items():
            cell = claim._math("x")
            rows.append(rf"{_math_text(claim_id, texttt=True)} & \text{{{claim.scope.replace('_', ' ')}}}"
                        rf" & {cell}")
        head = rf"\text{{{self.theorem}, }} p = {self.p}"
        return "$$" + head + r"\qquad\begin{array}{lll}" + r" \\ ".join(rows) + r"\end{array}$$"


# --- text and LaTeX of numbers ---------------------------------------------------------------------------

def _quantity_math(stored: dict, subject: str = "x") -> str:
    """Math-mode LaTeX of one quantity: :func:`certify.render.numbers.display` in LaTeX, about ``subject``."""
    from .render.numbers import display

    return display(stored, "latex", subject)


def _quantity_text(stored: dict) -> str:
    """Plain text of one quantity: :func:`certify.render.numbers.display` (``= 1/6``, ``= 45.9932965048...``,
    ``in [17.1, 140]``, ``>= 0.006``, ``>= 1.79932e-34, >= 10^-33.75``)."""
    from .render.numbers import display

    return display(stored, "text")


_MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>$~^&")


def _md(text: str) -> str:
    """Markdown that shows ``text`` literally (every ASCII punctuation that Markdown reads is escaped)."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in str(text).replace("\n", " "))


_MATH_SPECIAL = {"\\": r"\backslash ", "{": r"\{", "}": r"\}", "_": r"\_", "^": r"\hat{}", "$": r"\$",
                 "%": r"\%", "&": r"\&", "#": r"\#", "~": r"\sim ", "<": "<", ">": ">", "|": "|"}


def _math_text(text: str, texttt: bool = False) -> str:
    """Text to set in math mode that MathJax and LaTeX both show literally: safe runs in ``\\text{}``,
    special characters as math symbols (``_`` as ``\\_``, ``<`` as ``<``), anything non-ASCII as ``?``."""
    out, run = [], []
    wrap = (lambda s: rf"\texttt{{{s}}}") if texttt else (lambda s: rf"\text{{{s}}}")

    def flush():
        if run:
            out.append(wrap("".join(run)))
            run.clear()

    for ch in str(text):
        if ch in _MATH_SPECIAL:
            flush()
            out.append(_MATH_SPECIAL[ch])
        elif " " <= ch <= "~":
            run.append(ch)
        else:
            run.append("?")
    flush()
    return "".join(out)


# --- certifying ------------------------------------------------------------------------------------------

def certify_theorem(theorem: str, p, *, radius=None, prec: int = 128, **parameters) -> Certificate:
    """Certify ``theorem`` (a name in ``certify.THEOREMS``) at the prime ``p``; defaults for the rest.

    Parameters are the record's (``certify.THEOREMS[theorem].parameters``): ints, Fractions, fmpq or
    strings of any spelling (see :func:`exact_input`); None means the default. The record's builder
    chooses the radius unless one is given, and the kernel proves every claim (or raises):
    InputError for bad input, HypothesisError for parameters that break a hypothesis (it names
    the inequality), NotCertified when the balls cannot prove a claim. The certificate returned
    has not been re-checked; call :meth:`Certificate.check` for the independent checker's verdict.

    >>> certify_theorem("gd", 5, eta=1).parameters["eta"]
    Fraction(1, 1)
    """
    theorems = _theorems()
    if not isinstance(theorem, str) or theorem not in theorems:
        raise InputError(f"unknown theorem {theorem!r}; choose from {', '.join(theorems)}")
    record = theorems[theorem]
    unknown = sorted(set(parameters) - set(record.parameter_names))
    if unknown:
        raise InputError(f"{theorem} has no parameter {', '.join(unknown)}; its parameters are "
                         f"{', '.join(record.parameter_names)}")
    missing = [parameter.name for parameter in record.required_parameters if parameters.get(parameter.name) is None]
    if missing:
        raise InputError(f"{theorem} needs {', '.join(missing)}")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 64 <= prec <= 512:
        raise InputError(f"prec must be an integer number of bits between 64 and 512, got {prec!r}")
    values = {name: exact_input(value, name) for name, value in parameters.items() if value is not None}
    if radius is not None:
        values["radius"] = exact_input(radius, "radius")
    return Certificate(record.build(_prime(p), prec=prec, **values).certificate)


def theorem_function(name: str):
    """``certify.NAME(p, **parameters)`` for a theorem of the registry without a function of its own here
    (the four below are written out for their signatures and examples; a theorem added to the registry
    gets one made by this function, so adding a theorem needs no edit of this module)."""
    import functools

    record = _theorems()[name]

    @functools.wraps(certify_theorem)
    def certify_named(p, **parameters):
        return certify_theorem(name, p, **parameters)

    certify_named.__name__ = certify_named.__qualname__ = name
    certify_named.__doc__ = (f"Certify {record.paper} at the prime p: {record.help}.\n\nParameters: "
                             f"{', '.join(record.parameter_names)} (see certify.THEOREMS[{name!r}]), radius, prec; "
                             f"see certify.api.certify_theorem.")
    del certify_named.__wrapped__
    return certify_named


def dead(p, *, epsilon=None, A=None, B=None, sigma=None, purity_margin=None, radius=None,
         prec: int = 128) -> Certificate:
    """Certify Theorem 1.5 / A.2 (the neuron dies in finite time, not single-frequency) at the prime p.

    Defaults epsilon = 1, A = 2, B = 1 (every hypothesis holds for every p >= 5) and sigma = 1 (the
    scale of the initialisation N(0, sigma^2 I_{3p}) of the probability claims; every theorem takes it) and
    purity_margin = 1/100 (the delta of the claim region_purity_probability); see
    :func:`certify_theorem` for the parameters' types, the radius and the errors.

    >>> c = dead(p=13, epsilon="1/2")
    >>> c.claims["hitting_time"].scope, c.parameters["epsilon"]
    ('base_point', Fraction(1, 2))
    """
    return certify_theorem("dead", p, epsilon=epsilon, A=A, B=B, sigma=sigma, purity_margin=purity_margin,
                           radius=radius, prec=prec)


def slide(p, *, gamma_star=None, X=None, sigma=None, radius=None, prec: int = 128) -> Certificate:
    """Certify Theorem A.1 (the persistent sliding trajectory) at the prime p.

    Defaults gamma_star = 1, X = (p-1)/(2 gamma_star), sigma = 1. The capture time is astronomically large;
    its ends are Fractions of several hundred digits and ``log10_lo``/``log10_hi`` bound its log10.

    >>> t = slide(p=5).claims["capture_time"]
    >>> 10 ** int(t.log10_lo) <= t.lo
    True
    """
    return certify_theorem("slide", p, gamma_star=gamma_star, X=X, sigma=sigma, radius=radius, prec=prec)


def smooth(p, *, eps_smooth=None, epsilon=None, A=None, B=None, sigma=None, radius=None,
           prec: int = 128) -> Certificate:
    """Certify Theorem A.3 (smooth dead-zone activation sigma_eps) at the prime p.

    Defaults eps_smooth = 2, epsilon = 1, A = 2, B = 1, sigma = 1.

    >>> smooth(p=5).claims["terminal_fourier_fraction"].exact
    Fraction(1, 2)
    """
    return certify_theorem("smooth", p, eps_smooth=eps_smooth, epsilon=epsilon, A=A, B=B, sigma=sigma,
                           radius=radius, prec=prec)


def gd(p, *, eta, epsilon=None, A=None, B=None, sigma=None, radius=None, prec: int = 128) -> Certificate:
    """Certify Theorem A.4 (one gradient-descent step with step size eta kills the neuron) at the prime p.

    ``eta`` is required; epsilon defaults to min(1, half the (A.71) threshold 2 eta (p-1) A / p^3),
    A = 2, B = 1, sigma = 1.

    >>> gd(p=5, eta="1e-3").parameters["eta"]
    Fraction(1, 1000)
    """
    return certify_theorem("gd", p, eta=eta, epsilon=epsilon, A=A, B=B, sigma=sigma, radius=radius, prec=prec)


def sensitivity(p, *, epsilon=None, A=None, B=None, radius=None, prec: int = 128) -> Certificate:
    """Certify the death event's sensitivity at the prime p: grad T, ds/dt(T-), J_reg, Psi' = S J_reg and the
    rank-one gap |Psi' - J_reg|_F > 0, at the base point (2.1) (radius 0). Defaults epsilon = 1, A = 2, B = 1.

    >>> sensitivity(p=5).claims["gap_rank"].exact
    Fraction(1, 1)
    """
    return certify_theorem("sensitivity", p, epsilon=epsilon, A=A, B=B, radius=radius, prec=prec)


def staircase(p, *, k=None, X=None, s=None, D=None, E=None, sigma=None, radius=None, prec: int = 128) -> Certificate:
    """Certify Theorem S of docs/staircase.md at the prime p: the (1, 2) staircase (k = 2) persists for all time
    from every point of the box, with 1 - max F_zeta >= delta for all t. Defaults X = p, s = ln(p)/p (3 digits),
    D = 1/4, E = 5p/2, sigma = 1. With k = 1 the certificate is Theorem S1's (:func:`memorise`); k >= 3 has no
    proof.

    >>> staircase(p=5).claims["purity_margin_box"].lo > 0
    True
    >>> staircase(p=5, k=1).theorem
    'memorise'
    """
    return certify_theorem("staircase", p, k=k, X=X, s=s, D=D, E=E, sigma=sigma, radius=radius, prec=prec)


def memorise(p, *, X=None, s=None, E=None, sigma=None, radius=None, prec: int = 128) -> Certificate:
    """Certify Theorem S1 of docs/staircase.md (section 10) at the prime p: the one-gate staircase, by the loss.
    From every point of the box the gate (0, 0) stays the only active gate for all time, with
    1 - max F_zeta >= delta_1 for all t. Defaults X = 1, s = 1/4, E = 3 ln p (3 digits), sigma = 1.

    >>> memorise(p=13).claims["loss_margin_box"].lo > 0
    True
    """
    return certify_theorem("memorise", p, X=X, s=s, E=E, sigma=sigma, radius=radius, prec=prec)


def twin(p, *, X=None, s=None, t=None, d=None, E=None, s2_max=None, sigma=None, radius=None,
         prec: int = 128) -> Certificate:
    """Certify Proposition S2.2 of docs/staircase.md (section 11.9) at the prime p: regime II of the (1, 2)
    staircase, the twin. From every point of the box the gate (1, 1) reaches its kink with D <= 0 by the
    certified capture time and slides there for ever, the (1, 2) pattern is kept for all time, and
    1 - max F_zeta >= delta for all t. Defaults X = 2, t = X/20, d, s, E from the budget b_II(p, 1),
    s2_max = 8 X^2, sigma = 1.

    >>> twin(p=5).claims["capture_box"].components["cone"].lo > 0
    True
    """
    return certify_theorem("twin", p, X=X, s=s, t=t, d=d, E=E, s2_max=s2_max, sigma=sigma, radius=radius, prec=prec)


def twin_plus(p, *, X=None, e=None, t=None, d=None, E=None, h=None, sigma=None, radius=None,
              prec: int = 128) -> Certificate:
    """Certify Proposition S3.2 of docs/staircase.md (section 11.11) at the prime p: regime II of the (1, 2)
    staircase captured from the side D > 0. From every point of the box the gate (1, 1) reaches its kink with
    D >= 0 by the certified capture time and slides there for ever (Theorem S3), the (1, 2) pattern is kept for
    all time, and 1 - max F_zeta >= delta for all t. Defaults X = 2, t = 1/2, e = d = 0.06/p^2,
    E = 1.5 log p + 1, h = 0.15 h_max (3 digits), sigma = 1; they hold from p = 5 to 31.

    >>> twin_plus(p=5).claims["capture_box"].components["race"].lo > 0
    True
    """
    return certify_theorem("twin_plus", p, X=X, e=e, t=t, d=d, E=E, h=h, sigma=sigma, radius=radius, prec=prec)


def twin_above(p, *, X=None, e=None, t=None, d=None, E=None, h=None, sigma=None, g=None, radius=None,
               prec: int = 128) -> Certificate:
    """Certify Proposition S3.4 of docs/staircase.md (sections 11.12-11.13) at the prime p: regime II of the (1, 2)
    staircase captured from above. From every point of the box the gate (1, 1), active, comes down onto its kink
    with D > 0 by the certified capture time and slides there for ever (Theorem S3), the (1, 2) pattern is kept
    from then on, and 1 - max F_zeta >= delta for all t. The box: u, v, w(0), w(1) within the radius r, each
    w(j), j >= 2, within r + g (Remark S3.7). Defaults X = 5/2, e = 2.5 r_0, d = 2.2 r_0 with r_0 = 0.06 (p - 2)/p^2,
    E = 1.5 log p, g the best of k r_0 (k in 0, 1, 2, 4, 8, 16, then 3/4 and 3/2 of the best) by the region bound,
    h = 0.9 (2 g_0 - b0 (E + g))
    and t = 1.5 (e + sqrt(2 b0 e/h)) (3 digits), sigma = 1; they hold from p = 5 to 173.

    >>> twin_above(p=5).claims["capture_box"].components["race"].lo > 0
    True
    """
    return certify_theorem("twin_above", p, X=X, e=e, t=t, d=d, E=E, h=h, sigma=sigma, g=g, radius=radius,
                           prec=prec)


def load(source) -> Certificate:
    """A Certificate from a path (str or os.PathLike), from JSON text (a str starting with ``{``) or bytes.

    A path is read once with :func:`certify.check.read_certificate_file` (regular files only, at most
    1 MiB); text and bytes are parsed by :func:`certify.certificate.parse_certificate`. Anything that
    is not a valid certify/1 document raises MalformedCertificate with a one-line message (a file's
    message starts with its path). Loading does not check the claims: call :meth:`Certificate.check`.

    >>> load('{"format": "certify/1"}')
    Traceback (most recent call last):
    ...
    certify.errors.MalformedCertificate: schema: at (top level): ...
    """
    from .certificate import parse_certificate
    from .check import read_certificate_file

    if isinstance(source, (bytes, bytearray)):
        return Certificate(parse_certificate(bytes(source)))
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return Certificate(parse_certificate(source))
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            data = read_certificate_file(path)
            document = parse_certificate(data)
        except MalformedCertificate as exc:
            raise MalformedCertificate(f"{path}: {exc}") from None
        return Certificate(document, source=path)
    raise InputError(f"load() takes a path, JSON text or bytes, not {type(source).__name__}")


# --- derivations, simulations, plots ---------------------------------------------------------------------

def derivation(name: str, p=None):
    """The symbolic derivation ``name`` (see ``certify derive --list``), for symbolic p or at the prime p.

    Returns a :class:`certify.symbolic.core.Derivation` (with ``_repr_latex_`` for notebooks):
    ``.steps`` (lhs, relation, rhs, reason), ``.comparisons`` with the paper's printed forms, and
    ``.holds()``, True when sympy proves every comparison. InputError for an unknown name, for a p
    that is not a prime >= 5, or above the largest p a per-prime derivation builds in a few seconds.

    >>> d = derivation("conserved")
    >>> d.equations, d.holds()
    (('(2.6)',), True)
    """
    from .kernel.primes import require_prime
    from .symbolic import DERIVATIONS, require_practical_prime
    from .symbolic import derivation as build

    if name not in DERIVATIONS:
        raise InputError(f"unknown derivation {name!r}; choose from {', '.join(DERIVATIONS)}")
    if p is not None:
        p = _prime(p)
        require_practical_prime(name, p)
        require_prime(p)
    return _rich_derivation(build(name, p))


def _rich_derivation(built):
    """The same derivation as an instance of a subclass with notebook display (built once per class)."""
    global _RichDerivation
    if _RichDerivation is None:
        from .symbolic.core import Derivation

        class RichDerivation(Derivation):
            """A Derivation that notebooks show as display math (steps, reasons, comparisons)."""

            def _repr_latex_(self) -> str:
                return derivation_math(self)

        RichDerivation.__name__ = RichDerivation.__qualname__ = "Derivation"
        _RichDerivation = RichDerivation
    return _RichDerivation(**{field.name: getattr(built, field.name) for field in _dataclass_fields(built)})


_RichDerivation = None


def derivation_math(built) -> str:
    """Display math of a derivation for MathJax and LaTeX alike: the title, the steps aligned with their
    reasons, and each comparison with the paper's printed form and whether sympy proved it equal."""
    from .render.derivations import RELATIONS_LATEX, _latex

    scope = "symbolic p" if built.p is None else f"p = {built.p}"
    rows = [rf"\textbf{{{_math_text(built.title)}}} && \text{{({scope}; {', '.join(built.equations)})}}"]
    for number, step in enumerate(built.steps, 1):
        rows.append(rf"({number})\quad {_latex(step.lhs)} &{RELATIONS_LATEX[step.relation]} {_latex(step.rhs)}"
                    rf" && {_math_text('because ' + step.reason)}")
    for comparison in built.comparisons:
        mark = r"\checkmark\ \text{equals the paper's}" if comparison.holds() else r"\text{DOES NOT MATCH the paper's}"
        rows.append(rf"{_math_text(comparison.label)}:\quad {_latex(comparison.derived)} && {mark}\ "
                    rf"{_latex(comparison.paper)}")
    return r"$$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$$"


def _certificate_for(theorem, p, certificate, parameters) -> Certificate:
    if certificate is not None:
        if not isinstance(certificate, Certificate):
            certificate = Certificate(certificate) if isinstance(certificate, dict) else load(certificate)
        if parameters:
            raise InputError("give either certificate= or parameters, not both")
        for name, given, stored in (("theorem", theorem, certificate.theorem), ("p", p, certificate.p)):
            if given is not None and given != stored:
                raise InputError(f"{name} = {given!r} but the certificate is for {name} = {stored!r}")
        return certificate
    if theorem is None or p is None:
        raise InputError("name a theorem and p, or give certificate=")
    return certify_theorem(theorem, p, **parameters)


def _instance_parameters(eta, parameters) -> dict:
    """The theorem parameters of simulate/plot: ``parameters`` (a mapping name -> value) and ``eta``."""
    if parameters is None:
        parameters = {}
    if not isinstance(parameters, Mapping) or not all(isinstance(name, str) for name in parameters):
        raise InputError(f"parameters must be a mapping of parameter names to values, got {type(parameters).__name__}")
    chosen = dict(parameters)
    if eta is not None:
        if "eta" in chosen:
            raise InputError("eta is given twice (eta= and parameters['eta'])")
        chosen["eta"] = eta
    return chosen


def simulate(theorem: str | None = None, p: int | None = None, *, eta=None, certificate=None, start: str = "base",
             seed: int = 0, parameters: Mapping | None = None) -> dict:
    """Simulate the theorem's trajectory in floats (numpy/scipy) beside the certificate's bounds; what
    ``certify simulate`` computes.

    :param theorem: a theorem with a trajectory (dead, slide, smooth, gd), certified now at ``p`` (with its
        default parameters and ``parameters``); or None with ``certificate``.
    :param p: the prime (with ``theorem``).
    :param eta: gd's step size (``--eta``; required for gd, refused by the others).
    :param certificate: a Certificate, a certify/1 document (dict) or a path, instead of theorem and p.
    :param start: ``"base"`` (the base point, default) or ``"box"`` (a random point of the certified box;
        ``--from``).
    :param seed: the seed of the random box point (an integer >= 0; ``--seed``).
    :param parameters: the theorem's other parameters by name (``{"epsilon": "1/2"}``; see
        ``certify.THEOREMS[theorem].parameter_names``), read exactly as :func:`certify_theorem` reads them.
    :returns: :func:`certify.simulate.simulate_instance`'s record: a dict of numpy arrays (times, s,
        gamma, ...) and numbers, the certified bounds beside them. Floats illustrate; they prove nothing.

    InputError (one line) for bad input; the certificate is not re-checked here (call ``.check()``).

    >>> record = simulate("dead", p=5, start="box", seed=1)
    >>> record["theorem"], record["source"], record["seed"]
    ('dead', 'box', 1)
    """
    from .simulate import simulate_instance

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    chosen = _certificate_for(theorem, p, certificate, _instance_parameters(eta, parameters))
    try:
        return simulate_instance(chosen.document, source=start, seed=seed)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def plot(theorem: str | None = None, p: int | None = None, *, eta=None, certificate=None, start: str = "base",
         seed: int = 0, parameters: Mapping | None = None, size=None, dpi=None, out=None):
    """The theorem's figure (three panels, :mod:`certify.render.plots`) as a matplotlib Figure: the figure
    ``certify plot`` writes, for the trajectory :func:`simulate` gives with the same arguments (theorem, p,
    eta, certificate, start, seed, parameters: see there).

    :param size: ``(width, height)`` in inches (or ``"W,H"``; ``--size``), each a finite number from 1 to
        100; default (15, 4.5).
    :param dpi: dots per inch, a whole number from 20 to 2400 (``--dpi``); default 100.
    :param out: a path to write the figure to as well, PNG, PDF or SVG by its suffix (``--out``): the same
        bytes ``certify plot`` writes (no dates or random ids), replacing a file atomically.
    :returns: the Figure (on its own Agg canvas, not attached to pyplot: no global state), laid out once and
        kept so (every save draws the same positions); show it in a notebook as the cell's value, or save it
        with ``fig.savefig(...)``.

    Needs matplotlib (ImportError with the install command otherwise). InputError (one line) for bad input
    as :func:`simulate`, and for a size, dpi or suffix of ``out`` it cannot use (checked before anything is
    simulated).
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError("certify.plot needs matplotlib: pip install 'certify[plot]' "
                          "(from a checkout: pip install -e '.[plot]')") from exc
    from .figures import check_options, figure_dpi, figure_size
    from .render import plots

    size, dpi = figure_size(size, plots.FIGSIZE), figure_dpi(dpi, plots.DPI)
    if out is not None:
        check_options(os.fspath(out), size, dpi, plots.FIGSIZE, plots.DPI)
    record = simulate(theorem, p, eta=eta, certificate=certificate, start=start, seed=seed, parameters=parameters)
    figure = plots.draw_figure(record, size, dpi)
    if out is not None:
        from .figures import save_figure
        from .files import write_output

        write_output(out, lambda temporary: save_figure(figure, temporary))
    return figure


# --- sweeps and laws -------------------------------------------------------------------------------------

class Records(list):
    """A summary table without pandas: a list of dict records (one per row, the same keys in each), with
    ``.summary`` the whole summary document it was made from (what OUT/summary.json holds)."""

    def __init__(self, rows, summary: dict):
        super().__init__(rows)
        self.summary = summary


def _table(rows: list[dict], summary: dict):
    """``rows`` as a pandas DataFrame (``.attrs["summary"]``: the summary document) if pandas can be imported,
    else as :class:`Records` (``.summary``)."""
    try:
        import pandas
    except ImportError:
        return Records(rows, summary)
    frame = pandas.DataFrame(rows)
    frame.attrs["summary"] = summary
    return frame


def _jobs(jobs) -> int:
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or not 1 <= jobs <= 1024:
        raise InputError(f"jobs must be a whole number of worker processes from 1 to 1024, got {jobs!r}")
    return int(jobs)


def _folder(out) -> str:
    """The output folder of sweep/law as a path string; InputError for anything but a non-empty path."""
    if not isinstance(out, (str, os.PathLike)):
        raise InputError(f"out must be a folder path (a str or os.PathLike), got {type(out).__name__}")
    path = os.fspath(out)
    if not isinstance(path, str) or not path:
        raise InputError("out: the path is empty" if path == "" else "out must be a text path")
    return path


def _timeout(seconds) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or \
            not (math.isfinite(seconds) and seconds > 0):
        raise InputError(f"connect_timeout must be a positive number of seconds, got {seconds!r}")
    return float(seconds)


def sweep(primes, *, out, theorems=None, jobs: int | None = None, eta=None, scheduler: str | None = None,
          connect_timeout: float = CONNECT_TIMEOUT, progress: bool = False):
    """Certify every prime of a range in worker processes, resumably, into the folder ``out``: what
    ``certify sweep`` runs (:func:`certify.sweep.run_sweep`), with its options.

    :param primes: ``"A..B"`` or ``(A, B)``: every prime p >= 5 with A <= p <= B (``--primes``).
    :param out: the folder (created; resumed if there): OUT/THEOREM/THEOREM-P.json, run.json,
        failures.json, summary.json, summary.csv (``--out``).
    :param theorems: a comma-separated string or a list of names (``--theorems``; default every theorem whose
        defaults hold at every prime: :func:`certify.theorems.registry.swept_by_default`).
    :param jobs: worker processes (``--jobs``; default the number of CPUs).
    :param eta: gd's step size, exact (``--eta``; default the registry's, 1).
    :param scheduler: a Dask scheduler address, or ``"local"`` (``--scheduler``; default a process pool).
    :param connect_timeout: seconds to wait for the scheduler (``--connect-timeout``; default 5).
    :param progress: draw the command's progress bar on stderr (a terminal only).
    :returns: the summary table, one row per theorem and key number (the rows of OUT/summary.csv,
        :func:`certify.sweep.summary_rows`): a pandas DataFrame if pandas can be imported (the summary
        document in ``.attrs["summary"]``), else :class:`Records` (``.summary``). Failures at a prime are
        recorded (the ``failed`` column, OUT/failures.json), not raised.

    InputError (one line) for bad input, a folder made with other parameters, or a folder that cannot be
    written; ClusterError (an InputError) for a scheduler that cannot be used.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     table = sweep("5..7", theorems="dead", jobs=1, out=folder)
    >>> [(row["theorem"], row["primes"], row["certified"], row["failed"]) for row in table][:1]
    [('dead', 2, 2, 0)]
    """
    from .sweep import progress_bar, run_sweep, summary_rows, sweep_request

    from .theorems.registry import swept_by_default

    chosen, names, eta_text = sweep_request(primes, list(swept_by_default()) if theorems is None else theorems,
                                            None if eta is None else exact_input(eta, "eta"))
    report = run_sweep(chosen, names, _jobs(jobs), _folder(out), eta=eta_text,
                       progress=progress_bar() if progress else None, scheduler=scheduler,
                       connect_timeout=_timeout(connect_timeout))
    return _table(summary_rows(report.summary), report.summary)


def law(p, samples: int, *, out, sigma="1", seed: int = 1, horizon="1e8", dynamics: str = "flow", eta=None,
        jobs: int | None = None, scheduler: str | None = None, connect_timeout: float = CONNECT_TIMEOUT,
        progress: bool = False):
    """Measure the outcome law of a randomly initialised neuron beside the certified dead-region bound: what
    ``certify law`` runs (:func:`certify.law.runner.run_law`), with its options. Floats and counts, never a
    bound (docs/outcome-law.md).

    :param p: the prime (``--p``).
    :param samples: samples 0..samples-1 (``--samples``; at most 1000000).
    :param out: the run's folder (created; resumed if there): samples.csv, run.json, summary.json.
    :param sigma: the standard deviation of theta(0) (``--sigma``; default "1"); a string, int or float, kept
        as the text given (as run.json records it).
    :param seed: the run's seed (``--seed``; default 1).
    :param horizon: the time T each sample is classified at, >= 10 (``--horizon``; default "1e8").
    :param dynamics: ``"flow"`` (default) or ``"gd"`` (``--dynamics``).
    :param eta: gd's step size (``--eta``; required with gd, refused with flow).
    :param jobs: worker processes of a local Dask cluster (``--jobs``; default the number of CPUs; 1: in
        this process, no Dask).
    :param scheduler: a Dask scheduler address (``--scheduler``).
    :param connect_timeout: seconds to wait for the scheduler (``--connect-timeout``; default 5).
    :param progress: draw the command's progress bar on stderr (a terminal only).
    :returns: the table ``certify law`` prints, one row per outcome (outcome, count, fraction, ci_low,
        ci_high: the Wilson 95% interval): a pandas DataFrame if pandas can be imported (the summary
        document, staircases and the certified bound included, in ``.attrs["summary"]``), else
        :class:`Records` (``.summary``).

    LawError (an InputError; one line) for bad input or a folder holding another run; ClusterError for a
    scheduler that cannot be used.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     table = law(5, 2, horizon=100, jobs=1, out=folder)
    >>> [row["outcome"] for row in table][:2], sum(row["count"] for row in table)
    (['dead', 'memorises_one_entry'], 2)
    """
    from .cluster import single_threaded_blas

    single_threaded_blas()  # in time only if numpy is not loaded yet (then in-process rows have a worker's bits)
    from .law.runner import LawParameters, progress_bar, run_law

    run = LawParameters(p=_prime(p), sigma=_law_number("sigma", sigma), seed=seed,
                        horizon=_law_number("horizon", horizon), dynamics=dynamics,
                        eta=None if eta is None else _law_number("eta", eta))
    result = run_law(run, samples, _folder(out), jobs=_jobs(jobs), scheduler=scheduler,
                     connect_timeout=_timeout(connect_timeout),
                     progress=progress_bar(sys.stderr) if progress else None)
    rows = [{"outcome": name, **{key: entry[key] for key in ("count", "fraction", "ci_low", "ci_high")}}
            for name, entry in result.summary["outcomes"].items()]
    return _table(rows, result.summary)


def _law_number(name: str, value) -> str:
    """A law parameter as the text run.json records (``certify law`` keeps what was typed): a string as
    given, an int or float as written (repr); LawParameters checks it is a positive finite number."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    raise InputError(f"{name} must be a number or a string such as '1e8', got {type(value).__name__}")
