"""certify: rigorous, machine-checked instances of the theorems of
"A Counterexample to Fourier Alignment in Single-Neuron Modular Addition".

The Python API (:mod:`certify.api`; imported on first use, so ``import certify`` stays cheap and
never imports numpy, scipy, sympy or matplotlib):

>>> import certify
>>> c = certify.dead(p=5)
>>> c.claims["terminal_fourier_fraction"].exact, bool(c.check())
(Fraction(1, 2), True)

``certify.dead/slide/smooth/gd(p, **parameters)`` certify an instance and return a
:class:`~certify.api.Certificate`; ``certify.load(path_or_text)`` reads one back;
``certify.derivation(name, p=None)``, ``certify.simulate(theorem, p=...)`` and
``certify.plot(theorem, p=...)`` give the symbolic derivations, float trajectories and figures;
``certify.THEOREMS`` is the theorem registry (:mod:`certify.theorems.registry`); a theorem added there
without a function in certify.api is served as ``certify.NAME`` all the same (made from its record).

Layers, each depending only on the ones above it in this list:

* ``certify.kernel``    trusted ball arithmetic and the theorems' obligations
* ``certify.certificate`` the certify/1 JSON format (build, canonical bytes, parse)
* ``certify.check``     the independent checker
* ``certify.theorems``  untrusted builders that choose parameters and radii
* ``certify.numeric``   float simulations (cross-checks and plots only)
* ``certify.api``       the Python API: calls the layers above
* ``certify.cli``       the command line: parses, calls, prints
"""

__version__ = "0.1.0"

#: Names served lazily from certify.api (PEP 562), so that `import certify` imports nothing heavy.
_API = ("Certificate", "Claim", "Quantity", "NumberTooLarge", "certify_theorem", "dead", "slide", "smooth",
        "gd", "sensitivity", "load", "derivation", "plot")

__all__ = ["__version__", *_API, "simulate", "THEOREMS"]


class _Simulate:
    """``certify.simulate(theorem, p=..., start="base", seed=0, certificate=None, **parameters)``: see
    :func:`certify.api.simulate`.

    The name is also that of the submodule :mod:`certify.simulate`, which Python would bind here
    when it is imported; this object stays in its place (see ``_Package``): calling it runs the
    API function, and its other attributes are the submodule's (``certify.simulate.simulate_instance``).
    """

    @property
    def __doc__(self):
        from .api import simulate

        return simulate.__doc__

    def __call__(self, *args, **kwargs):
        from .api import simulate

        return simulate(*args, **kwargs)

    def __getattr__(self, name):
        import importlib

        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module("certify.simulate"), name)

    def __repr__(self):
        return "<function certify.simulate (the API function; attributes of the module certify.simulate)>"


simulate = _Simulate()


def __getattr__(name):
    if name in _API or name == "api":
        import importlib

        api = importlib.import_module(f"{__name__}.api")  # not `from . import api`: that asks this hook again
        return api if name == "api" else getattr(api, name)
    if name == "THEOREMS":  # the Theorem registry (issue 11 section 1): name -> Theorem record
        from .theorems.registry import THEOREMS

        return THEOREMS
    if not name.startswith("_"):
        from .theorems.registry import THEOREMS

        if name in THEOREMS:  # a theorem with no function written out in certify.api: made from its record
            from .api import theorem_function

            return theorem_function(name)
    raise AttributeError(f"module 'certify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _install_package_class():
    """Keep ``certify.simulate`` the callable above when the submodule certify.simulate is imported."""
    import sys
    import types

    class _Package(types.ModuleType):
        def __setattr__(self, name, value):
            if name == "simulate" and isinstance(value, types.ModuleType):
                return  # the submodule stays in sys.modules["certify.simulate"]; _Simulate forwards to it
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = _Package


_install_package_class()
