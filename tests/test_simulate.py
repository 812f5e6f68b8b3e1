"""Trajectory records (certify.simulate) against the certificates they were simulated from.

The certificates are the committed ones of the proof library (proofs/<theorem>/<theorem>-<p>.json).
Every bound is read from the certificate itself (exact strings -> Fraction -> float), not
from the record's copy, and the record's copies are checked against it separately.
"""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.special import softmax

from certify.simulate import CLOCKS, load_trajectory, save_trajectory, simulate_instance

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ("dead", "slide", "smooth", "gd")
CASES = [(theorem, p, source) for theorem in THEOREMS for p in (5, 7) for source in ("base", "box")]
_CACHE: dict = {}


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
    # sum over the classes of F_zeta is 1 (Parseval: the classes span the centred space).
    assert rec["fourier_fractions_end"].sum() == pytest.approx(1.0, rel=1e-12)
    end = (rec["u_end"], rec["v_end"], rec["w_end"])
    assert np.allclose(rec["fourier_fractions_end"], fractions_by_projection(*end), rtol=1e-10, atol=1e-14)
    assert np.allclose(rec["fourier_fractions_start"], fractions_by_projection(rec["u0"], rec["v0"], rec["w0"]),
                       rtol=1e-10, atol=1e-14)
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
    T = rec["t_death"]
    lo, hi = enclosure(cert, "hitting_time_box")
    assert lo <= T <= hi
    assert t[0] == 0 and t[-1] == T and np.all(np.diff(t) > 0)
    assert s[0] == pytest.approx(rec["u0"][0] + rec["v0"][0]) and abs(s[-1]) < 1e-12
    assert np.all(np.diff(s) < 0)  # s decreasing
    assert np.all(rec["max_other_gate"] < 0)
    assert np.all(rec["gamma"] > 0)
    delta = claim(cert, "purity_gap_box", "lo")
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    assert rec["death_slope"] >= claim(cert, "transversality_margin_box", "lo")
    assert np.abs(rec["w_end"] - rec["w0"]).sum() <= claim(cert, "terminal_w_displacement_box", "hi")
    loss_lo, loss_hi = enclosure(cert, "terminal_loss")
    assert rec["loss"][-1] == pytest.approx((loss_lo + loss_hi) / 2, rel=1e-9)  # log p: every activation is 0
    assert np.ptp(rec["balance"]) <= 1e-9 * max(1.0, abs(rec["balance"][0]))  # (A.10)
    if source == "base":
        T_lo, T_hi = enclosure(cert, "hitting_time")
        assert T_lo * (1 - 1e-7) <= T <= T_hi * (1 + 1e-7)
        m_lo, m_hi = enclosure(cert, "transversality_margin")
        assert m_lo * (1 - 1e-6) <= rec["death_slope"] <= m_hi * (1 + 1e-6)  # (2.7)
        flat_value = claim(cert, "terminal_fourier_fraction", "exact")
        assert flat_value == pytest.approx(flat(p))
        assert np.allclose(rec["fourier_fractions_end"], flat_value, rtol=1e-9)
        # (2.6): g^2 - p s^2/(2(p-1)) stays at Gamma = A^2 - p eps^2/(2(p-1)), and g = w(j) - w(0).
        eps, A = number(cert["parameters"]["epsilon"]), number(cert["parameters"]["A"])
        Gamma = A**2 - p * eps**2 / (2 * (p - 1))
        assert np.allclose(rec["g"] ** 2 - p * s**2 / (2 * (p - 1)), Gamma, rtol=1e-9, atol=0)
        assert rec["g"][-1] == pytest.approx(math.sqrt(Gamma), rel=1e-9)
        assert rec["balance"][0] == pytest.approx(claim(cert, "balance_invariant", "exact"), rel=1e-12)


# ----------------------------------------------------------------------------------------------
# Theorem A.1
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("source", ["base", "box"])
def test_slide_record_obeys_the_certificate(p, source):
    cert = certificate("slide", p)
    rec = record("slide", p, source)
    x = rec["x"]
    assert np.all(np.diff(x) > 0) and np.all(np.diff(rec["log10_t"]) > 0)
    assert x[0] > rec["u0"][0] + rec["v0"][0] > number(cert["parameters"]["X"])  # (A.15): x > X, then grows
    kappa_lo, kappa_hi = enclosure(cert, "kappa")
    assert abs(rec["d_over_x"][-1] / ((kappa_lo + kappa_hi) / 2) - 1) < 1e-3
    limit = claim(cert, "limit_fourier_fraction", "exact")
    assert limit == pytest.approx(flat(p))
    assert rec["max_fourier_fraction"][-1] == pytest.approx(limit, abs=1e-6)
    assert rec["fourier_fractions_end"].max() < 1
    loss_lo, loss_hi = enclosure(cert, "limit_loss")
    assert rec["loss_end"] == pytest.approx((loss_lo + loss_hi) / 2, rel=1e-6)
    assert np.all(rec["max_kink_coefficient"] <= claim(cert, "admissibility", "hi"))
    assert np.all(rec["min_gamma"] > number(cert["parameters"]["gamma_star"]))  # (A.17) persists
    assert np.all(rec["max_off_cross_gate"] < 0)
    # every cross gate is captured exactly once, in order of x
    assert rec["event_rows"].sum() == rec["event_columns"].sum() == p - 1
    assert np.all(np.diff(rec["event_x"]) > 0)
    assert rec["n_captured"][-1] == 2 * (p - 1)
    if source == "base":
        assert len(rec["event_x"]) == 1  # the symmetric point captures all cross gates together, at x = 6X
        assert rec["event_x"][0] == pytest.approx(6 * number(cert["parameters"]["X"]), rel=1e-8)
        lo, hi = enclosure(cert, "capture_time", "log10_lo", "log10_hi")
        assert lo * (1 - 1e-8) <= rec["event_log10_t"][0] <= hi * (1 + 1e-8)
        assert np.allclose(rec["max_fourier_fraction"], flat(p), rtol=1e-9)


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
    assert np.all(np.diff(s) < 0) and 0 < s[-1] <= number(cert["parameters"]["eps_smooth"]) / 400 * (1 + 1e-9)
    bound = claim(cert, "terminal_displacement_box", "hi")
    assert np.all(rec["displacement"] <= bound)
    assert rec["displacement_limit"] <= bound
    assert np.abs(rec["w_end"] - rec["w0"]).sum() == pytest.approx(rec["displacement_limit"])
    assert np.all(np.diff(rec["displacement"]) >= -1e-12)  # w moves monotonically away (A.62)-(A.63)
    assert rec["displacement_limit"] >= rec["displacement"][-1] - 1e-12
    assert rec["tail_bound"] < 1e-6
    assert np.all(rec["max_other_gate"] < 0)
    assert np.all(rec["g"] >= math.sqrt(claim(cert, "g_condition", "lo")))  # (A.68)
    delta = claim(cert, "purity_gap_box", "lo")
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    if source == "base":
        assert np.allclose(rec["fourier_fractions_end"], claim(cert, "terminal_fourier_fraction", "exact"),
                           rtol=1e-9)


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
    assert rec["max_fourier_fraction"][1] == pytest.approx(fractions_by_projection(*np.split(theta[1], 3)).max())
    assert rec["w_displacement"][1] <= claim(cert, "w_step_box", "hi")
    delta = claim(cert, "purity_gap_box", "lo")
    assert np.all(rec["max_fourier_fraction"][1:] <= 1 - delta)
    assert rec["fourier_fractions_end"].max() <= 1 - delta
    if source == "base":
        # (A.70): s_1 = s_0 - (2 eta/p^2) D(s_0, w_0), D = sum_c q_c w(c) - w(0), q = softmax(s_0 w_0).
        w0 = rec["w0"]
        s0 = rec["central_gate"][0]
        q = softmax(s0 * w0)
        assert rec["central_gate"][1] == pytest.approx(s0 - 2 * eta / p**2 * (q @ w0 - w0[0]), rel=1e-12)
        assert np.allclose(rec["fourier_fractions_end"], claim(cert, "terminal_fourier_fraction", "exact"),
                           rtol=1e-9)


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
