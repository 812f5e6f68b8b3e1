"""Sweeps: certificates for every prime in a range, in parallel processes, resumable, with a summary.

Processes, not threads: python-flint's precision is one process-wide setting. Each worker
certifies a chunk of primes for one theorem and writes each certificate atomically as
``OUT/THEOREM/THEOREM-P.json``; a failure at one prime is recorded and the sweep goes on.

What a sweep gives the builder of each theorem (every parameter value, the radius rule, the
precision: :func:`run_spec`) is recorded in ``OUT/run.json`` before any certificate is made. A
sweep whose command asks for other values than the folder's record is refused (InputError,
one line): one folder, one set of parameters per theorem.

A resumed sweep trusts nothing on disk, the record included (read capped, regular files only,
validated strictly: :func:`read_run_record`). For every certificate already in the folder the
worker makes, now, the certificate this sweep makes at that prime (:func:`make_certificate`,
from a fresh numerical state, so the same bytes in every process) and the file counts only if
it states exactly that certificate (:func:`resume_chunk`). Any other file (rejected, malformed,
truncated, a FIFO, the certificate of another prime, a verified certificate made with another
epsilon, sigma, radius or precision) is reported with its reason (its verdict from the full
checker, or the parameter that differs) and the new certificate is written over it
(:attr:`SweepReport.redone`); if certifying fails, the failure is recorded in
``OUT/failures.json`` and a bad file is set aside as ``THEOREM-P.json.rejected``.

The summary (``OUT/summary.json``, ``OUT/summary.csv``, ``OUT/primes-THEOREM.csv``) is written
from the certificates that count, read again and used only if their bytes are the bytes that
were compared or written; nothing of an earlier summary is copied. A theorem the folder's record
names but this command does not sweep is carried over: its entry is recomputed the same way from
its files and its recorded parameters (a file that does not count is reported, never written).

:func:`check_files` is ``certify check`` for many files: one bad file (an exception, even a
worker process dying) is that file's verdict, never the others'.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import multiprocessing
import os
import re
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing.connection import wait
from pathlib import Path

from .cluster import CONNECT_TIMEOUT
from .theorems.registry import THEOREMS as _RECORDS

#: The theorem names, in the registry's order (certify.theorems.registry.THEOREMS, read when imported;
#: the functions below read the registry itself when they run).
THEOREMS = tuple(_RECORDS)
CHUNK = 48


@lru_cache(maxsize=8)
def _patterns(names: tuple[str, ...]):
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"({alternatives})-([0-9]+)\.json"), re.compile(rf"({alternatives})-([1-9][0-9]{{0,17}})")


def _name_pattern():
    """The library's file name of a certificate, THEOREM-P.json (gd too: its eta is not in the name), for
    every theorem of the registry. Matched with ``fullmatch``; P is compared as text with the certificate's
    p, so ``dead-013.json`` does not name p = 13 (certify never writes leading zeros)."""
    return _patterns(tuple(_RECORDS))[0]


#: The verdict status of a file whose check crashed (an exception, a worker process dying).
#: Its exit code is 2, like a malformed certificate's: a crash is never a rejection.
ERROR = "error"

#: The numbers a summary reports per theorem are its record's ``key_numbers``
#: (certify.theorems.registry.KeyNumber: claim, component or None, key, "min" or "max", label; each
#: claim is checked against the record's claim ids when the record is made). Each is an end as the
#: certificate states it: a "min" of lower ends is a lower bound at every prime of the sweep, a "max"
#: of upper ends an upper bound. Probabilities are reported by their log10 field (``log10_lo``),
#: never by ``lo``, which for large p is 10^-(10^k).


def primes_between(low: int, high: int) -> list[int]:
    """The primes p with max(low, 5) <= p <= high (sieve of Eratosthenes; high <= 10^8)."""
    if high > 10**8:
        raise ValueError("a sweep ends at 10^8 at most")
    if high < 5 or high < low:
        return []
    sieve = bytearray([1]) * (high + 1)
    sieve[0:2] = b"\x00\x00"
    for k in range(2, int(high**0.5) + 1):
        if sieve[k]:
            sieve[k * k::k] = bytearray(len(range(k * k, high + 1, k)))
    return [n for n in range(max(low, 5), high + 1) if sieve[n]]


def parse_prime_range(text: str) -> tuple[int, int]:
    """'A..B' -> (A, B); ValueError with a one-line reason otherwise."""
    match = re.fullmatch(r"(\d+)\.\.(\d+)", text.strip())
    if not match:
        raise ValueError(f"expected a range like 5..1000, got {text!r}")
    low, high = int(match.group(1)), int(match.group(2))
    if low > high:
        raise ValueError(f"empty range {text!r}")
    return low, high


def sweep_request(primes, theorems, eta=None) -> tuple[list[int], list[str], str | None]:
    """What ``certify sweep --primes A..B --theorems LIST --eta ETA`` and :func:`certify.api.sweep` ask for,
    checked: (the primes, the theorem names, eta's canonical text or None). ``primes`` is ``"A..B"`` or
    ``(A, B)`` (every prime p >= 5 with A <= p <= B); ``theorems`` a comma-separated string or a list of names;
    ``eta`` an exact rational (fmpq) or None. InputError (one line) for anything else: a malformed range,
    a range with no prime >= 5, an unknown theorem, an eta without gd."""
    from .errors import InputError
    from .kernel.exact import format_rational

    try:
        if isinstance(primes, str):
            low, high = parse_prime_range(primes)
        elif (isinstance(primes, (tuple, list)) and len(primes) == 2
              and all(isinstance(end, int) and not isinstance(end, bool) for end in primes)):
            low, high = primes
            if low > high:
                raise ValueError(f"empty range {low}..{high}")
        else:
            raise ValueError(f"expected a range like '5..1000' or (5, 1000), got {one_line(repr(primes), 60)}")
        chosen = primes_between(low, high)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    shown = primes if isinstance(primes, str) else f"{low}..{high}"
    if isinstance(theorems, str):
        names = [name.strip() for name in theorems.split(",") if name.strip()]
    elif isinstance(theorems, (list, tuple)) and all(isinstance(name, str) for name in theorems):
        names = [name.strip() for name in theorems if name.strip()]
    else:
        raise InputError(f"theorems: expected a comma-separated string or a list of names, got "
                         f"{one_line(repr(theorems), 60)}")
    unknown = [name for name in names if name not in _RECORDS]
    if unknown or not names:
        raise InputError(f"unknown theorem(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(_RECORDS)}")
    if not chosen:
        raise InputError(f"no primes p >= 5 in {shown}")
    if eta is not None and "gd" not in names:
        raise InputError("--eta is gd's step size: it goes with --theorems ...gd...")
    return chosen, names, None if eta is None else format_rational(eta)


def certificate_file(out, theorem: str, p: int) -> Path:
    """Where a sweep (and the proof library) keeps the certificate of ``theorem`` at ``p``."""
    return Path(out) / theorem / f"{theorem}-{p}.json"


def certificate_name(name: str) -> tuple[str, str] | None:
    """(theorem, p as written) that a file name of the pattern THEOREM-P.json promises; None for other names."""
    match = _name_pattern().fullmatch(name)
    return (match.group(1), match.group(2)) if match else None


# --- checking one file -----------------------------------------------------------------------------------

def one_line(text: str, limit: int = 300) -> str:
    """``text`` as one printable line of at most ``limit`` characters."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return text if len(text) <= limit else text[:limit] + "..."


def _describe(exc: BaseException) -> str:
    """``TypeName: message`` of an exception, one line (its str() may itself fail or be huge)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - e.g. an int too large to print
        message = ""
    return one_line(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)


def _mismatch(path, document: dict) -> str | None:
    """Why ``document`` is not what its file name promises, in one line; None if it is.

    The name THEOREM-P.json promises that theorem and p written the same way.
    """
    name = Path(path).name
    promised = certificate_name(name)
    held = f"{document['theorem']} at p = {document['p']}"
    if promised is not None and promised != (document["theorem"], str(document["p"])):
        return (f"the name {one_line(name)} promises {promised[0]} at p = {one_line(promised[1], 40)} "
                f"but the file holds {held}")
    return None


def _verdict(path, data: bytes):
    """The Verdict on the certificate bytes ``data`` read from ``path``: tied to its name, then checked."""
    from . import check as checker
    from .certificate import parse_certificate
    from .errors import MalformedCertificate

    source = str(path)
    if certificate_name(Path(path).name) is not None:
        try:
            document = parse_certificate(data)
        except MalformedCertificate as exc:
            return checker.Verdict(source, "malformed", str(exc))
        reason = _mismatch(path, document)
        if reason is not None:
            return checker.Verdict(source, "rejected", reason)
    return checker.check_bytes(data, source)


def _check_path(path):
    """(Verdict, sha256 of the bytes checked or None): the bytes read once, tied to the name, checked."""
    from . import check as checker
    from .errors import MalformedCertificate

    try:
        data = checker.read_certificate_file(path)
    except MalformedCertificate as exc:
        return checker.Verdict(str(path), "malformed", str(exc)), None
    return _verdict(path, data), hashlib.sha256(data).hexdigest()


def check_certificate(path):
    """The verdict on the file at ``path``: :func:`certify.check.check_file` plus the tie to its name.

    A file named THEOREM-P.json (the library's pattern) is rejected, with a one-line reason
    naming both, unless it holds that theorem at that p. Other names are checked without the
    tie. Raises only for what the checker itself raises; :func:`check_files` turns that into a
    verdict.
    """
    return _check_path(path)[0]


def _guarded_check(path):
    """((source, status, message), digest): :func:`_check_path`, with any exception as an ``error`` verdict.

    ``Exception`` includes MemoryError and RecursionError; KeyboardInterrupt and SystemExit pass.
    """
    try:
        verdict, digest = _check_path(path)
        return (verdict.source, verdict.status, verdict.message), digest
    except Exception as exc:  # noqa: BLE001 - one bad file is that file's verdict
        return (str(path), ERROR, f"the checker failed on this file: {_describe(exc)}"), None


def exit_code(verdict) -> int:
    """0 verified, 1 rejected, 2 malformed or ``error`` (a crash is never exit 1)."""
    from .check import EXIT_MALFORMED

    return EXIT_MALFORMED if verdict.status == ERROR else verdict.exit_code


# --- checking many files -----------------------------------------------------------------------------------

#: Names a sweep writes beside its certificates that are not certificates (:func:`write_summary`,
#: :func:`run_sweep`): a folder check skips them and says so.
SWEEP_RECORDS = {"summary.json": "a sweep's summary", "failures.json": "a sweep's failure record",
                 "run.json": "a sweep's run record"}


@dataclass(frozen=True)
class Skipped:
    """An entry a folder check does not check: ``path``, ``reason`` (why, a few words shared by entries
    skipped for the same reason) and ``kind`` (what it is when that is not a regular file: "a FIFO", ...)."""

    path: Path
    reason: str
    kind: str = ""


@dataclass(frozen=True)
class FolderListing:
    """What ``certify check`` checks and what it does not, for a list of files and folders.

    ``files``: every path given that is not a folder, and every entry below a folder whose name ends in
    ``.json`` (any case; any kind: a FIFO or a broken link is listed, and its check refuses it in one
    line), except a sweep's own records (:data:`SWEEP_RECORDS`). ``skipped``: every other entry below a
    folder, with why. ``unlisted``: (folder, why) for each folder that could not be read.
    """

    files: list
    skipped: list
    unlisted: list


def _kind(path: Path) -> str:
    """'' for a regular file (or a link to one); else what the entry is, in a few words."""
    import stat as stat_module

    from .check import _file_kind

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a broken link" if os.path.islink(path) else "unreadable"
    return "" if stat_module.S_ISREG(mode) else _file_kind(mode)


def list_certificates(paths) -> FolderListing:
    """Expand folders into the files a folder check checks (see :class:`FolderListing`); keep other
    paths as given.

    Folders are walked without following symbolic links to folders (no cycles; such a link is skipped
    and said); files come sorted by folder, then the names THEOREM-P.json by theorem and p, then the
    other names.
    """
    files, skipped, unlisted = [], [], []
    for path in map(Path, paths):
        if not path.is_dir():
            files.append(path)
            continue
        found = []
        for folder, subfolders, names in os.walk(path, onerror=lambda error: unlisted.append(
                (Path(error.filename), error.strerror or str(error)))):
            folder = Path(folder)
            for name in sorted(subfolders):
                if (folder / name).is_symlink():
                    skipped.append(Skipped(folder / name, "a link to a folder, not followed"))
            subfolders.sort()
            for name in sorted(names):
                entry = folder / name
                if not name.lower().endswith(".json"):
                    skipped.append(Skipped(entry, "not named *.json", _kind(entry)))
                elif name in SWEEP_RECORDS:
                    skipped.append(Skipped(entry, SWEEP_RECORDS[name]))
                else:
                    found.append(entry)
        files += sorted(found, key=_file_order)
    return FolderListing(files, skipped, unlisted)


def certificate_files(paths) -> list[Path]:
    """The files ``certify check`` checks for ``paths``: :attr:`FolderListing.files` of :func:`list_certificates`."""
    return list_certificates(paths).files


def skipped_line(skipped, shown: int = 3) -> str:
    """One line saying what a folder check skipped and why, grouped by reason, at most ``shown`` names a
    reason; '' if nothing was skipped."""
    if not skipped:
        return ""
    groups: dict[str, list[Skipped]] = {}
    for entry in skipped:
        groups.setdefault(entry.reason, []).append(entry)
    parts = []
    for reason, entries in groups.items():
        names = [f"{entry.path} ({entry.kind})" if entry.kind else str(entry.path) for entry in entries[:shown]]
        more = f" and {len(entries) - shown} more" if len(entries) > shown else ""
        parts.append(f"{reason} ({len(entries)}): {', '.join(names)}{more}")
    count = len(skipped)
    return one_line(f"skipped {count} {'entry' if count == 1 else 'entries'}: {'; '.join(parts)}", 2000)


def _file_order(path: Path):
    """Folder, then THEOREM-P.json by theorem and p (as numbers), then any other name."""
    named = certificate_name(path.name)
    if named is None:
        return str(path.parent), 1, "", 0, path.name
    theorem, digits = named
    return str(path.parent), 0, theorem, len(digits), digits


def _check_many(paths: list[str]) -> list[tuple[str, str, str]]:
    """Worker: the verdict rows of ``paths``; never raises for a file (see :func:`_guarded_check`)."""
    return [_guarded_check(path)[0] for path in paths]


def _chunk_size(count: int, jobs: int) -> int:
    """Files per task: about four tasks per process, at most CHUNK."""
    return max(1, min(CHUNK, -(-count // (4 * max(1, jobs)))))


def _serve(connection) -> None:
    """Worker loop: receive (function, args), send (True, result) or (False, 'TypeName: message')."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the workers
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        function, args = task
        try:
            outcome = (True, function(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the parent as that task's failure
            outcome = (False, f"raised {_describe(exc)}")
        connection.send(outcome)


class WorkerPool:
    """Worker processes that each run one task at a time; a worker dying fails exactly its task.

    ``concurrent.futures.ProcessPoolExecutor`` marks the whole pool broken when one worker
    dies (every pending task fails with it), and in CPython 3.11 can even hang then (seen
    here; cf. python/cpython#94777). Here the parent knows which task each worker holds: when
    a worker dies (its pipe closes), that task's outcome is (False, 'the worker process died
    ...'), the worker is replaced, and every other task goes on. Workers are forked where the
    platform can (they share the parent's loaded modules, and python-flint's process-wide
    precision is per worker). If no worker process can be started at all, tasks run here.

    Use: ``submit(key, function, *args)`` (also while iterating), then ``for key, ok, value in
    pool.results()``: ``value`` is the task's return value if ``ok``, else a one-line reason.
    """

    def __init__(self, processes: int):
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._size = max(1, processes)
        self._tasks = deque()
        self._idle, self._busy = [], {}  # idle [(process, connection)]; busy {connection: (process, key)}
        self._lost_sends = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def submit(self, key, function, *args) -> None:
        self._tasks.append((key, function, args))

    def _start(self):
        parent_end, child_end = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(child_end,), daemon=True)
        try:
            process.start()
        finally:
            child_end.close()  # only the child holds its end: the parent sees EOF when the child dies
        return process, parent_end

    def results(self):
        """Yield (key, ok, value) for every task submitted, as each finishes, until none is left."""
        while self._tasks or self._busy:
            while self._tasks and (self._idle or len(self._busy) < self._size):
                if not self._idle:
                    try:
                        self._idle.append(self._start())
                    except OSError:
                        if not self._busy:  # no process at all: run the task here
                            key, function, args = self._tasks.popleft()
                            yield (key, *_run_here(function, args))
                            continue
                        break
                process, connection = self._idle.pop()
                key, function, args = self._tasks[0]
                try:
                    connection.send((function, args))
                except (OSError, ValueError):  # that worker died after its last result: replace it, same task
                    self._bury(process, connection)
                    self._lost_sends += 1
                    if self._lost_sends > 3 * self._size:  # new workers die before any task: give the task up
                        self._tasks.popleft()
                        yield key, False, "no worker process could take the task (each died at once)"
                    continue
                self._tasks.popleft()
                self._lost_sends = 0
                self._busy[connection] = (process, key)
            if not self._busy:
                continue
            ready = set(wait([*self._busy, *(process.sentinel for process, _ in self._busy.values())]))
            for connection, (process, key) in list(self._busy.items()):
                if connection not in ready and process.sentinel not in ready:
                    continue
                del self._busy[connection]
                try:
                    ok, value = connection.recv()
                except Exception:  # noqa: BLE001 - EOF: the worker died with this task
                    yield key, False, self._bury(process, connection)
                    continue
                if process.is_alive():
                    self._idle.append((process, connection))
                else:  # it sent its result and then died: not given another task
                    self._bury(process, connection)
                yield key, ok, value

    def _bury(self, process, connection) -> str:
        """End a worker whose pipe failed; how it died, one line."""
        connection.close()
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join()
        code = process.exitcode
        return f"the worker process died ({f'killed by signal {-code}' if code < 0 else f'exit code {code}'})"

    def close(self) -> None:
        """Stop every worker: idle ones are asked to finish (killed if they do not within 5 s), busy ones killed."""
        busy = [(process, connection) for connection, (process, _) in self._busy.items()]
        for process, connection in self._idle:
            try:
                connection.send(None)
            except (OSError, ValueError):
                pass
        for process, _ in busy:
            process.kill()
        for process, connection in [*self._idle, *busy]:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
            connection.close()
        self._idle, self._busy = [], {}


def _run_here(function, args):
    """(ok, value) of a task run in this process (when no worker process can be started)."""
    try:
        return True, function(*args)
    except Exception as exc:  # noqa: BLE001
        return False, f"raised {_describe(exc)}"


class DaskPool:
    """The tasks of a sweep on a Dask cluster, with :class:`WorkerPool`'s ``results()``: (key, ok, value) as each
    task finishes, ``value`` its return value if ``ok``, else a one-line reason.

    ``submit(key, factory)``: ``factory()`` gives (function, args) when the task is sent, so the files a task
    needs are read only then (at most ``in_flight`` tasks are out at a time, and :func:`run_sweep` sends one
    a worker: a sweep of 10^5 primes never holds its files in memory at once). A worker that dies takes its
    task with it: Dask runs the task again on another worker (``distributed.scheduler.allowed-failures``
    times, 3 by default) and then reports KilledWorker, which is that task's outcome (ok False); every other
    task goes on.
    """

    def __init__(self, client, in_flight: int):
        self._client = client
        self._limit = max(1, in_flight)
        self._pending = deque()
        self._running: dict = {}

    def submit(self, key, factory) -> None:
        self._pending.append((key, factory))

    def results(self):
        """Yield (key, ok, value) for every task submitted, as each finishes, until none is left."""
        from distributed import as_completed

        finished = as_completed([], loop=self._client.loop)
        try:
            while self._pending or self._running:
                while self._pending and len(self._running) < self._limit:
                    key, factory = self._pending.popleft()
                    try:
                        function, args = factory()
                    except Exception as exc:  # noqa: BLE001 - that task's outcome
                        yield key, False, f"raised {_describe(exc)}"
                        continue
                    future = self._client.submit(function, *args, pure=False)
                    self._running[future] = key
                    finished.add(future)
                if not self._running:
                    continue
                future = next(finished)
                key = self._running.pop(future)
                try:
                    outcome = (True, future.result())
                except Exception as exc:  # noqa: BLE001 - KilledWorker (a worker died with it), or the task raised
                    outcome = (False, f"raised {_describe(exc)}")
                future.release()
                yield (key, *outcome)
        finally:
            if self._running:
                self._client.cancel(list(self._running))
            self._running.clear()


def check_files(paths, jobs: int) -> list:
    """Verdicts for many certificate files (in the order given), checked in ``jobs`` processes.

    Each file's verdict is its own: an exception while checking it (MemoryError and
    RecursionError included) is an ``error`` verdict for it (exit 2, :func:`exit_code`). A
    worker process dying fails only its task (:class:`WorkerPool`); the files of that task are
    checked again one per task, so a file whose check kills its worker gets an ``error``
    verdict naming that, and every other file its own verdict. Names of the pattern
    THEOREM-P.json are tied to the content (:func:`check_certificate`).
    """
    from .check import Verdict

    paths = [str(p) for p in paths]
    if jobs <= 1 or len(paths) < 2:
        return [Verdict(*_guarded_check(p)[0]) for p in paths]
    rows, size = {}, _chunk_size(len(paths), jobs)
    with WorkerPool(min(jobs, len(paths))) as pool:
        for start in range(0, len(paths), size):
            pool.submit((start, min(size, len(paths) - start)), _check_many, paths[start:start + size])
        for (start, count), ok, value in pool.results():
            if ok:
                rows.update(zip(range(start, start + count), value))
            elif count > 1:  # which file? each again on its own
                for i in range(start, start + count):
                    pool.submit((i, 1), _check_many, [paths[i]])
            else:
                rows[start] = (paths[start], ERROR, f"checking this file failed: {value}")
    return [Verdict(*rows[i]) for i in range(len(paths))]


# --- what a sweep certifies: the run record --------------------------------------------------------------

#: The run record of a sweep folder (:func:`run_spec`, :func:`read_run_record`).
RUN_RECORD = "run.json"
#: The ``format`` of the run record.
RUN_FORMAT = "certify-sweep-run/1"
#: run.json is read back at most this large (the five theorems take about 2 KB).
MAX_RUN_BYTES = 1 << 16
#: An earlier summary.json is read (for the names of its entries only) at most this large.
MAX_SUMMARY_BYTES = 16 << 20
#: The precision a sweep certifies at (the builders' default).
SWEEP_PRECISION_BITS = 128
#: The radius rule of a sweep: the builder's own choice at each prime (certify.theorems.radius: 99% of
#: the largest radius the kernel certifies, rounded down to 3 significant digits; 0 for sensitivity).
AUTO_RADIUS = "auto"
#: How the record writes a parameter whose default the builder derives at each prime (gd's epsilon, slide's X).
DEFAULT_RULE = "default: "
_SPEC_KEYS = ("parameters", "precision_bits", "primes", "radius")


def _default_rule(theorem: str, name: str) -> str | None:
    """'default: RULE' for a parameter whose registry default is a rule of p (not an exact number); else None."""
    from .kernel.exact import parse_rational

    default = _RECORDS[theorem].parameter(name).default
    if default is None:
        return None
    try:
        parse_rational(default, name, canonical=False)
        return None
    except ValueError:
        return DEFAULT_RULE + default


def run_spec(theorem: str, eta: str | None = None) -> dict:
    """What a sweep of ``theorem`` gives its builder at every prime, as OUT/run.json records it.

    ``{"parameters": {name: text}, "radius": "auto", "precision_bits": 128}``. A parameter's text is
    the exact value the sweep passes, in canonical spelling: ``eta`` for eta (None: the registry's
    reference), a required parameter's reference, or the registry's default when that is a number
    (sigma: "1"); or ``"default: RULE"`` when the default is a rule of p that the builder applies at
    each prime (gd's epsilon, slide's X), passed as None. ValueError (one line) if ``eta`` is not a
    canonical exact number of bounded size.
    """
    from .kernel.exact import format_rational, parse_rational

    parameters = {}
    for parameter in _RECORDS[theorem].parameters:
        rule = _default_rule(theorem, parameter.name)
        if rule is not None:
            parameters[parameter.name] = rule
        elif parameter.name == "eta" and eta is not None:
            parameters[parameter.name] = format_rational(parse_rational(eta, "eta"))
        else:
            value = parameter.reference if parameter.required else parameter.default
            parameters[parameter.name] = format_rational(parse_rational(value, parameter.name, canonical=False))
    return {"parameters": parameters, "radius": AUTO_RADIUS, "precision_bits": SWEEP_PRECISION_BITS}


def _builder_arguments(spec: dict) -> dict:
    """The keyword arguments of a builder for ``spec`` (:func:`run_spec`): parameters, radius and prec."""
    from .kernel.exact import parse_rational

    arguments = {name: parse_rational(value, name) for name, value in spec["parameters"].items()
                 if not value.startswith(DEFAULT_RULE)}
    arguments["radius"] = None if spec["radius"] == AUTO_RADIUS else parse_rational(spec["radius"], "radius")
    arguments["prec"] = spec["precision_bits"]
    return arguments


def _spec_difference(recorded: dict, spec: dict) -> str | None:
    """The first value (parameter, radius, precision) in which two specs differ, in words; None if none does."""
    for name, value in spec["parameters"].items():
        if recorded["parameters"].get(name) != value:
            return f"{name} = {recorded['parameters'].get(name)} but this command's {name} is {value}"
    for key in ("radius", "precision_bits"):
        if recorded[key] != spec[key]:
            return f"{key} = {recorded[key]} but this command's {key} is {spec[key]}"
    return None


def _strict_json(data: bytes):
    """The JSON value of ``data``: UTF-8, no floats, NaN, Infinity or duplicate keys; else ValueError (one line)."""
    def refuse_float(text):
        raise ValueError(f"the number {text[:40]} is not an integer")

    def refuse_constant(name):
        raise ValueError(f"the constant {name} is not allowed")

    def no_duplicates(pairs):
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key in a JSON object")
        return dict(pairs)

    try:
        return json.loads(data.decode("utf-8"), parse_float=refuse_float, parse_constant=refuse_constant,
                          object_pairs_hook=no_duplicates)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {str(exc).splitlines()[0] if str(exc) else ''}") from None


def _exact(text: str, where: str):
    """The exact number ``text`` (canonical, of bounded size) as an fmpq; ValueError naming ``where`` otherwise."""
    from .kernel.exact import parse_rational

    return parse_rational(text, where)  # its ValueError names ``where``


def _validated_spec(theorem: str, entry, where: str) -> dict:
    """``entry`` if it is a run record's entry for ``theorem`` this version would write; else ValueError (one line).

    Exactly the keys parameters, precision_bits (64..512), primes (A..B, 5 <= A <= B <= 10^8, as written
    by a sweep) and radius ("auto" or a canonical exact number >= 0); parameters: exactly the theorem's,
    each a canonical exact number of bounded size, or the default rule this version writes for it.
    """
    if not isinstance(entry, dict) or sorted(entry) != sorted(_SPEC_KEYS):
        raise ValueError(f"{where}: expected exactly the keys {', '.join(_SPEC_KEYS)}")
    parameters, names = entry["parameters"], _RECORDS[theorem].parameter_names
    if not isinstance(parameters, dict) or sorted(parameters) != sorted(names):
        raise ValueError(f"{where}/parameters: expected exactly {', '.join(names)}")
    for name in names:
        value = parameters[name]
        if not isinstance(value, str):
            raise ValueError(f"{where}/parameters/{name}: not a string")
        if value != _default_rule(theorem, name):
            if value.startswith(DEFAULT_RULE):
                raise ValueError(f"{where}/parameters/{name}: not the default rule of {name}")
            _exact(value, f"{where}/parameters/{name}")
    precision = entry["precision_bits"]
    if type(precision) is not int or not 64 <= precision <= 512:
        raise ValueError(f"{where}/precision_bits: not an integer from 64 to 512")
    radius = entry["radius"]
    if not isinstance(radius, str):
        raise ValueError(f"{where}/radius: not a string")
    if radius != AUTO_RADIUS and _exact(radius, f"{where}/radius") < 0:
        raise ValueError(f"{where}/radius: negative")
    primes = entry["primes"]
    try:
        low, high = parse_prime_range(primes) if isinstance(primes, str) else (0, 0)
    except ValueError:
        low = high = 0
    if not (5 <= low <= high <= 10**8 and primes == f"{low}..{high}"):
        raise ValueError(f"{where}/primes: not a range A..B of primes with 5 <= A <= B <= 10^8")
    return entry


def read_run_record(out) -> dict:
    """{theorem: spec with its primes "A..B"} of OUT/run.json; {} if there is no such entry in the folder.

    The record is untrusted: read once with :func:`certify.check.read_regular_file` (capped at
    MAX_RUN_BYTES; a FIFO, device, folder or a link to one is refused by ``stat``, never opened for
    reading), parsed strictly (:func:`_strict_json`) and validated entry by entry
    (:func:`_validated_spec`; theorems of this registry only). Anything else raises InputError
    (one line, naming the file and the first fault).
    """
    from .check import read_regular_file
    from .errors import InputError, MalformedCertificate

    path = Path(out) / RUN_RECORD
    if not os.path.lexists(path):
        return {}
    hint = f"; delete it to sweep {out} afresh (every certificate there is still compared)"
    try:
        document = _strict_json(read_regular_file(path, MAX_RUN_BYTES, what="a sweep's run record"))
        if not isinstance(document, dict) or sorted(document) != ["format", "theorems"]:
            raise ValueError("expected exactly the keys format and theorems")
        if document["format"] != RUN_FORMAT:
            raise ValueError(f"format is not {RUN_FORMAT}")
        theorems = document["theorems"]
        if not isinstance(theorems, dict):
            raise ValueError("theorems is not an object")
        for theorem in theorems:
            if theorem not in _RECORDS:
                raise ValueError(f"theorems/{one_line(theorem, 60)}: not a theorem of this certify")
        return {theorem: _validated_spec(theorem, entry, f"theorems/{theorem}") for theorem, entry in theorems.items()}
    except (MalformedCertificate, ValueError) as exc:
        raise InputError(one_line(f"{path}: not a sweep's run record: {exc}{hint}", 1000)) from None


def _run_record_text(record: dict) -> str:
    """The canonical text of a run record ({theorem: spec with primes}): sorted keys, two-space indent."""
    return json.dumps({"format": RUN_FORMAT, "theorems": record}, indent=2, sort_keys=True) + "\n"


# --- sweeping ----------------------------------------------------------------------------------------------

def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace`` (readers see old or new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        temporary.write_text(text, encoding="ascii")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def make_certificate(theorem: str, p: int, spec: dict) -> str:
    """The canonical text of the certificate a sweep of ``spec`` (:func:`run_spec`) makes for ``theorem`` at ``p``.

    Starts from a fresh numerical state (:func:`certify.kernel.state.fresh_state`): a check at the
    precision plus 64 bits leaves Arb caches behind that change the last digits of a later
    certificate, so without it the bytes would depend on what the worker did before. Raises what
    the builder raises (CertifyError: not certified, a hypothesis fails).
    """
    from .certificate import dumps
    from .kernel.state import fresh_state

    fresh_state()
    return dumps(_RECORDS[theorem].build(p, **_builder_arguments(spec)).certificate)


def _made(theorem: str, p: int, spec: dict) -> tuple[str | None, str]:
    """(:func:`make_certificate`, "") or (None, why it failed in one line); never raises."""
    from .errors import CertifyError

    try:
        return make_certificate(theorem, p, spec), ""
    except CertifyError as exc:
        return None, one_line(str(exc), 1000)
    except Exception as exc:  # noqa: BLE001 - recorded, and the sweep goes on
        return None, f"internal error: {_describe(exc)}"


def _store(path: Path, text: str) -> tuple[str, str]:
    """Write a certificate ``text`` at ``path`` atomically: ("", its sha256) or ("cannot write ...", "")."""
    try:
        _write_atomically(path, text)
        return "", hashlib.sha256(text.encode("ascii")).hexdigest()
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}", ""


def certify_chunk(theorem: str, primes: list[int], out: str, eta: str | None = None,
                  spec: dict | None = None) -> list[tuple[int, str, str]]:
    """Worker: certify ``theorem`` at each prime (:func:`make_certificate` of ``spec``, by default
    :func:`run_spec` of ``eta``), writing certificates atomically.

    Returns [(p, failure message or "", sha256 of the bytes written or "")]; a failure at one
    prime (not certified, cannot write, any other exception) is that prime's message.
    """
    spec = run_spec(theorem, eta) if spec is None else spec
    return [_stored(out, theorem, *make_chunk(theorem, [p], spec)[0]) for p in primes]  # each written when made


def make_chunk(theorem: str, primes: list[int], spec: dict) -> list[tuple[int, str, str]]:
    """Worker of a Dask sweep: [(p, the certificate text of :func:`make_certificate` or "", why it failed or "")]
    for each prime. It reads and writes nothing: the process that drives the sweep writes the texts
    (:func:`_stored`), so the workers need no access to the sweep's folder."""
    rows = []
    for p in primes:
        text, failure = _made(theorem, p, spec)
        rows.append((p, text or "", failure))
    return rows


def _stored(out, theorem: str, p: int, text: str, failure: str) -> tuple[int, str, str]:
    """A row of :func:`certify_chunk` from a row of :func:`make_chunk`: the text written at its place."""
    if not text:
        return p, failure, ""
    return (p, *_store(certificate_file(out, theorem, p), text))


#: Outcomes of :func:`resume_chunk` for one prime.
KEPT, REDONE, FAILED, NOT_COUNTED = "kept", "redone", "failed", "not counted"


def _without_software(document: dict) -> dict:
    """A certificate without its ``software`` (the versions that wrote it): what it states."""
    return {key: value for key, value in document.items() if key != "software"}


def _difference(theorem: str, p: int, document: dict, expected: dict) -> str:
    """Why the verified certificate ``document`` is not ``expected`` (this sweep's at p), in one line."""
    held = f"{theorem} at p = {p}"
    names = list(_RECORDS[theorem].parameter_names)
    names += sorted((set(document["parameters"]) | set(expected["parameters"])) - set(names))
    for name in names:
        stated, wanted = document["parameters"].get(name), expected["parameters"].get(name)
        if stated != wanted:  # both canonical (verified, made now): the same number is the same text
            return (f"made with other parameters: the file holds {held} with {name} = {one_line(str(stated), 60)} "
                    f"but the sweep's {name} is {one_line(str(wanted), 60)}")
    for key in ("radius", "precision_bits"):
        if document[key] != expected[key]:
            stated = one_line(str(document[key]), 60)
            return (f"made with other parameters: the file holds {held} with {key} = {stated} "
                    f"but the sweep's {key} at p = {p} is {expected[key]}")
    claims = sorted(claim for claim in set(document["claims"]) | set(expected["claims"])
                    if document["claims"].get(claim) != expected["claims"].get(claim))
    where = f"its claim {one_line(claims[0], 60)}" if claims else \
        f"its {', '.join(sorted(key for key in expected if key != 'software' and document.get(key) != expected[key]))}"
    return f"verified, but not the certificate this sweep makes at p = {p}: {where} differs"


def _read_present(path) -> tuple[bytes | None, str]:
    """(the bytes of the file at ``path``, "") or (None, "malformed: why"): read once, capped, regular files only
    (:func:`certify.check.read_certificate_file`)."""
    from .check import read_certificate_file
    from .errors import MalformedCertificate

    try:
        return read_certificate_file(path), ""
    except MalformedCertificate as exc:
        return None, f"malformed: {exc}"


#: What :func:`_judge` decides for a file already at its place: keep it, leave it (not counted), write the new
#: certificate over it, or fail (setting it aside when it is not a verified certificate).
_KEEP, _LEAVE, _REWRITE, _GIVE_UP = "keep", "leave", "rewrite", "give up"


def _judge(theorem: str, p: int, path, data: bytes | None, reason: str, spec: dict, write: bool) -> tuple:
    """Whether the bytes ``data`` read from ``path`` (None with the ``reason`` they could not be read) are the
    certificate this sweep makes at p, and what to do; reads and writes nothing (see :func:`resume_chunk`).

    Returns (_KEEP, sha256 of data), (_LEAVE, reason), (_REWRITE, reason, the new text) or
    (_GIVE_UP, message, whether to set the file aside)."""
    from .certificate import parse_certificate
    from .errors import MalformedCertificate

    text, failure = _made(theorem, p, spec)
    if data is not None and text is not None:
        if data == text.encode("ascii"):
            return _KEEP, hashlib.sha256(data).hexdigest()
        try:
            document = parse_certificate(data)
        except MalformedCertificate:
            document = None
        expected = json.loads(text)
        if document is not None and _without_software(document) == _without_software(expected):
            return _KEEP, hashlib.sha256(data).hexdigest()
    verified = False
    if data is not None:
        verdict = _verdict(path, data)
        verified = bool(verdict)
        if not verified:
            reason = f"{verdict.status}: {verdict.message}"
        elif text is not None:
            reason = _difference(theorem, p, parse_certificate(data), json.loads(text))
        else:
            reason = "verified, but not compared with this sweep's certificate"
    if not write:
        return _LEAVE, reason if text is not None else \
            f"{reason}; making the certificate of the recorded parameters failed: {failure}"
    if text is None:  # a bad file this sweep cannot replace is no longer counted as anything
        return _GIVE_UP, f"the certificate there was {reason}; certifying again failed: {failure}", not verified
    return _REWRITE, reason, text


def _carry_out(decision: tuple, path: Path) -> tuple[str, str, str]:
    """(outcome, reason, sha256 or "") of a :func:`_judge` decision for the file at ``path``, done: the new
    certificate written over it, or the file set aside."""
    kind = decision[0]
    if kind == _KEEP:
        return KEPT, "", decision[1]
    if kind == _LEAVE:
        return NOT_COUNTED, decision[1], ""
    if kind == _GIVE_UP:
        if decision[2]:
            _set_aside(path)
        return FAILED, decision[1], ""
    _, reason, text = decision
    failure, digest = _store(path, text)
    if failure:
        return FAILED, f"the certificate there was {reason}; {failure}", ""
    return REDONE, reason, digest


def _resume_one(theorem: str, p: int, out: str, spec: dict, write: bool) -> tuple[str, str, str]:
    """(outcome, reason, sha256 or "") of the file at ``theorem``'s place for ``p`` (see :func:`resume_chunk`)."""
    path = certificate_file(out, theorem, p)
    data, reason = _read_present(path)
    return _carry_out(_judge(theorem, p, path, data, reason, spec, write), path)


def resume_chunk(theorem: str, primes: list[int], out: str, spec: dict,
                 write: bool = True) -> list[tuple[int, str, str, str]]:
    """Worker: for each prime, whether the file already at its place is the certificate this sweep makes.

    The file is read once (:func:`certify.check.read_certificate_file`: capped, regular files only)
    and the certificate of ``spec`` at p is made now (:func:`make_certificate`). The file counts
    (KEPT, the sha256 of its bytes) only if it states exactly that certificate: every key but
    ``software``, the versions that wrote it. Otherwise its reason is its verdict if it is not
    verified (:func:`_verdict`: tied to its name, then the full checker), else the first input
    that differs from this sweep's (``made with other parameters: the file holds dead at p = 13
    with sigma = 2 but the sweep's sigma is 1``; then the radius, then the precision), else the
    first claim that differs. With ``write`` the new certificate is then written over the file
    (REDONE, its sha256), or, if certifying fails, FAILED (a file that is not a verified
    certificate is set aside as THEOREM-P.json.rejected); without ``write`` (a theorem carried
    over from an earlier sweep) the file is NOT_COUNTED and nothing is written.

    Returns [(p, outcome, reason, sha256 or "")]; an exception for one prime is its row
    (ERROR, "checking it failed: ...") and the next prime goes on.
    """
    rows = []
    for p in primes:
        try:
            rows.append((p, *_resume_one(theorem, p, out, spec, write)))
        except Exception as exc:  # noqa: BLE001 - that prime's row, as if its worker had died
            rows.append((p, ERROR, f"checking it failed: {_describe(exc)}", ""))
    return rows


def judge_chunk(theorem: str, items: list, spec: dict, write: bool) -> list[tuple[int, tuple | None, str]]:
    """Worker of a Dask sweep: :func:`resume_chunk` without the file system. ``items`` are (p, the path as text,
    the bytes read there or None, why they could not be read); returns [(p, the :func:`_judge` decision or None,
    "" or "checking it failed: ..." for an exception)]. The process that drives the sweep read the files and
    carries the decisions out (:func:`_carry_out`), so the workers need no access to the sweep's folder."""
    rows = []
    for p, where, data, reason in items:
        try:
            rows.append((p, _judge(theorem, p, Path(where), data, reason, spec, write), ""))
        except Exception as exc:  # noqa: BLE001 - that prime's row, as if its worker had died
            rows.append((p, None, f"checking it failed: {_describe(exc)}"))
    return rows


#: ``scheduler`` of :func:`run_sweep` (``--scheduler local``): a Dask LocalCluster of ``jobs`` worker processes.
LOCAL_CLUSTER = "local"


def _read_items(out, theorem: str, chunk) -> list[tuple[int, str, bytes | None, str]]:
    """The items of :func:`judge_chunk` for ``chunk``: (p, the path as text, the bytes read there or None, why)."""
    items = []
    for p in chunk:
        path = certificate_file(out, theorem, p)
        items.append((p, str(path), *_read_present(path)))
    return items


#: The measured seconds a sweep worker takes per certificate, by theorem and p (a JSON table beside the script
#: that measured it, certify/sweep_costs.py); :func:`estimate_sweep` reads it.
COSTS_PATH = Path(__file__).with_name("sweep_costs.json")
#: A sweep estimated to take longer than this many seconds says so before it starts.
ESTIMATE_NOTE_SECONDS = 60.0


@dataclass(frozen=True)
class Estimate:
    """What :func:`estimate_sweep` expects a sweep to take: ``seconds`` of wall time and ``basis`` (one line:
    where the figure comes from, and whether p lies outside the measured primes)."""

    seconds: float
    basis: str


def load_sweep_costs(path=None) -> dict | None:
    """The cost table at ``path`` (default :data:`COSTS_PATH`) as certify/sweep_costs.py writes it:
    {"machine": text, "seconds_per_certificate": {theorem: {p: seconds}}, "task_seconds": s, ...}, every p a
    whole number >= 5 and every number finite and > 0 (more keys are allowed). None if it is missing or not
    such a table: then no estimate is made and nothing else changes. Read capped (64 KiB), regular file only."""
    from .check import read_regular_file
    from .errors import MalformedCertificate
    from .law.runner import positive_cost as positive  # the law's cost table reads its numbers the same way

    try:
        table = json.loads(read_regular_file(Path(path or COSTS_PATH), 64 * 1024, what="a cost table"))
        costs, task = table["seconds_per_certificate"], table["task_seconds"]
        ok = isinstance(table.get("machine", ""), str) and isinstance(costs, dict) and costs and positive(task)
        for theorem, by_p in costs.items():
            ok = ok and isinstance(by_p, dict) and by_p and all(
                re.fullmatch(r"[1-9][0-9]{0,17}", q) and int(q) >= 5 and positive(value) for q, value in by_p.items())
    # OverflowError: a whole number too large for a float (a 400-digit cost) is not a cost either
    except (OSError, MalformedCertificate, ValueError, KeyError, TypeError, AttributeError, RecursionError,
            OverflowError):
        return None
    return table if ok else None


def estimate_sweep(work: dict, workers: int, costs: dict | None = None) -> Estimate | None:
    """The wall time of a sweep that makes or compares a certificate of each theorem at each prime of
    ``work`` ({theorem: [p]}) on ``workers`` workers, from the measured costs (:func:`load_sweep_costs`
    unless ``costs`` is given; None without a table or without a theorem of it). A model, not a bound, of
    the machine the table was measured on: each certificate costs c(theorem, p) seconds, linear in
    (log p, log c) between the measured primes and along the nearest two beyond them (comparing a file
    costs what making it does: the sweep makes the certificate to compare), each task
    ``task_seconds`` more, and the workers share the total evenly."""
    from .law.runner import _in_p  # the law's estimate interpolates the same way

    costs = costs if costs is not None else load_sweep_costs()
    if costs is None or not any(work.values()):
        return None
    table = costs["seconds_per_certificate"]
    if any(theorem not in table for theorem, primes in work.items() if primes):
        return None
    total, ways, count = 0.0, set(), 0
    for theorem, primes in work.items():
        for p in primes:
            seconds, how = _in_p(table[theorem], p)
            total += seconds
            ways.add(how)
            count += 1
    workers = max(1, workers)
    tasks = sum(-(-len(primes) // _chunk_size(max(1, count), workers)) for primes in work.values())
    seconds = (total + tasks * costs["task_seconds"]) / workers
    how = "extrapolated beyond the measured primes" if "extrapolated" in ways else "interpolated in p"
    return Estimate(seconds, f"{count} certificates at {total / max(1, count) * 1000:.0f} ms each on average, "
                             f"{how}, from {COSTS_PATH.name} measured on {costs.get('machine', 'an unnamed machine')}")


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


@dataclass
class SweepReport:
    """What a sweep did, per theorem.

    ``certified``: primes that had no certificate and were certified now. ``skipped``: primes
    whose file was already there and is the certificate this sweep makes (kept as it is).
    ``redone``: primes whose file there was not (why: its verdict or the parameter that differs)
    and that were certified again. ``failed``: primes not certified (why), including a redo that
    failed. ``checked`` counts the files already there that were compared, carried-over theorems'
    included. ``carried``: {theorem: its recorded primes} for each theorem of the folder's record
    that this sweep did not sweep; ``not_counted``: {theorem: {p: why}} for their files that do not
    count. ``notes``: one-line messages for stderr (entries of an earlier summary that are dropped).
    """

    certified: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    redone: dict[str, dict[int, str]] = field(default_factory=dict)
    failed: dict[str, dict[int, str]] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)
    carried: dict[str, list[int]] = field(default_factory=dict)
    not_counted: dict[str, dict[int, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    summary: dict = field(default_factory=dict)  # what write_summary wrote to OUT/summary.json


def _set_aside(path: Path) -> None:
    """Rename a certificate that failed its check to THEOREM-P.json.rejected (kept, but no longer counted)."""
    try:
        os.replace(path, path.with_name(path.name + ".rejected"))
    except OSError:
        pass  # it still fails every check; the summary counts only files that passed


def run_sweep(primes, theorems, jobs: int, out, eta: str | None = None, progress=None, scheduler: str | None = None,
              connect_timeout: float = CONNECT_TIMEOUT, warn=None) -> SweepReport:
    """Certify every (theorem, prime) without the certificate this sweep makes there, in ``jobs`` processes
    (a :class:`WorkerPool`) or on Dask: ``scheduler`` the address of a running scheduler (tcp://host:8786;
    checked as text before anything is made, then probed, certify.cluster) or :data:`LOCAL_CLUSTER` (a
    LocalCluster of ``jobs`` workers).

    The sweep's parameters (:func:`run_spec` of ``eta``; None: the registry's reference) are
    compared with the folder's record (:func:`read_run_record`) and then recorded in OUT/run.json
    with the primes. Files already there are compared in the same pool (:func:`resume_chunk`):
    one counts only if it states the certificate this sweep makes at its prime; any other is
    reported and certified again. A theorem of the record that ``theorems`` leaves out is carried
    over: its files are compared with its recorded parameters, nothing is written, and its
    summary entry is recomputed from the files that count. Writes ``failures.json`` and the
    summary (:func:`write_summary`). Tasks are chunks of one theorem's primes (:func:`_chunk_size`): a
    worker dying fails its chunk, whose primes are then tried one per task (a one-prime task that fails is
    tried once more with no other task running: a dying worker also fails the tasks placed beside it), so only the prime whose
    comparison or certifying kills a worker is affected (a file whose comparison does is certified again;
    a certifying that does is a failure). On Dask the workers only compute (:func:`make_chunk`,
    :func:`judge_chunk`): this process reads the files they compare and writes what they make, so the
    workers need certify but no access to ``out``, and a sweep gives the same files, summaries and
    verdicts in both modes. ``warn(line)`` gets the estimate of a sweep expected to take over a minute
    (:func:`estimate_sweep`), before any certificate is made; ``progress(done, total, seconds)`` is
    called after each task.

    Raises InputError (one line) if ``eta`` is not a canonical exact number of bounded size, if
    the folder's run record is not a valid record, if it records other parameters for a theorem
    of ``theorems`` than this sweep's (nothing is changed then), if the folder cannot be written, or
    (ClusterError) if the scheduler address is malformed or the scheduler cannot be reached.
    """
    from .cluster import scheduler_address
    from .errors import InputError
    from .kernel.exact import parse_rational

    address = None if scheduler in (None, LOCAL_CLUSTER) else scheduler_address(scheduler)

    if eta is None:  # the reference eta of the registry (gd's: 1)
        eta = next((parameter.reference for record in _RECORDS.values() for parameter in record.required_parameters
                    if parameter.name == "eta"), "1")
    try:
        parse_rational(eta, "eta")  # what the gd workers will parse: canonical and bounded, or one line now
        specs = {theorem: run_spec(theorem, eta) for theorem in theorems}
    except ValueError as exc:
        raise InputError(str(exc)) from None
    primes, theorems = sorted(set(primes)), list(dict.fromkeys(theorems))
    if not primes:
        raise InputError("no primes to sweep")
    out = Path(out)
    recorded = read_run_record(out)
    for theorem in theorems:
        difference = _spec_difference(recorded[theorem], specs[theorem]) if theorem in recorded else None
        if difference is not None:
            raise InputError(one_line(
                f"{out / RUN_RECORD}: the {theorem} certificates of this folder were made with {difference}; "
                f"sweep into another folder, or delete {out / RUN_RECORD} to certify again every file made "
                "otherwise", 1000))
    client = cluster = None
    if scheduler is not None:  # before anything is made: a scheduler that cannot be reached changes nothing
        from .cluster import connect

        client, cluster = connect(address, jobs, connect_timeout, "drop --scheduler")
    try:
        return _sweep(primes, theorems, jobs, out, specs, recorded, progress, client, warn)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def _sweep(primes, theorems, jobs, out, specs, recorded, progress, client, warn) -> SweepReport:
    """:func:`run_sweep` once its inputs are checked and its pool or Dask client is there."""
    from .errors import InputError

    report = SweepReport()
    counted = {theorem: {} for theorem in theorems}
    present, missing = {}, {}
    for theorem in theorems:
        folder = out / theorem
        try:
            folder.mkdir(parents=True, exist_ok=True)
            names = set(os.listdir(folder))
        except OSError as exc:
            raise InputError(f"cannot use {folder}: {exc.strerror or exc}") from None
        present[theorem] = [p for p in primes if f"{theorem}-{p}.json" in names]
        missing[theorem] = [p for p in primes if f"{theorem}-{p}.json" not in names]
        report.certified[theorem] = report.skipped[theorem] = 0
        report.checked[theorem] = len(present[theorem])
        report.redone[theorem], report.failed[theorem] = {}, {}
    carried = [theorem for theorem in _RECORDS if theorem in recorded and theorem not in theorems]
    record = {theorem: recorded[theorem] for theorem in carried}
    record.update({theorem: {**specs[theorem], "primes": f"{primes[0]}..{primes[-1]}"} for theorem in theorems})
    try:
        _write_atomically(out / RUN_RECORD, _run_record_text(record))
    except OSError as exc:
        raise InputError(f"cannot write {out / RUN_RECORD}: {exc.strerror or exc}") from None
    for theorem in carried:
        specs[theorem] = recorded[theorem]
        report.carried[theorem] = primes_between(*parse_prime_range(recorded[theorem]["primes"]))
        try:
            names = set(os.listdir(out / theorem))
        except OSError:
            names = set()
        present[theorem] = [p for p in report.carried[theorem] if f"{theorem}-{p}.json" in names]
        counted[theorem], report.not_counted[theorem] = {}, {}
        report.checked[theorem] = len(present[theorem])
    failures = {}  # written anew from this run's verdicts: nothing of an earlier failures.json is copied
    redo_reason = {}
    total, done = sum(map(len, present.values())) + sum(map(len, missing.values())), 0
    workers = jobs if client is None else max(1, len(client.scheduler_info().get("workers", {})))
    size = _chunk_size(max(1, total), workers)
    work = {theorem: present.get(theorem, []) + missing.get(theorem, []) for theorem in [*theorems, *carried]}
    estimate = estimate_sweep(work, workers)
    if warn is not None and estimate is not None and estimate.seconds > ESTIMATE_NOTE_SECONDS:
        warn(f"note: {total} certificates to make or compare on {workers} worker(s): about "
             f"{_duration(estimate.seconds)} ({estimate.basis})")
    start = time.perf_counter()
    # one task a worker on Dask: a worker that dies then takes exactly its own task with it (the scheduler would
    # queue a second one on it, which Dask counts as suspicious too); the client keeps each worker fed
    pool = WorkerPool(jobs) if client is None else DaskPool(client, workers)
    with pool if client is None else contextlib.nullcontext(pool):
        def submit(kind, theorem, chunk):
            key = (kind, theorem, tuple(chunk))
            spec, write = specs[theorem], kind == "resume"
            if client is None and kind == "certify":
                pool.submit(key, certify_chunk, theorem, list(chunk), str(out), None, spec)
            elif client is None:  # "resume" (this sweep's theorems) or "carried" (compared only)
                pool.submit(key, resume_chunk, theorem, list(chunk), str(out), spec, write)
            elif kind == "certify":
                pool.submit(key, lambda: (make_chunk, (theorem, list(chunk), spec)))
            else:  # the files are read here, when the task is sent
                pool.submit(key, lambda: (judge_chunk, (theorem, _read_items(out, theorem, chunk), spec, write)))

        def fail(theorem, p, message):
            report.failed[theorem][p] = message
            failures[f"{theorem}-{p}"] = message
            if (theorem, p) in redo_reason:
                _set_aside(certificate_file(out, theorem, p))

        def resumed(theorem, rows, write):
            """Count what was kept or redone; an error while comparing is no pass: certify that prime again."""
            again = 0
            for p, outcome, reason, digest in rows:
                if outcome in (KEPT, REDONE):
                    counted[theorem][p] = digest
                    if write:
                        failures.pop(f"{theorem}-{p}", None)
                        if outcome == KEPT:
                            report.skipped[theorem] += 1
                        else:
                            report.redone[theorem][p] = reason
                elif outcome == FAILED:
                    fail(theorem, p, reason)
                elif not write:
                    report.not_counted[theorem][p] = reason if outcome == NOT_COUNTED else f"{outcome}: {reason}"
                else:
                    redo_reason[(theorem, p)] = f"{outcome}: {reason}"
                    submit("certify", theorem, [p])
                    again += 1
            return again

        def certified(theorem, rows):
            for p, message, digest in rows:
                reason = redo_reason.get((theorem, p))
                if message:
                    fail(theorem, p, message if reason is None else
                         f"the certificate there was {reason}; certifying again failed: {message}")
                else:
                    counted[theorem][p] = digest
                    failures.pop(f"{theorem}-{p}", None)
                    if reason is None:
                        report.certified[theorem] += 1
                    else:
                        report.redone[theorem][p] = reason

        for theorem in [*theorems, *carried]:
            kinds = (("resume", present[theorem]), ("certify", missing[theorem])) if theorem in theorems else \
                (("carried", present[theorem]),)
            for kind, todo in kinds:
                for i in range(0, len(todo), size):
                    submit(kind, theorem, todo[i:i + size])

        def finished(kind, theorem, chunk, ok, value):
            nonlocal total, done
            if not ok:  # this prime's own task failed, alone
                value = [(chunk[0], f"certifying failed: {value}", "")] if kind == "certify" else \
                        [(chunk[0], ERROR, f"checking it failed: {value}", "")]
            elif client is not None:  # what the Dask workers computed, written here
                value = [_stored(out, theorem, *row) for row in value] if kind == "certify" else \
                    [(p, *_carry_out(decision, certificate_file(out, theorem, p))) if decision is not None
                     else (p, ERROR, message, "") for p, decision, message in value]
            if kind == "certify":
                certified(theorem, value)
            else:
                total += resumed(theorem, value, kind == "resume")
            done += len(chunk)
            if progress:
                progress(done, total, time.perf_counter() - start)

        alone = deque()  # one-prime tasks that failed beside others: each tried again with nothing else running

        def drain(solo=None):
            for key, ok, value in pool.results():
                kind, theorem, chunk = key
                if not ok and len(chunk) > 1:  # a worker died (or the task raised): each prime again on its own
                    for p in chunk:
                        submit(kind, theorem, [p])
                elif not ok and key != solo:
                    # a worker that dies fails every task the scheduler had placed on it (Dask also reruns the
                    # killing task on another worker, beside that worker's task), so a one-prime task can fail
                    # with another prime's death (seen in CI: 17 beside 19, twice): its verdict waits for a run
                    # on its own
                    alone.append(key)
                else:
                    finished(kind, theorem, chunk, ok, value)

        drain()
        while alone:
            key = alone.popleft()
            submit(key[0], key[1], list(key[2]))
            drain(solo=key)
    report.seconds = time.perf_counter() - start
    summarized = [theorem for theorem in _RECORDS if theorem in theorems or theorem in carried]
    report.notes = _dropped_entries(out, summarized)
    failed = {theorem: dict(report.failed[theorem]) for theorem in theorems}
    for theorem in carried:
        failed[theorem] = {p: f"not counted: {reason}" for p, reason in report.not_counted[theorem].items()}
        failures.update({f"{theorem}-{p}": message for p, message in failed[theorem].items()})
    try:
        _write_atomically(out / "failures.json", json.dumps(failures, indent=2, sort_keys=True) + "\n")
        report.summary = write_summary(out, summarized, {**{theorem: primes for theorem in theorems},
                                                         **report.carried}, counted,
                                       failed=failed, runs=record, carried_over=carried)
    except OSError as exc:
        raise InputError(f"cannot write the summary in {out}: {exc.strerror or exc}") from None
    return report


# --- summaries ---------------------------------------------------------------------------------------------

def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path`` if it has at most ``limit`` of them, else None.

    Never opens a FIFO, device or socket for reading (:func:`certify.check.read_regular_file`).
    """
    from .check import read_regular_file
    from .errors import MalformedCertificate

    try:
        return read_regular_file(path, limit)
    except MalformedCertificate:
        return None


def _dropped_entries(out: Path, summarized) -> list[str]:
    """One line (or none) naming the entries of an earlier OUT/summary.json that the new one will not have.

    Nothing of that file is used but the names of its entries, to say what is dropped: an entry is
    only ever recomputed from certificates (a theorem of the run record), never copied. The file is
    read capped, regular files only; if it cannot be read the line says so.
    """
    from .check import read_regular_file
    from .errors import MalformedCertificate

    path = out / "summary.json"
    if not os.path.lexists(path):
        return []
    try:
        loaded = json.loads(read_regular_file(path, MAX_SUMMARY_BYTES, what="a sweep's summary"))
    except MalformedCertificate as exc:
        return [one_line(f"{path}: the earlier summary was not read ({exc}); it is written anew", 1000)]
    except (ValueError, RecursionError):
        return [f"{path}: the earlier summary is not JSON; it is written anew"]
    if not isinstance(loaded, dict):
        return [f"{path}: the earlier summary is not a JSON object; it is written anew"]
    dropped = [name for name in loaded if name not in summarized]
    if not dropped:
        return []
    shown = ", ".join(one_line(str(name), 40) for name in dropped[:5]) + \
        (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
    return [one_line(f"{path}: the earlier entries of {shown} are dropped: {out / RUN_RECORD} records no sweep "
                     "of them to recompute them from their certificates (nothing of an earlier summary is copied)",
                     1000)]


def _key_numbers(path: Path, theorem: str, digest: str):
    """[(label, extreme, text, ExactNumber)] of the certificate at ``path``, or None.

    None unless the file's bytes hash to ``digest`` (those that were checked or written) and
    every key number is there and an exact number. Never raises: a file is data, whatever it holds.
    """
    from .certificate import MAX_CERTIFICATE_BYTES, parse_certificate
    from .kernel.exact import parse_exact

    data = _read_regular(path, MAX_CERTIFICATE_BYTES)
    if data is None or hashlib.sha256(data).hexdigest() != digest:
        return None
    try:
        claims = parse_certificate(data)["claims"]
        numbers = []
        for number in _RECORDS[theorem].key_numbers:
            stored = claims[number.claim]
            text = (stored["components"][number.component] if number.component else stored)[number.key]
            numbers.append((number.label, number.extreme, text, parse_exact(text)))
        return numbers
    except Exception:  # noqa: BLE001 - the bytes were checked, so this is unreachable but never a crash
        return None


def summarize(out, theorems, primes, counted, failed=None) -> dict:
    """Per theorem: primes, certificates counted, failures, primes with neither, and each key number's extreme.

    ``primes`` is the list of primes of every theorem, or {theorem: its primes}. ``counted`` maps
    a theorem to {p: sha256} of the certificates that count (compared or written by this sweep);
    a file is read again and used only if its bytes still hash to that (else its p is listed
    under ``changed``). ``failed`` is {theorem: {p: why}} (this run's verdicts; nothing is read back from
    an earlier OUT/failures.json). ``missing`` counts the primes with neither (a carried-over theorem's primes
    without a certificate file). Extremes are decided exactly by :func:`certify.kernel.exact.compare` on the
    numbers as parsed (no exponent is expanded); ``value`` is the end exactly as the certificate
    writes it (not rounded), ``p`` the first prime attaining it. Reads only regular files,
    capped; never hangs or raises on a file.
    """
    from .kernel.exact import compare

    out = Path(out)
    failed = failed or {}
    summary = {}
    for theorem in theorems:
        its_primes = primes[theorem] if isinstance(primes, dict) else primes
        extremes, certified, changed = {}, 0, []
        for p in its_primes:
            digest = counted.get(theorem, {}).get(p)
            if digest is None:
                continue
            numbers = _key_numbers(certificate_file(out, theorem, p), theorem, digest)
            if numbers is None:
                changed.append(p)
                continue
            certified += 1
            for label, extreme, text, value in numbers:
                best = extremes.get(label)
                if best is None or compare(value, best[0]) == (-1 if extreme == "min" else 1):
                    extremes[label] = (value, text, p, extreme)
        wanted = set(its_primes)
        failures = sorted((p, message) for p, message in failed.get(theorem, {}).items() if p in wanted)
        summary[theorem] = {
            "primes": len(its_primes),
            "certified": certified,
            "changed": changed,
            "failed": failures,
            "missing": sum(1 for p in wanted if p not in counted.get(theorem, {}) and p not in failed.get(theorem, {})),
            "extremes": {label: {"extreme": extreme, "value": text, "p": p}
                         for label, (_, text, p, extreme) in extremes.items()},
        }
    return summary


def write_summary(out, theorems, primes, counted, failed=None, runs=None, carried_over=()) -> dict:
    """Write OUT/summary.json, OUT/summary.csv and OUT/primes-THEOREM.csv (atomically); return the summary.

    Arguments as :func:`summarize`; ``runs`` ({theorem: its run record entry}) adds each theorem's
    parameters, radius rule, precision and primes to its entry (``run``), and each theorem of
    ``carried_over`` (swept earlier, its files compared now, not swept by this command) is marked
    ``"carried_over": true``. Nothing is read from an earlier summary.

    * summary.json: :func:`summarize` of ``theorems``.
    * summary.csv: one row per theorem and key number; ``value`` is the end as a decimal of at
      most 12 significant digits, rounded outward (a lower end down, an upper end up; exact
      values stay in summary.json and the certificates); ``this_run`` says whether this sweep
      swept the theorem (no: carried over).
    * primes-THEOREM.csv: one row per counted prime: p, its precision_bits, radius and parameters
      exactly as the certificate states them, and every key number rounded outward the same way.
    """
    out = Path(out)
    summary = summarize(out, theorems, primes, counted, failed)
    for theorem, entry in summary.items():
        if runs and theorem in runs:
            entry["run"] = runs[theorem]
        if theorem in carried_over:
            entry["carried_over"] = True
    _write_atomically(out / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SUMMARY_COLUMNS)
    for row in summary_rows(summary):
        writer.writerow([row[column] for column in SUMMARY_COLUMNS])  # None is written as an empty field
    _write_atomically(out / "summary.csv", buffer.getvalue())
    for theorem in theorems:
        _write_prime_table(out, theorem, primes[theorem] if isinstance(primes, dict) else primes,
                           counted.get(theorem, {}))
    return summary


#: The columns of OUT/summary.csv, in order (:func:`summary_rows`).
SUMMARY_COLUMNS = ("theorem", "primes", "certified", "failed", "quantity", "extreme", "value", "p", "this_run")


def summary_rows(summary: dict) -> list[dict]:
    """The rows of OUT/summary.csv as dicts (keys :data:`SUMMARY_COLUMNS`), from a summary of
    :func:`write_summary`: one per theorem and key number (primes, certified and failed as ints;
    ``value`` the extreme end as a decimal of at most 12 significant digits rounded outward, a string;
    ``p`` the first prime attaining it; ``this_run`` "yes", or "no" for a carried-over theorem). A theorem
    with no key number (nothing certified) has one row whose quantity, extreme, value and p are None."""
    rows = []
    for theorem, entry in summary.items():
        common = {"theorem": theorem, "primes": entry["primes"], "certified": entry["certified"],
                  "failed": len(entry["failed"])}
        this_run = "no" if entry.get("carried_over") else "yes"
        extremes = entry["extremes"].items() or [(None, {"extreme": None, "value": None, "p": None})]
        for label, data in extremes:
            value = None if data["value"] is None else _outward_decimal(data["value"], _upward(theorem, label))
            rows.append({**common, "quantity": label, "extreme": data["extreme"], "value": value, "p": data["p"],
                         "this_run": this_run})
    return rows


def _upward(theorem: str, label: str) -> bool:
    """Whether the key number ``label`` of ``theorem`` is an upper end (rounded up), from its record."""
    record = _RECORDS.get(theorem)
    for number in (record.key_numbers if record is not None else ()):
        if number.label == label:
            return number.key in ("hi", "log10_hi")
    return False


def _outward_decimal(text, upward: bool, digits: int = 12) -> str:
    """``text`` (an exact number) as a decimal of at most ``digits`` significant digits, rounded outward.

    Works on (mantissa, exponent): 1e-977168779520925842 is never expanded. Anything that is
    not an exact number is written as it is (at most 200 characters).
    """
    from .kernel.exact import format_decimal, parse_syntax, round_decimal

    try:
        number = parse_syntax(text)
    except (ValueError, TypeError):
        return str(text)[:200]
    if number.numerator == 0:
        return "0"
    rounded = round_decimal(number, digits, upward)
    return format_decimal(rounded.numerator, rounded.exp10)


def _write_prime_table(out: Path, theorem: str, primes, counted: dict) -> None:
    """OUT/primes-THEOREM.csv: per counted certificate p, precision_bits, radius and parameters (exact, as
    stated) and the key numbers (rounded outward)."""
    from .certificate import MAX_CERTIFICATE_BYTES, parse_certificate

    numbers, names = _RECORDS[theorem].key_numbers, _RECORDS[theorem].parameter_names
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["p", "precision_bits", "radius", *names, *(number.label for number in numbers)])
    for p in primes:
        digest = counted.get(p)
        path = certificate_file(out, theorem, p)
        data = _read_regular(path, MAX_CERTIFICATE_BYTES) if digest is not None else None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            continue
        try:
            document = parse_certificate(data)
            row = [p, document["precision_bits"], document["radius"], *(document["parameters"][name] for name in names)]
            for number in numbers:
                stored = document["claims"][number.claim]
                text = (stored["components"][number.component] if number.component else stored)[number.key]
                row.append(_outward_decimal(text, number.key in ("hi", "log10_hi")))
        except Exception:  # noqa: BLE001 - checked bytes; unreachable, but a table row is never a crash
            continue
        writer.writerow(row)
    _write_atomically(out / f"primes-{theorem}.csv", buffer.getvalue())


def progress_bar(stream=None):
    """A progress callback drawing a bar on a terminal (nothing when the stream is not a terminal).
    ``stream``: sys.stderr at the time of the call by default (not at import: a test or an embedding
    program may replace it, and the replaced stream may be closed by then)."""
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        return None

    def draw(done: int, total: int, seconds: float) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / seconds if seconds > 0 else 0.0
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:.0f}/s)")
        if done == total:
            stream.write("\n")
        stream.flush()

    return draw
