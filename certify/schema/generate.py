"""Write the theorem-specific parts of certify-1.schema.json from the kernel records.

    python certify/schema/generate.py          # rewrite the schema beside this file
    python certify/schema/generate.py --check  # exit 1 if the committed schema differs

The parts generated (everything else of the schema is kept as it is): ``properties.theorem.enum``
(the theorem names, in registry order), one ``allOf`` block per theorem (its parameter names,
required and the only ones allowed, and its claims definition) and ``$defs.THEOREM_claims`` (its
claim ids, required and the only ones allowed, in the kernel record's order). Standard library only.
tests/test_registry.py fails if the committed schema is not what this writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMA = Path(__file__).with_name("certify-1.schema.json")


def _block(record) -> dict:
    names = list(record.parameter_names)
    return {"if": {"properties": {"theorem": {"const": record.name}}, "required": ["theorem"]},
            "then": {"properties": {"parameters": {"required": names, "propertyNames": {"enum": names}},
                                    "claims": {"$ref": f"#/$defs/{record.name}_claims"}}}}


def generated(schema: dict, kernels) -> dict:
    """``schema`` with its theorem parts made from ``kernels`` (name -> KernelRecord); other keys kept in place."""
    out = json.loads(json.dumps(schema))
    out["properties"]["theorem"]["enum"] = list(kernels)
    out["allOf"] = [_block(record) for record in kernels.values()]
    def claims(record) -> dict:
        ids = list(record.claim_ids)
        return {"required": ids, "propertyNames": {"enum": ids}}

    wanted = {f"{name}_claims": claims(record) for name, record in kernels.items()}
    defs, last = [], 0
    for key, value in out["$defs"].items():  # each theorem's definition where it stands, new ones after the last
        if key.endswith("_claims"):
            if key in wanted:
                defs.append((key, wanted[key]))
            last = len(defs)
        else:
            defs.append((key, value))
    present = {key for key, _ in defs}
    defs[last:last] = [(key, value) for key, value in wanted.items() if key not in present]
    out["$defs"] = dict(defs)
    return out


def text(schema: dict) -> str:
    """The schema file's bytes: two-space indent, one trailing newline."""
    return json.dumps(schema, indent=2) + "\n"


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from certify.kernel.registry import KERNELS

    current = SCHEMA.read_text(encoding="utf-8")
    wanted = text(generated(json.loads(current), KERNELS))
    if "--check" in (argv if argv is not None else sys.argv[1:]):
        return 0 if wanted == current else 1
    SCHEMA.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
