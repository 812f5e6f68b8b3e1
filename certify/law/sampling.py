"""Seeded initial points theta(0) ~ N(0, sigma^2 I_{3p}), conditioned on initial activity (section 1).

Sample ``index`` of a run with ``seed`` uses its own generator, ``numpy.random.Generator(PCG64(
SeedSequence([seed, index])))``, so a sample's draw does not depend on which worker computes it, in which
order, or whether the run was resumed. Draws with no active gate (probability 1/C(2p, p)) are rejected and
counted; the next draw comes from the same stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["InitialDraw", "draw_initial", "in_dead_region", "initially_active_gates"]

#: Rejections after which a draw gives up (P(inactive) = 1/C(2p, p) <= 1/252 for p >= 5).
MAX_REJECTIONS = 10_000


@dataclass(frozen=True, eq=False)
class InitialDraw:
    """One initial point: ``theta`` = (u, v, w) of shape (3p,), and the ``rejected`` inactive draws before it."""

    theta: np.ndarray
    rejected: int


def _generator(seed: int, index: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise ValueError(f"sample index must be a non-negative integer, got {index!r}")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), int(index)])))


def initially_active_gates(theta: np.ndarray, p: int) -> int:
    """The number of gates (a, b) with u(a) + v(b) > 0 (section 1: "active at initialization")."""
    theta = np.asarray(theta, dtype=np.float64)
    u, v = theta[:p], theta[p:2 * p]
    return int(np.count_nonzero(u[:, None] + v[None, :] > 0))


def in_dead_region(theta: np.ndarray, p: int) -> bool:
    """Whether theta lies in R_dead: one active gate (a*, b*), s = u(a*) + v(b*), label y = a* + b* mod p,
    gamma_y = mean(w) - w(y) > 0 and gamma_y^2 > s^2/2 ((A.58) at a general point; docs/mathematics.md,
    'Region probability of the dead theorem'). A float test: a point within rounding of the boundary may be
    misfiled, which changes nothing measurable (the boundary is a null set)."""
    theta = np.asarray(theta, dtype=np.float64)
    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    z = u[:, None] + v[None, :]
    active = np.argwhere(z > 0)
    if len(active) != 1:
        return False
    a, b = (int(i) for i in active[0])
    s = float(z[a, b])
    gamma = float(w.mean() - w[(a + b) % p])
    return gamma > 0 and gamma * gamma > s * s / 2


def draw_initial(p: int, sigma: float, seed: int, index: int) -> InitialDraw:
    """Sample ``index`` of the run ``seed``: theta ~ N(0, sigma^2 I_{3p}) redrawn until some gate is active."""
    if not (isinstance(sigma, (int, float)) and np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}")
    rng = _generator(seed, index)
    for rejected in range(MAX_REJECTIONS):
        theta = sigma * rng.standard_normal(3 * p)
        if initially_active_gates(theta, p) > 0:
            return InitialDraw(theta=theta, rejected=rejected)
    raise RuntimeError(f"no initially active draw in {MAX_REJECTIONS} tries (p = {p})")
