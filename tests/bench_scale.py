"""Scale benchmarks (run: python tests/bench_scale.py [--quick]); prints one table, asserts nothing.

1. certifying the base trajectory of Theorem 1.5 (hitting time and transversality enclosures)
   against simulating it with scipy's solve_ivp at rtol 1e-10, as a ratio, for p = 13, 101, 1009:
   the reduced ODE (2.2)-(2.4) for every p, and the full 3p-dimensional flow where the p x p x p
   logits fit in memory (p = 13, 101);
2. Arb against mpmath.iv on the same hitting-time integrand evaluations, as a ratio;
3. sweep throughput (certificates and primes per second) for all primes below 10^5 and all four
   theorems with 2 processes (the issue's target: under 5 minutes), or below 10^4 with --quick;
4. the largest prime certified in under 1 s as a whole process (the cost does not grow with p,
   so this is the largest prime certify accepts, 10^18 - 11).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def median_seconds(function, repeats=7) -> float:
    """Median wall time of an in-process call (after one warm-up call): bench_dead's timer."""
    from bench_dead import call_seconds

    return call_seconds(function, repeats)


def reduced_simulation(p: int, eps=1.0, A=2.0):
    """The base trajectory by scipy on (2.2)-(2.4): state (s, a, b), event s = 0."""
    import numpy as np
    from scipy.integrate import solve_ivp

    def field(_t, y):
        s, a, b = y
        g = b - a
        one_minus_pi0 = (p - 1) / (p - 1 + np.exp(-s * g))
        return [-2 / p**2 * one_minus_pi0 * g, s / p**2 * one_minus_pi0, -s / p**2 * one_minus_pi0 / (p - 1)]

    def hit(_t, y):
        return y[0]

    hit.terminal, hit.direction = True, -1
    solution = solve_ivp(field, (0, 10 * p**3), [eps, -A, 0.0], method="DOP853", rtol=1e-10, atol=1e-12, events=hit)
    return solution.t_events[0][0]


def full_simulation(p: int):
    from certify.numeric.flow import simulate_until_death
    from certify.numeric.points import two_level

    return simulate_until_death(two_level(p, 0.5, -1.0), two_level(p, 0.5, -1.0), two_level(p, -2.0, 0.0)).t_death


def certify_base(p: int):
    from flint import fmpq

    from certify.kernel.dead import DeadParameters, hitting_time_enclosure, transversality_margin_enclosure

    params = DeadParameters(p, fmpq(1), fmpq(2), fmpq(1))
    return hitting_time_enclosure(params, 128), transversality_margin_enclosure(params, 128)


def integrand_ratio(points=2000) -> tuple[float, float]:
    """Seconds for `points` evaluations of the hitting-time integrand with Arb and with mpmath.iv (128 bits)."""
    import mpmath
    from flint import acb, arb, ctx, fmpq

    from certify.kernel.dead import DeadParameters, hitting_time_integrand

    params = DeadParameters(13, fmpq(1), fmpq(2), fmpq(1))
    samples = [fmpq(k, points) for k in range(points)]
    integrand = hitting_time_integrand(params)

    def with_arb():
        with ctx.workprec(128):
            for s in samples:
                integrand(acb(arb(s)), False)

    iv = mpmath.iv
    iv.prec = 128
    gamma = iv.mpf(int(params.Gamma.p)) / int(params.Gamma.q)
    c = iv.mpf(13) / 24

    def with_iv():
        for s in samples:
            x = iv.mpf(int(s.p)) / int(s.q)
            g = iv.sqrt(gamma + c * x * x)
            (1 + iv.exp(-x * g) / 12) / g

    return median_seconds(with_arb, 3), median_seconds(with_iv, 3)


def sweep_throughput(limit: int) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "certify", "sweep", "--primes", f"5..{limit}", "--jobs", "2",
                        "--out", folder], check=True, capture_output=True, cwd=ROOT)
        seconds = time.perf_counter() - start
        count = len(list(Path(folder).rglob("*-*.json")))
    from certify.sweep import primes_between

    return seconds, count, len(primes_between(5, limit))


def largest_prime_seconds() -> list[tuple[str, int, float]]:
    rows = []
    for theorem, extra in (("dead", []), ("slide", []), ("smooth", []), ("gd", ["--eta", "1"])):
        p = 999999999999999989
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "certify", theorem, "--p", str(p), *extra, "--out", "/dev/null"],
                       check=True, capture_output=True, cwd=ROOT)
        rows.append((theorem, p, time.perf_counter() - start))
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    print("benchmark                                            | figure")
    print("-----------------------------------------------------+--------------------------------------")
    for p in (13, 101, 1009):
        certify = median_seconds(lambda: certify_base(p))
        reduced = median_seconds(lambda: reduced_simulation(p), 3)
        line = (f"base trajectory p = {p:<5} certify vs scipy reduced ODE | {certify * 1e3:7.2f} ms vs "
                f"{reduced * 1e3:7.2f} ms (x{reduced / certify:5.1f})")
        if p <= 101:
            full = median_seconds(lambda: full_simulation(p), 1)
            line += f"; full flow {full * 1e3:8.1f} ms (x{full / certify:6.0f})"
        print(line)
    arb_seconds, iv_seconds = integrand_ratio()
    print(f"hitting-time integrand, 2000 evaluations, 128 bits    | Arb {arb_seconds * 1e3:.1f} ms, "
          f"mpmath.iv {iv_seconds * 1e3:.1f} ms (Arb x{iv_seconds / arb_seconds:.1f} faster)")
    limit = 10**4 if quick else 10**5
    seconds, count, primes = sweep_throughput(limit)
    print(f"sweep, all primes below {limit}, 4 theorems, 2 jobs | {seconds:.1f} s: {count} certificates "
          f"({count / seconds:.0f}/s, {primes / seconds:.1f} primes/s for all four)")
    for theorem, p, elapsed in largest_prime_seconds():
        print(f"largest accepted prime, certify {theorem:<6} (process)      | p = {p}: {elapsed:.2f} s")


if __name__ == "__main__":
    main()
