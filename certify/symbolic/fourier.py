"""Section 2.1 and (A.46): the Fourier spectrum of the centred point mass q = e_0 - (1/p) 1.

The real class E_zeta of (1.3) is spanned (over C) by the characters rho_zeta, rho_-zeta of
(1.4); p^{-1/2} rho_{+-zeta} are orthonormal, so Pi_zeta x = sum_{+-} <x, p^{-1/2} rho> p^{-1/2} rho
and ||Pi_zeta x||^2 = |x^(zeta)|^2 + |x^(-zeta)|^2 with the unitary DFT
x^(zeta) = p^{-1/2} sum_a x(a) e^{-2 pi i zeta a/p}. For symbolic p the DFT of q follows from
the geometric (character) sum; for a concrete prime the projection's matrix is evaluated
exactly in Q(w), w a primitive p-th root of unity (arithmetic modulo the cyclotomic polynomial).
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation
from .definitions import p, recentered

#: The paper's forms (section 2.1, (A.46), (A.60)).
PAPER_FOURIER = {
    "q^(zeta)": 1 / sp.sqrt(p),
    "q^(0)": sp.Integer(0),
    "class energy": 2 / p,
    "||q||^2": (p - 1) / p,
    "(A.46)": 2 / (p - 1),
    "(1.5)": 2 / (p - 1),
}

zeta = sp.Symbol("zeta", integer=True, positive=True)
_a = sp.Symbol("a", integer=True, nonnegative=True)
_r = sp.Symbol("r")


def fourier_fraction_symbolic() -> Derivation:
    """q^(zeta) = p^{-1/2}, q^(0) = 0, ||Pi_zeta q||^2 = 2/p, ||q||^2 = (p-1)/p, fraction 2/(p-1); symbolic p."""
    d = Derivation("fourier", "The flat spectrum of q = e_0 - (1/p)1 and the fraction 2/(p-1), symbolic p",
                   ("section 2.1", "(A.46)", "(A.60)", "(1.5)"))
    r = _r
    series = d.step(sp.Sum(r**_a, (_a, 0, p - 1)), sp.summation(r**_a, (_a, 0, p - 1)),
                    "geometric series (sympy summation)")
    generic = [expr for expr, cond in series.args if cond == sp.true][0]
    root = sp.exp(-2 * sp.pi * sp.I * zeta / p)
    d.step(sp.Symbol("r"), root, "character value at a = 1; r != 1 because 1 <= zeta <= (p-1)/2 < p, so p does "
           "not divide zeta: the generic branch applies")
    d.step(sp.Symbol("r^p"), root**p, "r^p = e^{-2 pi i zeta}, which sympy evaluates to 1 for the integer zeta")
    char_minus = d.step(sp.Sum(root**_a, (_a, 0, p - 1)), generic.subs(r, root),
                        "(1 - r^p)/(1 - r) with r^p = 1: the character sum over C_p vanishes")
    char_plus = d.step(sp.Sum(sp.conjugate(root)**_a, (_a, 0, p - 1)),
                       generic.subs(r, sp.exp(2 * sp.pi * sp.I * zeta / p)), "the same for -zeta")
    char_zero = d.step(sp.Sum(1, (_a, 0, p - 1)), series.subs(r, 1), "zeta = 0: r = 1, the first branch")
    # q(a) = [a = 0] - 1/p  (the definition (A.41), i.e. (1.2) applied to e_0)
    q_hat = d.step(sp.Symbol(r"\hat q(\zeta)"), (1 - char_minus / p) / sp.sqrt(p),
                   "unitary DFT: p^{-1/2} sum_a q(a) e^{-2 pi i zeta a/p}, q(a) = [a=0] - 1/p: "
                   "p^{-1/2}(1 - (1/p) sum_a r^a)")
    q_hat_minus = d.step(sp.Symbol(r"\hat q(-\zeta)"), (1 - char_plus / p) / sp.sqrt(p), "the same at -zeta")
    q_hat_zero = d.step(sp.Symbol(r"\hat q(0)"), (1 - char_zero / p) / sp.sqrt(p), "the same at 0")
    energy = d.step(sp.Symbol(r"\|\Pi_\zeta q\|^2"),
                    q_hat * sp.conjugate(q_hat) + q_hat_minus * sp.conjugate(q_hat_minus),
                    "p^{-1/2} rho_{+-zeta} are an orthonormal basis of E_zeta (x C): ||Pi_zeta q||^2 = "
                    "|q^(zeta)|^2 + |q^(-zeta)|^2 (zeta != -zeta mod p as p is odd)")
    j = sp.Symbol("j", integer=True, positive=True)
    norm = d.step(sp.Symbol(r"\|q\|^2"), (1 - 1 / p)**2 + sp.summation((1 / p)**2, (j, 1, p - 1)),
                  "entries of q: (p-1)/p once, -1/p for the p - 1 indices j != 0")
    parseval = d.step(sp.Symbol(r"\sum_\zeta |\hat q(\zeta)|^2"),
                      q_hat_zero**2 + (p - 1) * q_hat * sp.conjugate(q_hat),
                      "Parseval cross-check: 0 at zeta = 0, |q^|^2 at the p - 1 others")
    fraction = d.step(sp.Symbol(r"\|\Pi_\zeta q\|^2/\|q\|^2"), sp.cancel(energy / norm), "divide")

    # any two-level vector (alpha, beta, ..., beta) recentres to (alpha - beta) q  ((1.2), (A.60))
    al, be = sp.symbols("alpha beta", real=True)
    mean = d.step(sp.Symbol("mean"), (al + sp.summation(be, (j, 1, p - 1))) / p, "(1.2): (1/p) sum_a x(a)")
    centred = d.step(sp.Symbol("x_0"), sp.Tuple(al - mean, be - mean), "(1.2) at index 0 and at j != 0")
    d.compare("two-level recentring", centred, sp.Tuple((al - be) * (1 - 1 / p), (al - be) * (-1 / p)))
    c1, c2, c3 = sp.symbols("c1:4", real=True)
    total = c1**2 + c2**2 + c3**2
    combined = d.step(sp.Symbol(r"F_\zeta"), sp.cancel(total * energy / (total * norm)),
                      "(1.5) with u_0 = c1 q, v_0 = c2 q, w_0 = c3 q (terminal states (2.8), (A.44), (A.60)): "
                      "Pi_zeta is linear, so every block contributes c_k^2 times the same ratio; c1^2+c2^2+c3^2 > 0")

    d.compare("character sum", sp.Tuple(char_minus, char_plus), sp.Tuple(0, 0))
    d.compare("q^(zeta)", sp.Tuple(q_hat, q_hat_minus), sp.Tuple(PAPER_FOURIER["q^(zeta)"], PAPER_FOURIER["q^(zeta)"]))
    d.compare("q^(0)", q_hat_zero, PAPER_FOURIER["q^(0)"])
    d.compare("class energy", energy, PAPER_FOURIER["class energy"])
    d.compare("||q||^2", norm, PAPER_FOURIER["||q||^2"])
    d.compare("Parseval", parseval, PAPER_FOURIER["||q||^2"])
    d.compare("(A.46)", fraction, PAPER_FOURIER["(A.46)"])
    d.compare("(1.5)", combined, PAPER_FOURIER["(1.5)"])
    return d


def fourier_fraction_exact(prime: int) -> Derivation:
    """||Pi_zeta q||^2 / ||q||^2 = 2/(p-1) for every zeta = 1..(p-1)/2, exactly in Q(w), w^p = 1 primitive.

    Pi_zeta has the matrix P[a, b] = (1/p)(w^{zeta(a-b)} + w^{-zeta(a-b)}) (the sum of the two
    rank-one projections onto p^{-1/2} rho_{+-zeta}); it is real and symmetric, so
    ||Pi_zeta q||^2 = q^T P q. The quadratic form is collected as a vector of coefficients of
    w^0..w^{p-1} (w^p = 1) in exact integers, turned into a polynomial once, and reduced modulo
    the cyclotomic polynomial Phi_p(w) (the minimal polynomial of w over Q).
    """
    d = Derivation(f"fourier-exact-p{prime}", f"The Fourier fraction of q exactly in Q(e^(2 pi i/p)), p = {prime}",
                   ("(A.46)", "(A.60)"), p=prime)
    w = sp.Symbol("w")
    cyclo = sp.Poly(sp.cyclotomic_poly(prime, w), w, domain=sp.QQ)
    d.step(sp.Symbol(r"\Phi_p(w)"), cyclo.as_expr(), f"sympy cyclotomic_poly({prime}, w): w = e^(2 pi i/p) is a root "
           "and Q(w) = Q[w]/(Phi_p)")

    def reduce(coefficients):
        """sum_k coefficients[k] w^k modulo Phi_p (coefficients: exact rationals, k = 0..p-1)."""
        poly = sp.Poly(list(reversed([sp.Rational(c) for c in coefficients])), w, domain=sp.QQ)
        return poly.rem(cyclo).as_expr()

    # p q = p e_0 - 1, integer entries
    pq = [prime - 1] + [-1] * (prime - 1)
    q = [sp.Rational(x, prime) for x in pq]
    d.step(sp.Symbol("q"), sp.Tuple(*q), "(A.41): q = e_0 - (1/p) 1 = (1.2) applied to e_0")
    d.compare("q = recentred e_0", sp.Tuple(*q), sp.Tuple(*recentered([sp.Integer(1)] + [sp.Integer(0)] * (prime - 1))))
    norm = d.step(sp.Symbol(r"\|q\|^2"), sum(x * x for x in q), "sum of squared entries, exactly")
    d.compare("||q||^2", norm, PAPER_FOURIER["||q||^2"].subs(p, prime))

    half = (prime - 1) // 2
    energies, fractions, traces, idempotent = [], [], [], []
    for z in range(1, half + 1):
        coefficients = [0] * prime
        for a_ in range(prime):
            for b_ in range(prime):
                product = pq[a_] * pq[b_]
                k = z * (a_ - b_) % prime
                coefficients[k] += product
                coefficients[-k % prime] += product
        # q^T P q = (1/p) sum_{a,b} q(a) q(b) (w^k + w^-k),  q(a) q(b) = pq(a) pq(b)/p^2
        energy = reduce([sp.Rational(c, prime**3) for c in coefficients])
        energies.append(energy)
        fractions.append(energy / norm)
        # trace P = sum_a P[a, a] = (1/p) sum_a (w^0 + w^0);  P^2 = P needs sum_c w^{2 zeta c} = 0 in Q(w)
        diagonal = [0] * prime
        for a_ in range(prime):
            k = z * (a_ - a_) % prime
            diagonal[k] += 1
            diagonal[-k % prime] += 1
        traces.append(reduce([sp.Rational(c, prime) for c in diagonal]))
        powers = [0] * prime
        for c in range(prime):
            powers[2 * z * c % prime] += 1
        idempotent.append(reduce(powers))
    d.step(sp.Symbol(r"\|\Pi_\zeta q\|^2"), sp.Tuple(*energies),
           f"q^T P q collected as coefficients of w^k (k = zeta(a-b) mod p), reduced mod Phi_p, zeta = 1..{half}")
    d.step(sp.Symbol(r"\sum_c w^{2\zeta c}"), sp.Tuple(*idempotent),
           "character sum at 2 zeta != 0 mod p vanishes in Q(w): P^2 = P (the cross terms of (P^2)[a,b] drop)")
    d.step(sp.Symbol(r"\mathrm{tr}\, P"), sp.Tuple(*traces), "trace of P = 2 = dim E_zeta")
    d.step(sp.Symbol(r"\|\Pi_\zeta q\|^2/\|q\|^2"), sp.Tuple(*fractions), "divide, for every zeta")
    d.compare("idempotence", sp.Tuple(*idempotent), sp.Tuple(*([0] * half)))
    d.compare("trace", sp.Tuple(*traces), sp.Tuple(*([2] * half)))
    d.compare("class energy", sp.Tuple(*energies), sp.Tuple(*([PAPER_FOURIER["class energy"].subs(p, prime)] * half)))
    d.compare("(A.46)", sp.Tuple(*fractions), sp.Tuple(*([PAPER_FOURIER["(A.46)"].subs(p, prime)] * half)))
    return d
