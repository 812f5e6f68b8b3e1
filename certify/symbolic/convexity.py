"""Section A.6: convexity of the log-partition function, (A.53)-(A.57), for a concrete prime.

w(0..p-1) are free real symbols. Phi(s) = log((1/p) sum_c e^{s w(c)}) gives Phi' = sum_c q_c w(c)
and Phi'' = sum_c q_c (w(c) - Phi')^2 >= 0, hence (A.53). The flow (A.54)-(A.55) is read off
the gradient of the full loss (1.1) at the symmetric base point (A.48) with general w, and the
comparison argument (A.56)-(A.57) follows.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation
from .definitions import a, b, example_loss, p, parameters, relu, s, softmax

Q0, D = sp.symbols("q_0 D")
s0 = sp.Symbol("s_0", positive=True)
s_t = sp.Symbol("s(t)", positive=True)
gamma_in = sp.Symbol("gamma_in", positive=True)
MU_TWO_LEVEL = (a + (p - 1) * b) / p

#: The paper's forms, with D = D(s, w) of (A.52) and q_0 = q_0(s, w) of (A.3). The right side
#: of (A.53) is gamma = mu - w(0), written on the two-level w = (a, b, ..., b); the paper prints
#: "g" there, a slip (g = b - a differs from gamma = (p-1)(b-a)/p).
PAPER_CONVEXITY = {
    "(A.53)": MU_TWO_LEVEL - a,
    "(A.54)": -2 / p**2 * D,
    "(A.55)": -s / p**2 * (1 - Q0),
    "dgamma/ds": s * (1 - Q0) / (2 * D),
    "(A.56)": s,
    "(A.57)": (s0**2 - s_t**2) / 2,
}


def full_loss_gradient(prime: int, u, v, w, point: dict) -> dict:
    """d(1.1)/dx for all 3p parameters at ``point`` (same result as definitions.loss_gradient_at, faster).

    The example (x, y) is the label-(x+y) loss l_y(ReLU(U + V), w)/p^2 read at U = u(x),
    V = v(y); it is differentiated once per label in (U, V, w) (ReLU = Max(z, 0), derivative
    Heaviside), and each example adds its partials to u(x), v(y) and w at the point.
    """
    U, V = sp.symbols("U V", real=True)
    per_label = {}
    gradient = {x: sp.Integer(0) for x in (*u, *v, *w)}
    for x in range(prime):
        for y in range(prime):
            label = (x + y) % prime
            if label not in per_label:
                loss = example_loss(relu(U + V), w, label) / sp.Integer(prime)**2
                per_label[label] = {var: sp.diff(loss, var) for var in (U, V, *w)}
            partials = per_label[label]
            at = {U: u[x].xreplace(point), V: v[y].xreplace(point)}
            gradient[u[x]] += partials[U].xreplace(at).xreplace(point)
            gradient[v[y]] += partials[V].xreplace(at).xreplace(point)
            for c in w:
                gradient[c] += partials[c].xreplace(at).xreplace(point)
    return gradient


def base_point(prime: int, u, v, gate):
    """(A.48): u(0) = v(0) = gate/2, u(j) = v(j) = -M with M = gate/2 + beta, beta > 0 (w left general)."""
    beta = sp.Symbol("beta", positive=True)
    point = {u[0]: gate / 2, v[0]: gate / 2}
    for j in range(1, prime):
        point.update({u[j]: -(gate / 2 + beta), v[j]: -(gate / 2 + beta)})
    return point


def log_partition_convexity(prime: int = 5) -> Derivation:
    """Phi' = sum q_c w(c), Phi'' = sum q_c (w(c) - Phi')^2 >= 0, Phi'(0) = mu, (A.53)-(A.57)."""
    d = Derivation(f"convexity-p{prime}", f"Convexity of the log-partition function and (A.53)-(A.57), p = {prime}",
                   ("(A.53)", "(A.54)", "(A.55)", "(A.56)", "(A.57)"), p=prime)
    n = sp.Integer(prime)
    u, v, w = parameters(prime)
    q = softmax(s, w)
    phi = d.step(sp.Symbol(r"\Phi(s)"), sp.log(sum(sp.exp(s * c) for c in w) / n), "section A.6")
    phi1 = d.step(sp.Symbol(r"\Phi'(s)"), sp.diff(phi, s), "differentiate")
    phi1_form = sum(qc * c for qc, c in zip(q, w))
    d.compare("Phi'", phi1, phi1_form)
    phi2 = d.step(sp.Symbol(r"\Phi''(s)"), sp.diff(phi, s, 2), "differentiate again")
    second_moment = sum(qc * c**2 for qc, c in zip(q, w))
    d.compare("Phi'' = sum q_c w(c)^2 - Phi'^2", phi2, second_moment - phi1_form**2)
    d.compare("sum_c q_c = 1", sp.Add(*q), 1)
    weights = sp.symbols(f"Q0:{prime}")
    mean_Q = sum(qc * c for qc, c in zip(weights, w))
    variance_Q = d.step(sp.Symbol(r"\sum_c Q_c (w(c) - \bar w)^2"),
                        sp.expand(sum(qc * (c - mean_Q)**2 for qc, c in zip(weights, w))
                                  .subs(weights[-1], 1 - sum(weights[:-1]))),
                        "expand the square for any weights Q_c with sum_c Q_c = 1, mean bar w = sum_c Q_c w(c)")
    d.compare("variance identity", variance_Q,
              sp.expand((sum(qc * c**2 for qc, c in zip(weights, w)) - mean_Q**2)
                        .subs(weights[-1], 1 - sum(weights[:-1]))))
    variance_terms = [qc * (c - phi1_form)**2 for qc, c in zip(q, w)]
    d.step(sp.Symbol(r"\Phi''(s)"), sp.Add(*variance_terms), "the variance identity with Q_c = q_c(s, w)")
    signs = [term.is_nonnegative for term in variance_terms]
    d.step(sp.Symbol(r"\Phi''(s)"), sp.Integer(0),
           "sum_c q_c (w(c) - Phi')^2: every q_c = e^{s w(c)}/sum_d e^{s w(d)} > 0 and every square >= 0 "
           "(sympy's assumptions confirm each term nonnegative)", relation=">=")
    d.compare("Phi'' >= 0 termwise", sp.Tuple(*[sp.Integer(1 if sign else 0) for sign in signs]),
              sp.Tuple(*([1] * prime)))
    mu = sum(w) / n
    phi1_zero = d.step(sp.Symbol(r"\Phi'(0)"), phi1.subs(s, 0), "at s = 0 every q_c = 1/p")
    d.compare("Phi'(0) = mu", phi1_zero, mu)
    D_sw = d.step(sp.Symbol("D(s, w)"), phi1_form - w[0], "(A.52)")
    d.compare("D = Phi' - w(0)", phi1 - w[0], D_sw)
    d.step(sp.Symbol("D(s, w)"), phi1_zero - w[0],
           "Phi'(s) - Phi'(0) = int_0^s Phi''(r) dr >= 0 for s >= 0 (Phi convex)", relation=">=")
    d.step(sp.Symbol(r"\Phi'(0) - w(0)"), mu - w[0],
                   "(A.53): = mu - w(0) = gamma (A.50). The paper prints '= g' here: a slip, the right side is "
                   "gamma (g = b - a is section 2's gap; on a two-level w, gamma = (p-1)/p g)")
    two_level = {w[0]: a, **{c: b for c in w[1:]}}
    d.compare("(A.53)", (phi1_zero - w[0]).subs(two_level), PAPER_CONVEXITY["(A.53)"].subs(p, prime))

    # the flow from the full loss (1.1) at the base point (A.48) with general w: only (0, 0) is active
    point = base_point(prime, u, v, s)
    d.step(sp.Symbol(r"\theta"), sp.Symbol("(A.48)"),
           "u(0) = v(0) = s/2, u(j) = v(j) = -M, M = s/2 + beta > s/2, w general: every gate but (0,0) negative")
    gradient = full_loss_gradient(prime, u, v, w, point)
    s_dot = d.step(sp.Symbol(r"\dot s"), -(gradient[u[0]] + gradient[v[0]]), "s = u(0) + v(0), gradient flow")
    w_dot = [-gradient[c] for c in w]
    mu_dot = d.step(sp.Symbol(r"\dot\mu"), sp.cancel(sum(w_dot) / n),
                    "(A.8): mu = (1/p) sum_c w(c); sum_c (q_c - [c = 0]) = 0")
    d.compare("mu constant", mu_dot, 0)
    gamma_dot = d.step(sp.Symbol(r"\dot\gamma"), mu_dot - w_dot[0], "(A.50): gamma = mu - w(0)")
    on_q = {Q0: q[0], D: D_sw, p: prime}
    d.compare("(A.54)", s_dot, PAPER_CONVEXITY["(A.54)"].xreplace(on_q))
    d.compare("(A.55)", gamma_dot, PAPER_CONVEXITY["(A.55)"].xreplace(on_q))
    others = [gradient[x] for x in u[1:] + v[1:]]
    d.compare("cross/off-cross inputs idle", sp.Tuple(*others), sp.Tuple(*([0] * len(others))))

    # the comparison argument, on [0, tau) where s > 0 and gamma > 0
    g_sym = sp.Symbol("gamma", positive=True)
    dgamma_ds = d.step(sp.Symbol(r"d\gamma/ds"), gamma_dot / s_dot, "s' < 0 there: s serves as the clock")
    d.compare("dgamma/ds", dgamma_ds, PAPER_CONVEXITY["dgamma/ds"].xreplace(on_q))
    bound = d.step(sp.Symbol(r"d\gamma/ds"), s / (2 * g_sym),
                   "1 - q_0 <= 1 (q_0 > 0) and D >= gamma > 0 by (A.53)", relation="<=")
    d.compare("q_0 > 0", sp.Integer(1 if q[0].is_positive else 0), 1)
    d.compare("dgamma/ds bound", sp.cancel(PAPER_CONVEXITY["dgamma/ds"].xreplace({Q0: 0, D: g_sym})), bound)
    squared = d.step(sp.Symbol(r"d(\gamma^2)/ds"), sp.cancel(2 * g_sym * bound), "d(gamma^2)/ds = 2 gamma dgamma/ds",
                     relation="<=")
    d.compare("(A.56)", squared, PAPER_CONVEXITY["(A.56)"])
    r = sp.Symbol("r", positive=True)
    integral = d.step(sp.Integral(r, (r, s_t, s0)), sp.integrate(r, (r, s_t, s0)),
                      "integrate (A.56) from s(t) to s_0: gamma_in^2 - gamma(t)^2 <= this")
    d.compare("(A.57)", integral, PAPER_CONVEXITY["(A.57)"])
    lower = d.step(sp.Symbol(r"\gamma(t)^2"), gamma_in**2 - integral, "(A.57), first inequality", relation=">=")
    weaker = d.step(sp.Symbol(r"\gamma(t)^2"), gamma_in**2 - s0**2 / 2, "drop s(t)^2/2 >= 0", relation=">=")
    d.compare("(A.57) gap", lower - weaker, s_t**2 / 2)
    return d
