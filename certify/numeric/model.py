"""Loss and gradient of the single-neuron network on the full p x p table.

Parameters are u, v, w in R^p (index set Z/pZ).  Input (a, b) has gate
z[a, b] = u[a] + v[b], activation h = ReLU(z), logits h * w[c] and label
(a + b) mod p (paper, section 1.1).  Everything is vectorised over the whole
table; floats only (see ``certify.numeric``).
"""

from __future__ import annotations


import numpy as np
from scipy.special import logsumexp, softmax

__all__ = ["gates", "labels", "loss", "gradient", "balance_quantity"]


def _params(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Validate parameter vectors: 1-D, finite, equal length p >= 2; return float64 copies."""
    out = tuple(np.array(x, dtype=np.float64) for x in arrays)
    p = out[0].shape[0] if out[0].ndim == 1 else -1
    for x in out:
        if x.ndim != 1:
            raise ValueError(f"parameter vectors must be 1-D, got shape {x.shape}")
        if x.shape[0] != p:
            raise ValueError(f"parameter vectors must have equal length, got {x.shape[0]} and {p}")
        if not np.all(np.isfinite(x)):
            raise ValueError("parameter vectors must be finite")
    if p < 2:
        raise ValueError(f"need p >= 2, got p = {p}")
    return out


def gates(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Gate (preactivation) table z[a, b] = u[a] + v[b], shape (p, p) (section 1.1)."""
    u, v = _params(u, v)
    return u[:, None] + v[None, :]


def labels(p: int) -> np.ndarray:
    """Label table y[a, b] = (a + b) mod p, shape (p, p), integer dtype (section 1.1)."""
    if p < 2:
        raise ValueError(f"need p >= 2, got p = {p}")
    a = np.arange(p)
    return (a[:, None] + a[None, :]) % p


def loss(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """Full-table cross-entropy loss (1.1).

    L = (1/p^2) sum_{a,b} [ log sum_c exp(h[a,b] w[c]) - h[a,b] w[(a+b) mod p] ],
    with h = ReLU(u[a] + v[b]); the log-sum-exp is evaluated stably.
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    h = np.maximum(u[:, None] + v[None, :], 0.0)
    lse = logsumexp(h[:, :, None] * w[None, None, :], axis=2)
    correct = h * w[labels(p)]
    return float(np.sum(lse - correct) / p**2)


def _check_convention(relu_prime_at_zero: float) -> float:
    """Return ReLU'(0) as a float after checking it is a number in [0, 1] (Clarke interval)."""
    try:
        value = float(relu_prime_at_zero)
    except (TypeError, ValueError):
        raise ValueError(f"relu_prime_at_zero must be a number in [0, 1], got {relu_prime_at_zero!r}")
    # NaN fails both comparisons, so it is rejected here as well.
    if not (0.0 <= value <= 1.0):
        raise ValueError(f"relu_prime_at_zero must lie in [0, 1], got {relu_prime_at_zero!r}")
    return value


def gradient(
    u: np.ndarray, v: np.ndarray, w: np.ndarray, relu_prime_at_zero: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradient (gu, gv, gw) of the loss (1.1) with a chosen ReLU'(0) convention.

    Per example (a, b) with label y and gate z (appendix A.2):
      * z > 0: contributes g_y(z, w)/p^2 to gu[a] and gv[b], where
        g_y = sum_c q_c w[c] - w[y] and q = softmax(z w)  (A.3)-(A.6, sign flipped),
        and z (q_c - 1{c=y})/p^2 to gw[c]  (A.7, sign flipped);
      * z < 0: contributes nothing;
      * z == 0 exactly: contributes relu_prime_at_zero * gamma_y(w)/p^2 to gu[a]
        and gv[b], with gamma_y = mean(w) - w[y] = g_y(0, w) (A.8, Lemma A.6),
        and nothing to gw (its factor h is 0).
    The gradient flow is d theta/dt = -(gu, gv, gw).
    """
    u, v, w = _params(u, v, w)
    slope_at_zero = _check_convention(relu_prime_at_zero)
    p = u.shape[0]
    y = labels(p)
    z = u[:, None] + v[None, :]
    h = np.maximum(z, 0.0)
    q = softmax(h[:, :, None] * w[None, None, :], axis=2)
    # At z == 0, h == 0 so q is uniform and g below equals gamma_y(w) of (A.8).
    g = q @ w - w[y]
    slope = np.where(z > 0, 1.0, np.where(z == 0, slope_at_zero, 0.0))
    dz = slope * g
    gu = dz.sum(axis=1) / p**2
    gv = dz.sum(axis=0) / p**2
    # sum_{a,b} h (q_c - 1{c=y}): the indicator part is a label histogram weighted by h.
    gw = (np.einsum("ab,abc->c", h, q) - np.bincount(y.ravel(), weights=h.ravel(), minlength=p)) / p**2
    return gu, gv, gw


def balance_quantity(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """Du-Hu-Lee balance quantity ||u||^2 + ||v||^2 - ||w||^2, conserved by the flow (A.10)."""
    u, v, w = _params(u, v, w)
    return float(u @ u + v @ v - w @ w)


def require_central_only(u: np.ndarray, v: np.ndarray) -> None:
    """Raise ValueError unless z[0, 0] > 0 and every other gate is < 0, naming the offending gate."""
    z = gates(u, v)
    if not z[0, 0] > 0:
        raise ValueError(f"central gate (0, 0) must be active, got z[0, 0] = {z[0, 0]!r}")
    others = z.copy()
    others[0, 0] = -np.inf
    if np.any(others >= 0):
        a, b = np.unravel_index(np.argmax(others), others.shape)
        raise ValueError(
            f"gate ({int(a)}, {int(b)}) is not strictly inactive (z = {others[a, b]!r}); "
            "only the central gate (0, 0) may be active"
        )
