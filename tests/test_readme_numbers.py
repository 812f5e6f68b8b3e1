"""examples/readme_numbers.py: every README number agrees with what makes it, and the check sees a changed one.

The certified numbers are built and checked in-process (the script's own generators), the law tables come from
the kept summaries and the benchmark figures from the kept measurements, so the whole ``--check`` takes a few
seconds. The numbers are generated once for the module; the README copies are then compared in-process, and
the command line itself runs on the real README and on bad input.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from fractions import Fraction

import pytest

from conftest import ROOT

SCRIPT = ROOT / "examples" / "readme_numbers.py"


def _module():
    spec = importlib.util.spec_from_file_location("readme_numbers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return _module()


@pytest.fixture(scope="module")
def numbers(script):
    return script.generate(script.read_kept(), lambda line: None)


@pytest.fixture(scope="module")
def readme():
    return (ROOT / "README.md").read_text(encoding="utf-8")


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def test_every_readme_number_agrees_with_its_generator():
    result = _run("--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 differ, 0 anchors missing, 0 tokens uncovered" in result.stderr


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.mark.parametrize("old, new, key", [
    ("the dead box has 10^-33.75 and", "the dead box has 10^-33.74 and", "dead-13/gaussian_probability/log10"),
    ("(up to 138 s)", "(up to 148 s)", "bench/law-seconds/max"),  # a kept benchmark figure
    ("| flow | 7 | 1068 | 1 (0.09%)", "| flow | 7 | 1068 | 2 (0.09%)", "law/outcome-table"),
    ("(23% against 0.6%)", "(23% against 0.5%)", "law/flow-5/memorises_one_entry%"),  # 0.56% is 0.6% at 1 decimal
])
def test_a_changed_number_is_named_and_regenerating_restores_it(script, numbers, readme, old, new, key):
    changed = _once(readme, old, new)
    findings, missing, uncovered = script.find_numbers(changed, numbers)
    differing = [finding for finding in findings if not finding.agree]
    assert [finding.key for finding in differing] == [key] and not missing and not uncovered
    assert script.rewritten(changed, findings) == readme


def test_the_command_names_a_changed_number_changes_nothing_and_writes_it_back(tmp_path, readme):
    old, new = "the dead box has 10^-33.75 and", "the dead box has 10^-33.74 and"
    copy = tmp_path / "README.md"
    copy.write_text(_once(readme, old, new), encoding="utf-8")
    result = _run("--check", "--readme", str(copy))
    line = readme[:readme.index(old)].count("\n") + 1
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"README.md:{line}: dead-13/gaussian_probability/log10: the README says '10^-33.74', generated " \
           f"'10^-33.75'" in result.stdout
    assert copy.read_text(encoding="utf-8") == _once(readme, old, new)  # --check changes nothing
    assert _run("--readme", str(copy)).returncode == 0
    assert copy.read_text(encoding="utf-8") == readme


def test_a_number_no_generator_covers_is_listed(script, numbers, readme):
    changed = _once(readme, "only one printed here is the floor under the dead fraction.",
                    "only one printed here is the floor under the dead fraction, about 12.5% of it.")
    findings, missing, uncovered = script.find_numbers(changed, numbers)
    assert all(finding.agree for finding in findings) and not missing
    assert [token for _, token in uncovered] == ["12.5%"]


def test_an_anchor_whose_words_changed_is_missing(script, numbers, readme):
    changed = _once(readme, "is a certified rank-one matrix of norm", "is a certified rank-one matrix, norm")
    findings, missing, uncovered = script.find_numbers(changed, numbers)
    assert len(missing) == 1 and "rank-one matrix of norm" in missing[0]
    assert [token for _, token in uncovered] == ["1.25632159812..."]


def test_a_rounded_figure_agrees_only_at_the_digits_it_shows(script):
    measured = script.Measured(Fraction("0.5618"), "a share")
    assert script.agrees(measured, "0.6", remeasured=False) and script.agrees(measured, "0.56", remeasured=False)
    assert not script.agrees(measured, "0.5", remeasured=False)  # 0.5618 is not 0.5 at one decimal
    assert [script.shown_rounded(Fraction(v), like) for v, like in
            [("0.0307", "0.3"), ("219.3", "65"), ("25.86", "25.8"), ("0.47", "1"), ("0", "0")]] == \
        ["0.03", "219", "25.9", "0.5", "0"]
    # measured again, a wall time agrees within its band's factor of the README's figure, and not beyond it
    factor, _ = script.BANDS["wall"]
    for value, inside in ((Fraction("0.19") * factor, True), (Fraction("0.19") / factor, True),
                          (Fraction("0.19") * factor * Fraction(11, 10), False)):
        timing = script.Measured(value, "a wall time", "wall")
        assert script.agrees(timing, "0.19", remeasured=True) == inside
        assert not script.agrees(timing, "0.19", remeasured=False)  # against the kept value: its digits


def test_every_anchor_starts_and_ends_with_words(script):
    """A leading or trailing {key} would match from anywhere: the words around a number are what find it."""
    for anchor in script.ANCHORS:
        parts = script._PLACEHOLDER.split(anchor)
        assert parts[0].strip() and parts[-1].strip(), anchor


@pytest.mark.parametrize("args, message", [
    (["--readme", "/nonexistent/README.md"], "cannot read"),
    (["--readme", "/dev/null"], "not a regular file"),
    (["--chek"], "unrecognized arguments: --chek"),
    (["--only", "sweep"], "--only"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = _run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr
