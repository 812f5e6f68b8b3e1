"""The widened box B_r^+ of docs/staircase.md, section 11.14 (Lemma S.18): the region bound of the four (1, 2)
records (``certify staircase --k 2``, ``twin``, ``twin_plus``, ``twin_above``) measures B_r^+, the box of radius r
around the base point with each tail coordinate u(i), v(i), i >= 2 (base level c, the ``elsewhere`` of u and of v)
widened down to [c - r - 4 sigma, c + r].

Independent routes:

* the stated ``region_probability`` against log10 of p^2 (p - 1) times the product of mpmath's normal masses
  (``ncdf`` differences at 60 digits) over B_r^+'s 3p intervals, written here from the certificate's ``base_point``,
  ``radius`` and ``sigma`` and the doc's depth 4 sigma (not from the kernel's ``widened_box_intervals``);
* membership of B_r^+ in each record's region, by the mpmath oracles of the records' own tests
  (tests/test_kernel_staircase.py, test_kernel_twin.py, test_kernel_twin_plus.py, test_kernel_twin_above.py,
  imported, as tests/test_registry.py imports from test_imports.py), at points of B_r^+ outside the box: the box
  points those tests draw, with every tail moved below the box, to the bottom c - r - 4 sigma or to random exact
  depths; every stored end but the purity margin's (a claim about the box only: it reads C_+, which grows with the
  tails, section 11.14) must hold there, and every gate reading a tail must be negative;
* the float flow of certify.law.flow from twin_above's B_r^+ with every tail at the bottom;
* ``product_log_mass`` against mpmath's ncdf;
* coqc: the honest region lemmas compile against ``region_probability_widened_box_mass``, whose factors are B_r^+'s
  intervals, and a region bound forged 0.01 decades past the widened truth is refused in its own lemma;
* the memorise record (k = 1), whose lemma was not written for B_r^+, still measures the box.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from fractions import Fraction

import mpmath as mp
import pytest
from flint import fmpq

from certify.errors import NotCertified
from certify.kernel.balls import working_precision
from certify.theorems.memorise import certify_memorise
from certify.theorems.staircase import certify_staircase
from certify.theorems.twin import certify_twin
from certify.theorems.twin_above import certify_twin_above
from certify.theorems.twin_plus import certify_twin_plus
from conftest import ROOT

import test_kernel_staircase as staircase_oracle
import test_kernel_twin as twin_oracle
import test_kernel_twin_above as twin_above_oracle
import test_kernel_twin_plus as twin_plus_oracle

#: The depth of the widening below the box, in units of sigma (docs/staircase.md, section 11.14: L = 4 sigma).
DEPTH = 4
RECORDS = ("staircase", "twin", "twin_plus", "twin_above")
BUILDERS = {"staircase": certify_staircase, "twin": certify_twin, "twin_plus": certify_twin_plus,
            "twin_above": certify_twin_above}
#: What the records' oracles' rounding may cost: their modules' estimate (every value O(10^2) at most, computed at
#: 40 digits: rounding below 10^-35). At the points of B_r^+ used here the tails reach c - r - 4 = -19.6 and the
#: gates reading them -39.3 (staircase, p = 31, where w(0) = 72.7 already was), still O(10^2), and the quantities the
#: margins read do not contain the tails (section 11.14, step 2), so the estimate stands.
ROUNDING = mp.mpf("1e-30")
#: The working precision of the mass route (digits); see :func:`interval_mass` for its error estimate.
MASS_DPS = 60
#: The largest cancellation factor the mass route allows itself (asserted per interval, see :func:`interval_mass`).
MAX_CANCELLATION = mp.mpf(10) ** 12


@pytest.fixture(autouse=True)
def forty_digits():
    """The imported oracles evaluate at the ambient mpmath precision: 40 digits, as in their own modules."""
    with mp.workdps(40):
        yield


def F(value) -> Fraction:
    """A certificate number (text), an fmpq or a Fraction, exactly."""
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    return Fraction(value)


def mpq(value) -> mp.mpf:
    """An exact rational as an mpf at the current precision (numerator and denominator exact, one rounding)."""
    value = F(value)
    return mp.mpf(value.numerator) / value.denominator


@functools.lru_cache(maxsize=None)
def built(record: str, p: int, sigma: Fraction | None = None):
    """The record's certificate at p from its builder (deterministic; the library files are these)."""
    if sigma is None:
        return BUILDERS[record](p)
    return BUILDERS[record](p, sigma=fmpq(sigma.numerator, sigma.denominator))


def library(record: str, p: int) -> dict:
    from certify.certificate import parse_certificate

    return parse_certificate((ROOT / "proofs" / record / f"{record}-{p}.json").read_bytes())


# ---------------------------------------------------------------------------------------------------------------
# 1. the stated bound against mpmath's normal masses over B_r^+
# ---------------------------------------------------------------------------------------------------------------

def widened_intervals(document: dict) -> list[tuple[Fraction, Fraction, int]]:
    """B_r^+'s coordinate intervals (a, b, count) in the certificate's own units, from its base point (blocks u, v, w
    with at_0, at_1 once each and elsewhere p - 2 times), radius r and sigma (section 11.14): [m - r, m + r], except
    the tails of u and v, [c - r - 4 sigma, c + r], and, for twin_above, the w(j), j >= 2, within r + g (its box,
    section 11.13)."""
    p, r, sigma = int(document["p"]), F(document["radius"]), F(document["parameters"]["sigma"])
    g = F(document["parameters"].get("g", "0"))  # only twin_above has g
    intervals = []
    for name in "uvw":
        levels = document["base_point"][name]
        at_0, at_1, c = (F(levels[key]) for key in ("at_0", "at_1", "elsewhere"))
        intervals += [(at_0 - r, at_0 + r, 1), (at_1 - r, at_1 + r, 1)]
        intervals.append((c - r - DEPTH * sigma, c + r, p - 2) if name in "uv" else (c - r - g, c + r + g, p - 2))
    return intervals


#: the tails' places in :func:`widened_intervals` (u's and v's elsewhere levels)
TAIL_INDICES = (2, 5)


def box_intervals(document: dict) -> list[tuple[Fraction, Fraction, int]]:
    """The box's intervals [m - r, m + r] (the same blocks, no widening)."""
    p, r = int(document["p"]), F(document["radius"])
    return [(m - r, m + r, k) for name in "uvw" for m, k in
            ((F(document["base_point"][name][key]), k) for key, k in (("at_0", 1), ("at_1", 1),
                                                                       ("elsewhere", p - 2)))]


def interval_mass(a, b) -> mp.mpf:
    """P(a <= Z <= b), Z ~ N(0, 1), a < b exact, as a difference of mpmath's ncdf taken on the side of 0 where both
    terms are smallest (ncdf(-a) - ncdf(-b) when a >= 0), at the current precision (MASS_DPS here).

    Error estimate: ncdf is mpmath's erfc-based normal cdf, good to a few units of the working precision in relative
    terms (10^-58 at 60 digits), also far in the tails, where erfc keeps relative accuracy. The difference of two
    such terms, each at most ``big``, has a relative error of at most 2 10^-58 big/mass. The cancellation factor
    big/mass is asserted below MAX_CANCELLATION = 10^12 (measured when this was written: at most 2.2 10^4 over the
    records' intervals, at most 4.7 10^5 over INTERVALS below), so each mass is good to 2 10^-46 relative and each
    log10 to 10^-46 absolute."""
    a, b = mpq(a), mpq(b)
    first, second = (mp.ncdf(-a), mp.ncdf(-b)) if a >= 0 else (mp.ncdf(b), mp.ncdf(a))
    mass = first - second
    assert mass > 0 and first / mass < MAX_CANCELLATION, (a, b)
    return mass


def log10_product(intervals, sigma) -> mp.mpf:
    """log10 of the product of the normal masses of the intervals under N(0, sigma^2): P(a <= sigma Z <= b) =
    P(a/sigma <= Z <= b/sigma). At most 3p = 93 terms of error 10^-46 each: below 10^-43 in all."""
    sigma = F(sigma)
    with mp.workdps(MASS_DPS):
        total = mp.fsum(k * mp.log10(interval_mass(a / sigma, b / sigma)) for a, b, k in intervals)
    return +total


def copies_log10(p: int) -> mp.mpf:
    return mp.log10(p * p * (p - 1))


def translates_log10(document: dict) -> mp.mpf:
    """log10 of (S.40)'s factor pi sigma^2/(2 sqrt(2) p r^2) (docs/staircase.md 11.15), written here from the
    certificate's p, radius and sigma (mpmath at MASS_DPS: error below 10^-55)."""
    p, r, sigma = int(document["p"]), F(document["radius"]), F(document["parameters"]["sigma"])
    with mp.workdps(MASS_DPS):
        return +mp.log10(mp.pi * mpq(sigma) ** 2 / (2 * mp.sqrt(2) * p * mpq(r) ** 2))


def region_truth(document: dict, intervals=None) -> mp.mpf:
    """log10 of the bound (S.40): p^2 (p - 1) copies of P(B_r^+) (``intervals``, default :func:`widened_intervals`)
    times the translates' factor."""
    intervals = widened_intervals(document) if intervals is None else intervals
    return (copies_log10(int(document["p"])) + log10_product(intervals, document["parameters"]["sigma"])
            + translates_log10(document))


#: The stated log10 ends are written to about 36 significant digits and rounded down, after a lowering for the
#: kernel's enclosure (at 128 bits, about 10^-35 here); the mass route is good to 10^-43. So a correct end is within
#: 10^-30 below the truth; 10^-10 is the brief's allowance, far above both and far below the widening's gain (> 1).
AGREEMENT = mp.mpf("1e-10")


def check_region_bound(document: dict) -> mp.mpf:
    """The checks of the tests below; returns the widening's gain in decades."""
    p, sigma = int(document["p"]), F(document["parameters"]["sigma"])
    claims = document["claims"]
    region = mp.mpf(claims["region_probability"]["log10_lo"])
    box = mp.mpf(claims["gaussian_probability"]["log10_lo"])
    widened_truth = region_truth(document)
    box_truth = log10_product(box_intervals(document), sigma)
    assert region <= widened_truth < region + AGREEMENT, (region, widened_truth)
    assert box <= box_truth < box + AGREEMENT, (box, box_truth)
    # the tails were widened (and twin_above's w(j)): the gain over the box copies is theirs and the translates'
    gain = region - (copies_log10(p) + box) - translates_log10(document)
    tail_gain = mp.mpf(0)
    for (a, b, k), (a_box, b_box, k_box) in zip(widened_intervals(document), box_intervals(document)):
        assert k == k_box and a <= a_box and b >= b_box
        if (a, b) != (a_box, b_box):
            with mp.workdps(MASS_DPS):
                tail_gain += k * (mp.log10(interval_mass(a / sigma, b / sigma))
                                  - mp.log10(interval_mass(a_box / sigma, b_box / sigma)))
    assert gain > 0 and tail_gain > 0
    assert abs(gain - tail_gain) < 2 * AGREEMENT
    # the claim's words say what it measures
    assert f"[c - r - {DEPTH} sigma, c + r]" in claims["region_probability"]["statement"]
    return gain


@pytest.mark.parametrize("p", [5, 31])
@pytest.mark.parametrize("record", RECORDS)
def test_the_region_bound_is_the_mass_of_the_widened_box_copies(record, p):
    """A freshly built certificate at p: region_probability.log10_lo is at most log10(p^2 (p - 1) P(B_r^+)) and
    within 10^-10 of it, P(B_r^+) the product over the 3p coordinates of mpmath's normal masses (ncdf differences at
    60 digits) of the intervals written from the certificate's base point (non-tail coordinates |x - m| <= r, tails
    c - r - 4 <= x <= c + r); gaussian_probability is still the box's mass (the same route); and the region bound
    exceeds the box copies' (log10(p^2 (p - 1)) + gaussian_probability) by the tails' gain, computed independently as
    the sum over the 2 (p - 2) tails of log10 of their widened over their box mass (> 1 decade here)."""
    assert check_region_bound(built(record, p).certificate) > 1


@pytest.mark.parametrize("p", [5, 31])
@pytest.mark.parametrize("record", RECORDS)
def test_the_library_region_bound_is_the_mass_of_the_widened_box_copies(record, p):
    """The same check on the committed proof library's certificate (the RECORD-p.json file under proofs/, one
    folder per record)."""
    assert check_region_bound(library(record, p)) > 1


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(2)])
@pytest.mark.parametrize("record", RECORDS)
def test_the_widening_is_four_sigma_at_another_sigma(record, sigma):
    """At sigma = 1/2 and 2 (--sigma) the tails reach down by 4 sigma: the same mass route, now under N(0, sigma^2)
    (interval ends divided by sigma), agrees with the stated bounds to 10^-10. Control at sigma = 2: the tails
    widened by 4 instead of 4 sigma (2 sigma deep) give a truth more than 10^-4 decades away (each of the 2 (p - 2)
    tails, its base level at most 1.42 sigma below 0, loses more than 10^-3 of its mass), so the agreement sees
    sigma."""
    document = built(record, 5, sigma).certificate
    assert F(document["parameters"]["sigma"]) == sigma
    check_region_bound(document)
    if sigma == 2:
        region = mp.mpf(document["claims"]["region_probability"]["log10_lo"])
        shallow = [(a + DEPTH * (sigma - 1), b, k) if index in TAIL_INDICES else (a, b, k)
                   for index, (a, b, k) in enumerate(widened_intervals(document))]
        assert region - region_truth(document, shallow) > mp.mpf("1e-4")


def forged_past(document: dict, truth: mp.mpf, decades: str = "0.01") -> dict:
    """A copy of ``document`` with region_probability forged ``decades`` past ``truth`` (its log10, from the mass
    route) as a consistent pair: log10_lo = truth + decades rounded up at 10^-12, lo = 10^log10_lo rounded up to 30
    significant digits, so that log10_lo <= log10 lo < log10_lo + 10^-12 (the pair rule holds: only the bound is
    false)."""
    from certify.kernel.exact import canonical_text

    with mp.workdps(MASS_DPS):
        forged_log10 = Fraction(int(mp.ceil((truth + mp.mpf(decades)) * 10**12)), 10**12)
        power = mp.power(10, mpq(forged_log10))
        exponent = int(mp.floor(mp.log10(power))) - 29
        forged_lo = Fraction(int(mp.ceil(power / mp.power(10, exponent)))) * Fraction(10) ** exponent
        assert mpq(forged_log10) <= mp.log10(mpq(forged_lo)) < mpq(forged_log10 + Fraction(1, 10**12))
        assert abs(mpq(forged_log10) - (truth + mp.mpf(decades))) < mp.mpf("1e-11")
    forged = copy.deepcopy(document)
    forged["claims"]["region_probability"].update(lo=canonical_text(forged_lo), log10_lo=canonical_text(forged_log10))
    return forged


@pytest.mark.parametrize("record", RECORDS)
def test_the_checker_verifies_the_widened_bound_and_rejects_it_forged_past_the_truth(record):
    """certify check recomputes the widened bound: the certificate at p = 7 is verified; with region_probability
    forged 0.01 decades past the mass route's widened truth (a consistent lo/log10_lo pair) it is rejected, the
    message naming region_probability; forged 0.01 decades below the truth (still above the box copies' bound: a
    weaker true claim) it is verified."""
    from conftest import verdict

    document = built(record, 7).certificate
    truth = region_truth(document)
    assert verdict(document).status == "verified"
    found = verdict(forged_past(document, truth))
    assert found.status == "rejected" and "region_probability" in found.message, found.line()
    assert verdict(forged_past(document, truth, "-0.01")).status == "verified"


# ---------------------------------------------------------------------------------------------------------------
# 2. B_r^+ lies in the region: the records' oracles at points of B_r^+ outside the box
# ---------------------------------------------------------------------------------------------------------------

def tails_of(document: dict) -> tuple[Fraction, Fraction]:
    return F(document["base_point"]["u"]["elsewhere"]), F(document["base_point"]["v"]["elsewhere"])


def widened_points(document: dict, box_points: list, seed: int) -> list[list[list[Fraction]]]:
    """The box points (u, v, w), each with every tail coordinate u(i), v(i), i >= 2, moved below the box into
    [c - r - 4 sigma, c - r): the first two (the all-minus and all-plus corners in the twin records' lists) to the
    bottom c - r - 4 sigma exactly, the others to c - r - 4 sigma k/1000, k uniform in 1..1000 (exact). Each box
    point is first checked to be in the box around the certificate's base point (so its tails are the certificate's)."""
    p, r, sigma = int(document["p"]), F(document["radius"]), F(document["parameters"]["sigma"])
    levels = [[F(document["base_point"][name][key]) for key in ("at_0", "at_1")]
              + [F(document["base_point"][name]["elsewhere"])] * (p - 2) for name in "uvw"]
    rng = random.Random(seed)
    out = []
    for index, point in enumerate(box_points):
        point = [[F(x) for x in block] for block in point]
        g = F(document["parameters"].get("g", "0"))  # twin_above's w(j), j >= 2, move within r + g
        assert all(abs(x - c) <= r + (g if (block_index == 2 and index_in >= 2) else 0)
                   for block_index, (block, centre) in enumerate(zip(point, levels))
                   for index_in, (x, c) in enumerate(zip(block, centre)))
        for block, c in zip(point[:2], tails_of(document)):
            for i in range(2, p):
                depth = DEPTH * sigma * (1 if index < 2 else Fraction(rng.randint(1, 1000), 1000))
                block[i] = c - r - depth
                assert c - r - DEPTH * sigma <= block[i] < c - r
        out.append(point)
    return out


def as_fmpq(point) -> list[list[fmpq]]:
    return [[fmpq(x.numerator, x.denominator) for x in block] for block in point]


def tail_gates_negative(gates, p: int) -> None:
    """Every gate u(i) + v(j) with i >= 2 or j >= 2 (the gates reading a tail) is < 0."""
    for a in range(p):
        for k in range(p):
            if a >= 2 or k >= 2:
                assert gates[a][k] < 0, (a, k)


def lower_ends(node: dict) -> dict:
    return {name: mpq(component["lo"]) for name, component in node["components"].items()}


def check_staircase(made, point) -> None:
    """U_stair (S.10) at the point, by tests/test_kernel_staircase.py's oracle: the pattern margins exactly (rational
    gates), the loss margin 2 log 2 + 2/((p - 1) rho) - Lambda at 40 digits, delta > 0 (its own, not the box's)."""
    document, p = made.certificate, made.params.p
    claims = document["claims"]
    theta = point[0] + point[1] + point[2]
    _, lam, threshold, delta, _ = staircase_oracle.oracle(theta, p)
    exact_z, gamma = staircase_oracle.exact_gates(theta, p)
    margins = {name: F(component["lo"]) for name, component in claims["pattern_box"]["components"].items()}
    assert min(exact_z[0][0], exact_z[0][1], exact_z[1][0]) >= margins["active_gates"]
    assert -exact_z[1][1] >= margins["gate_11"]
    assert min(-exact_z[0][j] for j in range(2, p)) >= margins["boundary_gates"]
    assert min(-exact_z[j][0] for j in range(2, p)) >= margins["boundary_gates"]
    others = [exact_z[a][b] for a in range(1, p) for b in range(1, p) if (a, b) != (1, 1)]
    assert min(-t for t in others) >= margins["other_gates"]
    assert min(gamma) >= margins["gamma_min"]
    with mp.workdps(40):
        assert threshold - lam >= mpq(claims["loss_margin_box"]["lo"]) - ROUNDING
        assert delta > 0
    tail_gates_negative(exact_z, p)


def check_twin(made, point) -> None:
    """U_II (S.29) at the point, by tests/test_kernel_twin.py's oracle (quantities, phi, capture), against the
    certificate's stored ends: the pattern, b0 <= b_+, the window's two budgets, the cone and growth of the capture,
    the capture time."""
    document, params, p = made.certificate, made.params, made.params.p
    claims = document["claims"]
    q = twin_oracle.quantities(params, as_fmpq(point))
    gates, pattern = q["gates"], lower_ends(claims["pattern_box"])
    assert min(gates[0][0], gates[0][1], gates[1][0]) >= pattern["active_gates"] - ROUNDING
    assert -gates[1][1] >= pattern["gate_11"] - ROUNDING
    assert -max(max(gates[0][2:]), max(gates[j][0] for j in range(2, p))) >= pattern["boundary_gates"] - ROUNDING
    others = [gates[a][k] for a in range(1, p) for k in range(1, p) if (a, k) != (1, 1)]
    assert -max(others) >= pattern["other_gates"] - ROUNDING
    assert min(q["gamma"]) >= pattern["gamma_min"] - ROUNDING
    assert -q["D"] >= pattern["twin_difference"] - ROUNDING
    assert 0 <= q["b"] <= mpq(claims["loss_excess_box"]["hi"]) + ROUNDING
    window = lower_ends(claims["window_box"])
    assert min(1, mp.log(mp.mpf(p) / 4) / 2) - q["b"] >= window["loss_budget"] - ROUNDING
    assert 2 - twin_oracle.phi(q["b"], p, q["rho"]) >= window["force_budget"] - ROUNDING
    kappa, s1max = twin_oracle.capture(params, q)
    capture = lower_ends(claims["capture_box"])
    assert kappa >= capture["cone"] - ROUNDING
    assert mpq(params.s2_max) - s1max**2 >= capture["growth"] - ROUNDING
    assert p**2 * q["zeta"] / kappa <= mpq(claims["capture_time_box"]["hi"]) + ROUNDING
    tail_gates_negative(gates, p)


def assert_twin_pattern(q: dict, pattern: dict, p: int) -> None:
    """The pattern ends shared by U_II^+ and U_II^above at an oracle's point ``q`` (its gates, e = |z11|, gamma, D0):
    the three active gates, the gate (1, 1)'s margin, the boundary and other gates, gamma_min and D."""
    gates = q["gates"]
    assert min(gates[0][0], gates[0][1], gates[1][0]) >= pattern["active_gates"] - ROUNDING
    assert q["e"] >= pattern["gate_11"] - ROUNDING
    assert -max(max(gates[0][2:]), max(gates[j][0] for j in range(2, p))) >= pattern["boundary_gates"] - ROUNDING
    other = max(gates[a][k] for a in range(1, p) for k in range(1, p) if (a, k) != (1, 1))
    assert -other >= pattern["other_gates"] - ROUNDING
    assert min(q["gamma"]) >= pattern["gamma_min"] - ROUNDING
    assert q["D0"] >= pattern["positive_difference"] - ROUNDING


def check_twin_plus(made, point) -> None:
    """U_II^+ (S.34) at the point, by tests/test_kernel_twin_plus.py's oracle (quantities), against the stored ends:
    the pattern, b0 <= b_+, the window, the four capture margins (reach reads the gates other than the three: they
    only fell), the capture time."""
    document, params, p = made.certificate, made.params, made.params.p
    claims = document["claims"]
    q = twin_plus_oracle.quantities(params, as_fmpq(point))
    gates, pattern = q["gates"], lower_ends(claims["pattern_box"])
    assert_twin_pattern(q, pattern, p)
    assert q["b0"] <= mpq(claims["loss_excess_box"]["hi"]) + ROUNDING
    assert q["window"] >= mpq(claims["window_box"]["lo"]) - ROUNDING
    capture = lower_ends(claims["capture_box"])
    assert set(q["margins"]) == set(capture)
    for name, margin in q["margins"].items():
        assert margin >= capture[name] - ROUNDING, name
    assert q["t_c"] <= mpq(claims["capture_time_box"]["hi"]) + ROUNDING
    tail_gates_negative(gates, p)


def check_twin_above(made, point) -> None:
    """U_II^above (S.36) at the point, by tests/test_kernel_twin_above.py's oracle (quantities, stored), as that
    module's box test checks it, without the purity end (delta > 0 only: the point's own delta of (S.37))."""
    document, params, p = made.certificate, made.params, made.params.p
    q = twin_above_oracle.quantities(params, point)
    ends = twin_above_oracle.stored(document)
    gates, pattern, capture = q["gates"], ends["pattern"], ends["capture"]
    assert_twin_pattern(q, pattern, p)
    assert gates[0][0] - q["e"] >= pattern["gate_order"] - ROUNDING
    assert 0 < q["b0"] <= ends["b_hi"] + ROUNDING
    assert q["window"] >= ends["window"] - ROUNDING
    assert set(q["margins"]) == set(capture)
    for name, margin in q["margins"].items():
        assert margin >= capture[name] - ROUNDING, name
    assert mp.sqrt(twin_above_oracle.F_0(p)) + q["rho_plus"] < 2 and q["delta"] > 0
    assert q["t_c"] <= ends["t_c"] + ROUNDING
    tail_gates_negative(gates, p)


def box_points_of(record: str, made, count: int) -> list:
    """The box points the record's own test draws (its box_points, its seed p; staircase: seed 0), as (u, v, w)."""
    p, radius = made.params.p, made.radius
    if record == "staircase":
        flat = list(staircase_oracle.box_points(made.params, F(radius), count))
        return [[theta[:p], theta[p:2 * p], theta[2 * p:]] for theta in flat]
    module = {"twin": twin_oracle, "twin_plus": twin_plus_oracle, "twin_above": twin_above_oracle}[record]
    return module.box_points(made.params, radius, count, seed=p)


CHECKS = {"staircase": check_staircase, "twin": check_twin, "twin_plus": check_twin_plus,
          "twin_above": check_twin_above}


@pytest.mark.parametrize("p", [5, 31])
@pytest.mark.parametrize("record", RECORDS)
def test_points_of_the_widened_box_below_the_box_are_in_the_region(record, p):
    """Lemma S.18 by the records' own mpmath oracles (40 digits): at 12 points of B_r^+ outside the box (the record's
    test's box points, each with all 2 (p - 2) tails moved below the box: to the bottom c - r - 4 for the two
    extreme corners, to random exact depths for the rest), every margin of the region's definition the oracle
    computes is at least the certificate's stored lower end (upper ends: b_+ and the capture time), as at the box's
    points, and every gate reading a tail is negative. The purity end is not asserted (section 11.14: delta reads
    C_+, which grows with the tails), only the point's own delta > 0 where the oracle computes it."""
    made = built(record, p)
    points = widened_points(made.certificate, box_points_of(record, made, 12), seed=1000 + p)
    assert len(points) == 12
    for point in points:
        CHECKS[record](made, point)


def test_the_purity_end_of_the_box_is_not_kept_at_the_bottom_of_the_widened_box():
    """Why the purity margin is left out above (and a control that the moved points are not box points): at
    twin_above's base point with every tail at the bottom c - r - 4, delta of (S.37) by the module's oracle is below
    the box's stored end (C_+ there is 195, against 14.5 at the base point), while at the base point itself it is
    above it. On the sup-norm box (g = 0), whose purity end is the largest: the default g spends most of it on rho_+
    (section 11.13), so there the end sits below both."""
    made = BUILDERS["twin_above"](5, g=fmpq(0))
    base = twin_above_oracle.base_point(made.params)
    delta_end = twin_above_oracle.stored(made.certificate)["delta"]
    assert twin_above_oracle.quantities(made.params, base)["delta"] > delta_end
    bottom = widened_points(made.certificate, [base], seed=0)[0]
    assert twin_above_oracle.quantities(made.params, bottom)["delta"] < delta_end


# ---------------------------------------------------------------------------------------------------------------
# 3. the float flow from the bottom of twin_above's B_r^+
# ---------------------------------------------------------------------------------------------------------------

def test_the_float_flow_from_the_bottom_of_the_widened_box_is_captured_from_above_by_the_certified_time():
    """Proposition S3.4 from points of B_r^+ outside the box, by the full-network float flow of certify.law.flow
    (twin_above, p = 5, horizon 10^4): from the base point and one corner (certify.numeric.staircase.staircase_points),
    each with every tail u(i), v(i), i >= 2, lowered to the bottom c - r - 4, the flow keeps z00, z01, z10 > 0, every
    gate but the four < 0 and the boundary gates <= the kink tolerance; z11 stays at most max(e0 - h t/p^2, 0) and
    never below its kink, and is on its kink at every checkpoint from the first at or after the certified t_c; D
    stays in [-tolerance, D0] and D >= D_- while z11 is above its kink. Tolerances: tests/test_kernel_twin_above.py's
    FLOAT_SLACK (2.5e-6), whose estimate needs every coordinate below 6 in size (asserted: the deepest tail is
    -1.75 - r - 4 = -5.757) and at most MAX_EVALUATIONS steps (asserted). The purity bound is the box's, not
    asserted (section 11.14)."""
    import numpy as np

    from certify.numeric.staircase import staircase_points

    p = 5
    document = built("twin_above", p).certificate
    r = F(document["radius"])
    bottoms = [float(c - r - DEPTH) for c in tails_of(document)]
    for theta0 in staircase_points(document)[:2]:
        theta0 = np.array(theta0)
        theta0[2:p], theta0[p + 2:2 * p] = bottoms
        twin_above_oracle.captured_from_above(document, theta0, 1e4)


# ---------------------------------------------------------------------------------------------------------------
# 4. product_log_mass
# ---------------------------------------------------------------------------------------------------------------

def contains(x, value) -> bool:
    """The ball x contains the mpmath value: its midpoint read at 60 digits and its radius at 10 (so the radius is
    read to 10^-9 relative: 10^-8 of it allowed), the value trusted to 10^-45 relative (interval_mass's estimate at
    60 digits, with the cancellation factors below 10^12 asserted there)."""
    mid = mp.mpf(x.mid().str(60, radius=False, more=True))
    rad = mp.mpf(x.rad().str(10, radius=False, more=True))
    return abs(mid - value) <= rad * (1 + mp.mpf(10) ** -8) + abs(value) * mp.mpf(10) ** -45


def q_(value) -> fmpq:
    value = F(value)
    return fmpq(value.numerator, value.denominator)


#: (centre, radius, count): off-centre intervals of different radii, a tail-like one [c - r - 4, c + r] (centre
#: c - 2, radius r + 2), one straddling 0 asymmetrically, a far one and a narrow one.
INTERVALS = [(Fraction(-7, 2), Fraction(500213, 250000), 3), (Fraction(2047, 1000), Fraction(213, 250000), 1),
             (Fraction(1, 3), Fraction(3, 4), 2), (Fraction(-12), Fraction(1, 2), 1),
             (Fraction(5), Fraction(1, 10**6), 4), (Fraction(-1, 10), Fraction(7, 5), 5)]


def expected_log_mass(intervals, sigma=1) -> mp.mpf:
    """sum k log P(m - r <= sigma Z <= m + r) by interval_mass at 60 digits."""
    sigma = F(sigma)
    with mp.workdps(MASS_DPS):
        return mp.fsum(k * mp.log(interval_mass((m - r) / sigma, (m + r) / sigma)) for m, r, k in intervals)


def test_product_log_mass_contains_the_ncdf_product_for_intervals_of_different_radii():
    """product_log_mass over intervals of six different centres and radii (at 192 bits) contains the sum of k log of
    mpmath's ncdf differences, and is tight (radius below 10^-40)."""
    from certify.kernel.gaussian import product_log_mass

    with working_precision(192):
        total = product_log_mass([(q_(m), q_(r), k) for m, r, k in INTERVALS])
    with mp.workdps(MASS_DPS):
        assert contains(total, expected_log_mass(INTERVALS))
        assert mp.mpf(total.rad().str(10, radius=False)) < mp.mpf(10) ** -40


def test_product_log_mass_with_one_radius_is_box_log_mass():
    """With every radius equal, product_log_mass and box_log_mass (which now calls it) give the same ball, and it
    contains the ncdf route's value."""
    from certify.kernel.gaussian import box_log_mass, product_log_mass

    r = Fraction(6, 25)
    centres = [(Fraction(1, 2), 2), (Fraction(-1), 24), (Fraction(-2), 1), (Fraction(0), 12), (Fraction(40), 1)]
    with working_precision(192):
        product = product_log_mass([(q_(m), q_(r), k) for m, k in centres], q_(Fraction(3, 2)))
        box = box_log_mass([(q_(m), k) for m, k in centres], q_(r), q_(Fraction(3, 2)))
    assert product.mid() == box.mid() and product.rad() == box.rad()
    with mp.workdps(MASS_DPS):
        assert contains(product, expected_log_mass([(m, r, k) for m, k in centres], Fraction(3, 2)))


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(7, 3), Fraction(1, 1000)])
def test_product_log_mass_under_a_scale_sigma(sigma):
    """Under N(0, sigma^2) the intervals' mass is the standard one of the intervals divided by sigma: the ball at
    sigma contains the ncdf route's value at the scaled ends, and overlaps the ball of the pre-divided intervals at
    sigma = 1."""
    from certify.kernel.gaussian import product_log_mass

    intervals = INTERVALS if sigma >= Fraction(1, 2) else [(m * sigma, r * sigma, k) for m, r, k in INTERVALS]
    with working_precision(192):
        scaled = product_log_mass([(q_(m), q_(r), k) for m, r, k in intervals], q_(sigma))
        standard = product_log_mass([(q_(m / sigma), q_(r / sigma), k) for m, r, k in intervals])
    assert scaled.overlaps(standard)
    with mp.workdps(MASS_DPS):
        assert contains(scaled, expected_log_mass(intervals, sigma))


@pytest.mark.parametrize("bad", [Fraction(0), Fraction(-1, 100)])
@pytest.mark.parametrize("position", [0, 3, 5])
def test_product_log_mass_refuses_a_radius_that_is_not_positive_in_any_one_interval(bad, position):
    """One interval with radius 0 or negative among positive ones: NotCertified, wherever it sits in the list."""
    from certify.kernel.gaussian import product_log_mass

    intervals = [(q_(m), q_(bad if index == position else r), k) for index, (m, r, k) in enumerate(INTERVALS)]
    with working_precision(128), pytest.raises(NotCertified, match="radius"):
        product_log_mass(intervals)


# ---------------------------------------------------------------------------------------------------------------
# 5. Coq: the widened mass, and a forged widened bound refused
# ---------------------------------------------------------------------------------------------------------------

def coq_term(text: str, start: int) -> tuple[str, int]:
    """The Coq term at text[start:]: a balanced parenthesis group or a bare token; (term, index after it)."""
    if text[start] == "(":
        depth = 0
        for index in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            if depth == 0:
                return text[start:index + 1], index + 1
    end = start
    while end < len(text) and text[end] not in " )":
        end += 1
    return text[start:end], end


def coq_rational(term: str) -> Fraction:
    """A rational literal as certify writes it ("1", "(- (7 / 2))", "(213 / 250000)"), evaluated exactly."""
    assert re.fullmatch(r"[\d()/\- ]+", term), term
    return eval(re.sub(r"\d+", lambda found: f"Fraction({found.group(0)})", term), {"Fraction": Fraction})


def widened_mass_factors(text: str) -> list[tuple[Fraction, Fraction, int]]:
    """(centre, radius, power) of each factor gaussian_probability_mass M R ^ k of the Definition
    region_probability_widened_box_mass."""
    body = re.search(r"^Definition region_probability_widened_box_mass : R := (.*)\.$", text, flags=re.M).group(1)
    factors, word = [], "gaussian_probability_mass "
    for found in re.finditer(re.escape(word), body):
        centre, index = coq_term(body, found.end())
        radius, index = coq_term(body, index + 1)
        power = re.match(r" \^ (\d+)", body[index:]).group(1)
        factors.append((coq_rational(centre), coq_rational(radius), int(power)))
    return factors


@pytest.fixture(scope="module")
def compiled_twin_plus(tmp_path_factory):
    """twin_plus at p = 5 with its two probability claims, exported to Coq: honest; region_probability forged to
    log10_lo 0.01 decades past the widened truth (the ncdf route) with lo its consistent twin; the same forgery with
    the log10_lo lemma admitted (so that coqc reaches the lo lemma)."""
    from certify.coq.export import coq_file
    from coqtext import compile_texts, with_forged_twin_admitted

    document = copy.deepcopy(built("twin_plus", 5).certificate)
    document["claims"] = {name: document["claims"][name] for name in ("gaussian_probability", "region_probability")}
    truth = region_truth(document)
    forged = forged_past(document, truth)
    forged_text = coq_file(forged).text
    log10_lemma = re.search(r"^Lemma (region_probability_log10_lo_\d+_digits) :", forged_text, flags=re.M).group(1)
    texts = {"honest": coq_file(document).text, "log10_lo": forged_text,
             "lo": with_forged_twin_admitted(forged_text, [log10_lemma])}
    results = compile_texts(tmp_path_factory.mktemp("coq_widened"), texts, timeout=300)
    return document, truth, {name: (texts[name], results[name]) for name in texts}


def test_coq_states_the_widened_mass_and_refuses_a_region_bound_forged_past_it(compiled_twin_plus):
    """coqc (required, as in tests/test_coq_twin_plus.py: compile_texts fails without it): the honest twin_plus file
    (p = 5, its probability claims) compiles; its Definition region_probability_widened_box_mass is the product of
    the standard masses of B_r^+'s intervals (centre and radius in units of sigma, parsed from the Coq text and
    compared exactly with the intervals written here from the base point: tails centred at c - 2, radius r + 2), and
    the region lemmas are stated against it. A region_probability forged 0.01 decades past the widened truth (log10_lo
    and its twin lo) is refused in region_probability_log10_lo_*; with that lemma admitted, in
    region_probability_lo_*."""
    from coqtext import failing_lemma, lemma_names

    document, _, results = compiled_twin_plus
    text, result = results["honest"]
    assert result.ok, result.message
    assert "Definition region_probability_widened_box_mass : R :=" in text
    expected = sorted(((a + b) / 2, (b - a) / 2, k) for a, b, k in widened_intervals(document))
    assert sorted(widened_mass_factors(text)) == expected
    assert any(r > 2 for _, r, _ in expected)  # the tails' intervals are there, r + 2 wide
    names = lemma_names(text)
    log10_lemma = next(name for name in names if re.fullmatch(r"region_probability_log10_lo_\d+_digits", name))
    statement = re.search(rf"^Lemma {log10_lemma} :\n(.*)$", text, flags=re.M).group(1)
    assert "ln region_probability_widened_box_mass" in statement and "gaussian_probability_box_mass" not in statement
    assert "ln region_probability_translates_factor" in statement
    # the translates' factor is (S.40)'s, r written in units of sigma (sigma = 1 here)
    factor = re.search(r"^Definition region_probability_translates_factor : R := (.*)\.$", text, flags=re.M).group(1)
    assert factor == f"PI / (2 * sqrt 2 * 5 * ({F(document['radius']).numerator} / {F(document['radius']).denominator}) ^ 2)"
    for field in ("log10_lo", "lo"):
        forged_text, forged_result = results[field]
        assert not forged_result.ok, f"coqc accepted region_probability.{field} forged past the widened truth"
        failing = failing_lemma(forged_text, forged_result) or ""
        assert re.fullmatch(rf"region_probability_{field}_\d+_digits", failing), forged_result.message


def test_coq_exports_the_widened_mass_when_a_w_level_equals_a_tail_level(tmp_path):
    """The Coq export names the box-mass lemma of each distinct centre after the first coordinate holding it
    (gaussian_probability_u_elsewhere_mass_lower when a w level equals the tail level of u), and the widened mass
    must prove the non-tail coordinates' masses with those lemmas. A staircase certificate (p = 5, X = 20, s = 1/2,
    D = 1/4, E = 209/8: w(j) = -(2E + D)/p = -21/2 = u(j) = -X/2 - s for j >= 2) is certified and verified; its
    probability claims' Coq file must compile."""
    from certify.coq.export import coq_file
    from conftest import verdict
    from coqtext import compile_texts

    made = certify_staircase(5, X=fmpq(20), s=fmpq(1, 2), D=fmpq(1, 4), E=fmpq(209, 8))
    document = copy.deepcopy(made.certificate)
    tails = F(document["base_point"]["u"]["elsewhere"])
    assert F(document["base_point"]["w"]["elsewhere"]) == tails == Fraction(-21, 2)
    assert verdict(document).status == "verified"
    check_region_bound(document)
    document["claims"] = {name: document["claims"][name] for name in ("gaussian_probability", "region_probability")}
    result = compile_texts(tmp_path, {"collision": coq_file(document).text}, timeout=300)["collision"]
    assert result.ok, result.message


# ---------------------------------------------------------------------------------------------------------------
# 6. memorise (k = 1): still the box
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [5, 31])
def test_the_memorise_region_bound_still_counts_copies_of_the_box(p):
    """certify staircase --k 1 (Theorem S1's memorise certificate, the same as certify memorise): region_probability
    is p^2 translated copies of the box (log10 gap to gaussian_probability = log10(p^2) within 10^-20: both ends are
    written to about 36 digits), its words do not mention B+, and its Coq lemmas are the box's (no widened mass)."""
    from certify.coq.export import coq_file

    made = certify_staircase(p, k=1)
    assert made.certificate == certify_memorise(p).certificate
    claims = made.certificate["claims"]
    gap = mp.mpf(claims["region_probability"]["log10_lo"]) - mp.mpf(claims["gaussian_probability"]["log10_lo"])
    assert abs(gap - mp.log10(p * p)) < mp.mpf("1e-20")
    assert "widened" not in claims["region_probability"]["statement"]
    document = copy.deepcopy(made.certificate)
    document["claims"] = {name: claims[name] for name in ("gaussian_probability", "region_probability")}
    text = coq_file(document).text
    assert "widened" not in text
    assert re.search(r"^Lemma region_probability_log10_lo_\d+_digits :\n.*ln gaussian_probability_box_mass", text,
                     flags=re.M)
