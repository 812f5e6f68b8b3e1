"""An independent oracle for the staircase tests: the loss (1.1) written out over the whole table, and its
gradient by mpmath's numerical differentiation. Nothing here uses the reduced formulas of docs/staircase.md."""

from __future__ import annotations

import mpmath as mp


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
