"""Section 11 of docs/staircase.md (regime II): Lemma S.7 (the sign of D), the force bounds (S.21)-(S.22), a
state of the loss window where the force bound of Lemma S.5 fails; Lemma S.8 (the rate of Q) with states where Q
rises, Lemma S.9 (the force on the gate (1, 1)), Lemmas S.11-S.12 (the tails and forces where D <= 0), the budget
b_II and Theorem S2's explicit point. The oracle is the loss (1.1) over the whole
table, differentiated by mpmath (tests/staircase_full_loss.py): Clarke velocity = -gradient away from kinks.

Tolerances: mpmath.diff at 30 digits has an error below 1e-15 relative here (its default step is tuned to the
working precision; the loss is a sum of p^2 smooth terms of size below 10^3), so 1e-10 is far above it.
The float checks of (S.21)-(S.22) compare sums of at most p = 13 terms of size below 10^3: their rounding
error is below 13 * 10^3 * 2^-52 < 1e-11, and they allow 1e-9.
The direct 30-digit evaluations (no differentiation: softmax, log-sum-exp, log cosh over at most p = 13 labels,
each term below 10^3 in size after the shift by the largest exponent; 30 digits carry 103 bits, a unit
roundoff of 2^-103 < 10^-30 per operation) have a rounding error of order 13 * 10^3 * 10^-30 ~ 10^-26, so they
allow 10^-25 (relative where the compared value exceeds 1). mpmath's odefun integrates by Taylor series to the
working precision: 10^-20 relative.
"""

import mpmath as mp
import numpy as np
import pytest
from mpmath import iv

from staircase_full_loss import gradient_entry, softmax

TOLERANCE = mp.mpf(10) ** -10
FLOAT_SLACK = 1e-9


@pytest.fixture(autouse=True)
def _thirty_digits():
    """Every oracle of this module works at 30 digits (the tolerances above assume it). tests/conftest.py resets
    mpmath to 15 digits before each test, so a module-level setting would not hold; this runs after it."""
    with mp.workdps(30):
        yield


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


def full_gradient(u, v, w, p):
    """dL/dtheta of the full loss (1.1) by mpmath, in the order u, v, w."""
    return [gradient_entry(u, v, w, p, block, i) for block in "uvw" for i in range(p)]


def q_candidate(u, v, w):
    """Q = Lambda - D min(z11, 0)/2 from its definition (section 11.2): Lambda from (A.2) at the three gates."""
    X, r, c, z11 = u[0] + v[0], u[0] + v[1], u[1] + v[0], u[1] + v[1]
    lam = mp.fsum(mp.log(mp.fsum(mp.exp(z * (x - w[y])) for x in w)) for z, y in ((X, 0), (r, 1), (c, 1)))
    return lam - (w[0] - w[1]) * min(z11, 0) / 2


def q_rate_by_the_oracle(u, v, w, p):
    """p^2 dQ/dt = -p^2 grad Q . grad L, both gradients by mpmath.diff (Q's from its definition, L's from (1.1))."""
    theta = list(u) + list(v) + list(w)

    def q_at(k, t):
        x = list(theta)
        x[k] += t
        return q_candidate(x[:p], x[p:2 * p], x[2 * p:])
    grad_q = [mp.diff(lambda t, k=k: q_at(k, t), 0) for k in range(3 * p)]
    return -p**2 * mp.fsum(a * b for a, b in zip(grad_q, full_gradient(u, v, w, p)))


def q_rate_by_lemma_s8(w, X, r, c):
    """Lemma S.8: p^2 Q' = -|grad Lambda|^2 + (z11/2)(a - b) + (D/2)(g_1(r) + g_1(c)), grad Lambda from (A.4)."""
    qX, qr, qc = softmax(X, w), softmax(r, w), softmax(c, w)

    def g(q, y):
        return mp.fsum(a * b for a, b in zip(q, w)) - w[y]
    g0, gr, gc = g(qX, 0), g(qr, 1), g(qc, 1)
    dw = [X * (qX[i] - (i == 0)) + r * (qr[i] - (i == 1)) + c * (qc[i] - (i == 1)) for i in range(len(w))]
    norm2 = (g0 + gr) ** 2 + (g0 + gc) ** 2 + gc**2 + gr**2 + mp.fsum(x**2 for x in dw)
    z11, D = r + c - X, w[0] - w[1]
    return -norm2 + z11 / 2 * (dw[0] - dw[1]) + D / 2 * (gr + gc)


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("sign_of_d", [1, -1])
def test_lemma_s8_the_rate_of_q_against_the_gradient_of_the_full_loss(p, sign_of_d):
    """Lemma S.8 (section 11.3) at random states of the open pattern (z11 < 0): the rate of Q along -grad L of
    (1.1), both gradients by mpmath, equals the lemma's closed form."""
    rng = np.random.default_rng(300 + p + (sign_of_d > 0))
    for _ in range(2):
        u, v, w, X, r, c = pattern_state(rng, p, sign_of_d)
        oracle = q_rate_by_the_oracle(u, v, w, p)
        formula = q_rate_by_lemma_s8(w, X, r, c)
        assert abs(oracle - formula) <= TOLERANCE * (1 + abs(formula))


def twin_neighbour(D):
    """Section 11.3's state at p = 5: w = (3 + D, 3, -5, -5, -5), X = 21/2, r = c = 5, z11 = -1/2, every other
    gate <= -379/4."""
    p = 5
    X, r, c = mp.mpf(21) / 2, mp.mpf(5), mp.mpf(5)
    u = [X / 2, c - X / 2] + [mp.mpf(-100)] * (p - 2)
    v = [X / 2, r - X / 2] + [mp.mpf(-100)] * (p - 2)
    w = [3 + D, mp.mpf(3)] + [mp.mpf(-5)] * (p - 2)
    return p, u, v, w


@pytest.mark.parametrize("D, window", [(mp.mpf(1) / 1000, mp.mpf("2.1e-5")), (mp.mpf(1) / 10000, mp.mpf("2.1e-7"))])
def test_q_rises_at_states_of_the_window_near_the_twins_face(D, window):
    """Section 11.3: at p = 5 the state of twin_neighbour(D) is in the open pattern (three gates > 0, every other
    < 0), rho = 1, Q - 3 log 2 < window (far inside the budget 2/((p - 1) rho) = 1/2), and Q increases there: the
    rate from the oracle is > 0 (and matches Lemma S.8)."""
    p, u, v, w = twin_neighbour(D)
    gates = [u[a] + v[b] for a in range(p) for b in range(p)]
    assert [g > 0 for g in gates].count(True) == 3 and u[1] + v[1] < 0
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    assert min(gamma) > 0 and max(gamma) == min(gamma)
    excess = q_candidate(u, v, w) - 3 * mp.log(2)
    assert 0 < excess < window
    rate = q_rate_by_the_oracle(u, v, w, p)
    assert rate > 0
    assert abs(rate - q_rate_by_lemma_s8(w, u[0] + v[0], u[0] + v[1], u[1] + v[0])) <= TOLERANCE


def test_q_falls_at_the_same_state_with_a_larger_d():
    """The control of the previous test: with D = 1/50 (D s2 > 2 |z11|, section 11.3's expansion) the oracle's
    rate of Q at the same state is < 0, so that test distinguishes the two sides."""
    p, u, v, w = twin_neighbour(mp.mpf(1) / 50)
    assert q_rate_by_the_oracle(u, v, w, p) < 0


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("sign_of_d", [1, -1])
def test_lemma_s9_the_force_on_the_gate_11_against_the_gradient(p, sign_of_d):
    """Lemma S.9 (section 11.4): with the gate (1, 1) inactive, p^2 z11' = tau - (q_0(r) + q_0(c)) D, tau =
    sum_{j >= 2} (q_j(r) + q_j(c)) (W1 - w(j)); with it active (z11 > 0, a state outside the pattern) the field
    adds -2 g_2(z11). Both from -grad L of (1.1)."""
    rng = np.random.default_rng(400 + p + (sign_of_d > 0))
    for _ in range(2):
        u, v, w, X, r, c = pattern_state(rng, p, sign_of_d)
        qr, qc = softmax(r, w), softmax(c, w)
        D = w[0] - w[1]
        tau = mp.fsum((qr[j] + qc[j]) * (w[1] - w[j]) for j in range(2, p))
        rate = -p**2 * (gradient_entry(u, v, w, p, "u", 1) + gradient_entry(u, v, w, p, "v", 1))
        assert abs(rate - (tau - (qr[0] + qc[0]) * D)) <= TOLERANCE * (1 + abs(rate))
        # the active branch: raise u(1) and v(1) by (|z11| + 1/10)/2 each; r and c move with them
        lift = (X - r - c + mp.mpf(1) / 10) / 2
        u[1] += lift
        v[1] += lift
        r1, c1, z11 = u[0] + v[1], u[1] + v[0], u[1] + v[1]
        gates = [u[a] + v[b] for a in range(p) for b in range(p)]
        assert z11 > 0 and [g > 0 for g in gates].count(True) == 4 and min(abs(g) for g in gates) > mp.mpf(1) / 100
        q2 = softmax(z11, w)
        g2 = mp.fsum(a * b for a, b in zip(q2, w)) - w[2]
        g1 = [mp.fsum(a * b for a, b in zip(softmax(z, w), w)) - w[1] for z in (r1, c1)]
        rate = -p**2 * (gradient_entry(u, v, w, p, "u", 1) + gradient_entry(u, v, w, p, "v", 1))
        assert abs(rate - (-g1[0] - g1[1] - 2 * g2)) <= TOLERANCE * (1 + abs(rate))


def loss_parts(w, X, r, c):
    """(Lambda, T(X) + T(r) + T(c), ell_0(X), ell_1(r), ell_1(c)) at 30 digits, from (A.2) and (A.4) directly."""
    ells = [mp.log(mp.fsum(mp.exp(z * (x - w[y])) for x in w)) for z, y in ((X, 0), (r, 1), (c, 1))]
    tails = mp.fsum(1 - softmax(z, w)[0] - softmax(z, w)[1] for z in (X, r, c))
    return mp.fsum(ells), tails, ells


@pytest.mark.parametrize("p", [5, 7, 13])
def test_lemma_s11_the_loss_bounds_the_tails_where_z11_d_is_nonnegative(p):
    """(S.25) at random states of both signs of D and z11 (section 11.5), at 30 digits; and its identity
    phi(D) = 3 log 2 + z11 D/2 + sum log cosh(z D/2) to 1e-25."""
    rng = np.random.default_rng(500 + p)
    for _ in range(40):
        w = [mp.mpf(x) for x in rng.normal(size=p) * 3]
        X, r, c = (mp.mpf(x) for x in rng.uniform(0.05, 4, 3))
        D, z11 = w[0] - w[1], r + c - X
        lam, tails, _ = loss_parts(w, X, r, c)
        cosh_terms = mp.fsum(mp.log(mp.cosh(z * D / 2)) for z in (X, r, c))
        phi = mp.log(1 + mp.exp(-X * D)) + mp.log(1 + mp.exp(r * D)) + mp.log(1 + mp.exp(c * D))
        assert abs(phi - (3 * mp.log(2) + z11 * D / 2 + cosh_terms)) <= mp.mpf(10) ** -25 * (1 + abs(phi))
        assert lam - 3 * mp.log(2) >= tails + z11 * D / 2 + cosh_terms - mp.mpf(10) ** -25


def window_excess(w, X, r, c, p):
    """b = Lambda - 3 log 2 when every gamma_j > 0 and b < log(p/4)/2 (Lemma S.12's hypotheses on w and the
    window), else None."""
    b = loss_parts(w, X, r, c)[0] - 3 * mp.log(2)
    gamma_min = min(mp.fsum(w) / p - x for x in w[2:])
    return b if gamma_min > 0 and b < mp.log(mp.mpf(p) / 4) / 2 else None


def accepted_states(rng, p, make, count):
    """The first ``count`` states make(rng, p) returns that are not None (make draws a state and tests it)."""
    found = 0
    while found < count:
        state = make(rng, p)
        if state is not None:
            found += 1
            yield state


def forces_at(w, X, r, c):
    """(q(z) for z = X, r, c; A = -g_0(X); -g_1(z) for z = r, c) from (A.4) directly, at mpmath's precision."""
    q = {z: softmax(z, w) for z in (X, r, c)}
    A = w[0] - mp.fsum(a * x for a, x in zip(q[X], w))
    minus_g1 = {z: w[1] - mp.fsum(a * x for a, x in zip(q[z], w)) for z in (r, c)}
    return q, A, minus_g1


def quadrant_state(rng, p):
    """A state of the pattern with z11 <= 0 and D <= 0 near the window: W1 = E, W0 = E - |D|, w(j) in [0, E/2),
    scales such that the tails are small; returned only if every gamma_j > 0 and b = Lambda - 3 log 2 <
    log(p/4)/2, Lemma S.12's hypotheses (else None)."""
    E = mp.mpf(rng.uniform(2, 40))
    w = [E - mp.mpf(rng.uniform(0, 0.3)) / E ** 0.5, E] + [mp.mpf(x) for x in rng.uniform(0, E / 2, p - 2)]
    r, c = (mp.mpf(x) for x in rng.uniform(0.2, 3, 2))
    X = r + c + mp.mpf(rng.choice([0.0, rng.uniform(0, 0.5)]))
    b = window_excess(w, X, r, c, p)
    return None if b is None else (w, X, r, c, b)


def phi_budget(b, p, rho):
    """Phi(b; p, rho) of (S.27)."""
    L = mp.log(mp.mpf(p) / 4)
    kappa = 2 * (mp.log(2) + b) / (L - 2 * b)
    w1 = (1 + kappa) * (p - 2) * rho / (2 + kappa)
    return b * (w1 + rho) + 2 * mp.acosh(mp.exp(b)) * w1 / (L - b)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_lemma_s12_the_forces_where_d_is_nonpositive(p):
    """Lemma S.12 (a)-(e) at random states with z11 <= 0, D <= 0 and b < log(p/4)/2, at 30 digits. The control:
    among the same states, the term Q_0 |D| of the second line of (S.26) is needed: at some of them
    -g_1(r) - g_1(c) exceeds (T(r) + T(c)) (W1 - w_min) alone, so the test of (d) can fail."""
    rng = np.random.default_rng(600 + p)
    slack = mp.mpf(10) ** -25
    needs_q0_term = 0
    worst_e = mp.mpf(0)
    for w, X, r, c, b in accepted_states(rng, p, quadrant_state, 60):
        L = mp.log(mp.mpf(p) / 4)
        mu = mp.fsum(w) / p
        gamma = [mu - x for x in w[2:]]
        S, D, w_min = mp.fsum(gamma), w[0] - w[1], min(w)
        rho = max(gamma) / min(gamma)
        kappa = 2 * (mp.log(2) + b) / (L - 2 * b)
        assert b >= 0 and min(gamma) > 0 and D <= 0
        # (a)
        assert r * (w[1] - mu) >= L - b - slack and c * (w[1] - mu) >= L - b - slack
        assert X * abs(D) < 2 * (mp.log(2) + b) and X * (w[0] - mu) >= L - 2 * b - slack
        # (b)
        assert abs(D) <= kappa * S / (2 + kappa) + slack
        # (c), (d)
        q, A, minus_g1 = forces_at(w, X, r, c)
        T = {z: 1 - q[z][0] - q[z][1] for z in (X, r, c)}
        for z in (r, c):
            assert q[z][0] * abs(D) <= mp.acosh(mp.exp(b)) / z + slack
            assert A + minus_g1[z] <= (T[X] + T[z]) * (w[1] - w_min) + q[z][0] * abs(D) + slack
        needs_q0_term += minus_g1[r] + minus_g1[c] > (T[r] + T[c]) * (w[1] - w_min)
        tau = mp.fsum((q[r][j] + q[c][j]) * (w[1] - w[j]) for j in range(2, p))
        assert abs(minus_g1[r] + minus_g1[c] - (tau + (q[r][0] + q[c][0]) * abs(D))) <= slack
        # (e)
        bound = min(gamma) * phi_budget(b, p, rho)
        force = max(A + minus_g1[r], A + minus_g1[c], minus_g1[r] + minus_g1[c])
        assert force <= bound + slack
        worst_e = max(worst_e, force / bound)
    assert needs_q0_term > 0
    # the power of (e): Phi / 100 in place of Phi fails at some state (the worst ratio is 0.01-0.04 here)
    assert worst_e > mp.mpf(1) / 100


@pytest.mark.parametrize("p", [5, 7, 13, 31, 101, 10007, 1000003])
def test_the_explicit_point_of_theorem_s2_is_in_f_ii(p):
    """Section 11.6, item 6: D = 0, E = 4 (5 + ceil(ln p)), u = v = (1, 0, -2, ...), w = (E, E, 0, ...): the gate
    signs exactly (gate values of a few classes; the rest repeat them), rho = 1, and Lambda - 3 log 2 below
    b_II(p, 1), i.e. Phi(Lambda - 3 log 2; p, 1) < 2 with Lambda - 3 log 2 < log(p/4)/2 (Phi increases in b)."""
    import math
    E = 4 * (5 + math.ceil(math.log(p)))
    u = [1, 0, -2]  # u(0), u(1), and u(j) for every j >= 2 (v is the same)
    gate = {(a, b): u[a] + u[b] for a in range(3) for b in range(3)}
    assert gate[0, 0] == 2 and gate[0, 1] == gate[1, 0] == 1 and gate[1, 1] == 0
    assert gate[0, 2] == gate[2, 0] == -1 and gate[1, 2] == gate[2, 1] == -2 and gate[2, 2] == -4
    # with w = (E, E, 0, ..., 0) every gamma_j = 2E/p: rho = 1; the log-sum-exps in closed form (section 11.6)
    excess = (mp.log(1 + (p - 2) * mp.exp(-2 * E) / 2) + 2 * mp.log(1 + (p - 2) * mp.exp(-mp.mpf(E)) / 2))
    assert 0 < excess <= 2 * mp.exp(-20) / mp.mpf(p) ** 3
    assert excess < mp.log(mp.mpf(p) / 4) / 2 and phi_budget(excess, p, 1) < 2
    if p <= 13:  # the closed form against (A.2) summed over all labels
        w = [mp.mpf(E), mp.mpf(E)] + [mp.mpf(0)] * (p - 2)
        lam = loss_parts(w, mp.mpf(2), mp.mpf(1), mp.mpf(1))[0]
        assert abs(lam - 3 * mp.log(2) - excess) <= mp.mpf(10) ** -25


def test_the_budgets_quoted_in_section_11_5():
    """b_II(p, 1) of section 11.5 (the supremum of b in [0, log(p/4)/2) with Phi(b; p, 1) < 2): Phi is < 2 just
    below each quoted value and >= 2 just above it (Phi increases in b), so the quoted 2-3 digits are right."""
    quoted = {5: "0.0034", 7: "0.0094", 11: "0.0113", 13: "0.0108", 31: "0.0056", 101: "0.0014"}
    for p, text in quoted.items():
        value = mp.mpf(text)
        half_unit = mp.mpf("0.00005")
        assert phi_budget(value - half_unit, p, 1) < 2 <= phi_budget(value + half_unit, p, 1)


def q_star(b):
    """q_*(b) = 2 (1 - b)/(1 + e^{2 acosh(e^b)}) of section 11.7."""
    return 2 * (1 - b) / (1 + mp.exp(2 * mp.acosh(mp.exp(b))))


def cone_state(rng, p):
    """A state of the pattern with z11 < 0 and D < 0 near the window, with every boundary and other gate < 0 (so
    that L is smooth there and the oracle's gradient is the flow), or None outside Lemma S.13's hypotheses."""
    E = mp.mpf(rng.uniform(2, 40))
    D = -mp.mpf(rng.uniform(0.001, 0.3)) / E ** 0.5
    w = [E + D, E] + [mp.mpf(x) for x in rng.uniform(0, E / 2, p - 2)]
    r, c = (mp.mpf(x) for x in rng.uniform(0.2, 3, 2))
    X = r + c + mp.mpf(rng.uniform(0.001, 0.5)) * abs(D) * 10 ** rng.uniform(-3, 1)
    u = [X / 2, c - X / 2] + [-X / 2 - 1] * (p - 2)
    v = [X / 2, r - X / 2] + [-X / 2 - 1] * (p - 2)
    b = window_excess(w, X, r, c, p)
    return None if b is None else (u, v, w, X, r, c, b)


@pytest.mark.parametrize("p", [5, 7])
def test_lemma_s13_the_cone_against_the_gradient(p):
    """(S.28): p^2 zeta' <= zeta^2 + zeta s2/2 - q_*(b), zeta = z11/D, with zeta' from -grad L of (1.1) (mpmath) at
    random states of the pattern with z11 < 0, D < 0 (section 11.7). The control: without the term zeta s2/2 the
    inequality fails at some of the same states, so the test can fail."""
    rng = np.random.default_rng(700 + p)
    needs_s2_term = 0
    for u, v, w, X, r, c, b in accepted_states(rng, p, cone_state, 12):
        z11, D = u[1] + v[1], w[0] - w[1]
        z11_rate = -p**2 * (gradient_entry(u, v, w, p, "u", 1) + gradient_entry(u, v, w, p, "v", 1))
        d_rate = -p**2 * (gradient_entry(u, v, w, p, "w", 0) - gradient_entry(u, v, w, p, "w", 1))
        zeta = z11 / D
        zeta_rate = (z11_rate * D - z11 * d_rate) / D**2
        s2 = X**2 + r**2 + c**2
        assert zeta_rate <= zeta**2 + zeta * s2 / 2 - q_star(b) + TOLERANCE
        needs_s2_term += zeta_rate > zeta**2 - q_star(b)
    assert needs_s2_term > 0


@pytest.mark.parametrize("p", [5, 7])
def test_lemma_s14_the_rates_against_the_gradient(p):
    """The rates behind Lemma S.14, from -grad L of (1.1) at states of the pattern with z11 < 0, D < 0 and no gate
    on its kink (where the kink shares, which only lower u(0)' and v(0)', are absent): p^2 X' = (A - g_1(r)) +
    (A - g_1(c)), p^2 r' = (A - g_1(r)) - g_1(r), p^2 c' = (A - g_1(c)) - g_1(c), -g_1(r), -g_1(c) >= 0, and
    p^2 S' = X T(X) + r T(r) + c T(c), each as an identity to the oracle's accuracy; then the bounds the lemma
    takes from them (p^2 s1' <= 6 gamma_min Phi(b; p, rho), p^2 S' <= b s1)."""
    rng = np.random.default_rng(800 + p)
    for u, v, w, X, r, c, b in accepted_states(rng, p, cone_state, 6):
        rate = {(block, i): -p**2 * gradient_entry(u, v, w, p, block, i) for block, i in
                [("u", 0), ("v", 0), ("u", 1), ("v", 1)] + [("w", j) for j in range(p)]}
        q, A, minus_g1 = forces_at(w, X, r, c)
        X_rate, r_rate, c_rate = (rate["u", 0] + rate["v", 0], rate["u", 0] + rate["v", 1],
                                  rate["u", 1] + rate["v", 0])
        assert abs(X_rate - (2 * A + minus_g1[r] + minus_g1[c])) <= TOLERANCE * (1 + abs(X_rate))
        assert abs(r_rate - (A + 2 * minus_g1[r])) <= TOLERANCE * (1 + abs(r_rate))
        assert abs(c_rate - (A + 2 * minus_g1[c])) <= TOLERANCE * (1 + abs(c_rate))
        assert minus_g1[r] >= 0 and minus_g1[c] >= 0
        mu = mp.fsum(w) / p
        gamma = [mu - x for x in w[2:]]
        S_rate = -mp.fsum(rate["w", j] for j in range(2, p))  # gamma_j' = mu' - w(j)', and mu' = 0:
        assert abs(mp.fsum(rate["w", j] for j in range(p))) <= TOLERANCE
        tails = {z: mp.fsum(q[z][2:]) for z in (X, r, c)}
        assert abs(S_rate - (X * tails[X] + r * tails[r] + c * tails[c])) <= TOLERANCE * (1 + S_rate)
        rho = max(gamma) / min(gamma)
        assert X_rate + r_rate + c_rate <= 6 * min(gamma) * phi_budget(b, p, rho) + TOLERANCE
        assert S_rate <= b * (X + r + c) + TOLERANCE


def test_lemma_s14_the_closed_form_against_the_linear_system():
    """Lemma S.14's bound is the first component of the solution of y1' = a y2, y2' = b0 y1 (time t/p^2): against
    mpmath's ODE solver (Taylor series), for two sets of coefficients."""
    for a, b0, y1, y2 in [(mp.mpf(4), mp.mpf(1) / 1000, mp.mpf(4), mp.mpf(33)),
                          (mp.mpf(12) / 11, mp.mpf(3) / 100, mp.mpf(2), mp.mpf(50))]:
        omega = mp.sqrt(a * b0)
        solution = mp.odefun(lambda t, y: [a * y[1], b0 * y[0]], 0, [y1, y2])
        for t in (mp.mpf(1) / 10, mp.mpf(2)):
            closed = y1 * mp.cosh(omega * t) + a * y2 * mp.sinh(omega * t) / omega
            assert abs(solution(t)[0] - closed) <= mp.mpf(10) ** -20 * closed


@pytest.mark.parametrize("p", [5, 7, 13, 31, 101, 1009, 1000003])
def test_u_ii_is_nonempty(p):
    """Section 11.7: the point u = (1, -zeta0 d, -2, ...), v = (1, 0, -2, ...), w = (E - d, E, 0, ...), E = 4 (5 +
    ceil(ln p)), d = 1/(20p), zeta0 = 10^-4 satisfies Proposition S2.2's hypotheses with sigma = 17, at 30 digits:
    the gate signs (of each class; the rest repeat them), rho = 1, b0 <= 2 10^-3/p^2 and b0 < b_II(p, 1)
    (Phi(b0; p, 1) < 2), and (S.29). The loss is in closed form; for p <= 13 also summed over the labels by (A.2)."""
    import math
    E, d = mp.mpf(4 * (5 + math.ceil(math.log(p)))), mp.mpf(1) / (20 * p)
    zeta0, sigma = mp.mpf(10) ** -4, 17
    u = [mp.mpf(1), -zeta0 * d, mp.mpf(-2)]  # u(0), u(1), and u(j) for every j >= 2
    v = [mp.mpf(1), mp.mpf(0), mp.mpf(-2)]
    gates = {(a, b): u[a] + v[b] for a in range(3) for b in range(3)}
    X, r, c, z11 = gates[0, 0], gates[0, 1], gates[1, 0], gates[1, 1]
    assert X > 0 and r > 0 and c > 0 and z11 < 0 and gates[0, 2] == gates[2, 0] == -1
    assert gates[1, 2] < -1 and gates[2, 1] < -1 and gates[2, 2] < -1
    # w = (E - d, E, 0, ..., 0): every gamma_j = (2E - d)/p, so rho = 1
    gamma, S0 = (2 * E - d) / p, (p - 2) * (2 * E - d) / p
    assert gamma > 0
    lam = (mp.log(1 + mp.exp(2 * d) + (p - 2) * mp.exp(-2 * (E - d))) + mp.log(1 + mp.exp(-d) + (p - 2) * mp.exp(-E))
           + mp.log(1 + mp.exp(-c * d) + (p - 2) * mp.exp(-c * E)))
    if p <= 13:
        w = [E - d, E] + [mp.mpf(0)] * (p - 2)
        assert abs(loss_parts(w, X, r, c)[0] - lam) <= mp.mpf(10) ** -25
    b0 = lam - 3 * mp.log(2)
    assert 0 < b0 <= mp.mpf(2) / 1000 / p**2
    assert b0 < mp.log(mp.mpf(p) / 4) / 2 and phi_budget(b0, p, 1) < 2
    assert abs(z11 / -d - zeta0) <= mp.mpf(10) ** -25
    kappa = q_star(b0) - zeta0**2 - zeta0 * sigma / 2
    a, s1 = mp.mpf(12) / (p - 2), X + r + c
    omega = mp.sqrt(a * b0)
    s1max = s1 * mp.cosh(omega * zeta0 / kappa) + a * S0 * mp.sinh(omega * zeta0 / kappa) / omega
    assert kappa > mp.mpf("0.98") and s1max < mp.mpf("4.02") and s1max**2 < sigma


def positive_state(rng, p, on_face):
    """A state of the pattern with D > 0, mu = 0 < W1 and every gamma_j > 0, its boundary and other gates < 0; the gate
    (1, 1) is on its kink (X = r + c) when ``on_face``, else < 0. Returns (u, v, w, X, r, c)."""
    gamma = [mp.mpf(x) for x in rng.uniform(0.2, 4, p - 2)]
    D = mp.mpf(rng.uniform(0.0001, 0.5))
    W1 = (mp.fsum(gamma) - D) / 2  # so that mu = 0, gamma_j = -w(j) > 0 and W1 > mu
    w = [W1 + D, W1] + [-x for x in gamma]
    r, c = (mp.mpf(x) for x in rng.uniform(0.1, 3, 2))
    X = r + c + (0 if on_face else mp.mpf(rng.uniform(0.01, 2)))
    u = [X / 2, c - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    v = [X / 2, r - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    return u, v, w, X, r, c


@pytest.mark.parametrize("p", [5, 7])
def test_lemma_s15_the_sliding_condition_gate_by_gate_against_the_gradient(p):
    """(S.30): -g_1(r) = q_0(r) [sum_j e^{-r (W0 - w(j))} (W1 - w(j)) - D] >= q_0(r) (G e^{-r M} - D) with G the sum
    of the gamma_j, and q_0(r) >= 1/p. -g_1(r) is p^2 times -dL/dv(1) of the full loss (1.1): with the gate (1, 1)
    < 0, v(1) enters only the active gate r (Lemma S.9's proof); the same with u(1) for c."""
    rng = np.random.default_rng(1500 + p)
    for _ in range(3):
        u, v, w, X, r, c = positive_state(rng, p, on_face=False)
        mu = mp.fsum(w) / p
        gamma = [mu - x for x in w[2:]]
        assert min(gamma) > 0 and w[1] > mu
        D, M, G = w[0] - w[1], w[0] - min(w[2:]), mp.fsum(gamma)
        for z, block in ((r, "v"), (c, "u")):
            minus_g1 = -gradient_entry(u, v, w, p, block, 1) * p**2
            q0 = softmax(z, w)[0]
            formula = q0 * (mp.fsum(mp.exp(-z * (w[0] - x)) * (w[1] - x) for x in w[2:]) - D)
            assert abs(minus_g1 - formula) <= TOLERANCE * (1 + abs(formula))
            assert formula >= q0 * (G * mp.exp(-z * M) - D)
            assert q0 >= mp.mpf(1) / p


@pytest.mark.parametrize("p", [5, 7, 13])
def test_theorem_s3_e_the_rate_of_d_on_the_face(p):
    """Theorem S3 (e): on the face (z11 = 0) with D > 0 and every gamma_j > 0, the rate k of Lemma S.10 (p^2 D' =
    -k D, read from (S.20) at z11 = 0 by direct 30-digit sums) satisfies k >= (q_*(b)/2) s2 >= (3/4) q_*(b) X^2, b =
    Lambda - 3 log 2 (>= 0 by Lemma S.11); at 200 random states, of which those with b < 1 (q_* needs it; 200, 197
    and 198 at p = 5, 7, 13) are checked."""
    rng = np.random.default_rng(1600 + p)
    for _ in range(200):
        u, v, w, X, r, c = positive_state(rng, p, on_face=True)
        mu = mp.fsum(w) / p
        assert min(mu - x for x in w[2:]) > 0
        D = w[0] - w[1]
        k = mp.fsum(z * (softmax(z, w)[0] - softmax(z, w)[1]) for z in (X, r, c)) / D
        b = loss_parts(w, X, r, c)[0] - 3 * mp.log(2)
        assert b >= -mp.mpf(10) ** -25
        b = max(b, mp.mpf(0))
        if b >= 1:
            continue
        s2 = X**2 + r**2 + c**2
        assert k >= q_star(b) / 2 * s2 - mp.mpf(10) ** -25 * s2
        assert s2 >= mp.mpf(3) / 2 * X**2


def test_theorem_s3_s32_the_vertex_bounds_the_race():
    """(S.32)-(S.33): G(t) = a - kappa0 t/p^2 + (z0 + delta)(M0 + delta), delta = sqrt(2 b0 t)/p, is at most its
    vertex value a + z0 M0 + (z0 + M0)^2 b0/(2 (kappa0 - 2 b0)) at every t of a fine grid, and the grid comes within
    1e-6 of it (the control: the bound is attained)."""
    p, z0, M0, b0, kappa0 = 5, mp.mpf(1), mp.mpf(4), mp.mpf("0.05"), mp.mpf("1.9")
    vertex = z0 * M0 + (z0 + M0) ** 2 * b0 / (2 * (kappa0 - 2 * b0))
    best = -mp.inf
    for i in range(4001):
        t = mp.mpf(i) / 4000 * 10
        delta = mp.sqrt(2 * b0 * t) / p
        value = -kappa0 * t / p**2 + (z0 + delta) * (M0 + delta)
        assert value <= vertex + mp.mpf(10) ** -25
        best = max(best, value)
    assert vertex - best < mp.mpf(10) ** -6


@pytest.mark.parametrize("p, E, e, d", [(5, "4", "1e-3", "1e-2"), (7, "4.5", "1e-3", "1e-2"),
                                        (13, "5.5", "3e-4", "5e-3")])
def test_u_ii_plus_is_nonempty(p, E, e, d):
    """Section 11.10: u = v = (1, (1 - e)/2 - 1, -2, ..., -2), w = (E + d, E, 0, ..., 0) (X = 2, the boundary gates
    -1, z11 = -e, D = d, rho = 1) satisfies Proposition S3.2's hypotheses (S.34) with h = (1/2p)(S0 e^{-z0 M0} - D0),
    at 30 digits; the loss is summed over the labels by (A.2) (loss_parts). The control: with e ten times larger,
    (S.34) fails at the same h."""
    E, e, d = mp.mpf(E), mp.mpf(e), mp.mpf(d)
    X, s = mp.mpf(2), (2 - e) / 2
    w = [E + d, E] + [mp.mpf(0)] * (p - 2)
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    assert max(gamma) == min(gamma) > 0 and w[1] > mu
    # gates: X, s, s > 0; z11 = 2s - X = -e; boundary -1; z1j = s - X - 1; zij = -X - 2
    m = min(X, s, mp.mpf(1), X + 1 - s, X + 2)
    b0 = loss_parts(w, X, s, s)[0] - 3 * mp.log(2)
    assert 0 < b0 < min(mp.log(mp.mpf(p) / 4), mp.mpf(2) / (p - 1))
    S0, M0, z0, D0 = mp.fsum(gamma), w[0] - min(w[2:]), s, d
    h = (S0 * mp.exp(-z0 * M0) - D0) / (2 * p)

    def s34(e):
        t_c, D_p = p**2 * e / h, D0 + e**2 / h
        delta_c = mp.sqrt(2 * (b0 + D_p * e / 2) * t_c) / p
        z_p, M_p, X_m = z0 + delta_c, M0 + delta_c, X - delta_c
        kappa_m = mp.mpf(3) / 4 * q_star(b0) * X_m**2
        return (delta_c < m, 2 * (S0 * mp.exp(-z_p * M_p) - D_p) / p > h, kappa_m > 2 * b0,
                D_p < S0 * mp.exp(-z_p * M_p - (z_p + M_p) ** 2 * b0 / (2 * (kappa_m - 2 * b0))))
    assert all(s34(e))
    assert not all(s34(10 * e))


# Section 11.12: Proposition S3.4 (capture from above, z11 > 0 and D > 0).


def above_state(rng, p, sign_of_d=1, low_w1=False):
    """A random state with the four gates X, r, c and z11 = r + c - X > 0 active and every other gate < 0: the pattern
    of Proposition S3.4. w has mu = 0, D of the given sign, and every gamma_j > 0; with ``low_w1``, D is drawn above
    sum_j gamma_j, so that W1 <= mu. Returns (u, v, w, X, r, c, z11)."""
    gamma = [mp.mpf(x) for x in rng.uniform(0.2, 4, p - 2)]
    D = sign_of_d * mp.mpf(rng.uniform(0.0001, 0.5))
    if low_w1:
        D = mp.fsum(gamma) * mp.mpf(rng.uniform(1, 1.5))
    W1 = (mp.fsum(gamma) - D) / 2  # mu = 0, gamma_j = -w(j)
    w = [W1 + D, W1] + [-x for x in gamma]
    r, c = (mp.mpf(x) for x in rng.uniform(0.2, 3, 2))
    z11 = mp.mpf(rng.uniform(0.01, 0.9)) * min(r, c)  # so that z1j = z11 - r - t_j < 0 and zj1 = z11 - c - t_j < 0
    X = r + c - z11
    u = [X / 2, c - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    v = [X / 2, r - X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 2)]
    gates = [u[a] + v[b] for a in range(p) for b in range(p)]
    assert [g > 0 for g in gates].count(True) == 4 and abs(u[1] + v[1] - z11) < mp.mpf(10) ** -25
    return u, v, w, X, r, c, z11


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("sign_of_d", [1, -1])
def test_s38_the_rate_of_d_above_the_kink_against_the_gradient(p, sign_of_d):
    """(S.38): with the gate (1, 1) active, p^2 D' = -z11 - [X delta(X) + r delta(r) + c delta(c) + z11 delta(z11)],
    D' from -grad L of (1.1); and the gamma_j rates of step (d): p^2 gamma_2' >= -z11 and p^2 gamma_j' >= 0 (j >= 3),
    with mu' = 0."""
    rng = np.random.default_rng(1700 + p + (sign_of_d > 0))
    for _ in range(2):
        u, v, w, X, r, c, z11 = above_state(rng, p, sign_of_d)
        w_dot = [-gradient_entry(u, v, w, p, "w", j) * p**2 for j in range(p)]
        delta = [softmax(z, w)[0] - softmax(z, w)[1] for z in (X, r, c, z11)]
        formula = -z11 - (X * delta[0] + r * delta[1] + c * delta[2] + z11 * delta[3])
        assert abs((w_dot[0] - w_dot[1]) - formula) <= TOLERANCE * (1 + abs(formula))
        assert abs(mp.fsum(w_dot)) <= TOLERANCE * p  # mu' = 0
        gamma_dot = [-x for x in w_dot[2:]]  # gamma_j = mu - w(j), mu constant
        assert gamma_dot[0] >= -z11 - TOLERANCE
        assert min(gamma_dot[1:]) >= -TOLERANCE


def loss_four(w, X, r, c, z11, p):
    """Lambda_4 = ell_0(X) + ell_1(r) + ell_1(c) + ell_2(z11) - log p at 30 digits, from (A.2) directly."""
    return loss_parts(w, X, r, c)[0] + mp.log(mp.fsum(mp.exp(z11 * (x - w[2])) for x in w)) - mp.log(p)


@pytest.mark.parametrize("p", [5, 7, 13])
def test_proposition_s34_the_pointwise_bounds_at_random_states(p):
    """Steps (b), (e), (f) and (g) of Proposition S3.4's proof at 200 random states of its pattern with D > 0, by
    direct 30-digit sums: Lambda_4 > Lambda and T(r) + T(c) <= Lambda_4 - 3 log 2; the rate k of (S.38) in
    [0, X^2 + r^2 + c^2 + z11^2]; g_2(z11) >= gamma_2 and -g_1(z) <= T(z) (W1 - w_min) for z = r, c (where W1 > mu);
    and step (f): ell_1(r) <= Lambda_4 - log 2 and r (W1 - mu) >= log p - ell_1(r), so W1 > mu wherever
    Lambda_4 - 3 log 2 < log(p/4). Half of the states have W1 <= mu (D above sum_j gamma_j), where (f) says
    Lambda_4 - 3 log 2 >= log(p/4)."""
    rng = np.random.default_rng(1800 + p)
    slack = mp.mpf(10) ** -25
    low = 0
    for i in range(200):
        u, v, w, X, r, c, z11 = above_state(rng, p, low_w1=i % 2 == 1)
        mu, D = mp.fsum(w) / p, w[0] - w[1]
        lam, _, _ = loss_parts(w, X, r, c)
        lam4 = loss_four(w, X, r, c, z11, p)
        tails = [1 - softmax(z, w)[0] - softmax(z, w)[1] for z in (r, c)]
        assert lam4 > lam
        assert tails[0] + tails[1] <= lam4 - 3 * mp.log(2) + slack
        k = mp.fsum(z * (softmax(z, w)[0] - softmax(z, w)[1]) for z in (X, r, c, z11)) / D
        assert -slack <= k <= X**2 + r**2 + c**2 + z11**2
        q2 = softmax(z11, w)
        assert mp.fsum(a * b for a, b in zip(q2, w)) - w[2] >= (mu - w[2]) - slack
        ell_1r = mp.log(mp.fsum(mp.exp(r * (x - w[1])) for x in w))
        assert ell_1r <= lam4 - mp.log(2) + slack
        assert r * (w[1] - mu) >= mp.log(p) - ell_1r - slack
        if w[1] <= mu:
            low += 1
            assert lam4 - 3 * mp.log(2) >= mp.log(mp.mpf(p) / 4)
            continue
        for z, tail in zip((r, c), tails):
            minus_g1 = w[1] - mp.fsum(a * b for a, b in zip(softmax(z, w), w))
            assert minus_g1 <= tail * (w[1] - min(w[2:])) + slack
    assert low == 100


def s36_holds(p, X, e, t, d, E, h):
    """Whether (S.36) holds at the base point of section 11.12 (u = v = (X/2, s - X/2, -X/2 - t, ...), s = (X + e)/2,
    w = (E + d, E, 0, ..., 0)), transcribed here from the section, at 30 digits: a tuple of the seven conditions."""
    s = (X + e) / 2
    w = [E + d, E] + [mp.mpf(0)] * (p - 2)
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    # gates: X; r = c = s; z11 = 2s - X = e; boundary -t; z1j = s - X - t; zij = -X - 2t
    m = min(X, s, t, X + t - s, X + 2 * t)
    b0 = loss_four(w, X, s, s, e, p) - 3 * mp.log(2)
    S0, M0, N0, z0 = mp.fsum(gamma), w[0] - min(w[2:]), w[1] - min(w[2:]), s
    t_c, eps = p**2 * e / h, e**2 / h
    delta_c = mp.sqrt(2 * b0 * t_c) / p
    g_m = min(gamma) - eps
    rho_p = (max(gamma) + delta_c) / g_m
    s2_p = (X + delta_c) ** 2 + 2 * (s + delta_c) ** 2 + e**2
    D_m = d * mp.exp(-s2_p * e / h) - eps
    z_p, M_p, X_m, S_m = z0 + delta_c, M0 + delta_c, X - delta_c, S0 - eps
    kappa_m = mp.mpf(3) / 4 * q_star(b0) * X_m**2
    beta = min(mp.log(mp.mpf(p) / 4), 2 / ((p - 1) * rho_p))
    return (delta_c < m, g_m > 0, 2 * (gamma[0] - eps) - b0 * (N0 + delta_c) > h, D_m > 0, b0 < beta,
            kappa_m > 2 * b0,
            kappa_m > 2 * b0 and d < S_m * mp.exp(-z_p * M_p - (z_p + M_p) ** 2 * b0 / (2 * (kappa_m - 2 * b0))))


def s36_lower_ends(p, X, e, t, d, E, h):
    """The seven margins of (S.36) at the same base point as :func:`s36_holds`, in mpmath's interval arithmetic
    (mpmath.iv, outward rounding): a list of lower ends. Every lower end > 0 proves (modulo mpmath.iv) that the point
    is in U_II^above."""
    X, e, t, d, E, h = (iv.mpf(x) for x in (X, e, t, d, E, h))
    s = (X + e) / 2
    w = [E + d, E] + [iv.mpf(0)] * (p - 2)
    mu = sum(w, iv.mpf(0)) / p
    gamma2 = mu  # every gamma_j = mu - 0

    def ell(z, y):
        return iv.log(sum((iv.exp(z * (x - w[y])) for x in w), iv.mpf(0)))

    b0 = ell(X, 0) + 2 * ell(s, 1) + ell(e, 2) - iv.log(p) - 3 * iv.log(2)
    m = min(x.a for x in (X, s, t, X + t - s, X + 2 * t))
    S0, M0, N0 = (p - 2) * gamma2, w[0], w[1]  # min_{j >= 2} w(j) = 0
    t_c, eps = p**2 * e / h, e**2 / h
    delta_c = iv.sqrt(2 * b0 * t_c) / p
    g_m = gamma2 - eps
    rho_p = (gamma2 + delta_c) / g_m
    s2_p = (X + delta_c) ** 2 + 2 * (s + delta_c) ** 2 + e**2
    D_m = d * iv.exp(-s2_p * e / h) - eps
    z_p, M_p, X_m, S_m = s + delta_c, M0 + delta_c, X - delta_c, S0 - eps
    acosh_e_b0 = iv.log(iv.exp(b0) + iv.sqrt(iv.exp(2 * b0) - 1))
    kappa_m = iv.mpf(3) / 4 * 2 * (1 - b0) / (1 + iv.exp(2 * acosh_e_b0)) * X_m**2
    beta_lower = min(iv.log(iv.mpf(p) / 4).a, (2 / ((p - 1) * rho_p)).a)
    race = iv.log(S_m) - z_p * M_p - (z_p + M_p) ** 2 * b0 / (2 * (kappa_m - 2 * b0)) - iv.log(d)
    return [(m - delta_c).a, g_m.a, (2 * (gamma2 - eps) - b0 * (N0 + delta_c) - h).a, D_m.a, beta_lower - b0.b,
            (kappa_m - 2 * b0).a, race.a]


@pytest.mark.parametrize("p, X, E", [(5, "4", "4"), (7, "4", "4"), (13, "3", "6"), (31, "3", "6")])
def test_u_ii_above_is_nonempty(p, X, E):
    """Section 11.12: the base point with e = 2e-3, d = 1e-3, t = 1/2 satisfies (S.36) with h = gamma_2, proved in
    interval arithmetic (every margin's lower end > 0) and at 30 digits (the two transcriptions agree). The
    controls, at 30 digits: d ten times larger fails the race, e thirty times larger fails (D_- > 0 and the race),
    and h = 2 gamma_2 fails the rate."""
    X, E = mp.mpf(X), mp.mpf(E)
    e, d, t = mp.mpf("2e-3"), mp.mpf("1e-3"), mp.mpf(1) / 2
    gamma2 = (2 * E + d) / p
    saved, iv.dps = iv.dps, 30
    try:
        assert min(s36_lower_ends(p, X, e, t, d, E, gamma2)) > 0
    finally:
        iv.dps = saved
    assert all(s36_holds(p, X, e, t, d, E, gamma2))
    assert not s36_holds(p, X, e, t, 10 * d, E, gamma2)[6]
    wide = s36_holds(p, X, 30 * e, t, d, E, gamma2)
    assert not wide[3] and not wide[6]
    assert not s36_holds(p, X, e, t, d, E, 2 * gamma2)[2]


@pytest.mark.parametrize("p", [5, 7])
def test_remark_s36_i_the_growth_of_gamma_j_above_the_kink(p):
    """Remark S3.6 (i): at states of Proposition S3.4's pattern with D > 0, every p^2 gamma_j' (from -grad L of (1.1))
    is at most Z (T(X) + T(r) + T(c)) + z11 <= Z (Lambda_4 - 3 log 2) + z11, Z = max(X, r, c)."""
    rng = np.random.default_rng(1900 + p)
    for _ in range(2):
        u, v, w, X, r, c, z11 = above_state(rng, p)
        gamma_dot = [p**2 * gradient_entry(u, v, w, p, "w", j) for j in range(2, p)]  # gamma_j' = -w(j)'
        tails = mp.fsum(1 - softmax(z, w)[0] - softmax(z, w)[1] for z in (X, r, c))
        Z = max(X, r, c)
        assert max(gamma_dot) <= Z * tails + z11 + TOLERANCE
        assert tails <= loss_four(w, X, r, c, z11, p) - 3 * mp.log(2) + mp.mpf(10) ** -25


def b_plus_tight(p, X, e, d, E, r):
    """Remark S3.6 (ii)'s b_+, transcribed from section 11.12: the largest F(a, b) at the four corners (a, b) of
    [-r, r]^2."""
    s = (X + e) / 2

    def F(a, b):
        D = d + a - b
        ell_0 = mp.log(1 + mp.exp(-(X - 2 * r) * D) + (p - 2) * mp.exp(-(X - 2 * r) * (E + d - r + a)))
        ell_1 = max(mp.log(1 + mp.exp(z * D) + (p - 2) * mp.exp(-z * (E - r + b))) for z in (s - 2 * r, s + 2 * r))
        z = e + 2 * r
        ell_2 = mp.log(mp.exp(z * (E + d + a + r)) + mp.exp(z * (E + b + r)) + 1 + (p - 3) * mp.exp(2 * r * z))
        return ell_0 + 2 * ell_1 + ell_2 - mp.log(p) - 3 * mp.log(2)
    return max(F(a, b) for a in (-r, r) for b in (-r, r))


@pytest.mark.parametrize("p, X, e, d, E, r", [(5, "3", "0.028", "0.018", "2", "0.007"),
                                              (7, "2.5", "0.02", "0.0125", "3", "0.005"),
                                              (13, "2.5", "0.012", "0.0075", "4", "0.003")])
def test_remark_s36_ii_b_plus_bounds_b0_on_the_box(p, X, e, d, E, r):
    """Remark S3.6 (ii): at 300 random points and 200 random corners of the sup-norm box (the corner boxes of section
    11.12's table), b0 = Lambda_4 - 3 log 2 computed directly from (A.2) at the point is at most the tight b_+; and the
    greedy corner (every coordinate pushed the way that raises b0 at the base point) comes within 5% of it (the
    bound is not loose by much)."""
    X, e, d, E, r = (mp.mpf(x) for x in (X, e, d, E, r))
    s = (X + e) / 2
    base_u = [X / 2, s - X / 2] + [-X / 2 - mp.mpf(1) / 2] * (p - 2)
    base_w = [E + d, E] + [mp.mpf(0)] * (p - 2)
    bound = b_plus_tight(p, X, e, d, E, r)
    rng = np.random.default_rng(2000 + p)

    def b0(offsets):
        u = [x + o for x, o in zip(base_u, offsets[:p])]
        v = [x + o for x, o in zip(base_u, offsets[p:2 * p])]
        w = [x + o for x, o in zip(base_w, offsets[2 * p:])]
        return loss_four(w, u[0] + v[0], u[0] + v[1], u[1] + v[0], u[1] + v[1], p) - 3 * mp.log(2)

    for i in range(500):
        signs = rng.choice([-1, 1], 3 * p) if i % 5 < 2 else rng.uniform(-1, 1, 3 * p)
        assert b0([r * mp.mpf(float(x)) for x in signs]) <= bound
    # greedy: u(0), v(0) down (X lower), u(1), v(1) up (z11 higher), w(0) and w(1) as the corner that maximises F,
    # the tails up except w(2) down
    worst = max(b0([-r, r] + [0] * (p - 2) + [-r, r] + [0] * (p - 2) + [a, b, -r] + [r] * (p - 3))
                for a in (-r, r) for b in (-r, r))
    assert worst <= bound and bound - worst < mp.mpf("0.05") * bound
