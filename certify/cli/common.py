"""What every command group shares: exit codes, the one-line argparse, argument types, writing output."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path

from ..errors import CertifyError, InputError

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2

#: The largest --prec: certify/1 allows 512 bits, so that checking a certificate stays quick (the checker
#: recomputes at the stated precision plus 64 bits, and nobody can make it integrate at 8192 bits).
MAX_PRECISION = 512

RAW = argparse.RawDescriptionHelpFormatter


class _Probe(Exception):
    """Raised instead of exiting while :class:`_Parser` re-parses to find what it could not place."""


def nearest_flags(flag: str, options) -> list[str]:
    """The options a mistyped ``flag`` most likely meant (at most two; [] if none is close).

    The same option in another case (``--a`` for ``--A``); else the long options that ``flag`` abbreviates
    or extends (``--eps`` -> ``--epsilon``, ``--prime`` -> ``--p``), those sharing the longest beginning
    with it; else :func:`difflib.get_close_matches` at a similarity of 0.7 (``--radious`` -> ``--radius``;
    its default 0.6 offered ``--out`` for ``--bogus``)."""
    options = list(dict.fromkeys(options))
    same = [option for option in options if option.lower() == flag.lower()]
    if same:
        return same[:1]
    if flag.startswith("--") and len(flag) > 2:
        related = [option for option in options if option.startswith("--") and
                   (option.startswith(flag) or flag.startswith(option))]
        if related:
            shared = {option: len(os.path.commonprefix([option, flag])) for option in related}
            longest = max(shared.values())
            return sorted(option for option in related if shared[option] == longest)[:2]
    return difflib.get_close_matches(flag, options, n=2, cutoff=0.7)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line and exits 2, never guesses an abbreviated option
    (``allow_abbrev=False``: ``--eps`` is not silently ``--epsilon``), and names what it could not use:
    ``unknown option --prime (did you mean --p?)``, ``unrecognised argument '13' (did you mean --p 13?)``,
    even when a required option is missing too (that is usually the same mistake)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._given = None
        self._probing = False

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(self._given, namespace)
        if extras and not self._probing:
            self.error(self._unrecognised(extras, namespace, []))
        return namespace, extras

    def error(self, message):
        if self._probing:
            raise _Probe(message)
        if message.startswith("the following arguments are required") and self._given is not None:
            message = self._misplaced() or message
        choice = re.match(r"argument (.+?): invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if choice:
            guesses = difflib.get_close_matches(choice.group(2), re.findall(r"'([^']*)'", choice.group(3)), n=2)
            if guesses:
                message += f" (did you mean {' or '.join(guesses)}?)"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def _misplaced(self) -> str | None:
        """With required arguments missing: the message for an argument given that no option took, or None.
        Parses again with nothing required (nothing is printed; the parser is restored)."""
        required = [action for action in self._actions if action.required]
        for action in required:
            action.required = False
        self._probing = True
        try:
            namespace, extras = argparse.ArgumentParser.parse_known_args(self, self._given)
        except _Probe:
            return None
        finally:
            self._probing = False
            for action in required:
                action.required = True
        if not extras:
            return None
        missing = [action for action in required if action.option_strings and getattr(namespace, action.dest, None)
                   is None]
        return self._unrecognised(extras, namespace, missing)

    def _unrecognised(self, extras, namespace, missing) -> str:
        """One line about the first argument no option or positional took: an unknown option with the nearest
        ones, or a value with the option it probably belongs to (a required option not given, else -p)."""
        values = [extra for extra in extras if extra != "--"]  # '--' only ends the options
        first = values[0] if values else "--"
        if first.startswith("-") and first not in ("-", "--") and not self._negative_number_matcher.match(first):
            flag = first.split("=", 1)[0]
            options = [option for action in self._actions if action.help is not argparse.SUPPRESS
                       for option in action.option_strings]
            guesses = nearest_flags(flag, options)
            return f"unknown option {flag}" + (f" (did you mean {' or '.join(guesses)}?)" if guesses else "")
        candidates = missing or [action for action in self._actions if action.dest == "p" and action.option_strings
                                 and getattr(namespace, "p", None) is None and re.fullmatch(r"[0-9]+", first)]
        hint = ""
        if candidates:
            flags = candidates[0].option_strings
            hint = f" (did you mean {next((f for f in flags if f.startswith('--')), flags[0])} {first}?)"
        return f"unrecognised argument {first!r}{hint}"


def _exact_arg(text: str):
    from ..kernel.exact import parse_rational

    try:  # a person may type any spelling (1/2, 0.50); certificates are written canonically
        return parse_rational(text, "the value", canonical=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _prime_arg(text: str) -> int:
    """An integer in ASCII digits (int() would also take '\uff11\uff13', full-width 13, and '1_3')."""
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise argparse.ArgumentTypeError(f"p must be an integer in the digits 0-9, got {text[:40]!r}")
    return int(text, 10)


def _path_arg(text: str) -> str:
    """A path on the command line: not empty (an empty path would mean the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("the path is empty")
    return text


def _jobs_arg(text: str) -> int:
    try:
        jobs = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a whole number, got {text!r}") from None
    if not 1 <= jobs <= 256:
        raise argparse.ArgumentTypeError(f"jobs must be between 1 and 256, got {jobs}")
    return jobs


def _precision_arg(text: str) -> int:
    try:
        bits = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"precision must be an integer number of bits, got {text!r}") from None
    if not 64 <= bits <= MAX_PRECISION:
        raise argparse.ArgumentTypeError(f"precision must be between 64 and {MAX_PRECISION} bits, got {bits}")
    return bits


def write_file(path, write):
    """Make the output file ``path`` with ``write(temporary)`` (:func:`certify.files.write_output`: atomic, a
    failure leaves ``path`` as it was); says ``replaced PATH`` on stderr when a file was there. InputError
    (one line) if it cannot be written; what ``write`` raises otherwise passes through. Returns ``path``."""
    from ..files import write_output

    try:
        replaced = write_output(path, write)
    except OSError as exc:
        raise InputError(_out_error(exc)) from None
    if replaced:
        print(f"replaced {path}", file=sys.stderr)
    return path


def _write(text: str, out: str | None) -> None:
    """Write ``text`` to the file ``out`` (:func:`write_file`); None or ``-`` is standard output."""
    if out is None or out == "-":
        sys.stdout.write(text)
        return

    def write(temporary) -> None:
        with open(temporary, "w", encoding="ascii", newline="\n") as handle:
            handle.write(text)

    write_file(out, write)


def _out_error(exc: OSError) -> str:
    """One line for an output that could not be written (a missing folder, a file as a folder, no permission)."""
    where = exc.filename if exc.filename is not None else "the output"
    return f"cannot write {where}: {exc.strerror or exc}"


def verified_new_certificate(certificate: dict) -> str:
    """The canonical text of a certificate a builder just made, once :func:`certify.check.check_bytes` has
    verified exactly those bytes; CertifyError (one line, nothing is written) if it does not. The builders
    only call the kernel (which proves each claim), never the independent checker; the commands call this
    where a new certificate would replace a file, or feed a simulation, figure or document (at p = 13 it
    costs 15 ms for dead, 30 ms slide, 55 ms gd, 0.18 s smooth)."""
    from ..certificate import dumps
    from ..check import check_bytes

    text = dumps(certificate)
    verdict = check_bytes(text.encode("ascii"), "the certificate just made")
    if not verdict:
        raise CertifyError(f"{verdict.line()}; nothing was written (a bug of certify: please report it)")
    return text


def read_verified_certificate(path, action: str) -> dict:
    """The certificate in the file at ``path``: read once (:func:`certify.check.read_certificate_file`:
    regular files only, capped), those bytes checked by the independent checker, and only then the same
    bytes parsed. InputError ``will not ACTION an unverified certificate: FILE: STATUS: why`` otherwise."""
    from ..certificate import parse_certificate
    from ..check import Verdict, check_bytes, read_certificate_file
    from ..errors import MalformedCertificate
    from ..sweep import one_line

    source = str(path)
    try:
        data = read_certificate_file(path)
    except MalformedCertificate as exc:
        data, verdict = None, Verdict(source, "malformed", str(exc))
    else:
        verdict = check_bytes(data, source)
    if verdict.status != "verified":
        raise InputError(one_line(f"will not {action} an unverified certificate: {verdict.line()}", 2000))
    return parse_certificate(data)


def check_experiment_target(path, p: int | None, size=None, dpi=None) -> None:
    """InputError (one line) before the experiment's seconds and before anything is written, if ``path`` cannot
    be a figure (its suffix; ``size``, ``dpi``; matplotlib missing), its folder does not exist, or p is above
    certify.simulate.MAX_SIMULATED_P (the experiments follow the full flow in floats: arrays of p^2 gates;
    ``p`` None: not known yet, not checked)."""
    from ..simulate import require_simulable
    from .law import _plot_format_or_error

    _plot_format_or_error(path, size, dpi)
    folder = Path(path).parent
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: its folder {folder} does not exist")
    if p is not None:
        require_simulable(int(p))


def draw_experiment(record, certificate: dict, path, size=None, dpi=None) -> list[str]:
    """Run ``record``'s float experiment on ``certificate`` and draw it into ``path`` (.png, .pdf or .svg; with
    the target checked first, :func:`check_experiment_target`: the experiment takes seconds) through
    :func:`write_file`; returns the lines it prints."""
    from ..theorems.registry import resolve

    check_experiment_target(path, certificate["p"], size, dpi)
    lines, drawn = [], []

    def draw(temporary) -> None:
        drawn.append(str(temporary))
        lines.extend(resolve(record.experiment)(certificate, temporary, size=size, dpi=dpi))

    write_file(path, draw)
    # the experiment names the file it drew, which was the temporary file now renamed to path
    return [line.replace(drawn[0], str(path)) for line in lines]


def add_p_option(command, **kwargs) -> None:
    """The prime option, ``-p`` or ``--p``."""
    command.add_argument("-p", "--p", dest="p", type=_prime_arg, metavar="P", **kwargs)
