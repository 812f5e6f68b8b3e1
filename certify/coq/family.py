"""Coq lemmas shared by the two-level family (2.1) = (A.48)-(A.49): theorems dead, smooth and gd.

* :func:`single_active_gate_lemmas`: the claim ``single_active_gate``, stated over every point of the
  sup-norm box of radius r around the certificate's base point (exact, by lra);
* :func:`fourier_fraction_lemmas`: a two-level triple's Fourier fraction (1.5) is 2/(p-1) (by field);
* :func:`purity_gap_term`: the Coq term of the purity-gap lower bound (certify.kernel.fourier and
  certify.kernel.family.terminal_purity_gap), for an exporter to compare with the certificate's lo.
"""

from __future__ import annotations

from .lemma import Lemma
from .relations import landmark_lemmas, stated
from .terms import number, real, rmax

#: Turns `Rabs (x - c) <= r` hypotheses into linear ones, then lra (used for sup-norm box facts).
BOX_TACTIC = ("intros; repeat match goal with H : Rabs _ <= _ |- _ => revert H end; unfold Rabs; "
              "repeat destruct (Rcase_abs _); intros; lra.")


def block_levels(document: dict, block: str) -> tuple[str, str]:
    """(at_0, elsewhere) of a base-point block as exact Coq terms."""
    levels = document["base_point"][block]
    return real(number(levels["at_0"])), real(number(levels["elsewhere"]))


def radius(document: dict) -> str:
    return real(number(document["radius"], "radius"))


def single_active_gate_lemmas(document: dict, where: str) -> list[Lemma]:
    """The claim ``single_active_gate``: on the box the central gate is >= lo and every other gate <= -lo.

    Stated for every point (x, y) of the box, x the u coordinate and y the v coordinate of the gate:
    |x - u(a)| <= r and |y - v(b)| <= r at the base point's levels (sup norm); lo > 0 in full.
    """
    claim = "single_active_gate"
    r = radius(document)
    u0, uj = block_levels(document, "u")
    v0, vj = block_levels(document, "v")
    paper = f"a gate u(a)+v(b) of a point of the sup-norm box moves at most 2r from its base value ({where})"
    gates = (("central", u0, v0, True), ("cross_a", uj, v0, False), ("cross_b", u0, vj, False),
             ("off_cross", uj, vj, False))
    lemmas = landmark_lemmas(document, claim, "lo", paper="the margin is positive: the box has exactly one active gate")
    for gate, u, v, active in gates:
        # the claim's quantity is min(central gate, -(every other gate)): lo bounds each below
        bound = stated(document, claim, "lo", "x + y" if active else "- (x + y)")
        lemmas.append(Lemma(f"single_active_gate_{gate}", "single_active_gate",
                            f"forall x y : R, Rabs (x - {u}) <= {r} -> Rabs (y - {v}) <= {r} -> {bound}",
                            BOX_TACTIC, paper))
    return lemmas


def fourier_fraction_lemmas(document: dict, claim: str, contrasts_squared: list[str], paper: str) -> list[Lemma]:
    """The claim ``claim`` (exact F_zeta of a two-level triple) as two lemmas.

    ``..._value``: for every triple of contrasts c_k with sum c_k^2 > 0, the fraction
    sum c_k^2 ||Pi_zeta q||^2 / sum c_k^2 ||q||^2 with ||Pi_zeta q||^2 = 2/p and ||q||^2 = (p-1)/p
    (section 2.1) equals the certificate's exact value; ``..._defined``: the sum of the given
    ``contrasts_squared`` (Coq terms of the terminal contrasts) is positive, so the fraction is defined.
    """
    p = int(document["p"])
    total = " + ".join(f"({term})" for term in contrasts_squared)
    return [
        Lemma(f"{claim}_value", claim,
              f"forall s : R, 0 < s -> {stated(document, claim, 'exact', f'(s * (2 / {p}) / (s * (({p} - 1) / {p})))')}",
              "intros s Hs. field. lra.", paper),
        Lemma(f"{claim}_defined", claim, f"0 < {total}", "interval with (i_prec 200).",
              "the centred terminal blocks are not all zero, so F_zeta (1.5) is defined"),
    ]


def enclosed_atom_proof(atom: str, tactic: str) -> str:
    """``tactic`` (an ``interval with (...)`` call) on a goal where the term ``atom`` occurs many times,
    after enclosing it once (``interval_intro`` with the same options) and treating it as one variable
    within that enclosure: the purity-gap term repeats the transfer bound Mmax about eight times, and
    with Mmax one variable interval is about ten times faster."""
    options = tactic[tactic.index(" with "):].rstrip(".")
    return f"interval_intro {atom}{options} as Hatom. set (atom := {atom}) in *. clearbody atom. {tactic}"


def purity_gap_term(p: int, blocks) -> str:
    """The Coq term of the purity-gap lemma's bound (certify.kernel.fourier.purity_gap_lower):

        sum max(0, |c|_lo sqrt((p-3)/p) - E)^2 / sum (|c|_hi sqrt((p-1)/p) + E)^2

    for ``blocks`` = [(|c|_lo, |c|_hi, E)] given as Coq terms.
    """
    outside, total = f"sqrt (({p} - 3) / {p})", f"sqrt (({p} - 1) / {p})"
    numerator = " + ".join(f"{rmax('0', f'{lo} * {outside} - {e}')} ^ 2" for lo, _, e in blocks)
    denominator = " + ".join(f"({hi} * {total} + {e}) ^ 2" for _, hi, e in blocks)
    return f"(({numerator}) / ({denominator}))"


def abs_range(lower: str, upper: str) -> tuple[str, str]:
    """Terms of min and max of |c| over c in [lower, upper]: max(0, lower, -upper) and max(|lower|, |upper|)."""
    return rmax("0", rmax(lower, f"(- {upper})")), rmax(f"Rabs {lower}", f"Rabs {upper}")


def terminal_purity_gap_term(p: int, r: str, uv_lower: str, uv_upper: str, A: str, smax: str,
                             transfer_max: str, transfer_min: str = "0") -> str:
    """The Coq term of certify.kernel.family.terminal_purity_gap (same arguments, as Coq terms):
    blocks u, v with |c| in abs_range(uv_lower, uv_upper) and error r sqrt p; block w with
    c_w in [-A + Mmin p/(p-1), -A + Mmax p/(p-1)] and error r sqrt p + Mmax (e^{2 r smax} - 1)/sqrt(p-1)."""
    perturbation = f"({r} * sqrt {p})"
    spread = f"({transfer_max} * (exp (2 * {r} * {smax}) - 1) / sqrt ({p} - 1))"
    w_lower, w_upper = (f"(- {A} + {p} / ({p} - 1) * {m})" for m in (transfer_min, transfer_max))
    uv_lo, uv_hi = abs_range(uv_lower, uv_upper)
    w_lo, w_hi = abs_range(w_lower, w_upper)
    uv = (uv_lo, uv_hi, perturbation)
    return purity_gap_term(p, [uv, uv, (w_lo, w_hi, f"({perturbation} + {spread})")])


#: The base point of the two-level family (2.1) = (A.48)-(A.49) as Coq terms in the parameters.
FAMILY_BASE_POINT = {"u": ("{epsilon} / 2", "- {B}"), "v": ("{epsilon} / 2", "- {B}"), "w": ("- {A}", "0")}


def base_point_lemmas(document: dict, construction: dict, paper: str) -> list[Lemma]:
    """Lemmas tying the certificate's base point to its parameters: for each block and level,
    ``level = formula`` with the formula of ``construction`` ({block: (at_0, elsewhere)} or, for three-level
    blocks, (at_0, at_1, elsewhere); Coq terms with
    ``{name}`` for each parameter and ``{p}``), by lra. Without them a file could prove its parameter-based
    claims (hitting time, purity gap) and its box claims about two different points. Claim ``base_point``
    (not a claim id of the certificate: the base point is part of every claim). ValueError if a block's stored
    levels are not exactly the construction's (an at_1 added to a two-level block, or one missing)."""
    values = {name: real(number(text, name)) for name, text in document["parameters"].items()}
    values["p"] = str(int(document["p"]))
    lemmas = []
    for block, formulas in construction.items():
        levels = ("at_0", "elsewhere") if len(formulas) == 2 else ("at_0", "at_1", "elsewhere")
        # the Gaussian box (certify.coq.gaussian.box_coordinates) reads the stored levels: they must be exactly
        # the construction's, or the box mass would be stated about another point than these lemmas'
        if set(document["base_point"][block]) != set(levels):
            raise ValueError(f"the base point's block {block} has the levels {', '.join(sorted(document['base_point'][block]))}"
                             f", but the construction has {', '.join(levels)}")
        for level, formula in zip(levels, formulas):
            stated = real(number(document["base_point"][block][level], f"base_point.{block}.{level}"))
            lemmas.append(Lemma(f"base_point_{block}_{level}", "base_point",
                                f"{stated} = {formula.format(**values)}", "lra.", paper))
    return lemmas
