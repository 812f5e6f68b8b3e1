"""The ``certify`` command line: parse arguments, call the library, print. No mathematics here.

Exit codes: 0 success / verified, 1 a certificate was rejected, 2 bad input,
usage or a malformed certificate. Every expected failure is one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .errors import CertifyError, InputError, NotCertified

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2

#: The largest --prec: certify/1 allows 512 bits, so that checking a certificate stays quick (the checker
#: recomputes at the stated precision plus 64 bits, and nobody can make it integrate at 8192 bits).
MAX_PRECISION = 512

DESCRIPTION = """\
Rigorous, machine-checked instances of the theorems of "A Counterexample to
Fourier Alignment in Single-Neuron Modular Addition" for a prime p you name.
Every bound in a certificate is an exact number obtained with Arb ball
arithmetic; `certify check` recomputes every claim independently."""

DEAD_HELP = """\
Certify Theorem 1.5 / Theorem A.2 (the neuron dies in finite time and its
terminal state is not single-frequency) for the prime p: the base point (2.1)
u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0 and the sup-norm box of
radius R around it. The certificate (JSON, format certify/1) goes to stdout or
--out; a short summary goes to stderr.

Hypotheses (checked exactly): epsilon, A, B > 0; B > epsilon/2; and (A.58)
((p-1)A/p)^2 > epsilon^2/2. The defaults epsilon=1, A=2, B=1 satisfy them for
every prime p >= 5. Without --radius the radius is chosen to maximise the
certified Gaussian probability: the probability grows with R, so certify takes
99% of the largest radius the kernel can certify, rounded down to 3 digits."""

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
malformed, unreadable or could not be checked."""

DERIVE_HELP = """\
Show how the paper's equations follow from its definitions (the loss (1.1),
the gate, the softmax, the recentering (1.2), the projections (1.3)): each
step with its one-line reason, then each derived equation beside the paper's
printed form, checked by sympy. Some derivations are for symbolic p (--p then
specialises them), some need a prime (the full 3p-variable loss, exact
arithmetic in Q(e^(2 pi i/p))); those default to a small prime and refuse a
prime above the largest they build in a few seconds (--list shows it)."""

LATEX_HELP = """\
Write a standalone LaTeX document for a theorem instance: the statement for
this p, every claim of the certificate with its certified digits and equation
references, and the derivations it rests on; compile it to PDF when pdflatex is
installed. Either name a theorem and a prime (the certificate is computed now
with the default parameters) or give --certificate FILE."""

SIMULATE_HELP = """\
Simulate the theorem's trajectory in floats (numpy/scipy; floats cross-check,
they never bound) from the certified base point or from a random point of the
certified box (--from box --seed N), with the certificate's bounds recorded
beside it: times or clock, gates, s, gamma, Fourier fractions, loss, balance
quantity. The certificate is computed with the default parameters (gd needs
--eta). Writes JSON or NPZ (by the suffix of --out), or a summary to stdout."""

PLOT_HELP = """\
Plot the simulated trajectory with the certified bounds drawn on it (needs
matplotlib: pip install 'certify[plot]'). dead: s(t) and gamma(t) with the
certified hitting time and the transversal slope, the hyperbola (2.6), the
terminal Fourier spectrum beside single-frequency alignment; slide: the capture
events and d/x -> kappa_p; smooth and gd: the analogous pictures. PNG or PDF."""

SWEEP_HELP = """\
Certify every prime in a range for the chosen theorems, in K worker processes
(python-flint's precision is process-wide, so not threads). Certificates go to
DIR/THEOREM/THEOREM-P.json; a failure at one prime is recorded in
DIR/failures.json and the sweep goes on. Running the same sweep again resumes
it and trusts nothing: every certificate already there is fully checked (in the
same K processes) and must hold the theorem and p of its name (and gd the
sweep's eta); any other file is certified again and reported as redone (if
that fails, it is recorded and the file renamed *.rejected). DIR/summary.json
and DIR/summary.csv give, per theorem, the primes certified, the failures and
the smallest margins and probabilities (with the prime attaining each).
`certify check DIR --jobs K` re-checks the whole folder."""

PROOFS_HELP = """\
Regenerate the proof library: for the reference primes 5, 7, 11, 13, 17, 19,
23, 29, 31, 97, 101, the certificate of every theorem (gd at eta = 1), checked
before it is written, and its LaTeX document, under DIR/THEOREM/."""

NUMBER_NOTE = "an exact number: integer, p/q or decimal (e.g. 1, 3/2, 0.25, 1e-3)"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line and exits 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _exact_arg(text: str):
    from .kernel.exact import parse_rational

    try:  # a person may type any spelling (1/2, 0.50); certificates are written canonically
        return parse_rational(text, "the value", canonical=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _prime_arg(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"p must be an integer, got {text!r}") from None


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


SLIDE_HELP = """\
Certify Theorem A.1 (a persistent sliding trajectory: the neuron stays active,
memorises one table entry, and its direction converges to a limit whose Fourier
energy is 2/(p-1) in every class) for the prime p: the base point of section
A.3 u(0)=v(0)=X, u(j)=v(j)=-3X, w(0)=2p gamma_*, w(j)=0 and the sup-norm box of
radius R around it, inside the region U_slide of (A.15)-(A.17).

Hypotheses: gamma_* > 0 and (A.14) X > (p-1)/(e gamma_*), decided with balls
(e is irrational). Defaults: gamma_* = 1, X = (p-1)/(2 gamma_*). Without
--radius the radius is 99% of the largest box inside U_slide, rounded down to
3 digits (it maximises the certified Gaussian probability). The capture time is
astronomically large (about 10^561 for p = 13); it is enclosed as it is and
reported by its exponent."""

SMOOTH_HELP = """\
Certify Theorem A.3 (with the smooth dead-zone activation sigma_eps(z) =
z psi(z/eps), psi(t) = f(t)/(f(t)+f(1-t)), f(t) = exp(-1/t) for t > 0, the
gradient flow converges to a limit that is not single-frequency) for the prime
p: the base point (A.48)-(A.49) u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A,
w(j)=0 and the sup-norm box of radius R around it.

Hypotheses: eps, epsilon, A, B > 0, B > epsilon/2 and (A.67)
g(0)^2 > J(s0) with J(s0) = int_0^s0 sigma/sigma' enclosed rigorously (one
acb.integral plus proved tail bounds). Defaults: eps = 2, epsilon = 1, A = 2,
B = 1. Without --radius the radius maximises the certified Gaussian
probability (99% of the largest certifiable radius, 3 digits)."""

GD_HELP = """\
Certify Theorem A.4 (one full-batch gradient-descent step with step size eta
and ReLU'(0) = 0 makes every gate strictly negative, so the iterates freeze at
a state that is not single-frequency) for the prime p: the base point (2.1)
u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0 and the sup-norm box of
radius R around it.

Hypotheses: eta, epsilon, A, B > 0, B > epsilon/2 and (A.71)
epsilon < 2 eta (p-1)A/p^3. The defaults adapt to eta: A = 2, B = 1 and
epsilon = min(1, half the (A.71) threshold), so the command works for any
eta > 0 (a small eta needs a small s0 = epsilon). Without --radius the radius
maximises the certified Gaussian probability."""

#: The theorem commands: name -> (help, description, [(option, dest, help)], builder module).
THEOREM_COMMANDS = {
    "dead": ("certify Theorem 1.5 / A.2 (the neuron dies) for a prime p", DEAD_HELP, [
        ("--epsilon", "epsilon", f"s0 = u(0)+v(0) at the base point (default 1); {NUMBER_NOTE}"),
        ("--A", "A", "-w(0) at the base point (default 2)"),
        ("--B", "B", "-u(j) = -v(j) at the base point (default 1)"),
    ], "dead"),
    "slide": ("certify Theorem A.1 (the sliding trajectory) for a prime p", SLIDE_HELP, [
        ("--gamma-star", "gamma_star", f"gamma_* of (A.14)-(A.17) (default 1); {NUMBER_NOTE}"),
        ("--X", "X", "X of (A.14)-(A.15) (default (p-1)/(2 gamma_*))"),
    ], "slide"),
    "smooth": ("certify Theorem A.3 (smooth dead-zone activation) for a prime p", SMOOTH_HELP, [
        ("--eps-smooth", "eps_smooth", f"eps of sigma_eps (default 2); {NUMBER_NOTE}"),
        ("--epsilon", "epsilon", "s0 = u(0)+v(0) at the base point (default 1)"),
        ("--A", "A", "-w(0) at the base point (default 2)"),
        ("--B", "B", "-u(j) = -v(j) at the base point (default 1)"),
    ], "smooth"),
    "gd": ("certify Theorem A.4 (one gradient-descent step kills the neuron) for a prime p", GD_HELP, [
        ("--epsilon", "epsilon", f"s0 = u(0)+v(0) at the base point (default: adapts to eta); {NUMBER_NOTE}"),
        ("--A", "A", "-w(0) at the base point (default 2)"),
        ("--B", "B", "-u(j) = -v(j) at the base point (default 1)"),
    ], "gd"),
}

#: Options a theorem command must be given.
REQUIRED_OPTIONS = {"gd": [("--eta", "eta", f"the step size eta > 0; {NUMBER_NOTE}")]}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="certify", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"certify {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    for name, (summary_help, description, options, _) in THEOREM_COMMANDS.items():
        command = commands.add_parser(name, help=summary_help, description=description,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_argument("--p", type=_prime_arg, required=True, metavar="P", help="a prime p >= 5")
        for option, dest, option_help in REQUIRED_OPTIONS.get(name, []):
            command.add_argument(option, dest=dest, type=_exact_arg, required=True, metavar=dest.upper(),
                                 help=option_help)
        for option, dest, option_help in options:
            command.add_argument(option, dest=dest, type=_exact_arg, metavar=dest.upper(), help=option_help)
        command.add_argument("--radius", type=_exact_arg, metavar="R",
                             help="sup-norm radius of the box (default: chosen, see above)")
        command.add_argument("--prec", type=_precision_arg, default=128, metavar="BITS",
                             help="Arb working precision (default 128)")
        command.add_argument("--out", metavar="FILE", help="write the certificate to FILE instead of stdout")

    check = commands.add_parser("check", help="re-check certificates independently",
                                description=CHECK_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("files", nargs="+", metavar="FILE", help="certificate files, or folders of THEOREM-P.json")
    check.add_argument("--jobs", type=_jobs_arg, default=1, metavar="K", help="check in K processes (default 1)")

    for name, summary_help, description, output in (
            ("simulate", "simulate a theorem's trajectory in floats, beside its certified bounds", SIMULATE_HELP,
             "FILE.json or FILE.npz"),
            ("plot", "plot a theorem's trajectory with its certified bounds drawn on", PLOT_HELP,
             "FILE.png or FILE.pdf")):
        command = commands.add_parser(name, help=summary_help, description=description,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_argument("theorem", choices=sorted(THEOREM_COMMANDS), metavar="THEOREM",
                             help="dead, slide, smooth or gd")
        command.add_argument("--p", type=_prime_arg, required=True, metavar="P", help="a prime p >= 5")
        command.add_argument("--eta", type=_exact_arg, metavar="ETA", help="the step size (gd only)")
        command.add_argument("--from", dest="source", choices=("base", "box"), default="base",
                             help="start at the base point (default) or at a random point of the certified box")
        command.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the random box point")
        command.add_argument("--out", required=name == "plot", metavar="FILE", help=f"write to {output}")

    sweep = commands.add_parser("sweep", help="certify many primes in parallel, resumably, with a summary",
                                description=SWEEP_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sweep.add_argument("--primes", required=True, metavar="A..B", help="the primes p with A <= p <= B (p >= 5)")
    sweep.add_argument("--theorems", default="dead,slide,smooth,gd", metavar="LIST",
                       help="comma-separated: dead, slide, smooth, gd (default all four)")
    sweep.add_argument("--jobs", type=_jobs_arg, default=os.cpu_count() or 1, metavar="K",
                       help="worker processes (default: the number of CPUs)")
    sweep.add_argument("--eta", type=_exact_arg, default=None, metavar="ETA", help="step size for gd (default 1)")
    sweep.add_argument("--out", required=True, metavar="DIR", help="folder for DIR/THEOREM/THEOREM-P.json and the summary")

    derive = commands.add_parser("derive", help="show a symbolic derivation of the paper's equations",
                                 description=DERIVE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    derive.add_argument("name", nargs="?", metavar="NAME", help="a derivation (see --list)")
    derive.add_argument("--list", action="store_true", help="list every derivation with its equation numbers")
    derive.add_argument("--p", type=_prime_arg, metavar="P",
                        help="the prime: the setting of a per-prime derivation (at most its limit, see --list), "
                             "a specialisation otherwise")
    derive.add_argument("--latex", action="store_true", help="print LaTeX instead of text")

    latex = commands.add_parser("latex", help="write a theorem instance as a LaTeX document (and PDF)",
                                description=LATEX_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    latex.add_argument("theorem", nargs="?", choices=sorted(THEOREM_COMMANDS), metavar="THEOREM",
                       help="dead, slide, smooth or gd (certified now, default parameters)")
    latex.add_argument("--p", type=_prime_arg, metavar="P", help="the prime (with THEOREM)")
    latex.add_argument("--eta", type=_exact_arg, metavar="ETA", help="the step size (with THEOREM gd)")
    latex.add_argument("--certificate", metavar="FILE", help="render this certificate instead (it is checked first)")
    latex.add_argument("--out", required=True, metavar="DIR", help="folder for THEOREM-P.tex and .pdf")
    latex.add_argument("--no-pdf", action="store_true", help="do not run pdflatex even if it is installed")

    proofs = commands.add_parser("proofs", help="regenerate the proof library (proofs/)",
                                 description=PROOFS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    proofs.add_argument("--out", default="proofs", metavar="DIR", help="the library's folder (default proofs)")
    proofs.add_argument("--pdf", action="store_true", help="also compile every document with pdflatex")
    return parser


def _write(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
        return
    try:
        with open(out, "w", encoding="ascii", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None


def _run_theorem(args) -> int:
    import importlib

    from .certificate import dumps
    from .render.summary import summary

    _, _, options, module = THEOREM_COMMANDS[args.command]
    builder = importlib.import_module(f".theorems.{module}", __package__)
    parameters = {dest: getattr(args, dest) for _, dest, _ in options + REQUIRED_OPTIONS.get(args.command, [])}
    result = getattr(builder, f"certify_{module}")(args.p, radius=args.radius, prec=args.prec, **parameters)
    _write(dumps(result.certificate), args.out)
    print("\n".join(summary(result.certificate)), file=sys.stderr)
    return EXIT_OK


def _run_check(args) -> int:
    """Check files and folders; one line per file that is not verified (stderr), and in folder or
    --jobs mode a count line. Exit: the worst verdict's (0 verified, 1 rejected, 2 malformed or a
    check that crashed; see certify.sweep.check_files)."""
    from .sweep import ERROR, certificate_files, check_files, exit_code, one_line

    folders = any(os.path.isdir(path) for path in args.files)
    files = certificate_files(args.files)
    if not files:
        raise InputError("no certificate files (THEOREM-P.json) found")
    verdicts = check_files(files, args.jobs)
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


def _certificate_for(args) -> dict:
    """The certificate of args.theorem at args.p with default parameters (gd takes args.eta)."""
    import importlib

    builder = importlib.import_module(f"{__package__}.theorems.{args.theorem}")
    extra = {}
    if args.theorem == "gd":
        if args.eta is None:
            raise InputError("--eta is required for gd")
        extra["eta"] = args.eta
    elif args.eta is not None:
        raise InputError("--eta applies to gd only")
    return getattr(builder, f"certify_{args.theorem}")(args.p, **extra).certificate


def _trajectory(args) -> dict:
    from .simulate import simulate_instance

    try:
        return simulate_instance(_certificate_for(args), source=args.source, seed=args.seed)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _run_simulate(args) -> int:
    from .simulate import save_trajectory

    record = _trajectory(args)
    if args.out:
        try:
            print(save_trajectory(record, args.out))
        except ValueError as exc:
            raise InputError(str(exc)) from None
    else:
        for key, value in sorted(record.items()):
            shape = getattr(value, "shape", None)
            print(f"{key}: array {shape}" if shape else f"{key}: {value}")
    return EXIT_OK


def _run_plot(args) -> int:
    try:
        from .render.plots import plot_instance
    except ImportError as exc:
        raise InputError(f"plotting needs matplotlib ({exc}); pip install 'certify[plot]'") from None
    record = _trajectory(args)
    try:
        print(plot_instance(record, args.out))
    except ImportError:
        raise InputError("plotting needs matplotlib; pip install 'certify[plot]'") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return EXIT_OK


def _run_sweep(args) -> int:
    from .kernel.exact import format_rational
    from .sweep import (THEOREMS, certificate_file, one_line, parse_prime_range, primes_between, progress_bar,
                        run_sweep)

    try:
        low, high = parse_prime_range(args.primes)
        primes = primes_between(low, high)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    theorems = [name.strip() for name in args.theorems.split(",") if name.strip()]
    unknown = [name for name in theorems if name not in THEOREMS]
    if unknown or not theorems:
        raise InputError(f"unknown theorem(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(THEOREMS)}")
    if not primes:
        raise InputError(f"no primes p >= 5 in {args.primes}")
    eta = "1" if args.eta is None else format_rational(args.eta)
    report = run_sweep(primes, theorems, args.jobs, args.out, eta=eta, progress=progress_bar())
    for theorem in theorems:
        for p, reason in sorted(report.redone[theorem].items()):
            print(one_line(f"redone {certificate_file(args.out, theorem, p)}: it was {reason}", 2000),
                  file=sys.stderr)
    for theorem in theorems:
        print(f"{theorem}: {report.certified[theorem]} certified, {report.skipped[theorem]} already there "
              f"and verified, {len(report.redone[theorem])} redone, {len(report.failed[theorem])} failed")
    made = sum(report.certified.values()) + sum(map(len, report.redone.values()))
    checked = sum(report.checked.values())
    rate = (made + checked) / report.seconds if report.seconds > 0 else 0.0
    print(f"{made} certificates made and {checked} already there checked in {report.seconds:.1f} s "
          f"({rate:.1f}/s); summary in {os.path.join(args.out, 'summary.csv')}")
    return EXIT_REJECTED if any(report.failed.values()) else EXIT_OK


def _run_derive(args) -> int:
    from .symbolic import DERIVATIONS, derivation

    if args.list:
        width = max(len(name) for name in DERIVATIONS)
        for name, entry in DERIVATIONS.items():
            scope = (f"per prime (default {entry.default_prime}, p <= {entry.largest_prime})" if entry.per_prime
                     else "symbolic p")
            print(f"{name:<{width}}  {', '.join(entry.equations):<40}  {scope}: {entry.summary}")
        return EXIT_OK
    if args.name is None:
        raise InputError("name a derivation or use --list")
    if args.name not in DERIVATIONS:
        raise InputError(f"unknown derivation {args.name!r}; 'certify derive --list' lists them")
    if args.p is not None:
        from .kernel.primes import require_prime
        from .symbolic import require_practical_prime

        require_practical_prime(args.name, args.p)  # before building anything, and before proving p prime
        require_prime(args.p)
    built = derivation(args.name, args.p)
    from .render.derivations import derivation_latex, derivation_text

    sys.stdout.write(derivation_latex(built) if args.latex else derivation_text(built))
    return EXIT_OK if built.holds() else EXIT_REJECTED


def _run_latex(args) -> int:
    """Render a theorem instance computed now, or a certificate file: that file is read once (regular
    files only, capped), those bytes are checked, and the same bytes are parsed and rendered."""
    from .render.document import write_document

    if (args.theorem is None) == (args.certificate is None):
        raise InputError("give either THEOREM (with --p) or --certificate FILE")
    if args.certificate is not None:
        from .certificate import parse_certificate
        from .check import Verdict, check_bytes, read_certificate_file
        from .errors import MalformedCertificate

        source = str(args.certificate)
        try:
            data = read_certificate_file(args.certificate)
        except MalformedCertificate as exc:
            data, verdict = None, Verdict(source, "malformed", str(exc))
        else:
            verdict = check_bytes(data, source)
        if verdict.status != "verified":
            from .sweep import one_line

            raise InputError(one_line(f"will not render an unverified certificate: {verdict.line()}", 2000))
        certificate = parse_certificate(data)  # the very bytes just verified
    else:
        if args.p is None:
            raise InputError("--p is required with THEOREM")
        certificate = _certificate_for(args)
    for path in write_document(certificate, args.out, pdf=not args.no_pdf):
        print(path)
    return EXIT_OK


def _run_proofs(args) -> int:
    from .proofs import build_proofs

    written = build_proofs(args.out, pdf=args.pdf, progress=lambda line: print(line, file=sys.stderr))
    print(f"wrote {len(written)} files under {args.out}")
    return EXIT_OK


COMMANDS = {**{name: _run_theorem for name in THEOREM_COMMANDS}, "check": _run_check, "derive": _run_derive,
            "latex": _run_latex, "proofs": _run_proofs, "sweep": _run_sweep, "simulate": _run_simulate,
            "plot": _run_plot}


def main(argv=None) -> int:
    """Entry point of the ``certify`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except NotCertified as exc:
        print(f"certify {args.command}: not certified: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CertifyError as exc:
        print(f"certify {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `certify derive --list | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
