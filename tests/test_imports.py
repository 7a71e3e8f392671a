"""The package's import graph: no cycles, every module importable first, and the layout
algorithms free of Spark and of the benchmark harness (the graph: ``tests/import_graph.py``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.import_graph import MODULES, PYTHON_DIR, cycle, edges, imports_of


def test_the_package_imports_no_module_back_at_import_time():
    assert cycle([e for e in edges() if not e.deferred]) is None


def test_the_layout_package_has_no_import_cycle_even_inside_functions():
    layout = [e for e in edges() if e.source.startswith("skipstone.layout") and e.target.startswith("skipstone.layout")]
    assert cycle(layout) is None


def test_no_module_of_the_package_imports_the_benchmarks():
    assert [(m, t) for m in MODULES for t, _ in imports_of(m) if t.split(".")[0] == "benchmarks"] == []


def test_the_layout_package_imports_no_spark_even_inside_functions():
    layout = [m for m in MODULES if m.startswith("skipstone.layout")]
    assert [(m, t) for m in layout for t, _ in imports_of(m) if t.split(".")[0] in ("pyspark", "py4j")] == []


def _run(script: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


# Importing any skipstone module runs skipstone/__init__.py first, so every module that
# __init__ reaches is imported in the same order whichever is asked for first: the distinct
# first imports are the package itself and the modules __init__ does not reach. Each runs in
# a forked child of an interpreter that holds the third-party modules but no skipstone module.
IMPORT_EACH_FIRST = """
import importlib, json, os, sys, traceback
import skipstone
firsts = ["skipstone"] + [m for m in %s if m not in sys.modules]
for name in firsts:
    importlib.import_module(name)
for name in [m for m in sys.modules if m == "skipstone" or m.startswith("skipstone.")]:
    del sys.modules[name]
failed = []
for name in firsts:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
            os._exit(0)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
    if os.waitpid(pid, 0)[1] != 0:
        failed.append(name)
print(json.dumps({"first": firsts, "failed": failed}))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="imports each module in a forked child")
def test_every_module_imports_when_it_is_imported_first():
    names = sorted(m for m in MODULES if not m.endswith("__main__"))
    outcome = json.loads(_run(IMPORT_EACH_FIRST % json.dumps(names)).splitlines()[-1])
    assert outcome["failed"] == [] and "skipstone" in outcome["first"]


def test_importing_every_layout_module_loads_neither_spark_nor_the_benchmarks():
    layout = sorted(m for m in MODULES if m.startswith("skipstone.layout"))
    loaded = _run(f"import importlib, json, sys\nfor m in {layout!r}: importlib.import_module(m)\n"
                  "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'benchmarks'))))")
    assert json.loads(loaded) == []
