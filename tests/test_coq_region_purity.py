"""certify.coq.region_purity: dead's region_purity_probability in Coq (docs/coq.md, 'The purity claim in Coq').

Checked here: every end the route proves (cbar_i, Hbar_i, T_i, the Abel sum, mu) against an independent route (mpmath's
regularized incomplete beta and Beta function instead of the binomial sum and factorials, Gamma(p + 1/2) / Gamma(p)
instead of the central binomial, mpmath's quadrature of the spacing's tail with its own normal distribution and its
regularized incomplete gamma instead of the fit of G and the Poisson sum); the Coq text of the tube's and the tails'
definitions evaluated against the same oracles; the route's number against the kernel's bound (within 10^-13 where
both use Markov, p > 50; at or above it with radius tails, p <= 50); the claim listed as not exported, with its
reason, when the route cannot reach the kernel and for bad components or margins; and a forged end of each component
refused by coqc in its own lemma (at p = 97, and the margin with radius tails at p = 13).
"""

import math
import re
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.certificate import parse_certificate
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.region import region_proof
from certify.coq.region_purity import MAX_SLACK, _slack, dead_purity_lemmas, purity_route
from certify.kernel.dead import PURITY_PRECISION
from certify.kernel.region_purity import dead_region_purity_log_probability_lower
from conftest import ROOT
from coqtext import failing_lemma, region_forgeries_past, region_only
from oracles import spacing_tail

CLAIM = "region_purity_probability"
LIBRARY = {int(path.stem.split("-")[1]): path for path in (ROOT / "proofs" / "dead").glob("dead-*.json")}
DELTA = fmpq(1, 100)


def _mp(q) -> mpmath.mpf:
    q = Fraction(int(q.p), int(q.q)) if isinstance(q, fmpq) else Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _purity_only(p: int) -> dict:
    return region_only(LIBRARY[p], CLAIM)


def _deficit_oracle(p: int, c) -> mpmath.mpf:
    """P(rho < c / B) = P(B <= c) + c^k E[B^-k; B > c] (docs/purity-tube.md, step (B)) with mpmath's regularized
    incomplete beta and Beta function: independent of the binomial sum and the factorials the exporter writes."""
    a, k = mpmath.mpf(p - 1) / 2, mpmath.mpf(p - 3) / 2
    return mpmath.betainc(a, p, 0, c, regularized=True) + c ** k * (1 - c) ** p / (p * mpmath.beta(a, p))


@pytest.mark.parametrize("p", [97, 101])
def test_every_end_bounds_its_quantity_by_an_independent_route(p):
    """cbar_i >= kappa(mu z_i)^2, Hbar_i >= (p - 1)/2 P(rho < cbar_i / B), T_i >= E / (z_i E[sqrt Q]) (E the dead
    route's bound of E[S], E[sqrt Q] = sqrt 2 Gamma(p + 1/2) / Gamma(p)), each end within 10^-18 of its quantity; the
    ends Hbar nondecreasing in [0, 1]; the Abel sum recomputed; mu >= lambda - sqrt(lambda^2 - 1)."""
    bracket = purity_route(p, DELTA)
    with mpmath.workdps(40):
        mean_root_q = mpmath.sqrt(2) * mpmath.gamma(p + mpmath.mpf(1) / 2) / mpmath.gamma(p)
        spacing = _mp(region_proof(p).spacing_hi)
        tight = 1 + mpmath.mpf(10) ** -18
        for z, c, h, t in zip(bracket.grid, bracket.cbar, bracket.hbar, bracket.tails):
            if h < 1:
                e = _mp(bracket.mu) * _mp(z)
                kappa = e + mpmath.sqrt(_mp(DELTA)) * (1 + e)
                assert kappa ** 2 <= _mp(c) < 1 and _mp(c) <= kappa ** 2 * tight
                value = (p - 1) * _deficit_oracle(p, _mp(c)) / 2
                assert value <= _mp(h) <= value * tight
            if t < 1:
                markov = spacing / (_mp(z) * mean_root_q)
                assert markov <= _mp(t) <= markov * tight
        ends = list(bracket.hbar)
        assert ends == sorted(ends) and 0 <= ends[0] and ends[-1] <= 1 and (ends[-1] == 1) == bracket.saturated
        abel = ends[0] + sum(bracket.tails[i - 1] * (ends[i] - ends[i - 1]) for i in range(1, len(ends)))
        if not bracket.saturated:
            abel += bracket.tails[-1] * (1 - ends[-1])
        assert abel == bracket.lost <= bracket.lost_hi
        if bracket.ratio is not None:
            lam = _mp(bracket.ratio)
            assert lam - mpmath.sqrt(lam ** 2 - 1) <= _mp(bracket.mu)


@pytest.mark.parametrize("p", [97, 101])
def test_the_route_meets_the_kernel_where_both_use_markov(p):
    """Above p = 50 the kernel bounds the tail of Z by Markov too: the route's number (kept - lost) / (C(2p, p) - 1)
    lies within 10^-13 (relative) of the kernel's bound, recomputed here; the slack the claim lemmas lower lo by is
    at most MAX_SLACK and covers the gap; the certificate's lo, lowered by it, lies below the route's number."""
    bracket = purity_route(p, DELTA)
    slack = _slack(p, DELTA, bracket)
    assert slack is not None and slack <= MAX_SLACK
    kernel_log = dead_region_purity_log_probability_lower(p, DELTA, PURITY_PRECISION)
    with mpmath.workdps(40):
        route = _mp(bracket.value) / (mpmath.binomial(2 * p, p) - 1)
        kernel = mpmath.exp(_mp(kernel_log.mid().fmpq()))
        assert abs(route / kernel - 1) < mpmath.mpf(10) ** -13
        assert mpmath.log(kernel) - mpmath.log(route) <= _mp(slack)
        lo = _mp(Fraction(_purity_only(p)["claims"][CLAIM]["components"]["purity_margin"]["lo"]))
        assert lo * (1 - 4 * _mp(slack)) < route


def _python(body: str, **functions):
    """A Coq ``fun v1 v2 ... => ...`` body of +, -, *, /, ^, sqrt, exp, integer literals and the ``functions`` (named
    region_..., applied to a variable or a parenthesised sum) as a Python function on mpf."""
    variables, expression = re.fullmatch(r"fun ([\w ]+?) => (.*)", body, flags=re.S).groups()
    expression = re.sub(r"\b(region_\w+) (\([^()]*\)|\w+)", r"\1(\2)", expression)
    expression = re.sub(r"\b(\d+)\b", r"mpf(\1)", expression.replace("^", "**"))
    names = {"mpf": mpmath.mpf, "sqrt": mpmath.sqrt, "exp": mpmath.exp, **functions}
    return eval(f"lambda {', '.join(variables.split())}: {expression}", names)  # noqa: S307 (the exporter's text)


def test_the_tube_definitions_transcribe_the_paper_formulas():
    """The Coq bodies of I_c(a, p), P(rho < c/B) and kappa at p = 97, evaluated as written, against mpmath's
    regularized incomplete beta (the binomial form is an identity at integer parameters) and the definition of
    kappa: a transcription that enlarged the bound would meet no forgery test."""
    p = 97
    items = {item.name: item for item in dead_purity_lemmas(_purity_only(p), route_present=False)
             if hasattr(item, "body")}
    ibeta = _python(items["region_purity_ibeta"].body)
    deficit = _python(items["region_purity_deficit"].body, region_purity_ibeta=ibeta)
    kappa = _python(items["region_purity_kappa"].body)
    with mpmath.workdps(40):
        mu = _mp(purity_route(p, DELTA).mu)
        a = mpmath.mpf(p - 1) / 2
        # relative only (abs_eps 0: the values reach 10^-58); c = 0.99 weighs the top of the binomial range
        for c in (mpmath.mpf("0.01"), mpmath.mpf("0.2"), mpmath.mpf("0.35"), mpmath.mpf("0.6"), mpmath.mpf("0.99")):
            assert mpmath.almosteq(ibeta(c), mpmath.betainc(a, p, 0, c, regularized=True), rel_eps=mpmath.mpf(10) ** -30,
                                   abs_eps=0)
            assert mpmath.almosteq(deficit(c), _deficit_oracle(p, c), rel_eps=mpmath.mpf(10) ** -30, abs_eps=0)
        z = mpmath.mpf("0.3")
        assert mpmath.almosteq(kappa(z), mu * z + mpmath.mpf("0.1") * (1 + mu * z), rel_eps=mpmath.mpf(10) ** -35)


def _exact(text: str) -> Fraction:
    """A Coq expression of integer literals, +, -, * and / (the exporter's rationals and the Abel sum), exactly."""
    python = re.sub(r"\b(\d+)\b", r"Fraction(\1)", text)
    assert re.fullmatch(r"[Fraction()\d+\-*/ ]*", python), text
    return eval(python, {"Fraction": Fraction})  # noqa: S307 (a test evaluates the exporter's text)


NUMBER = r"(\(?-?[\d ]+(?:/ \d+)?\)?)"


@pytest.mark.parametrize("p", [13, 97, 101])
def test_each_end_has_its_lemma_and_each_lemma_its_formula(p):
    """The Coq text, not only the Python numbers: a tube lemma for every Hbar_i < 1 and a tail lemma for every T_i < 1
    that the Abel sum uses, each statement parsed back (its grid point, factor (p - 1)/2, end; Markov's z, p,
    C(2p, p) and 4^p, in the statement and in the proof's intermediate term) and checked against the oracle; the
    Definition of the Abel sum evaluated exactly (it must equal the bracket's sum)."""
    bracket = purity_route(p, DELTA)
    items = {item.name: item for item in dead_purity_lemmas(_full(p), route_present=True)}
    last = len(bracket.grid) - 1
    tubes = {int(name.rsplit("_", 1)[1]) for name in items if re.fullmatch(r"region_purity_tube_\d+", name)}
    tails = {int(name.rsplit("_", 1)[1]) for name in items if re.fullmatch(r"region_purity_tail_\d+", name)}
    assert tubes == {i for i, h in enumerate(bracket.hbar) if h < 1}
    assert tails == {i for i, t in enumerate(bracket.tails) if t < 1 and not (bracket.saturated and i == last)}
    with mpmath.workdps(40):
        mean_root_q = mpmath.sqrt(2) * mpmath.gamma(p + mpmath.mpf(1) / 2) / mpmath.gamma(p)
        spacing = _mp(region_proof(p).spacing_hi)
        for i in tubes:
            match = re.fullmatch(rf"\({p} - 1\) / 2 \* region_purity_deficit {NUMBER} <= {NUMBER}",
                                 items[f"region_purity_tube_{i}"].statement)
            assert match, items[f"region_purity_tube_{i}"].statement
            c, end = (_exact(group) for group in match.groups())
            assert (c, end) == (Fraction(str(bracket.cbar[i])), Fraction(str(bracket.hbar[i])))
            assert (p - 1) * _deficit_oracle(p, _mp(c)) / 2 <= _mp(end)
            point = re.fullmatch(rf"region_purity_kappa {NUMBER} \^ 2 <= {NUMBER} < 1",
                                 items[f"region_purity_point_{i}"].statement)
            assert point and _exact(point.group(1)) == Fraction(str(bracket.grid[i])) and _exact(point.group(2)) == c
        radius = set(_radius_points(bracket))
        assert radius <= tails and (p > 50) == (not radius)
        proved = {}  # i -> the end that region_purity_tail_i proves for region_purity_T_i
        for i in tails:
            match = re.fullmatch(rf"region_purity_T_{i} <= {NUMBER}", items[f"region_purity_tail_{i}"].statement)
            assert match, items[f"region_purity_tail_{i}"].statement
            proved[i] = _exact(match.group(1))
            assert proved[i] == Fraction(str(bracket.tails[i]))
        for i in radius:
            match = re.fullmatch(rf"region_purity_spacing_tail {NUMBER} \({NUMBER} \* {NUMBER}\) / \(exp \(- \({NUMBER} "
                                 rf"\^ 2 / 2\)\) \* region_purity_poisson \({NUMBER} \^ 2 / 2\)\)",
                                 items[f"region_purity_T_{i}"].body)
            assert match, items[f"region_purity_T_{i}"].body
            _, z, r, r_again, r_third = (_exact(group) for group in match.groups())
            assert r == r_again == r_third and z == Fraction(str(bracket.grid[i]))
            chi = mpmath.gammainc(p, _mp(r) ** 2 / 2, mpmath.inf, regularized=True)
            assert spacing_tail(p, _mp(z) * _mp(r)) / chi <= _mp(proved[i])
        for i in tails - radius:
            match = re.fullmatch(rf"region_spacing_bound / \({NUMBER} \* \(sqrt \(2 \* PI\) \* (\d+) \* "
                                 rf"region_central_binomial / 4 \^ (\d+)\)\)", items[f"region_purity_T_{i}"].body)
            assert match, items[f"region_purity_T_{i}"].body
            z, factor, power = match.groups()
            assert (int(factor), int(power)) == (p, p) and _exact(z) == Fraction(str(bracket.grid[i]))
            assert _mp(Fraction(str(bracket.grid[i]))) * mean_root_q * _mp(proved[i]) >= spacing
            assert f"* {p} * {math.comb(2 * p, p)} / 4 ^ {p}))" in items[f"region_purity_tail_{i}"].proof
        # the Abel sum names each T_i whose lemma exists (1 elsewhere) and the tube lemmas' ends, in grid order: with
        # each T_i replaced by its proved end it is the bracket's sum, and recomputed here from the parsed ends
        body = items["region_purity_lost"].body
        assert set(int(i) for i in re.findall(r"region_purity_T_(\d+)", body)) == tails
        ends = [Fraction(str(h)) for h in bracket.hbar]
        for i in tubes:
            assert ends[i] == _exact(re.fullmatch(rf".* <= {NUMBER}", items[f"region_purity_tube_{i}"].statement).group(1))
        weights = [proved.get(i, Fraction(1)) for i in range(len(ends))]
        abel = ends[0] + sum(weights[i - 1] * (ends[i] - ends[i - 1]) for i in range(1, len(ends)))
        if ends[-1] < 1:
            abel += weights[-1] * (1 - ends[-1])
        evaluated = _exact(re.sub(r"region_purity_T_(\d+)", lambda m: f"({proved[int(m.group(1))]})", body)
                           .replace("/", " / "))
        assert evaluated == abel == Fraction(str(bracket.lost))


@pytest.mark.parametrize("p", [97, 101])
def test_the_claim_lemmas_state_both_components_to_fifteen_digits(p):
    """Both components stated (no not-exported entry), each lo and log10_lo lemma lowered by the slack and named
    with its digits, at least 15; the route's lemmas present once (after region_probability's in the full file)."""
    document = _purity_only(p)
    items = dead_purity_lemmas(document, route_present=False)
    lemmas = [item for item in items if isinstance(item, Lemma) and item.claim == CLAIM]
    for component in ("not_single_frequency", "purity_margin"):
        for field in ("lo", "log10_lo"):
            (claim_lemma,) = [item for item in lemmas if re.fullmatch(rf"{CLAIM}_{component}_{field}_\d+_digits", item.name)]
            assert claim_lemma.digits >= 15
    full = coq_file(_full(p))
    assert CLAIM not in {item.claim for item in full.not_exported}
    assert len(re.findall(r"^Lemma region_spacing_bound_upper :", full.text, flags=re.M)) == 1


def _full(p: int) -> dict:
    return parse_certificate(LIBRARY[p].read_bytes())


def _radius_points(bracket) -> list[int]:
    return [i for i, ends in enumerate(bracket.radius_tails) if ends is not None]


@pytest.mark.parametrize("p", [5, 13, 31])
def test_radius_tails_bound_the_tail_by_an_independent_route(p):
    """Where the route uses a radius r_i (p <= 50): T_i >= P(S > z_i r_i) / P(Q >= r_i^2) (mpmath's quadrature and its
    regularized upper incomplete gamma, P(chi^2_2p >= r^2) = Q(p, r^2/2)) and within 1% of it (the fit and the
    integral's gap cost 0.1-0.2%: a larger gap is a wrong quantity, not a rounding); the spacing end above the
    window's bound plus the outer pieces, the Poisson end below its sum."""
    bracket = purity_route(p, DELTA)
    points = _radius_points(bracket)
    assert points, "no radius tail at p <= 50"
    with mpmath.workdps(30):
        for i in points:
            ends = bracket.radius_tails[i]
            tail = spacing_tail(p, _mp(ends.s))
            chi = mpmath.gammainc(p, _mp(ends.y), mpmath.inf, regularized=True)
            assert _mp(ends.poisson) <= chi <= _mp(ends.poisson) * (1 + mpmath.mpf(10) ** -15)
            assert tail <= _mp(ends.spacing) <= tail * mpmath.mpf("1.01")
            assert tail / chi <= _mp(ends.tail) <= tail / chi * mpmath.mpf("1.01")


def test_the_tail_definitions_transcribe_the_paper_formulas():
    """The Coq text of the tails at p = 13, evaluated as written: the integrand is K^(2p-1) (2 Phi)^(p-1) phi
    (2 Phibar(x + s))^p, the outer pieces C Phi(-a)^p + p C Phibar(a)^p, the Poisson sum e^y P(chi^2_2p >= 2y), and the
    spacing tail p C (2K)^-(2p-1) int_(-a)^(a-s) of the integrand plus the outer pieces, which bounds P(S > s) (the
    oracle) from above within 10^-9 at s = 0.5 and 1: a transcription that enlarged a bound would meet no forgery."""
    p = 13
    items = {item.name: item for item in dead_purity_lemmas(_purity_only(p), route_present=False)
             if hasattr(item, "body")}
    G = lambda x: mpmath.ncdf(x) - mpmath.mpf(1) / 2  # noqa: E731
    phi = mpmath.npdf
    C = mpmath.binomial(2 * p, p)
    with mpmath.workdps(30):
        integrand = _python(items["region_purity_tail_integrand"].body, region_G=G, region_phi=phi)
        k, s, x = mpmath.mpf("1.3"), mpmath.mpf("0.4"), mpmath.mpf("-0.25")
        assert mpmath.almosteq(integrand(k, s, x), k ** (2 * p - 1) * (2 * mpmath.ncdf(x)) ** (p - 1) * phi(x)
                               * (2 * mpmath.ncdf(-x - s)) ** p, rel_eps=mpmath.mpf(10) ** -25)
        poisson = _python(items["region_purity_poisson"].body)
        y = mpmath.mpf("13.5")
        assert mpmath.almosteq(mpmath.exp(-y) * poisson(y), mpmath.gammainc(p, y, mpmath.inf, regularized=True),
                               rel_eps=mpmath.mpf(10) ** -25)
        outside = re.fullmatch(r"region_central_binomial \* \(1 / 2 \+ region_G \(- (.+)\)\) \^ (\d+) \+ (\d+) \* "
                               r"region_central_binomial \* \(1 / 2 - region_G (.+)\) \^ (\d+)",
                               items["region_purity_outside"].body)
        assert outside, items["region_purity_outside"].body
        a_text, power_1, factor, a_again, power_2 = outside.groups()
        assert a_text == a_again and int(power_1) == int(power_2) == int(factor) == p
        a = _mp(_exact(a_text))
        tail = re.fullmatch(rf"fun k s => (\d+) \* region_central_binomial / \(2 \* k\) \^ (\d+) \* "
                            rf"RInt \(region_purity_tail_integrand k s\) \(- {re.escape(a_text)}\) "
                            rf"\({re.escape(a_text)} - s\) \+ region_purity_outside", items["region_purity_spacing_tail"].body)
        assert tail and (int(tail.group(1)), int(tail.group(2))) == (p, 2 * p - 1), items["region_purity_spacing_tail"].body
        pieces = C * (1 - mpmath.ncdf(a)) ** p + p * C * (1 - mpmath.ncdf(a)) ** p
        for s in (mpmath.mpf("0.5"), mpmath.mpf(1)):
            window = mpmath.quad(lambda x: integrand(k, s, x), [-a, -s / 2, a - s])
            value = p * C / (2 * k) ** (2 * p - 1) * window + pieces
            truth = spacing_tail(p, s)
            assert truth <= value <= truth * (1 + mpmath.mpf(10) ** -9)


@pytest.mark.parametrize("p", [5, 13, 23, 29, 31])
def test_the_route_reaches_the_kernel_with_radius_tails(p):
    """At p <= 50 (where the kernel integrates the spacing's tail) the route with radius tails reaches the kernel's
    bound, recomputed here: above it by 10^-20 or more up to p = 23 (slack 0: the claim lemmas state lo and log10_lo in
    full), within 10^-13 at p = 29 and 31 (at least 12 digits); the claim is exported, both components stated."""
    bracket = purity_route(p, DELTA)
    assert _radius_points(bracket)
    slack = _slack(p, DELTA, bracket)
    kernel_log = dead_region_purity_log_probability_lower(p, DELTA, PURITY_PRECISION)
    with mpmath.workdps(40):
        route = mpmath.log(_mp(bracket.value) / (mpmath.binomial(2 * p, p) - 1))
        kernel = _mp(kernel_log.mid().fmpq())
        if p <= 23:
            assert slack == 0 and route - kernel >= mpmath.mpf(10) ** -20
        else:
            assert 0 < slack <= fmpq(1, 10 ** 13) and kernel - route <= _mp(slack)
    items = dead_purity_lemmas(_purity_only(p), route_present=False)
    names = {item.name: item for item in items if isinstance(item, Lemma) and item.claim == CLAIM}
    for field in ("lo", "log10_lo"):
        stem = f"{CLAIM}_purity_margin_{field}"
        (lemma,) = [names[name] for name in names if re.fullmatch(rf"{stem}(_\d+_digits)?", name)]
        assert (lemma.digits is None) if p <= 23 else lemma.digits >= 12
    assert CLAIM not in {item.claim for item in coq_file(_full(p)).not_exported}
    assert "Not exported" not in (ROOT / "proofs" / "dead" / f"dead_{p}.v").read_text()


def test_listed_not_exported_when_the_route_cannot_reach_the_kernel(monkeypatch):
    """With no radius tail allowed the route is Markov's, which falls short of the kernel at p = 13: the claim is
    listed with the reason and the measured shortfall, never half-stated."""
    from certify.coq import region_purity

    monkeypatch.setattr(region_purity, "MAX_RADIUS_TAILS", 0)
    purity_route.cache_clear()
    try:
        items = coq_file(_full(13)).not_exported
    finally:
        purity_route.cache_clear()
    (item,) = [item for item in items if item.claim == CLAIM]
    assert "Markov" in item.reason and "below the kernel's bound" in item.reason


@pytest.mark.parametrize("change, message", [
    (lambda d: d["parameters"].update(purity_margin="1.5"), "not in \\(0, 1\\)"),
    (lambda d: d["claims"][CLAIM]["components"]["purity_margin"].pop("log10_lo"), "log10 twin"),
    (lambda d: d["claims"][CLAIM]["components"].pop("not_single_frequency"), "not the components"),
])
def test_a_bad_claim_or_margin_is_listed_not_stated(change, message):
    document = _full(97)
    change(document)
    with pytest.raises(ValueError, match=message):
        dead_purity_lemmas(document, route_present=True)
    items = [item for item in coq_file(document).not_exported if item.claim == CLAIM]
    assert items and isinstance(items[0], NotExported)


def _spacing_mean(p: int) -> mpmath.mpf:
    """E[S] = 2 C(2p, p) 4^-p int_0^inf (1 - erf(x / sqrt 2)^2)^p dx (the law of the middle spacing), by quad."""
    integrand = lambda x: (1 - mpmath.erf(x / mpmath.sqrt(2)) ** 2) ** p  # noqa: E731
    return 2 * mpmath.binomial(2 * p, p) / mpmath.mpf(4) ** p * mpmath.quad(integrand, [0, 0.25, 0.5, 1, 2, mpmath.inf])


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    """{(component, field): (text, TextResult)}: the library certificate of p = 97 with only this claim (so the
    route's lemmas are the purity exporter's own), each field moved 10^-10 (relative for lo) past a number above the
    statement's right-hand side: Phibar(lambda c_p E[S]) (minus the Abel sum, for the margin) over C(2p, p) - 1, with
    the exact E[S] (the statement has E >= E[S] in its place, so its right-hand side is lower)."""
    p = 97
    bracket = purity_route(p, DELTA)
    out = {}
    with mpmath.workdps(40):
        mean = _spacing_mean(p)
        scale = mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * mean
        phibar = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2  # noqa: E731
        lam = 1 if bracket.ratio is None else _mp(bracket.ratio)
        C = mpmath.binomial(2 * p, p)
        truths = {"not_single_frequency": phibar(scale) / (C - 1),
                  "purity_margin": (phibar(lam * scale) - _mp(bracket.lost)) / (C - 1)}
    for component, truth in truths.items():
        results = region_forgeries_past(tmp_path_factory.mktemp(f"coq_purity_{component}"), _purity_only(p), truth,
                                        CLAIM, component)
        out.update({(component, field): value for field, value in results.items()})
    return out


@pytest.mark.parametrize("component", ["not_single_frequency", "purity_margin"])
@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_end_is_refused_in_its_lemma(forged, component, field):
    text, result = forged[(component, field)]
    assert not result.ok, f"coqc accepted a forged {CLAIM}.{component}.{field}"
    assert re.fullmatch(rf"{CLAIM}_{component}_{field}_\d+_digits", failing_lemma(text, result) or ""), \
        result.message


@pytest.fixture(scope="module")
def forged_with_radius_tails(tmp_path_factory):
    """{field: (text, TextResult)}: as :func:`forged`, for the purity margin at p = 13, where the Abel sum uses
    radius tails (each an ``integral``) and the claim lemmas state lo and log10_lo in full."""
    p = 13
    bracket = purity_route(p, DELTA)
    assert _radius_points(bracket)
    with mpmath.workdps(40):
        lam = 1 if bracket.ratio is None else _mp(bracket.ratio)
        scale = lam * mpmath.sqrt(mpmath.mpf(p) / (2 * (p - 1))) * _spacing_mean(p)
        truth = (mpmath.erfc(scale / mpmath.sqrt(2)) / 2 - _mp(bracket.lost)) / (mpmath.binomial(2 * p, p) - 1)
    return region_forgeries_past(tmp_path_factory.mktemp("coq_purity_radius"), _purity_only(p), truth, CLAIM,
                                 "purity_margin")


@pytest.mark.parametrize("field", ["lo", "log10_lo"])
def test_a_forged_margin_is_refused_where_the_route_uses_radius_tails(forged_with_radius_tails, field):
    text, result = forged_with_radius_tails[field]
    assert not result.ok, f"coqc accepted a forged {CLAIM}.purity_margin.{field}"
    assert failing_lemma(text, result) == f"{CLAIM}_purity_margin_{field}", result.message
