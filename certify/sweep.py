"""Sweeps: certificates for every prime in a range, in parallel processes, resumable, with a summary.

Processes, not threads: python-flint's precision is one process-wide setting. Each worker
certifies a chunk of primes for one theorem and writes each certificate atomically as
``OUT/THEOREM/THEOREM-P.json``; a failure at one prime is recorded and the sweep goes on.

A resumed sweep trusts nothing on disk. Every certificate already in the folder is checked
by the full checker (:func:`certify.check.check_bytes`, which recomputes every claim), in the
same worker pool as the certifying, and must also hold the theorem and the prime its name
promises (and, for gd, the sweep's eta); only then does it count. Any other file there
(rejected, malformed, truncated, a FIFO, the certificate of another prime) is certified
again, written atomically over it, and reported (:attr:`SweepReport.redone`); if certifying
again fails, the failure is recorded in ``OUT/failures.json`` and the bad file is set aside
as ``THEOREM-P.json.rejected``. The summary (``OUT/summary.json``, ``OUT/summary.csv``) is
then written from the certificates that count, read again and used only if their bytes are
the bytes that were checked or written.

:func:`check_files` is ``certify check`` for many files: one bad file (an exception, even a
worker process dying) is that file's verdict, never the others'.
"""

from __future__ import annotations

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


def _failure_key():
    """THEOREM-P, the keys of failures.json."""
    return _patterns(tuple(_RECORDS))[1]


def _takes_eta(theorem: str) -> bool:
    """The sweep's --eta applies to the theorems that require a parameter eta (gd)."""
    return any(parameter.name == "eta" for parameter in _RECORDS[theorem].required_parameters)


def _reference(theorem: str, eta: str) -> dict:
    """The values a sweep gives the parameters ``theorem`` requires: ``eta`` for eta, else the record's reference."""
    return {parameter.name: eta if parameter.name == "eta" else parameter.reference
            for parameter in _RECORDS[theorem].required_parameters}

#: The verdict status of a file whose check crashed (an exception, a worker process dying).
#: Its exit code is 2, like a malformed certificate's: a crash is never a rejection.
ERROR = "error"

#: failures.json is read back at most this large (a sweep of 10^6 failing primes writes ~150 MB;
#: an oversized or unreadable file is ignored: this run's failures are still written).
MAX_FAILURES_BYTES = 256 << 20

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


def _mismatch(path, document: dict, eta: str | None) -> str | None:
    """Why ``document`` is not what its file name (and the sweep's eta) promise, in one line; None if it is.

    The name THEOREM-P.json promises that theorem and p written the same way; ``eta`` (canonical
    text, gd only) promises that parameter, compared exactly (:func:`certify.kernel.exact.compare`).
    """
    from .kernel.exact import compare, parse_exact

    name = Path(path).name
    promised = certificate_name(name)
    held = f"{document['theorem']} at p = {document['p']}"
    if promised is not None and promised != (document["theorem"], str(document["p"])):
        return (f"the name {one_line(name)} promises {promised[0]} at p = {one_line(promised[1], 40)} "
                f"but the file holds {held}")
    if eta is not None and document["theorem"] in _RECORDS and _takes_eta(document["theorem"]):
        stated = document["parameters"].get("eta")
        try:
            same = stated is not None and compare(parse_exact(stated), parse_exact(eta)) == 0
        except ValueError:
            same = False  # not a canonical number: the checker calls the file malformed anyway
        if not same:
            return (f"the file holds {held} with eta = {one_line(str(stated), 60)} but the sweep's eta is "
                    f"{one_line(eta, 60)}")
    return None


def _check_path(path, eta: str | None = None):
    """(Verdict, sha256 of the bytes checked or None): the bytes read once, tied to the name, checked."""
    from . import check as checker
    from .certificate import parse_certificate
    from .errors import MalformedCertificate

    source = str(path)
    try:
        data = checker.read_certificate_file(path)
    except MalformedCertificate as exc:
        return checker.Verdict(source, "malformed", str(exc)), None
    digest = hashlib.sha256(data).hexdigest()
    if certificate_name(Path(path).name) is not None or eta is not None:
        try:
            document = parse_certificate(data)
        except MalformedCertificate as exc:
            return checker.Verdict(source, "malformed", str(exc)), digest
        reason = _mismatch(path, document, eta)
        if reason is not None:
            return checker.Verdict(source, "rejected", reason), digest
    return checker.check_bytes(data, source), digest


def check_certificate(path, eta: str | None = None):
    """The verdict on the file at ``path``: :func:`certify.check.check_file` plus the tie to its name.

    A file named THEOREM-P.json (the library's pattern) is rejected, with a one-line reason
    naming both, unless it holds that theorem at that p; with ``eta`` (canonical text) a gd
    certificate must also state that eta. Other names are checked without the tie. Raises
    only for what the checker itself raises; :func:`check_files` turns that into a verdict.
    """
    return _check_path(path, eta)[0]


def _guarded_check(path, eta: str | None = None):
    """((source, status, message), digest): :func:`_check_path`, with any exception as an ``error`` verdict.

    ``Exception`` includes MemoryError and RecursionError; KeyboardInterrupt and SystemExit pass.
    """
    try:
        verdict, digest = _check_path(path, eta)
        return (verdict.source, verdict.status, verdict.message), digest
    except Exception as exc:  # noqa: BLE001 - one bad file is that file's verdict
        return (str(path), ERROR, f"the checker failed on this file: {_describe(exc)}"), None


def exit_code(verdict) -> int:
    """0 verified, 1 rejected, 2 malformed or ``error`` (a crash is never exit 1)."""
    from .check import EXIT_MALFORMED

    return EXIT_MALFORMED if verdict.status == ERROR else verdict.exit_code


# --- checking many files -----------------------------------------------------------------------------------

def certificate_files(paths) -> list[Path]:
    """Expand folders into the files below them named THEOREM-P.json (any kind: a FIFO is listed, and
    its check refuses it in one line); keep other paths as given.

    Folders are walked without following symbolic links to folders (no cycles); files come
    sorted by folder, theorem and p.
    """
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            found = []
            for folder, subfolders, names in os.walk(path):
                subfolders.sort()
                found += [Path(folder) / name for name in names if certificate_name(name)]
            files += sorted(found, key=_file_order)
        else:
            files.append(path)
    return files


def _file_order(path: Path):
    theorem, digits = certificate_name(path.name)
    return str(path.parent), theorem, len(digits), digits


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


def certify_chunk(theorem: str, primes: list[int], out: str, eta: str) -> list[tuple[int, str, str]]:
    """Worker: certify ``theorem`` at each prime, writing certificates atomically.

    Returns [(p, failure message or "", sha256 of the bytes written or "")]; a failure at one
    prime (not certified, cannot write, any other exception) is that prime's message.
    """
    from .certificate import dumps
    from .errors import CertifyError
    from .kernel.exact import parse_rational

    record = _RECORDS[theorem]
    results = []
    for p in primes:
        path = certificate_file(out, theorem, p)
        try:
            options = {name: parse_rational(value) for name, value in _reference(theorem, eta).items()}
            text = dumps(record.build(p, **options).certificate)
            _write_atomically(path, text)
            results.append((p, "", hashlib.sha256(text.encode("ascii")).hexdigest()))
        except CertifyError as exc:
            results.append((p, one_line(str(exc), 1000), ""))
        except OSError as exc:
            results.append((p, f"cannot write {path}: {exc.strerror or exc}", ""))
        except Exception as exc:  # noqa: BLE001 - recorded, and the sweep goes on
            results.append((p, f"internal error: {_describe(exc)}", ""))
    return results


def check_chunk(theorem: str, primes: list[int], out: str, eta: str) -> list[tuple[int, str, str, str]]:
    """Worker: check the certificate already at each prime's place (:func:`check_certificate`, tied to
    its name, gd also to ``eta``); returns [(p, status, message, sha256 of the bytes checked or "")]."""
    results = []
    for p in primes:
        (_, status, message), digest = _guarded_check(certificate_file(out, theorem, p),
                                                      eta if _takes_eta(theorem) else None)
        results.append((p, status, message, digest or ""))
    return results


@dataclass
class SweepReport:
    """What a sweep did, per theorem.

    ``certified``: primes that had no certificate and were certified now. ``skipped``: primes
    whose certificate was already there and passed the full check (kept as it is). ``redone``:
    primes whose file there did not pass (why: its verdict) and that were certified again.
    ``failed``: primes not certified (why), including a redo that failed. ``checked`` counts
    the files already there that were checked.
    """

    certified: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    redone: dict[str, dict[int, str]] = field(default_factory=dict)
    failed: dict[str, dict[int, str]] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _set_aside(path: Path) -> None:
    """Rename a certificate that failed its check to THEOREM-P.json.rejected (kept, but no longer counted)."""
    try:
        os.replace(path, path.with_name(path.name + ".rejected"))
    except OSError:
        pass  # it still fails every check; the summary counts only files that passed


def run_sweep(primes, theorems, jobs: int, out, eta: str | None = None, progress=None) -> SweepReport:
    """Certify every (theorem, prime) without a certificate that passes the checker, in ``jobs`` processes.

    Files already there are checked in the same pool (:func:`check_chunk`) and count only if
    verified and tied to their name (and gd to ``eta``, canonical text); the others are
    certified again. Writes ``failures.json`` and the summary of the certificates that count.
    Tasks run in a :class:`WorkerPool`: a worker dying fails its chunk, whose primes are then
    tried one per task, so only the prime whose check or certifying kills a worker is affected
    (a file whose check kills its worker is certified again; a certifying that does is a failure).
    Raises InputError (one line) if ``eta`` is not a canonical exact number of bounded size or
    the folder cannot be written.
    """
    from .errors import InputError
    from .kernel.exact import parse_rational

    if eta is None:  # the reference eta of the registry (gd's: 1)
        eta = next((parameter.reference for record in _RECORDS.values() for parameter in record.required_parameters
                    if parameter.name == "eta"), "1")
    try:
        parse_rational(eta)  # what the gd workers will parse: canonical and bounded, or one line now
    except ValueError as exc:
        raise InputError(f"eta: {exc}") from None
    out = Path(out)
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
    failures = _load_failures(out)
    redo_reason = {}
    total, done = sum(map(len, present.values())) + sum(map(len, missing.values())), 0
    size = _chunk_size(max(1, total), jobs)
    start = time.perf_counter()

    def fail(theorem, p, message):
        report.failed[theorem][p] = message
        failures[f"{theorem}-{p}"] = message
        if (theorem, p) in redo_reason:
            _set_aside(certificate_file(out, theorem, p))

    def checked(theorem, rows):
        """Verified files count; the others are certified again (a crash while checking is not a pass)."""
        redo = []
        for p, status, message, digest in rows:
            if status == "verified":
                report.skipped[theorem] += 1
                counted[theorem][p] = digest
                failures.pop(f"{theorem}-{p}", None)
            else:
                redo_reason[(theorem, p)] = f"{status}: {message}"
                redo.append(p)
        for i in range(0, len(redo), size):
            pool.submit(("certify", theorem, tuple(redo[i:i + size])), certify_chunk, theorem, redo[i:i + size],
                        str(out), eta)
        return len(redo)

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

    workers = {"check": check_chunk, "certify": certify_chunk}
    with WorkerPool(jobs) as pool:
        for theorem in theorems:
            for kind, todo in (("check", present[theorem]), ("certify", missing[theorem])):
                for i in range(0, len(todo), size):
                    chunk = todo[i:i + size]
                    pool.submit((kind, theorem, tuple(chunk)), workers[kind], theorem, chunk, str(out), eta)
        for (kind, theorem, chunk), ok, value in pool.results():
            if not ok and len(chunk) > 1:  # a worker died (or the task raised): each prime again on its own
                for p in chunk:
                    pool.submit((kind, theorem, (p,)), workers[kind], theorem, [p], str(out), eta)
                continue
            if not ok:  # this prime's own task failed
                value = [(chunk[0], ERROR, f"checking it failed: {value}", "")] if kind == "check" else \
                        [(chunk[0], f"certifying failed: {value}", "")]
            if kind == "check":
                total += checked(theorem, value)
            else:
                certified(theorem, value)
            done += len(chunk)
            if progress:
                progress(done, total, time.perf_counter() - start)
    report.seconds = time.perf_counter() - start
    try:
        _write_atomically(out / "failures.json", json.dumps(failures, indent=2, sort_keys=True) + "\n")
        write_summary(out, theorems, primes, counted)
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


def _read_json_object(path: Path) -> dict:
    """The JSON object in the regular file at ``path`` (read capped), or {} if it is missing, unreadable or not one."""
    data = _read_regular(path, MAX_FAILURES_BYTES)
    try:
        loaded = json.loads(data) if data is not None else {}
    except (ValueError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _load_failures(out: Path) -> dict:
    """The entries of OUT/failures.json that are THEOREM-P -> one-line message; {} if it is unreadable."""
    loaded = _read_json_object(out / "failures.json")
    return {key: one_line(value, 2000) for key, value in loaded.items()
            if isinstance(key, str) and _failure_key().fullmatch(key) and isinstance(value, str)}


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


def summarize(out, theorems, primes, counted) -> dict:
    """Per theorem: primes, certificates counted, failures, and each key number's extreme.

    ``counted`` maps a theorem to {p: sha256} of the certificates that count (checked or
    written by this sweep); a file is read again and used only if its bytes still hash to
    that (else its p is listed under ``changed``). Extremes are decided exactly by
    :func:`certify.kernel.exact.compare` on the numbers as parsed (no exponent is expanded);
    ``value`` is the end exactly as the certificate writes it (not rounded), ``p`` the first
    prime attaining it. Reads only regular files, capped; never hangs or raises on a file.
    """
    from .kernel.exact import compare

    out = Path(out)
    failures = _load_failures(out)
    wanted = set(primes)
    summary = {}
    for theorem in theorems:
        extremes, certified, changed = {}, 0, []
        for p in primes:
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
        failed = []
        for key, message in failures.items():
            name, digits = _failure_key().fullmatch(key).groups()
            if name == theorem and int(digits) in wanted:
                failed.append((int(digits), message))
        summary[theorem] = {
            "primes": len(primes),
            "certified": certified,
            "changed": changed,
            "failed": sorted(failed),
            "extremes": {label: {"extreme": extreme, "value": text, "p": p}
                         for label, (_, text, p, extreme) in extremes.items()},
        }
    return summary


def write_summary(out, theorems, primes, counted) -> dict:
    """Write OUT/summary.json, OUT/summary.csv and OUT/primes-THEOREM.csv (atomically); return the summary.

    * summary.json: :func:`summarize` of this run, merged with the entries of an earlier
      summary.json for theorems this run did not sweep (marked ``"carried_over": true``: this
      run did not check their files), so a dead-only sweep over a four-theorem folder keeps the
      other three.
    * summary.csv: one row per theorem and key number; ``value`` is the end as a decimal of at
      most 12 significant digits, rounded outward (a lower end down, an upper end up; exact
      values stay in summary.json and the certificates); ``this_run`` says whether this sweep
      checked or wrote the files behind the row.
    * primes-THEOREM.csv: one row per counted prime of this run: p, radius and every key number,
      rounded outward the same way.
    """
    out = Path(out)
    summary = summarize(out, theorems, primes, counted)
    merged = dict(_earlier_summary(out, exclude=theorems))
    merged.update(summary)
    _write_atomically(out / "summary.json", json.dumps(merged, indent=2, sort_keys=True) + "\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["theorem", "primes", "certified", "failed", "quantity", "extreme", "value", "p", "this_run"])
    for theorem, entry in merged.items():
        this_run = "no" if entry.get("carried_over") else "yes"
        rows = entry["extremes"].items() or [("", {"extreme": "", "value": "", "p": ""})]
        for label, data in rows:
            writer.writerow([theorem, entry["primes"], entry["certified"], len(entry["failed"]), label,
                             data["extreme"], _outward_decimal(data["value"], _upward(theorem, label)),
                             data["p"], this_run])
    _write_atomically(out / "summary.csv", buffer.getvalue())
    for theorem in theorems:
        _write_prime_table(out, theorem, primes, counted.get(theorem, {}))
    return merged


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
    not an exact number (a carried-over entry from an unchecked file) is written as it is.
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


def _earlier_summary(out: Path, exclude) -> dict:
    """Entries of an earlier OUT/summary.json for theorems not in ``exclude``, marked carried over; {} if none.

    Only well-shaped entries are kept; the file is read capped and never trusted beyond that shape.
    """
    loaded = _read_json_object(out / "summary.json")
    kept = {}
    for theorem, entry in loaded.items():
        if theorem in exclude or theorem not in _RECORDS or not isinstance(entry, dict):
            continue
        extremes = entry.get("extremes")
        if not (isinstance(extremes, dict) and all(isinstance(value, dict) and {"extreme", "value", "p"} <= set(value)
                                                   for value in extremes.values())):
            continue
        if not all(isinstance(entry.get(key), int) for key in ("primes", "certified")) or \
                not isinstance(entry.get("failed"), list):
            continue
        kept[theorem] = {**entry, "carried_over": True}
    return kept


def _write_prime_table(out: Path, theorem: str, primes, counted: dict) -> None:
    """OUT/primes-THEOREM.csv: p, radius and the key numbers of each counted certificate, rounded outward."""
    from .certificate import MAX_CERTIFICATE_BYTES, parse_certificate

    numbers = _RECORDS[theorem].key_numbers
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["p", "radius"] + [number.label for number in numbers])
    for p in primes:
        digest = counted.get(p)
        path = certificate_file(out, theorem, p)
        data = _read_regular(path, MAX_CERTIFICATE_BYTES) if digest is not None else None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            continue
        try:
            document = parse_certificate(data)
            row = [p, _outward_decimal(document["radius"], upward=False)]
            for number in numbers:
                stored = document["claims"][number.claim]
                text = (stored["components"][number.component] if number.component else stored)[number.key]
                row.append(_outward_decimal(text, number.key in ("hi", "log10_hi")))
        except Exception:  # noqa: BLE001 - checked bytes; unreachable, but a table row is never a crash
            continue
        writer.writerow(row)
    _write_atomically(out / f"primes-{theorem}.csv", buffer.getvalue())


def progress_bar(stream=sys.stderr):
    """A progress callback drawing a bar on a terminal (nothing when the stream is not a terminal)."""
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
