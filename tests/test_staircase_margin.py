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

from staircase_full_loss import max_fourier_fraction

RELATIVE = 1e-9


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


@pytest.mark.parametrize("p", [5, 7, 11, 13, 31, 97, 997, 29137, 29147, 100003, 1000003])
def test_the_explicit_point_is_in_the_region_with_margin(p):
    """Section 3.8: Lambda - 2 log 2 < 2/(p - 1) (rho = 1), and p mu^2 + B0 < 0 (so C_+ = 0), at 60 digits.

    The point has w(j) = 0 for j >= 2, so each log-sum-exp is the closed form written here (three terms), and
    |u|^2 = X^2/4 + (s - X/2)^2 + (p - 2)(X/2 + 1)^2. p = 29147 is where the earlier point (X = 40, E = 80p) failed.
    """
    import math
    from fractions import Fraction

    mp.mp.dps = 60
    lp = math.ceil(math.log(p))
    x, d, s = Fraction(40 + 2 * lp), Fraction(1), Fraction(1, 4 * p)
    e = 4 * p * (20 + 2 * lp)
    # the gates, exactly: r = c = s > 0, z11 = 2s - X < 0, boundary gates -1, the rest <= -X
    u = [x / 2, s - x / 2, -x / 2 - 1]
    assert u[0] + u[1] == s > 0 and u[1] + u[1] < 0 and u[0] + u[2] == -1
    assert u[1] + u[2] < 0 and u[2] + u[2] <= -x
    X, D, S, E = (mp.mpf(q.numerator) / q.denominator for q in (x, d, s, Fraction(e)))
    ell0 = mp.log(1 + mp.exp(-X * D) + (p - 2) * mp.exp(-X * (E + D)))
    ell1 = mp.log(1 + mp.exp(S * D) + (p - 2) * mp.exp(-S * E))
    lam = ell0 + 2 * ell1
    margin = 2 / mp.mpf(p - 1) - (lam - 2 * mp.log(2))
    assert margin > mp.mpf(1) / p  # about 1.75/p (docs/staircase.md, section 3.8)
    mu = (2 * E + D) / p
    norm_u = X**2 / 4 + (S - X / 2) ** 2 + (p - 2) * (X / 2 + 1) ** 2
    assert p * mu**2 + 2 * norm_u - ((E + D) ** 2 + E**2) < 0


def test_the_earlier_explicit_point_fails_at_large_p():
    """A negative control: X = 40, E = 80p (the point before review) is outside S_stair at p = 29147."""
    mp.mp.dps = 60
    p = 29147
    X, D, S, E = mp.mpf(40), mp.mpf(1), mp.mpf(1) / (4 * p), mp.mpf(80 * p)
    lam = mp.log(1 + mp.exp(-X * D) + (p - 2) * mp.exp(-X * (E + D))) \
        + 2 * mp.log(1 + mp.exp(S * D) + (p - 2) * mp.exp(-S * E))
    assert 2 / mp.mpf(p - 1) - (lam - 2 * mp.log(2)) < 0
