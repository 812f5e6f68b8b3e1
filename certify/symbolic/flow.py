"""Section 2: the flow (2.2)-(2.5) of the symmetric family, (2.6), (2.7), and the hitting time.

On the symmetric family of (2.1) only the example (0, 0), label 0, is active; write
s = u(0) + v(0), a = w(0), b = w(j) (the p - 1 wrong classes, all equal) and g = b - a.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation
from .definitions import a, b, epsilon, g, loss_gradient_at, p, parameters, s

#: The paper's forms, with pi_0 = 1/(1 + (p-1) e^{s g}) (section 2).
pi0 = 1 / (1 + (p - 1) * sp.exp(s * g))
PAPER_FLOW = {
    "(2.2)": -2 / p**2 * (1 - pi0) * g,
    "(2.3)": s / p**2 * (1 - pi0),
    "(2.4)": -s / p**2 * (1 - pi0) / (p - 1),
    "(2.5)": -s / (p * (p - 1)) * (1 - pi0),
}
Gamma = sp.Symbol("Gamma", positive=True)
c = p / (2 * (p - 1))


def symmetric_flow() -> Derivation:
    """(2.2)-(2.5) for symbolic p from the reduced loss, the multiplicity p - 1 derived.

    The p - 1 wrong-class coordinates w(j) are equal along the flow (symmetry), so the
    loss restricted to the family is L(s, a, b) with w(j) = b for every j. The gradient
    flow of the full parameters gives d w(j)/dt = -dL/dw(j), and by the chain rule
    dL/db = sum_j dL/dw(j) = (p - 1) dL/dw(j): so db/dt = -(1/(p-1)) dL/db. Likewise
    s = u(0) + v(0) gives ds/dt = -(dL/du(0) + dL/dv(0)) = -2 dL/ds.
    """
    d = Derivation("flow", "The flow (2.2)-(2.5) on the symmetric family, symbolic p",
                   ("(2.2)", "(2.3)", "(2.4)", "(2.5)"))
    L = d.step(sp.Symbol("L"), (sp.log(sp.exp(s * a) + (p - 1) * sp.exp(s * b)) - s * a) / p**2,
               "loss (1.1): only (0,0) (label 0) is active with h = s; the other p^2 - 1 examples add log p each "
               "(a constant)")
    s_dot = d.step(sp.Symbol(r"\dot s"), -2 * sp.diff(L, s),
                   "s = u(0) + v(0): ds/dt = -(dL/du(0) + dL/dv(0)) = -2 dL/ds")
    a_dot = d.step(sp.Symbol(r"\dot a"), -sp.diff(L, a), "a = w(0): da/dt = -dL/da")
    b_dot = d.step(sp.Symbol(r"\dot b"), -sp.diff(L, b) / (p - 1),
                   "b = w(j) for p - 1 equal coordinates: dL/db = (p - 1) dL/dw(j), so db/dt = -(1/(p-1)) dL/db")
    g_dot = d.step(sp.Symbol(r"\dot g"), b_dot - a_dot, "g = b - a")
    on_g = {b: a + g}
    for label, derived in (("(2.2)", s_dot), ("(2.3)", a_dot), ("(2.4)", b_dot), ("(2.5)", g_dot)):
        d.compare(label, derived.subs(on_g), PAPER_FLOW[label])
    return d


def full_loss_flow(prime: int) -> Derivation:
    """(2.2)-(2.5) for a concrete prime from the full 3p-variable loss (1.1).

    Differentiate (1.1) in all 3p parameters (ReLU as Max(z, 0), its derivative the Heaviside
    step), then substitute the family (2.1) at a time t: u(0) = v(0) = s/2, u(j) = v(j) = -B,
    w(0) = a, w(j) = b, with B = s/2 + beta, beta > 0 (the cross gates are negative).
    """
    d = Derivation(f"flow-full-p{prime}", f"The flow (2.2)-(2.5) from the full loss (1.1), p = {prime}",
                   ("(2.2)", "(2.3)", "(2.4)", "(2.5)"), p=prime)
    u, v, w = parameters(prime)
    beta = sp.Symbol("beta", positive=True)
    family = {u[0]: s / 2, v[0]: s / 2, w[0]: a}
    for j in range(1, prime):
        family.update({u[j]: -(s / 2 + beta), v[j]: -(s / 2 + beta), w[j]: b})
    d.step(sp.Symbol("L"), sp.Symbol(r"\mathcal{L}(u, v, w)"),
           f"loss (1.1) over the full {prime} x {prime} table, ReLU(z) = Max(z, 0), all {3 * prime} parameters")
    d.step(sp.Symbol(r"\theta(t)"), sp.Symbol(r"(2.1)\ \mathrm{family}"),
           "u(0)=v(0)=s/2, u(j)=v(j)=-B with B = s/2 + beta > s/2, w(0)=a, w(j)=b")
    gradient = loss_gradient_at(prime, u, v, w, family)

    def velocity(x):
        # gradient flow; on the family every gate but (0, 0) is negative, so Heaviside gives 0 there
        return sp.powsimp(-gradient[x])

    s_dot = d.step(sp.Symbol(r"\dot s"), velocity(u[0]) + velocity(v[0]), "ds/dt = du(0)/dt + dv(0)/dt")
    a_dot = d.step(sp.Symbol(r"\dot a"), velocity(w[0]), "da/dt = -dL/dw(0) on the family")
    b_dot = d.step(sp.Symbol(r"\dot b"), velocity(w[1]), "db/dt = -dL/dw(1) on the family (any j != 0)")
    others = [velocity(x) for x in u[1:] + v[1:]] + [velocity(w[j]) - b_dot for j in range(2, prime)]
    d.step(sp.Symbol(r"\dot u(j), \dot v(j), \dot w(j) - \dot w(1)"), sp.Integer(0),
           "inactive gates contribute nothing; all w(j) move alike, so the family is invariant "
           "(checked below)")
    specialise = {p: prime}
    on_g = {b: a + g}
    for label, derived in (("(2.2)", s_dot), ("(2.3)", a_dot), ("(2.4)", b_dot), ("(2.5)", b_dot - a_dot)):
        d.compare(label, derived.subs(on_g), PAPER_FLOW[label].subs(specialise))
    d.compare("invariance", sp.Tuple(*others), sp.Tuple(*([0] * len(others))))
    return d


def conserved_quantity() -> Derivation:
    """(2.6): g^2 - p s^2/(2(p-1)) is constant along (2.2)-(2.5)."""
    d = Derivation("conserved", "The conserved quantity (2.6)", ("(2.6)",))
    ratio = d.step(sp.Symbol("dg/ds"), sp.simplify(PAPER_FLOW["(2.5)"] / PAPER_FLOW["(2.2)"]),
                   "divide (2.5) by (2.2) (s > 0, g > 0)")
    invariant = g**2 - c * s**2
    derivative = d.step(sp.Symbol(r"\frac{d}{dt}\left(g^2 - \frac{p}{2(p-1)} s^2\right)"),
                        sp.simplify(2 * g * PAPER_FLOW["(2.5)"] - 2 * c * s * PAPER_FLOW["(2.2)"]),
                        "chain rule with (2.2) and (2.5)")
    d.compare("dg/ds", ratio, p * s / (2 * (p - 1) * g))
    d.compare("(2.6)", derivative, 0)
    d.step(invariant, sp.Symbol("A")**2 - c * epsilon**2, "its value at t = 0: s = epsilon, g = A")
    return d


def transversality() -> Derivation:
    """(2.7): ds/dt -> -2(p-1) sqrt(Gamma)/p^3 as t -> T-, Gamma = A^2 - p epsilon^2/(2(p-1))."""
    d = Derivation("transversality", "The transversal hit (2.7)", ("(2.7)",))
    g_at_T = d.step(sp.Symbol("g(T)"), sp.sqrt(Gamma), "(2.6) at s = 0: g(T)^2 = Gamma, g > 0")
    pi0_at_T = d.step(sp.Symbol(r"\pi_0(T)"), pi0.subs({s: 0}), "pi_0 at s = 0")
    limit = d.step(sp.Symbol(r"\lim_{t \to T^-} \dot s"), PAPER_FLOW["(2.2)"].subs({s: 0, g: g_at_T}),
                   "(2.2) is continuous in (s, g)")
    d.compare("pi_0(T)", pi0_at_T, 1 / p)
    d.compare("(2.7)", limit, -2 * (p - 1) * sp.sqrt(Gamma) / p**3)
    return d


def hitting_time() -> Derivation:
    """The hitting-time integral and the bound T <= p^3 epsilon/(2(p-1) sqrt(Gamma)) (section 2).

    dt = ds/(ds/dt) with (2.2); 1/(1 - pi_0) = 1 + e^{-sg}/(p-1); g(s) = sqrt(Gamma + c s^2) by (2.6).
    The kernel integrates exactly this integrand (tests compare the two at sample points).
    """
    d = Derivation("hitting-time", "The hitting time T and its bound (section 2)", ("T", "T bound"))
    one_over = d.step(1 / (1 - pi0), 1 + sp.exp(-s * g) / (p - 1), "pi_0 = 1/(1 + (p-1) e^{sg})")
    d.compare("1/(1-pi_0)", 1 / (1 - pi0), one_over)
    g_of_s = d.step(sp.Symbol("g(s)"), sp.sqrt(Gamma + c * s**2), "(2.6): g^2 = Gamma + p s^2/(2(p-1))")
    dt_ds = d.step(sp.Symbol("-dt/ds"), -1 / PAPER_FLOW["(2.2)"], "dt = ds/(ds/dt), s decreases from epsilon to 0")
    integrand = (p**2 / 2) * one_over.subs(g, g_of_s) / g_of_s
    d.step(sp.Symbol("T"), sp.Integral(integrand, (s, 0, epsilon)), "substitute g(s) and 1/(1-pi_0)")
    d.compare("T integrand", dt_ds.subs(g, g_of_s), integrand)
    bound = d.step(sp.Symbol("-dt/ds"), (p**2 / 2) * (1 + 1 / (p - 1)) / sp.sqrt(Gamma),
                   "e^{-sg} <= 1 (s g >= 0) and g(s) >= sqrt(Gamma)", relation="<=")
    d.step(sp.Symbol("T"), epsilon * bound, "integrate over s in [0, epsilon]", relation="<=")
    d.compare("T bound", epsilon * bound, p**3 * epsilon / (2 * (p - 1) * sp.sqrt(Gamma)))
    return d
