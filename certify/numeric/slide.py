"""Float simulation of the sliding Clarke trajectory of Theorem A.1 (appendix A.3-A.4).

Index 0 is distinguished.  Only the central gate x = u(0) + v(0) (A.11) is strictly
active; the cross gates r_j = u(0) + v(j) (row, label j) and s_j = u(j) + v(0)
(column, label j) start negative and are *captured* one after another: once a cross
gate reaches 0 it joins R (rows) or C (columns) and stays on its kink face, held
there by the kink coefficients (A.26)-(A.27)

    alpha_j = A / ((k+1) gamma_j)  (j in R),    beta_j = A / ((l+1) gamma_j)  (j in C),

with A = sum_{j != 0} q_j d_j (A.19), q = softmax(x w), d_j = w(0) - w(j) (A.18),
gamma_j = mean(w) - w(j) (A.13), k = |R|, l = |C|.  The selected vector field is
(A.20)-(A.21), (A.28)-(A.30).

Solver.  In the clock x the wrong-class spread relaxes at rate ~ x (om_j reacts to
w(j) with factor x, and dw/dx carries another x), so on the full face the system is
stiff (stiffness ratio ~ x_end^2): DOP853 needs millions of steps to x_end = 200 x_cap,
while the implicit Radau method (default, analytic Jacobian) needs a few hundred.

Clock.  x * d_j is large (about 1300 for p = 13), so A ~ e^{-x min d_j} underflows
and the physical time t is astronomically large.  We therefore integrate in the
clock x: every t-rate shares the factor F = e^{-x dmin} / (1 + sum_j e^{-x d_j}),
which cancels in d theta/dx = (d theta/dt) / (dx/dt).  With om_j = e^{-x (d_j - dmin)},
S = 1/(k+1) + 1/(l+1) and Den = S sum_j d_j om_j:

    du(0)/dx = (1/(k+1))/S,  dv(j)/dx = -(1/(k+1))/S (j in R),
    dv(0)/dx = (1/(l+1))/S,  du(j)/dx = -(1/(l+1))/S (j in C),
    dw(0)/dx = x sum_j om_j / Den,  dw(j)/dx = -x om_j / Den.

The time is recovered as t(x) = int e^{G(x)} dx with
G = log(dt/dx) = 2 log p - log S + x dmin - log(sum_j d_j om_j) + log(1 + sum_j e^{-x d_j}),
evaluated on the solver's dense output by Gauss-Legendre quadrature on pieces that
shrink geometrically towards the right end (where e^G is concentrated), summed in
log space.  Everything is reported as log10 t.

Floats only: this is the untrusted cross-check of the rigorous kernel; nothing here
bounds anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import logsumexp

from certify.numeric.fourier import fourier_fractions
from certify.numeric.model import _params, balance_quantity, loss
from certify.numeric.points import two_level

__all__ = [
    "CaptureEvent",
    "CentralGateLost",
    "InadmissibleKink",
    "OffCrossActivated",
    "SlideError",
    "SlideSamples",
    "SlideTrajectory",
    "kink_log_coefficients",
    "log_dt_dx",
    "selected_velocity",
    "simulate_slide",
    "slide_base_point",
    "x_clock_velocity",
]

_LN10 = math.log(10.0)
# Gauss-Legendre nodes/weights on [-1, 1] for the time quadrature.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)
# Value used by the kink event when some captured gamma_j <= 0 (log alpha_j undefined / +inf).
_LOG_KINK_INFINITE = 1.0e3


class SlideError(RuntimeError):
    """The trajectory left the regime of the sliding construction (A.3.1); ``x`` and state attached."""

    def __init__(self, message: str, x: float, u: np.ndarray, v: np.ndarray, w: np.ndarray):
        super().__init__(message)
        self.x = x
        self.u, self.v, self.w = u, v, w


class OffCrossActivated(SlideError):
    """An off-cross gate u(i) + v(j), i, j != 0, reached 0 (contradicts Lemma A.10)."""


class CentralGateLost(SlideError):
    """A = sum_j q_j d_j reached 0, so x = u(0) + v(0) stops increasing ((A.19), (A.30))."""


class InadmissibleKink(SlideError):
    """A kink coefficient (A.26)-(A.27) left [0, 1] (contradicts Lemma A.9)."""


@dataclass(frozen=True)
class CaptureEvent:
    """One impact: at clock value ``x`` (time 10**log10_t), the listed cross gates reached 0.

    ``rows`` are the labels j of the newly captured row gates (0, j), ``columns`` those of
    the column gates (j, 0).  ``max_residual`` is the largest |gate| among them before
    snapping (the gates within the capture tolerance of 0).
    """

    x: float
    log10_t: float
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    max_residual: float


@dataclass(frozen=True, eq=False)
class SlideSamples:
    """Samples along the clock x (strictly increasing), n rows.

    x                       clock value (the integration variable, = u(0) + v(0)).
    log10_t                 log10 of the elapsed time since the start (-inf at the start).
    u, v, w                 states, shape (n, p).
    d_over_x                d / x with d = w(0) - mean_{j != 0} w(j)  (A.34).
    max_fourier_fraction    max over zeta of F_zeta (1.5).
    balance                 ||u||^2 + ||v||^2 - ||w||^2  (A.10).
    max_abs_captured_gate   max |gate| over captured cross gates (0 when none).
    max_off_cross_gate      max over i, j != 0 of u(i) + v(j).
    max_uncaptured_gate     max over uncaptured cross gates (-inf when none).
    max_log_kink            max log of the kink coefficients (A.26)-(A.27) (-inf when none).
    min_gamma               min_{j != 0} gamma_j  (A.13).
    wrong_class_spread      max_{j != 0} w(j) - min_{j != 0} w(j)  (Lemma A.13).
    n_captured              |R| + |C|.
    """

    x: np.ndarray
    log10_t: np.ndarray
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    d_over_x: np.ndarray
    max_fourier_fraction: np.ndarray
    balance: np.ndarray
    max_abs_captured_gate: np.ndarray
    max_off_cross_gate: np.ndarray
    max_uncaptured_gate: np.ndarray
    max_log_kink: np.ndarray
    min_gamma: np.ndarray
    wrong_class_spread: np.ndarray
    n_captured: np.ndarray


@dataclass(frozen=True, eq=False)
class SlideTrajectory:
    """Result of ``simulate_slide``.

    p                 the modulus.
    events            the capture events in order (CaptureEvent).
    samples           SlideSamples along x (the last row is the final state).
    u, v, w           final state, captured gates snapped exactly onto 0.
    rows, columns     final captured sets R, C (sorted labels).
    fully_captured    all 2(p-1) cross gates captured.
    x_full_capture    x at the impact completing the capture (None if not reached).
    x_end, log10_t_end   final clock value and log10 of the final time.
    loss_end          loss (1.1) at the final state.
    nfev              vector-field evaluations over all segments.
    """

    p: int
    events: tuple[CaptureEvent, ...]
    samples: SlideSamples
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    fully_captured: bool
    x_full_capture: float | None
    x_end: float
    log10_t_end: float
    loss_end: float
    nfev: int


def slide_base_point(p: int, gamma_star: float, X: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Base point of section A.3: u(0) = v(0) = X, u(j) = v(j) = -3X, w(0) = 2 p gamma_*, w(j) = 0."""
    if p < 3:
        raise ValueError(f"need p >= 3, got p = {p}")
    if not (gamma_star > 0 and X > 0):
        raise ValueError(f"need gamma_star > 0 and X > 0, got {gamma_star!r}, {X!r}")
    return two_level(p, X, -3 * X), two_level(p, X, -3 * X), two_level(p, 2 * p * gamma_star, 0.0)


def _lse(a: np.ndarray) -> float:
    """log sum exp of a 1-D array (finite max assumed; -inf if the max is -inf)."""
    m = float(np.max(a))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(a - m))))


def _log1p_sum_exp_neg(xd: np.ndarray) -> float:
    """log(1 + sum_j e^{-xd_j}), stably."""
    m = max(0.0, float(np.max(-xd)))
    return m + math.log(math.exp(-m) + float(np.sum(np.exp(-xd - m))))


# ---------------------------------------------------------------------------
# Vector field pieces.  Masks R, C are boolean arrays of length p with R[0] = C[0] = False.


def _log_factors(x: float, w: np.ndarray):
    """(d, dmin, om, sum_om, sum_d_om, lse) with lse = log(1 + sum_j e^{-x d_j})."""
    d = w[0] - w[1:]
    dmin = float(d.min())
    om = np.exp(-x * (d - dmin))
    return d, dmin, om, float(om.sum()), float(d @ om), _log1p_sum_exp_neg(x * d)


def _log_A(x: float, w: np.ndarray) -> float:
    """log A (A.19), or -inf / nan when A <= 0."""
    _, dmin, _, _, sdo, lse = _log_factors(x, w)
    return -x * dmin + math.log(sdo) - lse if sdo > 0 else -math.inf


def log_dt_dx(x: float, w: np.ndarray, k: int, l: int) -> float:
    """log(dt/dx) on the stratum with |R| = k, |C| = l, from (A.30): dt/dx = p^2 / (A S)."""
    w = np.asarray(w, dtype=np.float64)
    p = w.shape[0]
    S = 1.0 / (k + 1) + 1.0 / (l + 1)
    _, dmin, _, _, sdo, lse = _log_factors(x, w)
    if not sdo > 0:
        raise ValueError("A <= 0: x does not increase")
    return 2 * math.log(p) - math.log(S) + x * dmin - math.log(sdo) + lse


def kink_log_coefficients(u, v, w, rows, columns) -> tuple[np.ndarray, np.ndarray]:
    """(log alpha_j for j in rows, log beta_j for j in columns) of (A.26)-(A.27); +inf where gamma_j <= 0."""
    u, v, w = _params(u, v, w)
    R, C = _masks(u.shape[0], rows, columns)
    rows, columns = np.flatnonzero(R), np.flatnonzero(C)
    x = float(u[0] + v[0])
    logA = _log_A(x, w)
    gamma = w.mean() - w

    def logs(idx, n):
        g = gamma[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logA - math.log(n + 1) - np.log(np.where(g > 0, g, 1.0))
        return np.where(g > 0, out, np.inf)

    return logs(rows, len(rows)), logs(columns, len(columns))


def selected_velocity(u, v, w, rows, columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d theta/dt of the selected field (A.20)-(A.21), (A.28)-(A.29) in the ordinary time t.

    Plain floats: A underflows once x * min d_j exceeds ~745; for cross-checks at moderate x.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    R, C = _masks(p, rows, columns)
    rows, columns = np.flatnonzero(R), np.flatnonzero(C)
    k, l = len(rows), len(columns)
    x = float(u[0] + v[0])
    q = np.exp(x * w - logsumexp(x * w))
    A = float(np.sum(q[1:] * (w[0] - w[1:])))
    du, dv = np.zeros(p), np.zeros(p)
    du[0] = A / ((k + 1) * p**2)
    dv[rows] = -A / ((k + 1) * p**2)
    dv[0] = A / ((l + 1) * p**2)
    du[columns] = -A / ((l + 1) * p**2)
    dw = -(x / p**2) * q
    dw[0] = (x / p**2) * float(q[1:].sum())  # 1 - q_0 without cancellation
    return du, dv, dw


def _masks(p: int, rows, columns) -> tuple[np.ndarray, np.ndarray]:
    R = np.zeros(p, dtype=bool)
    C = np.zeros(p, dtype=bool)
    for mask, labels in ((R, rows), (C, columns)):
        labels = [int(j) for j in labels]
        if any(not 1 <= j < p for j in labels):
            raise ValueError(f"captured labels must lie in 1 .. p-1, got {labels}")
        mask[labels] = True
    return R, C


def x_clock_velocity(u, v, w, rows, columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d theta/dx of the selected field with captured rows R and columns C (x = u(0) + v(0)).

    Equals selected_velocity / (dx/dt), computed without the underflowing factor F;
    multiply by exp(-log_dt_dx(x, w, |R|, |C|)) to return to the time t.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    R, C = _masks(p, rows, columns)
    rhs, _, _ = _rhs_factory(p, R, C)
    out = rhs(float(u[0] + v[0]), np.concatenate([u, v, w]))
    return out[:p], out[p:2 * p], out[2 * p:]


def _rhs_factory(p: int, R: np.ndarray, C: np.ndarray):
    k, l = int(R.sum()), int(C.sum())
    S = 1.0 / (k + 1) + 1.0 / (l + 1)
    c_row = (1.0 / (k + 1)) / S
    c_col = (1.0 / (l + 1)) / S
    base = np.zeros(3 * p)
    base[0] = c_row
    base[p] = c_col
    base[p:2 * p][R] = -c_row  # dv(j)/dx, j in R: exactly -du(0)/dx, so r_j stays 0 in floats
    base[:p][C] = -c_col  # du(j)/dx, j in C

    def rhs(x: float, theta: np.ndarray) -> np.ndarray:
        w = theta[2 * p:]
        d = w[0] - w[1:]
        om = np.exp(-x * (d - d.min()))
        den = S * float(d @ om)
        out = base.copy()
        out[2 * p + 1:] = -x * om / den
        out[2 * p] = x * float(om.sum()) / den
        return out

    def jac(x: float, theta: np.ndarray) -> np.ndarray:
        # Only the w-block depends on the state: rate = N / Den with N_0 = x sum om,
        # N_j = -x om_j, d om_j/d w(0) = -x om_j, d om_j/d w(j) = x om_j (the dmin shift cancels).
        w = theta[2 * p:]
        d = w[0] - w[1:]
        om = np.exp(-x * (d - d.min()))
        den = S * float(d @ om)
        N = np.empty(p)
        N[0] = x * om.sum()
        N[1:] = -x * om
        dN = np.zeros((p, p))
        dN[0, 0] = -x * x * om.sum()
        dN[0, 1:] = x * x * om
        dN[1:, 0] = x * x * om
        dN[1:, 1:] = np.diag(-x * x * om)
        dDen = np.empty(p)
        dDen[0] = S * float(np.sum(om * (1 - x * d)))
        dDen[1:] = S * om * (x * d - 1)
        J = np.zeros((3 * p, 3 * p))
        J[2 * p:, 2 * p:] = dN / den - np.outer(N, dDen) / den**2
        return J

    return rhs, jac, S


def _log_dt_dx_vec(xs: np.ndarray, W: np.ndarray, S: float, p: int) -> np.ndarray:
    """G(x) = log(dt/dx) for states with w-rows W (shape (m, p)); vectorised _log_factors."""
    D = W[:, :1] - W[:, 1:]
    dmin = D.min(axis=1)
    sdo = np.sum(D * np.exp(-xs[:, None] * (D - dmin[:, None])), axis=1)
    E = -xs[:, None] * D
    m = np.maximum(E.max(axis=1), 0.0)
    lse = m + np.log(np.exp(-m) + np.sum(np.exp(E - m[:, None]), axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2 * math.log(p) - math.log(S) + xs * dmin - np.log(sdo) + lse


def _log_integral(G, lo: float, hi: float) -> float:
    """log int_lo^hi e^{G(x)} dx for a vectorised G rising steeply towards hi.

    Pieces [hi - 2L, hi - L], [hi - 4L, hi - 2L], ... and [hi - L, hi], with L halved
    until G varies by at most 1 on [hi - L, hi]; 24-point Gauss-Legendre on each piece.
    """
    if not hi > lo:
        return -math.inf
    lengths = (hi - lo) * 0.5 ** np.arange(51)
    g = G(np.concatenate(([hi], hi - lengths)))
    ok = np.flatnonzero(np.abs(g[1:] - g[0]) <= 1.0)
    L = float(lengths[ok[0]] if ok.size else lengths[-1])
    edges = [hi]
    right = hi - L
    width = L
    while right > lo:
        edges.append(right)
        width *= 2
        right -= width
    edges.append(lo)
    edges = np.array(edges[::-1])
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2
    nodes = (a + half)[:, None] + half[:, None] * _GL_NODES[None, :]
    logw = np.log(half)[:, None] + np.log(_GL_WEIGHTS)[None, :]
    return _lse(G(nodes.ravel()) + logw.ravel())


# ---------------------------------------------------------------------------


def _cross(theta: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(r, s) with r[j] = u(0) + v(j), s[j] = u(j) + v(0) (index 0 unused, set to 0)."""
    u, v = theta[:p], theta[p:2 * p]
    r = u[0] + v
    s = u + v[0]
    r[0] = s[0] = 0.0
    return r, s


def _off_cross_max(theta: np.ndarray, p: int) -> float:
    return float(theta[1:p].max() + theta[p + 1:2 * p].max())


def _max_log_kink(x: float, theta: np.ndarray, p: int, R: np.ndarray, C: np.ndarray) -> float:
    k, l = int(R.sum()), int(C.sum())
    if k + l == 0:
        return -math.inf
    w = theta[2 * p:]
    logA = _log_A(x, w)
    gamma = w.mean() - w
    vals = []
    for mask, n in ((R, k), (C, l)):
        if n:
            g = gamma[mask]
            if np.any(g <= 0) or not math.isfinite(logA):
                return math.inf
            vals.append(float(np.max(logA - math.log(n + 1) - np.log(g))))
    return max(vals)


def _snap(theta: np.ndarray, p: int, R: np.ndarray, C: np.ndarray) -> np.ndarray:
    theta = theta.copy()
    theta[p:2 * p][R] = -theta[0]
    theta[:p][C] = -theta[p]
    return theta


def _split(theta: np.ndarray, p: int):
    return theta[:p].copy(), theta[p:2 * p].copy(), theta[2 * p:].copy()


def _sample_row(x: float, theta: np.ndarray, p: int, R: np.ndarray, C: np.ndarray) -> dict:
    u, v, w = _split(theta, p)
    r, s = _cross(theta, p)
    captured = np.concatenate([r[R], s[C]])
    uncaptured = np.concatenate([r[1:][~R[1:]], s[1:][~C[1:]]])
    return dict(
        x=x,
        u=u,
        v=v,
        w=w,
        d_over_x=(w[0] - w[1:].mean()) / x,
        max_fourier_fraction=float(np.max(fourier_fractions(u, v, w))),
        balance=balance_quantity(u, v, w),
        max_abs_captured_gate=float(np.max(np.abs(captured))) if captured.size else 0.0,
        max_off_cross_gate=_off_cross_max(theta, p),
        max_uncaptured_gate=float(uncaptured.max()) if uncaptured.size else -math.inf,
        max_log_kink=_max_log_kink(x, theta, p, R, C),
        min_gamma=float(np.min(w.mean() - w[1:])),
        wrong_class_spread=float(w[1:].max() - w[1:].min()),
        n_captured=int(R.sum() + C.sum()),
    )


def _check_state(x: float, theta: np.ndarray, p: int, R: np.ndarray, C: np.ndarray) -> None:
    """Raise the named SlideError if the state is outside the sliding regime."""
    u, v, w = _split(theta, p)
    if not (u[0] + v[0] > 0):
        raise CentralGateLost(f"central gate u(0) + v(0) = {u[0] + v[0]!r} is not positive", x, u, v, w)
    _, _, _, _, sdo, _ = _log_factors(x, w)
    if not sdo > 0:
        raise CentralGateLost(f"A = sum_j q_j d_j <= 0 at x = {x!r}: the central gate stops growing", x, u, v, w)
    oc = _off_cross_max(theta, p)
    if not oc < 0:
        raise OffCrossActivated(f"off-cross gate reached {oc!r} >= 0 at x = {x!r}", x, u, v, w)
    lk = _max_log_kink(x, theta, p, R, C)
    if not lk <= 0:
        raise InadmissibleKink(f"kink coefficient exp({lk!r}) > 1 (or gamma_j <= 0) at x = {x!r}", x, u, v, w)


def simulate_slide(
    u: np.ndarray,
    v: np.ndarray,
    w: np.ndarray,
    x_end: float | None = None,
    x_end_factor: float = 200.0,
    rtol: float = 1e-10,
    atol: float = 1e-13,
    capture_tol: float = 1e-9,
    samples_per_segment: int = 32,
    final_samples: int = 120,
    method: str = "Radau",
    sampling: str = "clock",
) -> SlideTrajectory:
    """Integrate the selected sliding field (A.26)-(A.30) in the clock x (solve_ivp with events).

    ``method`` is any solve_ivp method; the default Radau copes with the stiffness of the
    full face (see the module docstring), "DOP853" works but is very slow for large x_end.

    Start: the central gate u(0) + v(0) > 0, every off-cross gate < 0, every cross gate
    < 0 or within ``capture_tol * max(1, x)`` of 0 (then captured and snapped at once),
    and A > 0 (ValueError otherwise).  Each uncaptured cross gate reaching 0 from below is
    a terminal event; at an event every uncaptured cross gate within the tolerance is
    captured, captured gates are snapped exactly to 0 (v(j) = -u(0) for rows, u(j) = -v(0)
    for columns) and the integration restarts with the new field.  Once all 2(p-1) cross
    gates are captured the full-face flow runs on to ``x_end`` (default
    ``x_end_factor`` times x at full capture).  An explicit ``x_end`` reached before full
    capture ends the run there.

    Samples: ``samples_per_segment`` on each capture segment and ``final_samples`` on the full
    face, read from the solver's dense output; ``sampling="clock"`` spaces them equally in x
    (capture segments) and in log x (the face), ``sampling="curve"`` equally along the curve
    (log x, d/x) (:func:`_arc_grid`: dense where d/x turns fast, just after a capture, so that
    a figure's straight segments between samples follow it).

    Raises OffCrossActivated, CentralGateLost or InadmissibleKink (all SlideError) when the
    trajectory leaves the regime, RuntimeError if the solver fails; ValueError for another
    ``sampling``.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    if sampling not in ("clock", "curve"):
        raise ValueError(f"sampling must be 'clock' or 'curve', got {sampling!r}")
    theta, x, R, C = _initial_state(u, v, w, capture_tol)
    if x_end is not None and not (math.isfinite(x_end) and x_end > x):
        raise ValueError(f"x_end must be finite and > x = {x!r}, got {x_end!r}")

    rows_out: list[dict] = []
    log_t_rows: list[float] = []
    events: list[CaptureEvent] = []
    log_t = -math.inf  # natural log of the time elapsed at the current segment start
    nfev = 0
    x_full = x if (R[1:].all() and C[1:].all()) else None
    n_all = 2 * (p - 1)

    while True:
        full = bool(R[1:].all() and C[1:].all())
        if full and x_full is None:
            x_full = x
        target = _segment_target(theta, x, p, full, x_end, x_end_factor, x_full)
        sol, S = _integrate_segment(theta, x, target, p, R, C, method, rtol, atol)
        nfev += int(sol.nfev)
        x_stop = float(sol.t[-1])
        theta_stop = sol.y[:, -1].copy()
        last_segment = sol.status != 1  # status 1: a capture event ended the segment
        log_t_stop = _sample_segment(sol, S, theta, x, x_stop, theta_stop, p, R, C, log_t, full and last_segment,
                                     last_segment, samples_per_segment, final_samples, rows_out, log_t_rows,
                                     sampling)
        if last_segment:
            if not full and (x_end is None or x_stop < x_end):
                raise RuntimeError(f"no capture before x = {x_stop!r} (solver: {sol.message})")
            theta = _snap(theta_stop, p, R, C)
            x = x_stop
            log_t = log_t_stop
            break
        theta, event = _capture(theta_stop, x_stop, log_t_stop, p, R, C, capture_tol)
        x = x_stop
        log_t = log_t_stop
        events.append(event)
        if int(R.sum() + C.sum()) == n_all:
            x_full = x
        if x_end is not None and x >= x_end:
            break

    # Final sample if the last segment ended by a capture exactly at x_end.
    if rows_out[-1]["x"] < x:
        rows_out.append(_sample_row(x, theta, p, R, C))
        log_t_rows.append(log_t)
    return _trajectory(p, theta, x, log_t, R, C, events, rows_out, log_t_rows, x_full, nfev)


def _initial_state(u, v, w, capture_tol: float):
    """The checked, snapped start (theta, x, R, C) of :func:`simulate_slide` (ValueError outside its regime)."""
    p = u.shape[0]
    if p < 3 or p % 2 == 0:
        raise ValueError(f"need odd p >= 3 (Fourier classes), got p = {p}")
    theta = np.concatenate([u, v, w])
    x = float(u[0] + v[0])
    if not x > 0:
        raise ValueError(f"central gate (0, 0) must be active, got u(0) + v(0) = {x!r}")
    if not _off_cross_max(theta, p) < 0:
        raise ValueError("every off-cross gate u(i) + v(j), i, j != 0, must be negative")
    if not _log_factors(x, w)[4] > 0:
        raise ValueError("need A = sum_j q_j d_j > 0 at the start")
    tol = capture_tol * max(1.0, x)
    r, s = _cross(theta, p)
    if np.any(r[1:] > tol) or np.any(s[1:] > tol):
        raise ValueError("every cross gate must be negative (or within the capture tolerance of 0)")
    R = np.zeros(p, dtype=bool)
    C = np.zeros(p, dtype=bool)
    R[1:] = r[1:] >= -tol
    C[1:] = s[1:] >= -tol
    theta = _snap(theta, p, R, C)
    _check_state(x, theta, p, R, C)
    return theta, x, R, C


def _segment_target(theta, x: float, p: int, full: bool, x_end, x_end_factor: float, x_full) -> float:
    """Where the next segment's integration stops at the latest."""
    if full:
        target = x_end if x_end is not None else x_end_factor * x_full
        if not target > x:
            raise ValueError(f"x_end = {target!r} must exceed x at full capture = {x!r}")
        return target
    # u(0), v(0) grow at rate >= 1/(2p) in x, so every gate is captured before this bound.
    r, s = _cross(theta, p)
    bound = x + 2.0 * p * (float(np.max(-r[1:])) + float(np.max(-s[1:]))) + 1.0
    return min(bound, x_end) if x_end is not None else bound


def _segment_events(p: int, R: np.ndarray, C: np.ndarray) -> tuple[list, list]:
    """Terminal events of a segment: each uncaptured cross gate reaching 0, then the three failures."""
    def gate_event(kind, j):
        if kind == "row":
            f = lambda _x, th: th[0] + th[p + j]
        else:
            f = lambda _x, th: th[j] + th[p]
        f.terminal, f.direction = True, 1
        return f

    def off_cross(_x, th):
        return _off_cross_max(th, p)

    def central(_x, th):
        w_ = th[2 * p:]
        d = w_[0] - w_[1:]
        return float(d @ np.exp(-_x * (d - d.min())))

    Rm, Cm = R.copy(), C.copy()

    def kink(_x, th):
        return min(_max_log_kink(_x, th, p, Rm, Cm), _LOG_KINK_INFINITE)

    off_cross.terminal, off_cross.direction = True, 1
    central.terminal, central.direction = True, -1
    kink.terminal, kink.direction = True, 1
    captures = [gate_event("row", j) for j in range(1, p) if not R[j]] + \
               [gate_event("col", j) for j in range(1, p) if not C[j]]
    return captures, [off_cross, central, kink]


def _integrate_segment(theta, x: float, target: float, p: int, R, C, method: str, rtol: float, atol: float):
    """One solve_ivp run of the selected field on [x, target] with the segment's events; (solution, S).

    Raises the SlideError of a failure event, RuntimeError if the solver fails.
    """
    rhs, jac, S = _rhs_factory(p, R, C)
    capture_events, failure_events = _segment_events(p, R, C)
    extra = {"jac": jac} if method in ("Radau", "BDF", "LSODA") else {}
    sol = solve_ivp(rhs, (x, target), theta, method=method, rtol=rtol, atol=atol,
                    dense_output=True, events=capture_events + failure_events, **extra)
    if sol.status == -1:
        raise RuntimeError(f"solver failed at x = {sol.t[-1]!r}: {sol.message}")
    nc = len(capture_events)
    for idx, cls, what in ((nc, OffCrossActivated, "an off-cross gate reached 0"),
                           (nc + 1, CentralGateLost, "A reached 0: x stops increasing"),
                           (nc + 2, InadmissibleKink, "a kink coefficient reached 1")):
        if sol.t_events[idx].size:
            xe = float(sol.t_events[idx][0])
            raise cls(f"{what} at x = {xe!r}", xe, *_split(sol.y_events[idx][0], p))
    return sol, S


def _sample_segment(sol, S, theta, x: float, x_stop: float, theta_stop, p: int, R, C, log_t: float,
                    geometric: bool, last_segment: bool, samples_per_segment: int, final_samples: int,
                    rows_out: list, log_t_rows: list, sampling: str = "clock") -> float:
    """Append the samples of [x, x_stop) (and x_stop on the last segment); return log t at x_stop.

    sampling="clock": equally spaced in log x (``geometric``, the full face) or in x; "curve": equally
    spaced along the curve (log x, d/x), each coordinate scaled to the segment's range (:func:`_arc_grid`),
    so that a figure's straight segments between them follow d/x where it turns fast (just after a
    capture) as well as where it is flat."""
    count = final_samples if geometric else samples_per_segment
    if sampling == "curve":
        grid = _arc_grid(sol, x, x_stop, count, p, endpoint=last_segment)
    elif geometric:
        grid = np.geomspace(x, x_stop, final_samples)
    else:
        grid = np.linspace(x, x_stop, samples_per_segment, endpoint=last_segment)
    states = sol.sol(grid)
    states[:, 0] = theta  # exact start (already snapped)
    if last_segment:
        states[:, -1] = theta_stop

    def G(xs, _sol=sol, _S=S):
        return _log_dt_dx_vec(xs, _sol.sol(xs)[2 * p:].T, _S, p)

    lt = log_t
    for i, xg in enumerate(grid):
        if i > 0:
            lt = float(np.logaddexp(lt, _log_integral(G, float(grid[i - 1]), float(xg))))
        th = _snap(states[:, i], p, R, C) if i == 0 else states[:, i]
        _check_state(float(xg), th, p, R, C)
        rows_out.append(_sample_row(float(xg), th, p, R, C))
        log_t_rows.append(lt)
    return float(np.logaddexp(lt, _log_integral(G, float(grid[-1]), x_stop))) if x_stop > grid[-1] else lt


#: Points of the dense output per sample from which :func:`_arc_grid` measures the curve's length.
_ARC_RESOLUTION = 20


def _arc_grid(sol, x: float, x_stop: float, count: int, p: int, endpoint: bool) -> np.ndarray:
    """``count`` clock values from x to x_stop (x_stop included if ``endpoint``) equally spaced in arc length
    along (log x, d/x) on the solver's dense output, both coordinates scaled to [0, 1] over the segment (the
    length measured on _ARC_RESOLUTION * count geometrically spaced points): consecutive samples are about
    1/count of that length apart, so at most 1/count of the segment's log x range and of its d/x range."""
    fine = np.geomspace(x, x_stop, _ARC_RESOLUTION * count)
    w = sol.sol(fine)[2 * p:]
    height = (w[0] - w[1:].mean(axis=0)) / fine
    log_x = np.log(fine)
    spans = [np.ptp(log_x), np.ptp(height)]
    steps = np.hypot(*(np.diff(values) / span if span > 0 else np.zeros(len(fine) - 1)
                       for values, span in zip((log_x, height), spans)))
    length = np.concatenate([[0.0], np.cumsum(steps)])
    if not length[-1] > 0:
        return np.linspace(x, x_stop, count, endpoint=endpoint)
    grid = np.interp(np.linspace(0.0, length[-1], count, endpoint=endpoint), length, fine)
    grid[0] = x
    if endpoint:
        grid[-1] = x_stop
    return grid


def _capture(theta_stop, x_stop: float, log_t_stop: float, p: int, R, C, capture_tol: float):
    """The impact at a capture event: every uncaptured cross gate within the tolerance of 0 is captured
    (R and C updated in place) and snapped; returns (snapped state, CaptureEvent)."""
    r, s = _cross(theta_stop, p)
    tol = capture_tol * max(1.0, x_stop)
    new_R = (~R) & (r >= -tol)
    new_C = (~C) & (s >= -tol)
    new_R[0] = new_C[0] = False
    if not (new_R.any() or new_C.any()):
        raise RuntimeError(f"capture event at x = {x_stop!r} but no cross gate within {tol!r} of 0")
    residual = float(np.max(np.abs(np.concatenate([r[new_R], s[new_C]]))))
    R |= new_R
    C |= new_C
    theta = _snap(theta_stop, p, R, C)
    event = CaptureEvent(x=x_stop, log10_t=log_t_stop / _LN10,
                         rows=tuple(int(j) for j in np.flatnonzero(new_R)),
                         columns=tuple(int(j) for j in np.flatnonzero(new_C)),
                         max_residual=residual)
    _check_state(x_stop, theta, p, R, C)
    return theta, event


def _trajectory(p, theta, x, log_t, R, C, events, rows_out, log_t_rows, x_full, nfev) -> SlideTrajectory:
    """The SlideTrajectory record of a finished run."""
    def col(name, dtype=float):
        return np.array([row[name] for row in rows_out], dtype=dtype)

    samples = SlideSamples(
        x=col("x"),
        log10_t=np.array(log_t_rows) / _LN10,
        u=np.array([row["u"] for row in rows_out]),
        v=np.array([row["v"] for row in rows_out]),
        w=np.array([row["w"] for row in rows_out]),
        d_over_x=col("d_over_x"),
        max_fourier_fraction=col("max_fourier_fraction"),
        balance=col("balance"),
        max_abs_captured_gate=col("max_abs_captured_gate"),
        max_off_cross_gate=col("max_off_cross_gate"),
        max_uncaptured_gate=col("max_uncaptured_gate"),
        max_log_kink=col("max_log_kink"),
        min_gamma=col("min_gamma"),
        wrong_class_spread=col("wrong_class_spread"),
        n_captured=col("n_captured", int),
    )
    uf, vf, wf = _split(theta, p)
    return SlideTrajectory(
        p=p,
        events=tuple(events),
        samples=samples,
        u=uf,
        v=vf,
        w=wf,
        rows=tuple(int(j) for j in np.flatnonzero(R)),
        columns=tuple(int(j) for j in np.flatnonzero(C)),
        fully_captured=bool(R[1:].all() and C[1:].all()),
        x_full_capture=x_full,
        x_end=x,
        log10_t_end=log_t / _LN10,
        loss_end=loss(uf, vf, wf),
        nfev=nfev,
    )
