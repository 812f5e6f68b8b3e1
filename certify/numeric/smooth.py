"""Float model of Theorem A.3: the network with a smooth dead-zone activation (appendix A.7).

The activation is sigma_eps(z) = z psi(z/eps)  (A.1), with the fixed choice

    f(t) = exp(-1/t) (t > 0),  f(t) = 0 (t <= 0),     psi(t) = f(t) / (f(t) + f(1 - t)),

so psi = 0 on (-inf, 0], psi = 1 on [1, inf), psi is C-infinity and nondecreasing, and
sigma_eps vanishes on (-inf, 0] and equals ReLU on [eps, inf).  On (0, 1),

    psi(t)  = 1 / (1 + exp(x)),                      x = 1/t - 1/(1 - t),
    psi'(t) = psi (1 - psi) (1/t^2 + 1/(1 - t)^2),
    sigma_eps / sigma_eps'  at s = eps t  equals  s phi(t),
    phi(t)  = (R + 1) / (R + 1 + 1/t + t/(1 - t)^2),   R = exp(-x) = exp(1/(1 - t) - 1/t),

the last because sigma/sigma' = s / (1 + t psi'/psi) and 1 - psi = 1/(1 + R); phi = 1 on [1, inf).

The gradient flow is integrated from a point where only the central gate (0, 0) is
active.  There s = u(0) + v(0) decreases for ever, ever more slowly (near s = 0 the
time to move is of order exp(eps/s)), so s itself is the clock:
d theta/ds = grad L / (dL/du(0) + dL/dv(0)).  See ``simulate_smooth``.

Floats only: the results may choose and cross-check, never bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.special import expit, logsumexp, softmax

from certify.numeric.model import _active_examples, _params, labels, require_central_only

__all__ = [
    "psi",
    "psi_prime",
    "sigma",
    "sigma_prime",
    "sigma_ratio",
    "ratio_integral",
    "loss",
    "active_loss",
    "gradient",
    "OtherGateActivated",
    "SmoothResult",
    "default_s_min",
    "simulate_smooth",
]

# Below t = s/eps = 1/400 the rates are taken from the factored form (see _rates):
# at t = 1/400, psi ~ exp(-399) ~ 1e-173, so sigma, sigma' and every full-table
# gradient entry are still normal doubles carrying full relative precision, and
# their quotient is accurate.  Much further down (t < ~1/700) they become subnormal
# and then 0, and the quotient of the full-table gradient is meaningless.
_FULL_TABLE_MIN_T = 1.0 / 400.0
# exp() arguments are clipped here; exp(700) ~ 1e304 already makes every term it
# divides negligible, and avoids overflow warnings.
_EXP_CLIP = 700.0


# ----------------------------------------------------------------------------------------------
# The activation
# ----------------------------------------------------------------------------------------------


def _real_array(x, name: str) -> tuple[np.ndarray, bool]:
    """float64 copy of x (scalar or array) and whether x was a scalar; ValueError on NaN."""
    arr = np.array(x, dtype=np.float64)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not contain NaN")
    return arr, arr.ndim == 0


def _result(arr: np.ndarray, scalar: bool):
    return float(arr) if scalar else arr


def _eps(eps) -> float:
    """Validate the dead-zone width: a finite positive number."""
    try:
        value = float(eps)
    except (TypeError, ValueError):
        raise ValueError(f"eps must be a finite positive number, got {eps!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"eps must be a finite positive number, got {eps!r}")
    return value


def _interior_exponent(t: np.ndarray) -> np.ndarray:
    """x = 1/t - 1/(1 - t) for 0 < t < 1 (+inf when 1/t overflows, i.e. t subnormal)."""
    with np.errstate(over="ignore", divide="ignore"):
        return 1.0 / t - 1.0 / (1.0 - t)


def _psi(t: np.ndarray) -> np.ndarray:
    out = np.where(t >= 1.0, 1.0, 0.0)
    m = (t > 0.0) & (t < 1.0)
    if np.any(m):
        # psi = 1/(1 + e^x) = expit(-x); expit saturates to 0 / 1 without overflow.
        out[m] = expit(-_interior_exponent(t[m]))
    return out


def _psi_prime(t: np.ndarray) -> np.ndarray:
    out = np.zeros_like(t)
    m = (t > 0.0) & (t < 1.0)
    if np.any(m):
        tm = t[m]
        ax = np.abs(_interior_exponent(tm))
        a = np.minimum(tm, 1.0 - tm)
        b = np.maximum(tm, 1.0 - tm)
        # log(1/t^2 + 1/(1-t)^2) = -2 log a + log1p((a/b)^2): finite for every double t in (0,1),
        # so e^{-|x|} and the huge factor never meet as 0 * inf.
        log_factor = -2.0 * np.log(a) + np.log1p((a / b) ** 2)
        e = np.exp(-ax)
        # psi (1 - psi) = e^{-|x|} / (1 + e^{-|x|})^2
        out[m] = np.exp(-ax + log_factor) / (1.0 + e) ** 2
    return out


def _phi(t: np.ndarray) -> np.ndarray:
    """phi(t) = sigma/(sigma' s) at s = eps t, for t > 0 (phi = 1 on [1, inf))."""
    out = np.ones_like(t)
    m = t < 1.0
    if np.any(m):
        tm = t[m]
        with np.errstate(over="ignore", divide="ignore"):
            inv_t = 1.0 / tm
            R = np.exp(np.minimum(1.0 / (1.0 - tm) - inv_t, _EXP_CLIP))
            # phi = (R+1)/(R+1+1/t+t/(1-t)^2) = 1/(1 + (1/t + t/(1-t)^2)/(1+R)); 1/t = inf gives phi = 0.
            out[m] = 1.0 / (1.0 + (inv_t + tm / (1.0 - tm) ** 2) / (1.0 + R))
    return out


def psi(t):
    """The smooth step psi(t) = f(t)/(f(t) + f(1-t)), f(t) = exp(-1/t) for t > 0, 0 otherwise.

    Vectorised; 0 for t <= 0, 1 for t >= 1, expit(1/(1-t) - 1/t) in between.
    Scalars give floats.  ValueError on NaN.
    """
    t, scalar = _real_array(t, "t")
    return _result(_psi(t), scalar)


def psi_prime(t):
    """psi'(t) = psi (1 - psi) (1/t^2 + 1/(1-t)^2) on (0, 1), 0 elsewhere (evaluated in log form)."""
    t, scalar = _real_array(t, "t")
    return _result(_psi_prime(t), scalar)


def _scaled(z, eps) -> tuple[np.ndarray, np.ndarray, bool, float]:
    z, scalar = _real_array(z, "z")
    eps = _eps(eps)
    with np.errstate(over="ignore"):
        t = z / eps
    return z, t, scalar, eps


def sigma(z, eps):
    """The dead-zone activation sigma_eps(z) = z psi(z/eps)  (A.1): 0 for z <= 0, z for z >= eps."""
    z, t, scalar, _ = _scaled(z, eps)
    out = np.zeros_like(z)
    pos = z > 0
    out[pos] = z[pos] * _psi(t[pos])
    return _result(out, scalar)


def sigma_prime(z, eps):
    """sigma_eps'(z) = psi(z/eps) + (z/eps) psi'(z/eps)  (A.61): 0 for z <= 0, 1 for z >= eps."""
    z, t, scalar, _ = _scaled(z, eps)
    out = np.where(t >= 1.0, 1.0, 0.0)
    m = (t > 0.0) & (t < 1.0)
    if np.any(m):
        tm = t[m]
        out[m] = _psi(tm) + tm * _psi_prime(tm)
    return _result(out, scalar)


def sigma_ratio(s, eps):
    """sigma_eps(s)/sigma_eps'(s) for s >= 0, computed as s phi(s/eps) (module docstring).

    Both sigma and sigma' underflow for s << eps (sigma ~ s exp(-eps/s)), their quotient
    does not: it behaves like s^2/eps as s -> 0.  At s = 0 the continuous extension 0 is
    returned.  By (A.61), 0 < sigma_ratio(s) <= s for s > 0.  ValueError for s < 0.
    """
    s, t, scalar, _ = _scaled(s, eps)
    if np.any(s < 0):
        raise ValueError("sigma_ratio is defined for s >= 0 only")
    out = np.zeros_like(s)
    pos = s > 0
    out[pos] = s[pos] * _phi(t[pos])
    return _result(out, scalar)


def ratio_integral(s: float, eps: float) -> float:
    """J(s) = int_0^s sigma_eps/sigma_eps' (A.66), by scipy quad on [0, min(s, eps)].

    For s > eps the remainder is exact: int_eps^s r dr = (s^2 - eps^2)/2.  J(s) <= s^2/2.
    """
    eps = _eps(eps)
    s = float(s)
    if not (math.isfinite(s) and s >= 0):
        raise ValueError(f"s must be finite and >= 0, got {s!r}")
    top = min(s, eps)
    if top == 0.0:
        return 0.0
    value, _ = quad(lambda r: sigma_ratio(r, eps), 0.0, top, epsabs=0.0, epsrel=1e-13, limit=200)
    if s > eps:
        value += (s * s - eps * eps) / 2.0
    return float(value)


# ----------------------------------------------------------------------------------------------
# Loss and gradient (1.1) with sigma_eps in place of ReLU
# ----------------------------------------------------------------------------------------------


def loss(u: np.ndarray, v: np.ndarray, w: np.ndarray, eps: float) -> float:
    """Full-table cross-entropy (1.1) with activation h[a, b] = sigma_eps(u[a] + v[b])."""
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    h = sigma(u[:, None] + v[None, :], eps)
    lse = logsumexp(h[:, :, None] * w[None, None, :], axis=2)
    return float(np.sum(lse - h * w[labels(p)]) / p**2)


def active_loss(u: np.ndarray, v: np.ndarray, w: np.ndarray, eps: float) -> float:
    """``loss(u, v, w, eps)`` in O(p + k p) for k examples with gate z > 0 (O(p) in the central-only chamber).

    sigma_eps(z) = z psi(z/eps) is exactly 0 for z <= 0 (psi vanishes there), so such an example has h = 0,
    all logits 0 and contributes exactly log p; the p^2 - k of them are added as one product, the active
    ones by their stable log-sum-exp (as ``model.active_loss`` for the ReLU).  Differs from ``loss`` only
    by the summation's rounding.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    a, b, z = _active_examples(u, v)
    h = sigma(z, eps)
    active = float(np.sum(logsumexp(h[:, None] * w[None, :], axis=1) - h * w[(a + b) % p]))
    return ((p * p - len(z)) * float(np.log(p)) + active) / p**2


def gradient(u: np.ndarray, v: np.ndarray, w: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradient (gu, gv, gw) of the smooth loss over the full p x p table.

    Per example (a, b) with gate z and label y: with h = sigma_eps(z), q = softmax(h w)
    and g = sum_c q_c w[c] - w[y]  (A.3)-(A.4), it adds sigma_eps'(z) g/p^2 to gu[a] and
    gv[b] and h (q_c - 1{c=y})/p^2 to gw[c].  The flow is d theta/dt = -(gu, gv, gw).
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    y = labels(p)
    z = u[:, None] + v[None, :]
    h = sigma(z, eps)
    q = softmax(h[:, :, None] * w[None, None, :], axis=2)
    dz = sigma_prime(z, eps) * (q @ w - w[y])
    gu = dz.sum(axis=1) / p**2
    gv = dz.sum(axis=0) / p**2
    gw = (np.einsum("ab,abc->c", h, q) - np.bincount(y.ravel(), weights=h.ravel(), minlength=p)) / p**2
    return gu, gv, gw


# ----------------------------------------------------------------------------------------------
# The flow, with s = u(0) + v(0) as the clock
# ----------------------------------------------------------------------------------------------


class OtherGateActivated(Exception):
    """A gate other than (0, 0) reached 0 from below during ``simulate_smooth``.

    Attributes: ``gate`` (a, b), ``s`` (clock value u(0) + v(0) at the event), ``u``, ``v``, ``w``.
    """

    def __init__(self, gate: tuple[int, int], s: float, u: np.ndarray, v: np.ndarray, w: np.ndarray):
        self.gate = gate
        self.s = s
        self.u, self.v, self.w = u, v, w
        super().__init__(f"gate {gate} became active at s = u(0) + v(0) = {s!r}; only (0, 0) may be active")


@dataclass(frozen=True, eq=False)
class SmoothResult:
    """Outcome of ``simulate_smooth``.

    s0, eps, s_min  start of the clock s = u(0) + v(0), dead-zone width, end of the clock.
    u, v, w         state at s = s_min, as integrated.
    s_end           u[0] + v[0] of that state (equals s_min up to rounding).
    g0              g = mean(w) - w[0] at the start.
    J_s0, J_end     J(s0) and J(s_end), J(s) = int_0^s sigma/sigma'  (A.66).
    g_star          sqrt(g0^2 - J(s0))  (A.68); NaN when (A.67) g0 > 0, g0^2 > J(s0) fails.
    tail_bound      J(s_end)/g_star >= ||w_inf - w(s_end)||_1 by (A.69) (inf without (A.67)).
    u_limit, v_limit, w_limit
                    limit estimate: (u(0), v(0)) -> ((u(0) - v(0))/2, -(u(0) - v(0))/2) (the
                    difference is conserved, the sum goes to 0), and
                    w_limit = w - J(s_end) (q - e_0)/(2 D) with q, D of (A.52) at s_end: the
                    tail integral with q and D frozen (their change below s_end is O(sigma(s_end))
                    and O(J(s_end)), so the error is far below tail_bound).
    max_other_gate  max of all gates other than (0, 0) over the solver steps (negative).
    nfev            vector-field evaluations.
    s_path, u_path, v_path, w_path
                    dense=True: the solver's s-steps merged with ``samples`` equally
                    spaced clock values of [s_end, s0] (decreasing) and the states there
                    (between the steps from the solver's dense output), shapes (n,) and
                    (n, p); otherwise None.
    """

    s0: float
    eps: float
    s_min: float
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    s_end: float
    g0: float
    J_s0: float
    J_end: float
    g_star: float
    tail_bound: float
    u_limit: np.ndarray
    v_limit: np.ndarray
    w_limit: np.ndarray
    max_other_gate: float
    nfev: int
    s_path: np.ndarray | None = None
    u_path: np.ndarray | None = None
    v_path: np.ndarray | None = None
    w_path: np.ndarray | None = None


def _central_D(s: float, w: np.ndarray, eps: float) -> tuple[np.ndarray, float]:
    """q = softmax(sigma(s) w) and D = q.w - w[0] of the central example (A.52)."""
    q = softmax(sigma(s, eps) * w)
    return q, float(q @ w - w[0])


def _rates_full(theta: np.ndarray, p: int, eps: float) -> np.ndarray:
    """d theta/ds = grad L/(dL/du(0) + dL/dv(0)) from the full-table ``gradient``."""
    gu, gv, gw = gradient(theta[:p], theta[p : 2 * p], theta[2 * p :], eps)
    return np.concatenate([gu, gv, gw]) / (gu[0] + gv[0])


def _rates_factored(theta: np.ndarray, p: int, eps: float) -> np.ndarray:
    """d theta/ds in the central-only chamber, with sigma/sigma' factored out.

    Only the central example (label 0) contributes, so dL/du(0) = dL/dv(0) = sigma'(s) D/p^2
    and grad_w L = sigma(s)(q - e_0)/p^2: du(0)/ds = dv(0)/ds = 1/2, the other u, v rates
    vanish and dw/ds = (sigma/sigma')(s) (q - e_0)/(2 D).
    """
    s = float(theta[0] + theta[p])
    w = theta[2 * p :]
    q, D = _central_D(s, w, eps)
    out = np.zeros(3 * p)
    out[0] = out[p] = 0.5
    dw = q.copy()
    dw[0] -= 1.0
    out[2 * p :] = sigma_ratio(s, eps) * dw / (2.0 * D)
    return out


def _rates(theta: np.ndarray, p: int, eps: float) -> np.ndarray:
    """d theta/ds: full-table gradient while s/eps >= 1/400, factored form below (see top)."""
    s = float(theta[0] + theta[p])
    if s >= _FULL_TABLE_MIN_T * eps:
        return _rates_full(theta, p, eps)
    return _rates_factored(theta, p, eps)


def _other_gates(theta: np.ndarray, p: int) -> np.ndarray:
    z = theta[:p, None] + theta[None, p : 2 * p]
    z[0, 0] = -np.inf
    return z


def default_s_min(s0: float, eps: float) -> float:
    """min(eps/400, s0/2).

    eps/400 is where the full-table gradient is still accurate (sigma_eps ~ s e^{-400} is a
    normal double); the tail below it moves w by at most J(eps/400)/g_* ~ (eps/400)^3/(3 eps g_*)
    (J(s) ~ s^3/(3 eps) for small s), ~1e-8 for eps = 2, g_* ~ 1.5.
    """
    return min(_FULL_TABLE_MIN_T * _eps(eps), float(s0) / 2.0)


def simulate_smooth(
    u: np.ndarray,
    v: np.ndarray,
    w: np.ndarray,
    eps: float,
    s_min: float | None = None,
    rtol: float = 1e-10,
    atol: float = 1e-13,
    dense: bool = False,
    samples: int = 0,
) -> SmoothResult:
    """Integrate the smooth gradient flow (full 3p-dimensional state, DOP853) with s as the clock.

    The start must have z[0, 0] = s0 > 0 and every other gate < 0 (ValueError naming the gate
    otherwise), and D(sigma(s0), w) > 0 so that s is decreasing (ValueError otherwise).  Since
    ds/dt = -(dL/du(0) + dL/dv(0)) < 0, the flow is reparametrised as
    d theta/ds = grad L/(dL/du(0) + dL/dv(0)) and integrated from s0 down to s_min (default
    ``default_s_min``; any 0 < s_min < s0 works, below s = eps/400 the rates use the
    factored form with sigma_ratio).  The corresponding time is astronomically large
    (dt/ds ~ exp(eps/s)) and is not computed.

    Raises OtherGateActivated if another gate reaches 0 (an event; it cannot happen for the
    true flow, whose other gates only decrease), RuntimeError if D reaches 0 or the solver
    fails.  Under (A.67) D >= g >= g_* > 0 throughout; without it D can tend to 0, where
    dw/ds ~ 1/D blows up (s turns around in time) and the solver typically stops first.

    samples: with dense=True, also record the state at this many equally spaced values of the
    clock in [s_end, s0] (ends included), read from DOP853's dense output (its 7th-order
    interpolant, accurate to about the local error tolerance), so that the recorded path is as
    fine as a figure needs whatever the step sizes.  0: the steps only.
    """
    u, v, w = _params(u, v, w)
    eps = _eps(eps)
    require_central_only(u, v)
    p = u.shape[0]
    s0 = float(u[0] + v[0])
    if s_min is None:
        s_min = default_s_min(s0, eps)
    s_min = float(s_min)
    if not (math.isfinite(s_min) and 0.0 < s_min < s0):
        raise ValueError(f"need 0 < s_min < s0 = {s0!r}, got s_min = {s_min!r}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not (math.isfinite(float(tol)) and float(tol) > 0):
            raise ValueError(f"{name} must be finite and positive, got {tol!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ValueError(f"samples must be a whole number >= 0, got {samples!r}")
    _, D0 = _central_D(s0, w, eps)
    if not D0 > 0:
        raise ValueError(f"D(sigma(s0), w) = {D0!r} <= 0: s = u(0) + v(0) is not decreasing at the start")

    def rhs(_s: float, theta: np.ndarray) -> np.ndarray:
        return _rates(theta, p, eps)

    def other_gate(_s: float, theta: np.ndarray) -> float:
        return float(np.max(_other_gates(theta, p)))

    other_gate.terminal = True
    other_gate.direction = 1

    def clock_stalls(_s: float, theta: np.ndarray) -> float:
        return _central_D(float(theta[0] + theta[p]), theta[2 * p :], eps)[1]

    clock_stalls.terminal = True
    clock_stalls.direction = -1

    theta0 = np.concatenate([u, v, w])
    sol = solve_ivp(
        rhs, (s0, s_min), theta0, method="DOP853", rtol=rtol, atol=atol, events=(other_gate, clock_stalls),
        dense_output=bool(dense and samples),
    )
    if sol.status == -1:
        last = sol.y[:, -1]
        D_last = _central_D(float(last[0] + last[p]), last[2 * p :], eps)[1]
        raise RuntimeError(
            f"solver failed at s = {float(sol.t[-1])!r} with D = {D_last!r} (initially {D0!r}): {sol.message} "
            "(a D near 0 means s = u(0) + v(0) is about to turn around, so s is no clock; (A.67) fails)"
        )
    if sol.t_events[0].size:
        state = sol.y_events[0][0]
        z = _other_gates(state, p)
        a, b = np.unravel_index(np.argmax(z), z.shape)
        raise OtherGateActivated(
            (int(a), int(b)), float(sol.t_events[0][0]), state[:p].copy(), state[p : 2 * p].copy(),
            state[2 * p :].copy()
        )
    if sol.t_events[1].size:
        raise RuntimeError(f"D reached 0 at s = {float(sol.t_events[1][0])!r}: the clock s stops decreasing")

    final = sol.y[:, -1]
    u1, v1, w1 = final[:p].copy(), final[p : 2 * p].copy(), final[2 * p :].copy()
    s_end = float(u1[0] + v1[0])
    z_all = sol.y[:p, None, :] + sol.y[None, p : 2 * p, :]
    z_all[0, 0, :] = -np.inf
    max_other = float(np.max(z_all))

    g0 = float(w.mean() - w[0])
    J_s0 = ratio_integral(s0, eps)
    J_end = ratio_integral(max(s_end, 0.0), eps)
    if g0 > 0 and g0 * g0 > J_s0:
        g_star = math.sqrt(g0 * g0 - J_s0)
        tail_bound = J_end / g_star
    else:
        g_star, tail_bound = math.nan, math.inf

    # Limit estimate (see SmoothResult).
    q, D = _central_D(s_end, w1, eps)
    e0 = np.zeros(p)
    e0[0] = 1.0
    w_lim = w1 - J_end * (q - e0) / (2.0 * D)
    m = (u1[0] - v1[0]) / 2.0
    u_lim, v_lim = u1.copy(), v1.copy()
    u_lim[0], v_lim[0] = m, -m

    paths = (None,) * 4
    if dense:
        clock, states = sol.t.copy(), sol.y.T.copy()
        if samples:
            grid = np.linspace(s0, float(sol.t[-1]), samples)
            between = grid[~np.isin(grid, clock)]  # the steps keep the solver's own states
            clock = np.concatenate([clock, between])
            states = np.vstack([states, sol.sol(between).T])
            order = np.argsort(-clock, kind="stable")
            clock, states = clock[order], states[order]
        paths = (clock, states[:, :p].copy(), states[:, p : 2 * p].copy(), states[:, 2 * p :].copy())
    return SmoothResult(
        s0=s0,
        eps=eps,
        s_min=s_min,
        u=u1,
        v=v1,
        w=w1,
        s_end=s_end,
        g0=g0,
        J_s0=J_s0,
        J_end=J_end,
        g_star=g_star,
        tail_bound=tail_bound,
        u_limit=u_lim,
        v_limit=v_lim,
        w_limit=w_lim,
        max_other_gate=max_other,
        nfev=int(sol.nfev),
        s_path=paths[0],
        u_path=paths[1],
        v_path=paths[2],
        w_path=paths[3],
    )
