"""Theorem S3 and Proposition S3.2 (docs/staircase.md, section 11.10): a point of U_II^+, the flow from it, and the
race (S.31) along measured regime-II runs.

    python examples/staircase/regime2_positive.py [--p P ...] [--horizon T] [--law LAW_DIR ...]

1. For each p, the base point (exact parameters X, e, t, d, E > 0)

       u = v = (X/2, s - X/2, -X/2 - t, ..., -X/2 - t),  s = (X - e)/2,   w = (E + d, E, 0, ..., 0) - mu_0 1,

   mu_0 = (2E + d)/p, so that z00 = X, z01 = z10 = s, z11 = -e, the boundary gates are -t, D = d > 0 and rho = 1.
   It evaluates every quantity of Proposition S3.2 at 40 digits (mpmath), searches h on a grid, and prints the
   margins of (S.34) and the log10 of the Gaussian density at the point (sigma = 1).
2. It follows the full-network Filippov flow (certify.law.flow, floats) from the point to the horizon and prints
   the first checkpoint with the gate (1, 1) on its kink (within the simulator's kink band) against t_c, and,
   over the later checkpoints: whether the pattern is kept, the smallest -g_1(r) and -g_1(c) (Lemma S.15: > 0),
   and the largest D(t) / (D0 exp(-kappa0 t/p^2)) while the latter is above 1e-12 max|w|
   (D's float error is about 2 eps max|w|) (Theorem S3, item 2: <= 1).
3. With --law, for every k = 2 staircase with one common step of each `certify law` folder (re-simulated as in
   regime2_candidate.py), the first checkpoint from which the gate (1, 1) stays on its kink, and the first
   checkpoint, after it, at which the state with z11 set to 0 satisfies F_II^+'s conditions: D >= 0, the window
   b < beta(p, rho), kappa > 2b and the race (S.31). Theorem S3 needs them at one time only; later in a run
   D is float noise of either sign (|D| up to about 1e-10), so the summary counts a run only where D > 1e-6 there.
   Beside it, for the same runs: whether some checkpoint before the capture lies in U_II^+ (Proposition S3.2's
   region of initial points, the region `certify twin_plus` certifies a box of; h on a grid), and otherwise the
   first condition that fails at each such checkpoint: the gate (1, 1) active (z11 above the kink band: U_II^+
   asks z11 < 0), D <= 0 or some gamma_j <= 0, the tails' rate (S0 e^{-z0 M0} <= D0: no h > 0 works), or the
   pattern (a boundary gate on its kink or active) and the margins of (S.34).
4. With --box N, at p = 5: N random corners of a product box (thin in u(1) and v(1), which set z11, wide
   elsewhere) checked against (S.34) at 40 digits, and the box's Gaussian mass: the shape a certificate of U_II^+
   would need (docs/staircase.md section 11.10).

Parts 1 and 4 are 40-digit arithmetic but not a certificate (no balls, no checker); parts 2 and 3 are floats
at checkpoints: evidence beside the proof, not part of it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import mpmath as mp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entrance import canonical, staircase_runs  # noqa: E402  (entrance.py's relabelling and runs)
from entrance import ell as ell_float  # noqa: E402  (entrance.py's float (A.2))
from regime2_candidate import force  # noqa: E402

#: Base-point parameters (X, e, t, d, E) per p, chosen by hand (floats) so that (S.34) holds with room.
PARAMETERS = {5: ("2", "1e-3", "1", "1e-2", "4"), 7: ("2", "1e-3", "1", "1e-2", "4.5"),
              13: ("2", "3e-4", "1", "5e-3", "5.5")}


def q_star(b):
    """q_*(b) = 2 (1 - b)/(1 + e^{2 acosh(e^b)}) (section 11.7)."""
    return 2 * (1 - b) / (1 + mp.exp(2 * mp.acosh(mp.exp(b))))


def beta(p, rho):
    """beta(p, rho) = min(log(p/4), 2/((p - 1) rho)) (section 11.10)."""
    return min(mp.log(mp.mpf(p) / 4), 2 / ((p - 1) * rho))


def race_exponent(z, M, b, kappa):
    """z M + (z + M)^2 b/(2 (kappa - 2 b)): (S.31) reads D < S exp(-race_exponent)."""
    return z * M + (z + M) ** 2 * b / (2 * (kappa - 2 * b))


def ell(z, w, y):
    """(A.2) at mpmath precision: log sum_c e^{z (w(c) - w(y))}."""
    return mp.log(mp.fsum(mp.exp(z * (wc - w[y])) for wc in w))


def base_point(p, X, e, t, d, E):
    """(u, v, w) of the base point, as mpf lists."""
    s = (X - e) / 2
    u = [X / 2, s - X / 2] + [-X / 2 - t] * (p - 2)
    mu0 = (2 * E + d) / p
    w = [E + d - mu0, E - mu0] + [-mu0] * (p - 2)
    return u, list(u), w


def s34_margins(p, u, v, w, h):
    """The margins of Proposition S3.2's hypotheses (S.34) at the state (u, v, w) (mpf lists) with the parameter h,
    and b0, as a dict (every margin > 0 means the state is in U_II^+); None where the pattern, gamma_j > 0 or
    D > 0 fails."""
    gate = [[u[a] + v[b] for b in range(p)] for a in range(p)]
    X, r, c, z11 = gate[0][0], gate[0][1], gate[1][0], gate[1][1]
    others = [gate[a][b] for a in range(p) for b in range(p) if (a, b) not in ((0, 0), (0, 1), (1, 0), (1, 1))]
    mu = mp.fsum(w) / p
    gamma = [mu - x for x in w[2:]]
    D0 = w[0] - w[1]
    if not (min(X, r, c) > 0 and z11 < 0 and max(others) < 0 and min(gamma) > 0 and D0 > 0):
        return None
    b0 = ell(X, w, 0) + ell(r, w, 1) + ell(c, w, 1) - 3 * mp.log(2)
    e, m = -z11, min(X, r, c, -max(others))
    S0, M0, z0, rho = mp.fsum(gamma), w[0] - min(w[2:]), max(r, c), max(gamma) / min(gamma)
    b_plus = max(b0, mp.mpf(0))
    t_c, D_p = p ** 2 * e / h, D0 + e ** 2 / h
    delta_c = mp.sqrt(2 * (b0 + D_p * e / 2) * t_c) / p
    z_p, M_p, X_m = z0 + delta_c, M0 + delta_c, X - delta_c
    kappa_m = mp.mpf(3) / 4 * q_star(b_plus) * X_m ** 2
    margins = {"delta_c < m": m - delta_c, "capture rate": 2 * (S0 * mp.exp(-z_p * M_p) - D_p) / p - h,
               "kappa_- > 2 b_+": kappa_m - 2 * b_plus, "window": beta(p, rho) - b0}
    margins["race (log)"] = (mp.log(S0) - race_exponent(z_p, M_p, b_plus, kappa_m) - mp.log(D_p)
                             if margins["kappa_- > 2 b_+"] > 0 else mp.mpf(-1))
    return {"margins": margins, "b0": b0, "t_c": t_c}


def capture_margins(p, X, e, t, d, E):
    """Proposition S3.2's quantities at the base point, for the best h of a grid: a dict, or None if no h works."""
    u, v, w = base_point(p, X, e, t, d, E)
    s = (X - e) / 2
    mu0 = (2 * E + d) / p
    top = 2 * ((p - 2) * mu0 * mp.exp(-s * (E + d)) - d) / p
    best = None
    for fraction in np.linspace(0.05, 0.95, 19):
        h = top * mp.mpf(float(fraction))
        found = s34_margins(p, u, v, w, h)
        if found is None or min(found["margins"].values()) <= 0:
            continue
        if best is None or found["margins"]["race (log)"] > best["margins"]["race (log)"]:
            best = {**found, "h": h, "theta": u + v + w, "D0": d,
                    "kappa0": mp.mpf(3) / 4 * q_star(max(found["b0"], mp.mpf(0))) * X ** 2}
    return best


#: Part 4: a product box around a base point, thin in u(1) and v(1) (they set z11) and wide elsewhere:
#: (X, e, t, d, E), h, the thin and the wide radius; chosen by hand (floats).
BOX = {5: (("2", "5e-4", "1", "2e-2", "4"), "8e-3", "1e-4", "4e-3")}


def random_corners(theta, radius, count, seed=1):
    """``count`` random corners of the product box theta +- radius (mpf lists, one radius per coordinate)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield [x + int(sign) * rad for x, sign, rad in zip(theta, rng.choice([-1, 1], len(theta)), radius)]


def box_log10_mass(theta, radius):
    """log10 of the N(0, I) mass of the product box theta +- radius (mpf lists)."""
    return mp.fsum(mp.log10(mp.ncdf(x + rad) - mp.ncdf(x - rad)) for x, rad in zip(theta, radius))


def float_flow(p, theta0, horizon):
    """The full-network flow (certify.law.flow, floats) from theta0 to the horizon: (the simulator's kink band,
    [(time, u, v, w, gates z) at each checkpoint]), or None after printing why the flow stopped."""
    from certify.law.flow import simulate_flow
    run = simulate_flow(np.array([float(x) for x in theta0]), p, horizon=horizon)
    if run.failure:
        print(f"  the flow did not reach the horizon: {run.failure}")
        return None
    checkpoints = []
    for time, state in zip(run.times, run.states):
        u, v, w = state[:p], state[p:2 * p], state[2 * p:]
        checkpoints.append((time, u, v, w, u[:, None] + v[None, :]))
    return float(np.max(run.kink_band)), checkpoints


def box_corners(p, count, seed=1):
    """Part 4: how many of ``count`` random corners of BOX[p] satisfy (S.34) at 30 digits, and log10 of the box's
    N(0, I) mass times the p^2 (p - 1) relabelled copies (section 11.9's count). Corners only: evidence for a
    certificate's design, not a check of the box."""
    parameters, h, thin, wide = BOX[p]
    u, v, w = base_point(p, *(mp.mpf(x) for x in parameters))
    theta = u + v + w
    radius = [mp.mpf(wide)] * (3 * p)
    radius[1] = radius[p + 1] = mp.mpf(thin)
    inside = 0
    for corner in random_corners(theta, radius, count, seed):
        found = s34_margins(p, corner[:p], corner[p:2 * p], corner[2 * p:], mp.mpf(h))
        inside += found is not None and min(found["margins"].values()) > 0
    mass = box_log10_mass(theta, radius)
    print(f"p = {p}: box around X, e, t, d, E = {parameters}, radius {thin} in u(1), v(1) and {wide} elsewhere, "
          f"h = {h}: {inside} of {count} random corners satisfy (S.34); log10 of its N(0, I) mass times p^2 (p - 1): "
          f"{mp.nstr(mass + mp.log10(p ** 2 * (p - 1)), 4)}")


def follow(p, theta0, point, horizon):
    """Part 2: the float flow from the point, measured at its checkpoints."""
    flow = float_flow(p, theta0, horizon)
    if flow is None:
        return
    band, checkpoints = flow
    kappa0, D0 = float(point["kappa0"]), float(point["D0"])
    captured, kept, slack, worst = None, True, math.inf, 0.0
    for time, u, v, w, z in checkpoints:
        others = np.ones_like(z, dtype=bool)
        others[0, 0] = others[0, 1] = others[1, 0] = False
        kept &= bool(z[0, 0] > band and z[0, 1] > band and z[1, 0] > band and np.all(z[others] <= band))
        if captured is None and abs(z[1, 1]) <= band:
            captured = time
        if captured is not None:
            slack = min(slack, -force(z[0, 1], w, 1), -force(z[1, 0], w, 1))
            bound = D0 * math.exp(-kappa0 * time / p ** 2)
            # D = w(0) - w(1) in floats carries an absolute error of about 2 eps max|w| (1e-15 here, |w| < 10), so
            # the ratio is read only where the bound is 1000 times above that
            if bound > 1e-12 * max(1.0, float(np.abs(w).max())):
                worst = max(worst, (w[0] - w[1]) / bound)
    print(f"  flow to t = {horizon:.3g}: gate (1, 1) on its kink from the checkpoint t = {captured} "
          f"(t_c = {float(point['t_c']):.4g}); pattern kept at every checkpoint: {kept}; smallest -g_1(r), -g_1(c) "
          f"after capture: {slack:.3g}; largest D / (D0 exp(-kappa0 t/p^2)): {worst:.3g}")


#: Late in these runs D is float noise of either sign, |D| up to about 1e-10 (the kink snapping and the solver's
#: tolerance, not rounding alone); a sign read at D above NOISE, 10^4 times that, is taken as meaningful.
NOISE = 1e-6


def captured_runs(folder):
    """(p, runs): the k = 2 staircases with one common step of a `certify law` folder, re-simulated, as tuples
    (row, run, band, states, captured): the simulator's kink band, the checkpoint states relabelled to the canonical
    form (entrance.canonical), and the index of the first checkpoint from which the gate (1, 1) stays on its kink
    (within the band), or None."""
    p, rows, trajectory_of = staircase_runs(folder, None)

    def runs():
        for row in rows:
            run = trajectory_of(row)
            if run is None:
                continue
            rws, cols = [int(x) for x in row["rows"].split()], [int(x) for x in row["columns"].split()]
            band = float(np.max(run.kink_band))
            states = [canonical(s, p, rws, cols, int(row["delta"])) for s in run.states]
            on = [abs(u[1] + v[1]) <= band for u, v, _ in states]
            yield row, run, band, states, next((i for i in range(len(on)) if all(on[i:])), None)
    return p, runs()


def race_along(folder):
    """Part 3: the first checkpoint from which F_II^+ holds (z11 set to 0) along each regime-II run."""
    p, runs = captured_runs(folder)
    sides = []  # per captured run: None (D < 0), else whether F_II^+ holds from a checkpoint on
    entries = []  # per run captured with D >= 0: whether a checkpoint before the capture lies in U_II^+
    for row, run, band, states, captured in runs:
        if captured is None:
            print(f"p = {p}, sample {row['index']}: the gate (1, 1) is not on its kink at the horizon (regime I)")
            continue
        D = states[captured][2][0] - states[captured][2][1]
        head = f"p = {p}, sample {row['index']}: on its kink from t = {run.times[captured]:.3g} with D = {D:+.2g}; "
        if D < 0:  # Lemma S.10: D < 0 stays < 0 on the face (Theorem S2's side); its later float sign is noise
            print(head + "D < 0: Theorem S2's side")
            sides.append(None)
            continue
        entry, failing = region_before_capture(p, states[:captured], band)
        print(f"p = {p}, sample {row['index']}: before the capture, " +
              (f"in U_II^+ at t = {run.times[entry]:.3g}" if entry is not None else
               "never in U_II^+ at a checkpoint (" + ", ".join(f"{k}: {v}" for k, v in failing.items()) + ")"))
        entries.append(entry is not None)
        first = next((i for i in range(captured, len(states)) if in_face_plus(p, *states[i])), None)
        D_first = None if first is None else states[first][2][0] - states[first][2][1]
        sides.append(D_first is not None and D_first > NOISE)
        print(head + "F_II^+ (race (S.31)) " + ("never" if first is None else
                                               f"first at t = {run.times[first]:.3g}, D = {D_first:.2g}"))
    positive = [x for x in sides if x is not None]
    print(f"p = {p}: {len(sides)} runs captured by the horizon, {len(positive)} of them with D >= 0 at the capture "
          f"checkpoint; in {sum(positive)} of those F_II^+ holds at a checkpoint where D > {NOISE:g}; in "
          f"{sum(entries)} a checkpoint before the capture lies in U_II^+")


def region_before_capture(p, states, band):
    """(index of the first of ``states`` in U_II^+ with some h of a grid, or None; {failing condition: how many
    checkpoints}) at 30 digits from the float states (floats in, so evidence only)."""
    failing = {}

    def count(reason):
        failing[reason] = failing.get(reason, 0) + 1

    for index, (u, v, w) in enumerate(states):
        if u[1] + v[1] > -band:
            count("gate (1, 1) active or on its kink")
            continue
        U, V, W = ([mp.mpf(float(x)) for x in block] for block in (u, v, w))
        gamma = [mp.fsum(W) / p - x for x in W[2:]]
        D0 = W[0] - W[1]
        if D0 <= 0 or min(gamma) <= 0:
            count("D <= 0 or a gamma_j <= 0")
            continue
        top = 2 * (mp.fsum(gamma) * mp.exp(-max(U[0] + V[1], U[1] + V[0]) * (W[0] - min(W[2:]))) - D0) / p
        if top <= 0:
            count("the tails' rate")
            continue
        found = [s34_margins(p, U, V, W, top * mp.mpf(float(f))) for f in np.linspace(0.05, 0.95, 19)]
        if any(x is not None and min(x["margins"].values()) > 0 for x in found):
            return index, failing
        count("the pattern" if found[0] is None else "a margin of (S.34)")
    return None, failing


def in_face_plus(p, u, v, w) -> bool:
    """F_II^+'s conditions in floats at a state whose gate (1, 1) is taken as 0 (X = r + c)."""
    r, c = u[0] + v[1], u[1] + v[0]
    X = r + c
    D = w[0] - w[1]
    gamma = w.mean() - w[2:]
    if D < 0 or gamma.min() <= 0 or min(r, c) <= 0:
        return False
    rho = gamma.max() / gamma.min()
    b = ell_float(X, w, 0) + ell_float(r, w, 1) + ell_float(c, w, 1) - 3 * math.log(2)
    if not b < min(math.log(p / 4), 2 / ((p - 1) * rho)):
        return False
    b = max(b, 0.0)
    kappa = 0.75 * float(q_star(mp.mpf(b))) * X ** 2
    if kappa <= 2 * b:
        return False
    M = w[0] - w[2:].min()
    return bool(math.log(D) < math.log(gamma.sum()) - float(race_exponent(max(r, c), M, b, kappa))) if D > 0 else True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="*", default=sorted(PARAMETERS), choices=sorted(PARAMETERS))
    parser.add_argument("--horizon", type=float, default=1e6)
    parser.add_argument("--law", nargs="*", default=[], help="certify law folders (part 3)")
    parser.add_argument("--box", type=int, default=0, metavar="N", help="part 4: N random corners of BOX[5]")
    args = parser.parse_args(argv)
    mp.mp.dps = 40
    for p in args.p:
        X, e, t, d, E = (mp.mpf(x) for x in PARAMETERS[p])
        point = capture_margins(p, X, e, t, d, E)
        if point is None:
            print(f"p = {p}: no h on the grid satisfies (S.34) at X, e, t, d, E = {PARAMETERS[p]}")
            continue
        norm2 = mp.fsum(x ** 2 for x in point["theta"])
        density = -norm2 / 2 / mp.log(10) - 3 * p / 2 * mp.log10(2 * mp.pi)
        shown = ", ".join(f"{k} {mp.nstr(v, 4)}" for k, v in point["margins"].items())
        print(f"p = {p}: X, e, t, d, E = {PARAMETERS[p]}; b0 = {mp.nstr(point['b0'], 4)}, h = "
              f"{mp.nstr(point['h'], 4)}, t_c = {mp.nstr(point['t_c'], 4)}; margins of (S.34): {shown}; "
              f"log10 of the N(0, I) density at the point: {mp.nstr(density, 4)}")
        follow(p, point["theta"], point, args.horizon)
    for folder in args.law:
        race_along(Path(folder))
    if args.box:
        box_corners(5, args.box)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
