"""An independent oracle for the staircase tests: the loss (1.1) written out over the whole table, its gradient by
mpmath's numerical differentiation, the softmax of (A.4) and the Fourier fractions (1.5) by numpy's FFT. Nothing
here uses the reduced formulas of docs/staircase.md."""

from __future__ import annotations

import mpmath as mp
import numpy as np


def full_loss(u, v, w, p):
    """L(theta) = (1/p^2) sum_{a, b} ell_{a+b}(ReLU(u(a) + v(b))), ell_y(h) = log sum_c e^{h w(c)} - h w(y) ((1.1), (A.2))."""
    total = mp.mpf(0)
    for a in range(p):
        for b in range(p):
            h = max(u[a] + v[b], mp.mpf(0))
            total += mp.log(mp.fsum(mp.exp(h * wc) for wc in w)) - h * w[(a + b) % p]
    return total / p**2


def gradient_entry(u, v, w, p, block: str, index: int):
    """dL/d(block[index]) by mpmath.diff (the state must be away from every kink, so that L is smooth there)."""
    def along(t):
        blocks = {"u": list(u), "v": list(v), "w": list(w)}
        blocks[block][index] += t
        return full_loss(blocks["u"], blocks["v"], blocks["w"], p)
    return mp.diff(along, 0)


def softmax(z, w):
    """q(z) = softmax(z w) (A.4), in mpmath, shifted by max(w) so that no exponential overflows."""
    top = max(w)
    e = [mp.exp(z * (x - top)) for x in w]
    total = mp.fsum(e)
    return [x / total for x in e]


def max_fourier_fraction(u, v, w, p):
    """max over nonzero classes of F_zeta (1.5), by the FFT of the centred blocks."""
    energy = np.zeros(p)
    total = 0.0
    for x in (u, v, w):
        x0 = x - x.mean()
        energy += np.abs(np.fft.fft(x0)) ** 2 / p
        total += x0 @ x0
    return max((energy[z] + energy[p - z]) / total for z in range(1, (p + 1) // 2))
