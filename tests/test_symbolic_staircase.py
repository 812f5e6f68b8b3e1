"""certify/symbolic/staircase.py: the derivations of docs/staircase.md (S.1)-(S.19) hold, a deliberately wrong
form fails the same comparison, and an independent mpmath oracle (an explicit DFT of the limit vectors, a fine
grid of the ratio of (S.12)) agrees with the closed forms."""

from __future__ import annotations

import time

import mpmath
import pytest
import sympy as sp

from certify.symbolic import DERIVATIONS, derivation, staircase
from certify.symbolic.core import Comparison
from certify.symbolic.definitions import p

RELATIONS = {"=", "<=", ">=", "<", ">", "->"}
FACTORIES = {
    "staircase-face-p5": lambda: staircase.face_flow(5),
    "staircase-face-p7": lambda: staircase.face_flow(7),
    "staircase-steps": staircase.theorem_steps,
    "staircase-purity": staircase.purity_margin,
    "staircase-limits": staircase.staircase_limits,
}
_built: dict = {}


def built(name):
    if name not in _built:
        _built[name] = FACTORIES[name]()
    return _built[name]


def comparison(derived, label) -> Comparison:
    matches = [c for c in derived.comparisons if c.label == label]
    assert len(matches) == 1, label
    return matches[0]


def wrong(derived, label, paper) -> bool:
    """Whether the comparison ``label`` of ``derived`` holds against the (wrong) form ``paper``."""
    return Comparison(label, comparison(derived, label).derived, paper).holds()


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_derivation_holds(name):
    start = time.perf_counter()
    derived = FACTORIES[name]()
    elapsed = time.perf_counter() - start
    assert derived.name == name
    assert derived.steps and derived.comparisons
    assert [c.label for c in derived.comparisons if not c.holds()] == []
    assert derived.holds()
    for step in derived.steps:
        assert step.reason and step.relation in RELATIONS
    # measured on the 2-core machine: p = 5 1.3 s, p = 7 2.4 s, the symbolic ones < 1.5 s (build and check)
    assert elapsed < 15, (name, elapsed)
    _built[name] = derived


def test_every_promised_equation_is_compared():
    labels = {name: {c.label for c in built(name).comparisons} for name in FACTORIES}
    for equation in ("(S.1)", "(S.2)", "(S.3)", "(S.4)", "(S.5) conserved K on the face", "(S.5) sum of gamma_j",
                     "(S.6)", "(A.10) on the face"):
        assert equation in labels["staircase-face-p5"], equation
    for equation in ("(S.3)", "(S.5) K conserved", "(S.5) sum of gamma_j", "(S.6) s'", "(S.7)", "(S.8)", "(S.9)",
                     "(S.10)"):
        assert equation in labels["staircase-steps"], equation
    for equation in ("(S.11)", "(S.12)", "(S.13)", "(S.14)", "(S.15)"):
        assert equation in labels["staircase-purity"], equation
    cases = [f"(S.17) at (p, n, k) = ({q}, {n}, {k})" for q, n, k in
             ((5, 1, 2), (5, 2, 3), (5, 2, 4), (7, 1, 2), (13, 1, 2))]
    for equation in ("(S.16) mean 0", "(S.16) balance |w|^2 = |u|^2 + |v|^2 = 2p", *cases, "(S.17) (1,2)", "(S.18)",
                     "(S.19)", "(S.19) at p = 5 from the vector (zeta = 1)", "(S.19) loss"):
        assert equation in labels["staircase-limits"], equation


def test_registered_for_certify_derive():
    for name, equations in (("staircase-face", ("(S.1)", "(S.6)")), ("staircase-steps", ("(S.7)", "(S.10)")),
                            ("staircase-purity", ("(S.11)", "(S.15)")), ("staircase-limits", ("(S.16)", "(S.19)"))):
        assert set(equations) <= set(DERIVATIONS[name].equations), name
    assert DERIVATIONS["staircase-face"].per_prime and DERIVATIONS["staircase-face"].largest_prime == 7
    assert derivation("staircase-purity").holds()
    assert derivation("staircase-purity", 13).p == 13 and derivation("staircase-purity", 13).holds()


# --- negative controls: a wrong form fails the same comparison ------------------------------------------------

def test_s3_with_1_over_p_fails():
    A, Gr, Gc = staircase.A_, staircase.Gr, staircase.Gc
    one_over_p = sp.Tuple((2 * A - Gr - Gc) / p, (A - p * Gr) / p, (A - p * Gc) / p)
    assert not wrong(built("staircase-steps"), "(S.3)", one_over_p)
    # and in the face ODE from the loss at p = 5: (p - 1)/p times the 1/(p - 1) form of r' is the 1/p form (r' only:
    # sympy takes 1.5 s to give up on it, 30 s on X')
    face = comparison(built("staircase-face-p5"), "(S.3)")
    assert face.holds() and Comparison("(S.3) r", face.derived[1], face.paper[1]).holds()
    assert not Comparison("(S.3) r", face.derived[1], face.paper[1] * sp.Rational(4, 5)).holds()


def test_s12_at_t_zero_fails():
    c1 = staircase.c1
    at_zero = sp.Rational(2) / p * (1 + (p - 1)**2 + 2 * c1 * (p - 1)) / ((p - 2)**2 + p - 2)
    assert not wrong(built("staircase-purity"), "(S.12)", at_zero)


def test_drafts_s13_fails():
    assert not wrong(built("staircase-purity"), "(S.13)", (staircase.rho - 1) / sp.sqrt(2 * p))


@pytest.mark.parametrize("label, mistake", [
    ("(S.7)", lambda P: 3 * sp.log(2) + staircase.D_ * (staircase.Xg - staircase.rg - staircase.cg) / 2),
    ("(S.9)", lambda P: (staircase.ell0X + staircase.ell1r) * (staircase.W0 - staircase.w_min)),
    ("(S.10)", lambda P: 2 * sp.log(2) + 2 / (p * staircase.rho)),
])
def test_wrong_steps_fail(label, mistake):
    assert not wrong(built("staircase-steps"), label, mistake(staircase.PAPER_STAIRCASE))


def test_wrong_limits_fail():
    limits = built("staircase-limits")
    c = sp.cos(2 * sp.pi / p)
    regime_one_denominator = 2 * ((5 + 4 * c) * (p - 2) + p * (p - 1) * (1 + c)) / ((p - 2) * (p**2 + 4 * p - 4))
    assert not wrong(limits, "(S.19)", regime_one_denominator)
    assert not wrong(limits, "(S.18)", staircase.PAPER_STAIRCASE["(S.19) loss"])
    # (S.17) at (5, 2, 3) against the closed form of (5, 2, 4): the projections tell them apart
    other = comparison(limits, "(S.17) at (p, n, k) = (5, 2, 4)").paper
    assert not wrong(limits, "(S.17) at (p, n, k) = (5, 2, 3)", other)


# --- the independent oracle: mpmath at 30 digits ---------------------------------------------------------------

DIGITS = 30
#: Every value below is a ratio of sums of at most 3p <= 93 terms of size <= p^2 < 10^3, each rounded at about
#: 10^-30 relative (30 digits): the sums are off by < 10^-25 and the ratios (denominators >= 1) by < 10^-25, so
#: 10^-24 leaves a factor 10.
TOLERANCE = mpmath.mpf(10) ** -24


def dft_fraction(vectors, prime: int, zeta: int):
    """F_zeta of (u, v, w) by (1.5): centred blocks, |Pi_zeta x|^2 = (2/p)|sum_a x(a) e^{-2 pi i zeta a/p}|^2."""
    energy = total = mpmath.mpf(0)
    for x in vectors:
        mean = mpmath.fsum(x) / prime
        x0 = [entry - mean for entry in x]
        transform = mpmath.fsum(x0[a] * mpmath.expjpi(-2 * mpmath.mpf(zeta * a) / prime) for a in range(prime))
        energy += 2 * abs(transform)**2 / prime
        total += mpmath.fsum(entry**2 for entry in x0)
    return energy / total


def closed_form_s17(prime: int, n: int, k: int, zeta: int):
    def D(size):
        return abs(mpmath.fsum(mpmath.expjpi(2 * mpmath.mpf(zeta * i) / prime) for i in range(size)))**2

    return (8 * D(n) + 2 * prime**2 * D(k) / (k * (prime - k))) / (4 * n * (prime - n) + prime**2)


@pytest.mark.parametrize("prime, n, k", staircase.LIMIT_CASES)
def test_s17_against_an_explicit_dft(prime, n, k):
    omega = sp.Symbol("omega")
    derived = comparison(built("staircase-limits"), f"(S.17) at (p, n, k) = ({prime}, {n}, {k})").derived
    with mpmath.workdps(DIGITS):
        alpha = mpmath.sqrt(mpmath.mpf(2 * (prime - k)) / k)
        beta = alpha * k / (prime - k)
        u = [mpmath.mpf(1 if i < n else -1) for i in range(prime)]
        w = [alpha if m < k else -beta for m in range(prime)]
        root = mpmath.expjpi(mpmath.mpf(2) / prime)
        for zeta in range(1, (prime - 1) // 2 + 1):
            oracle = dft_fraction((u, u, w), prime, zeta)
            assert abs(oracle - closed_form_s17(prime, n, k, zeta)) < TOLERANCE, zeta
            # sympy's exact value in Q(omega), evaluated at omega = e^{2 pi i/p}
            exact = sp.lambdify(omega, derived[zeta - 1], "mpmath")(root)
            assert abs(exact - oracle) < TOLERANCE, zeta
        if (n, k) == (1, 2):
            c = mpmath.cos(mpmath.pi / prime)
            closed = (8 * (prime - 2) + 4 * prime**2 * c**2) / ((prime - 2) * (prime**2 + 4 * prime - 4))
            assert abs(max(dft_fraction((u, u, w), prime, z) for z in range(1, (prime - 1) // 2 + 1)) - closed) \
                < TOLERANCE


@pytest.mark.parametrize("prime", [5, 7, 13, 31])
def test_s19_against_an_explicit_dft(prime):
    with mpmath.workdps(DIGITS):
        kappa = mpmath.sqrt(mpmath.mpf(prime * (prime - 1)) / (prime - 2))
        u = [mpmath.mpf(1), mpmath.mpf(0)] + [mpmath.mpf(-1)] * (prime - 2)
        w = [kappa * ((1 if i < 2 else 0) - mpmath.mpf(2) / prime) for i in range(prime)]
        values = [dft_fraction((u, u, w), prime, z) for z in range(1, (prime - 1) // 2 + 1)]
        c = mpmath.cos(2 * mpmath.pi / prime)
        closed = (2 * ((5 + 4 * c) * (prime - 2) + prime * (prime - 1) * (1 + c))
                  / ((prime - 2) * (prime**2 + 4 * prime - 9)))
        assert abs(max(values) - closed) < TOLERANCE and values[0] == max(values)
        # the balance that fixes kappa: |u|^2 + |v|^2 = |w - mu|^2
        assert abs(2 * mpmath.fsum(x**2 for x in u) - mpmath.fsum(x**2 for x in w)) < TOLERANCE
        # power: regime I's denominator p^2 + 4p - 4 is told apart
        wrong_closed = closed * (prime**2 + 4 * prime - 9) / (prime**2 + 4 * prime - 4)
        assert abs(max(values) - wrong_closed) > 10**6 * TOLERANCE


@pytest.mark.parametrize("prime", [5, 7, 31])
def test_s12_ratio_never_exceeds_f0_on_a_grid(prime):
    """(S.12) on 4001 points of 0 < t < p - 2 (plus its centre): no value above 2(1 + c_1)/(p - 2) beyond rounding
    (each value is a ratio of sums of 3 terms of size <= p^2 at 30 digits: error < 10^-26, TOLERANCE is 10^-24),
    and the centre attains it."""
    with mpmath.workdps(DIGITS):
        c1 = mpmath.cos(2 * mpmath.pi / prime)
        F0 = 2 * (1 + c1) / (prime - 2)

        def ratio(t):
            numerator = (t + 1)**2 + (prime - 1 - t)**2 + 2 * c1 * (t + 1) * (prime - 1 - t)
            return 2 * numerator / (prime * (t**2 + (prime - 2 - t)**2 + prime - 2))

        points = [mpmath.mpf(prime - 2) * i / 4002 for i in range(1, 4002)] + [mpmath.mpf(prime - 2) / 2]
        values = [ratio(t) for t in points]
        assert max(values) <= F0 + TOLERANCE
        assert abs(ratio(mpmath.mpf(prime - 2) / 2) - F0) < TOLERANCE
        # power: the value at the end t = 0 (the wrong form of the negative control) is well below F_0
        assert ratio(mpmath.mpf(0)) < F0 - mpmath.mpf(10) ** -3


def test_the_sign_test_decides_only_what_it_proves():
    q, s = sp.symbols("q s", nonnegative=True)
    x = sp.Symbol("x", real=True)
    assert staircase._sign_decided(1 + q * s, {}) == 1
    assert staircase._sign_decided(q, {}) == 0 and staircase._sign_decided(q, {}, strict=False) == 1
    assert staircase._sign_decided(q - 1, {}) == 0          # negative at q = 0
    assert staircase._sign_decided(x**2 + 1, {}) == 0       # x may be negative: not the test's business
    # the condition of (S.12) with c_1 < 0 allowed (c_1 = -c): not decided, as (1 - c_1)(p - 2) <= p(1 + c_1) fails
    c = sp.Symbol("c", nonnegative=True)
    assert staircase._sign_decided(2 + 2 * (-c) * (p - 1), {p: 5 + q}) == 0


def test_the_variance_step_has_power():
    """d/dz E_{q(z)} w is the variance: neither 0 (the first central moment) nor the second moment alone."""
    steps = built("staircase-steps")
    label = "d/dz E_{q(z)} w = sum_c q_c(z)(w(c) - E_{q(z)} w)^2 >= 0 (a variance)"
    assert comparison(steps, label).holds()
    assert not wrong(steps, label, sp.Integer(0))
    derived = comparison(steps, label).derived
    squared_mean = [term for term in sp.Add.make_args(derived) if term.could_extract_minus_sign()]
    assert len(squared_mean) == 1
    assert not wrong(steps, label, derived - squared_mean[0])     # E[w^2] without -E[w]^2
