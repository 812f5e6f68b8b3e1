"""The derivations of section 2.1 and appendix A (Fourier, balance, convexity, sliding, GD) hold,
and a deliberately wrong paper form fails the same comparison."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from certify.symbolic import balance, convexity, fourier, gd, sliding
from certify.symbolic.definitions import A, a, b, loss_gradient_at, p, parameters, s

RELATIONS = {"=", "<=", ">=", "<", ">", "->"}

FACTORIES = {
    "fourier": fourier.fourier_fraction_symbolic,
    "fourier-exact-p5": lambda: fourier.fourier_fraction_exact(5),
    "balance-p5": balance.balance_invariant,
    "convexity-p5": convexity.log_partition_convexity,
    "sliding-relations-p5": sliding.sliding_relations,
    "sliding-selection": sliding.sliding_selection,
    "sliding-limits": sliding.sliding_limits,
    "gd-one-step-p5": gd.one_step,
}

_built: dict = {}


def built(name):
    """Each correct derivation is built once per session."""
    if name not in _built:
        _built[name] = FACTORIES[name]()
    return _built[name]


def failing(derivation):
    return [c.label for c in derivation.comparisons if not c.holds()]


def comparison(derivation, label):
    matches = [c for c in derivation.comparisons if c.label == label]
    assert len(matches) == 1, label
    return matches[0]


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_derivation_holds(name):
    start = time.perf_counter()
    derivation = FACTORIES[name]()
    assert derivation.name == name
    assert derivation.comparisons and derivation.steps
    assert failing(derivation) == []
    assert derivation.holds()
    assert time.perf_counter() - start < 6.0   # build and check, well under a few seconds in practice
    for step in derivation.steps:
        assert step.reason and step.relation in RELATIONS
    _built[name] = derivation


def test_equations_established():
    assert "(A.46)" in built("fourier").equations
    assert "(A.10)" in built("balance-p5").equations
    assert {"(A.53)", "(A.54)", "(A.55)", "(A.56)", "(A.57)"} <= set(built("convexity-p5").equations)
    assert {"(A.20)", "(A.24)", "(A.25)"} <= set(built("sliding-relations-p5").equations)
    assert {"(A.28)", "(A.29)", "(A.30)"} <= set(built("sliding-selection").equations)
    assert {"(A.33)", "(A.37)", "(A.38)", "(A.40)", "(A.45)"} <= set(built("sliding-limits").equations)
    assert {"(A.70)", "(A.71)"} <= set(built("gd-one-step-p5").equations)


# --- the exact Fourier fraction ------------------------------------------------------------------

@pytest.mark.parametrize("prime", [5, 7, 13, 101])
def test_fourier_exact(prime):
    start = time.perf_counter()
    derivation = fourier.fourier_fraction_exact(prime)
    assert derivation.name == f"fourier-exact-p{prime}"
    assert derivation.p == prime
    assert failing(derivation) == []
    fractions = comparison(derivation, "(A.46)").derived
    assert len(fractions) == (prime - 1) // 2
    assert all(f == sp.Rational(2, prime - 1) for f in fractions)
    assert comparison(derivation, "||q||^2").derived == sp.Rational(prime - 1, prime)
    assert time.perf_counter() - start < 5.0


def test_fourier_exact_wrong_form_fails(monkeypatch):
    monkeypatch.setitem(fourier.PAPER_FOURIER, "(A.46)", 2 / p)
    assert not comparison(fourier.fourier_fraction_exact(7), "(A.46)").holds()


# --- wrong paper forms fail ----------------------------------------------------------------------

def test_fourier_wrong_fraction_fails(monkeypatch):
    monkeypatch.setitem(fourier.PAPER_FOURIER, "(A.46)", 2 / p)
    monkeypatch.setitem(fourier.PAPER_FOURIER, "(1.5)", 2 / p)
    derivation = fourier.fourier_fraction_symbolic()
    assert set(failing(derivation)) == {"(A.46)", "(1.5)"}
    assert not derivation.holds()


def test_fourier_wrong_energy_fails(monkeypatch):
    monkeypatch.setitem(fourier.PAPER_FOURIER, "class energy", 1 / p)
    assert failing(fourier.fourier_fraction_symbolic()) == ["class energy"]


def test_kappa_wrong_form_fails(monkeypatch):
    monkeypatch.setitem(sliding.PAPER_SLIDING, "(A.40)", p / sp.sqrt(p - 1))
    assert failing(sliding.sliding_limits()) == ["(A.40)"]


def test_limit_loss_wrong_form_fails(monkeypatch):
    monkeypatch.setitem(sliding.PAPER_SLIDING, "(A.33)", sp.log(p))
    assert failing(sliding.sliding_limits()) == ["(A.33)"]


def test_sliding_velocity_without_share_fails(monkeypatch):
    monkeypatch.setitem(sliding.PAPER_SLIDING, "(A.28)", A / p**2)
    assert failing(sliding.sliding_selection()) == ["(A.28)"]


def test_admissibility_wrong_bound_fails(monkeypatch):
    monkeypatch.setitem(sliding.PAPER_SLIDING, "alpha bound",
                        (p - 1) / (sp.E * sliding.X * sliding.gamma_star))
    assert failing(sliding.sliding_selection()) == ["alpha admissible"]


def test_sliding_relation_wrong_sign_fails(monkeypatch):
    monkeypatch.setitem(sliding.PAPER_SLIDING, "(A.23)", -sliding.x / p**2 * sliding.QJ)
    assert "(A.23)" in failing(sliding.sliding_relations())


def test_gd_step_wrong_factor_fails(monkeypatch):
    monkeypatch.setitem(gd.PAPER_GD, "(A.70)", gd.s0 - gd.eta / p**2 * gd.D)
    assert failing(gd.one_step()) == ["(A.70)"]


def test_gd_threshold_wrong_form_fails(monkeypatch):
    monkeypatch.setitem(gd.PAPER_GD, "(A.71)", gd.eta * gd.g0 / p**2)
    assert "(A.71)" in failing(gd.one_step())


def test_A53_printed_g_fails(monkeypatch):
    """The paper prints '= g' on the right of (A.53); on a two-level w, g = b - a is not gamma."""
    gamma_two_level = convexity.MU_TWO_LEVEL - a
    assert sp.simplify(gamma_two_level - (p - 1) / p * (b - a)) == 0
    assert sp.simplify(gamma_two_level - (b - a)) != 0
    monkeypatch.setitem(convexity.PAPER_CONVEXITY, "(A.53)", b - a)
    assert failing(convexity.log_partition_convexity()) == ["(A.53)"]


def test_A53_slip_recorded():
    reasons = [st.reason for st in built("convexity-p5").steps]
    assert any("slip" in r and "gamma" in r for r in reasons)


def test_A55_wrong_form_fails(monkeypatch):
    monkeypatch.setitem(convexity.PAPER_CONVEXITY, "(A.55)", -s / p**2 * convexity.Q0)
    assert failing(convexity.log_partition_convexity()) == ["(A.55)"]


def test_balance_wrong_example_form_fails(monkeypatch):
    monkeypatch.setitem(balance.PAPER_BALANCE, "example", balance.Z * balance.G / p)
    derivation = balance.balance_invariant()
    assert not comparison(derivation, "Lemma A.8 (0,0) active").holds()
    assert comparison(derivation, "Lemma A.8 (0,0) inactive").holds()


def test_balance_wrong_terminal_fails(monkeypatch):
    wrong = sp.Tuple(balance.mu - sp.sqrt(balance.Gamma) / p, balance.mu + sp.sqrt(balance.Gamma) / p)
    monkeypatch.setitem(balance.PAPER_BALANCE, "terminal w", wrong)
    derivation = balance.balance_invariant()
    assert not comparison(derivation, "terminal w").holds()
    assert comparison(derivation, "(A.10) at Theorem 1.5").holds()


# --- the fast full-loss gradient matches definitions.loss_gradient_at ----------------------------

def test_full_loss_gradient_matches_definitions():
    prime = 5
    u, v, w = parameters(prime)
    point = convexity.base_point(prime, u, v, s)
    fast = convexity.full_loss_gradient(prime, u, v, w, point)
    reference = loss_gradient_at(prime, u, v, w, point)
    assert set(fast) == set(reference)
    assert all(sp.cancel(fast[x] - reference[x]) == 0 for x in fast)
