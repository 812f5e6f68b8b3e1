"""A claim's statement as typeset mathematics, made from the same record as the text the checker compares.

The checker compares each claim's plain statement, generated from its :class:`certify.kernel.claims.ClaimSpec`
(subject, relation, landmarks, closed-form bound). A document shows the same claim as mathematics: here
each spec's subject (and note, and bound) is written once more in LaTeX, in the paper's symbols, and
:func:`statement_latex` joins it to **the spec's own relation** and **the certificate's stored numbers** (as
the one display rule shows them, :func:`certify.render.numbers.display_parts`): an upper bound reads
``$\\|w(T)-w(0)\\|_1 \\le 1.23507$``, a landmark ``\\ge 0.0106936 > 0``, a closed-form bound
``\\le h$, where $h \\ge 2\\eta(\\epsilon + 2r)/p^2``. Nothing of the relation is written here: the direction
of each number, its landmarks and whether a bound is compared all come from the spec, so the two forms
cannot state different relations (tests/test_statements.py checks both forms field by field).

The log10 twin of a probability is shown as the power of ten its stored end implies (``\\ge 10^{-7.35}``);
the rule that ties the pair's digits together (docs/numbers-and-checking.md, 'Twin fields') is a fact about
the stored text, checked by ``certify check``, and is not restated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..kernel.claims import VALUE_NAMES
from ..kernel.staircase import TAIL_DEPTH
from .derivations import latex_escape
from .numbers import compare, display_parts, latex_exact, parse_number

#: A quoted instance value in a claim's text (certify.kernel.claims.VALUE_NAMES).
_QUOTE = re.compile(r"\{(" + "|".join(VALUE_NAMES) + r")\}")


@dataclass(frozen=True)
class LatexForm:
    """The LaTeX words of one claim (or of one component): ``prose`` (running text before the quantity, may
    hold ``$...$``), ``quantity`` (math mode, the symbol the relation attaches to), ``bound`` (math mode,
    the closed form of a one-sided claim's compared end), ``note`` (running text after it) and, for a claim
    with components, ``components`` {name: LatexForm of the component}."""

    prose: str = ""
    quantity: str = ""
    bound: str = ""
    note: str = ""
    components: dict = field(default_factory=dict)


_BOX = "for every point of the box"
_CENTRAL_ONLY = LatexForm(
    f"{_BOX},", r"\min\bigl(u(0)+v(0),\ \min_{(a,b)\ne(0,0)} -(u(a)+v(b))\bigr)",
    note=r"so the central gate $u(0)+v(0)$ is the only active one")
_GAUSSIAN = r"for $\theta(0) \sim \mathcal N(0, \sigma^2 I_{3p})$, $\sigma = {sigma}$,"
_REGION_PROBABILITY = r"\Pr\bigl(\theta(0) \in R \mid \theta(0) \text{ initially active}\bigr)"


def _gaussian_box(theorem_note: str) -> LatexForm:
    return LatexForm(_GAUSSIAN, r"\Pr(\theta(0) \in U)", note=theorem_note)


#: theorem -> claim id -> LatexForm. Every claim of every record has one (tests/test_statements.py).
FORMS: dict[str, dict[str, LatexForm]] = {
    "dead": {
        "single_active_gate": _CENTRAL_ONLY,
        "gamma_condition": LatexForm(
            f"{_BOX},", r"\gamma_{\mathrm{in}}^2 - s_0^2/2",
            note=r"with $\gamma_{\mathrm{in}} = \mu - w(0)$, $s_0 = u(0)+v(0)$"),
        "hitting_time": LatexForm(
            "from the base point, the time $T$ at which the central gate reaches 0,", "T",
            note=r"$T = \frac{p^2}{2}\int_0^{\epsilon} \frac{1 + e^{-s g}/(p-1)}{g}\,ds$, "
                 r"$g^2 = \Gamma + \frac{p s^2}{2(p-1)}$"),
        "hitting_time_box": LatexForm(
            "from every point of the box, the time $T$ at which the central gate reaches 0,", "T",
            note="no other gate turns on before $T$"),
        "transversality_margin": LatexForm(
            "from the base point,", r"-\dot s(T^-) = \frac{2(p-1)\sqrt{\Gamma}}{p^3}"),
        "transversality_margin_box": LatexForm(
            "from every point of the box,", r"-\dot s(T^-) = \frac{2\gamma(T)}{p^2}"),
        "terminal_w_displacement_box": LatexForm("from every point of the box,", r"\|w(T) - w(0)\|_1"),
        "terminal_fourier_fraction": LatexForm(
            r"at the terminal state of the base point, for every $\zeta \ne 0$,", r"F_\zeta"),
        "balance_invariant": LatexForm(
            "at the base point and at its terminal state alike,", r"\|u\|^2 + \|v\|^2 - \|w\|^2"),
        "purity_gap_box": LatexForm(
            "at every terminal state from the box,", r"1 - \max_\zeta F_\zeta"),
        "terminal_loss": LatexForm(
            "at every terminal state from the box, the loss (1.1) equals $\\log p$:", r"\mathcal L",
            note="all activations are 0"),
        "gaussian_probability": _gaussian_box(r"every point of the box is initially active (Theorem 1.5)"),
        "region_probability": LatexForm(
            _GAUSSIAN, _REGION_PROBABILITY,
            note=r"$R = R_{\mathrm{dead}}$: exactly one active gate $(a^*, b^*)$, $\gamma_y = \mu - w(y) > 0$ "
                 r"with $y = a^* + b^*$, and $\gamma_y^2 > s^2/2$, $s = u(a^*) + v(b^*)$ ((A.58)); every "
                 r"trajectory from $R_{\mathrm{dead}}$ dies in finite time (section A.6, Lemma A.17); "
                 r"$R_{\mathrm{dead}}$ is a cone, so the bound holds for every $\sigma$"),
        "region_purity_probability": LatexForm(
            r"for $\theta(0) \sim \mathcal N(0, \sigma^2 I_{3p})$, every $\sigma > 0$",
            note=r"the first by the null-set lemma, the second with the tube near purity bounded and "
                 r"subtracted (docs/purity-tube.md); $R_{\mathrm{dead}}$ as in region\_probability",
            components={
                "not_single_frequency": LatexForm(
                    "", r"\Pr\bigl(\theta(0) \in R_{\mathrm{dead}},\ \text{death at a state not single-frequency}"
                        r" \mid \text{initially active}\bigr)"),
                "purity_margin": LatexForm(
                    "", r"\Pr\bigl(\theta(0) \in R_{\mathrm{dead}},\ \max_\zeta F_\zeta(\theta_\infty) \le 1 - "
                        r"\delta \mid \text{initially active}\bigr)",
                    note=r"$\delta = {delta}$"),
            }),
    },
    "slide": {
        "region_box": LatexForm(
            f"{_BOX}", note=r"so the box lies in $U_{\mathrm{slide}}$",
            components={
                "x_minus_X": LatexForm("", "x - X", note="$x = u(0)+v(0)$"),
                "cross_gates": LatexForm(
                    "", r"-\bigl(u(0)+v(j)\bigr),\ -\bigl(u(j)+v(0)\bigr)", note=r"every cross gate, $j \ne 0$"),
                "off_cross_gates": LatexForm("", r"-\bigl(u(a)+v(b)\bigr)", note=r"every other gate, $a, b \ne 0$"),
                "gamma_minus_gamma_star": LatexForm("", r"\gamma_j - \gamma_*", note=r"every $j \ne 0$"),
            }),
        "admissibility": LatexForm(
            "for every point of the box, every kink coefficient $\\alpha_j$, $\\beta_j$ of (A.26)-(A.27):",
            r"\alpha_j, \beta_j", bound=r"\frac{p-1}{e X \gamma_*}",
            note=r"by Lemma A.9 every kink coefficient is at most $\frac{p-1}{e X \gamma_*}$"),
        "capture_time": LatexForm(
            r"from the base point, the time $T$ at which all $2(p-1)$ cross gates are captured together, at "
            r"$x = 6X$,", "T",
            note=r"$T = \frac{p^2}{2(p-1)} \int_{2X}^{6X} \frac{e^{x d} + p - 1}{d}\,dx$"),
        "capture_invariants": LatexForm(
            "along the base trajectory", note="both are constant",
            components={
                "before_capture": LatexForm("before capture", r"d^2 - \frac{p x^2}{2(p-1)}"),
                "after_capture": LatexForm("after capture", r"d^2 - \frac{p^2 x^2}{2(p-1)}"),
            }),
        "kappa": LatexForm(
            r"along every trajectory from the box, $\lim d/x = \kappa_p = p/\sqrt{2(p-1)}$:", r"\kappa_p"),
        "limit_direction": LatexForm(
            r"along every trajectory from the box $\theta/\|\theta\| \to \frac{1}{\sqrt p}(V, V, \kappa_p q)$, "
            r"$V = (\frac12, -\frac12, \dots, -\frac12)$, $q = e_0 - \frac1p$, whose coordinates are",
            components={
                "u_at_0": LatexForm("", "u(0)"),
                "u_elsewhere": LatexForm("", r"u(j)", note=r"$j \ne 0$"),
                "v_at_0": LatexForm("", "v(0)"),
                "v_elsewhere": LatexForm("", r"v(j)", note=r"$j \ne 0$"),
                "w_at_0": LatexForm("", "w(0)"),
                "w_elsewhere": LatexForm("", r"w(j)", note=r"$j \ne 0$"),
            }),
        "limit_fourier_fraction": LatexForm(
            r"along every trajectory from the box, for every $\zeta \ne 0$,", r"\lim F_\zeta"),
        "limit_loss": LatexForm(
            r"along every trajectory from the box, the limit of the loss (1.1) is "
            r"$\frac{p^2-1}{p^2}\log p$:", r"\lim \mathcal L"),
        "gaussian_probability": _gaussian_box(
            "every point of the box is initially active and slides (Theorem A.1)"),
        "region_probability": LatexForm(
            _GAUSSIAN, _REGION_PROBABILITY,
            note=r"$R = R_{\mathrm{slide}}$: exactly one active gate $(a^*, b^*)$, $x = u(a^*) + v(b^*)$, "
                 r"$\gamma_j = \mu - w(j)$ for $j \ne y = a^* + b^*$, $m = \min_j \gamma_j > 0$ and "
                 r"$x m > (p-1)/e$; the union over (A.14) of $U_{\mathrm{slide}}(\gamma_*, X)$ of "
                 r"(A.15)-(A.17) relabelled, from every point of which Theorem A.1 holds (the bound measures "
                 r"one of them, $U_{\mathrm{slide}}$ at the region's own constants ${gamma_star}$ in place of "
                 r"$\gamma_*$ and ${X}$ in place of $X$, not the box's)"),
    },
    "smooth": {
        "single_active_gate": _CENTRAL_ONLY,
        "dead_zone_integral": LatexForm(
            "", r"J(\epsilon + 2r) = \int_0^{\epsilon+2r} \frac{\sigma_\epsilon}{\sigma_\epsilon'}\,ds",
            note=r"$\psi(t) = \frac{f(t)}{f(t) + f(1-t)}$, $f(t) = e^{-1/t}$ ($t > 0$), $0$ ($t \le 0$)"),
        "g_condition": LatexForm(
            f"{_BOX},", r"g(0)^2 - J(s_0)",
            bound=r"\Bigl(\frac{(p-1)(A-2r)}{p}\Bigr)^2 - J(\epsilon+2r)", note=r"$g = \mu - w(0)$"),
        "terminal_displacement_box": LatexForm(
            "from every point of the box the flow converges and", r"\|w_\infty - w_0\|_1"),
        "purity_gap_box": LatexForm("at every limit from the box,", r"1 - \max_\zeta F_\zeta"),
        "terminal_fourier_fraction": LatexForm(
            r"from the base point the limit $\theta_\infty$ is two-level and, for every $\zeta \ne 0$,",
            r"F_\zeta(\theta_\infty)"),
        "gaussian_probability": _gaussian_box(r"every point of the box is initially active (Theorem A.3)"),
        "region_probability": LatexForm(
            _GAUSSIAN, _REGION_PROBABILITY,
            note=r"$R = R_{\mathrm{smooth}}$: exactly one active gate $(a^*, b^*)$, $g(0) = \gamma_y = "
                 r"\mu - w(y) > 0$ with $y = a^* + b^*$, and (A.67) $\gamma_y^2 > J(s)$, $s = u(a^*) + v(b^*)$, "
                 r"$J(s) = \int_0^s \sigma_\epsilon/\sigma_\epsilon'$ ((A.66)); from every point of it the "
                 r"gradient flow converges to a finite limit ((A.62)-(A.69))"),
    },
    "gd": {
        "single_active_gate": LatexForm(_CENTRAL_ONLY.prose, _CENTRAL_ONLY.quantity, note=_CENTRAL_ONLY.note),
        "one_step_death_box": LatexForm(
            r"from every point of the box, after one step $\theta_1 = \theta_0 - \eta \nabla L(\theta_0)$ "
            r"($\mathrm{ReLU}'(0) = 0$)",
            note=r"so every gate of $\theta_1$ is negative, $\nabla L(\theta_1) = 0$ and $\theta_n = \theta_1$ "
                 r"for $n \ge 1$",
            components={
                "central_gate": LatexForm("the central gate", r"u_1(0)+v_1(0)"),
                "cross_gates": LatexForm(
                    "every cross gate", r"u_1(0)+v_1(j),\ u_1(j)+v_1(0)", note=r"$j \ne 0$"),
                "off_cross_gates": LatexForm("every other gate", r"u_1(a)+v_1(b)", note=r"$a, b \ne 0$"),
            }),
        "w_step_box": LatexForm(
            "from every point of the box, the step's", r"\|w_1 - w_0\|_1",
            bound=r"\frac{2\eta(\epsilon + 2r)}{p^2}"),
        "purity_gap_box": LatexForm("from every point of the box,", r"1 - \max_\zeta F_\zeta(\theta_1)"),
        "terminal_fourier_fraction": LatexForm(
            r"from the base point $\theta_1$ is two-level and, for every $\zeta \ne 0$,", r"F_\zeta(\theta_1)"),
        "gaussian_probability": _gaussian_box(r"every point of the box is initially active (Theorem A.4)"),
        "region_probability": LatexForm(
            _GAUSSIAN, _REGION_PROBABILITY,
            note=r"$R = R_{\mathrm{gd}}$: exactly one active gate $(a^*, b^*)$, $s = u(a^*) + v(b^*) > 0$ and "
                 r"(A.71) $s < 2\eta\gamma_y/p^2$, $\gamma_y = \mu - w(y)$, $y = a^* + b^*$; from every point "
                 r"of it one gradient-descent step with $\mathrm{ReLU}'(0) = 0$ makes every gate strictly "
                 r"negative, so $\theta_n = \theta_1$ ((A.70), (A.53)); $R_{\mathrm{gd}}$ is a cone, so the "
                 r"bound holds for every $\sigma$"),
    },
}

_MATRIX_NAMES = ("s_s", "s_a", "s_b", "a_s", "a_a", "a_b", "b_s", "b_a", "b_b")


def _entries(symbol: str) -> dict:
    """The nine components i_j of a 3 x 3 matrix ``symbol`` (rows s, a, b; columns s_0, a_0, b_0)."""
    return {name: LatexForm("", rf"{symbol}_{{{name[0]}, {name[2]}_0}}") for name in _MATRIX_NAMES}


FORMS["sensitivity"] = {
    "hitting_time_gradient": LatexForm(
        r"at the base point, the gradient of the hitting time $T$",
        note=r"$T = \frac{p^2}{2}\int_0^{s_0} \frac{1 + e^{-s g}/(p-1)}{g}\,ds$ with $g^2 = g_0^2 - c s_0^2 + "
             r"c s^2$, $c = \frac{p}{2(p-1)}$, differentiated under the integral",
        components={"s": LatexForm("", r"\partial T/\partial s_0"), "a": LatexForm("", r"\partial T/\partial a_0"),
                    "b": LatexForm("", r"\partial T/\partial b_0")}),
    "event_speed": LatexForm(
        "at the base point,", r"\dot s(T^-) = -\frac{2(p-1)\sqrt{\Gamma}}{p^3}",
        note="the gate reaches its kink transversally"),
    "regional_derivative": LatexForm(
        r"at the base point, $J_{\mathrm{reg}} = \partial y(T^*)/\partial y(0)$ at the fixed base hitting "
        r"time $T^*$, the smooth field (2.2)-(2.4) continued across $s = 0$, by entries",
        components=_entries(r"(J_{\mathrm{reg}})")),
    "terminal_map_derivative": LatexForm(
        r"at the base point, $\Psi'$ with $\Psi(y_0) = y(T(y_0)) = \bigl(0, a_0 + \frac{D}{2c}, "
        r"b_0 - \frac{D}{2c(p-1)}\bigr)$, $D = g_0 - \sqrt{g_0^2 - c s_0^2}$, by entries",
        components=_entries(r"(\Psi')")),
    "saltation_matrix": LatexForm(
        r"$S = I - \frac{f n^{\mathsf T}}{n^{\mathsf T} f}$ with $f = (\dot s(T^-), 0, 0)$ the field at the "
        r"event and $n = e_s$, by entries",
        note=r"$S J_{\mathrm{reg}} = \Psi'$ holds by the derivation (the $a$, $b$ rows of $J_{\mathrm{reg}}$ are "
             r"those of $\Psi'$ since $f$ is parallel to $e_s$, and $S$ deletes the $s$ row), not by a separate "
             r"computation",
        components={name: LatexForm("", f"S_{{{name[0]}{name[2]}}}") for name in _MATRIX_NAMES}),
    "sensitivity_gap": LatexForm(
        "at the base point,", r"\|\Psi' - J_{\mathrm{reg}}\|_F = |\dot s(T^-)|\, \|\nabla T\|_2"),
    "gap_rank": LatexForm(
        "at the base point,", r"\operatorname{rank}(\Psi' - J_{\mathrm{reg}})",
        note=r"$\Psi' - J_{\mathrm{reg}} = e_s \bigl(\dot s(T^-) \nabla T\bigr)^{\mathsf T}$ with "
             r"$\dot s(T^-) < 0$ and $\partial T/\partial s_0 > 0$ certified"),
}


def _widened_region(region: str, equation: str, theorem: str, why: str = "the active set",
                    box: str = "the box") -> str:
    """The note of a (1, 2) record's region_probability (the words of
    :func:`certify.kernel.staircase.widened_region_spec`, in LaTeX)."""
    return (rf"$R$ is {region} of {equation} relabelled: its union over the affine relabellings of rows, columns "
            rf"and labels, from every point of which {theorem} holds; the bound is "
            r"$p^2(p-1)\,\Pr(B^+)\,\frac{\pi\sigma^2}{2\sqrt2\,p\,r^2}$: the widened box $B^+$, "
            rf"{box} with each $u(i), v(i)$, $i \ge 2$, in $[c - r - {TAIL_DEPTH}\sigma, c + r]$ ($c$ its base value), "
            rf"lies in {region} as the box does (its conditions see these coordinates only through gates negative on "
            r"the box, which fall with them), and so do its translates by $2r(k\,d_{uv} + l\,d_w)$, $k, l \in "
            r"\mathbb Z$, $d_{uv}$ adding $1$ to each $u(a)$ and $-1$ to each $v(b)$, $d_w$ adding $1$ to each "
            rf"$w(c)$ ({region} is invariant along both); these meet in null sets only, with total mass at least the "
            rf"factor times $\Pr(B^+)$ (Lemmas S.19-S.20, Proposition S.21), and their relabelled copies are disjoint "
            rf"({why}); and "
            r"$\Pr(R \mid \text{active}) \ge \Pr(R)$ since $R$ lies in the initially active set")


FORMS["staircase"] = {
    "pattern_box": LatexForm(
        _BOX, note=r"so the box lies in the pattern $P$ of Theorem S with its boundary gates strictly inactive",
        components={
            "active_gates": LatexForm("", r"z_{00},\ z_{01},\ z_{10}"),
            "gate_11": LatexForm("", r"-z_{11}"),
            "boundary_gates": LatexForm("", r"-z_{0j},\ -z_{j0}", note=r"every boundary gate, $j \ge 2$"),
            "other_gates": LatexForm("", r"-z_{ab}", note="every other gate"),
            "gamma_min": LatexForm("", r"\gamma_j = \mu - w(j)", note=r"every $j \ge 2$"),
        }),
    "loss_margin_box": LatexForm(
        f"{_BOX},", r"2\log 2 + \frac{2}{(p-1)\rho} - \Lambda",
        note=r"with $\Lambda = \ell_0(z_{00}) + \ell_1(z_{01}) + \ell_1(z_{10})$ and "
             r"$\rho = \gamma_{\max}/\gamma_{\min}$; so the box lies in $U_{\mathrm{stair}}$, and every Clarke "
             r"trajectory from it is unique and keeps the $(1, 2)$ staircase pattern for all $t \ge 0$ "
             r"(Theorem S)"),
    "purity_margin_box": LatexForm(
        r"along every trajectory from the box and for all $t \ge 0$,", r"1 - \max_\zeta F_\zeta(\theta(t))",
        note="the trajectory never aligns to one Fourier class"),
    "gaussian_probability": _gaussian_box(r"every point of the box lies in $U_{\mathrm{stair}}$ (Theorem S)"),
    "region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=_widened_region(r"$U_{\mathrm{stair}}$", "(S.10)", "Theorem S")),
    "whole_region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=r"$R$ is $U_{\mathrm{stair}}$ relabelled, as above; at $p = 5$ and $7$, $\sigma = 1$, the bound "
             r"measures the whole of $U_{\mathrm{stair}}$: $\Pr(R \mid \text{active}) \ge p^2 (p - 1) "
             r"\Pr(U_{\mathrm{stair}})$, with $\Pr(U_{\mathrm{stair}})$ bounded below by closed-form lower bounds of "
             r"the gates' cell masses at or above an index where (S.44) is proved on each cell of $w$'s coordinates "
             r"$D$, $E$ and spread, times proved lower bounds of those cells' masses (Proposition S.25 with Lemma "
             r"S.26), on committed grids, cells and pairs of gate cells; where that bound is not larger than the "
             r"widened box's, not proved positive, or not attempted, the claim states the widened box's bound"),
}


FORMS["memorise"] = {
    "pattern_box": LatexForm(
        _BOX, note=r"so the box lies in the pattern $P_1$ of Theorem S1 with exactly one active gate",
        components={
            "active_gate": LatexForm("", r"z_{00}"),
            "boundary_gates": LatexForm("", r"-z_{0j},\ -z_{j0}", note=r"every boundary gate, $j \ge 1$"),
            "other_gates": LatexForm("", r"-z_{ab}", note="every other gate"),
            "gamma_min": LatexForm("", r"\gamma_j = \mu - w(j)", note=r"every $j \ge 1$"),
        }),
    "loss_margin_box": LatexForm(
        f"{_BOX},", r"\frac{2}{p\rho} - \ell_0(z_{00})",
        note=r"with $\rho = \gamma_{\max}/\gamma_{\min}$ over $j \ge 1$; so the box lies in $U_1$, and every "
             r"Clarke trajectory from it is unique and keeps $(0, 0)$ as its only active gate for all $t \ge 0$ "
             r"(Theorem S1)"),
    "purity_margin_box": LatexForm(
        r"along every trajectory from the box and for all $t \ge 0$,", r"1 - \max_\zeta F_\zeta(\theta(t))",
        note="the trajectory never aligns to one Fourier class (Proposition S1.7)"),
    "gaussian_probability": _gaussian_box(r"every point of the box lies in $U_1$ (Theorem S1)"),
    "region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=r"$R$ is $U_1$ of (S1.1) relabelled: its union over the affine relabellings of rows, columns and "
             r"labels, from every point of which Theorem S1 holds; the bound measures the $p^2$ disjoint "
             r"translated copies of the box, and $\Pr(R \mid \text{active}) \ge \Pr(R)$ since $R$ lies in the "
             r"initially active set"),
    "whole_region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=r"$R$ is $U_1$ relabelled, as above, but the bound measures the whole of $U_1$: "
             r"$\Pr(R \mid \text{active}) \ge p^2 \Pr(U_1)$, with $\Pr(U_1)$ bounded below by the closed-form mass "
             r"of the gates above a threshold proved on each cell of the law of $w$ and a proved lower bound of "
             r"the cell's mass (Proposition S1.8); where that bound is not larger than the box copies', not "
             r"proved positive, or not attempted ($p \ge 2^{32}$), the claim states the box copies' bound"),
}


FORMS["twin"] = {
    "pattern_box": LatexForm(
        _BOX, note=r"so the box lies in the pattern of Proposition S2.2: $z_{11} < 0$, the boundary gates and every "
                   r"other gate $< 0$, and $D < 0$",
        components={
            "active_gates": LatexForm("", r"z_{00},\ z_{01},\ z_{10}"),
            "gate_11": LatexForm("", r"-z_{11}"),
            "boundary_gates": LatexForm("", r"-z_{0j},\ -z_{j0}", note=r"every boundary gate, $j \ge 2$"),
            "other_gates": LatexForm("", r"-z_{ab}", note="every other gate"),
            "gamma_min": LatexForm("", r"\gamma_j = \mu - w(j)", note=r"every $j \ge 2$"),
            "twin_difference": LatexForm("", r"-D = w(1) - w(0)"),
        }),
    "loss_excess_box": LatexForm(
        f"{_BOX},", r"b = \Lambda - 3\log 2",
        note=r"with $\Lambda = \ell_0(z_{00}) + \ell_1(z_{01}) + \ell_1(z_{10})$; this end is at least "
             r"$b_+ = \max(\ell_0^+(X - 2r), \ell_0^+(X + 2r)) + 2 \ell_1^+(s - 2r) - 3\log 2$, "
             r"$\ell_0^+(z) = \log(1 + e^{z(d + 2r)} + (p - 2) e^{-z(E - d - 2r)})$, "
             r"$\ell_1^+(z) = \log(1 + e^{-z(d - 2r)} + (p - 2) e^{-z(E - 2r)})$, the upper bound of $b$ that the "
             r"window, capture and capture time claims use (not this end)"),
    "window_box": LatexForm(
        rf"{_BOX}, with $b = \Lambda - 3\log 2$ and $\rho = \gamma_{{\max}}/\gamma_{{\min}}$",
        note=r"so $b < b_{\mathrm{II}}(p, \rho)$: the box lies in the window of Theorem S2, where the loss bounds "
             r"every force (Lemma S.12)",
        components={
            "loss_budget": LatexForm("", r"\min(1, \tfrac12\log(p/4)) - b"),
            "force_budget": LatexForm("", r"2 - \Phi(b; p, \rho)", note="(S.27)"),
        }),
    "capture_box": LatexForm(
        rf"{_BOX}, with Remark S2.3's upper bounds $b_+$ of $b$ (the closed form of the loss excess claim), "
        rf"$\zeta_+ = (X - 2s + 2r)/(d - 2r)$ of $\zeta_0 = z_{{11}}/D$, $s_{{1+}} = X + 2s + 6r$ of "
        rf"$s_1 = z_{{00}} + z_{{01}} + z_{{10}}$ and $S_+ = (p - 2)(\mu_0 + 2(p - 1)r/p)$ of "
        rf"$\sum_{{j \ge 2}} \gamma_j$, and (S.29)'s $\sigma = s_{{2,\max}}$ (not the Gaussian $\sigma$)",
        note=r"with the pattern and window claims, the box lies in $U_{\mathrm{II}}$: the Clarke trajectory from each of its points is unique, the "
             r"gate $(1, 1)$ reaches its kink with $D \le 0$ and slides on it for all later $t$, and the $(1, 2)$ "
             r"pattern is kept for all $t \ge 0$ (Proposition S2.2, Theorem S2)",
        components={
            "cone": LatexForm("", r"\kappa = q_*(b_+) - \zeta_+^2 - \zeta_+ s_{2,\max}/2"),
            "growth": LatexForm("", r"s_{2,\max} - s_{1,\max}^2", note="(S.29)"),
        }),
    "capture_time_box": LatexForm(
        f"{_BOX},", r"t_c = p^2 \zeta_+/\kappa",
        note=r"the gate $(1, 1)$ reaches its kink with $D \le 0$ by the time $t_c$ (Proposition S2.2)"),
    "purity_margin_box": LatexForm(
        r"along every trajectory from the box and for all $t \ge 0$,", r"1 - \max_\zeta F_\zeta(\theta(t))",
        note="the trajectory never aligns to one Fourier class (Proposition S2.2, Proposition S.6)"),
    "gaussian_probability": _gaussian_box(r"every point of the box lies in $U_{\mathrm{II}}$ (Proposition S2.2)"),
    "region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=_widened_region(r"$U_{\mathrm{II}}$", "(S.29)", "Proposition S2.2")),
}


FORMS["twin_plus"] = {
    "pattern_box": LatexForm(
        _BOX, note=r"so the box lies in the pattern of Proposition S3.2: $z_{11} < 0$, the boundary gates and every "
                   r"other gate $< 0$, and $D > 0$",
        components={
            "active_gates": LatexForm("", r"z_{00},\ z_{01},\ z_{10}"),
            "gate_11": LatexForm("", r"-z_{11}"),
            "boundary_gates": LatexForm("", r"-z_{0j},\ -z_{j0}", note=r"every boundary gate, $j \ge 2$"),
            "other_gates": LatexForm("", r"-z_{ab}", note="every other gate"),
            "gamma_min": LatexForm("", r"\gamma_j = \mu - w(j)", note=r"every $j \ge 2$"),
            "positive_difference": LatexForm("", r"D = w(0) - w(1)"),
        }),
    "loss_excess_box": LatexForm(
        f"{_BOX},", r"b = \Lambda - 3\log 2",
        note=r"with $\Lambda = \ell_0(z_{00}) + \ell_1(z_{01}) + \ell_1(z_{10})$; this end is at least "
             r"$b_+ = \ell_0^+(X - 2r) + 2 \max(\ell_1^+(s - 2r), \ell_1^+(s + 2r)) - 3\log 2$, "
             r"$\ell_0^+(z) = \log(1 + e^{-z(d - 2r)} + (p - 2) e^{-z(E + d - 2r)})$, "
             r"$\ell_1^+(z) = \log(1 + e^{z(d + 2r)} + (p - 2) e^{-z(E - 2r)})$, $s = (X - e)/2$, the upper bound "
             r"of $b$ that the window and capture claims use (not this end)"),
    "window_box": LatexForm(
        rf"{_BOX}, with $b = \Lambda - 3\log 2$, $\rho = \gamma_{{\max}}/\gamma_{{\min}}$ and "
        rf"$\beta(p, \rho) = \min(\log(p/4), 2/((p - 1)\rho))$,", r"\beta(p, \rho) - b",
        note=r"so $b < \beta(p, \rho)$: the box lies in the window of Theorem S3 and Proposition S3.2"),
    "capture_box": LatexForm(
        rf"{_BOX}, with Remark S3.3's bounds $e_+ = e + 2r$ of $e = -z_{{11}}$, $D_{{+0}} = d + 2r$ of $D_0$, "
        rf"$b_+$ of $b_0$ (the closed form of the loss excess claim), $b_+^0 = \max(b_+, 0)$, $z_{{+0}} = s + 2r$ of "
        rf"$\max(z_{{01}}, z_{{10}})$, $M_{{+0}} = E + d + 2r$ of $M_0 = w(0) - \min_{{j \ge 2}} w(j)$, "
        rf"$m_- = \min(s, t) - 2r$ of $m$, $X_{{-0}} = X - 2r$ of $z_{{00}}$ and $S_- = (p - 2)(\mu_0 - 4r/p)$ of "
        rf"$S_0 = \sum_{{j \ge 2}} \gamma_j$, and $D_+ = D_{{+0}} + e_+^2/h$, $B_+ = b_+ + D_+ e_+/2$, "
        rf"$\delta_c = \sqrt{{2 B_+ e_+/h}}$, $z_+ = z_{{+0}} + \delta_c$, $M_+ = M_{{+0}} + \delta_c$, "
        rf"$X_- = X_{{-0}} - \delta_c$, $\kappa_- = \tfrac34 q_*(b_+^0) X_-^2$",
        note=r"with the pattern and window claims, (S.34) holds at every point of the box: the box lies in "
             r"$U_{\mathrm{II}}^+$, the Clarke "
             r"trajectory from each of its points is unique, the gate $(1, 1)$ reaches its kink with $D \ge 0$ "
             r"and slides on it for all later $t$, and the $(1, 2)$ pattern is kept for all $t \ge 0$ "
             r"(Proposition S3.2, Theorem S3)",
        components={
            "reach": LatexForm("", r"m_- - \delta_c"),
            "rate": LatexForm("", r"\tfrac2p (S_- e^{-z_+ M_+} - D_+) - h"),
            "cone": LatexForm("", r"\kappa_- - 2 b_+^0"),
            "race": LatexForm("", r"\log S_- - z_+ M_+ - \frac{(z_+ + M_+)^2 b_+^0}{2(\kappa_- - 2 b_+^0)} - \log D_+",
                              note="(S.35)"),
        }),
    "capture_time_box": LatexForm(
        f"{_BOX},", r"t_c = p^2 (e + 2r)/h",
        note=r"the gate $(1, 1)$ reaches its kink with $D \ge 0$ before the time $t_c$ (Proposition S3.2)"),
    "purity_margin_box": LatexForm(
        r"along every trajectory from the box and for all $t \ge 0$,", r"1 - \max_\zeta F_\zeta(\theta(t))",
        note="the trajectory never aligns to one Fourier class (Proposition S3.2, Proposition S.6)"),
    "gaussian_probability": _gaussian_box(r"every point of the box lies in $U_{\mathrm{II}}^+$ (Proposition S3.2)"),
    "region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=_widened_region(r"$U_{\mathrm{II}}^+$", "(S.34)", "Proposition S3.2")),
}
FORMS["twin_above"] = {
    "pattern_box": LatexForm(
        _BOX, note=r"so the box lies in the pattern of Proposition S3.4: the gates $z_{00}$, $z_{01}$, $z_{10}$, "
                   r"$z_{11}$ active, the boundary gates and every other gate $< 0$, $D > 0$, and $z_{00} > z_{11}$ "
                   r"(its $p^2(p-1)$ relabelled copies are disjoint)",
        components={
            "active_gates": LatexForm("", r"z_{00},\ z_{01},\ z_{10}"),
            "gate_11": LatexForm("", r"z_{11}"),
            "boundary_gates": LatexForm("", r"-z_{0j},\ -z_{j0}", note=r"every boundary gate, $j \ge 2$"),
            "other_gates": LatexForm("", r"-z_{ab}", note="every other gate"),
            "gamma_min": LatexForm("", r"\gamma_j = \mu - w(j)", note=r"every $j \ge 2$"),
            "positive_difference": LatexForm("", r"D = w(0) - w(1)"),
            "gate_order": LatexForm("", r"z_{00} - z_{11}"),
        }),
    "loss_excess_box": LatexForm(
        f"{_BOX},", r"b_0 = \Lambda_4 - 3\log 2",
        note=r"with $\Lambda_4 = \ell_0(z_{00}) + \ell_1(z_{01}) + \ell_1(z_{10}) + \ell_2(z_{11}) - \log p$; this "
             r"end is at least $b_+ = \max_{a, b \in \{-r, r\}} \bigl(\ell_0^+(X - 2r) + 2 \max(\ell_1^+(s - 2r), "
             r"\ell_1^+(s + 2r)) + \ell_2^+(e + 2r)\bigr) - \log p - 3\log 2$ with $D = d + a - b$, "
             r"$\ell_0^+(z) = \log(1 + e^{-zD} + (p - 2) e^{-z(E + d - r_w + a)})$, "
             r"$\ell_1^+(z) = \log(1 + e^{zD} + (p - 2) e^{-z(E - r_w + b)})$, "
             r"$\ell_2^+(z) = \log(e^{z(E + d + a + r_w)} + e^{z(E + b + r_w)} + 1 + (p - 3) e^{2r_wz})$, "
             r"$s = (X + e)/2$, $r_w = r + g$, the upper bound of $b_0$ that the window and capture claims use (not "
             r"this end; Remarks S3.6 (ii), S3.7)"),
    "window_box": LatexForm(
        rf"{_BOX}, with $b_0 = \Lambda_4 - 3\log 2$, Remark S3.6 (i)'s $\rho_+$ (of the capture claim) and "
        rf"$\beta(p, \rho) = \min(\log(p/4), 2/((p - 1)\rho))$,", r"\beta(p, \rho_+) - b_0",
        note=r"so $b_0 < \beta(p, \rho_+)$: the window of (S.36) at Remark S3.6 (i)'s $\rho_+$"),
    "capture_box": LatexForm(
        rf"{_BOX}, with Remarks S3.5 and S3.7's bounds ($r_w = r + g$) $e_+ = e + 2r$ of $e = z_{{11}}$, $D_{{-0}} = d - 2r$ and "
        rf"$D_{{+0}} = d + 2r$ of $D_0$, $X_{{\pm0}} = X \pm 2r$ of $z_{{00}}$, $z_{{+0}} = s + 2r$ of $z_{{01}}, "
        rf"z_{{10}}$, $M_{{+0}} = E + d + r + r_w$ of $w(0) - \min_{{j \ge 2}} w(j)$, $N_{{+0}} = E + r + r_w$ of "
        rf"$w(1) - \min_{{j \ge 2}} w(j)$, $m_- = \min(s, t) - 2r$ of $m$, "
        rf"$S_{{-0}} = (p - 2)(\mu_0 - 2(r + r_w)/p)$ of $\sum_{{j \ge 2}} \gamma_j$, "
        rf"$g_{{\pm0}} = \mu_0 \pm (2r + 2(p - 2) r_w)/p$ of $\gamma_{{\min}}, \gamma_2$ and "
        rf"$\gamma_{{\max}}$, $b_+$ of $b_0$ (the closed form of the loss excess claim), and "
        rf"$\epsilon = e_+^2/h$, $\delta_c = \sqrt{{2 b_+ e_+/h}}$, $g_- = g_{{-0}} - \epsilon$, "
        rf"$S_- = S_{{-0}} - \epsilon$, $\eta = ((X_{{+0}} + \delta_c) b_+ + e_+) e_+/h$, "
        rf"$\rho_+ = (g_{{+0}} + \min(\delta_c, \eta))/g_-$, "
        rf"$s_{{2+}} = (X_{{+0}} + \delta_c)^2 + 2(z_{{+0}} + \delta_c)^2 + e_+^2$, $z_+ = z_{{+0}} + \delta_c$, "
        rf"$M_+ = M_{{+0}} + \delta_c$, $X_- = X_{{-0}} - \delta_c$, $\kappa_- = \tfrac34 q_*(b_+) X_-^2$",
        note=r"with the pattern and window claims, (S.36) at Remark S3.6 (i)'s $\rho_+$ holds at every point of the "
             r"box: the box lies in $U_{\mathrm{II}}^{\mathrm{above}}$, the "
             r"Clarke trajectory from each of its points is unique, the gate $(1, 1)$ comes down onto its kink "
             r"with $D \ge D_- > 0$ and slides on it for all later $t$, and the $(1, 2)$ pattern is kept "
             r"(Proposition S3.4, Theorem S3)",
        components={
            "reach": LatexForm("", r"m_- - \delta_c"),
            "gamma_floor": LatexForm("", r"g_-"),
            "rate": LatexForm("", r"2(g_{-0} - \epsilon) - b_+ (N_{+0} + \delta_c) - h"),
            "difference_floor": LatexForm("", r"D_- = D_{-0} e^{-s_{2+} e_+/h} - \epsilon"),
            "cone": LatexForm("", r"\kappa_- - 2 b_+"),
            "race": LatexForm("", r"\log S_- - z_+ M_+ - \frac{(z_+ + M_+)^2 b_+}{2(\kappa_- - 2 b_+)} - \log D_{+0}",
                              note="(S.36)"),
        }),
    "capture_time_box": LatexForm(
        f"{_BOX},", r"t_c = p^2 (e + 2r)/h",
        note=r"the gate $(1, 1)$ reaches its kink from above, with $D > 0$, before the time $t_c$ "
             r"(Proposition S3.4)"),
    "purity_margin_box": LatexForm(
        r"along every trajectory from the box and for all $t \ge 0$,", r"1 - \max_\zeta F_\zeta(\theta(t))",
        note="the trajectory never aligns to one Fourier class (Proposition S3.4, (S.37))"),
    "gaussian_probability": _gaussian_box(
        r"every point of the box lies in $U_{\mathrm{II}}^{\mathrm{above}}$ ((S.36) at Remark S3.6 (i)'s $\rho_+$; "
        r"Proposition S3.4); the bound is the mass "
        r"of the sup-norm box of radius $r$ inside the box"),
    "region_probability": LatexForm(
        _GAUSSIAN, _REGION_PROBABILITY,
        note=_widened_region(r"$U_{\mathrm{II}}^{\mathrm{above}}$", r"(S.36) at Remark S3.6 (i)'s $\rho_+$",
                             "Proposition S3.4", r"$z_{00} > z_{11}$", r"the box ($w(j)$, $j \ge 2$, within $r + g$)")),
}


def quoted_values(spec, statement: str) -> dict[str, str]:
    """The instance values (``sigma``, ``delta``, ...) that the plain ``statement`` of claim ``spec`` quotes,
    as written there: the statement is matched against the spec's template (the checker has compared it
    with the generated one before a document is made). InputError if it does not match."""
    template = spec.template()
    pattern, position = "", 0
    for match in _QUOTE.finditer(template):
        pattern += re.escape(template[position:match.start()])
        name = match.group(1)
        pattern += f"(?P={name})" if f"(?P<{name}>" in pattern else f"(?P<{name}>-?[0-9][0-9./e-]*)"
        position = match.end()
    pattern += re.escape(template[position:])
    found = re.fullmatch(pattern, statement) if isinstance(statement, str) else None
    if found is None:
        raise InputError(f"claim {spec.id}: the stored statement is not the claim's")
    return found.groupdict()


def _fill(text: str, values: dict) -> str:
    """``text`` with ``{name}`` quotes replaced by the claim's instance values, as exact LaTeX numbers."""
    def value(match) -> str:
        if match.group(1) not in values:
            raise InputError(f"no value for the quote {{{match.group(1)}}}")
        try:
            return latex_exact(values[match.group(1)])
        except ValueError as exc:
            raise InputError(f"the quoted {match.group(1)} is not a number: {exc}") from None

    return _QUOTE.sub(value, text)


def _relation_math(quantity: str, relation, stored: dict, bound: str) -> str:
    """``$quantity REL number$`` for each part the stored fields of ``relation`` state, with its landmarks
    and its compared closed form, all from ``relation``."""
    fields = {key: stored[key] for key in relation.keys() if key in stored}
    numbers = {key for key in ("exact", "lo", "hi", "log10_lo", "log10_hi") if key in stored}
    if numbers != set(relation.keys()):
        raise InputError(f"the stored numbers {sorted(stored)} are not those of a {relation.kind} relation")
    try:
        shown = display_parts(fields, "latex")
    except (ValueError, TypeError) as exc:
        raise InputError(f"a stored number cannot be shown: {exc}") from None
    # the landmarks are printed as facts: a stored end that does not beat its own (unchecked input) is refused
    for key, landmark, side in (("lo", relation.lo_above, 1), ("hi", relation.hi_below, -1)):
        if landmark is not None and compare(parse_number(fields[key]), parse_number(str(landmark))) != side:
            raise InputError(f"the stored {key} does not satisfy {key} {'>' if side > 0 else '<'} {landmark}")
    statements = [f"{quantity} {rel} {body}".strip() for rel, body in shown]
    # the landmarks bound the stored end itself (lo > 0, hi < 1), shown right after the value's statement:
    # after a number as "> 0", after an interval as "\subset (0, \infty)"
    if shown[0][0] == r"\in" and (relation.lo_above is not None or relation.hi_below is not None):
        low = r"-\infty" if relation.lo_above is None else str(relation.lo_above)
        high = r"\infty" if relation.hi_below is None else str(relation.hi_below)
        statements[0] += rf" \subset ({low}, {high})"
    else:
        if relation.lo_above is not None:
            statements[0] += rf" > {relation.lo_above}"
        if relation.hi_below is not None:
            statements[0] += rf" < {relation.hi_below}"
    text = "$" + r",\quad ".join(statements) + "$"
    if bound:  # the shown end of the value (the first part; a log10 twin comes after it)
        compared = r"\le" if relation.kind == "lower" else r"\ge"
        text += rf", where ${shown[0][1]} {compared} {bound}$"
    return text


def statement_latex(theorem: str, claim_id: str, stored: dict) -> str:
    """Claim ``claim_id`` of ``theorem`` with the ``stored`` claim of a checked certificate (its numbers and
    statement), as LaTeX running text (a sentence without its full stop).

    Guarantee: each number is shown by :func:`certify.render.numbers.display_parts` of exactly the fields
    its relation (from the claim's spec) stores, after the relation the spec gives it (``\\ge`` for a lower
    end, ``\\le`` for an upper one, ``\\in``/``=`` for an enclosure or an exact value), followed by the
    spec's landmarks and, for a one-sided claim with a closed form, that form on the side the checker
    compares it; quoted instance values are those of the stored statement, every digit. InputError if the
    stored numbers or statement are not the claim's, or the claim has no LaTeX form.
    """
    from ..kernel.registry import claim_spec

    form = FORMS.get(theorem, {}).get(claim_id)
    try:
        spec = claim_spec(theorem, claim_id)
    except KeyError:
        spec = None
    if spec is None or form is None:
        raise InputError(f"{theorem} has no claim {claim_id!r} with a LaTeX form")
    if not isinstance(stored, dict):
        raise InputError(f"claim {claim_id} is not an object")
    values = quoted_values(spec, stored.get("statement"))
    parts = [form.prose] if form.prose else []
    if spec.relation is not None:
        try:
            parts.append(_relation_math(form.quantity, spec.relation, stored, form.bound))
        except InputError as exc:
            raise InputError(f"claim {claim_id}: {exc}") from None
        text = " ".join(parts)
    else:
        components = stored.get("components")
        if not isinstance(components, dict) or set(components) != {c.name for c in spec.components} \
                or set(form.components) != set(components):
            raise InputError(f"claim {claim_id}: the stored components are not the claim's")
        pieces = []
        for component in spec.components:
            sub = form.components[component.name]
            if not isinstance(components[component.name], dict):
                raise InputError(f"claim {claim_id}: component {component.name} is not an object")
            try:
                piece = _relation_math(sub.quantity, component.relation, components[component.name], sub.bound)
            except InputError as exc:
                raise InputError(f"claim {claim_id}/{component.name}: {exc}") from None
            pieces.append((f"{sub.prose} " if sub.prose else "") + piece + (f" ({sub.note})" if sub.note else ""))
        text = " ".join(parts) + ": " + "; ".join(pieces)
    if form.note:
        text += f"; {form.note}"
    if spec.source:
        text += f" ({latex_escape(spec.source)})"
    return _fill(text, values)
