"""Obligations of Proposition S3.4 on a box (docs/staircase.md, section 11.12): regime II of the (1, 2) staircase
captured onto the twin's face from above (the gate (1, 1) active, z11 > 0, comes down onto its kink with D > 0 by a
certified time) and kept there (Theorem S3), never aligned ((S.37)).

Base point (docs/staircase.md, section 11.12, 'Points of U_II^above'), with exact constants X, e, t, d, E, h > 0
and e < X:

    u = v = (X/2, s - X/2, -X/2 - t, ..., -X/2 - t),   s = (X + e)/2,   w = (E + d, E, 0, ..., 0) - mu_0 1,
    mu_0 = (2E + d)/p,

so z00 = X, z01 = z10 = s, z11 = +e > 0, the boundary gates -t, z1j = zj1 = s - X - t, zij = -X - 2t,
D = w(0) - w(1) = d > 0 and gamma_j = mu_0 (j >= 2); h is the free parameter of (S.36). The box around it: u, v,
w(0), w(1) within r, each w(j), j >= 2, within r_w = r + g (g >= 0; Remark S3.7, g = 0 the sup-norm box of radius
r). Every claim is a bound valid at every point of the box, through Remarks S3.5-S3.7 (the
hypotheses (S.36) at upper bounds of e, D0 (in the race), b0, z0, M0, N_1, X0, r0, c0, gamma_max0 and lower bounds
of m, D0 (in D_-), X0 (in kappa_-), S0, gamma_min0, gamma_2; every margin is monotone in each of them): the pattern
margins and the capture time are exact rationals; the loss excess b_+ (Remark S3.6 (ii)), the window margin, the
six margins of (S.36) and delta_- of (S.37) are Arb balls of closed forms in the exact inputs. Every function works
at the current precision and raises NotCertified (HypothesisError for the inputs) rather than return an unproved
bound.
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
from .staircase import (balance_upper, relabelled_box_probability_claims, require_base_point_in_region,
                        require_positive_margins, require_positive_pattern, widened_region_spec)
from .twin_plus import q_star

PAPER = ("Proposition S3.4 of docs/staircase.md (regime II of the (1, 2) staircase, captured from above with D > 0): "
         "region U_II^above (S.36) at Remark S3.6 (i)'s rho_+ with Remarks S3.5-S3.7, Lemmas S.9, S.11, S.17, Theorem "
         "S3, (S.37); the region bound by Lemmas S.18-S.20 and Proposition S.21 (S.40)")


@dataclass(frozen=True)
class TwinAboveParameters:
    """The prime p and the exact constants of the base point (module docstring): X, e, t, d, E, and h, the
    parameter of (S.36) (the rate the gate (1, 1) is proved to come down at)."""

    p: int
    X: fmpq
    e: fmpq
    t: fmpq
    d: fmpq
    E: fmpq
    h: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)
    #: how much farther than r the box lets each w(j), j >= 2, move: within r_w = r + g of its base value (g >= 0;
    #: Remark S3.7: their spread enters gamma, rho, S0, M0, N_1, C_+ and the loss's small terms)
    g: fmpq = fmpq(0)

    @property
    def s(self) -> fmpq:
        """(X + e)/2: the gates z01 = z10 at the base point (so z11 = 2s - X = e)."""
        return (self.X + self.e) / 2

    @property
    def mu0(self) -> fmpq:
        """(2E + d)/p: the mean of (E + d, E, 0, ..., 0), subtracted so that w has mean 0."""
        return (2 * self.E + self.d) / self.p

    @property
    def gamma0(self) -> fmpq:
        """gamma_j = mu - w(j) (j >= 2) at the base point: every one equals mu_0."""
        return self.mu0

    def base_point(self) -> BasePoint:
        return twin_above_base_point(self)


def twin_above_base_point(params: TwinAboveParameters) -> BasePoint:
    """The base point (module docstring) as exact three-level blocks."""
    X, s, t, mu0 = params.X, params.s, params.t, params.mu0
    gates = ThreeLevel(X / 2, s - X / 2, -X / 2 - t)
    return BasePoint(u=gates, v=gates, w=ThreeLevel(params.E + params.d - mu0, params.E - mu0, -mu0))


def require_twin_above_inputs(params: TwinAboveParameters) -> None:
    """Raise HypothesisError naming the broken input condition: p >= 5; X, e, t, d, E, h, sigma > 0; e < X (so that
    s = (X + e)/2 < X). Exact comparisons only."""
    if params.p < 5:
        raise HypothesisError(f"p >= 5 fails: p = {params.p} (Proposition S.6 needs F_0 = 2(1 + cos(2 pi/p))/(p - 2) "
                              "< 1, and the window beta(p, rho) needs log(p/4) > 0)")
    for name in ("X", "e", "t", "d", "E", "h"):
        if not getattr(params, name) > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(getattr(params, name))}")
    if not params.e < params.X:
        raise HypothesisError(f"e < X fails (the gate z11 = e must sit below z00 = X, and z01 = z10 = (X + e)/2 "
                              f"below X): X = {format_rational(params.X)}, e = {format_rational(params.e)}")
    require_positive_sigma(params.sigma)
    if not params.g >= 0:
        raise HypothesisError(f"g >= 0 fails: g = {format_rational(params.g)} (the w(j), j >= 2, move within r + g)")


def w_radius(params: TwinAboveParameters, radius) -> fmpq:
    """r_w = r + g: how far each w(j), j >= 2, may move on the box of radius r (every other coordinate: r)."""
    return fmpq(radius) + params.g


def gamma_spread(params: TwinAboveParameters, radius) -> fmpq:
    """(2r + 2(p - 2) r_w)/p: how far each gamma_j = mu - w(j), j >= 2, moves on the box (mu moves by at most
    (2r + (p - 2) r_w)/p, and w(j) by r_w, with the opposite weight (p - 1)/p on its own offset). It is
    2(p - 1)r/p when g = 0."""
    p, r = params.p, fmpq(radius)
    return (2 * r + 2 * (p - 2) * w_radius(params, r)) / p


def require_twin_above_hypotheses(params: TwinAboveParameters, prec: int = 64) -> None:
    """Raise HypothesisError naming the broken hypothesis: those of :func:`require_twin_above_inputs`, and the base
    point in U_II^above (the window margin and the six margins of (S.36) positive at radius 0, where the w(j),
    j >= 2, still move within g (Remark S3.7), decided with balls at
    ``prec`` bits and then at increasing precision; a point on the boundary of U_II^above is refused). The message
    names the margins that fail."""
    require_twin_above_inputs(params)
    spread = f"; at radius 0 the w(j), j >= 2, still move within g = {format_rational(params.g)}" if params.g else ""
    require_base_point_in_region(_region_margins, params, prec, "U_II^above",
                                 f"the window b0 < beta(p, rho_+) and (S.36){spread}", "11.12")


def _region_margins(params: TwinAboveParameters, radius) -> dict[str, arb]:
    """The window margin and the six margins of (S.36) on the box, by name (current precision)."""
    bounds = capture_bounds(params, radius)
    return {"window": bounds["window"], **bounds["margins"]}


def twin_above_pattern_margins(params: TwinAboveParameters, radius) -> dict[str, fmpq]:
    """Exact margins of Proposition S3.4's pattern on the box of radius r (docs/staircase.md, section 11.12, Remark
    S3.5): z00, z01, z10 >= s - 2r (s < X); z11 >= e - 2r; -(boundary gates) >= t - 2r; -(every other gate) >=
    X + t - s - 2r (z1j = zj1 = s - X - t, zij = -X - 2t at the base point); gamma_j >= mu_0 - (2r + 2(p - 2) r_w)/p;
    D >= d - 2r; and z00 - z11 >= X - e - 4r, which makes the relabelled copies of the box disjoint
    (:func:`twin_above_copies`). NotCertified names a failure."""
    r = fmpq(radius)
    if not r >= 0:
        raise NotCertified(f"the radius must not be negative, got {format_rational(r)}")
    X, s, t = params.X, params.s, params.t
    margins = {
        "active_gates": s - 2 * r,
        "gate_11": params.e - 2 * r,
        "boundary_gates": t - 2 * r,
        "other_gates": X + t - s - 2 * r,
        "gamma_min": params.mu0 - gamma_spread(params, r),
        "positive_difference": params.d - 2 * r,
        "gate_order": X - params.e - 4 * r,
    }
    names = {"active_gates": "the gates (0, 0), (0, 1), (1, 0) > 0", "gate_11": "the gate (1, 1) > 0",
             "boundary_gates": "the boundary gates (0, j), (j, 0) < 0", "other_gates": "every other gate < 0",
             "gamma_min": "gamma_j > 0", "positive_difference": "D = w(0) - w(1) > 0",
             "gate_order": "z00 > z11 (the relabelled copies disjoint)"}
    return require_positive_pattern(margins, names, "U_II^above", r)


def twin_above_copies(p: int) -> int:
    """p^2 (p - 1): the affine relabellings (r0, c0, step != 0) of docs/staircase.md, section 1.1. Their images of
    the box are disjoint (section 11.12): each image's active set is the 2 x 2 block {r0, r0 + step} x {c0, c0 +
    step}, which exactly two relabellings share, (r0, c0, step) and (r0 + step, c0 + step, -step); the second
    exchanges the gates z00 and z11, and on the box z00 > z11 (the ``gate_order`` margin of
    :func:`twin_above_pattern_margins`), so the two images are apart."""
    return p * p * (p - 1)


def loss_excess_upper(params: TwinAboveParameters, radius) -> arb:
    """A ball whose upper end bounds b0 = Lambda_4 - 3 log 2, Lambda_4 = ell_0(z00) + ell_1(z01) + ell_1(z10) +
    ell_2(z11) - log p, at every point of the box: Remark S3.6 (ii) (docs/staircase.md, section 11.12), the largest
    of the convex F(a, b) at the four corners a, b = +-r of the offsets of w(0) and w(1),

        F(a, b) = ell_0+(X - 2r) + 2 max(ell_1+(s - 2r), ell_1+(s + 2r)) + ell_2+(e + 2r) - log p - 3 log 2,
        ell_0+(z) = log(1 + e^{-z D} + (p - 2) e^{-z (E + d - r_w + a)}),   D = d + a - b,
        ell_1+(z) = log(1 + e^{z D} + (p - 2) e^{-z (E - r_w + b)}),
        ell_2+(z) = log(e^{z (E + d + a + r_w)} + e^{z (E + b + r_w)} + 1 + (p - 3) e^{2 r_w z}),

    r_w = r + g the w(j)'s radius (:func:`w_radius`). The larger of two balls is taken with Arb's max, which keeps
    the ball thin (see :func:`certify.kernel.staircase.loss_upper`). NotCertified unless d, s and e > 2r and
    E > r + r_w (then D > 0 at every corner, ell_0+ decreases in z, and every gate of the box is positive)."""
    p, r = params.p, fmpq(radius)
    X, e, s, d, E = params.X, params.e, params.s, params.d, params.E
    rw = w_radius(params, r)
    if not (d > 2 * r and E > r + rw and s > 2 * r and e > 2 * r):
        raise NotCertified(f"the bound of Lambda_4 needs d, s and e > 2r and E > r + r_w, at radius "
                           f"{format_rational(r)}", "loss_excess_box")

    def log_sum(z: fmpq, terms) -> arb:  # log(sum count e^{z exponent}) over exact (exponent, count)
        return sum((count * (ball(z) * ball(exponent)).exp() for exponent, count in terms), arb(0)).log()

    corners = []
    for a in (-r, r):
        for b in (-r, r):
            D = d + a - b
            ell_0 = log_sum(X - 2 * r, ((0, 1), (-D, 1), (-(E + d - rw + a), p - 2)))
            ends = [log_sum(z, ((0, 1), (D, 1), (-(E - rw + b), p - 2))) for z in (s - 2 * r, s + 2 * r)]
            ell_2 = log_sum(e + 2 * r, ((E + d + a + rw, 1), (E + b + rw, 1), (0, 1), (2 * rw, p - 3)))
            corners.append(ell_0 + 2 * ends[0].max(ends[1]) + ell_2)
    return reduce(arb.max, corners) - ball(p).log() - 3 * ball(2).log()


def box_bounds(params: TwinAboveParameters, radius) -> dict[str, fmpq]:
    """The exact bounds of Remark S3.5 on the box of radius r (docs/staircase.md, section 11.12): e_+ = e + 2r (of
    e = z11), D_-0 = d - 2r and D_+0 = d + 2r (of D0), X_-0 = X - 2r and X_+0 = X + 2r (of X0 = z00), z_+0 = s + 2r (of
    z01, z10 and their maximum z0), M_+0 = E + d + r + r_w (of M0 = W0 - w_min), N_+0 = E + r + r_w (of N_1 =
    W1 - w_min), m_- = min(s, t) - 2r (of m), S_-0 = (p - 2)(mu_0 - 2(r + r_w)/p) (of S0), g_-0 = mu_0 - (2r +
    2(p - 2) r_w)/p (of gamma_min0 and gamma_2) and g_+0 = mu_0 + (2r + 2(p - 2) r_w)/p (of gamma_max0): u, v, w(0)
    and w(1) move by at most r and each w(j), j >= 2, by at most r_w = r + g (:func:`w_radius`), so a gate or
    w(0) - w(1) by at most 2r, W0 - w_min and W1 - w_min by at most r + r_w, each gamma_j by at most (2r + 2(p - 2)
    r_w)/p (:func:`gamma_spread`), and S0 = ((p - 2)(w(0) + w(1)) - 2 sum_{j >= 2} w(j))/p by at most 2(p - 2)(r +
    r_w)/p. (With g = 0 these are the sup-norm box's bounds.)"""
    p, r = params.p, fmpq(radius)
    rw, spread = w_radius(params, r), gamma_spread(params, r)
    return {"e_plus": params.e + 2 * r, "D0_minus": params.d - 2 * r, "D0_plus": params.d + 2 * r,
            "X0_minus": params.X - 2 * r, "X0_plus": params.X + 2 * r, "z0_plus": params.s + 2 * r,
            "M0_plus": params.E + params.d + r + rw, "N0_plus": params.E + r + rw,
            "m_minus": min(params.s, params.t) - 2 * r, "S0_minus": (p - 2) * (params.mu0 - 2 * (r + rw) / p),
            "g0_minus": params.mu0 - spread, "g0_plus": params.mu0 + spread}


def capture_bounds(params: TwinAboveParameters, radius, b_plus: arb | None = None) -> dict:
    """Balls whose lower ends bound the margins of (S.36) at every point of the box, through Remarks S3.5 and S3.6
    (docs/staircase.md, section 11.12), with the bounds of :func:`box_bounds` and b_+ (the upper end of
    :func:`loss_excess_upper`):

        eps = e_+^2/h,  delta_c = sqrt(2 b_+ e_+/h),  g_- = g_-0 - eps,  S_- = S_-0 - eps,
        eta = ((X_+0 + delta_c) b_+ + e_+) e_+/h,  rho_+ = (g_+0 + min(delta_c, eta))/g_-,
        s2_+ = (X_+0 + delta_c)^2 + 2 (z_+0 + delta_c)^2 + e_+^2,  D_- = D_-0 e^{-s2_+ e_+/h} - eps,
        z_+ = z_+0 + delta_c,  M_+ = M_+0 + delta_c,  X_- = X_-0 - delta_c,  kappa_- = (3/4) q_*(b_+) X_-^2;

    the dict has ``margins``: ``reach`` m_- - delta_c, ``gamma_floor`` g_-, ``rate`` 2 (g_-0 - eps) - b_+ (N_+0 +
    delta_c) - h, ``difference_floor`` D_-, ``cone`` kappa_- - 2 b_+, ``race`` log S_- - z_+ M_+ - (z_+ + M_+)^2
    b_+/(2 (kappa_- - 2 b_+)) - log D_+0; ``window`` beta(p, rho_+) - b_+, beta(p, rho) = min(log(p/4), 2/((p - 1)
    rho)); and ``rho_plus``, ``S_minus``, ``g_minus``, for (S.37). (Remark S3.6 (i): Z_+ = max(X0, z0) + delta_c
    <= X_+0 + delta_c, as z0 <= s + 2r < X + 2r.) NotCertified unless 0 < b_+ < 1 (b0 > 0 always, and q_* is
    defined and decreasing on [0, 1)), g_- > 0, S_- > 0, X_- > 0 and the cone margin are proved (rho_+, the race's
    logarithm and its division need them). ``b_plus``: the upper end of :func:`loss_excess_upper`, when the caller
    has it."""
    p, r = params.p, fmpq(radius)
    b_plus = ball(loss_excess_upper(params, r).upper()) if b_plus is None else b_plus
    if not (certainly_positive(b_plus) and certainly_lt(b_plus, arb(1))):
        raise NotCertified(f"q_* needs 0 < b < 1; on the box of radius {format_rational(r)} b is up to "
                           f"{b_plus.str(5)}", "capture_box")
    q = {name: ball(value) for name, value in box_bounds(params, r).items()}
    e_plus, h = q["e_plus"], ball(params.h)
    eps = e_plus * e_plus / h
    delta_c = (2 * b_plus * e_plus / h).sqrt()
    g_minus, S_minus, X_minus = q["g0_minus"] - eps, q["S0_minus"] - eps, q["X0_minus"] - delta_c
    for name, value in (("g_- = g_-0 - e_+^2/h", g_minus), ("S_- = S_-0 - e_+^2/h", S_minus),
                        ("X_- = X - 2r - delta_c", X_minus)):
        if not certainly_positive(value):
            raise NotCertified(f"(S.36): {name} is not proved positive on the box of radius {format_rational(r)} "
                               f"({value.str(5)})", "capture_box")
    eta = ((q["X0_plus"] + delta_c) * b_plus + e_plus) * e_plus / h
    rho_plus = (q["g0_plus"] + delta_c.min(eta)) / g_minus
    s2_plus = ((q["X0_plus"] + delta_c) ** 2 + 2 * (q["z0_plus"] + delta_c) ** 2 + e_plus * e_plus)
    D_minus = q["D0_minus"] * (-s2_plus * e_plus / h).exp() - eps
    z_plus, M_plus = q["z0_plus"] + delta_c, q["M0_plus"] + delta_c
    cone = 3 * q_star(b_plus) * X_minus * X_minus / 4 - 2 * b_plus
    if not certainly_positive(cone):
        raise NotCertified(f"(S.36): kappa_- - 2 b_+ is not proved positive on the box of radius "
                           f"{format_rational(r)} ({cone.str(5)})", "capture_box")
    race = (S_minus.log() - z_plus * M_plus - (z_plus + M_plus) * (z_plus + M_plus) * b_plus / (2 * cone)
            - q["D0_plus"].log())
    beta = (ball(p) / 4).log().min(2 / ((p - 1) * rho_plus))
    return {"margins": {"reach": q["m_minus"] - delta_c, "gamma_floor": g_minus,
                        "rate": 2 * (q["g0_minus"] - eps) - b_plus * (q["N0_plus"] + delta_c) - h,
                        "difference_floor": D_minus, "cone": cone, "race": race},
            "window": beta - b_plus, "rho_plus": rho_plus, "S_minus": S_minus, "g_minus": g_minus}


def capture_time_upper(params: TwinAboveParameters, radius) -> fmpq:
    """t_c = p^2 e_+/h, e_+ = e + 2r, exactly: from every point of the box the gate (1, 1) reaches its kink, with
    D >= D_- > 0, before this time (Proposition S3.4 with Remark S3.5: z11(t) < e_+ - h t/p^2 while it is > 0)."""
    return params.p**2 * (params.e + 2 * fmpq(radius)) / params.h


def purity_margin_lower(params: TwinAboveParameters, radius, bounds: dict) -> arb:
    """A ball whose every point is <= delta_- of (S.37) at every point of the box (docs/staircase.md, section 11.12):
    delta_- = (1 - (sqrt(F_0) + rho_+ - 1)^2) L_-/(2 L_- + C_+), L_- = S_-^2/2 + (p - 2) g_-^2, F_0 = 2(1 + cos(2
    pi/p))/(p - 2) (S.12), with rho_+, S_-, g_- of :func:`capture_bounds` (``bounds``) and C_+ <=
    :func:`certify.kernel.staircase.balance_upper` with the w(j)'s move r + g; delta_- decreases in rho_+ and C_+
    and increases in L_- (Remark
    S3.5). NotCertified unless sqrt(F_0) + rho_+ - 1 < 1 is proved. Current precision."""
    p = params.p
    F0 = 2 * (1 + (2 * arb.pi() / p).cos()) / (p - 2)
    spread = F0.sqrt() + bounds["rho_plus"] - 1
    if not certainly_lt(spread, arb(1)):
        raise NotCertified(f"(S.37) needs sqrt(F_0) + rho_+ - 1 < 1; on the box it is up to {spread.str(5)}",
                           "purity_margin_box")
    S_minus, g_minus = bounds["S_minus"], bounds["g_minus"]
    L_minus = S_minus * S_minus / 2 + (p - 2) * g_minus * g_minus
    return (1 - spread * spread) * L_minus / (2 * L_minus + ball(balance_upper(params, radius, params.g)))


#: The box of a ``twin_above`` certificate, in the words of the box claims: u, v, w(0), w(1) within r, and the
#: w(j), j >= 2, within r_w = r + g (Remark S3.7; g = 0 is the sup-norm box).
BOX = ("for every point of the box (u, v, w(0), w(1) within r of the base point, each w(j), j >= 2, within r_w = "
       "r + g)")

#: The claims of a ``twin_above`` certificate, in schema order: what each states (certify.kernel.claims).
PATTERN_BOX = ClaimSpec(
    "pattern_box", "box", BOX,
    components=(Component("active_gates", "the gates z00, z01, z10", POSITIVE_LOWER),
                Component("gate_11", "the gate z11", POSITIVE_LOWER),
                Component("boundary_gates", "-(every boundary gate z0j, zj0, j >= 2)", POSITIVE_LOWER),
                Component("other_gates", "-(every other gate)", POSITIVE_LOWER),
                Component("gamma_min", "gamma_j = mu - w(j) (every j >= 2)", POSITIVE_LOWER),
                Component("positive_difference", "D = w(0) - w(1)", POSITIVE_LOWER),
                Component("gate_order", "z00 - z11", POSITIVE_LOWER)),
    note="so the box lies in the pattern of Proposition S3.4: the four gates z00, z01, z10, z11 strictly active, "
         "the boundary gates and every other gate strictly inactive, D > 0, and z00 > z11 (its p^2 (p - 1) "
         "relabelled copies are disjoint)", source="Proposition S3.4, section 11.12")
LOSS_EXCESS_BOX = ClaimSpec(
    "loss_excess_box", "box",
    f"{BOX}, b0 = Lambda_4 - 3 log 2, Lambda_4 = ell_0(z00) + ell_1(z01) + ell_1(z10) + "
    "ell_2(z11) - log p,", UPPER,
    note="this end is at least b_+ = max over a, b in {-r, r} of ell_0+(X - 2r) + 2 max(ell_1+(s - 2r), "
         "ell_1+(s + 2r)) + ell_2+(e + 2r) - log p - 3 log 2 with D = d + a - b, ell_0+(z) = log(1 + e^{-z D} + "
         "(p - 2) e^{-z (E + d - r_w + a)}), ell_1+(z) = log(1 + e^{z D} + (p - 2) e^{-z (E - r_w + b)}) and ell_2+(z) "
         "= log(e^{z (E + d + a + r_w)} + e^{z (E + b + r_w)} + 1 + (p - 3) e^{2 r_w z}), s = (X + e)/2, the upper "
         "bound of b0 that window_box and capture_box use (not this end)",
    source="Remarks S3.6 (ii), S3.7, section 11.12")
WINDOW_BOX = ClaimSpec(
    "window_box", "box",
    f"{BOX}, with b0 = Lambda_4 - 3 log 2, beta(p, rho) = min(log(p/4), 2/((p - 1) rho)) and "
    "Remark S3.6 (i)'s rho_+ = (g_+0 + min(delta_c, eta))/g_-, eta = ((X_+0 + delta_c) b_+ + e_+) e_+/h (with "
    "capture_box's bounds), beta(p, rho_+) - b0", POSITIVE_LOWER,
    note="so b0 < beta(p, rho_+): (S.36)'s window at Remark S3.6 (i)'s rho_+",
    source="Proposition S3.4, Remark S3.6, section 11.12")
CAPTURE_BOX = ClaimSpec(
    "capture_box", "box",
    "on the box, with Remarks S3.5, S3.7's bounds (e_+ = e + 2r, D_-+0 = d -+ 2r, X_-+0 = X -+ 2r, z_+0 = "
    "s + 2r, M_+0 = E + d + r + r_w, N_+0 = E + r + r_w, m_- = min(s, t) - 2r, r_w = r + g, S_-0 = (p - 2)(mu_0 - 2(r + r_w)/p), g_-+0 = mu_0 -+ (2r + "
    "2(p - 2) r_w)/p), b_+ of loss_excess_box, eps = e_+^2/h, delta_c = sqrt(2 b_+ e_+/h), g_- = "
    "g_-0 - eps, S_- = S_-0 - eps, s2_+ = (X_+0 + delta_c)^2 + 2 (z_+0 + delta_c)^2 + e_+^2, z_+ = z_+0 + delta_c, "
    "M_+ = M_+0 + delta_c, X_- = X_-0 - delta_c, kappa_- = (3/4) q_*(b_+) X_-^2",
    components=(Component("reach", "m_- - delta_c", POSITIVE_LOWER),
                Component("gamma_floor", "g_-", POSITIVE_LOWER),
                Component("rate", "2 (g_-0 - eps) - b_+ (N_+0 + delta_c) - h", POSITIVE_LOWER),
                Component("difference_floor", "D_- = D_-0 e^{-s2_+ e_+/h} - eps", POSITIVE_LOWER),
                Component("cone", "kappa_- - 2 b_+", POSITIVE_LOWER),
                Component("race", "log S_- - z_+ M_+ - (z_+ + M_+)^2 b_+/(2 (kappa_- - 2 b_+)) - log D_+0",
                          POSITIVE_LOWER)),
    note="with pattern_box and window_box, the box lies in U_II^above (Proposition S3.4)",
    source="Remarks S3.5-S3.7")
CAPTURE_TIME_BOX = ClaimSpec(
    "capture_time_box", "box", f"{BOX}, the capture time t_c = p^2 (e + 2r)/h", UPPER,
    note="the gate (1, 1) reaches its kink from above, with D > 0, before the time t_c along the trajectory from "
         "every point of the box", source="Proposition S3.4, Remark S3.5")
PURITY_MARGIN_BOX = ClaimSpec(
    "purity_margin_box", "box",
    "along every trajectory from the box and for all t >= 0, 1 - max_zeta F_zeta(theta(t))", POSITIVE_LOWER,
    note="the trajectory never aligns to one Fourier class; this end is at most delta_- of (S.37) at window_box's "
         "rho_+ and capture_box's S_-, g_-", source="Proposition S3.4, (S.37), Remark S3.6 (i)")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("lies in U_II^above ((S.36) at Remark S3.6 (i)'s rho_+; Proposition "
                                                 "S3.4); the bound is the mass of the sup-norm box of radius r inside "
                                                 "the box")
REGION_PROBABILITY = widened_region_spec("U_II^above", "(S.36) at Remark S3.6 (i)'s rho_+", "Proposition S3.4",
                                         "z00 > z11", "the box, each w(j), j >= 2, within r + g,")
CLAIMS = (PATTERN_BOX, LOSS_EXCESS_BOX, WINDOW_BOX, CAPTURE_BOX, CAPTURE_TIME_BOX, PURITY_MARGIN_BOX,
          GAUSSIAN_PROBABILITY, REGION_PROBABILITY)


def twin_above_box_bounds(params: TwinAboveParameters, radius, prec: int) -> dict:
    """Every bound of the box of radius r > 0 at ``prec`` bits, each margin proved positive; NotCertified names the
    first that is not. The builder's radius search and the claims both call it."""
    r = fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    bounds = {"pattern": twin_above_pattern_margins(params, r)}
    with working_precision(prec):
        bounds["loss_excess"] = loss_excess_upper(params, r)
        capture = capture_bounds(params, r, ball(bounds["loss_excess"].upper()))
        if not certainly_positive(capture["window"]):
            raise NotCertified(f"window_box on the box: beta(p, rho_+) - b0 is not proved positive "
                               f"({capture['window'].str(5)}) at radius {format_rational(r)}", "window_box")
        require_positive_margins(capture["margins"], "capture_box", r)
        bounds["window"], bounds["capture_box"] = capture["window"], capture["margins"]
        bounds["capture_time"] = capture_time_upper(params, r)
        delta = purity_margin_lower(params, r, capture)
        if not certainly_positive(delta):
            raise NotCertified(f"(S.37) on the box: delta_- is not proved positive ({delta.str(5)})",
                               "purity_margin_box")
        bounds["delta"] = delta
    return bounds


def twin_above_claims(params: TwinAboveParameters, radius, prec: int) -> list:
    """Every claim of a ``twin_above`` certificate (docs/staircase.md, section 11.12), at ``prec`` bits."""
    require_twin_above_hypotheses(params, prec)
    r = fmpq(radius)
    bounds = twin_above_box_bounds(params, r, prec)
    with working_precision(prec):
        return [
            PATTERN_BOX.claim(components={name: {"lower": value} for name, value in bounds["pattern"].items()}),
            LOSS_EXCESS_BOX.claim(upper=bounds["loss_excess"]),
            WINDOW_BOX.claim(lower=bounds["window"]),
            CAPTURE_BOX.claim(components={name: {"lower": value} for name, value in bounds["capture_box"].items()}),
            CAPTURE_TIME_BOX.claim(upper=bounds["capture_time"]),
            PURITY_MARGIN_BOX.claim(lower=bounds["delta"]),
            *relabelled_box_probability_claims(GAUSSIAN_PROBABILITY, REGION_PROBABILITY, params, r,
                                               twin_above_copies, widened=True, w_extra=params.g),
        ]
