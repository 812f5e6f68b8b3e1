"""A proved two-sided closed form of G(x) = int_0^x phi on [-a, a], for the region routes whose integrands hold Phi
(docs/coq.md, 'The gd region in Coq', 'What Coq proves'; 'The purity claim in Coq').

``integral`` takes no integral inside its integrand, so a route that integrates a function of Phi = 1/2 + G
replaces G by an odd polynomial Q with Q' = E(x^2), E a Chebyshev fit of phi(sqrt y) on [0, a^2], and proves

    |G(x) - Q(x)| <= a epsilon  on [-a, a]

(G - Q has derivative phi - Q', at most epsilon in absolute value there by ``interval``, and vanishes at 0), and that
the bases 1/2 + Q - a epsilon and 1/2 - Q - a epsilon are >= 0 there. A route then bounds a power of Phi or Phibar
from either side by the same power of its closed form, raised or lowered by a epsilon. :class:`GFit` chooses the
numbers (mpmath; Coq proves every inequality between them, so a poor choice makes coqc fail, never a false lemma) and
:func:`fit_lemmas` writes the lemmas, under a name prefix of the route's.
"""

from __future__ import annotations

import mpmath
from flint import fmpq

from .lemma import Definition, Lemma
from .region import G, HORNER, PHI, _mp, _phi, _rounded, coefficient_list
from .terms import real

#: The fit's degree (in y = x^2) grows until 4 (p - 1) a epsilon <= FIT_LOSS and a epsilon <= Phibar(a)/4 (the bases
#: stay positive), epsilon the fit's error |phi - Q'| (FIT_MARGIN times its maximum on 2001 points of [0, a]): each
#: base, about 1 at the peak, loses at most 4 a epsilon (2 |G - Q| and the 2 a epsilon it is moved by), so a product
#: of 2 (p - 1) such bases at most 8 (p - 1) a epsilon <= 4 10^-4 relatively
FIT_LOSS = mpmath.mpf("2e-4")
FIT_MARGIN = mpmath.mpf("1.25")
MAX_FIT_DEGREE = 20


class GFit:
    """Q and epsilon for (p, a): ``half`` (Q(x) = x H(x^2), H's coefficients, exact), ``fit_error`` (epsilon, exact),
    ``degree`` (E's degree in y), ``loss`` (a epsilon, exact). ValueError when no degree up to :data:`MAX_FIT_DEGREE`
    meets the loss target. ``dps``: mpmath's working digits."""

    def __init__(self, p: int, a: fmpq, dps: int = 30):
        self.p, self.a = p, a
        with mpmath.workdps(dps):
            a_mp = _mp(a)
            grid = mpmath.linspace(0, a_mp, 2001)
            for degree in range(4, MAX_FIT_DEGREE + 1, 2):
                fit = mpmath.chebyfit(lambda y: _phi(mpmath.sqrt(y)), [0, a_mp ** 2], degree + 1)[::-1]
                # Q(x) = sum_i q_i x^(2i+1), so Q'(x) = E(x^2) with E's coefficients (2i + 1) q_i
                half = [_rounded(c / (2 * i + 1), 25, up=False) if c >= 0 else -_rounded(-c / (2 * i + 1), 25, up=False)
                        for i, c in enumerate(fit)]
                q = [_mp(v) for v in half]
                worst = max(abs(_phi(x) - sum((2 * i + 1) * c * x ** (2 * i) for i, c in enumerate(q))) for x in grid)
                error = _rounded(FIT_MARGIN * worst + mpmath.mpf(10) ** -25, 3, up=True)
                loss = a_mp * _mp(error)
                if 4 * (p - 1) * loss <= FIT_LOSS and 4 * loss <= mpmath.ncdf(-a_mp):
                    break
            else:
                raise ValueError(f"no fit of degree <= {MAX_FIT_DEGREE} meets the fit's loss target")
        self.half, self.fit_error, self.degree = half, error, degree
        self._half_mp = q
        self.loss = a * error  # a epsilon, exact

    def Q(self, x):
        """Q(x) in mpmath (Horner in x^2)."""
        y, value = x * x, mpmath.mpf(0)
        for c in reversed(self._half_mp):
            value = value * y + c
        return x * value


def padded(half: list) -> list:
    """Q's coefficients d_k of x^(k+1), k = 0..2m: q_0, 0, q_1, 0, ..., q_m."""
    out = []
    for i, q in enumerate(half):
        out += [q] if i == 0 else [fmpq(0), q]
    return out


def fit_names(prefix: str) -> tuple[str, str, str]:
    """The Coq names (FIT, HALF, Q) of the fit's definitions under ``prefix``."""
    return f"{prefix}_fit", f"{prefix}_half", f"{prefix}_Q"


def fit_lemmas(fit: GFit, prefix: str, claim: str) -> list:
    """The definitions of Q and the lemmas |G - Q| <= a epsilon on [-a, a] (``{prefix}_Q_near``) and the bases
    1/2 +- Q - a epsilon >= 0 there (``{prefix}_bases``), every name under ``prefix``; they use certify.coq.region's
    calculus facts (region.SHARED_CALCULUS), which the file must hold."""
    name_fit, name_half, name_q = fit_names(prefix)
    a, error = real(fit.a), real(fit.fit_error)
    e = f"({a} * {error})"
    return [
        Definition(name_fit, coefficient_list(padded(fit.half)), type="list R",
                   note="Q(x) = sum_k d_k x^(k+1) (odd: every other d_k is 0), Q' = E(x^2) with E a Chebyshev fit of "
                        f"phi(sqrt y) on [0, a^2] of degree {fit.degree}, its coefficients rounded (any polynomial "
                        "serves: the lemmas below prove what it must satisfy)"),
        Definition(name_half, coefficient_list(fit.half), type="list R",
                   note="the same Q as x H(x^2), H given by these coefficients (what interval evaluates)"),
        Definition(name_q, f"fun x => x * {HORNER} {name_half} (x ^ 2)", type="R -> R", note="Q, close to G on [-a, a]"),
        Lemma(f"{name_q}_prim", claim, f"forall x, {name_q} x = region_prim {name_fit} 0 x",
              f"intros x. unfold {name_q}, {name_half}, {name_fit}. rewrite region_prim_horner. cbn [{HORNER}]. ring.",
              "the two forms of Q are one polynomial"),
        Lemma(f"{name_q}_derive", claim, f"forall x, is_derive {name_q} x (region_dprim {name_fit} 0 x)",
              f"intros x. apply (is_derive_ext (region_prim {name_fit} 0)); [intros y; symmetry; apply {name_q}_prim | ].\n"
              "  apply region_prim_derive.", "Q' is the derivative of its coefficients"),
        Lemma(f"{prefix}_G_near", claim,
              "forall (F f : R -> R) e x, F 0 = 0 -> (forall y, is_derive F y (f y)) -> (forall y, continuous f y) -> "
              f"(forall y, Rmin 0 x <= y <= Rmax 0 x -> Rabs ({PHI} y - f y) <= e) -> Rabs ({G} x - F x) <= Rabs x * e",
              "intros F f e x H0 HF Hf Hb.\n"
              "  assert (HI : is_RInt f 0 x (minus (F x) (F 0))).\n"
              "  { apply (is_RInt_derive F f). - intros y _. apply HF. - intros y _. apply Hf. }\n"
              f"  assert (HP : is_RInt {PHI} 0 x (RInt {PHI} 0 x)) by (apply (RInt_correct (V := R_CompleteNormedModule)); "
              f"apply {PHI}_ex_RInt).\n"
              f"  assert (HN := norm_RInt_le_const_abs (fun y => minus ({PHI} y) (f y)) 0 x _ e Hb (is_RInt_minus _ _ 0 x _ _ HP HI)).\n"
              f"  change (Rabs (RInt {PHI} 0 x - (F x - F 0)) <= Rabs (x - 0) * e) in HN.\n"
              f"  rewrite H0, !Rminus_0_r in HN. unfold {G}. exact HN.",
              "G - F has derivative phi - f, at most e in absolute value between 0 and x, and vanishes at 0"),
        Lemma(f"{prefix}_fit_error", claim,
              f"forall x, - {a} <= x <= {a} -> Rabs ({PHI} x - region_dhorner {name_fit} 0 x) <= {error}",
              f"intros x Hx. unfold {PHI}, {name_fit}. cbn [region_dhorner INR]. "
              "interval with (i_taylor x, i_degree 4, i_prec 60, i_bisect x).",
              "|phi - Q'| <= epsilon on [-a, a] (the fit's error)"),
        Lemma(f"{name_q}_near", claim, f"forall x, - {a} <= x <= {a} -> Rabs ({G} x - {name_q} x) <= {e}",
              f"intros x Hx. apply Rle_trans with (Rabs x * {error}).\n"
              f"  - apply ({prefix}_G_near {name_q} (region_dprim {name_fit} 0) {error} x).\n"
              f"    + unfold {name_q}. ring.\n    + exact {name_q}_derive.\n"
              "    + intros y. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). "
              "apply region_dprim_ex_derive.\n"
              f"    + intros y Hy. rewrite region_dprim_horner, pow_O, Rmult_1_l. apply {prefix}_fit_error.\n"
              "      destruct (Rle_dec 0 x).\n"
              "      * rewrite Rmin_left, Rmax_right in Hy by lra. lra.\n"
              "      * rewrite Rmin_right, Rmax_left in Hy by lra. lra.\n"
              f"  - apply Rmult_le_compat_r; [interval | ]. apply Rabs_le. lra.",
              f"|G - Q| <= |x| epsilon <= a epsilon on [-a, a] ({prefix}_G_near, {prefix}_fit_error)"),
        Lemma(f"{prefix}_bases", claim,
              f"forall x, - {a} <= x <= {a} -> 0 <= 1 / 2 + {name_q} x - {e} /\\ 0 <= 1 / 2 - {name_q} x - {e}",
              f"intros x Hx. unfold {name_q}, {name_half}. cbn [{HORNER}]. "
              "split; interval with (i_taylor x, i_degree 6, i_prec 60, i_bisect x).",
              "the two bases are >= 0 on [-a, a] (1/2 +- G >= Phibar(a) there, and a epsilon <= Phibar(a)/4)"),
    ]


def continuity_lemma(name: str, derive: str, binders: str, claim: str, comment: str) -> Lemma:
    """``forall BINDERS x, continuous (NAME BINDERS) x`` for an integrand ``name`` of phi and G or Q (``derive``: the
    lemma giving G's or Q's derivative), proved by ``auto_derive``: what ``RInt_le`` needs of both integrands."""
    return Lemma(f"{name}_continuous", claim, f"forall {binders} x, continuous ({name} {binders}) x",
                 f"intros {binders} x. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). "
                 f"unfold {name}, {PHI}. auto_derive. repeat split; try exact I; eexists; apply {derive}.", comment)
