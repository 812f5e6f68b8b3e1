"""``certify law``: many samples, on Dask or in this process, resumable, with samples.csv and summary.json.

A run is the folder ``DIR``:

- ``DIR/run.json``     the parameters (p, sigma, seed, horizon, dynamics, eta) and the certify version that
                       started the run. A command whose parameters differ (compared as numbers: ``--sigma 1``
                       and ``--sigma 1.0`` are the same run) is refused; the spelling first given is kept.
- ``DIR/samples.csv``  one row per finished sample (:data:`SAMPLE_FIELDS`), appended and flushed as each
                       sample finishes, in order of completion. Resuming trusts nothing in it: every line must
                       be a row :func:`check_row` accepts for this run (the columns in the runner's spelling,
                       no nan or inf, the draw columns and ``sample_digest`` recomputed from the run's
                       parameters, an outcome the classifier can produce with those fields), and an index may
                       have one row only. A line that is not is named on stderr (its line number and sample),
                       removed (the file is rewritten without it) and its sample computed again; so a
                       truncated last line (a run killed mid-write) is. The summary counts accepted rows only.
                       Rows with an index >= the run's ``--samples`` stay in the file and are left out of it.
- ``DIR/summary.json`` written when all of 0..N-1 are there, from samples.csv as read back (so a run in one
                       go, a resumed run and any split over workers give the same bytes): the keys of
                       :func:`summary_document`, ``json.dumps(indent=2)`` in that key order. It holds
                       counts only (no times, no floats of a sample), so it depends on the outcomes alone.

run.json, samples.csv and .lock are opened only if they are regular files (a FIFO, a device, a folder or a
symlink to one is refused before any open, :func:`certify.check.read_regular_file`), and the two read back
are capped (:data:`RUN_RECORD_BYTES`, :func:`samples_file_limit`): a damaged folder is one line, exit 2.

The float columns of a row are the bits of the process that computed it: multi-threaded BLAS rounds
differently in the last bits from single-threaded BLAS (which Dask's workers use), so ``certify law`` sets
the BLAS thread variables to 1 before numpy loads (:data:`certify.cluster.SINGLE_THREADED`) and its rows
are then the same bits in-process and on a local cluster. A library caller with a multi-threaded numpy may
see last-bit differences in those columns; an outcome changes only if a value sits on a threshold.

Sample i is :func:`certify.law.sampling.draw_initial` (p, sigma, seed, i), its own random stream, so nothing
depends on which worker computed it or when. Work goes out in tasks (flow: one index per task; gd: batched
by worker, one big batch of contiguous indices per worker, or a few of at most :data:`GD_BATCH`, simulated
together: :func:`_batches`) and rows are written as tasks complete. A run estimated (:func:`estimate_run`, from
the measured costs in costs.json beside this module) to take over a minute gets a note with the estimate first.

Where: ``scheduler`` an address (a running Dask scheduler, ``tcp://host:8786``: the workers need certify
installed), else ``jobs`` > 1 a ``distributed.LocalCluster`` of ``jobs`` single-threaded worker processes
(processes, not threads: python-flint's precision is process-wide), else (``jobs`` = 1) this process. A
scheduler address is checked as text first (:func:`scheduler_address`), then the server must complete Dask's
handshake and name itself a Scheduler within the connect timeout (:func:`probe_scheduler`) before a Client is
made: a server that is not Dask is one line at once, one that never answers one line after the timeout.

Nothing here is a bound: the outcomes are finite-horizon observations in floats. The certified numbers are the
kernel's proved lower bounds on P(theta(0) in R_dead | active) (:func:`certified_dead_region`) and on
P(theta(0) in R_stair | active) (:func:`certified_staircase_region`, Theorem S's region).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
import stat
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from certify.errors import CertifyError, InputError
# the Dask connection is certify sweep's too (certify.cluster); its names stay importable from here
from certify.cluster import (CONNECT_TIMEOUT, SCHEDULER_SCHEMES, connect, probe_scheduler,  # noqa: F401
                             scheduler_address)

__all__ = ["Estimate", "GD_BATCH", "InvalidRow", "LawParameters", "LawRun", "MAX_SAMPLES", "SAMPLE_FIELDS",
           "WILSON_Z", "certified_dead_region", "certified_staircase_region", "check_row", "compute_samples", "estimate_run", "load_costs",
           "probe_scheduler", "progress_bar", "read_samples", "row_bytes", "run_law", "sample_digest",
           "samples_file_limit", "scheduler_address", "summary_document", "summary_text", "wilson_interval"]

#: The columns of samples.csv, in order (seconds last: the one column that differs between two computations).
SAMPLE_FIELDS = ("index", "rejected", "initially_active_gates", "in_dead_region", "outcome", "reason",
                 "death_time", "max_fourier", "loss", "pattern", "k", "rows", "columns", "delta", "labels",
                 "row_lengths", "high_rows", "high_columns", "max_fourier_limit", "balance_drift", "loss_rises",
                 "switches", "sample_digest", "seconds")

#: The columns that describe the strictly active set at the horizon (:func:`certify.law.classify.active_shape`),
#: a function of the pattern alone; written for memorises_one_entry, staircase and multi_gate_other, empty
#: otherwise (:func:`_shape_fields`).
SHAPE_FIELDS = ("k", "rows", "columns", "delta", "labels", "row_lengths")

#: The outcomes whose rows carry the shape columns, high_rows and high_columns.
SHAPED_OUTCOMES = ("memorises_one_entry", "staircase", "multi_gate_other")

#: Relative difference allowed between a row's max_fourier_limit and the formula recomputed by check_row
#: (:func:`certify.law.classify.limit_max_fourier`): about 10 operations of relative error <= 2^-53 each and
#: two sines (libm: < 1 ulp, but a worker's libm may differ from the checker's in the last bit) give
#: < 3e-15; 1e-12 is that with a margin of 300, still far below any difference a wrong n or k makes.
LIMIT_RTOL = 1e-12

#: The most samples a run may hold (``--samples``; every row's index is below it). The flow takes about 0.8 s a
#: sample at p = 5 (measured on the 2-core development machine, horizon 10^6), so 10^6 samples are about five
#: days on two cores or a few hours on a hundred Dask workers, and their Wilson intervals are +-0.1% at most.
MAX_SAMPLES = 10**6

#: Bytes of a samples.csv row besides its pattern and its lists, at most (see :func:`row_bytes`):
#: :func:`check_row` bounds every column, index 6 digits, rejected, initially_active_gates, loss_rises,
#: switches, k, delta, high_rows and high_columns 20 digits each, in_dead_region 1, outcome 22, reason
#: REASON_CHARACTERS + 3 ('...') + 2 (csv quotes; it holds no '"'), death_time, max_fourier, loss,
#: max_fourier_limit and balance_drift 24 each (the longest repr of a float), sample_digest 16, seconds 17,
#: 23 commas and the newline: 671 <= 700.
ROW_BYTES = 700

#: Longest reason written to samples.csv (printable ASCII; a longer one is cut and ends in '...').
REASON_CHARACTERS = 300

#: Most bytes of run.json: seven short keys take about 150; 64 KiB is generous.
RUN_RECORD_BYTES = 64 * 1024

#: Characters of sample_digest: 64 bits of SHA-256.
DIGEST_CHARACTERS = 16

#: Slack on "death time <= horizon" for float rounding: the flow's death time is expm1(tau) with
#: tau <= log1p(T), a few ulps (relative ~1e-15) from T at most; gd's is k eta with k <= ceil(T/eta), so below
#: T + eta, rounded once. 1e-12 relative is a thousand times those roundings.
DEATH_TIME_SLACK = 1e-12

#: Rejected lines of samples.csv named one by one on stderr; the rest are counted in one more line.
NAMED_REJECTIONS = 20

#: The standard normal quantile Phi^{-1}(0.975) of the two-sided 95% Wilson interval.
WILSON_Z = 1.959963984540054

#: Most indices in one gd task (simulated together, vectorised).
GD_BATCH = 256

#: Significant digits of the certified bound in summary.json (rounded down: still a proved lower bound).
CERTIFIED_DIGITS = 12

DYNAMICS = ("flow", "gd")


class LawError(InputError):
    """An expected failure of a run (bad parameters, a folder holding another run): one line, exit 2."""


# --- parameters ------------------------------------------------------------------------------------------

def _positive_number(name: str, text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise LawError(f"{name} must be a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise LawError(f"{name} must be a positive finite number, got {text!r}")
    return value


@dataclass(frozen=True)
class LawParameters:
    """What defines a run. ``sigma``, ``horizon`` and ``eta`` are kept as the text given (written so in
    run.json and summary.json) and compared as the floats they denote. ``eta`` is None for the flow."""

    p: int
    sigma: str = "1"
    seed: int = 1
    horizon: str = "1e8"
    dynamics: str = "flow"
    eta: str | None = None

    def __post_init__(self):
        from certify.kernel.primes import require_prime

        require_prime(self.p)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise LawError(f"the seed must be a non-negative integer, got {self.seed!r}")
        _positive_number("sigma", self.sigma)
        horizon = _positive_number("the horizon", self.horizon)
        if horizon < 10:
            raise LawError(f"the horizon must be >= 10 (the classifier compares the last decade), got {self.horizon}")
        if self.dynamics not in DYNAMICS:
            raise LawError(f"the dynamics must be flow or gd, got {self.dynamics!r}")
        if self.dynamics == "gd" and self.eta is None:
            raise LawError("--eta is required with --dynamics gd")
        if self.dynamics == "flow" and self.eta is not None:
            raise LawError("--eta applies to --dynamics gd only (the flow has no step size)")
        if self.eta is not None:
            _positive_number("eta", self.eta)

    @property
    def sigma_value(self) -> float:
        return float(self.sigma)

    @property
    def horizon_value(self) -> float:
        return float(self.horizon)

    @property
    def eta_value(self) -> float | None:
        return None if self.eta is None else float(self.eta)

    def key(self) -> tuple:
        """What two runs must share to be the same run (numbers as floats)."""
        return (self.p, self.sigma_value, self.seed, self.horizon_value, self.dynamics, self.eta_value)

    def describe(self) -> str:
        eta = f", eta = {self.eta}" if self.eta is not None else ""
        return (f"p = {self.p}, sigma = {self.sigma}, seed = {self.seed}, horizon = {self.horizon}, "
                f"dynamics = {self.dynamics}{eta}")

    def record(self) -> dict:
        from certify import __version__

        return {"p": self.p, "sigma": self.sigma, "seed": self.seed, "horizon": self.horizon,
                "dynamics": self.dynamics, "eta": self.eta, "certify_version": __version__}

    @classmethod
    def from_record(cls, record) -> "LawParameters":
        if not isinstance(record, dict):
            raise LawError("not a JSON object")
        try:
            values = {name: record[name] for name in ("p", "sigma", "seed", "horizon", "dynamics", "eta")}
        except KeyError as exc:
            raise LawError(f"no {exc.args[0]!r}") from None
        if not (isinstance(values["sigma"], str) and isinstance(values["horizon"], str)
                and (values["eta"] is None or isinstance(values["eta"], str))):
            raise LawError("sigma, horizon and eta must be strings")
        try:
            return cls(**values)
        except (CertifyError, ValueError, TypeError) as exc:  # require_prime raises InputError
            raise LawError(str(exc)) from None


# --- one batch of samples (runs on a worker) ---------------------------------------------------------------

def _float_text(x) -> str:
    """repr of a float (the shortest text that reads back to the same float); '' for None and for nan or inf
    (samples.csv never holds a non-finite number: an undefined or overflowed value is empty)."""
    if x is None:
        return ""
    x = float(x)
    return repr(x) if math.isfinite(x) else ""


def _seconds_text(seconds: float) -> str:
    """Wall seconds with four decimals, clamped into [0, 1e11] (a clock cannot give more; the row stays short)."""
    seconds = float(seconds)
    return f"{min(max(seconds, 0.0), 1e11):.4f}" if math.isfinite(seconds) else "0.0000"


def _one_line(text, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _reason_text(text) -> str:
    """A reason as samples.csv holds it: one line of printable ASCII without '"' (other characters become
    '?', '"' becomes "'", runs of white space one space), at most REASON_CHARACTERS characters and '...'.
    Idempotent, so a stored reason must equal its own _reason_text (one spelling)."""
    text = "".join(ch if " " <= ch <= "~" or ch.isspace() else "?" for ch in str(text)).replace('"', "'")
    text = " ".join(text.split())
    if len(text) > REASON_CHARACTERS and not (len(text) == REASON_CHARACTERS + 3 and text.endswith("...")):
        text = text[:REASON_CHARACTERS] + "..."
    return text


def _describe(exc: BaseException) -> str:
    """``TypeName: message`` of an exception (its str() may itself fail)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - e.g. an int too large to print
        message = "(unprintable)"
    return f"{type(exc).__name__}: {message}"


def sample_digest(run: "LawParameters", index: int, theta) -> str:
    """The first :data:`DIGEST_CHARACTERS` hex digits of SHA-256 of the run's parameters as numbers
    (:meth:`LawParameters.key`: p, sigma, seed, horizon, dynamics, eta, the values run.json is compared by),
    the sample index and the IEEE bits of theta(0): what ties a row to its run and its draw. A check against
    folders mixed up or edited, not a signature (anyone can compute it)."""
    import hashlib

    import numpy as np

    key = json.dumps([*run.key(), int(index)]).encode("ascii")
    bits = np.ascontiguousarray(theta, dtype="<f8").tobytes()
    return hashlib.sha256(key + b"\0" + bits).hexdigest()[:DIGEST_CHARACTERS]


def _numbers_text(values) -> str:
    """Whole numbers as samples.csv holds a list: decimal, separated by one space ('' for none)."""
    return " ".join(str(int(value)) for value in values)


def _shape_fields(outcome: str, shape) -> dict:
    """The :data:`SHAPE_FIELDS` of a row of ``outcome`` whose pattern has the Shape ``shape``, as text:

    - memorises_one_entry and staircase: k, rows r_0..r_{k-1}, columns c_0..c_{k-1}, row_lengths k .. 1, and
      delta (staircase only, when rows and columns are progressions with one common step; undefined for
      k = 1); labels m = 0 .. k-1 with a common step (or k = 1), else the distinct labels ascending;
    - multi_gate_other: rows and columns (active ones, most active gates first, ties by index), the distinct
      labels ascending, row_lengths if the set is a Young diagram (else empty); no k, no delta;
    - any other outcome (or no shape): every column empty.

    One function for the writer and for :func:`check_row`, which recomputes the shape from the pattern."""
    fields = dict.fromkeys(SHAPE_FIELDS, "")
    if shape is None or outcome not in SHAPED_OUTCOMES:
        return fields
    fields.update(rows=_numbers_text(shape.rows), columns=_numbers_text(shape.columns),
                  labels=_numbers_text(shape.labels))
    if outcome == "multi_gate_other":
        fields["row_lengths"] = _numbers_text(shape.row_lengths) if shape.young else ""
    else:
        fields.update(k=str(shape.k), row_lengths=_numbers_text(shape.row_lengths),
                      delta=str(shape.delta) if shape.delta is not None else "")
    return fields


def _row(index: int, draw, run: "LawParameters", outcome, trajectory, seconds: float) -> dict:
    from certify.law.sampling import in_dead_region, initially_active_gates

    p = run.p
    shaped = outcome.outcome in SHAPED_OUTCOMES
    return {"index": str(index), "rejected": str(draw.rejected),
            "initially_active_gates": str(initially_active_gates(draw.theta, p)),
            "in_dead_region": "1" if in_dead_region(draw.theta, p) else "0",
            "outcome": outcome.outcome, "reason": _reason_text(outcome.reason),
            "death_time": _float_text(trajectory.death_time) if trajectory is not None else "",
            "max_fourier": _float_text(outcome.max_fourier), "loss": _float_text(outcome.loss),
            "pattern": outcome.pattern,
            **_shape_fields(outcome.outcome, outcome.shape),
            "high_rows": str(outcome.high_rows) if shaped and outcome.high_rows is not None else "",
            "high_columns": str(outcome.high_columns) if shaped and outcome.high_columns is not None else "",
            "max_fourier_limit": _float_text(outcome.max_fourier_limit)
            if outcome.outcome == "staircase" and math.isfinite(outcome.max_fourier_limit) else "",
            "balance_drift": _float_text(trajectory.balance_drift) if trajectory is not None else "",
            # gd: the steps that raised the loss (GD's behaviour at a fixed step); flow: 0 (a rise is a failure)
            "loss_rises": str(trajectory.extra.get("loss_rises", 0)) if trajectory is not None else "0",
            "switches": str(trajectory.switches) if trajectory is not None else "0",
            "sample_digest": sample_digest(run, index, draw.theta),
            "seconds": _seconds_text(seconds)}


def _failed(index: int, draw, run: "LawParameters", reason: str, seconds: float) -> dict:
    """The row of a sample that has no classified trajectory: undecided with ``reason``, and nothing read at
    the horizon (the float columns and the pattern empty). check_row accepts it for every draw of ``run``."""
    from certify.law.classify import Outcome

    return _row(index, draw, run, Outcome("undecided", reason, math.nan, math.nan, ""), None, seconds)


def simulate_samples(parameters: dict, indices):
    """[(index, InitialDraw, Trajectory or the exception the simulator raised, seconds)] for ``indices``."""
    import numpy as np

    from certify.law.sampling import draw_initial

    run = LawParameters(**parameters)
    p, sigma, horizon = run.p, run.sigma_value, run.horizon_value
    draws = [draw_initial(p, sigma, run.seed, int(i)) for i in indices]
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # solver overflow chatter; validity is the classifier's
        if run.dynamics == "flow":
            from certify.law.flow import simulate_flow

            for index, draw in zip(indices, draws):
                start = time.perf_counter()
                try:
                    trajectory = simulate_flow(draw.theta, p, horizon)
                except Exception as exc:  # noqa: BLE001 - one sample's failure is that sample's outcome
                    trajectory = exc
                results.append((int(index), draw, trajectory, time.perf_counter() - start))
        else:
            from certify.law.gd import simulate_gd

            start = time.perf_counter()
            try:
                trajectories = simulate_gd(np.stack([draw.theta for draw in draws]), p, run.eta_value, horizon)
            except Exception as exc:  # noqa: BLE001
                trajectories = [exc] * len(draws)
            share = (time.perf_counter() - start) / max(1, len(draws))
            for index, draw, trajectory in zip(indices, draws, trajectories):
                seconds = trajectory.seconds if not isinstance(trajectory, Exception) and trajectory.seconds > 0 \
                    else share
                results.append((int(index), draw, trajectory, seconds))
    return results


def compute_samples(parameters: dict, indices) -> list[dict]:
    """The samples.csv rows (dicts of text, :data:`SAMPLE_FIELDS`) of ``indices`` of the run ``parameters``
    (keyword arguments of :class:`LawParameters`). Runs on a Dask worker or here; never raises for a sample:
    a simulator exception makes that sample undecided with the exception as its reason. Every row returned
    passes :func:`check_row`: one that would not (a classifier outcome its own fields contradict) is returned
    as undecided with the check's reason, so a resume never recomputes a sample for ever."""
    from certify.law.classify import classify

    run = LawParameters(**parameters)
    rows = []
    for index, draw, trajectory, seconds in simulate_samples(parameters, indices):
        if isinstance(trajectory, Exception):
            rows.append(_failed(index, draw, run, f"the simulation raised {_describe(trajectory)}", seconds))
            continue
        try:
            outcome = classify(trajectory)
        except Exception as exc:  # noqa: BLE001
            rows.append(_failed(index, draw, run, f"the classifier raised {_describe(exc)}", seconds))
            continue
        row = _row(index, draw, run, outcome, trajectory, seconds)
        try:
            check_row([row[name] for name in SAMPLE_FIELDS], run, draw)
        except InvalidRow as exc:
            row = _failed(index, draw, run, f"the {outcome.outcome} row failed its check: {exc}", seconds)
        rows.append(row)
    return rows


# --- the folder --------------------------------------------------------------------------------------------

def _csv_line(row: dict) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([row[name] for name in SAMPLE_FIELDS])
    return buffer.getvalue()


_HEADER = _csv_line({name: name for name in SAMPLE_FIELDS})


def row_bytes(p: int) -> int:
    """The most bytes of a samples.csv row at ``p``, its newline included: :data:`ROW_BYTES`, the pattern (p^2
    characters) and the four lists rows, columns, labels and row_lengths (each at most p numbers <= p, so at
    most p (digits(p) + 1) characters with their spaces, csv quotes included)."""
    return ROW_BYTES + p * p + 4 * p * (len(str(p)) + 1)


def samples_file_limit(p: int) -> int:
    """The most bytes samples.csv of a run at ``p`` may hold: the header and :data:`MAX_SAMPLES` rows of at most
    :func:`row_bytes` (p) bytes. A real run stays far below it (a p = 5 row is about 250 bytes); a bigger file
    is refused before it is parsed."""
    return len(_HEADER) + MAX_SAMPLES * row_bytes(p)


class InvalidRow(ValueError):
    """A samples.csv row that :func:`check_row` refuses; the message (one line) says why."""


_WHOLE = re.compile(r"0|[1-9][0-9]{0,19}")      # a whole number in its one spelling, at most 20 digits
_SECONDS = re.compile(r"(0|[1-9][0-9]{0,11})\.[0-9]{4}")
_PATTERN = re.compile(r"[-+0]*")


def _gates(count: int) -> str:
    return f"{count} active gate" + ("" if count == 1 else "s")


def _whole(row: dict, name: str) -> int:
    if not _WHOLE.fullmatch(row[name]):
        raise InvalidRow(f"{name} {row[name][:40]!r} is not a whole number (decimal, no sign or leading zero, "
                         "at most 20 digits)")
    return int(row[name])


def _number(row: dict, name: str) -> float | None:
    """The float of a float column, None if empty; InvalidRow unless it is the repr of a finite float."""
    text = row[name]
    if text == "":
        return None
    try:
        value = float(text) if len(text) <= 24 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or repr(value) != text:
        raise InvalidRow(f"{name} {text[:40]!r} is not a finite number as the runner writes it (repr of a float)")
    return value


def check_row(fields: list[str], run: "LawParameters", draw=None) -> dict:
    """The row {column: text} of ``fields`` (one samples.csv line split by the csv module) if it is a row the
    runner can write for ``run``; else InvalidRow, whose one-line message is the first reason found. ``draw``:
    the sample's InitialDraw if the caller has it (else it is recomputed, which takes ~30 us).

    Guarantee: an accepted row

    - has the columns of :data:`SAMPLE_FIELDS`, each in the one spelling the runner writes: whole numbers in
      decimal without sign or leading zero (at most 20 digits), the float columns (death_time, max_fourier,
      loss, max_fourier_limit, balance_drift) empty or the repr of a *finite* float (never nan or inf),
      seconds with four decimals, the reason its own :func:`_reason_text` (one line of printable ASCII), the
      lists (rows, columns, labels, row_lengths) whole numbers separated by one space;
    - is sample ``index`` of this run: 0 <= index < :data:`MAX_SAMPLES`; ``rejected``,
      ``initially_active_gates`` and ``in_dead_region`` are those of ``draw_initial(p, sigma, seed, index)``
      recomputed, and ``sample_digest`` is :func:`sample_digest` of the run's parameters, the index and that
      draw, so a row of another p, sigma, seed, horizon, dynamics or eta is refused;
    - has an outcome and fields that :func:`certify.law.classify.classify` and this runner produce together
      (read off classify.py: every check the classifier makes before an outcome, in its order):

      * the outcome is one of OUTCOMES; the reason is non-empty exactly when it is ``undecided``;
      * the pattern is empty (undecided only: no state was read at T) or p^2 characters of ``+0-``;
      * a decided outcome had finite states and losses and a balance drift within tolerance: loss and
        balance_drift are there, balance_drift <= BALANCE_TOLERANCE for the flow (gd states its own
        allowance per run, not recorded: >= 0 only);
      * ``dead``: a death time, no ``+`` in the pattern;
      * ``memorises_one_entry``, ``single_frequency``, ``staircase``, ``multi_gate_other``: no death time
        (with one the classifier says dead or undecided), and max_fourier there (the centred norm is not 0);
        memorises: exactly one ``+``, the ``0`` gates all in its row or column; single_frequency:
        max_fourier >= ALIGNED; staircase and multi_gate_other: at least two ``+`` and max_fourier < ALIGNED,
        the ``+`` set a staircase of size k >= 2 with one common step (staircase: k (k + 1)/2 gates, k labels)
        or not (multi_gate_other), by :func:`certify.law.classify.active_shape` of the pattern;
      * the shape columns (k, rows, columns, delta, labels, row_lengths) are :func:`_shape_fields` of the
        pattern's shape for memorises_one_entry, staircase and multi_gate_other, and empty for every other
        outcome; high_rows and high_columns are there for those three (1 <= n <= max(1, active rows (columns)
        - 1), as :func:`certify.law.classify.high_block` gives) and empty otherwise; max_fourier_limit is
        there exactly for a staircase with k < p, within LIMIT_RTOL of
        :func:`certify.law.classify.limit_max_fourier` (p, high_rows, k);
      * a death time is in (0, T] for the flow and (0, T + eta] for gd (relative slack DEATH_TIME_SLACK);
        max_fourier and balance_drift are >= 0;
      * the flow counts no loss rises (a rise makes it undecided, not counted), gd no mode switches.

    Columns the summary does not read (loss, seconds, switches, loss_rises of gd) are checked for their
    spelling and these rules only: they are what the simulator wrote, not recomputed; nor are max_fourier,
    high_rows and high_columns (they come from the state, which the row does not hold).
    """
    from certify.law.classify import ALIGNED, BALANCE_TOLERANCE, OUTCOMES, active_shape, limit_max_fourier
    from certify.law.sampling import draw_initial, in_dead_region, initially_active_gates

    if len(fields) != len(SAMPLE_FIELDS):
        raise InvalidRow(f"{len(fields)} columns, not {len(SAMPLE_FIELDS)}")
    row = dict(zip(SAMPLE_FIELDS, fields))
    p = run.p
    index = _whole(row, "index")
    if index >= MAX_SAMPLES:
        raise InvalidRow(f"index {index} is out of range (a run has at most {MAX_SAMPLES} samples)")
    for name in ("rejected", "initially_active_gates", "loss_rises", "switches"):
        _whole(row, name)
    if not _SECONDS.fullmatch(row["seconds"]):
        raise InvalidRow(f"seconds {row['seconds'][:40]!r} is not a time in seconds with four decimals")
    death, max_f, _loss = _number(row, "death_time"), _number(row, "max_fourier"), _number(row, "loss")
    drift, limit = _number(row, "balance_drift"), _number(row, "max_fourier_limit")
    for name in ("high_rows", "high_columns"):
        if row[name]:
            _whole(row, name)

    outcome, reason, pattern = row["outcome"], row["reason"], row["pattern"]
    if outcome not in OUTCOMES:
        raise InvalidRow(f"unknown outcome {outcome[:40]!r}")
    if reason != _reason_text(reason):
        raise InvalidRow("the reason is not one line of printable ASCII as the runner writes it")
    if (outcome == "undecided") != (reason != ""):
        raise InvalidRow("an undecided row without a reason" if outcome == "undecided" else
                         f"a {outcome} row with a reason (only undecided rows have one)")
    if pattern or outcome != "undecided":
        if len(pattern) != p * p or not _PATTERN.fullmatch(pattern):
            raise InvalidRow(f"the pattern is not p^2 = {p * p} characters of +, 0, -")
    active = [i for i, c in enumerate(pattern) if c == "+"]
    if max_f is not None and max_f < 0:
        raise InvalidRow(f"max_fourier {max_f!r} < 0")
    if drift is not None and drift < 0:
        raise InvalidRow(f"balance_drift {drift!r} < 0")
    if death is not None:
        top = run.horizon_value + (run.eta_value if run.dynamics == "gd" else 0.0)
        if not 0 < death <= top * (1 + DEATH_TIME_SLACK):
            raise InvalidRow(f"death_time {death!r} is not in (0, {top!r}]")
    if run.dynamics == "flow" and row["loss_rises"] != "0":
        raise InvalidRow("a flow row with loss rises (the flow's loss never rises: a rise makes it undecided)")
    if run.dynamics == "gd" and row["switches"] != "0":
        raise InvalidRow("a gd row with mode switches (gd has none)")

    if outcome != "undecided":
        if _loss is None or drift is None:
            raise InvalidRow(f"a {outcome} row without its loss or balance drift (they are finite when decided)")
        if run.dynamics == "flow" and drift > BALANCE_TOLERANCE:
            raise InvalidRow(f"a {outcome} row with balance drift {drift!r} > {BALANCE_TOLERANCE!r} (undecided)")
    if outcome == "dead":
        if death is None or active:
            raise InvalidRow(f"a dead row with {_gates(len(active))} at the horizon" if active else
                             "a dead row without a death time")
    elif outcome != "undecided":
        if death is not None:
            raise InvalidRow(f"a {outcome} row with a death time (with one the classifier says dead or undecided)")
        if max_f is None:
            raise InvalidRow(f"a {outcome} row without max_fourier")
    if outcome == "memorises_one_entry":
        if len(active) != 1:
            raise InvalidRow(f"a memorises_one_entry row with {_gates(len(active))}, not 1")
        a, b = divmod(active[0], p)
        off = [i for i, c in enumerate(pattern) if c == "0" and i // p != a and i % p != b]
        if off:
            raise InvalidRow(f"a memorises_one_entry row with a kink gate {divmod(off[0], p)} off the row and "
                             f"column of its gate {(a, b)}")
    elif outcome == "single_frequency" and not max_f >= ALIGNED:
        raise InvalidRow(f"a single_frequency row with max_fourier {max_f!r} < {ALIGNED}")
    elif outcome in ("staircase", "multi_gate_other"):
        if len(active) < 2:
            raise InvalidRow(f"a {outcome} row with {_gates(len(active))} (it needs two or more)")
        if not max_f < ALIGNED:
            raise InvalidRow(f"a {outcome} row with max_fourier {max_f!r} >= {ALIGNED}")
    shape = active_shape(pattern, p) if outcome in SHAPED_OUTCOMES else None
    if shape is not None and shape.is_staircase != (outcome == "staircase"):
        raise InvalidRow(f"a {outcome} row whose active gates are " + (
            f"a staircase of size {shape.k}" if shape.is_staircase else "not a staircase"))
    for name, value in _shape_fields(outcome, shape).items():
        if row[name] != value:
            raise InvalidRow(f"{name} {row[name][:40]!r} is not the pattern's {value[:40]!r}" if value else
                             f"{name} {row[name][:40]!r} on a {outcome} row (it has none)")
    for name, members in (("high_rows", shape.rows if shape else ()), ("high_columns", shape.columns if shape else ())):
        if shape is None and row[name]:
            raise InvalidRow(f"{name} on a {outcome} row (only {', '.join(SHAPED_OUTCOMES)} have one)")
        if shape is not None and not (row[name] and 1 <= int(row[name]) <= max(1, len(members) - 1)):
            raise InvalidRow(f"{name} {row[name][:40]!r} is not a block size 1 .. {max(1, len(members) - 1)} "
                             f"of the {len(members)} active {name.split('_')[1]}")
    if outcome == "staircase" and shape.delta is not None and shape.k < p:
        expected = limit_max_fourier(p, int(row["high_rows"]), shape.k)
        if limit is None or not abs(limit - expected) <= LIMIT_RTOL * expected:
            raise InvalidRow(f"max_fourier_limit {row['max_fourier_limit'][:40]!r} is not the formula's {expected!r} "
                             f"for (p, n, k) = ({p}, {row['high_rows']}, {shape.k})")
    elif limit is not None:
        raise InvalidRow("max_fourier_limit on a row that is not a staircase of size k < p with one common step")

    if draw is None:
        draw = draw_initial(p, run.sigma_value, run.seed, index)
    recomputed = {"rejected": str(draw.rejected), "initially_active_gates": str(initially_active_gates(draw.theta, p)),
                  "in_dead_region": "1" if in_dead_region(draw.theta, p) else "0"}
    for name, value in recomputed.items():
        if row[name] != value:
            raise InvalidRow(f"{name} {row[name]!r} is not the draw's {value!r}")
    if row["sample_digest"] != sample_digest(run, index, draw.theta):
        raise InvalidRow("sample_digest is not this run's (a row of another p, sigma, seed, horizon, dynamics "
                         "or eta, or an edited draw)")
    return row


def _read_limited(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path`` (:func:`certify.check.read_regular_file`, capped at ``limit``);
    LawError naming the file otherwise (a FIFO, a device, a folder, a symlink to one, too big, unreadable)."""
    from certify.check import read_regular_file
    from certify.errors import MalformedCertificate

    try:
        return read_regular_file(path, limit, what=what)
    except MalformedCertificate as exc:
        raise LawError(f"{path}: {exc}") from None
    except MemoryError:  # a limit the machine cannot hold at once
        raise LawError(f"{path}: not enough memory to read it (at most {limit} bytes)") from None


def read_samples(path, run: "LawParameters") -> tuple[dict[int, dict], list[str]]:
    """({index: row} of the rows of samples.csv that :func:`check_row` accepts for ``run``, [one line per
    rejected line, naming it]). A missing file: ({}, []).

    Read once, capped (:func:`samples_file_limit`) and non-blocking: a FIFO, device, folder, a symlink to one or
    a bigger file is a LawError (one line), and so is a header other than :data:`SAMPLE_FIELDS`. A line is
    rejected, with its line number (and its sample, where the index reads), if it does not end in a newline
    (a run killed mid-write), is longer than a row can be, is not one csv record or fails :func:`check_row`;
    and every line of an index that has more than one accepted line is rejected (which is right cannot be
    told; the sample is computed again)."""
    path = Path(path)
    if not os.path.lexists(path):
        return {}, []
    text = _read_limited(path, samples_file_limit(run.p), "samples.csv").decode("utf-8", errors="replace")
    if not text:
        return {}, []
    lines = text.split("\n")
    complete, tail = lines[:-1], lines[-1]  # tail: '' when the file ends with a newline
    if not complete:  # not even the header is complete
        return {}, ["line 1 rejected: an incomplete header (a run killed as it started)"]
    if complete[0] + "\n" != _HEADER:
        raise LawError(f"{path} does not have the columns of this certify law ({', '.join(SAMPLE_FIELDS)}): "
                       "a folder of an older version cannot be resumed; give a new --out")
    longest = row_bytes(run.p) - 1  # characters of a row without its newline
    # csv refuses fields over field_size_limit (128 KiB by default): a pattern is longer from p = 363 on
    csv.field_size_limit(max(csv.field_size_limit(), longest))
    accepted: dict[int, list[tuple[int, dict]]] = {}
    rejected = []
    numbered = [(number, line, True) for number, line in enumerate(complete[1:], start=2)]
    if tail:
        numbered.append((len(complete) + 1, tail, False))
    for number, line, ended in numbered:
        fields = []
        try:
            if len(line) > longest:
                raise InvalidRow(f"longer than a row can be ({longest} characters at p = {run.p})")
            if not ended:
                raise InvalidRow("no newline at its end (a run killed mid-write)")
            fields = next(csv.reader([line]), [])
            row = check_row(fields, run)
        except (InvalidRow, csv.Error) as exc:
            index = fields[0] if fields and _WHOLE.fullmatch(fields[0]) else None
            sample = f" (sample {index})" if index is not None else ""
            rejected.append((number, f"line {number}{sample} rejected: {_one_line(exc, 200)}"))
            continue
        accepted.setdefault(int(row["index"]), []).append((number, row))
    rows = {}
    for index, found in accepted.items():
        if len(found) == 1:
            rows[index] = found[0][1]
            continue
        numbers = [number for number, _ in found]
        for number in numbers:
            others = ", ".join(str(other) for other in numbers if other != number)
            rejected.append((number, f"line {number} (sample {index}) rejected: sample {index} is on line {others} "
                                     "too (which row is right cannot be told)"))
    return rows, [note for _, note in sorted(rejected)]


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by a new file holding ``text``: written to a fresh temporary file beside it (created
    exclusively, so never an existing FIFO or link), synced, renamed over it."""
    import tempfile

    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _prepare(out: Path, run: LawParameters, warn) -> LawParameters:
    """Create or check DIR/run.json; return the run's parameters as first recorded (their spelling).

    run.json is read as untrusted input: capped at :data:`RUN_RECORD_BYTES`, non-blocking, a regular file only,
    strict JSON (a LawError naming it, one line, for anything else)."""
    if out.exists() and not out.is_dir():
        raise LawError(f"{out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LawError(f"cannot make the folder {out}: {exc.strerror or exc}") from None
    record_path = out / "run.json"
    if not os.path.lexists(record_path):
        if os.path.lexists(out / "samples.csv"):
            raise LawError(f"{out} holds samples.csv but no run.json: not a run of certify law (or a damaged one)")
        _write_atomically(record_path, json.dumps(run.record(), indent=2) + "\n")
        return run
    data = _read_limited(record_path, RUN_RECORD_BYTES, "run.json")
    try:
        stored = json.loads(data.decode("utf-8"))
        recorded = LawParameters.from_record(stored)
    except (ValueError, RecursionError, CertifyError) as exc:  # UnicodeDecodeError is a ValueError
        raise LawError(f"{record_path} is not the record of a certify law run ({_one_line(exc, 120)})") from None
    if recorded.key() != run.key():
        raise LawError(f"{out} holds another run ({recorded.describe()}); this command asks for {run.describe()}: "
                       "give another --out, or the same parameters to resume it")
    from certify import __version__

    if stored.get("certify_version") != __version__:
        version = _one_line(stored.get("certify_version"), 40)
        warn(f"note: {out} was started by certify {version}; resuming it with {__version__}")
    return recorded


def _lock(out: Path):
    """An exclusive lock on DIR/.lock for the run (LawError if another run holds it, or if .lock is not a
    regular file: it is opened non-blocking, so a FIFO there never hangs the run); None where unsupported."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return None
    path = out / ".lock"
    refused = LawError(f"{path}: the run's lock is not a regular file")
    try:
        if os.path.lexists(path) and not stat.S_ISREG(os.stat(path).st_mode):  # refused before any open
            raise refused
        # non-blocking: a FIFO put there after the stat fails to open (ENXIO) instead of waiting for a reader
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0),
                             0o644)
    except OSError as exc:
        raise LawError(f"{path}: cannot open the run's lock ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise refused
    handle = open(descriptor, "a")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise LawError(f"another certify law run is using {out}") from None
    return handle


# --- statistics and the certified floor ------------------------------------------------------------------

def wilson_interval(count: int, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion with ``count`` successes in ``n`` trials:

        center = (k + z^2/2) / (n + z^2),
        half   = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4),
        [max(0, center - half), min(1, center + half)],

    exactly 0 at k = 0 and exactly 1 at k = n (where the formula gives them up to rounding). Floats: an
    approximate 95% confidence interval for z = WILSON_Z, not a bound."""
    if not (isinstance(count, int) and isinstance(n, int) and 0 <= count <= n and n >= 1):
        raise ValueError(f"need 0 <= count <= n, n >= 1; got {count}, {n}")
    z2 = z * z
    center = (count + z2 / 2) / (n + z2)
    half = z / (n + z2) * math.sqrt(count * (n - count) / n + z2 / 4)
    low = 0.0 if count == 0 else max(0.0, center - half)
    high = 1.0 if count == n else min(1.0, center + half)
    return low, high


def certified_dead_region(p: int, prec: int = 128) -> dict:
    """{"dead_region_lower_bound", "dead_region_log10_lower_bound"}: decimal texts of at most
    :data:`CERTIFIED_DIGITS` significant digits, each rounded down from the kernel's proved lower bound
    (:func:`certify.kernel.region.dead_region_log_probability_lower`, exponentiated in Arb; the log10 one
    from :func:`~certify.kernel.region.dead_region_log10_probability_lower`). So P(theta(0) in R_dead |
    initially active) >= the first and log10 of it >= the second, for every sigma > 0."""
    from certify.kernel.balls import lower_decimal, working_precision
    from certify.kernel.exact import format_decimal, round_decimal
    from certify.kernel.region import dead_region_log10_probability_lower, dead_region_log_probability_lower

    def down(x) -> str:
        rounded = round_decimal(lower_decimal(x), CERTIFIED_DIGITS, upward=False)
        return format_decimal(rounded.numerator, rounded.exp10)

    log_lower = dead_region_log_probability_lower(p, prec)
    log10_lower = dead_region_log10_probability_lower(p, prec)
    with working_precision(prec + 64):
        probability = log_lower.exp()  # exp is increasing: every point of this ball is <= P
    return {"dead_region_lower_bound": down(probability), "dead_region_log10_lower_bound": down(log10_lower)}


def certified_staircase_region(p: int, sigma: str = "1") -> dict:
    """{"staircase_region_log10_lower_bound": text, "memorise_region_log10_lower_bound": text,
    "twin_region_log10_lower_bound": text, "twin_plus_region_log10_lower_bound": text,
    "twin_above_region_log10_lower_bound": text}: log10 of the proved lower
    bounds on P(theta(0) in R | initially active) under N(0, sigma^2 I_3p) for the five staircase theorems: R_stair, Theorem S's region (the (1, 2) staircase,
    k = 2, regime I) relabelled, from ``certify staircase --p P --sigma SIGMA``; R_1, Theorem S1's (one active
    gate, k = 1) relabelled, from ``certify memorise --p P --sigma SIGMA``; and R_II, Proposition S2.2's (k = 2,
    regime II, the twin) relabelled, from ``certify twin --p P --sigma SIGMA``; and R_II^+, Proposition S3.2's
    (k = 2, regime II captured from D > 0) relabelled, from ``certify twin_plus --p P --sigma SIGMA``; and R_II^above,
    Proposition S3.4's (k = 2, regime II captured from above) relabelled, from ``certify twin_above --p P --sigma
    SIGMA``; each with its
    defaults (the larger of the kernel's region_probability and, for staircase and memorise,
    whole_region_probability claims, docs/staircase.md sections 9, 10.6, 10.7 and 11.16), rounded down to
    CERTIFIED_DIGITS; a key is left out when its defaults certify nothing at this p or
    sigma. k >= 3 has no persistence theorem: the issue's sum over k is these five terms (pairwise disjoint:
    D < 0 on R_II, D > 0 on the others, the unique trajectory from R_II^+ brings the gate (1, 1) onto its kink,
    which from R_stair it never reaches, and R_II^above alone has four active gates at t = 0, the others one or
    three; docs/outcome-law.md), and the summary shows
    each beside its measured share (k = 1 is the outcome memorises_one_entry)."""
    from certify.errors import CertifyError
    from certify.kernel.exact import compare, format_decimal, parse_exact, parse_rational, round_decimal
    from certify.theorems.memorise import certify_memorise
    from certify.theorems.staircase import certify_staircase
    from certify.theorems.twin import certify_twin
    from certify.theorems.twin_above import certify_twin_above
    from certify.theorems.twin_plus import certify_twin_plus

    try:
        scale = parse_rational(sigma, "sigma", canonical=False)
    except CertifyError:
        return {}
    out = {}
    for key, build in (("staircase_region_log10_lower_bound", certify_staircase),
                       ("memorise_region_log10_lower_bound", certify_memorise),
                       ("twin_region_log10_lower_bound", certify_twin),
                       ("twin_plus_region_log10_lower_bound", certify_twin_plus),
                       ("twin_above_region_log10_lower_bound", certify_twin_above)):
        try:
            claims = build(p, sigma=scale).certificate["claims"]
        except CertifyError:
            continue
        # the larger of the proved bounds: the whole-region claims (Propositions S1.8 and S.25) beat the boxes'
        # where their propositions were evaluated
        best = None
        for name in ("region_probability", "whole_region_probability"):
            if name in claims:
                value = parse_exact(claims[name]["log10_lo"])
                best = value if best is None or compare(value, best) > 0 else best
        rounded = round_decimal(best, CERTIFIED_DIGITS, upward=False)
        out[key] = format_decimal(rounded.numerator, rounded.exp10)
    return out


def _reason_kind(reason: str) -> str:
    """A reason with its numbers replaced by '#', so that reasons of one kind are counted together."""
    return re.sub(r"(?<![A-Za-z0-9.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![A-Za-z0-9])", "#", reason)


#: Decimals of the max F statistics in summary.json: the rows' max F are floats of the simulator, whose last
#: bits may differ between a multi-threaded and a single-threaded BLAS (module docstring); six decimals keep
#: the summary the same bytes however the work was split (a difference of 1e-15 moves a rounding at 6
#: decimals with probability ~1e-9) and say more than the finite horizon measures (max F still moves in the
#: 4th-5th digit between t = 10^6 and 10^10 at p = 5).
STATISTIC_DECIMALS = 6

#: Most row-length shapes of multi_gate_other listed in summary.json (most frequent first); the rest counted.
LISTED_SHAPES = 20


def _share(count: int, samples: int) -> dict:
    """{count, fraction, ci_low, ci_high}: a count among ``samples`` with its Wilson 95% interval."""
    low, high = wilson_interval(count, samples)
    return {"count": count, "fraction": count / samples, "ci_low": low, "ci_high": high}


def _statistics(values: list[float]) -> dict:
    """{mean, min, max} of ``values`` (summed in the order given), each rounded to STATISTIC_DECIMALS."""
    return {"mean": round(math.fsum(values) / len(values), STATISTIC_DECIMALS),
            "min": round(min(values), STATISTIC_DECIMALS), "max": round(max(values), STATISTIC_DECIMALS)}


def _staircase_summary(run: LawParameters, chosen: list[dict], samples: int) -> dict:
    """The staircases among ``chosen`` (memorises_one_entry is the staircase k = 1): the distribution of k
    over all samples (Wilson intervals) with max F by k, how many of each k have rows and columns in one
    common step, and (k = 2) how many are the degenerate twin (regime II: the gate (rows[1], columns[1]) on
    its kink, docs/staircase.md, section 6) with their max F beside regime II's formula (S.19); by (n, k),
    n = high_rows, for k >= 2 with a common step and not twins: the count, max F and the limit formula's
    value; and how many staircases have high_rows != high_columns."""
    from certify.law.classify import limit_max_fourier, regime_two_max_fourier

    by_k: dict[int, list[float]] = {}
    stepped: dict[int, int] = {}
    by_block: dict[tuple[int, int], list[float]] = {}
    twins: list[float] = []
    uneven = 0
    p = run.p
    for row in chosen:
        if row["outcome"] not in ("memorises_one_entry", "staircase"):
            continue
        k, n, max_f = int(row["k"]), int(row["high_rows"]), float(row["max_fourier"])
        by_k.setdefault(k, []).append(max_f)
        twin = False
        if k == 2:
            a, b = int(row["rows"].split()[1]), int(row["columns"].split()[1])  # the gate (rows[1], columns[1])
            twin = row["pattern"][a * p + b] == "0"
            if twin:
                twins.append(max_f)
        if k >= 2:
            uneven += row["high_rows"] != row["high_columns"]
            if row["delta"]:
                stepped[k] = stepped.get(k, 0) + 1
                if not twin:  # the limit formula is regime I's; the twin has its own (S.19)
                    by_block.setdefault((n, k), []).append(max_f)
    blocks = {}
    for (n, k), values in sorted(by_block.items(), key=lambda item: (item[0][1], item[0][0])):
        limit = round(limit_max_fourier(p, n, k), STATISTIC_DECIMALS) if k < p else None
        blocks[f"{n},{k}"] = {"count": len(values), "max_fourier": _statistics(values), "max_fourier_limit": limit}
    return {"k": {str(k): {**_share(len(values), samples), "with_common_step": stepped.get(k, 0) if k >= 2 else None,
                           "max_fourier": _statistics(values)}
                  for k, values in sorted(by_k.items())},
            "k2_degenerate_twin": len(twins), "k2_twin_max_fourier": _statistics(twins) if twins else None,
            "k2_twin_max_fourier_limit": round(regime_two_max_fourier(p), STATISTIC_DECIMALS) if twins else None,
            "n_k": blocks, "high_rows_not_high_columns": uneven}


def _other_summary(chosen: list[dict]) -> dict:
    """The multi_gate_other rows of ``chosen``: how many are Young diagrams (row_lengths recorded), how many
    are not Young (possible with gd's per-gate kink band only), and the most frequent row lengths."""
    others = [row for row in chosen if row["outcome"] == "multi_gate_other"]
    shapes: dict[str, int] = {}
    for row in others:
        lengths = row["row_lengths"]
        if lengths:
            shapes[lengths] = shapes.get(lengths, 0) + 1
    ranked = sorted(shapes.items(), key=lambda item: (-item[1], item[0]))
    return {"count": len(others), "young": sum(shapes.values()),
            "not_young": len(others) - sum(shapes.values()), "row_lengths": dict(ranked[:LISTED_SHAPES]),
            "row_lengths_not_listed": sum(count for _, count in ranked[LISTED_SHAPES:])}


def summary_document(run: LawParameters, samples: int, rows: dict[int, dict], certified: dict) -> dict:
    """The summary of indices 0..samples-1 (all must be in ``rows``), keys in this order: p, samples,
    sigma, dynamics, horizon, seed, eta (gd only), rejected_inactive, outcomes (each of classify.OUTCOMES:
    count, fraction, Wilson 95% ci_low and ci_high), staircases (:func:`_staircase_summary`),
    multi_gate_other (:func:`_other_summary`), certified, undecided_reasons (numbers as '#', most frequent
    first), in_dead_region, dead_given_in_dead_region. Depends on nothing but its arguments (no times, no order
    of completion); its floats are Wilson intervals and max F statistics rounded to STATISTIC_DECIMALS."""
    from certify.law.classify import OUTCOMES

    chosen = [rows[i] for i in range(samples)]
    counts = {name: 0 for name in OUTCOMES}
    reasons: dict[str, int] = {}
    for row in chosen:
        counts[row["outcome"]] += 1
        if row["outcome"] == "undecided":
            kind = _reason_kind(row["reason"])
            reasons[kind] = reasons.get(kind, 0) + 1
    document = {"p": run.p, "samples": samples, "sigma": run.sigma, "dynamics": run.dynamics,
                "horizon": run.horizon, "seed": run.seed}
    if run.dynamics == "gd":
        document["eta"] = run.eta
    document["rejected_inactive"] = sum(int(row["rejected"]) for row in chosen)
    document["outcomes"] = {name: _share(counts[name], samples) for name in OUTCOMES}
    document["staircases"] = _staircase_summary(run, chosen, samples)
    document["multi_gate_other"] = _other_summary(chosen)
    document["certified"] = dict(certified)
    document["undecided_reasons"] = dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
    in_region = [row for row in chosen if row["in_dead_region"] == "1"]
    document["in_dead_region"] = len(in_region)
    document["dead_given_in_dead_region"] = sum(row["outcome"] == "dead" for row in in_region)
    return document


def summary_text(summary: dict) -> str:
    """The table printed by ``certify law``: outcome, count, fraction, 95% interval, then the certified floor."""
    eta = f", eta {summary['eta']}" if "eta" in summary else ""
    lines = [f"p = {summary['p']}, {summary['samples']} samples, sigma {summary['sigma']}, seed {summary['seed']}, "
             f"{summary['dynamics']}{eta}, horizon {summary['horizon']} ({summary['rejected_inactive']} inactive "
             "draws rejected)",
             f"{'outcome':<24} {'count':>7} {'fraction':>9}  95% interval (Wilson)"]
    for name, entry in summary["outcomes"].items():
        lines.append(f"{name:<24} {entry['count']:>7} {100 * entry['fraction']:>8.2f}%  "
                     f"[{100 * entry['ci_low']:.2f}%, {100 * entry['ci_high']:.2f}%]")
    staircases = summary["staircases"]
    if staircases["k"]:
        lines.append("staircase size k (k = 1: memorises_one_entry), of all samples; max F at the horizon:")
        for k, entry in staircases["k"].items():
            stats = entry["max_fourier"]
            stepped = "" if entry["with_common_step"] is None else f"  ({entry['with_common_step']} with one common step)"
            lines.append(f"  k = {k:<3} {entry['count']:>7} {100 * entry['fraction']:>8.2f}%  "
                         f"[{100 * entry['ci_low']:.2f}%, {100 * entry['ci_high']:.2f}%]  "
                         f"max F mean {stats['mean']:.4f} [{stats['min']:.4f}, {stats['max']:.4f}]{stepped}")
        if staircases["k2_degenerate_twin"]:
            stats = staircases["k2_twin_max_fourier"]
            lines.append(f"  of k = 2: {staircases['k2_degenerate_twin']} degenerate twin(s) (regime II: gate "
                         f"(rows[1], columns[1]) on its kink, docs/staircase.md), max F mean {stats['mean']:.4f} "
                         f"[{stats['min']:.4f}, {stats['max']:.4f}], regime II's formula "
                         f"{staircases['k2_twin_max_fourier_limit']:.4f}; not in the (n, k) = (1,2) row below")
    if staircases["n_k"]:
        lines.append("staircases with one common step by (n high rows, k): max F at the horizon against the limit "
                     "formula:")
        for key, entry in staircases["n_k"].items():
            stats, limit = entry["max_fourier"], entry["max_fourier_limit"]
            formula = f"{limit:.4f}" if limit is not None else "undefined (k = p)"
            lines.append(f"  (n, k) = ({key}) {entry['count']:>6}  max F mean {stats['mean']:.4f} "
                         f"[{stats['min']:.4f}, {stats['max']:.4f}], formula {formula}")
        if staircases["high_rows_not_high_columns"]:
            lines.append(f"  {staircases['high_rows_not_high_columns']} staircase(s) with high_rows != high_columns")
    other = summary["multi_gate_other"]
    if other["count"]:
        listed = ", ".join(f"({lengths}) {count}" for lengths, count in list(other["row_lengths"].items())[:5])
        lines.append(f"multi_gate_other: {other['young']} Young diagrams, {other['not_young']} not; "
                     f"row lengths: {listed}")
    certified = summary["certified"]
    dead = summary["outcomes"]["dead"]
    lines.append(f"certified: P(dead region | active) >= {certified['dead_region_lower_bound']} "
                 f"(log10 >= {certified['dead_region_log10_lower_bound']}), for every sigma; measured dead "
                 f"{100 * dead['fraction']:.2f}% [{100 * dead['ci_low']:.2f}%, {100 * dead['ci_high']:.2f}%]")
    if "staircase_region_log10_lower_bound" in certified:  # summaries written before it have no such line
        k2 = summary["staircases"]["k"].get("2", {"count": 0, "fraction": 0.0})
        lines.append(f"certified: P(staircase region R_stair, k = 2 | active) >= "
                     f"10^{certified['staircase_region_log10_lower_bound']} (Theorem S, docs/staircase.md; k >= 3 has "
                     f"no proof), sigma {summary['sigma']}; measured k = 2 staircases {100 * k2['fraction']:.2f}%")
    if "memorise_region_log10_lower_bound" in certified:  # summaries written before it have no such line
        k1 = summary["outcomes"].get("memorises_one_entry", {"count": 0, "fraction": 0.0})
        lines.append(f"certified: P(one-gate region R_1, k = 1 | active) >= "
                     f"10^{certified['memorise_region_log10_lower_bound']} (Theorem S1, docs/staircase.md section 10), "
                     f"sigma {summary['sigma']}; measured memorises_one_entry {100 * k1['fraction']:.2f}%")
    twins = summary["staircases"].get("k2_degenerate_twin", 0)
    for key, region, source in (  # the regime-II floors; summaries written before one have no such line
            ("twin_region_log10_lower_bound", "R_II, k = 2 regime II", "Proposition S2.2, docs/staircase.md section 11.9"),
            ("twin_plus_region_log10_lower_bound", "R_II^+, k = 2 regime II captured with D >= 0",
             "Proposition S3.2, docs/staircase.md section 11.11"),
            ("twin_above_region_log10_lower_bound", "R_II^above, k = 2 regime II captured from above",
             "Proposition S3.4, docs/staircase.md section 11.13")):
        if key in certified:
            lines.append(f"certified: P(twin region {region} | active) >= 10^{certified[key]} ({source}), sigma "
                         f"{summary['sigma']}; measured twins {100 * twins / summary['samples']:.2f}% of the samples")
    lines.append(f"in the dead region at t = 0: {summary['in_dead_region']} samples, "
                 f"{summary['dead_given_in_dead_region']} of them dead at the horizon")
    for reason, count in summary["undecided_reasons"].items():
        lines.append(f"undecided ({count}): {reason}")
    return "\n".join(lines)


# --- running -----------------------------------------------------------------------------------------------

@dataclass
class LawRun:
    """What :func:`run_law` did: the summary, how many samples it computed now and kept from before,
    lines of samples.csv rejected (removed, their samples computed again), and the wall time."""

    summary: dict
    computed: int
    kept: int
    dropped: int
    seconds: float


def _batches(missing: list[int], dynamics: str, workers: int) -> list[list[int]]:
    """Tasks: flow one index each. gd: batched by worker, not by sample: the missing indices in their order
    cut into ``workers`` x ceil(M / (workers GD_BATCH)) contiguous chunks of equal size (within one), so each
    worker gets one big batch, or a few of at most GD_BATCH when M > workers GD_BATCH. GD is vectorised over
    a batch: a step costs a fixed overhead plus a little per sample, so small batches waste it (batches of 3
    per task made --jobs 2 about 7 times slower than --jobs 1). A sample's row does not depend on its batch
    (tests/test_law_gd.py, tests/test_law_runner.py). The price: rows are written when a whole task ends."""
    if dynamics == "flow":
        return [[i] for i in missing]
    if not missing:
        return []
    workers = max(1, workers)
    tasks = min(len(missing), workers * -(-len(missing) // (workers * GD_BATCH)))
    size, extra = divmod(len(missing), tasks)
    bounds = [0]
    for task in range(tasks):
        bounds.append(bounds[-1] + size + (task < extra))
    return [missing[lo:hi] for lo, hi in zip(bounds, bounds[1:])]


#: The measured cost of a sample by p and dynamics (a JSON table beside this module), written by
#: examples/law/measure_costs.py; :func:`estimate_run` reads it.
COSTS_PATH = Path(__file__).with_name("costs.json")

#: A run estimated to take longer than this many seconds gets a note with its estimate before it starts.
ESTIMATE_NOTE_SECONDS = 60.0


@dataclass(frozen=True)
class Estimate:
    """What :func:`estimate_run` expects a run to take: ``seconds`` of wall time, and ``basis`` (one line:
    where the figure comes from, and whether p is outside the measured primes)."""

    seconds: float
    basis: str


def _in_p(table: dict, p: int) -> tuple[float, str]:
    """(the value at p, how: "measured", "interpolated" or "extrapolated") of a table {prime: positive value}:
    the value measured at p, else linear in (log p, log value) between the two measured primes around p, or
    beyond them along the line through the two nearest (the one value if there is one)."""
    points = sorted((int(q), float(value)) for q, value in table.items())
    if p in dict(points):
        return dict(points)[p], "measured"
    if len(points) == 1:
        return points[0][1], "extrapolated"
    j = min(max(sum(q < p for q, _ in points), 1), len(points) - 1)
    (p0, c0), (p1, c1) = points[j - 1], points[j]
    slope = (math.log(c1) - math.log(c0)) / (math.log(p1) - math.log(p0))
    value = math.exp(math.log(c0) + slope * (math.log(p) - math.log(p0)))
    return value, "interpolated" if p0 < p < p1 else "extrapolated"


def positive_cost(x) -> bool:
    """Whether a number read from a JSON cost table (this module's and certify.sweep's) is a cost: an int or
    float, not a bool, finite and > 0. A whole number too large for a float (JSON allows 400 digits) is not."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x) and x > 0
    except OverflowError:
        return False


def load_costs(path=None) -> dict | None:
    """The cost table at ``path`` (default :data:`COSTS_PATH`) as examples/law/measure_costs.py writes it:
    {"machine": text, "flow": {"horizon": T, "seconds_per_sample": {p: s}}, "gd": {"seconds_per_step": {p:
    {"fixed": a, "per_sample": b}}}}, every p a whole number >= 2 and every number finite and > 0 (more keys
    are allowed). None if it is missing or not such a table: then no estimate is made, and nothing else
    changes. Read capped (64 KiB) and only if it is a regular file."""
    from certify.check import read_regular_file
    from certify.errors import MalformedCertificate

    try:
        table = json.loads(read_regular_file(Path(path or COSTS_PATH), 64 * 1024, what="costs.json").decode("utf-8"))
        flow, gd = table["flow"]["seconds_per_sample"], table["gd"]["seconds_per_step"]
        numbers = [table["flow"]["horizon"], *flow.values()]
        numbers += [entry[name] for entry in gd.values() for name in ("fixed", "per_sample")]
        primes = [int(q) for q in (*flow, *gd) if re.fullmatch(r"[1-9][0-9]{0,5}", q)]
    except (OSError, MalformedCertificate, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    if not (flow and gd and all(map(positive_cost, numbers)) and len(primes) == len(flow) + len(gd)
            and min(primes) >= 2 and isinstance(table.get("machine", ""), str)):
        return None
    return table


def estimate_run(run: LawParameters, batches: list[list[int]], workers: int, costs: dict | None = None) \
        -> Estimate | None:
    """The wall time to compute ``batches`` (the tasks of :func:`_batches`) on ``workers`` workers, from the
    measured costs (:func:`load_costs` unless ``costs`` is given; None without a table). A model, not a
    bound, of the machine the table was measured on:

    - flow: each sample costs c(p) seconds at the table's horizon, times log(1 + T) / log(1 + T_table) at
      another horizon T (the flow integrates in tau = log(1 + t); an assumption: a settled state costs about
      the same per unit of tau); the samples are shared evenly by the workers;
    - gd: a task of B samples costs S (a(p) + b(p) B) seconds for S = ceil(T / eta) steps (a fixed overhead per
      step and a cost per sample-step; samples that die leave the batch, so it is an upper estimate); the run
      takes the larger of the total over the workers and the longest task.

    c, a and b are interpolated in p between the measured primes (log-log) and extrapolated beyond them; the
    basis says so."""
    costs = costs if costs is not None else load_costs()
    if costs is None or not batches:
        return None
    workers = max(1, workers)
    samples = sum(len(batch) for batch in batches)
    if run.dynamics == "flow":
        flow = costs["flow"]
        per_sample, how = _in_p(flow["seconds_per_sample"], run.p)
        per_sample *= math.log1p(run.horizon_value) / math.log1p(float(flow["horizon"]))
        seconds = per_sample * -(-samples // workers)
        measured = f"flow, {per_sample:.3g} s a sample"
    else:
        table = costs["gd"]["seconds_per_step"]
        fixed, how = _in_p({q: c["fixed"] for q, c in table.items()}, run.p)
        each, _ = _in_p({q: c["per_sample"] for q, c in table.items()}, run.p)  # the same primes: the same how
        steps = math.ceil(run.horizon_value / run.eta_value)
        tasks = [steps * (fixed + each * len(batch)) for batch in batches]
        seconds = max(sum(tasks) / workers, max(tasks))
        measured = f"gd, {steps} steps in {len(batches)} batch(es)"
    where = {"measured": "measured there", "interpolated": "interpolated between the measured primes",
             "extrapolated": "extrapolated beyond the measured primes"}[how]
    return Estimate(seconds, f"{measured} at p = {run.p}, {where}; costs.json: "
                             f"{_one_line(costs.get('machine', 'machine not stated'), 80)}")


def _in_process(parameters: dict, batches):
    for batch in batches:
        yield compute_samples(parameters, batch)


def _on_dask(client, parameters: dict, batches, failures: list):
    """Rows of each task as it completes; a task that fails (a worker died) appends its one-line reason to
    ``failures`` and yields nothing (its samples stay missing, computed by the next run)."""
    from distributed import as_completed

    futures = [client.submit(compute_samples, parameters, batch, pure=False) for batch in batches]
    try:
        for future in as_completed(futures, loop=client.loop):
            try:
                rows = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: that task's samples stay missing
                failures.append(_one_line(f"{type(exc).__name__}: {exc}", 200))
                continue
            yield rows
    finally:
        client.cancel(futures)


def _connect(scheduler: str | None, jobs: int, timeout: float):
    """(client, cluster or None): certify.cluster.connect, saying --jobs 1 when Dask is missing."""
    return connect(scheduler, jobs, timeout, "give --jobs 1")


def _report_rejected(notes: list[str], path: Path, warn) -> None:
    """Each rejected line of samples.csv as a note on its own line (the first NAMED_REJECTIONS), then a count."""
    if not notes:
        return
    for note in notes[:NAMED_REJECTIONS]:
        warn(f"note: {path} {note}")
    more = f" ({len(notes) - NAMED_REJECTIONS} more not named)" if len(notes) > NAMED_REJECTIONS else ""
    warn(f"note: {path}: {len(notes)} rejected line(s) removed{more}; the samples this run needs are computed again")


def run_law(run: LawParameters, samples: int, out, *, jobs: int = 1, scheduler: str | None = None,
            connect_timeout: float = CONNECT_TIMEOUT, progress=None, warn=None) -> LawRun:
    """Compute the missing samples 0..samples-1 of ``run`` into ``out`` and write summary.json.

    ``progress(done, total, seconds)`` is called after each finished task (done counts the kept rows too);
    ``warn(line)`` gets notes (each rejected line of samples.csv, a version change). LawError for bad input,
    another run in ``out``, a damaged folder (a file of the run that is not a regular file, too big, a
    foreign header), a malformed scheduler address or a server that is not a reachable Dask scheduler. Rows
    are on disk as soon as their task finishes, so an interrupted run resumes where it stopped; a row that
    fails :func:`check_row` is removed from samples.csv and its sample computed again, and the summary is
    computed from accepted rows only."""
    warn = warn or (lambda line: print(line, file=sys.stderr))
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise LawError(f"the number of samples must be a whole number >= 1 and at most {MAX_SAMPLES}, "
                       f"got {_one_line(repr(samples), 40)}")
    if not (isinstance(connect_timeout, (int, float)) and math.isfinite(connect_timeout) and connect_timeout > 0):
        raise LawError(f"the connect timeout must be a positive number of seconds, got {connect_timeout!r}")
    address = scheduler_address(scheduler) if scheduler is not None else None
    out = Path(out)
    start = time.perf_counter()
    run = _prepare(out, run, warn)
    lock = _lock(out)
    try:
        csv_path = out / "samples.csv"
        rows, rejected = read_samples(csv_path, run)
        if rejected:
            _report_rejected(rejected, csv_path, warn)
            _write_atomically(csv_path, _HEADER + "".join(_csv_line(rows[i]) for i in sorted(rows)))
        elif not os.path.lexists(csv_path) or os.stat(csv_path).st_size == 0:
            _write_atomically(csv_path, _HEADER)
        missing = [i for i in range(samples) if i not in rows]
        kept = samples - len(missing)
        # before the work: a failure here costs nothing
        certified = {**certified_dead_region(run.p), **certified_staircase_region(run.p, run.sigma)}
        parameters = {"p": run.p, "sigma": run.sigma, "seed": run.seed, "horizon": run.horizon,
                      "dynamics": run.dynamics, "eta": run.eta}
        _spot_check(rows, [i for i in range(samples) if i in rows], parameters, csv_path)
        done, failures = kept, []
        if progress:
            progress(done, samples, 0.0)
        if missing:
            client = cluster = None
            if address is not None or jobs > 1:
                client, cluster = _connect(address, jobs, connect_timeout)
            try:
                workers = jobs if client is None or address is None else max(1, len(client.scheduler_info()
                                                                                     .get("workers", {})))
                batches = _batches(missing, run.dynamics, workers)
                estimate = estimate_run(run, batches, workers)
                if estimate is not None and estimate.seconds > ESTIMATE_NOTE_SECONDS:
                    warn(f"note: {len(missing)} samples to compute on {workers} worker(s): about "
                         f"{_duration(estimate.seconds)} ({estimate.basis})")
                results = _in_process(parameters, batches) if client is None else \
                    _on_dask(client, parameters, batches, failures)
                work_start = time.perf_counter()
                with open(csv_path, "a", encoding="utf-8", newline="\n") as handle:
                    for batch_rows in results:
                        for row in batch_rows:
                            handle.write(_csv_line(row))
                        handle.flush()
                        done += len(batch_rows)
                        if progress:
                            progress(done, samples, time.perf_counter() - work_start, done - kept)
            finally:
                if client is not None:
                    client.close()
                if cluster is not None:
                    cluster.close()
        rows, late = read_samples(csv_path, run)  # what the summary counts: the rows as they are on disk
        _report_rejected(late, csv_path, warn)
        absent = [i for i in range(samples) if i not in rows]
        if absent:
            cause = f" ({len(failures)} task(s) failed, first: {failures[0]})" if failures else ""
            raise LawError(f"{len(absent)} samples are missing from {csv_path} after the run{cause}; "
                           "run the same command again to compute them")
        summary = summary_document(run, samples, rows, certified)
        _write_atomically(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    finally:
        if lock is not None:
            lock.close()
    return LawRun(summary, len(missing), kept, len(rejected), time.perf_counter() - start)


#: Kept rows recomputed on every resume (chosen at random, so an edit cannot know which): a row whose fields
#: agree with one another but not with its sample (an edited outcome) is caught with probability about
#: SPOT_CHECKS / kept per resume; a row check_row refuses is always caught.
SPOT_CHECKS = 2


def _spot_check(rows: dict, kept: list[int], parameters: dict, path: Path) -> None:
    """Recompute :data:`SPOT_CHECKS` kept rows chosen at random and compare every field but ``seconds``
    (a sample's row is a deterministic function of the run and its index); LawError (refuse the folder)
    on a mismatch. check_row cannot see a row edited to another outcome its fields allow (the review's dead
    row with a death time and an empty pattern); recomputing one is the only test, and it costs two samples."""
    import random

    chosen = random.SystemRandom().sample(kept, min(SPOT_CHECKS, len(kept)))
    for row in compute_samples(parameters, chosen):
        stored = rows[int(row["index"])]
        differing = [name for name in SAMPLE_FIELDS if name != "seconds" and stored[name] != row[name]]
        if differing:
            raise LawError(f"{path}: the row of sample {row['index']} does not reproduce ({differing[0]} is "
                           f"{_one_line(stored[differing[0]], 40)!r}, the sample gives {_one_line(row[differing[0]], 40)!r}): "
                           "the folder was edited or made by other code; start the run again with a new --out")


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def progress_bar(stream=None):
    """A progress callback ``(done, total, seconds[, computed])`` drawing samples done/total, the rate and
    an estimate of the time left (from the samples computed in this run) on ``stream`` (stderr), and
    nothing when the stream is not a terminal (then None is returned). The style of certify sweep's bar."""
    stream = stream if stream is not None else sys.stderr
    if not stream.isatty():
        return None

    def draw(done: int, total: int, seconds: float, computed: int = 0) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = computed / seconds if seconds > 0 and computed else 0.0
        left = f", ~{_duration((total - done) / rate)} left" if rate > 0 and done < total else ""
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:.2f}/s{left})\033[K")
        if done == total:
            stream.write("\n")
        stream.flush()

    return draw
