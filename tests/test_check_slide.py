"""certify check on Theorem A.1 certificates: untouched ones verify, each claim made false is rejected."""

import copy

import pytest

from conftest import set_claim_path, verdict




@pytest.mark.parametrize("p", [5, 13, 101])
def test_untouched_slide_certificate_is_verified(slide_certificates, p):
    result = verdict(slide_certificates[p])
    assert result.status == "verified", result.message



FALSE_CLAIMS = [
    (("region_box", "components", "x_minus_X", "lo"), "5.5"),
    (("region_box", "components", "gamma_minus_gamma_star", "lo"), "0.5"),
    (("region_box", "components", "cross_gates", "lo"), "12"),
    (("admissibility", "hi"), "0.7"),
    (("capture_time", "lo"), "1e562"),
    (("capture_time", "log10_hi"), "561"),
    (("capture_invariants", "components", "after_capture", "exact"), "0"),
    (("capture_invariants", "components", "before_capture", "exact"), "676"),
    (("kappa", "hi"), "2.65"),
    (("limit_direction", "components", "w_at_0", "lo"), "0.7"),
    (("limit_direction", "components", "u_elsewhere", "hi"), "-0.2"),
    (("limit_fourier_fraction", "exact"), "0.2"),
    (("limit_loss", "lo"), "2.6"),
    (("gaussian_probability", "log10_lo"), "-1000"),
]


@pytest.mark.parametrize("path, value", FALSE_CLAIMS)
def test_each_false_slide_claim_is_rejected(slide_certificates, path, value):
    document = copy.deepcopy(slide_certificates[13])
    set_claim_path(document, path, value)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(path[0] + ":"), result.message


def test_widened_slide_claims_are_accepted(slide_certificates):
    document = copy.deepcopy(slide_certificates[13])
    set_claim_path(document, ("capture_time", "log10_lo"), "561")
    set_claim_path(document, ("capture_time", "lo"), "1e561")
    set_claim_path(document, ("kappa", "hi"), "3")
    set_claim_path(document, ("admissibility", "hi"), "0.99")
    set_claim_path(document, ("region_box", "components", "x_minus_X", "lo"), "1")
    assert verdict(document).status == "verified"


def test_admissibility_at_one_is_rejected(slide_certificates):
    document = copy.deepcopy(slide_certificates[13])
    set_claim_path(document, ("admissibility", "hi"), "1")
    result = verdict(document)
    assert result.status == "rejected" and "must be below 1" in result.message


@pytest.mark.parametrize("mutate, claim", [
    (lambda d: d.__setitem__("radius", "0.6"), "region_box"),
    (lambda d: d["base_point"]["w"].__setitem__("at_0", "27"), "base_point"),
    (lambda d: d["parameters"].__setitem__("X", "4"), "parameters"),
    (lambda d: d.__setitem__("p", 11), "base_point"),
    (lambda d: d["claims"]["limit_direction"]["components"].pop("w_at_0"), "limit_direction"),
])
def test_tampered_inputs_are_rejected(slide_certificates, mutate, claim):
    document = copy.deepcopy(slide_certificates[13])
    mutate(document)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(claim + ":"), result.message


def test_slide_claim_ids_are_closed(slide_certificates):
    document = copy.deepcopy(slide_certificates[5])
    document["claims"]["hitting_time"] = document["claims"]["kappa"]
    assert verdict(document).status == "malformed"
