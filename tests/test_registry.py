"""The theorem registry (certify/theorems/registry.py, certify/kernel/registry.py) is the one list of
theorems: the kernels, builders, schema and consumers agree with it, and a new record is picked up
by the command line, the checker, sweeps and summaries without any other edit."""

import ast
import inspect
import json
import sys
import textwrap
from pathlib import Path

import pytest
from flint import fmpq

import certify.certificate as certificate_module
from certify.cli import build_parser, main
from certify.kernel import registry as kernel_registry
from certify.schema import generate
from certify.theorems import registry
from certify.theorems.registry import THEOREMS, KeyNumber, LatexSection, Parameter, Theorem, resolve
from conftest import ROOT

PROOFS = ROOT / "proofs"


def test_the_order_is_fixed():
    assert list(THEOREMS) == ["dead", "slide", "smooth", "gd", "sensitivity", "staircase",
                              "memorise", "twin", "twin_plus", "twin_above"] == list(kernel_registry.KERNELS)
    assert all(THEOREMS[name].kernel is kernel_registry.KERNELS[name] for name in THEOREMS)


@pytest.mark.parametrize("name", list(THEOREMS))
def test_every_reference_resolves_and_matches_its_kernel(name):
    record = THEOREMS[name]
    kernel = kernel_registry.kernel_for(name)
    module = sys.modules[record.kernel.module]
    fields = list(inspect.signature(getattr(module, record.kernel.parameters)).parameters)
    assert fields == ["p", *record.parameter_names]
    assert kernel.paper == getattr(module, record.kernel.paper) and kernel.claim_ids == record.claim_ids
    builder = resolve(record.builder)
    assert set(record.parameter_names) <= set(inspect.signature(builder).parameters)
    for target in (record.summary, record.simulator, record.plot):
        if target or target is record.summary:  # simulator and plot may be "" (the theorem has none)
            assert callable(resolve(target))
    from certify.symbolic import DERIVATIONS

    assert set(record.derivations) <= set(DERIVATIONS)


@pytest.mark.parametrize("name", list(THEOREMS))
def test_claim_ids_are_the_committed_certificates_and_the_kernels(name):
    """The committed library was made by the kernel: its claim ids are the record's, in any order."""
    for path in sorted((PROOFS / name).glob(f"{name}-*.json"))[:3]:
        document = json.loads(path.read_text())
        assert tuple(document["claims"]) == tuple(sorted(THEOREMS[name].claim_ids))
        assert sorted(document["parameters"]) == sorted(THEOREMS[name].parameter_names)


def test_the_schema_is_generated_from_the_kernel_records():
    committed = generate.SCHEMA.read_text(encoding="utf-8")
    assert generate.text(generate.generated(json.loads(committed), kernel_registry.KERNELS)) == committed
    schema = json.loads(committed)
    assert schema["properties"]["theorem"]["enum"] == list(THEOREMS)
    for name, record in THEOREMS.items():
        assert schema["$defs"][f"{name}_claims"]["required"] == list(record.claim_ids)


def test_a_drifted_schema_is_caught():
    schema = json.loads(generate.SCHEMA.read_text(encoding="utf-8"))
    schema["$defs"]["gd_claims"]["required"].pop()
    assert generate.generated(schema, kernel_registry.KERNELS) != schema


def test_records_refuse_key_numbers_and_parameters_their_kernel_does_not_have():
    dead = THEOREMS["dead"]
    with pytest.raises(ValueError, match="names no claim"):
        Theorem(**{**dead.__dict__, "key_numbers": (KeyNumber("no_such_claim", None, "lo", "min", "x"),)})
    with pytest.raises(ValueError, match="not the kernel's"):
        Theorem(**{**dead.__dict__, "parameters": dead.parameters[:2]})


def _claims_used(function) -> set:
    """String subscripts ``claims['id']`` in a function's source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {node.slice.value for node in ast.walk(tree)
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "claims"
            and isinstance(node.slice, ast.Constant)}


@pytest.mark.parametrize("name", list(THEOREMS))
def test_summary_renderers_name_only_their_records_claims(name):
    used = _claims_used(resolve(THEOREMS[name].summary))
    assert used and used <= set(THEOREMS[name].claim_ids)


def test_the_smooth_hypothesis_is_decided_at_the_certificate_precision(monkeypatch):
    """certify check decides (A.67) with J at the certificate's precision plus 64 bits, not a fixed 128."""
    import certify.kernel.smooth as smooth
    from certify.check import check_bytes

    seen = []
    original = smooth.dead_zone_integral.__wrapped__ if hasattr(smooth.dead_zone_integral, "__wrapped__") \
        else smooth.dead_zone_integral

    def recording(s0, eps, prec):
        seen.append(prec)
        return original(s0, eps, prec)

    data = (PROOFS / "smooth" / "smooth-5.json").read_bytes()
    document = json.loads(data)
    monkeypatch.setattr(smooth, "dead_zone_integral", recording)
    assert check_bytes(data, "smooth-5.json").status == "verified"
    # the hypothesis at the certificate's precision + 64; the region claim's Jensen bound at its own fixed
    # REGION_PRECISION (docs/mathematics.md, region probabilities), whatever the certificate's precision
    from certify.kernel.region import REGION_PRECISION
    assert document["precision_bits"] + 64 in seen
    assert set(seen) <= {document["precision_bits"] + 64, REGION_PRECISION}


# --- adding a theorem -------------------------------------------------------------------------------------

TOY_KERNEL = '''
"""A toy kernel: one exact claim, margin = A - epsilon > 0."""
from dataclasses import dataclass
from flint import fmpq
from certify.errors import HypothesisError
from certify.kernel.claims import EXACT, ClaimSpec
from certify.kernel.family import family_base_point

PAPER = "Toy theorem"
MARGIN = ClaimSpec("margin", "base_point", "A - epsilon, positive by the hypotheses,", EXACT)
CLAIMS = (MARGIN,)


@dataclass(frozen=True)
class ToyParameters:
    p: int
    epsilon: fmpq
    A: fmpq


def require_toy_hypotheses(params):
    if not params.A > params.epsilon:
        raise HypothesisError("A > epsilon fails")


def toy_base_point(params):
    return family_base_point(params.epsilon, params.A, fmpq(1))


def toy_claims(params, radius, prec):
    return [MARGIN.claim(exact=params.A - params.epsilon)]
'''

TOY_BUILDER = '''
from flint import fmpq
from certify.certificate import build_certificate
from certify.theorems.radius import CertifiedInstance
import toy_kernel as kernel


def certify_toy(p, epsilon=None, A=None, radius=None, prec=128):
    params = kernel.ToyParameters(p, fmpq(1) if epsilon is None else fmpq(epsilon), fmpq(2) if A is None else fmpq(A))
    kernel.require_toy_hypotheses(params)
    radius = fmpq(1, 100) if radius is None else fmpq(radius)
    certificate = build_certificate(theorem="toy", paper=kernel.PAPER, p=p,
                                    parameters={"epsilon": params.epsilon, "A": params.A},
                                    base_point=kernel.toy_base_point(params), radius=radius, precision_bits=prec,
                                    claims=kernel.toy_claims(params, radius, prec))
    return CertifiedInstance(certificate, params, radius)
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A toy theorem: one kernel module, one builder, one kernel record, one theorem record (and the
    schema the generator writes from the records), registered for this test only."""
    (tmp_path / "toy_kernel.py").write_text(TOY_KERNEL)
    (tmp_path / "toy_builder.py").write_text(TOY_BUILDER)
    monkeypatch.syspath_prepend(str(tmp_path))
    kernel = kernel_registry.KernelRecord(
        name="toy", module="toy_kernel", parameters="ToyParameters", require_hypotheses="require_toy_hypotheses",
        base_point="toy_base_point", claims="toy_claims", parameter_names=("epsilon", "A"), claim_ids=("margin",))
    record = Theorem(
        name="toy", paper="Toy theorem", title="A toy", help="certify the toy theorem for a prime p",
        description="The toy theorem.", hypotheses="A > epsilon",
        parameters=(Parameter("epsilon", "--epsilon", "epsilon (default 1)", "1", r"\varepsilon"),
                    Parameter("A", "--A", "A (default 2)", "2", "A")),
        kernel=kernel, builder="toy_builder:certify_toy", summary=None,
        latex=LatexSection("A toy", "u = v = w = 0", "the margin is positive."),
        simulator=None, plot=None, clock="t", derivations=(),
        key_numbers=(KeyNumber("margin", None, "exact", "min", "toy margin"),))
    monkeypatch.setitem(kernel_registry.KERNELS, "toy", kernel)
    monkeypatch.setitem(registry.THEOREMS, "toy", record)
    schema = generate.generated(certificate_module.schema(), kernel_registry.KERNELS)
    monkeypatch.setattr(certificate_module, "schema", lambda: schema)
    certificate_module._validator.cache_clear()
    yield record
    certificate_module._validator.cache_clear()


def test_a_new_theorem_is_picked_up_everywhere(toy, tmp_path, capsys):
    from certify import proofs, sweep
    from certify.render.latex import THEOREMS as SECTIONS
    from certify.render.summary import summary
    from certify.symbolic import FOR_THEOREM

    parser = build_parser()
    args = parser.parse_args(["toy", "--p", "5", "--A", "3"])
    assert (args.command, args.A) == ("toy", 3)
    out = tmp_path / "toy-5.json"
    assert main(["toy", "--p", "5", "--A", "3", "--out", str(out)]) == 0
    assert "certify toy: p = 5, epsilon = 1, A = 3" in capsys.readouterr().err
    assert main(["check", str(out)]) == 0
    assert "toy, p = 5, 1 claims verified" in capsys.readouterr().out
    assert main(["toy", "--p", "5", "--A", "1/2"]) == 2
    assert "A > epsilon fails" in capsys.readouterr().err

    rows = sweep.certify_chunk("toy", [5, 7], str(tmp_path / "sweep"), "1")
    assert [message for _, message, _ in rows] == ["", ""]
    assert sweep.certificate_name("toy-7.json") == ("toy", "7")
    counted = {"toy": {p: digest for p, _, digest in rows}}
    result = sweep.write_summary(tmp_path / "sweep", ["toy"], [5, 7], counted)
    assert result["toy"]["certified"] == 2 and result["toy"]["extremes"]["toy margin"]["value"] == "1"

    document = json.loads(out.read_text())
    assert summary(document)[1] == "  margin = 2"
    assert "toy" in SECTIONS and SECTIONS["toy"]["title"] == "A toy" and FOR_THEOREM["toy"] == ()
    assert proofs.reference_command("toy", 5, "x.json") == ["toy", "--p", "5", "--out", "x.json"]
    assert main(["simulate", "toy", "--p", "5"]) == 2
    assert "toy has no trajectory to simulate" in capsys.readouterr().err  # no simulator: said, not "unknown"


def test_without_the_toy_it_is_unknown():
    assert "toy" not in THEOREMS and "toy" not in kernel_registry.KERNELS
    with pytest.raises(SystemExit):
        build_parser().parse_args(["toy", "--p", "5"])


def test_importing_the_registry_imports_nothing_heavy():
    from test_imports import heavy, modules_after

    assert heavy(modules_after("import certify.theorems.registry, certify.cli")) == set()
