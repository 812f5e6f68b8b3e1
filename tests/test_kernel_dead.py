"""certify.kernel.dead: Theorem 1.5 / A.2 obligations against independent routes."""

from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.balls import lower_endpoint, upper_endpoint, working_precision
from certify.kernel.dead import (DeadParameters, dead_base_point, dead_box_bounds, dead_claims,
                                 hitting_time_enclosure, require_dead_hypotheses, terminal_balance_quantity,
                                 transversality_margin_enclosure)
from oracles import hitting_time_ode

DEFAULT = dict(epsilon=fmpq(1), A=fmpq(2), B=fmpq(1))
PRIMES = [5, 7, 13, 101]


def params(p, **overrides):
    values = dict(DEFAULT, **overrides)
    return DeadParameters(p, values["epsilon"], values["A"], values["B"])


def mp(x) -> mpmath.mpf:
    """An exact fmpq as an mpmath number (at the current mpmath precision)."""
    return mpmath.mpf(int(x.p)) / int(x.q)


def encloses(ball_, value) -> bool:
    return mp(lower_endpoint(ball_)) <= value <= mp(upper_endpoint(ball_))


@pytest.mark.parametrize("p", PRIMES)
def test_hitting_time_contains_the_ode_solution(p):
    """Second route: mpmath.odefun on (2.2)-(2.4) at 50 digits, g from the ODE, not from (2.6)."""
    T = hitting_time_enclosure(params(p), 128)
    with mpmath.workdps(50):
        T_ode, _, _, _ = hitting_time_ode(p, Fraction(1), Fraction(2))
        assert encloses(T, T_ode)
        width = mp(upper_endpoint(T)) - mp(lower_endpoint(T))
        # sharpness, not a tolerance: 128-bit balls start at 2^-128 ~ 3e-39 relative; the
        # integration and its ~1e3 operations may widen them by 13 orders before this fails
        assert width / T_ode < mpmath.mpf("1e-25")


@pytest.mark.parametrize("p", PRIMES)
def test_hitting_time_obeys_the_section_2_bound(p):
    P = params(p)
    T = hitting_time_enclosure(P, 128)
    with mpmath.workdps(40):
        bound = mpmath.mpf(p) ** 3 * mp(P.epsilon) / (2 * (p - 1) * mpmath.sqrt(mp(P.Gamma)))
        assert mp(upper_endpoint(T)) <= bound


@pytest.mark.parametrize("p", PRIMES)
def test_transversality_margin_is_2_7(p):
    P = params(p)
    margin = transversality_margin_enclosure(P, 128)
    with mpmath.workdps(50):
        formula = 2 * (p - 1) * mpmath.sqrt(mp(P.Gamma)) / mpmath.mpf(p) ** 3
        assert encloses(margin, formula)
        _, a, b, ode_margin = hitting_time_ode(p, Fraction(1), Fraction(2))
        # mpmath.odefun at 50 digits (Taylor steps to the working precision): allow 10 digits for
        # the accumulation over its steps; the quantities here are O(1)
        assert abs(ode_margin - formula) < mpmath.mpf("1e-40")
        # the ODE also lands on the terminal state used for the purity claim: g(T) = sqrt(Gamma)
        assert abs((b - a) - mpmath.sqrt(mp(P.Gamma))) < mpmath.mpf("1e-40")
        assert abs((a + (p - 1) * b) / p - mp(-P.A / p)) < mpmath.mpf("1e-40")  # mu is conserved


@pytest.mark.parametrize("p", PRIMES)
def test_balance_invariant_between_base_and_terminal_state(p):
    P = params(p, epsilon=fmpq(3, 4), A=fmpq(5, 3), B=fmpq(7, 5))
    assert dead_base_point(P).balance_quantity(p) == terminal_balance_quantity(P)
    wrong = DeadParameters(p, P.epsilon, P.A + 1, P.B)
    assert dead_base_point(P).balance_quantity(p) != terminal_balance_quantity(wrong)


def test_base_point_is_2_1():
    base = dead_base_point(params(7))
    assert (base.u.at_0, base.u.elsewhere, base.w.at_0, base.w.elsewhere) == (fmpq(1, 2), -1, -2, 0)
    assert base.u == base.v


@pytest.mark.parametrize("overrides, words", [
    (dict(epsilon=fmpq(0)), "epsilon > 0"),
    (dict(A=fmpq(-1)), "A > 0"),
    (dict(B=fmpq(1, 2)), "B > epsilon/2"),
    (dict(B=fmpq(2, 5)), "B > epsilon/2"),
    (dict(A=fmpq(3, 4)), "(A.58)"),
])
def test_hypotheses_are_named(overrides, words):
    with pytest.raises(HypothesisError, match=None) as info:
        require_dead_hypotheses(params(5, **overrides))
    assert words in str(info.value)


def test_a58_is_exact_at_the_boundary():
    # ((p-1)A/p)^2 = epsilon^2/2 exactly: A = p/(p-1) * epsilon/sqrt(2) is irrational, so probe both sides
    p = 5
    just_above, just_below = fmpq(8839, 10000), fmpq(8838, 10000)  # sqrt(2)/2 * 5/4 = 0.88388...
    require_dead_hypotheses(params(p, A=just_above))
    with pytest.raises(HypothesisError):
        require_dead_hypotheses(params(p, A=just_below))


@pytest.mark.parametrize("p", PRIMES)
def test_box_contains_the_base_trajectory(p):
    P = params(p)
    box = dead_box_bounds(P, fmpq(1, 1000), 128)
    T = hitting_time_enclosure(P, 128)
    assert box.hitting_time_lower <= lower_endpoint(T)
    assert upper_endpoint(T) <= lower_endpoint(box.hitting_time_upper)
    assert upper_endpoint(box.margin_lower) <= lower_endpoint(transversality_margin_enclosure(P, 128))


@pytest.mark.parametrize("p, radius, claim_id", [
    (13, fmpq(1, 2), "single_active_gate"),      # epsilon - 2r = 0
    (13, fmpq(26, 100), "single_active_gate"),   # B - epsilon/2 - 2r < 0
    (101, fmpq(17, 100), "purity_gap_box"),      # r sqrt(p) beats both contrasts
])
def test_box_conditions_are_named(p, radius, claim_id):
    with pytest.raises(NotCertified) as info:
        dead_box_bounds(params(p), radius, 128)
    assert info.value.claim_id == claim_id


def test_gamma_condition_on_the_box_is_named():
    P = params(5, A=fmpq(1))
    with pytest.raises(NotCertified) as info:
        dead_box_bounds(P, fmpq(1, 10), 128)
    assert info.value.claim_id == "gamma_condition" and "(A.58)" in str(info.value)


def test_box_bounds_shrink_to_the_base_point():
    """As r -> 0 the box hitting-time interval still contains T and gamma_* -> gamma(0)-bound."""
    P = params(7)
    with working_precision(128):
        wide = dead_box_bounds(P, fmpq(1, 10), 128)
        narrow = dead_box_bounds(P, fmpq(1, 10**6), 128)
    assert wide.hitting_time_lower < narrow.hitting_time_lower
    assert upper_endpoint(narrow.hitting_time_upper) < lower_endpoint(wide.hitting_time_upper)
    assert lower_endpoint(wide.purity_gap_lower) < lower_endpoint(narrow.purity_gap_lower)


def test_claims_cover_the_contract():
    ids = {claim.id for claim in dead_claims(params(13), fmpq(1, 10), 128)}
    contract = {"single_active_gate", "gamma_condition", "hitting_time", "hitting_time_box",
                "transversality_margin", "transversality_margin_box", "terminal_fourier_fraction",
                "purity_gap_box", "terminal_loss", "gaussian_probability"}
    assert contract <= ids


def test_work_is_independent_of_p():
    """Two-level base points: the Gaussian product has 4 distinct factors whatever p is."""
    from certify.kernel.dead import dead_gaussian_centres

    for p in (5, 1000003):
        centres = dead_gaussian_centres(params(p))
        assert len(centres) == 4 and sum(k for _, k in centres) == 3 * p


def test_rounded_down_is_the_floor_on_the_dyadic_grid():
    """certify.kernel.dead.rounded_down: the largest dyadic of `bits` significant bits below the ball,
    checked against exact rational arithmetic (Fraction) on random exact inputs of both signs."""
    import random
    from fractions import Fraction

    from flint import arb, fmpq

    from certify.kernel.balls import rounded_down

    rng = random.Random(13)
    for _ in range(300):
        value = Fraction(rng.randrange(-10**30, 10**30), rng.randrange(1, 10**25))
        bits = rng.randrange(2, 60)
        x = arb(fmpq(value.numerator, value.denominator))  # a ball at the ambient 53 bits around value
        low = x.lower()
        mantissa, exponent = (int(v) for v in rounded_down(x, bits).man_exp())
        result = Fraction(mantissa) * Fraction(2) ** exponent
        lower_end = Fraction(*(int(v) for v in low.man_exp()[:1]), 1) * Fraction(2) ** int(low.man_exp()[1])
        assert result <= lower_end and abs(mantissa).bit_length() <= bits
        # the next dyadic of that grid is above the lower end: result is the floor, not merely below it
        assert result + Fraction(2) ** exponent > lower_end or result == lower_end


def test_memoized_remembers_results_and_refusals():
    """certify.kernel.memo.memoized: a second call with the same arguments neither recomputes a result
    nor a NotCertified refusal, and raises the same refusal again; other exceptions are not remembered."""
    from certify.errors import NotCertified
    from certify.kernel.memo import memoized

    calls = []

    def bound(p, delta):
        calls.append((p, delta))
        if delta > 1:
            raise NotCertified(f"delta = {delta} says nothing")
        if delta < 0:
            raise ZeroDivisionError("a bug")
        return p * delta

    cached = memoized(bound, maxsize=2)
    assert cached(5, 1) == 5 and cached(5, 1) == 5
    for _ in range(2):
        with pytest.raises(NotCertified, match="says nothing"):
            cached(5, 2)
    assert calls == [(5, 1), (5, 2)]
    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            cached(5, -1)
    assert calls[-2:] == [(5, -1), (5, -1)]
    cached(7, 1)  # (5, 1) was the least recently used: evicted (maxsize 2)
    cached(5, 1)
    assert calls[-1] == (5, 1)
