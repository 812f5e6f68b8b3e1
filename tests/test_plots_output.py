"""Figures for a paper (issue 24, item 4): --size, --dpi and the format by the suffix (PNG, PDF, SVG), the same
bytes every time, one-line errors for options that cannot be used (API: InputError), typeset labels, titles
that fit their panels and legends that leave the data visible, at the default size and at a paper's."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import matplotlib  # noqa: F401 - the test extra installs it; a missing plotter is a failure, not a skip

import certify
from certify.errors import InputError
from certify.figures import FigureOptionError, figure_dpi, figure_size, parse_size
from certify.render.plots import DPI, FIGSIZE, draw_figure, plot_instance
from certify.simulate import simulate_instance
from conftest import run_certify

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ("dead", "slide", "smooth", "gd")
_CACHE: dict = {}


def record(theorem: str, source: str = "base") -> dict:
    if (theorem, source) not in _CACHE:
        certificate = json.loads((ROOT / "proofs" / theorem / f"{theorem}-5.json").read_text())
        _CACHE[theorem, source] = simulate_instance(certificate, source, seed=2)
    return _CACHE[theorem, source]


def figure(theorem: str, size=None, source: str = "base"):
    """The figure of ``theorem`` at p = 5 from the base point (or a box point), drawn once per size."""
    if (theorem, size, source) not in _CACHE:
        _CACHE[theorem, size, source] = draw_figure(record(theorem, source), size=size)
    return _CACHE[theorem, size, source]


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from the PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# --- size, resolution, format ---------------------------------------------------------------------------


def test_size_and_dpi_set_the_pixels_and_the_page(tmp_path):
    from certify.figures import default_style, save_figure

    assert png_size(plot_instance(record("gd"), tmp_path / "paper.png", size=(7, 2.6), dpi=300).read_bytes()) \
        == (2100, 780)
    paper = draw_figure(record("gd"), size=(7, 2.6), dpi=300)
    with default_style():
        pdf = save_figure(paper, tmp_path / "paper.PDF").read_bytes()
        svg = save_figure(paper, tmp_path / "paper.svg").read_text()
    assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+) *\]", pdf)
    assert box and (box.group(1), box.group(2)) == (b"504", b"187.2")  # 7 x 2.6 inches in points, 72 an inch
    assert svg.lstrip().startswith("<?xml") and re.search(r'<svg[^>]* width="504pt" height="187.2pt"', svg)


def test_the_same_figure_gives_the_same_bytes_without_dates(tmp_path):
    """Two saves of one figure: a date or a random id (the SVG's hash salt, per save unless fixed) differs."""
    from certify.figures import default_style, save_figure

    drawn = figure("gd")
    for suffix in (".png", ".pdf", ".svg"):
        with default_style():
            first = save_figure(drawn, tmp_path / f"a{suffix}").read_bytes()
        again = save_figure(drawn, tmp_path / f"b{suffix}").read_bytes()  # outside the style: same bytes
        assert first == again, suffix
        assert b"CreationDate" not in first and b"<dc:date>" not in first
        if suffix == ".png":
            assert png_size(first) == (round(FIGSIZE[0] * DPI), round(FIGSIZE[1] * DPI)) == (1500, 450)
            assert b"Software" not in first and matplotlib.__version__.encode() not in first


def test_the_api_writes_what_the_command_writes_in_another_process(tmp_path):
    made = certify.plot("gd", p=5, eta="1/2", size=(9, 3), dpi=50, out=tmp_path / "api.svg")
    assert tuple(made.get_size_inches()) == (9.0, 3.0) and made.dpi == 50
    result = run_certify("plot", "gd", "--p", 5, "--eta", "1/2", "--size", "9,3", "--dpi", 50, "--out",
                         tmp_path / "cli.svg")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "api.svg").read_bytes() == (tmp_path / "cli.svg").read_bytes()
    assert 'width="648pt" height="216pt"' in (tmp_path / "cli.svg").read_text()


# --- options that cannot be used: one line, exit 2 (InputError in the API), before anything runs ---------


@pytest.mark.parametrize("size", [(0, 3), (-5, 3), (float("inf"), 3), (float("nan"), 3), (3,), (1, 2, 3), "4",
                                  "a,b", (0.5, 3), (3, 101), True, (True, 3), ("3", 2)])
def test_bad_sizes_are_refused_in_one_line(size):
    with pytest.raises(FigureOptionError) as info:
        figure_size(size, (15, 4.5))
    assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("dpi", [0, 19, 2401, -100, 2.5, 100.0, "100", True])
def test_bad_dpi_is_refused_in_one_line(dpi):
    with pytest.raises(FigureOptionError) as info:
        figure_dpi(dpi, 100)
    assert "\n" not in str(info.value)


def test_sizes_as_the_command_spells_them():
    assert parse_size("15,4.5") == (15.0, 4.5) and parse_size(" 7 , 2.6 ") == (7.0, 2.6)
    assert figure_size("7,2.6", (15, 4.5)) == (7.0, 2.6) and figure_size([8, 3], (15, 4.5)) == (8.0, 3.0)
    assert figure_size(None, (15, 4.5)) == (15.0, 4.5) and figure_dpi(None, 100) == 100
    assert figure_dpi(np.int64(300), 100) == 300


def test_the_api_refuses_bad_options_before_simulating(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(certify.api, "simulate", lambda *a, **k: calls.append(1))
    for options in ({"size": (0, 3)}, {"dpi": 10}, {"dpi": 3000}, {"size": "x"}, {"out": tmp_path / "x.gif"},
                    {"out": tmp_path / "x", "dpi": 100}, {"out": tmp_path / "x.png", "size": (100, 100), "dpi": 2400}):
        with pytest.raises(InputError) as info:
            certify.plot("gd", p=5, eta="1/2", **options)
        assert "\n" not in str(info.value)
    assert calls == [] and list(tmp_path.iterdir()) == []


def command_error(capsys, *args) -> str:
    """The one line ``certify plot gd -p 5 --eta 1/2 ARGS`` prints on stderr, run in this process (exit 2)."""
    from certify.cli import main

    try:
        code = main(["plot", "gd", "--p", "5", "--eta", "1/2", *map(str, args)])
    except SystemExit as exit:  # argparse's usage errors
        code = exit.code
    error = capsys.readouterr().err
    assert code == 2 and "Traceback" not in error, error
    lines = error.strip().splitlines()
    assert len(lines) == 1, error
    return lines[0]


@pytest.mark.parametrize("args, words", [
    (["--size", "0,3"], ["--size", "width"]),
    (["--size", "15"], ["--size", "W,H"]),
    (["--size", "inf,3"], ["--size", "finite"]),
    (["--dpi", "10"], ["--dpi", "20 to 2400"]),
    (["--dpi", "1.5"], ["--dpi"]),
    (["--size", "100,100", "--dpi", "2400"], ["pixels"]),
    (["--size", "2,1.5"], ["do not fit in 2 x 1.5 inches"]),
])
def test_bad_options_on_the_command_line_are_one_line(tmp_path, capsys, args, words):
    out = tmp_path / "x.png"
    line = command_error(capsys, *args, "--out", out)
    assert all(word in line for word in words), line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["x.tiff", "x.jpg", "x", "x.svgz"])
def test_other_suffixes_are_one_line(tmp_path, capsys, name):
    line = command_error(capsys, "--out", tmp_path / name)
    assert "unsupported plot file suffix" in line and ".png, .pdf or .svg" in line


def test_sensitivity_figure_takes_the_same_options(tmp_path):
    from certify.numeric.sensitivity import plot_sensitivity

    rows = [{"p": 5, "eta": eta, "dist_reg": eta, "dist_psi": 0.5, "dist_restored": eta / 2, "gap": 0.5}
            for eta in (1e-1, 1e-2, 1e-3)]
    plot_sensitivity(tmp_path / "s.png", rows, size=(4, 3), dpi=50)
    assert png_size((tmp_path / "s.png").read_bytes()) == (200, 150)
    made = plot_sensitivity(tmp_path / "s.svg", rows)
    plot_sensitivity(tmp_path / "t.svg", rows)
    assert tuple(made.get_size_inches()) == (6.4, 4.8)
    assert (tmp_path / "s.svg").read_bytes() == (tmp_path / "t.svg").read_bytes()
    with pytest.raises(ValueError, match="suffix"):
        plot_sensitivity(tmp_path / "s.gif", rows)


# --- what a reader sees: typeset labels, titles that fit, legends beside the data ---------------------------

#: Words and signs of mathematics that must be typeset (inside $...$), never plain text in a label.
_MATH = re.compile(r"gamma|Gamma|zeta|kappa|theta|delta|sqrt|mean\(|max_|[_^|\\]|\b[a-z]\([0-9a-z]\)")


def texts(drawn):
    """Every text a reader sees: suptitle, titles, axis labels, legend entries, annotations."""
    out = [drawn._suptitle.get_text()] if drawn._suptitle is not None else []
    for ax in drawn.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        legend = ax.get_legend()
        out += [text.get_text() for text in legend.get_texts()] if legend is not None else []
        out += [child.get_text() for child in ax.texts]
    return [text for text in out if text]


@pytest.mark.parametrize("theorem, source", [(theorem, "base") for theorem in THEOREMS] + [("dead", "box")])
def test_labels_are_typeset_mathematics(theorem, source):
    for text in texts(figure(theorem, source=source)):
        plain = re.sub(r"\$[^$]*\$", "", text)
        assert text.count("$") % 2 == 0, text
        assert not _MATH.search(plain), (text, _MATH.search(plain).group(0))


def drawn_points(ax, artist) -> np.ndarray:
    """Display points along ``artist``'s polyline, at most 1 px apart (its vertices if it has no line)."""
    points = ax.transData.transform(np.asarray(artist.get_xydata(), dtype=float))
    if artist.get_linestyle() in ("None", "none", "", " ") or len(points) < 2:
        return points
    pieces = [a + np.linspace(0, 1, int(np.ceil(np.hypot(*(b - a)))) + 1)[:, None] * (b - a)
              for a, b in zip(points, points[1:])]
    return np.vstack(pieces)


@pytest.mark.parametrize("size", [None, (7, 2.6)])
@pytest.mark.parametrize("theorem", THEOREMS)
def test_titles_fit_and_legends_leave_the_data_visible(theorem, size):
    drawn = figure(theorem, size)
    renderer = drawn.canvas.get_renderer()
    titles = [ax.title.get_window_extent(renderer) for ax in drawn.axes]
    for i, box in enumerate(titles):
        assert box.x0 >= 0 and box.x1 <= drawn.bbox.x1
        assert not any(box.overlaps(other) for other in titles[i + 1:])
    for ax in drawn.axes:
        legend = ax.get_legend()
        box = legend.get_window_extent(renderer)
        assert box.x0 >= ax.bbox.x0 - 1 and box.x1 <= ax.bbox.x1 + 1  # the legend stays on its panel
        for artist in ax.get_lines():
            if artist.get_transform() != ax.transData or not len(artist.get_xdata()):
                continue  # axhline/axvline guides span the panel
            points = drawn_points(ax, artist)
            inside = ((points[:, 0] > box.x0) & (points[:, 0] < box.x1) & (points[:, 1] > box.y0)
                      & (points[:, 1] < box.y1))
            assert not np.any(inside), (ax.get_title(), artist.get_label())
    if size is not None:  # the text is scaled with the figure, down to 0.6 of the default
        scale = max(0.6, min(size[0] / FIGSIZE[0], size[1] / FIGSIZE[1]))
        assert drawn.axes[0].title.get_fontsize() == pytest.approx(10 * scale)
