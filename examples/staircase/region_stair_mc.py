"""How much of U_stair does the certified bound of `certify staircase` reach? An importance-sampling estimate
(floats; evidence, not proof) of P(theta(0) in R_stair | active) under N(0, I_{3p}), R_stair the relabelled copies
of U_stair of (S.10) (docs/staircase.md, sections 3.1, 9 and 11.14-11.15), beside the certified bound
(proofs/staircase/staircase-P.json, region_probability).

    python examples/staircase/region_stair_mc.py [--p 5 7] [--draws 400000] [--seed 1] [--check]

Membership is (S.10) at the point's own values: (P1) with strictly negative boundary gates, (P2), and
Lambda < 2 log 2 + 2/((p - 1) rho). Three integrations are done exactly (to quadrature), only the rest is sampled:

* The tails u(i), v(i), i >= 2 (Lemma S.18). Given u(0), u(1), v(0), v(1), they enter only through the gates that
  read them, and (P1) asks each of these to be < 0: v(j) < -max(u(0), u(1)) and u(i) < -max(v(0), v(1)). On the
  pattern z11 = u(1) + v(1) < 0 < r, c, so u(1) < u(0) and v(1) < v(0), and the conditions are the boundary gates,
  v(j) < -u(0), u(i) < -v(0); the gates (i, j), i, j >= 2, are then < -(u(0) + v(0)) = -X < 0. Probability
  Phi(-u(0))^(p - 2) Phi(-v(0))^(p - 2).
* The line d_uv (Lemma S.19). The gates read (u, v) only through X = z00, r = z01, c = z10 (and the tails), so
  write u(0) = a, v(0) = X - a, v(1) = r - a, u(1) = c - X + a (a unit Jacobian). (X, r, c) ~ N(0, [[2, 1, 1],
  [1, 2, 0], [1, 0, 2]]) and a | (X, r, c) ~ N((2X + r - c)/4, 1/4), so the tails' probability given the gates is
  T(X, r, c) = E_a[Phi(-a)^(p - 2) Phi(a - X)^(p - 2)], a one-dimensional Gauss-Hermite sum (40 nodes at the mode
  of its log-concave integrand, found by Newton; `--check` compares it with scipy's quad).
* The line d_w. (S.10) reads w only through its differences, so the mean of w drops out: the centred w, written by
  y = (w(c) - mean(w))_{c < p - 1}, has the density (2 pi)^(-(p - 1)/2) sqrt(p) exp(-|w - mean(w)|^2/2).

The p + 2 coordinates x = (X, r, c, y) are drawn from a mixture of two multivariate t laws (4 degrees of freedom, the
second twice as wide, shares 3 to 1), adapted by 8 rounds of weighted moment matching (cross-entropy, a tenth of the
draws each) from the symmetric point (X, r = c, D, E of section 9.1) of largest density with a loss margin of 0.02,
found by Nelder-Mead from the certificate's parameters. The estimate is the mean of
1_U(x) N(X, r, c) T(X, r, c) N_w(y)/q(x) over fresh draws from the adapted law, with its standard error, the
effective sample size (sum w)^2/sum w^2 and the largest weight's share. It is deterministic for a seed. The copies
are disjoint (the active set names the relabelling, section 9.2), so P(R_stair) = p^2 (p - 1) times the estimate;
P(active) = 1 - P(max u + max v <= 0) = 1 - int p phi(x) Phi(x)^(p - 1) Phi(-x)^p dx by quadrature (0.99603 at
p = 5, 0.99971 at p = 7). The table's block is where the weight sits: weighted means and standard deviations of X, r, c,
D = w(0) - w(1), E = w(1) - mean w(j), the spread max - min of the w(j) (j >= 2) and the loss margin of (S.10), beside
the certificate's box (its base value; a gate or a difference of w moves by at most 2r on the box), and the
integrated density log10 N T N_w at the box's centre and at the weight's mean.

`--check` validates the pieces instead: (a) the membership in all 3p coordinates, written from (P1)-(P2) and (S.10)
over every gate, says "in" at the certificate's base point and at random points of its box, and agrees with the
reduced membership (X, r, c, w and the tail conditions) on points around both; (b) it is unchanged along d_uv and
d_w; (c) T against scipy's quad, the centred w's density against N(0, I - J/p), the mass of the gate pattern alone
(X, r, c > 0, z11 < 0, the tails) three ways: (X, r, c) drawn with T, (u0, u1, v0, v1) drawn with the tails' closed
form, and plain Monte Carlo over (u, v) (visible at p = 5 only, about 10^-5; U_stair itself, below 10^-30, is not);
and the estimate of P(U_stair) against a second importance sampler in all 3p coordinates, membership by the full
definition, that draws a, mean(w) and every tail instead of integrating them. Floats throughout: evidence beside a
proof, never a bound.

What it gave (seeds 1-3, 10^6 draws, about 11 s of CPU per prime): P(R_stair | active) ~ 10^-30.53 at p = 5 and
10^-77.42 to 10^-77.43 at p = 7 (relative standard errors 0.003-0.004), 42.1 and 85.3 decades above the certified
10^-72.62 and 10^-162.71. The weight sits on the boundary of (S.10) (loss margin 0.005 +- 0.005 at p = 5, 0.001 at
p = 7; the box's centre 0.115 and 0.065), at X ~ 4.4 and 6.2, r = c ~ 0.61 and 0.49, D ~ 0.39, E ~ 6.2 and 9.7 (the
box: X = p, s = 0.321 and 0.277, D = 1/4, E = 12.5 and 17.5); its spread in X (0.33, 0.27) and E (0.47, 0.43) is
7 to 14 times the box's 2r.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy import integrate
from scipy.optimize import minimize
from scipy.special import log_ndtr, logsumexp
from scipy.stats import multivariate_normal, multivariate_t, norm

PROOFS = Path(__file__).resolve().parents[2] / "proofs" / "staircase"
#: covariance of (X, r, c) = (u0 + v0, u0 + v1, u1 + v0) under N(0, I)
SIGMA3 = np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 0.0], [1.0, 0.0, 2.0]])
SIGMA3_INV = np.linalg.inv(SIGMA3)
NODES, NODE_WEIGHTS = hermegauss(40)
DF = 4  # the t proposal's degrees of freedom
ROUNDS = 8  # cross-entropy rounds
WIDE = (0.75, 2.0)  # the adapted component's share; the other component's scale factor
INSET = 0.02  # the start's loss margin


# ---------------------------------------------------------------- the certificate


def certificate(p: int) -> dict:
    """The base point (u, v, w as arrays), radius and certified log10 bound of proofs/staircase/staircase-p.json."""
    document = json.loads((PROOFS / f"staircase-{p}.json").read_text())
    value = lambda text: float(Fraction(text))  # noqa: E731
    point = document["base_point"]
    blocks = {b: np.array([value(point[b]["at_0"]), value(point[b]["at_1"])] + [value(point[b]["elsewhere"])] * (p - 2))
              for b in "uvw"}
    return {"theta": np.concatenate([blocks["u"], blocks["v"], blocks["w"]]), "radius": value(document["radius"]),
            "log10_lo": float(document["claims"]["region_probability"]["log10_lo"]),
            "parameters": {k: value(v) for k, v in document["parameters"].items()}}


# ---------------------------------------------------------------- membership


def ell(z: np.ndarray, w: np.ndarray, y: int) -> np.ndarray:
    """ell_y(z) = log sum_c e^{z (w(c) - w(y))} ((A.2)), rows of w."""
    return logsumexp(z[:, None] * (w - w[:, [y]]), axis=1)


def loss_margin(X, r, c, w, p: int) -> np.ndarray:
    """2 log 2 + 2/((p - 1) rho) - Lambda; -inf where some gamma_j <= 0 (j >= 2)."""
    gamma = w.mean(axis=1, keepdims=True) - w[:, 2:]
    ok = gamma.min(axis=1) > 0
    with np.errstate(all="ignore"):
        rho = gamma.max(axis=1) / gamma.min(axis=1)
        margin = 2 * math.log(2) + 2 / ((p - 1) * rho) - (ell(X, w, 0) + ell(r, w, 1) + ell(c, w, 1))
    return np.where(ok, margin, -np.inf)


def member_full(theta: np.ndarray, p: int) -> np.ndarray:
    """U_stair of (S.10) at rows theta = (u, v, w) of R^{3p}, from the definition:
    every gate u(i) + v(j) read, (P1) with strict boundary gates, (P2), and the loss inequality."""
    u, v, w = theta[:, :p], theta[:, p:2 * p], theta[:, 2 * p:]
    z = u[:, :, None] + v[:, None, :]
    active = np.zeros((p, p), dtype=bool)
    active[0, 0] = active[0, 1] = active[1, 0] = True
    inside = (z[:, active] > 0).all(axis=1) & (z[:, ~active] < 0).all(axis=1)
    return inside & (loss_margin(z[:, 0, 0], z[:, 0, 1], z[:, 1, 0], w, p) > 0)


def core_w(x: np.ndarray) -> np.ndarray:
    """The centred w of the core rows x = (X, r, c, y), y its first p - 1 entries."""
    y = x[:, 3:]
    return np.concatenate([y, -y.sum(axis=1, keepdims=True)], axis=1)


def member_core(x: np.ndarray, p: int) -> np.ndarray:
    """The conditions of (S.10) that do not read the tails, at core rows x = (X, r, c, y): X, r, c > 0, z11 =
    r + c - X < 0, every gamma_j > 0 and the loss inequality."""
    X, r, c = x[:, 0], x[:, 1], x[:, 2]
    with np.errstate(invalid="ignore"):
        return (X > 0) & (r > 0) & (c > 0) & (r + c < X) & (loss_margin(X, r, c, core_w(x), p) > 0)


# ---------------------------------------------------------------- the integrated density


def log_tails(X: np.ndarray, r: np.ndarray, c: np.ndarray, p: int) -> np.ndarray:
    """log T(X, r, c) = log E[Phi(-a)^(p - 2) Phi(a - X)^(p - 2)], a ~ N((2X + r - c)/4, 1/4): Gauss-Hermite with 40
    nodes at the mode of the (log-concave) integrand, its scale from the curvature there."""
    k, m = p - 2, (2 * X + r - c) / 4

    def mills(t):  # phi(t)/Phi(t)
        return np.exp(-0.5 * t * t - 0.5 * math.log(2 * math.pi) - log_ndtr(t))

    def slopes(a):
        R1, R2 = mills(-a), mills(a - X)
        return -4 * (a - m) + k * (R2 - R1), -4 - k * (R1 * (R1 - a) + R2 * (R2 + a - X))

    a = m.copy()
    for _ in range(25):
        g, h = slopes(a)
        a = a - g / h
    sd = 1 / np.sqrt(-slopes(a)[1])
    t = a[:, None] + sd[:, None] * NODES
    log_integrand = (-2 * (t - m[:, None]) ** 2 + math.log(2 / math.sqrt(2 * math.pi))
                     + k * (log_ndtr(-t) + log_ndtr(t - X[:, None])) + 0.5 * NODES**2 + np.log(sd)[:, None])
    return logsumexp(log_integrand, b=NODE_WEIGHTS, axis=1)


def log_density(x: np.ndarray, p: int) -> np.ndarray:
    """log of N(X, r, c; 0, SIGMA3) T(X, r, c) N_w(y): the density of the core coordinates times the tails' mass."""
    g = x[:, :3]
    gates = -0.5 * np.einsum("ni,ij,nj->n", g, SIGMA3_INV, g) - 1.5 * math.log(2 * math.pi) - 0.5 * math.log(4.0)
    wc = core_w(x)
    centred = -0.5 * (wc**2).sum(axis=1) - 0.5 * (p - 1) * math.log(2 * math.pi) + 0.5 * math.log(p)
    return gates + centred + log_tails(x[:, 0], x[:, 1], x[:, 2], p)


def log_integrand(x: np.ndarray, p: int) -> np.ndarray:
    """log of 1_U N T N_w at core rows (-inf outside; T only evaluated inside)."""
    out = np.full(len(x), -np.inf)
    inside = member_core(x, p)
    if inside.any():
        out[inside] = log_density(x[inside], p)
    return out


def p_active(p: int) -> float:
    """P(some gate > 0) = 1 - P(max u + max v <= 0) under N(0, I_{3p}), by quadrature."""
    none = integrate.quad(lambda t: p * norm.pdf(t) * norm.cdf(t) ** (p - 1) * norm.cdf(-t) ** p, -12, 12,
                          epsabs=1e-14)[0]
    return 1 - none


# ---------------------------------------------------------------- the sampler


def symmetric_point(q, p: int) -> np.ndarray:
    """Core coordinates of section 9.1's point with parameters (X, s, D, E): r = c = s, w = (E + D, E, 0, ...)
    centred."""
    X, s, D, E = q
    w = np.array([E + D, E] + [0.0] * (p - 2))
    w -= w.mean()
    return np.concatenate([[X, s, s], w[:p - 1]])


def start(p: int) -> np.ndarray:
    """The symmetric point of largest density in the region's closure (Nelder-Mead over (X, s, D, E) from the
    certificate's parameters, the region's conditions as a penalty), as the first proposal's centre."""
    par = certificate(p)["parameters"]

    def objective(q):
        x = symmetric_point(q, p)[None]
        X, r, c = x[:, 0], x[:, 1], x[:, 2]
        worst = min(X[0], r[0], X[0] - r[0] - c[0], loss_margin(X, r, c, core_w(x), p)[0] - INSET)
        if not np.isfinite(worst):
            return 1e9
        return -log_density(x, p)[0] + 1e4 * min(worst, 0.0) ** 2 + 1e3 * max(-worst, 0.0)

    q = minimize(objective, [par["X"], par["s"], par["D"], par["E"]], method="Nelder-Mead",
                 options={"maxiter": 4000, "xatol": 1e-8, "fatol": 1e-10}).x
    return symmetric_point(q, p)


class Proposal:
    """The mixture share * t(mean, cov) + (1 - share) * t(mean, factor^2 cov), DF degrees of freedom."""

    def __init__(self, mean, cov, share=1.0, factor=1.0):
        self.parts = [(share, multivariate_t(mean, cov, df=DF))]
        if share < 1:
            self.parts.append((1 - share, multivariate_t(mean, factor**2 * cov, df=DF)))

    def draw(self, n: int, rng) -> np.ndarray:
        counts = rng.multinomial(n, [s for s, _ in self.parts])
        return np.concatenate([law.rvs(size=k, random_state=rng).reshape(k, -1)
                               for (_, law), k in zip(self.parts, counts) if k])

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        return logsumexp(np.stack([math.log(s) + law.logpdf(x) for s, law in self.parts]), axis=0)


def adapt(p: int, n: int, rng) -> Proposal:
    """Cross-entropy: from start() with scale 0.05, ROUNDS rounds of n draws, each refitting the mixture's centre and
    scale matrix to the weighted mean and covariance of the draws inside the region."""
    mean = start(p)
    cov = 0.05**2 * np.eye(p + 2)
    for _ in range(ROUNDS):
        law = Proposal(mean, cov, *WIDE)
        x = law.draw(n, rng)
        log_w = log_integrand(x, p) - law.logpdf(x)
        if not np.isfinite(log_w).any():
            cov = 4 * cov
            continue
        weight = np.exp(log_w - log_w.max())
        weight /= weight.sum()
        mean = weight @ x
        centred = x - mean
        fitted = (weight[:, None] * centred).T @ centred
        cov = fitted + 1e-6 * np.eye(len(mean))
    return Proposal(mean, cov, *WIDE)


def weighted(log_w: np.ndarray) -> dict:
    """Estimate, relative standard error, ESS and the largest share of the weights exp(log_w)."""
    top = log_w.max()
    scaled = np.exp(log_w - top)
    mean = scaled.mean()
    return {"log_mean": top + math.log(mean), "relative": scaled.std() / mean / math.sqrt(len(scaled)),
            "ess": scaled.sum() ** 2 / (scaled**2).sum(), "largest": scaled.max() / scaled.sum()}


def summaries(x: np.ndarray, p: int) -> dict[str, np.ndarray]:
    """X, r, c, D, E, the spread of the w(j) and the loss margin (j >= 2) at core rows."""
    w = core_w(x)
    return {"X": x[:, 0], "r": x[:, 1], "c": x[:, 2], "D": w[:, 0] - w[:, 1], "E": w[:, 1] - w[:, 2:].mean(axis=1),
            "w(j) spread": w[:, 2:].max(axis=1) - w[:, 2:].min(axis=1),
            "loss margin": loss_margin(x[:, 0], x[:, 1], x[:, 2], w, p)}


def estimate(p: int, draws: int, seed: int) -> dict:
    """The importance-sampling estimate of P(U_stair), with its diagnostics and the proposal."""
    rng = np.random.default_rng(seed)
    law = adapt(p, max(draws // 10, 20000), rng)
    x = law.draw(draws, rng)
    log_w = log_integrand(x, p) - law.logpdf(x)
    out = weighted(log_w)
    inside = np.isfinite(log_w)
    share = np.exp(log_w[inside] - log_w[inside].max())
    share /= share.sum()
    out["where"] = {name: (share @ values, math.sqrt(max(share @ values**2 - (share @ values) ** 2, 0.0)))
                    for name, values in summaries(x[inside], p).items()}
    out["inside"] = int(inside.sum())
    out["centre"] = share @ x[inside]
    out["proposal"] = law
    return out


# ---------------------------------------------------------------- checks


def core_of(theta: np.ndarray, p: int) -> np.ndarray:
    """Core rows (X, r, c, y) of full rows theta."""
    u, v, w = theta[:, :p], theta[:, p:2 * p], theta[:, 2 * p:]
    wc = w - w.mean(axis=1, keepdims=True)
    return np.concatenate([(u[:, 0] + v[:, 0])[:, None], (u[:, 0] + v[:, 1])[:, None], (u[:, 1] + v[:, 0])[:, None],
                           wc[:, :p - 1]], axis=1)


def member_reduced(theta: np.ndarray, p: int) -> np.ndarray:
    """member_core plus the tail conditions of the docstring (v(j) < -u(0), u(i) < -v(0), i, j >= 2)."""
    u, v = theta[:, :p], theta[:, p:2 * p]
    tails = (v[:, 2:] < -u[:, [0]]).all(axis=1) & (u[:, 2:] < -v[:, [0]]).all(axis=1)
    return member_core(core_of(theta, p), p) & tails


def full_is(p: int, law: Proposal, draws: int, rng) -> dict:
    """A second estimate of P(U_stair), in all 3p coordinates and by member_full, with nothing integrated: the
    core (X, r, c, y) from ``law``; a = u(0) ~ N((2X + r - c)/4, 0.4^2); mean(w) ~ N(0, 1.5^2/p); each tail
    v(j) = -u(0) - e, u(i) = -v(0) - e' (i, j >= 2) with e, e' exponential of rate max(u(0), 1/2), max(v(0), 1/2)
    (the tails are drawn where the reduction says they must be, and member_full decides). The weight is
    N(theta; 0, I_{3p})/q(theta), q with the Jacobian p of (y, mean(w)) -> w ((a, X, r, c) -> (u0, u1, v0, v1) has
    Jacobian 1)."""
    x = law.draw(draws, rng)
    X, r, c = x[:, 0], x[:, 1], x[:, 2]
    m = (2 * X + r - c) / 4
    a = m + 0.4 * rng.standard_normal(draws)
    nu = 1.5 / math.sqrt(p) * rng.standard_normal(draws)
    u0, v0, v1, u1 = a, X - a, r - a, c - X + a
    rate_v, rate_u = np.maximum(u0, 0.5)[:, None], np.maximum(v0, 0.5)[:, None]
    ev, eu = rng.exponential(size=(draws, p - 2)) / rate_v, rng.exponential(size=(draws, p - 2)) / rate_u
    theta = np.concatenate([u0[:, None], u1[:, None], -v0[:, None] - eu, v0[:, None], v1[:, None], -u0[:, None] - ev,
                            core_w(x) + nu[:, None]], axis=1)
    log_q = (law.logpdf(x) + norm.logpdf(a, m, 0.4) + norm.logpdf(nu, 0, 1.5 / math.sqrt(p))
             + (np.log(rate_v) - rate_v * ev).sum(axis=1) + (np.log(rate_u) - rate_u * eu).sum(axis=1) - math.log(p))
    log_prior = norm.logpdf(theta).sum(axis=1)
    return weighted(np.where(member_full(theta, p), log_prior - log_q, -np.inf))


def checks(p: int, seed: int, draws: int) -> None:
    """Print the validations (a)-(c) of the module docstring."""
    rng = np.random.default_rng(seed)
    made = certificate(p)
    base, radius = made["theta"], made["radius"]
    box = base + radius * rng.uniform(-1, 1, (20000, 3 * p))
    print(f"p = {p}: (a) base point in U_stair: {bool(member_full(base[None], p)[0])}; random box points in: "
          f"{int(member_full(box, p).sum())}/{len(box)}")
    ours = estimate(p, draws, seed)
    around = np.concatenate([base + 0.5 * rng.standard_normal((20000, 3 * p)),
                             lift(ours["proposal"].draw(20000, rng), rng, p)])
    full = member_full(around, p)
    print(f"      full vs reduced membership at {len(around)} points near the box and near the weight "
          f"({int(full.sum())} in): {int((full != member_reduced(around, p)).sum())} disagree")
    lines = (rng.uniform(-10, 10, (len(around), 1)) * np.r_[np.ones(p), -np.ones(p), np.zeros(p)]
             + rng.uniform(-10, 10, (len(around), 1)) * np.r_[np.zeros(2 * p), np.ones(p)])
    print(f"  (b) the same points moved along d_uv and d_w by up to 10: "
          f"{int((member_full(around + lines, p) != full).sum())} verdicts change")
    worst = 0.0
    for X, r, c in rng.uniform([0.2, 0.0, 0.0], [9, 1.5, 1.5], (20, 3)):
        m = (2 * X + r - c) / 4
        value = integrate.quad(lambda a: norm.pdf(a, m, 0.5) * norm.cdf(-a) ** (p - 2) * norm.cdf(a - X) ** (p - 2),
                               -15, 20, points=[m, X / 2], limit=400, epsrel=1e-12, epsabs=0)[0]
        worst = max(worst, abs(log_tails(np.array([X]), np.array([r]), np.array([c]), p)[0] - math.log(value)))
    y = rng.standard_normal((1000, p - 1))
    exact = multivariate_normal(np.zeros(p - 1), np.eye(p - 1) - 1 / p).logpdf(y)
    mine = log_density(np.concatenate([np.ones((1000, 3)), y], axis=1), p) - log_density(
        np.concatenate([np.ones((1000, 3)), np.zeros((1000, p - 1))], axis=1), p)
    mine += multivariate_normal(np.zeros(p - 1), np.eye(p - 1) - 1 / p).logpdf(np.zeros(p - 1))
    print(f"  (c) log T against quad at 20 points: largest difference {worst:.1e}; the centred w's density against "
          f"N(0, I - J/p) at 1000 points: {np.abs(mine - exact).max():.1e}")
    # the gate pattern alone (the tails, X, r, c > 0 and z11 < 0): three routes
    n = 2_000_000
    g = rng.multivariate_normal(np.zeros(3), SIGMA3, size=n)
    ok = (g > 0).all(axis=1) & (g[:, 1] + g[:, 2] < g[:, 0])
    t = np.zeros(n)
    t[ok] = np.exp(log_tails(g[ok, 0], g[ok, 1], g[ok, 2], p))
    q = rng.standard_normal((n, 4))  # u0, u1, v0, v1
    ok = ((q[:, 0] + q[:, 2] > 0) & (q[:, 0] + q[:, 3] > 0) & (q[:, 1] + q[:, 2] > 0) & (q[:, 1] + q[:, 3] < 0))
    closed = np.where(ok, np.exp((p - 2) * (log_ndtr(-q[:, 0]) + log_ndtr(-q[:, 2]))), 0.0)
    hits = 0
    for _ in range(10):
        uv = rng.standard_normal((n, 2 * p))
        z = uv[:, :p, None] + uv[:, None, p:]
        hits += int(((z[:, [0, 0, 1], [0, 1, 0]] > 0).all(axis=1)
                     & ((z < 0).sum(axis=(1, 2)) == p * p - 3)).sum())
    print(f"      P(gate pattern): (X, r, c) drawn, T by quadrature {t.mean():.4e} +- {t.std() / math.sqrt(n):.1e}; "
          f"(u0, u1, v0, v1) drawn, tails closed {closed.mean():.4e} +- {closed.std() / math.sqrt(n):.1e}; "
          f"(u, v) drawn: {hits} of {10 * n} = {hits / (10 * n):.4e} +- {math.sqrt(hits) / (10 * n):.1e}")
    second = full_is(p, ours["proposal"], draws, rng)
    print(f"      P(U_stair): this estimator 10^{ours['log_mean'] / math.log(10):.3f} (rel. s.e. "
          f"{ours['relative']:.2g}); the sampler in all 3p coordinates 10^{second['log_mean'] / math.log(10):.3f} "
          f"(rel. s.e. {second['relative']:.2g}, ESS {second['ess']:.0f})")


def lift(x: np.ndarray, rng, p: int) -> np.ndarray:
    """Full points over core rows x: a, mean(w) and the tails drawn around their conditions' boundaries."""
    X, r, c = x[:, 0], x[:, 1], x[:, 2]
    a = X / 2 + 0.3 * rng.standard_normal(len(x))
    u0, v0, v1, u1 = a, X - a, r - a, c - X + a
    vt = -u0[:, None] + 0.3 * rng.standard_normal((len(x), p - 2)) - 0.3
    ut = -v0[:, None] + 0.3 * rng.standard_normal((len(x), p - 2)) - 0.3
    return np.concatenate([u0[:, None], u1[:, None], ut, v0[:, None], v1[:, None], vt,
                           core_w(x) + rng.standard_normal((len(x), 1))], axis=1)


# ---------------------------------------------------------------- the table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[5, 7])
    parser.add_argument("--draws", type=int, default=400000, help="final draws (the adaptation uses a tenth per round)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="run the validations (a)-(c) instead")
    args = parser.parse_args()
    for p in args.p:
        if args.check:
            checks(p, args.seed, args.draws)
            continue
        began = time.process_time()
        out = estimate(p, args.draws, args.seed)
        made = certificate(p)
        active = p_active(p)
        log10 = (out["log_mean"] + math.log(p * p * (p - 1)) - math.log(active)) / math.log(10)
        print(f"p = {p}, seed {args.seed}: P(R_stair | active) ~ 10^{log10:.2f}, relative standard error "
              f"{out['relative']:.2g}, ESS {out['ess']:.0f} of {args.draws} ({out['inside']} inside), largest weight "
              f"{out['largest']:.2g}; certified 10^{made['log10_lo']:.2f}: gap {log10 - made['log10_lo']:.1f} "
              f"decades (P(active) = {active:.5f}; {time.process_time() - began:.0f} s CPU)")
        centre = core_of(made["theta"][None], p)
        box = summaries(centre, p)
        print(f"  {'':12} {'weighted mean':>14} {'sd':>7} {'box':>8} {'+-':>7}")
        for name, (mean, sd) in out["where"].items():
            half = f"{2 * made['radius']:7.4f}" if name != "loss margin" else ""
            print(f"  {name:12} {mean:14.3f} {sd:7.3f} {box[name][0]:8.3f} {half}".rstrip())
        densities = [log_density(point[None], p)[0] / math.log(10) for point in (centre[0], out["centre"])]
        print(f"  log10 N T N_w: {densities[0]:.2f} at the box's centre, {densities[1]:.2f} at the weight's mean")


if __name__ == "__main__":
    main()
