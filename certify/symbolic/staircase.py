"""The (n, k) = (1, 2) staircase of docs/staircase.md: its face ODE, the steps of Theorem S, its purity
margin and the limit formulas. `certify derive` shows them as staircase-face, staircase-steps, staircase-purity
and staircase-limits.

``face_flow`` (a concrete prime, p <= 7 in practice) derives the face ODE (S.1)-(S.6) from the loss (1.1)
restricted to the face (three active gates, the 2(p - 2) boundary gates on their kinks, every other gate
inactive), the kink coefficients solving the face constraints as in Lemma A.9; ``theorem_steps`` (symbolic p)
the identities (S.3), (S.5), (S.6) and the algebra of the inequality chains (S.7)-(S.10) of Lemmas S.2-S.5 and
of the proof of Theorem S; ``purity_margin`` (symbolic p) the margin delta (S.11)-(S.15), with the exact
supremum F_0 of (S.12); ``staircase_limits`` the limit directions (S.16) (symbolic p, k), their F_zeta (S.17)
from the vectors' exact Fourier projections at the (p, n, k) of LIMIT_CASES and at (1, 2) for symbolic p, the
limit losses (S.18) and regime II's (S.19).

What is checked is algebra: each inequality is reduced to the sign of an explicit expression (a convex function
at its critical point, a polynomial with positive coefficients) that sympy decides; the analytic steps around
them (Clarke calculus, continuity, the asymptotic regime) are the proof's in docs/staircase.md and are only
named in the steps' reasons.

Equation labels (S.n) are docs/staircase.md's. Identities in exponentials are decided after every e^{z w(c)}
is written as one symbol E_z(c) (an exact abbreviation: an identity of rational functions in independent
symbols stays true when the symbols are specialised back to exponentials), over a common denominator.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation
from .definitions import example_loss, full_loss, p, parameters, recentered, softmax

# --- shared symbols ------------------------------------------------------------------------------------------

Xg, rg, cg = sp.symbols("X r c", positive=True)          # the gates z_00, z_01, z_10 on the pattern
h11 = sp.Symbol("h", positive=True)                       # X - r - c > 0: the gate (1, 1) = -h is inactive
A_, Gr, Gc = sp.symbols("A G_r G_c", real=True)           # A = -g_0(X), G_r = g_1(r), G_c = g_1(c)
D_, mu_ = sp.symbols("D mu", real=True)
W0, W1, omega = sp.symbols("W_0 W_1 omega", real=True)
c1 = sp.Symbol("c_1", positive=True)                      # cos(2 pi/p) > 0 for p >= 5
rho = sp.Symbol("rho", positive=True)
n_, k_ = sp.symbols("n k", integer=True, positive=True)
z_, w_y, w_min = sp.Symbol("z", nonnegative=True), sp.Symbol("w_y", real=True), sp.Symbol("w_min", real=True)
ell0X, ell1r = sp.symbols("ell_0(X) ell_1(r)", positive=True)
gamma_min, gamma_max = sp.symbols("gamma_min gamma_max", positive=True)
F0, L0, N_w = sp.symbols("F_0 L_0 N_w", positive=True)
C_plus = sp.Symbol("C_+", nonnegative=True)               # max(0, p mu^2 + B_0)
rho0 = sp.Symbol("rho_0", positive=True)
Dn2, Dk2 = sp.symbols("|D_n|^2 |D_k|^2", nonnegative=True)   # |D_n(zeta)|^2, |D_k(zeta)|^2 in (S.17)

#: docs/staircase.md's forms (the derivations compare what they derive with these).
PAPER_STAIRCASE = {
    # (S.1): the kink coefficient of every row gate (0, j) and of every column gate (j, 0), j >= 2
    "(S.1) row": (A_ - Gr) / (p - 1),
    "(S.1) column": (A_ - Gc) / (p - 1),
    # (S.3): the gates' velocities on the face, times p^2
    "(S.3) X": (2 * A_ - Gr - Gc) / (p - 1),
    "(S.3) r": (A_ - p * Gr) / (p - 1),
    "(S.3) c": (A_ - p * Gc) / (p - 1),
    # Lemma S.2 (a): the sum of the three tangent lines
    "(S.5) sum of gamma_j": (W0 - mu_) + (W1 - mu_),
    # Lemma S.2: (S.7) the tangent bound on Lambda, (S.8) Jensen, (S.9) the force bound; (S.10) the threshold
    "(S.7)": 3 * sp.log(2) - D_ * (Xg - rg - cg) / 2,
    "(S.8)": sp.log(p) + z_ * (mu_ - w_y),
    "(S.9)": (ell0X + ell1r - sp.log(2)) * (W0 - w_min),
    "(S.10)": 2 * sp.log(2) + 2 / ((p - 1) * rho),
    # the purity margin: (S.11) the denominator bound, (S.12) the supremum F_0 of the ratio of quadratics,
    # (S.13) |d|/|w_0|, (S.14) the bound on f_zeta(w), (S.15) delta
    "(S.11)": N_w / (2 * N_w + C_plus),
    "(S.12)": 2 * (1 + c1) / (p - 2),
    "(S.13)": rho - 1,
    "(S.14)": (sp.sqrt(F0) + rho - 1)**2,
    "(S.15)": (1 - (sp.sqrt(F0) + rho0 - 1)**2) * L0 / (2 * L0 + C_plus),
    # (S.16) the limit direction's w-levels; (S.17) its F_zeta, in general and at (n, k) = (1, 2), zeta = 1;
    # (S.18) regime I's limit loss; (S.19) regime II's max F and limit loss
    "(S.16) alpha^2": 2 * (p - k_) / k_,
    "(S.16) beta": sp.sqrt(2 * (p - k_) / k_) * k_ / (p - k_),
    "(S.17)": (8 * Dn2 + 2 * p**2 * Dk2 / (k_ * (p - k_))) / (4 * n_ * (p - n_) + p**2),
    "(S.17) (1,2)": (8 * (p - 2) + 4 * p**2 * sp.cos(sp.pi / p)**2) / ((p - 2) * (p**2 + 4 * p - 4)),
    "(S.19)": 2 * ((5 + 4 * sp.cos(2 * sp.pi / p)) * (p - 2) + p * (p - 1) * (1 + sp.cos(2 * sp.pi / p)))
    / ((p - 2) * (p**2 + 4 * p - 9)),
    "(S.18)": ((p**2 - 3) * sp.log(p) + 2 * sp.log(2)) / p**2,
    "(S.19) loss": ((p**2 - 3) * sp.log(p) + 3 * sp.log(2)) / p**2,
    # Theorem S1 (section 10): the loss budget (S1.1), the force bound of Lemma S1.6, F_1 and delta_1 (S1.2);
    # Lemma S.7's (S.20)
    "(S1.1)": 2 / (p * rho),
    "Lemma S1.6": ell0X * p * rho * gamma_min,
    "F_1": 2 / (p - 1),
    "(S1.2)": (1 - (sp.sqrt(2 / (p - 1)) + rho0 - 1)**2) * L0 / (2 * L0 + C_plus),
    "(S.20)": -(rg + cg - Xg) - (Xg * (sp.Symbol("q_0(X)") - sp.Symbol("q_1(X)"))
                                 + rg * (sp.Symbol("q_0(r)") - sp.Symbol("q_1(r)"))
                                 + cg * (sp.Symbol("q_0(c)") - sp.Symbol("q_1(c)"))),
}


def _numerator_zero(expr) -> sp.Expr:
    """The numerator of ``expr`` over a common denominator, expanded (0 iff expr is 0 as a rational function)."""
    return sp.expand(sp.numer(sp.together(expr)))


class _Exponentials:
    """Writes every e^{z w(c)} as one symbol E_name(c), keyed by the expanded exponent (see the module doc)."""

    def __init__(self):
        self.table: dict = {}

    def name(self, gate, label: str, w) -> None:
        """Give the exponentials e^{gate w(c)} the names E_label(c) (for display)."""
        for index, weight in enumerate(w):
            self.table.setdefault(sp.expand(gate * weight), sp.Symbol(f"E_{label}({index})", positive=True))

    def __call__(self, expr):
        def replace(argument):
            key = sp.expand(argument)
            if key not in self.table:
                self.table[key] = sp.Symbol(f"E_{len(self.table)}", positive=True)
            return self.table[key]

        return sp.sympify(expr).replace(sp.exp, replace)


def _g(z, label: int, w):
    """(A.4): g_y(z, w) = sum_c q_c(z, w) w(c) - w(y)."""
    return sum(qc * wc for qc, wc in zip(softmax(z, w), w)) - w[label]


# --- the face ODE (S.1)-(S.6), a concrete prime ---------------------------------------------------------------

def face_flow(prime: int = 5) -> Derivation:
    """(S.1)-(S.6): the Clarke field on the (1, 2) face from the loss (1.1), p = prime.

    Relabelled (docs/staircase.md section 1.1) so that the active gates are (0, 0) (label 0), (0, 1) and (1, 0)
    (label 1); the boundary gates (0, j), (j, 0), j >= 2 (label j) sit on their kinks (u(j) = -v(0), v(j) = -u(0)),
    every other gate is negative.
    """
    dv = Derivation(f"staircase-face-p{prime}",
                    f"The face ODE of the (1, 2) staircase from the loss (1.1), p = {prime}",
                    ("(S.1)", "(S.2)", "(S.3)", "(S.4)", "(S.5)", "(S.6)"), p=prime)
    n = sp.Integer(prime)
    u, v, w = parameters(prime)
    theta = [*u, *v, *w]
    X, r, c = u[0] + v[0], u[0] + v[1], u[1] + v[0]
    active = ((0, 0), (0, 1), (1, 0))
    kinks = [(0, j) for j in range(2, prime)] + [(j, 0) for j in range(2, prime)]

    # the loss (1.1) at a point of the face, from the full table: h = ReLU(z) = Max(z, 0)
    a0 = sp.Symbol("a_0", real=True)
    face_point = {u[0]: a0, v[0]: rg + cg + h11 - a0, v[1]: rg - a0, u[1]: cg - (rg + cg + h11 - a0)}
    face_point.update({u[j]: -(rg + cg + h11 - a0) for j in range(2, prime)})
    face_point.update({v[j]: -a0 for j in range(2, prime)})
    dv.step(sp.Symbol(r"\theta_{face}"), sp.Tuple(X.xreplace(face_point), r.xreplace(face_point),
                                                   c.xreplace(face_point)),
            "a point of the face: z_00 = X = r + c + h, z_01 = r, z_10 = c (r, c, h > 0), u(j) = -v(0), "
            "v(j) = -u(0) (j >= 2): the boundary gates are 0, z_11 = -h, z_1j = -(r + h), z_j1 = -(c + h), "
            "z_ij = -X")
    table = full_loss(prime, [x.xreplace(face_point) for x in u], [x.xreplace(face_point) for x in v], w)
    active_loss = sum(example_loss(u[a] + v[b], w, (a + b) % prime) for a, b in active) / n**2
    face_loss = dv.step(sp.Symbol(r"\mathcal{L}|_{face}"),
                        active_loss.xreplace(face_point) + (n**2 - 3) * sp.log(n) / n**2,
                        "(1.1): every example with z <= 0 has h = 0 and loss log p (A.2); the three active ones "
                        "have h = z (Lemma S.1)")
    dv.compare("Lemma S.1: (1.1) on the face", table, face_loss)

    # the Clarke field: active examples by (A.5)-(A.7); kink gates x_k (e_u(a) + e_v(b)) (Lemma A.6)
    exps = _Exponentials()
    for gate, label in ((X, "X"), (r, "r"), (c, "c")):
        exps.name(gate, label, w)
    grad = {x: sp.diff(active_loss, x) for x in theta}
    F = {x: sp.Symbol(f"F_{x.name}", real=True) for x in (*u, *v)}
    xs = {gate: sp.Symbol(f"x_{gate[0]}{gate[1]}", real=True) for gate in kinks}
    dv.step(sp.Symbol(r"\xi_{kink}"), sp.Tuple(*xs.values()),
            "a boundary gate (a, b) with label j, gamma_j > 0, contributes x_ab (e_u(a) + e_v(b)) to p^2 xi, "
            "x_ab in [0, gamma_j], and 0 to the w-part (Lemma A.6; coefficients chosen independently)")
    opaque = dict(F)
    for (a, b), x in xs.items():
        opaque[u[a]] += x
        opaque[v[b]] += x
    constraints = [opaque[u[a]] + opaque[v[b]] for a, b in kinks]
    matrix, right = sp.linear_eq_to_matrix(constraints, list(xs.values()))
    det = dv.step(sp.Symbol(r"\det N"), matrix.det(),
                  "the face constraints dz_ab/dt = 0 (Lemma A.9) as N x = -E F: rows (I + J) x_row = -(F_u(0) 1 + "
                  "F_v(j)), columns alike; det(I + J) = p - 1 for a (p-2) x (p-2) block")
    dv.compare("unique coefficients: det N = (p-1)^2", det, (n - 1)**2)
    solved = dict(zip(xs.values(), matrix.LUsolve(right)))
    no_force = {F[x]: 0 for x in (*u[2:], *v[2:])}
    dv.step(sp.Symbol(r"F_{u(j)}, F_{v(j)}"), sp.Integer(0),
            "no active gate lies in row j or column j >= 2: the active forces on u(j), v(j) vanish")
    dv.compare("(S.1) in the forces: x = -F_u(0)/(p-1) (rows), -F_v(0)/(p-1) (columns)",
               sp.Tuple(*[solved[x].xreplace(no_force) for x in xs.values()]),
               sp.Tuple(*[-(F[u[0]] if a == 0 else F[v[0]]) / (n - 1) for a, b in kinks]))
    forces = {x: n**2 * grad[x] for x in (*u, *v)}
    A_of = -_g(X, 0, w)
    x_row = dv.step(sp.Symbol("x_{row}"), (A_of - _g(r, 1, w)) / (n - 1),
                    "F_u(0) = p^2 dL/du(0) = g_0(X) + g_1(r) = -A + G_r by (A.5); A = -g_0(X) as (A.19)")
    x_col = dv.step(sp.Symbol("x_{col}"), (A_of - _g(c, 1, w)) / (n - 1), "F_v(0) = g_0(X) + g_1(c)")
    coefficient = {x: -(forces[u[0]] if a == 0 else forces[v[0]]) / (n - 1) for (a, b), x in xs.items()}
    dv.compare("(S.1)", sp.Tuple(*[exps(coefficient[x]) for x in xs.values()]),
               sp.Tuple(*[exps(x_row if a == 0 else x_col) for a, b in kinks]))

    velocity = {}
    for x in theta:
        share = sum(coefficient[xk] for (a, b), xk in xs.items() if x in (u[a], v[b]))
        velocity[x] = -(grad[x] + share / n**2)
    field = {x: exps(velocity[x]) for x in theta}
    qX, qr, qc = softmax(X, w), softmax(r, w), softmax(c, w)
    stated = {u[0]: x_row / n**2, v[0]: x_col / n**2, u[1]: -_g(c, 1, w) / n**2, v[1]: -_g(r, 1, w) / n**2}
    for index, weight in enumerate(w):
        stated[weight] = -(X * (qX[index] - int(index == 0)) + r * (qr[index] - int(index == 1))
                           + c * (qc[index] - int(index == 1))) / n**2
    dv.step(sp.Symbol(r"\dot\theta"), sp.Tuple(*[field[x] for x in stated]),
            "theta' = -xi (1.6): (A.5)-(A.7) for the three active gates plus the kink shares; E_z(c) = e^{z w(c)}")
    dv.compare("(S.2)", sp.Tuple(*[field[x] for x in stated]), sp.Tuple(*[exps(stated[x]) for x in stated]))
    dv.compare("face kept: u(j)' = -v(0)', v(j)' = -u(0)'",
               sp.Tuple(*[field[u[j]] + field[v[0]] for j in range(2, prime)],
                        *[field[v[j]] + field[u[0]] for j in range(2, prime)]),
               sp.Tuple(*([0] * (2 * prime - 4))))
    G_of = {A_: A_of, Gr: _g(r, 1, w), Gc: _g(c, 1, w), p: n}
    gate_rates = sp.Tuple(*[n**2 * (field[a] + field[b]) for a, b in ((u[0], v[0]), (u[0], v[1]), (u[1], v[0]))])
    dv.step(sp.Symbol(r"p^2 (\dot X, \dot r, \dot c)"), gate_rates, "X = u(0) + v(0), r = u(0) + v(1), c = u(1) + v(0)")
    dv.compare("(S.3)", gate_rates,
               sp.Tuple(*[exps(PAPER_STAIRCASE[f"(S.3) {name}"].xreplace(G_of)) for name in ("X", "r", "c")]))
    # the conserved difference on the face: (v(1) - u(1)) - (p - 1)(u(0) - v(0))
    drift = dv.step(sp.Symbol(r"\frac{d}{dt}(v(1) - u(1) - (p-1)(u(0) - v(0)))"),
                    field[v[1]] - field[u[1]] - (n - 1) * (field[u[0]] - field[v[0]]),
                    "(S.2): (v(1) - u(1))' = (G_c - G_r)/p^2 = (p - 1)(u(0) - v(0))'")
    dv.compare("(S.5) conserved K on the face", _numerator_zero(drift), 0)

    mu = sum(w) / n
    mu_rate = dv.step(sp.Symbol(r"\dot\mu"), sum(field[x] for x in w) / n, "(A.8): sum_c (q_c - 1{c = y}) = 0")
    dv.compare("(S.4) mu", _numerator_zero(mu_rate), 0)
    gamma_rates = sp.Tuple(*[mu_rate - field[w[j]] for j in range(2, prime)])
    for j in range(2, prime):
        dv.step(sp.Symbol(rf"\dot\gamma_{j}"), gamma_rates[j - 2], "gamma_j = mu - w(j), j >= 2: no active gate has "
                "label j")
    dv.compare("(S.4)", gamma_rates,
               sp.Tuple(*[exps((X * qX[j] + r * qr[j] + c * qc[j]) / n**2) for j in range(2, prime)]))
    gamma_sum = dv.step(sp.Symbol(r"\sum_{j \geq 2} \gamma_j"), sum(mu - w[j] for j in range(2, prime)),
                        "(A.8), (A.13): gamma_j = mu - w(j)")
    dv.compare("(S.5) sum of gamma_j", gamma_sum, w[0] + w[1] - 2 * mu)

    face = {u[j]: -v[0] for j in range(2, prime)} | {v[j]: -u[0] for j in range(2, prime)}
    balance = sum(2 * x * field[x] for x in (*u, *v)) - sum(2 * x * field[x] for x in w)
    balance_numerator = dv.step(sp.Symbol(r"\frac{d}{dt}(\|u\|^2+\|v\|^2-\|w\|^2)\ \mathrm{(numerator)}"),
                                _numerator_zero(balance.xreplace(face)),
                                "the balance quantity (A.10) along the face field, over a common denominator")
    dv.compare("(A.10) on the face", balance_numerator, 0)
    # dL/dt = <grad L, theta'> = -|theta'|^2 - (1/p^2) sum_k x_k z_k': grad + theta' is minus the kink shares
    # (per coordinate), and the regrouping by kinks is linear, so it is checked with the velocities as opaque
    # symbols V (a direct common denominator of the whole sum takes minutes at p = 5)
    residual = sp.Tuple(*[sp.expand(exps(grad[x]) + field[x]) for x in theta])
    shares = {x: sum(xk for (a, b), xk in xs.items() if x in (u[a], v[b])) for x in theta}
    dv.step(sp.Symbol(r"\nabla\mathcal{L} + \dot\theta"), sp.Tuple(*[-shares[x] / n**2 for x in theta]),
            "(S.2): theta' = -grad L - (kink shares)/p^2, x_ab the coefficients (S.1)")
    dv.compare("grad L + theta' = -(kink shares)/p^2", residual,
               sp.Tuple(*[sp.expand(-exps(sum(coefficient[xk] for (a, b), xk in xs.items() if x in (u[a], v[b])))
                                    / n**2) for x in theta]))
    V = {x: sp.Symbol(f"V_{x.name}", real=True) for x in theta}
    loss_rate = dv.step(sp.Symbol(r"\frac{d}{dt}\mathcal{L} + |\dot\theta|^2"),
                        sum(-shares[x] / n**2 * V[x] for x in theta),
                        "chain rule on the face (Lemma S.4): sum_x (dL/dx + x') x' with x' = V_x")
    dv.compare("the kink shares do no work: = -(1/p^2) sum_k x_k (V_u(a) + V_v(b)), and z_k' = 0 (face kept)",
               sp.expand(loss_rate), sp.expand(-sum(xk * (V[u[a]] + V[v[b]]) for (a, b), xk in xs.items()) / n**2))

    # the symmetric family u = v = (a, b, ...), w = (W_0, W_1, omega, ..., omega): the sketch's ODEs (S.6)
    a, b = sp.symbols("a b", real=True)
    family = {u[0]: a, v[0]: a, u[1]: b, v[1]: b, w[0]: W0, w[1]: W1} | {w[j]: omega for j in range(2, prime)}
    family.update({u[j]: -a for j in range(2, prime)} | {v[j]: -a for j in range(2, prime)})
    sym = _Exponentials()
    s = a + b
    ws = [W0, W1] + [omega] * (prime - 2)
    qa, qs = softmax(2 * a, ws), softmax(s, ws)
    raw = {x: velocity[x].xreplace(family) for x in (u[0], u[1], w[0], w[1], w[2])}
    sketch = {
        u[0]: -(_g(2 * a, 0, ws) + _g(s, 1, ws)) / ((n - 1) * n**2),
        u[1]: -_g(s, 1, ws) / n**2,
        w[0]: (2 * a * (1 - qa[0]) - 2 * s * qs[0]) / n**2,
        w[1]: (-2 * a * qa[1] + 2 * s * (1 - qs[1])) / n**2,
        w[2]: (-2 * a * qa[2] - 2 * s * qs[2]) / n**2,
    }
    dv.step(sp.Symbol(r"(\dot a, \dot b, \dot W_0, \dot W_1, \dot\omega)"), sp.Tuple(*[sym(raw[x]) for x in sketch]),
            "the field on the family: X = 2a, r = c = s = a + b")
    dv.compare("(S.6)", sp.Tuple(*[sym(raw[x]) for x in sketch]), sp.Tuple(*[sym(sketch[x]) for x in sketch]))
    invariance = [velocity[u[0]] - velocity[v[0]], velocity[u[1]] - velocity[v[1]]]
    invariance += [velocity[w[j]] - velocity[w[2]] for j in range(3, prime)]
    dv.compare("(S.6) the family is invariant",
               sp.Tuple(*[_numerator_zero(sym(e.xreplace(family))) for e in invariance]),
               sp.Tuple(*([0] * len(invariance))))
    gap = sym((raw[w[0]] - raw[w[1]]).xreplace({W0: W1}))
    dv.step(sp.Symbol(r"\frac{d}{dt}(W_0 - W_1)|_{W_0 = W_1}"), gap,
            "at D = 0 every q_0(z) = q_1(z): X(1 - q_0 + q_1) - 2s(1 + q_0 - q_1) = X - 2s")
    dv.compare("(S.6) D' at D = 0", gap, 2 * (a - s) / n**2)
    return dv



# --- Lemmas S.2-S.5 and the proof of Theorem S (symbolic p) -------------------------------------------------

def _sign_decided(expr, substitution: dict, strict: bool = True) -> int:
    """1 when ``expr`` is proved > 0 (``strict``) or >= 0 after ``substitution`` (each replaced symbol written as
    a constant plus nonnegative symbols), else 0 (undecided, never a claim of the opposite sign).

    The test: every symbol left is nonnegative; over a common denominator, the expanded denominator has
    nonnegative coefficients and a positive constant term (so it is > 0), and the expanded numerator has
    nonnegative coefficients (so it is >= 0), with a positive constant term when ``strict``."""
    numerator, denominator = sp.fraction(sp.together(sp.sympify(expr).subs(substitution)))
    symbols = sorted((numerator.free_symbols | denominator.free_symbols), key=str)
    if not all(symbol.is_nonnegative for symbol in symbols):
        return 0
    for part, needs_constant in ((denominator, True), (numerator, strict)):
        terms = sp.Poly(sp.expand(part), *symbols).as_dict() if symbols else {(): sp.expand(part)}
        if not all(coefficient.is_nonnegative for coefficient in terms.values()):
            return 0
        if needs_constant and not sp.sympify(terms.get((0,) * len(symbols), 0)).is_positive:
            return 0
    return 1


def _sum_by_linearity(term, index, low, high):
    """sum_{index=low}^{high} term, term by term with constants pulled out, so sums of w(c), q(c) stay Sums."""
    total = sp.Integer(0)
    for part in sp.Add.make_args(sp.expand(term)):
        constant, varying = part.as_independent(index, as_Add=False)
        total += constant * (sp.Sum(varying, (index, low, high)) if varying.has(index) else (high - low + 1) * varying)
    return total


def _nonnegative_by_convexity(dv: Derivation, name: str, phi, y) -> None:
    """Record phi(y) >= 0 for all real y: phi(0) = 0, phi'(0) = 0 and phi'' > 0 (a convex function is at its
    minimum at a critical point); each fact is a comparison sympy decides."""
    first, second = sp.simplify(sp.diff(phi, y)), sp.simplify(sp.diff(phi, y, 2))
    dv.step(sp.Symbol(f"{name}'({y})"), first, "differentiate")
    dv.step(sp.Symbol(f"{name}''({y})"), second, "differentiate again: positive, so the function is convex")
    dv.compare(f"{name}(0) = {name}'(0) = 0", sp.Tuple(phi.subs(y, 0), first.subs(y, 0)), sp.Tuple(0, 0))
    dv.compare(f"{name}'' > 0", sp.Integer(1 if second.is_positive else 0), 1)


def theorem_steps() -> Derivation:
    """The equalities and the algebra of the inequality chains of Lemmas S.2-S.5 and Theorem S, symbolic p.

    (S.3) from the face field's coordinates, (S.5) the conserved K and sum_j gamma_j, (S.6) the symmetric
    family's s', (S.7) the tangent bound (the convexity of log(1 + e^y) - log 2 - y/2), (S.8) Jensen (e^x >= 1 + x
    summed over the labels), (S.9) the force bound (1 - e^{-x} <= x, q_y = e^{-ell_y}), (S.10) the threshold that
    makes the force bound < 2 gamma_min, the loss levels 3 log 2 and log 2p above it, Lemma S.5's g_k(z) >=
    gamma_k (d/dz E_{q(z)} w is a variance) and Lemma S.3's order of the gamma_j and monotonicity of
    rho = gamma_max/gamma_min. Each inequality is reduced to an explicit sign that sympy decides.
    """
    dv = Derivation("staircase-steps", "Theorem S: the identities and inequality chains of its proof, symbolic p",
                    ("(S.3)", "(S.5)", "(S.6)", "(S.7)", "(S.8)", "(S.9)", "(S.10)"))
    # (S.1)-(S.3): the face field with the forces A, G_r, G_c left opaque, times p^2
    u0 = dv.step(sp.Symbol("p^2 u(0)'"), PAPER_STAIRCASE["(S.1) row"], "(S.2): the p - 2 row kink shares, (S.1)")
    v0 = dv.step(sp.Symbol("p^2 v(0)'"), PAPER_STAIRCASE["(S.1) column"], "(S.2): the column kink shares, (S.1)")
    u1 = dv.step(sp.Symbol("p^2 u(1)'"), -Gc, "(S.2): only gate (1, 0) moves u(1)")
    v1 = dv.step(sp.Symbol("p^2 v(1)'"), -Gr, "(S.2): only gate (0, 1) moves v(1)")
    rates = dv.step(sp.Symbol("p^2 (X', r', c')"), sp.Tuple(u0 + v0, u0 + v1, u1 + v0),
                    "X = u(0) + v(0), r = u(0) + v(1), c = u(1) + v(0)")
    dv.compare("(S.3)", rates, sp.Tuple(*[PAPER_STAIRCASE[f"(S.3) {name}"] for name in ("X", "r", "c")]))
    drift = dv.step(sp.Symbol("p^2 K'"), (v1 - u1) - (p - 1) * (u0 - v0), "K = (v(1) - u(1)) - (p - 1)(u(0) - v(0))")
    dv.compare("(S.5) K conserved", drift, 0)
    j, c = sp.Symbol("j", integer=True), sp.Symbol("c", integer=True)
    w_, q_ = sp.IndexedBase("w"), sp.IndexedBase("q")
    gamma_sum = dv.step(sp.Symbol("sum_{j>=2} gamma_j"), _sum_by_linearity(mu_ - w_[j], j, 2, p - 1),
                        "gamma_j = mu - w(j)")
    dv.compare("(S.5) sum of gamma_j", gamma_sum.subs(sp.Sum(w_[j], (j, 2, p - 1)), p * mu_ - W0 - W1),
               PAPER_STAIRCASE["(S.5) sum of gamma_j"])
    g0, g1 = sp.symbols("g_0(2a) g_1(s)", real=True)
    s_rate = dv.step(sp.Symbol("p^2 s'"), PAPER_STAIRCASE["(S.3) r"].subs({A_: -g0, Gr: g1}),
                     "(S.6): on u = v, r = c = s, X = 2a; (S.3) with A = -g_0(X) (A.19), G_r = g_1(s)")
    dv.compare("(S.6) s'", s_rate, -(g0 + p * g1) / (p - 1))

    # (S.7): the tangent bound
    y = sp.Symbol("y", real=True)
    phi = sp.log(1 + sp.exp(y)) - sp.log(2) - y / 2
    _nonnegative_by_convexity(dv, "phi", phi, y)
    dv.step(sp.Symbol("ell_0(X)"), sp.log(1 + sp.exp(-Xg * D_) + sp.Symbol("R_0", nonnegative=True)),
            "(A.2): log sum_c e^{X (w(c) - W_0)}, R_0 = sum_{j>=2} e^{X (w(j) - W_0)} >= 0, so ell_0(X) >= "
            "log(1 + e^{-X D}); likewise ell_1(z) >= log(1 + e^{z D})")
    tangent = sp.simplify(sp.log(1 + sp.exp(y)) - phi)
    lower = dv.step(sp.Symbol("Lambda"), sum(tangent.subs(y, arg) for arg in (-Xg * D_, rg * D_, cg * D_)),
                    "log(1 + e^y) = (log 2 + y/2) + phi(y) >= log 2 + y/2 at y = -XD, rD, cD", relation=">=")
    dv.compare("(S.7)", lower, PAPER_STAIRCASE["(S.7)"])

    # (S.8): Jensen, from e^x >= 1 + x summed over the labels
    x = sp.Symbol("x", real=True)
    psi = sp.exp(x) - 1 - x
    _nonnegative_by_convexity(dv, "psi", psi, x)
    deviations = dv.step(sp.Symbol("sum_c z (w(c) - mu)"), _sum_by_linearity(z_ * (w_[c] - mu_), c, 0, p - 1),
                         "sum_c e^{z (w(c) - mu)} >= sum_c (1 + z (w(c) - mu)) = p + this (psi >= 0)")
    deviations = deviations.subs(sp.Sum(w_[c], (c, 0, p - 1)), p * mu_)
    dv.compare("the deviations sum to 0 (mu is the mean, (A.8))", deviations, 0)
    jensen = dv.step(sp.Symbol("ell_y(z)"), sp.log(p + deviations) + z_ * mu_ - z_ * w_y,
                     "ell_y(z) = log sum_c e^{z w(c)} - z w_y = z mu + log sum_c e^{z (w(c) - mu)} - z w_y",
                     relation=">=")
    dv.compare("(S.8)", jensen, PAPER_STAIRCASE["(S.8)"])
    level = dv.step(sp.Symbol("Lambda"), jensen.subs({z_: rg, w_y: W1}) + sp.log(2),
                    "(S.8) for ell_1(r); ell_1(c) >= log(1 + e^{cD}) >= log 2 when D >= 0; ell_0 >= 0", relation=">=")
    dv.compare("r (W_1 - mu) >= log 2p - Lambda", level + rg * (W1 - mu_), sp.log(2 * p))

    # (S.9): the force bound
    Z, zy = sp.symbols("Z z_y", positive=True)
    dv.compare("q_y(z) = e^{-ell_y(z)}", sp.exp(-(sp.log(Z) - zy * w_y)), sp.exp(zy * w_y) / Z)
    A_sum = _sum_by_linearity(q_[c] * (W0 - w_[c]), c, 0, p - 1)
    dv.compare("A = sum_c q_c(X)(W_0 - w(c)) (sum_c q_c = 1)", A_sum.subs(sp.Sum(q_[c], (c, 0, p - 1)), 1),
               W0 - sp.Sum(q_[c] * w_[c], (c, 0, p - 1)))
    q0X, q1r = sp.symbols("q_0(X) q_1(r)", positive=True)
    spread = W0 - w_min
    bound = dv.step(sp.Symbol("A - g_1(r)"), (1 - q0X) * spread + (1 - 2 * q1r) * spread,
                    "A = sum_{c != 0} q_c(X)(W_0 - w(c)) <= (1 - q_0(X))(W_0 - w_min); -g_1(r) = sum_{j>=2} q_j(r)"
                    "(W_1 - w(j)) - q_0(r) D <= (1 - q_0(r) - q_1(r))(W_1 - w_min) <= (1 - 2 q_1(r))(W_0 - w_min) "
                    "(q_0(r) >= q_1(r) as D >= 0; W_1 <= W_0)", relation="<=")
    force = dv.step(sp.Symbol("A - g_1(r)"), bound.subs({q0X: sp.exp(-ell0X), q1r: sp.exp(-(ell1r - sp.log(2))) / 2}),
                    "q_0(X) = e^{-ell_0(X)}, 2 q_1(r) = e^{-(ell_1(r) - log 2)}", relation="<=")
    slack = dv.step(sp.Symbol("slack"), (psi.subs(x, -ell0X) + psi.subs(x, -(ell1r - sp.log(2)))) * spread,
                    "1 - e^{-x} <= x is psi(-x) >= 0, at x = ell_0(X) and at x = ell_1(r) - log 2; W_0 - w_min >= 0",
                    relation=">=")
    chained = dv.step(sp.Symbol("A - g_1(r)"), force + slack, "the bound plus a nonnegative slack", relation="<=")
    dv.compare("(S.9)", chained, PAPER_STAIRCASE["(S.9)"])

    # (S.10): W_0 - w_min < (p - 1) gamma_max, and the threshold making the force bound < 2 gamma_min
    S_, Lam = sp.Symbol("S", positive=True), sp.Symbol("Lambda", positive=True)
    width = dv.step(sp.Symbol("W_0 - w_min"), (S_ - (W1 - mu_)) + gamma_max,
                    "(W_0 - mu) + gamma_max, W_0 - mu = S - (W_1 - mu) by (S.5), S = sum_j gamma_j")
    dv.compare("(p - 1) gamma_max - (W_0 - w_min) = ((p - 2) gamma_max - S) + (W_1 - mu) > 0",
               (p - 1) * gamma_max - width, ((p - 2) * gamma_max - S_) + (W1 - mu_))
    threshold = dv.step(sp.Symbol("Lambda^*"),
                        2 * sp.log(2) + sp.solve(sp.Eq(Lam * (p - 1) * gamma_max, 2 * gamma_min), Lam)[0],
                        "(S.9) with ell_0(X) + ell_1(r) <= Lambda - log 2: A - g_1(r) < (Lambda - 2 log 2)(p - 1) "
                        "gamma_max, which is < 2 gamma_min below this Lambda (solve for Lambda - 2 log 2)")
    dv.compare("(S.10)", threshold.subs(gamma_max, rho * gamma_min), PAPER_STAIRCASE["(S.10)"])
    q, sigma = sp.symbols("q sigma", nonnegative=True)
    below = dv.step(sp.Symbol("1/2 - 2/((p - 1) rho)"), sp.Rational(1, 2) - 2 / ((p - 1) * rho),
                    "p = 5 + q, rho = 1 + sigma (q, sigma >= 0): >= 0, so Lambda^* <= 2 log 2 + 1/2 < 3 log 2")
    dv.compare("Lambda^* <= 2 log 2 + 1/2", sp.Integer(_sign_decided(below, {p: 5 + q, rho: 1 + sigma}, strict=False)),
               1)
    dv.compare("log 2 > 1/2, and log(p/4) >= log(5/4) > 0 (p >= 5)",
               sp.Tuple(sp.Integer(1 if (sp.log(2) - sp.Rational(1, 2)).is_positive else 0),
                        sp.Integer(1 if sp.log(sp.Rational(5, 4)).is_positive else 0)), sp.Tuple(1, 1))
    dv.compare("log 2p - 3 log 2 = log(p/4)", sp.log(2 * p) - 3 * sp.log(2), sp.log(p / 4))
    # Lemma S.5: g_k(z) = E_{q(z)} w - w(k) >= gamma_k for z >= 0, since E_{q(z)} w increases from mu
    S0 = sp.Sum(sp.exp(z_ * w_[c]), (c, 0, p - 1))
    mean_w = dv.step(sp.Symbol("E_{q(z)} w"), sp.Sum(w_[c] * sp.exp(z_ * w_[c]), (c, 0, p - 1)) / S0,
                     "(A.3): q_c(z) = e^{z w(c)}/sum_d e^{z w(d)}")
    slope = dv.step(sp.Symbol("d/dz E_{q(z)} w"), sp.diff(mean_w, z_), "differentiate under the finite sum")
    variance = _sum_by_linearity(sp.exp(z_ * w_[c]) / S0 * (w_[c] - mean_w)**2, c, 0, p - 1)
    dv.compare("d/dz E_{q(z)} w = sum_c q_c(z)(w(c) - E_{q(z)} w)^2 >= 0 (a variance)", slope,
               variance.subs(sp.Sum(sp.exp(z_ * w_[c]), (c, 0, p - 1)), S0))
    dv.compare("E_{q(0)} w = mu (the mean, (A.8))", mean_w.subs(z_, 0).doit().subs(sp.Sum(w_[c], (c, 0, p - 1)),
                                                                                  p * mu_), mu_)
    j_star = sp.Symbol("g_{j*}", real=True)
    dv.step(sp.Symbol("p^2 Z'"), A_ - Gr - 2 * j_star,
            "Lemma S.5: Z = z_{0j*} active: p^2 u(0)' <= A - g_1(r) - g_{j*}(z_{0j*}) (other active and kink terms "
            "are <= 0), p^2 v(j*)' = -g_{j*}; and g_{j*} >= gamma_{j*} >= gamma_min, so Z' < 0 when "
            "A - g_1(r) < 2 gamma_min", relation="<=")
    # Lemma S.3: the order of the gamma_j is kept: phi = gamma_b - gamma_a = w(a) - w(b), q_a = q_b e^{z phi}
    zz, qb, ph = sp.symbols("z q_b phi", positive=True)
    kappa = sp.Symbol("k(t)")
    term = dv.step(sp.Symbol("z (q_b(z) - q_a(z))"), zz * (qb - qb * sp.exp(zz * ph)),
                   "(S.4): p^2 phi' = sum over the three gates of z (q_b(z) - q_a(z)); q_a = q_b e^{z phi}")
    dv.compare("z (q_b - q_a) = -[z q_b (e^{z phi} - 1)/phi] phi, the bracket >= 0 (e^{z phi} - 1 has phi's sign)",
               term, -(zz * qb * (sp.exp(zz * ph) - 1) / ph) * ph)
    dv.step(sp.Symbol("phi(t)"), sp.Symbol("phi(0)") * sp.exp(-kappa),
            "p^2 phi' = -k phi with k >= 0: phi keeps its sign and |phi| does not increase (k(t) here is the "
            "integral of k/p^2)")
    dv.compare("rho = 1 + (gamma_max - gamma_min)/gamma_min", gamma_max / gamma_min,
               1 + (gamma_max - gamma_min) / gamma_min)
    # the same in derivatives: rho = gamma_max/gamma_min is nonincreasing when gamma_max' <= gamma_min'
    dmin, dmax = sp.symbols("gamma_min' gamma_max'", nonnegative=True)
    rho_rate = dv.step(sp.Symbol("rho'"), (dmax * gamma_min - gamma_max * dmin) / gamma_min**2, "quotient rule")
    dv.compare("rho' = gamma_min'(gamma_min - gamma_max)/gamma_min^2 - (gamma_min' - gamma_max')/gamma_min",
               rho_rate, dmin * (gamma_min - gamma_max) / gamma_min**2 - (dmin - dmax) / gamma_min)
    dv.step(sp.Symbol("rho'"), dmin * (gamma_min - gamma_max) / gamma_min**2,
            "gamma_max' <= gamma_min' (Lemma S.3: q_j(z) increases with w(j)); then <= 0 as gamma_min' >= 0 and "
            "gamma_min <= gamma_max", relation="<=")
    dv.compare("(sum gamma - (p - 1) gamma_min)' <= (p - 2) gamma_min' - (p - 1) gamma_min' = -gamma_min'",
               (p - 2) * dmin - (p - 1) * dmin, -dmin)
    return dv


# --- the purity margin (S.11)-(S.15), symbolic p -------------------------------------------------------------

def purity_margin() -> Derivation:
    """(S.11)-(S.15): the margin delta with max_zeta F_zeta <= 1 - delta, symbolic p.

    (S.11) the denominator of F_zeta bounded through the balance (A.10); (S.12) the exact supremum F_0 of the
    ratio of quadratics (the Fourier fraction of the symmetric part of w): both quadratics are symmetric about
    m = (p - 2)/2, so in s = (t - m)^2 they are N_0 + n_2 s and D_0 + 2 s, and the ratio is nonincreasing in s
    iff n_2 D_0 <= 2 N_0, i.e. (1 - c_1)(p - 2) <= p (1 + c_1), true for c_1 = cos(2 pi/p) > 0; (S.13) the
    asymmetric part |d|/|w_0| <= rho - 1; (S.14) the triangle inequality; (S.15) delta from the monotone L.
    """
    dv = Derivation("staircase-purity", "The purity margin of Theorem S (S.11)-(S.15), symbolic p",
                    ("(S.11)", "(S.12)", "(S.13)", "(S.14)", "(S.15)"))
    # (S.11)
    uu, vv = sp.symbols("|u|^2 |v|^2", nonnegative=True)
    B0 = sp.Symbol("B_0", real=True)      # |u|^2 + |v|^2 - |w|^2 at theta0, conserved (A.10)
    f_w = sp.Symbol("f_zeta(w)", nonnegative=True)
    dv.step(sp.Symbol("|w|^2"), N_w + p * mu_**2, "w = w_0 + mu 1 with w_0 orthogonal to 1")
    total = dv.step(sp.Symbol("|u_0|^2 + |v_0|^2 + N_w"), uu + vv + N_w,
                    "recentring (1.2) is an orthogonal projection: |u_0| <= |u|, |v_0| <= |v|", relation="<=")
    via_balance = dv.step(sp.Symbol("|u_0|^2 + |v_0|^2 + N_w"), 2 * N_w + p * mu_**2 + B0,
                          "(A.10): |u|^2 + |v|^2 = B_0 + |w|^2; C_+ = max(0, p mu^2 + B_0) >= p mu^2 + B_0",
                          relation="<=")
    dv.compare("|u|^2 + |v|^2 + N_w = 2 N_w + p mu^2 + B_0", total.subs(uu, B0 + N_w + p * mu_**2 - vv), via_balance)
    x = sp.Symbol("x", positive=True)
    dv.compare("x/(2x + C) has derivative C/(2x + C)^2 >= 0", sp.diff(x / (2 * x + C_plus), x),
               C_plus / (2 * x + C_plus)**2)
    margin = dv.step(sp.Symbol("1 - F_zeta"), (1 - f_w) * N_w / via_balance.subs(B0, C_plus - p * mu_**2),
                     "1 - F_zeta = sum of |(I - Pi_zeta) x_0|^2 over u, v, w divided by the total >= "
                     "(1 - f_zeta(w)) N_w / total, total <= 2 N_w + C_+", relation=">=")
    dv.compare("(S.11)", margin / (1 - f_w), PAPER_STAIRCASE["(S.11)"])

    # (S.12): w_0 symmetric in the labels j >= 2, scaled so that gamma_j = 1: (t, p - 2 - t, -1, ..., -1)
    t = sp.Symbol("t", positive=True)
    theta = sp.Symbol("theta", real=True)
    hat = dv.step(sp.Symbol("w_0^(zeta)"), t + (p - 2 - t) * sp.exp(-sp.I * theta) + 1 + sp.exp(-sp.I * theta),
                  "DFT sum_a w_0(a) e^{-i theta a}, theta = 2 pi zeta/p: the labels j >= 2 give minus the character "
                  "sum over all a (= 0) plus the terms a = 0, 1")
    energy = dv.step(sp.Symbol("|w_0^(zeta)|^2"), sp.expand(sp.expand_complex(hat * sp.conjugate(hat))),
                     "times its conjugate")
    numerator = (t + 1)**2 + (p - 1 - t)**2 + 2 * c1 * (t + 1) * (p - 1 - t)
    dv.compare("|w_0^(zeta)|^2 at theta = 2 pi/p", energy.subs(sp.cos(theta), c1).subs(sp.sin(theta)**2, 1 - c1**2),
               numerator)
    denominator = dv.step(sp.Symbol("|w_0|^2"), t**2 + (p - 2 - t)**2 + (p - 2), "the p - 2 entries -1")
    ratio = dv.step(sp.Symbol("f_1(w)"), sp.Rational(2) / p * numerator / denominator,
                    "|Pi_zeta x|^2 = (2/p)|hat x(zeta)|^2 (x real); zeta = 1 has the largest cos(2 pi zeta/p) and "
                    "2 (t + 1)(p - 1 - t) > 0 on 0 < t < p - 2")
    m, sq, sig = (p - 2) / 2, sp.Symbol("s", nonnegative=True), sp.Symbol("sigma", real=True)
    N0, n2 = p**2 * (1 + c1) / 2, 2 * (1 - c1)
    D0 = p * (p - 2) / 2
    dv.compare("numerator = N_0 + n_2 (t - m)^2", sp.expand(numerator.subs(t, m + sig)), sp.expand(N0 + n2 * sig**2))
    dv.compare("denominator = D_0 + 2 (t - m)^2", sp.expand(denominator.subs(t, m + sig)), sp.expand(D0 + 2 * sig**2))
    slope = dv.step(sp.Symbol("d/ds ((N_0 + n_2 s)/(D_0 + 2 s))"), sp.diff((N0 + n2 * sq) / (D0 + 2 * sq), sq),
                    "s = (t - m)^2 >= 0")
    dv.compare("slope = (n_2 D_0 - 2 N_0)/(D_0 + 2 s)^2", slope, (n2 * D0 - 2 * N0) / (D0 + 2 * sq)**2)
    q = sp.Symbol("q", nonnegative=True)
    condition = dv.step(sp.Symbol("2 N_0 - n_2 D_0"), sp.factor(2 * N0 - n2 * D0),
                        "= p (p (1 + c_1) - (1 - c_1)(p - 2)): positive for c_1 > 0, p = 5 + q, q >= 0")
    dv.compare("2 N_0 - n_2 D_0 = p (p (1 + c_1) - (1 - c_1)(p - 2))", condition,
               p * (p * (1 + c1) - (1 - c1) * (p - 2)))
    dv.compare("n_2 D_0 < 2 N_0: the ratio decreases in s", sp.Integer(_sign_decided(condition, {p: 5 + q})), 1)
    supremum = dv.step(sp.Symbol("F_0"), sp.factor(ratio.subs(t, m)),
                       "the supremum is the value at s = 0, t = m = (p - 2)/2 (inside 0 < t < p - 2)")
    dv.compare("(S.12)", supremum, PAPER_STAIRCASE["(S.12)"])

    # (S.13): the asymmetric part d_j = gamma_j - mean gamma
    spread = sp.Symbol("Delta_gamma", nonnegative=True)    # gamma_max - gamma_min
    d2 = dv.step(sp.Symbol("|d|^2"), (p - 2) * spread**2,
                 "|d_j| <= gamma_max - gamma_min (the mean lies in [gamma_min, gamma_max]), p - 2 entries",
                 relation="<=")
    w2 = dv.step(sp.Symbol("|w_0|^2"), (p - 2) * gamma_min**2, "|w_0|^2 >= sum_{j>=2} gamma_j^2", relation=">=")
    ratio_d = dv.step(sp.Symbol("|d|/|w_0|"), sp.sqrt(sp.cancel(d2 / w2)), "quotient of the bounds; "
                      "gamma_max - gamma_min = (rho - 1) gamma_min", relation="<=")
    dv.compare("(S.13)", ratio_d.subs(spread, gamma_max - gamma_min).subs(gamma_max, rho * gamma_min),
               PAPER_STAIRCASE["(S.13)"])
    g, dd = sp.Symbol("g", positive=True), sp.IndexedBase("d")
    jj = sp.Symbol("j", integer=True)
    pythagoras = dv.step(sp.Symbol("sum_{j>=2} (g + d_j)^2"), _sum_by_linearity((g + dd[jj])**2, jj, 2, p - 1),
                         "w_0 = w_sym + (0, 0, -d_2, ...): expand; sum_j d_j = 0")
    dv.compare("|w_0|^2 = |w_sym|^2 + |d|^2 (sum_j d_j = 0)", pythagoras.subs(sp.Sum(dd[jj], (jj, 2, p - 1)), 0),
               (p - 2) * g**2 + sp.Sum(dd[jj]**2, (jj, 2, p - 1)))
    # (S.14): sqrt f_zeta(w) <= (|Pi w_sym| + |d|)/|w_0| <= sqrt(F_0) |w_sym|/|w_0| + |d|/|w_0|
    sym_share = sp.Symbol("|w_sym|/|w_0|", positive=True)
    bound = dv.step(sp.Symbol("f_zeta(w)"), (sp.sqrt(F0) * sym_share + sp.simplify(
        ratio_d.subs(spread, gamma_max - gamma_min).subs(gamma_max, rho * gamma_min)))**2,
                    "|Pi_zeta w_0| <= |Pi_zeta w_sym| + |d| (Pi_zeta is 1-Lipschitz), |Pi_zeta w_sym| <= sqrt(F_0) "
                    "|w_sym|, (S.13)", relation="<=")
    bound = dv.step(sp.Symbol("f_zeta(w)"), bound.subs(sym_share, 1), "|w_sym| <= |w_0| (Pythagoras)", relation="<=")
    dv.compare("(S.14)", bound, PAPER_STAIRCASE["(S.14)"])
    # (S.15): N_w >= L = S^2/2 + sum gamma_j^2, L nondecreasing, rho <= rho_0
    a0, a1 = sp.symbols("(W_0-mu) (W_1-mu)", positive=True)
    dv.compare("N_w - L = (W_0 - W_1)^2/2 >= 0 (the terms j >= 2 cancel)",
               a0**2 + a1**2 - (a0 + a1)**2 / 2, (a0 - a1)**2 / 2)
    dv.step(sp.Symbol("L'"), sp.Symbol("S S' + 2 sum_j gamma_j gamma_j'"), "gamma_j > 0 and gamma_j' >= 0 (Lemma S.3): "
            "L never decreases, and rho never increases")
    delta = dv.step(sp.Symbol("delta"), (1 - bound.subs(rho, rho0)) * (margin / (1 - f_w)).subs(N_w, L0),
                    "(S.11) with (S.14) at rho <= rho_0 and N_w >= L >= L_0 (x/(2x + C_+) increasing); positive "
                    "when sqrt(F_0) + rho_0 - 1 < 1", relation="<=")
    dv.compare("(S.15)", delta, PAPER_STAIRCASE["(S.15)"])
    return dv


def one_gate_steps() -> Derivation:
    """Theorem S1 (docs/staircase.md, section 10), symbolic p: the identity W0 - mu = S (Lemma S1.2), the force
    bound of Lemma S1.6 and the budget (S1.1) it gives, the fraction F_1 = 2/(p - 1) of Step 2 of Proposition
    S1.7 from the DFT of w_0 = p e_0 - 1 (all gamma_j = 1), and delta_1 (S1.2); and Lemma S.7's (S.20), the
    velocity of D = w(0) - w(1) from the w-velocity of three active gates (section 11).

    As for the other staircase derivations, the analytic steps (Clarke calculus, the first-exit argument) are the
    proof's in docs/staircase.md; what sympy checks is the algebra.
    """
    dv = Derivation("staircase-one-gate", "Theorem S1 (one gate) and Lemma S.7, symbolic p",
                    ("(S1.1)", "Lemma S1.6", "F_1", "(S1.2)", "(S.20)"))
    gam = sp.IndexedBase("gamma")
    j = sp.Symbol("j", integer=True)
    S = sp.Sum(gam[j], (j, 1, p - 1))
    # Lemma S1.2: sum_c (w(c) - mu) = 0 with w(j) = mu - gamma_j for j >= 1
    excess = dv.step(sp.Symbol("W_0 - mu"), -sp.Sum(-gam[j], (j, 1, p - 1)),
                     "sum_c (w(c) - mu) = 0 (mu is the mean), and w(j) - mu = -gamma_j for j >= 1")
    dv.compare("W_0 - mu = S = sum_{j >= 1} gamma_j", sp.simplify(excess - S), sp.Integer(0))
    # Lemma S1.6: A <= (1 - q_0)(W0 - w_min) <= ell_0 (S + gamma_max) <= ell_0 p gamma_max = ell_0 p rho gamma_min
    spread = dv.step(sp.Symbol("W_0 - w_min"), (p - 1) * gamma_max + gamma_max,
                     "W_0 - w_min = (W_0 - mu) + gamma_max = S + gamma_max, and S <= (p - 1) gamma_max",
                     relation="<=")
    force = dv.step(sp.Symbol("A"), ell0X * spread.subs(gamma_max, rho * gamma_min),
                    "A = sum_{c != 0} q_c(X)(W_0 - w(c)) <= (1 - q_0(X))(W_0 - w_min), 1 - q_0 = 1 - e^{-ell_0} "
                    "<= ell_0, gamma_max = rho gamma_min", relation="<=")
    dv.compare("Lemma S1.6", sp.expand(force), sp.expand(PAPER_STAIRCASE["Lemma S1.6"]))
    budget = dv.step(sp.Symbol("ell_0(X)"), sp.solve(sp.Eq(force, 2 * gamma_min), ell0X)[0],
                     "A < 2 gamma_min (Lemma S1.5) holds when the bound of A is below 2 gamma_min", relation="<")
    dv.compare("(S1.1)", budget, PAPER_STAIRCASE["(S1.1)"])
    # Step 2 of Proposition S1.7: w_0 = p g e_0 - g 1 at rho = 1, scaled to g = 1
    theta = sp.Symbol("theta", real=True)
    a = sp.Symbol("a", integer=True)
    hat = dv.step(sp.Symbol("w_0^(zeta)"), p - sp.Sum(sp.exp(-sp.I * theta * a), (a, 0, p - 1)),
                  "DFT of w_0 = p e_0 - 1 at theta = 2 pi zeta/p")
    hat = dv.step(sp.Symbol("w_0^(zeta)"), p, "the character sum over all a vanishes for zeta != 0")
    energy = dv.step(sp.Symbol("|Pi_zeta w_0|^2"), sp.Rational(2) / p * hat**2,
                     "|Pi_zeta x|^2 = (2/p)|hat x(zeta)|^2 for real x and zeta != 0")
    norm = dv.step(sp.Symbol("|w_0|^2"), (p - 1)**2 + (p - 1), "entries S = p - 1 at 0 and -1 at the p - 1 others")
    dv.compare("F_1", sp.factor(energy / norm), PAPER_STAIRCASE["F_1"])
    dv.compare("(S1.2)", (1 - (sp.sqrt(sp.factor(energy / norm)) + rho0 - 1)**2) * L0 / (2 * L0 + C_plus),
               PAPER_STAIRCASE["(S1.2)"])
    # (S.20): p^2 w' = -[X (q(X) - e_0) + r (q(r) - e_1) + c (q(c) - e_1)], D = w(0) - w(1)
    q = {(c, z): sp.Symbol(f"q_{c}({z})") for c in (0, 1) for z in ("X", "r", "c")}
    gates = (("X", Xg, 0), ("r", rg, 1), ("c", cg, 1))
    w_dot = {c: dv.step(sp.Symbol(f"p^2 w({c})'"), -sum(z * (q[c, name] - (1 if label == c else 0))
                                                          for name, z, label in gates),
                        "only the strictly active gates move w (Lemma A.6), each by -z (q(z) - e_y)")
             for c in (0, 1)}
    d_dot = dv.step(sp.Symbol("p^2 D'"), sp.expand(w_dot[0] - w_dot[1]), "D = w(0) - w(1)")
    dv.compare("(S.20)", d_dot, sp.expand(PAPER_STAIRCASE["(S.20)"]))
    return dv


# --- the limits (S.16)-(S.19) ---------------------------------------------------------------------------------

#: The (p, n, k) at which staircase_limits checks (S.17) against the Fourier projection of the vector itself.
LIMIT_CASES = ((5, 1, 2), (5, 2, 3), (5, 2, 4), (7, 1, 2), (13, 1, 2))


def _class_energies(vector, prime: int, omega, cyclotomic):
    """|Pi_zeta x_0|^2 for zeta = 1..(p-1)/2, x_0 the recentred ``vector``, exactly in Q(omega) (omega^p = 1
    primitive): x_0^T P x_0 with P[a, b] = (1/p)(omega^{zeta(a-b)} + omega^{-zeta(a-b)}) (the projection onto the
    real class E_zeta, as in fourier.fourier_fraction_exact), collected by powers of omega and reduced modulo
    Phi_p. Entries may contain other symbols (a scale); the reduction is in omega only."""
    x0 = recentered(vector)
    energies = []
    for z in range(1, (prime - 1) // 2 + 1):
        coefficients = [sp.Integer(0)] * prime
        for a in range(prime):
            for b in range(prime):
                product = x0[a] * x0[b]
                coefficients[z * (a - b) % prime] += product
                coefficients[-z * (a - b) % prime] += product
        energy = sum(sp.expand(coefficient) * omega**power for power, coefficient in enumerate(coefficients)) / prime
        energies.append(sp.expand(sp.rem(sp.expand(energy), cyclotomic, omega)))
    return energies


def _reduced(expr, omega, cyclotomic):
    """``expr`` (a polynomial in omega over rational functions of other symbols) reduced modulo Phi_p."""
    return sp.expand(sp.rem(sp.expand(expr), cyclotomic, omega))


def _fraction_of(vectors, prime: int, omega, cyclotomic, values: dict):
    """F_zeta of the state (u, v, w) = ``vectors`` for zeta = 1..(p-1)/2 (1.5), as reduced elements of Q(omega);
    ``values`` substitutes the squares of scale symbols once the quadratic forms are formed."""
    energies = [_class_energies(x, prime, omega, cyclotomic) for x in vectors]
    norm = sum(sum(entry**2 for entry in recentered(x)) for x in vectors)
    norm = sp.cancel(sp.expand(norm).subs(values))
    return [_reduced(sp.expand(sum(parts)).subs(values) / norm, omega, cyclotomic) for parts in zip(*energies)]


def staircase_limits() -> Derivation:
    """(S.16)-(S.19): the limit directions, their F_zeta and the limit losses.

    (S.16) the direction's w has mean 0 and |w|^2 = |u|^2 + |v|^2 (symbolic p, k); (S.17) F_zeta of that direction
    from its Fourier projection, exactly in Q(e^{2 pi i/p}) for every zeta, against the closed form, at each
    (p, n, k) of LIMIT_CASES, and its (1, 2), zeta = 1 form for symbolic p; (S.18) regime I's limit loss; (S.19)
    regime II's max F from its vector (symbolic p by character sums, and exactly at p = 5, 7, 13) and its loss.
    The limits themselves (that the trajectory's direction converges there) are the formal asymptotics of
    docs/staircase.md, not proved; what is checked is what those directions give.
    """
    dv = Derivation("staircase-limits", "The limit directions of the staircase, their F_zeta and limit losses",
                    ("(S.16)", "(S.17)", "(S.18)", "(S.19)"))
    # (S.16): symbolic p, k
    alpha = sp.sqrt(PAPER_STAIRCASE["(S.16) alpha^2"])
    beta = PAPER_STAIRCASE["(S.16) beta"]
    dv.step(sp.Symbol("w/X"), sp.Tuple(alpha, -beta), "(S.16): alpha on the k labels m < k, -beta on the others")
    dv.compare("(S.16) mean 0", sp.simplify(k_ * alpha - (p - k_) * beta), 0)
    dv.compare("(S.16) balance |w|^2 = |u|^2 + |v|^2 = 2p", sp.simplify(k_ * alpha**2 + (p - k_) * beta**2), 2 * p)

    # (S.17) at the concrete cases, from the vectors
    for prime, n, k in LIMIT_CASES:
        omega = sp.Symbol("omega")
        cyclotomic = sp.cyclotomic_poly(prime, omega)
        scale = sp.Symbol("alpha", positive=True)
        u = [sp.Integer(1 if i < n else -1) for i in range(prime)]
        w = [scale if m_ < k else -scale * sp.Rational(k, prime - k) for m_ in range(prime)]
        values = {scale**2: sp.Rational(2 * (prime - k), k)}
        fractions = _fraction_of((u, u, w), prime, omega, cyclotomic, values)
        formula = []
        for z in range(1, (prime - 1) // 2 + 1):
            D = {size: sum(omega**(z * i % prime) for i in range(size)) for size in (n, k)}
            conjugate = {size: sum(omega**(-z * i % prime) for i in range(size)) for size in (n, k)}
            closed = PAPER_STAIRCASE["(S.17)"].subs({p: prime, n_: n, k_: k}).subs(
                {Dn2: D[n] * conjugate[n], Dk2: D[k] * conjugate[k]})
            formula.append(_reduced(closed, omega, cyclotomic))
        dv.step(sp.Symbol(f"F_zeta (p, n, k) = ({prime}, {n}, {k})"), sp.Tuple(*fractions),
                "x_0^T P x_0 summed over u, v, w, divided by |u_0|^2 + |v_0|^2 + |w_0|^2, in Q(omega) mod Phi_p, "
                "zeta = 1..(p-1)/2")
        dv.compare(f"(S.17) at (p, n, k) = ({prime}, {n}, {k})", sp.Tuple(*fractions), sp.Tuple(*formula))

    # (S.17) at (n, k) = (1, 2) for symbolic p: D_1 = 1, D_2 = 1 + e^{2 pi i zeta/p}
    theta = 2 * sp.pi / p
    D2 = 1 + sp.exp(sp.I * theta)
    D2_squared = dv.step(sp.Symbol("|D_2(1)|^2"), sp.expand(sp.expand_complex(D2 * sp.conjugate(D2))),
                         "D_2(zeta) = 1 + e^{2 pi i zeta/p} at zeta = 1, times its conjugate")
    dv.compare("|D_2(1)|^2 = 4 cos^2(pi/p)", sp.expand_trig(D2_squared.subs(theta, 2 * sp.Symbol("x"))).subs(
        sp.Symbol("x"), sp.pi / p), 4 * sp.cos(sp.pi / p)**2)
    at_12 = dv.step(sp.Symbol("F_1 at (n, k) = (1, 2)"),
                    PAPER_STAIRCASE["(S.17)"].subs({n_: 1, k_: 2, Dn2: 1, Dk2: 4 * sp.cos(sp.pi / p)**2}),
                    "(S.17) with |D_1|^2 = 1; zeta = 1 is the largest: F increases with cos^2(pi zeta/p), largest "
                    "at zeta = 1 among 1..(p-1)/2")
    dv.compare("(S.17) (1,2)", at_12, PAPER_STAIRCASE["(S.17) (1,2)"])

    # (S.18): regime I's limit loss
    y, Y = sp.symbols("y Y", positive=True)
    ell0 = dv.step(sp.Symbol("ell_0(X)"), sp.log(1 + (p - 1) * sp.exp(-Y)),
                   "every w(c) - W_0 <= -D for c != 0; Y = X D -> oo on regime I (formal asymptotics)", relation="<=")
    ell1 = dv.step(sp.Symbol("ell_1(s)"), sp.log(sp.exp(y) + 1 + (p - 2) * sp.exp(-Y)),
                   "log(e^{sD} + 1 + sum_{j>=2} e^{-s(W_1 - w(j))}) at the common E = W_1 - w(j): y = s D -> 0, "
                   "Y = s E -> oo (formal asymptotics)")
    limits = dv.step(sp.Symbol("lim (ell_0, ell_1)"), sp.Tuple(sp.limit(ell0, Y, sp.oo),
                                                              sp.limit(sp.limit(ell1, Y, sp.oo), y, 0)), "limits", "->")
    loss_I = dv.step(sp.Symbol("lim L"), ((p**2 - 3) * sp.log(p) + limits[0] + 2 * limits[1]) / p**2,
                     "(1.1): p^2 - 3 examples at log p (Lemma S.1), the gate X and the two gates r = c = s", "->")
    dv.compare("(S.18)", loss_I, PAPER_STAIRCASE["(S.18)"])

    # (S.19): regime II, u = v -> (1, 0, -1, ..., -1), w - mu -> kappa (e_0 + e_1 - 2/p)
    kappa2 = sp.Symbol("kappa^2", positive=True)
    u_norm = dv.step(sp.Symbol("|u|^2"), 1 + (p - 2), "u/a -> (1, 0, -1, ..., -1)")
    e01_norm = dv.step(sp.Symbol("|e_0 + e_1 - 2/p|^2"), sp.cancel(2 * (1 - 2 / p)**2 + (p - 2) * 4 / p**2), "entries")
    kappa_sq = dv.step(sp.Symbol("kappa^2"), sp.solve(sp.Eq(2 * u_norm, kappa2 * e01_norm), kappa2)[0],
                       "(A.10): |u|^2 + |v|^2 - |w|^2 is constant, mu constant (S.4): |u|^2 + |v|^2 ~ |w - mu|^2")
    dv.compare("kappa^2 = p (p - 1)/(p - 2)", kappa_sq, p * (p - 1) / (p - 2))
    c = sp.Symbol("c", real=True)     # cos(2 pi zeta/p)
    u0_norm = dv.step(sp.Symbol("|u_0|^2"), sp.cancel(u_norm - p * ((1 - (p - 2)) / p)**2), "|u|^2 - p mean^2")
    angle = sp.Symbol("theta", real=True)

    def squared_modulus(expr):
        """|expr|^2 with cos(theta) written c (sin^2 + cos^2 = 1)."""
        return sp.expand(sp.simplify(sp.expand_complex(expr * sp.conjugate(expr)))).subs(sp.cos(angle), c)

    hat_u = dv.step(sp.Symbol("|u^(zeta)|^2"), squared_modulus(2 + sp.exp(-sp.I * angle)),
                    "u = 2 e_0 + e_1 - 1, and the constant has no zeta != 0 component: |2 + e^{-i theta}|^2, "
                    "theta = 2 pi zeta/p, c = cos(theta)")
    hat_w = dv.step(sp.Symbol("|w^(zeta)|^2"), kappa_sq * squared_modulus(1 + sp.exp(-sp.I * angle)),
                    "w - mu = kappa (e_0 + e_1) - const: kappa^2 |1 + e^{-i theta}|^2")
    F_II = dv.step(sp.Symbol("F_zeta (regime II)"),
                   sp.Rational(2) / p * (2 * hat_u + hat_w) / (2 * u0_norm + kappa_sq * e01_norm),
                   "(1.5) with |Pi_zeta x|^2 = (2/p)|hat x(zeta)|^2; increasing in c, so largest at zeta = 1")
    dv.compare("(S.19)", F_II.subs(c, sp.cos(2 * sp.pi / p)), PAPER_STAIRCASE["(S.19)"])
    for prime in (5, 7, 13):
        omega = sp.Symbol("omega")
        cyclotomic = sp.cyclotomic_poly(prime, omega)
        scale = sp.Symbol("kappa", positive=True)
        u = [sp.Integer(1), sp.Integer(0)] + [sp.Integer(-1)] * (prime - 2)
        w = [scale * (int(i < 2) - sp.Rational(2, prime)) for i in range(prime)]
        fractions = _fraction_of((u, u, w), prime, omega, cyclotomic,
                                 {scale**2: sp.Rational(prime * (prime - 1), prime - 2)})
        # cos(2 pi/p) = (omega + omega^{-1})/2, substituted before p (sympy evaluates cos(2 pi/5) to radicals)
        closed = PAPER_STAIRCASE["(S.19)"].subs(sp.cos(2 * sp.pi / p), c).subs(p, prime).subs(
            c, (omega + omega**(prime - 1)) / 2)
        dv.compare(f"(S.19) at p = {prime} from the vector (zeta = 1)", fractions[0],
                   _reduced(closed, omega, cyclotomic))
    gate_loss = dv.step(sp.Symbol("ell (regime II)"), sp.log(2 + (p - 2) * sp.exp(-Y)),
                        "D = 0 and r = c = X/2: each of the three gates has ell = log(1 + 1 + sum_{j>=2} e^{-z E}), "
                        "Y = z E -> oo (E = W - omega, formal asymptotics)")
    gate_limit = sp.limit(gate_loss, Y, sp.oo)
    loss_II = dv.step(sp.Symbol("lim L (regime II)"), ((p**2 - 3) * sp.log(p) + 3 * gate_limit) / p**2,
                      "(1.1): p^2 - 3 examples at log p, three gates at their limit", "->")
    dv.compare("(S.19) loss", loss_II, PAPER_STAIRCASE["(S.19) loss"])
    return dv
