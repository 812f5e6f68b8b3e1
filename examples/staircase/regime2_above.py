"""Proposition S3.4 (docs/staircase.md, section 11.12): capture onto the twin's face from above (z11 > 0, D > 0).

    python examples/staircase/regime2_above.py [--p P ...] [--horizon T] [--law LAW_DIR ...]

1. For each p, the base point (exact parameters X, e, t, d, E > 0)

       u = v = (X/2, s - X/2, -X/2 - t, ..., -X/2 - t),  s = (X + e)/2,   w = (E + d, E, 0, ..., 0) - mu_0 1,

   mu_0 = (2E + d)/p, so that z00 = X, z01 = z10 = s, z11 = +e (the gate (1, 1) active), the boundary gates -t,
   D = d > 0 and rho = 1. It evaluates every quantity of (S.36) at 40 digits (mpmath) with h = gamma_2 = mu_0, and
   prints the margins, t_c, delta_- of (S.37) and the log10 of the N(0, I) density at the point.
2. It follows the full-network Filippov flow (certify.law.flow, floats) from the point to the horizon and prints
   the first checkpoint with the gate (1, 1) on its kink (within the simulator's kink band) against t_c, whether
   the (1, 2) pattern is kept at every later checkpoint, and whether D stayed > 0 before the capture (Proposition
   S3.4: D(t1) >= D_- > 0) and >= 0 after it (Theorem S3, up to D's float error).
3. With --law, for every k = 2 staircase with one common step of each `certify law` folder (re-simulated as in
   regime2_candidate.py) whose gate (1, 1) ends on its kink: whether some checkpoint before its capture lies in
   U_II^above (h on a grid), and otherwise the first condition that fails at each checkpoint.
4. With --box N: N random corners of a sup-norm box (BOX: e = 4r, d about 2.5r, r = 0.003 to 0.007) checked
   against (S.36) at 40 digits with one h, and the box's Gaussian mass: the shape a certificate of U_II^above could
   take (corners only), and the margins at Remark S3.5's and at Remark S3.6's bounds on the box (the latter what
   `certify twin_above` states, section 11.13).

Parts 1 and 3 evaluate (S.36) at 40 digits but are not a certificate (no balls, no checker); parts 2 and 3 use
float trajectories at checkpoints: evidence beside the proof, not part of it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mpmath as mp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from regime2_candidate import twin_budget  # noqa: E402
from regime2_positive import (beta, box_log10_mass, captured_runs, ell, float_flow, q_star,  # noqa: E402
                               race_exponent, random_corners)

#: Base-point parameters (X, e, t, d, E) per p: a float grid search over X, E, e, d (t = 1/2) for the largest
#: smallest margin of (S.36).
PARAMETERS = {5: ("4", "2e-3", "0.5", "1e-3", "4"), 7: ("4", "2e-3", "0.5", "1e-3", "4"),
              13: ("3", "2e-3", "0.5", "1e-3", "6"), 31: ("3", "2e-3", "0.5", "1e-3", "6")}

#: The fractions f of 2 mu_0 tried as h.
FRACTIONS = tuple(np.linspace(0.05, 0.95, 19))


def base_point(p, X, e, t, d, E):
    """(u, v, w) of the base point, as mpf lists (z11 = +e)."""
    s = (X + e) / 2
    u = [X / 2, s - X / 2] + [-X / 2 - t] * (p - 2)
    mu0 = (2 * E + d) / p
    w = [E + d - mu0, E - mu0] + [-mu0] * (p - 2)
    return u, list(u), w


def s36_at(p, h, q, tight=False):
    """The margins of (S.36) (the differences of its sides, the race's as a difference of logs; every margin > 0:
    the hypotheses hold), with t_c, rho_+, D_- and delta_- of (S.37) (None where sqrt(F_0) + rho_+ >= 2), from bounds
    of the quantities at theta0 (Remark S3.5: each margin is monotone in each of them), a dict ``q``: upper bounds
    e, D_high, b0, N, M, z0, X_high, r_high, c_high, g_max, C_plus and lower bounds D_low, m, X_low, S, g_min, g_2.
    At a state every bound is the value itself. With ``tight``, Remark S3.6 (i)'s rho_+ (gamma_max's growth at
    most min(delta_c, eta))."""
    e, b0 = q["e"], q["b0"]
    t_c, eps = p ** 2 * e / h, e ** 2 / h
    delta_c = mp.sqrt(2 * b0 * t_c) / p
    g_minus = q["g_min"] - eps
    growth = delta_c
    if tight:  # eta = (Z_+ b0 + e) e/h, Z_+ = max(X0, z0) + delta_c
        growth = min(delta_c, ((max(q["X_high"], q["z0"]) + delta_c) * b0 + e) * e / h)
    rho_plus = (q["g_max"] + growth) / g_minus if g_minus > 0 else mp.inf
    s2_plus = (q["X_high"] + delta_c) ** 2 + (q["r_high"] + delta_c) ** 2 + (q["c_high"] + delta_c) ** 2 + e ** 2
    D_minus = q["D_low"] * mp.exp(-s2_plus * e / h) - eps
    z_p, M_p, X_m, S_m = q["z0"] + delta_c, q["M"] + delta_c, q["X_low"] - delta_c, q["S"] - eps
    kappa_m = mp.mpf(3) / 4 * q_star(b0) * X_m ** 2
    margins = {"delta_c < m": q["m"] - delta_c, "g_- > 0": g_minus,
               "rate": 2 * (q["g_2"] - eps) - b0 * (q["N"] + delta_c) - h, "D_- > 0": D_minus,
               "window": beta(p, rho_plus) - b0 if g_minus > 0 else mp.mpf(-1),
               "kappa_- > 2 b0": kappa_m - 2 * b0}
    margins["race (log)"] = (mp.log(S_m) - race_exponent(z_p, M_p, b0, kappa_m) - mp.log(q["D_high"])
                             if margins["kappa_- > 2 b0"] > 0 and S_m > 0 and X_m > 0 else mp.mpf(-1))
    F0 = 2 * (1 + mp.cos(2 * mp.pi / p)) / (p - 2)
    delta_minus = None
    if g_minus > 0 and mp.sqrt(F0) + rho_plus < 2:
        L_minus = S_m ** 2 / 2 + (p - 2) * g_minus ** 2
        delta_minus = (1 - (mp.sqrt(F0) + rho_plus - 1) ** 2) * L_minus / (2 * L_minus + q["C_plus"])
    return {"margins": margins, "t_c": t_c, "rho_plus": rho_plus, "D_minus": D_minus, "delta_minus": delta_minus}


def s36_margins(p, u, v, w, h):
    """:func:`s36_at` at the state (u, v, w) (mpf lists) with the parameter h (every margin > 0: the state is in
    U_II^above), with b0; None where the four-gate pattern (every gate other than the four < 0, the boundary gates
    included), gamma_j > 0 or D > 0 fails."""
    gate = [[u[a] + v[b] for b in range(p)] for a in range(p)]
    X, r, c, z11 = gate[0][0], gate[0][1], gate[1][0], gate[1][1]
    others = [gate[a][b] for a in range(p) for b in range(p) if (a, b) not in ((0, 0), (0, 1), (1, 0), (1, 1))]
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    D0 = w[0] - w[1]
    if not (min(X, r, c) > 0 and z11 > 0 and max(others) < 0 and min(gamma) > 0 and D0 > 0):
        return None
    b0 = ell(X, w, 0) + ell(r, w, 1) + ell(c, w, 1) + ell(z11, w, 2) - mp.log(p) - 3 * mp.log(2)
    C_plus = max(mp.mpf(0), p * mu ** 2 + mp.fsum(x ** 2 for x in u + v) - mp.fsum(x ** 2 for x in w))
    values = {"e": z11, "b0": b0, "m": min(X, r, c, -max(others)), "N": w[1] - min(w[2:]), "M": w[0] - min(w[2:]),
              "z0": max(r, c), "X_low": X, "X_high": X, "r_high": r, "c_high": c, "D_low": D0, "D_high": D0,
              "S": mp.fsum(gamma), "g_min": min(gamma), "g_2": gamma[0], "g_max": max(gamma), "C_plus": C_plus}
    return {**s36_at(p, h, values), "b0": b0}


def best_h(p, u, v, w):
    """The h = f 2 gamma_2 (f in FRACTIONS) with the largest smallest margin of (S.36), with its margins; None if the
    pattern fails (part 3: any h that works will do, so the choice is a heuristic)."""
    mu = mp.fsum(w) / p
    best = None
    for fraction in FRACTIONS:
        h = 2 * (mu - w[2]) * mp.mpf(float(fraction))
        found = s36_margins(p, u, v, w, h)
        if found is None:
            return None
        if best is None or min(found["margins"].values()) > min(best["margins"].values()):
            best = {**found, "h": h}
    return best


def follow(p, theta0, point, horizon):
    """Part 2: the float flow from the point, at its checkpoints."""
    flow = float_flow(p, theta0, horizon)
    if flow is None:
        return
    band, checkpoints = flow
    captured, kept, smallest_before, smallest_after = None, True, np.inf, np.inf
    for time, u, v, w, z in checkpoints:
        if captured is None and abs(z[1, 1]) <= band:
            captured = time
        if captured is None:
            smallest_before = min(smallest_before, w[0] - w[1])
            continue
        others = np.ones_like(z, dtype=bool)
        others[0, 0] = others[0, 1] = others[1, 0] = False
        kept &= bool(min(z[0, 0], z[0, 1], z[1, 0]) > band and np.all(z[others] <= band))
        smallest_after = min(smallest_after, w[0] - w[1])
    print(f"  flow to t = {horizon:.3g}: gate (1, 1) on its kink from the checkpoint t = {captured} "
          f"(t_c = {float(point['t_c']):.4g}); (1, 2) pattern kept at every later checkpoint: {kept}; smallest D "
          f"before the capture {smallest_before:.3g} (D_- = {float(point['D_minus']):.3g}), after it "
          f"{smallest_after:.3g}")


def pattern_failure(p, u, v, w, band):
    """The first of Proposition S3.4's qualitative hypotheses that fails at a state whose gate (1, 1) is above its
    kink, as a phrase, or None: X, r, c > 0 and every other gate < 0 (a gate within the simulator's kink band
    ``band`` of 0 counts as on its kink; a boundary gate active and one on its kink are told apart); D > 0; every
    gamma_j > 0."""
    gate = [[u[a] + v[b] for b in range(p)] for a in range(p)]
    if min(gate[0][0], gate[0][1], gate[1][0]) <= 0:
        return "X, r or c <= 0"
    boundary = [gate[0][j] for j in range(2, p)] + [gate[j][0] for j in range(2, p)]
    if max(boundary) > band:
        return "a boundary gate active"
    if max(boundary) >= -band:
        return "a boundary gate on its kink"
    if max(gate[a][b] for a in range(1, p) for b in range(1, p) if (a, b) != (1, 1)) >= -band:
        return "another gate active or on its kink"
    if w[0] - w[1] <= 0:
        return "D <= 0"
    if min(mp.fsum(w) / p - x for x in w[2:]) <= 0:
        return "a gamma_j <= 0"
    return None


def loss_excess(p, U, V, W, band):
    """The loss excess of a state, sum over the gates above the kink band of ell_y(z) - log p, plus 3 log p -
    3 log 2: p^2 L - (p^2 - 3) log p - 3 log 2 (b0 of section 11.12 on its pattern, b of Theorems S2-S3 on the
    twin's face). The loss is nonincreasing along the flow, so its value at a checkpoint bounds it from below at
    every earlier time."""
    return mp.fsum(ell(U[a] + V[b], W, (a + b) % p) - mp.log(p) for a in range(p) for b in range(p)
                   if U[a] + V[b] > band) + 3 * mp.log(p) - 3 * mp.log(2)


def last_above(p, run, band, states, captured) -> str:
    """Part 3: where a capture from above starts, as a phrase: at the last checkpoint before the capture with the
    gate (1, 1) above its kink (if any), z11, the largest boundary gate and how many are active, gamma_min and D;
    and at the capture checkpoint, the loss excess b (a lower bound of b at every earlier time) against the window
    of the result for that side: beta(p, rho) of Theorem S3 (and Propositions S3.2, S3.4) where D >= 0, b_II(p, rho)
    of Theorem S2 (and Proposition S2.2; float bisection, regime2_candidate.twin_budget) where D < 0; rho needs
    every gamma_j > 0 there."""
    above = [index for index in range(captured) if states[index][0][1] + states[index][1][1] > band]
    if not above:
        return ""
    U, V, W = ([mp.mpf(float(x)) for x in block] for block in states[above[-1]])
    gate = [[U[a] + V[b] for b in range(p)] for a in range(p)]
    boundary = [gate[0][j] for j in range(2, p)] + [gate[j][0] for j in range(2, p)]
    mu = mp.fsum(W) / p
    start = (f"; at t = {run.times[above[-1]]:.3g}, the last checkpoint above the kink: z11 {mp.nstr(gate[1][1], 3)}, "
             f"largest boundary gate {mp.nstr(max(boundary), 3)} ({sum(x > band for x in boundary)} active), "
             f"gamma_min {mp.nstr(min(mu - x for x in W[2:]), 3)}, D {mp.nstr(W[0] - W[1], 3)}")
    U, V, W = ([mp.mpf(float(x)) for x in block] for block in states[captured])
    mu = mp.fsum(W) / p
    gamma = [mu - x for x in W[2:]]
    b, D = loss_excess(p, U, V, W, band), W[0] - W[1]
    if min(gamma) <= 0:
        window = "no window: some gamma_j <= 0"
    else:
        rho = max(gamma) / min(gamma)
        name, value = (("beta(p, rho)", beta(p, rho)) if D >= 0 else
                       ("b_II(p, rho)", mp.mpf(twin_budget(p, float(rho)))))
        window = f"{name} = {mp.nstr(value, 3)}, b/window {mp.nstr(b / value, 3)}"
    return start + f"; at the capture checkpoint: D {mp.nstr(D, 3)}, loss excess b {mp.nstr(b, 3)} ({window})"


def above_before_capture(folder):
    """Part 3: per regime-II run whose gate (1, 1) ends on its kink, whether a checkpoint before the capture lies in
    U_II^above (40 digits from the float states: evidence only), else what fails there."""
    p, runs = captured_runs(folder)
    inside, total, failing = 0, 0, {}
    for row, run, band, states, captured in runs:
        if captured is None:
            continue
        total += 1
        entry, reasons = None, []
        for index, (u, v, w) in enumerate(states[:captured]):
            U, V, W = ([mp.mpf(float(x)) for x in block] for block in (u, v, w))
            if U[1] + V[1] <= band:
                reasons.append("gate (1, 1) not above its kink")
                continue
            failure = pattern_failure(p, U, V, W, band)
            if failure:
                reasons.append(failure)
                continue
            found = best_h(p, U, V, W)
            if min(found["margins"].values()) > 0:
                entry = index
                break
            reasons.append("(S.36): " + min(found["margins"], key=found["margins"].get))
        above = any(r != "gate (1, 1) not above its kink" for r in reasons) or entry is not None
        print(f"p = {p}, sample {row['index']}: captured at t = {run.times[captured]:.3g}; "
              + (f"in U_II^above at t = {run.times[entry]:.3g}" if entry is not None else
                 "never in U_II^above at a checkpoint before" + ("" if above else " (never above its kink)"))
              + last_above(p, run, band, states, captured))
        inside += entry is not None
        for reason in dict.fromkeys(reasons):  # first-seen order: the summary line is the same on every run
            failing[reason] = failing.get(reason, 0) + 1
    print(f"p = {p}: {total} runs with the gate (1, 1) on its kink at the horizon; in {inside} a checkpoint before "
          f"the capture lies in U_II^above; runs with a checkpoint failing by each reason: {failing}")


#: Part 4: a sup-norm box around a base point: (X, e, t, d, E), the fraction f of h = f 2 mu_0 and the radius r;
#: the best box mass of a grid (X in {2, 2.5, 3}, r from 0.003 to 0.008, e = 4r, d in {2.5r, 3r, 4r}, at E = 2,
#: 2.5 or 3 (p = 5), 3 (p = 7), 4 (p = 13)) whose 60 random corners all satisfy (S.36) at 20 digits (p = 5: with
#: d lowered from 0.021 to 0.018, where 2 of 200 corners failed the race).
BOX = {5: (("3", "0.028", "0.5", "0.018", "2"), "0.6", "0.007"),
       7: (("2.5", "0.02", "0.5", "0.0125", "3"), "0.6", "0.005"),
       13: (("2.5", "0.012", "0.5", "0.0075", "4"), "0.6", "0.003")}


def box_corners(p, count, seed=1):
    """Part 4: how many of ``count`` random corners of the sup-norm box BOX[p] satisfy (S.36) at 40 digits with one
    h, and log10 of the box's N(0, I) mass, alone and times p^2 (p - 1) (the relabelled copies counted as for
    `certify twin_plus`, section 11.11; for the 2 x 2 block of this pattern their disjointness is not proved here).
    Corners only: evidence for a certificate's design, not a check of the box."""
    parameters, fraction, radius = BOX[p]
    X, e, t, d, E = (mp.mpf(x) for x in parameters)
    u, v, w = base_point(p, X, e, t, d, E)
    theta, radius = u + v + w, mp.mpf(radius)
    h = 2 * mp.mpf(fraction) * (2 * E + d) / p
    inside, smallest = 0, {}
    for corner in random_corners(theta, [radius] * (3 * p), count, seed):
        found = s36_margins(p, corner[:p], corner[p:2 * p], corner[2 * p:], h)
        if found is not None and min(found["margins"].values()) > 0:
            inside += 1
            for key, value in found["margins"].items():
                smallest[key] = min(smallest.get(key, mp.inf), value)
    mass = box_log10_mass(theta, [radius] * (3 * p))
    shown = ", ".join(f"{k} {mp.nstr(x, 3)}" for k, x in smallest.items())
    print(f"p = {p}: box of radius {radius} around X, e, t, d, E = {parameters}, h = {mp.nstr(h, 4)}: {inside} of "
          f"{count} random corners satisfy (S.36) (smallest margins: {shown}); log10 of its N(0, I) mass "
          f"{mp.nstr(mass, 5)}, times p^2 (p - 1): {mp.nstr(mass + mp.log10(p ** 2 * (p - 1)), 5)}")
    for tight, name in ((False, "Remark S3.5's bounds"), (True, "Remark S3.6's tighter b_+ and rho_+")):
        bounds = remark_margins(p, X, e, t, d, E, h, radius, tight)
        failing = {k: mp.nstr(x, 3) for k, x in bounds["margins"].items() if not x > 0}
        delta = "none (sqrt(F_0) + rho_+ >= 2)" if bounds["delta_minus"] is None else mp.nstr(bounds["delta_minus"], 4)
        print(f"  at {name}: b_+ = {mp.nstr(bounds['b_plus'], 4)}, rho_+ = {mp.nstr(bounds['rho_plus'], 5)}, "
              f"delta_- = {delta}; " + (f"failing margins {failing}" if failing else "every margin of (S.36) positive"))


def loss_excess_bound(p, X, e, d, E, r, tight=False):
    """b_+, an upper bound of b0 = Lambda_4 - 3 log 2 on the sup-norm box of radius r around the base point: Remark
    S3.5's (section 9.2's bound of Lambda, transcribed, plus ell_2+), or with ``tight`` Remark S3.6 (ii)'s, the
    largest of F(a, b) at the four corners of the offsets (a, b) of w(0), w(1). Current mpmath precision."""
    s = (X + e) / 2

    def log_sum(z, terms):  # log(sum count e^{z exponent}) over (exponent, count)
        return mp.log(mp.fsum(count * mp.exp(z * exponent) for exponent, count in terms))

    if not tight:
        ell_0 = log_sum(X - 2 * r, ((0, 1), (-d + 2 * r, 1), (-(E + d) + 2 * r, p - 2)))
        ell_1 = max(log_sum(z, ((0, 1), (d + 2 * r, 1), (-E + 2 * r, p - 2))) for z in (s - 2 * r, s + 2 * r))
        ell_2 = log_sum(e + 2 * r, ((E + d + 2 * r, 1), (E + 2 * r, 1), (2 * r, p - 2)))
        return ell_0 + 2 * ell_1 + ell_2 - mp.log(p) - 3 * mp.log(2)
    values = []
    for a in (-r, r):
        for b in (-r, r):
            D = d + a - b
            ell_0 = log_sum(X - 2 * r, ((0, 1), (-D, 1), (-(E + d - r + a), p - 2)))
            ell_1 = max(log_sum(z, ((0, 1), (D, 1), (-(E - r + b), p - 2))) for z in (s - 2 * r, s + 2 * r))
            ell_2 = log_sum(e + 2 * r, ((E + d + a + r, 1), (E + b + r, 1), (0, 1), (2 * r, p - 3)))
            values.append(ell_0 + 2 * ell_1 + ell_2 - mp.log(p) - 3 * mp.log(2))
    return max(values)


def remark_margins(p, X, e, t, d, E, h, r, tight=False):
    """:func:`s36_at` at Remark S3.5's bounds on the sup-norm box of radius r around the base point (docs/staircase.md,
    section 11.12), at the current mpmath precision, with b_+. With ``tight``, Remark S3.6's b_+ (the offsets of w(0),
    w(1) together) and rho_+ (gamma_max's growth bounded by min(delta_c, eta)): what `certify twin_above` states
    (section 11.13; floats of 40 digits here, where certify/kernel/twin_above.py computes the same in balls)."""
    s, mu0 = (X + e) / 2, (2 * E + d) / p
    b_plus = loss_excess_bound(p, X, e, d, E, r, tight)
    g_low = mu0 - 2 * (p - 1) * r / p
    base = base_point(p, X, e, t, d, E)
    C_plus = max(mp.mpf(0), p * r ** 2 + mp.fsum((abs(x) + r) ** 2 for x in base[0] + base[1])
                 - mp.fsum(max(abs(x) - r, mp.mpf(0)) ** 2 for x in base[2]))
    bounds = {"e": e + 2 * r, "b0": b_plus, "m": min(s, t) - 2 * r, "N": E + 2 * r, "M": E + d + 2 * r,
              "z0": s + 2 * r, "X_low": X - 2 * r, "X_high": X + 2 * r, "r_high": s + 2 * r, "c_high": s + 2 * r,
              "D_low": d - 2 * r, "D_high": d + 2 * r, "S": (p - 2) * (mu0 - 4 * r / p), "g_min": g_low,
              "g_2": g_low, "g_max": mu0 + 2 * (p - 1) * r / p, "C_plus": C_plus}
    return {**s36_at(p, h, bounds, tight), "b_plus": b_plus}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="*", default=sorted(PARAMETERS), choices=sorted(PARAMETERS))
    parser.add_argument("--horizon", type=float, default=1e5)
    parser.add_argument("--law", nargs="*", default=[], help="certify law folders (part 3)")
    parser.add_argument("--box", type=int, default=0, metavar="N", help="part 4: N random corners of BOX[p]")
    args = parser.parse_args(argv)
    if not args.horizon >= 10:
        parser.error(f"--horizon must be at least 10 (the simulator's checkpoints), got {args.horizon}")
    mp.mp.dps = 40
    for p in args.p:
        u, v, w = base_point(p, *(mp.mpf(x) for x in PARAMETERS[p]))
        h = mp.fsum(w) / p - w[2]  # gamma_2: the rate margin is then about gamma_2 (the largest h is 2 gamma_2)
        point = {**s36_margins(p, u, v, w, h), "h": h}
        norm2 = mp.fsum(x ** 2 for x in u + v + w)
        density = -norm2 / 2 / mp.log(10) - 3 * p / 2 * mp.log10(2 * mp.pi)
        shown = ", ".join(f"{k} {mp.nstr(x, 4)}" for k, x in point["margins"].items())
        delta = "none" if point["delta_minus"] is None else mp.nstr(point["delta_minus"], 4)
        print(f"p = {p}: X, e, t, d, E = {PARAMETERS[p]}; b0 = {mp.nstr(point['b0'], 4)}, "
              f"h = {mp.nstr(point['h'], 4)}, t_c = {mp.nstr(point['t_c'], 4)}, "
              f"rho_+ = {mp.nstr(point['rho_plus'], 6)}, delta_- = {delta}; margins of (S.36): {shown}; "
              f"log10 of the N(0, I) density at the point: {mp.nstr(density, 4)}")
        follow(p, u + v + w, point, args.horizon)
    for folder in args.law:
        above_before_capture(Path(folder))
    if args.box:
        for p in args.p:
            if p in BOX:
                box_corners(p, args.box)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
