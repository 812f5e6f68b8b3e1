"""The paper's definitions as sympy objects: the loss (1.1), the gate, the softmax, recentering (1.2).

Everything in :mod:`certify.symbolic` starts from here. For a concrete p the loss is the
full 3p-variable function; for symbolic p the derivations use the reduced loss of one
example, with the multiplicities of equal coordinates written out.
"""

from __future__ import annotations

import sympy as sp

#: Symbols shared by the derivations (positive where the paper's region makes them so).
p = sp.Symbol("p", integer=True, positive=True)
s = sp.Symbol("s", positive=True)          # the central gate u(0) + v(0) while it is active
t = sp.Symbol("t", nonnegative=True)
a, b = sp.symbols("a b", real=True)        # w(0) and the common w(j), section 2
g = sp.Symbol("g", positive=True)          # g = b - a, section 2
epsilon, A, B = sp.symbols("epsilon A B", positive=True)
eta = sp.Symbol("eta", positive=True)


def relu(z):
    """ReLU(z) = max(z, 0) (section 1.1)."""
    return sp.Max(z, 0)


def example_loss(h, weights, label: int):
    """The loss of one example (A.2): log sum_c e^{h w(c)} - h w(y)."""
    return sp.log(sum(sp.exp(h * w) for w in weights)) - h * weights[label]


def softmax(h, weights):
    """q_c(h, w) = e^{h w(c)} / sum_d e^{h w(d)} (A.3)."""
    total = sum(sp.exp(h * w) for w in weights)
    return [sp.exp(h * w) / total for w in weights]


def full_loss(prime: int, u, v, w, activation=relu):
    """The loss (1.1) over the full prime x prime table, with the given activation (ReLU by default)."""
    total = 0
    for x in range(prime):
        for y in range(prime):
            total += example_loss(activation(u[x] + v[y]), w, (x + y) % prime)
    return total / prime**2


def loss_gradient_at(prime: int, u, v, w, point: dict, activation=relu) -> dict:
    """d(1.1)/dx for each of the 3p parameters x, evaluated at ``point`` (a substitution).

    Differentiates the loss (1.1) example by example (the gradient of a sum is the sum of
    the gradients) and substitutes ``point`` into each piece before adding, which keeps
    the expressions small. The derivative of ReLU = Max(z, 0) is the Heaviside step.
    """
    gradient = {x: sp.Integer(0) for x in (*u, *v, *w)}
    for x in range(prime):
        for y in range(prime):
            term = example_loss(activation(u[x] + v[y]), w, (x + y) % prime) / prime**2
            for variable in (u[x], v[y], *w):
                gradient[variable] += sp.diff(term, variable).xreplace(point)
    return gradient


def parameters(prime: int):
    """The 3p parameters u(0..p-1), v(0..p-1), w(0..p-1) as real symbols."""
    return (list(sp.symbols(f"u0:{prime}", real=True)), list(sp.symbols(f"v0:{prime}", real=True)),
            list(sp.symbols(f"w0:{prime}", real=True)))


def recentered(x):
    """x_0 = x - (1/p) sum_a x(a) 1 (1.2), for a concrete vector."""
    mean = sp.Add(*x) / sp.Integer(len(x))  # exact even for plain ints
    return [xi - mean for xi in x]
