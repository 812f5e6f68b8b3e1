"""Tests for certify.numeric.fourier: class energies and the fractions F_zeta of (1.5).

The FFT route of the module is compared with a second route: least-squares
projection onto explicit cos/sin basis vectors of E_zeta (1.3).
"""

import numpy as np
import pytest

from certify.numeric.fourier import centered, class_energies, fourier_fractions
from tolerances import assert_close, fourier_fraction_tolerance, projection_tolerance, relative_rounding, rounding



def _projection_energy(x, zeta):
    """||Pi_zeta x_0||^2 by least-squares projection onto span{cos, sin}(2 pi zeta a / p)."""
    p = len(x)
    a = np.arange(p)
    basis = np.column_stack([np.cos(2 * np.pi * zeta * a / p), np.sin(2 * np.pi * zeta * a / p)])
    x0 = x - np.mean(x)
    coeffs, *_ = np.linalg.lstsq(basis, x0, rcond=None)
    projected = basis @ coeffs
    return float(projected @ projected)


def _fractions_by_projection(u, v, w):
    p = len(u)
    denom = sum(float((x - x.mean()) @ (x - x.mean())) for x in (u, v, w))
    return np.array(
        [sum(_projection_energy(x, zeta) for x in (u, v, w)) / denom for zeta in range(1, (p - 1) // 2 + 1)]
    )


def test_centered_has_zero_mean():
    x = np.array([1.0, 2.0, 6.0])
    np.testing.assert_array_equal(centered(x), [-2.0, -1.0, 3.0])  # mean 3, every operation exact


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_centred_point_mass_is_flat(p):
    # Section 2.1: q = e_0 - 1/p carries 2/(p-1) of its energy in every class.
    q = np.zeros(p)
    q[0] = 1.0
    q -= 1.0 / p
    zeros = np.zeros(p)
    expected = 2.0 / (p - 1)
    assert_close(fourier_fractions(q, zeros, zeros), expected, fourier_fraction_tolerance(q, zeros, zeros))
    assert_close(_fractions_by_projection(q, zeros, zeros), expected, projection_tolerance(q, zeros, zeros))
    # Frozen state of section 2.1: u_0 = v_0 = B q, w_0 = -g q, uncentred inputs.
    B, g = 1.0, 1.7
    u = np.full(p, -B)
    u[0] = 0.0
    w = np.full(p, 0.3)
    w[0] = 0.3 - g
    assert_close(fourier_fractions(u, u, w), expected, fourier_fraction_tolerance(u, u, w))
    assert_close(_fractions_by_projection(u, u, w), expected, projection_tolerance(u, u, w))


@pytest.mark.parametrize("p", [5, 7, 13])
def test_class_energies_match_projection(p):
    rng = np.random.default_rng(p)
    x = rng.normal(size=p) + 3.0
    expected = [_projection_energy(x, zeta) for zeta in range(1, (p - 1) // 2 + 1)]
    # Energies (not fractions): both tolerances are relative to the centred energy.
    energy = float((x - x.mean()) @ (x - x.mean()))
    zeros = np.zeros(p)
    tol = energy * (fourier_fraction_tolerance(x, zeros, zeros) + projection_tolerance(x, zeros, zeros))
    assert_close(class_energies(x), expected, tol)


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_fractions_sum_to_one(p):
    # Parseval: the nonzero classes partition the centred energy.
    rng = np.random.default_rng(1000 + p)
    for _ in range(5):
        u, v, w = rng.normal(size=(3, p)) * rng.uniform(0.1, 10, size=(3, 1))
        F = fourier_fractions(u, v, w)
        assert F.shape == ((p - 1) // 2,)
        assert np.all(F >= 0)
        # Parseval is exact; the computed fractions each carry fourier_fraction_tolerance,
        # and their sum (p - 1)/2 of them, plus (p - 1)/2 additions.
        tol = (p - 1) / 2 * fourier_fraction_tolerance(u, v, w) + relative_rounding((p - 1) // 2)
        assert F.sum() == pytest.approx(1.0, rel=0, abs=tol)


@pytest.mark.parametrize("p", [7, 13])
def test_pure_frequency_two(p):
    a = np.arange(p)
    u = 3.0 * np.cos(2 * np.pi * 2 * a / p) + 5.0  # the constant is removed by centring
    w = -np.sin(2 * np.pi * 2 * a / p + 0.4)
    zeros = np.zeros(p)
    for triple in ((u, zeros, zeros), (u, u, w)):
        F = fourier_fractions(*triple)
        # u and w are pure frequency 2 up to the rounding of cos/sin (argument error ~p EPS):
        # a perturbation of relative size 4 p EPS on top of the rounding of the fractions.
        n = np.sqrt(sum(float((x - x.mean()) @ (x - x.mean())) for x in triple))
        tol = fourier_fraction_tolerance(*triple, perturbation=float(rounding(n, 4 * p)))
        assert F[2 - 1] == pytest.approx(1.0, rel=0, abs=tol)
        assert_close(np.delete(F, 1), 0.0, tol)
        assert_close(F, _fractions_by_projection(*triple), tol + projection_tolerance(*triple))


def test_zero_centred_norm_rejected():
    const = np.full(5, 2.0)
    with pytest.raises(ValueError):
        fourier_fractions(const, const, np.zeros(5))


@pytest.mark.parametrize("p", [2, 4, 6])
def test_even_p_rejected(p):
    with pytest.raises(ValueError):
        class_energies(np.arange(p, dtype=float))
