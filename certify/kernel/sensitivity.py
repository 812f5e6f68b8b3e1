"""The death event's sensitivity (the second paper's rank-one gap) on Theorem 1.5's trajectory (section 2).

Reduced coordinates y = (s, a, b) = (u(0) + v(0), w(0), w(j)), j != 0, at the base point (2.1):
y0 = (epsilon, -A, 0), g = b - a, g0 = A. The field f is (2.2)-(2.4); the central gate's normal is
n = e_s. With c = p/(2(p-1)) and Gamma = g0^2 - c s0^2, the invariant (2.6) gives g(s) = sqrt(Gamma + c s^2)
along the flow, and s is a clock (ds/dt < 0). Everything below is an exact formula or one integral in s
(docs/mathematics.md, section 'Sensitivity of the death event'):

- hitting time (as in kernel/dead.py): T(y0) = (p^2/2) int_0^{s0} F(s) ds, F = (1 + e^{-s g}/(p-1)) / g,
  depending on (a0, b0) through g0 only;
- its gradient, differentiating under the integral (dGamma/ds0 = -2 c s0, dGamma/dg0 = 2 g0,
  dF/dGamma = -(1 + e^{-s g}(1 + s g)/(p-1)) / (2 g^3)):
      dT/ds0 = (p^2/2) (F(s0) + c s0 I),   dT/da0 = (p^2/2) g0 I = -dT/db0,
      I = int_0^{s0} (1 + e^{-s g}(1 + s g)/(p-1)) / g^3 ds   (one acb.integral);
- the event speed (2.7): ds/dt(T-) = -2(p-1) sqrt(Gamma)/p^3;
- the terminal map Psi(y0) = y(T(y0)) = (0, a0 + D/(2c), b0 - D/(2c(p-1))), D = g0 - sqrt(Gamma), from
  da/ds = -s/(2g), db/ds = s/(2(p-1)g): its derivative Psi' in closed form, s row exactly 0;
- the regional derivative J_reg = D phi_{T*}(y0) at the fixed base hitting time T* (the smooth field
  continued across s = 0): differentiating Psi(y0) = phi(T(y0), y0) gives Psi' = J_reg + f(y(T)) grad T^T,
  and f(y(T)) = (ds/dt(T-), 0, 0) (da/dt, db/dt carry a factor s), so J_reg = Psi' except its s row,
  which is -ds/dt(T-) grad T^T;
- the saltation matrix S = I - f n^T/(n^T f) = I - e_s e_s^T exactly, and S J_reg = Psi' (by the derivation:
  J_reg is computed as Psi' with its s row replaced, so no separate check of the identity is possible here;
  the tests check it against an independent ODE route);
- the gap Psi' - J_reg = f grad T^T = e_s (ds/dt(T-) grad T)^T: rank exactly one when ds/dt(T-) != 0 and
  grad T != 0, Frobenius norm |ds/dt(T-)| |grad T|_2.

Every function takes the precision it computes at and raises NotCertified rather than return a bound it
could not prove.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import acb, arb, fmpq

from ..errors import HypothesisError, NotCertified
from .balls import ball, certainly_negative, certainly_positive, working_precision
from .basepoint import BasePoint
from .claims import ENCLOSURE, EXACT, POSITIVE_ENCLOSURE, Claim, ClaimSpec, Component, Relation
from .exact import format_rational
from .family import family_base_point

PAPER = ("Section 2 of the paper (Theorem 1.5): base point (2.1), flow (2.2)-(2.4), conserved quantity (2.6), "
         "transversal event (2.7); the rank-one gap between the regional propagator and the terminal-map "
         "derivative (event sensitivity, arXiv:2608.30960)")

#: The reduced coordinates, in the order of the matrices' rows and columns.
COORDINATES = ("s", "a", "b")


@dataclass(frozen=True)
class SensitivityParameters:
    """The construction's constants: prime p and exact rationals epsilon, A, B of (2.1)."""

    p: int
    epsilon: fmpq
    A: fmpq
    B: fmpq

    @property
    def c(self) -> fmpq:
        """c = p / (2(p-1)), the coefficient of s^2 in (2.6)."""
        return fmpq(self.p, 2 * (self.p - 1))

    @property
    def Gamma(self) -> fmpq:
        """Gamma = A^2 - p epsilon^2 / (2(p-1)), the conserved value of (2.6) at the base point."""
        return self.A**2 - self.c * self.epsilon**2


def require_sensitivity_hypotheses(params: SensitivityParameters) -> None:
    """Raise HypothesisError naming the first inequality the parameters break (exact).

    Requires epsilon, A, B > 0, B > epsilon/2 (section 2: only the central gate is active, the cross gates
    epsilon/2 - B are negative, so the reduction to (s, a, b) holds) and Gamma = A^2 - p epsilon^2/(2(p-1)) > 0
    (section 2: g >= sqrt(Gamma) > 0, so s reaches 0 transversally, (2.7))."""
    for name in ("epsilon", "A", "B"):
        value = getattr(params, name)
        if not value > 0:
            raise HypothesisError(f"{name} > 0 fails: {format_rational(value)} <= 0")
    if not params.B > params.epsilon / 2:
        raise HypothesisError(f"B > epsilon/2 (section 2: cross gates epsilon/2 - B < 0) fails: "
                              f"{format_rational(params.B)} <= {format_rational(params.epsilon / 2)}")
    if not params.Gamma > 0:
        raise HypothesisError(f"Gamma = A^2 - p epsilon^2/(2(p-1)) > 0 (section 2, (2.6)-(2.7)) fails: "
                              f"Gamma = {format_rational(params.Gamma)}")


def sensitivity_base_point(params: SensitivityParameters) -> BasePoint:
    """The base point (2.1) as exact two-level blocks (the same as the dead theorem's)."""
    return family_base_point(params.epsilon, params.A, params.B)


def _integrand_I(params: SensitivityParameters):
    """(1 + e^{-s g}(1 + s g)/(p-1)) / g^3, g = sqrt(Gamma + c s^2), for acb.integral (analytic flag forwarded to
    sqrt, whose branch points +-i sqrt(Gamma/c) lie off the path [0, epsilon])."""
    p = params.p

    def integrand(s, analytic):
        g = (acb(ball(params.Gamma)) + acb(ball(params.c)) * s * s).sqrt(analytic=analytic)
        sg = s * g
        return (1 + (-sg).exp() * (1 + sg) / (p - 1)) / (g * g * g)

    return integrand


def hitting_time_gradient_enclosure(params: SensitivityParameters, prec: int) -> dict[str, arb]:
    """Balls enclosing dT/ds0, dT/da0, dT/db0 at the base point (keys s, a, b).

    T = (p^2/2) int_0^{s0} F(s) ds (section 2, (2.2) with (2.6)); differentiating under the integral sign
    (the integrand is smooth in (s, Gamma) for Gamma > 0) gives the module docstring's formulas with one
    rigorous ``acb.integral`` I. Requires the hypotheses."""
    require_sensitivity_hypotheses(params)
    p = params.p
    with working_precision(prec):
        integral = acb.integral(_integrand_I(params), acb(0), acb(ball(params.epsilon)))
        if not (integral.real.is_finite() and integral.imag.contains(0)):
            raise NotCertified("the integral I of the hitting-time gradient did not converge to a finite real ball",
                               "hitting_time_gradient")
        I = integral.real
        s0, g0 = ball(params.epsilon), ball(params.A)
        half_p2 = ball(fmpq(p * p, 2))
        F_s0 = (1 + (-s0 * g0).exp() / (p - 1)) / g0  # g(s0) = g0 by (2.6)
        dT_ds0 = half_p2 * (F_s0 + ball(params.c) * s0 * I)
        dT_da0 = half_p2 * g0 * I
        dT_db0 = -dT_da0  # inside the block: negation rounds to the working precision
    if not (certainly_positive(dT_ds0) and certainly_positive(dT_da0)):
        raise NotCertified("the hitting-time gradient is not certainly nonzero", "hitting_time_gradient")
    return {"s": dT_ds0, "a": dT_da0, "b": dT_db0}


def event_speed_enclosure(params: SensitivityParameters, prec: int) -> arb:
    """Encloses ds/dt(T-) = -(2/p^2)(1 - 1/p) sqrt(Gamma) = -2(p-1) sqrt(Gamma)/p^3 ((2.7): at s = 0, pi_0 = 1/p
    and g = sqrt(Gamma) by (2.6)); certainly negative. Requires the hypotheses."""
    require_sensitivity_hypotheses(params)
    p = params.p
    with working_precision(prec):
        speed = -ball(fmpq(2 * (p - 1), p**3)) * ball(params.Gamma).sqrt()
    if not certainly_negative(speed):
        raise NotCertified("the event speed is not certainly negative", "event_speed")
    return speed


def terminal_map_derivative_enclosure(params: SensitivityParameters, prec: int) -> dict[str, arb | fmpq]:
    """Psi'(y0), Psi(y0) = y(T(y0)), by entries ``i_j`` = d Psi_i / d j0 (i, j in s, a, b); the s row exactly 0.

    Psi = (0, a0 + D/(2c), b0 - D/(2c(p-1))), D = g0 - sqrt(Gamma), Gamma = g0^2 - c s0^2, g0 = b0 - a0
    (integrating da/ds = -s/(2g), db/ds = s/(2(p-1)g) from s0 to 0 with g = sqrt(Gamma + c s^2)); so with
    r = sqrt(Gamma), dD/ds0 = c s0/r and dD/dg0 = 1 - g0/r. Requires the hypotheses."""
    require_sensitivity_hypotheses(params)
    p = params.p
    with working_precision(prec):
        r = ball(params.Gamma).sqrt()
        s0, g0 = ball(params.epsilon), ball(params.A)
        two_c = ball(2 * params.c)
        dD_ds0 = ball(params.c) * s0 / r
        dD_dg0 = 1 - g0 / r
        q = ball(p - 1)
        out: dict[str, arb | fmpq] = {f"s_{j}": fmpq(0) for j in COORDINATES}
        out.update({
            "a_s": dD_ds0 / two_c, "a_a": 1 - dD_dg0 / two_c, "a_b": dD_dg0 / two_c,
            "b_s": -dD_ds0 / (two_c * q), "b_a": dD_dg0 / (two_c * q), "b_b": 1 - dD_dg0 / (two_c * q),
        })
    return out


def regional_derivative_enclosure(params: SensitivityParameters, prec: int) -> dict[str, arb | fmpq]:
    """J_reg = D phi_{T*}(y0) by entries ``i_j``: Psi' with its s row replaced by -ds/dt(T-) grad T^T
    (module docstring: Psi' = J_reg + f(y(T)) grad T^T, f(y(T)) = (ds/dt(T-), 0, 0)). Requires the hypotheses."""
    return _regional(terminal_map_derivative_enclosure(params, prec), hitting_time_gradient_enclosure(params, prec),
                     event_speed_enclosure(params, prec), prec)


def _regional(psi: dict, grad: dict, speed: arb, prec: int) -> dict[str, arb | fmpq]:
    """J_reg from Psi', grad T and ds/dt(T-): Psi' with its s row replaced by -ds/dt(T-) grad T^T."""
    with working_precision(prec):
        out = dict(psi)
        for j in COORDINATES:
            out[f"s_{j}"] = -speed * grad[j]
    return out


def saltation_matrix(params: SensitivityParameters) -> dict[str, fmpq]:
    """S = I - f n^T/(n^T f) by entries, exactly: f(y(T)) = (ds/dt(T-), 0, 0) and n = e_s, so S = I - e_s e_s^T."""
    return {f"{i}_{j}": fmpq(1 if (i == j and i != "s") else 0) for i in COORDINATES for j in COORDINATES}


def sensitivity_gap_enclosure(params: SensitivityParameters, prec: int) -> arb:
    """Encloses |Psi' - J_reg|_F = |ds/dt(T-)| |grad T|_2 (the gap is e_s (ds/dt(T-) grad T)^T); certainly
    positive. Requires the hypotheses."""
    return _gap(hitting_time_gradient_enclosure(params, prec), event_speed_enclosure(params, prec), prec)


def _gap(grad: dict, speed: arb, prec: int) -> arb:
    """|ds/dt(T-)| |grad T|_2 from grad T and ds/dt(T-) < 0; NotCertified unless certainly positive."""
    with working_precision(prec):
        gap = -speed * sum((grad[j] * grad[j] for j in COORDINATES), ball(0)).sqrt()
    if not certainly_positive(gap):
        raise NotCertified("the sensitivity gap is not certainly positive", "sensitivity_gap")
    return gap


def _matrix(entry: str, exact_rows: str = "") -> tuple[Component, ...]:
    """The nine components ``i_j`` (i, j in s, a, b) of a 3 x 3 matrix, entry i_j named by ``entry`` (with
    {i}, {j}); the rows in ``exact_rows`` are exact values, the others enclosures."""
    return tuple(Component(f"{i}_{j}", entry.format(i=i, j=j), EXACT if i in exact_rows else ENCLOSURE)
                 for i in COORDINATES for j in COORDINATES)


#: The claims of a ``sensitivity`` certificate, in schema order: what each states (certify.kernel.claims).
HITTING_TIME_GRADIENT = ClaimSpec(
    "hitting_time_gradient", "base_point", "at the base point, the gradient of the hitting time T",
    components=tuple(Component(j, f"dT/d{j}0", ENCLOSURE) for j in COORDINATES),
    note="T = (p^2/2) int_0^{s0} (1 + e^{-s g}/(p-1))/g ds with g^2 = g0^2 - c s0^2 + c s^2, c = p/(2(p-1)), "
         "differentiated under the integral", source="(2.2), (2.6)")
EVENT_SPEED = ClaimSpec(
    "event_speed", "base_point", "at the base point, ds/dt(T-) = -2(p-1) sqrt(Gamma)/p^3", Relation(
        "enclosure", hi_below=0), note="the gate reaches its kink transversally", source="(2.7)")
REGIONAL_DERIVATIVE = ClaimSpec(
    "regional_derivative", "base_point",
    "at the base point, J_reg = d y(T*)/d y(0) at the fixed base hitting time T*, the smooth field (2.2)-(2.4) "
    "continued across s = 0, by entries", components=_matrix("d{i}(T*)/d{j}(0)"))
TERMINAL_MAP_DERIVATIVE = ClaimSpec(
    "terminal_map_derivative", "base_point",
    "at the base point, Psi' with Psi(y0) = y(T(y0)) = (0, a0 + D/(2c), b0 - D/(2c(p-1))), "
    "D = g0 - sqrt(g0^2 - c s0^2), by entries", components=_matrix("dPsi_{i}/d{j}0", exact_rows="s"))
SALTATION_MATRIX = ClaimSpec(
    "saltation_matrix", "base_point",
    "S = I - f n^T/(n^T f) with f = (ds/dt(T-), 0, 0) the field at the event and n = e_s, by entries",
    components=_matrix("S_{i}{j}", exact_rows="sab"),
    note="S J_reg = Psi' holds by the derivation (the a, b rows of J_reg are those of Psi' since f is parallel "
         "to e_s, and S deletes the s row), not by a separate computation")
SENSITIVITY_GAP = ClaimSpec(
    "sensitivity_gap", "base_point", "at the base point, |Psi' - J_reg|_F = |ds/dt(T-)| |grad T|_2",
    POSITIVE_ENCLOSURE)
GAP_RANK = ClaimSpec(
    "gap_rank", "base_point", "at the base point, the rank of the gap matrix Psi' - J_reg", EXACT,
    note="Psi' - J_reg = e_s (ds/dt(T-) grad T)^T with ds/dt(T-) < 0 and dT/ds0 > 0 certified")
CLAIMS = (HITTING_TIME_GRADIENT, EVENT_SPEED, REGIONAL_DERIVATIVE, TERMINAL_MAP_DERIVATIVE, SALTATION_MATRIX,
          SENSITIVITY_GAP, GAP_RANK)


def _matrix_numbers(entries: dict) -> dict[str, dict]:
    return {key: ({"exact": value} if isinstance(value, fmpq) else {"lower": value, "upper": value})
            for key, value in entries.items()}


def sensitivity_claims(params: SensitivityParameters, radius: fmpq, prec: int) -> list[Claim]:
    """Every claim of a ``sensitivity`` certificate, at ``prec`` bits (all at the base point; ``radius`` must be 0:
    the certificate is about one trajectory, not a box). Raises HypothesisError, NotCertified."""
    require_sensitivity_hypotheses(params)
    if radius != 0:
        raise NotCertified(f"the sensitivity certificate is about the base point only: radius must be 0, got "
                           f"{format_rational(fmpq(radius))}", "radius")
    grad = hitting_time_gradient_enclosure(params, prec)
    speed = event_speed_enclosure(params, prec)
    psi = terminal_map_derivative_enclosure(params, prec)
    # grad T is one acb.integral: computed once here, not again inside each derived quantity
    jreg = _regional(psi, grad, speed, prec)
    gap = _gap(grad, speed, prec)
    return [
        HITTING_TIME_GRADIENT.claim(components={key: {"lower": value, "upper": value} for key, value in grad.items()}),
        EVENT_SPEED.claim(lower=speed, upper=speed),
        REGIONAL_DERIVATIVE.claim(components=_matrix_numbers(jreg)),
        TERMINAL_MAP_DERIVATIVE.claim(components=_matrix_numbers(psi)),
        SALTATION_MATRIX.claim(components=_matrix_numbers(saltation_matrix(params))),
        SENSITIVITY_GAP.claim(lower=gap, upper=gap),
        GAP_RANK.claim(exact=fmpq(1)),
    ]
