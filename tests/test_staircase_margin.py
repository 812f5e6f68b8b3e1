"""Proposition S.6 of docs/staircase.md (the purity margin delta of the (1, 2) staircase), checked by an
independent route: random states of the cone of Theorem S, their Fourier fractions (1.5) by numpy's FFT, against
the bound (S.15) written out here by hand; and the explicit point of section 3.8 by mpmath at 60 digits.

Float tolerance: every quantity below is a ratio of sums of at most 3p = 93 squares of numbers within 10^4 of
each other in magnitude, so the relative rounding error of double precision is below 10^3 * 2^-52 < 1e-12; the
checks allow 1e-9 relative, far above that and far below the margins seen (5e-4 at worst over 10^5 states).
"""

import mpmath as mp
import numpy as np
import pytest

RELATIVE = 1e-9


def max_fourier_fraction(u, v, w, p):
    """max over nonzero classes of F_zeta (1.5), by the FFT of the centred blocks."""
    energy = np.zeros(p)
    total = 0.0
    for x in (u, v, w):
        x0 = x - x.mean()
        energy += np.abs(np.fft.fft(x0)) ** 2 / p
        total += x0 @ x0
    return max((energy[z] + energy[p - z]) / total for z in range(1, (p + 1) // 2))


def cone_state(rng, p):
    """A random state with W0, W1 > mu > w(j), gamma spread rho < 2 - sqrt(F_0), and unrelated u, v."""
    c1 = np.cos(2 * np.pi / p)
    f0 = 2 * (1 + c1) / (p - 2)
    scale = 10 ** rng.uniform(-2, 3)
    mu = rng.normal() * scale
    rho = 1 + rng.uniform(0, 1) * (1 - np.sqrt(f0))
    gamma_min = scale * rng.uniform(0.1, 1)
    gamma = gamma_min * (1 + (rho - 1) * rng.uniform(0, 1, p - 2))
    gamma[0], gamma[-1] = gamma_min, gamma_min * rho
    total = gamma.sum()
    high = rng.uniform(0, 1) * total
    w = np.concatenate([[mu + high, mu + total - high], mu - gamma])
    u = rng.normal(size=p) * scale * 10 ** rng.uniform(-2, 1)
    v = rng.normal(size=p) * scale * 10 ** rng.uniform(-2, 1)
    return u, v, w, gamma, f0


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_the_margin_bounds_every_fourier_fraction_of_the_cone(p):
    """1 - max F >= (1 - (sqrt F_0 + rho - 1)^2) L/(2L + C_+) (S.11)-(S.15) at random states (static form)."""
    rng = np.random.default_rng(p)
    for _ in range(2000):
        u, v, w, gamma, f0 = cone_state(rng, p)
        mu = w.mean()
        rho = gamma.max() / gamma.min()
        c_plus = max(0.0, p * mu**2 + (u @ u + v @ v - w @ w))
        ell = gamma.sum() ** 2 / 2 + gamma @ gamma
        delta = (1 - (np.sqrt(f0) + rho - 1) ** 2) * ell / (2 * ell + c_plus)
        assert 1 - max_fourier_fraction(u, v, w, p) >= delta * (1 - RELATIVE)


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_the_supremum_of_the_ratio_is_at_the_symmetric_point(p):
    """(S.12): the ratio of quadratics on a grid of 10^4 points of (0, p - 2) never exceeds 2(1 + c_1)/(p - 2),
    and reaches it at t = (p - 2)/2."""
    c1 = np.cos(2 * np.pi / p)
    t = np.linspace(0, p - 2, 10001)[1:-1]
    ratio = (2 / p) * ((t + 1) ** 2 + (p - 1 - t) ** 2 + 2 * c1 * (t + 1) * (p - 1 - t)) \
        / (t**2 + (p - 2 - t) ** 2 + p - 2)
    f0 = 2 * (1 + c1) / (p - 2)
    assert ratio.max() <= f0 * (1 + RELATIVE)
    assert ratio[len(t) // 2] == pytest.approx(f0, rel=RELATIVE)
    # a negative control: the value at the ends is smaller (the sup is not at t = 0)
    assert ratio[0] < f0 * (1 - 1e-3)


@pytest.mark.parametrize("p", [5, 7, 11, 13, 31, 97, 997])
def test_the_explicit_point_is_in_the_region_with_margin(p):
    """Section 3.8: Lambda - 2 log 2 < 2/(p - 1) (rho = 1), and p mu^2 + B0 < 0 (so C_+ = 0), at 60 digits."""
    mp.mp.dps = 60
    X, D, s, E = mp.mpf(40), mp.mpf(1), mp.mpf(1) / (4 * p), mp.mpf(80 * p)
    w = [E + D, E] + [mp.mpf(0)] * (p - 2)
    u = [X / 2, s - X / 2] + [-X / 2 - 1] * (p - 2)

    def ell(z, y):
        return mp.log(mp.fsum(mp.e ** (z * (wc - w[y])) for wc in w))

    lam = ell(X, 0) + 2 * ell(s, 1)
    assert 2 / mp.mpf(p - 1) - (lam - 2 * mp.log(2)) > mp.mpf("1e-3")
    mu = mp.fsum(w) / p
    assert p * mu**2 + 2 * mp.fsum(x * x for x in u) - mp.fsum(x * x for x in w) < 0
    # the gates, exactly: r = c = s > 0, z11 = 2s - X < 0, boundary gates -1, the rest <= -X
    from fractions import Fraction
    x, s_exact = Fraction(40), Fraction(1, 4 * p)
    ue = [x / 2, s_exact - x / 2] + [-x / 2 - 1] * (p - 2)
    assert ue[0] + ue[1] == s_exact > 0 and ue[1] + ue[1] < 0 and ue[0] + ue[2] == -1
    assert ue[1] + ue[2] < 0 and ue[2] + ue[2] <= -x
