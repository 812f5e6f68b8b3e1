"""How much of U_II^above does the certified widened box hold? An importance-sampling estimate (floats; evidence,
not proof) of P(theta(0) in R^above) under N(0, I_{3p}), R^above the relabelled copies of U_II^above ∩ {z00 > z11}
(docs/staircase.md, sections 11.12-11.14), beside the certified bound of `certify twin_above`.

    python examples/staircase/region_above_mc.py [--p 5 7] [--samples 400000] [--seed 1]

Membership is Proposition S3.4's (S.36) at the point's own values, with Remark S3.6 (i)'s rho_+ (the smaller of
delta_c and eta), and h chosen for the point: every condition of (S.36) but the rate prefers a larger h (delta_c,
eps and eta fall with h), and the rate 2 (gamma_2 - e^2/h) - b0 (N_1 + delta_c) - h > 0 holds on an interval of h,
so the point is in U_II^above iff (S.36) holds at h* = the largest h with a nonnegative rate margin (found by
bisection; a strict rate margin is then had just below h*, where the other margins are continuous). The tails u(i),
v(i), i >= 2, are integrated exactly given the rest (Lemma S.18's observation): (S.36) reads them only through
m = min(X0, r0, c0, min of -z over the gates other than the four) > delta_c, that is u(i) < -max(v0, v1) - delta_c
and v(j) < -max(u0, u1) - delta_c (the gates (i, j), i, j >= 2, then follow), with probability
Phi(-max(v0, v1) - delta_c)^(p - 2) Phi(-max(u0, u1) - delta_c)^(p - 2). The other p + 4 coordinates are drawn from
a defensive mixture: N(base point, s^2 I) for s in SCALES (the certificate's base point, `certify twin_above`'s
defaults) and the prior N(0, I), equal weights; the estimate is the mean of 1_U(x) tails(x) phi(x)/q(x) with its
standard error. The region's copies are disjoint on {z00 > z11} (section 11.13), so P(R^above) = p^2 (p - 1) times
the estimate.
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction

import numpy as np
from scipy.special import log_ndtr, logsumexp
from scipy.stats import multivariate_normal

from certify.theorems.twin_above import certify_twin_above

SCALES = (0.02, 0.05, 0.1, 0.2)
#: the proposal's spread along the two directions U_II^above is invariant under (see estimate)
FREE = 1.0


def q_star(b):
    """q_*(b) = 2 (1 - b)/(1 + e^{2 acosh(e^b)}) (section 11.7), for 0 <= b < 1."""
    return 2 * (1 - b) / (1 + np.exp(2 * np.arccosh(np.exp(b))))


def ell(z, w, y):
    """ell_y(z) = log sum_c e^{z (w(c) - w(y))} ((A.2)), rows of w, z a column."""
    return logsumexp(z[:, None] * (w - w[:, [y]]), axis=1)


def margins(core: np.ndarray, p: int, h: np.ndarray, rate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(least margin of (S.36) with the window and gate order, log tails probability) at each row of ``core`` =
    (u0, u1, v0, v1, w(0..p-1)) and its h. Not-a-number where a quantity is undefined (counted out). ``rate``
    False leaves out the rate margin (zero at h*, by its definition)."""
    u0, u1, v0, v1 = core[:, 0], core[:, 1], core[:, 2], core[:, 3]
    w = core[:, 4:]
    X0, r0, c0, e = u0 + v0, u0 + v1, u1 + v0, u1 + v1
    mu = w.mean(axis=1)
    gamma = mu[:, None] - w[:, 2:]
    D0 = w[:, 0] - w[:, 1]
    Lambda4 = ell(X0, w, 0) + ell(r0, w, 1) + ell(c0, w, 1) + ell(e, w, 2) - math.log(p)
    b0 = Lambda4 - 3 * math.log(2)
    wmin = w[:, 2:].min(axis=1)
    N1, M0, z0 = w[:, 1] - wmin, w[:, 0] - wmin, np.maximum(r0, c0)
    S0, g2, gmin, gmax = gamma.sum(axis=1), gamma[:, 0], gamma.min(axis=1), gamma.max(axis=1)
    with np.errstate(all="ignore"):
        eps = e**2 / h
        delta_c = np.sqrt(2 * b0 * e / h)
        g_minus, S_minus = gmin - eps, S0 - eps
        eta = ((np.maximum(X0, z0) + delta_c) * b0 + e) * e / h
        rho_plus = (gmax + np.minimum(delta_c, eta)) / g_minus
        s2 = (X0 + delta_c) ** 2 + (r0 + delta_c) ** 2 + (c0 + delta_c) ** 2 + e**2
        D_minus = D0 * np.exp(-s2 * e / h) - eps
        X_minus = X0 - delta_c
        kappa = 0.75 * q_star(b0) * X_minus**2
        z_plus, M_plus = z0 + delta_c, M0 + delta_c
        race = (np.log(S_minus) - z_plus * M_plus - (z_plus + M_plus) ** 2 * b0 / (2 * (kappa - 2 * b0))
                - np.log(D0))
        beta = np.minimum(math.log(p / 4), 2 / ((p - 1) * rho_plus))
        least = np.minimum.reduce([
            e, D0, gmin, X0 - e,  # the pattern's active gate (1, 1), D > 0, gamma_j > 0, z00 > z11
            np.minimum.reduce([X0, r0, c0]) - delta_c,  # reach, the active gates' part (tails below)
            g_minus, 2 * (g2 - eps) - b0 * (N1 + delta_c) - h if rate else np.full_like(e, np.inf), D_minus, beta - b0,
            kappa - 2 * b0, race, 1 - b0, b0])
        tails = (p - 2) * (log_ndtr(-np.maximum(v0, v1) - delta_c) + log_ndtr(-np.maximum(u0, u1) - delta_c))
    return least, tails


def best_h(core: np.ndarray, p: int) -> np.ndarray:
    """h* per row: the largest h in (0, 2 gamma_2] with a nonnegative rate margin, by a log grid then bisection
    (NaN where none)."""
    grid = np.geomspace(1e-6, 10, 300)
    u1, v1, w = core[:, 1], core[:, 3], core[:, 4:]
    e = u1 + v1
    mu, wmin = w.mean(axis=1), w[:, 2:].min(axis=1)
    g2, N1 = mu - w[:, 2], w[:, 1] - wmin
    X0, r0, c0 = core[:, 0] + core[:, 2], core[:, 0] + v1, u1 + core[:, 2]
    b0 = (ell(X0, w, 0) + ell(r0, w, 1) + ell(c0, w, 1) + ell(e, w, 2) - math.log(p) - 3 * math.log(2))

    def rate(h):
        with np.errstate(all="ignore"):
            return 2 * (g2[:, None] - e[:, None] ** 2 / h) - b0[:, None] * (
                N1[:, None] + np.sqrt(2 * b0[:, None] * e[:, None] / h)) - h

    values = rate(grid[None, :])
    ok = values >= 0
    last = np.where(ok.any(axis=1), ok.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1), -1)
    lo = np.where(last >= 0, grid[np.clip(last, 0, None)], np.nan)
    hi = np.where((last >= 0) & (last + 1 < len(grid)), grid[np.clip(last + 1, 0, len(grid) - 1)], lo)
    for _ in range(50):
        mid = (lo + hi) / 2
        good = rate(mid[:, None])[:, 0] >= 0
        lo, hi = np.where(good, mid, lo), np.where(good, hi, mid)
    return lo


def estimate(p: int, samples: int, seed: int) -> tuple[float, float, float, int]:
    """(log10 of the estimate of P(R^above), its relative standard error, the certified log10 bound, draws inside).

    U_II^above is invariant under w -> w + c 1 (every quantity of (S.36) reads w through differences; the softmax is
    shift invariant) and under (u, v) -> (u + a 1, v - a 1) (every gate is unchanged): a union of planes along
    these two directions. So each component of the proposal is N(base point, s^2 I + FREE^2 (d1 d1^T + d2 d2^T)),
    d1 the unit (u, v) shift on the drawn coordinates (u0, u1, v0, v1) and d2 the unit w shift, with the prior as a
    defensive component."""
    made = certify_twin_above(p, prec=64)
    point = made.certificate["base_point"]
    value = lambda text: float(Fraction(text))  # noqa: E731
    base = np.array([value(point["u"]["at_0"]), value(point["u"]["at_1"]), value(point["v"]["at_0"]),
                     value(point["v"]["at_1"]), value(point["w"]["at_0"]), value(point["w"]["at_1"])]
                    + [value(point["w"]["elsewhere"])] * (p - 2))
    dim = p + 4
    d1 = np.array([1, 1, -1, -1] + [0] * p) / 2.0
    d2 = np.array([0] * 4 + [1] * p) / math.sqrt(p)
    laws = [multivariate_normal(base, s**2 * np.eye(dim) + FREE**2 * (np.outer(d1, d1) + np.outer(d2, d2)))
            for s in SCALES] + [multivariate_normal(np.zeros(dim), np.eye(dim))]
    rng = np.random.default_rng(seed)
    core = np.concatenate([law.rvs(size=samples, random_state=rng) for law in laws])
    log_q = logsumexp(np.stack([law.logpdf(core) for law in laws]), axis=0) - math.log(len(laws))
    log_prior = laws[-1].logpdf(core)
    h = best_h(core, p)
    least, log_tails = margins(core, p, h, rate=False)
    inside = np.nan_to_num(least, nan=-1.0) > 0
    log_weight = np.where(inside, log_prior - log_q + log_tails, -np.inf)
    top = log_weight[inside].max()
    scaled = np.where(inside, np.exp(log_weight - top), 0.0)
    mean_weight, error = scaled.mean(), scaled.std() / math.sqrt(len(scaled))
    log10_region = (top + math.log(mean_weight)) / math.log(10) + math.log10(p * p * (p - 1))
    certified = float(made.certificate["claims"]["region_probability"]["log10_lo"])
    return log10_region, error / mean_weight, certified, int(inside.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[5, 7])
    parser.add_argument("--samples", type=int, default=400000, help="draws per mixture component")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for p in args.p:
        log10_region, relative, certified, hits = estimate(p, args.samples, args.seed)
        print(f"p = {p}: P(R^above) ~ 10^{log10_region:.2f} (relative standard error {relative:.2g}, {hits} draws "
              f"inside); certified (widened box): 10^{certified:.2f}; gap {log10_region - certified:.1f} decades")


if __name__ == "__main__":
    main()
