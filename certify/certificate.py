"""The certify/1 format: writing claims as exact text, canonical bytes, and strict reading.

A certificate is a JSON object with sorted keys and no floats; the closed JSON
Schema in ``certify/schema/certify-1.schema.json`` is the contract, and
:func:`parse_certificate` validates against it before anything else is read.
"""

from __future__ import annotations

import json
import platform
from functools import lru_cache
from pathlib import Path

import flint
from flint import fmpq

from . import __version__
from .errors import InputError, MalformedCertificate, NotCertified
from .kernel.balls import ball, certainly_lt, lower_decimal, upper_decimal
from .kernel.basepoint import BasePoint
from .kernel.claims import Claim, Quantity
from .kernel.exact import (MAX_EXPONENT_DIGITS, MAX_NUMBER_LENGTH, MAX_WRITTEN_EXPONENT, ExactNumber, canonical_text,
                           decimal_digits, exceeds, format_decimal, parse_exact, require_bounded_input, show_number,
                           writable_bound, written_text)
from .kernel.log10 import log10_lower_twin, log10_upper_twin, pair_agrees

FORMAT = "certify/1"

#: A certificate is O(1) in p: a few kilobytes. Anything far larger is refused unread.
MAX_CERTIFICATE_BYTES = 1 << 20


def format_exact(number: ExactNumber) -> str:
    """The canonical text of an ExactNumber produced by the ball writers."""
    if number.denominator != 1:
        raise ValueError("only decimals are written through format_exact")
    return format_decimal(number.numerator, number.exp10)


def claim_to_json(claim: Claim) -> dict:
    """The JSON object of one claim: endpoints rounded outward to short exact decimals.

    Raises NotCertified if rounding would leave a claimed strict bound unproved.
    """
    out = {"statement": claim.statement, "scope": claim.scope}
    if claim.quantity is not None:
        out.update(quantity_to_json(claim.quantity, claim.id))
    if claim.components:
        out["components"] = {name: quantity_to_json(part, f"{claim.id}/{name}")
                             for name, part in claim.components.items()}
    return out


def quantity_to_json(quantity: Quantity, where: str) -> dict:
    """Exact value, or outward-rounded bounds, of one quantity (checked against its strict bounds).

    Every number written is canonical and within certify/1's limits (what :func:`parse_exact` reads back):
    an end that is not is rounded outward to a shorter decimal (:func:`certify.kernel.exact.writable_bound`:
    a weaker bound, still true), and the strict bounds (lo > 0, hi < 1) are checked on what is written.
    Where a quantity has an end and its log10 (``lo``/``log10_lo``, ``hi``/``log10_hi``), the log10 field
    is written from the written end (:mod:`certify.kernel.log10`), so that the pair states one number.
    NotCertified (one line, naming the claim) when an exact value cannot be written, when no writable
    number bounds an end, or when the written end breaks a strict bound the claim states.
    """
    claim_id = where.split("/")[0]
    if quantity.exact is not None:
        text = written_text(quantity.exact)
        if text is None:
            raise NotCertified(f"{where}: the exact value {show_number(quantity.exact)} cannot be written in "
                               f"certify/1 (at most {MAX_NUMBER_LENGTH} characters)", claim_id)
        return {"exact": text}
    out = {}
    if quantity.lower is not None:
        out["lo"] = _bound_text(quantity.lower, upward=False, where=where, key="lo")
    if quantity.upper is not None:
        out["hi"] = _bound_text(quantity.upper, upward=True, where=where, key="hi")
    # the strict bounds first: an end that fails them has no log10 worth writing
    if quantity.lower_must_exceed is not None and not exceeds(parse_exact(out["lo"]), quantity.lower_must_exceed):
        raise NotCertified(_beyond_writable(where, quantity.log10_lower) or
                           f"{where}: lower bound {out['lo']} is not above {show_number(quantity.lower_must_exceed)}",
                           claim_id)
    if quantity.upper_must_be_below is not None and \
            not exceeds(-parse_exact(out["hi"]), -quantity.upper_must_be_below):
        raise NotCertified(f"{where}: upper bound {out['hi']} is not below "
                           f"{show_number(quantity.upper_must_be_below)}", claim_id)
    for key, end_key, bound, upward in (("log10_lo", "lo", quantity.log10_lower, False),
                                        ("log10_hi", "hi", quantity.log10_upper, True)):
        if bound is None:
            continue
        if end_key in out:
            end = parse_exact(out[end_key])
            if end.sign() <= 0:
                raise NotCertified(_beyond_writable(where, bound) or
                                   f"{where}: {end_key} = {out[end_key]} is not positive, so it has no log10", claim_id)
            twin = log10_upper_twin if upward else log10_lower_twin
            out[key] = format_exact(twin(end, bound, _twin_bits(end)))
            if not pair_agrees(end, parse_exact(out[key]), upper=upward):  # verify what we write (CAPD style)
                raise NotCertified(f"{where}: {end_key} = {out[end_key]} and {key} = {out[key]} do not agree",
                                   claim_id)
        else:
            out[key] = _bound_text(bound, upward, where=where, key=key)
    return out


def _beyond_writable(where: str, log10_bound) -> str:
    """The reason a positive lower bound cannot be written, when the quantity is below every positive number
    certify/1 writes (10^-(10^60 - 1)); '' otherwise. ``log10_bound``: a ball for log10 of the quantity, or None."""
    if log10_bound is None or not log10_bound.is_finite() or \
            not certainly_lt(log10_bound, ball(-MAX_WRITTEN_EXPONENT)):
        return ""
    return (f"{where}: the quantity is about 10^({log10_bound.mid().str(4, radius=False)}), below 10^-(10^60 - 1), "
            f"the smallest positive number certify/1 writes (exponents have at most {MAX_EXPONENT_DIGITS} digits), "
            f"so no positive lower bound of it can be written")


def _twin_bits(end: ExactNumber) -> int:
    """Working bits for the log10 of a written end: a function of the end alone, so writing is deterministic."""
    return int((decimal_digits(end.numerator) + len(str(abs(end.exp10))) + 4) * 3.33) + 64


def _bound_text(bound, upward: bool, where: str = "a bound", key: str = "end") -> str:
    """The text of one end (``key`` of the quantity at ``where``): an exact rational bound as it is, a ball's
    endpoint rounded outward to a short decimal; either rounded outward again when certify/1 cannot write
    it as it is (:func:`writable_bound`). NotCertified for a ball that is not finite or an end that no
    writable number bounds."""
    if isinstance(bound, fmpq):
        end = bound
    else:
        if not bound.is_finite():
            raise NotCertified(f"{where}: {key}: the enclosure {bound.str(5)} is not finite", where.split("/")[0])
        end = upper_decimal(bound) if upward else lower_decimal(bound)
    written = writable_bound(end, upward)
    if written is None:
        raise NotCertified(f"{where}: {key}: the bound {show_number(end)} is beyond {'+' if upward else '-'}"
                           f"10^(10^60), past every number certify/1 writes (exponents have at most "
                           f"{MAX_EXPONENT_DIGITS} digits)", where.split("/")[0])
    return canonical_text(written)


def block_to_json(block, name: str = "") -> dict:
    """The levels of one base-point block (``name``: u, v or w): at_0 and elsewhere, and at_1 for a block
    that has one (the staircase's three-level blocks), each an input the checker reads back."""
    levels = ("at_0", "at_1", "elsewhere") if getattr(block, "at_1", None) is not None else ("at_0", "elsewhere")
    return {level: _input_text(getattr(block, level), f"the base point's {name or 'block'}.{level}")
            for level in levels}


def _input_text(value, what: str) -> str:
    """The canonical text of an input (a parameter, a base-point level, the radius), which the checker reads
    back as an input: InputError (one line) unless it is within the input bound (at most 100 digits in
    numerator and denominator and 200 characters: :func:`require_bounded_input`)."""
    value = fmpq(value)
    try:
        return canonical_text(require_bounded_input(ExactNumber.from_rational(value),
                                                    f"{what} = {show_number(value)}"))
    except ValueError as exc:
        raise InputError(f"{exc}; a certificate cannot state it") from None


def build_certificate(*, theorem: str, paper: str, p: int, parameters: dict, base_point: BasePoint,
                      radius, precision_bits: int, claims: list[Claim]) -> dict:
    """Assemble a certify/1 certificate (a plain dict) from kernel results.

    What is assembled is validated against the certify/1 schema, the reader's first test, so that nothing
    is written that ``certify check`` would call malformed: NotCertified (one line) if it is not valid (a
    statement that quotes inputs of many digits can outgrow the schema's 1000 characters, say). Inputs a
    certificate cannot state (:func:`_input_text`) are InputError.
    """
    certificate = {
        "format": FORMAT,
        "theorem": theorem,
        "paper": paper,
        "p": p,
        "parameters": {name: _input_text(value, f"the parameter {name}") for name, value in parameters.items()},
        "base_point": {name: block_to_json(block, name) for name, block in base_point.blocks().items()},
        "radius": _input_text(radius, "the radius"),
        "precision_bits": precision_bits,
        "software": software_versions(),
        "claims": {claim.id: claim_to_json(claim) for claim in claims},
    }
    try:
        validate_schema(certificate)
    except MalformedCertificate as exc:
        raise NotCertified(f"the certificate would not be valid certify/1 ({exc}), so it is not written") from None
    return certificate


def software_versions() -> dict:
    """Versions recorded in every certificate (same machine, same bytes)."""
    return {"certify": __version__, "python-flint": flint.__version__, "python": platform.python_version()}


def dumps(certificate: dict) -> str:
    """Canonical text: sorted keys, two-space indent, ASCII, one trailing newline."""
    return json.dumps(certificate, sort_keys=True, indent=2, ensure_ascii=True) + "\n"


@lru_cache(maxsize=1)
def schema() -> dict:
    """The closed JSON Schema of certify/1 shipped inside the package."""
    # a plain path, not importlib.resources: that pulls in zipfile and threading (~10 ms of start-up)
    return json.loads((Path(__file__).parent / "schema" / "certify-1.schema.json").read_text(encoding="utf-8"))


def _refuse_float(text):
    raise MalformedCertificate(f"JSON number {text[:40]} is a float: certify/1 writes exact numbers as strings")


def _refuse_constant(name):
    raise MalformedCertificate(f"JSON constant {name} is not allowed")


def _reject_duplicates(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise MalformedCertificate("duplicate key in a JSON object")
    return dict(pairs)


def parse_certificate(data: bytes | str) -> dict:
    """Read and validate a certificate; MalformedCertificate (one line) if it is not certify/1.

    Refuses files over 1 MiB unread, invalid UTF-8, invalid JSON, floats, NaN,
    Infinity, duplicate keys and deep nesting, then validates against the
    closed schema. Nothing is ever evaluated.
    """
    if len(data) > MAX_CERTIFICATE_BYTES:
        raise MalformedCertificate(f"file is {len(data)} bytes; a certificate is at most {MAX_CERTIFICATE_BYTES}")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedCertificate(f"not UTF-8 text (byte {exc.start})") from None
    try:
        document = json.loads(data, parse_float=_refuse_float, parse_constant=_refuse_constant,
                              object_pairs_hook=_reject_duplicates)
    except MalformedCertificate:
        raise
    except RecursionError:
        raise MalformedCertificate("JSON nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError and oversized integers
        raise MalformedCertificate(f"invalid JSON: {str(exc).splitlines()[0]}") from None
    validate_schema(document)
    return document


@lru_cache(maxsize=1)
def _validator():
    from .schema_check import SchemaValidator

    return SchemaValidator(schema())


def validate_schema(document) -> None:
    """Validate against the certify/1 schema; MalformedCertificate naming the first error's place."""
    error = _validator().first_error(document)
    if error is not None:
        where, message = error
        raise MalformedCertificate(f"schema: at {where}: {message}")
