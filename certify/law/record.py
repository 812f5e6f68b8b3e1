"""The record of one simulated trajectory, shared by both dynamics, and what the classifier reads from it.

Floats only. A trajectory is kept at the checkpoint times of :func:`checkpoint_times` (0, four per decade,
the horizon/10 and the horizon), which is all the classifier and the plots use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from certify.numeric.fourier import fourier_fractions

__all__ = ["Trajectory", "checkpoint_times", "gate_pattern", "max_fourier_fraction", "split"]

#: Checkpoints per decade of time (besides horizon/10 and the horizon, always included).
CHECKPOINTS_PER_DECADE = 4


def checkpoint_times(horizon: float) -> np.ndarray:
    """0, then 10^(k/4) for every k with 10^(k/4) < horizon, and horizon/10 and horizon: sorted, distinct.

    Requires horizon >= 10 (the classifier compares the last decade, [horizon/10, horizon])."""
    horizon = float(horizon)
    if not (math.isfinite(horizon) and horizon >= 10):
        raise ValueError(f"the horizon must be a finite time >= 10 (the last decade is compared), got {horizon!r}")
    top = int(math.floor(CHECKPOINTS_PER_DECADE * math.log10(horizon)))
    grid = [10.0 ** (k / CHECKPOINTS_PER_DECADE) for k in range(0, top + 1)]
    grid = [t for t in grid if t < horizon] + [horizon / 10, horizon, 0.0]
    return np.array(sorted(set(grid)))


def split(theta: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, w) views of a state vector theta of shape (3p,)."""
    return theta[:p], theta[p:2 * p], theta[2 * p:]


def gate_pattern(theta: np.ndarray, p: int, kink_band) -> str:
    """The gates u(a) + v(b) row by row (a, then b) as p^2 characters: '+' active (z > band), '0' on a kink
    (|z| <= band), '-' inactive (z < -band). ``kink_band``: one number, or p^2 of them (row-major)."""
    u, v, _ = split(np.asarray(theta, dtype=np.float64), p)
    z = (u[:, None] + v[None, :]).ravel()
    band = np.broadcast_to(np.asarray(kink_band, dtype=np.float64), z.shape)
    return "".join("+" if x > b else "-" if x < -b else "0" for x, b in zip(z, band))


def max_fourier_fraction(theta: np.ndarray, p: int) -> float:
    """max over zeta of F_zeta(u, v, w) (1.5); NaN where the centred norm is 0 (F undefined)."""
    u, v, w = split(np.asarray(theta, dtype=np.float64), p)
    try:
        return float(np.max(fourier_fractions(u, v, w)))
    except ValueError:
        return math.nan


@dataclass(eq=False)
class Trajectory:
    """One simulated trajectory, as both simulators return it.

    times, states, losses   the checkpoints (``checkpoint_times(horizon)`` up to where the run ended), the
                            states as rows (u, v, w) of shape (m, 3p), and the loss (1.1) there.
    death_time              the first time every gate is <= 0 (then the gradient is 0 and the state stays);
                            None if the neuron is alive at the horizon.
    kink_band               |z| <= kink_band counts as "on a kink" in the patterns (the simulator states why):
                            one number, or p^2 of them, one per gate (row-major).
    max_loss_increase       the largest increase of the loss between consecutive evaluated states, beyond the
                            simulator's stated error allowance (0 if the loss never rose beyond it).
    balance_drift           max over the run of |B(t) - B(0)| / max(1, |theta(t)|^2), B of (A.10).
    failure                 why the simulation could not reach the horizon (None when it did).
    switches                mode changes (flow: a gate joining or leaving a kink face; gd: 0).
    seconds                 wall time of the simulation.
    """

    p: int
    dynamics: str
    horizon: float
    times: np.ndarray
    states: np.ndarray
    losses: np.ndarray
    death_time: float | None
    kink_band: float | np.ndarray
    max_loss_increase: float
    balance_drift: float
    failure: str | None = None
    switches: int = 0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def state_at(self, t: float) -> np.ndarray | None:
        """The checkpoint state at exactly time t (a checkpoint time), or None if the run ended before."""
        hits = np.flatnonzero(self.times == t)
        return self.states[hits[0]] if hits.size else None
