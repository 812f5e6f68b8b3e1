"""certify.kernel.sensitivity against an independent route: mpmath's ODE solver on the reduced flow (2.2)-(2.4)
at 30 digits, with the event located by root finding, and central finite differences in y0 = (s0, a0, b0).

The oracle knows nothing of (2.6), the s-clock or the kernel's formulas: it integrates the field in t,
finds T(y0) as the root of s(t), reads Psi(y0) = y(T(y0)) and phi_{T*}(y0) (the field continued past s = 0),
and differentiates numerically. Finite differences with step h at 30 digits: truncation ~ h^2 |third
derivative| (the derivatives are O(1)-O(p^2), so <= ~1e-12 at h = 1e-7 for p = 5) plus rounding ~ 1e-30 / h;
a relative tolerance of 1e-9 is a wide margin over both.
"""

from __future__ import annotations

import mpmath
import pytest
from flint import fmpq

from certify.errors import HypothesisError
from certify.kernel import sensitivity as ks
from certify.kernel.balls import working_precision

DPS = 30
H = mpmath.mpf("1e-7")
COORDS = ks.COORDINATES


def _field(p):
    def f(t, y):
        s, a, b = y
        g = b - a
        one_minus_pi = 1 - 1 / (1 + (p - 1) * mpmath.exp(s * g))
        return [-2 * one_minus_pi * g / p**2, s * one_minus_pi / p**2, -s * one_minus_pi / (p**2 * (p - 1))]
    return f


def _solve(p, y0):
    """(T, Psi, flow) from y0: T the root of s(t), Psi = y(T), flow(t) the solution (continued past T)."""
    flow = mpmath.odefun(_field(p), 0, list(y0))
    # a first guess from the linearised speed, then the root of s(t)
    s0, a0, b0 = y0
    guess = s0 * p**2 / (2 * (b0 - a0) * (p - 1) / p)
    T = mpmath.findroot(lambda t: flow(t)[0], guess)
    return T, flow(T), flow


def _oracle(p, eps, A):
    with mpmath.workdps(DPS):
        y0 = [mpmath.mpf(eps), -mpmath.mpf(A), mpmath.mpf(0)]
        T_star, _, _ = _solve(p, y0)
        grad, psi_d, jreg = {}, {}, {}
        for j, coord in enumerate(COORDS):
            plus, minus = list(y0), list(y0)
            plus[j] += H
            minus[j] -= H
            Tp, Pp, fp = _solve(p, plus)
            Tm, Pm, fm = _solve(p, minus)
            grad[coord] = (Tp - Tm) / (2 * H)
            Fp, Fm = fp(T_star), fm(T_star)
            for i, row in enumerate(COORDS):
                psi_d[f"{row}_{coord}"] = (Pp[i] - Pm[i]) / (2 * H)
                jreg[f"{row}_{coord}"] = (Fp[i] - Fm[i]) / (2 * H)
        return grad, psi_d, jreg


def _contains(ball_or_exact, value, rel=mpmath.mpf("1e-9")):
    """value within rel (relative, or absolute below 1) of the ball's midpoint (or of the exact value): the
    oracle's own error (finite differences) is far larger than the balls' radii, so agreement to the
    oracle's accuracy is what can be tested; containment of exact values is tested in test_the_identities."""
    if isinstance(ball_or_exact, fmpq):
        mid = mpmath.mpf(int(ball_or_exact.p)) / int(ball_or_exact.q)
    else:
        mid = mpmath.mpf(ball_or_exact.mid().str(30, radius=False))
    return abs(mid - value) <= rel * max(1, abs(value))


@pytest.mark.parametrize("p, eps, A", [(5, 1, 2), (7, "1/2", 3)])
def test_against_the_mpmath_ode_with_finite_differences(p, eps, A):
    params = ks.SensitivityParameters(p, fmpq(eps) if isinstance(eps, int) else fmpq(*map(int, eps.split("/"))),
                                      fmpq(A), fmpq(1))
    grad, psi, jreg = _oracle(p, mpmath.mpf(fmpq_to_str(params.epsilon)), A)
    kg = ks.hitting_time_gradient_enclosure(params, 128)
    kpsi = ks.terminal_map_derivative_enclosure(params, 128)
    kj = ks.regional_derivative_enclosure(params, 128)
    for coord in COORDS:
        assert _contains(kg[coord], grad[coord]), (coord, kg[coord], grad[coord])
    for key in kpsi:
        assert _contains(kpsi[key], psi[key]), (key, kpsi[key], psi[key])
        assert _contains(kj[key], jreg[key]), (key, kj[key], jreg[key])
    # the gap, recomputed from the oracle's matrices: |Psi' - J_reg|_F
    gap = mpmath.sqrt(sum((psi[k] - jreg[k]) ** 2 for k in psi))
    assert _contains(ks.sensitivity_gap_enclosure(params, 128), gap)
    # the saltation identity on the oracle's matrices (computed independently of each other): S J_reg = Psi'
    S = ks.saltation_matrix(params)
    for i in COORDS:
        for j in COORDS:
            product = sum(mpmath.mpf(int(S[f"{i}_{k}"].p)) / int(S[f"{i}_{k}"].q) * jreg[f"{k}_{j}"] for k in COORDS)
            assert abs(product - psi[f"{i}_{j}"]) <= mpmath.mpf("1e-9") * max(1, abs(psi[f"{i}_{j}"]))
    # the event speed: the field's s component at the oracle's terminal state
    with mpmath.workdps(DPS):
        y0 = [mpmath.mpf(fmpq_to_str(params.epsilon)), -mpmath.mpf(A), mpmath.mpf(0)]
        _, end, _ = _solve(p, y0)
        speed = _field(p)(0, end)[0]
    assert _contains(ks.event_speed_enclosure(params, 128), speed)


def fmpq_to_str(x: fmpq) -> str:
    return f"{x.p}/{x.q}" if x.q != 1 else str(x.p)


@pytest.mark.parametrize("p", [5, 13, 101])
def test_the_identities(p):
    params = ks.SensitivityParameters(p, fmpq(1), fmpq(2), fmpq(1))
    psi = ks.terminal_map_derivative_enclosure(params, 128)
    assert all(psi[f"s_{j}"] == 0 for j in COORDS)  # the terminal map stays on the face s = 0
    S = ks.saltation_matrix(params)
    assert S == {f"{i}_{j}": fmpq(1 if i == j != "s" else 0) for i in COORDS for j in COORDS}
    grad = ks.hitting_time_gradient_enclosure(params, 128)
    assert (grad["a"] + grad["b"]).contains(0)  # T depends on (a0, b0) through g0 = b0 - a0 only
    speed = ks.event_speed_enclosure(params, 128)
    # (2.7) against the dead theorem's transversality margin, computed by kernel/dead.py
    from certify.kernel.dead import DeadParameters, transversality_margin_enclosure
    margin = transversality_margin_enclosure(DeadParameters(p, fmpq(1), fmpq(2), fmpq(1)), 128)
    assert (speed + margin).contains(0)
    with working_precision(128):
        gap = ks.sensitivity_gap_enclosure(params, 128)
        jreg = ks.regional_derivative_enclosure(params, 128)
        direct = sum(((jreg[k] - (psi[k] if not isinstance(psi[k], fmpq) else 0)) ** 2 for k in psi)).sqrt()
        assert (gap - direct).contains(0)
        assert gap.rad() < gap.mid().abs_lower() * 2**-100


def test_the_hitting_time_gradient_matches_the_dead_kernels_T():
    """dT/ds0 by a central difference of kernel/dead.py's hitting-time enclosure (another integral) at 256 bits."""
    from certify.kernel.dead import DeadParameters, hitting_time_enclosure
    p, h = 7, fmpq(1, 10**12)
    plus = hitting_time_enclosure(DeadParameters(p, 1 + h, fmpq(2), fmpq(1)), 256)
    minus = hitting_time_enclosure(DeadParameters(p, 1 - h, fmpq(2), fmpq(1)), 256)
    with working_precision(256):
        fd = (plus - minus) / (2 * h)
    grad = ks.hitting_time_gradient_enclosure(ks.SensitivityParameters(p, fmpq(1), fmpq(2), fmpq(1)), 256)
    # the truncation of the central difference is h^2 |T'''| / 6 <= 1e-24 x O(p^2)
    assert abs(float(fd.mid()) - float(grad["s"].mid())) <= 1e-9
    # (a0 enters through g0 = A - 0 with A = -a0: dT/da0 = -dT/dA)
    plus = hitting_time_enclosure(DeadParameters(p, fmpq(1), 2 + h, fmpq(1)), 256)
    minus = hitting_time_enclosure(DeadParameters(p, fmpq(1), 2 - h, fmpq(1)), 256)
    with working_precision(256):
        fd_A = (plus - minus) / (2 * h)
    assert abs(float(fd_A.mid()) + float(grad["a"].mid())) <= 1e-9


@pytest.mark.parametrize("values, message", [
    ((0, 2, 1), "epsilon > 0"),
    ((1, 2, "1/2"), "B > epsilon/2"),
    ((2, 1, 3), "Gamma"),
])
def test_broken_hypotheses_are_named(values, message):
    eps, A, B = (fmpq(*map(int, str(v).split("/"))) for v in values)
    with pytest.raises(HypothesisError, match=message.replace("(", r"\(")):
        ks.require_sensitivity_hypotheses(ks.SensitivityParameters(5, eps, A, B))


def test_radius_must_be_zero():
    from certify.errors import NotCertified

    with pytest.raises(NotCertified, match="radius must be 0"):
        ks.sensitivity_claims(ks.SensitivityParameters(5, fmpq(1), fmpq(2), fmpq(1)), fmpq(1, 100), 128)


def test_every_enclosure_is_at_the_working_precision_whatever_the_callers():
    """The kernel's balls come from the precision it is given, not the ambient one (python-flint rounds every
    operation, negation included, to the precision current when it runs)."""
    params = ks.SensitivityParameters(13, fmpq(1, 3), fmpq(7, 2), fmpq(1))
    grad = ks.hitting_time_gradient_enclosure(params, 512)  # called at the ambient 53 bits
    gap = ks.sensitivity_gap_enclosure(params, 512)
    jreg = ks.regional_derivative_enclosure(params, 512)
    for x in (grad["s"], grad["a"], grad["b"], gap, jreg["s_b"]):
        assert x.rad() < x.mid().abs_lower() * 2**-400
