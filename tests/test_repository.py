"""The repository's own contracts: the README's commands, tests/setup-and-run and CI agree."""

import os
import re
import shutil
import stat
import subprocess

from conftest import ROOT

SETUP = ROOT / "tests" / "setup-and-run"


def readme_commands():
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_readme_starts_with_exactly_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("certify dead --p 13")
    assert commands[1] == "bash tests/setup-and-run"


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in ci


def test_setup_script_is_strict_executable_and_ends_in_pytest():
    text = SETUP.read_text()
    assert SETUP.stat().st_mode & stat.S_IXUSR
    assert text.startswith("#!/usr/bin/env bash\n") and "\nset -euo pipefail\n" in text
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert lines[-3:] == [
        "python3 -m venv .venv",
        ".venv/bin/pip install '.[test]'",
        '.venv/bin/python -m pytest -n "$(nproc)" "$@"',
    ]
    # -n is pytest-xdist's: the test extra must install it
    assert '"pytest-xdist' in (ROOT / "pyproject.toml").read_text()
    assert "command -v pdflatex|texlive-latex-base" in text
    assert "--no-install-recommends" in text and "apt-get update -qq" in text


def test_setup_script_not_root_and_missing_prints_one_line_and_stops(tmp_path):
    # A PATH with only what the script's own lines use, no pdflatex, and an
    # `id` that says uid 1000: the script must name the package and exit 1
    # before it touches apt, the venv or pip.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname",):
        os.symlink(shutil.which(tool), bin_dir / tool)
    for tool in ("id", "apt-get", "python3"):
        fake = bin_dir / tool
        marker = tmp_path / f"{tool}-ran"
        body = "echo 1000" if tool == "id" else f"touch {marker}; exit 0"
        fake.write_text(f"#!{shutil.which('bash')}\n{body}\n")
        fake.chmod(0o755)
    result = subprocess.run(
        [shutil.which("bash"), str(SETUP)], env={"PATH": str(bin_dir)},
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "texlive-latex-base" in result.stderr and "apt-get install" in result.stderr
    assert not (tmp_path / "apt-get-ran").exists() and not (tmp_path / "python3-ran").exists()


def test_the_tests_moved_to_the_front_exist():
    """tests/conftest.py's FIRST names tests by name: a renamed test would silently leave the front of the run."""
    from conftest import FIRST

    defined = {match for path in (ROOT / "tests").glob("test_*.py")
               for match in re.findall(r"^def (test_\w+)\(", path.read_text(), flags=re.M)}
    assert set(FIRST) <= defined, set(FIRST) - defined
