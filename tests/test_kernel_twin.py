"""certify.kernel.twin (docs/staircase.md, section 11.9): every bound of the twin's box against an independent oracle.

The oracle draws exact points of the box (its corners and random points), evaluates each quantity of Proposition
S2.2 there from its definition with mpmath at 40 digits (the loss from the log-sum-exp (A.2) over all p labels,
gamma_j and rho from w, zeta0 = z11/D, s1, S, kappa and s1max of (S.29) at the point's own b0 and zeta0, delta of
(S.15) at the point's rho, L_0 and C_+), and checks that the kernel's bound holds there. Errors of the oracle:
every value is O(10^2) at most and computed at 40 digits, so its rounding is below 10^-35, far inside the
10^-30 allowed below.
"""

from __future__ import annotations

import mpmath as mp
from fractions import Fraction
import numpy as np
import pytest
from flint import fmpq

from certify.errors import HypothesisError, NotCertified
from certify.kernel import twin as kernel
from certify.kernel.balls import working_precision
from certify.theorems.twin import certify_twin, default_parameters

#: What the oracle's rounding may cost (the module docstring's estimate: below 10^-35).
ROUNDING = mp.mpf("1e-30")


@pytest.fixture(autouse=True)
def forty_digits():
    with mp.workdps(40):
        yield


def instance(p: int):
    """The builder's default parameters at p and its radius (the kernel decides; the builder only chooses)."""
    made = certify_twin(p)
    return made.params, made.radius


def box_points(params, radius, count: int, seed: int):
    """Exact points (u, v, w) of the box: the all-minus and all-plus corners, then random corners and interior
    points (Fractions of the radius), as lists of fmpq."""
    base = kernel.twin_base_point(params)
    p = params.p
    centre = []
    for block in (base.u, base.v, base.w):
        centre.append([block.at_0, block.at_1] + [block.elsewhere] * (p - 2))
    rng = np.random.default_rng(seed)
    points = []
    for index in range(count):
        if index < 2:
            steps = [[(-1) ** (index + 1)] * p for _ in range(3)]
        elif index % 2:
            steps = [list(rng.choice([-1, 1], size=p)) for _ in range(3)]
        else:
            steps = [[fmpq(int(k), 1000) for k in rng.integers(-1000, 1001, size=p)] for _ in range(3)]
        points.append([[c + fmpq(int(s) if isinstance(s, (int, np.integer)) else s) * radius
                        for c, s in zip(block, step)] for block, step in zip(centre, steps)])
    return points


def mpf(x: fmpq):
    return mp.mpf(int(x.p)) / int(x.q)


def quantities(params, point):
    """Proposition S2.2's quantities at one exact point, from their definitions (mpmath)."""
    p = params.p
    u, v, w = ([mpf(x) for x in block] for block in point)
    mu = mp.fsum(w) / p

    def ell(z, y):
        return mp.log(mp.fsum(mp.exp(z * (w[c] - w[y])) for c in range(p)))

    X, r, c = u[0] + v[0], u[0] + v[1], u[1] + v[0]
    z11, D = u[1] + v[1], w[0] - w[1]
    b = ell(X, 0) + ell(r, 1) + ell(c, 1) - 3 * mp.log(2)
    gamma = [mu - w[j] for j in range(2, p)]
    rho = max(gamma) / min(gamma)
    return {"X": X, "r": r, "c": c, "z11": z11, "D": D, "b": b, "gamma": gamma, "rho": rho, "S": mp.fsum(gamma),
            "zeta": z11 / D, "gates": [[u[a] + v[k] for k in range(p)] for a in range(p)], "u": u, "v": v, "w": w,
            "mu": mu}


def phi(b, p, rho):
    """(S.27), written out again from docs/staircase.md section 11.5 (not the kernel's function)."""
    lp4 = mp.log(mp.mpf(p) / 4)
    kappa = 2 * (mp.log(2) + b) / (lp4 - 2 * b)
    w1 = (1 + kappa) * (p - 2) * rho / (2 + kappa)
    return b * (w1 + rho) + 2 * mp.acosh(mp.exp(b)) * w1 / (lp4 - b)


def capture(params, q):
    """kappa and s1max of (S.29) at the point's own b0, zeta0, s1(0), S(0) (Proposition S2.2 as stated)."""
    p, sigma = params.p, mpf(params.s2_max)
    q_star = 2 * (1 - q["b"]) / (1 + mp.exp(2 * mp.acosh(mp.exp(q["b"]))))
    kappa = q_star - q["zeta"] ** 2 - q["zeta"] * sigma / 2
    a = mp.mpf(12) / (p - 2)
    omega = mp.sqrt(a * q["b"])
    T = q["zeta"] / kappa
    s1 = q["X"] + q["r"] + q["c"]
    s1max = s1 * mp.cosh(omega * T) + a * q["S"] * mp.sinh(omega * T) / omega
    return kappa, s1max


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_every_bound_holds_at_corners_and_random_points_of_the_box(p):
    params, radius = instance(p)
    with working_precision(128):
        bounds = kernel.twin_box_bounds(params, radius, 128)
    pattern = {name: mpf(value) for name, value in bounds["pattern"].items()}
    b_hi = mp.mpf(bounds["loss_excess"].upper().str(40, radius=False))
    window = {name: mp.mpf(ball.lower().str(40, radius=False)) for name, ball in bounds["window_box"].items()}
    cone = mp.mpf(bounds["capture_box"]["cone"].lower().str(40, radius=False))
    growth = mp.mpf(bounds["capture_box"]["growth"].lower().str(40, radius=False))
    t_hi = mp.mpf(bounds["capture_time"].upper().str(40, radius=False))
    for point in box_points(params, radius, 8, seed=p):
        q = quantities(params, point)
        gates = q["gates"]
        assert min(gates[0][0], gates[0][1], gates[1][0]) >= pattern["active_gates"] - ROUNDING
        assert -gates[1][1] >= pattern["gate_11"] - ROUNDING
        assert -max(max(gates[0][2:]), max(gates[j][0] for j in range(2, p))) >= pattern["boundary_gates"] - ROUNDING
        others = [gates[a][k] for a in range(p) for k in range(p) if a >= 1 and k >= 1 and (a, k) != (1, 1)]
        assert -max(others) >= pattern["other_gates"] - ROUNDING
        assert min(q["gamma"]) >= pattern["gamma_min"] - ROUNDING
        assert -q["D"] >= pattern["twin_difference"] - ROUNDING
        assert 0 <= q["b"] <= b_hi + ROUNDING  # Lemma S.11 gives b >= 0 where z11 D > 0
        assert min(1, mp.log(mp.mpf(p) / 4) / 2) - q["b"] >= window["loss_budget"] - ROUNDING
        assert 2 - phi(q["b"], p, q["rho"]) >= window["force_budget"] - ROUNDING
        kappa, s1max = capture(params, q)
        assert kappa >= cone - ROUNDING
        assert mpf(params.s2_max) - s1max**2 >= growth - ROUNDING
        assert p**2 * q["zeta"] / kappa <= t_hi + ROUNDING


@pytest.mark.parametrize("p", [5, 13])
def test_delta_is_below_the_purity_margin_of_s15_at_points_of_the_box(p):
    """delta of (S.15) at each point, from its rho, L_0 = S^2/2 + sum gamma^2 and C_+ (Proposition S.6)."""
    params, radius = instance(p)
    with working_precision(128):
        delta_lo = mp.mpf(kernel.twin_box_bounds(params, radius, 128)["delta"].lower().str(40, radius=False))
    F0 = 2 * (1 + mp.cos(2 * mp.pi / p)) / (p - 2)
    for point in box_points(params, radius, 6, seed=100 + p):
        q = quantities(params, point)
        L0 = q["S"] ** 2 / 2 + mp.fsum(g**2 for g in q["gamma"])
        C = max(0, p * q["mu"] ** 2 + mp.fsum(x**2 for x in q["u"] + q["v"]) - mp.fsum(x**2 for x in q["w"]))
        delta = (1 - (mp.sqrt(F0) + q["rho"] - 1) ** 2) * L0 / (2 * L0 + C)
        assert delta >= delta_lo - ROUNDING


def test_force_ratio_is_s27_and_increases_in_b_and_rho():
    from certify.kernel.balls import ball

    with working_precision(128):
        for p in (5, 13, 101):
            for b, rho in ((fmpq(1, 1000), fmpq(1)), (fmpq(1, 100), fmpq(5, 4)), (fmpq(3, 100), fmpq(2))):
                value = kernel.force_ratio(ball(b), p, ball(rho))
                oracle = phi(mpf(b), p, mpf(rho))
                assert abs(mp.mpf(value.mid().str(40, radius=False)) - oracle) < mp.mpf("1e-30")
                assert (kernel.force_ratio(ball(b * fmpq(11, 10)), p, ball(rho)) > value) is True
                assert (kernel.force_ratio(ball(b), p, ball(rho * fmpq(11, 10))) > value) is True


def test_the_bound_of_b_is_tight_to_the_widening_section_11_9_estimates():
    """b_+ - b(base point) is about r (X + 2s + 3d) (section 11.9: the box moves each w-difference by 2r and
    each gate by 2r); allow a factor 3 for the convexity end and the tails. A bound ten times looser fails."""
    params, radius = instance(5)
    with working_precision(128):
        b_hi = mp.mpf(kernel.loss_excess_upper(params, radius).upper().str(40, radius=False))
    base = box_points(params, fmpq(0), 1, seed=0)[0]
    b0 = quantities(params, base)["b"]
    widening = mpf(radius) * mpf(params.X + 2 * params.s + 3 * params.d)
    assert 0 < b_hi - b0 <= 3 * widening


def test_the_float_flow_from_the_box_is_captured_by_the_certified_time():
    """Proposition S2.2 by an independent route: the full-network flow of certify.law.flow (floats) from the base
    point reaches the twin's face (z11 within the simulator's kink tolerance of 0) by the certified capture time
    (checkpoint 2 t_c: the simulator reports at checkpoints), with D below that tolerance (|D| nonincreasing on
    the face, Lemma S.10, from D(0) = -d)."""
    from certify.law.flow import KINK_TOLERANCE, simulate_flow
    from certify.numeric.staircase import staircase_points

    made = certify_twin(5)
    t_c = float(made.certificate["claims"]["capture_time_box"]["hi"])
    for theta0 in staircase_points(made.certificate):
        run = simulate_flow(theta0, 5, 1e4)
        times = np.asarray(run.times)
        after = [state for time, state in zip(times, run.states) if time >= 2 * t_c]
        assert after, "the simulator reported no checkpoint after 2 t_c"
        for state in after:
            u, v, w = state[:5], state[5:10], state[10:]
            assert abs(u[1] + v[1]) <= KINK_TOLERANCE
            assert w[0] - w[1] <= KINK_TOLERANCE


@pytest.mark.parametrize("change, words", [
    ({"p": 3}, "p >= 5 fails"),
    ({"X": fmpq(-1)}, "X > 0 fails"),
    ({"s": fmpq(1)}, "X > 2s fails"),
    ({"d": fmpq(1, 2)}, "(S.29) fails at the base point"),
    ({"s2_max": fmpq(10)}, "(S.29) fails at the base point"),
    ({"sigma": fmpq(0)}, "sigma"),
])
def test_broken_hypotheses_are_named(change, words):
    values = dict(p=5, X=fmpq(2), **default_parameters(5, fmpq(2)), sigma=fmpq(1))
    values.update(change)
    with pytest.raises(HypothesisError, match=words.replace("(", r"\(").replace(")", r"\)")):
        kernel.require_twin_hypotheses(kernel.TwinParameters(**values))


def test_a_box_too_large_is_not_certified_and_names_the_failing_condition():
    params, radius = instance(5)
    with pytest.raises(NotCertified, match="gate \\(1, 1\\) < 0"):
        kernel.twin_box_bounds(params, radius * 10, 64)
    with pytest.raises(NotCertified, match="radius must be positive"):
        kernel.twin_box_bounds(params, fmpq(0), 64)


def test_the_region_bound_counts_p2_p_minus_1_copies_of_the_widened_box():
    """region - box (log10) is log10(p^2 (p - 1)) plus what the 2(p - 2) tails gain from [c - r, c + r] to
    [c - r - 4 sigma, c + r] (docs/staircase.md section 11.14), the masses by mpmath's ncdf (an independent route),
    plus log10 of the translates' factor pi sigma^2/(2 sqrt(2) p r^2) of (S.40) (section 11.15)."""
    document = certify_twin(7).certificate
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


def section_11_9_bounds(params, radius):
    """Section 11.9's closed forms of every box bound, transcribed from the doc into mpmath (not the kernel's
    code): b_+, the two window margins, kappa_-, s2_max - s1max_+^2 and t_c."""
    p, r = params.p, mpf(radius)
    X, s, d, E, sigma = (mpf(getattr(params, name)) for name in ("X", "s", "d", "E", "s2_max"))

    def ell_0(z):
        return mp.log(1 + mp.exp(z * (d + 2 * r)) + (p - 2) * mp.exp(-z * (E - d - 2 * r)))

    ell_1 = mp.log(1 + mp.exp(-(s - 2 * r) * (d - 2 * r)) + (p - 2) * mp.exp(-(s - 2 * r) * (E - 2 * r)))
    b = max(ell_0(X - 2 * r), ell_0(X + 2 * r)) + 2 * ell_1 - 3 * mp.log(2)
    mu0 = (2 * E - d) / p
    g = mu0 - 2 * (p - 1) * r / p
    rho = 1 + 2 * r / g
    zeta = (X - 2 * s + 2 * r) / (d - 2 * r)
    q_star = 2 * (1 - b) / (1 + mp.exp(2 * mp.acosh(mp.exp(b))))
    kappa = q_star - zeta**2 - zeta * sigma / 2
    a = mp.mpf(12) / (p - 2)
    tau = zeta / kappa
    x = mp.sqrt(a * b) * tau
    s1max = (X + 2 * s + 6 * r) * mp.cosh(x) + a * (p - 2) * (mu0 + 2 * (p - 1) * r / p) * tau * mp.sinh(x) / x
    return {"b": b, "loss_budget": min(1, mp.log(mp.mpf(p) / 4) / 2) - b, "force_budget": 2 - phi(b, p, rho),
            "cone": kappa, "growth": sigma - s1max**2, "time": p**2 * zeta / kappa}


@pytest.mark.parametrize("p", [5, 11, 29, 101])
def test_each_bound_is_the_closed_form_of_section_11_9(p):
    """The kernel's balls contain the doc's closed forms (evaluated at the kernel's b_+, which is the upper end of
    its ball: the oracle's b agrees with it to 10^-30, and the later bounds are Lipschitz in b with constants
    below 10^3, so 10^-25 bounds the difference)."""
    params, radius = instance(p)
    oracle = section_11_9_bounds(params, radius)
    with working_precision(128):
        bounds = kernel.twin_box_bounds(params, radius, 128)
    found = {"b": bounds["loss_excess"], **bounds["window_box"], **bounds["capture_box"], "time": bounds["capture_time"]}
    for name, ball in found.items():
        middle = mp.mpf(ball.mid().str(40, radius=False))
        assert abs(middle - oracle[name]) < mp.mpf("1e-25") * (1 + abs(oracle[name])), name


def stated_b_plus(statement: str, params, radius):
    """b_+ evaluated (mpmath) from the formula loss_excess_box's statement writes out, read from its text: 'b_+ =
    EXPR with ell_0+(z) = F0 and ell_1+(z) = F1, the upper bound ...', with e^{..}, implicit products and 'log 2'
    turned into Python. The test's own reading of the words, apart from the kernel and from the doc's
    transcription (section_11_9_bounds)."""
    import re

    found = re.search(r"b_\+ = (.*?) with ell_0\+\(z\) = (.*?) and ell_1\+\(z\) = (.*?), the upper bound", statement)
    assert found, statement

    def python(text: str) -> str:
        text = text.replace("ell_0+(", "L0(").replace("ell_1+(", "L1(").replace("log 2", "log(2)")
        text = re.sub(r"e\^\{([^}]*)\}", r"exp(\1)", text)
        text = re.sub(r"(\d)([A-Za-z])", r"\1*\2", text)  # 2r
        return re.sub(r"([A-Za-z0-9)]) (?=[A-Za-z(])", r"\1*", text)  # z (d + 2r), (p - 2) e^, 2 ell, 3 log

    names = {name: mpf(getattr(params, name)) for name in ("X", "s", "d", "E")}
    names.update(r=mpf(fmpq(radius)), p=params.p, exp=mp.exp, log=mp.log, max=max)
    names["L0"] = eval("lambda z: " + python(found.group(2)), names)
    names["L1"] = eval("lambda z: " + python(found.group(3)), names)
    return eval(python(found.group(1)), names)


@pytest.mark.parametrize("p", [5, 13])
def test_the_words_hold_at_the_closed_form_b_plus_they_name(p):
    """The certificate's words: loss_excess_box's end is at least the closed form b_+ its statement writes out,
    and the window, capture and time claims hold at that closed form (their statements say so), not at the stored
    end. Checked against the doc's closed forms in mpmath (section_11_9_bounds, 40 digits: error below 10^-30,
    allowed as ROUNDING). A certificate whose end is loosened to 1 stays verified: its words are still true."""
    from certify.certificate import dumps
    from certify.check import check_bytes

    made = certify_twin(p)
    claims = made.certificate["claims"]
    oracle = section_11_9_bounds(made.params, made.radius)
    worded = stated_b_plus(claims["loss_excess_box"]["statement"], made.params, made.radius)
    assert abs(worded - oracle["b"]) < ROUNDING  # the words' formula is the doc's (two transcriptions)
    assert "b_+ of b (loss_excess_box's closed form)" in claims["capture_box"]["statement"]
    assert mp.mpf(claims["loss_excess_box"]["hi"]) >= oracle["b"] - ROUNDING
    for claim in ("window_box", "capture_box"):
        for name, component in claims[claim]["components"].items():
            assert mp.mpf(component["lo"]) <= oracle[name] + ROUNDING, name
    assert mp.mpf(claims["capture_time_box"]["hi"]) >= oracle["time"] - ROUNDING
    loosened = {**made.certificate, "claims": {**claims, "loss_excess_box": {**claims["loss_excess_box"], "hi": "1"}}}
    assert check_bytes(dumps(loosened).encode()).status == "verified"


def test_the_default_budget_is_found_at_primes_far_beyond_the_library():
    """b_II(p, 1) falls like 2 log(p/4)^2/p^2 (Phi(b; p, 1) of (S.27) is about p b/2 + sqrt(2b) p/log(p/4) for small
    b, w1 ~ p/2): the builder's search for it (a relative bisection at 64 + 3 log2 p bits) finds it at p ~ 7.6e6
    and 10^18 - 11 (the largest prime accepted), where a fixed grid on [0, log(p/4)/2] found 0, and the
    certificate made at 7626539 is verified."""
    from certify.check import check_bytes
    from certify.certificate import dumps
    from certify.theorems.twin import force_budget

    for p in (7626539, 999999999999999989):
        budget = force_budget(p)
        estimate = 2 * mp.log(mp.mpf(p) / 4) ** 2 / mp.mpf(p) ** 2
        assert estimate / 2 < mpf(budget) < estimate, p
    assert check_bytes(dumps(certify_twin(7626539).certificate).encode()).status == "verified"


def test_without_the_budget_the_error_says_which_values_to_give(monkeypatch):
    """Where b_II(p, 1) is not found (here: a search cut to 5 halvings at p = 7626539, whose budget is 2^-41 of
    log(p/4)/2), the builder says to give s, d and E, and with them it needs no budget: t and s2_max are X's."""
    from certify.theorems import twin as builder

    monkeypatch.setattr(builder, "MAX_HALVINGS", 5)
    builder.force_budget.cache_clear()
    builder.default_parameters.cache_clear()
    try:
        with pytest.raises(HypothesisError, match="give --s, --d and --E"):
            certify_twin(7626539)
        made = certify_twin(7626539, s=fmpq(999999986, 10**9), d=fmpq(187, 10**8), E=fmpq(438, 10))
        assert made.params.t == fmpq(1, 10) and made.params.s2_max == 32
    finally:
        builder.force_budget.cache_clear()
        builder.default_parameters.cache_clear()


@pytest.mark.parametrize("change, remedy", [
    ({"d": fmpq(1)}, "lower d or raise E"),  # the loss budget: b_+ >= min(1, log(p/4)/2)
    ({"s": fmpq(95, 100)}, "raise d, or lower X - 2s or s2_max"),  # kappa < 0
    ({"s2_max": fmpq(16)}, "raise s2_max"),  # the growth margin
    ({"d": fmpq(3, 10)}, "lower d or raise E"),  # the force budget 2 - Phi
])
def test_a_failing_base_point_says_what_raises_its_margin(change, remedy):
    values = dict(p=5, X=fmpq(2), **default_parameters(5, fmpq(2)), sigma=fmpq(1))
    values.update(change)
    with pytest.raises(HypothesisError, match=remedy.replace("(", r"\(")) as failure:
        kernel.require_twin_hypotheses(kernel.TwinParameters(**values))
    assert "fails at the base point" in str(failure.value)
