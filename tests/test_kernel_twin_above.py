"""certify.kernel.twin_above (docs/staircase.md, sections 11.12-11.13): every bound of the box of U_II^above against
an independent oracle.

The oracle draws exact points of the box around the base point of section 11.12 (written out here from the doc, not
read from the kernel): its two extreme corners, a corner where z11 and the least gamma_j are both at their box
extremes, random corners and random interior points. At each it evaluates, from the definitions of Proposition S3.4
with mpmath at 40 digits, the quantities of the proposition at the point's own values (X0 = z00, r0 = z01,
c0 = z10, e = z11, D0, b0 = Lambda_4 - 3 log 2 from the log-sum-exps (A.2) over all p labels, m, N_1, M0, z0, S0,
gamma_2, gamma_min0, gamma_max0, C_+): the margins of (S.36) with Remark S3.6 (i)'s rho_+ = (gamma_max0 +
min(delta_c, eta))/g_-, the window, delta_- of (S.37) and the capture time p^2 e/h. Remarks S3.5-S3.6 say the
certificate's lower ends are below them (and its upper ends of b0 and t_c above) at every point. The pattern
margins are compared, exactly, with the least value of each gate class over the box, found with fractions at the
corner that minimises it. The kernel's balls are compared with the doc's closed forms at the box's bounds (this
file's own mpmath transcription, and examples/staircase/regime2_above.py's float one, `remark_margins`), and the
controls that must fail: hypotheses broken (named in the message, each confirmed negative by the oracle), boxes
too large, the default base point at p = 179 (the race), forged claims, a changed h. Errors of the oracle: every
value is O(10^2) at most and computed at 40 digits (the logarithms' arguments are O(10^2) sums of positive
terms, no cancellation beyond a factor 10^3), so its rounding is below 10^-35, inside the 10^-30 allowed.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import re
import sys
from fractions import Fraction

import mpmath as mp
import pytest
from flint import ctx, fmpq

from certify.certificate import dumps, parse_certificate, software_versions
from certify.errors import HypothesisError, NotCertified
from certify.kernel import twin_above as kernel
from certify.kernel.balls import working_precision
from certify.kernel.exact import canonical_text
from certify.theorems.twin_above import (DEFAULT_SIGMA, DEFAULT_X, certify_twin_above, default_d, default_e,
                                         default_E, default_g, default_h, default_t)
from conftest import ROOT

#: What the oracle's rounding may cost (the module docstring's estimate: below 10^-35).
ROUNDING = mp.mpf("1e-30")
LIBRARY = ROOT / "proofs" / "twin_above"
PARAMETERS = ("X", "e", "t", "d", "E", "h", "sigma", "g")
CAPTURE = ("reach", "gamma_floor", "rate", "difference_floor", "cone", "race")


@pytest.fixture(autouse=True)
def forty_digits():
    with mp.workdps(40):
        yield


def mpf(x) -> mp.mpf:
    """An exact rational (Fraction, fmpq, int) as an mpf at the current precision."""
    x = Fraction(int(x.p), int(x.q)) if isinstance(x, fmpq) else Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def exact(text: str) -> fmpq:
    value = Fraction(text)
    return fmpq(value.numerator, value.denominator)


def library(p: int) -> dict:
    return parse_certificate((LIBRARY / f"twin_above-{p}.json").read_bytes())


def params_of(document: dict) -> kernel.TwinAboveParameters:
    return kernel.TwinAboveParameters(int(document["p"]), *(exact(document["parameters"][name])
                                                             for name in PARAMETERS))


def default_params(p: int) -> kernel.TwinAboveParameters:
    """The builder's defaults, from its default_* functions (docs/staircase.md 11.13)."""
    d, E = default_d(p), default_E(p)
    g = default_g(p, DEFAULT_X, default_e(p), d, E, DEFAULT_SIGMA)
    h = default_h(p, DEFAULT_X, default_e(p), d, E, g)
    t = default_t(p, DEFAULT_X, default_e(p), d, E, h, g)
    return kernel.TwinAboveParameters(p, DEFAULT_X, default_e(p), t, d, E, h, DEFAULT_SIGMA, g)


def mid(ball) -> mp.mpf:
    return mp.mpf(ball.mid().str(40, radius=False))


def base_point(params) -> list[list[Fraction]]:
    """Section 11.12's base point, from the doc: u = v = (X/2, s - X/2, -X/2 - t, ...), s = (X + e)/2, w = (E + d,
    E, 0, ...) - mu_0, mu_0 = (2E + d)/p (Fractions)."""
    X, e, t, d, E = (Fraction(int(getattr(params, n).p), int(getattr(params, n).q)) for n in ("X", "e", "t", "d", "E"))
    p = params.p
    s, mu0 = (X + e) / 2, (2 * E + d) / p
    u = [X / 2, s - X / 2] + [-X / 2 - t] * (p - 2)
    return [u, list(u), [E + d - mu0, E - mu0] + [-mu0] * (p - 2)]


def box_points(params, radius, count: int, seed: int) -> list[list[list[Fraction]]]:
    """Exact points (u, v, w) of the box (each w(j), j >= 2, within r_w = r + g, every other coordinate within r):
    the all-minus and all-plus corners; a corner with u(1), v(1), w(2) at their top and every other w(c) at its
    bottom (z11 = e + 2r and gamma_2 = mu_0 - (2r + 2(p - 2) r_w)/p together: g_- and t_c at their box extremes);
    then random corners and interior points (multiples of 1/1000 of the move), alternating."""
    centre, p, r = base_point(params), params.p, Fraction(int(radius.p), int(radius.q))
    rng = random.Random(seed)
    points = []
    for index in range(count):
        if index < 2:
            steps = [[Fraction(2 * index - 1)] * p for _ in range(3)]
        elif index == 2:
            steps = [[Fraction(rng.choice([-1, 1])) for _ in range(p)] for _ in range(2)]
            steps[0][1] = steps[1][1] = Fraction(1)
            steps.append([Fraction(-1)] * p)
            steps[2][2] = Fraction(1)
        elif index % 2:
            steps = [[Fraction(rng.choice([-1, 1])) for _ in range(p)] for _ in range(3)]
        else:
            steps = [[Fraction(rng.randint(-1000, 1000), 1000) for _ in range(p)] for _ in range(3)]
        g = Fraction(int(params.g.p), int(params.g.q))
        moves = [[r] * p, [r] * p, [r, r] + [r + g] * (p - 2)]  # the w(j), j >= 2, within r_w = r + g
        points.append([[c + k * m for c, k, m in zip(block, ks, ms)] for block, ks, ms in zip(centre, steps, moves)])
    return points


def q_star(b):
    """q_*(b) = 2 (1 - b)/(1 + e^{2 acosh(e^b)}) of section 11.7, written out again (not the kernel's)."""
    return 2 * (1 - b) / (1 + mp.exp(2 * mp.acosh(mp.exp(b))))


def beta(p, rho):
    """beta(p, rho) = min(log(p/4), 2/((p - 1) rho)) (section 11.10)."""
    return min(mp.log(mp.mpf(p) / 4), 2 / ((p - 1) * rho))


def F_0(p):
    """(S.12): 2 (1 + cos(2 pi/p))/(p - 2)."""
    return 2 * (1 + mp.cos(2 * mp.pi / p)) / (p - 2)


def quantities(params, point) -> dict:
    """Proposition S3.4's quantities at one exact point, from their definitions (section 11.12, mpmath): (S.36)'s
    margins at the point's own values with Remark S3.6 (i)'s rho_+, the window, delta_- of (S.37) with C_+ of (S.15)
    at the point, and t_c."""
    p, h = params.p, mpf(params.h)
    u, v, w = ([mpf(x) for x in block] for block in point)
    mu = mp.fsum(w) / p

    def ell(z, y):  # (A.2)
        return mp.log(mp.fsum(mp.exp(z * (w[c] - w[y])) for c in range(p)))

    gates = [[u[a] + v[k] for k in range(p)] for a in range(p)]
    X0, r0, c0, e = gates[0][0], gates[0][1], gates[1][0], gates[1][1]
    others = [gates[a][k] for a in range(p) for k in range(p) if (a, k) not in ((0, 0), (0, 1), (1, 0), (1, 1))]
    D0 = w[0] - w[1]
    Lambda_4 = ell(X0, 0) + ell(r0, 1) + ell(c0, 1) + ell(e, 2) - mp.log(p)
    b0 = Lambda_4 - 3 * mp.log(2)
    gamma = [mu - w[j] for j in range(2, p)]
    m = min(X0, r0, c0, -max(others))
    N1, M0, z0 = w[1] - min(w[2:]), w[0] - min(w[2:]), max(r0, c0)
    S0, gamma_2, gamma_min, gamma_max = mp.fsum(gamma), gamma[0], min(gamma), max(gamma)
    # (S.36) as Proposition S3.4 states it, at this point's own values
    t_c, eps = p**2 * e / h, e**2 / h
    delta_c = mp.sqrt(2 * b0 * t_c) / p
    z_plus, M_plus, X_minus, S_minus, g_minus = z0 + delta_c, M0 + delta_c, X0 - delta_c, S0 - eps, gamma_min - eps
    Z_plus = max(X0, z0) + delta_c
    eta = (Z_plus * b0 + e) * e / h
    rho_plus = (gamma_max + min(delta_c, eta)) / g_minus
    s2_plus = (X0 + delta_c) ** 2 + (r0 + delta_c) ** 2 + (c0 + delta_c) ** 2 + e**2
    D_minus = D0 * mp.exp(-s2_plus * e / h) - eps
    kappa = mp.mpf(3) / 4 * q_star(b0) * X_minus**2
    margins = {"reach": m - delta_c, "gamma_floor": g_minus,
               "rate": 2 * (gamma_2 - eps) - b0 * (N1 + delta_c) - h, "difference_floor": D_minus,
               "cone": kappa - 2 * b0,
               "race": mp.log(S_minus) - z_plus * M_plus - (z_plus + M_plus) ** 2 * b0 / (2 * (kappa - 2 * b0))
               - mp.log(D0)}
    window = beta(p, rho_plus) - b0
    # (S.37)
    L_minus = S_minus**2 / 2 + (p - 2) * g_minus**2
    C_plus = max(0, p * mu**2 + mp.fsum(x**2 for x in u + v) - mp.fsum(x**2 for x in w))
    delta = (1 - (mp.sqrt(F_0(p)) + rho_plus - 1) ** 2) * L_minus / (2 * L_minus + C_plus)
    return {"gates": gates, "e": e, "D0": D0, "b0": b0, "gamma": gamma, "margins": margins, "window": window,
            "delta": delta, "t_c": t_c, "rho_plus": rho_plus}


def stored(document: dict) -> dict:
    """The certificate's ends as mpf (rationals exactly, decimals at 40 digits)."""
    claims = document["claims"]
    return {"pattern": {name: mpf(Fraction(c["lo"])) for name, c in claims["pattern_box"]["components"].items()},
            "capture": {name: mpf(Fraction(c["lo"])) for name, c in claims["capture_box"]["components"].items()},
            "b_hi": mpf(Fraction(claims["loss_excess_box"]["hi"])), "window": mpf(Fraction(claims["window_box"]["lo"])),
            "delta": mpf(Fraction(claims["purity_margin_box"]["lo"])),
            "t_c": mpf(Fraction(claims["capture_time_box"]["hi"]))}


def test_the_library_certificates_use_the_builders_defaults_and_radius():
    for p in (5, 7, 13, 31):
        document = library(p)
        assert params_of(document) == default_params(p)
        assert exact(document["radius"]) == certify_twin_above(p).radius


def test_the_base_point_is_the_one_of_section_11_12():
    for p in (5, 31):
        document = library(p)
        u, v, w = base_point(params_of(document))
        kernel_point = kernel.twin_above_base_point(params_of(document))
        for name, block in zip("uvw", (u, v, w)):
            levels = getattr(kernel_point, name)
            assert [Fraction(int(x.p), int(x.q)) for x in (levels.at_0, levels.at_1, levels.elsewhere)] \
                == [block[0], block[1], block[2]]
            assert [Fraction(document["base_point"][name][key]) for key in ("at_0", "at_1", "elsewhere")] \
                == [block[0], block[1], block[2]]
            assert all(x == block[2] for x in block[2:])


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_every_bound_holds_at_corners_and_random_points_of_the_box(p):
    document = library(p)
    params, radius = params_of(document), exact(document["radius"])
    ends = stored(document)
    pattern, capture = ends["pattern"], ends["capture"]
    assert set(capture) == set(CAPTURE)
    for index, point in enumerate(box_points(params, radius, 40, seed=p)):
        q = quantities(params, point)
        gates = q["gates"]
        assert min(gates[0][0], gates[0][1], gates[1][0]) >= pattern["active_gates"] - ROUNDING
        assert q["e"] >= pattern["gate_11"] - ROUNDING
        boundary = max(max(gates[0][2:]), max(gates[j][0] for j in range(2, p)))
        assert -boundary >= pattern["boundary_gates"] - ROUNDING
        other = max(gates[a][k] for a in range(1, p) for k in range(1, p) if (a, k) != (1, 1))
        assert -other >= pattern["other_gates"] - ROUNDING
        assert min(q["gamma"]) >= pattern["gamma_min"] - ROUNDING
        assert q["D0"] >= pattern["positive_difference"] - ROUNDING
        assert gates[0][0] - q["e"] >= pattern["gate_order"] - ROUNDING
        assert 0 < q["b0"] <= ends["b_hi"] + ROUNDING
        assert q["window"] >= ends["window"] - ROUNDING
        for name, margin in q["margins"].items():
            assert margin >= capture[name] - ROUNDING, (name, index)
        assert mp.sqrt(F_0(p)) + q["rho_plus"] < 2
        assert q["delta"] >= ends["delta"] - ROUNDING
        assert q["t_c"] <= ends["t_c"] + ROUNDING
        if index == 2:  # z11 = e + 2r and gamma_2 = g_-0 at this corner: g_- and t_c are exact, not just bounds
            assert q["margins"]["gamma_floor"] - capture["gamma_floor"] < ROUNDING
            assert ends["t_c"] - q["t_c"] < ROUNDING


def least_over_box(centre: list[Fraction], radii: list[Fraction], coefficients: dict[int, Fraction]) -> Fraction:
    """min over the box (coordinate i within radii[i] of centre[i]) of sum_i c_i x_i: its value at the corner
    x_i = centre_i - radii_i sign(c_i)."""
    return sum(c * (centre[i] - radii[i] * (1 if c > 0 else -1)) for i, c in coefficients.items() if c)


@pytest.mark.parametrize("p", [5, 13, 31])
def test_the_pattern_margins_are_the_least_gates_over_the_box_exactly(p):
    """Each pattern margin equals, as a rational, the least value over the box (each w(j), j >= 2, within r + g, every
    other coordinate within r) of its class of linear functions of theta (gates z_ak = u(a) + v(k), their negatives,
    gamma_j = mean(w) - w(j), D = w(0) - w(1), z00 - z11), each evaluated in fractions at the corner that minimises
    it."""
    document = library(p)
    params, r, g = params_of(document), Fraction(document["radius"]), Fraction(document["parameters"]["g"])
    assert g > 0  # the library's boxes let the w(j) move farther: the gamma class sees it
    centre = [x for block in base_point(params) for x in block]
    radii = [r] * (2 * p + 2) + [r + g] * (p - 2)
    U, V, W = 0, p, 2 * p

    def gate(a, k, sign=1):
        return {U + a: Fraction(sign), V + k: Fraction(sign)}

    def gamma(j):
        return {W + c: Fraction(1, p) - (1 if c == j else 0) for c in range(p)}

    classes = {
        "active_gates": [gate(0, 0), gate(0, 1), gate(1, 0)],
        "gate_11": [gate(1, 1)],
        "boundary_gates": [gate(0, j, -1) for j in range(2, p)] + [gate(j, 0, -1) for j in range(2, p)],
        "other_gates": [gate(a, k, -1) for a in range(1, p) for k in range(1, p) if (a, k) != (1, 1)],
        "gamma_min": [gamma(j) for j in range(2, p)],
        "positive_difference": [{W: Fraction(1), W + 1: Fraction(-1)}],
        "gate_order": [{U: Fraction(1), V: Fraction(1), U + 1: Fraction(-1), V + 1: Fraction(-1)}],
    }
    with working_precision(128):
        margins = kernel.twin_above_box_bounds(params, exact(document["radius"]), 128)["pattern"]
    components = document["claims"]["pattern_box"]["components"]
    assert set(margins) == set(classes) == set(components)
    for name, functions in classes.items():
        least = min(least_over_box(centre, radii, f) for f in functions)
        assert least > 0, name
        assert Fraction(int(margins[name].p), int(margins[name].q)) == least, name
        assert Fraction(components[name]["lo"]) == least, name


def section_11_13_bounds(params, radius) -> dict:
    """Section 11.13's closed forms of every box bound (Remarks S3.5 and S3.6 at the box's bounds), transcribed
    from the doc into mpmath (not the kernel's code): b_+ of Remark S3.6 (ii), the window with Remark S3.6 (i)'s
    rho_+, the six margins of (S.36), t_c and delta_- of (S.37) with section 9.2's bound of C_+."""
    p, r = params.p, mpf(radius)
    X, e, t, d, E, h = (mpf(getattr(params, name)) for name in ("X", "e", "t", "d", "E", "h"))
    s, mu0 = (X + e) / 2, (2 * E + d) / p
    rw = r + mpf(params.g)  # each w(j), j >= 2, moves within r_w = r + g (section 11.13)

    def log_sum(z, terms):
        return mp.log(mp.fsum(count * mp.exp(z * exponent) for exponent, count in terms))

    corners = []
    for a in (-r, r):
        for b in (-r, r):
            D = d + a - b
            ell_0 = log_sum(X - 2 * r, ((0, 1), (-D, 1), (-(E + d - rw + a), p - 2)))
            ell_1 = max(log_sum(z, ((0, 1), (D, 1), (-(E - rw + b), p - 2))) for z in (s - 2 * r, s + 2 * r))
            ell_2 = log_sum(e + 2 * r, ((E + d + a + rw, 1), (E + b + rw, 1), (0, 1), (2 * rw, p - 3)))
            corners.append(ell_0 + 2 * ell_1 + ell_2 - mp.log(p) - 3 * mp.log(2))
    b = max(corners)
    e_plus = e + 2 * r
    eps = e_plus**2 / h
    delta_c = mp.sqrt(2 * b * e_plus / h)
    spread = (2 * r + 2 * (p - 2) * rw) / p
    g0_minus, g0_plus = mu0 - spread, mu0 + spread
    g_minus, S_minus = g0_minus - eps, (p - 2) * (mu0 - 2 * (r + rw) / p) - eps
    eta = ((X + 2 * r + delta_c) * b + e_plus) * e_plus / h
    rho_plus = (g0_plus + min(delta_c, eta)) / g_minus
    s2_plus = (X + 2 * r + delta_c) ** 2 + 2 * (s + 2 * r + delta_c) ** 2 + e_plus**2
    z, M = s + 2 * r + delta_c, E + d + r + rw + delta_c
    cone = mp.mpf(3) / 4 * q_star(b) * (X - 2 * r - delta_c) ** 2 - 2 * b
    u, _, w = ([mpf(x) for x in block] for block in base_point(params))
    moves = [r, r] + [rw] * (p - 2)  # |mu| <= the mean move, the base w having mean 0
    C_plus = max(0, p * (mp.fsum(moves) / p) ** 2 + 2 * mp.fsum((abs(x) + r) ** 2 for x in u)
                 - mp.fsum(max(abs(x) - m, 0) ** 2 for x, m in zip(w, moves)))
    L_minus = S_minus**2 / 2 + (p - 2) * g_minus**2
    return {"delta_c": delta_c, "eta": eta, "b": b, "window": beta(p, rho_plus) - b,
            "reach": min(s, t) - 2 * r - delta_c, "gamma_floor": g_minus,
            "rate": 2 * (g0_minus - eps) - b * (E + r + rw + delta_c) - h,
            "difference_floor": (d - 2 * r) * mp.exp(-s2_plus * e_plus / h) - eps, "cone": cone,
            "race": mp.log(S_minus) - z * M - (z + M) ** 2 * b / (2 * cone) - mp.log(d + 2 * r),
            "delta": (1 - (mp.sqrt(F_0(p)) + rho_plus - 1) ** 2) * L_minus / (2 * L_minus + C_plus),
            "time": p**2 * e_plus / h}


def kernel_balls(params, radius) -> tuple[dict, fmpq]:
    """The kernel's balls by the closed forms' names, and its exact capture time (128 bits)."""
    with working_precision(128):
        bounds = kernel.twin_above_box_bounds(params, radius, 128)
    balls = {"b": bounds["loss_excess"], "window": bounds["window"], "delta": bounds["delta"], **bounds["capture_box"]}
    return balls, bounds["capture_time"]


#: The kernel's balls and the closed forms agree to 10^-25 (1 + |x|): both are 40-digit (128-bit) evaluations of the
#: same formula, each within 10^-35 of it times the margins' Lipschitz constants in b_+ and rho_+ (below 10^3, the
#: race's division by the cone, at least 10^-1 here, included), so any dropped or changed term larger than 10^-25
#: shows.
AGREEMENT = mp.mpf("1e-25")


@pytest.mark.parametrize("p", [5, 11, 13, 29, 31])
def test_each_bound_is_the_closed_form_of_section_11_13(p):
    document = library(p)
    params, radius = params_of(document), exact(document["radius"])
    oracle = section_11_13_bounds(params, radius)
    balls, capture_time = kernel_balls(params, radius)
    assert set(balls) == set(oracle) - {"time", "delta_c", "eta"}
    assert oracle["eta"] < oracle["delta_c"]  # Remark S3.6 (i)'s min takes eta at the library's boxes
    for name, ball in balls.items():
        assert abs(mid(ball) - oracle[name]) < AGREEMENT * (1 + abs(oracle[name])), name
    assert abs(mpf(capture_time) - oracle["time"]) < ROUNDING
    # and the certificate's ends are the kernel's (lower ends below the closed forms, b_+ above)
    ends = stored(document)
    assert oracle["b"] <= ends["b_hi"] + ROUNDING
    assert ends["window"] <= oracle["window"] + ROUNDING and ends["delta"] <= oracle["delta"] + ROUNDING
    for name in CAPTURE:
        assert ends["capture"][name] <= oracle[name] + ROUNDING, name
        assert oracle[name] - ends["capture"][name] < AGREEMENT * (1 + abs(oracle[name])), name


def test_where_delta_c_is_below_eta_the_window_takes_delta_c():
    """Remark S3.6 (i)'s min(delta_c, eta) on its other branch: at p = 13 with X = 4 and h = 1/320 (outside
    U_II^above: D_- < 0 there, so no certificate; the kernel's capture_bounds still evaluates every margin),
    delta_c < eta, and the kernel's window (2/((p - 1) rho_+) is the smaller term of beta at p = 13) and six margins
    are the closed forms at delta_c."""
    from dataclasses import replace

    document = library(13)
    params = replace(params_of(document), X=fmpq(4), h=fmpq(1, 320))
    radius = exact(document["radius"])
    oracle = section_11_13_bounds(params, radius)
    assert oracle["delta_c"] < oracle["eta"] and oracle["difference_floor"] < 0 < oracle["window"]
    with working_precision(128):
        bounds = kernel.capture_bounds(params, radius)
    found = {"window": bounds["window"], **bounds["margins"]}
    assert set(found) == {"window", *CAPTURE}
    for name, ball in found.items():
        assert abs(mid(ball) - oracle[name]) < AGREEMENT * (1 + abs(oracle[name])), name


def regime2_above():
    """examples/staircase/regime2_above.py as a module (it puts its own folder on sys.path for regime2_positive;
    sys.path is restored once it is loaded)."""
    path = ROOT / "examples" / "staircase" / "regime2_above.py"
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("regime2_above_for_tests", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


@pytest.mark.parametrize("p", [5, 13, 31])
def test_the_kernel_agrees_with_the_scripts_remark_margins(p):
    """The float transcription of Remarks S3.5-S3.6 (remark_margins of examples/staircase/regime2_above.py, tight=True,
    40 digits) and the kernel's balls agree to AGREEMENT: a term dropped by one of the two shows. The script knows
    the sup-norm box only, so both read the library's parameters with g = 0 (the kernel's box is then that box)."""
    from dataclasses import replace

    document = library(p)
    params, radius = replace(params_of(document), g=fmpq(0)), exact(document["radius"])
    script = regime2_above().remark_margins(p, *(mpf(getattr(params, name)) for name in ("X", "e", "t", "d", "E", "h")),
                                            mpf(radius), tight=True)
    names = {"reach": "delta_c < m", "gamma_floor": "g_- > 0", "rate": "rate", "difference_floor": "D_- > 0",
             "cone": "kappa_- > 2 b0", "race": "race (log)", "window": "window"}
    found = {name: script["margins"][key] for name, key in names.items()}
    found.update(b=script["b_plus"], delta=script["delta_minus"])
    balls, capture_time = kernel_balls(params, radius)
    assert set(found) == set(balls)
    for name, ball in balls.items():
        assert abs(mid(ball) - found[name]) < AGREEMENT * (1 + abs(found[name])), name
    assert abs(mpf(capture_time) - script["t_c"]) < ROUNDING


def test_the_words_of_loss_excess_box_are_the_closed_form_the_claims_use():
    """b_+ read from the statement's own words (its formula turned into Python, apart from the kernel and the
    doc's transcription) equals section 11.13's closed form, and the window and capture ends hold at it."""
    document = library(7)
    params, radius = params_of(document), exact(document["radius"])
    statement = document["claims"]["loss_excess_box"]["statement"]
    found = re.search(r"b_\+ = max over a, b in \{-r, r\} of (.*?) with D = (.*?), ell_0\+\(z\) = (.*?), "
                      r"ell_1\+\(z\) = (.*?) and ell_2\+\(z\) = (.*?), s = \(X \+ e\)/2, the upper", statement)
    assert found, statement

    def python(text: str) -> str:
        text = text.replace("ell_0+(", "L0(").replace("ell_1+(", "L1(").replace("ell_2+(", "L2(")
        text = text.replace("log p", "log(p)").replace("log 2", "log(2)")
        text = re.sub(r"e\^\{([^}]*)\}", r"exp(\1)", text)
        text = re.sub(r"(\d)([A-Za-z])", r"\1*\2", text)
        return re.sub(r"([A-Za-z0-9)]) (?=[A-Za-z(])", r"\1*", text)

    names = {name: mpf(getattr(params, name)) for name in ("X", "e", "d", "E")}
    names.update(s=(names["X"] + names["e"]) / 2, r=mpf(radius), p=7, exp=mp.exp, log=mp.log, max=max,
                 r_w=mpf(radius) + mpf(params.g))
    for index, name in ((3, "L0"), (4, "L1"), (5, "L2")):
        names[name] = eval("lambda z: " + python(found.group(index)), names)
    values = []
    for a in (-names["r"], names["r"]):
        for b in (-names["r"], names["r"]):
            names.update(a=a, b=b)
            names["D"] = eval(python(found.group(2)), names)
            values.append(eval(python(found.group(1)), names))
    oracle = section_11_13_bounds(params, radius)
    assert abs(max(values) - oracle["b"]) < ROUNDING
    claims = document["claims"]
    assert mp.mpf(claims["window_box"]["lo"]) <= oracle["window"] + ROUNDING
    for name, component in claims["capture_box"]["components"].items():
        assert mp.mpf(component["lo"]) <= oracle[name] + ROUNDING, name


#: The float flow's slack beside the certified bounds: LSODA/Radau at rtol 1e-10, atol 1e-12 (certify.law.flow) make a
#: local error of at most 1e-10 * 6 + 1e-12 per coordinate and step (every coordinate is below 6 in size here); a gate
#: or D is two coordinates, and there are at most MAX_EVALUATIONS steps (asserted: each step costs at least one
#: evaluation), so even summed without any decay the error is below 2 * 2000 * 6.01e-10 < 2.5e-6. The bounds it is
#: compared with hold with room 5e-5 (z11 against e0 - h t/p^2), 3e-3 (D against D_-) and 0.15 (max F) in these runs.
FLOAT_SLACK = 2.5e-6
MAX_EVALUATIONS = 2000


def captured_from_above(document: dict, theta0, horizon: float, delta: float | None = None) -> int:
    """The float flow of certify.law.flow from theta0 to ``horizon`` against ``document``'s claims: z00, z01, z10 > 0
    and every gate but the four < 0 (the boundary gates <= 0 once captured), z11 at most max(e0 - h t/p^2, 0) and
    never below its kink, D in [-tolerance, D0], z11 on its kink at every checkpoint from t_c on, D >= D_- while
    z11 is above its kink before t_c, and (``delta`` given) max_zeta F_zeta <= 1 - delta. Returns how many
    checkpoints saw z11 above its kink before t_c."""
    import numpy as np

    from certify.law.flow import KINK_TOLERANCE, simulate_flow
    from certify.numeric.fourier import fourier_fractions

    p, claims = int(document["p"]), document["claims"]
    t_c = float(Fraction(claims["capture_time_box"]["hi"]))
    D_minus = float(Fraction(claims["capture_box"]["components"]["difference_floor"]["lo"]))
    h = float(Fraction(document["parameters"]["h"]))
    run = simulate_flow(theta0, p, horizon)
    assert run.failure is None, run.failure
    assert run.extra["evaluations"] <= MAX_EVALUATIONS
    assert any(time >= t_c for time in run.times), "the simulator reported no checkpoint after t_c"
    e0, D0 = theta0[1] + theta0[p + 1], theta0[2 * p] - theta0[2 * p + 1]
    before = 0
    for time, state in zip(run.times, run.states):
        u, v, w = state[:p], state[p:2 * p], state[2 * p:]
        assert np.abs(state).max() < 6
        z = np.add.outer(u, v)
        boundary = np.concatenate([z[0, 2:], z[2:, 0]])
        other = np.concatenate([z[1, 2:], z[2:, 1], z[2:, 2:].ravel()])
        D = w[0] - w[1]
        assert min(z[0, 0], z[0, 1], z[1, 0]) > 0 and other.max() < 0 and boundary.max() <= KINK_TOLERANCE
        assert -KINK_TOLERANCE <= z[1, 1] <= max(e0 - h * time / p**2, 0) + FLOAT_SLACK, time
        assert -KINK_TOLERANCE <= D <= D0 + FLOAT_SLACK, time
        if time >= t_c:
            assert abs(z[1, 1]) <= KINK_TOLERANCE, time
        elif time > 0 and z[1, 1] > KINK_TOLERANCE:
            before += 1
            assert D >= D_minus - FLOAT_SLACK, time
        if delta is not None:
            assert fourier_fractions(u, v, w).max() <= 1 - delta + FLOAT_SLACK, time
    return before


@pytest.mark.parametrize("p, horizon", [(5, 1e4), (31, 1e2)])
def test_the_float_flow_from_the_box_is_captured_from_above_by_the_certified_time(p, horizon):
    """Proposition S3.4 by an independent route: the full-network flow of certify.law.flow (floats) from the base
    point and two corners (certify.numeric.staircase.staircase_points) keeps z00, z01, z10 > 0 and every gate but the
    four < 0 (the boundary gates <= 0 once captured), has z11 at most max(e0 - h t/p^2, 0) (the rate of (g)) and
    never below its kink, D >= D_- while z11 is above its kink, z11 on its kink (within the simulator's tolerance)
    at every checkpoint from the first one at or after the certified t_c, there D >= -tolerance (Theorem S3) and
    D <= D0 throughout (D nonincreasing), and max_zeta F_zeta <= 1 - delta_- (S.37). At p = 31 checkpoints before
    the capture exist (t_c = 19.8), so the rate and D_- are seen in the flow; at p = 5 the first checkpoint, t = 1,
    is after t_c = 0.669."""
    from certify.numeric.staircase import staircase_points

    document = library(p)
    delta = float(Fraction(document["claims"]["purity_margin_box"]["lo"]))
    before = sum(captured_from_above(document, theta0, horizon, delta) for theta0 in staircase_points(document))
    assert before > 0 if p == 31 else before == 0


DEFAULTS = dict(p=5, X=fmpq(5, 2), e=fmpq(9, 500), t=fmpq(125, 1000), d=fmpq(99, 6250), E=fmpq(241, 100),
                h=fmpq(136, 100), sigma=fmpq(1), g=fmpq(27, 2500))


@pytest.mark.parametrize("p", [5, 13, 31, 101])
def test_the_default_t_is_three_halves_of_e_plus_the_base_points_movement_bound(p):
    """default_t = 1.5 (e + sqrt(2 b0 e/h)) rounded down to 3 digits (docs/staircase.md 11.13), with b0 the base
    point's loss excess (w(j), j >= 2, up to g from the base, the box of radius 0) computed here from its closed
    form of section 11.13 (mpmath at 40 digits; b0 reads no t): the
    kernel's ball is at most 2^-60 wide, far below the distance of each value from a 3-digit step (asserted)."""
    e, d, E = default_e(p), default_d(p), default_E(p)
    g = default_g(p, DEFAULT_X, e, d, E, DEFAULT_SIGMA)
    h = default_h(p, DEFAULT_X, e, d, E, g)
    params = kernel.TwinAboveParameters(p, DEFAULT_X, e, fmpq(1, 2), d, E, h, DEFAULT_SIGMA, g)
    b0 = section_11_13_bounds(params, fmpq(0))["b"]
    value = mp.mpf(3) / 2 * (mpf(e) + mp.sqrt(2 * b0 * mpf(e) / mpf(h)))
    scale = mp.mpf(10) ** (2 - int(mp.floor(mp.log10(value))))
    assert min(value * scale - mp.floor(value * scale), mp.ceil(value * scale) - value * scale) > mp.mpf("1e-12")
    expected = fmpq(int(mp.floor(value * scale)), 1) / fmpq(int(mp.nint(scale)), 1)
    assert default_t(p, DEFAULT_X, e, d, E, h, g) == expected


def test_the_defaults_at_5_are_the_ones_written_here():
    made = certify_twin_above(5)
    assert {name: getattr(made.params, name) for name in DEFAULTS} == DEFAULTS


def test_the_certificate_is_deterministic_and_is_the_library_file():
    """certify_twin_above(5) twice (the second time with mpmath and python-flint at other global precisions, which
    the kernel must not read) gives the same bytes, and they are the committed library file's (its software
    versions set to this machine's, the one field another patch release may change)."""
    first = dumps(certify_twin_above(5).certificate)
    with mp.workdps(60):
        ctx.prec = 300
        try:
            second = dumps(certify_twin_above(5).certificate)
        finally:
            ctx.prec = 53
    assert first == second
    committed = json.loads((LIBRARY / "twin_above-5.json").read_text())
    assert first == dumps(dict(committed, software=software_versions()))


@pytest.mark.parametrize("change, words", [
    ({"p": 3}, "p >= 5 fails"),
    ({"X": fmpq(-1)}, "X > 0 fails"),
    ({"h": fmpq(0)}, "h > 0 fails"),
    ({"h": fmpq(-1)}, "h > 0 fails"),
    ({"e": fmpq(5, 2)}, "e < X fails"),     # e = X
    ({"e": fmpq(3)}, "e < X fails"),        # e > X
    ({"d": fmpq(1, 10)}, "not in U_II^above"),   # D0 beyond the race
    ({"h": fmpq(19, 10)}, "not in U_II^above"),  # a rate the gate's own example cannot give
    ({"t": fmpq(1, 100)}, "not in U_II^above"),  # the boundary gates within delta_c of their kink
    ({"h": fmpq(1, 10000)}, "g_- = g_-0 - e_+^2/h"),       # eps = e^2/h above gamma_min
    ({"E": fmpq(1, 2)}, "q_* needs 0 < b < 1"),  # the loss excess beyond 1
    ({"sigma": fmpq(0)}, "sigma"),
])
def test_broken_hypotheses_are_named(change, words):
    values = dict(DEFAULTS, **change)
    with pytest.raises(HypothesisError, match=re.escape(words)):
        kernel.require_twin_above_hypotheses(kernel.TwinAboveParameters(**values))


def base_point_oracle(values: dict) -> dict:
    params = kernel.TwinAboveParameters(**values)
    return quantities(params, base_point(params))


@pytest.mark.parametrize("change, margin", [({"d": fmpq(1, 10)}, "race"), ({"h": fmpq(19, 10)}, "rate"),
                                            ({"t": fmpq(1, 100)}, "reach"), ({"e": fmpq(1, 10)}, "window")])
def test_the_message_names_the_margin_that_fails(change, margin):
    """The kernel's message lists the margin, and the oracle at the base point finds it negative (and every margin
    positive at the defaults)."""
    values = dict(DEFAULTS, **change)
    q = base_point_oracle(values)
    assert dict(q["margins"], window=q["window"])[margin] < 0
    defaults = base_point_oracle(DEFAULTS)
    assert min(min(defaults["margins"].values()), defaults["window"], defaults["delta"]) > 0
    with pytest.raises(HypothesisError) as raised:
        kernel.require_twin_above_hypotheses(kernel.TwinAboveParameters(**values))
    failing = str(raised.value).split("not positive (", 1)[1]
    assert re.match(rf"(\w+ \[[^]]*\]; )*{margin} \[", failing), failing


def test_the_defaults_fail_from_179_on_with_the_race_and_certify_at_173():
    """docs/staircase.md 11.13: the defaults certify at every prime from 5 to 173; at p = 179 the base point fails the
    race of (S.36), which the oracle confirms (the race negative there, every other margin positive)."""
    q = quantities(default_params(179), base_point(default_params(179)))
    assert q["margins"]["race"] < 0
    assert min(value for name, value in q["margins"].items() if name != "race") > 0 and q["window"] > 0
    with pytest.raises(HypothesisError, match=r"the base point is not in U_II\^above .*\(race \[[^]]*\]; docs"):
        certify_twin_above(179)
    made = certify_twin_above(173)
    assert made.radius > 0 and made.params == default_params(173)


def test_a_box_too_large_is_not_certified_and_names_the_failing_condition():
    document = library(5)
    params, radius = params_of(document), exact(document["radius"])
    with pytest.raises(NotCertified, match=r"gate \(1, 1\) > 0 fails"):
        kernel.twin_above_box_bounds(params, radius * 10, 64)
    with pytest.raises(NotCertified, match="radius must be positive"):
        kernel.twin_above_box_bounds(params, fmpq(0), 64)
    # at r = d/2 (d < e here) the pattern's D > 0 is the first to fail, by exactly 0
    with pytest.raises(NotCertified, match=r"D = w\(0\) - w\(1\) > 0 fails by 0 "):
        kernel.twin_above_box_bounds(params, params.d / 2, 64)
    # just inside the pattern (2r below d) a capture margin fails: D_- (the oracle's closed form agrees)
    inside = params.d / 2 * fmpq(99, 100)
    assert section_11_13_bounds(params, inside)["difference_floor"] < 0
    with pytest.raises(NotCertified, match="capture_box on the box: difference_floor"):
        kernel.twin_above_box_bounds(params, inside, 64)


def test_the_radius_is_within_two_percent_of_the_largest_certified():
    """The certified radius r is the search's 0.99 of the largest, rounded down: at 1.01 r every closed form is
    positive and the kernel certifies; at 1.02 r the race fails, in the oracle's closed form and in the kernel."""
    document = library(5)
    params, radius = params_of(document), exact(document["radius"])
    names = ("window", "delta", *CAPTURE)
    assert min(section_11_13_bounds(params, radius * fmpq(101, 100))[name] for name in names) > 0
    kernel.twin_above_box_bounds(params, radius * fmpq(101, 100), 128)
    above = section_11_13_bounds(params, radius * fmpq(102, 100))
    assert above["race"] < 0 < min(above[name] for name in names if name != "race")
    with pytest.raises(NotCertified, match="capture_box on the box: race is not proved positive"):
        kernel.twin_above_box_bounds(params, radius * fmpq(102, 100), 128)


def test_the_region_bound_counts_p2_p_minus_1_copies_of_the_widened_box():
    """region - box (log10) is log10(p^2 (p - 1)) plus what the 2(p - 2) tails gain from [c - r, c + r] to
    [c - r - 4 sigma, c + r] (docs/staircase.md section 11.14) and the p - 2 w(j) from [m - r, m + r] to
    [m - r - g, m + r + g] (the box's w(j) move within r + g, while gaussian_probability measures the sup-norm box),
    the masses by mpmath's ncdf (an independent route), plus log10 of the translates' factor pi sigma^2/(2 sqrt(2) p
    r^2) of (S.40) (section 11.15)."""
    document = library(7)
    radius, level = Fraction(document["radius"]), Fraction(document["base_point"]["u"]["elsewhere"])
    g, m = Fraction(document["parameters"]["g"]), Fraction(document["base_point"]["w"]["elsewhere"])
    p, r, c = 7, mpf(radius), mpf(level)
    assert document["base_point"]["v"]["elsewhere"] == document["base_point"]["u"]["elsewhere"]
    tails = 2 * (p - 2) * (mp.log10(mp.ncdf(c + r) - mp.ncdf(c - r - 4)) - mp.log10(mp.ncdf(c + r) - mp.ncdf(c - r)))
    mw, gw = mpf(m), mpf(g)
    spread = (p - 2) * (mp.log10(mp.ncdf(mw + r + gw) - mp.ncdf(mw - r - gw)) - mp.log10(mp.ncdf(mw + r) - mp.ncdf(mw - r)))
    claims = document["claims"]
    gap = mp.mpf(claims["region_probability"]["log10_lo"]) - mp.mpf(claims["gaussian_probability"]["log10_lo"])
    # the translates along the two invariant lines (docs/staircase.md 11.15, (S.40)): pi/(2 sqrt 2 p r^2), sigma = 1
    translates = mp.log10(mp.pi / (2 * mp.sqrt(2) * p * r**2))
    assert tails > 1 and spread > 1 and translates > 3
    assert abs(gap - mp.log10(7 * 7 * 6) - tails - spread - translates) < mp.mpf("1e-20")


def test_the_box_mass_is_the_product_of_the_coordinates_normal_masses():
    """gaussian_probability against mpmath's ncdf over the 3p coordinates (an independent route to the mass)."""
    document = library(5)
    r = mpf(Fraction(document["radius"]))
    log10_mass = mp.fsum(mp.log10(mp.ncdf(mpf(x) + r) - mp.ncdf(mpf(x) - r))
                         for block in base_point(params_of(document)) for x in block)
    stated = mp.mpf(document["claims"]["gaussian_probability"]["log10_lo"])
    assert stated <= log10_mass < stated + mp.mpf("1e-10")


def _made_false(document: dict, claim: str, component, key: str, factor) -> dict:
    """A copy of ``document`` with one stored end moved past what the kernel proves by ``factor``."""
    changed = copy.deepcopy(document)
    node = changed["claims"][claim]
    node = node["components"][component] if component else node
    node[key] = canonical_text(Fraction(node[key]) * factor)
    return changed


@pytest.mark.parametrize("claim, component, key, factor", [
    ("pattern_box", "gate_11", "lo", Fraction(11, 10)),
    ("pattern_box", "gate_order", "lo", Fraction(11, 10)),
    ("pattern_box", "positive_difference", "lo", Fraction(11, 10)),
    ("loss_excess_box", None, "hi", Fraction(9, 10)),
    ("window_box", None, "lo", Fraction(11, 10)),
    ("capture_box", "reach", "lo", Fraction(11, 10)),
    ("capture_box", "gamma_floor", "lo", Fraction(11, 10)),
    ("capture_box", "rate", "lo", Fraction(11, 10)),
    ("capture_box", "difference_floor", "lo", Fraction(11, 10)),
    ("capture_box", "cone", "lo", Fraction(11, 10)),
    ("capture_box", "race", "lo", Fraction(11, 10)),
    ("capture_time_box", None, "hi", Fraction(9, 10)),
    ("purity_margin_box", None, "lo", Fraction(11, 10)),
])
def test_the_checker_rejects_each_claim_once_it_is_made_false(claim, component, key, factor):
    """Each claim of a twin_above certificate, its end moved 10% past the kernel's bound (beyond every end the
    kernel could prove: the closed forms are within 10^-25 of the ends, test above), is rejected, and the message
    names the claim."""
    from certify.check import check_bytes

    document = library(5)
    assert check_bytes(dumps(document).encode()).status == "verified"
    verdict = check_bytes(dumps(_made_false(document, claim, component, key, factor)).encode())
    assert verdict.status == "rejected", verdict.line()
    assert claim in verdict.message


@pytest.mark.parametrize("h", ["1.36", "1.35", "1.37", "0.5", "2"])
def test_the_checker_judges_a_changed_parameter_by_its_own_numbers(h):
    """The checker recomputes from the stated h: a certificate whose h is changed stays verified exactly when
    section 11.13's closed forms at the new h (this file's transcription, mpmath at 40 digits) keep every stored end
    true and every margin positive, and is rejected otherwise (at these h the verdicts are decided by more than
    10^-4, far beyond the oracle's 10^-30). Every change moves some end the wrong way (a larger h lowers the rate, a
    smaller one the reach and D_-), so only the unchanged h is verified."""
    from dataclasses import replace

    from certify.check import check_bytes

    document = library(5)
    params = replace(params_of(document), h=exact(h))
    oracle = section_11_13_bounds(params, exact(document["radius"]))
    ends = stored(document)
    margins = ("window", "delta", *CAPTURE)
    true = (all(oracle[name] > 0 for name in margins)
            and all(ends["capture"][name] <= oracle[name] for name in CAPTURE)
            and ends["window"] <= oracle["window"] and ends["delta"] <= oracle["delta"]
            and oracle["time"] <= ends["t_c"] and oracle["b"] <= ends["b_hi"])
    found = check_bytes(dumps(dict(document, parameters=dict(document["parameters"], h=h))).encode())
    assert found.status == ("verified" if true else "rejected"), found.line()
    assert true == (h == document["parameters"]["h"] == "1.36")


@pytest.mark.parametrize("p", [5, 13])
def test_the_default_g_beats_the_sup_norm_box_and_is_a_candidate(p):
    """The builder's g (docs/staircase.md 11.13) is k r_0 for a k of its list or 3/4 or 3/2 of one, and its
    certificate's region bound is at least the one with g = 0 (the sup-norm box, every other default the same rule):
    two certificates, compared by their own stated bounds (both checked by the kernel)."""
    from certify.theorems.twin_above import G_CANDIDATES, G_REFINE, default_scale

    made, plain = certify_twin_above(p), certify_twin_above(p, g=fmpq(0))
    g = made.params.g
    assert any(g == k * f * default_scale(p) for k in G_CANDIDATES for f in (1, *G_REFINE))
    region = lambda m: mp.mpf(m.certificate["claims"]["region_probability"]["log10_lo"])  # noqa: E731
    assert region(made) >= region(plain)
    assert plain.params.g == 0 and plain.certificate["parameters"]["g"] == "0"


def test_a_given_h_or_t_keeps_the_sup_norm_box_unless_g_is_given():
    """g is searched with the default h and t only: with --h (or --t) given the box is the sup-norm one (g = 0),
    and an explicit g is used as given."""
    assert certify_twin_above(13, h=fmpq(743, 1000)).params.g == 0
    assert certify_twin_above(13, t=fmpq(1, 10)).params.g == 0
    assert certify_twin_above(13, h=fmpq(6, 10), g=fmpq(1, 100)).params.g == fmpq(1, 100)


def test_a_negative_g_is_a_named_hypothesis_failure():
    with pytest.raises(HypothesisError, match="g >= 0 fails"):
        kernel.require_twin_above_hypotheses(kernel.TwinAboveParameters(**dict(DEFAULTS, g=fmpq(-1, 100))))
