"""Coq lemmas of a ``sensitivity`` certificate (the death event's rank-one gap, section 2 of the paper).

Every quantity is written from the certificate's p and base point in section 2's reduced coordinates
y0 = (s0, a0, b0) = (u(0) + v(0), w(0), w(j)), g0 = b0 - a0 (the base point is tied to the parameters
(2.1) by certify.coq.family.base_point_lemmas), as docs/mathematics.md, 'Sensitivity of the death event'
derives it:

    c = p/(2(p-1)),  Gamma = g0^2 - c s0^2,  g(s) = sqrt(Gamma + c s^2)                         (2.6)
    I = int_0^{s0} (1 + e^{-s g}(1 + s g)/(p-1)) / g^3 ds                                         (a)
    dT/ds0 = (p^2/2) (F(s0) + c s0 I),  F(s) = (1 + e^{-s g(s)}/(p-1))/g(s),
    dT/da0 = (p^2/2) g0 I = -dT/db0                                                               (a)
    ds/dt(T-) = -2(p-1) sqrt(Gamma)/p^3                                                           (2.7), (b)
    Psi(y0) = (0, a0 + D/(2c), b0 - D/(2c(p-1))),  D = g0 - sqrt(Gamma):  with r = sqrt(Gamma),
    dD/ds0 = c s0/r, dD/dg0 = 1 - g0/r, and Psi' entry by entry; its s row is 0                   (c)
    J_reg = Psi' in the a and b rows; its s row is -ds/dt(T-) grad T^T                            (d)
    S = I - f n^T/(n^T f), f = (ds/dt(T-), 0, 0), n = e_s                                         (e)
    |Psi' - J_reg|_F = |ds/dt(T-)| |grad T|_2, and Psi' - J_reg = e_s (ds/dt(T-) grad T)^T has
    rank 1 exactly when ds/dt(T-) != 0 and grad T != 0                                            (f)

Coq does not prove (a)-(f) (differentiation under the integral sign, the chain rule through the event,
the rank of an outer product): they are the paper-level identities, named in each lemma's comment. It
proves every number: the closed forms (event speed, Psi', J_reg's a and b rows) in full digits by
``interval``; the one integral I by CoqInterval's ``integral``, as ``sensitivity_I_enclosure`` with ends
the exporter chooses itself (python-flint's ``acb.integral``, moved outward and rounded outward to
:data:`I_DIGITS` digits, never the certificate's); and the quantities built on I (grad T, J_reg's s row,
the gap) through that lemma only, their ends moved outward by what I's enclosure leaves and rounded
outward (certify.coq.terms.weakened_end: the digit count depends on that width only, never on the
certificate's ends). Every sign a claim states (ds/dt(T-) < 0, the gap > 0, dT/ds0 > 0 for the rank) is
proved in full about the real quantity.
"""

from __future__ import annotations

from flint import acb, arb, ctx, fmpq

from .family import FAMILY_BASE_POINT, base_point_lemmas, block_levels
from .lemma import Definition, Lemma, NotExported
from .relations import landmark_lemmas, relation, stated
from .terms import ident, number, real, round_down, round_up, weakened_end

WHERE = "the base point is (2.1) of the certificate's epsilon, A, B (section 2)"
COORDINATES = ("s", "a", "b")
#: Significant digits of the exporter's enclosure of I (measured on p = 5, 13, 101: 20 digits with
#: (100, 16, 16) take 2.5-4 s, 25 digits with (120, 20, 24) 6-9 s, 30 digits 20 s); the claims built
#: on I then get about I_DIGITS - 3 digits.
I_DIGITS = 20
I_INTEGRAL = "integral with (i_prec 100, i_degree 16, i_fuel 16)"
#: interval's bits beyond the certificate's digits (or precision) on the full-digit closed forms.
FULL_MARGIN_BITS = 40
I_ENCLOSURE = "sensitivity_I_enclosure"

PAPER_I = ("docs/mathematics.md, 'Sensitivity of the death event' (a): T = (p^2/2) int_0^{s0} F(s) ds "
           "depends on y0 through s0 and Gamma = g0^2 - c s0^2; differentiating under the integral sign "
           "(the integrand is smooth in (s, Gamma) for Gamma > 0) gives grad T through this one integral I")


class _Terms:
    """The certificate's constants as Coq terms, and the exact values behind them."""

    def __init__(self, document: dict):
        self.p_int = int(document["p"])
        p = self.p = str(self.p_int)
        u0, _ = block_levels(document, "u")
        v0, _ = block_levels(document, "v")
        w0, wj = block_levels(document, "w")
        self.s0, self.a0, self.b0 = f"({u0} + {v0})", w0, wj
        self.g0 = f"({wj} - {w0})"
        levels = document["base_point"]
        self.s0_q = number(levels["u"]["at_0"]) + number(levels["v"]["at_0"])
        self.g0_q = number(levels["w"]["elsewhere"]) - number(levels["w"]["at_0"])
        self.c_q = fmpq(self.p_int, 2 * (self.p_int - 1))
        self.Gamma_q = self.g0_q**2 - self.c_q * self.s0_q**2
        self.c = f"({p} / (2 * ({p} - 1)))"
        self.Gamma = f"({self.g0} ^ 2 - {self.c} * {self.s0} ^ 2)"
        self.root = f"(sqrt {self.Gamma})"
        self.speed = f"(- (2 * ({p} - 1) * {self.root} / {p} ^ 3))"

    def g(self, s: str) -> str:
        return f"(sqrt ({self.Gamma} + {self.c} * {s} ^ 2))"

    @property
    def integrand(self) -> str:
        g = self.g("s")
        return f"(fun s => (1 + exp (- s * {g}) * (1 + s * {g}) / ({self.p} - 1)) / {g} ^ 3)"

    def gradient(self, I: str) -> dict[str, str]:
        """dT/dj0 (j in s, a, b) as Coq terms in the term ``I`` of the integral."""
        p, g_s0 = self.p, self.g(self.s0)
        F_s0 = f"((1 + exp (- {self.s0} * {g_s0}) / ({p} - 1)) / {g_s0})"
        return {"s": f"({p} ^ 2 / 2 * ({F_s0} + {self.c} * {self.s0} * {I}))",
                "a": f"({p} ^ 2 / 2 * {self.g0} * {I})",
                "b": f"(- ({p} ^ 2 / 2 * {self.g0} * {I}))"}

    def terminal(self) -> dict[str, str]:
        """Psi' entries ``i_j`` (i in a, b) as Coq terms: (c) with dD/ds0 = c s0/r, dD/dg0 = 1 - g0/r."""
        dD_ds0 = f"({self.c} * {self.s0} / {self.root})"
        dD_dg0 = f"(1 - {self.g0} / {self.root})"
        two_c, two_c_q = f"(2 * {self.c})", f"(2 * {self.c} * ({self.p} - 1))"
        return {"a_s": f"({dD_ds0} / {two_c})", "a_a": f"(1 - {dD_dg0} / {two_c})",
                "a_b": f"({dD_dg0} / {two_c})",
                "b_s": f"(- ({dD_ds0} / {two_c_q}))", "b_a": f"({dD_dg0} / {two_c_q})",
                "b_b": f"(1 - {dD_dg0} / {two_c_q})"}

    def regional_s_row(self, I: str) -> dict[str, str]:
        return {f"s_{j}": f"(- {self.speed} * {term})" for j, term in self.gradient(I).items()}

    def gap(self, I: str) -> str:
        squares = " + ".join(f"{term} ^ 2" for term in self.gradient(I).values())
        return f"(Rabs {self.speed} * sqrt ({squares}))"

    # the same quantities as Arb balls, I a ball: what interval meets when I ranges over its enclosure

    def gradient_balls(self, I: arb) -> dict[str, arb]:
        p, s0, g0 = self.p_int, _ball(self.s0_q), _ball(self.g0_q)
        c = _ball(self.c_q)
        g_s0 = (_ball(self.Gamma_q) + c * s0 * s0).sqrt()
        F_s0 = (1 + (-s0 * g0).exp() / (p - 1)) / g_s0
        half_p2 = _ball(fmpq(p * p, 2))
        return {"s": half_p2 * (F_s0 + c * s0 * I), "a": half_p2 * g0 * I, "b": -(half_p2 * g0 * I)}

    def speed_ball(self) -> arb:
        return -_ball(fmpq(2 * (self.p_int - 1), self.p_int**3)) * _ball(self.Gamma_q).sqrt()

    def gap_ball(self, I: arb) -> arb:
        return abs(self.speed_ball()) * sum((x * x for x in self.gradient_balls(I).values()), arb(0)).sqrt()


def _ball(q: fmpq) -> arb:
    return arb(q.p) / arb(q.q)


def _full_precision(document: dict) -> int:
    """interval's i_prec for the full-digit lemmas: the longest stored end's significant digits at 3.33 bits
    each, or the certificate's precision_bits if more (an end of a ball computed there may lie that close
    to the quantity), plus :data:`FULL_MARGIN_BITS`. About 190 for the library's 45-digit ends at 128 bits."""
    digits = 0
    for body in document["claims"].values():
        for node in [body, *body.get("components", {}).values()]:
            for key in ("lo", "hi"):
                if isinstance(node.get(key), str):
                    mantissa = node[key].split("e")[0].split("/")[0]
                    digits = max(digits, len(mantissa.replace(".", "").replace("-", "").lstrip("0")))
    return max(int(3.33 * digits) + 1, int(document.get("precision_bits", 0))) + FULL_MARGIN_BITS


def _integral_I(t: _Terms) -> arb | None:
    """I by python-flint's rigorous acb.integral (the exporter's own computation, not the kernel's), or None."""
    with ctx.workprec(160):
        Gamma, c = acb(_ball(t.Gamma_q)), acb(_ball(t.c_q))
        p = t.p_int

        def integrand(s, analytic):
            g = (Gamma + c * s * s).sqrt(analytic=analytic)
            sg = s * g
            return (1 + (-sg).exp() * (1 + sg) / (p - 1)) / (g * g * g)

        value = acb.integral(integrand, acb(0), acb(_ball(t.s0_q)), rel_tol=arb(2) ** -120)
    if not (value.real.is_finite() and value.imag.contains(0) and value.real > 0
            and value.real.rad() < value.real.mid() * 1e-30):
        return None
    return value.real


def _i_enclosure(t: _Terms) -> tuple[fmpq, fmpq] | None:
    """(lo, hi) of sensitivity_I_enclosure: python-flint's enclosure of I moved outward by a relative
    10^-I_DIGITS and rounded outward to I_DIGITS digits (what ``integral`` proves in a few seconds)."""
    if not (t.Gamma_q > 0 and t.s0_q > 0 and t.g0_q > 0):
        return None
    value = _integral_I(t)
    if value is None:
        return None
    with ctx.workprec(256):  # lower() and upper() round to the working precision
        lower = fmpq(int((value.lower() * 2**200).floor().unique_fmpz()), 2**200)
        upper = fmpq(int((value.upper() * 2**200).ceil().unique_fmpz()), 2**200)
    slack = upper * fmpq(1, 10**I_DIGITS)
    return round_down(lower - slack, I_DIGITS), round_up(upper + slack, I_DIGITS)


def _with_I(tactic: str) -> str:
    """A proof that first turns I into a variable bounded by sensitivity_I_enclosure (lo <= I <= hi)."""
    return f"pose proof {I_ENCLOSURE} as HI. revert HI. generalize sensitivity_I. intros I HI. {tactic}"


def _bits(digits: int) -> int:
    return int(3.4 * digits) + 30


def _full_bounds(document: dict, claim: str, component: str | None, quantity: str, proof: str,
                 paper: str) -> list[Lemma]:
    """Each stored end of ``claim`` (``component``) about ``quantity`` in full digits, with its landmark."""
    lemmas = []
    for end in relation(document, claim, component).keys():
        lemmas.append(Lemma(ident(claim, component or "", end), claim,
                            stated(document, claim, end, quantity, component), proof, paper))
        lemmas += landmark_lemmas(document, claim, end, component)
    return lemmas


def _on_I(document: dict, claim: str, component: str | None, quantity: str, ball: arb, paper: str) -> list:
    """Each stored end of ``claim`` (``component``) about ``quantity``, a term in sensitivity_I, through
    I's enclosure only: the end moved outward by the width that enclosure leaves and rounded outward
    (certify.coq.terms.weakened_end); with its landmark in full."""
    lemmas: list = []
    for end in relation(document, claim, component).keys():
        node = document["claims"][claim] if component is None else document["claims"][claim]["components"][component]
        value = number(node[end], f"{claim}.{end}")
        weakened = weakened_end(value, ball, upward=relation(document, claim, component).direction(end) == "above")
        if weakened is None:
            return [NotExported(claim, f"I's enclosure to {I_DIGITS} digits leaves fewer than 3 digits of "
                                       f"{component + '.' if component else ''}{end}")]
        k, bound = weakened
        lemmas.append(Lemma(ident(claim, component or "", end, f"{k}_digits"), claim,
                            stated(document, claim, end, quantity, component, value=bound),
                            _with_I(f"interval with (i_prec {_bits(k)})."), paper, digits=k))
        lemmas += landmark_lemmas(document, claim, end, component)
    return lemmas


def _exact_rows(document: dict, claim: str, values: dict[str, str], proof: str, paper: str) -> list[Lemma]:
    """The components of ``claim`` whose relation is exact, each ``value = exact`` (``values``: Coq terms)."""
    return [Lemma(ident(claim, component), claim, stated(document, claim, "exact", values[component], component),
                  proof, paper) for component in document["claims"][claim].get("components", {})
            if component in values and relation(document, claim, component).kind == "exact"]


PAPER_PSI = ("docs/mathematics.md (c): da/ds = -s/(2g), db/ds = s/(2(p-1)g) integrated from s0 to 0 give "
             "Psi(y0) = (0, a0 + D/(2c), b0 - D/(2c(p-1))), D = g0 - sqrt(Gamma); with r = sqrt(Gamma), "
             "dD/ds0 = c s0/r and dD/dg0 = 1 - g0/r (g0 = b0 - a0)")
PAPER_REGIONAL = ("docs/mathematics.md (d): Psi(y) = phi(T(y), y) gives Psi' = J_reg + f(y(T)) grad T^T with "
                  "f(y(T)) = (ds/dt(T-), 0, 0), so J_reg is Psi' in its a and b rows")
PAPER_REGIONAL_S = ("docs/mathematics.md (d): the s row of J_reg is -ds/dt(T-) grad T^T "
                    "(differentiating s(T(y), y) = 0), grad T from " + I_ENCLOSURE)
PAPER_SPEED = ("(2.7): at s = 0, pi_0 = 1/p and g = sqrt(Gamma) by (2.6), so ds/dt(T-) = "
               "-(2/p^2)(1 - 1/p) sqrt(Gamma)")
PAPER_GAP = ("docs/mathematics.md (f): Psi' - J_reg = f grad T^T = e_s (ds/dt(T-) grad T)^T, whose Frobenius "
             "norm is |ds/dt(T-)| |grad T|_2; grad T from " + I_ENCLOSURE)


def _saltation_lemmas(document: dict) -> list[Lemma]:
    """S_ij = delta_ij - f_i n_j / (n^T f) for every f = (v, 0, 0) with v != 0 (the event speed, proved
    negative by the event_speed lemmas) and n = e_s, each equal to the stored exact entry (field)."""
    claim = "saltation_matrix"
    f = {"s": "v", "a": "0", "b": "0"}
    n = {"s": "1", "a": "0", "b": "0"}
    dot = " + ".join(f"{n[k]} * {f[k]}" for k in COORDINATES)
    lemmas = []
    for component in document["claims"][claim].get("components", {}):
        i, _, j = component.partition("_")
        if i not in f or j not in n or relation(document, claim, component).kind != "exact":
            continue
        entry = f"({1 if i == j else 0} - {f[i]} * {n[j]} / ({dot}))"
        lemmas.append(Lemma(
            ident(claim, component), claim,
            f"forall v : R, v <> 0 -> {stated(document, claim, 'exact', entry, component)}",
            "intros v Hv. field. lra.",
            "docs/mathematics.md (e): S = I - f n^T/(n^T f) with f = (ds/dt(T-), 0, 0) the field at the event "
            "(da/dt, db/dt carry a factor s) and n = e_s the gate's normal, for every nonzero event speed"))
    return lemmas


def _gap_rank_lemmas(document: dict, t: _Terms) -> list[Lemma]:
    """The rank as the signs it rests on: ds/dt(T-) < 0 and dT/ds0 > 0 (about the real quantities, in
    full), then the (s, s) entry v dT/ds0 of the outer product nonzero and the stored rank 1."""
    claim = "gap_rank"
    speed, gradient_s = t.speed, t.gradient("sensitivity_I")["s"]
    rank = stated(document, claim, "exact", "1")
    return [
        Lemma(ident(claim, "speed_negative"), claim, f"{speed} < 0", "interval.",
              "(2.7): the gate reaches its kink transversally, ds/dt(T-) = -2(p-1) sqrt(Gamma)/p^3 < 0"),
        Lemma(ident(claim, "gradient_s_positive"), claim, f"0 < {gradient_s}", _with_I("interval."),
              "docs/mathematics.md (a): dT/ds0 = (p^2/2)(F(s0) + c s0 I) > 0, grad T from " + I_ENCLOSURE),
        Lemma(claim, claim, f"{speed} * {gradient_s} <> 0 /\\ {rank}",
              f"pose proof {ident(claim, 'speed_negative')} as Hv. pose proof {ident(claim, 'gradient_s_positive')} "
              f"as Hg. revert Hv Hg. generalize {speed} {gradient_s}. intros v g Hv Hg. "
              "split; [apply Rmult_integral_contrapositive_currified; lra | lra].",
              "docs/mathematics.md (f): the gap Psi' - J_reg = e_s (ds/dt(T-) grad T)^T is an outer product x y^T "
              "with x = e_s != 0 and y_s = ds/dt(T-) dT/ds0 != 0 (proved here), and an outer product of two "
              "nonzero vectors has rank exactly 1 (every 2 x 2 minor of x y^T vanishes, one entry does not)"),
    ]


def sensitivity_obligations(document: dict) -> list:
    """The definitions and lemmas of every claim of a ``sensitivity`` certificate.

    The base point's lemmas (tied to the parameters) come first, then, when a claim needs it, the
    definition of I and :data:`I_ENCLOSURE` (the exporter's enclosure of I, proved by ``integral``), then
    each claim in the certificate's order. A claim id this exporter does not know is listed as not exported.
    """
    t = _Terms(document)
    claims = document["claims"]
    items: list = list(base_point_lemmas(document, FAMILY_BASE_POINT, WHERE))
    needs_I = [claim for claim in ("hitting_time_gradient", "regional_derivative", "sensitivity_gap", "gap_rank")
               if claim in claims]
    enclosure = _i_enclosure(t) if needs_I else None
    if enclosure is not None:
        lo, hi = enclosure
        items.append(Definition("sensitivity_I", f"RInt {t.integrand} 0 {t.s0}",
                                note="I = int_0^{s0} (1 + e^{-s g}(1 + s g)/(p-1)) / g^3 ds, g = sqrt(Gamma + c s^2), "
                                     "Gamma = g0^2 - c s0^2, c = p/(2(p-1)) (docs/mathematics.md (a))"))
        items.append(Lemma(I_ENCLOSURE, "hitting_time_gradient", f"{real(lo)} <= sensitivity_I <= {real(hi)}",
                           f"unfold sensitivity_I. {I_INTEGRAL}.",
                           PAPER_I + "; an enclosure whose ends the exporter chooses (python-flint's acb.integral, "
                           f"rounded outward to {I_DIGITS} digits), not the certificate's: the claims built on I "
                           "use it"))
    with ctx.workprec(256):
        I_ball = _ball(enclosure[0]).union(_ball(enclosure[1])) if enclosure is not None else None
        full = f"interval with (i_prec {_full_precision(document)})."
        for claim in claims:
            if claim in needs_I and enclosure is None:
                items.append(NotExported(claim, "python-flint's integral of I did not converge (or Gamma <= 0)"))
            elif claim == "hitting_time_gradient":
                balls, terms = t.gradient_balls(I_ball), t.gradient("sensitivity_I")
                for j in COORDINATES:
                    if j in claims[claim].get("components", {}):
                        items += _on_I(document, claim, j, terms[j], balls[j], PAPER_I)
            elif claim == "event_speed":
                items += _full_bounds(document, claim, None, t.speed, full, PAPER_SPEED)
                items.append(Lemma(ident(claim, "negative"), claim, f"{t.speed} < 0", "interval.",
                                   "(2.7): the gate reaches its kink transversally"))
            elif claim in ("terminal_map_derivative", "regional_derivative"):
                components = claims[claim].get("components", {})
                items += _exact_rows(document, claim, {f"s_{j}": "0" for j in COORDINATES}, "lra.",
                                     "docs/mathematics.md (c): Psi_s(y0) = s(T(y0)) = 0 for every y0 (the terminal "
                                     "map lands on the face s = 0), so the s row of Psi' is 0")
                for component, term in t.terminal().items():
                    if component in components:
                        items += _full_bounds(document, claim, component, term, full,
                                              PAPER_PSI if claim == "terminal_map_derivative" else
                                              PAPER_REGIONAL + "; " + PAPER_PSI)
                if claim == "regional_derivative":
                    balls = {f"s_{j}": -t.speed_ball() * ball for j, ball in t.gradient_balls(I_ball).items()}
                    for component, term in t.regional_s_row("sensitivity_I").items():
                        if component in components and relation(document, claim, component).kind != "exact":
                            items += _on_I(document, claim, component, term, balls[component], PAPER_REGIONAL_S)
            elif claim == "saltation_matrix":
                items += _saltation_lemmas(document)
            elif claim == "sensitivity_gap":
                lemmas = _on_I(document, claim, None, t.gap("sensitivity_I"), t.gap_ball(I_ball), PAPER_GAP)
                items += lemmas
                items.append(Lemma(ident(claim, "positive"), claim, f"0 < {t.gap('sensitivity_I')}",
                                   _with_I("interval."), "the gap is nonzero: ds/dt(T-) != 0 and grad T != 0"))
            elif claim == "gap_rank":
                items += _gap_rank_lemmas(document, t)
            else:
                items.append(NotExported(claim, "not a claim of theorem sensitivity known to this exporter"))
    return items
