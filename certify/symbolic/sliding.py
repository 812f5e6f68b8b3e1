"""Sections A.3-A.4: the persistent sliding trajectory.

``sliding_relations`` (a concrete prime) derives (A.19)-(A.25) from the central example's loss;
``sliding_selection`` (symbolic k, l, A, gamma_j) the sliding velocities (A.26)-(A.30) and the
admissibility of the kink coefficients; ``sliding_limits`` (symbolic p) the projective
asymptotics (A.36)-(A.40), (A.45) and the limit loss (A.33).
"""

from __future__ import annotations

import sympy as sp

from .convexity import full_loss_gradient
from .core import Derivation
from .definitions import A, a, b, example_loss, p, parameters, relu, softmax

x = sp.Symbol("x", positive=True)
j = sp.Symbol("j", integer=True, positive=True)
c_ = sp.Symbol("c", integer=True, nonnegative=True)
q_, d_ = sp.IndexedBase("q"), sp.IndexedBase("d")
Q0, QJ = sp.symbols("q_0 q_j")
k, l = sp.symbols("k l", integer=True, nonnegative=True)
gamma_ = sp.IndexedBase("gamma", positive=True)
X, gamma_star = sp.symbols("X gamma_star", positive=True)
Delta, mu, C = sp.symbols("Delta mu C", real=True)
d = sp.Symbol("d", positive=True)
E2 = sp.Symbol("E_2", nonnegative=True)   # sum_j e_j^2
kappa = p * sp.sqrt(1 / (2 * (p - 1)))

#: The paper's forms. q_0, q_j stand for q_0(x, w), q_j(x, w); q[j], d[j] for q_j, d_j inside sums.
PAPER_SLIDING = {
    "(A.20)": x / p**2 * (1 - Q0),
    "(A.21)": -x / p**2 * QJ,
    "(A.22)": sp.Integer(0),
    "(A.23)": x / p**2 * QJ,
    "(A.24)": x / p**2 * (1 - Q0 + QJ),
    "(A.19)": sp.Sum(q_[j] * d_[j], (j, 1, p - 1)),
    "(A.25)": sp.Sum(d_[j] * sp.exp(-x * d_[j]), (j, 1, p - 1)) / (1 + sp.Sum(sp.exp(-x * d_[j]), (j, 1, p - 1))),
    "(A.25) bound": (p - 1) / (sp.E * x),
    "(A.28)": A / ((k + 1) * p**2),
    "(A.29)": A / ((l + 1) * p**2),
    "(A.30)": A / p**2 * (1 / (k + 1) + 1 / (l + 1)),
    "(A.32)": 2 * A / p**3,
    "alpha bound": (p - 1) / ((k + 1) * sp.E * X * gamma_star),
    "(A.36)": sp.Tuple(mu + (p - 1) / p * d, mu - d / p),
    "(A.37)": p * mu**2 + (p - 1) / p * d**2 + E2,
    "(A.38)": p / 2 * x**2 + p / 2 * Delta**2,
    "(A.40)": p * sp.sqrt(1 / (2 * (p - 1))),
    "||V||^2": p / 4,
    "||q||^2": (p - 1) / p,
    "kappa^2 ||q||^2": p / 2,
    "(A.45)": sp.sqrt(p),
    "(A.33)": (p**2 - 1) / p**2 * sp.log(p),
}


def sliding_relations(prime: int = 5) -> Derivation:
    """(A.19)-(A.25) from the central example's loss l_0(ReLU(u(0) + v(0)), w)/p^2, p = prime."""
    dv = Derivation(f"sliding-relations-p{prime}", f"The central example's flow (A.19)-(A.25), p = {prime}",
                    ("(A.19)", "(A.20)", "(A.21)", "(A.22)", "(A.23)", "(A.24)", "(A.25)"), p=prime)
    n = sp.Integer(prime)
    u, v, w = parameters(prime)
    loss = dv.step(sp.Symbol(r"\mathcal{L}_{00}"), example_loss(relu(u[0] + v[0]), w, 0) / n**2,
                   "the central example of (1.1), label 0 (A.2)")
    central = {v[0]: x - u[0]}
    dv.step(sp.Symbol("x"), u[0] + v[0], "(A.11); x > 0 on the construction, so ReLU(x) = x")
    w_dot = [-sp.diff(loss, c).subs(central) for c in w]
    dv.step(sp.Symbol(r"\dot w"), sp.Tuple(*w_dot), "-dL_00/dw(c); the other examples add nothing to w: "
            "inactive ones have h = 0, kink ones contribute 0 to the w-gradient (Lemma A.6)")
    q = softmax(x, w)
    on = {p: prime, Q0: q[0]}
    dv.compare("(A.20)", w_dot[0], PAPER_SLIDING["(A.20)"].xreplace(on))
    dv.compare("(A.21)", sp.Tuple(*w_dot[1:]), sp.Tuple(*[PAPER_SLIDING["(A.21)"].xreplace({**on, QJ: q[i]})
                                                          for i in range(1, prime)]))
    # the full loss at a point of the full sliding face (A.31): u = (a, -b, ..), v = (b, -a, ..), a + b = x
    face = {u[0]: a, v[0]: x - a, **{u[i]: -(x - a) for i in range(1, prime)}, **{v[i]: -a for i in range(1, prime)}}
    full = full_loss_gradient(prime, u, v, w, face)
    dv.compare("w-gradient: only the central example", sp.Tuple(*[-full[c] for c in w]), sp.Tuple(*w_dot))
    mu_dot = dv.step(sp.Symbol(r"\dot\mu"), sp.cancel(sum(w_dot) / n), "(A.8): mu = (1/p) sum_c w(c); sum_c q_c = 1")
    dv.compare("(A.22)", mu_dot, PAPER_SLIDING["(A.22)"])
    gamma_dot = dv.step(sp.Symbol(r"\dot\gamma_j"), sp.Tuple(*[mu_dot - w_dot[i] for i in range(1, prime)]),
                        "(A.13): gamma_j = mu - w(j)")
    dv.compare("(A.23)", gamma_dot, sp.Tuple(*[PAPER_SLIDING["(A.23)"].xreplace({**on, QJ: q[i]})
                                              for i in range(1, prime)]))
    gap_dot = dv.step(sp.Symbol(r"\dot d_j"), sp.Tuple(*[w_dot[0] - w_dot[i] for i in range(1, prime)]),
                      "(A.18): d_j = w(0) - w(j)")
    dv.compare("(A.24)", gap_dot, sp.Tuple(*[PAPER_SLIDING["(A.24)"].xreplace({**on, QJ: q[i]})
                                             for i in range(1, prime)]))
    A_def = dv.step(sp.Symbol("A"), w[0] - sum(qc * c for qc, c in zip(q, w)), "(A.19), definition")
    as_sum = PAPER_SLIDING["(A.19)"].subs(p, prime).doit()
    as_sum = as_sum.xreplace({q_[i]: q[i] for i in range(1, prime)} | {d_[i]: w[0] - w[i] for i in range(1, prime)})
    dv.compare("(A.19)", A_def, as_sum)
    u_dot = dv.step(sp.Symbol(r"\dot u(0)_{central}"), -sp.diff(loss, u[0]).subs(central),
                    "(A.5): the central example's share of du(0)/dt is -(1/p^2) g_0(x, w)")
    dv.compare("central share = A/p^2", u_dot, A_def / n**2)
    gaps = sp.symbols(f"d1:{prime}", positive=True)
    in_gaps = {w[i]: w[0] - gaps[i - 1] for i in range(1, prime)}
    dv.step(sp.Symbol("w(j)"), sp.Tuple(*[w[0] - g for g in gaps]), "(A.18): w(j) = w(0) - d_j")
    numerator, denominator = sp.fraction(sp.together(A_def))

    def rescaled(expr):
        """expr e^{-x w(0)} with w(j) = w(0) - d_j, exponents expanded."""
        expr = sp.expand(expr * sp.exp(-x * w[0])).xreplace(in_gaps)
        return sp.expand(expr.replace(sp.exp, lambda arg: sp.exp(sp.expand(arg))))

    A_gaps = dv.step(sp.Symbol("A"), rescaled(numerator) / rescaled(denominator),
                     "(A.19) over a common denominator; numerator and denominator times e^{-x w(0)}")
    as_gaps = PAPER_SLIDING["(A.25)"].subs(p, prime).doit().xreplace({d_[i]: gaps[i - 1] for i in range(1, prime)})
    dv.compare("(A.25)", A_gaps, as_gaps)
    return dv


def sliding_selection() -> Derivation:
    """(A.26)-(A.30), (A.32) and the admissibility alpha_j <= (p-1)/((k+1) e X gamma_*), symbolic p, k, l."""
    dv = Derivation("sliding-selection", "The selected kink coefficients and the sliding velocities (Lemma A.9)",
                    ("(A.25)", "(A.26)", "(A.27)", "(A.28)", "(A.29)", "(A.30)", "(A.32)"))
    g0 = dv.step(sp.Symbol("g_0(x, w)"), -A, "(A.4) at y = 0: sum_c q_c w(c) - w(0) = -A by (A.19)")
    central = dv.step(sp.Symbol(r"\dot u(0)_{central}"), -g0 / p**2, "(A.5): the central example's share")
    alpha = dv.step(sp.Symbol(r"\alpha_j"), A / ((k + 1) * gamma_[j]), "(A.26)")
    row_share = dv.step(sp.Symbol(r"\dot u(0)_{(0,j)}"), -alpha * gamma_[j] / p**2,
                        "Lemma A.6: a captured row gate (0, j) adds alpha_j gamma_j (e_0^(u) + e_j^(v)) to the "
                        "gradient, times the 1/p^2 of (1.1)")
    u0_dot = dv.step(sp.Symbol(r"\dot u(0)"), sp.factor(central + sp.Sum(row_share, (j, 1, k)).doit()),
                     "sum over the k captured rows (relabelled 1..k); other examples do not involve u(0) "
                     "(off-cross: u(0) not read; uncaptured cross gates inactive)")
    vj_dot = dv.step(sp.Symbol(r"\dot v(j)"), row_share, "a captured v(j) sees only its own row gate (0, j)")
    dv.compare("(A.28)", sp.Tuple(u0_dot, vj_dot), sp.Tuple(PAPER_SLIDING["(A.28)"], -PAPER_SLIDING["(A.28)"]))
    r_dot = dv.step(sp.Symbol(r"\dot r_j"), sp.cancel(u0_dot + vj_dot), "(A.12): r_j = u(0) + v(j)")
    dv.compare("r_j constant", r_dot, 0)
    beta = dv.step(sp.Symbol(r"\beta_j"), A / ((l + 1) * gamma_[j]), "(A.27)")
    col_share = -beta * gamma_[j] / p**2
    v0_dot = dv.step(sp.Symbol(r"\dot v(0)"), sp.factor(central + sp.Sum(col_share, (j, 1, l)).doit()),
                     "the column analogue: the central share plus l captured columns")
    uj_dot = dv.step(sp.Symbol(r"\dot u(j)"), col_share, "a captured u(j) sees only its own column gate (j, 0)")
    dv.compare("(A.29)", sp.Tuple(v0_dot, uj_dot), sp.Tuple(PAPER_SLIDING["(A.29)"], -PAPER_SLIDING["(A.29)"]))
    dv.compare("s_j constant", uj_dot + v0_dot, 0)
    x_dot = dv.step(sp.Symbol(r"\dot x"), sp.factor(u0_dot + v0_dot), "(A.11): x = u(0) + v(0)")
    dv.compare("(A.30)", x_dot, PAPER_SLIDING["(A.30)"])
    dv.step(sp.Symbol(r"\dot r_j\ (j \notin R)"), u0_dot, "an uncaptured row gate: v(j) constant", relation="=")
    full_face = {k: p - 1, l: p - 1}
    dv.compare("(A.32)", sp.Tuple(u0_dot.subs(full_face), v0_dot.subs(full_face), x_dot.subs(full_face)),
               sp.Tuple(PAPER_SLIDING["(A.32)"] / 2, PAPER_SLIDING["(A.32)"] / 2, PAPER_SLIDING["(A.32)"]))

    # admissibility: z e^{-z} <= 1/e, (A.25), x >= X, gamma_j > gamma_*
    z = sp.Symbol("z", nonnegative=True)
    f = z * sp.exp(-z)
    critical = dv.step(sp.Symbol("z^*"), sp.solve(sp.diff(f, z), z), "f(z) = z e^{-z}: f'(z) = (1 - z) e^{-z} = 0")
    dv.step(sp.Symbol("f''(1)"), sp.diff(f, z, 2).subs(z, 1), "negative: a maximum")
    ends = dv.step(sp.Symbol("f(0), f(oo)"), sp.Tuple(f.subs(z, 0), sp.limit(f, z, sp.oo)), "the ends of [0, oo)")
    peak = dv.step(sp.Symbol(r"\max_{z \geq 0} z e^{-z}"), f.subs(z, critical[0]),
                   "the only critical point, above both ends")
    dv.compare("max z e^{-z}", sp.Tuple(peak, sp.maximum(f, z, sp.Interval(0, sp.oo))), sp.Tuple(sp.exp(-1),
                                                                                               sp.exp(-1)))
    dv.compare("ends below the peak", sp.Tuple(*[sp.Integer(1 if (peak - e).is_positive else 0) for e in ends]),
               sp.Tuple(1, 1))
    A_bound = dv.step(sp.Symbol("A"), (p - 1) * peak / x,
                      "(A.25): A <= sum_j d_j e^{-x d_j} (denominator >= 1) = (1/x) sum_j (x d_j) e^{-x d_j}, "
                      "p - 1 terms each <= 1/e", relation="<=")
    dv.compare("(A.25) bound", A_bound, PAPER_SLIDING["(A.25) bound"])
    alpha_bound = dv.step(sp.Symbol(r"\alpha_j"), (alpha.subs(A, A_bound)).subs({x: X, gamma_[j]: gamma_star}),
                          "alpha_j = A/((k+1) gamma_j) decreases in x and gamma_j: x >= X, gamma_j > gamma_* by (A.23)",
                          relation="<=")
    dv.compare("alpha admissible", alpha_bound, PAPER_SLIDING["alpha bound"])
    at_threshold = dv.step(sp.Symbol(r"\alpha\ \mathrm{bound\ at}\ X = (p-1)/(e\gamma_*)"),
                           alpha_bound.subs(X, (p - 1) / (sp.E * gamma_star)),
                           "(A.14): X > (p-1)/(e gamma_*) makes the bound < 1/(k+1) <= 1")
    dv.compare("alpha < 1 under (A.14)", at_threshold, 1 / (k + 1))
    return dv


def sliding_limits() -> Derivation:
    """(A.36)-(A.40), (A.45), (A.33) for symbolic p on the full sliding face."""
    dv = Derivation("sliding-limits", "Projective asymptotics on the full face and the limit loss, symbolic p",
                    ("(A.33)", "(A.36)", "(A.37)", "(A.38)", "(A.39)", "(A.40)", "(A.45)"))

    def over_wrong_classes(term):
        """sum_{j=1}^{p-1} term, term by term (linearity), so sums of e_j and e_j^2 stay as Sums."""
        total = sp.Integer(0)
        for t in sp.Add.make_args(sp.expand(term)):
            constant, varying = t.as_independent(j, as_Add=False)
            total += constant * sp.summation(varying, (j, 1, p - 1))
        return total

    uv = dv.step(sp.Symbol(r"\|u\|^2 + \|v\|^2"), a**2 + over_wrong_classes(b**2) + b**2 + over_wrong_classes(a**2),
                 "(A.31): u = (a, -b, ..., -b), v = (b, -a, ..., -a)")
    dv.compare("p(a^2+b^2)", uv, p * (a**2 + b**2))
    ab = sp.solve([sp.Eq(x, a + b), sp.Eq(Delta, a - b)], [a, b], dict=True)[0]
    uv_x = dv.step(sp.Symbol(r"\|u\|^2 + \|v\|^2"), sp.expand(uv.subs(ab)), "a = (x + Delta)/2, b = (x - Delta)/2")
    dv.compare("(A.38)", uv_x, PAPER_SLIDING["(A.38)"])

    W0, Wm = sp.symbols("w(0) w_-", real=True)
    e = sp.IndexedBase("e")
    mean = dv.step(sp.Symbol(r"\mu"), (W0 + (p - 1) * Wm) / p,
                   "(A.8) with (A.34): sum_{j != 0} w(j) = (p - 1) w_-")
    solved = sp.solve([sp.Eq(mu, mean), sp.Eq(d, W0 - Wm)], [W0, Wm], dict=True)[0]
    levels = dv.step(sp.Symbol("(w(0), w(j))"), sp.Tuple(sp.expand(solved[W0]), sp.expand(solved[Wm])),
                     "solve mu = (w(0) + (p-1) w_-)/p, d = w(0) - w_- (A.34); w(j) = w_- + e_j (A.35)")
    dv.compare("(A.36)", levels, PAPER_SLIDING["(A.36)"])
    raw = over_wrong_classes((solved[Wm] + e[j])**2)
    sum_e, sum_e2 = sp.Sum(e[j], (j, 1, p - 1)), sp.Sum(e[j]**2, (j, 1, p - 1))
    assert raw.has(sum_e) and raw.has(sum_e2)
    w_norm = dv.step(sp.Symbol(r"\|w\|^2"), sp.expand(solved[W0]**2 + raw.subs({sum_e: 0}).subs({sum_e2: E2})),
                     "sum of squares; (A.35): sum_j e_j = 0; E_2 := sum_j e_j^2")
    dv.compare("(A.37)", w_norm, PAPER_SLIDING["(A.37)"])

    K = sp.Symbol("K", real=True)
    balance = dv.step(sp.Symbol(r"\frac{p}{2}x^2 - \frac{p-1}{p}d^2"),
                      sp.expand(sp.solve(sp.Eq(uv_x - w_norm, K), x**2)[0] * p / 2 - (p - 1) / p * d**2),
                      "(A.10): ||u||^2+||v||^2-||w||^2 = K; Delta, mu constant ((A.32), (A.22)), "
                      "E_2 bounded (Lemma A.13): the right side is O(1) (A.39)")
    dv.compare("(A.39)", balance, K - p / 2 * Delta**2 + p * mu**2 + E2)
    d_of_x = dv.step(sp.Symbol("d"), sp.sqrt((p / 2 * x**2 - C) * p / (p - 1)),
                     "(A.39) with C := (p/2)x^2 - (p-1)/p d^2 bounded, d > 0")
    dv.compare("d solves (A.39)", p / 2 * x**2 - (p - 1) / p * d_of_x**2, C)
    limit = dv.step(sp.Symbol(r"\lim d/x"), sp.limit(d_of_x / x, x, sp.oo), "x -> oo (Proposition A.12)", "->")
    dv.compare("(A.40)", limit, PAPER_SLIDING["(A.40)"])

    V_norm = dv.step(sp.Symbol(r"\|V\|^2"), sp.Rational(1, 4) + over_wrong_classes(sp.Rational(1, 4)),
                     "V = (1/2, -1/2, ..., -1/2): a/x -> 1/2, b/x -> 1/2")
    dv.compare("a/x, b/x", sp.Tuple(sp.limit(ab[a] / x, x, sp.oo), sp.limit(ab[b] / x, x, sp.oo)),
               sp.Tuple(sp.Rational(1, 2), sp.Rational(1, 2)))
    q_norm = dv.step(sp.Symbol(r"\|q\|^2"), sp.cancel((1 - 1 / p)**2 + over_wrong_classes(1 / p**2)), "(A.41)")
    w_limit = dv.step(sp.Symbol(r"w_0/x"), sp.Tuple(((solved[W0] - mu) / x).subs(d, d_of_x),
                                                    ((solved[Wm] + e[j] - mu) / x).subs(d, d_of_x)),
                      "(A.43): w_0 = d q + e, e bounded (Lemma A.13); mu 1 / x -> 0 too")
    dv.compare("(A.44) w_0/x -> kappa q",
               sp.Tuple(*[sp.limit(entry, x, sp.oo) for entry in w_limit]),
               sp.Tuple(limit * (1 - 1 / p), -limit / p))
    ratio = dv.step(sp.Symbol(r"\kappa_p^2 \|q\|^2"), sp.cancel(limit**2 * q_norm), "(A.40) and (A.41)")
    dv.compare("||V||^2", V_norm, PAPER_SLIDING["||V||^2"])
    dv.compare("||q||^2", q_norm, PAPER_SLIDING["||q||^2"])
    dv.compare("kappa^2 ||q||^2", ratio, PAPER_SLIDING["kappa^2 ||q||^2"])
    theta = dv.step(sp.Symbol(r"\lim \|\theta\|/x"), sp.sqrt(2 * V_norm + ratio),
                    "u/x -> V, v/x -> V, w/x -> kappa_p q, so theta/||theta|| -> (V, V, kappa_p q)/sqrt(p)")
    dv.compare("(A.45)", theta, PAPER_SLIDING["(A.45)"])

    # the limit loss (A.33)
    T = sp.Symbol("T", nonnegative=True)
    delta = sp.Symbol("delta", positive=True)
    central = dv.step(sp.Symbol(r"\ell_0(x, w)"), sp.log(1 + T),
                      "(A.2) at label 0: log(e^{x w(0)} (1 + T)) - x w(0), T := sum_j e^{-x d_j} (w(j) = w(0) - d_j)")
    upper = dv.step(sp.Symbol(r"\ell_0(x, w)"), central.subs(T, (p - 1) * sp.exp(-x * delta)),
                    "d_j >= delta > 0 (they increase, (A.24)): T <= (p-1) e^{-x delta}; and l_0 >= 0",
                    relation="<=")
    central_limit = dv.step(sp.Symbol(r"\lim \ell_0"), sp.limit(upper, x, sp.oo), "x -> oo", "->")
    dv.compare("central loss -> 0", central_limit, 0)
    W = sp.IndexedBase("w")
    other = dv.step(sp.Symbol(r"\ell_y(0, w)"), sp.log(sp.summation(sp.exp(0 * W[c_]), (c_, 0, p - 1))) - 0 * W[0],
                    "(A.2) with h = ReLU(z) = 0: every other gate is at a kink (cross) or at -x < 0 (off-cross)")
    dv.compare("other examples", other, sp.log(p))
    loss_limit = dv.step(sp.Symbol(r"\lim \mathcal{L}"), (central_limit + (p**2 - 1) * other) / p**2,
                         "(1.1): (1/p^2)(l_0 + (p^2 - 1) log p)", "->")
    dv.compare("(A.33)", loss_limit, PAPER_SLIDING["(A.33)"])
    return dv
