"""``certify check``: re-check certificate files and folders."""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from .common import _path_arg, EXIT_USAGE, RAW, _jobs_arg

CHECK_HELP = """\
Re-check certificates independently: validate against the closed certify/1 JSON
Schema, confirm the base point is the construction of the stated parameters,
recompute every claim with the kernel (at the stated precision plus 64 bits),
and accept only if each recomputed enclosure lies inside the stored interval;
an undecidable comparison is a rejection. Give files, or folders (every *.json
below them is checked, --jobs K processes; printed are the failures, a line for
each verified file whose name is not THEOREM-P.json naming the theorem and p it
holds, a count, and one line on stderr saying what was skipped and why: other
names, links to folders (not followed), a sweep's summary.json and
failures.json). A file named THEOREM-P.json must hold that theorem at that p,
else it is rejected. Each file's verdict is its own: a check that crashes (even
its worker process dying) is that file's verdict. Exit 0 if every file is
verified, 1 if any is rejected (naming the claim and why), 2 if any is
malformed, unreadable or could not be checked (or a folder could not be read).
--json prints one JSON object per file (source, status, message, exit_code) on
stdout instead, same exit code. FILE "-" reads one certificate from standard
input (at most 1 MiB; give it alone; a file named "-" is ./-), e.g.
certify dead --p 13 | certify check -."""


def add_parsers(commands) -> None:
    check = commands.add_parser("check", help="re-check certificates independently",
                                description=CHECK_HELP, formatter_class=RAW)
    check.add_argument("files", nargs="+", type=_path_arg, metavar="FILE", help="certificate files, or folders of them (*.json); - reads one from standard input")
    check.add_argument("--json", action="store_true",
                       help="print one JSON object per file on stdout (source, status, message, exit_code)")
    check.add_argument("--jobs", type=_jobs_arg, default=1, metavar="K", help="check in K processes (default 1)")


def run_check(args) -> int:
    """Check files and folders; one line per file that is not verified (stderr); in folder mode a verified
    line only for a file whose name does not say what it holds (not THEOREM-P.json), so every file is
    named with the theorem and p read from it; with folders or --jobs a count line; one line on stderr
    naming what the folders held that was not checked, and why. Exit: the worst verdict's (0 verified,
    1 rejected, 2 malformed, a check that crashed or a folder that could not be read; see
    certify.sweep.check_files)."""
    from ..sweep import (ERROR, certificate_name, check_files, exit_code, list_certificates, one_line,
                         skipped_line)

    if "-" in args.files:
        if len(args.files) > 1:
            raise InputError('"-" (standard input) is checked alone: give it as the only FILE '
                             '(a file named "-" is ./-)')
        from ..check import check_stream

        verdicts, folders, skipped, unlisted = [check_stream(sys.stdin.buffer)], False, None, False
    else:
        folders = any(os.path.isdir(path) for path in args.files)
        listing = list_certificates(args.files)
        skipped = skipped_line(listing.skipped)
        for folder, why in listing.unlisted:
            print(one_line(f"{folder}: cannot list this folder: {why}", 2000), file=sys.stderr)
        if not listing.files:
            where = ", ".join(str(path) for path in args.files)
            raise InputError(one_line(f"no certificate files (*.json) found in {where}" +
                                      (f"; {skipped}" if skipped else ""), 2000))
        verdicts, unlisted = check_files(listing.files, args.jobs), bool(listing.unlisted)
    worst = max([exit_code(verdict) for verdict in verdicts] + [EXIT_USAGE if unlisted else 0])
    if args.json:
        import json

        for verdict in verdicts:
            print(json.dumps({"source": verdict.source, "status": verdict.status, "message": verdict.message,
                              "exit_code": exit_code(verdict)}))
    else:
        for verdict in verdicts:
            if verdict.status != "verified":
                print(one_line(verdict.line(), 2000), file=sys.stderr)
            elif not folders or certificate_name(os.path.basename(verdict.source)) is None:
                print(one_line(verdict.line(), 2000))
        if folders or args.jobs > 1:
            counts = {status: sum(v.status == status for v in verdicts)
                      for status in ("verified", "rejected", "malformed", ERROR)}
            print(f"{len(verdicts)} certificates: {counts['verified']} verified, {counts['rejected']} rejected, "
                  f"{counts['malformed']} malformed, {counts[ERROR]} could not be checked")
    if skipped:
        print(f"certify check: {skipped}", file=sys.stderr)
    return worst
