"""Obligations of Proposition S3.2 on a box (docs/staircase.md, section 11.11): regime II of the (1, 2) staircase
captured onto the twin's face from the side D > 0 (the gate (1, 1) reaches its kink with D >= 0 by a certified
time) and kept there (Theorem S3), never aligned (Proposition S.6's delta of (S.15)).

Base point (docs/staircase.md, section 11.11), with exact constants X, e, t, d, E, h > 0 and e < X:

    u = v = (X/2, s - X/2, -X/2 - t, ..., -X/2 - t),   s = (X - e)/2,   w = (E + d, E, 0, ..., 0) - mu_0 1,
    mu_0 = (2E + d)/p,

so z00 = X, z01 = z10 = s, z11 = -e < 0, the boundary gates are -t, z1j = zj1 = s - X - t, zij = -X - 2t,
D = w(0) - w(1) = d > 0 and gamma_j = mu_0 (j >= 2); h is the free parameter of (S.34). The box is the sup-norm
box of radius r around it. Every claim is a bound valid at every point of the box, through Remark S3.3 (the
hypotheses of Proposition S3.2 at upper bounds of e, D0, b0, z0, M0, rho0 and lower bounds of m, X0, S0): the pattern
margins and the capture time are exact rationals; the loss excess b_+, the window margin, the four margins of
(S.34) and delta are Arb balls of closed forms in the exact inputs. Every function works at the current precision
and raises NotCertified (HypothesisError for the inputs) rather than return an unproved bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, working_precision
from .basepoint import BasePoint, ThreeLevel
from .claims import POSITIVE_LOWER, UPPER, ClaimSpec, Component
from .exact import format_rational
from .gaussian import gaussian_probability_spec, require_positive_sigma
from .staircase import (gamma_lower, loss_upper, purity_margin_lower, relabelled_box_probability_claims,
                        require_base_point_in_region, require_positive_margins, require_positive_pattern, rho_upper,
                        widened_region_spec)

PAPER = ("Proposition S3.2 of docs/staircase.md (regime II of the (1, 2) staircase, captured with D >= 0): region "
         "U_II^+ (S.34) with Remark S3.3, Lemmas S.15-S.17, Theorem S3, Proposition S.6 (S.15); the region bound by "
         "Lemmas S.18-S.20 and Proposition S.21 (S.40)")


@dataclass(frozen=True)
class TwinPlusParameters:
    """The prime p and the exact constants of the base point (module docstring): X, e, t, d, E, and h, the
    parameter of (S.34) (the rate the gate (1, 1) is proved to rise at)."""

    p: int
    X: fmpq
    e: fmpq
    t: fmpq
    d: fmpq
    E: fmpq
    h: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def s(self) -> fmpq:
        """(X - e)/2: the gates z01 = z10 at the base point."""
        return (self.X - self.e) / 2

    @property
    def D(self) -> fmpq:
        """d: D = w(0) - w(1) at the base point (Theorem S's name, for section 9.2's bound of Lambda)."""
        return self.d

    @property
    def mu0(self) -> fmpq:
        """(2E + d)/p: the mean of (E + d, E, 0, ..., 0), subtracted so that w has mean 0."""
        return (2 * self.E + self.d) / self.p

    @property
    def gamma0(self) -> fmpq:
        """gamma_j = mu - w(j) (j >= 2) at the base point: every one equals mu_0."""
        return self.mu0

    def base_point(self) -> BasePoint:
        return twin_plus_base_point(self)


def twin_plus_base_point(params: TwinPlusParameters) -> BasePoint:
    """The base point (module docstring) as exact three-level blocks."""
    X, s, t, mu0 = params.X, params.s, params.t, params.mu0
    gates = ThreeLevel(X / 2, s - X / 2, -X / 2 - t)
    return BasePoint(u=gates, v=gates, w=ThreeLevel(params.E + params.d - mu0, params.E - mu0, -mu0))


def require_twin_plus_hypotheses(params: TwinPlusParameters, prec: int = 64) -> None:
    """Raise HypothesisError naming the broken hypothesis: p >= 5; X, e, t, d, E, h, sigma > 0; e < X (so s > 0);
    and the base point in U_II^+ (the window margin and the four margins of (S.34) positive at radius 0, decided
    with balls at ``prec`` bits and then at increasing precision; a point on the boundary of U_II^+ is refused).
    The message names the margins that fail."""
    if params.p < 5:
        raise HypothesisError(f"p >= 5 fails: p = {params.p} (Proposition S.6 needs F_0 = 2(1 + cos(2 pi/p))/(p - 2) "
                              "< 1, and the window beta(p, rho) log(p/4) > 0)")
    for name in ("X", "e", "t", "d", "E", "h"):
        if not getattr(params, name) > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(getattr(params, name))}")
    if not params.e < params.X:
        raise HypothesisError(f"e < X fails (the gates z01 = z10 = (X - e)/2 must be active): X = "
                              f"{format_rational(params.X)}, e = {format_rational(params.e)}")
    require_positive_sigma(params.sigma)
    require_base_point_in_region(_region_margins, params, prec, "U_II^+", "the window b0 < beta(p, rho0) and (S.34)",
                                 "11.11")


def _region_margins(params: TwinPlusParameters, radius) -> dict[str, arb]:
    """The window margin and the four margins of (S.34) on the box, by name (current precision)."""
    return {"window": window_margin_lower(params, radius), **capture_margins_lower(params, radius)}


def twin_plus_pattern_margins(params: TwinPlusParameters, radius) -> dict[str, fmpq]:
    """Exact margins of Proposition S3.2's pattern on the box of radius r (docs/staircase.md, section 11.11):
    z00, z01, z10 >= s - 2r (s < X); -z11 >= e - 2r; -(boundary gates) >= t - 2r; -(every other gate) >=
    X + t - s - 2r; gamma_j >= mu_0 - 2(p - 1) r/p; D >= d - 2r. NotCertified names a failure."""
    r = fmpq(radius)
    if not r >= 0:
        raise NotCertified(f"the radius must not be negative, got {format_rational(r)}")
    X, s, t = params.X, params.s, params.t
    margins = {
        "active_gates": s - 2 * r,
        "gate_11": params.e - 2 * r,
        "boundary_gates": t - 2 * r,
        "other_gates": X + t - s - 2 * r,
        "gamma_min": gamma_lower(params, r),
        "positive_difference": params.d - 2 * r,
    }
    names = {"active_gates": "the gates (0, 0), (0, 1), (1, 0) > 0", "gate_11": "the gate (1, 1) < 0",
             "boundary_gates": "the boundary gates (0, j), (j, 0) < 0", "other_gates": "every other gate < 0",
             "gamma_min": "gamma_j > 0", "positive_difference": "D = w(0) - w(1) > 0"}
    return require_positive_pattern(margins, names, "U_II^+", r)


def loss_excess_upper(params: TwinPlusParameters, radius) -> arb:
    """A ball whose upper end bounds b = Lambda - 3 log 2, Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10), at every
    point of the box (docs/staircase.md, section 11.11, loss_excess_box): the base point's w and its three gates
    are Theorem S's with D = d, so section 9.2's bound of Lambda applies
    (:func:`certify.kernel.staircase.loss_upper`: ell_0+(X - 2r) + 2 max(ell_1+(s - 2r), ell_1+(s + 2r))).
    NotCertified unless d, E and s > 2r (ell_0+ then decreases in z, and z01, z10 > 0)."""
    r = fmpq(radius)
    if not (params.d > 2 * r and params.E > 2 * r and params.s > 2 * r):
        raise NotCertified(f"the bound of Lambda needs d, E and s > 2r, at radius {format_rational(r)}",
                           "loss_excess_box")
    return loss_upper(params, r) - 3 * ball(2).log()


def _b_plus(params: TwinPlusParameters, radius) -> arb:
    """b_+: the upper end of :func:`loss_excess_upper`, as an exact ball (current precision)."""
    return ball(loss_excess_upper(params, radius).upper())


def window_margin_lower(params: TwinPlusParameters, radius, b_plus: arb | None = None) -> arb:
    """A ball whose lower end bounds beta(p, rho) - b at every point of the box, beta(p, rho) = min(log(p/4),
    2/((p - 1) rho)) (docs/staircase.md, section 11.10): b <= b_+ (:func:`loss_excess_upper`), rho <= rho_+
    (:func:`certify.kernel.staircase.rho_upper`) and beta decreases in rho. ``b_plus``: that upper end, when the
    caller has it."""
    p = params.p
    b_plus = _b_plus(params, radius) if b_plus is None else b_plus
    beta = (ball(p) / 4).log().min(ball(fmpq(2, p - 1) / rho_upper(params, radius)))
    return beta - b_plus


def q_star(b: arb) -> arb:
    """q_*(b) = 2 (1 - b)/(1 + e^{2 acosh(e^b)}) (docs/staircase.md, section 11.7); decreasing in b on [0, 1).
    Needs b >= 0 (the caller's)."""
    return 2 * (1 - b) / (1 + (2 * b.exp().acosh()).exp())


def box_bounds(params: TwinPlusParameters, radius) -> dict[str, fmpq]:
    """The exact bounds of Remark S3.3 on the box of radius r (docs/staircase.md, section 11.11): e_+ = e + 2r
    (of e = -z11), D_+0 = d + 2r (of D0), z_+0 = s + 2r (of z_max), M_+0 = E + d + 2r (of M0 = W0 - w_min),
    m_- = min(s, t) - 2r (of m), X_-0 = X - 2r (of X0) and S_- = (p - 2)(mu_0 - 4r/p) (of S0: S0 = (p - 2)/p
    (w(0) + w(1)) - (2/p) sum_{j >= 2} w(j), whose coefficients' absolute values sum to 4 (p - 2)/p); each coordinate
    moves by at most r, a gate or a difference of w by at most 2r. NotCertified unless S_- > 0."""
    p, r = params.p, fmpq(radius)
    bounds = {"e_plus": params.e + 2 * r, "D0_plus": params.d + 2 * r, "z0_plus": params.s + 2 * r,
              "M0_plus": params.E + params.d + 2 * r, "m_minus": min(params.s, params.t) - 2 * r,
              "X0_minus": params.X - 2 * r, "S_minus": (p - 2) * (params.mu0 - 4 * r / p)}
    if not bounds["S_minus"] > 0:
        raise NotCertified(f"S0 = sum_j gamma_j is not bounded away from 0 on the box of radius "
                           f"{format_rational(r)}", "capture_box")
    return bounds


def capture_margins_lower(params: TwinPlusParameters, radius, b_plus: arb | None = None) -> dict[str, arb]:
    """Balls whose lower ends bound the four margins of (S.34) at every point of the box, through Remark S3.3
    (docs/staircase.md, section 11.11, capture_box), with the bounds of :func:`box_bounds`, b_+ (the upper end of
    :func:`loss_excess_upper`) and b_+^0 = max(b_+, 0):

        D_+ = D_+0 + e_+^2/h,  B_+ = b_+ + D_+ e_+/2,  delta_c = sqrt(2 B_+ e_+/h),  z_+ = z_+0 + delta_c,
        M_+ = M_+0 + delta_c,  X_- = X_-0 - delta_c,  kappa_- = (3/4) q_*(b_+^0) X_-^2;

    ``reach`` m_- - delta_c, ``rate`` (2/p)(S_- e^{-z_+ M_+} - D_+) - h, ``cone`` kappa_- - 2 b_+^0 and ``race``
    log S_- - z_+ M_+ - (z_+ + M_+)^2 b_+^0/(2 (kappa_- - 2 b_+^0)) - log D_+. NotCertified unless b_+ < 1 (q_*
    decreases on [0, 1)), B_+ >= 0, X_- > 0 and the cone margin are proved (the race divides by it). ``b_plus``: the
    upper end of :func:`loss_excess_upper`, when the caller has it."""
    p, r = params.p, fmpq(radius)
    b_plus = _b_plus(params, radius) if b_plus is None else b_plus
    if not certainly_lt(b_plus, arb(1)):
        raise NotCertified(f"q_* needs b < 1; on the box of radius {format_rational(r)} b is up to "
                           f"{b_plus.str(5)}", "capture_box")
    bounds = {name: ball(value) for name, value in box_bounds(params, r).items()}
    e_plus, h = bounds["e_plus"], ball(params.h)
    D_plus = bounds["D0_plus"] + e_plus * e_plus / h
    B_plus = b_plus + D_plus * e_plus / 2
    if not certainly_positive(B_plus):  # B >= 0 at every point (S.7); an upper bound below 0 is a bug, a ball around 0 undecided
        raise NotCertified(f"B_+ = b_+ + D_+ e_+/2 is not proved positive ({B_plus.str(5)})", "capture_box")
    delta_c = (2 * B_plus * e_plus / h).sqrt()
    z_plus, M_plus, X_minus = bounds["z0_plus"] + delta_c, bounds["M0_plus"] + delta_c, bounds["X0_minus"] - delta_c
    if not certainly_positive(X_minus):
        raise NotCertified(f"X_- = X - 2r - delta_c is not proved positive ({X_minus.str(5)})", "capture_box")
    b0 = b_plus.max(arb(0))
    kappa = 3 * q_star(b0) * X_minus * X_minus / 4
    cone = kappa - 2 * b0
    if not certainly_positive(cone):
        raise NotCertified(f"(S.34): kappa_- - 2 b_+ is not proved positive on the box of radius "
                           f"{format_rational(r)} ({cone.str(5)})", "capture_box")
    S_minus = bounds["S_minus"]
    race = (S_minus.log() - z_plus * M_plus - (z_plus + M_plus) * (z_plus + M_plus) * b0 / (2 * cone) - D_plus.log())
    return {"reach": bounds["m_minus"] - delta_c,
            "rate": 2 * (S_minus * (-z_plus * M_plus).exp() - D_plus) / p - h,
            "cone": cone, "race": race}


def capture_time_upper(params: TwinPlusParameters, radius) -> fmpq:
    """t_c = p^2 e_+/h, e_+ = e + 2r, exactly: from every point of the box the gate (1, 1) reaches its kink, with
    D >= 0, before this time (Proposition S3.2 with Remark S3.3: z11(t) > -e_+ + h t/p^2 while it is < 0)."""
    return params.p**2 * (params.e + 2 * fmpq(radius)) / params.h


#: The claims of a ``twin_plus`` certificate, in schema order: what each states (certify.kernel.claims).
PATTERN_BOX = ClaimSpec(
    "pattern_box", "box", "for every point of the box",
    components=(Component("active_gates", "the gates z00, z01, z10", POSITIVE_LOWER),
                Component("gate_11", "-z11", POSITIVE_LOWER),
                Component("boundary_gates", "-(every boundary gate z0j, zj0, j >= 2)", POSITIVE_LOWER),
                Component("other_gates", "-(every other gate)", POSITIVE_LOWER),
                Component("gamma_min", "gamma_j = mu - w(j) (every j >= 2)", POSITIVE_LOWER),
                Component("positive_difference", "D = w(0) - w(1)", POSITIVE_LOWER)),
    note="so the box lies in the pattern of Proposition S3.2: the gate (1, 1) strictly inactive, the boundary "
         "gates and every other gate strictly inactive, and D > 0", source="Proposition S3.2, section 11.11")
LOSS_EXCESS_BOX = ClaimSpec(
    "loss_excess_box", "box",
    "for every point of the box, b = Lambda - 3 log 2, Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10),", UPPER,
    note="this end is at least b_+ = ell_0+(X - 2r) + 2 max(ell_1+(s - 2r), ell_1+(s + 2r)) - 3 log 2 with "
         "ell_0+(z) = log(1 + e^{-z (d - 2r)} + (p - 2) e^{-z (E + d - 2r)}) and ell_1+(z) = log(1 + e^{z (d + 2r)} + "
         "(p - 2) e^{-z (E - 2r)}), s = (X - e)/2, the upper bound of b that window_box and capture_box use (not "
         "this end)",
    source="section 9.2, section 11.11")
WINDOW_BOX = ClaimSpec(
    "window_box", "box",
    "for every point of the box, with b = Lambda - 3 log 2, rho = max_{j >= 2} gamma_j / min_{j >= 2} gamma_j and "
    "beta(p, rho) = min(log(p/4), 2/((p - 1) rho)), beta(p, rho) - b", POSITIVE_LOWER,
    note="so b < beta(p, rho): the box lies in the window of Theorem S3 and Proposition S3.2",
    source="Theorem S3, section 11.11")
CAPTURE_BOX = ClaimSpec(
    "capture_box", "box",
    "for every point of the box, with Remark S3.3's bounds e_+ = e + 2r of -z11, D_+0 = d + 2r of D, b_+ of b "
    "(loss_excess_box's closed form), b_+^0 = max(b_+, 0), z_+0 = s + 2r of max(z01, z10), M_+0 = E + d + 2r of "
    "w(0) - min_{j >= 2} w(j), m_- = min(s, t) - 2r of m, X_-0 = X - 2r of z00, S_- = (p - 2)(mu_0 - 4r/p) of "
    "sum_{j >= 2} gamma_j, and D_+ = D_+0 + e_+^2/h, B_+ = b_+ + D_+ e_+/2, delta_c = sqrt(2 B_+ e_+/h), z_+ = "
    "z_+0 + delta_c, M_+ = M_+0 + delta_c, X_- = X_-0 - delta_c, kappa_- = (3/4) q_*(b_+^0) X_-^2",
    components=(Component("reach", "m_- - delta_c", POSITIVE_LOWER),
                Component("rate", "(2/p)(S_- e^{-z_+ M_+} - D_+) - h", POSITIVE_LOWER),
                Component("cone", "kappa_- - 2 b_+^0", POSITIVE_LOWER),
                Component("race", "log S_- - z_+ M_+ - (z_+ + M_+)^2 b_+^0/(2 (kappa_- - 2 b_+^0)) - log D_+",
                          POSITIVE_LOWER)),
    note="with pattern_box and window_box, (S.34) holds at every point of the box: it lies in U_II^+, and the gate (1, 1) reaches its kink with "
         "D >= 0 and slides on it for ever (Proposition S3.2, Theorem S3)", source="Remark S3.3, section 11.11")
CAPTURE_TIME_BOX = ClaimSpec(
    "capture_time_box", "box", "for every point of the box, the capture time t_c = p^2 (e + 2r)/h", UPPER,
    note="the gate (1, 1) reaches its kink with D >= 0 before the time t_c along the trajectory from every point "
         "of the box", source="Proposition S3.2, Remark S3.3")
PURITY_MARGIN_BOX = ClaimSpec(
    "purity_margin_box", "box",
    "along every trajectory from the box and for all t >= 0, 1 - max_zeta F_zeta(theta(t))", POSITIVE_LOWER,
    note="the trajectory never aligns to one Fourier class", source="Proposition S3.2, Proposition S.6, (S.15)")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("lies in U_II^+ (Proposition S3.2)")
REGION_PROBABILITY = widened_region_spec("U_II^+", "(S.34)", "Proposition S3.2")
CLAIMS = (PATTERN_BOX, LOSS_EXCESS_BOX, WINDOW_BOX, CAPTURE_BOX, CAPTURE_TIME_BOX, PURITY_MARGIN_BOX,
          GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def twin_plus_box_bounds(params: TwinPlusParameters, radius, prec: int) -> dict:
    """Every bound of the box of radius r > 0 at ``prec`` bits, each margin proved positive; NotCertified names the
    first that is not. The builder's radius search and the claims both call it."""
    r = fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    bounds = {"pattern": twin_plus_pattern_margins(params, r)}
    with working_precision(prec):
        bounds["loss_excess"] = loss_excess_upper(params, r)
        b_plus = ball(bounds["loss_excess"].upper())
        window = window_margin_lower(params, r, b_plus)
        if not certainly_positive(window):
            raise NotCertified(f"window_box on the box: beta(p, rho) - b is not proved positive ({window.str(5)}) at "
                               f"radius {format_rational(r)}", "window_box")
        bounds["window"] = window
        capture = capture_margins_lower(params, r, b_plus)
        require_positive_margins(capture, "capture_box", r)
        bounds["capture_box"] = capture
        bounds["capture_time"] = capture_time_upper(params, r)
        delta = purity_margin_lower(params, r)
        if not certainly_positive(delta):
            raise NotCertified(f"(S.15) on the box: delta is not proved positive ({delta.str(5)})", "purity_margin_box")
        bounds["delta"] = delta
    return bounds


def twin_plus_claims(params: TwinPlusParameters, radius, prec: int) -> list:
    """Every claim of a ``twin_plus`` certificate (docs/staircase.md, section 11.11), at ``prec`` bits."""
    require_twin_plus_hypotheses(params, prec)
    r = fmpq(radius)
    bounds = twin_plus_box_bounds(params, r, prec)
    with working_precision(prec):
        return [
            PATTERN_BOX.claim(components={name: {"lower": value} for name, value in bounds["pattern"].items()}),
            LOSS_EXCESS_BOX.claim(upper=bounds["loss_excess"]),
            WINDOW_BOX.claim(lower=bounds["window"]),
            CAPTURE_BOX.claim(components={name: {"lower": value} for name, value in bounds["capture_box"].items()}),
            CAPTURE_TIME_BOX.claim(upper=bounds["capture_time"]),
            PURITY_MARGIN_BOX.claim(lower=bounds["delta"]),
            *relabelled_box_probability_claims(GAUSSIAN_PROBABILITY, REGION_PROBABILITY, params, r, widened=True),
        ]
