"""Coq lemmas of the dead certificate's ``region_purity_probability`` claim (docs/purity-tube.md; docs/coq.md, 'The purity
claim in Coq').

The claim has two components, each a lower bound with its log10 twin, for theta(0) ~ N(0, sigma^2 I_3p) given
initial activity:

* ``not_single_frequency``: P(theta(0) in R_dead and theta_inf not single-frequency) = P(R_dead) (the null-set
  lemma), bounded by the dead region's Jensen chain: the lemmas of certify.coq.region, whose number this component
  states again (lowered by the same relative slack).
* ``purity_margin``: P(theta(0) in R_dead and max_zeta F_zeta(theta_inf) <= 1 - delta) >= (kept - lost) / (C(2p, p) - 1)
  for one ratio lambda of certify.kernel.region_purity.GAMMA_RATIOS (or none: the whole R_dead):
  kept = E[Phibar(lambda c_p S)] >= Phibar(lambda c_p E[S]) (Jensen) >= 1/2 - G(lambda c_p E), E the dead route's
  bound of E[S]; lost = E[H(Z)], Z = S / sqrt(Q), H(z) = min(1, (p - 1)/2 P(rho < kappa(mu z)^2 / B)),
  kappa(e) = e + sqrt(delta) (1 + e), mu >= lambda - sqrt(lambda^2 - 1) (1 without a cut). H is nondecreasing, so for
  a grid z_0 < ... < z_I, nondecreasing ends Hbar_i >= H(z_i) (Hbar <= 1) and ends T_i >= P(Z > z_i),

      lost <= Hbar_0 + sum_i T_(i-1) (Hbar_i - Hbar_(i-1)) + T_I (1 - Hbar_I)      (Abel summation)

  with P(rho < c/B) = I_c(a, p) + c^k (1 - c)^p / (p B(a, p)) for c < 1 (rho ~ Beta(k, 1), B ~ Beta(a, p),
  a = (p - 1)/2, k = a - 1: integers for odd p; docs/purity-tube.md, step (B)), I_c(a, p) = sum_(j = a)^(a + p - 1)
  C(a + p - 1, j) c^j (1 - c)^(a + p - 1 - j) (the binomial form of the incomplete beta at integer parameters), and
  Markov's P(Z > z) <= E[S] / (z E[sqrt Q]), E[sqrt Q] = sqrt(2 pi) p C(2p, p) / 4^p (Q ~ chi^2_2p; step (Z)).
  For p <= 50 some T_i are radius bounds instead (certify.coq.region_purity_tail): P(Z > z) <= P(S > z r) /
  P(Q >= r^2), the spacing's tail an integral of the proved closed form of G and P(Q >= r^2) a Poisson sum.
  These are the paper-level steps, stated in the comments. Coq proves every number that enters them: each Hbar_i by
  ``interval`` from the closed forms, each T_i >= its Definition region_purity_T_i (Markov by ``interval``, a radius
  bound by one ``integral``), the Hbar_i nondecreasing, the Abel sum (written with the T_i Definitions, so that Coq
  ties it to their lemmas) at most its rational end, and kept by one ``integral``.

For p > 50 the route uses Markov's tail on the kernel's grid, as the kernel does (certify.kernel.region_purity), so
the route's number meets the kernel's bound to about 15 digits. For p <= 50 the kernel integrates the spacing's tail
at 15-20 grid points; the route chooses, on a grid 2^(1/8) fine, a sub-grid and the few points (6-8 in the library)
whose radius tails it proves, and reaches the kernel's bound (:func:`purity_route`). The exporter recomputes the
kernel's bound from p and delta (never from lo): when the route's number exceeds it by :data:`FULL_MARGIN` the claim
lemmas state lo and log10_lo in full, else lowered by the relative slack s the route loses (certify.coq.gaussian's
rule: digits fixed by s, never by the certificate's numbers); a slack above :data:`MAX_SLACK` raises ValueError, and
the claim is listed as not exported with the measured shortfall.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
from flint import fmpq

from ..kernel.region_purity import GAMMA_RATIOS, TUBE_MULTIPLES
from .lemma import Definition, Lemma
from .region import (BINOMIAL, JENSEN_CHAIN, PHI, SPACING, _generic_lemmas, _mp, _require_twin, _rounded, _specific,
                     claim_lemmas, lowered_ends, region_proof, stated_lo)
from .region_purity_tail import TAIL_TERM, spacing_tails, tail_lemmas
from .relations import landmark_lemmas, twin_lemmas
from .terms import number, real

CLAIM = "region_purity_probability"
COMPONENTS = ("not_single_frequency", "purity_margin")
DPS = 40
#: The claim is exported only when the route's number lies within this relative slack of the kernel's bound
#: (recomputed from p and delta, never read from lo): the lemmas then state at least 12 significant digits
MAX_SLACK = fmpq(1, 10 ** 12)
#: Phibar(lambda c_p U) is proved by ``integral`` to this relative gap (the dead route's FULL accuracy)
PHIBAR_GAP = mpmath.mpf("2e-15")
PHIBAR_TACTIC = "integral with (i_prec 90, i_degree 12, i_fuel 100)"
#: Digits of the ends cbar_i, Hbar_i, T_i (rounded up), and of the rational that bounds the Abel sum
END_DIGITS, SUM_DIGITS = 22, 25
#: The route's grid starts at its last point with Hbar at most this: the points before it would lower the
#: Abel sum by less than this (absolute; the claim's number is above 1/10), and each costs a lemma of about 1.5 s
#: (a sum of about p terms evaluated by interval)
NEGLIGIBLE_HEAD = fmpq(1, 10 ** 17)
#: When the route's number exceeds the kernel's bound (recomputed, never read from lo) by this relative margin, the
#: claim lemmas state the certificate's lo and log10_lo in full: an honest lo lies at or below the kernel's bound
FULL_MARGIN = mpmath.mpf("1e-20")

# Coq names (prefixed: they share a file with certify.coq.region's)
IBETA, DEFICIT, KAPPA, LOST = "region_purity_ibeta", "region_purity_deficit", "region_purity_kappa", "region_purity_lost"


def _ibeta_terms(p: int) -> list[tuple[int, int, int]]:
    """(C(n, j), j, n - j) for j = a .. n, n = a + p - 1, a = (p - 1)/2: I_c(a, p) = sum C(n, j) c^j (1 - c)^(n - j)."""
    a = (p - 1) // 2
    n = a + p - 1
    return [(math.comb(n, j), j, n - j) for j in range(a, n + 1)]


def _body_coefficient(p: int) -> fmpq:
    """1 / (p B(a, p)) = (a + p - 1)! / ((a - 1)! (p - 1)! p), a = (p - 1)/2: the factor of c^k (1 - c)^p."""
    a = (p - 1) // 2
    return fmpq(math.factorial(a + p - 1), math.factorial(a - 1) * math.factorial(p - 1) * p)


def _deficit(p: int, c) -> mpmath.mpf:
    """P(rho < c / B) for 0 < c < 1 (module docstring), in mpmath: a choice of the ends Hbar_i, which Coq proves."""
    k = (p - 3) // 2
    head = mpmath.fsum(mpmath.mpf(b) * c ** j * (1 - c) ** m for b, j, m in _ibeta_terms(p))
    return head + _mp(_body_coefficient(p)) * c ** k * (1 - c) ** p


@dataclass(frozen=True)
class Bracket:
    """The numbers of the purity_margin route at one ratio lambda (None: the whole R_dead)."""

    ratio: fmpq | None
    mu: fmpq
    kept: fmpq  # <= Phibar(lambda c_p U)
    grid: tuple  # z_0 < ... < z_I (the tube's grid from its first point that matters)
    cbar: tuple  # cbar_i >= kappa(mu z_i)^2, < 1 (None where Hbar_i = 1)
    hbar: tuple  # Hbar_0 <= ... <= Hbar_I (the last 1 when H saturates)
    tails: tuple  # T_0, ..., T_I (1 where Markov says nothing)
    saturated: bool
    lost: fmpq  # the Abel sum, exactly
    lost_hi: fmpq  # >= it, SUM_DIGITS digits
    radius_tails: tuple = ()  # per point, the TailEnds of its radius bound (certify.coq.region_purity_tail) or None

    @property
    def value(self) -> fmpq:
        return self.kept - self.lost_hi


def _up(x) -> fmpq:
    """A decimal of END_DIGITS digits above the mpf x > 0 (by a relative 10^-(END_DIGITS - 2) first)."""
    return _rounded(x * (1 + mpmath.mpf(10) ** -(END_DIGITS - 2)), END_DIGITS, up=True)


def _mean_z_and_kept(p: int, ratio: fmpq | None, proof) -> tuple[fmpq, fmpq, fmpq]:
    """(the grid's base, a rational above U / E[sqrt Q]; mu; kept, a rational below Phibar(lambda c_p U))."""
    U = _mp(proof.spacing_hi)
    mean_root_q = mpmath.sqrt(2 * mpmath.pi) * p * proof.binomial / mpmath.mpf(4) ** p
    mean_z = _rounded(U / mean_root_q, 25, up=True)
    if ratio is None:
        return mean_z, fmpq(1), proof.phibar_lo
    lam = _mp(ratio)
    mu = _rounded(lam - mpmath.sqrt(lam * lam - 1), 25, up=True)
    z = lam * mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * U
    return mean_z, mu, _rounded(mpmath.erfc(z / mpmath.sqrt(2)) / 2 * (1 - PHIBAR_GAP), 25, up=False)


def _point(p: int, root_delta, mu: fmpq, z: fmpq, previous: fmpq | None) -> tuple[fmpq, fmpq]:
    """(cbar >= kappa(mu z)^2, Hbar >= H(z)): Hbar = 1 when H is within 10^-15 of 1 or cbar >= 1, and never below
    ``previous`` (H is nondecreasing: the larger end bounds it too)."""
    e = _mp(mu) * _mp(z)
    c = _up((e + root_delta * (1 + e)) ** 2)
    h = (p - 1) * _deficit(p, _mp(c)) / 2 if c < 1 else mpmath.mpf(2)
    end = fmpq(1) if h >= mpmath.mpf(1) - mpmath.mpf(10) ** -15 else min(_up(h), fmpq(1))
    if previous is not None and end < previous:
        end = previous
    return c, end


def _markov(p: int, proof, z: fmpq) -> fmpq:
    """T >= U / (z E[sqrt Q]) >= P(Z > z) (Markov), 1 when that says nothing."""
    mean_root_q = mpmath.sqrt(2 * mpmath.pi) * p * proof.binomial / mpmath.mpf(4) ** p
    markov = _mp(proof.spacing_hi) / (_mp(z) * mean_root_q)
    return fmpq(1) if markov >= 1 else min(_up(markov), fmpq(1))


def _abel_sum(hbar, tails):
    """Hbar_0 + sum_i T_(i-1) (Hbar_i - Hbar_(i-1)) + T_I (1 - Hbar_I), the last term only when Hbar_I < 1 (H saturated
    there: nothing beyond): exact on fmpq, a float estimate on floats."""
    lost = hbar[0] + sum(tails[i - 1] * (hbar[i] - hbar[i - 1]) for i in range(1, len(hbar)))
    return lost + tails[-1] * (1 - hbar[-1]) if hbar[-1] < 1 else lost


def _finish(ratio, mu, kept, grid, cbar, hbar, tails, radius_tails=()) -> Bracket:
    """The Bracket of these ends (saturated when the last Hbar is 1), with the Abel sum computed exactly and its
    rational end."""
    lost = _abel_sum(hbar, tails)
    lost_hi = _rounded(_mp(lost) * (1 + mpmath.mpf(10) ** -(SUM_DIGITS - 2)), SUM_DIGITS, up=True)
    return Bracket(ratio, mu, kept, tuple(grid), tuple(cbar), tuple(hbar), tuple(tails), hbar[-1] == 1, lost, lost_hi,
                   tuple(radius_tails))


def _bracket(p: int, delta: fmpq, ratio: fmpq | None, proof) -> Bracket:
    """The Markov route's numbers at ``ratio`` (p > 50; floats only choose; Coq proves each end). The grid is the
    kernel's multiples (certify.kernel.region_purity.TUBE_MULTIPLES) on the route's base, a rational above
    U / E[sqrt Q] (the kernel's base is E[S]_hi / E[sqrt Q], about 10^-15 lower), from its last point with
    Hbar <= :data:`NEGLIGIBLE_HEAD` on: any sub-grid serves, and the points before it change the sum by less."""
    with mpmath.workdps(DPS):
        mean_z, mu, kept = _mean_z_and_kept(p, ratio, proof)
        root_delta = mpmath.sqrt(_mp(delta))
        grid, cbar, hbar, tails = [], [], [], []
        for m in TUBE_MULTIPLES:
            z = mean_z * m
            c, end = _point(p, root_delta, mu, z, hbar[-1] if hbar else None)
            grid.append(z), cbar.append(c if end < 1 else None), hbar.append(end), tails.append(_markov(p, proof, z))
            if end == 1:
                break
        start = max([i for i, h in enumerate(hbar) if h <= NEGLIGIBLE_HEAD] + [0])
        return _finish(ratio, mu, kept, grid[start:], cbar[start:], hbar[start:], tails[start:])


#: The candidate grid of the route with radius tails (p <= 50): z_j = m_j times the base, m_j = 2^(j/8) / 16 rounded
#: down to a multiple of 2^-16 (any increasing grid serves the Abel sum), j = 0 .. FINE_POINTS - 1
FINE_STEPS, FINE_POINTS = 8, 8 * 45
#: The most radius tails (each one ``integral`` of about 2 s) a bracket may use, and the relative slack below the
#: kernel's bound that the choice aims at (the claim's digits then stay above 12)
MAX_RADIUS_TAILS = 14
TARGET_SLACK = 1e-13
#: The choice lets a point jump at most this many candidates ahead (measured: longer jumps never win)
MAX_JUMP = 40


def _fine_multiples() -> list[fmpq]:
    return [fmpq(math.floor(2 ** (j / FINE_STEPS) * 4096), 65536) for j in range(FINE_POINTS)]


def _choose(hs: list[float], markov: list[float], radius: list[float], budget: int):
    """For each number b <= ``budget`` of radius tails: (the least Abel sum over sub-grids of the candidates, where
    each chosen point's tail is its Markov or (counted in b) its radius bound; the choice as [(index, radius?)]).
    Floats: a choice, whose ends are then proved and summed exactly."""
    n = len(hs)
    inf = math.inf
    best = [[[inf, inf] for _ in range(budget + 1)] for _ in range(n)]
    back: dict = {}
    for j in range(n):
        for c in (0, 1):
            if c <= budget and (c == 0 or radius[j] < inf):
                best[j][c][c] = hs[j]
    results = [(inf, None)] * (budget + 1)
    for j in range(n):
        for b in range(budget + 1):
            for c in (0, 1):
                value = best[j][b][c]
                if value == inf:
                    continue
                tail = radius[j] if c else markov[j]
                end = value + tail * (1 - hs[j])
                for bb in range(b, budget + 1):
                    if end < results[bb][0]:
                        results[bb] = (end, (j, b, c))
                for k in range(j + 1, min(n, j + MAX_JUMP + 1)):
                    step = value + tail * (hs[k] - hs[j])
                    for c2 in (0, 1):
                        b2 = b + c2
                        if b2 > budget or (c2 and radius[k] == inf):
                            continue
                        if step < best[k][b2][c2]:
                            best[k][b2][c2] = step
                            back[(k, b2, c2)] = (j, b, c)
    out = []
    for value, node in results:
        path = []
        while node is not None:
            path.append((node[0], bool(node[2])))
            node = back.get(node)
        out.append((value, path[::-1]))
    return out


def _tail_bracket(p: int, delta: fmpq, ratio: fmpq | None, proof, tails_proof, kernel_numerator: float):
    """The route with radius tails at ``ratio`` (p <= 50): (the least number of radius tails whose chosen bracket's
    float estimate reaches the kernel's numerator within :data:`TARGET_SLACK`, its Bracket with every end proved), or
    None when no choice reaches it."""
    with mpmath.workdps(DPS):
        mean_z, mu, kept = _mean_z_and_kept(p, ratio, proof)
        root_delta = mpmath.sqrt(_mp(delta))
        grid, cbar, hbar = [], [], []
        for m in _fine_multiples():
            z = mean_z * m
            c, end = _point(p, root_delta, mu, z, hbar[-1] if hbar else None)
            grid.append(z), cbar.append(c if end < 1 else None), hbar.append(end)
            if end == 1:
                break
        start = max([i for i, h in enumerate(hbar) if h <= NEGLIGIBLE_HEAD] + [0])
        grid, cbar, hbar = grid[start:], cbar[start:], hbar[start:]
        hs = [float(h) for h in hbar]
        markov_ends = [_markov(p, proof, z) for z in grid]
        markov = [float(end) for end in markov_ends]
        estimates = [tails_proof.estimate(z) for z in grid]
        radius = [min(1.0, t) if r is not None else math.inf for t, r in estimates]
        target = float(kept) - kernel_numerator * (1 - TARGET_SLACK)  # the largest lost that reaches the kernel
        for b, (value, path) in enumerate(_choose(hs, markov, radius, MAX_RADIUS_TAILS)):
            if value <= target:
                break
        else:
            return None
        # drop Markov points while the estimate still reaches the target (each point costs a lemma)
        path = list(path)
        changed = True
        while changed:
            changed = False
            for position in range(len(path) - 1, 0, -1):
                if path[position][1]:
                    continue
                trial = path[:position] + path[position + 1:]
                if _abel_sum([hs[i] for i, _ in trial], [radius[i] if r else markov[i] for i, r in trial]) <= target:
                    path, changed = trial, True
                    break
        points = [i for i, _ in path]
        ends, radius_tails = [], []
        for position, (i, use_radius) in enumerate(path):
            if use_radius and not (position == len(path) - 1 and hbar[i] == 1):  # a saturated last T is never used
                proved = tails_proof.proved(grid[i], estimates[i][1])
                ends.append(proved.tail)
                radius_tails.append(proved)
            else:
                ends.append(markov_ends[i])
                radius_tails.append(None)
        bracket = _finish(ratio, mu, kept, [grid[i] for i in points], [cbar[i] for i in points],
                          [hbar[i] for i in points], ends, radius_tails)
        return b, bracket


@functools.lru_cache(maxsize=None)
def _kernel_log(p: int, delta: fmpq) -> mpmath.mpf:
    """The kernel's bound of ln P (certify.kernel.region_purity at its 64 bits), recomputed from p and delta."""
    from ..kernel.dead import PURITY_PRECISION
    from ..kernel.region_purity import dead_region_purity_log_probability_lower

    with mpmath.workdps(DPS):
        return _mp(dead_region_purity_log_probability_lower(p, delta, PURITY_PRECISION).mid().fmpq())


@functools.lru_cache(maxsize=None)
def purity_route(p: int, delta: fmpq) -> Bracket:
    """The route's bracket. p > 50 (where the kernel uses Markov alone): the bracket whose proved number
    (kept - lost) is largest over certify.kernel.region_purity.GAMMA_RATIOS, with Markov tails on the kernel's grid.
    p <= 50: over the ratios, the bracket that reaches the kernel's bound (within :data:`TARGET_SLACK`, by its float
    estimate) with the fewest radius tails, the larger number breaking ties; the Markov bracket when none does."""
    from ..kernel.region_purity import _SPACING_INTEGRAL_MAX_P

    proof = region_proof(p)
    markov = max((_bracket(p, delta, ratio, proof) for ratio in GAMMA_RATIOS), key=lambda b: b.value)
    if p > _SPACING_INTEGRAL_MAX_P:
        return markov
    with mpmath.workdps(DPS):
        numerator = float(mpmath.exp(_kernel_log(p, delta)) * (math.comb(2 * p, p) - 1))
    tails = spacing_tails(p)
    found = [found for ratio in GAMMA_RATIOS if (found := _tail_bracket(p, delta, ratio, proof, tails, numerator))]
    if not found:
        return markov
    return min(found, key=lambda item: (item[0], -item[1].value))[1]


def _slack(p: int, delta: fmpq, bracket: Bracket) -> fmpq | None:
    """s >= ln(the kernel's bound) - ln(the route's number), both over C(2p, p) - 1; the kernel's bound recomputed from
    p and delta (certify.kernel.region_purity, at its 64 bits), never read from the certificate. None when the route's
    number is not positive (it proves nothing); 0 when the route's number exceeds the kernel's bound by a relative
    :data:`FULL_MARGIN` or more (the claim lemmas then state lo and log10_lo as the certificate does)."""
    if bracket.value <= 0:
        return None
    with mpmath.workdps(DPS):
        route_log = mpmath.log(_mp(bracket.value) / (math.comb(2 * p, p) - 1))
        loss = _kernel_log(p, delta) - route_log
        if loss <= -FULL_MARGIN:
            return fmpq(0)
        return max(_rounded(loss * mpmath.mpf("1.01"), 6, up=True) if loss > 0 else fmpq(0), fmpq(1, 10 ** 25))


def _phibar_argument(ratio: fmpq | None, p: int, spacing: str) -> str:
    base = f"sqrt ({p} / (2 * ({p} - 1))) * {spacing}"
    return f"({base})" if ratio is None else f"({real(ratio)} * {base})"


def _mean_root_q(p: int, binomial) -> str:
    """E[sqrt Q] = sqrt(2 pi) p C(2p, p) / 4^p as a Coq term, C(2p, p) written as ``binomial`` (its name or value)."""
    return f"(sqrt (2 * PI) * {p} * {binomial} / 4 ^ {p})"


def _tube_lemmas(p: int, delta: fmpq, bracket: Bracket) -> list:
    """kept's integral (for a ratio), each Hbar_i and T_i, their order, the Abel sum and kept - lost."""
    items: list = []
    z_bound = _phibar_argument(bracket.ratio, p, SPACING)
    kept = real(bracket.kept)
    if bracket.ratio is None:
        kept_lemma = "region_phibar_at_spacing_bound"
    else:
        lam, z = real(bracket.ratio), _phibar_argument(bracket.ratio, p, real(region_proof(p).spacing_hi))
        kept_lemma = "region_purity_phibar_at_spacing_bound"
        items += [
            Lemma("region_purity_mu_above", CLAIM, f"{lam} - sqrt ({lam} ^ 2 - 1) <= {real(bracket.mu)}",
                  "interval with (i_prec 120).", "mu bounds lambda - sqrt(lambda^2 - 1): d <= mu S on the cut "
                  "gamma_y >= lambda S / sqrt 2 (docs/purity-tube.md)"),
            Lemma("region_purity_phibar_lower", CLAIM, f"{kept} <= 1 / 2 - RInt {PHI} 0 {z}",
                  f"unfold {PHI}. {PHIBAR_TACTIC}.", "Phibar(lambda c_p U) = 1/2 - G(lambda c_p U) >= its lower end"),
            Lemma(kept_lemma, CLAIM, f"{kept} <= 1 / 2 - RInt {PHI} 0 {z_bound}",
                  "assert (H := region_purity_phibar_lower). assert (HU := region_spacing_bound_upper).\n"
                  f"  assert (Hc : 0 <= {lam} * sqrt ({p} / (2 * ({p} - 1)))) by (apply Rmult_le_pos; [lra | apply sqrt_pos]).\n"
                  f"  assert (Hm := region_G_monotone {z_bound} {z} ltac:(apply Rmult_le_compat_l; assumption)).\n"
                  "  lra.", "G is increasing: Phibar(lambda c_p E) >= Phibar(lambda c_p U) for E <= U"),
        ]
    mu, root_delta = real(bracket.mu), f"sqrt {real(delta)}"
    body = _body_coefficient(p)
    ibeta = " + ".join(f"{b} * c ^ {j} * (1 - c) ^ {m}" for b, j, m in _ibeta_terms(p))
    items += [
        Definition(IBETA, f"fun c => {ibeta}", type="R -> R",
                   note=f"I_c(a, p) = P(B <= c), B ~ Beta(a, p), a = {(p - 1) // 2}: its binomial form at integer "
                        "parameters (paper-level)"),
        Definition(DEFICIT, f"fun c => {IBETA} c + {real(body)} * c ^ {(p - 3) // 2} * (1 - c) ^ {p}", type="R -> R",
                   note="P(rho < c / B) = I_c(a, p) + c^k (1 - c)^p / (p B(a, p)) for 0 < c < 1, rho ~ Beta(k, 1), "
                        f"k = {(p - 3) // 2} (docs/purity-tube.md, step (B): paper-level)"),
        Definition(KAPPA, f"fun z => {mu} * z + {root_delta} * (1 + {mu} * z)", type="R -> R",
                   note="kappa(mu z): the out-of-class share below kappa^2 / B is the tube's event given Z = z "
                        "(docs/purity-tube.md, (P1)-(P3))"),
    ]
    classes = f"({p} - 1) / 2"
    mean_root_q = _mean_root_q(p, BINOMIAL)
    spacing_hi = real(region_proof(p).spacing_hi)
    radius_points, named = [], set()  # named: the points whose T_i has a Definition and a lemma (T = 1 needs none)
    for i, (z, c, h, t) in enumerate(zip(bracket.grid, bracket.cbar, bracket.hbar, bracket.tails)):
        if h < 1:
            items += [
                Lemma(f"region_purity_point_{i}", CLAIM, f"{KAPPA} {real(z)} ^ 2 <= {real(c)} < 1",
                      f"unfold {KAPPA}. split; [interval with (i_prec 120) | lra].",
                      f"kappa(mu z_{i})^2 <= cbar_{i} < 1, z_{i} = {real(z)}: P(rho < c / B) is nondecreasing in c"),
                Lemma(f"region_purity_tube_{i}", CLAIM, f"{classes} * {DEFICIT} {real(c)} <= {real(h)}",
                      f"unfold {DEFICIT}, {IBETA}. interval with (i_prec 120).",
                      f"Hbar_{i} >= H(z_{i}): the union over the (p - 1)/2 classes at cbar_{i} (region_purity_point_{i})"),
            ]
        radius = bracket.radius_tails[i] if bracket.radius_tails else None
        if radius is not None:
            radius_points.append((i, radius))
            named.add(i)
        elif t < 1 and not (bracket.saturated and i == len(bracket.grid) - 1):  # the sum uses T_I only unsaturated
            items.append(Definition(f"{TAIL_TERM}_{i}", f"{SPACING} / ({real(z)} * {mean_root_q})",
                                    note=f"E / (z_{i} E[sqrt Q]), z_{i} = {real(z)}: at least P(Z > z_{i}) (Markov; "
                                         f"E = {SPACING} >= E[S], Z independent of Q; paper-level)"))
            named.add(i)
            items.append(Lemma(f"region_purity_tail_{i}", CLAIM, f"{TAIL_TERM}_{i} <= {real(t)}",
                               f"unfold {TAIL_TERM}_{i}. destruct {BINOMIAL}_value as [HC _]. rewrite HC.\n"
                               f"  apply Rle_trans with ({spacing_hi} / ({real(z)} * {_mean_root_q(p, math.comb(2 * p, p))})); "
                               "[ | interval with (i_prec 120)].\n"
                               "  unfold Rdiv. apply Rmult_le_compat_r; [interval | exact region_spacing_bound_upper].",
                               f"T_{i} bounds {TAIL_TERM}_{i} (Markov's bound of P(Z > z_{i}))"))
    if radius_points:
        items += tail_lemmas(spacing_tails(p), radius_points, CLAIM)
    ends = [real(h) for h in bracket.hbar]
    chain = ["0", *ends, "1"]
    order = " /\\ ".join(f"{left} <= {right}" for left, right in zip(chain, chain[1:]))
    term = [f"{TAIL_TERM}_{i}" if i in named else "1" for i in range(len(ends))]
    abel = " + ".join([ends[0]] + [f"{term[i - 1]} * ({ends[i]} - {ends[i - 1]})" for i in range(1, len(ends))]
                      + ([] if bracket.saturated else [f"{term[-1]} * (1 - {ends[-1]})"]))
    uses = "".join(f"  assert (T{i} := region_purity_tail_{i}).\n" for i in sorted(named))
    items += [
        Lemma("region_purity_tube_order", CLAIM, order, "lra.",
              "the ends Hbar_i are nondecreasing in [0, 1]: every difference in the Abel sum is >= 0"),
        Definition(LOST, abel, note=f"Hbar_0 + sum_i T_(i-1) (Hbar_i - Hbar_(i-1)) + T_I (1 - Hbar_I) with T_i = "
                                    f"{TAIL_TERM}_i >= P(Z > z_i) (or 1): an upper bound of the lost mass E[H(Z)] "
                                    "(Abel summation over the grid, H nondecreasing; paper-level), by "
                                    "region_purity_tube_i (Hbar = 1 needs no lemma) and region_purity_tube_order"),
        Lemma(f"{LOST}_upper", CLAIM, f"{LOST} <= {real(bracket.lost_hi)}",
              f"unfold {LOST}.\n{uses}  lra.",
              "each T_i by its proved end (region_purity_tail_i), every weight Hbar_i - Hbar_(i-1) >= 0: the sum of the ends"),
        Lemma("region_purity_margin_numerator", CLAIM,
              f"{kept} - {real(bracket.lost_hi)} <= 1 / 2 - RInt {PHI} 0 {z_bound} - {LOST}",
              f"assert (H1 := {kept_lemma}). assert (H2 := {LOST}_upper). lra.",
              "kept - lost, each end proved"),
    ]
    return items


def _component_lemmas(document: dict, component: str, bound: str, proved: str, proof_of_bound: str, slack: fmpq,
                      paper: str, against: str) -> list:
    """The pair rule and landmark of one component, and its two claim lemmas lowered by ``slack`` (what the route loses
    ``against`` a number at or above the certificate's)."""
    node = document["claims"][CLAIM]["components"][component]
    if slack == 0:
        names = (f"{CLAIM}_{component}_lo", f"{CLAIM}_{component}_log10_lo")
        ends = (stated_lo(node), real(number(node["log10_lo"], f"{CLAIM}.{component}.log10_lo")))
        digits = log10_digits = None
        texts = tuple(f"{field} as the certificate states it (the route's number exceeds {against} by a relative "
                      f"{mpmath.nstr(FULL_MARGIN, 1)} or more)" for field in ("lo", "log10_lo"))
    else:
        names, ends, (digits, log10_digits) = lowered_ends(node, slack, f"{CLAIM}_{component}", f"{CLAIM}.{component}")
        texts = (f"lo lowered by a relative 4 s (s what this route loses against {against}) and rounded down to "
                 f"{digits} significant digits",
                 f"log10_lo lowered by 4 s/ln 10 and rounded down to {log10_digits} significant digits")
    return (landmark_lemmas(document, CLAIM, "lo", component) + twin_lemmas(document, CLAIM, component)
            + claim_lemmas(names, ends, bound, proved, proof_of_bound,
                           tuple(f"{paper}; {text}" for text in texts), (digits, log10_digits), claim=CLAIM))


def dead_purity_lemmas(document: dict, route_present: bool) -> list:
    """The lemmas of a dead certificate's ``region_purity_probability`` claim (module docstring); ``route_present``:
    whether the file already holds the dead region route's lemmas (region_probability's), else they are added.

    ValueError (the claim is then listed as not exported) when a component is not a lower bound with its log10 twin,
    or when the route's number falls short of the kernel's bound by more than :data:`MAX_SLACK`."""
    from ..kernel.region import expected_spacing_upper

    node = document["claims"][CLAIM]
    if set(node.get("components", {})) != set(COMPONENTS):
        raise ValueError(f"{CLAIM}: not the components {', '.join(COMPONENTS)}")
    for component in COMPONENTS:
        _require_twin(document, CLAIM, component)
    p = int(document["p"])
    delta = number(document["parameters"]["purity_margin"], "parameters.purity_margin")
    if not 0 < delta < 1:
        raise ValueError("parameters.purity_margin is not in (0, 1)")
    bracket = purity_route(p, delta)
    slack = _slack(p, delta, bracket)
    if slack is None or slack > MAX_SLACK:
        short = "nothing" if slack is None else f"a number {float(slack):.1e} (relative) below the kernel's bound"
        raise ValueError(f"the route's tails (Markov's inequality, and for p <= 50 at most {MAX_RADIUS_TAILS} radius "
                         f"bounds by integrals of the spacing's tail) prove {short} (docs/coq.md, 'The purity claim in "
                         "Coq')")
    proof = region_proof(p)
    route = [] if route_present else _generic_lemmas(p) + _specific(document, proof)
    jensen_slack = proof.slack(expected_spacing_upper(p, 128).lower())
    z_dead = _phibar_argument(None, p, SPACING)
    dead_bound = f"((1 / 2 - RInt {PHI} 0 {z_dead}) / ({BINOMIAL} - 1))"
    null_set = ("docs/purity-tube.md, 'The null-set lemma': P(R_dead and the terminal state is not single-frequency | "
                f"active) = P(R_dead | active), and {JENSEN_CHAIN}")
    z_margin = _phibar_argument(bracket.ratio, p, SPACING)
    margin_bound = f"((1 / 2 - RInt {PHI} 0 {z_margin} - {LOST}) / ({BINOMIAL} - 1))"
    cut = ("the whole R_dead (d <= S)" if bracket.ratio is None else
           f"the cut gamma_y >= lambda S / sqrt 2, lambda = {real(bracket.ratio)} (d <= mu S)")
    margin_paper = (f"docs/purity-tube.md, 'The delta-margin bound', delta = {real(delta)}: P(R_dead and max_zeta "
                    "F_zeta(theta_inf) <= 1 - delta | active) >= (kept - lost) / (C(2p, p) - 1) on "
                    f"{cut}, kept = E[Phibar(lambda c_p S)] >= Phibar(lambda c_p E[S]) (Jensen) >= 1/2 - G(lambda c_p "
                    f"E), E = {SPACING} >= E[S], lost <= {LOST} (its definition's comment)")
    return (route + _tube_lemmas(p, delta, bracket)
            + _component_lemmas(document, "not_single_frequency", dead_bound, real(proof.phibar_lo),
                                "region_phibar_at_spacing_bound", jensen_slack, null_set, "the Jensen value")
            + _component_lemmas(document, "purity_margin", margin_bound,
                                f"({real(bracket.kept)} - {real(bracket.lost_hi)})", "region_purity_margin_numerator",
                                slack, margin_paper, "the kernel's bound, recomputed from p and delta"))

