"""Section A.8: one full-batch gradient-descent step from the symmetric base point, (A.70)-(A.71).

The gradient of the full loss (1.1) is taken at the base point (A.48) with a general w
(A.49 is the special case w(0) = -B, w(j) = 0); ReLU'(0) = 0 plays no role there, since no
gate sits at a kink.
"""

from __future__ import annotations

import sympy as sp

from .convexity import base_point, full_loss_gradient
from .core import Derivation
from .definitions import eta, p, parameters, softmax

s0 = sp.Symbol("s_0", positive=True)
D, g0 = sp.Symbol("D"), sp.Symbol("g_0", positive=True)

#: The paper's forms, D = D(s_0, w_0) of (A.52), g_0 = mu_0 - w_0(0).
PAPER_GD = {
    "(A.70)": s0 - 2 * eta / p**2 * D,
    "cross gate step": -eta / p**2 * D,
    "(A.71)": 2 * eta * g0 / p**2,
}


def one_step(prime: int = 5) -> Derivation:
    """s_1 = s_0 - (2 eta/p^2) D(s_0, w_0) (A.70), the gate moves, two-level form kept, threshold (A.71)."""
    d = Derivation(f"gd-one-step-p{prime}", f"One full-batch GD step from the base point (A.70)-(A.71), p = {prime}",
                   ("(A.70)", "(A.71)"), p=prime)
    u, v, w = parameters(prime)
    point = base_point(prime, u, v, s0)
    d.step(sp.Symbol(r"\theta_0"), sp.Symbol("(A.48)"),
           "u(0) = v(0) = s_0/2, u(j) = v(j) = -M, M = s_0/2 + beta (beta > 0), w general: only (0, 0) active")
    gradient = full_loss_gradient(prime, u, v, w, point)
    d.step(sp.Symbol(r"\nabla\mathcal{L}(\theta_0)"), sp.Symbol("(1.1)"),
           "gradient of the full loss, example by example (ReLU' = Heaviside; every other gate is < 0)")
    step = {x: -eta * gradient[x] for x in gradient}   # theta_1 - theta_0
    s1 = d.step(sp.Symbol("s_1"), s0 + step[u[0]] + step[v[0]], "theta_1 = theta_0 - eta grad L; s = u(0) + v(0)")
    q = softmax(s0, w)
    D_0 = d.step(sp.Symbol("D(s_0, w_0)"), sum(qc * c for qc, c in zip(q, w)) - w[0], "(A.52)")
    on = {D: D_0, p: prime}
    d.compare("(A.70)", s1, PAPER_GD["(A.70)"].xreplace(on))
    rows = [step[u[0]] + step[v[j]] for j in range(1, prime)]
    columns = [step[u[j]] + step[v[0]] for j in range(1, prime)]
    d.step(sp.Symbol(r"\Delta r_j, \Delta s_j"), sp.Tuple(*(rows + columns)),
           "cross gates (0, j), (j, 0): only u(0) resp. v(0) moves")
    d.compare("cross gate step", sp.Tuple(*(rows + columns)),
              sp.Tuple(*([PAPER_GD["cross gate step"].xreplace(on)] * (2 * (prime - 1)))))
    off = [step[u[i]] + step[v[j]] for i in range(1, prime) for j in range(1, prime)]
    d.compare("off-cross gates fixed", sp.Tuple(*off), sp.Tuple(*([0] * len(off))))
    a_, b_ = sp.symbols("a b", real=True)
    two_level = {w[0]: a_, **{c: b_ for c in w[1:]}}
    w1 = [(c + step[c]).xreplace(two_level) for c in w]
    d.compare("two-level w kept", sp.Tuple(*[w1[j] - w1[1] for j in range(2, prime)]),
              sp.Tuple(*([0] * (prime - 2))))

    rate = d.step(sp.Symbol(r"(s_0 - s_1)/D(s_0, w_0)"), sp.cancel((s0 - s1) / D_0), "the step's coefficient")
    bound = d.step(sp.Symbol("s_1"), s0 - rate * g0,
                   "D(s_0, w_0) >= g_0 = mu_0 - w_0(0) by (A.53) (convexity-p: the right side is gamma)",
                   relation="<=")
    region = sp.solve_univariate_inequality(bound < 0, s0, relational=False)
    threshold = d.step(sp.Symbol(r"\sup\{s_0 : s_0 - 2\eta g_0/p^2 < 0\}"), region.sup,
                       f"solve the bound < 0 for s_0: {region}")
    d.compare("(A.71)", threshold, PAPER_GD["(A.71)"].subs(p, prime))
    d.compare("(A.71) region: all s_0 below the threshold", sp.Tuple(sp.Integer(bool(region.inf == -sp.oo)),
                                                                               sp.Integer(bool(region.right_open))),
              sp.Tuple(1, 1))
    d.step(sp.Symbol(r"\mathrm{(A.71)\ range\ of}\ s_0"), sp.Interval.open(0, threshold),
           "s_0 > 0 and the threshold is positive (eta, g_0 > 0): a nonempty open interval, on which s_1 < 0")
    d.compare("threshold > 0", sp.Integer(1 if threshold.is_positive else 0), 1)

    # after the step every gate is < 0: s_1 < 0, cross s_1/2 - M < 0, off-cross -2M; the gradient vanishes
    s1_neg, M = sp.Symbol("s_1", negative=True), sp.Symbol("M", positive=True)
    dead = {u[0]: s1_neg / 2, v[0]: s1_neg / 2, **{u[j]: -M for j in range(1, prime)},
            **{v[j]: -M for j in range(1, prime)}}
    after = full_loss_gradient(prime, u, v, w, dead)
    d.step(sp.Symbol(r"\nabla\mathcal{L}(\theta_1)"), sp.Integer(0),
           "every gate strictly negative at theta_1 (s_1 < 0, cross s_1/2 - M, off-cross -2M): theta_n = theta_1")
    d.compare("theta_n = theta_1", sp.Tuple(*after.values()), sp.Tuple(*([0] * (3 * prime))))
    return d
