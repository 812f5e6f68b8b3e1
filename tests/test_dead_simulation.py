"""The certified box against float simulations of the full 3p-dimensional flow (Theorem A.2).

Random initial points of the certified box (and random corners of it) are integrated with
scipy; the certificate's box claims must hold for each: the neuron dies at a time inside
hitting_time_box, no other gate ever turns on, -ds/dt at death is at least the box margin,
w moves at most the certified l1 distance, and max F_zeta <= 1 - delta_p at the end.
"""

import inspect
from fractions import Fraction

import numpy as np
import pytest

from certify.numeric.flow import simulate_until_death
from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import gradient
from certify.numeric.points import base_point_from_certificate, box_samples
from tolerances import assert_close, event_residual, fourier_fraction_tolerance, integration_tolerance, rounding

SAMPLES = 6
_DEFAULTS = inspect.signature(simulate_until_death).parameters
RTOL, ATOL = _DEFAULTS["rtol"].default, _DEFAULTS["atol"].default


def state_error(result, start):
    """Integration-error estimate of each component of the death state (tests/tolerances.py):
    nfev (>= DOP853's steps) local errors rtol |theta_i| + atol, |theta_i| at most the larger
    of its start and end values plus the distance w moves (u, v only shrink towards the kink)."""
    theta0 = np.concatenate(start)
    theta = np.concatenate([result.u, result.v, result.w])
    size = np.maximum(np.abs(theta0), np.abs(theta)) + np.abs(result.w - start[2]).sum()
    return integration_tolerance(size, result.nfev, RTOL, ATOL)


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
        # -ds/dt = dL/du(0) + dL/dv(0) = 2 (1 - pi0) D / p^2 with D = q @ w - w(0): at s = 1e-9
        # instead of 0, q moves by <= 1e-9 * 2 max|w| (relative), and the integrated w is off by
        # its integration error (D by twice the largest); D's rounding cancels terms <= max|w|.
        err = state_error(result, (u, v, w))[2 * p:].max()
        W = np.abs(result.w).max()
        D_err = 1e-9 * 2 * W * 2 * W + 2 * err + float(rounding(2 * W, 2 * p + 10))
        assert gu[0] + gv[0] >= margin - 2 * D_err / p**2
        assert np.abs(result.w - w).sum() <= displacement
        assert fourier_fractions(result.u, result.v, result.w).max() <= 1 - delta


@pytest.mark.parametrize("p", [5, 7, 13])
def test_base_trajectory_matches_the_base_point_claims(dead_certificates, p):
    certificate = dead_certificates[p]
    claims = certificate["claims"]
    start = base_point_from_certificate(certificate)
    result = simulate_until_death(*start)
    p = certificate["p"]
    err = state_error(result, start)
    T_lo, T_hi = number(claims["hitting_time"]["lo"]), number(claims["hitting_time"]["hi"])
    # The event time is off by the integration error of s = u(0) + v(0) over the speed -ds/dt
    # at death (at least the certified margin), plus the event residual; the certified
    # enclosure's half-width is added (it is far narrower).
    margin = number(claims["transversality_margin"]["lo"])
    s_err = err[0] + err[p] + event_residual(1.0, result.t_death, 1.0)
    assert abs(result.t_death - (T_lo + T_hi) / 2) <= s_err / margin + (T_hi - T_lo) / 2
    # The true terminal state is two-level (section 2.1), flat: the integrated w(j) are within
    # their integration errors of it.
    fractions = fourier_fractions(result.u, result.v, result.w)
    off = float(np.linalg.norm(err[2 * p + 1:]))
    assert_close(fractions, number(claims["terminal_fourier_fraction"]["exact"]),
                 fourier_fraction_tolerance(result.u, result.v, result.w, off))
    # (A.10): B moves by 2 sum |theta_i| err_i (+ err_i^2); each B rounds 3p squares that
    # cancel; the certificate's exact value rounds once to a double.
    theta = np.concatenate([result.u, result.v, result.w])
    balance = lambda u, v, w: u @ u + v @ v - w @ w
    exact = number(claims["balance_invariant"]["exact"])
    tol = (float((2 * np.abs(theta) * err + err**2).sum()) + float(rounding(theta @ theta, 3 * p))
           + float(rounding(abs(exact), 1)))
    assert abs(balance(result.u, result.v, result.w) - exact) <= tol


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
        err = state_error(result, (u, v, w))[2 * p:]
        change = result.w - w
        transfer = change[0]
        assert 0 <= transfer <= transfer_hi
        # The spread never grows along the true flow; the integrated extremes are each off by
        # their integration error.
        assert np.ptp(result.w[1:]) <= np.ptp(w[1:]) + 2 * err[1:].max()
        two_level_part = transfer * (np.eye(p)[0] * p / (p - 1) - 1 / (p - 1))
        spread = np.linalg.norm(change - two_level_part)
        # change and transfer carry the integration error of w (and two_level_part that of
        # w(0), spread over p entries): at most 2 |err| in the Euclidean norm.
        slack = 2 * float(np.linalg.norm(err)) + float(rounding(np.abs(result.w).max() + np.abs(w).max(), 2 * p))
        assert spread <= transfer * np.expm1(2 * r * smax) / np.sqrt(p - 1) + slack
