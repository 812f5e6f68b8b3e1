"""Fourier-energy fractions of the recentred parameters (paper (1.2)-(1.5)).

For odd p, the nonzero real Fourier classes are zeta = 1 .. (p-1)/2, each the
span of a -> cos(2 pi zeta a / p), sin(2 pi zeta a / p)  (1.3).  With the
unitary DFT xhat, ||Pi_zeta x||^2 = |xhat(zeta)|^2 + |xhat(-zeta)|^2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["centered", "class_energies", "fourier_fractions"]


def _vector(x: np.ndarray) -> np.ndarray:
    """Validate a finite 1-D vector of odd length p >= 3; return a float64 copy."""
    x = np.array(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"expected a 1-D vector, got shape {x.shape}")
    if x.shape[0] < 3 or x.shape[0] % 2 == 0:
        raise ValueError(f"the real Fourier classes need odd p >= 3, got p = {x.shape[0]}")
    if not np.all(np.isfinite(x)):
        raise ValueError("vector must be finite")
    return x


def centered(x: np.ndarray) -> np.ndarray:
    """Recentred vector x_0 = x - mean(x) * 1  (1.2)."""
    x = np.array(x, dtype=np.float64)
    if x.ndim != 1 or x.shape[0] == 0:
        raise ValueError(f"expected a non-empty 1-D vector, got shape {x.shape}")
    return x - x.mean()


def class_energies(x: np.ndarray) -> np.ndarray:
    """Array E with E[zeta - 1] = ||Pi_zeta x_0||^2 for zeta = 1 .. (p-1)/2  ((1.3), (1.5)).

    Computed from the unitary DFT: ||Pi_zeta x_0||^2 = |x0hat(zeta)|^2 + |x0hat(p - zeta)|^2.
    """
    x0 = centered(_vector(x))
    p = x0.shape[0]
    xhat = np.fft.fft(x0) / np.sqrt(p)
    zeta = np.arange(1, (p - 1) // 2 + 1)
    return np.abs(xhat[zeta]) ** 2 + np.abs(xhat[p - zeta]) ** 2


def fourier_fractions(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Array F with F[zeta - 1] = F_zeta(u, v, w), the combined Fourier-energy fraction (1.5).

    F_zeta = (||Pi u_0||^2 + ||Pi v_0||^2 + ||Pi w_0||^2) / (||u_0||^2 + ||v_0||^2 + ||w_0||^2).
    Raises ValueError when the denominator is 0 (F is undefined there).
    """
    u, v, w = (_vector(x) for x in (u, v, w))
    if not (u.shape == v.shape == w.shape):
        raise ValueError(f"u, v, w must have equal length, got {u.shape[0]}, {v.shape[0]}, {w.shape[0]}")
    denom = sum(float(x0 @ x0) for x0 in (centered(u), centered(v), centered(w)))
    if denom == 0.0:
        raise ValueError("combined centred norm is 0: the Fourier fractions (1.5) are undefined")
    return (class_energies(u) + class_energies(v) + class_energies(w)) / denom
