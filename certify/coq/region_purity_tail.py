"""Proved upper bounds of the scale-free spacing's tail P(Z > z), Z = S / sqrt(Q), for the purity route at p <= 50
(docs/coq.md, 'The purity claim in Coq'; docs/purity-tube.md, steps (S) and (Z)).

The paper-level steps, stated in the comments of the lemmas:

* (Z) Z is independent of Q (X / ||X|| is independent of ||X|| for X ~ N(0, I_2p)), so for every r > 0
  P(Z > z) <= P(S > z r) / P(Q >= r^2), and P(Q >= r^2) = e^(-y) sum_(k < p) y^k / k!, y = r^2 / 2 (Q ~ chi^2_2p:
  the Poisson-Gamma identity at integer shape p).
* (S) P(S > s) = p C(2p, p) int_R Phi(x)^(p-1) phi(x) Phibar(x + s)^p dx (the joint law of the middle order
  statistics), and, split at -a and a - s (0 <= s <= 2a),
  P(S > s) <= p C(2p, p) int_(-a)^(a-s) Phi^(p-1) phi Phibar(x + s)^p + C(2p, p) Phi(-a)^p + p C(2p, p) Phibar(a)^p
  (below -a: Phibar <= 1 and p int Phi^(p-1) phi = Phi^p; beyond a - s: Phi <= 1, Phibar(x + s) <= Phibar(a) and
  int phi <= 1).
* Phi = 1/2 + G and Phibar = 1/2 - G (phi's total mass is 1).

What Coq proves: with the fit of certify.coq.region_fit (|G - Q| <= a epsilon on [-a, a]), the integrand is at most
the same closed form with G replaced by Q and each base raised by 2 a epsilon (a power is nondecreasing on
[0, inf)); one ``integral`` per point bounds that closed form's integral; ``interval`` bounds the two outer pieces
and the Poisson sum. Each base is scaled by a rational K near 1/(2 Phi(-s/2)) so that the integrand is near 1 at its
peak (``integral`` errs absolutely).

:class:`SpacingTails` chooses the numbers (floats estimate, mpmath fixes the ends; Coq proves every inequality
between them, so a poor choice makes coqc fail, never a false lemma).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
from flint import fmpq

from ..kernel.region_purity import _log_erfc_float
from .lemma import Definition, Lemma
from .region import BINOMIAL, G, HORNER, PHI, _mp, _phi, _rounded
from .region_fit import GFit, continuity_lemma, fit_lemmas, fit_names
from .terms import real

DPS = 30
PREFIX = "region_purity"
FIT, HALF, Q = fit_names(PREFIX)
TRUE_INTEGRAND, CLOSED = "region_purity_tail_integrand", "region_purity_closed_tail_integrand"
SPACING_TAIL, POISSON, OUTSIDE = "region_purity_spacing_tail", "region_purity_poisson", "region_purity_outside"
#: The Definition of point i's tail bound is TAIL_TERM_i (the Abel sum names it, so Coq ties the sum to its lemma)
TAIL_TERM = "region_purity_T"
#: Each point's closed-form integral is proved this far (relative) above mpmath's value, by INTEGRAL_TACTIC
INTEGRAL_GAP = mpmath.mpf("1e-3")
INTEGRAL_TACTIC = "integral with (i_prec 40, i_degree 6, i_fuel 400)"
#: A float estimate of a proved tail end is raised by this before it chooses anything: the integral's gap (10^-3) and
#: the fit's loss (2p - 1 bases, each raised by at most 4 a epsilon relatively to a base near 1, so at most
#: 4 (2p - 1) a epsilon <= 4.5 10^-4 by certify.coq.region_fit.FIT_LOSS), with room
ESTIMATE_MARGIN = 3e-3


def domain_end(p: int) -> fmpq:
    """a: the window [-a, a - s] of every tail integral; a = 9/sqrt(p) rounded up to a quarter, at most 4. The
    integrand is a peak of width about 1/sqrt(p) at -s/2; the chosen s reach 1.66 at p = 5, 1.44 at 7 and 1.21 at
    31 (measured), and a radius with s > 2a is never chosen."""
    return min(fmpq(4), fmpq(math.ceil(4 * 9 / math.sqrt(p)), 4))


def radius_candidates(p: int) -> list[fmpq]:
    """Exact radii r (r^2 near 2p + j sqrt(2p), j = -3..2; Q ~ chi^2_2p has sd sqrt(4p)), on a grid of 1/64."""
    radii = []
    for j in range(-3, 3):
        target = 2 * p + j * math.isqrt(2 * p)
        if target > 0:
            radii.append(fmpq(math.isqrt(target * 4096), 64))
    return sorted(set(radii))


def _log_poisson_tail(p: int, y: float) -> float:
    """log P(Q >= 2y) = log(e^-y sum_(k<p) y^k/k!) in floats (choosing only)."""
    terms = [k * math.log(y) - math.lgamma(k + 1) for k in range(p)] if y > 0 else [0.0]
    top = max(terms)
    return -y + top + math.log(sum(math.exp(t - top) for t in terms))


class SpacingTails:
    """The numbers of the tail bounds at p: the window's end ``a``, the fit, the outer pieces' end ``outside``
    (exact, >= C Phi(-a)^p + p C Phibar(a)^p), and per point (:meth:`proved`) the tail's proved ends."""

    def __init__(self, p: int):
        self.p = p
        self.a = domain_end(p)
        self.binomial = math.comb(2 * p, p)
        self.fit = GFit(p, self.a, DPS)
        self.radii = radius_candidates(p)
        with mpmath.workdps(DPS):
            a, e = _mp(self.a), _mp(self.fit.loss)
            below = (mpmath.mpf(1) / 2 + self.fit.Q(-a) + e) ** p
            beyond = (mpmath.mpf(1) / 2 - self.fit.Q(a) + e) ** p
            self.below, self.beyond = (_rounded(below * (1 + mpmath.mpf(10) ** -6), 6, up=True),
                                       _rounded(beyond * (1 + mpmath.mpf(10) ** -6), 6, up=True))
            self.outside = self.binomial * self.below + p * self.binomial * self.beyond
        self._log_window_factor = (math.log(p) + math.lgamma(2 * p + 1) - 2 * math.lgamma(p + 1)
                                   - (2 * p - 1) * math.log(2))
        self._cache: dict = {}

    def _window_estimate(self, s: float) -> float:
        """p C 2^-(2p-1) int_(-a)^(a-s) (2 Phi)^(p-1) phi (2 Phibar(x + s))^p dx in floats (trapezoid, step
        1/(8 sqrt p) on the window; the integrand is a smooth log-concave peak of width about 1/sqrt p)."""
        p, a = self.p, float(self.a)
        lo, hi = -a, a - s
        if hi <= lo:
            return 0.0
        n = max(16, int(math.ceil((hi - lo) * 8 * math.sqrt(p))))
        h = (hi - lo) / n
        logs = []
        root2 = math.sqrt(2)
        for i in range(n + 1):
            x = lo + i * h
            w = 0.5 if i in (0, n) else 1.0
            logs.append(math.log(w) + (p - 1) * _log_erfc_float(-x / root2) + p * _log_erfc_float((x + s) / root2)
                        - x * x / 2 - 0.5 * math.log(2 * math.pi))
        top = max(logs)
        return math.exp(self._log_window_factor + top + math.log(h * sum(math.exp(v - top) for v in logs)))

    def estimate(self, z: fmpq) -> tuple[float, fmpq | None]:
        """(a float estimate, raised by :data:`ESTIMATE_MARGIN`, of the least proved end of P(Z > z) over the radii,
        that radius); (inf, None) when no radius has z r <= 2a. Choosing only."""
        if z not in self._cache:
            best = (math.inf, None)
            for r in self.radii:
                s = z * r
                if s > 2 * self.a:
                    continue
                value = (self._window_estimate(float(s)) + float(self.outside)) * (1 + ESTIMATE_MARGIN)
                bound = math.exp(math.log(value) - _log_poisson_tail(self.p, float(r * r) / 2)) if value > 0 else 0.0
                if bound < best[0]:
                    best = (bound, r)
            self._cache[z] = best
        return self._cache[z]

    def proved(self, z: fmpq, r: fmpq) -> "TailEnds":
        """The ends of the tail bound at z with radius r, each proved by the lemmas of :func:`tail_lemmas`."""
        p, a = self.p, self.a
        s = z * r
        y = r * r / 2
        with mpmath.workdps(DPS):
            s_mp, a_mp, e = _mp(s), _mp(a), _mp(self.fit.loss)
            scale = _rounded(1 / (2 * mpmath.ncdf(-s_mp / 2)), 4, up=False)
            k = _mp(scale)

            def closed(x):
                return ((k * (1 + 2 * self.fit.Q(x) + 2 * e)) ** (p - 1) * _phi(x)
                        * (k * (1 - 2 * self.fit.Q(x + s_mp) + 2 * e)) ** p)
            value = mpmath.quad(closed, mpmath.linspace(-a_mp, a_mp - s_mp, 17))
            integral = _rounded(value * (1 + INTEGRAL_GAP), 20, up=True)
            window = p * self.binomial * integral / (2 * scale) ** (2 * p - 1)
            spacing = _rounded(_mp(window + self.outside) * (1 + mpmath.mpf(10) ** -18), 20, up=True)
            y_mp = _mp(y)
            poisson = mpmath.exp(-y_mp) * mpmath.fsum(y_mp ** j / mpmath.factorial(j) for j in range(p))
            poisson_lo = _rounded(poisson * (1 - mpmath.mpf(10) ** -18), 20, up=False)
            tail = _rounded(_mp(spacing) / _mp(poisson_lo) * (1 + mpmath.mpf(10) ** -18), 20, up=True)
        return TailEnds(z, r, s, y, scale, integral, spacing, poisson_lo, min(tail, fmpq(1)))


@functools.lru_cache(maxsize=None)
def spacing_tails(p: int) -> SpacingTails:
    """The tail numbers at p, computed once per process: the route's choice and its lemmas use the same fit."""
    return SpacingTails(p)


@dataclass(frozen=True)
class TailEnds:
    """One point's proved tail: P(Z > z) <= P(S > s) / P(Q >= 2y) <= spacing / poisson <= tail, s = z r, y = r^2/2;
    ``integral`` >= the closed form's integral at the scale K = ``scale``."""

    z: fmpq
    r: fmpq
    s: fmpq
    y: fmpq
    scale: fmpq
    integral: fmpq
    spacing: fmpq
    poisson: fmpq
    tail: fmpq


def _poisson_sum(p: int) -> str:
    """sum_(k < p) y^k / k! as a Coq function of y (exact rational coefficients)."""
    terms = ["1"] + [f"y ^ {k} / {math.factorial(k)}" for k in range(1, p)]
    return "fun y => " + " + ".join(terms)


def tail_lemmas(tails: SpacingTails, points: list[tuple[int, TailEnds]], claim: str) -> list:
    """The lemmas of the radius tails: the fit (certify.coq.region_fit, under :data:`PREFIX`), the closed-form
    integrand above the true one on the window, the outer pieces, and per point i of ``points`` (its index in the Abel
    sum, its ends) ``region_purity_tail_i``: P(S > z_i r_i) / P(Q >= r_i^2)'s closed form <= T_i."""
    p, a = tails.p, real(tails.a)
    e = f"({a} * {real(tails.fit.fit_error)})"
    C = tails.binomial
    calculus = "a fact of calculus used by the tail bounds below"
    items = fit_lemmas(tails.fit, PREFIX, claim) + [
        Definition(TRUE_INTEGRAND, f"fun k s x => (k * (1 + 2 * {G} x)) ^ {p - 1} * {PHI} x * (k * (1 - 2 * {G} (x + s))) ^ {p}",
                   type="R -> R -> R -> R",
                   note="K^(2p-1) (2 Phi(x))^(p-1) phi(x) (2 Phibar(x + s))^p, Phi = 1/2 + G, Phibar = 1/2 - G (paper-level); "
                        "the scale K keeps the integrand near 1 at its peak (integral errs absolutely)"),
        Definition(CLOSED, f"fun k s x => (k * (1 + 2 * {Q} x + 2 * {e})) ^ {p - 1} * {PHI} x * "
                           f"(k * (1 - 2 * {Q} (x + s) + 2 * {e})) ^ {p}", type="R -> R -> R -> R",
                   note="the same with G replaced by Q and each base raised by 2 a epsilon"),
        continuity_lemma(TRUE_INTEGRAND, f"{G}_derive", "k s", claim, calculus),
        continuity_lemma(CLOSED, f"{Q}_derive", "k s", claim, calculus),
        Lemma(f"{CLOSED}_above", claim,
              f"forall k s x, 0 <= k -> 0 <= s -> - {a} <= x -> x + s <= {a} -> {TRUE_INTEGRAND} k s x <= {CLOSED} k s x",
              f"intros k s x Hk Hs Hl Hr. unfold {CLOSED}, {TRUE_INTEGRAND}.\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near x ltac:(lra))) as [N1 N2].\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near (x + s) ltac:(lra))) as [N3 N4].\n"
              f"  destruct ({PREFIX}_bases x ltac:(lra)) as [B1 B2].\n"
              f"  destruct ({PREFIX}_bases (x + s) ltac:(lra)) as [B3 B4].\n"
              f"  destruct ({PHI}_bounds x) as [P1 _].\n"
              # the powers' bases are sums: lra would expand a hypothesis (sum)^p, so the powers come after it
              f"  assert (L1 : 0 <= k * (1 + 2 * {G} x) <= k * (1 + 2 * {Q} x + 2 * {e})).\n"
              "  { split; [apply Rmult_le_pos | apply Rmult_le_compat_l]; lra. }\n"
              f"  assert (L2 : 0 <= k * (1 - 2 * {G} (x + s)) <= k * (1 - 2 * {Q} (x + s) + 2 * {e})).\n"
              "  { split; [apply Rmult_le_pos | apply Rmult_le_compat_l]; lra. }\n"
              f"  assert (E1 := pow_incr _ _ {p - 1} L1). assert (E2 := pow_incr _ _ {p} L2).\n"
              f"  assert (F1 := pow_le _ {p - 1} (proj1 L1)). assert (F2 := pow_le _ {p} (proj1 L2)).\n"
              "  apply Rmult_le_compat; [ | exact F2 | | exact E2].\n"
              "  - apply Rmult_le_pos; [exact F1 | apply Rlt_le, P1].\n"
              "  - apply Rmult_le_compat_r; [apply Rlt_le, P1 | exact E1].",
              "0 <= 1 + 2 G <= 1 + 2 Q + 2 a epsilon and 0 <= 1 - 2 G(x + s) <= 1 - 2 Q(x + s) + 2 a epsilon where x, x + s "
              f"lie in [-a, a] ({Q}_near, {PREFIX}_bases): a power is nondecreasing on [0, inf)"),
        Lemma(f"{CLOSED}_integral_above", claim,
              f"forall k s u, 0 <= k -> 0 <= s <= 2 * {a} -> RInt ({CLOSED} k s) (- {a}) ({a} - s) <= u -> "
              f"RInt ({TRUE_INTEGRAND} k s) (- {a}) ({a} - s) <= u",
              "intros k s u Hk Hs Hu. apply Rle_trans with (2 := Hu). apply RInt_le; [lra | | | ].\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _. "
              f"apply {TRUE_INTEGRAND}_continuous.\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _. "
              f"apply {CLOSED}_continuous.\n"
              f"  - intros x Hx. apply {CLOSED}_above; lra.",
              "the true integrand is below the closed form on [-a, a - s]"),
        Definition(OUTSIDE, f"{BINOMIAL} * (1 / 2 + {G} (- {a})) ^ {p} + {p} * {BINOMIAL} * (1 / 2 - {G} {a}) ^ {p}",
                   note="C(2p, p) Phi(-a)^p + p C(2p, p) Phibar(a)^p: the spacing-tail integral beyond the window "
                        "[-a, a - s] is at most this (below -a: Phibar <= 1 and p int Phi^(p-1) phi = Phi^p; beyond "
                        "a - s: Phi <= 1, Phibar(x + s) <= Phibar(a), int phi <= 1; paper-level)"),
        Lemma(f"{OUTSIDE}_upper", claim, f"{OUTSIDE} <= {real(tails.outside)}",
              f"unfold {OUTSIDE}. destruct {BINOMIAL}_value as [HC _]. rewrite HC.\n"
              # the numbers first: lra would expand the powers of sums in the hypotheses below
              f"  apply Rle_trans with ({C} * {real(tails.below)} + {p} * {C} * {real(tails.beyond)}); [ | lra].\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near (- {a}) ltac:(lra))) as [N1 N2].\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near {a} ltac:(lra))) as [N3 N4].\n"
              f"  destruct ({PREFIX}_bases (- {a}) ltac:(lra)) as [B1 B2].\n"
              f"  destruct ({PREFIX}_bases {a} ltac:(lra)) as [B3 B4].\n"
              f"  assert (L1 : 0 <= 1 / 2 + {G} (- {a}) <= 1 / 2 + {Q} (- {a}) + {e}) by lra.\n"
              f"  assert (L2 : 0 <= 1 / 2 - {G} {a} <= 1 / 2 - {Q} {a} + {e}) by lra.\n"
              f"  assert (V1 : (1 / 2 + {Q} (- {a}) + {e}) ^ {p} <= {real(tails.below)}) by "
              f"(unfold {Q}, {HALF}; cbn [{HORNER}]; interval with (i_prec 100)).\n"
              f"  assert (V2 : (1 / 2 - {Q} {a} + {e}) ^ {p} <= {real(tails.beyond)}) by "
              f"(unfold {Q}, {HALF}; cbn [{HORNER}]; interval with (i_prec 100)).\n"
              f"  assert (W1 := Rle_trans _ _ _ (pow_incr _ _ {p} L1) V1). assert (W2 := Rle_trans _ _ _ (pow_incr _ _ {p} L2) V2).\n"
              "  apply Rplus_le_compat; [apply Rmult_le_compat_l; [interval | exact W1] | apply Rmult_le_compat_l; [interval | exact W2]].",
              "the outer pieces' end: |G - Q| <= a epsilon at -a and a, and the bases are >= 0 there"),
        Definition(SPACING_TAIL, f"fun k s => {p} * {BINOMIAL} / (2 * k) ^ {2 * p - 1} * "
                                 f"RInt ({TRUE_INTEGRAND} k s) (- {a}) ({a} - s) + {OUTSIDE}", type="R -> R -> R",
                   note="an upper bound of P(S > s) for k > 0 and 0 <= s <= 2 a: P(S > s) = p C(2p, p) int_R Phi^(p-1) "
                        "phi Phibar(x + s)^p dx (the law of the middle spacing of 2p normals), split at -a and a - s "
                        f"({OUTSIDE}'s comment); paper-level"),
        Definition(POISSON, _poisson_sum(p), type="R -> R",
                   note=f"sum_(k < p) y^k / k!: P(Q >= 2 y) = e^(-y) {POISSON}(y) for Q ~ chi^2_2p (the Poisson-Gamma "
                        "identity at integer shape p; paper-level)"),
    ]
    for i, ends in points:
        k, s, z, r, y = real(ends.scale), real(ends.s), real(ends.z), real(ends.r), real(ends.y)
        stem = f"region_purity_radius_{i}"
        power = f"(2 * {k}) ^ {2 * p - 1}"
        items += [
            Lemma(f"{stem}_window", claim, f"0 < {k} /\\ 0 <= {z} * {r} <= 2 * {a}", "repeat split; lra.",
                  f"K > 0 and s_{i} = z_{i} r_{i} lies in [0, 2a]: where {SPACING_TAIL} bounds P(S > s) (its comment)"),
            Lemma(f"{stem}_integral", claim, f"RInt ({CLOSED} {k} {s}) (- {a}) ({a} - {s}) <= {real(ends.integral)}",
                  f"unfold {CLOSED}, {Q}, {HALF}, {PHI}. cbn [{HORNER}]. {INTEGRAL_TACTIC}.",
                  f"the closed-form integral at s_{i} = z_{i} r_{i} = {s}, scale K = {k}"),
            Lemma(f"{stem}_spacing", claim, f"{SPACING_TAIL} {k} {s} <= {real(ends.spacing)}",
                  f"unfold {SPACING_TAIL}. destruct {BINOMIAL}_value as [HC _]. rewrite HC.\n"
                  f"  assert (HI := {CLOSED}_integral_above {k} {s} {real(ends.integral)} ltac:(lra) ltac:(lra) {stem}_integral).\n"
                  f"  assert (HO := {OUTSIDE}_upper).\n"
                  f"  assert (HW : {p} * {C} / {power} * RInt ({TRUE_INTEGRAND} {k} {s}) (- {a}) ({a} - {s}) <= "
                  f"{p} * {C} / {power} * {real(ends.integral)}) by (apply Rmult_le_compat_l; [interval | exact HI]).\n"
                  f"  apply Rle_trans with ({p} * {C} / {power} * {real(ends.integral)} + {real(tails.outside)}); "
                  "[lra | interval with (i_prec 200)].",
                  f"P(S > s_{i}) <= this end ({SPACING_TAIL}'s comment)"),
            Lemma(f"{stem}_poisson", claim, f"{real(ends.poisson)} <= exp (- {y}) * {POISSON} {y}",
                  f"unfold {POISSON}. interval with (i_prec 120).", f"P(Q >= r_{i}^2) = e^(-y) {POISSON}(y), y = r_{i}^2 / 2 = {y}"),
            Definition(f"{TAIL_TERM}_{i}",
                       f"{SPACING_TAIL} {k} ({z} * {r}) / (exp (- ({r} ^ 2 / 2)) * {POISSON} ({r} ^ 2 / 2))",
                       note=f"P(S > z_{i} r_{i}) / P(Q >= r_{i}^2)'s bound, z_{i} = {z}, r_{i} = {r}: at least P(Z > z_{i}) "
                            f"(Z independent of Q; {SPACING_TAIL}'s and {POISSON}'s comments, {stem}_window; paper-level)"),
            Lemma(f"region_purity_tail_{i}", claim, f"{TAIL_TERM}_{i} <= {real(ends.tail)}",
                  f"unfold {TAIL_TERM}_{i}. replace ({z} * {r}) with {s} by lra. replace ({r} ^ 2 / 2) with {y} by lra.\n"
                  f"  assert (HS := {stem}_spacing). assert (HP := {stem}_poisson).\n"
                  f"  set (D := exp (- {y}) * {POISSON} {y}) in *. set (T := {SPACING_TAIL} {k} {s}) in *.\n"
                  f"  apply Rle_trans with ({real(ends.spacing)} / D).\n"
                  "  - apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat; lra | exact HS].\n"
                  f"  - apply Rle_trans with ({real(ends.spacing)} / {real(ends.poisson)}); [ | interval with (i_prec 200)].\n"
                  "    unfold Rdiv. apply Rmult_le_compat_l; [lra | ]. apply Rinv_le_contravar; [lra | exact HP].",
                  f"T_{i} bounds {TAIL_TERM}_{i}, an upper bound of P(Z > z_{i}) (its comment)"),
        ]
    return items
