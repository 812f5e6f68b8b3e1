"""``certify THEOREM``: one subcommand per record of :data:`certify.theorems.registry.THEOREMS`.

The options, help and defaults come from the record; the command calls the record's builder, writes
the certificate and prints the record's summary. Nothing here names a theorem.
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from ..theorems.registry import THEOREMS, names_text
from .common import (_path_arg, EXIT_OK, RAW, _exact_arg, _precision_arg, _write, add_p_option,
                     check_experiment_target, draw_experiment, verified_new_certificate)


def add_parsers(commands) -> None:
    for record in THEOREMS.values():
        command = commands.add_parser(record.name, help=record.help, description=record.description,
                                      formatter_class=RAW)
        add_p_option(command, required=True, help="a prime p >= 5")
        for parameter in record.parameters:
            command.add_argument(parameter.flag, dest=parameter.name, type=_exact_arg, required=parameter.required,
                                 metavar=parameter.name.upper(), help=parameter.help)
        command.add_argument("--radius", type=_exact_arg, metavar="R",
                             help="radius of the box: every coordinate within R of the base point (twin_above: the "
                                  "w(j), j >= 2, within R + g) (default: chosen, see above)")
        command.add_argument("--prec", type=_precision_arg, default=128, metavar="BITS",
                             help="Arb working precision (default 128)")
        command.add_argument("--out", type=_path_arg, metavar="FILE", help="write the certificate to FILE (default, or -: stdout); "
                             "an existing FILE is replaced only by a certificate certify check verifies")
        if record.experiment:
            command.add_argument("--plot", metavar="FILE",
                                 help="also run the float experiment beside the certificate and draw it to FILE "
                                      "(.png, .pdf or .svg); its table goes to stderr. Needs matplotlib (pip install "
                                      "'certify[plot]'): without it, or with another suffix, the command stops "
                                      "before certifying, writes nothing and exits 2")


def run_theorem(args) -> int:
    from ..certificate import dumps
    from ..render.summary import summary

    record = THEOREMS[args.command]
    if getattr(args, "plot", None):  # before anything is made or written: the experiment needs a figure
        check_experiment_target(args.plot, args.p)
    parameters = {name: getattr(args, name) for name in record.parameter_names}
    result = record.build(args.p, radius=args.radius, prec=args.prec, **parameters)
    if args.out not in (None, "-") and os.path.isfile(args.out):
        # a file is replaced only by a certificate the checker verified (measured: +15 ms for dead at p = 13,
        # +0.18 s for smooth; a new file or stdout gets the builder's certificate, every claim kernel-proved)
        text = verified_new_certificate(result.certificate)
    else:
        text = dumps(result.certificate)
    _write(text, args.out)
    print("\n".join(summary(result.certificate)), file=sys.stderr)
    if getattr(args, "plot", None):
        print("\n".join(draw_experiment(record, result.certificate, args.plot)), file=sys.stderr)
    return EXIT_OK


def instance_parameters() -> dict:
    """flag -> (Parameter, [theorem names]): each parameter some theorem requires (gd's --eta)."""
    seen = {}
    for record in THEOREMS.values():
        for parameter in record.required_parameters:
            seen.setdefault(parameter.flag, (parameter, []))[1].append(record.name)
    return seen


def add_instance_options(command, scope: str) -> None:
    """The options of a command that certifies a theorem now with default parameters (simulate, plot,
    latex): each parameter some theorem requires, optional here. ``scope``: "only" words the help as
    "(gd only)", "with" as "(with THEOREM gd)"."""
    for flag, (parameter, names) in instance_parameters().items():
        words = f"{names_text(names)} only" if scope == "only" else f"with THEOREM {names_text(names)}"
        command.add_argument(flag, dest=parameter.name, type=_exact_arg, metavar=parameter.name.upper(),
                             help=f"{parameter.label} ({words})")


def certificate_for(args) -> dict:
    """The certificate of args.theorem at args.p with default parameters, verified by the checker
    (:func:`~.common.verified_new_certificate`); a parameter the theorem requires is taken from args
    (InputError if missing), one it does not take is refused (InputError)."""
    record = THEOREMS[args.theorem]
    extra = {}
    for flag, (parameter, names) in instance_parameters().items():
        value = getattr(args, parameter.name, None)
        if record.name in names:
            if value is None:
                raise InputError(f"{flag} is required for {record.name}")
            extra[parameter.name] = value
        elif value is not None:
            raise InputError(f"{flag} applies to {names_text(names)} only")
    certificate = record.build(args.p, **extra).certificate
    verified_new_certificate(certificate)  # nothing is simulated, drawn or rendered from a certificate that fails
    return certificate
