"""Compile a Coq file with ``coqc`` and report the outcome and the time it took."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CompileResult:
    """``ok``: coqc exited 0; ``seconds``: its wall-clock time; ``message``: the last lines of its output."""

    path: Path
    ok: bool
    seconds: float
    message: str


def coqc_path() -> str | None:
    """The ``coqc`` on the PATH, or None."""
    return shutil.which("coqc")


def compile_file(path, timeout: float = 600.0) -> CompileResult:
    """Run ``coqc -q FILE`` in the file's folder (it writes FILE.vo there). Requires coqc on the PATH."""
    path = Path(path)
    coqc = coqc_path()
    if coqc is None:
        raise FileNotFoundError("coqc is not on the PATH (Debian: apt-get install coq libcoq-interval libcoq-coqprime)")
    start = time.perf_counter()
    try:
        done = subprocess.run([coqc, "-q", path.name], cwd=path.parent, capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        return CompileResult(path, False, time.perf_counter() - start, f"coqc timed out after {timeout:.0f} s")
    seconds = time.perf_counter() - start
    for suffix in (".glob", ".vok", ".vos"):  # keep the folder to the .v and its .vo
        path.with_suffix(suffix).unlink(missing_ok=True)
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if line.strip() and "ambiguous-paths" not in line and "coercion path" not in line.lower()
             and line.strip() != "Warning:"]
    return CompileResult(path, done.returncode == 0, seconds, "\n".join(lines[-12:]))
