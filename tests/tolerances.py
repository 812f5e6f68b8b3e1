"""Tolerances of the tests' float assertions, each derived from an error estimate.

Every float comparison in the numeric, simulation and simulate tests takes its tolerance
from one of the functions below, with the estimate written in a comment beside the call
(which terms, how many operations, which factor and why) -- never from what one machine
printed.  Three kinds of error, one rule each:

Rounding (``rounding``, ``cancellation_tolerance``, ``relative_rounding``).
    A float expression evaluated in IEEE double with at most n rounded operations on
    any path from the inputs to the result errs by at most gamma_n * (sum of |terms|),
    gamma_n = n u / (1 - n u) ~ n u, u = EPS / 2 (Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., (3.4) and Lemma 3.1 for sums and dot products).
    The bound holds for every summation order -- numpy's pairwise and SIMD sums, BLAS
    dot products with or without FMA -- and that order is exactly what changes between
    machines and library versions.  Where terms cancel, the error is relative to the
    terms, not to the result: a balance ||u||^2 + ||v||^2 - ||w||^2 of size 200 built
    from squares of size 1e7 carries errors of size 1e7 * EPS * n.  The functions return
    ``factor * n * EPS * sum|terms|``; n EPS = 2 n u is the bound for the difference of
    two evaluations of the same expression (each within gamma_n of the exact value),
    and the stated factor covers what else enters (library functions such as exp, log,
    the FFT, with their own few-ulp errors; inputs that are themselves rounded).

Integration (``integration_tolerance``).
    solve_ivp controls the local error of each step to about rtol |y| + atol (its error
    estimate, per component).  In a flow that does not amplify perturbations these local
    errors add up, so after N steps the global error is at most about N (rtol |y| + atol);
    the step count N comes from the run itself (its nfev, an upper bound on the steps, or
    its sample count) or is stated at the call.  This is an estimate, not a bound: the
    stated factor says how much amplification or error-estimator optimism is allowed for.

Model error (no function: written out where it occurs).
    Some assertions compare a finite-x or finite-step quantity with its limit (O(1/x)
    convergence, finite-difference truncation h^2 f'''/6 plus rounding EPS |f| / h);
    their tolerances are the analytic size of that remainder, stated beside them.
"""

from __future__ import annotations

import numpy as np

EPS = float(np.finfo(np.float64).eps)  # 2^-52: spacing of doubles at 1, twice the unit roundoff u


def magnitude(*terms, axis=None):
    """Sum of |t| over every element of every term (along ``axis`` of each, if given)."""
    return sum(np.sum(np.abs(np.asarray(t, dtype=np.float64)), axis=axis) for t in terms)


def rounding(scale, ops: int, factor: float = 1.0):
    """factor * ops * EPS * scale: the rounding allowance of ``ops`` operations on terms of total size ``scale``."""
    if ops < 1 or factor < 1:
        raise ValueError("ops and factor must be at least 1")
    return factor * ops * EPS * np.asarray(scale, dtype=np.float64)


def cancellation_tolerance(*terms, ops: int | None = None, factor: float = 1.0, axis=None):
    """Absolute tolerance for a float result obtained by adding or cancelling ``terms``.

    ``terms`` are the summands (arrays are flattened, or summed along ``axis``), ``ops`` the
    longest chain of rounded operations (default: the number of summands, i.e. one rounding
    per summand plus the additions).  Returns factor * ops * EPS * sum|terms|.
    """
    if ops is None:
        ops = sum(np.asarray(t).size if axis is None else np.asarray(t).shape[axis] for t in terms)
    return rounding(magnitude(*terms, axis=axis), ops, factor)


def relative_rounding(ops: int, factor: float = 1.0) -> float:
    """Relative tolerance factor * ops * EPS for a result of ``ops`` roundings with no cancellation.

    Products, quotients, square roots and sums of same-sign terms have relative error at
    most gamma_ops (Higham (3.4)); library functions (exp, log, expit) count as a few ops.
    """
    return float(rounding(1.0, ops, factor))


def integration_tolerance(scale, steps: int, rtol: float, atol: float = 0.0, factor: float = 1.0):
    """factor * steps * (rtol * scale + atol): the global-error estimate of an adaptive solver run.

    ``scale`` is the size |y| of the integrated quantity (or the sum of sizes it is built
    from), ``steps`` the number of steps (or an upper bound such as nfev), ``rtol`` and
    ``atol`` the tolerances the solver was given.
    """
    if steps < 1 or factor < 1:
        raise ValueError("steps and factor must be at least 1")
    return factor * steps * (rtol * np.asarray(scale, dtype=np.float64) + atol)


def fourier_fraction_tolerance(u, v, w, perturbation: float = 0.0) -> float:
    """Absolute tolerance for the Fourier fractions F_zeta (1.5) of (u, v, w) against their exact value.

    Rounding: centring subtracts a mean of p terms (error p EPS max|x|, relative to the
    centred norm n), the FFT is backward stable with error ~ log2 p EPS per level, and the
    energies and their quotient add a few operations: 2p + 8 log2 p + 20 roundings of the
    total energy, scaled by (1 + max|theta| / n) for the centring.
    Perturbation: if the state is within ``perturbation`` = e (Euclidean) of one whose
    fractions are known, each F_zeta = |Pi theta_0|^2 / |theta_0|^2 moves by at most
    4 e (n + e) / (n - e)^2 (first order 4 e / n; numerator and denominator each move by
    at most 2 e n + e^2).
    """
    blocks = [np.asarray(x, dtype=np.float64) for x in (u, v, w)]
    p = blocks[0].shape[0]
    n = float(np.sqrt(sum(((x - x.mean()) ** 2).sum() for x in blocks)))
    top = max(float(np.abs(x).max()) for x in blocks)
    if not perturbation < n:
        raise ValueError("the perturbation must be smaller than the centred norm")
    ops = 2 * p + 8 * int(np.ceil(np.log2(p))) + 20
    return float(rounding(1.0 + top / n, ops)) + 4 * perturbation * (n + perturbation) / (n - perturbation) ** 2


def event_residual(slope, t, size) -> float:
    """|g| at an event located by solve_ivp: brentq stops within 4 EPS (1 + |t|) of the root
    (solve_ivp's xtol and rtol), where the event function g moves at ``slope``; evaluating
    the dense-output polynomial rounds ~40 operations of size ``size``."""
    return float(slope * 8 * EPS * (1 + abs(t)) + rounding(size, 40))


def projection_tolerance(*blocks) -> float:
    """Rounding of Fourier fractions computed by explicit projection onto cos/sin pairs (a test's
    second route): the basis (argument 2 pi zeta a / p, error ~p EPS in the angle, hence in
    each entry), the projections or a p x 2 least-squares solve (backward stable, ~p EPS) and
    the energies: 10 p + 20 roundings of the energy, scaled for the centring as in
    fourier_fraction_tolerance."""
    blocks = [np.asarray(x, dtype=np.float64) for x in blocks]
    p = blocks[0].shape[0]
    n = float(np.sqrt(sum(((x - x.mean()) ** 2).sum() for x in blocks)))
    top = max(float(np.abs(x).max()) for x in blocks)
    return float(rounding(1.0 + top / n, 10 * p + 20))


def log_integral_tolerance(x_end, w_err, w_abs, log_value, nodes: int = 50 * 24) -> float:
    """Natural-log error of t(x_end) = int e^G dx for the sliding clock (certify.numeric.slide).

    G = log dt/dx = ... + x dmin - log(sum_j d_j om_j) + ... moves by about 2 x |delta w| when
    w is off by delta w (through x dmin and the sum), so log t -- the log of an integral of
    e^G -- moves by at most the largest such shift on [x0, x_end]: 2 x_end w_err.  Rounding:
    G adds terms of size up to x_end |w| (10 operations), and the log-sum-exp over the
    quadrature nodes adds log t once per node.  The 24-point Gauss-Legendre rule on pieces
    where G varies by O(1) is exact far below these (its error ~ variation^48 / 48!).
    """
    return float(2 * x_end * w_err + rounding(x_end * w_abs, 10) + rounding(abs(log_value), nodes))


def smooth_activation_errors(t):
    """Relative rounding-error estimates of psi, psi', sigma, sigma' and sigma/sigma' at s = eps t, 0 < t < 1
    (certify.numeric.smooth), as a dict of arrays.

    Everything goes through x = 1/t - 1/(1-t) (or -x in R = e^{-x}): two reciprocals and a
    difference, error dx <= 3 EPS (1/t + 1/(1-t)), plus the rounding of t = z/eps itself,
    EPS t |dx/dt| = EPS (1/t + t/(1-t)^2).  Then
      psi = expit(-x):        d log psi / dx = -(1 - psi)               -> dx (1 - psi) + 4 EPS,
      psi' = e^{-|x| + F} / (1 + e^{-|x|})^2, F = -2 log a + log1p((a/b)^2), a = min(t, 1-t):
                              the exponent rounds terms of size |x| + |F| -> dx + 3 EPS (|x| + |F| + 1) + 8 EPS,
      sigma = z psi:          one more rounding,
      sigma' = psi + t psi':  weights psi/sigma' = phi and 1 - phi on the two relative errors,
      phi = sigma/(s sigma') = 1/(1 + K/(1 + R)):  d log phi / d log R <= 1 - phi -> dx (1 - phi) + 8 EPS.
    """
    from scipy.special import expit

    t = np.asarray(t, dtype=np.float64)
    dx = EPS * (3 * (1 / t + 1 / (1 - t)) + 1 / t + t / (1 - t) ** 2)
    x = 1 / t - 1 / (1 - t)
    a, b = np.minimum(t, 1 - t), np.maximum(t, 1 - t)
    F = -2 * np.log(a) + np.log1p((a / b) ** 2)
    with np.errstate(over="ignore"):
        ps = expit(-x)
        phi = 1 / (1 + (1 / t + t / (1 - t) ** 2) / (1 + np.exp(np.minimum(-x, 700))))
    psi = dx * (1 - ps) + relative_rounding(4)
    psi_p = dx + rounding(np.abs(x) + F + 1, 3) + relative_rounding(8)
    sig_p = phi * psi + (1 - phi) * (psi_p + relative_rounding(1)) + relative_rounding(2)
    return dict(psi=psi, psi_prime=psi_p, sigma=psi + relative_rounding(1), sigma_prime=sig_p,
                ratio=dx * (1 - phi) + relative_rounding(8))


def dead_zone_integral_tolerance(s0: float, eps: float, value: float) -> float:
    """|float J(s0) - J(s0)| for J(s) = int_0^s sigma/sigma' computed by scipy quad (ratio_integral).

    quad's target epsrel = 1e-13 (its own error estimate; a factor 10 for its optimism), the
    integrand's relative error (smooth_activation_errors, the largest over the interval,
    sampled densely), the closed-form part above eps (three roundings of terms of size
    s0^2) and the rounding of a reference value to a double.
    """
    top = min(s0, eps)
    grid = np.linspace(top / 2000, top * (1 - 1e-6), 2000)
    integrand_rel = float(np.max(smooth_activation_errors(grid / eps)["ratio"])) + relative_rounding(1)
    return float((10 * 1e-13 + integrand_rel + relative_rounding(1)) * abs(value)
                 + rounding(s0 * s0 + eps * eps, 3) * (s0 > eps))


def assert_close(actual, expected, tol, what: str = "") -> None:
    """Assert |actual - expected| <= tol elementwise (broadcasting), naming the worst element.

    ``tol`` is an absolute tolerance (scalar or array) from one of the estimates above.
    """
    actual, expected, tol = (np.asarray(x, dtype=np.float64) for x in (actual, expected, tol))
    error = np.abs(actual - expected)
    bad = ~(error <= tol)  # NaN fails
    if np.any(bad):
        error_b, tol_b = np.broadcast_to(error, bad.shape), np.broadcast_to(tol, bad.shape)
        i = np.unravel_index(np.argmax(np.where(bad, error_b / np.where(tol_b > 0, tol_b, np.inf), -1)), bad.shape)
        i = i if bad.shape else ()
        raise AssertionError(
            f"{what + ': ' if what else ''}{int(bad.sum())} of {bad.size} elements outside the estimate; "
            f"worst at {i}: |{np.broadcast_to(actual, bad.shape)[i]!r} - {np.broadcast_to(expected, bad.shape)[i]!r}| "
            f"= {error_b[i]!r} > {tol_b[i]!r}"
        )
