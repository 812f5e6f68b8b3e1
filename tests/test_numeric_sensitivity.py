"""Tests of certify.numeric.sensitivity: the death event's sensitivity, floats (issue 15).

Floats: cross-checks, never bounds.  Every tolerance has its error estimate written beside it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify.numeric import model
from certify.numeric import sensitivity as S
from tolerances import EPS, integration_tolerance, rounding

PRIMES = (5, 13)


@pytest.fixture(scope="module")
def closed():
    out = {}
    for p in PRIMES:
        Jreg = S.regional_derivative(p)
        Psi = S.terminal_map_derivative(p)
        Jode, yT, nfev = S.regional_derivative_ode(p)
        out[p] = dict(Jreg=Jreg, Psi=Psi, Jode=Jode, yT=yT, nfev=nfev,
                      gradT=S.hitting_time_gradient(p), speed=S.event_speed(p), T=S.hitting_time(p))
    return out


@pytest.fixture(scope="module")
def tables():
    return {p: S.sensitivity_table(p, etas=(1e-1, 1e-2)) for p in PRIMES}


def _ode_tol(c, p):
    # DOP853 at rtol 1e-12, atol 1e-14: global error <~ steps (rtol |J| + atol); steps <= nfev / 12
    # (12 stages per step), |J| <= 2 (entries of J_reg); factor 10 for amplification (e^{T max|Df|} < 10)
    # and the quad rounding of T* and grad T (epsrel 2e-14 of |grad T| |ds/dt| ~ 1, far smaller).
    return float(integration_tolerance(2.0, max(1, c["nfev"] // 12), 1e-12, 1e-14, factor=10))


# --------------------------------------------------------------------------- closed forms

def test_mpmath_oracle_contains_closed_forms(closed):
    # mpmath.odefun at 30 digits + central differences with h = 1e-10 (p = 5).  FD error:
    # h^2 |y'''| / 6 + (solver error 10^-30 x amplification <= 10) / h.  The third derivatives of
    # y(T*; y0) and Psi are built from sqrt(g0^2 - c s0^2) and the field's exponentials, of size
    # <= 100 here (R = sqrt(Gamma) ~ 1.8, 1/R^5 ~ 0.05; T* |Df|^3 e^{T*|Df|} < 100): 1e-20 * 100/6 +
    # 1e-29 / 1e-10 < 1e-18.  Float side: Psi' ~10 roundings of O(1) numbers (1e-14); J_reg through
    # quad at epsrel 2e-14 of |grad T| <= 30 times |ds/dt| < 0.1 (6e-14).  Tolerance 1e-11 covers
    # these with a factor > 100; a wrong formula errs by O(0.01 - 1).
    p = 5
    Jmp, Psimp, Tmp = S.mp_flow_derivatives(p)
    c = closed[p]
    assert abs(Tmp - c["T"]) <= 1e-12 * c["T"]  # quad at epsrel 2e-14 of T ~ 7, the root at 30 digits
    assert np.max(np.abs(Jmp - c["Jreg"])) <= 1e-11
    assert np.max(np.abs(Psimp - c["Psi"])) <= 1e-11
    assert np.max(np.abs(Jmp - c["Jode"])) <= 1e-11 + _ode_tol(c, p)


@pytest.mark.parametrize("p", PRIMES)
def test_terminal_state_and_event_speed(closed, p):
    c = closed[p]
    # y(T*) from the ODE against Psi(y0) in closed form: the integration estimate of the state
    # (|y| <= 2, same steps), and ds/dt(T-) of (2.7) against the field there (10 roundings + exp).
    tol = _ode_tol(c, p)
    assert np.max(np.abs(c["yT"] - S.terminal_map(p, S.base_reduced()))) <= tol
    f = S.reduced_field(p, S.terminal_map(p, S.base_reduced()))
    assert abs(f[0] - c["speed"]) <= float(rounding(abs(c["speed"]), 20, 2))
    assert f[1] == 0.0 and f[2] == 0.0  # s = 0 exactly: da/dt and db/dt carry the factor s
    assert c["speed"] < 0


@pytest.mark.parametrize("p", PRIMES)
def test_regional_two_routes_and_saltation_identity(closed, p):
    c = closed[p]
    tol = _ode_tol(c, p)
    # Route 1 (Psi' - f grad T^T, quad) against route 2 (variational ODE to T*).
    assert np.max(np.abs(c["Jode"] - c["Jreg"])) <= tol
    # Psi' = S J_reg with J_reg from the ODE (independent of Psi'): S has entries <= 1 on 3 terms.
    Sm = S.saltation_matrix([c["speed"], 0.0, 0.0], [1.0, 0.0, 0.0])
    assert np.max(np.abs(Sm @ c["Jode"] - c["Psi"])) <= 3 * tol
    # grad T^T = -n^T J_reg / (n^T f): the s row of the ODE's J_reg against the quad gradient;
    # dividing by |ds/dt| (0.06 at p = 5, 0.01 at p = 13) scales the error up by 1/|ds/dt|.
    assert np.max(np.abs(-c["Jode"][0] / c["speed"] - c["gradT"])) <= tol / abs(c["speed"])


@pytest.mark.parametrize("p", PRIMES)
def test_gap_rank_one_and_size(closed, p):
    c = closed[p]
    tol = _ode_tol(c, p)
    diff = c["Psi"] - c["Jode"]
    sv = np.linalg.svd(diff, compute_uv=False)
    # Psi' - J_reg = f grad T^T exactly; the ODE's error E adds at most |E|_2 <= |E|_F <= 3 tol to
    # each singular value (Weyl), so sigma_2 / sigma_1 <= 3 tol / (sigma_1 - 3 tol).
    assert sv[0] > 0.5  # the gap is O(1): |ds/dt| |grad T| ~ 1.2
    assert sv[1] / sv[0] <= 3 * tol / (sv[0] - 3 * tol)
    # Frobenius norm of an outer product = product of norms: gap = |ds/dt(T-)| |grad T|.
    gap = abs(c["speed"]) * np.linalg.norm(c["gradT"])
    assert abs(np.linalg.norm(diff) - gap) <= 3 * tol
    # The s row of Psi' is exactly 0 (the terminal state lies on the gate).
    assert np.all(c["Psi"][0] == 0.0)


# --------------------------------------------------------------------------- the discrete program

@pytest.mark.parametrize("p", PRIMES)
def test_complex_gradient_matches_model(p):
    # The batched complex-capable full-table gradient against model.gradient (ReLU'(0) = 0) at the
    # base point and one GD-like point after the event: the same formulas summed in another order,
    # each entry a sum of <= p^2 terms of size <= max|w| (2) x p^2 / p^2: rounding(2 p^2 ... ) below.
    rng = np.random.default_rng(7)
    th = S._base_full(p, 1.0, 2.0, 1.0)
    pts = [th, th + 0.01 * rng.standard_normal(3 * p) * (np.arange(3 * p) >= 2 * p)]
    dead = th.copy()
    dead[0] = dead[p] = -1e-3
    pts.append(dead)
    grad = S._FullGradient(p)
    for x in pts:
        z = x[:p, None] + x[None, p:2 * p]
        G = grad(x[None, :].astype(complex), (z > 0)[None])[0]
        assert np.all(G.imag == 0.0)
        ref = np.concatenate(model.gradient(x[:p], x[p:2 * p], x[2 * p:], relu_prime_at_zero=0.0))
        # per entry: a softmax (p exps, p additions, a division: ~3p ops) then a sum of p terms
        assert np.max(np.abs(G.real - ref)) <= float(rounding(2.0 * p, 4 * p, 4))


def test_gd_real_part_is_plain_gd():
    # The row-0 trajectory is plain GD with model.gradient: both programs evaluate the same
    # expressions up to summation order (per step <= rounding(2p, 4p, 4) per entry, as above),
    # and those differences add over K = 110 steps through step Jacobians I + eta Df, |eta Df| < 0.01:
    # amplification (1.01)^110 < 3.
    p, eta = 5, 0.1
    run = S.gd_sensitivity(p, eta)
    th = S._base_full(p, 1.0, 2.0, 1.0)
    for _ in range(run["K"]):
        th = th - eta * np.concatenate(model.gradient(th[:p], th[p:2 * p], th[2 * p:], 0.0))
    assert np.max(np.abs(run["theta"] - th)) <= run["K"] * 3 * eta * float(rounding(2.0 * p, 4 * p, 4))


def test_complex_step_is_the_derivative_of_the_executed_program():
    # J_AD (complex step) against central differences of the executed GD program, h = 1e-6, at
    # p = 5, eta = 0.1 (the branch sequence is the same at +-h: checked by the event step).
    # FD error: h^2 |third derivative| / 6 (<= 100, as for the flow: 2e-11) + rounding of the
    # final state (<= K steps x 1e-15 ~ 1e-13, relative to |theta| <= 2) / h: 2e-7.  Tolerance 1e-6.
    p, eta, h = 5, 0.1, 1e-6
    run = S.gd_sensitivity(p, eta)
    V = S._tangents(p)
    base = S._base_full(p, 1.0, 2.0, 1.0)
    for k in range(3):
        rp = S.gd_sensitivity(p, eta, theta0=base + h * V[k])
        rm = S.gd_sensitivity(p, eta, theta0=base - h * V[k])
        assert rp["event_step"] == rm["event_step"] == run["event_step"]
        fd = (rp["final"] - rm["final"]) / (2 * h)
        assert np.max(np.abs(fd - run["J_AD"][:, k])) <= 1e-6


@pytest.mark.parametrize("p", PRIMES)
def test_gd_derivative_approaches_regional_not_terminal(tables, p):
    rows = tables[p]
    gap = rows[0]["gap"]
    for r in rows:
        # The event step lies at T* + O(eta): GD's crossing time differs from T* by its O(eta)
        # state error divided by the speed, plus less than one step; |theta| <= 2 allows an Euler
        # shift of one step on top of the grid phase in [0, 1).
        assert -1.0 <= r["theta"] <= 2.0
        # J_AD - J_reg = O(eta) with a constant of the size of d/dt D phi at T* (|Df J_reg| ~ 0.1)
        # plus the Euler constant; at eta <= 0.1 that is << gap (~1.2), so the distance to Psi'
        # stays within 10% of the gap: J_AD does NOT approach Psi'.
        assert abs(r["dist_psi"] - gap) <= 0.1 * gap
        assert r["dist_reg"] <= 0.1 * gap
    # Rate: the Euler part of J_AD - J_reg (after removing the grid-phase term (t_e - T*) Df J_reg,
    # which jumps with eta) is C eta + O(eta^2), so the decade ratio is 10 (1 + O(eta)); the window
    # [5, 20] allows the O(eta^2) remainder to be up to half the leading term at eta = 0.1.
    assert 5.0 <= rows[1]["ratio_reg_phase"] <= 20.0
    # The raw |J_AD - J_reg| is only O(eta): its decade ratio is 10 (C + theta_1 D)/(C + theta_2 D)
    # with the grid phase theta of each eta (measured 19.7 at p = 5, 2.2 at p = 13), so no window
    # is asserted on it; the phase model is what the ratio above tests.


@pytest.mark.parametrize("p", PRIMES)
def test_restoration_recovers_terminal_derivative(tables, p):
    rows = tables[p]
    gap = rows[0]["gap"]
    # S_full J_AD with f at the pre-event iterate: O(eta) from J_AD - J_reg and from f's O(eta)
    # offset from the event point; the decade ratio is 10 (1 + O(eta)), window [5, 20] as above.
    for r in rows:
        assert r["dist_restored"] <= 0.1 * gap
    assert 5.0 <= rows[1]["ratio_restored"] <= 20.0
    run = S.gd_sensitivity(p, 1e-2)
    # The restored s row is (numerically) 0: S_full zeroes n_full^T of every tangent column,
    # cancellation of terms of size |J_AD| <= 2 in ~6 roundings.
    assert np.max(np.abs(run["J_restored"][0])) <= float(rounding(2.0, 6, 4))
    # while GD's own s row is O(1): AD says the final gate depends on the initial point.
    assert np.max(np.abs(run["J_AD"][0])) > 0.5


# --------------------------------------------------------------------------- bad input

def test_resonant_eta_raises():
    eta = S.resonant_eta(5)
    with pytest.raises(ValueError, match=r"eta = .* is resonant: iterate 1 has gate \(0, 0\) exactly 0"):
        S.gd_sensitivity(5, eta)
    # one ulp away the same program is fine up to the first step (s_1 != 0) -- it is a different
    # program (steps of size 6, no theorem itinerary needed): the error, if any, is not resonance
    try:
        S.gd_sensitivity(5, float(np.nextafter(eta, 0.0)))
    except ValueError as err:
        assert "resonant" not in str(err)


@pytest.mark.parametrize("eta", [0.0, -0.1, float("nan"), float("inf"), "x"])
def test_bad_eta_raises(eta):
    with pytest.raises(ValueError, match="step size eta"):
        S.gd_sensitivity(5, eta)


@pytest.mark.parametrize("p", [4, 9, 15, 3, 2, 1, True, 5.0])
def test_bad_prime_raises(p):
    with pytest.raises(ValueError, match="prime"):
        S.gd_sensitivity(p, 0.1)
    with pytest.raises(ValueError, match="prime"):
        S.sensitivity_table(p, etas=(0.1,))


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="B > epsilon/2"):
        S.terminal_map_derivative(5, epsilon=3.0, A=5.0, B=1.0)
    with pytest.raises(ValueError, match=r"A\^2"):
        S.regional_derivative(5, epsilon=1.0, A=0.5, B=1.0)
    with pytest.raises(ValueError, match="positive"):
        S.gd_sensitivity(5, 0.1, epsilon=-1.0)


# --------------------------------------------------------------------------- plot

def test_plot_sensitivity(tables, tmp_path):
    from matplotlib.figure import Figure

    rows = tables[5]
    path = tmp_path / "sens.png"
    S.plot_sensitivity(path, rows, rows[0]["gap"])
    assert path.stat().st_size > 1000
    fig = S.plot_sensitivity(Figure(), rows, rows[0]["gap"])
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 5 and all("floats" in t for t in labels)
    certified = S.plot_sensitivity(Figure(), rows, rows[0]["gap"], gap_label="certified gap (the certificate)")
    texts = [t.get_text() for t in certified.axes[0].get_legend().get_texts()]
    assert texts[-1] == "certified gap (the certificate)" and all("floats" in t for t in texts[:-1])
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    with pytest.raises(ValueError):
        S.plot_sensitivity(Figure(), [], 1.0)
