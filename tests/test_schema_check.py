"""certify.schema_check agrees with the jsonschema library on the shipped certify/1 schema."""

import copy
import json
import random

import jsonschema
import pytest

from certify.certificate import schema
from certify.schema_check import SchemaValidator

REFERENCE = jsonschema.Draft202012Validator(schema())
OURS = SchemaValidator(schema())


def agree(document):
    reference_ok = REFERENCE.is_valid(document)
    ours_ok = OURS.first_error(document) is None
    assert reference_ok == ours_ok, (reference_ok, OURS.first_error(document), json.dumps(document)[:300])
    return ours_ok


def test_schema_is_valid_2020_12():
    jsonschema.Draft202012Validator.check_schema(schema())


def test_honest_certificates_are_valid(dead_certificates):
    for certificate in dead_certificates.values():
        assert agree(certificate)


REPLACEMENTS = [None, True, False, 0, 1, -1, 2**70, 1.5, "", "x", "1/2", "0.5e-3", "1e", "-0", "01", [], {},
                {"statement": "s", "scope": "box"}, {"statement": "s", "scope": "box", "lo": "1"},
                {"statement": "s", "scope": "box", "exact": "1", "lo": "1"}, {"at_0": "1", "elsewhere": "2"},
                "certify/1", "dead", "box", "base_point", 13, 53, 8192, 8193, "a" * 1001]


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))


def replaced(document, path, value):
    document = copy.deepcopy(document)
    if not path:
        return value
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def deleted(document, path):
    document = copy.deepcopy(document)
    node = document
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return document


def test_every_single_replacement_agrees(dead_certificates):
    certificate = dead_certificates[13]
    rng = random.Random(0)
    count = invalid = 0
    for path in paths(certificate):
        for value in rng.sample(REPLACEMENTS, 8):
            count += 1
            invalid += not agree(replaced(certificate, path, value))
        if path:
            count += 1
            invalid += not agree(deleted(certificate, path))
    assert count > 500 and invalid > count // 2


def test_added_keys_agree(dead_certificates):
    certificate = dead_certificates[5]
    for path in paths(certificate):
        target = certificate
        for key in path:
            target = target[key]
        if isinstance(target, dict):
            assert not agree(replaced(certificate, path + ("unexpected",), "1"))


def test_unknown_keywords_are_refused():
    with pytest.raises(ValueError, match="not implemented"):
        SchemaValidator({"type": "object", "patternProperties": {"^a": True}})


def test_dollar_is_the_end_of_input_as_in_ecma_262():
    # Python's $ matches before a final newline; JSON Schema's does not: "0.247\n" is not a number
    validator = SchemaValidator({"type": "string", "pattern": "^[0-9.]+$"})
    assert validator.first_error("0.247") is None
    assert validator.first_error("0.247\n") is not None


def test_messages_survive_deep_nesting(dead_certificates):
    # nested just below the JSON parser's limit, the message must not recurse through repr
    deep = 0
    for _ in range(990):
        deep = [deep]
    certificate = copy.deepcopy(dead_certificates[5])
    certificate["p"] = deep
    error = OURS.first_error(certificate)
    assert error == ("p", "an array of 1 items is not of type 'integer'")


def test_empty_components_and_odd_versions_are_refused(dead_certificates):
    certificate = copy.deepcopy(dead_certificates[5])
    certificate["claims"]["hitting_time"]["components"] = {}
    assert OURS.first_error(certificate) is not None
    for version in ("0.1.0\n", "\\input{x}", "", "a" * 65, "1 2"):
        certificate = copy.deepcopy(dead_certificates[5])
        certificate["software"]["certify"] = version
        assert OURS.first_error(certificate) is not None, version


def test_out_of_range_integers_are_not_printed_whole(dead_certificates):
    for p in (-int("9" * 4299), int("9" * 4299)):
        certificate = copy.deepcopy(dead_certificates[5])
        certificate["p"] = p
        where, message = OURS.first_error(certificate)
        assert where == "p" and "a very large integer" in message and len(message) < 100
