"""Tests for certify.numeric.fourier: class energies and the fractions F_zeta of (1.5).

The FFT route of the module is compared with a second route: least-squares
projection onto explicit cos/sin basis vectors of E_zeta (1.3).
"""

import numpy as np
import pytest

from certify.numeric.fourier import centered, class_energies, fourier_fractions


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
    np.testing.assert_allclose(centered(x), [-2.0, -1.0, 3.0])


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_centred_point_mass_is_flat(p):
    # Section 2.1: q = e_0 - 1/p carries 2/(p-1) of its energy in every class.
    q = np.zeros(p)
    q[0] = 1.0
    q -= 1.0 / p
    zeros = np.zeros(p)
    expected = 2.0 / (p - 1)
    np.testing.assert_allclose(fourier_fractions(q, zeros, zeros), expected, rtol=1e-12)
    np.testing.assert_allclose(_fractions_by_projection(q, zeros, zeros), expected, rtol=1e-12)
    # Frozen state of section 2.1: u_0 = v_0 = B q, w_0 = -g q, uncentred inputs.
    B, g = 1.0, 1.7
    u = np.full(p, -B)
    u[0] = 0.0
    w = np.full(p, 0.3)
    w[0] = 0.3 - g
    np.testing.assert_allclose(fourier_fractions(u, u, w), expected, rtol=1e-12)
    np.testing.assert_allclose(_fractions_by_projection(u, u, w), expected, rtol=1e-12)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_class_energies_match_projection(p):
    rng = np.random.default_rng(p)
    x = rng.normal(size=p) + 3.0
    expected = [_projection_energy(x, zeta) for zeta in range(1, (p - 1) // 2 + 1)]
    np.testing.assert_allclose(class_energies(x), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_fractions_sum_to_one(p):
    # Parseval: the nonzero classes partition the centred energy.
    rng = np.random.default_rng(1000 + p)
    for _ in range(5):
        u, v, w = rng.normal(size=(3, p)) * rng.uniform(0.1, 10, size=(3, 1))
        F = fourier_fractions(u, v, w)
        assert F.shape == ((p - 1) // 2,)
        assert np.all(F >= 0)
        assert F.sum() == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("p", [7, 13])
def test_pure_frequency_two(p):
    a = np.arange(p)
    u = 3.0 * np.cos(2 * np.pi * 2 * a / p) + 5.0  # the constant is removed by centring
    w = -np.sin(2 * np.pi * 2 * a / p + 0.4)
    zeros = np.zeros(p)
    for triple in ((u, zeros, zeros), (u, u, w)):
        F = fourier_fractions(*triple)
        assert F[2 - 1] == pytest.approx(1.0, rel=1e-12)
        np.testing.assert_allclose(np.delete(F, 1), 0.0, atol=1e-14)
        np.testing.assert_allclose(F, _fractions_by_projection(*triple), atol=1e-12)


def test_zero_centred_norm_rejected():
    const = np.full(5, 2.0)
    with pytest.raises(ValueError):
        fourier_fractions(const, const, np.zeros(5))


@pytest.mark.parametrize("p", [2, 4, 6])
def test_even_p_rejected(p):
    with pytest.raises(ValueError):
        class_energies(np.arange(p, dtype=float))
