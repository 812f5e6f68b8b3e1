"""certify.kernel.twin_plus (docs/staircase.md, section 11.11): every bound of the box of U_II^+ against an
independent oracle.

The oracle draws exact points of the box (its corners and random points) and evaluates there, from the
definitions of section 11.10 with mpmath at 40 digits, the quantities of Proposition S3.2 as stated (at the
point's own e = -z11, D0, b0 from the log-sum-exp (A.2) over all p labels, z0 = max(r, c), M0 = W0 - w_min,
m, X0, S0 = sum gamma_j and rho0): the margins of (S.34) and of the window, delta of (S.15) and the capture time
p^2 e/h. Remark S3.3 says the kernel's lower ends are below them at every point. Errors of the oracle: every
value is O(10^2) at most and computed at 40 digits, so its rounding is below 10^-35, inside the 10^-30 allowed.
"""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel.exact import canonical_text
from certify.kernel import twin_plus as kernel
from certify.kernel.balls import working_precision
from certify.theorems.twin_plus import certify_twin_plus

#: What the oracle's rounding may cost (the module docstring's estimate: below 10^-35).
ROUNDING = mp.mpf("1e-30")


@pytest.fixture(autouse=True)
def forty_digits():
    with mp.workdps(40):
        yield


def mpf(x: fmpq):
    return mp.mpf(int(x.p)) / int(x.q)


def lower(ball) -> mp.mpf:
    return mp.mpf(ball.lower().str(40, radius=False))


def upper(ball) -> mp.mpf:
    return mp.mpf(ball.upper().str(40, radius=False))


def box_points(params, radius, count: int, seed: int):
    """Exact points (u, v, w) of the box: the all-minus and all-plus corners, then random corners and interior
    points (multiples of radius/1000), as lists of fmpq."""
    base = kernel.twin_plus_base_point(params)
    p = params.p
    centre = [[block.at_0, block.at_1] + [block.elsewhere] * (p - 2) for block in (base.u, base.v, base.w)]
    rng = np.random.default_rng(seed)
    points = []
    for index in range(count):
        if index < 2:
            steps = [[fmpq((-1) ** (index + 1))] * p for _ in range(3)]
        elif index % 2:
            steps = [[fmpq(int(k)) for k in rng.choice([-1, 1], size=p)] for _ in range(3)]
        else:
            steps = [[fmpq(int(k), 1000) for k in rng.integers(-1000, 1001, size=p)] for _ in range(3)]
        points.append([[c + step * radius for c, step in zip(block, steps_of)] for block, steps_of in zip(centre, steps)])
    return points


def q_star(b):
    """q_*(b) of section 11.7, written out again (not the kernel's function)."""
    return 2 * (1 - b) / (1 + mp.exp(2 * mp.acosh(mp.exp(b))))


def quantities(params, point):
    """Proposition S3.2's quantities at one exact point, from their definitions (section 11.10, mpmath)."""
    p, h = params.p, mpf(params.h)
    u, v, w = ([mpf(x) for x in block] for block in point)
    mu = mp.fsum(w) / p

    def ell(z, y):
        return mp.log(mp.fsum(mp.exp(z * (w[c] - w[y])) for c in range(p)))

    gates = [[u[a] + v[k] for k in range(p)] for a in range(p)]
    X, r, c = gates[0][0], gates[0][1], gates[1][0]
    others = [gates[a][k] for a in range(p) for k in range(p) if (a, k) not in ((0, 0), (0, 1), (1, 0), (1, 1))]
    e, D0 = -gates[1][1], w[0] - w[1]
    b0 = ell(X, 0) + ell(r, 1) + ell(c, 1) - 3 * mp.log(2)
    gamma = [mu - w[j] for j in range(2, p)]
    rho, S0 = max(gamma) / min(gamma), mp.fsum(gamma)
    z0, M0, m = max(r, c), w[0] - min(w[2:]), min(X, r, c, -max(others))
    # (S.34) as Proposition S3.2 states it, at this point's own values
    t_c, D_plus = p**2 * e / h, D0 + e**2 / h
    B = b0 + D_plus * e / 2
    delta_c = mp.sqrt(2 * B * t_c) / p
    z_plus, M_plus, X_minus, b_plus = z0 + delta_c, M0 + delta_c, X - delta_c, max(b0, 0)
    kappa = mp.mpf(3) / 4 * q_star(b_plus) * X_minus**2
    margins = {"reach": m - delta_c, "rate": 2 * (S0 * mp.exp(-z_plus * M_plus) - D_plus) / p - h,
               "cone": kappa - 2 * b_plus,
               "race": mp.log(S0) - z_plus * M_plus - (z_plus + M_plus) ** 2 * b_plus / (2 * (kappa - 2 * b_plus))
               - mp.log(D_plus)}
    window = min(mp.log(mp.mpf(p) / 4), 2 / ((p - 1) * rho)) - b0
    return {"gates": gates, "others": others, "e": e, "D0": D0, "b0": b0, "gamma": gamma, "rho": rho, "S0": S0,
            "margins": margins, "window": window, "t_c": t_c, "u": u, "v": v, "w": w, "mu": mu}


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_every_bound_holds_at_corners_and_random_points_of_the_box(p):
    made = certify_twin_plus(p)
    params, radius = made.params, made.radius
    with working_precision(128):
        bounds = kernel.twin_plus_box_bounds(params, radius, 128)
    pattern = {name: mpf(value) for name, value in bounds["pattern"].items()}
    b_hi, window = upper(bounds["loss_excess"]), lower(bounds["window"])
    capture = {name: lower(ball) for name, ball in bounds["capture_box"].items()}
    for point in box_points(params, radius, 8, seed=p):
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
        assert q["b0"] <= b_hi + ROUNDING
        assert q["window"] >= window - ROUNDING
        for name, margin in q["margins"].items():
            assert margin >= capture[name] - ROUNDING, name
        assert q["t_c"] <= mpf(bounds["capture_time"]) + ROUNDING


@pytest.mark.parametrize("p", [5, 13])
def test_delta_is_below_the_purity_margin_of_s15_at_points_of_the_box(p):
    """delta of (S.15) at each point, from its rho, L_0 = S^2/2 + sum gamma^2 and C_+ (Proposition S.6)."""
    made = certify_twin_plus(p)
    with working_precision(128):
        delta_lo = lower(kernel.twin_plus_box_bounds(made.params, made.radius, 128)["delta"])
    F0 = 2 * (1 + mp.cos(2 * mp.pi / p)) / (p - 2)
    for point in box_points(made.params, made.radius, 6, seed=100 + p):
        q = quantities(made.params, point)
        L0 = q["S0"] ** 2 / 2 + mp.fsum(g**2 for g in q["gamma"])
        C = max(0, p * q["mu"] ** 2 + mp.fsum(x**2 for x in q["u"] + q["v"]) - mp.fsum(x**2 for x in q["w"]))
        assert (1 - (mp.sqrt(F0) + q["rho"] - 1) ** 2) * L0 / (2 * L0 + C) >= delta_lo - ROUNDING


def section_11_11_bounds(params, radius):
    """Section 11.11's closed forms of every box bound, transcribed from the doc into mpmath (not the kernel's
    code): b_+, the window margin, the four margins of (S.34) through Remark S3.3, and t_c."""
    p, r = params.p, mpf(radius)
    X, e, t, d, E, h = (mpf(getattr(params, name)) for name in ("X", "e", "t", "d", "E", "h"))
    s = (X - e) / 2

    def ell_1(z):
        return mp.log(1 + mp.exp(z * (d + 2 * r)) + (p - 2) * mp.exp(-z * (E - 2 * r)))

    ell_0 = mp.log(1 + mp.exp(-(X - 2 * r) * (d - 2 * r)) + (p - 2) * mp.exp(-(X - 2 * r) * (E + d - 2 * r)))
    b = ell_0 + 2 * max(ell_1(s - 2 * r), ell_1(s + 2 * r)) - 3 * mp.log(2)
    mu0 = (2 * E + d) / p
    rho = 1 + 2 * r / (mu0 - 2 * (p - 1) * r / p)
    e_plus = e + 2 * r
    D_plus = d + 2 * r + e_plus**2 / h
    delta_c = mp.sqrt(2 * (b + D_plus * e_plus / 2) * e_plus / h)
    z, M = s + 2 * r + delta_c, E + d + 2 * r + delta_c
    S = (p - 2) * (mu0 - 4 * r / p)
    b0 = max(b, 0)
    kappa = mp.mpf(3) / 4 * q_star(b0) * (X - 2 * r - delta_c) ** 2
    return {"b": b, "window": min(mp.log(mp.mpf(p) / 4), 2 / ((p - 1) * rho)) - b,
            "reach": min(s, t) - 2 * r - delta_c, "rate": 2 * (S * mp.exp(-z * M) - D_plus) / p - h,
            "cone": kappa - 2 * b0, "race": mp.log(S) - z * M - (z + M) ** 2 * b0 / (2 * (kappa - 2 * b0)) - mp.log(D_plus),
            "time": p**2 * e_plus / h}


@pytest.mark.parametrize("p", [5, 11, 29])
def test_each_bound_is_the_closed_form_of_section_11_11(p):
    """The kernel's balls contain the doc's closed forms (at the kernel's b_+, the upper end of its ball: the
    oracle's b agrees with it to 10^-30, and the later bounds are Lipschitz in b with constants below 10^3, so
    10^-25 bounds the difference); the capture time is exact."""
    made = certify_twin_plus(p)
    oracle = section_11_11_bounds(made.params, made.radius)
    with working_precision(128):
        bounds = kernel.twin_plus_box_bounds(made.params, made.radius, 128)
    found = {"b": bounds["loss_excess"], "window": bounds["window"], **bounds["capture_box"]}
    for name, ball in found.items():
        assert abs(mp.mpf(ball.mid().str(40, radius=False)) - oracle[name]) < mp.mpf("1e-25") * (1 + abs(oracle[name])), name
    assert abs(mpf(bounds["capture_time"]) - oracle["time"]) < ROUNDING


def test_the_words_of_loss_excess_box_are_the_closed_form_the_claims_use():
    """b_+ read from the statement's own words (its formula turned into Python, apart from the kernel and the
    doc's transcription) equals section 11.11's closed form, and the window and capture ends hold at it."""
    made = certify_twin_plus(7)
    claims = made.certificate["claims"]
    statement = claims["loss_excess_box"]["statement"]
    found = re.search(r"b_\+ = (.*?) with ell_0\+\(z\) = (.*?) and ell_1\+\(z\) = (.*?), s = \(X - e\)/2, the upper",
                      statement)
    assert found, statement

    def python(text: str) -> str:
        text = text.replace("ell_0+(", "L0(").replace("ell_1+(", "L1(").replace("log 2", "log(2)")
        text = re.sub(r"e\^\{([^}]*)\}", r"exp(\1)", text)
        text = re.sub(r"(\d)([A-Za-z])", r"\1*\2", text)
        return re.sub(r"([A-Za-z0-9)]) (?=[A-Za-z(])", r"\1*", text)

    names = {name: mpf(getattr(made.params, name)) for name in ("X", "e", "d", "E")}
    names.update(s=(names["X"] - names["e"]) / 2, r=mpf(made.radius), p=7, exp=mp.exp, log=mp.log, max=max)
    names["L0"] = eval("lambda z: " + python(found.group(2)), names)
    names["L1"] = eval("lambda z: " + python(found.group(3)), names)
    oracle = section_11_11_bounds(made.params, made.radius)
    assert abs(eval(python(found.group(1)), names) - oracle["b"]) < ROUNDING
    assert mp.mpf(claims["window_box"]["lo"]) <= oracle["window"] + ROUNDING
    for name, component in claims["capture_box"]["components"].items():
        assert mp.mpf(component["lo"]) <= oracle[name] + ROUNDING, name


def test_the_float_flow_from_the_box_is_captured_with_d_positive_by_the_certified_time():
    """Proposition S3.2 by an independent route: the full-network flow of certify.law.flow (floats) from the base
    point and two corners is on the twin's face (z11 within the simulator's kink tolerance of 0) at every
    checkpoint from the first one at or after the certified capture time (the simulator reports at checkpoints), with
    D >= -tolerance there (D >= 0 on the face, Theorem S3) and D at most its start (D nonincreasing, Lemma S.10)."""
    from certify.law.flow import KINK_TOLERANCE, simulate_flow
    from certify.numeric.staircase import staircase_points

    made = certify_twin_plus(5)
    t_c = float(Fraction(made.certificate["claims"]["capture_time_box"]["hi"]))
    for theta0 in staircase_points(made.certificate):
        run = simulate_flow(theta0, 5, 1e4)
        after = [state for time, state in zip(run.times, run.states) if time >= t_c]
        assert after, "the simulator reported no checkpoint after t_c"
        D0 = theta0[10] - theta0[11]
        for state in after:
            u, v, w = state[:5], state[5:10], state[10:]
            assert abs(u[1] + v[1]) <= KINK_TOLERANCE
            assert -KINK_TOLERANCE <= w[0] - w[1] <= D0


DEFAULTS = dict(p=5, X=fmpq(2), e=fmpq(24, 10000), t=fmpq(1, 2), d=fmpq(24, 10000), E=fmpq(341, 100),
                h=fmpq(798, 100000), sigma=fmpq(1))


def test_the_defaults_at_5_are_the_ones_written_here():
    made = certify_twin_plus(5)
    assert {name: getattr(made.params, name) for name in DEFAULTS} == DEFAULTS


@pytest.mark.parametrize("change, words", [
    ({"p": 3}, "p >= 5 fails"),
    ({"X": fmpq(-1)}, "X > 0 fails"),
    ({"h": fmpq(0)}, "h > 0 fails"),
    ({"e": fmpq(2)}, "e < X fails"),
    ({"d": fmpq(1, 2)}, "not in U_II^+"),   # D0 beyond the race
    ({"h": fmpq(1, 10)}, "not in U_II^+"),  # a rate the tails cannot give
    ({"E": fmpq(1)}, "not in U_II^+"),      # b0 beyond the window
    ({"sigma": fmpq(0)}, "sigma"),
])
def test_broken_hypotheses_are_named(change, words):
    values = dict(DEFAULTS, **change)
    with pytest.raises(HypothesisError, match=re.escape(words)):
        kernel.require_twin_plus_hypotheses(kernel.TwinPlusParameters(**values))


def test_the_defaults_fail_from_37_on_with_a_one_line_reason():
    with pytest.raises(HypothesisError, match=r"the base point is not in U_II\^\+ .*\(window \["):
        certify_twin_plus(37)


@pytest.mark.parametrize("change, margin", [({"d": fmpq(1, 20)}, "race"), ({"h": fmpq(1, 10)}, "rate"),
                                            ({"E": fmpq(5, 2)}, "window")])
def test_the_message_names_the_margin_that_fails(change, margin):
    with pytest.raises(HypothesisError) as raised:
        kernel.require_twin_plus_hypotheses(kernel.TwinPlusParameters(**dict(DEFAULTS, **change)))
    failing = str(raised.value).split("not positive (", 1)[1]
    assert re.match(rf"(\w+ \[[^]]*\]; )*{margin} \[", failing), failing


def test_a_box_too_large_is_not_certified_and_names_the_failing_condition():
    made = certify_twin_plus(5)
    with pytest.raises(NotCertified, match=r"gate \(1, 1\) < 0"):
        kernel.twin_plus_box_bounds(made.params, made.radius * 10, 64)
    with pytest.raises(NotCertified, match="radius must be positive"):
        kernel.twin_plus_box_bounds(made.params, fmpq(0), 64)
    # just inside the pattern (2r below e and d) the capture margins are what fail
    with pytest.raises(NotCertified, match="capture_box|window_box"):
        kernel.twin_plus_box_bounds(made.params, made.params.e / 2 * fmpq(99, 100), 64)


def test_the_region_bound_counts_p2_p_minus_1_copies_of_the_widened_box():
    """region - box (log10) is log10(p^2 (p - 1)) plus what the 2(p - 2) tails gain from [c - r, c + r] to
    [c - r - 4 sigma, c + r] (docs/staircase.md section 11.14), the masses by mpmath's ncdf (an independent route),
    plus log10 of the translates' factor pi sigma^2/(2 sqrt(2) p r^2) of (S.40) (section 11.15)."""
    document = certify_twin_plus(7).certificate
    radius, level = Fraction(document["radius"]), Fraction(document["base_point"]["u"]["elsewhere"])
    p, r, c = 7, mp.mpf(radius.numerator) / radius.denominator, mp.mpf(level.numerator) / level.denominator
    assert document["base_point"]["v"]["elsewhere"] == document["base_point"]["u"]["elsewhere"]
    tails = 2 * (p - 2) * (mp.log10(mp.ncdf(c + r) - mp.ncdf(c - r - 4)) - mp.log10(mp.ncdf(c + r) - mp.ncdf(c - r)))
    claims = document["claims"]
    gap = mp.mpf(claims["region_probability"]["log10_lo"]) - mp.mpf(claims["gaussian_probability"]["log10_lo"])
    # the translates along the two invariant lines (docs/staircase.md 11.15, (S.40)): pi/(2 sqrt 2 p r^2), sigma = 1
    translates = mp.log10(mp.pi / (2 * mp.sqrt(2) * p * r**2))
    assert tails > 1 and translates > 3
    assert abs(gap - mp.log10(7 * 7 * 6) - tails - translates) < mp.mpf("1e-20")


def test_the_box_mass_is_the_product_of_the_coordinates_normal_masses():
    """gaussian_probability against mpmath's ncdf over the 3p coordinates (an independent route to the mass)."""
    made = certify_twin_plus(5)
    r = mpf(made.radius)
    base = kernel.twin_plus_base_point(made.params)
    log10_mass = mp.fsum(mp.log10(mp.ncdf(mpf(x) + r) - mp.ncdf(mpf(x) - r))
                         for block in (base.u, base.v, base.w)
                         for x in [block.at_0, block.at_1] + [block.elsewhere] * 3)
    stated = mp.mpf(made.certificate["claims"]["gaussian_probability"]["log10_lo"])
    assert stated <= log10_mass < stated + mp.mpf("1e-10")


def _made_false(document: dict, claim: str, component, key: str, factor) -> dict:
    """A copy of ``document`` with one stored end moved past what the kernel proves by ``factor``."""
    import copy

    changed = copy.deepcopy(document)
    node = changed["claims"][claim]
    node = node["components"][component] if component else node
    node[key] = canonical_text(Fraction(node[key]) * factor)
    return changed


@pytest.mark.parametrize("claim, component, key, factor", [
    ("pattern_box", "positive_difference", "lo", Fraction(11, 10)),
    ("loss_excess_box", None, "hi", Fraction(9, 10)),
    ("window_box", None, "lo", Fraction(11, 10)),
    ("capture_box", "race", "lo", Fraction(11, 10)),
    ("capture_box", "rate", "lo", Fraction(11, 10)),
    ("capture_box", "reach", "lo", Fraction(11, 10)),
    ("capture_box", "cone", "lo", Fraction(11, 10)),
    ("capture_time_box", None, "hi", Fraction(9, 10)),
    ("purity_margin_box", None, "lo", Fraction(11, 10)),
])
def test_the_checker_rejects_each_claim_once_it_is_made_false(claim, component, key, factor):
    """Each claim of a twin_plus certificate, its end moved 10% past the kernel's bound (beyond every end the
    kernel could prove), is rejected, and the message names the claim."""
    from certify.certificate import dumps
    from certify.check import check_bytes

    document = certify_twin_plus(5).certificate
    assert check_bytes(dumps(document).encode()).status == "verified"
    verdict = check_bytes(dumps(_made_false(document, claim, component, key, factor)).encode())
    assert verdict.status == "rejected", verdict.line()
    assert claim in verdict.message


@pytest.mark.parametrize("h", ["0.004", "0.00799", "0.0085", "0.012"])
def test_the_checker_judges_a_changed_parameter_by_its_own_numbers(h):
    """The checker recomputes from the stated h: a certificate whose h is changed stays verified exactly when
    section 11.11's closed forms at the new h (the test's own transcription, mpmath at 40 digits) keep every
    stored end true and every margin positive, and is rejected otherwise (at these h the two verdicts differ by
    more than 10^-6 relative, far beyond the oracle's 10^-30)."""
    from dataclasses import replace

    from certify.certificate import dumps
    from certify.check import check_bytes

    made = certify_twin_plus(5)
    document, claims = made.certificate, made.certificate["claims"]
    oracle = section_11_11_bounds(replace(made.params, h=fmpq(Fraction(h).numerator, Fraction(h).denominator)),
                                  made.radius)
    capture = claims["capture_box"]["components"]
    true = (all(oracle[name] > 0 and mp.mpf(capture[name]["lo"]) <= oracle[name] for name in capture)
            and mp.mpf(claims["window_box"]["lo"]) <= oracle["window"]
            and oracle["time"] <= mp.mpf(Fraction(claims["capture_time_box"]["hi"]).numerator)
            / Fraction(claims["capture_time_box"]["hi"]).denominator)
    found = check_bytes(dumps(dict(document, parameters=dict(document["parameters"], h=h))).encode())
    assert found.status == ("verified" if true else "rejected"), found.line()
    if h in ("0.004", "0.00799"):  # not vacuous: the oracle says false at one and true at the other
        assert true == (h == "0.00799")
