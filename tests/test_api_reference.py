"""The API reference (`make apidocs`, pdoc from the dev extra): every public name documented,
the package's own names with an example, every reference between them resolving."""
from __future__ import annotations

import doctest
import importlib.util
import os

import pytest

from tests.import_graph import MODULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import pdoc.doc  # (the dev extra: `make install`, or pip install -e '.[dev]')
except ImportError as e:  # pragma: no cover - fail, do not skip: CI installs the dev extra
    raise ImportError("the API reference tests need pdoc, from the dev extra: pip install -e '.[dev]'") from e


def _apidocs():
    spec = importlib.util.spec_from_file_location("apidocs", os.path.join(ROOT, ".ci", "apidocs.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


apidocs = _apidocs()


@pytest.fixture(scope="module")
def docs():
    return apidocs.modules()


@pytest.fixture(scope="module")
def rendered(docs, tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    apidocs.render(docs, out)
    return out


def test_every_public_name_and_method_has_a_docstring(docs):
    assert apidocs.undocumented(docs) == []


@pytest.mark.parametrize("module", apidocs.PUBLIC_MODULES)
def test_every_name_a_public_module_exports_shows_an_example(docs, module):
    assert apidocs.without_example(docs, module) == []


def test_every_reference_in_the_reference_resolves(docs, rendered):
    assert apidocs.broken_references(docs, rendered) == []
    assert (rendered / "skipstone.html").exists() and (rendered / "skipstone" / "layout.html").exists()


def test_the_checks_catch_an_undocumented_name_and_a_dangling_reference(docs, tmp_path, monkeypatch):
    (tmp_path / "half_documented.py").write_text('"""A module."""\n__all__ = ["f"]\n\ndef f():\n    pass\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert apidocs.undocumented({"half_documented": pdoc.doc.Module.from_name("half_documented")}) == \
        ["half_documented.f"]
    page = tmp_path / "skipstone.html"
    page.write_text('<code>Skipstone.no_such_method</code> <a href="skipstone/nowhere.html#x">x</a>')
    assert apidocs.broken_references(docs, tmp_path) == [
        "skipstone.html: `Skipstone.no_such_method` resolves to nothing documented",
        "skipstone.html: link to missing page skipstone/nowhere.html"]


def _has_examples(module: str) -> bool:
    return any(test.examples for test in doctest.DocTestFinder().find(importlib.import_module(module), module))


# Examples that run without a Spark session (the layout package never needs one); the others
# are marked +SKIP in their docstrings.
RUNNABLE = ["skipstone.jar", "skipstone.errors", "skipstone.stats", "skipstone.indexes.base",
            "skipstone.indexes.defined", "skipstone.indexes.mapping", "skipstone.indexes.metricdist",
            *sorted(m for m in MODULES if m.startswith("skipstone.layout") and _has_examples(m))]


@pytest.mark.parametrize("module", RUNNABLE)
def test_the_examples_that_need_no_spark_session_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
