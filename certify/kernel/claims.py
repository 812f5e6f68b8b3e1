"""A claim of a certificate: what its stored numbers state (its relation) and the statement made from it.

Every claim of every theorem is declared once, statically, as a :class:`ClaimSpec`: the quantity it is
about (a noun phrase in the paper's notation, which never names a stored field), and for each stored
quantity a :class:`Relation` -- an exact value, an enclosure [lo, hi], a lower bound or an upper bound,
with the strict landmarks its ends must beat (lo > 0, hi < 1) and its log10 twins. The statement text a
certificate carries is *generated* from that record (:meth:`ClaimSpec.statement`), so a one-sided field can
never be tied to a formula with "=": an upper bound reads ``Q <= hi``, and where the bound is a closed form
that the checker compares ``hi`` with, ``hi >= formula``. The checker (certify/check.py) demands the stored
statement verbatim and checks each field exactly as its relation says; the Coq exporters state each field
in the direction its relation gives (certify/coq/relations.py), never from reading the text.

A kernel function computes the numbers and calls :meth:`ClaimSpec.claim`, which refuses numbers whose
kinds differ from the relation (a lower bound computed for an enclosure claim, say).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from flint import arb, fmpq

SCOPES = ("base_point", "box", "region")
KINDS = ("exact", "enclosure", "lower", "upper")

#: The stored fields' names: the only place a statement may name them is the generated relation text.
_FIELD_WORD = re.compile(r"(?<![A-Za-z0-9_.])(lo|hi|exact|log10_lo|log10_hi)(?![A-Za-z0-9_])")
#: The instance values a statement may quote (``{sigma}`` in a subject), written exactly by the kernel.
VALUE_NAMES = ("sigma", "delta", "gamma_star", "X")
_VALUE = re.compile(r"\{(" + "|".join(VALUE_NAMES) + r")\}")


@dataclass(frozen=True)
class Relation:
    """What the stored numbers of one quantity Q state, and so how the checker tests each of them.

    ``kind``: ``exact`` (Q = exact), ``enclosure`` (lo <= Q <= hi), ``lower`` (Q >= lo), ``upper`` (Q <= hi).
    ``lo_above`` / ``hi_below``: the statement also asserts lo > lo_above (a positive margin) or
    hi < hi_below (an admissible coefficient, a negative gate), so a stored end must beat it.
    ``log10``: each stored end carries its log10 twin (``log10_lo`` beside ``lo``, ``log10_hi`` beside
    ``hi``), a number of its own checked against the recomputation, and the pair states one number to the
    written digits of the twin (docs/numbers-and-checking.md, 'Twin fields').
    """

    kind: str
    lo_above: int | None = None
    hi_below: int | None = None
    log10: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown relation {self.kind!r}")
        if self.lo_above is not None and not self.has_lower:
            raise ValueError("lo_above needs a lower end")
        if self.hi_below is not None and not self.has_upper:
            raise ValueError("hi_below needs an upper end")
        if self.log10 and self.kind == "exact":
            raise ValueError("an exact value has no log10 twin")

    @property
    def has_lower(self) -> bool:
        return self.kind in ("enclosure", "lower")

    @property
    def has_upper(self) -> bool:
        return self.kind in ("enclosure", "upper")

    def keys(self) -> tuple[str, ...]:
        """The certificate keys this relation is stored under, in a fixed order."""
        if self.kind == "exact":
            return ("exact",)
        keys = (("lo",) if self.has_lower else ()) + (("hi",) if self.has_upper else ())
        if self.log10:
            keys += tuple(f"log10_{key}" for key in keys)
        return keys

    def direction(self, key: str) -> str:
        """How the stored ``key`` bounds Q: ``"below"`` (key <= Q: lo, log10_lo against log10 Q), ``"above"``
        (Q <= key: hi, log10_hi) or ``"equal"`` (exact). KeyError for a key this relation does not store."""
        if key not in self.keys():
            raise KeyError(f"{key} is not a field of a {self.kind} relation")
        return {"exact": "equal", "lo": "below", "log10_lo": "below", "hi": "above", "log10_hi": "above"}[key]

    def text(self, subject: str, prefix: str = "", bound: str | None = None) -> str:
        """The sentence the stored numbers state: ``subject`` related to the fields (named ``prefix + key``),
        the strict landmarks, the closed form ``bound`` a one-sided end is compared with, and the twins."""
        lo, hi = f"{prefix}lo", f"{prefix}hi"
        parts = [{"exact": f"{subject} = {prefix}exact", "enclosure": f"{subject} lies in [{lo}, {hi}]",
                  "lower": f"{subject} >= {lo}", "upper": f"{subject} <= {hi}"}[self.kind]]
        if self.lo_above is not None:
            parts.append(f"{lo} > {self.lo_above}")
        if self.hi_below is not None:
            parts.append(f"{hi} < {self.hi_below}")
        if bound is not None:
            parts.append(f"{lo} <= {bound}" if self.kind == "lower" else f"{hi} >= {bound}")
        if self.log10:  # the pair rule of docs/numbers-and-checking.md, 'Twin fields' (kernel/log10.pair_agrees)
            if self.has_lower:
                parts.append(f"{prefix}log10_lo <= log10 {lo} < {prefix}log10_lo + u")
            if self.has_upper:
                parts.append(f"{prefix}log10_hi - u < log10 {hi} <= {prefix}log10_hi")
            parts.append("u the unit of the last nonzero digit of the log10 field, |log10 field| >= 2u")
        return ", ".join(parts)


EXACT = Relation("exact")
ENCLOSURE = Relation("enclosure")
LOWER = Relation("lower")
UPPER = Relation("upper")
POSITIVE_LOWER = Relation("lower", lo_above=0)
POSITIVE_ENCLOSURE = Relation("enclosure", lo_above=0)
NEGATIVE_UPPER = Relation("upper", hi_below=0)
PROBABILITY_LOWER = Relation("lower", lo_above=0, log10=True)


def _plain(text: str, what: str) -> str:
    """``text`` if it names no stored field (a subject, note or bound of a claim), else ValueError."""
    match = _FIELD_WORD.search(text)
    if match:
        raise ValueError(f"{what} names the stored field {match.group(1)!r}: only the relation may ({text[:60]!r})")
    return text


@dataclass(frozen=True)
class Component:
    """One named quantity of a claim with components: its subject, relation and optional closed-form bound."""

    name: str
    subject: str
    relation: Relation
    bound: str | None = None

    def __post_init__(self):
        _plain(self.subject, f"component {self.name}")
        if self.bound is not None:
            _plain(self.bound, f"component {self.name}'s bound")
            if self.relation.kind not in ("lower", "upper"):
                raise ValueError(f"component {self.name}: a closed-form bound belongs to a one-sided relation")

    def text(self) -> str:
        return self.relation.text(self.subject, f"{self.name}.", self.bound)


@dataclass(frozen=True)
class ClaimSpec:
    """A claim of a theorem, declared once: everything its statement says, nothing computed.

    ``subject``: the quantity (a noun phrase, e.g. "from every point of the box, ||w_1 - w_0||_1"), for a
    claim about one quantity with ``relation``; or ``components``, each with its own subject and relation,
    after the phrase ``subject`` (e.g. "after one step from every point of the box"). ``bound``: a closed
    form of the instance's inputs that a one-sided end is compared with (``hi >= bound``). ``note``:
    definitions and consequences; ``source``: the paper's equations. None of these texts may name a stored
    field (ValueError); they may quote an instance value as ``{sigma}``, ``{delta}``, ``{gamma_star}``, ``{X}``.
    """

    id: str
    scope: str
    subject: str
    relation: Relation | None = None
    components: tuple[Component, ...] = ()
    bound: str | None = None
    note: str = ""
    source: str = ""

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"claim {self.id}: unknown scope {self.scope!r}")
        if (self.relation is None) == (not self.components):
            raise ValueError(f"claim {self.id}: give a relation or components, not both or neither")
        for text, what in ((self.subject, "subject"), (self.note, "note"), (self.source, "source"),
                           (self.bound or "", "bound")):
            _plain(text, f"claim {self.id}'s {what}")
        if self.bound is not None and (self.relation is None or self.relation.kind not in ("lower", "upper")):
            raise ValueError(f"claim {self.id}: a closed-form bound belongs to a one-sided relation")
        names = [component.name for component in self.components]
        if len(names) != len(set(names)):
            raise ValueError(f"claim {self.id}: repeated component names")

    def relation_of(self, component: str | None = None) -> Relation:
        """The relation of the claim's quantity (``component`` None) or of one component (KeyError if none)."""
        if component is None:
            if self.relation is None:
                raise KeyError(f"claim {self.id} has components, not one quantity")
            return self.relation
        for part in self.components:
            if part.name == component:
                return part.relation
        raise KeyError(f"claim {self.id} has no component {component!r}")

    def template(self) -> str:
        """The statement text generated from the relations, its ``{sigma}``-style quotes not yet filled."""
        if self.relation is not None:
            body = self.relation.text(self.subject, "", self.bound)
        else:
            body = f"{self.subject}: " + "; ".join(component.text() for component in self.components)
        return body + (f"; {self.note}" if self.note else "") + (f" ({self.source})" if self.source else "")

    def statement(self, **values) -> str:
        """The statement text, generated from the relations; ``values`` fill ``{sigma}``-style quotes exactly."""
        return _fill(self.template(), values, self.id)

    def claim(self, values: dict | None = None, components: dict | None = None, **numbers) -> "Claim":
        """The claim with these numbers: ``numbers`` (exact, lower, upper, log10_lower, log10_upper) for the
        quantity, or ``components`` {name: {the same}}; ``values`` for the statement's quotes. ValueError if
        the numbers given are not the ones the relation stores."""
        values = values or {}
        if self.relation is not None:
            if components:
                raise ValueError(f"claim {self.id} has no components")
            quantity, parts = _quantity(self.relation, numbers, self.id), {}
        else:
            if numbers or set(components or {}) != {part.name for part in self.components}:
                raise ValueError(f"claim {self.id}: numbers for components {sorted(components or {})}, expected "
                                 f"{[part.name for part in self.components]}")
            quantity = None
            parts = {part.name: _quantity(part.relation, components[part.name], f"{self.id}/{part.name}")
                     for part in self.components}
        return Claim(self.id, self.statement(**values), self.scope, quantity, parts)


def _fill(text: str, values: dict, claim_id: str) -> str:
    from .exact import format_rational

    def value(match) -> str:
        name = match.group(1)
        if name not in values:
            raise ValueError(f"claim {claim_id}: no value given for {{{name}}}")
        return format_rational(fmpq(values[name]))

    return _VALUE.sub(value, text)


_NUMBER_KEYS = {"exact": "exact", "lower": "lo", "upper": "hi", "log10_lower": "log10_lo", "log10_upper": "log10_hi"}


def _quantity(relation: Relation, numbers: dict, where: str) -> "Quantity":
    stored = tuple(sorted(_NUMBER_KEYS[key] for key, value in numbers.items() if value is not None))
    if set(numbers) - set(_NUMBER_KEYS) or stored != tuple(sorted(relation.keys())):
        raise ValueError(f"{where}: numbers for {list(stored)} but its {relation.kind} relation stores "
                         f"{list(relation.keys())}")
    return Quantity(**numbers,
                    lower_must_exceed=None if relation.lo_above is None else fmpq(relation.lo_above),
                    upper_must_be_below=None if relation.hi_below is None else fmpq(relation.hi_below))


@dataclass(frozen=True)
class Quantity:
    """The recomputed numbers of one quantity, which the stored fields are checked against.

    * ``exact``: the claimed value, exactly (e.g. F_zeta = 2/(p-1)); or
    * ``lower`` / ``upper``: balls, or exact rationals (fmpq) for bounds that are
      rational functions of the inputs; a stored ``lo`` must be <= every point of
      ``lower`` and a stored ``hi`` >= every point of ``upper``. For an enclosure of
      one quantity both are the same ball; for a box the two ends may come from
      different bounds (e.g. the hitting time over the box).
    * ``lower_must_exceed`` / ``upper_must_be_below``: the relation's strict landmarks
      (lo > this, hi < this), which the stored end must satisfy too.
    * ``log10_lower`` / ``log10_upper``: balls for log10 of the bounds, for numbers like
      1e-9000000 or 1e561 that a person reads by their exponent.
    """

    exact: fmpq | None = None
    lower: arb | fmpq | None = None
    upper: arb | fmpq | None = None
    lower_must_exceed: fmpq | None = None
    upper_must_be_below: fmpq | None = None
    log10_lower: arb | None = None
    log10_upper: arb | None = None

    def __post_init__(self):
        if (self.exact is None) == (self.lower is None and self.upper is None):
            raise ValueError("give either an exact value or bounds")

    def keys(self) -> set[str]:
        """The certificate keys this quantity is written under."""
        if self.exact is not None:
            return {"exact"}
        return {key for key, part in (("lo", self.lower), ("hi", self.upper), ("log10_lo", self.log10_lower),
                                      ("log10_hi", self.log10_upper)) if part is not None}


@dataclass(frozen=True)
class Claim:
    """One verified statement of a theorem instance: its generated statement and its recomputed numbers."""

    id: str
    statement: str
    scope: str
    quantity: Quantity | None = None
    components: dict[str, Quantity] = field(default_factory=dict)

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"unknown scope {self.scope!r}")
        if self.quantity is None and not self.components:
            raise ValueError(f"claim {self.id} claims nothing")
