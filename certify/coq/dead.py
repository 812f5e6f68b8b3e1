"""Coq lemmas of a ``dead`` certificate (Theorem 1.5 / A.2: the neuron dies in finite time).

Every quantity is written from the certificate's p, parameters (epsilon, A, B), radius r and base
point, as docs/mathematics.md derives it (sections 'The flow in reduced coordinates', 'Hitting time
and transversality', 'Box bounds of section A.6', 'Purity gap at terminal states'):

    Gamma = A^2 - p eps^2/(2(p-1)),  g(s) = sqrt(Gamma + p s^2/(2(p-1)))               (2.6)
    T = (p^2/2) int_0^eps (1 + e^{-s g(s)}/(p-1))/g(s) ds                              (2.2)
    gmin = (p-1)(A - 2r)/p,  smax = eps + 2r,  gamma_* = sqrt(gmin^2 - smax^2/2)       (A.57)
    Mmax = min(smax^2/(4 gamma_*), (p-1)(A + 2r)/p - gamma_*)                          (A.55)

The claim ``gaussian_probability`` is not covered here (certify.coq.gaussian covers it); the claim
``region_probability`` is certify.coq.region's, ``region_purity_probability`` certify.coq.region_purity's (listed as not
exported where that route cannot reach the kernel's bound: p <= 50). The hitting
time's integral is proved by CoqInterval's ``integral`` to :data:`HITTING_TIME_DIGITS` significant
digits only (its ends rounded outward; the lemma names say so), with ``0 < T`` in full.
"""

from __future__ import annotations

from ..errors import CertifyError
from .family import (FAMILY_BASE_POINT, base_point_lemmas, block_levels, enclosed_atom_proof, fourier_fraction_lemmas,
                     single_active_gate_lemmas)
from .family import radius as radius_term
from .family import terminal_purity_gap_term
from .lemma import Lemma, NotExported
from .region import dead_region_lemmas
from .region_purity import dead_purity_lemmas
from .relations import landmark_lemmas, relation, stated
from .terms import ident, number, real, rmin

#: Significant digits to which the hitting time T is proved by CoqInterval's ``integral`` (measured on
#: p = 5, 13, 101 on a loaded machine: 12 digits with (80, 12, 200) take about 1 s per end, 15 digits
#: with (90, 14, 16) 1.5-3 s, 25 digits with (120, 20, 40) 8 s; the 45 of the certificate are out of
#: reach in the time budget). A small fuel keeps a false bound's rejection short (it spends it all).
HITTING_TIME_DIGITS = 15
HITTING_TIME_TACTIC = "integral with (i_prec 90, i_degree 14, i_fuel 16)."
#: ``interval`` on the closed forms: 45-digit ends need about 150 bits plus a margin.
INTERVAL_OPTIONS = "with (i_prec 200)"
INTERVAL_TACTIC = f"interval {INTERVAL_OPTIONS}."
#: The sign of the integral T (no tight end: low precision suffices).
SIGN_INTEGRAL_TACTIC = "integral with (i_prec 40, i_degree 4, i_fuel 50)."

WHERE = "(2.1), section 2"


class _Terms:
    """The Coq terms of one certificate's constants and of the docs' closed forms."""

    def __init__(self, document: dict):
        parameters = document["parameters"]
        self.p = str(int(document["p"]))
        self.eps, self.A, self.B = (real(number(parameters[name], name)) for name in ("epsilon", "A", "B"))
        self.r = radius_term(document)
        self.u0, self.uj = block_levels(document, "u")
        self.v0, self.vj = block_levels(document, "v")
        self.w0, self.wj = block_levels(document, "w")
        p = self.p
        self.c = f"({p} / (2 * ({p} - 1)))"
        self.Gamma = f"({self.A} ^ 2 - {self.c} * {self.eps} ^ 2)"
        self.gmin = f"(({p} - 1) * ({self.A} - 2 * {self.r}) / {p})"
        self.smax = f"({self.eps} + 2 * {self.r})"
        self.condition = f"({self.gmin} ^ 2 - {self.smax} ^ 2 / 2)"
        self.gamma_star = f"(sqrt {self.condition})"
        self.transfer = rmin(f"({self.smax} ^ 2 / (4 * {self.gamma_star}))",
                             f"(({p} - 1) * ({self.A} + 2 * {self.r}) / {p} - {self.gamma_star})")

    def g(self, s: str) -> str:
        return f"(sqrt ({self.Gamma} + {self.c} * {s} ^ 2))"

    @property
    def hitting_time(self) -> str:
        g = self.g("s")
        integrand = f"(fun s => (1 + exp (- s * {g}) / ({self.p} - 1)) / {g})"
        return f"({self.p} ^ 2 / 2 * RInt {integrand} 0 {self.eps})"


def _bounds(document: dict, claim: str, quantity: str, paper: str, proof: str = INTERVAL_TACTIC,
            ends=("lo", "hi")) -> list[Lemma]:
    """For each of ``ends`` the claim's relation stores: the end's proposition about ``quantity`` in the
    relation's direction (:func:`certify.coq.relations.stated`, the certificate's numbers in full) and the
    landmark the relation asserts of it (``0 < lo``, which with the lower end makes the quantity positive)."""
    lemmas = []
    for end in ends:
        if end in relation(document, claim).keys():
            lemmas.append(Lemma(ident(claim, end), claim, stated(document, claim, end, quantity), proof, paper))
            lemmas += landmark_lemmas(document, claim, end, paper="the claim's margin: with the end above, the "
                                                                  "quantity is strictly positive")
    return lemmas


def _hitting_time_lemmas(document: dict, t: _Terms) -> list[Lemma]:
    """T in [lo, hi] with the ends rounded outward to HITTING_TIME_DIGITS digits, and 0 < T in full."""
    claim, k = "hitting_time", HITTING_TIME_DIGITS
    paper = ("(2.2) with (2.6): ds/dt = -(2/p^2)(1 - pi_0) g and 1/(1 - pi_0) = 1 + e^{-s g}/(p-1), "
             "so s reaches 0 at this T")
    return [
        Lemma(ident(claim, "positive"), claim, f"0 < {t.hitting_time}", SIGN_INTEGRAL_TACTIC,
              "the hitting time is positive: s decreases from epsilon > 0 ((2.2), g > 0)"),
        *(Lemma(ident(claim, end, f"{k}_digits"), claim, stated(document, claim, end, t.hitting_time, digits=k),
                HITTING_TIME_TACTIC, paper, digits=k) for end in ("lo", "hi")),
        *landmark_lemmas(document, claim, "lo"),
    ]


def _balance_lemmas(document: dict, t: _Terms) -> list[Lemma]:
    """(A.10): the exact value at the base point, and at its terminal state (2.8), (2.6)."""
    claim, p = "balance_invariant", t.p
    base = (f"{t.u0} ^ 2 + ({p} - 1) * {t.uj} ^ 2 + ({t.v0} ^ 2 + ({p} - 1) * {t.vj} ^ 2)"
            f" - ({t.w0} ^ 2 + ({p} - 1) * {t.wj} ^ 2)")
    # the terminal state (2.8) of the construction, in the parameters (certify.kernel.dead's
    # terminal_balance_quantity): u = v = (0, -B, ..., -B), w with mean mu = -A/p and contrast
    # sqrt(Gamma), so ||w||^2 = p mu^2 + (p-1) Gamma/p; with the base_point lemmas this ties the
    # certificate's base point, its parameters and the terminal state together
    terminal = (f"2 * ({p} - 1) * {t.B} ^ 2 - ({p} * (- {t.A} / {p}) ^ 2 + ({p} - 1) / {p} * {t.Gamma})")
    return [
        Lemma(ident(claim, "base_point"), claim, stated(document, claim, "exact", base), "field.",
              "||u||^2 + ||v||^2 - ||w||^2 at the base point, block by block"),
        Lemma(ident(claim, "terminal"), claim, stated(document, claim, "exact", terminal), "field.",
              "at the terminal state (2.8) of the construction (2.1): u = v = (0, -B, ..., -B), mu = -A/p "
              "conserved, g(T)^2 = Gamma by (2.6), ||w(T)||^2 = p mu^2 + (p-1) Gamma/p ((A.37) with e = 0); "
              "Lemma A.8 (A.10) makes the quantity constant"),
    ]


def _gamma_condition_lemmas(document: dict, t: _Terms) -> list[Lemma]:
    """(A.58) on the box: lo <= gmin^2 - smax^2/2, lo > 0, and the bound at every point of the box."""
    claim, p = "gamma_condition", t.p
    s_base = f"({t.u0} + {t.v0})"
    s_lo, s_hi = f"({s_base} - 2 * {t.r})", f"({s_base} + 2 * {t.r})"
    least = f"({t.wj} - {t.w0} - 2 * {t.r})"  # wbar - w0 >= least on the box
    box = (f"forall s0 w0 wbar : R, {s_lo} <= s0 <= {s_hi} -> Rabs (w0 - {t.w0}) <= {t.r} -> "
           f"Rabs (wbar - {t.wj}) <= {t.r} -> "
           f"{stated(document, claim, 'lo', f'(({p} - 1) / {p} * (wbar - w0)) ^ 2 - s0 ^ 2 / 2')}")
    box_proof = (f"intros s0 w0 wbar Hs H0 Hbar. "
                 f"assert (Hx : {least} <= wbar - w0) by (revert H0 Hbar; unfold Rabs; "
                 "repeat destruct (Rcase_abs _); intros; lra). "
                 f"assert (Hx2 : 0 <= (wbar - w0 - {least}) * (wbar - w0 - {least})) by apply Rle_0_sqr. "
                 f"assert (Hs2 : 0 <= ({s_hi} - s0) * (s0 - {s_lo})) by (apply Rmult_le_pos; lra). nra.")
    return [
        Lemma(ident(claim, "lo"), claim, stated(document, claim, "lo", t.condition), "lra.",
              "(A.58) on the box: gamma_in >= gmin = (p-1)(A-2r)/p > 0 and s0 <= smax = epsilon + 2r"),
        *landmark_lemmas(document, claim, "lo", paper="(A.58) holds on the box"),
        Lemma(ident(claim, "box"), claim, box, box_proof,
              "at every point of the sup-norm box: gamma_in = mu - w(0) = (p-1)/p (wbar - w(0)), wbar the mean "
              "of the wrong-class weights w(j) (within r of their base value), and s0 = u(0) + v(0)"),
    ]


def _hitting_time_box_lemmas(document: dict, t: _Terms) -> list[Lemma]:
    """(A.53)-(A.57): the exact lower end (lra) and the closed-form upper end (interval)."""
    p = t.p
    lower = f"({p} ^ 2 * ({t.eps} - 2 * {t.r}) / (2 * ({t.A} + 2 * {t.r})))"
    upper = f"({p} ^ 2 * {t.smax} / (2 * {t.gamma_star}))"
    return (_bounds(document, "hitting_time_box", lower, "|ds/dt| <= 2 (A + 2r)/p^2 on the box: D never exceeds "
                    "its initial value, at most A + 2r, so T >= p^2 (epsilon - 2r)/(2 (A + 2r))",
                    proof="lra.", ends=("lo",))
            + _bounds(document, "hitting_time_box", upper, "ds/dt <= -2 gamma_*/p^2 on the box ((A.53), (A.54), "
                      "(A.57)), so T <= p^2 smax/(2 gamma_*)", ends=("hi",)))


def _builders(t: _Terms) -> dict:
    """claim id -> function(document) -> its lemmas."""
    p = t.p
    gap = terminal_purity_gap_term(int(p), t.r, t.B, t.B, t.A, t.smax, t.transfer)
    terminal_contrasts_squared = [f"{t.B} ^ 2", f"{t.B} ^ 2", t.Gamma]
    return {
        "single_active_gate": lambda d: single_active_gate_lemmas(d, WHERE),
        "gamma_condition": lambda d: _gamma_condition_lemmas(d, t),
        "hitting_time": lambda d: _hitting_time_lemmas(d, t),
        "hitting_time_box": lambda d: _hitting_time_box_lemmas(d, t),
        "transversality_margin": lambda d: _bounds(
            d, "transversality_margin", f"(2 * ({p} - 1) * sqrt {t.Gamma} / {p} ^ 3)",
            "(2.7): -ds/dt(T-) = (2/p^2)(1 - 1/p) sqrt(Gamma), as pi_0 -> 1/p and g -> sqrt(Gamma)"),
        "transversality_margin_box": lambda d: _bounds(
            d, "transversality_margin_box", f"(2 * {t.gamma_star} / {p} ^ 2)",
            "-ds/dt(T-) = 2 gamma(T)/p^2 >= 2 gamma_*/p^2 ((A.54), (A.57))"),
        "terminal_w_displacement_box": lambda d: _bounds(
            d, "terminal_w_displacement_box", f"(2 * {t.transfer})",
            "||w(T) - w(0)||_1 = 2M with M <= Mmax = min(smax^2/(4 gamma_*), (p-1)(A+2r)/p - gamma_*) "
            "((A.7), (A.55), (A.57))"),
        "terminal_fourier_fraction": lambda d: fourier_fraction_lemmas(
            d, "terminal_fourier_fraction", terminal_contrasts_squared,
            "the terminal blocks (2.8) are two-level with contrasts B, B, -sqrt(Gamma), so F_zeta = 2/(p-1) "
            "(section 2.1, (A.60))"),
        "balance_invariant": lambda d: _balance_lemmas(d, t),
        "purity_gap_box": lambda d: _bounds(
            d, "purity_gap_box", gap, "the purity-gap lemma on (1.5) applied to the terminal blocks of "
            "docs/mathematics.md, 'Purity gap at terminal states' (Theorem A.2(iii))",
            proof=enclosed_atom_proof(t.transfer, INTERVAL_TACTIC)),
        "terminal_loss": lambda d: _bounds(
            d, "terminal_loss", f"(ln {p})",
            "after T every activation is 0, so every logit is 0 and the loss (1.1) is log p (Lemma A.17)"),
    }


def dead_obligations(document: dict) -> list:
    """The lemmas of every claim of a ``dead`` certificate but ``gaussian_probability`` (certify.coq.gaussian's).

    Claims are taken in the certificate's order; a claim id this exporter does not know gets no
    lemma, so :func:`certify.coq.export.coq_file` refuses the file.
    """
    builders = _builders(_Terms(document))
    lemmas: list = base_point_lemmas(document, FAMILY_BASE_POINT, "the base point is (2.1) = (A.48)-(A.49) "
                                     "of the certificate's epsilon, A, B")
    route_present = False
    for claim in document["claims"]:
        if claim in builders:
            lemmas += builders[claim](document)
        elif claim == "region_probability":
            try:
                lemmas += dead_region_lemmas(document)
                route_present = True
            except ValueError as error:  # not the lower bound with its twin: listed, never half-stated
                lemmas.append(NotExported(claim, str(error)))
    if "region_purity_probability" in document["claims"]:
        # after the region route, whose lemmas (E[S] <= U, Phibar(c_p U) >= Phb) it builds on
        try:
            lemmas += dead_purity_lemmas(document, route_present)
        except (ValueError, CertifyError) as error:  # the route cannot reach the kernel's bound (p <= 50), or the
            lemmas.append(NotExported("region_purity_probability", str(error)))  # kernel refuses delta: listed
    return lemmas
