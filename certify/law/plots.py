"""Figures of ``certify law`` runs: ``plot_law(folders, path)`` draws four panels into a PNG or PDF.

(a) the outcome fractions against p with their Wilson 95% intervals, one point per run folder and outcome
    (log scale; a zero count is drawn as its upper end, a downward triangle), and the certified lower
    bound on P(R_dead | active) of each p as a black bar;
(b) the histogram of max_zeta F_zeta at the horizon (samples.csv) of each folder, with the threshold 0.99;
(c), (d) up to :data:`PER_OUTCOME` trajectories of each outcome of the first folder, re-simulated by index
    (the draws are deterministic): max_zeta F_zeta(t) and the largest gate max_ab u(a) + v(b) against
    log10(1 + t) at the checkpoints. A run records its trajectories at the checkpoints only (4 a decade,
    certify.law.record.checkpoint_times), so they are drawn as the points they are, joined by faint
    straight lines that the axis label calls what they are (no value between two checkpoints is known). A
    re-simulation classified otherwise than its row says so in the legend.

matplotlib is optional and imported inside the functions; the figure is made and written by
:mod:`certify.figures` (object-oriented API, Agg rasteriser, default style: a user's matplotlibrc changes
nothing; PNG, PDF or SVG by the suffix; size and dpi as given, default FIGSIZE at DPI; no dates or random
ids). Floats only: the figures illustrate measurements, they prove nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from certify.figures import DEFAULT_DPI as DPI, LAW_SIZE as FIGSIZE  # the figure's size (inches) and resolution

__all__ = ["FIGSIZE", "DPI", "PER_OUTCOME", "check_plot_path", "load_run", "plot_law"]

#: Trajectories re-simulated per outcome in panels (c) and (d).
PER_OUTCOME = 3

_COLOURS = {"dead": "#d62728", "memorises_one_entry": "#9467bd", "single_frequency": "#2ca02c",
            "staircase": "#1f77b4", "multi_gate_other": "#ff7f0e", "undecided": "#7f7f7f"}
_MARKERS = {"flow": "o", "gd": "s"}


def check_plot_path(path, size=None, dpi=None) -> str:
    """The format ('png', 'pdf' or 'svg') of ``path`` by its suffix, with ``size`` (inches) and ``dpi`` checked
    (:func:`certify.figures.check_options`: FigureOptionError, a ValueError, for a bad suffix, size or dpi);
    ImportError without matplotlib. Called before a run, so that a long run does not end on a figure it
    cannot draw."""
    from certify.figures import check_options

    fmt, _, _ = check_options(path, size, dpi, FIGSIZE, DPI)
    import matplotlib  # noqa: F401 - ImportError here, with the caller's install hint

    return fmt


def load_run(folder) -> dict:
    """{"folder", "parameters", "summary", "rows"} of a finished run; ValueError (one line) if it is not one.

    Nothing of the folder's summary.json is used: run.json is read as the runner reads it (capped, a regular
    file only, strict), the rows are those :func:`certify.law.runner.read_samples` accepts for this run
    (check_row), and the summary is recomputed from them (:func:`certify.law.runner.summary_document`, the
    certified floor from the kernel): an edited summary.json can draw nothing."""
    from certify.errors import CertifyError
    from certify.law.runner import (RUN_RECORD_BYTES, LawParameters, _read_limited, certified_dead_region,
                                    read_samples, summary_document)

    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder of certify law")
    try:
        data = _read_limited(folder / "run.json", RUN_RECORD_BYTES, "run.json")
        parameters = LawParameters.from_record(json.loads(data.decode("utf-8")))
        rows, _ = read_samples(folder / "samples.csv", parameters)  # the rows check_row accepts for this run
    except (CertifyError, ValueError, RecursionError, OSError) as exc:  # LawError is a CertifyError
        raise ValueError(f"{folder} does not hold a readable run of certify law ({str(exc).splitlines()[0][:200]})") \
            from None
    samples = 0
    while samples in rows:
        samples += 1
    if samples == 0:
        raise ValueError(f"{folder}: samples.csv holds no sample of this run (run certify law there first)")
    summary = summary_document(parameters, samples, rows, certified_dead_region(parameters.p))
    return {"folder": folder, "parameters": parameters, "summary": summary,
            "rows": [rows[i] for i in range(samples)]}


def _fractions_panel(ax, runs) -> None:
    from certify.law.classify import OUTCOMES

    dynamics = sorted({run["parameters"].dynamics for run in runs})
    primes = sorted({run["parameters"].p for run in runs})
    width = 3.0 if len(primes) < 2 else 0.8 * min(b - a for a, b in zip(primes, primes[1:]))
    band = width / len(OUTCOMES)  # each outcome a band around p; the runs at one p side by side in it
    slots = {}
    for run in runs:
        slots.setdefault(run["parameters"].p, []).append(run)
    lowest, labelled = 1.0, set()
    for k, name in enumerate(OUTCOMES):
        for p, at_p in slots.items():
            for j, run in enumerate(at_p):
                kind = run["parameters"].dynamics
                x = p + (k - (len(OUTCOMES) - 1) / 2) * band + (j - (len(at_p) - 1) / 2) * band / (len(at_p) + 1)
                label = name if len(dynamics) == 1 else f"{name} ({kind})"
                show = label not in labelled
                labelled.add(label)
                entry = run["summary"]["outcomes"][name]
                lo, hi, f = entry["ci_low"], entry["ci_high"], entry["fraction"]
                if f > 0:
                    lowest = min(lowest, lo if lo > 0 else f)
                    ax.errorbar([x], [f], yerr=[[f - lo], [hi - f]], fmt=_MARKERS[kind], color=_COLOURS[name],
                                markersize=5, capsize=3, label=label if show else None)
                else:
                    lowest = min(lowest, hi)
                    ax.plot([x], [hi], "v", color=_COLOURS[name], markersize=6, label=label if show else None)
    floors = {run["parameters"].p: float(run["summary"]["certified"]["dead_region_lower_bound"]) for run in runs}
    for i, (p, floor) in enumerate(sorted(floors.items())):
        ax.plot([p - width / 2, p + width / 2], [floor, floor], color="black", linewidth=2,
                label=r"certified lower bound of $P(R_{\mathrm{dead}} \mid \mathrm{active})$" if i == 0 else None)
        lowest = min(lowest, floor)
    ax.set_yscale("log")
    ax.set_ylim(lowest / 3, 1.6)
    ax.set_xticks(primes)
    ax.set_xlim(primes[0] - 0.75 * width, primes[-1] + 0.75 * width)
    ax.set_xlabel("$p$  (outcomes side by side around each $p$)")
    ax.set_ylabel("fraction of samples (Wilson 95%; v: upper end of a zero count)")
    sizes = ", ".join(f"$p = {run['parameters'].p}$ {run['parameters'].dynamics}: $n = {run['summary']['samples']}$"
                      for run in runs)
    ax.set_title(f"(a) outcome fractions ({sizes})", fontsize="medium")
    ax.legend(fontsize="x-small", loc="best", ncol=2 if len(labelled) > 5 else 1)


def _histogram_panel(ax, runs) -> None:
    from certify.law.classify import ALIGNED

    bins = np.linspace(0.0, 1.0, 41)
    for run in runs:
        values = np.array([float(row["max_fourier"] or "nan") for row in run["rows"]])  # '': undefined at T
        values = values[np.isfinite(values)]
        parameters = run["parameters"]
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5,
                label=f"$p = {parameters.p}$, {parameters.dynamics}, $T = {parameters.horizon}$ ($n = {values.size}$)")
    ax.axvline(ALIGNED, color=_COLOURS["single_frequency"], linestyle="--", linewidth=1.2,
               label=f"single-frequency threshold {ALIGNED}")
    ax.set_xlabel(r"$\mathrm{max}_\zeta F_\zeta$ at the horizon")
    ax.set_ylabel("samples")
    ax.set_title("(b) Fourier purity at the horizon", fontsize="medium")
    ax.legend(fontsize="x-small", loc="upper left")


def _chosen_indices(run, per_outcome: int) -> list[int]:
    from certify.law.classify import OUTCOMES

    chosen = []
    for name in OUTCOMES:
        chosen += [int(row["index"]) for row in run["rows"] if row["outcome"] == name][:per_outcome]
    return chosen


def _trajectory_panels(ax_f, ax_g, run, per_outcome: int) -> None:
    from certify.law.classify import classify
    from certify.law.record import max_fourier_fraction
    from certify.law.runner import simulate_samples

    parameters = run["parameters"]
    p = parameters.p
    recorded = {int(row["index"]): row["outcome"] for row in run["rows"]}
    indices = _chosen_indices(run, per_outcome)
    record = {"p": p, "sigma": parameters.sigma, "seed": parameters.seed, "horizon": parameters.horizon,
              "dynamics": parameters.dynamics, "eta": parameters.eta}
    labelled = set()
    for index, _, trajectory, _ in simulate_samples(record, indices):
        outcome = recorded[index]
        if isinstance(trajectory, Exception):
            continue
        again = classify(trajectory).outcome
        label = outcome if again == outcome else f"{outcome} (re-simulated: {again})"
        x = np.log10(1.0 + trajectory.times)
        purity = [max_fourier_fraction(state, p) for state in trajectory.states]
        gates = [float(np.max(state[:p][:, None] + state[p:2 * p][None, :])) for state in trajectory.states]
        show = label not in labelled
        labelled.add(label)
        for ax, values in ((ax_f, purity), (ax_g, gates)):  # the checkpoints, joined by faint straight lines
            ax.plot(x, values, color=_COLOURS[outcome], linewidth=0.6, alpha=0.5)
            ax.plot(x, values, ".", color=_COLOURS[outcome], markersize=4,
                    label=f"{label} (#{index})" if show else None)
    from certify.law.classify import ALIGNED

    ax_f.axhline(ALIGNED, color=_COLOURS["single_frequency"], linestyle="--", linewidth=1.0)
    ax_f.set_ylim(0, 1.05)
    ax_f.set_ylabel(r"$\mathrm{max}_\zeta F_\zeta(t)$")
    ax_g.axhline(0.0, color="black", linewidth=0.6)
    ax_g.set_ylabel(r"largest gate $\mathrm{max}_{a,b}\, u(a) + v(b)$")
    name = run["folder"].name.replace("$", r"\$")  # a folder's $ is text, not mathtext
    where = f"{name}: $p = {p}$, {parameters.dynamics}"
    for ax, letter in ((ax_f, "c"), (ax_g, "d")):
        ax.set_xlabel(r"$\log_{10}(1 + t)$ (points: the checkpoints, 4 a decade; lines only join them)")
        ax.set_title(f"({letter}) up to {per_outcome} trajectories per outcome, re-simulated ({where})",
                     fontsize="medium")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small", loc="best")


def plot_law(folders, path, per_outcome: int = PER_OUTCOME, size=None, dpi=None) -> Path:
    """Draw panels (a)-(d) (module docstring) of the finished runs in ``folders`` into ``path`` (PNG, PDF or SVG
    by its suffix; ``size`` in inches, default FIGSIZE, and ``dpi``, default DPI).

    ValueError (one line) for another suffix, a bad size or dpi, or a folder that is not a finished run;
    ImportError without matplotlib. Panels (c) and (d) re-simulate up to ``per_outcome`` samples per outcome
    of the first folder (as long as the samples took). The same runs and options give the same bytes.
    Returns the path."""
    from certify.figures import default_style, freeze_layout, lay_out, new_figure, save_figure

    check_plot_path(path, size, dpi)
    folders = list(folders)
    if not folders:
        raise ValueError("no run folder to plot")
    runs = [load_run(folder) for folder in folders]
    path = Path(path)
    with default_style():
        fig = new_figure(size, dpi, FIGSIZE, DPI)
        (ax_a, ax_b), (ax_c, ax_d) = fig.subplots(2, 2)
        _fractions_panel(ax_a, runs)
        _histogram_panel(ax_b, runs)
        _trajectory_panels(ax_c, ax_d, runs[0], per_outcome)
        fig.suptitle("certify law: measured outcomes at a finite horizon (floats, an observation, not a theorem), "
                     "beside the certified dead-region floor", fontsize="large")
        lay_out(fig)  # titles wrapped to their panels; a size too small for the panels refused
        freeze_layout(fig)
        save_figure(fig, path)
    return path
