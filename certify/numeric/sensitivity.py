"""Event sensitivity of the death event, the discrete side (issue 15).  Floats: cross-checks, never bounds.

Section 2 of the paper, reduced coordinates y = (s, a, b) = (u(0) + v(0), w(0), w(j)), j != 0,
at the base point (2.1): y0 = (eps, -A, 0), g = b - a, field (2.2)-(2.4)

    ds/dt = -(2/p^2) r g,   da/dt = (s/p^2) r,   db/dt = -(s/p^2) r / (p - 1),
    r = 1 - pi0 = (p-1) e^{sg} / (1 + (p-1) e^{sg}),

invariant (2.6) g^2 - c s^2 = Gamma, c = p / (2(p-1)).  The central gate reaches s = 0 at T,
transversally ((2.7): ds/dt(T-) = -2(p-1) sqrt(Gamma) / p^3).  With s as the clock
(da/ds = -s/(2g), db/ds = s/(2(p-1)g), g(s) = sqrt(Gamma + c s^2)) the terminal map is

    Psi(y0) = y(T(y0)) = (0, a0 + D/(2c), b0 - D/(2c(p-1))),   D = g0 - sqrt(Gamma),

and the hitting time is T(y0) = int_0^{s0} (p^2/2) (1 + e^{-sigma G}/(p-1)) / G d sigma with
G = G(sigma) = sqrt(Gamma + c sigma^2) (1/r = 1 + e^{-sg}/(p-1)); Gamma = g0^2 - c s0^2 carries
the dependence on y0 besides the upper limit.  Differentiating, Psi(y0) = phi(T(y0), y0) gives

    Psi' = J_reg + f(y(T)) grad T^T,   f(y(T)) = (ds/dt(T-), 0, 0),

where J_reg = D phi_{T*}(y0) is the derivative of the flow map at the FIXED base time T* of the
smooth field continued across s = 0 (the same formulas for s < 0).  The s row of Psi' is 0, so
grad T^T = -n^T J_reg / (n^T f) with n = e_s, and Psi' = S J_reg, S = I - f n^T / (n^T f).  The
gap Psi' - J_reg = f grad T^T is rank one and |Psi' - J_reg|_F = |ds/dt(T-)| |grad T|.

The discrete side (``gd_sensitivity``): gradient descent theta_{k+1} = theta_k - eta grad L(theta_k)
on the FULL 3p-parameter network (loss (1.1), ReLU'(0) = 0, every gate of the p x p table
evaluated, as in ``certify.numeric.model.gradient``), differentiated exactly by the complex step
through the executed branch sequence.  Its derivative J_AD approaches J_reg at rate O(eta), not
Psi': a hard-branch step has Jacobian I + O(eta), so no finite event transfer survives
(relu-event-sensitivity-summary, Theorem 13).  Inserting S at the event step restores Psi'.

Everything here is floats (numpy, scipy, mpmath for the test oracle): cross-checks, never bounds.
The certified enclosures are in ``certify.kernel.sensitivity``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy.integrate import quad, solve_ivp

from certify.figures import DEFAULT_DPI as DPI, EXPERIMENT_SIZE as FIGSIZE  # the figure's size (inches), resolution

from .model import labels

__all__ = [
    "HORIZON_FACTOR", "ETAS", "base_reduced", "reduced_field", "reduced_jacobian", "hitting_time",
    "hitting_time_gradient", "event_speed", "terminal_map", "terminal_map_derivative",
    "regional_derivative", "regional_derivative_ode", "saltation_matrix", "mp_flow_derivatives",
    "gd_sensitivity", "nonresonant_eta", "resonant_eta", "sensitivity_table", "plot_sensitivity",
]

HORIZON_FACTOR = 1.5  # GD runs for K = round(1.5 T* / eta) steps: the same horizon 1.5 T* for every eta
ETAS = (1e-1, 1e-2, 1e-3, 1e-4)
COMPLEX_STEP = 1e-30  # imaginary step of the complex-step derivative (no subtractive cancellation)


# --------------------------------------------------------------------------- validation

def _is_prime(p: int) -> bool:
    if p < 2:
        return False
    return all(p % d for d in range(2, math.isqrt(p) + 1))


def _check(p, epsilon, A, B) -> tuple[int, float, float, float]:
    """Validate (p, epsilon, A, B) against section 2's hypotheses; floats: cross-checks, never bounds."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise ValueError(f"p must be an integer prime >= 5, got {p!r}")
    p = int(p)
    if p < 5 or not _is_prime(p):
        raise ValueError(f"p must be a prime >= 5, got p = {p}")
    try:
        epsilon, A, B = float(epsilon), float(A), float(B)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon, A, B must be numbers, got {epsilon!r}, {A!r}, {B!r}")
    if not all(math.isfinite(x) and x > 0 for x in (epsilon, A, B)):
        raise ValueError(f"epsilon, A, B must be finite and positive, got {epsilon}, {A}, {B}")
    c = p / (2 * (p - 1))
    if not B > epsilon / 2:
        raise ValueError(f"need B > epsilon/2 (section 2), got B = {B}, epsilon = {epsilon}")
    if not A * A > c * epsilon * epsilon:
        raise ValueError(f"need A^2 > p/(2(p-1)) epsilon^2 (section 2), got A = {A}, epsilon = {epsilon}")
    return p, epsilon, A, B


def _check_eta(eta) -> float:
    try:
        eta = float(eta)
    except (TypeError, ValueError):
        raise ValueError(f"step size eta must be a number, got {eta!r}")
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError(f"step size eta must be finite and > 0, got eta = {eta!r}")
    return eta


# --------------------------------------------------------------------------- reduced flow, closed forms

def base_reduced(epsilon=1.0, A=2.0, B=1.0) -> np.ndarray:
    """y0 = (s, a, b) = (epsilon, -A, 0) of the base point (2.1).  Floats: cross-checks, never bounds."""
    return np.array([float(epsilon), -float(A), 0.0])


def _r(p, s, g):
    """r = 1 - pi0 = 1 / (1 + e^{-sg}/(p-1)), written without overflow for either sign of s g."""
    x = s * g + math.log(p - 1)
    return 1.0 / (1.0 + np.exp(-x)) if x >= 0 else np.exp(x) / (1.0 + np.exp(x))


def reduced_field(p: int, y) -> np.ndarray:
    """f(y) of (2.2)-(2.4), continued to s < 0 by the same formulas.  Floats: cross-checks, never bounds."""
    s, a, b = (float(t) for t in y)
    g = b - a
    r = _r(p, s, g)
    return np.array([-2.0 * r * g / p**2, s * r / p**2, -s * r / (p**2 * (p - 1))])


def reduced_jacobian(p: int, y) -> np.ndarray:
    """Df(y) of the continued field (rows s, a, b; columns d/ds, d/da, d/db).  Floats: cross-checks, never bounds.

    With x = s g, dr/dx = r (1 - r), dx/d(s, a, b) = (g, -s, s), dg/d(s, a, b) = (0, -1, 1).
    """
    s, a, b = (float(t) for t in y)
    g = b - a
    r = _r(p, s, g)
    rx = r * (1.0 - r)
    dx = np.array([g, -s, s])
    dg = np.array([0.0, -1.0, 1.0])
    dr = rx * dx
    ds = -(2.0 / p**2) * (dr * g + r * dg)
    da = (1.0 / p**2) * (dr * s + r * np.array([1.0, 0.0, 0.0]))
    return np.array([ds, da, -da / (p - 1)])


def _gamma(p, y):
    s, a, b = y
    c = p / (2 * (p - 1))
    return (b - a) ** 2 - c * s * s


def hitting_time(p: int, y0=None, epsilon=1.0, A=2.0, B=1.0) -> float:
    """T(y0) = int_0^{s0} (p^2/2)(1 + e^{-sigma G}/(p-1))/G d sigma by quad.  Floats: cross-checks, never bounds."""
    p, epsilon, A, B = _check(p, epsilon, A, B)
    y0 = base_reduced(epsilon, A, B) if y0 is None else np.asarray(y0, dtype=float)
    c = p / (2 * (p - 1))
    gam = _gamma(p, y0)

    def h(sig):
        G = math.sqrt(gam + c * sig * sig)
        return 0.5 * p**2 * (1.0 + math.exp(-sig * G) / (p - 1)) / G

    return quad(h, 0.0, y0[0], epsabs=0.0, epsrel=2e-14, limit=200)[0]


def hitting_time_gradient(p: int, epsilon=1.0, A=2.0, B=1.0) -> np.ndarray:
    """grad T = (dT/ds0, dT/da0, dT/db0) by differentiating the integral under the sign (quad).

    dT/ds0 = h(s0) + I (-2 c s0), dT/db0 = -dT/da0 = I (2 g0), I = int_0^{s0} dh/dGamma d sigma,
    dh/dGamma = (1/(2G)) dh/dG, dh/dG = (p^2/2)[-1/G^2 - e^{-sigma G}(sigma/G + 1/G^2)/(p-1)].
    Floats: cross-checks, never bounds.
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    s0, a0, b0 = base_reduced(epsilon, A, B)
    g0 = b0 - a0
    c = p / (2 * (p - 1))
    gam = g0 * g0 - c * s0 * s0

    def dh_dgamma(sig):
        G = math.sqrt(gam + c * sig * sig)
        e = math.exp(-sig * G) / (p - 1)
        return 0.5 * p**2 * (-1.0 / G**2 - e * (sig / G + 1.0 / G**2)) / (2.0 * G)

    integral = quad(dh_dgamma, 0.0, s0, epsabs=0.0, epsrel=2e-14, limit=200)[0]
    G0 = g0  # G(s0) = sqrt(Gamma + c s0^2) = g0
    h0 = 0.5 * p**2 * (1.0 + math.exp(-s0 * G0) / (p - 1)) / G0
    dg = integral * 2.0 * g0
    return np.array([h0 - 2.0 * c * s0 * integral, -dg, dg])


def event_speed(p: int, epsilon=1.0, A=2.0, B=1.0) -> float:
    """ds/dt(T-) = -2(p-1) sqrt(Gamma)/p^3 of (2.7).  Floats: cross-checks, never bounds."""
    p, epsilon, A, B = _check(p, epsilon, A, B)
    gam = A * A - p / (2 * (p - 1)) * epsilon**2
    return -2.0 * (p - 1) * math.sqrt(gam) / p**3


def terminal_map(p: int, y0) -> np.ndarray:
    """Psi(y0) = (0, a0 + D/(2c), b0 - D/(2c(p-1))), D = g0 - sqrt(Gamma).  Floats: cross-checks, never bounds."""
    s0, a0, b0 = (float(t) for t in y0)
    c = p / (2 * (p - 1))
    D = (b0 - a0) - math.sqrt(_gamma(p, (s0, a0, b0)))
    return np.array([0.0, a0 + D / (2 * c), b0 - D / (2 * c * (p - 1))])


def terminal_map_derivative(p: int, epsilon=1.0, A=2.0, B=1.0) -> np.ndarray:
    """Psi'(y0) from the closed form (rows s, a, b; columns d/ds0, d/da0, d/db0).  Floats: cross-checks, never bounds.

    R = sqrt(Gamma): dR/ds0 = -c s0/R, dR/dg0 = g0/R, so D = g0 - R has
    dD/ds0 = c s0/R, dD/db0 = -dD/da0 = 1 - g0/R.
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    s0, a0, b0 = base_reduced(epsilon, A, B)
    g0 = b0 - a0
    c = p / (2 * (p - 1))
    R = math.sqrt(g0 * g0 - c * s0 * s0)
    dD = np.array([c * s0 / R, -(1.0 - g0 / R), 1.0 - g0 / R])
    return np.array([np.zeros(3), np.array([0.0, 1.0, 0.0]) + dD / (2 * c),
                     np.array([0.0, 0.0, 1.0]) - dD / (2 * c * (p - 1))])


def regional_derivative(p: int, epsilon=1.0, A=2.0, B=1.0) -> np.ndarray:
    """J_reg = Psi' - f(y(T)) grad T^T from the closed forms (Psi' exact, grad T by quad).

    Floats: cross-checks, never bounds.
    """
    f = np.array([event_speed(p, epsilon, A, B), 0.0, 0.0])
    return terminal_map_derivative(p, epsilon, A, B) - np.outer(f, hitting_time_gradient(p, epsilon, A, B))


def regional_derivative_ode(p: int, epsilon=1.0, A=2.0, B=1.0, rtol=1e-12, atol=1e-14):
    """J_reg by the variational equation dJ/dt = Df(y) J, J(0) = I, of the continued field to T* (DOP853).

    Second route, independent of the closed forms except for T* (quad).  Returns (J_reg, y(T*), nfev).
    Floats: cross-checks, never bounds.
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    T = hitting_time(p, None, epsilon, A, B)

    def rhs(t, z):
        y, J = z[:3], z[3:].reshape(3, 3)
        return np.concatenate([reduced_field(p, y), (reduced_jacobian(p, y) @ J).ravel()])

    z0 = np.concatenate([base_reduced(epsilon, A, B), np.eye(3).ravel()])
    sol = solve_ivp(rhs, (0.0, T), z0, method="DOP853", rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"variational equation failed: {sol.message}")
    return sol.y[3:, -1].reshape(3, 3), sol.y[:3, -1], sol.nfev


def saltation_matrix(f, n) -> np.ndarray:
    """S = I - f n^T / (n^T f) (incoming field f, gate normal n; the outgoing field is 0).  Floats."""
    f, n = np.asarray(f, dtype=float), np.asarray(n, dtype=float)
    nf = float(n @ f)
    if nf == 0.0:
        raise ValueError("saltation matrix needs a transversal event: n^T f = 0")
    return np.eye(f.size) - np.outer(f, n) / nf


# --------------------------------------------------------------------------- mpmath oracle (tests)

def mp_flow_derivatives(p: int, epsilon=1.0, A=2.0, B=1.0, dps: int = 30, h: str = "1e-10"):
    """J_reg and Psi' by mpmath.odefun (Taylor, ``dps`` digits) of (2.2)-(2.4) and central differences.

    J_reg[:, k] = (y(T*; y0 + h e_k) - y(T*; y0 - h e_k)) / (2h) at the base hitting time T*
    (the root of s on the base solution; the continued field has the same formulas for s < 0),
    Psi'[:, k] the same with each solution read at its own root of s (its own event time).
    Central-difference error: h^2 |y'''|/6 + (solver error ~10^-dps)/h.  Returns (J_reg, Psi', T*)
    as float arrays.  Floats (after rounding): cross-checks, never bounds.
    """
    import mpmath as mp

    p, epsilon, A, B = _check(p, epsilon, A, B)
    with mp.workdps(dps):
        hh = mp.mpf(h)
        Tguess = hitting_time(p, None, epsilon, A, B)

        def F(t, y):
            s, a, b = y
            g = b - a
            r = 1 / (1 + mp.exp(-s * g) / (p - 1))
            return [-2 * r * g / p**2, s * r / p**2, -s * r / (p**2 * (p - 1))]

        y0 = [mp.mpf(epsilon), -mp.mpf(A), mp.mpf(0)]

        def solve(y):
            sol = mp.odefun(F, 0, y)
            T = mp.findroot(lambda t: sol(t)[0], mp.mpf(Tguess))
            return sol, T

        sol0, Tstar = solve(y0)
        Jreg = mp.matrix(3, 3)
        Psi = mp.matrix(3, 3)
        for k in range(3):
            plus = list(y0)
            minus = list(y0)
            plus[k] += hh
            minus[k] -= hh
            (sp, Tp), (sm, Tm) = solve(plus), solve(minus)
            yp, ym = sp(Tstar), sm(Tstar)
            ep, em = sp(Tp), sm(Tm)
            for i in range(3):
                Jreg[i, k] = (yp[i] - ym[i]) / (2 * hh)
                Psi[i, k] = (ep[i] - em[i]) / (2 * hh)
        to_np = lambda M: np.array([[float(M[i, j]) for j in range(3)] for i in range(3)])
        return to_np(Jreg), to_np(Psi), float(Tstar)


# --------------------------------------------------------------------------- GD on the full network

def _base_full(p, epsilon, A, B):
    u = np.full(p, -B)
    u[0] = epsilon / 2
    w = np.zeros(p)
    w[0] = -A
    return np.concatenate([u, u.copy(), w])


def _tangents(p):
    """The three reduced tangent directions in R^{3p}: ds0 -> du(0) = dv(0) = 1/2; da0 -> dw(0) = 1; db0 -> dw(j) = 1."""
    V = np.zeros((3, 3 * p))
    V[0, 0] = V[0, p] = 0.5
    V[1, 2 * p] = 1.0
    V[2, 2 * p + 1:] = 1.0
    return V


class _FullGradient:
    """grad L of (1.1) on the full p x p table with ReLU'(0) = 0, batched rows, complex-capable.

    Same formulas as ``model.gradient`` (appendix A.2): slope 1{z > 0} * g_y, g_y = q @ w - w[y],
    q = softmax(h w), gw = sum_ab h (q - onehot(y)) / p^2.  The branch mask is passed in (taken from
    the real trajectory), so complex-step rows follow the executed branch sequence.
    """

    def __init__(self, p):
        self.p = p
        y = labels(p)
        self.y = y
        self.onehot = np.eye(p)[y.ravel()]  # (p^2, p): label histogram as a product (complex weights)

    def __call__(self, theta, mask):
        p = self.p
        u, v, w = theta[:, :p], theta[:, p:2 * p], theta[:, 2 * p:]
        z = u[:, :, None] + v[:, None, :]  # (n, p, p)
        h = np.where(mask, z, 0.0)
        logits = h[..., None] * w[:, None, None, :]  # (n, p, p, p)
        m = logits.real.max(axis=-1, keepdims=True)  # a real shift: softmax is invariant under any constant
        e = np.exp(logits - m)
        q = e / e.sum(axis=-1, keepdims=True)
        g = np.einsum("nabc,nc->nab", q, w) - w[:, self.y]
        dz = np.where(mask, g, 0.0)
        gu = dz.sum(axis=2) / p**2
        gv = dz.sum(axis=1) / p**2
        gw = (np.einsum("nab,nabc->nc", h, q) - h.reshape(h.shape[0], -1) @ self.onehot) / p**2
        return np.concatenate([gu, gv, gw], axis=1)


def gd_sensitivity(p: int, eta: float, epsilon=1.0, A=2.0, B=1.0, horizon=None, theta0=None) -> dict:
    """GD on the full 3p-parameter network from (2.1), differentiated exactly.  Floats: cross-checks, never bounds.

    theta_{k+1} = theta_k - eta grad L(theta_k), ReLU'(0) = 0, for K = round(horizon / eta) steps,
    horizon = HORIZON_FACTOR * T* (1.5 T*, the same for every eta, past the death time).  Row 0 of the
    batch is the real program; rows 1-3 carry theta + i h V_k (h = 1e-30) along the three reduced
    tangents, with every step's branch mask taken from row 0's real gates, so Im(row k)/h is the
    forward-mode derivative of the executed (fixed-branch) program to machine precision, without
    subtractive cancellation.  Raises ValueError (naming eta and the step) if any iterate has a
    gate exactly 0 (resonant eta), or if the itinerary is not the theorem's (central gate alone,
    then one sign change, then every gate negative) within the horizon.

    After the event every gate is negative, so h = 0 and the slopes are 0: grad L = 0 exactly and
    theta_{k+1} = theta_k bitwise (value and tangents: the step's Jacobian is I).  The remaining
    steps are therefore not executed one by one; ``steps_executed`` says how many were.

    Restoration: S_full = I - f n^T / (n^T f), n = e_{u0} + e_{v0}, f = -grad L(theta_{k_e}) at the
    pre-event iterate theta_{k_e} (the last one with z00 > 0), i.e. the incoming field that GD itself
    evaluated for the crossing step; J_restored = S_full J_AD (the steps after the event are the
    identity).  The event point theta_e lies within eta |f| of theta_{k_e}, so f differs from the
    field at the event point by O(eta) (Lipschitz field); S depends smoothly on f while n^T f is
    bounded away from 0 (transversality (2.7)), so this choice costs O(eta) -- the order J_AD's own
    error has anyway; locating the event point would not improve the rate.

    Returns a dict: eta, K, horizon, event_step (k_e), event_time ((k_e + 1) eta, the first time
    with s < 0), steps_executed, J_AD and J_restored (3x3, rows s = u(0)+v(0), a = w(0), b = w(1);
    columns d/ds0, d/da0, d/db0), final (reduced final state), theta (full final state).
    ``theta0`` (a full starting point in R^{3p}, default (2.1)) is for finite-difference checks
    of the executed program; T* and the horizon stay those of (2.1).
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    eta = _check_eta(eta)
    Tstar = hitting_time(p, None, epsilon, A, B)
    horizon = HORIZON_FACTOR * Tstar if horizon is None else float(horizon)
    if not (math.isfinite(horizon) and horizon > 0):
        raise ValueError(f"horizon must be finite and > 0, got {horizon!r}")
    K = int(round(horizon / eta))
    if K < 1:
        raise ValueError(f"eta = {eta!r} exceeds the horizon {horizon}: K = round(horizon/eta) = 0 steps")
    grad = _FullGradient(p)
    if theta0 is None:
        theta0 = _base_full(p, epsilon, A, B)
    else:
        theta0 = np.array(theta0, dtype=np.float64)
        if theta0.shape != (3 * p,) or not np.all(np.isfinite(theta0)):
            raise ValueError(f"theta0 must be a finite vector of length 3p = {3 * p}")
    X = np.empty((4, 3 * p), dtype=complex)
    X[0] = theta0
    X[1:] = theta0[None, :] + 1j * COMPLEX_STEP * _tangents(p)
    central_only = np.zeros((p, p), dtype=bool)
    central_only[0, 0] = True
    event_step = None
    f_pre = None
    executed = 0
    for k in range(K):
        zr = X[0, :p].real[:, None] + X[0, p:2 * p].real[None, :]
        if np.any(zr == 0.0):
            a, b = np.argwhere(zr == 0.0)[0]
            raise ValueError(f"eta = {eta!r} is resonant: iterate {k} has gate ({a}, {b}) exactly 0 (on the kink)")
        mask = zr > 0
        if not mask.any():
            if event_step is None:
                raise ValueError(f"eta = {eta!r}: iterate {k} is dead before any event (not the theorem's itinerary)")
            break  # dead: grad L = 0 exactly, the rest of the program is the identity
        if not np.array_equal(mask, central_only):
            raise ValueError(f"eta = {eta!r}: iterate {k} has active gates {np.argwhere(mask).tolist()}; "
                             "the theorem's itinerary has the central gate (0, 0) alone")
        G = grad(X, np.broadcast_to(mask, (4, p, p)))
        zn = (X[0, 0] - eta * G[0, 0]).real + (X[0, p] - eta * G[0, p]).real
        if zn < 0:
            event_step = k
            f_pre = -G[0].real.copy()
        X = X - eta * G
        executed += 1
    if event_step is None:
        raise ValueError(f"eta = {eta!r}: no event within the horizon {horizon} (K = {K} steps)")
    zr = X[0, :p].real[:, None] + X[0, p:2 * p].real[None, :]
    if np.any(zr == 0.0):
        raise ValueError(f"eta = {eta!r} is resonant: the final iterate has a gate exactly 0 (on the kink)")
    if np.any(zr > 0):
        raise ValueError(f"eta = {eta!r}: the final iterate is not dead")
    T_full = X[1:].imag / COMPLEX_STEP  # (3 directions, 3p): column k of the full tangent matrix
    n_full = np.zeros(3 * p)
    n_full[0] = n_full[p] = 1.0
    S_full = saltation_matrix(f_pre, n_full)
    R_full = T_full @ S_full.T  # rows: S_full applied to each tangent column

    def reduce(M):  # M: (3 directions, 3p) -> 3x3 with rows s, a, b and columns the directions
        return np.array([M[:, 0] + M[:, p], M[:, 2 * p], M[:, 2 * p + 1]])

    th = X[0].real.copy()
    return {
        "p": p, "eta": eta, "K": K, "horizon": horizon, "T_star": Tstar,
        "event_step": event_step, "event_time": (event_step + 1) * eta, "steps_executed": executed,
        "J_AD": reduce(T_full), "J_restored": reduce(R_full),
        "final": np.array([th[0] + th[p], th[2 * p], th[2 * p + 1]]), "theta": th,
    }


def _first_step_gradient(p, epsilon, A, B):
    grad = _FullGradient(p)
    th = _base_full(p, epsilon, A, B)[None, :].astype(complex)
    mask = np.zeros((1, p, p), dtype=bool)
    mask[0, 0, 0] = True
    return th[0].real, grad(th, mask)[0].real


def resonant_eta(p: int, epsilon=1.0, A=2.0, B=1.0) -> float:
    """A step size whose FIRST iterate has the central gate exactly 0 (u(0) = v(0) = 0 in floats).

    eta = u(0)/gu(0), nudged by ulps until fl(u(0) - fl(eta gu(0))) == 0 (then v(0) too, as gv(0) = gu(0)).
    For the tests of the resonance check.  Floats: cross-checks, never bounds.
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    th, G = _first_step_gradient(p, epsilon, A, B)
    eta = th[0] / G[0]
    for _ in range(64):
        if th[0] - eta * G[0] == 0.0 and th[p] - eta * G[p] == 0.0:
            return float(eta)
        eta = np.nextafter(eta, np.inf if th[0] - eta * G[0] > 0 else -np.inf)
    raise RuntimeError("no resonant first step found within 64 ulps")


def nonresonant_eta(p: int, eta: float, epsilon=1.0, A=2.0, B=1.0, tries: int = 20) -> tuple[float, dict]:
    """eta itself if nonresonant, else eta (1 + 10^-9 m) for the first m = 1, 2, ... that is.  Returns (eta, run)."""
    eta = _check_eta(eta)
    last = None
    for m in range(tries):
        e = eta * (1.0 + 1e-9 * m)
        try:
            return e, gd_sensitivity(p, e, epsilon, A, B)
        except ValueError as err:
            if "resonant" not in str(err):
                raise
            last = err
    raise ValueError(f"no nonresonant step near eta = {eta!r} in {tries} tries: {last}")


# --------------------------------------------------------------------------- table and plot

def sensitivity_table(p: int, etas=ETAS, epsilon=1.0, A=2.0, B=1.0) -> list[dict]:
    """One row per step size: |J_AD - J_reg|_F, |J_AD - Psi'|_F, |J_restored - Psi'|_F, the gap, ratios per decade.

    Expected: the first O(eta), the second -> gap = |Psi' - J_reg|_F, the third O(eta).  ``ratio_*``
    are the previous row's distance over this row's (None in the first row).

    The first distance is O(eta) but its ratio per decade is NOT 10 in general: GD runs the active
    branch for (k_e + 1) steps, i.e. to t_e = (k_e + 1) eta = T* + theta eta with a grid phase theta
    that jumps with eta, so J_AD - J_reg = [J_AD - D phi_{t_e}] + theta eta Df(y(T*)) J_reg + O(eta^2):
    a smooth Euler error C eta plus a phase term.  ``theta`` and ``dist_reg_phase`` =
    |J_AD - J_reg - (t_e - T*) Df(y(T*)) J_reg|_F (the Euler part, ratio ~10 per decade,
    ``ratio_reg_phase``) are reported beside it.  Floats: cross-checks, never bounds.
    """
    p, epsilon, A, B = _check(p, epsilon, A, B)
    Jreg = regional_derivative(p, epsilon, A, B)
    Psi = terminal_map_derivative(p, epsilon, A, B)
    gap = float(np.linalg.norm(Psi - Jreg))
    D = reduced_jacobian(p, terminal_map(p, base_reduced(epsilon, A, B))) @ Jreg  # d/dt D phi_t at T*
    rows = []
    for eta in etas:
        t0 = time.perf_counter()
        e, run = nonresonant_eta(p, eta, epsilon, A, B)
        d_reg = float(np.linalg.norm(run["J_AD"] - Jreg))
        d_psi = float(np.linalg.norm(run["J_AD"] - Psi))
        d_res = float(np.linalg.norm(run["J_restored"] - Psi))
        dt = run["event_time"] - run["T_star"]
        d_phase = float(np.linalg.norm(run["J_AD"] - Jreg - dt * D))
        prev = rows[-1] if rows else None
        rows.append({
            "p": p, "eta": e, "K": run["K"], "event_step": run["event_step"],
            "event_time": run["event_time"], "T_star": run["T_star"], "horizon": run["horizon"],
            "dist_reg": d_reg, "dist_psi": d_psi, "dist_restored": d_res, "gap": gap,
            "theta": dt / e, "dist_reg_phase": d_phase,
            "ratio_reg": None if prev is None else prev["dist_reg"] / d_reg,
            "ratio_reg_phase": None if prev is None else prev["dist_reg_phase"] / d_phase,
            "ratio_restored": None if prev is None else prev["dist_restored"] / d_res,
            "seconds": time.perf_counter() - t0,
        })
    return rows


def format_table(rows) -> str:
    """The table as text (floats: cross-checks, never bounds)."""
    head = (f"{'eta':>9} {'K':>8} {'k_e':>7} {'|J_AD-J_reg|':>13} {'ratio':>6} {'theta':>6} {'Euler part':>11} "
            f"{'ratio':>6} {'|J_AD-Psi|':>11} "
            f"{'|J_res-Psi|':>12} {'ratio':>6} {'gap':>10} {'s':>6}")
    out = [head]
    fmt = lambda x: "     -" if x is None else f"{x:6.2f}"
    for r in rows:
        out.append(f"{r['eta']:9.2e} {r['K']:8d} {r['event_step']:7d} {r['dist_reg']:13.4e} {fmt(r['ratio_reg'])} "
                   f"{r['theta']:6.3f} {r['dist_reg_phase']:11.4e} {fmt(r['ratio_reg_phase'])} "
                   f"{r['dist_psi']:11.4e} {r['dist_restored']:12.4e} {fmt(r['ratio_restored'])} "
                   f"{r['gap']:10.4e} {r['seconds']:6.1f}")
    return "\n".join(out)


def plot_sensitivity(figure, rows, gap=None, gap_label=None, size=None, dpi=None):
    """Log-log of the three distances against eta, the gap as a horizontal line; labelled "floats".

    ``gap_label``: the gap line's legend (default: the float gap, labelled "floats"; :func:`experiment` draws
    the certificate's proved lower end and says so).

    ``figure`` is a matplotlib Figure or a path: the figure is then made (``size`` in inches, default
    FIGSIZE, and ``dpi``, default DPI) and written there as PNG, PDF or SVG by the suffix, with no dates or
    random ids (:mod:`certify.figures`; FigureOptionError, one line, for a bad suffix, size or dpi).
    Returns the Figure.  Floats: cross-checks, never bounds.
    """
    from certify.figures import check_options, default_style, freeze_layout, lay_out, new_figure, save_figure

    if not rows:
        raise ValueError("plot_sensitivity needs at least one table row")
    gap = rows[0]["gap"] if gap is None else float(gap)
    if isinstance(figure, (str, bytes)) or hasattr(figure, "__fspath__"):
        path = figure
        check_options(path, size, dpi, FIGSIZE, DPI)
        with default_style():
            figure = new_figure(size, dpi, FIGSIZE, DPI)
            _draw_sensitivity(figure, rows, gap, gap_label)
            lay_out(figure)  # the title wrapped to the panel; a size too small refused
            freeze_layout(figure)
            save_figure(figure, path)
        return figure
    _draw_sensitivity(figure, rows, gap, gap_label)
    return figure


def _draw_sensitivity(figure, rows, gap: float, gap_label) -> None:
    ax = figure.add_subplot(1, 1, 1)
    eta = [r["eta"] for r in rows]
    ax.loglog(eta, [r["dist_reg"] for r in rows], "o-", label=r"$|J_{AD} - J_{reg}|_F$ (floats)")
    if all("dist_reg_phase" in r for r in rows):
        ax.loglog(eta, [r["dist_reg_phase"] for r in rows], "o:", color="C0", alpha=0.6,
                  label=r"Euler part $|J_{AD} - J_{reg} - (t_e - T^*)\,Df\,J_{reg}|_F$ (floats)")
    ax.loglog(eta, [r["dist_psi"] for r in rows], "s-", label=r"$|J_{AD} - \Psi'|_F$ (floats)")
    ax.loglog(eta, [r["dist_restored"] for r in rows], "^-", label=r"$|J_{restored} - \Psi'|_F$ (floats)")
    ax.axhline(gap, color="k", ls="--", lw=1,
               label=gap_label or r"gap $|\Psi' - J_{reg}|_F$ (floats)")
    ax.set_xlabel(r"step size $\eta$")
    ax.set_ylabel("Frobenius distance")
    ax.set_title(f"death-event sensitivity, $p = {rows[0]['p']}$ (floats: cross-checks, never bounds)")
    ax.legend(fontsize="small")


#: The step sizes ``certify sensitivity --plot`` runs (1e-4 as well takes minutes at p = 13: the benchmark has it).
EXPERIMENT_ETAS = (1e-1, 1e-2, 1e-3)


def experiment(certificate: dict, path, size=None, dpi=None) -> list[str]:
    """``certify sensitivity --plot FILE``: the table of :func:`sensitivity_table` at EXPERIMENT_ETAS for the
    certificate's p and parameters, drawn to ``path`` (PNG, PDF or SVG; ``size`` in inches and ``dpi`` as
    :func:`plot_sensitivity` takes them) beside the certified gap; returns the lines to print.
    Floats: cross-checks, never bounds (the certified numbers are the certificate's)."""
    from certify.figures import check_options

    check_options(path, size, dpi, FIGSIZE, DPI)  # before the experiment's seconds
    from fractions import Fraction

    params = certificate["parameters"]
    epsilon, A, B = (float(Fraction(params[name])) for name in ("epsilon", "A", "B"))
    rows = sensitivity_table(int(certificate["p"]), EXPERIMENT_ETAS, epsilon, A, B)
    certified_gap = float(Fraction(certificate["claims"]["sensitivity_gap"]["lo"]))
    plot_sensitivity(path, rows, certified_gap,
                     gap_label=r"certified gap $|\Psi' - J_{reg}|_F \geq$ lo (the certificate)", size=size, dpi=dpi)
    return ["float experiment (gradient descent on the full network, ReLU'(0) = 0, derivative by complex step; "
            "floats: cross-checks, never bounds):", format_table(rows),
            f"certified |Psi' - J_reg|_F >= {certificate['claims']['sensitivity_gap']['lo'][:12]}; figure: {path}"]
