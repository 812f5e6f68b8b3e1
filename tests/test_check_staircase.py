"""certify check and certify staircase on Theorem S certificates: untouched ones verify, each claim made false is
rejected, a base point with a level too many or too few is rejected, bad input is one line and exit 2."""

import copy

import pytest

from conftest import run_certify, set_claim_path, verdict


@pytest.fixture(scope="module")
def staircase_certificates():
    from certify.theorems.staircase import certify_staircase

    from flint import fmpq

    # p = 13 at the defaults before the builder's search (X = p, s = ln(p)/p to 3 digits, D = 1/4, E = 5p/2), so that
    # FALSE_CLAIMS' values (worked out by hand from them) stay put whatever the search picks; 5 and 31 at the defaults
    old_13 = certify_staircase(13, X=fmpq(13), s=fmpq(197, 1000), D=fmpq(1, 4), E=fmpq(65, 2)).certificate
    return {5: certify_staircase(5).certificate, 13: old_13, 31: certify_staircase(31).certificate}


@pytest.mark.parametrize("p", [5, 13, 31])
def test_untouched_staircase_certificate_is_verified(staircase_certificates, p):
    result = verdict(staircase_certificates[p])
    assert result.status == "verified", result.message


FALSE_CLAIMS = [  # p = 13 (s = 0.197, r = 0.0181): each end moved past what the kernel proves
    (("pattern_box", "components", "active_gates", "lo"), "0.17"),     # s - 2r = 0.1608
    (("pattern_box", "components", "gate_11", "lo"), "12.6"),          # X - 2s - 2r = 12.5698
    (("pattern_box", "components", "boundary_gates", "lo"), "0.2"),
    (("pattern_box", "components", "other_gates", "lo"), "13"),        # X - 2r = 12.9638
    (("pattern_box", "components", "gamma_min", "lo"), "5"),           # mu_0 - 24r/13 = 4.9858
    (("loss_margin_box", "lo"), "0.001"),                              # 0.00096182
    (("purity_margin_box", "lo"), "0.33"),                             # 0.324317
    (("gaussian_probability", "log10_lo"), "-712"),                    # -712.7158
    (("region_probability", "log10_lo"), "-709"),                      # -709.4088
    (("whole_region_probability", "log10_lo"), "-709"),                # -709.4088: no cells at p = 13, the same
]


@pytest.mark.parametrize("path, value", FALSE_CLAIMS)
def test_each_false_staircase_claim_is_rejected(staircase_certificates, path, value):
    document = copy.deepcopy(staircase_certificates[13])
    set_claim_path(document, path, value)
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith(path[0] + ":"), result.message


def test_whole_region_claim_at_p5_is_checked(staircase_certificates):
    """At p = 5 whole_region_probability states Proposition S.25's bound, about 10^-31.28 (the float lower sum of
    the committed cells is 10^-31.280, docs/staircase.md section 11.16): -31.2 is more than the kernel proves and is
    rejected; the widened box's 10^-43.03 (weaker) is accepted."""
    document = copy.deepcopy(staircase_certificates[5])
    assert -31.3 < float(document["claims"]["whole_region_probability"]["log10_lo"]) < -31.2
    set_claim_path(document, ("whole_region_probability", "log10_lo"), "-31.2")
    result = verdict(document)
    assert result.status == "rejected" and result.message.startswith("whole_region_probability:"), result.message
    document = copy.deepcopy(staircase_certificates[5])
    set_claim_path(document, ("whole_region_probability", "log10_lo"), "-43.03")
    set_claim_path(document, ("whole_region_probability", "lo"), "9.5e-44")
    assert verdict(document).status == "verified"


def test_a_weaker_claim_is_accepted(staircase_certificates):
    document = copy.deepcopy(staircase_certificates[13])
    set_claim_path(document, ("loss_margin_box", "lo"), "0.0009")
    set_claim_path(document, ("purity_margin_box", "lo"), "0.3")
    assert verdict(document).status == "verified"


def test_base_point_levels_are_the_constructions(staircase_certificates, dead_certificates):
    staircase = copy.deepcopy(staircase_certificates[5])
    del staircase["base_point"]["w"]["at_1"]
    result = verdict(staircase)
    assert result.status == "rejected" and result.message.startswith("base_point: w has no at_1"), result.message
    staircase = copy.deepcopy(staircase_certificates[5])
    staircase["base_point"]["u"]["at_1"] = staircase["base_point"]["u"]["elsewhere"]
    assert verdict(staircase).message.startswith("base_point: u.at_1 is")
    dead = copy.deepcopy(dead_certificates[5])
    dead["base_point"]["v"]["at_1"] = dead["base_point"]["v"]["elsewhere"]  # the same value: still not the construction's
    result = verdict(dead)
    assert result.status == "rejected" and "v has a level at_1" in result.message, result.message


def test_the_stated_k_is_checked(staircase_certificates):
    document = copy.deepcopy(staircase_certificates[5])
    document["parameters"]["k"] = "3"
    result = verdict(document)
    assert result.status == "rejected" and "k = 3 is not Theorem S's" in result.message
    document["parameters"]["k"] = "1"  # k = 1 is Theorem S1's, a memorise certificate: not this one
    result = verdict(document)
    assert result.status == "rejected" and "k = 1 is not Theorem S's" in result.message


@pytest.mark.parametrize("args, words", [
    (("--k", "1", "--D", "1/4"), "D is a parameter of k = 2 only"),
    (("--k", "3"), "k >= 3 is open"),
    (("--X", "1/2"), "X > 2s fails"),
    (("--s", "1", "--D", "1"), "(S.10) fails at the base point"),
    (("--E", "-1"), "E > 0 fails"),
    (("--radius", "1"), "box inside U_stair"),
])
def test_bad_input_is_one_line_and_a_nonzero_exit(args, words):
    result = run_certify("staircase", "--p", "5", *args)
    assert result.returncode != 0 and result.stdout == "", result
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_k_one_makes_the_memorise_certificate(tmp_path):
    """certify staircase --k 1 writes Theorem S1's certificate, byte for byte certify memorise's."""
    staircase, memorise = tmp_path / "s.json", tmp_path / "m.json"
    assert run_certify("staircase", "--p", "7", "--k", "1", "--out", staircase).returncode == 0
    assert run_certify("memorise", "--p", "7", "--out", memorise).returncode == 0
    assert staircase.read_bytes() == memorise.read_bytes() and b'"theorem": "memorise"' in staircase.read_bytes()


def test_the_command_is_deterministic(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert run_certify("staircase", "--p", "7", "--out", out).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    assert run_certify("check", first).returncode == 0


def test_coq_lists_the_whole_region_claim_as_not_exported_with_its_reason(staircase_certificates):
    """At p = 5 (Proposition S.25's bound) and at p = 13 (the widened box's, under the whole-region name) the Coq
    file names whole_region_probability as not exported, with the staircase's own reason."""
    from certify.coq.export import coq_file

    for p in (5, 13):
        exported = coq_file(staircase_certificates[p])
        assert [item.claim for item in exported.not_exported] == ["whole_region_probability"]
        reason = exported.not_exported[0].reason
        assert "Proposition S.25" in reason and "hours of coqc" in reason and "S1.8" not in reason


@pytest.mark.parametrize("args, words", [
    (("--p", "5"), "(the whole of U_stair, Proposition S.25)"),
    (("--p", "5", "--sigma", "2"), "(the widened box's bound: Proposition S.25 gives no more here)"),
    (("--p", "11"), "(the widened box's bound: Proposition S.25 gives no more here)")])
def test_the_summary_names_the_bound_the_whole_region_claim_states(args, words):
    """The summary line says which bound whole_region_probability states: the whole region's where the committed
    cells give it (p = 5, sigma = 1), the widened box's where they are not attempted (another sigma or prime)."""
    result = run_certify("staircase", *args)
    assert result.returncode == 0, result.stderr
    assert words in (result.stdout + result.stderr)
