"""certify: rigorous, machine-checked instances of the theorems of
"A Counterexample to Fourier Alignment in Single-Neuron Modular Addition".

Layers, each depending only on the ones above it in this list:

* ``certify.kernel``    trusted ball arithmetic and the theorems' obligations
* ``certify.certificate`` the certify/1 JSON format (build, canonical bytes, parse)
* ``certify.check``     the independent checker
* ``certify.theorems``  untrusted builders that choose parameters and radii
* ``certify.numeric``   float simulations (cross-checks and plots only)
* ``certify.cli``       the command line: parses, calls, prints
"""

__version__ = "0.1.0"
