"""certify.kernel.gd: Theorem A.4 obligations, and the certified box against one float GD step."""

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.gd import (GDParameters, gd_base_point, gd_base_step_contrasts_squared, gd_box_bounds,
                               gd_claims, require_gd_hypotheses)
from certify.numeric.flow import simulate_gd_step
from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import gates, gradient
from certify.numeric.points import base_point_from_certificate, box_samples
from tolerances import fourier_fraction_tolerance, rounding


def number(text):
    return float(Fraction(text))


def params(p=13, eta=fmpq(1), epsilon=fmpq(1, 100), A=fmpq(2), B=fmpq(1)):
    return GDParameters(p, eta, epsilon, A, B)


@pytest.mark.parametrize("key", [(5, (1, 1)), (7, (1, 1000)), (13, (1, 1)), (13, (1000, 1)), (101, (1, 10))])
def test_random_box_points_die_in_one_float_step(gd_certificates, key):
    """Second route: numpy over the full p x p table. After one step every gate is < 0, the gradient at
    theta_1 is exactly zero (so theta_n = theta_1), w moves at most the certified amount, and
    max F_zeta(theta_1) <= 1 - delta."""
    certificate = gd_certificates[key]
    claims = certificate["claims"]
    eta = number(certificate["parameters"]["eta"])
    after = claims["one_step_death_box"]["components"]
    central_hi, cross_hi = number(after["central_gate"]["hi"]), number(after["cross_gates"]["hi"])
    w_step = number(claims["w_step_box"]["hi"])
    delta = number(claims["purity_gap_box"]["lo"])
    p = certificate["p"]
    rng = np.random.default_rng(p)
    for u, v, w in box_samples(certificate, rng, 6):
        u1, v1, w1 = simulate_gd_step(u, v, w, eta)
        z = gates(u1, v1)
        # z[0, 0] = u(0) + v(0) - eta (gu(0) + gv(0)) in floats: the gradient entry (a softmax and
        # a dot product cancelling terms <= max|w|, 2p + 10 operations) scaled by eta / p^2, and
        # the three additions on terms of size |u(0)| + |v(0)| + eta |gu(0) + gv(0)|.
        gu, gv, _ = gradient(u, v, w)
        W = np.abs(w).max()
        step = float(rounding(abs(u[0]) + abs(v[0]) + eta * abs(gu[0] + gv[0]), 4)
                     + 2 * eta * rounding(2 * W, 2 * p + 10) / p**2)
        assert z.max() < 0 and z[0, 0] <= central_hi + step
        others = z.copy()
        others[0, 0] = -np.inf
        assert others[0, 1:].max() <= cross_hi and others[1:, 0].max() <= cross_hi
        assert all(np.all(g == 0) for g in gradient(u1, v1, w1))
        assert np.all(simulate_gd_step(u1, v1, w1, eta)[2] == w1)
        assert np.abs(w1 - w).sum() <= w_step
        assert fourier_fractions(u1, v1, w1).max() <= 1 - delta


@pytest.mark.parametrize("key", [(5, (1, 1)), (13, (1000, 1))])
def test_base_point_step_is_two_level(gd_certificates, key):
    certificate = gd_certificates[key]
    u1, v1, w1 = simulate_gd_step(*base_point_from_certificate(certificate), number(certificate["parameters"]["eta"]))
    for x in (u1, v1, w1):
        assert np.ptp(x[1:]) == 0
    expected = number(certificate["claims"]["terminal_fourier_fraction"]["exact"])
    # exactly two-level (asserted above), so the fractions are exact up to their rounding
    assert np.all(np.abs(fourier_fractions(u1, v1, w1) - expected) <= fourier_fraction_tolerance(u1, v1, w1))


def test_base_step_contrasts_match_floats():
    P = params(p=7, eta=fmpq(3), epsilon=fmpq(1, 5))
    with working_precision(128):
        squares = gd_base_step_contrasts_squared(P)
    u, v, w = (np.full(7, -1.0), np.full(7, -1.0), np.zeros(7))
    u[0] = v[0] = 0.1
    w[0] = -2.0
    u1, _, w1 = simulate_gd_step(u, v, w, 3.0)
    gu, _, gw = gradient(u, v, w)
    for square, x, x0, g in ((squares[0], u1, u, gu), (squares[2], w1, w, gw)):
        value = (x[0] - x[1]) ** 2
        # x(0) - x(1) from one float GD step (p = 7, eta = 3): each entry x - 3 g rounds twice on
        # terms |x| + 3 |g|, and g itself is a sum of per-example terms of size <= 2 (max|w| + 1)/p^2
        # (|g_y| <= 2 max|w|, the gate h <= 1) in ~p^2 + 2p + 10 operations; the difference and
        # the square round twice more.  The ball ends round once to doubles.
        d = abs(x[0] - x[1])
        per_example = 2 * (np.abs(w).max() + 1) / 7**2
        entry = (rounding(np.abs(x0[:2]).sum() + 3 * np.abs(g[:2]).sum(), 2)
                 + 3 * 2 * rounding(per_example, 7**2 + 2 * 7 + 10))
        tol = float(2 * d * entry + entry**2 + rounding(d * d, 2) + rounding(value, 1))
        assert float(lower_endpoint(square)) - tol <= value <= float(upper_endpoint(square)) + tol


@pytest.mark.parametrize("overrides, words", [
    (dict(eta=fmpq(0)), "eta > 0"),
    (dict(epsilon=fmpq(-1)), "epsilon > 0"),
    (dict(B=fmpq(1, 200)), "B > epsilon/2"),
    (dict(epsilon=fmpq(1, 10)), "(A.71)"),
    (dict(eta=fmpq(1, 10**6)), "(A.71)"),
])
def test_hypotheses_are_named(overrides, words):
    with pytest.raises(HypothesisError) as info:
        require_gd_hypotheses(params(**overrides))
    assert words in str(info.value)


def test_a71_boundary_is_exact():
    P = params(p=5, eta=fmpq(1))  # threshold 2 * 1 * (4/5 * 2) / 25 = 16/125
    require_gd_hypotheses(GDParameters(5, fmpq(1), fmpq(16, 125) - fmpq(1, 10**30), fmpq(2), fmpq(1)))
    with pytest.raises(HypothesisError):
        require_gd_hypotheses(GDParameters(5, fmpq(1), fmpq(16, 125), fmpq(2), fmpq(1)))
    assert P.death_threshold == fmpq(16, 125)


@pytest.mark.parametrize("epsilon, radius, claim_id", [(fmpq(1, 100), fmpq(1, 200), "single_active_gate"),
                                                       (fmpq(2, 100), fmpq(2, 1000), "one_step_death_box")])
def test_box_conditions_are_named(epsilon, radius, claim_id):
    with pytest.raises(NotCertified) as info:
        gd_box_bounds(params(epsilon=epsilon), radius, 128)
    assert info.value.claim_id == claim_id


def test_box_bounds_are_the_a70_a71_bounds():
    P, r = params(), fmpq(1, 1000)
    box = gd_box_bounds(P, r, 128)
    gmin = fmpq(12, 13) * (2 - 2 * r)
    assert box.central_after == fmpq(1, 100) + 2 * r - 2 * gmin / 169
    assert box.cross_after == fmpq(1, 200) - 1 + 2 * r and box.off_cross_after == -2 + 2 * r
    assert box.w_step_upper == 2 * (fmpq(1, 100) + 2 * r) / 169


def test_claims_and_base_point():
    ids = {c.id for c in gd_claims(params(), fmpq(1, 1000), 128)}
    assert {"one_step_death_box", "purity_gap_box", "terminal_fourier_fraction", "gaussian_probability"} <= ids
    base = gd_base_point(params())
    assert (base.u.at_0, base.u.elsewhere, base.w.at_0) == (fmpq(1, 200), -1, -2)
