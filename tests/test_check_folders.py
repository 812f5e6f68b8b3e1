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
    assert "6 certificates: 3 verified, 3 rejected, 0 malformed" in result.stdout  # g.json: checked, no tie
    assert f"{tmp_path / 'g.json'}: verified: dead, p = 13," in result.stdout  # it says what it holds
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
    os.mkfifo(folder / "other.json")  # any *.json is checked: refused from stat, never opened
    os.mkfifo(folder / "pipe")  # not *.json: skipped, and said
    assert folder / "dead-11.json" in certificate_files([folder])
    result = run_certify("check", folder, "--jobs", jobs, timeout=60)  # a read of the FIFO would block forever
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"{folder / 'dead-11.json'}: malformed: not a regular file (a FIFO)\n"
                             f"{folder / 'other.json'}: malformed: not a regular file (a FIFO)\n"
                             f"certify check: skipped 1 entry: not named *.json (1): {folder / 'pipe'} (a FIFO)\n")
    assert "6 certificates: 4 verified, 0 rejected, 2 malformed" in result.stdout


def test_folders_are_walked_without_following_links(folder):
    os.symlink(folder, folder / "loop")  # a cycle if links to folders were followed
    assert [f.name for f in certificate_files([folder])] == ["dead-5.json", "dead-7.json", "dead-13.json",
                                                            "dead-101.json"]


# --- issue 21, section 4: every *.json of a folder is checked, and what is not checked is said ---------

def test_every_json_is_checked_and_named_by_what_it_holds(folder, dead_certificates):
    """Files not named THEOREM-P.json were skipped in silence ("no certificate files found", or a count
    without them); now each is checked and its verified line names the theorem and p read from it."""
    (folder / "sub").mkdir()
    (folder / "sub" / "my certificate.json").write_text(dumps(dead_certificates[7]))
    (folder / "thirteen.JSON").write_text(dumps(dead_certificates[13]))
    (folder / "broken.json").write_text("{")
    result = run_certify("check", folder)
    assert result.returncode == 2, result.stderr
    assert result.stdout.splitlines() == [
        f"{folder / 'thirteen.JSON'}: verified: dead, p = 13, {len(dead_certificates[13]['claims'])} claims verified "
        f"(radius {dead_certificates[13]['radius']}, 128 bits)",
        f"{folder / 'sub' / 'my certificate.json'}: verified: dead, p = 7, {len(dead_certificates[7]['claims'])} "
        f"claims verified (radius {dead_certificates[7]['radius']}, 128 bits)",
        "7 certificates: 6 verified, 0 rejected, 1 malformed, 0 could not be checked"]
    assert result.stderr.splitlines() == [f"{folder / 'broken.json'}: malformed: " +
                                          result.stderr.split(": malformed: ")[1].splitlines()[0]]


def test_a_folder_of_other_names_only_is_checked(tmp_path, dead_certificates):
    (tmp_path / "a.json").write_text(dumps(dead_certificates[5]))
    result = run_certify("check", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{tmp_path / 'a.json'}: verified: dead, p = 5,")
    assert result.stdout.endswith("1 certificates: 1 verified, 0 rejected, 0 malformed, 0 could not be checked\n")
    assert result.stderr == ""


def test_what_is_skipped_is_said_in_one_line(folder):
    (folder / "notes.txt").write_text("not a certificate")
    (folder / "dead-5.json.rejected").write_text("{")
    os.mkfifo(folder / "pipe")
    os.symlink(folder, folder / "loop")
    (folder / "summary.json").write_text("{}")  # a sweep's own records: not certificates
    (folder / "failures.json").write_text("{}")
    result = run_certify("check", folder, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "4 certificates: 4 verified, 0 rejected, 0 malformed, 0 could not be checked\n"
    assert result.stderr == (
        f"certify check: skipped 6 entries: a link to a folder, not followed (1): {folder / 'loop'}; "
        f"not named *.json (3): {folder / 'dead-5.json.rejected'}, {folder / 'notes.txt'}, {folder / 'pipe'} "
        f"(a FIFO); a sweep's failure record (1): {folder / 'failures.json'}; "
        f"a sweep's summary (1): {folder / 'summary.json'}\n")


def test_the_skip_line_names_three_entries_a_reason_and_counts_the_rest(tmp_path, dead_certificates):
    for k in range(5):
        (tmp_path / f"note-{k}.txt").write_text("")
    (tmp_path / "x.json").write_text(dumps(dead_certificates[5]))
    result = run_certify("check", tmp_path)
    assert result.returncode == 0 and len(result.stderr.splitlines()) == 1
    assert result.stderr.endswith(f"{tmp_path / 'note-2.txt'} and 2 more\n") and "note-3" not in result.stderr


def test_nothing_to_check_names_what_was_there(tmp_path):
    (tmp_path / "notes.txt").write_text("")
    result = run_certify("check", tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"certify check: error: no certificate files (*.json) found in {tmp_path}; skipped 1 "
                             f"entry: not named *.json (1): {tmp_path / 'notes.txt'}\n")


def test_a_folder_that_cannot_be_listed_is_exit_2(folder, monkeypatch, capsys):
    """os.walk ignores a folder it cannot read unless told; the check says so and does not exit 0."""
    (folder / "locked").mkdir()
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert main(["check", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert err == f"{folder / 'locked'}: cannot list this folder: Permission denied\n"
    assert out == "4 certificates: 4 verified, 0 rejected, 0 malformed, 0 could not be checked\n"


def test_a_name_of_the_pattern_still_promises_its_content(folder, dead_certificates):
    (folder / "dead-11.json").write_text(dumps(dead_certificates[5]))
    (folder / "mine.json").write_text(dumps(dead_certificates[5]))
    result = run_certify("check", folder)
    assert result.returncode == 1
    assert result.stderr == (f"{folder / 'dead-11.json'}: rejected: the name dead-11.json promises dead at p = 11 "
                             "but the file holds dead at p = 5\n")
