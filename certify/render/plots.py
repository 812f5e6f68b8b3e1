"""Figures of trajectory records (``certify.simulate``) against their certificates' bounds.

``draw_figure(record)`` draws three panels for the record's theorem on a matplotlib Figure;
``plot_instance(record, path)`` writes it as PNG, PDF or SVG (by the path's suffix), through
:mod:`certify.figures` (object-oriented matplotlib on an Agg canvas, never pyplot; matplotlib's default
style, so a user's matplotlibrc changes nothing; no dates or random ids: the same record gives the same
bytes). ``size=(width, height)`` in inches and ``dpi`` set the size (default FIGSIZE at DPI).

What is drawn follows what it claims:

* a trajectory is a polyline through the record's rows, and the records are dense (the solver's steps and
  hundreds of points of its dense output: ``certify.simulate``), so that the straight segments between
  rows stay within a small fraction of a pixel of the curve at the default size -- the dead figure's path
  lies on the conserved curve (2.6) it is drawn against (tests/test_plots_curves.py measures every
  plotted curve against the quantity it claims, in pixels);
* iterates of gradient descent are points, not joined (nothing happens between two iterates);
* a panel's title says what its data show (slide's spectrum panel says "flat all along" when it is flat
  from the start, "flattens" only when the plotted range shows it);
* labels are mathematics (matplotlib's mathtext), certified numbers are shown by the one display rule
  (:func:`certify.render.numbers.display`, from the record's stored texts), and a float the simulation
  measured is marked as such (the title's T, approximate constants with ``\\approx``).

matplotlib is an optional dependency, imported inside the functions. Floats only: the figures illustrate
certificates, they prove nothing.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from certify.figures import (DEFAULT_DPI, THEOREM_SIZE, check_options, default_style, freeze_layout, lay_out,
                             new_figure, save_figure)

__all__ = ["DPI", "FIGSIZE", "FLAT_ROUNDING", "PIXELS", "draw_figure", "plot_instance"]

#: Figure size in inches (width, height) and resolution: PNGs are PIXELS = (1500, 450) pixels by default.
FIGSIZE = THEOREM_SIZE
DPI = DEFAULT_DPI
PIXELS = (int(FIGSIZE[0] * DPI), int(FIGSIZE[1] * DPI))
#: max_zeta F_zeta - 2/(p-1) at most this is the flat spectrum up to float rounding (F sums p-1 squares of
#: numbers of size ~1/sqrt(p), each rounded at 2^-53; 1e-12 leaves room to p = 1000).
FLAT_ROUNDING = 1e-12


def _record(theorem):
    """The registry's record of ``theorem`` if it names a plot panel, else None."""
    from certify.theorems.registry import THEOREMS

    record = THEOREMS.get(theorem) if isinstance(theorem, str) else None
    return record if record is not None and record.plot else None


# Fixed colours (matplotlib's default cycle, spelled out so that the figures never depend on it).
_BLUE, _ORANGE, _GREEN, _RED, _PURPLE, _GREY = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#7f7f7f"
#: mathtext of the parameters a title names (the registry's plot_parameters labels).
_SYMBOLS = {"eps": r"\varepsilon", "eta": r"\eta"}
#: Text sizes relative to the figure's (certify.figures.text_scale): titles, legends and notes, the suptitle.
_TITLE, _SMALL, _SUPTITLE = "medium", "x-small", "large"
#: Significant digits of a certified number in a legend (the display rule's, capped for room).
_LEGEND_DIGITS = 6


def _stored(record: dict, key: str, *ends: str) -> dict:
    """The stored texts of a certified quantity of the record: {"lo": ..., "hi": ...} for ends ("lo", "hi"),
    the record's ``<key>_<end>_text`` ("exact": ``<key>_text``); ValueError if a text is missing."""
    stored = {}
    for end in ends:
        field = key if end == "exact" else f"{key}_{end}"
        text = record.get(f"{field}_text")
        if not isinstance(text, str):
            raise ValueError(f"the record has no certified text for {field} (written by an older certify?): "
                             "simulate again")
        stored[end] = text
    return stored


def _certified(record: dict, key: str, *ends: str, subject: str = "") -> str:
    """mathtext (without the dollars) of a certified quantity by the display rule: ``T \\in [1490, 4900]``."""
    from certify.render.numbers import display

    latex = display(_stored(record, key, *ends), "latex", subject, digits=_LEGEND_DIGITS)
    return re.sub(r"\\([gl]e)(?![A-Za-z])", r"\\\1q", latex)  # mathtext knows \geq and \leq, not \ge, \le


def _source_text(record: dict) -> str:
    if record["source"] == "base":
        return "from the certified base point"
    radius = _certified(record, "radius", "exact").removeprefix("= ")
    return f"from a random point of the certified box (radius ${radius}$, seed {record['seed']})"


def _suptitle(record: dict) -> str:
    theorem = _record(record["theorem"])
    extra = "".join(f", ${_SYMBOLS.get(label, label)} = {record[name]:g}$" for label, name in theorem.plot_parameters)
    return f"{theorem.title}{extra} — $p = {record['p']}$, {_source_text(record)}"


def _mid(record: dict, name: str) -> float:
    return (record[f"{name}_lo"] + record[f"{name}_hi"]) / 2


def _power_of_ten(k: float, _position=None) -> str:
    """The tick label of k = log10 t on a slide panel: the time t = 10^k it stands for (10^{10^j} when k is a
    large power of ten, so that k never reads like 1e+06)."""
    if k != 0 and abs(k) >= 1e5:
        exponent = math.floor(math.log10(abs(k)))
        mantissa = k / 10.0**exponent
        sign = "-" if k < 0 else ""
        if abs(abs(mantissa) - 1) < 1e-9:
            return f"$10^{{{sign}10^{{{exponent}}}}}$"
        return f"$10^{{{mantissa:g} \\times 10^{{{exponent}}}}}$"
    return f"$10^{{{k:g}}}$"


def _decades(linthresh: float, limit: float, most: int = 4) -> list[float]:
    """Decades 10^j with 10 linthresh <= 10^j <= limit, every m-th of them so that at most ``most`` remain."""
    first, last = math.ceil(math.log10(linthresh)) + 1, math.floor(math.log10(limit)) if limit > 0 else -10**9
    exponents = list(range(first, last + 1))
    step = max(1, math.ceil(len(exponents) / most))
    return [10.0**j for j in exponents[::-step][::-1]]


def _spectrum(ax, record: dict, title: str, before=None) -> None:
    """Bars of F_zeta, the flat value 2/(p-1), the certified 1 - delta and single-frequency alignment (F = 1)."""
    fractions = np.asarray(record["fourier_fractions_end"])
    flat = record["terminal_fourier_fraction"]
    delta = record["purity_gap_box_lo"]
    zeta = np.arange(1, len(fractions) + 1)
    width = 0.8
    if before is not None:
        ax.bar(zeta - width / 4, before, width / 2, color=_GREY, alpha=0.6, label=r"$F_\zeta$ before the step")
        ax.bar(zeta + width / 4, fractions, width / 2, color=_BLUE, label=r"$F_\zeta$ after the step")
    else:
        ax.bar(zeta, fractions, width, color=_BLUE, label=r"$F_\zeta$ of the terminal state")
    top = int(np.argmax(fractions)) + 1
    ax.bar([top], [1.0], width, fill=False, edgecolor=_GREY, hatch="//", linewidth=1.0,
           label=r"single-frequency alignment: $F_\zeta = 1$ at one class")
    ax.axhline(flat, color=_GREEN, linestyle=":", linewidth=1.5,
               label=f"flat spectrum $2/(p-1) {_certified(record, 'terminal_fourier_fraction', 'exact')}$")
    gap = _certified(record, "purity_gap_box", "lo", subject=r"\delta")
    ax.axhline(1 - delta, color=_RED, linestyle="--", linewidth=1.2,
               label=rf"certified $\mathrm{{max}}_\zeta F_\zeta \leq 1 - \delta$, ${gap}$")
    ax.set_ylim(0, 1.12)
    ax.set_xlabel(r"frequency class $\zeta$")
    ax.set_ylabel(r"Fourier-energy fraction $F_\zeta$ (1.5)")
    if len(zeta) <= 15:
        ax.set_xticks(zeta)
    ax.set_title(title, fontsize=_TITLE)
    # the legend on the side away from the hatched bar of single-frequency alignment
    ax.legend(fontsize=_SMALL, loc="upper left" if top > (len(zeta) + 1) / 2 else "upper right", framealpha=0.9)


# ----------------------------------------------------------------------------------------------
# The four theorems
# ----------------------------------------------------------------------------------------------

#: The trajectory's (2.6) coordinate g on the dead figure's panel (b) (certify.simulate's g_spread).
G_SPREAD = r"$g = \sqrt{p/(p-1)}\;\|w - \mathrm{mean}(w)\|_2$"


def _dead(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    t, s, gamma = record["t"], record["s"], record["gamma"]
    if "g_spread" not in record:
        raise ValueError("the record has no g_spread (written by an older certify?): simulate again")
    g = record["g_spread"]
    p = record["p"]
    base = record["source"] == "base"

    # (a) s(t), gamma(t), the certified hitting-time interval and the transversal hit (2.7).
    ax_a.axvspan(record["hitting_time_box_lo"], record["hitting_time_box_hi"], color=_ORANGE, alpha=0.12,
                 label=f"certified on the box: ${_certified(record, 'hitting_time_box', 'lo', 'hi', subject='T')}$")
    T_base = _mid(record, "hitting_time")
    ax_a.axvline(T_base, color=_PURPLE, linewidth=1.0, linestyle="-" if base else ":",
                 label=f"certified at the base point: ${_certified(record, 'hitting_time', 'lo', 'hi', subject='T')}$")
    ax_a.plot(t, s, color=_BLUE, linewidth=1.8, label=r"$s = u(0) + v(0)$")
    ax_a.plot(t, gamma, color=_GREEN, linewidth=1.5, label=r"$\gamma = \mathrm{mean}(w) - w(0)$ (A.50)")
    ax_a.plot(t, record["max_other_gate"], color=_GREY, linewidth=1.2,
              label=r"$\mathrm{max}_{(a,b) \neq (0,0)}\, u(a) + v(b)$")
    T = record["t_death"]
    t_right = 1.03 * max(record["hitting_time_box_hi"], T)
    for values, colour in ((s, _BLUE), (gamma, _GREEN), (record["max_other_gate"], _GREY)):
        ax_a.plot([T, t_right], [values[-1]] * 2, color=colour, linestyle=":", linewidth=1.2)
    ax_a.plot([], [], color="black", linestyle=":", linewidth=1.2, label=r"frozen for $t \geq T$ (the dead state)")
    if base:
        margin = _mid(record, "transversality_margin")
        said = _certified(record, "transversality_margin", "lo", "hi", subject=r"-\dot s(T^-)") + "$ (2.7)"
    else:
        margin = record["transversality_margin_box_lo"]
        said = _certified(record, "transversality_margin_box", "lo", subject=r"-\dot s(T^-)") + "$ on the box"
    span = 0.6 * s[0] / margin
    tt = np.array([T - span, T])
    ax_a.plot(tt, margin * (T - tt), color=_RED, linestyle="--", linewidth=1.2,
              label="slope through $(T, 0)$: $" + said)
    ax_a.plot([T], [0.0], "o", color=_RED, markersize=5)
    ax_a.axhline(0.0, color="black", linewidth=0.6)
    ax_a.set_xlim(0, t_right)
    ax_a.set_xlabel("$t$")
    ax_a.set_title(f"(a) $s$ reaches 0 transversally, at $T \\approx {T:.6g}$ (simulated)", fontsize=_TITLE)
    ax_a.legend(fontsize=_SMALL, loc="upper right", framealpha=0.9)

    # (b) the conserved quantity (2.6) in the (s, g) plane: the path lies on its hyperbola.
    c = p / (2 * (p - 1))
    Gamma = record["Gamma"]
    own = float(g[0] ** 2 - c * s[0] ** 2)  # = Gamma at the base point
    ss = np.linspace(0, 1.1 * max(float(s.max()), record["epsilon"]), 400)
    ax_b.plot(ss, np.sqrt(np.maximum(own + c * ss**2, 0)), color=_ORANGE, linewidth=3.0, alpha=0.6,
              label=(rf"(2.6): $g^2 - \frac{{p}}{{2(p-1)}}\,s^2 = \Gamma \approx {Gamma:.4g}$" if base else
                     rf"(2.6) through the start: $g^2 - \frac{{p}}{{2(p-1)}}\,s^2 \approx {own:.4g}$"))
    if not base:
        ax_b.plot(ss, np.sqrt(Gamma + c * ss**2), color=_ORANGE, linestyle=":", linewidth=1.2,
                  label=rf"the base point's (2.6), $\Gamma \approx {Gamma:.4g}$")
    ax_b.plot(s, g, color=_BLUE, linewidth=1.2,
              label="trajectory, " + G_SPREAD + (r" $= w(j) - w(0)$" if base else ""))
    ax_b.plot([s[0]], [g[0]], "o", color=_BLUE, markersize=6, label="start")
    if base:  # the base point dies at (0, sqrt(Gamma)) by (2.6)
        ax_b.plot([0.0], [np.sqrt(Gamma)], "*", color=_RED, markersize=10, label=r"$(0, \sqrt{\Gamma})$: death")
    else:  # this trajectory's own death event, not the base point's
        ax_b.plot([s[-1]], [g[-1]], "*", color=_RED, markersize=10,
                  label=f"$(s(T), g(T)) \\approx (0, {g[-1]:.4g})$: death of this trajectory")
    ax_b.set_xlabel("$s = u(0) + v(0)$")
    ax_b.set_ylabel("$g$")
    ax_b.set_title("(b) the trajectory stays on its conserved curve (2.6)", fontsize=_TITLE)
    ax_b.legend(fontsize=_SMALL, loc="upper left", framealpha=0.9)

    # (c) the terminal spectrum.
    _spectrum(ax_c, record, "(c) Fourier spectrum of the dead state")


def _slide(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    x, log10_t = record["x"], record["log10_t"]
    ev_x, ev_t = record["event_x"], record["event_log10_t"]
    counts = record["event_rows"] + record["event_columns"]
    p = record["p"]

    # (a) the clock x against log10 t, with the capture events.
    ax_a.axvspan(record["capture_time_log10_lo"], record["capture_time_log10_hi"], color=_ORANGE, alpha=0.3)
    ax_a.axvline(_mid(record, "capture_time_log10"), color=_ORANGE, linewidth=1.2,
                 label="certified full-capture time (base point): "
                       f"$t_{{cap}} {_certified(record, 'capture_time', 'log10_lo', 'log10_hi')}$")
    ax_a.plot(log10_t, x, color=_BLUE, linewidth=1.5, label="$x = u(0) + v(0)$")
    ax_a.plot(ev_t, ev_x, "v", color=_RED, markersize=7,
              label=f"{len(ev_x)} capture event{'s' if len(ev_x) != 1 else ''}, {int(counts.sum())} cross gates in all")
    if len(ev_x) <= 6:
        for xe, te, rows, cols in zip(ev_x, ev_t, record["event_rows"], record["event_columns"]):
            ax_a.annotate(f"+{rows} rows, +{cols} columns", (te, xe), textcoords="offset points", xytext=(6, -12),
                          fontsize=_SMALL, color=_RED)
    ax_a.set_yscale("log")
    # The data are k = log10 t (t itself overflows doubles: log10 t reaches 10^4 and more), on an axis
    # logarithmic in k, so that the captures and the tail both show; the ticks are labelled with the
    # time they stand for, t = 10^k, so the label names t once instead of a double log.
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if np.all(log10_t > 0):
        ax_a.set_xscale("log")
        from matplotlib.ticker import LogLocator

        ax_a.xaxis.set_major_locator(LogLocator(numticks=6))  # labels like 10^{10^5} need room
        scale = "logarithmic"
    else:
        ax_a.set_xscale("symlog", linthresh=1.0)
        scale = "symmetric-logarithmic"
    ax_a.xaxis.set_major_formatter(FuncFormatter(_power_of_ten))
    ax_a.xaxis.set_minor_formatter(NullFormatter())
    ax_a.set_xlabel(f"t  (ticks $10^k$; the axis is {scale} in $k = \\log_{{10}} t$)")
    ax_a.set_ylabel("$x$")
    together = len(ev_x) == 1
    ax_a.set_title(f"(a) the {2 * (p - 1)} cross gates are captured " + ("at once" if together else
                   f"in {len(ev_x)} events") + ", then $x$ grows", fontsize=_TITLE)
    ax_a.legend(fontsize=_SMALL, loc="upper left", framealpha=0.9)

    # (b) d/x -> kappa_p.
    kappa = _mid(record, "kappa")
    ax_b.axhspan(record["kappa_lo"], record["kappa_hi"], color=_ORANGE, alpha=0.3)
    ax_b.axhline(kappa, color=_ORANGE, linewidth=1.5,
                 label=rf"certified $\kappa_p = p/\sqrt{{2(p-1)}} {_certified(record, 'kappa', 'lo', 'hi')}$")
    for xe in ev_x:
        ax_b.axvline(xe, color=_RED, linewidth=0.5, alpha=0.4)
    ax_b.plot([], [], color=_RED, linewidth=0.5, alpha=0.4, label="capture events")
    ax_b.plot(x, record["d_over_x"], color=_BLUE, linewidth=1.5,
              label=r"$d/x$, $d = w(0) - \mathrm{mean}_{j \neq 0}\, w(j)$")
    ax_b.set_xscale("log")
    ax_b.set_xlabel("$x$")
    ax_b.set_title(r"(b) $d/x \to \kappa_p$ (A.40)", fontsize=_TITLE)
    ax_b.legend(fontsize=_SMALL, loc="lower right", framealpha=0.9)

    # (c) max_zeta F_zeta - 2/(p-1) (>= 0: the largest of (p-1)/2 fractions summing to 1), on a log scale
    # down to the rounding level; the title says whether the plotted range shows it flatten.
    limit = record["limit_fourier_fraction"]
    excess = record["max_fourier_fraction"] - limit
    floor = FLAT_ROUNDING / 100
    ax_c.axhspan(floor, FLAT_ROUNDING, color=_GREY, alpha=0.15,
                 label=f"flat up to float rounding ($\\leq 10^{{{round(math.log10(FLAT_ROUNDING))}}}$)")
    ax_c.plot(x, np.maximum(excess, floor), color=_BLUE, linewidth=1.5,
              label=r"$\mathrm{max}_\zeta F_\zeta - 2/(p-1)$, certified limit "
                    f"$2/(p-1) {_certified(record, 'limit_fourier_fraction', 'exact')}$")
    for xe in ev_x:
        ax_c.axvline(xe, color=_RED, linewidth=0.5, alpha=0.4)
    ax_c.set_xscale("log")
    ax_c.set_yscale("log")
    ax_c.set_ylim(floor / 3, 1.0)
    ax_c.set_xlabel("$x$")
    ax_c.set_ylabel(r"$\mathrm{max}_\zeta F_\zeta - 2/(p-1)$")
    ax_c.set_title(_spectrum_title(excess), fontsize=_TITLE)
    ax_c.legend(fontsize=_SMALL, loc="upper right", framealpha=0.9)


def _spectrum_title(excess) -> str:
    """What slide's panel (c) shows, read off its data: flat all along, flattening, or neither."""
    excess = np.asarray(excess)
    if float(np.max(excess)) <= FLAT_ROUNDING:
        return r"(c) the spectrum is flat all along: $\mathrm{max}_\zeta F_\zeta = 2/(p-1)$ (A.46)"
    if float(excess[-1]) <= FLAT_ROUNDING:
        return r"(c) the spectrum flattens: $\mathrm{max}_\zeta F_\zeta \to 2/(p-1)$ (A.46)"
    return r"(c) $\mathrm{max}_\zeta F_\zeta - 2/(p-1)$ along the path (A.46: it tends to 0)"


def _smooth(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    s = record["s"]

    # (a) g along the decreasing clock s, above the certified g_*.
    g_star = float(np.sqrt(record["g_condition_lo"]))
    ax_a.plot(s, record["g"], color=_BLUE, linewidth=1.5, label=r"$g = \mathrm{mean}(w) - w(0)$")
    condition = _certified(record, "g_condition", "lo", subject=r"g_*^2 = g(0)^2 - J(s_0)")
    ax_a.axhline(g_star, color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified $g \\geq g_*$ (A.68), ${condition}$")
    ax_a.set_xlim(1.02 * float(s[0]), 0)
    ax_a.set_xlabel("$s = u(0) + v(0)$  (decreasing: time runs to the right)")
    ax_a.set_title(r"(a) $s$ decreases to 0 while $g$ stays above $g_* > 0$", fontsize=_TITLE)
    ax_a.legend(fontsize=_SMALL, loc="center left", framealpha=0.9)

    # (b) the w displacement approaching its limit, below the certified bound.
    ax_b.plot(s, record["displacement"], color=_BLUE, linewidth=1.5, label=r"$\|w(s) - w(0)\|_1$")
    ax_b.axhline(record["displacement_limit"], color=_GREEN, linestyle=":", linewidth=1.5,
                 label=rf"limit $\|w_\infty - w(0)\|_1 \approx {record['displacement_limit']:.4g}$ (simulated)")
    bound = _certified(record, "terminal_displacement_box", "hi", subject=r"\|w_\infty - w(0)\|_1")
    ax_b.axhline(record["terminal_displacement_box_hi"], color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified on the box: ${bound}$")
    ax_b.set_xlim(1.02 * float(s[0]), 0)
    ax_b.set_ylim(0, 1.15 * max(record["terminal_displacement_box_hi"], float(record["displacement"].max())))
    ax_b.set_xlabel("$s = u(0) + v(0)$  (decreasing)")
    ax_b.set_title(r"(b) $w$ converges, within the certified bound (A.69)", fontsize=_TITLE)
    ax_b.legend(fontsize=_SMALL, loc="center left", framealpha=0.9)

    _spectrum(ax_c, record, "(c) Fourier spectrum of the limit")


def _gd(fig, record: dict) -> None:
    ax_a, ax_b, ax_c = fig.subplots(1, 3)
    n = record["n"]

    # (a) the gates before and after the step: iterates are points (nothing happens between two).
    ax_a.plot(n, record["central_gate"], "o", color=_BLUE, label="central gate $u(0) + v(0)$")
    ax_a.plot(n, record["max_other_gate"], "s", color=_GREEN,
              label=r"$\mathrm{max}_{(a,b) \neq (0,0)}\, u(a) + v(b)$")
    other_hi = max(record["one_step_death_box_cross_gates_hi"], record["one_step_death_box_off_cross_gates_hi"])
    after = np.array([0.7, n[-1] + 0.3])
    central = _certified(record, "one_step_death_box_central_gate", "hi")
    others = ("one_step_death_box_cross_gates" if record["one_step_death_box_cross_gates_hi"] >=
              record["one_step_death_box_off_cross_gates_hi"] else "one_step_death_box_off_cross_gates")
    ax_a.plot(after, [record["one_step_death_box_central_gate_hi"]] * 2, "--", color=_BLUE, linewidth=1.0,
              label=f"certified central gate ${central}$ for $n \\geq 1$")
    ax_a.plot(after, [other_hi] * 2, "--", color=_GREEN, linewidth=1.0,
              label=f"certified other gates ${_certified(record, others, 'hi')}$ for $n \\geq 1$")
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
    ax_a.set_xlabel("iterate $n$")
    ax_a.set_title("(a) every gate is $< 0$ after one step", fontsize=_TITLE)
    ax_a.legend(fontsize=_SMALL, loc="upper right", framealpha=0.9)

    # (b) the spectrum of theta_1.
    _spectrum(ax_b, record, r"(b) Fourier spectrum of $\theta_1 = \theta_n$ ($n \geq 1$)",
              before=record["fourier_fractions_start"])

    # (c) how far w moves.
    ax_c.plot(n, record["w_displacement"], "o", color=_BLUE, label=r"$\|w_n - w_0\|_1$")
    step = _certified(record, "w_step_box", "hi", subject=r"\|w_1 - w_0\|_1")
    ax_c.axhline(record["w_step_box_hi"], color=_RED, linestyle="--", linewidth=1.2,
                 label=f"certified on the box: ${step}$")
    ax_c.set_ylim(0, 1.2 * max(record["w_step_box_hi"], float(record["w_displacement"].max())))
    ax_c.set_xticks(n)
    ax_c.set_xlabel("iterate $n$")
    ax_c.set_title(r"(c) $\theta$ stops after the first step", fontsize=_TITLE)
    ax_c.legend(fontsize=_SMALL, loc="lower right", framealpha=0.9)


def _drawn_points(ax, line, spacing: float = 2.0):
    """Display points along ``line`` as drawn: its vertices and, if it has a line style, points at most
    ``spacing`` pixels apart on each straight segment between them."""
    points = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
    points = points[np.all(np.isfinite(points), axis=1)]
    if line.get_linestyle() in ("None", "none", "", " ") or len(points) < 2:
        return points
    steps = np.maximum(1, np.ceil(np.hypot(*np.diff(points, axis=0).T) / spacing)).astype(int)
    pieces = [a + np.linspace(0, 1, n, endpoint=False)[:, None] * (b - a) for a, b, n in zip(points, points[1:], steps)]
    return np.vstack(pieces + [points[-1:]])


#: The smallest legend text, in points, when a legend is shrunk to its panel's width.
_SMALLEST_LEGEND = 4.0


def _fit_legends(fig) -> bool:
    """Shrink the text of each legend wider than its panel (at a small --size) to the panel's width, to no
    less than _SMALLEST_LEGEND points. Needs a laid-out figure. True if a legend changed."""
    renderer = fig.canvas.get_renderer()
    changed = False
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        width = legend.get_window_extent(renderer).width
        if width > 0.98 * ax.bbox.width:
            for text in legend.get_texts():
                text.set_fontsize(max(_SMALLEST_LEGEND, text.get_fontsize() * 0.95 * ax.bbox.width / width))
            changed = True
    return changed


def _clear_legends(fig, most: int = 12) -> bool:
    """Move each panel's y-limit away from its legend until no data point lies under the legend box.

    The data are the panel's polylines (their segments as drawn) and markers in data coordinates (not the
    axhline/axvline guides, which span the panel); a legend in the upper half raises the top limit, one in
    the lower half lowers the bottom, by a quarter of the range each time (on a log axis a quarter of the
    decades), at most ``most`` times.
    Needs a laid-out figure; the legend boxes keep their place on the panel. True if a limit moved."""
    renderer = fig.canvas.get_renderer()
    moved = False
    for ax in fig.axes:
        legend = ax.get_legend()
        scale = ax.get_yscale()
        if legend is None or scale not in ("linear", "log"):
            continue
        # a margin of 4 points: a PDF or SVG measures the legend's text anew, a little differently
        box = legend.get_window_extent(renderer).padded(4 * fig.dpi / 72)
        upper = box.y0 + box.y1 > ax.bbox.y0 + ax.bbox.y1
        lines = [line for line in ax.get_lines() if line.get_transform() == ax.transData and len(line.get_xdata())]
        for _ in range(most):
            covered = False
            for line in lines:
                points = _drawn_points(ax, line)
                inside = ((points[:, 0] >= box.x0) & (points[:, 0] <= box.x1) & (points[:, 1] >= box.y0)
                          & (points[:, 1] <= box.y1))
                if np.any(inside):
                    covered = True
                    break
            if not covered:
                break
            moved = True
            low, high = ax.get_ylim()
            if scale == "log":
                step = (high / low) ** 0.25
                ax.set_ylim(low, high * step) if upper else ax.set_ylim(low / step, high)
            else:
                step = 0.25 * (high - low)
                ax.set_ylim(low, high + step) if upper else ax.set_ylim(low - step, high)
    return moved


def _checked_theorem(record) -> str:
    theorem = record.get("theorem") if isinstance(record, dict) else None
    if _record(theorem) is None:
        raise ValueError(f"unknown theorem {theorem!r} in the trajectory record")
    return theorem


def draw_figure(record: dict, size=None, dpi=None):
    """The record's figure (three panels, see the module docstring) as a matplotlib Figure on an Agg canvas.

    ``size``: (width, height) in inches (default FIGSIZE), ``dpi``: dots per inch (default DPI), checked by
    :mod:`certify.figures` (FigureOptionError, an InputError and ValueError, one line). ValueError for a
    record of an unknown theorem; ImportError without matplotlib. The panels are laid out (drawn) and the
    layout is then kept (no layout engine): the artists' positions are final, and every save of the figure
    draws them there."""
    theorem = _checked_theorem(record)
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install matplotlib") from exc
    from certify.theorems.registry import resolve

    with default_style():
        fig = new_figure(size, dpi, FIGSIZE, DPI)
        resolve(_record(theorem).plot)(fig, record)
        fig.suptitle(_suptitle(record), fontsize=_SUPTITLE)
        lay_out(fig)  # under the default style: titles wrapped, mathtext parsed, a size too small refused now
        if _fit_legends(fig):
            fig.canvas.draw()  # the legends' new boxes
        if _clear_legends(fig):  # new y-limits, new tick labels: lay out again
            lay_out(fig)
        freeze_layout(fig)  # every save draws this layout
    return fig


def plot_instance(record: dict, path, size=None, dpi=None) -> Path:
    """Draw the record's figure (:func:`draw_figure`) into ``path``: PNG, PDF or SVG by its suffix.

    FigureOptionError (an InputError and a ValueError; one line) for another suffix, a bad size or dpi, or a
    PNG too large, before anything is drawn; ValueError for a record of an unknown theorem; ImportError
    without matplotlib. A PNG is round(width * dpi) x round(height * dpi) pixels (PIXELS by default). The
    file has no date or random id: the same record and options give the same bytes. Returns the path."""
    path = Path(path)
    _checked_theorem(record)
    check_options(path, size, dpi, FIGSIZE, DPI)
    with default_style():
        save_figure(draw_figure(record, size, dpi), path)
    return path
