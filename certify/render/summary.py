"""The short summary ``certify dead`` prints on stderr, read back from the certificate itself."""

from __future__ import annotations

from .numbers import parse_number, round_keeping_landmarks, text_decimal

#: The most significant digits a fixed-point summary number is rounded to (log10 of 10^(10^54) has 55
#: digits before the point; fewer digits are still an outward bound).
MAX_SHORT_DIGITS = 40


def short(text: str, upward: bool, digits: int = 12) -> str:
    """A stored exact number shown with ``digits`` significant digits, rounded outward (up if ``upward``),
    with more digits where needed to stay strictly on its side of 0 and +-1 (see certify.render.numbers)."""
    return text_decimal(round_keeping_landmarks(parse_number(text), digits, upward))


def short_fixed(text: str, places: int, upward: bool) -> str:
    """A stored exact number shown with ``places`` digits after the point (at most MAX_SHORT_DIGITS
    significant digits), rounded outward; no power of ten is expanded."""
    exponent = parse_number(text).exponent
    return short(text, upward, max(1, min(MAX_SHORT_DIGITS, exponent + 1 + places)))


def parameter(text: str) -> str:
    """A stored parameter (exact) as the summary shows it: as stored when short, else ``~`` and 3
    significant digits (``1/3000000000000000000000000000000`` -> ``~3.33e-31``); the certificate keeps it exact."""
    if len(text) <= 16:
        return text
    from ..kernel.exact import parse_exact, show_number

    return show_number(parse_exact(text), 3)


def parameters_text(certificate: dict, *names: str) -> str:
    """``name = value`` for the named parameters (all of them if none is named), readable (see :func:`parameter`)."""
    params = certificate["parameters"]
    return ", ".join(f"{name} = {parameter(params[name])}" for name in (names or params))


def interval(claim: dict, digits: int = 12) -> str:
    return f"[{short(claim['lo'], False, digits)}, {short(claim['hi'], True, digits)}]"


def probability_lines(certificate: dict, region: str) -> list[str]:
    """The lines of the probability claims: the box's (gaussian_probability) and, when the certificate has
    it, the whole region's (region_probability, named ``region``), with the scale sigma they are under."""
    claims = certificate["claims"]
    law = f"N(0, sigma^2 I_{{3p}}), sigma = {parameter(certificate['parameters'].get('sigma', '1'))}"
    lines = [f"  P(theta(0) in box) >= 10^{short_fixed(claims['gaussian_probability']['log10_lo'], 2, False)} "
             f"under {law}"] if "gaussian_probability" in claims else []
    if "region_probability" in claims:
        lines.append(f"  P(theta(0) in {region} | active) >= 10^"
                     f"{short_fixed(claims['region_probability']['log10_lo'], 2, False)} under {law} "
                     "(the theorem's whole region)")
    return lines


def dead_summary(certificate: dict) -> list[str]:
    """Lines: parameters, T at the base point and on the box, margins, purity gap, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    return [
        f"certify dead: p = {certificate['p']}, epsilon = {parameter(params['epsilon'])}, A = {parameter(params['A'])}, "
        f"B = {parameter(params['B'])}, radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  T in {interval(claims['hitting_time'], 15)} from the base point (2.1); "
        f"T in {interval(claims['hitting_time_box'], 6)} on the box",
        f"  margin -ds/dt(T-) in {interval(claims['transversality_margin'], 6)} at the base point (2.7); "
        f">= {short(claims['transversality_margin_box']['lo'], False, 6)} on the box",
        f"  delta_p >= {short(claims['purity_gap_box']['lo'], False, 6)} (max F_zeta <= 1 - delta_p on the box; "
        f"F_zeta = {claims['terminal_fourier_fraction']['exact']} at the base point)",
        *probability_lines(certificate, "R_dead"),
        *([f"  P(theta(0) in R_dead, dies with max F_zeta <= 1 - delta | active) >= 10^"
           f"{short_fixed(claims['region_purity_probability']['components']['purity_margin']['log10_lo'], 2, False)}, "
           f"delta = {parameter(params['purity_margin'])} (not single-frequency: >= 10^"
           f"{short_fixed(claims['region_purity_probability']['components']['not_single_frequency']['log10_lo'], 2, False)})"]
          if "region_purity_probability" in claims else []),
    ]


def slide_summary(certificate: dict) -> list[str]:
    """Lines: parameters, capture time (by its exponent), kappa_p, limits, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    capture = claims["capture_time"]
    return [
        f"certify slide: p = {certificate['p']}, gamma_* = {parameter(params['gamma_star'])}, X = {parameter(params['X'])}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  capture time from the base point in [10^{short_fixed(capture['log10_lo'], 6, False)}, "
        f"10^{short_fixed(capture['log10_hi'], 6, True)}] (all 2(p-1) cross gates at x = 6X)",
        f"  kink coefficients <= {short(claims['admissibility']['hi'], True, 6)} < 1 (Lemma A.9); "
        f"d/x -> kappa_p in {interval(claims['kappa'], 10)} (A.40)",
        f"  F_zeta -> {claims['limit_fourier_fraction']['exact']} for every zeta (A.46); loss -> "
        f"{interval(claims['limit_loss'], 8)} (A.33)",
        *probability_lines(certificate, "R_slide"),
    ]


def smooth_summary(certificate: dict) -> list[str]:
    """Lines: parameters, J, the (A.67) margin, displacement, purity gap, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    return [
        f"certify smooth: p = {certificate['p']}, eps = {parameter(params['eps_smooth'])}, epsilon = {parameter(params['epsilon'])}, "
        f"A = {parameter(params['A'])}, B = {parameter(params['B'])}, radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  J(epsilon + 2r) in {interval(claims['dead_zone_integral'], 12)} (A.66); "
        f"g(0)^2 - J(s0) >= {short(claims['g_condition']['lo'], False, 6)} on the box (A.67)",
        f"  ||w_inf - w_0||_1 <= {short(claims['terminal_displacement_box']['hi'], True, 6)} (A.69); "
        f"delta >= {short(claims['purity_gap_box']['lo'], False, 6)} (F_zeta = "
        f"{claims['terminal_fourier_fraction']['exact']} at the base point)",
        *probability_lines(certificate, "R_smooth"),
    ]


def gd_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the gates after one step, the w-step, purity gap, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    after = claims["one_step_death_box"]["components"]
    return [
        f"certify gd: p = {certificate['p']}, eta = {parameter(params['eta'])}, epsilon = {parameter(params['epsilon'])}, "
        f"A = {parameter(params['A'])}, B = {parameter(params['B'])}, radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  after one step: central gate <= {short(after['central_gate']['hi'], True, 6)}, cross gates <= "
        f"{short(after['cross_gates']['hi'], True, 6)}, off-cross <= {short(after['off_cross_gates']['hi'], True, 6)} "
        f"(A.70)-(A.71): theta_n = theta_1",
        f"  ||w_1 - w_0||_1 <= {short(claims['w_step_box']['hi'], True, 6)}; delta >= "
        f"{short(claims['purity_gap_box']['lo'], False, 6)} (F_zeta = {claims['terminal_fourier_fraction']['exact']} "
        f"at the base point)",
        *probability_lines(certificate, "R_gd"),
    ]


def generic_summary(certificate: dict) -> list[str]:
    """Lines for a theorem whose record names no summary: parameters, then each claim of the record
    (its exact value or its ends, 6 digits rounded outward, or its log10 ends)."""
    from ..theorems.registry import THEOREMS

    params = parameters_text(certificate)
    lines = [f"certify {certificate['theorem']}: p = {certificate['p']}, {params}, radius = {parameter(certificate['radius'])} "
             f"({certificate['precision_bits']} bits)"]
    for claim_id in THEOREMS[certificate["theorem"]].claim_ids:
        claim = certificate["claims"].get(claim_id, {})
        if "exact" in claim:
            lines.append(f"  {claim_id} = {claim['exact']}")
        elif "lo" in claim and "hi" in claim:
            lines.append(f"  {claim_id} in {interval(claim, 6)}")
        elif "log10_lo" in claim:
            lines.append(f"  {claim_id}: log10 >= {short_fixed(claim['log10_lo'], 2, False)}")
    return lines


def summary(certificate: dict) -> list[str]:
    """The summary lines for a certificate of any theorem of the registry: its record's ``summary``
    renderer (certify.theorems.registry), or :func:`generic_summary` when the record names none."""
    from ..theorems.registry import THEOREMS, resolve

    record = THEOREMS[certificate["theorem"]]
    return (resolve(record.summary) if record.summary else generic_summary)(certificate)


def sensitivity_summary(certificate: dict) -> list[str]:
    """Lines: parameters, grad T, the event speed, the gap and its rank, J_reg and Psi' row by row."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    grad = claims["hitting_time_gradient"]["components"]

    def entry(quantity) -> str:
        return quantity["exact"] if "exact" in quantity else short(quantity["lo"], False, 6)

    def rows(claim_id: str) -> list[str]:
        comps = claims[claim_id]["components"]
        return [f"    {i}: " + "  ".join(f"{entry(comps[f'{i}_{j}']):>12}" for j in "sab") for i in "sab"]

    return [
        f"certify sensitivity: p = {certificate['p']}, epsilon = {parameter(params['epsilon'])}, "
        f"A = {parameter(params['A'])}, B = {parameter(params['B'])} ({certificate['precision_bits']} bits)",
        f"  grad T = (dT/ds0, dT/da0, dT/db0) = ({short(grad['s']['lo'], False, 6)}, {short(grad['a']['lo'], False, 6)}, "
        f"{short(grad['b']['lo'], False, 6)}); ds/dt(T-) <= {short(claims['event_speed']['hi'], True, 6)} < 0 (2.7)",
        "  J_reg (rows s, a, b; columns d/ds0, d/da0, d/db0):", *rows("regional_derivative"),
        "  Psi' = S J_reg:", *rows("terminal_map_derivative"),
        f"  |Psi' - J_reg|_F >= {short(claims['sensitivity_gap']['lo'], False, 6)} > 0, rank "
        f"{claims['gap_rank']['exact']}: AD of GD converges to J_reg, the flow's derivative is Psi'",
    ]
