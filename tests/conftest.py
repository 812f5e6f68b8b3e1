"""Shared fixtures: certificates are generated once per session (they are deterministic)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis: no per-example deadline (the machines are noisy: a deadline is a timed test), and in CI
# (CI=true) a derandomized run, so that a submission's verdict does not depend on the draw; locally the
# draws stay random and failures are replayed from .hypothesis/.
settings.register_profile("certify", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "certify")


@pytest.fixture(autouse=True)
def _default_precisions():
    """Each test starts at mpmath's and python-flint's default precisions (15 digits, 53 bits) and leaves them so:
    both are process-wide, and a test that set one and did not restore it made later tests' oracles depend on the
    order the tests ran in (an mpmath oracle evaluated at 15 digits instead of the 30 an earlier module had set)."""
    import mpmath
    from flint import ctx

    mpmath.mp.dps, ctx.prec = 15, 53
    yield
    mpmath.mp.dps, ctx.prec = 15, 53


def verdict(document):
    """The checker's verdict on a certificate given as a dict (written canonically first)."""
    from certify.certificate import dumps
    from certify.check import check_bytes

    return check_bytes(dumps(document).encode())


def set_claim_path(document, path, value):
    """document["claims"][path[0]][path[1]]... = value."""
    node = document["claims"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def run_certify(*args, input=None, timeout=120):
    """Run ``python -m certify ARGS`` in a subprocess; returns the CompletedProcess (text mode)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "certify", *map(str, args)], capture_output=True, text=True,
                          input=input, timeout=timeout, env=env, cwd=ROOT)


@pytest.fixture(scope="session")
def dead_certificates():
    """{p: certificate dict} for the primes the tests use, built through the library."""
    from certify.theorems.dead import certify_dead

    return {p: certify_dead(p).certificate for p in (5, 7, 13, 101)}


@pytest.fixture
def write_json(tmp_path):
    """Write a dict as JSON into tmp_path and return the path."""
    counter = iter(range(10**6))

    def write(document, text=None):
        path = tmp_path / f"cert-{next(counter)}.json"
        path.write_text(text if text is not None else json.dumps(document, indent=2, sort_keys=True))
        return path

    return write


@pytest.fixture(scope="session")
def slide_certificates():
    """{p: certificate dict} of Theorem A.1 with the default parameters."""
    from certify.theorems.slide import certify_slide

    return {p: certify_slide(p).certificate for p in (5, 7, 13, 101)}


@pytest.fixture(scope="session")
def gd_certificates():
    """{(p, eta): certificate} of Theorem A.4, for a small, a unit and a large step."""
    from flint import fmpq

    from certify.theorems.gd import certify_gd

    return {(p, eta): certify_gd(p, fmpq(*eta)).certificate
            for p, eta in ((5, (1, 1)), (7, (1, 1000)), (13, (1, 1)), (13, (1000, 1)), (101, (1, 10)))}


@pytest.fixture(scope="session")
def smooth_certificates():
    """{p: certificate} of Theorem A.3 with the default parameters."""
    from certify.theorems.smooth import certify_smooth

    return {p: certify_smooth(p).certificate for p in (5, 7, 13, 101)}


# --- the proof library's Coq compilation, in the background ------------------------------------------------
#
# Compiling the 66 library files is most of the suite's Coq time (about 22 minutes of one core), while the rest
# of the suite is mostly one-core Python. So when tests/test_coq_library.py is selected, its compilations start
# as soon as the tests are collected, two coqc at a time under `nice` beside the other tests: the tests keep
# their core, the library takes what is left, and both cores once the other tests are done. Its tests run last
# (tests/test_coq_library.py, library_compiled, takes the results; it compiles the files itself when nothing was
# started). The work and the verdicts are the same; only the schedule changes.

#: The background coqc's niceness: low priority, so that the foreground tests are not slowed by it.
LIBRARY_NICENESS = 10

#: {(theorem, p): Future of its CompileResult}, filled by :func:`pytest_collection_modifyitems`.
LIBRARY_COMPILATIONS: dict = {}
_BACKGROUND: list = []


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: start nothing for a library test not selected
def pytest_collection_modifyitems(session, config, items):
    library = [item for item in items if Path(str(item.fspath)).name == "test_coq_library.py"]
    if not library:
        return
    items[:] = [item for item in items if item not in library] + library
    if config.option.collectonly or not any("test_coqc_accepts_every_compiled_library_file" in item.name for item in library):
        return  # nothing will compile the whole library: start nothing
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    import test_coq_library  # the module collected above: its file list and probe rule

    folder = Path(tempfile.mkdtemp(prefix="certify_library_"))
    pool = ThreadPoolExecutor(max_workers=2)
    _BACKGROUND.extend([pool, folder])
    for key in test_coq_library.COMPILED:  # the paths here (they build certificates), only coqc in the pool
        work = test_coq_library.library_compilation_input(key, folder)
        LIBRARY_COMPILATIONS[key] = pool.submit(test_coq_library.compile_library_input, work, LIBRARY_NICENESS)


def pytest_sessionfinish(session, exitstatus):
    if _BACKGROUND:
        import shutil

        pool, folder = _BACKGROUND
        pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(folder, ignore_errors=True)
