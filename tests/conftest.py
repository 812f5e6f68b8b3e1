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


def _staircase_example(name: str):
    """The example ``name`` of examples/staircase/ as a module, registered under its name (they import each other
    so)."""
    import importlib.util

    if name not in sys.modules:
        path = ROOT / "examples" / "staircase" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def stair_whole():
    """examples/staircase/region_stair_whole.py as a module: the float evaluation of docs/staircase.md section 11.16,
    the independent route the tests of that section and of certify.kernel.region_stair compare with."""
    return _staircase_example("region_stair_whole")


@pytest.fixture(scope="session")
def stair_proved(stair_whole):
    """examples/staircase/region_stair_proved.py as a module: the selection of the kernel's cells and pairs (it
    imports region_stair_whole, which ``stair_whole`` registers first)."""
    return _staircase_example("region_stair_proved")


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


# --- the schedule: the longest tests first ----------------------------------------------------------------
#
# A test run is spread over the cores by pytest-xdist (tests/setup-and-run passes ``-n``). The proof library's
# coqc (tests/test_coq_library.py, test_coqc_accepts_the_library_file, 15-100 s a file) is the largest share of
# its CPU, and a few other tests take minutes (the fuzz catalogue, coqc against the checker, the library's
# documents). They are moved to the front of the run: the longest jobs first leave no core waiting at the end for
# one long test. Only the order changes; every selected test runs.

#: The tests moved to the front, by name (their parametrised ids follow the name), longest first (measured on the
#: 2-core machine with pytest-xdist: 207 s, 122 s, 113 s, 70 s, then the library files, 20-100 s each).
FIRST = ("test_fuzz_deterministic", "test_coqc_and_the_checker_agree_on_weakened_certificates",
         "test_coqc_and_the_checker_agree_on_forged_certificates",
         "test_every_document_of_the_library_is_its_rendering_and_has_no_overfull_box",
         "test_coqc_accepts_the_library_file")


@pytest.hookimpl(trylast=True)  # after -k/-m deselection
def pytest_collection_modifyitems(session, config, items):
    rank = {name: index for index, name in enumerate(FIRST)}
    first = sorted((item for item in items if getattr(item, "originalname", None) in rank),
                   key=lambda item: rank[item.originalname])  # stable: the library keeps its order
    items[:] = first + [item for item in items if getattr(item, "originalname", None) not in rank]


# --- summaries that tests record, printed at the end --------------------------------------------------------
#
# A test may record lines for the terminal summary (the grammar fuzz's counts) as a user property: pytest-xdist
# sends user properties from its workers to the main process with each report, where they are printed, so the
# summary appears with and without -n.

#: The user property whose value (a list of lines) is printed in the terminal summary.
SUMMARY_PROPERTY = "terminal_summary_lines"
_SUMMARIES: list = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        _SUMMARIES.extend(value for key, value in report.user_properties if key == SUMMARY_PROPERTY)


def pytest_terminal_summary(terminalreporter):
    if _SUMMARIES:
        terminalreporter.section("summaries recorded by the tests")
        for lines in _SUMMARIES:
            for line in lines:
                terminalreporter.write_line(line)
