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
``certify.sweep(primes, out=...)`` and ``certify.law(p, samples, out=...)`` run what ``certify sweep`` and
``certify law`` run and return their summaries as tables; ``print(c)`` prints a certificate's summary;
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
        "gd", "sensitivity", "staircase", "memorise", "twin", "twin_plus", "twin_above", "load", "derivation",
        "plot")

__all__ = ["__version__", *_API, "simulate", "sweep", "law", "THEOREMS"]


class _FunctionAndModule:
    """``certify.NAME``: the API function :func:`certify.api.NAME` under the name of the submodule
    ``certify.NAME`` (``simulate``, ``sweep``; ``law`` is a package).

    Python binds a submodule as an attribute of its package when it is imported; this object stays in
    its place (see ``_Package``). Calling it runs the API function, and ``inspect.signature`` and
    ``help`` see that function's signature and docstring; every other attribute is read from, set on
    and deleted from the submodule itself (``certify.simulate.simulate_instance``,
    ``monkeypatch.setattr(certify.sweep, ...)``, ``import certify.law.runner as runner``).
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def _function(self):
        import importlib

        return getattr(importlib.import_module(f"{__name__}.api"), self._name)

    def _module(self):
        import importlib

        return importlib.import_module(f"{__name__}.{self._name}")

    @property
    def __doc__(self):
        return self._function().__doc__

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(self._function())

    def __call__(self, *args, **kwargs):
        return self._function()(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._module(), name)

    def __setattr__(self, name, value):
        setattr(self._module(), name, value)

    def __delattr__(self, name):
        delattr(self._module(), name)

    def __dir__(self):
        return sorted(set(dir(self._module())) | {"__call__", "__doc__", "__signature__"})

    def __repr__(self):
        return (f"<function certify.{self._name} (the API function certify.api.{self._name}; attributes of the "
                f"module certify.{self._name})>")


#: API functions named like a submodule: the submodule is reached through them (see _FunctionAndModule).
_SHADOWED = ("simulate", "sweep", "law")

simulate = _FunctionAndModule("simulate")
sweep = _FunctionAndModule("sweep")
law = _FunctionAndModule("law")


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
    """Keep ``certify.simulate``, ``certify.sweep`` and ``certify.law`` the callables above when their submodules
    are imported."""
    import sys
    import types

    class _Package(types.ModuleType):
        def __setattr__(self, name, value):
            if name in _SHADOWED and isinstance(value, types.ModuleType):
                return  # the submodule stays in sys.modules["certify.NAME"]; _FunctionAndModule forwards to it
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = _Package


_install_package_class()
