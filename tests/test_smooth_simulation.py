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
from tolerances import assert_close, dead_zone_integral_tolerance, fourier_fraction_tolerance, rounding


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
    eps = number(params["eps_smooth"])
    J = ratio_integral(smax, eps)
    lo, hi = number(claims["dead_zone_integral"]["lo"]), number(claims["dead_zone_integral"]["hi"])
    # quad's and the integrand's error (tests/tolerances.py); the ends round once to doubles.
    tol = dead_zone_integral_tolerance(smax, eps, J) + float(rounding(abs(hi), 1))
    assert lo - tol <= J <= hi + tol
    run = simulate_smooth(*base_point_from_certificate(certificate), eps)
    # The w(j), j != 0, obey the same equation from the same start: they differ only by
    # rounding, two roundings of size max|w| per step (nfev >= steps); the limit is two-level
    # up to that (Euclidean sqrt(p) times it), and a two-level state is flat.
    p = certificate["p"]
    spread = float(rounding(np.abs(run.w_limit).max(), 2 * (run.nfev + 10)))
    assert np.ptp(run.w_limit[1:]) <= spread
    fractions = fourier_fractions(run.u_limit, run.v_limit, run.w_limit)
    tol = fourier_fraction_tolerance(run.u_limit, run.v_limit, run.w_limit, np.sqrt(p) * spread)
    assert_close(fractions, number(claims["terminal_fourier_fraction"]["exact"]), tol)
