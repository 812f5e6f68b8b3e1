"""Gaussian mass of a sup-norm box under independent standard normals."""

from __future__ import annotations

from flint import arb, ctx, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_positive, rounded_down, working_precision
from .claims import PROBABILITY_LOWER, Claim, ClaimSpec
from .exact import format_rational


def require_positive_sigma(sigma) -> None:
    """Raise HypothesisError unless the initialisation scale sigma (theta(0) ~ N(0, sigma^2 I)) is > 0 (exact)."""
    if not fmpq(sigma) > 0:
        raise HypothesisError(f"sigma > 0 fails: sigma = {format_rational(fmpq(sigma))} "
                              "(theta(0) ~ N(0, sigma^2 I_{3p}) needs a positive scale)")


def coordinate_log_mass(centre, radius) -> arb:
    """Encloses log P(|X - m| <= r) for X ~ N(0, 1), m = ``centre``, r = ``radius`` > 0 (exact).

    Near the centre (|m| <= r): log((erf((|m|+r)/sqrt2) - erf((|m|-r)/sqrt2))/2).
    Off centre (|m| > r) the far-side form P = (erfc(a) - erfc(b))/2, a = (|m|-r)/sqrt2,
    b = (|m|+r)/sqrt2, which keeps relative accuracy where a difference of erfs cancels.
    Far out (a^2 >= the precision in bits) Arb's erfc of an inexact argument loses every
    digit (e.g. at 353553.3), so there erfc(z) = e^{-z^2} U(1/2, 1/2, z^2)/sqrt(pi) is used:

        log P = -a^2 - log(2 sqrt(pi)) + log U(a^2) + log1p(-e^{-2|m|r} U(b^2)/U(a^2)),

    with a^2 = (|m|-r)^2/2 and a^2 - b^2 = -2|m|r exact. (Arb's U(1/2, 1/2, z) is only
    accurate to about e^{-z} for moderate z, hence the threshold.) Current precision.
    """
    m = abs(fmpq(centre))
    r = fmpq(radius)
    if r <= 0:
        raise NotCertified("Gaussian box mass needs a positive radius")
    a_squared, b_squared = ball((m - r) ** 2 / 2), ball((m + r) ** 2 / 2)
    if m <= r or (m - r) ** 2 / 2 < ctx.prec:
        near, far = a_squared.sqrt(), b_squared.sqrt()
        mass = (near.erfc() - far.erfc()) / 2 if m > r else (far.erf() + near.erf()) / 2
        if not certainly_positive(mass):
            raise NotCertified(f"Gaussian mass of a coordinate at {centre} is not certainly positive")
        return mass.log()
    half = arb(1) / 2
    u_a, u_b = a_squared.hypgeom_u(half, half), b_squared.hypgeom_u(half, half)
    ratio = ball(-2 * m * r).exp() * u_b / u_a  # erfc(b)/erfc(a), in (0, 1)
    if not (certainly_positive(u_a) and certainly_positive(1 - ratio)):
        raise NotCertified(f"Gaussian mass of a coordinate at {centre} is not certainly positive")
    return -a_squared - (2 * arb.pi().sqrt()).log() + u_a.log() + (-ratio).log1p()


def coordinate_log_mass_mean_value(centre, radius) -> arb:
    """Encloses log P(|X - m| <= r) by the mean value theorem: P = 2r phi(xi), xi in [m - r, m + r].

    With phi(x) = e^{-x^2/2}/sqrt(2 pi): log P in log(2r) - [m - r, m + r]^2/2 - log(2 pi)/2 (ball
    arithmetic over the whole interval). Its relative width is about 2|m|r: useless for wide boxes,
    exact to the last bits for tiny ones (r = 1e-36 for gd at p = 10^18), where erfc(a) - erfc(b)
    cancels completely. Current precision.
    """
    m, r = fmpq(centre), fmpq(radius)
    if r <= 0:
        raise NotCertified("Gaussian box mass needs a positive radius")
    interval = ball(m) + arb(0, 1) * ball(r)  # the ball [m - r, m + r] (arb(0, 1) is [-1, 1])
    # interval * interval, not interval**2: arb's power goes through a log, undefined when 0 is inside
    return ball(2 * r).log() - interval * interval / 2 - (2 * arb.pi()).log() / 2


def coordinate_mass(centre, radius) -> arb:
    """Encloses P(|X - m| <= r), X ~ N(0, 1) (see :func:`coordinate_log_mass`)."""
    return coordinate_log_mass(centre, radius).exp()


def box_log_mass(centres_with_counts, radius, sigma=1) -> arb:
    """Encloses log P(theta in box) for theta ~ N(0, sigma^2 I), the box being the product over
    coordinates of [m - r, m + r] (sigma > 0 exact; P(|sigma Z - m| <= r) = P(|Z - m/sigma| <= r/sigma)).

    ``centres_with_counts`` is a list of (m, k): k coordinates centred at m. It is
    :func:`product_log_mass` with one radius for every coordinate.
    """
    return product_log_mass([(centre, radius, count) for centre, count in centres_with_counts], sigma)


def product_log_mass(intervals_with_counts, sigma=1) -> arb:
    """Encloses log P(theta in B) for theta ~ N(0, sigma^2 I), B the product over coordinates of the
    intervals [m - r, m + r] given as (m, r, k): k coordinates with centre m and radius r > 0 (exact; sigma > 0
    exact). The mass is a product of independent one-dimensional masses, so a three-level base point costs
    O(1) however large p is. The sum is formed with extra bits, as many as the magnitude of log P has
    (10^54 for slide at p = 10^18), so that its absolute error stays far below 1 and P = exp(log P) keeps its
    relative accuracy.
    """
    sigma = fmpq(sigma)
    if not sigma > 0:
        raise NotCertified("the Gaussian box mass needs sigma > 0")
    intervals = [(fmpq(centre) / sigma, fmpq(radius) / sigma, count) for centre, radius, count in intervals_with_counts]
    if not all(r > 0 for _, r, _ in intervals):
        raise NotCertified("Gaussian box mass needs a positive radius")
    r_least = min(r for _, r, _ in intervals)
    magnitude = sum(count * ((abs(centre) + r) ** 2 + 1) for centre, r, count in intervals)
    extra = int(magnitude.ceil()).bit_length() + (int((1 / r_least).ceil()).bit_length() if r_least < 1 else 0)
    with working_precision(ctx.prec + extra):
        return _sum_log_masses(intervals)


def _sum_log_masses(intervals) -> arb:
    total = arb(0)
    for centre, radius, count in intervals:
        # both enclosures are rigorous; their intersection is the sharper of the two
        try:
            log_mass = coordinate_log_mass(centre, radius).intersection(
                coordinate_log_mass_mean_value(centre, radius))
        except ValueError:  # disjoint enclosures of one number: a bug, never a certificate
            raise NotCertified(f"the two enclosures of the Gaussian mass at {centre} disagree") from None
        total += count * log_mass
    return total


def translates_log_factor(moved: int, step, sigma=1) -> arb:
    """Encloses log(sqrt(2 pi / N) sigma / h), N = ``moved`` >= 1, h = ``step`` > 0 and sigma > 0 exact.

    Guarantee (docs/staircase.md, section 11.15, Lemma S.20, (S.39)): for every product box B and every direction d
    with N entries +-1 and the others 0, sum over k in Z of P(theta in B + k h d) >= P(theta in B) times
    exp(this), theta ~ N(0, sigma^2 I). The factor may be below 1 (h > sigma sqrt(2 pi / N)): still a true, weaker
    bound. Current precision.
    """
    if isinstance(moved, bool) or not isinstance(moved, int) or not isinstance(step, (int, fmpq)) \
            or not isinstance(sigma, (int, fmpq)):
        raise NotCertified("the translates' factor needs an integer N and an exact step and sigma")
    step, sigma = fmpq(step), fmpq(sigma)
    if not (moved >= 1 and step > 0 and sigma > 0):
        raise NotCertified("the translates' factor needs N >= 1, a positive step and a positive sigma")
    return (2 * arb.pi() / moved).log() / 2 + ball(sigma / step).log()


#: The law every probability claim is under (quoted with the certificate's sigma).
NORMAL_LAW = "theta(0) ~ N(0, sigma^2 I_{3p}), sigma = {sigma}"


def gaussian_probability_spec(why: str) -> ClaimSpec:
    """The ``gaussian_probability`` claim of a theorem: P(theta(0) in box) >= lo > 0 with its log10 twin;
    ``why`` says what every point of the box satisfies (e.g. "is initially active (Theorem 1.5)")."""
    return ClaimSpec("gaussian_probability", "box", f"for {NORMAL_LAW}, P(theta(0) in box)", PROBABILITY_LOWER,
                     note=f"every point of the box {why}")


def gaussian_probability_claim(spec: ClaimSpec, log_mass: arb, sigma=1) -> Claim:
    """The ``gaussian_probability`` claim of ``spec`` from ``log_mass``, an enclosure of log P under
    N(0, sigma^2 I_{3p}) (see :func:`box_log_mass`): lo is its exponential, log10_lo its quotient by log 10."""
    return spec.claim({"sigma": sigma}, lower=log_mass.exp(), log10_lower=log_mass / arb(10).log())


#: How many bits below the working precision a region bound is rounded down before it is stated
#: (certify.kernel.memo: its last bits depend on Arb's cached constants).
REGION_GRID_BITS = 32


def region_probability_spec(region: str) -> ClaimSpec:
    """The ``region_probability`` claim of a theorem: P(theta(0) in R | initially active) >= lo > 0 with its
    log10 twin, R the theorem's whole region (not a box); ``region`` names and defines R and says why the
    theorem holds from every point of it (it may quote ``{gamma_star}``, ``{X}``)."""
    return ClaimSpec("region_probability", "region",
                     f"for {NORMAL_LAW}, P(theta(0) in R | theta(0) initially active)", PROBABILITY_LOWER,
                     note=region)


def region_probability_claim(spec: ClaimSpec, log_lower: arb, sigma, **values) -> Claim:
    """The ``region_probability`` claim of ``spec``: ``log_lower`` is a proved lower bound of log P (an exact
    ball from :mod:`certify.kernel.region` or :mod:`certify.kernel.region_slide`); lo is its exponential and
    log10_lo its quotient by log 10 (balls at the current precision, so the stored ends are rounded outward
    from them); ``values`` fill the region's quotes.
    """
    # stated on a grid 32 bits coarser than the working precision: the same point in every process
    log_lower = rounded_down(log_lower, max(16, ctx.prec - REGION_GRID_BITS))
    return spec.claim({"sigma": sigma, **values}, lower=log_lower.exp(), log10_lower=log_lower / arb(10).log())
