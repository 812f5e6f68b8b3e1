"""``certify coq``: write each certificate's Coq re-proof (and compile it when coqc is installed)."""

from __future__ import annotations

import sys

from .common import _path_arg, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, RAW

COQ_HELP = """\
Write, for each certificate FILE, the Coq file DIR/THEOREM_P.v, followed by _NAME_VALUE for each
parameter that is not the default (gd's eta always) and _prec_BITS for a precision other than 128
(coqc needs an identifier: in VALUE '.' is p, '/' o, '-' m: gd_13_eta_1o3.v for eta = 1/3,
gd_13_eta_1p3.v for 1.3): every claim's numerical content as a Coq lemma over the reals,
stated with the certificate's own exact numbers and proved with Coq's standard library,
CoqInterval (interval, integral) and Coqprime (a Pocklington certificate that p is prime). Lemmas
are named after claim ids; a comment above each names the paper's lemma that turns the numerical
fact into the claim (those implications are not formalised). Where CoqInterval cannot reach the
certificate's digits (integrals), a lemma states the ends rounded outward to fewer digits and its
name says so (..._12_digits); every sign and margin is proved in full. Claims not exported are
listed, with the reason, in the summary and at the end of the file.

By default each certificate is checked first and a rejected one is refused; --no-check writes the
file anyway (Coq must then refuse a false claim itself). When coqc is on the PATH the file is
compiled (in a temporary folder) before it is written, and coqc's time is reported; exit 1 if coqc
rejects a file, which then never replaces an existing one. A file that exists is replaced
atomically and `replaced FILE` is said on stderr.
Debian: apt-get install coq libcoq-interval libcoq-coqprime."""


def add_parsers(commands) -> None:
    coq = commands.add_parser("coq", help="re-prove certificates in Coq (write .v files and compile them)",
                              description=COQ_HELP, formatter_class=RAW)
    coq.add_argument("files", nargs="+", type=_path_arg, metavar="FILE", help="certificates (certify/1 JSON)")
    coq.add_argument("--out", required=True, type=_path_arg, metavar="DIR", help="folder for the .v files (created if missing)")
    coq.add_argument("--no-check", action="store_true",
                     help="write the .v without checking the certificate first (for testing Coq's refusals)")
    coq.add_argument("--no-compile", action="store_true", help="do not run coqc even if it is installed")


def _compile_text(text: str, name: str):
    """coqc's verdict on ``text`` as the module ``name``, compiled before anything is written to --out."""
    import tempfile
    from pathlib import Path

    from ..coq.compile import compile_file

    with tempfile.TemporaryDirectory(prefix="certify-coq-") as folder:
        source = Path(folder) / f"{name}.v"
        source.write_text(text, encoding="utf-8")
        return compile_file(source)


def run_coq(args) -> int:
    """Write each certificate's .v (checked first unless --no-check; compiled first when coqc is there):
    atomically, saying ``replaced FILE`` on stderr, and never over an existing file with one coqc rejects."""
    from pathlib import Path

    from ..certificate import parse_certificate
    from ..check import check_bytes, read_certificate_file
    from ..coq.compile import coqc_path
    from ..coq.export import coq_file
    from ..errors import MalformedCertificate
    from ..sweep import one_line
    from .common import _out_error, write_file

    compile_files = not args.no_compile and coqc_path() is not None
    if not args.no_compile and not compile_files:
        print("certify coq: coqc is not on the PATH: writing the files without compiling them "
              "(Debian: apt-get install coq libcoq-interval libcoq-coqprime)", file=sys.stderr)
    status = EXIT_OK
    for name in args.files:
        try:
            data = read_certificate_file(name)
            document = parse_certificate(data)
        except MalformedCertificate as exc:
            print(one_line(f"{name}: malformed: {exc}", 2000), file=sys.stderr)
            status = max(status, EXIT_USAGE)
            continue
        if not args.no_check:
            verdict = check_bytes(data, str(name))
            if verdict.status != "verified":
                print(one_line(f"{name}: refused (not verified): {verdict.line()}", 2000), file=sys.stderr)
                status = max(status, EXIT_REJECTED if verdict.status == "rejected" else EXIT_USAGE)
                continue
        try:
            coq = coq_file(document, data)
        except ValueError as exc:  # an exporter's refusal of a certificate it cannot state (--no-check)
            print(one_line(f"{name}: cannot export: {exc}", 2000), file=sys.stderr)
            status = max(status, EXIT_USAGE)
            continue
        path = Path(args.out) / f"{coq.name}.v"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"certify coq: {_out_error(exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"{path}: {coq.summary()}")
        if compile_files:
            result = _compile_text(coq.text, coq.name)
            if result.ok:
                print(f"{path}: coqc accepted it in {result.seconds:.1f} s")
            else:
                last = result.message.splitlines()[-3:] if result.message else ["(no output)"]
                kept = path.exists()
                print(one_line(f"{path}: coqc REJECTED it after {result.seconds:.1f} s: {' / '.join(last)}"
                               + ("; the existing file is kept (not replaced by one coqc rejects)" if kept else ""),
                               2000))
                status = max(status, EXIT_REJECTED)
                if kept:
                    continue
        write_file(path, lambda temporary: temporary.write_text(coq.text, encoding="utf-8"))
    return status
