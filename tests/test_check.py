"""certify.check: accepts honest certificates, rejects tampered ones naming the claim."""

import copy
import json

import pytest

from conftest import verdict

from certify.certificate import dumps, parse_certificate
from certify.check import check_bytes
from certify.kernel.exact import format_decimal



def shifted(text, relative):
    """text * (1 + relative), as an exact decimal string."""
    from fractions import Fraction

    value = Fraction(text) * (1 + Fraction(relative))
    scaled = value * 10**60
    return format_decimal(int(scaled), -60)


@pytest.mark.parametrize("p", [5, 13, 101])
def test_untouched_certificate_is_verified(dead_certificates, p):
    result = verdict(dead_certificates[p])
    assert result.status == "verified", result.message
    assert result.exit_code == 0


def test_interval_widened_outward_is_accepted(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    claim = document["claims"]["hitting_time"]
    claim["lo"], claim["hi"] = "45.9", "46.1"
    document["claims"]["purity_gap_box"]["lo"] = "1e-9"
    # the pair lo / log10_lo must state one number: widen both together
    document["claims"]["gaussian_probability"]["lo"] = "1e-40"
    document["claims"]["gaussian_probability"]["log10_lo"] = "-40"
    document["claims"]["hitting_time_box"]["hi"] = "1000"
    assert verdict(document).status == "verified"


def test_hitting_time_narrowed_to_exclude_T_is_rejected(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    claim = document["claims"]["hitting_time"]
    claim["lo"] = shifted(claim["hi"], "1e-30")   # the whole stored interval lies above T
    claim["hi"] = shifted(claim["hi"], "2e-30")
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith("hitting_time:")
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["hitting_time"]["hi"] = shifted(document["claims"]["hitting_time"]["lo"], "1e-40")
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith("hitting_time:")


@pytest.mark.parametrize("p, radius, claim", [(13, "0.3", "single_active_gate"), (101, "0.17", "purity_gap_box"),
                                              (13, "0.25", "single_active_gate")])
def test_radius_enlarged_is_rejected(dead_certificates, p, radius, claim):
    document = copy.deepcopy(dead_certificates[p])
    document["radius"] = radius
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(claim + ":"), result.message


def test_radius_enlarged_slightly_still_rejected(dead_certificates):
    """Within the certifiable range but larger: the stored box claims no longer hold."""
    document = copy.deepcopy(dead_certificates[13])
    document["radius"] = "0.248"
    result = verdict(document)
    assert result.status == "rejected"


@pytest.mark.parametrize("p", [11, 17, 12, 4, 3])
def test_changed_p_is_rejected(dead_certificates, p):
    document = copy.deepcopy(dead_certificates[13])
    document["p"] = p
    result = verdict(document)
    assert result.status == "rejected", result.message


@pytest.mark.parametrize("block, level, value", [("u", "at_0", "0.6"), ("w", "at_0", "-2.5"),
                                                 ("v", "elsewhere", "-1.1"), ("w", "elsewhere", "0.1")])
def test_changed_base_point_is_rejected(dead_certificates, block, level, value):
    document = copy.deepcopy(dead_certificates[13])
    document["base_point"][block][level] = value
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith("base_point:")


def test_changed_parameters_are_rejected(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    document["parameters"]["A"] = "3"  # base point no longer the construction
    assert verdict(document).message.startswith("base_point:")
    document = copy.deepcopy(dead_certificates[13])
    document["parameters"]["B"] = "0.5"
    document["base_point"]["u"]["elsewhere"] = document["base_point"]["v"]["elsewhere"] = "-0.5"
    result = verdict(document)
    assert result.status == "rejected" and "B > epsilon/2" in result.message


@pytest.mark.parametrize("claim, key, value", [
    ("terminal_fourier_fraction", "exact", "0.2"),
    ("balance_invariant", "exact", "20"),
    ("purity_gap_box", "lo", "0.5"),
    ("gaussian_probability", "lo", "1e-10"),
    ("gaussian_probability", "log10_lo", "-10"),
    ("transversality_margin_box", "lo", "0.02"),
    ("terminal_w_displacement_box", "hi", "0.1"),
    ("single_active_gate", "lo", "0.03"),
    ("terminal_loss", "hi", "2.5"),
    ("hitting_time_box", "lo", "40"),
])
def test_false_claims_are_rejected(dead_certificates, claim, key, value):
    document = copy.deepcopy(dead_certificates[13])
    document["claims"][claim][key] = value
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(claim + ":"), result.message
    assert result.exit_code == 1


def test_a_positive_claim_widened_to_zero_is_rejected(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["purity_gap_box"]["lo"] = "0"
    result = verdict(document)
    assert result.status == "rejected" and "must exceed 0" in result.message


def test_statement_and_scope_are_part_of_the_claim(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["hitting_time"]["statement"] = "T is small"
    assert verdict(document).status == "rejected"
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["hitting_time"]["scope"] = "box"
    assert verdict(document).status == "rejected"


def test_claim_bounds_it_does_not_prove_are_rejected(dead_certificates):
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["purity_gap_box"]["hi"] = "1"
    result = verdict(document)
    assert result.status == "rejected" and "does not prove" in result.message


@pytest.mark.parametrize("mutate", [
    lambda d: d["claims"].pop("hitting_time"),
    lambda d: d.__setitem__("extra", 1),
    lambda d: d["claims"]["hitting_time"].__setitem__("note", "x"),
    lambda d: d["claims"].__setitem__("bogus", {"statement": "x", "scope": "box", "lo": "1"}),
    lambda d: d.__setitem__("radius", 0.24),
    lambda d: d["claims"]["hitting_time"].__setitem__("lo", 45.99),
    lambda d: d.__setitem__("p", "13"),
    lambda d: d.__setitem__("format", "certify/2"),
    lambda d: d["claims"]["hitting_time"].__setitem__("exact", "46"),
    lambda d: d["parameters"].__setitem__("C", "1"),
])
def test_schema_violations_are_malformed(dead_certificates, mutate):
    document = copy.deepcopy(dead_certificates[13])
    mutate(document)
    result = verdict(document)
    assert result.status == "malformed" and result.exit_code == 2, result.message
    assert "\n" not in result.message


@pytest.mark.parametrize("data", [b"", b"{", b"not json", b"\xff\xfe\x00junk", b"[1, 2]", b'{"format": NaN}',
                                  b'{"p": Infinity}', b'{"a": 1, "a": 2}', b"[" * 100000 + b"]" * 100000,
                                  b'{"p": 1.5}', b" " * (2 << 20)])
def test_malformed_input_is_refused(data):
    result = check_bytes(data)
    assert result.status == "malformed" and result.exit_code == 2
    assert "\n" not in result.message


def test_check_stream_reads_once_and_caps_the_input(dead_certificates):
    """check_stream: the same verdict as check_bytes for the same bytes; a stream over MAX_CERTIFICATE_BYTES is
    malformed after reading at most one byte more than the cap; a closed stream is malformed, not a crash."""
    import io

    from certify.certificate import MAX_CERTIFICATE_BYTES
    from certify.check import check_stream, read_certificate_stream

    data = dumps(dead_certificates[5]).encode()
    assert check_stream(io.BytesIO(data)).message == check_bytes(data).message
    assert check_stream(io.BytesIO(data)).status == "verified"
    big = io.BytesIO(b" " * (MAX_CERTIFICATE_BYTES + 100))
    result = check_stream(big)
    assert result.status == "malformed" and "over 1048576 bytes" in result.message
    assert big.tell() == MAX_CERTIFICATE_BYTES + 1
    assert read_certificate_stream(io.BytesIO(b" " * MAX_CERTIFICATE_BYTES)) == b" " * MAX_CERTIFICATE_BYTES
    closed = io.BytesIO(data)
    closed.close()
    result = check_stream(closed)
    assert result.status == "malformed" and "cannot read" in result.message and "\n" not in result.message


def test_certificate_round_trips_through_parse(dead_certificates):
    text = dumps(dead_certificates[7])
    assert dumps(parse_certificate(text)) == text
    assert json.loads(text) == dead_certificates[7]


def test_verdicts_do_not_depend_on_what_was_checked_before(dead_certificates, smooth_certificates):
    """An end within ulps of the recomputation: the verdict was 'rejected' alone and 'verified' after a
    smooth check at 192 bits had warmed Arb's caches (found by the grammar fuzz). fresh_state fixes it."""
    document = copy.deepcopy(dead_certificates[13])
    document["claims"]["hitting_time"]["hi"] = \
        "45.9932965048089005196448807846051735707578941164593103778688063933167"
    alone = verdict(document)
    warm = copy.deepcopy(smooth_certificates[5])
    warm["precision_bits"] = 192
    assert verdict(warm).status == "verified"
    assert verdict(document) == alone


def test_fresh_state_clears_kernel_caches(smooth_certificates):
    """fresh_state empties the functools caches of the kernel (e_n of the slide region), and keeps the memos
    (certify.kernel.memo) whose values are stated on a coarse grid: smooth's J, rounded outward."""
    from certify.kernel.region_slide import _expected_maximum, expected_maximum_upper
    from certify.kernel.smooth import dead_zone_integral
    from certify.kernel.state import fresh_state

    assert verdict(smooth_certificates[5]).status == "verified"
    expected_maximum_upper(4, 64)
    assert _expected_maximum.cache_info().currsize > 0
    before = dead_zone_integral(1, 2, 128)
    fresh_state()
    assert _expected_maximum.cache_info().currsize == 0
    assert dead_zone_integral(1, 2, 128) is before
