"""Coq lemmas of the slide certificate's ``region_probability`` claim (Theorem A.1's whole region R_slide).

The claim: P(theta(0) in R_slide | initially active) >= lo = 10^log10_lo. The kernel's bound
(certify.kernel.region_slide, docs/mathematics.md 'Region probability of the sliding theorem') is

    P >= P(S > t) P(m > sigma g) / (C(2p, p) - 1),
    P(S > t) = C(2p, p) int_R p Phi(x)^(p-1) phi(x) Phibar(x + t)^p dx,
    P(m > sigma g) >= erf(r / (2 sqrt 2))^n Phibar(sqrt(p n) (g + delta)),   n = p - 1,  r = n delta / (n - 1).

The claim lemmas state

    lo' <= C(2p, p) / (C(2p, p) - 1) * S * (2 G(r/2))^n * int_z^B2 phi,   z = sqrt(p n) (g + delta),

G(x) = int_0^x phi, B2 = floor(z) + 9, and S (``region_slide_survival``, a Definition of real quantities) the
integral over the window x in [-t/2 - W, -t/2 + W] of p Phibar_B(-x)^(p-1) phi(x) Phibar_B(x + t)^p with
Phibar_B(y) = int_y^B phi, B = t/2 + W + 8. The ordering identity, the law of the middle spacing S, the
independence of w from (u, v), the gamma-minimum bound, Phi(x) = Phibar(-x), erf(r/(2 sqrt 2)) = 2 G(r/2),
Phibar(y) >= int_y^B phi and Phibar(z) >= int_z^B2 phi (phi > 0; the window drops a nonnegative part) are the
paper-level steps, stated in the
comments as the other exporters state theirs. Coq has no proof that phi has total mass 1, so the lemmas use
finite integrals of phi, never 1/2 - G (docs/coq.md, 'The slide region in Coq'). Every number is proved here:

* On [a, b] = [t/2 - W, t/2 + W], L = phi Q <= Phibar_B, Q = (1 - d) P with P a polynomial close to the Mills
  ratio (Chebyshev interpolation in s = (y - t/2)/W, chosen here) and d ten times P's residual: ``interval``
  with Taylor models proves the residual y Q - Q' - 1 <= 0 on [a, b], so Phibar_B - L is nonincreasing there (its derivative
  -phi - L' is phi times that residual), and one ``integral`` of phi over [b, B] gives L(b) <= Phibar_B(b). Both -x and
  x + t lie in [a, b] on the window.
* S >= the integral of the closed form p L(-x)^(p-1) phi(x) L(x + t)^p (0 <= L), which ``integral`` bounds.
* 2 G(r/2) and int_z^B2 phi by one ``integral`` each, and (A.14) at the region's own constants,
  (p - 1)/e < sigma^2 g t (``interval``): U_slide(sigma g, sigma t) is one of the sets R_slide unites.

The kernel's P(S > t) is a 65-point lower Riemann-Stieltjes sum; the window's integral exceeds it by a factor
1.25 (p = 5) to 18 (p = 101), which absorbs every rounding of this route (the closed-form integral is proved
only above the geometric middle of the two), so lo' is lo lowered only by the statement's rounding
(:data:`MANTISSA_SLACK`). A lo forged past the exact right-hand side is refused by coqc.
"""

from __future__ import annotations

import functools
import math
import mpmath
from flint import fmpq

from .gaussian import lowered_lo, lowered_log10
from .lemma import Definition, Lemma
from .region import (BINOMIAL, G, PHI, _mp, _phi, _require_twin, _rounded as _decimal, binomial_items, coefficient_list,
                     shared_calculus_lemmas)
from .relations import landmark_lemmas, twin_lemmas
from .terms import number, real

CLAIM = "region_probability"
DPS = 40
#: The relative slack by which lo is lowered before it is stated (its digits follow from it): the route's
#: own losses (the ends' gap END_GAP, p of them at most, and L's relative loss below Phibar_B, about (2p - 1) 10^-5,
#: already inside the closed form's integral) are absorbed by the window's margin over the kernel's
#: lower sum (at least WINDOW_MARGIN, checked by :class:`SlideRegionProof`), so this is only the statement's
#: rounding.
MANTISSA_SLACK = fmpq(1, 10**15)
#: The closed form's integral over the window must exceed the kernel's bound of P(S > t) / C(2p, p) by at least
#: this factor (the exporter refuses otherwise): room between the two for the lower end that ``integral`` proves
#: (their geometric middle) and the gamma part's rounding (at most p END_GAP).
WINDOW_MARGIN = mpmath.mpf("1.01")
#: The Chebyshev degree of P grows until its residual y P - P' - 1 is at most this on 801 points of [a, b]. L is then
#: within a relative 10^-4 of Phibar_B, which the window's margin absorbs many times over (at least 1.12: the
#: closed form's integral is proved only above the geometric middle of it and the kernel's lower sum); a lower
#: degree makes the residual proof and the window's integral 2-4 times faster (measured: the region lemmas alone
#: at p = 101 took 30 s with 10^-10, and take 8 s)
RESIDUAL_TARGET = mpmath.mpf("1e-6")
#: The relative gap below the anchor, 2 G(r/2) and the gamma tail at which their lower ends are chosen: the window's
#: margin absorbs their product's loss (at most p times this), and a coarse ``integral`` proves them
END_GAP = mpmath.mpf("1e-9")
#: Q = (1 - d) P with d this many times the residual's maximum on 801 points: Q's residual r - d (1 + r) < 0.
RESIDUAL_MARGIN = 10
WINDOW_STEP = fmpq(1, 64)
#: The window is [t/2 - W, t/2 + W] with W <= WINDOW_WIDTH / sqrt(p) (the integrand is a peak of width ~1/sqrt(p))
WINDOW_WIDTH = 3.5
SURVIVAL_TACTIC = "integral with (i_prec 40, i_degree 1, i_fuel 2000)"
GAMMA_TACTIC = "integral with (i_prec 60, i_degree 8, i_fuel 100)"
HALF_TACTIC = "integral with (i_prec 60, i_degree 10, i_fuel 100)"

MILLS, L_, DL = "region_slide_mills", "region_slide_L", "region_slide_dL"
PHIBAR = "region_slide_phibar"
SURVIVAL = "region_slide_survival"


def _scientific(x, digits: int = 20) -> tuple[int, int]:
    """(M, E) with M 10^-E <= x, M of ``digits`` digits: a lower end written without expanding 10^E."""
    e = int(mpmath.floor(mpmath.log10(x))) - digits + 1
    return int(mpmath.floor(x / mpmath.mpf(10) ** e)), -e


def _sci(pair: tuple[int, int]) -> str:
    """M 10^-E as a Coq real: ``powerRZ`` takes a binary integer (a nat power of 10^5000 would be unary)."""
    m, e = pair
    return f"({m} * powerRZ 10 ({-e})%Z)"


def _sci_mp(pair: tuple[int, int]) -> mpmath.mpf:
    return mpmath.mpf(pair[0]) / mpmath.mpf(10) ** pair[1]


def _phibar(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


class SlideRegionProof:
    """The numbers of the proof for one (p, sigma), chosen with floats and mpmath from the kernel's (g, delta, t)
    (Coq proves every inequality between them; a poor choice makes coqc fail, never a false lemma).

    Raises ValueError when the route cannot reach the kernel's bound (the window too narrow, the margin over
    the kernel's lower sum under :data:`WINDOW_MARGIN`): the claim is then listed as not exported."""

    def __init__(self, p: int, sigma: fmpq):
        from ..kernel.region_slide import slide_region_claim_bound

        bound = slide_region_claim_bound(p, sigma)
        self.p, self.n = p, p - 1
        self.g, self.delta_g = bound.g, bound.delta
        self.t = bound.X / bound.sigma
        half = self.t / 2
        steps = int(WINDOW_WIDTH / math.sqrt(p) / float(WINDOW_STEP))
        if steps < 1:
            raise ValueError(f"the window is empty (its width {WINDOW_WIDTH}/sqrt(p) is under {WINDOW_STEP})")
        self.W = steps * WINDOW_STEP
        self.a, self.b, self.m = half - self.W, half + self.W, half
        self.B = self.b + 8
        with mpmath.workdps(DPS):
            a, b, m, W = (_mp(v) for v in (self.a, self.b, self.m, self.W))
            mills = lambda y: _phibar(y) / _phi(y)  # noqa: E731
            grid = [m + W * s for s in mpmath.linspace(-1, 1, 801)]
            for degree in range(4, 41):
                fit = mpmath.chebyfit(lambda s: mills(m + W * s), [-1, 1], degree + 1)[::-1]
                coefficients = [_decimal(abs(c), 25, up=False) * (1 if c >= 0 else -1) if c != 0 else fmpq(0)
                                for c in fit]
                c = [_mp(q) for q in coefficients]

                def P(y, c=c):
                    return mpmath.polyval(c[::-1], (y - m) / W)

                def dP(y, c=c):
                    return mpmath.polyval([j * c[j] for j in range(len(c) - 1, 0, -1)], (y - m) / W) / W
                residual = max(abs(y * P(y) - dP(y) - 1) for y in grid)
                if residual <= RESIDUAL_TARGET:
                    break
            else:
                raise ValueError("no Mills polynomial of degree <= 40 meets the residual target")
            # Q = (1 - d) P has residual (1 - d)(1 + r) - 1 = r - d (1 + r) < 0 wherever |r| < d/2, at every
            # y (no sign of y needed): d is RESIDUAL_MARGIN times the residual's maximum
            self.shrink = _decimal(RESIDUAL_MARGIN * residual + mpmath.mpf(10) ** -30, 3, up=True)
            factor = 1 - _mp(self.shrink)
            self.coefficients = [_decimal(abs(factor * q), 25, up=False) * (1 if q >= 0 else -1) if q != 0 else fmpq(0)
                                 for q in c]
            c = [_mp(q) for q in self.coefficients]
            worst = max(y * P(y, c) - dP(y, c) - 1 for y in grid)
            if not worst < 0:  # interval proves it on [a, b]; it must at least hold on the grid
                raise ValueError("the shrunk Mills polynomial's residual is not negative on the grid")
            L = lambda y: _phi(y) * P(y, c)  # noqa: E731
            anchor = _phibar(b) - _phibar(_mp(self.B))  # erfc: no quadrature error (an exact tail difference)
            self.anchor_lo = _decimal(anchor * (1 - END_GAP), 20, up=False)
            x_lo, x_hi = -m - W, -m + W
            t = _mp(self.t)
            closed = mpmath.quad(lambda x: p * L(-x) ** (p - 1) * _phi(x) * L(x + t) ** p, [x_lo, -m, x_hi])
            r_half = self.n * _mp(self.delta_g) / (2 * (self.n - 1))
            self.r_half = fmpq(self.n) * self.delta_g / (2 * (self.n - 1))
            spread = mpmath.erf(r_half / mpmath.sqrt(2))
            self.spread_lo = _decimal(spread * (1 - END_GAP), 22, up=False)
            z = mpmath.sqrt(p * self.n) * (_mp(self.g) + _mp(self.delta_g))
            self.B2 = fmpq(int(mpmath.floor(z)) + 9)
            tail = _phibar(z) - _phibar(_mp(self.B2))
            self.tail_lo = _scientific(tail * (1 - END_GAP))
            # the route must reach the kernel's bound with room to spare (its S is a lower sum)
            from ..kernel.region_slide import spacing_survival_log_lower
            kernel_s = mpmath.exp(mpmath.mpf(spacing_survival_log_lower(p, self.t, 128).str(30, radius=False))
                                  - mpmath.log(mpmath.binomial(2 * p, p)))
            room = closed / (WINDOW_MARGIN * kernel_s)
            if not room > 1:
                raise ValueError(f"the window's integral is not {WINDOW_MARGIN} times the kernel's lower sum")
            # the integral need only be proved above the geometric middle of the two: a coarse, fast integral
            self.survival_lo = _scientific(closed / mpmath.sqrt(room))
            self.binomial = math.comb(2 * p, p)


@functools.lru_cache(maxsize=None)
def slide_region_proof(p: int, sigma: fmpq) -> SlideRegionProof:
    """The proof's numbers, computed once per process for (p, sigma)."""
    return SlideRegionProof(p, sigma)


def _shared_lemmas(p: int) -> list:
    """certify.coq.region's shared calculus facts; G's note says what G is here (this route never uses 1/2 - G: Coq
    has no proof of phi's total mass)."""
    from dataclasses import replace

    return [replace(item, note="G(x) = int_0^x phi") if item.name == G else item for item in shared_calculus_lemmas(p)]


def _generic() -> list:
    """The lemmas of this route that hold for every p (no numbers)."""
    paper = "a fact of calculus used by the region bound below"
    s = "((y - m) / w)"
    form = f"(c0 + {s} * region_horner d {s})"
    return [
        Lemma("region_slide_form_derive", CLAIM,
              f"forall d c0 m w (y : R), w <> 0 -> is_derive (fun y => {PHI} y * {form}) y "
              f"({PHI} y * (- y * {form} + region_dhorner d 0 {s} / w))",
              "intros d c0 m w y Hw.\n"
              f"  apply (is_derive_ext (fun y => {PHI} y * (c0 + region_prim d 0 {s}))).\n"
              "  { intros x. rewrite region_prim_horner, pow_1. reflexivity. }\n"
              f"  replace (region_dhorner d 0 {s}) with (region_dprim d 0 {s}) by (rewrite region_dprim_horner; ring).\n"
              f"  unfold {PHI}. auto_derive.\n"
              f"  - repeat split; try exact I; try exact Hw. exists (region_dprim d 0 {s}). apply region_prim_derive.\n"
              "  - replace ((y + - m) * / w) with ((y - m) / w) by reflexivity.\n"
              f"    replace (Derive (fun x : R => region_prim d 0 x) {s}) with (region_dprim d 0 {s}) "
              "by (symmetry; apply is_derive_unique; apply region_prim_derive).\n"
              "    replace (- (y * (y * 1)) * / 2) with (- y ^ 2 / 2) by (unfold Rdiv; ring).\n"
              "    rewrite region_prim_horner, pow_1. field. split; [exact Hw | ].\n"
              "    apply Rgt_not_eq, sqrt_lt_R0. generalize PI_RGT_0. lra.",
              "(phi Q)' = phi (-y Q + Q'), as phi' = -y phi; Q = c0 + s H(s), s = (y - m)/w"),
        Lemma("region_slide_form_continuous", CLAIM,
              f"forall d c0 m w (y : R), w <> 0 -> continuous (fun y => {PHI} y * (- y * {form} + region_dhorner d 0 {s} / w)) y",
              "intros d c0 m w y Hw.\n"
              f"  apply (continuous_ext (fun y => {PHI} y * (- y * (c0 + region_prim d 0 {s}) + region_dprim d 0 {s} / w))).\n"
              "  { intros x. rewrite region_prim_horner, region_dprim_horner, pow_1, pow_O, Rmult_1_l. reflexivity. }\n"
              f"  apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). unfold {PHI}.\n"
              "  auto_derive. repeat split; try exact I; try exact Hw.\n"
              f"  - exists (region_dprim d 0 {s}). apply region_prim_derive.\n  - apply region_dprim_ex_derive.", paper),
        Lemma("region_slide_below_tail", CLAIM,
              f"forall (L l : R -> R) a b B, (forall x, is_derive L x (l x)) -> (forall x, continuous l x) -> "
              f"(forall x, a <= x <= b -> 0 <= {PHI} x + l x) -> L b <= RInt {PHI} b B -> "
              f"forall y, a <= y <= b -> L y <= RInt {PHI} y B",
              "intros L l a b B HL Hl Hs Hb y Hy.\n"
              "  assert (HI : is_RInt l y b (minus (L b) (L y))).\n"
              "  { apply (is_RInt_derive L l). - intros x _. apply HL. - intros x _. apply Hl. }\n"
              f"  assert (HP : is_RInt {PHI} y b (RInt {PHI} y b)) by (apply (RInt_correct (V := R_CompleteNormedModule)); apply {PHI}_ex_RInt).\n"
              f"  assert (HS : is_RInt (fun x => {PHI} x + l x) y b (RInt {PHI} y b + (L b - L y))) by exact (is_RInt_plus _ _ y b _ _ HP HI).\n"
              f"  assert (H0 : 0 <= RInt (fun x => {PHI} x + l x) y b).\n"
              f"  {{ apply RInt_ge_0; [lra | exists (RInt {PHI} y b + (L b - L y)); exact HS | intros x Hx; apply Hs; lra]. }}\n"
              "  rewrite (is_RInt_unique _ _ _ _ HS) in H0.\n"
              f"  rewrite <- (RInt_Chasles {PHI} y b B) by apply {PHI}_ex_RInt.\n"
              f"  change (plus (RInt {PHI} y b) (RInt {PHI} b B)) with (RInt {PHI} y b + RInt {PHI} b B). lra.",
              "int_y^B phi - L(y) is nonincreasing on [a, b] (its derivative -phi - l <= 0) and >= 0 at b"),
        Lemma("region_slide_integrand_continuous", CLAIM,
              f"forall (f : R -> R) c n k t x, (forall y, continuous f y) -> "
              f"continuous (fun x => c * f (- x) ^ n * {PHI} x * f (x + t) ^ k) x",
              "intros f c n k t x Hf.\n"
              f"  apply (continuous_mult (fun x => c * f (- x) ^ n * {PHI} x) (fun x => f (x + t) ^ k)).\n"
              f"  - apply (continuous_mult (fun x => c * f (- x) ^ n) {PHI}); [ | apply {PHI}_continuous].\n"
              "    apply (continuous_mult (fun _ => c) (fun x => f (- x) ^ n)); [apply continuous_const | ].\n"
              "    apply (continuous_comp (fun x => f (- x)) (fun u => u ^ n)); [ | apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)); auto_derive; exact I].\n"
              "    apply (continuous_comp Ropp f); [apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)); auto_derive; exact I | apply Hf].\n"
              "  - apply (continuous_comp (fun x => f (x + t)) (fun u => u ^ k)); [ | apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)); auto_derive; exact I].\n"
              "    apply (continuous_comp (fun x => x + t) f); [ | apply Hf].\n"
              "    apply (continuous_plus (fun x => x) (fun _ => t)); [apply continuous_id | apply continuous_const].",
              "a product of continuous functions is continuous"),
        Lemma("region_slide_tail_continuous", CLAIM, f"forall B y, continuous (fun y => RInt {PHI} y B) y",
              f"intros B y. apply (continuous_ext (fun y => RInt {PHI} 0 B - {G} y)).\n"
              f"  {{ intros x. unfold {G}. rewrite <- (RInt_Chasles {PHI} 0 x B) by apply {PHI}_ex_RInt.\n"
              f"    change (plus (RInt {PHI} 0 x) (RInt {PHI} x B)) with (RInt {PHI} 0 x + RInt {PHI} x B).\n"
              "    assert (E : forall u v : R, u + v - u = v) by (intros; ring). apply E. }\n"
              f"  apply (continuous_minus (fun _ => RInt {PHI} 0 B) {G}); [apply continuous_const | ].\n"
              f"  apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). exists ({PHI} y). apply {G}_derive.",
              "y -> int_y^B phi = int_0^B phi - G(y) is continuous"),
    ]


def slide_region_lemmas(document: dict) -> list:
    """The lemmas of a slide certificate's ``region_probability`` claim (module docstring); ValueError when the
    claim is not the lower bound with a log10 twin they are written for, or the route cannot reach it."""
    _require_twin(document)
    node = document["claims"][CLAIM]
    p = int(document["p"])
    sigma = number(document["parameters"]["sigma"], "parameters.sigma")
    proof = slide_region_proof(p, sigma)
    n = proof.n
    a, b, m, W, t = (real(v) for v in (proof.a, proof.b, proof.m, proof.W, proof.t))
    c0 = real(proof.coefficients[0])
    degree = len(proof.coefficients) - 1
    s = f"((y - {m}) / {W})"
    Q = f"({c0} + {s} * region_horner {MILLS} {s})"
    x_lo, x_hi = f"(- {m} - {W})", f"(- {m} + {W})"
    closed = f"(fun x => {p} * {L_} (- x) ^ {n} * {PHI} x * {L_} (x + {t}) ^ {p})"
    integrand = f"(fun x => {p} * {PHIBAR} (- x) ^ {n} * {PHI} x * {PHIBAR} (x + {t}) ^ {p})"
    z = f"(sqrt ({p} * {n}) * ({real(proof.g)} + {real(proof.delta_g)}))"
    r_half = real(proof.r_half)
    unfold = f"unfold {L_}, {PHI}, {MILLS}. cbn [region_horner]."
    B = real(proof.B)
    S_lo, T_lo = _sci(proof.survival_lo), _sci(proof.tail_lo)
    E_lo, A_lo = real(proof.spread_lo), real(proof.anchor_lo)
    C = proof.binomial
    bound = (f"({BINOMIAL} / ({BINOMIAL} - 1) * {SURVIVAL} * (2 * RInt {PHI} 0 {r_half}) ^ {n} * "
             f"RInt {PHI} {z} {real(proof.B2)})")
    numbers = f"({C} / ({C} - 1) * {S_lo} * {E_lo} ^ {n} * {T_lo})"
    specific = [
        Definition(MILLS, coefficient_list(proof.coefficients[1:]), type="list R",
                   note=f"Q(y) = c0 + s sum_k d_k s^k, s = (y - t/2)/W, degree {degree}: (1 - d) times a Chebyshev "
                        f"interpolant of the Mills ratio on [a, b] = [t/2 - W, t/2 + W], rounded (any polynomial "
                        f"serves: the lemmas below prove what it must satisfy)"),
        Definition(PHIBAR, f"fun y => RInt {PHI} y {B}", type="R -> R",
                   note="int_y^B phi, B = b + 8, which is at most Phibar(y) = 1 - Phi(y) (phi > 0): the bound below "
                        "has Phibar replaced by it (paper-level), within a relative Phibar(B)/Phibar(b) < 10^-20"),
        Definition(L_, f"fun y => {PHI} y * {Q}", type="R -> R", note="L = phi Q <= int_y^B phi on [a, b], Q = (1 - d) P"),
        Definition(DL, f"fun y => {PHI} y * (- y * {Q} + region_dhorner {MILLS} 0 {s} / {W})", type="R -> R",
                   note="its derivative"),
        Lemma(f"{L_}_derive", CLAIM, f"forall y, is_derive {L_} y ({DL} y)",
              f"intros y. unfold {L_}, {DL}. apply region_slide_form_derive. lra.", "L' = dL"),
        Lemma("region_slide_mills_residual", CLAIM,
              f"forall y, {a} <= y <= {b} -> y * {Q} - region_dhorner {MILLS} 0 {s} / {W} - 1 <= 0",
              f"intros y Hy. unfold {MILLS}. cbn [region_horner region_dhorner INR]. "
              f"interval with (i_taylor y, i_degree {degree + 2}, i_prec 100, i_bisect y).",
              f"the residual of M' = y M - 1 for Q = (1 - d) P is <= 0 on [a, b] (d = {real(proof.shrink)}, ten times "
              "the largest residual r of P on 801 points: r - d (1 + r) < 0)"),
        Lemma(f"{DL}_above", CLAIM, f"forall y, {a} <= y <= {b} -> 0 <= {PHI} y + {DL} y",
              f"intros y Hy. unfold {DL}. assert (H := region_slide_mills_residual y Hy). "
              f"assert (H0 := {PHI}_bounds y). nra.",
              "phi + L' = -phi (y Q - Q' - 1) >= 0 on [a, b]"),
        Lemma("region_slide_anchor", CLAIM, f"{A_lo} <= RInt {PHI} {b} {B}",
              f"unfold {PHI}. {GAMMA_TACTIC}.", "int_b^(b+8) phi, which Phibar(b) exceeds"),
        Lemma(f"{L_}_at_b", CLAIM, f"{L_} {b} <= RInt {PHI} {b} {B}",
              f"apply Rle_trans with {A_lo}; [ | exact region_slide_anchor].\n  {unfold} interval with (i_prec 100).",
              "L(b) <= int_b^B phi"),
        Lemma(f"{L_}_below_phibar", CLAIM, f"forall y, {a} <= y <= {b} -> {L_} y <= {PHIBAR} y",
              f"unfold {PHIBAR}. apply (region_slide_below_tail {L_} {DL} {a} {b} {B}).\n"
              f"  - exact {L_}_derive.\n"
              f"  - intros y. unfold {DL}. apply region_slide_form_continuous. lra.\n"
              f"  - exact {DL}_above.\n  - exact {L_}_at_b.", "Phibar - L is nonincreasing on [a, b] and >= 0 at b"),
        Lemma(f"{L_}_nonnegative", CLAIM, f"forall y, {a} <= y <= {b} -> 0 <= {L_} y",
              f"intros y Hy. {unfold} interval with (i_prec 60, i_bisect y).", "L >= 0 on [a, b]"),
        Definition(SURVIVAL, f"RInt {integrand} {x_lo} {x_hi}",
                   note="S = int over the window [-t/2 - W, -t/2 + W] of p Phibar(-x)^(p-1) phi(x) Phibar(x + t)^p: "
                        "P(S > t) = C(2p, p) int_R p Phi^(p-1) phi Phibar(x + t)^p dx >= C(2p, p) S (X_(p) = x and the "
                        "p values above x + t; Phi(x) = Phibar(-x); a nonnegative integrand truncated): paper-level"),
        Lemma("region_slide_closed_integral", CLAIM, f"{S_lo} <= RInt {closed} {x_lo} {x_hi}",
              f"{unfold} {SURVIVAL_TACTIC}.", "the integral of the closed-form lower bound over the window"),
        Lemma("region_slide_survival_lower", CLAIM, f"{S_lo} <= {SURVIVAL}",
              f"apply Rle_trans with (RInt {closed} {x_lo} {x_hi}); [exact region_slide_closed_integral | ].\n"
              f"  unfold {SURVIVAL}. apply RInt_le; [lra | | | ].\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _.\n"
              f"    apply region_slide_integrand_continuous. intros y. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). exists ({DL} y). apply {L_}_derive.\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _.\n"
              f"    apply region_slide_integrand_continuous. intros y. apply region_slide_tail_continuous.\n"
              f"  - intros x Hx. assert (H1 : {a} <= - x <= {b}) by lra. assert (H2 : {a} <= x + {t} <= {b}) by lra.\n"
              f"    assert (L1 := {L_}_nonnegative _ H1). assert (L2 := {L_}_nonnegative _ H2).\n"
              f"    assert (P1 := {L_}_below_phibar _ H1). assert (P2 := {L_}_below_phibar _ H2).\n"
              f"    assert (Hphi := {PHI}_bounds x).\n"
              f"    assert (E1 : {L_} (- x) ^ {n} <= {PHIBAR} (- x) ^ {n}) by (apply pow_incr; lra).\n"
              f"    assert (E2 : {L_} (x + {t}) ^ {p} <= {PHIBAR} (x + {t}) ^ {p}) by (apply pow_incr; lra).\n"
              f"    assert (F1 : 0 <= {L_} (- x) ^ {n}) by (apply pow_le; lra).\n"
              f"    assert (F2 : 0 <= {L_} (x + {t}) ^ {p}) by (apply pow_le; lra).\n"
              "    apply Rmult_le_compat; [ | lra | | exact E2].\n"
              "    + apply Rmult_le_pos; [apply Rmult_le_pos; [lra | exact F1] | lra].\n"
              "    + apply Rmult_le_compat_r; [lra | ]. apply Rmult_le_compat_l; [lra | exact E1].",
              "0 <= L <= Phibar at -x and x + t, both in [a, b] on the window"),
        Lemma("region_slide_spread", CLAIM, f"{E_lo} <= 2 * RInt {PHI} 0 {r_half}",
              f"unfold {PHI}. {GAMMA_TACTIC}.",
              "2 G(r/2) = erf(r / (2 sqrt 2)) = P(|N(0,1)| <= r/2), r = n delta / (n - 1)"),
        Lemma("region_slide_gamma_tail", CLAIM, f"{T_lo} <= RInt {PHI} {z} {real(proof.B2)}",
              f"unfold {PHI}. {GAMMA_TACTIC}.",
              "int_z^B2 phi, B2 = floor(z) + 9, which Phibar(z) exceeds (phi > 0): paper-level"),
        Lemma("region_slide_admissible", CLAIM, f"({p} - 1) / exp 1 < {real(sigma)} ^ 2 * {real(proof.g)} * {t}",
              "interval with (i_prec 100).",
              "(A.14) at the region's own constants gamma_* = sigma g and X = sigma t: X gamma_* > (p-1)/e, so "
              "U_slide(sigma g, sigma t) of (A.15)-(A.17), relabelled, lies in R_slide"),
        *binomial_items(p),
        Lemma("region_slide_bound_lower", CLAIM, f"{numbers} <= {bound}",
              f"destruct {BINOMIAL}_value as [HC _]. rewrite HC.\n"
              "  assert (HS := region_slide_survival_lower). assert (HE := region_slide_spread).\n"
              "  assert (HT := region_slide_gamma_tail).\n"
              f"  assert (P0 : 0 <= {E_lo}) by interval with (i_prec 100). assert (P1 : 0 <= {T_lo}) by interval with (i_prec 100).\n"
              f"  assert (P2 : 0 <= {S_lo}) by interval with (i_prec 100). assert (P3 : 0 <= {C} / ({C} - 1)) by interval with (i_prec 100).\n"
              f"  assert (HEn : {E_lo} ^ {n} <= (2 * RInt {PHI} 0 {r_half}) ^ {n}) by (apply pow_incr; lra).\n"
              f"  assert (P4 : 0 <= {E_lo} ^ {n}) by (apply pow_le; lra).\n"
              "  apply Rmult_le_compat; [ | lra | | exact HT].\n"
              "  - apply Rmult_le_pos; [apply Rmult_le_pos; lra | exact P4].\n"
              "  - apply Rmult_le_compat; [apply Rmult_le_pos; lra | exact P4 | | exact HEn].\n"
              "    apply Rmult_le_compat_l; [exact P3 | exact HS].",
              "each factor of the bound is at least its proved lower end (all of them >= 0)"),
    ]
    paper = ("docs/mathematics.md, 'Region probability of the sliding theorem': P(R_slide | active) >= P(S > t) "
             f"P(m > sigma g) / (C(2p, p) - 1), sigma = {real(sigma)}, g = {real(proof.g)}, t = {t} (the ordering "
             "identity; given one active gate x = sigma S, and S > t, m > sigma g give x m > (p-1)/e by "
             "region_slide_admissible; the independence of w from (u, v)), "
             f"P(S > t) >= C(2p, p) {SURVIVAL} (its definition's comment), P(m > sigma g) >= erf(r/(2 sqrt 2))^n "
             f"Phibar(z) (the gamma-minimum bound, delta = {real(proof.delta_g)}), erf(r/(2 sqrt 2)) = 2 G(r/2), "
             "Phibar(z) >= int_z^B2 phi")
    (mantissa, exponent), digits = lowered_lo(node["lo"], MANTISSA_SLACK, f"{CLAIM}.lo")
    # no check that the proved numbers reach lo here: a lo they do not reach (a forgery) must give a lemma coqc
    # refuses, never a file that quietly lists the claim as not exported
    log10_end, log10_digits = lowered_log10(number(node["log10_lo"], f"{CLAIM}.log10_lo"), MANTISSA_SLACK)
    claims = [
        Lemma(f"{CLAIM}_lo_{digits}_digits", CLAIM, f"ln {mantissa} - {exponent} * ln 10 <= ln {bound}",
              f"apply Rle_trans with (ln {numbers}); [interval with (i_prec 200) | ].\n"
              f"  apply ln_le; [interval with (i_prec 200) | exact region_slide_bound_lower].",
              f"{paper}; lo lowered by a relative 4 s, s = {MANTISSA_SLACK}, and rounded down to {digits} significant "
              f"digits", digits),
        Lemma(f"{CLAIM}_log10_lo_{log10_digits}_digits", CLAIM, f"{real(log10_end)} <= ln {bound} / ln 10",
              f"apply Rle_trans with (ln {numbers} / ln 10); [interval with (i_prec 200) | ].\n"
              f"  unfold Rdiv. apply Rmult_le_compat_r; [interval with (i_prec 100) | ]. apply ln_le; [interval with (i_prec 200) | exact region_slide_bound_lower].",
              f"{paper}; log10_lo lowered by 4 s/ln 10 and rounded down to {log10_digits} significant digits",
              log10_digits),
    ]
    return (_shared_lemmas(p) + _generic() + specific + landmark_lemmas(document, CLAIM, "lo")
            + twin_lemmas(document, CLAIM) + claims)
