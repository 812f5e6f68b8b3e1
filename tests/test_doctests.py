"""Every `>>>` example in the public API's docstrings and in the kernel's balls and exact modules runs
as a test (as python-flint runs its own): an example that no longer prints what it shows fails here."""

import doctest
import importlib

import pytest

#: module -> the fewest examples it must have (so that deleting them fails too).
MODULES = {"certify": 3, "certify.api": 20, "certify.kernel.balls": 30, "certify.kernel.exact": 24,
           "certify.render.numbers": 3}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(module, name)  # each with a copy of the module's globals
    examples = sum(len(test.examples) for test in tests)
    assert examples >= MODULES[name], f"{name} has {examples} docstring examples"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (see above)"
