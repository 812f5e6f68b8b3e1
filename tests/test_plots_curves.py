"""The figures' curves follow what they claim (issue 24, item 4).

Every trajectory curve of a theorem's figure is read back from the Figure (its Line2D data, after the
layout, before anything is saved), sampled along the straight segments matplotlib draws between its points
(in display coordinates: on a log axis a segment is straight in log scale), and compared in pixels with the
quantity it claims to follow, computed here independently of certify.numeric:

  dead, panel (b)   the conserved curve (2.6), g^2 - p s^2/(2(p-1)) = constant (Gamma at the base point;
                    from a box point the value at its own start: the plotted g is sqrt(p/(p-1))||w - mean w||,
                    for which (2.6) holds exactly in the chamber, docs/mathematics.md 'The flow in reduced
                    coordinates': ||w||^2 - s^2/2 and mean(w) are conserved);
  dead, panel (a)   s(t), gamma(t) and the largest other gate from an independent integration of the
                    chamber's flow (A.54) written here (s and w only), and the frozen values after T;
  slide, panel (b)  d/x from the capture invariants (docs/mathematics.md 'Capture invariants'):
                    d^2 - p x^2/(2(p-1)) constant before capture, d^2 - kappa_p^2 x^2 after;
  smooth, (a), (b)  g(s) and ||w(s) - w(0)||_1 from the conserved ||w||^2 - J(s), J(s) = int_0^s sigma/sigma'
                    (J by Gauss-Legendre here, itself checked against scipy's quad);
  gd, (a), (c)      the iterates from one gradient step written here (A.54 with a step eta), frozen after.

The tolerance beside each comparison is an error estimate, not a measured number:

  * a vertex (a row of the record) is off by at most SOLVER_ERROR relative to the axis' scale (the ODE
    solvers run at rtol 1e-10: the local error per step is below rtol |y| + atol, the global error over the
    few hundred steps and the dense-output interpolant between them stays below 10^3 rtol), converted to
    pixels through the axes' transform (a horizontal error counts times the curve's slope);
  * between two vertices H pixels apart the straight segment is within H^2/8 max|q''| of the curve q
    (linear interpolation of a C^2 function), max|q''| the largest second difference of the exact curve
    at 9 points of the segment, doubled (q'' changes by far less than a factor 2 over one segment).

Every drawn point must lie within that estimate of the claimed curve, and the estimate itself must be
below a quarter of a pixel (QUARTER_PIXEL; the curves are drawn 1.2-1.8 pt wide, 1.7-2.5 px at 100 dpi):
the figure follows what it claims to less than anyone can see. The dead figure at p = 101 drew straight
segments between its 24 rows (the natural DOP853 steps once p > 13): run against that code, the check finds
panel (b) up to 10 px off (2.6) (measured; the estimate said 21 px) and fails, as the box figure does (it
drew mean_j w(j) - w(0), which (2.6) does not hold for off the symmetric point).
"""

from __future__ import annotations

import json
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import matplotlib  # noqa: F401 - the test extra installs it; a missing plotter is a failure, not a skip

from certify.render.plots import draw_figure
from certify.simulate import simulate_instance

ROOT = Path(__file__).resolve().parent.parent
#: Relative error of a plotted vertex, of the axis' scale (see the module docstring).
SOLVER_ERROR = 1e-7
#: What a reader cannot see: a quarter of a pixel at the default size (1500 x 450 px).
QUARTER_PIXEL = 0.25
#: Points per drawn segment at which the deviation is measured (ends included).
PER_SEGMENT = 8
_CACHE: dict = {}


def certificate(theorem: str, p: int) -> dict:
    path = ROOT / "proofs" / theorem / f"{theorem}-{p}.json"
    if path.exists():
        return json.loads(path.read_text())
    import certify

    return json.loads(getattr(certify, theorem)(p=p, **({"eta": "1/10"} if theorem == "gd" else {})).to_json())


def drawn(theorem: str, p: int, source: str):
    """(record, figure) of the theorem's figure at p from the base point or a box point (seed 2), cached."""
    key = (theorem, p, source)
    if key not in _CACHE:
        record = simulate_instance(certificate(theorem, p), source, seed=2)
        _CACHE[key] = record, draw_figure(record)
    return _CACHE[key]


def line(ax, label_start: str):
    """The one Line2D of ``ax`` whose legend label starts with ``label_start``."""
    found = [artist for artist in ax.get_lines() if artist.get_label().startswith(label_start)]
    assert len(found) == 1, (label_start, [artist.get_label() for artist in ax.get_lines()])
    return found[0]


def follows(ax, artist, claimed, along: str = "x") -> tuple[float, float, tuple]:
    """Check that ``artist`` as drawn on ``ax`` follows ``claimed`` (see the module docstring); returns
    (largest deviation, largest error estimate) in pixels and the data points where the estimate is largest.

    ``claimed(values, middle)``: the data coordinate the curve claims across the axis ``along`` ("x": y as a
    function of x), at the data ``values`` along it, for the segment whose middle (data, along) is
    ``middle`` (a curve with a kink chooses its piece by it). Markers without a line are checked as points.
    """
    along_axis, across = (0, 1) if along == "x" else (1, 0)
    data = np.asarray(artist.get_xydata(), dtype=float)
    shown = ax.transData.transform(data)
    inverse = ax.transData.inverted()
    # the scale of each coordinate: the axis' view range plus the magnitude (a log axis' error is relative)
    span = np.array([np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim())]) + np.abs(data).max(axis=0)
    centre = ax.transData.transform(data.mean(axis=0))

    def exact(positions, middle):
        """The claimed curve in display coordinates: across-coordinate at display along-positions."""
        points = np.tile(centre, (len(positions), 1))
        points[:, along_axis] = positions
        values = inverse.transform(points)[:, along_axis]
        claim = np.empty((len(positions), 2))
        claim[:, along_axis], claim[:, across] = values, claimed(values, middle)
        return ax.transData.transform(claim)[:, across]

    def vertex_error(index, slope) -> float:
        """Display error of vertex ``index`` when each data coordinate is off by SOLVER_ERROR of its scale."""
        worst = 0.0
        for sign in (-1.0, 1.0):
            moved = ax.transData.transform(data[index] + sign * SOLVER_ERROR * span) - shown[index]
            worst = max(worst, abs(moved[across]) + abs(slope) * abs(moved[along_axis]))
        return worst

    largest, estimate, where = 0.0, 0.0, ()
    if artist.get_linestyle() in ("None", "none", "", " ") or len(data) == 1:  # points
        for index in range(len(data)):
            middle = data[index, along_axis]
            deviation = abs(shown[index, across] - exact(shown[index:index + 1, along_axis], middle)[0])
            bound = vertex_error(index, 0.0)
            assert deviation <= bound + 1e-9, (index, deviation, bound)
            if bound > estimate:
                where = tuple(data[index])
            largest, estimate = max(largest, deviation), max(estimate, bound)
        return largest, estimate, where
    fractions = np.linspace(0.0, 1.0, PER_SEGMENT + 1)
    for index in range(len(data) - 1):
        a, b = shown[index], shown[index + 1]
        middle = 0.5 * (data[index, along_axis] + data[index + 1, along_axis])
        points = a + fractions[:, None] * (b - a)
        deviation = float(np.max(np.abs(points[:, across] - exact(points[:, along_axis], middle))))
        width = abs(b[along_axis] - a[along_axis])
        grid = np.linspace(min(a[along_axis], b[along_axis]), max(a[along_axis], b[along_axis]), 9)
        values = exact(grid, middle)
        if width > 1e-12:
            step = grid[1] - grid[0]
            slope = float(np.max(np.abs(np.diff(values)))) / step
            chord = width**2 / 8 * 2 * float(np.max(np.abs(values[2:] - 2 * values[1:-1] + values[:-2]))) / step**2
        else:
            slope, chord = 0.0, 0.0
        bound = max(vertex_error(index, slope), vertex_error(index + 1, slope)) + chord
        # 1e-9 px: the affine transforms' own rounding (1e3 px times the double's 1e-16, with room)
        assert deviation <= bound + 1e-9, (index, deviation, bound, width, chord)
        if bound > estimate:
            where = (tuple(data[index]), tuple(data[index + 1]))
        largest, estimate = max(largest, deviation), max(estimate, bound)
    return largest, estimate, where


def invisible(result: tuple[float, float, tuple]) -> None:
    largest, estimate, where = result
    assert estimate <= QUARTER_PIXEL, f"the drawn curve may be {estimate:.3g} px off what it claims at {where}"
    assert largest <= QUARTER_PIXEL


# ----------------------------------------------------------------------------------------------------------
# dead: (2.6) and an independent integration of the chamber's flow
# ----------------------------------------------------------------------------------------------------------


def chamber_flow(record: dict):
    """The flow (A.54) from the record's start, written here: s = u(0) + v(0) and w, with
    ds/dt = -(2/p^2) D, dw_c/dt = -(s/p^2)(q_c - 1{c=0}), q = softmax(s w), D = q.w - w(0), until s = 0.
    Returns (dense solution in t of (s, w), death time)."""
    from scipy.integrate import solve_ivp
    from scipy.special import softmax

    p = record["p"]
    start = np.concatenate([[record["u0"][0] + record["v0"][0]], record["w0"]])
    e0 = np.eye(p)[0]

    def field(_t, y):
        s, w = y[0], y[1:]
        q = softmax(s * w)
        return np.concatenate([[-2.0 / p**2 * (q @ w - w[0])], -(s / p**2) * (q - e0)])

    def death(_t, y):
        return y[0]

    death.terminal, death.direction = True, -1
    horizon = 10.0 * record["t_death"]
    solution = solve_ivp(field, (0.0, horizon), start, method="DOP853", rtol=1e-12, atol=1e-14,
                         dense_output=True, events=death)
    assert solution.status == 1
    return solution.sol, float(solution.t_events[0][0])


@pytest.mark.parametrize("source", ["base", "box"])
def test_dead_path_lies_on_its_conserved_curve_at_p_101(source):
    record, figure = drawn("dead", 101, source)
    p = record["p"]
    c = Fraction(p, 2 * (p - 1))
    if source == "base":  # Gamma of (2.6) from the certificate's exact parameters
        parameters = certificate("dead", 101)["parameters"]
        value = float(Fraction(parameters["A"]) ** 2 - c * Fraction(parameters["epsilon"]) ** 2)
    else:  # the start's own value: g = sqrt(p/(p-1)) ||w - mean w||_2
        w0 = record["w0"]
        value = float(p / (p - 1) * np.sum((w0 - w0.mean()) ** 2) - float(c) * (record["u0"][0] + record["v0"][0]) ** 2)
    ax = figure.axes[1]
    path = line(ax, "trajectory")
    invisible(follows(ax, path, lambda s, _: np.sqrt(value + float(c) * s**2)))


@pytest.mark.parametrize("source", ["base", "box"])
def test_dead_gates_follow_the_flow_at_p_101(source):
    record, figure = drawn("dead", 101, source)
    flow, death = chamber_flow(record)
    p = record["p"]
    u0, v0 = record["u0"], record["v0"]
    difference = u0[0] - v0[0]  # u(0) - v(0) is conserved; the other u, v are constant
    others_u, others_v = u0[1:].max(), v0[1:].max()

    def state(t):
        return flow(np.minimum(t, death))

    def s_of(t, _):
        return state(t)[0]

    def gamma_of(t, _):
        w = state(t)[1:]
        return w.mean(axis=0) - w[0]

    def other_gate_of(t, _):
        s = state(t)[0]
        return np.maximum.reduce([(s + difference) / 2 + others_v, (s - difference) / 2 + others_u,
                                  np.full_like(s, others_u + others_v)])

    ax = figure.axes[0]
    for label, claimed in (("$s = ", s_of), (r"$\gamma = ", gamma_of), (r"$\mathrm{max}_", other_gate_of)):
        invisible(follows(ax, line(ax, label), claimed))
    # the dotted continuations for t >= T: the dead state's values, constant
    final = {"s": s_of(np.array([death]), None)[0], "gamma": gamma_of(np.array([death]), None)[0],
             "gate": other_gate_of(np.array([death]), None)[0]}
    frozen = [artist for artist in ax.get_lines() if artist.get_linestyle() == ":" and len(artist.get_xdata()) == 2
              and artist.get_xdata()[0] == record["t_death"]]
    assert len(frozen) == 3
    for artist, value in zip(frozen, final.values()):
        invisible(follows(ax, artist, lambda t, _, value=value: np.full_like(t, value)))
    assert abs(record["t_death"] - death) <= SOLVER_ERROR * death
    assert p == 101


# ----------------------------------------------------------------------------------------------------------
# slide: the capture invariants
# ----------------------------------------------------------------------------------------------------------


def test_slide_d_over_x_follows_the_capture_invariants():
    record, figure = drawn("slide", 13, "base")
    p = record["p"]
    parameters = certificate("slide", 13)["parameters"]
    X, gamma_star = float(Fraction(parameters["X"])), float(Fraction(parameters["gamma_star"]))
    c, kappa2 = p / (2 * (p - 1)), p * p / (2 * (p - 1))
    d0 = 2 * p * gamma_star
    capture = 6 * X  # the symmetric point captures every cross gate x/2 - 3X at once, at x = 6X
    d_capture2 = d0**2 + c * (capture**2 - 4 * X**2)

    def d_over_x(x, middle):
        if middle <= capture:  # before capture: d^2 - c x^2 = d0^2 - 4 c X^2
            return np.sqrt(d0**2 + c * (x**2 - 4 * X**2)) / x
        return np.sqrt(d_capture2 + kappa2 * (x**2 - capture**2)) / x  # after: d^2 - kappa_p^2 x^2 constant

    assert record["event_x"].tolist() == pytest.approx([capture], rel=SOLVER_ERROR)
    ax = figure.axes[1]
    invisible(follows(ax, line(ax, "$d/x$"), d_over_x))


@pytest.mark.parametrize("source, says", [("base", "flat all along"), ("box", "flattens")])
def test_slide_spectrum_panel_says_what_its_data_show(source, says):
    from certify.render.plots import FLAT_ROUNDING

    record, figure = drawn("slide", 5, source)
    ax = figure.axes[2]
    title = ax.get_title()
    assert says in title
    excess = record["max_fourier_fraction"] - record["limit_fourier_fraction"]
    shown = line(ax, r"$\mathrm{max}_\zeta F_\zeta - 2/(p-1)$").get_ydata()
    if says == "flattens":  # the plotted range shows it: far from flat at the start, flat at the end
        assert shown[0] >= 1e3 * FLAT_ROUNDING and shown[-1] <= FLAT_ROUNDING
        assert "flat all along" not in title
    else:
        assert np.max(np.abs(excess)) <= FLAT_ROUNDING and "flattens" not in title


# ----------------------------------------------------------------------------------------------------------
# smooth: ||w||^2 - J(s) is conserved
# ----------------------------------------------------------------------------------------------------------


def ratio(z, eps):
    """sigma_eps(z)/sigma_eps'(z) for 0 < z < eps, sigma_eps(z) = z psi(z/eps), psi(t) = f(t)/(f(t) + f(1-t)),
    f(t) = exp(-1/t): psi' = psi (1 - psi)(1/t^2 + 1/(1-t)^2), so sigma/sigma' = z/(1 + (1 - psi)(1/t + t/(1-t)^2))."""
    from scipy.special import expit

    t = z / eps
    psi = expit(1 / (1 - t) - 1 / t)
    return z / (1 + (1 - psi) * (1 / t + t / (1 - t) ** 2))


_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(64)


def dead_zone_integral(s, eps):
    """J(s) = int_0^s sigma/sigma' by 64-point Gauss-Legendre on [0, s] (the integrand is smooth and flat at 0)."""
    nodes, weights = _GAUSS_LEGENDRE
    s = np.asarray(s, dtype=float)
    z = s[..., None] * (nodes + 1) / 2
    return np.sum(weights * ratio(z, eps), axis=-1) * s / 2


def test_smooth_curves_follow_the_conserved_quantity():
    from scipy.integrate import quad

    record, figure = drawn("smooth", 13, "base")
    p, eps = record["p"], record["eps_smooth"]
    for s in (0.01, 0.3, 1.0):  # the quadrature against scipy's adaptive one
        reference, error = quad(ratio, 0, s, args=(eps,), epsabs=1e-15, epsrel=1e-13, points=[s / 10])
        assert abs(dead_zone_integral(s, eps) - reference) <= 1e-12 + 10 * error
    s0 = record["u0"][0] + record["v0"][0]
    gamma0 = record["w0"].mean() - record["w0"][0]

    def gamma_of(s, _):  # p/(p-1) gamma^2 - J(s) constant at the symmetric point (w two-level)
        return np.sqrt(gamma0**2 - (p - 1) / p * (dead_zone_integral(s0, eps) - dead_zone_integral(s, eps)))

    def displacement_of(s, _):  # w(0) moves by -(gamma - gamma0), the p - 1 others by that over p - 1
        return 2 * (gamma0 - gamma_of(s, None))

    ax_a, ax_b = figure.axes[:2]
    invisible(follows(ax_a, line(ax_a, "$g = "), gamma_of))
    invisible(follows(ax_b, line(ax_b, r"$\|w(s) - w(0)\|_1$"), displacement_of))


# ----------------------------------------------------------------------------------------------------------
# gd: one step, then nothing
# ----------------------------------------------------------------------------------------------------------


def test_gd_iterates_are_the_step_and_then_frozen():
    from scipy.special import softmax

    record, figure = drawn("gd", 13, "base")
    p, eta = record["p"], record["eta"]
    u0, v0, w0 = record["u0"], record["v0"], record["w0"]
    s0 = u0[0] + v0[0]
    q = softmax(s0 * w0)
    D = q @ w0 - w0[0]
    s1 = s0 - 2 * eta * D / p**2  # u(0) and v(0) each move by -eta D/p^2 (A.54), nothing else in u, v
    u1_0, v1_0 = u0[0] - eta * D / p**2, v0[0] - eta * D / p**2
    other1 = max(u1_0 + v0[1:].max(), v1_0 + u0[1:].max(), u0[1:].max() + v0[1:].max())
    other0 = max(u0[0] + v0[1:].max(), v0[0] + u0[1:].max(), u0[1:].max() + v0[1:].max())
    moved = 2 * eta * s0 / p**2 * (1 - q[0])  # ||w1 - w0||_1 = eta s0/p^2 sum_c |q_c - 1{c=0}|
    assert s1 < 0 and other1 < 0  # every gate inactive: the gradient at theta_1 vanishes (ReLU'(0) = 0)
    ax_a, _, ax_c = figure.axes
    steps = {"central gate": (s0, s1), r"$\mathrm{max}_": (other0, other1)}
    for label, (before, after) in steps.items():
        artist = line(ax_a, label)
        assert artist.get_linestyle() == "None"  # iterates are points, nothing is drawn between them
        invisible(follows(ax_a, artist, lambda n, _, b=before, a=after: np.where(n < 0.5, b, a)))
    artist = line(ax_c, r"$\|w_n - w_0\|_1$")
    assert artist.get_linestyle() == "None"
    invisible(follows(ax_c, artist, lambda n, _: np.where(n < 0.5, 0.0, moved)))


# ----------------------------------------------------------------------------------------------------------
# the check itself fails on a curve that leaves its claim
# ----------------------------------------------------------------------------------------------------------


def test_straight_segments_between_sparse_points_are_caught():
    """Five straight segments through exact points of (2.6) at p = 101 (what the old figure drew): the
    chords leave the curve by pixels, and the check says so."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    record, _ = drawn("dead", 101, "base")
    c, value = 101 / 200, float(record["Gamma"])
    s = np.linspace(0.0, 1.0, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = Figure(figsize=(5, 4.5), dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        ax = figure.add_subplot()
        artist, = ax.plot(s, np.sqrt(value + c * s**2))
        figure.canvas.draw()
    result = follows(ax, artist, lambda x, _: np.sqrt(value + c * x**2))
    largest, estimate, _ = result
    assert largest > 1.0 and estimate > QUARTER_PIXEL  # the estimate is honest, and far from invisible
    with pytest.raises(AssertionError):
        invisible(result)
