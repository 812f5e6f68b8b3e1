"""Coq lemmas of the dead certificate's ``region_probability`` claim (Theorem A.2's whole region R_dead), and of the
smooth certificate's through R_dead in R_smooth (:func:`smooth_region_lemmas`, at the end).

The claim: P(theta(0) in R_dead | initially active) >= lo = 10^log10_lo. The kernel's bound
(certify.kernel.region, docs/mathematics.md 'Region probability of the dead theorem') is

    P >= Phibar(c_p E[S]) / (C(2p, p) - 1),   c_p = sqrt(p / (2(p - 1))),
    E[S] = C(2p, p) int_R Phi^p (1 - Phi)^p dx = 2 C(2p, p) 4^-p int_0^inf K,   K = (1 - 4 G^2)^p,

with G(x) = int_0^x phi, so that 4 Phi (1 - Phi) = 1 - 4 G^2 for x >= 0. The ordering identity
1/(C(2p, p) - 1), the law of the middle spacing S, Jensen's inequality for the convex Phibar, the tail
bound int_A^inf K <= 4 phi(A) (1 - 4 G(A)^2)^(p-1) (K <= 4 Phibar (1 - 4 G^2)^(p-1) beyond A and
int_A^inf Phibar <= phi(A)) and Phi = 1/2 + G, Phibar(z) = 1/2 - G(z) (the normal law's total mass) are
the paper-level steps, stated in the comments as the other exporters state theirs. Every number that
enters them is proved here (docs/coq.md, 'The dead region in Coq'):

* G has no closed form and CoqInterval's ``integral`` takes no integral inside its integrand, so the
  file proves a closed-form lower bound Lo <= G on [0, A], from the Mills ratio M = Phibar / phi, which
  solves M' = x M - 1: with a polynomial P close to M on [0, A] (Chebyshev interpolation, chosen here),
  Lo(x) = 1/2 - phi(x) (P(x) + delta) - eps x. Then Lo(0) <= 0 (``interval``) and
  Lo' = phi (x (P + delta) - P') - eps <= phi on [0, A], because the polynomial residual
  x (P + delta) - P' - 1 is at most eta = 2 eps there (``interval`` with Taylor models) and
  0 < phi <= 1/2; so G - Lo is nondecreasing from G(0) - Lo(0) >= 0 (Coquelicot: RInt of phi >= RInt
  of Lo', Lo' continuous), a proof that uses no value of G.
* On [x0, A] with x0 = 10^-6, 0 <= Lo <= G gives K <= (1 - 4 Lo^2)^p (p odd: x -> x^p is increasing),
  whose integral ``integral`` bounds; on [0, x0], K <= 1.
* E = 2 C(2p, p) 4^-p (int_0^A K + 4 phi(A) (1 - 4 G(A)^2)^(p-1)) (a Definition: E >= E[S] is the
  paper-level part) is at most U; Phibar(c_p U) >= Phb (one ``integral`` of phi), and G is increasing, so
  lo' <= (1/2 - G(c_p E)) / (C(2p, p) - 1), with C(2p, p) computed in Coq's integers (``vm_compute``).
  The claim lemmas state only real quantities: U and Phb, the exporter's, stay inside the proof.

For dead, lo' and log10_lo' are the certificate's lo and log10_lo lowered by the relative slack s this route
loses (certify.coq.gaussian's rule: digits fixed by s, never by the certificate's own numbers), so a lo
forged past the truth by more than 4 s plus one unit of its last stated digit (under 14 s) is refused by coqc.
For smooth, whose lo lies measurably below the route's number, the lemmas state the certificate's own lo and
log10_lo in full.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import mpmath
from flint import arb, fmpq

from ..kernel.balls import working_precision
from .gaussian import lowered_lo, lowered_log10
from .lemma import Definition, Lemma
from .relations import landmark_lemmas, relation, twin_lemmas
from .terms import exact_number, number, rational_above, real

CLAIM = "region_probability"

#: the left end of the integrated piece: below it K <= 1 costs at most p x0^3 / 2 (4 G^2 <= x^2 / (pi / 2)).
X0 = fmpq(1, 10**6)


@dataclass(frozen=True)
class RouteAccuracy:
    """How close to the Jensen value the route's proved numbers come, and the CoqInterval options that prove them.

    ``tail_fraction``: the tail beyond A is at most this fraction of the integral (A the least multiple of 1/8 that
    gives it). ``residual_target``: the Chebyshev degree of P grows until the polynomial residual is at most this (in
    absolute value, on a grid of 101 points; eta is then the maximum on 801 points times :data:`RESIDUAL_MARGIN`).
    ``integral_gap``: the relative gap between the integral's upper bound and its value (and of Phb below Phibar).
    """

    tail_fraction: float
    residual_target: float
    integral_gap: mpmath.mpf
    integral_tactic: str
    phibar_tactic: str


#: dead's own claim: lo is the Jensen value, so the route must reach it to about 15 digits (docs/coq.md, 'Digits')
FULL = RouteAccuracy(1e-15, 1e-19, mpmath.mpf("2e-15"), "integral with (i_prec 70, i_degree 12, i_fuel 200)",
                     "integral with (i_prec 90, i_degree 12, i_fuel 100)")
#: smooth's claim through the inclusion R_dead in R_smooth: its lo lies a relative 0.19-0.39% below the Jensen value
#: at the library's parameters (:func:`smooth_region_lemmas` requires at least :data:`SMOOTH_MARGIN` below the
#: route's number), so a route losing 10^-6 serves and costs less coqc time (measured at p = 101: the whole dead
#: file takes 21 s at this accuracy against 37 s at FULL)
COARSE = RouteAccuracy(1e-9, 1e-9, mpmath.mpf("1e-6"), "integral with (i_prec 40, i_degree 6, i_fuel 100)",
                       "integral with (i_prec 50, i_degree 6, i_fuel 100)")
#: eta is this many times the residual's measured maximum: a margin interval needs fewer bisections for
#: (the residual's size fixes the digits; measured: 100 halves the Taylor proof's time at p = 5)
RESIDUAL_MARGIN = 100
#: G(A) <= 1/2 has a margin Phibar(A) >= 10^-4 (A <= 29/8): a coarse integral suffices
HALF_TACTIC = "integral with (i_prec 40, i_degree 6, i_fuel 40)"
DPS = 50

# Coq names (prefixed, so that they never meet the other exporters' names in one file)
PHI, G, K = "region_phi", "region_G", "region_K"
PRIM, DPRIM, ZFACT = "region_prim", "region_dprim", "region_zfact"
HORNER, DHORNER = "region_horner", "region_dhorner"
LO, DLO, MILLS = "region_Lo", "region_dLo", "region_mills_coefficients"
BINOMIAL = "region_central_binomial"
SPACING = "region_spacing_bound"


def _mp(q) -> mpmath.mpf:
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _rounded(x, digits: int, up: bool) -> fmpq:
    """A decimal of ``digits`` significant digits next to the mpf ``x`` (above it if ``up``): a choice of a
    proof's end, which Coq then proves."""
    x = mpmath.mpf(x)
    if x == 0:
        return fmpq(0)
    e = int(mpmath.floor(mpmath.log10(abs(x)))) - digits
    n = int(mpmath.ceil(x / mpmath.mpf(10) ** e) if up else mpmath.floor(x / mpmath.mpf(10) ** e))
    return fmpq(n) * fmpq(10) ** e if e >= 0 else fmpq(n, 10 ** -e)


def _phi(x):
    return mpmath.exp(-x ** 2 / 2) / mpmath.sqrt(2 * mpmath.pi)


def _mills(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2 / _phi(x)


class RegionProof:
    """The numbers of the proof at prime p, chosen with floats and mpmath (Coq proves every inequality
    between them; a poor choice makes coqc fail, never a false lemma)."""

    def __init__(self, p: int, accuracy: RouteAccuracy = FULL):
        self.p, self.accuracy = p, accuracy
        with mpmath.workdps(DPS):
            k = lambda x: 1 - mpmath.erf(x / mpmath.sqrt(2)) ** 2  # noqa: E731 (4 Phi (1 - Phi))
            whole = mpmath.quad(lambda x: k(x) ** p, [0, 1, mpmath.inf])
            eighths = 1
            while 4 * _phi(mpmath.mpf(eighths) / 8) * k(mpmath.mpf(eighths) / 8) ** (p - 1) > accuracy.tail_fraction * whole:
                eighths += 1
            self.A = fmpq(eighths, 8)
            A = _mp(self.A)
            coarse, fine = mpmath.linspace(0, A, 101), mpmath.linspace(0, A, 801)
            for degree in range(8, 61, 2):
                fit = mpmath.chebyfit(_mills, [0, A], degree + 1)[::-1]
                coefficients = [_rounded(c, 30, up=False) for c in fit]
                c = [_mp(q) for q in coefficients]
                P = lambda x: mpmath.polyval(c[::-1], x)  # noqa: E731
                dP = lambda x: mpmath.polyval([j * c[j] for j in range(len(c) - 1, 0, -1)], x)  # noqa: E731
                delta = _rounded(max(mpmath.sqrt(mpmath.pi / 2) - c[0], 0) + mpmath.mpf(10) ** -24, 3, up=True)
                if max(abs(x * (P(x) + _mp(delta)) - dP(x) - 1) for x in coarse) <= accuracy.residual_target:
                    # eta below comes from the finer grid, with a margin: interval proves the bound on [0, A]
                    residual = max(abs(x * (P(x) + _mp(delta)) - dP(x) - 1) for x in fine)
                    break
            else:
                raise ValueError(f"p = {p}: no Mills polynomial of degree <= 60 meets the residual target")
            self.coefficients, self.delta = coefficients, delta
            self.eta = _rounded(RESIDUAL_MARGIN * residual + mpmath.mpf(10) ** -22, 3, up=True)
            self.eps = self.eta / 2
            Lo = lambda x: mpmath.mpf(1) / 2 - _phi(x) * (P(x) + _mp(delta)) - _mp(self.eps) * x  # noqa: E731
            x0 = _mp(X0)
            body = mpmath.quad(lambda x: (1 - 4 * Lo(x) ** 2) ** p, [x0, min(A, 1), A] if A > 1 else [x0, A])
            self.integral_hi = _rounded(body * (1 + accuracy.integral_gap), 20, up=True)
            tail = 4 * _phi(A) * (1 - 4 * Lo(A) ** 2) ** (p - 1)
            self.tail_hi = _rounded(tail * (1 + mpmath.mpf(10) ** -6) + mpmath.mpf(10) ** -40, 6, up=True)
            self.binomial = math.comb(2 * p, p)
            spacing = 2 * mpmath.mpf(self.binomial) / mpmath.mpf(4) ** p * (
                x0 + _mp(self.integral_hi) + _mp(self.tail_hi))
            self.spacing_hi = _rounded(spacing, 25, up=True)
            z = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * _mp(self.spacing_hi)
            self.phibar_lo = _rounded((mpmath.erfc(z / mpmath.sqrt(2)) / 2) * (1 - accuracy.integral_gap), 25, up=False)

    def slack(self, spacing_lower: arb) -> fmpq:
        """s >= ln(Phibar(c_p E[S]) / (C - 1)) - ln(Phb / (C - 1)), E[S] >= ``spacing_lower`` (an Arb
        enclosure's lower end): what the Coq route loses against the Jensen value, with Arb; as a rational."""
        p = self.p
        with working_precision(256):
            z = (arb(p) / (2 * arb(p - 1))).sqrt() * spacing_lower
            truth = ((z / arb(2).sqrt()).erfc() / 2).log()
            loss = truth - arb(self.phibar_lo).log()
            if not loss.is_finite():
                raise ValueError("the region route's loss is not finite")
            s = rational_above(loss, 120)
        return max(s, fmpq(1, 10 ** 25))


def _fixpoints() -> list[Definition]:
    return [
        Definition(PRIM, f"match d with nil => 0 | cons a d' => a * y ^ S n + {PRIM} d' (S n) y end",
                   keyword="Fixpoint", binders="(d : list R) (n : nat) (y : R)",
                   note="sum over k of d_k y^(n+k+1): a polynomial given by its coefficients"),
        Definition(DPRIM, f"match d with nil => 0 | cons a d' => a * INR (S n) * y ^ n + {DPRIM} d' (S n) y end",
                   keyword="Fixpoint", binders="(d : list R) (n : nat) (y : R)",
                   note=f"its derivative in y ({PRIM}_derive)"),
        Definition(HORNER, f"match d with nil => 0 | cons a d' => a + y * {HORNER} d' y end",
                   keyword="Fixpoint", binders="(d : list R) (y : R)",
                   note=f"the same polynomial in Horner form, which interval evaluates faster: {PRIM} d 0 y = y {HORNER} d y"),
        Definition(DHORNER, f"match d with nil => 0 | cons a d' => a * INR (S n) + y * {DHORNER} d' (S n) y end",
                   keyword="Fixpoint", binders="(d : list R) (n : nat) (y : R)",
                   note=f"its derivative in Horner form: {DPRIM} d n y = y^n {DHORNER} d n y"),
        Definition(ZFACT, f"match n with O => 1%Z | S m => (Z.of_nat n * {ZFACT} m)%Z end", type="Z",
                   keyword="Fixpoint", binders="(n : nat)", note="n! in Coq's binary integers"),
    ]


def _generic_lemmas(p: int) -> list:
    """The lemmas every file proves once: calculus facts about G, K and the polynomial form."""
    paper = "a fact of calculus used by the region bound below"
    odd = (p - 1) // 2
    return [
        Definition(PHI, "fun x => exp (- x ^ 2 / 2) / sqrt (2 * PI)", type="R -> R", note="phi, the standard normal density"),
        Definition(G, f"fun x => RInt {PHI} 0 x", type="R -> R",
                   note="G(x) = int_0^x phi, so Phi(x) = 1/2 + G(x) and Phibar(x) = 1/2 - G(x) (the total mass of phi is 1)"),
        Definition(K, f"fun x => (1 - 4 * {G} x ^ 2) ^ {p}", type="R -> R",
                   note="K = (4 Phi (1 - Phi))^p, even in x: E[S] = 2 C(2p, p) 4^-p int_0^inf K"),
        *_fixpoints(),
        Lemma(f"{PRIM}_derive", CLAIM, f"forall d n y, is_derive ({PRIM} d n) y ({DPRIM} d n y)",
              "induction d as [| a d IH]; intros n y; simpl.\n"
              "  - apply (is_derive_const (K := R_AbsRing) (V := R_NormedModule)).\n"
              f"  - apply (is_derive_plus (fun y => a * y ^ S n) ({PRIM} d (S n))).\n"
              "    + auto_derive. * exact I. * rewrite Rmult_1_l, Rmult_assoc. reflexivity.\n"
              "    + apply IH.", paper),
        Lemma(f"{PRIM}_horner", CLAIM, f"forall d n y, {PRIM} d n y = y ^ S n * {HORNER} d y",
              "induction d as [| a d IH]; intros n y; simpl; [ring | rewrite IH; simpl; ring].", paper),
        Lemma(f"{DPRIM}_horner", CLAIM, f"forall d n y, {DPRIM} d n y = y ^ n * {DHORNER} d n y",
              "induction d as [| a d IH]; intros n y; simpl; [ring | rewrite IH; simpl; ring].", paper),
        Lemma(f"{DPRIM}_ex_derive", CLAIM, f"forall d n y, ex_derive ({DPRIM} d n) y",
              "induction d as [| a d IH]; intros n y; simpl.\n"
              "  - apply (ex_derive_const (K := R_AbsRing) (V := R_NormedModule)).\n"
              f"  - apply (ex_derive_plus (fun y => a * INR (S n) * y ^ n) ({DPRIM} d (S n))).\n"
              "    + auto_derive. exact I.\n"
              "    + apply IH.", paper),
        Lemma(f"{PHI}_continuous", CLAIM, f"forall x, continuous {PHI} x",
              f"intros x. apply continuity_pt_filterlim. apply derivable_continuous_pt. unfold {PHI}, Rdiv. reg.", paper),
        Lemma(f"{PHI}_ex_RInt", CLAIM, f"forall a b, ex_RInt {PHI} a b",
              "intros a b. apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros z _. "
              f"apply {PHI}_continuous.", paper),
        Lemma(f"{G}_derive", CLAIM, f"forall x, is_derive {G} x ({PHI} x)",
              f"intros x. apply (is_derive_RInt {PHI} {G} 0 x).\n"
              "  - apply filter_forall. intros b. apply (RInt_correct (V := R_CompleteNormedModule)). "
              f"apply {PHI}_ex_RInt.\n  - apply {PHI}_continuous.", "the fundamental theorem of calculus: G' = phi"),
        Lemma(f"{K}_ex_RInt", CLAIM, f"forall a b, ex_RInt {K} a b",
              "intros a b. apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros z _.\n"
              f"  apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). unfold {K}. auto_derive.\n"
              f"  exists ({PHI} z). apply {G}_derive.", paper),
        Lemma(f"{PHI}_bounds", CLAIM, f"forall x, 0 < {PHI} x <= 1 / 2",
              "intros x. assert (Hs : 2 <= sqrt (2 * PI)) by interval.\n"
              "  assert (He : exp (- x ^ 2 / 2) <= 1).\n"
              "  { rewrite <- exp_0. destruct (Req_dec x 0) as [-> | Hx].\n"
              "    - right. f_equal. field.\n"
              "    - left. apply exp_increasing. assert (0 < x * x) by (apply Rsqr_pos_lt; exact Hx). nra. }\n"
              f"  unfold {PHI}. split.\n"
              "  - apply Rdiv_lt_0_compat; [apply exp_pos | lra].\n"
              "  - unfold Rdiv. apply Rle_trans with (1 * / sqrt (2 * PI)).\n"
              "    + apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat; lra | exact He].\n"
              "    + interval.", "0 < phi <= phi(0) = 1/sqrt(2 pi) < 1/2"),
        Lemma(f"{G}_monotone", CLAIM, f"forall a b, a <= b -> RInt {PHI} 0 a <= RInt {PHI} 0 b",
              f"intros a b Hab. rewrite <- (RInt_Chasles {PHI} 0 a b) by apply {PHI}_ex_RInt.\n"
              f"  change (plus (RInt {PHI} 0 a) (RInt {PHI} a b)) with (RInt {PHI} 0 a + RInt {PHI} a b).\n"
              f"  assert (0 <= RInt {PHI} a b); [ | lra].\n"
              f"  apply RInt_ge_0; [exact Hab | apply {PHI}_ex_RInt | intros x _; apply Rlt_le, {PHI}_bounds].",
              "G is nondecreasing (phi > 0), so Phibar = 1/2 - G is nonincreasing"),
        Lemma("region_odd_pow_le", CLAIM, "forall n x y, Nat.Odd n -> x <= y -> x ^ n <= y ^ n",
              "intros n x y [m ->] Hxy.\n"
              "  assert (E : forall z, z ^ (2 * m + 1) = z * (z ^ 2) ^ m) by (intros z; rewrite pow_add, pow_mult; ring).\n"
              "  rewrite !E.\n"
              "  assert (Hx2 : 0 <= (x ^ 2) ^ m) by (apply pow_le; nra).\n"
              "  assert (Hy2 : 0 <= (y ^ 2) ^ m) by (apply pow_le; nra).\n"
              "  destruct (Rle_dec 0 x) as [Hx | Hx].\n"
              "  - assert ((x ^ 2) ^ m <= (y ^ 2) ^ m) by (apply pow_incr; nra). nra.\n"
              "  - destruct (Rle_dec 0 y) as [Hy | Hy].\n"
              "    + nra.\n"
              "    + assert ((y ^ 2) ^ m <= (x ^ 2) ^ m) by (apply pow_incr; nra). nra.",
              "an odd power is increasing on the reals"),
        Lemma(f"{K}_at_most_one", CLAIM, f"forall x, {K} x <= 1",
              f"intros x. unfold {K}. rewrite <- (pow1 {p}). apply region_odd_pow_le.\n"
              f"  - exists {odd}%nat. reflexivity.\n  - nra.", f"1 - 4 G^2 <= 1 and p = {p} is odd"),
        Lemma("region_lower_form_derive", CLAIM,
              f"forall d c0 dl e (x : R), is_derive (fun x => 1 / 2 - {PHI} x * (c0 + x * {HORNER} d x + dl) - e * x) x "
              f"({PHI} x * (x * (c0 + x * {HORNER} d x + dl) - {DHORNER} d 0 x) - e)",
              f"intros d c0 dl e x.\n"
              f"  apply (is_derive_ext (fun x => 1 / 2 - {PHI} x * (c0 + {PRIM} d 0 x + dl) - e * x)).\n"
              f"  {{ intros t. rewrite {PRIM}_horner, pow_1. reflexivity. }}\n"
              f"  replace (x * {HORNER} d x) with ({PRIM} d 0 x) by (rewrite {PRIM}_horner; ring).\n"
              f"  replace ({DHORNER} d 0 x) with ({DPRIM} d 0 x) by (rewrite {DPRIM}_horner; ring).\n"
              f"  unfold {PHI}. auto_derive.\n"
              f"  - repeat split; try exact I. exists ({DPRIM} d 0 x). apply {PRIM}_derive.\n"
              f"  - replace (Derive (fun x : R => {PRIM} d 0 x) x) with ({DPRIM} d 0 x).\n"
              "    + replace (- (x * (x * 1)) * / 2) with (- x ^ 2 / 2) by (unfold Rdiv; ring).\n"
              "      field. apply Rgt_not_eq, sqrt_lt_R0. generalize PI_RGT_0. lra.\n"
              f"    + symmetry. apply is_derive_unique. apply {PRIM}_derive.",
              "(1/2 - phi (P + delta) - eps x)' = phi (x (P + delta) - P') - eps, as phi' = -x phi"),
        Lemma("region_lower_form_continuous", CLAIM,
              f"forall d c0 dl e (x : R), continuous (fun x => {PHI} x * (x * (c0 + x * {HORNER} d x + dl) - "
              f"{DHORNER} d 0 x) - e) x",
              f"intros d c0 dl e x.\n"
              f"  apply (continuous_ext (fun x => {PHI} x * (x * (c0 + {PRIM} d 0 x + dl) - {DPRIM} d 0 x) - e)).\n"
              f"  {{ intros t. rewrite {PRIM}_horner, {DPRIM}_horner, pow_1, pow_O, Rmult_1_l. reflexivity. }}\n"
              f"  apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). unfold {PHI}.\n"
              f"  auto_derive. repeat split; try exact I.\n"
              f"  - exists ({DPRIM} d 0 x). apply {PRIM}_derive.\n  - apply {DPRIM}_ex_derive.", paper),
        Lemma("region_residual_le", CLAIM,
              f"forall x q eta e, q - 1 <= eta -> 0 <= eta -> e = eta / 2 -> {PHI} x * q - e <= {PHI} x",
              f"intros x q eta e Hq Heta He. generalize ({PHI}_bounds x). intros [H0 H1]. nra.",
              "phi (q - 1) <= phi eta <= eta/2 = e, as 0 < phi <= 1/2"),
        Lemma("region_G_lower", CLAIM,
              f"forall (l L : R -> R) A, L 0 <= 0 -> (forall t, is_derive L t (l t)) -> (forall t, continuous l t) -> "
              f"(forall t, 0 <= t <= A -> l t <= {PHI} t) -> forall x, 0 <= x <= A -> L x <= {G} x",
              "intros l L A H0 HL Hl Hphi x Hx.\n"
              "  assert (HI : is_RInt l 0 x (minus (L x) (L 0))).\n"
              "  { apply (is_RInt_derive L l). - intros t _. apply HL. - intros t _. apply Hl. }\n"
              f"  assert (Hle : RInt l 0 x <= RInt {PHI} 0 x).\n"
              f"  {{ apply RInt_le. - lra. - exists (minus (L x) (L 0)). exact HI. - apply {PHI}_ex_RInt.\n"
              "    - intros t Ht. apply Hphi. lra. }\n"
              "  rewrite (is_RInt_unique _ _ _ _ HI) in Hle.\n"
              f"  change (minus (L x) (L 0)) with (L x - L 0) in Hle. unfold {G}. lra.",
              "G - L is nondecreasing on [0, A] (its derivative phi - l >= 0) and >= 0 at 0: G(0) = 0 >= L(0)"),
    ]


def coefficient_list(coefficients) -> str:
    """Exact rationals as a Coq list (cons cells: no list notation is imported)."""
    terms = [real(c) for c in coefficients]
    return "".join(f"cons {term} (" for term in terms) + "nil" + ")" * len(terms)


def binomial_items(p: int) -> list:
    """The Definition of C(2p, p) = (2p)! / (p!)^2 in Coq's integers and the lemma computing it (vm_compute)."""
    return [
        Definition(BINOMIAL, f"IZR (Z.div ({ZFACT} {2 * p}) ({ZFACT} {p} * {ZFACT} {p}))",
                   note="C(2p, p) = (2p)! / (p!)^2"),
        Lemma(f"{BINOMIAL}_value", CLAIM,
              f"{BINOMIAL} = {math.comb(2 * p, p)} /\\ Z.modulo ({ZFACT} {2 * p}) ({ZFACT} {p} * {ZFACT} {p}) = 0%Z",
              # apply f_equal, then vm_compute on the integer goal alone: `[f_equal | ]; vm_compute` took 20 times as long
              f"unfold {BINOMIAL}. split; [apply f_equal; vm_compute; reflexivity | vm_compute; reflexivity].",
              "the central binomial coefficient, computed (the division is exact)"),
    ]


def _specific(document: dict, proof: RegionProof) -> list:
    """The lemmas of this p: Lo <= G on [0, A], the integral, the tail, E[S] <= U, Phibar(c_p U) >= Phb."""
    p, A, x0 = proof.p, real(proof.A), real(X0)
    c0, delta, eps, eta = (real(v) for v in (proof.coefficients[0], proof.delta, proof.eps, proof.eta))
    degree = len(proof.coefficients) - 1
    P = f"({c0} + x * {HORNER} {MILLS} x + {delta})"
    lo_body = f"1 / 2 - {PHI} x * {P} - {eps} * x"
    integrand = f"(fun x => (1 - 4 * {LO} x ^ 2) ^ {p})"
    U, I, T = real(proof.spacing_hi), real(proof.integral_hi), real(proof.tail_hi)
    z = f"(sqrt ({p} / (2 * ({p} - 1))) * {U})"
    z_bound = f"(sqrt ({p} / (2 * ({p} - 1))) * {SPACING})"
    scale = f"(2 * {BINOMIAL} / 4 ^ {p})"
    unfold = f"unfold {LO}, {PHI}, {MILLS}. cbn [{HORNER}]."
    paper_lo = "Lo = 1/2 - phi (P + delta) - eps x <= G on [0, A], P a polynomial close to the Mills ratio M = Phibar/phi"
    return [
        Definition(MILLS, coefficient_list(proof.coefficients[1:]), type="list R",
                   note=f"P(x) = c0 + sum_k d_k x^(k+1), degree {degree}: Chebyshev interpolation of the Mills ratio "
                        f"on [0, A], its coefficients rounded to 30 digits (any polynomial serves: the lemmas below "
                        f"prove what it must satisfy)"),
        Definition(LO, f"fun x => {lo_body}", type="R -> R", note=paper_lo),
        Definition(DLO, f"fun x => {PHI} x * (x * {P} - {DHORNER} {MILLS} 0 x) - {eps}", type="R -> R",
                   note="its derivative"),
        Lemma(f"{LO}_derive", CLAIM, f"forall x : R, is_derive {LO} x ({DLO} x)",
              "intros x. apply region_lower_form_derive.", "Lo' = dLo"),
        Lemma(f"{LO}_at_0", CLAIM, f"{LO} 0 <= 0", f"{unfold} interval with (i_prec 120).",
              "P(0) + delta >= M(0) = sqrt(pi/2), so Lo(0) <= 0 = G(0)"),
        Lemma("region_mills_residual", CLAIM,
              f"forall x, 0 <= x <= {A} -> x * {P} - {DHORNER} {MILLS} 0 x - 1 <= {eta}",
              f"intros x Hx. unfold {MILLS}. cbn [{HORNER} {DHORNER} INR]. "
              f"interval with (i_taylor x, i_degree {degree + 1}, i_prec 120, i_bisect x).",
              "the residual of M' = x M - 1 for P + delta is at most eta on [0, A]"),
        Lemma(f"{DLO}_below_phi", CLAIM, f"forall x, 0 <= x <= {A} -> {DLO} x <= {PHI} x",
              f"intros x Hx. unfold {DLO}. apply (region_residual_le x _ {eta}); "
              "[apply region_mills_residual, Hx | lra | lra].", "Lo' <= phi on [0, A]"),
        Lemma(f"{LO}_below_G", CLAIM, f"forall x, 0 <= x <= {A} -> {LO} x <= {G} x",
              f"intros x Hx. apply (region_G_lower {DLO} {LO} {A}).\n"
              f"  - exact {LO}_at_0.\n  - exact {LO}_derive.\n"
              f"  - intros t. apply region_lower_form_continuous.\n  - exact {DLO}_below_phi.\n  - exact Hx.",
              "G - Lo is nondecreasing on [0, A] and >= 0 at 0"),
        Lemma(f"{LO}_nonnegative", CLAIM, f"forall x, {x0} <= x <= {A} -> 0 <= {LO} x",
              f"intros x Hx. {unfold} interval with (i_prec 80, i_bisect x, i_depth 30).",
              "Lo >= 0 on [x0, A], so Lo^2 <= G^2 there"),
        Lemma("region_bound_integral", CLAIM, f"RInt {integrand} {x0} {A} <= {I}",
              f"{unfold} {proof.accuracy.integral_tactic}.", "the integral of the closed-form bound of K over [x0, A]"),
        Lemma("region_K_integral", CLAIM, f"RInt {K} 0 {A} <= {x0} + {I}",
              f"rewrite <- (RInt_Chasles {K} 0 {x0} {A}) by apply {K}_ex_RInt.\n"
              f"  change (plus (RInt {K} 0 {x0}) (RInt {K} {x0} {A})) with (RInt {K} 0 {x0} + RInt {K} {x0} {A}).\n"
              f"  assert (H1 : RInt {K} 0 {x0} <= {x0}).\n"
              f"  {{ apply Rle_trans with (RInt (fun _ => 1) 0 {x0}).\n"
              f"    - apply RInt_le; [lra | apply {K}_ex_RInt | apply ex_RInt_const | intros x _; apply {K}_at_most_one].\n"
              "    - rewrite RInt_const. change (scal (" + x0 + " - 0) 1) with ((" + x0 + " - 0) * 1). lra. }\n"
              f"  assert (H2 : RInt {K} {x0} {A} <= RInt {integrand} {x0} {A}).\n"
              f"  {{ apply RInt_le; [lra | apply {K}_ex_RInt | | ].\n"
              "    - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros z _.\n"
              f"      apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). auto_derive. "
              f"exists ({DLO} z). apply {LO}_derive.\n"
              f"    - intros x Hx. unfold {K}. apply region_odd_pow_le; [exists {(p - 1) // 2}%nat; reflexivity | ].\n"
              f"      assert (H0 := {LO}_nonnegative x ltac:(lra)). assert (HG := {LO}_below_G x ltac:(lra)). nra. }}\n"
              "  generalize region_bound_integral. lra.",
              "K <= 1 on [0, x0]; on [x0, A], 0 <= Lo <= G and p odd give K <= (1 - 4 Lo^2)^p"),
        Lemma("region_tail_factor", CLAIM, f"4 * {PHI} {A} * (1 - 4 * {LO} {A} ^ 2) ^ {p - 1} <= {T}",
              f"{unfold} interval with (i_prec 100).",
              "the tail: int_A^inf K <= 4 phi(A) (1 - 4 G(A)^2)^(p-1) <= 4 phi(A) (1 - 4 Lo(A)^2)^(p-1) "
              "(K <= 4 Phibar (1 - 4 G(A)^2)^(p-1) on [A, inf), int_A^inf Phibar <= phi(A), 0 <= 1 - 4 G^2 "
              "and Lo(A) <= G(A): region_tail_base)"),
        Lemma("region_G_at_A_below_half", CLAIM, f"RInt {PHI} 0 {A} <= 1 / 2",
              f"unfold {PHI}. {HALF_TACTIC}.", "G(A) < 1/2 (its margin is Phibar(A) > 0), so 1 - 4 G(A)^2 >= 0"),
        Lemma("region_tail_base", CLAIM, f"0 <= 1 - 4 * {G} {A} ^ 2 <= 1 - 4 * {LO} {A} ^ 2",
              f"assert (H0 := {LO}_nonnegative {A} ltac:(lra)). assert (HG := {LO}_below_G {A} ltac:(lra)).\n"
              f"  assert (Hh := region_G_at_A_below_half). unfold {G} in *. nra.",
              "0 <= Lo(A) <= G(A) <= 1/2"),
        *binomial_items(p),
        Definition(SPACING, f"{scale} * (RInt {K} 0 {A} + 4 * {PHI} {A} * (1 - 4 * {G} {A} ^ 2) ^ {p - 1})",
                   note="an upper bound of E[S]: E[S] = 2 C(2p, p) 4^-p (int_0^A K + int_A^inf K) (the law of the middle "
                        "spacing S of 2p normals), and int_A^inf K <= 4 phi(A) (1 - 4 G(A)^2)^(p-1) (K <= 4 Phibar "
                        "(1 - 4 G(A)^2)^(p-1) on [A, inf), int_A^inf Phibar <= phi(A)): paper-level, not formalised"),
        Lemma("region_spacing_bound_upper", CLAIM, f"{SPACING} <= {U}",
              f"unfold {SPACING}. destruct {BINOMIAL}_value as [HC _]. rewrite HC.\n"
              f"  assert (H := region_K_integral). assert (HT := region_tail_factor).\n"
              f"  destruct region_tail_base as [Hb0 Hb1].\n"
              f"  assert (Hp : (1 - 4 * {G} {A} ^ 2) ^ {p - 1} <= (1 - 4 * {LO} {A} ^ 2) ^ {p - 1}) by (apply pow_incr; lra).\n"
              f"  assert (Hphi := {PHI}_bounds {A}).\n"
              f"  assert (Ht : 4 * {PHI} {A} * (1 - 4 * {G} {A} ^ 2) ^ {p - 1} <= {T}).\n"
              f"  {{ apply Rle_trans with (4 * {PHI} {A} * (1 - 4 * {LO} {A} ^ 2) ^ {p - 1}); [ | exact HT].\n"
              "    apply Rmult_le_compat_l; [lra | exact Hp]. }\n"
              f"  interval_intro (2 * {proof.binomial} / 4 ^ {p}) as Hs.\n"
              f"  apply Rle_trans with (2 * {proof.binomial} / 4 ^ {p} * ({x0} + {I} + {T})).\n"
              "  - apply Rmult_le_compat_l; lra.\n  - interval with (i_prec 200).",
              "the bound of E[S] above is at most U: the integral over [0, A] (region_K_integral) and the tail "
              "(region_tail_factor, region_tail_base)"),
        Lemma("region_phibar_lower", CLAIM, f"{real(proof.phibar_lo)} <= 1 / 2 - RInt {PHI} 0 {z}",
              f"unfold {PHI}. {proof.accuracy.phibar_tactic}.", "Phibar(c_p U) = 1/2 - G(c_p U) >= Phb"),
        Lemma("region_phibar_at_spacing_bound", CLAIM, f"{real(proof.phibar_lo)} <= 1 / 2 - RInt {PHI} 0 {z_bound}",
              f"assert (H := region_phibar_lower). assert (HU := region_spacing_bound_upper).\n"
              f"  assert (Hc : 0 <= sqrt ({p} / (2 * ({p} - 1)))) by apply sqrt_pos.\n"
              f"  assert (Hm := region_G_monotone {z_bound} {z} ltac:(apply Rmult_le_compat_l; assumption)).\n"
              "  lra.", "Phibar is decreasing (region_G_monotone): Phibar(c_p E) >= Phibar(c_p U) >= Phb for E <= U"),
    ]


#: The paper-level chain every claim lemma of this route rests on (docs/mathematics.md, 'Region probability of the
#: dead theorem'); smooth's comments put the inclusion R_dead in R_smooth in front of it
JENSEN_CHAIN = ("P(R_dead | active) = E[Phibar(c_p S)] / (C(2p, p) - 1) >= Phibar(c_p E[S]) / (C(2p, p) - 1) (the "
                "ordering identity, Jensen for the convex Phibar) >= Phibar(c_p E) / (C(2p, p) - 1), "
                f"E = {SPACING} >= E[S] (its definition's comment) and Phibar decreasing")


@functools.lru_cache(maxsize=None)
def region_proof(p: int, accuracy: RouteAccuracy = FULL) -> RegionProof:
    """The proof's numbers at p, computed once per process (about a second of mpmath; they depend on p and the
    accuracy only)."""
    return RegionProof(p, accuracy)


def dead_region_lemmas(document: dict) -> list:
    """The lemmas of a dead certificate's ``region_probability`` claim (module docstring); ValueError when
    the claim is not the lower bound with a log10 twin they are written for."""
    from ..kernel.region import expected_spacing_upper

    _require_twin(document)
    p = int(document["p"])
    proof = region_proof(p)
    paper = f"docs/mathematics.md, 'Region probability of the dead theorem': {JENSEN_CHAIN}"
    lowering = Lowering(proof.slack(expected_spacing_upper(p, 128).lower()),
                        "lo lowered by a relative 4 s (s what this route loses against the Jensen value)",
                        "log10_lo lowered by 4 s/ln 10")
    return _route_lemmas(document, proof, paper, lowering)


#: smooth's route must exceed the kernel's own bound of R_smooth by at least this relative margin, so that the claim
#: lemmas can state the certificate's lo and log10_lo in full
SMOOTH_MARGIN = mpmath.mpf("1e-9")


def smooth_region_lemmas(document: dict) -> list:
    """The lemmas of a smooth certificate's ``region_probability`` claim: R_dead is contained in R_smooth (J(s) <=
    s^2/2 for every s > 0: (A.61) up to eps, J(eps) + (s^2 - eps^2)/2 beyond; docs/mathematics.md, 'Region
    probability of the dead theorem', (k)), so the dead route at :data:`COARSE` accuracy bounds P(R_smooth | active)
    from below.

    ValueError (the claim is then listed as not exported) when the claim is not a lower bound with a log10 twin, or
    when the kernel's bound of R_smooth, recomputed here from the certificate's parameters (never its lo), is not
    below the route's number by :data:`SMOOTH_MARGIN`: sigma/eps so large that the dead-zone relaxation adds
    measurable mass beyond R_dead. The claim lemmas state the certificate's lo and log10_lo in full; an honest one
    lies below the route's number, and a lo (or log10_lo) above it meets a lemma coqc refuses. The route's own
    lemmas (its COARSE integrals) are compiled at the 11 library primes (tests/test_coq_library.py).
    """
    from ..kernel.balls import upper_endpoint
    from ..kernel.region import REGION_PRECISION, smooth_region_claim_log_lower
    from ..kernel.smooth import dead_zone_integral

    _require_twin(document)
    p = int(document["p"])
    parameters = document["parameters"]
    sigma = number(parameters["sigma"], "parameters.sigma")
    eps = number(parameters["eps_smooth"], "parameters.eps_smooth")
    proof = region_proof(p, COARSE)
    _, j_eps = dead_zone_integral(eps, eps, REGION_PRECISION)
    kernel_log = smooth_region_claim_log_lower(p, sigma, eps, upper_endpoint(j_eps))
    with mpmath.workdps(DPS):
        route_log = mpmath.log(_mp(proof.phibar_lo) / (proof.binomial - 1))
        if not _mp(kernel_log.mid().str(40, radius=False)) < route_log + mpmath.log(1 - SMOOTH_MARGIN):
            raise ValueError("the kernel's bound of R_smooth is not below the dead region's Jensen bound that this "
                             "route proves (the dead-zone relaxation adds mass beyond R_dead at these sigma, eps)")
    paper = ("docs/mathematics.md, 'Region probability of the dead theorem', (k): R_dead is contained in R_smooth, as "
             f"J(s) <= s^2/2 for every s > 0 ((A.61) for s <= eps = {real(eps)}, J(eps) + (s^2 - eps^2)/2 beyond), so "
             f"P(R_smooth | active) >= {JENSEN_CHAIN}")
    return _route_lemmas(document, proof, paper, None)


def _require_twin(document: dict, claim: str = CLAIM, component: str | None = None) -> None:
    """ValueError unless ``claim`` (its ``component``) is a lower bound with its log10 twin, both fields present: what
    every region route's claim lemmas are written for (the claim is then listed as not exported)."""
    node = document["claims"][claim] if component is None else document["claims"][claim]["components"][component]
    if relation(document, claim, component).keys() != ("lo", "log10_lo") or not {"lo", "log10_lo"} <= set(node):
        where = claim if component is None else f"{claim}.{component}"
        raise ValueError(f"{where}: not a lower bound with its log10 twin")


#: The calculus facts of :func:`_generic_lemmas` (phi, G, the polynomial forms and their derivatives) that the slide
#: and gd routes use too
SHARED_CALCULUS = frozenset({
    PHI, G, PRIM, DPRIM, HORNER, DHORNER, ZFACT, f"{PRIM}_derive", f"{PRIM}_horner", f"{DPRIM}_horner",
    f"{DPRIM}_ex_derive", f"{PHI}_continuous", f"{PHI}_ex_RInt", f"{G}_derive", f"{PHI}_bounds"})


def shared_calculus_lemmas(p: int) -> list:
    """The items of :data:`SHARED_CALCULUS`, in :func:`_generic_lemmas`' order."""
    return [item for item in _generic_lemmas(p) if item.name in SHARED_CALCULUS]


def stated_lo(node: dict) -> str:
    """The claim's lo as a Coq term (ValueError unless it is a positive decimal): an honest lo lies below
    1/(C(2p, p) - 1), so its exponent is negative; a forged whole number is written too, and refused."""
    value = exact_number(node["lo"], f"{CLAIM}.lo")
    if value.denominator != 1 or value.numerator <= 0:
        raise ValueError(f"{CLAIM}.lo is not a positive decimal")
    return f"{value.numerator} / 10 ^ {-value.exp10}" if value.exp10 < 0 else f"{value.numerator} * 10 ^ {value.exp10}"


def lowered_ends(node: dict, slack: fmpq, stem: str, where: str) -> tuple:
    """((lo lemma name, log10_lo lemma name), (lo, log10_lo) as Coq terms, (digits, log10 digits)): the ends of a
    lower bound ``node`` with its log10 twin lowered by the relative ``slack`` (certify.coq.gaussian's rule: digits
    fixed by the slack alone), the names ``stem``_lo_K_digits and ``stem``_log10_lo_K_digits; ``where`` names the
    fields in errors."""
    (mantissa, exponent), digits = lowered_lo(node["lo"], slack, f"{where}.lo")
    log10_end, log10_digits = lowered_log10(number(node["log10_lo"], f"{where}.log10_lo"), slack)
    return ((f"{stem}_lo_{digits}_digits", f"{stem}_log10_lo_{log10_digits}_digits"),
            (f"{mantissa} / 10 ^ {exponent}", real(log10_end)), (digits, log10_digits))


def claim_lemmas(names: tuple[str, str], ends: tuple[str, str], bound: str, proved: str, proof_of_bound: str,
                 comments: tuple[str, str], digits: tuple, claim: str = CLAIM) -> list:
    """The two claim lemmas of a region route: ``ends`` (lo, log10_lo as Coq terms) <= ``bound`` = N / (C(2p, p) - 1)
    and its log10, through the route's proved number ``proved`` <= N (the lemma ``proof_of_bound``): lo <=
    proved / (C - 1) by ``interval``, then the division by C - 1 > 0 keeps the order."""
    divide = (f"destruct {BINOMIAL}_value as [HC _]. rewrite HC. unfold Rdiv. "
              f"apply Rmult_le_compat_r; [interval | exact {proof_of_bound}]")
    return [
        Lemma(names[0], claim, f"{ends[0]} <= {bound}",
              f"apply Rle_trans with ({proved} / ({BINOMIAL} - 1)).\n"
              f"  - destruct {BINOMIAL}_value as [HC _]. rewrite HC. interval with (i_prec 200).\n"
              f"  - {divide}.",
              comments[0], digits[0]),
        Lemma(names[1], claim, f"{ends[1]} <= ln {bound} / ln 10",
              f"apply Rle_trans with (ln ({proved} / ({BINOMIAL} - 1)) / ln 10).\n"
              f"  - destruct {BINOMIAL}_value as [HC _]. rewrite HC. interval with (i_prec 200).\n"
              f"  - unfold Rdiv at 1 3. apply Rmult_le_compat_r; [interval | ]. apply ln_le.\n"
              f"    + destruct {BINOMIAL}_value as [HC _]. rewrite HC. interval.\n"
              f"    + {divide}.",
              comments[1], digits[1]),
    ]


class Lowering(NamedTuple):
    """How a claim lemma weakens the certificate's lo and log10_lo: by the relative ``slack`` (then rounded down),
    with the two phrases its comments say it in."""

    slack: fmpq
    lo_text: str
    log10_text: str


def _route_lemmas(document: dict, proof: RegionProof, paper: str, lowering: Lowering | None) -> list:
    """The route's lemmas at ``proof`` and the two claim lemmas, lo and log10_lo below (1/2 - G(c_p E)) / (C(2p, p) -
    1): weakened as ``lowering`` says, or, when it is None, the certificate's own numbers in full."""
    p = proof.p
    node = document["claims"][CLAIM]
    Phb = real(proof.phibar_lo)
    z = f"(sqrt ({p} / (2 * ({p} - 1))) * {SPACING})"
    bound = f"((1 / 2 - RInt {PHI} 0 {z}) / ({BINOMIAL} - 1))"
    if lowering is None:
        written, digits, log10_digits = stated_lo(node), None, None
        log10_text = real(number(node["log10_lo"], f"{CLAIM}.log10_lo"))
        names = (f"{CLAIM}_lo", f"{CLAIM}_log10_lo")
        texts = tuple(f"{field} as the certificate states it (the kernel's bound, recomputed from the parameters, lies "
                      f"a relative {mpmath.nstr(SMOOTH_MARGIN, 1)} or more below the route's number)"
                      for field in ("lo", "log10_lo"))
    else:
        names, (written, log10_text), (digits, log10_digits) = lowered_ends(node, lowering.slack, CLAIM, CLAIM)
        texts = (f"{lowering.lo_text} and rounded down to {digits} significant digits",
                 f"{lowering.log10_text} and rounded down to {log10_digits} significant digits")
    lemmas = claim_lemmas(names, (written, log10_text), bound, Phb, "region_phibar_at_spacing_bound",
                          tuple(f"{paper}; {text}" for text in texts), (digits, log10_digits))
    return (_generic_lemmas(p) + _specific(document, proof) + landmark_lemmas(document, CLAIM, "lo")
            + twin_lemmas(document, CLAIM) + lemmas)
