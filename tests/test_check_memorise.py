"""certify check and certify memorise on Theorem S1 certificates (docs/staircase.md, section 10): untouched ones
verify, each claim made false is rejected, a base point with a level too many is rejected, bad input is one line
and exit 2, and the command is deterministic."""

import copy

import pytest

from conftest import run_certify, set_claim_path, verdict


@pytest.fixture(scope="module")
def memorise_certificates():
    from certify.theorems.memorise import certify_memorise

    return {p: certify_memorise(p).certificate for p in (5, 13, 31)}


@pytest.mark.parametrize("p", [5, 13, 31])
def test_untouched_memorise_certificate_is_verified(memorise_certificates, p):
    result = verdict(memorise_certificates[p])
    assert result.status == "verified", result.message


FALSE_CLAIMS = [  # p = 13 (X = 1, s = 1/4, E = 7.69, r = 0.112): each end moved past what the kernel proves
    (("pattern_box", "components", "active_gate", "lo"), "0.777"),      # X - 2r = 0.776
    (("pattern_box", "components", "boundary_gates", "lo"), "0.027"),   # s - 2r = 0.026
    (("pattern_box", "components", "other_gates", "lo"), "1.277"),      # X + 2s - 2r = 1.276
    (("pattern_box", "components", "gamma_min", "lo"), "0.385"),        # E/p - 24r/13 = 0.38477
    (("loss_margin_box", "lo"), "0.0614"),                              # 0.0613268
    (("purity_margin_box", "lo"), "0.0096"),                            # 0.00953864
    (("gaussian_probability", "log10_lo"), "-55.7"),                    # -55.7725
    (("region_probability", "log10_lo"), "-53.5"),                      # -53.5446
    (("whole_region_probability", "log10_lo"), "-25.88"),              # -25.88582 (Proposition S1.8)
    (("whole_region_probability", "lo"), "1.302e-26"),                  # 1.30072e-26
]


@pytest.mark.parametrize("path, value", FALSE_CLAIMS)
def test_each_false_memorise_claim_is_rejected(memorise_certificates, path, value):
    document = copy.deepcopy(memorise_certificates[13])
    set_claim_path(document, path, value)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(path[0] + ":"), result.message


def test_a_weaker_claim_is_accepted(memorise_certificates):
    document = copy.deepcopy(memorise_certificates[13])
    set_claim_path(document, ("loss_margin_box", "lo"), "0.06")
    set_claim_path(document, ("purity_margin_box", "lo"), "0.009")
    set_claim_path(document, ("whole_region_probability", "log10_lo"), "-26")
    set_claim_path(document, ("whole_region_probability", "lo"), "1e-26")
    assert verdict(document).status == "verified"


def test_base_point_levels_are_the_constructions(memorise_certificates):
    document = copy.deepcopy(memorise_certificates[5])
    document["base_point"]["u"]["at_1"] = document["base_point"]["u"]["elsewhere"]
    result = verdict(document)
    assert result.status == "rejected" and "u has a level at_1" in result.message, result.message
    document = copy.deepcopy(memorise_certificates[5])
    document["parameters"]["E"] = "5"  # the stored base point is E = 4.82's
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith("base_point:"), result.message


@pytest.mark.parametrize("args, words", [
    (("--X", "1/10", "--E", "1"), "(S1.1) fails at the base point"),
    (("--E", "-1"), "E > 0 fails"),
    (("--s", "0"), "s > 0 fails"),
    (("--radius", "1"), "box inside U_1"),
    (("--X", "x"), "--X"),
])
def test_bad_input_is_one_line_and_a_nonzero_exit(args, words):
    result = run_certify("memorise", "--p", "5", *args)
    assert result.returncode != 0 and result.stdout == "", result
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_composite_p_is_refused():
    result = run_certify("memorise", "--p", "9")
    assert result.returncode == 2 and "prime" in result.stderr and "Traceback" not in result.stderr


def test_the_command_is_deterministic(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert run_certify("memorise", "--p", "7", "--out", out).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    assert run_certify("check", first).returncode == 0


def test_whole_region_claim_is_the_larger_bound_and_falls_back_to_the_box_copies():
    """whole_region_probability states Proposition S1.8's bound where it is larger (p = 5) and the box copies'
    (region_probability's) where S1.8 is not attempted (p >= 2^32, here p = 10^18 - 11); both verify."""
    from fractions import Fraction

    from certify.kernel.primes import MAX_P
    from certify.kernel.staircase import WHOLE_REGION_PRIMES_BELOW
    from certify.theorems.memorise import certify_memorise

    small = certify_memorise(5).certificate
    assert Fraction(small["claims"]["whole_region_probability"]["log10_lo"]) > \
        Fraction(small["claims"]["region_probability"]["log10_lo"]) + 11
    large_p = 999999999999999989
    assert WHOLE_REGION_PRIMES_BELOW <= large_p <= MAX_P
    large = certify_memorise(large_p).certificate
    assert verdict(large).status == "verified"
    assert large["claims"]["whole_region_probability"]["log10_lo"] == large["claims"]["region_probability"]["log10_lo"]


def test_coq_lists_the_whole_region_claim_as_not_exported_with_its_reason(memorise_certificates):
    from certify.coq.export import coq_file

    exported = coq_file(memorise_certificates[13])
    assert [item.claim for item in exported.not_exported] == ["whole_region_probability"]
    assert "Proposition S1.8" in exported.not_exported[0].reason and "hours of coqc" in exported.not_exported[0].reason


@pytest.mark.parametrize("sigma, words", [("1", "(the whole of U_1, Proposition S1.8)"),
                                          ("1e-3", "(the box copies' bound: Proposition S1.8 gives no more here)")])
def test_the_summary_names_the_bound_the_whole_region_claim_states(sigma, words):
    result = run_certify("memorise", "--p", "7", "--sigma", sigma)
    assert result.returncode == 0, result.stderr
    assert words in (result.stdout + result.stderr)
