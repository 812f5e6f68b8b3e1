"""Probability of the whole dead region R_dead of Theorem A.2, and of the one-gate regions of Theorems A.3
and A.4, conditioned on initial activity.

R_dead is the open set of initial points with exactly one active gate (a*, b*), label
y = a* + b* mod p, s = u(a*) + v(b*) > 0, gamma_y = mu(w) - w(y) > 0 and gamma_y^2 > s^2/2:
(A.58) at a general point, from which (A.53)-(A.57) and Lemma A.17 kill the neuron in finite
time along every Clarke trajectory. Under theta(0) ~ N(0, sigma^2 I_{3p}), for every sigma > 0,

    P(R_dead | active) = E[Phibar(c_p S)] / (C(2p, p) - 1) >= Phibar(c_p E[S]) / (C(2p, p) - 1),

with c_p = sqrt(p / (2(p-1))), S = X_(p+1) - X_(p) the middle spacing of 2p independent standard
normals, E[S] = C(2p, p) int Phi^p (1 - Phi)^p dx, and Jensen's inequality for the convex,
decreasing Phibar = 1 - Phi on [0, inf). The derivation (the ordering identity, the spacing law,
the independence of gamma_y, Jensen) is in docs/mathematics.md, section 'Region probability of
the dead theorem'.

The same reduction gives every *one-gate region with a threshold* theta (exactly one active gate,
s > 0, gamma_y > theta(s), theta >= 0 nondecreasing): P = E[psi(S)] / (C(2p, p) - 1) with
psi(t) = Phibar(theta(sigma t)/(sigma tau_p)). :func:`one_gate_region_log_probability_lower` bounds it
by a lower Riemann-Stieltjes sum over bins of S, whose probabilities are integrated from below by a
chord rule (the integrands are log-concave); the wrappers are R_dead (for comparison with Jensen,
which stays the tighter), R_gd of Theorem A.4 ((A.71)) and R_smooth of Theorem A.3 ((A.67)); same
docs section, (e)-(k).

Everything is computed in log form, with C(2p, p) through log-gamma, and the integral in the
variable t = sqrt(p) x, where the integrand is a peak of fixed width: a call costs about the same
for p = 5 and p = 10^18. Each function takes the precision ``prec`` (bits) it computes at (a few
guard bits more are added internally) and raises NotCertified rather than return an unproved value.
"""

from __future__ import annotations

import math

from flint import acb, arb, fmpq, fmpz

from ..errors import HypothesisError, InputError, NotCertified
from .balls import ball, certainly_lt, certainly_positive, lower_endpoint, rounded_down, working_precision
from .memo import memoized
from .primes import require_prime

__all__ = [
    "log_central_binomial", "log_one_active_gate_probability", "expected_spacing_upper",
    "spacing_integral_tail_bound", "dead_region_log_probability_lower", "dead_region_log10_probability_lower",
    "DEFAULT_BINS", "spacing_bin_probability_lower", "one_gate_region_grid", "one_gate_region_log_probability_lower",
    "dead_region_z_upper", "gd_region_z_upper", "smooth_region_z_upper", "dead_region_binned_log_probability_lower",
    "gd_region_log_probability_lower", "smooth_region_log_probability_lower",
    "expected_spacing_upper_point", "REGION_PRECISION", "REGION_LOG_BITS", "stated_log_lower",
    "dead_region_claim_log_lower", "gd_region_claim_log_lower", "smooth_region_claim_log_lower",
]

#: The precision (bits) at which the kernel's region claims compute their bounds, whatever the certificate's
#: precision: the generator (128 bits) and the checker (128 + 64) then compute the same point, so the checker
#: meets the generator's bound in the memo of this process, and erfc at 64 bits costs half what it costs at 192.
#: Every bound is an exact point below the probability at any precision; the internal guard bits
#: (2 bitlength(p) + 20, and more for narrow bins) keep its absolute error in the log far below 2^-64.
REGION_PRECISION = 64
#: A claim states the natural log of its bound rounded down to a multiple of 2^-REGION_LOG_BITS
#: (:func:`stated_log_lower`): the bits below depend on the state of Arb (its cached constants,
#: certify.kernel.state), so the rounding makes the stated point the same in every process except with
#: probability about 2^-20 at p = 10^18 and far less below; it lowers the probability by a factor of at most
#: exp(2^-40) (its 13th significant digit).
REGION_LOG_BITS = 40


def _guarded(p: int, prec) -> tuple[int, int]:
    """Validate (p, prec) and return (p, the internal precision).

    The guard bits cover the size of log C(2p, p) ~ 2p log 2 (its absolute error must stay small)
    and the p-th power in the integrand (relative error grows by a factor ~p).
    """
    p = require_prime(p)
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 16:
        raise InputError(f"the precision must be an integer number of bits >= 16, got {prec!r}")
    return p, prec + 2 * p.bit_length() + 20


def _log_central_binomial(p: int) -> arb:
    """log C(2p, p) = lgamma(2p + 1) - 2 lgamma(p + 1), at the current precision."""
    return arb.lgamma(ball(2 * p + 1)) - 2 * arb.lgamma(ball(p + 1))


def log_central_binomial(p: int, prec: int) -> arb:
    """Encloses log C(2p, p), the number of orderings of the 2p values {u(a)} and {-v(b)} by block.

    >>> x = log_central_binomial(5, 64)
    >>> x.overlaps(arb(252).log()), log_central_binomial(1000003, 64) > 1386000
    (True, True)
    """
    p, work = _guarded(p, prec)
    with working_precision(work):
        return _log_central_binomial(p)


def _log_binomial_minus_one(log_c: arb) -> arb:
    """log(C - 1) = log C + log1p(-1/C) from an enclosure of log C (C >= 252 here)."""
    return log_c + (-(-log_c).exp()).log1p()


def log_one_active_gate_probability(p: int, prec: int) -> arb:
    """Encloses log P(exactly one active gate | initially active) = -log(C(2p, p) - 1).

    Exactly one of the C(2p, p) equally likely block orderings of {u(a)} and {-v(b)} has one
    active gate, and one other (every u below every -v) is the inactive neuron (docs/mathematics.md,
    section 'Region probability of the dead theorem', claim (a)).

    >>> log_one_active_gate_probability(5, 64).overlaps(-arb(251).log())
    True
    """
    p, work = _guarded(p, prec)
    with working_precision(work):
        return -_log_binomial_minus_one(_log_central_binomial(p))


def _cutoff(p: int, prec: int) -> int:
    """The end T of the integrated interval [0, T] in t = sqrt(p) x.

    Only the tightness depends on T (the tail beyond it is bounded rigorously, whatever T is):
    numerically the integrand decays at least like exp(-0.4 t^2) for p >= 5, so T^2 = 2.5 (prec log 2 +
    log(p)/2 + 5) makes the tail bound about 2^-prec of the integral, which is ~1.11.
    """
    return math.ceil(math.sqrt(2.5 * (prec * math.log(2) + math.log(p) / 2 + 5)))


def spacing_integral_tail_bound(p: int, cutoff: int, prec: int) -> arb:
    """A ball whose upper end bounds int_T^inf h(t/sqrt p)^p dt, h(x) = 4 Phi(x)(1 - Phi(x)), T = ``cutoff``.

    For x >= X >= 0: h decreases, h(x) <= 4 (1 - Phi(x)), and int_X^inf (1 - Phi) = phi(X) -
    X (1 - Phi(X)) <= phi(X); so with X = T / sqrt(p)

        int_T^inf h(t/sqrt p)^p dt = sqrt(p) int_X^inf h^p dx <= 4 sqrt(p) phi(X) h(X)^(p-1).

    h(X) = 1 - erf(T / sqrt(2p))^2 and phi(X) = exp(-T^2/(2p)) / sqrt(2 pi) are evaluated with balls.
    """
    p, work = _guarded(p, prec)
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise InputError(f"the cutoff must be a positive integer, got {cutoff!r}")
    with working_precision(work):
        return _tail_bound(p, cutoff)


def _tail_bound(p: int, cutoff: int) -> arb:
    e = (ball(cutoff) / (2 * ball(p)).sqrt()).erf()
    h = 1 - e * e
    if not certainly_positive(h):
        raise NotCertified(f"p = {p}: h(T/sqrt p) at the cutoff T = {cutoff} is not certainly positive")
    density = (-ball(cutoff) ** 2 / (2 * ball(p))).exp() / (2 * arb.pi()).sqrt()
    return 4 * ball(p).sqrt() * density * (h.log() * (p - 1)).exp()


def expected_spacing_upper(p: int, prec: int) -> arb:
    """Encloses E[S], S = X_(p+1) - X_(p) for 2p iid N(0, 1); the upper end is what the bound uses.

    E[S] = C(2p, p) int_R Phi^p (1 - Phi)^p dx = C(2p, p) 4^-p (2/sqrt p) int_0^inf h(t/sqrt p)^p dt
    with h(x) = 4 Phi(1 - Phi) = 1 - erf(x/sqrt 2)^2 (even, so the integral over R is twice that over
    [0, inf); x = t/sqrt p). The integrand (1 - erf(t/sqrt(2p))^2)^p is entire in t (an integer power),
    ~exp(-2 t^2/pi) for large p, so ``acb.integral`` encloses int_0^T rigorously; the tail beyond T
    lies in [0, :func:`spacing_integral_tail_bound`]. The factor C(2p, p) 4^-p / sqrt(p) is
    exp(lgamma(2p+1) - 2 lgamma(p+1) - p log 4) / sqrt(p), so nothing overflows.

    >>> x = expected_spacing_upper(5, 64)
    >>> x.str(12, radius=False), x.rad() < 1e-20
    ('0.245335504569', True)
    """
    p, work = _guarded(p, prec)
    cutoff = _cutoff(p, prec)
    with working_precision(work):
        scale = 1 / (2 * ball(p)).sqrt()

        def integrand(t, analytic):
            e = (t * scale).erf()
            return (1 - e * e) ** p

        body = acb.integral(integrand, acb(0), acb(cutoff))
        if not (body.real.is_finite() and body.imag.contains(0)):
            raise NotCertified(f"p = {p}: the spacing integral did not converge")
        tail = _tail_bound(p, cutoff)
        if not tail.is_finite():
            raise NotCertified(f"p = {p}: the tail bound of the spacing integral is not finite")
        tail_upper = tail.upper()
        integral = body.real + tail_upper / 2 + arb(0, 1) * (tail_upper / 2)  # + [0, tail]
        factor = (_log_central_binomial(p) - p * ball(4).log()).exp() * 2 / ball(p).sqrt()
        spacing = factor * integral
        if not certainly_positive(spacing):
            raise NotCertified(f"p = {p}: E[S] is not certainly positive")
        return spacing


@memoized
def expected_spacing_upper_point(p: int, prec: int) -> fmpq:
    """An exact rational >= E[S] (S the middle spacing of 2p iid N(0, 1)): the upper end of
    :func:`expected_spacing_upper` (p, prec) rounded up to ``prec`` significant bits, memoised by (p, prec).

    Every bound that needs E[S] takes it from here (the dead region's Jensen bound, the purity tube's grid
    and Markov tails), so a dead certificate computes the integral once per precision, not four times.
    The rounding drops the last bits of the enclosure, which depend on Arb's cached constants
    (certify.kernel.state), so the point is the same in every process except with probability about
    2^-(2 bitlength(p) + 20) (the guard bits); it is an upper bound either way.

    >>> float(expected_spacing_upper_point(5, 64)) - 0.2453355045 < 1e-10
    True
    """
    p, work = _guarded(p, prec)
    spacing = expected_spacing_upper(p, prec)
    with working_precision(work):
        return -lower_endpoint(rounded_down(-spacing, prec))


def _log_phibar(x: arb) -> arb:
    """log Phibar(x) = log(erfc(x / sqrt 2) / 2) for a moderate x >= 0."""
    value = (x / ball(2).sqrt()).erfc()
    if not certainly_positive(value):
        raise NotCertified("Phibar(c_p E[S]) is not certainly positive")
    return value.log() - ball(2).log()


def dead_region_log_probability_lower(p: int, prec: int) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_dead | initially active), for every sigma > 0.

    By Jensen (Phibar convex on [0, inf)) and Phibar decreasing,

        log P >= log Phibar(c_p E[S]_hi) - log(C(2p, p) - 1),   c_p = sqrt(p / (2(p-1))),

    with E[S]_hi the point of :func:`expected_spacing_upper_point` (docs/mathematics.md, section 'Region
    probability of the dead theorem', (c)-(d)). The right side is enclosed with balls and its lower end
    returned, so the single point of the result is a proved lower bound.

    >>> x = dead_region_log_probability_lower(5, 64)
    >>> x.rad() == 0, -6.39 < float(x) < -6.38
    (True, True)
    """
    p, work = _guarded(p, prec)
    spacing_point = expected_spacing_upper_point(p, prec)
    with working_precision(work):
        spacing_hi = ball(spacing_point)  # exact: a dyadic of prec bits
        c_p = (ball(p) / (2 * ball(p - 1))).sqrt()
        bound = _log_phibar(c_p * spacing_hi) - _log_binomial_minus_one(_log_central_binomial(p))
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the dead-region bound is not finite")
        return bound.lower()


def dead_region_log10_probability_lower(p: int, prec: int) -> arb:
    """An exact ball (radius 0) <= log10 P(theta(0) in R_dead | initially active): the natural-log
    bound of :func:`dead_region_log_probability_lower` divided by log 10, rounded down.

    >>> -2.774 < float(dead_region_log10_probability_lower(5, 64)) < -2.7715
    True
    """
    p, work = _guarded(p, prec)
    log_lower = dead_region_log_probability_lower(p, prec)
    with working_precision(work):
        return (log_lower / ball(10).log()).lower()


# ---------------------------------------------------------------------------------------------
# One-gate regions with a threshold: the lower Riemann-Stieltjes sum over bins of S
# (docs/mathematics.md, section 'Region probability of the dead theorem', (e)-(k); "docs, (g)" below
# is its paragraph (g)).

#: Bins of S in the lower sum; the relative slack of the sum falls like ~1/bins (docs, (h)).
DEFAULT_BINS = 64
#: Nodes of the x-integral, in xi = sqrt(p) x, the same for every p (the integrand is a peak of fixed
#: shape in xi, ~ exp(-2 xi^2/pi)): cells of width 1/8 on [-7/2, 7/2] (where the mass is), 1/4 out to +-6.
_NODE_CORE, _CORE_STEP = fmpq(7, 2), fmpq(1, 8)
_NODE_END, _TAIL_STEP = 6, fmpq(1, 4)
# Every bin integrand g has -2 <= (log g)'' <= 0 in xi (docs, (g)): the chord rule keeps at least
# exp(-step^2/4) of each cell, 99.6% at step 1/8 and 98.4% at 1/4.
#: The grid search evaluates z_upper at this precision (floats choose the grid, balls prove the bound).
_GRID_PREC = 53


def _positive_rational(name: str, value) -> fmpq:
    """``value`` as an exact fmpq > 0, else InputError (wrong type) or HypothesisError (not > 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, fmpz, fmpq)):
        raise InputError(f"{name} must be an exact rational (int or fmpq), got {value!r}")
    value = fmpq(value)
    if not value > 0:
        raise HypothesisError(f"{name} > 0 fails: {name} = {value}")
    return value


def _nonnegative_rational(name: str, value) -> fmpq:
    if isinstance(value, bool) or not isinstance(value, (int, fmpz, fmpq)):
        raise InputError(f"{name} must be an exact rational (int or fmpq), got {value!r}")
    value = fmpq(value)
    if value < 0:
        raise InputError(f"{name} >= 0 fails: {name} = {value}")
    return value


def _require_bins(bins) -> int:
    if isinstance(bins, bool) or not isinstance(bins, int) or not 1 <= bins <= 4096:
        raise InputError(f"the number of bins must be an integer in [1, 4096], got {bins!r}")
    return bins


def _scaled_nodes() -> list[fmpq]:
    """The dyadic nodes -6 < ... < 6 of the chord rule (see _NODE_CORE)."""
    tail = [fmpq(-_NODE_END) + k * _TAIL_STEP for k in range(int((_NODE_END - _NODE_CORE) / _TAIL_STEP))]
    core = [-_NODE_CORE + k * _CORE_STEP for k in range(int(2 * _NODE_CORE / _CORE_STEP) + 1)]
    return tail + core + [-x for x in reversed(tail)]


def _edge_guard_bits(edges: list[fmpq]) -> int:
    """Bits lost to cancellation in log Phibar(x + b) - log Phibar(x + a) for the narrowest bin b - a."""
    narrowest = min(b - a for a, b in zip(edges, edges[1:]))
    return max(0, int(fmpz(narrowest.q).bit_length()) - int(fmpz(narrowest.p).bit_length())) + 8


def _bin_probabilities_lower(p: int, edges: list[fmpq]) -> list[arb]:
    """Exact balls P_i <= P(e_{i-1} < S <= e_i) for consecutive ``edges`` e_0 < e_1 < ..., at the current
    precision (the caller sets it).

    P(a < S <= b) = kappa int_R g(xi) dxi, kappa = 2 sqrt(p) C(2p,p) 4^-p, x = xi/sqrt(p),
    g = E2(x)^(p-1) phi(x) E1(x+a)^p (1 - (E1(x+b)/E1(x+a))^p), E1(y) = erfc(y/sqrt 2) = 2 Phibar(y),
    E2(x) = erfc(-x/sqrt 2) = 2 Phi(x). g is positive and log-concave, so on every cell [c, c + d] of
    the node grid int g >= d LM(g(c), g(c + d)) >= d sqrt(g(c) g(c + d)) (1 + y^2/24),
    y = log g(c) - log g(c + d) (chord of the concave log g; LM the logarithmic mean), and the
    integral over R is at least the sum over the cells of [-6, 6]. A node whose log g is not a finite
    ball contributes 0 to its two cells (still a lower bound).
    """
    # x / sqrt 2 = xi * scale: one multiplication per node, and every erfc argument is y + e_j / sqrt 2
    scale = 1 / (ball(p).sqrt() * ball(2).sqrt())
    log_root_2pi = (2 * arb.pi()).sqrt().log()
    shifts = [ball(e) / ball(2).sqrt() for e in edges]
    bins = len(edges) - 1
    # per bin, the chord sums of the cells of each width (1/8, 1/4), multiplied by their width once at the end
    sums: dict = {}
    previous, previous_xi = None, None
    for xi in _scaled_nodes():
        y = ball(xi) * scale
        left = (p - 1) * (-y).erfc().log() - y * y - log_root_2pi  # log(E2^(p-1) phi), x^2/2 = y^2
        powers = [(y + shift).erfc().log() * p for shift in shifts]  # p log E1(x + e_j)
        row = []
        append = row.append
        below = powers[0]
        for above in powers[1:]:
            gap = -(above - below).expm1()  # 1 - (E1(x + e_i)/E1(x + e_{i-1}))^p
            value = (left + below + gap.log()).lower() if gap > 0 else None
            append(value if value is not None and value.is_finite() else None)
            below = above
        if previous is not None:
            width = xi - previous_xi
            column = sums.setdefault(width, [arb(0)] * bins)
            for i, (a, b) in enumerate(zip(previous, row)):
                if a is not None and b is not None:
                    d = a - b
                    column[i] += ((a + b) / 2).exp() * (d * d / 24 + 1)
        previous, previous_xi = row, xi
    log_factor = ball(2).log() + ball(p).log() / 2 + _log_central_binomial(p) - p * ball(4).log()
    factor = log_factor.exp()
    totals = [sum((ball(width) * column[i] for width, column in sums.items()), arb(0)) for i in range(bins)]
    return [(factor * total).lower() for total in totals]


def spacing_bin_probability_lower(p: int, a, b, prec: int) -> arb:
    """An exact ball (radius 0) <= P(a < S <= b), S = X_(p+1) - X_(p) the middle spacing of 2p iid N(0, 1).

    ``a`` < ``b`` are exact rationals (int or fmpq), a >= 0. From the joint density
    K Phi(x)^(p-1) phi(x) phi(y) (1 - Phi(y))^(p-1), x < y, K = (2p)!/((p-1)!)^2, of (X_(p), X_(p+1)),

        P(a < S <= b) = p C(2p,p) int_R Phi(x)^(p-1) phi(x) [(1 - Phi(x+a))^p - (1 - Phi(x+b))^p] dx,

    a positive, log-concave integrand, integrated from below by the chord rule on the cells of
    [-6, 6] in xi = sqrt(p) x (docs/mathematics.md, section 'Region probability of the dead theorem',
    (e) and (g)); the dropped tails and the chord only lower it. Raises NotCertified if the bound is
    not certainly positive.

    >>> x = spacing_bin_probability_lower(5, 0, fmpq(1, 4), 64)
    >>> x.rad() == 0, 0.621 < float(x) < 0.6230  # P(S <= 1/4) = 0.62292 (quadrature)
    (True, True)
    """
    p, work = _guarded(p, prec)
    a, b = _nonnegative_rational("a", a), _nonnegative_rational("b", b)
    if not a < b:
        raise InputError(f"a < b fails: a = {a}, b = {b}")
    with working_precision(work + _edge_guard_bits([a, b])):
        (probability,) = _bin_probabilities_lower(p, [a, b])
        if not certainly_positive(probability):
            raise NotCertified(f"p = {p}: the lower bound of P({a} < S <= {b}) is not certainly positive")
        return probability


def _grid_float(value, what: str) -> float:
    if not (isinstance(value, arb) and value.is_finite()):
        raise NotCertified(f"{what} is not a finite ball")
    return float(value.mid())


def _phibar_drop(z_low: float, z_high: float) -> float:
    """Phibar(z_low) - Phibar(z_high) >= 0 in floats, without the cancellation of 1/2 - tiny near 0."""
    if z_high <= z_low:
        return 0.0
    if z_high < 1:
        return (math.erf(z_high / math.sqrt(2)) - math.erf(z_low / math.sqrt(2))) / 2
    return (math.erfc(z_low / math.sqrt(2)) - math.erfc(z_high / math.sqrt(2))) / 2


def one_gate_region_grid(p: int, z_upper, bins: int = DEFAULT_BINS) -> list[fmpq]:
    """The grid 0 < t_1 < ... < t_m (exact dyadic rationals, m <= ``bins``) of the lower sum of
    :func:`one_gate_region_log_probability_lower`, chosen by floats (docs, (h)).

    Deterministic: the same p, z_upper and bins give the same grid, at any ambient precision.
    z_upper is evaluated at 53 bits and only its midpoints are used; the grid affects how tight
    the bound is, never whether it holds. The model is S ~ Exp(mean E[S]) with
    p E[S] ~ sqrt(pi/2)(1 + (pi/8 - 1/2)/p), psi(t) = Phibar(z(t)). The scale of psi is where z
    crosses 1 (bisection on log2 t over [2^-900, 64] E[S]); a geometric pre-grid (ratio 2^(1/4))
    runs from 1/64 of the smaller of the two scales up to where psi(t) P(S > t) is 2^-12 of the sum
    so far (or 200 E[S]); the points then equidistribute c(t) = sum sqrt(Delta F Delta psi) over it
    (the first-order error of a lower sum is sum Delta F Delta psi), the last point being the end of
    the pre-grid; each is rounded to 12 significant bits.
    """
    p = require_prime(p)
    bins = _require_bins(bins)
    with working_precision(_GRID_PREC):
        def z(t: float) -> float:
            exact = fmpq(*float(t).as_integer_ratio())
            return max(0.0, _grid_float(z_upper(exact), f"z_upper({exact})"))

        mean = math.sqrt(math.pi / 2) / p * (1 + (math.pi / 8 - 0.5) / p)
        rate = 1 / mean
        cdf = lambda t: -math.expm1(-rate * t)  # noqa: E731
        # the scale of psi: z(scale) ~ 1; mean if z >= 1 all the way down (psi(0+) < 1/2, no finer scale)
        low, high = -900, 6  # exponents of 2, relative to mean
        if z(mean * 2.0 ** high) < 1:
            scale = mean * 2.0 ** high
        elif z(mean * 2.0 ** low) >= 1:
            scale = mean
        else:
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if z(mean * 2.0 ** middle) < 1 else (low, middle)
            scale = mean * 2.0 ** high
        points, cdfs, zs = [0.0], [0.0], []
        t = min(mean, scale) / 64
        estimate = 0.0
        while True:
            f, zt = cdf(t), z(t)
            points.append(t)
            cdfs.append(f)
            zs.append(zt)
            q = math.erfc(zt / math.sqrt(2)) / 2
            estimate += (f - cdfs[-2]) * q
            if t >= 200 * mean or (estimate > 0 and q * (1 - f) <= 2.0 ** -12 * estimate):
                break
            t *= 2.0 ** 0.25
        zs.insert(0, zs[0])  # psi(0+) ~ psi(t_1): t_1 lies far below both scales (z_upper needs t > 0)
        cumulative = [0.0]
        for k in range(1, len(points)):
            drop = _phibar_drop(zs[k - 1], zs[k])
            cumulative.append(cumulative[-1] + math.sqrt((cdfs[k] - cdfs[k - 1]) * drop))
        total = cumulative[-1]
        chosen = []
        k = 1
        for i in range(1, bins):
            target = total * i / bins
            while k < len(points) - 1 and cumulative[k] < target:
                k += 1
            below, above = cumulative[k - 1], cumulative[k]
            share = 0.0 if above <= below else min(1.0, max(0.0, (target - below) / (above - below)))
            chosen.append(points[k - 1] + share * (points[k] - points[k - 1]))
        chosen.append(points[-1])
    return sorted({_dyadic(t) for t in chosen if t > 0})


def _dyadic(t: float) -> fmpq:
    """t rounded to 12 significant bits, as an exact fmpq."""
    mantissa, exponent = math.frexp(t)
    numerator, shift = round(mantissa * 2**12), exponent - 12
    return fmpq(numerator * 2**shift) if shift >= 0 else fmpq(numerator, 2**-shift)


def one_gate_region_log_probability_lower(p: int, z_upper, prec: int, bins: int = DEFAULT_BINS) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R | initially active) for a one-gate region R with
    a threshold, under theta(0) ~ N(0, sigma^2 I_{3p}).

    R: exactly one active gate (a*, b*), s = u(a*) + v(b*) > 0, y = a* + b* mod p and
    gamma_y = mu(w) - w(y) > theta(s), for a function theta >= 0 nondecreasing on (0, inf). Given one
    active gate, s = sigma S and gamma_y = sigma tau_p Z, tau_p = sqrt((p-1)/p), Z ~ N(0, 1)
    independent of S (docs/mathematics.md, section 'Region probability of the dead theorem', (a)-(b)),
    so with psi(t) = Phibar(z(t)), z(t) = theta(sigma t)/(sigma tau_p),

        P(R | active) = E[psi(S)] / (C(2p,p) - 1) >= sum_i Phibar(z_hi(t_i)) P_i / (C(2p,p) - 1)

    over the bins (t_{i-1}, t_i] of :func:`one_gate_region_grid` (t_0 = 0; psi decreases; S > t_m
    dropped), with P_i <= P(t_{i-1} < S <= t_i) from the chord rule of
    :func:`spacing_bin_probability_lower` (docs, (e)-(h)).

    The contract of ``z_upper``: called with an exact fmpq t > 0 (t in units of S, so s = sigma t), at
    the ambient Arb precision that this function sets, it returns an arb ball whose upper end is
    >= z(t) = theta(sigma t)/(sigma tau_p); it must be deterministic and finite. sigma enters only
    through it. The bound uses Phibar(max(0, upper end)) (theta >= 0), so a loose z_upper costs
    tightness only. Raises NotCertified if a value is not finite or the sum is not certainly positive.

    >>> c_p = lambda t: (ball(5) / 8).sqrt() * ball(t)  # the dead region at p = 5: z(t) = c_p t
    >>> x = one_gate_region_log_probability_lower(5, c_p, 64)
    >>> x.rad() == 0, -6.40 < float(x) < -6.38
    (True, True)
    """
    p, work = _guarded(p, prec)
    bins = _require_bins(bins)
    grid = one_gate_region_grid(p, z_upper, bins)
    edges = [fmpq(0)] + grid
    with working_precision(work + _edge_guard_bits(edges)):
        probabilities = _bin_probabilities_lower(p, edges)
        root_2 = ball(2).sqrt()
        total = arb(0)
        for t, probability in zip(grid, probabilities):
            z = z_upper(t)
            if not (isinstance(z, arb) and z.is_finite()):
                raise NotCertified(f"p = {p}: z_upper({t}) is not a finite ball")
            z_hi = z.upper()
            if not certainly_positive(z_hi):
                z_hi = arb(0)  # theta >= 0: z(t) >= 0, so 0 is an upper bound too
            tail = (z_hi / root_2).erfc().lower()  # 2 Phibar(z_hi) >= tail >= 0
            if certainly_positive(tail):
                total += tail * probability / 2
        if not certainly_positive(total):
            raise NotCertified(f"p = {p}: the lower sum of the one-gate region probability is not certainly positive")
        bound = total.lower().log() - _log_binomial_minus_one(_log_central_binomial(p))
        if not bound.is_finite():
            raise NotCertified(f"p = {p}: the log of the one-gate region bound is not finite")
        return bound.lower()


def _inverse_tau(p: int) -> arb:
    """1/tau_p = sqrt(p/(p-1)): gamma_y = sigma tau_p Z."""
    return (ball(p) / ball(p - 1)).sqrt()


def dead_region_z_upper(p: int):
    """z_upper for R_dead ((A.58): theta(s) = s/sqrt 2): z(t) = c_p t, c_p = sqrt(p/(2(p-1))), for every sigma."""
    p = require_prime(p)

    def z_upper(t: fmpq) -> arb:
        return _inverse_tau(p) / ball(2).sqrt() * ball(t)

    return z_upper


def gd_region_z_upper(p: int, eta):
    """z_upper for R_gd ((A.71): theta(s) = p^2 s/(2 eta)): z(t) = p^2 t/(2 eta tau_p), for every sigma."""
    p = require_prime(p)
    eta = _positive_rational("eta", eta)

    def z_upper(t: fmpq) -> arb:
        return ball(fmpq(p * p) * t / (2 * eta)) * _inverse_tau(p)

    return z_upper


#: The precision at which the upper end of J(eps)'s ball is taken (rounded up): fixed, so that the bound does
#: not depend on the ambient precision (wider than any certificate's 512 bits).
_UPPER_END_PREC = 1024


def smooth_region_z_upper(p: int, sigma, eps_smooth, J_eps_upper: arb):
    """z_upper for R_smooth ((A.67): theta(s) = sqrt(J(s))): z(t) <= sqrt(J_hi(sigma t))/(sigma tau_p) with
    J_hi(s) = min(s^2/2, J(eps)_hi) for s <= eps and J(eps)_hi + (s^2 - eps^2)/2 for s > eps, J(eps)_hi
    the upper end of ``J_eps_upper`` (see :func:`smooth_region_log_probability_lower`)."""
    p = require_prime(p)
    sigma = _positive_rational("sigma", sigma)
    eps = _positive_rational("eps_smooth", eps_smooth)
    if not (isinstance(J_eps_upper, arb) and J_eps_upper.is_finite()):
        raise InputError(f"J_eps_upper must be a finite arb ball, got {J_eps_upper!r}")
    with working_precision(_UPPER_END_PREC):  # upper() rounds (up) at the ambient precision: fix it
        j_eps = J_eps_upper.upper()  # an exact point
    if not certainly_positive(j_eps):
        raise InputError(f"J(eps) > 0, so the upper end of J_eps_upper must be > 0, got {J_eps_upper}")

    def z_upper(t: fmpq) -> arb:
        s = sigma * t
        if s <= eps:
            half_square = ball(s * s / 2)
            # min(s^2/2, J(eps)_hi); where balls cannot order the two, their union's upper end is the max
            j = half_square if certainly_lt(half_square, j_eps) else j_eps if certainly_lt(j_eps, half_square) \
                else half_square.union(j_eps)
        else:
            j = j_eps + ball((s * s - eps * eps) / 2)  # sigma_eps is the identity on [eps, s]
        return j.sqrt() / ball(sigma) * _inverse_tau(p)

    return z_upper


def dead_region_binned_log_probability_lower(p: int, prec: int, bins: int = DEFAULT_BINS) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_dead | initially active) by the lower sum of
    :func:`one_gate_region_log_probability_lower` with theta(s) = s/sqrt 2 ((A.58)), z(t) = c_p t,
    c_p = sqrt(p/(2(p-1))); for every sigma > 0 (R_dead is a cone).

    The alternative to :func:`dead_region_log_probability_lower` (Jensen), which is tighter at every p
    measured (docs/mathematics.md, section 'Region probability of the dead theorem', (i)); kept for
    the comparison.

    >>> -6.40 < float(dead_region_binned_log_probability_lower(5, 64)) < -6.3816  # exact: -6.38161
    True
    """
    return one_gate_region_log_probability_lower(p, dead_region_z_upper(p), prec, bins)


def gd_region_log_probability_lower(p: int, eta, prec: int, bins: int = DEFAULT_BINS) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_gd | initially active), for every sigma > 0.

    R_gd (Theorem A.4 at a general point): exactly one active gate (a*, b*), s = u(a*) + v(b*) > 0
    and (A.71) s < 2 eta gamma_y/p^2, gamma_y = mu(w) - w(y), y = a* + b* mod p; on R_gd one step of
    full-batch gradient descent with step ``eta`` (exact, > 0) and ReLU'(0) = 0 makes every gate
    strictly negative ((A.70), (A.53)), and theta_n = theta_1 for n >= 1 (docs/mathematics.md,
    section 'Region probability of the dead theorem', (j)). The threshold is theta(s) = p^2 s/(2 eta),
    so z(t) = p^2 t/(2 eta tau_p) does not depend on sigma: (A.71) is homogeneous of degree 1 in
    theta(0), R_gd is a cone and its probability under N(0, sigma^2 I) is the same for every sigma
    (it depends on eta and p only).

    >>> -7.95 < float(gd_region_log_probability_lower(5, 1, 64)) < -7.916  # exact: -7.91614 (quadrature)
    True
    """
    return one_gate_region_log_probability_lower(p, gd_region_z_upper(p, eta), prec, bins)


def smooth_region_log_probability_lower(p: int, sigma, eps_smooth, J_eps_upper: arb, prec: int,
                                        bins: int = DEFAULT_BINS) -> arb:
    """An exact ball (radius 0) <= log P(theta(0) in R_smooth | initially active) under
    theta(0) ~ N(0, sigma^2 I_{3p}).

    R_smooth (Theorem A.3 at a general point): exactly one active gate (a*, b*), s > 0, g(0) =
    gamma_y > 0 and (A.67) gamma_y^2 > J(s), J(s) = int_0^s sigma_eps/sigma_eps' (A.66); on it the
    smooth gradient flow converges, s -> 0 ((A.62)-(A.69); docs/mathematics.md, section 'Region
    probability of the dead theorem', (k)). The threshold is theta(s) = sqrt(J(s)), bounded above
    without new integrals: J(s) <= min(s^2/2, J(eps)) for s <= eps ((A.61), J increasing) and
    J(s) = J(eps) + (s^2 - eps^2)/2 for s >= eps (sigma_eps is the identity there). ``J_eps_upper`` is
    an arb whose upper end is >= J(eps) for eps = ``eps_smooth`` (the caller passes
    ``certify.kernel.smooth.dead_zone_integral(eps, eps, prec)[1]``). sigma, eps_smooth > 0 exact. The
    region is not a cone: the bound depends on sigma/eps.

    >>> x = smooth_region_log_probability_lower(5, 1, 2, ball(2), 64)  # J(2) <= 2 = 2^2/2 (A.61)
    >>> -6.40 < float(x) < -6.38
    True
    """
    return one_gate_region_log_probability_lower(p, smooth_region_z_upper(p, sigma, eps_smooth, J_eps_upper),
                                                 prec, bins)


# ---------------------------------------------------------------------------------------------
# What the claims state: the bounds at REGION_PRECISION, rounded onto the 2^-REGION_LOG_BITS grid, memoised.


def stated_log_lower(log_lower: arb) -> arb:
    """The largest multiple of 2^-:data:`REGION_LOG_BITS` that is <= every point of the finite ball ``log_lower``,
    as an exact ball (exact rational arithmetic on its lower end): what a region claim states of a log bound.

    >>> x = stated_log_lower(arb(fmpq(-1, 3)))
    >>> x.rad() == 0, x.mid().fmpq() * 2**40, -fmpq(1, 3) - x.mid().fmpq() < fmpq(1, 2**40)
    (True, -366503875926, True)
    """
    if not log_lower.is_finite():
        raise NotCertified("a region bound is not a finite ball")
    scale = 2**REGION_LOG_BITS
    numerator = int((lower_endpoint(log_lower) * scale).floor())
    with working_precision(max(64, numerator.bit_length() + 8)):  # exact: the ball keeps its value later
        return ball(fmpq(numerator, scale))


@memoized
def dead_region_claim_log_lower(p: int) -> arb:
    """The point the ``region_probability`` claim of a dead certificate states: :func:`stated_log_lower` of
    :func:`dead_region_log_probability_lower` (p, :data:`REGION_PRECISION`), an exact ball <= log P(R_dead |
    active), the same for every certificate precision and memoised by p (certify.kernel.memo)."""
    return stated_log_lower(dead_region_log_probability_lower(p, REGION_PRECISION))


@memoized
def gd_region_claim_log_lower(p: int, eta) -> arb:
    """The point the ``region_probability`` claim of a gd certificate states: :func:`stated_log_lower` of
    :func:`gd_region_log_probability_lower` (p, eta, :data:`REGION_PRECISION`), memoised by (p, eta)."""
    return stated_log_lower(gd_region_log_probability_lower(p, eta, REGION_PRECISION))


@memoized
def smooth_region_claim_log_lower(p: int, sigma, eps_smooth, J_eps_upper: fmpq) -> arb:
    """The point the ``region_probability`` claim of a smooth certificate states: :func:`stated_log_lower` of
    :func:`smooth_region_log_probability_lower` at :data:`REGION_PRECISION`, with ``J_eps_upper`` an exact
    rational >= J(eps_smooth) (the caller's proved upper end of the dead-zone integral), memoised by all four."""
    if not isinstance(J_eps_upper, fmpq):
        raise InputError(f"J_eps_upper must be an exact fmpq, got {J_eps_upper!r}")
    with working_precision(max(64, int(J_eps_upper.p).bit_length(), int(J_eps_upper.q).bit_length()) + 8):
        upper = ball(J_eps_upper)  # exact when J_eps_upper is dyadic (an endpoint of a ball)
    return stated_log_lower(smooth_region_log_probability_lower(p, sigma, eps_smooth, upper, REGION_PRECISION))
