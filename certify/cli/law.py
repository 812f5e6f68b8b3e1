"""``certify law``: the measured outcome law of a randomly initialised neuron, beside the certified floor.

The work is :func:`certify.law.runner.run_law`; this module parses, prints the table and draws the figure.
``certify plot law DIR ...`` (the figures of existing runs) is dispatched here from :mod:`.simulate`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from ..errors import InputError
from ..cluster import CONNECT_TIMEOUT  # certify.law.runner is imported only when a law command runs
from .common import EXIT_OK, RAW, _jobs_arg, add_p_option

LAW_HELP = """\
Measure the outcome law of one ReLU neuron trained on the modular-addition
table from a random start: draw theta(0) ~ N(0, sigma^2 I_3p) (sample i from its
own stream seeded by (--seed, i), so nothing depends on scheduling; draws with
no active gate are rejected and counted), follow it to the horizon T and
classify it. --dynamics flow (default): the Clarke gradient flow (1.6) as a
Filippov sliding solution (certify/law/flow.py states exactly what is
integrated); --dynamics gd --eta ETA: full-batch gradient descent with
ReLU'(0) = 0 (Theorem A.4's setting), vectorised over samples.

The six outcomes at T (certify/law/classify.py; "the last decade" is [T/10, T]):
  dead                    every gate <= 0 (then the gradient is 0), reached at a
                          finite death time;
  memorises_one_entry     one strictly active gate, the same over the last
                          decade and not falling, every other gate <= 0, only its
                          cross gates on kinks (the state of Theorem A.1; the
                          staircase of size k = 1);
  single_frequency        max_zeta F_zeta >= 0.99 and not decreasing over the
                          last decade;
  staircase               >= 2 active gates, the active set the same at every
                          checkpoint of the last decade (a gate on its kink may
                          leave it), max_zeta F_zeta < 0.99, and the
                          active gates the staircase {(r_i, c_j): i + j < k}, k >= 2,
                          rows r_i = r_0 + i delta and columns c_j = c_0 + j delta
                          (one step delta mod p; then its k(k+1)/2 gates carry the
                          k labels r_0 + c_0 + m delta, m < k);
  multi_gate_other        the same with any other active set (a Young diagram
                          once rows and columns are sorted: its row lengths);
  undecided               anything else, with the reason; also every trajectory
                          that fails validation (it did not reach T, the flow's
                          loss rose, the balance quantity (A.10) drifted; GD at
                          a fixed step is not a descent method, so its loss
                          rises are counted in loss_rises, not held against it).
The classification is a finite-horizon observation in floats, not a theorem: it
says what the trajectory looks like at T, never what it does as t -> infinity.
The fractions come with Wilson 95% score intervals. The one proved number is
printed beside them: the certified lower bound on P(theta(0) in R_dead |
active) (the region of the dead theorem; it holds for every sigma), rounded
down.

Output in DIR: samples.csv (one row per sample, written as it finishes: index,
rejected, initially_active_gates, in_dead_region, outcome, reason, death_time,
max_fourier, loss, pattern, k, rows, columns, delta, labels, row_lengths,
high_rows, high_columns (the high block n), max_fourier_limit (the limit
formula for (p, n, k)), balance_drift, loss_rises (gd), switches,
sample_digest, seconds), run.json (the run's parameters) and, at the end,
summary.json (counts, fractions, intervals, the distribution of k with max F
by k and by (n, k) beside the formula, the row lengths of multi_gate_other,
the certified bound; the same bytes however the work was split). Running the same command again resumes: only
missing samples are computed; --samples may grow (at most 1000000). Other
p/sigma/seed/horizon/dynamics/eta for an existing DIR are refused. Nothing in
DIR is trusted: a file of the run that is not a regular file, or too big, is
refused, and a row of samples.csv that the runner could not have written for
this run (a field nan or inf, an outcome its fields contradict, a draw or
sample_digest not this run's, a repeated index, a line cut short) is named on
stderr, removed, and its sample computed again.

Work runs on Dask: a local cluster of --jobs worker processes (default the CPU
count; --jobs 1 computes in this process, without Dask), or the cluster of
--scheduler tcp://host:8786 (its workers need certify installed), unchanged.
The scheduler must complete Dask's handshake within --connect-timeout seconds
(default 5); a server that is not Dask is refused at once.
Dask is the optional extra: pip install 'certify[law]'. gd runs one big
vectorised batch per worker. A run estimated to take over a minute (from the
costs measured by examples/law/measure_costs.py) says so on stderr first; a
progress bar with the time left is drawn on stderr when it is a terminal.
--plot FILE (.png, .pdf or .svg) draws the figure of the run (see certify plot law)."""


def _samples_arg(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the number of samples must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"the number of samples must be >= 1, got {value}")
    from ..law.runner import MAX_SAMPLES

    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"the number of samples must be at most {MAX_SAMPLES}, got {value}")
    return value


def _seed_arg(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the seed must be a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"the seed must be >= 0, got {value}")
    return value


def _number_text(name: str, minimum: float | None = None):
    """An argparse type: the text as given (stripped), if it is a finite number > 0 (and >= minimum)."""

    def parse(text: str) -> str:
        text = text.strip()
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"{name} must be a positive finite number, got {text!r}")
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(
                f"{name} must be >= {minimum:g} (the classifier compares the last decade [T/10, T]), got {text}")
        return text

    return parse


def _seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the timeout must be a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"the timeout must be a positive number of seconds, got {text!r}")
    return value


def add_parsers(commands) -> None:
    command = commands.add_parser("law", help="measure the outcome law of random initialisations (floats), "
                                  "beside the certified dead-region bound", description=LAW_HELP, formatter_class=RAW)
    add_p_option(command, required=True, help="a prime p >= 5")
    command.add_argument("--samples", required=True, type=_samples_arg, metavar="N",
                         help="samples 0..N-1 (initially active draws)")
    command.add_argument("--sigma", type=_number_text("sigma"), default="1", metavar="S",
                         help="standard deviation of theta(0) (default 1)")
    command.add_argument("--seed", type=_seed_arg, default=1, metavar="K", help="seed of the run (default 1)")
    command.add_argument("--horizon", type=_number_text("the horizon", 10), default="1e8", metavar="T",
                         help="the time T at which each sample is classified, >= 10 (default 1e8: no measured "
                              "active set changed after 3.2e6 at p <= 31, docs/outcome-law.md section 2a)")
    command.add_argument("--dynamics", choices=("flow", "gd"), default="flow",
                         help="flow: the Clarke/Filippov gradient flow (default); gd: gradient descent (needs --eta)")
    command.add_argument("--eta", type=_number_text("eta"), default=None, metavar="ETA",
                         help="step size of gd (required with --dynamics gd, refused with flow)")
    where = command.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=_jobs_arg, default=None, metavar="J",
                       help="worker processes of a local Dask cluster (default: the number of CPUs; 1: in this "
                            "process, no Dask)")
    where.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="run on the Dask scheduler at ADDRESS, e.g. tcp://host:8786")
    command.add_argument("--connect-timeout", type=_seconds_arg, default=CONNECT_TIMEOUT, metavar="SECONDS",
                         help=f"how long to wait for --scheduler to answer (default {CONNECT_TIMEOUT:g})")
    command.add_argument("--out", required=True, metavar="DIR", help="the run's folder (created; resumed if there)")
    command.add_argument("--plot", metavar="FILE", default=None,
                         help="also draw the run's figure into FILE (.png, .pdf or .svg)")


def _plot_format_or_error(path, size=None, dpi=None) -> None:
    """InputError now (not after the run) if ``path`` cannot be a figure (its suffix; ``size`` and ``dpi``, the
    --size and --dpi of certify plot) or matplotlib is missing."""
    from ..law.plots import check_plot_path

    try:
        check_plot_path(path, size, dpi)
    except ImportError as exc:
        from .simulate import PLOT_INSTALL

        raise InputError(f"plotting needs matplotlib ({exc}); {PLOT_INSTALL}") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None


def run_law(args) -> int:
    from ..cluster import single_threaded_blas

    single_threaded_blas()  # before numpy loads: a sample computed here has a worker's bits
    from ..law.runner import LawParameters, progress_bar, run_law as run, summary_text

    parameters = LawParameters(p=args.p, sigma=args.sigma, seed=args.seed, horizon=args.horizon,
                               dynamics=args.dynamics, eta=args.eta)
    if args.plot is not None:
        _plot_format_or_error(args.plot)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    bar = progress_bar(sys.stderr)
    result = run(parameters, args.samples, args.out, jobs=jobs, scheduler=args.scheduler,
                 connect_timeout=args.connect_timeout, progress=bar)
    print(summary_text(result.summary))
    print(f"{result.computed} samples computed now, {result.kept} kept from before, in {result.seconds:.1f} s; "
          f"summary in {Path(args.out) / 'summary.json'}")
    if args.plot is not None:
        print(_draw([args.out], args.plot))
    return EXIT_OK


def _draw(folders, out, size=None, dpi=None) -> Path:
    from ..law.plots import plot_law

    try:
        return plot_law(folders, out, size=size, dpi=dpi)
    except ImportError as exc:
        from .simulate import PLOT_INSTALL

        raise InputError(f"plotting needs matplotlib ({exc}); {PLOT_INSTALL}") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None


def run_plot_law(args) -> int:
    """``certify plot law DIR [DIR ...] --out FILE``: the figure of existing runs."""
    folders = list(getattr(args, "folders", None) or [])
    if not folders:
        raise InputError("certify plot law needs one or more run folders: certify plot law DIR [DIR ...] --out FILE")
    given = [flag for flag, value in (("--p", args.p), ("--certificate", args.certificate),
                                      ("--eta", getattr(args, "eta", None))) if value is not None]
    if given:
        raise InputError(f"{', '.join(given)} cannot be combined with plot law (each run folder has its own)")
    _plot_format_or_error(args.out, args.size, args.dpi)
    print(_draw(folders, args.out, args.size, args.dpi))
    return EXIT_OK
