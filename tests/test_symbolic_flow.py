"""certify.symbolic.flow: section 2's equations derived, checked against the paper, and against the kernel."""

import mpmath
import pytest
import sympy as sp
from flint import acb, arb, fmpq

from certify.kernel.balls import working_precision
from certify.kernel.dead import DeadParameters, hitting_time_integrand
from certify.symbolic import DERIVATIONS, derivation
from certify.symbolic.core import Comparison
from certify.symbolic.definitions import epsilon, g, p, s
from certify.symbolic.flow import (PAPER_FLOW, Gamma, conserved_quantity, full_loss_flow, hitting_time,
                                   symmetric_flow, transversality)


@pytest.mark.parametrize("build", [symmetric_flow, conserved_quantity, transversality, hitting_time])
def test_symbolic_derivations_hold(build):
    d = build()
    assert d.holds() and d.p is None and len(d.steps) >= 3


@pytest.mark.parametrize("prime", [5, 7])
def test_full_loss_derivation_holds(prime):
    d = full_loss_flow(prime)
    assert d.holds() and {c.label for c in d.comparisons} >= {"(2.2)", "(2.3)", "(2.4)", "(2.5)", "invariance"}


def comparison(d, label):
    return next(c for c in d.comparisons if c.label == label)


pi0 = 1 / (1 + (p - 1) * sp.exp(s * g))
WRONG = {
    "(2.5)": -s / p**2 * (1 - pi0),                 # without its factor p/(p-1)
    "(2.4)": -s / p**2 * (1 - pi0),                 # without the multiplicity 1/(p-1)
    "(2.2)": -1 / p**2 * (1 - pi0) * g,             # without the 2 of s = u(0) + v(0)
}


@pytest.mark.parametrize("label", sorted(WRONG))
def test_wrong_variants_fail_the_same_comparison(label):
    for d in (symmetric_flow(), full_loss_flow(5)):
        derived = comparison(d, label).derived
        right = PAPER_FLOW[label] if d.p is None else PAPER_FLOW[label].subs(p, d.p)
        wrong = WRONG[label] if d.p is None else WRONG[label].subs(p, d.p)
        assert Comparison(label, derived, right).holds()
        assert not Comparison(label, derived, wrong).holds()


def test_wrong_transversality_and_bound_fail():
    d = transversality()
    assert not Comparison("(2.7)", comparison(d, "(2.7)").derived, -2 * p * sp.sqrt(Gamma) / p**3).holds()
    bound = comparison(hitting_time(), "T bound").derived
    assert not Comparison("T bound", bound, p**2 * epsilon / (2 * (p - 1) * sp.sqrt(Gamma))).holds()


@pytest.mark.parametrize("prime, eps, A", [(5, fmpq(1), fmpq(2)), (13, fmpq(1, 3), fmpq(3, 2)), (101, fmpq(2), fmpq(7))])
def test_kernel_integrand_is_the_derived_one(prime, eps, A):
    """The symbolic and rigorous routes agree: the kernel's acb integrand equals the sympy-derived
    (p^2/2)-free integrand of the hitting-time derivation at sample points, at 50 digits."""
    params = DeadParameters(prime, eps, A, fmpq(1))
    integrand = hitting_time_integrand(params)
    derived = comparison(hitting_time(), "T integrand").paper / (p**2 / 2)
    values = {p: prime, epsilon: sp.Rational(int(eps.p), int(eps.q)),
              Gamma: sp.Rational(int(params.Gamma.p), int(params.Gamma.q))}
    f = sp.lambdify(s, derived.subs(values), "mpmath")
    with mpmath.workdps(50):
        for k in range(6):
            point = fmpq(k, 5) * eps
            with working_precision(200):
                value = integrand(acb(arb(point)), False).real
            expected = f(mpmath.mpf(int(point.p)) / int(point.q))
            assert abs(mpmath.mpf(value.mid().str(50, radius=False)) - expected) < mpmath.mpf(10) ** -45


def test_registry_lists_every_required_equation():
    listed = {equation for entry in DERIVATIONS.values() for equation in entry.equations}
    for equation in ("(2.2)", "(2.3)", "(2.4)", "(2.5)", "(2.6)", "(2.7)", "(A.10)", "(A.22)", "(A.23)", "(A.24)",
                     "(A.28)", "(A.29)", "(A.30)", "(A.40)", "(A.45)", "(A.46)", "(A.53)", "(A.57)", "(A.70)",
                     "(A.71)"):
        assert equation in listed, equation


def test_specialised_symbolic_derivation_still_holds():
    d = derivation("flow", 11)
    assert d.p == 11 and d.holds()
    assert all(p not in sp.sympify(c.derived).free_symbols for c in d.comparisons)
