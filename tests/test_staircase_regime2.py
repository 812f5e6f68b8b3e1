"""Section 11 of docs/staircase.md (regime II): Lemma S.7 (the sign of D), the force bounds (S.21)-(S.22), and a
state of the loss window where the force bound of Lemma S.5 fails. The oracle is the loss (1.1) over the whole
table, differentiated by mpmath (tests/staircase_full_loss.py): Clarke velocity = -gradient away from kinks.

Tolerances: mpmath.diff at 30 digits has an error below 1e-15 relative here (its default step is tuned to the
working precision; the loss is a sum of p^2 smooth terms of size below 10^3), so 1e-10 is far above it.
The float checks of (S.21)-(S.22) compare sums of at most p = 13 terms of size below 10^3: their rounding
error is below 13 * 10^3 * 2^-52 < 1e-11, and they allow 1e-9.
"""

import mpmath as mp
import numpy as np
import pytest

from staircase_full_loss import gradient_entry, softmax

mp.mp.dps = 30
TOLERANCE = mp.mpf(10) ** -10
FLOAT_SLACK = 1e-9


def pattern_state(rng, p, sign_of_d):
    """A random state with z00 = X, z01 = r, z10 = c > 0 and every other gate < 0 (the gate (1, 1) included)."""
    r, c = (mp.mpf(rng.uniform(0.05, 3)) for _ in range(2))
    X = r + c + mp.mpf(rng.uniform(0.05, 5))
    u = [X / 2, c - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    v = [X / 2, r - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    w = [mp.mpf(rng.normal()) for _ in range(p)]
    D = sign_of_d * mp.mpf(rng.uniform(0.01, 2))
    w[0] = w[1] + D
    return u, v, w, X, r, c


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("sign_of_d", [1, -1])
def test_s20_against_the_gradient_of_the_full_loss(p, sign_of_d):
    """(S.20): p^2 D' = -z11 - [X delta(X) + r delta(r) + c delta(c)], D' from -grad L of (1.1); and for D < 0,
    D' > 0 (Lemma S.7(b)), read from the gradient alone."""
    rng = np.random.default_rng(p + 10 * (sign_of_d > 0))
    for _ in range(3):
        u, v, w, X, r, c = pattern_state(rng, p, sign_of_d)
        d_dot = -(gradient_entry(u, v, w, p, "w", 0) - gradient_entry(u, v, w, p, "w", 1)) * p**2
        delta = [softmax(z, w)[0] - softmax(z, w)[1] for z in (X, r, c)]
        formula = (X - r - c) - (X * delta[0] + r * delta[1] + c * delta[2])
        assert abs(d_dot - formula) <= TOLERANCE * (1 + abs(formula))
        if sign_of_d < 0:
            assert d_dot > 0


def tails_and_forces(w, X, r, c):
    """T(X), T(r), T(c), A - g_1(r), -g_1(r) - g_1(c), Lambda, from the softmax directly (floats)."""
    def q(z):
        e = np.exp(z * (w - w.max()))
        return e / e.sum()

    def ell(z, y):
        return np.log(np.exp(z * (w - w[y])).sum())

    T = [q(z)[2:].sum() for z in (X, r, c)]
    A = w[0] - q(X) @ w
    minus_g1 = [w[1] - q(z) @ w for z in (r, c)]
    return T, A + minus_g1[0], minus_g1[0] + minus_g1[1], ell(X, 0) + ell(r, 1) + ell(c, 1)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_s21_s22_at_random_states_with_d_nonnegative(p):
    """(S.21) and (S.22) at 2000 random states with D >= 0 and z11 <= 0, over scales 1e-2 to 1e2 (the control,
    that (S.22) fails without its term D z11/2, is the window state of the next test)."""
    rng = np.random.default_rng(100 + p)
    for _ in range(2000):
        scale = 10 ** rng.uniform(-2, 2)
        w = rng.normal(size=p) * scale
        w[0] = w[1] + rng.uniform(0, 2) * scale
        r, c = rng.uniform(0.01, 3, 2) / np.sqrt(scale)
        X = r + c + rng.uniform(0, 5) / np.sqrt(scale)
        D, z11 = w[0] - w[1], r + c - X
        T, force_rows, force_11, lam = tails_and_forces(w, X, r, c)
        w_min = w.min()
        assert force_rows <= (T[0] + T[1]) * (w[0] - w_min) + FLOAT_SLACK * (1 + abs(force_rows))
        assert force_11 <= (T[1] + T[2]) * (w[1] - w_min) + FLOAT_SLACK * (1 + abs(force_11))
        phi = np.log1p(np.exp(-X * D)) + np.logaddexp(0, r * D) + np.logaddexp(0, c * D)
        assert sum(T) <= lam - phi + FLOAT_SLACK
        assert phi >= 3 * np.log(2) + D * z11 / 2 - FLOAT_SLACK


def test_a_state_of_the_window_where_the_force_bound_fails():
    """Section 11.2: at p = 13, rho = 1, a state with the three gates > 0, the gate (1, 1) < 0, D > 0, every
    gamma_j > 0 and Lambda < 3 log 2 + 2/(p - 1), where A - g_1(r) > 2 gamma_min. The force A - g_1(r) is
    p^2 times -dL/du(0) of the full loss (row 0 has the active gates (0, 0) and (0, 1) only). It is also the
    control of (S.22): off the face its tails exceed Lambda - 3 log 2, which is negative here."""
    p = 13
    W1, D, r, c = mp.mpf(70), mp.mpf(1) / 5, mp.mpf(1) / 40, mp.mpf(1) / 10
    X = r + c + 30
    u = [X / 2, c - X / 2] + [-X / 2 - 1] * (p - 2)
    v = [X / 2, r - X / 2] + [-X / 2 - 1] * (p - 2)
    w = [W1 + D, W1] + [mp.mpf(0)] * (p - 2)
    gates = {(a, b): u[a] + v[b] for a in range(p) for b in range(p)}
    assert [g > 0 for g in gates.values()].count(True) == 3
    assert gates[0, 0] > 0 and gates[0, 1] > 0 and gates[1, 0] > 0 and gates[1, 1] < 0
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    assert min(gamma) > 0 and max(gamma) == min(gamma) and W1 > mu
    lam = mp.fsum(mp.log(mp.fsum(mp.exp(z * (x - w[y])) for x in w)) for z, y in ((X, 0), (r, 1), (c, 1)))
    assert lam < 3 * mp.log(2) + mp.mpf(2) / (p - 1)
    force = -gradient_entry(u, v, w, p, "u", 0) * p**2
    assert force > 2 * min(gamma)
    tails = mp.fsum(1 - softmax(z, w)[0] - softmax(z, w)[1] for z in (X, r, c))
    assert tails > lam - 3 * mp.log(2)
