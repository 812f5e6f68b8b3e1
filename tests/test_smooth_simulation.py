"""Theorem A.3 certificates against float simulations of the smooth dead-zone flow.

From random points of the certified box the flow (full p x p table, s as the clock) converges to
a limit that moved w by at most the certified displacement, with max F_zeta <= 1 - delta; the
certified J encloses the float quadrature of sigma/sigma'.
"""

from fractions import Fraction

import numpy as np
import pytest

from certify.numeric.fourier import fourier_fractions
from certify.numeric.points import base_point_from_certificate, box_samples
from certify.numeric.smooth import ratio_integral, simulate_smooth


def number(text):
    return float(Fraction(text))


@pytest.mark.parametrize("p", [5, 7, 13])
def test_box_limits_obey_the_certificate(smooth_certificates, p):
    certificate = smooth_certificates[p]
    claims = certificate["claims"]
    eps = number(certificate["parameters"]["eps_smooth"])
    displacement = number(claims["terminal_displacement_box"]["hi"])
    delta = number(claims["purity_gap_box"]["lo"])
    rng = np.random.default_rng(3 * p)
    for u, v, w in box_samples(certificate, rng, 4):
        run = simulate_smooth(u, v, w, eps)
        assert run.max_other_gate < 0
        assert np.abs(run.w_limit - w).sum() + run.tail_bound <= displacement
        assert fourier_fractions(run.u_limit, run.v_limit, run.w_limit).max() <= 1 - delta


@pytest.mark.parametrize("p", [5, 13])
def test_certified_J_and_base_limit(smooth_certificates, p):
    certificate = smooth_certificates[p]
    claims = certificate["claims"]
    params = certificate["parameters"]
    smax = number(params["epsilon"]) + 2 * number(certificate["radius"])
    J = ratio_integral(smax, number(params["eps_smooth"]))
    lo, hi = number(claims["dead_zone_integral"]["lo"]), number(claims["dead_zone_integral"]["hi"])
    assert lo - 1e-12 <= J <= hi + 1e-12
    run = simulate_smooth(*base_point_from_certificate(certificate), number(params["eps_smooth"]))
    fractions = fourier_fractions(run.u_limit, run.v_limit, run.w_limit)
    assert np.allclose(fractions, number(claims["terminal_fourier_fraction"]["exact"]), rtol=0, atol=1e-9)
