"""What the package promises where it is installed: the core imports on an executor without the
command line's libraries (the `cli` extra), the console script says what to install, and the
jar picked is the one compiled for the running Spark minor (docs/install.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import skipstone
from skipstone.errors import SkipstoneError
from skipstone.jar import jar_for_minor, packaged_spark_minors, spark_minor
from tests.import_graph import MODULES, PYTHON_DIR

# Installed first on sys.meta_path: importing typer, rich or matplotlib (or a submodule) fails
# as it does where the `cli` extra is not installed.
WITHOUT_CLI_LIBRARIES = """
import sys
class NotInstalled:
    BLOCKED = ("typer", "rich", "matplotlib")
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
"""


def _python(script: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", WITHOUT_CLI_LIBRARIES + script, *args],
                          capture_output=True, text=True, env=env, timeout=600)


def test_every_module_outside_the_command_line_imports_without_the_cli_libraries():
    core = sorted(m for m in MODULES if not m.startswith("skipstone.cli") and not m.endswith("__main__"))
    assert {"skipstone.layout", "skipstone.table", "skipstone.jvm_callbacks", "skipstone.jar"} <= set(core)
    done = _python(
        "import importlib, json\n"
        f"for name in {core!r}: importlib.import_module(name)\n"
        "from skipstone import Skipstone, ManagedTable, MinMax, configure, jar_path\n"
        "from skipstone.layout import Amoeba\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'rich', 'matplotlib'})))")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_blocker_does_stop_the_command_line_from_importing():
    done = _python("import skipstone.cli")
    assert done.returncode != 0 and "No module named" in done.stderr


def test_the_console_script_without_the_cli_extra_names_it_in_one_line():
    done = _python("import sys\nfrom skipstone.__main__ import main\nsys.exit(main(['--help']))")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "skipstone: the command line needs typer, rich, matplotlib: pip install 'skipstone[cli]'"]


def test_the_jar_picked_is_the_one_compiled_for_the_running_spark_minor():
    import pyspark

    running = spark_minor(pyspark.__version__)
    assert skipstone.jar_path() == jar_for_minor(running)
    assert os.path.relpath(skipstone.jar_path(), os.path.dirname(skipstone.__file__)) == \
        os.path.join("jars", f"spark-{running}", "skipstone.jar")
    assert running in packaged_spark_minors()


def test_a_spark_minor_without_a_jar_is_refused_naming_the_supported_ones():
    supported = ", ".join(packaged_spark_minors())
    with pytest.raises(SkipstoneError, match=rf"no jar for Spark 4\.2\.1: this installation supports Spark {supported} "):
        skipstone.jar_path("4.2.1")


def test_python_m_skipstone_jar_prints_the_path_to_pass_to_spark_submit():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "skipstone.jar"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == skipstone.jar_path() and os.path.isfile(done.stdout.strip())
