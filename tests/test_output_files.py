"""Output files (issue 21, section 4): an existing file is replaced, as Unix does, but atomically (a failure
leaves it as it was, never half-written), never by a certificate that fails the checker, and with
``replaced FILE`` on stderr; for every command that writes a file."""

import json
import os
import stat

import pytest

import certify.theorems.dead
from certify.certificate import dumps
from certify.cli import main
from conftest import run_certify


def test_every_command_says_what_it_replaced(tmp_path):
    certificate, trajectory, picture = tmp_path / "dead-5.json", tmp_path / "t.json", tmp_path / "t.png"
    commands = [
        (["dead", "-p", 5, "--out", certificate], [certificate]),
        (["simulate", "dead", "-p", 5, "--out", trajectory], [trajectory]),
        (["plot", "dead", "-p", 5, "--out", picture], [picture]),
        (["latex", "dead", "-p", 5, "--no-pdf", "--out", tmp_path / "tex"], [tmp_path / "tex" / "dead-5.tex"]),
        (["coq", certificate, "--no-compile", "--out", tmp_path / "coq"], [tmp_path / "coq" / "dead_5.v"]),
    ]
    for args, outputs in commands:
        first = run_certify(*args, timeout=300)
        assert first.returncode == 0 and "replaced" not in first.stderr, first.stderr
        again = run_certify(*args, timeout=300)
        assert again.returncode == 0, again.stderr
        assert [line for line in again.stderr.splitlines() if line.startswith("replaced")] == \
            [f"replaced {output}" for output in outputs], (args, again.stderr)
    leftovers = [path.name for path in tmp_path.rglob("*") if ".tmp" in path.name]
    assert leftovers == []  # no temporary file stays behind


def test_a_new_file_is_written_with_the_usual_mode(tmp_path):
    out = tmp_path / "dead-5.json"
    assert run_certify("dead", "-p", 5, "--out", out).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_a_device_is_written_in_place(tmp_path):
    """--out /dev/null writes to the device (as the shell's > does), never renames a file over it."""
    result = run_certify("dead", "-p", 5, "--out", os.devnull)
    assert result.returncode == 0 and "replaced" not in result.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_link_is_written_through(tmp_path):
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    assert run_certify("dead", "-p", 5, "--out", link).returncode == 0
    assert link.is_symlink() and json.loads(target.read_text())["p"] == 5


def test_a_certificate_that_fails_the_checker_never_replaces_a_file(tmp_path, monkeypatch, capsys,
                                                                      dead_certificates):
    """The builder's certificate is checked before it replaces a file: here a builder bug is simulated by a
    certificate whose hitting time is narrowed past the truth; the file there stays as it was."""
    genuine = certify.theorems.dead.certify_dead

    def broken(p, **options):
        result = genuine(p, **options)
        claim = result.certificate["claims"]["hitting_time"]
        claim["hi"] = claim["lo"]
        return result

    out = tmp_path / "dead-5.json"
    out.write_text(dumps(dead_certificates[5]))
    before = out.read_bytes()
    monkeypatch.setattr(certify.theorems.dead, "certify_dead", broken)
    assert main(["dead", "-p", "5", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("certify dead: error: the certificate just made: rejected: hitting_time:")
    assert len(err.splitlines()) == 1 and "nothing was written" in err
    assert out.read_bytes() == before and sorted(tmp_path.iterdir()) == [out]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch, capsys):
    """A writer that fails half-way (a full disk, a bug) used to leave a truncated file in place."""
    import importlib

    simulate = importlib.import_module("certify.simulate")  # the module; certify.simulate is the API function
    out = tmp_path / "t.json"
    out.write_text("the old trajectory\n")

    def half_then_fail(record, path):
        with open(path, "w") as handle:
            handle.write('{"half": ')
        raise ValueError("the disk is full (simulated)")

    monkeypatch.setattr(simulate, "save_trajectory", half_then_fail)
    assert main(["simulate", "dead", "-p", "5", "--out", str(out)]) == 2
    assert "the disk is full" in capsys.readouterr().err
    assert out.read_text() == "the old trajectory\n" and sorted(tmp_path.iterdir()) == [out]


def test_write_output_guarantees(tmp_path):
    from certify.files import write_output, write_text_output

    path = tmp_path / "a.txt"
    assert write_text_output(path, "one\n") is False and write_text_output(path, "two\n") is True
    assert path.read_text() == "two\n"
    with pytest.raises(KeyboardInterrupt):  # even an interrupt leaves the old file and no temporary one
        write_output(path, lambda temporary: (temporary.write_text("thr"), (_ for _ in ()).throw(KeyboardInterrupt)))
    assert path.read_text() == "two\n" and os.listdir(tmp_path) == ["a.txt"]
    with pytest.raises(IsADirectoryError):
        write_text_output(tmp_path, "x")
    with pytest.raises(FileNotFoundError) as missing:
        write_text_output(tmp_path / "no" / "b.txt", "x")
    assert missing.value.filename == str(tmp_path / "no" / "b.txt")  # the user's name, not the temporary one
    if os.getuid() != 0:  # root writes anywhere
        path.chmod(0o444)
        with pytest.raises(PermissionError):  # like the shell's >, a read-only file is not replaced
            write_text_output(path, "three\n")


def test_a_file_whose_folder_takes_no_new_file_is_named_with_why(tmp_path, monkeypatch):
    """A red-team saw `--out /proc/version` answered 'No such file or directory' about a file that exists: the
    failure was making the temporary file beside it. The message now says so (here a folder refusing new files is
    simulated by os.open failing with ENOENT for the temporary name only)."""
    import errno

    from certify.files import write_text_output

    path = tmp_path / "there.txt"
    path.write_text("old\n")
    real_open = os.open

    def no_new_file(name, flags, *args):
        if os.fspath(name).endswith(".tmp.txt"):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(name))
        return real_open(name, flags, *args)

    monkeypatch.setattr(os, "open", no_new_file)
    with pytest.raises(FileNotFoundError) as failure:
        write_text_output(path, "new\n")
    assert failure.value.filename == str(path)
    assert failure.value.strerror == "cannot make a new file in its folder (No such file or directory)"
    assert path.read_text() == "old\n"
