"""certify check on Theorem A.3 and A.4 certificates: each claim made false once is rejected."""

import copy

import pytest

from conftest import set_claim_path, verdict





def test_untouched_gd_certificates_are_verified(gd_certificates):
    for key, certificate in gd_certificates.items():
        result = verdict(certificate)
        assert result.status == "verified", (key, result.message)


def test_untouched_smooth_certificates_are_verified(smooth_certificates):
    for p, certificate in smooth_certificates.items():
        result = verdict(certificate)
        assert result.status == "verified", (p, result.message)


GD_FALSE = [
    (("single_active_gate", "lo"), "0.01"),
    (("one_step_death_box", "components", "central_gate", "hi"), "-0.001"),
    (("one_step_death_box", "components", "cross_gates", "hi"), "-0.99"),
    (("one_step_death_box", "components", "off_cross_gates", "hi"), "-1.999"),
    (("w_step_box", "hi"), "0.0002"),
    (("purity_gap_box", "lo"), "0.79"),
    (("terminal_fourier_fraction", "exact"), "0.2"),
    (("gaussian_probability", "log10_lo"), "-98"),
    (("gaussian_probability", "lo"), "1e-98"),
]


@pytest.mark.parametrize("path, value", GD_FALSE)
def test_each_false_gd_claim_is_rejected(gd_certificates, path, value):
    document = copy.deepcopy(gd_certificates[(13, (1, 1))])
    set_claim_path(document, path, value)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(path[0] + ":"), result.message


SMOOTH_FALSE = [
    (("single_active_gate", "lo"), "0.1"),
    (("dead_zone_integral", "lo"), "0.38"),
    (("dead_zone_integral", "hi"), "0.37"),
    (("g_condition", "lo"), "1.6"),
    (("terminal_displacement_box", "hi"), "0.29"),
    (("purity_gap_box", "lo"), "0.031"),
    (("terminal_fourier_fraction", "exact"), "1/12"),
    (("gaussian_probability", "log10_lo"), "-33"),
]


@pytest.mark.parametrize("path, value", SMOOTH_FALSE)
def test_each_false_smooth_claim_is_rejected(smooth_certificates, path, value):
    document = copy.deepcopy(smooth_certificates[13])
    set_claim_path(document, path, value)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(path[0] + ":"), result.message


def test_widened_claims_are_accepted(gd_certificates, smooth_certificates):
    document = copy.deepcopy(gd_certificates[(13, (1, 1))])
    set_claim_path(document, ("one_step_death_box", "components", "central_gate", "hi"), "-0.0001")
    set_claim_path(document, ("purity_gap_box", "lo"), "0.5")
    assert verdict(document).status == "verified"
    document = copy.deepcopy(smooth_certificates[13])
    set_claim_path(document, ("dead_zone_integral", "lo"), "0.3")
    set_claim_path(document, ("dead_zone_integral", "hi"), "0.4")
    set_claim_path(document, ("terminal_displacement_box", "hi"), "1")
    assert verdict(document).status == "verified"


def test_death_at_zero_is_not_death(gd_certificates):
    document = copy.deepcopy(gd_certificates[(13, (1, 1))])
    set_claim_path(document, ("one_step_death_box", "components", "central_gate", "hi"), "0")
    result = verdict(document)
    assert result.status == "rejected" and "must be below 0" in result.message


@pytest.mark.parametrize("theorem, mutate, claim", [
    ("gd", lambda d: d["parameters"].__setitem__("eta", "0.001"), "parameters"),
    ("gd", lambda d: d.__setitem__("radius", "0.00543"), "one_step_death_box"),
    ("gd", lambda d: d["base_point"]["u"].__setitem__("at_0", "0.006"), "base_point"),
    ("smooth", lambda d: d["parameters"].__setitem__("eps_smooth", "3"), "dead_zone_integral"),
    ("smooth", lambda d: d.__setitem__("radius", "0.3"), "single_active_gate"),
    ("smooth", lambda d: d["base_point"]["w"].__setitem__("at_0", "-3"), "base_point"),
])
def test_tampered_inputs_are_rejected(gd_certificates, smooth_certificates, theorem, mutate, claim):
    document = copy.deepcopy(gd_certificates[(13, (1, 1))] if theorem == "gd" else smooth_certificates[13])
    mutate(document)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(claim + ":"), result.message
