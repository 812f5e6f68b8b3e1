"""Float trajectories of a certificate's theorem, with the certificate's bounds beside them.

``simulate_instance(certificate, source, seed)`` runs the existing float simulators of
``certify.numeric`` from the certificate's base point (``source="base"``) or from one
random point of its certified box (``source="box"``: the first point of
``box_samples(certificate, numpy.random.default_rng(seed), 1)``, a uniform draw) and
returns a *trajectory record*: a flat dict of

  * metadata (str / int / float): ``record_format``, ``theorem``, ``p``, ``source``,
    ``seed``, ``clock`` (the key of the record's clock array: "t" for dead, "x" for
    slide, "s" for smooth, "n" for gd), ``radius`` and the theorem's parameters;
  * the certificate's bounds as floats (nearest doubles to the exact numbers), named
    ``<claim>_lo`` / ``<claim>_hi`` (``<claim>_<component>_hi`` for components) or
    ``<claim>`` for an exact value, each with its stored text beside it under the same key
    plus ``_text`` (so is the radius: ``radius_text``), which the summary shows;
  * numpy arrays: the start point ``u0, v0, w0``, the terminal (or limit) state
    ``u_end, v_end, w_end``, quantities along the clock and the terminal spectrum
    ``fourier_fractions_end[zeta - 1] = F_zeta`` (1.5), zeta = 1 .. (p-1)/2.

Keys per theorem (arrays along the clock unless marked scalar):

  dead    t, s (central gate u(0) + v(0)), gamma = mean(w) - w(0) (A.50),
          g = mean_{j != 0} w(j) - w(0) (= w(j) - w(0) of section 2 at the base point),
          g_spread = sqrt(p/(p-1)) ||w - mean(w)||_2 (= g at the base point; g_spread^2 - p s^2/(2(p-1))
          is constant in the chamber from every start: (2.6)), hyperbola = g^2 - p s^2/(2(p-1)) (left
          side of (2.6)), max_other_gate, max_fourier_fraction,
          loss, balance; scalars t_death, death_slope (-ds/dt just before death, (2.7)),
          w_displacement_end, Gamma = A^2 - p epsilon^2/(2(p-1)), epsilon, A, B and the bounds
          hitting_time_lo/hi, hitting_time_box_lo/hi, transversality_margin_lo/hi,
          transversality_margin_box_lo, purity_gap_box_lo, terminal_fourier_fraction,
          terminal_w_displacement_box_hi, terminal_loss_lo/hi, single_active_gate_lo,
          balance_invariant.  The last row is the death state (s = 0 up to rounding).
  slide   x, log10_t, d_over_x (A.34), n_captured, min_gamma, max_kink_coefficient,
          max_off_cross_gate, max_abs_captured_gate, wrong_class_spread, max_fourier_fraction,
          balance (the start row, at t = 0, is left out: log10 t = -inf there); capture events
          event_x, event_log10_t, event_rows, event_columns (counts of newly captured gates);
          scalars x0, x_full_capture, log10_t_full_capture, loss_end, gamma_star, X and the bounds
          kappa_lo/hi, capture_time_log10_lo/hi, limit_fourier_fraction, limit_loss_lo/hi,
          admissibility_hi.
  smooth  s (decreasing), displacement = ||w(s) - w(0)||_1, g = mean(w) - w(0), max_other_gate,
          max_fourier_fraction, loss (with sigma_eps), balance; the *_end state is the limit
          estimate; scalars s_end, displacement_limit, tail_bound (A.69), eps_smooth, epsilon,
          A, B and the bounds terminal_displacement_box_hi, purity_gap_box_lo,
          dead_zone_integral_lo/hi, g_condition_lo, terminal_fourier_fraction,
          single_active_gate_lo.
  gd      n = 0 .. 3, t = eta n, theta (rows (u, v, w) of theta_n), central_gate, max_cross_gate,
          max_off_cross_gate, max_other_gate, max_fourier_fraction, w_displacement
          = ||w_n - w_0||_1, loss, balance; the *_end state is theta_1; scalars eta, epsilon,
          A, B and the bounds one_step_death_box_{central_gate,cross_gates,off_cross_gates}_hi,
          w_step_box_hi, purity_gap_box_lo, terminal_fourier_fraction, single_active_gate_lo.

Every record also has u0, v0, w0, u_end, v_end, w_end, fourier_fractions_start and
fourier_fractions_end.  The paths are dense (the solver's steps and DEAD_SAMPLES / SMOOTH_SAMPLES /
SLIDE_*_SAMPLES points of its dense output), so that a figure's straight segments between rows follow
the curves (certify.render.plots).

Floats only (see ``certify.numeric``): a record illustrates and cross-checks a
certificate, it proves nothing.  ``save_trajectory`` / ``load_trajectory`` write and read
records as JSON or compressed NPZ.
"""

from __future__ import annotations

import inspect
import json
import math
from dataclasses import dataclass
from functools import partial
from fractions import Fraction
from pathlib import Path

import numpy as np

from certify.theorems.registry import RegistryView, resolve

__all__ = [
    "CLOCKS",
    "RECORD_FORMAT",
    "SOURCES",
    "load_trajectory",
    "save_trajectory",
    "simulate_certificate_file",
    "simulate_instance",
    "summary_lines",
]

RECORD_FORMAT = "certify-trajectory/1"
SOURCES = ("base", "box")
#: The key of the clock array of each theorem's record: the records' ``clock`` (certify.theorems.registry).
CLOCKS = RegistryView(lambda theorem: theorem.clock)
#: Iterates theta_0 .. theta_{GD_STEPS} recorded for Theorem A.4.
GD_STEPS = 3
#: The dead path: the solver's steps and DEAD_SAMPLES equally spaced times of [0, T] from its dense output
#: (a figure draws straight segments between rows: at this spacing they follow the curve to far below a
#: pixel, tests/test_plots_curves.py).
DEAD_SAMPLES = 400
#: The smooth path: the solver's steps and SMOOTH_SAMPLES equally spaced values of the clock s.
SMOOTH_SAMPLES = 400
#: The slide path: samples per capture segment and on the full face, equally spaced along (log x, d/x).
SLIDE_SEGMENT_SAMPLES, SLIDE_FINAL_SAMPLES = 64, 400
_SUFFIXES = (".json", ".npz")


# ----------------------------------------------------------------------------------------------
# Reading the certificate
# ----------------------------------------------------------------------------------------------


def _number(text) -> float:
    """A certificate number (exact decimal or fraction string) as the nearest double."""
    return float(Fraction(str(text)))


def _claim(certificate: dict, name: str) -> dict:
    try:
        return certificate["claims"][name]
    except KeyError:
        raise ValueError(f"{certificate.get('theorem')} certificate has no claim {name!r}") from None


def _bounds(certificate: dict, out: dict, name: str, *ends: str, key: str | None = None) -> None:
    """out[key_end] = float(claim[end]) for each end ("lo", "hi", "log10_lo", ...); "exact" -> out[key];
    the stored text beside each, under the same key plus ``_text``."""
    claim = _claim(certificate, name)
    key = name if key is None else key
    for end in ends:
        field = key if end == "exact" else f"{key}_{end}"
        out[field], out[f"{field}_text"] = _number(claim[end]), claim[end]


def _component_bounds(certificate: dict, out: dict, name: str, end: str) -> None:
    """out[name_component_end] for every component of a claim with components (and its text, ``..._text``)."""
    for component, bound in sorted(_claim(certificate, name)["components"].items()):
        field = f"{name}_{component}_{end}"
        out[field], out[f"{field}_text"] = _number(bound[end]), bound[end]


def _parameters(certificate: dict, out: dict) -> None:
    for name, value in sorted(certificate.get("parameters", {}).items()):
        out[name] = _number(value)


# ----------------------------------------------------------------------------------------------
# Quantities along a path (rows of states)
# ----------------------------------------------------------------------------------------------


def _split(theta: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return theta[..., :p], theta[..., p : 2 * p], theta[..., 2 * p :]


def _max_other_gate(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """For rows of u and v: max over (a, b) != (0, 0) of u(a) + v(b) (O(p) per row, see model.max_other_gate)."""
    from certify.numeric.model import max_other_gate

    return max_other_gate(U, V)


def _path_quantities(U: np.ndarray, V: np.ndarray, W: np.ndarray, loss_fn=None) -> dict:
    """max_zeta F_zeta, balance and (with loss_fn) the loss at every row.

    The full-table loss costs ~p^3 per row, so it is left out of the long sliding paths
    (dead and gd pass ``active_loss``, O(p) per row in their single-gate chambers).
    """
    from certify.numeric.fourier import fourier_fractions
    from certify.numeric.model import balance_quantity

    out = {
        "max_fourier_fraction": np.array([fourier_fractions(u, v, w).max() for u, v, w in zip(U, V, W)]),
        "balance": np.array([balance_quantity(u, v, w) for u, v, w in zip(U, V, W)]),
    }
    if loss_fn is not None:
        out["loss"] = np.array([loss_fn(u, v, w) for u, v, w in zip(U, V, W)])
    return out


def _ends(out: dict, start, end) -> None:
    from certify.numeric.fourier import fourier_fractions

    for name, x in zip(("u0", "v0", "w0"), start):
        out[name] = np.array(x, dtype=np.float64)
    for name, x in zip(("u_end", "v_end", "w_end"), end):
        out[name] = np.array(x, dtype=np.float64)
    out["fourier_fractions_start"] = fourier_fractions(*start)
    out["fourier_fractions_end"] = fourier_fractions(*end)


# ----------------------------------------------------------------------------------------------
# The four theorems
# ----------------------------------------------------------------------------------------------


def _g_spread(W: np.ndarray) -> np.ndarray:
    """sqrt(p/(p-1)) ||w - mean(w)||_2 for rows of w: g = w(j) - w(0) where the w(j), j != 0, are equal.

    In the central-only chamber ||w||^2 - s^2/2 and mean(w) are conserved (dw_c/dt = -(s/p^2)(q_c - 1{c=0}),
    ds/dt = -(2/p^2) sum_c (q_c - 1{c=0}) w_c), so g_spread^2 - p s^2/(2(p-1)) is constant along every
    trajectory of the chamber: (2.6), exactly, from any start (g's own (2.6) needs the symmetric start)."""
    p = W.shape[1]
    return np.sqrt(p / (p - 1)) * np.linalg.norm(W - W.mean(axis=1, keepdims=True), axis=1)


def _dead(certificate: dict, start, progress=None) -> dict:
    from certify.numeric.flow import simulate_until_death
    from certify.numeric.model import active_gradient as gradient
    from certify.numeric.model import active_loss as loss

    u, v, w = start
    p = len(u)
    result = simulate_until_death(u, v, w, dense=True, samples=DEAD_SAMPLES, progress=progress)
    U, V, W = _split(result.states, p)
    s = U[:, 0] + V[:, 0]
    g = W[:, 1:].mean(axis=1) - W[:, 0]  # b - a of section 2 (mean over j != 0 off the base point)
    out = {
        "t": result.times.copy(),
        "s": s,
        "gamma": W.mean(axis=1) - W[:, 0],  # (A.50)
        "g": g,
        "g_spread": _g_spread(W),
        "hyperbola": g**2 - p * s**2 / (2 * (p - 1)),  # left side of (2.6)
        "max_other_gate": _max_other_gate(U, V),
    }
    out.update(_path_quantities(U, V, W, loss))
    _ends(out, start, (result.u, result.v, result.w))
    out["t_death"] = float(result.t_death)
    # -ds/dt just before death: the field at the death state moved back onto s = +1e-12 (cf. (2.7)).
    before = result.u.copy()
    before[0] -= result.u[0] + result.v[0] - 1e-12
    gu, gv, _ = gradient(before, result.v, result.w)
    out["death_slope"] = float(gu[0] + gv[0])
    out["w_displacement_end"] = float(np.abs(result.w - np.asarray(w)).sum())
    params = certificate["parameters"]
    epsilon, A = _number(params["epsilon"]), _number(params["A"])
    out["Gamma"] = A**2 - p * epsilon**2 / (2 * (p - 1))  # (2.6)
    _bounds(certificate, out, "hitting_time", "lo", "hi")
    _bounds(certificate, out, "hitting_time_box", "lo", "hi")
    _bounds(certificate, out, "transversality_margin", "lo", "hi")
    _bounds(certificate, out, "transversality_margin_box", "lo")
    _bounds(certificate, out, "purity_gap_box", "lo")
    _bounds(certificate, out, "terminal_fourier_fraction", "exact")
    _bounds(certificate, out, "terminal_w_displacement_box", "hi")
    _bounds(certificate, out, "terminal_loss", "lo", "hi")
    _bounds(certificate, out, "single_active_gate", "lo")
    _bounds(certificate, out, "balance_invariant", "exact")
    return out


def _slide(certificate: dict, start) -> dict:
    from certify.numeric.model import loss
    from certify.numeric.slide import simulate_slide

    run = simulate_slide(*start, samples_per_segment=SLIDE_SEGMENT_SAMPLES, final_samples=SLIDE_FINAL_SAMPLES,
                         sampling="curve")
    if not run.fully_captured:
        raise RuntimeError(f"the sliding trajectory was not fully captured by x = {run.x_end!r}")
    sm = run.samples
    keep = np.isfinite(sm.log10_t)  # the start row has t = 0 (log10 t = -inf); it is recorded as u0, v0, w0
    out = {
        "x": sm.x[keep],
        "log10_t": sm.log10_t[keep],
        "d_over_x": sm.d_over_x[keep],
        "n_captured": sm.n_captured[keep].astype(np.int64),
        "min_gamma": sm.min_gamma[keep],
        "max_kink_coefficient": np.exp(sm.max_log_kink[keep]),  # 0 while nothing is captured
        "max_off_cross_gate": sm.max_off_cross_gate[keep],
        "max_abs_captured_gate": sm.max_abs_captured_gate[keep],
        "wrong_class_spread": sm.wrong_class_spread[keep],
        "event_x": np.array([e.x for e in run.events], dtype=np.float64),
        "event_log10_t": np.array([e.log10_t for e in run.events], dtype=np.float64),
        "event_rows": np.array([len(e.rows) for e in run.events], dtype=np.int64),
        "event_columns": np.array([len(e.columns) for e in run.events], dtype=np.int64),
    }
    out.update(_path_quantities(sm.u[keep], sm.v[keep], sm.w[keep]))
    _ends(out, start, (run.u, run.v, run.w))
    out["loss_end"] = float(loss(run.u, run.v, run.w))
    out["x0"] = float(start[0][0] + start[1][0])
    out["x_full_capture"] = float(run.x_full_capture)
    out["log10_t_full_capture"] = float(run.events[-1].log10_t)
    _bounds(certificate, out, "kappa", "lo", "hi")
    _bounds(certificate, out, "capture_time", "log10_lo", "log10_hi", key="capture_time")
    _bounds(certificate, out, "limit_fourier_fraction", "exact")
    _bounds(certificate, out, "limit_loss", "lo", "hi")
    _bounds(certificate, out, "admissibility", "hi")
    return out


def _smooth(certificate: dict, start) -> dict:
    """One ``simulate_smooth`` run from the start to ``default_s_min``, its path at SMOOTH_SAMPLES equally
    spaced clock values (and the solver's steps); the limit estimate and its tail bound (A.69) are the
    run's."""
    from certify.numeric.smooth import active_loss, simulate_smooth

    eps = _number(certificate["parameters"]["eps_smooth"])
    u, v, w = (np.array(x, dtype=np.float64) for x in start)
    p = len(u)
    piece = simulate_smooth(u, v, w, eps, dense=True, samples=SMOOTH_SAMPLES)
    s_path = piece.s_path
    states = np.hstack([piece.u_path, piece.v_path, piece.w_path])
    U, V, W = _split(states, p)
    out = {
        "s": s_path,
        "displacement": np.abs(W - w).sum(axis=1),
        "g": W.mean(axis=1) - W[:, 0],
        "max_other_gate": _max_other_gate(U, V),
    }
    out.update(_path_quantities(U, V, W, lambda a, b, c: active_loss(a, b, c, eps)))
    _ends(out, start, (piece.u_limit, piece.v_limit, piece.w_limit))
    out["s_end"] = float(piece.s_end)
    out["displacement_limit"] = float(np.abs(piece.w_limit - w).sum())
    out["tail_bound"] = float(piece.tail_bound)
    _bounds(certificate, out, "terminal_displacement_box", "hi")
    _bounds(certificate, out, "purity_gap_box", "lo")
    _bounds(certificate, out, "dead_zone_integral", "lo", "hi")
    _bounds(certificate, out, "g_condition", "lo")
    _bounds(certificate, out, "terminal_fourier_fraction", "exact")
    _bounds(certificate, out, "single_active_gate", "lo")
    return out


def _gd(certificate: dict, start) -> dict:
    from certify.numeric.flow import simulate_gd_step
    from certify.numeric.model import active_loss as loss

    eta = _number(certificate["parameters"]["eta"])
    iterates = [tuple(np.array(x, dtype=np.float64) for x in start)]
    for _ in range(GD_STEPS):
        iterates.append(simulate_gd_step(*iterates[-1], eta))
    U, V, W = (np.vstack([it[k] for it in iterates]) for k in range(3))
    z = U[:, :, None] + V[:, None, :]
    cross = np.concatenate([z[:, 0, 1:], z[:, 1:, 0]], axis=1)
    n = np.arange(GD_STEPS + 1, dtype=np.int64)
    out = {
        "n": n,
        "t": eta * n,
        "theta": np.hstack([U, V, W]),
        "central_gate": z[:, 0, 0].copy(),
        "max_cross_gate": cross.max(axis=1),
        "max_off_cross_gate": z[:, 1:, 1:].reshape(len(n), -1).max(axis=1),
        "max_other_gate": _max_other_gate(U, V),
        "w_displacement": np.abs(W - W[0]).sum(axis=1),
    }
    out.update(_path_quantities(U, V, W, loss))
    _ends(out, start, iterates[1])
    _component_bounds(certificate, out, "one_step_death_box", "hi")
    _bounds(certificate, out, "w_step_box", "hi")
    _bounds(certificate, out, "purity_gap_box", "lo")
    _bounds(certificate, out, "terminal_fourier_fraction", "exact")
    _bounds(certificate, out, "single_active_gate", "lo")
    return out


#: theorem -> its simulator: the records' ``simulator`` (certify.theorems.registry), resolved when used.
_THEOREMS = RegistryView(lambda theorem: resolve(theorem.simulator), where=lambda theorem: bool(theorem.simulator))


#: The largest p simulated in floats (and plotted): the full flow is 3p coordinates and p^2 gates per
#: evaluation, about 0.1 s per evaluation at p = 1000 and arrays of p^2 doubles (p = 10^6 would need
#: terabytes); the certificates themselves have no such limit.
MAX_SIMULATED_P = 1000


def require_simulable(p: int) -> None:
    """InputError (one line) if p > MAX_SIMULATED_P: the float flows (trajectories and experiments) follow all 3p
    coordinates and p^2 gates."""
    if p > MAX_SIMULATED_P:
        from .errors import InputError

        raise InputError(f"p = {p} is too large to simulate: the float trajectory follows all 3p coordinates and "
                         f"p^2 gates, so p is at most {MAX_SIMULATED_P} (certificates have no such limit)")


def simulate_instance(certificate: dict, source: str = "base", seed: int = 0, progress=None) -> dict:
    """The trajectory record of the certificate's theorem from its base point or a random box point.

    ``source="base"``: the base point (nearest doubles); ``source="box"``: the first point
    of ``box_samples(certificate, numpy.random.default_rng(seed), 1)``.  ValueError for
    another source or an unknown theorem.  See the module docstring for the record.

    ``progress``: None, or a callable taking a float in [0, 1] (the fraction done), called
    with strictly increasing values and last with 1.0 when the record is complete.  For
    dead the fraction is that of the central gate consumed (``simulate_until_death``);
    the other theorems report only 1.0 at the end.  It does not change the record.
    """
    from certify.numeric.points import base_point_from_certificate, box_samples

    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}: expected one of {', '.join(SOURCES)}")
    theorem = certificate.get("theorem") if isinstance(certificate, dict) else None
    if theorem not in _THEOREMS:
        raise ValueError(f"unknown theorem {theorem!r}: expected one of {', '.join(_THEOREMS)}")
    require_simulable(int(certificate["p"]))
    seed = int(seed)
    if source == "base":
        start = base_point_from_certificate(certificate)
    else:
        start = next(box_samples(certificate, np.random.default_rng(seed), 1))
    start = tuple(np.array(x, dtype=np.float64) for x in start)
    record = {
        "record_format": RECORD_FORMAT,
        "theorem": theorem,
        "p": int(certificate["p"]),
        "source": source,
        "seed": seed,
        "clock": CLOCKS[theorem],
        "radius": _number(certificate["radius"]),
        "radius_text": certificate["radius"],
    }
    _parameters(certificate, record)
    simulator = _THEOREMS[theorem]
    reported = [0.0]

    def report(fraction: float) -> None:
        fraction = min(1.0, float(fraction))
        if progress is not None and fraction > reported[0]:
            reported[0] = fraction
            progress(fraction)

    if "progress" in inspect.signature(simulator).parameters:
        record.update(simulator(certificate, start, progress=report))
    else:
        record.update(simulator(certificate, start))
    report(1.0)
    return record


def simulate_certificate_file(path, source: str = "base", seed: int = 0, progress=None) -> dict:
    """The trajectory record of the certificate in the file at ``path``, after checking it.

    The file is read once (``certify.check.read_certificate_file``: regular files only,
    capped in size), those bytes are checked by ``certify.check.check_bytes`` (every claim
    recomputed by the kernel), and only a verified certificate is parsed -- from the very
    bytes just checked -- and simulated with ``simulate_instance(certificate, source,
    seed, progress)``: from its own base point, parameters and radius, not the defaults.
    Raises InputError with one line naming the file and the verdict for a certificate
    that is malformed, unreadable, rejected or could not be checked; nothing is simulated
    then.  ValueError as ``simulate_instance`` (bad source).
    """
    from .certificate import parse_certificate
    from .check import Verdict, check_bytes, read_certificate_file
    from .errors import InputError, MalformedCertificate

    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}: expected one of {', '.join(SOURCES)}")
    where = str(path)
    try:
        data = read_certificate_file(path)
    except MalformedCertificate as exc:
        data, verdict = None, Verdict(where, "malformed", str(exc))
    else:
        verdict = check_bytes(data, where)
    if verdict.status != "verified":
        text = "".join(ch if ch.isprintable() else " " for ch in verdict.line())
        raise InputError(f"will not simulate an unverified certificate: {text}"[:2000])
    return simulate_instance(parse_certificate(data), source=source, seed=seed, progress=progress)


# ----------------------------------------------------------------------------------------------
# A readable summary: the record's simulated quantities beside the certificate's bounds
# ----------------------------------------------------------------------------------------------

#: Significant digits of the summary's simulated numbers (more where a bound's interval is narrower).
SUMMARY_DIGITS = 4
#: An interval narrower than this (relative) is finer than a float trajectory resolves: the summary
#: reports the distance to it rather than "OUTSIDE" (integration and rounding errors are larger).
NARROW = 1e-8
#: Decimal digits of the exact rational lower bound on a square root (then shown by the display rule).
SQRT_DIGITS = 40


@dataclass(frozen=True)
class _Certified:
    """A certified number of a record: the nearest double (for the verdict) and an exact text (for display)."""

    number: float
    text: str


def _certified(r: dict, key: str) -> _Certified:
    """The record's bound ``key`` with its stored text (``key + "_text"``)."""
    text = r.get(f"{key}_text")
    if not isinstance(text, str):
        raise ValueError(f"the record has no certified text for {key} (written by an older certify?): simulate again")
    return _Certified(float(r[key]), text)


def _negated(bound: _Certified) -> _Certified:
    text = bound.text[1:] if bound.text.startswith("-") else bound.text if bound.text == "0" else "-" + bound.text
    return _Certified(-bound.number, text)


def _one_minus(bound: _Certified) -> _Certified:
    return _Certified(1 - bound.number, str(1 - Fraction(bound.text)))


def _sqrt_below(bound: _Certified) -> _Certified:
    """A bound b >= 0 as sqrt(b), its text an exact rational <= sqrt(b) (SQRT_DIGITS decimals, rounded down)."""
    value = Fraction(bound.text)
    scale = 10 ** SQRT_DIGITS
    root = math.isqrt(value.numerator * scale * scale // value.denominator) if value > 0 else 0
    return _Certified(math.sqrt(bound.number), str(Fraction(root, scale)))


_ZERO = _Certified(0.0, "0")


def _comparison(label, value, kind, bound, claim, near=None):
    """One comparison: kind "in" (bound = (lo, hi)), "le" / "ge" (bound = hi / lo), "exact" (bound = value),
    each bound a _Certified.

    near="near" marks an interval the simulated value only approximates (a base-point
    enclosure far narrower than the integration error, or a limit seen at a finite time):
    its distance is reported instead of "OUTSIDE"."""
    return label, float(value), "near" if near == "near" else kind, bound, claim


def _dead_comparisons(r: dict) -> list:
    base = r["source"] == "base"
    c = partial(_certified, r)
    out = [_comparison("T (death time)", r["t_death"], "in", (c("hitting_time_box_lo"), c("hitting_time_box_hi")),
                       "hitting_time_box")]
    if base:
        out.append(_comparison("T (death time)", r["t_death"], "in", (c("hitting_time_lo"), c("hitting_time_hi")),
                               "hitting_time", "near"))
    out.append(_comparison("-ds/dt at death", r["death_slope"], "ge", c("transversality_margin_box_lo"),
                           "transversality_margin_box"))
    if base:
        out.append(_comparison("-ds/dt at death", r["death_slope"], "in",
                               (c("transversality_margin_lo"), c("transversality_margin_hi")), "transversality_margin",
                               "near"))
    out.append(_comparison("max other gate along the path", float(np.max(r["max_other_gate"])), "le", _ZERO,
                           "hitting_time_box"))
    out.append(_comparison("||w(T) - w(0)||_1", r["w_displacement_end"], "le", c("terminal_w_displacement_box_hi"),
                           "terminal_w_displacement_box"))
    out += _spectrum_comparisons(r, "at death")
    out.append(_comparison("loss at death", r["loss"][-1], "in", (c("terminal_loss_lo"), c("terminal_loss_hi")),
                           "terminal_loss"))
    if base:
        out.append(_comparison("balance at death", r["balance"][-1], "exact", c("balance_invariant"),
                               "balance_invariant"))
    return _start_comparisons(r, r["s"][0], r["max_other_gate"][0]) + out


def _slide_comparisons(r: dict) -> list:
    c = partial(_certified, r)
    out = [_comparison("d/x at the last sample (-> kappa_p)", r["d_over_x"][-1], "in", (c("kappa_lo"), c("kappa_hi")),
                       "kappa", "near")]
    if r["source"] == "base":
        out.append(_comparison("log10 of the full-capture time", r["log10_t_full_capture"], "in",
                               (c("capture_time_log10_lo"), c("capture_time_log10_hi")), "capture_time", "near"))
    out.append(_comparison("largest kink coefficient along the path", float(np.max(r["max_kink_coefficient"])), "le",
                           c("admissibility_hi"), "admissibility"))
    out.append(_comparison("max_zeta F_zeta at the last sample (-> limit)", r["fourier_fractions_end"].max(), "exact",
                           c("limit_fourier_fraction"), "limit_fourier_fraction"))
    out.append(_comparison("loss at the last sample (-> limit)", r["loss_end"], "in",
                           (c("limit_loss_lo"), c("limit_loss_hi")), "limit_loss", "near"))
    return out


def _smooth_comparisons(r: dict) -> list:
    out = [_comparison("||w_inf - w(0)||_1 (limit estimate)", r["displacement_limit"], "le",
                       _certified(r, "terminal_displacement_box_hi"), "terminal_displacement_box"),
           _comparison("min of g along the path", float(np.min(r["g"])), "ge",
                       _sqrt_below(_certified(r, "g_condition_lo")), "g_condition"),
           _comparison("max other gate along the path", float(np.max(r["max_other_gate"])), "le", _ZERO,
                       "single_active_gate")]
    out += _spectrum_comparisons(r, "at the limit")
    return _start_comparisons(r, r["s"][0], r["max_other_gate"][0]) + out


def _gd_comparisons(r: dict) -> list:
    after = slice(1, None)
    hi = "one_step_death_box_{}_hi"
    c = partial(_certified, r)
    out = [_comparison("central gate after the step", np.max(r["central_gate"][after]), "le",
                       c(hi.format("central_gate")), "one_step_death_box"),
           _comparison("max cross gate after the step", np.max(r["max_cross_gate"][after]), "le",
                       c(hi.format("cross_gates")), "one_step_death_box"),
           _comparison("max off-cross gate after the step", np.max(r["max_off_cross_gate"][after]), "le",
                       c(hi.format("off_cross_gates")), "one_step_death_box"),
           _comparison("||w_1 - w_0||_1", r["w_displacement"][1], "le", c("w_step_box_hi"), "w_step_box"),
           _comparison("||w_n - w_0||_1 for n >= 1 (no later move)", np.max(r["w_displacement"][after]), "le",
                       c("w_step_box_hi"), "w_step_box")]
    out += _spectrum_comparisons(r, "after the step")
    return _start_comparisons(r, r["central_gate"][0], r["max_other_gate"][0]) + out


def _start_comparisons(r: dict, central: float, other: float) -> list:
    lo = _certified(r, "single_active_gate_lo")
    return [_comparison("central gate at the start", central, "ge", lo, "single_active_gate"),
            _comparison("max other gate at the start", other, "le", _negated(lo), "single_active_gate")]


def _spectrum_comparisons(r: dict, when: str) -> list:
    out = [_comparison(f"max_zeta F_zeta {when}", r["fourier_fractions_end"].max(), "le",
                       _one_minus(_certified(r, "purity_gap_box_lo")), "purity_gap_box")]
    if r["source"] == "base":
        F = r["fourier_fractions_end"]
        exact = _certified(r, "terminal_fourier_fraction")
        worst = float(F[np.argmax(np.abs(F - exact.number))])
        out.append(_comparison(f"F_zeta {when} (the farthest from the flat value)", worst, "exact", exact,
                               "terminal_fourier_fraction"))
    return out


_COMPARISONS = {"dead": _dead_comparisons, "slide": _slide_comparisons, "smooth": _smooth_comparisons,
                "gd": _gd_comparisons}


def _digits(value: float, *bounds: float) -> int:
    """SUMMARY_DIGITS, or enough significant digits (at most 17) to tell the numbers apart."""
    numbers = [value, *bounds]
    scale = max(abs(x) for x in numbers)
    gaps = [abs(a - b) for i, a in enumerate(numbers) for b in numbers[i + 1:] if a != b]
    if scale == 0 or not gaps:
        return SUMMARY_DIGITS
    return int(min(17, max(SUMMARY_DIGITS, math.ceil(math.log10(scale / min(gaps))) + 2)))


def _show(x: float, digits: int, rounding=None) -> str:
    """x to ``digits`` significant digits: to nearest, or with ROUND_FLOOR / ROUND_CEILING (outward bounds)."""
    from decimal import ROUND_HALF_EVEN, Decimal

    if x == 0:
        return "0"
    exact = Decimal(x)  # the double exactly
    exponent = exact.adjusted() - digits + 1
    shown = exact.quantize(Decimal(1).scaleb(exponent), rounding=rounding or ROUND_HALF_EVEN)
    if -5 <= shown.adjusted() < 16:
        text = format(shown, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return format(shown.normalize(), "e").replace("E", "e").replace("e+", "e")


def summary_lines(record: dict) -> list[str]:
    """One line per comparison of a trajectory record's simulated quantity with its certificate's bound.

    Each line reads like ``simulated T (death time) = 45.99 lies in the certified [17.1, 140]
    (hitting_time_box)``: the simulated value (to nearest; four significant digits, more when the
    numbers would look alike), the certified number as :func:`certify.render.numbers.display` shows
    it from the record's stored texts (``..._text``; the same digits as the command summaries and the
    LaTeX documents: certified digits ``45.9932965048...``, an interval rounded outward, a bound
    rounded outward, an exact value), and the claim it comes from.  The verdict words are computed on
    the record's floats: "lies in" / "lies OUTSIDE" for an interval (for an interval the float only
    approximates -- a base-point enclosure narrower than the integration error, a limit at a finite
    time -- "is d (relative d/|value|) from" instead of "OUTSIDE"; so is every interval of relative
    width below NARROW), "is at most" / "EXCEEDS" for an upper bound, "is at least" / "is BELOW"
    for a lower bound, and for an exact value the difference from it.  Base-point claims are
    compared only for ``source="base"`` records.  Floats only: a line outside its bound flags a
    simulation (or integration-error) problem, it refutes nothing.  ValueError for a record of an
    unknown theorem or without the stored texts.
    """
    from certify.render.numbers import display_parts

    def certified(stored: dict) -> str:
        (_, body), = display_parts(stored, "text")
        return body

    theorem = record.get("theorem") if isinstance(record, dict) else None
    if theorem not in _COMPARISONS:
        raise ValueError(f"unknown theorem {theorem!r} in the trajectory record")
    where = "the certified base point" if record["source"] == "base" else \
        f"a random point of the certified box (radius {certified({'exact': _certified(record, 'radius').text})}, " \
        f"seed {record['seed']})"
    lines = [f"{theorem}, p = {record['p']}, from {where}:"]
    for label, value, kind, bound, claim in _COMPARISONS[theorem](record):
        if kind in ("in", "near"):
            lo, hi = bound[0].number, bound[1].number
            n = _digits(value, lo, hi)
            interval = f"the certified {certified({'lo': bound[0].text, 'hi': bound[1].text})}"
            distance = lo - value if value < lo else value - hi
            if hi - lo <= NARROW * max(abs(lo), abs(hi)):
                kind = "near"  # an enclosure finer than a float simulation resolves
            if lo <= value <= hi:
                verdict = f"lies in {interval}"
            elif kind == "in":
                verdict = f"lies OUTSIDE {interval} (by {_show(distance, 3)})"
            else:
                verdict = f"is {_show(distance, 3)} (relative {_show(distance / abs(value), 2)}) from {interval}"
        elif kind in ("le", "ge"):
            n = _digits(value, bound.number)
            ok = value <= bound.number if kind == "le" else value >= bound.number
            words = ("is at most", "EXCEEDS") if kind == "le" else ("is at least", "is BELOW")
            shown = certified({"hi" if kind == "le" else "lo": bound.text})
            verdict = f"{words[0 if ok else 1]} the certified {'upper' if kind == 'le' else 'lower'} bound {shown}"
        else:
            n = _digits(value, bound.number)
            verdict = (f"differs by {_show(abs(value - bound.number), 3)} from the certified exact value "
                       f"{certified({'exact': bound.text})}")
        lines.append(f"  simulated {label} = {_show(value, n)} {verdict} ({claim})")
    return lines


# ----------------------------------------------------------------------------------------------
# Files
# ----------------------------------------------------------------------------------------------


def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(f"unsupported trajectory file suffix {Path(path).suffix!r}: use .json or .npz")
    return suffix


def _checked(record: dict) -> dict:
    """Validate the record: str keys; str / bool / int / finite float or finite numeric arrays."""
    out = {}
    for key, value in record.items():
        if not isinstance(key, str):
            raise ValueError(f"record keys must be strings, got {key!r}")
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        elif isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, (str, bool, int)):
            out[key] = value
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"record entry {key!r} is not finite ({value!r})")
            out[key] = value
        elif isinstance(value, np.ndarray):
            if value.dtype.kind not in "biuf":
                raise ValueError(f"record entry {key!r} has unsupported dtype {value.dtype}")
            if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
                raise ValueError(f"record entry {key!r} contains NaN or infinity")
            out[key] = value
        else:
            raise ValueError(f"record entry {key!r} has unsupported type {type(value).__name__}")
    return out


def save_trajectory(record: dict, path) -> Path:
    """Write a trajectory record as ``.json`` (arrays as lists) or ``.npz`` (numpy.savez_compressed).

    JSON: one ``"key": value`` per line, keys sorted.  NPZ: arrays as they are, scalars
    as 0-d arrays.  ValueError for another suffix, a non-finite number or an entry that
    is neither a string, number nor numeric array.  Returns the path.
    """
    path = Path(path)
    suffix = _suffix(path)
    record = _checked(record)
    if suffix == ".json":
        lines = []
        for key in sorted(record):
            value = record[key]
            value = value.tolist() if isinstance(value, np.ndarray) else value
            lines.append(f"{json.dumps(key)}: {json.dumps(value, allow_nan=False)}")
        path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    else:
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **{key: np.asarray(record[key]) for key in sorted(record)})
    return path


def load_trajectory(path) -> dict:
    """Read a record written by ``save_trajectory``: lists / arrays become numpy arrays, scalars Python scalars."""
    path = Path(path)
    suffix = _suffix(path)
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path}: not a trajectory record (expected a JSON object)")
        return {key: np.asarray(value) if isinstance(value, list) else value for key, value in data.items()}
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key].item() if data[key].ndim == 0 else data[key] for key in data.files}
