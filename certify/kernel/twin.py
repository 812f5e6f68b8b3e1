"""Obligations of Proposition S2.2 on a box (docs/staircase.md, section 11.9): regime II of the (1, 2) staircase,
the twin, is captured onto its face (the gate (1, 1) on its kink, D <= 0) and kept there (Theorem S2), never
aligned (Proposition S.6's delta of (S.15)).

Base point (docs/staircase.md, section 11.9), with exact constants X, s, t, d, E > 0 and X > 2s:

    u = v = (X/2, s - X/2, -X/2 - t, ..., -X/2 - t),   w = (E - d, E, 0, ..., 0) - mu_0 1,   mu_0 = (2E - d)/p,

so z00 = X, z01 = z10 = s, z11 = 2s - X < 0, the boundary gates are -t, z1j = zj1 = s - X - t, zij = -X - 2t,
D = w(0) - w(1) = -d < 0 and gamma_j = mu_0 (j >= 2). The box is the sup-norm box of radius r around it. Every
claim is a bound valid at every point of the box: the pattern margins are exact rationals; the loss excess b_+,
the window margins, the capture margins of (S.29) (through Remark S2.3's upper bounds), the capture time and
delta are Arb balls of closed forms in the exact inputs. Every function works at the current precision and
raises NotCertified (HypothesisError for the inputs) rather than return an unproved bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from flint import arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, working_precision
from .basepoint import BasePoint, ThreeLevel
from .claims import POSITIVE_LOWER, UPPER, ClaimSpec, Component
from .exact import format_rational
from .gaussian import gaussian_probability_spec, require_positive_sigma
from .staircase import (base_point_margin, gamma_lower, purity_margin_lower, relabelled_box_probability_claims,
                        require_positive_pattern, rho_upper, widened_region_spec)

PAPER = ("Proposition S2.2 of docs/staircase.md (regime II, the twin of the (1, 2) staircase): region U_II (S.29) "
         "with Remark S2.3, Lemmas S.11-S.14, Theorem S2, Proposition S.6 (S.15); the region bound by Lemmas S.18-S.20 "
         "and Proposition S.21 (S.40)")


@dataclass(frozen=True)
class TwinParameters:
    """The prime p and the exact constants of the base point (module docstring): X, s, t, d, E, and s2_max, the
    bound sigma of (S.29) on s2 = X^2 + r^2 + c^2 during the capture."""

    p: int
    X: fmpq
    s: fmpq
    t: fmpq
    d: fmpq
    E: fmpq
    s2_max: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def mu0(self) -> fmpq:
        """(2E - d)/p: the mean of (E - d, E, 0, ..., 0), subtracted so that w has mean 0."""
        return (2 * self.E - self.d) / self.p

    @property
    def gamma0(self) -> fmpq:
        """gamma_j = mu - w(j) (j >= 2) at the base point: every one equals mu_0."""
        return self.mu0

    def base_point(self) -> BasePoint:
        return twin_base_point(self)


def twin_base_point(params: TwinParameters) -> BasePoint:
    """The base point (module docstring) as exact three-level blocks."""
    X, s, t, mu0 = params.X, params.s, params.t, params.mu0
    gates = ThreeLevel(X / 2, s - X / 2, -X / 2 - t)
    return BasePoint(u=gates, v=gates, w=ThreeLevel(params.E - params.d - mu0, params.E - mu0, -mu0))


def require_twin_hypotheses(params: TwinParameters, prec: int = 64) -> None:
    """Raise HypothesisError naming the broken hypothesis: p >= 5; X, s, t, d, E, s2_max, sigma > 0; X > 2s (the
    gate (1, 1) inactive); and the base point in U_II (the window and capture margins positive at radius 0,
    decided with balls at ``prec`` bits and then at increasing precision; a point on the boundary of U_II is
    refused). The message names the margins that fail and what raises each."""
    if params.p < 5:
        raise HypothesisError(f"p >= 5 fails: p = {params.p} (Proposition S.6 needs F_0 = 2(1 + cos(2 pi/p))/(p - 2) "
                              "< 1, and Lemma S.12 log(p/4) > 0)")
    for name in ("X", "s", "t", "d", "E", "s2_max"):
        if not getattr(params, name) > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(getattr(params, name))}")
    if not params.X > 2 * params.s:
        raise HypothesisError(f"X > 2s fails (the gate z11 = 2s - X must be negative): X = "
                              f"{format_rational(params.X)}, s = {format_rational(params.s)}")
    require_positive_sigma(params.sigma)
    try:
        margin = base_point_margin(_least_margin, params, prec)
    except NotCertified as error:  # a bound the margins need (kappa > 0, b < 1) fails at the base point itself
        remedy = _REMEDIES["cone" if error.claim_id == "capture_box" else "loss_budget"]
        raise HypothesisError(f"(S.29) fails at the base point: {error} ({remedy}; docs/staircase.md, section "
                              "11.9)") from None
    if margin is not None:
        raise HypothesisError(f"(S.29) fails at the base point: its least margin is {margin.str(5)}, not positive "
                              f"({_failing_margins(params)}; docs/staircase.md, section 11.9)")


#: What raises each margin of the base point (docs/staircase.md, section 11.9): b grows like d^2 and falls as E
#: rises; kappa falls with zeta0 = (X - 2s)/d and with s2_max; s1max grows with s1(0) and kappa's inverse.
_REMEDIES = {"loss_budget": "lower d or raise E", "force_budget": "lower d or raise E",
             "cone": "raise d, or lower X - 2s or s2_max", "growth": "raise s2_max"}


def _failing_margins(params: TwinParameters) -> str:
    """The base point's margins not proved positive at 64 bits, each with what raises it (for a message)."""
    try:
        with working_precision(64):
            margins = {**window_margins_lower(params, 0), **capture_margins_lower(params, 0)}
    except NotCertified as error:
        return str(error)
    failing = [f"{name} {margin.str(3)}: {_REMEDIES[name]}" for name, margin in margins.items()
               if not certainly_positive(margin)]
    return "; ".join(failing) or "not decided at 64 bits"


def _least_margin(params: TwinParameters, radius) -> arb:
    """The least of the window and capture margins on the box (for the base point's test, radius 0)."""
    margins = [*window_margins_lower(params, radius).values(), *capture_margins_lower(params, radius).values()]
    return reduce(arb.min, margins)


def twin_pattern_margins(params: TwinParameters, radius) -> dict[str, fmpq]:
    """Exact margins of Proposition S2.2's pattern on the box of radius r (docs/staircase.md, section 11.9):
    z00, z01, z10 >= min(X, s) - 2r; -z11 >= X - 2s - 2r; -(boundary gates) >= t - 2r; -(every other gate) >=
    X + t - s - 2r; gamma_j >= mu_0 - 2(p - 1) r/p; -D >= d - 2r. NotCertified names a failure."""
    r = fmpq(radius)
    if not r >= 0:
        raise NotCertified(f"the radius must not be negative, got {format_rational(r)}")
    X, s, t = params.X, params.s, params.t
    margins = {
        "active_gates": min(X, s) - 2 * r,
        "gate_11": X - 2 * s - 2 * r,
        "boundary_gates": t - 2 * r,
        "other_gates": X + t - s - 2 * r,
        "gamma_min": gamma_lower(params, r),
        "twin_difference": params.d - 2 * r,
    }
    names = {"active_gates": "the gates (0, 0), (0, 1), (1, 0) > 0", "gate_11": "the gate (1, 1) < 0",
             "boundary_gates": "the boundary gates (0, j), (j, 0) < 0", "other_gates": "every other gate < 0",
             "gamma_min": "gamma_j > 0", "twin_difference": "D = w(0) - w(1) < 0"}
    return require_positive_pattern(margins, names, "U_II", r)


def loss_excess_upper(params: TwinParameters, radius) -> arb:
    """A ball whose upper end bounds b = Lambda - 3 log 2, Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10), at every
    point of the box (docs/staircase.md, section 11.9, loss_excess_box). NotCertified unless d, E, s > 2r.

    The upper w-differences on the box are d + 2r and -(E - d) + 2r for ell_0, -d + 2r and -E + 2r for ell_1; each
    ell increases in them for z > 0. ell_0+ is convex in z: at most its larger end value on [X - 2r, X + 2r]
    (Arb's max, which keeps the ball thin, as in certify.kernel.staircase.loss_upper). ell_1+ decreases in z
    (d, E > 2r), and z01, z10 >= s - 2r.
    """
    p, r = params.p, fmpq(radius)
    X, s, d, E = params.X, params.s, params.d, params.E
    if not (d > 2 * r and E > 2 * r and s > 2 * r):
        raise NotCertified(f"the bound of Lambda needs d, E and s > 2r, at radius {format_rational(r)}",
                           "loss_excess_box")

    def log_sum(z: fmpq, differences) -> arb:
        return sum((count * (ball(z) * ball(dw)).exp() for dw, count in differences), arb(1)).log()

    ends = [log_sum(z, ((d + 2 * r, 1), (-(E - d) + 2 * r, p - 2))) for z in (X - 2 * r, X + 2 * r)]
    ell_1 = log_sum(s - 2 * r, ((-d + 2 * r, 1), (-E + 2 * r, p - 2)))
    return ends[0].max(ends[1]) + 2 * ell_1 - 3 * ball(2).log()


def force_ratio(b: arb, p: int, rho: arb) -> arb:
    """Phi(b; p, rho) of (S.27) (Lemma S.12(e)): b (w1 + rho) + 2 acosh(e^b) w1/(log(p/4) - b), with
    w1 = (1 + k)(p - 2) rho/(2 + k), k = 2 (log 2 + b)/(log(p/4) - 2b). It increases in b on
    [0, log(p/4)/2) and in rho (docs/staircase.md, section 11.5). Needs 0 <= b < log(p/4)/2 (the caller's)."""
    log2, lp4 = ball(2).log(), (ball(p) / 4).log()
    k = 2 * (log2 + b) / (lp4 - 2 * b)
    w1 = (1 + k) * (p - 2) * rho / (2 + k)
    return b * (w1 + rho) + 2 * b.exp().acosh() * w1 / (lp4 - b)


def window_margins_lower(params: TwinParameters, radius, b_plus: arb | None = None) -> dict[str, arb]:
    """Balls whose lower ends bound, at every point of the box, min(1, log(p/4)/2) - b (``loss_budget``) and
    2 - Phi(b; p, rho) (``force_budget``), b = Lambda - 3 log 2 (docs/staircase.md, section 11.9, window_box): b <=
    the upper end of :func:`loss_excess_upper`, rho <= :func:`rho_upper`, and Phi increases in both. NotCertified
    unless b_+ < min(1, log(p/4)/2) is proved (Phi's domain is [0, log(p/4)/2), and b_+ >= b >= 0 by Lemma
    S.11). ``b_plus``: that upper end, when the caller has it."""
    p = params.p
    b_plus = _b_plus(params, radius) if b_plus is None else b_plus
    lp4_half = (ball(p) / 4).log() / 2
    budget = lp4_half.min(arb(1)) - b_plus
    if not certainly_positive(budget):  # b_+ >= b >= 0 (Lemma S.11): Phi's domain is [0, log(p/4)/2)
        raise NotCertified(f"Lemma S.12 needs b < min(1, log(p/4)/2); on the box of radius "
                           f"{format_rational(fmpq(radius))} b is up to {b_plus.str(5)}",
                           "window_box")
    return {"loss_budget": budget, "force_budget": 2 - force_ratio(b_plus, p, ball(rho_upper(params, radius)))}


def cone_ratio_upper(params: TwinParameters, radius) -> fmpq:
    """zeta_+ = (X - 2s + 2r)/(d - 2r): zeta = z11/D is at most this on the box (|z11| <= X - 2s + 2r,
    |D| >= d - 2r > 0), exactly."""
    r = fmpq(radius)
    if not params.d > 2 * r:
        raise NotCertified("zeta = z11/D needs |D| bounded away from 0 on the box (d > 2r)", "capture_box")
    return (params.X - 2 * params.s + 2 * r) / (params.d - 2 * r)


def capture_margins_lower(params: TwinParameters, radius, b_plus: arb | None = None) -> dict[str, arb]:
    """Balls whose lower ends bound kappa (``cone``) and s2_max - s1max^2 (``growth``) of (S.29) at every point
    of the box, through Remark S2.3's upper bounds (docs/staircase.md, section 11.9, capture_box): b_+ (upper
    end of :func:`loss_excess_upper`), zeta_+ (:func:`cone_ratio_upper`), s1_+ = X + 2s + 6r,
    S_+ = (p - 2)(mu_0 + 2(p - 1) r/p), with q_* = 2 (1 - b_+)/(1 + e^{2 acosh(e^{b_+})}), a = 12/(p - 2),
    omega_+ = sqrt(a b_+), tau_+ = zeta_+/kappa_-. NotCertified unless b_+ < 1 (Lemma S.13) and kappa_- > 0
    (tau_+ needs it) are proved. ``b_plus``: the upper end of :func:`loss_excess_upper`, when the caller has it."""
    p, r = params.p, fmpq(radius)
    b_plus = _b_plus(params, radius) if b_plus is None else b_plus
    if not certainly_lt(b_plus, arb(1)):
        raise NotCertified(f"Lemma S.13 needs 0 <= b < 1; on the box of radius {format_rational(r)} b is up to "
                           f"{b_plus.str(5)}", "capture_box")
    zeta = ball(cone_ratio_upper(params, r))
    q_star = 2 * (1 - b_plus) / (1 + (2 * b_plus.exp().acosh()).exp())
    kappa = q_star - zeta * zeta - zeta * ball(params.s2_max) / 2
    if not certainly_positive(kappa):
        raise NotCertified(f"(S.29): kappa is not proved positive on the box of radius {format_rational(r)} "
                           f"({kappa.str(5)})", "capture_box")
    s1_plus = ball(params.X + 2 * params.s + 6 * r)
    S_plus = ball((params.p - 2) * (params.mu0 + fmpq(2 * (p - 1), p) * r))
    a = ball(fmpq(12, p - 2))
    tau = zeta / kappa
    x = (a * b_plus).sqrt() * tau  # > 0: b_+ >= b > 0 (Lemma S.11, z11 D > 0); a ball around 0 fails below
    s1_max = s1_plus * x.cosh() + a * S_plus * tau * x.sinh() / x
    return {"cone": kappa, "growth": ball(params.s2_max) - s1_max * s1_max}


def capture_time_upper(params: TwinParameters, radius, kappa: arb | None = None) -> arb:
    """A ball whose upper end bounds t_c = p^2 zeta_+/kappa_- (Proposition S2.2 with Remark S2.3): from every point
    of the box the gate (1, 1) reaches its kink with D <= 0 by this time. NotCertified as
    :func:`capture_margins_lower`; ``kappa``: its ``cone`` ball, when the caller has it."""
    kappa = capture_margins_lower(params, radius)["cone"] if kappa is None else kappa
    return params.p**2 * ball(cone_ratio_upper(params, radius)) / kappa


def _b_plus(params: TwinParameters, radius) -> arb:
    """b_+: the upper end of :func:`loss_excess_upper`, as an exact ball (current precision)."""
    return ball(loss_excess_upper(params, radius).upper())


#: The claims of a ``twin`` certificate, in schema order: what each states (certify.kernel.claims).
PATTERN_BOX = ClaimSpec(
    "pattern_box", "box", "for every point of the box",
    components=(Component("active_gates", "the gates z00, z01, z10", POSITIVE_LOWER),
                Component("gate_11", "-z11", POSITIVE_LOWER),
                Component("boundary_gates", "-(every boundary gate z0j, zj0, j >= 2)", POSITIVE_LOWER),
                Component("other_gates", "-(every other gate)", POSITIVE_LOWER),
                Component("gamma_min", "gamma_j = mu - w(j) (every j >= 2)", POSITIVE_LOWER),
                Component("twin_difference", "-D = w(1) - w(0)", POSITIVE_LOWER)),
    note="so the box lies in the pattern of Proposition S2.2: the gate (1, 1) strictly inactive, the boundary "
         "gates and every other gate strictly inactive, and D < 0", source="Proposition S2.2, section 11.9")
LOSS_EXCESS_BOX = ClaimSpec(
    "loss_excess_box", "box",
    "for every point of the box, b = Lambda - 3 log 2, Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10),", UPPER,
    note="this end is at least b_+ = max(ell_0+(X - 2r), ell_0+(X + 2r)) + 2 ell_1+(s - 2r) - 3 log 2 with "
         "ell_0+(z) = log(1 + e^{z (d + 2r)} + (p - 2) e^{-z (E - d - 2r)}) and ell_1+(z) = log(1 + e^{-z (d - 2r)} "
         "+ (p - 2) e^{-z (E - 2r)}), the upper bound of b that window_box, capture_box and capture_time_box use "
         "(not this end)",
    source="Lemma S.11, section 11.9")
WINDOW_BOX = ClaimSpec(
    "window_box", "box", "for every point of the box, with b = Lambda - 3 log 2 and rho = max_{j >= 2} gamma_j / "
                         "min_{j >= 2} gamma_j",
    components=(Component("loss_budget", "min(1, log(p/4)/2) - b", POSITIVE_LOWER),
                Component("force_budget", "2 - Phi(b; p, rho) of (S.27)", POSITIVE_LOWER)),
    note="so b < b_II(p, rho): the box lies in the window of Theorem S2 and Proposition S2.2, where the loss "
         "bounds every force (Lemma S.12)", source="(S.27), Lemma S.12, section 11.9")
CAPTURE_BOX = ClaimSpec(
    "capture_box", "box",
    "for every point of the box, with Remark S2.3's upper bounds b_+ of b (loss_excess_box's closed form), "
    "zeta_+ = (X - 2s + 2r)/(d - 2r) of zeta0 = z11/D, s1_+ = X + 2s + 6r of s1 = z00 + z01 + z10 and S_+ = "
    "(p - 2)(mu_0 + 2 (p - 1) r/p) of sum_{j >= 2} gamma_j, and (S.29)'s sigma = s2_max (not the Gaussian sigma)",
    components=(Component("cone", "kappa = q_*(b_+) - zeta_+^2 - zeta_+ s2_max/2", POSITIVE_LOWER),
                Component("growth", "s2_max - s1max^2, s1max of (S.29) at b_+, zeta_+, s1_+, S_+", POSITIVE_LOWER)),
    note="with pattern_box and window_box, the box lies in U_II: from each of its points there is exactly one complete Clarke trajectory, the "
         "gate (1, 1) reaches its kink with D <= 0 and slides on it for all later t, and the (1, 2) pattern is "
         "kept for all t >= 0 (Proposition S2.2, Theorem S2)", source="(S.28)-(S.29), Remark S2.3, section 11.9")
CAPTURE_TIME_BOX = ClaimSpec(
    "capture_time_box", "box", "for every point of the box, the capture time t_c = p^2 zeta_+/kappa", UPPER,
    note="the gate (1, 1) reaches its kink with D <= 0 by the time t_c along the trajectory from every point of "
         "the box", source="Proposition S2.2, Remark S2.3")
PURITY_MARGIN_BOX = ClaimSpec(
    "purity_margin_box", "box",
    "along every trajectory from the box and for all t >= 0, 1 - max_zeta F_zeta(theta(t))", POSITIVE_LOWER,
    note="the trajectory never aligns to one Fourier class", source="Proposition S2.2, Proposition S.6, (S.15)")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("lies in U_II (Proposition S2.2)")
REGION_PROBABILITY = widened_region_spec("U_II", "(S.29)", "Proposition S2.2")
CLAIMS = (PATTERN_BOX, LOSS_EXCESS_BOX, WINDOW_BOX, CAPTURE_BOX, CAPTURE_TIME_BOX, PURITY_MARGIN_BOX,
          GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def twin_box_bounds(params: TwinParameters, radius, prec: int) -> dict:
    """Every bound of the box of radius r > 0 at ``prec`` bits, each margin proved positive; NotCertified names the
    first that is not. The builder's radius search and the claims both call it."""
    r = fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    bounds = {"pattern": twin_pattern_margins(params, r)}
    with working_precision(prec):
        bounds["loss_excess"] = loss_excess_upper(params, r)
        b_plus = ball(bounds["loss_excess"].upper())
        for claim, margins in (("window_box", window_margins_lower(params, r, b_plus)),
                               ("capture_box", capture_margins_lower(params, r, b_plus))):
            for name, margin in margins.items():
                if not certainly_positive(margin):
                    raise NotCertified(f"{claim} on the box: {name} is not proved positive ({margin.str(5)}) at "
                                       f"radius {format_rational(r)}", claim)
            bounds[claim] = margins
        bounds["capture_time"] = capture_time_upper(params, r, bounds["capture_box"]["cone"])
        delta = purity_margin_lower(params, r)
        if not certainly_positive(delta):
            raise NotCertified(f"(S.15) on the box: delta is not proved positive ({delta.str(5)})", "purity_margin_box")
        bounds["delta"] = delta
    return bounds


def twin_claims(params: TwinParameters, radius, prec: int) -> list:
    """Every claim of a ``twin`` certificate (docs/staircase.md, section 11.9), at ``prec`` bits."""
    require_twin_hypotheses(params, prec)
    r = fmpq(radius)
    bounds = twin_box_bounds(params, r, prec)
    with working_precision(prec):
        return [
            PATTERN_BOX.claim(components={name: {"lower": value} for name, value in bounds["pattern"].items()}),
            LOSS_EXCESS_BOX.claim(upper=bounds["loss_excess"]),
            WINDOW_BOX.claim(components={name: {"lower": value} for name, value in bounds["window_box"].items()}),
            CAPTURE_BOX.claim(components={name: {"lower": value} for name, value in bounds["capture_box"].items()}),
            CAPTURE_TIME_BOX.claim(upper=bounds["capture_time"]),
            PURITY_MARGIN_BOX.claim(lower=bounds["delta"]),
            *relabelled_box_probability_claims(GAUSSIAN_PROBABILITY, REGION_PROBABILITY, params, r, widened=True),
        ]
