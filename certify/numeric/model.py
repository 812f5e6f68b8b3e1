"""Loss and gradient of the single-neuron network on the full p x p table.

Parameters are u, v, w in R^p (index set Z/pZ).  Input (a, b) has gate
z[a, b] = u[a] + v[b], activation h = ReLU(z), logits h * w[c] and label
(a + b) mod p (paper, section 1.1).  Everything is vectorised over the whole
table; floats only (see ``certify.numeric``).
"""

from __future__ import annotations


import numpy as np
from scipy.special import logsumexp, softmax

__all__ = ["active_gradient", "active_loss", "balance_quantity", "gates", "gradient", "labels", "loss",
           "max_other_gate"]


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


def _active_examples(u: np.ndarray, v: np.ndarray):
    """Indices (a, b) and gates z = u[a] + v[b] of every example with z > 0, in O(p + k p) for k of them.

    Only rows a with u[a] + max(v) > 0 can hold one: float addition is monotone, so
    u[a] + max(v) <= 0 implies u[a] + v[b] <= 0 for every b; those rows are never formed.
    """
    rows = np.flatnonzero(u + v.max() > 0)
    z = u[rows, None] + v[None, :]
    ia, b = np.nonzero(z > 0)
    return rows[ia], b, z[ia, b]


def active_gradient(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gradient(u, v, w, relu_prime_at_zero=0.0)``, summed over the active examples (z > 0) only.

    Under the convention ReLU'(0) = 0 an example with z <= 0 has slope 0 and activation
    h = 0, so it contributes exactly 0 to gu, gv and gw (see ``gradient``); leaving those
    examples out gives the same vector field, the floats differing only in the order of
    the (nonzero) terms' summation.  Cost O(p + k p) for k active examples instead of
    O(p^3): in the central-only chamber of section 2 (k = 1) it is O(p).
    """
    u, v, w = _params(u, v, w)
    return _active_gradient(u, v, w)


def _active_gradient(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """active_gradient without the validation of its arguments (for vector fields called per solver stage)."""
    p = u.shape[0]
    a, b, z = _active_examples(u, v)
    y = (a + b) % p
    q = softmax(z[:, None] * w[None, :], axis=1)
    g = q @ w - w[y]  # g_y(z, w) of (A.3)-(A.6)
    gu = np.bincount(a, weights=g, minlength=p) / p**2
    gv = np.bincount(b, weights=g, minlength=p) / p**2
    gw = (z @ q - np.bincount(y, weights=z, minlength=p)) / p**2
    return gu, gv, gw


def active_loss(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """The loss (1.1) in O(p + k p) for k active examples (z > 0): the same value as ``loss``.

    An example with z <= 0 has h = 0, all logits 0 and so contributes exactly
    log(sum_c e^0) - 0 = log p; the (p^2 - k) of them are added as one product
    (p^2 - k) log p, the active ones by their stable log-sum-exp.  Differs from ``loss``
    only by the summation's rounding (``loss`` adds p^2 terms of size ~log p).
    """
    u, v, w = _params(u, v, w)
    p = u.shape[0]
    a, b, z = _active_examples(u, v)
    y = (a + b) % p
    active = float(np.sum(logsumexp(z[:, None] * w[None, :], axis=1) - z * w[y]))
    return ((p * p - len(z)) * float(np.log(p)) + active) / p**2


def max_other_gate(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """For rows of u and v (shape (n, p), or one vector each): max over (a, b) != (0, 0) of u(a) + v(b).

    Computed as max(max_{a != 0} u(a) + max_b v(b), u(0) + max_{b != 0} v(b)) in O(p) per row,
    which equals the maximum over the p x p float gate table exactly (float addition is
    monotone in each argument, so the largest rounded sum is the rounded sum of the largest).
    """
    U, V = np.asarray(U, dtype=np.float64), np.asarray(V, dtype=np.float64)
    rest = U[..., 1:].max(axis=-1) + V.max(axis=-1)
    central_row = U[..., 0] + V[..., 1:].max(axis=-1)
    return np.maximum(rest, central_row)


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
