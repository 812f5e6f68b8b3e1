"""The short summary a theorem command prints on stderr, read back from the certificate itself.

Every number goes through :func:`certify.render.numbers.display`, the one rule for showing a certified
number (the same digits as the LaTeX documents, the notebook reprs and ``certify simulate``'s report).
"""

from __future__ import annotations

from .numbers import display, display_parts


def shown(stored: dict, subject: str, *keys: str) -> str:
    """What the stored quantity's fields ``keys`` (all its number fields if none are named) imply, about
    ``subject``: ``T = 45.9932965048...``, ``T in [17.1, 140]``, ``delta_p >= 0.000424689`` (see
    :func:`certify.render.numbers.display`; every statement is implied by the stored numbers)."""
    return display({key: stored[key] for key in keys} if keys else stored, "text", subject)


def value(stored: dict, *keys: str) -> str:
    """The number of :func:`shown` without subject and relation (``1/6``, ``45.9932965048...``,
    ``[17.1, 140]``), for a quantity whose one statement is ``=`` or ``in`` (an exact value or an enclosure)."""
    (relation, body), = display_parts({key: stored[key] for key in keys} if keys else stored, "text")
    if relation not in ("=", "in"):
        raise ValueError(f"a one-sided bound ({relation} {body}) has no value to show alone")
    return body


def parameter(text: str) -> str:
    """A stored exact parameter as the summary shows it (the rule of :func:`certify.render.numbers.display`:
    as stored when at most 24 characters, else its leading digits and an ellipsis, ``3.33333333333...e-31``)."""
    return value({"exact": text})


def parameters_text(certificate: dict, *names: str) -> str:
    """``name = value`` for the named parameters (all of them if none is named), readable (see :func:`parameter`)."""
    params = certificate["parameters"]
    return ", ".join(f"{name} = {parameter(params[name])}" for name in (names or params))


def probability_lines(certificate: dict, region: str, whole: str = "the theorem's whole region") -> list[str]:
    """The lines of the probability claims: the box's (gaussian_probability) and, when the certificate has
    it, the region's (region_probability, named ``region``; ``whole`` says what the region is), with the scale
    sigma they are under."""
    claims = certificate["claims"]
    law = f"N(0, sigma^2 I_{{3p}}), sigma = {parameter(certificate['parameters'].get('sigma', '1'))}"
    lines = [f"  {shown(claims['gaussian_probability'], 'P(theta(0) in box)', 'log10_lo')} under {law}"] \
        if "gaussian_probability" in claims else []
    if "region_probability" in claims:
        lines.append(f"  {shown(claims['region_probability'], f'P(theta(0) in {region} | active)', 'log10_lo')} "
                     f"under {law} ({whole})")
    return lines


def dead_summary(certificate: dict) -> list[str]:
    """Lines: parameters, T at the base point and on the box, margins, purity gap, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    purity = claims.get("region_purity_probability", {}).get("components", {})
    return [
        f"certify dead: p = {certificate['p']}, epsilon = {parameter(params['epsilon'])}, A = {parameter(params['A'])}, "
        f"B = {parameter(params['B'])}, radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  {shown(claims['hitting_time'], 'T')} from the base point (2.1); {shown(claims['hitting_time_box'], 'T')} "
        f"on the box",
        f"  {shown(claims['transversality_margin'], 'margin -ds/dt(T-)')} at the base point (2.7); "
        f"{shown(claims['transversality_margin_box'], '')} on the box",
        f"  {shown(claims['purity_gap_box'], 'delta_p')} (max F_zeta <= 1 - delta_p at every terminal state from the "
        f"box; {shown(claims['terminal_fourier_fraction'], 'F_zeta')} at the base point's terminal state)",
        *probability_lines(certificate, "R_dead"),
        *([f"  {shown(purity['purity_margin'], 'P(theta(0) in R_dead, dies with max F_zeta <= 1 - delta | active)', 'log10_lo')}, "
           f"delta = {parameter(params['purity_margin'])} (not single-frequency: "
           f"{shown(purity['not_single_frequency'], '', 'log10_lo')})"] if purity else []),
    ]


def slide_summary(certificate: dict) -> list[str]:
    """Lines: parameters, capture time (by its exponent), kappa_p, limits, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    return [
        f"certify slide: p = {certificate['p']}, gamma_* = {parameter(params['gamma_star'])}, X = {parameter(params['X'])}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  {shown(claims['capture_time'], 'capture time from the base point', 'log10_lo', 'log10_hi')} "
        f"(all 2(p-1) cross gates at x = 6X)",
        f"  {shown(claims['admissibility'], 'kink coefficients')} < 1 (Lemma A.9); "
        f"d/x -> kappa_p, {shown(claims['kappa'], 'kappa_p')} (A.40)",
        f"  F_zeta -> {value(claims['limit_fourier_fraction'])} for every zeta (A.46); loss -> L, "
        f"{shown(claims['limit_loss'], 'L')} (A.33)",
        *probability_lines(certificate, "R_slide"),
    ]


def smooth_summary(certificate: dict) -> list[str]:
    """Lines: parameters, J, the (A.67) margin, displacement, purity gap, probability."""
    claims = certificate["claims"]
    params = certificate["parameters"]
    return [
        f"certify smooth: p = {certificate['p']}, eps = {parameter(params['eps_smooth'])}, epsilon = {parameter(params['epsilon'])}, "
        f"A = {parameter(params['A'])}, B = {parameter(params['B'])}, radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  {shown(claims['dead_zone_integral'], 'J(epsilon + 2r)')} (A.66); "
        f"{shown(claims['g_condition'], 'g(0)^2 - J(s0)')} on the box (A.67)",
        f"  {shown(claims['terminal_displacement_box'], '||w_inf - w_0||_1')} (A.69); "
        f"{shown(claims['purity_gap_box'], 'delta')} ({shown(claims['terminal_fourier_fraction'], 'F_zeta')} "
        f"at the limit from the base point)",
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
        f"  after one step: {shown(after['central_gate'], 'central gate')}, {shown(after['cross_gates'], 'cross gates')}, "
        f"{shown(after['off_cross_gates'], 'off-cross')} (A.70)-(A.71): theta_n = theta_1",
        f"  {shown(claims['w_step_box'], '||w_1 - w_0||_1')}; {shown(claims['purity_gap_box'], 'delta')} "
        f"({shown(claims['terminal_fourier_fraction'], 'F_zeta')} at theta_1 from the base point)",
        *probability_lines(certificate, "R_gd"),
    ]


def staircase_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the pattern's smallest margin, the (S.10) margin, delta, probability."""
    claims = certificate["claims"]
    pattern = claims["pattern_box"]["components"]
    return [
        f"certify staircase: p = {certificate['p']}, {parameters_text(certificate, 'k', 'X', 's', 'D', 'E')}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  on the box: {shown(pattern['active_gates'], 'z00, z01, z10')}, "
        f"{shown(pattern['boundary_gates'], '-(boundary gates)')}, {shown(pattern['gamma_min'], 'gamma_j')} (P1)-(P2)",
        f"  {shown(claims['loss_margin_box'], '2 log 2 + 2/((p-1) rho) - Lambda')} (S.10): the pattern persists "
        f"for all t (Theorem S)",
        f"  {shown(claims['purity_margin_box'], '1 - max_zeta F_zeta(theta(t))')} for all t (Proposition S.6)",
        *probability_lines(certificate, "R", "R = U_stair relabelled; bound from the p^2 (p - 1) disjoint relabelled copies of the widened box B+ "
                           "and of its translates along d_uv, d_w, which meet in null sets only"),
        *_whole_region_lines(claims, "the widened box's bound", "U_stair", "Proposition S.25"),
    ]


def memorise_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the pattern's margins, the (S1.1) margin, delta_1, the probabilities (box, its copies,
    and the whole region when the certificate has that claim)."""
    claims = certificate["claims"]
    pattern = claims["pattern_box"]["components"]
    return [
        f"certify memorise: p = {certificate['p']}, {parameters_text(certificate, 'X', 's', 'E')}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  on the box: {shown(pattern['active_gate'], 'z00')}, "
        f"{shown(pattern['boundary_gates'], '-(boundary gates)')}, {shown(pattern['gamma_min'], 'gamma_j')} (Q1)-(Q2)",
        f"  {shown(claims['loss_margin_box'], '2/(p rho) - ell_0(z00)')} (S1.1): one active gate for all t "
        f"(Theorem S1)",
        f"  {shown(claims['purity_margin_box'], '1 - max_zeta F_zeta(theta(t))')} for all t (Proposition S1.7)",
        *probability_lines(certificate, "R", "R = U_1 relabelled: p^2 disjoint copies of the box"),
        *_whole_region_lines(claims, "the box copies' bound", "U_1", "Proposition S1.8"),
    ]


def twin_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the pattern's margins, the loss excess and window, the capture margins and time, delta,
    the probabilities."""
    claims = certificate["claims"]
    pattern = claims["pattern_box"]["components"]
    window, capture = claims["window_box"]["components"], claims["capture_box"]["components"]
    return [
        f"certify twin: p = {certificate['p']}, {parameters_text(certificate, 'X', 's', 't', 'd', 'E', 's2_max')}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  on the box: {shown(pattern['gate_11'], '-z11')}, {shown(pattern['twin_difference'], '-D')}, "
        f"{shown(pattern['boundary_gates'], '-(boundary gates)')}, {shown(pattern['gamma_min'], 'gamma_j')}",
        f"  {shown(claims['loss_excess_box'], 'Lambda - 3 log 2')}, {shown(window['force_budget'], '2 - Phi')} "
        f"(S.27): inside the window b < b_II (Lemma S.12)",
        f"  {shown(capture['cone'], 'kappa')}, {shown(capture['growth'], 's2_max - s1max^2')} (S.29); "
        f"{shown(claims['capture_time_box'], 'capture time')}: captured with D <= 0, then kept (Theorem S2)",
        f"  {shown(claims['purity_margin_box'], '1 - max_zeta F_zeta(theta(t))')} for all t (Proposition S.6)",
        *probability_lines(certificate, "R", "R = U_II relabelled; bound from the p^2 (p - 1) disjoint relabelled copies of the widened box B+ "
                           "and of its translates along d_uv, d_w, which meet in null sets only"),
    ]


def twin_plus_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the pattern's margins, the loss excess and window, the margins of (S.34) and the capture
    time, delta, the probabilities."""
    claims = certificate["claims"]
    pattern, capture = claims["pattern_box"]["components"], claims["capture_box"]["components"]
    return [
        f"certify twin_plus: p = {certificate['p']}, {parameters_text(certificate, 'X', 'e', 't', 'd', 'E', 'h')}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  on the box: {shown(pattern['gate_11'], '-z11')}, {shown(pattern['positive_difference'], 'D')}, "
        f"{shown(pattern['boundary_gates'], '-(boundary gates)')}, {shown(pattern['gamma_min'], 'gamma_j')}",
        f"  {shown(claims['loss_excess_box'], 'Lambda - 3 log 2')}, {shown(claims['window_box'], 'beta(p, rho) - b')}: "
        f"inside the window of Theorem S3",
        f"  (S.34): {shown(capture['reach'], 'm - delta_c')}, {shown(capture['rate'], 'rate - h')}, "
        f"{shown(capture['cone'], 'kappa - 2b')}, {shown(capture['race'], 'race')}; "
        f"{shown(claims['capture_time_box'], 'capture time')}: captured with D >= 0, then kept (Theorem S3)",
        f"  {shown(claims['purity_margin_box'], '1 - max_zeta F_zeta(theta(t))')} for all t (Proposition S.6)",
        *probability_lines(certificate, "R", "R = U_II^+ relabelled; bound from the p^2 (p - 1) disjoint relabelled copies of the widened box B+ "
                           "and of its translates along d_uv, d_w, which meet in null sets only"),
    ]


def _whole_region_lines(claims: dict, box: str, region: str, proposition: str) -> list[str]:
    """The line of a checked whole_region_probability claim (none without one), saying which bound it states: the
    region_probability claim's (``box``) when its log10 is theirs (the kernel states it where ``proposition`` gives
    less or is not attempted), else the whole of ``region``'s."""
    if "whole_region_probability" not in claims:
        return []
    whole = claims["whole_region_probability"]
    source = (f"{box}: {proposition} gives no more here"
              if whole.get("log10_lo") == claims.get("region_probability", {}).get("log10_lo")
              else f"the whole of {region}, {proposition}")
    return [f"  {shown(whole, 'P(theta(0) in R | active)', 'log10_lo')} ({source})"]


def twin_above_summary(certificate: dict) -> list[str]:
    """Lines: parameters, the pattern's margins, the loss excess and window, the margins of (S.36) and the capture
    time, delta, the probabilities."""
    claims = certificate["claims"]
    pattern, capture = claims["pattern_box"]["components"], claims["capture_box"]["components"]
    return [
        f"certify twin_above: p = {certificate['p']}, {parameters_text(certificate, 'X', 'e', 't', 'd', 'E', 'h', 'g')}, "
        f"radius = {parameter(certificate['radius'])} ({certificate['precision_bits']} bits)",
        f"  on the box: {shown(pattern['gate_11'], 'z11')}, {shown(pattern['positive_difference'], 'D')}, "
        f"{shown(pattern['boundary_gates'], '-(boundary gates)')}, {shown(pattern['gamma_min'], 'gamma_j')}",
        f"  {shown(claims['loss_excess_box'], 'Lambda_4 - 3 log 2')}, "
        f"{shown(claims['window_box'], 'beta(p, rho_+) - b0')}: inside (S.36)'s window at Remark S3.6 (i)'s rho_+",
        f"  (S.36): {shown(capture['reach'], 'm - delta_c')}, {shown(capture['rate'], 'rate - h')}, "
        f"{shown(capture['difference_floor'], 'D_-')}, {shown(capture['race'], 'race')}; "
        f"{shown(claims['capture_time_box'], 'capture time')}: captured from above with D > 0, then kept (Theorem S3)",
        f"  {shown(claims['purity_margin_box'], '1 - max_zeta F_zeta(theta(t))')} for all t ((S.37))",
        *probability_lines(certificate, "R", "R = U_II^above relabelled; bound from the p^2 (p - 1) disjoint relabelled copies of the widened box B+ "
                           "and of its translates along d_uv, d_w, which meet in null sets only"),
    ]


def generic_summary(certificate: dict) -> list[str]:
    """Lines for a theorem whose record names no summary: parameters, then each claim of the record with
    what its numbers imply (:func:`shown`; a claim with a log10 by its log10 alone)."""
    from ..theorems.registry import THEOREMS

    params = parameters_text(certificate)
    lines = [f"certify {certificate['theorem']}: p = {certificate['p']}, {params}, radius = {parameter(certificate['radius'])} "
             f"({certificate['precision_bits']} bits)"]
    for claim_id in THEOREMS[certificate["theorem"]].claim_ids:
        claim = certificate["claims"].get(claim_id, {})
        logs = [key for key in ("log10_lo", "log10_hi") if key in claim]
        numbers = logs or [key for key in ("exact", "lo", "hi") if key in claim]
        if numbers:
            lines.append(f"  {shown(claim, claim_id, *numbers)}")
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

    def rows(claim_id: str) -> list[str]:
        comps = claims[claim_id]["components"]
        return [f"    {i}: " + "  ".join(f"{value(comps[f'{i}_{j}']):>20}" for j in "sab") for i in "sab"]

    return [
        f"certify sensitivity: p = {certificate['p']}, epsilon = {parameter(params['epsilon'])}, "
        f"A = {parameter(params['A'])}, B = {parameter(params['B'])} ({certificate['precision_bits']} bits)",
        f"  grad T = (dT/ds0, dT/da0, dT/db0) = ({value(grad['s'])}, {value(grad['a'])}, {value(grad['b'])}); "
        f"{shown(claims['event_speed'], 'ds/dt(T-)')} < 0 (2.7)",
        "  J_reg (rows s, a, b; columns d/ds0, d/da0, d/db0):", *rows("regional_derivative"),
        "  Psi' = S J_reg:", *rows("terminal_map_derivative"),
        f"  {shown(claims['sensitivity_gap'], '|Psi' + chr(39) + ' - J_reg|_F')} > 0, rank "
        f"{value(claims['gap_rank'])} (the gap between Psi' and J_reg)",
    ]
