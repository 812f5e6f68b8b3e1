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
    """``ok``: coqc exited 0; ``seconds``: its wall-clock time; ``message``: the last lines of its output;
    ``timed_out``: coqc was stopped at the timeout (then ``ok`` is False and the file has no verdict)."""

    path: Path
    ok: bool
    seconds: float
    message: str
    timed_out: bool = False


def coqc_path() -> str | None:
    """The ``coqc`` on the PATH, or None."""
    return shutil.which("coqc")


def compile_file(path, timeout: float = 600.0, lines: int = 12) -> CompileResult:
    """Run ``coqc -q`` on a copy of the .v file in a fresh temporary folder (so that nothing but the .v
    is left beside it: coqc also writes .vo, .glob, .aux and a lia cache) and report the outcome with
    the last ``lines`` lines of coqc's output.
    Requires coqc on the PATH (FileNotFoundError otherwise)."""
    import tempfile

    path = Path(path)
    coqc = coqc_path()
    if coqc is None:
        raise FileNotFoundError("coqc is not on the PATH (Debian: apt-get install coq libcoq-interval "
                                "libcoq-coqprime)")
    with tempfile.TemporaryDirectory(prefix="certify-coq-") as folder:
        copy = Path(folder) / path.name
        copy.write_bytes(path.read_bytes())
        start = time.perf_counter()
        try:
            done = subprocess.run([coqc, "-q", copy.name], cwd=folder, capture_output=True, text=True,
                                  timeout=timeout, env={**os.environ, "LC_ALL": "C"})
        except subprocess.TimeoutExpired:
            return CompileResult(path, False, time.perf_counter() - start, f"coqc timed out after {timeout:.0f} s",
                                 timed_out=True)
        seconds = time.perf_counter() - start
    output = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return CompileResult(path, done.returncode == 0, seconds, "\n".join(output[-lines:]))
