"""Figures of trajectory records (certify.render.plots): size, content, format, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import matplotlib  # noqa: F401,E402  (the test extra installs it; a missing plotter is a failure, not a skip)

from matplotlib.image import imread  # noqa: E402

from certify.render.plots import DPI, FIGSIZE, plot_instance  # noqa: E402
from certify.simulate import simulate_instance  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ("dead", "slide", "smooth", "gd")
P = 5
_CACHE: dict = {}


def record(theorem: str, source: str) -> dict:
    key = (theorem, source)
    if key not in _CACHE:
        certificate = json.loads((ROOT / "proofs" / theorem / f"{theorem}-{P}.json").read_text())
        _CACHE[key] = simulate_instance(certificate, source, seed=2)
    return _CACHE[key]


def base_png(theorem: str, directory: Path) -> bytes:
    """The PNG bytes of the base-point figure, drawn once per module."""
    key = (theorem, "png")
    if key not in _CACHE:
        path = directory / f"{theorem}-base.png"
        assert plot_instance(record(theorem, "base"), path) == path
        _CACHE[key] = path.read_bytes()
    return _CACHE[key]


def check_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = imread(path)
    assert image.shape[:2] == (round(FIGSIZE[1] * DPI), round(FIGSIZE[0] * DPI))
    rgb = image[..., :3].reshape(-1, 3)
    assert float(rgb.std()) > 0.05
    codes = np.round(rgb * 255).astype(np.int64) @ np.array([1 << 16, 1 << 8, 1])
    assert len(np.unique(codes)) > 20  # many distinct colours: curves, bars, text
    assert np.mean(np.any(rgb < 0.9, axis=1)) > 0.02  # not an almost white page


@pytest.mark.parametrize("theorem", THEOREMS)
def test_png_and_pdf_from_the_base_point(tmp_path, theorem):
    rec = record(theorem, "base")
    png, pdf = tmp_path / f"{theorem}.png", tmp_path / f"{theorem}.PDF"
    png.write_bytes(base_png(theorem, tmp_path))
    check_png(png)
    assert plot_instance(rec, pdf) == pdf
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert data.rstrip().endswith(b"%%EOF")
    assert len(data) > 8000
    assert b"CreationDate" not in data  # no timestamp: the same record gives the same file


@pytest.mark.parametrize("theorem", ["dead", "gd"])
def test_png_is_deterministic(tmp_path, theorem):
    first = base_png(theorem, tmp_path)
    again = plot_instance(record(theorem, "base"), tmp_path / "again.png")
    assert again.read_bytes() == first


@pytest.mark.parametrize("theorem", THEOREMS)
def test_png_from_a_box_point_differs_from_the_base_figure(tmp_path, theorem):
    box = tmp_path / "box.png"
    plot_instance(record(theorem, "box"), box)
    check_png(box)
    assert box.read_bytes() != base_png(theorem, tmp_path)


def test_bad_suffix_and_record(tmp_path):
    rec = record("gd", "base")
    for name in ("x.gif", "x.jpg", "x", "x.png.txt", "x.eps"):
        with pytest.raises(ValueError) as info:
            plot_instance(rec, tmp_path / name)
        assert "\n" not in str(info.value)
        assert not (tmp_path / name).exists()
    with pytest.raises(ValueError):
        plot_instance(dict(rec, theorem="alive"), tmp_path / "y.png")
    assert not (tmp_path / "y.png").exists()


# ----------------------------------------------------------------------------------------------
# The panels' artists and labels (issue 11, section 3)
# ----------------------------------------------------------------------------------------------


def drawn(rec: dict):
    """The record's panels drawn (and laid out by Agg) on a Figure of plot_instance's size and style."""
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from certify.render import plots

    with matplotlib.rc_context():
        matplotlib.style.use("default")
        fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
        getattr(plots, "_" + rec["theorem"])(fig, rec)
        FigureCanvasAgg(fig).draw()
    return fig


def gd_record(p: int, source: str) -> dict:
    key = ("gd", p, source)
    if key not in _CACHE:
        certificate = json.loads((ROOT / "proofs" / "gd" / f"gd-{p}.json").read_text())
        _CACHE[key] = simulate_instance(certificate, source, seed=2)
    return _CACHE[key]


def test_slide_time_axis_is_labelled_once_not_as_a_double_log():
    ax = drawn(record("slide", "base")).axes[0]
    label = ax.get_xlabel()
    assert label.startswith("t ") and "log10 t  (log scale)" not in label
    assert ax.get_xscale() == "log"  # the data are log10 t on a logarithmic axis ...
    # ... so a tick at k = log10 t is labelled with the time it stands for, t = 10^k
    formatter = ax.xaxis.get_major_formatter()
    assert formatter(100.0, 0) == "$10^{100}$" and formatter(3.0, 0) == "$10^{3}$"
    shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert shown and all(text.startswith("$10^{") for text in shown)


@pytest.mark.parametrize("source", ["base", "box"])
def test_dead_star_marks_this_trajectorys_death(source):
    rec = record("dead", source)
    ax = drawn(rec).axes[1]
    stars = [line for line in ax.get_lines() if line.get_marker() == "*"]
    assert len(stars) == 1
    x, y = stars[0].get_xdata()[0], stars[0].get_ydata()[0]
    if source == "base":
        assert (x, y) == (0.0, np.sqrt(rec["Gamma"]))
    else:
        assert (x, y) == (rec["s"][-1], rec["g_spread"][-1])  # the record's own death row
        assert y != np.sqrt(rec["Gamma"])  # not the base point's death
        assert "this trajectory" in stars[0].get_label()


@pytest.mark.parametrize("p", [5, 13, 101])
@pytest.mark.parametrize("source", ["base", "box"])
def test_gd_symlog_tick_labels_do_not_overlap(p, source):
    fig = drawn(gd_record(p, source))
    ax = fig.axes[0]
    assert ax.get_yscale() == "symlog"
    renderer = fig.canvas.get_renderer()
    low, high = sorted(ax.get_ylim())
    labels = [t for t in ax.get_yticklabels() if t.get_visible() and t.get_text() and low <= t.get_position()[1] <= high]
    assert len(labels) >= 3 and any(t.get_position()[1] < 0 for t in labels) and any(t.get_position()[1] == 0 for t in labels)
    boxes = [t.get_window_extent(renderer) for t in labels]
    clashes = [(labels[i].get_text(), labels[j].get_text())
               for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]
    assert not clashes


def test_a_custom_certificate_file_is_plotted(tmp_path):
    from flint import fmpq

    from certify.certificate import dumps
    from certify.simulate import simulate_certificate_file
    from certify.theorems.dead import certify_dead

    cert = certify_dead(7, A=fmpq(3, 2), radius=fmpq(1, 10)).certificate
    path = tmp_path / "dead-7.json"
    path.write_text(dumps(cert), encoding="utf-8")
    rec = simulate_certificate_file(path, "box", seed=1)
    assert rec["A"] == 1.5 and rec["radius"] == 0.1
    png = plot_instance(rec, tmp_path / "custom.png")
    check_png(png)
