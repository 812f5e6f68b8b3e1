"""How long a one-box finite-horizon certificate could keep a k >= 3 staircase (docs/staircase.md section 7).

Run: python examples/staircase/horizon_scale.py [--p 5] [--draws 40] [--horizons 1e4 1e6]

Floats, evidence only. For the first draws of `certify law`'s sampler (seed 1) that end as staircases with k = 3 and
k = 4 at each horizon, it reads the final state theta and the field f = -grad L of the loss with the state's
strictly active gates (the gates on their kinks counted inactive: the field a box off the kinks sees; the flow's
own field, certify.law.flow.velocity, in that mode), and prints

* V0 = |f(theta)|_inf, the speed at the state;
* Lip = the infinity norm of the Jacobian of f at theta (central differences, step h = 1e-6: the error is
  O(h^2 |f'''|), and each derivative of the softmax in z brings a factor |w| <~ 80, so |f'''| <~ |w|^4/p^2 < 10^7
  and the error is below 1e-5, against Lip >= 2);
* margin = the least |z| over the gates off their kinks (a sup-norm box of radius rho moves each gate by up to
  2 rho, so a box keeps them off their kinks only for rho < margin/2);
* 1/Lip: to first order, sup |f| over a box of radius rho lies between max(V0, Lip rho) and V0 + Lip rho, so the
  horizon rho/sup|f| that an a priori enclosure of one box proves is below 1/Lip whatever rho (printed rounded up);
* T_box = max over rho <= margin/2 of rho/(V0 + Lip rho): what such a box would prove with the upper estimate of
  sup |f| (first order, not a bound);
* the number of steps of length 1/Lip a validated integrator would need to reach the state's own age t.

The states also have gates on their kinks which every box around them straddles; the field used
here counts them inactive, the best case for a box. It shows why section 7 builds no finite-horizon certificate
for k >= 3: one box proves a horizon below one time unit, while the state is 10^4-10^6 time units old and changes
on that scale.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from certify.law.classify import classify
from certify.law.flow import simulate_flow, velocity
from certify.law.sampling import draw_initial


def scales(theta: np.ndarray, p: int) -> dict:
    z = theta[:p, None] + theta[None, p:2 * p]
    kink = np.abs(z) <= 1e-6
    # the flow's field in the mode with the strictly active gates active and every other gate inactive
    status = np.where((z > 1e-6).ravel(), 1, -1)
    f0 = velocity(theta, p, status)
    h = 1e-6
    jac = np.array([(velocity(theta + h * e, p, status) - velocity(theta - h * e, p, status)) / (2 * h)
                    for e in np.eye(3 * p)]).T
    V0, lip, margin = float(np.abs(f0).max()), float(np.abs(jac).sum(axis=1).max()), float(np.abs(z[~kink]).min())
    rho = np.linspace(margin / 2000, margin / 2, 1000)
    return {"kinks": int(kink.sum()), "V0": V0, "Lip": lip, "margin": margin,
            "T_box": float(np.max(rho / (V0 + lip * rho))), "T_max": 1 / lip}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=5)
    parser.add_argument("--draws", type=int, default=40)
    parser.add_argument("--horizons", type=float, nargs="+", default=[1e4, 1e6])
    options = parser.parse_args()
    p = options.p
    print("| horizon t | k | draw | kinks | V0 | Lip | margin | 1/Lip (up) | T_box | steps of 1/Lip to t |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for horizon in options.horizons:
        seen = set()
        for index in range(options.draws):
            trajectory = simulate_flow(draw_initial(p, 1.0, 1, index).theta, p, horizon=horizon)
            outcome = classify(trajectory)
            k = getattr(outcome.shape, "k", None) if outcome.outcome == "staircase" else None
            if k not in (3, 4) or k in seen:
                continue
            seen.add(k)
            s = scales(trajectory.states[-1], p)
            print(f"| {horizon:.0e} | {k} | {index} | {s['kinks']} | {s['V0']:.2e} | {s['Lip']:.3g} | "
                  f"{s['margin']:.3g} | {math.ceil(s['T_max'] * 1e4) / 1e4:.4g} | {s['T_box']:.3g} | "
                  f"{horizon * s['Lip']:.1e} |")
            if seen == {3, 4}:
                break


if __name__ == "__main__":
    main()
