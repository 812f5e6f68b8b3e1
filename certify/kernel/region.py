"""Probability of the whole dead region R_dead of Theorem A.2, conditioned on initial activity.

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

Everything is computed in log form, with C(2p, p) through log-gamma, and the integral in the
variable t = sqrt(p) x, where the integrand is a peak of fixed width: a call costs about the same
for p = 5 and p = 10^18. Each function takes the precision ``prec`` (bits) it computes at (a few
guard bits more are added internally) and raises NotCertified rather than return an unproved value.
"""

from __future__ import annotations

import math

from flint import acb, arb

from ..errors import InputError, NotCertified
from .balls import ball, certainly_positive, working_precision
from .primes import require_prime

__all__ = [
    "log_central_binomial", "log_one_active_gate_probability", "expected_spacing_upper",
    "spacing_integral_tail_bound", "dead_region_log_probability_lower", "dead_region_log10_probability_lower",
]


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

    with E[S]_hi the upper end of :func:`expected_spacing_upper` (docs/mathematics.md, section 'Region
    probability of the dead theorem', (c)-(d)). The right side is enclosed with balls and its lower end
    returned, so the single point of the result is a proved lower bound.

    >>> x = dead_region_log_probability_lower(5, 64)
    >>> x.rad() == 0, -6.39 < float(x) < -6.38
    (True, True)
    """
    p, work = _guarded(p, prec)
    spacing_hi = expected_spacing_upper(p, prec).upper()
    with working_precision(work):
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
