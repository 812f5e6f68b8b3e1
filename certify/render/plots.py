"""Figures of trajectory records (``certify.simulate``) against their certificates' bounds.

``plot_instance(record, path)`` draws three panels for the record's theorem and writes a
PNG or PDF (by the path's suffix).  matplotlib is an optional dependency: it is imported
inside the functions, through its object-oriented API (``matplotlib.figure.Figure``, Agg
rasteriser; pyplot and the global backend are never touched), under matplotlib's default
style so that a user's matplotlibrc does not change the output.  Output is deterministic:
fixed figure size and dpi, and no creation date in the PDF metadata.

Floats only: the figures illustrate certificates, they prove nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["DPI", "FIGSIZE", "PIXELS", "plot_instance"]

#: Figure size in inches (width, height) and resolution: PNGs are PIXELS = (1500, 450) pixels.
FIGSIZE = (15.0, 4.5)
DPI = 100
PIXELS = (int(FIGSIZE[0] * DPI), int(FIGSIZE[1] * DPI))

_FORMATS = {".png": "png", ".pdf": "pdf"}
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None}}


def _record(theorem):
    """The registry's record of ``theorem`` if it names a plot panel, else None."""
    from certify.theorems.registry import THEOREMS

    record = THEOREMS.get(theorem) if isinstance(theorem, str) else None
    return record if record is not None and record.plot else None


# Fixed colours (matplotlib's default cycle, spelled out so that the figures never depend on it).
_BLUE, _ORANGE, _GREEN, _RED, _PURPLE, _GREY = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#7f7f7f"


def _format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise ValueError(f"unsupported plot file suffix {Path(path).suffix!r}: use .png or .pdf")
    return _FORMATS[suffix]


def _source_text(record: dict) -> str:
    if record["source"] == "base":
        return "from the certified base point"
    return f"from a random point of the certified box (radius {record['radius']:g}, seed {record['seed']})"


def _suptitle(record: dict) -> str:
    theorem = _record(record["theorem"])
    extra = "".join(f", {label} = {record[name]:g}" for label, name in theorem.plot_parameters)
    return f"{theorem.title}{extra} — p = {record['p']}, {_source_text(record)}"


def _mid(record: dict, name: str) -> float:
    return (record[f"{name}_lo"] + record[f"{name}_hi"]) / 2


def _power_of_ten(k: float, _position=None) -> str:
    """The tick label of k = log10 t on a slide panel: the time t = 10^k it stands for."""
    return f"$10^{{{k:g}}}$"


def _decades(linthresh: float, limit: float, most: int = 4) -> list[float]:
    """Decades 10^j with 10 linthresh <= 10^j <= limit, every m-th of them so that at most ``most`` remain."""
    import math

    first, last = math.ceil(math.log10(linthresh)) + 1, math.floor(math.log10(limit)) if limit > 0 else -10**9
    exponents = list(range(first, last + 1))
    step = max(1, math.ceil(len(exponents) / most))
    return [10.0**j for j in exponents[::-step][::-1]]


def _spectrum(ax, fractions, flat: float, delta: float, title: str, before=None) -> None:
    """Bars of F_zeta, the flat value 2/(p-1), the certified 1 - delta and single-frequency alignment (F = 1)."""
    fractions = np.asarray(fractions)
    zeta = np.arange(1, len(fractions) + 1)
    width = 0.8
    if before is not None:
        ax.bar(zeta - width / 4, before, width / 2, color=_GREY, alpha=0.6, label="F_zeta before the step")
        ax.bar(zeta + width / 4, fractions, width / 2, color=_BLUE, label="F_zeta after the step")
    else:
        ax.bar(zeta, fractions, width, color=_BLUE, label="F_zeta of the terminal state")
    top = int(np.argmax(fractions)) + 1
    ax.bar([top], [1.0], width, fill=False, edgecolor=_GREY, hatch="//", linewidth=1.0,
           label="single-frequency alignment: F = 1 at one class")
    ax.axhline(flat, color=_GREEN, linestyle=":", linewidth=1.5, label=f"flat spectrum 2/(p-1) = {flat:.4g}")
    ax.axhline(1 - delta, color=_RED, linestyle="--", linewidth=1.2,
               label=f"certified max F <= 1 - delta, delta = {delta:.3g}")
    ax.set_ylim(0, 1.12)
    ax.set_xlabel("frequency class zeta")
    ax.set_ylabel("Fourier-energy fraction F_zeta (1.5)")
    if len(zeta) <= 15:
        ax.set_xticks(zeta)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper right", framealpha=0.9)


# ----------------------------------------------------------------------------------------------
# The four theorems
# ----------------------------------------------------------------------------------------------


def _dead(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    t, s, gamma, g = record["t"], record["s"], record["gamma"], record["g"]
    p = record["p"]
    base = record["source"] == "base"

    # (a) s(t), gamma(t), the certified hitting-time interval and the transversal hit (2.7).
    ax_a.axvspan(record["hitting_time_box_lo"], record["hitting_time_box_hi"], color=_ORANGE, alpha=0.12,
                 label="certified T interval on the box")
    T_base = _mid(record, "hitting_time")
    ax_a.axvline(T_base, color=_PURPLE, linewidth=1.0, linestyle="-" if base else ":",
                 label=f"certified T at the base point = {T_base:.6g}")
    ax_a.plot(t, s, color=_BLUE, linewidth=1.8, label="s = u(0) + v(0)")
    ax_a.plot(t, gamma, color=_GREEN, linewidth=1.5, label="gamma = mean(w) - w(0)")
    ax_a.plot(t, record["max_other_gate"], color=_GREY, linewidth=1.2, label="max of the other gates")
    T = record["t_death"]
    t_right = 1.03 * max(record["hitting_time_box_hi"], T)
    for values, colour in ((s, _BLUE), (gamma, _GREEN), (record["max_other_gate"], _GREY)):
        ax_a.plot([T, t_right], [values[-1]] * 2, color=colour, linestyle=":", linewidth=1.2)
    ax_a.plot([], [], color="black", linestyle=":", linewidth=1.2, label="frozen for t >= T (dead state)")
    margin = _mid(record, "transversality_margin") if base else record["transversality_margin_box_lo"]
    span = 0.6 * s[0] / margin
    tt = np.array([T - span, T])
    ax_a.plot(tt, margin * (T - tt), color=_RED, linestyle="--", linewidth=1.2,
              label=f"slope -{margin:.4g} through (T, 0): " + ("(2.7)" if base else "box margin"))
    ax_a.plot([T], [0.0], "o", color=_RED, markersize=5)
    ax_a.axhline(0.0, color="black", linewidth=0.6)
    ax_a.set_xlim(0, t_right)
    ax_a.set_xlabel("t")
    ax_a.set_title(f"(a) central gate hits 0 transversally at T = {T:.6g}", fontsize=10)
    ax_a.legend(fontsize=7, loc="center right", framealpha=0.9)

    # (b) the conserved quantity (2.6) in the (s, g) plane.
    Gamma = record["Gamma"]
    c = p / (2 * (p - 1))
    ss = np.linspace(0, 1.1 * max(float(s.max()), record["epsilon"]), 200)
    ax_b.plot(ss, np.sqrt(Gamma + c * ss**2), color=_ORANGE, linewidth=2.5, alpha=0.7,
              label=f"(2.6): g^2 - p s^2/(2(p-1)) = Gamma = {Gamma:.4g}")
    if not base:
        own = float(g[0] ** 2 - c * s[0] ** 2)
        ax_b.plot(ss, np.sqrt(np.maximum(own + c * ss**2, 0)), color=_ORANGE, linestyle=":", linewidth=1.2,
                  label=f"hyperbola (2.6) through the start (value {own:.4g})")
    ax_b.plot(s, g, ".-", color=_BLUE, markersize=3, linewidth=1.0,
              label="trajectory, g = w(j) - w(0)" if base else "trajectory, g = mean_j w(j) - w(0)")
    ax_b.plot([s[0]], [g[0]], "o", color=_BLUE, markersize=6, label="start")
    if base:  # the base point dies at (0, sqrt(Gamma)) by (2.6)
        ax_b.plot([0.0], [np.sqrt(Gamma)], "*", color=_RED, markersize=10, label="(0, sqrt(Gamma)): death")
    else:  # this trajectory's own death event, not the base point's
        ax_b.plot([s[-1]], [g[-1]], "*", color=_RED, markersize=10,
                  label=f"(s(T), g(T)) = ({s[-1]:.2g}, {g[-1]:.4g}): death of this trajectory")
    ax_b.set_xlabel("s = u(0) + v(0)")
    ax_b.set_ylabel("g")
    ax_b.set_title("(b) conserved quantity (2.6) along the trajectory", fontsize=10)
    ax_b.legend(fontsize=7, loc="upper left", framealpha=0.9)

    # (c) the terminal spectrum.
    _spectrum(ax_c, record["fourier_fractions_end"], record["terminal_fourier_fraction"],
              record["purity_gap_box_lo"], "(c) Fourier spectrum of the dead state")


def _slide(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    x, log10_t = record["x"], record["log10_t"]
    ev_x, ev_t = record["event_x"], record["event_log10_t"]
    counts = record["event_rows"] + record["event_columns"]

    # (a) the clock x against log10 t, with the capture events.
    ax_a.axvspan(record["capture_time_log10_lo"], record["capture_time_log10_hi"], color=_ORANGE, alpha=0.3)
    ax_a.axvline(_mid(record, "capture_time_log10"), color=_ORANGE, linewidth=1.2,
                 label=f"certified full-capture time (base point): 10^{_mid(record, 'capture_time_log10'):.6g}")
    ax_a.plot(log10_t, x, color=_BLUE, linewidth=1.5, label="x = u(0) + v(0)")
    ax_a.plot(ev_t, ev_x, "v", color=_RED, markersize=7,
              label=f"{len(ev_x)} capture event(s), {int(counts.sum())} cross gates in all")
    if len(ev_x) <= 6:
        for xe, te, rows, cols in zip(ev_x, ev_t, record["event_rows"], record["event_columns"]):
            ax_a.annotate(f"+{rows} rows, +{cols} cols", (te, xe), textcoords="offset points", xytext=(6, -12),
                          fontsize=7, color=_RED)
    ax_a.set_yscale("log")
    # The data are k = log10 t (t itself overflows doubles: log10 t reaches 10^4 and more), on an axis
    # logarithmic in k, so that the captures and the tail both show; the ticks are labelled with the
    # time they stand for, t = 10^k, so the label names t once instead of a double log.
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if np.all(log10_t > 0):
        ax_a.set_xscale("log")
        scale = "logarithmic"
    else:
        ax_a.set_xscale("symlog", linthresh=1.0)
        scale = "symmetric-logarithmic"
    ax_a.xaxis.set_major_formatter(FuncFormatter(_power_of_ten))
    ax_a.xaxis.set_minor_formatter(NullFormatter())
    ax_a.set_xlabel(f"t  (ticks 10^k; the axis is {scale} in k = log10 t)")
    ax_a.set_ylabel("x")
    ax_a.set_title("(a) sequential capture of the cross gates", fontsize=10)
    ax_a.legend(fontsize=7, loc="upper left", framealpha=0.9)

    # (b) d/x -> kappa_p.
    kappa = _mid(record, "kappa")
    ax_b.axhspan(record["kappa_lo"], record["kappa_hi"], color=_ORANGE, alpha=0.3)
    ax_b.axhline(kappa, color=_ORANGE, linewidth=1.5, label=f"certified kappa_p = p/sqrt(2(p-1)) = {kappa:.6g}")
    for xe in ev_x:
        ax_b.axvline(xe, color=_RED, linewidth=0.5, alpha=0.4)
    ax_b.plot(x, record["d_over_x"], color=_BLUE, linewidth=1.5, label="d/x, d = w(0) - mean_{j!=0} w(j)")
    ax_b.set_xscale("log")
    ax_b.set_xlabel("x")
    ax_b.set_title("(b) d/x tends to kappa_p (A.40)", fontsize=10)
    ax_b.legend(fontsize=7, loc="lower right", framealpha=0.9)

    # (c) max_zeta F_zeta -> 2/(p-1).
    limit = record["limit_fourier_fraction"]
    ax_c.axhline(limit, color=_GREEN, linestyle=":", linewidth=2.0, label=f"certified limit 2/(p-1) = {limit:.4g}")
    ax_c.axhline(1.0, color=_GREY, linestyle="--", linewidth=1.0, label="single-frequency alignment: F = 1")
    ax_c.plot(x, record["max_fourier_fraction"], color=_BLUE, linewidth=1.5, label="max_zeta F_zeta")
    ax_c.set_xscale("log")
    ax_c.set_ylim(0, 1.08)
    ax_c.set_xlabel("x")
    ax_c.set_title("(c) the spectrum flattens: max F_zeta -> 2/(p-1)", fontsize=10)
    ax_c.legend(fontsize=7, loc="center right", framealpha=0.9)


def _smooth(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    s = record["s"]

    # (a) g along the decreasing clock s, above the certified g_*.
    g_star = float(np.sqrt(record["g_condition_lo"]))
    ax_a.plot(s, record["g"], ".-", color=_BLUE, markersize=3, linewidth=1.2, label="g = mean(w) - w(0)")
    ax_a.axhline(g_star, color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified g >= g_* = {g_star:.4g} (A.68)")
    ax_a.set_xlim(1.02 * float(s[0]), 0)
    ax_a.set_xlabel("s = u(0) + v(0)  (decreasing, time runs to the right)")
    ax_a.set_title("(a) s decreases to 0 while g stays positive", fontsize=10)
    ax_a.legend(fontsize=7, loc="center left", framealpha=0.9)

    # (b) the w displacement approaching its limit, below the certified bound.
    ax_b.plot(s, record["displacement"], ".-", color=_BLUE, markersize=3, linewidth=1.2,
              label="||w(s) - w(0)||_1")
    ax_b.axhline(record["displacement_limit"], color=_GREEN, linestyle=":", linewidth=1.5,
                 label=f"limit ||w_inf - w(0)||_1 = {record['displacement_limit']:.4g}")
    ax_b.axhline(record["terminal_displacement_box_hi"], color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified bound on the box = {record['terminal_displacement_box_hi']:.4g}")
    ax_b.set_xlim(1.02 * float(s[0]), 0)
    ax_b.set_ylim(0, 1.15 * max(record["terminal_displacement_box_hi"], float(record["displacement"].max())))
    ax_b.set_xlabel("s = u(0) + v(0)  (decreasing)")
    ax_b.set_title("(b) w converges (A.69)", fontsize=10)
    ax_b.legend(fontsize=7, loc="center left", framealpha=0.9)

    _spectrum(ax_c, record["fourier_fractions_end"], record["terminal_fourier_fraction"],
              record["purity_gap_box_lo"], "(c) Fourier spectrum of the limit")


def _gd(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    n = record["n"]

    # (a) the gates before and after the step.
    ax_a.plot(n, record["central_gate"], "o-", color=_BLUE, label="central gate u(0) + v(0)")
    ax_a.plot(n, record["max_other_gate"], "s-", color=_GREEN, label="max of the other gates")
    other_hi = max(record["one_step_death_box_cross_gates_hi"], record["one_step_death_box_off_cross_gates_hi"])
    after = np.array([0.7, n[-1] + 0.3])
    ax_a.plot(after, [record["one_step_death_box_central_gate_hi"]] * 2, "--", color=_BLUE, linewidth=1.0,
              label=f"certified central gate <= {record['one_step_death_box_central_gate_hi']:.3g} for n >= 1")
    ax_a.plot(after, [other_hi] * 2, "--", color=_GREEN, linewidth=1.0,
              label=f"certified other gates <= {other_hi:.3g} for n >= 1")
    ax_a.axhline(0.0, color="black", linewidth=0.6)
    linthresh = abs(record["one_step_death_box_central_gate_hi"]) / 4
    ax_a.set_yscale("symlog", linthresh=linthresh)
    values = np.concatenate([record["central_gate"], record["max_other_gate"], [other_hi]])
    low, high = 3 * min(float(values.min()), -linthresh), 30 * max(float(values.max()), linthresh)
    ax_a.set_ylim(low, high)
    # Ticks at 0 and at decades at least 10 linthresh from it (the linear part around 0 is one decade
    # wide on the axis, so +-10^k nearer 0 would print their labels onto 0's), at most 4 per side.
    from matplotlib.ticker import FixedLocator

    negative, positive = _decades(linthresh, -low), _decades(linthresh, high)
    ax_a.yaxis.set_major_locator(FixedLocator([-x for x in reversed(negative)] + [0.0] + positive))
    ax_a.set_xticks(n)
    ax_a.set_xlabel("iterate n")
    ax_a.set_title("(a) every gate is < 0 after one step", fontsize=10)
    ax_a.legend(fontsize=7, loc="upper right", framealpha=0.9)

    # (b) the spectrum of theta_1.
    _spectrum(ax_b, record["fourier_fractions_end"], record["terminal_fourier_fraction"],
              record["purity_gap_box_lo"], "(b) Fourier spectrum of theta_1 = theta_n (n >= 1)",
              before=record["fourier_fractions_start"])

    # (c) how far w moves.
    ax_c.plot(n, record["w_displacement"], "o-", color=_BLUE, label="||w_n - w_0||_1")
    ax_c.axhline(record["w_step_box_hi"], color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified bound on the box = {record['w_step_box_hi']:.4g}")
    ax_c.set_ylim(0, 1.2 * max(record["w_step_box_hi"], float(record["w_displacement"].max())))
    ax_c.set_xticks(n)
    ax_c.set_xlabel("iterate n")
    ax_c.set_title("(c) theta stops after the first step", fontsize=10)
    ax_c.legend(fontsize=7, loc="lower right", framealpha=0.9)



def plot_instance(record: dict, path) -> Path:
    """Draw the record's figure (three panels, see the module docstring) into a .png or .pdf file.

    ValueError for another suffix or a record of an unknown theorem; ImportError (with a
    hint) without matplotlib.  The PNG is PIXELS = FIGSIZE * DPI pixels.  Returns the path.
    """
    path = Path(path)
    fmt = _format(path)
    theorem = record.get("theorem") if isinstance(record, dict) else None
    if _record(theorem) is None:
        raise ValueError(f"unknown theorem {theorem!r} in the trajectory record")
    try:
        import matplotlib
        import matplotlib.style
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install matplotlib") from exc

    with matplotlib.rc_context():
        matplotlib.style.use("default")
        fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
        from certify.theorems.registry import resolve

        resolve(_record(theorem).plot)(fig, record)
        fig.suptitle(_suptitle(record), fontsize=11)
        fig.savefig(path, format=fmt, dpi=DPI, metadata=_METADATA[fmt])
    return path
