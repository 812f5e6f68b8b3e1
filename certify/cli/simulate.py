"""``certify simulate``, ``certify plot`` and ``certify sweep``: float trajectories, figures, many primes."""

from __future__ import annotations

import argparse
import os
import sys

from ..cluster import CONNECT_TIMEOUT
from ..errors import InputError
from ..figures import DEFAULT_DPI, EXPERIMENT_SIZE, LAW_SIZE, MAX_DPI, MIN_DPI, THEOREM_SIZE
from ..theorems.registry import THEOREMS, names_text, swept_by_default
from .common import (_path_arg, EXIT_OK, EXIT_REJECTED, RAW, _exact_arg, _jobs_arg, add_p_option,
                     check_experiment_target, draw_experiment, read_verified_certificate, write_file)
from .theorems import add_instance_options, certificate_for, instance_parameters
from .law import _seconds_arg  # --connect-timeout as certify law reads it

SIMULATE_HELP = """\
Simulate the theorem's trajectory in floats (numpy/scipy; floats cross-check,
they never bound) from the certified base point or from a random point of the
certified box (--from box --seed N), with the certificate's bounds recorded
beside it: times or clock, gates, s, gamma, Fourier fractions, loss, balance
quantity. The certificate is computed now with the default parameters (gd needs
--eta), or read from --certificate FILE (checked first, then simulated with its
own parameters and radius). Writes JSON or NPZ (by the suffix of --out; --out -
writes the JSON to stdout), or else prints, per certified claim, whether the
simulated value lies in its certified bounds. Progress is shown on a terminal."""

PLOT_HELP = """\
Plot the simulated trajectory with the certified bounds drawn on it (needs
matplotlib: pip install 'certify[plot]', or pip install '.[plot]' in a
checkout). Name THEOREM and -p P, or give --certificate FILE. dead: s(t) and
gamma(t) with the certified hitting time and the transversal slope, the
hyperbola (2.6), the terminal Fourier spectrum beside single-frequency
alignment; slide: the capture events and d/x -> kappa_p; smooth and gd: the
analogous pictures. A theorem with no trajectory to simulate but a float
experiment (sensitivity) gets that experiment's figure, the one of
`certify sensitivity --plot` (sensitivity: gradient descent's derivative
against J_reg and Psi' beside the certified gap, about 20 s at p = 13; it
starts at the base point: its radius is 0).

The format is the suffix of --out: .png, .pdf or .svg (vector graphics). --size
W,H sets the size in inches (default 15,4.5 for a theorem, 14,9 for law,
6.4,4.8 for sensitivity; each side 1 to 100) and --dpi N the resolution (default
100, from 20 to 2400): a PNG is W*N x H*N pixels. Text shrinks with a figure
smaller than the default (to no less than 0.6 of its size); a size its panels
do not fit in is refused. The same command writes the same bytes. A theorem's
curves are drawn through the solver's steps and hundreds of points of its dense
output, so they follow what they claim (the dead figure's path lies on its
conserved curve (2.6)); labels are typeset mathematics.

certify plot law DIR [DIR ...] --out FILE draws runs of `certify law` instead:
the outcome fractions against p with their Wilson 95% intervals and the
certified dead-region floor, the histogram of max_zeta F_zeta at the horizon,
and up to 3 re-simulated trajectories of each outcome of the first DIR."""

SWEEP_HELP = """\
Certify every prime in a range for the chosen theorems, in K worker processes
(python-flint's precision is process-wide, so not threads), or on Dask:
--scheduler tcp://HOST:8786 runs the same tasks on an existing cluster (its
workers need certify installed, not this folder: they only compute, and this
process reads and writes DIR), --scheduler local on a Dask LocalCluster of K
workers. Certificates go to DIR/THEOREM/THEOREM-P.json; a failure at one
prime is recorded in DIR/failures.json and the sweep goes on; a worker that
dies fails only its task, whose primes are tried again one by one. A sweep
estimated to take over a minute says so first (from measured costs).

DIR/run.json records what each theorem is swept with: every parameter value
(eta from --eta, the others the defaults; a default that depends on p, like
gd's epsilon, as its rule), the radius rule (auto: the radius certify
chooses at each p) and the precision (128 bits). A folder whose record
differs from this command (another --eta) is refused (exit 2, nothing
changed): sweep into another folder, or delete DIR/run.json to certify
again every file made otherwise. A run.json that is not a valid record (a
FIFO, a link to a device, edited) is refused in one line the same way.

Running the same sweep again resumes it and trusts nothing: for every
certificate already there the certificate this sweep makes at that p is
made again, and the file counts only if it states exactly that certificate.
Any other file (rejected or malformed by the checker, the certificate of
another p, a true certificate made with another eta, epsilon, sigma, radius or
precision) is reported on stderr with why (the checker's verdict, or the
parameter that differs) and certified again; if that fails, it is recorded
and a bad file renamed *.rejected.

DIR/summary.json and DIR/summary.csv give, per theorem, its run parameters,
the primes certified, the failures and the smallest margins and
probabilities (with the prime attaining each); DIR/primes-THEOREM.csv has
a row per prime with its precision, radius, parameters and key numbers.
Nothing is copied from an earlier summary: a theorem of run.json that this
command does not sweep is carried over by comparing its files with its
recorded parameters now (a file that does not count is reported on stderr,
and nothing is written); an earlier entry with no record is dropped with a
line on stderr. `certify check DIR --jobs K` re-checks the whole folder."""

def _pair(size) -> str:
    return f"{size[0]:g},{size[1]:g}"


def _size_arg(text: str) -> tuple[float, float]:
    """--size W,H: two numbers of inches, each finite and within the range certify.figures allows."""
    from ..figures import FigureOptionError, parse_size

    try:
        return parse_size(text)
    except FigureOptionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _dpi_arg(text: str) -> int:
    """--dpi N: a whole number of dots per inch within the range certify.figures allows."""
    from ..figures import FigureOptionError, figure_dpi

    try:
        return figure_dpi(int(text.strip()), DEFAULT_DPI)
    except ValueError:  # int() of a non-integer, or FigureOptionError (a ValueError too)
        raise argparse.ArgumentTypeError(f"dpi must be a whole number from {MIN_DPI} to {MAX_DPI}, got {text!r}"
                                         [:300]) from None


#: How to install the plot extra, from PyPI or from a checkout of the repository.
PLOT_INSTALL = "pip install 'certify[plot]' (from a checkout: pip install '.[plot]')"

def simulated_theorems() -> list[str]:
    """The theorems ``certify simulate`` takes, in the registry's order: those whose record names a simulator
    (the test :mod:`certify.simulate` applies too)."""
    return [name for name, record in THEOREMS.items() if record.simulator]


def plotted_theorems() -> list[str]:
    """The theorems ``certify plot`` draws, in the registry's order: a simulated one with a figure of its
    trajectory (its record's ``plot``), or one whose record names a float experiment (its figure)."""
    return [name for name, record in THEOREMS.items() if (record.simulator and record.plot) or record.experiment]


def _require_theorem(name: str, command: str) -> None:
    """InputError (one line) unless ``command`` (simulate or plot) takes theorem ``name``, saying why not."""
    allowed = simulated_theorems() if command == "simulate" else plotted_theorems()
    if name in allowed:
        return
    record = THEOREMS.get(name)
    if record is None:
        import difflib

        guesses = difflib.get_close_matches(name, list(allowed) + (["law"] if command == "plot" else []), n=1)
        raise InputError(f"unknown theorem {name!r}; {command} takes {names_text(allowed)}"
                         + (", or law" if command == "plot" else "")
                         + (f" (did you mean {guesses[0]}?)" if guesses else ""))
    elsewhere = (f"; its float experiment is drawn by: certify plot {name} -p P --out FILE"
                 if record.experiment and command == "simulate" else "")
    raise InputError(f"{name} has no trajectory to {'simulate' if command == 'simulate' else 'plot'}{elsewhere}")




def add_parsers(commands) -> None:
    for name, summary_help, description, output in (
            ("simulate", "simulate a theorem's trajectory in floats, beside its certified bounds", SIMULATE_HELP,
             "FILE.json or FILE.npz"),
            ("plot", "plot a theorem's trajectory with its certified bounds drawn on", PLOT_HELP,
             "FILE.png, FILE.pdf or FILE.svg")):
        command = commands.add_parser(name, help=summary_help, description=description, formatter_class=RAW)
        # THEOREM is checked by _require_theorem (not argparse choices): it says why a theorem is not taken
        if name == "plot":  # `certify plot law DIR [DIR ...]`: the figures of certify law runs (cli/law.py)
            command.add_argument("theorem", nargs="?", metavar="THEOREM",
                                 help=f"{names_text(plotted_theorems())} (certified now, default parameters), or law")
            command.add_argument("folders", nargs="*", metavar="DIR", help="with law: run folders of certify law")
        else:
            command.add_argument("theorem", nargs="?", metavar="THEOREM",
                                 help=f"{names_text(simulated_theorems())} (certified now, default parameters)")
        add_p_option(command, help="a prime p >= 5 (with THEOREM)")
        add_instance_options(command, "only")
        command.add_argument("--certificate", metavar="FILE",
                             help="simulate this certificate instead (it is checked first)")
        command.add_argument("--from", dest="source", choices=("base", "box"), default="base",
                             help="start at the base point (default) or at a random point of the certified box")
        command.add_argument("--seed", type=int, default=None, metavar="N",
                             help="seed of the random box point (with --from box; default 0)")
        command.add_argument("--out", required=name == "plot", type=_path_arg, metavar="FILE",
                             help=f"write to {output}" + (" (- : the JSON on stdout)" if name == "simulate" else ""))
        if name == "plot":
            command.add_argument("--size", type=_size_arg, default=None, metavar="W,H",
                                 help=f"figure size in inches (default {_pair(THEOREM_SIZE)} for a theorem, "
                                      f"{_pair(LAW_SIZE)} for law, {_pair(EXPERIMENT_SIZE)} for sensitivity)")
            command.add_argument("--dpi", type=_dpi_arg, default=None, metavar="N",
                                 help=f"resolution in dots per inch, {MIN_DPI} to {MAX_DPI} (default {DEFAULT_DPI})")

    sweep = commands.add_parser("sweep", help="certify many primes in parallel, resumably, with a summary",
                                description=SWEEP_HELP, formatter_class=RAW)
    sweep.add_argument("--primes", required=True, metavar="A..B", help="the primes p with A <= p <= B (p >= 5)")
    default = swept_by_default()
    left_out = [name for name in THEOREMS if name not in default]
    sweep.add_argument("--theorems", default=",".join(default), metavar="LIST",
                       help=f"comma-separated: {', '.join(THEOREMS)} (default every theorem whose defaults hold at "
                            f"every prime{': all but ' + ', '.join(left_out) if left_out else ''})")
    sweep.add_argument("--jobs", type=_jobs_arg, default=os.cpu_count() or 1, metavar="K",
                       help="worker processes (default: the number of CPUs)")
    users = [name for name, record in THEOREMS.items() if any(q.name == "eta" for q in record.required_parameters)]
    reference = THEOREMS[users[0]].parameter("eta").reference if users else "1"
    sweep.add_argument("--eta", type=_exact_arg, default=None, metavar="ETA",
                       help=f"step size for {names_text(users) if users else 'gd'} (default {reference})")
    sweep.add_argument("--out", required=True, type=_path_arg, metavar="DIR", help="folder for DIR/THEOREM/THEOREM-P.json and the summary")
    sweep.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="run on the Dask scheduler at ADDRESS (tcp://host:8786), or 'local': a Dask LocalCluster "
                            "of --jobs workers (default: a pool of --jobs processes)")
    sweep.add_argument("--connect-timeout", type=_seconds_arg, default=CONNECT_TIMEOUT, metavar="SECONDS",
                       help=f"how long to wait for --scheduler to answer (default {CONNECT_TIMEOUT:g})")


def _progress():
    """The progress callback for a terminal (stderr), else None."""
    if not sys.stderr.isatty():
        return None
    return lambda fraction: print(f"\rsimulating {fraction:.0%}", end="", file=sys.stderr, flush=True)


def _certificate(args, command: str) -> dict:
    """The certificate ``command`` (simulate or plot) works on: THEOREM at -p P (certified now) or the one in
    --certificate FILE, checked either way; InputError (one line) if the command does not take its theorem."""
    if (args.theorem is None) == (args.certificate is None):
        raise InputError("give either THEOREM (with -p/--p) or --certificate FILE")
    if args.certificate is not None:
        given = [flag for flag, value in (("--p", args.p), *((flag, getattr(args, parameter.name, None))
                 for flag, (parameter, _) in instance_parameters().items())) if value is not None]
        if given:
            raise InputError(f"{', '.join(given)} cannot be combined with --certificate (it has its own)")
        certificate = read_verified_certificate(args.certificate, command)
        _require_theorem(certificate["theorem"], command)
        return certificate
    _require_theorem(args.theorem, command)
    if args.p is None:
        raise InputError("-p/--p is required with THEOREM")
    return certificate_for(args)


def _trajectory(args, certificate: dict) -> dict:
    """The trajectory record of ``certificate`` from args.source (and args.seed)."""
    from ..simulate import simulate_instance

    if args.seed is not None and args.source != "box":
        raise InputError("--seed chooses the random box point: it goes with --from box")
    progress = _progress()
    try:
        return simulate_instance(certificate, source=args.source, seed=args.seed or 0, progress=progress)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    finally:
        if progress is not None:
            print(file=sys.stderr)


def run_simulate(args) -> int:
    from ..simulate import save_trajectory, summary_lines

    record = _trajectory(args, _certificate(args, "simulate"))
    try:
        if args.out == "-":  # the JSON record on stdout
            import tempfile
            from pathlib import Path

            with tempfile.TemporaryDirectory() as folder:
                path = save_trajectory(record, Path(folder) / "trajectory.json")
                sys.stdout.write(path.read_text(encoding="utf-8"))
        elif args.out:
            print(write_file(args.out, lambda temporary: save_trajectory(record, temporary)))
        else:
            print("\n".join(summary_lines(record)))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return EXIT_OK


def run_plot(args) -> int:
    if args.theorem == "law":
        from .law import run_plot_law

        return run_plot_law(args)
    if args.folders:
        hint = (f" (did you mean --p {args.folders[0]}?)" if args.p is None and args.folders[0].isdigit()
                else " (run folders go with: certify plot law DIR)")
        raise InputError(f"unexpected argument(s) {' '.join(args.folders)}{hint}")
    # before anything is computed: a long run must not end on a bad suffix, size, dpi, folder or p (a certificate
    # file's p is known once it is read and checked: the simulation or draw_experiment checks it then)
    check_experiment_target(args.out, args.p, args.size, args.dpi)
    certificate = _certificate(args, "plot")
    record = THEOREMS[certificate["theorem"]]
    if not record.simulator:  # a float experiment beside the certificate (sensitivity)
        if args.source != "base":
            raise InputError(f"{record.name} has no box (its radius is 0): its experiment starts at the base "
                             "point; drop --from box")
        print("\n".join(draw_experiment(record, certificate, args.out, args.size, args.dpi)), file=sys.stderr)
        print(args.out)
        return EXIT_OK
    from ..render.plots import plot_instance

    trajectory = _trajectory(args, certificate)
    try:
        print(write_file(args.out, lambda temporary: plot_instance(trajectory, temporary, args.size, args.dpi)))
    except ImportError:
        raise InputError(f"plotting needs matplotlib; {PLOT_INSTALL}") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return EXIT_OK


def run_sweep(args) -> int:
    from ..sweep import RUN_RECORD, certificate_file, one_line, progress_bar, run_sweep, sweep_request

    primes, theorems, eta = sweep_request(args.primes, args.theorems, args.eta)
    report = run_sweep(primes, theorems, args.jobs, args.out, eta=eta, progress=progress_bar(),
                       scheduler=args.scheduler, connect_timeout=args.connect_timeout,
                       warn=lambda line: print(one_line(line, 2000), file=sys.stderr, flush=True))
    for note in report.notes:
        print(one_line(note, 2000), file=sys.stderr)
    for theorem in theorems:
        for p, reason in sorted(report.redone[theorem].items()):
            print(one_line(f"redone {certificate_file(args.out, theorem, p)}: it was {reason}", 2000),
                  file=sys.stderr)
    for theorem, reasons in report.not_counted.items():
        for p, reason in sorted(reasons.items()):
            print(one_line(f"not counted {certificate_file(args.out, theorem, p)} (carried over): it was {reason}",
                           2000), file=sys.stderr)
    for theorem in theorems:
        print(f"{theorem}: {report.certified[theorem]} certified, {report.skipped[theorem]} already there "
              f"and kept, {len(report.redone[theorem])} redone, {len(report.failed[theorem])} failed")
    for theorem, carried in report.carried.items():
        counted = report.checked[theorem] - len(report.not_counted[theorem])
        print(f"{theorem}: carried over ({carried[0]}..{carried[-1]}, as {os.path.join(args.out, RUN_RECORD)} "
              f"records): {counted} of {len(carried)} primes counted, {len(report.not_counted[theorem])} files "
              "not counted")
    made = sum(report.certified.values()) + sum(map(len, report.redone.values()))
    checked = sum(report.checked.values())
    rate = (made + checked) / report.seconds if report.seconds > 0 else 0.0
    print(f"{made} certificates made and {checked} already there checked in {report.seconds:.1f} s "
          f"({rate:.1f}/s); summary in {os.path.join(args.out, 'summary.csv')}")
    return EXIT_REJECTED if any(report.failed.values()) else EXIT_OK
