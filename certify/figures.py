"""How every certify figure is sized and written: the format by the file's suffix, the size and resolution
options, and files that are the same bytes every time.

Standard library only at import (a leaf, like :mod:`certify.files`): matplotlib is imported inside the
functions, through its object-oriented API (:class:`matplotlib.figure.Figure` on an Agg canvas; pyplot and
the global backend are never touched), under matplotlib's default style, so that a user's matplotlibrc
changes nothing. The theorem figures (:mod:`certify.render.plots`), the law figure
(:mod:`certify.law.plots`) and the sensitivity experiment's figure (:mod:`certify.numeric.sensitivity`)
are all made and written here.

* **Format**: by the output file's suffix, case-insensitive: ``.png``, ``.pdf`` or ``.svg`` (FORMATS);
  anything else is a one-line :class:`FigureOptionError`.
* **Size**: ``(width, height)`` in inches, each a finite number in MIN_INCHES..MAX_INCHES (the CLI's
  ``--size W,H``); **dpi**: a whole number of dots per inch in MIN_DPI..MAX_DPI. A PNG has
  round(width * dpi) x round(height * dpi) pixels, at most MAX_SIDE_PIXELS a side and MAX_PIXELS in all;
  a PDF or SVG is vector graphics of the same size in inches (the dpi only matters to rasterised parts).
* **Text and layout**: the text shrinks with a figure smaller than its default (:func:`text_scale`, to
  no less than MIN_TEXT_SCALE); titles are broken into lines to fit their panels (:func:`wrap_titles`,
  :func:`lay_out`); panels that do not fit in the size are refused (FigureOptionError), and the layout is
  then kept (:func:`freeze_layout`), so that every save draws the same positions.
* **Determinism**: the same figure gives the same bytes: no date or software version in the PNG, no
  creation date in the PDF, no date and a fixed hash salt (the ids of its clip paths and glyphs) in the
  SVG.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from pathlib import Path

from .errors import InputError

__all__ = ["DEFAULT_DPI", "EXPERIMENT_SIZE", "FORMATS", "FigureOptionError", "LAW_SIZE", "MAX_DPI", "MAX_INCHES",
           "MAX_PIXELS", "MAX_SIDE_PIXELS", "MIN_DPI", "MIN_INCHES", "THEOREM_SIZE", "check_options",
           "default_style", "figure_dpi", "figure_format", "figure_size", "figure_style", "freeze_layout", "lay_out",
           "new_figure", "parse_size", "save_figure", "text_scale", "wrap_titles"]

#: Output suffix -> matplotlib format.
FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
#: Default sizes in inches: a theorem's three panels, the law's four, the sensitivity experiment's one; and
#: the default resolution (a theorem's PNG is 1500 x 450 pixels).
THEOREM_SIZE, LAW_SIZE, EXPERIMENT_SIZE = (15.0, 4.5), (14.0, 9.0), (6.4, 4.8)
DEFAULT_DPI = 100
#: The range of --dpi (below 20 no text is legible; 2400 is a print shop's resolution).
MIN_DPI, MAX_DPI = 20, 2400
#: The range of each side of --size in inches (below 1 inch the panels' text has no room).
MIN_INCHES, MAX_INCHES = 1.0, 100.0
#: The largest PNG: at most this many pixels a side (Agg's limit is 2^16) and in all (4 bytes each in memory).
MAX_SIDE_PIXELS, MAX_PIXELS = 32768, 10**8
#: The SVG hash salt: the ids of an SVG's clip paths and glyphs are hashes salted with it (random otherwise).
SVG_HASH_SALT = "certify"
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None}, "svg": {"Date": None}}


class FigureOptionError(InputError, ValueError):
    """A figure option that cannot be used (a suffix, size or dpi); one line. An InputError (exit 2 on the
    command line) and a ValueError (what the figure functions raised for a bad suffix before)."""


def figure_format(path) -> str:
    """The matplotlib format of ``path`` by its suffix ("png", "pdf" or "svg"); FigureOptionError otherwise."""
    suffix = Path(path).suffix
    if suffix.lower() not in FORMATS:
        shown = repr(suffix) if suffix else "(none)"
        raise FigureOptionError(f"unsupported plot file suffix {shown}: use .png, .pdf or .svg")
    return FORMATS[suffix.lower()]


def _real(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise FigureOptionError(f"{what} must be a number of inches, got {value!r}"[:300])
    number = float(value)
    if not math.isfinite(number) or not MIN_INCHES <= number <= MAX_INCHES:
        raise FigureOptionError(f"{what} must be a finite number of inches from {MIN_INCHES:g} to {MAX_INCHES:g}, "
                                f"got {value!r}"[:300])
    return number


def parse_size(text: str) -> tuple[float, float]:
    """``"W,H"`` (inches, as ``--size`` takes it: ``15,4.5``) as (W, H); FigureOptionError (one line) otherwise."""
    if not isinstance(text, str):
        raise FigureOptionError(f"size must be W,H in inches, got {text!r}"[:300])
    parts = text.split(",")
    if len(parts) != 2:
        raise FigureOptionError(f"size must be W,H in inches (two numbers, such as 15,4.5), got {text!r}"[:300])
    values = []
    for part, what in zip(parts, ("width", "height")):
        try:
            values.append(float(part.strip()))
        except ValueError:
            raise FigureOptionError(f"the {what} in {text!r} is not a number of inches"[:300]) from None
    return _real(values[0], "the width"), _real(values[1], "the height")


def figure_size(size, default: tuple[float, float]) -> tuple[float, float]:
    """(width, height) in inches: ``default`` for None, else ``size`` checked: a pair of real numbers (or a
    ``"W,H"`` string), each finite and in MIN_INCHES..MAX_INCHES; FigureOptionError (one line) otherwise."""
    if size is None:
        return float(default[0]), float(default[1])
    if isinstance(size, str):
        return parse_size(size)
    try:
        width, height = size
    except (TypeError, ValueError):
        raise FigureOptionError(f"size must be (width, height) in inches, got {size!r}"[:300]) from None
    return _real(width, "the width"), _real(height, "the height")


def figure_dpi(dpi, default: int) -> int:
    """The resolution in dots per inch: ``default`` for None, else ``dpi`` checked: a whole number (not a
    bool) in MIN_DPI..MAX_DPI; FigureOptionError (one line) otherwise."""
    if dpi is None:
        return int(default)
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Integral) or not MIN_DPI <= dpi <= MAX_DPI:
        raise FigureOptionError(f"dpi must be a whole number from {MIN_DPI} to {MAX_DPI}, got {dpi!r}"[:300])
    return int(dpi)


def _check_pixels(size: tuple[float, float], dpi: int, fmt: str) -> None:
    if fmt != "png":
        return
    width, height = (round(side * dpi) for side in size)
    if max(width, height) > MAX_SIDE_PIXELS or width * height > MAX_PIXELS:
        raise FigureOptionError(f"a PNG of {size[0]:g} x {size[1]:g} inches at {dpi} dpi would be {width} x {height} "
                                f"pixels: at most {MAX_SIDE_PIXELS} a side and {MAX_PIXELS:.0e} in all (lower "
                                "--dpi or --size, or write .pdf or .svg)")


def check_options(path, size, dpi, default_size, default_dpi) -> tuple[str, tuple[float, float], int]:
    """(format, size, dpi) for writing a figure to ``path``, all checked before anything is computed (a long
    run must not end on an option it cannot use): FigureOptionError for a bad suffix, size or dpi, or a PNG
    larger than MAX_SIDE_PIXELS / MAX_PIXELS."""
    fmt = figure_format(path)
    size, dpi = figure_size(size, default_size), figure_dpi(dpi, default_dpi)
    _check_pixels(size, dpi, fmt)
    return fmt, size, dpi


#: The text size at a figure's default size, in points; smaller figures scale it down, to at most
#: MIN_TEXT_SCALE of it (below that the text is no longer legible: such a size is refused, see lay_out).
BASE_FONT_SIZE, MIN_TEXT_SCALE = 10.0, 0.6


def text_scale(size, default_size) -> float:
    """How much a figure of ``size`` scales its text against ``default_size``: min(W/W0, H/H0), at most 1 and
    at least MIN_TEXT_SCALE (a figure half as wide has its text 0.6 as large, not squeezed out of its panels)."""
    ratio = min(size[0] / default_size[0], size[1] / default_size[1])
    return min(1.0, max(MIN_TEXT_SCALE, ratio))


def _math_words(text: str) -> list[str]:
    """``text`` split at the spaces outside its $...$ (mathtext is never broken)."""
    words, current, math_mode = [], "", False
    for character in text:
        if character == " " and not math_mode:
            if current:
                words.append(current)
            current = ""
            continue
        if character == "$":
            math_mode = not math_mode
        current += character
    if current:
        words.append(current)
    return words


def _wrap(text_artist, width: float, renderer) -> None:
    """Break ``text_artist``'s text at spaces outside math so that each line is at most ``width`` pixels."""
    words = _math_words(text_artist.get_text().replace("\n", " "))
    lines, current = [], ""
    for word in words:
        trial = f"{current} {word}" if current else word
        text_artist.set_text(trial)
        if current and text_artist.get_window_extent(renderer).width > width:
            lines.append(current)
            current = word
        else:
            current = trial
    lines.append(current)
    text_artist.set_text("\n".join(lines))


def wrap_titles(figure) -> None:
    """Break each axes title that is wider than 95% of its share of the figure's width (its grid columns) and
    the figure's suptitle that is wider than the figure into lines, at spaces outside $...$ (so that a title
    never runs into its neighbour's at a small --size)."""
    renderer = figure.canvas.get_renderer()
    width = figure.get_figwidth() * figure.dpi
    for ax in figure.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        columns = spec.get_gridspec().ncols
        cell = width * (spec.colspan.stop - spec.colspan.start) / columns  # the panel's share of the width
        if ax.title.get_text() and ax.title.get_window_extent(renderer).width > 0.95 * cell:
            _wrap(ax.title, 0.95 * cell, renderer)
    title = getattr(figure, "_suptitle", None)
    if title is not None and title.get_text() and title.get_window_extent(renderer).width > 0.98 * width:
        _wrap(title, 0.98 * width, renderer)


def _collapsed(caught) -> bool:
    return any("constrained_layout not applied" in str(warning.message) for warning in caught)


def freeze_layout(figure) -> None:
    """Keep the panels where the last layout put them: saving (in any format) then draws the figure as it is,
    without measuring and placing it again (the same bytes from every save)."""
    figure.set_layout_engine("none")


def lay_out(figure) -> None:
    """Lay the figure out now (draw it on its canvas): its titles wrapped (:func:`wrap_titles`, then again to
    their panel's width once the panels are placed), every artist placed and every label's mathtext parsed.
    FigureOptionError (one line) if its panels do not fit in its size (matplotlib's constrained layout
    collapses them: the text and legends need more room)."""
    wrap_titles(figure)
    with figure_style(figure), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        wider = [ax for ax in figure.axes if ax.title.get_text()
                 and ax.title.get_window_extent(renderer).width > ax.bbox.width]
        for ax in wider:  # laid out: a title is no wider than its panel (it is centred on it)
            _wrap(ax.title, ax.bbox.width, renderer)
        if wider:
            figure.canvas.draw()
    if _collapsed(caught):
        width, height = figure.get_size_inches()
        raise FigureOptionError(f"the panels do not fit in {width:g} x {height:g} inches with their text and "
                                "legends: use a larger --size")
    for warning in caught:  # any other warning is passed on as it came
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)


@contextlib.contextmanager
def default_style(text_scale: float = 1.0):
    """matplotlib's default style for the duration (a user's matplotlibrc changes nothing), with the text size
    BASE_FONT_SIZE * ``text_scale`` and the SVG hash salt fixed."""
    import matplotlib
    import matplotlib.style

    with matplotlib.rc_context():
        matplotlib.style.use("default")
        matplotlib.rcParams["font.size"] = BASE_FONT_SIZE * text_scale
        matplotlib.rcParams["svg.hashsalt"] = SVG_HASH_SALT
        yield


def figure_style(figure):
    """:func:`default_style` at the text scale ``figure`` was made with (:func:`new_figure`): drawing or saving
    it again inside lays it out with the same text (tick labels are made when drawn, from the rcParams)."""
    return default_style(getattr(figure, "certify_text_scale", 1.0))


def new_figure(size, dpi, default_size, default_dpi, **kwargs):
    """A matplotlib Figure of the checked ``size`` (inches) and ``dpi`` on its own Agg canvas (no pyplot),
    constrained layout unless ``layout`` is given, with the text size (rcParams font.size, which the named
    sizes "x-small", "medium", "large" scale) BASE_FONT_SIZE times :func:`text_scale`, kept on the figure
    for :func:`figure_style`. Call it inside :func:`default_style`. FigureOptionError for a bad size or dpi
    (see :func:`figure_size`, :func:`figure_dpi`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    import matplotlib

    kwargs.setdefault("layout", "constrained")
    size = figure_size(size, default_size)
    scale = text_scale(size, default_size)
    matplotlib.rcParams["font.size"] = BASE_FONT_SIZE * scale
    figure = Figure(figsize=size, dpi=figure_dpi(dpi, default_dpi), **kwargs)
    figure.certify_text_scale = scale  # figure_style(figure) draws and saves it with this text size again
    FigureCanvasAgg(figure)
    return figure


def save_figure(figure, path) -> Path:
    """Write ``figure`` to ``path`` in the format of its suffix at the figure's own size and dpi, with no
    date, software version or random id in the file, laid out in its own style (:func:`figure_style`): the
    same figure gives the same bytes, wherever it is saved from.
    FigureOptionError for a bad suffix, a PNG too large (:func:`check_options`) or panels that do not fit
    (:func:`lay_out`). Returns the path."""
    path = Path(path)
    fmt = figure_format(path)
    dpi = int(round(figure.dpi))
    _check_pixels(tuple(figure.get_size_inches()), dpi, fmt)
    with figure_style(figure), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.savefig(path, format=fmt, dpi=dpi, metadata=_METADATA[fmt])
    if _collapsed(caught):  # the vector backends measure text anew: their layout can collapse where Agg's did not
        width, height = figure.get_size_inches()
        raise FigureOptionError(f"the panels do not fit in {width:g} x {height:g} inches with their text and "
                                "legends: use a larger --size")
    for warning in caught:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return path
