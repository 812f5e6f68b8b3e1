"""Obligations of Theorem S (docs/staircase.md, sections 3-4): the (1, 2) staircase persists, never aligned; and
of Theorem S1 (section 10): the one-gate staircase, by the same loss argument (the ``memorise`` record, at the end
of this module; it shares the box bounds of gamma, rho and C_+).

Base point (a variant of docs/staircase.md, section 3.8: centred w, boundary gates at -s), with exact
constants X, s, D, E > 0:

    u = v = (X/2, s - X/2, -X/2 - s, ..., -X/2 - s),
    w = (E + D, E, 0, ..., 0) - mu_0 1,   mu_0 = (2E + D)/p,

so the gates are z00 = X (label 0), z01 = z10 = s (label 1), z11 = 2s - X, the boundary gates z0j = zj0 = -s,
z1j = zj1 = -X and zij = -X - 2s (i, j >= 2); mean(w) = 0, D = w(0) - w(1) and gamma_j = mu - w(j) = mu_0.

The box is the sup-norm box of radius r around it. Every claim is a bound valid at every point of the box:
the pattern margins are exact rationals; the loss margin of (S.10) and the purity margin delta of (S.15) are
Arb balls evaluated on interval balls that contain the box's values. Every function takes its precision and
raises NotCertified (or HypothesisError for the inputs) rather than return an unproved bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from flint import arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, working_precision
from .basepoint import BasePoint, ThreeLevel, TwoLevel
from .claims import POSITIVE_LOWER, PROBABILITY_LOWER, Claim, ClaimSpec, Component
from .exact import format_rational
from .gaussian import (NORMAL_LAW, box_log_mass, gaussian_probability_claim, gaussian_probability_spec,
                       product_log_mass, region_probability_claim, region_probability_spec, require_positive_sigma,
                       translates_log_factor)
from .region import REGION_PRECISION, stated_log_lower
from .region_memorise import memorise_whole_region_log_lower
from .region_stair import GRIDS as STAIR_WHOLE_REGION_GRIDS
from .region_stair import stair_whole_region_log_lower

PAPER = ("Theorem S of docs/staircase.md (the (1, 2) staircase): region S_stair (S.10), Lemmas S.1-S.5, "
         "Proposition S.6 (S.11)-(S.15); the region bound by Lemmas S.18-S.20 and Proposition S.21 (S.40); the "
         "whole-region bound by Lemmas S.22-S.24, S.26 and Proposition S.25 (S.45)")

#: The staircase sizes k with a persistence theorem (docs/staircase.md, section 7): k = 2 only.
PROVED_K = (2,)

#: Precisions tried, in turn, to decide that the base point lies in S_stair ((S.10) has logarithms).
_DECISION_PRECISIONS = (64, 256, 1024)


@dataclass(frozen=True)
class StaircaseParameters:
    """The prime p, the staircase size k (2) and the exact constants X, s, D, E of the base point."""

    p: int
    k: fmpq
    X: fmpq
    s: fmpq
    D: fmpq
    E: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def mu0(self) -> fmpq:
        """(2E + D)/p: the mean of (E + D, E, 0, ..., 0), subtracted so that w has mean 0."""
        return (2 * self.E + self.D) / self.p

    @property
    def gamma0(self) -> fmpq:
        """gamma_j = mu - w(j) (j >= 2) at the base point: every one equals mu_0."""
        return self.mu0

    def base_point(self) -> BasePoint:
        return staircase_base_point(self)


def require_staircase_hypotheses(params: StaircaseParameters, prec: int = 64) -> None:
    """Raise HypothesisError naming the broken hypothesis: p >= 5, k = 2, X, s, D, E, sigma > 0, X > 2s (the gate (1, 1)
    inactive), and the base point in S_stair ((S.10): Lambda < 2 log 2 + 2/(p - 1), rho = 1 there).

    (S.10) is decided with balls at ``prec`` bits and then at increasing precision; a base point on its
    boundary is refused (Lambda is transcendental in the rational inputs, so some precision decides any
    other point).
    """
    if params.p < 5:
        raise HypothesisError(f"p >= 5 fails: p = {params.p} (Proposition S.6 needs F_0 = 2(1 + cos(2 pi/p))/(p - 2) < 1)")
    if params.k not in PROVED_K:
        raise HypothesisError(f"k = {format_rational(params.k)} is not Theorem S's: Theorem S is the (1, 2) "
                              "staircase, k = 2; k = 1 is Theorem S1 (a memorise certificate: certify memorise, or "
                              "certify staircase --k 1); k >= 3 is open (docs/staircase.md, section 7)")
    for name in ("X", "s", "D", "E"):
        if not getattr(params, name) > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(getattr(params, name))}")
    require_positive_sigma(params.sigma)
    if not params.X > 2 * params.s:
        raise HypothesisError(f"X > 2s fails (the gate (1, 1) = 2s - X must be inactive): "
                              f"X = {format_rational(params.X)}, s = {format_rational(params.s)}")
    margin = base_point_margin(loss_margin_lower, params, prec)
    if margin is not None:
        raise HypothesisError(f"(S.10) fails at the base point: 2 log 2 + 2/(p - 1) - Lambda = {margin.str(5)} is not "
                              "positive (raise X D, E s or lower s D: docs/staircase.md, section 3.8)")


def base_point_margin(margin_lower, params, prec: int):
    """None if ``margin_lower(params, 0)`` (a region's margin at the base point, a ball) is proved positive at
    ``prec`` bits or at one of the higher precisions tried in turn; else the margin at 64 bits, for the error
    message. A margin proved negative stops the search; one never decided is refused too (a point on the
    boundary of the region)."""
    for bits in (prec,) + _DECISION_PRECISIONS:
        with working_precision(bits):
            margin = margin_lower(params, fmpq(0))
            if certainly_positive(margin):
                return None
            if certainly_lt(margin, arb(0)):
                break
    with working_precision(64):
        return margin_lower(params, fmpq(0))


def require_base_point_in_region(region_margins, params, prec: int, region: str, conditions: str,
                                 section: str) -> None:
    """Raise HypothesisError unless every margin of ``region_margins(params, 0)`` (a dict name -> ball: a capture
    region's margins at the base point) is proved positive, decided by :func:`base_point_margin` (``prec`` bits,
    then higher precisions; a point on the region's boundary is refused). The message names the region, its
    ``conditions``, the least margin and those not proved positive at 64 bits, and cites docs/staircase.md,
    ``section``. A bound the margins need that fails at the base point (NotCertified) is named too."""
    def least(params, radius):
        return reduce(arb.min, region_margins(params, radius).values())

    try:
        margin = base_point_margin(least, params, prec)
    except NotCertified as error:
        raise HypothesisError(f"the base point is not in {region}: {error} (docs/staircase.md, section {section})") \
            from None
    if margin is None:
        return
    try:
        with working_precision(64):
            margins = region_margins(params, 0)
        failing = "; ".join(f"{name} {value.str(3)}" for name, value in margins.items()
                            if not certainly_positive(value)) or "not decided at 64 bits"
    except NotCertified as error:
        failing = str(error)
    raise HypothesisError(f"the base point is not in {region} ({conditions}): its least margin is {margin.str(5)}, "
                          f"not positive ({failing}; docs/staircase.md, section {section})")


def require_positive_pattern(margins: dict, names: dict, region: str, radius) -> dict:
    """``margins`` (name -> exact rational), once each is proved positive; else NotCertified naming the first that is
    not (by its words in ``names``), as a failure of pattern_box for the box of radius ``radius`` inside ``region``."""
    for name, value in margins.items():
        if not value > 0:
            raise NotCertified(f"box inside {region}: {names[name]} fails by {format_rational(-value)} "
                               f"at radius {format_rational(fmpq(radius))}", "pattern_box")
    return margins


def require_positive_margins(margins: dict, claim_id: str, radius) -> None:
    """NotCertified naming the first of ``margins`` (name -> ball) whose lower end is not proved positive, as a
    failure of claim ``claim_id`` on the box of radius ``radius``."""
    for name, margin in margins.items():
        if not certainly_positive(margin):
            raise NotCertified(f"{claim_id} on the box: {name} is not proved positive ({margin.str(5)}) at "
                               f"radius {format_rational(fmpq(radius))}", claim_id)


def staircase_base_point(params: StaircaseParameters) -> BasePoint:
    """The base point (module docstring) as exact three-level blocks."""
    X, s, mu0 = params.X, params.s, params.mu0
    gates = ThreeLevel(X / 2, s - X / 2, -X / 2 - s)
    return BasePoint(u=gates, v=gates, w=ThreeLevel(params.E + params.D - mu0, params.E - mu0, -mu0))


def pattern_margins(params: StaircaseParameters, radius) -> dict[str, fmpq]:
    """Exact margins of the pattern (P1)-(P2) of Theorem S, strict as U_stair asks, on the box of radius r.

    A gate u(a) + v(b) moves by at most 2r on the box, and gamma_j = (1/p) sum_{c != j} w(c) - ((p-1)/p) w(j)
    by at most 2(p-1)r/p. At the base point the three gates are X, s, s; z11 = 2s - X; the boundary gates
    z0j = zj0 = -s; every other gate is -X or -X - 2s; gamma_j = mu_0. NotCertified names a failure.
    """
    p, r = params.p, fmpq(radius)
    if not r >= 0:
        raise NotCertified(f"the radius must not be negative, got {format_rational(r)}")
    X, s = params.X, params.s
    margins = {
        "active_gates": min(X, s) - 2 * r,
        "gate_11": X - 2 * s - 2 * r,
        "boundary_gates": s - 2 * r,
        "other_gates": X - 2 * r,
        "gamma_min": gamma_lower(params, r),
    }
    names = {"active_gates": "the gates (0, 0), (0, 1), (1, 0) > 0", "gate_11": "the gate (1, 1) < 0",
             "boundary_gates": "the boundary gates (0, j), (j, 0) < 0", "other_gates": "every other gate < 0",
             "gamma_min": "gamma_j > 0"}
    return require_positive_pattern(margins, names, "U_stair", r)


def gamma_lower(params, radius) -> fmpq:
    """mu_0 - 2(p-1)r/p: every gamma_j = (1/p) sum_{c != j} w(c) - ((p-1)/p) w(j) of a low label (j >= 2; j >= 1
    for Theorem S1) is at least this on the box of radius r (each w(c) moves by at most r), exactly."""
    return params.gamma0 - fmpq(2 * (params.p - 1), params.p) * fmpq(radius)


def rho_upper(params, radius) -> fmpq:
    """An exact upper bound of rho = gamma_max/gamma_min over the low labels (j >= 2; j >= 1 for Theorem S1) on
    the box: 1 + 2r/(mu_0 - 2(p-1)r/p).

    gamma_a - gamma_b = w(b) - w(a), and every low w(j) lies in [-mu_0 - r, -mu_0 + r]; gamma_min is at least
    mu_0 - 2(p-1)r/p (:func:`gamma_lower`). Needs that lower bound positive.
    """
    r, g = fmpq(radius), gamma_lower(params, radius)
    if not g > 0:
        raise NotCertified("gamma_min is not bounded away from 0 on the box", "pattern_box")
    return 1 + 2 * r / g


def loss_upper(params: StaircaseParameters, radius) -> arb:
    """A ball whose upper end bounds Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10) (Theorem S) at every point of
    the box (docs/staircase.md, section 9.2). Current precision; NotCertified unless D, E > 2r and s > 2r.

    ell_y(z) = log sum_c e^{z (w(c) - w(y))} (A.2). On the box each difference w(c) - w(y) is at most its base
    value + 2r: for y = 0, 0 (c = 0), -D + 2r (c = 1), -(E + D) + 2r (c >= 2); for y = 1, D + 2r (c = 0), 0
    (c = 1), -E + 2r (c >= 2). For z > 0 (the pattern's margin gives z01, z10 >= s - 2r > 0) ell_y increases in
    each difference (its partial derivative is z q_c >= 0), so ell_y(z) <= ell_y+(z), the same log-sum-exp at
    those upper differences. ell_0+ has only nonpositive exponent coefficients (D > 2r), so it decreases in z,
    and z00 >= X - 2r. ell_1+ is convex in z (a log-sum-exp of linear functions), so on [s - 2r, s + 2r] it is
    at most the larger of its two end values. Hence Lambda <= ell_0+(X - 2r) + 2 max(ell_1+(s - 2r),
    ell_1+(s + 2r)); the larger of the two end values is taken with Arb's max (a ball containing the maximum of
    every pair of points of the two balls), which keeps the ball thin: a union of the two would be as wide as
    their difference, and its ends known only to Arb's 30-bit radius, so that the ends written from it at one
    precision could lie above the ends the checker recomputes at another (found at p = 10007).
    """
    p, r = params.p, fmpq(radius)
    X, s, D, E = params.X, params.s, params.D, params.E
    if not (D > 2 * r and E > 2 * r and s > 2 * r):
        raise NotCertified(f"(S.10) on the box: the bound of Lambda needs D, E and s > 2r, at radius "
                           f"{format_rational(r)}", "loss_margin_box")

    def log_sum(z: fmpq, upper_differences) -> arb:
        return sum((count * (ball(z) * ball(d)).exp() for d, count in upper_differences), arb(1)).log()

    ell_0 = log_sum(X - 2 * r, ((-D + 2 * r, 1), (-(E + D) + 2 * r, p - 2)))
    ends = [log_sum(z, ((D + 2 * r, 1), (-E + 2 * r, p - 2))) for z in (s - 2 * r, s + 2 * r)]
    return ell_0 + 2 * ends[0].max(ends[1])


def loss_margin_lower(params: StaircaseParameters, radius) -> arb:
    """A ball whose lower end is <= 2 log 2 + 2/((p - 1) rho) - Lambda at every point of the box ((S.10)).

    Lambda is at most the upper end of :func:`loss_upper`, and rho <= :func:`rho_upper`, so 2/((p-1) rho) is at
    least 2/((p-1) rho_upper). Current precision.
    """
    p = params.p
    threshold = 2 * ball(2).log() + ball(fmpq(2, p - 1) / rho_upper(params, radius))
    return threshold - loss_upper(params, radius)


def balance_upper(params, radius, w_extra=0) -> fmpq:
    """An exact upper bound of C_+ = max(0, p mu^2 + ||u||^2 + ||v||^2 - ||w||^2) ((S.11)) on the box.

    Each coordinate moves by at most r, except the w(j) of the ``elsewhere`` level, which move by r + ``w_extra``
    (twin_above's g, docs/staircase.md Remark S3.7): |u(a)| <= |base| + r, |w(c)| >= max(|base| - its move, 0), and
    |mu| <= the mean of the w's moves (the base point's w has mean 0; it is r when w_extra = 0).
    """
    p, r = params.p, fmpq(radius)
    base = _base_point(params)
    gates = sum(count * (abs(level) + r) ** 2
                for block in (base.u, base.v) for level, count in block.levels_with_counts(p))
    w_levels = base.w.levels_with_counts(p)
    moves = [r] * (len(w_levels) - 1) + [r + fmpq(w_extra)]  # the elsewhere level is the last
    w_least = sum(count * max(abs(level) - move, fmpq(0)) ** 2 for (level, count), move in zip(w_levels, moves))
    mu = sum(count * move for (_, count), move in zip(w_levels, moves)) / p
    return max(fmpq(0), p * mu**2 + gates - w_least)


def purity_margin_lower(params: StaircaseParameters, radius) -> arb:
    """A ball whose every point is <= delta of (S.15) at every point of the box (Proposition S.6).

    delta = (1 - (sqrt(F_0) + rho_0 - 1)^2) L_0/(2 L_0 + C_+), F_0 = 2(1 + cos(2 pi/p))/(p - 2) (S.12). It
    decreases in rho_0 (for sqrt(F_0) + rho_0 - 1 < 1) and in C_+, and increases in L_0 = S^2/2 + sum gamma_j^2,
    S = sum_{j >= 2} gamma_j; so rho_0 <= :func:`rho_upper`, C_+ <= :func:`balance_upper` and
    L_0 >= (p-2)^2 g^2/2 + (p-2) g^2, g = mu_0 - 2(p-1)r/p, give the bound. NotCertified unless
    sqrt(F_0) + rho_upper - 1 < 1 is proved. Current precision.
    """
    p = params.p
    F0 = 2 * (1 + (2 * arb.pi() / p).cos()) / (p - 2)
    spread = F0.sqrt() + ball(rho_upper(params, radius) - 1)
    if not certainly_lt(spread, arb(1)):
        raise NotCertified(f"(S.15) needs sqrt(F_0) + rho_0 - 1 < 1; on the box it is up to {spread.str(5)}",
                           "purity_margin_box")
    g = gamma_lower(params, radius)
    L0 = fmpq((p - 2) ** 2, 2) * g**2 + (p - 2) * g**2
    return (1 - spread * spread) * ball(L0 / (2 * L0 + balance_upper(params, radius)))


def staircase_gaussian_centres(params) -> list[tuple[fmpq, int]]:
    """The 3p coordinates of the base point (of either record) as (value, multiplicity)."""
    base = _base_point(params)
    return [(level, 2 * count) for level, count in base.u.levels_with_counts(params.p)] + \
        base.w.levels_with_counts(params.p)


def relabelled_copies(p: int) -> int:
    """p^2 (p - 1): the affine relabellings (r0, c0, step != 0) of docs/staircase.md, section 1.1. The images of
    the box under them are disjoint: each has its own active set {(r0, c0), (r0, c0 + step), (r0 + step, c0)}
    (the one gate sharing its row and its column with the other two is (r0, c0), and the gate in its row
    gives the step)."""
    return p * p * (p - 1)


#: How far below the box the widened box's tail coordinates reach, in units of sigma (docs/staircase.md, section
#: 11.14): [c - r - 4 sigma, c + r] keeps more than 1 - 2 Phi(-4) > 0.9999 of the half-line's mass P(x <= c + r)
#: when c + r <= 0.
TAIL_DEPTH = 4


def widened_box_intervals(params, radius, w_extra=0) -> list[tuple[fmpq, fmpq, int]]:
    """The coordinate intervals of the widened box B_r^+ of docs/staircase.md, section 11.14, as (centre, radius,
    how many coordinates): the box of radius r around a three-level base point (each w(j), j >= 2, within r +
    ``w_extra``, twin_above's g), except that each tail coordinate u(i), v(i), i >= 2 (the level c = ``elsewhere``
    of u and of v), ranges over [c - r - TAIL_DEPTH sigma, c + r].
    Every region of a (1, 2) record (U_stair, U_II, U_II^+, U_II^above) that contains the box contains B_r^+
    (section 11.14's lemma): its conditions see these coordinates only through gates that are negative on the box
    and only fall as the coordinates fall."""
    r, half_depth = fmpq(radius), TAIL_DEPTH * fmpq(params.sigma) / 2
    base, p = _base_point(params), params.p
    intervals = []
    for block in (base.u, base.v):
        intervals += [(block.at_0, r, 1), (block.at_1, r, 1), (block.elsewhere - half_depth, r + half_depth, p - 2)]
    w = base.w
    return intervals + [(w.at_0, r, 1), (w.at_1, r, 1), (w.elsewhere, r + fmpq(w_extra), p - 2)]


def widened_region_spec(region: str, equation: str, theorem: str, why: str = "active set",
                        box: str = "the box") -> ClaimSpec:
    """The ``region_probability`` claim of a (1, 2) record whose bound measures the relabelled copies of the widened
    box (:func:`widened_box_intervals`) and of its translates along the two invariant lines (docs/staircase.md,
    section 11.15, (S.40)): ``region`` names the open region, ``equation`` its defining equation, ``theorem`` what
    holds from it, ``why`` why the relabelled copies are disjoint (each point's active set names its relabelling),
    ``box`` the box's words when it is not the sup-norm box of radius r."""
    return region_probability_spec(
        f"R = {region} relabelled: the union of the images of {region} (open, {equation}) under the p^2 (p - 1) "
        f"relabellings of docs/staircase.md 1.1, from every point of which {theorem} holds relabelled; the bound is "
        f"p^2 (p - 1) P(B+) pi sigma^2/(2 sqrt(2) p r^2): B+ ({box} with each u(i), v(i), i >= 2, in "
        f"[c - r - {TAIL_DEPTH} sigma, c + r], c its base value) lies in {region}, so do its translates by 2r "
        "(k d_uv + l d_w), k, l in Z, d_uv = (1, -1, 0), d_w = (0, 0, 1) in all-ones blocks (u, v, w); these meet "
        "in null sets only, with total mass >= the factor times P(B+) (11.14-11.15, (S.40)), and their relabelled "
        f"copies are disjoint ({why}); P(R | active) >= P(R) as R lies in the initially active set")


def translates_log_factor_both_lines(params, radius) -> arb:
    """Encloses log(pi sigma^2 / (2 sqrt(2) p r^2)), the factor of (S.40) (docs/staircase.md, section 11.15): by
    Proposition S.21 the translates of the widened box by 2r (k d_uv + l d_w), k, l in Z, have total mass at least
    P(B+) times it. It is Lemma S.20's factor for d_uv (N = 2p) times d_w's (N = p), both with step h = 2r.
    Current precision."""
    step = 2 * fmpq(radius)
    return (translates_log_factor(2 * params.p, step, params.sigma)
            + translates_log_factor(params.p, step, params.sigma))


def widened_region_log_lower(params, radius, copies=relabelled_copies, w_extra=0) -> arb:
    """A ball enclosing log of ``copies(p)`` P(B+) pi sigma^2/(2 sqrt(2) p r^2), (S.40) (docs/staircase.md, sections
    11.14-11.15): a lower bound of log P(R | active) for a (1, 2) record whose box of radius r lies in its region,
    B+ its widened box (:func:`widened_box_intervals`, the w(j), j >= 2, moving r + ``w_extra``). Current precision."""
    return (product_log_mass(widened_box_intervals(params, radius, w_extra), params.sigma)
            + translates_log_factor_both_lines(params, radius) + ball(copies(params.p)).log())


def relabelled_box_probability_claims(gaussian_spec: ClaimSpec, region_spec: ClaimSpec, params, radius,
                                      copies=relabelled_copies, widened: bool = False, w_extra=0) -> list:
    """The ``gaussian_probability`` and ``region_probability`` claims of a staircase record's box (docs/staircase.md
    sections 9.2, 10.6, 11.9, 11.11, 11.14 and 11.15): the box's Gaussian mass under N(0, sigma^2 I_{3p}), and the
    mass of the box (``widened``: of the widened box B_r^+ of :func:`widened_box_intervals`, section 11.14, times the
    factor of its translates along the two invariant lines, :func:`translates_log_factor_both_lines`) times
    ``copies(p)`` disjoint copies, each inside the region relabelled (default :func:`relabelled_copies`, the (1, 2)
    pattern's; Theorem S1 passes its translated copies). ``w_extra``: how much wider the box lets each w(j), j >= 2,
    move (twin_above's g); the gaussian_probability claim states the mass of the sup-norm box of radius r inside
    it, a lower bound of the box's. Current precision."""
    log_mass = box_log_mass(staircase_gaussian_centres(params), fmpq(radius), params.sigma)
    log_region = (widened_region_log_lower(params, radius, copies, w_extra) if widened
                  else log_mass + ball(copies(params.p)).log())
    return [gaussian_probability_claim(gaussian_spec, log_mass, params.sigma),
            region_probability_claim(region_spec, log_region, params.sigma)]


#: The claims of a ``staircase`` certificate, in schema order: what each states (certify.kernel.claims).
PATTERN_BOX = ClaimSpec(
    "pattern_box", "box", "for every point of the box",
    components=(Component("active_gates", "the gates z00, z01, z10", POSITIVE_LOWER),
                Component("gate_11", "-z11", POSITIVE_LOWER),
                Component("boundary_gates", "-(every boundary gate z0j, zj0, j >= 2)", POSITIVE_LOWER),
                Component("other_gates", "-(every other gate)", POSITIVE_LOWER),
                Component("gamma_min", "gamma_j = mu - w(j) (every j >= 2)", POSITIVE_LOWER)),
    note="so the box lies in the pattern P of Theorem S with its boundary gates strictly inactive",
    source="(P1)-(P2), U_stair of (S.10)")
LOSS_MARGIN_BOX = ClaimSpec(
    "loss_margin_box", "box",
    "for every point of the box, 2 log 2 + 2/((p - 1) rho) - Lambda, Lambda = ell_0(z00) + ell_1(z01) + ell_1(z10), "
    "rho = max_{j >= 2} gamma_j / min_{j >= 2} gamma_j,", POSITIVE_LOWER,
    note="so the box lies in U_stair: from each of its points there is exactly one complete Clarke trajectory, "
         "and it keeps the (1, 2) staircase pattern for all t >= 0 (Theorem S)", source="(S.10), Theorem S")
PURITY_MARGIN_BOX = ClaimSpec(
    "purity_margin_box", "box",
    "along every trajectory from the box and for all t >= 0, 1 - max_zeta F_zeta(theta(t))", POSITIVE_LOWER,
    note="the trajectory never aligns to one Fourier class", source="Proposition S.6, (S.11)-(S.15)")
GAUSSIAN_PROBABILITY = gaussian_probability_spec("lies in U_stair (Theorem S)")
REGION_PROBABILITY = widened_region_spec("U_stair", "(S.10)", "Theorem S")
WHOLE_REGION_PROBABILITY = ClaimSpec(
    "whole_region_probability", "region",
    f"for {NORMAL_LAW}, P(theta(0) in R | theta(0) initially active)", PROBABILITY_LOWER,
    note="R = U_stair relabelled, as in region_probability; at p = "
         + " and ".join(str(p) for p in sorted(STAIR_WHOLE_REGION_GRIDS)) + " and sigma = 1 the bound measures "
         "the whole of U_stair, not a box: P(R | active) >= p^2 (p - 1) P(U_stair), and P(U_stair) is bounded below "
         "by closed-form lower bounds of the gates' cell masses (Lemma S.24) at or above an index where (S.44) is "
         "proved on each cell of w's coordinates D, E and spread (Lemmas S.23 and S.26), times proved lower bounds "
         "of those cells' masses under (S.42), on the committed grids, cells and pairs of gate cells; where that "
         "bound is not larger than region_probability's, not proved positive, or not attempted (other p or sigma), "
         "this claim states region_probability's bound",
    source="Proposition S.25 with Lemma S.26, (S.45)")
CLAIMS = (PATTERN_BOX, LOSS_MARGIN_BOX, PURITY_MARGIN_BOX, GAUSSIAN_PROBABILITY, REGION_PROBABILITY,
          WHOLE_REGION_PROBABILITY)


@dataclass(frozen=True)
class _Record:
    """What differs between Theorem S's box and Theorem S1's: the margin functions, the words that name a
    failure, the claim specs in schema order and the number of disjoint relabelled copies of the box."""

    pattern: object
    loss_margin: object
    purity: object
    region: str
    purity_equation: str
    specs: tuple
    copies: object
    #: whether the region bound measures the widened box of section 11.14 (the (1, 2) records) or the box
    widened: bool


def _box_bounds(record: _Record, params, radius, prec: int) -> tuple[dict, arb, arb]:
    """(pattern margins, loss margin ball, delta ball) on the box of radius r > 0 at ``prec`` bits, each proved
    positive; NotCertified names the first that is not."""
    r = fmpq(radius)
    if not r > 0:
        raise NotCertified(f"the radius must be positive, got {format_rational(r)}")
    margins = record.pattern(params, r)
    with working_precision(prec):
        loss_margin = record.loss_margin(params, r)
        if not certainly_positive(loss_margin):
            raise NotCertified(f"{record.region} on the box: the loss margin is not proved positive "
                               f"({loss_margin.str(5)}) at radius {format_rational(r)}", "loss_margin_box")
        delta = record.purity(params, r)
        if not certainly_positive(delta):
            raise NotCertified(f"{record.purity_equation} on the box: delta is not proved positive ({delta.str(5)})",
                               "purity_margin_box")
    return margins, loss_margin, delta


def _claims(record: _Record, params, radius, prec: int) -> list[Claim]:
    """Every claim of the record's certificate at ``prec`` bits (the hypotheses are the caller's)."""
    r = fmpq(radius)
    margins, loss_margin, delta = _box_bounds(record, params, r, prec)
    pattern, loss, purity, gaussian, region = record.specs[:5]
    with working_precision(prec):
        return [
            pattern.claim(components={name: {"lower": value} for name, value in margins.items()}),
            loss.claim(lower=loss_margin),
            purity.claim(lower=delta),
            *relabelled_box_probability_claims(gaussian, region, params, r, record.copies, record.widened),
        ]


def _copies_log_lower(record: _Record, params, log_mass: arb) -> arb:
    """A ball enclosing a lower bound of log P(R | active): the box's mass times its disjoint relabelled copies
    (section 9.2's region_probability; current precision)."""
    return log_mass + ball(record.copies(params.p)).log()


def staircase_box_bounds(params: StaircaseParameters, radius, prec: int) -> tuple[dict, arb, arb]:
    """(pattern margins, (S.10) margin ball, delta ball) on the box of radius r > 0 at ``prec`` bits, each proved
    positive; NotCertified names the first that is not. The builders' radius searches call it; the claims run the
    same _box_bounds directly."""
    return _box_bounds(_STAIRCASE, params, radius, prec)


def staircase_claims(params: StaircaseParameters, radius, prec: int) -> list[Claim]:
    """Every claim of a ``staircase`` certificate (docs/staircase.md, sections 9 and 11.16), at ``prec`` bits: the
    box's, then ``whole_region_probability``: Proposition S.25's bound (:mod:`certify.kernel.region_stair`, fixed
    grids and precision) where it is attempted, proved and larger than region_probability's, else that one."""
    require_staircase_hypotheses(params, prec)
    claims = _claims(_STAIRCASE, params, radius, prec)
    try:
        log_whole = stair_whole_region_log_lower(params.p, params.sigma)
    except NotCertified:  # not attempted at this p or sigma, or not proved positive: the widened box's stands
        log_whole = None
    claims.append(_whole_region_claim(WHOLE_REGION_PROBABILITY, params, log_whole, prec,
                                      lambda: widened_region_log_lower(params, radius)))
    return claims


def _whole_region_claim(spec: ClaimSpec, params, log_whole, prec: int, fallback) -> Claim:
    """The ``whole_region_probability`` claim of ``spec``: ``log_whole`` (an exact ball below log P(R | active), or
    None) where it is proved larger than the record's region_probability bound, else that bound (``fallback()``, a
    ball enclosing a lower bound of the same log P at the current precision). Both are proved lower bounds of one
    probability; the choice compares exact values stated at the fixed :data:`REGION_PRECISION`, so the generator
    and the checker make the same one."""
    if log_whole is not None:
        with working_precision(REGION_PRECISION):
            fixed = stated_log_lower(fallback())
        if not certainly_lt(fixed, log_whole):
            log_whole = None
    with working_precision(prec):
        return region_probability_claim(spec, log_whole if log_whole is not None else fallback(), params.sigma)


# -- Theorem S1: the one-gate staircase by the loss (docs/staircase.md, section 10) --------------------------

MEMORISE_PAPER = ("Theorem S1 of docs/staircase.md (the one-gate staircase, by the loss): region S_1 (S1.1), "
                  "Lemmas S1.1-S1.6, Proposition S1.7 (S1.2)")


@dataclass(frozen=True)
class MemoriseParameters:
    """The prime p and the exact constants X, s, E of the base point of Theorem S1 (docs/staircase.md, 10.6)."""

    p: int
    X: fmpq
    s: fmpq
    E: fmpq
    #: the initialisation scale: theta(0) ~ N(0, sigma^2 I_{3p}) (the probability claims; default 1)
    sigma: fmpq = fmpq(1)

    @property
    def mu0(self) -> fmpq:
        """E/p: the mean of (E, 0, ..., 0), subtracted so that w has mean 0."""
        return self.E / self.p

    @property
    def gamma0(self) -> fmpq:
        """gamma_j = mu - w(j) (j >= 1) at the base point: every one equals mu_0."""
        return self.mu0

    def base_point(self) -> BasePoint:
        return memorise_base_point(self)


def _base_point(params) -> BasePoint:
    """The base point of a record's parameters (Theorem S's, Theorem S1's or the twin's: each names its own)."""
    return params.base_point()


def require_memorise_hypotheses(params: MemoriseParameters, prec: int = 64) -> None:
    """Raise HypothesisError naming the broken hypothesis: p >= 5, X, s, E, sigma > 0, and the base point in S_1
    ((S1.1): ell_0(X) < 2/p, rho = 1 there), decided with balls at ``prec`` bits and then at increasing
    precision (a base point on the boundary of S_1 is refused)."""
    if params.p < 5:
        raise HypothesisError(f"p >= 5 fails: p = {params.p} (Theorem S1 and Proposition S1.7 need p >= 5)")
    for name in ("X", "s", "E"):
        if not getattr(params, name) > 0:
            raise HypothesisError(f"{name} > 0 fails: {name} = {format_rational(getattr(params, name))}")
    require_positive_sigma(params.sigma)
    margin = base_point_margin(memorise_loss_margin_lower, params, prec)
    if margin is not None:
        raise HypothesisError(f"(S1.1) fails at the base point: 2/p - ell_0(X) = {margin.str(5)} is not positive "
                              "(raise X E: docs/staircase.md, section 10.6)")


def memorise_base_point(params: MemoriseParameters) -> BasePoint:
    """u = v = (X/2, -X/2 - s, ..., -X/2 - s), w = (E, 0, ..., 0) - mu_0 1 (docs/staircase.md, 10.6), exactly."""
    gates = TwoLevel(params.X / 2, -params.X / 2 - params.s)
    return BasePoint(u=gates, v=gates, w=TwoLevel(params.E - params.mu0, -params.mu0))


def memorise_pattern_margins(params: MemoriseParameters, radius) -> dict[str, fmpq]:
    """Exact margins of the pattern (Q1)-(Q2) of Theorem S1, strict as U_1 asks, on the box of radius r.

    A gate u(a) + v(b) moves by at most 2r on the box, gamma_j by at most 2(p-1)r/p (:func:`gamma_lower`). At the
    base point z00 = X, the boundary gates z0j = zj0 = -s and every other gate is -X - 2s. NotCertified names a
    failure.
    """
    r = fmpq(radius)
    if not r >= 0:
        raise NotCertified(f"the radius must not be negative, got {format_rational(r)}")
    X, s = params.X, params.s
    margins = {
        "active_gate": X - 2 * r,
        "boundary_gates": s - 2 * r,
        "other_gates": X + 2 * s - 2 * r,
        "gamma_min": gamma_lower(params, r),
    }
    names = {"active_gate": "the gate (0, 0) > 0", "boundary_gates": "the boundary gates (0, j), (j, 0) < 0",
             "other_gates": "every other gate < 0", "gamma_min": "gamma_j > 0"}
    return require_positive_pattern(margins, names, "U_1", r)


def memorise_loss_upper(params: MemoriseParameters, radius) -> arb:
    """A ball whose upper end bounds ell_0(z00) at every point of the box (docs/staircase.md, section 10.6).
    Current precision; NotCertified unless X, E > 2r.

    ell_0(z) = log sum_c e^{z (w(c) - w(0))} (A.2). On the box each difference w(c) - w(0), c >= 1, is at most
    -E + 2r. For z > 0, ell_0 increases in each difference (its partial derivative is z q_c >= 0), so
    ell_0(z) <= log(1 + (p - 1) e^{-z (E - 2r)}), which decreases in z; and z00 >= X - 2r > 0.
    """
    p, r, X, E = params.p, fmpq(radius), params.X, params.E
    if not (X > 2 * r and E > 2 * r):
        raise NotCertified(f"(S1.1) on the box: the bound of ell_0 needs X, E > 2r, at radius {format_rational(r)}",
                           "loss_margin_box")
    return (1 + (p - 1) * (-ball(X - 2 * r) * ball(E - 2 * r)).exp()).log()


def memorise_loss_margin_lower(params: MemoriseParameters, radius) -> arb:
    """A ball whose lower end is <= 2/(p rho) - ell_0(z00) at every point of the box ((S1.1)): ell_0 is at most
    the upper end of :func:`memorise_loss_upper`, and rho <= :func:`rho_upper`. Current precision."""
    return ball(fmpq(2, params.p) / rho_upper(params, radius)) - memorise_loss_upper(params, radius)


def memorise_purity_margin_lower(params: MemoriseParameters, radius) -> arb:
    """A ball whose every point is <= delta_1 of (S1.2) at every point of the box (Proposition S1.7).

    delta_1 = (1 - (sqrt(F_1) + rho_0 - 1)^2) L_0/(2 L_0 + C_+), F_1 = 2/(p - 1). It decreases in rho_0 (for
    sqrt(F_1) + rho_0 - 1 < 1) and in C_+, and increases in L_0 = S^2 + sum gamma_j^2, S = sum_{j >= 1} gamma_j;
    so rho_0 <= :func:`rho_upper`, C_+ <= :func:`balance_upper` and L_0 >= (p-1)^2 g^2 + (p-1) g^2,
    g = mu_0 - 2(p-1)r/p, give the bound. NotCertified unless sqrt(F_1) + rho_upper - 1 < 1 is proved.
    Current precision.
    """
    p = params.p
    spread = ball(fmpq(2, p - 1)).sqrt() + ball(rho_upper(params, radius) - 1)
    if not certainly_lt(spread, arb(1)):
        raise NotCertified(f"(S1.2) needs sqrt(F_1) + rho_0 - 1 < 1; on the box it is up to {spread.str(5)}",
                           "purity_margin_box")
    g = gamma_lower(params, radius)
    L0 = (p - 1) ** 2 * g**2 + (p - 1) * g**2
    return (1 - spread * spread) * ball(L0 / (2 * L0 + balance_upper(params, radius)))


def translated_copies(p: int) -> int:
    """p^2: the translations (r0, c0) of docs/staircase.md, section 1.1 (step 1). The images of Theorem S1's box
    under them are disjoint: each has its own active gate (r0, c0). The other steps add no image: the base point
    and its sup-norm box are invariant under the permutations of the indices != 0 of every block."""
    return p * p


MEMORISE_PATTERN_BOX = ClaimSpec(
    "pattern_box", "box", "for every point of the box",
    components=(Component("active_gate", "the gate z00", POSITIVE_LOWER),
                Component("boundary_gates", "-(every boundary gate z0j, zj0, j >= 1)", POSITIVE_LOWER),
                Component("other_gates", "-(every other gate)", POSITIVE_LOWER),
                Component("gamma_min", "gamma_j = mu - w(j) (every j >= 1)", POSITIVE_LOWER)),
    note="so the box lies in the pattern P_1 of Theorem S1 with exactly one active gate", source="(Q1)-(Q2), U_1 of (S1.1)")
MEMORISE_LOSS_MARGIN_BOX = ClaimSpec(
    "loss_margin_box", "box",
    "for every point of the box, 2/(p rho) - ell_0(z00), rho = max_{j >= 1} gamma_j / min_{j >= 1} gamma_j,",
    POSITIVE_LOWER,
    note="so the box lies in U_1: from each of its points there is exactly one complete Clarke trajectory, and "
         "the gate (0, 0) stays its only active gate for all t >= 0 (Theorem S1)", source="(S1.1), Theorem S1")
MEMORISE_PURITY_MARGIN_BOX = ClaimSpec(
    "purity_margin_box", "box",
    "along every trajectory from the box and for all t >= 0, 1 - max_zeta F_zeta(theta(t))", POSITIVE_LOWER,
    note="the trajectory never aligns to one Fourier class", source="Proposition S1.7, (S1.2)")
MEMORISE_GAUSSIAN_PROBABILITY = gaussian_probability_spec("lies in U_1 (Theorem S1)")
MEMORISE_REGION_PROBABILITY = region_probability_spec(
    "R = U_1 relabelled: the union of the images of the open region U_1 of (S1.1) under the relabellings "
    "a = r0 + m i, b = c0 + m j, y = r0 + c0 + m l (m != 0), from every point of which Theorem S1 holds "
    "relabelled; the bound measures the p^2 disjoint translated copies of the box, and P(R | active) >= P(R) "
    "since R lies in the initially active set")
MEMORISE_WHOLE_REGION_PROBABILITY = ClaimSpec(
    "whole_region_probability", "region",
    f"for {NORMAL_LAW}, P(theta(0) in R | theta(0) initially active)", PROBABILITY_LOWER,
    note="R = U_1 relabelled, as in region_probability; the bound measures the whole of U_1, not a box: "
         "P(R | active) >= p^2 P(U_1), and P(U_1) is bounded below by the gates' closed-form mass (S1.3)-(S1.4) "
         "above a threshold proved on each cell of the law of w (Lemma S1.9) and a proved lower bound of the "
         "cell's mass (Lemma S1.10), on fixed grids; where that bound is not larger than region_probability's, "
         "not proved positive, or not attempted (p >= 2^32), this claim states region_probability's bound",
    source="Proposition S1.8, (S1.7)")
MEMORISE_CLAIMS = (MEMORISE_PATTERN_BOX, MEMORISE_LOSS_MARGIN_BOX, MEMORISE_PURITY_MARGIN_BOX,
                   MEMORISE_GAUSSIAN_PROBABILITY, MEMORISE_REGION_PROBABILITY, MEMORISE_WHOLE_REGION_PROBABILITY)


def memorise_box_bounds(params: MemoriseParameters, radius, prec: int) -> tuple[dict, arb, arb]:
    """(pattern margins, (S1.1) margin ball, delta_1 ball) on the box of radius r > 0 at ``prec`` bits, each
    proved positive; NotCertified names the first that is not. The builder's radius search calls it; the claims
    run the same _box_bounds directly."""
    return _box_bounds(_MEMORISE, params, radius, prec)


def memorise_claims(params: MemoriseParameters, radius, prec: int) -> list[Claim]:
    """Every claim of a ``memorise`` certificate (docs/staircase.md, sections 10.6-10.7), at ``prec`` bits: the
    box's, then ``whole_region_probability``: Proposition S1.8's bound (fixed grids and precision, the same at
    every ``prec``) where it is proved and larger than the box copies' bound, else the box copies' bound. Both
    are proved lower bounds of the same probability; the choice compares exact values at a fixed precision
    (:data:`certify.kernel.region.REGION_PRECISION`), so the generator and the checker make the same one."""
    require_memorise_hypotheses(params, prec)
    claims = _claims(_MEMORISE, params, radius, prec)
    log_whole = None
    if params.p < WHOLE_REGION_PRIMES_BELOW:
        try:
            log_whole = memorise_whole_region_log_lower(params.p, params.sigma)
        except NotCertified:  # not proved positive (e.g. a tiny sigma): the box copies' bound stands
            log_whole = None
    centres = staircase_gaussian_centres(params)
    claims.append(_whole_region_claim(MEMORISE_WHOLE_REGION_PROBABILITY, params, log_whole, prec, lambda: (
        _copies_log_lower(_MEMORISE, params, box_log_mass(centres, fmpq(radius), params.sigma)))))
    return claims


#: Proposition S1.8 is attempted below this p: its cells of Delta use Arb's erfc directly, whose balls lose
#: every digit once the Gaussian factors are below about e^(-10^15) (p near 10^18 fails; p = 10^7 is fine).
WHOLE_REGION_PRIMES_BELOW = 2**32


_STAIRCASE = _Record(pattern_margins, loss_margin_lower, purity_margin_lower, "(S.10)", "(S.15)", CLAIMS,
                     relabelled_copies, widened=True)
_MEMORISE = _Record(memorise_pattern_margins, memorise_loss_margin_lower, memorise_purity_margin_lower, "(S1.1)",
                    "(S1.2)", MEMORISE_CLAIMS, translated_copies, widened=False)
