"""``certify check``: re-check certificate files and folders."""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from .common import RAW, _jobs_arg

CHECK_HELP = """\
Re-check certificates independently: validate against the closed certify/1
JSON Schema, confirm the base point is the construction of the stated
parameters, recompute every claim with the kernel (at the stated precision plus
64 bits), and accept only if each recomputed enclosure lies inside the stored
interval; an undecidable comparison is a rejection. Give files, or folders
(every THEOREM-P.json below them is checked, --jobs K processes; only failures
and a count are printed). A file named THEOREM-P.json must hold that theorem at
that p, else it is rejected. Each file's verdict is its own: a check that
crashes (even its worker process dying) is that file's verdict. Exit 0 if every
file is verified, 1 if any is rejected (naming the claim and why), 2 if any is
malformed, unreadable or could not be checked. --json prints one JSON object
per file (source, status, message, exit_code) on stdout instead, same exit code."""


def add_parsers(commands) -> None:
    check = commands.add_parser("check", help="re-check certificates independently",
                                description=CHECK_HELP, formatter_class=RAW)
    check.add_argument("files", nargs="+", metavar="FILE", help="certificate files, or folders of THEOREM-P.json")
    check.add_argument("--json", action="store_true",
                       help="print one JSON object per file on stdout (source, status, message, exit_code)")
    check.add_argument("--jobs", type=_jobs_arg, default=1, metavar="K", help="check in K processes (default 1)")


def run_check(args) -> int:
    """Check files and folders; one line per file that is not verified (stderr), and in folder or
    --jobs mode a count line. Exit: the worst verdict's (0 verified, 1 rejected, 2 malformed or a
    check that crashed; see certify.sweep.check_files)."""
    from ..sweep import ERROR, certificate_files, check_files, exit_code, one_line

    folders = any(os.path.isdir(path) for path in args.files)
    files = certificate_files(args.files)
    if not files:
        raise InputError("no certificate files (THEOREM-P.json) found")
    verdicts = check_files(files, args.jobs)
    if args.json:
        import json

        for verdict in verdicts:
            print(json.dumps({"source": verdict.source, "status": verdict.status, "message": verdict.message,
                              "exit_code": exit_code(verdict)}))
        return max(exit_code(verdict) for verdict in verdicts)
    for verdict in verdicts:
        if verdict.status != "verified":
            print(one_line(verdict.line(), 2000), file=sys.stderr)
        elif not folders:
            print(one_line(verdict.line(), 2000))
    if folders or args.jobs > 1:
        counts = {status: sum(v.status == status for v in verdicts)
                  for status in ("verified", "rejected", "malformed", ERROR)}
        print(f"{len(verdicts)} certificates: {counts['verified']} verified, {counts['rejected']} rejected, "
              f"{counts['malformed']} malformed, {counts[ERROR]} could not be checked")
    return max(exit_code(verdict) for verdict in verdicts)
