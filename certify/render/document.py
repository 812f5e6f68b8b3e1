"""Writing a certificate's LaTeX document (and its PDF when pdflatex is on the PATH)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..errors import InputError
from .latex import THEOREMS, RenderError, certificate_document

#: Seconds pdflatex may take for one document.
PDFLATEX_TIMEOUT = 120


def document_for(certificate: dict) -> str:
    """The LaTeX source for a certificate, with the derivations its theorem rests on (imports sympy).

    RenderError (one line) for a certificate that names no known theorem or no integer p."""
    from ..symbolic import derivations_for

    if not isinstance(certificate, dict) or certificate.get("theorem") not in THEOREMS \
            or type(certificate.get("p")) is not int:
        raise RenderError("the certificate names no theorem this renderer knows, or no integer p")

    return certificate_document(certificate, derivations_for(certificate["theorem"], certificate["p"]))


def write_document(certificate: dict, out_dir, pdf: bool = True) -> list[Path]:
    """Write ``THEOREM-P.tex`` (and ``.pdf`` when asked and pdflatex exists) into ``out_dir``; return the paths.

    InputError (one line) if the document cannot be rendered or written."""
    source = document_for(certificate)  # RenderError before anything is written
    folder = Path(out_dir)
    tex = folder / f"{certificate['theorem']}-{certificate['p']}.tex"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tex.write_text(source, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {tex}: {exc.strerror or exc}") from None
    written = [tex]
    if pdf and shutil.which("pdflatex"):
        written.append(compile_pdf(tex))
    return written


def compile_pdf(tex: Path) -> Path:
    """Run pdflatex on ``tex`` (in its folder); InputError with the first LaTeX error line if it fails."""
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name]
    try:
        result = subprocess.run(command, cwd=tex.parent, capture_output=True, text=True, timeout=PDFLATEX_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise InputError(f"pdflatex took longer than {PDFLATEX_TIMEOUT} s on {tex}") from None
    if result.returncode != 0:
        errors = [line for line in result.stdout.splitlines() if line.startswith("!")]
        raise InputError(f"pdflatex failed on {tex}: {errors[0] if errors else 'exit code ' + str(result.returncode)}")
    for suffix in (".aux", ".log"):
        tex.with_suffix(suffix).unlink(missing_ok=True)
    return tex.with_suffix(".pdf")
