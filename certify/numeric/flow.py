"""Event-driven simulation of the full gradient flow until the neuron dies (appendix A.6).

The state is the full vector theta = (u, v, w) in R^{3p}; the vector field is
-gradient(u, v, w, relu_prime_at_zero=0) from ``certify.numeric.model`` (no reduced
model), evaluated as ``active_gradient``: the same field summed over the active
examples only, O(p) per evaluation in the central-only chamber instead of O(p^3).  Starting
points must have exactly the central gate (0, 0) active.  Two terminal events
are watched:

  (i)  s(t) = z[0, 0](t) reaches 0 from above: the neuron dies (section 2, A.6);
  (ii) the largest other gate reaches 0 from below: another example switches on
       and the single-active-gate picture no longer applies.

Floats only: the results may choose and cross-check, never bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from certify.numeric.model import (
    _active_gradient,
    _check_convention,
    _params,
    gates,
    gradient,
    max_other_gate,
    require_central_only,
)

__all__ = [
    "DeathResult",
    "OtherGateActivated",
    "default_t_max",
    "is_stationary",
    "simulate_until_death",
    "simulate_gd_step",
]

# Used when the hypothesis (A.58) of the death-time bound fails, so no bound is
# available; a wide horizon, after which RuntimeError reports "no death".
_FALLBACK_HORIZON_PER_P2 = 1.0e4


class OtherGateActivated(Exception):
    """A gate other than (0, 0) reached 0 from below before the central gate died.

    Attributes: ``gate`` (a, b), ``t`` (event time), ``u``, ``v``, ``w`` (state at the event).
    """

    def __init__(self, gate: tuple[int, int], t: float, u: np.ndarray, v: np.ndarray, w: np.ndarray):
        self.gate = gate
        self.t = t
        self.u, self.v, self.w = u, v, w
        super().__init__(f"gate {gate} became active at t = {t!r} before the central gate (0, 0) died")


@dataclass(frozen=True, eq=False)
class DeathResult:
    """Outcome of ``simulate_until_death``.

    t_death         first time with z[0, 0] = 0 (event (i)).
    u, v, w         state at t_death, as integrated (not snapped onto the kink).
    s_at_death      u[0] + v[0] at t_death as integrated (root-finding residual, ~0).
    max_other_gate  max over all gates (a, b) != (0, 0) of z[a, b], over the solver
                    steps and the death state; negative by construction.
    nfev            number of vector-field evaluations.
    times, central_gate, states
                    when dense=True: the solver's step times (the last is t_death)
                    merged with ``samples`` equally spaced times of [0, t_death],
                    z[0, 0] there, and the states as rows (u, v, w) of shape (n, 3p)
                    (at the step times the solver's states, between them its dense
                    output); otherwise None.
    """

    t_death: float
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    s_at_death: float
    max_other_gate: float
    nfev: int
    times: np.ndarray | None = None
    central_gate: np.ndarray | None = None
    states: np.ndarray | None = None


def _other_gates(theta: np.ndarray, p: int) -> np.ndarray:
    """Gate table of the state theta = (u, v, w), with the central entry masked to -inf."""
    z = theta[:p, None] + theta[None, p : 2 * p]
    z[0, 0] = -np.inf
    return z


def default_t_max(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """Integration horizon used when simulate_until_death gets t_max=None.

    With s0 = u[0] + v[0], gamma_in = mean(w) - w[0] and, under (A.58)
    gamma_in^2 > s0^2/2, gamma_* = sqrt(gamma_in^2 - s0^2/2), section A.6 gives
    ds/dt <= -2 gamma_*/p^2, hence T <= p^2 s0 / (2 gamma_*); we return twice that
    so the horizon is never the binding constraint.  Without (A.58) no bound is
    known and a generous fixed horizon 1e4 * p^2 * max(s0, 1) is returned.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    s0 = float(u[0] + v[0])
    gamma_in = float(w.mean() - w[0])
    if gamma_in > 0 and gamma_in**2 > s0**2 / 2:
        gamma_star = math.sqrt(gamma_in**2 - s0**2 / 2)
        return 2.0 * p**2 * s0 / (2.0 * gamma_star)
    return _FALLBACK_HORIZON_PER_P2 * p**2 * max(s0, 1.0)


def simulate_until_death(
    u: np.ndarray,
    v: np.ndarray,
    w: np.ndarray,
    t_max: float | None = None,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    max_step: float = np.inf,
    dense: bool = False,
    progress=None,
    samples: int = 0,
) -> DeathResult:
    """Integrate d theta/dt = -grad L (full 3p-dimensional flow, DOP853) until z[0, 0] hits 0.

    The start must have z[0, 0] > 0 and all other gates < 0 (ValueError otherwise).
    Raises OtherGateActivated if another gate reaches 0 first, and RuntimeError if
    t_max (default: ``default_t_max``) passes without death or the solver fails.

    The field is ``model.active_gradient`` (= ``gradient(..., relu_prime_at_zero=0)``
    exactly, summed over the active examples: O(p) per evaluation here) and the
    other-gate event uses ``model.max_other_gate`` (O(p), equal to the p x p table's
    maximum), so a run costs O(p) per solver stage.

    samples: with dense=True, also record the state at this many equally spaced times of
    [0, t_death] (ends included), read from DOP853's dense output (its 7th-order interpolant
    between two steps, accurate to about the local error tolerance rtol |y| + atol), so that
    the recorded path is as fine as a figure needs whatever the step sizes.  0: the steps only.

    progress: None, or a callable taking one float in [0, 1], the fraction 1 - s/s0 of
    the central gate consumed so far (s = u[0] + v[0], s0 its start value).  It is
    called whenever the solver evaluates the death event (after each step and in its
    root search), only with strictly increasing values, and last with 1.0 when the
    neuron dies; an exception it raises propagates and ends the run.
    """
    u, v, w = _params(u, v, w)
    require_central_only(u, v)
    p = u.shape[0]
    if t_max is None:
        t_max = default_t_max(u, v, w)
    if not (math.isfinite(t_max) and t_max > 0):
        raise ValueError(f"t_max must be finite and positive, got {t_max!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ValueError(f"samples must be a whole number >= 0, got {samples!r}")

    def rhs(_t: float, theta: np.ndarray) -> np.ndarray:
        # Inside the chamber ReLU'(0) is irrelevant; 0 matches the A.6 convention at death.
        gu, gv, gw = _active_gradient(theta[:p], theta[p : 2 * p], theta[2 * p :])
        return -np.concatenate([gu, gv, gw])

    s0 = float(u[0] + v[0])
    done = [0.0]

    def central_gate(_t: float, theta: np.ndarray) -> float:
        s = theta[0] + theta[p]
        if progress is not None:
            fraction = min(1.0, max(done[0], 1.0 - float(s) / s0))
            if fraction > done[0]:
                done[0] = fraction
                progress(fraction)
        return s

    central_gate.terminal = True
    central_gate.direction = -1

    def other_gate(_t: float, theta: np.ndarray) -> float:
        return float(max_other_gate(theta[:p], theta[p : 2 * p]))

    other_gate.terminal = True
    other_gate.direction = 1

    theta0 = np.concatenate([u, v, w])
    sol = solve_ivp(
        rhs,
        (0.0, t_max),
        theta0,
        method="DOP853",
        rtol=rtol,
        atol=atol,
        max_step=max_step,
        events=(central_gate, other_gate),
        dense_output=bool(dense and samples),
    )
    if sol.status == -1:
        raise RuntimeError(f"solver failed: {sol.message}")
    if sol.t_events[1].size:
        t_event = float(sol.t_events[1][0])
        state = sol.y_events[1][0]
        z = _other_gates(state, p)
        a, b = np.unravel_index(np.argmax(z), z.shape)
        raise OtherGateActivated(
            (int(a), int(b)), t_event, state[:p].copy(), state[p : 2 * p].copy(), state[2 * p :].copy()
        )
    if sol.status != 1 or not sol.t_events[0].size:
        raise RuntimeError(f"no death before t_max = {t_max!r} (solver: {sol.message})")

    t_death = float(sol.t_events[0][0])
    final = sol.y_events[0][0]
    # Solver steps plus the death state: the gates other than (0, 0) along the path.
    steps = np.column_stack([sol.y, final])
    max_other = float(np.max(max_other_gate(steps[:p].T, steps[p : 2 * p].T)))
    if progress is not None and done[0] < 1.0:
        progress(1.0)

    times = central = states = None
    if dense:
        times, states = sol.t.copy(), sol.y.T.copy()
        if samples:
            grid = np.linspace(0.0, t_death, samples)
            between = grid[~np.isin(grid, times)]  # the steps keep the solver's own states
            times = np.concatenate([times, between])
            states = np.vstack([states, sol.sol(between).T])
            order = np.argsort(times, kind="stable")
            times, states = times[order], states[order]
        central = states[:, 0] + states[:, p]
    return DeathResult(
        t_death=t_death,
        u=final[:p].copy(),
        v=final[p : 2 * p].copy(),
        w=final[2 * p :].copy(),
        s_at_death=float(final[0] + final[p]),
        max_other_gate=max_other,
        nfev=int(sol.nfev),
        times=times,
        central_gate=central,
        states=states,
    )


def is_stationary(u: np.ndarray, v: np.ndarray, w: np.ndarray, kink_tol: float = 1e-9) -> bool:
    """Whether the dead state is a rest point: gradient(..., relu_prime_at_zero=0) == 0 exactly.

    Requires |u[0] + v[0]| <= kink_tol and every other gate < 0 (ValueError otherwise).
    The central gate is first snapped exactly onto the kink by replacing
    (u[0], v[0]) with (m, -m), m = (u[0] - v[0])/2, which keeps the conserved
    difference u[0] - v[0] (section 2, (2.8)) and makes u[0] + v[0] == 0 in floats.
    """
    u, v, w = _params(u, v, w)
    s = float(u[0] + v[0])
    if not abs(s) <= kink_tol:
        raise ValueError(f"central gate is not on the kink: z[0, 0] = {s!r}, tolerance {kink_tol!r}")
    m = (u[0] - v[0]) / 2
    u[0], v[0] = m, -m
    z = gates(u, v)
    z[0, 0] = -np.inf
    if np.any(z >= 0):
        a, b = np.unravel_index(np.argmax(z), z.shape)
        raise ValueError(f"gate ({int(a)}, {int(b)}) is not strictly inactive (z = {z[a, b]!r})")
    gu, gv, gw = gradient(u, v, w, relu_prime_at_zero=0.0)
    return bool(np.all(gu == 0) and np.all(gv == 0) and np.all(gw == 0))


def simulate_gd_step(
    u: np.ndarray, v: np.ndarray, w: np.ndarray, eta: float, relu_prime_at_zero: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One full-batch gradient-descent step theta - eta * grad L(theta) (Theorem A.4, A.8)."""
    u, v, w = _params(u, v, w)
    _check_convention(relu_prime_at_zero)
    eta = float(eta)
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError(f"eta must be finite and positive, got {eta!r}")
    gu, gv, gw = gradient(u, v, w, relu_prime_at_zero=relu_prime_at_zero)
    return u - eta * gu, v - eta * gv, w - eta * gw
