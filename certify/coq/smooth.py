"""Coq lemmas of a ``smooth`` certificate (Theorem A.3: the smooth dead-zone activation).

The file defines the paper's objects literally: f(t) = exp(-1/t) for t > 0 and 0 otherwise,
psi(t) = f(t)/(f(t) + f(1-t)), sigma_eps(z) = z psi(z/eps) (A.1), the ratio sigma_eps/sigma_eps'
with Coquelicot's ``Derive``, and J(s0) = int_0^s0 sigma_eps/sigma_eps' ds (A.66) as ``RInt`` of it
(``smooth_J``). It then proves, once per file and in general (no numbers):

* on (0, eps), sigma/sigma'(s) = s phi(s/eps), phi(t) = (R + 1)/(R + 1 + 1/t + t/(1-t)^2),
  R = exp(1/(1-t) - 1/t) (the closed form docs/mathematics.md, 'Smooth dead zone', derives: here by
  auto_derive and field), and sigma/sigma' = 0 for s <= 0;
* 0 <= phi <= 1 on (0, 1) and phi(t) <= 2t on (0, 1/2];
* the ratio is continuous on [0, eps) (at 0 by |ratio(s)| <= |s|), hence integrable on [0, b], b < eps;
* int_0^d ratio lies in [0, 2 d^3/eps] (d <= eps/2), and on [d, b] the ratio is the closed form;
* on (0, 1/40], phi0 <= phi <= phi0 + exp(40/39 - 40) with the rational phi0(t) = t/(t + 1 + t^2/(1-t)^2), so
  on [a, b] with b <= eps/40 the closed form's integral lies between phi0's and it plus b exp(40/39 - 40)(b - a).

J(smax) = int_0^d + int_d^b1 + int_b1^smax (b1 = eps/40): the first by that bound, the second by the phi0
bounds and CoqInterval's ``integral`` on the rational phi0 (fast: no essential singularity), the third by
``integral`` on the closed form (whose singularity at 0 is now out of its way). It proves
``smooth_J_enclosure``, an enclosure of J about 2.3e-16 wide (15 digits, in about 27 s of coqc; docs/coq.md,
'Digits'), whose ends the exporter chooses itself, never from the certificate: python-flint's
``acb.integral`` of each piece, moved outward and rounded outward. The claims computed from J (g_condition,
terminal_displacement_box, purity_gap_box) use that lemma only, so their digit counts and ends do not depend on
what the certificate says about J (a widened J cannot buy a forged g_condition fewer digits); they reach 12 to
14 digits. Each sign the theorem rests on (gmin^2 - J > 0, purity gap > 0, and each claim's lo > 0) is proved
in full. The claim ``dead_zone_integral`` states the certificate's own ends, from the enclosure by lra: an end
outside the enclosure exactly, an end inside it moved outward by twice the enclosure's width and rounded
outward to 15 digits (the lemma's name then says ``15_digits``). A forged end past the truth by more than about
three times the enclosure's width is refused by coqc.

The base point is tied to the parameters by certify.coq.family.base_point_lemmas ((A.48)-(A.49)), so
the box lemmas and the parameter-based lemmas speak of the same point.

Box quantities (certify.kernel.smooth.smooth_box_bounds): smax = epsilon + 2r, gmin = (p-1)(A-2r)/p,
gmax = (p-1)(A+2r)/p, g_* = sqrt(gmin^2 - J), Mmax = min(J/(2 g_*), gmax - g_*),
||w_inf - w_0||_1 <= 2 Mmax, purity gap: certify.coq.family.terminal_purity_gap_term with c_u = B.
Only smax < eps_smooth is written (the library's case: smax = 1.494, eps = 2); otherwise the claims
computed from J are listed as not exported. The claim ``gaussian_probability`` is certify.coq.gaussian's;
``region_probability`` is certify.coq.region's dead route through R_dead in R_smooth (``smooth_region_lemmas``).
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import acb, arb, ctx, fmpq

from .family import FAMILY_BASE_POINT, base_point_lemmas, fourier_fraction_lemmas, single_active_gate_lemmas
from .family import radius as radius_term
from .family import enclosed_atom_proof, terminal_purity_gap_term
from ..errors import CertifyError
from .export import SHARED_CLAIMS
from .lemma import Definition, Lemma, NotExported
from .region import smooth_region_lemmas
from .relations import landmark_lemmas, relation, stated
from .terms import ident, number, real, rmin, round_down, round_up
from .terms import weakened_end as _weakened

WHERE = "(A.48)-(A.49) = (2.1), section A.7"
#: The piece [0, d] of J is bounded by 2 d^3/eps with d = eps * 2^-DELTA_BITS (t = s/eps <= 1/2 there):
#: 2^-87 = 6.5e-27 at eps = 2, far below the enclosure's width.
DELTA_BITS = 30
#: On [d, eps/NEAR_ZERO] (t = s/eps <= 1/40) phi lies between the rational phi0(t) = t/(t + 1 + t^2/(1-t)^2) and
#: phi0 + R(1/40), R(1/40) = exp(40/39 - 40) < 1.2e-17 (smooth_phi_near_zero): that piece of J is the integral of
#: the rational s phi0(s/eps), which `integral` proves in a fraction of a second, where exp(1/(1-t) - 1/t) near
#: t = 0 made it bisect ever deeper (docs/coq.md, 'Digits').
NEAR_ZERO = 40
#: A rational upper bound of R(1/NEAR_ZERO) = exp(40/39 - 40) = 1.1787e-17 (Coq proves it by interval).
R_NEAR_ZERO = fmpq(12, 10**18)
#: Significant digits of J the enclosure gives: the piece on [eps/40, smax] is proved within FAR_WIDTH of
#: python-flint's enclosure (the rational piece within NEAR_WIDTH, which costs nothing), so J's enclosure is
#: about 2.3e-16 wide (J ~ 0.3: 15 digits). The claims computed from J need at most 4e-16 for 12 digits each
#: at every library prime (the purity gap amplifies J's relative error about 30 times; measured, docs/coq.md).
J_DIGITS = 15
FAR_WIDTH = fmpq(1, 2**53)
NEAR_WIDTH = fmpq(1, 2**66)
#: The integral of each piece (the goal's ends guide it). Measured on p = 5 (docs/coq.md, 'Digits'): the closed
#: form on [eps/40, smax] within 1.1e-16 in about 27 s; the rational piece on [d, eps/40] in about 0.1 s.
J_INTEGRAL = "integral with (i_prec 64, i_degree 10, i_fuel 200)"

PAPER_J = ("(A.66): J(s0) = int_0^s0 sigma_eps/sigma_eps' ds, J increasing in s0 and s0 <= smax = epsilon + 2r "
           "on the box; sigma/sigma' = s phi(s/eps) on (0, eps) (docs/mathematics.md, 'Smooth dead zone')")

_PHI = "(exp (1 / (1 - t) - 1 / t) + 1) / (exp (1 / (1 - t) - 1 / t) + 1 + 1 / t + t / (1 - t) ^ 2)"

DEFINITIONS = (
    Definition("smooth_phi", f"fun t => {_PHI}", "R -> R",
               "phi(t) = (R + 1)/(R + 1 + 1/t + t/(1-t)^2), R = f(t)/f(1-t) = exp(1/(1-t) - 1/t): "
               "sigma_eps/sigma_eps'(s) = s phi(s/eps) for 0 < s < eps (docs/mathematics.md, 'Smooth dead zone')"),
    Definition("smooth_phi0", "fun t => t / (t + 1 + t ^ 2 / (1 - t) ^ 2)", "R -> R",
               "phi0(t) = 1/(1 + 1/t + t/(1-t)^2): phi with R = 0, a rational function; phi0 <= phi <= phi0 + R "
               "(smooth_phi_near_zero)"),
    Definition("smooth_f", "fun t => if Rlt_dec 0 t then exp (- (1 / t)) else 0", "R -> R",
               "f(t) = exp(-1/t) for t > 0, 0 for t <= 0 (Theorem A.3's fixed choice)"),
    Definition("smooth_psi", "fun t => smooth_f t / (smooth_f t + smooth_f (1 - t))", "R -> R",
               "psi(t) = f(t)/(f(t) + f(1-t))"),
    Definition("smooth_sigma", "fun e z => z * smooth_psi (z / e)", "R -> R -> R",
               "sigma_eps(z) = z psi(z/eps) (A.1)"),
    Definition("smooth_ratio", "fun e s => smooth_sigma e s / Derive (smooth_sigma e) s", "R -> R -> R",
               "sigma_eps/sigma_eps' (Coquelicot's Derive; only its values on (0, smax) enter J)"),
    Definition("smooth_J", "fun e s0 => RInt (smooth_ratio e) 0 s0", "R -> R -> R",
               "J(s0) = int_0^s0 sigma_eps/sigma_eps' ds (A.66)"),
)

_UNIT = "(split; [apply Rdiv_lt_0_compat; lra | apply (proj1 (Rdiv_lt_1 s e ltac:(lra))); lra])"

#: (name, statement, proof, paper) of the general lemmas about the ratio, proved once per file.
HELPERS = (
    ("smooth_phi_den_pos", "forall t, 0 < t < 1 -> 0 < exp (1 / (1 - t) - 1 / t) + 1 + 1 / t + t / (1 - t) ^ 2",
     """intros t Ht.
  assert (HX : 0 < exp (1 / (1 - t) - 1 / t)) by apply exp_pos.
  assert (H1 : 0 < 1 / t) by (apply Rdiv_lt_0_compat; lra).
  assert (H2 : 0 <= t / (1 - t) ^ 2) by (apply Rlt_le, Rdiv_lt_0_compat; [lra | apply pow_lt; lra]).
  lra.""", "the denominator of phi is positive on (0, 1)"),
    ("smooth_phi_range", "forall t, 0 < t < 1 -> 0 <= smooth_phi t <= 1",
     """intros t Ht. unfold smooth_phi.
  set (X := exp (1 / (1 - t) - 1 / t)).
  assert (HX : 0 < X) by apply exp_pos.
  assert (H1 : 0 < 1 / t) by (apply Rdiv_lt_0_compat; lra).
  assert (H2 : 0 <= t / (1 - t) ^ 2) by (apply Rlt_le, Rdiv_lt_0_compat; [lra | apply pow_lt; lra]).
  split.
  - apply Rlt_le, Rdiv_lt_0_compat; lra.
  - apply (Rdiv_le_1 (X + 1)); lra.""", "0 <= phi <= 1 on (0, 1): sigma/sigma' <= s, whence J(s0) <= s0^2/2 (A.61)"),
    ("smooth_phi_small", "forall t, 0 < t <= 1 / 2 -> smooth_phi t <= 2 * t",
     """intros t Ht. unfold smooth_phi.
  assert (Ha : 1 / (1 - t) <= 2) by (apply Rle_div_l; lra).
  assert (Ht1 : t * (1 / t) = 1) by (field; lra).
  assert (H1 : 0 < 1 / t) by (apply Rdiv_lt_0_compat; lra).
  assert (Hb : 2 <= 1 / t) by nra.
  assert (HR : exp (1 / (1 - t) - 1 / t) <= 1) by (apply Rle_trans with (exp 0); [apply Raux.exp_le; lra | rewrite exp_0; lra]).
  set (X := exp (1 / (1 - t) - 1 / t)) in *.
  set (Y := t / (1 - t) ^ 2).
  assert (HX : 0 < X) by apply exp_pos.
  assert (H2 : 0 <= Y) by (apply Rlt_le, Rdiv_lt_0_compat; [lra | apply pow_lt; lra]).
  apply Rle_div_l; [lra |].
  assert (H3 : 0 <= t * X) by nra. assert (H4 : 0 <= t * Y) by nra.
  nra.""", "for 0 < t <= 1/2, R <= 1 and phi <= 2/(2 + 1/t) <= 2t (docs/mathematics.md, 'the two proved tail bounds')"),
    ("smooth_ratio_closed", "forall e s, 0 < e -> 0 < s < e -> smooth_ratio e s = s * smooth_phi (s / e)",
     f"""intros e s He Hs. unfold smooth_ratio.
  assert (Ht : 0 < s / e < 1) by {_UNIT}.
  set (g := fun x => x * (exp (- (1 / (x / e))) / (exp (- (1 / (x / e))) + exp (- (1 / (1 - x / e)))))).
  assert (Hloc : locally s (fun x => smooth_sigma e x = g x)).
  {{ assert (Hd : 0 < Rmin s (e - s)) by (apply Rmin_glb_lt; lra).
    exists (mkposreal _ Hd). intros y Hy. unfold ball in Hy; simpl in Hy;
      unfold AbsRing_ball, abs, minus, plus, opp in Hy; simpl in Hy.
    apply Rabs_def2 in Hy. destruct Hy as [Hy1 Hy2].
    assert (Hm1 := Rmin_l s (e - s)). assert (Hm2 := Rmin_r s (e - s)).
    assert (Hy : 0 < y / e < 1) by (split; [apply Rdiv_lt_0_compat; lra | apply (proj1 (Rdiv_lt_1 y e ltac:(lra))); lra]).
    unfold smooth_sigma, smooth_psi, smooth_f, g.
    destruct (Rlt_dec 0 (y / e)); [|lra]. destruct (Rlt_dec 0 (1 - y / e)); [reflexivity|lra]. }}
  rewrite (Derive_ext_loc _ _ _ Hloc).
  rewrite (locally_singleton _ _ Hloc).
  evar (l : R).
  assert (Hd : is_derive g s l).
  {{ unfold g. auto_derive.
    - change (s * / e) with (s / e). set (t := s / e) in *.
      repeat split; try (apply Rgt_not_eq; lra).
      apply Rgt_not_eq. pose proof (exp_pos (- (1 * / t))). pose proof (exp_pos (- (1 * / (1 + - t)))). lra.
    - unfold l. reflexivity. }}
  rewrite (is_derive_unique _ _ _ Hd). unfold l, g, smooth_phi.
  change (s * / e) with (s / e).
  assert (Hs' : s = (s / e) * e) by (field; lra).
  set (t := s / e) in *. clearbody t.
  assert (HE : exp (- (1 / t)) / exp (- (1 / (1 - t))) = exp (1 / (1 - t) - 1 / t)).
  {{ unfold Rdiv. rewrite <- exp_Ropp, <- exp_plus. f_equal. field. lra. }}
  rewrite <- HE.
  set (a := exp (- (1 / t))) in *. set (b := exp (- (1 / (1 - t)))) in *.
  change (exp (- (1 * / t))) with a. change (exp (- (1 * / (1 + - t)))) with b.
  assert (Ha : 0 < a) by apply exp_pos. assert (Hb : 0 < b) by apply exp_pos.
  assert (Hu : 0 < (1 + - t) * (1 + - t)) by nra.
  assert (Hu2 : 0 < (1 - t) ^ 2) by (apply pow_lt; lra).
  assert (P1 : 0 < a * ((1 + - t) * (1 + - t) * (t * (a + b)))) by (repeat apply Rmult_lt_0_compat; nra).
  assert (P2 : 0 < a * ((1 + - t) * (1 + - t) * b)) by (repeat apply Rmult_lt_0_compat; nra).
  assert (P3 : 0 < a * b * (t * t)) by (repeat apply Rmult_lt_0_compat; nra).
  assert (P4 : 0 < ((a + b) * t + b) * (1 - t) ^ 2) by (repeat apply Rmult_lt_0_compat; nra).
  assert (P5 : 0 < t * (b * t)) by (repeat apply Rmult_lt_0_compat; nra).
  rewrite Hs'. field. repeat split; apply Rgt_not_eq; lra.""",
     "on (0, eps), sigma_eps/sigma_eps'(s) = s phi(s/eps), phi(t) = (R+1)/(R+1+1/t+t/(1-t)^2), R = f(t)/f(1-t) "
     "(docs/mathematics.md, 'Smooth dead zone': derived, and proved here from the definitions)"),
    ("smooth_ratio_nonpos", "forall e s, 0 < e -> s <= 0 -> smooth_ratio e s = 0",
     """intros e s He Hs. unfold smooth_ratio, smooth_sigma, smooth_psi, smooth_f.
  assert (Hi : 0 < / e) by (apply Rinv_0_lt_compat; lra).
  assert (Ht : s / e <= 0) by (unfold Rdiv; nra).
  destruct (Rlt_dec 0 (s / e)); [lra|]. unfold Rdiv. ring.""",
     "for s <= 0, f(s/eps) = 0, so sigma_eps(s) = 0 and so is sigma/sigma'"),
    ("smooth_ratio_range", "forall e s, 0 < e -> 0 < s < e -> 0 <= smooth_ratio e s <= s",
     f"""intros e s He Hs. rewrite smooth_ratio_closed by lra.
  assert (Ht : 0 < s / e < 1) by {_UNIT}.
  destruct (smooth_phi_range _ Ht). split; [apply Rmult_le_pos; lra|].
  apply Rle_trans with (s * 1); [apply Rmult_le_compat_l; lra | lra].""",
     "0 <= sigma/sigma' <= s on (0, eps)"),
    ("smooth_ratio_abs", "forall e s, 0 < e -> s < e -> Rabs (smooth_ratio e s) <= Rabs s",
     """intros e s He Hse.
  destruct (Rle_dec s 0) as [H|H].
  - rewrite smooth_ratio_nonpos by lra. rewrite Rabs_R0. apply Rabs_pos.
  - destruct (smooth_ratio_range e s He) as [H1 H2]; [lra|]. rewrite !Rabs_right; lra.""",
     "|sigma/sigma'(s)| <= |s| for s < eps"),
    ("smooth_ratio_continuous_0", "forall e, 0 < e -> continuous (smooth_ratio e) 0",
     """intros e He. apply continuity_pt_filterlim.
  intros eps Heps. exists (Rmin eps e). split; [apply Rmin_glb_lt; lra|].
  intros x [_ Hx]. simpl in *. unfold R_dist in *.
  assert (Hm1 := Rmin_l eps e). assert (Hm2 := Rmin_r eps e).
  rewrite (smooth_ratio_nonpos e 0 He) by lra. rewrite Rminus_0_r. rewrite Rminus_0_r in Hx.
  assert (Hxe : x < e) by (apply Rabs_def2 in Hx; lra).
  apply Rle_lt_trans with (Rabs x); [apply smooth_ratio_abs|]; lra.""",
     "sigma/sigma' is continuous at 0 (it is squeezed by |s|)"),
    ("smooth_ratio_continuous", "forall e s, 0 < e -> 0 < s < e -> continuous (smooth_ratio e) s",
     f"""intros e s He Hs.
  apply (continuous_ext_loc _ (fun x => x * smooth_phi (x / e))).
  - assert (Hd : 0 < Rmin s (e - s)) by (apply Rmin_glb_lt; lra).
    exists (mkposreal _ Hd). intros y Hy. unfold ball in Hy; simpl in Hy;
      unfold AbsRing_ball, abs, minus, plus, opp in Hy; simpl in Hy.
    apply Rabs_def2 in Hy. destruct Hy as [Hy1 Hy2].
    assert (Hm1 := Rmin_l s (e - s)). assert (Hm2 := Rmin_r s (e - s)).
    symmetry. apply smooth_ratio_closed; lra.
  - apply (@ex_derive_continuous R_AbsRing R_NormedModule). unfold smooth_phi.
    assert (Ht : 0 < s / e < 1) by {_UNIT}.
    auto_derive. change (s * / e) with (s / e). set (t := s / e) in *.
    assert (Hd := smooth_phi_den_pos t Ht).
    assert (Hq : 0 < (1 + - t) * ((1 + - t) * 1)) by nra.
    repeat split; apply Rgt_not_eq; first [exact Hd | exact Hq | lra].""",
     "sigma/sigma' is the closed form s phi(s/eps) near every s in (0, eps), a differentiable function"),
    ("smooth_ratio_ex_RInt", "forall e a b, 0 < e -> 0 <= a <= b -> b < e -> ex_RInt (smooth_ratio e) a b",
     """intros e a b He Hab Hb. apply (@ex_RInt_continuous R_CompleteNormedModule). intros z Hz.
  rewrite Rmin_left in Hz by lra. rewrite Rmax_right in Hz by lra.
  destruct (Req_dec z 0) as [H|H].
  - subst. apply smooth_ratio_continuous_0; lra.
  - apply smooth_ratio_continuous; lra.""", "sigma/sigma' is integrable on [a, b] for 0 <= a <= b < eps"),
    ("smooth_J_split",
     "forall e a b c, 0 < e -> 0 <= a <= b -> b <= c -> c < e -> "
     "RInt (smooth_ratio e) a c = RInt (smooth_ratio e) a b + RInt (smooth_ratio e) b c",
     """intros e a b c He Hab Hbc Hc. symmetry.
  apply (RInt_Chasles (smooth_ratio e)); apply smooth_ratio_ex_RInt; lra.""", "Chasles: J splits at d"),
    ("smooth_J_near_zero",
     "forall e d, 0 < e -> 0 < d < e -> d / e <= 1 / 2 -> 0 <= RInt (smooth_ratio e) 0 d <= d * (d * (2 * (d / e)))",
     """intros e d He Hd Hde. split.
  - apply RInt_ge_0; [lra | apply smooth_ratio_ex_RInt; lra |].
    intros x Hx. apply (smooth_ratio_range e x He); lra.
  - apply Rle_trans with (RInt (fun _ => d * (2 * (d / e))) 0 d).
    + apply RInt_le; [lra | apply smooth_ratio_ex_RInt; lra | apply ex_RInt_const |].
      intros x Hx.
      assert (Hx1 : 0 < x / e) by (apply Rdiv_lt_0_compat; lra).
      assert (Hx2 : x / e <= d / e) by (unfold Rdiv; apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat |]; lra).
      assert (Hx3 : x / e < 1) by lra.
      destruct (smooth_phi_range (x / e)) as [Hp0 Hp1]; [lra|].
      assert (Hp2 := smooth_phi_small (x / e) ltac:(lra)).
      rewrite smooth_ratio_closed by lra.
      apply Rle_trans with (d * smooth_phi (x / e)); [apply Rmult_le_compat_r; lra|].
      apply Rmult_le_compat_l; lra.
    + rewrite RInt_const. unfold scal; simpl; unfold mult; simpl. lra.""",
     "near 0, 0 <= sigma/sigma'(s) = s phi(s/eps) <= 2 s^2/eps, so the piece [0, d] lies in [0, 2 d^3/eps]"),
    ("smooth_J_interior",
     "forall e a b, 0 < e -> 0 < a <= b -> b < e -> "
     "RInt (smooth_ratio e) a b = RInt (fun s => s * smooth_phi (s / e)) a b",
     """intros e a b He Hab Hb. apply RInt_ext. intros x Hx.
  rewrite Rmin_left in Hx by lra. rewrite Rmax_right in Hx by lra.
  apply smooth_ratio_closed; lra.""",
     "away from 0 and below eps, sigma/sigma' is the closed form s phi(s/eps)"),
    ("smooth_phi_near_zero",
     'forall t, 0 < t <= 1 / 40 -> smooth_phi0 t <= smooth_phi t <= smooth_phi0 t + exp (40 / 39 - 40)',
     """intros t Ht. unfold smooth_phi, smooth_phi0.
  assert (Hu : 0 < 1 - t) by lra.
  assert (Hu2 : 0 < (1 - t) ^ 2) by (apply pow_lt; lra).
  set (R := exp (1 / (1 - t) - 1 / t)).
  assert (HR : 0 < R) by apply exp_pos.
  assert (HRm : R <= exp (40 / 39 - 40)).
  { apply Raux.exp_le.
    assert (Ha : 1 / (1 - t) <= 40 / 39) by (apply (Rle_div_l 1 (40 / 39) (1 - t)); lra).
    assert (Hb : 40 <= 1 / t) by (apply (Rle_div_r 40 1 t); lra).
    lra. }
  set (Q := t ^ 2 / (1 - t) ^ 2).
  assert (HQ : 0 <= Q) by (apply Rlt_le, Rdiv_lt_0_compat; [apply pow_lt; lra | exact Hu2]).
  assert (HtQ : t / (1 - t) ^ 2 = Q / t) by (unfold Q; field; lra).
  set (S := t + 1 + Q).
  assert (HS : 1 <= S) by (unfold S; lra).
  assert (Hphi : (R + 1) / (R + 1 + 1 / t + t / (1 - t) ^ 2) = t * (R + 1) / (S + t * R)).
  { rewrite HtQ. unfold S. field. repeat split; try lra. nra. }
  rewrite Hphi.
  assert (Hdiff : t * (R + 1) / (S + t * R) - t / S = t * R * (1 + Q) / (S * (S + t * R))).
  { unfold S. field. split; nra. }
  assert (HtR : 0 <= t * R) by nra.
  assert (Hd0 : 0 <= t * R * (1 + Q) / (S * (S + t * R))).
  { apply Rmult_le_pos; [nra | apply Rlt_le, Rinv_0_lt_compat; nra]. }
  assert (Hd1 : t * R * (1 + Q) / (S * (S + t * R)) <= R).
  { apply (Rle_div_l (t * R * (1 + Q)) R (S * (S + t * R))); [nra |].
    assert (H1 : t * (1 + Q) <= S) by (unfold S; nra).
    assert (H2 : S <= S * (S + t * R)) by nra.
    nra. }
  lra.""",
     "for 0 < t <= 1/40: phi - phi0 = t R (1 + Q)/(S (S + t R)) with Q = t^2/(1-t)^2, S = t + 1 + Q, so 0 <= phi - phi0 <= R, and R = exp(1/(1-t) - 1/t) <= exp(40/39 - 40) (docs/coq.md, 'Digits')"),
    ("smooth_phi0_ex_RInt",
     'forall e a b, 0 < e -> 0 < a <= b -> b / e <= 1 / 40 -> ex_RInt (fun s => s * smooth_phi0 (s / e)) a b',
     """intros e a b He Hab Hb. apply (@ex_RInt_continuous R_CompleteNormedModule). intros z Hz.
  rewrite Rmin_left in Hz by lra. rewrite Rmax_right in Hz by lra.
  assert (Ht : 0 < z / e <= 1 / 40).
  { split; [apply Rdiv_lt_0_compat; lra |].
    apply Rle_trans with (b / e); [unfold Rdiv; apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat |]; lra | exact Hb]. }
  apply (@ex_derive_continuous R_AbsRing R_NormedModule). unfold smooth_phi0.
  auto_derive. change (z * / e) with (z / e). set (t := z / e) in *.
  assert (Hu2 : 0 < (1 + - t) * ((1 + - t) * 1)) by nra.
  assert (HQ : 0 <= t * (t * 1) / ((1 + - t) * ((1 + - t) * 1))) by (apply Rlt_le, Rdiv_lt_0_compat; nra).
  repeat split; apply Rgt_not_eq; lra.""",
     's phi0(s/eps) is continuous (differentiable) on [a, b] for 0 < a, b <= eps/40, hence integrable'),
    ("smooth_J_small",
     'forall e a b, 0 < e -> 0 < a <= b -> b / e <= 1 / 40 -> RInt (fun s => s * smooth_phi0 (s / e)) a b <= RInt (fun s => s * smooth_phi (s / e)) a b <= RInt (fun s => s * smooth_phi0 (s / e)) a b + b * exp (40 / 39 - 40) * (b - a)',
     """intros e a b He Hab Hb.
  assert (Hbe : b < e).
  { assert (H : b / e * e = b) by (field; lra). nra. }
  assert (H0 := smooth_phi0_ex_RInt e a b He Hab Hb).
  assert (H1 : ex_RInt (fun s => s * smooth_phi (s / e)) a b).
  { apply (ex_RInt_ext (smooth_ratio e)); [| apply smooth_ratio_ex_RInt; lra].
    intros x Hx. rewrite Rmin_left in Hx by lra. rewrite Rmax_right in Hx by lra.
    apply smooth_ratio_closed; lra. }
  assert (Hpt : forall x, a <= x <= b -> smooth_phi0 (x / e) <= smooth_phi (x / e) <= smooth_phi0 (x / e) + exp (40 / 39 - 40)).
  { intros x Hx. apply smooth_phi_near_zero. split; [apply Rdiv_lt_0_compat; lra |].
    apply Rle_trans with (b / e); [unfold Rdiv; apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat |]; lra | exact Hb]. }
  assert (HE : 0 < exp (40 / 39 - 40)) by apply exp_pos.
  split.
  - apply RInt_le; [lra | exact H0 | exact H1 |].
    intros x Hx. destruct (Hpt x ltac:(lra)). apply Rmult_le_compat_l; lra.
  - assert (Hc : ex_RInt (fun _ => b * exp (40 / 39 - 40)) a b) by apply ex_RInt_const.
    apply Rle_trans with (RInt (fun s => s * smooth_phi0 (s / e) + b * exp (40 / 39 - 40)) a b).
    + apply RInt_le; [lra | exact H1 | apply (ex_RInt_plus _ _ _ _ H0 Hc) |].
      intros x Hx. destruct (Hpt x ltac:(lra)).
      assert (x * smooth_phi (x / e) <= x * (smooth_phi0 (x / e) + exp (40 / 39 - 40))) by (apply Rmult_le_compat_l; lra).
      nra.
    + assert (Hp : RInt (fun s => s * smooth_phi0 (s / e) + b * exp (40 / 39 - 40)) a b
        = RInt (fun s => s * smooth_phi0 (s / e)) a b + RInt (fun _ => b * exp (40 / 39 - 40)) a b)
        by exact (RInt_plus _ _ _ _ H0 Hc).
      rewrite Hp, RInt_const. unfold scal; simpl; unfold mult; simpl. lra.""",
     "on [a, b] with b <= eps/40 the closed form's integral lies between the rational phi0's and it plus b R(1/40) (b - a) (smooth_phi_near_zero, integrated)"),
)


class _Terms:
    """The certificate's constants as Coq terms, and the exact values behind them."""

    def __init__(self, document: dict):
        parameters = document["parameters"]
        self.p_int = int(document["p"])
        self.p = str(self.p_int)
        self.q = {name: number(parameters[name], name) for name in ("eps_smooth", "epsilon", "A", "B")}
        self.q["r"] = number(document["radius"], "radius")
        self.e, self.eps, self.A, self.B = (real(self.q[name]) for name in ("eps_smooth", "epsilon", "A", "B"))
        self.r = radius_term(document)
        p = self.p
        self.smax = f"({self.eps} + 2 * {self.r})"
        self.gmin = f"(({p} - 1) * ({self.A} - 2 * {self.r}) / {p})"
        self.gmin_q = fmpq(self.p_int - 1, self.p_int) * (self.q["A"] - 2 * self.q["r"])
        self.gmax = f"(({p} - 1) * ({self.A} + 2 * {self.r}) / {p})"
        self.J = f"(smooth_J {self.e} {self.smax})"
        self.smax_q = self.q["epsilon"] + 2 * self.q["r"]
        self.d_q = self.q["eps_smooth"] / 2**DELTA_BITS
        self.d = real(self.d_q)
        self.b1_q = self.q["eps_smooth"] / NEAR_ZERO
        self.b1 = real(self.b1_q)

    def condition(self, J: str) -> str:
        return f"({self.gmin} ^ 2 - {J})"

    def transfer(self, J: str) -> str:
        g_star = f"(sqrt {self.condition(J)})"
        return rmin(f"({J} / (2 * {g_star}))", f"({self.gmax} - {g_star})")

    def gap(self, J: str) -> str:
        return terminal_purity_gap_term(self.p_int, self.r, self.B, self.B, self.A, self.smax, self.transfer(J))


def _end(document: dict, claim: str, end: str) -> fmpq:
    return number(document["claims"][claim][end], f"{claim}.{end}")


def _with_J(t: _Terms, lemma: str, tactic: str) -> str:
    """A proof that first turns J into a variable bounded by the lemma ``lemma`` (lo <= J <= hi)."""
    return f"pose proof {lemma} as HJ. revert HJ. generalize {t.J}. intros J HJ. {tactic}"


# --- choosing the weakened ends (proof parameters only: the statements use the certificate's numbers) ---

def _ball(q: fmpq) -> arb:
    return arb(q.p) / arb(q.q)


def _between(lo: fmpq, hi: fmpq) -> arb:
    return _ball(lo).union(_ball(hi))


def _transfer_ball(t: _Terms, J: arb) -> arb:
    """Mmax as the Coq term computes it (min written with |.|), J a ball: what interval will meet."""
    g_star = (_ball(((t.p_int - 1) * (t.q["A"] - 2 * t.q["r"]) / t.p_int) ** 2) - J).sqrt()
    a = J / (2 * g_star)
    b = _ball((t.p_int - 1) * (t.q["A"] + 2 * t.q["r"]) / t.p_int) - g_star
    return (a + b - abs(a - b)) / 2


def _gap_ball(t: _Terms, J: arb) -> arb:
    from ..kernel.family import terminal_purity_gap

    return terminal_purity_gap(t.p_int, t.q["r"], _ball(t.q["B"]), _ball(t.q["B"]), t.q["A"], t.smax_q,
                               _transfer_ball(t, J))


def _bits(digits: int) -> int:
    return int(3.4 * digits) + 30


# --- the claims ---

#: The lemma enclosing J(smax) with the exporter's own ends (the claims computed from J use it).
J_ENCLOSURE = "smooth_J_enclosure"


@dataclass(frozen=True)
class JPieces:
    """The exporter's bounds on the two integral pieces of J (rationals, each proved by ``integral``):
    near <= int_d^b1 s phi0(s/eps) ds <= near_hi and far <= int_b1^smax s phi(s/eps) ds <= far_hi, b1 = eps/40."""

    near: fmpq
    near_hi: fmpq
    far: fmpq
    far_hi: fmpq


def _flint_integral(t: _Terms, rational: bool, a: fmpq, b: fmpq) -> tuple[fmpq, fmpq] | None:
    """Rationals (lower, upper) enclosing int_a^b s phi0(s/eps) ds (``rational``) or int_a^b s phi(s/eps) ds,
    from python-flint's rigorous acb.integral (kernel-independent, 128 bits), or None if it did not converge."""
    with ctx.workprec(128):
        e = acb(_ball(t.q["eps_smooth"]))

        def integrand(s, analytic):
            u = s / e
            if rational:
                return s * u / (u + 1 + u**2 / (1 - u) ** 2)
            R = (1 / (1 - u) - 1 / u).exp()
            return s * (R + 1) / (R + 1 + 1 / u + u / (1 - u) ** 2)

        value = acb.integral(integrand, acb(_ball(a)), acb(_ball(b)), rel_tol=arb(2) ** -90)
        if not (value.real.is_finite() and value.imag.contains(0) and value.real.rad() < abs(value.real.mid()) * 1e-24):
            return None
        # the ends read here, at 128 bits: read outside this context they were rounded (outward) to 53 bits
        return (fmpq(int((value.real.lower() * 2**220).floor().unique_fmpz()), 2**220),
                fmpq(int((value.real.upper() * 2**220).ceil().unique_fmpz()), 2**220))


def _j_enclosure(t: _Terms) -> tuple[fmpq, fmpq, JPieces] | None:
    """(lo, hi, pieces) of smooth_J_enclosure. J = int_0^d + int_d^b1 + int_b1^smax (b1 = eps/40): the first in
    [0, 2 d^3/eps] (smooth_J_near_zero), the second within [0, b1 R(1/40) (b1 - d)] above the rational phi0's
    integral (smooth_J_small), the integrals of phi0 on [d, b1] and of phi on [b1, smax] each python-flint's
    enclosure moved outward by NEAR_WIDTH and FAR_WIDTH and rounded outward to 22 digits; lo and hi are their sums, rounded
    outward to J_DIGITS + 2 digits. Chosen by the exporter, never from the certificate; proved by ``integral``."""
    near = _flint_integral(t, True, t.d_q, t.b1_q)
    far = _flint_integral(t, False, t.b1_q, t.smax_q)
    if near is None or far is None or not near[0] > 0:
        return None
    pieces = JPieces(round_down(near[0] - NEAR_WIDTH, 22), round_up(near[1] + NEAR_WIDTH, 22),
                     round_down(far[0] - FAR_WIDTH, 22), round_up(far[1] + FAR_WIDTH, 22))
    tail = 2 * t.d_q**3 / t.q["eps_smooth"]
    lo = round_down(pieces.near + pieces.far, J_DIGITS + 2)
    hi = round_up(tail + pieces.near_hi + t.b1_q * R_NEAR_ZERO * (t.b1_q - t.d_q) + pieces.far_hi, J_DIGITS + 2)
    return lo, hi, pieces


def _j_integral_proof(t: _Terms, pieces: JPieces) -> str:
    """A proof of lo <= J(smax) <= hi (the ends of :func:`_j_enclosure`): Chasles at d and at b1, the piece
    [0, d] by smooth_J_near_zero, [d, b1] by smooth_J_small and ``integral`` on phi0, [b1, smax] by ``integral``."""
    e, d, b1, smax = t.e, t.d, t.b1, t.smax
    near = f"RInt (fun s => s * smooth_phi0 (s / {e})) {d} {b1}"
    far = f"RInt (fun s => s * smooth_phi (s / {e})) {b1} {smax}"
    return (f"unfold smooth_J. rewrite (smooth_J_split {e} 0 {d} {smax}) by lra. "
            f"rewrite (smooth_J_split {e} {d} {b1} {smax}) by lra. "
            f"rewrite (smooth_J_interior {e} {d} {b1}) by lra. rewrite (smooth_J_interior {e} {b1} {smax}) by lra. "
            f"pose proof (smooth_J_near_zero {e} {d} ltac:(lra) ltac:(lra) ltac:(lra)) as H0. "
            f"pose proof (smooth_J_small {e} {d} {b1} ltac:(lra) ltac:(lra) ltac:(lra)) as H1. "
            f"assert (HR : exp (40 / 39 - 40) <= {real(R_NEAR_ZERO)}) by interval. "
            f"assert (H2 : {real(pieces.near)} <= {near} <= {real(pieces.near_hi)}) by (unfold smooth_phi0; {J_INTEGRAL}). "
            f"assert (H3 : {real(pieces.far)} <= {far} <= {real(pieces.far_hi)}) by (unfold smooth_phi; {J_INTEGRAL}). "
            "lra.")


def _enclosure_lemma(t: _Terms, lo: fmpq, hi: fmpq, pieces: JPieces) -> Lemma:
    return Lemma(J_ENCLOSURE, "dead_zone_integral", f"{real(lo)} <= {t.J} <= {real(hi)}", _j_integral_proof(t, pieces),
                 PAPER_J + "; an enclosure whose ends the exporter chooses (python-flint's acb.integral of the "
                 "pieces, rounded outward), not the certificate's: the claims computed from J use it; the piece "
                 "[0, d] by smooth_J_near_zero, [d, eps/40] by smooth_J_small and CoqInterval's integral of the "
                 "rational phi0, [eps/40, smax] by CoqInterval's integral")


def _dead_zone_lemma(document: dict, t: _Terms, enclosure: tuple[fmpq, fmpq]) -> Lemma:
    """The claim dead_zone_integral with the certificate's own ends, from the enclosure by lra: an end outside
    the enclosure as it is, an end inside it moved outward by twice the enclosure's width W and rounded outward
    to J_DIGITS digits (then, and only then, the name says so). A true end moved so lies past the enclosure's
    own (the enclosure holds J and is W wide), so lra proves it; an end past the truth by more than about 3 W
    is refused."""
    claim = "dead_zone_integral"
    if relation(document, claim).keys() != ("lo", "hi"):
        raise ValueError("dead_zone_integral: its relation is not an enclosure")
    E_lo, E_hi = enclosure
    width = E_hi - E_lo
    lo, hi = _end(document, claim, "lo"), _end(document, claim, "hi")
    weakened = False
    if lo > E_lo:
        lo, weakened = round_down(lo - 2 * width, J_DIGITS), True
    if hi < E_hi:
        hi, weakened = round_up(hi + 2 * width, J_DIGITS), True
    digits = J_DIGITS if weakened else None
    name = ident(claim, f"{J_DIGITS}_digits") if weakened else ident(claim, "lo_hi")
    return Lemma(name, claim, f"{stated(document, claim, 'lo', t.J, value=lo)} <= {real(hi)}",
                 f"pose proof {J_ENCLOSURE}. lra.",
                 PAPER_J + f"; from {J_ENCLOSURE}", digits=digits, fields=("lo", "hi"))


DEPENDS_ON_J = ("dead_zone_integral", "g_condition", "terminal_displacement_box", "purity_gap_box")


def smooth_obligations(document: dict) -> list:
    """The definitions and lemmas of every claim of a ``smooth`` certificate but ``gaussian_probability``.

    Claims are taken in the certificate's order; the definitions, the general lemmas and the J lemma
    come first when a claim needs J, with the exporter's own enclosure of J (:data:`J_ENCLOSURE`) that
    the claims computed from J use; the base point's lemmas (tied to the parameters) come first of all.
    """
    t = _Terms(document)
    claims = document["claims"]
    needs_J = [claim for claim in DEPENDS_ON_J if claim in claims]
    reason = None
    if not (0 < t.smax_q < t.q["eps_smooth"] and 2 * t.d_q < t.b1_q < t.smax_q):
        reason = ("J(smax) is proved only for smax = epsilon + 2r < eps_smooth (the file encloses the closed "
                  "form on (0, eps); the identity part and the singularity at t = 1 are not written)")
    enclosure = None
    if needs_J and reason is None:
        found = _j_enclosure(t)
        if found is None:
            reason = "python-flint's integral of the closed form on [d, smax] did not converge"
        else:
            enclosure, pieces = found[:2], found[2]
    items: list = list(base_point_lemmas(document, FAMILY_BASE_POINT, WHERE))
    if enclosure is not None:
        items += DEFINITIONS
        items += [Lemma(name, "dead_zone_integral", statement, proof, paper) for name, statement, proof, paper in HELPERS]
        items.append(_enclosure_lemma(t, *enclosure, pieces))
        if "dead_zone_integral" in claims:
            items.append(_dead_zone_lemma(document, t, enclosure))
    for claim in claims:
        if claim == "single_active_gate":
            items += single_active_gate_lemmas(document, WHERE)
        elif claim == "terminal_fourier_fraction":
            items += fourier_fraction_lemmas(
                document, claim, [f"{t.B} ^ 2", f"{t.B} ^ 2"],
                "from the base point the limit is two-level with u, v contrasts B and a centred w of zero, "
                "so F_zeta = 2/(p-1) (section 2.1, (A.60))")
        elif claim in DEPENDS_ON_J and reason is not None:
            items.append(NotExported(claim, reason))
        elif claim in DEPENDS_ON_J and claim != "dead_zone_integral":
            items += _j_claim(document, t, claim, enclosure)
        elif claim == "region_probability":
            try:
                items += smooth_region_lemmas(document)
            except (ValueError, CertifyError) as error:  # the route cannot reach the kernel's bound, or the kernel
                items.append(NotExported(claim, str(error)))  # refuses the parameters: listed, not half-exported
        elif claim not in DEPENDS_ON_J and claim not in SHARED_CLAIMS:
            items.append(NotExported(claim, "not a claim of theorem smooth known to this exporter"))
    return items


def _j_claim(document: dict, t: _Terms, claim: str, enclosure: tuple[fmpq, fmpq]) -> list:
    """The lemmas of a claim computed from J, through the exporter's enclosure of J only (its digit
    count and ends never depend on the certificate's own J ends)."""
    lo_J, hi_J = enclosure
    J_lemma = J_ENCLOSURE
    with ctx.workprec(256):
        J_ball = _between(lo_J, hi_J)
        if claim == "g_condition":
            quantity, ball = t.condition(t.J), _ball(t.gmin_q**2) - J_ball
        elif claim == "terminal_displacement_box":
            quantity, ball = f"(2 * {t.transfer(t.J)})", 2 * _transfer_ball(t, J_ball)
        else:
            quantity, ball = t.gap(t.J), _gap_ball(t, J_ball)
        end = "hi" if relation(document, claim).kind == "upper" else "lo"  # the one end the claim stores
        weakened = _weakened(_end(document, claim, end), ball, upward=end == "hi")
    if weakened is None:
        return [NotExported(claim, f"J's bounds to {J_DIGITS} digits leave fewer than 3 digits of {end}")]
    k, value = weakened
    name = ident(claim, end, f"{k}_digits")
    if claim == "g_condition":
        lemma = Lemma(name, claim, stated(document, claim, end, quantity, value=value), f"pose proof {J_lemma}. lra.",
                      "(A.67) on the box: g(0) >= gmin = (p-1)(A-2r)/p and J(s0) <= J(smax), so "
                      "g(0)^2 - J(s0) >= gmin^2 - J(smax)", digits=k)
        sign = "(A.67) holds on the box: gmin^2 - J(smax) > 0, so g(t) >= g_* > 0 (A.68)"
    elif claim == "terminal_displacement_box":
        return [Lemma(name, claim, stated(document, claim, end, quantity, value=value),
                      _with_J(t, J_lemma, f"interval with (i_prec {_bits(k)})."),
                      "(A.68)-(A.69): M = g(0) - g_inf <= gmax - g_* and M <= J(smax)/(2 g_*), "
                      "||w_inf - w_0||_1 = 2M", digits=k)]
    else:
        lemma = Lemma(name, claim, stated(document, claim, end, quantity, value=value),
                      _with_J(t, J_lemma, enclosed_atom_proof(t.transfer("J"), f"interval with (i_prec {_bits(k)}).")),
                      "the purity-gap lemma on (1.5) applied to the terminal blocks (c_u = c_v = B, "
                      "c_w = -A + M p/(p-1), M <= Mmax) (Theorem A.3)", digits=k)
        sign = "the purity gap is positive: every limit from the box has max_zeta F_zeta < 1 (Theorem A.3)"
    return [lemma, *landmark_lemmas(document, claim, "lo"),
            Lemma(ident(claim, "positive"), claim, f"0 < {quantity}", f"pose proof {name}. lra.", sign)]
