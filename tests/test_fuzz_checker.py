"""A bounded fuzz run of the checker (about 30 s; FUZZ_SECONDS overrides).

Inputs are honest certificates of all four theorems with random byte-level damage, random
structural edits (values of every JSON type, deletions, additions, deep nesting) and random
changes of the numbers. Every verdict must be one of verified / rejected / malformed with a
one-line message and no exception; and acceptance must be sound where we can tell without the
checker: a changed lower end is accepted only if it did not rise (beyond the last written digit),
a changed upper end only if it did not fall, a changed exact value or statement never.
The test prints the number of executions and of findings.
"""

import json
import os
import random
import time
from fractions import Fraction

from certify.check import check_bytes
from certify.kernel.exact import canonical_text, parse_syntax

SECONDS = float(os.environ.get("FUZZ_SECONDS", "30"))
LOWER, UPPER = ("lo", "log10_lo"), ("hi", "log10_hi")

STRANGE = [None, True, False, 0, -1, 2**64, 10**30, 1.5, float("inf"), "", " ", "0", "-0", "1/0", "1e999999999",
           "-1e-999999999", "NaN", "9" * 199, "9" * 201, "\u0000", "\ud83d", "0x10", "1_0", [], {}, [[[]]],
           {"lo": "1"}, "certify/1", "dead", "box", "base_point"]


def leaves(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, path + (index,))


def set_at(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def random_number_near(rng, text):
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        value = Fraction(rng.randint(-10**6, 10**6), rng.randint(1, 1000))
    scale = Fraction(rng.choice([1, 10, 10**6, 10**20, 10**40])) ** rng.choice([1, -1])
    changed = value + Fraction(rng.randint(-1000, 1000), 1000) * scale * (abs(value) + Fraction(1, 10**45))
    choice = rng.random()
    if choice < 0.25:
        return f"{changed.numerator}/{changed.denominator}" if changed.denominator != 1 else str(changed.numerator)
    text = f"{float(changed):.{rng.randint(1, 17)}e}".replace("e+", "e").replace("e-0", "e-").replace("e0", "e")
    if choice < 0.5:
        return text  # usually not canonical: must be malformed
    # the canonical spelling (certify/1 admits only that), so that the edit reaches the comparisons
    try:
        return canonical_text(parse_syntax(text))
    except ValueError:  # inf or nan from float(): keep the odd text
        return text


def mutate(rng, original: dict, text: str):
    """(bytes, oracle): the mutated input and, for number edits, what an acceptance must satisfy."""
    kind = rng.random()
    if kind < 0.25:
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 8)):
            position = rng.randrange(len(data))
            action = rng.random()
            if action < 0.4:
                data[position] = rng.randrange(256)
            elif action < 0.7:
                del data[position:position + rng.randint(1, 50)]
            else:
                data[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        return bytes(data), None
    document = json.loads(text)
    paths = [path for path, _ in leaves(document) if path]
    path = rng.choice(paths)
    if kind < 0.6:
        action = rng.random()
        if action < 0.6:
            set_at(document, path, rng.choice(STRANGE))
        elif action < 0.8:
            parent = document
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        else:
            set_at(document, path, {"nested": [[[{"deep": "1"}]]] * rng.randint(1, 3)})
        return json.dumps(document, allow_nan=True).encode(), None
    numeric = [p for p in paths if p[-1] in LOWER + UPPER + ("exact",) and isinstance(_get(document, p), str)]
    if not numeric:
        return text.encode(), None
    path = rng.choice(numeric)
    old = _get(document, path)
    new = random_number_near(rng, old)
    set_at(document, path, new)
    return json.dumps(document).encode(), (path, old, new)


def _get(document, path):
    node = document
    for key in path:
        node = node[key]
    return node


def sound(oracle) -> bool:
    """Acceptance of a number edit is sound if it weakened (or kept) the claim."""
    path, old, new = oracle
    try:
        old_value, new_value = Fraction(old), Fraction(new)
    except (ValueError, ZeroDivisionError):
        return False
    slack = abs(old_value) * Fraction(1, 10**30) + Fraction(1, 10**40)  # beyond the last written digit
    if path[-1] in LOWER:
        return new_value <= old_value + slack
    if path[-1] in UPPER:
        return new_value >= old_value - slack
    return new_value == old_value


def test_fuzz_the_checker(dead_certificates, slide_certificates, smooth_certificates, gd_certificates):
    seeds = [dead_certificates[5], dead_certificates[13], slide_certificates[5], smooth_certificates[7],
             gd_certificates[(5, (1, 1))]]
    texts = [json.dumps(c, sort_keys=True) for c in seeds]
    rng = random.Random(20261129)
    start, executions, verdicts, findings = time.perf_counter(), 0, {}, []
    while time.perf_counter() - start < SECONDS:
        index = rng.randrange(len(seeds))
        data, oracle = mutate(rng, seeds[index], texts[index])
        try:
            verdict = check_bytes(data)
        except Exception as exc:  # noqa: BLE001 - any escape is a finding
            findings.append(f"exception {type(exc).__name__}: {exc} on {data[:200]!r}")
            continue
        finally:
            executions += 1
        verdicts[verdict.status] = verdicts.get(verdict.status, 0) + 1
        if verdict.status not in ("verified", "rejected", "malformed") or "\n" in verdict.message:
            findings.append(f"bad verdict {verdict!r}")
        if verdict.status == "verified" and oracle is not None and not sound(oracle):
            findings.append(f"accepted a stronger claim: {oracle}")
    elapsed = time.perf_counter() - start
    print(f"fuzz: {executions} executions in {elapsed:.0f} s ({executions / elapsed:.0f}/s), verdicts {verdicts}, "
          f"findings {len(findings)}")
    assert not findings, findings[:5]
    assert executions > 100 and verdicts.get("malformed", 0) and verdicts.get("rejected", 0)
