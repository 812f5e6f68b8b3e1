"""Section 10 of docs/staircase.md (Theorem S1, the k = 1 staircase by the loss), checked by independent routes:
the w-velocity of Lemma S1.3 and the force A of Lemma S1.6 from the gradient of the full loss (1.1)
(tests/staircase_full_loss.py), Proposition S1.7 against numpy's FFT, and the explicit point of item 5 at 50
digits.

Tolerances: mpmath.diff at 30 digits errs below 1e-15 relative here (a sum of p^2 smooth terms below 10^3), so
1e-10 is far above it. The float checks add at most 3p = 39 squares of numbers within 10^4 of each other in
magnitude, with a relative rounding error below 10^3 * 2^-52 < 1e-12; they allow 1e-9.
"""

import math

import mpmath as mp
import numpy as np
import pytest

from staircase_full_loss import gradient_entry, max_fourier_fraction, softmax

TOLERANCE = mp.mpf(10) ** -10
RELATIVE = 1e-9


@pytest.fixture(autouse=True)
def thirty_digits():
    """Every test here at 30 digits (the module docstring's tolerances assume it; tests/conftest.py resets the
    precision to 15 digits before each test, so a module-level setting would not hold)."""
    with mp.workdps(30):
        yield


def one_gate_state(rng, p):
    """A random state of P_1 with every gate but (0, 0) strictly negative, and gamma_j > 0 (j >= 1)."""
    X = mp.mpf(rng.uniform(0.05, 4))
    u = [X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 1)]
    v = [X / 2] + [-X / 2 - mp.mpf(rng.uniform(0.05, 2)) for _ in range(p - 1)]
    w = [mp.mpf(rng.normal()) for _ in range(p)]
    # mean(w) = max_{j >= 1} w(j) + slack, so every gamma_j >= slack > 0
    w[0] = p * max(w[1:]) - mp.fsum(w[1:]) + p * mp.mpf(rng.uniform(0.1, 2))
    return u, v, w, X


@pytest.mark.parametrize("p", [5, 7])
def test_lemma_s1_3_the_w_velocity_is_the_active_gates(p):
    """p^2 w' = -X (q(X) - e_0) (Lemma S1.3), w' = -grad_w L of (1.1) at states away from every kink."""
    rng = np.random.default_rng(p)
    for _ in range(2):
        u, v, w, X = one_gate_state(rng, p)
        assert min(mp.fsum(w) / p - x for x in w[1:]) > 0
        q = softmax(X, w)
        for c in range(p):
            velocity = -gradient_entry(u, v, w, p, "w", c) * p**2
            formula = -X * (q[c] - (1 if c == 0 else 0))
            assert abs(velocity - formula) <= TOLERANCE * (1 + abs(formula))


@pytest.mark.parametrize("p", [5, 7])
def test_lemma_s1_6_the_force_bound_with_the_gradient(p):
    """A = p^2 (-dL/du(0)) <= ell_0(X) p rho gamma_min (Lemma S1.6); row 0 has one active gate."""
    rng = np.random.default_rng(20 + p)
    for _ in range(3):
        u, v, w, X = one_gate_state(rng, p)
        A = -gradient_entry(u, v, w, p, "u", 0) * p**2
        mu = mp.fsum(w) / p
        gamma = [mu - x for x in w[1:]]
        ell_0 = mp.log(mp.fsum(mp.exp(X * (x - w[0])) for x in w))
        assert A <= ell_0 * p * max(gamma) + TOLERANCE


@pytest.mark.parametrize("p", [5, 7, 13])
def test_lemma_s1_6_is_tight_enough_to_fail_with_p_minus_1(p):
    """Lemma S1.6 at random states of P_1 in floats, and a control: with p - 1 in place of p the bound fails at
    states with rho = 1 and small ell_0 (there A = (1 - q_0) p gamma and 1 - q_0 ~ ell_0).

    A and ell_0 are summed from positive terms (no cancellation), so each has a relative error below
    p * 2^-50 < 1e-13; the true relative gap of the bound is at least about ell_0/2 (1 - q_0 = 1 - e^{-ell_0}),
    so states with ell_0 < 1e-6 are skipped: their gap is real but below what the float test resolves."""
    rng = np.random.default_rng(40 + p)
    failures = checked = 0
    for _ in range(2000):
        w = rng.normal(size=p) * 10 ** rng.uniform(-1, 1)
        if rng.uniform() < 0.5:
            w[1:] = w[1]                       # rho = 1
        w[0] = p * w[1:].max() - w[1:].sum() + rng.uniform(0.1, 3) * p
        gamma = w.mean() - w[1:]
        X = rng.uniform(0.5, 15) / (p * gamma.min())   # X p gamma_min in [0.5, 15]: ell_0 mostly above 1e-6
        weights = np.exp(X * (w[1:] - w[0]))
        ell_0 = np.log1p(weights.sum())
        if ell_0 < 1e-6:
            continue
        checked += 1
        A = (weights * (w[0] - w[1:])).sum() / (1 + weights.sum())
        rho = gamma.max() / gamma.min()
        assert A <= ell_0 * p * rho * gamma.min() * (1 + RELATIVE)
        failures += A > ell_0 * (p - 1) * rho * gamma.min() * (1 + RELATIVE)
    assert checked > 1500 and failures > 0


def k1_cone_state(rng, p, f1):
    """W0 - mu = S, gamma_j > 0 with rho < 2 - sqrt(F_1); u and v either random or one pure cosine whose energy
    matches N_w (the case where the bound of Step 1 is tight)."""
    scale = 10 ** rng.uniform(-2, 3)
    mu = rng.normal() * scale * (rng.uniform() < 0.5)
    rho = 1 + rng.uniform(0, 1) ** 3 * (1 - np.sqrt(f1))
    gamma = scale * (1 + (rho - 1) * rng.uniform(0, 1, p - 1))
    gamma[0], gamma[-1] = scale, scale * rho
    w = np.concatenate([[mu + gamma.sum()], mu - gamma])
    n_w = ((w - w.mean()) ** 2).sum()
    if rng.uniform() < 0.5:
        cosine = np.cos(2 * np.pi * np.arange(p) / p)
        share = rng.uniform(0.2, 0.8)
        u = cosine * np.sqrt(share * n_w / (cosine @ cosine))
        v = cosine * np.sqrt((1 - share) * n_w / (cosine @ cosine))
    else:
        u, v = (rng.normal(size=p) * scale * 10 ** rng.uniform(-2, 1) for _ in range(2))
    return u, v, w, gamma


def delta_1(u, v, w, gamma, p, f1):
    """delta_1 of (S1.2) at the state (static form: rho, L and C_+ of the state itself)."""
    mu = w.mean()
    rho = gamma.max() / gamma.min()
    c_plus = max(0.0, p * mu**2 + (u @ u + v @ v - w @ w))
    ell = gamma.sum() ** 2 + gamma @ gamma
    return (1 - (np.sqrt(f1) + rho - 1) ** 2) * ell / (2 * ell + c_plus)


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_proposition_s1_7_bounds_every_fourier_fraction(p):
    """1 - max F >= delta_1 (S1.2) at 2000 random states; with 0.8 F_1 in place of F_1 it fails at some."""
    rng = np.random.default_rng(60 + p)
    f1 = 2 / (p - 1)
    failures = 0
    for _ in range(2000):
        u, v, w, gamma = k1_cone_state(rng, p, f1)
        purity = 1 - max_fourier_fraction(u, v, w, p)
        assert purity >= delta_1(u, v, w, gamma, p, f1) * (1 - RELATIVE)
        failures += purity < delta_1(u, v, w, gamma, p, 0.8 * f1) * (1 - RELATIVE)
    assert failures > 0


@pytest.mark.parametrize("p", [5, 7, 13, 31, 101, 1009, 100003, 1000003])
def test_the_explicit_point_of_item_5(p):
    """Item 5: u = v = (X/2, -X/2 - 1, ...), w = (E, 0, ..., 0) with X = 2 and E = ceil(ln p): the gate (0, 0) is
    X > 0, every other gate is < 0 (exactly), rho = 1, and ell_0(X) < 2/p (50 digits)."""
    X, E = 2, math.ceil(math.log(p))
    assert X * E >= 2 * math.log(p)
    assert X > 0 and X / 2 + (-X / 2 - 1) < 0 and 2 * (-X / 2 - 1) < 0
    with mp.workdps(50):
        ell_0 = mp.log(1 + (p - 1) * mp.exp(-X * E))
        assert ell_0 < mp.mpf(2) / p
