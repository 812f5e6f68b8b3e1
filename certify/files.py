"""Writing an output file so that a failure never leaves it half-written or clobbered.

Standard library only (a leaf, like :mod:`certify.errors`): the command line, the Coq exporter and the
LaTeX renderer write through :func:`write_output`.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["write_output", "write_text_output"]


def _at(path: Path, error: OSError, temporary: Path) -> OSError:
    """``error`` naming ``path`` where it named the temporary file (the user never chose that name)."""
    if error.filename is not None and os.fspath(error.filename) != os.fspath(temporary):
        return error
    return type(error)(error.errno, error.strerror or str(error), str(path))


def write_output(path, write) -> bool:
    """Make the file at ``path`` by calling ``write(temporary)``; True if it replaced an existing file.

    Guarantees:

    * A regular file (or none) at ``path`` is replaced atomically: ``write`` writes a new file in the
      same folder (a hidden name ending in ``path``'s suffix, so that a writer choosing its format by
      the suffix chooses the same one), and only after ``write`` returned is it renamed onto ``path``
      with :func:`os.replace`, so a reader sees the old file or the whole new one. If ``write`` (or
      the rename) raises, the temporary file is removed, ``path`` is as it was and the exception
      propagates; an OSError about the temporary file is raised naming ``path`` (saying, when ``path``
      exists, that a new file could not be made in its folder: /proc/version exists, but /proc takes no new file).
    * As with the shell's ``>``: a symbolic link is written through (its target is replaced); an
      existing regular file that is not writable is refused (PermissionError), even where its folder
      is writable; something that is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is
      written directly, in place (there is no file there to clobber; it is never renamed over).
      A folder is refused (IsADirectoryError).
    """
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        info = os.stat(target)
    except OSError:  # no file there (or no folder): creating the temporary file says why, if anything
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            write(target)
            return False
        if not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp{target.suffix}")
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask's mode, like >
    except OSError as error:
        if info is not None:  # the file is there: what failed is a new file beside it, in its folder
            error = type(error)(error.errno, f"cannot make a new file in its folder ({error.strerror or error})",
                                str(temporary))
        raise _at(path, error, temporary) from None
    try:
        write(temporary)
        os.replace(temporary, target)
    except BaseException as error:
        try:
            temporary.unlink()
        except OSError:
            pass
        if isinstance(error, OSError):
            raise _at(path, error, temporary) from None
        raise
    return info is not None


def write_text_output(path, text: str, encoding: str = "utf-8") -> bool:
    """:func:`write_output` of ``text`` (``\\n`` line ends); True if it replaced an existing file."""

    def write(temporary: Path) -> None:
        with open(temporary, "w", encoding=encoding, newline="\n") as handle:
            handle.write(text)

    return write_output(path, write)
