"""examples/law/make_law_table.py: the README's law tables from a tiny run (p = 5, two samples, horizon 10)."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

from certify.law.runner import wilson_interval

SCRIPT = ROOT / "examples" / "law" / "make_law_table.py"


def _module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_law_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_default_sample_count_gives_intervals_of_three_points():
    def widest(n):
        return max(max(k / n - wilson_interval(k, n)[0], wilson_interval(k, n)[1] - k / n) for k in range(n + 1))

    samples = _module().SAMPLES
    assert widest(samples) <= 0.03 < widest(samples - 1)


def test_a_tiny_run_gives_the_tables_from_its_summaries(tmp_path):
    kept = tmp_path / "summaries"
    (kept).mkdir()
    (kept / "summary-flow-7.json").write_text(json.dumps({"p": 7, "outcomes": {}}))  # a version before staircases
    result = subprocess.run([sys.executable, str(SCRIPT), "--primes", "5", "--samples", "2", "--gd-samples", "2",
                             "--horizon", "10", "--jobs", "1", "--runs", str(tmp_path / "runs"), "--summaries",
                             str(kept)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "summary-flow-7.json is of a version before the staircase outcome" in result.stderr
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| dynamics | p | n |"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert columns[3:9] == ["dead", "memorises_one_entry", "staircase", "multi_gate_other", "single_frequency",
                            "undecided"]
    for dynamics, label in (("flow", "flow"), ("gd", "gd, eta 1")):
        summary = json.loads((kept / f"summary-{dynamics}-5.json").read_text())
        assert summary == json.loads((tmp_path / "runs" / f"{dynamics}-5" / "summary.json").read_text())
        row = next(line for line in lines if line.startswith(f"| {label} | 5 | 2 |"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for name, cell in zip(columns[3:9], cells[3:9]):
            entry = summary["outcomes"][name]
            assert cell.startswith(f"{entry['count']} ({100 * entry['fraction']:.2f}%)"), (name, cell)
        assert cells[-1] == "1.68E-3"  # the certified floor at p = 5 (0.00168567991264), rounded down
    assert any(line.startswith("| dynamics | p | (n, k) | staircases |") for line in lines)
    assert not any(line.startswith("| flow | 7 |") for line in lines)


def test_the_tables_from_summaries(tmp_path):
    module = _module()
    summary = {"p": 5, "samples": 10, "dynamics": "flow",
               "outcomes": {name: {"count": 2 * (name == "staircase"), "fraction": 0.2 * (name == "staircase"),
                                   "ci_low": 0.0, "ci_high": 0.5} for name in module.OUTCOMES},
               "staircases": {"k": {"1": {"fraction": 0.1}, "3": {"fraction": 0.2}},
                              "n_k": {"2,3": {"count": 2, "max_fourier": {"mean": 0.87, "min": 0.86, "max": 0.88},
                                              "max_fourier_limit": 0.872678}}},
               "certified": {"dead_region_lower_bound": "0.00168567991264"}}
    text = module.table([summary])
    assert "| flow | 5 | 10 | 0 (0.00%) [0.00%, 50.00%] | 0 (0.00%) [0.00%, 50.00%] | 2 (20.00%) [0.00%, 50.00%] |" \
        in text
    assert "| 1: 10.00%, 3: 20.00% | 1.68E-3 |" in text
    assert module.staircase_table([summary]).splitlines()[-1] == \
        "| flow | 5 | (2, 3) | 2 | 0.8700 [0.8600, 0.8800] | 0.8727 |"
    twins = {**summary, "staircases": {**summary["staircases"], "k2_degenerate_twin": 3,
                                       "k2_twin_max_fourier": {"mean": 0.83, "min": 0.82, "max": 0.84},
                                       "k2_twin_max_fourier_limit": 0.831269}}
    assert module.staircase_table([twins]).splitlines()[2] == \
        "| flow | 5 | (1, 2) twin, regime II | 3 | 0.8300 [0.8200, 0.8400] | 0.8313 (S.19) |"
