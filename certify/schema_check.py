"""A validator for the subset of JSON Schema (draft 2020-12) that certify-1.schema.json uses.

Why not the jsonschema library at run time: importing it costs ~100 ms and
building its validator ~40 ms, more than recomputing every claim, and the
issue asks that `certify check` be no slower than generation. The schema file
stays the single source of truth: this module interprets it, refuses any
keyword it does not implement (so the schema cannot grow a rule that would be
silently ignored), and tests/test_schema_check.py compares its verdicts with
the jsonschema library's on honest and mutated certificates.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Keywords that only annotate (no validation).
ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "$defs"})
SUPPORTED = ANNOTATIONS | frozenset({
    "type", "const", "enum", "properties", "required", "additionalProperties", "propertyNames",
    "maxProperties", "minProperties", "maxLength", "pattern", "minimum", "maximum", "allOf", "anyOf", "oneOf", "not",
    "if", "then", "$ref",
})

_TYPES = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


class SchemaValidator:
    """Validate JSON documents (as parsed by ``json``) against one root schema."""

    def __init__(self, root: dict):
        self.root = root
        self._check_keywords(root)

    def _check_keywords(self, schema) -> None:
        if isinstance(schema, bool):
            return
        unknown = set(schema) - SUPPORTED
        if unknown:
            raise ValueError(f"schema keyword(s) not implemented: {', '.join(sorted(unknown))}")
        for key in ("properties", "$defs"):
            for sub in schema.get(key, {}).values():
                self._check_keywords(sub)
        for key in ("additionalProperties", "propertyNames", "not", "if", "then"):
            if key in schema:
                self._check_keywords(schema[key])
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in schema.get(key, []):
                self._check_keywords(sub)

    def _resolve(self, reference: str) -> dict:
        if not reference.startswith("#/"):
            raise ValueError(f"only local references are supported, got {reference!r}")
        node = self.root
        for part in reference[2:].split("/"):
            node = node[part]
        return node

    def first_error(self, instance) -> tuple[str, str] | None:
        """(path, message) of the first violation in a fixed traversal order, or None if valid."""
        return next(self._errors(instance, self.root, ()), None)

    def is_valid(self, instance, schema) -> bool:
        return next(self._errors(instance, schema, ()), None) is None

    def _errors(self, x, schema, path):
        where = "/".join(map(str, path)) or "(top level)"
        if schema is True:
            return
        if schema is False:
            yield where, "no value is allowed here"
            return
        if "$ref" in schema:
            yield from self._errors(x, self._resolve(schema["$ref"]), path)
        if "type" in schema and not _TYPES[schema["type"]](x):
            yield where, f"{_show(x)} is not of type {schema['type']!r}"
            return
        if "const" in schema and not _same(x, schema["const"]):
            yield where, f"{_show(x)} should be {schema['const']!r}"
        if "enum" in schema and not any(_same(x, option) for option in schema["enum"]):
            yield where, f"{_show(x)} is not one of {schema['enum']!r}"
        if isinstance(x, str):
            if "maxLength" in schema and len(x) > schema["maxLength"]:
                yield where, f"string longer than {schema['maxLength']} characters"
            if "pattern" in schema and not _pattern(schema["pattern"]).search(x):
                yield where, f"{_show(x)} does not match the required form"
        if _TYPES["number"](x):
            if "minimum" in schema and x < schema["minimum"]:
                yield where, f"{_show(x)} is less than the minimum of {schema['minimum']}"
            if "maximum" in schema and x > schema["maximum"]:
                yield where, f"{_show(x)} is greater than the maximum of {schema['maximum']}"
        if isinstance(x, dict):
            yield from self._object_errors(x, schema, path, where)
        for sub in schema.get("allOf", []):
            yield from self._errors(x, sub, path)
        if "anyOf" in schema and not any(self.is_valid(x, sub) for sub in schema["anyOf"]):
            yield where, "does not match any of the allowed forms"
        if "oneOf" in schema and sum(self.is_valid(x, sub) for sub in schema["oneOf"]) != 1:
            yield where, "must match exactly one of the allowed forms"
        if "not" in schema and self.is_valid(x, schema["not"]):
            yield where, "matches a form that is not allowed"
        if "if" in schema and "then" in schema and self.is_valid(x, schema["if"]):
            yield from self._errors(x, schema["then"], path)

    def _object_errors(self, x: dict, schema, path, where):
        for key in schema.get("required", []):
            if key not in x:
                yield where, f"{key!r} is a required property"
        if "maxProperties" in schema and len(x) > schema["maxProperties"]:
            yield where, f"more than {schema['maxProperties']} properties"
        if "minProperties" in schema and len(x) < schema["minProperties"]:
            yield where, f"fewer than {schema['minProperties']} properties"
        properties = schema.get("properties", {})
        for key, value in x.items():
            if "propertyNames" in schema and not self.is_valid(key, schema["propertyNames"]):
                yield where, f"property name {_show(key)} is not allowed"
            if key in properties:
                yield from self._errors(value, properties[key], path + (key,))
            elif "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    yield where, f"additional property {_show(key)} is not allowed"
                else:
                    yield from self._errors(value, extra, path + (key,))


def _same(a, b) -> bool:
    """JSON equality: 1 and True differ."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


@lru_cache(maxsize=None)
def _pattern(text: str) -> re.Pattern:
    """The schema's ECMA-262 pattern as a Python regex: ``$`` is the end of the input.

    In Python ``$`` also matches before a final newline, so ``"1\\n"`` would pass
    ``^1$``; ECMA-262 (JSON Schema's dialect) has no such exception, hence ``\\Z``.
    """
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", text))


def _show(x) -> str:
    """A short description of a JSON value for one-line messages (containers by kind: repr could recurse deeply)."""
    if isinstance(x, dict):
        return f"an object with {len(x)} properties"
    if isinstance(x, list):
        return f"an array of {len(x)} items"
    if isinstance(x, str):
        text = repr(x if len(x) <= 60 else x[:57])
        return text if len(x) <= 60 else text[:-1] + "...'"
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 10 ** 60:
        return "a very large integer"
    return repr(x)
