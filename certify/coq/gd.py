"""Coq lemmas of a ``gd`` certificate (Theorem A.4: one full-batch gradient-descent step, ReLU'(0) = 0).

Transcribes certify.kernel.gd with the certificate's own numbers (p, eta, epsilon, A, B, the radius r
and the base point (2.1)). A point of the sup-norm box is written by the coordinates its statement
needs: x, y the u and v coordinates of a gate, w0 the output weight w(0) and m the mean of the wrong-class
weights w(j) (each within r of the base point, so |m - w(j)_base| <= r as well), D = D(s0, w_0) (A.52)
and q the softmax probability q_0. The paper's lemmas turning these facts into the claims are cited:
D >= gamma_in = mu - w(0) = (p-1)/p (m - w0) is the convexity bound (A.53), 0 <= q <= 1 holds for a
softmax probability, and the step itself is (A.7), (A.70).

Lemmas per claim:
  single_active_gate            certify.coq.family.single_active_gate_lemmas (before the step)
  one_step_death_box            for each component ``hi < 0`` (lra) and ``gate after the step <= hi`` over
                                the box (lra): central gate s_1 = s0 - 2 eta D/p^2 (A.70), the cross gates
                                u_1(0) + v(j) and u(j) + v_1(0) with u_1(0) = u(0) - eta D/p^2 (their hi,
                                epsilon/2 - B + 2r, is about eta gmin/p^2 above the truth), off-cross
                                gates (they do not move)
  w_step_box                    ||w_1 - w_0||_1 = 2 eta s0 (1 - q_0)/p^2 <= hi over the box (nra), and
                                hi >= 2 eta (epsilon + 2r)/p^2, the statement's closed form (lra)
  purity_gap_box                0 < lo (lra) and lo <= the terminal purity-gap bound (interval, a
                                Definition; within 10^-37 of lo for the library)
  terminal_fourier_fraction     certify.coq.family.fourier_fraction_lemmas with the contrasts of theta_1
                                from the base point
  region_probability            lo and log10_lo in full below the chord route's bound of R_gd's probability
                                (certify.coq.region_gd)
"""

from __future__ import annotations

from .family import (BOX_TACTIC, FAMILY_BASE_POINT, base_point_lemmas, block_levels, fourier_fraction_lemmas,
                     radius, single_active_gate_lemmas, terminal_purity_gap_term)
from .export import SHARED_CLAIMS
from ..errors import CertifyError
from .lemma import Definition, Lemma, NotExported
from .region_gd import CLAIM as CLAIM_REGION, gd_region_lemmas
from .relations import landmark_lemmas, stated
from .terms import ident, number, real

#: Bits interval works with beyond what the purity gap's lo needs (see :func:`purity_precision`).
PURITY_MARGIN_BITS = 40

CLAIMS = ("single_active_gate", "one_step_death_box", "w_step_box", "purity_gap_box", "terminal_fourier_fraction")


def _parameter(document: dict, name: str) -> str:
    return real(number(document["parameters"][name], name))


def _box(variable: str, centre: str, r: str) -> str:
    return f"Rabs ({variable} - {centre}) <= {r}"


def _death_lemmas(document: dict) -> list[Lemma]:
    """one_step_death_box: every gate of theta_1 is <= its component's hi, and each hi < 0."""
    claim = "one_step_death_box"
    p, eta, r = int(document["p"]), _parameter(document, "eta"), radius(document)
    u0, uj = block_levels(document, "u")
    v0, vj = block_levels(document, "v")
    w0, wj = block_levels(document, "w")
    step = f"{eta} * D / {p} ^ 2"
    weights = (f"{_box('w0', w0, r)} -> {_box('m', wj, r)} -> "
               f"({p} - 1) / {p} * (m - w0) <= D -> ")
    convexity = ("D >= gamma_in = mu - w(0) = (p-1)/p (m - w0) by the convexity bound (A.53), w0 = w(0) and "
                 "m the mean of the w(j), each within r of the base point")
    gates = {
        "central_gate": [("", f"forall x y w0 m D : R, {_box('x', u0, r)} -> {_box('y', v0, r)} -> {weights}"
                              "{stated}",
                          f"Theorem A.4, (A.70): the central gate after the step is s_1 = s0 - 2 eta D/p^2, "
                          f"{convexity}")],
        "cross_gates": [(f"_{side}", f"forall x y w0 m D : R, {_box('x', a, r)} -> {_box('y', b, r)} -> {weights}"
                                     f"{{stated_{side}}}",
                         f"Theorem A.4, (A.7): the step moves u(0) and v(0) by -eta D/p^2 and no other u(j), v(j); "
                         f"{convexity} (so D > 0)")
                        for side, a, b in (("a", u0, vj), ("b", uj, v0))],
        "off_cross_gates": [("", f"forall x y : R, {_box('x', uj, r)} -> {_box('y', vj, r)} -> {{stated}}",
                             "Theorem A.4, (A.7): the step does not move u(i), v(j) for i, j != 0")],
    }
    quantities = {"central_gate": {"stated": f"x + y - 2 * {step}"},
                  "cross_gates": {"stated_a": f"(x - {step}) + y", "stated_b": f"x + (y - {step})"},
                  "off_cross_gates": {"stated": "x + y"}}
    lemmas = []
    for component in ("central_gate", "cross_gates", "off_cross_gates"):
        lemmas += landmark_lemmas(document, claim, "hi", component,
                                  paper="the gate is strictly negative after the step, so grad L(theta_1) = 0 and "
                                        "theta_n = theta_1 for n >= 1 (Theorem A.4)")
        fill = {key: stated(document, claim, "hi", gate, component) for key, gate in quantities[component].items()}
        for suffix, statement, paper in gates[component]:
            lemmas.append(Lemma(ident(claim, component, "hi") + suffix, claim, statement.format(**fill),
                                BOX_TACTIC, paper))
    return lemmas


def _w_step_lemmas(document: dict) -> list[Lemma]:
    """w_step_box: ||w_1 - w_0||_1 = 2 eta s0 (1 - q_0)/p^2 <= hi on the box, and hi >= 2 eta (epsilon + 2r)/p^2
    (the statement's closed form)."""
    claim = "w_step_box"
    p, eta, eps, r = int(document["p"]), _parameter(document, "eta"), _parameter(document, "epsilon"), radius(document)
    u0, _ = block_levels(document, "u")
    v0, _ = block_levels(document, "v")
    # Linear facts first (the box makes 0 < x + y <= smax), then the product (x + y)(1 - q) by nra.
    proof = ("intros x y q Hx Hy Hq. "
             "assert (Hs : 0 <= x + y <= " + f"{u0} + {v0} + 2 * {r}) by "
             "(revert Hx Hy; unfold Rabs; repeat destruct (Rcase_abs _); intros; lra). "
             "destruct Hs as [Hs0 Hs1]; destruct Hq as [Hq0 Hq1]. "
             "assert (Hm : (x + y) * (1 - q) <= " + f"{u0} + {v0} + 2 * {r}) by nra. "
             "nra.")
    return [
        Lemma(ident(claim, "hi"), claim,
              f"forall x y q : R, {_box('x', u0, r)} -> {_box('y', v0, r)} -> 0 <= q <= 1 -> "
              + stated(document, claim, "hi", f"2 * ({eta} * (x + y) * (1 - q) / {p} ^ 2)"),
              proof,
              "(A.7): the step moves w by -eta (s0/p^2)(q - e_0), whose l1 norm is 2 eta s0 (1 - q_0)/p^2, "
              "with s0 = u(0) + v(0) the central gate and q_0 in [0, 1]"),
        Lemma(ident(claim, "hi", "bound"), claim, stated(document, claim, "hi", f"2 * {eta} * ({eps} + 2 * {r}) / {p} ^ 2"),
              "lra.", "the closed form the claim's hi is compared with: hi >= 2 eta (epsilon + 2r)/p^2"),
    ]


def purity_gap_term(document: dict) -> str:
    """The Coq term of certify.kernel.gd's purity-gap bound from the certificate's p, eta, epsilon, A, B, r:
    terminal_purity_gap with c_u in [epsilon/2 + B - eta (A + 2r)/p^2, epsilon/2 + B - eta gmin/p^2],
    gmin = (p-1)(A - 2r)/p, smax = epsilon + 2r, M in [eta (epsilon - 2r)(p-1)/p^3, eta smax/p^2]."""
    p, r = int(document["p"]), radius(document)
    eta, eps, A, B = (_parameter(document, name) for name in ("eta", "epsilon", "A", "B"))
    gmin = f"(({p} - 1) * ({A} - 2 * {r}) / {p})"
    smax = f"({eps} + 2 * {r})"
    return terminal_purity_gap_term(
        p, r,
        uv_lower=f"({eps} / 2 + {B} - {eta} * ({A} + 2 * {r}) / {p} ^ 2)",
        uv_upper=f"({eps} / 2 + {B} - {eta} * {gmin} / {p} ^ 2)",
        A=A, smax=smax,
        transfer_max=f"({eta} * {smax} / {p} ^ 2)",
        transfer_min=f"({eta} * ({eps} - 2 * {r}) * ({p} - 1) / {p} ^ 3)")


def purity_precision(document: dict) -> int:
    """interval's i_prec for ``lo <= gap``: lo's significant digits at 3.33 bits each, or the certificate's
    precision_bits if more (lo is the lower end of a ball computed there, so it may lie that close to the
    bound), plus :data:`PURITY_MARGIN_BITS`. About 190 for the library's 45-digit ends at 128 bits."""
    text = document["claims"]["purity_gap_box"]["lo"].split("e")[0].split("/")[0]
    digits = len(text.replace(".", "").replace("-", "").lstrip("0"))
    bits = max(int(3.33 * digits) + 1, int(document.get("precision_bits", 0)))
    return bits + PURITY_MARGIN_BITS


def _purity_lemmas(document: dict) -> list:
    claim = "purity_gap_box"
    name = "gd_terminal_purity_gap"
    return [
        *landmark_lemmas(document, claim, "lo", paper="the purity gap is positive: max_zeta F_zeta(theta_1) < 1 "
                                                      "(Theorem A.4)"),
        Definition(name, purity_gap_term(document),
                   note="the purity-gap lemma's bound on 1 - max_zeta F_zeta at every terminal state theta_1 "
                        "reached by one step from the box (docs/mathematics.md, 'One gradient-descent step')"),
        Lemma(ident(claim, "lo"), claim, stated(document, claim, "lo", name),
              f"unfold {name}. interval with (i_prec {purity_precision(document)}).",
              "Theorem A.4: theta_1 = -B 1 + c e_0 + e blockwise with c in the ranges of the step (A.70), "
              "|e_i| <= r, and the purity-gap lemma on (1.5) bounds 1 - max_zeta F_zeta(theta_1) below"),
    ]


def base_step_contrasts_squared(document: dict) -> list[str]:
    """Coq terms of c_u^2, c_v^2, c_w^2 of theta_1 from the base point
    (certify.kernel.gd.gd_base_step_contrasts_squared): 1 - q_0 = (p-1) e^{epsilon A}/(1 + (p-1) e^{epsilon A}), c_u = c_v = epsilon/2 + B - eta A (1 - q_0)/p^2,
    c_w = -A + eta epsilon (1 - q_0)/(p (p-1))."""
    p = int(document["p"])
    eta, eps, A, B = (_parameter(document, name) for name in ("eta", "epsilon", "A", "B"))
    wrong = f"(({p} - 1) * exp ({eps} * {A}))"
    one_minus_q0 = f"({wrong} / (1 + {wrong}))"
    c_u = f"({eps} / 2 + {B} - {eta} / {p} ^ 2 * {one_minus_q0} * {A})"
    c_w = f"(- {A} + {eta} * {eps} / ({p} * ({p} - 1)) * {one_minus_q0})"
    return [f"{c_u} ^ 2", f"{c_u} ^ 2", f"{c_w} ^ 2"]


def gd_obligations(document: dict) -> list[Lemma | Definition | NotExported]:
    """Every claim of a gd certificate except gaussian_probability (certify.coq.gaussian's)."""
    items: list = base_point_lemmas(document, FAMILY_BASE_POINT, "the base point is (A.48)-(A.49) = (2.1) of "
                                    "the certificate's epsilon, A, B")
    claims = document["claims"]
    if "single_active_gate" in claims:
        items += single_active_gate_lemmas(document, "before the step, (A.48)-(A.49)")
    builders = {"one_step_death_box": _death_lemmas, "w_step_box": _w_step_lemmas, "purity_gap_box": _purity_lemmas}
    for claim, build in builders.items():
        if claim in claims:
            items += build(document)
    if CLAIM_REGION in claims:
        try:
            items += gd_region_lemmas(document)
        except (ValueError, CertifyError) as error:  # the route cannot clear the kernel's bound, or the kernel
            items.append(NotExported(CLAIM_REGION, str(error)))  # refuses the parameters: listed, not half-exported
    if "terminal_fourier_fraction" in claims:
        items += fourier_fraction_lemmas(
            document, "terminal_fourier_fraction", base_step_contrasts_squared(document),
            "Theorem A.4: from the base point the step moves only u(0), v(0) and w, and w by -eta (s0/p^2)(q - e_0) "
            "with all q_j (j != 0) equal, so theta_1 is two-level and F_zeta(theta_1) = 2/(p-1) for zeta != 0 "
            "((1.5), section 2.1)")
    for claim in claims:
        if claim not in CLAIMS and claim not in SHARED_CLAIMS:
            items.append(NotExported(claim, "not a claim of theorem gd known to certify.coq.gd"))
    return items
