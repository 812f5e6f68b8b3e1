"""certify check on folders and many files: a name promises its content, and one bad file is that file's verdict.

* A file named THEOREM-P.json must hold that theorem at that p (folder mode and files named so).
* Any exception while checking one file, or its worker process dying, is that file's verdict
  (status "error", exit 2, never 1); the other files are still checked, serially and with --jobs.
* A FIFO in a folder gets a one-line verdict and never hangs the check.
"""

import os

import pytest

import certify.check
from certify.certificate import dumps
from certify.check import Verdict
from certify.cli import main
from certify.sweep import ERROR, certificate_files, check_certificate, check_files, exit_code
from conftest import run_certify


@pytest.fixture
def folder(tmp_path, dead_certificates):
    """dead-5, dead-7, dead-13 and dead-101.json, each holding its own genuine certificate."""
    for p, certificate in dead_certificates.items():
        (tmp_path / f"dead-{p}.json").write_text(dumps(certificate))
    return tmp_path


def test_a_name_promises_its_theorem_and_p(tmp_path, dead_certificates, gd_certificates):
    thirteen = dumps(dead_certificates[13])
    for name in ("dead-13.json", "dead-23.json", "gd-13.json", "dead-013.json", "g.json"):
        (tmp_path / name).write_text(thirteen)
    (tmp_path / "gd-5.json").write_text(dumps(gd_certificates[(5, (1, 1))]))
    result = run_certify("check", tmp_path)
    assert result.returncode == 1, result.stderr
    assert "5 certificates: 2 verified, 3 rejected, 0 malformed" in result.stdout  # g.json is not of the pattern
    lines = result.stderr.splitlines()
    assert len(lines) == 3
    for line, promised in zip(sorted(lines), ("dead at p = 013", "dead at p = 23", "gd at p = 13")):
        assert line.endswith(f": rejected: the name {line.split('/')[-1].split(':')[0]} promises {promised} but the "
                             f"file holds dead at p = 13"), line
    named = run_certify("check", tmp_path / "dead-23.json")
    assert named.returncode == 1 and "promises dead at p = 23" in named.stderr and "dead at p = 13" in named.stderr
    assert run_certify("check", tmp_path / "g.json").returncode == 0  # other names: checked without the tie
    assert run_certify("check", tmp_path / "dead-13.json", tmp_path / "gd-5.json").returncode == 0


def test_the_tie_comes_before_any_recomputation(tmp_path, dead_certificates, monkeypatch):
    (tmp_path / "dead-7.json").write_text(dumps(dead_certificates[5]))
    monkeypatch.setattr(certify.check, "check_bytes", lambda *a: pytest.fail("recomputed a mismatched file"))
    verdict = check_certificate(tmp_path / "dead-7.json")
    assert verdict.status == "rejected" and "promises dead at p = 7" in verdict.message


def test_the_error_status_exits_2():
    verdict = Verdict("x.json", ERROR, "the checker failed on this file: MemoryError")
    assert exit_code(verdict) == 2 and verdict.exit_code == 2
    assert verdict.line() == "x.json: error: the checker failed on this file: MemoryError"


def raising_for(name, error):
    real = certify.check.check_bytes

    def check_bytes(data, source="<input>"):
        if source.endswith(name):
            raise error
        return real(data, source)

    return check_bytes


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("error", [RuntimeError("injected"), MemoryError(), RecursionError("maximum recursion depth"),
                                   ValueError("Exceeds the limit (4300 digits) for integer string conversion")])
def test_an_exception_is_that_files_verdict(folder, monkeypatch, jobs, error):
    monkeypatch.setattr(certify.check, "check_bytes", raising_for("dead-7.json", error))  # workers fork with it
    files = certificate_files([folder])
    verdicts = check_files(files, jobs)
    assert [v.source for v in verdicts] == [str(f) for f in files]
    by_name = {os.path.basename(v.source): v for v in verdicts}
    assert by_name["dead-7.json"].status == ERROR and exit_code(by_name["dead-7.json"]) == 2
    assert by_name["dead-7.json"].message.startswith(f"the checker failed on this file: {type(error).__name__}")
    assert all(v.status == "verified" for name, v in by_name.items() if name != "dead-7.json")


def dying_for(name):
    parent, real = os.getpid(), certify.check.check_bytes

    def check_bytes(data, source="<input>"):
        if source.endswith(name) and os.getpid() != parent:
            os._exit(9)  # the worker process dies mid-check: no exception, no verdict
        return real(data, source)

    return check_bytes


def test_a_worker_dying_is_that_files_verdict(tmp_path, dead_certificates, monkeypatch):
    for copy in range(3):  # 12 files, so that the pool has tasks pending when the worker dies
        for p, certificate in dead_certificates.items():
            (tmp_path / f"c{copy}").mkdir(exist_ok=True)
            (tmp_path / f"c{copy}" / f"dead-{p}.json").write_text(dumps(certificate))
    monkeypatch.setattr(certify.check, "check_bytes", dying_for(os.path.join("c1", "dead-7.json")))
    files = certificate_files([tmp_path])
    verdicts = check_files(files, 2)
    assert [v.source for v in verdicts] == [str(f) for f in files] and len(files) == 12
    bad = [v for v in verdicts if v.status != "verified"]
    assert [v.source for v in bad] == [str(tmp_path / "c1" / "dead-7.json")]
    assert bad[0].status == ERROR and "died" in bad[0].message


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_cli_prints_one_line_per_bad_file_and_the_count(folder, monkeypatch, capsys, jobs):
    monkeypatch.setattr(certify.check, "check_bytes", raising_for("dead-7.json", RecursionError("deep")))
    (folder / "dead-11.json").write_text("{")
    assert main(["check", str(folder), "--jobs", jobs]) == 2  # a crash is exit 2, never 1
    out, err = capsys.readouterr()
    assert out == "5 certificates: 3 verified, 0 rejected, 1 malformed, 1 could not be checked\n"
    lines = err.splitlines()
    assert len(lines) == 2 and "Traceback" not in err
    assert lines[0].startswith(f"{folder / 'dead-7.json'}: error: the checker failed on this file: RecursionError")
    assert lines[1].startswith(f"{folder / 'dead-11.json'}: malformed: ")


def test_jobs_with_files_prints_the_count(folder, capsys):
    files = [str(folder / "dead-5.json"), str(folder / "dead-7.json")]
    assert main(["check", *files, "--jobs", "2"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[-1] == "2 certificates: 2 verified, 0 rejected, 0 malformed, 0 could not be checked"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_fifo_in_a_folder_is_one_line_and_never_hangs(folder, jobs):
    os.mkfifo(folder / "dead-11.json")
    os.mkfifo(folder / "other.json")  # not of the pattern: not listed, so never opened either
    assert folder / "dead-11.json" in certificate_files([folder])
    result = run_certify("check", folder, "--jobs", jobs, timeout=60)  # a read of the FIFO would block forever
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"{folder / 'dead-11.json'}: malformed: not a regular file (a FIFO)\n"
    assert "5 certificates: 4 verified, 0 rejected, 1 malformed" in result.stdout


def test_folders_are_walked_without_following_links(folder):
    os.symlink(folder, folder / "loop")  # a cycle if links to folders were followed
    assert [f.name for f in certificate_files([folder])] == ["dead-5.json", "dead-7.json", "dead-13.json",
                                                            "dead-101.json"]
