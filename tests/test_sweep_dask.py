"""certify sweep on Dask (issue 26): a real `dask scheduler` and two `dask worker` processes started here.

The same sweep run with --jobs 2 (the local pool) and with --scheduler (the workers only compute; this
process reads and writes the folder) gives the same certificates, summaries, tables and failure record,
byte for byte; a resumed sweep reports the same files with the same reasons; a worker that dies fails only
its task, whose primes are tried again one by one. The scheduler runs with allowed-failures 0, so a task
whose worker dies is reported at once (Dask's default retries it three times on other workers first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from certify.sweep import certificate_file, primes_between, run_sweep
from conftest import run_certify
from test_sweep import plant_bad_files

distributed = pytest.importorskip("distributed")

DASK = str(Path(sys.executable).with_name("dask"))
#: Seconds for the scheduler and two workers to come up on a loaded 2-core machine (measured: 3-6 s).
STARTUP_SECONDS = 60


def _outputs(folder: Path) -> dict:
    """Every file a sweep writes (certificates, summary.json, summary.csv, primes-*.csv, failures.json, run.json),
    by its path under the folder, as bytes."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The address of a `dask scheduler` with two single-threaded `dask worker` processes, all started here and
    stopped (by their process ids) at the end."""
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    environment = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", str(scheduler_file)], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, "the dask scheduler did not start"
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for name in ("w1", "w2"):
            processes.append(subprocess.Popen(
                [DASK, "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard", "--name", name],
                env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=STARTUP_SECONDS)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_the_sweep_on_a_scheduler_writes_the_bytes_of_the_local_pool(tmp_path, scheduler):
    """Every theorem a sweep takes by default over 5..40, --jobs 2 against --scheduler: every file the same bytes,
    the same stdout."""
    from certify.theorems.registry import swept_by_default

    THEOREMS = swept_by_default()

    here = run_certify("sweep", "--primes", "5..40", "--jobs", 2, "--out", tmp_path / "here", timeout=600)
    there = run_certify("sweep", "--primes", "5..40", "--scheduler", scheduler, "--out", tmp_path / "there",
                        timeout=600)
    assert here.returncode == there.returncode == 0, (here.stderr, there.stderr)
    local, remote = _outputs(tmp_path / "here"), _outputs(tmp_path / "there")
    assert set(local) == set(remote) and len(local) == len(THEOREMS) * (len(primes_between(5, 40)) + 1) + 4
    assert [name for name in local if local[name] != remote[name]] == []
    assert here.stdout.split("\n")[:-2] == there.stdout.split("\n")[:-2]  # the last line says the seconds


def test_a_resumed_sweep_on_a_scheduler_redoes_exactly_the_bad_files(tmp_path, scheduler):
    """The files of test_sweep's resume test, planted in two copies of one sweep: resumed locally and on the
    scheduler, the same files are redone with the same reasons and the folders end byte for byte the same."""
    import shutil

    primes = primes_between(5, 40)
    first = run_sweep(primes, ["dead", "gd"], 2, tmp_path / "here")
    assert first.certified == {"dead": len(primes), "gd": len(primes)}
    bad = plant_bad_files(tmp_path / "here")
    shutil.copytree(tmp_path / "here", tmp_path / "there")
    local = run_sweep(primes, ["dead", "gd"], 2, tmp_path / "here")
    remote = run_sweep(primes, ["dead", "gd"], 2, tmp_path / "there", scheduler=scheduler)
    assert {(theorem, p) for theorem in remote.redone for p in remote.redone[theorem]} == set(bad)
    for theorem in ("dead", "gd"):
        assert remote.redone[theorem] == {p: reason.replace(str(tmp_path / "here"), str(tmp_path / "there"))
                                          for p, reason in local.redone[theorem].items()}
    assert remote.skipped == local.skipped and remote.certified == local.certified == {"dead": 0, "gd": 0}
    assert _outputs(tmp_path / "here") == _outputs(tmp_path / "there")


def test_a_worker_that_dies_fails_only_its_prime(tmp_path, scheduler, monkeypatch):
    """make_chunk and judge_chunk replaced by closures (sent to the workers by value) that kill their worker
    process at p = 19 (certifying) and p = 7 (comparing): the chunks holding them fail, their primes are tried
    one per task, and only those two primes are affected: 7 is certified again (a comparison that kills its
    worker is no pass), 19 is a failure; the workers come back (their nannies restart them)."""
    import certify.sweep as sweep

    out, primes = tmp_path / "s", [5, 7, 11, 13, 17, 19]
    run_sweep(primes, ["dead"], 2, out)
    certificate_file(out, "dead", 17).unlink()
    certificate_file(out, "dead", 19).unlink()
    real_make, real_judge = sweep.make_chunk, sweep.judge_chunk

    def dying_make(theorem, chunk, spec):
        if 19 in chunk:
            os._exit(4)
        return real_make(theorem, chunk, spec)

    def dying_judge(theorem, items, spec, write):
        if any(p == 7 for p, *_ in items):
            os._exit(3)
        return real_judge(theorem, items, spec, write)

    monkeypatch.setattr(sweep, "make_chunk", dying_make)
    monkeypatch.setattr(sweep, "judge_chunk", dying_judge)
    report = run_sweep(primes, ["dead"], 2, out, scheduler=scheduler)
    assert list(report.redone["dead"]) == [7] and report.redone["dead"][7].startswith(
        "error: checking it failed: raised KilledWorker")
    assert list(report.failed["dead"]) == [19] and report.failed["dead"][19].startswith(
        "certifying failed: raised KilledWorker")
    assert report.skipped["dead"] == 3 and report.certified["dead"] == 1  # 5, 11, 13 kept; 17 made
    assert json.loads((out / "failures.json").read_text()) == {"dead-19": report.failed["dead"][19]}
    monkeypatch.setattr(sweep, "make_chunk", real_make)
    monkeypatch.setattr(sweep, "judge_chunk", real_judge)
    again = run_sweep(primes, ["dead"], 2, out, scheduler=scheduler)
    assert again.skipped["dead"] == 5 and again.certified["dead"] == 1 and again.failed["dead"] == {}


@pytest.mark.parametrize("address, words", [("tcp://127.0.0.1:notaport", ["port"]), ("foo://x:1", ["foo"]),
                                            ("", ["address"])])
def test_a_malformed_scheduler_address_is_one_line_and_makes_nothing(tmp_path, address, words):
    result = run_certify("sweep", "--primes", "5..11", "--theorems", "dead", "--scheduler", address,
                         "--out", tmp_path / "s", timeout=60)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "--scheduler" in lines[0] and all(word in lines[0] for word in words)
    assert not (tmp_path / "s").exists()


def test_a_scheduler_that_is_not_there_is_one_line_and_makes_nothing(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_certify("sweep", "--primes", "5..11", "--theorems", "dead", "--scheduler", f"tcp://127.0.0.1:{port}",
                         "--connect-timeout", 3, "--out", tmp_path / "s", timeout=60)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], result.stderr
    assert not (tmp_path / "s").exists()
