"""Lemma A.8: the balance invariant (A.10), example by example, and its value at Theorem 1.5's endpoints.

Each example (x, y) of the table reads only u(x), v(y) and w; with h = ReLU(u(x) + v(y)) its
loss is l_y(h, w)/p^2 (A.2). Differentiating it (ReLU = Max(z, 0), derivative Heaviside)
gives, on an active gate z > 0, <u, grad_u> + <v, grad_v> = <w, grad_w> = z g_y(z, w)/p^2
(A.4); on an inactive gate both vanish; at a kink the Clarke element of Lemma A.6 gives 0 = 0.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation
from .definitions import A, B, epsilon, example_loss, p, parameters, relu, softmax

Z, G = sp.symbols("Z G")
Gamma = A**2 - p * epsilon**2 / (2 * (p - 1))
mu = -A / p

#: The paper's forms: Lemma A.8's common value for an active example (Z = z, G = g_y(z, w)),
#: (A.10) as d/dt of the balance quantity, and the terminal output weights of Theorem 1.5.
PAPER_BALANCE = {
    "example": Z * G / p**2,
    "(A.10)": sp.Integer(0),
    "terminal w": sp.Tuple(mu - (p - 1) * sp.sqrt(Gamma) / p, mu + sp.sqrt(Gamma) / p),
}


def _two_level_norm2(first, rest):
    """||x||^2 for x = (first, rest, ..., rest) in R^p: first^2 + sum over the p - 1 indices j != 0."""
    j = sp.Symbol("j", integer=True, positive=True)
    return first**2 + sp.summation(rest**2, (j, 1, p - 1))


def _two_level_mean(first, rest):
    """(1/p) sum_a x(a) for x = (first, rest, ..., rest) in R^p."""
    j = sp.Symbol("j", integer=True, positive=True)
    return (first + sp.summation(rest, (j, 1, p - 1))) / p


def balance_invariant(prime: int = 5) -> Derivation:
    """(A.10) for a concrete prime example by example, and the balance quantity at (2.1) and at T (symbolic p)."""
    d = Derivation(f"balance-p{prime}", f"The balance invariant (A.10) example by example (Lemma A.8), p = {prime}",
                   ("(A.10)", "Lemma A.8"), p=prime)
    u, v, w = parameters(prime)
    U, V = sp.symbols("U V", real=True)
    z_on = sp.Symbol("z", positive=True)
    z_off = sp.Symbol("z_-", negative=True)
    n = sp.Integer(prime)

    # one derivative per label: example (x, y) is the label-(x+y) loss read at U = u(x), V = v(y)
    per_label = {}
    for label in range(prime):
        loss = example_loss(relu(U + V), w, label) / n**2
        grads = {x: sp.diff(loss, x) for x in (U, V, *w)}
        # the gate's sign decides ReLU and its derivative: V = z - U with z > 0 (active) or z < 0
        on = {x: g.subs(V, z_on - U) for x, g in grads.items()}
        off = {x: g.subs(V, z_off - U) for x, g in grads.items()}
        q = softmax(z_on, w)
        g_y = sum(qc * wc for qc, wc in zip(q, w)) - w[label]
        per_label[label] = (loss, on, off, g_y)
    d.step(sp.Symbol(r"\mathcal{L}_{xy}"), per_label[0][0].subs({U: u[0], V: v[0]}),
           "example (x, y) of (1.1): l_{x+y}(ReLU(u(x)+v(y)), w)/p^2 by (A.2), shown for (0, 0)")
    d.step(sp.Symbol(r"\partial \mathcal{L}_{xy}"), sp.Symbol("(U, V, w)"),
           "L_xy depends on u, v only through U = u(x) and V = v(y): every other u-, v-partial is 0; "
           "differentiate once per label y with Max(U + V, 0), then read the gate's sign")

    differences = []
    for x in range(prime):
        for y in range(prime):
            label = (x + y) % prime
            loss, on, off, g_y = per_label[label]
            example = loss.xreplace({U: u[x], V: v[y]})
            assert example.free_symbols <= {u[x], v[y], *w}
            # active gate: u(x) + v(y) = z > 0, so ReLU(z) = z and ReLU'(z) = 1
            uv_on = sp.expand(u[x] * on[U] + (z_on - u[x]) * on[V])
            w_on = sp.expand(sum(c * on[c] for c in w))
            paper = sp.expand(PAPER_BALANCE["example"].subs({Z: z_on, G: g_y, p: prime}))
            d.step(sp.Symbol(f"<u,grad_u L_{x}{y}> + <v,grad_v L_{x}{y}>"), uv_on,
                   f"example ({x},{y}), label {label}, gate z = u({x})+v({y}) > 0: "
                   f"u({x}) dL/du({x}) + v({y}) dL/dv({y}) with v({y}) = z - u({x})")
            d.step(sp.Symbol(f"<w,grad_w L_{x}{y}>"), w_on, f"example ({x},{y}): sum_c w(c) dL/dw(c)")
            d.compare(f"Lemma A.8 ({x},{y}) active", sp.Tuple(uv_on, w_on), sp.Tuple(paper, paper))
            # inactive gate: z < 0, ReLU(z) = 0 and ReLU'(z) = 0
            uv_off = u[x] * off[U] + (z_off - u[x]) * off[V]
            w_off = sum(c * off[c] for c in w)
            d.compare(f"Lemma A.8 ({x},{y}) inactive", sp.Tuple(uv_off, w_off), sp.Tuple(0, 0))
            differences.append(uv_on - w_on)

    # kink (Lemma A.6): xi = alpha gamma_y (e_x^(u) + e_y^(v)), xi_w = 0, with u(x) + v(y) = 0
    alpha, gamma_y = sp.symbols("alpha gamma_y", nonnegative=True)
    kink_uv = d.step(sp.Symbol(r"<u,\xi_u> + <v,\xi_v>"), (U * alpha * gamma_y + V * alpha * gamma_y).subs(V, -U),
                     "a kink example's Clarke element (A.9): alpha gamma_y on u(x) and v(y), 0 on w; z = 0")
    d.compare("Lemma A.8 kink", sp.Tuple(kink_uv, 0), sp.Tuple(0, 0))

    # sum over the table (each example in whichever of the three cases it is)
    total = d.step(sp.Symbol(r"\langle u,\xi_u\rangle + \langle v,\xi_v\rangle - \langle w,\xi_w\rangle"),
                   sp.Add(*differences),
                   "sum over the p^2 examples; linear in the gradient, so it passes to limits and convex hulls: "
                   "every Clarke element xi of (1.1) satisfies it")
    rate = d.step(sp.Symbol(r"\frac{d}{dt}(\|u\|^2+\|v\|^2-\|w\|^2)"), -2 * total,
                  "theta' = -xi: d/dt ||u||^2 = -2<u, xi_u>, and likewise for v and w")
    d.compare("(A.10)", rate, PAPER_BALANCE["(A.10)"])

    # Theorem 1.5's endpoints, symbolic p: the base point (2.1) and the terminal state (2.8) + section 2.1
    base = d.step(sp.Symbol(r"N(0)"),
                  2 * _two_level_norm2(epsilon / 2, -B) - _two_level_norm2(-A, 0),
                  "(2.1): u = v = (eps/2, -B, ..., -B), w = (-A, 0, ..., 0); N = ||u||^2+||v||^2-||w||^2")
    a_T, b_T = sp.symbols("a_T b_T", real=True)
    mean_T = _two_level_mean(a_T, b_T)
    mu_0 = d.step(sp.Symbol(r"\mu"), _two_level_mean(-A, 0),
                  "mean of w at (2.1); constant in t since (2.3) + (p-1)(2.4) = 0")
    solution = sp.solve([sp.Eq(mean_T, mu_0), sp.Eq(b_T - a_T, sp.sqrt(Gamma))], [a_T, b_T], dict=True)[0]
    w_T = d.step(sp.Symbol("(w(0), w(j)) at T"), sp.Tuple(solution[a_T], solution[b_T]),
                 "solve mean = mu and g(T) = b - a = sqrt(Gamma) (by (2.6) at s = 0)")
    d.compare("terminal w", w_T, PAPER_BALANCE["terminal w"])
    terminal = d.step(sp.Symbol(r"N(T)"), 2 * _two_level_norm2(0, -B) - _two_level_norm2(*w_T),
                      "(2.8): u = v = (0, -B, ..., -B); w as solved")
    d.step(sp.Symbol(r"N(T) - N(0)"), sp.cancel(sp.expand(terminal - base)), "expand and cancel")
    d.compare("(A.10) at Theorem 1.5", terminal, base)
    return d
