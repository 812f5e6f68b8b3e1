"""Trajectory records (certify.simulate) against the certificates they were simulated from.

The certificates are the committed ones of the proof library (proofs/<theorem>/<theorem>-<p>.json).
Every bound is read from the certificate itself (exact strings -> Fraction -> float), not
from the record's copy, and the record's copies are checked against it separately.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.special import softmax

from certify.numeric.flow import simulate_until_death
from certify.numeric.slide import simulate_slide
from certify.numeric.smooth import simulate_smooth
from certify.simulate import CLOCKS, load_trajectory, save_trajectory, simulate_instance
from tolerances import (
    event_residual,
    fourier_fraction_tolerance,
    integration_tolerance,
    log_integral_tolerance,
    projection_tolerance,
    relative_rounding,
    rounding,
)

ROOT = Path(__file__).resolve().parent.parent
# The integrators' settings (the simulators' defaults, which simulate_instance uses).
TOLERANCES = {name: tuple(inspect.signature(f).parameters[k].default for k in ("rtol", "atol"))
              for name, f in (("dead", simulate_until_death), ("slide", simulate_slide), ("smooth", simulate_smooth))}
THEOREMS = ("dead", "slide", "smooth", "gd")
CASES = [(theorem, p, source) for theorem in THEOREMS for p in (5, 7) for source in ("base", "box")]
_CACHE: dict = {}


def slide_nfev(rec: dict) -> int:
    """The solver's evaluations (>= its steps) for a slide record, which does not keep them:
    the same simulation again (deterministic: it must end in the recorded state)."""
    key = ("slide-nfev", rec["p"], rec["source"], rec["seed"])
    if key not in _CACHE:
        run = simulate_slide(rec["u0"], rec["v0"], rec["w0"])
        assert np.array_equal(np.concatenate([run.u, run.v, run.w]), np.concatenate([rec["u_end"], rec["v_end"], rec["w_end"]]))
        _CACHE[key] = run.nfev
    return _CACHE[key]


def certificate(theorem: str, p: int) -> dict:
    return json.loads((ROOT / "proofs" / theorem / f"{theorem}-{p}.json").read_text())


def record(theorem: str, p: int, source: str, seed: int = 0) -> dict:
    """simulate_instance, computed once per argument tuple for the whole module."""
    key = (theorem, p, source, seed)
    if key not in _CACHE:
        _CACHE[key] = simulate_instance(certificate(theorem, p), source, seed)
    return _CACHE[key]


def number(text) -> float:
    return float(Fraction(text))


def claim(cert: dict, name: str, end: str) -> float:
    return number(cert["claims"][name][end])


def enclosure(cert: dict, name: str, lo: str = "lo", hi: str = "hi") -> tuple[float, float]:
    return claim(cert, name, lo), claim(cert, name, hi)


def base_theta(cert: dict) -> np.ndarray:
    """The base point, read directly from the certificate (two-level blocks)."""
    p = cert["p"]
    blocks = []
    for name in ("u", "v", "w"):
        block = cert["base_point"][name]
        x = np.full(p, number(block["elsewhere"]))
        x[0] = number(block["at_0"])
        blocks.append(x)
    return np.concatenate(blocks)


def fractions_by_projection(u, v, w) -> np.ndarray:
    """F_zeta of (1.5) by explicit projection onto the orthonormal cos/sin pair of each class (1.3)."""
    p = len(u)
    a = np.arange(p)
    centred = [np.asarray(x) - np.mean(x) for x in (u, v, w)]
    total = sum(x @ x for x in centred)
    out = []
    for zeta in range(1, (p - 1) // 2 + 1):
        c, s = np.cos(2 * np.pi * zeta * a / p), np.sin(2 * np.pi * zeta * a / p)
        c, s = c / np.linalg.norm(c), s / np.linalg.norm(s)
        out.append(sum((x @ c) ** 2 + (x @ s) ** 2 for x in centred) / total)
    return np.array(out)


def flat(p: int) -> float:
    return 2 / (p - 1)


def records_equal(a: dict, b: dict) -> bool:
    if set(a) != set(b):
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
                return False
            if x.dtype != y.dtype or not np.array_equal(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


# ----------------------------------------------------------------------------------------------
# Common structure
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("theorem, p, source", CASES)
def test_record_metadata_and_start_point(theorem, p, source):
    cert = certificate(theorem, p)
    rec = record(theorem, p, source)
    assert (rec["theorem"], rec["p"], rec["source"], rec["seed"]) == (theorem, p, source, 0)
    clock = rec["clock"]
    assert clock == {"dead": "t", "slide": "x", "smooth": "s", "gd": "n"}[theorem] == CLOCKS[theorem]
    assert isinstance(rec[clock], np.ndarray) and rec[clock].ndim == 1 and len(rec[clock]) >= 4
    assert rec["radius"] == number(cert["radius"])
    theta0 = np.concatenate([rec["u0"], rec["v0"], rec["w0"]])
    base = base_theta(cert)
    if source == "base":
        assert np.array_equal(theta0, base)
    else:
        radius = number(cert["radius"])
        assert np.max(np.abs(theta0 - base)) <= radius
        assert not np.array_equal(theta0, base)
    assert rec["fourier_fractions_end"].shape == ((p - 1) // 2,)
    # sum over the classes of F_zeta is 1 (Parseval: the classes span the centred space); each
    # computed fraction carries fourier_fraction_tolerance, the sum (p - 1)/2 of them.
    end = (rec["u_end"], rec["v_end"], rec["w_end"])
    start = (rec["u0"], rec["v0"], rec["w0"])
    classes = (p - 1) // 2
    assert rec["fourier_fractions_end"].sum() == pytest.approx(
        1.0, rel=0, abs=classes * fourier_fraction_tolerance(*end) + relative_rounding(classes))
    # Two routes to the same fractions (FFT, explicit projection): their rounding estimates.
    for got, state in ((rec["fourier_fractions_end"], end), (rec["fourier_fractions_start"], start)):
        tol = fourier_fraction_tolerance(*state) + projection_tolerance(*state)
        assert np.all(np.abs(got - fractions_by_projection(*state)) <= tol)
    for key, value in rec.items():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.all(np.isfinite(value)), key
        elif isinstance(value, float):
            assert math.isfinite(value), key


@pytest.mark.parametrize("theorem, p", [(t, p) for t in THEOREMS for p in (5, 7)])
def test_recorded_bounds_are_the_certificate_numbers(theorem, p):
    cert = certificate(theorem, p)
    rec = record(theorem, p, "base")
    checked = 0
    for name, body in cert["claims"].items():
        for end in ("lo", "hi", "exact"):
            key = name if end == "exact" else f"{name}_{end}"
            if key in rec and end in body:
                assert rec[key] == number(body[end]), key
                checked += 1
        for component, bound in body.get("components", {}).items():
            key = f"{name}_{component}_hi"
            if key in rec:
                assert rec[key] == number(bound["hi"]), key
                checked += 1
    for name, value in cert["parameters"].items():
        assert rec[name] == number(value)
    assert checked >= 5


# ----------------------------------------------------------------------------------------------
# Theorem 1.5 / A.2
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("source", ["base", "box"])
def test_dead_record_obeys_the_certificate(p, source):
    cert = certificate("dead", p)
    rec = record("dead", p, source)
    t, s = rec["t"], rec["s"]
    start, end = (rec["u0"], rec["v0"], rec["w0"]), (rec["u_end"], rec["v_end"], rec["w_end"])
    T = rec["t_death"]
    lo, hi = enclosure(cert, "hitting_time_box")
    assert lo <= T <= hi
    assert t[0] == 0 and t[-1] == T and np.all(np.diff(t) > 0)
    # The first row is the start itself; the last is the death event, where s vanishes up to
    # the event residual (-ds/dt <= 4 max|w| / p^2 by (2.2)).
    W = max(np.abs(rec["w0"]).max(), np.abs(rec["w_end"]).max())
    assert s[0] == rec["u0"][0] + rec["v0"][0]
    assert abs(s[-1]) <= event_residual(4 * W / p**2, T, s[0])
    assert np.all(np.diff(s) < 0)  # s decreasing
    assert np.all(rec["max_other_gate"] < 0)
    assert np.all(rec["gamma"] > 0)
    delta = claim(cert, "purity_gap_box", "lo")
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    assert rec["death_slope"] >= claim(cert, "transversality_margin_box", "lo")
    assert np.abs(rec["w_end"] - rec["w0"]).sum() <= claim(cert, "terminal_w_displacement_box", "hi")
    # log p: every activation is 0 but the central h = max(s, 0) <= the event residual, which
    # moves the loss by at most 2 h max|w| / p^2; the loss's rounding (p^2 log-sum-exps of size
    # log p) and the enclosure's half-width.
    loss_lo, loss_hi = enclosure(cert, "terminal_loss")
    h = event_residual(4 * W / p**2, T, s[0])
    loss_tol = 2 * h * W / p**2 + float(rounding(p**2 * math.log(p), p**2 + 2 * p)) / p**2 + (loss_hi - loss_lo) / 2
    assert rec["loss"][-1] == pytest.approx((loss_lo + loss_hi) / 2, rel=0, abs=loss_tol)
    # (A.10): the record's rows are the solver's steps (len(t) - 1 of them); each component is
    # off by at most that many local errors rtol |theta_i| + atol, |theta_i| <= its larger end
    # value plus the distance w moves; B moves by 2 sum |theta_i| err_i and rounds 3p squares.
    rtol, atol = TOLERANCES["dead"]
    theta0, theta1 = np.concatenate(start), np.concatenate(end)
    size = np.maximum(np.abs(theta0), np.abs(theta1)) + rec["w_displacement_end"]
    err = integration_tolerance(size, len(t) - 1, rtol, atol)
    balance_tol = float((2 * size * err + err**2).sum()) + 2 * float(rounding((size**2).sum(), 3 * p))
    assert np.ptp(rec["balance"]) <= balance_tol
    if source == "base":
        # T is off by the integration error of s (two components) over the speed at death
        # (at least the certified margin), plus the event residual.
        T_lo, T_hi = enclosure(cert, "hitting_time")
        m_lo, m_hi = enclosure(cert, "transversality_margin")
        T_tol = (err[0] + err[p] + event_residual(1.0, T, s[0])) / m_lo
        assert T_lo - T_tol <= T <= T_hi + T_tol
        # (2.7): the field at s = 1e-12 instead of 0 (q moves by <= 1e-12 * 2 max|w| relative),
        # with w off by its integration error (D by twice the largest) and D's rounding.
        D_err = 1e-12 * 4 * W**2 + 2 * err[2 * p:].max() + float(rounding(2 * W, 2 * p + 10))
        assert m_lo - 2 * D_err / p**2 <= rec["death_slope"] <= m_hi + 2 * D_err / p**2
        # Both are the double nearest to 2/(p-1).
        flat_value = claim(cert, "terminal_fourier_fraction", "exact")
        assert flat_value == flat(p)
        # The true terminal state is two-level (flat); the record's is off by the integration
        # error of the w(j).
        off = float(np.linalg.norm(err[2 * p + 1:]))
        assert np.all(np.abs(rec["fourier_fractions_end"] - flat_value) <= fourier_fraction_tolerance(*end, off))
        # (2.6): g^2 - p s^2/(2(p-1)) stays at Gamma = A^2 - p eps^2/(2(p-1)), and g = w(j) - w(0):
        # g is off by twice the largest w error, s by those of u(0) and v(0); g^2 by 2 |g| dg,
        # s^2 by 2 |s| ds; the two cancelling terms and Gamma round a few times each.
        eps, A = number(cert["parameters"]["epsilon"]), number(cert["parameters"]["A"])
        Gamma = A**2 - p * eps**2 / (2 * (p - 1))
        g, dg, ds = rec["g"], 2 * err[2 * p:].max(), err[0] + err[p]
        c = p / (2 * (p - 1))
        tol = (2 * np.abs(g) * dg + dg**2 + c * (2 * np.abs(s) * ds + ds**2)
               + rounding(g**2 + c * s**2, 6) + float(rounding(A**2 + c * eps**2, 6)))
        assert np.all(np.abs(g**2 - c * s**2 - Gamma) <= tol)
        # at death s = 0: g = sqrt(Gamma) up to dg and the square root's rounding
        assert g[-1] == pytest.approx(math.sqrt(Gamma), rel=0, abs=dg + tol[-1] / math.sqrt(Gamma))
        # the start is the exact base point: B rounds 3p squares; the exact value rounds once
        exact = claim(cert, "balance_invariant", "exact")
        assert rec["balance"][0] == pytest.approx(
            exact, rel=0, abs=float(rounding(theta0 @ theta0, 3 * p)) + float(rounding(abs(exact), 1)))


# ----------------------------------------------------------------------------------------------
# Theorem A.1
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("source", ["base", "box"])
def test_slide_record_obeys_the_certificate(p, source):
    cert = certificate("slide", p)
    rec = record("slide", p, source)
    x = rec["x"]
    rtol, atol = TOLERANCES["slide"]
    nfev = slide_nfev(rec)
    assert np.all(np.diff(x) > 0) and np.all(np.diff(rec["log10_t"]) > 0)
    assert x[0] > rec["u0"][0] + rec["v0"][0] > number(cert["parameters"]["X"])  # (A.15): x > X, then grows
    # d/x -> kappa at the rate 1/x^2: from a face sample in that regime (deviation < kappa/10)
    # it falls at least like (x_ref/x)^2, a factor 2 for higher-order terms (test_numeric_slide).
    kappa_lo, kappa_hi = enclosure(cert, "kappa")
    kappa = (kappa_lo + kappa_hi) / 2
    face = rec["n_captured"] == 2 * (p - 1)
    xf, dev = x[face], np.abs(rec["d_over_x"][face] - kappa)
    ref = np.flatnonzero(dev < kappa / 10)[0]
    assert ref < len(xf) // 2 and dev[-1] <= 2 * dev[ref] * (xf[ref] / xf[-1]) ** 2 + (kappa_hi - kappa_lo) / 2
    # Both are the double nearest to 2/(p-1).
    limit = claim(cert, "limit_fourier_fraction", "exact")
    assert limit == flat(p)
    # The end state is two-level up to the captured gates (rounding, one per step) and the
    # wrong-class spread (a contracting direction: the last local errors, factor 10).
    end = (rec["u_end"], rec["v_end"], rec["w_end"])
    W = float(np.abs(rec["w_end"]).max())
    local = 10 * 2 * (rtol * W + atol)
    gate = 2 * float(rounding(x[-1], nfev + 10))
    assert rec["wrong_class_spread"][-1] <= local and rec["max_abs_captured_gate"][-1] <= gate
    off = math.sqrt(2 * (p - 1)) * gate + math.sqrt(p) * local
    assert rec["max_fourier_fraction"][-1] == pytest.approx(limit, rel=0, abs=fourier_fraction_tolerance(*end, off))
    assert rec["fourier_fractions_end"].max() < 1
    # The loss tends to its limit from above by log1p(sum_j e^{-x d_j})/p^2 <= (p-1) e^{-x dmin}/p^2
    # (A.33); its rounding as in test_numeric_slide.
    loss_lo, loss_hi = enclosure(cert, "limit_loss")
    dmin = float(np.min(rec["w_end"][0] - rec["w_end"][1:]))
    excess = (p - 1) * math.exp(-x[-1] * dmin) / p**2
    loss_tol = (float(rounding(p**2 * math.log(p), p**2 + 2 * p)) + float(rounding(x[-1] * W, 2 * p + 10))) / p**2
    assert loss_lo - loss_tol <= rec["loss_end"] <= loss_hi + excess + loss_tol
    assert np.all(rec["max_kink_coefficient"] <= claim(cert, "admissibility", "hi"))
    assert np.all(rec["min_gamma"] > number(cert["parameters"]["gamma_star"]))  # (A.17) persists
    assert np.all(rec["max_off_cross_gate"] < 0)
    # every cross gate is captured exactly once, in order of x
    assert rec["event_rows"].sum() == rec["event_columns"].sum() == p - 1
    assert np.all(np.diff(rec["event_x"]) > 0)
    assert rec["n_captured"][-1] == 2 * (p - 1)
    if source == "base":
        assert len(rec["event_x"]) == 1  # the symmetric point captures all cross gates together, at x = 6X
        # u(0) = x/2 moves at the constant rate 1/2: exact up to one rounding per step (and
        # brentq's 4 EPS), nfev steps at most.
        X = number(cert["parameters"]["X"])
        event_x = rec["event_x"][0]
        assert event_x == pytest.approx(6 * X, rel=relative_rounding(nfev + 14), abs=0)
        # log10 t(6X): log_integral_tolerance with w's integration error up to the impact; |w| there
        # is at most |mean w| + d(6X) (w two-level: w(0) - mean = d (p-1)/p, w(j) - mean = -d/p).
        lo, hi = enclosure(cert, "capture_time", "log10_lo", "log10_hi")
        at = np.flatnonzero(x == event_x)[0]
        w_abs = abs(rec["w0"].mean()) + rec["d_over_x"][at] * event_x
        w_err = float(integration_tolerance(w_abs, nfev, rtol, atol))
        t_tol = log_integral_tolerance(event_x, w_err, w_abs, rec["event_log10_t"][0] * math.log(10)) / math.log(10)
        assert lo - t_tol <= rec["event_log10_t"][0] <= hi + t_tol
        # The symmetric trajectory is two-level throughout (u = v, w(j) equal: the same
        # equations from the same numbers), up to the recorded spread and captured gates.
        start = (rec["u0"], rec["v0"], rec["w0"])
        off = math.sqrt(p) * rec["wrong_class_spread"].max() + math.sqrt(2 * (p - 1)) * rec["max_abs_captured_gate"].max()
        assert rec["wrong_class_spread"].max() <= local
        tol = fourier_fraction_tolerance(*start, off)  # the centred norm is smallest at the start
        assert np.all(np.abs(rec["max_fourier_fraction"] - flat(p)) <= tol)


# ----------------------------------------------------------------------------------------------
# Theorem A.3
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("source", ["base", "box"])
def test_smooth_record_obeys_the_certificate(p, source):
    cert = certificate("smooth", p)
    rec = record("smooth", p, source)
    s = rec["s"]
    assert s[0] == rec["u0"][0] + rec["v0"][0]
    # the run ends at s_min = eps/400: u(0), v(0) move at the rate 1/2 in s, so s = u(0) + v(0)
    # is on the clock up to one rounding of each per step (rows are steps)
    clock = 2 * float(rounding(s[0], len(s) + 10))
    assert np.all(np.diff(s) < 0) and 0 < s[-1] <= number(cert["parameters"]["eps_smooth"]) / 400 + clock
    bound = claim(cert, "terminal_displacement_box", "hi")
    assert np.all(rec["displacement"] <= bound)
    assert rec["displacement_limit"] <= bound
    assert np.abs(rec["w_end"] - rec["w0"]).sum() == rec["displacement_limit"]  # the same sum of the same numbers
    # w moves monotonically away (A.62)-(A.63): the computed l1 distance can step back by at
    # most the integration error of the p components at both rows (rows are solver steps,
    # len(s) of them over all pieces) plus the sums' rounding.
    rtol, atol = TOLERANCES["smooth"]
    W = max(np.abs(rec["w0"]).max(), np.abs(rec["w_end"]).max()) + bound
    w_err = float(integration_tolerance(W, len(s), rtol, atol))
    step_back = 2 * p * w_err + 2 * float(rounding(p * W, p + 1))
    assert np.all(np.diff(rec["displacement"]) >= -step_back)
    assert rec["displacement_limit"] >= rec["displacement"][-1] - step_back
    # The tail bound is J(s_end)/g_* with J(s) = s^3/(3 eps) (1 + O(s/eps)) (test_numeric_smooth)
    # and g_* >= sqrt(g_condition.lo).
    eps = number(cert["parameters"]["eps_smooth"])
    s_end = rec["s_end"]
    g_star_lo = math.sqrt(claim(cert, "g_condition", "lo"))
    assert 0 < rec["tail_bound"] <= s_end**3 / (3 * eps * g_star_lo) * (1 + 3 * s_end / eps)
    assert np.all(rec["max_other_gate"] < 0)
    assert np.all(rec["g"] >= math.sqrt(claim(cert, "g_condition", "lo")))  # (A.68)
    delta = claim(cert, "purity_gap_box", "lo")
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    if source == "base":
        # The w(j), j != 0, obey the same equation from the same start: they differ only by
        # rounding (two roundings of size max|w| per step); a two-level state is flat.
        end = (rec["u_end"], rec["v_end"], rec["w_end"])
        spread = float(rounding(W, 2 * (len(s) + 10)))
        assert np.ptp(rec["w_end"][1:]) <= spread
        tol = fourier_fraction_tolerance(*end, math.sqrt(p) * spread)
        exact = claim(cert, "terminal_fourier_fraction", "exact")
        assert np.all(np.abs(rec["fourier_fractions_end"] - exact) <= tol)


# ----------------------------------------------------------------------------------------------
# Theorem A.4
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("source", ["base", "box"])
def test_gd_record_obeys_the_certificate(p, source):
    cert = certificate("gd", p)
    rec = record("gd", p, source)
    eta = number(cert["parameters"]["eta"])
    assert list(rec["n"]) == [0, 1, 2, 3]
    theta = rec["theta"]
    assert np.array_equal(theta[0], np.concatenate([rec["u0"], rec["v0"], rec["w0"]]))
    assert rec["central_gate"][0] > 0 and rec["max_other_gate"][0] < 0  # only the central gate is active
    assert np.all(rec["central_gate"][1:] < 0) and np.all(rec["max_other_gate"][1:] < 0)
    components = cert["claims"]["one_step_death_box"]["components"]
    assert np.all(rec["central_gate"][1:] <= number(components["central_gate"]["hi"]))
    assert np.all(rec["max_cross_gate"][1:] <= number(components["cross_gates"]["hi"]))
    assert np.all(rec["max_off_cross_gate"][1:] <= number(components["off_cross_gates"]["hi"]))
    for n in (2, 3):
        assert np.array_equal(theta[n], theta[1])  # theta_n = theta_1: the gradient is exactly 0
    assert np.array_equal(np.concatenate([rec["u_end"], rec["v_end"], rec["w_end"]]), theta[1])
    theta1 = np.split(theta[1], 3)
    assert rec["max_fourier_fraction"][1] == pytest.approx(
        fractions_by_projection(*theta1).max(), rel=0,
        abs=fourier_fraction_tolerance(*theta1) + projection_tolerance(*theta1))
    assert rec["w_displacement"][1] <= claim(cert, "w_step_box", "hi")
    delta = claim(cert, "purity_gap_box", "lo")
    assert np.all(rec["max_fourier_fraction"][1:] <= 1 - delta)
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    if source == "base":
        # (A.70): s_1 = s_0 - (2 eta/p^2) D(s_0, w_0), D = sum_c q_c w(c) - w(0), q = softmax(s_0 w_0).
        w0 = rec["w0"]
        s0 = rec["central_gate"][0]
        q = softmax(s0 * w0)
        D = q @ w0 - w0[0]
        # D cancels terms of size max|w| (softmax and dot product, 2p + 10 operations, in both
        # routes), then is scaled by 2 eta / p^2 and subtracted from s0.
        D_tol = 2 * float(rounding(np.abs(w0).max(), 2 * p + 10))
        s1_tol = 2 * eta / p**2 * D_tol + float(rounding(abs(s0) + 2 * eta * abs(D) / p**2, 6))
        assert rec["central_gate"][1] == pytest.approx(s0 - 2 * eta / p**2 * D, rel=0, abs=s1_tol)
        # theta_1 is two-level (every j != 0 gets the same update from the same numbers): flat.
        end = (rec["u_end"], rec["v_end"], rec["w_end"])
        exact = claim(cert, "terminal_fourier_fraction", "exact")
        assert np.all(np.abs(rec["fourier_fractions_end"] - exact) <= fourier_fraction_tolerance(*end))


# ----------------------------------------------------------------------------------------------
# Seeds, files, errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("theorem", THEOREMS)
def test_same_seed_same_record_and_seeds_differ_on_the_box(theorem):
    cert = certificate(theorem, 5)
    first = record(theorem, 5, "box", 0)
    assert records_equal(simulate_instance(cert, "box", 0), first)
    other = simulate_instance(cert, "box", 1)
    assert other["seed"] == 1
    assert not np.array_equal(other["u0"], first["u0"])
    assert not records_equal(other, first)
    if theorem == "gd":  # the seed is recorded but does not move the base point (same code path for all)
        assert records_equal(simulate_instance(cert, "base", 3), {**record(theorem, 5, "base"), "seed": 3})


@pytest.mark.parametrize("theorem", THEOREMS)
@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_round_trip(tmp_path, theorem, suffix):
    rec = record(theorem, 5, "box")
    path = tmp_path / f"{theorem}{suffix}"
    save_trajectory(rec, path)
    loaded = load_trajectory(path)
    assert set(loaded) == set(rec)
    for key, value in rec.items():
        if isinstance(value, np.ndarray):
            assert isinstance(loaded[key], np.ndarray), key
            assert loaded[key].dtype == value.dtype and np.array_equal(loaded[key], value), key
        else:
            assert type(loaded[key]) is type(value) and loaded[key] == value, key
    assert records_equal(loaded, rec)
    if suffix == ".json":
        text = path.read_text()
        assert "NaN" not in text and "Infinity" not in text
        assert json.loads(text)["theorem"] == theorem


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(tmp_path, suffix, bad):
    rec = copy.deepcopy(record("gd", 5, "base"))
    rec["loss"] = rec["loss"].copy()
    rec["loss"][1] = bad
    with pytest.raises(ValueError):
        save_trajectory(rec, tmp_path / f"a{suffix}")
    rec = dict(record("gd", 5, "base"), eta=bad)
    with pytest.raises(ValueError):
        save_trajectory(rec, tmp_path / f"b{suffix}")
    assert not (tmp_path / f"a{suffix}").exists() and not (tmp_path / f"b{suffix}").exists()


def one_line_value_error(call):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message
    return message


def test_bad_source_theorem_and_suffix(tmp_path):
    cert = certificate("dead", 5)
    assert "source" in one_line_value_error(lambda: simulate_instance(cert, "corner"))
    assert "source" in one_line_value_error(lambda: simulate_instance(cert, "Base"))
    bogus = dict(cert, theorem="alive")
    assert "theorem" in one_line_value_error(lambda: simulate_instance(bogus))
    rec = record("gd", 5, "base")
    for name in ("x.txt", "x.csv", "x", "x.json.gz"):
        one_line_value_error(lambda: save_trajectory(rec, tmp_path / name))
        assert not (tmp_path / name).exists()
    (tmp_path / "y.txt").write_text("{}")
    one_line_value_error(lambda: load_trajectory(tmp_path / "y.txt"))


# ----------------------------------------------------------------------------------------------
# The readable summary
# ----------------------------------------------------------------------------------------------

_LINE = re.compile(r"  simulated (?P<label>.+?) = (?P<value>\S+) (?P<verdict>.+) \((?P<claim>[a-z_0-9]+)\)$")
_BOUND_KEY = re.compile(r"^(?P<claim>[a-z_0-9]+?)(_(central_gate|cross_gates|off_cross_gates))?(_log10)?_(lo|hi)$")
#: Claims without a simulated counterpart: J(epsilon + 2r) is an integral of the activation alone.
_NOT_SIMULATED = {"dead_zone_integral"}


def _claims_of_record(rec: dict) -> set[str]:
    cert = certificate(rec["theorem"], rec["p"])
    return {name for name in cert["claims"] if any(k == name or k.startswith(name + "_") for k in rec)} - _NOT_SIMULATED


@pytest.mark.parametrize("theorem, p, source", CASES)
def test_summary_names_every_compared_claim_in_readable_lines(theorem, p, source):
    from certify.simulate import summary_lines

    rec = record(theorem, p, source)
    lines = summary_lines(rec)
    assert lines[0].startswith(f"{theorem}, p = {p}, from ")
    parsed = [_LINE.match(line) for line in lines[1:]]
    assert all(parsed), [line for line, m in zip(lines[1:], parsed) if not m]
    named = {m["claim"] for m in parsed}
    expected = _claims_of_record(rec)
    if source == "box":  # base-point claims say nothing about a box trajectory
        cert = certificate(theorem, p)
        expected = {name for name in expected if cert["claims"][name]["scope"] != "base_point"}
    assert named == expected
    # the record's own trajectories obey their box bounds: no alarm word
    assert not any(word in line for line in lines for word in ("OUTSIDE", "EXCEEDS", "BELOW"))
    assert not any(":" in line for line in lines[1:])  # no key dump


def test_summary_of_a_dead_box_trajectory_reads_like_the_issue():
    from certify.simulate import summary_lines

    rec = record("dead", 7, "box")
    cert = certificate("dead", 7)
    line = next(line for line in summary_lines(rec) if "(hitting_time_box)" in line and "T (death" in line)
    m = re.fullmatch(r"  simulated T \(death time\) = (\S+) lies in the certified \[(\S+), (\S+)\] \(hitting_time_box\)",
                     line)
    assert m, line
    value, lo, hi = (Fraction(x) for x in m.groups())
    # four significant digits: the value to nearest (half a unit of its last digit), the ends outward
    T = Fraction(rec["t_death"])
    assert abs(value - T) <= Fraction(1, 2) * 10 ** (math.floor(math.log10(T)) - 3)
    assert lo <= Fraction(cert["claims"]["hitting_time_box"]["lo"]) and hi >= Fraction(cert["claims"]["hitting_time_box"]["hi"])
    assert len(m[1].replace(".", "").lstrip("0")) <= 4


def test_summary_flags_a_value_outside_its_bound():
    from certify.simulate import summary_lines

    rec = dict(record("dead", 5, "box"))
    rec["t_death"] = 2 * rec["hitting_time_box_hi"]
    rec["w_displacement_end"] = 3 * rec["terminal_w_displacement_box_hi"]
    lines = summary_lines(rec)
    assert any("lies OUTSIDE the certified" in line and "(hitting_time_box)" in line for line in lines)
    assert any("EXCEEDS the certified upper bound" in line and "(terminal_w_displacement_box)" in line for line in lines)
    with pytest.raises(ValueError):
        summary_lines(dict(rec, theorem="alive"))


def test_progress_of_simulate_instance():
    seen = []
    rec = simulate_instance(certificate("dead", 7), "box", 0, progress=seen.append)
    assert seen[-1] == 1.0 and len(seen) >= 3 and np.all(np.diff(seen) > 0) and 0 < seen[0]
    assert records_equal(rec, record("dead", 7, "box"))
    seen.clear()
    simulate_instance(certificate("gd", 5), "base", 0, progress=seen.append)
    assert seen == [1.0]


# ----------------------------------------------------------------------------------------------
# Simulating a certificate file
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def custom_dead_file(tmp_path_factory):
    """A dead certificate with non-default parameters (A = 3/2, epsilon = 1/2) and radius 1/10."""
    from certify.certificate import dumps
    from certify.theorems.dead import certify_dead

    from flint import fmpq

    cert = certify_dead(7, epsilon=fmpq(1, 2), A=fmpq(3, 2), radius=fmpq(1, 10)).certificate
    path = tmp_path_factory.mktemp("custom") / "dead-7.json"
    path.write_text(dumps(cert), encoding="utf-8")
    return path, cert


def test_a_certificate_file_is_simulated_from_its_own_parameters(custom_dead_file):
    from certify.simulate import simulate_certificate_file

    path, cert = custom_dead_file
    default = certificate("dead", 7)
    assert cert["parameters"] != default["parameters"] and cert["radius"] != default["radius"]
    rec = simulate_certificate_file(path, "box", seed=3)
    assert (rec["A"], rec["epsilon"], rec["radius"]) == (1.5, 0.5, number(cert["radius"]))
    assert records_equal(rec, simulate_instance(cert, "box", 3))
    # its start lies in its own box (radius from the file) around its own base point
    assert np.abs(np.concatenate([rec["u0"], rec["v0"], rec["w0"]]) - base_theta(cert)).max() <= number(cert["radius"])
    lo, hi = enclosure(cert, "hitting_time_box")
    assert lo <= rec["t_death"] <= hi


def test_an_unverified_certificate_file_is_refused_in_one_line(custom_dead_file, tmp_path):
    from certify.errors import InputError
    from certify.simulate import simulate_certificate_file

    path, cert = custom_dead_file
    forged = copy.deepcopy(cert)
    forged["claims"]["hitting_time_box"]["hi"] = forged["claims"]["hitting_time_box"]["lo"]  # too strong
    cases = {"rejected": json.dumps(forged), "malformed": "{not json\n\n"}
    for status, text in cases.items():
        bad = tmp_path / f"{status}.json"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as info:
            simulate_certificate_file(bad, progress=lambda x: pytest.fail("simulated an unverified certificate"))
        message = str(info.value)
        assert "\n" not in message and f"{bad}: {status}" in message and message.startswith("will not simulate")
    with pytest.raises(InputError, match="malformed"):
        simulate_certificate_file(tmp_path)  # a folder
    with pytest.raises(InputError, match="malformed"):
        simulate_certificate_file(tmp_path / "missing.json")


@pytest.mark.parametrize("command", [["simulate", "dead", "--p", "999999999999999989"],
                                     ["plot", "dead", "--p", "1000003", "--out", "never.png"],
                                     ["simulate", "slide", "--p", "1009"]])
def test_a_prime_too_large_to_simulate_is_one_line(command):
    """The review saw 6.94 EiB and 7.28 TiB allocations (tracebacks) and p = 10007 running for minutes."""
    from conftest import run_certify

    result = run_certify(*command, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "is too large to simulate" in result.stderr
