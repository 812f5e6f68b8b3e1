"""Coq lemmas of the gd certificate's ``region_probability`` claim (Theorem A.4's whole region R_gd).

The claim: P(theta(0) in R_gd | initially active) >= lo = 10^log10_lo. R_gd is the one-gate region with the steep
threshold gamma_y > p^2 s/(2 eta) ((A.71)), and (certify.kernel.region, docs/mathematics.md 'Region probability of
the dead theorem', (j))

    P(R_gd | active) = E[Phibar(k S)] / (C(2p, p) - 1),   k = p^2/(2 eta tau_p),   tau_p = sqrt((p - 1)/p),

S the middle spacing of 2p standard normals. Jensen is useless here (k E[S] is about 19 at p = 31), and the
kernel's bound is a 64-bin lower Riemann-Stieltjes sum, 0.974-0.976 of the exact value. The route below
(docs/coq.md, 'The gd region in Coq') comes within 0.5-2% of the exact E[Phibar(k S)], 0.36-2.2% above the kernel's bound, and
every step Coq cannot take is a paper-level lemma stated in the comments:

* **Chords.** E[Phibar(k S)] = P(Z > k S) = int_0^inf phi(u) F_S(u/k) du (Z ~ N(0, 1) independent of S), and
  F_S is concave on [0, inf) with F_S(0) = 0 (docs/coq.md). So, at nodes 0 = u_0 < u_1 < ... < u_n,
  E >= sum_j w_j F_S(u_j/k), w_j = int phi times the hat function of node j (the last one only rising; the
  tail beyond u_n dropped), and F_S(u_j/k) >= F_S(t_j) for the rationals t_j <= u_j/k that Coq checks.
* **The bracket.** F_S(t) = C(2p, p) int_R p Phi^(p-1) phi (Phibar(x)^p - Phibar(x + t)^p) dx, and by
  Hermite-Hadamard (y^(p-1) convex on y >= 0) and e^z >= 1 + z about the midpoint of [x, x + t],
  F_S(t) >= C(2p, p) p^2 t (1 - t^2/24) int_(-a)^(a-t) Phi^(p-1)(x) phi(x) phi(x + t/2) M(x)^(p-1) dx,
  M = (Phibar(x) + Phibar(x + t))/2, for 0 <= t <= min(a, sqrt 24) (the integrand is >= 0: truncation).
  With G(x) = int_0^x phi, Phi = 1/2 + G and Phibar = 1/2 - G (phi's total mass is 1), the file
  defines this right-hand side as ``region_gd_cdf_lower t``.

Every number is proved here: G has no closed form and ``integral`` takes no integral inside its integrand, so
the file proves |G(x) - Q(x)| <= a epsilon on [-a, a] for an odd polynomial Q (Q' = E(x^2), E a Chebyshev fit of
phi(sqrt y) on [0, a^2], chosen here): G - Q has derivative phi - Q', at most epsilon (the fit's error) in absolute value there
(``interval``), and vanishes at 0. Then the two bases 1 + 2 Q - 2 a epsilon and 1 - Q(x) - Q(x + t) - 2 a epsilon are
at most 2 Phi and 2 M and at least 0 (``interval``), so the closed-form integrand is below the true one (both are
written with the factor 4^(p-1), which keeps them near 1 at the peak: ``integral`` errs absolutely), and
one ``integral`` per node bounds its integral below; one ``integral`` per half-hat bounds w_j below.

The route's number must exceed the kernel's bound by :data:`GD_MARGIN` (the exporter raises ValueError
otherwise, adding nodes up to :data:`MAX_NODES` first): the claim lemmas then state the certificate's own lo
and log10_lo in full, and a lo (or log10_lo) above the route's number meets a lemma coqc refuses.
"""

from __future__ import annotations

import functools
import math

import mpmath
from flint import fmpq

from .lemma import Definition, Lemma
from .region import (BINOMIAL, G, HORNER, PHI, _mp, _phi, _require_twin, _rounded, binomial_items, claim_lemmas,
                     shared_calculus_lemmas, stated_lo)
from .region_fit import GFit, continuity_lemma, fit_lemmas, fit_names
from .relations import landmark_lemmas, twin_lemmas
from .terms import number, real

CLAIM = "region_probability"
DPS = 30
#: The route's proved number must exceed the kernel's bound (recomputed from p and eta, never read from lo) by this
#: relative margin, so that the claim lemmas can state the certificate's lo and log10_lo in full
GD_MARGIN = mpmath.mpf("1e-3")
#: The nodes u_j = NODE_REACH (j/n)^1.5, rounded down to multiples of 1/64 (u_n = 7: Phibar(7) ~ 10^-12 is
#: the tail the chords drop); the number n starts at :func:`first_node_count` and grows until the route clears the
#: kernel's bound by GD_MARGIN (measured: 6 nodes reach 1.0036 times the kernel at p = 5, 3 reach 1.022 at p = 101)
NODE_REACH, NODE_GRID = 7, 64
MAX_NODES = 10
#: The relative gap below the closed-form integral of each node at which its lower end is chosen (``integral`` at
#: INTEGRAL_TACTIC proves it), and below each half-hat weight (WEIGHT_TACTIC)
INTEGRAL_GAP = mpmath.mpf("1e-3")
WEIGHT_GAP = mpmath.mpf("1e-9")
INTEGRAL_TACTIC = "integral with (i_prec 40, i_degree 6, i_fuel 400)"
WEIGHT_TACTIC = "integral with (i_prec 60, i_degree 8, i_fuel 100)"

# Coq names (prefixed, so that they never meet the other exporters' names in one file)
PREFIX = "region_gd"
FIT, HALF, Q = fit_names(PREFIX)
TRUE_INTEGRAND, CLOSED = "region_gd_integrand", "region_gd_closed_integrand"
CDF, EXPECTATION = "region_gd_cdf_lower", "region_gd_expectation_lower"


def first_node_count(p: int) -> int:
    """The number of chord nodes the route starts from at p (the chords lose most at small p, where F_S(u/k)
    bends over [0, u_n])."""
    return 6 if p <= 7 else 5 if p <= 13 else 4 if p <= 31 else 3


def domain_end(p: int) -> fmpq:
    """a: the x-integrals run over [-a, a - t]; the integrand is a peak of width about 1/sqrt(p) at -t/2, so a =
    7/sqrt(p) rounded up to a quarter (at most 4) drops at most (4 Phi Phibar)^(p-1) at 7/sqrt(p) of it."""
    return min(fmpq(4), fmpq(math.ceil(4 * 7 / math.sqrt(p)), 4))


class GdRegionProof:
    """The numbers of the proof for (p, eta), chosen with mpmath (Coq proves every inequality between them; a poor
    choice makes coqc fail, never a false lemma). ValueError when the route cannot clear the kernel's bound by
    :data:`GD_MARGIN` with :data:`MAX_NODES` nodes, or when a node's t falls outside [0, min(a, sqrt 24)]."""

    def __init__(self, p: int, eta: fmpq, kernel_log: mpmath.mpf):
        self.p, self.eta = p, eta
        self.a = domain_end(p)
        self.binomial = math.comb(2 * p, p)
        with mpmath.workdps(DPS):
            a = _mp(self.a)
            self._fit(p, a)
            kernel = mpmath.exp(kernel_log)
            for n in range(first_node_count(p), MAX_NODES + 1):
                self._nodes(n, a)
                if self.route > kernel * (1 + GD_MARGIN):
                    break
            else:
                raise ValueError(f"the chord route reaches {mpmath.nstr(self.route / kernel, 6)} of the kernel's "
                                 f"bound with {MAX_NODES} nodes, under 1 + {mpmath.nstr(GD_MARGIN, 3)}")
            self.ratio = self.route / kernel

    def _fit(self, p: int, a: mpmath.mpf) -> None:
        self.fit = GFit(p, self.a, DPS)
        self.half, self.fit_error, self.degree, self.loss = (self.fit.half, self.fit.fit_error, self.fit.degree,
                                                             self.fit.loss)
        self.Q = self.fit.Q

    def _nodes(self, n: int, a: mpmath.mpf) -> None:
        p = self.p
        k = mpmath.mpf(p) ** 2 / (2 * _mp(self.eta) * mpmath.sqrt(mpmath.mpf(p - 1) / p))
        # floor(64 * 7 (j/n)^1.5) = isqrt(floor(448^2 j^3 / n^3)), in integers: a float power could land a hair below
        # a whole number (at j/n = 1/4 it is exactly 56) and change the file's bytes on another libm
        scale = NODE_GRID * NODE_REACH
        self.u = [fmpq(math.isqrt(scale * scale * j ** 3 // n ** 3), NODE_GRID) for j in range(n + 1)]
        self.t = [fmpq(0)] + [_rounded(_mp(u) / k, 15, up=False) for u in self.u[1:]]
        if not all(0 < t <= min(self.a, fmpq(24, 5)) for t in self.t[1:]):
            raise ValueError("a node's t = u/k falls outside (0, min(a, 24/5)]: eta too large for this route")
        e = _mp(self.loss)
        self.integrals, self.weights, self.terms = [], [], []
        for j in range(1, n + 1):
            t = _mp(self.t[j])

            def closed(x, t=t):
                return ((1 + 2 * self.Q(x) - 2 * e) ** (p - 1) * _phi(x) * _phi(x + t / 2)
                        * (1 - self.Q(x) - self.Q(x + t) - 2 * e) ** (p - 1))
            value = mpmath.quad(closed, mpmath.linspace(-a, a - t, 17))
            self.integrals.append(_rounded(value * (1 - INTEGRAL_GAP), 20, up=False))
            halves = []
            for left, right, rising in self.hats(j):
                l, r = _mp(left), _mp(right)
                shape = (lambda u: (u - l) / (r - l)) if rising else (lambda u: (r - u) / (r - l))
                w = mpmath.quad(lambda u: _phi(u) * shape(u), [l, r])
                halves.append(_rounded(w * (1 - WEIGHT_GAP), 20, up=False))
            self.weights.append(halves)
            tj = self.t[j]
            term = sum(halves) * self.binomial * p * p / fmpq(4) ** (p - 1) * tj * (1 - tj * tj / 24) * self.integrals[-1]
            self.terms.append(_rounded(_mp(term), 20, up=False))
        self.total = sum(self.terms)
        self.route = _mp(self.total) / (self.binomial - 1)

    def hats(self, j: int) -> list[tuple[fmpq, fmpq, bool]]:
        """The half-hats of node j: (left, right, rising) pieces; the last node has only its rising half."""
        u = self.u
        return [(u[j - 1], u[j], True)] + ([(u[j], u[j + 1], False)] if j + 1 < len(u) else [])


@functools.lru_cache(maxsize=None)
def gd_region_proof(p: int, eta: fmpq) -> GdRegionProof:
    """The proof's numbers at (p, eta), computed once per process (a few seconds of mpmath)."""
    from ..kernel.region import gd_region_claim_log_lower

    return GdRegionProof(p, eta, _mp(gd_region_claim_log_lower(p, eta).mid().fmpq()))


def _integrand(p: int, base: str, mean: str) -> str:
    """(base)^(p-1) phi(x) phi(x + t/2) (mean)^(p-1), a function of t and x."""
    return f"fun t x => ({base}) ^ {p - 1} * {PHI} x * {PHI} (x + t / 2) * ({mean}) ^ {p - 1}"


def _generic(proof: GdRegionProof) -> list:
    """The lemmas of this route that need p, a and the fit but no node: |G - Q| <= a epsilon on [-a, a], the bases,
    the closed-form integrand below the true one, and the integral of the one below the other's."""
    p, a, error = proof.p, real(proof.a), real(proof.fit_error)
    e = f"({a} * {error})"
    calculus = "a fact of calculus used by the region bound below"
    return [
        *fit_lemmas(proof.fit, PREFIX, CLAIM),
        Definition(TRUE_INTEGRAND, _integrand(p, f"1 + 2 * {G} x", f"1 - {G} x - {G} (x + t)"),
                   type="R -> R -> R",
                   note="(2 Phi(x))^(p-1) phi(x) phi(x + t/2) (2 M(x))^(p-1), M = (Phibar(x) + Phibar(x + t))/2, with "
                        "Phi = 1/2 + G and Phibar = 1/2 - G (the total mass of phi is 1: paper-level); the factor "
                        "4^(p-1) keeps the integrand near 1 at its peak (integral errs absolutely)"),
        Definition(CLOSED, _integrand(p, f"1 + 2 * {Q} x - 2 * {e}", f"1 - {Q} x - {Q} (x + t) - 2 * {e}"),
                   type="R -> R -> R", note="the same with G replaced by Q and each base lowered by 2 a epsilon"),
        continuity_lemma(TRUE_INTEGRAND, f"{G}_derive", "t", CLAIM, calculus),
        continuity_lemma(CLOSED, f"{Q}_derive", "t", CLAIM, calculus),
        Lemma(f"{CLOSED}_below", CLAIM,
              f"forall t x, 0 <= t -> - {a} <= x -> x + t <= {a} -> {CLOSED} t x <= {TRUE_INTEGRAND} t x",
              f"intros t x Ht Hl Hr. unfold {CLOSED}, {TRUE_INTEGRAND}.\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near x ltac:(lra))) as [N1 N2].\n"
              f"  destruct (proj1 (Rabs_le_between _ _) ({Q}_near (x + t) ltac:(lra))) as [N3 N4].\n"
              "  destruct (region_gd_bases x ltac:(lra)) as [B1 B2].\n"
              "  destruct (region_gd_bases (x + t) ltac:(lra)) as [B3 B4].\n"
              f"  assert (P1 := {PHI}_bounds x). assert (P2 := {PHI}_bounds (x + t / 2)).\n"
              # the powers' bases are sums: lra would expand a hypothesis (sum)^(p-1), so the powers come after it
              f"  assert (L1 : 0 <= 1 + 2 * {Q} x - 2 * {e} <= 1 + 2 * {G} x) by lra.\n"
              f"  assert (L2 : 0 <= 1 - {Q} x - {Q} (x + t) - 2 * {e} <= 1 - {G} x - {G} (x + t)) by lra.\n"
              f"  assert (E1 := pow_incr _ _ {p - 1} L1). assert (E2 := pow_incr _ _ {p - 1} L2).\n"
              f"  assert (F1 := pow_le _ {p - 1} (proj1 L1)). assert (F2 := pow_le _ {p - 1} (proj1 L2)).\n"
              "  destruct P1 as [P1 _]. destruct P2 as [P2 _].\n"
              "  apply Rmult_le_compat; [ | exact F2 | | exact E2].\n"
              "  - apply Rmult_le_pos; [apply Rmult_le_pos; [exact F1 | apply Rlt_le, P1] | apply Rlt_le, P2].\n"
              "  - apply Rmult_le_compat_r; [apply Rlt_le, P2 | ]. apply Rmult_le_compat_r; [apply Rlt_le, P1 | exact E1].",
              "0 <= 1 + 2 Q - 2 a epsilon <= 2 Phi and 0 <= 1 - Q(x) - Q(x + t) - 2 a epsilon <= 2 M where x, x + t lie in "
              "[-a, a] (region_gd_Q_near, region_gd_bases): a power is nondecreasing on [0, inf)"),
        Lemma(f"{CLOSED}_integral_below", CLAIM,
              f"forall t l, 0 <= t <= {a} -> l <= RInt ({CLOSED} t) (- {a}) ({a} - t) -> "
              f"l <= RInt ({TRUE_INTEGRAND} t) (- {a}) ({a} - t)",
              "intros t l Ht Hl. apply Rle_trans with (1 := Hl). apply RInt_le; [lra | | | ].\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _. "
              f"apply {CLOSED}_continuous.\n"
              "  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros x _. "
              f"apply {TRUE_INTEGRAND}_continuous.\n"
              f"  - intros x Hx. apply {CLOSED}_below; lra.",
              "the closed-form integrand is below the true one on [-a, a - t]"),
        Definition(CDF, f"fun t => {BINOMIAL} * {p} ^ 2 / 4 ^ {p - 1} * t * (1 - t ^ 2 / 24) * "
                        f"RInt ({TRUE_INTEGRAND} t) (- {a}) ({a} - t)", type="R -> R",
                   note="a lower bound of F_S(t) = P(S <= t) for 0 <= t <= min(a, sqrt 24): F_S(t) = C(2p, p) int_R p "
                        "Phi^(p-1) phi (Phibar(x)^p - Phibar(x + t)^p) dx (X_(p) at x, one of the p values above it "
                        "within t), Y^p - Z^p >= p ((Y + Z)/2)^(p-1) (Y - Z) (Hermite-Hadamard: y^(p-1) is convex), "
                        "int_x^(x+t) phi >= t phi(x + t/2) (1 - t^2/24) (e^z >= 1 + z about the midpoint), and the "
                        "integrand is >= 0 (truncated to [-a, a - t]): paper-level"),
    ]


def _half_hat(left: fmpq, right: fmpq, rising: bool) -> str:
    """int_left^right phi(u) times the hat's half on [left, right] (rising to 1 at ``right``, or falling from 1 at
    ``left``), as a Coq term."""
    l, r = real(left), real(right)
    shape = f"(u - {l}) / ({r} - {l})" if rising else f"({r} - u) / ({r} - {l})"
    return f"RInt (fun u => {PHI} u * ({shape})) {l} {r}"


def _weight(pieces) -> str:
    """w_j as a Coq term: the integrals of phi times the half-hats of node j."""
    return " + ".join(_half_hat(*piece) for piece in pieces)


def _nodes(proof: GdRegionProof) -> list:
    """Per node j: t_j <= u_j/k, w_j's lower end, the closed-form integral's lower end, and the term w_j F(t_j)."""
    p, a, eta = proof.p, real(proof.a), real(proof.eta)
    items = []
    for j in range(1, len(proof.u)):
        t, u = real(proof.t[j]), real(proof.u[j])
        pieces = proof.hats(j)
        weight = f"region_gd_weight_{j}"
        halves = proof.weights[j - 1]
        weight_lo = " + ".join(real(w) for w in halves)
        asserts = "".join(f"  assert (H{i} : {real(w)} <= {_half_hat(*piece)}) by (unfold {PHI}; {WEIGHT_TACTIC}).\n"
                          for i, (w, piece) in enumerate(zip(halves, pieces)))
        I, T = real(proof.integrals[j - 1]), real(proof.terms[j - 1])
        items += [
            Lemma(f"region_gd_node_{j}_within", CLAIM, f"0 <= {t} /\\ {t} * {p} ^ 2 <= 2 * {eta} * {u} * sqrt (({p} - 1) / {p})",
                  "split; [lra | interval with (i_prec 100)].",
                  f"t_{j} = {t} <= u_{j}/k, k = p^2/(2 eta tau_p), u_{j} = {u}: F_S(t_{j}) <= F_S(u_{j}/k)"),
            Definition(weight, _weight(pieces),
                       note=f"w_{j}: phi times the hat function of node u_{j} = {u} (rising from the node before"
                            + (", falling to the node after)" if len(pieces) == 2 else "; the last node: the tail beyond it "
                               "is dropped)")),
            Lemma(f"{weight}_lower", CLAIM, f"{weight_lo} <= {weight}",
                  f"unfold {weight}.\n{asserts}  lra.", f"w_{j} is at least the sum of its halves' lower ends"),
            Lemma(f"region_gd_node_{j}_closed", CLAIM, f"{I} <= RInt ({CLOSED} {t}) (- {a}) ({a} - {t})",
                  f"unfold {CLOSED}, {Q}, {HALF}, {PHI}. cbn [{HORNER}]. {INTEGRAL_TACTIC}.",
                  f"the closed-form integral at t_{j}"),
            Lemma(f"region_gd_node_{j}_term", CLAIM, f"{T} <= {weight} * {CDF} {t}",
                  f"destruct {BINOMIAL}_value as [HC _]. unfold {CDF}. rewrite HC.\n"
                  f"  assert (HW := {weight}_lower).\n"
                  f"  assert (HI := {CLOSED}_integral_below {t} {I} ltac:(lra) region_gd_node_{j}_closed).\n"
                  f"  apply Rle_trans with (({weight_lo}) * ({proof.binomial} * {p} ^ 2 / 4 ^ {p - 1} * {t} * (1 - {t} ^ 2 / 24) * {I})); "
                  "[interval with (i_prec 100) | ].\n"
                  "  apply Rmult_le_compat; [interval | interval | exact HW | ].\n"
                  "  apply Rmult_le_compat_l; [interval | exact HI].",
                  f"w_{j} F(t_{j}) >= its proved lower end (both factors >= 0)"),
        ]
    return items


def _chain(proof: GdRegionProof) -> str:
    """The paper-level chain every claim lemma of this route rests on (the comment above each)."""
    n = len(proof.u) - 1
    return ("docs/mathematics.md, 'Region probability of the dead theorem', (j), and docs/coq.md, 'The gd region in "
            f"Coq': P(R_gd | active) = E[Phibar(k S)] / (C(2p, p) - 1), k = p^2/(2 eta tau_p), eta = {real(proof.eta)} "
            "(the ordering identity); E[Phibar(k S)] = int_0^inf phi(u) F_S(u/k) du >= sum_j w_j F_S(u_j/k) (F_S "
            f"concave on [0, inf), F_S(0) = 0: chords at the {n} nodes u_j) >= sum_j w_j F_S(t_j) (region_gd_node_j_"
            f"within, F_S nondecreasing) >= {EXPECTATION} ({CDF}'s comment)")


def gd_region_lemmas(document: dict) -> list:
    """The lemmas of a gd certificate's ``region_probability`` claim (module docstring); ValueError when the claim is
    not the lower bound with a log10 twin they are written for, or the route cannot clear the kernel's bound (the
    claim is then listed as not exported)."""
    _require_twin(document)
    p = int(document["p"])
    eta = number(document["parameters"]["eta"], "parameters.eta")
    if eta <= 0:
        raise ValueError("parameters.eta is not positive")
    proof = gd_region_proof(p, eta)
    node = document["claims"][CLAIM]
    n = len(proof.u) - 1
    expectation = " + ".join(f"region_gd_weight_{j} * {CDF} {real(proof.t[j])}" for j in range(1, n + 1))
    total = real(proof.total)
    bound = f"({EXPECTATION} / ({BINOMIAL} - 1))"
    log10_end = number(node["log10_lo"], f"{CLAIM}.log10_lo")
    paper = _chain(proof)
    full = ("as the certificate states it (the route's number exceeds the kernel's bound, recomputed from p and eta, "
            f"by a relative {mpmath.nstr(GD_MARGIN, 1)} or more)")
    claims = [
        Definition(EXPECTATION, expectation,
                   note="sum_j w_j F(t_j): a lower bound of E[Phibar(k S)] (the chain in the claim lemmas' comments)"),
        Lemma(f"{EXPECTATION}_bound", CLAIM, f"{total} <= {EXPECTATION}",
              f"unfold {EXPECTATION}.\n" + "".join(f"  assert (H{j} := region_gd_node_{j}_term).\n" for j in range(1, n + 1))
              + "  lra.", "the sum of the nodes' proved terms"),
    ]
    claims += claim_lemmas((f"{CLAIM}_lo", f"{CLAIM}_log10_lo"), (stated_lo(node), real(log10_end)), bound, total,
                           f"{EXPECTATION}_bound", (f"{paper}; lo {full}", f"{paper}; log10_lo {full}"), (None, None))
    return (shared_calculus_lemmas(p) + binomial_items(p) + _generic(proof) + _nodes(proof) + claims + landmark_lemmas(document, CLAIM, "lo")
            + twin_lemmas(document, CLAIM))
