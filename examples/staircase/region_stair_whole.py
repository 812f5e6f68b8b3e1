"""The lower sum (S.45) of Proposition S.25 for P(R_stair | active), evaluated in floats (docs/staircase.md,
section 11.16). Evidence only: no certificate states this bound, and a float evaluation of a lower sum is not a
proof of it (its rounding is not controlled). It shows how close the proposition comes to the importance-sampling
estimate of section 11.15 (`examples/staircase/region_stair_mc.py`) and how fine its grids must be.

    python examples/staircase/region_stair_whole.py [--p 5 7] [--scale 1] [--spread] [--check]

At sigma = 1 (kappa = 1), the library's sigma.

Each prime has its grids and windows (GRIDS below, chosen by hand around the weight that region_stair_mc.py
locates); --scale k divides every step by k (k = 2 halves them; the windows stay). The windows only drop cells, which a
lower sum may do. The sum is (S.45) term by term: the cell masses A_ik of Lemma S.24 (upper tails of Phi, in logs),
the convolution tails T_kl(t), and for each cell of w (D, E) and each alpha_q the first grid index t at which
(S.44) holds at both ends of the D cell (F_0 decreases in X, Lemma S.23 step 3, so a search over the X grid
finds it), then the running minimum over q and Abel's sum with Lemma S1.10's Sid.

--spread evaluates (S.45) with Lemma S.26's cells of w instead: the symmetric box of e replaced by its spread s
(the range of the n values w(j)): rho <= 1 + s/(g - (n - 1) s/n), sum_j e^{y e_j} at most its largest value at the vertices of
{sum e = 0, spread <= s}, and P(spread <= s) = n int phi(x) (Phi(x + s) - Phi(x))^(n - 1) dx by quadrature.

--check tests the lemmas the sum rests on, by routes that do not use (S.43)-(S.45): (S.44) implies the loss
inequality of (S.10) at random points of random cells (the loss from (A.2) over all of w, e drawn in the box,
its worst corners included), and so does (S.44) with Lemma S.26's cells (e at the vertices of the spread's
polytope and inside it); Lemma S.24's bound below a Monte Carlo of the cell's probability; the laws of
(S.42) by sampling.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import integrate
from scipy.special import erf, log_ndtr, logsumexp, ndtr

#: p -> (h, h_r, h_D, h_E, h_alpha; a window, r window, D window, E window, alpha max). h is the step of a and b
#: (X moves by h), h_r that of r and c.
GRIDS = {
    5: (0.025, 0.025, 0.025, 0.05, 0.0125, (0.0, 5.0), (0.1, 1.6), (0.05, 0.9), (4.0, 9.0), 0.8),
    7: (0.00625, 0.0125, 0.0125, 0.025, 0.001, (1.0, 5.5), (0.15, 1.0), (0.2, 0.6), (8.5, 11.0), 0.04),
}
#: p -> (step, largest value) of the spread s under --spread (Lemma S.26). A box of half-width alpha bounds the spread
#: only by 2 alpha, so the spread's window is wider than alpha's (at p = 7 the box's 0.04 would cut it).
SPREAD = {5: (0.0125, 1.6), 7: (0.002, 0.16)}
#: section 11.15's importance-sampling estimates of log10 P(R_stair | active) (region_stair_mc.py, seeds 1-3)
ESTIMATE = {5: -30.53, 7: -77.42}


def sid(alpha: float, n: int) -> float:
    """Lemma S1.10's lower bound of P(e in [-alpha, alpha]^n), e the centred vector of n independent N(0, 1)."""
    m = erf(alpha / math.sqrt(2))
    v = 1 - 2 * alpha * math.exp(-alpha**2 / 2) / math.sqrt(2 * math.pi) / m
    return max((2 * ndtr(alpha * math.sqrt(n / (n - 1))) - 1) ** n, m**n * math.sqrt(math.pi / (6 * v)))


def upper(x):
    """Phi(-x), the upper tail (no cancellation far out)."""
    return ndtr(-x)


def interval_mass(lo, hi):
    """Phi(hi) - Phi(lo), from whichever side loses no digits."""
    return np.where(lo > 0, upper(lo) - upper(hi), ndtr(hi) - ndtr(lo))


def range_cdf(s: float, n: int) -> float:
    """P(max - min of n independent N(0, 1) <= s), by quadrature (Lemma S.26, item 2)."""
    integrand = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * (ndtr(x + s) - ndtr(x)) ** (n - 1)  # noqa: E731
    return n * integrate.quad(integrand, -12, 12, epsabs=0, epsrel=1e-10, limit=200)[0]


def log_vertex_sum(y, s: float, n: int):
    """log V_n(y s) of Lemma S.26: the largest sum_j e^{y e_j} over the vertices of {sum e = 0, max e - min e <= s},
    k of the n values at (n - k) s/n, the others at -k s/n."""
    k = np.arange(1, n)[:, None]
    y = np.asarray(y, dtype=float)
    out = np.logaddexp(np.log(k) + y.reshape(1, -1) * s * (n - k) / n, np.log(n - k) - y.reshape(1, -1) * s * k / n)
    return out.max(axis=0).reshape(y.shape)


def log_sum_bound(y, alpha, n: int, spread: bool = False):
    """log of the bound on sum_j e^{y e_j} (y >= 0) that a cell of e gives: n cosh(y alpha) on the box [-alpha,
    alpha]^n (the chord, Lemma S.23 step 2), or V_n(y s) on {spread <= s = alpha} (Lemma S.26)."""
    y = np.asarray(y, dtype=float)
    if spread:
        return log_vertex_sum(y, alpha, n)
    return math.log(n) + np.logaddexp(y * alpha, -y * alpha) - math.log(2)


def F0(X, D, E, alpha, n, spread=False):
    """(S.43)'s F_0(X; D) at E_lo = E (sigma = 1), with the box's or (``spread``) Lemma S.26's sum bound."""
    return np.logaddexp(0, np.logaddexp(-X * D, -X * (D + E) + log_sum_bound(X, alpha, n, spread)))


def F1(z, D, E, alpha, n, spread=False):
    """(S.43)'s F_1(z; D) at E_lo = E (sigma = 1), with the box's or (``spread``) Lemma S.26's sum bound."""
    return np.logaddexp(0, np.logaddexp(z * D, -z * E + log_sum_bound(z, alpha, n, spread)))


def cell_budget(p: int, D_lo, E_lo, alpha, spread=False):
    """b_+ of Lemma S.23 for a cell of w (D >= D_lo, E >= E_lo, e in the box of half-width alpha or, with ``spread``,
    of spread <= alpha: rho_+ of Lemma S.26), or None when the cell's hypotheses fail (E_lo > alpha, g above the
    largest e_j the cell allows)."""
    n = p - 2
    g = (D_lo + 2 * E_lo) / p
    top = alpha * (n - 1) / n if spread else alpha  # the largest e_j the cell allows
    if not (E_lo > alpha and g > top):
        return None
    rho_plus = 1 + alpha / (g - top) if spread else (g + alpha) / (g - alpha)
    return 2 * math.log(2) + 2 / ((p - 1) * rho_plus)


def gate_tails(p: int, h, hr, awin, rwin):
    """The gates' side of (S.45) (floats): the nodes X_t and r_k, the convolution tails T_kl(t) = sum_{i + j >= t}
    Q_ik Q_jl (T[..., 2N - 1] = 0 reads "no index"), and the least t with r_{k+1} + r_{l+1} <= X_t and X_t > 0."""
    n = p - 2
    a = np.arange(awin[0], awin[1] + h / 2, h)
    L = (n + 1) * log_ndtr(-a)  # log Phi(-a)^(n+1)
    log_psi = L[:-1] + np.log1p(-np.exp(L[1:] - L[:-1])) - math.log(n + 1)
    r = np.arange(rwin[0], rwin[1] + hr / 2, hr)
    pi = np.minimum(interval_mass(r[None, :-1] - a[:-1, None], r[None, 1:] - a[:-1, None]),
                    interval_mass(r[None, :-1] - a[1:, None], r[None, 1:] - a[1:, None]))
    Q = np.exp(log_psi)[:, None] * pi  # Q_ik of Proposition S.25
    N, K = Q.shape
    T = np.zeros((K, K, 2 * N))
    for k in range(K):
        for l in range(k, K):
            tail = np.cumsum(np.convolve(Q[:, k], Q[:, l])[::-1])[::-1]
            T[k, l, :len(tail)] = T[l, k, :len(tail)] = tail
    X = 2 * a[0] + h * np.arange(2 * N - 1)
    # The nodes carry the rounding of np.arange, a few ulps of numbers below 20 (under 1e-13); 1e-9 h absorbs it and
    # admits no node lower by more than that.
    t_gates = np.maximum(np.searchsorted(X, r[1:, None] + r[None, 1:] - 1e-9 * h), np.searchsorted(X, 1e-9 * h))
    return X, r, T, t_gates


def first_indices(p: int, X, r, t_gates, d0, d1, e0, alpha, spread=False):
    """The floats' t_kl for the cell of w (D in [d0, d1], E >= e0, alpha or the spread s): the least index where
    (S.44) holds at both ends of the D cell and t_gates allows it (F_0 decreases in X, so a sorted search finds it;
    len(X) where none does); None when the cell's hypotheses fail (E_lo > alpha, g above the largest e_j)."""
    n = p - 2
    b_plus = cell_budget(p, d0, e0, alpha, spread)
    if b_plus is None:
        return None
    t = t_gates.copy()
    for D in (d0, d1):
        f = F1(r, D, e0, alpha, n, spread)
        fmax = np.maximum(f[:-1], f[1:])
        budget = b_plus - fmax[:, None] - fmax[None, :]
        t = np.maximum(t, np.searchsorted(-F0(X, D, e0, alpha, n, spread), -budget, side="right"))
    return t


def cell_weight(n: int, d0, d1, e0, e1) -> float:
    """P_D(d) P_E(d, m) of (S.45) for the cell [d0, d1) x [e0, e1) of (D, E), n = p - 2 (floats)."""
    sE = math.sqrt(0.5 + 1 / n)
    PD = interval_mass(np.array(d0 / math.sqrt(2)), np.array(d1 / math.sqrt(2)))
    return PD * min(upper((e0 + D / 2) / sE) - upper((e1 + D / 2) / sE) for D in (d0, d1))


def pair_levels(T, t):
    """T_kl(t_kl) for every pair (k, l), from gate_tails' T (0 where t_kl is the sentinel 2N - 1, where T is 0)."""
    return np.take_along_axis(T, np.minimum(t, T.shape[2] - 1)[:, :, None], axis=2)[:, :, 0]


def lower_sum(p: int, h, hr, hD, hE, ha, awin, rwin, Dwin, Ewin, alpha_max, spread=False):
    """The right side of (S.45) with these grids (floats, sigma = 1), and counts of what it evaluated; with
    ``spread``, Lemma S.26's cells of w (alpha then stands for the spread s)."""
    n = p - 2
    X, r, T, t_gates = gate_tails(p, h, hr, awin, rwin)
    K = T.shape[0]
    if spread:
        ha, alpha_max = SPREAD[p][0] * ha / GRIDS[p][4], SPREAD[p][1]
    alphas = ha * np.arange(1, int(round(alpha_max / ha)) + 1)
    Dg = np.arange(Dwin[0], Dwin[1] + hD / 2, hD)
    Eg = np.arange(Ewin[0], Ewin[1] + hE / 2, hE)
    sid_q = np.array([range_cdf(x, n) if spread else sid(x, n) for x in alphas])
    total, terms, cells = 0.0, [], 0
    for d0, d1 in zip(Dg[:-1], Dg[1:]):
        for e0, e1 in zip(Eg[:-1], Eg[1:]):
            G = np.zeros(len(alphas))
            for q, alpha in enumerate(alphas):
                t = first_indices(p, X, r, t_gates, d0, d1, e0, alpha, spread)
                if t is None:
                    continue
                cells += 1
                G[q] = pair_levels(T, t).sum()
            hq = np.append(np.minimum.accumulate(G), 0.0)
            term = cell_weight(n, d0, d1, e0, e1) * float(np.sum((hq[:-1] - hq[1:]) * sid_q))
            total += term
            terms.append(term)
    copies = p * p * (p - 1)
    terms = np.sort(np.array(terms))[::-1]
    carry = int(np.searchsorted(np.cumsum(terms), 0.99 * terms.sum()) + 1) if total > 0 else 0
    return {"bound": copies * total, "alpha_step": ha, "w_cells": len(terms), "w_alpha_cells": cells, "gate_pairs": K * K,
            "x_nodes": len(X), "carry99": carry}


# ------------------------------------------------------------------------------------------------- checks


def loss_margin(X, r, c, w, p):
    """2 log 2 + 2/((p - 1) rho) - Lambda at rows w (the whole w), from (A.2); -inf off W_2."""
    gamma = w.mean(axis=1, keepdims=True) - w[:, 2:]
    ell = lambda z, y: logsumexp(z[:, None] * (w - w[:, [y]]), axis=1)  # noqa: E731
    with np.errstate(all="ignore"):
        rho = gamma.max(axis=1) / gamma.min(axis=1)
        margin = 2 * math.log(2) + 2 / ((p - 1) * rho) - (ell(X, 0) + ell(r, 1) + ell(c, 1))
    return np.where(gamma.min(axis=1) > 0, margin, -np.inf)


def check_threshold(p: int, rng, spread: bool = False, trials: int = 4000) -> int:
    """Lemma S.23 (with ``spread``, as Lemma S.26 modifies it): wherever (S.44) holds on a random cell, random points
    of the cell (and the worst e: the box's corners, or the two-level vertices of the spread's polytope) satisfy the
    loss inequality and W_2, by the loss of (A.2) over the whole w. Returns how many cells were tested."""
    n, tested, tightest, least = p - 2, 0, math.inf, math.inf
    for _ in range(trials):
        # cells drawn around where the weight sits (section 11.15), so that many satisfy (S.44), some barely
        D_lo = rng.uniform(0.05, 0.8)
        D_hi = D_lo + rng.uniform(0.001, 0.1)
        alpha = rng.uniform(0.0005, 0.5) ** 1.5  # the half-width of the box, or the spread s
        E_lo = alpha + rng.uniform(0.5 * p, 2.5 * p)
        b_plus = cell_budget(p, D_lo, E_lo, alpha, spread)
        if b_plus is None:
            continue
        r0 = rng.uniform(0.2, 1.0)
        r1 = r0 + rng.uniform(0.001, 0.1)
        c0 = rng.uniform(0.2, 1.0)
        c1 = c0 + rng.uniform(0.001, 0.1)
        X0 = rng.uniform(0.5 * p, 2.0 * p)
        slack = min(b_plus - F0(X0, D, E_lo, alpha, n, spread) - max(F1(np.array([r0, r1]), D, E_lo, alpha, n, spread))
                    - max(F1(np.array([c0, c1]), D, E_lo, alpha, n, spread)) for D in (D_lo, D_hi))
        if not slack > 0:
            continue
        tightest = min(tightest, slack)
        tested += 1
        m = 64
        X = X0 + rng.exponential(1.0, m) * rng.choice([0, 1], m)
        rr, cc = rng.uniform(r0, r1, m), rng.uniform(c0, c1, m)
        D = rng.uniform(D_lo, D_hi, m)
        E = E_lo + rng.exponential(1.0, m) * rng.choice([0, 1], m)
        if spread:
            # half of the points at the polytope's vertices (k values s above the others), half inside it
            e = rng.uniform(0, alpha, (m, n))
            k = rng.integers(1, n, m // 2)
            e[: m // 2] = np.where(np.arange(n)[None, :] < k[:, None], alpha, 0.0)
            e -= e.mean(axis=1, keepdims=True)
            keep = e.max(axis=1) - e.min(axis=1) <= alpha * (1 + 1e-12)  # rounding of the centring only
        else:
            e = rng.uniform(-alpha, alpha, (m, n))
            e[: m // 2] = alpha * rng.choice([-1.0, 1.0], (m // 2, n))  # corners of the box
            e -= e.mean(axis=1, keepdims=True)
            e = np.clip(e, -alpha, alpha)
            e -= e.mean(axis=1, keepdims=True)  # centred again; may leave the box by rounding only
            keep = np.abs(e).max(axis=1) <= alpha
        mean = rng.normal(size=m)
        w = np.concatenate([(mean + E + D)[:, None], (mean + E)[:, None], mean[:, None] + e], axis=1)
        margin = loss_margin(X, rr, cc, w, p)[keep]
        assert (margin > 0).all(), f"Lemma S.23{' with S.26' if spread else ''} fails at p = {p}: margin {margin.min()}"
        least = min(least, margin.min())
    print(f"  Lemma S.23{' with Lemma S.26' if spread else ''}: (S.44) held on {tested} random cells (least slack "
          f"{tightest:.1e}); the loss inequality held at 64 points of each (least margin {least:.1e})")
    return tested


def check_gate_cell(p: int, rng, draws: int = 2_000_000) -> None:
    """Lemma S.24's bound against a Monte Carlo of the cell's probability (all 2p gate coordinates drawn)."""
    n = p - 2
    for a0, b0, J, Jc in [((0.5, 0.9), (0.3, 0.6), (0.2, 0.5), (0.4, 0.7)), ((-0.2, 0.4), (0.1, 0.3), (0.0, 1.0), (0.3, 0.35))]:
        u0, v0 = rng.uniform(*a0, draws), rng.uniform(*b0, draws)  # importance draws: uniform on the rectangle
        v1, u1 = rng.normal(size=draws), rng.normal(size=draws)
        weight = (a0[1] - a0[0]) * (b0[1] - b0[0]) * np.exp(-(u0**2 + v0**2) / 2) / (2 * math.pi)
        inside = (J[0] <= u0 + v1) & (u0 + v1 <= J[1]) & (Jc[0] <= v0 + u1) & (v0 + u1 <= Jc[1])
        tails = ndtr(-u0) ** n * ndtr(-v0) ** n
        values = weight * inside * tails
        mc, se = values.mean(), values.std() / math.sqrt(draws)
        M = lambda lo, hi: (ndtr(-lo) ** (n + 1) - ndtr(-hi) ** (n + 1)) / (n + 1)  # noqa: E731
        pi = lambda I, t: ndtr(I[1] - t) - ndtr(I[0] - t)  # noqa: E731
        bound = M(*a0) * M(*b0) * min(pi(J, a0[0]), pi(J, a0[1])) * min(pi(Jc, b0[0]), pi(Jc, b0[1]))
        assert bound <= mc + 4 * se, (bound, mc, se)
        print(f"  Lemma S.24: bound {bound:.4e} <= Monte Carlo {mc:.4e} +- {se:.1e}")


def check_laws(p: int, rng, draws: int = 1_000_000) -> None:
    """(S.42): D ~ N(0, 2), E + D/2 ~ N(0, 1/2 + 1/n) independent of D, e uncorrelated with (D, E)."""
    n = p - 2
    w = rng.normal(size=(draws, p))
    m = w[:, 2:].mean(axis=1)
    D, E, e = w[:, 0] - w[:, 1], w[:, 1] - m, w[:, 2:] - m[:, None]
    se = 5 / math.sqrt(draws)  # five standard errors of a sample moment of order-one variance
    assert abs(D.var() - 2) < 2 * 5 * se and abs((E + D / 2).var() - (0.5 + 1 / n)) < 5 * se
    assert abs(np.corrcoef(D, E + D / 2)[0, 1]) < se and abs(np.corrcoef(D, e[:, 0])[0, 1]) < se
    assert abs(np.corrcoef(E, e[:, 0])[0, 1]) < se
    print(f"  (S.42): var D = {D.var():.4f}, var(E + D/2) = {(E + D / 2).var():.4f} (1/2 + 1/n = {0.5 + 1 / n:.4f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, nargs="+", default=[5, 7], choices=sorted(GRIDS))
    parser.add_argument("--scale", type=float, default=1.0, help="divide every grid step by this (default 1)")
    parser.add_argument("--spread", action="store_true", help="cells of w by the spread of e (Lemma S.26)")
    parser.add_argument("--check", action="store_true", help="test Lemmas S.23, S.24, S.26 and (S.42) numerically instead")
    args = parser.parse_args()
    if not (math.isfinite(args.scale) and args.scale > 0):
        parser.error("--scale must be a finite number > 0")
    rng = np.random.default_rng(1)
    for p in args.p:
        if args.check:
            print(f"p = {p}:")
            check_threshold(p, rng)
            check_threshold(p, rng, spread=True)
            check_gate_cell(p, rng)
            check_laws(p, rng)
            continue
        h, hr, hD, hE, ha, *windows = GRIDS[p]
        steps = [x / args.scale for x in (h, hr, hD, hE, ha)]
        start = time.process_time()
        out = lower_sum(p, *steps, *windows, spread=args.spread)
        seconds = time.process_time() - start
        log10 = math.log10(out["bound"]) if out["bound"] > 0 else float("-inf")
        shown = tuple(round(x, 6) for x in steps[:4] + [out["alpha_step"]])  # the last: the step of alpha, or of s
        print(f"p = {p}{' (Lemma S.26)' if args.spread else ''}: steps (h, h_r, h_D, h_E, "
              f"h_{'s' if args.spread else 'alpha'}) = {shown}: "
              f"log10 (S.45) = {log10:.2f}, estimate {ESTIMATE[p]:.2f}, factor {10 ** (ESTIMATE[p] - log10):.1f}; "
              f"{out['w_cells']} cells of (D, E) ({out['carry99']} carry 99%), {out['w_alpha_cells']} with alpha, "
              f"{out['gate_pairs']} pairs (k, l), {out['x_nodes']} nodes of X; {seconds:.0f} s CPU")


if __name__ == "__main__":
    main()
