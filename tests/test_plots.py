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
    for name in ("x.svg", "x.jpg", "x", "x.png.txt"):
        with pytest.raises(ValueError) as info:
            plot_instance(rec, tmp_path / name)
        assert "\n" not in str(info.value)
        assert not (tmp_path / name).exists()
    with pytest.raises(ValueError):
        plot_instance(dict(rec, theorem="alive"), tmp_path / "y.png")
    assert not (tmp_path / "y.png").exists()
