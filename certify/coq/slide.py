"""Coq lemmas of a ``slide`` certificate (Theorem A.1, the persistent sliding trajectory).

Every claim but ``gaussian_probability`` (certify.coq.gaussian) is stated with the certificate's
own numbers; the formula side transcribes the quantity of certify/kernel/slide.py and
docs/mathematics.md, section 'Sliding trajectory', from p, gamma_*, X, the radius r and the base
point:

``region_box``             for every point of the sup-norm box: x - X, -(cross gates), -(off-cross
                           gates) and gamma_j - gamma_* are >= lo (by lra), and lo > 0
``admissibility``          (p-1)/(e X gamma_*) <= hi, hi < 1 and (p-1)/(e X gamma_*) < 1 (interval)
``capture_time``           T = p^2/(2(p-1)) RInt_{2X}^{6X} (e^{x d(x)} + p - 1)/d(x) dx with
                           d(x) = sqrt(d0^2 + c (x^2 - 4X^2)): 0 < T in full; one ``integral`` proves
                           the enclosure L <= ln T <= H (``capture_time_ln_enclosure``), L and H the
                           certificate's four ends (lo, hi, 10^log10_lo, 10^log10_hi) in logarithms,
                           the lowest and highest, moved outward by CAPTURE_RELATIVE; from it
                           ``interval`` proves lo <= T and T <= hi in log form (ln M + E ln 10 for
                           M 10^E: lo has ~log10_lo digits, never written out), lo and hi moved outward
                           by 2 CAPTURE_RELATIVE and rounded outward to 13 digits, and log10_lo, log10_hi
                           moved outward by CAPTURE_RELATIVE / 2 and rounded outward (lemma names
                           ``capture_time_{lo,hi,log10_lo,log10_hi}_K_digits``)
``capture_invariants``     d(x)^2 - c x^2 = before for x >= 2X, d(6X)^2 - kappa_p^2 (6X)^2 = after (field)
``kappa``                  lo <= p/sqrt(2(p-1)) <= hi and 0 < p/sqrt(2(p-1))
``limit_direction``        each component of (1/sqrt p)(V, V, kappa_p q) in [lo, hi]
``limit_fourier_fraction`` the two-level fraction (1.5) of contrasts (1, 1, kappa_p) is the exact value
``limit_loss``             lo <= (p^2-1)/p^2 log p <= hi
``region_probability``     lo and log10_lo below the bound of R_slide's probability (certify.coq.region_slide)

and, first, ``base_point_*`` (certify.coq.family.base_point_lemmas): the certificate's base point is the
construction of section A.3 in its parameters, u(0) = v(0) = X, u(j) = v(j) = -3X, w(0) = d0 = 2 p gamma_*,
w(j) = 0 (certify.kernel.slide.slide_base_point), so that the lemmas from the parameters (capture time,
invariants, admissibility, kappa) and those from the base point (region_box, gaussian_probability) are
about one point.
"""

from __future__ import annotations

from flint import arb, fmpq

from ..kernel.balls import working_precision
from .family import BOX_TACTIC, base_point_lemmas, fourier_fraction_lemmas
from .export import SHARED_CLAIMS
from .lemma import Definition, Lemma, NotExported
from .region_slide import CLAIM as CLAIM_REGION, slide_region_lemmas
from .relations import landmark_lemmas, relation, stated, twin_lemmas
from .terms import exact_number, ident, number, rational_above, rational_below, real, round_down, round_up

#: Bits for ``interval`` on the 45-digit ends of sqrt/exp/ln expressions (certificates use 128 bits).
INTERVAL = "interval with (i_prec 256)."
#: The capture-time integral: the relative accuracy on T its weakened ends leave room for, and the
#: options of ``integral`` that reach it (measured for p = 5 ... 101: a few seconds). The exponent x d(x)
#: reaches ln T, so e^{x d} is accurate to 1e-12 only with about log2(ln T) + 40 bits.
CAPTURE_RELATIVE = fmpq(1, 10**12)
INTEGRAL_OPTIONS = "i_degree 10, i_fuel 100"
#: Positivity of T needs only a coarse enclosure.
INTEGRAL_SIGN = "integral with (i_prec 30, i_degree 2, i_fuel 40)."

#: Significant digits of the weakened lo and hi of T: they lie 2 CAPTURE_RELATIVE (relatively) outside the
#: certificate's, and 13 digits resolve that (10^-12 relative rounding at most). Fixed by the proof's accuracy,
#: never by the certificate's ends: an end past the truth by more than this is rejected, not weakened further.
CAPTURE_DIGITS = len(str(int(1 / CAPTURE_RELATIVE)))
#: Arb bits for the enclosure's ends (ln T up to ~10^5 resolved to 10^-20).
PRECISION = 256


#: The base point of section A.3 in the parameters (certify.kernel.slide.slide_base_point).
SLIDE_BASE_POINT = {"u": ("{X}", "- 3 * {X}"), "v": ("{X}", "- 3 * {X}"), "w": ("2 * {p} * {gamma_star}", "0")}
BASE_POINT_PAPER = ("the base point of section A.3: u(0) = v(0) = X, u(j) = v(j) = -3X, w(0) = d0 = 2 p gamma_*, "
                    "w(j) = 0; the claims from the parameters (capture time from d0, invariants, kappa) and "
                    "those from the base point (region_box, gaussian_probability) are about this one point")


def slide_obligations(document: dict) -> list:
    """The lemmas, definitions and non-exported claims of a ``slide`` certificate (see module doc)."""
    s = _Slide(document)
    builders = {"region_box": s.region_box, "admissibility": s.admissibility, "capture_time": s.capture_time,
                "capture_invariants": s.capture_invariants, "kappa": s.kappa,
                "limit_direction": s.limit_direction, "limit_fourier_fraction": s.limit_fourier_fraction,
                "limit_loss": s.limit_loss, CLAIM_REGION: lambda: slide_region_lemmas(document)}
    # the base point in the parameters, then capture_d and capture_time (used by both capture claims)
    items: list = base_point_lemmas(document, SLIDE_BASE_POINT, BASE_POINT_PAPER)
    if {"capture_time", "capture_invariants"} & set(document["claims"]):
        items += s.capture_definitions()
    for claim in document["claims"]:
        if claim in SHARED_CLAIMS and claim not in builders:  # certify.coq.export covers them
            continue
        if claim not in builders:
            items.append(NotExported(claim, "no Coq statement of this claim in certify.coq.slide"))
            continue
        try:
            items.extend(builders[claim]())
        except ValueError as error:  # a literal too long for Coq, a region route that cannot be placed: the
            items.append(NotExported(claim, str(error)))  # claim is listed, not half-exported
    return items


class _Slide:
    """The certificate's numbers as Coq terms, and one method per claim."""

    def __init__(self, document: dict):
        self.document = document
        self.claims = document["claims"]
        self.p = int(document["p"])
        parameters = document["parameters"]
        self.X = real(number(parameters["X"], "X"))
        self.g = real(number(parameters["gamma_star"], "gamma_star"))
        self.r = real(number(document["radius"], "radius"))
        self.base = {block: tuple(real(number(document["base_point"][block][level], "base point"))
                                  for level in ("at_0", "elsewhere")) for block in ("u", "v", "w")}
        p = self.p
        self.c = f"({p} / (2 * ({p} - 1)))"                 # p / (2(p-1))
        self.kappa_p = f"({p} / sqrt (2 * ({p} - 1)))"        # kappa_p (A.40)
        self.d0 = f"(2 * {p} * {self.g})"                   # d = w(0) - w(j) at the base point

    def bounds(self, claim: str, component: str | None, formula: str, paper: str) -> list[Lemma]:
        """Each end the claim's relation stores, as its proposition about ``formula`` (``lo <= formula``,
        ``formula <= hi``; certify.coq.relations) by interval, and the landmarks it asserts (``0 < lo``)."""
        lemmas = []
        for end in ("lo", "hi"):
            if end in relation(self.document, claim, component).keys():
                lemmas.append(Lemma(ident(claim, component, end), claim,
                                    stated(self.document, claim, end, formula, component), INTERVAL, paper))
                lemmas += landmark_lemmas(self.document, claim, end, component)
        return lemmas

    # -- claims ------------------------------------------------------------------------------

    def region_box(self) -> list[Lemma]:
        """(A.15)-(A.17) at every point of the box |theta - theta_0|_inf <= r.

        a, b: coordinates u(0) or u(j) and v(0) or v(k) (j, k != 0) of a gate; for gamma_j the
        coordinates w(0), w(j) and s = sum_{k != 0, j} w(k), a sum of p - 2 coordinates, so
        |s - (p-2) w_elsewhere| <= (p-2) r.
        """
        p, r, X, g = self.p, self.r, self.X, self.g
        (u0, uj), (v0, vj), (w0, wj) = self.base["u"], self.base["v"], self.base["w"]
        paper = "the box lies in U_slide: (A.15)-(A.17), each coordinate of a box point within r of the base point"
        gates = f"forall a b : R, Rabs (a - {{u}}) <= {r} -> Rabs (b - {{v}}) <= {r} -> {{q}}"
        statements = {  # the lo of each component bounds its quantity below (the claim's relation)
            "x_minus_X": [("", gates.format(u=u0, v=v0, q="{a + b - X}"))],
            "cross_gates": [("u0_vj", gates.format(u=u0, v=vj, q="{- (a + b)}")),
                            ("uj_v0", gates.format(u=uj, v=v0, q="{- (a + b)}"))],
            "off_cross_gates": [("", gates.format(u=uj, v=vj, q="{- (a + b)}"))],
            "gamma_minus_gamma_star": [("", (
                f"forall a s b : R, Rabs (a - {w0}) <= {r} -> Rabs (s - ({p} - 2) * {wj}) <= ({p} - 2) * {r} -> "
                f"Rabs (b - {wj}) <= {r} -> {{a / p + s / p - (p - 1) / p * b - g}}"))],
        }
        quantities = {"{a + b - X}": f"a + b - {X}", "{- (a + b)}": "- (a + b)",
                      "{a / p + s / p - (p - 1) / p * b - g}": f"a / {p} + s / {p} - ({p} - 1) / {p} * b - {g}"}
        lemmas = []
        for component, variants in statements.items():
            if component not in self.claims["region_box"]["components"]:
                continue
            for variant, statement in variants:
                for placeholder, quantity in quantities.items():
                    statement = statement.replace(placeholder, stated(self.document, "region_box", "lo", quantity,
                                                                      component))
                lemmas.append(Lemma(ident("region_box", component, variant, "lo"), "region_box",
                                    statement, BOX_TACTIC, paper))
            lemmas += landmark_lemmas(self.document, "region_box", "lo", component,
                                      paper="the margin is positive, so the box lies in U_slide ((A.15)-(A.17))")
        return lemmas

    def admissibility(self) -> list[Lemma]:
        quantity = f"(({self.p} - 1) / (exp 1 * {self.X} * {self.g}))"
        paper = "every kink coefficient is <= (p-1)/(e X gamma_*) (Lemma A.9, (A.25))"
        return self.bounds("admissibility", None, quantity, paper) + [
            Lemma("admissibility_below_1", "admissibility", f"{quantity} < 1", INTERVAL,
                  "(A.14) X > (p-1)/(e gamma_*): every kink coefficient is < 1 (Lemma A.9)"),
        ]

    def capture_definitions(self) -> list[Definition]:
        X, c, d0 = self.X, self.c, self.d0
        p = self.p
        return [
            Definition("capture_d", f"fun x : R => sqrt ({d0} ^ 2 + {c} * (x ^ 2 - 4 * {X} ^ 2))", "R -> R",
                       "d(x) = w(0) - w(j) along the base trajectory before capture: "
                       "d^2 = d0^2 + c (x^2 - 4X^2), d0 = 2 p gamma_*, c = p/(2(p-1))"),
            Definition("capture_time",
                       f"{p} ^ 2 / (2 * ({p} - 1)) * RInt (fun x => (exp (x * capture_d x) + ({p} - 1)) / capture_d x) "
                       f"(2 * {X}) (6 * {X})", "R",
                       "T_cap = p^2/(2(p-1)) int_{2X}^{6X} (e^{x d(x)} + p - 1)/d(x) dx ((A.19)-(A.30))"),
        ]

    def capture_time(self) -> list:
        """0 < T (coarse integral); the enclosure L <= ln T <= H by one fine integral; from it, by interval,
        lo <= T and T <= hi in log form and log10_lo <= log10 T <= log10_hi, all weakened (see module doc)."""
        claim = self.claims["capture_time"]
        # the log-form lemmas below state lo, log10_lo below T and hi, log10_hi above it: the relation's directions
        rel = relation(self.document, "capture_time")
        if [rel.direction(key) for key in ("lo", "log10_lo", "hi", "log10_hi")] != ["below", "below", "above", "above"]:
            raise ValueError("capture_time: its relation is not an enclosure with log10 twins")
        paper = "T_cap = int_{2X}^{6X} p^2 dx/(2A) along the base trajectory ((A.19)-(A.30))"
        log_lo, log_hi = number(claim["log10_lo"], "log10_lo"), number(claim["log10_hi"], "log10_hi")
        lo_m, lo_e = _decimal(claim["lo"], "capture_time.lo")
        hi_m, hi_e = _decimal(claim["hi"], "capture_time.hi")
        e = CAPTURE_RELATIVE
        bits = 20 + (int(abs(log_hi).ceil()) * 3).bit_length() + int(1 / e).bit_length()  # ln 10 < 3
        enclosure = "capture_time_ln_enclosure"
        # the landmark and the twin pairs first: quick, and a forged pair fails before any integral
        items: list = [*landmark_lemmas(self.document, "capture_time", "lo"),
                       *twin_lemmas(self.document, "capture_time"),
                       Lemma("capture_time_positive", "capture_time", "0 < capture_time",
                             f"unfold capture_time, capture_d. {INTEGRAL_SIGN}", "T_cap > 0")]

        # the enclosure: the lowest and highest of the four ends, in ln, moved outward by e (ln(1 + e) < e)
        with working_precision(PRECISION):
            ln10 = arb(10).log()
            # (a forged end <= 0 has no logarithm: it is left out here, and its own lemma fails in coqc)
            lows = [rational_below(arb(log_lo) * ln10, PRECISION)] + (
                [rational_below(arb(lo_m).log() + lo_e * ln10, PRECISION)] if lo_m > 0 else [])
            highs = [rational_above(arb(log_hi) * ln10, PRECISION)] + (
                [rational_above(arb(hi_m).log() + hi_e * ln10, PRECISION)] if hi_m > 0 else [])
            low = rational_below(min(lows) - e, PRECISION)
            high = rational_above(max(highs) + e, PRECISION)
        places = len(str(int(max(abs(low), abs(high)).ceil()))) + 20  # rounded to 10^-19 or so
        L, H = real(round_down(low, places)), real(round_up(high, places))
        items.append(Lemma(
            enclosure, "capture_time", f"{L} <= ln capture_time <= {H}",
            f"unfold capture_time, capture_d. integral with (i_prec {bits}, {INTEGRAL_OPTIONS}).",
            f"{paper}; an enclosure of ln T_cap, from the certificate's lowest and highest ends (lo, hi, "
            f"10^log10_lo, 10^log10_hi) moved outward by {e} in ln, for the lemmas below"))

        # lo and hi: moved outward by 2e (relatively) and rounded to CAPTURE_DIGITS, stated in logarithms
        digits = CAPTURE_DIGITS
        m, k = _leading(lo_m * (1 - 2 * e), digits, upward=False)
        lo_term = f"ln {m} + {real(k + lo_e)} * ln 10"
        m, k = _leading(hi_m * (1 + 2 * e), digits, upward=True)
        hi_term = f"ln {m} + {real(k + hi_e)} * ln 10"
        log_form = "in logarithms (ln M + E ln 10 <= ln T is M 10^E <= T, T > 0 by capture_time_positive)"
        items.append(Lemma(
            f"capture_time_lo_{digits}_digits", "capture_time", f"{lo_term} <= ln capture_time",
            f"apply Rle_trans with {L}; [{INTERVAL[:-1]} | exact (proj1 {enclosure})].",
            f"{paper}: lo <= T_cap, lo = {claim['lo']} {log_form}", digits))
        items.append(Lemma(
            f"capture_time_hi_{digits}_digits", "capture_time", f"ln capture_time <= {hi_term}",
            f"apply Rle_trans with {H}; [exact (proj2 {enclosure}) | {INTERVAL[:-1]}].",
            f"{paper}: T_cap <= hi, hi = {claim['hi']} {log_form}", digits))

        # log10 T: ends moved outward by e/2 > e/ln 10, then rounded to the digits that resolve it
        slack = e / 2
        digits = len(str(int(abs(log_hi).floor()))) + len(str(int(1 / slack))) - 1
        lo10, hi10 = real(round_down(log_lo - slack, digits)), real(round_up(log_hi + slack, digits))
        items.append(Lemma(
            f"capture_time_log10_lo_{digits}_digits", "capture_time", f"{lo10} <= ln capture_time / ln 10",
            f"apply Rle_trans with ({L} / ln 10); [{INTERVAL[:-1]} | ].\n"
            f"  unfold Rdiv. apply Rmult_le_compat_r; [{INTERVAL[:-1]} | exact (proj1 {enclosure})].",
            paper, digits))
        items.append(Lemma(
            f"capture_time_log10_hi_{digits}_digits", "capture_time", f"ln capture_time / ln 10 <= {hi10}",
            f"apply Rle_trans with ({H} / ln 10); [ | {INTERVAL[:-1]}].\n"
            f"  unfold Rdiv. apply Rmult_le_compat_r; [{INTERVAL[:-1]} | exact (proj2 {enclosure})].",
            paper, digits))
        return items

    def capture_invariants(self) -> list[Lemma]:
        p, X, c = self.p, self.X, self.c
        components = self.claims["capture_invariants"]["components"]
        lemmas = []
        if "before_capture" in components:
            lemmas.append(Lemma(
                "capture_invariants_before_capture", "capture_invariants",
                f"forall x : R, 2 * {X} <= x -> " + stated(self.document, "capture_invariants", "exact",
                                                           f"capture_d x ^ 2 - {c} * x ^ 2", "before_capture"),
                f"intros x Hx. unfold capture_d. rewrite pow2_sqrt. field. "
                f"assert (0 <= x ^ 2 - 4 * {X} ^ 2) by nra. apply Rplus_le_le_0_compat. "
                f"apply pow2_ge_0. apply Rmult_le_pos. lra. assumption.",
                "before capture d^2 - p x^2/(2(p-1)) is constant, x starting at 2X ((A.20)-(A.21))"))
        if "after_capture" in components:
            lemmas.append(Lemma(
                "capture_invariants_after_capture", "capture_invariants",
                stated(self.document, "capture_invariants", "exact",
                       f"capture_d (6 * {X}) ^ 2 - {p} ^ 2 / (2 * ({p} - 1)) * (6 * {X}) ^ 2", "after_capture"),
                "unfold capture_d. rewrite pow2_sqrt. field. "
                "apply Rplus_le_le_0_compat. apply pow2_ge_0. apply Rmult_le_pos; lra.",
                "after capture (at x = 6X) d^2 - kappa_p^2 x^2 is constant, its value at capture ((A.39))"))
        return lemmas

    def kappa(self) -> list[Lemma]:
        paper = "d/x -> kappa_p = p/sqrt(2(p-1)) ((A.40))"
        return self.bounds("kappa", None, self.kappa_p, paper) + [
            Lemma("kappa_positive", "kappa", f"0 < {self.kappa_p}", INTERVAL, "kappa_p > 0 ((A.40))")]

    def limit_direction(self) -> list[Lemma]:
        p, kappa = self.p, self.kappa_p
        scale = f"(1 / sqrt {p})"
        formulas = {"u_at_0": f"{scale} * (1 / 2)", "u_elsewhere": f"{scale} * (- (1 / 2))",
                    "v_at_0": f"{scale} * (1 / 2)", "v_elsewhere": f"{scale} * (- (1 / 2))",
                    "w_at_0": f"{scale} * ({kappa} * (1 - 1 / {p}))", "w_elsewhere": f"{scale} * ({kappa} * (- (1 / {p})))"}
        paper = "theta/||theta|| -> (1/sqrt p)(V, V, kappa_p q), V = (1/2, -1/2, ...), q = e_0 - 1/p ((A.45))"
        lemmas = []
        for component in self.claims["limit_direction"]["components"]:
            if component not in formulas:
                raise ValueError(f"unknown component {component}")
            lemmas += self.bounds("limit_direction", component, formulas[component], paper)
        return lemmas

    def limit_fourier_fraction(self) -> list[Lemma]:
        """The limit direction's centred blocks are (1, 1, kappa_p) q (q = e_0 - 1/p), a two-level triple."""
        return fourier_fraction_lemmas(self.document, "limit_fourier_fraction", ["1", "1", f"{self.kappa_p} ^ 2"],
                                       "the limit direction's blocks are (1, 1, kappa_p) q, so F_zeta -> "
                                       "2/(p-1) ((A.44), (A.46))")

    def limit_loss(self) -> list[Lemma]:
        p = self.p
        formula = f"(({p} ^ 2 - 1) / {p} ^ 2 * ln {p})"
        return self.bounds("limit_loss", None, formula, "the loss (1.1) -> (p^2-1)/p^2 log p ((A.33))")


def _decimal(text: str, what: str) -> tuple[int, int]:
    """(M, E) with the certificate's number M 10^E, M an integer (never expanded: 10^37123)."""
    value = exact_number(text, what)
    if value.denominator != 1:
        raise ValueError(f"{what} = {text[:40]} is not a decimal")
    return value.numerator, value.exp10


def _leading(value: fmpq, digits: int, upward: bool) -> tuple[int, int]:
    """(m, k) with m 10^k = ``value`` rounded outward (up if ``upward``) to about ``digits`` significant digits,
    m an integer without trailing zeros."""
    rounded = (round_up if upward else round_down)(value, digits)  # a decimal: its denominator divides 10^k
    k = 0
    while (rounded * fmpq(10) ** k).q != 1:
        k += 1
        if k > 4 * digits + 100:
            raise ValueError("a rounded end is not a decimal")
    m, k = int((rounded * fmpq(10) ** k).p), -k
    while m % 10 == 0 and m:
        m, k = m // 10, k + 1
    return m, k
