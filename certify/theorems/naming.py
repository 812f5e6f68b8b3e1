"""The name of a theorem instance, shared by its Coq file (certify.coq.export.module_name) and its LaTeX
document (certify.render.document.document_name): theorem, p, then whatever of the instance is not what
its builder takes by default -- each parameter, the precision, the radius -- so that two distinct
certificates never get one file name (a later one would replace the earlier).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import re
from fractions import Fraction
from functools import lru_cache

from .registry import THEOREMS

#: How a canonical exact number (certify/1 text: digits, ``.``, ``/``, ``-``, ``+``, ``e``) is spelled in a
#: name, which coqc takes only as an identifier: each other character becomes a letter of its own and none
#: becomes ``_`` or ``-`` (the separators), so distinct numbers are spelled apart: 1/3 -> 1o3, 1.3 -> 1p3,
#: 1e-3 -> 1em3.
NUMBER_SPELLING = str.maketrans({".": "p", "/": "o", "-": "m", "+": "P"})

#: A longer name is replaced by the theorem, p and a SHA-256 digest of the instance (file names are limited
#: to 255 bytes, and nobody reads a name that long).
MAX_NAME = 100


def spelled(text) -> str | None:
    """``text`` (a certificate's number) spelled for a name (:data:`NUMBER_SPELLING`), or None if it is not a
    plain number."""
    if not isinstance(text, str) or not re.fullmatch(r"[0-9][0-9eE.+/-]*|-[0-9][0-9eE.+/-]*", text):
        return None
    return text.translate(NUMBER_SPELLING)


def default_value(record, parameter, p: int, values: dict) -> Fraction | None:
    """What the theorem's builder gives ``parameter`` when the command does not: the record's default if it
    is a number (``"1/100"``), else the builder module's ``default_NAME(p, ...)`` at the certificate's other
    parameters (slide's X, gd's epsilon), called only where those are positive, as every theorem needs;
    None if neither says (then the parameter is always in the name)."""
    from flint import fmpq

    try:
        return Fraction(parameter.default)
    except (TypeError, ValueError, ZeroDivisionError):
        pass
    rule = getattr(importlib.import_module(record.builder.partition(":")[0]), f"default_{parameter.name}", None)
    if rule is None:
        return None
    try:
        given = {name: values[name] for name in inspect.signature(rule).parameters if name != "p"}
        if not all(value > 0 for value in given.values()):
            return None  # every theorem's parameters are positive; a rule may not end elsewhere (round_down)
        value = rule(p=p, **{name: fmpq(value.numerator, value.denominator) for name, value in given.items()})
        return Fraction(int(value.p), int(value.q))
    except Exception:  # noqa: BLE001 - a parameter the rule cannot take (a forged 0): name it instead
        return None


@lru_cache(maxsize=256)
def _default_radius(theorem: str, p: int, parameters: tuple, precision: int) -> str | None:
    """The radius text the builder chooses for this instance (it certifies one), None if it cannot."""
    from flint import fmpq

    try:
        values = {name: fmpq(Fraction(text).numerator, Fraction(text).denominator) for name, text in parameters}
        return THEOREMS[theorem].build(p, prec=precision, **values).certificate["radius"]
    except Exception:  # noqa: BLE001 - an instance the builder refuses: its radius is named, never guessed
        return None


def instance_parts(document: dict, omit_references: bool = False) -> list[str] | None:
    """The words of the instance's name after theorem and p: ``[NAME, VALUE, ...]`` for each parameter in
    the theorem's order that is not its builder's default (a required parameter, gd's eta, always, unless
    ``omit_references`` and it is the record's reference value, as the proof library's documents are
    named), then ``prec, BITS`` if the precision is not the builder's default, then ``r, RADIUS`` if the
    radius is not the one the builder chooses for these parameters (it is recomputed, by the builder, for
    that comparison). VALUE spelled by :data:`NUMBER_SPELLING`. None if some number has no plain
    spelling (the caller names the instance by a digest). Distinct (theorem, p, parameters, precision,
    radius) give distinct words."""
    theorem, p, stated = document["theorem"], int(document["p"]), document["parameters"]
    record = THEOREMS[theorem]
    try:
        values = {name: Fraction(stated[name]) for name in record.parameter_names}
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    words = []
    for parameter in record.parameters:
        default = default_value(record, parameter, p, values)
        if default is None and omit_references and parameter.reference is not None:
            default = Fraction(parameter.reference)
        if default == values[parameter.name]:
            continue
        text = spelled(stated[parameter.name])
        if text is None:
            return None
        words += [parameter.name, text]
    builder = importlib.import_module(record.builder.partition(":")[0])
    precision = document["precision_bits"]
    if precision != getattr(builder, "DEFAULT_PRECISION", None):
        words += ["prec", str(precision)]
    radius = document["radius"]
    if radius != _default_radius(theorem, p, tuple((name, stated[name]) for name in record.parameter_names),
                                 precision):
        text = spelled(radius)
        if text is None:
            return None
        words += ["r", text]
    return words


def instance_name(document: dict, separator: str, omit_references: bool = False) -> str:
    """``THEOREM{sep}P{sep}...`` (:func:`instance_parts` joined by ``separator``), or ``THEOREM{sep}P{sep}h``
    and 16 hex digits of the SHA-256 of the parameters, precision and radius when a number has no plain
    spelling or the name would exceed :data:`MAX_NAME` characters."""
    theorem, p = document["theorem"], int(document["p"])
    words = instance_parts(document, omit_references)
    name = separator.join([theorem, str(p), *(words or [])])
    if words is None or len(name) > MAX_NAME:
        digest = hashlib.sha256(json.dumps([document["parameters"], document["precision_bits"], document["radius"]],
                                           sort_keys=True).encode()).hexdigest()
        name = separator.join([theorem, str(p), f"h{digest[:16]}"])
    return name
