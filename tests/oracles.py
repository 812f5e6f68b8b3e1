"""Independent oracles for the tests: exact cyclotomic arithmetic, mpmath ODEs and quadrature.

Nothing here imports certify: these are the second routes the kernel is compared with.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath


def class_energy_cyclotomic(x, p: int, zeta: int) -> list[Fraction]:
    """||Pi_zeta x||^2 for rational x, exactly, as coefficients in the basis 1, w, ..., w^(p-2) of Q(w).

    Pi_zeta has entries (1/p)(w^(zeta(a-b)) + w^(-zeta(a-b))), w = exp(2 pi i/p); powers are
    reduced with w^(p-1) = -(1 + w + ... + w^(p-2)) (the cyclotomic polynomial). A rational
    energy shows up as a vector whose only non-zero entry is the first.
    """
    power = [Fraction(0)] * p
    for a in range(p):
        for b in range(p):
            term = Fraction(x[a]) * Fraction(x[b]) / p
            power[(zeta * (a - b)) % p] += term
            power[(-zeta * (a - b)) % p] += term
    reduced = power[: p - 1]
    for k in range(p - 1):
        reduced[k] -= power[p - 1]
    return reduced


def centred(x):
    mean = sum(Fraction(v) for v in x) / len(x)
    return [Fraction(v) - mean for v in x]


@lru_cache(maxsize=None)
def hitting_time_ode(p: int, eps: Fraction, A: Fraction, dps: int = 50):
    """T and the terminal (a, b, -ds/dt) from the ODEs (2.2)-(2.4) integrated by mpmath.odefun.

    Independent of the closed form used by the kernel: g = b - a comes from integrating
    (2.3)-(2.4), not from the conserved quantity (2.6). The independent variable is
    sigma = eps - s (s decreases), with dt/dsigma = -1/(ds/dt).
    """
    with mpmath.workdps(dps):
        eps_m = mpmath.mpf(eps.numerator) / eps.denominator
        A_m = mpmath.mpf(A.numerator) / A.denominator

        def one_minus_pi0(s, g):
            e = mpmath.exp(s * g)
            return (p - 1) * e / (1 + (p - 1) * e)

        def field(sigma, y):
            _, a, b = y
            s, g = eps_m - sigma, b - a
            return [p**2 / (2 * one_minus_pi0(s, g) * g), s / (2 * g), -s / (2 * g * (p - 1))]

        solution = mpmath.odefun(field, 0, [mpmath.mpf(0), -A_m, mpmath.mpf(0)])
        T, a, b = solution(eps_m)
        margin = 2 * one_minus_pi0(mpmath.mpf(0), b - a) * (b - a) / p**2
        return T, a, b, margin


def gaussian_coordinate_mass(m: Fraction, r: Fraction, dps: int = 50):
    """P(|X - m| <= r), X ~ N(0,1), by mpmath quadrature of the density (not erf/erfc).

    Far in the tail (|m| - r = a > 1) the density falls by e^(-a) per unit, which
    defeats plain quadrature; there we integrate phi(a)/a * int_0^(a(b-a)) e^(-v - v^2/(2a^2)) dv
    (t = a + v/a) on dyadic pieces.
    """
    with mpmath.workdps(dps + 10):
        m_m = abs(mpmath.mpf(m.numerator) / m.denominator)
        r_m = mpmath.mpf(r.numerator) / r.denominator
        a, b = m_m - r_m, m_m + r_m
        density = lambda t: mpmath.exp(-t * t / 2) / mpmath.sqrt(2 * mpmath.pi)
        if a <= 1:
            return mpmath.quad(density, mpmath.linspace(a, b, 9))
        top, cuts, x = a * (b - a), [mpmath.mpf(0)], mpmath.mpf(1)
        while x < top:
            cuts.append(x)
            x *= 2
        cuts.append(top)
        return density(a) / a * mpmath.quad(lambda v: mpmath.exp(-v - v * v / (2 * a * a)), cuts)


@lru_cache(maxsize=None)
def capture_time_ode(p: int, gamma_star: Fraction, X: Fraction, dps: int = 30):
    """log of the capture time at the slide base point, and d(6X), by mpmath (independent of the closed form).

    d(x) comes from integrating d d/dx = p x/(2(p-1) d) (the symmetric-point reduction of
    (A.24) and (A.30)) with mpmath.odefun from d(2X) = 2 p gamma_*, not from the invariant;
    the time is the quadrature of dt/dx = p^2 (e^{x d} + p - 1)/(2 (p-1) d) with e^{M},
    M = 6X d(6X), factored out, on pieces that shrink towards x = 6X where the mass sits.
    30 digits by default: mpmath.odefun needs ~1 s at 30 digits and ~10 s at 50.
    """
    with mpmath.workdps(dps):
        g = mpmath.mpf(gamma_star.numerator) / gamma_star.denominator
        x0 = 2 * mpmath.mpf(X.numerator) / X.denominator
        x1 = 3 * x0
        d = mpmath.odefun(lambda x, d: p * x / (2 * (p - 1) * d), x0, 2 * p * g)
        M = x1 * d(x1)
        rate = lambda x: (mpmath.exp(x * d(x) - M) + (p - 1) * mpmath.exp(-M)) / d(x)
        width = 1 / (d(x1) + x1)  # the integrand falls by e per this much below 6X
        cuts = [x1 - width * 2**k for k in range(40, -1, -1) if width * 2**k < x1 - x0]
        integral = mpmath.quad(rate, [x0] + cuts + [x1], method="gauss-legendre")
        log_time = mpmath.log(mpmath.mpf(p) ** 2 / (2 * (p - 1))) + M + mpmath.log(integral)
        return log_time, d(x1)


def spacing_tail(p: int, s) -> mpmath.mpf:
    """P(S > s), S = X_(p+1) - X_(p) the middle spacing of 2p iid N(0, 1): p C(2p, p) int_R Phi^(p-1) phi Phibar(x + s)^p
    dx by mpmath's quadrature at the ambient precision, with breaks around the integrand's peak at -s/2 (width about
    1/sqrt p). ``s`` is an mpf (or anything mpmath takes)."""
    s = mpmath.mpf(s)
    integrand = lambda x: mpmath.ncdf(x) ** (p - 1) * mpmath.npdf(x) * mpmath.ncdf(-x - s) ** p  # noqa: E731
    c, w = -s / 2, 12 / mpmath.sqrt(p)
    return p * mpmath.binomial(2 * p, p) * mpmath.quad(integrand, [-mpmath.inf, c - w, c - w / 3, c, c + w / 3,
                                                                   c + w, mpmath.inf])
