"""The float experiment beside a ``staircase`` certificate (Theorem S) or a ``memorise`` certificate (Theorem
S1, the one-gate staircase): the full-network Clarke flow of :mod:`certify.law.flow` from the base point and from
corners of the box, with the quantities the theorem and its purity proposition bound along it. Floats:
cross-checks and a figure, never bounds (the certified numbers are the certificate's).

``certify staircase --plot FILE``, ``certify memorise --plot FILE`` (and ``certify plot``) run :func:`experiment`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

FIGSIZE = (9.0, 3.6)
DPI = 120
#: The horizon of the experiment's flows (t in the paper's time): long enough for the boundary gates to be
#: captured and the (1, 2) limit to show (docs/staircase.md, section 5), short enough for seconds a run.
HORIZON = 1e6
#: The corners of the box the experiment starts from besides the base point (seeded, so the figure repeats).
CORNERS = 2


def staircase_points(certificate: dict) -> list[np.ndarray]:
    """The base point of the certificate and CORNERS random corners of its box (seed 0), as float vectors
    (u, v, w) of length 3p. The base point is read from the certificate's stored levels; each coordinate moves by the
    radius r, and twin_above's w(j), j >= 2, by r + g (its box, docs/staircase.md Remark S3.7)."""
    p = int(certificate["p"])
    r = float(Fraction(certificate["radius"]))
    moves = np.full(3 * p, r)
    moves[2 * p + 2:] += float(Fraction(certificate["parameters"].get("g", "0")))
    blocks = []
    for name in "uvw":
        levels = certificate["base_point"][name]
        x = np.full(p, float(Fraction(levels["elsewhere"])))
        x[0] = float(Fraction(levels["at_0"]))
        x[1] = float(Fraction(levels.get("at_1", levels["elsewhere"])))
        blocks.append(x)
    base = np.concatenate(blocks)
    rng = np.random.default_rng(0)
    return [base] + [base + moves * rng.choice([-1.0, 1.0], size=base.size) for _ in range(CORNERS)]


#: Per staircase size k: its active gates (row, column), the label of each, and the loss budget of its region as a
#: function of (p, rho): (S.10) for k = 2, (S1.1) for k = 1 (docs/staircase.md, sections 3.1 and 10.1).
PATTERNS = {
    1: (((0, 0),), (0,), lambda p, rho: 2 / (p * rho)),
    2: (((0, 0), (0, 1), (1, 0)), (0, 1, 1), lambda p, rho: 2 * np.log(2) + 2 / ((p - 1) * rho)),
}


def size_of(certificate: dict) -> int:
    """The staircase size k of a ``staircase``, ``twin``, ``twin_plus`` or ``twin_above`` (k = 2) or ``memorise`` (k = 1)
    certificate."""
    return 1 if certificate["theorem"] == "memorise" else 2


def staircase_quantities(theta: np.ndarray, p: int, k: int = 2) -> dict[str, float]:
    """At one state: Lambda (the loss of the staircase's active gates: (0,0), (0,1), (1,0) for k = 2, (0,0) for
    k = 1), the region's threshold ((S.10) or (S1.1)), max_zeta F_zeta (1.5), the smallest active gate, the
    largest other gate except the boundary gates, and the largest boundary gate (row 0 and column 0 beyond the
    active ones). Floats."""
    from scipy.special import logsumexp

    from .fourier import fourier_fractions

    u, v, w = theta[:p], theta[p:2 * p], theta[2 * p:]
    z = u[:, None] + v[None, :]

    def ell(zv, y):
        return float(logsumexp(zv * w) - zv * w[y])

    gates, labels, budget = PATTERNS[k]
    gamma = w.mean() - w[k:]
    rho = float(gamma.max() / gamma.min()) if gamma.min() > 0 else float("inf")
    boundary = np.zeros((p, p), dtype=bool)
    boundary[0, k:] = boundary[k:, 0] = True
    other = np.ones((p, p), dtype=bool)
    for gate in gates:
        other[gate] = False
    other &= ~boundary
    other_but_11 = other.copy()
    if k == 2:
        other_but_11[1, 1] = False  # the twin's gate (1, 1) (regime II), followed apart as z11
    return {"Lambda": sum(ell(z[gate], label) for gate, label in zip(gates, labels)),
            "z11": float(z[1, 1]), "D": float(w[0] - w[1]), "other_but_11_max": float(z[other_but_11].max()),
            "threshold": budget(p, rho),
            "max_F": float(fourier_fractions(u, v, w).max()),
            "active_min": float(min(z[gate] for gate in gates)),
            "other_max": float(z[other].max()),
            "boundary_max": float(z[boundary].max())}


def staircase_runs(certificate: dict, horizon: float = HORIZON) -> list[dict]:
    """The flows of :func:`staircase_points` to ``horizon``: for each, the checkpoint times and
    :func:`staircase_quantities` at each checkpoint, and the simulator's failure (None when it reached the
    horizon)."""
    from certify.law.flow import simulate_flow

    p, k = int(certificate["p"]), size_of(certificate)
    runs = []
    for theta0 in staircase_points(certificate):
        trajectory = simulate_flow(theta0, p, horizon)
        rows = [staircase_quantities(state, p, k) for state in trajectory.states]
        runs.append({"times": np.asarray(trajectory.times), "rows": rows, "failure": trajectory.failure})
    return runs


def _draw_runs(certificate: dict, runs: list[dict], path, size, dpi, left_run, left_finish, title: str) -> None:
    """The experiment's figure, saved to ``path``: on the left what ``left_run(axes, t, rows, label)`` draws of
    each run and ``left_finish(axes)`` adds; on the right max_zeta F_zeta of each run beside the certified
    1 - delta; ``title``, then ', from the certified box', above both."""
    from certify.figures import default_style, freeze_layout, lay_out, new_figure, save_figure

    delta = float(Fraction(certificate["claims"]["purity_margin_box"]["lo"]))
    with default_style():
        figure = new_figure(size, dpi, FIGSIZE, DPI)
        left, right = figure.subplots(1, 2)
        for index, run in enumerate(runs):
            label = "base point" if index == 0 else f"box corner {index}"
            t = np.maximum(run["times"], 1e-3)
            left_run(left, t, run["rows"], label)
            right.semilogx(t, [row["max_F"] for row in run["rows"]], label=label)
        left_finish(left)
        right.axhline(1 - delta, color="r", lw=0.8, ls="--", label=r"$1-\delta$ (certified)")
        right.set(xlabel="t", title=r"$\max_\zeta F_\zeta(\theta(t))$ (floats)")
        right.legend(fontsize="small")
        figure.suptitle(f"{title}, from the certified box")
        lay_out(figure)
        freeze_layout(figure)
        save_figure(figure, path)


def upper_text(value: Fraction, significant: int) -> str:
    """``value`` rounded up to ``significant`` digits, exactly (certify.kernel.exact.round_decimal), as text: what a
    printed upper bound may say (rounding to nearest could print a number below the bound)."""
    from certify.kernel.exact import ExactNumber, format_decimal, round_decimal

    rounded = round_decimal(ExactNumber(value.numerator, value.denominator), significant, upward=True)
    return format_decimal(rounded.numerator, rounded.exp10)


def _run_lines(certificate: dict, runs: list[dict], path, kept, tail) -> list[str]:
    """The lines printed beside the figure: one a run, saying whether ``kept(times, rows)`` held at every checkpoint,
    then ``tail(times, rows)``, its largest max F and the certified bound; the figure's path last."""
    bound = upper_text(1 - Fraction(certificate["claims"]["purity_margin_box"]["lo"]), 4)  # 1 - delta, rounded up
    lines = ["float experiment (the full-network Clarke flow of certify.law.flow from the base point and "
             f"{CORNERS} corners of the box, to t = {HORIZON:g}; floats: cross-checks, never bounds):"]
    for index, run in enumerate(runs):
        rows, times = run["rows"], run["times"]
        lines.append(f"  {'base point' if index == 0 else f'corner {index}'}: reached t = {times[-1]:.3g}"
                     f"{'' if run['failure'] is None else ' (' + run['failure'] + ')'}; pattern kept: "
                     f"{'yes' if kept(times, rows) else 'NO'}; {tail(times, rows)}; largest max F "
                     f"{max(row['max_F'] for row in rows):.4f} (certified <= {bound})")
    lines.append(f"figure: {path}")
    return lines


#: The figure's title of each regime-II record: the proposition its certificate proves.
TWIN_TITLES = {"twin": "Proposition S2.2, p = {p}: the twin captured",
               "twin_plus": "Proposition S3.2, p = {p}: the twin captured from D > 0",
               "twin_above": "Proposition S3.4, p = {p}: the twin captured from above"}


def twin_experiment(certificate: dict, path, size=None, dpi=None) -> list[str]:
    """``certify twin --plot FILE``, ``certify twin_plus --plot FILE`` and ``certify twin_above --plot FILE``:
    :func:`staircase_runs` from the box
    drawn to ``path``: z11 and D = w(0) - w(1) (Proposition S2.2: z11 reaches 0 with D <= 0 by the certified
    capture time and stays there; Proposition S3.2: the same with D >= 0, D then decaying) and max_zeta F_zeta
    beside 1 - delta; returns the lines to print. Floats: cross-checks, never bounds."""
    from certify.figures import check_options

    from certify.law.flow import KINK_TOLERANCE

    check_options(path, size, dpi, FIGSIZE, DPI)
    runs = staircase_runs(certificate)
    t_c = Fraction(certificate["claims"]["capture_time_box"]["hi"])

    def left_run(left, t, rows, label):
        line, = left.semilogx(t, [row["z11"] for row in rows], label=f"z11, {label}")
        left.semilogx(t, [row["D"] for row in rows], ls=":", color=line.get_color(), label=f"D, {label}")

    def left_finish(left):
        left.axvline(float(t_c), color="r", lw=0.8, ls="--", label=r"$t_c$ (certified)")
        left.axhline(0, color="k", lw=0.8)
        left.set(xlabel="t", title=r"$z_{11}$ and $D = w(0) - w(1)$ (floats)")
        left.legend(fontsize="x-small")

    _draw_runs(certificate, runs, path, size, dpi, left_run, left_finish,
               TWIN_TITLES[certificate["theorem"]].format(p=certificate["p"]))

    # before t_c the gate (1, 1) is below its kink (Propositions S2.2, S3.2) or above it (Proposition S3.4)
    above = certificate["theorem"] == "twin_above"

    def kept(times, rows):
        return all(row["active_min"] > 0 and row["other_but_11_max"] < 0 and row["boundary_max"] <= 1e-9
                   and (abs(row["z11"]) <= KINK_TOLERANCE if time >= t_c else
                        (row["z11"] >= -KINK_TOLERANCE if above else row["z11"] <= KINK_TOLERANCE))
                   for time, row in zip(times, rows))

    def tail(times, rows):
        # "on the kink": within the simulator's tolerance of 0 (its active-set rule keeps a sliding gate there)
        on_kink = [time for time, row in zip(times, rows) if abs(row["z11"]) <= KINK_TOLERANCE]
        return (f"z11 at its kink from the checkpoint t = {on_kink[0] if on_kink else float('nan'):.3g} "
                f"(certified by {upper_text(t_c, 3)}); largest D {max(row['D'] for row in rows):.3g}")

    return _run_lines(certificate, runs, path, kept, tail)


def experiment(certificate: dict, path, size=None, dpi=None) -> list[str]:
    """``certify staircase --plot FILE`` (or ``certify memorise --plot FILE``): :func:`staircase_runs` drawn to
    ``path`` (PNG, PDF or SVG) beside the certificate's delta; returns the lines to print. Floats: cross-checks,
    never bounds."""
    from certify.figures import check_options

    check_options(path, size, dpi, FIGSIZE, DPI)  # before the experiment's seconds
    k = size_of(certificate)
    margin, theorem = ((r"(S.10) margin $2\log2+2/((p-1)\rho)-\Lambda$", "Theorem S, p = {p}: the (1, 2) staircase")
                       if k == 2 else (r"(S1.1) margin $2/(p\rho)-\ell_0(z_{00})$",
                                       "Theorem S1, p = {p}: one active gate"))
    runs = staircase_runs(certificate)

    def left_run(left, t, rows, label):
        left.semilogx(t, [row["threshold"] - row["Lambda"] for row in rows], label=label)

    def left_finish(left):
        left.axhline(0, color="k", lw=0.8)
        left.set(xlabel="t", title=f"{margin} (floats)")

    _draw_runs(certificate, runs, path, size, dpi, left_run, left_finish, theorem.format(p=certificate["p"]))

    def kept(times, rows):
        return all(row["active_min"] > 0 and row["other_max"] < 0 and row["boundary_max"] <= 1e-9 for row in rows)

    def tail(times, rows):
        return (f"smallest {'(S.10)' if k == 2 else '(S1.1)'} margin "
                f"{min(row['threshold'] - row['Lambda'] for row in rows):.3g}")

    return _run_lines(certificate, runs, path, kept, tail)
