"""Red-team forgeries of the newest fields and records, each refused by ``certify check`` (so that it stays refused).

The records ``twin_above``, ``twin``, ``twin_plus`` and ``staircase`` (k = 2) at p = 5: their region_probability of
(S.40) (the widened box and its translates along the two invariant lines, docs/staircase.md 11.14-11.15),
twin_above's g, t, h, the staircase's X, s, D, E and k, the words (statements, paper), the JSON structure, and the
kinds of file ``certify check`` is given. Every forgery must come back rejected or malformed (never verified, never
an internal error) with the one-line message asserted here.

Each honest certificate is built once (the staircase at explicit parameters, not the builder's search); every check
runs in process through :func:`certify.check.check_bytes` or :func:`certify.check.check_file`.
"""

from __future__ import annotations

import copy
import json
import os
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from functools import lru_cache

import pytest

from certify.certificate import block_to_json, dumps
from certify.check import check_bytes, check_file
from certify.kernel.exact import parse_rational
from certify.kernel.registry import kernel_for
from certify.theorems.staircase import certify_staircase
from certify.theorems.twin import certify_twin
from certify.theorems.twin_above import certify_twin_above
from certify.theorems.twin_plus import certify_twin_plus

RECORDS = ("twin_above", "twin", "twin_plus", "staircase")


@lru_cache(maxsize=None)
def _honest_text(record: str) -> str:
    if record == "twin_above":
        instance = certify_twin_above(5)
    elif record == "twin":
        instance = certify_twin(5)
    elif record == "twin_plus":
        instance = certify_twin_plus(5)
    else:  # explicit parameters: the builder's search (and its table) may change, the forgeries should not
        instance = certify_staircase(5, X="9/2", s="579/1000", D="2/5", E="25/4")
    return dumps(instance.certificate)


def honest(record: str) -> dict:
    return json.loads(_honest_text(record))


def verdict_of(document_or_bytes, source: str = "forged.json"):
    data = document_or_bytes if isinstance(document_or_bytes, bytes) else dumps(document_or_bytes).encode()
    return check_bytes(data, source)


def assert_refused(verdict, status: str, pattern: str) -> None:
    """The verdict is ``status`` (rejected or malformed), its message one line matching ``pattern``."""
    assert verdict.status == status, (verdict.status, verdict.message)
    assert "\n" not in verdict.message and "Traceback" not in verdict.message
    assert re.search(pattern, verdict.message), verdict.message


def rebase(document: dict) -> None:
    """Rewrite the base point as the construction of the stated parameters (so that only the claims can refuse)."""
    kernel = kernel_for(document["theorem"])
    values = {name: parse_rational(document["parameters"][name], name) for name in kernel.parameter_names}
    params = kernel.make_parameters(document["p"], values)
    document["base_point"] = {name: block_to_json(block, name)
                              for name, block in kernel.base_point(params).blocks().items()}


def _decimal_text(value: Decimal) -> str:
    """The canonical certify/1 spelling of a positive Decimal d.ddd...e-N."""
    sign, digits, exponent = value.normalize().as_tuple()
    text = "".join(map(str, digits))
    power = exponent + len(text) - 1
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{mantissa}e{power}" if power else mantissa


def _log10_floor(value: Decimal, decimals: int) -> str:
    with localcontext() as ctx:
        ctx.prec = 80
        log = value.log10().quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_FLOOR)
    text = format(log, "f").rstrip("0").rstrip(".")
    return text


def scaled_region(document: dict, factor: str) -> None:
    """Set region_probability's lo to lo x factor (rounded up to 50 digits) and log10_lo to agree with it."""
    claim = document["claims"]["region_probability"]
    with localcontext() as ctx:
        ctx.prec = 50
        ctx.rounding = ROUND_CEILING
        lo = Decimal(claim["lo"]) * Decimal(factor)
    claim["lo"] = _decimal_text(lo)
    claim["log10_lo"] = _log10_floor(lo, 30)


# --- the region bound of (S.40) -------------------------------------------------------------------------------

@pytest.mark.parametrize("record", RECORDS)
def test_honest_certificates_verify(record):
    verdict = verdict_of(honest(record))
    assert verdict.status == "verified", verdict.message


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("factor", ["1.00000000000000000001", "1.0001", "1.05", "2"])
def test_region_bound_above_the_proved_one(record, factor):
    """lo a hair (10^-20 relatively) to 2 times above the stored bound, with a log10_lo that agrees with it: above the
    recomputed (S.40) bound (the stored one is within about 10^-27 of it)."""
    document = honest(record)
    scaled_region(document, factor)
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: lo = \S+ is not below the recomputed enclosure")


@pytest.mark.parametrize("record", RECORDS)
def test_region_log10_raised_alone(record):
    """log10_lo one decade above lo's (a whole number, so the pair's unit is 1): above the recomputed log10 bound."""
    document = honest(record)
    claim = document["claims"]["region_probability"]
    claim["log10_lo"] = str(int(Decimal(claim["log10_lo"]).to_integral_value(rounding=ROUND_CEILING)) + 1)
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: log10_lo = -?\d+ is not below the recomputed enclosure")


@pytest.mark.parametrize("record", RECORDS)
def test_region_log10_disagrees_with_lo(record):
    document = honest(record)
    claim = document["claims"]["region_probability"]
    claim["log10_lo"] = _log10_floor(Decimal(claim["lo"]) / 10, 30)  # a true bound, but not lo's digits
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: lo = \S+ and log10_lo = \S+ do not state the same number")


@pytest.mark.parametrize("record", RECORDS)
def test_region_lo_negative(record):
    document = honest(record)
    document["claims"]["region_probability"].update(lo="-1e-23", log10_lo="-200")
    assert_refused(verdict_of(document), "rejected", r"^region_probability: .*(must exceed 0|do not state the same)")


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("key, value, pattern", [
    ("hi", "1", r"^region_probability: it states hi, which it does not prove$"),
    ("log10_hi", "-1.5", r"^region_probability: it states log10_hi, which it does not prove$"),
    ("components", {"translates": {"lo": "1"}}, r"^region_probability: states components, but this claim has none$"),
    ("scope", "box", r"^region_probability: scope 'box' should be 'region'$"),
])
def test_region_extra_fields(record, key, value, pattern):
    document = honest(record)
    document["claims"]["region_probability"][key] = value
    assert_refused(verdict_of(document), "rejected", pattern)


@pytest.mark.parametrize("record", RECORDS)
def test_region_missing_log10(record):
    document = honest(record)
    del document["claims"]["region_probability"]["log10_lo"]
    assert_refused(verdict_of(document), "rejected", r"^region_probability: it is missing log10_lo$")


# --- words ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("edit", [
    lambda text: text + " ",
    lambda text: text.replace("sigma = 1,", "sigma = 2,"),
    lambda text: text.replace("pi sigma^2/(2 sqrt(2) p r^2)", "pi sigma^2/(sqrt(2) p r^2)"),
    lambda text: text.replace("4 sigma", "40 sigma"),
    lambda text: text.replace("meet in null sets only", "are disjoint"),
    lambda text: text.replace("sigma", "s\u0456gma", 1),  # a Cyrillic i
], ids=["space", "sigma", "factor", "tail_depth", "disjoint", "homoglyph"])
def test_region_statement_words(record, edit):
    document = honest(record)
    claim = document["claims"]["region_probability"]
    claim["statement"] = edit(claim["statement"])
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: statement differs from the kernel's statement of this claim$")


@pytest.mark.parametrize("record, other", [("twin_above", "twin_plus"), ("twin", "twin_above"),
                                           ("twin_plus", "twin"), ("staircase", "twin_above")])
def test_claims_and_paper_of_another_record(record, other):
    document, foreign = honest(record), honest(other)
    region = copy.deepcopy(document)
    region["claims"]["region_probability"] = foreign["claims"]["region_probability"]
    assert_refused(verdict_of(region), "rejected",
                   r"^region_probability: statement differs from the kernel's statement of this claim$")
    paper = copy.deepcopy(document)
    paper["paper"] = foreign["paper"]
    assert_refused(verdict_of(paper), "rejected",
                   r"^paper: does not match the kernel's statement of the theorem instantiated$")


def test_paper_equation_changed():
    document = honest("twin_above")
    document["paper"] = document["paper"].replace("(S.40)", "(S.41)")
    assert_refused(verdict_of(document), "rejected", r"^paper: does not match")


def test_gaussian_statement_of_another_record():
    document = honest("twin_above")
    document["claims"]["gaussian_probability"]["statement"] = honest("twin")["claims"]["gaussian_probability"]["statement"]
    assert_refused(verdict_of(document), "rejected", r"^gaussian_probability: statement differs")


@pytest.mark.parametrize("record", RECORDS)
def test_sigma_changed_without_its_words(record):
    document = honest(record)
    document["parameters"]["sigma"] = "2"
    assert_refused(verdict_of(document), "rejected", r"^\w+: statement differs from the kernel's statement")


def test_sigma_changed_with_its_words():
    """sigma = 2 with every statement saying so: the twin_above box's mass changes, and the stored one is refused."""
    document = honest("twin_above")
    document["parameters"]["sigma"] = "2"
    for claim in document["claims"].values():
        claim["statement"] = claim["statement"].replace("sigma = 1,", "sigma = 2,")
    assert_refused(verdict_of(document), "rejected",
                   r"^gaussian_probability: lo = \S+ is not below the recomputed enclosure")


# --- twin_above's g, t, h and radius -----------------------------------------------------------------------------

def _with_parameter(name: str, value: str, record: str = "twin_above", keep_base_point: bool = False) -> dict:
    document = honest(record)
    if name in ("p", "radius"):
        document[name] = value
    else:
        document["parameters"][name] = value
    if not keep_base_point:
        rebase(document)
    return document


def _shifted(text: str, delta: str) -> str:
    """The canonical text of the number ``text`` plus the fraction ``delta`` (e.g. "-1/1000")."""
    from fractions import Fraction

    from flint import fmpq

    from certify.kernel.exact import canonical_text

    value = Fraction(text) + Fraction(delta)
    return canonical_text(fmpq(value.numerator, value.denominator))


@pytest.mark.parametrize("value, pattern", [
    ("-0.001", r"^parameters: g >= 0 fails: g = -0\.001"),
    ("1e50", r"^parameters: the base point is not in U_II\^above"),
])
def test_twin_above_g_out_of_its_range(value, pattern):
    assert_refused(verdict_of(_with_parameter("g", value)), "rejected", pattern)


def test_twin_above_g_lowered():
    """A smaller g: a narrower box B_{r,g}, whose widened mass is below the stored region bound."""
    document = honest("twin_above")
    if not parse_rational(document["parameters"]["g"], "g") > 0:  # the builder's search chose g = 0: give one
        document = json.loads(dumps(certify_twin_above(5, g="0.0108").certificate))
    document["parameters"]["g"] = "0"
    rebase(document)
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: lo = \S+ is not below the recomputed enclosure")


@pytest.mark.parametrize("delta", ["1/10000", "1/100"])
def test_twin_above_g_raised(delta):
    """A larger g: the w(j) move farther, and gamma_min (or a margin of (S.36)) is refused."""
    g = honest("twin_above")["parameters"]["g"]
    verdict = verdict_of(_with_parameter("g", _shifted(g, delta)))
    assert_refused(verdict, "rejected", r"^(pattern_box|capture_box|capture_time_box|window_box|purity_margin_box|loss_excess_box): ")


@pytest.mark.parametrize("name", ["t", "h", "e", "d", "E", "X"])
@pytest.mark.parametrize("sign", ["+", "-"])
def test_twin_above_other_parameters_moved(name, sign):
    value = honest("twin_above")["parameters"][name]
    delta = ("" if sign == "+" else "-") + "1/1000"
    verdict = verdict_of(_with_parameter(name, _shifted(value, delta)))
    assert_refused(verdict, "rejected", r"^(parameters|pattern_box|loss_excess_box|window_box|capture_box|"
                                        r"capture_time_box|purity_margin_box|gaussian_probability|region_probability): ")


@pytest.mark.parametrize("name", ["g", "t", "h"])
def test_twin_above_parameter_moved_base_point_kept(name):
    """t moves the base point's tails: the stored base point is then not the construction; g and h do not move it,
    and a claim is refused instead."""
    value = honest("twin_above")["parameters"][name]
    verdict = verdict_of(_with_parameter(name, _shifted(value, "1/1000"), keep_base_point=True))
    if name == "t":
        assert_refused(verdict, "rejected", r"^base_point: u\.elsewhere is \S+ but the construction of the stated "
                                            r"parameters gives \S+$")
    else:
        assert_refused(verdict, "rejected", r"^\w+: ")


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("sign", ["+", "-"])
def test_radius_moved(record, sign):
    """A larger radius breaks a box margin; a smaller one the box's Gaussian mass (or the region bound)."""
    radius = honest(record)["radius"]
    digits = Decimal(radius).as_tuple()
    unit = Decimal(1).scaleb(digits.exponent)
    moved = Decimal(radius) + (unit if sign == "+" else -unit)
    verdict = verdict_of(_with_parameter("radius", format(moved.normalize(), "f"), record))
    assert_refused(verdict, "rejected", r"^\w+: ")


@pytest.mark.parametrize("value, pattern", [("0", r"^radius: the radius must be positive, got 0$"),
                                            ("-0.001", r"^radius: the radius must be positive, got -0\.001$")])
def test_radius_not_positive(value, pattern):
    assert_refused(verdict_of(_with_parameter("radius", value)), "rejected", pattern)


def test_twin_above_without_g():
    document = honest("twin_above")
    del document["parameters"]["g"]
    assert_refused(verdict_of(document), "malformed", r"^schema: at parameters: 'g' is a required property$")


# --- the staircase's X, s, D, E, k and p ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["X", "s", "D", "E"])
@pytest.mark.parametrize("sign", ["+", "-"])
def test_staircase_parameters_moved(name, sign):
    value = honest("staircase")["parameters"][name]
    delta = ("" if sign == "+" else "-") + "1/100"
    verdict = verdict_of(_with_parameter(name, _shifted(value, delta), "staircase"))
    assert_refused(verdict, "rejected", r"^(parameters|pattern_box|loss_margin_box|purity_margin_box|"
                                        r"gaussian_probability|region_probability): ")


@pytest.mark.parametrize("name", ["X", "s", "D", "E"])
def test_staircase_parameter_moved_base_point_kept(name):
    value = honest("staircase")["parameters"][name]
    verdict = verdict_of(_with_parameter(name, _shifted(value, "1/100"), "staircase", keep_base_point=True))
    assert_refused(verdict, "rejected", r"^base_point: [uvw]\.\w+ is \S+ but the construction of the stated "
                                        r"parameters gives \S+$")


@pytest.mark.parametrize("value", ["1", "3", "-2"])
def test_staircase_k_not_two(value):
    verdict = verdict_of(_with_parameter("k", value, "staircase"))
    assert_refused(verdict, "rejected", rf"^parameters: k = {value} is not Theorem S's")


@pytest.mark.parametrize("value", ["2.0", "4/2"])
def test_staircase_k_spelled_otherwise(value):
    document = honest("staircase")
    document["parameters"]["k"] = value
    assert_refused(verdict_of(document), "malformed",
                   r"^parameters/k: '\S+' is not canonical: certify/1 spells this number '2'$")


def test_misspelled_radius_and_level_name_their_field():
    """A non-canonical radius or base-point level is refused with a message naming the field (it did not)."""
    document = honest("staircase")
    document["radius"] = document["radius"] + "0"
    assert_refused(verdict_of(document), "malformed", r"^radius: '\S+' is not canonical: certify/1 spells this number")
    document = honest("staircase")
    name, level = next((name, level) for name, levels in document["base_point"].items()
                       for level, text in levels.items() if re.fullmatch(r"-?\d+(\.\d+)?", text))
    text = document["base_point"][name][level]
    document["base_point"][name][level] = text + "0" if "." in text else text + ".0"  # the same value, misspelled
    assert_refused(verdict_of(document), "malformed",
                   rf"^base_point/{name}/{level}: '\S+' is not canonical: certify/1 spells this number")


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("p, pattern", [(7, r"^(parameters|\w+_box|gaussian_probability|region_probability): "),
                                        (4, r"^p: p = 4 is not a prime"), (9, r"^p: p = 9 is not prime"),
                                        (3, r"^p: p = 3: the theorems need a prime p >= 5")])
def test_prime_changed(record, p, pattern):
    verdict = verdict_of(_with_parameter("p", p, record))
    assert_refused(verdict, "rejected", pattern)


def test_claims_of_another_prime():
    document, other = honest("staircase"), json.loads(dumps(certify_staircase(
        7, X="63/10", s="52/125", D="2/5", E="56/5").certificate))
    other["claims"] = document["claims"]
    assert_refused(verdict_of(other), "rejected", r"^pattern_box: active_gates: lo = \S+ is not below")


# --- structure ---------------------------------------------------------------------------------------------------

def _raw(record: str = "twin_above") -> str:
    return _honest_text(record)


@pytest.mark.parametrize("make, status, pattern", [
    (lambda t: t.replace('"p": 5,', '"p": 5,\n  "p": 7,'), "malformed", r"^duplicate key in a JSON object$"),
    (lambda t: t.replace('"scope": "region",', '"scope": "region",\n      "scope": "region",'), "malformed",
     r"^duplicate key in a JSON object$"),
    (lambda t: t.replace('"p": 5', '"p": NaN'), "malformed", r"^JSON constant NaN is not allowed$"),
    (lambda t: t.replace('"precision_bits": 128', '"precision_bits": Infinity'), "malformed",
     r"^JSON constant Infinity is not allowed$"),
    (lambda t: t.replace('"p": 5', '"p": 5.0'), "malformed", r"^JSON number 5\.0 is a float"),
    (lambda t: t.replace('"p": 5', '"p": 5e0'), "malformed", r"^JSON number 5e0 is a float"),
    (lambda t: t.replace('"p": 5', '"p": "5"'), "malformed", r"^schema: at p: '5' is not of type 'integer'$"),
    (lambda t: t.replace('"p": 5', '"p": true'), "malformed", r"^schema: at p: True is not of type 'integer'$"),
    (lambda t: t.replace('"p": 5', '"p": ' + "9" * 5000), "malformed", r"^invalid JSON: Exceeds the limit"),
    (lambda t: t[:-2] + ', "x": ' + "[" * 100000 + "]" * 100000 + "}\n", "malformed", r"^JSON nested too deeply$"),
    (lambda t: t.replace('"paper": "', '"paper": "' + "A" * 900000), "malformed",
     r"^schema: at paper: string longer than 1000 characters$"),
    (lambda t: t.replace('"paper": "', '"paper": "\\ud800'), "rejected", r"^paper: does not match"),
    (lambda t: t.replace('"region_probability": {', '"region_probability\\ud800": {'), "malformed",
     r"^schema: at claims: 'region_probability' is a required property$"),
    (lambda t: t + "{}", "malformed", r"^invalid JSON: Extra data"),
    (lambda t: "", "malformed", r"^invalid JSON: Expecting value"),
    (lambda t: "[]", "malformed", r"^schema: at \(top level\): an array of 0 items is not of type 'object'$"),
    (lambda t: t.replace('"format": "certify/1"', '"format": "certify/2"'), "malformed", r"^schema: at format:"),
    (lambda t: t.replace('"theorem": "twin_above"', '"theorem": "twin_plus"'), "malformed",
     r"^schema: at parameters: property name 'g' is not allowed$"),
    (lambda t: t.replace('"format": "certify/1",', '"format": "certify/1",\n  "note": "x",'), "malformed",
     r"^schema: at \(top level\): additional property 'note' is not allowed$"),
    (lambda t: t.replace('"scope": "region",', '"scope": "region",\n      "units": "probability",'), "malformed",
     r"^schema: at claims/region_probability: additional property 'units' is not allowed$"),
    (lambda t: t.replace('"precision_bits": 128', '"precision_bits": 63'), "malformed",
     r"^schema: at precision_bits: 63 is less than the minimum of 64$"),
], ids=["dup_top", "dup_claim", "nan", "infinity", "float", "float_exp", "p_string", "p_bool", "p_5000_digits",
        "deep_nesting", "long_string", "surrogate_paper", "surrogate_key", "trailing", "empty", "array", "format",
        "theorem", "extra_top", "extra_claim_key", "precision"])
def test_structure(make, status, pattern):
    assert_refused(verdict_of(make(_raw()).encode()), status, pattern)


@pytest.mark.parametrize("encode, pattern", [
    (lambda t: b"\xef\xbb\xbf" + t.encode(), r"^invalid JSON: Unexpected UTF-8 BOM"),
    (lambda t: t.encode("utf-16"), r"^not UTF-8 text \(byte 0\)$"),
    (lambda t: t.encode().replace(b"Proposition S3.4 of", b"Proposition S3.4 \xff of"), r"^not UTF-8 text \(byte \d+\)$"),
], ids=["bom", "utf16", "invalid_byte"])
def test_encodings(encode, pattern):
    assert_refused(verdict_of(encode(_raw())), "malformed", pattern)


@pytest.mark.parametrize("where, value", [("parameters/g", "0.0108\n"), ("radius", "0.00641\n"),
                                          ("parameters/g", "\u0660.0108"), ("parameters/g", "\uff10.0108")])
def test_numbers_with_a_newline_or_other_digits(where, value):
    document = honest("twin_above")
    if where == "radius":
        document["radius"] = value
    else:
        document["parameters"]["g"] = value
    assert_refused(verdict_of(document), "malformed", rf"^schema: at {where}: .* does not match the required form$")


@pytest.mark.parametrize("record", RECORDS)
def test_missing_claim_and_unknown_claim(record):
    document = honest(record)
    del document["claims"]["region_probability"]
    assert_refused(verdict_of(document), "malformed",
                   r"^schema: at claims: 'region_probability' is a required property$")
    document = honest(record)
    unknown = "capture_box" if record == "staircase" else "whole_region_probability"  # another record's claim
    document["claims"][unknown] = document["claims"]["region_probability"]
    assert_refused(verdict_of(document), "malformed",
                   rf"^schema: at claims: property name '{unknown}' is not allowed$")


def test_components_forged():
    document = honest("twin_above")
    document["claims"]["capture_box"]["components"]["translates"] = {"lo": "0.1"}
    assert_refused(verdict_of(document), "rejected",
                   r"^capture_box: components differ: missing \[\], unknown \['translates'\]$")
    document = honest("twin_above")
    components = document["claims"]["capture_box"]["components"]
    components["race"] = components["cone"]
    assert_refused(verdict_of(document), "rejected", r"^capture_box: race: lo = \S+ is not below")
    document = honest("twin_above")
    document["claims"]["pattern_box"]["components"]["gate_11"] = {"exact": "1"}
    assert_refused(verdict_of(document), "rejected",
                   r"^pattern_box: gate_11 states exact, which it does not prove$")


@pytest.mark.parametrize("value, pattern", [("0", r"must exceed 0$"), ("-0.001", r"must exceed 0$"),
                                            ("-1e99999999999999999999999999999999999999999999999999999999999",
                                             r"must exceed 0$")])
def test_capture_race_not_positive(value, pattern):
    document = honest("twin_above")
    document["claims"]["capture_box"]["components"]["race"]["lo"] = value
    assert_refused(verdict_of(document), "rejected", r"^capture_box: race: lo = \S+ " + pattern)


def test_capture_time_below_the_truth():
    document = honest("twin_above")
    claim = document["claims"]["capture_time_box"]
    value = parse_rational(claim["hi"], "hi")
    from certify.kernel.exact import canonical_text
    from flint import fmpq
    claim["hi"] = canonical_text(value - fmpq(1, 10 ** 30))
    assert_refused(verdict_of(document), "rejected",
                   r"^capture_time_box: hi = \S+ is not above the recomputed enclosure")


# --- kinds of file ---------------------------------------------------------------------------------------------------

def test_kinds_of_file(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert_refused(check_file(fifo), "malformed", r"^not a regular file \(a FIFO\)$")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    assert_refused(check_file(folder), "malformed", r"^not a regular file \(a folder\)$")
    assert_refused(check_file("/dev/zero"), "malformed", r"^not a regular file \(a character device\)$")
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    assert_refused(check_file(tmp_path / "a.json"), "malformed", r"^cannot read: Too many levels of symbolic links$")
    assert_refused(check_file(tmp_path / "missing.json"), "malformed", r"^cannot read: No such file or directory$")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1 << 20) + _raw().encode())
    assert_refused(check_file(big), "malformed", r"^file is over 1048576 bytes")


def test_file_name_promises_another_instance(tmp_path, capsys):
    """A file named THEOREM-P.json must hold that theorem at that p (certify check, a file given alone)."""
    from certify.cli import main

    path = tmp_path / "twin_above-7.json"
    path.write_text(_raw())
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "the name twin_above-7.json promises twin_above at p = 7 but the file holds twin_above at p = 5" in err


# --- the region bound against an independent closed form ---------------------------------------------------------------

def _mp(text: str):
    import mpmath as mp
    from fractions import Fraction

    value = Fraction(text)
    return mp.mpf(value.numerator) / value.denominator


def independent_region_log(document: dict):
    """log of (S.40) from the certificate's numbers with mpmath's normal CDF (not the kernel): p^2 (p - 1) P(B+) pi
    sigma^2/(2 sqrt(2) p r^2), B+ the box (the w(j), j >= 2, within r + g) with the tails u(i), v(i), i >= 2, in
    [c - r - 4 sigma, c + r]."""
    import mpmath as mp

    p, r = document["p"], _mp(document["radius"])
    sigma, g = _mp(document["parameters"]["sigma"]), _mp(document["parameters"].get("g", "0"))
    base = document["base_point"]

    def log_mass(low, high):
        return mp.log(mp.ncdf(high / sigma) - mp.ncdf(low / sigma))

    total = mp.mpf(0)
    for block in ("u", "v", "w"):
        for level in ("at_0", "at_1"):
            c = _mp(base[block][level])
            total += log_mass(c - r, c + r)
        c = _mp(base[block]["elsewhere"])
        low, high = (c - r - g, c + r + g) if block == "w" else (c - r - 4 * sigma, c + r)
        total += (p - 2) * log_mass(low, high)
    return total + mp.log(p * p * (p - 1)) + mp.log(mp.pi * sigma ** 2 / (2 * mp.sqrt(2) * p * r * r))


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("relative", ["1e-12", "1e-6"])
def test_region_bound_above_the_independent_formula(record, relative):
    """The stored bound is at most (S.40) computed independently; lo just above that (relatively 10^-12) with an
    agreeing log10_lo is refused."""
    import mpmath as mp

    document = honest(record)
    with mp.workdps(60):
        exact = independent_region_log(document)
        assert mp.mpf(document["claims"]["region_probability"]["lo"]) <= mp.exp(exact)
        forged = Decimal(mp.nstr(mp.exp(exact) * (1 + mp.mpf(relative)), 50))
    claim = document["claims"]["region_probability"]
    with localcontext() as ctx:
        ctx.prec = 50
        ctx.rounding = ROUND_CEILING
        claim["lo"] = _decimal_text(+forged)
    claim["log10_lo"] = _log10_floor(Decimal(claim["lo"]), 30)
    assert_refused(verdict_of(document), "rejected",
                   r"^region_probability: lo = \S+ is not below the recomputed enclosure")
