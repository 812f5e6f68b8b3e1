"""Layering: the kernel and the checker stay free of numpy, scipy and sympy; `certify dead` of sympy."""

import subprocess
import sys

from conftest import ROOT

HEAVY = ("numpy", "scipy", "sympy", "matplotlib")


def modules_after(code: str) -> set:
    script = f"import sys\n{code}\nprint(','.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(result.stdout.strip().splitlines()[-1].split(","))


def heavy(modules: set) -> set:
    return {name for name in modules if name.split(".")[0] in HEAVY}


def test_kernel_and_checker_import_no_heavy_libraries():
    assert heavy(modules_after("import certify.kernel, certify.kernel.dead, certify.check")) == set()


def test_certify_dead_imports_no_sympy_numpy_or_matplotlib(tmp_path):
    out = tmp_path / "c.json"
    modules = modules_after("from certify.cli import main\n"
                            f"assert main(['dead', '--p', '13', '--out', r'{out}']) == 0")
    assert heavy(modules) == set()


def test_certify_check_imports_no_heavy_libraries(tmp_path):
    out = tmp_path / "c.json"
    subprocess.run([sys.executable, "-m", "certify", "dead", "--p", "5", "--out", str(out)], cwd=ROOT, check=True,
                   capture_output=True)
    modules = modules_after(f"from certify.cli import main\nassert main(['check', r'{out}']) == 0")
    assert heavy(modules) == set()
