"""Float parameter vectors: two-level blocks, base points read from certificates, box samples.

Floats choose and cross-check, never bound: these are starting points for simulations.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def two_level(p: int, at_0: float, elsewhere: float) -> np.ndarray:
    """The vector x with x(0) = at_0 and x(j) = elsewhere for j != 0."""
    x = np.full(p, float(elsewhere))
    x[0] = float(at_0)
    return x


def base_point_from_certificate(certificate: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, w) of a certificate's base point, in floats (nearest doubles to the exact values)."""
    p = certificate["p"]
    return tuple(two_level(p, Fraction(block["at_0"]), Fraction(block["elsewhere"]))
                 for block in (certificate["base_point"][name] for name in ("u", "v", "w")))


def box_samples(certificate: dict, rng: np.random.Generator, count: int, inset: float = 1e-9):
    """``count`` points of the certificate's sup-norm box: uniform draws alternating with random corners.

    Each offset is scaled by (1 - inset) so that rounding keeps the floats inside the box.
    Yields (u, v, w).
    """
    p = certificate["p"]
    r = float(Fraction(certificate["radius"])) * (1 - inset)
    base = np.concatenate(base_point_from_certificate(certificate))
    for k in range(count):
        offset = rng.uniform(-r, r, 3 * p) if k % 2 == 0 else r * rng.choice([-1.0, 1.0], 3 * p)
        theta = base + offset
        yield theta[:p], theta[p:2 * p], theta[2 * p:]
