"""The examples in skipstone.layout's docstrings run as printed (they are its API docs)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import skipstone.layout

MODULES = sorted(m.name for m in pkgutil.walk_packages(skipstone.layout.__path__, "skipstone.layout."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
