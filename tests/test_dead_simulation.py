"""The certified box against float simulations of the full 3p-dimensional flow (Theorem A.2).

Random initial points of the certified box (and random corners of it) are integrated with
scipy; the certificate's box claims must hold for each: the neuron dies at a time inside
hitting_time_box, no other gate ever turns on, -ds/dt at death is at least the box margin,
w moves at most the certified l1 distance, and max F_zeta <= 1 - delta_p at the end.
"""

from fractions import Fraction

import numpy as np
import pytest

from certify.numeric.flow import simulate_until_death
from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import gradient
from certify.numeric.points import base_point_from_certificate, box_samples

SAMPLES = 6


def number(text: str) -> float:
    return float(Fraction(text))


@pytest.fixture(scope="module")
def near_boundary_certificate():
    """p = 7 with A = 1: gamma_* is small, so the second bound on the transfer M is the one used."""
    from flint import fmpq

    from certify.theorems.dead import certify_dead

    return certify_dead(7, A=fmpq(1)).certificate


@pytest.mark.parametrize("p", [7, 13, "7, A = 1"])
def test_random_box_points_obey_the_certificate(dead_certificates, near_boundary_certificate, p):
    certificate = near_boundary_certificate if p == "7, A = 1" else dead_certificates[p]
    p = certificate["p"]
    claims = certificate["claims"]
    t_lo, t_hi = number(claims["hitting_time_box"]["lo"]), number(claims["hitting_time_box"]["hi"])
    margin = number(claims["transversality_margin_box"]["lo"])
    displacement = number(claims["terminal_w_displacement_box"]["hi"])
    delta = number(claims["purity_gap_box"]["lo"])
    rng = np.random.default_rng(p)
    for u, v, w in box_samples(certificate, rng, SAMPLES):
        result = simulate_until_death(u, v, w)  # raises OtherGateActivated if another gate turns on
        assert t_lo <= result.t_death <= t_hi
        assert result.max_other_gate < 0
        just_before = result.u.copy()
        just_before[0] -= result.u[0] + result.v[0] - 1e-9  # s = 1e-9 > 0: the field just before death
        gu, gv, _ = gradient(just_before, result.v, result.w)
        assert gu[0] + gv[0] >= margin * (1 - 1e-6)  # -ds/dt = dL/du(0) + dL/dv(0)
        assert np.abs(result.w - w).sum() <= displacement
        assert fourier_fractions(result.u, result.v, result.w).max() <= 1 - delta


@pytest.mark.parametrize("p", [5, 7, 13])
def test_base_trajectory_matches_the_base_point_claims(dead_certificates, p):
    certificate = dead_certificates[p]
    claims = certificate["claims"]
    result = simulate_until_death(*base_point_from_certificate(certificate))
    T_lo, T_hi = number(claims["hitting_time"]["lo"]), number(claims["hitting_time"]["hi"])
    assert abs(result.t_death - (T_lo + T_hi) / 2) <= 1e-7 * T_hi
    fractions = fourier_fractions(result.u, result.v, result.w)
    assert np.allclose(fractions, number(claims["terminal_fourier_fraction"]["exact"]), rtol=0, atol=1e-9)
    balance = lambda u, v, w: u @ u + v @ v - w @ w
    assert abs(balance(result.u, result.v, result.w) - number(claims["balance_invariant"]["exact"])) < 1e-8


@pytest.mark.parametrize("p", [7, 13, "7, A = 1"])
def test_w_block_decomposition_of_the_purity_bound(dead_certificates, near_boundary_certificate, p):
    """The w-block facts behind purity_gap_box, measured on simulations from box points:
    the increase M of w(0) lies in [0, smax^2/(4 gamma_*)], the spread of the wrong-class
    weights never grows, and the non-two-level part of w(T) - w(0) is at most
    M (e^{2 r smax} - 1)/sqrt(p-1)."""
    certificate = near_boundary_certificate if p == "7, A = 1" else dead_certificates[p]
    p = certificate["p"]
    r = number(certificate["radius"])
    smax = number(certificate["parameters"]["epsilon"]) + 2 * r
    transfer_hi = number(certificate["claims"]["terminal_w_displacement_box"]["hi"]) / 2
    rng = np.random.default_rng(100 + p)
    for u, v, w in box_samples(certificate, rng, SAMPLES):
        result = simulate_until_death(u, v, w)
        change = result.w - w
        transfer = change[0]
        assert 0 <= transfer <= transfer_hi
        assert np.ptp(result.w[1:]) <= np.ptp(w[1:]) + 1e-12
        two_level_part = transfer * (np.eye(p)[0] * p / (p - 1) - 1 / (p - 1))
        spread = np.linalg.norm(change - two_level_part)
        assert spread <= transfer * np.expm1(2 * r * smax) / np.sqrt(p - 1) + 1e-12
