"""``certify law``: many samples, on Dask or in this process, resumable, with samples.csv and summary.json.

A run is the folder ``DIR``:

- ``DIR/run.json``     the parameters (p, sigma, seed, horizon, dynamics, eta) and the certify version that
                       started the run. A command whose parameters differ (compared as numbers: ``--sigma 1``
                       and ``--sigma 1.0`` are the same run) is refused; the spelling first given is kept.
- ``DIR/samples.csv``  one row per finished sample (:data:`SAMPLE_FIELDS`), appended and flushed as each
                       sample finishes, in order of completion. Resuming keeps every well-formed row and
                       computes only the missing indices; a truncated last line (a run killed mid-write) or
                       any unreadable row is dropped (the file is rewritten without it) and that index is
                       computed again. Rows with an index >= the run's ``--samples`` stay in the file and
                       are left out of the summary; the first row of an index counts.
- ``DIR/summary.json`` written when all of 0..N-1 are there, from samples.csv as read back (so a run in one
                       go, a resumed run and any split over workers give the same bytes): the keys of
                       :func:`summary_document`, ``json.dumps(indent=2)`` in that key order. It holds
                       counts only (no times, no floats of a sample), so it depends on the outcomes alone.

The float columns of a row are the bits of the process that computed it: multi-threaded BLAS rounds
differently in the last bits from single-threaded BLAS (which Dask's workers use), so ``certify law`` sets
the BLAS thread variables to 1 before numpy loads (:data:`certify.cli.law.SINGLE_THREADED`) and its rows
are then the same bits in-process and on a local cluster. A library caller with a multi-threaded numpy may
see last-bit differences in those columns; an outcome changes only if a value sits on a threshold.

Sample i is :func:`certify.law.sampling.draw_initial` (p, sigma, seed, i), its own random stream, so nothing
depends on which worker computed it or when. Work goes out in small tasks (flow: one index per task; gd:
up to :data:`GD_BATCH` indices per task, simulated together) and rows are written as tasks complete.

Where: ``scheduler`` an address (a running Dask scheduler, ``tcp://host:8786``: the workers need certify
installed), else ``jobs`` > 1 a ``distributed.LocalCluster`` of ``jobs`` single-threaded worker processes
(processes, not threads: python-flint's precision is process-wide), else (``jobs`` = 1) this process.

Nothing here is a bound: the outcomes are finite-horizon observations in floats. The one certified number,
:func:`certified_dead_region`, is the kernel's proved lower bound on P(theta(0) in R_dead | active).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from certify.errors import CertifyError, InputError

__all__ = ["GD_BATCH", "LawParameters", "LawRun", "SAMPLE_FIELDS", "WILSON_Z", "certified_dead_region",
           "compute_samples", "progress_bar", "read_samples", "run_law", "summary_document", "summary_text",
           "wilson_interval"]

#: The columns of samples.csv, in order.
SAMPLE_FIELDS = ("index", "rejected", "initially_active_gates", "in_dead_region", "outcome", "reason",
                 "death_time", "max_fourier", "loss", "pattern", "balance_drift", "loss_rises", "switches",
                 "seconds")

#: The standard normal quantile Phi^{-1}(0.975) of the two-sided 95% Wilson interval.
WILSON_Z = 1.959963984540054

#: Most indices in one gd task (simulated together, vectorised).
GD_BATCH = 256

#: Seconds to wait for a Dask scheduler before giving up (``--connect-timeout``).
CONNECT_TIMEOUT = 10.0

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
    horizon: str = "1e6"
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
    """repr of a float (the shortest text that reads back to the same float); '' for None."""
    return "" if x is None else repr(float(x))


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _row(index: int, draw, p: int, outcome, trajectory, seconds: float) -> dict:
    from certify.law.sampling import in_dead_region, initially_active_gates

    return {"index": str(index), "rejected": str(draw.rejected),
            "initially_active_gates": str(initially_active_gates(draw.theta, p)),
            "in_dead_region": "1" if in_dead_region(draw.theta, p) else "0",
            "outcome": outcome.outcome, "reason": _one_line(outcome.reason),
            "death_time": _float_text(trajectory.death_time) if trajectory is not None else "",
            "max_fourier": _float_text(outcome.max_fourier), "loss": _float_text(outcome.loss),
            "pattern": outcome.pattern,
            "balance_drift": _float_text(trajectory.balance_drift) if trajectory is not None else "",
            # gd: the steps that raised the loss (GD's behaviour at a fixed step); flow: 0 (a rise is a failure)
            "loss_rises": str(trajectory.extra.get("loss_rises", 0)) if trajectory is not None else "0",
            "switches": str(trajectory.switches) if trajectory is not None else "0",
            "seconds": f"{seconds:.4f}"}


def _failed(index: int, draw, p: int, exc: BaseException, seconds: float) -> dict:
    """The row of a sample whose simulation raised: undecided, with the exception as the reason."""
    from certify.law.classify import Outcome

    reason = f"the simulation raised {type(exc).__name__}: {exc}"
    return _row(index, draw, p, Outcome("undecided", reason, math.nan, math.nan, ""), None, seconds)


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
    a simulator exception makes that sample undecided with the exception as its reason."""
    from certify.law.classify import classify

    run = LawParameters(**parameters)
    rows = []
    for index, draw, trajectory, seconds in simulate_samples(parameters, indices):
        if isinstance(trajectory, Exception):
            rows.append(_failed(index, draw, run.p, trajectory, seconds))
            continue
        try:
            outcome = classify(trajectory)
        except Exception as exc:  # noqa: BLE001
            rows.append(_failed(index, draw, run.p, exc, seconds))
            continue
        rows.append(_row(index, draw, run.p, outcome, trajectory, seconds))
    return rows


# --- the folder --------------------------------------------------------------------------------------------

def _csv_line(row: dict) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([row[name] for name in SAMPLE_FIELDS])
    return buffer.getvalue()


_HEADER = _csv_line({name: name for name in SAMPLE_FIELDS})


def _valid_row(fields: list[str]) -> dict | None:
    """The row as a dict if it has every column and each reads as its type, else None."""
    from certify.law.classify import OUTCOMES

    if len(fields) != len(SAMPLE_FIELDS):
        return None
    row = dict(zip(SAMPLE_FIELDS, fields))
    try:
        for name in ("index", "rejected", "initially_active_gates", "switches"):
            if not re.fullmatch(r"[0-9]+", row[name]):
                return None
        for name in ("max_fourier", "loss", "seconds"):
            float(row[name])
        for name in ("death_time", "balance_drift"):
            if row[name]:
                float(row[name])
    except ValueError:
        return None
    if row["in_dead_region"] not in ("0", "1") or row["outcome"] not in OUTCOMES:
        return None
    if row["outcome"] != "undecided" and row["reason"]:
        return None
    return row


def read_samples(path) -> tuple[dict[int, dict], int]:
    """({index: row} of the well-formed rows of samples.csv, number of lines dropped). Missing file: ({}, 0).

    A last line without its newline (a run killed mid-write) is dropped; so is any line that is not a
    complete row (:func:`_valid_row`), and a repeated index after its first row. LawError if the header is
    not :data:`SAMPLE_FIELDS` (not a samples file of this version)."""
    path = Path(path)
    if not path.exists():
        return {}, 0
    text = path.read_bytes().decode("utf-8", errors="replace")
    if not text:
        return {}, 0
    lines = text.split("\n")
    complete, tail = lines[:-1], lines[-1]  # tail: '' when the file ends with a newline
    if not complete:  # not even the header is complete
        return {}, 1
    if complete[0] + "\n" != _HEADER:
        raise LawError(f"{path} does not have the columns of certify law ({', '.join(SAMPLE_FIELDS)})")
    rows, dropped = {}, int(tail != "")
    for line in complete[1:]:
        try:
            fields = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            fields = []
        row = _valid_row(fields)
        if row is None or int(row["index"]) in rows:
            dropped += 1
            continue
        rows[int(row["index"])] = row
    return rows, dropped


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _prepare(out: Path, run: LawParameters, warn) -> LawParameters:
    """Create or check DIR/run.json; return the run's parameters as first recorded (their spelling)."""
    if out.exists() and not out.is_dir():
        raise LawError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    record_path = out / "run.json"
    if not record_path.exists():
        if (out / "samples.csv").exists():
            raise LawError(f"{out} holds samples.csv but no run.json: not a run of certify law (or a damaged one)")
        _write_atomically(record_path, json.dumps(run.record(), indent=2) + "\n")
        return run
    try:
        stored = json.loads(record_path.read_text(encoding="utf-8"))
        recorded = LawParameters.from_record(stored)
    except (OSError, ValueError, CertifyError) as exc:
        raise LawError(f"{record_path} is not the record of a certify law run ({_one_line(exc, 120)})") from None
    if recorded.key() != run.key():
        raise LawError(f"{out} holds another run ({recorded.describe()}); this command asks for {run.describe()}: "
                       "give another --out, or the same parameters to resume it")
    from certify import __version__

    if stored.get("certify_version") != __version__:
        warn(f"note: {out} was started by certify {stored.get('certify_version')}; resuming it with {__version__}")
    return recorded


def _lock(out: Path):
    """An exclusive lock on DIR/.lock for the run (LawError if another run holds it); None where unsupported."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return None
    handle = open(out / ".lock", "a")
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


def _reason_kind(reason: str) -> str:
    """A reason with its numbers replaced by '#', so that reasons of one kind are counted together."""
    return re.sub(r"(?<![A-Za-z0-9.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![A-Za-z0-9])", "#", reason)


def summary_document(run: LawParameters, samples: int, rows: dict[int, dict], certified: dict) -> dict:
    """The summary of indices 0..samples-1 (all must be in ``rows``), keys in this order: p, samples,
    sigma, dynamics, horizon, seed, eta (gd only), rejected_inactive, outcomes (each of classify.OUTCOMES:
    count, fraction, Wilson 95% ci_low and ci_high), certified, undecided_reasons (numbers as '#', most
    frequent first), in_dead_region, dead_given_in_dead_region. Depends on nothing but its arguments
    (no times, no order of completion)."""
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
    outcomes = {}
    for name in OUTCOMES:
        low, high = wilson_interval(counts[name], samples)
        outcomes[name] = {"count": counts[name], "fraction": counts[name] / samples, "ci_low": low, "ci_high": high}
    document["outcomes"] = outcomes
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
    certified = summary["certified"]
    dead = summary["outcomes"]["dead"]
    lines.append(f"certified: P(dead region | active) >= {certified['dead_region_lower_bound']} "
                 f"(log10 >= {certified['dead_region_log10_lower_bound']}), for every sigma; measured dead "
                 f"{100 * dead['fraction']:.2f}% [{100 * dead['ci_low']:.2f}%, {100 * dead['ci_high']:.2f}%]")
    lines.append(f"in the dead region at t = 0: {summary['in_dead_region']} samples, "
                 f"{summary['dead_given_in_dead_region']} of them dead at the horizon")
    for reason, count in summary["undecided_reasons"].items():
        lines.append(f"undecided ({count}): {reason}")
    return "\n".join(lines)


# --- running -----------------------------------------------------------------------------------------------

@dataclass
class LawRun:
    """What :func:`run_law` did: the summary, how many samples it computed now and kept from before,
    lines dropped from samples.csv, and the wall time."""

    summary: dict
    computed: int
    kept: int
    dropped: int
    seconds: float


def _batches(missing: list[int], dynamics: str, workers: int) -> list[list[int]]:
    """Tasks: flow one index each; gd GD_BATCH indices each in one process, else about four tasks per
    worker (at most GD_BATCH each), so that every worker has work to the end."""
    if dynamics == "flow":
        return [[i] for i in missing]
    size = GD_BATCH if workers <= 1 else max(1, min(GD_BATCH, -(-len(missing) // (4 * workers))))
    return [missing[k:k + size] for k in range(0, len(missing), size)]


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
    """(client, cluster or None): a Client of the scheduler at ``scheduler`` or of a new LocalCluster."""
    import logging

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise LawError("running on Dask needs dask[distributed]: pip install 'certify[law]' "
                       "(from a checkout: pip install '.[law]'), or give --jobs 1") from None
    if scheduler is not None:
        try:
            return Client(scheduler, timeout=f"{timeout}s", set_as_default=False), None
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise LawError(f"cannot reach the Dask scheduler {scheduler}: {_one_line(exc, 200)}") from None
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    try:
        return Client(cluster, set_as_default=False), cluster
    except BaseException:
        cluster.close()
        raise


def run_law(run: LawParameters, samples: int, out, *, jobs: int = 1, scheduler: str | None = None,
            connect_timeout: float = CONNECT_TIMEOUT, progress=None, warn=None) -> LawRun:
    """Compute the missing samples 0..samples-1 of ``run`` into ``out`` and write summary.json.

    ``progress(done, total, seconds)`` is called after each finished task (done counts the kept rows too);
    ``warn(line)`` gets notes (dropped rows, a version change). LawError for bad input, another run in
    ``out``, or an unreachable scheduler. Rows are on disk as soon as their task finishes, so an interrupted
    run resumes where it stopped."""
    warn = warn or (lambda line: print(line, file=sys.stderr))
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise LawError(f"the number of samples must be a whole number >= 1, got {samples!r}")
    out = Path(out)
    start = time.perf_counter()
    run = _prepare(out, run, warn)
    lock = _lock(out)
    try:
        csv_path = out / "samples.csv"
        rows, dropped = read_samples(csv_path)
        if dropped:
            warn(f"note: dropped {dropped} unreadable line(s) of {csv_path} (a run killed mid-write?); "
                 "those samples are computed again")
            _write_atomically(csv_path, _HEADER + "".join(_csv_line(rows[i]) for i in sorted(rows)))
        elif not csv_path.exists() or csv_path.stat().st_size == 0:
            _write_atomically(csv_path, _HEADER)
        missing = [i for i in range(samples) if i not in rows]
        kept = samples - len(missing)
        certified = certified_dead_region(run.p)  # before the work: a failure here costs nothing
        parameters = {"p": run.p, "sigma": run.sigma, "seed": run.seed, "horizon": run.horizon,
                      "dynamics": run.dynamics, "eta": run.eta}
        done, failures = kept, []
        if progress:
            progress(done, samples, 0.0)
        if missing:
            client = cluster = None
            if scheduler is not None or jobs > 1:
                client, cluster = _connect(scheduler, jobs, connect_timeout)
            try:
                workers = jobs if client is None or scheduler is None else max(1, len(client.scheduler_info()
                                                                                       .get("workers", {})))
                batches = _batches(missing, run.dynamics, workers)
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
        rows, _ = read_samples(csv_path)
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
    return LawRun(summary, len(missing), kept, dropped, time.perf_counter() - start)


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
