"""The outcome law of a randomly initialised neuron (issue "The outcome law"): floats, empirical, never a bound.

Layers, each depending only on those above it in this list:

- :mod:`.sampling`   seeded draws of theta(0) ~ N(0, sigma^2 I_3p), one stream per (seed, index);
- :mod:`.record`     the trajectory record both simulators return, gate patterns, Fourier purity;
- :mod:`.flow`       the Filippov (minimal-norm Clarke) gradient flow (1.6), event-driven, in tau = log(1 + t);
- :mod:`.gd`         full-batch gradient descent with ReLU'(0) = 0 (Theorem A.4's setting), vectorised;
- :mod:`.classify`   the outcome of one trajectory at the horizon (exactly one of five);
- :mod:`.runner`     samples on Dask (local processes or a scheduler), resume, samples.csv, summary.json;
- :mod:`.plots`      figures (matplotlib).

Nothing here is trusted: the classification is a finite-horizon observation, not a theorem. The certified
floor under the measured dead fraction comes from :mod:`certify.kernel.region`.
"""
