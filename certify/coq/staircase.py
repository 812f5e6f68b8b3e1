"""Coq lemmas of a ``staircase`` certificate (Theorem S of docs/staircase.md on a box, section 9).

Every claim but ``gaussian_probability`` (certify.coq.gaussian) is stated with the certificate's own numbers;
the formula side transcribes docs/staircase.md, section 9.2, from p, X, s, D, E, the radius r and the base
point:

``pattern_box``        for every point of the box, each gate of each class (z00, z01, z10; z11; the boundary
                       gates z0j, zj0; z1j, zj1, zij) and gamma_j = mu - w(j), written with the coordinates it
                       depends on, each within r of the base point: lo <= the margin (by lra), and lo > 0
``loss_margin_box``    lo <= 2 ln 2 + 2/((p - 1) rho_+) - Lambda_+(z), rho_+ = 1 + 2r/g, g = mu_0 - 2(p-1)r/p,
                       at both ends z = s - 2r and z = s + 2r, where Lambda_+(z) = ell_0+ + 2 ell_1+(z) with
                       ell_0+ = ln(1 + e^{-(X-2r)(D-2r)} + (p-2) e^{-(X-2r)(E+D-2r)}) and
                       ell_1+(z) = ln(1 + e^{z(D+2r)} + (p-2) e^{-z(E-2r)}) (interval)
``purity_margin_box``  lo <= (1 - (sqrt F_0 + rho_+ - 1)^2) L_- / (2 L_- + C_+), F_0 = 2(1 + cos(2 PI/p))/(p-2),
                       L_- = (p-2)^2 g^2/2 + (p-2) g^2, C_+ >= max(0, p r^2 + sum (|u_a| + r)^2 + sum (|v_b| + r)^2
                       - sum (|w_c| - r)^2) (interval), and sqrt F_0 + rho_+ - 1 < 1
``region_probability`` log10_lo (lowered by what the mass proof loses, as gaussian_probability's) <=
                       (ln(p^2 (p - 1)) + ln widened_box_mass + ln F)/ln 10, and lo likewise: the mass of the
                       widened box B+ (section 11.14: the box with each u(i), v(i), i >= 2, widened down by 4 sigma),
                       proved as the box's (certify.coq.gaussian), and F = PI/(2 sqrt 2 p (r/sigma)^2), the factor
                       of its translates along the two invariant lines ((S.40), section 11.15); its twin pair and
                       lo > 0

and, first, ``base_point_*``: the certificate's base point is the construction of docs/staircase.md 9.1 in its
parameters. The steps from these numbers to the claims (a gate moves by at most 2r; the monotonicity of each
ell in the w-differences and its convexity in z, which put the worst point of the box at the ends written;
Proposition S.6's monotonicity in rho_0, L_0, C_+; the disjoint relabelled copies of the box) are
docs/staircase.md, section 9.2, named in each lemma's comment; they are not formalised here.
"""

from __future__ import annotations

from functools import cached_property

from flint import fmpq

from .export import SHARED_CLAIMS
from .family import BOX_TACTIC, base_point_lemmas
from .gaussian import (BOX, BOX_LN, CLAIM as GAUSSIAN, INTERVAL as GAUSSIAN_INTERVAL, LOG_BOUND, WIDE_BOX,
                       WIDE_BOX_LN, WIDE_LOG_BOUND, box_slack, initialisation_scale, lowered_lo, lowered_log10,
                       widened_box_lemmas, widened_box_slack)
from .lemma import Definition, Lemma, NotExported
from .relations import landmark_lemmas, relation, stated, twin_lemmas
from .terms import MAX_LITERAL_DIGITS, ident, number, real
from ..kernel.staircase import TAIL_DEPTH

#: The factor of the widened box's translates along the two invariant lines ((S.40), docs/staircase.md 11.15)
TRANSLATES = "region_probability_translates_factor"

#: Bits for ``interval`` on the loss and purity margins (their ends are written to about 12-45 digits).
INTERVAL = "interval with (i_prec 200)."

#: The base point of docs/staircase.md 9.1 in the parameters (certify.kernel.staircase.staircase_base_point).
_MU0 = "(2 * {E} + {D}) / {p}"
STAIRCASE_BASE_POINT = {
    "u": ("{X} / 2", "{s} - {X} / 2", "- ({X} / 2) - {s}"),
    "v": ("{X} / 2", "{s} - {X} / 2", "- ({X} / 2) - {s}"),
    "w": (f"{{E}} + {{D}} - {_MU0}", f"{{E}} - {_MU0}", f"- ({_MU0})"),
}
BASE_POINT_PAPER = ("the base point of docs/staircase.md 9.1: u = v = (X/2, s - X/2, -X/2 - s, ...), "
                    "w = (E + D, E, 0, ...) - mu_0, mu_0 = (2E + D)/p; every claim below is about this one point's box")
SECTION = "docs/staircase.md, section 9.2"

#: Theorem S1's base point of docs/staircase.md 10.6 in the parameters (certify.kernel.staircase.memorise_base_point).
MEMORISE_BASE_POINT = {
    "u": ("{X} / 2", "- ({X} / 2) - {s}"),
    "v": ("{X} / 2", "- ({X} / 2) - {s}"),
    "w": ("{E} - {E} / {p}", "- ({E} / {p})"),
}
MEMORISE_BASE_POINT_PAPER = ("the base point of docs/staircase.md 10.6: u = v = (X/2, -X/2 - s, ...), "
                             "w = (E, 0, ...) - mu_0, mu_0 = E/p; every claim below is about this one point's box")
MEMORISE_SECTION = "docs/staircase.md, section 10.6"


def staircase_obligations(document: dict) -> list:
    """The lemmas and non-exported claims of a ``staircase`` certificate (see the module docstring)."""
    items: list = base_point_lemmas(document, STAIRCASE_BASE_POINT, BASE_POINT_PAPER)  # first: the levels checked
    # every claim below is Theorem S's, the k = 2 staircase: a certificate stating another k gets a false lemma
    items.append(Lemma("parameter_k", "base_point", f"{real(number(document['parameters']['k'], 'k'))} = 2", "lra.",
                       "Theorem S is the (1, 2) staircase, k = 2: the only k certify staircase certifies"))
    return items + _claim_lemmas(_Staircase(document), "certify.coq.staircase")


def memorise_obligations(document: dict) -> list:
    """The lemmas and non-exported claims of a ``memorise`` certificate (Theorem S1, docs/staircase.md 10.6):
    the same claims as the staircase's, for one active gate (see :class:`_Memorise`)."""
    items: list = base_point_lemmas(document, MEMORISE_BASE_POINT, MEMORISE_BASE_POINT_PAPER)
    return items + _claim_lemmas(_Memorise(document), "certify.coq.staircase (memorise)")


def _claim_lemmas(numbers: "_Staircase", exporter: str) -> list:
    """One method of ``numbers`` per claim of its certificate; NotExported for a claim it cannot state."""
    document, items = numbers.document, []
    builders = numbers.builders()
    for claim in document["claims"]:
        if claim in SHARED_CLAIMS and claim not in builders:  # certify.coq.export covers them
            continue
        if claim in numbers.NOT_EXPORTED:
            items.append(NotExported(claim, numbers.NOT_EXPORTED[claim]))
            continue
        if claim not in builders:
            items.append(NotExported(claim, f"no Coq statement of this claim in {exporter}"))
            continue
        try:
            items.extend(builders[claim]())
        except ValueError as error:  # a literal too long for Coq, or a reduction that does not apply
            items.append(NotExported(claim, str(error)))
    return items


#: Claims with no Coq route, and why (docs/coq.md, "Theorem by theorem"): Theorem S's, then Theorem S1's.
NOT_EXPORTED = {
    "whole_region_probability": (
        "Proposition S.25 sums about 3000 cells of w's coordinates (D, E, spread) at p = 5 and 7, each with an index "
        "t_kl proved by (S.44) for each of about 3600 pairs of the gates' cells and the gates' mass above it, a sum "
        "of about 10^4 products of differences of Phi; an interval proof of each Phi by integral would take hours "
        "of coqc: the claim rests on the kernel and the checker alone"),
}
MEMORISE_NOT_EXPORTED = {
    "whole_region_probability": (
        "Proposition S1.8 sums about 8000 cells, each with a threshold proved by (S1.6) and a box mass of Lemma "
        "S1.10, over 1200 values of the gates' mass H, each a sum of about 2000 powers of Phi; an interval proof of "
        "each Phi by integral would take hours of coqc: the claim rests on the kernel and the checker alone"),
}

#: The claims this exporter states itself although certify.coq.export shares them (it then lists them not).
OWN_SHARED_CLAIMS = ("region_probability",)


class _Staircase:
    """The certificate's numbers as exact values and Coq terms, and one method per claim."""

    SECTION = SECTION
    PARAMETERS = ("X", "s", "D", "E")
    NOT_EXPORTED = NOT_EXPORTED

    def __init__(self, document: dict):
        self.document = document
        self.p = int(document["p"])
        parameters = document["parameters"]
        self.values = {name: number(parameters[name], name) for name in self.PARAMETERS}
        self.r = number(document["radius"], "radius")
        self.levels = {block: tuple(number(document["base_point"][block][level], "base point")
                                    for level in self.LEVELS) for block in "uvw"}

    #: the stored levels of each block, and how many coordinates each stands for (at p)
    LEVELS = ("at_0", "at_1", "elsewhere")

    def counts(self) -> tuple[int, ...]:
        return (1, 1, self.p - 2)

    #: Coq terms of the purity margin: the F of Step 2 and L_- (g the lower bound of gamma_j), with {p}, {g}
    F_TERM = "(2 * (1 + cos (2 * PI / {p})) / ({p} - 2))"
    L_TERM = "(({p} - 2) ^ 2 * {g} ^ 2 / 2 + ({p} - 2) * {g} ^ 2)"
    PURITY_PAPER = ("Proposition S.6 at rho_0 <= rho_+, L_0 >= L_- and C_+ <= the number written (|mu| <= r, each "
                    "coordinate within r of the base point): delta decreases in rho_0 and C_+ and increases in L_0")
    PURITY_HYPOTHESIS = "the hypothesis sqrt(F_0) + rho_0 - 1 < 1 of Proposition S.6, at rho_0 <= rho_+"
    #: the disjoint relabelled copies of the box (a Coq term with {p}) and why
    COPIES = "({p} ^ 2 * ({p} - 1))"
    COPIES_PAPER = ("the widened box B+ (section 11.14: it lies in the region as the box does) and its translates by "
                    "2r (k d_uv + l d_w), k, l integers (Lemma S.19: the region is invariant along d_uv and d_w), are "
                    "disjoint, of total mass at least P(B+) F (Lemma S.20, Proposition S.21, section 11.15); their "
                    "p^2 (p - 1) images under the affine relabellings are disjoint (the active set names the "
                    "relabelling, and the translates keep every gate), each inside R, and R lies in the initially "
                    "active set, so P(R | active) >= p^2 (p - 1) P(B+) F")

    #: whether region_probability measures the widened box B+ (docs/staircase.md, section 11.14) or the box
    WIDENED = True

    #: whether the box's gate (1, 1) is active (z11 > 0, Proposition S3.4) rather than inactive (z11 < 0)
    GATE_11_ACTIVE = False

    def term(self, name: str) -> str:
        return real(self.values[name] if name in self.values else self.r)

    @property
    def _rw(self) -> fmpq:
        """How far each w(j), j >= 2, moves on the box: r (twin_above's box lets them move r + g)."""
        return self.r

    def builders(self) -> dict:
        """{claim id: the method that states it}."""
        return {"pattern_box": self.pattern_box, "loss_margin_box": self.loss_margin_box,
                "purity_margin_box": self.purity_margin_box, "region_probability": self.region_probability}

    # -- claims ------------------------------------------------------------------------------

    def pattern_box(self) -> list:
        """Each gate class and gamma_j at every point of the box, by lra on |coordinate - base| <= r (each w(j), j >= 2,
        within :attr:`_rw`)."""
        r, rw = real(self.r), real(self._rw)
        (u0, u1, uj), (v0, v1, vj), (w0, w1, wj) = ((real(x) for x in self.levels[b]) for b in "uvw")
        p = self.p
        gates = f"forall a b : R, Rabs (a - {{u}}) <= {r} -> Rabs (b - {{v}}) <= {r} -> {{q}}"
        positive, negative = "{a + b}", "{- (a + b)}"
        statements = {
            "active_gates": [("z00", gates.format(u=u0, v=v0, q=positive)), ("z01", gates.format(u=u0, v=v1, q=positive)),
                             ("z10", gates.format(u=u1, v=v0, q=positive))],
            "gate_11": [("", gates.format(u=u1, v=v1, q=positive if self.GATE_11_ACTIVE else negative))],
            "boundary_gates": [("z0j", gates.format(u=u0, v=vj, q=negative)),
                               ("zj0", gates.format(u=uj, v=v0, q=negative))],
            "other_gates": [("z1j", gates.format(u=u1, v=vj, q=negative)), ("zj1", gates.format(u=uj, v=v1, q=negative)),
                            ("zij", gates.format(u=uj, v=vj, q=negative))],
            # gamma_j = mu - w(j) = (w(0) + w(1) + t)/p - (p - 1)/p w(j), t the sum of the other p - 3 labels
            "gamma_min": [("", f"forall a b t c : R, Rabs (a - {w0}) <= {r} -> Rabs (b - {w1}) <= {r} -> "
                               f"Rabs (t - ({p} - 3) * {wj}) <= ({p} - 3) * {rw} -> Rabs (c - {wj}) <= {rw} -> "
                               "{gamma}")],
        }
        quantities = {positive: "a + b", negative: "- (a + b)",
                      "{gamma}": f"(a + b + t) / {p} - ({p} - 1) / {p} * c"}
        return self._pattern_lemmas(statements, quantities, "the box lies in the pattern P of Theorem S, the "
                                                            "boundary gates strictly negative (U_stair)")

    def _pattern_lemmas(self, statements: dict, quantities: dict, why_positive: str) -> list:
        """One lemma per gate class (or gamma_j) and variant: lo <= the quantity on the box (lra), and lo > 0."""
        lemmas: list = []
        for component, variants in statements.items():
            if component not in self.document["claims"]["pattern_box"]["components"]:
                lemmas.append(NotExported("pattern_box", f"the component {component} is missing from the certificate"))
                continue
            for variant, statement in variants:
                for placeholder, quantity in quantities.items():
                    statement = statement.replace(placeholder, stated(self.document, "pattern_box", "lo", quantity,
                                                                      component))
                lemmas.append(Lemma(ident("pattern_box", component, variant, "lo"), "pattern_box", statement,
                                    BOX_TACTIC, f"{self.SECTION}: each coordinate of a box point within r of the "
                                                "base point; the margin bounds the gate class (or gamma_j) on the box"))
            lemmas += landmark_lemmas(self.document, "pattern_box", "lo", component,
                                      paper=f"the margin is positive: {why_positive}")
        return lemmas

    def _mu0(self) -> str:
        """mu_0 = (2E + D)/p, the mean subtracted from w (a Coq term, bracketed by its caller)."""
        return f"(2 * {self.term('E')} + {self.term('D')}) / {self.p}"

    def _g(self) -> str:
        """g = mu_0 - 2(p - 1) r/p, the lower bound of every gamma_j on the box (a Coq term)."""
        p, r = self.p, real(self.r)
        return f"({self._mu0()} - 2 * ({p} - 1) * {r} / {p})"

    def _rho(self) -> str:
        return f"(1 + 2 * {real(self.r)} / {self._g()})"

    def _loss_terms(self, X: fmpq, s: fmpq, D: fmpq, E: fmpq) -> tuple[str, list[tuple[str, str]]]:
        """Section 9.2's worst case of Lambda on the box, as Coq terms: ell_0+(X - 2r) = ln(1 + e^{-(X-2r)(D-2r)} +
        (p-2) e^{-(X-2r)(E+D-2r)}), and (end, ell_1+(z)) at z = s - 2r and s + 2r, ell_1+(z) = ln(1 + e^{z(D+2r)} +
        (p-2) e^{-z(E-2r)}). ValueError unless D, s, E > 2r (the signs of the exponents the reduction uses)."""
        r, p = self.r, self.p
        if not (D - 2 * r > 0 and s - 2 * r > 0 and E - 2 * r > 0):
            raise ValueError("the reduction of section 9.2 needs D, s, E > 2r (the signs of the exponents)")
        ell_0 = (f"ln (1 + exp (- ({real(X - 2 * r)}) * ({real(D - 2 * r)})) + ({p} - 2) * "
                 f"exp (- ({real(X - 2 * r)}) * ({real(E + D - 2 * r)})))")
        return ell_0, [(end, f"ln (1 + exp (({real(z)}) * ({real(D + 2 * r)})) + ({p} - 2) * "
                             f"exp (- ({real(z)}) * ({real(E - 2 * r)})))")
                       for end, z in (("z_low", s - 2 * r), ("z_high", s + 2 * r))]

    def loss_margin_box(self) -> list[Lemma]:
        """The (S.10) margin at the two ends z = s -+ 2r of the worst case of section 9.2 (interval)."""
        p = self.p
        ell_0, ends = self._loss_terms(*(self.values[name] for name in ("X", "s", "D", "E")))
        lemmas = []
        for end, ell_1 in ends:
            quantity = f"2 * ln 2 + 2 / (({p} - 1) * {self._rho()}) - ({ell_0} + 2 * {ell_1})"
            lemmas.append(Lemma(
                ident("loss_margin_box", "lo", end), "loss_margin_box",
                stated(self.document, "loss_margin_box", "lo", quantity), INTERVAL,
                f"{SECTION}: on the box rho <= rho_+ and Lambda <= ell_0+ + 2 max(ell_1+(s - 2r), ell_1+(s + 2r)) "
                f"(each ell increases in its w-differences, ell_0 decreases in z00, ell_1 is convex in z); "
                f"this is the end z = {'s - 2r' if end == 'z_low' else 's + 2r'}", fields=("lo",)))
        return lemmas + landmark_lemmas(self.document, "loss_margin_box", "lo",
                                        paper="the margin is positive: the box lies in U_stair of (S.10), and "
                                              "Theorem S holds from every point of it")

    #: the purity margin's name in the lemmas' words (delta of (S.15), delta_- of (S.37) for twin_above)
    DELTA = "delta"

    def purity_margin_box(self) -> list[Lemma]:
        """delta of (S.15) at rho_+, L_-, C_+ (interval, :meth:`_purity_end`), and its hypothesis
        sqrt F_0 + rho_+ - 1 < 1."""
        p = self.p
        L = self._L()
        spread = f"(sqrt {self.F_TERM.format(p=p)} + {self._rho()} - 1)"
        quantity = f"(1 - {spread} ^ 2) * {L} / (2 * {L} + {real(self._balance_upper())})"
        return [
            Lemma("purity_margin_box_hypothesis", "purity_margin_box", f"{spread} < 1", INTERVAL,
                  f"{self.SECTION}: {self.PURITY_HYPOTHESIS}"),
            self._purity_end(quantity),
            *landmark_lemmas(self.document, "purity_margin_box", "lo",
                             paper=f"{self.DELTA} > 0: max_zeta F_zeta(theta(t)) <= 1 - {self.DELTA} < 1 for all t"),
        ]

    def _L(self) -> str:
        """L_-, the lower bound of Proposition S.6's L on the box (a Coq term)."""
        return self.L_TERM.format(p=self.p, g=self._g())

    def _purity_end(self, quantity: str) -> Lemma:
        """lo <= the purity margin's closed form, to the stored end's digits."""
        return Lemma("purity_margin_box_lo", "purity_margin_box", stated(self.document, "purity_margin_box", "lo",
                                                                          quantity), INTERVAL,
                     f"{self.SECTION}: {self.PURITY_PAPER}")

    def _balance_upper(self) -> fmpq:
        """An exact upper bound of C_+ = max(0, p mu^2 + |u|^2 + |v|^2 - |w|^2) on the box (each coordinate within r of
        the base point, the w(j), j >= 2, of a three-level block within :attr:`_rw`; the base w has mean 0, so |mu| is
        at most the mean of the moves). ValueError unless every |w_c| >= its move at the base point."""
        p, r = self.p, self.r
        moves = (r,) * (len(self.counts()) - 1) + (self._rw,)  # the elsewhere level last
        C_plus = fmpq(p) * (sum(count * move for count, move in zip(self.counts(), moves)) / p) ** 2
        for block in "uv":
            C_plus += sum(count * (abs(level) + r) ** 2 for count, level in zip(self.counts(), self.levels[block]))
        for count, level, move in zip(self.counts(), self.levels["w"], moves):
            if not abs(level) >= move:
                raise ValueError("a coordinate of w is within its move of 0: the bound of C_+ needs |w_c| >= it")
            C_plus -= count * (abs(level) - move) ** 2
        return max(C_plus, fmpq(0))  # C_+ = max(0, ...) is at most this exact number

    def region_probability(self) -> list[Lemma]:
        """P(R | active) >= p^2 (p - 1) P(B), B the box (WIDENED false), or, for the (1, 2) records,
        P(R | active) >= p^2 (p - 1) P(B+) F with B+ the widened box of docs/staircase.md, section 11.14, and F the
        factor of its translates along the two invariant lines, (S.40) of section 11.15; from the mass lemmas of
        certify.coq.gaussian."""
        claim, p = "region_probability", self.p
        rel = relation(self.document, claim)
        if rel.keys() != ("lo", "log10_lo") or GAUSSIAN not in self.document["claims"]:
            raise ValueError("region_probability: not a lower bound with a log10 twin beside a box mass")
        copies = self.COPIES.format(p=p)
        paper = f"{self.SECTION}: {self.COPIES_PAPER}"
        items: list = []
        if self.WIDENED:
            depth = fmpq(TAIL_DEPTH)
            w_extra = self._rw - self.r
            slack, mass, log_bound, mass_ln = (widened_box_slack(self.document, depth, w_extra), WIDE_BOX,
                                               WIDE_LOG_BOUND, WIDE_BOX_LN)
            items = widened_box_lemmas(self.document, depth, w_extra)
            scaled_r = self.r / initialisation_scale(self.document)
            items.append(Definition(
                TRANSLATES, f"PI / (2 * sqrt 2 * {p} * {real(scaled_r)} ^ 2)", "R",
                "pi sigma^2/(2 sqrt(2) p r^2) (r/sigma written): the translates of B+ by 2r (k d_uv + l d_w), k, l "
                "integers, lie in the region (Lemma S.19: it is invariant along d_uv and d_w), are disjoint with "
                "disjoint relabelled copies, and have total mass at least P(B+) times this factor (Lemma S.20, "
                "Proposition S.21, (S.40), docs/staircase.md 11.15)", claim=claim))
            factor, unfold, factors = TRANSLATES, f"{log_bound}, {TRANSLATES}", f" + ln {TRANSLATES}"
        else:
            slack, mass, log_bound, mass_ln = box_slack(self.document), BOX, LOG_BOUND, BOX_LN
            factor, unfold, factors = "", log_bound, ""
        measured = f"{copies} * {mass}" + (f" * {factor}" if factor else "")
        what = ("widened box-mass" if self.WIDENED else "box-mass")
        stored_node = self.document["claims"][claim]
        log10_end, log10_digits = lowered_log10(number(stored_node["log10_lo"], f"{claim}.log10_lo"), slack)
        # ln copies + ln mass (+ ln F) >= ln copies + log_bound (+ ln F): the mass lemma in the middle term
        monotone = ("apply Rplus_le_compat_r. " if factor else "") + f"apply Rplus_le_compat_l. exact (proj2 {mass_ln})."
        lemmas = [Lemma(
            f"{claim}_log10_lo_{log10_digits}_digits", claim,
            f"{real(log10_end)} <= (ln {copies} + ln {mass}{factors}) / ln 10",
            f"apply Rle_trans with ((ln {copies} + {log_bound}{factors}) / ln 10); [unfold {unfold}; {GAUSSIAN_INTERVAL} | ].\n"
            f"  unfold Rdiv. apply Rmult_le_compat_r; [{GAUSSIAN_INTERVAL} | ].\n"
            f"  {monotone}",
            f"{paper}; log10_lo lowered by 4 s/ln 10 (s what the {what} integrals lose) and rounded down to "
            f"{log10_digits} significant digits", log10_digits)]
        (mantissa, exponent), lo_digits = lowered_lo(stored_node["lo"], slack, f"{claim}.lo")
        if exponent < 0:
            raise ValueError("region_probability: lo >= 1")
        lo_name = f"{claim}_lo_{lo_digits}_digits"
        why = f"{paper}; lo lowered by a relative 4 s and rounded down to {lo_digits} significant digits"
        if exponent <= MAX_LITERAL_DIGITS:  # as gaussian_probability's lo: beyond, the log form
            written = f"{mantissa} / 10 ^ {exponent}"
            if factor:  # ln (copies * mass * F) = ln copies + ln mass + ln F, each positive
                positive = (f"  assert (Hf : 0 < {factor}) by (unfold {factor}; {GAUSSIAN_INTERVAL}).\n"
                            f"  assert (Hcm : 0 < {copies} * {mass}) by (apply Rmult_lt_0_compat; assumption).\n")
                split = "  rewrite (ln_mult _ _ Hcm Hf), (ln_mult _ _ Hc Hpos) in H.\n"
            else:
                positive, split = "", "  rewrite ln_mult in H by assumption.\n"
            lemmas.append(Lemma(
                lo_name, claim, f"{written} <= {measured}",
                f"destruct {mass_ln} as [Hpos Hln].\n"
                f"  assert (Hc : 0 < {copies}) by {GAUSSIAN_INTERVAL}.\n"
                + positive +
                f"  destruct (Rle_or_lt ({written}) ({measured})) as [H | H]; [exact H | exfalso].\n"
                f"  apply ln_increasing in H; [ | apply Rmult_lt_0_compat; assumption].\n"
                + split +
                f"  assert (ln ({written}) <= ln {copies} + {log_bound}{factors}) by (unfold {unfold}; {GAUSSIAN_INTERVAL}).\n"
                f"  lra.", why, lo_digits))
        else:
            lemmas.append(Lemma(
                lo_name, claim, f"ln {mantissa} - {exponent} * ln 10 <= ln {copies} + ln {mass}{factors}",
                f"apply Rle_trans with (ln {copies} + {log_bound}{factors}); [unfold {unfold}; {GAUSSIAN_INTERVAL} | ].\n"
                f"  {monotone}",
                f"{why}, in logarithms (its literal is too long for Coq)", lo_digits))
        return landmark_lemmas(self.document, claim, "lo") + twin_lemmas(self.document, claim) + items + lemmas


class _Memorise(_Staircase):
    """Theorem S1's certificate (one active gate, docs/staircase.md 10.6): two-level blocks, its own pattern and
    loss margin; the purity margin and the region bound are the staircase's with F_1, L_-, and p^2 copies."""

    SECTION = MEMORISE_SECTION
    PARAMETERS = ("X", "s", "E")
    NOT_EXPORTED = MEMORISE_NOT_EXPORTED
    LEVELS = ("at_0", "elsewhere")
    F_TERM = "(2 / ({p} - 1))"
    L_TERM = "(({p} - 1) ^ 2 * {g} ^ 2 + ({p} - 1) * {g} ^ 2)"
    PURITY_PAPER = ("Proposition S1.7 at rho_0 <= rho_+, L_0 >= L_- and C_+ <= the number written (|mu| <= r, each "
                    "coordinate within r of the base point): delta_1 decreases in rho_0 and C_+ and increases in L_0")
    PURITY_HYPOTHESIS = "the hypothesis sqrt(F_1) + rho_0 - 1 < 1 of Proposition S1.7, at rho_0 <= rho_+"
    WIDENED = False
    COPIES = "({p} ^ 2)"
    COPIES_PAPER = ("the p^2 translated images of the box are disjoint (each has its own active gate), each of the "
                    "box's Gaussian mass and inside R, and R lies in the initially active set, so "
                    "P(R | active) >= p^2 P(box)")

    def counts(self) -> tuple[int, ...]:
        return (1, self.p - 1)

    def _mu0(self) -> str:
        return f"{self.term('E')} / {self.p}"

    def pattern_box(self) -> list:
        """The gate (0, 0), the boundary gates, every other gate and gamma_j on the box, by lra."""
        r = real(self.r)
        (u0, uj), (v0, vj), (w0, wj) = ((real(x) for x in self.levels[b]) for b in "uvw")
        p = self.p
        gates = f"forall a b : R, Rabs (a - {{u}}) <= {r} -> Rabs (b - {{v}}) <= {r} -> {{q}}"
        positive, negative = "{a + b}", "{- (a + b)}"
        statements = {
            "active_gate": [("", gates.format(u=u0, v=v0, q=positive))],
            "boundary_gates": [("z0j", gates.format(u=u0, v=vj, q=negative)),
                               ("zj0", gates.format(u=uj, v=v0, q=negative))],
            "other_gates": [("", gates.format(u=uj, v=vj, q=negative))],
            # gamma_j = mu - w(j) = (w(0) + t)/p - (p - 1)/p w(j), t the sum of the other p - 2 labels
            "gamma_min": [("", f"forall a t c : R, Rabs (a - {w0}) <= {r} -> "
                               f"Rabs (t - ({p} - 2) * {wj}) <= ({p} - 2) * {r} -> Rabs (c - {wj}) <= {r} -> "
                               "{gamma}")],
        }
        quantities = {positive: "a + b", negative: "- (a + b)", "{gamma}": f"(a + t) / {p} - ({p} - 1) / {p} * c"}
        return self._pattern_lemmas(statements, quantities, "the box lies in the pattern P_1 of Theorem S1, the "
                                                            "boundary gates strictly negative (U_1)")

    def loss_margin_box(self) -> list[Lemma]:
        """The (S1.1) margin at the worst point of the box, 2/(p rho_+) - ell_0+(X - 2r) (interval)."""
        X, E = self.values["X"], self.values["E"]
        r, p = self.r, self.p
        if not (X - 2 * r > 0 and E - 2 * r > 0):
            raise ValueError("the reduction of section 10.6 needs X, E > 2r (the sign of the exponent)")
        ell_0 = f"ln (1 + ({p} - 1) * exp (- ({real(X - 2 * r)}) * ({real(E - 2 * r)})))"
        quantity = f"2 / ({p} * {self._rho()}) - {ell_0}"
        return [Lemma("loss_margin_box_lo", "loss_margin_box", stated(self.document, "loss_margin_box", "lo", quantity),
                      INTERVAL, f"{self.SECTION}: on the box rho <= rho_+ and ell_0(z00) <= ell_0+(X - 2r) (ell_0 "
                                "increases in each w-difference w(c) - w(0) <= -E + 2r, and decreases in z00 >= X - 2r)",
                      fields=("lo",))] + \
            landmark_lemmas(self.document, "loss_margin_box", "lo",
                            paper="the margin is positive: the box lies in U_1 of (S1.1), and Theorem S1 holds from "
                                  "every point of it")


# -- Proposition S2.2 on a box: the twin (docs/staircase.md, section 11.9) -----------------------------------

#: The twin's base point of docs/staircase.md 11.9 in the parameters (certify.kernel.twin.twin_base_point).
_TWIN_MU0 = "(2 * {E} - {d}) / {p}"
TWIN_BASE_POINT = {
    "u": ("{X} / 2", "{s} - {X} / 2", "- ({X} / 2) - {t}"),
    "v": ("{X} / 2", "{s} - {X} / 2", "- ({X} / 2) - {t}"),
    "w": (f"{{E}} - {{d}} - {_TWIN_MU0}", f"{{E}} - {_TWIN_MU0}", f"- ({_TWIN_MU0})"),
}
TWIN_BASE_POINT_PAPER = ("the base point of docs/staircase.md 11.9: u = v = (X/2, s - X/2, -X/2 - t, ...), "
                         "w = (E - d, E, 0, ...) - mu_0, mu_0 = (2E - d)/p; every claim below is about this one "
                         "point's box")
TWIN_SECTION = "docs/staircase.md, section 11.9"
#: Significant digits of the window, capture and capture-time lemmas: they take b_+ as the exporter's own bound
#: (rounded up to 30 digits), which lies above the kernel's b_+ by that rounding, so their full-digit ends may not hold.
TWIN_DIGITS = 12


def twin_obligations(document: dict) -> list:
    """The lemmas of a ``twin`` certificate (Proposition S2.2 on a box, docs/staircase.md 11.9): the base point,
    then each claim (see :class:`_Twin`)."""
    items: list = base_point_lemmas(document, TWIN_BASE_POINT, TWIN_BASE_POINT_PAPER)
    return items + _claim_lemmas(_Twin(document), "certify.coq.staircase (twin)")


class _Twin(_Staircase):
    """The twin's certificate: Theorem S's three-level blocks and its purity and region lemmas (the same (S.15)
    and p^2 (p - 1) copies), its own pattern, and the window and capture claims of section 11.9 stated with
    b_+ = the exporter's own upper bound of section 11.9's closed form, proved >= both its ends in Coq (the
    window_box_b_plus lemmas), so that no claim's lemmas depend on another claim's stored end."""

    SECTION = TWIN_SECTION
    PARAMETERS = ("X", "s", "t", "d", "E", "s2_max")
    PURITY_PAPER = ("Proposition S.6 (through Proposition S2.2) at rho_0 <= rho_+, L_0 >= L_- and C_+ <= the number "
                    "written: delta decreases in rho_0 and C_+ and increases in L_0")

    def _mu0(self) -> str:
        return f"(2 * {self.term('E')} - {self.term('d')}) / {self.p}"

    def builders(self) -> dict:
        return {"pattern_box": self.pattern_box, "loss_excess_box": self.loss_excess_box,
                "window_box": self.window_box, "capture_box": self.capture_box,
                "capture_time_box": self.capture_time_box, "purity_margin_box": self.purity_margin_box,
                "region_probability": self.region_probability}

    #: The pattern's component bounding D's sign: (its name, the Coq term in a = w(0) and b = w(1), the quantity in
    #: words, the sign it proves) -- -D > 0 here, D > 0 for twin_plus.
    DIFFERENCE = ("twin_difference", "b - a", "-D = w(1) - w(0)", "D < 0")
    PROPOSITION = "Proposition S2.2"

    def pattern_box(self) -> list:
        """Each gate class, gamma_j and the sign of D at every point of the box, by lra on |coordinate - base| <= r."""
        lemmas = _Staircase.pattern_box(self)
        name, quantity, words, sign = self.DIFFERENCE
        if name not in self.document["claims"]["pattern_box"]["components"]:
            return lemmas + [NotExported("pattern_box", f"the component {name} is missing from the certificate")]
        r = real(self.r)
        w0, w1 = (real(x) for x in self.levels["w"][:2])
        statement = stated(self.document, "pattern_box", "lo", quantity, name)
        return lemmas + [
            Lemma(f"pattern_box_{name}_lo", "pattern_box",
                  f"forall a b : R, Rabs (a - {w0}) <= {r} -> Rabs (b - {w1}) <= {r} -> {statement}", BOX_TACTIC,
                  f"{self.SECTION}: w(0) and w(1) within r of the base point; the margin bounds {words}"),
            *landmark_lemmas(self.document, "pattern_box", "lo", name,
                             paper=f"the margin is positive: {sign} on the box")]

    def _pattern_lemmas(self, statements: dict, quantities: dict, why_positive: str) -> list:
        return _Staircase._pattern_lemmas(self, statements, quantities, f"the box lies in the pattern of "
                                                                        f"{self.PROPOSITION} (z11 < 0, every other "
                                                                        "inactive gate < 0)")

    #: Significant digits of the exporter's own b_+ (rounded up from the kernel's closed form, docs/staircase.md 11.9).
    B_PLUS_DIGITS = 30

    #: Whether the capture lemmas need b_+ > 0 (they write b_+^0 = max(b_+, 0) as b_+: twin_plus, twin_above).
    B_PLUS_POSITIVE = False

    def _closed_form(self):
        """The kernel's parameters class and its closed form of b_+ (the upper end bounds b on the box)."""
        from ..kernel.twin import TwinParameters, loss_excess_upper
        return TwinParameters, loss_excess_upper

    @cached_property
    def _kernel_b_plus(self) -> fmpq:
        """The upper end of the kernel's closed form of b_+ (:meth:`_closed_form`) at 128 bits, exactly. ValueError
        if the kernel refuses these parameters, or (with B_PLUS_POSITIVE) if it is not positive."""
        from ..errors import NotCertified
        from ..kernel.balls import working_precision

        parameters_class, loss_excess_upper = self._closed_form()
        try:
            params = parameters_class(self.p, *(self.values[name] for name in self.PARAMETERS))
            with working_precision(128):
                upper = loss_excess_upper(params, self.r).upper().mid().fmpq()
        except (NotCertified, ZeroDivisionError, ValueError) as error:
            raise ValueError(f"no closed form of b_+ for these parameters: {error}") from None
        if self.B_PLUS_POSITIVE and not upper > 0:  # the capture lemmas write b_+^0 = max(b_+, 0) as b_+
            raise ValueError("b_+ is not positive: the capture lemmas are written for b_+^0 = b_+")
        return upper

    @cached_property
    def _b_term(self) -> str:
        """b_+: the exporter's own upper bound of the kernel's closed form (section 11.9, 11.11 or 11.12), rounded up
        to B_PLUS_DIGITS, which :meth:`window_box` proves >= every end in Coq. Not the stored loss_excess_box end: a
        certificate may state that end looser (it is only an upper bound), and the window and capture lemmas must
        not depend on it."""
        from .terms import round_up

        return real(round_up(self._kernel_b_plus, self.B_PLUS_DIGITS))

    def _b(self) -> str:
        return self._b_term

    def _excess_ends(self) -> list[tuple[str, str]]:
        """(end, Coq term of ell_0+(z) + 2 ell_1+(s - 2r) - 3 ln 2) at z = X - 2r and X + 2r (section 11.9)."""
        X, s, d, E = (self.values[name] for name in ("X", "s", "d", "E"))
        r, p = self.r, self.p
        if not (d - 2 * r > 0 and s - 2 * r > 0 and E - 2 * r > 0):
            raise ValueError("the reduction of section 11.9 needs d, s, E > 2r (the signs of the exponents)")
        ell_1 = (f"ln (1 + exp (- ({real(s - 2 * r)}) * ({real(d - 2 * r)})) + ({p} - 2) * "
                 f"exp (- ({real(s - 2 * r)}) * ({real(E - 2 * r)})))")
        ends = []
        for end, z in (("z_low", X - 2 * r), ("z_high", X + 2 * r)):
            ell_0 = (f"ln (1 + exp (({real(z)}) * ({real(d + 2 * r)})) + ({p} - 2) * "
                     f"exp (- ({real(z)}) * ({real(E - d - 2 * r)})))")
            ends.append((end, f"{ell_0} + 2 * {ell_1} - 3 * ln 2"))
        return ends

    #: Why the closed form bounds b on the box (the comment of each lemma stating an end of it).
    EXCESS_PAPER = ("on the box Lambda <= max(ell_0+(X - 2r), ell_0+(X + 2r)) + 2 ell_1+(s - 2r) (each ell increases "
                    "in its w-differences, ell_0+ is convex and ell_1+ decreasing in z)")

    def loss_excess_box(self) -> list[Lemma]:
        """b <= hi at each end of :meth:`_excess_ends` (interval): for the twin, z00 = X -+ 2r of the worst case of
        section 11.9."""
        return [Lemma(ident("loss_excess_box", "hi", end), "loss_excess_box",
                      stated(self.document, "loss_excess_box", "hi", quantity), INTERVAL,
                      f"{self.SECTION}: {self.EXCESS_PAPER}; this is the end {self._end_words(end)}", fields=("hi",))
                for end, quantity in self._excess_ends()]

    def _end_words(self, end: str) -> str:
        """The words of an end of :meth:`_excess_ends`, for its lemma's comment."""
        return f"z00 = {'X - 2r' if end == 'z_low' else 'X + 2r'}"

    def _weak(self, claim: str, key: str, quantity: str, component: str | None, name: str, paper: str) -> Lemma:
        statement = stated(self.document, claim, key, quantity, component, digits=TWIN_DIGITS)
        return Lemma(name, claim, statement, INTERVAL, f"{self.SECTION}: {paper}", TWIN_DIGITS)

    def _phi(self, b: str) -> str:
        """Phi(b; p, rho_+) of (S.27) (a Coq term)."""
        p, lp4 = self.p, f"ln ({self.p} / 4)"
        k = f"(2 * (ln 2 + {b}) / ({lp4} - 2 * {b}))"
        w1 = f"((1 + {k}) * ({p} - 2) * {self._rho()} / (2 + {k}))"
        return f"({b} * ({w1} + {self._rho()}) + 2 * {_acosh(f'exp {b}')} * {w1} / ({lp4} - {b}))"

    def window_box(self) -> list[Lemma]:
        """min(1, ln(p/4)/2) - b_+ (two lemmas) and 2 - Phi(b_+; p, rho_+), rounded down to TWIN_DIGITS."""
        b, p = self._b(), self.p
        why = "Phi increases in b and rho (section 11.5), b <= b_+ and rho <= rho_+ on the box"
        lemmas = [
            Lemma(f"window_box_b_plus_{end}", "window_box", f"{quantity} <= {b}", INTERVAL,
                  f"{self.SECTION}: b_+, the number the window and capture lemmas take, is above this end, so "
                  f"above b on the box ({self.EXCESS_PAPER})")
            for end, quantity in self._excess_ends()] + [
            self._weak("window_box", "lo", f"1 - {b}", "loss_budget", f"window_box_loss_budget_lo_one_{TWIN_DIGITS}_digits",
                       "b <= b_+ on the box (loss_excess_box): the bound 1 - b of Lemma S.13"),
            self._weak("window_box", "lo", f"ln ({p} / 4) / 2 - {b}", "loss_budget",
                       f"window_box_loss_budget_lo_half_log_{TWIN_DIGITS}_digits",
                       "b <= b_+ on the box (loss_excess_box): the bound log(p/4)/2 - b of Lemma S.12"),
            self._weak("window_box", "lo", f"2 - {self._phi(b)}", "force_budget",
                       f"window_box_force_budget_lo_{TWIN_DIGITS}_digits", why)]
        for component in ("loss_budget", "force_budget"):
            lemmas += landmark_lemmas(self.document, "window_box", "lo", component,
                                      paper="the margin is positive: b < b_II(p, rho) on the box")
        return lemmas

    def _zeta(self) -> str:
        X, s, d, r = self.values["X"], self.values["s"], self.values["d"], self.r
        if not d - 2 * r > 0:
            raise ValueError("zeta_+ needs d > 2r")
        return real((X - 2 * s + 2 * r) / (d - 2 * r))

    def _kappa(self) -> str:
        b, zeta, s2 = self._b(), self._zeta(), self.term("s2_max")
        q_star = f"(2 * (1 - {b}) / (1 + exp (2 * {_acosh(f'exp {b}')})))"
        return f"({q_star} - {zeta} ^ 2 - {zeta} * {s2} / 2)"

    def capture_box(self) -> list[Lemma]:
        """kappa and s2_max - s1max^2 of (S.29) at Remark S2.3's upper bounds, rounded down to TWIN_DIGITS."""
        X, s, r, p = self.values["X"], self.values["s"], self.r, self.p
        s1 = real(X + 2 * s + 6 * r)
        S = f"(({p} - 2) * ({self._mu0()} + 2 * ({p} - 1) * {real(r)} / {p}))"
        a = f"(12 / ({p} - 2))"
        tau = f"({self._zeta()} / {self._kappa()})"
        x = f"(sqrt ({a} * {self._b()}) * {tau})"
        s1max = f"({s1} * ((exp {x} + exp (- {x})) / 2) + {a} * {S} * {tau} * ((exp {x} - exp (- {x})) / 2) / {x})"
        why = "Remark S2.3: (S.29) at b_+ (loss_excess_box), zeta_+, s1_+ and S_+ holds at every point of the box"
        lemmas = [self._weak("capture_box", "lo", self._kappa(), "cone", f"capture_box_cone_lo_{TWIN_DIGITS}_digits",
                             why),
                  self._weak("capture_box", "lo", f"{self.term('s2_max')} - {s1max} ^ 2", "growth",
                             f"capture_box_growth_lo_{TWIN_DIGITS}_digits", why)]
        for component in ("cone", "growth"):
            lemmas += landmark_lemmas(self.document, "capture_box", "lo", component,
                                      paper="the margin is positive: the box lies in U_II (Proposition S2.2)")
        return lemmas

    def capture_time_box(self) -> list[Lemma]:
        """t_c = p^2 zeta_+/kappa <= hi, rounded up to TWIN_DIGITS."""
        return [self._weak("capture_time_box", "hi", f"{self.p} ^ 2 * {self._zeta()} / {self._kappa()}", None,
                           f"capture_time_box_hi_{TWIN_DIGITS}_digits",
                           "Proposition S2.2 with Remark S2.3: the capture time is at most p^2 zeta_+/kappa")]


def _acosh(y: str) -> str:
    """acosh(y) = ln(y + sqrt(y^2 - 1)) for y >= 1 (a Coq term)."""
    return f"ln ({y} + sqrt (({y}) ^ 2 - 1))"


# -- Proposition S3.2 on a box: the twin captured from D > 0 (docs/staircase.md, section 11.11) ---------------

#: The base point of docs/staircase.md 11.11 in the parameters (certify.kernel.twin_plus.twin_plus_base_point).
_TWIN_PLUS_MU0 = "(2 * {E} + {d}) / {p}"
TWIN_PLUS_BASE_POINT = {
    "u": ("{X} / 2", "({X} - {e}) / 2 - {X} / 2", "- ({X} / 2) - {t}"),
    "v": ("{X} / 2", "({X} - {e}) / 2 - {X} / 2", "- ({X} / 2) - {t}"),
    "w": (f"{{E}} + {{d}} - {_TWIN_PLUS_MU0}", f"{{E}} - {_TWIN_PLUS_MU0}", f"- ({_TWIN_PLUS_MU0})"),
}
TWIN_PLUS_BASE_POINT_PAPER = ("the base point of docs/staircase.md 11.11: u = v = (X/2, s - X/2, -X/2 - t, ...), "
                              "s = (X - e)/2, w = (E + d, E, 0, ...) - mu_0, mu_0 = (2E + d)/p; every claim below is "
                              "about this one point's box")
TWIN_PLUS_SECTION = "docs/staircase.md, section 11.11"


def twin_plus_obligations(document: dict) -> list:
    """The lemmas of a ``twin_plus`` certificate (Proposition S3.2 on a box, docs/staircase.md 11.11): the base
    point, then each claim (see :class:`_TwinPlus`)."""
    items: list = base_point_lemmas(document, TWIN_PLUS_BASE_POINT, TWIN_PLUS_BASE_POINT_PAPER)
    return items + _claim_lemmas(_TwinPlus(document), "certify.coq.staircase (twin_plus)")


class _TwinPlus(_Twin):
    """The certificate of U_II^+ (section 11.11): Theorem S's three-level blocks, purity and region lemmas, the
    twin's pattern lemmas with D > 0 in place of -D > 0, and the window and capture claims of Remark S3.3 stated
    with b_+ = the exporter's own upper bound of the closed form (rounded up, proved >= both its ends in Coq), each
    to TWIN_DIGITS digits: every margin decreases in b, so a larger b_+ gives a weaker, still true, statement."""

    SECTION = TWIN_PLUS_SECTION
    PARAMETERS = ("X", "e", "t", "d", "E", "h")
    PURITY_PAPER = ("Proposition S.6 (through Proposition S3.2) at rho_0 <= rho_+, L_0 >= L_- and C_+ <= the number "
                    "written: delta decreases in rho_0 and C_+ and increases in L_0")
    EXCESS_PAPER = ("on the box Lambda <= ell_0+(X - 2r) + 2 max(ell_1+(s - 2r), ell_1+(s + 2r)) (each ell increases "
                    "in its w-differences, ell_0+ decreases and ell_1+ is convex in z; section 9.2 with D = d)")

    def _mu0(self) -> str:
        return f"(2 * {self.term('E')} + {self.term('d')}) / {self.p}"

    @property
    def _s(self) -> fmpq:
        return (self.values["X"] - self.values["e"]) / 2

    def builders(self) -> dict:
        return {"pattern_box": self.pattern_box, "loss_excess_box": self.loss_excess_box,
                "window_box": self.window_box, "capture_box": self.capture_box,
                "capture_time_box": self.capture_time_box, "purity_margin_box": self.purity_margin_box,
                "region_probability": self.region_probability}

    DIFFERENCE = ("positive_difference", "a - b", "D = w(0) - w(1)", "D > 0")
    PROPOSITION = "Proposition S3.2"

    B_PLUS_POSITIVE = True

    def _closed_form(self):
        from ..kernel.twin_plus import TwinPlusParameters, loss_excess_upper
        return TwinPlusParameters, loss_excess_upper

    def _excess_ends(self) -> list[tuple[str, str]]:
        """(end, Coq term of ell_0+(X - 2r) + 2 ell_1+(z) - 3 ln 2) at z = s - 2r and s + 2r (section 11.11: section
        9.2's worst case with D = d)."""
        ell_0, ends = self._loss_terms(self.values["X"], self._s, self.values["d"], self.values["E"])
        return [(end, f"{ell_0} + 2 * {ell_1} - 3 * ln 2") for end, ell_1 in ends]

    def _end_words(self, end: str) -> str:
        return f"z = {'s - 2r' if end == 'z_low' else 's + 2r'}"

    def window_box(self) -> list[Lemma]:
        """beta(p, rho_+) - b_+ as two lemmas (one per term of the min), rounded down to TWIN_DIGITS."""
        b, p = self._b(), self.p
        why = "beta decreases in rho, b <= b_+ and rho <= rho_+ on the box"
        lemmas = [
            Lemma(f"window_box_b_plus_{end}", "window_box", f"{quantity} <= {b}", INTERVAL,
                  f"{self.SECTION}: b_+, the number the window and capture lemmas take, is above this end, so "
                  f"above b on the box ({self.EXCESS_PAPER})")
            for end, quantity in self._excess_ends()] + [
            self._weak("window_box", "lo", f"ln ({p} / 4) - {b}", None, f"window_box_lo_log_{TWIN_DIGITS}_digits",
                       f"{why}: the term log(p/4) of beta"),
            self._weak("window_box", "lo", f"2 / (({p} - 1) * {self._rho()}) - {b}", None,
                       f"window_box_lo_rho_{TWIN_DIGITS}_digits", f"{why}: the term 2/((p - 1) rho) of beta")]
        return lemmas + landmark_lemmas(self.document, "window_box", "lo",
                                        paper="the margin is positive: b < beta(p, rho) on the box")

    def _capture_terms(self) -> dict[str, str]:
        """Coq terms of Remark S3.3's bounds (section 11.11): the exact ones as literals, the rest from b_+."""
        X, e, t, d, E, h = (self.values[name] for name in self.PARAMETERS)
        s, r, p = self._s, self.r, self.p
        e_plus = e + 2 * r
        D_plus = d + 2 * r + e_plus**2 / h
        S_minus = (p - 2) * ((2 * E + d) / p - 4 * r / p)
        if not S_minus > 0:
            raise ValueError("S_- is not positive")
        b = self._b()
        delta = f"(sqrt (2 * ({b} + {real(D_plus)} * {real(e_plus)} / 2) * {real(e_plus)} / {real(h)}))"
        z, M, Xm = (f"({real(s + 2 * r)} + {delta})", f"({real(E + d + 2 * r)} + {delta})",
                    f"({real(X - 2 * r)} - {delta})")
        kappa = f"(3 / 4 * (2 * (1 - {b}) / (1 + exp (2 * {_acosh(f'exp {b}')}))) * {Xm} ^ 2)"
        return {"b": b, "delta": delta, "z": z, "M": M, "kappa": kappa, "D": real(D_plus), "S": real(S_minus),
                "m": real(min(s, t) - 2 * r), "h": real(h)}

    def capture_box(self) -> list[Lemma]:
        """The four margins of (S.34) at Remark S3.3's bounds, rounded down to TWIN_DIGITS."""
        c, p = self._capture_terms(), self.p
        cone = f"({c['kappa']} - 2 * {c['b']})"
        quantities = {
            "reach": f"{c['m']} - {c['delta']}",
            "rate": f"2 / {p} * ({c['S']} * exp (- ({c['z']} * {c['M']})) - {c['D']}) - {c['h']}",
            "cone": cone,
            "race": f"ln {c['S']} - {c['z']} * {c['M']} - ({c['z']} + {c['M']}) ^ 2 * {c['b']} / (2 * {cone}) - "
                    f"ln {c['D']}",
        }
        why = ("Remark S3.3: (S.34) at e_+, D_+0, b_+ (loss_excess_box's closed form), z_+0, M_+0, m_-, X_-0 and S_- "
               "holds at every point of the box; the margin decreases in b")
        lemmas = []
        for component, quantity in quantities.items():
            lemmas.append(self._weak("capture_box", "lo", quantity, component,
                                     f"capture_box_{component}_lo_{TWIN_DIGITS}_digits", why))
            lemmas += landmark_lemmas(self.document, "capture_box", "lo", component,
                                      paper="the margin is positive: the box lies in U_II^+ (Proposition S3.2)")
        return lemmas

    def capture_time_box(self) -> list[Lemma]:
        """t_c = p^2 (e + 2r)/h <= hi, a rational inequality (lra; the kernel states t_c exactly)."""
        e, h = self.values["e"], self.values["h"]
        quantity = f"{self.p} * {self.p} * {real(e + 2 * self.r)} / {real(h)}"
        return [Lemma("capture_time_box_hi", "capture_time_box", stated(self.document, "capture_time_box", "hi",
                                                                         quantity), "lra.",
                      f"{self.SECTION}: {self.CAPTURE_TIME_PAPER}", fields=("hi",))]

    #: Why p^2 (e + 2r)/h bounds the capture time (the comment of the capture time's lemma).
    CAPTURE_TIME_PAPER = ("Proposition S3.2 with Remark S3.3: z11(t) > -(e + 2r) + h t/p^2 while z11 < 0, so the gate "
                          "(1, 1) reaches its kink before p^2 (e + 2r)/h")


# -- Proposition S3.4 on a box: the twin captured from above (docs/staircase.md, section 11.12) ------------------

#: The base point of docs/staircase.md 11.12 in the parameters (certify.kernel.twin_above.twin_above_base_point).
TWIN_ABOVE_BASE_POINT = {
    "u": ("{X} / 2", "({X} + {e}) / 2 - {X} / 2", "- ({X} / 2) - {t}"),
    "v": ("{X} / 2", "({X} + {e}) / 2 - {X} / 2", "- ({X} / 2) - {t}"),
    "w": (f"{{E}} + {{d}} - {_TWIN_PLUS_MU0}", f"{{E}} - {_TWIN_PLUS_MU0}", f"- ({_TWIN_PLUS_MU0})"),
}
TWIN_ABOVE_BASE_POINT_PAPER = ("the base point of docs/staircase.md 11.12: u = v = (X/2, s - X/2, -X/2 - t, ...), "
                               "s = (X + e)/2, w = (E + d, E, 0, ...) - mu_0, mu_0 = (2E + d)/p; every claim below is "
                               "about this one point's box")
TWIN_ABOVE_SECTION = "docs/staircase.md, section 11.12"


def twin_above_obligations(document: dict) -> list:
    """The lemmas of a ``twin_above`` certificate (Proposition S3.4 on a box, docs/staircase.md 11.12): the base
    point, then each claim (see :class:`_TwinAbove`)."""
    items: list = base_point_lemmas(document, TWIN_ABOVE_BASE_POINT, TWIN_ABOVE_BASE_POINT_PAPER)
    return items + _claim_lemmas(_TwinAbove(document), "certify.coq.staircase (twin_above)")


class _TwinAbove(_TwinPlus):
    """The certificate of U_II^above (section 11.12): Theorem S's three-level blocks and region lemma, the pattern
    with the gate (1, 1) active and z00 - z11 > 0, Remark S3.6 (ii)'s b_+ (eight ends: four corners of the offsets
    of w(0), w(1), two ends of z01) and the window, capture and purity claims of Remarks S3.5-S3.6 stated with b_+ =
    the exporter's own upper bound of the closed form (rounded up, proved >= every end in Coq), each to TWIN_DIGITS
    digits: every margin decreases in b, so a larger b_+ gives a weaker, still true, statement."""

    SECTION = TWIN_ABOVE_SECTION
    GATE_11_ACTIVE = True
    DELTA = "delta_-"
    PURITY_HYPOTHESIS = "the hypothesis sqrt(F_0) + rho_+ - 1 < 1 of (S.37), Remark S3.6 (i)'s rho_+"
    PURITY_PAPER = ("(S.37) at rho_+ (Remark S3.6 (i)), L_- = S_-^2/2 + (p - 2) g_-^2 and C_+ <= the number written: "
                    "delta_- decreases in rho_+ and C_+ and increases in L_-")
    CAPTURE_TIME_PAPER = ("Proposition S3.4 with Remark S3.5: z11(t) < (e + 2r) - h t/p^2 while z11 > 0, so the gate "
                          "(1, 1) reaches its kink from above before p^2 (e + 2r)/h")
    PROPOSITION = "Proposition S3.4"
    COPIES_PAPER = ("the widened box B+ (section 11.14: it lies in the region as the box does) and its translates by "
                    "2r (k d_uv + l d_w), k, l integers (Lemma S.19: the region is invariant along d_uv and d_w), are "
                    "disjoint, of total mass at least P(B+) F (Lemma S.20, Proposition S.21, section 11.15); their "
                    "p^2 (p - 1) images under the affine relabellings are disjoint (two relabellings share a 2 x 2 "
                    "block of active gates and exchange z00 and z11, and z00 > z11 on B+ and on its translates, which "
                    "keep every gate: pattern_box's gate_order), each inside R, and R lies in the initially active "
                    "set, so P(R | active) >= p^2 (p - 1) P(B+) F")
    EXCESS_PAPER = ("Remark S3.6 (ii): on the box b0 <= F(a, b) at the offsets a, b of w(0), w(1), F is convex in "
                    "(a, b), so at most its largest value at the four corners a, b = +-r; in each F, ell_1+ is convex "
                    "in z, so at most its larger end value at z = s -+ 2r")

    def __init__(self, document: dict):
        super().__init__(document)
        self.g = number(document["parameters"]["g"], "g")
        if not self.g >= 0:
            raise ValueError("g is negative")

    @property
    def _rw(self) -> fmpq:
        """r_w = r + g: how far each w(j), j >= 2, moves on twin_above's box (section 11.12, Remark S3.7)."""
        return self.r + self.g

    def _pattern_lemmas(self, statements: dict, quantities: dict, why_positive: str) -> list:
        return _Staircase._pattern_lemmas(self, statements, quantities, "the box lies in the pattern of "
                                                                        "Proposition S3.4 (z00, z01, z10, z11 > 0, "
                                                                        "every other gate < 0)")

    @property
    def _s(self) -> fmpq:
        return (self.values["X"] + self.values["e"]) / 2

    def _closed_form(self):
        from ..kernel.twin_above import TwinAboveParameters, loss_excess_upper

        def parameters(p, X, e, t, d, E, h):  # the kernel's order, with g after sigma (which b_+ does not read)
            return TwinAboveParameters(p, X, e, t, d, E, h, fmpq(1), self.g)
        return parameters, loss_excess_upper

    def pattern_box(self) -> list:
        """The twin's pattern lemmas with z11 > 0, and z00 - z11 on the box (lra)."""
        lemmas = _Twin.pattern_box(self)
        name = "gate_order"
        if name not in self.document["claims"]["pattern_box"]["components"]:
            return lemmas + [NotExported("pattern_box", f"the component {name} is missing from the certificate")]
        r = real(self.r)
        (u0, u1, _), (v0, v1, _) = ((real(x) for x in self.levels[b]) for b in "uv")
        statement = stated(self.document, "pattern_box", "lo", "(a + b) - (c + d)", name)
        return lemmas + [
            Lemma(f"pattern_box_{name}_lo", "pattern_box",
                  f"forall a b c d : R, Rabs (a - {u0}) <= {r} -> Rabs (b - {v0}) <= {r} -> Rabs (c - {u1}) <= {r} "
                  f"-> Rabs (d - {v1}) <= {r} -> {statement}", BOX_TACTIC,
                  f"{self.SECTION}: u(0), v(0), u(1), v(1) within r of the base point; the margin bounds z00 - z11"),
            *landmark_lemmas(self.document, "pattern_box", "lo", name,
                             paper="the margin is positive: z00 > z11 on the box, so its relabelled copies are "
                                   "disjoint")]

    def _excess_ends(self) -> list[tuple[str, str]]:
        """(end, Coq term of F(a, b) at the end z01 = z) for a, b = -+r and z = s -+ 2r (Remark S3.6 (ii))."""
        X, e, d, E = (self.values[name] for name in ("X", "e", "d", "E"))
        s, r, rw, p = self._s, self.r, self._rw, self.p
        if not (d - 2 * r > 0 and s - 2 * r > 0 and E - r - rw > 0 and e - 2 * r > 0):
            raise ValueError("Remark S3.6 (ii) needs d, s, e > 2r and E > r + r_w (the signs of the exponents)")
        z0, z2 = real(X - 2 * r), real(e + 2 * r)
        ends = []
        for a_name, a in (("a_low", -r), ("a_high", r)):
            for b_name, b in (("b_low", -r), ("b_high", r)):
                D = d + a - b
                ell_0 = (f"ln (1 + exp (- ({z0}) * ({real(D)})) + ({p} - 2) * "
                         f"exp (- ({z0}) * ({real(E + d - rw + a)})))")
                ell_2 = (f"ln (exp (({z2}) * ({real(E + d + a + rw)})) + exp (({z2}) * ({real(E + b + rw)})) + 1 + "
                         f"({p} - 3) * exp (({real(2 * rw)}) * ({z2})))")
                for z_name, z in (("z_low", s - 2 * r), ("z_high", s + 2 * r)):
                    ell_1 = (f"ln (1 + exp (({real(z)}) * ({real(D)})) + ({p} - 2) * "
                             f"exp (- ({real(z)}) * ({real(E - rw + b)})))")
                    ends.append((f"{a_name}_{b_name}_{z_name}",
                                 f"{ell_0} + 2 * {ell_1} + {ell_2} - ln {p} - 3 * ln 2"))
        return ends

    def _end_words(self, end: str) -> str:
        return end  # a_low_b_high_z_low: the corner a = -r, b = +r and the end z01 = s - 2r

    @cached_property
    def _exact(self) -> dict[str, fmpq]:
        """Remark S3.5's exact bounds (certify.kernel.twin_above.box_bounds), and eps = e_+^2/h, g_- = g_-0 - eps,
        S_- = S_-0 - eps. ValueError unless g_- and S_- are positive."""
        X, e, t, d, E, h = (self.values[name] for name in self.PARAMETERS)
        s, r, rw, p = self._s, self.r, self._rw, self.p
        mu0, spread = (2 * E + d) / p, (2 * r + 2 * (p - 2) * rw) / p
        e_plus = e + 2 * r
        eps = e_plus**2 / h
        exact = {"e_plus": e_plus, "eps": eps, "g0_minus": mu0 - spread, "g0_plus": mu0 + spread,
                 "g_minus": mu0 - spread - eps, "S_minus": (p - 2) * (mu0 - 2 * (r + rw) / p) - eps,
                 "m": min(s, t) - 2 * r, "X_plus": X + 2 * r, "X_minus": X - 2 * r, "z_plus": s + 2 * r,
                 "M_plus": E + d + r + rw, "N_plus": E + r + rw, "D_minus": d - 2 * r, "D_plus": d + 2 * r}
        if not (exact["g_minus"] > 0 and exact["S_minus"] > 0):
            raise ValueError("g_- or S_- is not positive")
        return exact

    @cached_property
    def _growth_is_eta(self) -> bool:
        """Whether eta < delta_c at the kernel's b_+, compared at the midpoints of 128-bit balls: Remark S3.6 (i)
        takes the smaller, and so did the kernel's stored ends. A lemma written with either is a true statement of
        the claim (each bounds gamma_max's growth), but one written with the larger might not be provable with the
        stored end; in a near-tie the two terms agree far below the 12 digits the lemmas keep. (At every library
        prime eta is 7 to 16 times below delta_c.)"""
        from ..kernel.balls import ball, working_precision

        q, h = self._exact, self.values["h"]
        with working_precision(128):
            b_plus = ball(self._kernel_b_plus)
            delta = (2 * b_plus * q["e_plus"] / h).sqrt()
            eta = ((q["X_plus"] + delta) * b_plus + q["e_plus"]) * q["e_plus"] / h
            return bool((eta - delta).mid() < 0)

    def _capture_terms(self) -> dict[str, str]:
        """Coq terms of Remarks S3.5-S3.6's bounds (section 11.12): the exact ones as literals, the rest from b_+."""
        q, b, h = self._exact, self._b(), real(self.values["h"])
        e_plus = real(q["e_plus"])
        delta = f"(sqrt (2 * {b} * {e_plus} / {h}))"
        eta = f"((({real(q['X_plus'])} + {delta}) * {b} + {e_plus}) * {e_plus} / {h})"
        growth = eta if self._growth_is_eta else delta
        s2 = f"(({real(q['X_plus'])} + {delta}) ^ 2 + 2 * ({real(q['z_plus'])} + {delta}) ^ 2 + {e_plus} ^ 2)"
        Xm = f"({real(q['X_minus'])} - {delta})"
        kappa = f"(3 / 4 * (2 * (1 - {b}) / (1 + exp (2 * {_acosh(f'exp {b}')}))) * {Xm} ^ 2)"
        return {"b": b, "delta": delta, "rho": f"(({real(q['g0_plus'])} + {growth}) / {real(q['g_minus'])})",
                "s2": s2, "kappa": kappa, "z": f"({real(q['z_plus'])} + {delta})",
                "M": f"({real(q['M_plus'])} + {delta})", "h": h, "e_plus": e_plus}

    def _rho(self) -> str:
        return self._capture_terms()["rho"]

    def capture_box(self) -> list[Lemma]:
        """The six margins of (S.36) at Remarks S3.5-S3.6's bounds: g_- exactly (lra), the rest rounded down to
        TWIN_DIGITS (interval)."""
        c, q = self._capture_terms(), self._exact
        cone = f"({c['kappa']} - 2 * {c['b']})"
        quantities = {
            "reach": f"{real(q['m'])} - {c['delta']}",
            "rate": f"2 * ({real(q['g0_minus'])} - {real(q['eps'])}) - {c['b']} * ({real(q['N_plus'])} + {c['delta']})"
                    f" - {c['h']}",
            "difference_floor": f"{real(q['D_minus'])} * exp (- ({c['s2']} * {c['e_plus']} / {c['h']})) - "
                                f"{real(q['eps'])}",
            "cone": cone,
            "race": f"ln {real(q['S_minus'])} - {c['z']} * {c['M']} - ({c['z']} + {c['M']}) ^ 2 * {c['b']} / "
                    f"(2 * {cone}) - ln {real(q['D_plus'])}",
        }
        why = ("Remark S3.5: (S.36) at e_+, D_-0, D_+0, X_-+0, z_+0, M_+0, N_+0, m_-, S_-0, g_-+0 and b_+ "
               "(loss_excess_box's closed form) holds at every point of the box; the margin decreases in b")
        positive = "the margin is positive: the box lies in U_II^above (Proposition S3.4)"
        lemmas = [Lemma("capture_box_gamma_floor_lo", "capture_box",
                        stated(self.document, "capture_box", "lo", real(q["g_minus"]), "gamma_floor"), "lra.",
                        f"{self.SECTION}: g_- = mu_0 - (2r + 2(p - 2) r_w)/p - e_+^2/h, exactly (Remark S3.5)",
                        fields=("lo",)),
                  *landmark_lemmas(self.document, "capture_box", "lo", "gamma_floor", paper=positive)]
        for component, quantity in quantities.items():
            lemmas.append(self._weak("capture_box", "lo", quantity, component,
                                     f"capture_box_{component}_lo_{TWIN_DIGITS}_digits", why))
            lemmas += landmark_lemmas(self.document, "capture_box", "lo", component, paper=positive)
        return lemmas

    def _L(self) -> str:
        """L_- = S_-^2/2 + (p - 2) g_-^2 of (S.37) (a Coq term)."""
        q = self._exact
        return f"({real(q['S_minus'])} ^ 2 / 2 + ({self.p} - 2) * {real(q['g_minus'])} ^ 2)"

    def _purity_end(self, quantity: str) -> Lemma:
        """lo <= delta_- of (S.37), rounded down to TWIN_DIGITS: rho_+ reads the exporter's b_+."""
        return self._weak("purity_margin_box", "lo", quantity, None, f"purity_margin_box_lo_{TWIN_DIGITS}_digits",
                          self.PURITY_PAPER)

